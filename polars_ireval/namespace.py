"""The ``ireval`` namespace on Polars DataFrames and LazyFrames.

It works on an evaluation table (the output of :func:`polars_ireval.judge`) and returns
one row per (run, query) with a column named after the measure. Besides ``measures`` (any
measure strings), there is one method per declared measure, generated from the registry:
same name and parameters as the free function, which returns a ``pl.Expr``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import polars as pl

from polars_ireval import measures as M
from polars_ireval._base.options import check_relevance_level
from polars_ireval.engines.polars import per_query_columns
from polars_ireval.judge import check_table, group_keys
from polars_ireval.parse import MeasureLike, parse_measures
from polars_ireval.registry import MeasureDef

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


class _IrevalNamespace(Generic[FrameT]):
    def __init__(self, frame: FrameT) -> None:
        self._frame: FrameT = frame

    def measures(
        self, measures: MeasureLike | list[MeasureLike], *, relevance_level: int = 1
    ) -> FrameT:
        """Any measures by string, one column each (``ev.ireval.measures("P@5 nDCG@10")``).

        The frame must be an evaluation table (:func:`polars_ireval.judge`); its columns,
        ranks and documents are checked, a LazyFrame's when it is collected (see
        :func:`polars_ireval.judge.check_table`).
        """
        check_relevance_level(relevance_level)
        table = check_table(self._frame)
        parsed = parse_measures(measures)
        wide = per_query_columns(table, parsed, relevance_level=relevance_level)
        return wide.sort(group_keys(self._frame))


def _method(free: Callable[..., pl.Expr]) -> Callable[..., Any]:
    """The namespace method of the measure whose free function is ``free``: the same
    parameters, one column per query named by the measure."""
    defn: MeasureDef = free.definition  # type: ignore[attr-defined]

    def method(self: _IrevalNamespace[Any], **params: Any) -> Any:
        return self.measures(defn.bind(params))

    sig = inspect.signature(free)
    this = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    method.__signature__ = sig.replace(  # type: ignore[attr-defined]
        parameters=[this, *sig.parameters.values()], return_annotation="FrameT"
    )
    method.__name__ = method.__qualname__ = free.__name__
    method.__doc__ = (
        f"{defn.name} per query, in a column named by the measure; see "
        f":func:`polars_ireval.{free.__name__}`.\n\n{defn.summary}"
    )
    return method


#: One method per declared measure, named and parametrised as its free function
#: (``df.ireval.ndcg(k=10)`` is ``polars_ireval.ndcg(k=10)`` per query).
for _name in M.__all__:
    setattr(_IrevalNamespace, _name, _method(getattr(M, _name)))


@pl.api.register_dataframe_namespace("ireval")
class DataFrameIreval(_IrevalNamespace[pl.DataFrame]):
    """``df.ireval``: measures per query on an evaluation table (see :func:`judge`)."""


@pl.api.register_lazyframe_namespace("ireval")
class LazyFrameIreval(_IrevalNamespace[pl.LazyFrame]):
    """``lf.ireval``: lazy measures per query on an evaluation table (see :func:`judge`)."""
