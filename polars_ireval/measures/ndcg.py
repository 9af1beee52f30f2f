"""Gain-based measures: nDCG and trec_eval's ndcg_rel, Rndcg, G and binG.

Gains follow trec_eval: a judged document with grade g >= 0 gains g, or ``gains[g]`` when
a gain map is given (grades absent from the map keep g, as trec_eval's ``ndcg.1=3,2=9``
and ir_measures' ``nDCG(gains=...)``); unjudged documents and negative grades gain 0.
The ideal ranking lists every judged document with a positive gain, best first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import polars as pl

from polars_ireval.errors import ParameterError
from polars_ireval.measures._expr import (
    RANK,
    REL,
    dcg_at_k,
    ideal_dcg_at_k,
    judged_graded,
    log2_discount,
    num_rel,
    ordered_sum,
    ratio,
    relevant_ranks,
    retrieved,
    value_at,
)
from polars_ireval.measures.dcg import (
    Weights,
    discount_kind,
    gain_kind,
    grade_gain,
    normalised_dcg,
    weight_vector,
)
from polars_ireval.measures.depth import DepthPlan, ratio_by_row
from polars_ireval.measures.precision import CUTOFFS
from polars_ireval.registry import (
    SQL_NAMES,
    SqlCall,
    SqlSpec,
    TrecName,
    check,
    gain_map,
    grade_ordered,
    measure,
    positive,
    positive_int,
    relevant_grade,
)

DCG_KINDS = ("log2", "exp-log2")
Gains = Mapping[int, float] | None


@check("it must be 'log2' (gain = grade) or 'exp-log2' (gain = 2**grade - 1)")
def dcg_kind(v: object) -> bool:
    return v in DCG_KINDS


def trec_gains(text: str) -> dict[int, float]:
    """trec_eval's gain map ``1=3,2=9,4=4.5`` as ``{1: 3.0, 2: 9.0, 4: 4.5}``."""
    out: dict[int, float] = {}
    for item in text.split(","):
        grade, sep, value = item.partition("=")
        try:
            out[int(grade)] = float(value)
        except ValueError:
            sep = ""
        if not sep:
            raise ParameterError(f"{text!r}: {item!r} is not 'grade=gain' (e.g. ndcg.1=3,2=9)")
    return out


def of_grade_expr(gains: Gains = None, dcg: str = "log2") -> Callable[[pl.Expr], pl.Expr]:
    """The gain of a (float64, non-negative) grade: the grade, ``gains[grade]``, or
    ``2**gain - 1`` with ``exp-log2``; for :func:`dcg_at_k`, which applies it to judged rows."""

    def of_grade(grade: pl.Expr) -> pl.Expr:
        if gains:
            grade = grade.replace([float(k) for k in gains], [float(v) for v in gains.values()])
        return pl.lit(2.0).pow(grade) - 1.0 if dcg == "exp-log2" else grade

    return of_grade


def _gain(gains: Gains = None, dcg: str = "log2") -> pl.Expr:
    """Each row's gain: its grade, ``gains[grade]``, or ``2**gain - 1`` with ``exp-log2``.

    Unjudged documents and negative grades gain 0.
    """
    grade = REL.cast(pl.Float64)
    if gains:
        grade = grade.replace([float(k) for k in gains], [float(v) for v in gains.values()])
    value = pl.when(REL >= 0).then(grade).otherwise(0.0)
    if dcg == "exp-log2":
        value = pl.lit(2.0).pow(value) - 1.0
    return value


gain = _gain  # the public name, kept for importers


def discount(position: pl.Expr) -> pl.Expr:
    """``log2(position + 1)``: 1 at the first rank."""
    return (position.cast(pl.Float64) + 1.0).log(2)


class _Ranked:
    """The retrieved documents with a non-zero gain, in rank order, and their running DCG."""

    def __init__(self, g: pl.Expr, k: int | None = None) -> None:
        keep = retrieved(k) & (g != 0)
        self.gain = g.filter(keep).sort_by(RANK.filter(keep))
        self.rank = RANK.filter(keep).sort()
        self.dcg = (self.gain / discount(self.rank)).cum_sum()

    def total(self) -> pl.Expr:
        return self.dcg.last().fill_null(0.0)

    def at(self, position: pl.Expr) -> pl.Expr:
        """DCG of the top ``position`` ranks."""
        return value_at(self.dcg, self.rank.search_sorted(position, side="right"))


