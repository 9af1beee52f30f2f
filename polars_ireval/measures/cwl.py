"""The C/W/L measures of cwl_eval (Azzopardi, Thomas and Moffat, SIGIR 2019): INST, INSQ,
TBG, U-measure, BPM and the NERR family (NERR8-11), each declared by its user model
(:mod:`.usermodel`).

cwl_eval's conventions are kept: gains are in [0, 1] (binary at grade ``rel``, or mapped by
``gains``); every document costs 1 (cwl_eval without a cost file); the cutoff ``k`` is
cwl_eval's depth (``--max_depth``, default 1000): positions 1..k are scored, a shorter
ranking is extended with unknown documents, and the weights are normalized over the k
positions. The value is cwl_eval's expected utility per document (``EU``); the residual
(``evaluate(..., residuals=True)``) is cwl_eval's ``ResEU``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

from polars_ireval.measures import precision as _precision  # noqa: F401  (declares P)
from polars_ireval.measures._expr import REL, exact_div, retrieved
from polars_ireval.measures.depth import DepthPlan
from polars_ireval.measures.usermodel import (
    CWL_DEPTH,
    MODELS,
    Gains,
    Position,
    Scored,
    UserModel,
    unit_gain,
    user_model_measure,
)
from polars_ireval.registry import (
    LOWEST_GRADE,
    check,
    declare_residual,
    integer,
    open_unit_interval,
    positive,
    positive_int,
    relevant_grade,
    unit_gain_map,
)

_CWL = (
    "Azzopardi, Thomas and Moffat, cwl_eval: An evaluation tool for information retrieval, "
    "SIGIR 2019"
)
_INST = "Moffat, Bailey, Scholer and Thomas, INST: An adaptive metric, ADCS 2015; " + _CWL
_INSQ = (
    "Moffat, Scholer and Thomas, Models and metrics: IR evaluation as a user process, "
    "ADCS 2012; " + _CWL
)
_TBG = "Smucker and Clarke, Time-based calibration of effectiveness measures, SIGIR 2012; " + _CWL
_U = (
    "Sakai and Dou, Summaries, ranked retrieval and sessions: a unified framework for "
    "information access evaluation, SIGIR 2013; " + _CWL
)
_BPM = (
    "Zhang, Liu, Li, Zhang, Xu, Ma and Ru, Evaluating web search with a bejeweled player "
    "model, SIGIR 2017; " + _CWL
)
_CHECKS = {
    "k": positive_int,
    "rel": relevant_grade,
    "gains": unit_gain_map,
    "min_rel": integer,
    "max_rel": integer,
}


_GAIN_PARAMS = """    rel
        Minimum grade with gain 1 (binary gain; default: the evaluation's
        ``relevance_level``). Ignored when ``gains`` or ``max_rel`` is given.
    gains
        Gain per grade, each in [0, 1], e.g. ``{0: 0, 1: 0.5, 2: 1}``.
    min_rel, max_rel
        ir_measures' gain scale (e.g. ``max_rel=3``): with ``max_rel``, a grade gains
        (clip(grade, min_rel, max_rel) - min_rel) / (max_rel - min_rel); ``gains`` must
        not be given then."""


def _gain_doc(fn: Callable[..., Scored]) -> Callable[..., Scored]:
    """Put the documentation of the gain parameters, shared by every measure here, in
    place of ``{gain_params}`` in ``fn``'s docstring."""
    assert fn.__doc__ is not None and "    {gain_params}" in fn.__doc__
    fn.__doc__ = fn.__doc__.replace("    {gain_params}", _GAIN_PARAMS)
    return fn


def inst_model(T: float, k: int = CWL_DEPTH) -> UserModel:
    """INST's user model: C(i) = ((i + T + T_i - 1) / (i + T + T_i))², T_i = T - Σ_{j<=i} g_j."""

    def c(pos: Position) -> pl.Expr:
        t_i = T - pos.cum_gain
        return ((pos.i + T + t_i - 1.0) / (pos.i + T + t_i)).pow(2)

    return UserModel(continuation=c, depth=k, adaptive=True)


