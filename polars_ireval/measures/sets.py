"""Set measures: the retrieved documents taken as an unordered set."""

from __future__ import annotations

from typing import Any

import polars as pl

from polars_ireval.errors import ParameterError
from polars_ireval.measures._expr import (
    expected_count,
    num_rel,
    ratio,
    rel_ret,
    relevant,
    retrieved,
)
from polars_ireval.registry import (
    SqlCall,
    SqlSpec,
    TrecName,
    boolean,
    measure,
    non_negative,
    positive_int,
    relevant_grade,
    trec_float,
)

_CHECKS = {"rel": relevant_grade}


def set_p_sql(args: dict[str, Any]) -> SqlSpec:
    """SetP, or set_relative_P for ir_measures' ``SetP(relative=True)``."""
    macro = "ireval_set_relative_p" if args["relative"] else "ireval_set_p"
    return SqlCall(macro, {"rel": args["rel"]})


# ties="average": with max_depth, the relevant documents retrieved are a random number
# (each document of a tie that max_depth cuts is kept with the probability of landing above
# it); SetP, SetR, set_relative_P and SetF are linear in that number, the rest fixed


def _found(rel: int, depth: int | None) -> pl.Expr:
    return expected_count(relevant(rel), depth)


def _set_p_average(*, rel: int = 1, relative: bool = False, depth: int | None = None) -> pl.Expr:
    if relative:
        return _set_relative_p_average(rel=rel, depth=depth)
    return ratio(_found(rel, depth), retrieved(depth).sum())


def _set_r_average(*, rel: int = 1, depth: int | None = None) -> pl.Expr:
    return ratio(_found(rel, depth), num_rel(rel))


def _set_relative_p_average(*, rel: int = 1, depth: int | None = None) -> pl.Expr:
    return ratio(_found(rel, depth), pl.min_horizontal(retrieved(depth).sum(), num_rel(rel)))


def recall_weight(beta: float, f_beta: float | None) -> float:
    """The weight of recall in SetF's (1 + w) P R / (w P + R): trec_eval's ``beta`` as it
    is, or van Rijsbergen's ``f_beta`` squared (SQL: the rule ``beta_or_f_beta``)."""
    if f_beta is None:
        return beta
    if beta != 1.0:
        raise ParameterError(
            f"SetF: beta={beta!r} and f_beta={f_beta!r}: give one of them (beta is trec_eval's "
            "set_F weight of recall, beta² in van Rijsbergen's F; f_beta is his beta, squared "
            "here)"
        )
    return f_beta * f_beta


def _set_f_average(
    *, beta: float = 1.0, rel: int = 1, f_beta: float | None = None, depth: int | None = None
) -> pl.Expr:
    """With x relevant retrieved of n retrieved and R relevant, (1 + w) P R / (w P + R)
    = (1 + w) x / (w R + n), w = :func:`recall_weight`: linear in x (0 when x = 0)."""
    beta = recall_weight(beta, f_beta)
    n = retrieved(depth).sum().cast(pl.Float64)
    return ratio((1.0 + beta) * _found(rel, depth), beta * num_rel(rel).cast(pl.Float64) + n)


@measure(
    "SetP",
    tie_bounds=True,
    average=_set_p_average,
    sql=set_p_sql,
    cite="van Rijsbergen, Information Retrieval, 2nd ed., Butterworths, 1979, ch. 7",
    trec=[TrecName("set_P")],
    checks={**_CHECKS, "relative": boolean},
)
def set_precision(*, rel: int = 1, relative: bool = False) -> pl.Expr:
    """Set precision: relevant retrieved over retrieved (0 for an empty ranking).

    ``relative=True`` (ir_measures' ``SetP(relative=True)``, alias ``SetRelP``) divides by
    ``min(retrieved, R)`` instead: :func:`set_relative_precision`, trec_eval's
    ``set_relative_P``.

    SetP = r/n = TP/(TP + FP) (seed 003, eqs. 1 and 3), with r the relevant documents
    retrieved and n all documents retrieved, unjudged ones included (they count as false
    positives). The ranking is taken as a set: order and ties do not matter, except where
    ``max_depth`` (trec_eval ``-M``) cuts the ranking inside a tie. Unlike P@k it divides by
    n, not by a fixed k: ``P@50`` fills a ranking shorter than 50 with non-relevant
    documents, ``SetP`` with ``max_depth=50`` does not (trec_eval's note on
    ``-M 50 -m set_P``).

    0 for an empty ranking and when R = 0. Negative grades are not relevant. trec_eval,
    ir_measures and ranx (``precision`` without a cutoff) agree.

    Parameters
    ----------
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``,
        1 unless set; trec_eval ``-l``).

    See Also
    --------
    trec_eval ``set_P``; ir_measures ``SetP``; ranx ``precision``; SQL ``ireval_set_p``;
    P, SetR, SetF.

    Examples
    --------
    4 documents retrieved, 2 of them relevant (TP = 2, FP = 2), 1 relevant document
    missed (FN = 1), so R = 3. P@10 divides the same 2 by 10.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"),
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c", "x"],
    ...                       "relevance": [1, 0, 1, 1]})
    >>> ir.evaluate(run, qrels, ["SetP", "P@10"])["value"].to_list()
    [0.5, 0.2]
    """
    if relative:
        return set_relative_precision(rel=rel)
    return ratio(rel_ret(rel), retrieved().sum())


