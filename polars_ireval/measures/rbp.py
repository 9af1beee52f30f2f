"""Rank-biased precision (Moffat and Zobel, TOIS 2008) and its residual.

A user reads rank 1, then moves on from rank i to rank i + 1 with probability ``p``
(persistence), so rank i is seen with weight ``(1 - p) p^(i-1)``; the weights over an
infinite ranking sum to 1. Over the top ``d`` ranks evaluated (``d`` = min(k, number
retrieved)), with gain ``g_i`` in [0, 1] at rank i:

* ``RBP``        = (1 - p) Σ_{i <= d} g_i p^(i-1)  (unjudged documents gain 0);
* ``RBP_resid``  = (1 - p) Σ_{i <= d, i unjudged} p^(i-1) + p^d,

the score the unjudged documents of the top ``d`` and every rank beyond ``d`` could still
add if they all had the maximum gain 1. The true score lies in [RBP, RBP + RBP_resid].

RBP is the user model of :mod:`.usermodel` with the infinite weight vector
W(i) = (1 - p) p^(i-1) (tail p^d); ``RBP_resid`` is that model's residual, which
``evaluate(..., residuals=True)`` also reports beside ``RBP``. With ``ties="average"``,
documents with equal scores share the mean weight of the positions they span, as rbp_eval
does.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Literal

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval.errors import ParameterError
from polars_ireval.measures._expr import (
    RANK,
    Cutoff,
    ordered_sum,
    retrieved,
    tie_span_end,
    top_rank,
    unit_residual,
)
from polars_ireval.measures.depth import DepthPlan
from polars_ireval.measures.usermodel import (
    MODELS,
    Gains,
    Position,
    Scored,
    UserModel,
    unit_gain,
)
from polars_ireval.registry import (
    LOWEST_GRADE,
    SqlCall,
    SqlSpec,
    check,
    grade_ordered,
    measure,
    open_unit_interval,
    positive_int,
    relevant_grade,
    unit_gain_map,
)

RbpTies = Literal["rank", "average"]

_CITE = (
    "Moffat and Zobel, Rank-biased precision for measurement of retrieval effectiveness, TOIS 2008"
)


@check("it must be 'rank' (each document its rank's weight) or 'average' (rbp_eval)")
def rbp_ties(v: object) -> bool:
    return v in ("rank", "average")


def rbp_model(p: float, k: Cutoff = None) -> UserModel:
    """RBP's user model: W(i) = (1 - p) p^(i-1) over the top ``k`` ranks, tail p^d."""

    def w(pos: Position) -> pl.Expr:
        return (1.0 - p) * pl.lit(float(p)).pow(pos.i - 1.0)

    return UserModel(weight=w, depth=None, cutoff=k, tail=lambda d: pl.lit(float(p)).pow(d))


def rbp_depth(k: Cutoff = None) -> pl.Expr:
    """d: the number of ranks evaluated, min(k, number retrieved)."""
    return retrieved(k).sum()


def _tie_weight(p: float, k: Cutoff) -> pl.Expr:
    """rbp_eval's weight of each retrieved row (in rank order): the mean weight of the
    positions its score tie spans, times the fraction of the tie within the top ``k``."""
    keep = retrieved()
    neg = -pl.col(S.SCORE).filter(keep).sort_by(RANK.filter(keep))
    # the rows scored above each row's tie, and those at or above it (-0.0 ties 0.0):
    # ranks of equal values, cheaper per ranking than searching the sorted scores twice
    start = (neg.rank("min") - 1).cast(pl.Float64)
    end = neg.rank("max").cast(pl.Float64)
    size = end - start
    pp = pl.lit(float(p))
    mean = (pp.pow(start) - pp.pow(end)) / size
    if k is None:
        return mean
    inside = (pl.min_horizontal(end, pl.lit(k).cast(pl.Float64)) - start).clip(lower_bound=0.0)
    return mean * inside / size


