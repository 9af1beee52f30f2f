"""Figures of :func:`polars_ireval.compare`'s frame: the confidence interval of each
difference (:func:`intervals`) and the matrix of significant differences between runs
(:func:`significance`, its cells from :func:`significance_frame`)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_ireval.analysis.reporting import check_comparison_rows
from polars_ireval.analysis.significance import CORRECTIONS, TESTS
from polars_ireval.errors import DuplicateError, ParameterError
from polars_ireval.parse import lower_is_better as _lower_is_better
from polars_ireval.plot.drawing import figure_and_axes, label_points
from polars_ireval.plot.frames import eager, one_measure, ordered_runs, require_columns

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def _comparison(cmp: Any, measure: str | None, what: str) -> tuple[pl.DataFrame, str]:
    df = eager(cmp, what)
    require_columns(df, ["measure", "run_a", "run_b", "delta", "significant"], what, "ir.compare")
    df, name = one_measure(df, measure, what)
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
    require_columns(df, ["ci_low", "ci_high"], "plot.intervals", "ir.compare")
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
    fig, ax = figure_and_axes(ax, (7.0, 1.4 + 0.28 * n))
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
    runs = ordered_runs(ranked, order, "plot.significance")
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
    fig, ax = figure_and_axes(ax, (side + 3.2, side))
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
    # every run labelled, in a size its cell holds (a 143-run matrix: 5 pt)
    size = label_points(side * 72.0 / max(n, 1))
    ax.set_xticks(ticks, runs, rotation=90, fontsize=size)
    ax.set_yticks(ticks, runs, fontsize=size)
    ax.set_xlabel("column run")
    ax.set_ylabel("row run")
    ax.set_title(f"{name}: {_legend_text(df)}", fontsize="small")
    handles = [
        Patch(facecolor="black", edgecolor="black", label="row significantly better"),
        Patch(facecolor="0.65", edgecolor="black", label="row significantly worse"),
        Patch(facecolor="white", edgecolor="black", label="no significant difference"),
        Patch(facecolor="white", edgecolor="0.5", hatch="xx", label="not compared"),
    ]
    # clear of the grid: a gap of two font sizes
    ax.legend(
        handles=handles, fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0),
        borderaxespad=2.0,
    )  # fmt: skip
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