@measure(
    "SetR",
    tie_bounds=True,
    average=_set_r_average,
    by_r=True,
    sql="ireval_set_r",
    qrels_stats=True,
    unjudged=False,
    cite="van Rijsbergen, Information Retrieval, 2nd ed., Butterworths, 1979, ch. 7",
    trec=[TrecName("set_recall")],
    checks=_CHECKS,
)
def set_recall(*, rel: int = 1) -> pl.Expr:
    """Set recall: relevant retrieved over relevant (0 when R = 0).

    SetR = r/R = TP/(TP + FN) (seed 003, eqs. 2 and 4): the share of the query's relevant
    documents that the run retrieved at any rank, R@k with k the whole ranking. The ranking
    is taken as a set: order and ties do not matter, except where ``max_depth`` (trec_eval
    ``-M``) cuts the ranking inside a tie.

    0 for an empty ranking and when R = 0. Unjudged documents and negative grades are
    not relevant and do not count in R. trec_eval, ir_measures and ranx (``recall``
    without a cutoff) agree.

    Parameters
    ----------
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``,
        1 unless set; trec_eval ``-l``).

    See Also
    --------
    trec_eval ``set_recall``; ir_measures ``SetR``; ranx ``recall``; SQL ``ireval_set_r``;
    R, SetP, NumRelRet.

    Examples
    --------
    4 documents retrieved, 2 of them relevant (TP = 2, FP = 2), 1 relevant document
    missed (FN = 1), so R = 3. With ``max_depth=2`` only a is found.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"),
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c", "x"],
    ...                       "relevance": [1, 0, 1, 1]})
    >>> ir.evaluate(run, qrels, "SetR")["value"].to_list()
    [0.6666666666666666]
    >>> ir.evaluate(run, qrels, "SetR", max_depth=2)["value"].to_list()
    [0.3333333333333333]
    """
    return ratio(rel_ret(rel), num_rel(rel))


@measure(
    "set_relative_P",
    tie_bounds=True,
    average=_set_relative_p_average,
    by_r=True,
    sql="ireval_set_relative_p",
    aliases=["SetRelP"],
    cite="trec_eval 9.0 (NIST), measure set_relative_P (earlier exact_relative_prec)",
    trec=[TrecName("set_relative_P")],
    checks=_CHECKS,
)
def set_relative_precision(*, rel: int = 1) -> pl.Expr:
    """Relative set precision: relevant retrieved over ``min(retrieved, R)``.

    set_relative_P = r / min(n, R): SetP divided by the best set precision a set of n
    documents could reach, so it is 1 whenever every retrieved document is relevant or every
    relevant document is retrieved. It is relative_P@k with k the length of the ranking. The
    ranking is taken as a set: order and ties do not matter, except where ``max_depth``
    (trec_eval ``-M``) cuts the ranking inside a tie.

    0 for an empty ranking and when R = 0. Unjudged documents and negative grades are not
    relevant and do not count in R. ir_measures calls it ``SetRelP``, that is
    ``SetP(relative=True)``, a name this library does not parse; ranx has no such
    measure.

    Parameters
    ----------
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``,
        1 unless set; trec_eval ``-l``).

    See Also
    --------
    trec_eval ``set_relative_P``; ir_measures ``SetRelP``; SQL ``ireval_set_relative_p``;
    relative_P, SetP.

    Examples
    --------
    4 documents retrieved, 2 of them relevant (TP = 2, FP = 2), 1 relevant document
    missed (FN = 1), so R = 3. The best 4-document set would hold all 3, so
    set_relative_P = 2/3.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"),
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c", "x"],
    ...                       "relevance": [1, 0, 1, 1]})
    >>> ir.evaluate(run, qrels, "set_relative_P")["value"].to_list()
    [0.6666666666666666]
    """
    return ratio(rel_ret(rel), pl.min_horizontal(retrieved().sum(), num_rel(rel)))


