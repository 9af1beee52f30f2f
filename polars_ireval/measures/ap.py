"""Average precision and R-precision."""

from __future__ import annotations

from typing import Any

import polars as pl

from polars_ireval.errors import ParameterError
from polars_ireval.measures._expr import (
    RANK,
    REL,
    TIE_SIZE,
    TIE_START,
    Cutoff,
    count_below,
    cut,
    expected_count,
    num_rel,
    ordered_sum,
    query_stat,
    ratio,
    rel_ret,
    relevant,
    retrieved,
    sum_of_precisions,
)
from polars_ireval.measures.dcg import (
    Gains,
    Weights,
    check_discount,
    discount_kind,
    discounted,
    weight_vector,
)
from polars_ireval.measures.depth import DepthPlan, ratio_by_row
from polars_ireval.measures.precision import CUTOFFS
from polars_ireval.registry import (
    SqlCall,
    SqlSpec,
    TrecName,
    check,
    grade_ordered,
    measure,
    positive,
    positive_int,
    relevant_grade,
    sql_call,
    unit_gain_map,
)

_CHECKS = {"k": positive_int, "rel": relevant_grade}
AP_NORMS = ("R", "min", "self")


@check("it must be 'R' (trec_eval), 'min' (min(k, R)) or 'self' (R_k, relevant in the top k)")
def ap_norm(v: object) -> bool:
    return v in AP_NORMS


_VARIANT_CHECKS = {
    **_CHECKS,
    "norm": ap_norm,
    "gains": unit_gain_map,
    "discount": discount_kind,
    "b": positive,
    "weights": weight_vector,
}


def ap_sql(args: dict[str, Any]) -> SqlSpec:
    """trec_eval's AP (``ireval_ap``), or ``ireval_ap_variant`` for another normalisation,
    graded gains or a discount (the branches of :func:`ap`)."""
    default = (
        args["norm"] == "R"
        and args["gains"] is None
        and args["discount"] == "rank"
        and args["weights"] is None
    )
    if default:
        return SqlCall("ireval_ap", {"k": args["k"], "rel": args["rel"]})
    return sql_call("ireval_ap_variant")(args)


def expected_precisions(rel: int, k: Cutoff = None) -> pl.Expr:
    """E[Σ precision at each relevant document in the top ``k``] over tie orders.

    A relevant document d of a tie that starts at rank s, holds m documents and r relevant
    ones, below c relevant documents of earlier ties, sits at rank s + x with probability
    1/m (x = 0 .. m - 1); given x, the relevant documents of its tie above it number
    x (r - 1) / (m - 1) on average (x places drawn from the m - 1 others), so its expected
    precision there is (c + 1 + x (r - 1) / (m - 1)) / (s + x), linear in that number
    (McSherry and Najork, ECIR 2008, derive AP under ties this way). Summed over the
    places x with s + x <= k, over m, and over the relevant documents.
    """
    is_rel = relevant(rel) & retrieved()
    start = pl.col(TIE_START).filter(is_rel)
    size = pl.col(TIE_SIZE).filter(is_rel)
    starts = start.sort()
    above = count_below(starts, start).cast(pl.Float64)  # c: relevant in earlier ties
    tied = starts.search_sorted(start, side="right").cast(pl.Float64) - above  # r
    slope = pl.when(size > 1.0).then((tied - 1.0) / (size - 1.0)).otherwise(0.0)
    places = size if k is None else (k - start + 1.0).clip(0.0, size)
    # one element per (relevant document, place x): its rows repeated, x counted (rows
    # with no place above k left out: an empty list would explode to a null)
    some = places > 0.0
    n = places.filter(some).cast(pl.Int64)
    x = pl.int_ranges(0, n).explode().cast(pl.Float64)
    c, s, b, m = (e.filter(some).repeat_by(n).explode() for e in (above, start, slope, size))
    # in rank order (s + x): the terms of one place are equal, so the sum is the same float
    # whatever the order of the table's rows
    return ordered_sum((c + 1.0 + x * b) / (s + x) / m, s + x)


