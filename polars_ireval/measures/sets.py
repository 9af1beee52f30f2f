"""Set measures: the retrieved documents taken as an unordered set."""

from __future__ import annotations

import polars as pl

from polars_ireval.measures._expr import num_rel, ratio, rel_ret, retrieved
from polars_ireval.registry import TrecName, integer, measure, non_negative, trec_float

_CHECKS = {"rel": integer}


@measure("SetP", trec=[TrecName("set_P")], checks=_CHECKS)
def set_precision(*, rel: int = 1) -> pl.Expr:
    """Set precision: relevant retrieved over retrieved (0 for an empty ranking).

    Parameters
    ----------
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``).

    See Also
    --------
    trec_eval ``set_P``; ir_measures ``SetP``.
    """
    return ratio(rel_ret(rel), retrieved().sum())


@measure("SetR", unjudged=False, trec=[TrecName("set_recall")], checks=_CHECKS)
def set_recall(*, rel: int = 1) -> pl.Expr:
    """Set recall: relevant retrieved over relevant (0 when R = 0).

    Parameters
    ----------
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``).

    See Also
    --------
    trec_eval ``set_recall``; ir_measures ``SetR``.
    """
    return ratio(rel_ret(rel), num_rel(rel))


@measure("set_relative_P", trec=[TrecName("set_relative_P")], checks=_CHECKS)
def set_relative_precision(*, rel: int = 1) -> pl.Expr:
    """Relative set precision: relevant retrieved over ``min(retrieved, R)``.

    Parameters
    ----------
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``).

    See Also
    --------
    trec_eval ``set_relative_P``.
    """
    return ratio(rel_ret(rel), pl.min_horizontal(retrieved().sum(), num_rel(rel)))


@measure("SetAP", trec=[TrecName("set_map")], checks=_CHECKS)
def set_map(*, rel: int = 1) -> pl.Expr:
    """Set AP: set precision times set recall (trec_eval's ``set_map``).

    Computed as trec_eval does, ``rel_ret² / (retrieved · R)`` in one division: the product
    of two rounded ratios can differ in the last bit and flip a printed 4th decimal
    (CAsT 2021 ``org_manual_bm25``, query 107_4 with ``-J``: 21/28 · 21/40).

    Parameters
    ----------
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``).

    See Also
    --------
    trec_eval ``set_map``.
    """
    found = rel_ret(rel).cast(pl.Float64)
    return ratio(found * found, retrieved().sum().cast(pl.Float64) * num_rel(rel))


@measure(
    "SetF",
    trec=[TrecName("set_F", "beta", (1.0,), "whole", convert=trec_float)],
    checks={"rel": integer, "beta": non_negative},
)
def set_f(*, beta: float = 1.0, rel: int = 1) -> pl.Expr:
    """Set F-measure: ``(1 + beta) P R / (beta P + R)`` of set precision and recall.

    This is trec_eval's ``set_F.x`` formula, which ir_measures' ``SetF(beta=x)`` passes on:
    ``beta`` weighs recall directly; it is not squared as in van Rijsbergen's F_β (for his
    F_β, pass ``beta=β**2``). 0 when both are 0.

    Parameters
    ----------
    beta
        Relative weight of recall (1: the harmonic mean of P and R).
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``).

    See Also
    --------
    trec_eval ``set_F``, ``set_F.0.5``; ir_measures ``SetF``, ``SetF(beta=0.5)``.
    """
    p = ratio(rel_ret(rel), retrieved().sum())
    r = ratio(rel_ret(rel), num_rel(rel))
    return ratio((1.0 + beta) * p * r, beta * p + r)
