"""The portable SQL templates of ``sql/`` and their rendering for each engine.

Each family file of ``sql/`` holds blocks introduced by a header comment::

    -- macro: ireval_p(k: positive_int, rel: integer := 1)
    -- P@k: ... (documentation lines)
    SELECT run_id, query_id, ... FROM {@stats}

A macro's options are ``name: kind [| NULL] [:= default]`` (a header may go on over
``--`` lines until its parenthesis closes), then ``where rule, ...``: the kinds and rules of
:mod:`polars_ireval.sql.options`, which every rendering checks. ``-- fragment: name(params)``
blocks are pieces other blocks include with ``{@name}`` or ``{@name(param := SQL)}``.
``-- raise: macro(option := 'value')`` blocks are queries over the macro's CTEs (they
continue its WITH clause) listing, as a column ``problem``, what makes the macro fail when
called with that value (``ireval_judge(missing := 'error')``: the judged queries a run
lacks); only DuckDB raises them. In a body, ``{name}`` is a parameter (or a table: ``eval_table``
for measures, ``run_table``/``qrels_table`` for the judge) and ``{doc_desc}``/``{doc_asc}``
(``{hit_doc}``) is the document id of the row ``r`` (``h``) as a byte-wise sort key
(``{judged_by_group}``: the judge's merge, :data:`JUDGED_BY_GROUP`).
Bodies are written in the portable subset that ``tests/test_sql_lint.py`` enforces; only
the placeholders differ per engine:

* DuckDB (:func:`duckdb_macro`): each macro becomes ``CREATE OR REPLACE MACRO name(eval_table,
  params) AS TABLE body`` with tables read through ``query_table`` (in CTEs ahead of the
  body's own, so that no CTE of the body takes a table's name) and parameters left as macro
  parameters, checked when the call is bound (an ``error()`` naming the macro, the option,
  the value and what it must be);
* Spark and other engines (:func:`render`): parameters become literals, checked first
  (:class:`ParameterError`), and tables the names given, giving one standalone ``SELECT``.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, cast

import numpy as np

from polars_ireval.errors import ParameterError
from polars_ireval.sql import options as O

Engine = Literal["duckdb", "spark", "snowflake"]
Kind = Literal["macro", "fragment", "raise"]

_START = re.compile(r"^-- (macro|fragment|raise): (\w+)\(", re.M)
_WHERE = re.compile(r"[ \t]*(?:where[ \t]+(\w+(?:[ \t]*,[ \t]*\w+)*))?[ \t]*")
_WHERE_LINE = re.compile(r"--[ \t]+(where[ \t][^\n]*)")
_PARAM = re.compile(r"(\w+)(?:[ \t]*:[ \t]*(\w+)[ \t]*(\|[ \t]*NULL)?)?")
_PLACEHOLDER = re.compile(r"\{(@?)(\w+)(?:\(([^{}]*)\))?\}")
_TABLES = ("eval_table", "run_table", "qrels_table", "runs_table")

#: Columns of a run table that the judge reads when present (NULL when absent).
OPTIONAL_RUN_COLUMNS = {"run_id": "STRING", "input_rank": "DOUBLE", "input_order": "BIGINT"}
#: Columns of the fusion macros' runs table read when present (NULL when absent): a run's
#: weight (``sql/fusion.sql``).
OPTIONAL_RUNS_COLUMNS = {"weight": "DOUBLE"}

#: The columns a run and a qrels table must have (the Python check's, ``require``): a DuckDB
#: macro reading a table that lacks one fails naming it and the fix
#: (:func:`_lacking_columns`), not with a binder error.
REQUIRED_COLUMNS = {
    "run_table": ("run", ("query_id", "doc_id", "score")),
    "qrels_table": ("qrels", ("query_id", "doc_id", "relevance")),
    "runs_table": ("runs", ("run_id", "query_id", "doc_id", "score")),
}
#: The optional columns of each table with some (NULL in DuckDB's read when absent).
OPTIONAL_COLUMNS = {"run_table": OPTIONAL_RUN_COLUMNS, "runs_table": OPTIONAL_RUNS_COLUMNS}

#: The document id as a byte-wise sort key, per engine (trec_eval compares ids with strcmp).
DOC_KEY = {
    "duckdb": 'r.doc_id COLLATE "C"',
    "spark": "CAST(r.doc_id AS BINARY)",
    # Snowflake reads CAST(text AS BINARY) as hex: encode the UTF-8 bytes instead
    "snowflake": "TO_BINARY(r.doc_id, 'UTF-8')",
}


#: The run's score as a number: in DuckDB, a text score column fails (as the Python readers
#: refuse one) instead of being cast; ``typeof`` is folded when the query is bound, so a
#: numeric column costs nothing. Other engines cast (their Python path checks the type).
SCORE_VALUE = {
    "duckdb": "CASE WHEN typeof(score) IN ('VARCHAR', 'BLOB') THEN CAST(error("
    "'the run''s score column is text; scores must be numbers: cast it, e.g. "
    "CAST(score AS DOUBLE)') AS DOUBLE) ELSE CAST(score AS DOUBLE) END",
    "spark": "CAST(score AS DOUBLE)",
    "snowflake": "CAST(score AS DOUBLE)",
}


#: How the judge merges the retrieved judged documents with the judged rows when it leaves
#: the unjudged ones out (``unjudged := FALSE``), ``{judged_by_group}``: an outer join on
#: run, query and document (``FALSE``), or a union grouped on them (``TRUE``). Spark keeps
#: the rows partitioned by ranking from the ranking's window through the grouping (no
#: shuffle), where it sorts both sides of the join: the judge of 5M rows (the benchmarks'
#: campaign) 11 -> 7.5 s warm. DuckDB's hash join is the faster (2.0 s against 2.3 s for
#: the whole campaign evaluation). Trino and BigQuery take Spark's rendering
#: (:mod:`polars_ireval.sql.dialects`), so its merge; Snowflake the outer join.
JUDGED_BY_GROUP = {"duckdb": "FALSE", "spark": "TRUE", "snowflake": "FALSE"}

SCORE_KEY = ("score_value",)


def doc_keys(engine: Engine) -> dict[str, str]:
    """The byte-wise document keys of the templates: ``{doc_desc}``/``{doc_asc}`` (the run's
    row ``r``) and ``{hit_doc}`` (the judged row ``h`` it is compared with); the run's
    score as a number, ``{score_value}`` (see :data:`SCORE_VALUE`); and the judge's way of
    merging the judged rows, ``{judged_by_group}`` (see :data:`JUDGED_BY_GROUP`)."""
    key = DOC_KEY[engine]
    return {
        "doc_desc": key,
        "doc_asc": key,
        "hit_doc": key.replace("r.doc_id", "h.doc_id"),
        "score_value": SCORE_VALUE[engine],
        "judged_by_group": JUDGED_BY_GROUP[engine],
    }


@dataclass(frozen=True)
class Param:
    """A template parameter and its default (SQL text; None when required); a macro's
    options also have a kind (:data:`polars_ireval.sql.options.KINDS`) and say whether they
    take NULL."""

    name: str
    default: str | None
    kind: str | None = None
    nullable: bool = False


@dataclass(frozen=True)
class Template:
    """One ``-- macro:``, ``-- fragment:`` or ``-- raise:`` block of a family file; a
    macro's ``rules`` (:data:`polars_ireval.sql.options.RULES`) and ``raises`` blocks."""

    kind: Kind
    name: str
    params: tuple[Param, ...]
    doc: str
    body: str
    file: str
    rules: tuple[str, ...] = ()
    raises: tuple[Template, ...] = ()

    @property
    def tables(self) -> tuple[str, ...]:
        """The table parameters: ``run_table, qrels_table``, ``runs_table`` (fusion) or
        ``eval_table``."""
        given = tuple(p.name for p in self.params if p.name in _TABLES)
        return given or ("eval_table",)

    @property
    def scalars(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.name not in _TABLES)