@user_model_measure("INST", sql="ireval_inst", cite=_INST, checks={**_CHECKS, "T": positive})
@_gain_doc
def inst(
    *,
    k: int = CWL_DEPTH,
    T: float = 1.0,
    rel: int = 1,
    gains: Gains = None,
    min_rel: int = 0,
    max_rel: int | None = None,
) -> Scored:
    """INST@k: expected utility per document of a user who wants ``T`` units of gain.

    Adaptive user model: after rank i the user continues with probability
    C(i) = ((i + T + T_i - 1) / (i + T + T_i))², where T_i = T - Σ_{j<=i} g_j is the gain
    still wanted; W(i) = Π_{j<i} C(j) / Σ_{m<=k} Π_{j<m} C(j), and INST = Σ_{i<=k} W(i) g_i.
    The more gain she has found, the sooner she stops. The residual recomputes W with the
    unjudged documents and the ranks past the ranking at gain 1.

    Parameters
    ----------
    k
        Depth: positions scored (cwl_eval ``--max_depth``, default 1000).
    T
        Gain the user expects to need (default 1, cwl_eval's ``INSTCWLMetric(T=1.0)``).
    {gain_params}

    See Also
    --------
    cwl_eval ``INSTCWLMetric(T)``; ``INSQ`` (its static variant).

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"],
    ...                     "score": [3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"],
    ...                       "relevance": [0, 1, 0]})
    >>> ir.evaluate(run, qrels, ["INST@3", "INST(T=2)@3"])
    shape: (2, 2)
    ┌─────────────┬──────────┐
    │ measure     ┆ value    │
    │ ---         ┆ ---      │
    │ str         ┆ f64      │
    ╞═════════════╪══════════╡
    │ INST@3      ┆ 0.270677 │
    │ INST(T=2)@3 ┆ 0.312256 │
    └─────────────┴──────────┘
    """
    return Scored(inst_model(T, k), unit_gain(rel, gains, min_rel, max_rel))


@user_model_measure("INSQ", sql="ireval_insq", cite=_INSQ, checks={**_CHECKS, "T": positive})
@_gain_doc
def insq(
    *,
    k: int = CWL_DEPTH,
    T: float = 1.0,
    rel: int = 1,
    gains: Gains = None,
    min_rel: int = 0,
    max_rel: int | None = None,
) -> Scored:
    """INSQ@k: INST's static predecessor, C(i) = ((i + 2T - 1) / (i + 2T))².

    The continuation grows with the rank but ignores the gains found:
    W(i) ∝ Π_{j<i} C(j), normalized over the ``k`` positions; INSQ = Σ_{i<=k} W(i) g_i.

    Parameters
    ----------
    k
        Depth: positions scored (cwl_eval ``--max_depth``, default 1000).
    T
        Gain the user expects to need (default 1, as cwl_eval).
    {gain_params}

    See Also
    --------
    cwl_eval ``INSQCWLMetric(T)``.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"],
    ...                     "score": [3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q"] * 2, "doc_id": ["a", "b"],
    ...                       "relevance": [1, 0]})
    >>> ir.evaluate(run, qrels, ["INSQ@3"], residuals=True)
    shape: (1, 4)
    ┌─────────┬──────────┬──────────┬───────────┐
    │ measure ┆ value    ┆ residual ┆ projected │
    │ ---     ┆ ---      ┆ ---      ┆ ---       │
    │ str     ┆ f64      ┆ f64      ┆ f64       │
    ╞═════════╪══════════╪══════════╪═══════════╡
    │ INSQ@3  ┆ 0.590164 ┆ 0.147541 ┆ 0.692308  │
    └─────────┴──────────┴──────────┴───────────┘
    """

    def c(pos: Position) -> pl.Expr:
        return ((pos.i + 2.0 * T - 1.0) / (pos.i + 2.0 * T)).pow(2)

    return Scored(UserModel(continuation=c, depth=k), unit_gain(rel, gains, min_rel, max_rel))


@user_model_measure("TBG", sql="ireval_tbg", cite=_TBG, checks={**_CHECKS, "halflife": positive})
@_gain_doc
def tbg(
    *,
    k: int = CWL_DEPTH,
    halflife: float = 224.0,
    rel: int = 1,
    gains: Gains = None,
    min_rel: int = 0,
    max_rel: int | None = None,
) -> Scored:
    """TBG@k: time-biased gain, the user's attention halving every ``halflife`` units of time.

    With every document costing one unit of time (cwl_eval without a cost file), the weight
    of rank i is W(i) ∝ 2^(-(i-1)/halflife), normalized over the ``k`` positions (cwl_eval's
    rescaling, so TBG is an expected utility per document); TBG = Σ_{i<=k} W(i) g_i.

    Parameters
    ----------
    k
        Depth: positions scored (cwl_eval ``--max_depth``, default 1000).
    halflife
        The half-life H of the decay (default 224, cwl_eval's ``TBGCWLMetric``).
    {gain_params}

    See Also
    --------
    cwl_eval ``TBGCWLMetric(halflife)``.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": ["q"] * 2, "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    >>> ir.evaluate(run, qrels, ["TBG(halflife=1)@2"])
    shape: (1, 2)
    ┌───────────────────┬──────────┐
    │ measure           ┆ value    │
    │ ---               ┆ ---      │
    │ str               ┆ f64      │
    ╞═══════════════════╪══════════╡
    │ TBG(halflife=1)@2 ┆ 0.666667 │
    └───────────────────┴──────────┘
    """

    def w(pos: Position) -> pl.Expr:
        return pl.lit(2.0).pow(exact_div(-(pos.cum_cost - pos.cost), halflife))

    return Scored(UserModel(weight=w, depth=k), unit_gain(rel, gains, min_rel, max_rel))


