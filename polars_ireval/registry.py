"""The measure registry: every measure is declared once, here, by the :func:`measure` decorator.

A declaration is a function returning a Polars aggregation expression over the evaluation
table (see :mod:`polars_ireval.judge`), evaluated inside ``group_by(run_id, query_id)``.
Its keyword parameters, their defaults and types come from the function signature; its
documentation from the docstring. Measure strings (ir_measures grammar and trec_eval names),
``docs/measures.md`` and the registry tests are all derived from these declarations.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import itertools
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import polars as pl

from polars_ireval.errors import IrevalError, ParameterError

Aggregate = Literal["mean", "sum", "gmean"]

#: trec_eval's floor for geometric means (``MIN_GEO_MEAN``): values below it count as it.
MIN_GEO_MEAN = 0.00001


@dataclass(frozen=True)
class Param:
    """One keyword parameter of a measure, read from the declaring function's signature."""

    name: str
    default: Any
    annotation: str

    @property
    def required(self) -> bool:
        return self.default is inspect.Parameter.empty


def trec_cutoff(text: str) -> int:
    """A trec_eval cutoff: the number truncated to an integer, as trec_eval does (23.4 -> 23)."""
    try:
        value = int(float(text))
    except ValueError:
        raise ParameterError(f"cutoff {text!r} is not a number") from None
    if value < 1:
        raise ParameterError(f"cutoff {text!r} must be at least 1")
    return value


def trec_float(text: str) -> float:
    """A trec_eval float parameter (``.25`` is 0.25)."""
    try:
        return float(text)
    except ValueError:
        raise ParameterError(f"parameter {text!r} is not a number") from None


@dataclass(frozen=True)
class TrecName:
    """How trec_eval names a measure and its parameters.

    Parameters
    ----------
    name
        The trec_eval measure name (``P``, ``map_cut``, ``ndcg``).
    param
        The measure parameter that trec_eval's ``.params`` suffix sets (``k`` for cutoffs),
        or None when the measure takes none.
    defaults
        The parameter values used when the trec_eval name is given without parameters
        (``P`` means ``P.5,10,15,20,30,100,200,500,1000``).
    kind
        ``"list"``: each comma-separated value gives one measure named ``name_value``;
        ``"whole"``: the parameter string as a whole configures one measure named
        ``name_paramstring`` (``utility.2,-1,0,0``, ``ndcg.1=3,2=9``).
    fixed
        Other parameters this trec_eval name fixes.
    convert
        Reads one parameter value from its text.
    fmt
        Writes one value of a ``"list"`` parameter into the output name (``P_5``).
    """

    name: str
    param: str | None = None
    defaults: tuple[Any, ...] = ()
    kind: Literal["list", "whole", "none"] = "none"
    fixed: Mapping[str, Any] = field(default_factory=dict)
    convert: Callable[[str], Any] = trec_cutoff
    fmt: Callable[[Any], str] = str


@dataclass(frozen=True)
class SqlCall:
    """One SQL macro applied to the evaluation table: ``macro`` with ``args`` (the macro's
    own parameter names, Python values); ``column`` is the output column read as the
    value (``value``, or ``residual`` / ``depth`` of the macros that also give those)."""

    macro: str
    args: Mapping[str, Any] = field(default_factory=dict)
    column: str = "value"


@dataclass(frozen=True)
class SqlMean:
    """The mean of several calls' values per query, added left to right (11pt_avg)."""

    calls: tuple[SqlCall, ...]


SqlSpec = SqlCall | SqlMean
#: Builds a measure's SQL from its arguments (:meth:`Measure.arguments`).
SqlBuilder = Callable[[dict[str, Any]], SqlSpec]

#: Parameters whose SQL macro parameter has another name. DuckDB's names are
#: case-insensitive, so BPM's ``K`` would be its ``k``; the single capital letters of the
#: C/W/L measures are therefore spelled out. A macro parameter named ``gain`` would be
#: captured by the evaluation table's column of that name.
SQL_NAMES = {"gain": "gain_type", "T": "target", "K": "budget", "L": "stop_length"}


def sql_call(macro: str, column: str = "value") -> SqlBuilder:
    """The SQL of a measure computed by ``macro`` from all its parameters, named as in
    Python (up to :data:`SQL_NAMES`): the usual declaration, ``sql=sql_call("ireval_p")``."""

    def build(args: dict[str, Any]) -> SqlSpec:
        return SqlCall(macro, {SQL_NAMES.get(k, k): v for k, v in args.items()}, column)

    build.macro = macro  # type: ignore[attr-defined]
    return build


