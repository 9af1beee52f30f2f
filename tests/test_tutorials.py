"""The tutorials of docs/tutorials/ (compare, judging, choosing) run as a newcomer runs
them: each page's Python blocks, in order, print what its text blocks show, and the figures
they draw are the committed ones that ``python -m tests.tools.make_tutorials`` wrote. A few
of the numbers they print are then checked against an oracle written here (scipy, a count
by hand, the official leaderboard).

Each page runs once per session (cached, and its tests share an xdist worker) for all its
checks. The pages read TREC-COVID
round 1 from ../shared/data and are skipped with a message when it is absent.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from tests.docblocks import figure_names, normalise, run_page, save_figure
from tests.paths import ROOT, need_data
from tests.tools.make_tutorials import IMAGES, PAGES, TUTORIALS

#: Under xdist (``--dist loadgroup``) a page's tests share a worker, so the page runs once.
GROUPED = [pytest.param(name, marks=pytest.mark.xdist_group(f"tutorial-{name}")) for name in PAGES]

#: Least number of Python blocks and of figures on each page.
SIZE = {"compare": (10, 3), "judging": (8, 1), "choosing": (6, 1)}


@functools.cache
def _run(name: str) -> tuple[Path, list[Any], dict[str, Any], dict[str, Any]]:
    namespace: dict[str, Any] = {}
    path = TUTORIALS / f"{name}.md"
    results, figures = run_page(path, namespace)
    return path, results, figures, namespace


def run(name: str) -> tuple[Path, list[Any], dict[str, Any], dict[str, Any]]:
    """The page's (path, block results, figures, namespace), or skip with the reason."""
    pytest.importorskip("matplotlib", reason="the tutorials draw figures: pip install '.[plot]'")
    pytest.importorskip("great_tables", reason="the tutorials print tables: the report extra")
    need_data()
    return _run(name)


@pytest.mark.parametrize("name", GROUPED)
def test_tutorial_blocks_print_what_the_page_shows(name: str) -> None:
    path, results, _, _ = run(name)
    assert len(results) >= SIZE[name][0]
    for code, printed, expected in results:
        assert expected is not None, f"{path.name}: block without its output:\n{code}"
        assert normalise(printed) == normalise(expected), f"{path.name}, block:\n{code}"


@pytest.mark.parametrize("name", GROUPED)
def test_tutorial_figures_are_the_committed_ones(name: str, tmp_path: Path) -> None:
    from matplotlib.testing.compare import compare_images

    path, _, figures, _ = run(name)
    shown = [image for images in figure_names(path.read_text()) for image in images]
    assert len(shown) >= SIZE[name][1]
    assert sorted(figures) == sorted(shown)
    for image, fig in figures.items():
        save_figure(fig, tmp_path / image)
        committed = IMAGES / image
        assert committed.is_file(), f"run `python -m tests.tools.make_tutorials {name}`"
        diff = compare_images(str(committed), str(tmp_path / image), tol=6)
        assert diff is None, f"{image} differs from what {path.name} draws: {diff}"


def test_tutorials_are_in_the_site_navigation() -> None:
    nav = (ROOT / "mkdocs.yml").read_text()
    for name in PAGES:
        assert f"tutorials/{name}.md" in nav, name


@pytest.mark.xdist_group("tutorial-compare")
def test_compare_tutorial_reproduces_the_leaderboard_and_scipy() -> None:
    import polars as pl
    from scipy import stats

    _, _, _, ns = run("compare")
    check = ns["check"]
    for ours, official in [("nDCG@10", "official_ndcg10"), ("P@5", "official_p5"),
                           ("AP", "official_map")]:  # fmt: skip
        assert (check[ours] - check[official]).abs().max() <= 0.5e-4  # 4 decimals printed
    per_q, baseline = ns["results"], ns["baseline"]
    wide = per_q.filter(pl.col("measure") == "nDCG@10").pivot(
        on="run_id", index="query_id", values="value"
    )
    others = [r for r in ns["names"] if r != baseline]
    p = {r: stats.ttest_rel(wide[r], wide[baseline]).pvalue for r in others}
    # Holm by hand: the i-th smallest p times (m - i), made monotone, at most 1
    order = sorted(others, key=lambda r: p[r])
    holm, running = {}, 0.0
    for i, r in enumerate(order):
        running = max(running, (len(order) - i) * p[r])
        holm[r] = min(1.0, running)
    ndcg = ns["ndcg"]
    for row in ndcg.iter_rows(named=True):
        assert row["p_value"] == pytest.approx(p[row["run_a"]], rel=1e-9)
        assert row["p_adjusted"] == pytest.approx(holm[row["run_a"]], rel=1e-9)
    rm3 = ndcg.filter(pl.col("run_a") == "smith.rm3").row(0, named=True)
    assert rm3["p_value"] < 0.05 < rm3["p_adjusted"]  # what the page concludes


@pytest.mark.xdist_group("tutorial-judging")
def test_judging_tutorial_depth_pools_match_a_count_by_hand() -> None:
    _, _, _, ns = run("judging")
    ranked: dict[tuple[str, str], list[tuple[float, str]]] = defaultdict(list)
    for run_id, q, d, s in ns["runs"].select("run_id", "query_id", "doc_id", "score").iter_rows():
        ranked[run_id, q].append((s, d))
    entry: dict[tuple[str, str], int] = {}
    for (_, q), docs in ranked.items():
        top = sorted(docs, reverse=True)[:10]  # score descending, doc id descending (trec_eval)
        for rank, (_, d) in enumerate(top, 1):
            entry[q, d] = min(rank, entry.get((q, d), rank))
    sizes = dict(ns["sizes"].select("depth", "pool").iter_rows())
    for depth in range(1, 11):
        assert sizes[depth] == sum(1 for r in entry.values() if r <= depth)
    assert ns["ranges"]["full"].is_between(ns["ranges"]["base"], ns["ranges"]["upper"]).all()


@pytest.mark.xdist_group("tutorial-choosing")
def test_choosing_tutorial_agreement_is_scipys_kendall_tau() -> None:
    import polars as pl
    from scipy import stats

    _, _, _, ns = run("choosing")
    wide = ns["scores"].pivot(on="measure", index="run_id", values="value")
    tau = ns["tau"]
    for a in ns["on_runs"]:
        row = tau.filter(pl.col("measure") == a).row(0, named=True)
        for b in ns["on_runs"]:
            assert row[b] == round(stats.kendalltau(wide[a], wide[b]).statistic, 3)
