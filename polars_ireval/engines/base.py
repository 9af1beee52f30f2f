"""What every engine receives: one :class:`Request`, validated and parsed once by
:func:`polars_ireval.evaluate`."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Protocol

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval._base.collect import collect
from polars_ireval._base.resources import memory_budget, require
from polars_ireval.errors import MissingQueryError, ParameterError
from polars_ireval.io.intake import Frame, Inputs
from polars_ireval.io.validation import rankings
from polars_ireval.judge import (
    AVERAGE,
    INPUT_RANK,
    EvalTies,
    Missing,
    coverage_of,
    present_rankings,
)
from polars_ireval.measures.usermodel import model_positions
from polars_ireval.registry import Measure
from polars_ireval.results import (
    NoRelevant,
    no_relevant_note,
    no_relevant_pairs,
    raise_no_relevant,
    warn_coverage,
)
from polars_ireval.sql.compile import rank_by

#: Frames between a user's call of ``evaluate`` and an engine's ``warnings.warn``
#: (``evaluate`` -> the engine -> the function warning), for the warning's ``stacklevel``.
USER_FRAME = 4


@dataclass(frozen=True)
class Request:
    """One evaluation, as :func:`polars_ireval.evaluate` hands it to an engine.

    The options are already checked and the measures parsed. ``inputs``: the run and
    qrels read and checked at the front door (:func:`polars_ireval.io.intake.intake`), for
    the Polars and DuckDB engines; None for the Spark engines, which read ``run`` and
    ``qrels`` as the user gave them (a Spark table stays in Spark), each with its own
    intake. ``lazy``: an input is a LazyFrame,
    so the result stays lazy where the engine can, and no coverage warning is given (it
    would run the query). ``con``: the engine's connection (a DuckDB connection, a
    SparkSession), or None for its default.
    """

    run: Any
    qrels: Any
    measures: tuple[Measure, ...]
    per_query: bool = False
    relevance_level: int = 1
    missing: Missing = "skip"
    max_depth: int | None = None
    judged_only: bool = False
    ties: EvalTies = "trec_eval"
    residuals: bool = False
    validate: bool = True
    lazy: bool = False
    con: Any = None
    no_relevant: NoRelevant = "zero"
    inputs: Inputs | None = None

    @property
    def parsed(self) -> list[Measure]:
        return list(self.measures)

    @property
    def checked(self) -> Inputs:
        """The inputs read and checked at the front door (engines that take them)."""
        assert self.inputs is not None, "evaluate reads the inputs for this engine"
        return self.inputs

    @property
    def warn(self) -> bool:
        """Whether to emit coverage warnings (eager inputs)."""
        return not self.lazy


class Engine(Protocol):
    """An engine: evaluates a request, returning a frame of the engine's kind (a Polars
    DataFrame or LazyFrame, a Spark DataFrame) with the columns of
    :func:`polars_ireval.results.long_result`."""

    def __call__(self, request: Request) -> Any: ...


def refuse_average(request: Request, engine: str) -> None:
    """Raise :class:`ParameterError` for ``ties="average"`` handed to an engine that does
    not make the orders of the tied documents itself (Spark: :func:`polars_ireval.evaluate`
    makes them in Polars, see :func:`polars_ireval.engines.average.evaluate_spark`)."""
    if request.ties == AVERAGE:
        raise ParameterError(
            f"ties='average' (the expected value over every order of tied documents) is "
            f"not evaluated by the engine={engine!r} module itself; call "
            f"polars_ireval.evaluate(..., engine={engine!r}, ties='average'), or pass "
            "another tie policy"
        )


def refuse_average_residuals(residuals: bool) -> None:
    """Raise :class:`ParameterError` for ``ties="average"`` with ``residuals=True``."""
    if residuals:
        raise ParameterError(
            "ties='average' gives expected values without residuals; pass residuals=False "
            "(or another tie policy for residuals)"
        )


# --------------------------------------------------------------------------- eager inputs

#: The column numbering a run's rows in input order, for ``ties="input_order"`` in SQL.
INPUT_ORDER = "input_order"


def run_frame(run: Frame, ties: str) -> pl.DataFrame:
    """A checked run (:class:`~polars_ireval.io.intake.Inputs`' ``run``) in memory, with the
    columns the SQL judge reads (``input_rank`` for ``ties="rank"``, ``input_order`` for
    ``ties="input_order"``)."""
    run_df = collect(run.lazy(), run)
    keys = [S.RUN_ID, S.QUERY_ID] if S.RUN_ID in run_df.columns else [S.QUERY_ID]
    cols = [*keys, S.DOC_ID, S.SCORE]
    if ties == "rank":
        cols.append(INPUT_RANK)
    run_df = run_df.select(cols)
    if ties == "input_order":
        run_df = run_df.with_row_index(INPUT_ORDER).with_columns(pl.col(INPUT_ORDER).cast(pl.Int64))
    return run_df


def qrels_frame(qrels: Frame) -> pl.DataFrame:
    """Checked qrels (:class:`~polars_ireval.io.intake.Inputs`' ``qrels``) in memory."""
    frame = collect(qrels.lazy(), qrels)
    return frame.select(S.QUERY_ID, S.DOC_ID, S.RELEVANCE)


def check_missing(run: pl.DataFrame, qrels: pl.DataFrame) -> None:
    """Raise :class:`MissingQueryError` when a judged query has no ranking in the run
    (``missing="error"``)."""
    inputs = Inputs(run, qrels)
    keys = inputs.keys
    cov = collect(coverage_of(present_rankings(inputs), qrels.lazy()), run)
    absent = cov.filter(~pl.col("in_run")).sort(keys)
    if absent.height:
        sample = ", ".join(str(r) for r in absent.select(keys).head(5).rows())
        raise MissingQueryError(
            f"{absent.height} judged (run, query) pair(s) have no ranking in the run, "
            f"e.g. {sample}; pass missing='skip' to ignore them or missing='zero' to "
            "score them 0"
        )


def rank_by_of(qrels: pl.DataFrame, sparse: float | None = None) -> str:
    """:func:`polars_ireval.sql.compile.rank_by` for a qrels frame."""
    return rank_by(qrels.height, qrels.get_column(S.QUERY_ID).n_unique(), sparse)


def check_coverage(
    present: pl.LazyFrame,
    qrels: pl.LazyFrame,
    measures: list[Measure],
    *,
    relevance_level: int,
    missing: Missing,
    warn: bool,
    no_relevant: NoRelevant,
    stacklevel: int,
) -> None:
    """Warn of the rankings left out (``warn``) and raise for those without relevant
    documents (``no_relevant="error"``), as :func:`polars_ireval.evaluate` does on every
    engine: ``present``, the distinct rankings (``[run_id,] query_id``) evaluated;
    ``stacklevel``, that of :func:`~polars_ireval.results.warn_coverage`'s warning."""
    cov = collect(coverage_of(present, qrels))
    pairs = no_relevant_pairs(
        cov, qrels, measures, relevance_level=relevance_level, missing=missing
    )
    if no_relevant == "error":
        raise_no_relevant(pairs)
    if warn:
        note = no_relevant_note(pairs, no_relevant)
        warn_coverage(cov, missing, stacklevel=stacklevel, no_relevant=note)


# --------------------------------------------------------------------------- memory

#: Bytes per generated position of a C/W/L measure (its user model's vectors), per engine:
#: the bundled example (25 rankings), INST@1000000 took 2.2 GB of peak RSS above the
#: process's on Polars (2 threads; 1.2 GB on 1, 3.8 GB on 16: each thread holds its
#: rankings' vectors), 2.0 GB on DuckDB; INST, TBG, INSQ, U and BPM at 10^6 together 2.2
#: GB on Polars (one after the other) and 6.7 GB on DuckDB (one query each, summed).
POSITION_BYTES = {"polars": 100, "duckdb": 80}
#: Residuals build the best case's vectors too: 2.8 GB instead of 2.2 (INST@1000000).
RESIDUAL_FACTOR = 1.5


def positions_estimate(
    measures: list[Measure], rankings: int, *, engine: str, residuals: bool = False
) -> tuple[int, int, int]:
    """The bytes of the C/W/L measures' position vectors (:func:`model_positions`) over
    ``rankings`` rankings: (estimate, positions per ranking, threads).

    Polars evaluates the measures one after the other, each thread building whole
    rankings' vectors, so the deepest measure counts; DuckDB runs one query a measure,
    so their depths add up. Estimate: positions x (rankings + threads) x
    :data:`POSITION_BYTES` (x :data:`RESIDUAL_FACTOR` with residuals).
    """
    depths = [model_positions(m) for m in measures]
    if not any(depths):
        return 0, 0, 0
    per = max(depths) if engine == "polars" else sum(depths)
    threads = pl.thread_pool_size() if engine == "polars" else (os.cpu_count() or 1)
    bytes_ = per * (rankings + threads) * POSITION_BYTES[engine]
    return int(bytes_ * (RESIDUAL_FACTOR if residuals else 1.0)), per, threads


def check_positions(
    measures: list[Measure],
    run: pl.DataFrame | pl.LazyFrame,
    qrels: pl.DataFrame | pl.LazyFrame,
    *,
    engine: str,
    missing: Missing,
    residuals: bool,
) -> None:
    """Raise :class:`~polars_ireval.errors.ResourceError` before an evaluation whose C/W/L
    measures would build more position vectors than the memory budget holds
    (:func:`positions_estimate`).

    The rankings are counted on an eager run (known from its validation, or one pass over
    the ranking keys when the rows alone do not settle it), plus, with ``missing="zero"``,
    each run's judged queries; a lazy run is not collected: the estimate then counts one
    ranking, the depth alone.
    """
    if not any(model_positions(m) for m in measures):
        return
    if isinstance(run, pl.DataFrame):
        keys = [S.RUN_ID, S.QUERY_ID] if S.RUN_ID in run.columns else [S.QUERY_ID]
        zero = missing == "zero"
        count = run.height  # at least one row per ranking: an upper bound, for free
        bound = positions_estimate(measures, count, engine=engine, residuals=residuals)[0]
        if zero or bound > memory_budget():
            ranked = rankings(run, keys)[0]
            count = ranked.height
            if zero and isinstance(qrels, pl.DataFrame):  # each run scores every judged query
                runs = ranked.get_column(S.RUN_ID).n_unique() if S.RUN_ID in keys else 1
                judged = qrels.get_column(S.QUERY_ID).unique()
                either = pl.concat([judged, ranked.get_column(S.QUERY_ID)]).n_unique()
                count = min(count + runs * judged.len(), runs * either)
        what = f"{count:,} ranking{'s' if count != 1 else ''}"
    else:
        count, what = 1, "each ranking (the run is lazy: its rankings are not counted)"
    estimate, per, threads = positions_estimate(measures, count, engine=engine, residuals=residuals)
    deep = max(measures, key=model_positions)
    require(
        f"{deep.label} on {what}",
        estimate,
        how=f"{per:,} positions a ranking x ({count:,} rankings + {threads} threads) x "
        f"{POSITION_BYTES[engine]} bytes{', x 1.5 for residuals' if residuals else ''}",
        fix=f"lower the depth (e.g. {deep.name}@1000, cwl_eval's default), evaluate fewer "
        "rankings at a time (polars_ireval.evaluate_out_of_core, ireval --chunks)",
    )


#: Bytes per measure of one evaluation's query plan (Polars, one expression graph for
#: all the measures): 36 KB for P@k to 226 KB for nDCG@k measured on 1,000-10,000 cut-offs
#: of the bundled example, plus :data:`PAIR_BYTES` per pair of measures in one call
#: (nDCG@1..3000 in one call: 2.4 GB).
PLAN_BYTES = 256 * 2**10
PAIR_BYTES = 200
#: Bytes per value (measure x ranking) of the per-query frames: 250 measured by
#: :func:`polars_ireval.analysis.pir` on 2,000 sessions (4,000 rankings) x nDCG@1..1000 (1.4 GB).
VALUE_BYTES = 250


def measures_estimate(count: int, rankings: int, *, batch: int) -> int:
    """The bytes of evaluating ``count`` measures over ``rankings`` rankings on the Polars
    engine, ``batch`` measures a call: count x (:data:`PLAN_BYTES` + :data:`PAIR_BYTES` x
    batch) for the plans, count x rankings x :data:`VALUE_BYTES` for the values. For the
    callers that make the measures from a range the user gives (cut-offs, depths)."""
    return count * (PLAN_BYTES + PAIR_BYTES * min(batch, count)) + count * rankings * VALUE_BYTES


def ranking_count(run: pl.DataFrame | pl.LazyFrame) -> int | None:
    """The rankings of a run frame (free for a frame the readers validated), None when
    lazy (not collected)."""
    if not isinstance(run, pl.DataFrame):
        return None
    keys = [S.RUN_ID, S.QUERY_ID] if S.RUN_ID in run.columns else [S.QUERY_ID]
    return rankings(run, keys)[0].height