@dataclass(frozen=True)
class MeasureDef:
    """The declaration of a measure: everything but the parameter values."""

    name: str
    build: Callable[..., pl.Expr]
    params: tuple[Param, ...]
    aggregate: Aggregate
    integer: bool
    doc: str
    cite: str
    aliases: tuple[str, ...]
    trec: tuple[TrecName, ...]
    cutoff: str | None
    checks: Mapping[str, Callable[[Any], bool]]
    #: Builds the per-query residual (same parameters as ``build``): how much the value could
    #: still grow with more judgments and a deeper ranking; None for measures without one.
    residual: Callable[..., pl.Expr] | None = None
    #: For a residual whose user model's weights sum to 1 (RBP, P@k): the parameter values of
    #: this measure whose value is the weight of the judged ranks, 1 - residual (given the
    #: measure's own values); ``evaluate(..., residuals=True)`` divides by it for
    #: ``projected`` (see :meth:`Measure.judged_weight`). None: ``projected`` reads the
    #: residual.
    judged: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None
    #: Whether the value depends on retrieved documents the qrels do not judge (a bool, or a
    #: function of the parameter values). When no requested measure does, ``evaluate``
    #: builds the evaluation table of the judged documents only (``judge(unjudged=False)``).
    unjudged: bool | Callable[[Mapping[str, Any]], bool] = True
    #: Whether the value reads the judged documents the run did not retrieve only through
    #: query statistics (:func:`polars_ireval.measures.query_stat`: R, the ideal DCG...).
    #: ``evaluate`` then computes those once per query, and the measure on the retrieved
    #: judged documents alone (see :func:`polars_ireval.evaluate.per_query_columns`).
    qrels_stats: bool = False
    #: The value of a judged query the run lacks, under ``missing="zero"`` (trec_eval
    #: ``-c``); None: the measure's value for an empty ranking (0 for most measures).
    absent: float | None = None
    #: The measure's SQL (see :func:`sql_call`); None: no SQL.
    sql: SqlBuilder | None = None
    #: The SQL of its residual: ``"residual"`` for the column of that name of the measure's
    #: own macro call, or a builder; None without one.
    sql_residual: SqlBuilder | Literal["residual"] | None = None
    #: Parameters whose value is another measure (``ED(measure='RBP')``): a measure string
    #: is parsed once, when the measure is bound, and the declaration receives the
    #: :class:`Measure`.
    nested: tuple[str, ...] = ()
    #: Whether the extremes of the value over the orders of tied documents (equal scores)
    #: lie at the grade-ordered tie orders (see :mod:`polars_ireval.analysis.ties`): a bool, or a
    #: function of the parameter values (False for a gain mapping that does not increase
    #: with the grade, say). ``tests/test_ties.py`` checks the declaration by enumeration.
    tie_bounds: bool | Callable[[Mapping[str, Any]], bool] = False
    #: Builds the expected value over every order of the documents with equal scores
    #: (``evaluate(..., ties="average")``): the measure's parameters and ``depth`` (the
    #: evaluation's ``max_depth``, applied by the builder), over an evaluation table that
    #: also holds each retrieved row's tie span (:data:`polars_ireval.measures._expr.TIE_START`,
    #: ``TIE_SIZE``). None: no closed form; ``evaluate`` then averages the measure over
    #: every arrangement of the tied documents (:mod:`polars_ireval.engines.average`).
    average: Callable[..., pl.Expr] | None = None
    #: Whether the value is normalised by R, the number of relevant documents at the
    #: measure's ``rel`` (AP, R@k, nDCG...), and so undefined (0/0) for a query without any:
    #: a bool, or a function of the parameter values. ``evaluate``'s ``no_relevant`` policy
    #: applies to such measures (see :attr:`Measure.by_r`).
    by_r: bool | Callable[[Mapping[str, Any]], bool] = False
    #: True for a measure whose lower values are better (Fallout): reports bold its lowest
    #: mean and count a significantly lower run as the better one.
    lower_is_better: bool = False
    #: The measure at every depth in one pass, for :func:`polars_ireval.depth_curve` (see
    #: :mod:`polars_ireval.measures.depth`): from the measure's arguments, the function that
    #: fills its plan, or None for arguments without a running form. None: no such form;
    #: the curve then evaluates the measure once per depth.
    depth: Callable[[dict[str, Any]], Callable[[Any], None] | None] | None = None

    @property
    def summary(self) -> str:
        """The first paragraph of the docstring, on one line."""
        return " ".join(self.doc.strip().split("\n\n")[0].split())

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def bind(self, values: Mapping[str, Any], label: str | None = None) -> Measure:
        """Check ``values`` against the declaration and return a :class:`Measure`.

        Besides the declared parameters, every measure takes ``judged_only`` (ir_measures'
        parameter of that name): True scores the condensed ranking, the run without its
        unjudged documents (see :attr:`Measure.judged_only`).
        """
        values = dict(values)
        judged_only = values.pop(JUDGED_ONLY, False)
        if not isinstance(judged_only, bool):
            raise ParameterError(
                f"{self.name}: {JUDGED_ONLY}={judged_only!r} is invalid; it must be True or False"
            )
        known = {p.name for p in self.params}
        unknown = set(values) - known
        if unknown:
            raise ParameterError(
                f"{self.name}: unknown parameter(s) {sorted(unknown)}; "
                f"{self.name} takes {sorted([*known, JUDGED_ONLY])}"
            )
        for p in self.params:
            if p.name not in values and p.required:
                raise ParameterError(f"{self.name}: parameter {p.name!r} is required")
        for name in self.nested:
            if isinstance(values.get(name), str):
                values[name] = _parse_nested(self.name, name, values[name])
        for name, value in values.items():
            check = self.checks.get(name)
            if value is not None and check is not None and not check(value):
                why = _CHECK_DOC.get(check, "see the docs")
                shown = _repr(value) if isinstance(value, Measure) else repr(value)
                raise ParameterError(f"{self.name}: {name}={shown} is invalid; {why}")
        ordered = tuple(sorted(values.items(), key=lambda kv: kv[0]))
        return Measure(self, ordered, label, judged_only=judged_only)


