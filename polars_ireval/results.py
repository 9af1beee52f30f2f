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
from collections.abc import Collection, Mapping
from typing import Any, Literal, TypeVar

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval._base.collect import collect
from polars_ireval.errors import NoRelevantError, ParameterError
from polars_ireval.judge import group_keys
from polars_ireval.registry import JUDGED_WEIGHT_PREFIX, Aggregate, Measure, aggregate

MEASURE = "measure"
VALUE = "value"
RESIDUAL = "residual"
PROJECTED = "projected"
_WEIGHT = "__judged_weight"
#: Prefix of the per-query residual columns of the wide frame (internal).
RESIDUAL_PREFIX = "\x00residual:"
#: Prefix of the per-query flags of the wide frame: the query is left out of the measure
#: (``no_relevant="skip"``; internal).
SKIPPED_PREFIX = "\x00skipped:"
#: Prefix of the per-query columns of R at one grade (internal).
R_PREFIX = "\x00R:"
NoRelevant = Literal["zero", "nan", "skip", "error"]
NO_RELEVANT: tuple[NoRelevant, ...] = ("zero", "nan", "skip", "error")
FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


class CoverageWarning(UserWarning):
    """Queries left out of an evaluation: ranked but never judged, or judged but not ranked;
    and queries without relevant documents whose value ``no_relevant`` made NaN or skipped."""


def with_judged_weights(measures: list[Measure]) -> list[Measure]:
    """The hidden measures that score the judged weight of those of ``measures`` that
    declare one (:meth:`polars_ireval.registry.Measure.judged_weight`), not already there:
    evaluated beside them with ``residuals=True``, they give ``projected`` its divisor
    (:func:`long_result`) and are left out of the result."""
    have = {m.label for m in measures}
    out = []
    for m in measures:
        w = m.judged_weight()
        if w is not None and w.label not in have:
            have.add(w.label)
            out.append(w)
    return out


def long_result(
    per_q: pl.LazyFrame,
    measures: list[Measure],
    *,
    per_query: bool,
    residuals: bool = False,
    names: Collection[str] | None = None,
) -> pl.LazyFrame:
    """The result of an evaluation from its wide per-query frame ``per_q`` (one column per
    measure label; with ``residuals``, one per :data:`RESIDUAL_PREFIX` + label too).
    ``names``: ``per_q``'s columns (:func:`wide_names`), when the caller knows them.
    Measures labelled :data:`~polars_ireval.registry.JUDGED_WEIGHT_PREFIX` + a label (see
    :func:`with_judged_weights`) are the divisors of that measure's ``projected``, not
    rows of the result."""
    hidden = {m.label for m in measures if m.label.startswith(JUDGED_WEIGHT_PREFIX)}
    how = {m.label: m.defn.aggregate for m in measures if m.label not in hidden}
    weights = {m.label[len(JUDGED_WEIGHT_PREFIX) :]: m.label for m in measures if m.label in hidden}
    aggregates = {m.label: m.defn.aggregate for m in measures if m.label in hidden}
    return long_frame(
        per_q, how, per_query=per_query, residuals=residuals, names=names,
        judged=weights if residuals else None, judged_aggregates=aggregates,
    )  # fmt: skip


