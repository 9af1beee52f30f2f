"""Figures of the analysis frames, with matplotlib (the ``plot`` extra).

Each function takes the frame its analysis returns, draws on ``ax=`` (or on a new
:class:`matplotlib.figure.Figure`, without pyplot's global state) and returns the Figure:

=====================  =====================================================  ==================
function               draws                                                  frame from
=====================  =====================================================  ==================
:func:`pr_curve`       recall-precision curves, one line per run (or query)   ``ir.pr_curve``
:func:`roc_curve`      TPR against FPR, one line per ranking                  ``ir.roc_curve``
:func:`per_query_delta`  each topic's difference from a baseline, sorted,     ``ir.evaluate(...,
                       as bars                                                per_query=True)``
:func:`score_ranges`   each run's score range base .. base + residual, with   ``ir.evaluate(...,
                       the projected score marked (seed 002, Figures 1-2)     residuals=True)``
:func:`intervals`      the confidence interval of each difference             ``ir.compare``
:func:`significance`   the matrix of significant differences between runs     ``ir.compare``
:func:`scatter`        one measure against another, a point per run, with     ``ir.evaluate``
                       Kendall's tau (``ir.agreement``) in the title
:func:`pir_curves`     PIR against cut-off, a line per measure (and           ``ir.pir``
                       threshold, group), with the 0.5 baseline (seed 001)
:func:`depth_curves`   a measure against evaluation depth, a line per run,    ``ir.depth_curve``
                       the pool depth marked, a panel per measure (seed 000)
=====================  =====================================================  ==================

What a figure shows beyond its input frame is a frame too: :func:`per_query_delta_frame`,
:func:`score_ranges_frame` and :func:`significance_frame` return what the matching figure
draws. Lines differ by line style and marker as well as colour, bars and cells by fill and
hatching, so that the figures read in grey-scale. Axes carry the measure strings. Runs are
drawn in a stated order, and ``order=`` (``order_by=``) chooses another.

matplotlib is imported when a figure is drawn: ``pip install 'polars-ireval[plot]'``.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval._base.numeric import RELATIVE_TOLERANCE
from polars_ireval.analysis.agreement import agreement
from polars_ireval.analysis.reporting import check_comparison_rows
from polars_ireval.analysis.significance import _MISSING, CORRECTIONS, TESTS
from polars_ireval.errors import (
    DuplicateError,
    EmptyInputError,
    MissingQueryError,
    ParameterError,
    SchemaError,
    ScoreError,
)
from polars_ireval.parse import lower_is_better as _lower_is_better
from polars_ireval.results import projected

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "depth_curves",
    "intervals",
    "per_query_delta",
    "per_query_delta_frame",
    "pir_curves",
    "pr_curve",
    "roc_curve",
    "scatter",
    "score_ranges",
    "score_ranges_frame",
    "significance",
    "significance_frame",
]

#: Line styles and markers, combined so that no two of the first 32 lines look alike
#: without colour.
LINESTYLES: tuple[str, ...] = ("-", "--", "-.", ":")
MARKERS: tuple[str, ...] = ("o", "s", "^", "D", "v", "x", "+", "*")
MEASURE, VALUE, RESIDUAL, PROJECTED = "measure", "value", "residual", "projected"
Missing = Literal["error", "intersect", "zero"]


# --------------------------------------------------------------------------- helpers


def _matplotlib() -> Any:
    """matplotlib's Figure class, imported now, or an ImportError saying how to install it."""
    try:
        from matplotlib.figure import Figure
    except ImportError as e:  # pragma: no cover - exercised with matplotlib hidden
        raise ImportError(
            "polars_ireval.plot draws with matplotlib, which is not installed: "
            "pip install 'polars-ireval[plot]' (or pip install 'matplotlib>=3.8')"
        ) from e
    return Figure


def _axes(ax: Any, size: tuple[float, float]) -> tuple[Figure, Axes]:
    """``ax`` and its figure, or a new figure of ``size`` inches with one Axes."""
    Figure = _matplotlib()
    if ax is None:
        fig = Figure(figsize=size, layout="constrained")
        return fig, fig.add_subplot()
    if not hasattr(ax, "plot") or not hasattr(ax, "figure"):
        raise ParameterError(f"ax={ax!r}: must be a matplotlib Axes (or None for a new figure)")
    return ax.figure, ax