#: The parameter every measure takes: score the condensed ranking (ir_measures' name).
JUDGED_ONLY = "judged_only"

#: Parses one measure string (set by :mod:`polars_ireval.parse` when it is imported: the
#: parser is a layer above the declarations, which only call it).
_parser: Callable[[str], Measure] | None = None


def use_parser(parse: Callable[[str], Measure]) -> None:
    """Register the function that parses the measure strings of nested parameters."""
    global _parser
    _parser = parse


def _parse_nested(measure: str, name: str, text: str) -> Measure:
    if _parser is None:  # pragma: no cover - polars_ireval.parse is imported with the package
        raise RuntimeError("no measure parser registered; import polars_ireval")
    try:
        return _parser(text)
    except IrevalError as e:
        raise ParameterError(f"{measure}: {name}={text!r} is invalid; {e}") from None


#: A grade below every grade of a qrels: a measure whose ``rel`` is this counts every judged
#: document as relevant (the weight of the judged ranks: :meth:`Measure.judged_weight`).
LOWEST_GRADE = -(2**62)

#: The label of a measure's hidden judged-weight measure: this + the measure's label.
JUDGED_WEIGHT_PREFIX = "judged weight of "


@dataclass(frozen=True)
class Measure:
    """A measure with its parameter values, ready to evaluate.

    ``label`` is the string the user asked for; it names the output. ``judged_only``: the
    measure scores the condensed ranking (Sakai's condensed list: unjudged documents
    removed, the others moved up, as trec_eval's ``-J`` does for every measure at once).
    """

    defn: MeasureDef
    values: tuple[tuple[str, Any], ...]
    label_: str | None = None
    judged_only: bool = False

    @property
    def name(self) -> str:
        return self.defn.name

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.values)

    @property
    def label(self) -> str:
        return self.label_ if self.label_ is not None else self.canonical

    @property
    def canonical(self) -> str:
        """The ir_measures-style string: ``Name(param=value,...)@cutoff``."""
        params = dict(self.values)
        cutoff = params.pop(self.defn.cutoff, None) if self.defn.cutoff else None
        defaults = {p.name: p.default for p in self.defn.params}
        shown = {k: v for k, v in params.items() if v is not None and v != defaults.get(k)}
        if self.judged_only:
            shown[JUDGED_ONLY] = True
        text = self.defn.name
        if shown:
            text += "(" + ",".join(f"{k}={_repr(v)}" for k, v in sorted(shown.items())) + ")"
        if cutoff is not None:
            text += f"@{_repr(cutoff)}"
        return text

    def _kwargs(self, relevance_level: int) -> dict[str, Any]:
        kwargs = dict(self.values)
        # ``rel`` defaults to the evaluation's relevance level, unless its declared default
        # is None (NumRet: no grade condition unless asked for)
        declared = {p.name: p.default for p in self.defn.params}
        if "rel" not in kwargs and declared.get("rel") is not None:
            kwargs["rel"] = relevance_level
        return kwargs

    def arguments(self, relevance_level: int = 1) -> dict[str, Any]:
        """Every declared parameter's value: as given, else ``rel`` is the evaluation's
        relevance level (see :meth:`expr`) and the others their declared defaults. The SQL
        of a measure is built from these (:attr:`MeasureDef.sql`)."""
        defaults = {p.name: p.default for p in self.defn.params if not p.required}
        return {**defaults, **self._kwargs(relevance_level)}

    def judged_weight(self) -> Measure | None:
        """The hidden measure that scores this one's judged weight (1 - residual, summed
        over the judged ranks: see :attr:`MeasureDef.judged`), labelled
        :data:`JUDGED_WEIGHT_PREFIX` + :attr:`label`; None without a declaration.

        >>> import polars_ireval as ir
        >>> m = ir.parse_measures(["RBP(p=0.5)@10"])[0].judged_weight()
        >>> m.label, m.params["rel"] == LOWEST_GRADE, m.params["k"]
        ('judged weight of RBP(p=0.5)@10', True, 10)
        """
        values = None if self.defn.judged is None else self.defn.judged(self.params)
        if values is None:
            return None
        return Measure(
            self.defn,
            tuple(values.items()),
            label_=JUDGED_WEIGHT_PREFIX + self.label,
            judged_only=self.judged_only,
        )

    def expr(self, relevance_level: int = 1) -> pl.Expr:
        """The per-query aggregation expression, aliased to :attr:`label`."""
        return self.defn.build(**self._kwargs(relevance_level)).alias(self.label)

    @property
    def needs_unjudged(self) -> bool:
        """True when the value depends on retrieved documents the qrels do not judge, so the
        evaluation table must keep them (see :func:`polars_ireval.judge`)."""
        if self.judged_only:  # the condensed ranking has none
            return False
        flag = self.defn.unjudged
        if callable(flag):
            defaults = {p.name: p.default for p in self.defn.params if not p.required}
            return bool(flag({**defaults, **dict(self.values)}))
        return flag

    @property
    def by_r(self) -> bool:
        """True when the value is normalised by R (declared ``by_r``), so that a query
        without relevant documents at :meth:`r_level` has no defined value (trec_eval
        scores it 0; ``evaluate``'s ``no_relevant`` says what to do)."""
        flag = self.defn.by_r
        if callable(flag):
            return bool(flag(self.arguments()))
        return flag

    def r_level(self, relevance_level: int = 1) -> int:
        """The grade from which a document counts in this measure's R: its ``rel``
        parameter, else the evaluation's ``relevance_level``."""
        rel = self.arguments(relevance_level).get("rel")
        return relevance_level if rel is None else int(rel)

    @property
    def by_qrels_stats(self) -> bool:
        """True when the measure can be computed from the retrieved judged documents and
        query statistics (declared ``qrels_stats=True``; see :func:`measure`)."""
        return self.defn.qrels_stats and not self.needs_unjudged

    @property
    def has_residual(self) -> bool:
        """True when the measure declares a residual (RBP, P@k, the C/W/L measures...)."""
        return self.defn.residual is not None

    def residual_expr(self, relevance_level: int = 1) -> pl.Expr:
        """The per-query residual expression (Float64), null for measures without one."""
        if self.defn.residual is None:
            return pl.lit(None, dtype=pl.Float64)
        return self.defn.residual(**self._kwargs(relevance_level)).cast(pl.Float64)

    def average_expr(self, relevance_level: int = 1, depth: int | None = None) -> pl.Expr:
        """The expected value over every order of the tied documents (aliased to
        :attr:`label`), with the evaluation's ``max_depth`` as ``depth``; see
        :attr:`MeasureDef.average`. :class:`ParameterError` for a measure without one
        (``evaluate`` then enumerates the tie orders instead)."""
        if self.defn.average is None:
            names = ", ".join(d.name for d in definitions() if d.average is not None)
            raise ParameterError(
                f"{self.label}: ties='average' (the expected value over every order of "
                f"tied documents) has a closed form for {names} only; evaluate() averages "
                "the others over every arrangement of the tied documents"
            )
        return self.defn.average(depth=depth, **self._kwargs(relevance_level)).alias(self.label)

    @property
    def tie_bounded(self) -> bool:
        """:meth:`tie_bounded_at` the default relevance level, 1."""
        return self.tie_bounded_at()

    def tie_bounded_at(self, relevance_level: int = 1) -> bool:
        """Whether the value's extremes over the orders of tied documents lie at the
        grade-ordered tie orders (the declaration's ``tie_bounds``, given the parameter
        values with ``rel`` resolved at ``relevance_level``; see
        :func:`polars_ireval.tie_sensitivity`)."""
        flag = self.defn.tie_bounds
        if callable(flag):
            return bool(flag(self.arguments(relevance_level)))
        return bool(flag)

    def aggregate(self, column: pl.Expr) -> pl.Expr:
        """Aggregate per-query values across queries as trec_eval does (see
        :func:`aggregate`)."""
        return aggregate(column, self.defn.aggregate)

    def __str__(self) -> str:
        return self.label


