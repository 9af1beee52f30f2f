"""A measure at every depth in one pass: what a declaration's ``depth`` hook builds.

Most measures truncated at k (``AP@k``, ``nDCG@k``, ``P@k``...) are a running value over the
ranking (a running sum or product over its ranks) read at rank k, divided by something that
depends on k alone (P), on the query alone (AP's R) or on both (nDCG's ideal DCG at k). A
measure that is so declares it beside its expression and its SQL: ``@measure(...,
depth=hook)``, where ``hook(arguments)`` returns a function filling a :class:`DepthPlan`
with those parts, or None for parameter values it does not take (a discount it has no
running form for, say: :func:`polars_ireval.depth_curve` then evaluates the measure once per
depth). The parts are written with the building blocks of the measure's own expression, the
same terms added in the same order, so that the value read at k is the float
:func:`polars_ireval.evaluate` gives for ``f"{measure}@{k}"``, bit for bit
(``tests/test_stability.py`` checks every measure that declares a hook, at every depth).

The engine (:mod:`polars_ireval.analysis.depth_pass`) computes the parts over one evaluation table:
the retrieved rows of every ranking in rank order (the *events*), per ranking, per query
over its qrels, and over the grid of rankings x depths, where it reads each running value
at the last event ranked at or above the depth.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

#: The columns the engine gives the parts: the ranking's number on the events and on the
#: grid, the number of the event read at a depth (null above the ranking's first event),
#: and the depth k on the grid.
RANKING = "\x00id"
EVENT_RANKING = "\x00eid"
DEPTH = "depth"


class DepthPlan:
    """The parts of one measure at every depth (filled by its declaration's ``depth`` hook).

    ``event``: a running value over each ranking's retrieved rows in rank order, read at each
    depth at the last row ranked at or above it. ``ranking``: an aggregation over a
    ranking's rows. ``query``: an aggregation over a query's judgments, one value or one per
    depth (``per_depth``: a list aligned with :attr:`depths`). ``at_rank``: a list per query
    over its judgments, read on each event at its rank (its last value past its end, 0 when
    empty). ``value`` and ``residual``: the measure at each depth, row expressions over the
    grid, which carries all these columns and the depth :attr:`k`.

    Parameters
    ----------
    order
        The measure's position in the request (its columns' prefix).
    depths
        The depths, as a literal Series expression (for the ``per_depth`` query parts).
    """

    def __init__(self, order: int, depths: pl.Expr) -> None:
        self.prefix = f"\x00m{order}:"
        self.depths = depths
        self.events: dict[str, pl.Expr] = {}
        self.rankings: dict[str, pl.Expr] = {}
        self.queries: dict[str, pl.Expr] = {}
        self.per_depth: list[str] = []
        self.at_ranks: dict[str, pl.Expr] = {}
        self.value: pl.Expr = pl.lit(None, dtype=pl.Float64)
        self.residual: pl.Expr | None = None

    @property
    def k(self) -> pl.Expr:
        """The depth, on the grid."""
        return pl.col(DEPTH)

    @staticmethod
    def running(expr: pl.Expr) -> pl.Expr:
        """``expr`` over each ranking's events in rank order (a ``cum_sum``, say)."""
        return expr.over(RANKING)

    def event(self, name: str, expr: pl.Expr, zero: Any = 0.0) -> pl.Expr:
        """A running value as read at each depth: ``zero`` above the ranking's first event."""
        column = self.prefix + name
        self.events[column] = expr.alias(column)
        return (
            pl.when(pl.col(EVENT_RANKING) == pl.col(RANKING)).then(pl.col(column)).otherwise(zero)
        )

    def ranking(self, name: str, expr: pl.Expr) -> pl.Expr:
        """An aggregation over each ranking's events, on the grid."""
        column = self.prefix + name
        self.rankings[column] = expr.alias(column)
        return pl.col(column)

    def query(self, name: str, expr: pl.Expr, *, per_depth: bool = False) -> pl.Expr:
        """An aggregation over each query's judgments, on the grid (one per depth with
        ``per_depth``: ``expr`` is then a list aligned with :attr:`depths`)."""
        column = self.prefix + name
        self.queries[column] = expr.alias(column)
        if per_depth:
            self.per_depth.append(column)
        return pl.col(column)

    def at_rank(self, name: str, values: pl.Expr) -> pl.Expr:
        """``values``, a list per query over its judgments, read on each event at its rank
        (past the list's end its last value; 0.0 for an empty list), for ``event`` parts."""
        column = self.prefix + name
        self.at_ranks[column] = values.alias(column)
        return pl.col(column)


def ratio_by_row(num: pl.Expr, den: pl.Expr) -> pl.Expr:
    """``num / den``, 0 where ``den`` is 0: :func:`polars_ireval.measures._expr.ratio` row
    by row (on the grid, where the two are columns)."""
    return pl.when(den > 0).then(num.cast(pl.Float64) / den).otherwise(0.0)


#: A declaration's depth hook: the measure's arguments (:meth:`Measure.arguments`) to the
#: function that fills its plan, or None when these arguments have no running form.
DepthHook = Callable[[dict[str, Any]], Callable[[DepthPlan], None] | None]
