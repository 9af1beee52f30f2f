"""``volatility``: how much the ordering of the runs moves with the evaluation depth.

:func:`volatility` reads a curve of :func:`polars_ireval.depth_curve` (seed 000,
``../shared/seeds/000_*``): per measure, Kendall's tau-b between the ordering of the runs
at each depth and at a reference depth; per run, how often its position changes from one
depth to the next; and the pairs of runs whose order each depth overturns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from polars_ireval._base import schema as S
from polars_ireval._base.numeric import RELATIVE_TOLERANCE, snap
from polars_ireval._base.options import check_positive_int
from polars_ireval.errors import (
    DuplicateError,
    EmptyInputError,
    ParameterError,
    SchemaError,
    ScoreError,
)
from polars_ireval.measures.depth import DEPTH
from polars_ireval.results import MEASURE, VALUE

__all__ = ["Volatility", "volatility"]


@dataclass(frozen=True)
class Volatility:
    """What :func:`volatility` computed from a depth curve.

    Attributes
    ----------
    tau : polars.DataFrame
        One row per measure and depth: ``measure, depth, tau, overturned, runs``: Kendall's
        tau-b between the runs' scores at that depth and at the reference depth
        (``scipy.stats.kendalltau(at_depth, at_reference)``; NaN where either side scores
        every run alike), the number of pairs of runs whose order the depth reverses, and
        the number of runs.
    changes : polars.DataFrame
        One row per run and measure: ``run_id, measure, changes, position``: how many
        times the run's position among the runs changes from one depth of the curve to the
        next, and its position at the reference depth.
    positions : polars.DataFrame
        ``measure, depth, run_id, position``: the run's position at each depth, 1 for the
        best; tied runs share the better position (1 + the runs scoring strictly more).
    overturned : polars.DataFrame
        ``measure, depth, run_a, run_b``: each pair of runs whose order at that depth is
        the reverse of their order at the reference depth: ``run_a`` scores strictly more
        than ``run_b`` at the reference depth and strictly less at this one (a pair tied
        on one side is not counted).
    reference_depth : int
        The depth whose ordering the others are compared with.
    """

    tau: pl.DataFrame
    changes: pl.DataFrame
    positions: pl.DataFrame
    overturned: pl.DataFrame
    reference_depth: int


_CURVE_COLUMNS = (S.RUN_ID, MEASURE, DEPTH, VALUE)
_CHUNK = 1 << 22  # (depths x pairs) signs computed at once


def _curve_frame(curve: Any) -> pl.DataFrame:
    if isinstance(curve, pl.LazyFrame):
        curve = curve.collect()
    if not isinstance(curve, pl.DataFrame):
        raise ParameterError(
            f"volatility takes the frame depth_curve returns, not {type(curve).__name__}"
        )
    missing = [c for c in _CURVE_COLUMNS if c not in curve.columns]
    if missing:
        raise ParameterError(
            f"the curve has no column {', '.join(map(repr, missing))} (columns: "
            f"{curve.columns}); volatility reads run_id, measure, depth, value: pass "
            "ir.depth_curve(runs, qrels, measures, depths=...) (per run, not per query)"
        )
    if S.QUERY_ID in curve.columns:
        raise ParameterError(
            "the curve has a query_id column (per_query=True); volatility orders runs by "
            "their mean over queries: pass depth_curve(..., per_query=False)"
        )
    if not curve.schema[VALUE].is_numeric() or not curve.schema[DEPTH].is_integer():
        raise SchemaError(
            f"the curve's value column holds {curve.schema[VALUE]} and its depth column "
            f"{curve.schema[DEPTH]}; they must be numbers and integers"
        )
    if curve.height == 0:
        raise EmptyInputError(
            "the curve holds no row: nothing to order; pass the frame of "
            "ir.depth_curve(runs, qrels, measures, depths=...)"
        )
    bad = curve.filter(~pl.col(VALUE).cast(pl.Float64).is_finite().fill_null(False))
    if bad.height:
        row = bad.row(0, named=True)
        raise ScoreError(
            f"the curve holds {bad.height} value(s) that are not finite numbers (NaN, "
            f"infinite or null), e.g. run {row[S.RUN_ID]!r}, {row[MEASURE]!r} at depth "
            f"{row[DEPTH]}: {row[VALUE]}; fix or drop those runs before comparing orderings"
        )
    dup = curve.group_by(S.RUN_ID, MEASURE, DEPTH, maintain_order=True).len()
    dup = dup.filter(pl.col("len") > 1)
    if dup.height:
        row = dup.row(0, named=True)
        raise DuplicateError(
            f"the curve holds {row['len']} values for run {row[S.RUN_ID]!r}, "
            f"{row[MEASURE]!r} at depth {row[DEPTH]}; give one value per run, measure and "
            "depth (one campaign's depth_curve)"
        )
    return curve.select(
        pl.col(S.RUN_ID).cast(pl.String),
        pl.col(MEASURE).cast(pl.String),
        pl.col(DEPTH).cast(pl.Int64),
        pl.col(VALUE).cast(pl.Float64),
    )


def _matrix(frame: pl.DataFrame, measure: str) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The runs (sorted), the depths (sorted) and the values (depths x runs) of a measure."""
    runs = frame[S.RUN_ID].unique().sort().to_list()
    depths = np.sort(frame[DEPTH].unique().to_numpy())
    if len(runs) < 2:
        raise ParameterError(
            f"{measure!r}: the curve scores {len(runs)} run ({runs}); the volatility of an "
            "ordering needs at least 2 runs"
        )
    if frame.height != len(runs) * len(depths):
        have = frame.group_by(S.RUN_ID).len().sort("len").row(0)
        raise ParameterError(
            f"{measure!r}: run {have[0]!r} has {have[1]} of the curve's {len(depths)} depths; "
            "every run needs a value at every depth (one depth_curve of all the runs)"
        )
    run_idx = pl.Series(frame[S.RUN_ID]).cast(pl.Enum(runs)).to_physical().to_numpy()
    depth_idx = np.searchsorted(depths, frame[DEPTH].to_numpy())
    values = np.empty((len(depths), len(runs)))
    values[depth_idx, run_idx] = frame[VALUE].to_numpy()
    return runs, depths, values