def aggregate(column: pl.Expr, how: Aggregate = "mean") -> pl.Expr:
    """Per-query values aggregated across queries as trec_eval does: ``"sum"`` (counts),
    ``"mean"``, or ``"gmean"`` (the geometric mean, values floored at
    :data:`MIN_GEO_MEAN`). Nulls (queries a measure leaves undefined) are left out.

    Means add the values one after the other in the order of the rows, then divide by
    their number, as trec_eval does over its queries sorted by id (a pairwise or parallel
    sum can differ in the last bit, and so in trec_eval's 4th decimal); callers sort the
    queries first (:func:`polars_ireval.results.over_queries`).
    """
    if how == "sum":
        return column.sum()
    values = column.cast(pl.Float64).drop_nulls()
    if how == "gmean":
        values = values.clip(lower_bound=MIN_GEO_MEAN).log()
    mean = values.cum_sum().last() / values.len()
    return mean.exp() if how == "gmean" else mean


REGISTRY: dict[str, MeasureDef] = {}
ALIASES: dict[str, str] = {}
TREC: dict[str, tuple[MeasureDef, TrecName]] = {}

_CHECK_DOC: dict[Callable[[Any], bool], str] = {}


def check(doc: str) -> Callable[[Callable[[Any], bool]], Callable[[Any], bool]]:
    """Register a parameter check with the sentence shown when it fails."""

    def deco(fn: Callable[[Any], bool]) -> Callable[[Any], bool]:
        _CHECK_DOC[fn] = doc
        return fn

    return deco


