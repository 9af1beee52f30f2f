"""Rank-biased precision (Moffat and Zobel, TOIS 2008) and its residual.

A user reads rank 1, then moves on from rank i to rank i + 1 with probability ``p``
(persistence), so rank i is seen with weight ``(1 - p) p^(i-1)``; the weights over an
infinite ranking sum to 1. Over the top ``d`` ranks evaluated (``d`` = min(k, number
retrieved)), with gain ``g_i`` in [0, 1] at rank i:

* ``RBP``        = (1 - p) Σ_{i <= d} g_i p^(i-1)  (unjudged documents gain 0);
* ``RBP_resid``  = (1 - p) Σ_{i <= d, i unjudged} p^(i-1) + p^d,

the score the unjudged documents of the top ``d`` and every rank beyond ``d`` could still
add if they all had the maximum gain 1. The true score lies in [RBP, RBP + RBP_resid].
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from polars_ireval.measures._expr import RANK, REL, Cutoff, ordered_sum, relevant, retrieved
from polars_ireval.registry import check, integer, measure, open_unit_interval, positive_int

Gains = Mapping[int, float] | None

_CITE = (
    "Moffat and Zobel, Rank-biased precision for measurement of retrieval effectiveness, TOIS 2008"
)


@check("it must map integer grades to gains in [0, 1], e.g. {0: 0, 1: 0.5, 2: 1}")
def unit_gain_map(v: Any) -> bool:
    return isinstance(v, Mapping) and all(
        integer(k) and isinstance(g, (int, float)) and not isinstance(g, bool) and 0 <= g <= 1
        for k, g in v.items()
    )


def rbp_weight(p: float) -> pl.Expr:
    """``(1 - p) p^(rank-1)``: the RBP weight of each ranked row (null when not ranked)."""
    return (1.0 - p) * pl.lit(float(p)).pow(RANK.cast(pl.Float64) - 1.0)


def rbp_gain(rel: int = 1, gains: Gains = None) -> pl.Expr:
    """Each row's RBP gain: ``gains[grade]`` (0 for grades not listed) when a gain map is
    given, else 1 for grade >= ``rel`` and 0 otherwise; unjudged documents gain 0."""
    if gains:
        return REL.replace_strict(
            list(gains), [float(v) for v in gains.values()], default=0.0, return_dtype=pl.Float64
        ).fill_null(0.0)
    return relevant(rel).cast(pl.Float64)


def rbp_depth(k: Cutoff = None) -> pl.Expr:
    """d: the number of ranks evaluated, min(k, number retrieved)."""
    return retrieved(k).sum()


_CHECKS = {"k": positive_int, "rel": integer, "p": open_unit_interval, "gains": unit_gain_map}


@measure("RBP", cite=_CITE, checks=_CHECKS)
def rbp(*, k: int | None = None, p: float = 0.8, rel: int = 1, gains: Gains = None) -> pl.Expr:
    """RBP@k: rank-biased precision, (1 - p) Σ_i g_i p^(i-1) over the top ``k`` ranks.

    The base (lower-bound) score of Moffat and Zobel: unjudged documents gain 0, and ranks
    beyond the ranking (or beyond ``k``) add nothing; see ``RBP_resid`` for how much they
    could add. Ties are ordered as for every measure (trec_eval's order by default), not
    averaged as rbp_eval does.

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
        Graded gain per grade, each in [0, 1], e.g. ``{0: 0, 1: 0.5, 2: 1}``; grades not
        listed and unjudged documents gain 0.

    See Also
    --------
    ir_measures ``RBP``, ``RBP(p=0.95)``, ``RBP(rel=2)@10``; rbp_eval's base score.
    """
    w = rbp_weight(p)
    keep = retrieved(k)
    return ordered_sum((rbp_gain(rel, gains) * w).filter(keep), RANK.filter(keep))


@measure(
    "RBP_resid",
    aliases=["RBPResidual"],
    cite=_CITE,
    checks={"k": positive_int, "p": open_unit_interval},
)
def rbp_resid(*, k: int | None = None, p: float = 0.8) -> pl.Expr:
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

    See Also
    --------
    rbp_eval's error term (``err``) for the same depth and persistence.
    """
    keep = retrieved(k) & REL.is_null()
    unjudged = ordered_sum(rbp_weight(p).filter(keep), RANK.filter(keep))
    return unjudged + pl.lit(float(p)).pow(rbp_depth(k).cast(pl.Float64))
