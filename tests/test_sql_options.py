"""The options of the SQL macros, and what surrounds them.

* Every option of every macro (listed from the templates' headers) takes exactly what the
  Polars engine takes: in DuckDB a refused value raises an error naming the macro, the
  option, the value and what it must be; rendered for Spark and the other engines it raises
  ``ParameterError``; both come from one declaration and are checked value by value against
  each other, and against the measures' own checks; valid values give the Polars numbers.
* A table that does not exist is named in DuckDB's error, and a table may be named like a
  CTE of the macros.
* ``missing := 'error'`` fails in DuckDB as ``polars_ireval.judge`` does.
* The read recipe of ``docs/sql.md`` reads TREC files as the Python readers do.
* ``evaluate(engine="duckdb")`` warns as the Polars engine does (``CoverageWarning``).
* Measure strings: a parameter given twice, or a value of the wrong type, is refused.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest

import polars_ireval as ir
import polars_ireval.sql as irsql
from polars_ireval.fusion.fuse import SQL_METHODS
from polars_ireval.registry import REGISTRY, SQL_NAMES, SqlCall
from polars_ireval.results import CoverageWarning
from polars_ireval.sql import compile as sqlc
from polars_ireval.sql import options as O
from polars_ireval.sql import templates as T
from tests.paths import SQL_DOC
from tests.support import compare, generated

LIB = irsql.library()
MACROS = {t.name: t for t in LIB.values() if t.kind == "macro"}
#: (macro, option) for every option of every macro, from the templates' headers.
OPTIONS = [(t.name, p.name) for t in MACROS.values() for p in t.scalars]
#: A valid value of each kind, for the options without a default: (SQL, Python).
WITNESS = {
    "positive_int": ("5", 5),
    "positions": ("5", 5),
    "unit_interval": ("0.5", 0.5),
    "non_negative": ("0.5", 0.5),
}

_INT = [
    ("1", 1), ("0", 0), ("-1", -1), ("2", 2), ("5", 5), ("CAST(7 AS UTINYINT)", 7),
    ("1000000000", 10**9), ("1000000001", 10**9 + 1),
    ("9223372036854775808", 2**63), (str(2**127 - 1), 2**127 - 1), (str(2**127), 2**127),
    (str(-(2**127)), -(2**127)),
    ("2.5", 2.5), ("2.0", 2.0), ("CAST(3 AS DOUBLE)", 3.0), ("'5'", "5"), ("TRUE", True),
    ("NULL", None),
]  # fmt: skip
_NUMBER = [
    ("0.5", 0.5), ("0", 0), ("1", 1), ("1.0", 1.0), ("1.5", 1.5), ("-0.5", -0.5), ("2", 2),
    ("0.9999", 0.9999), ("CAST(0.25 AS FLOAT)", 0.25), ("1e308", 1e308),
    ("CAST('inf' AS DOUBLE)", math.inf), ("CAST('-inf' AS DOUBLE)", -math.inf),
    ("CAST('nan' AS DOUBLE)", math.nan), ("'0.5'", "0.5"), ("TRUE", True), ("NULL", None),
]  # fmt: skip
_MAPS = [
    "", ",1=0.5,", ",1=1,2=3,", ",-1=0,", ",0=0.25,1=1.0,", ",1=2,", ",1=-1,", ",1=1e-05,",
    ",1=1,2=0.6,3=0.3,", ",1=0,2=0,", ",2=1,", ",1=1,3=1,", "1=0.5", ",1=0.5", ",01=1,",
    ",1=x,", ",1=0.5,1=0.7,", ",1.5=1,", ",1=inf,", ",1=1e999,", ",1=.5,", ",1=5.,",
]  # fmt: skip
_BOOLEAN = [("TRUE", True), ("FALSE", False), ("NULL", None), ("1", 1), ("'true'", "true")]


def candidates(kind: O.Kind) -> list[tuple[str, Any]]:
    """Values of every type for an option of ``kind``, valid and not: (SQL, Python)."""
    if kind.sql_type == "HUGEINT":
        return _INT
    if kind.sql_type == "DOUBLE":
        return _NUMBER
    if kind.sql_type == "BOOLEAN":
        return _BOOLEAN
    texts = list(kind.choices) or _MAPS
    if kind.choices:
        texts += [kind.choices[0].upper(), " " + kind.choices[0], ""]
    return [(O.quote(x), x) for x in texts] + [("5", 5), ("NULL", None), ("TRUE", True)]


def _option(macro: str, name: str) -> T.Param:
    return next(p for p in MACROS[macro].scalars if p.name == name)


def _valid(p: T.Param) -> tuple[str, Any]:
    """A valid value of option ``p``: its default, or a witness of its kind."""
    if p.default is not None:
        return p.default, T.default_value(p.default)
    assert p.kind is not None
    return WITNESS[p.kind]


#: The fixture's tables, by table parameter.
TABLES = {
    "run_table": "t_run", "qrels_table": "t_qrels", "eval_table": "t_ev", "runs_table": "t_runs",
}  # fmt: skip


def _tables(t: T.Template, empty: bool = False) -> dict[str, str]:
    return {name: TABLES[name] + ("_empty" if empty else "") for name in t.tables}


@pytest.fixture(scope="module")
def con() -> Iterator[Any]:
    """The macros; the generated run and qrels (``t_run``, ``t_qrels``), their evaluation
    table (``t_ev``) and empty copies (``*_empty``); and, per macro, a scalar macro
    ``check_<macro>`` returning the problem its checks find (NULL when none)."""
    c = irsql.load(duckdb.connect())
    c.execute("SET max_temp_directory_size = '1GB'")  # a test gone wrong fails, not the disk
    run, qrels = generated(0)
    c.register("run_frame", run.to_arrow())
    c.register("qrels_frame", qrels.to_arrow())
    c.execute("CREATE TABLE t_run AS SELECT * FROM run_frame")
    c.execute("CREATE TABLE t_qrels AS SELECT * FROM qrels_frame")
    c.execute("CREATE TABLE t_ev AS SELECT * FROM ireval_judge('t_run', 't_qrels')")
    # the fusion macros' runs: the queries every run has (their queries := 'error' fails
    # on the others)
    c.execute(
        "CREATE TABLE t_runs AS SELECT run_id, query_id, doc_id, score FROM t_run WHERE "
        "query_id IN (SELECT query_id FROM t_run GROUP BY query_id HAVING COUNT(DISTINCT "
        "run_id) = (SELECT COUNT(DISTINCT run_id) FROM t_run))"
    )
    for table in TABLES.values():
        c.execute(f"CREATE TABLE {table}_empty AS SELECT * FROM {table} WHERE FALSE")
    for t in MACROS.values():
        problem = O.duckdb_problem(t.name, t.scalars, t.rules)
        if problem is not None:
            params = ", ".join(f"{p.name} := {p.default or 'NULL'}" for p in t.scalars)
            c.execute(f"CREATE MACRO check_{t.name}({params}) AS ({problem})")
    yield c
    c.close()


def _call(macro: str, values: dict[str, str]) -> str:
    return ", ".join(f"{name} := {sql}" for name, sql in values.items())


def _duckdb_problem(con: Any, macro: str, values: dict[str, str]) -> str | None:
    return con.sql(f"SELECT check_{macro}({_call(macro, values)})").fetchall()[0][0]


def _python_problem(macro: str, values: dict[str, Any]) -> str | None:
    """What render() refuses in ``values`` (options of ``macro``; the others take their
    default) before rendering."""
    t = MACROS[macro]
    defaults = {p.name: T.default_value(p.default) for p in t.scalars if p.default is not None}
    values = {**defaults, **values}
    try:
        O.check_values(t.name, t.scalars, t.rules, values)
    except ir.ParameterError as e:
        return str(e)
    T.render(t, LIB, values, _tables(t), checked=True)  # and then renders
    return None


# --------------------------------------------------------------------------- one declaration


@pytest.mark.parametrize("macro,option", OPTIONS, ids=[f"{m}-{o}" for m, o in OPTIONS])
def test_duckdb_checks_what_python_checks(con: Any, macro: str, option: str) -> None:
    """For every value of every type, the DuckDB check and the Python check of the
    rendered queries agree: both accept it, or both refuse it, with the same message when
    the option's kind refuses it (a rule between options words its own)."""
    t = MACROS[macro]
    base = {p.name: _valid(p) for p in t.scalars}
    assert _duckdb_problem(con, macro, {k: v[0] for k, v in base.items()}) is None
    p = _option(macro, option)
    assert p.kind is not None
    outcomes = []
    for sql, value in candidates(O.KINDS[p.kind]):
        sql_values = {k: v[0] for k, v in base.items()} | {option: sql}
        py_values = {k: v[1] for k, v in base.items()} | {option: value}
        in_duckdb = _duckdb_problem(con, macro, sql_values)
        in_python = _python_problem(macro, py_values)
        assert (in_duckdb is None) == (in_python is None), (sql, in_duckdb, in_python)
        if in_python is not None and _refused_by_kind(macro, option, in_python):
            assert in_duckdb == in_python
        elif in_python is not None:
            assert in_duckdb is not None and in_duckdb.startswith(f"{macro}: ")
        outcomes.append(in_python is None)
    assert any(outcomes) and not all(outcomes), "the candidates must reach both outcomes"