class _Ideal:
    """The ideal gain sequence (positive gains, descending) and its running DCG."""

    def __init__(self, g: pl.Expr) -> None:
        self.gain = g.filter(g > 0).sort(descending=True)
        self.position = self.gain.cum_count()
        self.length = self.gain.len()
        self.dcg = (self.gain / discount(self.position)).cum_sum()

    def total(self, k: int | None = None) -> pl.Expr:
        if k is None:
            return self.dcg.last().fill_null(0.0)
        return pl.lit(0.0).append(self.dcg).get(pl.min_horizontal(self.length, k))

    def at(self, position: pl.Expr) -> pl.Expr:
        """Ideal DCG of the top ``position`` ranks (the full ideal DCG beyond its length)."""
        return value_at(self.dcg, pl.min_horizontal(position, self.length))


_GAIN_CHECKS = {"gains": gain_map, "dcg": dcg_kind}
_FAMILY_CHECKS = {
    "gain": gain_kind,
    "discount": discount_kind,
    "b": positive,
    "weights": weight_vector,
}


def ndcg_sql(args: dict[str, Any]) -> SqlSpec:
    """trec_eval's nDCG (``ireval_ndcg``), or ``ireval_dcg`` normalised by the ideal DCG for
    another gain or discount (the branches of :func:`ndcg`)."""
    if args["gain"] == "linear" and args["discount"] == "log2" and args["weights"] is None:
        return SqlCall("ireval_ndcg", {n: args[n] for n in ("k", "gains", "dcg")})
    gain = "exp" if args["dcg"] == "exp-log2" else args["gain"]
    family = {n: args[n] for n in ("k", "gains", "discount", "b", "weights")}
    return SqlCall("ireval_dcg", {**family, SQL_NAMES["gain"]: gain, "norm": "ideal"})


def _ndcg_average(
    *,
    k: int | None = None,
    dcg: str = "log2",
    gains: Gains = None,
    gain: str = "linear",
    discount: str = "log2",
    b: float = 2.0,
    weights: Weights = None,
    depth: int | None = None,
) -> pl.Expr:
    g = grade_gain("exp" if dcg == "exp-log2" else gain, gains)
    return normalised_dcg(
        g, k=k, norm="ideal", discount=discount, b=b, weights=weights, average=True, depth=depth
    )


def ndcg_depth(args: dict[str, Any]) -> Any:
    """nDCG@k at every depth (trec_eval's gain and discount): the running DCG (the terms of
    :func:`dcg_at_k`) over the ideal DCG at k (:func:`ideal_dcg_at_k`) of each depth."""
    if (args["gain"], args["discount"], args["weights"]) != ("linear", "log2", None):
        return None
    of_grade = of_grade_expr(args["gains"], args["dcg"])

    def fill(plan: DepthPlan) -> None:
        term = pl.when(judged_graded()).then(of_grade(REL.cast(pl.Float64)) / log2_discount(RANK))
        dcg = plan.event("dcg", plan.running(term.otherwise(0.0).cum_sum()))
        g = of_grade(REL.filter((REL >= 0).fill_null(False)).cast(pl.Float64))
        ideal = g.filter(g > 0).sort(descending=True)
        running = (ideal / log2_discount(ideal.cum_count())).cum_sum()
        at_k = value_at(running, pl.min_horizontal(plan.depths, ideal.len()))
        plan.value = ratio_by_row(dcg, plan.query("idcg", at_k, per_depth=True))

    return fill