@check("it must be an integer of at least 2 (U gives the last position weight 0)")
def at_least_two(v: object) -> bool:
    return positive_int(v) and v != 1


@user_model_measure(
    "U",
    sql="ireval_u",
    aliases=["UMeasure"],
    cite=_U,
    checks={**_CHECKS, "k": at_least_two, "L": positive},
)
@_gain_doc
def u_measure(
    *,
    k: int = CWL_DEPTH,
    L: float = 1000.0,
    rel: int = 1,
    gains: Gains = None,
    min_rel: int = 0,
    max_rel: int | None = None,
) -> Scored:
    """U@k: the U-measure, attention decaying linearly with the text read, to 0 at ``L``.

    The document at rank i starts after reading a text of length pos_i = Σ_{j<i} c_j (with
    unit costs, i - 1), and gets the weight W(i) ∝ max(0, 1 - pos_i / L); as in cwl_eval
    the last of the ``k`` positions gets weight 0, and W is normalized over the positions.
    U = Σ_{i<=k} W(i) g_i.

    Parameters
    ----------
    k
        Depth: positions scored (cwl_eval ``--max_depth``, default 1000).
    L
        The length of text after which the user has stopped (default 1000, cwl_eval's
        ``UMeasureCWLMetric``).
    {gain_params}

    See Also
    --------
    cwl_eval ``UMeasureCWLMetric(L)``.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": ["q"] * 2, "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["b"], "relevance": [1]})
    >>> ir.evaluate(run, qrels, ["U(L=4)@4"])
    shape: (1, 2)
    ┌──────────┬──────────┐
    │ measure  ┆ value    │
    │ ---      ┆ ---      │
    │ str      ┆ f64      │
    ╞══════════╪══════════╡
    │ U(L=4)@4 ┆ 0.333333 │
    └──────────┴──────────┘
    """

    def w(pos: Position) -> pl.Expr:
        read = pos.cum_cost - pos.cost
        decay = (1.0 - exact_div(read, L)).clip(lower_bound=0.0)
        return pl.when(pos.i < pos.n).then(decay).otherwise(0.0)

    return Scored(UserModel(weight=w, depth=k), unit_gain(rel, gains, min_rel, max_rel))


@user_model_measure(
    "BPM", sql="ireval_bpm", cite=_BPM, checks={**_CHECKS, "T": positive, "K": positive}
)
@_gain_doc
def bpm(
    *,
    k: int = CWL_DEPTH,
    T: float = 1.0,
    K: float = 10.0,
    rel: int = 1,
    gains: Gains = None,
    min_rel: int = 0,
    max_rel: int | None = None,
) -> Scored:
    """BPM@k: the static Bejeweled Player Model, reading until ``T`` gain or ``K`` cost.

    The user continues after rank i while the gain found is below T and the cost spent
    below K: C(i) = [Σ_{j<=i} g_j < T and Σ_{j<=i} c_j < K]; she reads the ranks up to where
    either budget is met, each with equal weight (cwl_eval's static BPM).

    Parameters
    ----------
    k
        Depth: positions scored (cwl_eval ``--max_depth``, default 1000).
    T
        The gain the user wants (default 1).
    K
        The cost she will spend; with unit costs, the number of documents (default 10).
    {gain_params}

    See Also
    --------
    cwl_eval ``BPMCWLMetric(T, K)``.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"],
    ...                     "score": [3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"],
    ...                       "relevance": [0, 1, 1]})
    >>> ir.evaluate(run, qrels, ["BPM", "BPM(K=1)"])
    shape: (2, 2)
    ┌──────────┬───────┐
    │ measure  ┆ value │
    │ ---      ┆ ---   │
    │ str      ┆ f64   │
    ╞══════════╪═══════╡
    │ BPM      ┆ 0.5   │
    │ BPM(K=1) ┆ 0.0   │
    └──────────┴───────┘
    """

    def c(pos: Position) -> pl.Expr:
        return (pos.cum_gain < T) & (pos.cum_cost < K)

    return Scored(
        UserModel(continuation=c, depth=k, adaptive=True), unit_gain(rel, gains, min_rel, max_rel)
    )