def _refused_by_kind(macro: str, option: str, message: str) -> bool:
    """Whether ``message`` says the option's own kind refuses its value (not a rule)."""
    return re.match(rf"{macro}: {option} := .* is invalid; it must be ", message) is not None


def _first_refused(macro: str, p: T.Param) -> tuple[str, Any, str]:
    """The first candidate value the option's own kind refuses, and the message."""
    assert p.kind is not None
    base = {q.name: _valid(q)[1] for q in MACROS[macro].scalars}
    for sql, value in candidates(O.KINDS[p.kind]):
        problem = _python_problem(macro, base | {p.name: value})
        if problem is not None and _refused_by_kind(macro, p.name, problem):
            return sql, value, problem
    raise AssertionError(f"no refused value for {macro}({p.name})")


MACROS_WITH_OPTIONS = [name for name, t in MACROS.items() if t.scalars]


@pytest.mark.parametrize("macro", MACROS_WITH_OPTIONS)
@pytest.mark.parametrize("empty", [False, True], ids=["data", "empty"])
def test_macro_raises_its_check(con: Any, macro: str, empty: bool) -> None:
    """The table macro itself raises what its check finds, when it is called (also on
    empty tables), and runs with valid options."""
    t = MACROS[macro]
    tables = ", ".join(O.quote(x) for x in _tables(t, empty).values())
    base = {p.name: _valid(p)[0] for p in t.scalars}
    con.sql(f"SELECT count(*) FROM {macro}({tables}, {_call(macro, base)})").fetchall()
    for p in t.scalars:
        sql, _, message = _first_refused(macro, p)
        query = f"SELECT * FROM {macro}({tables}, {_call(macro, base | {p.name: sql})})"
        with pytest.raises(duckdb.InvalidInputException) as e:
            con.sql(query).fetchall()
        assert str(e.value) == f"Invalid Input Error: {message}"