def _params(text: str, where: str = "<text>") -> tuple[Param, ...]:
    out = []
    for item in (t.strip() for t in text.split(",")):
        if not item:
            continue
        head, sep, default = (s.strip() for s in item.partition(":="))
        m = _PARAM.fullmatch(head)
        if m is None:
            raise ValueError(f"{where}: cannot read the parameter {item!r}")
        if m.group(2) is not None and m.group(2) not in O.KINDS:
            raise ValueError(f"{where}: {m.group(1)} has no kind {m.group(2)!r}")
        out.append(Param(m.group(1), default if sep else None, m.group(2), bool(m.group(3))))
    return tuple(out)


def _header(text: str, start: int) -> tuple[str, int]:
    """The text from ``start`` (just past a header's ``(``) to its closing ``)``, the
    ``--`` lines it goes on over joined by spaces, and the offset past the ``)``."""
    out, depth, quote, i = [], 1, False, start
    while i < len(text):
        ch = text[i]
        if ch == "\n":  # the header goes on over the next comment line
            rest = text[i + 1 :]
            if not rest.startswith("--"):
                break
            out.append(" ")
            i += 3 + len(rest[2:]) - len(rest[2:].lstrip(" \t"))
            continue
        if ch == "'":
            quote = not quote
        elif not quote and ch == "(":
            depth += 1
        elif not quote and ch == ")":
            depth -= 1
            if depth == 0:
                return "".join(out), i + 1
        out.append(ch)
        i += 1
    raise ValueError(f"unclosed header: {text[start : start + 60]!r}")


