"""Time ``ir.depth_curve`` on a real campaign: TREC-COVID round 1, 143 runs, depths 1..1000.

    PYTHONPATH=.. python depth_curve.py [--data ../../shared/data/trec-covid-r1] [--repeat 3]

Reads the 143 runs and the qrels once (untimed), then times, the median of ``--repeat``
rounds after an untimed one:

- the curve of seed 000's five measures (AP, nDCG, Q(beta=1), RBP(p=0.8), ERR) at every
  depth 1..1000, means over queries (715,000 values), and per query (21.45M values), and
  with residuals;
- the same curve at one depth (k = 1000) and each measure alone at depths 1..1000: what
  is fixed cost and what grows with the depths and the measures;
- ``ir.judge`` of the campaign (the evaluation table of the judged documents: every
  evaluation starts with it);
- the peer, one ``ir.evaluate`` per depth: the five measures at one depth, and at ten
  depths in one call (how ``depth_curve`` evaluates measures it has no one-pass
  computation for); 1000 depths cost about 100 of the latter.

Nothing is asserted; the figures go into docs/stability.md by hand, with the machine's
load (the 2-core machine these were measured on is shared).
"""

from __future__ import annotations

import argparse
import os
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
from bench.measuring import timed

import polars_ireval as ir

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "trec-covid-r1"
MEASURES = ["AP", "nDCG", "Q(beta=1)", "RBP(p=0.8)", "ERR"]
DEPTHS = range(1, 1001)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    warnings.simplefilter("ignore", ir.CoverageWarning)

    runs = ir.read_run(args.data / "runs", run_id="file")
    qrels = ir.read_qrels(args.data / "qrels-rnd1.txt")
    print(
        f"{runs['run_id'].n_unique()} runs, {runs.height:,} rows, {qrels.height:,} judgments; "
        f"Polars {pl.__version__}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}"
    )

    def curve(measures: list[str], depths: Any = DEPTHS, **options: Any) -> pl.DataFrame:
        return ir.depth_curve(runs, qrels, measures, depths=depths, **options)

    rows: list[tuple[str, float, int]] = []

    def row(name: str, fn: Callable[[], Any]) -> float:
        seconds, out = timed(fn, args.repeat)
        height = out.height if isinstance(out, pl.DataFrame) else 0
        rows.append((name, seconds, height))
        print(f"{name:<58} {seconds:7.2f} s  {height:>12,} rows", flush=True)
        return seconds

    main_time = row("depth_curve, 5 measures, depths 1..1000 (means)", lambda: curve(MEASURES))
    row("  per query", lambda: curve(MEASURES, per_query=True))
    row("  with residuals", lambda: curve(MEASURES, residuals=True))
    row("  condensed", lambda: curve(MEASURES, condensed=True))
    row("  at one depth (k = 1000)", lambda: curve(MEASURES, [1000]))
    for m in MEASURES:
        row(f"  {m} alone", lambda m=m: curve([m]))
    row("ir.judge (judged documents)", lambda: ir.judge(runs, qrels, unjudged=False))
    one = row(
        "peer: ir.evaluate, 5 measures at one depth",
        lambda: ir.evaluate(runs, qrels, [f"{m}@1000" for m in MEASURES]),
    )
    ten = row(
        "peer: ir.evaluate, 5 measures at 10 depths in one call",
        lambda: ir.evaluate(runs, qrels, [f"{m}@{d}" for m in MEASURES for d in range(1, 11)]),
    )
    print(
        f"\ndepth_curve at 1000 depths: {main_time:.2f} s; one evaluate per depth would take "
        f"about {1000 * one:.0f} s ({1000 * one / main_time:.0f}x), batched by ten "
        f"{100 * ten:.0f} s ({100 * ten / main_time:.0f}x)"
    )


if __name__ == "__main__":
    main()