@pytest.mark.parametrize(
    "query,message",
    [
        (
            "ireval_judge('t_run', 't_qrels', ties := 'Trec_Eval')",
            "ireval_judge: ties := 'Trec_Eval' is invalid; it must be one of 'trec_eval', "
            "'doc_id_asc', 'input_order', 'rank'",
        ),
        (
            "ireval_judge('t_run', 't_qrels', max_depth := -1)",
            "ireval_judge: max_depth := -1 is invalid; it must be a positive integer (or NULL)",
        ),
        ("ireval_p('t_ev', 0)", "ireval_p: k := 0 is invalid; it must be a positive integer"),
        ("ireval_p('t_ev', 2.5)", "ireval_p: k := 2.5 is invalid; it must be a positive integer"),
        (
            "ireval_rbp('t_ev', p := 1.5)",
            "ireval_rbp: p := 1.5 is invalid; it must be a number in (0, 1)",
        ),
        (
            "ireval_judge('t_run', 't_qrels', missing := 'Zero')",
            "ireval_judge: missing := 'Zero' is invalid; it must be one of 'skip', 'zero', 'error'",
        ),
        (
            "ireval_dcg('t_ev', discount := 'click')",
            "ireval_dcg: discount := 'click' needs weights := ',1=w1,2=w2,...,', the weight of "
            "each rank",
        ),
        (
            "ireval_sdcg('t_ev', 5, min_rel := 1)",
            "ireval_sdcg: min_rel := 1 must be below max_rel := 1",
        ),
        (
            "ireval_dcg('t_ev', norm := 'scaled')",
            "ireval_dcg: norm := 'scaled' (SDCG) needs a cutoff k",
        ),
        (
            "ireval_inst('t_ev', k := 1000000001)",
            "ireval_inst: k := 1000000001 is invalid; it must be a positive integer, at most "
            "1000000000 (the positions the SQL generates)",
        ),
    ],
)
def test_reported_values_raise(con: Any, query: str, message: str) -> None:
    """The values that gave silent numbers (AP 0 for every run, NaN, negative RBP)."""
    with pytest.raises(duckdb.InvalidInputException, match=re.escape(message)):
        con.sql(f"SELECT * FROM {query}").fetchall()


def test_options_are_checked_when_the_call_is_bound(con: Any) -> None:
    """Before anything runs: under EXPLAIN, with a filter that keeps no row, on an empty
    table, and before a depth the SQL would take hours to generate."""
    for query in (
        "EXPLAIN SELECT * FROM ireval_p('t_ev', 0)",
        "SELECT * FROM ireval_p('t_ev', 0) WHERE FALSE",
        "SELECT * FROM ireval_p('t_ev_empty', 0)",
        "SELECT count(*) FROM ireval_inst('t_ev', k := 1000000001) WHERE value > 2",
    ):
        with pytest.raises(duckdb.InvalidInputException, match=r"k := \d+ is invalid"):
            con.sql(query).fetchall()


def test_collation_does_not_widen_the_choices() -> None:
    """Under a case-insensitive default collation a case typo is still refused."""
    c = irsql.load(duckdb.connect(), ["ireval_judge"])
    c.execute("SET default_collation = 'nocase'")
    c.execute("CREATE TABLE run AS SELECT 'q' AS query_id, 'd' AS doc_id, 1.0 AS score")
    c.execute("CREATE TABLE qrels AS SELECT 'q' AS query_id, 'd' AS doc_id, 1 AS relevance")
    with pytest.raises(duckdb.InvalidInputException, match="ties := 'TREC_EVAL' is invalid"):
        c.sql("SELECT * FROM ireval_judge('run', 'qrels', ties := 'TREC_EVAL')").fetchall()
    assert c.sql("SELECT rank FROM ireval_judge('run', 'qrels')").fetchall() == [(1,)]