@measure(
    "nDCG",
    depth=ndcg_depth,
    tie_bounds=grade_ordered,
    average=_ndcg_average,
    by_r=True,
    sql=ndcg_sql,
    qrels_stats=True,
    unjudged=False,
    aliases=["NDCG"],
    cite="Järvelin and Kekäläinen, Cumulated gain-based evaluation of IR techniques, TOIS 2002",
    trec=[
        TrecName("ndcg", "gains", (), "whole", convert=trec_gains),
        TrecName("ndcg_cut", "k", CUTOFFS, "list"),
    ],
    checks={"k": positive_int, **_GAIN_CHECKS, **_FAMILY_CHECKS},
)
def ndcg(
    *,
    k: int | None = None,
    dcg: str = "log2",
    gains: Gains = None,
    gain: str = "linear",
    discount: str = "log2",
    b: float = 2.0,
    weights: Weights = None,
) -> pl.Expr:
    """nDCG@k: DCG of the top ``k`` over the DCG of the ideal top ``k``.

    DCG = Σ gain(rank) / log2(rank + 1). The ideal ranking sorts every judged document of
    the query (retrieved or not) by gain. 0 when the query has no positive gain. The user
    reads the top ``k``, valuing lower ranks less, and the score is relative to the best
    any system could do on this query. Gain and discount are those of :func:`dcg`.

    Parameters
    ----------
    k
        Cutoff rank (default: the whole ranking, trec_eval's ``ndcg``).
    dcg
        ``"log2"`` (default): gain = grade, as trec_eval. ``"exp-log2"``: gain = 2^grade - 1
        (Burges et al.).
    gains
        Gain per grade, e.g. ``{0: 0, 1: 1, 2: 3}``; grades not listed gain their grade.
    gain
        ``"linear"`` (default) or ``"exp"`` (2^grade - 1, the same as ``dcg="exp-log2"``).
    discount
        Rank discount (default ``"log2"``); any of :func:`dcg`'s.
    b
        Log base of the ``"log"`` and ``"jk"`` discounts (default 2).
    weights
        Weight of each rank for the ``"click"``/``"custom"`` discounts.

    See Also
    --------
    trec_eval ``ndcg``, ``ndcg_cut.k``, ``ndcg.1=3,2=9``; ir_measures ``nDCG@10``,
    ``nDCG(dcg='exp-log2')@10``, ``nDCG(gains={0:0,1:1,2:3})@10``; ranx ``ndcg_burges``
    (``nDCG(gain='exp')``); ``DCG(norm='ideal')``.

    Examples
    --------
    Seed 004: "111110" with R > 5 has NDCG@6 = SDCG@6 ≈ 0.89.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcdef"),
    ...                     "score": [6.0, 5.0, 4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": list("abcdexy"),
    ...                       "relevance": [1, 1, 1, 1, 1, 1, 1]})
    >>> values = ir.evaluate(run, qrels, ["nDCG@6", "nDCG(discount='rank')@6"])["value"]
    >>> [round(v, 4) for v in values]
    [0.8922, 0.932]
    """
    if gain == "linear" and discount == "log2" and weights is None:
        # trec_eval's nDCG, the hot path: gains computed on judged rows only
        of_grade = of_grade_expr(gains, dcg)
        return ratio(dcg_at_k(of_grade, k), ideal_dcg_at_k(of_grade, k))
    g = grade_gain("exp" if dcg == "exp-log2" else gain, gains)
    return normalised_dcg(g, k=k, norm="ideal", discount=discount, b=b, weights=weights)


