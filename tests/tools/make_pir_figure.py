"""Draw docs/images/pir_discounts.png: PIR against cut-off for seed 001's seven discount
functions of nDCG, on sessions simulated from an RBP user (docs/pir.md).

Run from the repository root: ``python -m tests.tools.make_pir_figure``. The sessions and
measures are those of the page's table (seed 2012), so the figure draws those numbers.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

import polars_ireval as ir

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "images" / "pir_discounts.png"

#: Seed 001's seven discount functions as nDCG measure strings (docs/pir.md explains them).
CLICK = "(1.0,0.5,0.35,0.25,0.2,0.16,0.13,0.11,0.1,0.09)"
DISCOUNTS = {
    "No discount": "nDCG(discount='none')",
    "log5": "nDCG(discount='jk',b=5.0)",
    "log2": "nDCG(discount='jk',b=2.0)",
    "Root": "nDCG(discount='root')",
    "Rank": "nDCG(discount='rank')",
    "Square": "nDCG(discount='square')",
    "Click-based": f"nDCG(discount='click',weights={CLICK})",
}


def discount_pir(threshold: str | float = "best") -> pl.DataFrame:
    """ir.pir of the seven discounts at cut-offs 1..10, measures named by their discount."""
    sim = ir.simulate_sessions(200, seed=2012, p=0.8, noise=0.05)
    out = ir.pir(sim.lists, sim.qrels, sim.preferences, list(DISCOUNTS.values()),
                 cutoffs=range(1, 11), threshold=threshold)  # fmt: skip
    names = dict(zip(DISCOUNTS.values(), DISCOUNTS, strict=True))
    return out.with_columns(pl.col("measure").replace_strict(names))


def main() -> None:
    import matplotlib

    matplotlib.use("Agg")
    from polars_ireval import plot

    fig = plot.pir_curves(discount_pir())
    fig.set_size_inches(7.5, 4.8)
    OUT.parent.mkdir(exist_ok=True)
    fig.savefig(OUT, dpi=100, metadata={"Software": None})
    print(OUT)


if __name__ == "__main__":
    main()