def test_dialect_scripts_refuse_bad_options() -> None:
    from polars_ireval.sql.dialects import script

    with pytest.raises(ir.ParameterError, match=r"ireval_judge: ties := 'Trec_Eval' is invalid"):
        script(["AP"], "trino", ties="Trec_Eval")
    with pytest.raises(ir.ParameterError, match=r"ireval_judge: max_depth := 0 is invalid"):
        script(["AP"], "bigquery", max_depth=0)
    lib = irsql.library()
    with pytest.raises(ir.ParameterError, match=r"missing := 'error' makes the macro fail"):
        T.render(
            lib["ireval_judge"], lib, {"missing": "error"}, {"run_table": "r", "qrels_table": "q"}
        )


# --------------------------------------------------------------------------- = the Polars engine

#: Values of every type a measure string can give a parameter (literals only: no NaN).
_PY_VALUES: list[Any] = [
    -1, 0, 1, 2, 3, 0.0, 0.5, 1.0, 1.5, 2.5, -0.5, True, False, None,
    "", "x", "Log2", *sorted({c for k in O.KINDS.values() for c in k.choices}),
    {1: 0.5}, {1: 1.0, 2: 0.25}, {1: 2.0}, {1: -1.0}, {0: 0, 2: 3}, {1: "a"}, {},
    (1.0, 0.5), (0.0, 1.0), (-1.0,), (0.0, 0.0), (1, "a"), "abc",
]  # fmt: skip


def _as_sql_value(value: Any, kind: str) -> Any:
    """How the SQL receives a measure-string value: a gain map (a dict) or a weight vector
    (a tuple) as text, '' for None; a value of neither for an option of those kinds."""
    if kind in ("gain_map", "unit_gain_map", "utility_map", "weight_vector"):
        if value is None:
            return ""
        if kind != "weight_vector" and isinstance(value, dict):
            simple = all(type(g) is int for g in value) and all(
                type(v) in (int, float) for v in value.values()
            )
            return T.gain_map(value) if simple else "not a map"
        if kind == "weight_vector" and isinstance(value, tuple):
            simple = value and all(type(v) in (int, float) for v in value)
            return T.weight_map(value) if simple else "not a vector"
        return "not a map"
    return value


def _string(name: str, params: dict[str, Any]) -> str:
    return f"{name}({','.join(f'{k}={v!r}' for k, v in params.items())})"


def _required(name: str) -> dict[str, Any]:
    """Values of the required parameters of measure ``name``."""
    given = {"k": 5, "recall": 0.5, "mult": 0.5, "measure": "P@5", "num_docs": 100_000}
    return {p.name: given[p.name] for p in REGISTRY[name].params if p.required}


def _polars_accepts(text: str) -> bool:
    try:
        m = ir.parse_measure(text)
        m.expr()
        m.residual_expr()
    except ir.ParameterError:
        return False
    return True


#: Other parameters given with the one compared: some values need them (weights need a
#: weight discount, min_rel a max_rel above 1), and they route some measures to another
#: macro (AP with a discount to ireval_ap_variant, nDCG to ireval_dcg).
COMPANIONS: list[dict[str, Any]] = [{}, {"discount": "click"}, {"discount": "log"}, {"max_rel": 3}]


def _with(name: str, param: str, value: Any, companion: dict[str, Any]) -> dict[str, Any]:
    """The parameters of a measure string setting ``param`` to ``value``."""
    return {**_required(name), **companion, param: value}


