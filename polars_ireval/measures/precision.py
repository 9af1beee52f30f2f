"""Cutoff measures: precision, recall, success, relative precision, judged fraction."""

from __future__ import annotations

from typing import Any

import polars as pl

from polars_ireval.measures._expr import (
    REL,
    TIE_SIZE,
    TIE_START,
    cut,
    exact_div,
    expected_count,
    judged,
    num_rel,
    ratio,
    rel_ret,
    relevant,
    retrieved,
    top_rank,
)
from polars_ireval.measures.depth import DepthPlan, ratio_by_row
from polars_ireval.registry import TrecName, measure, positive_int, relevant_grade

#: trec_eval's default cutoffs for P, recall, ndcg_cut, map_cut, relative_P.
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_CHECKS = {"k": positive_int, "rel": relevant_grade}


def found_at_depth(plan: DepthPlan, rel: int) -> pl.Expr:
    """The relevant documents in the top k, at every depth k (an integer)."""
    return plan.event("found", plan.running(relevant(rel).cast(pl.UInt32).cum_sum()), zero=0)


def precision_depth(args: dict[str, Any]) -> Any:
    """P@k at every depth: the relevant documents found down to k, over k."""

    def fill(plan: DepthPlan) -> None:
        found = found_at_depth(plan, args["rel"])
        plan.value = found.cast(pl.Float64) / plan.k.cast(pl.Float64)

    return fill


def recall_depth(args: dict[str, Any]) -> Any:
    """R@k at every depth: the relevant documents found down to k, over R."""

    def fill(plan: DepthPlan) -> None:
        found = found_at_depth(plan, args["rel"])
        plan.value = ratio_by_row(found, plan.query("R", num_rel(args["rel"])))

    return fill


# ties="average": the expected value over every order of the tied documents (the measures
# below count documents in the top k, so each counts with the probability of landing there)


def _precision_average(*, k: int, rel: int = 1, depth: int | None = None) -> pl.Expr:
    return exact_div(expected_count(relevant(rel), cut(k, depth)), k)


def _recall_average(*, k: int, rel: int = 1, depth: int | None = None) -> pl.Expr:
    return ratio(expected_count(relevant(rel), cut(k, depth)), num_rel(rel))


def _relative_precision_average(*, k: int, rel: int = 1, depth: int | None = None) -> pl.Expr:
    found = expected_count(relevant(rel), cut(k, depth))
    return ratio(found, pl.min_horizontal(pl.lit(k), num_rel(rel)))


def _success_average(*, k: int, rel: int = 1, depth: int | None = None) -> pl.Expr:
    """1 if a relevant document's tie lies wholly in the top k; else 1 - the probability
    that the j places of the tie cut by k hold none of its r relevant documents among its
    m: C(m - r, j) / C(m, j) = Π_{i < j} (m - r - i) / (m - i) (hypergeometric)."""
    top = top_rank(k, depth)
    assert top is not None
    start, size = pl.col(TIE_START), pl.col(TIE_SIZE)
    last = start + size - 1.0
    is_rel = relevant(rel)
    whole = (retrieved() & (last <= top)).fill_null(False)
    split = (retrieved() & (start <= top) & (last > top)).fill_null(False)
    r = (split & is_rel).sum().cast(pl.Float64)
    m = size.filter(split).first().fill_null(1.0)
    j = (top + 1.0 - start).filter(split).first().fill_null(0.0)
    i = pl.int_range(0, j.cast(pl.Int64), dtype=pl.Int64).cast(pl.Float64)
    # multiplied one after the other (i ascending), 1 for no factor
    none = ((m - r - i).clip(lower_bound=0.0) / (m - i)).cum_prod().last().fill_null(1.0)
    return pl.when((whole & is_rel).any()).then(1.0).otherwise(1.0 - none)


def _judged_average(*, k: int | None = None, depth: int | None = None) -> pl.Expr:
    top = cut(k, depth)
    return ratio(expected_count(retrieved() & judged(), top), retrieved(top).sum())


def _unjudged_average(*, k: int, depth: int | None = None) -> pl.Expr:
    unjudged = retrieved() & ~(REL >= 0).fill_null(False)
    return exact_div(expected_count(unjudged, cut(k, depth)), k)


