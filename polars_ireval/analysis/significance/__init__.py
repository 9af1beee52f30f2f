"""``compare``: significance tests, effect sizes and confidence intervals between runs.

A comparison takes the long per-query frame :func:`polars_ireval.evaluate` returns with
``per_query=True`` (``run_id, query_id, measure, value`` and, with ``residuals=True``,
``residual, projected``) and returns a long frame: one row per measure and pair of runs,
with the means, the difference and its confidence interval, a standardized effect size, the
test statistic, the p-value before and after a correction for multiple comparisons, and
win/tie/loss counts. Rendering that frame as a table is :func:`polars_ireval.report`'s job.

Every test works on the matrix of per-query scores of one measure (runs x queries), and
every pair of runs is a row of a matrix of differences, so a family of ten thousand pairs
is a handful of numpy operations: scipy's tests take ``axis=-1``, and the resampling tests
(randomization, bootstrap, randomised Tukey HSD) multiply or index whole arrays of sign
flips, resamples and permutations, in chunks that bound memory. Distributions and
resampling intervals come from scipy (``scipy.stats``); nothing here re-implements one.

Direction follows scipy: ``delta = mean_a - mean_b`` and ``alternative="greater"`` means
"run_a scores higher than run_b". With ``baseline="bm25"`` every other run is ``run_a``
and the baseline is ``run_b``, so a positive ``delta`` is an improvement over the baseline.

The package, a module per idea:

* :mod:`~polars_ireval.analysis.significance.inputs`: reading the per-query frame (checks,
  the missing-query policy, the runs x queries matrices, the choices and run names);
* :mod:`~polars_ireval.analysis.significance.tests`: the tests and the bootstrap intervals;
* :mod:`~polars_ireval.analysis.significance.corrections`: :func:`adjust_p_values`;
* :mod:`~polars_ireval.analysis.significance.power`: :func:`topic_set_size`;
* :mod:`~polars_ireval.analysis.significance.options`: ``compare``'s options, checked once;
* :mod:`~polars_ireval.analysis.significance.comparison`: :func:`compare`;
* :mod:`~polars_ireval.analysis.significance.bounds`: :func:`compare_bounds` (seed 002).
"""

from __future__ import annotations

from polars_ireval.analysis.significance.bounds import BOUNDS as BOUNDS
from polars_ireval.analysis.significance.bounds import compare_bounds
from polars_ireval.analysis.significance.comparison import RESULT_COLUMNS, compare
from polars_ireval.analysis.significance.corrections import CORRECTIONS, adjust_p_values
from polars_ireval.analysis.significance.inputs import ALTERNATIVES
from polars_ireval.analysis.significance.inputs import LARGEST_SCORE as LARGEST_SCORE
from polars_ireval.analysis.significance.inputs import MISSING as MISSING
from polars_ireval.analysis.significance.inputs import Alternative as Alternative
from polars_ireval.analysis.significance.inputs import Missing as Missing
from polars_ireval.analysis.significance.power import topic_set_size
from polars_ireval.analysis.significance.tests import TESTS
from polars_ireval.analysis.significance.tests import SignificanceTest as SignificanceTest

__all__ = [
    "ALTERNATIVES",
    "CORRECTIONS",
    "RESULT_COLUMNS",
    "TESTS",
    "adjust_p_values",
    "compare",
    "compare_bounds",
    "topic_set_size",
]
