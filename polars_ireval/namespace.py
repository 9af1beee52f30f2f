"""The ``ireval`` namespace on Polars DataFrames and LazyFrames.

It works on an evaluation table (the output of :func:`polars_ireval.judge`) and returns
one row per (run, query) with a column named after the measure. Each method is thin sugar
over the free function of the same name, which returns a ``pl.Expr``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Generic, TypeVar

import polars as pl

from polars_ireval import measures as M
from polars_ireval.judge import group_keys
from polars_ireval.parse import MeasureLike, parse_measures

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


class _IrevalNamespace(Generic[FrameT]):
    def __init__(self, frame: FrameT) -> None:
        self._frame: FrameT = frame

    def _per_query(self, expr: pl.Expr) -> FrameT:
        keys = group_keys(self._frame)
        return self._frame.group_by(keys).agg(expr).sort(keys)

    def measures(
        self, measures: MeasureLike | list[MeasureLike], *, relevance_level: int = 1
    ) -> FrameT:
        """Any measures by string, one column each (``ev.ireval.measures("P@5 nDCG@10")``)."""
        from polars_ireval.evaluate import per_query_columns

        parsed = parse_measures(measures)
        wide = per_query_columns(self._frame, parsed, relevance_level=relevance_level)
        return wide.sort(group_keys(self._frame))

    def precision(self, *, k: int, rel: int = 1) -> FrameT:
        """P@k per query; see :func:`polars_ireval.precision`."""
        return self._per_query(M.precision(k=k, rel=rel))

    def recall(self, *, k: int, rel: int = 1) -> FrameT:
        """R@k per query; see :func:`polars_ireval.recall`."""
        return self._per_query(M.recall(k=k, rel=rel))

    def ap(self, *, k: int | None = None, rel: int = 1, norm: str = "R") -> FrameT:
        """AP (AP@k) per query, normalised by R, min(k, R) or the relevant documents found
        (``norm="R" | "min" | "self"``); see :func:`polars_ireval.ap`."""
        return self._per_query(M.ap(k=k, rel=rel, norm=norm))

    def rr(self, *, k: int | None = None, rel: int = 1) -> FrameT:
        """Reciprocal rank per query; see :func:`polars_ireval.rr`."""
        return self._per_query(M.rr(k=k, rel=rel))

    def ndcg(
        self,
        *,
        k: int | None = None,
        gain: str = "linear",
        discount: str = "log2",
        gains: Mapping[int, float] | None = None,
    ) -> FrameT:
        """nDCG (nDCG@k) per query; see :func:`polars_ireval.ndcg`."""
        return self._per_query(M.ndcg(k=k, gain=gain, discount=discount, gains=gains))

    def dcg(
        self,
        *,
        k: int | None = None,
        norm: str = "none",
        gain: str = "linear",
        discount: str = "log2",
    ) -> FrameT:
        """DCG (DCG@k) per query, normalised by ``norm`` (``"none"``, ``"scaled"``,
        ``"ideal"``, ``"self"``); see :func:`polars_ireval.dcg`."""
        return self._per_query(M.dcg(k=k, norm=norm, gain=gain, discount=discount))

    def sdcg(self, *, k: int, max_rel: int = 1) -> FrameT:
        """Scaled DCG@k per query; see :func:`polars_ireval.sdcg`."""
        return self._per_query(M.sdcg(k=k, max_rel=max_rel))

    def err(self, *, k: int | None = None, max_rel: int = 4) -> FrameT:
        """Expected reciprocal rank (ERR@k) per query; see :func:`polars_ireval.err`."""
        return self._per_query(M.err(k=k, max_rel=max_rel))

    def rbp(self, *, p: float = 0.8, k: int | None = None, rel: int = 1) -> FrameT:
        """Rank-biased precision per query; see :func:`polars_ireval.rbp`."""
        return self._per_query(M.rbp(p=p, k=k, rel=rel))

    def inst(self, *, T: float = 1.0, k: int = 1000, rel: int = 1) -> FrameT:
        """INST (cwl_eval) per query; see :func:`polars_ireval.inst`."""
        return self._per_query(M.inst(T=T, k=k, rel=rel))

    def rprec(self, *, rel: int = 1) -> FrameT:
        """R-precision per query; see :func:`polars_ireval.rprec`."""
        return self._per_query(M.rprec(rel=rel))

    def success(self, *, k: int, rel: int = 1) -> FrameT:
        """Success@k per query; see :func:`polars_ireval.success`."""
        return self._per_query(M.success(k=k, rel=rel))


@pl.api.register_dataframe_namespace("ireval")
class DataFrameIreval(_IrevalNamespace[pl.DataFrame]):
    """``df.ireval``: measures per query on an evaluation table (see :func:`judge`)."""


@pl.api.register_lazyframe_namespace("ireval")
class LazyFrameIreval(_IrevalNamespace[pl.LazyFrame]):
    """``lf.ireval``: lazy measures per query on an evaluation table (see :func:`judge`)."""
