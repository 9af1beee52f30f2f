"""The tutorials of docs/tutorials/ (compare, judging, choosing) run as a newcomer runs
them: each page's Python blocks, in order, print what its text blocks show, and the figures
they draw are the committed ones that ``python -m tests.tools.make_tutorials`` wrote.

Each page runs once (a module-scoped fixture) for both checks. The pages read TREC-COVID
round 1 from ../shared/data and are skipped with a message when it is absent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.docblocks import figure_names, normalise, run_page, save_figure
from tests.paths import ROOT, need_data
from tests.tools.make_tutorials import IMAGES, PAGES, TUTORIALS

#: Least number of Python blocks and of figures on each page.
SIZE = {"compare": (10, 3), "judging": (8, 1), "choosing": (6, 1)}


@pytest.fixture(scope="module", params=PAGES)
def page(request: pytest.FixtureRequest) -> tuple[Path, list[Any], dict[str, Any]]:
    pytest.importorskip("matplotlib", reason="the tutorials draw figures: pip install -e '.[plot]'")
    pytest.importorskip("great_tables", reason="the tutorials print tables: pip install -e '.[report]'")
    need_data()
    path = TUTORIALS / f"{request.param}.md"
    results, figures = run_page(path)
    return path, results, figures


def test_tutorial_blocks_print_what_the_page_shows(page: tuple[Path, list[Any], Any]) -> None:
    path, results, _ = page
    assert len(results) >= SIZE[path.stem][0]
    for code, printed, expected in results:
        assert expected is not None, f"{path.name}: block without its output:\n{code}"
        assert normalise(printed) == normalise(expected), f"{path.name}, block:\n{code}"


def test_tutorial_figures_are_the_committed_ones(
    page: tuple[Path, list[Any], dict[str, Any]], tmp_path: Path
) -> None:
    from matplotlib.testing.compare import compare_images

    path, _, figures = page
    shown = [name for names in figure_names(path.read_text()) for name in names]
    assert len(shown) >= SIZE[path.stem][1]
    assert sorted(figures) == sorted(shown)
    for name, fig in figures.items():
        save_figure(fig, tmp_path / name)
        committed = IMAGES / name
        assert committed.is_file(), f"run `python -m tests.tools.make_tutorials {path.stem}`"
        diff = compare_images(str(committed), str(tmp_path / name), tol=6)
        assert diff is None, f"{name} differs from what {path.name} draws: {diff}"


def test_tutorials_are_in_the_site_navigation() -> None:
    nav = (ROOT / "mkdocs.yml").read_text()
    for name in PAGES:
        assert f"tutorials/{name}.md" in nav, name
