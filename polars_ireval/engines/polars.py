"""The Polars engine: the whole evaluation as one lazy Polars query.

The run is judged once (:func:`polars_ireval.judge`), each measure is its declared Polars
expression aggregated per ranking (:func:`per_query_columns`), and the result is shaped by
:func:`polars_ireval.results.long_result`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any, TypeVar, cast

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval._base.collect import collect, small_inputs
from polars_ireval.engines.average import averaged, read_depth
from polars_ireval.engines.base import (
    USER_FRAME,
    Request,
    check_coverage,
    check_missing,
    check_positions,
    refuse_average_residuals,
)
from polars_ireval.errors import ParameterError
from polars_ireval.io.intake import Inputs
from polars_ireval.judge import (
    AVERAGE,
    RANKING,
    EvalTies,
    Missing,
    Ties,
    condense,
    group_keys,
    judge_and_rankings,
)
from polars_ireval.measures._expr import collected_stats, query_stats, tie_spans
from polars_ireval.registry import Measure, MeasureDef
from polars_ireval.results import (
    RESIDUAL_PREFIX,
    NoRelevant,
    long_result,
    wide_names,
    with_no_relevant,
)

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


def evaluate(request: Request) -> pl.LazyFrame | pl.DataFrame:
    """Evaluate ``request``: a LazyFrame when an input is lazy, else a DataFrame."""
    r = request
    # the queries on the inputs before the evaluation's own (their validation, coverage,
    # rankings) in memory when both are small (see polars_ireval._base.collect)
    with small_inputs(r.run, r.qrels):
        per_q, names = named_per_query_frame(
            r.checked, r.parsed, relevance_level=r.relevance_level, missing=r.missing,
            max_depth=r.max_depth, judged_only=r.judged_only, ties=r.ties,
            residuals=r.residuals, warn=r.warn, no_relevant=r.no_relevant,
        )  # fmt: skip
    result = long_result(per_q, r.parsed, per_query=r.per_query, residuals=r.residuals, names=names)
    if r.lazy:
        return result
    return collect(result, r.run)  # in memory for a small run, whatever the qrels


def per_query_frame(inputs: Inputs, measures: list[Measure], **options: Any) -> pl.LazyFrame:
    """The Polars engine of :func:`evaluate` up to the per-query values: the frame of
    :func:`named_per_query_frame` (same arguments), without its column names."""
    return named_per_query_frame(inputs, measures, **options)[0]


def named_per_query_frame(
    inputs: Inputs,
    measures: list[Measure],
    *,
    relevance_level: int = 1,
    missing: Missing = "skip",
    max_depth: int | None = None,
    judged_only: bool = False,
    ties: EvalTies = "trec_eval",
    residuals: bool = False,
    warn: bool = False,
    no_relevant: NoRelevant = "zero",
) -> tuple[pl.LazyFrame, list[str] | None]:
    """The Polars engine of :func:`evaluate` up to the per-query values: a lazy frame with
    one row per evaluated ranking (``[run_id,] query_id``, in no particular order) and one
    column per measure (see :func:`per_query_columns`), from one judgment of the run; and
    the frame's column names (:func:`polars_ireval.results.wide_names`), known without
    resolving its schema (a long query's schema is costly: 8 ms of an 80 ms evaluation of
    73 trec_eval measures on a small run), or None for the measures averaged by
    enumeration under ``ties="average"``.

    ``warn``: emit :class:`polars_ireval.CoverageWarning` as :func:`polars_ireval.evaluate`
    does (eager inputs only). ``no_relevant``: the policy for queries without relevant
    documents (see :func:`polars_ireval.results.with_no_relevant`); ``"error"`` is checked
    here, before the evaluation, for eager inputs.

    ``ties="average"``: each measure's expected value over every order of the tied
    documents. Measures with a closed form (:attr:`polars_ireval.registry.MeasureDef.average`)
    compute it from the full evaluation table in any order consistent with the scores,
    uncut: ``max_depth`` is applied by the measures, since a tie it cuts keeps a random
    part of its documents. The others (and those with ``judged_only`` under
    ``max_depth``) are averaged over every distinct arrangement of the tied documents
    (:func:`polars_ireval.engines.average.averaged`).
    """
    average = ties == AVERAGE
    if average:
        closed, enumerated = split_average(measures, residuals, max_depth, judged_only)
        if enumerated:
            frame = _per_query_enumerated(
                inputs, closed, enumerated, relevance_level=relevance_level,
                missing=missing, max_depth=max_depth, judged_only=judged_only, warn=warn,
                no_relevant=no_relevant,
            )  # fmt: skip
            return frame, None
    # Most measures need only the judged documents and their ranks: a much smaller table.
    # Those that also need the unjudged ones (all of them with residuals) get the full table.
    # Of the others, those that read the unretrieved judged documents only through query
    # statistics (R, the ideal DCG) get the retrieved judged documents, the statistics
    # computed once per query.
    table_of = [
        "full" if residuals or m.needs_unjudged or average
        else "stats" if m.by_qrels_stats else "judged"
        for m in measures
    ]  # fmt: skip
    # any order of the ties, then averaged
    ranked_by = cast(Ties, "trec_eval" if average else ties)
    check_positions(
        measures, inputs.run, inputs.qrels, engine="polars", missing=missing, residuals=residuals
    )  # the C/W/L measures' vectors, before they are built
    table, present, numbering, judged, retrieved = judge_and_rankings(
        inputs,
        max_depth=None if average else max_depth,
        judged_only=judged_only,
        ties=ranked_by,
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
                qrels=inputs.qrels.lazy() if kind == "stats" else None,
                average=average,
                depth=max_depth,
            )
        )
    qrels_lf = inputs.qrels.lazy()
    if warn or no_relevant == "error":
        check_coverage(
            present, qrels_lf, measures, relevance_level=relevance_level, missing=missing,
            warn=warn, no_relevant=no_relevant, stacklevel=USER_FRAME + 2,
        )  # fmt: skip
    per_q = parts[0]
    keys = group_keys(present)
    for part in parts[1:]:
        per_q = per_q.join(part, on=keys, how="full", coalesce=True)
    per_q = with_no_relevant(
        per_q, qrels_lf, measures, relevance_level=relevance_level, policy=no_relevant
    )
    return per_q, wide_names(keys, measures, residuals=residuals, no_relevant=no_relevant)


def per_query_columns(
    table: FrameT,
    measures: list[Measure],
    *,
    relevance_level: int = 1,
    residuals: bool = False,
    ranked: pl.LazyFrame | None = None,
    numbering: pl.LazyFrame | None = None,
    qrels: pl.LazyFrame | None = None,
    average: bool = False,
    depth: int | None = None,
) -> FrameT:
    """One row per ranking (``[run_id,] query_id``, in no particular order) and one column
    per measure, named by its label: the measures aggregated over the evaluation table,
    those with ``judged_only=True`` over its condensed rankings (:func:`condense`). With
    ``residuals``, also each measure's residual, in a column named by an internal prefix.
    With ``ranked`` (see :func:`polars_ireval.evaluate_table`), the rankings absent from it take the
    value their measures declare for a query the run lacks. With ``numbering``, the table's
    rankings are numbered (see :class:`polars_ireval.judge.Judgment`): the group-by is on
    the number, and ``numbering`` names each ranking after it.

    With ``qrels`` (and ``numbering``), ``table`` holds only the judged documents the run
    retrieved, sorted by ranking number (:attr:`polars_ireval.judge.Judgment.retrieved`),
    for measures declared
    ``qrels_stats=True``: their query statistics (:func:`polars_ireval.measures.query_stat`)
    are computed once per query of ``qrels`` and added as one row per ranking.

    With ``average``, each measure's expected value over the orders of the tied documents
    (:meth:`polars_ireval.registry.Measure.average_expr`, ``depth`` its ``max_depth``),
    from the tie spans of the (condensed) table.
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
            if average:
                exprs = [m.average_expr(relevance_level, depth) for m in chosen]
            else:
                exprs = [built(m, "value", relevance_level, m.expr) for m in chosen]
            if residuals:
                exprs += [
                    built(m, "residual", relevance_level, m.residual_expr).alias(
                        RESIDUAL_PREFIX + m.label
                    )
                    for m in chosen
                ]
            parts.append((condensed, exprs))
    if qrels is not None:  # a row for every ranking, even one that retrieved no judged document
        assert numbering is not None, "statistics rows need numbered rankings"
        table = _with_statistics(table, numbering, qrels, stats)
    out: FrameT | None = None
    for condensed, exprs in parts:
        source = condense(table) if condensed else table
        if average:
            source = tie_spans(source, keys)
        part = source.group_by(keys).agg(exprs)
        out = part if out is None else out.join(part, on=keys, how="full", coalesce=True)
    assert out is not None, "no measure given"
    if numbering is not None:
        names: Any = numbering.collect() if isinstance(out, pl.DataFrame) else numbering
        out = out.join(names, on=RANKING).drop(RANKING)
        keys = [c for c in numbering.collect_schema().names() if c != RANKING]
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