def _ap_average(
    *,
    k: int | None = None,
    rel: int = 1,
    norm: str = "R",
    gains: Gains = None,
    discount: str = "rank",
    b: float = 2.0,
    weights: Weights = None,
    depth: int | None = None,
) -> pl.Expr:
    if gains is not None or discount != "rank" or weights is not None or norm == "self":
        raise ParameterError(
            "AP: ties='average' is computed for binary relevance, the rank discount and "
            f"norm='R' or 'min' (got norm={norm!r}, gains={gains!r}, discount={discount!r}, "
            f"weights={weights!r}); see polars_ireval.tie_sensitivity for the others"
        )
    total = expected_precisions(rel, cut(k, depth))
    n = num_rel(rel)
    if norm == "min" and k is not None:
        n = pl.min_horizontal(n.cast(pl.Int64), pl.lit(k, dtype=pl.Int64))
    return ratio(total, n)


def _rprec_average(*, k: int | None = None, rel: int = 1, depth: int | None = None) -> pl.Expr:
    r = num_rel(rel).cast(pl.Int64)
    at = r if k is None else pl.min_horizontal(r, pl.lit(k, dtype=pl.Int64))
    return ratio(expected_count(relevant(rel), cut(at, depth)), at)


def _sp_average(*, k: int | None = None, rel: int = 1, depth: int | None = None) -> pl.Expr:
    return expected_precisions(rel, cut(k, depth))


def _gm_map_average(*, k: int | None = None, rel: int = 1, depth: int | None = None) -> pl.Expr:
    return ratio(expected_precisions(rel, cut(k, depth)), num_rel(rel))


def running_precisions(is_rel: pl.Expr) -> pl.Expr:
    """Over a ranking's rows in rank order, the running Σ (relevant documents down to i) / i
    over the relevant ranks i: AP's numerator (:func:`sum_of_precisions`) down to each rank."""
    i = is_rel.cast(pl.Float64).cum_sum()
    return pl.when(is_rel).then(i / RANK.cast(pl.Float64)).otherwise(0.0).cum_sum()


def ap_depth(args: dict[str, Any]) -> Any:
    """AP@k at every depth: the running sum of precisions over R (trec_eval's AP only)."""
    if (args["norm"], args["gains"], args["discount"], args["weights"]) != (
        "R",
        None,
        "rank",
        None,
    ):
        return None

    def fill(plan: DepthPlan) -> None:
        sop = plan.event("sop", plan.running(running_precisions(relevant(args["rel"]))))
        plan.value = ratio_by_row(sop, plan.query("R", num_rel(args["rel"])))

    return fill


