"""``ireval plot`` (polars_ireval/cli/plot.py) on the bundled example campaign.

* Each kind writes a valid file of the format its extension names (PNG, SVG and PDF magic
  bytes), and the figure it draws is the one the library's own calls give: the same axes,
  the same lines or bars (matplotlib's figure contents compared artist by artist).
* Errors are one line on stderr with exit code 2: an unknown kind, an unknown extension,
  matplotlib missing, a kind without what it needs.
"""

from __future__ import annotations

import builtins
import sys
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_ireval as ir
from polars_ireval import plot as P
from polars_ireval.cli import main
from polars_ireval.cli.plot import KINDS, figure, parser

pytest.importorskip("matplotlib")

pytestmark = pytest.mark.filterwarnings("ignore::polars_ireval.CoverageWarning")

QRELS = str(ir.example_path("qrels.txt"))
RUNS = str(ir.example_path("runs"))
MAGIC = {".png": b"\x89PNG\r\n\x1a\n", ".pdf": b"%PDF-", ".svg": b"<?xml"}


def _example() -> tuple[pl.DataFrame, pl.DataFrame]:
    return ir.read_qrels(QRELS), ir.read_run(RUNS, run_id="file")


def _library_figure(kind: str) -> Any:
    """The figure of each kind drawn by calling the library directly (the oracle)."""
    qrels, runs = _example()
    if kind == "pr":
        return P.pr_curve(ir.pr_curve(runs, qrels))
    if kind == "roc":
        one = runs.filter(run_id="bm25", query_id="101")
        return P.roc_curve(ir.roc_curve(one, qrels, n_docs=5000))
    if kind == "depth":
        curve = ir.depth_curve(runs, qrels, ["AP", "nDCG"], depths=range(1, 101))
        return P.depth_curves(curve)
    if kind == "scatter":
        return P.scatter(ir.evaluate(runs, qrels, ["AP", "P@10"]), measure=("AP", "P@10"))
    if kind == "ranges":
        per_q = ir.evaluate(runs, qrels, ["P@10"], per_query=True, residuals=True)
        return P.score_ranges(per_q, measure="P@10")
    per_q = ir.evaluate(runs, qrels, ["nDCG@10"], per_query=True)
    if kind == "delta":
        return P.per_query_delta(per_q, baseline="bm25", measure="nDCG@10")
    if kind == "intervals":
        return P.intervals(ir.compare(per_q, baseline="bm25"), measure="nDCG@10")
    return P.significance(ir.compare(per_q, pairs="all"), measure="nDCG@10")


ARGS = {
    "pr": [QRELS, RUNS],
    "roc": [QRELS, f"{RUNS}/bm25.run", "--n-docs", "5000", "--query", "101"],
    "delta": [QRELS, RUNS, "--baseline", "bm25", "-m", "nDCG@10"],
    "ranges": [QRELS, RUNS, "-m", "P@10"],
    "intervals": [QRELS, RUNS, "-m", "nDCG@10", "--baseline", "bm25"],
    "significance": [QRELS, RUNS, "-m", "nDCG@10"],
    "scatter": [QRELS, RUNS, "-m", "AP", "-m", "P@10"],
    "depth": [QRELS, RUNS, "-m", "AP", "-m", "nDCG", "--depths", "1-100"],
}


def _contents(fig: Any) -> list[Any]:
    """What each Axes shows: titles, labels, limits, the data of its lines and bars."""
    out = []
    for ax in fig.axes:
        # means over queries may differ in the last bit between two runs (parallel sums)
        lines = [np.round(np.asarray(ln.get_xydata(), dtype=float), 12).tolist() for ln in ax.lines]
        bars = [
            (round(p.get_x(), 12), round(p.get_height(), 12))
            for p in ax.patches
            if hasattr(p, "get_height")
        ]
        legend = ax.get_legend()
        labels = [t.get_text() for t in legend.get_texts()] if legend is not None else []
        out.append((ax.get_title(), ax.get_xlabel(), ax.get_ylabel(), lines, bars, labels))
    return out