def _route(name: str, param: str, companion: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The macro and arguments the SQL engines use for measure ``name`` with ``param`` set
    to the first value (other than its default) the Polars engine takes, when ``param`` is
    an option of that macro (not: utility's weights, split in four; parameters choosing
    the macro, as SetP's relative; the measures computed by several calls)."""
    declared = {p.name for p in REGISTRY[name].params}
    if param in companion or not set(companion) <= declared or (name, param) in CHOOSERS:
        return None
    default = REGISTRY[name].param(param).default
    for value in _PY_VALUES:
        if value is None or (value == default and type(value) is type(default)):
            continue
        text = _string(name, _with(name, param, value, companion))
        if not _polars_accepts(text):
            continue
        s = sqlc.spec(ir.parse_measure(text))
        option = SQL_NAMES.get(param, param)
        if not isinstance(s, SqlCall) or option not in {p.name for p in MACROS[s.macro].scalars}:
            return None
        return s.macro, dict(s.args)
    return None


#: Parameters that choose the macro (NumRet(rel=None) is ireval_num_ret, otherwise
#: ireval_num_rel_ret), compared through the macro they choose by the tests of its options.
CHOOSERS = {("NumRet", "rel")}
PARAMS = [(n, p.name) for n, d in REGISTRY.items() for p in d.params]
#: (measure, parameter, index of the companions) -> (macro, its arguments), one per macro
#: reached.
ROUTES: dict[tuple[str, str, int], tuple[str, dict[str, Any]]] = {}
for _name, _param in PARAMS:
    _reached = set()
    for _i, _companion in enumerate(COMPANIONS):
        _found = _route(_name, _param, _companion)
        if _found is not None and _found[0] not in _reached:
            _reached.add(_found[0])
            ROUTES[(_name, _param, _i)] = _found
ROUTED = sorted(ROUTES)
ROUTE_IDS = [f"{n}-{p}-{COMPANIONS[i]}" for n, p, i in ROUTED]


#: The macros that are no measure: their options are checked against their Python
#: function below.
NOT_MEASURES = ("ireval_judge", "ireval_fuse", "ireval_normalize")


def test_routes_cover_the_options() -> None:
    """Every option of the measure macros is some measure's parameter, compared below
    (but for utility's w_rel_ret ... w_nonrel_missed: its weights, split in four)."""
    covered = {(route[0], SQL_NAMES.get(p, p)) for (_, p, _), route in ROUTES.items()}
    left = {(m, o) for m, o in OPTIONS if m not in NOT_MEASURES and (m, o) not in covered}
    assert left == {
        ("ireval_utility", w)
        for w in ("w_rel_ret", "w_nonrel_ret", "w_rel_missed", "w_nonrel_missed")
    }


#: The judge's options that polars_ireval.judge takes too (rank_by is the SQL's own).
JUDGE_OPTIONS = ["max_depth", "judged_only", "ties", "missing", "unjudged"]


@pytest.mark.parametrize("option", JUDGE_OPTIONS)
def test_judge_accepts_what_polars_judge_accepts(option: str) -> None:
    """ireval_judge takes exactly the option values polars_ireval.judge takes."""
    run = pl.DataFrame({"query_id": ["q"], "doc_id": ["d"], "score": [1.0], "input_rank": [1.0]})
    qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["d"], "relevance": [1]})
    outcomes = []
    for value in [*_PY_VALUES, *O.KINDS["ties"].choices, *O.KINDS["missing"].choices]:
        try:
            ir.judge(run, qrels, **{option: value})
            polars_ok = True
        except ir.ParameterError:
            polars_ok = False
        assert (_python_problem("ireval_judge", {option: value}) is None) == polars_ok, value
        outcomes.append(polars_ok)
    assert any(outcomes) and not all(outcomes)


POLARS_ONLY = set(ir.fusion.METHODS) - set(SQL_METHODS)
FUSION_OPTIONS = [
    (m, p.name) for m in ("ireval_fuse", "ireval_normalize") for p in MACROS[m].scalars
]


@pytest.mark.parametrize(
    "macro,option", FUSION_OPTIONS, ids=[f"{m}-{o}" for m, o in FUSION_OPTIONS]
)
def test_fusion_macros_accept_what_fuse_accepts(macro: str, option: str) -> None:
    """ireval_fuse and ireval_normalize take exactly the option values polars_ireval.fuse
    and polars_ireval.normalize take (each option alone, the others at their defaults)."""
    runs = pl.DataFrame({"run_id": ["a", "b"], "query_id": "q", "doc_id": "d", "score": 1.0})
    outcomes = []
    for value in [*_PY_VALUES, 60, 0.01, 0.8, 1e308, math.inf, math.nan]:
        if option == "norm" and value == "max":  # (refused on negative scores only)
            continue
        if option == "method" and isinstance(value, str) and value in POLARS_ONLY:
            continue  # the Polars engine's own methods (trained, pairwise)
        try:
            if macro == "ireval_fuse":  # with a method that reads the option
                method = {"gamma": "gmnz", "sigma": "logn_isr", "phi": "rbc"}.get(option, "rrf")
                given = {} if option == "method" else {"method": method}
                ir.fuse(runs, **given, **{option: value})  # type: ignore[arg-type]
            else:
                ir.normalize(runs, **{option: value})  # type: ignore[arg-type]
            polars_ok = True
        except ir.ParameterError:
            polars_ok = False
        assert (_python_problem(macro, {option: value}) is None) == polars_ok, value
        outcomes.append(polars_ok)
    assert any(outcomes) and not all(outcomes)


def _map_kind(kind: O.Kind) -> bool:
    return kind.sql_type == "VARCHAR" and not kind.choices