@measure(
    "SetAP",
    tie_bounds=True,
    by_r=True,
    sql="ireval_set_ap",
    cite="trec_eval 9.0 (NIST), measure set_map (earlier exact_unranked_avg_prec)",
    trec=[TrecName("set_map")],
    checks=_CHECKS,
)
def set_map(*, rel: int = 1) -> pl.Expr:
    """Set AP: set precision times set recall (trec_eval's ``set_map``).

    Computed as trec_eval does, ``rel_ret² / (retrieved · R)`` in one division: the product
    of two rounded ratios can differ in the last bit and flip a printed 4th decimal
    (CAsT 2021 ``org_manual_bm25``, query 107_4 with ``-J``: 21/28 · 21/40).

    SetAP = r² / (n · R) = SetP · SetR: AP for an unranked set, where every relevant
    retrieved document gets the set's precision r/n and every relevant document missed gets
    0, so (1/R) Σ over the r found of r/n. The ranking is taken as a set: order and ties do
    not matter, except where ``max_depth`` (trec_eval ``-M``) cuts the ranking inside a tie.

    0 for an empty ranking and when R = 0. Unjudged documents and negative grades are not
    relevant and do not count in R. ir_measures' ``SetAP`` is the same; ranx has none.

    Parameters
    ----------
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``,
        1 unless set; trec_eval ``-l``).

    See Also
    --------
    trec_eval ``set_map``; ir_measures ``SetAP``; SQL ``ireval_set_ap``; AP, SetP, SetR.

    Examples
    --------
    4 documents retrieved, 2 of them relevant (TP = 2, FP = 2), 1 relevant document
    missed (FN = 1), so R = 3. SetAP = 2² / (4 · 3) = SetP · SetR = (1/2)(2/3).

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"),
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c", "x"],
    ...                       "relevance": [1, 0, 1, 1]})
    >>> ir.evaluate(run, qrels, "SetAP")["value"].to_list()
    [0.3333333333333333]
    """
    found = rel_ret(rel).cast(pl.Float64)
    return ratio(found * found, retrieved().sum().cast(pl.Float64) * num_rel(rel))


