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