@pytest.mark.parametrize("name,param,companion", ROUTED, ids=ROUTE_IDS)
def test_macros_accept_what_polars_accepts(name: str, param: str, companion: int) -> None:
    """A measure-string value the Polars engine refuses is refused by the macro the SQL
    engines call for that measure (checked in Python, the declaration DuckDB's checks are
    compared with above), and one it takes is taken."""
    macro, args = ROUTES[(name, param, companion)]
    given = COMPANIONS[companion]
    option = SQL_NAMES.get(param, param)
    kind = _option(macro, option).kind
    assert kind is not None
    outcomes = []
    for value in _PY_VALUES:
        if _map_kind(O.KINDS[kind]) and isinstance(value, str):
            continue  # the SQL's map text, which no measure string gives
        polars_ok = _polars_accepts(_string(name, _with(name, param, value, given)))
        sql_value = _as_sql_value(value, kind)
        sql_ok = _python_problem(macro, {**args, option: sql_value}) is None
        assert sql_ok == polars_ok, (value, sql_value)
        outcomes.append(polars_ok)
    assert any(outcomes) and not all(outcomes)


def _accepted_strings() -> list[str]:
    """Measure strings giving each routed parameter the first and the last of the values
    the Polars engine takes."""
    out = []
    for name, param, companion in ROUTED:
        given = COMPANIONS[companion]
        texts = [_string(name, _with(name, param, value, given)) for value in _PY_VALUES]
        taken = [text for text in texts if _polars_accepts(text)]
        out += taken[:1] + taken[-1:]
    return sorted(set(out))


@pytest.mark.filterwarnings("ignore::polars_ireval.CoverageWarning")
def test_accepted_values_give_the_polars_numbers() -> None:
    """Values taken above give the Polars engine's per-query numbers in DuckDB."""
    run, qrels = generated(4)
    names = _accepted_strings()
    assert len(names) > 100
    kw = {"per_query": True, "missing": "zero"}
    for i in range(0, len(names), 40):
        batch = names[i : i + 40]
        got = ir.evaluate(run, qrels, batch, engine="duckdb", **kw)
        compare(got, ir.evaluate(run, qrels, batch, **kw))


# --------------------------------------------------------------------------- tables


def test_missing_tables_are_named() -> None:
    c = irsql.load(duckdb.connect())
    for query, table in [
        ("ireval_judge('nonexistent_run', 'qrels')", "nonexistent_run"),
        ("ireval_check('nonexistent_run', 'qrels')", "nonexistent_run"),
        ("ireval_rankings('nonexistent_run')", "nonexistent_run"),
        ("ireval_ap('nonexistent_eval')", "nonexistent_eval"),
    ]:
        with pytest.raises(duckdb.CatalogException, match=f"Table with name {table} does not"):
            c.sql(f"SELECT * FROM {query}").fetchall()
    c.execute("CREATE TABLE run AS SELECT 'q' AS query_id, 'd' AS doc_id, 1.0 AS score")
    with pytest.raises(duckdb.CatalogException, match="Table with name qrels does not exist"):
        c.sql("SELECT * FROM ireval_judge('run', 'qrels')").fetchall()


def _cte_names(t: T.Template) -> set[str]:
    body = T.duckdb_macro(t, LIB)
    return set(re.findall(r"(?:WITH|,)\s+(\w+) AS (?:NOT MATERIALIZED )?\(", body))


@pytest.mark.parametrize("macro", sorted(MACROS))
def test_tables_named_like_ctes(con: Any, macro: str) -> None:
    """A table named like a CTE of the macro is read, not the CTE."""
    t = MACROS[macro]
    base = {p.name: _valid(p)[0] for p in t.scalars}
    args = f", {_call(macro, base)}" if base else ""

    def rows(tables: dict[str, str]) -> list[Any]:
        names = ", ".join(O.quote(irsql.quote_ident(x)) for x in tables.values())
        return sorted(con.sql(f"SELECT * FROM {macro}({names}{args})").fetchall(), key=repr)

    want = rows(_tables(t))
    assert want or macro == "ireval_check"
    names = sorted(_cte_names(t) - {"ireval_eval_table", "ireval_run_table", "ireval_qrels_table"})
    assert names or not t.body.startswith("WITH")
    for table, source in _tables(t).items():
        for name in names:
            con.execute(
                f"CREATE OR REPLACE TEMP VIEW {irsql.quote_ident(name)} AS SELECT * FROM {source}"
            )
            try:
                assert rows({**_tables(t), table: name}) == want, name
            finally:
                con.execute(f"DROP VIEW {irsql.quote_ident(name)}")


