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
    query_stat,
    ratio,
    relevant_ranks,
    retrieved,
)
from polars_ireval.registry import TrecName, measure, relevant_grade

#: trec_eval's INFAP_EPSILON, which keeps infAP's pooled-relevance estimate defined.
INFAP_EPSILON = 0.00001


def _bpref(rel: int) -> pl.Expr:
    r = num_rel(rel)
    nonrel_total = query_stat(judged_nonrelevant(rel).sum())
    rel_ranks = relevant_ranks(rel).sort()
    nonrel_ranks = RANK.filter(retrieved() & judged_nonrelevant(rel)).sort()
    above = count_below(nonrel_ranks, rel_ranks).cast(pl.Float64)
    # with none above, the penalty is 0 / max(.., 1) = 0; with some, the max changes nothing
    # (then min(N, R) >= 1): each subexpression appears once, as an aggregation wants it
    penalty = pl.min_horizontal(above, r) / pl.max_horizontal(pl.min_horizontal(nonrel_total, r), 1)
    # the terms follow rel_ranks, sorted: added in rank order
    return ratio((1.0 - penalty).cum_sum().last().fill_null(0.0), r)


@measure(
    "Bpref",
    tie_bounds=True,
    by_r=True,
    sql="ireval_bpref",
    qrels_stats=True,
    unjudged=False,
    aliases=["BPref"],
    cite="Buckley and Voorhees, Retrieval evaluation with incomplete information, SIGIR 2004",
    trec=[TrecName("bpref")],
    cutoff=None,
    checks={"rel": relevant_grade},
)
def bpref(*, rel: int = 1) -> pl.Expr:
    """bpref: how rarely judged non-relevant documents rank above relevant ones.

    bpref = (1/R) Σ over relevant retrieved d of 1 − min(n_d, R) / min(N, R), where n_d is
    the number of judged non-relevant documents (grade in ``[0, rel)``) ranked above d and
    N the number judged non-relevant for the query; a term is 1 when n_d = 0. Unjudged
    documents, and documents with a negative grade, are ignored. 0 when R = 0.

    Binary preference: every relevant document should come before every judged
    non-relevant one, and bpref is the fraction of those preferences (against at most R
    non-relevant documents) that the ranking keeps. Only judged documents enter it, so
    it was designed to stay stable when judgments are incomplete (Buckley and Voorhees),
    unlike AP, which takes unjudged documents as non-relevant. Relevant documents not
    retrieved contribute 0.

    As trec_eval: 0 for an empty ranking; when N = 0 every term is 1 (no division by
    min(N, R) = 0), so bpref is the recall R_ret/R; negative grades (pooled but unjudged)
    are neither relevant nor non-relevant and count in neither R nor N. Documents with
    equal scores are ranked as trec_eval ranks them (doc id descending). pytrec_eval and
    ir_measures agree; ranx's ``bpref`` counts every judgment below ``rel``, negative
    grades included, as non-relevant (so it gives 0.5 where trec_eval gives 1 for query
    q2 below).

    Parameters
    ----------
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``,
        1 unless set; trec_eval ``-l``).

    See Also
    --------
    trec_eval ``bpref``; ir_measures ``Bpref``, ``BPref``; ranx ``bpref``; SQL
    ``ireval_bpref``; gm_bpref, infAP.

    Examples
    --------
    q1: judged non-relevant n1 above a and n1, n2 above b (R = N = 2), so
    bpref = ((1 − 1/2) + (1 − 2/2))/2 = 0.25. q2: the unjudged x and the pooled but unjudged
    n (grade -1) are ignored, so bpref = 1 while AP takes both as non-relevant.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": ["q1"] * 4 + ["q2"] * 4,
    ...                     "doc_id": ["n1", "a", "n2", "b", "x", "a", "n", "b"],
    ...                     "score": [4.0, 3.0, 2.0, 1.0] * 2})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 4 + ["q2"] * 3,
    ...                       "doc_id": ["n1", "a", "n2", "b", "a", "n", "b"],
    ...                       "relevance": [0, 1, 0, 1, 1, -1, 1]})
    >>> ir.evaluate(run, qrels, ["Bpref", "AP"], per_query=True)["value"].to_list()
    [0.25, 0.5, 1.0, 0.5]
    """
    return _bpref(rel)


