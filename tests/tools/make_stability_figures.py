"""Draw docs/images/stability_depth_curves.png: the five measures of seed 000 against the
evaluation depth on TREC-COVID round 1, usual (left) and condensed (right), the pool depth
d = 7 marked (docs/stability.md, "How stable are my scores?").

Run from the repository root, with ../shared/data beside the checkout:
``python -m tests.tools.make_stability_figures``. The curves are those of the page's
blocks (all 8,691 judgments, depths 1..1000); the runs drawn are the ten best by AP at
depth 1000, the same in every panel.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import polars as pl

import polars_ireval as ir

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data" / "trec-covid-r1"
OUT = ROOT / "docs" / "images" / "stability_depth_curves.png"
MEASURES = ["AP", "nDCG", "Q(beta=1)", "RBP(p=0.8)", "ERR"]
#: The official qrels hold the depth-7 pool of the 56 contributing runs (docs/judging.md).
POOL_DEPTH = 7


def curves() -> tuple[pl.DataFrame, pl.DataFrame]:
    """The usual and the condensed curves of the 143 runs, depths 1..1000."""
    runs = ir.read_run(DATA / "runs", run_id="file")
    qrels = ir.read_qrels(DATA / "qrels-rnd1.txt")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ir.CoverageWarning)
        usual = ir.depth_curve(runs, qrels, MEASURES, depths=range(1, 1001))
        condensed = ir.depth_curve(runs, qrels, MEASURES, depths=range(1, 1001), condensed=True)
    return usual, condensed


def figure(usual: pl.DataFrame, condensed: pl.DataFrame, top: int = 10):
    """Five rows (one per measure) by two columns (usual, condensed)."""
    from matplotlib.figure import Figure

    from polars_ireval import plot

    at = usual.filter(pl.col("measure") == MEASURES[0], pl.col("depth") == 1000)
    shown = at.sort(["value", "run_id"], descending=[True, False])["run_id"].head(top).to_list()
    fig = Figure(figsize=(11.0, 14.0), layout="constrained")
    grid = fig.subplots(len(MEASURES), 2, sharex=True)
    for col, (curve, title) in enumerate([(usual, "usual"), (condensed, "condensed")]):
        plot.depth_curves(curve, run_ids=shown, ax=grid[:, col], pool_depth=POOL_DEPTH)
        grid[0, col].set_title(
            f"{title}: unjudged documents "
            + ("count as non-relevant" if col == 0 else "removed (judged only)"),
            fontsize="medium",
        )
        for ax in grid[:, col]:
            if (col, ax) != (1, grid[0, 1]):
                ax.get_legend().remove()
    return fig


def main() -> None:
    import matplotlib

    matplotlib.use("Agg")
    fig = figure(*curves())
    OUT.parent.mkdir(exist_ok=True)
    fig.savefig(OUT, dpi=80, metadata={"Software": None})
    print(OUT)


if __name__ == "__main__":
    main()
