"""Cutoff measures: precision, recall, success, relative precision, judged fraction."""

from __future__ import annotations

import polars as pl

from polars_ireval.measures._expr import (
    REL,
    exact_div,
    judged,
    num_rel,
    ratio,
    rel_ret,
    retrieved,
)
from polars_ireval.registry import TrecName, integer, measure, positive_int

#: trec_eval's default cutoffs for P, recall, ndcg_cut, map_cut, relative_P.
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_CHECKS = {"k": positive_int, "rel": integer}


@measure(
    "P",
    unjudged=False,
    aliases=["Precision"],
    cite="van Rijsbergen, Information Retrieval, 1979",
    trec=[TrecName("P", "k", CUTOFFS, "list")],
    checks=_CHECKS,
)
def precision(*, k: int, rel: int = 1) -> pl.Expr:
    """P@k: the fraction of the top ``k`` ranks holding a relevant document.

    A ranking shorter than ``k`` counts its missing ranks as non-relevant (the
    denominator is always ``k``), as trec_eval does.

    Parameters
    ----------
    k
        Cutoff rank.
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``).

    See Also
    --------
    trec_eval ``P.k`` (``P_10``); ir_measures ``P@10``, ``P(rel=2)@10``.
    """
    return exact_div(rel_ret(rel, k).cast(pl.Float64), k)


@measure(
    "R",
    unjudged=False,
    aliases=["Recall"],
    cite="van Rijsbergen, Information Retrieval, 1979",
    trec=[TrecName("recall", "k", CUTOFFS, "list")],
    checks=_CHECKS,
)
def recall(*, k: int, rel: int = 1) -> pl.Expr:
    """R@k: the fraction of the relevant documents found in the top ``k`` ranks.

    0 for a query with no relevant document.

    Parameters
    ----------
    k
        Cutoff rank.
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``).

    See Also
    --------
    trec_eval ``recall.k`` (``recall_1000``); ir_measures ``R@1000``.
    """
    return ratio(rel_ret(rel, k), num_rel(rel))


@measure(
    "Success", unjudged=False, trec=[TrecName("success", "k", (1, 5, 10), "list")], checks=_CHECKS
)
def success(*, k: int, rel: int = 1) -> pl.Expr:
    """Success@k: 1 if a relevant document is in the top ``k`` ranks, else 0.

    Parameters
    ----------
    k
        Cutoff rank.
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``).

    See Also
    --------
    trec_eval ``success.k`` (``success_10``); ir_measures ``Success@10``.
    """
    return (rel_ret(rel, k) > 0).cast(pl.Float64)


@measure(
    "relative_P",
    unjudged=False,
    trec=[TrecName("relative_P", "k", CUTOFFS, "list")],
    checks=_CHECKS,
)
def relative_precision(*, k: int, rel: int = 1) -> pl.Expr:
    """Relative precision at k: relevant documents in the top ``k`` over ``min(k, R)``.

    The best any ranking can reach is 1. 0 for a query with no relevant document.

    Parameters
    ----------
    k
        Cutoff rank.
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``).

    See Also
    --------
    trec_eval ``relative_P.k``.
    """
    return ratio(rel_ret(rel, k), pl.min_horizontal(pl.lit(k), num_rel(rel)))


@measure("Judged", checks={"k": positive_int})
def judged_at(*, k: int | None = None) -> pl.Expr:
    """Judged@k: the fraction of the top ``k`` ranks holding a judged document.

    The denominator is ``min(k, number retrieved)`` (ir_measures); 0 for an empty ranking.

    Parameters
    ----------
    k
        Cutoff rank (default: the whole ranking).

    See Also
    --------
    ir_measures ``Judged@10``.
    """
    return ratio((retrieved(k) & judged()).sum(), retrieved(k).sum())


@measure("Unjudged", trec=[TrecName("unj", "k", (5, 10, 20), "list")], checks={"k": positive_int})
def unjudged_at(*, k: int) -> pl.Expr:
    """Unjudged@k: the fraction of the top ``k`` ranks holding a document without a
    (non-negative) judgment; the denominator is always ``k`` (trec_eval 10's ``unj``).

    Parameters
    ----------
    k
        Cutoff rank.

    See Also
    --------
    trec_eval 10 ``unj.k`` (``unj_10``); the complement of ``Judged@k`` for full rankings.
    """
    return exact_div((retrieved(k) & ~(REL >= 0).fill_null(False)).sum().cast(pl.Float64), k)