def test_missing_error_fails_like_the_judge(con: Any) -> None:
    """missing := 'error' fails on a judged query a run lacks, as polars_ireval.judge."""
    run, qrels = generated(0)
    with pytest.raises(ir.MissingQueryError):
        ir.judge(run, qrels, missing="error")
    absent = ir.coverage(run, qrels).filter(~pl.col("in_run")).sort("run_id", "query_id").row(0)
    with pytest.raises(duckdb.InvalidInputException) as e:
        con.sql("SELECT * FROM ireval_judge('t_run', 't_qrels', missing := 'error')").fetchall()
    assert str(e.value) == (
        f"Invalid Input Error: ireval_judge: missing := 'error': run '{absent[0]}' has no "
        f"ranking for judged query '{absent[1]}'; pass missing := 'skip' to leave such queries "
        "out or 'zero' to score them 0"
    )
    whole = con.sql(
        "SELECT * FROM ireval_judge('t_run', 't_qrels', missing := 'error') WHERE query_id <> "
        f"'{absent[1]}'"
    )
    with pytest.raises(duckdb.InvalidInputException):  # filtering the keys changes nothing
        whole.fetchall()
    c = irsql.load(duckdb.connect(), ["ireval_judge"])
    c.execute("CREATE TABLE run AS SELECT 'q' AS query_id, 'd' AS doc_id, 1.0 AS score")
    c.execute("CREATE TABLE qrels AS SELECT 'q' AS query_id, 'd' AS doc_id, 1 AS relevance")
    got = c.sql("SELECT rank FROM ireval_judge('run', 'qrels', missing := 'error')").fetchall()
    assert got == [(1,)]


# --------------------------------------------------------------------------- docs recipe


def _recipe() -> list[str]:
    """The statements of docs/sql.md that read the TREC files (up to ireval_check)."""
    block = re.findall(r"```sql\n(.*?)```", SQL_DOC.read_text(encoding="utf-8"), re.S)[0]
    statements = [s.strip() for s in block.split(";") if s.strip()]
    return [s for s in statements if not re.search(r"ireval_(check|judge)", s)]


QRELS_TEXT = "# judged by\n#assessor 2\n101 0 d1 1\n\n  # indented\n101 0 d2 2.0\n102\t0 d1  -1\n"
RUN_TEXT = "# a run\n101 Q0 d1 1 2.5 tag\n101 Q0 d2 2 1.5 tag\n\n102 Q0 d1 1 0.5 tag\n"


def _read(tmp_path: Path, qrels: str, run: str) -> duckdb.DuckDBPyConnection:
    (tmp_path / "runs").mkdir(exist_ok=True)
    (tmp_path / "qrels.txt").write_text(qrels, encoding="utf-8")
    (tmp_path / "runs" / "a.run").write_text(run, encoding="utf-8")
    c = duckdb.connect()
    for statement in _recipe():
        c.execute(
            statement.replace("'qrels.txt'", O.quote(str(tmp_path / "qrels.txt"))).replace(
                "'runs/*.run'", O.quote(str(tmp_path / "runs" / "*.run"))
            )
        )
    return c


def _data_first(text: str) -> str:
    """``text`` without its leading comment lines, so that its first line is data."""
    return re.sub(r"\A(#[^\n]*\n)+", "", text)


@pytest.mark.parametrize(
    "edit",
    [
        lambda text: text,
        lambda text: "\ufeff" + text,  # a UTF-8 byte-order mark ahead of a comment line
        lambda text: "\ufeff" + _data_first(text),  # ... and ahead of the first query id
    ],
    ids=["plain", "bom-comment", "bom-data"],
)
def test_docs_recipe_reads_like_the_python_readers(
    tmp_path: Path, edit: Callable[[str], str]
) -> None:
    """Comment and blank lines skipped, grades 2.0 read as 2, fields split on runs of
    blanks, a leading byte-order mark dropped: the tables polars_ireval.read_qrels and
    read_run give."""
    c = _read(tmp_path, edit(QRELS_TEXT), edit(RUN_TEXT))
    qrels = pl.from_arrow(c.sql("SELECT * FROM qrels ORDER BY ALL").to_arrow_table())
    want = ir.read_qrels(str(tmp_path / "qrels.txt")).sort(pl.all())
    assert isinstance(qrels, pl.DataFrame)
    assert qrels.rows() == want.select(qrels.columns).rows()
    run = pl.from_arrow(
        c.sql("SELECT query_id, doc_id, score FROM run ORDER BY ALL").to_arrow_table()
    )
    want_run = ir.read_run(str(tmp_path / "runs" / "a.run")).select("query_id", "doc_id", "score")
    assert isinstance(run, pl.DataFrame)
    assert run.rows() == want_run.sort(pl.all()).rows()


@pytest.mark.parametrize(
    "qrels,run,message",
    [
        (
            QRELS_TEXT.replace("d2 2.0", "d2 1.5"),
            RUN_TEXT,
            r"qrels\.txt:6: relevance '1\.5' of document 'd2' is not an integer",
        ),
        (QRELS_TEXT + "103 0 d4\n", RUN_TEXT, r"qrels\.txt:8: expected four fields"),
        (
            QRELS_TEXT,
            RUN_TEXT.replace("1.5 tag", "1.5x tag"),
            r"a\.run:3: score '1\.5x' of document 'd2' is not a number",
        ),
    ],
)
def test_docs_recipe_refuses_bad_lines(tmp_path: Path, qrels: str, run: str, message: str) -> None:
    """A grade 1.5 (which a BIGINT column would round to 2), a short line, a score that is
    not a number: errors naming the file and the line, as the Python readers raise."""
    with pytest.raises(duckdb.InvalidInputException, match=message):
        _read(tmp_path, qrels, run)
    line = int(re.search(r":(\d+):", message).group(1))  # type: ignore[union-attr]
    path = tmp_path / ("qrels.txt" if "qrels" in message else "runs/a.run")
    reader = ir.read_qrels if "qrels" in message else ir.read_run
    with pytest.raises(ir.IrevalError, match=f":{line}:"):
        reader(str(path))


