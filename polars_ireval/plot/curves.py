"""Figures of curves, a line per run (or ranking) against a continuous axis: recall-precision
(:func:`pr_curve`), ROC (:func:`roc_curve`), PIR against cut-off (:func:`pir_curves`) and a
measure against evaluation depth (:func:`depth_curves`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval._base.options import check_positive_int, renamed
from polars_ireval.errors import ParameterError
from polars_ireval.plot.drawing import figure_and_axes, figure_class, legend, style
from polars_ireval.plot.frames import (
    MEASURE,
    RESIDUAL,
    VALUE,
    as_run_ids,
    eager,
    ordered_runs,
    require_columns,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure


# --------------------------------------------------------------------------- checks


def _curve_keys(frame: pl.DataFrame) -> list[str]:
    return [c for c in (S.RUN_ID, S.QUERY_ID) if c in frame.columns]


def _check_lines(
    n: int, max_lines: int, what: str, keys: list[str], varying: list[str] | None = None
) -> None:
    """Refuse more lines than ``max_lines``, with a filter on a column the frame has and
    that holds several values (``varying``, default ``keys``)."""
    check_positive_int("max_lines", max_lines)
    if n > max_lines:
        if S.QUERY_ID in (keys if varying is None else varying):
            example = ".filter(pl.col('query_id') == '1')"
        else:  # a mean curve: keyed by run alone
            example = ".filter(pl.col('run_id').is_in(['bm25', 'dense']))"
        raise ParameterError(
            f"{what}: the frame holds {n} curves (one per {', '.join(keys)}), more than "
            f"max_lines={max_lines} readable lines; filter it to those to show (e.g. "
            f"{example}) or raise max_lines"
        )


# --------------------------------------------------------------------------- curves


def pr_curve(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    ax: Any = None,
    order: Sequence[str] | None = None,
    interpolated: bool = True,
    max_lines: int = 20,
) -> Figure:
    """Recall-precision curves: one line per run, or per (run, query) for a per-query frame.

    Parameters
    ----------
    frame
        What :func:`polars_ireval.pr_curve` returns: ``[run_id,] [query_id,] recall,
        precision``.
    ax
        The Axes to draw on (default: a new figure).
    order
        The runs, in legend order. Default: by decreasing mean precision over the points
        drawn (their 11pt_avg for trec_eval's eleven levels), ties by run id.
    interpolated
        Only labels the y axis: whether the frame holds interpolated precision (the
        default of :func:`polars_ireval.pr_curve`).
    max_lines
        Refuse to draw more curves than this (default 20): filter the frame first.

    Returns
    -------
    matplotlib.figure.Figure
    """
    df = eager(frame, "plot.pr_curve")
    require_columns(df, ["recall", "precision"], "plot.pr_curve", "ir.pr_curve")
    keys = _curve_keys(df)
    if S.RUN_ID not in df.columns:
        df = df.with_columns(pl.lit("run").alias(S.RUN_ID))
    means = df.group_by(S.RUN_ID).agg(pl.col("precision").mean())
    ranked = means.sort(["precision", S.RUN_ID], descending=[True, False])[S.RUN_ID].to_list()
    runs = ordered_runs(ranked, order, "plot.pr_curve")
    curves = df.select([S.RUN_ID, *(k for k in keys if k != S.RUN_ID)]).unique()
    _check_lines(curves.height, max_lines, "plot.pr_curve", keys or ["run"])
    fig, ax = figure_and_axes(ax, (6.0, 4.5))
    by_run = {r: i for i, r in enumerate(runs)}
    order_keys = [pl.col(S.RUN_ID).replace_strict(by_run, return_dtype=pl.Int64)]
    if S.QUERY_ID in df.columns:
        order_keys.append(pl.col(S.QUERY_ID))
    by = [S.RUN_ID, *([S.QUERY_ID] if S.QUERY_ID in df.columns else [])]
    parts = df.sort([*order_keys, pl.col("recall")]).partition_by(
        by, maintain_order=True, as_dict=True
    )
    for i, (key, part) in enumerate(parts.items()):
        # the frame's own ids: "run query", "run" or "query"; "run" for an anonymous run
        label = " ".join(str(v) for k, v in zip(by, key, strict=True) if k in keys) or "run"
        ax.plot(part["recall"], part["precision"], label=label, markersize=4, **style(i))
    ax.set_xlabel("recall")
    ax.set_ylabel("interpolated precision (IPrec)" if interpolated else "precision")
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.02)
    ax.grid(True, linewidth=0.3)
    legend(ax, title="runs by mean precision" if order is None else None)
    return fig


def roc_curve(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    ax: Any = None,
    order: Sequence[str] | None = None,
    max_lines: int = 20,
    zoom: bool = False,
) -> Figure:
    """ROC curves (seed 003, Figure 2): the true-positive rate against the false-positive
    rate down each ranking, one line per (run, query), with the diagonal of a random order.

    Parameters
    ----------
    frame
        What :func:`polars_ireval.roc_curve` returns (``[run_id,] query_id, rank, tp, fp,
        tpr, fpr``); rankings without relevant documents (``tpr`` null) are left out.
    ax
        The Axes to draw on (default: a new figure).
    order
        The runs, in legend order (default: by run id); each run's queries by query id.
    max_lines
        Refuse to draw more curves than this (default 20): filter the frame first.
    zoom
        End the x axis at the largest false-positive rate drawn instead of 1. A ranking of
        1,000 documents in a collection of many thousands has an FPR of a few hundredths
        at most: the whole curve then hugs the y axis of the full square.

    Returns
    -------
    matplotlib.figure.Figure
    """
    if not isinstance(zoom, bool):
        raise ParameterError(f"zoom={zoom!r}: must be True or False")
    df = eager(frame, "plot.roc_curve")
    require_columns(df, [S.QUERY_ID, "rank", "tpr", "fpr"], "plot.roc_curve", "ir.roc_curve")
    if S.RUN_ID not in df.columns:
        df = df.with_columns(pl.lit("run").alias(S.RUN_ID))
    keys = [S.RUN_ID, S.QUERY_ID]
    df = df.filter(pl.col("tpr").is_not_null().all().over(keys))
    runs = ordered_runs(sorted(df[S.RUN_ID].unique().to_list()), order, "plot.roc_curve")
    varying = [k for k in keys if df[k].n_unique() > 1]
    _check_lines(df.select(keys).n_unique(), max_lines, "plot.roc_curve", keys, varying)
    fig, ax = figure_and_axes(ax, (5.0, 5.0))
    ax.plot([0, 1], [0, 1], color="0.6", linestyle=":", linewidth=1, label="_random order")
    by_run = {r: i for i, r in enumerate(runs)}
    rank_of_run = pl.col(S.RUN_ID).replace_strict(by_run, return_dtype=pl.Int64)
    parts = df.sort([rank_of_run, S.QUERY_ID, "rank"]).partition_by(
        keys, maintain_order=True, as_dict=True
    )
    for i, ((run, query), part) in enumerate(parts.items()):
        ax.plot(
            part["fpr"],
            part["tpr"],
            label=f"{run} {query}",
            markevery=max(1, part.height // 8),
            markersize=4,
            **style(i),
        )
    ax.set_xlabel("false-positive rate FP / (FP + TN)")
    ax.set_ylabel("true-positive rate (recall) TP / (TP + FN)")
    largest = df["fpr"].max() if df.height else None
    if zoom and isinstance(largest, float) and largest > 0:
        ax.set_xlim(0.0, 1.05 * largest)
    else:
        ax.set_xlim(0.0, 1.0)
        ax.set_aspect("equal")
    ax.set_ylim(0.0, 1.02)
    ax.grid(True, linewidth=0.3)
    legend(ax, loc="lower right")
    return fig


# --------------------------------------------------------------------------- PIR


def pir_curves(frame: Any, *, ax: Any = None, max_lines: int = 32) -> Figure:
    """PIR against cut-off (seed 001's figures 10.8-10.20): a line per measure, and per
    threshold (``"best"`` or a fixed value) and group when the frame holds several, with
    the 0.5 baseline of a measure that ties every session.

    Parameters
    ----------
    frame
        :func:`polars_ireval.analysis.pir`'s frame (``[group,] measure, cutoff, rule, threshold,
        pir, sessions, ...``).
    ax
        The Axes to draw on (default: a new figure).
    max_lines
        Refuse a frame with more lines than this (default 32: beyond it no line style
        and marker is left that reads without colour).

    Returns
    -------
    matplotlib.figure.Figure
    """
    df = eager(frame, "plot.pir_curves")
    need = ["measure", "cutoff", "rule", "threshold", "pir", "sessions"]
    require_columns(df, need, "plot.pir_curves", "ir.pir")
    group = [c for c in df.columns if c not in (*need, "agree", "disagree", "tied")]
    best = pl.col("rule") == "best"
    setting = pl.when(best).then(pl.lit("best")).otherwise(pl.col("threshold").cast(pl.String))
    df = df.with_columns(setting.alias("\x00t"))
    keys = [*group, "measure", "\x00t"]
    lines = df.select(keys).unique(maintain_order=True)
    _check_lines(lines.height, max_lines, "plot.pir_curves", ["measure", "threshold", *group])
    several = df["\x00t"].n_unique() > 1
    fig, ax = figure_and_axes(ax, (7.0, 4.5))
    for i, key in enumerate(lines.iter_rows()):
        *where, name, t = key
        part = df.filter(
            pl.all_horizontal(pl.col(c) == v for c, v in zip(keys, key, strict=True))
        ).sort("cutoff")
        label = " ".join([*map(str, where), str(name)] + ([f"(t={t})"] if several else []))
        ax.plot(part["cutoff"], part["pir"], label=label, linewidth=1.2, **style(i))
    cut = df["cutoff"]
    ax.plot(
        [cut.min(), cut.max()], [0.5, 0.5], color="0.5", linestyle=":", linewidth=1,
        label="_baseline 0.5",
    )  # fmt: skip
    sizes = df["sessions"].unique().sort().to_list()
    n = str(sizes[0]) if len(sizes) == 1 else f"{sizes[0]}-{sizes[-1]}"
    ts = df["\x00t"].unique().to_list()
    rule = "" if several else (", best threshold" if ts == ["best"] else f", threshold {ts[0]}")
    ax.set_title(f"PIR over {n} sessions{rule}", fontsize="medium")
    ax.set_xlabel("cut-off")
    ax.set_ylabel("PIR")
    ax.set_xticks(sorted(set(cut.to_list())))
    low = df["pir"].min()
    ax.set_ylim(min(0.45, float(low) - 0.02 if isinstance(low, float) else 0.45), 1.02)
    ax.grid(True, linewidth=0.3)
    legend(ax, loc="lower right")
    return fig


# --------------------------------------------------------------------------- depth curves


def _depth_runs(
    df: pl.DataFrame, names: list[str], run_ids: Sequence[str] | None, top: int
) -> list[str]:
    """The runs to draw: ``run_ids`` checked, or the ``top`` best by the first measure at
    the deepest depth (score descending, ties by run id)."""
    found = df[S.RUN_ID].unique().sort().to_list()
    if run_ids is not None:
        listed = as_run_ids(run_ids, "plot.depth_curves")
        unknown = [r for r in listed if r not in set(found)]
        if unknown or not listed or len(listed) != len(set(listed)):
            raise ParameterError(
                f"plot.depth_curves: run_ids= must name runs of the curve, each once; unknown "
                f"{unknown}, given {len(listed)} ({len(set(listed))} distinct); the curve has "
                f"{len(found)} runs, e.g. {found[:3]}"
            )
        return listed
    top = check_positive_int("top", top)
    first = df.filter(pl.col(MEASURE) == names[0])
    deepest = first.filter(pl.col("depth") == first["depth"].max())
    ranked = deepest.sort([VALUE, S.RUN_ID], descending=[True, False], nulls_last=True)
    return ranked[S.RUN_ID].head(top).to_list()


@renamed(runs="run_ids")
def depth_curves(
    curve: pl.DataFrame | pl.LazyFrame,
    *,
    measure: str | Sequence[str] | None = None,
    run_ids: str | Sequence[str] | None = None,
    top: int = 10,
    ax: Any = None,
    log_depth: bool = True,
    pool_depth: int | None = None,
    band: bool = True,
    max_lines: int = 32,
) -> Figure:
    """A measure against the evaluation depth k, one line per run, with the pool depth
    marked (seed 000's Figures 1-5): one panel per measure.

    Parameters
    ----------
    curve
        What :func:`polars_ireval.depth_curve` returns: ``run_id, measure, depth, value``
        (``[residual]``, ``[pooled]``), means over queries; a per-query curve must be cut
        to one query first.
    measure
        The measure(s) to draw, one panel each, in the order given (default: every
        measure of the curve, in its order).
    run_ids
        The runs to draw, in legend order (one run id, a str, is one run). Default: the
        ``top`` runs by the first measure
        drawn at the curve's deepest depth (score descending, ties by run id), the same
        runs in every panel.
    top
        How many runs to draw when ``run_ids`` is not given (default 10).
    ax
        One Axes (one measure) or a sequence of Axes, one per measure (e.g. a column of
        a grid, to set the condensed curves beside the usual ones); default a new figure
        with one panel per measure, one above the other.
    log_depth
        Draw the depth axis on a log scale (default), as the depths span 1 to 1000.
    pool_depth
        The depth to mark with a vertical dashed line. Default: the depth the curve marks
        ``pooled`` (``depth_curve(..., pool_depth=d)``), none when it has no such column.
        Give it to mark a campaign's pool depth on a curve scored with all its judgments.
    band
        Shade each run's score range value .. value + residual where the curve has a
        (non-null) ``residual`` column (``depth_curve(..., residuals=True)``).
    max_lines
        Refuse to draw more runs than this (default 32: beyond it no line style and
        marker is left that reads without colour).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import polars_ireval as ir
    >>> from polars_ireval import plot
    >>> runs = ir.read_run(ir.example_path("runs"))
    >>> qrels = ir.read_qrels(ir.example_path("qrels.txt"))
    >>> curve = ir.depth_curve(runs, qrels, ["AP", "ERR"], depths=range(1, 101), pool_depth=10)
    >>> fig = plot.depth_curves(curve)
    >>> [a.get_ylabel() for a in fig.axes], [len(a.get_legend().get_texts()) for a in fig.axes]
    (['AP', 'ERR'], [3, 3])
    """
    df = eager(curve, "plot.depth_curves")
    require_columns(df, [S.RUN_ID, MEASURE, "depth", VALUE], "plot.depth_curves", "ir.depth_curve")
    if S.QUERY_ID in df.columns and df[S.QUERY_ID].n_unique() > 1:
        raise ParameterError(
            "plot.depth_curves: the curve is per query (depth_curve(..., per_query=True)) "
            f"with {df[S.QUERY_ID].n_unique()} queries; draw the means (per_query=False) "
            "or one query (.filter(pl.col('query_id') == '1'))"
        )
    found = df[MEASURE].unique(maintain_order=True).to_list()
    names = found if measure is None else [measure] if isinstance(measure, str) else list(measure)
    unknown = [m for m in names if m not in found]
    if unknown or not names:
        raise ParameterError(
            f"plot.depth_curves: measure={measure!r}: {unknown or 'none'} not in the curve, "
            f"which has {found}"
        )
    shown = _depth_runs(df, names, run_ids, top)
    _check_lines(len(shown), max_lines, "plot.depth_curves", [S.RUN_ID])
    if pool_depth is None and "pooled" in df.columns:
        marked = df.filter(pl.col("pooled"))["depth"].unique().to_list()
        pool_depth = marked[0] if len(marked) == 1 else None
    else:
        pool_depth = check_positive_int("pool_depth", pool_depth, optional=True)
    if ax is None:
        Figure = figure_class()
        fig = Figure(figsize=(7.0, 0.6 + 2.8 * len(names)), layout="constrained")
        axes = list(fig.subplots(len(names), 1, squeeze=False, sharex=True)[:, 0])
    else:
        axes = [ax] if hasattr(ax, "plot") or not hasattr(ax, "__iter__") else list(ax)
        if len(axes) != len(names):
            raise ParameterError(
                f"plot.depth_curves: {len(names)} measures to draw ({names}) but {len(axes)} "
                "Axes given; pass one Axes per measure (or measure=...)"
            )
        fig = figure_and_axes(axes[0], (7.0, 3.4))[0]
    for name, one in zip(names, axes, strict=True):
        part = df.filter(pl.col(MEASURE) == name)
        shade = band and RESIDUAL in part.columns and part[RESIDUAL].null_count() < part.height
        for i, run in enumerate(shown):
            line = part.filter(pl.col(S.RUN_ID) == run).sort("depth")
            (drawn,) = one.plot(
                line["depth"], line[VALUE], label=run, linewidth=1.0, markersize=4,
                markevery=0.1, markerfacecolor="white", **style(i),
            )  # fmt: skip
            if shade:
                top_ = line[VALUE] + line[RESIDUAL].fill_null(0.0)
                one.fill_between(
                    line["depth"], line[VALUE], top_, color=drawn.get_color(), alpha=0.15,
                    linewidth=0, label=f"_{run} residual",
                )  # fmt: skip
        if pool_depth is not None:
            one.axvline(
                pool_depth, color="black", linestyle="--", linewidth=0.9,
                label=f"_pool depth {pool_depth}",
            )  # fmt: skip
            one.annotate(
                f"d = {pool_depth}", (pool_depth, 1.0), xycoords=("data", "axes fraction"),
                xytext=(3, -10), textcoords="offset points", fontsize="x-small",
            )  # fmt: skip
        if log_depth:
            one.set_xscale("log")
        one.set_ylabel(str(name))
        one.set_xlabel("evaluation depth k")
        one.grid(True, linewidth=0.3)
        legend(one, outside=True, grow=ax is None and one is axes[-1])
    return fig
