"""Counting measures: queries, retrieved, relevant, relevant retrieved, judged non-relevant."""

from __future__ import annotations

import polars as pl

from polars_ireval.measures._expr import judged_nonrelevant, num_rel, rel_ret, retrieved
from polars_ireval.registry import TrecName, integer, measure


@measure("NumQ", unjudged=False, aggregate="sum", integer=True, trec=[TrecName("num_q")])
def num_q() -> pl.Expr:
    """Number of queries evaluated (1 per query; summed over queries).

    trec_eval: ``num_q``. ir_measures: ``NumQ``.
    """
    return pl.lit(1, dtype=pl.Int64)


@measure("NumRet", aggregate="sum", integer=True, trec=[TrecName("num_ret")])
def num_ret() -> pl.Expr:
    """Number of documents retrieved for the query (after ``max_depth``).

    trec_eval: ``num_ret``. ir_measures: ``NumRet``.
    """
    return retrieved().sum().cast(pl.Int64)


@measure(
    "NumRel",
    unjudged=False,
    aggregate="sum",
    integer=True,
    trec=[TrecName("num_rel")],
    checks={"rel": integer},
)
def num_relevant(*, rel: int = 1) -> pl.Expr:
    """Number of judged documents with grade >= ``rel``, retrieved or not (R).

    trec_eval: ``num_rel``. ir_measures: ``NumRel``.

    Parameters
    ----------
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``).
    """
    return num_rel(rel).cast(pl.Int64)


@measure(
    "NumRelRet",
    unjudged=False,
    aggregate="sum",
    integer=True,
    trec=[TrecName("num_rel_ret")],
    checks={"rel": integer},
)
def num_rel_ret(*, rel: int = 1) -> pl.Expr:
    """Number of relevant documents (grade >= ``rel``) retrieved.

    trec_eval: ``num_rel_ret``. ir_measures: ``NumRelRet``.

    Parameters
    ----------
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``).
    """
    return rel_ret(rel).cast(pl.Int64)


@measure(
    "num_nonrel_judged_ret",
    unjudged=False,
    aggregate="sum",
    integer=True,
    trec=[TrecName("num_nonrel_judged_ret")],
    checks={"rel": integer},
)
def num_nonrel_judged_ret(*, rel: int = 1) -> pl.Expr:
    """Number of retrieved documents judged non-relevant (grade in ``[0, rel)``).

    trec_eval: ``num_nonrel_judged_ret``.

    Parameters
    ----------
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``).
    """
    return (retrieved() & judged_nonrelevant(rel)).sum().cast(pl.Int64)