_NERR = (
    "Azzopardi, Mackenzie and Moffat, ERR is not C/W/L: Exploring the relationship between "
    "expected reciprocal rank and other metrics, ICTIR 2021; " + _CWL
)


def _nerr(continuation: Callable[[Position], pl.Expr], k: int, gain: pl.Expr) -> Scored:
    """A NERR model: continuation ``continuation(pos) * (1 - g_i)``, an ERR-like user who
    stops at a document with the probability of its gain."""

    def c(pos: Position) -> pl.Expr:
        return continuation(pos) * (1.0 - pos.gain)

    return Scored(UserModel(continuation=c, depth=k, adaptive=True), gain)


@user_model_measure("NERR8", sql="ireval_nerr8", cite=_NERR, checks=_CHECKS)
@_gain_doc
def nerr8(
    *,
    k: int,
    rel: int = 1,
    gains: Gains = None,
    min_rel: int = 0,
    max_rel: int | None = None,
) -> Scored:
    """NERR8@k: ERR-like, truncated: C(i) = 1 - g_i for i < k, and 0 at k (eq. 8).

    The user stops at a document with the probability of its gain, and at rank k at the
    latest: W(i) = Π_{j<i} (1 - g_j) over ranks 1..k, normalized; NERR8 = Σ W(i) g_i.

    Parameters
    ----------
    k
        The deepest rank read (required, as in ir_measures' ``NERR8(max_rel=...)@k``).
    {gain_params}

    See Also
    --------
    cwl_eval ``NERReq8CWLMetric(k)``; ir_measures ``NERR8``; ``ERR`` (Chapelle et al.'s).

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"],
    ...                     "score": [3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"],
    ...                       "relevance": [1, 2, 0]})
    >>> ir.evaluate(run, qrels, ["NERR8(max_rel=2)@3"])
    shape: (1, 2)
    ┌────────────────────┬──────────┐
    │ measure            ┆ value    │
    │ ---                ┆ ---      │
    │ str                ┆ f64      │
    ╞════════════════════╪══════════╡
    │ NERR8(max_rel=2)@3 ┆ 0.666667 │
    └────────────────────┴──────────┘
    """
    return _nerr(
        lambda pos: (pos.i < k).cast(pl.Float64), k, unit_gain(rel, gains, min_rel, max_rel)
    )


@user_model_measure("NERR9", sql="ireval_nerr9", cite=_NERR, checks=_CHECKS)
@_gain_doc
def nerr9(
    *,
    k: int,
    rel: int = 1,
    gains: Gains = None,
    min_rel: int = 0,
    max_rel: int | None = None,
) -> Scored:
    """NERR9@k: ERR-like with a reciprocal-rank patience: C(i) = i / (i + 1) (1 - g_i) for
    i < k, and 0 at k (eq. 9).

    W(i) = Π_{j<i} C(j) over ranks 1..k, normalized; NERR9 = Σ W(i) g_i.

    Parameters
    ----------
    k
        The deepest rank read (required, as in ir_measures' ``NERR9(max_rel=...)@k``).
    {gain_params}

    See Also
    --------
    cwl_eval ``NERReq9CWLMetric(k)``; ir_measures ``NERR9``.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"],
    ...                     "score": [3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "c"], "relevance": [1, 1]})
    >>> ir.evaluate(run, qrels, "NERR9@3")["value"][0]
    1.0
    """
    patience = lambda pos: pl.when(pos.i < k).then(pos.i / (pos.i + 1.0)).otherwise(0.0)  # noqa: E731
    return _nerr(patience, k, unit_gain(rel, gains, min_rel, max_rel))


