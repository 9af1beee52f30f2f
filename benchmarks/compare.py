"""Time ir.compare on a real campaign: all pairs of TREC-COVID round 1's 143 runs.

    python benchmarks/compare.py [--data ../shared/data/trec-covid-r1] [--repeat 3]
                                 [--resamples 10000] [--peers]

Evaluates the 143 runs per query on nDCG@10, AP and RBP(p=0.8) once, then times
``ir.compare(results, pairs="all", ...)`` (10,153 pairs x 3 measures = 30,459 comparisons)
for each test, the median of ``--repeat`` runs, and prints one line per case (wall seconds,
peak resident memory growth is not measured: every case keeps its chunks under 64 MB).
``--peers`` adds the ratios against doing the same pair by pair with scipy (a Python loop
of ``scipy.stats.ttest_rel``/``wilcoxon``) and against ranx's statistics (the function
``ranx.compare`` calls, on the same per-query scores: Student and Fisher with 1,000
permutations, on 20 runs; ranx tests each ordered pair, 380 per measure).

Tukey's HSD (ANOVA) evaluates scipy's studentized range once per distinct q (~10 ms
each): it is timed on 40 runs (780 pairs) and its per-pair cost reported.

Nothing here is asserted; the figures go into docs/compare.md by hand.
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from bench.measuring import timed

import polars_ireval as ir

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "trec-covid-r1"
MEASURES = ["nDCG@10", "AP", "RBP(p=0.8)"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--peers", action="store_true", help="also time scipy loops and ranx")
    args = ap.parse_args()

    start = time.perf_counter()
    runs = ir.read_run(str(args.data / "runs"), run_id="file")
    qrels = ir.read_qrels(args.data / "qrels-rnd1.txt")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = ir.evaluate(runs, qrels, MEASURES, per_query=True, residuals=True)
    n_runs = results["run_id"].n_unique()
    pairs = n_runs * (n_runs - 1) // 2
    print(
        f"read + evaluate {n_runs} runs x {results['query_id'].n_unique()} topics x "
        f"{len(MEASURES)} measures: {time.perf_counter() - start:.2f} s"
    )
    print(f"all pairs: {pairs:,} pairs x {len(MEASURES)} measures = {pairs * len(MEASURES):,} rows")
    b = args.resamples
    cases: list[tuple[str, dict[str, Any]]] = [
        ("t-test (+ t CI, topics needed)", {"test": "t"}),
        ("t-test, Holm", {"test": "t", "correction": "holm"}),
        ("Wilcoxon (auto)", {"test": "wilcoxon"}),
        ("sign test", {"test": "sign"}),
        (f"randomization, {b:,} sign flips", {"test": "randomization", "resamples": b, "seed": 1}),
        (
            f"randomised Tukey HSD, {b:,} trials",
            {"test": "randomized_tukey_hsd", "resamples": b, "seed": 1},
        ),
        (f"bootstrap test, {b:,} resamples", {"test": "bootstrap", "resamples": b, "seed": 1}),
        ("seed 002 Table 5 (3 x Wilcoxon), RBP", {}),
    ]
    for label, kw in cases:
        if not kw:
            rbp = results.filter(pl.col("measure") == "RBP(p=0.8)")
            secs, out = timed(lambda rbp=rbp: ir.compare_bounds(rbp, missing="skip"), args.repeat)
            detail = ", ".join(
                f"{c} {f:.3f}" for c, f in zip(out["comparison"], out["fraction"], strict=True)
            )
        else:
            secs, out = timed(lambda kw=kw: ir.compare(results, pairs="all", **kw), args.repeat)
            detail = f"{out['significant'].mean():.3f} significant"
            if out["mc_error"].max() is not None:
                detail += f", max MC error {out['mc_error'].max():.4f}"
        print(f"  {label:<40} {secs:7.2f} s   ({detail})")

    base = "bm25_baseline"
    secs, _ = timed(
        lambda: ir.compare(results, baseline=base, ci="bca", resamples=b, seed=1), args.repeat
    )
    print(
        f"  {'BCa intervals vs ' + base + f' ({b:,})':<40} {secs:7.2f} s   ({n_runs - 1} pairs x 3)"
    )

    forty = results["run_id"].unique(maintain_order=True).to_list()[:40]
    sub = results.filter(pl.col("run_id").is_in(forty))
    secs, out = timed(lambda: ir.compare(sub, pairs="all", test="tukey_hsd"), 1)
    print(
        f"  {'Tukey HSD (ANOVA), 40 runs':<40} {secs:7.2f} s   "
        f"({out.height:,} rows, {1000 * secs / out.height:.1f} ms per pair)"
    )
    if args.peers:
        peers(results, args.repeat)


def peers(results: pl.DataFrame, repeat: int) -> None:
    from scipy import stats

    print("peers:")
    mats = {}
    for m in MEASURES:
        wide = results.filter(pl.col("measure") == m).pivot(
            on="query_id", index="run_id", values="value"
        )
        mats[m] = wide.drop("run_id").to_numpy()

    def scipy_loop(test: Callable[..., Any]) -> int:
        count = 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for x in mats.values():
                for i in range(len(x)):
                    for j in range(i + 1, len(x)):
                        count += test(x[i], x[j]).pvalue <= 0.05
        return count

    for name, test, fn in (("t", "t", stats.ttest_rel), ("wilcoxon", "wilcoxon", stats.wilcoxon)):
        ours, _ = timed(
            lambda test=test: ir.compare(results, pairs="all", test=test, ci=None), repeat
        )
        loop, _ = timed(lambda fn=fn: scipy_loop(fn), 1)
        ratio = loop / ours
        print(f"  {name}: scipy pair by pair {loop:.2f} s, ir.compare {ours:.2f} s ({ratio:.0f}x)")
    try:
        from ranx.statistical_tests import compute_statistical_significance
    except ImportError:
        print("  ranx not installed")
        return
    # ranx's statistics on the same per-query scores (its own evaluation left out)
    twenty = results["run_id"].unique(maintain_order=True).to_list()[:20]
    sub = results.filter(pl.col("run_id").is_in(twenty))
    scores = {r: {m: scores_of(sub, r, m) for m in MEASURES} for r in twenty}
    compute_statistical_significance(twenty[:2], scores, "fisher", 10)  # numba JIT warm-up
    for stat_test, test, extra in (
        ("student", "t", {}),
        ("fisher", "randomization", {"resamples": 1000, "seed": 1}),
    ):
        theirs, _ = timed(
            lambda st=stat_test: compute_statistical_significance(twenty, scores, st, 1000), 1
        )
        ours, _ = timed(
            lambda test=test, extra=extra: ir.compare(
                sub, pairs="all", test=test, ci=None, **extra
            ),
            repeat,
        )
        print(
            f"  ranx {stat_test} on 20 runs x {len(MEASURES)} measures (each ordered pair, "
            f"1,000 permutations): {theirs:.2f} s; ir.compare {test} {ours:.3f} s "
            f"({theirs / ours:.0f}x)"
        )


def scores_of(results: pl.DataFrame, run: str, measure: str) -> np.ndarray:
    sub = results.filter((pl.col("run_id") == run) & (pl.col("measure") == measure))
    return sub.sort("query_id")["value"].to_numpy()


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
