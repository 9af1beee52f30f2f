"""One user-model mechanism for every C/W/L measure (Moffat et al.; cwl_eval's ``ruler``).

A user reads a ranking from the top. After rank i she continues to rank i + 1 with
probability C(i) (the *continuation* vector); the weight W(i) of rank i is the share of her
attention it gets, W(i) = Π_{j<i} C(j) / Σ_m Π_{j<m} C(j), and a measure is the expected
utility per document, Σ_i W(i) g_i, with gains g_i in [0, 1]. A measure is therefore declared
by its continuation C(i) (which may depend on the gains seen so far: INST, BPM) or directly
by its weight vector W(i) (P@k, RBP, TBG, U); everything else follows from it, here, once:

* **base**: Σ W(i) g_i, unjudged documents and ranks past the ranking gaining 0 (the
  worst case);
* **residual**: the best case (unjudged documents and ranks past the ranking gaining 1,
  which for adaptive models also changes W) minus the base: how much the score could
  still grow with more judgments and a deeper ranking;
* **expected depth**: 1 / W(1), the number of documents the user is expected to read.

As in cwl_eval, a model has a depth ``n`` (cwl_eval's ``--max_depth``, 1000 by default):
the positions 1..n are scored, a ranking shorter than ``n`` is extended with unknown
documents (the residual says how much they could add), and W is normalized over the n
positions. A model may instead be infinite (``depth=None``) when its weights sum to 1 in
closed form and it gives the weight of the tail past rank d (RBP: p^d).

Everything is a Polars aggregation over the evaluation table (:mod:`polars_ireval.judge`),
evaluated inside ``group_by(run_id, query_id)``: the gains of one ranking become a vector
of length n inside the group, with no loop over queries or documents.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import polars as pl

from polars_ireval.errors import ParameterError
from polars_ireval.measures._expr import (
    RANK,
    REL,
    Cutoff,
    exact_div,
    ordered_sum,
    retrieved,
    unit_residual,
)
from polars_ireval.registry import (
    Measure,
    SqlCall,
    SqlSpec,
    check,
    grade_ordered,
    measure,
    relevant_grade,
)

Gains = Mapping[int, float] | None

#: cwl_eval's default depth (``--max_depth``): the positions a C/W/L measure scores.
CWL_DEPTH = 1000


def unit_gain(
    rel: int = 1, gains: Gains = None, min_rel: int = 0, max_rel: int | None = None
) -> pl.Expr:
    """Each row's gain in [0, 1], null for an unjudged document.

    With ``max_rel``, ir_measures' scale for the C/W/L measures: the grade clipped to
    [``min_rel``, ``max_rel``], less ``min_rel``, over ``max_rel - min_rel``. With ``gains``
    (a map of grades to gains in [0, 1], e.g. seed 004's ``{0: 0, 1: 0.1, 2: 0.3, 3: 0.7,
    4: 1}``), a judged grade gains its mapped value (0 for grades not listed); otherwise the
    gain is binary: 1 for grade >= ``rel``, else 0.
    """
    if max_rel is not None:
        if gains:
            raise ParameterError(
                f"gains={dict(gains)!r} and max_rel={max_rel}: give one of them (max_rel "
                "scales the grades between min_rel and max_rel to [0, 1])"
            )
        if min_rel >= max_rel:
            raise ParameterError(f"min_rel={min_rel} must be below max_rel={max_rel}")
        span = float(max_rel - min_rel)
        mapped = exact_div((REL.clip(min_rel, max_rel) - min_rel).cast(pl.Float64), span)
    elif gains:
        mapped = REL.replace_strict(
            list(gains), [float(v) for v in gains.values()], default=0.0, return_dtype=pl.Float64
        )
    else:
        mapped = (rel <= REL).cast(pl.Float64)
    return pl.when(REL.is_null()).then(None).otherwise(mapped)


class Position(NamedTuple):
    """What a continuation or weight function sees at each position 1..n of one ranking.

    ``i`` is the 1-based position (Float64), ``gain`` the gain there and ``cum_gain`` the
    gain accumulated over positions 1..i (both for the case being scored: worst or best),
    ``cost`` the cost of the document there and ``cum_cost`` its running total (cwl_eval
    without a cost file: every document costs 1), ``n`` the model's depth.
    """

    i: pl.Expr
    gain: pl.Expr
    cum_gain: pl.Expr
    cost: pl.Expr
    cum_cost: pl.Expr
    n: int


Vector = Callable[[Position], pl.Expr]


@dataclass(frozen=True)
class UserModel:
    """A C/W/L user model: its continuation C(i) or its weights W(i), and its depth.

    Parameters
    ----------
    continuation
        C(i) as an expression of a :class:`Position` (one value per position 1..n).
    weight
        W(i), not necessarily normalized, as an expression of a :class:`Position`; give it
        instead of ``continuation``. Weights that read ``gain`` make the model adaptive.
    depth
        n, the number of positions scored (``None``: infinite, for static ``weight``
        functions that sum to 1 over all ranks, with ``tail`` given).
    tail
        For an infinite model, Σ_{i > d} W(i) as a function of the expression d.
    cutoff
        For an infinite model, the ranks scored (RBP@k: the top k; None: the whole
        ranking); the ranks past it count as unknown, like those past the ranking.
    adaptive
        True when C or W depends on the gains (then the best case has its own weights).

    Examples
    --------
    P@3 is the user who reads exactly three documents:

    >>> import polars as pl, polars_ireval as ir
    >>> from polars_ireval.measures.usermodel import UserModel, unit_gain
    >>> p3 = UserModel(weight=lambda pos: (pos.i <= 3).cast(pl.Float64), depth=3)
    >>> ev = pl.DataFrame({"query_id": ["q"] * 2, "rank": [1, 2], "relevance": [1, None]})
    >>> ev.group_by("query_id").agg(
    ...     base=p3.base(unit_gain()), residual=p3.residual(unit_gain()),
    ...     depth=p3.expected_depth(unit_gain()))
    shape: (1, 4)
    ┌──────────┬──────────┬──────────┬───────┐
    │ query_id ┆ base     ┆ residual ┆ depth │
    │ ---      ┆ ---      ┆ ---      ┆ ---   │
    │ str      ┆ f64      ┆ f64      ┆ f64   │
    ╞══════════╪══════════╪══════════╪═══════╡
    │ q        ┆ 0.333333 ┆ 0.666667 ┆ 3.0   │
    └──────────┴──────────┴──────────┴───────┘
    """

    continuation: Vector | None = None
    weight: Vector | None = None
    depth: int | None = CWL_DEPTH
    tail: Callable[[pl.Expr], pl.Expr] | None = None
    cutoff: Cutoff = None
    adaptive: bool = False

    def __post_init__(self) -> None:
        if (self.continuation is None) == (self.weight is None):
            raise ValueError("a user model takes exactly one of continuation and weight")
        if self.depth is None and (self.weight is None or self.tail is None or self.adaptive):
            raise ValueError("an infinite user model needs static weights and their tail")

    # -- the vectors, over positions 1..n of one ranking -------------------------------

    def _gains(self, gain: pl.Expr, best: bool) -> pl.Expr:
        """The gain vector of positions 1..n: the ranking's gains (unjudged: 0 in the worst
        case, 1 in the best), extended past the ranking with the same unknown value."""
        assert self.depth is not None
        unknown = 1.0 if best else 0.0
        keep = retrieved(self.depth)
        ranked = gain.filter(keep).sort_by(RANK.filter(keep)).fill_null(unknown)
        return ranked.append(pl.repeat(unknown, pl.lit(self.depth) - ranked.len()))

    def _position(self, g: pl.Expr) -> Position:
        """The positions 1..n of the gain vector ``g`` of one ranking."""
        assert self.depth is not None
        i = pl.int_range(1, self.depth + 1, dtype=pl.Int64).cast(pl.Float64)
        return Position(
            i=i, gain=g, cum_gain=g.cum_sum(), cost=i * 0.0 + 1.0, cum_cost=i, n=self.depth
        )

    def _raw_weights(self, g: pl.Expr) -> pl.Expr:
        """W(1..n) before normalization, for the gain vector ``g``."""
        pos = self._position(g)
        if self.weight is not None:
            return self.weight(pos).cast(pl.Float64)
        assert self.continuation is not None
        c = self.continuation(pos).cast(pl.Float64)
        return c.shift(1, fill_value=1.0).cum_prod()

    def _per_ranking(self, vectors: pl.Expr, value: pl.Expr) -> pl.Expr:
        """``value``, an expression of ``pl.element()``, over the ``vectors`` of one ranking
        taken as one list: the vectors are built once, however often ``value`` reads them
        (an aggregation would rebuild an expression each time it appears)."""
        return vectors.implode().list.eval(value).list.first()

    def _utility(self, gain: pl.Expr, best: bool) -> pl.Expr:
        """Σ W(i) g_i as Σ w_i g_i / Σ w_i: one division, so that g = 1 at every position
        gives exactly 1 (the residual of an empty ranking), and 0 <= g <= 1 never more."""
        g = pl.element()
        w = self._raw_weights(g)
        return self._per_ranking(self._gains(gain, best), (w * g).sum() / w.sum())

    # -- the measurements ----------------------------------------------------------------

    def base(self, gain: pl.Expr) -> pl.Expr:
        """Σ W(i) g_i, unjudged documents and ranks past the ranking gaining 0."""
        if self.depth is None:
            keep = retrieved(self.cutoff)
            value = gain.fill_null(0.0) * self.static_weight()
            return ordered_sum(value.filter(keep), RANK.filter(keep))
        return self._utility(gain, best=False)

    def residual(self, gain: pl.Expr) -> pl.Expr:
        """Best case minus base: the most that unjudged documents and unseen ranks could add."""
        if self.depth is None:
            assert self.tail is not None
            keep = retrieved(self.cutoff) & gain.is_null()
            unjudged = ordered_sum(self.static_weight().filter(keep), RANK.filter(keep))
            total = unjudged + self.tail(retrieved(self.cutoff).sum().cast(pl.Float64))
            return unit_residual(total, retrieved(self.cutoff) & gain.is_not_null())
        if not self.adaptive:  # the worst case's weights, on the unknown positions
            both = pl.struct(
                self._gains(gain, best=False).alias("worst"),
                self._gains(gain, best=True).alias("best"),
            )
            worst, best = pl.element().struct.field("worst"), pl.element().struct.field("best")
            w = self._raw_weights(worst)
            return self._per_ranking(both, (w * (best - worst)).sum() / w.sum())
        return self._utility(gain, best=True) - self._utility(gain, best=False)

    def expected_depth(self, gain: pl.Expr) -> pl.Expr:
        """1 / W(1): the expected number of documents read (worst case, as cwl_eval)."""
        if self.depth is None:
            assert self.weight is not None
            one, zero = pl.lit(1.0), pl.lit(0.0)
            return 1.0 / self.weight(Position(one, zero, zero, one, one, 0)).cast(pl.Float64)
        w = self._raw_weights(pl.element())
        return 1.0 / self._per_ranking(self._gains(gain, best=False), w.first() / w.sum())

    def static_weight(self) -> pl.Expr:
        """W(rank) of each ranked row, for an infinite model (static weights)."""
        assert self.weight is not None
        i = RANK.cast(pl.Float64)
        pos = Position(i=i, gain=i * 0.0, cum_gain=i * 0.0, cost=i * 0.0 + 1.0, cum_cost=i, n=0)
        return self.weight(pos).cast(pl.Float64)


# -- declaring measures by their user model --------------------------------------------------


@dataclass(frozen=True)
class Scored:
    """A user model and the gain it reads: what a user-model measure's function returns."""

    model: UserModel
    gain: pl.Expr


