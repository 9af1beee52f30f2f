"""The portable SQL templates of ``sql/`` and their rendering for each engine.

Each family file of ``sql/`` holds blocks introduced by a header comment::

    -- macro: ireval_p(k, rel := 1)
    -- P@k: ... (documentation lines)
    SELECT run_id, query_id, ... FROM {@stats}

``-- fragment: name(params)`` blocks are pieces other blocks include with ``{@name}`` or
``{@name(param := SQL)}``. In a body, ``{name}`` is a parameter (or a table: ``eval_table``
for measures, ``run_table``/``qrels_table`` for the judge) and ``{doc_desc}``/``{doc_asc}``
(``{hit_doc}``) is the document id of the row ``r`` (``h``) as a byte-wise sort key.
Bodies are written in the portable subset that ``tests/test_sql_lint.py`` enforces; only
the placeholders differ per engine:

* DuckDB (:func:`duckdb_macros`): each macro becomes ``CREATE OR REPLACE MACRO name(eval_table,
  params) AS TABLE body`` with tables read through ``query_table`` and parameters left as
  macro parameters;
* Spark and other engines (:func:`render`): parameters become literals and tables the
  names given, giving one standalone ``SELECT``.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from polars_ireval.errors import ParameterError

Engine = Literal["duckdb", "spark", "snowflake"]

_HEADER = re.compile(r"^-- (macro|fragment): (\w+)\((.*)\)[ \t]*$", re.M)
_PLACEHOLDER = re.compile(r"\{(@?)(\w+)(?:\(([^{}]*)\))?\}")
_TABLES = ("eval_table", "run_table", "qrels_table")

#: Columns of a run table that the judge reads when present (NULL when absent).
OPTIONAL_RUN_COLUMNS = {"run_id": "STRING", "input_rank": "DOUBLE", "input_order": "BIGINT"}

#: The document id as a byte-wise sort key, per engine (trec_eval compares ids with strcmp).
DOC_KEY = {
    "duckdb": 'r.doc_id COLLATE "C"',
    "spark": "CAST(r.doc_id AS BINARY)",
    # Snowflake reads CAST(text AS BINARY) as hex: encode the UTF-8 bytes instead
    "snowflake": "TO_BINARY(r.doc_id, 'UTF-8')",
}


def doc_keys(engine: Engine) -> dict[str, str]:
    """The byte-wise document keys of the templates: ``{doc_desc}``/``{doc_asc}`` (the run's
    row ``r``) and ``{hit_doc}`` (the judged row ``h`` it is compared with)."""
    key = DOC_KEY[engine]
    return {"doc_desc": key, "doc_asc": key, "hit_doc": key.replace("r.doc_id", "h.doc_id")}


@dataclass(frozen=True)
class Param:
    """A template parameter and its default (SQL text; None when required)."""

    name: str
    default: str | None


@dataclass(frozen=True)
class Template:
    """One ``-- macro:`` or ``-- fragment:`` block of a family file."""

    kind: Literal["macro", "fragment"]
    name: str
    params: tuple[Param, ...]
    doc: str
    body: str
    file: str

    @property
    def tables(self) -> tuple[str, ...]:
        """The table parameters: ``run_table, qrels_table`` or ``eval_table``."""
        given = tuple(p.name for p in self.params if p.name in _TABLES)
        return given or ("eval_table",)

    @property
    def scalars(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.name not in _TABLES)


def _params(text: str) -> tuple[Param, ...]:
    out = []
    for item in (t.strip() for t in text.split(",")):
        if not item:
            continue
        name, sep, default = (s.strip() for s in item.partition(":="))
        out.append(Param(name, default if sep else None))
    return tuple(out)


def parse(text: str, file: str = "<text>") -> list[Template]:
    """The blocks of one family file, in order."""
    heads = list(_HEADER.finditer(text))
    out = []
    for i, h in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        lines = text[h.end() : end].strip("\n").splitlines()
        doc = []
        while lines and lines[0].startswith("--"):
            doc.append(lines.pop(0)[2:].strip())
        body = "\n".join(lines).rstrip().rstrip(";").rstrip()
        kind: Literal["macro", "fragment"] = "macro" if h.group(1) == "macro" else "fragment"
        out.append(Template(kind, h.group(2), _params(h.group(3)), " ".join(doc), body, file))
    return out


@functools.lru_cache(maxsize=4)
def _load(directory: str, names: tuple[str, ...]) -> dict[str, Template]:
    found: dict[str, Template] = {}
    for name in names:
        for t in parse((Path(directory) / name).read_text(encoding="utf-8"), name):
            if t.name in found:
                raise RuntimeError(f"{name}: {t.name} is defined twice")
            found[t.name] = t
    return found


def templates(directory: Path, names: tuple[str, ...]) -> dict[str, Template]:
    """Every block of the family files ``names`` in ``directory``, by name."""
    return _load(str(directory), names)


def expand(body: str, env: Mapping[str, str], lib: Mapping[str, Template]) -> str:
    """Replace placeholders: ``{name}`` from ``env``, ``{@fragment(...)}`` recursively."""

    def sub(m: re.Match[str]) -> str:
        include, name, args = m.group(1), m.group(2), m.group(3)
        if not include:
            if name not in env:
                raise KeyError(f"placeholder {{{name}}} has no value")
            return env[name]
        frag = lib[name]
        inner = {k: v for k, v in env.items() if k in _TABLES or k.startswith("doc_")}
        for p in frag.params:
            if p.name in env:
                inner[p.name] = env[p.name]
            elif p.default is not None:
                inner[p.name] = p.default
        for given in _params(args or ""):
            inner[given.name] = expand(given.default or "NULL", env, lib)
        return expand(frag.body, inner, lib)

    return _PLACEHOLDER.sub(sub, body)


# --------------------------------------------------------------------------- literals


def literal(v: Any) -> str:
    """A Python value as an SQL literal that every engine reads the same way."""
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ParameterError(f"{v!r} is not a finite number")
        return f"CAST({v!r} AS DOUBLE)"
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    raise ParameterError(f"{v!r} cannot be an SQL parameter")


def gain_map(gains: Mapping[int, float] | None) -> str:
    """A gain map as the templates' text form ``,grade=gain,...,`` ('' for none)."""
    if not gains:
        return ""
    return "," + ",".join(f"{int(k)}={float(v)!r}" for k, v in gains.items()) + ","