@measure(
    "gm_bpref",
    tie_bounds=True,
    by_r=True,
    sql="ireval_bpref",
    qrels_stats=True,
    unjudged=False,
    aggregate="gmean",
    cite="Buckley and Voorhees, Retrieval evaluation with incomplete information, SIGIR 2004 "
    "(bpref); Robertson, On GMAP: and other transformations, CIKM 2006 (geometric mean)",
    trec=[TrecName("gm_bpref")],
    cutoff=None,
    checks={"rel": relevant_grade},
)
def gm_bpref(*, rel: int = 1) -> pl.Expr:
    """bpref per query, aggregated by the geometric mean (floor 1e-5, as trec_eval).

    gm_bpref = exp((1/|Q|) Σ_q ln max(bpref_q, 1e-5)): bpref's per-query value (see
    Bpref) with gm_map's aggregate, which rewards consistency across topics over very
    good and very bad ones. A query with bpref = 0 (R = 0, an empty ranking, no relevant
    document retrieved) counts as 1e-5 (trec_eval's ``MIN_GEO_MEAN``).

    Per query (``per_query=True``) the value is the plain bpref; trec_eval prints
    gm_bpref only in its summary and pytrec_eval returns ln(max(bpref, 1e-5)) per query
    (docs/compat.md). Negative grades, ties and unjudged documents are handled as by
    Bpref. ir_measures and ranx have no gm_bpref.

    Parameters
    ----------
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``,
        1 unless set; trec_eval ``-l``).

    See Also
    --------
    trec_eval ``gm_bpref``; SQL ``ireval_bpref`` (per query); Bpref, gm_map.

    Examples
    --------
    Bpref's example: bpref 0.25 and 1 average to 0.625, their geometric mean is 0.5.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": ["q1"] * 4 + ["q2"] * 4,
    ...                     "doc_id": ["n1", "a", "n2", "b", "x", "a", "n", "b"],
    ...                     "score": [4.0, 3.0, 2.0, 1.0] * 2})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 4 + ["q2"] * 3,
    ...                       "doc_id": ["n1", "a", "n2", "b", "a", "n", "b"],
    ...                       "relevance": [0, 1, 0, 1, 1, -1, 1]})
    >>> ir.evaluate(run, qrels, ["Bpref", "gm_bpref"])["value"].to_list()
    [0.625, 0.5]
    """
    return _bpref(rel)


@measure(
    "infAP",
    tie_bounds=False,
    by_r=True,
    sql="ireval_infap",
    qrels_stats=True,
    unjudged=False,
    cite="Yilmaz and Aslam, Estimating average precision with incomplete and imperfect "
    "judgments, CIKM 2006",
    trec=[TrecName("infAP")],
    cutoff=None,
    checks={"rel": relevant_grade},
)
def inf_ap(*, rel: int = 1) -> pl.Expr:
    """infAP: average precision estimated from a sample of judgments (Yilmaz and Aslam).

    For the relevant retrieved document at rank i (i > 1) the expected precision is
    1/i + ((i−1)/i) · (p/(i−1)) · ((r + ε)/(r + n + 2ε)), where among the i−1 documents
    above it p are in the pool (in the qrels, any grade), r relevant and n judged
    non-relevant; documents with a negative grade are pooled but unjudged. The first rank
    contributes 1. The sum is divided by R (0 when R = 0); ε = 1e-5. With complete
    judgments infAP equals AP (up to ε).

    The qrels judge a random sample of the pool: a negative grade marks a pooled
    document left unjudged. The precision above a relevant document is estimated from
    the judged documents above it, which stand in for the unjudged pooled ones in the
    same proportion; documents outside the pool (not in the qrels) count as
    non-relevant, as in AP. Relevant documents not retrieved contribute 0.

    As trec_eval: 0 for an empty ranking and when R = 0; the sum is divided by R, the
    number of documents judged relevant in the sample. Documents with equal scores are
    ranked as trec_eval ranks them (doc id descending). pytrec_eval and ir_measures
    (through pytrec_eval) agree; ranx has no infAP.

    Parameters
    ----------
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``,
        1 unless set; trec_eval ``-l``).

    See Also
    --------
    trec_eval ``infAP``; ir_measures ``infAP``; SQL ``ireval_infap``; AP, Bpref.

    Examples
    --------
    q1 is fully judged: infAP = AP = 0.5, up to ε. In q2, a (rank 2) has nothing pooled
    above it: 1/2; above b (rank 4) the pool holds a (relevant) and n (grade -1,
    unjudged), so its precision is estimated as 1/4 + (3/4) · (2/3) · 1 = 3/4, and
    infAP = (1/2 + 3/4)/2 = 0.625 where AP, counting x and n as non-relevant, is 0.5.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": ["q1"] * 4 + ["q2"] * 4,
    ...                     "doc_id": ["n1", "a", "n2", "b", "x", "a", "n", "b"],
    ...                     "score": [4.0, 3.0, 2.0, 1.0] * 2})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 4 + ["q2"] * 3,
    ...                       "doc_id": ["n1", "a", "n2", "b", "a", "n", "b"],
    ...                       "relevance": [0, 1, 0, 1, 1, -1, 1]})
    >>> out = ir.evaluate(run, qrels, ["infAP", "AP"], per_query=True)
    >>> [round(v, 6) for v in out["value"]]
    [0.500003, 0.5, 0.624998, 0.5]
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