@measure(
    "SetF",
    tie_bounds=True,
    average=_set_f_average,
    by_r=True,
    sql="ireval_set_f",
    cite="van Rijsbergen, Information Retrieval, 2nd ed., Butterworths, 1979, ch. 7 (E and "
    "F measures)",
    trec=[TrecName("set_F", "beta", (1.0,), "whole", convert=trec_float)],
    checks={"rel": relevant_grade, "beta": non_negative, "f_beta": non_negative},
)
def set_f(*, beta: float = 1.0, rel: int = 1, f_beta: float | None = None) -> pl.Expr:
    """Set F-measure: ``(1 + beta) P R / (beta P + R)`` of set precision and recall.

    Two readings of "β", one parameter each. ``beta`` is trec_eval's ``set_F.x`` (and
    ir_measures' ``SetF(beta=x)``, which passes it on): it weighs recall directly, not
    squared. ``f_beta`` is van Rijsbergen's β of seed 003 (F_β, eq. 6), squared here:
    ``SetF(f_beta=3)`` is F_3 = 10 P R / (9 P + R), the same as ``SetF(beta=9)``, while
    ``SetF(beta=3)`` is F with β² = 3. Give one of them. 0 when P and R are both 0.

    Here P is SetP and R is SetR (recall, not the number of relevant documents). F is
    their weighted harmonic mean, 1 / (α/P + (1 − α)/R), van Rijsbergen's F = 1 − E: seed
    003 (eq. 6) writes it (β² + 1)PR / (β²P + R) with β² = (1 − α)/α, and trec_eval's x
    (``beta`` here) is that β². ``beta=1`` gives F1 = 2PR/(P + R) (seed 003, eq. 7);
    ``beta`` > 1 favours recall, < 1 precision, and ``beta=0`` gives P. The ranking is
    taken as a set: order and ties do not matter, except where ``max_depth`` (trec_eval
    ``-M``) cuts the ranking inside a tie.

    0 for an empty ranking, for a query without relevant documents and when no relevant
    document is retrieved. Unjudged documents and negative grades are not relevant.
    trec_eval computes one ``set_F`` per run, for the first ``beta`` it is given; here
    each ``SetF(beta=...)`` is its own measure. ranx's ``f1`` without a cutoff is
    ``SetF``; with a cutoff it combines P@k and R@k instead.

    Parameters
    ----------
    beta
        Relative weight of recall, a non-negative number (default 1: the harmonic mean
        of P and R; trec_eval's ``set_F.x``, β² in van Rijsbergen's terms).
    f_beta
        van Rijsbergen's β (seed 003), a non-negative number, squared into the weight of
        recall: ``f_beta=2`` is F_2, recall weighed four times precision; instead of
        ``beta``.
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``,
        1 unless set; trec_eval ``-l``).

    See Also
    --------
    trec_eval ``set_F``, ``set_F.0.5``; ir_measures ``SetF``, ``SetF(beta=0.5)``; ranx
    ``f1``; SQL ``ireval_set_f``; SetP, SetR.

    Examples
    --------
    4 documents retrieved, 2 of them relevant (TP = 2, FP = 2), 1 relevant document
    missed (FN = 1): P = 1/2, recall 2/3, F1 = 2 (1/2)(2/3) / (1/2 + 2/3) = 4/7. van
    Rijsbergen's F_0.5 (β = 0.5: ``f_beta=0.5``, or ``beta=0.25``) leans to the lower precision:
    1.25 (1/3) / (1/8 + 2/3) = 10/19.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"),
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c", "x"],
    ...                       "relevance": [1, 0, 1, 1]})
    >>> ir.evaluate(run, qrels, ["SetF", "SetF(beta=0.25)", "SetF(f_beta=0.5)"])["value"].to_list()
    [0.5714285714285715, 0.5263157894736842, 0.5263157894736842]
    """
    beta = recall_weight(beta, f_beta)
    p = ratio(rel_ret(rel), retrieved().sum())
    r = ratio(rel_ret(rel), num_rel(rel))
    return ratio((1.0 + beta) * p * r, beta * p + r)


def _confusion(num_docs: int, k: int | None, rel: int) -> tuple[pl.Expr, ...]:
    """TP, FP, FN, TN of the top ``k`` as floats, and whether ``num_docs`` holds the query.

    As :func:`polars_ireval.confusion`: TP = relevant retrieved, FP = retrieved - TP (an
    unjudged document retrieved is non-relevant), FN = R - TP, TN = N - TP - FP - FN. N
    holds the query when it is at least the distinct documents retrieved (at any depth) or
    judged for it: the rows of its evaluation table.
    """
    tp = rel_ret(rel, k).cast(pl.Float64)
    ret = retrieved(k).sum().cast(pl.Float64)
    r = num_rel(rel).cast(pl.Float64)
    n = pl.lit(float(num_docs))
    fits = pl.len() <= num_docs
    return tp, ret - tp, r - tp, n - ret - r + tp, fits


_N_CHECKS = {"num_docs": positive_int, "k": positive_int, "rel": relevant_grade}


