"""``evaluate``: score one or many runs on many measures in one lazy Polars query."""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import Any, Literal

import polars as pl

from polars_ireval import schema as S
from polars_ireval.errors import ParameterError
from polars_ireval.judge import Missing, Ties, coverage, group_keys, judge
from polars_ireval.parse import MeasureLike, parse_measures
from polars_ireval.registry import Measure

MEASURE = "measure"
VALUE = "value"


class CoverageWarning(UserWarning):
    """Queries left out of an evaluation: ranked but never judged, or judged but not ranked."""


def evaluate(
    run: Any,
    qrels: Any,
    measures: MeasureLike | Iterable[MeasureLike],
    *,
    per_query: bool = False,
    relevance_level: int = 1,
    missing: Missing = "skip",
    max_depth: int | None = None,
    judged_only: bool = False,
    ties: Ties = "trec_eval",
    engine: Literal["polars", "duckdb"] = "polars",
) -> Any:
    """Evaluate runs against qrels on the given measures.

    Parameters
    ----------
    run
        One run or many (a ``run_id`` column): a frame, a path, a glob, a list of paths.
        A LazyFrame gives a LazyFrame: the whole evaluation is one lazy query.
    qrels
        Relevance judgments: a frame or a path.
    measures
        Measure strings in ir_measures' grammar (``"nDCG@10"``, ``"P(rel=2)@5"``) or
        trec_eval's (``"ndcg_cut.10"``, ``"P_5"``, ``"map"``), as a list or one
        whitespace-separated string.
    per_query
        Return one row per query (with ``query_id``) instead of the aggregate per run.
    relevance_level
        Minimum grade counted as relevant by measures whose ``rel`` is not given
        (trec_eval ``-l``).
    missing
        Queries judged but not ranked by a run: ``"skip"`` (default, trec_eval),
        ``"zero"`` (trec_eval ``-c``) or ``"error"``. See :func:`judge`.
    max_depth
        Evaluate only the top ``max_depth`` documents of each ranking (trec_eval ``-M``).
    judged_only
        Remove unjudged documents before ranking (condensed lists; trec_eval ``-J``).
    ties
        Order of documents with equal scores; see :func:`judge`.
    engine
        ``"polars"`` (default): one lazy Polars query. ``"duckdb"``: the SQL macros of
        ``sql/`` in DuckDB (see :mod:`polars_ireval.sql`; returns an eager frame).

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        Columns ``[run_id,] [query_id,] measure, value``; ``measure`` holds the string asked
        for (a trec_eval family such as ``"P"`` expands to ``P_5``, ``P_10``, ...). The
        aggregate is the mean over evaluated queries, the sum for counts (``num_ret``...)
        and the geometric mean for ``gm_*``.

    Warns
    -----
    CoverageWarning
        For eager inputs, when queries of the run are absent from the qrels (never
        evaluated) or judged queries are absent from the run (with ``missing="skip"``).

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"],
    ...                     "score": [2.0, 1.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["1", "2"], "doc_id": ["b", "c"], "relevance": [1, 2]})
    >>> ir.evaluate(run, qrels, ["P@1", "RR", "ndcg"])
    shape: (3, 2)
    ┌─────────┬──────────┐
    │ measure ┆ value    │
    │ ---     ┆ ---      │
    │ str     ┆ f64      │
    ╞═════════╪══════════╡
    │ P@1     ┆ 0.5      │
    │ RR      ┆ 0.75     │
    │ ndcg    ┆ 0.815465 │
    └─────────┴──────────┘
    """
    if not isinstance(relevance_level, int) or isinstance(relevance_level, bool):
        raise ParameterError(f"relevance_level={relevance_level!r}: must be an integer grade")
    if engine == "duckdb":
        from polars_ireval import sql

        return sql.evaluate(
            run, qrels, measures, per_query=per_query, relevance_level=relevance_level,
            missing=missing, max_depth=max_depth, judged_only=judged_only, ties=ties,
        )  # fmt: skip
    if engine != "polars":
        raise ParameterError(f"engine={engine!r}: must be 'polars' or 'duckdb'")
    parsed = parse_measures(measures)
    table = judge(
        run, qrels, max_depth=max_depth, judged_only=judged_only, ties=ties, missing=missing
    )
    lazy = isinstance(table, pl.LazyFrame)
    if not lazy:
        _warn_coverage(run, qrels, missing)
    result = evaluate_table(
        table.lazy(), parsed, per_query=per_query, relevance_level=relevance_level
    )
    return result if lazy else result.collect()


def evaluate_table(
    table: pl.LazyFrame,
    measures: list[Measure],
    *,
    per_query: bool = False,
    relevance_level: int = 1,
) -> pl.LazyFrame:
    """Compute ``measures`` on an evaluation table (from :func:`judge`) as a lazy query."""
    keys = group_keys(table)
    per_q = table.group_by(keys).agg(m.expr(relevance_level) for m in measures)
    labels = [m.label for m in measures]
    if per_query:
        wide = per_q.sort(keys)
        index = keys
    else:
        run_keys = [k for k in keys if k == S.RUN_ID]
        aggs = [m.aggregate(pl.col(m.label)).alias(m.label) for m in measures]
        wide = per_q.group_by(run_keys).agg(aggs).sort(run_keys) if run_keys else per_q.select(aggs)
        index = run_keys
    long = wide.select(*index, *[pl.col(c).cast(pl.Float64) for c in labels]).unpivot(
        index=index, on=labels, variable_name=MEASURE, value_name=VALUE
    )
    # unpivot lists measure by measure; a stable sort regroups them per run and query
    return long.sort(index, maintain_order=True) if index else long


def _warn_coverage(run: Any, qrels: Any, missing: str) -> None:
    cov = coverage(run, qrels)
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
            "; ".join(parts) + ". See polars_ireval.coverage().", CoverageWarning, stacklevel=3
        )