def parse(text: str, file: str = "<text>") -> list[Template]:
    """The blocks of one family file, in order."""
    heads = list(_START.finditer(text))
    out = []
    for i, h in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        params, after = _header(text, h.end())
        line_end = text.find("\n", after)
        line_end = end if line_end < 0 or line_end > end else line_end
        rest = text[after:line_end]
        next_line = _WHERE_LINE.match(text, line_end + 1) if not rest.strip() else None
        if next_line is not None:  # ``where`` on a line of its own
            rest, line_end = next_line.group(1), next_line.end()
        where = _WHERE.fullmatch(rest)
        if where is None:
            raise ValueError(f"{file}: {h.group(2)}: unexpected {text[after:line_end]!r}")
        rules = tuple(r.strip() for r in (where.group(1) or "").split(",") if r.strip())
        unknown = [r for r in rules if r not in O.RULES]
        if unknown:
            raise ValueError(f"{file}: {h.group(2)}: no rule named {', '.join(unknown)}")
        lines = text[line_end:end].strip("\n").splitlines()
        doc = []
        while lines and lines[0].startswith("--"):
            doc.append(lines.pop(0)[2:].strip())
        body = "\n".join(lines).rstrip().rstrip(";").rstrip()
        kind = cast(Kind, h.group(1))
        where_ = f"{file}: {h.group(2)}"
        out.append(
            Template(kind, h.group(2), _params(params, where_), " ".join(doc), body, file, rules)
        )
    return out


@functools.lru_cache(maxsize=4)
def _load(directory: str, names: tuple[str, ...]) -> dict[str, Template]:
    found: dict[str, Template] = {}
    raises: list[Template] = []
    for name in names:
        for t in parse((Path(directory) / name).read_text(encoding="utf-8"), name):
            if t.kind == "raise":
                raises.append(t)
            elif t.name in found:
                raise RuntimeError(f"{name}: {t.name} is defined twice")
            else:
                found[t.name] = t
    for r in raises:  # a raise block belongs to its macro
        macro = found.get(r.name)
        if macro is None or macro.kind != "macro":
            raise RuntimeError(f"{r.file}: raise block of {r.name}, which is no macro")
        found[r.name] = replace(macro, raises=(*macro.raises, r))
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
        inner = {
            k: v for k, v in env.items() if k in _TABLES or k.startswith("doc_") or k in SCORE_KEY
        }
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
    if isinstance(v, (int, np.integer)):  # numpy's too, as the option checks take them
        return str(int(v))
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