def style(i: int) -> dict[str, Any]:
    """The line style and marker of the ``i``-th line: both change from one line to the
    next (the marker steps one further every 8 lines, so the first 32 are all distinct).

    >>> style(0), style(1)
    ({'linestyle': '-', 'marker': 'o'}, {'linestyle': '--', 'marker': 's'})
    >>> style(8)
    {'linestyle': '-', 'marker': 's'}
    """
    return {
        "linestyle": LINESTYLES[i % len(LINESTYLES)],
        "marker": MARKERS[(i + i // len(MARKERS)) % len(MARKERS)],
    }


def _eager(frame: Any, what: str) -> pl.DataFrame:
    if isinstance(frame, pl.LazyFrame):
        return frame.collect()
    if isinstance(frame, pl.DataFrame):
        return frame
    raise SchemaError(f"{what} takes a Polars DataFrame or LazyFrame, not {type(frame).__name__}")


def _require(frame: pl.DataFrame, columns: Sequence[str], what: str, source: str) -> None:
    absent = [c for c in columns if c not in frame.columns]
    if absent:
        raise SchemaError(
            f"{what}: the frame lacks the column(s) {absent} (it has {frame.columns}); "
            f"pass the frame {source} returns"
        )


def _one_measure(frame: pl.DataFrame, measure: str | None, what: str) -> tuple[pl.DataFrame, str]:
    """The rows of one measure, and its name."""
    if frame.height == 0:
        raise EmptyInputError(f"{what}: the frame is empty (no rows): nothing to draw")
    if MEASURE not in frame.columns:
        return frame, measure or VALUE
    names = frame[MEASURE].unique(maintain_order=True).to_list()
    if measure is None:
        if len(names) != 1:
            raise ParameterError(
                f"{what}: the frame holds {len(names)} measures {names}; choose one with "
                "measure=..."
            )
        measure = names[0]
    elif measure not in names:
        raise ParameterError(f"{what}: measure={measure!r} is not in the frame, which has {names}")
    return frame.filter(pl.col(MEASURE) == measure), str(measure)


def _checked(df: pl.DataFrame, columns: Sequence[str], what: str, source: str) -> pl.DataFrame:
    """``df`` with its run (and query) ids as strings, compared as :func:`polars_ireval.compare`
    compares them, and ``columns`` as Float64. A column not of numbers, a null id, a run (or
    (run, query)) twice, a NaN or an infinite score are refused; a null score stays: it is
    a missing one."""
    for c in columns:
        if not df.schema[c].is_numeric():
            raise SchemaError(
                f"{what}: column {c!r} holds {df.schema[c]}, not numbers; pass the frame "
                f"{source} returns (or cast it: pl.col({c!r}).cast(pl.Float64))"
            )
    keys = [k for k in (S.RUN_ID, S.QUERY_ID) if k in df.columns]
    df = df.with_columns(
        *(pl.col(k).cast(pl.String) for k in keys), *(pl.col(c).cast(pl.Float64) for c in columns)
    )
    for k in keys:
        if df[k].null_count():
            raise SchemaError(
                f"{what}: the {k} column holds {df[k].null_count()} null(s); every score "
                f"needs a {k}"
            )

    def where(row: dict[str, Any]) -> str:
        return ", ".join(f"{k} {row[k]!r}" for k in keys)

    dup = df.filter(pl.struct(keys).is_duplicated())
    if dup.height:
        raise DuplicateError(
            f"{what}: {dup.height} rows share their ({', '.join(keys)}), e.g. "
            f"{where(dup.row(0, named=True))}; keep one row per {' and '.join(keys)} "
            "(of each measure)"
        )
    for c in columns:
        bad = df.filter(pl.col(c).is_nan() | pl.col(c).is_infinite())
        if bad.height:
            row = bad.row(0, named=True)
            raise ScoreError(
                f"{what}: column {c!r} holds {bad.height} NaN or infinite value(s), e.g. "
                f"{where(row)}: {row[c]}; fix or drop them (a query a run lacks is a "
                "missing row, see missing=)"
            )
    return df


def _run_id(x: Any, what: str, name: str) -> str:
    """A run id as the frame holds it once read as strings (as :func:`polars_ireval.compare`
    reads them): a str, or an integer read as its decimal text (``1`` names the run
    ``'1'``)."""
    if isinstance(x, str):
        return x
    if isinstance(x, numbers.Integral) and not isinstance(x, bool):
        return str(int(x))
    raise ParameterError(f"{what}: {name}={x!r} is no run id: give a str (or an integer)")


def _run_ids(runs: Any, what: str) -> list[str]:
    """``runs=``: run ids, or one (a str is one run id, never its characters)."""
    if isinstance(runs, (str, numbers.Integral)):
        runs = [runs]
    if isinstance(runs, Mapping) or not isinstance(runs, Iterable):
        raise ParameterError(f"{what}: runs={runs!r}: give a run id or a list of run ids")
    return [_run_id(r, what, "runs") for r in runs]


def _missing_policy(missing: Any, what: str) -> str:
    if not isinstance(missing, str) or missing not in _MISSING:
        raise ParameterError(
            f"{what}: missing={missing!r} is unknown; use one of {list(_MISSING)}, as for "
            "ir.compare"
        )
    return missing


def _topics(
    df: pl.DataFrame, runs: Sequence[str], columns: Sequence[str], missing: str, what: str
) -> pl.DataFrame:
    """The rows of ``runs`` after :func:`polars_ireval.compare`'s missing-query policy: a
    query some run lacks (no row, or a null score) is an error (``"error"``), left out for
    every run (``"intersect"``) or scored 0 (``"zero"``, refused for a residual)."""
    df = df.filter(pl.col(S.RUN_ID).is_in(list(runs)))
    scored = df.filter(pl.all_horizontal(pl.col(c).is_not_null() for c in columns))
    grid = pl.DataFrame({S.RUN_ID: list(runs)}, schema={S.RUN_ID: pl.String}).join(
        df.select(S.QUERY_ID).unique(), how="cross"
    )
    lacking = grid.join(scored, on=[S.RUN_ID, S.QUERY_ID], how="anti").sort(S.RUN_ID, S.QUERY_ID)
    if lacking.height == 0:
        return scored
    if missing == "error":
        shown = ", ".join(f"{r!r} lacks query {q!r}" for r, q in lacking.head(5).iter_rows())
        more = f" and {lacking.height - 5} more" if lacking.height > 5 else ""
        zero = "" if RESIDUAL in columns else ", or missing='zero' to score them 0"
        raise MissingQueryError(
            f"{what}: {lacking.height} (run, query) score(s) missing: {shown}{more}; pass "
            f"missing='intersect' to use the queries every run has{zero} (or evaluate "
            "with missing='zero')"
        )
    if missing == "intersect":
        kept = scored.join(lacking.select(S.QUERY_ID).unique(), on=S.QUERY_ID, how="anti")
        if kept.height == 0:
            raise EmptyInputError(
                f"{what}: the runs {list(runs)[:5]} have no query in common; nothing to draw"
            )
        return kept
    if RESIDUAL in columns:
        raise ParameterError(
            f"{what}: missing='zero' cannot score 'residual' for the {lacking.height} missing "
            f"(run, query) score(s), e.g. {lacking[S.RUN_ID][0]!r} lacks query "
            f"{lacking[S.QUERY_ID][0]!r}: its residual is unknown; evaluate with "
            "missing='zero' (which computes it) or use missing='intersect'"
        )
    zeros = lacking.with_columns(pl.lit(0.0).alias(c) for c in columns)
    return pl.concat([scored, zeros], how="diagonal_relaxed")


def _ordered(found: Sequence[str], order: Sequence[str] | None, what: str) -> list[str]:
    """``order`` checked against the ids ``found`` (each exactly once), or ``found``."""
    if order is None:
        return list(found)
    if isinstance(order, str):
        raise ParameterError(f"{what}: order={order!r} must be a sequence of run ids, not one")
    order = list(order)
    missing, unknown = set(found) - set(order), set(order) - set(found)
    if missing or unknown or len(order) != len(set(order)):
        raise ParameterError(
            f"{what}: order= must list every run of the frame once; missing "
            f"{sorted(missing)}, unknown {sorted(unknown)}, given {len(order)} for "
            f"{len(found)} runs"
        )
    return order


def _curve_keys(frame: pl.DataFrame) -> list[str]:
    return [c for c in (S.RUN_ID, S.QUERY_ID) if c in frame.columns]


def _check_lines(n: int, max_lines: int, what: str, keys: list[str]) -> None:
    if not isinstance(max_lines, int) or isinstance(max_lines, bool) or max_lines < 1:
        raise ParameterError(f"max_lines={max_lines!r}: must be a positive integer")
    if n > max_lines:
        raise ParameterError(
            f"{what}: the frame holds {n} curves (one per {', '.join(keys)}), more than "
            f"max_lines={max_lines} readable lines; filter it to those to show (e.g. "
            ".filter(pl.col('query_id') == '1')) or raise max_lines"
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
    df = _eager(frame, "plot.pr_curve")
    _require(df, ["recall", "precision"], "plot.pr_curve", "ir.pr_curve")
    keys = _curve_keys(df)
    if S.RUN_ID not in df.columns:
        df = df.with_columns(pl.lit("run").alias(S.RUN_ID))
    means = df.group_by(S.RUN_ID).agg(pl.col("precision").mean())
    ranked = means.sort(["precision", S.RUN_ID], descending=[True, False])[S.RUN_ID].to_list()
    runs = _ordered(ranked, order, "plot.pr_curve")
    curves = df.select([S.RUN_ID, *(k for k in keys if k != S.RUN_ID)]).unique()
    _check_lines(curves.height, max_lines, "plot.pr_curve", keys or ["run"])
    fig, ax = _axes(ax, (6.0, 4.5))
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
    ax.legend(fontsize="small", title="runs by mean precision" if order is None else None)
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
    df = _eager(frame, "plot.roc_curve")
    _require(df, [S.QUERY_ID, "rank", "tpr", "fpr"], "plot.roc_curve", "ir.roc_curve")
    if S.RUN_ID not in df.columns:
        df = df.with_columns(pl.lit("run").alias(S.RUN_ID))
    keys = [S.RUN_ID, S.QUERY_ID]
    df = df.filter(pl.col("tpr").is_not_null().all().over(keys))
    runs = _ordered(sorted(df[S.RUN_ID].unique().to_list()), order, "plot.roc_curve")
    _check_lines(df.select(keys).n_unique(), max_lines, "plot.roc_curve", keys)
    fig, ax = _axes(ax, (5.0, 5.0))
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
    ax.legend(fontsize="small", loc="lower right")
    return fig


# --------------------------------------------------------------------------- per query


def _difference(a: pl.Expr, b: pl.Expr) -> pl.Expr:
    """``a - b``, 0 when within rounding error of the two (as :func:`compare` counts ties:
    bpref's 4180/10201 computed two ways differs by 5.6e-17)."""
    close = (a - b).abs() <= RELATIVE_TOLERANCE * pl.max_horizontal(a.abs(), b.abs())
    return pl.when(close).then(0.0).otherwise(a - b)


def per_query_delta_frame(
    per_q: pl.DataFrame | pl.LazyFrame,
    *,
    baseline: str | int,
    measure: str | None = None,
    runs: str | Sequence[str] | None = None,
    missing: Missing = "error",
) -> pl.DataFrame:
    """Each run's topic-wise difference from ``baseline``, sorted: what
    :func:`per_query_delta` draws.

    Returns ``run_id, query_id, delta, position``: ``delta = value(run) - value(baseline)``
    per topic, ``position`` 0, 1, ... by decreasing delta (ties by query id) within each
    run; runs in the order of ``runs`` (default: by run id). Run and query ids are
    compared as strings, as :func:`polars_ireval.compare` compares them: ``baseline="1"``
    or ``baseline=1`` for a run id 1, ``runs="b"`` for the one run ``b``.

    A query scored for some of the runs (``baseline`` and ``runs``) and not others (no
    row, or a null value) follows ``missing=``, as for :func:`polars_ireval.compare`:
    ``"error"`` (default; the message names them), ``"intersect"`` (the queries every
    run has) or ``"zero"`` (score them 0). A (run, query) twice, a NaN or infinite value
    and a value column not of numbers are refused. A difference within rounding error
    of the two scores (1e-14 of the larger) is 0, a tie, as :func:`polars_ireval.compare`
    counts it.

    Examples
    --------
    >>> import polars as pl
    >>> per_q = pl.DataFrame({"run_id": ["a", "a", "b", "b"], "query_id": ["1", "2"] * 2,
    ...                       "measure": "AP", "value": [0.2, 0.5, 0.4, 0.3]})
    >>> per_query_delta_frame(per_q, baseline="a").rows()
    [('b', '1', 0.2..., 0), ('b', '2', -0.2, 1)]
    """
    what, source = "plot.per_query_delta", "ir.evaluate(per_query=True)"
    missing = _missing_policy(missing, what)  # type: ignore[assignment]
    df = _eager(per_q, what)
    _require(df, [S.RUN_ID, S.QUERY_ID, VALUE], what, source)
    df, _ = _one_measure(df, measure, what)
    df = _checked(df, [VALUE], what, source)
    found = df[S.RUN_ID].unique().to_list()
    baseline = _run_id(baseline, what, "baseline")
    if baseline not in found:
        raise ParameterError(
            f"plot.per_query_delta: baseline={baseline!r} is not a run of the frame "
            f"({sorted(found)[:10]})"
        )
    others = sorted(r for r in found if r != baseline)
    if runs is not None:
        listed = _run_ids(runs, what)
        unknown = [r for r in listed if r not in others]
        if unknown or not listed or len(listed) != len(set(listed)):
            raise ParameterError(
                f"plot.per_query_delta: runs={runs!r} must list runs of the frame other "
                f"than the baseline, each once ({others[:10]}); unknown: {unknown}"
            )
        others = listed
    df = _topics(df, [baseline, *others], [VALUE], missing, what)
    base = df.filter(pl.col(S.RUN_ID) == baseline).select(S.QUERY_ID, pl.col(VALUE).alias("__b"))
    rank = {r: i for i, r in enumerate(others)}
    return (
        df.filter(pl.col(S.RUN_ID).is_in(others))
        .join(base, on=S.QUERY_ID)
        .select(S.RUN_ID, S.QUERY_ID, _difference(pl.col(VALUE), pl.col("__b")).alias("delta"))
        .sort(
            [pl.col(S.RUN_ID).replace_strict(rank, return_dtype=pl.Int64), "delta", S.QUERY_ID],
            descending=[False, True, False],
        )
        .with_columns(pl.int_range(pl.len(), dtype=pl.Int64).over(S.RUN_ID).alias("position"))
    )


def per_query_delta(
    per_q: pl.DataFrame | pl.LazyFrame,
    *,
    baseline: str | int,
    measure: str | None = None,
    runs: str | Sequence[str] | None = None,
    ax: Any = None,
    max_runs: int = 12,
    missing: Missing = "error",
) -> Figure:
    """Topic-wise differences against a baseline, sorted, as bars: one panel per run.

    Bars above zero (the run wins the topic) are filled dark grey, bars below zero white
    and hatched. The title gives the wins and losses.

    Parameters
    ----------
    per_q
        Per-query scores: ``ir.evaluate(..., per_query=True)`` (``run_id, query_id,
        measure, value``).
    baseline
        The run every other run is compared with (an integer names the run whose id is
        its decimal text, as for :func:`polars_ireval.compare`).
    measure
        The measure to draw (required when the frame holds several).
    runs
        The runs to compare, in panel order (default: every other run, by run id); one
        run id (a str) is one run.
    ax
        One Axes (with one run to draw) or a sequence of Axes (one per run).
    max_runs
        Refuse to draw more panels than this (default 12): pass ``runs=[...]``.
    missing
        Queries scored for some of the runs and not others: ``"error"``, ``"intersect"``
        or ``"zero"``, as for :func:`polars_ireval.compare` (see
        :func:`per_query_delta_frame`).

    Returns
    -------
    matplotlib.figure.Figure
    """
    deltas = per_query_delta_frame(
        per_q, baseline=baseline, measure=measure, runs=runs, missing=missing
    )
    name = _one_measure(_eager(per_q, "plot.per_query_delta"), measure, "")[1]
    shown = deltas[S.RUN_ID].unique(maintain_order=True).to_list()
    if not isinstance(max_runs, int) or isinstance(max_runs, bool) or max_runs < 1:
        raise ParameterError(f"max_runs={max_runs!r}: must be a positive integer")
    if len(shown) > max_runs:
        raise ParameterError(
            f"plot.per_query_delta: {len(shown)} runs to compare with {baseline!r}, one "
            f"panel each, more than max_runs={max_runs}; choose them with runs=[...] (or "
            "raise max_runs)"
        )
    if ax is None:
        Figure = _matplotlib()
        fig = Figure(figsize=(7.0, 0.4 + 2.4 * len(shown)), layout="constrained")
        axes = list(fig.subplots(len(shown), 1, squeeze=False, sharey=True)[:, 0])
    else:
        axes = [ax] if hasattr(ax, "plot") or not hasattr(ax, "__iter__") else list(ax)
        if len(axes) != len(shown):
            raise ParameterError(
                f"plot.per_query_delta: {len(shown)} runs to draw ({shown[:5]}) but "
                f"{len(axes)} Axes given; pass one Axes per run (or runs=[...])"
            )
        fig = _axes(axes[0], (7.0, 3.0))[0]
    for run, one in zip(shown, axes, strict=True):
        part = deltas.filter(pl.col(S.RUN_ID) == run)
        up = part["delta"] > 0
        bars = one.bar(
            part["position"],
            part["delta"],
            width=0.8,
            edgecolor="black",
            linewidth=0.6,
            color=["0.25" if u else "white" for u in up],
            label=run,
        )
        for patch, u in zip(bars.patches, up, strict=True):
            if not u:
                patch.set_hatch("///")
        one.axhline(0.0, color="black", linewidth=0.8)
        wins, losses = int(up.sum()), int((part["delta"] < 0).sum())
        one.set_title(f"{run} vs {baseline}: {wins} wins, {losses} losses", fontsize="medium")
        one.set_ylabel(f"Δ {name}")
        one.set_xlabel(f"topics, by decreasing difference (n = {part.height})")
        one.set_xticks([])
        one.grid(True, axis="y", linewidth=0.3)
    return fig


# --------------------------------------------------------------------------- score ranges


def score_ranges_frame(
    per_q: pl.DataFrame | pl.LazyFrame,
    *,
    measure: str | None = None,
    order_by: str | Sequence[str] | None = None,
    missing: Missing = "error",
) -> pl.DataFrame:
    """Each run's score range, base .. base + residual, and its projected score: what
    :func:`score_ranges` draws.

    A per-query frame (with ``query_id``) is averaged as :func:`polars_ireval.evaluate`
    averages it: base and residual are means over the topics, and the projection is
    Moffat and Zobel's base + residual · base / (1 - residual) of those means. An
    aggregated frame is read as it is. The projection is null where the residual is 1
    (nothing judged: no rate of relevance to project from).

    Every run is averaged over the same topics: a query scored for some runs and not
    others (no row, or a null value or residual) follows ``missing=`` as in
    :func:`polars_ireval.compare`: ``"error"`` (default; the message names them) or
    ``"intersect"`` (the queries every run has); ``"zero"`` is refused where a query is
    missing, as the residual of a query not scored is unknown (evaluate with
    ``missing="zero"``, which computes it). The ``order_by`` measure's means follow the
    same policy. A (run, query) twice (a run twice in an aggregated frame), a NaN or
    infinite value or residual, a negative residual and a column not of numbers are
    refused. Run ids come out as strings.

    Returns ``run_id, position, base, residual, upper, projected``, by ``position``: runs
    by decreasing mean of the measure ``order_by`` names (a measure of the frame), in the
    order of a list of run ids, or by decreasing base score (default).

    Examples
    --------
    >>> import polars as pl
    >>> per_q = pl.DataFrame({"run_id": ["a", "a", "b", "b"], "query_id": ["1", "2"] * 2,
    ...                       "measure": "RBP(p=0.8)", "value": [0.2, 0.4, 0.5, 0.5],
    ...                       "residual": [0.5, 0.3, 0.0, 0.2]})
    >>> score_ranges_frame(per_q).select("run_id", "base", "upper").rows()
    [('b', 0.5, 0.6), ('a', 0.30000000000000004, 0.7000000000000001)]
    """
    what, source = "plot.score_ranges", "ir.evaluate(..., residuals=True)"
    missing = _missing_policy(missing, what)  # type: ignore[assignment]
    df = _eager(per_q, what)
    _require(df, [S.RUN_ID, VALUE, RESIDUAL], what, source)
    full = df
    df, name = _one_measure(df, measure, what)
    df = _checked(df, [VALUE, RESIDUAL], what, source)
    if df[RESIDUAL].null_count() == df.height:
        raise ParameterError(
            f"plot.score_ranges: {name} has no residual (null): choose a measure with one "
            "(RBP, P, SDCG, the C/W/L measures) and evaluate with residuals=True"
        )
    negative = df.filter(pl.col(RESIDUAL) < 0)
    if negative.height:
        row = negative.row(0, named=True)
        at = ", ".join(f"{k} {row[k]!r}" for k in (S.RUN_ID, S.QUERY_ID) if k in row)
        raise ScoreError(
            f"{what}: {name} has {negative.height} negative residual(s), e.g. {at}: "
            f"{row[RESIDUAL]}; a residual is the score unjudged documents could add, 0 or "
            f"more: pass the frame {source} returns"
        )
    runs = df[S.RUN_ID].unique(maintain_order=True).to_list()
    df = _averaged(df, runs, [VALUE, RESIDUAL], missing, what)
    ranges = df.select(
        S.RUN_ID,
        pl.col(VALUE).alias("base"),
        pl.col(RESIDUAL).alias(RESIDUAL),
        (pl.col(VALUE) + pl.col(RESIDUAL)).alias("upper"),
        projected(pl.col(VALUE), pl.col(RESIDUAL)).alias(PROJECTED),
    )
    runs = ranges[S.RUN_ID].to_list()
    if order_by is None:
        key = ranges.select(S.RUN_ID, pl.col("base").alias("__key"))
    elif isinstance(order_by, str):
        measures = full[MEASURE].unique().to_list() if MEASURE in full.columns else []
        if order_by not in measures:
            raise ParameterError(
                f"plot.score_ranges: order_by={order_by!r} is not a measure of the frame "
                f"({measures}); evaluate it too, or pass a list of run ids"
            )
        rows = _checked(full.filter(pl.col(MEASURE) == order_by), [VALUE], what, source)
        ranked = [r for r in runs if r in set(rows[S.RUN_ID])]  # a run without it: last
        key = _averaged(rows, ranked, [VALUE], missing, what).select(
            S.RUN_ID, pl.col(VALUE).alias("__key")
        )
    else:
        listed = _ordered(runs, order_by, "plot.score_ranges (order_by)")
        key = pl.DataFrame({S.RUN_ID: listed, "__key": [-i for i in range(len(listed))]})
        key = key.with_columns(pl.col("__key").cast(pl.Float64))
    return (
        ranges.join(key, on=S.RUN_ID, how="left")
        .sort(["__key", S.RUN_ID], descending=[True, False], nulls_last=True)
        .with_columns(pl.int_range(pl.len(), dtype=pl.Int64).alias("position"))
        .select(S.RUN_ID, "position", "base", RESIDUAL, "upper", PROJECTED)
    )


def _averaged(
    df: pl.DataFrame, runs: Sequence[str], columns: Sequence[str], missing: str, what: str
) -> pl.DataFrame:
    """``run_id`` and the mean of ``columns`` over the topics of each run of a per-query
    frame (the same topics for every run, by ``missing=``); an aggregated frame as it is,
    a null score in it refused."""
    if S.QUERY_ID in df.columns:
        df = _topics(df, runs, columns, missing, what)
        return df.group_by(S.RUN_ID).agg(pl.col(c).mean() for c in columns)
    null = df.filter(pl.any_horizontal(pl.col(c).is_null() for c in columns))
    if null.height:
        raise ScoreError(
            f"{what}: run {null[S.RUN_ID][0]!r} has no score (null {', '.join(columns)}); "
            "drop it or pass the per-query frame"
        )
    return df.select(S.RUN_ID, *columns)


def score_ranges(
    per_q: pl.DataFrame | pl.LazyFrame,
    *,
    measure: str | None = None,
    order_by: str | Sequence[str] | None = None,
    ax: Any = None,
    missing: Missing = "error",
) -> Figure:
    """Seed 002's Figures 1 and 2: each run's score as a range from its base (unjudged
    documents non-relevant) to base + residual (all relevant), with the projected score
    marked, runs side by side in a stated order.

    Parameters
    ----------
    per_q
        ``ir.evaluate(..., residuals=True)``, per query (averaged here as evaluate
        averages) or aggregated.
    measure
        The measure to draw (required when the frame holds several).
    order_by
        A measure of the frame (runs by its decreasing mean, as the seed orders runs by
        MAP), a list of run ids, or None (by decreasing base score).
    ax
        The Axes to draw on (default: a new figure).
    missing
        Queries scored for some runs and not others: ``"error"`` or ``"intersect"``, as
        for :func:`polars_ireval.compare` (see :func:`score_ranges_frame`).

    Returns
    -------
    matplotlib.figure.Figure
    """
    ranges = score_ranges_frame(per_q, measure=measure, order_by=order_by, missing=missing)
    name = _one_measure(_eager(per_q, "plot.score_ranges"), measure, "")[1]
    n = ranges.height
    fig, ax = _axes(ax, (max(6.0, 1.5 + 0.14 * n), 4.0))
    x = ranges["position"].to_list()
    ax.bar(
        x,
        ranges[RESIDUAL],
        bottom=ranges["base"],
        width=0.7,
        color="0.85",
        edgecolor="black",
        linewidth=0.5,
        label="base .. base + residual",
    )
    ax.plot(
        x,
        ranges[PROJECTED],
        linestyle="none",
        marker="_",
        markersize=10,
        markeredgewidth=1.5,
        color="black",
        label="projected",
    )
    ax.set_ylabel(f"{name}: base .. base + residual")
    how = (
        "by decreasing base score"
        if order_by is None
        else f"by decreasing {order_by}"
        if isinstance(order_by, str)
        else "in the order given"
    )
    ax.set_xlabel(f"runs, {how}")
    if n <= 40:
        ax.set_xticks(x, ranges[S.RUN_ID].to_list(), rotation=90, fontsize="small")
    else:
        ax.set_xticks([])
    ax.set_xlim(-0.7, n - 0.3)
    ax.set_ylim(0.0, 1.02)
    ax.grid(True, axis="y", linewidth=0.3)
    ax.legend(fontsize="small", loc="upper right")
    return fig


# --------------------------------------------------------------------------- comparisons


def _comparison(cmp: Any, measure: str | None, what: str) -> tuple[pl.DataFrame, str]:
    df = _eager(cmp, what)
    _require(df, ["measure", "run_a", "run_b", "delta", "significant"], what, "ir.compare")
    df, name = _one_measure(df, measure, what)
    check_comparison_rows(df, what)
    return df, name


def _legend_text(df: pl.DataFrame) -> str:
    row = df.row(0, named=True)
    test = TESTS[row["test"]].label if row.get("test") in TESTS else str(row.get("test"))
    text = f"{test}, {row.get('alternative', 'two-sided')}, alpha = {row.get('alpha', 0.05):g}"
    if row.get("correction") not in (None, "none"):
        text += f", {CORRECTIONS.get(row['correction'], row['correction'])}"
    return text


def intervals(
    cmp: pl.DataFrame | pl.LazyFrame,
    *,
    measure: str | None = None,
    ax: Any = None,
) -> Figure:
    """The confidence interval of each difference of :func:`polars_ireval.compare`'s output,
    one row per comparison, by decreasing delta (a forest plot).

    Filled markers are significant differences (``p_adjusted <= alpha``), open markers not;
    the dotted line is no difference. An infinite bound (a one-sided interval) is drawn to
    the edge of the axes, ending in an arrow head.

    Parameters
    ----------
    cmp
        ``ir.compare(...)``'s frame (``delta, ci_low, ci_high, significant``...).
    measure
        The measure to draw (required when the frame holds several).
    ax
        The Axes to draw on (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
    """
    df, name = _comparison(cmp, measure, "plot.intervals")
    _require(df, ["ci_low", "ci_high"], "plot.intervals", "ir.compare")
    none = df.filter(pl.col("ci_low").is_null() | pl.col("ci_high").is_null())
    if none.height:
        row = none.row(0, named=True)
        raise ParameterError(
            f"plot.intervals: the comparison has no confidence interval (ci_low, ci_high "
            f"null in {none.height} of {df.height} rows, e.g. run_a {row['run_a']!r}, run_b "
            f"{row['run_b']!r}): it was computed with ci=None; compare with ci='t' (or "
            "'percentile', 'bca', 'tukey') to draw intervals"
        )
    df = df.sort(["delta", "run_a"], descending=[True, False], nulls_last=True)
    baselines = df["run_b"].unique().to_list()
    one_base = len(baselines) == 1
    if one_base and baselines[0] is None:
        labels = df["run_a"].to_list()
        versus = f"the fixed score {df['mean_b'][0]:g}" if "mean_b" in df.columns else "a score"
    elif one_base:
        labels, versus = df["run_a"].to_list(), str(baselines[0])
    else:
        labels = [f"{a} − {b}" for a, b in df.select("run_a", "run_b").iter_rows()]
        versus = ""
    n = df.height
    fig, ax = _axes(ax, (7.0, 1.4 + 0.28 * n))
    finite = [v for v in (*df["ci_low"], *df["ci_high"], *df["delta"]) if v is not None]
    finite = [v for v in finite if math.isfinite(v)]
    lo, hi = (min(finite), max(finite)) if finite else (-1.0, 1.0)
    pad = 0.08 * ((hi - lo) or 1.0)
    lo, hi = min(lo, 0.0) - pad, max(hi, 0.0) + pad
    y = list(range(n))[::-1]  # the first row on top
    low = [lo if v is not None and v == -math.inf else v for v in df["ci_low"]]
    high = [hi if v is not None and v == math.inf else v for v in df["ci_high"]]
    ax.axvline(0.0, color="0.4", linestyle=":", linewidth=1)
    sig = df["significant"].fill_null(False).to_list()
    for flag, face, label in ((True, "black", "significant"), (False, "white", "not significant")):
        rows = [i for i in range(n) if sig[i] == flag]
        if not rows:
            continue
        d = [df["delta"][i] for i in rows]
        err = [
            [d[j] - low[i] for j, i in enumerate(rows)],
            [high[i] - d[j] for j, i in enumerate(rows)],
        ]
        ax.errorbar(
            d,
            [y[i] for i in rows],
            xerr=err,
            fmt="o",
            color="black",
            markerfacecolor=face,
            ecolor="black",
            elinewidth=1,
            capsize=3,
            label=label,
        )
    for i in range(n):  # arrow heads on the open side of one-sided intervals
        if df["ci_low"][i] == -math.inf:
            ax.plot([lo], [y[i]], marker="<", color="black", label="_open")
        if df["ci_high"][i] == math.inf:
            ax.plot([hi], [y[i]], marker=">", color="black", label="_open")
    ax.set_yticks(y[::-1], labels[::-1], fontsize="small" if n > 20 else "medium")
    ax.set_xlim(lo, hi)
    ax.set_ylim(-0.8, n - 0.2)
    row = df.row(0, named=True)
    level = f"{row['confidence']:.0%} " if row.get("confidence") is not None else ""
    method = f"{row['ci_method']} " if row.get("ci_method") else ""
    what = f"Δ {name}" + (f" against {versus}" if versus else " (run_a − run_b)")
    ax.set_xlabel(f"{what}, {level}{method}interval")
    ax.set_title(_legend_text(df), fontsize="small")
    ax.grid(True, axis="x", linewidth=0.3)
    ax.legend(fontsize="small", loc="best")
    return fig


def significance_frame(
    cmp: pl.DataFrame | pl.LazyFrame,
    *,
    measure: str | None = None,
    order: Sequence[str] | None = None,
) -> pl.DataFrame:
    """The matrix of significant differences between runs, long: what
    :func:`significance` draws.

    Returns ``row_run, col_run, row, col, cell`` for every ordered pair of distinct runs:
    ``cell`` is 1 when the row's run is significantly better than the column's, -1 when
    significantly worse, 0 when compared without a significant difference, null when the
    pair was not compared: by the ``direction`` the test found (see
    :func:`polars_ireval.compare`; the sign of ``delta`` in a frame without it), a lower
    value being better for a measure declared so (Fallout). Runs (rows and columns alike)
    from the best mean score (the compared column ``a``) down, ties by run id, or in the
    order of ``order``.

    Examples
    --------
    >>> import polars as pl
    >>> cmp = pl.DataFrame({"measure": "AP", "run_a": ["b", "b"], "run_b": ["a", "c"],
    ...                     "mean_a": [0.5, 0.5], "mean_b": [0.3, 0.6],
    ...                     "delta": [0.2, -0.1], "significant": [True, False]})
    >>> significance_frame(cmp).filter(pl.col("cell").is_not_null()).rows()
    [('c', 'b', 0, 1, 0), ('b', 'c', 1, 0, 0), ('b', 'a', 1, 2, 1), ('a', 'b', 2, 1, -1)]
    """
    df, _ = _comparison(cmp, measure, "plot.significance")
    if df["run_b"].null_count():
        raise ParameterError(
            "plot.significance: the comparison is against a fixed score (run_b null); a "
            "matrix needs pairs of runs: compare with baseline='run' or pairs='all'"
        )
    a, b = pl.col("run_a"), pl.col("run_b")
    pair = pl.struct(
        pl.when(a < b).then(a).otherwise(b).alias("low"),
        pl.when(a < b).then(b).otherwise(a).alias("high"),
    )
    both = df.filter(pair.is_duplicated())
    if both.height:
        row = both.row(0, named=True)
        raise DuplicateError(
            f"plot.significance: the comparison compares ({row['run_a']!r}, "
            f"{row['run_b']!r}) both ways ({both.height} rows for one cell of the matrix); "
            "keep one row per pair of runs (compare(..., pairs='all') gives each once)"
        )
    lower = "measure" in df.columns and df.height > 0 and _lower_is_better(df["measure"][0])
    if {"mean_a", "mean_b"} <= set(df.columns):
        means = (
            pl.concat(
                [
                    df.select(pl.col("run_a").alias("run"), pl.col("mean_a").alias("mean")),
                    df.select(pl.col("run_b").alias("run"), pl.col("mean_b").alias("mean")),
                ]
            )
            .group_by("run")
            .agg(pl.col("mean").mean())
        )
        ranked = means.sort(["mean", "run"], descending=[not lower, False])["run"].to_list()
    else:
        ranked = sorted(set(df["run_a"]) | set(df["run_b"]))
    runs = _ordered(ranked, order, "plot.significance")
    index = {r: i for i, r in enumerate(runs)}
    # the test's direction (compare's column; a signed-rank or sign test can point against
    # delta), turned round for a measure whose lower values are better
    way = pl.col("direction") if "direction" in df.columns else pl.col("delta").sign()
    sign = (
        pl.when(pl.col("significant").fill_null(False))
        .then(way.cast(pl.Int64) * (-1 if lower else 1))
        .otherwise(0)
    )
    cells = df.select(
        pl.col("run_a").alias("row_run"), pl.col("run_b").alias("col_run"), sign.alias("cell")
    )
    mirrored = cells.select(
        pl.col("col_run").alias("row_run"), pl.col("row_run").alias("col_run"), -pl.col("cell")
    )
    pairs = pl.DataFrame(
        [(a, b) for a, b in itertools.permutations(runs, 2)],
        schema=["row_run", "col_run"],
        orient="row",
    )
    return (
        pairs.join(pl.concat([cells, mirrored]), on=["row_run", "col_run"], how="left")
        .with_columns(
            pl.col("row_run").replace_strict(index, return_dtype=pl.Int64).alias("row"),
            pl.col("col_run").replace_strict(index, return_dtype=pl.Int64).alias("col"),
        )
        .select("row_run", "col_run", "row", "col", "cell")
        .sort("row", "col")
    )


def significance(
    cmp: pl.DataFrame | pl.LazyFrame,
    *,
    measure: str | None = None,
    order: Sequence[str] | None = None,
    ax: Any = None,
) -> Figure:
    """The matrix of significant differences between runs (from ``ir.compare``, usually
    ``pairs="all"``): black where the row's run is significantly better than the column's,
    grey where significantly worse, white where the difference is not significant, hatched
    where the pair was not compared. With 30 runs or fewer the cells also carry ``+`` and
    ``−``. Runs by decreasing mean score unless ``order`` lists them.

    Parameters
    ----------
    cmp
        ``ir.compare(...)``'s frame.
    measure
        The measure to draw (required when the frame holds several).
    order
        The runs, top to bottom and left to right.
    ax
        The Axes to draw on (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
    """
    cells = significance_frame(cmp, measure=measure, order=order)
    df, name = _comparison(cmp, measure, "plot.significance")
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    runs = cells.sort("row").unique("row", maintain_order=True)["row_run"].to_list()
    n = len(runs)
    side = min(12.0, 2.5 + 0.28 * n)
    fig, ax = _axes(ax, (side + 3.2, side))
    grid = [[math.nan] * n for _ in range(n)]
    for r, c, v in cells.select("row", "col", "cell").iter_rows():
        if v is not None:
            grid[r][c] = float(v)
    cmap = ListedColormap(["0.65", "white", "black"]).with_extremes(bad="white")
    ax.imshow(grid, cmap=cmap, vmin=-1.5, vmax=1.5, interpolation="nearest", aspect="equal")
    for r in range(n):  # pairs not compared (and the diagonal): hatched
        for c in range(n):
            if math.isnan(grid[r][c]):
                ax.add_patch(_hatched(r, c))
    if n <= 30:
        for r, c, v in cells.filter(pl.col("cell") != 0).select("row", "col", "cell").iter_rows():
            ax.text(
                c,
                r,
                "+" if v > 0 else "−",
                ha="center",
                va="center",
                fontsize="small",
                color="white" if v > 0 else "black",
            )
    ticks = list(range(n))
    labels = runs if n <= 60 else [""] * n
    ax.set_xticks(ticks, labels, rotation=90, fontsize="small")
    ax.set_yticks(ticks, labels, fontsize="small")
    ax.set_xlabel("column run")
    ax.set_ylabel("row run")
    ax.set_title(f"{name}: {_legend_text(df)}", fontsize="small")
    handles = [
        Patch(facecolor="black", edgecolor="black", label="row significantly better"),
        Patch(facecolor="0.65", edgecolor="black", label="row significantly worse"),
        Patch(facecolor="white", edgecolor="black", label="no significant difference"),
        Patch(facecolor="white", edgecolor="0.5", hatch="xx", label="not compared"),
    ]
    ax.legend(handles=handles, fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return fig


def _hatched(r: int, c: int) -> Any:
    from matplotlib.patches import Rectangle

    return Rectangle(
        (c - 0.5, r - 0.5),
        1,
        1,
        fill=False,
        hatch="xx",
        edgecolor="0.7",
        linewidth=0,
        label="_not compared",
    )


# --------------------------------------------------------------------------- agreement


def _scores(side: Any, measure: str | None, what: str) -> tuple[pl.DataFrame, str]:
    """run_id, value of one side of :func:`scatter`, and its measure's name."""
    if isinstance(side, Mapping):
        frame = pl.DataFrame(
            {S.RUN_ID: [str(k) for k in side], VALUE: [float(v) for v in side.values()]}
        )
        return frame, measure or what
    df = _eager(side, "plot.scatter")
    _require(df, [S.RUN_ID, VALUE], "plot.scatter", "ir.evaluate")
    df, name = _one_measure(df, measure, "plot.scatter")
    if S.QUERY_ID in df.columns:
        raise ParameterError(
            "plot.scatter: the frame is per query; pass ir.evaluate's aggregate (one score "
            "per run), as ir.agreement takes"
        )
    return df.select(S.RUN_ID, VALUE), name


def scatter(
    scores_a: Any,
    scores_b: Any = None,
    *,
    measure: str | tuple[str, str] | None = None,
    ax: Any = None,
    labels: bool | None = None,
) -> Figure:
    """One scoring of the runs against another, a point per run, with Kendall's tau-b
    between the two orderings (:func:`polars_ireval.analysis.agreement`) in the title.

    Parameters
    ----------
    scores_a, scores_b
        ``ir.evaluate`` outputs (``run_id, measure, value``) or mappings run -> score, as
        :func:`polars_ireval.analysis.agreement` takes; ``scores_b`` None reads both measures from
        ``scores_a`` (then ``measure=(x, y)`` is required unless it holds exactly two).
    measure
        The measure of each side: one name for both, or ``(measure_a, measure_b)``.
    ax
        The Axes to draw on (default: a new figure).
    labels
        Write each run's id beside its point (default: with 20 runs or fewer).

    Returns
    -------
    matplotlib.figure.Figure
    """
    if scores_b is None:
        both = _eager(scores_a, "plot.scatter")
        names = both[MEASURE].unique(maintain_order=True).to_list() if MEASURE in both else []
        if measure is None and len(names) == 2:
            measure = (names[0], names[1])
        if not isinstance(measure, tuple):
            raise ParameterError(
                "plot.scatter: with one frame, name its two measures: measure=(x, y) "
                f"(the frame has {names})"
            )
        scores_b = scores_a
    ma, mb = measure if isinstance(measure, tuple) else (measure, measure)
    a, name_a = _scores(scores_a, ma, "a")
    b, name_b = _scores(scores_b, mb, "b")
    tau = agreement(a, b, "kendall", details=True)
    points = a.join(b, on=S.RUN_ID, suffix="_b").sort(S.RUN_ID)
    fig, ax = _axes(ax, (5.0, 5.0))
    ax.plot(
        points[VALUE],
        points[VALUE + "_b"],
        linestyle="none",
        marker="o",
        markerfacecolor="white",
        markeredgecolor="black",
        label="runs",
    )
    if labels or (labels is None and points.height <= 20):
        for run, x, y in points.select(S.RUN_ID, VALUE, VALUE + "_b").iter_rows():
            ax.annotate(run, (x, y), xytext=(4, 3), textcoords="offset points", fontsize="x-small")
    ax.set_xlabel(name_a)
    ax.set_ylabel(name_b)
    p = f", p = {tau.p_value:.3g}" if tau.p_value is not None else ""
    ax.set_title(f"Kendall's τ = {tau.coefficient:.3f} ({tau.n} runs{p})", fontsize="medium")
    ax.grid(True, linewidth=0.3)
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
    df = _eager(frame, "plot.pir_curves")
    need = ["measure", "cutoff", "rule", "threshold", "pir", "sessions"]
    _require(df, need, "plot.pir_curves", "ir.pir")
    group = [c for c in df.columns if c not in (*need, "agree", "disagree", "tied")]
    best = pl.col("rule") == "best"
    setting = pl.when(best).then(pl.lit("best")).otherwise(pl.col("threshold").cast(pl.String))
    df = df.with_columns(setting.alias("\x00t"))
    keys = [*group, "measure", "\x00t"]
    lines = df.select(keys).unique(maintain_order=True)
    _check_lines(lines.height, max_lines, "plot.pir_curves", ["measure", "threshold", *group])
    several = df["\x00t"].n_unique() > 1
    fig, ax = _axes(ax, (7.0, 4.5))
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
    ax.legend(fontsize="small", loc="lower right")
    return fig


# --------------------------------------------------------------------------- depth curves


def _depth_runs(
    df: pl.DataFrame, names: list[str], runs: Sequence[str] | None, top: int
) -> list[str]:
    """The runs to draw: ``runs`` checked, or the ``top`` best by the first measure at the
    deepest depth (score descending, ties by run id)."""
    found = df[S.RUN_ID].unique().sort().to_list()
    if runs is not None:
        runs = _run_ids(runs, "plot.depth_curves")
        unknown = [r for r in runs if r not in set(found)]
        if unknown or not runs or len(runs) != len(set(runs)):
            raise ParameterError(
                f"plot.depth_curves: runs= must name runs of the curve, each once; unknown "
                f"{unknown}, given {len(runs)} ({len(set(runs))} distinct); the curve has "
                f"{len(found)} runs, e.g. {found[:3]}"
            )
        return runs
    if not isinstance(top, int) or isinstance(top, bool) or top < 1:
        raise ParameterError(f"top={top!r}: must be a positive integer")
    first = df.filter(pl.col(MEASURE) == names[0])
    deepest = first.filter(pl.col("depth") == first["depth"].max())
    ranked = deepest.sort([VALUE, S.RUN_ID], descending=[True, False], nulls_last=True)
    return ranked[S.RUN_ID].head(top).to_list()


def depth_curves(
    curve: pl.DataFrame | pl.LazyFrame,
    *,
    measure: str | Sequence[str] | None = None,
    runs: str | Sequence[str] | None = None,
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
    runs
        The runs to draw, in legend order (one run id, a str, is one run). Default: the
        ``top`` runs by the first measure
        drawn at the curve's deepest depth (score descending, ties by run id), the same
        runs in every panel.
    top
        How many runs to draw when ``runs`` is not given (default 10).
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
    df = _eager(curve, "plot.depth_curves")
    _require(df, [S.RUN_ID, MEASURE, "depth", VALUE], "plot.depth_curves", "ir.depth_curve")
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
    shown = _depth_runs(df, names, runs, top)
    _check_lines(len(shown), max_lines, "plot.depth_curves", [S.RUN_ID])
    if pool_depth is None and "pooled" in df.columns:
        marked = df.filter(pl.col("pooled"))["depth"].unique().to_list()
        pool_depth = marked[0] if len(marked) == 1 else None
    elif pool_depth is not None and (
        not isinstance(pool_depth, int) or isinstance(pool_depth, bool) or pool_depth < 1
    ):
        raise ParameterError(f"pool_depth={pool_depth!r}: must be a positive integer (or None)")
    if ax is None:
        Figure = _matplotlib()
        fig = Figure(figsize=(7.0, 0.6 + 2.8 * len(names)), layout="constrained")
        axes = list(fig.subplots(len(names), 1, squeeze=False, sharex=True)[:, 0])
    else:
        axes = [ax] if hasattr(ax, "plot") or not hasattr(ax, "__iter__") else list(ax)
        if len(axes) != len(names):
            raise ParameterError(
                f"plot.depth_curves: {len(names)} measures to draw ({names}) but {len(axes)} "
                "Axes given; pass one Axes per measure (or measure=...)"
            )
        fig = _axes(axes[0], (7.0, 3.4))[0]
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
        one.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig
