"""Depth curves in one pass over each ranking: the engine of :func:`polars_ireval.depth_curve`
for the measures that declare their form at every depth.

Most measures truncated at k are prefix aggregates of the ranking: a running sum (or
product) over ranks read at k, divided by something that depends on k alone (P), on the
query alone (AP's R) or on both (nDCG's ideal DCG at k). A measure declares that form beside
its expression (``depth=`` of :func:`polars_ireval.registry.measure`, filling a
:class:`~polars_ireval.measures.depth.DepthPlan`); :func:`one_pass` builds the running values
once over the retrieved documents of one evaluation table, reads them at every depth (an
as-of join of the grid of rankings x depths with the ranks) and divides them as the
declaration says: the cost grows with the rows of the evaluation table plus the size of the
output (rankings x depths), not with rows x depths. This module holds no measure's
arithmetic, the pooled R_k of seed 000's AP'' aside (eq. 3: AP@k's numerator over the
relevant documents found by pooling the runs to depth k).

:mod:`polars_ireval.analysis.stability` reads the request (:class:`Curve`), chooses between
this pass and one evaluation per depth, and puts the curves together.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from polars_ireval._base import schema as S
from polars_ireval.io.intake import Inputs
from polars_ireval.judge import Ties, group_keys, judge_and_rankings
from polars_ireval.measures._expr import RANK, relevant
from polars_ireval.measures.ap import running_precisions
from polars_ireval.measures.depth import (
    DEPTH,
    EVENT_RANKING,
    RANKING,
    DepthPlan,
    ratio_by_row,
)
from polars_ireval.registry import Measure
from polars_ireval.results import MEASURE, RESIDUAL, VALUE

#: The column holding a curve's position in the request, to sort the output by.
CURVE_ORDER = "\x00order"


@dataclass(frozen=True)
class Curve:
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


_KEY = "\x00key"


def _count_at(ranks: pl.Expr, depth: pl.Expr) -> pl.Expr:
    """For each depth, how many of ``ranks`` (ascending) are at or above it."""
    return ranks.search_sorted(depth, side="right")


def _plan(curve: Curve, kind: str, relevance_level: int, depths: pl.Expr) -> DepthPlan:
    """The one-pass computation of ``curve``: its declaration's depth plan (``kind``, the
    measure's name, as :mod:`~polars_ireval.analysis.stability` chose it), or seed 000's
    AP'' (``kind`` ``"AP''"``): AP@k's numerator over R_k (from :func:`_pooled_relevant`)."""
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


def one_pass(
    inputs: Inputs,
    curves: list[tuple[Curve, str]],
    depths: list[int],
    *,
    per_query: bool,
    residuals: bool,
    relevance_level: int,
    condensed: bool,
    ties: Ties,
    contributors: list[str] | None = None,
) -> dict[int, pl.LazyFrame]:
    """The curves of the one-pass measures (by their order), from one evaluation table of
    ``inputs`` (checked at the front door, :func:`polars_ireval.depth_curve`); the R_k of
    AP'' pools the rankings of ``contributors`` (None: every run).

    The rankings are numbered in (run, query) order; their retrieved rows (the events) are
    sorted by ranking and rank, and each measure's running values are computed over them.
    The grid of rankings x depths, in that order, finds at each depth the last event at or
    above it (an as-of join on the packed key ranking * 2^32 + rank) and reads the running
    values there; per-query statistics (R, the ideal DCG at each depth, the R_k of AP'')
    are joined on the query."""
    table = judge_and_rankings(
        inputs, judged_only=condensed, ties=ties, unjudged=residuals, collect=False
    ).table.lazy()
    keys = group_keys(table)
    q = inputs.qrels.lazy().cache()
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


def _long(wide: pl.LazyFrame, keys: list[str], curve: Curve, residuals: bool) -> pl.LazyFrame:
    """The rows of ``curve`` in the long shape of :func:`depth_curve` (with the order)."""
    cols = [
        *keys,
        pl.lit(curve.label).alias(MEASURE),
        pl.lit(curve.order, dtype=pl.Int64).alias(CURVE_ORDER),
        DEPTH,
        pl.col(f"\x00v{curve.order}").alias(VALUE),
    ]
    if residuals:
        cols.append(pl.col(f"\x00r{curve.order}").alias(RESIDUAL))
    return wide.select(cols)
