"""``evaluate``: score one or many runs on many measures in one lazy Polars query."""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from contextlib import AbstractContextManager, nullcontext
from typing import Any, Literal, TypeVar

import polars as pl

from polars_ireval import schema as S
from polars_ireval.errors import ParameterError
from polars_ireval.io import Scores, check_scores, float32_scores
from polars_ireval.judge import (
    RANKING,
    Missing,
    Ties,
    _check_options,
    as_inputs,
    as_qrels,
    as_run,
    check_flag,
    condense,
    coverage_of,
    group_keys,
    judge_and_rankings,
)
from polars_ireval.measures._expr import query_stats
from polars_ireval.parse import MeasureLike, parse_measures
from polars_ireval.registry import Measure

MEASURE = "measure"
VALUE = "value"
RESIDUAL = "residual"
PROJECTED = "projected"
_RESID = "\x00residual:"  # prefix of the internal per-query residual columns
FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


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
    engine: Literal["polars", "duckdb", "spark"] = "polars",
    residuals: bool = False,
    validate: bool = True,
    scores: Scores = "float64",
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
        ``"spark"``: the same SQL rendered for Apache Spark, in the active Spark session
        (see :mod:`polars_ireval.spark`, whose ``evaluate`` takes ``spark=session``;
        returns a Spark DataFrame).
    residuals
        Add the columns ``residual`` and ``projected`` (every engine). The residual is how
        much the value could still grow if every unjudged document in the evaluated ranks,
        and every rank between the end of the ranking and the measure's depth, had the
        maximum gain (Moffat and Zobel's RBP residual; cwl_eval's ``ResEU``): the true
        value lies in [value, value + residual]. ``projected`` is Moffat and Zobel's
        extrapolation value + residual * value / (1 - residual) (the unjudged weight
        relevant at the rate of the judged weight; null when residual = 1). Both are null
        for measures without a residual; those with one are RBP, P, SDCG, InvSq and the
        C/W/L measures (INST, INSQ, TBG, U, BPM), and any measure declared with a
        ``residual`` (see
        :mod:`polars_ireval.measures.usermodel`). Aggregated rows carry the mean residual
        and the projection of the aggregated value and residual.
    validate
        Check the inputs (default). DataFrames and files are checked when read, once;
        a LazyFrame is checked as part of its query when it is collected, with the same
        errors (duplicate documents, null, NaN or infinite scores, fractional grades,
        empty input...). ``False`` skips the checks of LazyFrames, for input already
        checked: bad input then gives wrong numbers, not errors.
    scores
        ``"float64"`` (default): scores as read, as trec_eval 9.0.5 and later compare
        them. ``"float32"``: each score rounded to the nearest 32-bit float before ranking,
        as trec_eval 9.0.4 and earlier (and pytrec_eval) read them: scores that differ
        only beyond the seventh significant digit then tie, and the tie is broken by the
        ``ties`` policy. Official results of many TREC tracks were computed that way; use
        it to reproduce them exactly (see ``docs/compat.md``).

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
    for name, flag in (("per_query", per_query), ("residuals", residuals), ("validate", validate)):
        check_flag(name, flag)
    _check_options(max_depth=max_depth, ties=ties, missing=missing, judged_only=judged_only)
    if engine not in ("polars", "duckdb", "spark"):
        raise ParameterError(f"engine={engine!r}: must be 'polars', 'duckdb' or 'spark'")
    check_scores(scores)
    lazy = isinstance(run, pl.LazyFrame) or isinstance(qrels, pl.LazyFrame)
    if scores == "float32":
        if type(run).__module__.startswith("pyspark"):
            raise ParameterError(
                "scores='float32' rounds scores in Python; for a Spark DataFrame, round them "
                "in Spark: run.withColumn('score', F.col('score').cast('float').cast('double'))"
            )
        run = float32_scores(as_run(run, ties=ties, validate=validate), scores)
    if engine in ("duckdb", "spark"):
        options: dict[str, Any] = dict(
            per_query=per_query, relevance_level=relevance_level, missing=missing,
            max_depth=max_depth, judged_only=judged_only, ties=ties,
        )  # fmt: skip
        if residuals:
            options["residuals"] = True
        if engine == "duckdb":
            from polars_ireval import sql

            return sql.evaluate(run, qrels, measures, **options)
        from polars_ireval import spark

        return spark.evaluate(run, qrels, measures, **options)
    parsed = parse_measures(measures)
    per_q = per_query_frame(
        run, qrels, parsed, relevance_level=relevance_level, missing=missing,
        max_depth=max_depth, judged_only=judged_only, ties=ties, residuals=residuals,
        warn=not lazy, validate=validate,
    )  # fmt: skip
    result = long_result(per_q, parsed, per_query=per_query, residuals=residuals)
    return result if lazy else result.collect()