@measure(
    "SetAccuracy",
    sql="ireval_set_accuracy",
    tie_bounds=True,
    cite="Manning, Raghavan and Schütze, Introduction to Information Retrieval, CUP, 2008, "
    "sec. 8.3 (accuracy of the retrieved set, and why it does not suit IR)",
    checks=_N_CHECKS,
)
def set_accuracy(*, num_docs: int, k: int | None = None, rel: int = 1) -> pl.Expr:
    """Set accuracy: the share of the collection's documents classified rightly.

    accuracy = (TP + TN) / (TP + FP + FN + TN) = (TP + TN) / N (seed 003, eq. 5): the
    retrieved set (the top ``k``, or the whole ranking) is taken as a classifier's
    "relevant" label and every other document of the collection as "non-relevant". TP are
    the relevant documents retrieved, FP the others retrieved (unjudged ones included), FN
    the relevant documents missed and TN = N - TP - FP - FN the rest of the collection,
    as :func:`polars_ireval.confusion` counts them, so it needs the collection size N
    (``num_docs``, trec_eval's ``-N``). Seed 003 shows why it misleads for IR: with most
    of the collection non-relevant, retrieving nothing scores close to 1.

    An empty ranking scores (N - R) / N. The value is NaN (visible in the mean, never
    silently averaged) when ``num_docs`` is smaller than the documents retrieved (at any
    depth) or judged for a query, since TN would be negative. Negative grades are not
    relevant. Not to be confused with ir_measures' ``Accuracy``, the probability that a
    relevant document is ranked above a non-relevant one: hence the name. Not in
    trec_eval or ranx.

    Parameters
    ----------
    num_docs
        The number of documents in the collection, N (required; trec_eval ``-N``).
    k
        Cutoff rank: the top ``k`` form the retrieved set (default: the whole ranking).
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``,
        1 unless set; trec_eval ``-l``).

    See Also
    --------
    :func:`polars_ireval.confusion` (the four counts); SQL ``ireval_set_accuracy``;
    Fallout, SetP, SetR.

    Examples
    --------
    "1010" with R = 3 in a collection of 10 documents: the top 3 hold 2 relevant documents
    and 1 non-relevant one (TP = 2, FP = 1), 1 relevant document is missed (FN = 1), and 6
    non-relevant documents are rightly left out (TN = 6): (2 + 6) / 10. The whole ranking
    of 4 has TP = 2, FP = 2, FN = 1, TN = 5: (2 + 5) / 10.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"),
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "c", "x"], "relevance": 1})
    >>> ir.evaluate(run, qrels, ["SetAccuracy(num_docs=10)@3", "SetAccuracy(num_docs=10)"],
    ...             )["value"].to_list()
    [0.8, 0.7]
    """
    tp, _fp, _fn, tn, fits = _confusion(num_docs, k, rel)
    return pl.when(fits).then((tp + tn) / float(num_docs)).otherwise(float("nan"))


@measure(
    "Fallout",
    sql="ireval_fallout",
    tie_bounds=True,
    lower_is_better=True,
    cite="Salton and McGill, Introduction to Modern Information Retrieval, McGraw-Hill, "
    "1983 (fallout); seed 003 (false positive rate of the ROC curve)",
    checks=_N_CHECKS,
)
def fallout(*, num_docs: int, k: int | None = None, rel: int = 1) -> pl.Expr:
    """Fallout: the share of the collection's non-relevant documents that were retrieved.

    fallout = FP / (FP + TN) (seed 003: the false positive rate, 1 - specificity, the x
    axis of the ROC curve), with FP the non-relevant documents among the retrieved set
    (the top ``k``, or the whole ranking; unjudged ones included) and FP + TN = N - R the
    non-relevant documents of a collection of N = ``num_docs`` (trec_eval's ``-N``), as
    :func:`polars_ireval.confusion` counts them. Lower is better; Fallout@k is the x
    coordinate of :func:`polars_ireval.roc_curve` at depth k.

    0 for an empty ranking and when N = R (no non-relevant document). The value is NaN
    (visible in the mean, never silently averaged) when ``num_docs`` is smaller than the
    documents retrieved (at any depth) or judged for a query. Negative grades are not
    relevant. Not in trec_eval's measures, ir_measures or ranx; torchmetrics'
    ``RetrievalFallOut`` divides by the non-relevant documents of its own list instead of
    the collection's.

    Parameters
    ----------
    num_docs
        The number of documents in the collection, N (required; trec_eval ``-N``).
    k
        Cutoff rank: the top ``k`` form the retrieved set (default: the whole ranking).
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``,
        1 unless set; trec_eval ``-l``).

    See Also
    --------
    :func:`polars_ireval.confusion`, :func:`polars_ireval.roc_curve`; SQL
    ``ireval_fallout``; SetAccuracy, SetR (the true positive rate).

    Examples
    --------
    "1010" with R = 3 in a collection of 10 documents, so 7 non-relevant: the top 3 hold
    1 of them (1/7), the whole ranking 2 (2/7).

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"),
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "c", "x"], "relevance": 1})
    >>> ir.evaluate(run, qrels, ["Fallout(num_docs=10)@3", "Fallout(num_docs=10)"]
    ...             )["value"].to_list()
    [0.14285714285714285, 0.2857142857142857]
    """
    _tp, fp, _fn, tn, fits = _confusion(num_docs, k, rel)
    return pl.when(fits).then(ratio(fp, fp + tn)).otherwise(float("nan"))
