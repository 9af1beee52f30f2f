"""Precision-recall and ROC curves, and confusion counts, from the evaluation table.

Each function joins a run with its qrels once (:func:`polars_ireval.judge`) and answers with
one lazy Polars query over that table: ranks, grades and per-ranking counts, no Python loop
over queries or documents. A LazyFrame in gives a LazyFrame out; eager input is collected at
the end, as :func:`polars_ireval.evaluate` does.

* :func:`pr_curve`: the recall-precision graph (seed 003, section 3, Figure 1), per query or
  averaged over queries, at trec_eval's eleven recall levels (its ``iprec_at_recall_*``
  values, to the last bit), at given levels, or at every recall level a ranking reaches.
* :func:`roc_curve`: true-positive rate against false-positive rate down the ranking (seed
  003, section 3.1, Figure 2); the false-positive rate needs the collection size.
* :func:`confusion`: the confusion matrix of a ranking taken as a set (seed 003, Table 1),
  from which precision, recall and accuracy are eqs. 3 to 5.

Relevant means a grade >= ``relevance_level`` (trec_eval ``-l``). A retrieved document
without a judgment counts as non-relevant, as trec_eval counts it. Rankings follow the
evaluation table: score descending, ties by document id descending, unless ``ties=`` says
otherwise; ``max_depth`` cuts them (trec_eval ``-M``), ``missing="zero"`` adds judged
queries a run lacks as empty rankings (trec_eval ``-c``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval._base.options import (
    Missing,
    check_flag,
    check_positive_int,
    check_relevance_level,
    renamed,
)
from polars_ireval.errors import ParameterError
from polars_ireval.judge import Ties, check_options, judge
from polars_ireval.measures.iprec import ROUNDING, needed_relevant

__all__ = [
    "CONFUSION_COLUMNS",
    "RECALL_11PT",
    "ROC_COLUMNS",
    "ROUNDING",
    "confusion",
    "pr_curve",
    "roc_curve",
]

#: trec_eval's recall levels for ``iprec_at_recall``: 0.0, 0.1, ..., 1.0 (each the double
#: nearest to its decimal, as trec_eval parses "0.30").
RECALL_11PT: tuple[float, ...] = tuple(i / 10 for i in range(11))
#: The columns of :func:`roc_curve`'s result after ``[run_id,] query_id``.
ROC_COLUMNS: tuple[str, ...] = ("rank", "tp", "fp", "tpr", "fpr")
#: The columns of :func:`confusion`'s result after ``[run_id,] query_id``.
CONFUSION_COLUMNS: tuple[str, ...] = ("tp", "fp", "fn", "tn")

RecallPoints = Literal["11pt", "all"] | Sequence[float] | None

_REL = "__relevant"
_R = "__num_rel"
_K = "__k"
_NEED = "__need"
_POINT = "__point"
_PREC = "__precision"
_SEEN = "__seen"
RECALL, PRECISION = "recall", "precision"


# --------------------------------------------------------------------------- options


def _recall_points(recall_points: Any) -> tuple[float, ...] | None:
    """The recall levels asked for, or None for every level a ranking reaches ("all")."""
    if recall_points is None or (isinstance(recall_points, str) and recall_points == "11pt"):
        return RECALL_11PT
    if isinstance(recall_points, str):
        if recall_points == "all":
            return None
        raise ParameterError(
            f"recall_points={recall_points!r} is unknown: use '11pt' (trec_eval's levels "
            "0.0, 0.1, ..., 1.0; the default), 'all' (every recall level a ranking reaches) "
            "or a sequence of levels in [0, 1] such as (0.25, 0.5, 0.75)"
        )
    try:
        points = tuple(recall_points)
    except TypeError:
        points = None
    ok = bool(points) and all(
        isinstance(x, (int, float)) and not isinstance(x, bool) and 0.0 <= x <= 1.0
        for x in points or ()
    )
    if not ok or points is None:
        raise ParameterError(
            f"recall_points={recall_points!r}: give '11pt', 'all' or a non-empty sequence "
            "of recall levels in [0, 1], such as (0.25, 0.5, 0.75)"
        )
    twice = sorted({x for x in points if points.count(x) > 1})
    if twice:
        raise ParameterError(
            f"recall_points={recall_points!r} lists {twice[0]!r} more than once: give each "
            "recall level once"
        )
    return tuple(float(x) for x in points)


_MAX_COUNT = (1 << 63) - 1  # the largest Int64


def _n_docs(n_docs: Any) -> int:
    n_docs = check_positive_int(
        "n_docs",
        n_docs,
        what="the number of documents in the collection (the count of all documents "
        "searched, retrieved or not; e.g. n_docs=51078 for CORD-19 2020-04-10)",
    )
    if n_docs > _MAX_COUNT:
        raise ParameterError(
            f"n_docs={n_docs!r}: the number of documents in the collection must be at most "
            f"2**63 - 1 = {_MAX_COUNT} (counts are 64-bit integers)"
        )
    return n_docs


# --------------------------------------------------------------------------- shared parts


def _judged(
    run: Any,
    qrels: Any,
    *,
    unjudged: bool,
    missing: Missing,
    max_depth: int | None,
    ties: Ties,
    level: int,
) -> tuple[pl.LazyFrame, list[str], bool]:
    """The evaluation table (lazy) with a relevance flag, its ranking keys, and whether the
    input was lazy (then the caller returns a LazyFrame)."""
    lazy = isinstance(run, pl.LazyFrame) or isinstance(qrels, pl.LazyFrame)
    table = judge(run, qrels, unjudged=unjudged, missing=missing, max_depth=max_depth, ties=ties)
    table = table.lazy()
    keys = [S.RUN_ID, S.QUERY_ID] if S.RUN_ID in table.collect_schema() else [S.QUERY_ID]
    relevant = (pl.col(S.RELEVANCE) >= level).fill_null(False)
    return table.with_columns(relevant.alias(_REL)), keys, lazy


def _out(frame: pl.LazyFrame, lazy: bool) -> Any:
    return frame if lazy else frame.collect()


def _check_size(frame: pl.DataFrame, n_docs: int, keys: list[str]) -> pl.DataFrame:
    """Raise when a ranking has more distinct documents (retrieved or judged) than the
    collection holds; runs when the query is collected (a LazyFrame's errors come then)."""
    over = frame.filter(pl.col(_SEEN) > n_docs)
    if over.height:
        order = [True] + [False] * len(keys)  # the largest; the first ranking among equals
        worst = over.sort([_SEEN, *keys], descending=order).row(0, named=True)
        where = ", ".join(f"{k}={worst[k]!r}" for k in keys)
        raise ParameterError(
            f"n_docs={n_docs} is smaller than the {worst[_SEEN]} documents retrieved or "
            f"judged for {where} ({over.height} ranking(s) exceed it): n_docs is the size "
            f"of the whole collection; pass at least n_docs={worst[_SEEN]}"
        )
    return frame


def _checked(stats: pl.LazyFrame, keys: list[str], n_docs: int) -> pl.LazyFrame:
    """``stats`` (one row per ranking, with the distinct documents seen) checked against
    the collection size when it is collected."""
    schema = stats.collect_schema()
    return stats.map_batches(lambda df: _check_size(df, n_docs, keys), schema=schema)


def _per_ranking(*extra: pl.Expr) -> list[pl.Expr]:
    """R (relevant judged documents) and the distinct documents seen, per ranking."""
    return [
        pl.col(_REL).sum().cast(pl.Int64).alias(_R),
        pl.len().cast(pl.Int64).alias(_SEEN),
        *extra,
    ]


# --------------------------------------------------------------------------- PR curve


@renamed(runs="run")
def pr_curve(
    run: Any,
    qrels: Any,
    *,
    recall_points: RecallPoints = None,
    interpolated: bool = True,
    per_query: bool = False,
    relevance_level: int = 1,
    rounding: str = "trec_eval9",
    missing: Missing = "skip",
    max_depth: int | None = None,
    ties: Ties = "trec_eval",
) -> Any:
    """The recall-precision curve of each run, per query or averaged over queries.

    With R relevant documents for a query and its k-th relevant document retrieved at rank
    r_k, the ranking reaches recall k/R at precision P_k = k / r_k. Interpolated precision
    at recall x is the best precision at any recall >= x (van Rijsbergen; trec_eval's
    ``iprec_at_recall``): IP_k = max_{j >= k} P_j. A level x asks for c relevant documents,
    c = trunc(x·R + 0.9) (trec_eval 9, pytrec_eval; ``rounding="trec_eval10"``: x·R rounded
    half up, as trec_eval 10), and scores IP_c (IP_1, the best precision anywhere, when
    c = 0), or 0 when fewer than c relevant documents are retrieved. The average over
    queries at the eleven levels is trec_eval's ``iprec_at_recall_0.00`` ... ``_1.00``.

    Parameters
    ----------
    run
        One run or many (a ``run_id`` column): a frame, a path, a glob, a list of paths
        (anything :func:`polars_ireval.judge` takes). A LazyFrame gives a LazyFrame.
        Formerly ``runs=`` (still accepted), as :func:`roc_curve` and
        :func:`polars_ireval.evaluate` name it.
    qrels
        The judgments: a frame or a path.
    recall_points
        ``None`` or ``"11pt"`` (default): trec_eval's levels 0.0, 0.1, ..., 1.0. A
        sequence of levels in [0, 1]: those (trec_eval ``-m iprec_at_recall.0.25,0.5``).
        ``"all"``: every recall level k/R each ranking reaches (one row per relevant
        document retrieved; interpolated curves also start with the level 0.0, at IP_1,
        or 0 when no relevant document is retrieved); needs ``per_query=True``, since the
        levels differ from query to query.
    interpolated
        ``True`` (default): interpolated precision IP. ``False``: the precision P_c at the
        rank where the c-th relevant document is retrieved (c at least 1), 0 when it is
        not; with ``"all"``, P_k at each relevant rank (the raw, saw-toothed curve).
    per_query
        One curve per query (with ``query_id``) instead of their mean at each level.
    relevance_level
        Minimum grade counted as relevant (trec_eval ``-l``; default 1).
    rounding
        ``"trec_eval9"`` (default) or ``"trec_eval10"``: how x·R becomes c (see above).
    missing, max_depth, ties
        As in :func:`polars_ireval.evaluate`: ``missing="zero"`` scores judged queries a run
        lacks at 0 (trec_eval ``-c``), ``max_depth`` reads only the top of each ranking
        (trec_eval ``-M``), ``ties`` orders documents with equal scores.

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        ``[run_id,] [query_id,] recall, precision``, sorted by run, query and recall. The
        mean over queries weighs every evaluated query equally (the queries both judged
        and ranked, or every judged query with ``missing="zero"``).

    Raises
    ------
    ParameterError
        An unknown ``recall_points``, ``rounding``, ``missing`` or ``ties``, a level outside
        [0, 1], ``"all"`` without ``per_query=True``, a non-integer ``relevance_level``.

    See Also
    --------
    polars_ireval.plot.pr_curve : draws this frame.
    IPrec, 11pt_avg : the same values as measures (``ir.evaluate(..., ["IPrec@0.1"])``).

    Examples
    --------
    Ranking "1010" of a query with R = 3 (one relevant document never retrieved): P_1 = 1,
    P_2 = 2/3. Recall 0.5 asks for trunc(1.5 + 0.9) = 2 relevant documents, recall 1 for 3.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"),
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "c", "x"], "relevance": 1})
    >>> ir.pr_curve(run, qrels, recall_points=(0.0, 0.5, 1.0))
    shape: (3, 2)
    ┌────────┬───────────┐
    │ recall ┆ precision │
    │ ---    ┆ ---       │
    │ f64    ┆ f64       │
    ╞════════╪═══════════╡
    │ 0.0    ┆ 1.0       │
    │ 0.5    ┆ 0.666667  │
    │ 1.0    ┆ 0.0       │
    └────────┴───────────┘
    >>> ir.pr_curve(run, qrels, recall_points="all", per_query=True)["recall"].to_list()
    [0.0, 0.3333333333333333, 0.6666666666666666]
    """
    check_relevance_level(relevance_level)
    level = relevance_level
    points = _recall_points(recall_points)
    check_flag("interpolated", interpolated)
    check_flag("per_query", per_query)
    if rounding not in ROUNDING:
        raise ParameterError(
            f"rounding={rounding!r}: use 'trec_eval9' (trunc(x·R + 0.9); trec_eval 9, "
            "pytrec_eval) or 'trec_eval10' (x·R rounded half up; trec_eval 10)"
        )
    if points is None and not per_query:
        raise ParameterError(
            "recall_points='all' gives each query its own recall levels (k/R), which do not "
            "average across queries: pass per_query=True, or recall_points='11pt' (or a "
            "sequence of levels) for the mean curve"
        )
    check_options(max_depth=max_depth, ties=ties, missing=missing)
    table, keys, lazy = _judged(
        run, qrels, unjudged=False, missing=missing, max_depth=max_depth, ties=ties,
        level=level,
    )  # fmt: skip
    num_rel = table.group_by(keys).agg(pl.col(_REL).sum().cast(pl.Int64).alias(_R))
    # the relevant documents retrieved, in rank order: k-th one at rank r_k, P_k = k / r_k,
    # and IP_k, the best P_j for j >= k (a suffix maximum within the ranking)
    k = pl.col(S.RANK).cum_count().over(keys).cast(pl.Int64)
    p_k = pl.col(_K).cast(pl.Float64) / pl.col(S.RANK).cast(pl.Float64)
    hits = (
        table.filter(pl.col(_REL) & pl.col(S.RANK).is_not_null())
        .select(*keys, S.RANK)
        .sort([*keys, S.RANK])
        .with_columns(k.alias(_K))
        .with_columns(p_k.alias(_PREC))
    )
    if interpolated:
        hits = hits.with_columns(pl.col(_PREC).cum_max(reverse=True).over(keys))
    hits = hits.select(*keys, _K, _PREC)

    def at_levels(levels: tuple[float, ...]) -> pl.LazyFrame:
        """Every ranking at every level: the precision at the c-th relevant document."""
        grid = pl.LazyFrame({RECALL: levels}, schema={RECALL: pl.Float64})
        need = needed_relevant(pl.col(RECALL), pl.col(_R), rounding)
        return (
            num_rel.join(grid, how="cross")
            .with_columns(pl.max_horizontal(need, pl.lit(1.0)).cast(pl.Int64).alias(_K))
            .join(hits, on=[*keys, _K], how="left")
            .select(*keys, RECALL, pl.col(_PREC).fill_null(0.0).alias(PRECISION))
        )

    if points is not None:
        curve = at_levels(points)
    else:
        reached = hits.join(num_rel, on=keys).select(
            *keys,
            (pl.col(_K).cast(pl.Float64) / pl.col(_R).cast(pl.Float64)).alias(RECALL),
            pl.col(_PREC).alias(PRECISION),
        )
        curve = pl.concat([at_levels((0.0,)), reached]) if interpolated else reached
    if per_query:
        return _out(curve.sort([*keys, RECALL]), lazy)
    runs_key = [k for k in keys if k == S.RUN_ID]
    # each run's queries in id order, the order in which trec_eval adds them
    mean = (
        curve.sort([*keys, RECALL])
        .group_by([*runs_key, RECALL], maintain_order=True)
        .agg(pl.col(PRECISION).mean())
        .sort([*runs_key, RECALL])
    )
    return _out(mean, lazy)


# --------------------------------------------------------------------------- ROC curve


def roc_curve(
    run: Any,
    qrels: Any,
    *,
    n_docs: int,
    relevance_level: int = 1,
    missing: Missing = "skip",
    max_depth: int | None = None,
    ties: Ties = "trec_eval",
) -> Any:
    """The ROC curve of each ranking: true-positive rate against false-positive rate, rank
    by rank (seed 003, section 3.1).

    Taking the top i documents as the retrieved set, with R relevant documents in a
    collection of N = ``n_docs``: TP_i relevant retrieved, FP_i = i - TP_i non-relevant (or
    unjudged) retrieved, TPR_i = TP_i / R (recall, sensitivity), FPR_i = FP_i / (N - R)
    (1 - specificity, with FP + TN = N - R). The curve starts at rank 0, (0, 0), and ends
    at the last rank retrieved; it reaches (1, 1) only when the whole collection is ranked.

    Parameters
    ----------
    run
        One run or many (a ``run_id`` column); anything :func:`polars_ireval.judge` takes.
        A LazyFrame gives a LazyFrame.
    qrels
        The judgments.
    n_docs
        The number of documents in the collection (N), at least the number of distinct
        documents retrieved or judged for any one query.
    relevance_level, missing, max_depth, ties
        As in :func:`pr_curve`.

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        ``[run_id,] query_id, rank, tp, fp, tpr, fpr``: one row per rank from 0 to the
        ranking's length, sorted. ``tpr`` is null for a query without relevant documents,
        ``fpr`` when every document of the collection is relevant.

    Raises
    ------
    ParameterError
        ``n_docs`` not a positive integer (at most 2**63 - 1), or smaller than the
        documents retrieved or judged for a query (for a LazyFrame, when the result is
        collected).

    Examples
    --------
    Ranking "1010" (R = 3, one relevant document not retrieved) in a collection of 10: at
    rank 2, TP = FP = 1, so TPR = 1/3 and FPR = 1/7.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"),
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "c", "x"], "relevance": 1})
    >>> ir.roc_curve(run, qrels, n_docs=10).select("rank", "tp", "fp", "tpr", "fpr")
    shape: (5, 5)
    ┌──────┬─────┬─────┬──────────┬──────────┐
    │ rank ┆ tp  ┆ fp  ┆ tpr      ┆ fpr      │
    │ ---  ┆ --- ┆ --- ┆ ---      ┆ ---      │
    │ i64  ┆ i64 ┆ i64 ┆ f64      ┆ f64      │
    ╞══════╪═════╪═════╪══════════╪══════════╡
    │ 0    ┆ 0   ┆ 0   ┆ 0.0      ┆ 0.0      │
    │ 1    ┆ 1   ┆ 0   ┆ 0.333333 ┆ 0.0      │
    │ 2    ┆ 1   ┆ 1   ┆ 0.333333 ┆ 0.142857 │
    │ 3    ┆ 2   ┆ 1   ┆ 0.666667 ┆ 0.142857 │
    │ 4    ┆ 2   ┆ 2   ┆ 0.666667 ┆ 0.285714 │
    └──────┴─────┴─────┴──────────┴──────────┘
    """
    n = _n_docs(n_docs)
    check_relevance_level(relevance_level)
    level = relevance_level
    check_options(max_depth=max_depth, ties=ties, missing=missing)
    table, keys, lazy = _judged(
        run, qrels, unjudged=True, missing=missing, max_depth=max_depth, ties=ties, level=level
    )
    counts = _checked(table.group_by(keys).agg(_per_ranking()), keys, n)
    tp = pl.col(_REL).cast(pl.Int64).cum_sum().over(keys)
    ranked = (
        table.filter(pl.col(S.RANK).is_not_null())
        .select(*keys, pl.col(S.RANK).cast(pl.Int64), _REL)
        .sort([*keys, S.RANK])
        .with_columns(tp.alias("tp"))
        .select(*keys, S.RANK, "tp", (pl.col(S.RANK) - pl.col("tp")).alias("fp"))
    )
    start = counts.select(
        *keys, *(pl.lit(0, dtype=pl.Int64).alias(c) for c in (S.RANK, "tp", "fp"))
    )
    r, negatives = pl.col(_R), pl.lit(n, dtype=pl.Int64) - pl.col(_R)
    curve = (
        pl.concat([start, ranked])
        .join(counts, on=keys)
        .with_columns(
            pl.when(r > 0).then(pl.col("tp") / r).alias("tpr"),
            pl.when(negatives > 0).then(pl.col("fp") / negatives).alias("fpr"),
        )
        .select(*keys, *ROC_COLUMNS)
        .sort([*keys, S.RANK])
    )
    return _out(curve, lazy)


# --------------------------------------------------------------------------- confusion


def confusion(
    run: Any,
    qrels: Any,
    *,
    n_docs: int,
    k: int | None = None,
    relevance_level: int = 1,
    missing: Missing = "skip",
    max_depth: int | None = None,
    ties: Ties = "trec_eval",
) -> Any:
    """The confusion matrix of each ranking taken as a set (seed 003, Table 1).

    With the top ``k`` documents (all of them when ``k`` is None) as the retrieved set, R
    relevant documents and a collection of N = ``n_docs``: TP = relevant retrieved, FP =
    retrieved - TP (a retrieved unjudged document is non-relevant), FN = R - TP, TN =
    N - TP - FP - FN. Precision is TP / (TP + FP) (eq. 3), recall TP / (TP + FN) (eq. 4),
    accuracy (TP + TN) / N (eq. 5): expressions on these columns.

    Parameters
    ----------
    run
        One run or many (a ``run_id`` column); anything :func:`polars_ireval.judge` takes.
        A LazyFrame gives a LazyFrame.
    qrels
        The judgments.
    n_docs
        The number of documents in the collection (N), at least the number of distinct
        documents retrieved or judged for any one query (at any depth).
    k
        The cutoff: the top ``k`` ranks form the retrieved set (a positive integer), or
        None (default) for the whole ranking.
    relevance_level, missing, max_depth, ties
        As in :func:`pr_curve`.

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        ``[run_id,] query_id, tp, fp, fn, tn`` (Int64), one row per ranking, sorted.

    Raises
    ------
    ParameterError
        ``n_docs`` or ``k`` not a positive integer (``n_docs`` at most 2**63 - 1), or
        ``n_docs`` smaller than the documents retrieved or judged for a query (for a
        LazyFrame, when collected).

    Examples
    --------
    "1010" with R = 3 in a collection of 10 documents: the top 3 hold 2 relevant documents
    and 1 non-relevant one, 1 relevant document is missed, 6 non-relevant ones are rightly
    left out; accuracy (2 + 6) / 10.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": list("abcd"),
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "c", "x"], "relevance": 1})
    >>> ir.confusion(run, qrels, n_docs=10, k=3)
    shape: (1, 5)
    ┌──────────┬─────┬─────┬─────┬─────┐
    │ query_id ┆ tp  ┆ fp  ┆ fn  ┆ tn  │
    │ ---      ┆ --- ┆ --- ┆ --- ┆ --- │
    │ str      ┆ i64 ┆ i64 ┆ i64 ┆ i64 │
    ╞══════════╪═════╪═════╪═════╪═════╡
    │ q        ┆ 2   ┆ 1   ┆ 1   ┆ 6   │
    └──────────┴─────┴─────┴─────┴─────┘
    """
    n = _n_docs(n_docs)
    check_positive_int(
        "k", k, what="the cutoff (the top k ranks are the retrieved set)", optional=True
    )
    check_relevance_level(relevance_level)
    level = relevance_level
    check_options(max_depth=max_depth, ties=ties, missing=missing)
    table, keys, lazy = _judged(
        run, qrels, unjudged=True, missing=missing, max_depth=max_depth, ties=ties, level=level
    )
    rank = pl.col(S.RANK)
    retrieved = rank.is_not_null() if k is None else (rank <= k).fill_null(False)
    sets = table.group_by(keys).agg(
        _per_ranking(
            (pl.col(_REL) & retrieved).sum().cast(pl.Int64).alias("tp"),
            retrieved.sum().cast(pl.Int64).alias("__ret"),
        )
    )
    tp, ret, r = pl.col("tp"), pl.col("__ret"), pl.col(_R)
    out = (
        _checked(sets, keys, n)
        .select(
            *keys,
            tp,
            (ret - tp).alias("fp"),
            (r - tp).alias("fn"),
            (pl.lit(n, dtype=pl.Int64) - ret - (r - tp)).alias("tn"),
        )
        .sort(keys)
    )
    return _out(out, lazy)