@measure(
    "ndcg_rel",
    tie_bounds=grade_ordered,
    by_r=True,
    sql="ireval_ndcg_rel",
    unjudged=False,
    cite="Järvelin and Kekäläinen, Cumulated gain-based evaluation of IR techniques, TOIS "
    "2002 (nDCG); trec_eval 9.0 (NIST), experimental measure ndcg_rel",
    trec=[TrecName("ndcg_rel", "gains", (), "whole", convert=trec_gains)],
    cutoff=None,
    checks=_GAIN_CHECKS,
)
def ndcg_rel(*, dcg: str = "log2", gains: Gains = None) -> pl.Expr:
    """nDCG averaged over the relevant documents: the mean of nDCG at the rank of each
    document with a positive gain (a relevant document not retrieved contributes the nDCG
    of the whole ranking).

    ndcg_rel = (1/L) Σ_{d : gain(d) > 0} nDCG@rank(d), where L is the number of judged
    documents with a positive gain (the length of the ideal ranking), nDCG@i = DCG@i /
    IDCG@i with DCG@i = Σ_{j <= i} gain_j / log2(j + 1) as in nDCG, and an unretrieved d
    takes nDCG at the end of the ranking. nDCG@k falls while the ideal ranking still has
    gain to add and rises again after, so its value depends on where it is read;
    averaging it at the relevant documents, as AP averages precision, evens this out
    (trec_eval's rationale; an experimental measure there).

    Gains follow nDCG: the grade, or ``gains[grade]`` for a mapped grade (trec_eval's
    ``ndcg_rel.1=3,2=9``); mapped gains may be 0 or negative, and "relevant" means a
    positive gain, whatever ``relevance_level``. Unjudged documents and negative grades
    gain 0. 0 for an empty ranking and when no judged document has a positive gain.
    Documents with equal scores are ranked as trec_eval ranks them (doc id descending).
    Not in ir_measures or ranx.

    Parameters
    ----------
    dcg
        ``"log2"`` (default): gain = grade, as trec_eval; ``"exp-log2"``: gain =
        2^grade − 1; see :func:`ndcg`.
    gains
        Gain per grade, e.g. ``{1: 3.0, 2: 9.0}``; grades not listed gain their grade
        (default: none, every grade gains itself); see :func:`ndcg`.

    See Also
    --------
    trec_eval ``ndcg_rel``, ``ndcg_rel.1=3,2=9``; SQL ``ireval_ndcg_rel``; nDCG, Rndcg, AP.

    Examples
    --------
    Grades 2, 0, 1 at ranks 1 to 3 and a grade-1 document d not retrieved: the ideal
    gains are 2, 1, 1. nDCG is 1 at rank 1 (a), and at rank 3 (c) it is
    (2 + 1/2) / (2 + 1/log2 3 + 1/2) ≈ 0.7985, which d takes as well:
    ndcg_rel = (1 + 2 · 0.7985)/3.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"],
    ...                     "score": [3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c", "d"],
    ...                       "relevance": [2, 0, 1, 1]})
    >>> out = ir.evaluate(run, qrels, ["ndcg_rel", "nDCG@1", "nDCG@3"])
    >>> [round(v, 4) for v in out["value"]]
    [0.8657, 1.0, 0.7985]
    """
    g = _gain(gains, dcg)
    ranked, ideal = _Ranked(g), _Ideal(g)
    positive = ranked.gain > 0
    at_rel = ranked.dcg.filter(positive) / ideal.at(ranked.rank.filter(positive))
    found = positive.sum()
    rest = (ideal.length - found).cast(pl.Float64) * ranked.total() / ideal.total()
    total = ordered_sum(at_rel, ranked.rank.filter(positive)) + pl.when(ideal.length > found).then(
        rest
    ).otherwise(0.0)
    return pl.when(total > 0).then(total / ideal.length.cast(pl.Float64)).otherwise(0.0)


