"""The shape of an evaluation's result, one definition for every engine.

An engine computes one row per ranking (``[run_id,] query_id``) and one column per measure,
named by its label (and, with residuals, one column per measure named
:data:`RESIDUAL_PREFIX` + label). :func:`long_result` turns that into what
:func:`polars_ireval.evaluate` returns: ``[run_id,] [query_id,] measure, value`` (and
``residual, projected``), aggregated over queries as trec_eval does unless per query.
The Spark engine, whose result stays in Spark, aggregates with
:func:`polars_ireval.sql.compile.aggregate_sql`, the SQL of the same aggregation.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import TypeVar

import polars as pl

from polars_ireval import schema as S
from polars_ireval.judge import group_keys
from polars_ireval.registry import Aggregate, Measure, aggregate

MEASURE = "measure"
VALUE = "value"
RESIDUAL = "residual"
PROJECTED = "projected"
#: Prefix of the per-query residual columns of the wide frame (internal).
RESIDUAL_PREFIX = "\x00residual:"
FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


class CoverageWarning(UserWarning):
    """Queries left out of an evaluation: ranked but never judged, or judged but not ranked."""


def long_result(
    per_q: pl.LazyFrame, measures: list[Measure], *, per_query: bool, residuals: bool = False
) -> pl.LazyFrame:
    """The result of an evaluation from its wide per-query frame ``per_q`` (one column per
    measure label; with ``residuals``, one per :data:`RESIDUAL_PREFIX` + label too)."""
    how = {m.label: m.defn.aggregate for m in measures}
    return long_frame(per_q, how, per_query=per_query, residuals=residuals)


def long_frame(
    per_q: pl.LazyFrame,
    how: Mapping[str, Aggregate],
    *,
    per_query: bool,
    residuals: bool = False,
) -> pl.LazyFrame:
    """:func:`long_result` for the columns ``how`` names, each aggregated its way
    (:func:`polars_ireval.registry.aggregate`): the shape of every evaluation's result,
    also of measures outside the registry (preferences, judgment groups)."""
    labels = list(how)
    resid = [RESIDUAL_PREFIX + label for label in labels]
    keys = group_keys(per_q)
    if per_query:
        wide = per_q.sort(keys)
        index = keys
    else:
        aggs = [aggregate(pl.col(c), h).alias(c) for c, h in how.items()]
        if residuals:
            aggs += [aggregate(pl.col(r), "mean").alias(r) for r in resid]
        wide = over_queries(per_q, aggs)
        index = [k for k in keys if k == S.RUN_ID]
    long = wide.select(*index, *[pl.col(c).cast(pl.Float64) for c in labels]).unpivot(
        index=index, on=labels, variable_name=MEASURE, value_name=VALUE
    )
    if residuals:
        # the same unpivot order (measure by measure, rows in order) lines the columns up
        extra = wide.select(pl.col(resid).cast(pl.Float64)).unpivot(on=resid, value_name=RESIDUAL)
        long = pl.concat([long, extra.select(RESIDUAL)], how="horizontal").with_columns(
            projected(pl.col(VALUE), pl.col(RESIDUAL)).alias(PROJECTED)
        )
    # unpivot lists measure by measure; a stable sort regroups them per run and query
    return long.sort(index, maintain_order=True) if index else long


def over_queries(per_query: FrameT, aggs: list[pl.Expr]) -> FrameT:
    """``aggs`` over the queries of each run (one row per run, sorted by ``run_id``, or
    one row), each run's queries in id order: the order in which trec_eval adds them
    (:meth:`polars_ireval.registry.Measure.aggregate` sums in row order)."""
    ordered = per_query.sort(group_keys(per_query))
    if S.RUN_ID not in ordered.collect_schema():
        return ordered.select(aggs)
    return ordered.group_by(S.RUN_ID, maintain_order=True).agg(aggs).sort(S.RUN_ID)


def projected(base: pl.Expr, residual: pl.Expr) -> pl.Expr:
    """Moffat and Zobel's projected score, base + residual * base / (1 - residual).

    The unjudged weight (the residual) is assumed relevant at the rate of the judged
    weight; null when the residual is 1 (nothing judged) or null.
    """
    return pl.when(residual < 1.0).then(base + residual * base / (1.0 - residual))


def warn_coverage(cov: pl.DataFrame, missing: str, *, stacklevel: int = 4) -> None:
    """Emit :class:`CoverageWarning` for the rankings of ``cov`` (:func:`polars_ireval.coverage`)
    left out: ranked but never judged, and judged but not ranked under ``missing="skip"``."""
    unjudged = cov.filter(~pl.col("in_qrels"))
    unranked = cov.filter(~pl.col("in_run")) if missing == "skip" else cov.clear()
    parts = []
    if unjudged.height:
        sample = ", ".join(unjudged[S.QUERY_ID].unique(maintain_order=True).head(5))
        parts.append(
            f"{unjudged.height} ranked (run, query) pair(s) have no judgment and are not "
            f"evaluated (e.g. queries {sample})"
        )
    if unranked.height:
        sample = ", ".join(unranked[S.QUERY_ID].unique(maintain_order=True).head(5))
        parts.append(
            f"{unranked.height} judged (run, query) pair(s) have no ranking and are skipped "
            f"(e.g. queries {sample}); pass missing='zero' to score them 0"
        )
    if parts:
        warnings.warn(
            "; ".join(parts) + ". See polars_ireval.coverage().",
            CoverageWarning,
            stacklevel=stacklevel,
        )