#: The CTEs through which a DuckDB macro reads its tables, ahead of the body's own CTEs:
#: ``query_table('hits')`` inside a body with a CTE ``hits`` would read the CTE.
_INPUTS = {name: f"ireval_{name}" for name in _TABLES}


def _lacking_columns(macro: str, table: str) -> str:
    """A ``WHERE`` condition over a run or qrels table read through a prototype row holding
    its required columns as untyped NULLs (:data:`REQUIRED_COLUMNS`): it raises, naming the
    columns the table lacks and those it has, as :func:`polars_ireval.io.validation.require`
    does. ``typeof`` is folded when the call is bound: a table with its columns pays
    nothing. A column of type NULL counts as absent (it holds no value)."""
    kind, cols = REQUIRED_COLUMNS[table]
    absent = {c: f"typeof({c}) IN ('NULL', '\"NULL\"')" for c in cols}
    names = ", ".join(f"CASE WHEN {test} THEN '{c}' END" for c, test in absent.items())
    wanted = ", ".join(f"''{c}''" for c in cols)
    message = (
        f"'{macro}: the {kind} table ''' || {table}::VARCHAR || ''' lacks column(s) [''' || "
        f"concat_ws(''', ''', {names}) || ''']; it has ' || "
        "regexp_replace(ireval_columns, '^STRUCT\\((.*)\\)$', '\\1') || "
        f"'. Rename them to [{wanted}], e.g. in a view: SELECT ..., <column> AS ' || "
        f"coalesce({names})"
    )
    return f"CASE WHEN {' OR '.join(absent.values())} THEN error({message}) ELSE TRUE END"


def _duckdb_input(table: str, problem: str | None, macro: str = "") -> str:
    """The input CTE of ``table``. The evaluation table is read in place (``NOT
    MATERIALIZED``: scans with the filters of the body pushed into them); the run and qrels
    as DuckDB chooses, which copies the run once for the judge's several reads of it, as it
    did when the body's CTEs read them.

    With options to check, the table's name goes through their problem: DuckDB evaluates
    ``query_table``'s argument when it binds the call, so ``error(problem)`` raises then
    (NULL, the name, when the options are sound), before anything runs and whatever the
    query around the call: no cost per row, and no filter of the caller can skip it.

    A run or qrels table is read through a prototype of its columns (a ``UNION ALL BY
    NAME`` with no row): the run's optional columns are NULL when absent, and a required
    column absent fails with :func:`_lacking_columns`'s message (when a row is read: an
    empty table lacking one gives no row) instead of a binder error.
    """
    name = f"{table}::VARCHAR"
    if problem is not None:
        name = f"COALESCE(error({problem}), {name})"
    source = f"SELECT * FROM query_table({name})"
    if table in REQUIRED_COLUMNS:
        columns = [f"NULL AS {c}" for c in REQUIRED_COLUMNS[table][1]]
        optional = OPTIONAL_COLUMNS.get(table, {})
        columns += [f"CAST(NULL AS {t}) AS {c}" for c, t in optional.items()]
        source = (
            f"SELECT * EXCLUDE (ireval_columns) FROM (SELECT * FROM (SELECT "
            f"{', '.join(columns)} WHERE 1 = 0) AS proto UNION ALL BY NAME SELECT *, "
            f"typeof(ireval_src) AS ireval_columns FROM query_table({name}) AS ireval_src) "
            f"AS ireval_read WHERE {_lacking_columns(macro, table)}"
        )
    inlined = " NOT MATERIALIZED" if table == "eval_table" else ""
    return f"{_INPUTS[table]} AS{inlined} ({source})"