@measure(
    "AP",
    depth=ap_depth,
    tie_bounds=grade_ordered,
    average=_ap_average,
    # SN-AP divides by the relevant documents it retrieved, not by R: 0 without any, as
    # SN-DCG (DCG(norm='self')) is
    by_r=lambda p: p["norm"] != "self",
    sql=ap_sql,
    qrels_stats=True,
    unjudged=False,
    aliases=["MAP"],
    cite="Harman, Overview of the Second Text Retrieval Conference (TREC-2), 1993",
    trec=[TrecName("map"), TrecName("map_cut", "k", CUTOFFS, "list")],
    checks=_VARIANT_CHECKS,
)
def ap(
    *,
    k: int | None = None,
    rel: int = 1,
    norm: str = "R",
    gains: Gains = None,
    discount: str = "rank",
    b: float = 2.0,
    weights: Weights = None,
) -> pl.Expr:
    """AP: the mean, over all R relevant documents, of the precision at each one's rank.

    Relevant documents not retrieved (or ranked below ``k``) contribute 0; the sum is
    divided by R, the number of relevant documents judged for the query (retrieved or
    not), as trec_eval's ``map`` and ``map_cut``. 0 when R = 0. In Robertson's user model
    the user picks a relevant document at random and reads down to it.

    The variants keep SP@k = Σ_{i <= k} r_i · (Σ_{j <= i} r_j) · w_i (with w_i = 1/i this is
    Σ r_i P@i) and change one part: ``norm`` divides by min(k, R) (seed 000, eq. 1: a perfect
    ranking scores 1 whatever R and k) or by R_k, the relevant documents in the top ``k``
    (SN-AP, seed 004; neither monotone nor convergent); ``gains`` makes r_i graded (graded
    AP, seed 001 formula 10.1; R then counts the documents with a positive gain); and
    ``discount`` replaces 1/i by another rank weight (discounted MAP, seed 001 formula 10.2;
    ``"none"`` sums cumulated gains, ``"square"`` discounts by i^2).

    Parameters
    ----------
    k
        Cutoff rank (default: the whole ranking).
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``);
        ignored when ``gains`` is given.
    norm
        ``"R"`` (default, trec_eval), ``"min"`` (min(k, R); R without ``k``) or ``"self"``
        (R_k).
    gains
        Graded relevance r in [0, 1] per grade, e.g. ``{1: 0.5, 2: 1}`` (seed 001's
        relevance function); grades not listed and unjudged documents have r = 0. With
        the rank discount a perfect ranking then scores at most 1; a flatter discount
        (``"none"``, ``"log2"``...) sums cumulated gains and can exceed 1 (the seed notes
        it for its discounted MAP).
    discount
        The weight of the i-th addend: ``"rank"`` (default, 1/i: precision), or any discount
        of :func:`polars_ireval.dcg` (``"none"``, ``"log2"``, ``"jk"``, ``"root"``,
        ``"square"``, ``"click"``...).
    b
        Log base of the ``"log"`` and ``"jk"`` discounts (default 2).
    weights
        Weight of each rank for the ``"click"``/``"custom"`` discounts.

    See Also
    --------
    trec_eval ``map``, ``map_cut.k``; ir_measures ``AP``, ``AP@100``; SP.

    Examples
    --------
    Seed 004: SN-AP@5 of "10000" is 1 and of "10001" is (1 + 2/5)/2 = 0.7.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": ["q1"] * 5 + ["q2"] * 5, "doc_id": list("abcdeabcde"),
    ...                     "score": [5.0, 4.0, 3.0, 2.0, 1.0] * 2})
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q1", "q2", "q2", "q2"],
    ...                       "doc_id": ["a", "x", "a", "e", "x"], "relevance": [1, 1, 1, 1, 1]})
    >>> ir.evaluate(run, qrels, ["AP(norm='self')@5", "AP@5"], per_query=True)
    shape: (4, 3)
    ┌──────────┬───────────────────┬──────────┐
    │ query_id ┆ measure           ┆ value    │
    │ ---      ┆ ---               ┆ ---      │
    │ str      ┆ str               ┆ f64      │
    ╞══════════╪═══════════════════╪══════════╡
    │ q1       ┆ AP(norm='self')@5 ┆ 1.0      │
    │ q1       ┆ AP@5              ┆ 0.5      │
    │ q2       ┆ AP(norm='self')@5 ┆ 0.7      │
    │ q2       ┆ AP@5              ┆ 0.466667 │
    └──────────┴───────────────────┴──────────┘
    """
    if norm == "R" and gains is None and discount == "rank" and weights is None:
        return _ap(k, rel)  # trec_eval's map / map_cut: the default path
    check_discount(discount, b, weights)
    r = _graded(rel, gains)
    if norm == "self":
        return ratio(_sum_of_precisions(r, k, discount, b, weights), (retrieved(k) & (r > 0)).sum())
    n = query_stat((r > 0).sum())
    if norm == "min" and k is not None:
        n = pl.min_horizontal(n.cast(pl.Int64), pl.lit(k, dtype=pl.Int64))
    return ratio(_sum_of_precisions(r, k, discount, b, weights), n)


def _graded(rel: int, gains: Gains) -> pl.Expr:
    """Each row's relevance r: ``gains[grade]`` (0 when not listed) or 1 for grade >= rel."""
    if gains:
        return REL.replace_strict(
            list(gains), [float(v) for v in gains.values()], default=0.0, return_dtype=pl.Float64
        ).fill_null(0.0)
    return relevant(rel).cast(pl.Float64)


