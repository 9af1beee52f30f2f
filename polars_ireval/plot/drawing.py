"""What every figure of :mod:`polars_ireval.plot` draws with: matplotlib, imported when a
figure is drawn (the ``plot`` extra), a new figure or the Axes given, and the line styles
and markers that tell lines apart without colour."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from polars_ireval.errors import ParameterError

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Line styles and markers, combined so that no two of the first 32 lines look alike
#: without colour.
LINESTYLES: tuple[str, ...] = ("-", "--", "-.", ":")
MARKERS: tuple[str, ...] = ("o", "s", "^", "D", "v", "x", "+", "*")


def figure_class() -> Any:
    """matplotlib's Figure class, imported now, or an ImportError saying how to install it."""
    try:
        from matplotlib.figure import Figure
    except ImportError as e:  # pragma: no cover - exercised with matplotlib hidden
        raise ImportError(
            "polars_ireval.plot draws with matplotlib, which is not installed: "
            "pip install 'polars-ireval[plot]' (or pip install 'matplotlib>=3.8')"
        ) from e
    return Figure


def figure_and_axes(ax: Any, size: tuple[float, float]) -> tuple[Figure, Axes]:
    """``ax`` and its figure, or a new figure of ``size`` inches with one Axes."""
    Figure = figure_class()
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


def label_points(room: float) -> float:
    """The font size (points) of a tick label given ``room`` points along the axis per
    label: 8 where there is room, down to 4 (at most 80% of the room, so that neighbours do
    not touch)."""
    return max(4.0, min(8.0, 0.8 * room))


def plural(count: int, word: str, words: str | None = None) -> str:
    """``"1 win"``, ``"2 wins"``: the count and the word it agrees with."""
    return f"{count} {word if count == 1 else (words or word + 's')}"


#: Lines a legend lists inside the axes; past it, the legend goes beside them, in columns
#: of :data:`LEGEND_ROWS` entries (59 runs: two columns).
LEGEND_INSIDE = 12
LEGEND_ROWS = 30


def legend(
    ax: Any,
    *,
    loc: str = "best",
    title: str | None = None,
    outside: bool = False,
    grow: bool | None = None,
) -> None:
    """The axes' legend: inside them for a few lines (unless ``outside``); for many,
    beside them (clear of the curves) in columns of :data:`LEGEND_ROWS`, in a smaller
    font, the figure widened (and lengthened) to hold it when ``grow`` (default: when the
    figure holds these axes alone)."""
    n = len(ax.get_legend_handles_labels()[1])
    if n <= LEGEND_INSIDE and not outside:
        ax.legend(fontsize="small", loc=loc, title=title)
        return
    columns = max(1, -(-n // LEGEND_ROWS))
    ax.legend(
        fontsize="x-small", loc="upper left", bbox_to_anchor=(1.0, 1.0), borderaxespad=1.0,
        ncols=columns, title=title, title_fontsize="small",
    )  # fmt: skip
    fig = ax.get_figure()
    if fig is None or n <= LEGEND_INSIDE:
        return
    if grow if grow is not None else len(fig.axes) == 1:
        width, height = fig.get_size_inches()
        rows = min(n, LEGEND_ROWS)
        panels = len(fig.axes)
        fig.set_size_inches(width + 1.9 * columns, max(height, panels * (1.0 + 0.17 * rows)))