#: The positions 1..k (the ``positions`` fragment, what the C/W/L measures and DCG's
#: 'scaled' norm read) in the DuckDB macros: DuckDB's ``range`` table function instead of
#: the portable nine digit tables cross joined; the same rows (none for k NULL). The Spark
#: engine rewrites the rendered fragment likewise
#: (:func:`polars_ireval.engines.spark.ranged_positions`); the other dialects keep it.
DUCKDB_POSITIONS = (
    "(SELECT CAST(range AS INTEGER) AS pos FROM range(1, CAST(COALESCE({k}, 0) + 1 AS BIGINT)))"
)


#: The C/W/L score for DuckDB's macros (the fragment ``cwl_score`` of ``sql/cwl.sql``):
#: DuckDB's ordered aggregates (``SUM(x ORDER BY pos)``) add a ranking's terms in an order
#: fixed by the positions, so a call gives the same bits every time, as the portable
#: fragment's running sums do, without a window over the positions: TBG on TREC CAsT 2021
#: took 0.52 CPU s with the window, 0.22 with these, INST 1.04 and 0.84. Not the running
#: sums' bits (DuckDB adds in its own fixed order): values and residuals moved by up to
#: 2e-14. Other dialects keep the running sums (Spark, Trino, BigQuery and Snowflake have
#: no ordered SUM).
DUCKDB_CWL_SCORE = """SELECT run_id, query_id,
    SUM(w_lo * g_lo ORDER BY pos) / SUM(w_lo ORDER BY pos) AS value,
    CASE WHEN {adaptive}
        THEN SUM(w_hi * g_hi ORDER BY pos) / SUM(w_hi ORDER BY pos)
            - SUM(w_lo * g_lo ORDER BY pos) / SUM(w_lo ORDER BY pos)
        ELSE SUM(w_lo * (g_hi - g_lo) ORDER BY pos) / SUM(w_lo ORDER BY pos) END AS residual,
    SUM(w_lo ORDER BY pos) / MAX(CASE WHEN pos = 1 THEN w_lo END) AS depth
FROM weighted
GROUP BY run_id, query_id"""


#: The sums of the fusion methods for DuckDB's macros (the fragment ``fusion_sums`` of
#: ``sql/fusion.sql``): DuckDB's ordered aggregate adds a document's terms in increasing
#: order, one after the other; its window over the same order (the portable fragment)
#: combines them in a tree laid over the whole sorted input, so that two documents with the
#: same terms could get sums an ulp apart.
DUCKDB_FUSION_SUMS = """SELECT query_id, doc_id, SUM(term ORDER BY term) AS total,
    SUM(wterm ORDER BY wterm) AS wtotal, MIN(score) AS lo, MAX(score) AS hi,
    CAST(SUM(retrieved) AS DOUBLE) AS n, CAST(COUNT(*) AS DOUBLE) AS cnt
FROM {rows}
GROUP BY query_id, doc_id"""


