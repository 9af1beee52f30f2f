"""Recall-interpolated precision (IPrec, 11pt_avg), R-precision multiples, utility."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_ireval.measures._expr import (
    cut,
    exact_div,
    expected_count,
    num_rel,
    rel_ret,
    relevant,
    relevant_ranks,
    retrieved,
)
from polars_ireval.registry import (
    SqlCall,
    SqlMean,
    SqlSpec,
    TrecName,
    check,
    four_numbers,
    measure,
    non_negative,
    relevant_grade,
    trec_float,
    unit_interval,
)

ROUNDING = ("trec_eval9", "trec_eval10")
RECALL_POINTS = tuple(i / 10 for i in range(11))
R_MULTIPLES = tuple(i / 5 for i in range(1, 11))


@check("it must be 'trec_eval9' (trunc(x·R + 0.9)) or 'trec_eval10' (round half up)")
def rounding_kind(v: object) -> bool:
    return v in ROUNDING


@check("it must be a sequence of recall levels in [0, 1], e.g. (0.25, 0.5, 0.75)")
def recall_points(v: object) -> bool:
    return isinstance(v, tuple) and len(v) > 0 and all(unit_interval(x) for x in v)


def needed_relevant(fraction: float | pl.Expr, r: pl.Expr, rounding: str) -> pl.Expr:
    """How many relevant documents a recall (or R multiple) ``fraction`` asks for.

    trec_eval 9: ``(long) (fraction · R + 0.9)``; trec_eval 10: ``lround(fraction · R)``.

    >>> import polars as pl
    >>> df = pl.DataFrame({"x": [0.0, 0.1, 0.3, 0.5, 1.0], "R": 5})
    >>> df.select(t9=needed_relevant(pl.col("x"), pl.col("R"), "trec_eval9"),
    ...           t10=needed_relevant(pl.col("x"), pl.col("R"), "trec_eval10")).rows()
    [(0.0, 0.0), (1.0, 1.0), (2.0, 2.0), (3.0, 3.0), (5.0, 5.0)]
    """
    share = fraction if isinstance(fraction, pl.Expr) else pl.lit(fraction, dtype=pl.Float64)
    x = share.cast(pl.Float64) * r.cast(pl.Float64)
    if rounding == "trec_eval9":
        return (x + 0.9).floor()
    whole = x.floor()  # lround; floor(x + 0.5) would misround x just below a half
    return whole + (x - whole >= 0.5).cast(pl.Float64)


def _interpolated(points: Sequence[float], rel: int, rounding: str) -> pl.Expr:
    """A struct with a field ``p0``, ``p1``, ... per recall level of ``points``: the
    interpolated precision there, and the field ``mean``: their sum, added in order,
    divided by their number.

    The precision at each relevant rank i / r_i (the i-th relevant document at rank r_i:
    precision peaks at relevant ranks, so only those are scanned) becomes, by a suffix
    maximum, the best precision at or below it; a level needing c relevant documents
    takes the c-th value (the first for c = 0, 0 beyond the last). The list is built once
    per ranking and read once per level.
    """
    i, rank = pl.element().cum_count().cast(pl.Float64), pl.element()
    ranks = relevant_ranks(rel).sort().cast(pl.Float64).implode()
    best = ranks.list.eval((i / rank).reverse().cum_max().reverse())
    fields = pl.struct(best.alias("best"), num_rel(rel).alias("r"))
    values = []
    for x in points:
        needed = needed_relevant(x, pl.field("r"), rounding)
        index = (pl.max_horizontal(needed, pl.lit(1.0)) - 1.0).cast(pl.Int64)
        values.append(pl.field("best").list.get(index, null_on_oob=True).fill_null(0.0))
    total: pl.Expr = pl.lit(0.0)
    for value in values:
        total = total + value
    mean = exact_div(total, len(points))  # reads fields: no work is done twice
    named = [v.alias(f"p{j}") for j, v in enumerate(values)]
    return fields.struct.with_fields(*named, mean.alias("mean"))


@measure(
    "IPrec",
    tie_bounds=True,
    by_r=True,
    sql="ireval_iprec",
    qrels_stats=True,
    unjudged=False,
    cite="van Rijsbergen, Information Retrieval, 2nd ed., Butterworths, 1979, ch. 7 "
    "(interpolated precision); trec_eval 9.0 (NIST), iprec_at_recall",
    trec=[
        TrecName(
            "iprec_at_recall",
            "recall",
            RECALL_POINTS,
            "list",
            convert=trec_float,
            fmt=lambda v: f"{v:3.2f}",
        )
    ],
    cutoff="recall",
    checks={"recall": unit_interval, "rel": relevant_grade, "rounding": rounding_kind},
)
def iprec(*, recall: float, rel: int = 1, rounding: str = "trec_eval9") -> pl.Expr:
    """IPrec@x: interpolated precision at recall ``x``, the best precision at any rank
    where recall is at least ``x``.

    The recall level asks for c relevant documents: ``trunc(x·R + 0.9)`` in trec_eval 9
    (and pytrec_eval, ir_measures), ``round(x·R)`` in trec_eval 10 (``rounding``). 0 when
    fewer than c relevant documents are retrieved.

    IPrec@x = max {P@i : the top i hold at least c relevant documents}, c as above: the
    precision-recall curve made monotone by taking, at each recall level, the best
    precision at that recall or beyond (van Rijsbergen's interpolation; the points of
    the standard recall-precision graph, trec_eval 9's default levels 0.0, 0.1, ..., 1.0).
    Precision peaks at relevant ranks, so only those are scanned. IPrec@0 is the best
    precision anywhere in the ranking (1 when the first document is relevant).

    0 for an empty ranking and when R = 0 (then c = 0 but nothing is relevant). The
    ranking is read to its end; relevant documents not retrieved lower the recall
    reached, so a level above the recall of the whole ranking scores 0. Unjudged
    documents and negative grades are not relevant. Documents with equal scores are
    ranked as trec_eval ranks them (doc id descending). ranx's
    ``interpolated_precision_at_recall`` uses the same c = trunc(x·R + 0.9).

    Parameters
    ----------
    recall
        Recall level x in [0, 1] (required; ``@`` sets it: ``IPrec@0.1``).
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``,
        1 unless set; trec_eval ``-l``).
    rounding
        How x·R becomes a count of relevant documents: ``"trec_eval9"`` (default,
        trunc(x·R + 0.9), also pytrec_eval and ir_measures) or ``"trec_eval10"``
        (x·R rounded half up).

    See Also
    --------
    trec_eval ``iprec_at_recall.x`` (``iprec_at_recall_0.10``); ir_measures ``IPrec@0.1``;
    SQL ``ireval_iprec``; 11pt_avg (their mean), AP.

    Examples
    --------
    "1010" with R = 3 (x never retrieved): precision is 1 at the first relevant rank and
    2/3 at the second. Recall 0.5 asks for trunc(1.5 + 0.9) = 2 relevant documents, so
    IPrec@0.5 = 2/3; recall 1 asks for 3, never reached.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"),
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "c", "x"], "relevance": 1})
    >>> ir.evaluate(run, qrels, ["IPrec@0.0", "IPrec@0.5", "IPrec@1.0"])["value"].to_list()
    [1.0, 0.6666666666666666, 0.0]

    With R = 4, recall 0.3 asks for trunc(1.2 + 0.9) = 2 relevant documents in trec_eval 9
    but round(1.2) = 1 in trec_eval 10:

    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "c", "x", "y"], "relevance": 1})
    >>> out = ir.evaluate(run, qrels, ["IPrec@0.3", "IPrec(rounding='trec_eval10')@0.3"])
    >>> out["value"].to_list()
    [0.6666666666666666, 1.0]
    """
    return _interpolated((recall,), rel, rounding).struct.field("p0")


def eleven_point_sql(args: dict[str, Any]) -> SqlSpec:
    """The mean of ``ireval_iprec`` at each recall point, added left to right."""
    points = args["points"] or RECALL_POINTS
    fixed = {"rel": args["rel"], "rounding": args["rounding"]}
    return SqlMean(tuple(SqlCall("ireval_iprec", {"recall": x, **fixed}) for x in points))


@measure(
    "11pt_avg",
    tie_bounds=True,
    by_r=True,
    sql=eleven_point_sql,
    qrels_stats=True,
    unjudged=False,
    cite="van Rijsbergen, Information Retrieval, 2nd ed., Butterworths, 1979, ch. 7 "
    "(interpolated precision averaged over recall levels); trec_eval 9.0 (NIST), 11pt_avg",
    trec=[
        TrecName(
            "11pt_avg",
            "points",
            (RECALL_POINTS,),
            "whole",
            convert=lambda t: tuple(trec_float(x) for x in t.split(",")),
        )
    ],
    cutoff=None,
    checks={"points": recall_points, "rel": relevant_grade, "rounding": rounding_kind},
)
def eleven_point_average(
    *, points: Sequence[float] = RECALL_POINTS, rel: int = 1, rounding: str = "trec_eval9"
) -> pl.Expr:
    """11-point average precision: the mean of IPrec at recall 0.0, 0.1, ..., 1.0.

    11pt_avg = (1/|X|) Σ_{x in X} IPrec@x over the recall levels X = ``points`` (see IPrec
    for the interpolation and for how x·R becomes a number of relevant documents). Like
    AP (and R-precision) it estimates the area under the interpolated recall-precision
    curve; trec_eval keeps it for comparisons with old runs and recommends AP instead.
    With ``points=(0.2, 0.5, 0.8)`` it is the 3-point average of trec_eval 8 and earlier.

    0 for an empty ranking and when R = 0; levels above the recall of the whole ranking
    add 0. Unjudged documents and negative grades are not relevant. Documents with equal
    scores are ranked as trec_eval ranks them (doc id descending). trec_eval names the
    output ``11pt_avg`` for the default levels and ``11pt_avg_0.2,0.5,0.8`` for others, as
    here. Not in ir_measures or ranx.

    Parameters
    ----------
    points
        The recall levels averaged, each in [0, 1] (default the eleven levels 0.0, 0.1,
        ..., 1.0).
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``,
        1 unless set; trec_eval ``-l``).
    rounding
        ``"trec_eval9"`` (default) or ``"trec_eval10"``; see :func:`iprec`.

    See Also
    --------
    trec_eval ``11pt_avg``, ``11pt_avg.0.2,0.5,0.8``; SQL ``ireval_iprec`` (averaged);
    IPrec, AP.

    Examples
    --------
    IPrec's "1010" with R = 3: levels 0 to 0.3 need one relevant document (precision 1),
    0.4 to 0.7 two (2/3), 0.8 to 1 three (0), so 11pt_avg = (4 + 4 · 2/3)/11; the 3-point
    average is (1 + 2/3 + 0)/3.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"),
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "c", "x"], "relevance": 1})
    >>> out = ir.evaluate(run, qrels, ["11pt_avg", "11pt_avg(points=(0.2,0.5,0.8))"])
    >>> out["value"].to_list()
    [0.6060606060606062, 0.5555555555555555]
    """
    return _interpolated(points, rel, rounding).struct.field("mean")


def _rprec_mult_average(*, mult: float, rel: int = 1, depth: int | None = None) -> pl.Expr:
    """E[relevant in the top c] / c over tie orders, c = trec_eval's cutoff for ``mult``."""
    c = needed_relevant(mult, num_rel(rel), "trec_eval9")
    found = expected_count(relevant(rel), cut(c, depth))
    return pl.when(c > 0).then(found / c).otherwise(0.0)


