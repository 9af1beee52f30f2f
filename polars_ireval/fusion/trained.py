"""Fusion methods trained on qrels (ranx's): each learns, per input run, how likely a
document at a given position of that run is relevant, from training runs of the same
systems and their qrels, then scores the runs to fuse with it.

The model is learned on *training queries*: the queries of a training run that the qrels
judge (any judgment row, relevant or not); a document is relevant when its grade is at
least ``rel`` (1 by default: ranx's ``rel_lvl=1``, i.e. any grade > 0 for integer grades).
Positions are 0-based below (``p = rank - 1``) and a run's ranking of a query is its
normalised run in order (as :func:`polars_ireval.fuse` prepares it), training runs too.

- ``posfuse`` (Lillis et al. 2010): ``P(p)`` = the fraction of the training queries whose
  ranking reaches position ``p`` that hold a relevant document there; a document scores
  ``P(p)`` in each run (0 past the training depth), summed over the runs.
- ``probfuse`` (Lillis et al. 2006): each ranking of length ``L`` cut into ``n_segments``
  segments of ``ceil(L / n_segments)`` positions; ``P(k)`` = the mean over the training
  queries of the fraction of relevant documents in segment ``k`` (0 for a query whose
  segment ``k`` is empty); a document in segment ``k`` (of its own ranking, cut the same
  way) scores ``P(k) / (k + 1)``, summed over the runs.
- ``segfuse`` (Shokouhi 2007): fixed segments of 5, 10, 20, ... 2,560 positions
  (``5 * 2**k``, boundaries ``10 * 2**(k-1) - 5``); ``P(k)`` = the mean over the training
  queries of the relevant documents in segment ``k`` over its size; a document scores
  ``P(k) * (s + 1)``, ``s`` its normalised score (0 past position 5,115), summed.
- ``slidefuse`` (Lillis et al. 2008): posfuse's ``P`` averaged over the window
  ``[p - w, p + w]`` clipped to the document's ranking (``P`` 0 past the training depth),
  summed over the runs.
- ``bayesfuse`` (Aslam and Montague 2001): for the segments of positions 0-5, 5-10, 10-15,
  15-20, 20-30, 30-100, 100-200, 200-500, 500-1000, the mean training precision ``a`` of the
  segment (0 raised to 0.001, and ``1 - a`` of 0 raised to 0.001); a document scores the
  log odds ``ln(a / (1 - a))`` of its segment in each run, ``ln(0.001 / 0.999)`` in a run
  that did not retrieve it (or ranked it past position 1,000), summed over the runs that
  have the query.
- ``mapfuse`` (Lillis et al. 2010): each run weighted by its MAP on the training queries
  (AP with ``rel``, 0 for a query without relevant documents); a document at rank ``r``
  scores ``MAP / r``, summed over the runs.

Each is one lazy query: the model is a small frame per (run, position or segment) joined
to the rows to fuse.

Equal to ranx's training (``ranx.optimize_fusion``, ``probfuse_train``, ``slidefuse_train``)
and ``ranx.fuse(params=)`` where ranx is defined (docs/compat.md), with these differences:
ranx requires the training runs' queries to be the qrels' (here other judged queries are
left out, and a training run without a judged query is refused); bayesfuse past position
1,000 reads beyond ranx's array (numba, unchecked: arbitrary values), here it scores as
unretrieved; a segment whose training precision is exactly 1 is guarded (``1 - a`` raised
to 0.001) here always, in ranx only when its float sum of per-query precisions reaches 1.0
(ten queries sum to 0.9999999999999999, log odds 36.7 instead of 6.9).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from polars_ireval._base import schema as S
from polars_ireval._base.options import check_positive_int
from polars_ireval.errors import ParameterError
from polars_ireval.fusion.normalize import ordered_sum

TRAINED = ("posfuse", "probfuse", "segfuse", "slidefuse", "bayesfuse", "mapfuse")
#: The default probfuse segments and slidefuse half-window. ranx has no default: its
#: ``optimize_fusion`` tries 1 to 100 and keeps the best on the training qrels.
N_SEGMENTS, WINDOW = 25, 5
#: segfuse's segment boundaries (ranx: ``10 * 2**(k - 1) - 5`` for k = 1..10).
SEGFUSE_BOUNDS = tuple(10 * 2 ** (k - 1) - 5 for k in range(1, 11))
#: bayesfuse's segment boundaries (ranx's ``cut_offs``).
BAYES_CUT_OFFS = (0, 5, 10, 15, 20, 30, 100, 200, 500, 1000)
#: bayesfuse's log odds of a document a run did not retrieve (ranx's ``min_odd``).
MIN_ODD = math.log(0.001 / 0.999)

_POS, _HIT, _LEN, _NQ, _P, _SEG = "__pos", "__hit", "__len", "__nq", "__p", "__seg"


@dataclass(frozen=True)
class Training:
    """What a trained method learns from: the training runs, prepared as the runs to fuse
    (``run_id`` the name of the run each stands for, ``query_id, doc_id, score, rank``), and
    the qrels (``query_id, doc_id, relevance``)."""

    rows: pl.LazyFrame
    qrels: pl.LazyFrame


def check_training(method: str, trained: bool, qrels: Any, train_runs: Any) -> None:
    """Refuse ``qrels=`` / ``train_runs=`` where they make no sense."""
    if trained and qrels is None:
        raise ParameterError(
            f"method={method!r} is trained on relevance judgments: pass qrels= (the qrels "
            "of the training queries; the model is learned from runs=, or from train_runs= "
            "when given)"
        )
    if not trained and qrels is not None:
        raise ParameterError(
            f"qrels=: method={method!r} is not trained; the trained methods are {list(TRAINED)}"
        )
    if not trained and train_runs is not None:
        raise ParameterError(
            f"train_runs=: method={method!r} is not trained; the trained methods are "
            f"{list(TRAINED)}"
        )


def check_params(values: Mapping[str, Any]) -> None:
    """A trained method's parameters: whole numbers (``n_segments`` and ``rel`` 1 or more,
    ``w`` 0 or more)."""
    if "n_segments" in values:
        check_positive_int("n_segments", values["n_segments"], what="the number of segments")
    if "rel" in values:
        check_positive_int("rel", values["rel"], what="the lowest relevant grade")
    if "w" in values:
        w = values["w"]
        if isinstance(w, (bool, np.bool_)) or not isinstance(w, (int, np.integer)) or w < 0:
            raise ParameterError(f"w={w!r}: the half-width of the window must be an integer >= 0")


def matched_names(train_names: list[str], names: list[str]) -> dict[str, str]:
    """Which run each training run stands for: by name when the names are the runs' own,
    else in order (as ranx pairs its trained probabilities with the runs)."""
    if set(train_names) == set(names):
        return {n: n for n in train_names}
    if len(train_names) != len(names):
        raise ParameterError(
            f"train_runs=: {len(train_names)} training run(s) ({train_names}) for "
            f"{len(names)} runs to fuse ({names}): one per run, of the same system, with the "
            "runs' names or in their order"
        )
    return dict(zip(train_names, names, strict=True))


def trained_scores(
    rows: pl.LazyFrame,
    method: str,
    values: Mapping[str, float],
    training: Training,
    missing: str,
) -> pl.LazyFrame:
    """One row per (query, document) of ``rows`` (the prepared runs to fuse) with its fused
    ``score`` under the trained ``method``."""
    if missing != "skip":
        raise ParameterError(
            f"missing={missing!r}: method={method!r} scores a document by its position in "
            "each run that retrieved it; missing= is for the score-based Comb methods"
        )
    rel = int(values["rel"])
    hits = _hits(training, rel)
    rows = _gated(rows, training, method).with_columns(
        (pl.col(S.RANK).cast(pl.Int64) - 1).alias(_POS),
        pl.len().over(S.RUN_ID, S.QUERY_ID).alias(_LEN),
    )
    if method == "bayesfuse":
        return _bayesfuse(rows, hits)
    if method == "posfuse":
        term = _posfuse(rows, hits)
    elif method == "probfuse":
        term = _probfuse(rows, hits, int(values["n_segments"]))
    elif method == "segfuse":
        term = _segfuse(rows, hits)
    elif method == "slidefuse":
        term = _slidefuse(rows, hits, int(values["w"]))
    else:
        term = _mapfuse(rows, hits, training.qrels, rel)
    return term.group_by(S.QUERY_ID, S.DOC_ID).agg(ordered_sum(pl.col(S.SCORE)))


def _hits(training: Training, rel: int) -> pl.LazyFrame:
    """The training rows of judged queries: ``run_id, query_id, __pos`` (0-based),
    ``__hit`` (1.0 relevant, else 0.0), ``__len`` (the ranking's length) and ``__nq`` (the
    run's training queries)."""
    qrels = training.qrels
    judged = qrels.select(S.QUERY_ID).unique()
    relevant = qrels.filter(pl.col(S.RELEVANCE) >= rel).select(
        S.QUERY_ID, S.DOC_ID, pl.lit(1.0).alias(_HIT)
    )
    return (
        training.rows.select(S.RUN_ID, S.QUERY_ID, S.DOC_ID, S.RANK)
        .join(judged, on=S.QUERY_ID, how="semi")
        .join(relevant, on=[S.QUERY_ID, S.DOC_ID], how="left")
        .select(
            S.RUN_ID,
            S.QUERY_ID,
            (pl.col(S.RANK).cast(pl.Int64) - 1).alias(_POS),
            pl.col(_HIT).fill_null(0.0),
            pl.len().over(S.RUN_ID, S.QUERY_ID).alias(_LEN),
            pl.col(S.QUERY_ID).n_unique().over(S.RUN_ID).alias(_NQ),
        )
    )


def _gated(rows: pl.LazyFrame, training: Training, method: str) -> pl.LazyFrame:
    """``rows``, refused (as part of the query, when it runs) if a training run has no
    judged query: it would learn nothing (ranx divides by zero)."""

    def check(found: pl.DataFrame) -> pl.DataFrame:
        empty = found.filter(~pl.col("judged")).sort(S.RUN_ID)
        if empty.height:
            row = empty.row(0, named=True)
            raise ParameterError(
                f"fuse: method={method!r} learns from the training queries that qrels= "
                f"judges; none of run {row[S.RUN_ID]!r}'s queries (e.g. {row['some']}) is in "
                "the qrels: pass the qrels of the training queries (and train_runs= when the "
                "runs to fuse are not the training runs)"
            )
        return pl.DataFrame({"__gate": [True]})

    judged = training.qrels.select(S.QUERY_ID).unique().with_columns(pl.lit(True).alias("__j"))
    found = (
        training.rows.select(S.RUN_ID, S.QUERY_ID)
        .unique()
        .join(judged, on=S.QUERY_ID, how="left")
        .group_by(S.RUN_ID)
        .agg(
            pl.col("__j").fill_null(False).any().alias("judged"),
            pl.col(S.QUERY_ID).sort().head(3).alias("some"),
        )
    )
    passed = found.map_batches(check, schema=pl.Schema({"__gate": pl.Boolean}))
    return rows.join(passed, how="cross").drop("__gate")


def _positional(rows: pl.LazyFrame, model: pl.LazyFrame, on: list[str]) -> pl.LazyFrame:
    return rows.join(model, on=on, how="left").with_columns(pl.col(_P).fill_null(0.0))


def _posfuse(rows: pl.LazyFrame, hits: pl.LazyFrame) -> pl.LazyFrame:
    model = hits.group_by(S.RUN_ID, _POS).agg(pl.col(_HIT).mean().alias(_P))
    return _positional(rows, model, [S.RUN_ID, _POS]).select(
        S.QUERY_ID, S.DOC_ID, pl.col(_P).alias(S.SCORE)
    )


def _probfuse(rows: pl.LazyFrame, hits: pl.LazyFrame, n_segments: int) -> pl.LazyFrame:
    def segment(length: pl.Expr) -> pl.Expr:
        size = (length + (n_segments - 1)) // n_segments  # ceil(length / n_segments)
        return (pl.col(_POS) // size).alias(_SEG)

    per_query = hits.group_by(S.RUN_ID, S.QUERY_ID, segment(pl.col(_LEN))).agg(
        pl.col(_HIT).mean(), pl.col(_NQ).first()
    )
    model = per_query.group_by(S.RUN_ID, _SEG).agg(
        (ordered_sum(pl.col(_HIT)) / pl.col(_NQ).first()).alias(_P)
    )
    scored = _positional(rows.with_columns(segment(pl.col(_LEN))), model, [S.RUN_ID, _SEG])
    score = pl.col(_P) / (pl.col(_SEG).cast(pl.Float64) + 1.0)
    return scored.select(S.QUERY_ID, S.DOC_ID, score.alias(S.SCORE))


def _segment_of(bounds: tuple[int, ...]) -> pl.Expr:
    """The segment of a 0-based position: how many of ``bounds`` it has reached."""
    return pl.sum_horizontal([(pl.col(_POS) >= b).cast(pl.Int64) for b in bounds]).alias(_SEG)


def _segfuse(rows: pl.LazyFrame, hits: pl.LazyFrame) -> pl.LazyFrame:
    n = len(SEGFUSE_BOUNDS)
    size = pl.lit(5.0) * pl.lit(2.0).pow(pl.col(_SEG).cast(pl.Float64))  # 5, 10, 20, ...
    model = (
        hits.with_columns(_segment_of(SEGFUSE_BOUNDS))
        .filter(pl.col(_SEG) < n)
        .group_by(S.RUN_ID, _SEG)
        .agg((pl.col(_HIT).sum() / (size.first() * pl.col(_NQ).first())).alias(_P))
    )
    scored = _positional(rows.with_columns(_segment_of(SEGFUSE_BOUNDS)), model, [S.RUN_ID, _SEG])
    return scored.select(
        S.QUERY_ID, S.DOC_ID, (pl.col(_P) * (pl.col(S.SCORE) + 1.0)).alias(S.SCORE)
    )


def _slidefuse(rows: pl.LazyFrame, hits: pl.LazyFrame, w: int) -> pl.LazyFrame:
    """posfuse's probabilities summed over the window by differences of their running sum
    (``__cum`` at the window's last position less at the position before its first)."""
    model = (
        hits.group_by(S.RUN_ID, _POS)
        .agg(pl.col(_HIT).mean().alias(_P))
        .with_columns(
            pl.col(_P).cum_sum().over(S.RUN_ID, order_by=_POS).alias("__cum"),
            pl.col(_POS).max().over(S.RUN_ID).alias("__last"),
        )
    )
    last = model.group_by(S.RUN_ID).agg(pl.col("__last").first())
    pos = pl.col(_POS)
    a = pl.max_horizontal(pos - w, pl.lit(0))
    b = pl.min_horizontal(pos + w, pl.col(_LEN) - 1)
    windowed = rows.join(last, on=S.RUN_ID, how="left").with_columns(
        pl.min_horizontal(b, pl.col("__last")).alias("__hi"),
        pl.min_horizontal(a - 1, pl.col("__last")).alias("__lo"),
        (b - a + 1).cast(pl.Float64).alias("__width"),
    )
    cum = model.select(S.RUN_ID, _POS, "__cum")
    for end in ("__hi", "__lo"):
        windowed = windowed.join(
            cum.rename({_POS: end, "__cum": f"{end}_cum"}), on=[S.RUN_ID, end], how="left"
        )
    total = pl.col("__hi_cum").fill_null(0.0) - pl.col("__lo_cum").fill_null(0.0)
    return windowed.select(S.QUERY_ID, S.DOC_ID, (total / pl.col("__width")).alias(S.SCORE))


def _bayesfuse(rows: pl.LazyFrame, hits: pl.LazyFrame) -> pl.LazyFrame:
    bounds = BAYES_CUT_OFFS[1:]
    sizes = {
        k: end - start for k, (start, end) in enumerate(zip(BAYES_CUT_OFFS, bounds, strict=False))
    }
    size = pl.col(_SEG).replace_strict(sizes, return_dtype=pl.Float64)
    precision = pl.col(_HIT).sum() / (size.first() * pl.col(_NQ).first())
    a = pl.col("__a")
    a = pl.when(a == 0.0).then(0.001).otherwise(a)
    not_a = pl.when(1.0 - a == 0.0).then(0.001).otherwise(1.0 - a)
    model = (
        hits.with_columns(_segment_of(bounds))
        .filter(pl.col(_SEG) < len(bounds))
        .group_by(S.RUN_ID, _SEG)
        .agg(precision.alias("__a"))
        .select(S.RUN_ID, _SEG, (a / not_a).log().alias(_P))
    )
    # every candidate of the query in every run that has the query
    docs = rows.select(S.QUERY_ID, S.DOC_ID).unique()
    grid = (
        rows.select(S.RUN_ID, S.QUERY_ID)
        .unique()
        .join(docs, on=S.QUERY_ID)
        .join(
            rows.select(S.RUN_ID, S.QUERY_ID, S.DOC_ID, _POS),
            on=[S.RUN_ID, S.QUERY_ID, S.DOC_ID],
            how="left",
        )
        .with_columns(_segment_of(bounds))
        .join(model, on=[S.RUN_ID, _SEG], how="left")
    )
    unknown = pl.col(_POS).is_null() | (pl.col(_SEG) >= len(bounds))
    odds = pl.when(unknown).then(MIN_ODD).otherwise(pl.col(_P).fill_null(MIN_ODD))
    return grid.group_by(S.QUERY_ID, S.DOC_ID).agg(ordered_sum(odds).alias(S.SCORE))


def _mapfuse(rows: pl.LazyFrame, hits: pl.LazyFrame, qrels: pl.LazyFrame, rel: int) -> pl.LazyFrame:
    n_relevant = (
        qrels.filter(pl.col(S.RELEVANCE) >= rel)
        .group_by(S.QUERY_ID)
        .agg(pl.len().cast(pl.Float64).alias("__R"))
    )
    found = pl.col(_HIT).cum_sum().over(S.RUN_ID, S.QUERY_ID, order_by=_POS)
    precision = found / (pl.col(_POS).cast(pl.Float64) + 1.0)
    ap = (
        hits.with_columns((pl.col(_HIT) * precision).alias("__prec"))
        .group_by(S.RUN_ID, S.QUERY_ID)
        .agg(ordered_sum(pl.col("__prec")))
        .join(n_relevant, on=S.QUERY_ID, how="left")
        .select(
            S.RUN_ID,
            pl.when(pl.col("__R") > 0)
            .then(pl.col("__prec") / pl.col("__R"))
            .otherwise(0.0)
            .alias("__ap"),
        )
    )
    mean = ordered_sum(pl.col("__ap")) / pl.len().cast(pl.Float64)
    weight = ap.group_by(S.RUN_ID).agg(mean.alias(_P))
    scored = rows.join(weight, on=S.RUN_ID, how="left").with_columns(pl.col(_P).fill_null(0.0))
    return scored.select(
        S.QUERY_ID, S.DOC_ID, (pl.col(_P) / (pl.col(_POS).cast(pl.Float64) + 1.0)).alias(S.SCORE)
    )
