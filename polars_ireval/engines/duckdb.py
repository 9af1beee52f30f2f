"""The DuckDB engine: the ``ireval_`` macros of ``sql/`` in one DuckDB query.

The inputs are read and validated as the Polars engine does (the same errors), handed to
DuckDB as Arrow, judged by ``ireval_judge`` into a temporary table (one per condensing the
measures need) and every measure computed by its declared macro call
(:func:`polars_ireval.sql.compile.spec`); the per-query values come back to Polars, shaped
by :func:`polars_ireval.results.long_result`. Returns an eager DataFrame.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from typing import Any, ClassVar

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval.engines.average import averaged, read_depth
from polars_ireval.engines.base import (
    USER_FRAME,
    Request,
    check_coverage,
    check_missing,
    check_positions,
    qrels_frame,
    rank_by_of,
    refuse_average_residuals,
    run_frame,
)
from polars_ireval.judge import AVERAGE, Missing
from polars_ireval.registry import SqlCall, SqlSpec
from polars_ireval.results import (
    RESIDUAL,
    RESIDUAL_PREFIX,
    NoRelevant,
    long_result,
    with_no_relevant,
)
from polars_ireval.sql import load, quote_ident, table_arg
from polars_ireval.sql import templates as T
from polars_ireval.sql.compile import (
    compose,
    compose_residual,
    condensed,
    judge_options,
    macro_call,
    macros_of,
    specs,
    with_absent,
)

_INDEX = "measure_index"

#: DuckDB optimizers switched off for the measures' query: ``projection_pullup`` (DuckDB 2)
#: grows faster than quadratically with the number of measures in the query, and took 80%
#: of the CPU time of a 97-measure request on 7,500 rows (the other optimizers and the
#: execution: 10 s of CPU with it off, 53 s with it on). DuckDB versions without it are
#: left as they are.
SLOW_OPTIMIZERS = ("projection_pullup",)


class _Own:
    """The engine's own DuckDB database (in memory, one per process: a forked child makes
    its own), for calls given no connection. Each evaluation runs on a cursor of it, whose
    temporary tables and registered frames are its own; the macros, in the database's
    catalog, are installed once each, and :data:`SLOW_OPTIMIZERS` switched off once (the
    setting is the database's). A new connection with the macros cost 30-80 ms a call
    (DuckDB 2.0: 21 ms to connect, then parsing the macros), a cursor 0.01 ms."""

    lock: ClassVar[threading.Lock] = threading.Lock()
    pid: ClassVar[int | None] = None
    db: ClassVar[Any] = None
    installed: ClassVar[set[str]] = set()


def own_cursor() -> Any:
    """A cursor of the engine's own database (:class:`_Own`), created on first use."""
    import duckdb

    with _Own.lock:
        if _Own.pid != os.getpid():
            db = duckdb.connect()
            known = [n for n in SLOW_OPTIMIZERS if _optimizer_known(db, n)]
            if known:
                db.execute(f"SET disabled_optimizers = {T.literal(','.join(known))}")
            _Own.pid, _Own.db, _Own.installed = os.getpid(), db, set()
        return _Own.db.cursor()


def install(con: Any, macros: Iterable[str], own: bool) -> None:
    """Install ``macros`` into ``con``: the caller's connection every time (they may have
    been replaced there), the engine's own database (``own``) only those it lacks."""
    if not own:
        load(con, macros)
        return
    with _Own.lock:
        lacking = [m for m in dict.fromkeys(macros) if m not in _Own.installed]
        if lacking:
            load(_Own.db, lacking)
            _Own.installed.update(lacking)


def evaluate(request: Request) -> pl.DataFrame:
    """Evaluate ``request`` in DuckDB (``request.con``, into which the macros it needs are
    (re)installed; by default a cursor of the engine's own in-memory database, see
    :class:`_Own`).

    ``ties="average"``: every measure is averaged over the distinct arrangements of the
    tied documents (:func:`polars_ireval.engines.average.averaged`), each arrangement a
    ranking of one DuckDB evaluation under ``ties="rank"`` (the closed forms of the Polars
    engine are Polars expressions; the enumeration gives the same values, up to its limit
    :data:`polars_ireval.engines.average.MAX_ARRANGEMENTS`).
    """
    r = request
    average = r.ties == AVERAGE
    if average:
        refuse_average_residuals(r.residuals)
    parsed = r.parsed
    run_df = run_frame(r.checked.run, "trec_eval" if average else r.ties)
    qrels_df = qrels_frame(r.checked.qrels)
    if r.missing == "error":
        check_missing(run_df, qrels_df)
    multi = S.RUN_ID in run_df.columns
    if r.warn or r.no_relevant == "error":  # the Polars engine's checks, worded the same
        keys = [S.RUN_ID, S.QUERY_ID] if multi else [S.QUERY_ID]
        check_coverage(
            run_df.lazy().select(keys).unique(), qrels_df.lazy(), parsed,
            relevance_level=r.relevance_level, missing=r.missing, warn=r.warn,
            no_relevant=r.no_relevant, stacklevel=USER_FRAME + 1,
        )  # fmt: skip
    con = r.con if r.con is not None else own_cursor()
    try:
        return _evaluate(con, run_df, qrels_df, r)
    finally:
        if r.con is None:
            con.close()


def _evaluate(con: Any, run_df: pl.DataFrame, qrels_df: pl.DataFrame, r: Request) -> pl.DataFrame:
    """:func:`evaluate` of the inputs read and checked, on ``con``."""
    parsed = r.parsed
    if r.ties != AVERAGE:
        per_q = _per_query_frame(con, run_df, qrels_df, r, r.ties, r.missing, r.no_relevant)
        return long_result(
            per_q.lazy(), parsed, per_query=r.per_query, residuals=r.residuals
        ).collect()

    def by_rank(frame: Any, missing: Missing, policy: NoRelevant) -> pl.LazyFrame:
        ranked = run_frame(frame, "rank")  # an arrangement of the checked run
        return _per_query_frame(con, ranked, qrels_df, r, "rank", missing, policy).lazy()

    checked: NoRelevant = "zero" if r.no_relevant == "error" else r.no_relevant
    labels = [m.label for m in parsed]
    per_q_avg = averaged(
        run_df, qrels_df, labels, by_rank, no_relevant=checked,
        missing="skip" if r.missing == "error" else r.missing,
        depth=read_depth(parsed, r.max_depth, r.judged_only),
    )  # fmt: skip
    return long_result(per_q_avg, parsed, per_query=r.per_query).collect()


def _per_query_frame(
    con: Any,
    run_df: pl.DataFrame,
    qrels_df: pl.DataFrame,
    r: Request,
    ties: str,
    missing: Missing,
    no_relevant: NoRelevant,
) -> pl.DataFrame:
    """The wide per-query frame (see :func:`polars_ireval.results.long_result`) of the
    request ``r``'s measures on ``run_df`` and ``qrels_df`` (read and checked), ranked by
    ``ties``, under the ``missing`` and ``no_relevant`` policies (checked beforehand)."""
    import duckdb

    parsed = r.parsed
    all_specs = specs(parsed, r.relevance_level, residuals=r.residuals)
    check_positions(
        parsed, run_df, qrels_df, engine="duckdb", missing=missing, residuals=r.residuals
    )  # the C/W/L macros' positions, before DuckDB generates them
    multi = S.RUN_ID in run_df.columns
    flags = condensed(parsed, r.judged_only)
    fixed = missing == "zero" and any(m.defn.absent is not None for m in parsed)
    wanted = ["ireval_judge", *sorted(macros_of(s for pair in all_specs for s in pair))]
    install(con, [*wanted, "ireval_rankings"] if fixed else wanted, own=r.con is None)
    names = {"run": "ireval run 'input'", "qrels": "ireval qrels 'input'"}
    tables = {flag: f'ireval "eval" table{" (judged only)" if flag else ""}' for flag in set(flags)}
    level = arrow_level(duckdb.__version__)
    con.register(names["run"], run_df.to_arrow(compat_level=level))
    con.register(names["qrels"], qrels_df.to_arrow(compat_level=level))
    common: dict[str, Any] = {
        "max_depth": r.max_depth,
        "ties": ties,
        "missing": "skip" if missing == "error" else missing,
        "rank_by": rank_by_of(qrels_df),
    }
    rankings = f"ireval_rankings({table_arg(names['run'])})"

    def part(i: int, s: SqlSpec, resid: SqlSpec | None) -> str:
        def source(c: SqlCall) -> str:
            return macro_call(c, tables[flags[i]])

        body = compose_residual(s, resid, source) if r.residuals else compose(s, source)
        absent = parsed[i].defn.absent
        if missing == "zero" and absent is not None:
            body = with_absent(body, absent, rankings, residual=r.residuals)
        extra = ", q.residual" if r.residuals else ""
        return f"SELECT q.run_id, q.query_id, {i} AS {_INDEX}, q.value{extra} FROM ({body}) AS q"

    try:
        for flag, table in tables.items():
            options = judge_options(parsed, flags, flag, residuals=r.residuals, **common)
            judge_args = ", ".join(f"{k} := {T.literal(v)}" for k, v in options.items())
            con.execute(
                f"CREATE OR REPLACE TEMP TABLE {quote_ident(table)} AS SELECT * FROM "
                f"ireval_judge({table_arg(names['run'])}, {table_arg(names['qrels'])}, "
                f"{judge_args})"
            )
        parts = [part(i, s, resid) for i, (s, resid) in enumerate(all_specs)]
        with _optimizers_off(con, SLOW_OPTIMIZERS):
            long = _frame(con, " UNION ALL ".join(parts))
    finally:
        for table in tables.values():
            con.execute(f"DROP TABLE IF EXISTS {quote_ident(table)}")
        for name in names.values():
            con.unregister(name)
    per_q = _per_query(long, [m.label for m in parsed], multi=multi, residuals=r.residuals)
    return with_no_relevant(
        per_q, qrels_df.lazy(), parsed, relevance_level=r.relevance_level, policy=no_relevant
    )


def _per_query(
    long: pl.DataFrame, labels: list[str], *, multi: bool, residuals: bool
) -> pl.DataFrame:
    """From ``run_id, query_id, measure_index, value[, residual]`` rows to the wide frame
    of :func:`polars_ireval.results.long_result`: a column per measure label (and residual)."""
    keys = [S.RUN_ID, S.QUERY_ID]
    long = long.with_columns(
        pl.col(keys).cast(pl.String),
        pl.col(_INDEX).cast(pl.Int64),
        pl.col("value").cast(pl.Float64),
    )
    wide = _wide(long, "value", labels)
    if residuals:
        long = long.with_columns(pl.col(RESIDUAL).cast(pl.Float64))
        resid = _wide(long, RESIDUAL, [RESIDUAL_PREFIX + label for label in labels])
        wide = wide.join(resid, on=keys, how="left")
    return wide if multi else wide.drop(S.RUN_ID)


def _wide(long: pl.DataFrame, values: str, names: list[str]) -> pl.DataFrame:
    """``long``'s column ``values`` as one column per measure index i, named ``names[i]``."""
    keys = [S.RUN_ID, S.QUERY_ID]
    pivoted = long.pivot(on=_INDEX, index=keys, values=values)
    pivoted = pivoted.rename({c: names[int(c)] for c in pivoted.columns if c not in keys})
    absent = [pl.lit(None, dtype=pl.Float64).alias(c) for c in names if c not in pivoted.columns]
    return pivoted.with_columns(absent).select(*keys, *names)


def arrow_level(duckdb_version: str) -> Any:
    """The Polars compat level of the Arrow data handed to DuckDB: the newest (string
    views, no copy of the strings) from DuckDB 1.5, which reads them and no longer pushes
    filters on them into pyarrow (which has no kernels for them); the oldest before."""
    try:
        major, minor = (int(part) for part in duckdb_version.split(".")[:2])
    except ValueError:
        return pl.CompatLevel.oldest()
    return pl.CompatLevel.newest() if (major, minor) >= (1, 5) else pl.CompatLevel.oldest()


@contextmanager
def _optimizers_off(con: Any, names: tuple[str, ...]) -> Iterator[None]:
    """Switch the DuckDB optimizers ``names`` off in ``con`` for the ``with`` block, then
    restore the connection's own ``disabled_optimizers`` (it may be the caller's); names
    this DuckDB does not know are skipped."""
    import duckdb

    (before,) = con.execute("SELECT current_setting('disabled_optimizers')").fetchall()[0]
    known = [n for n in names if _optimizer_known(con, n)]
    wanted = ",".join(dict.fromkeys(n for n in [*before.split(","), *known] if n))
    if wanted == before:
        yield
        return
    con.execute(f"SET disabled_optimizers = {T.literal(wanted)}")
    try:
        yield
    finally:
        # (suppressed: the failure being raised may have closed the connection)
        with suppress(duckdb.Error):
            con.execute(f"SET disabled_optimizers = {T.literal(before)}")


def _optimizer_known(con: Any, name: str) -> bool:
    import duckdb

    try:
        con.execute(f"SELECT * FROM duckdb_optimizers() WHERE name = {T.literal(name)}")
        return bool(con.fetchall())
    except duckdb.Error:  # no duckdb_optimizers() in this version
        return False


def _frame(con: Any, query: str) -> pl.DataFrame:
    out = pl.from_arrow(con.sql(query).to_arrow_table())
    if not isinstance(out, pl.DataFrame):
        raise TypeError("expected a table from DuckDB")
    return out
