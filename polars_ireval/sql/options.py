"""What the options of the SQL macros accept: one declaration, checked on every engine.

A macro header gives each option a kind, and names the rules between its options after
``where``::

    -- macro: ireval_rbp(k: positive_int | NULL := NULL, p: open_unit_interval := 0.8, ...)
    -- macro: ireval_sdcg(k: positions, ...) where min_below_max, discount_weights, scaled_best

:data:`KINDS` and :data:`RULES` hold what the names mean, once, for both renderings of
:mod:`polars_ireval.sql.templates`:

* the DuckDB macro checks its arguments when DuckDB binds the call: :func:`duckdb_problem`
  is a ``CASE`` on the arguments giving the first problem (NULL when there is none), which
  the macro raises with ``error()`` (DuckDB-only SQL, generated here alone; see
  ``polars_ireval.sql.templates.duckdb_macro``);
* the queries rendered for Spark and the other engines take literal values, which
  :func:`check_values` checks in Python first (raising :class:`ParameterError`).

A kind accepts exactly what the Polars engine accepts for the same parameter: its Python
test *is* the check the measure declares (``polars_ireval.registry.positive_int``,
``polars_ireval.measures.dcg.DISCOUNTS``...), applied to the value as the SQL receives it
(a gain map as the text ``',1=0.5,2=1,'``); ``tests/test_sql_options.py`` checks the
DuckDB text against it, value by value. ``NULL`` is accepted only where the header says
``| NULL``. Integers are 128-bit, as in Polars; one limit is the SQL's own: a depth of
positions (``positions``: the C/W/L measures, SDCG) is at most :data:`MAX_POSITIONS`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, get_args

from polars_ireval import registry as R
from polars_ireval.errors import ParameterError
from polars_ireval.fusion.fuse import (
    FUSION_MISSING,
    FUSION_QUERIES,
    FUSION_TIES,
    SQL_METHODS,
)
from polars_ireval.fusion.normalize import GUARDS
from polars_ireval.fusion.normalize import NORMS as FUSION_NORMS
from polars_ireval.judge import MISSING, TIES
from polars_ireval.measures.ap import AP_NORMS
from polars_ireval.measures.cwl import at_least_two
from polars_ireval.measures.dcg import (
    DISCOUNTS,
    GAINS,
    NORMS,
    check_discount,
    non_negative_int,
    weight_vector,
)
from polars_ireval.measures.iprec import ROUNDING
from polars_ireval.measures.ndcg import DCG_KINDS
from polars_ireval.measures.rbp import RbpTies

SqlType = Literal["HUGEINT", "DOUBLE", "VARCHAR", "BOOLEAN"]

#: The most positions the SQL generates (C/W/L depths, SDCG's sum of rank weights): 10^9.
MAX_POSITIONS = 10**9
#: ``ireval_judge``'s ranking strategies (``rank_by``).
RANK_BY = ("window", "count")

#: DuckDB's ``typeof`` of the values each SQL type takes, as a pattern: the integer types
#: (TINYINT ... UHUGEINT) and, for a DOUBLE, FLOAT, DOUBLE and DECIMAL(p,s) too.
_INTS = "U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?"
_TYPEOF: dict[SqlType, str] = {
    "HUGEINT": _INTS,
    "DOUBLE": _INTS + r"|FLOAT|DOUBLE|DECIMAL\(.*\)",
    "VARCHAR": "VARCHAR",
    "BOOLEAN": "BOOLEAN",
}

#: A gain map or weight vector as text: ``,grade=number,...,`` (grades as Python and SQL
#: print integers, so that ``',' || grade || '='`` finds them; numbers as Python prints
#: floats, finite). Python's ``re`` and DuckDB's RE2 read it the same way.
MAP_PATTERN = r"(,(0|-?[1-9][0-9]*)=[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)+,"


def quote(text: str) -> str:
    """``text`` as an SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