def _ranked(expr: pl.Expr) -> pl.Expr:
    """``expr`` over the retrieved rows, in rank order (to line up with :func:`_tie_weight`)."""
    keep = retrieved()
    return expr.filter(keep).sort_by(RANK.filter(keep))


_CHECKS = {
    "k": positive_int,
    "rel": relevant_grade,
    "p": open_unit_interval,
    "gains": unit_gain_map,
    "ties": rbp_ties,
}


def rbp_residual(
    *, k: int | None = None, p: float = 0.8, ties: RbpTies = "rank", **_: object
) -> pl.Expr:
    """RBP's residual (the value of ``RBP_resid`` with the same parameters)."""
    return rbp_resid(k=k, p=p, ties=ties)


def rbp_residual_sql(args: dict[str, Any]) -> SqlSpec:
    """RBP's residual: ``ireval_rbp_resid`` with the same depth, persistence and ties."""
    return SqlCall("ireval_rbp_resid", {n: args[n] for n in ("k", "p", "ties")})


def _averages_ties(params: Mapping[str, Any]) -> bool:
    """Averaging weights over tied scores looks at every tied document, judged or not."""
    return bool(params.get("ties") == "average")


def _rbp_tie_weight(p: float, keep: pl.Expr, k: int | None) -> pl.Expr:
    """For each row ``keep``: the mean RBP weight of the ranks its tie spans within the top
    ``k``, over the tie's size: Σ_{i=s}^{e} (1 - p) p^(i-1) / m = (p^(s-1) - p^e) / m."""
    start, last, size = tie_span_end(keep, k)
    # p^x as exp(x ln p): Polars' pow of a literal gives another last bit for a group of
    # one row than for longer ones, and the value must not depend on how rows are grouped
    log_p = math.log(p)
    return (((start - 1.0) * log_p).exp() - (last * log_p).exp()) / size


def _refuse_cut_average(name: str, depth: int | None) -> None:
    if depth is not None:
        raise ParameterError(
            f"{name}(ties='average') with max_depth under evaluate(ties='average'): the "
            "measure's own tie weights over a tie that max_depth cuts are not averaged; "
            f"use {name}(ties='rank') (its expected value is exact) or drop max_depth"
        )


def _rbp_average(
    *,
    k: int | None = None,
    p: float = 0.8,
    rel: int = 1,
    gains: Gains = None,
    ties: RbpTies = "rank",
    depth: int | None = None,
) -> pl.Expr:
    """E[RBP] over tie orders: each gain times the mean weight of its tie's ranks (exact
    when ``k`` cuts a tie, where rbp_eval's weights count the tie's mean weight times the
    fraction inside). ``ties="average"`` is that measure, the same under every order."""
    if ties == "average":
        _refuse_cut_average("RBP", depth)
        return rbp(k=k, p=p, rel=rel, gains=gains, ties=ties)
    gain = unit_gain(rel, gains).fill_null(0.0)
    keep = retrieved() & (gain != 0.0)
    top = top_rank(k, depth)
    terms = gain.filter(keep) * _rbp_tie_weight(p, keep, top)
    return ordered_sum(terms, RANK.filter(keep))


def _rbp_resid_average(
    *, k: int | None = None, p: float = 0.8, ties: RbpTies = "rank", depth: int | None = None
) -> pl.Expr:
    if ties == "average":
        _refuse_cut_average("RBP_resid", depth)
        return rbp_resid(k=k, p=p, ties=ties)
    keep = retrieved() & pl.col(S.RELEVANCE).is_null()
    top = top_rank(k, depth)
    unjudged = ordered_sum(_rbp_tie_weight(p, keep, top), RANK.filter(keep))
    tail = (rbp_depth(top).cast(pl.Float64) * math.log(p)).exp()  # p^d (see _rbp_tie_weight)
    return unit_residual(unjudged + tail, retrieved() & pl.col(S.RELEVANCE).is_not_null())