def _sum_of_precisions(
    r: pl.Expr, k: int | None, discount: str = "rank", b: float = 2.0, weights: Weights = None
) -> pl.Expr:
    """Σ_{i <= k} r_i · (Σ_{j <= i} r_j) · w_i over the ranking, in rank order."""
    keep = retrieved(k)
    rank = RANK.filter(keep).sort()
    ranked = r.filter(keep).sort_by(RANK.filter(keep))
    terms = discounted(ranked * ranked.cum_sum(), rank, discount, b, weights)
    return terms.cum_sum().last().fill_null(0.0)


def _ap(k: int | None, rel: int) -> pl.Expr:
    return ratio(sum_of_precisions(rel, k), num_rel(rel))


@measure(
    "gm_map",
    tie_bounds=True,
    average=_gm_map_average,
    by_r=True,
    sql="ireval_ap",
    qrels_stats=True,
    unjudged=False,
    aggregate="gmean",
    cite="Robertson, On GMAP: and other transformations, CIKM 2006; Voorhees, Overview of "
    "the TREC 2004 Robust Retrieval Track, TREC 2004",
    trec=[TrecName("gm_map")],
    checks=_CHECKS,
)
def gm_map(*, k: int | None = None, rel: int = 1) -> pl.Expr:
    """GMAP: AP per query, aggregated by the geometric mean over queries.

    GMAP = exp((1/|Q|) Σ_q ln max(AP_q, 1e-5)): the per-query value is AP (see AP; with
    ``k``, AP@k as trec_eval's ``map_cut``), only the aggregate changes. Values below
    1e-5 count as 1e-5 in the geometric mean (trec_eval's ``MIN_GEO_MEAN``), so a query
    with AP = 0 (R = 0, an empty ranking, no relevant document retrieved) pulls the mean
    down hard but does not zero it. The mean of logs rewards a system that is consistent
    across topics over one that does very well on some and very badly on others: raising
    a poor topic from 0.01 to 0.02 counts as much as a good one from 0.4 to 0.8. The TREC
    2004 Robust track introduced it for that reason, following Robertson.

    Per query (``per_query=True``) the value is the plain AP; trec_eval prints gm_map only
    in its summary and pytrec_eval returns ln(max(AP, 1e-5)) per query (docs/compat.md).
    Under ``missing="zero"`` (trec_eval ``-c``) a judged query missing from the run
    counts as AP = 0, that is as 1e-5. Documents with equal scores are ranked as
    trec_eval ranks them (doc id descending). ir_measures and ranx have no GMAP.

    Parameters
    ----------
    k
        Cutoff rank (default: the whole ranking, trec_eval's ``gm_map``).
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``,
        1 unless set; trec_eval ``-l``).

    See Also
    --------
    trec_eval ``gm_map``; SQL ``ireval_ap`` (per query; take exp(avg(ln(greatest(value,
    1e-5))))); AP, gm_bpref.

    Examples
    --------
    AP 1 and 0.25 average to MAP 0.625 but GMAP sqrt(1 · 0.25) = 0.5; AP 1 and 0 give
    MAP 0.5 and GMAP sqrt(1 · 1e-5).

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": ["q1"] * 4 + ["q2"] * 4, "doc_id": list("abcdabcd"),
    ...                     "score": [4.0, 3.0, 2.0, 1.0] * 2})
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "d"], "relevance": 1})
    >>> ir.evaluate(run, qrels, ["AP", "gm_map"])["value"].to_list()
    [0.625, 0.5]
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "x"], "relevance": 1})
    >>> ir.evaluate(run, qrels, ["AP", "gm_map"])["value"].to_list()
    [0.5, 0.003162277660168379]
    """
    return _ap(k, rel)