#: Expressions of the package's measures already built, by declaration, kind, label,
#: parameters, relevance level and whether query statistics were collected (see
#: :func:`built`); the least recently used are dropped beyond :data:`BUILT_LIMIT`.
_BUILT: OrderedDict[tuple[Any, ...], tuple[MeasureDef, pl.Expr, dict[str, pl.Expr]]] = OrderedDict()
BUILT_LIMIT = 4096


def _own(m: Measure) -> bool:
    """Whether ``m`` and every measure it nests are declared by this package (whose
    builders are pure functions of their parameters, which a user's need not be)."""
    mine = m.defn.build.__module__.startswith("polars_ireval.measures.") and (
        m.defn.residual is None or m.defn.residual.__module__.startswith("polars_ireval.")
    )
    return mine and all(_own(v) for _, v in m.values if isinstance(v, Measure))


def built(m: Measure, kind: str, relevance_level: int, build: Callable[[int], pl.Expr]) -> pl.Expr:
    """``build(relevance_level)``, the expression of ``m`` (its value or its residual,
    ``kind``), built once per process for the package's own measures: building is pure, but
    costs about 0.2 ms a measure, a sixth of a small evaluation of many measures. The query
    statistics a build records (:func:`~polars_ireval.measures._expr.query_stat`) are kept
    with the expression and recorded again each time it is reused."""
    if not _own(m):
        return build(relevance_level)
    collected = collected_stats()
    key = (id(m.defn), kind, m.label, m.canonical, relevance_level, collected is not None)
    hit = _BUILT.get(key)
    if hit is None or hit[0] is not m.defn:  # an id reused by another declaration: rebuild
        if collected is None:
            hit = (m.defn, build(relevance_level), {})
        else:
            with query_stats() as stats:
                expr = build(relevance_level)
            hit = (m.defn, expr, dict(stats))
        _BUILT[key] = hit
        if len(_BUILT) > BUILT_LIMIT:
            _BUILT.popitem(last=False)
    else:
        _BUILT.move_to_end(key)
    if collected is not None:
        collected.update(hit[2])
    return hit[1]


