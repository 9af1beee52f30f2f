"""Expression building blocks over the evaluation table, for declared and user measures.

All of them are meant for an aggregation context: ``group_by(run_id, query_id).agg(...)``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

import polars as pl

from polars_ireval._base import schema as S

RANK = pl.col(S.RANK)
FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)
REL = pl.col(S.RELEVANCE)

#: Prefix of the columns that carry query statistics (see :func:`query_stat`).
QUERY_STAT = "\x00query:"
_COLLECTED: ContextVar[dict[str, pl.Expr] | None] = ContextVar("query_stats", default=None)


def query_stat(stat: pl.Expr) -> pl.Expr:
    """``stat``, an aggregation over every judgment of the query (retrieved or not), such
    as R or the ideal DCG: it depends on the qrels alone, not on the run.

    Inside :func:`query_stats` (``evaluate`` does this for the measures declared with
    ``qrels_stats=True``), the statistic is computed once per query over the qrels instead
    of once per ranking over the evaluation table, and the expression returned reads it from
    a column of the ranking's statistics row: the table then needs no row for the judged
    documents the run did not retrieve. Elsewhere (a measure on a table from :func:`judge`)
    it is ``stat`` itself.
    """
    collected = _COLLECTED.get()
    if collected is None:
        return stat
    name = QUERY_STAT + hashlib.sha1(stat.meta.serialize()).hexdigest()[:20]
    collected[name] = stat.alias(name)
    return pl.col(name).max()  # the statistics row holds the one non-null value


def collected_stats() -> dict[str, pl.Expr] | None:
    """The dict the innermost :func:`query_stats` is filling, or None outside one."""
    return _COLLECTED.get()


@contextmanager
def query_stats() -> Iterator[dict[str, pl.Expr]]:
    """Collect the :func:`query_stat` of the expressions built inside: yields a dict
    ``{column: aggregation over a query's qrels}``, filled as they are built."""
    collected: dict[str, pl.Expr] = {}
    token = _COLLECTED.set(collected)
    try:
        yield collected
    finally:
        _COLLECTED.reset(token)


Cutoff = int | float | pl.Expr | None


def retrieved(k: Cutoff = None) -> pl.Expr:
    """True for documents ranked (at or above rank ``k`` when given)."""
    if k is None:
        return RANK.is_not_null()
    return (k >= RANK).fill_null(False)


def unit_residual(total: pl.Expr, judged_rows: pl.Expr) -> pl.Expr:
    """The residual of a user model whose weights sum to 1 (RBP, InvSq, cwl_eval's infinite
    models): ``total`` (the weight of the unjudged ranks read plus the tail past them), at
    most 1, and exactly 1 when no row of ``judged_rows`` (the judged documents the model
    reads) is true. A sum of many weights rounds (RBP(p=0.8) over 50 unjudged documents
    sums to 0.9999999999999996, at p=0.95 over 100 to 1.0000000000000002), and with
    nothing judged all of the model's weight is unknown."""
    return pl.when(judged_rows.any()).then(total.clip(upper_bound=1.0)).otherwise(1.0)


def relevant(rel: int) -> pl.Expr:
    """True for judged documents with grade >= ``rel`` (false for unjudged ones)."""
    return (rel <= REL).fill_null(False)


def judged() -> pl.Expr:
    """True for documents present in the qrels, whatever their grade."""
    return REL.is_not_null()


def judged_nonrelevant(rel: int) -> pl.Expr:
    """True for documents judged with a grade in ``[0, rel)`` (trec_eval's judged non-relevant)."""
    return ((REL >= 0) & (rel > REL)).fill_null(False)


def num_rel(rel: int) -> pl.Expr:
    """R: the number of judged documents with grade >= ``rel`` (retrieved or not)."""
    return query_stat(relevant(rel).sum())


def rel_ret(rel: int, k: Cutoff = None) -> pl.Expr:
    """The number of relevant documents retrieved (in the top ``k``)."""
    return (retrieved(k) & relevant(rel)).sum()


def ratio(num: pl.Expr, den: pl.Expr) -> pl.Expr:
    """``num / den`` as float64, 0 where ``den`` is 0 (trec_eval's convention).

    ``num`` and ``den`` are computed once each: they become the fields of a struct, which
    the test and the division read (an aggregation context evaluates an expression that
    appears twice twice, and an ideal DCG, say, is no cheap denominator).

    Examples
    --------
    >>> import polars as pl
    >>> pl.select(ratio(pl.lit(1), pl.lit(4)), ratio(pl.lit(1), pl.lit(0)).alias("z")).row(0)
    (0.25, 0.0)
    """
    n, d = pl.field("num"), pl.field("den")
    fields = pl.struct(num.cast(pl.Float64).alias("num"), den.alias("den"))
    value = pl.when(d > 0).then(n / d).otherwise(0.0).alias("value")
    return fields.struct.with_fields(value).struct.field("value")


def exact_div(num: pl.Expr, den: float) -> pl.Expr:
    """``num / den`` rounded once, as C's ``/`` (and trec_eval) rounds it.

    Polars evaluates an expression divided by a scalar literal as a multiplication by its
    reciprocal, which is one unit in the last place off for most divisors (9 / 1000 gives
    0.009000000000000001) and can flip trec_eval's printed 4th decimal of a mean. Dividing
    by an expression as long as ``num`` takes the exact element-wise division.

    Examples
    --------
    >>> import polars as pl
    >>> pl.select(exact_div(pl.lit(9.0), 1000)).item()
    0.009
    """
    return num / (num * 0.0 + float(den))


def relevant_ranks(rel: int, k: Cutoff = None) -> pl.Expr:
    """Ranks of the relevant retrieved documents (top ``k``), in no particular order."""
    return RANK.filter(retrieved(k) & relevant(rel))


def precision_at_relevant(rel: int, k: Cutoff = None) -> pl.Expr:
    """Precision at the rank of each relevant retrieved document (top ``k``).

    The i-th relevant document, at rank r, contributes i / r; computed from ranks alone,
    so it needs no sorted input.
    """
    ranks = relevant_ranks(rel, k)
    return ranks.rank("ordinal").cast(pl.Float64) / ranks.cast(pl.Float64)


def sum_of_precisions(rel: int, k: Cutoff = None) -> pl.Expr:
    """Σ i / r_i over the relevant retrieved documents (top ``k``), the i-th at rank r_i,
    added in rank order (AP's numerator): one sort of their ranks, no other reordering.

    Examples
    --------
    >>> import polars as pl
    >>> ev = pl.DataFrame({"rank": [1, 2, 3, None], "relevance": [0, 1, 1, 1]})
    >>> ev.select(sum_of_precisions(1)).item() == 1 / 2 + 2 / 3
    True
    """
    # in one list per ranking: the sorted ranks are computed once, not once per use
    i, rank = pl.element().cum_count().cast(pl.Float64), pl.element()
    ranks = relevant_ranks(rel, k).sort().cast(pl.Float64).implode()
    return ranks.list.eval((i / rank).cum_sum().last()).list.first().fill_null(0.0)


def ordered_sum(values: pl.Expr, order: pl.Expr) -> pl.Expr:
    """Sum ``values`` one after another in ascending ``order`` (0 for none).

    trec_eval adds terms in rank order; a pairwise or unordered float sum can differ in the
    last bit and flip a printed 4th decimal (0.09375 vs 0.0937), so sums of measures follow
    the ranking.
    """
    return values.sort_by(order).cum_sum().last().fill_null(0.0)


def count_below(sorted_ranks: pl.Expr, ranks: pl.Expr) -> pl.Expr:
    """For each of ``ranks``, how many of ``sorted_ranks`` (ascending) lie strictly above it."""
    return sorted_ranks.search_sorted(ranks, side="left")


def value_at(cumulative: pl.Expr, count: pl.Expr) -> pl.Expr:
    """The running total after ``count`` items: ``cumulative[count - 1]``, 0 for none."""
    return pl.lit(0.0).append(cumulative.cast(pl.Float64)).gather(count)


def log2_discount(position: pl.Expr) -> pl.Expr:
    """``log2(position + 1)``: 1 at the first rank."""
    return (position.cast(pl.Float64) + 1.0).log(2)


def ideal_positions(gain: pl.Expr) -> pl.Expr:
    """1-based position of each document in the ideal ranking (gain descending)."""
    return gain.rank("ordinal", descending=True)


def judged_graded(k: Cutoff = None) -> pl.Expr:
    """True for documents ranked (at or above rank ``k``) and judged with a grade >= 0:
    the only documents a gain can come from."""
    return retrieved(k) & (REL >= 0).fill_null(False)


def dcg_at_k(gain: Callable[[pl.Expr], pl.Expr], k: Cutoff = None) -> pl.Expr:
    """DCG of the top ``k``: Σ gain(grade) / log2(rank + 1), added in rank order.

    ``gain`` maps a float64 grade expression to the gain. It is applied only to the few
    judged documents in the top ``k``, not to every row of the table, which is what makes
    this fast on large runs; unjudged documents and negative grades gain 0, as trec_eval.
    The sum follows the ranking, so it is the same float as trec_eval's.
    """
    keep = judged_graded(k)
    rank = RANK.filter(keep)
    # terms of gain 0 add 0.0, which changes no sum: cheaper to add than to filter out
    return ordered_sum(gain(REL.filter(keep).cast(pl.Float64)) / log2_discount(rank), rank)


def ideal_dcg_at_k(gain: Callable[[pl.Expr], pl.Expr], k: int | None = None) -> pl.Expr:
    """DCG of the ideal top ``k``: every judged document (retrieved or not) with a positive
    gain, best first, Σ gain / log2(position + 1) added in that order; 0 for none.

    ``gain`` is applied to the judged documents only (see :func:`dcg_at_k`).
    """
    g = gain(REL.filter((REL >= 0).fill_null(False)).cast(pl.Float64))
    ideal = g.filter(g > 0).sort(descending=True)
    if k is not None:
        ideal = ideal.head(k)
    return query_stat((ideal / log2_discount(ideal.cum_count())).cum_sum().last().fill_null(0.0))


# --------------------------------------------------------------------------- tie averages

#: Columns of the evaluation table under ``ties="average"``: the first rank of the group
#: of equal scores a retrieved row belongs to, and the group's size (null when not
#: retrieved). A uniformly random order of the group puts each of its documents at each
#: of the ranks ``TIE_START .. TIE_START + TIE_SIZE - 1`` with probability 1 / TIE_SIZE.
TIE_START = "\x00tie_start"
TIE_SIZE = "\x00tie_size"
_F = pl.Float64


def tie_spans(table: FrameT, keys: list[str]) -> FrameT:
    """``table`` (an evaluation table, any consistent tie order) with :data:`TIE_START`
    and :data:`TIE_SIZE` for each retrieved row: its group is the rows of its ranking
    with the same score (``-0.0`` and ``0.0`` alike)."""
    group = [*keys, (pl.col(S.SCORE) + 0.0).alias("\x00score")]
    ranked = RANK.is_not_null()
    return table.with_columns(
        pl.when(ranked).then(RANK.min().over(group)).cast(_F).alias(TIE_START),
        pl.when(ranked).then(RANK.count().over(group)).cast(_F).alias(TIE_SIZE),
    )


def cut(k: Cutoff, depth: int | None) -> Cutoff:
    """The deepest rank a measure cut at ``k`` reads in a ranking cut at ``depth``."""
    if depth is None:
        return k
    if k is None:
        return depth
    if isinstance(k, pl.Expr):
        return pl.min_horizontal(k.cast(_F), pl.lit(float(depth)))
    return min(k, depth)


def top_rank(k: int | None, depth: int | None) -> int | None:
    """:func:`cut` of an integer cutoff: the smaller of ``k`` and ``depth`` (None for none)."""
    given = [v for v in (k, depth) if v is not None]
    return min(given) if given else None


def tie_share(k: Cutoff = None) -> pl.Expr:
    """Per row: the probability that a random order of its tie puts it at or above rank
    ``k`` (all retrieved rows when None); 0 for a row not retrieved."""
    if k is None:
        return retrieved().cast(_F)
    start, size = pl.col(TIE_START), pl.col(TIE_SIZE)
    k_ = k.cast(_F) if isinstance(k, pl.Expr) else pl.lit(float(k))
    return ((k_ - start + 1.0).clip(0.0, size) / size).fill_null(0.0)


def expected_count(mask: pl.Expr, k: Cutoff = None) -> pl.Expr:
    """The expected number of rows ``mask`` at or above rank ``k`` over tie orders."""
    keep = mask.fill_null(False) & retrieved()
    return ordered_sum(tie_share(k).filter(keep), RANK.filter(keep))


def tie_span_end(keep: pl.Expr, k: int | None) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """For each row ``keep``: its tie's first rank s, its last rank within the top ``k``
    (s - 1 when none is), and the tie's size, as floats: for the weights whose sum over
    ranks s .. e has a closed form (a geometric or telescoping series)."""
    start = pl.col(TIE_START).filter(keep)
    size = pl.col(TIE_SIZE).filter(keep)
    last = start + size - 1.0
    if k is not None:
        last = pl.max_horizontal(start - 1.0, pl.min_horizontal(last, pl.lit(float(k))))
    return start, last, size


def tie_mean_weight(weight: Callable[[pl.Expr], pl.Expr], keep: pl.Expr, k: int | None) -> pl.Expr:
    """For each row ``keep`` (retrieved rows, in table order): Σ weight(i) over the ranks i
    of its tie (at or above ``k``) over the tie's size, the expected weight of its rank.

    ``weight`` maps an Int64 rank expression to a float one with parameters given as
    literals (it is evaluated inside ``list.eval``). One list of the tie's ranks per row:
    filter ``keep`` to the rows that can have a non-zero gain. Sum the products in rank
    order (:func:`ordered_sum` with ``RANK.filter(keep)``), so that the float does not
    depend on the order of the table's rows.
    """
    start = pl.col(TIE_START).filter(keep).cast(pl.Int64)
    size = pl.col(TIE_SIZE).filter(keep)
    end = start + size.cast(pl.Int64)
    if k is not None:
        end = pl.max_horizontal(start, pl.min_horizontal(end, pl.lit(k + 1, dtype=pl.Int64)))
    # the weights of each list added one after the other, in rank order (a constant
    # weight, such as DCG's discount "none", broadcast to the list's ranks first)
    rank = pl.element()
    added = (weight(rank).cast(_F) + rank.cast(_F) * 0.0).cum_sum().last()
    total = pl.int_ranges(start, end).list.eval(added).list.first().fill_null(0.0)
    return total / size
