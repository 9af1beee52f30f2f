"""Recall-interpolated precision (IPrec, 11pt_avg), R-precision multiples, utility."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_ireval.measures._expr import (
    exact_div,
    num_rel,
    precision_at_relevant,
    rel_ret,
    relevant_ranks,
    retrieved,
)
from polars_ireval.registry import (
    TrecName,
    check,
    four_numbers,
    integer,
    measure,
    non_negative,
    trec_float,
    unit_interval,
)

ROUNDING = ("trec_eval9", "trec_eval10")
RECALL_POINTS = tuple(i / 10 for i in range(11))
R_MULTIPLES = tuple(i / 5 for i in range(1, 11))


@check("it must be 'trec_eval9' (trunc(x·R + 0.9)) or 'trec_eval10' (round half up)")
def rounding_kind(v: object) -> bool:
    return v in ROUNDING


@check("it must be a sequence of recall levels in [0, 1], e.g. (0.25, 0.5, 0.75)")
def recall_points(v: object) -> bool:
    return isinstance(v, tuple) and len(v) > 0 and all(unit_interval(x) for x in v)


def _needed(fraction: float, r: pl.Expr, rounding: str) -> pl.Expr:
    """How many relevant documents a recall (or R multiple) ``fraction`` asks for.

    trec_eval 9: ``(long) (fraction · R + 0.9)``; trec_eval 10: ``lround(fraction · R)``.
    """
    x = pl.lit(fraction, dtype=pl.Float64) * r.cast(pl.Float64)
    if rounding == "trec_eval9":
        return (x + 0.9).floor()
    whole = x.floor()  # lround; floor(x + 0.5) would misround x just below a half
    return whole + (x - whole >= 0.5).cast(pl.Float64)


def _iprec(fraction: float, rel: int, rounding: str) -> pl.Expr:
    # Interpolated precision: the best precision at or after the c-th relevant document.
    # Precision peaks at relevant ranks, so only those are scanned; c = 0 takes them all.
    ordinal = relevant_ranks(rel).rank("ordinal")
    needed = _needed(fraction, num_rel(rel), rounding)
    return precision_at_relevant(rel).filter(ordinal >= needed).max().fill_null(0.0)


@measure(
    "IPrec",
    unjudged=False,
    trec=[
        TrecName(
            "iprec_at_recall",
            "recall",
            RECALL_POINTS,
            "list",
            convert=trec_float,
            fmt=lambda v: f"{v:3.2f}",
        )
    ],
    cutoff="recall",
    checks={"recall": unit_interval, "rel": integer, "rounding": rounding_kind},
)
def iprec(*, recall: float, rel: int = 1, rounding: str = "trec_eval9") -> pl.Expr:
    """IPrec@x: interpolated precision at recall ``x``, the best precision at any rank
    where recall is at least ``x``.

    The recall level asks for c relevant documents: ``trunc(x·R + 0.9)`` in trec_eval 9
    (and pytrec_eval, ir_measures), ``round(x·R)`` in trec_eval 10 (``rounding``). 0 when
    fewer than c relevant documents are retrieved.

    Parameters
    ----------
    recall
        Recall level in [0, 1].
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``).
    rounding
        ``"trec_eval9"`` (default) or ``"trec_eval10"``.

    See Also
    --------
    trec_eval ``iprec_at_recall.x`` (``iprec_at_recall_0.10``); ir_measures ``IPrec@0.1``.
    """
    return _iprec(recall, rel, rounding)


@measure(
    "11pt_avg",
    unjudged=False,
    trec=[
        TrecName(
            "11pt_avg",
            "points",
            (RECALL_POINTS,),
            "whole",
            convert=lambda t: tuple(trec_float(x) for x in t.split(",")),
        )
    ],
    cutoff=None,
    checks={"points": recall_points, "rel": integer, "rounding": rounding_kind},
)
def eleven_point_average(
    *, points: Sequence[float] = RECALL_POINTS, rel: int = 1, rounding: str = "trec_eval9"
) -> pl.Expr:
    """11-point average precision: the mean of IPrec at recall 0.0, 0.1, ..., 1.0.

    Parameters
    ----------
    points
        The recall levels averaged (default the eleven levels 0.0 to 1.0).
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``).
    rounding
        ``"trec_eval9"`` (default) or ``"trec_eval10"``; see :func:`iprec`.

    See Also
    --------
    trec_eval ``11pt_avg``, ``11pt_avg..25,.5,.75``.
    """
    total: pl.Expr = pl.lit(0.0)
    for x in points:
        total = total + _iprec(x, rel, rounding)
    return exact_div(total, len(points))


@measure(
    "Rprec_mult",
    unjudged=False,
    trec=[
        TrecName(
            "Rprec_mult",
            "mult",
            R_MULTIPLES,
            "list",
            convert=trec_float,
            fmt=lambda v: f"{v:3.2f}",
        )
    ],
    cutoff=None,
    checks={"mult": non_negative, "rel": integer},
)
def rprec_mult(*, mult: float, rel: int = 1) -> pl.Expr:
    """Precision at rank ``mult · R`` (``trunc(mult·R + 0.9)``, as trec_eval 9 and 10).

    The denominator is that rank even when fewer documents are retrieved; 0 when it is 0.

    Parameters
    ----------
    mult
        Multiple of R giving the cutoff rank.
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``).

    See Also
    --------
    trec_eval ``Rprec_mult.x`` (``Rprec_mult_0.20``).
    """
    c = _needed(mult, num_rel(rel), "trec_eval9")
    return pl.when(c > 0).then(rel_ret(rel, c).cast(pl.Float64) / c).otherwise(0.0)


def _utility_params(text: str) -> tuple[Any, ...]:
    return tuple(trec_float(x) for x in text.split(","))


@measure(
    "utility",
    trec=[
        TrecName("utility", "weights", ((1.0, -1.0, 0.0, 0.0),), "whole", convert=_utility_params)
    ],
    cutoff=None,
    checks={"weights": four_numbers, "rel": integer, "num_docs": non_negative},
)
def utility(
    *,
    weights: tuple[float, float, float, float] = (1.0, -1.0, 0.0, 0.0),
    num_docs: int = 0,
    rel: int = 1,
) -> pl.Expr:
    """Linear utility: a·(relevant retrieved) + b·(non-relevant retrieved) +
    c·(relevant missed) + d·(non-relevant missed).

    Unjudged retrieved documents count as non-relevant. The last term needs the collection
    size (``num_docs``, trec_eval ``-N``; 0 by default as in trec_eval).

    Parameters
    ----------
    weights
        ``(a, b, c, d)``; default ``(1, -1, 0, 0)``.
    num_docs
        Number of documents in the collection.
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``).

    See Also
    --------
    trec_eval ``utility``, ``utility.2,-1,0,0``.
    """
    a, b, c, d = weights
    hit = rel_ret(rel).cast(pl.Float64)
    ret = retrieved().sum().cast(pl.Float64)
    r = num_rel(rel).cast(pl.Float64)
    return a * hit + b * (ret - hit) + c * (r - hit) + d * (num_docs + hit - ret - r)