@dataclass(frozen=True)
class Kind:
    """The values a macro option takes.

    ``accepts`` tests a non-null value as Python hands it to the SQL (the Polars engine's
    own check); ``valid`` is the same test in DuckDB SQL on ``{v}``, the argument cast to
    ``sql_type`` once its ``typeof`` is one of that type's; ``allowed`` ends the message;
    ``choices``: the values of an enumeration.
    """

    sql_type: SqlType
    accepts: Callable[[Any], bool]
    valid: str
    allowed: str
    choices: tuple[str, ...] = ()


def _choice(values: Sequence[str]) -> Kind:
    """One of ``values``, compared byte for byte (``encode``), whatever the collation."""
    listed = ", ".join(quote(v) for v in values)
    return Kind(
        "VARCHAR",
        lambda v: isinstance(v, str) and v in values,
        f"encode({{v}}) IN ({', '.join(f'encode({quote(v)})' for v in values)})",
        f"it must be one of {listed}",
        tuple(values),
    )


def entries(text: str) -> list[tuple[str, str]] | None:
    """The ``(grade, number)`` texts of a gain map or weight vector; None when ``text`` is
    not one (``''`` is the empty map)."""
    if text == "":
        return []
    if not re.fullmatch(MAP_PATTERN, text):
        return None
    return [(k, v) for k, _, v in (e.partition("=") for e in text.strip(",").split(","))]