@pytest.mark.parametrize("kind", sorted(ARGS))
def test_each_kind_draws_the_librarys_figure(kind: str) -> None:
    args = parser().parse_args([kind, *ARGS[kind], "-o", "x.png"])
    got = _contents(figure(args))
    want = _contents(_library_figure(kind))
    assert got == want
    assert any(lines or bars for _, _, _, lines, bars, _ in got)


# every kind as PNG; SVG and PDF (and an upper-case extension) on two kinds
FILES = [(k, ".png") for k in sorted(ARGS)] + [
    (k, e) for k in ("pr", "delta") for e in (".svg", ".pdf")
]


@pytest.mark.parametrize(("kind", "ext"), FILES)
def test_each_kind_writes_the_format_of_its_extension(tmp_path: Path, kind: str, ext: str) -> None:
    target = tmp_path / f"fig{ext.upper() if kind == 'delta' else ext}"
    assert main(["plot", kind, *ARGS[kind], "-o", str(target)]) == 0
    data = target.read_bytes()
    assert data.startswith(MAGIC[ext]) and len(data) > 1000
    if ext == ".svg":
        assert b"<svg" in data[:2000]


def test_pir_kind(tmp_path: Path) -> None:
    from tests.test_pir import write_files

    sim = ir.simulate_sessions(6, seed=3)
    lists, qrels, prefs = write_files(tmp_path, sim)
    target = tmp_path / "pir.svg"
    argv = ["plot", "pir", lists, qrels, prefs, "-m", "nDCG", "-m", "P", "--cutoffs", "1-5"]
    assert main([*argv, "-o", str(target)]) == 0
    assert target.read_bytes().startswith(MAGIC[".svg"])
    args = parser().parse_args([*argv[1:], "-o", str(target)])
    want = P.pir_curves(
        ir.pir(sim.lists, sim.qrels, sim.preferences, ["nDCG", "P"], cutoffs=range(1, 6))
    )
    assert _contents(figure(args)) == _contents(want)


def test_every_kind_is_tested() -> None:
    assert set(KINDS) == {*ARGS, "pir"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["bogus", QRELS, RUNS, "-o", "f.png"], "unknown plot kind 'bogus'; choose one of pr,"),
        (["pr", QRELS, RUNS, "-o", "f.jpg"], "unknown figure format '.jpg'; name the file .png"),
        (["pr", QRELS, RUNS, "-o", "f"], "unknown figure format '(none)'"),
        (["pr", QRELS, RUNS], "the following arguments are required: -o/--output"),
        (["roc", QRELS, RUNS, "-o", "f.png"], "plot roc needs the collection size: --n-docs N"),
        (["delta", QRELS, RUNS, "-m", "AP", "-o", "f.png"], "--baseline RUN"),
        (["delta", QRELS, RUNS, "--baseline", "bm25", "-o", "f.png"], "one measure: -m MEASURE"),
        (["scatter", QRELS, RUNS, "-m", "AP", "-o", "f.png"], "two measures: -m X -m Y"),
        (["pr", QRELS, "-o", "f.png"], "takes QRELS and at least one RUN"),
        (["pir", QRELS, RUNS, "-o", "f.png"], "plot pir takes LISTS QRELS PREFERENCES"),
        (["pr", "nope.txt", RUNS, "-o", "f.png"], "nope.txt: no such file; check the path"),
    ],
)
def test_errors_are_one_line(tmp_path: Path, capsys, argv: list[str], message: str) -> None:
    argv = [a if not a.startswith("f") else str(tmp_path / a) for a in argv]
    assert main(["plot", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ireval: error: ") and err.count("\n") == 1
    assert message in err
    assert not list(tmp_path.iterdir())


def test_missing_matplotlib_says_how_to_install(tmp_path: Path, capsys, monkeypatch) -> None:
    real = builtins.__import__

    def no_matplotlib(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError(f"No module named {name!r}")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    assert main(["plot", "pr", QRELS, RUNS, "-o", str(tmp_path / "f.png")]) == 2
    err = capsys.readouterr().err
    assert err == (
        "ireval: error: ireval plot draws with matplotlib, which is not installed: "
        'pip install "polars-ireval[plot]"\n'
    )