def weight_map(weights: Sequence[float] | None) -> str:
    """A weight vector (the weight of ranks 1, 2, ...) as the templates' text form
    ``,1=w1,2=w2,...,`` ('' for none)."""
    if not weights:
        return ""
    return gain_map({i: float(w) for i, w in enumerate(weights, start=1)})


# --------------------------------------------------------------------------- DuckDB


def _duckdb_run_table() -> str:
    proto = ", ".join(f"CAST(NULL AS {t}) AS {c}" for c, t in OPTIONAL_RUN_COLUMNS.items())
    return (
        f"(SELECT * FROM (SELECT {proto} WHERE 1 = 0) AS proto "
        "UNION ALL BY NAME SELECT * FROM query_table(run_table::VARCHAR))"
    )


def duckdb_macro(t: Template, lib: Mapping[str, Template]) -> str:
    """``CREATE OR REPLACE MACRO`` text for the macro template ``t``."""
    env = {p.name: p.name for p in t.scalars}
    env.update(doc_keys("duckdb"))
    env["eval_table"] = "query_table(eval_table::VARCHAR)"
    env["run_table"] = _duckdb_run_table()
    env["qrels_table"] = "query_table(qrels_table::VARCHAR)"
    args = [*t.tables] + [
        p.name if p.default is None else f"{p.name} := {p.default}" for p in t.scalars
    ]
    doc = "".join(f"-- {line}\n" for line in _wrap(t.doc)) if t.doc else ""
    return (
        f"{doc}CREATE OR REPLACE MACRO {t.name}({', '.join(args)}) AS TABLE\n"
        f"{expand(t.body, env, lib)};\n"
    )


def _wrap(text: str, width: int = 94) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


# --------------------------------------------------------------------------- other engines


def render(
    t: Template,
    lib: Mapping[str, Template],
    args: Mapping[str, Any],
    tables: Mapping[str, str],
    engine: Engine = "spark",
) -> str:
    """The body of macro ``t`` as one standalone query: literal parameters, named tables.

    ``tables`` maps ``eval_table`` (or ``run_table``/``qrels_table``) to SQL table
    expressions (quoted names or parenthesised subqueries).
    """
    env: dict[str, str] = {}
    for p in t.scalars:
        if p.name in args:
            env[p.name] = literal(args[p.name])
        elif p.default is not None:
            env[p.name] = float_default(p.default)
        else:
            raise ParameterError(f"{t.name}: parameter {p.name!r} is required")
    unknown = set(args) - {p.name for p in t.scalars}
    if unknown:
        raise ParameterError(f"{t.name}: unknown parameter(s) {sorted(unknown)}")
    env.update(doc_keys(engine))
    env.update(tables)
    return expand(t.body, env, lib)


def float_default(text: str) -> str:
    """A decimal default such as ``0.8`` rendered as a DOUBLE (not DECIMAL) literal."""
    return f"CAST({text} AS DOUBLE)" if re.fullmatch(r"-?\d+\.\d*", text) else text
