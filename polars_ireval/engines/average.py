"""``ties="average"`` by enumeration: every distinct order of the tied documents of each
ranking, evaluated once by an engine, then averaged.

Under a uniformly random order of each group of tied documents (the documents of one
ranking with equal scores, ``-0.0`` and ``0.0`` alike), a measure's expected value is the
mean of its value over the orders. Every measure reads a document through its judgment
only (its grade, or that it is unjudged: the rank and ``relevance`` columns of the
evaluation table, and the score, equal within a group), so documents of one group with
the same judgment are interchangeable: the expectation is the plain mean over the
*distinct arrangements* of the group's judgments (a multiset permutation is reached by
the same number of permutations of the documents, ``c_1! c_2! ...``, for every
arrangement). The arrangements of the groups of one ranking combine as a cross product,
so that measures that do not decompose over groups (IPrec, ERR...) are averaged too.

The arrangements of each distinct group *signature* (the number of documents of each
judgment, in grade order) are generated once, in Python; each ranking's arrangements are
numbered ``0 .. N - 1`` in mixed radix over its groups (``N`` the product of the groups'
counts of arrangements) and joined: the expanded run holds every arrangement of every
ranking, each as its own ranking (an ``input_rank`` column), and one call of the engine
with ``ties="rank"`` evaluates them all. The per-query values are then averaged per
ranking, in arrangement order.

Arrangement 0 of every ranking keeps the run ids (it holds every ranking, so the engine
sees the run's own queries, for ``missing="zero"``); the other arrangements are rankings
of internal run ids, evaluated in a second call with ``missing="skip"``. A group entirely
below the deepest rank the measures read (:func:`read_depth`: ``max_depth``, or the largest
cutoff ``@k`` when every measure has one) is not expanded, its order changing nothing they
read; a group of one judgment has one arrangement.

A ranking with more than :data:`MAX_ARRANGEMENTS` arrangements raises
:class:`~polars_ireval.errors.TieOrdersError`.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable
from typing import Any

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval.engines.base import (
    Request,
    check_missing,
    qrels_frame,
    refuse_average_residuals,
    run_frame,
)
from polars_ireval.errors import ParameterError, TieOrdersError
from polars_ireval.io.intake import intake
from polars_ireval.judge import INPUT_RANK, Missing, group_keys
from polars_ireval.registry import Measure
from polars_ireval.results import MEASURE, SKIPPED_PREFIX, VALUE, NoRelevant, long_result

#: The most distinct orders of its tied documents a ranking may have under
#: ``ties="average"`` for the measures averaged by enumeration: each order is one ranking
#: to evaluate. Raise it (``polars_ireval.engines.average.MAX_ARRANGEMENTS = ...``) to
#: evaluate more at the cost of time and memory; the closed forms of the Polars engine
#: have no limit.
MAX_ARRANGEMENTS = 10_000

#: Evaluates a run (a canonical frame with ``input_rank``) under ``ties="rank"`` with the
#: given ``missing`` and ``no_relevant`` policies: the wide per-query frame of
#: :func:`polars_ireval.results.long_result`.
PerQuery = Callable[[pl.DataFrame | pl.LazyFrame, Missing, NoRelevant], pl.LazyFrame]

_TIE, _SLOT, _OCC, _GPOS = "\x00tie", "\x00slot", "\x00occ", "\x00gpos"
_START, _SIG, _COUNT, _STRIDE = "\x00start", "\x00sig", "\x00count", "\x00stride"
_ORDERS, _J, _A, _POS, _JUDGED = "\x00orders", "\x00j", "\x00a", "\x00pos", "\x00judged"
#: Tie groups listed by the error for a ranking over the limit.
_SHOWN = 8
#: Separates the arrangement number from the run id in the internal run ids.
_SEP = "\x1f"


def averaged(
    run: pl.DataFrame | pl.LazyFrame,
    qrels: pl.DataFrame | pl.LazyFrame,
    labels: list[str],
    per_query: PerQuery,
    *,
    missing: Missing,
    no_relevant: NoRelevant,
    depth: int | None,
) -> pl.LazyFrame:
    """The wide per-query frame of the measures ``labels`` (column names of what
    ``per_query`` returns), each value the mean over every distinct arrangement of the
    tied documents of its ranking.

    ``depth``: the deepest rank the measures read (:func:`read_depth`); a group of tied
    documents starting below it is not arranged, and the rankings are evaluated cut there.

    ``run`` and ``qrels`` are canonical (checked) frames (:func:`polars_ireval.io.intake.intake`).
    The tie groups are found eagerly (a lazy run is collected for them); the cap is
    checked then (:class:`~polars_ireval.errors.TieOrdersError`). The evaluations stay
    lazy for a lazy run.

    ``per_query`` is called once, on every arrangement as rankings of internal run ids,
    under ``missing="skip"``; with ``missing="zero"``, twice: arrangement 0 (every
    ranking of the run, under the run's own ids, so that the engine scores the queries
    the run lacks as it always does) under ``"zero"``, the others under ``"skip"``.
    ``missing="error"``, the coverage warnings and ``no_relevant="error"`` are the
    caller's to check first; ``no_relevant`` is passed to every call.
    """
    eager = isinstance(run, pl.DataFrame) and isinstance(qrels, pl.DataFrame)
    keys = group_keys(run)
    docs, groups = _tie_groups(run.lazy(), qrels.lazy(), keys, depth, eager)
    orders, table = _arrangements(groups, keys)
    expanded = _expand(docs, orders, table, keys)
    if depth is not None:  # what lies deeper is read by no measure (cut by max_depth anyway)
        expanded = expanded.filter(pl.col(INPUT_RANK) <= depth)
    several = bool(orders.height) and bool(orders[_ORDERS].max() > 1)  # type: ignore[operator]
    columns = [S.QUERY_ID, S.DOC_ID, S.SCORE, INPUT_RANK]
    j = pl.col(_J).cast(pl.String)
    coded = pl.concat_str(j, pl.lit(_SEP), pl.col(S.RUN_ID)) if S.RUN_ID in keys else j

    def evaluated(frame: pl.LazyFrame, policy: Missing) -> pl.LazyFrame:
        return per_query(frame.collect() if eager else frame, policy, no_relevant)

    wide: list[pl.LazyFrame] = []
    if missing == "zero" or not several:
        # arrangement 0 holds every ranking of the run, under the run's own ids: the
        # engine scores the queries the run lacks as it would without ties="average"
        first = expanded.filter(pl.col(_J) == 0).select(*keys, *columns[1:])
        wide.append(evaluated(first, missing).with_columns(pl.lit(0, pl.Int64).alias(_J)))
        rest = expanded.filter(pl.col(_J) > 0)
    else:
        rest = expanded
    if several:  # the other arrangements, as rankings of internal run ids
        more = evaluated(rest.select(coded.alias(S.RUN_ID), *columns), "skip")
        parts = more.with_columns(pl.col(S.RUN_ID).str.splitn(_SEP, 2).alias("\x00parts"))
        parts = parts.with_columns(
            pl.col("\x00parts").struct.field("field_0").cast(pl.Int64).alias(_J),
            pl.col("\x00parts").struct.field("field_1").alias(S.RUN_ID),
        ).drop("\x00parts")
        if S.RUN_ID not in keys:
            parts = parts.drop(S.RUN_ID)
        names = [*keys, *(c for c in parts.collect_schema().names() if c not in keys)]
        wide.append(parts.select(names))
    every = pl.concat(wide, how="diagonal_relaxed")
    names = every.collect_schema().names()
    flags = [c for c in names if c.startswith(SKIPPED_PREFIX)]
    value = [
        pl.when(pl.col(c).is_null().any())
        .then(pl.lit(None, pl.Float64))
        .otherwise(pl.col(c).cast(pl.Float64).cum_sum().last() / pl.len())
        .alias(c)
        for c in labels
    ]
    # added one after the other in arrangement order: the same float however the rows came
    return (
        every.sort([*keys, _J])
        .group_by(keys, maintain_order=True)
        .agg(*value, *[pl.col(c).fill_null(False).any() for c in flags])
    )


def read_depth(measures: list[Measure], max_depth: int | None, judged_only: bool) -> int | None:
    """The deepest rank of the ranking that ``measures`` read (None: all of them): the
    evaluation's ``max_depth``, or, if smaller, the largest cutoff ``k`` of the measures
    when every one has an integer cutoff ``k`` (the ``@k`` that evaluates the top k ranks)
    and scores the uncondensed ranking (a condensed ranking's rank k lies deeper), and
    none reads the extent of a tie (``RBP(ties='average')@k`` weighs a tie that k cuts by
    its size, its documents below k included).

    Examples
    --------
    >>> import polars_ireval as ir
    >>> from polars_ireval.engines.average import read_depth
    >>> read_depth(ir.parse_measures(["ERR@10", "nDCG@5"]), None, False)
    10
    >>> read_depth(ir.parse_measures(["ERR@10", "Q"]), 100, False)  # Q reads every rank
    100
    >>> read_depth(ir.parse_measures(["ERR@10"]), None, True) is None  # condensed
    True
    """
    cutoffs = []
    for m in measures:
        args = m.arguments()
        k = args.get("k") if m.defn.cutoff == "k" else None
        whole = judged_only or m.judged_only or args.get("ties") == "average"
        if whole or not isinstance(k, int) or isinstance(k, bool):
            return max_depth
        cutoffs.append(k)
    deepest = max(cutoffs, default=None)
    if deepest is None:
        return max_depth
    return deepest if max_depth is None else min(deepest, max_depth)


def _tie_groups(
    run: pl.LazyFrame, qrels: pl.LazyFrame, keys: list[str], depth: int | None, eager: bool
) -> tuple[pl.LazyFrame, pl.DataFrame]:
    """The run's rows with their tie group (``_TIE``: the score, -0.0 as 0.0), the group's
    first rank minus one (``_START``), the slot of their judgment in the group (grades in
    order, unjudged first), their number among the group's documents of that slot
    (``_OCC``) and among the group (``_GPOS``), without the groups starting below
    ``depth``; and the groups that have more than one arrangement (in judged queries),
    collected: ``keys, _TIE, _SIG`` (the number of documents per slot, in slot order, as
    text). ``eager``: the rows are computed once, here."""
    rel = pl.col(S.RELEVANCE)
    judged_queries = qrels.select(S.QUERY_ID).unique().with_columns(pl.lit(True).alias(_JUDGED))
    group = [*keys, _TIE]
    grades = qrels.select(S.QUERY_ID, S.DOC_ID, S.RELEVANCE)
    start = pl.col(_TIE).rank("min", descending=True).over(keys).cast(pl.Int64) - 1
    docs = (
        run.select(*keys, S.DOC_ID, S.SCORE)
        .with_columns((pl.col(S.SCORE) + 0.0).alias(_TIE))
        .with_columns(start.alias(_START))
    )
    if depth is not None:  # below it in every order: read by no measure
        docs = docs.filter(pl.col(_START) < depth)
    docs = (
        docs.join(grades, on=[S.QUERY_ID, S.DOC_ID], how="left")
        .join(judged_queries, on=S.QUERY_ID, how="left")
        .with_columns(
            pl.struct(rel.is_not_null().alias("j"), rel.fill_null(0).alias("g"))
            .rank("dense")
            .over(group)
            .cast(pl.Int64)
            .sub(1)
            .alias(_SLOT),
            (pl.col(S.DOC_ID).rank("ordinal").over(group).cast(pl.Int64) - 1).alias(_GPOS),
        )
        .with_columns(
            (pl.col(S.DOC_ID).rank("ordinal").over([*group, _SLOT]).cast(pl.Int64) - 1).alias(_OCC)
        )
    )
    if eager:
        docs = docs.collect().lazy()
    open_ = pl.col(_JUDGED).fill_null(False) & (pl.len().over(group) > 1)
    open_ = open_ & (pl.col(_SLOT).max().over(group) > 0)
    groups = (
        docs.filter(open_)
        .group_by([*group, _SLOT])
        .agg(pl.len().alias(_COUNT))
        .group_by(group)
        .agg(pl.col(_COUNT).sort_by(_SLOT).cast(pl.String).str.join(",").alias(_SIG))
        .collect()
    )
    return docs, groups


def _arrangements(groups: pl.DataFrame, keys: list[str]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Per ranking with several arrangements: their number (``keys, _ORDERS``); per group,
    its mixed-radix stride and count (joined into ``orders``' groups); and the table of
    every arrangement of every signature, ``_SIG, _A, _SLOT, _OCC, _POS``: arrangement
    ``_A`` puts the ``_OCC``-th document of slot ``_SLOT`` at position ``_POS`` of its
    group. Raises :class:`TieOrdersError` for a ranking over :data:`MAX_ARRANGEMENTS`."""
    limit = MAX_ARRANGEMENTS
    counts = {sig: _multinomial(_parse(sig)) for sig in groups[_SIG].unique().to_list()}
    count_frame = pl.DataFrame(
        {_SIG: list(counts), _COUNT: [float(min(n, limit + 1)) for n in counts.values()]},
        schema={_SIG: pl.String, _COUNT: pl.Float64},
    )
    per_group = (
        groups.join(count_frame, on=_SIG)
        .sort([*keys, _TIE], descending=[False] * len(keys) + [True])
        .with_columns(
            pl.col(_COUNT).cum_prod().over(keys).alias(_ORDERS),
        )
        .with_columns((pl.col(_ORDERS) / pl.col(_COUNT)).alias(_STRIDE))
    )
    orders = per_group.group_by(keys).agg(pl.col(_ORDERS).last())
    over = orders.filter(pl.col(_ORDERS) > limit).sort(keys)
    if over.height:
        _raise_over(per_group, over, keys, counts, limit)
    per_group = per_group.with_columns(pl.col(_COUNT, _STRIDE).cast(pl.Int64))
    orders = orders.with_columns(pl.col(_ORDERS).cast(pl.Int64)).join(
        per_group.select(*keys, _TIE, _SIG, _COUNT, _STRIDE), on=keys
    )
    rows: dict[str, list[Any]] = {_SIG: [], _A: [], _SLOT: [], _OCC: [], _POS: []}
    for sig in counts:
        for a, order in enumerate(_multiset_permutations(_parse(sig))):
            seen = [0] * len(order)
            for pos, slot in enumerate(order):
                rows[_SIG].append(sig)
                rows[_A].append(a)
                rows[_SLOT].append(slot)
                rows[_OCC].append(seen[slot])
                rows[_POS].append(pos)
                seen[slot] += 1
    schema = {_SIG: pl.String, **{c: pl.Int64 for c in (_A, _SLOT, _OCC, _POS)}}
    table = pl.DataFrame(rows, schema=schema)
    return orders, table


def _expand(
    docs: pl.LazyFrame, orders: pl.DataFrame, table: pl.DataFrame, keys: list[str]
) -> pl.LazyFrame:
    """Every arrangement ``_J`` of every ranking of ``docs``, with each document's rank in
    it (``input_rank``): the documents of an expanded group placed by the arrangement
    table, the others in a fixed order within their group."""
    numbers = orders.select(*keys, _ORDERS).unique().lazy()
    placed = orders.select(*keys, _TIE, _SIG, _COUNT, _STRIDE).lazy()
    expanded = (
        docs.join(numbers, on=keys, how="left")
        .join(placed, on=[*keys, _TIE], how="left")
        .with_columns(pl.int_ranges(0, pl.col(_ORDERS).fill_null(1)).alias(_J))
        .explode(_J)
        .with_columns((pl.col(_J) // pl.col(_STRIDE) % pl.col(_COUNT)).alias(_A))
        .join(table.lazy(), on=[_SIG, _A, _SLOT, _OCC], how="left")
    )
    rank = pl.col(_START) + pl.coalesce(_POS, _GPOS) + 1
    return expanded.with_columns(rank.alias(INPUT_RANK))


def _raise_over(
    per_group: pl.DataFrame,
    over: pl.DataFrame,
    keys: list[str],
    counts: dict[str, int],
    limit: int,
) -> None:
    first = over.row(0, named=True)
    mine = per_group.join(over.head(1).select(keys), on=keys)
    sigs = mine[_SIG].to_list()
    total = math.prod(counts[s] for s in sigs)
    shown, more_groups = sigs[:_SHOWN], len(sigs) - _SHOWN
    sizes = ", ".join(str(sum(_parse(s))) for s in shown)
    classes = "; ".join(s.replace(",", "+") for s in shown)
    if more_groups > 0:
        sizes += f" and {more_groups} more"
        classes += "; ..."
    where = f"query {first[S.QUERY_ID]!r}"
    if S.RUN_ID in keys:
        where += f" of run {first[S.RUN_ID]!r}"
    more = f" (and {over.height - 1} other ranking(s))" if over.height > 1 else ""
    raise TieOrdersError(
        f"ties='average': {where}{more} has {total:,} distinct orders of its tied documents "
        f"(tie groups of {sizes} documents, holding {classes} documents per judgment, "
        "documents of equal judgment being interchangeable), "
        f"over the limit of {limit:,} orders evaluated for measures without a closed form. "
        "Pass ties='trec_eval' (or another tie policy) for one order, use "
        "polars_ireval.tie_sensitivity for the measures' range over tie orders, or raise "
        "the limit: polars_ireval.engines.average.MAX_ARRANGEMENTS = n"
    )


def _parse(sig: str) -> list[int]:
    return [int(c) for c in sig.split(",")]


def _multinomial(counts: list[int]) -> int:
    """The number of distinct arrangements of a multiset with these multiplicities."""
    out, placed = 1, 0
    for c in counts:
        placed += c
        out *= math.comb(placed, c)
    return out


def _multiset_permutations(counts: list[int]) -> list[tuple[int, ...]]:
    """Every distinct sequence holding ``counts[s]`` times each slot ``s``: the slots'
    positions chosen slot after slot among the positions still free."""
    size = sum(counts)
    out: list[tuple[int, ...]] = []

    def place(slot: int, free: list[int], order: list[int]) -> None:
        if slot == len(counts) - 1:
            for p in free:
                order[p] = slot
            out.append(tuple(order))
            return
        for chosen in itertools.combinations(free, counts[slot]):
            nxt = order.copy()
            for p in chosen:
                nxt[p] = slot
            taken = set(chosen)
            place(slot + 1, [p for p in free if p not in taken], nxt)

    place(0, list(range(size)), [0] * size)
    return out


def evaluate_spark(request: Request) -> Any:
    """``ties="average"`` on the Spark engine: every measure averaged over the distinct
    arrangements of the tied documents, each arrangement a ranking evaluated by
    :mod:`polars_ireval.engines.spark` under ``ties="rank"`` (the per-query values come
    back to Polars, are averaged there and aggregated as on the other engines); the
    result is handed back to Spark as a DataFrame (``request.con``, default the active
    session), in the order of :func:`polars_ireval.evaluate`.

    The run and qrels must be what :func:`polars_ireval.read_run` and ``read_qrels``
    accept (frames, paths), not Spark DataFrames or tables: the arrangements are made in
    Polars.
    """
    from polars_ireval.engines import spark as engine

    r = request
    refuse_average_residuals(r.residuals)
    if any(_on_spark(x) for x in (r.run, r.qrels)):
        raise ParameterError(
            "ties='average' on engine='spark' makes the orders of the tied documents in "
            "Polars: pass the run and qrels as Polars frames or paths (for a Spark "
            "DataFrame, df.toArrow() and polars.from_arrow), or another tie policy"
        )
    inputs = intake(r.run, r.qrels, validate=r.validate)  # this engine's intake
    run_df, qrels_df = run_frame(inputs.run, "trec_eval"), qrels_frame(inputs.qrels)
    if r.missing == "error":
        check_missing(run_df, qrels_df)
    labels = [m.label for m in r.parsed]

    def by_rank(frame: Any, missing: Missing, policy: NoRelevant) -> pl.LazyFrame:
        sub = dataclasses.replace(
            r, run=frame, ties="rank", per_query=True, missing=missing, no_relevant=policy,
            validate=False, lazy=False,
        )  # fmt: skip
        long = pl.from_arrow(engine.evaluate(sub).toArrow())
        assert isinstance(long, pl.DataFrame)
        keys = [c for c in (S.RUN_ID, S.QUERY_ID) if c in long.columns]
        wide = long.pivot(on=MEASURE, index=keys, values=VALUE)
        absent = [pl.lit(None, pl.Float64).alias(c) for c in labels if c not in wide.columns]
        return wide.with_columns(absent).select(*keys, *labels).lazy()

    checked: NoRelevant = "zero" if r.no_relevant == "error" else r.no_relevant
    missing = "skip" if r.missing == "error" else r.missing
    per_q = averaged(
        run_df, qrels_df, labels, by_rank, missing=missing, no_relevant=checked,
        depth=read_depth(r.parsed, r.max_depth, r.judged_only),
    )  # fmt: skip
    result = long_result(per_q, r.parsed, per_query=r.per_query).collect()
    session = r.con
    if session is None:
        from pyspark.sql import SparkSession

        session = SparkSession.getActiveSession()
    order = "__ireval_order"
    numbered = result.with_row_index(order).with_columns(pl.col(order).cast(pl.Int64))
    return session.createDataFrame(numbered.to_arrow()).orderBy(order).drop(order)


def _on_spark(obj: Any) -> bool:
    """A Spark DataFrame."""
    return type(obj).__module__.startswith("pyspark")


__all__ = ["MAX_ARRANGEMENTS", "averaged", "evaluate_spark"]
