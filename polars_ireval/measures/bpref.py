"""Measures built for incomplete judgments: bpref, its geometric mean, inferred AP."""

from __future__ import annotations

import polars as pl

from polars_ireval.measures._expr import (
    RANK,
    REL,
    count_below,
    judged_nonrelevant,
    num_rel,
    ordered_sum,
    ratio,
    relevant_ranks,
    retrieved,
)
from polars_ireval.registry import TrecName, integer, measure

#: trec_eval's INFAP_EPSILON, which keeps infAP's pooled-relevance estimate defined.
INFAP_EPSILON = 0.00001


def _bpref(rel: int) -> pl.Expr:
    r = num_rel(rel)
    nonrel_total = judged_nonrelevant(rel).sum()
    rel_ranks = relevant_ranks(rel).sort()
    nonrel_ranks = RANK.filter(retrieved() & judged_nonrelevant(rel)).sort()
    above = count_below(nonrel_ranks, rel_ranks).cast(pl.Float64)
    penalty = pl.min_horizontal(above, r) / pl.min_horizontal(nonrel_total, r)
    term = pl.when(above > 0).then(1.0 - penalty).otherwise(1.0)
    return ratio(ordered_sum(term, rel_ranks), r)


@measure(
    "Bpref",
    unjudged=False,
    aliases=["BPref"],
    cite="Buckley and Voorhees, Retrieval evaluation with incomplete information, SIGIR 2004",
    trec=[TrecName("bpref")],
    cutoff=None,
    checks={"rel": integer},
)
def bpref(*, rel: int = 1) -> pl.Expr:
    """bpref: how rarely judged non-relevant documents rank above relevant ones.

    bpref = (1/R) Σ over relevant retrieved d of 1 − min(n_d, R) / min(N, R), where n_d is
    the number of judged non-relevant documents (grade in ``[0, rel)``) ranked above d and
    N the number judged non-relevant for the query; a term is 1 when n_d = 0. Unjudged
    documents, and documents with a negative grade, are ignored. 0 when R = 0.

    Parameters
    ----------
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``).

    See Also
    --------
    trec_eval ``bpref``; ir_measures ``Bpref``.
    """
    return _bpref(rel)


@measure(
    "gm_bpref",
    unjudged=False,
    aggregate="gmean",
    trec=[TrecName("gm_bpref")],
    cutoff=None,
    checks={"rel": integer},
)
def gm_bpref(*, rel: int = 1) -> pl.Expr:
    """bpref per query, aggregated by the geometric mean (floor 1e-5, as trec_eval).

    Parameters
    ----------
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``).

    See Also
    --------
    trec_eval ``gm_bpref``.
    """
    return _bpref(rel)


@measure(
    "infAP",
    unjudged=False,
    cite="Yilmaz and Aslam, Estimating average precision with incomplete and imperfect "
    "judgments, CIKM 2006",
    trec=[TrecName("infAP")],
    cutoff=None,
    checks={"rel": integer},
)
def inf_ap(*, rel: int = 1) -> pl.Expr:
    """infAP: average precision estimated from a sample of judgments (Yilmaz and Aslam).

    For the relevant retrieved document at rank i (i > 1) the expected precision is
    1/i + ((i−1)/i) · (p/(i−1)) · ((r + ε)/(r + n + 2ε)), where among the i−1 documents
    above it p are in the pool (in the qrels, any grade), r relevant and n judged
    non-relevant; documents with a negative grade are pooled but unjudged. The first rank
    contributes 1. The sum is divided by R (0 when R = 0); ε = 1e-5. With complete
    judgments infAP equals AP (up to ε).

    Parameters
    ----------
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``).

    See Also
    --------
    trec_eval ``infAP``; ir_measures ``infAP``.
    """
    rel_ranks = relevant_ranks(rel).sort()
    pooled = RANK.filter(retrieved() & REL.is_not_null()).sort()
    nonrel = RANK.filter(retrieved() & judged_nonrelevant(rel)).sort()
    i = rel_ranks.cast(pl.Float64)
    j = i - 1.0  # documents above
    r = rel_ranks.rank("ordinal").cast(pl.Float64) - 1.0  # relevant documents above
    n = count_below(nonrel, rel_ranks).cast(pl.Float64)
    p = count_below(pooled, rel_ranks).cast(pl.Float64)
    estimate = 1.0 / i + (j / i) * (p / j) * ((r + INFAP_EPSILON) / (r + n + 2 * INFAP_EPSILON))
    term = pl.when(j == 0).then(1.0).otherwise(estimate)
    return ratio(ordered_sum(term, rel_ranks), num_rel(rel))
