"""Figures of :func:`polars_ireval.evaluate`'s scores: each topic's difference from a
baseline (:func:`per_query_delta`), each run's score range base .. base + residual
(:func:`score_ranges`), and one measure against another (:func:`scatter`); with the frames
the first two draw (:func:`per_query_delta_frame`, :func:`score_ranges_frame`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval._base.numeric import RELATIVE_TOLERANCE
from polars_ireval._base.options import Missing, check_missing, check_positive_int, renamed
from polars_ireval.analysis.agreement import agreement
from polars_ireval.errors import (
    DuplicateError,
    EmptyInputError,
    MissingQueryError,
    ParameterError,
    SchemaError,
    ScoreError,
)
from polars_ireval.plot.drawing import figure_and_axes, figure_class, label_points, plural
from polars_ireval.plot.frames import (
    MEASURE,
    PROJECTED,
    RESIDUAL,
    VALUE,
    as_run_id,
    as_run_ids,
    eager,
    one_measure,
    ordered_runs,
    require_columns,
)
from polars_ireval.results import projected

if TYPE_CHECKING:
    from matplotlib.figure import Figure


# --------------------------------------------------------------------------- checks


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


def _missing_policy(missing: Any, what: str) -> Missing:
    try:
        return check_missing(missing)
    except ParameterError as exc:
        raise ParameterError(f"{what}: {exc}, as for ir.compare") from None


def _topics(
    df: pl.DataFrame, runs: Sequence[str], columns: Sequence[str], missing: str, what: str
) -> pl.DataFrame:
    """The rows of ``runs`` after :func:`polars_ireval.compare`'s missing-query policy: a
    query some run lacks (no row, or a null score) is an error (``"error"``), left out for
    every run (``"skip"``) or scored 0 (``"zero"``, refused for a residual)."""
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
            f"missing='skip' to use the queries every run has{zero} (or evaluate "
            "with missing='zero')"
        )
    if missing == "skip":
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
            "missing='zero' (which computes it) or use missing='skip'"
        )
    zeros = lacking.with_columns(pl.lit(0.0).alias(c) for c in columns)
    return pl.concat([scored, zeros], how="diagonal_relaxed")


# --------------------------------------------------------------------------- per query


def _difference(a: pl.Expr, b: pl.Expr) -> pl.Expr:
    """``a - b``, 0 when within rounding error of the two (as :func:`compare` counts ties:
    bpref's 4180/10201 computed two ways differs by 5.6e-17)."""
    close = (a - b).abs() <= RELATIVE_TOLERANCE * pl.max_horizontal(a.abs(), b.abs())
    return pl.when(close).then(0.0).otherwise(a - b)


@renamed(per_q="results", runs="run_ids")
def per_query_delta_frame(
    results: pl.DataFrame | pl.LazyFrame,
    *,
    baseline: str | int,
    measure: str | None = None,
    run_ids: str | Sequence[str] | None = None,
    missing: Missing = "error",
) -> pl.DataFrame:
    """Each run's topic-wise difference from ``baseline``, sorted: what
    :func:`per_query_delta` draws.

    Returns ``run_id, query_id, delta, position``: ``delta = value(run) - value(baseline)``
    per topic, ``position`` 0, 1, ... by decreasing delta (ties by query id) within each
    run; runs in the order of ``run_ids`` (default: by run id). Run and query ids are
    compared as strings, as :func:`polars_ireval.compare` compares them: ``baseline="1"``
    or ``baseline=1`` for a run id 1, ``run_ids="b"`` for the one run ``b``.

    A query scored for some of the runs (``baseline`` and ``run_ids``) and not others (no
    row, or a null value) follows ``missing=``, as for :func:`polars_ireval.compare`:
    ``"error"`` (default; the message names them), ``"skip"`` (the queries every run
    has; formerly ``"intersect"``) or ``"zero"`` (score them 0). A (run, query) twice, a
    NaN or infinite value and a value column not of numbers are refused. A difference
    within rounding error of the two scores (1e-14 of the larger) is 0, a tie, as
    :func:`polars_ireval.compare` counts it.

    Examples
    --------
    >>> import polars as pl
    >>> results = pl.DataFrame({"run_id": ["a", "a", "b", "b"], "query_id": ["1", "2"] * 2,
    ...                         "measure": "AP", "value": [0.2, 0.5, 0.4, 0.3]})
    >>> per_query_delta_frame(results, baseline="a").rows()
    [('b', '1', 0.2..., 0), ('b', '2', -0.2, 1)]
    """
    what, source = "plot.per_query_delta", "ir.evaluate(per_query=True)"
    missing = _missing_policy(missing, what)
    df = eager(results, what)
    require_columns(df, [S.RUN_ID, S.QUERY_ID, VALUE], what, source)
    df, _ = one_measure(df, measure, what)
    df = _checked(df, [VALUE], what, source)
    found = df[S.RUN_ID].unique().to_list()
    baseline = as_run_id(baseline, what, "baseline")
    if baseline not in found:
        raise ParameterError(
            f"plot.per_query_delta: baseline={baseline!r} is not a run of the frame "
            f"({sorted(found)[:10]})"
        )
    others = sorted(r for r in found if r != baseline)
    if run_ids is not None:
        listed = as_run_ids(run_ids, what)
        unknown = [r for r in listed if r not in others]
        if unknown or not listed or len(listed) != len(set(listed)):
            raise ParameterError(
                f"plot.per_query_delta: run_ids={run_ids!r} must list runs of the frame other "
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


#: Panels of :func:`per_query_delta` on one figure: six rows of four fill a page.
PANELS_PER_PAGE = 24


@renamed(per_q="results", runs="run_ids", max_runs="per_page")
def per_query_delta(
    results: pl.DataFrame | pl.LazyFrame,
    *,
    baseline: str | int,
    measure: str | None = None,
    run_ids: str | Sequence[str] | None = None,
    ax: Any = None,
    per_page: int = PANELS_PER_PAGE,
    page: int = 1,
    missing: Missing = "error",
) -> Figure:
    """Topic-wise differences against a baseline, sorted, as bars: one panel per run, in
    a grid of small multiples that share their y axis, ``per_page`` panels a figure.

    Bars above zero (the run wins the topic) are filled dark grey, bars below zero white
    and hatched. Each panel's title gives the wins and losses. A campaign of more runs
    than ``per_page`` is drawn a page at a time: ``page=2`` for the next ones (the figure's
    title says which runs of how many).

    Parameters
    ----------
    results
        Per-query scores: ``ir.evaluate(..., per_query=True)`` (``run_id, query_id,
        measure, value``).
    baseline
        The run every other run is compared with (an integer names the run whose id is
        its decimal text, as for :func:`polars_ireval.compare`).
    measure
        The measure to draw (required when the frame holds several).
    run_ids
        The runs to compare, in panel order (default: every other run, by run id); one
        run id (a str) is one run.
    ax
        One Axes (with one run to draw) or a sequence of Axes (one per run on the page).
    per_page
        Panels in one figure (default 24: six rows of four on a page).
    page
        Which page of ``per_page`` runs to draw (from 1).
    missing
        Queries scored for some of the runs and not others: ``"error"``, ``"skip"``
        or ``"zero"``, as for :func:`polars_ireval.compare` (see
        :func:`per_query_delta_frame`).

    Returns
    -------
    matplotlib.figure.Figure
    """
    deltas = per_query_delta_frame(
        results, baseline=baseline, measure=measure, run_ids=run_ids, missing=missing
    )
    name = one_measure(eager(results, "plot.per_query_delta"), measure, "")[1]
    every = deltas[S.RUN_ID].unique(maintain_order=True).to_list()
    per_page = check_positive_int("per_page", per_page)
    page = check_positive_int("page", page)
    pages = max(1, -(-len(every) // per_page))
    if page > pages:
        raise ParameterError(
            f"plot.per_query_delta: page={page}, but {len(every)} runs make {pages} "
            f"page(s) of {per_page}; use page=1..{pages}"
        )
    shown = every[(page - 1) * per_page : page * per_page]
    if ax is None:
        fig, axes = _grid(len(shown))
    else:
        axes = [ax] if hasattr(ax, "plot") or not hasattr(ax, "__iter__") else list(ax)
        if len(axes) != len(shown):
            raise ParameterError(
                f"plot.per_query_delta: {len(shown)} runs to draw ({shown[:5]}) but "
                f"{len(axes)} Axes given; pass one Axes per run (or run_ids=[...])"
            )
        fig = figure_and_axes(axes[0], (7.0, 3.0))[0]
    small = len(shown) > 4
    for run, one in zip(shown, axes, strict=True):
        part = deltas.filter(pl.col(S.RUN_ID) == run)
        up = part["delta"] > 0
        bars = one.bar(
            part["position"],
            part["delta"],
            width=0.8,
            edgecolor="black",
            linewidth=0.3 if small else 0.6,
            color=["0.25" if u else "white" for u in up],
            label=run,
        )
        for patch, u in zip(bars.patches, up, strict=True):
            if not u:
                patch.set_hatch("///")
        one.axhline(0.0, color="black", linewidth=0.8)
        wins, losses = int(up.sum()), int((part["delta"] < 0).sum())
        score = f"{plural(wins, 'win')}, {plural(losses, 'loss', 'losses')}"
        if small:
            one.set_title(f"{run}\n{score}", fontsize=7)
            one.tick_params(labelsize=6)
        else:
            one.set_title(f"{run} vs {baseline}: {score}", fontsize="medium")
            one.set_ylabel(f"Δ {name}")
            one.set_xlabel(f"topics, by decreasing difference (n = {part.height})")
        one.set_xticks([])
        one.grid(True, axis="y", linewidth=0.3)
    if small and ax is None:
        n = deltas.filter(pl.col(S.RUN_ID) == shown[0]).height
        first, last = (page - 1) * per_page + 1, (page - 1) * per_page + len(shown)
        which = f"runs {first}-{last} of {len(every)}" if pages > 1 else f"{len(every)} runs"
        fig.suptitle(
            f"Δ {name} against {baseline} per topic, {n} topics by decreasing difference ({which})",
            fontsize=9,
        )
    return fig


def _grid(n: int) -> tuple[Any, list[Any]]:
    """A figure of ``n`` panels: one column of wide panels up to 4, else a grid of four
    columns of small multiples (1.8 x 1.35 inches each) sharing the y axis."""
    Figure = figure_class()
    if n <= 4:
        fig = Figure(figsize=(7.0, 0.4 + 2.4 * n), layout="constrained")
        return fig, list(fig.subplots(n, 1, squeeze=False, sharey=True)[:, 0])
    cols = 4
    rows = -(-n // cols)
    fig = Figure(figsize=(7.2, 0.5 + 1.35 * rows), layout="constrained")
    grid = fig.subplots(rows, cols, squeeze=False, sharey=True)
    axes = [a for row in grid for a in row]
    for extra in axes[n:]:
        extra.set_visible(False)
    return fig, axes[:n]


# --------------------------------------------------------------------------- score ranges


@renamed(per_q="results")
def score_ranges_frame(
    results: pl.DataFrame | pl.LazyFrame,
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
    ``"skip"`` (the queries every run has); ``"zero"`` is refused where a query is
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
    >>> results = pl.DataFrame({"run_id": ["a", "a", "b", "b"], "query_id": ["1", "2"] * 2,
    ...                         "measure": "RBP(p=0.8)", "value": [0.2, 0.4, 0.5, 0.5],
    ...                         "residual": [0.5, 0.3, 0.0, 0.2]})
    >>> score_ranges_frame(results).select("run_id", "base", "upper").rows()
    [('b', 0.5, 0.6), ('a', 0.30000000000000004, 0.7000000000000001)]
    """
    what, source = "plot.score_ranges", "ir.evaluate(..., residuals=True)"
    missing = _missing_policy(missing, what)
    df = eager(results, what)
    require_columns(df, [S.RUN_ID, VALUE, RESIDUAL], what, source)
    full = df
    df, name = one_measure(df, measure, what)
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
        listed = ordered_runs(runs, order_by, "plot.score_ranges (order_by)")
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


@renamed(per_q="results")
def score_ranges(
    results: pl.DataFrame | pl.LazyFrame,
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
    results
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
        Queries scored for some runs and not others: ``"error"`` or ``"skip"``, as
        for :func:`polars_ireval.compare` (see :func:`score_ranges_frame`).

    Returns
    -------
    matplotlib.figure.Figure
    """
    ranges = score_ranges_frame(results, measure=measure, order_by=order_by, missing=missing)
    name = one_measure(eager(results, "plot.score_ranges"), measure, "")[1]
    n = ranges.height
    fig, ax = figure_and_axes(ax, (max(6.0, 1.5 + 0.14 * n), 4.0))
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
    ax.set_ylabel(name)
    how = (
        "by decreasing base score"
        if order_by is None
        else f"by decreasing {order_by}"
        if isinstance(order_by, str)
        else "in the order given"
    )
    ax.set_xlabel(f"runs, {how}")
    # every run labelled, in a size its slot holds (0.14 inch a run: 8 pt)
    width = fig.get_size_inches()[0] if ax.get_figure() is fig else 1.5 + 0.14 * n
    size = label_points((width - 1.5) * 72.0 / max(n, 1))
    ax.set_xticks(x, ranges[S.RUN_ID].to_list(), rotation=90, fontsize=size)
    ax.set_xlim(-0.7, n - 0.3)
    ax.set_ylim(0.0, 1.02)
    ax.grid(True, axis="y", linewidth=0.3)
    ax.legend(fontsize="small", loc="upper right")
    return fig


# --------------------------------------------------------------------------- agreement


def _scores(side: Any, measure: str | None, what: str) -> tuple[pl.DataFrame, str]:
    """run_id, value of one side of :func:`scatter`, and its measure's name."""
    if isinstance(side, Mapping):
        frame = pl.DataFrame(
            {S.RUN_ID: [str(k) for k in side], VALUE: [float(v) for v in side.values()]}
        )
        return frame, measure or what
    df = eager(side, "plot.scatter")
    require_columns(df, [S.RUN_ID, VALUE], "plot.scatter", "ir.evaluate")
    df, name = one_measure(df, measure, "plot.scatter")
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
        both = eager(scores_a, "plot.scatter")
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
    fig, ax = figure_and_axes(ax, (5.0, 5.0))
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
