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

import numbers
from typing import Any

import numpy as np

#: Two values closer than this times the magnitude of the values they come from are equal.
#: A score computed two ways (a sum of tens of terms in another order, 0.6000000000000001 -
#: 0.4 against 0.2) differs by a few units in the last place, about 1e-16 of it; RBP's
#: contribution of a relevant document at rank 40 (p = 0.5) is about 1e-12 of the score,
#: a true difference that a tolerance of 1e-12 of the largest score would merge.
RELATIVE_TOLERANCE = 1e-14


def snap(
    x: np.ndarray, scale: np.ndarray | float, tolerance: float = RELATIVE_TOLERANCE
) -> np.ndarray:
    """``x`` with values equal up to rounding error made equal, row by row.

    ``scale`` gives each value of ``x`` the magnitude of what it was computed from (the
    size of its rounding error): an array of ``x``'s shape, or anything that broadcasts
    to it (one number for all). A value within ``tolerance`` times its scale of 0 is 0.
    In each row (the last axis) the values are sorted, and a value within ``tolerance``
    times the larger scale of the two of the one before it joins its group; every value
    of a group takes the group's smallest, and a group holding 0 is 0. NaN stays NaN.
    ``tolerance=0`` returns ``x`` as it is.

    Examples
    --------
    >>> snap(np.array([0.6000000000000001 - 0.4, 0.2, 0.1 + 0.2 - 0.3, 3e-13]), 1.0).tolist()
    [0.2, 0.2, 0.0, 3e-13]
    """
    x = np.asarray(x, dtype=float)
    if tolerance == 0 or x.size == 0:
        return x
    rows = np.atleast_2d(x)
    tol = tolerance * np.broadcast_to(np.abs(np.asarray(scale, dtype=float)), x.shape).reshape(
        rows.shape
    )
    rows = np.where(np.abs(rows) <= tol, 0.0, rows)
    order = np.argsort(rows, axis=-1, kind="stable")
    s = np.take_along_axis(rows, order, axis=-1)
    t = np.take_along_axis(tol, order, axis=-1)
    # NaN sorts last (a comparison with it is False: it joins a group, and is put back)
    apart = np.diff(s, axis=-1) > np.maximum(t[..., 1:], t[..., :-1])
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
    that ranks |d| and counts signs must see (see :func:`snap`; ``scale``: of each
    difference, the larger magnitude of its two operands)."""
    d = np.asarray(d, dtype=float)
    return np.sign(d) * snap(np.abs(d), scale, tolerance)


def is_number(x: Any) -> bool:
    """A real number, Python's or numpy's (``np.float32(0.05)``), not a bool."""
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))


def is_integer(x: Any) -> bool:
    """An integer, Python's or numpy's, not a bool."""
    return isinstance(x, numbers.Integral) and not isinstance(x, (bool, np.bool_))