def _gain_map(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    """A gain map as text, whose map the measure's ``check`` accepts."""

    def accepts(v: Any) -> bool:
        found = entries(v) if isinstance(v, str) else None
        if found is None or len({k for k, _ in found}) < len(found):
            return False
        return check({int(k): float(x) for k, x in found})

    return accepts


def _weights(v: Any) -> bool:
    """A weight vector as text: ``''`` (none), or the weights of ranks 1, 2, ... in order."""
    found = entries(v) if isinstance(v, str) else None
    if found is None:
        return False
    if not found:
        return True
    in_order = [k for k, _ in found] == [str(i) for i in range(1, len(found) + 1)]
    return in_order and weight_vector(tuple(float(x) for _, x in found))


def _int128(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    """``check``, for a value that fits a HUGEINT (Polars' own limit, Int128)."""
    return lambda v: check(v) and -(2**127) <= v < 2**127


def _positions(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: check(v) and v <= MAX_POSITIONS


_ENTRIES = "string_split(trim({v}, ','), ',')"
_NUMBER = "TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE)"


def _sql_map(values: str) -> str:
    """DuckDB: ``{v}`` is '' or a map of distinct grades of 0 or more (negative grades are
    never relevant) whose numbers pass ``values``."""
    keys = f"list_transform({_ENTRIES}, lambda ireval_e: split_part(ireval_e, '=', 1))"
    grade = "NOT starts_with(split_part(ireval_e, '=', 1), '-')"
    return (
        f"{{v}} = '' OR (regexp_full_match({{v}}, '{MAP_PATTERN}') "
        f"AND len(list_distinct({keys})) = len({_ENTRIES}) "
        f"AND list_bool_and(list_transform({_ENTRIES}, lambda ireval_e: {grade} AND {values})))"
    )


_UNIT = f"{_NUMBER} >= 0 AND {_NUMBER} <= 1"
_MAP_SHAPE = "'' or a map ',grade=value,...,' of distinct integer grades of 0 or more"

#: The kinds of macro options, by the name a header gives them.
KINDS: dict[str, Kind] = {
    "integer": Kind("HUGEINT", _int128(R.integer), "TRUE", "it must be an integer"),
    # a measure's rel (R.relevant_grade), or the lowest grade by which the package asks a
    # measure for its judged weight (every judged document counted: R.LOWEST_GRADE)
    "grade": Kind(
        "HUGEINT",
        _int128(lambda v: R.relevant_grade(v) or v == R.LOWEST_GRADE),
        f"{{v}} >= 0 OR {{v}} = {R.LOWEST_GRADE}",
        "it must be an integer grade of 0 or more (negative grades are never relevant)",
    ),
    "positive_int": Kind(
        "HUGEINT", _int128(R.positive_int), "{v} >= 1", "it must be a positive integer"
    ),
    "non_negative_int": Kind(
        "HUGEINT", _int128(non_negative_int), "{v} >= 0", "it must be a non-negative integer"
    ),
    "positions": Kind(
        "HUGEINT",
        _positions(R.positive_int),
        f"{{v}} >= 1 AND {{v}} <= {MAX_POSITIONS}",
        f"it must be a positive integer, at most {MAX_POSITIONS} (the positions the SQL generates)",
    ),
    "positions_from_2": Kind(
        "HUGEINT",
        _positions(at_least_two),
        f"{{v}} >= 2 AND {{v}} <= {MAX_POSITIONS}",
        f"it must be an integer from 2 to {MAX_POSITIONS} (U gives the last position weight 0)",
    ),
    "number": Kind("DOUBLE", R.finite, "isfinite({v})", "it must be a finite number"),
    "positive": Kind(
        "DOUBLE", R.positive, "isfinite({v}) AND {v} > 0", "it must be a positive finite number"
    ),
    "non_negative": Kind(
        "DOUBLE",
        R.non_negative,
        "isfinite({v}) AND {v} >= 0",
        "it must be a non-negative finite number",
    ),
    "unit_interval": Kind(
        "DOUBLE", R.unit_interval, "{v} >= 0 AND {v} <= 1", "it must be a number in [0, 1]"
    ),
    "open_unit_interval": Kind(
        "DOUBLE", R.open_unit_interval, "{v} > 0 AND {v} < 1", "it must be a number in (0, 1)"
    ),
    "boolean": Kind("BOOLEAN", R.boolean, "TRUE", "it must be TRUE or FALSE"),
    "gain_map": Kind(
        "VARCHAR",
        _gain_map(R.gain_map),
        _sql_map(f"isfinite({_NUMBER})"),
        f"it must be {_MAP_SHAPE} to finite gains, e.g. ',1=1,2=3,'",
    ),
    "unit_gain_map": Kind(
        "VARCHAR",
        _gain_map(R.unit_gain_map),
        _sql_map(_UNIT),
        f"it must be {_MAP_SHAPE} to gains in [0, 1], e.g. ',1=0.5,2=1,'",
    ),
    "utility_map": Kind(
        "VARCHAR",
        _gain_map(R.utility_map),
        _sql_map(_UNIT),
        f"it must be {_MAP_SHAPE} to utilities in [0, 1], e.g. ',1=0.3,2=1,'",
    ),
    "weight_vector": Kind(
        "VARCHAR",
        _weights,
        f"{{v}} = '' OR (regexp_full_match({{v}}, '{MAP_PATTERN}') AND list_bool_and("
        f"list_transform({_ENTRIES}, lambda ireval_e, ireval_i: "
        f"split_part(ireval_e, '=', 1) = CAST(ireval_i AS VARCHAR) "
        f"AND isfinite({_NUMBER}) AND {_NUMBER} >= 0)))",
        "it must be '' or a weight vector ',1=w1,2=w2,...,' of finite non-negative weights "
        "of ranks 1, 2, ... in order, e.g. ',1=1,2=0.6,3=0.3,'",
    ),
    "ties": _choice(TIES),
    "missing": _choice(MISSING),
    "rank_by": _choice(RANK_BY),
    "gain_type": _choice(GAINS),
    "discount": _choice(DISCOUNTS),
    "dcg_norm": _choice(NORMS),
    "ap_norm": _choice(AP_NORMS),
    "dcg": _choice(DCG_KINDS),
    "rbp_ties": _choice(get_args(RbpTies)),
    "rounding": _choice(ROUNDING),
    "text": Kind("VARCHAR", lambda v: isinstance(v, str), "TRUE", "it must be text"),
    # the fusion macros (sql/fusion.sql)
    "fuse_method": _choice(SQL_METHODS),
    "fuse_norm": _choice(FUSION_NORMS),
    "fuse_guard": _choice(GUARDS),
    "fuse_missing": _choice(FUSION_MISSING),
    "fuse_queries": _choice(FUSION_QUERIES),
    "fuse_ties": _choice(FUSION_TIES),
}


# --------------------------------------------------------------------------- rules

#: An option of the macro by name: its SQL (the typed argument in DuckDB, a value in Python)
#: or, for one the macro does not take, the value the rule assumes.
Lookup = Callable[[str], Any]
Failure = tuple[str, str]  # (DuckDB condition true when violated, DuckDB message expression)


@dataclass(frozen=True)
class Rule:
    """A constraint between options, named after ``where`` in a macro header.

    ``failures`` gives the DuckDB conditions that break it, each with its message (SQL
    text); ``problem`` says in Python what breaks it, or None. Both take a lookup of the
    options (see :data:`Lookup`): SQL expressions for the first, values for the second.
    """

    failures: Callable[[Lookup], list[Failure]]
    problem: Callable[[Lookup], str | None]


def _cat(*parts: str) -> str:
    """An SQL string expression: the SQL string expressions ``parts`` joined with ``||``."""
    return " || ".join(parts)


def _as_text(sql: str) -> str:
    return f"CAST({sql} AS VARCHAR)"


def _discount_weights_sql(o: Lookup) -> list[Failure]:
    click = f"{o('discount')} IN ('click', 'custom')"
    discount = _cat("''''", o("discount"), "''''")
    return [
        (
            f"{click} AND {o('weights')} = ''",
            _cat("'discount := '", discount,
                 quote(" needs weights := ',1=w1,2=w2,...,', the weight of each rank")),
        ),
        (
            f"NOT ({click}) AND {o('weights')} <> ''",
            _cat(quote("weights is only used with discount := 'click' or 'custom', not "),
                 discount),
        ),
        (
            f"{o('discount')} IN ('log', 'jk') AND NOT {o('b')} > 1",
            _cat("'discount := '", discount, "' needs a log base b > 1, got b := '",
                 _as_text(o("b"))),
        ),
    ]  # fmt: skip


def _weights_of(text: str) -> tuple[float, ...] | None:
    found = entries(text)
    return tuple(float(x) for _, x in found) if found else None


def _discount_weights(o: Lookup) -> str | None:
    """The Polars engine's own check (polars_ireval.measures.check_discount)."""
    try:
        check_discount(o("discount"), o("b"), _weights_of(o("weights")))
    except ParameterError as e:
        return str(e)
    return None


def _min_below_max_sql(o: Lookup) -> list[Failure]:
    return [
        (
            f"{o('max_rel')} IS NOT NULL AND {o('min_rel')} >= {o('max_rel')}",
            _cat("'min_rel := '", _as_text(o("min_rel")), "' must be below max_rel := '",
                 _as_text(o("max_rel"))),
        )
    ]  # fmt: skip


def _min_below_max(o: Lookup) -> str | None:
    low, high = o("min_rel"), o("max_rel")
    if high is not None and low >= high:
        return f"min_rel := {low} must be below max_rel := {high}"
    return None


_GAINS_OR_MAX_REL = (
    "give gains or max_rel, not both (max_rel scales the grades between min_rel and max_rel "
    "to [0, 1])"
)


def _gains_or_max_rel_sql(o: Lookup) -> list[Failure]:
    return [(f"{o('max_rel')} IS NOT NULL AND {o('gains')} <> ''", quote(_GAINS_OR_MAX_REL))]


def _gains_or_max_rel(o: Lookup) -> str | None:
    return _GAINS_OR_MAX_REL if o("max_rel") is not None and o("gains") else None


_BETA_OR_F_BETA = (
    "give beta or f_beta, not both (beta is trec_eval's set_F weight of recall, beta² in van "
    "Rijsbergen's F; f_beta is his beta, squared here)"
)


def _beta_or_f_beta_sql(o: Lookup) -> list[Failure]:
    return [(f"{o('f_beta')} IS NOT NULL AND {o('beta')} <> 1", quote(_BETA_OR_F_BETA))]


def _beta_or_f_beta(o: Lookup) -> str | None:
    return _BETA_OR_F_BETA if o("f_beta") is not None and o("beta") != 1 else None


_NO_CUTOFF = "norm := 'scaled' (SDCG) needs a cutoff k"
_TOO_DEEP = f"norm := 'scaled' needs k at most {MAX_POSITIONS} (the positions the SQL generates)"


def _scaled_cutoff_sql(o: Lookup) -> list[Failure]:
    scaled = f"{o('norm')} = 'scaled'"
    return [
        (f"{scaled} AND {o('k')} IS NULL", quote(_NO_CUTOFF)),
        (f"{scaled} AND {o('k')} > {MAX_POSITIONS}", quote(_TOO_DEEP)),
    ]


def _scaled_cutoff(o: Lookup) -> str | None:
    if o("norm") != "scaled":
        return None
    if o("k") is None:
        return _NO_CUTOFF
    return _TOO_DEEP if o("k") > MAX_POSITIONS else None


def _gain_sql(o: Lookup, grade: str) -> str:
    """DuckDB: the gain of ``grade`` (an integer expression) under gains and gain_type."""
    mapped = (
        f"COALESCE(TRY_CAST(NULLIF(regexp_extract({o('gains')}, ',' || {_as_text(grade)}"
        f" || '=([^,]*),', 1), '') AS DOUBLE), CAST({grade} AS DOUBLE))"
    )
    return f"(CASE WHEN {o('gain_type')} = 'exp' THEN pow(2.0, {mapped}) - 1.0 ELSE {mapped} END)"


_NOT_POSITIVE = (
    "the best possible DCG is not positive; use a discount with a positive weight in the top "
    "k and max_rel with a gain above min_rel's"
)


def _scaled_best_sql(o: Lookup) -> list[Failure]:
    scale = f"{_gain_sql(o, o('max_rel'))} - {_gain_sql(o, o('min_rel'))}"
    weighted_rank = (
        f"COALESCE(list_bool_or(list_transform({_ENTRIES.replace('{v}', o('weights'))}, "
        f"lambda ireval_e, ireval_i: ireval_i <= {o('k')} AND {_NUMBER} > 0)), FALSE)"
    )
    some_weight = f"({o('discount')} NOT IN ('click', 'custom') OR {weighted_rank})"
    return [
        (
            f"{o('norm')} = 'scaled' AND NOT ({scale} > 0 AND {some_weight})",
            quote(_NOT_POSITIVE),
        )
    ]


def _scaled_best(o: Lookup) -> str | None:
    """The Polars engine refuses a scaled DCG whose best value, the gain of max_rel less
    min_rel's times the sum of the top k weights, is not positive."""
    if o("norm") != "scaled":
        return None
    gains = {int(g): float(x) for g, x in entries(o("gains")) or []}

    def gain(grade: int) -> float:
        value = gains.get(grade, float(grade))
        try:
            return 2.0**value - 1.0 if o("gain_type") == "exp" else value
        except OverflowError:
            return math.inf

    weights = _weights_of(o("weights")) or ()
    some_weight = o("discount") not in ("click", "custom") or any(w > 0 for w in weights[: o("k")])
    return None if gain(o("max_rel")) - gain(o("min_rel")) > 0 and some_weight else _NOT_POSITIVE


#: The rules between options, by the name a header gives them after ``where``.
RULES: dict[str, Rule] = {
    "discount_weights": Rule(_discount_weights_sql, _discount_weights),
    "min_below_max": Rule(_min_below_max_sql, _min_below_max),
    "gains_or_max_rel": Rule(_gains_or_max_rel_sql, _gains_or_max_rel),
    "beta_or_f_beta": Rule(_beta_or_f_beta_sql, _beta_or_f_beta),
    "scaled_cutoff": Rule(_scaled_cutoff_sql, _scaled_cutoff),
    "scaled_best": Rule(_scaled_best_sql, _scaled_best),
}

#: What a rule assumes of an option its macro does not take: SDCG is always scaled, and
#: ireval_dcg's grades start at 0.
ASSUMED = {"norm": "scaled", "min_rel": 0}


# --------------------------------------------------------------------------- checking


def shown(value: Any) -> str:
    """A Python value as the messages show it (as DuckDB prints the argument)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return quote(value)
    return repr(value)


def _shown_sql(name: str) -> str:
    """DuckDB: the argument ``name`` as the messages show it."""
    text = f"CAST({name} AS VARCHAR)"
    return (
        f"CASE typeof({name}) WHEN 'VARCHAR' THEN '''' || replace({text}, '''', '''''') "
        f"|| '''' ELSE COALESCE({text}, 'NULL') END"
    )


def _accepted(name: str, kind: Kind, nullable: bool) -> str:
    """DuckDB: whether the argument ``name`` is of ``kind`` (or NULL when ``nullable``)."""
    value = f"TRY_CAST({name} AS {kind.sql_type})"
    valid = kind.valid.replace("{v}", value)
    typed = f"regexp_full_match(typeof({name}), '{_TYPEOF[kind.sql_type]}')"
    ok = f"{typed} AND {value} IS NOT NULL AND COALESCE({valid}, FALSE)"
    return f"{name} IS NULL OR ({ok})" if nullable else f"{name} IS NOT NULL AND {ok}"


class Option(Protocol):
    """A macro option as the checks read it (``polars_ireval.sql.templates.Param``)."""

    @property
    def name(self) -> str: ...

    @property
    def kind(self) -> str | None: ...

    @property
    def nullable(self) -> bool: ...


def typed(name: str, kind: str) -> str:
    """DuckDB: the argument ``name`` as the body reads it, cast to its kind's type (a
    wrong type then gives NULL, never a binder error, so that the check can report it)."""
    return f"TRY_CAST({name} AS {KINDS[kind].sql_type})"


def duckdb_problem(macro: str, options: Sequence[Option], rules: Sequence[str]) -> str | None:
    """DuckDB: a ``CASE`` on the arguments of ``macro`` giving its first problem as text
    (``'ireval_p: k := 0 is invalid; it must be a positive integer'``), NULL when they are
    sound; None when the macro has nothing to check."""
    whens = []
    for o in options:
        if o.kind is None:
            continue
        kind = KINDS[o.kind]
        allowed = kind.allowed + (" (or NULL)" if o.nullable else "")
        message = (
            f"{quote(f'{macro}: {o.name} := ')} || {_shown_sql(o.name)} || "
            f"{quote(f' is invalid; {allowed}')}"
        )
        whens.append((f"NOT ({_accepted(o.name, kind, o.nullable)})", message))
    args = {o.name: typed(o.name, o.kind) for o in options if o.kind is not None}

    def lookup(name: str) -> str:
        return args[name] if name in args else shown(ASSUMED[name])

    for rule in rules:
        for condition, message in RULES[rule].failures(lookup):
            whens.append((f"COALESCE({condition}, FALSE)", f"{quote(f'{macro}: ')} || {message}"))
    if not whens:
        return None
    cases = "\n".join(f"    WHEN {c}\n        THEN {m}" for c, m in whens)
    return f"CASE\n{cases}\nEND"


def check_values(
    macro: str, options: Sequence[Option], rules: Sequence[str], values: Mapping[str, Any]
) -> None:
    """Raise :class:`ParameterError` unless ``values`` (every option of ``macro``, as
    Python values) are what the macro accepts: the Python side of :func:`duckdb_problem`."""
    for o in options:
        if o.kind is None:
            continue
        v = values[o.name]
        if (v is None and o.nullable) or (v is not None and KINDS[o.kind].accepts(v)):
            continue
        allowed = KINDS[o.kind].allowed + (" (or NULL)" if o.nullable else "")
        raise ParameterError(f"{macro}: {o.name} := {shown(v)} is invalid; {allowed}")

    def lookup(name: str) -> Any:
        return values[name] if name in values else ASSUMED[name]

    for rule in rules:
        problem = RULES[rule].problem(lookup)
        if problem is not None:
            raise ParameterError(f"{macro}: {problem}")
