"""Utility measures over graded relevance in [0, 1] (Moffat, seed 004): HIT and the
inverse-squares weighted precision.

The utility r of a judged document is ``gains[grade]`` when a map is given (grades not
listed: 0), else its grade clipped to [0, max_rel] and divided by ``max_rel``; unjudged
documents have utility 0.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from polars_ireval.measures._expr import (
    RANK,
    REL,
    exact_div,
    ordered_sum,
    retrieved,
    tie_span_end,
    top_rank,
    unit_residual,
)
from polars_ireval.registry import grade_ordered, measure, positive_int, utility_map

Utilities = Mapping[int, float] | None

_CITE = "Moffat, Seven numeric properties of effectiveness metrics, AIRS 2013"


def unit_utility(max_rel: int = 1, gains: Utilities = None) -> pl.Expr:
    """Each row's utility r in [0, 1] (see the module docstring)."""
    if gains:
        return REL.replace_strict(
            list(gains), [float(v) for v in gains.values()], default=0.0, return_dtype=pl.Float64
        ).fill_null(0.0)
    return exact_div(REL.clip(0, max_rel).cast(pl.Float64), max_rel).fill_null(0.0)


_CHECKS = {"k": positive_int, "max_rel": positive_int, "gains": utility_map}


@measure(
    "HIT",
    tie_bounds=grade_ordered,
    sql="ireval_hit",
    qrels_stats=True,
    unjudged=False,
    cite=_CITE,
    checks=_CHECKS,
)
def hit(*, k: int | None = None, max_rel: int = 1, gains: Utilities = None) -> pl.Expr:
    """HIT@k: the best utility in the top ``k``, max_{i <= k} r_i (0 for none).

    The user is fully satisfied by any one good answer among the first ``k`` (factoid
    questions, named pages). Bounded, monotone, realizable; not convergent nor
    top-weighted (seed 004, Table 2).

    Parameters
    ----------
    k
        Cutoff rank (default: the whole ranking).
    max_rel
        The grade with utility 1; lower grades scale linearly (default 1: binary).
    gains
        Utility per grade in [0, 1], e.g. ``{1: 0.3, 2: 0.7, 3: 1}``, instead.

    See Also
    --------
    Success@k (binary HIT).

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"],
    ...                     "score": [3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["b", "c"], "relevance": [1, 3]})
    >>> ir.evaluate(run, qrels, ["HIT(max_rel=3)@2", "HIT(max_rel=3)@3"])["value"].to_list()
    [0.3333333333333333, 1.0]
    """
    return unit_utility(max_rel, gains).filter(retrieved(k)).max().fill_null(0.0)


def _inv_sq_residual(*, k: int | None = None, max_rel: int = 1, gains: Utilities = None) -> pl.Expr:
    """InvSq@k's residual, as RBP@k's (seed 004 counts InvSq among the RBP-like measures):
    the weight of the unjudged documents in the top d = min(k, n retrieved) plus the weight
    of every rank past d, Σ_{i > d} 1/(i(i+1)) = 1/(d+1). The cutoff is how deep the
    ranking is read, not a truncation of the user model."""
    keep = retrieved(k) & REL.is_null()
    i = RANK.cast(pl.Float64)
    unjudged = ordered_sum((1.0 / (i * (i + 1.0))).filter(keep), RANK.filter(keep))
    d = retrieved(k).sum().cast(pl.Float64)
    return unit_residual(unjudged + 1.0 / (d + 1.0), retrieved(k) & REL.is_not_null())


def _inv_sq_average(
    *, k: int | None = None, max_rel: int = 1, gains: Utilities = None, depth: int | None = None
) -> pl.Expr:
    """E[InvSq] over tie orders: each utility times the mean of 1 / (i (i + 1)) over its
    tie's ranks."""
    u = unit_utility(max_rel, gains)
    keep = retrieved() & (u != 0.0)
    top = top_rank(k, depth)

    # Σ_{i=s}^{e} 1 / (i (i + 1)) = 1/s - 1/(e + 1), over the tie's size
    start, last, size = tie_span_end(keep, top)
    weight = (1.0 / start - 1.0 / (last + 1.0)) / size
    return ordered_sum(u.filter(keep) * weight, RANK.filter(keep))


@measure(
    "InvSq",
    tie_bounds=grade_ordered,
    average=_inv_sq_average,
    sql="ireval_invsq",
    sql_residual="residual",
    qrels_stats=True,
    unjudged=False,
    cite=_CITE,
    checks=_CHECKS,
    residual=_inv_sq_residual,
)
def inv_sq(*, k: int | None = None, max_rel: int = 1, gains: Utilities = None) -> pl.Expr:
    """InvSq@k: inverse-squares weighted precision, Σ_{i <= k} r_i / (i (i + 1)).

    A weighted precision like RBP whose weights w_i = 1/(i(i+1)) sum to 1 over an infinite
    ranking (Moffat et al., CIKM 2013; seed 004): the user reads rank i and stops there with
    probability w_i, a heavier tail than RBP's geometric one. Bounded in [0, 1], monotone;
    1 only for an infinite ranking of utility 1. Its residual (``evaluate(...,
    residuals=True)``) is, as RBP@k's, the weight of the unjudged documents in the top
    d = min(k, n retrieved) plus that of every rank past d, 1/(d+1): value + residual
    bounds the InvSq of any extension of the ranking, with or without a cutoff.

    Parameters
    ----------
    k
        Cutoff rank (default: the whole ranking).
    max_rel
        The grade with utility 1; lower grades scale linearly (default 1: binary).
    gains
        Utility per grade in [0, 1] instead.

    See Also
    --------
    RBP; cwl_eval's INSQ and INST (adaptive variants).

    Examples
    --------
    Relevant at ranks 1 and 3: 1/2 + 1/12.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"],
    ...                     "score": [3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "c"], "relevance": [1, 1]})
    >>> ir.evaluate(run, qrels, "InvSq")["value"][0]
    0.5833333333333334
    """
    keep = retrieved(k)
    i = RANK.cast(pl.Float64)
    terms = (unit_utility(max_rel, gains) / (i * (i + 1.0))).filter(keep)
    return ordered_sum(terms, RANK.filter(keep))
