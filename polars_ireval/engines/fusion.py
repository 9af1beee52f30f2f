"""Fusion on every engine: :func:`fuse` and :func:`normalize` on Polars
(:mod:`polars_ireval.fusion`), or as the SQL of ``sql/fusion.sql`` on DuckDB (the
``ireval_fuse`` and ``ireval_normalize`` macros) and Spark (the same templates rendered).

The options are checked once, as the Polars engine checks them, whatever the engine. On
DuckDB the runs are read and checked as the Polars engine reads them and handed over as
Arrow; the result comes back as a Polars DataFrame. On Spark, runs that are Spark
DataFrames stay there (one small query checks them first: no null or non-finite score, no
document twice in a ranking, and the ``queries`` and ``norm="max"`` conditions); other runs
are read and checked in Python and handed over; the result is a lazy Spark DataFrame.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval.engines.duckdb import install, own_cursor
from polars_ireval.engines.spark import (
    from_polars,
    persisted,
    spark_frame,
    spark_session,
    temp_view,
)
from polars_ireval.errors import DuplicateError, ParameterError, ScoreError
from polars_ireval.fusion import fuse as polars_fuse
from polars_ireval.fusion import normalize as polars_normalize
from polars_ireval.fusion.fuse import (
    METHODS,
    SQL_METHODS,
    check_choices,
    check_every_run,
    check_method,
    check_non_negative,
    check_weights,
    runs_frame,
)
from polars_ireval.fusion.normalize import check_guard, check_norm
from polars_ireval.sql import library, quote_ident, table_arg
from polars_ireval.sql import templates as T

FusionEngine = Literal["polars", "duckdb", "spark"]
ENGINES = ("polars", "duckdb", "spark")
_WEIGHT = "weight"


def _check_engine(engine: object) -> str:
    if engine not in ENGINES:
        raise ParameterError(f"engine={engine!r}: 'polars', 'duckdb' or 'spark'")
    return str(engine)


def fuse(
    runs: Any,
    method: str = "rrf",
    *,
    norm: str | None = None,
    weights: Sequence[float] | Mapping[str, float] | None = None,
    missing: str = "skip",
    queries: str = "error",
    depth: int | None = None,
    ties: str = "trec_eval",
    guard: str = "exact",
    name: str | None = None,
    qrels: Any = None,
    train_runs: Any = None,
    engine: FusionEngine = "polars",
    con: Any = None,
    **params: Any,
) -> Any:
    if _check_engine(engine) == "polars":
        return polars_fuse(
            runs, method, norm=norm, weights=weights, missing=missing, queries=queries,  # type: ignore[arg-type]
            depth=depth, ties=ties, guard=guard, name=name, qrels=qrels,
            train_runs=train_runs, **params,
        )  # fmt: skip
    spec, values = check_method(method, params)
    if spec.name not in SQL_METHODS or qrels is not None or train_runs is not None:
        raise ParameterError(
            f"method={spec.name!r} runs on the Polars engine only (engine='polars'); the SQL "
            f"engines compute {list(SQL_METHODS)}"
        )
    if norm is not None:
        norm = check_norm(norm)
    guard = check_guard(guard)
    depth = check_choices(missing, queries, ties, depth)
    args: dict[str, Any] = {
        "method": spec.name, "norm": norm, **values, "missing": missing, "queries": queries,
        "depth": depth, "ties": ties, "guard": guard, "name": name,
    }  # fmt: skip
    if engine == "duckdb":
        return _duckdb("ireval_fuse", runs, args, weights, spec, con)
    return _spark("ireval_fuse", runs, args, weights, spec, con)


def normalize(
    run: Any,
    norm: str = "min-max",
    *,
    guard: str = "exact",
    ties: str = "trec_eval",
    engine: FusionEngine = "polars",
    con: Any = None,
) -> Any:
    if _check_engine(engine) == "polars":
        return polars_normalize(run, norm, guard=guard, ties=ties)
    norm, guard = check_norm(norm), check_guard(guard)
    check_choices("skip", "union", ties, None)
    args = {"norm": norm, "guard": guard, "ties": ties}
    if engine == "duckdb":
        single = isinstance(run, (pl.DataFrame, pl.LazyFrame)) and not _has_run_id(run)
        out = _duckdb("ireval_normalize", run, args, None, None, con, one_run=True)
        return out.drop(S.RUN_ID, S.RANK) if single else out.drop(S.RANK)
    return _spark("ireval_normalize", run, args, None, None, con, one_run=True).drop(S.RANK)


def _described(front: Any, engines: str) -> Any:
    """``front`` documented as the Polars function it extends, plus its ``engine`` and
    ``con`` parameters."""

    def wrap(polars_function: Any) -> Any:
        doc = inspect.getdoc(polars_function) or ""
        head, sep, rest = doc.partition("\n    Returns\n")
        if not sep:
            head, sep, rest = doc.partition("\nReturns\n")
        extra = (
            'engine\n    ``"polars"`` (default: a lazy Polars query), ``"duckdb"`` (the '
            f'{engines} macro of ``sql/fusion.sql``; a DataFrame) or ``"spark"`` (the same '
            "SQL rendered for Spark; a Spark DataFrame; runs may be Spark DataFrames).\n"
            "con\n    The DuckDB connection or Spark session (default: the engine's own "
            "DuckDB database, or the active Spark session).\n"
        )
        front.__doc__ = f"{head.rstrip()}\n{extra}\n{sep.strip()}\n{rest}" if sep else doc
        return front

    return wrap(polars_fuse if engines == "ireval_fuse" else polars_normalize)


_described(fuse, "ireval_fuse")
_described(normalize, "ireval_normalize")


# --------------------------------------------------------------------------- DuckDB


def _stacked_frame(runs: Any, one_run: bool) -> pl.DataFrame:
    """The runs read and checked as the Polars engine reads them: ``run_id, query_id,
    doc_id, score`` (one run without ``run_id``: the run ``""``, for a normalisation)."""
    return runs_frame({"": runs} if one_run and not _has_run_id(runs) else runs)


def _has_run_id(run: Any) -> bool:
    return isinstance(run, (pl.DataFrame, pl.LazyFrame)) and (
        S.RUN_ID in run.collect_schema().names()
    )


def _weight_case(weights: Mapping[str, float] | None) -> str:
    """The weight of each row's run as SQL: a CASE over the run ids (1 without weights)."""
    if not weights:
        return "CAST(1 AS DOUBLE)"
    whens = " ".join(f"WHEN {T.literal(k)} THEN {T.literal(float(v))}" for k, v in weights.items())
    return f"CASE run_id {whens} END"


