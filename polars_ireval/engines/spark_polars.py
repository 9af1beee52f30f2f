"""The Spark engine that scores with Polars: Spark moves the rankings, Polars evaluates them.

``evaluate(..., engine="spark-polars")`` repartitions the run by ranking (``[run_id,]
query_id``) and evaluates each partition's rankings with the Polars engine in Spark's
Python workers (``DataFrame.mapInArrow``), against the qrels, which are read on the driver,
checked, and shipped with the function. A ranking lies whole in one partition, and every
measure is a function of one ranking and its query's judgments, so each per-query value
is the Polars engine's own; the per-query values come back to the driver (one Arrow IPC
message a partition) and are aggregated as the Polars engine aggregates them. The result
is the same, bit for bit, as ``engine="polars"`` on the same rows.

Where :mod:`polars_ireval.engines.spark` renders the SQL of ``sql/`` (Spark's own
operators, JVM rows: a window sort of every ranking, joins and aggregations), this engine
runs Spark's shuffle once and the rest in Polars: the five benchmark measures on the
campaign workload (5M rows, local mode, a fresh JVM) took 10.85 s against 28.35 s, the
DuckDB engine 2.20 s (``docs/benchmarks-engines.md``, part C).

What it needs and what it does not do:

- polars_ireval installed wherever Spark runs Python (every executor of a cluster; the
  workers of a Spark Connect server, with which it works as well: it uses only DataFrame
  calls).
- The qrels fit in the driver's memory and in each task's: they are collected (Spark
  inputs) or read there, and every task receives them.
- Inputs are checked as the Polars engine checks them (``validate=True``): the qrels on
  the driver, the run's rows in the workers, ranking by ranking (a duplicate document, a
  null id, a NaN score); the error raised is the readers' own class and message, from the
  first partition that found one (its counts, "and 3 other ranking(s)", are that
  partition's).
- ``missing="error"`` and ``"zero"`` are checked on the driver from the rankings the run
  holds; under ``"zero"`` the judged queries a run lacks (no partition holds them) are
  scored there, by the Polars engine (:func:`_unranked`).
- No coverage warning is given (the Polars engine's warnings about rankings without
  judgments): call :func:`polars_ireval.coverage` for them.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from typing import Any

import polars as pl

from polars_ireval import errors as E
from polars_ireval._base import schema as S
from polars_ireval.engines.base import INPUT_ORDER, Request, qrels_frame
from polars_ireval.errors import EmptyInputError, IrevalError, MissingQueryError, SchemaError
from polars_ireval.io.intake import Inputs, intake, intake_qrels, intake_run
from polars_ireval.judge import INPUT_RANK
from polars_ireval.registry import JUDGED_WEIGHT_PREFIX
from polars_ireval.results import long_result, wide_names

#: The columns of the rows each partition returns: its per-query frame as an Arrow IPC
#: message, or the error its evaluation raised (``Class: message``).
PARTITION_SCHEMA = "data binary, error string"


def evaluate(request: Request) -> Any:
    """Evaluate ``request`` on Spark with the Polars engine in the workers (``request.con``:
    the SparkSession, default the active one); return a Spark DataFrame of the result."""
    from polars_ireval.engines.spark import from_polars, spark_frame, spark_session

    r = request
    spark = spark_session(r.con)
    run_sdf, native = spark_frame(spark, r.run)
    if not native:  # read and checked as the Polars readers do, then handed to Spark
        from polars_ireval.engines.base import run_frame

        checked = intake_run(r.run, ties=r.ties, validate=r.validate)
        run_sdf = from_polars(spark, run_frame(checked, r.ties))
    qrels_df = _qrels(spark, r.qrels, r.validate)
    columns = list(run_sdf.columns)
    lacking = [c for c in (S.QUERY_ID, S.DOC_ID, S.SCORE) if c not in columns]
    if lacking:
        raise SchemaError(
            f"the Spark run lacks column(s) {lacking}; it needs query_id, doc_id, score"
        )
    keys = [S.RUN_ID, S.QUERY_ID] if S.RUN_ID in columns else [S.QUERY_ID]
    extra = {"rank": INPUT_RANK, "input_order": INPUT_ORDER}.get(r.ties)
    if extra is not None and extra not in columns:
        raise E.ParameterError(f"ties={r.ties!r} needs an {extra} column in the Spark run")
    absent = None
    if r.missing != "skip":  # the judged (run, query) pairs without a ranking
        absent = _absent(run_sdf.select(keys).distinct().toArrow(), qrels_df, keys)
        if r.missing == "error" and absent.height:
            sample = ", ".join(str(row) for row in absent.head(5).rows())
            raise MissingQueryError(
                f"{absent.height} judged (run, query) pair(s) have no ranking in the run, "
                f"e.g. {sample}; pass missing='skip' to ignore them or missing='zero' to "
                "score them 0"
            )
    selected = [*keys, S.DOC_ID, S.SCORE, *([extra] if extra else [])]
    options = {
        "relevance_level": r.relevance_level,
        "max_depth": r.max_depth,
        "judged_only": r.judged_only,
        "ties": r.ties,
        "residuals": r.residuals,
        "validate": r.validate,
        "no_relevant": r.no_relevant,
    }
    # the measures asked for, by label (the workers parse them, and add the judged weights
    # that projected reads, results.with_judged_weights, as the front door did)
    asked = [m.label for m in r.parsed if not m.label.startswith(JUDGED_WEIGHT_PREFIX)]
    score = partition_scorer(_ipc(qrels_df), asked, keys, options)
    parts = run_sdf.select(*selected).repartition(*keys).mapInArrow(score, PARTITION_SCHEMA)
    table = parts.toArrow()
    failed = [e for e in table.column("error").to_pylist() if e]
    if failed:
        raise _error(failed[0])
    frames = [pl.read_ipc(io.BytesIO(b)) for b in table.column("data").to_pylist() if b]
    if r.missing == "zero" and absent is not None and absent.height:
        frames.append(_unranked(absent, qrels_df, r.parsed, keys, options))
    if not frames:
        raise EmptyInputError("the Spark run holds no ranking line; check the input")
    per_q = pl.concat(frames, how="diagonal_relaxed")
    names = wide_names(keys, r.parsed, residuals=r.residuals, no_relevant=r.no_relevant)
    if set(names) != set(per_q.columns):  # (ties="average" by enumeration names its own)
        names = per_q.columns
    out = long_result(
        per_q.lazy(), r.parsed, per_query=r.per_query, residuals=r.residuals, names=names
    )
    return spark.createDataFrame(out.collect().to_arrow())


def partition_scorer(
    qrels_ipc: bytes, measures: list[str], keys: list[str], options: dict[str, Any]
) -> Callable[[Iterator[Any]], Iterator[Any]]:
    """The function ``mapInArrow`` runs on each partition of the run (its rankings whole):
    the Polars engine's per-query frame of its rows against the qrels (``qrels_ipc``, an
    Arrow IPC message), as one row of :data:`PARTITION_SCHEMA`; an :class:`IrevalError` is
    returned as that row's ``error``, not raised, so that the driver raises it as it is."""

    def score(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        from polars_ireval.engines.polars import named_per_query_frame
        from polars_ireval.parse import parse_measures
        from polars_ireval.results import with_judged_weights

        schema = pa.schema([("data", pa.binary()), ("error", pa.string())])
        found = list(batches)
        if not found or sum(b.num_rows for b in found) == 0:
            return
        frame = pl.from_arrow(pa.Table.from_batches(found))
        assert isinstance(frame, pl.DataFrame)
        if options["ties"] == "input_order":  # the order the Polars engine reads
            frame = frame.sort(INPUT_ORDER, maintain_order=True).drop(INPUT_ORDER)
        qrels = pl.read_ipc(io.BytesIO(qrels_ipc))
        try:
            parsed = parse_measures(measures)
            if options["residuals"]:
                parsed += with_judged_weights(parsed)
            # each partition's intake: rows a Spark table held are checked here
            validate = options["validate"]
            inputs = intake(frame, qrels, ties=options["ties"], validate=validate)
            per_q, _ = named_per_query_frame(
                inputs, parsed, missing="skip", warn=False,
                **{k: v for k, v in options.items() if k != "validate"},
            )  # fmt: skip
            data, error = _ipc(per_q.collect()), None
        except IrevalError as exc:
            data, error = None, f"{type(exc).__name__}: {exc}"
        yield pa.RecordBatch.from_pydict({"data": [data], "error": [error]}, schema=schema)

    return score


def _qrels(spark: Any, qrels: Any, validate: bool) -> pl.DataFrame:
    """The qrels on the driver, checked as the Polars readers check them (a Spark
    DataFrame or table is collected)."""
    from polars_ireval.engines.spark import spark_frame

    sdf, native = spark_frame(spark, qrels)
    if native:
        lacking = [c for c in (S.QUERY_ID, S.DOC_ID, S.RELEVANCE) if c not in sdf.columns]
        if lacking:
            raise SchemaError(
                f"the Spark qrels lack column(s) {lacking}; they need query_id, doc_id, relevance"
            )
        local = pl.from_arrow(sdf.select(S.QUERY_ID, S.DOC_ID, S.RELEVANCE).toArrow())
        return qrels_frame(intake_qrels(local, validate=validate))
    return qrels_frame(intake_qrels(qrels, validate=validate))


def _ipc(frame: pl.DataFrame) -> bytes:
    buffer = io.BytesIO()
    frame.write_ipc(buffer)
    return buffer.getvalue()


def _error(text: str) -> IrevalError:
    """The error a partition returned (``Class: message``), as its class."""
    name, _, message = text.partition(": ")
    cls = getattr(E, name, IrevalError)
    if not (isinstance(cls, type) and issubclass(cls, IrevalError)) or cls is E.FormatError:
        return IrevalError(text)
    return cls(message)


def _absent(present: Any, qrels: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """The judged (run, query) pairs (``keys``) that have no ranking in the run
    (``present``: the run's rankings, an Arrow table of ``keys``), sorted."""
    ranked = pl.from_arrow(present)
    assert isinstance(ranked, pl.DataFrame)
    ranked = ranked.with_columns(pl.col(k).cast(pl.String) for k in keys)
    judged = qrels.select(S.QUERY_ID).unique()
    runs = ranked.select(S.RUN_ID).unique() if S.RUN_ID in keys else None
    pairs = judged if runs is None else runs.join(judged, how="cross")
    return pairs.join(ranked, on=keys, how="anti").select(keys).sort(keys)


def _unranked(
    absent: pl.DataFrame,
    qrels: pl.DataFrame,
    measures: list[Any],
    keys: list[str],
    options: dict[str, Any],
) -> pl.DataFrame:
    """The per-query frame of the judged pairs ``absent`` from the run (``missing="zero"``),
    scored on the driver by the Polars engine as it scores a judged query that a run lacks:
    each run that lacks one is given a single row of a query no judgment names, so that
    the engine pairs it with every judged query of ``qrels`` (cut to the absent queries),
    finds them all unranked, and scores them; the pairs in ``absent`` are kept."""
    from polars_ireval.engines.polars import named_per_query_frame

    judged = qrels.join(absent.select(S.QUERY_ID).unique(), on=S.QUERY_ID, how="semi")
    taken = set(qrels.get_column(S.QUERY_ID).unique().to_list())
    placeholder = next(
        f"\x00unjudged {i}" for i in range(len(taken) + 1) if f"\x00unjudged {i}" not in taken
    )
    runs = absent.select(S.RUN_ID).unique() if S.RUN_ID in keys else pl.DataFrame({"_": [0]})
    row = {S.QUERY_ID: placeholder, S.DOC_ID: placeholder, S.SCORE: 0.0}
    if options["ties"] == "rank":
        row[INPUT_RANK] = 1
    ranking = runs.with_columns(pl.lit(v).alias(k) for k, v in row.items()).drop("_", strict=False)
    per_q, _ = named_per_query_frame(  # a ranking made here, of checked qrels
        Inputs(ranking, judged), measures, missing="zero", warn=False,
        **{k: v for k, v in options.items() if k != "validate"},
    )  # fmt: skip
    return per_q.collect().join(absent, on=keys, how="semi")


__all__ = ["PARTITION_SCHEMA", "evaluate", "partition_scorer"]