@user_model_measure(
    "NERR10", sql="ireval_nerr10", cite=_NERR, checks={**_CHECKS, "p": open_unit_interval}
)
@_gain_doc
def nerr10(
    *,
    k: int = CWL_DEPTH,
    p: float = 0.9,
    rel: int = 1,
    gains: Gains = None,
    min_rel: int = 0,
    max_rel: int | None = None,
) -> Scored:
    """NERR10: ERR-like with RBP's persistence: C(i) = p (1 - g_i) (eq. 10).

    W(i) = Π_{j<i} C(j) over ranks 1..k, normalized; NERR10 = Σ W(i) g_i.

    Parameters
    ----------
    k
        Depth: positions scored (cwl_eval ``--max_depth``, default 1000).
    p
        The persistence (default 0.9, cwl_eval's ``phi``).
    {gain_params}

    See Also
    --------
    cwl_eval ``NERReq10CWLMetric(phi)``; ir_measures ``NERR10(p=...)``.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"],
    ...                     "score": [3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "c"], "relevance": [1, 1]})
    >>> ir.evaluate(run, qrels, "NERR10(p=0.8)")["value"][0]
    1.0
    """
    return _nerr(lambda pos: pos.i * 0.0 + p, k, unit_gain(rel, gains, min_rel, max_rel))


@user_model_measure("NERR11", sql="ireval_nerr11", cite=_NERR, checks={**_CHECKS, "T": positive})
@_gain_doc
def nerr11(
    *,
    k: int = CWL_DEPTH,
    T: float = 1.0,
    rel: int = 1,
    gains: Gains = None,
    min_rel: int = 0,
    max_rel: int | None = None,
) -> Scored:
    """NERR11: ERR-like with INSQ's patience: C(i) = ((i + 2T - 1) / (i + 2T))² (1 - g_i)
    (eq. 11).

    W(i) = Π_{j<i} C(j) over ranks 1..k, normalized; NERR11 = Σ W(i) g_i.

    Parameters
    ----------
    k
        Depth: positions scored (cwl_eval ``--max_depth``, default 1000).
    T
        INSQ's expected gain (default 1).
    {gain_params}

    See Also
    --------
    cwl_eval ``NERReq11CWLMetric(T)``; ir_measures ``NERR11(T=...)``.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"],
    ...                     "score": [3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "c"], "relevance": [1, 1]})
    >>> ir.evaluate(run, qrels, "NERR11(T=2)@3")["value"][0]
    1.0
    """
    patience = lambda pos: ((pos.i + 2.0 * T - 1.0) / (pos.i + 2.0 * T)).pow(2)  # noqa: E731
    return _nerr(patience, k, unit_gain(rel, gains, min_rel, max_rel))


# -- weighted-precision measures declared elsewhere: their residual from the same mechanism --


def precision_model(k: int) -> UserModel:
    """P@k's user model: she reads exactly the top ``k`` documents, W(i) = 1/k for i <= k."""
    return UserModel(weight=lambda pos: pos.i * 0.0 + 1.0, depth=k)


def precision_residual(*, k: int, rel: int = 1) -> pl.Expr:
    """P@k's residual: (unjudged documents in the top k + ranks missing before k) / k.

    Its user model's residual (:meth:`UserModel.residual` of :func:`precision_model`) in
    closed form, with the same bits: that sums weights of 1.0 over the unknown positions
    and divides by their sum over all k, both whole numbers, exact in floating point; here
    the two counts come from plain sums over the ranking instead of from its gain vector
    (the residuals of five cutoffs on TREC-COVID's 143 runs: 1.4 -> 0.1 CPU s)."""
    del rel  # the unknown positions are the same whatever the relevance threshold
    top = retrieved(k)
    unknown = (top & REL.is_null()).sum() + (pl.lit(k) - top.sum()).clip(lower_bound=0)
    return exact_div(unknown.cast(pl.Float64), k)


def precision_residual_depth(args: dict[str, Any], plan: DepthPlan) -> None:
    """P@k's residual at every depth: the unjudged documents seen down to k, plus the ranks
    missing before k, over k (:func:`precision_residual`)."""
    del args
    k = plan.k.cast(pl.Int64)
    unjudged = plan.running(REL.is_null().cast(pl.UInt32).cum_sum())
    missing = plan.event("unjudged", unjudged, zero=0).cast(pl.Int64)
    n = plan.ranking("n", pl.len()).fill_null(0).cast(pl.Int64)
    beyond = pl.when(k > n).then(k - n).otherwise(0)
    plan.residual = (missing + beyond).cast(pl.Float64) / plan.k.cast(pl.Float64)


def judged_precision(params: dict[str, Any]) -> dict[str, Any]:
    """P@k's parameters that score the weight of its judged ranks (judged documents in the
    top k, over k): 1 - its residual (see :attr:`MeasureDef.judged`)."""
    return {**params, "rel": LOWEST_GRADE}


declare_residual("P", precision_residual, judged=judged_precision, depth=precision_residual_depth)
MODELS["P"] = lambda *, k, rel=1: Scored(precision_model(k), unit_gain(rel))
