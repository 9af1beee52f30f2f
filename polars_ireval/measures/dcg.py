"""The DCG family: one gain, one discount and one normalisation, chosen independently.

* **gain** of a judged document with grade g >= 0: ``"linear"`` g (trec_eval), ``"exp"``
  2^g - 1 (Burges et al.), or a custom map ``gains={grade: gain}`` (grades not listed keep
  g; with ``"exp"`` the mapped value is exponentiated). Unjudged documents and negative
  grades gain 0.
* **discount**, the weight w_i of rank i: ``"log2"`` 1/log2(i+1) (default, trec_eval);
  ``"log"`` 1/log_b(i+1); ``"jk"`` Järvelin and Kekäläinen's 1 for i < b, then 1/log_b(i);
  ``"none"`` 1; ``"root"`` 1/sqrt(i); ``"rank"`` 1/i; ``"square"`` 1/i^2; ``"click"`` or
  ``"custom"`` a user-supplied weight vector ``weights=(w_1, w_2, ...)`` (0 beyond it).
* **normalisation** (Moffat, seed 004, Table 1): none (``DCG``); the best score *any* query
  could get at depth k (``SDCG``); the best score *this* query could get, ideal ranking of
  all its judgments (``nDCG``); the best score of a permutation of the retrieved top k
  (SN-DCG, ``DCG(norm='self')@k``).

DCG@k = Σ_{i <= k} gain(d_i) w_i, summed in rank order.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from polars_ireval.errors import ParameterError
from polars_ireval.measures._expr import (
    RANK,
    REL,
    exact_div,
    ordered_sum,
    query_stat,
    ratio,
    retrieved,
    tie_mean_weight,
    top_rank,
)
from polars_ireval.registry import (
    check,
    finite,
    gain_map,
    grade_ordered,
    measure,
    positive,
    positive_int,
)

GAINS = ("linear", "exp")
DISCOUNTS = ("log2", "log", "jk", "none", "root", "rank", "square", "click", "custom")
NORMS = ("none", "scaled", "ideal", "self")
Gains = Mapping[int, float] | None
Weights = Sequence[float] | None

_DCG_CITE = "Järvelin and Kekäläinen, Cumulated gain-based evaluation of IR techniques, TOIS 2002"


@check("it must be 'linear' (gain = grade) or 'exp' (gain = 2**grade - 1)")
def gain_kind(v: object) -> bool:
    return v in GAINS


@check(f"it must be one of {', '.join(DISCOUNTS)}")
def discount_kind(v: object) -> bool:
    return v in DISCOUNTS


@check(f"it must be one of {', '.join(NORMS)}")
def norm_kind(v: object) -> bool:
    return v in NORMS


@check("it must be a non-negative integer grade")
def non_negative_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


@check("it must be a non-empty tuple of finite non-negative numbers, e.g. (1, 0.6, 0.3)")
def weight_vector(v: Any) -> bool:
    return isinstance(v, tuple) and len(v) > 0 and all(finite(x) and x >= 0 for x in v)


def grade_gain(gain: str = "linear", gains: Gains = None) -> pl.Expr:
    """Each row's gain: its grade (or ``gains[grade]``), exponentiated to 2^g - 1 with
    ``gain="exp"``; unjudged documents and negative grades gain 0."""
    grade = REL.cast(pl.Float64)
    if gains:
        grade = grade.replace([float(k) for k in gains], [float(v) for v in gains.values()])
    value = pl.when(REL >= 0).then(grade).otherwise(0.0)
    if gain == "exp":
        value = pl.lit(2.0).pow(value) - 1.0
    return value


def check_discount(discount: str, b: float, weights: Weights) -> None:
    """Raise :class:`ParameterError` for a discount whose ``b``/``weights`` do not fit."""
    if discount in ("click", "custom"):
        if not weights:
            raise ParameterError(
                f"discount={discount!r} needs weights=(w1, w2, ...), the weight of each rank"
            )
    elif weights:
        raise ParameterError(
            f"weights= is only used with discount='click' or 'custom', not {discount!r}"
        )
    if discount in ("log", "jk") and not b > 1:
        raise ParameterError(f"discount={discount!r} needs a log base b > 1, got b={b!r}")


def discounted(g: pl.Expr, position: pl.Expr, discount: str, b: float, weights: Weights) -> pl.Expr:
    """``g`` times the weight of ``position`` (1-based) under ``discount``.

    Divisions are used where the weight is 1/x, as trec_eval computes ``gain / log2(i+1)``.
    """
    i = position.cast(pl.Float64)
    if discount == "log2":
        return g / (i + 1.0).log(2)
    if discount == "log":
        return g / (i + 1.0).log(b)
    if discount == "jk":
        return pl.when(i < b).then(g).otherwise(g / i.log(b))
    if discount == "none":
        return g
    if discount == "root":
        return g / i.sqrt()
    if discount == "rank":
        return g / i
    if discount == "square":
        return g / (i * i)
    w = list(weights or ())
    weight = position.replace_strict(
        list(range(1, len(w) + 1)), [float(x) for x in w], default=0.0, return_dtype=pl.Float64
    )
    return g * weight


def weight_sum(k: int, discount: str, b: float, weights: Weights) -> float:
    """Σ_{i <= k} w_i: the DCG@k of a ranking whose every document has gain 1."""
    w = list(weights or ())
    per_rank = {
        "log2": lambda i: 1.0 / math.log2(i + 1),
        "log": lambda i: math.log(b) / math.log(i + 1),
        "jk": lambda i: 1.0 if i < b else math.log(b) / math.log(i),
        "none": lambda i: 1.0,
        "root": lambda i: 1.0 / math.sqrt(i),
        "rank": lambda i: 1.0 / i,
        "square": lambda i: 1.0 / (i * i),
    }.get(discount, lambda i: float(w[i - 1]) if i <= len(w) else 0.0)
    return math.fsum(per_rank(i) for i in range(1, k + 1))


def ranked_dcg(g: pl.Expr, k: int | None, discount: str, b: float, weights: Weights) -> pl.Expr:
    """DCG of the top ``k`` retrieved ranks (the whole ranking when ``k`` is None)."""
    keep = retrieved(k)  # a term of gain 0 adds 0.0, which changes no sum
    return ordered_sum(discounted(g, RANK, discount, b, weights).filter(keep), RANK.filter(keep))


def expected_dcg(g: pl.Expr, k: int | None, discount: str, b: float, weights: Weights) -> pl.Expr:
    """E[DCG@k] over tie orders: each retrieved document's gain times the mean weight of
    the ranks its tie spans (0 past ``k``), since DCG is linear in the rank weights."""
    keep = retrieved() & (g != 0.0).fill_null(False)

    def weight(position: pl.Expr) -> pl.Expr:
        return discounted(pl.lit(1.0), position, discount, b, weights)

    return ordered_sum(g.filter(keep) * tie_mean_weight(weight, keep, k), RANK.filter(keep))


def sorted_dcg(g: pl.Expr, k: int | None, discount: str, b: float, weights: Weights) -> pl.Expr:
    """DCG@k of the positive values of ``g`` sorted descending (an ideal ranking).

    The sorted gains are one list per ranking, so that ``g`` is computed once.
    """
    best = pl.element().filter(pl.element() > 0)
    if k is not None:
        best = best.head(k)
    dcg = discounted(best, best.cum_count(), discount, b, weights).cum_sum().last()
    return g.sort(descending=True).implode().list.eval(dcg).list.first().fill_null(0.0)


def normalised_dcg(
    g: pl.Expr,
    *,
    k: int | None,
    norm: str,
    discount: str,
    b: float,
    weights: Weights,
    scale: float = 1.0,
    average: bool = False,
    depth: int | None = None,
) -> pl.Expr:
    """DCG@k of gains ``g`` under normalisation ``norm`` (see the module docstring).

    ``scale`` is the largest gain one document can have (``norm="scaled"`` only).
    ``average``: the expected value over tie orders (``evaluate(..., ties="average")``)
    of the ranking cut at ``depth`` (its ``max_depth``); not for ``norm="self"``.
    """
    check_discount(discount, b, weights)
    if average:
        if norm == "self":
            raise ParameterError(
                "DCG(norm='self'): ties='average' is not computed for the self-normalised "
                "DCG (its ideal is the best order of the top k a tie order gives); see "
                "polars_ireval.tie_sensitivity"
            )
        top = top_rank(k, depth)
        dcg = expected_dcg(g, top, discount, b, weights)
    else:
        dcg = ranked_dcg(g, k, discount, b, weights)
    if norm == "none":
        return dcg
    if norm == "ideal":
        return ratio(dcg, query_stat(sorted_dcg(g, k, discount, b, weights)))
    if norm == "self":
        return ratio(dcg, sorted_dcg(g.filter(retrieved(k)), k, discount, b, weights))
    if k is None:
        raise ParameterError("the scaled normalisation (SDCG) needs a cutoff, e.g. SDCG@10")
    best = scale * weight_sum(k, discount, b, weights)
    if not best > 0:
        raise ParameterError(
            f"SDCG@{k}: the best possible DCG is {best!r}; use a discount with positive "
            "weights and max_rel with a positive gain"
        )
    return exact_div(dcg, best)


_CHECKS = {
    "k": positive_int,
    "gain": gain_kind,
    "gains": gain_map,
    "discount": discount_kind,
    "b": positive,
    "weights": weight_vector,
    "norm": norm_kind,
}


def _dcg_average(
    *,
    k: int | None = None,
    norm: str = "none",
    gain: str = "linear",
    gains: Gains = None,
    discount: str = "log2",
    b: float = 2.0,
    weights: Weights = None,
    max_rel: int = 1,
    depth: int | None = None,
) -> pl.Expr:
    g, scale = grade_gain(gain, gains), 1.0
    if norm == "scaled":
        g, scale = _clipped_gain(gain, gains, max_rel)
    return normalised_dcg(
        g, k=k, norm=norm, discount=discount, b=b, weights=weights, scale=scale,
        average=True, depth=depth,
    )  # fmt: skip


def _sdcg_average(
    *,
    k: int,
    max_rel: int = 1,
    min_rel: int = 0,
    gain: str = "linear",
    gains: Gains = None,
    discount: str = "log2",
    b: float = 2.0,
    weights: Weights = None,
    depth: int | None = None,
) -> pl.Expr:
    if min_rel >= max_rel:
        raise ParameterError(f"SDCG: min_rel={min_rel} must be below max_rel={max_rel}")
    g, scale = _clipped_gain(gain, gains, max_rel, min_rel)
    return normalised_dcg(
        g, k=k, norm="scaled", discount=discount, b=b, weights=weights, scale=scale,
        average=True, depth=depth,
    )  # fmt: skip


def _dcg_tie_bounds(params: Mapping[str, Any]) -> bool:
    """The self-normalised DCG's ideal is the best order of the top k it is given, which a
    tie cut by k changes: its extremes over tie orders need not lie at the ordered ties."""
    return grade_ordered(params) and params.get("norm") != "self"


@measure(
    "DCG",
    tie_bounds=_dcg_tie_bounds,
    average=_dcg_average,
    by_r=lambda p: p["norm"] == "ideal",
    sql="ireval_dcg",
    qrels_stats=True,
    unjudged=False,
    cite=_DCG_CITE,
    checks={**_CHECKS, "max_rel": positive_int},
)
def dcg(
    *,
    k: int | None = None,
    norm: str = "none",
    gain: str = "linear",
    gains: Gains = None,
    discount: str = "log2",
    b: float = 2.0,
    weights: Weights = None,
    max_rel: int = 1,
) -> pl.Expr:
    """DCG@k: discounted cumulative gain, Σ_{i <= k} gain(d_i) w_i, optionally normalised.

    The user reads the top ``k`` documents and values each by its gain, less the further down
    it sits (weight w_i). ``norm`` picks the normalisation of Moffat (2013), Table 1:
    ``"none"`` (DCG), ``"scaled"`` (SDCG: over max gain × Σ_{i <= k} w_i), ``"ideal"``
    (nDCG: over the DCG@k of the query's ideal ranking) or ``"self"`` (SN-DCG: over the
    DCG@k of the retrieved top ``k`` sorted by gain, so only what was retrieved counts).
    A normalised score is 0 when its denominator is 0. DCG and SN-DCG need no knowledge of
    unretrieved documents; SN-DCG is neither monotone nor convergent (seed 004).

    Parameters
    ----------
    k
        Cutoff rank (default: the whole ranking; required by ``norm="scaled"``).
    norm
        ``"none"`` (default), ``"scaled"``, ``"ideal"`` or ``"self"``.
    gain
        ``"linear"`` (default: gain = grade) or ``"exp"`` (2^grade - 1).
    gains
        Gain per grade, e.g. ``{0: 0, 1: 1, 2: 3}``; grades not listed gain their grade.
    discount
        The weight w_i of rank i: ``"log2"`` 1/log2(i+1) (default, trec_eval); ``"log"``
        1/log_b(i+1); ``"jk"`` 1 for i < b, then 1/log_b(i) (Järvelin and Kekäläinen);
        ``"none"`` 1; ``"root"`` 1/sqrt(i); ``"rank"`` 1/i; ``"square"`` 1/i^2;
        ``"click"``/``"custom"`` ``weights[i-1]`` (0 past the vector).
    b
        Log base of ``"log"`` and ``"jk"`` (default 2).
    weights
        The weight of each rank for ``"click"``/``"custom"``, e.g. click-through rates.
    max_rel
        ``norm="scaled"`` only: the highest grade; grades above count as it and the
        denominator assumes every rank holds such a document (default 1).

    See Also
    --------
    SDCG, nDCG; seed 003 (JK's DCG with b = 2), seed 004 (SN-DCG).

    Examples
    --------
    The ranking "10100" of seed 004 (R = 5): DCG@5 = 1 + 1/log2(4) = 1.5, SN-DCG@5 = 1.5/1.63:

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcde"),
    ...                     "score": [5.0, 4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": list("acxyz"),
    ...                       "relevance": [1, 1, 1, 1, 1]})
    >>> ir.evaluate(run, qrels, ["DCG@5", "DCG(norm='self')@5", "SDCG@5", "nDCG@5"])
    shape: (4, 2)
    ┌────────────────────┬──────────┐
    │ measure            ┆ value    │
    │ ---                ┆ ---      │
    │ str                ┆ f64      │
    ╞════════════════════╪══════════╡
    │ DCG@5              ┆ 1.5      │
    │ DCG(norm='self')@5 ┆ 0.919721 │
    │ SDCG@5             ┆ 0.50874  │
    │ nDCG@5             ┆ 0.50874  │
    └────────────────────┴──────────┘
    """
    g, scale = grade_gain(gain, gains), 1.0
    if norm == "scaled":
        g, scale = _clipped_gain(gain, gains, max_rel)
    return normalised_dcg(g, k=k, norm=norm, discount=discount, b=b, weights=weights, scale=scale)


def _clipped_gain(gain: str, gains: Gains, max_rel: int, min_rel: int = 0) -> tuple[pl.Expr, float]:
    """Gains on the scale [min_rel, max_rel], less the gain of ``min_rel``, and the top one.

    Unjudged documents and negative grades count as grade 0, then every grade outside the
    scale as its nearest end (cwl_eval's scaling, as ir_measures' SDCG does).
    """

    def of(grade: int) -> float:
        value = float(gains.get(grade, grade)) if gains else float(grade)
        return 2.0**value - 1.0 if gain == "exp" else value

    grade = REL.fill_null(0).clip(lower_bound=0).clip(min_rel, max_rel).cast(pl.Float64)
    if gains:
        grade = grade.replace([float(k) for k in gains], [float(v) for v in gains.values()])
    if gain == "exp":
        grade = pl.lit(2.0).pow(grade) - 1.0
    low = of(min_rel)
    return (grade - low if low else grade), of(max_rel) - low


def _sdcg_residual(
    *,
    k: int,
    max_rel: int = 1,
    min_rel: int = 0,
    gain: str = "linear",
    gains: Gains = None,
    discount: str = "log2",
    b: float = 2.0,
    weights: Weights = None,
) -> pl.Expr:
    """SDCG@k's residual: the weight, over Σ_{i <= k} w_i, of the unjudged documents in the
    top k and of the ranks between the end of the ranking and k (each could gain the most)."""
    check_discount(discount, b, weights)
    total = weight_sum(k, discount, b, weights)
    w = discounted(pl.lit(1.0), RANK, discount, b, weights)
    top = retrieved(k)
    unjudged = ordered_sum(w.filter(top & REL.is_null()), RANK.filter(top & REL.is_null()))
    seen = ordered_sum(w.filter(top), RANK.filter(top))
    return exact_div(unjudged + (total - seen), total).clip(lower_bound=0.0)


@measure(
    "SDCG",
    tie_bounds=grade_ordered,
    average=_sdcg_average,
    sql="ireval_sdcg",
    sql_residual="residual",
    qrels_stats=True,
    unjudged=False,
    cite="Moffat, Seven numeric properties of effectiveness metrics, AIRS 2013",
    checks={**_CHECKS, "max_rel": positive_int, "min_rel": non_negative_int},
    residual=_sdcg_residual,
)
def sdcg(
    *,
    k: int,
    max_rel: int = 1,
    min_rel: int = 0,
    gain: str = "linear",
    gains: Gains = None,
    discount: str = "log2",
    b: float = 2.0,
    weights: Weights = None,
) -> pl.Expr:
    """SDCG@k: DCG@k over the best DCG@k of any query, gain(max_rel) × Σ_{i <= k} w_i.

    A weighted precision: the user reads exactly ``k`` documents, valuing rank i by w_i.
    Grades above ``max_rel`` count as ``max_rel``; with the linear gain this is
    ir_measures' ``SDCG(max_rel=...)@k`` (cwl_eval's NDCG-k). Bounded in [0, 1]; 1 only
    when the top ``k`` all have grade ``max_rel`` (not realizable when R < k). Its residual
    (``evaluate(..., residuals=True)``) is the weight of the unjudged documents in the top
    ``k`` and of the ranks past the end of a ranking shorter than ``k``.

    Parameters
    ----------
    k
        Cutoff rank (required).
    max_rel
        The highest grade of the scale (default 1: binary relevance).
    min_rel
        The lowest grade of the scale (default 0): grades below count as it, and its gain
        is subtracted from every gain (ir_measures' ``min_rel``).
    gain, gains, discount, b, weights
        As for :func:`dcg`.

    See Also
    --------
    ir_measures ``SDCG(max_rel=3)@10``; ``DCG(norm='scaled')@k``.

    Examples
    --------
    Seed 004: "11000" has SDCG@5 = (1 + 0.63)/(1 + 0.63 + 0.5 + 0.43 + 0.39) ≈ 0.55.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcde"),
    ...                     "score": [5.0, 4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "relevance": [1, 1]})
    >>> round(ir.evaluate(run, qrels, "SDCG@5")["value"][0], 2)
    0.55
    """
    if min_rel >= max_rel:
        raise ParameterError(f"SDCG: min_rel={min_rel} must be below max_rel={max_rel}")
    g, scale = _clipped_gain(gain, gains, max_rel, min_rel)
    return normalised_dcg(
        g, k=k, norm="scaled", discount=discount, b=b, weights=weights, scale=scale
    )


def _graded_precision_average(
    *,
    k: int,
    gains: Gains = None,
    gain: str = "linear",
    discount: str = "none",
    b: float = 2.0,
    weights: Weights = None,
    depth: int | None = None,
) -> pl.Expr:
    """E[GradedP@k] over tie orders: DCG@k's expectation (linear in the rank weights) / k."""
    g = grade_gain(gain, gains)
    return exact_div(expected_dcg(g, top_rank(k, depth), discount, b, weights), k)


