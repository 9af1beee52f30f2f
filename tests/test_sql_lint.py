"""The portable subset: the family files of ``sql/`` use only SQL that DuckDB and Spark (and,
through sqlglot, Trino, BigQuery, Snowflake) read with the same meaning.

``sql/ireval.sql`` is generated DuckDB text and is not linted; the templates it comes from are.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import polars_ireval.sql as irsql
from polars_ireval.sql import options as O
from polars_ireval.sql import templates as T

SQL = Path(__file__).resolve().parents[1] / "sql"

#: What breaks or silently changes meaning across engines, and what to write instead.
FORBIDDEN = {
    "one-argument log (base 10 in DuckDB, e in Spark): use log2 or ln": r"\blog\s*\(",
    "decimal literal (DECIMAL on Spark): use CAST(1 AS DOUBLE) / CAST(10 AS DOUBLE)": (
        r"(?<![\w.])\d+\.\d*|(?<![\w.])\.\d+"
    ),
    "integer literal in a division (integer division on Trino): CAST it AS DOUBLE": (
        r"/\s*\d|\d\s*/"
    ),
    "list function or unnest": r"\b(list_\w+|array_\w+|unnest|list|array_agg|string_agg)\s*\(",
    "lambda": r"->|\blambda\b",
    "list literal or index": r"\[",
    "MATERIALIZED CTE": r"\bmaterialized\b",
    "collation (engine-specific): use {doc_desc} / {doc_asc} / {hit_doc}": r"\bcollate\b",
    "DuckDB-only syntax": (
        r"::|\bquery_table\b|\bcreate\b|\bmacro\b|\bby\s+name\b|\bgroup\s+by\s+all\b"
        r"|\bqualify\b|\bexclude\b|\bfilter\s*\(\s*where\b"
    ),
    "DuckDB-only error(), typeof() or TRY_CAST: the option checks are generated for DuckDB "
    "alone (declare a kind or a rule in the header, or a raise block)": (
        r"\b(error|typeof)\s*\(|\btry_cast\b"
    ),
    "VARCHAR (needs a length on Spark): use STRING": r"\bvarchar\b",
    "named WINDOW clause (not in Snowflake): spell the window out": r"\bwindow\s+\w+\s+as\b",
    "IF()/IFNULL()/NVL() (not portable): use CASE or COALESCE": r"\b(if|ifnull|nvl|iif)\s*\(",
}


def _code(text: str) -> str:
    """The text without comments and with string literals emptied."""
    text = re.sub(r"--[^\n]*", "", text)
    return re.sub(r"'(?:[^']|'')*'", "''", text)


def violations(text: str) -> list[str]:
    code = _code(text)
    return [why for why, rx in FORBIDDEN.items() if re.search(rx, code, re.I)]


@pytest.mark.parametrize("name", irsql.FILES)
def test_family_file_is_portable(name: str) -> None:
    found = violations((SQL / name).read_text(encoding="utf-8"))
    assert not found, f"{name}: {found}"


@pytest.mark.parametrize(
    "snippet",
    [
        "SELECT log(x) FROM t",
        "SELECT x * 0.9 FROM t",
        "SELECT .5 FROM t",
        "SELECT x / 2 FROM t",
        "SELECT list_sum(x) FROM t",
        "SELECT list(x ORDER BY y) FROM t",
        "SELECT x -> x + 1 FROM t",
        "SELECT x[1] FROM t",
        "WITH a AS MATERIALIZED (SELECT 1) SELECT * FROM a",
        'SELECT * FROM t ORDER BY doc_id COLLATE "C"',
        "SELECT x::DOUBLE FROM t",
        "SELECT * FROM query_table('t')",
        "SELECT * FROM t GROUP BY ALL",
        "SELECT CAST(x AS VARCHAR) FROM t",
        "SELECT count(*) FILTER (WHERE x) FROM t",
        "SELECT sum(x) OVER w FROM t WINDOW w AS (ORDER BY y)",
        "SELECT IF(x, 1, 0) FROM t",
        "SELECT error('bad') FROM t",
        "SELECT typeof(x) FROM t",
        "SELECT TRY_CAST(x AS BIGINT) FROM t",
    ],
)
def test_lint_catches(snippet: str) -> None:
    assert violations(snippet), snippet


def test_lint_ignores_comments_and_strings() -> None:
    assert not violations("-- log(x) 0.5 x[1]\nSELECT '[^,]*' || ',0.5' FROM t")


def test_placeholders_are_known() -> None:
    """Every {placeholder} of a template is one of its parameters, a table or a sort key,
    and every {@fragment} exists."""
    lib = irsql.library(SQL)
    for t in lib.values():
        names = {p.name for p in t.params} | {
            "eval_table",
            "doc_desc",
            "doc_asc",
            "hit_doc",
            "score_value",
            "judged_by_group",
        }
        for body in (t.body, *(r.body for r in t.raises)):
            for include, name, _ in re.findall(r"\{(@?)(\w+)(?:\(([^{}]*)\))?\}", body):
                if include:
                    assert name in lib and lib[name].kind == "fragment", (t.name, name)
                elif t.kind == "macro":
                    assert name in names, (t.name, name)


def test_macro_options_are_declared() -> None:
    """Every option of every macro has a kind (what it accepts, checked on every engine),
    and its default is of that kind; raise blocks name options of their macro."""
    lib = irsql.library(SQL)
    for t in lib.values():
        if t.kind != "macro":
            continue
        for p in t.scalars:
            assert p.kind in O.KINDS, (t.name, p.name)
        defaults = {p.name: T.default_value(p.default) for p in t.scalars if p.default}
        for p in t.scalars:
            if p.name in defaults:
                value = defaults[p.name]
                assert (value is None and p.nullable) or O.KINDS[p.kind].accepts(value), (
                    t.name,
                    p.name,
                )
        for r in t.raises:
            assert {p.name for p in r.params} <= {p.name for p in t.scalars}, t.name


def test_every_macro_renders_for_spark() -> None:
    """Every macro renders to text without placeholders and parses as Spark SQL."""
    import sqlglot

    lib = irsql.library(SQL)
    tables = {"eval_table": "ev", "run_table": "run", "qrels_table": "qrels", "runs_table": "runs"}
    required = {"k": 10, "recall": 0.5, "mult": 0.4, "num_docs": 1000}
    for t in lib.values():
        if t.kind != "macro":
            continue
        args = {p.name: required[p.name] for p in t.scalars if p.default is None}
        text = T.render(t, lib, args, tables, checked=True)  # (its raise blocks aside)
        assert "{" not in text, t.name
        assert not re.search(r"\b(error|typeof)\s*\(|\btry_cast\b", _code(text), re.I), t.name
        sqlglot.parse_one(text, read="spark")


SNAPSHOTS = Path(__file__).resolve().parent / "sql_snapshots"


@pytest.mark.parametrize("dialect", ["trino", "bigquery", "snowflake"])
def test_dialect_snapshot(dialect: str) -> None:
    """Golden SQL for engines not run here: unchanged unless regenerated on purpose, and
    parsed back by sqlglot in the target dialect."""
    import sqlglot

    from polars_ireval.sql.dialects import SNAPSHOT_MEASURES, script

    want = (SNAPSHOTS / f"{dialect}.sql").read_text(encoding="utf-8")
    got = script(SNAPSHOT_MEASURES, dialect)
    assert got == want, (
        f"SQL for {dialect} changed: review it, then regenerate with "
        "python -m polars_ireval.sql.dialects tests/sql_snapshots"
    )
    statements = [s for s in sqlglot.parse(want, read=dialect) if s is not None]
    assert len(statements) == 1 + len(SNAPSHOT_MEASURES)
    # byte-wise tie-breaking survives translation
    key = {"trino": "VARBINARY", "bigquery": "BYTES", "snowflake": "TO_BINARY"}[dialect]
    assert key in want


def test_dialect_script_condensed_measures_and_absent_queries() -> None:
    """A measure with judged_only=True reads a second, condensed evaluation table; under
    missing='zero' utility reads the run's rankings (ireval_rankings) to score 0 for the
    queries a run lacks. Every statement parses back in the dialect."""
    import sqlglot

    from polars_ireval.sql.dialects import script

    measures = ["P@5", "P(judged_only=True)@5", "utility"]
    text = script(measures, "trino", missing="zero")
    statements = [s for s in sqlglot.parse(text, read="trino") if s is not None]
    assert len(statements) == 2 + len(measures)
    assert 'CREATE TABLE "evaluation" AS' in text
    assert 'CREATE TABLE "evaluation_judged_only" AS' in text
    utility = text.split("-- measure: utility")[1]
    assert "CASE WHEN p.query_id IS NULL THEN" in utility
    only = script(["P(judged_only=True)@5"], "trino")
    assert only.count("CREATE TABLE") == 1 and '"evaluation"' in only


def test_dialect_rejects_unknown() -> None:
    from polars_ireval.sql.dialects import script

    with pytest.raises(ValueError, match="dialect"):
        script(["AP"], "oracle")