def judged_rbp(params: dict[str, Any]) -> dict[str, Any] | None:
    """RBP's parameters that score the weight of its judged ranks (every judged document a
    gain of 1, unjudged 0): 1 - ``RBP_resid`` (see :attr:`MeasureDef.judged`); None for
    ``ties='average'``, whose residual weighs a tie cut by k otherwise."""
    if params.get("ties") == "average":
        return None
    return {**params, "rel": LOWEST_GRADE, "gains": None}


def rbp_at_depths(args: dict[str, Any]) -> Any:
    """RBP@k and its residual at every depth (ties ranked, not averaged): the running sum of
    gain x weight, and of the unjudged ranks' weights plus p^min(k, n)."""
    if args["ties"] != "rank":
        return None

    def fill(plan: DepthPlan) -> None:
        p = args["p"]
        weight = rbp_model(p).static_weight()  # (1 - p) p^(rank - 1), what RBP sums
        gain = unit_gain(args["rel"], args["gains"])
        plan.value = plan.event("base", plan.running((gain.fill_null(0.0) * weight).cum_sum()))
        unjudged = pl.when(gain.is_null()).then(weight).otherwise(0.0)
        seen = plan.event("unjudged", plan.running(unjudged.cum_sum()))
        judged = plan.event("judged", plan.running(gain.is_not_null().cum_sum()), zero=0)
        n = plan.ranking("n", pl.len()).fill_null(0)
        depth = pl.min_horizontal(plan.k, n).cast(pl.Float64)
        total = seen + pl.lit(float(p)).pow(depth)  # as measures._expr.unit_residual
        plan.residual = pl.when(judged > 0).then(total.clip(upper_bound=1.0)).otherwise(1.0)

    return fill


@measure(
    "RBP",
    depth=rbp_at_depths,
    tie_bounds=grade_ordered,
    average=_rbp_average,
    sql="ireval_rbp",
    sql_residual=rbp_residual_sql,
    qrels_stats=True,
    unjudged=_averages_ties,
    cite=_CITE,
    checks=_CHECKS,
    residual=rbp_residual,
    judged=judged_rbp,
)
def rbp(
    *,
    k: int | None = None,
    p: float = 0.8,
    rel: int = 1,
    gains: Gains = None,
    ties: RbpTies = "rank",
) -> pl.Expr:
    """RBP@k: rank-biased precision, (1 - p) Σ_i g_i p^(i-1) over the top ``k`` ranks.

    The base (lower-bound) score of Moffat and Zobel: unjudged documents gain 0, and ranks
    beyond the ranking (or beyond ``k``) add nothing; the residual (``RBP_resid``, or
    ``evaluate(..., residuals=True)``) says how much they could add. User model: after each
    document the user reads on with probability ``p``, so she reads 1 / (1 - p) documents
    on average.

    Parameters
    ----------
    k
        Cutoff rank (default: the whole ranking).
    p
        Persistence, in (0, 1): the probability of reading on to the next rank (default
        0.8, as ir_measures).
    rel
        Minimum grade with gain 1 (binary gain; default: the evaluation's
        ``relevance_level``). Ignored when ``gains`` is given.
    gains
        Graded gain per grade, each in [0, 1], e.g. seed 004's
        ``{0: 0, 1: 0.1, 2: 0.3, 3: 0.7, 4: 1}``; grades not listed and unjudged documents
        gain 0.
    ties
        ``"rank"`` (default): each document has the weight of its rank (ties ordered as
        for every measure, trec_eval's order by default). ``"average"``: documents with
        equal scores share the mean weight of the ranks they span, and a tie cut by ``k``
        counts for the fraction inside (rbp_eval).

    See Also
    --------
    ir_measures ``RBP``, ``RBP(p=0.95)``, ``RBP(rel=2)@10``; rbp_eval's base score
    (``RBP(ties='average')``); cwl_eval's ``RBPCWLMetric`` (normalized over 1000 ranks).

    Examples
    --------
    Seed 002's example: judgments 0,1,1,0,0,1,?,0,0,1 (the 7th unjudged), p = 0.8.

    >>> import polars as pl, polars_ireval as ir
    >>> grades = [0, 1, 1, 0, 0, 1, None, 0, 0, 1]
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": [f"d{i}" for i in range(10)],
    ...                     "score": [10.0 - i for i in range(10)]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": [f"d{i}" for i in range(10)],
    ...                       "relevance": grades}).drop_nulls()
    >>> out = ir.evaluate(run, qrels, ["RBP"], residuals=True)
    >>> out.with_columns(pl.exclude("measure").round(3))
    shape: (1, 4)
    ┌─────────┬───────┬──────────┬───────────┐
    │ measure ┆ value ┆ residual ┆ projected │
    │ ---     ┆ ---   ┆ ---      ┆ ---       │
    │ str     ┆ f64   ┆ f64      ┆ f64       │
    ╞═════════╪═══════╪══════════╪═══════════╡
    │ RBP     ┆ 0.38  ┆ 0.16     ┆ 0.453     │
    └─────────┴───────┴──────────┴───────────┘
    """
    gain = unit_gain(rel, gains).fill_null(0.0)
    if ties == "average":
        return ordered_sum(_ranked(gain) * _tie_weight(p, k), _ranked(RANK))
    return rbp_model(p, k).base(gain)


