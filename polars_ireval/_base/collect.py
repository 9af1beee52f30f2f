"""How the package collects its own Polars queries.

A query reading small eager frames is collected by Polars' in-memory engine, whose start
costs less than the streaming engine's; any other query as Polars chooses (``"auto"``,
the streaming engine in Polars 2). The engine changes the time, never the result.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import polars as pl

#: Below this many rows, an eager input is small. Polars 2.1, the same values: the
#: evaluation of the bundled example's 7,500 rows and 5 measures took 16.5 ms in memory
#: against 19.2 streaming, CAsT's 81,112 rows 31 against 36 ms, 332,578 rows of TREC-COVID
#: 30 against 35 ms; from a few million rows up the streaming engine is the faster
#: (TREC-COVID's 3.5M rows: 205 against 258 ms; the benchmarks' 5-7M rows: 10-40% less
#: time). An evaluation of 4 measures on 8 rows made 7 small queries besides its own:
#: 12.3 -> 9.0 CPU ms a call with all of them in memory.
IN_MEMORY_ROWS = 1_000_000

_SMALL: ContextVar[bool] = ContextVar("polars_ireval_small_inputs", default=False)


def small(*frames: Any) -> bool:
    """Whether each of ``frames`` is an eager DataFrame of fewer than
    :data:`IN_MEMORY_ROWS` rows."""
    return all(isinstance(f, pl.DataFrame) and f.height < IN_MEMORY_ROWS for f in frames)


@contextmanager
def small_inputs(*frames: Any) -> Iterator[None]:
    """Within the block, :func:`collect` takes the in-memory engine when ``frames`` (the
    inputs of a call, which its queries read) are small, or an enclosing block's were."""
    token = _SMALL.set(_SMALL.get() or small(*frames))
    try:
        yield
    finally:
        _SMALL.reset(token)


def collect(query: pl.LazyFrame, *inputs: Any) -> pl.DataFrame:
    """``query.collect()``, on the in-memory engine when ``inputs`` (the eager frames the
    query reads, if given) are small or within a :func:`small_inputs` block of small
    inputs.

    >>> import polars as pl
    >>> frame = pl.DataFrame({"a": [1, 2, 3]})
    >>> collect(frame.lazy().select(pl.col("a").sum()), frame).item()
    6
    """
    if _SMALL.get() or (inputs and small(*inputs)):
        return query.collect(engine="in-memory")
    return query.collect(engine="auto")
