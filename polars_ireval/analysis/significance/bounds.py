"""Seed 002's Table 5: :func:`compare_bounds`, how many pairs of runs stay significantly
different once the residuals are taken into account."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_ireval._base.options import Missing, check_missing, renamed
from polars_ireval.analysis.significance.comparison import TooFewRuns, compare
from polars_ireval.analysis.significance.inputs import choice
from polars_ireval.analysis.significance.tests import TEST_ALIASES, TESTS
from polars_ireval.errors import EmptyInputError, ParameterError

#: Seed 002's Table 5: the column run_b is read from, per comparison.
BOUNDS: dict[str, str] = {
    "base_vs_base": "value",
    "base_vs_top": "upper",
    "base_vs_projected": "projected",
}


@renamed(per_query="results", runs="run_ids")
def compare_bounds(
    results: pl.DataFrame | pl.LazyFrame,
    *,
    measures: str | Sequence[str] | None = None,
    run_ids: str | Sequence[str] | None = None,
    test: str = "wilcoxon",
    alpha: float = 0.05,
    missing: Missing = "error",
    **options: Any,
) -> pl.DataFrame:
    """Moffat, Webber and Zobel's Table 5: how many pairs of runs stay significantly
    different once the residuals are taken into account.

    For every pair of runs (``pairs="all"``: ``run_a`` is the run with the higher mean
    base score), a one-tailed paired test (``alternative="greater"``; the paper's
    Wilcoxon by default) of run_a's base scores (``value``) against run_b's

    * base scores (``base_vs_base``),
    * tops of the residual ranges, value + residual (``base_vs_top``: run_a is better even
      if every unjudged document of run_b were relevant),
    * projected scores (``base_vs_projected``),

    counted at level ``alpha`` without correction, as the paper counts them.

    Parameters
    ----------
    results
        Per-query scores with residuals: ``evaluate(..., per_query=True, residuals=True)``
        on measures that have a residual (RBP, P, SDCG, the C/W/L measures).
    measures, run_ids, test, alpha, missing
        As for :func:`compare` (``missing`` applies to each comparison separately: a
        query whose projection is undefined, residual 1, is missing there). ``test`` is a
        paired one-sided test: not the (two-sided, family-wise) Tukey tests.
    **options
        Passed to :func:`compare` (``continuity``, ``method``, ``seed``...).

    Returns
    -------
    polars.DataFrame
        ``measure, comparison, column_b, pairs, n, significant, fraction``: per measure
        and comparison, the number of pairs, of topics, of significant pairs and their
        fraction.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> results = pl.DataFrame({
    ...     "run_id": ["a"] * 5 + ["b"] * 5,
    ...     "query_id": ["1", "2", "3", "4", "5"] * 2,
    ...     "measure": "RBP(p=0.8)",
    ...     "value": [0.6, 0.7, 0.5, 0.8, 0.9, 0.2, 0.3, 0.1, 0.3, 0.4],
    ...     "residual": [0.1, 0.0, 0.1, 0.1, 0.0, 0.5, 0.4, 0.6, 0.4, 0.5],
    ...     "projected": [0.67, 0.7, 0.56, 0.9, 0.9, 0.4, 0.5, 0.25, 0.9, 0.8]})
    >>> ir.compare_bounds(results).select("comparison", "pairs", "significant", "fraction")
    shape: (3, 4)
    ┌───────────────────┬───────┬─────────────┬──────────┐
    │ comparison        ┆ pairs ┆ significant ┆ fraction │
    │ ---               ┆ ---   ┆ ---         ┆ ---      │
    │ str               ┆ i64   ┆ i64         ┆ f64      │
    ╞═══════════════════╪═══════╪═════════════╪══════════╡
    │ base_vs_base      ┆ 1     ┆ 1           ┆ 1.0      │
    │ base_vs_top       ┆ 1     ┆ 0           ┆ 0.0      │
    │ base_vs_projected ┆ 1     ┆ 0           ┆ 0.0      │
    └───────────────────┴───────┴─────────────┴──────────┘
    """
    for key in ("pairs", "baseline", "a", "b", "alternative", "correction"):
        if key in options:
            raise ParameterError(f"compare_bounds sets {key}= itself (Table 5's design)")
    if TESTS[choice(test, list(TESTS), "test", TEST_ALIASES)].family_wise:
        raise ParameterError(
            f"test={test!r} is two-sided and family-wise, and compare_bounds runs one-sided "
            "paired tests (alternative='greater', Table 5's design); use test='wilcoxon' (the "
            "paper's), 't', 'sign', 'randomization' or 'bootstrap'"
        )
    missing = check_missing(missing)  # once for the three comparisons
    frames = []
    for name, column in BOUNDS.items():
        try:
            cmp = compare(
                results,
                pairs="all",
                test=test,
                alternative="greater",
                alpha=alpha,
                a="value",
                b=column,
                measures=measures,
                run_ids=run_ids,
                missing=missing,
                **{"ci": None, **options},
            )
        except TooFewRuns as exc:
            raise EmptyInputError(
                f"compare_bounds compares pairs of runs and needs at least two; {exc.held}"
            ) from None
        frames.append(
            cmp.group_by("measure", maintain_order=True).agg(
                pl.lit(name).alias("comparison"),
                pl.lit(column).alias("column_b"),
                pl.len().cast(pl.Int64).alias("pairs"),
                pl.col("n").first().alias("n"),
                pl.col("significant").sum().cast(pl.Int64).alias("significant"),
                pl.col("significant").mean().alias("fraction"),
            )
        )
    out = pl.concat(frames, how="vertical")
    order = {m: i for i, m in enumerate(out["measure"].unique(maintain_order=True).to_list())}
    return out.sort(pl.col("measure").replace_strict(order), maintain_order=True)