@measure(
    "P",
    depth=precision_depth,
    tie_bounds=True,
    average=_precision_average,
    sql="ireval_p",
    qrels_stats=True,
    unjudged=False,
    aliases=["Precision"],
    cite="van Rijsbergen, Information Retrieval, 2nd ed., Butterworths, 1979, ch. 7",
    trec=[TrecName("P", "k", CUTOFFS, "list")],
    checks=_CHECKS,
)
def precision(*, k: int, rel: int = 1) -> pl.Expr:
    """P@k: the fraction of the top ``k`` ranks holding a relevant document.

    P@k = (1/k) Σ_{i <= k} b_i, where b_i is 1 when the document at rank i has a grade
    >= ``rel`` and 0 otherwise (unjudged documents and negative grades are not relevant).
    The user reads exactly the top ``k`` and counts the relevant documents per document
    read. P@k needs no R, so it is defined when the query has no relevant document (0
    then), but it does not average well: a perfect ranking scores min(k, R)/k, below 1
    whenever R < k (seed 004: bounded, not realizable, not monotone in k).

    A ranking shorter than ``k`` counts its missing ranks as non-relevant: the
    denominator is always ``k`` (trec_eval: 15 documents retrieved, 4 of them relevant,
    give P@20 = 4/20). An empty ranking scores 0. Documents with equal scores are ranked
    as trec_eval ranks them (doc id descending; ``ties`` of :func:`polars_ireval.evaluate`),
    which decides which of them fall inside the cutoff. trec_eval, pytrec_eval,
    ir_measures and ranx (``precision@k``) all divide by ``k``; ``SetP`` with
    ``max_depth=k`` (trec_eval ``-M k -m set_P``) divides by the number retrieved instead.
    The residual (``residuals=True``) is the share of the top ``k`` that is unjudged or
    past the end of the ranking.

    Parameters
    ----------
    k
        Cutoff rank, a positive integer (required; trec_eval's default list is 5, 10, 15,
        20, 30, 100, 200, 500, 1000).
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``,
        1 unless set; trec_eval ``-l``).

    See Also
    --------
    trec_eval ``P.k`` (``P_10``); ir_measures ``P@10``, ``P(rel=2)@10``; ranx
    ``precision@10``; SQL ``ireval_p``; SetP, relative_P, Rprec.

    Examples
    --------
    Seed 003: with 8 relevant documents even a perfect system has P@20 = 8/20 = 0.4 (its
    ranking of the 8 is filled up with non-relevant ranks), while its R-precision is 1.

    >>> import polars as pl, polars_ireval as ir
    >>> docs = [f"d{i}" for i in range(1, 9)]
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": docs,
    ...                     "score": [8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": docs, "relevance": 1})
    >>> ir.evaluate(run, qrels, ["P@5", "P@20", "Rprec"])["value"].to_list()
    [1.0, 0.4, 1.0]
    """
    return exact_div(rel_ret(rel, k).cast(pl.Float64), k)


@measure(
    "R",
    depth=recall_depth,
    tie_bounds=True,
    average=_recall_average,
    by_r=True,
    sql="ireval_recall",
    qrels_stats=True,
    unjudged=False,
    aliases=["Recall"],
    cite="van Rijsbergen, Information Retrieval, 2nd ed., Butterworths, 1979, ch. 7",
    trec=[TrecName("recall", "k", CUTOFFS, "list")],
    checks=_CHECKS,
)
def recall(*, k: int, rel: int = 1) -> pl.Expr:
    """R@k: the fraction of the relevant documents found in the top ``k`` ranks.

    R@k = (1/R) Σ_{i <= k} b_i = (k/R) · P@k, where R is the number of documents judged
    with a grade >= ``rel`` for the query, retrieved or not. Relevant documents ranked
    below ``k`` or not retrieved count as missed; unjudged documents and negative grades
    are not relevant and do not count in R. Monotone in ``k``, but a score of 1 needs
    k >= R (seed 004), and it needs R, so it is not local to the top ``k``.

    0 when R = 0 (trec_eval returns 0 for such a query; seed 004 calls recall undefined
    there) and for an empty ranking. A ranking shorter than ``k`` is read to its end.
    Documents with equal scores are ranked as trec_eval ranks them (doc id descending),
    which decides which of them fall inside the cutoff. trec_eval, pytrec_eval,
    ir_measures and ranx (``recall@k``) agree; without a cutoff, ranx's ``recall`` is
    SetR. Note that some libraries call Success@k "recall@k"; this is not that.

    Parameters
    ----------
    k
        Cutoff rank, a positive integer (required; trec_eval's default list is 5, 10, 15,
        20, 30, 100, 200, 500, 1000).
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``,
        1 unless set; trec_eval ``-l``).

    See Also
    --------
    trec_eval ``recall.k`` (``recall_1000``); ir_measures ``R@1000``, ``Recall@1000``;
    ranx ``recall@1000``; SQL ``ireval_recall``; SetR, Success.

    Examples
    --------
    Seed 004: "111110" with R = 6 (one relevant document unretrieved): Recall@k =
    (k/R) · P@k, so R@5 = (5/6) · 1 and R@6 = (6/6) · (5/6); both are 5/6.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcdef"),
    ...                     "score": [6.0, 5.0, 4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": list("abcdefy"),
    ...                       "relevance": [1, 1, 1, 1, 1, 0, 1]})
    >>> ir.evaluate(run, qrels, ["P@5", "P@6", "R@5", "R@6"])["value"].to_list()
    [1.0, 0.8333333333333334, 0.8333333333333334, 0.8333333333333334]
    """
    return ratio(rel_ret(rel, k), num_rel(rel))


