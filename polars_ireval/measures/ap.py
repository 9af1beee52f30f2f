"""Average precision and R-precision."""

from __future__ import annotations

import polars as pl

from polars_ireval.measures._expr import (
    num_rel,
    ordered_sum,
    precision_at_relevant,
    ratio,
    rel_ret,
    relevant_ranks,
)
from polars_ireval.measures.precision import CUTOFFS
from polars_ireval.registry import TrecName, integer, measure, positive_int

_CHECKS = {"k": positive_int, "rel": integer}


@measure(
    "AP",
    aliases=["MAP"],
    cite="Harman, Overview of the Second Text Retrieval Conference (TREC-2), 1993",
    trec=[TrecName("map"), TrecName("map_cut", "k", CUTOFFS, "list")],
    checks=_CHECKS,
)
def ap(*, k: int | None = None, rel: int = 1) -> pl.Expr:
    """AP: the mean, over all R relevant documents, of the precision at each one's rank.

    Relevant documents not retrieved (or ranked below ``k``) contribute 0; the sum is
    divided by R, the number of relevant documents judged for the query (retrieved or
    not), as trec_eval's ``map`` and ``map_cut``. 0 when R = 0.

    Parameters
    ----------
    k
        Cutoff rank (default: the whole ranking).
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``).

    See Also
    --------
    trec_eval ``map``, ``map_cut.k``; ir_measures ``AP``, ``AP@100``.
    """
    return _ap(k, rel)


def _ap(k: int | None, rel: int) -> pl.Expr:
    return ratio(ordered_sum(precision_at_relevant(rel, k), relevant_ranks(rel, k)), num_rel(rel))


@measure(
    "gm_map",
    aggregate="gmean",
    cite="Robertson, On GMAP, CIKM 2006",
    trec=[TrecName("gm_map")],
    checks=_CHECKS,
)
def gm_map(*, k: int | None = None, rel: int = 1) -> pl.Expr:
    """GMAP: AP per query, aggregated by the geometric mean over queries.

    Values below 1e-5 count as 1e-5 in the geometric mean (trec_eval's ``MIN_GEO_MEAN``).

    Parameters
    ----------
    k
        Cutoff rank (default: the whole ranking).
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``).

    See Also
    --------
    trec_eval ``gm_map``.
    """
    return _ap(k, rel)


@measure("Rprec", trec=[TrecName("Rprec")], checks={"rel": integer})
def rprec(*, rel: int = 1) -> pl.Expr:
    """R-precision: precision at rank R, where R is the number of relevant documents.

    0 for a query with no relevant document.

    Parameters
    ----------
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``).

    See Also
    --------
    trec_eval ``Rprec``; ir_measures ``Rprec``.
    """
    r = num_rel(rel)
    return ratio(rel_ret(rel, r), r)