# --------------------------------------------------------------------------- CoverageWarning


def _warnings(*args: Any, **kw: Any) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ir.evaluate(*args, **kw)
    return [str(w.message) for w in caught if issubclass(w.category, CoverageWarning)]


@pytest.mark.parametrize("missing", ["skip", "zero"])
def test_duckdb_engine_warns_like_polars(missing: str) -> None:
    """Queries ranked but not judged, judged but not ranked (under missing='skip'): the
    same CoverageWarning from both engines; none for LazyFrames, none when all match."""
    run, qrels = generated(0)
    polars = _warnings(run, qrels, "P@5", missing=missing)
    duck = _warnings(run, qrels, "P@5", missing=missing, engine="duckdb")
    assert len(polars) == 1 and duck == polars
    assert ("no ranking" in polars[0]) == (missing == "skip")
    assert "no judgment" in polars[0]
    lazy = (run.lazy(), qrels.lazy())
    assert _warnings(*lazy, "P@5", missing=missing) == []
    assert _warnings(*lazy, "P@5", missing=missing, engine="duckdb") == []
    matched = qrels.filter(pl.col("query_id").is_in(run["query_id"].unique().implode()))
    matched_run = run.filter(pl.col("query_id").is_in(matched["query_id"].unique().implode()))
    assert _warnings(matched_run, matched, "P@5", engine="duckdb") == []


def test_duckdb_engine_warning_points_at_the_caller() -> None:
    run, qrels = generated(0)
    with pytest.warns(CoverageWarning) as caught:
        ir.evaluate(run, qrels, "P@5", engine="duckdb")
    assert caught[0].filename == __file__


# --------------------------------------------------------------------------- measure strings


def test_parameter_given_twice_is_refused() -> None:
    for text, name in [("P(rel=1,rel=2)@5", "rel"), ("RBP(p=0.5,p=0.5)", "p")]:
        with pytest.raises(ir.ParameterError, match=f"parameter '{name}' is given twice"):
            ir.parse_measure(text)


@pytest.mark.parametrize("name,param", PARAMS, ids=[f"{n}-{p}" for n, p in PARAMS])
def test_none_only_where_the_declaration_takes_it(name: str, param: str) -> None:
    """``param=None`` is refused, naming the measure, the parameter, the value and the
    type, unless the parameter's declared default is None (no cutoff, no gain map...)."""
    text = _string(name, {**_required(name), param: None})
    if REGISTRY[name].param(param).default is None:
        ir.parse_measure(text)
        return
    with pytest.raises(ir.ParameterError) as e:
        ir.parse_measure(text)
    assert f"{name}: {param}=None is invalid; it must be " in str(e.value)


#: Values of a type each annotation does not take.
WRONG = {
    "int": [1.5, "a", True, (1,)],
    "int | None": [1.5, "a", False],
    "float": ["a", True, {1: 2}],
    "float | None": ["a", True, {1: 2}],
    "str": [1, True, (1,)],
    "str | Measure": [1, True, (1,)],
    "bool": [1, "yes"],
    "Gains": [(1, 2), "a", 1],
    "Utilities": [(1, 2), "a"],
    "Weights": ["a", 1, {1: 2}],
    "Sequence[float]": ["a", 0.5],
    "tuple[float, float, float, float]": ["a", 1.0],
    "RbpTies": [1, True],
}


@pytest.mark.parametrize("name,param", PARAMS, ids=[f"{n}-{p}" for n, p in PARAMS])
def test_wrong_types_are_refused(name: str, param: str) -> None:
    """A value of another type than the declared one is refused, naming the measure, the
    parameter, the value and what it must be (unless the measure's own check takes it:
    utility's num_docs, an int, takes any non-negative number)."""
    annotation = REGISTRY[name].param(param).annotation
    assert annotation in WRONG, f"add wrong values for {annotation}"
    check = REGISTRY[name].checks.get(param)
    for value in WRONG[annotation]:
        if check is not None and check(value):
            continue
        with pytest.raises(ir.ParameterError) as e:
            ir.parse_measure(_string(name, {**_required(name), param: value}))
        assert f"{name}: {param}={value!r} is invalid; it must be" in str(e.value), str(e.value)


def test_cutoffs_are_read_exactly() -> None:
    assert ir.parse_measure("P@9223372036854775807").params["k"] == 2**63 - 1
    assert ir.parse_measure("P@1e3").params["k"] == 1000
    assert ir.parse_measure("IPrec@0.25").params["recall"] == 0.25