@measure(
    "Rprec_mult",
    tie_bounds=True,
    average=_rprec_mult_average,
    by_r=True,
    sql="ireval_rprec_mult",
    qrels_stats=True,
    unjudged=False,
    cite="trec_eval 9.0 (NIST), Rprec_mult; R-precision: Buckley and Voorhees, Retrieval "
    "System Evaluation, in TREC: Experiment and Evaluation in Information Retrieval, MIT "
    "Press, 2005",
    trec=[
        TrecName(
            "Rprec_mult",
            "mult",
            R_MULTIPLES,
            "list",
            convert=trec_float,
            fmt=lambda v: f"{v:3.2f}",
        )
    ],
    cutoff=None,
    checks={"mult": non_negative, "rel": relevant_grade},
)
def rprec_mult(*, mult: float, rel: int = 1) -> pl.Expr:
    """Precision at rank ``mult · R`` (``trunc(mult·R + 0.9)``, as trec_eval 9 and 10).

    The denominator is that rank even when fewer documents are retrieved; 0 when it is 0.

    Rprec_mult(m) = P@c with c = trunc(m·R + 0.9): R-precision measured at the same
    multiples of R for every query, m = 1 being Rprec. Comparing two runs over several
    multiples shows whether one is precision-oriented (better at small multiples) or
    recall-oriented (better at large ones), trec_eval's purpose for it.

    0 for an empty ranking and when R = 0 (then c = 0). A ranking shorter than c counts
    its missing ranks as non-relevant, as P@k does. Unjudged documents and negative
    grades are not relevant. Documents with equal scores are ranked as trec_eval ranks
    them (doc id descending), which decides which of them fall inside rank c. Not in
    ir_measures or ranx.

    Parameters
    ----------
    mult
        Multiple of R giving the cutoff rank, a non-negative number (required;
        trec_eval's default list is 0.2, 0.4, ..., 2.0).
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``,
        1 unless set; trec_eval ``-l``).

    See Also
    --------
    trec_eval ``Rprec_mult.x`` (``Rprec_mult_0.20``); SQL ``ireval_rprec_mult``; Rprec, P.

    Examples
    --------
    "1010" with R = 3: m = 0.5 looks at trunc(1.5 + 0.9) = 2 ranks, m = 1 at 3 (Rprec),
    m = 2 at 6 ranks of a 4-document ranking, 2 relevant among them.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"),
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "c", "x"], "relevance": 1})
    >>> out = ir.evaluate(run, qrels, ["Rprec_mult(mult=0.5)", "Rprec_mult(mult=1.0)",
    ...                                "Rprec", "Rprec_mult(mult=2.0)"])
    >>> out["value"].to_list()
    [0.5, 0.6666666666666666, 0.6666666666666666, 0.3333333333333333]
    """
    c = needed_relevant(mult, num_rel(rel), "trec_eval9")
    return pl.when(c > 0).then(rel_ret(rel, c).cast(pl.Float64) / c).otherwise(0.0)