@measure(
    "Rndcg",
    tie_bounds=grade_ordered,
    by_r=True,
    sql="ireval_rndcg",
    cite="Järvelin and Kekäläinen, Cumulated gain-based evaluation of IR techniques, TOIS "
    "2002 (nDCG); trec_eval 9.0 (NIST), experimental measure Rndcg",
    trec=[TrecName("Rndcg", "gains", (), "whole", convert=trec_gains)],
    cutoff=None,
    checks={"rel": relevant_grade, **_GAIN_CHECKS},
)
def rndcg(*, dcg: str = "log2", gains: Gains = None, rel: int = 1) -> pl.Expr:
    """nDCG averaged over the R-levels of the ideal ranking (trec_eval's ``Rndcg``).

    For each position k where the ideal gain drops (the end of each grade's block), add
    DCG@min(k, retrieved) / ideal DCG@k; when the ideal runs out at least two ranks before
    the end of the ranking, add DCG@retrieved / ideal DCG as well; average the terms.
    0 when the query has no relevant document (grade >= ``rel``), or when no judged
    document gains (``-l 0`` with grade-0 judgments only, or gains of 0): trec_eval divides
    0 by 0 levels there (``-nan``; ``ireval trec_eval`` prints that).

    With R_1 < R_2 < ... the R-levels (the number of judged documents with the highest
    gain, with the two highest, ...) and n the number retrieved, Rndcg = mean of
    nDCG@R_j over the levels, plus nDCG@n when n > L + 1 for L the length of the ideal
    ranking (trec_eval's implied last level at the end of the ranking, unjudged documents
    gaining 0). Like ndcg_rel it reads nDCG at points that are comparable across queries
    rather than at one fixed k (an experimental measure in trec_eval). With 5 documents
    of gain 3, 3 of gain 2 and 10 of gain 1, the levels are 5, 8 and 18.

    Gains follow nDCG: the grade, or ``gains[grade]`` (trec_eval's ``Rndcg.1=3,2=9``;
    mapped gains may be 0 or negative). ``rel`` only decides when the value is 0: R
    counts grades >= ``rel``, while the levels come from the gains. 0 for an empty
    ranking. Depends on the number of documents retrieved, unjudged ones included.
    Documents with equal scores are ranked as trec_eval ranks them (doc id descending).
    Not in ir_measures or ranx.

    Parameters
    ----------
    dcg
        ``"log2"`` (default): gain = grade, as trec_eval; ``"exp-log2"``: gain =
        2^grade − 1; see :func:`ndcg`.
    gains
        Gain per grade, e.g. ``{1: 3.0, 2: 9.0}``; grades not listed gain their grade
        (default: none); see :func:`ndcg`.
    rel
        Minimum grade counted as relevant, only for the R = 0 test (default: the
        evaluation's ``relevance_level``, 1 unless set; trec_eval ``-l``).

    See Also
    --------
    trec_eval ``Rndcg``, ``Rndcg.1=3,2=9``; SQL ``ireval_rndcg``; nDCG, ndcg_rel.

    Examples
    --------
    Grades 2, 0, 1, 0, 2 at ranks 1 to 5: the ideal gains are 2, 2, 1 (levels 2 and 3,
    L = 3), and 5 > L + 1 documents are retrieved, so Rndcg is the mean of nDCG@2,
    nDCG@3 and nDCG@5. The top 4 alone (4 = L + 1) average nDCG@2 and nDCG@3 only.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcde"),
    ...                     "score": [5.0, 4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": list("abcde"),
    ...                       "relevance": [2, 0, 1, 0, 2]})
    >>> out = ir.evaluate(run, qrels, ["Rndcg", "nDCG@2", "nDCG@3", "nDCG@5"])
    >>> [round(v, 4) for v in out["value"]]
    [0.716, 0.6131, 0.6646, 0.8702]
    >>> round(ir.evaluate(run.head(4), qrels, "Rndcg")["value"][0], 4)
    0.6389
    """
    g = _gain(gains, dcg)
    ranked, ideal = _Ranked(g), _Ideal(g)
    n = retrieved().sum()
    drops = ideal.position.filter(ideal.gain != ideal.gain.shift(-1).fill_null(0.0))
    terms = ranked.at(pl.min_horizontal(drops, n)) / value_at(ideal.dcg, drops)
    tail = ideal.length + 1 < n
    extra = pl.when(tail).then(ranked.total() / ideal.total()).otherwise(0.0)
    count = drops.len() + tail.cast(pl.UInt32)
    value = (ordered_sum(terms, drops) + extra) / count.cast(pl.Float64)
    return pl.when((num_rel(rel) > 0) & (ideal.length > 0)).then(value).otherwise(0.0)