def long_frame(
    per_q: pl.LazyFrame,
    how: Mapping[str, Aggregate],
    *,
    per_query: bool,
    residuals: bool = False,
    names: Collection[str] | None = None,
    judged: Mapping[str, str] | None = None,
    judged_aggregates: Mapping[str, Aggregate] | None = None,
) -> pl.LazyFrame:
    """:func:`long_result` for the columns ``how`` names, each aggregated its way
    (:func:`polars_ireval.registry.aggregate`): the shape of every evaluation's result,
    also of measures outside the registry (preferences, judgment groups). ``names``:
    ``per_q``'s columns, when known (else its schema is resolved, which costs a few
    milliseconds for a long query). ``judged``: label -> the column of its judged weight
    (aggregated as ``judged_aggregates`` says), which ``projected`` divides the value by
    (:func:`projected_by_weight`) instead of reading the residual."""
    labels = list(how)
    judged = dict(judged or {})
    resid = [RESIDUAL_PREFIX + label for label in labels]
    columns = set(per_q.collect_schema().names() if names is None else names)
    keys = group_keys(columns)
    if per_query:
        wide = per_q.sort(keys)
        index = keys
    else:
        aggs = [aggregate(pl.col(c), h).alias(c) for c, h in how.items()]
        if residuals:
            aggs += [aggregate(pl.col(r), "mean").alias(r) for r in resid]
            aggs += [
                aggregate(pl.col(w), (judged_aggregates or {}).get(w, "mean")).alias(w)
                for w in judged.values()
            ]
        wide = over_queries(per_q, aggs, keys)
        index = [k for k in keys if k == S.RUN_ID]
    long = wide.select(*index, *[pl.col(c).cast(pl.Float64) for c in labels]).unpivot(
        index=index, on=labels, variable_name=MEASURE, value_name=VALUE
    )
    if residuals:
        # the same unpivot order (measure by measure, rows in order) lines the columns up
        extra = wide.select(pl.col(resid).cast(pl.Float64)).unpivot(on=resid, value_name=RESIDUAL)
        parts = [long, extra.select(RESIDUAL)]
        if judged:
            weights = [
                (pl.col(judged[c]) if c in judged else pl.lit(None)).cast(pl.Float64).alias(c)
                for c in labels
            ]
            by_weight = wide.select(weights).unpivot(on=labels, value_name=_WEIGHT)
            parts.append(by_weight.select(_WEIGHT))
        long = pl.concat(parts, how="horizontal")
        value, residual = pl.col(VALUE), pl.col(RESIDUAL)
        if judged:
            weight = pl.col(_WEIGHT)
            long = long.with_columns(
                pl.when(weight.is_not_null())
                .then(projected_by_weight(value, weight))
                .otherwise(projected(value, residual))
                .alias(PROJECTED)
            ).drop(_WEIGHT)
        else:
            long = long.with_columns(projected(value, residual).alias(PROJECTED))
    skipped = [SKIPPED_PREFIX + label for label in labels]
    if per_query and set(skipped) <= columns:
        # rows a measure leaves out (no_relevant="skip"): the same unpivot order lines up
        flags = wide.select(pl.col(skipped).fill_null(False)).unpivot(on=skipped, value_name="s")
        long = pl.concat([long, flags.select("s")], how="horizontal").filter(~pl.col("s"))
        long = long.drop("s")
    # unpivot lists measure by measure; a stable sort regroups them per run and query
    return long.sort(index, maintain_order=True) if index else long


def over_queries(per_query: FrameT, aggs: list[pl.Expr], keys: list[str] | None = None) -> FrameT:
    """``aggs`` over the queries of each run (one row per run, sorted by ``run_id``, or
    one row), each run's queries in id order: the order in which trec_eval adds them
    (:meth:`polars_ireval.registry.Measure.aggregate` sums in row order). ``keys``: the
    frame's :func:`~polars_ireval.judge.group_keys`, when the caller has them."""
    keys = group_keys(per_query) if keys is None else keys
    ordered = per_query.sort(keys)
    if S.RUN_ID not in keys:
        return ordered.select(aggs)
    return ordered.group_by(S.RUN_ID, maintain_order=True).agg(aggs).sort(S.RUN_ID)


def projected(base: pl.Expr, residual: pl.Expr) -> pl.Expr:
    """Moffat and Zobel's projected score, base + residual * base / (1 - residual).

    The unjudged weight (the residual) is assumed relevant at the rate of the judged
    weight; null when the residual is 1 (nothing judged) or null.
    """
    return pl.when(residual < 1.0).then(base + residual * base / (1.0 - residual))


def projected_by_weight(base: pl.Expr, judged: pl.Expr) -> pl.Expr:
    """:func:`projected` from the weight of the judged ranks itself: base / judged, null
    when nothing is judged (judged weight 0).

    For a user model whose weights sum to 1 (RBP, P@k), the judged weight is 1 - residual,
    and base + residual * base / (1 - residual) = base / (1 - residual); but 1 - residual
    computed from the residual loses the judged weight's digits when it is tiny (a
    residual within 1e-12 of 1 keeps about 4 of them), where the weight summed over the
    judged ranks keeps them all.

    >>> import polars as pl
    >>> frame = pl.DataFrame({"base": [2.8e-9, 0.3], "judged": [2.8e-9, 0.0]})
    >>> frame.select(projected_by_weight(pl.col("base"), pl.col("judged")))["base"].to_list()
    [1.0, None]
    """
    return pl.when(judged > 0.0).then(base / judged)