def _utility_params(text: str) -> tuple[Any, ...]:
    return tuple(trec_float(x) for x in text.split(","))


def utility_sql(args: dict[str, Any]) -> SqlSpec:
    """``ireval_utility``, the four weights as four parameters."""
    a, b, c, d = args["weights"]
    names = ("w_rel_ret", "w_nonrel_ret", "w_rel_missed", "w_nonrel_missed")
    return SqlCall(
        "ireval_utility",
        {**dict(zip(names, (a, b, c, d), strict=True)), "num_docs": args["num_docs"],
         "rel": args["rel"]},
    )  # fmt: skip


def _utility_average(
    *,
    weights: tuple[float, float, float, float] = (1.0, -1.0, 0.0, 0.0),
    num_docs: int = 0,
    rel: int = 1,
    depth: int | None = None,
) -> pl.Expr:
    """Linear in the relevant documents retrieved, the one count a max_depth cut that
    splits a tie leaves to the order (each kept with its chance of landing above it)."""
    a, b, c, d = weights
    hit = expected_count(relevant(rel), depth)
    ret = retrieved(depth).sum().cast(pl.Float64)
    r = num_rel(rel).cast(pl.Float64)
    return a * hit + b * (ret - hit) + c * (r - hit) + d * (num_docs + hit - ret - r)


