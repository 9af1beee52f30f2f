"""DuckDB SQL macros for the evaluation table (issue 3, first slice).

The SQL lives in the repository's top-level ``sql/`` folder, one file per measure family,
and ``sql/ireval.sql`` concatenates them (``.read sql/ireval.sql`` in the DuckDB CLI). The
wheel ships the folder as ``polars_ireval/sql/files``.

:func:`load` installs every ``ireval_`` macro into a DuckDB connection; :func:`evaluate`
scores runs in DuckDB and returns the same frame as :func:`polars_ireval.evaluate`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import polars as pl

from polars_ireval import schema as S
from polars_ireval.errors import ParameterError
from polars_ireval.judge import as_qrels, as_run
from polars_ireval.parse import MeasureLike, parse_measures
from polars_ireval.registry import Measure

#: The family files, in the order ``ireval.sql`` concatenates them.
FILES = (
    "stats.sql",
    "judge.sql",
    "precision.sql",
    "counts.sql",
    "sets.sql",
    "ap.sql",
    "rr.sql",
    "ndcg.sql",
    "bpref.sql",
)
ENTRY = "ireval.sql"
_HEADER = (
    "-- ireval.sql: every ireval_ macro, generated from the family files by\n"
    "-- `python -m polars_ireval.sql`. Do not edit; a test checks it is up to date.\n"
)

#: Registry measures without SQL yet. A test checks this equals the registry minus SQL_MEASURES.
PENDING = frozenset(
    {
        "infAP",
        "IPrec",
        "11pt_avg",
        "Rprec_mult",
        "utility",
        "ndcg_rel",
        "Rndcg",
        "G",
        "binG",
        "RBP",
        "RBP_resid",
    }
)

_RUN_ID_PLACEHOLDER = "__ireval_single_run__"


def sql_dir() -> Path:
    """The folder holding the SQL files: inside the wheel, or the repository's ``sql/``."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "files", here.parents[1] / "sql"):
        if (candidate / ENTRY).is_file():
            return candidate
    raise FileNotFoundError(f"ireval SQL files not found beside {here}")


def concatenated(directory: Path | None = None) -> str:
    """The text of ``ireval.sql``: the header and each family file, in :data:`FILES` order."""
    d = directory or sql_dir()
    parts = [_HEADER]
    for name in FILES:
        parts.append(f"\n-- ---- {name}\n" + (d / name).read_text(encoding="utf-8"))
    return "".join(parts)


def sql_text() -> str:
    """The text of ``ireval.sql``."""
    return (sql_dir() / ENTRY).read_text(encoding="utf-8")


def load(con: Any) -> Any:
    """Install every ``ireval_`` macro into the DuckDB connection ``con``; return ``con``."""
    con.execute(sql_text())
    return con


def quote_ident(name: str) -> str:
    """``name`` as a double-quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def quote_literal(text: str) -> str:
    """``text`` as a single-quoted SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def table_arg(name: str) -> str:
    """A table name as a macro argument: the quoted identifier, as a string literal."""
    return quote_literal(quote_ident(name))


def _lit(v: Any) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ParameterError(f"{v!r} is not a number")
    return repr(int(v)) if isinstance(v, int) else f"CAST({float(v)!r} AS DOUBLE)"


def _cutoff_rel(macro: str) -> Callable[[str, dict[str, Any], int], str]:
    return lambda t, p, rl: f"{macro}({t}, {_lit(p.get('k'))}, {_lit(p.get('rel', rl))})"


def _rel_only(macro: str) -> Callable[[str, dict[str, Any], int], str]:
    return lambda t, p, rl: f"{macro}({t}, {_lit(p.get('rel', rl))})"


def _plain(macro: str) -> Callable[[str, dict[str, Any], int], str]:
    return lambda t, p, rl: f"{macro}({t})"