@measure(
    "Success",
    tie_bounds=True,
    average=_success_average,
    sql="ireval_success",
    qrels_stats=True,
    unjudged=False,
    cite="trec_eval 9.0 (NIST), measure success, developed by Stephen Tomlinson",
    trec=[TrecName("success", "k", (1, 5, 10), "list")],
    checks=_CHECKS,
)
def success(*, k: int, rel: int = 1) -> pl.Expr:
    """Success@k: 1 if a relevant document is in the top ``k`` ranks, else 0.

    Success@k = max_{i <= k} b_i (b_i = 1 for a grade >= ``rel``); its mean over queries
    is the fraction of queries answered in the top ``k``. The user wants one relevant
    document and looks no further than rank ``k``: HIT@k with binary utility, and
    Success@k = 1 exactly when RR@k > 0.

    0 for an empty ranking, a ranking without a relevant document in its top ``k`` and a
    query with R = 0. A ranking shorter than ``k`` is read to its end (trec_eval fills
    the missing ranks with non-relevant documents, which changes nothing). Unjudged
    documents and negative grades are not relevant. Documents with equal scores are
    ranked as trec_eval ranks them (doc id descending), which decides which of them fall
    inside the cutoff. trec_eval, ir_measures and ranx (``hit_rate@k``) agree; some
    libraries call this "recall@k", which here is R@k.

    Parameters
    ----------
    k
        Cutoff rank, a positive integer (required; trec_eval's default list is 1, 5, 10).
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``,
        1 unless set; trec_eval ``-l``).

    See Also
    --------
    trec_eval ``success.k`` (``success_10``); ir_measures ``Success@10``; ranx
    ``hit_rate@10``; SQL ``ireval_success``; HIT, RR.

    Examples
    --------
    The first relevant document at rank 2:

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"),
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["b", "d"], "relevance": [1, 1]})
    >>> ir.evaluate(run, qrels, ["Success@1", "Success@2", "Success@10"])["value"].to_list()
    [0.0, 1.0, 1.0]
    """
    return (rel_ret(rel, k) > 0).cast(pl.Float64)


@measure(
    "relative_P",
    tie_bounds=True,
    average=_relative_precision_average,
    by_r=True,
    sql="ireval_relative_p",
    qrels_stats=True,
    unjudged=False,
    cite="trec_eval 9.0 (NIST), measure relative_P",
    trec=[TrecName("relative_P", "k", CUTOFFS, "list")],
    checks=_CHECKS,
)
def relative_precision(*, k: int, rel: int = 1) -> pl.Expr:
    """Relative precision at k: relevant documents in the top ``k`` over ``min(k, R)``.

    relative_P@k = (Σ_{i <= k} b_i) / min(k, R): P@k divided by the best P@k any ranking
    could reach for this query, so a perfect ranking scores 1 whatever R and ``k``. It
    equals P@k while k <= R and R@k once k >= R (trec_eval's description), the same
    normalisation as seed 000's AP@k with min(k, R) (``AP(norm='min')``).

    0 when R = 0 and for an empty ranking. A ranking shorter than ``k`` keeps the
    denominator min(k, R) (trec_eval). Unjudged documents and negative grades are not
    relevant and do not count in R. Documents with equal scores are ranked as trec_eval
    ranks them (doc id descending), which decides which of them fall inside the cutoff.
    ir_measures and ranx have no such measure; ir_measures' ``SetRelP`` is the set
    version, set_relative_P.

    Parameters
    ----------
    k
        Cutoff rank, a positive integer (required; trec_eval's default list is 5, 10, 15,
        20, 30, 100, 200, 500, 1000).
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``,
        1 unless set; trec_eval ``-l``).

    See Also
    --------
    trec_eval ``relative_P.k`` (``relative_P_10``); SQL ``ireval_relative_p``; P, R,
    set_relative_P.

    Examples
    --------
    "1010" with R = 2: precision at k = 1 and 2, recall at k = 4.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"),
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "c"], "relevance": [1, 1]})
    >>> out = ir.evaluate(run, qrels, ["relative_P@1", "relative_P@2", "relative_P@4"])
    >>> out["value"].to_list()
    [1.0, 0.5, 1.0]
    """
    return ratio(rel_ret(rel, k), pl.min_horizontal(pl.lit(k), num_rel(rel)))