def duckdb_macro(t: Template, lib: Mapping[str, Template]) -> str:
    """``CREATE OR REPLACE MACRO`` text for the macro template ``t``.

    The options are checked when the call is bound (see :func:`_duckdb_input`); the body
    reads each option cast to its kind's type (a wrong type gives NULL, never a binder error
    ahead of the check). A ``raise`` block becomes a branch of the result raising its first
    problem, in its key columns (``run_id``, ``query_id``), so that a filter on them cannot
    drop it unevaluated.
    """
    lib = {
        **lib,
        "positions": replace(lib["positions"], body=DUCKDB_POSITIONS),
        "cwl_score": replace(lib["cwl_score"], body=DUCKDB_CWL_SCORE),
        "fusion_sums": replace(lib["fusion_sums"], body=DUCKDB_FUSION_SUMS),
    }
    env = {p.name: O.typed(p.name, p.kind) if p.kind else p.name for p in t.scalars}
    env.update(doc_keys("duckdb"))
    env.update({name: _INPUTS[name] for name in t.tables})
    args = [*t.tables] + [
        p.name if p.default is None else f"{p.name} := {p.default}" for p in t.scalars
    ]
    problem = O.duckdb_problem(t.name, t.scalars, t.rules)
    # the first table's name carries the check (the body reads every table)
    inputs = ",\n".join(
        _duckdb_input(name, problem if i == 0 else None, t.name) for i, name in enumerate(t.tables)
    )
    # the body's own CTEs join the inputs' WITH: the body stays the top-level query, whose
    # CTEs DuckDB materializes as it did before (not those of a subquery)
    body = expand(t.body, env, lib)
    body = f",\n{body[5:]}" if body.startswith("WITH ") else f"\n{body}"
    parts = [f"WITH {inputs}{body}"]
    for r in t.raises:
        when = " AND ".join(f"{env[p.name]} = {p.default}" for p in r.params)
        prefix = O.quote(f"{t.name}: {', '.join(f'{p.name} := {p.default}' for p in r.params)}: ")
        parts.append(
            f"SELECT error({prefix} || problem) AS run_id, error({prefix} || problem) AS query_id "
            f"FROM (SELECT MIN(problem) AS problem FROM (\n{expand(r.body, env, lib)}\n) AS "
            f"ireval_raised WHERE {when}) AS ireval_raise WHERE problem IS NOT NULL"
        )
    doc = "".join(f"-- {line}\n" for line in _wrap(t.doc)) if t.doc else ""
    return (
        f"{doc}CREATE OR REPLACE MACRO {t.name}({', '.join(args)}) AS TABLE\n"
        + "\nUNION ALL BY NAME\n".join(parts)
        + ";\n"
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
    *,
    checked: bool = False,
) -> str:
    """The body of macro ``t`` as one standalone query: literal parameters, named tables.

    ``tables`` maps ``eval_table`` (or ``run_table``/``qrels_table``, ``runs_table``) to
    SQL table expressions (quoted names or parenthesised subqueries). Options under which
    the macro raises on some data (its ``raise`` blocks) are refused, unless ``checked``:
    the caller has checked the data for what they raise on.
    """
    values: dict[str, Any] = {}
    env: dict[str, str] = {}
    for p in t.scalars:
        if p.name in args:
            values[p.name] = args[p.name]
        elif p.default is not None:
            values[p.name] = default_value(p.default)
            env[p.name] = float_default(p.default)
        else:
            raise ParameterError(f"{t.name}: parameter {p.name!r} is required")
    unknown = set(args) - {p.name for p in t.scalars}
    if unknown:
        raise ParameterError(f"{t.name}: unknown parameter(s) {sorted(unknown)}")
    O.check_values(t.name, t.scalars, t.rules, values)
    for r in () if checked else t.raises:
        if all(values.get(p.name) == default_value(p.default or "NULL") for p in r.params):
            given = ", ".join(f"{p.name} := {p.default}" for p in r.params)
            raise ParameterError(
                f"{t.name}: {given} makes the macro fail on {r.doc.rstrip('.')}, which a "
                "rendered query cannot do: check the data first (evaluate(engine='spark') "
                "does) and render the query without it"
            )
    env.update({name: literal(values[name]) for name in args})
    env.update(doc_keys(engine))
    env.update(tables)
    return expand(t.body, env, lib)


def default_value(text: str) -> Any:
    """A literal default of a template header (``NULL``, ``TRUE``, ``2``, ``0.8``,
    ``'log2'``) as the Python value it stands for."""
    if text == "NULL":
        return None
    if text in ("TRUE", "FALSE"):
        return text == "TRUE"
    if text.startswith("'") and text.endswith("'"):
        return text[1:-1].replace("''", "'")
    number = float(text)
    return int(text) if re.fullmatch(r"-?\d+", text) else number


def float_default(text: str) -> str:
    """A decimal default such as ``0.8`` rendered as a DOUBLE (not DECIMAL) literal."""
    return f"CAST({text} AS DOUBLE)" if re.fullmatch(r"-?\d+\.\d*", text) else text