def _duckdb(
    macro: str,
    runs: Any,
    args: dict[str, Any],
    weights: Any,
    spec: Any,
    con: Any,
    *,
    one_run: bool = False,
) -> pl.DataFrame:
    frame = _stacked_frame(runs, one_run)
    names = frame[S.RUN_ID].unique(maintain_order=True).to_list()
    if not one_run and len(names) < 2:
        raise ParameterError(f"fuse: {len(names)} run(s) ({names}); fusion takes two or more")
    weight = check_weights(weights, names, spec) if spec is not None else None
    _check_frame(frame, args)  # (as the Polars engine; the macro's raise blocks are SQL's)
    own = con is None
    cursor = own_cursor() if own else con
    view = f"ireval_fusion_runs_{id(frame):x}"
    try:
        install(cursor, [macro], own)
        cursor.register(view, frame.to_arrow())
        source = f"{view}_weighted"
        cursor.execute(
            f"CREATE OR REPLACE TEMP VIEW {quote_ident(source)} AS SELECT *, "
            f"{_weight_case(weight)} AS {_WEIGHT} FROM {quote_ident(view)}"
        )
        call = ", ".join(f"{k} := {T.literal(v)}" for k, v in args.items())
        query = f"SELECT * FROM {macro}({table_arg(source)}, {call})"
        out = pl.from_arrow(cursor.sql(query).to_arrow_table())
        assert isinstance(out, pl.DataFrame)
    finally:
        if own:
            cursor.close()
        else:
            cursor.execute(f"DROP VIEW IF EXISTS {quote_ident(view + '_weighted')}")
            cursor.unregister(view)
    return out.with_columns(pl.col(S.RANK).cast(pl.UInt32)).sort(S.RUN_ID, S.QUERY_ID, S.RANK)