def warn_coverage(
    cov: pl.DataFrame, missing: str, *, stacklevel: int = 4, no_relevant: str | None = None
) -> None:
    """Emit :class:`CoverageWarning` for the rankings of ``cov`` (:func:`polars_ireval.coverage`)
    left out: ranked but never judged, and judged but not ranked under ``missing="skip"``;
    and ``no_relevant``, the sentence of :func:`no_relevant_note`, when given."""
    # (frames filtered only when some ranking is left out: the usual case costs no filter)
    judged, ranked = cov.get_column("in_qrels"), cov.get_column("in_run")
    unjudged = cov.filter(~pl.col("in_qrels")) if not judged.all() else cov.clear()
    unranked = (
        cov.filter(~pl.col("in_run")) if missing == "skip" and not ranked.all() else cov.clear()
    )
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
    if no_relevant:
        parts.append(no_relevant)
    if parts:
        warnings.warn(
            "; ".join(parts) + ". See polars_ireval.coverage().",
            CoverageWarning,
            stacklevel=stacklevel,
        )


def check_no_relevant(policy: object) -> None:
    """Raise :class:`ParameterError` unless ``policy`` is one of :data:`NO_RELEVANT`."""
    if policy not in NO_RELEVANT:
        raise ParameterError(
            f"no_relevant={policy!r}: must be one of {', '.join(map(repr, NO_RELEVANT))}"
        )


def relevant_counts(qrels: pl.LazyFrame, levels: list[int]) -> pl.LazyFrame:
    """R per judged query at each grade of ``levels``: ``query_id`` and one column
    :data:`R_PREFIX` + level, the number of judgments with a grade at least that level."""
    rel = pl.col(S.RELEVANCE)
    return qrels.group_by(S.QUERY_ID).agg(
        (rel >= level).sum().cast(pl.Int64).alias(f"{R_PREFIX}{level}") for level in levels
    )


def with_no_relevant(
    per_q: FrameT,
    qrels: pl.LazyFrame,
    measures: list[Measure],
    *,
    relevance_level: int,
    policy: NoRelevant,
) -> FrameT:
    """The wide per-query frame ``per_q`` (see :func:`long_result`) under the ``no_relevant``
    policy: the value of each measure normalised by R (:attr:`Measure.by_r`) for a query
    whose R, at the measure's grade (:meth:`Measure.r_level`), is 0 becomes NaN
    (``"nan"``) or null, flagged to leave the query out of that measure (``"skip"``).
    ``"zero"`` and ``"error"`` (checked beforehand, :func:`no_relevant_pairs`) keep it."""
    chosen = [m for m in measures if m.by_r]
    if not _changes_values(measures, policy):
        return per_q
    levels = sorted({m.r_level(relevance_level) for m in chosen})
    lazy_counts = relevant_counts(qrels, levels)
    counts: Any = collect(lazy_counts) if isinstance(per_q, pl.DataFrame) else lazy_counts
    have = set(per_q.collect_schema().names())
    out = per_q.join(counts, on=S.QUERY_ID, how="left")
    fill = pl.lit(float("nan")) if policy == "nan" else pl.lit(None, pl.Float64)
    exprs = []
    for m in chosen:
        zero = pl.col(f"{R_PREFIX}{m.r_level(relevance_level)}").fill_null(0) == 0
        exprs.append(pl.when(zero).then(fill).otherwise(pl.col(m.label)).alias(m.label))
        if RESIDUAL_PREFIX + m.label in have:
            resid = pl.col(RESIDUAL_PREFIX + m.label)
            exprs.append(pl.when(zero).then(fill).otherwise(resid).alias(resid.meta.output_name()))
    if policy == "skip":
        for m in measures:
            flag = pl.col(f"{R_PREFIX}{m.r_level(relevance_level)}").fill_null(0) == 0
            flag = flag if m.by_r else pl.lit(False)
            exprs.append(flag.alias(SKIPPED_PREFIX + m.label))
    return out.with_columns(exprs).drop(f"{R_PREFIX}{level}" for level in levels)


def _changes_values(measures: list[Measure], policy: NoRelevant) -> bool:
    """Whether :func:`with_no_relevant` changes (or flags) any value of ``measures``."""
    return policy in ("nan", "skip") and any(m.by_r for m in measures)


