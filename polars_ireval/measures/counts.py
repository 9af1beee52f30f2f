"""Counting measures: queries, retrieved, relevant, relevant retrieved, judged non-relevant."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from polars_ireval.measures._expr import (
    expected_count,
    judged_nonrelevant,
    num_rel,
    rel_ret,
    relevant,
    retrieved,
)
from polars_ireval.registry import SqlCall, SqlSpec, TrecName, measure, relevant_grade

# ties="average": with max_depth, a tie it cuts keeps each of its documents with the
# probability of landing above the cut; without, the counts do not depend on the order


def _num_q_average(*, depth: int | None = None) -> pl.Expr:
    return num_q()


def _num_ret_average(*, rel: int | None = None, depth: int | None = None) -> pl.Expr:
    if rel is not None:
        return expected_count(relevant(rel), depth)
    return retrieved(depth).sum().cast(pl.Float64)


def _num_relevant_average(*, rel: int = 1, depth: int | None = None) -> pl.Expr:
    return num_rel(rel).cast(pl.Int64)


def _num_rel_ret_average(*, rel: int = 1, depth: int | None = None) -> pl.Expr:
    return expected_count(relevant(rel), depth)


def _num_nonrel_judged_ret_average(*, rel: int = 1, depth: int | None = None) -> pl.Expr:
    return expected_count(retrieved() & judged_nonrelevant(rel), depth)


@measure(
    "NumQ",
    tie_bounds=True,
    average=_num_q_average,
    sql="ireval_num_q",
    qrels_stats=True,
    unjudged=False,
    aggregate="sum",
    integer=True,
    cite="trec_eval 9.0 (NIST), measure num_q",
    trec=[TrecName("num_q")],
)
def num_q() -> pl.Expr:
    """Number of queries evaluated (1 per query; summed over queries).

    NumQ = Σ_q 1 over the queries the evaluation scores: those both ranked by the run and
    judged in the qrels (trec_eval's default), or every judged query with
    ``missing="zero"`` (trec_eval ``-c``, whose ``num_q`` then counts the qrels' queries).
    Queries of the run absent from the qrels are never evaluated (a ``CoverageWarning``
    names them). A judged query with R = 0 counts; a query whose ranking is empty only
    with ``missing="zero"``. It takes no parameter and depends on no grade or tie.
    Per query (``per_query=True``) the value is 1; trec_eval prints it only in its
    summary. ir_measures' ``NumQ`` counts the queries the same way.

    See Also
    --------
    trec_eval ``num_q``; ir_measures ``NumQ``; SQL ``ireval_num_q``; NumRet, NumRel.

    Examples
    --------
    q1 ranks a (grade 1), b (0), c (unjudged) and d (-1, pooled but unjudged), and leaves
    x (2) and y (0) unretrieved; q2 ranks one unjudged document and misses z (1).

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": ["q1"] * 4 + ["q2"], "doc_id": ["a", "b", "c", "d", "a"],
    ...                     "score": [4.0, 3.0, 2.0, 1.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 5 + ["q2"],
    ...                       "doc_id": ["a", "b", "d", "x", "y", "z"],
    ...                       "relevance": [1, 0, -1, 2, 0, 1]})
    >>> ir.evaluate(run, qrels, "NumQ")["value"].to_list()
    [2.0]

    A query q3 judged but not ranked counts only with ``missing="zero"``:

    >>> q3 = pl.DataFrame({"query_id": "q3", "doc_id": "w", "relevance": 1})
    >>> ir.evaluate(run, pl.concat([qrels, q3]), "NumQ", missing="zero")["value"].to_list()
    [3.0]
    """
    return pl.lit(1, dtype=pl.Int64)


def _counts_every_document(params: Mapping[str, Any]) -> bool:
    """Without ``rel``, every retrieved document counts, judged or not."""
    return params.get("rel") is None


def num_ret_sql(args: dict[str, Any]) -> SqlSpec:
    """NumRet, or NumRelRet at grade ``rel`` for ir_measures' ``NumRet(rel=r)``."""
    if args["rel"] is None:
        return SqlCall("ireval_num_ret")
    return SqlCall("ireval_num_rel_ret", {"rel": args["rel"]})


@measure(
    "NumRet",
    tie_bounds=True,
    average=_num_ret_average,
    sql=num_ret_sql,
    qrels_stats=True,
    unjudged=_counts_every_document,
    aggregate="sum",
    integer=True,
    cite="trec_eval 9.0 (NIST), measure num_ret",
    trec=[TrecName("num_ret")],
    checks={"rel": relevant_grade},
)
def num_ret(*, rel: int | None = None) -> pl.Expr:
    """Number of documents retrieved for the query (after ``max_depth``).

    With ``rel`` (ir_measures' ``NumRet(rel=1)``, its name for NumRelRet), only the
    retrieved documents judged with a grade >= ``rel`` count: NumRelRet(rel=``rel``).

    NumRet = n, the length of the evaluated ranking: every retrieved document counts,
    judged or not, after ``max_depth`` (trec_eval ``-M``) has cut the ranking and, with
    ``judged_only=True`` (trec_eval ``-J``), after the documents without a grade >= 0
    are removed.
    Summed, not averaged, over queries, as trec_eval does. 0 for an empty ranking
    (``missing="zero"``); R and grades play no part, and ties only decide which
    documents a ``max_depth`` cut keeps. ir_measures' ``NumRet`` is the same;
    ir_measures' ``NumRet(rel=1)`` is NumRelRet here.

    See Also
    --------
    trec_eval ``num_ret``; ir_measures ``NumRet``; SQL ``ireval_num_ret``; NumRelRet.

    Examples
    --------
    q1 ranks a (grade 1), b (0), c (unjudged) and d (-1, pooled but unjudged), and leaves
    x (2) and y (0) unretrieved; q2 ranks one unjudged document and misses z (1).

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": ["q1"] * 4 + ["q2"], "doc_id": ["a", "b", "c", "d", "a"],
    ...                     "score": [4.0, 3.0, 2.0, 1.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 5 + ["q2"],
    ...                       "doc_id": ["a", "b", "d", "x", "y", "z"],
    ...                       "relevance": [1, 0, -1, 2, 0, 1]})
    >>> ir.evaluate(run, qrels, "NumRet")["value"].to_list()
    [5.0]
    >>> ir.evaluate(run, qrels, "NumRet", per_query=True)["value"].to_list()
    [4.0, 1.0]
    """
    if rel is not None:
        return rel_ret(rel).cast(pl.Int64)
    return retrieved().sum().cast(pl.Int64)


@measure(
    "NumRel",
    tie_bounds=True,
    average=_num_relevant_average,
    sql="ireval_num_rel",
    qrels_stats=True,
    unjudged=False,
    aggregate="sum",
    integer=True,
    cite="trec_eval 9.0 (NIST), measure num_rel",
    trec=[TrecName("num_rel")],
    checks={"rel": relevant_grade},
)
def num_relevant(*, rel: int = 1) -> pl.Expr:
    """Number of judged documents with grade >= ``rel``, retrieved or not (R).

    NumRel = R = |{d in the qrels of the query : grade(d) >= rel}|: the denominator of
    recall, AP, Rprec and the other recall-based measures. Negative grades (pooled but
    unjudged) never count. It does not depend on the run, except that a query the run
    does not rank is evaluated only with ``missing="zero"``. Summed over queries.

    With ``judged_only=True`` (trec_eval ``-J``) R keeps every judgment, since only the
    ranking is condensed. Under ``missing="zero"`` the sum covers every judged query at
    ``relevance_level``; trec_eval's ``-c`` summary line instead counts grades >= 1
    whatever ``-l`` (docs/compat.md; ``ireval trec_eval -c`` prints trec_eval's line).
    ir_measures' ``NumRel`` is the same.

    Parameters
    ----------
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``,
        1 unless set; trec_eval ``-l``).

    See Also
    --------
    trec_eval ``num_rel``; ir_measures ``NumRel``; SQL ``ireval_num_rel``; NumRelRet.

    Examples
    --------
    q1 ranks a (grade 1), b (0), c (unjudged) and d (-1, pooled but unjudged), and leaves
    x (2) and y (0) unretrieved; q2 ranks one unjudged document and misses z (1).
    R is 2 for q1 (a, x) and 1 for q2 (z); with rel=2 only x counts.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": ["q1"] * 4 + ["q2"], "doc_id": ["a", "b", "c", "d", "a"],
    ...                     "score": [4.0, 3.0, 2.0, 1.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 5 + ["q2"],
    ...                       "doc_id": ["a", "b", "d", "x", "y", "z"],
    ...                       "relevance": [1, 0, -1, 2, 0, 1]})
    >>> ir.evaluate(run, qrels, ["NumRel", "NumRel(rel=2)"])["value"].to_list()
    [3.0, 1.0]
    """
    return num_rel(rel).cast(pl.Int64)


@measure(
    "NumRelRet",
    tie_bounds=True,
    average=_num_rel_ret_average,
    sql="ireval_num_rel_ret",
    qrels_stats=True,
    unjudged=False,
    aggregate="sum",
    integer=True,
    cite="trec_eval 9.0 (NIST), measure num_rel_ret",
    trec=[TrecName("num_rel_ret")],
    checks={"rel": relevant_grade},
)
def num_rel_ret(*, rel: int = 1) -> pl.Expr:
    """Number of relevant documents (grade >= ``rel``) retrieved.

    NumRelRet = |{retrieved d : grade(d) >= rel}|, the numerator of set precision and
    recall; NumRelRet / NumRel is SetR. Unjudged documents and negative grades are not
    relevant. Counted over the evaluated ranking (after ``max_depth``); 0 for an empty
    ranking and when R = 0. Summed over queries. ir_measures names it ``NumRelRet``
    (= its ``NumRet(rel=1)``).

    Parameters
    ----------
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``,
        1 unless set; trec_eval ``-l``).

    See Also
    --------
    trec_eval ``num_rel_ret``; ir_measures ``NumRelRet``; SQL ``ireval_num_rel_ret``;
    NumRel, SetR.

    Examples
    --------
    q1 ranks a (grade 1), b (0), c (unjudged) and d (-1, pooled but unjudged), and leaves
    x (2) and y (0) unretrieved; q2 ranks one unjudged document and misses z (1).
    Only a is relevant and retrieved.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": ["q1"] * 4 + ["q2"], "doc_id": ["a", "b", "c", "d", "a"],
    ...                     "score": [4.0, 3.0, 2.0, 1.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 5 + ["q2"],
    ...                       "doc_id": ["a", "b", "d", "x", "y", "z"],
    ...                       "relevance": [1, 0, -1, 2, 0, 1]})
    >>> ir.evaluate(run, qrels, "NumRelRet", per_query=True)["value"].to_list()
    [1.0, 0.0]
    """
    return rel_ret(rel).cast(pl.Int64)


@measure(
    "num_nonrel_judged_ret",
    tie_bounds=False,
    average=_num_nonrel_judged_ret_average,
    sql="ireval_num_nonrel_judged_ret",
    qrels_stats=True,
    unjudged=False,
    aggregate="sum",
    integer=True,
    cite="trec_eval 9.0 (NIST), measure num_nonrel_judged_ret",
    trec=[TrecName("num_nonrel_judged_ret")],
    checks={"rel": relevant_grade},
)
def num_nonrel_judged_ret(*, rel: int = 1) -> pl.Expr:
    """Number of retrieved documents judged non-relevant (grade in ``[0, rel)``).

    num_nonrel_judged_ret = |{retrieved d : 0 <= grade(d) < rel}| = NumRet − NumRelRet −
    (retrieved documents not in the qrels) − (retrieved documents with a negative grade),
    as trec_eval computes it. Not an effectiveness measure: with NumRelRet it shows how
    much of a run the qrels judged. Raising ``rel`` moves low grades from relevant to
    non-relevant. 0 for an empty ranking; summed over queries. Not in ir_measures or
    ranx.

    Parameters
    ----------
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``,
        1 unless set; trec_eval ``-l``).

    See Also
    --------
    trec_eval ``num_nonrel_judged_ret``; SQL ``ireval_num_nonrel_judged_ret``; NumRelRet,
    Judged.

    Examples
    --------
    q1 ranks a (grade 1), b (0), c (unjudged) and d (-1, pooled but unjudged), and leaves
    x (2) and y (0) unretrieved; q2 ranks one unjudged document and misses z (1).
    Only b is judged non-relevant; with rel=2, a (grade 1) is too.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": ["q1"] * 4 + ["q2"], "doc_id": ["a", "b", "c", "d", "a"],
    ...                     "score": [4.0, 3.0, 2.0, 1.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 5 + ["q2"],
    ...                       "doc_id": ["a", "b", "d", "x", "y", "z"],
    ...                       "relevance": [1, 0, -1, 2, 0, 1]})
    >>> out = ir.evaluate(run, qrels, ["num_nonrel_judged_ret", "num_nonrel_judged_ret(rel=2)"])
    >>> out["value"].to_list()
    [1.0, 2.0]
    """
    return (retrieved() & judged_nonrelevant(rel)).sum().cast(pl.Int64)