def _k_only(macro: str) -> Callable[[str, dict[str, Any], int], str]:
    return lambda t, p, rl: f"{macro}({t}, {_lit(p.get('k'))})"


def _ndcg(t: str, p: dict[str, Any], rl: int) -> str:
    if p.get("gains") or p.get("dcg", "log2") != "log2":
        raise NotImplementedError("nDCG with gains= or dcg='exp-log2' has no SQL yet")
    return f"ireval_ndcg({t}, {_lit(p.get('k'))})"


def _set_f(t: str, p: dict[str, Any], rl: int) -> str:
    return f"ireval_set_f({t}, {_lit(float(p.get('beta', 1.0)))}, {_lit(p.get('rel', rl))})"


#: Registry name -> builds the macro call from (quoted table, parameters, relevance_level).
SQL_MEASURES: dict[str, Callable[[str, dict[str, Any], int], str]] = {
    "P": _cutoff_rel("ireval_p"),
    "R": _cutoff_rel("ireval_recall"),
    "Success": _cutoff_rel("ireval_success"),
    "relative_P": _cutoff_rel("ireval_relative_p"),
    "Judged": _k_only("ireval_judged"),
    "Unjudged": _k_only("ireval_unjudged"),
    "AP": _cutoff_rel("ireval_ap"),
    "gm_map": _cutoff_rel("ireval_ap"),
    "Rprec": _rel_only("ireval_rprec"),
    "Bpref": _rel_only("ireval_bpref"),
    "gm_bpref": _rel_only("ireval_bpref"),
    "NumQ": _plain("ireval_num_q"),
    "NumRet": _plain("ireval_num_ret"),
    "NumRel": _rel_only("ireval_num_rel"),
    "NumRelRet": _rel_only("ireval_num_rel_ret"),
    "num_nonrel_judged_ret": _rel_only("ireval_num_nonrel_judged_ret"),
    "nDCG": _ndcg,
    "RR": _cutoff_rel("ireval_rr"),
    "SetP": _rel_only("ireval_set_p"),
    "SetR": _rel_only("ireval_set_r"),
    "set_relative_P": _rel_only("ireval_set_relative_p"),
    "SetAP": _rel_only("ireval_set_ap"),
    "SetF": _set_f,
}


def measure_sql(m: Measure, table: str, relevance_level: int = 1) -> str:
    """The ``SELECT`` computing measure ``m`` per query on the evaluation table ``table``."""
    build = SQL_MEASURES.get(m.name)
    if build is None:
        raise NotImplementedError(f"{m.name} has no SQL yet")
    return (
        f"SELECT run_id, query_id, value FROM {build(table_arg(table), m.params, relevance_level)}"
    )