# --------------------------------------------------------------------------- Spark

_FUSION_COLUMNS = (S.RUN_ID, S.QUERY_ID, S.DOC_ID, S.SCORE)


def _spark(
    macro: str,
    runs: Any,
    args: dict[str, Any],
    weights: Any,
    spec: Any,
    con: Any,
    *,
    one_run: bool = False,
) -> Any:
    spark = spark_session(con)
    native, from_spark = spark_frame(spark, runs)
    if from_spark:
        have = set(native.columns)
        lacking = [c for c in _FUSION_COLUMNS if c not in have and (c != S.RUN_ID or not one_run)]
        if lacking:
            raise ParameterError(
                f"the Spark runs lack column(s) {lacking}; they need {list(_FUSION_COLUMNS)}"
            )
        if S.RUN_ID not in have:
            from pyspark.sql import functions as F

            native = native.withColumn(S.RUN_ID, F.lit(""))
        view = temp_view(native, "fusion")
        names = [row[0] for row in spark.sql(f"SELECT DISTINCT run_id FROM {view}").collect()]
    else:
        frame = _stacked_frame(runs, one_run)
        names = frame[S.RUN_ID].unique(maintain_order=True).to_list()
        _check_frame(frame, args)
        view = temp_view(from_polars(spark, frame), "fusion")
    if not one_run and len(names) < 2:
        raise ParameterError(f"fuse: {len(names)} run(s) ({names}); fusion takes two or more")
    weight = check_weights(weights, names, spec) if spec is not None else None
    source = (
        f"(SELECT run_id, query_id, doc_id, score, {_weight_case(weight)} AS {_WEIGHT} FROM {view})"
    )
    if from_spark:
        _check_spark(spark, source, args)
    return _staged(spark, macro, source, args)


#: The steps of the fusion SQL that Spark computes one after the other, each read by the
#: next as a checkpointed table: Spark inlines a CTE wherever it is read, and the fusion's
#: steps read the previous ones several times each (the kept rows five times, the
#: normalised ones eight), so that the whole query in one took 20 s to plan and 15 s to run
#: on 15 rows; in steps, about a second each.
_STAGES = (
    "WITH {@fusion_kept}\nSELECT run_id, query_id, doc_id, score, weight, rank FROM fusion_kept",
    "WITH fusion_kept AS (SELECT * FROM {kept}),\n{@fusion_normalised}\n"
    "SELECT run_id, query_id, doc_id, weight, score, rank FROM fusion_final",
    "WITH fusion_final AS (SELECT * FROM {final}),\n{@fusion_combined}\n{@fusion_output}",
)


def _staged(spark: Any, macro: str, source: str, args: Mapping[str, Any]) -> Any:
    """The SQL of ``macro`` on Spark, step by step (:data:`_STAGES`): a Spark DataFrame of
    the fused run, or of the normalised rows for ``ireval_normalize``."""
    lib = library()
    template = lib["ireval_fuse"]
    if macro == "ireval_normalize":  # its steps are the fusion's first two
        args = {**args, "method": "sum", "queries": "union", "depth": None}
    views: dict[str, str] = {}
    frame: Any = None
    for i, body in enumerate(_STAGES if macro == "ireval_fuse" else _STAGES[:2]):
        text = body.replace("{kept}", views.get("kept", "")).replace(
            "{final}", views.get("final", "")
        )
        step = replace(template, body=text)
        query = T.render(step, lib, args, {"runs_table": source}, "spark", checked=True)
        frame = spark.sql(query)
        if i < 2 and (i == 0 or macro == "ireval_fuse"):
            frame = persisted(frame)
            views["kept" if i == 0 else "final"] = temp_view(frame, "fusion")
    if macro == "ireval_normalize":
        return frame.drop(_WEIGHT)
    return frame


