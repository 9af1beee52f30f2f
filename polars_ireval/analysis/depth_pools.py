"""Depth pools: seed 000's view of a campaign pooled to depth d (``../shared/seeds/000_*``).

:func:`pool_depths` gives the depth at which each document enters a depth pool,
:func:`depth_qrels` the qrels a campaign would have had if judged only to depth d, and
:func:`judged_depth` the depth to which each run is fully judged. Each ranks the runs as
the evaluation table does (scores descending, ties by doc id descending) in one lazy query:
a LazyFrame in gives a LazyFrame out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from polars_ireval._base import schema as S
from polars_ireval._base.options import check_flag, check_positive_int
from polars_ireval._base.resources import require, require_listable
from polars_ireval.analysis.campaign import SINGLE_RUN, contributor_list
from polars_ireval.errors import ParameterError
from polars_ireval.io.intake import intake_qrels, intake_run

__all__ = ["depth_qrels", "judged_depth", "pool_depths"]


def checked_contributors(lf: pl.LazyFrame, wanted: list[str], lazy: bool) -> pl.LazyFrame:
    """``lf`` (runs with a ``run_id`` column), once every run of ``wanted`` is known to be
    among its runs: checked now (``lazy`` False) or when the query is collected (a
    :class:`ParameterError` naming the unknown ones)."""

    def check(frame: pl.DataFrame) -> pl.DataFrame:
        present = frame[S.RUN_ID].to_list()
        unknown = [c for c in wanted if c not in set(present)]
        if unknown:
            raise ParameterError(
                f"contributors: {unknown[:5]!r} {'is' if len(unknown) == 1 else 'are'} "
                f"not among the {len(present)} runs (e.g. {sorted(present)[:5]!r}); check "
                "the run ids"
            )
        return frame

    ids = lf.select(pl.col(S.RUN_ID).unique())
    if not lazy:
        check(ids.collect())
        return lf
    gate = ids.map_batches(check, schema=pl.Schema({S.RUN_ID: pl.String})).select(
        pl.len().alias("__gate")
    )
    return lf.join(gate, how="cross").drop("__gate")


def _ranked_lazy(runs: Any, contributors: list[str] | None) -> tuple[pl.LazyFrame, bool]:
    """``run_id, query_id, doc_id, rank`` of the (contributing) runs, lazily; and whether
    the input was lazy. Unknown contributors raise :class:`ParameterError`, for a lazy run
    when the query is collected."""
    run = intake_run(runs)
    lazy = isinstance(run, pl.LazyFrame)
    lf = run.lazy()
    if S.RUN_ID not in lf.collect_schema():
        lf = lf.with_columns(pl.lit(SINGLE_RUN).alias(S.RUN_ID))
    if contributors is not None:
        wanted = list(dict.fromkeys(contributors))
        lf = checked_contributors(lf, wanted, lazy).filter(pl.col(S.RUN_ID).is_in(wanted))
    rank = (
        pl.struct(S.SCORE, S.DOC_ID)
        .rank("ordinal", descending=True)
        .over(S.RUN_ID, S.QUERY_ID)
        .cast(pl.UInt32)
        .alias(S.RANK)
    )
    return lf.with_columns(rank).select(S.RUN_ID, S.QUERY_ID, S.DOC_ID, S.RANK), lazy


def pool_depths(runs: Any, *, contributors: Sequence[str] | None = None) -> Any:
    """The depth at which each document enters a depth pool of the contributing runs.

    Parameters
    ----------
    runs
        The runs (a frame or what :func:`polars_ireval.read_run` reads). A LazyFrame gives
        a LazyFrame.
    contributors
        The runs that make the pool (default: every run).

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        ``query_id, doc_id, depth, runs``: ``depth`` is the shallowest rank at which a
        contributing run retrieves the document (trec_eval's order: scores descending, ties
        by doc id descending), so the depth-d pool is ``filter(pl.col("depth") <= d)``;
        ``runs`` counts the contributing runs that retrieve it at any rank. Sorted by query
        id, depth and doc id.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> runs = pl.DataFrame({"run_id": ["a", "a", "b", "b"], "query_id": "1",
    ...                      "doc_id": ["x", "y", "y", "z"], "score": [2.0, 1.0, 2.0, 1.0]})
    >>> ir.pool_depths(runs)
    shape: (3, 4)
    ┌──────────┬────────┬───────┬──────┐
    │ query_id ┆ doc_id ┆ depth ┆ runs │
    │ ---      ┆ ---    ┆ ---   ┆ ---  │
    │ str      ┆ str    ┆ u32   ┆ u32  │
    ╞══════════╪════════╪═══════╪══════╡
    │ 1        ┆ x      ┆ 1     ┆ 1    │
    │ 1        ┆ y      ┆ 1     ┆ 2    │
    │ 1        ┆ z      ┆ 2     ┆ 1    │
    └──────────┴────────┴───────┴──────┘
    """
    ranked, lazy = _ranked_lazy(runs, contributor_list(contributors))
    out = (
        ranked.group_by(S.QUERY_ID, S.DOC_ID)
        .agg(pl.col(S.RANK).min().alias("depth"), pl.len().cast(pl.UInt32).alias("runs"))
        .sort(S.QUERY_ID, "depth", S.DOC_ID)
    )
    return out if lazy else out.collect()


#: Bytes per row of :func:`depth_qrels` at several depths (the rows share their strings'
#: buffers): 72.8M rows at 29,999 depths of the bundled example took 610 MB of peak RSS.
_DEPTH_QRELS_ROW_BYTES = 16


def depth_qrels(
    runs: Any,
    qrels: Any,
    *,
    depth: int | Sequence[int],
    contributors: Sequence[str] | None = None,
) -> Any:
    """The qrels a campaign would have had if judged only to depth ``depth`` (seed 000).

    Keeps the judgments of the documents that some contributing run ranks within its top
    ``depth``: evaluate with them to see a campaign as if its pool had been that deep (an
    evaluation deeper than ``depth`` is then seed 000's "extended evaluation").

    Parameters
    ----------
    runs
        The runs whose depth-``depth`` pool is kept (with ``contributors``, only those).
    qrels
        The full judgments (a frame or path). A LazyFrame (runs or qrels) gives a LazyFrame.
    depth
        A pool depth (a positive integer), or several: then the result has a ``depth``
        column first and holds, for each depth, the judgments of that depth's pool.
    contributors
        The runs whose rankings make the pool (default: every run).

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        ``[depth,] query_id, doc_id, relevance``, in the qrels' order (per depth).

    Raises
    ------
    ResourceError
        At several depths, when up to depths x judgments rows would exceed the memory
        budget (``IREVAL_MEMORY_LIMIT``, else half the memory available; see
        ``docs/resources.md``).

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> runs = pl.DataFrame({"run_id": ["a", "a", "b", "b"], "query_id": "1",
    ...                      "doc_id": ["x", "y", "y", "z"], "score": [2.0, 1.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "1", "doc_id": ["x", "y", "z"], "relevance": [1, 0, 1]})
    >>> ir.depth_qrels(runs, qrels, depth=1)["doc_id"].to_list()
    ['x', 'y']
    >>> ir.depth_qrels(runs, qrels, depth=[1, 2]).group_by("depth").len().sort("depth")
    shape: (2, 2)
    ┌───────┬─────┐
    │ depth ┆ len │
    │ ---   ┆ --- │
    │ i64   ┆ u32 │
    ╞═══════╪═════╡
    │ 1     ┆ 2   │
    │ 2     ┆ 3   │
    └───────┴─────┘
    """
    several = not isinstance(depth, (int, np.integer)) or isinstance(depth, bool)
    if several:
        if isinstance(depth, (str, bytes)) or not hasattr(depth, "__iter__"):
            raise ParameterError(f"depth={depth!r}: give a pool depth or a list of depths")
        require_listable("depth=", depth, fix="ask for fewer depths (e.g. depth=[10, 20, 50])")
        depths = [check_positive_int("depth", d, what="each pool depth") for d in depth]
        if not depths:
            raise ParameterError("depth=[]: give at least one pool depth")
    else:
        depths = [check_positive_int("depth", depth, what="the pool depth")]
    values = sorted(set(depths))
    names = contributor_list(contributors)
    ranked, lazy_runs = _ranked_lazy(runs, names)
    q = intake_qrels(qrels)
    lazy = lazy_runs or isinstance(q, pl.LazyFrame)
    entry = (
        ranked.filter(pl.col(S.RANK) <= max(values))
        .group_by(S.QUERY_ID, S.DOC_ID)
        .agg(pl.col(S.RANK).min().alias("__entry"))
    )
    kept = q.lazy().join(entry, on=[S.QUERY_ID, S.DOC_ID], how="inner", maintain_order="left")
    columns = [S.QUERY_ID, S.DOC_ID, S.RELEVANCE]
    if several:
        if isinstance(q, pl.DataFrame):  # at most every judgment at every depth
            rows = len(values) * q.height
            require(
                f"depth_qrels at {len(values):,} depths of {q.height:,} judgments",
                rows * _DEPTH_QRELS_ROW_BYTES,
                how=f"up to {rows:,} rows x {_DEPTH_QRELS_ROW_BYTES} bytes",
                fix="ask for fewer depths (e.g. depth=[10, 20, 50, 100])",
            )
        grid = pl.LazyFrame({"depth": values}, schema={"depth": pl.Int64})
        out = (
            grid.join(kept, how="cross", maintain_order="left_right")
            .filter(pl.col("__entry") <= pl.col("depth"))
            .select("depth", *columns)
        )
    else:
        out = kept.filter(pl.col("__entry") <= values[0]).select(columns)
    return out if lazy else out.collect()


def judged_depth(runs: Any, qrels: Any, *, per_query: bool = False) -> Any:
    """The depth to which each run is fully judged (seed 000's pooling depth ``d``).

    Parameters
    ----------
    runs
        The runs (a frame or what :func:`polars_ireval.read_run` reads); each ranking is
        its scores descending, ties by doc id descending (trec_eval's order).
    qrels
        The judgments (a frame or path). Only the queries they judge count. A LazyFrame
        (runs or qrels) gives a LazyFrame.
    per_query
        One row per run and query instead of per run.

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        Per query: ``run_id, query_id, judged_depth, retrieved``: the number of documents
        at the top of the ranking that are all judged, and the ranking's length (equal
        when every document is judged). Per run: ``run_id, judged_depth,
        mean_judged_depth``: the depth to which every query's ranking is judged (the
        smallest ``judged_depth`` of a ranking with an unjudged document; the longest
        ranking when none has one) and the mean over queries of ``judged_depth``.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> runs = pl.DataFrame({"run_id": "a", "query_id": ["1", "1", "1", "2", "2"],
    ...                      "doc_id": ["x", "y", "z", "u", "v"], "score": [3.0, 2, 1, 2, 1]})
    >>> qrels = pl.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["x", "z", "u"],
    ...                       "relevance": [1, 0, 1]})
    >>> ir.judged_depth(runs, qrels, per_query=True)
    shape: (2, 4)
    ┌────────┬──────────┬──────────────┬───────────┐
    │ run_id ┆ query_id ┆ judged_depth ┆ retrieved │
    │ ---    ┆ ---      ┆ ---          ┆ ---       │
    │ str    ┆ str      ┆ u32          ┆ u32       │
    ╞════════╪══════════╪══════════════╪═══════════╡
    │ a      ┆ 1        ┆ 1            ┆ 3         │
    │ a      ┆ 2        ┆ 1            ┆ 2         │
    └────────┴──────────┴──────────────┴───────────┘
    >>> ir.judged_depth(runs, qrels)
    shape: (1, 3)
    ┌────────┬──────────────┬───────────────────┐
    │ run_id ┆ judged_depth ┆ mean_judged_depth │
    │ ---    ┆ ---          ┆ ---               │
    │ str    ┆ u32          ┆ f64               │
    ╞════════╪══════════════╪═══════════════════╡
    │ a      ┆ 1            ┆ 1.0               │
    └────────┴──────────────┴───────────────────┘
    """
    check_flag("per_query", per_query)
    ranked, lazy_runs = _ranked_lazy(runs, None)
    q = intake_qrels(qrels)
    lazy = lazy_runs or isinstance(q, pl.LazyFrame)
    qlf = q.lazy()
    judged = (
        ranked.join(qlf.select(S.QUERY_ID).unique(), on=S.QUERY_ID, how="semi")
        .join(
            qlf.select(S.QUERY_ID, S.DOC_ID, pl.lit(True).alias("__j")),
            on=[S.QUERY_ID, S.DOC_ID],
            how="left",
        )
        .with_columns(pl.col("__j").fill_null(False))
    )
    lead = pl.col("__j").sort_by(S.RANK).cast(pl.UInt32).cum_min().sum().cast(pl.UInt32)
    per_q = (
        judged.group_by(S.RUN_ID, S.QUERY_ID)
        .agg(lead.alias("judged_depth"), pl.len().cast(pl.UInt32).alias("retrieved"))
        .sort(S.RUN_ID, S.QUERY_ID)
    )
    if per_query:
        return per_q if lazy else per_q.collect()
    depth, length = pl.col("judged_depth"), pl.col("retrieved")
    per_run = (
        per_q.group_by(S.RUN_ID)
        .agg(
            pl.coalesce(depth.filter(depth < length).min(), length.max()).alias("judged_depth"),
            depth.mean().alias("mean_judged_depth"),
        )
        .sort(S.RUN_ID)
    )
    return per_run if lazy else per_run.collect()