#: The user model of each measure declared by one: measure name -> its ``Scored`` builder
#: (the same parameters as the measure). ``ED(measure=...)`` reads it.
MODELS: dict[str, Callable[..., Scored]] = {}
#: The measures whose value is their user model's (:func:`user_model_measure`): their
#: expressions build the model's vectors, one value per position 1..n of each ranking.
SCORED_BY_MODEL: set[str] = set()


def user_model_measure(
    name: str, **declaration: Any
) -> Callable[[Callable[..., Scored]], Callable[..., pl.Expr]]:
    """Declare a measure by its user model: the decorated function returns a :class:`Scored`.

    The measure's value is the model's base score; its residual (``evaluate(...,
    residuals=True)``) comes from the same model. Other keyword arguments go to
    :func:`polars_ireval.registry.measure`.
    """

    def deco(fn: Callable[..., Scored]) -> Callable[..., pl.Expr]:
        MODELS[name] = fn
        SCORED_BY_MODEL.add(name)

        @functools.wraps(fn)
        def base(**params: Any) -> pl.Expr:
            scored = fn(**params)
            return scored.model.base(scored.gain)

        def residual(**params: Any) -> pl.Expr:
            scored = fn(**params)
            return scored.model.residual(scored.gain)

        declaration.setdefault("tie_bounds", grade_ordered)
        return measure(name, residual=residual, sql_residual="residual", **declaration)(base)

    return deco