def wide_names(
    keys: list[str], measures: list[Measure], *, residuals: bool, no_relevant: NoRelevant
) -> list[str]:
    """The columns of a wide per-query frame with the group keys ``keys``, built by
    :func:`polars_ireval.engines.polars.per_query_columns` and :func:`with_no_relevant`."""
    names = [*keys, *(m.label for m in measures)]
    if residuals:
        names += [RESIDUAL_PREFIX + m.label for m in measures]
    if no_relevant == "skip" and _changes_values(measures, no_relevant):
        names += [SKIPPED_PREFIX + m.label for m in measures]
    return names


def no_relevant_pairs(
    cov: pl.DataFrame,
    qrels: pl.LazyFrame,
    measures: list[Measure],
    *,
    relevance_level: int,
    missing: str,
) -> pl.DataFrame:
    """The evaluated rankings without relevant documents, per measure normalised by R:
    ``[run_id,] query_id, measure`` (the label), from the coverage ``cov``
    (:func:`polars_ireval.coverage`) of the evaluation and its ``missing`` policy."""
    keys = [k for k in (S.RUN_ID, S.QUERY_ID) if k in cov.columns]
    chosen = [m for m in measures if m.by_r]
    empty = pl.DataFrame(schema={**{k: pl.String for k in keys}, MEASURE: pl.String})
    if not chosen:
        return empty
    levels = sorted({m.r_level(relevance_level) for m in chosen})
    counts = collect(relevant_counts(qrels, levels))
    # an evaluated ranking's query is judged (in ``counts``): when every judged query has
    # relevant documents at every level, no ranking lacks them (the usual case, at once)
    if counts.select(pl.all_horizontal(pl.col(f"{R_PREFIX}{v}") > 0 for v in levels).all()).item():
        return empty
    evaluated = pl.col("in_qrels") & (pl.col("in_run") | pl.lit(missing == "zero"))
    pairs = cov.filter(evaluated).select(keys).join(counts, on=S.QUERY_ID, how="left")
    # the rankings without relevant documents at each level, once, with the labels of the
    # measures that read that level (not three frame operations per measure)
    labels: dict[int, list[str]] = {}
    for m in chosen:
        labels.setdefault(m.r_level(relevance_level), []).append(m.label)
    parts = [
        pairs.filter(pl.col(f"{R_PREFIX}{level}").fill_null(0) == 0)
        .select(keys)
        .join(pl.DataFrame({MEASURE: names}), how="cross")
        for level, names in labels.items()
    ]
    return pl.concat([empty, *parts]).sort([MEASURE, *keys], maintain_order=True)


def raise_no_relevant(pairs: pl.DataFrame) -> None:
    """Raise :class:`NoRelevantError` for the rankings of :func:`no_relevant_pairs`, if any
    (``no_relevant="error"``)."""
    if not pairs.height:
        return
    keys = [k for k in (S.RUN_ID, S.QUERY_ID) if k in pairs.columns]
    measures = ", ".join(pairs[MEASURE].unique(maintain_order=True))
    where = [_listed("queries", pairs[S.QUERY_ID])]
    if S.RUN_ID in keys:
        where.insert(0, _listed("runs", pairs[S.RUN_ID]))
    n = pairs.select(keys).unique().height
    raise NoRelevantError(
        f"{n} evaluated (run, query) pair(s) have no relevant document, so the measure(s) "
        f"normalised by R ({measures}) are undefined for them ({'; '.join(where)}); pass "
        "no_relevant='zero' to score them 0 (trec_eval), 'nan' for NaN, or 'skip' to leave "
        "them out of those "
        "measures, or remove the queries from the qrels"
    )


def _listed(what: str, values: pl.Series) -> str:
    distinct = values.unique(maintain_order=True)
    more = " ..." if len(distinct) > 5 else ""
    return f"{what} {', '.join(distinct.head(5))}{more}"


def no_relevant_note(pairs: pl.DataFrame, policy: str) -> str | None:
    """The coverage warning's sentence on the rankings of :func:`no_relevant_pairs` whose
    value ``policy`` changed (``"nan"``, ``"skip"``), or None."""
    if policy not in ("nan", "skip") or not pairs.height:
        return None
    per = pairs.group_by(MEASURE, maintain_order=True).len()
    counts = ", ".join(f"{m}: {n}" for m, n in per.iter_rows())
    did = "scored NaN" if policy == "nan" else "left out of those measures"
    sample = ", ".join(pairs[S.QUERY_ID].unique(maintain_order=True).head(5))
    return (
        f"(run, query) pairs without relevant documents {did} (no_relevant={policy!r}), per "
        f"measure normalised by R: {counts} (e.g. queries {sample})"
    )