@measure(
    "utility",
    tie_bounds=True,
    average=_utility_average,
    sql=utility_sql,
    cite="Robertson, Introduction to the special issue: overview of the TREC routing and "
    "filtering tasks, Information Retrieval 5, 2002; trec_eval 9.0 (NIST), utility",
    trec=[
        TrecName("utility", "weights", ((1.0, -1.0, 0.0, 0.0),), "whole", convert=_utility_params)
    ],
    cutoff=None,
    checks={"weights": four_numbers, "rel": relevant_grade, "num_docs": non_negative},
    absent=0.0,
)
def utility(
    *,
    weights: tuple[float, float, float, float] = (1.0, -1.0, 0.0, 0.0),
    num_docs: int = 0,
    rel: int = 1,
) -> pl.Expr:
    """Linear utility: a·(relevant retrieved) + b·(non-relevant retrieved) +
    c·(relevant missed) + d·(non-relevant missed).

    Unjudged retrieved documents count as non-relevant. The last term needs the collection
    size (``num_docs``, trec_eval ``-N``; 0 by default as in trec_eval).

    With r relevant retrieved, n retrieved, R relevant and N documents in the collection,
    utility = a·r + b·(n − r) + c·(R − r) + d·(N + r − n − R): a weighted sum over the
    cells of the retrieved/relevant contingency table. The ranking is taken as a set
    (order and ties do not matter; ``max_depth`` sets its size). The user gains for each
    relevant document delivered and pays for each non-relevant one, as in the linear
    utilities of the TREC filtering tracks (Robertson). Unbounded, with a range that
    depends on R and n; trec_eval averages it over queries, as here, and notes that a
    sum could be more useful.

    An empty ranking (one that ``judged_only`` empties) scores c·R + d·(N − R) (0 with the
    default weights); R = 0 leaves b·n + d·(N − n). A retrieved document with a negative
    grade counts, like an unjudged one, as non-relevant retrieved, and negative grades do
    not count in R. Under ``missing="zero"`` a judged query absent from the run scores 0,
    as trec_eval's ``-c`` adds 0 for it (not c·R + d·(N − R)). Not in ir_measures or ranx.

    Parameters
    ----------
    weights
        ``(a, b, c, d)``: the worth of a relevant retrieved, a non-relevant retrieved, a
        relevant missed and a non-relevant missed document; default ``(1, -1, 0, 0)``, as
        trec_eval (its ``utility.a,b,c,d``).
    num_docs
        Number of documents in the collection, N (default 0, as trec_eval without
        ``-N``); only the d term uses it.
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``,
        1 unless set; trec_eval ``-l``).

    See Also
    --------
    trec_eval ``utility``, ``utility.2,-1,0,0``; SQL ``ireval_utility``; SetP, SetR.

    Examples
    --------
    Of 4 retrieved documents 2 are relevant, and 1 relevant document is missed: the
    default weights give 2 − 2 = 0; (2, -1, -0.5, 0) gives 4 − 2 − 0.5; (1, -1, -1, 1)
    in a collection of 10 documents adds 10 + 2 − 4 − 3 = 5 non-relevant documents not
    retrieved: 2 − 2 − 1 + 5.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"),
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "c", "x"], "relevance": 1})
    >>> out = ir.evaluate(run, qrels, ["utility", "utility(weights=(2.0,-1.0,-0.5,0.0))",
    ...                                "utility(weights=(1.0,-1.0,-1.0,1.0),num_docs=10)"])
    >>> out["value"].to_list()
    [0.0, 1.5, 4.0]
    """
    a, b, c, d = weights
    hit = rel_ret(rel).cast(pl.Float64)
    ret = retrieved().sum().cast(pl.Float64)
    r = num_rel(rel).cast(pl.Float64)
    return a * hit + b * (ret - hit) + c * (r - hit) + d * (num_docs + hit - ret - r)