def per_query_frame(
    run: Any,
    qrels: Any,
    measures: list[Measure],
    *,
    relevance_level: int = 1,
    missing: Missing = "skip",
    max_depth: int | None = None,
    judged_only: bool = False,
    ties: Ties = "trec_eval",
    residuals: bool = False,
    warn: bool = False,
    validate: bool = True,
) -> pl.LazyFrame:
    """The Polars engine of :func:`evaluate` up to the per-query values: a lazy frame with
    one row per evaluated ranking (``[run_id,] query_id``, in no particular order) and one
    column per measure (see :func:`per_query_columns`), from one judgment of the run.

    ``warn``: emit :class:`CoverageWarning` as :func:`evaluate` does (eager inputs only).
    """
    # Most measures need only the judged documents and their ranks: a much smaller table.
    # Those that also need the unjudged ones (all of them with residuals) get the full table.
    # Of the others, those that read the unretrieved judged documents only through query
    # statistics (R, the ideal DCG) get the retrieved judged documents, the statistics
    # computed once per query.
    table_of = [
        "full" if residuals or m.needs_unjudged else "stats" if m.by_qrels_stats else "judged"
        for m in measures
    ]
    run, qrels = as_inputs(run, qrels, ties=ties, validate=validate)
    table, present, numbering, judged, retrieved = judge_and_rankings(
        run,
        qrels,
        max_depth=max_depth,
        judged_only=judged_only,
        ties=ties,
        missing=missing,
        unjudged="full" in table_of,
        collect=False,  # one query from the inputs to the result
        numbered=True,
    )
    if retrieved is None:  # no statistics row without numbered rankings
        table_of = ["judged" if t == "stats" else t for t in table_of]
    sources = {"full": table, "judged": table if judged is None else judged, "stats": retrieved}
    parts: list[pl.LazyFrame] = []
    for kind, source in sources.items():
        chosen = [m for m, t in zip(measures, table_of, strict=True) if t == kind]
        if not chosen:
            continue
        parts.append(
            per_query_columns(
                source.lazy(),
                chosen,
                relevance_level=relevance_level,
                residuals=residuals,
                ranked=present if missing == "zero" else None,
                numbering=numbering,
                qrels=as_qrels(qrels).lazy() if kind == "stats" else None,
            )
        )
    if warn:
        _warn_coverage(coverage_of(present, as_qrels(qrels).lazy()).collect(), missing)
    per_q = parts[0]
    for part in parts[1:]:
        per_q = per_q.join(part, on=group_keys(per_q), how="full", coalesce=True)
    return per_q


def evaluate_table(
    table: pl.LazyFrame,
    measures: list[Measure],
    *,
    per_query: bool = False,
    relevance_level: int = 1,
    residuals: bool = False,
    ranked: pl.LazyFrame | None = None,
    numbering: pl.LazyFrame | None = None,
) -> pl.LazyFrame:
    """Compute ``measures`` on an evaluation table (from :func:`judge`) as a lazy query.

    With ``residuals``, add the columns ``residual`` and ``projected`` (see :func:`evaluate`).
    ``ranked``: the rankings (``[run_id,] query_id``) the run holds, when the table also
    scores judged queries the run lacks (``missing="zero"``): those take the value the
    measure declares for them (``absent``; trec_eval's ``-c`` adds 0 for ``utility``).
    ``numbering``: for a table whose rankings are numbered, the frame that names them (see
    :class:`polars_ireval.judge.Judgment`).
    """
    per_q = per_query_columns(
        table,
        measures,
        relevance_level=relevance_level,
        residuals=residuals,
        ranked=ranked,
        numbering=numbering,
    )
    return long_result(per_q, measures, per_query=per_query, residuals=residuals)


def long_result(
    per_q: pl.LazyFrame, measures: list[Measure], *, per_query: bool, residuals: bool = False
) -> pl.LazyFrame:
    """The long result of :func:`evaluate_table` from :func:`per_query_columns`' frame."""
    labels = [m.label for m in measures]
    resid = [_RESID + m.label for m in measures]
    keys = group_keys(per_q)
    if per_query:
        wide = per_q.sort(keys)
        index = keys
    else:
        aggs = [m.aggregate(pl.col(m.label)).alias(m.label) for m in measures]
        if residuals:
            aggs += [pl.col(r).mean().alias(r) for r in resid]
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