@measure(
    "G",
    # its discount depends on how far the ranking's cumulated gain lags the ideal's: the
    # extremes over tie orders need not lie at the grade-ordered ties (tests/test_ties.py)
    tie_bounds=False,
    by_r=True,
    sql="ireval_g",
    unjudged=False,
    cite="trec_eval 9.0 (NIST), experimental measure G (2008), after AP and nDCG (Järvelin "
    "and Kekäläinen, Cumulated gain-based evaluation of IR techniques, TOIS 2002)",
    trec=[TrecName("G", "gains", (), "whole", convert=trec_gains)],
    cutoff=None,
    checks=_GAIN_CHECKS,
)
def g_measure(*, dcg: str = "log2", gains: Gains = None) -> pl.Expr:
    """trec_eval's G: gain discounted by how far the ranking lags the ideal.

    At each rank i with a non-zero gain, the gain is divided by log2(2 + C_i − S_i), with
    S_i the cumulated gain of the ranking and C_i the cumulated ideal gain (each ideal
    position counting at least 1); the sum is divided by the total ideal gain.

    G = (Σ_i g_i / log2(2 + C_i − S_i)) / Σ ideal gains, with S_i counting the document
    at rank i itself. Unlike nDCG's discount by rank, a document's discount depends on
    the documents above it: when those already carry almost as much gain as the ideal
    ranking's first i, the document is nearly as well placed as it could be and keeps
    nearly all its gain, which is how G mixes AP's view with DCG's. A ranking that
    follows the ideal scores 1 when every positive gain is at least 1 (as grades are);
    on grades 0 and 1, G is binG.

    Gains follow nDCG: the grade, or ``gains[grade]`` (trec_eval's ``G.1=3,2=9``; mapped
    gains may be 0 or negative); unjudged documents and negative grades gain 0. It does
    not use ``relevance_level``. 0 for an empty ranking and when no judged document has
    a positive gain. Documents with equal scores are ranked as trec_eval ranks them (doc
    id descending). An experimental measure of trec_eval (2008); not in ir_measures or
    ranx.

    Parameters
    ----------
    dcg
        ``"log2"`` (default): gain = grade, as trec_eval; ``"exp-log2"``: gain =
        2^grade − 1; see :func:`ndcg`.
    gains
        Gain per grade, e.g. ``{1: 3.0, 2: 9.0}``; grades not listed gain their grade
        (default: none); see :func:`ndcg`.

    See Also
    --------
    trec_eval ``G``, ``G.1=3,2=9``; SQL ``ireval_g``; binG, nDCG.

    Examples
    --------
    Grades 1, 3, 0, 2 at ranks 1 to 4: the ideal gains are 3, 2, 1, so C = 3, 5, 6, 7
    and S = 1, 4, 4, 6, and G = (1/log2 4 + 3/log2 3 + 2/log2 3)/6.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"),
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"),
    ...                       "relevance": [1, 3, 0, 2]})
    >>> round(ir.evaluate(run, qrels, "G")["value"][0], 4)
    0.6091
    """
    g = _gain(gains, dcg)
    ranked, ideal = _Ranked(g), _Ideal(g)
    floor_cum = ideal.gain.clip(lower_bound=1.0).cum_sum()
    inside = pl.min_horizontal(ranked.rank, ideal.length)
    c = value_at(floor_cum, inside) + (ranked.rank.cast(pl.Float64) - inside.cast(pl.Float64))
    s = ranked.gain.cum_sum()
    terms = ranked.gain / (2.0 + c - s).log(2)
    return ratio(ordered_sum(terms, ranked.rank), ordered_sum(ideal.gain, ideal.position))


@measure(
    "binG",
    tie_bounds=True,
    by_r=True,
    sql="ireval_bing",
    qrels_stats=True,
    unjudged=False,
    cite="trec_eval 9.0 (NIST), experimental measure binG (2008)",
    trec=[TrecName("binG")],
    cutoff=None,
    checks={"rel": relevant_grade},
)
def bin_g(*, rel: int = 1) -> pl.Expr:
    """trec_eval's binG: G with binary gains, Σ over relevant retrieved documents of
    1 / log2(2 + non-relevant documents ranked above it), divided by R.

    binG = (1/R) Σ_{relevant retrieved d} 1 / log2(2 + m_d), where m_d counts every
    document above d that is not relevant, judged or not. A relevant document preceded
    only by relevant ones counts fully, whatever its rank; each non-relevant document
    above it discounts it logarithmically (G's mix of AP and DCG, on binary gains). A
    perfect ranking scores 1; relevant documents not retrieved add 0.

    0 for an empty ranking and when R = 0. Unjudged documents and negative grades count
    as non-relevant (they take part in m_d) and negative grades do not count in R.
    Documents with equal scores are ranked as trec_eval ranks them (doc id descending).
    An experimental measure of trec_eval (2008); not in ir_measures or ranx.

    Parameters
    ----------
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``,
        1 unless set; trec_eval ``-l``).

    See Also
    --------
    trec_eval ``binG``; SQL ``ireval_bing``; G, AP.

    Examples
    --------
    Relevant at ranks 2 and 4 with R = 3: one non-relevant document is above the first,
    two above the second, so binG = (1/log2 3 + 1/log2 4)/3, and G on these binary grades
    is the same.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"),
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "d", "x"],
    ...                       "relevance": [0, 1, 1, 1]})
    >>> [round(v, 4) for v in ir.evaluate(run, qrels, ["binG", "G"])["value"]]
    [0.377, 0.377]
    """
    ranks = relevant_ranks(rel).sort()
    above = ranks.cast(pl.Float64) - ranks.cum_count().cast(pl.Float64)
    return ratio(ordered_sum(1.0 / (2.0 + above).log(2), ranks), num_rel(rel))