@measure(
    "Judged",
    tie_bounds=True,
    average=_judged_average,
    sql="ireval_judged",
    cite="MacAvaney, Macdonald and Ounis, Streamlining evaluation with ir-measures, ECIR 2022",
    checks={"k": positive_int},
)
def judged_at(*, k: int | None = None) -> pl.Expr:
    """Judged@k: the fraction of the top ``k`` ranks holding a judged document.

    Judged@k = |{i <= min(k, n) : d_i is in the qrels}| / min(k, n), with n the number of
    documents retrieved. Not an effectiveness measure but a check of the qrels' coverage
    of a run: a low Judged@10 means the run's top 10 is largely unjudged, and measures
    that take unjudged documents as non-relevant may underrate it.

    Any judgment counts, a grade of 0 or a negative grade (pooled but unjudged) too. The
    denominator is min(k, n), as ir_measures computes it, so a ranking shorter than ``k``
    is not penalised; 0 for an empty ranking (ir_measures does not score a query without
    retrieved documents). Documents with equal scores are ranked as trec_eval ranks them
    (doc id descending); some ir_measures providers break ties by doc id ascending (see
    docs/compat.md), which can change which documents fall inside the cutoff. Not in
    trec_eval 9; trec_eval 10's ``unj.k`` is Unjudged@k.

    Parameters
    ----------
    k
        Cutoff rank, a positive integer (default: the whole ranking; ir_measures requires
        one).

    See Also
    --------
    ir_measures ``Judged@10``; SQL ``ireval_judged``; Unjudged.

    Examples
    --------
    x is unjudged and n pooled but unjudged (grade -1), which counts as judged here:

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["x", "a", "n", "b"],
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "n"],
    ...                       "relevance": [1, 0, -1]})
    >>> ir.evaluate(run, qrels, ["Judged@2", "Judged@10"])["value"].to_list()
    [0.5, 0.75]
    """
    return ratio((retrieved(k) & judged()).sum(), retrieved(k).sum())


@measure(
    "Unjudged",
    tie_bounds=True,
    average=_unjudged_average,
    sql="ireval_unjudged",
    cite="Soboroff, trec_eval 10.0 (NIST), measure unj, 2023",
    trec=[TrecName("unj", "k", (5, 10, 20), "list")],
    checks={"k": positive_int},
)
def unjudged_at(*, k: int) -> pl.Expr:
    """Unjudged@k: the fraction of the top ``k`` ranks holding a document without a
    (non-negative) judgment; the denominator is always ``k`` (trec_eval 10's ``unj``).

    Unjudged@k = |{i <= k : d_i is not in the qrels or has a negative grade}| / k. A
    "red flag" for a run the qrels cover poorly (trec_eval 10's help): a high value at a
    small ``k`` means the run is unusually bad or finds many unjudged documents, possibly
    relevant.

    As in P@k, a ranking shorter than ``k`` fills its missing ranks with documents taken
    as judged (they are not unjudged), so the denominator is always ``k``; 0 for an empty
    ranking. A negative grade (pooled but unjudged) counts as unjudged, as trec_eval
    treats it; Judged@k counts it as judged, so the two are complements only for a
    ranking of at least ``k`` documents and qrels without negative grades. Documents
    with equal scores are ranked as trec_eval ranks them (doc id descending). Not in
    trec_eval 9, pytrec_eval, ir_measures or ranx.

    Parameters
    ----------
    k
        Cutoff rank, a positive integer (required; trec_eval 10's default list is 5, 10,
        20).

    See Also
    --------
    trec_eval 10 ``unj.k`` (``unj_10``); SQL ``ireval_unjudged``; Judged.

    Examples
    --------
    The ranking of Judged's example: x (not in the qrels) and n (grade -1) are unjudged.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["x", "a", "n", "b"],
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "n"],
    ...                       "relevance": [1, 0, -1]})
    >>> out = ir.evaluate(run, qrels, ["Unjudged@2", "Unjudged@4", "Unjudged@10"])
    >>> out["value"].to_list()
    [0.5, 0.5, 0.2]
    """
    return exact_div((retrieved(k) & ~(REL >= 0).fill_null(False)).sum().cast(pl.Float64), k)