@measure(
    "Rprec",
    tie_bounds=True,
    average=_rprec_average,
    by_r=True,
    sql="ireval_rprec",
    qrels_stats=True,
    unjudged=False,
    aliases=["RPrec"],
    cite="Buckley and Voorhees, Retrieval System Evaluation, ch. 3 of TREC: Experiment and "
    "Evaluation in Information Retrieval (Voorhees and Harman, eds.), MIT Press, 2005",
    trec=[TrecName("Rprec")],
    checks=_CHECKS,
)
def rprec(*, k: int | None = None, rel: int = 1) -> pl.Expr:
    """R-precision: precision at rank R, where R is the number of relevant documents.

    Rprec = (1/R) Σ_{i <= R} b_i = P@R = R@R: at rank R precision equals recall, so
    R-precision is also the recall there and the break-even point of the two. Every query
    is measured at the same relative point of its ranking, which makes it average better
    than P@k, and a perfect ranking scores 1 (seed 003). It needs R, so it is not local
    to a fixed depth (seed 004's RPrec).

    0 when R = 0 (trec_eval; seed 004 leaves it undefined) and for an empty ranking. A
    ranking shorter than R counts its missing ranks as non-relevant (the denominator is
    R). R counts the documents judged with a grade >= ``rel``; unjudged documents and
    negative grades are not relevant. Documents with equal scores are ranked as
    trec_eval ranks them (doc id descending), which decides which of them fall inside
    rank R. trec_eval, ir_measures and ranx (``r-precision``) agree.

    With a cutoff, ``RPrec@k`` is seed 004's R-precision at depth k: P@k while k <= R and
    P@R once k >= R, that is the relevant documents in the top min(k, R) over min(k, R).
    It reads only the top ``k`` ranks, yet it needs R (not localized); a perfect ranking
    scores 1 whatever R (realizable). 0 when R = 0, as without a cutoff.

    Parameters
    ----------
    k
        Depth (default: none, trec_eval's R-precision; ``RPrec@k`` caps the rank R at k).
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``,
        1 unless set; trec_eval ``-l``).

    See Also
    --------
    trec_eval ``Rprec``; ir_measures ``Rprec``; ranx ``r-precision``; SQL ``ireval_rprec``;
    Rprec_mult (precision at multiples of R), P, R, relative_P (min(k, R) as the
    denominator, but counting the whole top k).

    Examples
    --------
    Seed 003: with 8 relevant documents a perfect system can reach only P@20 = 0.4, but
    R-precision adjusts to R. Here 6 of the top 8 are relevant, so R-precision, and the
    recall at rank 8, are 6/8:

    >>> import polars as pl, polars_ireval as ir
    >>> docs = [f"d{i}" for i in range(1, 11)]
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": docs,
    ...                     "score": [10.0, 9.0, 8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": docs,
    ...                       "relevance": [1, 1, 1, 1, 1, 1, 0, 0, 1, 1]})
    >>> ir.evaluate(run, qrels, ["Rprec", "R@8", "P@20"])["value"].to_list()
    [0.75, 0.75, 0.4]

    At depth 5 (< R = 8) it is P@5; at depth 10 (>= R) it is Rprec:

    >>> ir.evaluate(run, qrels, ["RPrec@5", "P@5", "RPrec@10"])["value"].to_list()
    [1.0, 1.0, 0.75]
    """
    r = num_rel(rel).cast(pl.Int64)
    depth = r if k is None else pl.min_horizontal(r, pl.lit(k, dtype=pl.Int64))
    return ratio(rel_ret(rel, depth), depth)


@measure(
    "SP",
    tie_bounds=True,
    average=_sp_average,
    by_r=True,
    sql="ireval_sp",
    qrels_stats=True,
    unjudged=False,
    cite="Aslam, Pavlu and Yilmaz, A statistical method for system evaluation using "
    "incomplete judgments, SIGIR 2006",
    checks=_CHECKS,
)
def sp(*, k: int | None = None, rel: int = 1) -> pl.Expr:
    """SP@k: sum of precisions, Σ_{i <= k} b_i · P@i over the relevant ranks of the top k.

    AP before its division by R (seed 004): unbounded (at most k), monotone in k, and
    computable when the query has no relevant document.

    Parameters
    ----------
    k
        Cutoff rank (default: the whole ranking).
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``).

    See Also
    --------
    AP, ``AP(norm='self')``.

    Examples
    --------
    "10100": SP@5 = 1/1 + 2/3.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcde"),
    ...                     "score": [5.0, 4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "c"], "relevance": [1, 1]})
    >>> round(ir.evaluate(run, qrels, "SP@5")["value"][0], 12)
    1.666666666667
    """
    return sum_of_precisions(rel, k)
