"""What every engine receives: one :class:`Request`, validated and parsed once by
:func:`polars_ireval.evaluate`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import polars as pl

from polars_ireval import schema as S
from polars_ireval._collect import collect
from polars_ireval.errors import MissingQueryError, ParameterError
from polars_ireval.judge import (
    AVERAGE,
    INPUT_RANK,
    EvalTies,
    Missing,
    as_qrels,
    as_run,
    coverage,
    coverage_of,
)
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

    The options are already checked and the measures parsed; the inputs are as the user
    gave them (a frame, a path, a Spark table), each engine reading and validating them
    its own way. ``lazy``: an input is a LazyFrame, so the result stays lazy where the
    engine can, and no coverage warning is given (it would run the query). ``con``: the
    engine's connection (a DuckDB connection, a SparkSession), or None for its default.
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

    @property
    def parsed(self) -> list[Measure]:
        return list(self.measures)

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


def run_frame(run: Any, ties: str, *, validate: bool = True) -> pl.DataFrame:
    """The run as the Polars readers validate it, with the columns the SQL judge reads
    (``input_rank`` for ``ties="rank"``, ``input_order`` for ``ties="input_order"``)."""
    run_df = collect(as_run(run, ties=ties, validate=validate).lazy(), run)
    keys = [S.RUN_ID, S.QUERY_ID] if S.RUN_ID in run_df.columns else [S.QUERY_ID]
    cols = [*keys, S.DOC_ID, S.SCORE]
    if ties == "rank":
        cols.append(INPUT_RANK)
    run_df = run_df.select(cols)
    if ties == "input_order":
        run_df = run_df.with_row_index(INPUT_ORDER).with_columns(pl.col(INPUT_ORDER).cast(pl.Int64))
    return run_df


def qrels_frame(qrels: Any, *, validate: bool = True) -> pl.DataFrame:
    """The qrels as the Polars readers validate them."""
    frame = collect(as_qrels(qrels, validate=validate).lazy(), qrels)
    return frame.select(S.QUERY_ID, S.DOC_ID, S.RELEVANCE)


def check_missing(run: pl.DataFrame, qrels: pl.DataFrame) -> None:
    """Raise :class:`MissingQueryError` when a judged query has no ranking in the run
    (``missing="error"``)."""
    keys = [S.RUN_ID, S.QUERY_ID] if S.RUN_ID in run.columns else [S.QUERY_ID]
    absent = coverage(run, qrels).filter(~pl.col("in_run")).sort(keys)
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