@check("it must be a positive integer")
def positive_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 1


@check("it must be True or False")
def boolean(v: Any) -> bool:
    return isinstance(v, bool)


@check("it must be an integer grade")
def integer(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


@check("it must be an integer grade of 0 or more (negative grades are never relevant)")
def relevant_grade(v: Any) -> bool:
    """A measure's ``rel``: the lowest grade counted relevant, as ``relevance_level`` (a
    negative one would count the documents pooled but not judged, or spam)."""
    return integer(v) and v >= 0


@check("it must be a number in [0, 1]")
def unit_interval(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1


@check("it must be a number in (0, 1)")
def open_unit_interval(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < 1


@check("it must be a positive number")
def positive(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 and math.isfinite(v)


@check("it must be a non-negative number")
def non_negative(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 and math.isfinite(v)


@check("it must be a finite number")
def finite(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def gain_grade(k: Any) -> bool:
    """A grade a gain map may name: an integer of 0 or more (negative grades are never
    relevant and gain 0, whatever a map says)."""
    return integer(k) and k >= 0


@check(
    "it must map grades of 0 or more to finite numbers, e.g. {0: 0, 1: 1, 2: 3} (negative "
    "grades are never relevant and gain 0)"
)
def gain_map(v: Any) -> bool:
    return isinstance(v, Mapping) and all(gain_grade(k) and finite(g) for k, g in v.items())


def _unit_map(v: Any) -> bool:
    """A mapping of grades of 0 or more to numbers in [0, 1]."""
    return isinstance(v, Mapping) and all(
        gain_grade(k) and isinstance(g, (int, float)) and not isinstance(g, bool) and 0 <= g <= 1
        for k, g in v.items()
    )


@check(
    "it must map grades of 0 or more to gains in [0, 1], e.g. {0: 0, 1: 0.5, 2: 1} "
    "(negative grades are never relevant and gain 0)"
)
def unit_gain_map(v: Any) -> bool:
    return _unit_map(v)


@check(
    "it must map grades of 0 or more to utilities in [0, 1], e.g. {1: 0.3, 2: 0.7, 3: 1} "
    "(negative grades are never relevant and gain 0)"
)
def utility_map(v: Any) -> bool:
    return _unit_map(v)


@check("it must be a tuple of four numbers (a, b, c, d)")
def four_numbers(v: Any) -> bool:
    return isinstance(v, tuple) and len(v) == 4 and all(finite(x) for x in v)


def grade_ordered(params: Mapping[str, Any]) -> bool:
    """``tie_bounds`` of a measure whose gain grows with the grade and whose rank weight
    does not grow with the rank, unless its parameters say otherwise: True without a
    custom ``gains`` mapping (a grade it does not list may gain less than a lower one),
    with no ``weights`` vector that rises somewhere, and with a log base ``b`` above 1
    for the ``"log"`` and ``"jk"`` discounts."""
    if params.get("gains"):
        return False
    weights = params.get("weights")
    if weights is not None and any(b > a for a, b in itertools.pairwise(weights)):
        return False
    return not (params.get("discount") in ("log", "jk") and params.get("b", 2.0) <= 1)


def measure(
    name: str,
    *,
    aggregate: Aggregate = "mean",
    integer: bool = False,
    cite: str = "",
    aliases: Sequence[str] = (),
    trec: Sequence[TrecName] = (),
    cutoff: str | None = "k",
    checks: Mapping[str, Callable[[Any], bool]] | None = None,
    residual: Callable[..., pl.Expr] | None = None,
    unjudged: bool | Callable[[Mapping[str, Any]], bool] = True,
    qrels_stats: bool = False,
    absent: float | None = None,
    sql: SqlBuilder | str | None = None,
    sql_residual: SqlBuilder | Literal["residual"] | None = None,
    nested: Sequence[str] = (),
    tie_bounds: bool | Callable[[Mapping[str, Any]], bool] = False,
    average: Callable[..., pl.Expr] | None = None,
    by_r: bool | Callable[[Mapping[str, Any]], bool] = False,
    judged: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None,
    lower_is_better: bool = False,
    depth: Callable[[dict[str, Any]], Callable[[Any], None] | None] | None = None,
) -> Callable[[Callable[..., pl.Expr]], Callable[..., pl.Expr]]:
    """Declare a measure. The decorated function builds its per-query expression.

    Parameters
    ----------
    name
        The canonical (ir_measures-style) name, e.g. ``"nDCG"``.
    aggregate
        How per-query values combine into the run's value: ``"mean"``, ``"sum"`` (counts),
        or ``"gmean"`` (geometric mean with trec_eval's floor of 1e-5).
    integer
        The value is a count (printed without decimals by trec_eval).
    cite
        A citation for the docs.
    aliases
        Other names accepted in measure strings (``"MAP"`` for ``"AP"``).
    trec
        The trec_eval names that map onto this measure.
    cutoff
        The parameter that ``@k`` in a measure string sets (None: the measure has no cutoff).
        A measure whose cutoff is ``k`` must read only the top k ranks of a ranking:
        ``ties="average"`` arranges only the ties that reach rank k
        (:func:`polars_ireval.engines.average.read_depth`); ``tests/test_ties_average.py``
        holds every registered measure to it.
    checks
        Validators per parameter name.
    residual
        Builds the per-query residual expression from the same parameters as the measure
        (see :mod:`polars_ireval.measures.usermodel`); ``evaluate(..., residuals=True)``
        reports it. None: the measure has no residual.
    unjudged
        Whether the value depends on the retrieved documents that the qrels do not judge
        (their number or their ranks), as a bool or a function of the parameter values.
        True (the safe default) keeps them in the evaluation table; declare False for a
        measure computed from judged documents and their ranks alone, and
        ``tests/test_fast_paths.py`` checks the declaration on generated runs.
    qrels_stats
        Declare True for a measure that reads the judgments of documents the run did not
        retrieve only through query statistics (:func:`polars_ireval.measures.query_stat`,
        such as ``num_rel`` and ``ideal_dcg_at_k``): ``evaluate`` then computes those
        statistics once per query from the qrels, and the measure on the retrieved judged
        documents alone, a table much smaller than all judgments of every ranking when many
        runs share the qrels. ``tests/test_fast_paths.py`` checks the declaration.
    absent
        The value of a judged query the run lacks when such queries are scored
        (``missing="zero"``, trec_eval ``-c``, which adds 0 for them); None (default): the
        value of an empty ranking, which is 0 for most measures. Only measures whose empty
        ranking is not worth that need it (``utility``: c·R + d·(N − R)).
    sql
        The measure's SQL: the name of the macro of ``sql/`` that computes it from all its
        parameters (named as in Python, up to :data:`SQL_NAMES`), or a builder returning the
        :class:`SqlCall` (or :class:`SqlMean`) from :meth:`Measure.arguments`, for a measure
        computed by one of several macros. ``tests/test_registry.py`` checks that every
        measure has SQL and that the macro takes exactly those parameters.
    sql_residual
        The SQL of the residual: ``"residual"``, the column of that name of the measure's
        own macro call, or a builder. Required exactly when ``residual`` is given.
    nested
        Parameters whose value is a measure string (ED's ``measure``), parsed when the
        measure is bound; the declaring function receives the :class:`Measure`.
    tie_bounds
        Declare True (or a function of the parameter values) when the value's minimum and
        maximum over the orders of documents with equal scores are reached by ordering
        each tie by grade, one way or the other (:func:`polars_ireval.tie_sensitivity`
        then bounds it); ``tests/test_ties.py`` checks it by enumerating every tie order.
    average
        Builds the measure's expected value over every order of the tied documents, for
        ``evaluate(..., ties="average")``: a function of the measure's parameters and
        ``depth`` (the evaluation's ``max_depth``, or None), returning an aggregation over
        the evaluation table with the tie spans (see :mod:`polars_ireval.measures._expr`,
        ``tie_share`` and ``tie_mean_weight``). It may raise :class:`ParameterError` for
        parameter values it does not handle. A measure without it (or for such values) is
        averaged over every arrangement of the tied documents instead
        (:mod:`polars_ireval.engines.average`, up to a limit). ``tests/test_ties.py`` checks
        it against the mean over every enumerated tie order.
    by_r
        Declare True for a measure normalised by R, the number of relevant documents (at
        its ``rel``, else the evaluation's relevance level), or by a quantity that is 0
        exactly when R is (the ideal DCG): its value for a query without relevant documents
        is a convention (trec_eval's 0), and ``evaluate(..., no_relevant=...)`` chooses
        another. A function of the parameter values for measures normalised so only for
        some of them (``DCG(norm='ideal')``). ``tests/test_no_relevant.py`` checks the
        declarations.
    judged
        For a measure with a residual whose weights sum to 1 (RBP, P@k): the parameter
        values (from the measure's own) that make it score the weight of the judged ranks,
        1 - residual, summed over those ranks (None for parameter values without one);
        ``evaluate(..., residuals=True)`` divides
        the value by it for ``projected`` instead of by 1 - residual, whose digits cancel
        when nearly nothing is judged. ``tests/test_residuals.py`` checks the declarations.
    lower_is_better
        True when lower values are better (Fallout): :func:`polars_ireval.report` and
        :func:`polars_ireval.plot.significance` then call the lower mean the better one.
    depth
        The measure at every depth in one pass, for :func:`polars_ireval.depth_curve`: a
        function of the measure's arguments returning the function that fills its
        :class:`polars_ireval.measures.depth.DepthPlan` (running values read at each
        depth, per-ranking and per-query parts, the value), or None for arguments without
        such a form. Without it the curve evaluates the measure once per depth.
        ``tests/test_stability.py`` checks every declared hook against ``evaluate`` at
        every depth.
    """

    def deco(fn: Callable[..., pl.Expr]) -> Callable[..., pl.Expr]:
        sig = inspect.signature(fn)
        params = tuple(Param(p.name, p.default, str(p.annotation)) for p in sig.parameters.values())
        defn = MeasureDef(
            name=name,
            build=fn,
            params=params,
            aggregate=aggregate,
            integer=integer,
            doc=inspect.getdoc(fn) or "",
            cite=cite,
            aliases=tuple(aliases),
            trec=tuple(trec),
            cutoff=cutoff if cutoff in sig.parameters else None,
            checks=dict(checks or {}),
            residual=residual,
            unjudged=unjudged,
            qrels_stats=qrels_stats,
            absent=absent,
            sql=sql_call(sql) if isinstance(sql, str) else sql,
            sql_residual=sql_residual,
            nested=tuple(nested),
            tie_bounds=tie_bounds,
            average=average,
            by_r=by_r,
            judged=judged,
            lower_is_better=lower_is_better,
            depth=depth,
        )
        _register(defn)

        @functools.wraps(fn)
        def free(**values: Any) -> pl.Expr:
            bound = defn.bind(values)
            if bound.judged_only:
                raise ParameterError(
                    f"{name}: judged_only=True re-ranks the whole ranking, which one "
                    "expression cannot do; condense the table first "
                    "(polars_ireval.condense(table)) or pass the measure string to evaluate()"
                )
            return bound.expr()

        free.definition = defn  # type: ignore[attr-defined]
        return free

    return deco


def _register(defn: MeasureDef) -> None:
    for key in (defn.name, *defn.aliases):
        if key in REGISTRY or key in ALIASES:
            raise RuntimeError(f"measure name {key!r} declared twice")
    REGISTRY[defn.name] = defn
    for alias in defn.aliases:
        ALIASES[alias] = defn.name
    for t in defn.trec:
        if t.name in TREC:
            raise RuntimeError(f"trec_eval name {t.name!r} declared twice")
        TREC[t.name] = (defn, t)


def _with_residual(
    hook: Callable[[dict[str, Any]], Callable[[Any], None] | None],
    residual: Callable[[dict[str, Any], Any], None],
) -> Callable[[dict[str, Any]], Callable[[Any], None] | None]:
    """A depth hook that also fills the plan's residual."""

    def with_residual(args: dict[str, Any]) -> Callable[[Any], None] | None:
        fill = hook(args)
        if fill is None:
            return None

        def both(plan: Any) -> None:
            fill(plan)
            residual(args, plan)

        return both

    return with_residual


def declare_residual(
    name: str,
    residual: Callable[..., pl.Expr],
    sql: SqlBuilder | Literal["residual"] = "residual",
    judged: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None,
    depth: Callable[[dict[str, Any], Any], None] | None = None,
) -> None:
    """Give the already declared measure ``name`` a residual (same parameters as the measure)
    and its SQL (default: the ``residual`` column of the measure's own macro); ``depth``
    sets the residual of the measure's depth plan (see :attr:`MeasureDef.depth`) from its
    arguments.

    For measures declared in a module of their own whose residual comes from the user-model
    mechanism (:mod:`polars_ireval.measures.usermodel`), e.g. ``P``; new measures pass
    ``residual=`` to :func:`measure` instead.
    """
    defn = REGISTRY[name]
    if defn.residual is not None:
        raise RuntimeError(f"measure {name!r} already has a residual")
    hook = defn.depth
    if depth is not None and hook is not None:
        hook = _with_residual(hook, depth)
    REGISTRY[name] = dataclasses.replace(
        defn, residual=residual, sql_residual=sql, judged=judged, depth=hook
    )
    for t in defn.trec:
        TREC[t.name] = (REGISTRY[name], TREC[t.name][1])


def definitions() -> Iterator[MeasureDef]:
    """Every declared measure, in declaration order.

    Examples
    --------
    >>> import polars_ireval as ir
    >>> sorted(d.name for d in ir.definitions())[:5]
    ['11pt_avg', 'AP', 'BPM', 'Bpref', 'DCG']
    """
    return iter(REGISTRY.values())


def _repr(v: Any) -> str:
    if isinstance(v, Measure):
        return repr(v.label)
    if isinstance(v, str):
        return repr(v)
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return repr(v)
    if isinstance(v, Mapping):
        return "{" + ",".join(f"{_repr(k)}:{_repr(x)}" for k, x in v.items()) + "}"
    if isinstance(v, tuple):
        return "(" + ",".join(_repr(x) for x in v) + ")"
    return repr(v)
