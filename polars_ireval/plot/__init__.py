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

The figures live by the frame they draw: ``plot.curves`` (PR, ROC, PIR and depth
curves), ``plot.scores`` (``ir.evaluate``'s scores: per-query differences, score ranges,
scatter) and ``plot.comparisons`` (``ir.compare``'s frame: intervals, significance
matrix); what they share is in ``plot.drawing`` (matplotlib, line styles and markers) and
``plot.frames`` (reading and checking the input frames).
"""

from polars_ireval.plot.comparisons import intervals, significance, significance_frame
from polars_ireval.plot.curves import depth_curves, pir_curves, pr_curve, roc_curve
from polars_ireval.plot.scores import (
    per_query_delta,
    per_query_delta_frame,
    scatter,
    score_ranges,
    score_ranges_frame,
)

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
