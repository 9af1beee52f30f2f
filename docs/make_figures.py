"""Draw the figure of docs/tutorials/evaluate.md from the bundled example:
``docs/images/evaluate_per_query.png``, the per-query nDCG@10 differences of the dense and
random runs against bm25 (the page's last block draws the same figure).

Run from the repository root: ``python docs/make_figures.py``.
``tests/test_evaluate_docs.py`` draws it again and compares it with the committed file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "images" / "evaluate_per_query.png"


def figure() -> Any:
    """The tutorial's figure (a matplotlib Figure)."""
    import polars_ireval as ir
    from polars_ireval import plot

    qrels = ir.read_qrels(ir.example_path("qrels.txt"))
    runs = ir.read_run(ir.example_path("runs/*.run"))
    results = ir.evaluate(runs, qrels, ["nDCG@10"], per_query=True)
    return plot.per_query_delta(results, baseline="bm25", run_ids=["dense", "random"])


def main(out: Path = OUT) -> None:
    figure().savefig(out, dpi=100)
    print(out)


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(OUT.parents[2]))
    main()
