"""Each measure is declared once, and the declaration carries every piece an engine needs.

A new measure is a function in a family module of ``polars_ireval/measures/`` (its Polars
expression, declared with ``@measure(name, sql="ireval_x", ...)``), exported from
``polars_ireval/measures/__init__.py``, a macro in a family file of ``sql/`` (then
``python -m polars_ireval.sql`` and ``python -m polars_ireval._docs`` regenerate
``sql/ireval.sql`` and ``docs/measures.md``) and a row of ``tests/test_sql.py``'s
``MEASURES``. Each test below names the piece whose absence it catches.
"""

from __future__ import annotations

import inspect

import pytest

import polars_ireval as ir
from polars_ireval import measures as M
from polars_ireval.namespace import DataFrameIreval, LazyFrameIreval
from polars_ireval.registry import REGISTRY, SQL_NAMES, MeasureDef, SqlCall, SqlMean
from polars_ireval.sql import compile as sqlc
from polars_ireval.sql import library

DEFS = list(REGISTRY.values())
MACROS = {t.name: t for t in library().values() if t.kind == "macro"}


def _macro(d: MeasureDef) -> str | None:
    """The macro a measure declared with ``sql="ireval_x"`` computes it with (None for a
    measure declared with a builder choosing among several)."""
    return getattr(d.sql, "macro", None)


@pytest.mark.parametrize("d", DEFS, ids=[d.name for d in DEFS])
def test_every_measure_declares_its_sql(d: MeasureDef) -> None:
    """Forgotten ``sql=`` in the declaration, or a macro name with no macro in ``sql/``."""
    assert d.sql is not None, f"{d.name}: declare sql='ireval_...' (or a builder) in @measure"
    macro = _macro(d)
    if macro is not None:
        assert macro in MACROS, f"{d.name}: no macro {macro} in sql/*.sql"


BY_MACRO = [d for d in DEFS if _macro(d) is not None]


@pytest.mark.parametrize("d", BY_MACRO, ids=[d.name for d in BY_MACRO])
def test_macro_takes_the_measures_parameters(d: MeasureDef) -> None:
    """A macro whose parameters are not the measure's (a parameter forgotten on either side,
    or misspelled): the macro must take exactly the declared parameters, by their Python
    names (up to SQL_NAMES). Measures declared with a builder are checked by
    test_builders_call_existing_macros."""
    macro = _macro(d)
    assert macro is not None
    declared = {SQL_NAMES.get(p.name, p.name) for p in d.params}
    taken = {p.name for p in MACROS[macro].scalars}
    assert taken == declared, f"{d.name}: {macro} takes {sorted(taken)}, not {sorted(declared)}"


@pytest.mark.parametrize("d", DEFS, ids=[d.name for d in DEFS])
def test_residual_declared_with_its_sql(d: MeasureDef) -> None:
    """A Polars residual without its SQL (``sql_residual=``), or the reverse."""
    assert (d.residual is None) == (d.sql_residual is None), d.name


@pytest.mark.parametrize("d", DEFS, ids=[d.name for d in DEFS])
def test_builders_call_existing_macros(d: MeasureDef) -> None:
    """Every spec a declaration builds, on the default parameters, calls macros of
    ``sql/`` with parameters they take (``sqlc.spec`` raises TypeError otherwise);
    tests/test_sql.py's MEASURES then run every branch on the engines."""
    text = d.name if all(not p.required for p in d.params) else _example(d)
    m = ir.parse_measure(text)
    s = sqlc.spec(m)
    calls = s.calls if isinstance(s, SqlMean) else (s,)
    for c in calls:
        assert isinstance(c, SqlCall) and c.macro in MACROS
    if m.has_residual:
        assert sqlc.residual_spec(m) is not None


def _example(d: MeasureDef) -> str:
    required = {
        "k": 5,
        "recall": 0.5,
        "mult": 1.0,
        "measure": "RBP",
        "weights": (1, -1, 0, 0),
        "num_docs": 100,
    }
    given = [f"{p.name}={required[p.name]!r}" for p in d.params if p.required]
    return f"{d.name}({','.join(given)})"


def test_every_measure_has_a_free_function() -> None:
    """A measure declared but not exported from ``polars_ireval/measures/__init__.py``."""
    exported = {getattr(M, name).definition.name for name in M.__all__}
    assert exported == set(REGISTRY)


@pytest.mark.parametrize("cls", [DataFrameIreval, LazyFrameIreval])
def test_namespace_has_every_measure(cls: type) -> None:
    """``df.ireval.<measure>(...)`` exists for every measure with its free function's
    parameters (the methods are generated from the registry)."""
    for name in M.__all__:
        free = getattr(M, name)
        method = getattr(cls, name)
        params = list(inspect.signature(method).parameters)
        assert params == ["self", *inspect.signature(free).parameters], name


def test_nested_measure_parsed_once_when_bound() -> None:
    """ED's measure string is parsed when ED is bound: the declaration, the SQL and the
    label all read the same Measure."""
    m = ir.parse_measure("ED(measure='INST(T=2)@10')")
    inner = m.params["measure"]
    assert isinstance(inner, ir.Measure) and inner.canonical == "INST(T=2)@10"
    assert m.canonical == "ED(measure='INST(T=2)@10')"
    s = sqlc.spec(m)
    assert isinstance(s, SqlCall) and (s.macro, s.column) == ("ireval_inst", "depth")
    with pytest.raises(ir.ParameterError, match="ED: measure='AP' is invalid"):
        ir.parse_measure("ED(measure='AP')")
    with pytest.raises(ir.ParameterError, match="ED: measure='nope' is invalid"):
        ir.parse_measure("ED(measure='nope')")
