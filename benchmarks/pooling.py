"""Time pools and judging simulations on a real campaign: TREC-COVID round 1.

    python benchmarks/pooling.py [--data ../shared/data/trec-covid-r1] [--repeat 3]
                                 [--batch 100] [--budgets 1250,2500,5000,7500,10000]

Reads the 143 runs and the qrels once, then times, for each method (depth, max, A, B, C),
``ir.simulate_judging`` at the five budgets with pools from the 56 contributing runs and
batches of ``--batch`` (each call ranks the 3.5M rows, weighs the candidates, plays the
method out to the largest budget and scores the 143 runs at every budget), the median of
``--repeat`` runs, and prints the figures each gives: relevant documents found, average RBP
residual (all runs, best third), Kendall's tau against the full qrels. Then ``ir.pool``
alone for each method at 5,000 judgments, and Method C's batches on their own.

Nothing here is asserted; the figures go into docs/judging.md by hand. Measured on the
2-core machine (median of 3; Polars 2.1, scipy 1.17) while other jobs shared it, so that
the same command gave (load average 2.5 / 5.6):

    simulate_judging, 5 budgets up to 10,000, batches of 100 (seconds):
      depth 2.7 / 9.2   max 2.7 / 8.2   A 2.6 / 8.6   B 5.1 / 8.2   C 5.5 / 10.6
      all five methods in one call: 7.5 / 13.4
    pool at 5,000 judgments: 1.1 to 1.5 / 3.3 to 4.5
    Method C's 100 batches of 100 on their own (1.36M rows, 363k candidates):
      1.0 / 1.7 s, 10 / 17 ms a batch
"""

from __future__ import annotations

import argparse
import time
import warnings
from functools import partial
from pathlib import Path

import numpy as np
import polars as pl
from bench.measuring import timed

import polars_ireval as ir
from polars_ireval.analysis.campaign import build_campaign, contributing, judged_state, rank_runs
from polars_ireval.analysis.pooling import METHODS, batch_sequence

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "trec-covid-r1"
METHOD_NAMES = ["depth", "max", "A", "B", "C"]


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--batch", type=int, default=100)
    ap.add_argument("--budgets", default="1250,2500,5000,7500,10000")
    args = ap.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]

    start = time.perf_counter()
    runs = ir.read_run(str(args.data / "runs"), run_id="file")
    qrels = ir.read_qrels(args.data / "qrels-rnd1.txt")
    board = pl.read_csv(args.data / "leaderboard.csv")
    contributors = board.filter(pl.col("contributed judgments") == "yes")["run"].to_list()
    print(
        f"read {runs['run_id'].n_unique()} runs ({runs.height:,} rows), {qrels.height:,} "
        f"judgments: {time.perf_counter() - start:.2f} s; {len(contributors)} contributing runs"
    )
    warnings.simplefilter("ignore")

    print(f"\nsimulate_judging, budgets {budgets}, batches of {args.batch}:")
    summaries = []
    for method in METHOD_NAMES:
        simulate = partial(
            ir.simulate_judging,
            runs,
            qrels,
            methods=[method],
            budgets=budgets,
            contributors=contributors,
            batch=args.batch,
        )
        seconds, sim = timed(simulate, args.repeat)
        summaries.append(sim.summary)
        print(f"  {method:<6} {seconds:6.2f} s")
    seconds, _ = timed(
        lambda: ir.simulate_judging(
            runs,
            qrels,
            methods=METHOD_NAMES,
            budgets=budgets,
            contributors=contributors,
            batch=args.batch,
        ),
        args.repeat,
    )
    print(f"  all five methods in one call: {seconds:.2f} s")
    summary = pl.concat(summaries)
    with pl.Config(tbl_hide_dataframe_shape=True, tbl_hide_column_data_types=True):
        for column, digits in (
            ("judged", None),
            ("unknown", None),
            ("relevant", None),
            ("mean_residual", 3),
            ("mean_residual_top", 3),
            ("tau", 3),
        ):
            table = summary.pivot("budget", index="method", values=column)
            if digits is not None:
                table = table.with_columns(pl.exclude("method").round(digits))
            print(f"\n{column}:\n{table}")

    print("\npool at 5,000 judgments:")
    for method in METHOD_NAMES:
        pooling = partial(ir.pool, runs, method=method, budget=5000, contributors=contributors)
        seconds, chosen = timed(pooling, args.repeat)
        print(f"  {method:<6} {seconds:6.2f} s  ({chosen.height:,} documents)")

    camp = build_campaign(contributing(rank_runs(runs), contributors), 0.8)
    known, gain = judged_state(camp, qrels, 1)
    n = camp.cands.height
    seconds, chosen = timed(
        lambda: batch_sequence(
            camp,
            METHODS["C"],
            eligible=np.ones(n, dtype=bool),
            judged=np.zeros(n, dtype=bool),
            gain=np.zeros(n),
            budget=10_000,
            per_query=False,
            batch=args.batch,
            known=known,
            outcome=gain,
        ),
        args.repeat,
    )
    batches = int(chosen.batch.max()) + 1
    print(
        f"\nMethod C's batches alone ({camp.rows.height:,} rows, {n:,} candidates): "
        f"{batches} batches of {args.batch} in {seconds:.2f} s, "
        f"{1000 * seconds / batches:.1f} ms a batch"
    )


if __name__ == "__main__":
    main()