def split_average(
    measures: list[Measure], residuals: bool, max_depth: int | None, judged_only: bool
) -> tuple[list[Measure], list[Measure]]:
    """The measures of a ``ties="average"`` evaluation computed by their closed form
    (:meth:`Measure.average_expr`), and those averaged over the arrangements of the tied
    documents: the measures without a closed form for their parameters, and, with
    ``max_depth``, those scoring the condensed ranking (its ties cut by ``max_depth``
    depend on which unjudged documents the cut keeps, which no closed form follows).
    :class:`ParameterError` with ``residuals``."""
    refuse_average_residuals(residuals)
    closed, enumerated = [], []
    for m in measures:
        if max_depth is not None and (judged_only or m.judged_only):
            enumerated.append(m)
            continue
        try:
            m.average_expr(1, max_depth)
        except ParameterError:
            enumerated.append(m)
        else:
            closed.append(m)
    return closed, enumerated


def _per_query_enumerated(
    inputs: Inputs,
    closed: list[Measure],
    enumerated: list[Measure],
    *,
    relevance_level: int,
    missing: Missing,
    max_depth: int | None,
    judged_only: bool,
    warn: bool,
    no_relevant: NoRelevant,
) -> pl.LazyFrame:
    """:func:`per_query_frame` under ``ties="average"`` for the measures ``closed`` (their
    closed forms) and ``enumerated`` (averaged over the arrangements of the tied
    documents), the checks and warnings made once for both."""
    run, qrels = inputs.run, inputs.qrels
    qrels_lf = qrels.lazy()
    if warn or no_relevant == "error":
        check_coverage(
            run.lazy().select(group_keys(run)).unique(), qrels_lf, [*closed, *enumerated],
            relevance_level=relevance_level, missing=missing, warn=warn,
            no_relevant=no_relevant, stacklevel=USER_FRAME + 3,
        )  # fmt: skip
    if missing == "error" and isinstance(run, pl.DataFrame) and isinstance(qrels, pl.DataFrame):
        check_missing(run, qrels)
    checked: NoRelevant = "zero" if no_relevant == "error" else no_relevant
    options: dict[str, Any] = {
        "relevance_level": relevance_level, "max_depth": max_depth,
        "judged_only": judged_only,
    }  # fmt: skip

    def by_rank(frame: Any, miss: Missing, policy: NoRelevant) -> pl.LazyFrame:
        # an arrangement of the checked run: checked
        return per_query_frame(
            Inputs(frame, qrels),
            enumerated,
            ties="rank",
            missing=miss,
            no_relevant=policy,
            **options,
        )

    labels = [m.label for m in enumerated]
    per_q = averaged(
        run, qrels, labels, by_rank, missing="skip" if missing == "error" else missing,
        no_relevant=checked, depth=read_depth(enumerated, max_depth, judged_only),
    )  # fmt: skip
    if closed:
        part = per_query_frame(
            inputs, closed, ties="average", missing=missing, no_relevant=checked, **options
        )
        per_q = part.join(per_q, on=group_keys(part), how="full", coalesce=True)
    return per_q


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