def model_positions(m: Measure) -> int:
    """The positions per ranking the expression of ``m`` builds: the depth n of its user
    model for a measure scored by one (``INST@1000``: 1000 values per ranking, whatever
    the ranking's length), that of its measure for ``ED``, 0 for the others (RBP's
    infinite model included). What :mod:`polars_ireval.engines.base` estimates the
    memory of an evaluation from.

    >>> import polars_ireval as ir
    >>> [model_positions(ir.parse_measure(s)) for s in ("INST@50", "U", "ED(measure='P@7')",
    ...                                                 "RBP", "nDCG@10")]
    [50, 1000, 7, 0, 0]
    """
    if m.name == "ED":
        inner = m.params.get("measure")
        return _model_depth(inner) if isinstance(inner, Measure) and inner.name in MODELS else 0
    return _model_depth(m) if m.name in SCORED_BY_MODEL else 0


def _model_depth(m: Measure) -> int:
    return MODELS[m.name](**m.params).model.depth or 0


def weighted_precision_residual(weight: Vector, depth: int, gain: pl.Expr) -> pl.Expr:
    """The residual of any weighted-precision measure Σ W(i) g_i over ranks 1..``depth``.

    For measures whose score is computed elsewhere (P@k, SDCG@k) but which are weighted
    precisions with static weights: the weight of the unjudged documents in the top
    ``depth`` plus that of the ranks between the end of the ranking and ``depth``.
    """
    return UserModel(weight=weight, depth=depth).residual(gain)


