"""The intake: a run and its qrels read and checked once, at the front door, as :class:`Inputs`.

Every public function that takes a run and its qrels (:func:`polars_ireval.evaluate`,
:func:`~polars_ireval.judge`, :func:`~polars_ireval.coverage`,
:func:`~polars_ireval.depth_curve`, :func:`~polars_ireval.tie_sensitivity`...) calls
:func:`intake` (or :func:`intake_run` / :func:`intake_qrels` for one of them) first, and
hands what it returns down: the judge (:func:`polars_ireval.judge.judge_and_rankings`), the
engines and the results layer take :class:`Inputs` and never read or check a run or qrels
themselves. A frame is checked once: a DataFrame the readers returned (or that the intake
checked) is known as checked until it is changed; a LazyFrame gets its checks as part of its
query, run when it is collected, with the errors a DataFrame gets.

Examples
--------
>>> import polars as pl
>>> run = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [1.0], "note": ["x"]})
>>> qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
>>> inputs = intake(run, qrels)
>>> inputs.run.columns, inputs.keys, inputs.lazy
(['query_id', 'doc_id', 'score'], ['query_id'], False)
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval.io import readers as io
from polars_ireval.io import validation as V

Frame = pl.DataFrame | pl.LazyFrame


@dataclass(frozen=True)
class Inputs:
    """A run and its qrels, read and checked (:func:`intake`): what the layers below the
    front door take.

    ``run``: ``[run_id,] query_id, doc_id, score`` (and ``input_rank`` when the run has it),
    ``qrels``: ``query_id, doc_id, relevance``; each a DataFrame checked as the readers
    check, or a LazyFrame whose query checks it when collected.
    """

    run: Frame
    qrels: Frame

    @property
    def lazy(self) -> bool:
        """Whether either input is a LazyFrame (the result then stays lazy)."""
        return isinstance(self.run, pl.LazyFrame) or isinstance(self.qrels, pl.LazyFrame)

    @property
    def keys(self) -> list[str]:
        """The columns that identify one ranking: ``[run_id,] query_id``."""
        names = self.run.collect_schema().names()
        return [S.RUN_ID, S.QUERY_ID] if S.RUN_ID in names else [S.QUERY_ID]


def intake(run: Any, qrels: Any, *, ties: str = "trec_eval", validate: bool = True) -> Inputs:
    """Read and check ``run`` and ``qrels`` (frames, paths, dicts: anything
    :func:`polars_ireval.read_run` and :func:`~polars_ireval.read_qrels` take), the run
    first: when both are wrong, the run's error is raised, eager or lazy. With a lazy run, a
    qrels DataFrame not yet checked is checked in the lazy query too, after the run (a lazy
    query runs its branches in any order). ``ties="rank"`` needs the run's ``input_rank``;
    ``validate=False`` only casts a LazyFrame (for input already checked)."""
    run_in = intake_run(run, ties=ties, validate=validate)
    if isinstance(run_in, pl.LazyFrame) and validate:
        if isinstance(qrels, pl.DataFrame) and not V.is_validated(qrels):
            qrels = qrels.lazy()
        if isinstance(qrels, pl.LazyFrame):
            return Inputs(run_in, intake_qrels(qrels, after=run_in))
    return Inputs(run_in, intake_qrels(qrels, validate=validate))


def intake_run(run: Any, *, ties: str = "trec_eval", validate: bool = True) -> Frame:
    """``run`` as a canonical frame of the columns the judge reads:
    ``[run_id,] query_id, doc_id, score`` (and ``input_rank`` for ``ties="rank"``).

    Other columns are left out, so that none of the user's (``relevance``, ``rank``,
    ``__block``...) can stand for one of the table's or the library's own. A DataFrame
    is validated (:func:`polars_ireval.validate_run`) unless it was already; a LazyFrame
    is validated as part of its query, when it is collected, with the same errors
    (``validate=False``: only cast, for input already checked).
    """
    if isinstance(run, pl.LazyFrame):
        if _is_canonical(run):
            V.canonical_run_columns(run.collect_schema().names(), ties)
            return run
        return _canonical(V.checked_lazy_run(run, ties=ties, validate=validate))
    if not (isinstance(run, pl.DataFrame) and V.is_validated(run)):
        run = io.read_run(run)
    columns = V.canonical_run_columns(run.columns, ties)
    return run if run.columns == columns else V.narrowed(run, columns)


def intake_qrels(qrels: Any, *, validate: bool = True, after: pl.LazyFrame | None = None) -> Frame:
    """``qrels`` as a canonical frame ``query_id, doc_id, relevance``: validated
    (:func:`polars_ireval.validate_qrels`) when eager and not already; a LazyFrame as part
    of its query, with the same errors (``validate=False``: only cast). ``after``: a lazy
    frame whose query must have run (and raised its errors) before these qrels are checked.
    """
    if isinstance(qrels, pl.LazyFrame):
        if _is_canonical(qrels):
            return qrels
        return _canonical(V.checked_lazy_qrels(qrels, validate=validate, after=after))
    if isinstance(qrels, pl.DataFrame) and V.is_validated(qrels):
        return qrels
    return io.read_qrels(qrels)


# LazyFrames that the intake returned (by id; the weak reference tells a live frame from a
# recycled id), so that a second intake does not check them again.
_CANONICAL: dict[int, weakref.ref[pl.LazyFrame]] = {}


def _canonical(frame: pl.LazyFrame) -> pl.LazyFrame:
    key = id(frame)
    _CANONICAL[key] = weakref.ref(frame, lambda _: _CANONICAL.pop(key, None))
    return frame


def _is_canonical(frame: pl.LazyFrame) -> bool:
    ref = _CANONICAL.get(id(frame))
    return ref is not None and ref() is frame