@measure(
    "GradedP",
    tie_bounds=grade_ordered,
    average=_graded_precision_average,
    sql="ireval_graded_p",
    qrels_stats=True,
    unjudged=False,
    cite="Sirotkin, On search engine evaluation metrics, PhD thesis, Düsseldorf 2012, "
    "section 10.2 (precision with graded relevance and a rank discount)",
    checks={
        "k": positive_int,
        "gain": gain_kind,
        "gains": gain_map,
        "discount": discount_kind,
        "b": positive,
        "weights": weight_vector,
    },
)
def graded_precision(
    *,
    k: int,
    gains: Gains = None,
    gain: str = "linear",
    discount: str = "none",
    b: float = 2.0,
    weights: Weights = None,
) -> pl.Expr:
    """GradedP@k: graded, discounted precision, Σ_{i <= k} gain(d_i) w_i / k.

    Precision whose documents count by their gain instead of 0 or 1, and whose ranks
    count by a discount w_i (seed 001, section 10.2): the sum of DCG@k divided by the
    number of ranks ``k``, not by an ideal ranking. With the default ``discount="none"``
    and 0/1 grades it is P@k; with ``gains`` mapping the grades into [0, 1] (the seed's
    six-point scale: 1, 0.8, ..., 0) it is the mean gain of the top ``k``. The
    denominator stays ``k`` under every discount, so a steeper discount shrinks the
    range of the scores (the seed's observation that discounted precision "hits the
    baseline" at large thresholds); a ranking shorter than ``k`` counts its missing
    ranks as gain 0, as P@k does.

    Gains are those of :func:`dcg`: the grade (or ``gains[grade]``; grades not listed
    keep their grade), 2^g - 1 with ``gain="exp"``; unjudged documents and negative
    grades gain 0. Documents with equal scores are ranked as trec_eval ranks them (doc
    id descending). Not in trec_eval, ir_measures or ranx.

    Parameters
    ----------
    k
        Cutoff rank, a positive integer (required: the denominator).
    gains
        Gain per grade, e.g. ``{0: 0, 1: 0.5, 2: 1}``; grades not listed gain their grade.
    gain
        ``"linear"`` (default: the grade or its mapped gain) or ``"exp"`` (2^gain - 1).
    discount
        The weight w_i of rank i, one of :func:`dcg`'s: ``"none"`` (default, precision),
        ``"log2"``, ``"log"``, ``"jk"``, ``"root"``, ``"rank"``, ``"square"``,
        ``"click"``/``"custom"``.
    b
        Log base of ``"log"`` and ``"jk"`` (default 2).
    weights
        The weight of each rank for ``"click"``/``"custom"``.

    See Also
    --------
    SQL ``ireval_graded_p``; P (its binary, undiscounted case), ``DCG@k`` (its numerator),
    SDCG (the same sum over the best score any query could get).

    Examples
    --------
    Grades 2, 0, 1 in the top 3, gains {1: 0.5, 2: 1}: (1 + 0 + 0.5)/3 = 0.5 without
    discount; with the rank discount (1 + 0/2 + 0.5/3)/3 = 0.3889; binary grades give P@3.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"],
    ...                     "score": [3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"],
    ...                       "relevance": [2, 0, 1]})
    >>> out = ir.evaluate(run, qrels, ["GradedP(gains={1:0.5,2:1})@3",
    ...                                "GradedP(gains={1:0.5,2:1},discount='rank')@3",
    ...                                "GradedP(gains={2:1})@3", "P@3"])
    >>> [round(v, 4) for v in out["value"]]
    [0.5, 0.3889, 0.6667, 0.6667]
    """
    check_discount(discount, b, weights)
    return exact_div(ranked_dcg(grade_gain(gain, gains), k, discount, b, weights), k)