def _check_frame(frame: pl.DataFrame, args: Mapping[str, Any]) -> None:
    """What the Polars engine refuses as its query runs (and the DuckDB macro's raise
    blocks, which a query rendered for Spark cannot hold), on runs read in Python: a query
    not in every run under ``queries="error"``, a negative score in the top ``depth`` under
    ``norm="max"`` and ``guard="exact"``; the Polars engine's checks and messages."""
    if args.get("queries") == "error":
        present = frame.group_by(S.QUERY_ID).agg(pl.col(S.RUN_ID).n_unique().alias("runs"))
        check_every_run(present, frame[S.RUN_ID].n_unique())
    if args.get("norm") == "max" and args.get("guard") == "exact":
        depth, top = args.get("depth"), pl.col(S.SCORE).sort(descending=True)
        low = (top if depth is None else top.head(depth)).min()
        check_non_negative(frame.group_by(S.RUN_ID, S.QUERY_ID).agg(low))


def _check_spark(spark: Any, source: str, args: Mapping[str, Any]) -> None:
    """What the Python intake checks, on runs that stay in Spark (a small query), and
    :func:`_check_frame`'s checks (on a row a query and a row a ranking)."""
    depth = args.get("depth")
    cut = "" if depth is None else f" WHERE rank <= {int(depth)}"
    ctes = f"""src AS (SELECT * FROM {source}),
    ranked AS (SELECT run_id, query_id, doc_id, score, row_number() OVER (
        PARTITION BY run_id, query_id ORDER BY score DESC) AS rank FROM src),
    kept AS (SELECT * FROM ranked{cut})"""
    query = f"""
    WITH {ctes}
    SELECT
        (SELECT COUNT(*) FROM src WHERE query_id IS NULL OR doc_id IS NULL OR score IS NULL
            OR NOT (score >= CAST('-1.7976931348623157e308' AS DOUBLE)
            AND score <= CAST('1.7976931348623157e308' AS DOUBLE))) AS bad,
        (SELECT COUNT(*) FROM (SELECT run_id, query_id, doc_id FROM src
            GROUP BY run_id, query_id, doc_id HAVING COUNT(*) > 1) AS d) AS duplicates,
        (SELECT COUNT(DISTINCT run_id) FROM src) AS runs
    """
    bad, duplicates, runs = spark.sql(query).collect()[0]
    if bad:
        raise ScoreError(
            f"the Spark runs hold {bad} row(s) with a null id or a null, NaN or infinite "
            "score; filter or fix them first"
        )
    if duplicates:
        raise DuplicateError(
            f"the Spark runs list {duplicates} document(s) twice in a ranking; keep one row "
            "per (run_id, query_id, doc_id)"
        )

    def small(sql: str) -> pl.DataFrame:  # a row a query or a ranking
        out = pl.from_arrow(spark.sql(f"WITH {ctes} {sql}").toArrow())
        assert isinstance(out, pl.DataFrame)
        return out

    if args.get("queries") == "error":
        by_query = "SELECT query_id, COUNT(DISTINCT run_id) AS runs FROM kept GROUP BY query_id"
        check_every_run(small(by_query), runs)
    if args.get("norm") == "max" and args.get("guard") == "exact":
        by_ranking = "SELECT run_id, query_id, MIN(score) AS score FROM kept GROUP BY 1, 2"
        check_non_negative(small(by_ranking))


__all__ = ["ENGINES", "METHODS", "fuse", "normalize"]
