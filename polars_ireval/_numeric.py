"""Values equal in exact arithmetic, made equal in floating point.

Per-query scores are ratios and sums: P@5 is 0.2, 0.4, 0.6000000000000001..., so the
difference of two runs' P@5 on a query is 0.2 (0.4 - 0.2), 0.19999999999999996
(0.6000000000000001 - 0.4) or 0.20000000000000007 (0.2 - 0.4, negated): three values for
one. A test that ranks differences (Wilcoxon's signed-rank test) or counts ties (the sign
test, Kendall's tau-b) would rank them apart, and on real data this moves p-values (the
TREC-COVID round 1 runs: the Wilcoxon p-value of P@5 changes for 93% of the run pairs,
from 0.33 to 0.76 for one). :func:`snap` gives such values one value before they are
ranked, compared or counted.
"""

from __future__ import annotations

import numpy as np

#: Two values closer than this times the scale of the values they come from are equal.
#: Rounding error of a score (a sum of at most thousands of terms) is about 1e-13 of it
#: at worst; two scores that truly differ differ by far more (for AP over 1,000 ranks and
#: 1,000 relevant documents, by at least about 1e-9).
RELATIVE_TOLERANCE = 1e-12


def snap(
    x: np.ndarray, scale: np.ndarray | float, tolerance: float = RELATIVE_TOLERANCE
) -> np.ndarray:
    """``x`` with values equal up to rounding error made equal, row by row.

    In each row (the last axis), the values are sorted; a value within ``tolerance *
    scale`` of the one before it joins its group, and every value of a group takes the
    group's smallest; a group holding a value within ``tolerance * scale`` of 0 becomes 0.
    ``scale`` is the magnitude of the values ``x`` was computed from (one per row, or
    one for all): the size of their rounding error. NaN stays NaN. ``tolerance=0``
    returns ``x`` as it is.

    Examples
    --------
    >>> snap(np.array([0.4 - 0.2, 0.6000000000000001 - 0.4, 0.1 - 0.1, 3e-17]), 1.0).tolist()
    [0.2, 0.2, 0.0, 0.0]
    """
    x = np.asarray(x, dtype=float)
    if tolerance == 0 or x.size == 0:
        return x
    rows = np.atleast_2d(x)
    tol = tolerance * np.broadcast_to(np.asarray(scale, dtype=float), rows.shape[:-1])[..., None]
    rows = np.where(np.abs(rows) <= tol, 0.0, rows)
    order = np.argsort(rows, axis=-1, kind="stable")
    s = np.take_along_axis(rows, order, axis=-1)
    apart = np.diff(s, axis=-1) > tol  # NaN sorts last and is put back at the end
    apart = np.concatenate([np.ones((*s.shape[:-1], 1), dtype=bool), apart], axis=-1)
    group = np.cumsum(apart, axis=-1)
    start = np.where(apart, np.arange(s.shape[-1]), 0)
    first = np.take_along_axis(s, np.maximum.accumulate(start, axis=-1), axis=-1)
    # the group holding 0 (zeros are one group) is 0, whatever its smallest value
    zero_group = np.where(s == 0, group, -1).max(axis=-1, keepdims=True)
    first = np.where(group == zero_group, 0.0, first)
    out = np.empty_like(s)
    np.put_along_axis(out, order, first, axis=-1)
    return np.where(np.isnan(rows), np.nan, out).reshape(x.shape)


def snap_signed(
    d: np.ndarray, scale: np.ndarray | float, tolerance: float = RELATIVE_TOLERANCE
) -> np.ndarray:
    """Differences ``d`` whose magnitudes are equal up to rounding made equal in
    magnitude (their signs kept), and those within rounding of 0 made 0: what a test
    that ranks |d| and counts signs must see (see :func:`snap`)."""
    d = np.asarray(d, dtype=float)
    return np.sign(d) * snap(np.abs(d), scale, tolerance)