def per_query_columns(
    table: FrameT,
    measures: list[Measure],
    *,
    relevance_level: int = 1,
    residuals: bool = False,
    ranked: pl.LazyFrame | None = None,
    numbering: pl.LazyFrame | None = None,
    qrels: pl.LazyFrame | None = None,
) -> FrameT:
    """One row per ranking (``[run_id,] query_id``, in no particular order) and one column
    per measure, named by its label: the measures aggregated over the evaluation table,
    those with ``judged_only=True`` over its condensed rankings (:func:`condense`). With
    ``residuals``, also each measure's residual, in a column named by an internal prefix.
    With ``ranked`` (see :func:`evaluate_table`), the rankings absent from it take the
    value their measures declare for a query the run lacks. With ``numbering``, the table's
    rankings are numbered (see :class:`polars_ireval.judge.Judgment`): the group-by is on
    the number, and ``numbering`` names each ranking after it.

    With ``qrels`` (and ``numbering``), ``table`` holds only the judged documents the run
    retrieved, sorted by ranking number (:attr:`polars_ireval.judge.Judgment.retrieved`),
    for measures declared
    ``qrels_stats=True``: their query statistics (:func:`polars_ireval.measures.query_stat`)
    are computed once per query of ``qrels`` and added as one row per ranking.
    """
    keys = group_keys(table)
    parts: list[tuple[bool, list[pl.Expr]]] = []
    collecting: AbstractContextManager[dict[str, pl.Expr]] = (
        query_stats() if qrels is not None else nullcontext({})
    )
    with collecting as stats:
        for condensed in (False, True):
            chosen = [m for m in measures if m.judged_only == condensed]
            if not chosen:
                continue
            exprs = [m.expr(relevance_level) for m in chosen]
            if residuals:
                exprs += [m.residual_expr(relevance_level).alias(_RESID + m.label) for m in chosen]
            parts.append((condensed, exprs))
    if qrels is not None:  # a row for every ranking, even one that retrieved no judged document
        assert numbering is not None, "statistics rows need numbered rankings"
        table = _with_statistics(table, numbering, qrels, stats)
    out: FrameT | None = None
    for condensed, exprs in parts:
        source = condense(table) if condensed else table
        part = source.group_by(keys).agg(exprs)
        out = part if out is None else out.join(part, on=keys, how="full", coalesce=True)
    assert out is not None, "no measure given"
    if numbering is not None:
        names: Any = numbering.collect() if isinstance(out, pl.DataFrame) else numbering
        out = out.join(names, on=RANKING).drop(RANKING)
        keys = group_keys(out)
    fixed = [m for m in measures if m.defn.absent is not None]
    if ranked is not None and fixed:
        flag = "\x00in_run"
        present: Any = ranked.select(keys).with_columns(pl.lit(True).alias(flag))
        if isinstance(out, pl.DataFrame):
            present = present.collect()
        out = out.join(present, on=keys, how="left").with_columns(
            pl.when(pl.col(flag)).then(pl.col(m.label)).otherwise(m.defn.absent).alias(m.label)
            for m in fixed
        )
        out = out.drop(flag)
    return out


def _with_statistics(
    table: FrameT, numbering: pl.LazyFrame, qrels: pl.LazyFrame, stats: dict[str, pl.Expr]
) -> FrameT:
    """``table`` (sorted by ranking number) and one row per ranking of ``numbering`` with
    the query statistics ``stats`` (columns computed once per query of ``qrels``), merged
    in ranking order: the rows of each ranking stay together, for a group-by on sorted keys.
    """
    per_query = qrels.group_by(S.QUERY_ID).agg(list(stats.values()))
    rows = numbering.join(per_query, on=S.QUERY_ID).select(RANKING, *stats).sort(RANKING)
    have: pl.Schema = table.lazy().collect_schema()
    added: pl.Schema = rows.collect_schema()
    left = table.lazy().with_columns(pl.lit(None, added[c]).alias(c) for c in stats)
    right = rows.with_columns(
        pl.lit(None, have[c]).alias(c) for c in have.names() if c != RANKING
    ).select(*have.names(), *stats)
    merged = left.merge_sorted(right, key=RANKING).with_columns(pl.col(RANKING).set_sorted())
    out: Any = merged.collect() if isinstance(table, pl.DataFrame) else merged
    return out


def projected(base: pl.Expr, residual: pl.Expr) -> pl.Expr:
    """Moffat and Zobel's projected score, base + residual * base / (1 - residual).

    The unjudged weight (the residual) is assumed relevant at the rate of the judged
    weight; null when the residual is 1 (nothing judged) or null.
    """
    return pl.when(residual < 1.0).then(base + residual * base / (1.0 - residual))


def _warn_coverage(cov: pl.DataFrame, missing: str) -> None:
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
            "; ".join(parts) + ". See polars_ireval.coverage().", CoverageWarning, stacklevel=4
        )