def evaluate(
    run: Any,
    qrels: Any,
    measures: MeasureLike | Iterable[MeasureLike],
    *,
    per_query: bool = False,
    relevance_level: int = 1,
    missing: str = "skip",
    max_depth: int | None = None,
    judged_only: bool = False,
    ties: str = "trec_eval",
    con: Any = None,
) -> pl.DataFrame:
    """Evaluate runs in DuckDB with the ``ireval_`` macros.

    Same inputs and output as :func:`polars_ireval.evaluate` (with ``missing="skip"``, no
    ``max_depth``, ``judged_only`` or ``ties`` options): columns
    ``[run_id,] [query_id,] measure, value``. ``con`` is a DuckDB connection (a new
    in-memory one by default); the macros are (re)installed into it.

    Raises
    ------
    NotImplementedError
        Naming every requested measure that has no SQL yet, or an option other than the
        default for ``missing``, ``max_depth``, ``judged_only`` or ``ties`` (accepted so
        that ``polars_ireval.evaluate(engine="duckdb")`` can pass its options through).
    """
    import duckdb

    defaults = {"missing": "skip", "max_depth": None, "judged_only": False, "ties": "trec_eval"}
    given = {"missing": missing, "max_depth": max_depth, "judged_only": judged_only, "ties": ties}
    other = [f"{k}={v!r}" for k, v in given.items() if v != defaults[k]]
    if other:
        raise NotImplementedError(
            f"the DuckDB engine does not support {', '.join(other)} yet; use the Polars engine"
        )
    if not isinstance(relevance_level, int) or isinstance(relevance_level, bool):
        raise ParameterError(f"relevance_level={relevance_level!r}: must be an integer grade")
    parsed = parse_measures(measures)
    no_sql: list[str] = []
    for m in parsed:
        try:
            measure_sql(m, "t", relevance_level)
        except NotImplementedError:
            no_sql.append(m.label)
    if no_sql:
        raise NotImplementedError(
            f"no SQL yet for measure(s) {', '.join(no_sql)}; use polars_ireval.evaluate"
        )
    run_df = as_run(run).lazy().collect()
    qrels_df = as_qrels(qrels).lazy().collect()
    multi = S.RUN_ID in run_df.columns
    if not multi:
        run_df = run_df.with_columns(pl.lit(_RUN_ID_PLACEHOLDER).alias(S.RUN_ID))
    run_df = run_df.select(S.RUN_ID, S.QUERY_ID, S.DOC_ID, S.SCORE)
    qrels_df = qrels_df.select(S.QUERY_ID, S.DOC_ID, S.RELEVANCE)

    con = con if con is not None else duckdb.connect()
    load(con)
    names = {"run": "ireval run 'input'", "qrels": "ireval qrels 'input'"}
    table = 'ireval "eval" table'
    con.register(names["run"], run_df.to_arrow())
    con.register(names["qrels"], qrels_df.to_arrow())
    try:
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE {quote_ident(table)} AS SELECT * FROM "
            f"ireval_judge({table_arg(names['run'])}, {table_arg(names['qrels'])})"
        )
        keys = [S.RUN_ID, S.QUERY_ID]
        wide = _frame(con, f"SELECT DISTINCT run_id, query_id FROM {quote_ident(table)}")
        wide = wide.with_columns(pl.col(keys).cast(pl.String))
        for m in parsed:
            got = _frame(con, measure_sql(m, table, relevance_level))
            got = got.with_columns(pl.col(keys).cast(pl.String), pl.col("value").cast(pl.Float64))
            wide = wide.join(got.rename({"value": m.label}), on=keys, how="left")
    finally:
        con.execute(f"DROP TABLE IF EXISTS {quote_ident(table)}")
        for name in names.values():
            con.unregister(name)
    if not multi:
        wide = wide.drop(S.RUN_ID)
    keys = [k for k in keys if k in wide.columns]
    labels = [m.label for m in parsed]
    if per_query:
        wide = wide.sort(keys)
        index = keys
    else:
        run_keys = [k for k in keys if k == S.RUN_ID]
        aggs = [m.aggregate(pl.col(m.label)).alias(m.label) for m in parsed]
        wide = wide.group_by(run_keys).agg(aggs).sort(run_keys) if run_keys else wide.select(aggs)
        index = run_keys
    long = wide.select(*index, *[pl.col(c).cast(pl.Float64) for c in labels]).unpivot(
        index=index, on=labels, variable_name="measure", value_name="value"
    )
    return long.sort(index, maintain_order=True) if index else long


def _frame(con: Any, query: str) -> pl.DataFrame:
    out = pl.from_arrow(con.sql(query).to_arrow_table())
    assert isinstance(out, pl.DataFrame)
    return out


def write_entry(directory: Path | None = None) -> Path:
    """Regenerate ``ireval.sql`` from the family files."""
    d = directory or sql_dir()
    path = d / ENTRY
    path.write_text(concatenated(d), encoding="utf-8")
    return path


__all__ = [
    "FILES",
    "PENDING",
    "SQL_MEASURES",
    "evaluate",
    "load",
    "measure_sql",
    "quote_ident",
    "sql_dir",
    "sql_text",
]
