"""Reading the frames the figures of :mod:`polars_ireval.plot` take: collected, with the
columns a figure needs, cut to one measure, run ids read as :func:`polars_ireval.compare`
reads them and runs in a stated order."""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import polars as pl

from polars_ireval.errors import EmptyInputError, ParameterError, SchemaError

#: The columns of the evaluation frames the figures read.
MEASURE, VALUE, RESIDUAL, PROJECTED = "measure", "value", "residual", "projected"


def eager(frame: Any, what: str) -> pl.DataFrame:
    """``frame`` as a DataFrame (a LazyFrame collected), or a SchemaError naming ``what``."""
    if isinstance(frame, pl.LazyFrame):
        return frame.collect()
    if isinstance(frame, pl.DataFrame):
        return frame
    raise SchemaError(f"{what} takes a Polars DataFrame or LazyFrame, not {type(frame).__name__}")


def require_columns(frame: pl.DataFrame, columns: Sequence[str], what: str, source: str) -> None:
    """A SchemaError naming the ``columns`` that ``frame`` lacks and the function
    (``source``) whose frame ``what`` takes."""
    absent = [c for c in columns if c not in frame.columns]
    if absent:
        raise SchemaError(
            f"{what}: the frame lacks the column(s) {absent} (it has {frame.columns}); "
            f"pass the frame {source} returns"
        )


def one_measure(frame: pl.DataFrame, measure: str | None, what: str) -> tuple[pl.DataFrame, str]:
    """The rows of one measure, and its name."""
    if frame.height == 0:
        raise EmptyInputError(f"{what}: the frame is empty (no rows): nothing to draw")
    if MEASURE not in frame.columns:
        return frame, measure or VALUE
    names = frame[MEASURE].unique(maintain_order=True).to_list()
    if measure is None:
        if len(names) != 1:
            raise ParameterError(
                f"{what}: the frame holds {len(names)} measures {names}; choose one with "
                "measure=..."
            )
        measure = names[0]
    elif measure not in names:
        raise ParameterError(f"{what}: measure={measure!r} is not in the frame, which has {names}")
    return frame.filter(pl.col(MEASURE) == measure), str(measure)


def as_run_id(x: Any, what: str, name: str) -> str:
    """A run id as the frame holds it once read as strings (as :func:`polars_ireval.compare`
    reads them): a str, or an integer read as its decimal text (``1`` names the run
    ``'1'``)."""
    if isinstance(x, str):
        return x
    if isinstance(x, numbers.Integral) and not isinstance(x, bool):
        return str(int(x))
    raise ParameterError(f"{what}: {name}={x!r} is no run id: give a str (or an integer)")


def as_run_ids(run_ids: Any, what: str) -> list[str]:
    """``run_ids=``: run ids, or one (a str is one run id, never its characters)."""
    if isinstance(run_ids, (str, numbers.Integral)):
        run_ids = [run_ids]
    if isinstance(run_ids, Mapping) or not isinstance(run_ids, Iterable):
        raise ParameterError(f"{what}: run_ids={run_ids!r}: give a run id or a list of run ids")
    return [as_run_id(r, what, "run_ids") for r in run_ids]


def ordered_runs(found: Sequence[str], order: Sequence[str] | None, what: str) -> list[str]:
    """``order`` checked against the ids ``found`` (each exactly once), or ``found``."""
    if order is None:
        return list(found)
    if isinstance(order, str):
        raise ParameterError(f"{what}: order={order!r} must be a sequence of run ids, not one")
    order = list(order)
    missing, unknown = set(found) - set(order), set(order) - set(found)
    if missing or unknown or len(order) != len(set(order)):
        raise ParameterError(
            f"{what}: order= must list every run of the frame once; missing "
            f"{sorted(missing)}, unknown {sorted(unknown)}, given {len(order)} for "
            f"{len(found)} runs"
        )
    return order