def _signs(values: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    return np.sign(values[..., i] - values[..., j]).astype(np.int8)


def volatility(curve: Any, reference_depth: int = 1000) -> Volatility:
    """How much the ordering of the runs moves with the evaluation depth (seed 000).

    Parameters
    ----------
    curve
        A :func:`depth_curve` frame, per run (``run_id, measure, depth, value``; eager or
        lazy; other columns are ignored). Every run needs a value at every depth of each
        measure.
    reference_depth
        The depth whose ordering the others are compared with (the seed's "eventual system
        ordering", k = 1000); one of the curve's depths.

    Returns
    -------
    Volatility
        Frames ``tau`` (per measure and depth), ``changes`` (per run and measure),
        ``positions`` and ``overturned`` (pairs of runs); see :class:`Volatility`.

    Raises
    ------
    ParameterError
        Missing columns, a per-query curve, ``reference_depth`` not among the depths, fewer
        than 2 runs, a run missing depths.
    ScoreError
        A value that is NaN, infinite or null (naming its run, measure and depth).
    DuplicateError
        Two values for one run, measure and depth.
    EmptyInputError
        A curve without rows.

    Notes
    -----
    Tau-b is computed for all depths at once, from the signs of the score differences of
    every pair of runs (concordant minus discordant over the square roots of the untied
    pairs, as ``scipy.stats.kendalltau`` computes it); the tests check it against scipy.
    Scores within rounding error of each other at one depth (1e-14 of the larger of two,
    :data:`polars_ireval._base.numeric.RELATIVE_TOLERANCE`) are tied, as in exact arithmetic:
    a mean of the same per-query scores summed in another order differs in its last bits.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> curve = pl.DataFrame({"run_id": ["a", "b", "c"] * 2, "measure": "AP",
    ...                       "depth": [10] * 3 + [100] * 3,
    ...                       "value": [0.3, 0.2, 0.1, 0.3, 0.4, 0.2]})
    >>> v = ir.volatility(curve, reference_depth=100)
    >>> v.tau
    shape: (2, 5)
    ┌─────────┬───────┬──────────┬────────────┬──────┐
    │ measure ┆ depth ┆ tau      ┆ overturned ┆ runs │
    │ ---     ┆ ---   ┆ ---      ┆ ---        ┆ ---  │
    │ str     ┆ i64   ┆ f64      ┆ u32        ┆ u32  │
    ╞═════════╪═══════╪══════════╪════════════╪══════╡
    │ AP      ┆ 10    ┆ 0.333333 ┆ 1          ┆ 3    │
    │ AP      ┆ 100   ┆ 1.0      ┆ 0          ┆ 3    │
    └─────────┴───────┴──────────┴────────────┴──────┘
    >>> v.overturned
    shape: (1, 4)
    ┌─────────┬───────┬───────┬───────┐
    │ measure ┆ depth ┆ run_a ┆ run_b │
    │ ---     ┆ ---   ┆ ---   ┆ ---   │
    │ str     ┆ i64   ┆ str   ┆ str   │
    ╞═════════╪═══════╪═══════╪═══════╡
    │ AP      ┆ 10    ┆ b     ┆ a     │
    └─────────┴───────┴───────┴───────┘
    >>> v.changes.sort("run_id")["changes"].to_list()
    [1, 1, 0]
    """
    check_positive_int("reference_depth", reference_depth, what="one of the curve's depths")
    frame = _curve_frame(curve)
    measures = frame[MEASURE].unique(maintain_order=True).to_list()
    from scipy import stats

    taus, changes, positions, overturned = [], [], [], []
    for measure in measures:
        runs, depths, values = _matrix(frame.filter(pl.col(MEASURE) == measure), measure)
        # scores equal up to rounding error tie (at each depth)
        values = snap(values, np.abs(values), RELATIVE_TOLERANCE)
        at = np.flatnonzero(depths == reference_depth)
        if not at.size:
            raise ParameterError(
                f"reference_depth={reference_depth} is not a depth of {measure!r}'s curve "
                f"(its {depths.size} depths run from {depths[0]} to {depths[-1]}); pass one of "
                f"them, e.g. reference_depth={int(depths[-1])}"
            )
        n = len(runs)
        i, j = np.triu_indices(n, 1)
        reference = _signs(values[at[0]], i, j)
        total = i.size
        ytie = int((reference == 0).sum())
        tau = np.empty(depths.size)
        reversed_ = np.empty(depths.size, dtype=np.int64)
        pair_depth, pair_a, pair_b = [], [], []
        step = max(1, _CHUNK // max(total, 1))
        for start in range(0, depths.size, step):
            block = _signs(values[start : start + step], i, j)
            product = block * reference
            con_minus_dis = product.sum(axis=1, dtype=np.int64)
            xtie = (block == 0).sum(axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                t = con_minus_dis / np.sqrt(total - xtie) / np.sqrt(total - ytie)
            t = np.where((xtie == total) | (ytie == total), np.nan, np.clip(t, -1.0, 1.0))
            tau[start : start + step] = t
            flips = product < 0
            reversed_[start : start + step] = flips.sum(axis=1)
            d_idx, p_idx = np.nonzero(flips)
            ahead = reference[p_idx] > 0
            pair_depth.append(depths[start + d_idx])
            pair_a.append(np.where(ahead, i[p_idx], j[p_idx]))
            pair_b.append(np.where(ahead, j[p_idx], i[p_idx]))
        taus.append(
            pl.DataFrame(
                {
                    MEASURE: measure,
                    DEPTH: depths,
                    "tau": tau,
                    "overturned": reversed_.astype(np.uint32),
                    "runs": np.full(depths.size, n, dtype=np.uint32),
                }
            )
        )
        # position: 1 + the runs scoring strictly more (ties share the better position)
        position = stats.rankdata(-values, method="min", axis=1).astype(np.int64)
        names = pl.Series(runs, dtype=pl.String)
        changes.append(
            pl.DataFrame(
                {
                    S.RUN_ID: names,
                    MEASURE: measure,
                    "changes": (position[1:] != position[:-1]).sum(axis=0).astype(np.uint32),
                    "position": position[at[0]].astype(np.uint32),
                }
            )
        )
        positions.append(
            pl.DataFrame(
                {
                    MEASURE: measure,
                    DEPTH: np.repeat(depths, n),
                    S.RUN_ID: names.gather(np.tile(np.arange(n), depths.size)),
                    "position": position.ravel().astype(np.uint32),
                }
            )
        )
        overturned.append(
            pl.DataFrame(
                {
                    MEASURE: pl.Series([measure]).gather(
                        np.zeros(sum(a.size for a in pair_a), dtype=np.int64)
                    ),
                    DEPTH: np.concatenate(pair_depth).astype(np.int64),
                    "run_a": names.gather(np.concatenate(pair_a)),
                    "run_b": names.gather(np.concatenate(pair_b)),
                }
            )
        )
    return Volatility(
        tau=pl.concat(taus),
        changes=pl.concat(changes),
        positions=pl.concat(positions),
        overturned=pl.concat(overturned),
        reference_depth=int(reference_depth),
    )
