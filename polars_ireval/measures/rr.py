"""Reciprocal rank."""

from __future__ import annotations

from typing import Any

import polars as pl

from polars_ireval.measures._expr import (
    RANK,
    TIE_SIZE,
    TIE_START,
    Cutoff,
    relevant,
    relevant_ranks,
    retrieved,
    top_rank,
)
from polars_ireval.measures.depth import DepthPlan
from polars_ireval.registry import TrecName, measure, positive_int, relevant_grade


def rr_depth(args: dict[str, Any]) -> Any:
    """RR@k at every depth: 1 / the first relevant rank, where it is at or above k."""

    def fill(plan: DepthPlan) -> None:
        first = plan.ranking("first", RANK.filter(relevant(args["rel"])).min())
        plan.value = pl.when(first <= plan.k).then(1.0 / first.cast(pl.Float64)).otherwise(0.0)

    return fill


def first_relevant_average(rel: int, k: Cutoff = None) -> pl.Expr:
    """E[1 / rank of the first relevant document (0 past rank ``k``)] over tie orders.

    The first tie holding a relevant document starts at rank s and holds r relevant among
    its m documents; in a random order of it, the first relevant one sits x places down
    with probability P(x) = C(m - 1 - x, r - 1) / C(m, r), x = 0 .. m - r: the chance that
    the first x are non-relevant, Π_{i < x} (m - r - i) / (m - i), times r / (m - x).
    (McSherry and Najork, ECIR 2008, give the same for reciprocal rank.)
    """
    is_rel = relevant(rel) & retrieved()
    start = pl.col(TIE_START)
    s = start.filter(is_rel).min()  # null without a relevant document
    first = is_rel & (start == s).fill_null(False)
    r = first.sum().cast(pl.Float64)
    m = pl.col(TIE_SIZE).filter(first).first()
    places = (m - r + 1.0).fill_null(0.0).cast(pl.Int64)
    x = pl.int_range(0, places, dtype=pl.Int64).cast(pl.Float64)
    reach = ((m - r - x) / (m - x)).cum_prod().shift(1, fill_value=1.0)
    position = s + x
    term = reach * r / (m - x) / position
    if k is not None:
        term = term.filter(position <= k)
    # added one after the other (x ascending): the same float however the groups are formed
    return term.cum_sum().last().fill_null(0.0)


def _rr_average(*, k: int | None = None, rel: int = 1, depth: int | None = None) -> pl.Expr:
    top = top_rank(k, depth)
    return first_relevant_average(rel, top)


@measure(
    "RR",
    depth=rr_depth,
    tie_bounds=True,
    average=_rr_average,
    sql="ireval_rr",
    qrels_stats=True,
    unjudged=False,
    aliases=["MRR"],
    cite="Kantor and Voorhees, The TREC-5 confusion track: comparing retrieval methods for "
    "scanned text, Information Retrieval 2(2/3), 2000",
    trec=[TrecName("recip_rank")],
    checks={"k": positive_int, "rel": relevant_grade},
)
def rr(*, k: int | None = None, rel: int = 1) -> pl.Expr:
    """RR: 1 / the rank of the first relevant document (0 when none is retrieved).

    Averaged over queries this is MRR.

    RR@k = 1 / min{i <= k : b_i = 1}, 0 when the top ``k`` hold no relevant document; MRR
    = (1/|Q|) Σ_q RR_q (seed 003, eq. 9). The user reads down to the first relevant
    document and stops, so the measure suits tasks with one right answer (a known item,
    a factoid question) or a user who wants only one. Seed 004: bounded, monotone in k,
    realizable and complete (0 without a relevant document), but neither convergent nor
    top-weighted ("01000" and "01100" both score 1/2). Once a relevant document is found
    further judgments below it cannot change the score (seed 000: low volatility).

    0 for an empty ranking and when R = 0. Unjudged documents and negative grades are not
    relevant. Documents with equal scores are ranked as trec_eval ranks them (doc id
    descending); a tie at the first relevant rank decides the value, and some
    ir_measures providers for ``RR@k`` break ties by doc id ascending (docs/compat.md).
    trec_eval's ``recip_rank`` has no cutoff; ranx's ``mrr@k`` and ir_measures'
    ``RR@k`` do.

    Parameters
    ----------
    k
        Cutoff rank: a first relevant document below ``k`` gives 0 (default: none).
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``,
        1 unless set; trec_eval ``-l``).

    See Also
    --------
    trec_eval ``recip_rank``; ir_measures ``RR``, ``RR@10``, ``MRR``; ranx ``mrr``,
    ``mrr@10``; SQL ``ireval_rr``; Success, ERR.

    Examples
    --------
    Seed 003: three queries whose correct answer is at rank 3 (cat), 2 (torus) and 1
    (virus) give MRR = (1/3 + 1/2 + 1)/3 = 11/18 ≈ 0.61.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": ["cat"] * 3 + ["torus"] * 3 + ["virus"] * 3,
    ...                     "doc_id": ["catten", "cati", "cats", "torii", "tori", "toruses",
    ...                                "viruses", "virii", "viri"],
    ...                     "score": [3.0, 2.0, 1.0] * 3})
    >>> qrels = pl.DataFrame({"query_id": ["cat", "torus", "virus"],
    ...                       "doc_id": ["cats", "tori", "viruses"], "relevance": 1})
    >>> ir.evaluate(run, qrels, "RR", per_query=True)["value"].to_list()
    [0.3333333333333333, 0.5, 1.0]
    >>> round(ir.evaluate(run, qrels, "MRR")["value"][0], 4)
    0.6111
    >>> ir.evaluate(run, qrels, "RR@2")["value"].to_list()
    [0.5]
    """
    first = relevant_ranks(rel, k).min()  # null without one
    return (1.0 / first.cast(pl.Float64)).fill_null(0.0)
