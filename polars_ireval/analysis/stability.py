"""``depth_curve``, ``ap_pooled`` and ``volatility``: how scores and orderings move with depth.

Lu, Moffat and Culpepper (``../shared/seeds/000_*``) score every run of a campaign at
every evaluation depth k, below and beyond the pooling depth d, and watch the lines cross.
:func:`depth_curve` computes those curves: the value of a measure truncated to the top k
(``AP@k``, ``nDCG@k``...) for every k asked for, exactly what :func:`polars_ireval.evaluate`
gives for ``f"{measure}@{k}"``, bit for bit. With ``condensed=True`` the rankings are
condensed first (judged documents only, trec_eval ``-J``); with ``pool_depth=d`` the qrels
are cut to the depth-d pool of the contributing runs, so that depths beyond d are the seed's
extended evaluation (unjudged documents counted non-relevant).

Most measures truncated at k are prefix aggregates of the ranking: a running sum (or
product) over ranks read at k, divided by something that depends on k alone (P), on the
query alone (AP's R) or on both (nDCG's ideal DCG at k). A measure declares that form beside
its expression (``depth=`` of :func:`polars_ireval.registry.measure`, filling a
:class:`~polars_ireval.measures.depth.DepthPlan`); those (:data:`FAST`: AP, nDCG, Q, RBP,
ERR, P, R, RR) take one pass over each ranking: the running values are built once over the
retrieved documents, read at every depth (an as-of join of the grid of rankings x depths
with the ranks) and divided as the declaration says; the cost grows with the rows of the
evaluation table plus the size of the output (rankings x depths), not with rows x depths.
This module holds no measure's arithmetic, the pooled R_k of AP'' aside. Any other measure
is evaluated once per depth, all depths in one lazy query (:func:`_evaluated`).

:func:`ap_pooled` is the seed's AP'' (eq. 3): AP@k divided by R_k, the relevant documents
found by pooling all the runs given to depth k, a campaign-level quantity; ``"AP''"`` (or
``"APpp"``) names it in :func:`depth_curve`.

:func:`volatility` reads a curve: per measure, Kendall's tau-b between the ordering of the
runs at each depth and at a reference depth; per run, how often its position changes from
one depth to the next; and the pairs of runs whose order each depth overturns.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from polars_ireval._base import schema as S
from polars_ireval._base.collect import collect
from polars_ireval._base.numeric import RELATIVE_TOLERANCE, snap
from polars_ireval._base.resources import require, require_listable
from polars_ireval.analysis.judging import checked_contributors, depth_qrels
from polars_ireval.analysis.pooling import contributor_list
from polars_ireval.engines.base import measures_estimate, ranking_count
from polars_ireval.errors import (
    DuplicateError,
    EmptyInputError,
    IrevalError,
    ParameterError,
    SchemaError,
    ScoreError,
)
from polars_ireval.evaluate import evaluate
from polars_ireval.judge import (
    Ties,
    as_qrels,
    as_run,
    check_flag,
    check_options,
    check_relevance_level,
    group_keys,
    judge_and_rankings,
)
from polars_ireval.measures._expr import RANK, relevant
from polars_ireval.measures.ap import running_precisions
from polars_ireval.measures.depth import (
    DEPTH,
    EVENT_RANKING,
    RANKING,
    DepthPlan,
    ratio_by_row,
)
from polars_ireval.measures.usermodel import model_positions
from polars_ireval.parse import parse_measures
from polars_ireval.registry import REGISTRY, Measure
from polars_ireval.results import MEASURE, RESIDUAL, VALUE

__all__ = [
    "AP_POOLED",
    "DEPTH",
    "FAST",
    "POOLED",
    "Volatility",
    "ap_pooled",
    "depth_curve",
    "volatility",
]

# DEPTH: the column of :func:`depth_curve` holding the evaluation depth k (imported)
#: The column marking the depth equal to ``pool_depth`` (the seed's red dashed line).
POOLED = "pooled"
#: The names :func:`depth_curve` reads as seed 000's AP'' (eq. 3); the first is canonical.
AP_POOLED: tuple[str, ...] = ("AP''", "APpp")
#: The measures whose declaration computes them at every depth in one pass over each
#: ranking (for some of their parameters: AP with ``norm='R'`` and rank discount, nDCG with
#: log2 discount, RBP with ``ties='rank'``; see ``depth=`` of
#: :func:`polars_ireval.registry.measure`); the others are evaluated once per depth.
FAST: tuple[str, ...] = tuple(name for name, d in REGISTRY.items() if d.depth is not None)

_ORDER = "\x00order"  # the measure's position in the request, to sort the output
_DEPTHS_PER_QUERY = 100  # depths per evaluate() call of the per-depth fallback
#: Bytes per row of the grid of rankings x depths of the one-pass measures: 64 + 32 a
#: measure (AP at 10^6 depths on the bundled example's 75 rankings: 6.0 GB of peak RSS;
#: AP and nDCG at 10^5 on 25 rankings: 290 MB).
_GRID_BYTES, _GRID_MEASURE_BYTES = 64, 32
#: Bytes per position of a C/W/L measure evaluated at every depth (the per-depth
#: evaluations run together): INST at depths 1..999 on 25 rankings, 361 MB.
_CURVE_POSITION_BYTES = 30
_SPARSER = (
    "ask for fewer depths (a sparser grid, e.g. depths=[1, 2, 5, 10, 20, 50, 100, 200, "
    "500, 1000]) or fewer runs or queries at a time"
)


# --------------------------------------------------------------------------- input


def _depths(depths: Any) -> list[int]:
    """The evaluation depths, checked: positive integers, strictly increasing."""
    if isinstance(depths, (str, bytes)) or not isinstance(depths, Iterable):
        raise ParameterError(
            f"depths={depths!r}: give the evaluation depths as a sorted list of positive "
            "integers, e.g. depths=range(1, 101)"
        )
    require_listable("depths=", depths, fix=_SPARSER)  # a range, before it is listed
    values = list(depths)
    if not values:
        raise ParameterError("depths is empty: give at least one depth, e.g. depths=[10, 100]")
    out: list[int] = []
    for d in values:
        if isinstance(d, (float, np.floating)) and math.isnan(d):
            raise ParameterError("depths holds NaN: every depth is a positive integer; drop it")
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)):
            raise ParameterError(
                f"depths holds {d!r} ({type(d).__name__}): every depth is a positive integer"
            )
        if d < 1:
            raise ParameterError(
                f"depths holds {int(d)}: a depth is a number of ranks, at least 1; drop it"
            )
        if d >= 1 << 31:
            raise ParameterError(f"depths holds {int(d)}: depths are below 2**31")
        out.append(int(d))
    for i in range(1, len(out)):
        if out[i] == out[i - 1]:
            raise ParameterError(
                f"depths holds {out[i]} twice (positions {i - 1} and {i}); pass each depth "
                "once: depths=sorted(set(depths))"
            )
        if out[i] < out[i - 1]:
            raise ParameterError(
                f"depths are not increasing: {out[i - 1]} comes before {out[i]} (position "
                f"{i}); pass them sorted: depths=sorted(set(depths))"
            )
    return out


def _pool_depth(pool_depth: Any) -> int | None:
    if pool_depth is None:
        return None
    if isinstance(pool_depth, (float, np.floating)) and math.isnan(pool_depth):
        raise ParameterError("pool_depth=nan: give the pool depth as a positive integer, or None")
    if (
        isinstance(pool_depth, (bool, np.bool_))
        or not isinstance(pool_depth, (int, np.integer))
        or pool_depth < 1
    ):
        raise ParameterError(
            f"pool_depth={pool_depth!r}: give the depth of the judgment pool as a positive "
            "integer (e.g. pool_depth=100), or None to use the qrels as they are"
        )
    return int(pool_depth)


@dataclass(frozen=True)
class _Curve:
    """One measure of a depth curve: the string asked for and how to bind it at depth k."""

    label: str
    order: int
    #: The measure at depth 1 (its parameters; None for AP'').
    base: Measure | None

    @property
    def pooled_ap(self) -> bool:
        return self.base is None

    def at(self, depth: int) -> Measure:
        """The measure truncated to the top ``depth``: what ``f"{label}@{depth}"`` parses to."""
        assert self.base is not None
        defn = self.base.defn
        assert defn.cutoff is not None
        values = {**self.base.params, defn.cutoff: depth, "judged_only": self.base.judged_only}
        return defn.bind(values, label=f"{self.label}@{depth}")


def _resolve(item: Any, order: int) -> _Curve:
    """Read one measure of :func:`depth_curve`: a measure string with a cutoff parameter
    and no cutoff given (``"AP"``, ``"RBP(p=0.8)"``, trec_eval's ``"map"``), or AP''."""
    if isinstance(item, Measure):
        measure, text = item, item.label
    elif isinstance(item, str):
        text = item.strip()
        if text in AP_POOLED:
            return _Curve(text, order, None)
        try:  # ir_measures' grammar: the string with a cutoff appended is one measure
            probe = parse_measures(f"{text}@1")
        except IrevalError:
            probe = []
        if len(probe) == 1 and probe[0].defn.cutoff is not None:
            return _Curve(text, order, probe[0])
        found = parse_measures(text)  # unknown names and bad syntax raise here
        if len(found) != 1:
            names = ", ".join(m.label for m in found)
            raise ParameterError(
                f"{text!r} names {len(found)} measures ({names}), each with its own cutoff; "
                f"depth_curve truncates one measure at every depth: pass its name without "
                f"a cutoff (e.g. {found[0].canonical.split('@')[0]!r})"
            )
        measure = found[0]
    else:
        raise ParameterError(
            f"measures holds {item!r}: give measure strings such as 'AP' or 'RBP(p=0.8)'"
        )
    cutoff = measure.defn.cutoff
    if cutoff is None:
        raise ParameterError(
            f"{text!r}: {measure.name} has no cutoff parameter, so it cannot be truncated at "
            f"depth k; depth_curve takes measures with one ({', '.join(FAST)}, ...), or "
            "evaluate it with max_depth=k"
        )
    given = measure.params.get(cutoff)
    if given is not None:
        bare = measure.canonical.rsplit("@", 1)[0]
        raise ParameterError(
            f"{text!r} already has a cutoff ({cutoff}={given}); depth_curve sets it to every "
            f"depth: pass the measure without it, e.g. {bare!r}"
        )
    return _Curve(text, order, measure)


def _measure_list(measures: Any) -> list[Any]:
    if isinstance(measures, (str, Measure)):
        return [measures]
    if not isinstance(measures, Iterable):
        raise ParameterError(
            f"measures={measures!r}: give a measure string or a list of them, e.g. ['AP', 'nDCG']"
        )
    items = list(measures)
    if not items:
        raise ParameterError("measures is empty: give at least one, e.g. ['AP', 'nDCG']")
    return items


# --------------------------------------------------------------------------- one pass


def _fast_kind(m: Measure, relevance_level: int, condensed: bool) -> str | None:
    """The measure's name when its declaration computes it at every depth in one pass for
    these arguments (:attr:`polars_ireval.registry.MeasureDef.depth`), or None to evaluate
    it once per depth."""
    if m.judged_only and not condensed:  # a condensed measure in an uncondensed curve
        return None
    hook = m.defn.depth
    if hook is None or hook(m.arguments(relevance_level)) is None:
        return None
    return m.name


_KEY = "\x00key"


def _count_at(ranks: pl.Expr, depth: pl.Expr) -> pl.Expr:
    """For each depth, how many of ``ranks`` (ascending) are at or above it."""
    return ranks.search_sorted(depth, side="right")


def _plan(curve: _Curve, kind: str, relevance_level: int, depths: pl.Expr) -> DepthPlan:
    """The one-pass computation of ``curve``: its declaration's depth plan (``kind`` of
    :func:`_fast_kind`), or seed 000's AP'': AP@k's numerator over R_k (from
    :func:`_pooled_relevant`)."""
    plan = DepthPlan(curve.order, depths)
    if kind == "AP''":
        sop = plan.event("sop", plan.running(running_precisions(relevant(relevance_level))))
        plan.value = ratio_by_row(sop, pl.col(_R_K).fill_null(0))
        return plan
    assert curve.base is not None and curve.base.defn.depth is not None
    fill = curve.base.defn.depth(curve.base.arguments(relevance_level))
    assert fill is not None, kind
    fill(plan)
    return plan


_R_K, _ENTRY = "\x00R_k", "\x00entry"


def _pooled_relevant(events: pl.LazyFrame, qrels: pl.LazyFrame) -> pl.LazyFrame:
    """The qrels with, for the R_k of AP'' (seed 000, eq. 3), the depth at which each
    judged document enters the pool of all the rankings (the shallowest rank any run gives
    it; null when no run retrieves it)."""
    entry = events.group_by(S.QUERY_ID, S.DOC_ID).agg(RANK.min().alias(_ENTRY))
    return qrels.join(entry, on=[S.QUERY_ID, S.DOC_ID], how="left")


def _at_ranks(events: pl.LazyFrame, qrels: pl.LazyFrame, plan: DepthPlan) -> pl.LazyFrame:
    """``events`` with the plan's :meth:`~polars_ireval.measures.depth.DepthPlan.at_rank`
    columns: each a list per query over its judgments, read at the event's rank (at the
    list's last position past its end, 0.0 for an empty list)."""
    length, position = "\x00L", "\x00pos"
    for column, values in plan.at_ranks.items():
        lists = qrels.group_by(S.QUERY_ID).agg(values)
        lengths = lists.select(S.QUERY_ID, pl.col(column).list.len().alias(length))
        positions = lists.explode(column).with_columns(
            pl.int_range(1, pl.len() + 1, dtype=pl.UInt32).over(S.QUERY_ID).alias(position)
        )
        at = pl.min_horizontal(RANK, pl.col(length).fill_null(0).cast(pl.UInt32))
        events = (
            events.join(lengths, on=S.QUERY_ID, how="left", maintain_order="left")
            .with_columns(at.alias(position))
            .join(positions, on=[S.QUERY_ID, position], how="left", maintain_order="left")
            .with_columns(pl.col(column).fill_null(0.0))
            .drop(length, position)
        )
    return events


def _fast(
    run: Any,
    qrels: Any,
    curves: list[tuple[_Curve, str]],
    depths: list[int],
    *,
    per_query: bool,
    residuals: bool,
    relevance_level: int,
    condensed: bool,
    ties: Ties,
    contributors: list[str] | None = None,
) -> dict[int, pl.LazyFrame]:
    """The curves of the one-pass measures (by their order), from one evaluation table;
    the R_k of AP'' pools the rankings of ``contributors`` (None: every run).

    The rankings are numbered in (run, query) order; their retrieved rows (the events) are
    sorted by ranking and rank, and each measure's running values are computed over them.
    The grid of rankings x depths, in that order, finds at each depth the last event at or
    above it (an as-of join on the packed key ranking * 2^32 + rank) and reads the running
    values there; per-query statistics (R, the ideal DCG at each depth, the R_k of AP'')
    are joined on the query."""
    table = judge_and_rankings(
        run, qrels, judged_only=condensed, ties=ties, unjudged=residuals, collect=False
    ).table.lazy()
    keys = group_keys(table)
    q = as_qrels(qrels).lazy().cache()
    table = table.cache()  # read for the rankings and the events
    depth = pl.lit(pl.Series(DEPTH, depths, dtype=pl.UInt32))
    plans = [_plan(curve, kind, relevance_level, depth) for curve, kind in curves]

    rankings = table.select(keys).unique().sort(keys).with_row_index(RANKING).cache()
    key = pl.col(RANKING).cast(pl.UInt64) * (1 << 32)
    events = table.filter(RANK.is_not_null()).join(rankings, on=keys)
    events = events.select(RANKING, S.QUERY_ID, S.DOC_ID, S.RANK, S.RELEVANCE)
    for plan in plans:  # per-query lists read at each event's rank (Q's ideal gain)
        events = _at_ranks(events, q, plan)
    events = events.with_columns((key + RANK.cast(pl.UInt64)).alias(_KEY)).sort(_KEY)
    running = [e for plan in plans for e in plan.events.values()]
    events = events.with_columns(running).cache()  # read per ranking, per query and by the grid

    per_ranking = [e for plan in plans for e in plan.rankings.values()]
    if per_ranking:
        stats = events.group_by(RANKING).agg(per_ranking)
        rankings = rankings.join(stats, on=RANKING, how="left", maintain_order="left")
    lists = [DEPTH] + [c for plan in plans for c in plan.per_depth]
    of_query = [e for plan in plans for e in plan.queries.values()]
    if any(c.pooled_ap for c, _ in curves):  # R_k: the relevant documents pooled to depth k
        pooling = events
        if contributors is not None and S.RUN_ID in keys:  # the contributors' rankings only
            ids = rankings.filter(pl.col(S.RUN_ID).is_in(contributors)).select(RANKING)
            pooling = events.join(ids, on=RANKING, how="semi")
        q = _pooled_relevant(pooling, q)
        pooled = pl.col(_ENTRY).filter(relevant(relevance_level) & pl.col(_ENTRY).is_not_null())
        of_query.append(_count_at(pooled.sort(), depth).alias(_R_K))
        lists.append(_R_K)
    queries = q.group_by(S.QUERY_ID).agg(depth.alias(DEPTH), *of_query)
    queries = queries.sort(S.QUERY_ID).explode(lists)
    names = [c for plan in plans for c in plan.events]
    grid = (
        rankings.join(queries, on=S.QUERY_ID, how="inner", maintain_order="left_right")
        .with_columns((key + pl.col(DEPTH).cast(pl.UInt64)).alias(_KEY).set_sorted())
        .join_asof(
            events.select(_KEY, pl.col(RANKING).alias(EVENT_RANKING), *names),
            on=_KEY,
            strategy="backward",
        )
    )
    columns: list[pl.Expr] = []
    for (curve, _), plan in zip(curves, plans, strict=True):
        columns.append(plan.value.cast(pl.Float64).alias(f"\x00v{curve.order}"))
        if residuals:
            resid = pl.lit(None) if plan.residual is None else plan.residual
            columns.append(resid.cast(pl.Float64).alias(f"\x00r{curve.order}"))
    wide = grid.select(*keys, pl.col(DEPTH).cast(pl.Int64), *columns).cache()
    if per_query:
        return {c.order: _long(wide, keys, c, residuals) for c, _ in curves}
    index = [c for c in keys if c == S.RUN_ID]
    averaged = [f"\x00v{c.order}" for c, _ in curves]
    if residuals:  # the mean residual, added in query order as the values are
        averaged += [
            f"\x00r{c.order}"
            for (c, _), p in zip(curves, plans, strict=True)
            if p.residual is not None
        ]
    means = _means_in_query_order(wide, index, averaged, depths)
    if residuals:
        none = [c for (c, _), p in zip(curves, plans, strict=True) if p.residual is None]
        means = means.with_columns(
            pl.lit(None, dtype=pl.Float64).alias(f"\x00r{c.order}") for c in none
        )
    return {c.order: _long(means, index, c, residuals) for c, _ in curves}


def _means_in_query_order(
    wide: pl.LazyFrame, index: list[str], columns: list[str], depths: list[int]
) -> pl.LazyFrame:
    """The mean over each run's queries of ``columns`` at each depth, as
    :func:`polars_ireval.registry.aggregate` takes it: the values added one after the
    other in query order, then divided by their number (trec_eval's order of addition).

    ``wide`` holds the rankings in (run, query) order, each as ``len(depths)`` rows in depth
    order. Each run is a (queries x depths) block; the blocks are stacked into one array,
    padded, and added query after query for every run and depth at once (a loop over the
    query positions, not over runs or depths)."""
    n = len(depths)
    schema = pl.Schema(
        {**{c: pl.String for c in index}, DEPTH: pl.Int64, **{c: pl.Float64 for c in columns}}
    )

    def fold(frame: pl.DataFrame) -> pl.DataFrame:
        rankings = frame.height // n
        if not rankings:
            return pl.DataFrame(schema=schema)
        if index:
            run_of = frame[S.RUN_ID].gather_every(n)
            first = (run_of != run_of.shift(1)).fill_null(True).to_numpy()
            run = np.cumsum(first) - 1
            starts = np.flatnonzero(first)
            runs = run_of.filter(pl.Series(first))
        else:
            run, starts, runs = np.zeros(rankings, dtype=np.int64), np.zeros(1, np.int64), None
        position = np.arange(rankings) - starts[run]
        count = np.bincount(run)
        out: dict[str, Any] = {}
        if runs is not None:
            out[S.RUN_ID] = runs.gather(np.repeat(np.arange(len(runs)), n))
        out[DEPTH] = np.tile(np.asarray(depths, dtype=np.int64), len(count))
        for column in columns:
            block = np.zeros((len(count), int(count.max()), n))
            block[run, position] = frame[column].to_numpy().reshape(rankings, n)
            total = block[:, 0].copy()
            for q in range(1, block.shape[1]):  # only the runs that have a q-th query
                np.add(total, block[:, q], out=total, where=(q < count)[:, None])
            out[column] = (total / count[:, None]).ravel()
        return pl.DataFrame(out, schema=schema)

    return wide.select(*index, DEPTH, *columns).map_batches(fold, schema=schema)


def _long(wide: pl.LazyFrame, keys: list[str], curve: _Curve, residuals: bool) -> pl.LazyFrame:
    """The rows of ``curve`` in the long shape of :func:`depth_curve` (with the order)."""
    cols = [
        *keys,
        pl.lit(curve.label).alias(MEASURE),
        pl.lit(curve.order, dtype=pl.Int64).alias(_ORDER),
        DEPTH,
        pl.col(f"\x00v{curve.order}").alias(VALUE),
    ]
    if residuals:
        cols.append(pl.col(f"\x00r{curve.order}").alias(RESIDUAL))
    return wide.select(cols)


# --------------------------------------------------------------------------- per depth


def _evaluated(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    curves: list[_Curve],
    depths: list[int],
    *,
    per_query: bool,
    residuals: bool,
    relevance_level: int,
    condensed: bool,
    ties: Ties,
) -> dict[int, pl.LazyFrame]:
    """The curves of the other measures (by their order): :func:`polars_ireval.evaluate` of
    ``m@k`` for every depth k, up to :data:`_DEPTHS_PER_QUERY` depths per call, all calls in
    one lazy query."""
    names = pl.LazyFrame(
        {
            "\x00at": [f"{c.label}@{d}" for c in curves for d in depths],
            MEASURE: [c.label for c in curves for _ in depths],
            _ORDER: [c.order for c in curves for _ in depths],
            DEPTH: [d for _ in curves for d in depths],
        },
        schema={"\x00at": pl.String, MEASURE: pl.String, _ORDER: pl.Int64, DEPTH: pl.Int64},
    )
    keys: list[str] = []
    out: dict[int, pl.LazyFrame] = {}
    for curve in curves:
        at = [curve.at(d) for d in depths]
        batches = [at[i : i + _DEPTHS_PER_QUERY] for i in range(0, len(at), _DEPTHS_PER_QUERY)]
        frames = [
            evaluate(
                run, qrels, batch, per_query=per_query, relevance_level=relevance_level,
                judged_only=condensed, ties=ties, residuals=residuals, validate=False,
            )
            for batch in batches
        ]  # fmt: skip
        scores = pl.concat(frames).rename({MEASURE: "\x00at"})
        scores = scores.join(names, on="\x00at", how="left", maintain_order="left")
        keys = [c for c in (S.RUN_ID, S.QUERY_ID) if c in scores.collect_schema()]
        extra = [RESIDUAL] if residuals else []
        out[curve.order] = scores.select(*keys, MEASURE, _ORDER, DEPTH, VALUE, *extra).sort(
            *keys, DEPTH
        )
    return out


# --------------------------------------------------------------------------- depth_curve


def depth_curve(
    runs: Any,
    qrels: Any,
    measures: str | Measure | Sequence[str | Measure],
    *,
    depths: Iterable[int],
    condensed: bool = False,
    residuals: bool = False,
    per_query: bool = False,
    pool_depth: int | None = None,
    contributors: Sequence[str] | None = None,
    relevance_level: int = 1,
    ties: Ties = "trec_eval",
) -> Any:
    """Score every run at every evaluation depth: seed 000's curves of a measure against k.

    The value at depth k is the measure truncated to the top k, what
    ``ir.evaluate(runs, qrels, [f"{measure}@{k}"])`` gives (bit for bit).

    Parameters
    ----------
    runs
        The runs (a frame with ``run_id``, a path, a glob, a list of paths). A LazyFrame
        (runs or qrels) gives a LazyFrame: the whole curve is one lazy query.
    qrels
        The judgments (a frame or a path).
    measures
        Measure strings with a cutoff parameter and no cutoff given: ``"AP"``,
        ``"nDCG"``, ``"Q(beta=1)"``, ``"RBP(p=0.8)"``, ``"ERR"``, ``"P"``, ``"R"``,
        ``"RR"``, ``"P(rel=2)"``, trec_eval's ``"map"``...; ``"AP''"`` (or ``"APpp"``) is
        seed 000's AP'' (see :func:`ap_pooled`). A string with a cutoff (``"nDCG@10"``,
        ``"P_10"``) or a measure without one (``"infAP"``, ``"bpref"``) raises
        :class:`ParameterError`.
    depths
        The evaluation depths k, positive integers in increasing order (e.g.
        ``range(1, 1001)``).
    condensed
        Score the condensed rankings (judged documents only, the others moving up;
        ``ir.evaluate(..., judged_only=True)``, trec_eval ``-J``).
    residuals
        Add the column ``residual``: per query, at each depth, what
        :func:`polars_ireval.evaluate` reports for ``m@k`` with ``residuals=True`` (RBP, P
        and the other measures that have one; null for the rest). Over queries, the mean
        of the one-pass measures' residuals adds them in query order, as the values are
        added; evaluate takes Polars' ``mean`` of them, which can differ from it in the last
        bit (see docs/stability.md).
    per_query
        One row per query (with ``query_id``) instead of the mean over each run's queries.
    pool_depth
        Seed 000's extended evaluation: first restrict the qrels to the documents the
        contributing runs rank in their top ``pool_depth``
        (:func:`polars_ireval.depth_qrels`), as if the campaign had been pooled that deep;
        documents judged deeper count as unjudged, so non-relevant. Adds the boolean column
        ``pooled``, true at ``depth == pool_depth``.
    contributors
        The runs whose rankings make the pool (default: every run): of ``pool_depth``,
        and the R_k of AP'' (seed 000: the relevant documents in the contributing runs'
        pool to depth k), with or without ``pool_depth``.
    relevance_level
        Minimum grade counted as relevant by measures whose ``rel`` is not given.
    ties
        Order of documents with equal scores; see :func:`polars_ireval.judge`.

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        ``[run_id,] [query_id,] measure, depth, value`` (+ ``residual``, + ``pooled``),
        one measure after the other (in the order given), each sorted by run, query and
        depth; ``measure`` holds the string asked for. ``run_id`` is there when the runs
        have one, as in :func:`polars_ireval.evaluate`.

    Raises
    ------
    ParameterError
        A depth that is not a positive integer, depths unsorted or repeated, a measure with
        a cutoff already or without a cutoff parameter, a bad ``pool_depth``.
    ResourceError
        When the grid of rankings x depths and the per-depth evaluations would exceed
        the memory budget (``IREVAL_MEMORY_LIMIT``, else half the memory available; see
        ``docs/resources.md``); a range of depths is weighed before it is listed.

    Notes
    -----
    AP, nDCG, Q, RBP, ERR, P, R and RR (in their default forms: AP's ``norm='R'`` and rank
    discount, nDCG's log2 discount, RBP's ``ties='rank'``) and AP'' are computed in one
    pass over each ranking: running sums over the ranks, read at every depth. Any other
    measure is evaluated once per depth (in one lazy query), which costs as many
    evaluations as depths.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> runs = pl.DataFrame({"run_id": ["a"] * 3 + ["b"] * 3, "query_id": "q",
    ...                      "doc_id": ["x", "y", "z", "z", "y", "x"],
    ...                      "score": [3.0, 2.0, 1.0] * 2})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["x", "z", "w"],
    ...                       "relevance": [1, 2, 0]})
    >>> ir.depth_curve(runs, qrels, ["AP", "P"], depths=[1, 2, 3]).filter(run_id="b")
    shape: (6, 4)
    ┌────────┬─────────┬───────┬──────────┐
    │ run_id ┆ measure ┆ depth ┆ value    │
    │ ---    ┆ ---     ┆ ---   ┆ ---      │
    │ str    ┆ str     ┆ i64   ┆ f64      │
    ╞════════╪═════════╪═══════╪══════════╡
    │ b      ┆ AP      ┆ 1     ┆ 0.5      │
    │ b      ┆ AP      ┆ 2     ┆ 0.5      │
    │ b      ┆ AP      ┆ 3     ┆ 0.833333 │
    │ b      ┆ P       ┆ 1     ┆ 1.0      │
    │ b      ┆ P       ┆ 2     ┆ 0.5      │
    │ b      ┆ P       ┆ 3     ┆ 0.666667 │
    └────────┴─────────┴───────┴──────────┘

    Pooled to depth 1, the campaign never judged y or w; beyond the pool, AP'' and AP
    (normalised by R of the depth-1 qrels) coincide (seed 000, Fig. 5):

    >>> curve = ir.depth_curve(runs, qrels, ["AP", "AP''"], depths=[1, 2, 3], pool_depth=1)
    >>> curve.filter(run_id="a").pivot("measure", index=["depth", "pooled"], values="value")
    shape: (3, 4)
    ┌───────┬────────┬──────────┬──────────┐
    │ depth ┆ pooled ┆ AP       ┆ AP''     │
    │ ---   ┆ ---    ┆ ---      ┆ ---      │
    │ i64   ┆ bool   ┆ f64      ┆ f64      │
    ╞═══════╪════════╪══════════╪══════════╡
    │ 1     ┆ true   ┆ 0.5      ┆ 0.5      │
    │ 2     ┆ false  ┆ 0.5      ┆ 0.5      │
    │ 3     ┆ false  ┆ 0.833333 ┆ 0.833333 │
    └───────┴────────┴──────────┴──────────┘
    """
    values = _depths(depths)
    pool = _pool_depth(pool_depth)
    check_relevance_level(relevance_level)
    for name, flag in (
        ("condensed", condensed),
        ("residuals", residuals),
        ("per_query", per_query),
    ):
        check_flag(name, flag)
    check_options(max_depth=None, ties=ties, missing="skip", judged_only=condensed)
    names = contributor_list(contributors)
    curves: list[_Curve] = []
    for item in _measure_list(measures):
        curve = _resolve(item, len(curves))
        if curve.label not in {c.label for c in curves}:
            curves.append(curve)
    if names is not None and pool is None and not any(c.pooled_ap for c in curves):
        raise ParameterError(
            "contributors= names the runs that make the pool of pool_depth= (and the R_k "
            "of AP''); pass pool_depth too"
        )
    run = as_run(runs, ties=ties)
    q: Any = as_qrels(qrels)
    lazy = isinstance(run, pl.LazyFrame) or isinstance(q, pl.LazyFrame)
    if pool is not None:
        q = depth_qrels(run, q, depth=pool, contributors=names)
    elif names is not None:  # only AP'' reads them: check them here
        if S.RUN_ID not in run.collect_schema():
            raise ParameterError("contributors= names runs: the runs need a run_id column")
        checked = checked_contributors(run.lazy(), names, lazy)
        run = checked if lazy else run
    fast: list[tuple[_Curve, str]] = []
    slow: list[_Curve] = []
    for curve in curves:
        kind = "AP''" if curve.base is None else _fast_kind(curve.base, relevance_level, condensed)
        if kind is None:
            slow.append(curve)
        else:
            fast.append((curve, kind))
    _check_size(run, fast, slow, values)
    options: dict[str, Any] = {
        "per_query": per_query, "residuals": residuals, "relevance_level": relevance_level,
        "condensed": condensed, "ties": ties,
    }  # fmt: skip
    frames: dict[int, pl.LazyFrame] = {}
    if fast:
        frames.update(_fast(run, q, fast, values, contributors=names, **options))
    if slow:
        frames.update(_evaluated(run.lazy(), q.lazy(), slow, values, **options))
    out = pl.concat([frames[c.order] for c in curves]).drop(_ORDER)
    if pool is not None:
        out = out.with_columns((pl.col(DEPTH) == pool).alias(POOLED))
    return out if lazy else collect(out, run, q)


def _check_size(
    run: pl.DataFrame | pl.LazyFrame,
    fast: list[tuple[_Curve, str]],
    slow: list[_Curve],
    depths: list[int],
) -> None:
    """Raise :class:`~polars_ireval.errors.ResourceError` before a curve whose grid
    (rankings x depths, :data:`_GRID_BYTES`), per-depth evaluations
    (:func:`polars_ireval.engines.base.measures_estimate`) and C/W/L vectors (the sum of
    the depths a ranking, :data:`_CURVE_POSITION_BYTES`) exceed the memory budget. A lazy
    run counts as one ranking (its rankings are not counted without collecting it)."""
    counted = ranking_count(run)
    n = 1 if counted is None else counted
    row = _GRID_BYTES + _GRID_MEASURE_BYTES * len(fast)
    estimate = n * len(depths) * row if fast else 0
    how = [f"{n:,} rankings x {len(depths):,} depths x {row} bytes"] if fast else []
    if slow:
        how.append(f"{len(depths) * len(slow):,} measures evaluated one depth at a time")
        estimate += measures_estimate(len(depths) * len(slow), n, batch=_DEPTHS_PER_QUERY)
        deep = sum(1 for c in slow if model_positions(c.at(depths[0])))
        estimate += deep * sum(depths) * n * _CURVE_POSITION_BYTES
    labels = ", ".join([*(c.label for c, _ in fast), *(c.label for c in slow)])
    rankings = "each ranking (lazy runs)" if counted is None else f"{n:,} rankings"
    require(
        f"depth_curve of {labels} at {len(depths):,} depths on {rankings}",
        estimate,
        how=", and ".join(how),
        fix=_SPARSER,
    )


def ap_pooled(
    runs: Any,
    qrels: Any,
    k: int,
    *,
    per_query: bool = False,
    condensed: bool = False,
    contributors: Sequence[str] | None = None,
    relevance_level: int = 1,
    ties: Ties = "trec_eval",
) -> Any:
    """Seed 000's AP'' at depth ``k`` (eq. 3): AP@k normalised by R_k.

    R_k is the number of relevant documents found by pooling the contributing runs (all
    the runs given, or ``contributors``) to depth ``k`` (judged relevant, at or above rank
    ``k`` in one of them): a campaign-level quantity,
    which grows with k towards R (the seed's R_0 = 0, R_{d+1} >= R_d). AP'' = (1/R_k)
    Σ_{i <= k} r_i P(i); 0 when R_k = 0. It equals ``AP@k`` evaluated on the qrels of the
    depth-k pool (:func:`polars_ireval.depth_qrels` of the same runs), since a run's top k
    is in that pool; except that a query none of whose judged documents is in that pool
    scores 0 here, where evaluate on those qrels skips it. Unlike ``AP(norm='self')``
    (SN-AP, divided by the relevant documents of the run's own top k), R_k is the same
    for every run. On a campaign pooled to depth
    d, AP'' and AP' (AP@k over R of the pooled qrels) coincide for k >= d (the seed's
    Fig. 5).

    Parameters
    ----------
    runs, qrels
        As :func:`depth_curve`.
    k
        The evaluation (and pooling) depth, a positive integer.
    contributors
        The runs whose rankings make the pool (default: every run given). A run that did
        not contribute is scored against the same R_k, and can score above 1 (its top k
        may hold more relevant documents than the contributors' top k do).
    per_query, condensed, relevance_level, ties
        As :func:`depth_curve` (with ``condensed``, R_k pools the condensed rankings).

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        ``[run_id,] [query_id,] measure, value`` as :func:`polars_ireval.evaluate` returns
        them, ``measure`` being ``"AP''@k"``.

    Examples
    --------
    Two relevant documents, x (rank 1 of run a) and z (rank 1 of run b): R_1 = 2, so AP''@1
    = (1/2) · 1 for both; AP@1 over R = 3 would be 1/3.

    >>> import polars as pl, polars_ireval as ir
    >>> runs = pl.DataFrame({"run_id": ["a", "a", "b", "b"], "query_id": "q",
    ...                      "doc_id": ["x", "y", "z", "y"], "score": [2.0, 1.0] * 2})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["x", "z", "u"], "relevance": 1})
    >>> ir.ap_pooled(runs, qrels, 1)
    shape: (2, 3)
    ┌────────┬─────────┬───────┐
    │ run_id ┆ measure ┆ value │
    │ ---    ┆ ---     ┆ ---   │
    │ str    ┆ str     ┆ f64   │
    ╞════════╪═════════╪═══════╡
    │ a      ┆ AP''@1  ┆ 0.5   │
    │ b      ┆ AP''@1  ┆ 0.5   │
    └────────┴─────────┴───────┘
    """
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ParameterError(f"k={k!r}: AP'' needs the evaluation depth, a positive integer")
    curve = depth_curve(
        runs, qrels, [AP_POOLED[0]], depths=[int(k)], per_query=per_query,
        condensed=condensed, contributors=contributors, relevance_level=relevance_level,
        ties=ties,
    )  # fmt: skip
    return curve.with_columns(pl.lit(f"{AP_POOLED[0]}@{int(k)}").alias(MEASURE)).drop(DEPTH)


# --------------------------------------------------------------------------- volatility


@dataclass(frozen=True)
class Volatility:
    """What :func:`volatility` computed from a depth curve.

    Attributes
    ----------
    tau : polars.DataFrame
        One row per measure and depth: ``measure, depth, tau, overturned, runs``: Kendall's
        tau-b between the runs' scores at that depth and at the reference depth
        (``scipy.stats.kendalltau(at_depth, at_reference)``; NaN where either side scores
        every run alike), the number of pairs of runs whose order the depth reverses, and
        the number of runs.
    changes : polars.DataFrame
        One row per run and measure: ``run_id, measure, changes, position``: how many
        times the run's position among the runs changes from one depth of the curve to the
        next, and its position at the reference depth.
    positions : polars.DataFrame
        ``measure, depth, run_id, position``: the run's position at each depth, 1 for the
        best; tied runs share the better position (1 + the runs scoring strictly more).
    overturned : polars.DataFrame
        ``measure, depth, run_a, run_b``: each pair of runs whose order at that depth is
        the reverse of their order at the reference depth: ``run_a`` scores strictly more
        than ``run_b`` at the reference depth and strictly less at this one (a pair tied
        on one side is not counted).
    reference_depth : int
        The depth whose ordering the others are compared with.
    """

    tau: pl.DataFrame
    changes: pl.DataFrame
    positions: pl.DataFrame
    overturned: pl.DataFrame
    reference_depth: int


_CURVE_COLUMNS = (S.RUN_ID, MEASURE, DEPTH, VALUE)
_CHUNK = 1 << 22  # (depths x pairs) signs computed at once


def _curve_frame(curve: Any) -> pl.DataFrame:
    if isinstance(curve, pl.LazyFrame):
        curve = curve.collect()
    if not isinstance(curve, pl.DataFrame):
        raise ParameterError(
            f"volatility takes the frame depth_curve returns, not {type(curve).__name__}"
        )
    missing = [c for c in _CURVE_COLUMNS if c not in curve.columns]
    if missing:
        raise ParameterError(
            f"the curve has no column {', '.join(map(repr, missing))} (columns: "
            f"{curve.columns}); volatility reads run_id, measure, depth, value: pass "
            "ir.depth_curve(runs, qrels, measures, depths=...) (per run, not per query)"
        )
    if S.QUERY_ID in curve.columns:
        raise ParameterError(
            "the curve has a query_id column (per_query=True); volatility orders runs by "
            "their mean over queries: pass depth_curve(..., per_query=False)"
        )
    if not curve.schema[VALUE].is_numeric() or not curve.schema[DEPTH].is_integer():
        raise SchemaError(
            f"the curve's value column holds {curve.schema[VALUE]} and its depth column "
            f"{curve.schema[DEPTH]}; they must be numbers and integers"
        )
    if curve.height == 0:
        raise EmptyInputError(
            "the curve holds no row: nothing to order; pass the frame of "
            "ir.depth_curve(runs, qrels, measures, depths=...)"
        )
    bad = curve.filter(~pl.col(VALUE).cast(pl.Float64).is_finite().fill_null(False))
    if bad.height:
        row = bad.row(0, named=True)
        raise ScoreError(
            f"the curve holds {bad.height} value(s) that are not finite numbers (NaN, "
            f"infinite or null), e.g. run {row[S.RUN_ID]!r}, {row[MEASURE]!r} at depth "
            f"{row[DEPTH]}: {row[VALUE]}; fix or drop those runs before comparing orderings"
        )
    dup = curve.group_by(S.RUN_ID, MEASURE, DEPTH, maintain_order=True).len()
    dup = dup.filter(pl.col("len") > 1)
    if dup.height:
        row = dup.row(0, named=True)
        raise DuplicateError(
            f"the curve holds {row['len']} values for run {row[S.RUN_ID]!r}, "
            f"{row[MEASURE]!r} at depth {row[DEPTH]}; give one value per run, measure and "
            "depth (one campaign's depth_curve)"
        )
    return curve.select(
        pl.col(S.RUN_ID).cast(pl.String),
        pl.col(MEASURE).cast(pl.String),
        pl.col(DEPTH).cast(pl.Int64),
        pl.col(VALUE).cast(pl.Float64),
    )


def _matrix(frame: pl.DataFrame, measure: str) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The runs (sorted), the depths (sorted) and the values (depths x runs) of a measure."""
    runs = frame[S.RUN_ID].unique().sort().to_list()
    depths = np.sort(frame[DEPTH].unique().to_numpy())
    if len(runs) < 2:
        raise ParameterError(
            f"{measure!r}: the curve scores {len(runs)} run ({runs}); the volatility of an "
            "ordering needs at least 2 runs"
        )
    if frame.height != len(runs) * len(depths):
        have = frame.group_by(S.RUN_ID).len().sort("len").row(0)
        raise ParameterError(
            f"{measure!r}: run {have[0]!r} has {have[1]} of the curve's {len(depths)} depths; "
            "every run needs a value at every depth (one depth_curve of all the runs)"
        )
    run_idx = pl.Series(frame[S.RUN_ID]).cast(pl.Enum(runs)).to_physical().to_numpy()
    depth_idx = np.searchsorted(depths, frame[DEPTH].to_numpy())
    values = np.empty((len(depths), len(runs)))
    values[depth_idx, run_idx] = frame[VALUE].to_numpy()
    return runs, depths, values


def _signs(values: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    return np.sign(values[..., i] - values[..., j]).astype(np.int8)


def volatility(curve: Any, reference_depth: int = 1000) -> Volatility:
    """How much the ordering of the runs moves with the evaluation depth (seed 000).

    Parameters
    ----------
    curve
        A :func:`depth_curve` frame, per run (``run_id, measure, depth, value``; eager or
        lazy; other columns are ignored). Every run needs a value at every depth of each
        measure.
    reference_depth
        The depth whose ordering the others are compared with (the seed's "eventual system
        ordering", k = 1000); one of the curve's depths.

    Returns
    -------
    Volatility
        Frames ``tau`` (per measure and depth), ``changes`` (per run and measure),
        ``positions`` and ``overturned`` (pairs of runs); see :class:`Volatility`.

    Raises
    ------
    ParameterError
        Missing columns, a per-query curve, ``reference_depth`` not among the depths, fewer
        than 2 runs, a run missing depths.
    ScoreError
        A value that is NaN, infinite or null (naming its run, measure and depth).
    DuplicateError
        Two values for one run, measure and depth.
    EmptyInputError
        A curve without rows.

    Notes
    -----
    Tau-b is computed for all depths at once, from the signs of the score differences of
    every pair of runs (concordant minus discordant over the square roots of the untied
    pairs, as ``scipy.stats.kendalltau`` computes it); the tests check it against scipy.
    Scores within rounding error of each other at one depth (1e-14 of the larger of two,
    :data:`polars_ireval._base.numeric.RELATIVE_TOLERANCE`) are tied, as in exact arithmetic:
    a mean of the same per-query scores summed in another order differs in its last bits.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> curve = pl.DataFrame({"run_id": ["a", "b", "c"] * 2, "measure": "AP",
    ...                       "depth": [10] * 3 + [100] * 3,
    ...                       "value": [0.3, 0.2, 0.1, 0.3, 0.4, 0.2]})
    >>> v = ir.volatility(curve, reference_depth=100)
    >>> v.tau
    shape: (2, 5)
    ┌─────────┬───────┬──────────┬────────────┬──────┐
    │ measure ┆ depth ┆ tau      ┆ overturned ┆ runs │
    │ ---     ┆ ---   ┆ ---      ┆ ---        ┆ ---  │
    │ str     ┆ i64   ┆ f64      ┆ u32        ┆ u32  │
    ╞═════════╪═══════╪══════════╪════════════╪══════╡
    │ AP      ┆ 10    ┆ 0.333333 ┆ 1          ┆ 3    │
    │ AP      ┆ 100   ┆ 1.0      ┆ 0          ┆ 3    │
    └─────────┴───────┴──────────┴────────────┴──────┘
    >>> v.overturned
    shape: (1, 4)
    ┌─────────┬───────┬───────┬───────┐
    │ measure ┆ depth ┆ run_a ┆ run_b │
    │ ---     ┆ ---   ┆ ---   ┆ ---   │
    │ str     ┆ i64   ┆ str   ┆ str   │
    ╞═════════╪═══════╪═══════╪═══════╡
    │ AP      ┆ 10    ┆ b     ┆ a     │
    └─────────┴───────┴───────┴───────┘
    >>> v.changes.sort("run_id")["changes"].to_list()
    [1, 1, 0]
    """
    if (
        isinstance(reference_depth, (bool, np.bool_))
        or not isinstance(reference_depth, (int, np.integer))
        or reference_depth < 1
    ):
        raise ParameterError(
            f"reference_depth={reference_depth!r}: give one of the curve's depths (a "
            "positive integer)"
        )
    frame = _curve_frame(curve)
    measures = frame[MEASURE].unique(maintain_order=True).to_list()
    from scipy import stats

    taus, changes, positions, overturned = [], [], [], []
    for measure in measures:
        runs, depths, values = _matrix(frame.filter(pl.col(MEASURE) == measure), measure)
        # scores equal up to rounding error tie (at each depth)
        values = snap(values, np.abs(values), RELATIVE_TOLERANCE)
        at = np.flatnonzero(depths == reference_depth)
        if not at.size:
            raise ParameterError(
                f"reference_depth={reference_depth} is not a depth of {measure!r}'s curve "
                f"(its {depths.size} depths run from {depths[0]} to {depths[-1]}); pass one of "
                f"them, e.g. reference_depth={int(depths[-1])}"
            )
        n = len(runs)
        i, j = np.triu_indices(n, 1)
        reference = _signs(values[at[0]], i, j)
        total = i.size
        ytie = int((reference == 0).sum())
        tau = np.empty(depths.size)
        reversed_ = np.empty(depths.size, dtype=np.int64)
        pair_depth, pair_a, pair_b = [], [], []
        step = max(1, _CHUNK // max(total, 1))
        for start in range(0, depths.size, step):
            block = _signs(values[start : start + step], i, j)
            product = block * reference
            con_minus_dis = product.sum(axis=1, dtype=np.int64)
            xtie = (block == 0).sum(axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                t = con_minus_dis / np.sqrt(total - xtie) / np.sqrt(total - ytie)
            t = np.where((xtie == total) | (ytie == total), np.nan, np.clip(t, -1.0, 1.0))
            tau[start : start + step] = t
            flips = product < 0
            reversed_[start : start + step] = flips.sum(axis=1)
            d_idx, p_idx = np.nonzero(flips)
            ahead = reference[p_idx] > 0
            pair_depth.append(depths[start + d_idx])
            pair_a.append(np.where(ahead, i[p_idx], j[p_idx]))
            pair_b.append(np.where(ahead, j[p_idx], i[p_idx]))
        taus.append(
            pl.DataFrame(
                {
                    MEASURE: measure,
                    DEPTH: depths,
                    "tau": tau,
                    "overturned": reversed_.astype(np.uint32),
                    "runs": np.full(depths.size, n, dtype=np.uint32),
                }
            )
        )
        # position: 1 + the runs scoring strictly more (ties share the better position)
        position = stats.rankdata(-values, method="min", axis=1).astype(np.int64)
        names = pl.Series(runs, dtype=pl.String)
        changes.append(
            pl.DataFrame(
                {
                    S.RUN_ID: names,
                    MEASURE: measure,
                    "changes": (position[1:] != position[:-1]).sum(axis=0).astype(np.uint32),
                    "position": position[at[0]].astype(np.uint32),
                }
            )
        )
        positions.append(
            pl.DataFrame(
                {
                    MEASURE: measure,
                    DEPTH: np.repeat(depths, n),
                    S.RUN_ID: names.gather(np.tile(np.arange(n), depths.size)),
                    "position": position.ravel().astype(np.uint32),
                }
            )
        )
        overturned.append(
            pl.DataFrame(
                {
                    MEASURE: pl.Series([measure]).gather(
                        np.zeros(sum(a.size for a in pair_a), dtype=np.int64)
                    ),
                    DEPTH: np.concatenate(pair_depth).astype(np.int64),
                    "run_a": names.gather(np.concatenate(pair_a)),
                    "run_b": names.gather(np.concatenate(pair_b)),
                }
            )
        )
    return Volatility(
        tau=pl.concat(taus),
        changes=pl.concat(changes),
        positions=pl.concat(positions),
        overturned=pl.concat(overturned),
        reference_depth=int(reference_depth),
    )
