"""docs/tutorials/evaluate.md runs: its Python blocks, in order, print what its text blocks
show, its P@10 agrees with a count made by hand from the bundled files, and its figure is
the one ``docs/make_figures.py`` draws."""

from __future__ import annotations

import importlib.util
from collections import defaultdict
from pathlib import Path

import pytest

from polars_ireval.io.example import example_path
from tests.docblocks import normalise, run_blocks
from tests.paths import ROOT

DOC = ROOT / "docs" / "tutorials" / "evaluate.md"
FIGURES = ROOT / "docs" / "make_figures.py"


def test_evaluate_tutorial_blocks_run_and_print_what_they_show() -> None:
    results = run_blocks(DOC)
    assert len(results) >= 6
    for code, printed, expected in results:
        assert expected is not None, f"block without output shown:\n{code}"
        assert normalise(printed) == normalise(expected), f"block:\n{code}"


def test_evaluate_tutorial_precision_matches_a_hand_count() -> None:
    rel: dict[tuple[str, str], int] = {}
    for line in Path(example_path("qrels.txt")).read_text().splitlines():
        q, _, d, g = line.split()
        rel[q, d] = int(g)
    ranked: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for line in Path(example_path("runs/bm25.run")).read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        ranked[q].append((float(s), d))
    p10 = []
    for q, docs in ranked.items():
        top = sorted(docs, key=lambda sd: (sd[0], sd[1]), reverse=True)[:10]  # trec_eval ties
        p10.append(sum(rel.get((q, d), 0) >= 1 for _, d in top) / 10)
    value = sum(p10) / len(p10)
    assert f"bm25     {0.5147:.4f}  {0.4035:.4f}  {value:.4f}" in DOC.read_text()
    assert f"P_10                  \tall\t{value:.4f}" in DOC.read_text()


def test_evaluate_tutorial_figure_is_drawn_by_its_script(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="matplotlib is a test dependency")
    from matplotlib.testing.compare import compare_images

    spec = importlib.util.spec_from_file_location("make_figures", FIGURES)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(tmp_path / "evaluate_per_query.png")
    committed = ROOT / "docs" / "images" / "evaluate_per_query.png"
    assert "](../images/evaluate_per_query.png)" in DOC.read_text()
    assert compare_images(str(committed), str(tmp_path / "evaluate_per_query.png"), tol=6) is None