@measure(
    "RBP_resid",
    tie_bounds=True,
    average=_rbp_resid_average,
    sql="ireval_rbp_resid",
    aliases=["RBPResidual"],
    cite=_CITE,
    checks={"k": positive_int, "p": open_unit_interval, "ties": rbp_ties},
)
def rbp_resid(*, k: int | None = None, p: float = 0.8, ties: RbpTies = "rank") -> pl.Expr:
    """RBP residual@k: how much RBP@k could still grow with more judgments and ranks,
    (1 - p) Σ_{unjudged i <= d} p^(i-1) + p^d, d = min(k, number retrieved).

    An unjudged document (absent from the qrels) in the top ``d`` ranks counts with the
    maximum gain 1; the ranks past ``d`` add at most Σ_{i > d} (1 - p) p^(i-1) = p^d. A
    judged document, whatever its grade, adds nothing. RBP + RBP_resid is the upper bound;
    for an empty ranking the residual is 1.

    Parameters
    ----------
    k
        Cutoff rank (default: the whole ranking).
    p
        Persistence, in (0, 1) (default 0.8).
    ties
        ``"rank"`` (default) or ``"average"`` (rbp_eval's tie weights), as for ``RBP``.

    See Also
    --------
    rbp_eval's error term (``err``) for the same depth and persistence.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a"], "relevance": [1]})
    >>> ir.evaluate(run, qrels, ["RBP(p=0.5)", "RBP_resid(p=0.5)"])
    shape: (2, 2)
    ┌──────────────────┬───────┐
    │ measure          ┆ value │
    │ ---              ┆ ---   │
    │ str              ┆ f64   │
    ╞══════════════════╪═══════╡
    │ RBP(p=0.5)       ┆ 0.5   │
    │ RBP_resid(p=0.5) ┆ 0.5   │
    └──────────────────┴───────┘
    """
    if ties == "average":
        unjudged = pl.col(S.RELEVANCE).is_null()
        err = ordered_sum(_ranked(unjudged.cast(pl.Float64)) * _tie_weight(p, k), _ranked(RANK))
        # rbp_eval's tie weights cut at k leave part of a tie's weight out: its residual
        # with nothing judged is below 1 (0.875 for two tied documents at k = 1, p = 0.5)
        total = err + pl.lit(float(p)).pow(rbp_depth(k).cast(pl.Float64))
        return total.clip(upper_bound=1.0)
    return rbp_model(p, k).residual(pl.col(S.RELEVANCE).cast(pl.Float64) * 0.0)


def _rbp_scored(
    *, k: int | None = None, p: float = 0.8, rel: int = 1, gains: Gains = None, **_: object
) -> Scored:
    return Scored(rbp_model(p, k), unit_gain(rel, gains))


MODELS["RBP"] = _rbp_scored
