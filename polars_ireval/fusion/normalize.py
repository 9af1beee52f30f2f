"""Score normalisations of a run, each ranking on its own: what :func:`normalize` and
:func:`polars_ireval.fuse` apply before combining runs.

Each is a Polars expression over one ranking's rows (``run_id, query_id``): min-max and
its inverse, max, sum (Montague and Aslam's: the scores less the minimum, over their
sum), zmuv (zero mean, unit variance, the population standard deviation), rank (1 - i/n
for the document at 0-based position i of n), dbsf (distribution-based score fusion's:
mu - 3 sigma to mu + 3 sigma mapped to 0 to 1, clipped to [0, 1], sigma the population
standard deviation; 0.5 for a ranking whose scores are all equal), borda (over the C
documents any run retrieved for the query: 1 - i/C at position i, and 0.5 - (n - 1)/(2C)
for a document the run's n did not include; it adds those documents to every run) and
none. Otherwise a
ranking whose scores are all equal has a zero denominator: every document then
normalises to 0 (``guard="exact"``, the default), or, as ranx computes it, the
denominator is raised to 1e-9 (``guard="ranx"``):
the two differ only there and for ``max`` of a ranking whose maximum is below 1e-9,
which ``"exact"`` refuses (max-normalisation is for non-negative scores).
"""

from __future__ import annotations

from typing import Literal

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval.errors import ParameterError

Norm = Literal["min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "dbsf", "borda", "none"]
Guard = Literal["exact", "ranx"]
NORMS: tuple[str, ...] = (
    "min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "dbsf", "borda", "none",
)  # fmt: skip
#: The normalisations that read the other runs of the query (their candidates).
ACROSS_RUNS = ("borda",)
GUARDS: tuple[str, ...] = ("exact", "ranx")
#: ranx's floor of every normalisation's denominator (``max(denominator, 1e-9)``).
RANX_FLOOR = 1e-9
#: The rows of one ranking.
RANKING = [S.RUN_ID, S.QUERY_ID]


def check_norm(norm: object) -> str:
    if not isinstance(norm, str) or norm not in NORMS:
        raise ParameterError(f"norm={norm!r} is unknown; use one of {list(NORMS)}")
    return str(norm)


def check_guard(guard: object) -> str:
    if not isinstance(guard, str) or guard not in GUARDS:
        raise ParameterError(
            f"guard={guard!r}: 'exact' (a zero denominator normalises every score to 0) or "
            "'ranx' (ranx's max(denominator, 1e-9))"
        )
    return str(guard)


def _divide(numerator: pl.Expr, denominator: pl.Expr, guard: str) -> pl.Expr:
    if guard == "ranx":
        return numerator / pl.max_horizontal(denominator, pl.lit(RANX_FLOOR))
    return pl.when(denominator == 0.0).then(0.0).otherwise(numerator / denominator)


def norm_expr(norm: str, guard: str = "exact", rank: pl.Expr | None = None) -> pl.Expr:
    """The normalised score of each row of a frame holding ``run_id, query_id, score``
    (``rank``: each row's 1-based position in its ranking, for ``"rank"``)."""
    s = pl.col(S.SCORE)
    low, high = s.min().over(RANKING), s.max().over(RANKING)
    n = pl.len().over(RANKING).cast(pl.Float64)
    if norm == "min-max":
        return _divide(s - low, high - low, guard)
    if norm == "min-max-inverted":
        return _divide(high - s, high - low, guard)
    if norm == "max":
        return _divide(s, high, guard)
    if norm == "sum":
        return _divide(s - low, s.sum().over(RANKING) - low * n, guard)
    if norm == "zmuv":
        return _divide(s - s.mean().over(RANKING), s.std(ddof=0).over(RANKING), guard)
    if norm == "dbsf":
        mu, sigma = s.mean().over(RANKING), s.std(ddof=0).over(RANKING)
        scaled = ((s - (mu - 3.0 * sigma)) / (6.0 * sigma)).clip(0.0, 1.0)
        return pl.when(sigma == 0.0).then(0.5).otherwise(scaled)
    if norm == "rank":
        assert rank is not None
        return 1.0 - (rank.cast(pl.Float64) - 1.0) / n
    return s


def ordered_sum(terms: pl.Expr) -> pl.Expr:
    """The sum of ``terms`` (in a group) added in increasing order: equal sets of terms give
    equal sums whatever the order of the runs, so that documents tied in exact arithmetic
    tie in a fused run (and are ordered by ``ties=``) instead of by rounding. (A plain
    ``sum`` adds in the rows' order; ``sort().sum()`` is simplified to it.) Every fusion
    sum goes through it; the SQL does the same (``fusion_sums`` of ``sql/fusion.sql``)."""
    return terms.sort().cum_sum().last()