@check("it must be a measure string of a user-model measure, e.g. 'INST(T=2)@10' or 'RBP'")
def is_user_model_measure(v: Any) -> bool:
    return isinstance(v, Measure) and v.name in MODELS


def expected_depth_sql(args: dict[str, Any]) -> SqlSpec:
    """ED's SQL: the ``depth`` column of the user-model measure's own macro call."""
    inner: Measure = args["measure"]
    if "rel" in {p.name for p in inner.defn.params} and "rel" not in inner.params:
        inner = inner.defn.bind({**inner.params, "rel": args["rel"]}, inner.label_)
    assert inner.defn.sql is not None, f"{inner.name} declares no SQL"
    call = inner.defn.sql(inner.arguments(args["rel"]))
    assert isinstance(call, SqlCall), f"{inner.name}'s SQL is one macro call"
    return SqlCall(call.macro, call.args, "depth")


_ED_CITE = (
    "Moffat, Bailey, Scholer and Thomas, Incorporating user expectations and behavior into "
    "the measurement of search effectiveness, TOIS 2017; Azzopardi, Thomas and Moffat, "
    "cwl_eval: An evaluation tool for information retrieval, SIGIR 2019"
)


def _nested_tie_bounds(params: Mapping[str, Any]) -> bool:
    """ED is bounded over tie orders where its measure is (checked on adaptive models)."""
    nested = params.get("measure")
    return isinstance(nested, Measure) and nested.tie_bounded


@measure(
    "ED",
    tie_bounds=_nested_tie_bounds,
    cutoff=None,
    checks={"measure": is_user_model_measure, "rel": relevant_grade},
    cite=_ED_CITE,
    nested=("measure",),
    sql=expected_depth_sql,
)
def expected_depth(*, measure: str | Measure, rel: int = 1) -> pl.Expr:
    """ED: the expected number of documents the user model of ``measure`` reads, 1 / W(1).

    Any measure declared by its user model (RBP, P, INST, INSQ, TBG, U, BPM, NERR8-11)
    has an expected depth: the inverse of the weight of the first rank (cwl_eval's ``ED``,
    in the worst case of unjudged documents gaining 0). For RBP it is 1 / (1 - p); for P@k, k; for
    adaptive models (INST, BPM) it depends on the gains found.

    Parameters
    ----------
    measure
        The measure string of a user-model measure, e.g. ``'INST(T=2)@10'``.
    rel
        Minimum grade with gain 1, passed on to the measure (default: the evaluation's
        ``relevance_level``) unless the measure string sets its own.

    See Also
    --------
    cwl_eval's ``ED`` column; :class:`UserModel`.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "relevance": [0, 1]})
    >>> ir.evaluate(run, qrels, ["ED(measure='RBP')", "ED(measure='P@10')", "ED(measure='BPM')"])
    shape: (3, 2)
    ┌────────────────────┬───────┐
    │ measure            ┆ value │
    │ ---                ┆ ---   │
    │ str                ┆ f64   │
    ╞════════════════════╪═══════╡
    │ ED(measure='RBP')  ┆ 5.0   │
    │ ED(measure='P@10') ┆ 10.0  │
    │ ED(measure='BPM')  ┆ 2.0   │
    └────────────────────┴───────┘
    """
    assert isinstance(measure, Measure), "parsed when the measure is bound"
    m = measure
    params = m.params
    if "rel" in {p.name for p in m.defn.params}:
        params.setdefault("rel", rel)
    scored = MODELS[m.name](**params)
    return scored.model.expected_depth(scored.gain)
