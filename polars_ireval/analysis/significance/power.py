"""Topic-set-size design: :func:`topic_set_size`, the topics a paired t-test needs."""

from __future__ import annotations

import reprlib
from typing import Any, cast

import numpy as np

from polars_ireval._base.numeric import is_integer
from polars_ireval.analysis.significance.inputs import (
    ALTERNATIVES,
    Alternative,
    check_level,
    choice,
)
from polars_ireval.errors import ParameterError


def topic_set_size(
    sd: Any,
    difference: Any,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
    max_topics: int = 10_000_000,
) -> np.ndarray:
    """The number of topics a paired t-test needs to detect a difference with a power.

    Topic-set-size design (Sakai): the smallest ``n >= 2`` for which the paired t-test
    at level ``alpha`` rejects with probability ``power`` when the true mean difference is
    ``difference`` and the standard deviation of the per-topic differences is ``sd``. The
    power is computed from scipy's noncentral t (``scipy.stats.nct``) with ``n - 1``
    degrees of freedom and noncentrality ``difference * sqrt(n) / sd``.

    Parameters
    ----------
    sd, difference
        Arrays (or scalars) of the same shape: the standard deviation of the differences
        and the difference to detect (its absolute value is used).
    alpha
        Significance level of the test.
    power
        Wanted probability of detecting the difference (0.8 is customary).
    alternative
        ``"two-sided"`` or one-sided (``"greater"``, ``"less"``: the difference is taken in
        the direction of the alternative).
    max_topics
        Above this, the result is NaN (the difference is too small to detect): an integer,
        at least 2.

    Returns
    -------
    numpy.ndarray
        Topics needed (float, NaN when the difference is 0 or needs more than
        ``max_topics``, and where ``sd`` or ``difference`` is NaN or infinite).

    Raises
    ------
    ParameterError
        ``sd`` or ``difference`` not numbers, of shapes that do not broadcast, a negative
        ``sd``; ``alpha`` or ``power`` outside (0, 1); ``max_topics`` not an integer >= 2.

    Examples
    --------
    >>> from polars_ireval.analysis.significance import topic_set_size
    >>> topic_set_size([0.2, 0.2], [0.1, 0.05]).tolist()
    [34.0, 128.0]
    """
    from scipy import stats

    check_level(alpha, "alpha")
    check_level(power, "power")
    alt = choice(alternative, ALTERNATIVES, "alternative", {})
    if not is_integer(max_topics) or max_topics < 2:
        raise ParameterError(
            f"max_topics={max_topics!r}: must be an integer >= 2 (a paired t-test needs 2 "
            "topics at least)"
        )
    max_topics = int(max_topics)
    sd_in, diff_in = _numbers(sd, "sd"), _numbers(difference, "difference")
    try:
        shape = np.broadcast_shapes(sd_in.shape, diff_in.shape)
    except ValueError:
        raise ParameterError(
            f"topic_set_size: sd has shape {sd_in.shape} and difference {diff_in.shape}; give "
            "arrays of one shape (or a scalar for either)"
        ) from None
    negative = np.flatnonzero(sd_in.ravel() < 0)
    if negative.size:
        i = int(negative[0])
        at = "" if sd_in.ndim == 0 else f"[{', '.join(map(str, np.unravel_index(i, sd_in.shape)))}]"
        raise ParameterError(
            f"topic_set_size: sd{at}={float(sd_in.ravel()[i])!r} is negative; a standard "
            "deviation is >= 0"
        )
    sd_a, diff_a = np.broadcast_arrays(sd_in, np.abs(diff_in))
    sd_a, diff_a = sd_a.ravel(), diff_a.ravel()
    out = np.full(sd_a.shape, np.nan)
    ok = np.isfinite(sd_a) & np.isfinite(diff_a) & (diff_a > 0)
    out[ok & (sd_a == 0)] = 2.0
    todo = ok & (sd_a > 0)
    if not todo.any():
        return out.reshape(shape)
    s, dlt = sd_a[todo], diff_a[todo]
    one_sided = alt != "two-sided"
    z_a = stats.norm.isf(alpha if one_sided else alpha / 2)
    z_b = stats.norm.ppf(power)
    start = np.ceil(((z_a + z_b) * s / dlt) ** 2)
    n = np.clip(np.nan_to_num(start, nan=2, posinf=max_topics + 1), 2, max_topics + 1)

    def achieved(k: np.ndarray, i: np.ndarray) -> np.ndarray:
        """Power of the test with k topics, for the rows i."""
        df = k - 1
        nc = dlt[i] * np.sqrt(k) / s[i]
        crit = stats.t.isf(alpha if one_sided else alpha / 2, df)
        pw = stats.nct.sf(crit, df, nc)
        if not one_sided:
            pw = pw + stats.nct.cdf(-crit, df, nc)
        return cast(np.ndarray, pw)

    # the normal approximation starts close: walk down while n - 1 suffices, then up while
    # n falls short, each time only over the rows still moving
    rows = np.flatnonzero((n > 2) & (n <= max_topics))
    while rows.size:
        rows = rows[achieved(n[rows] - 1, rows) >= power]
        n[rows] -= 1
        rows = rows[n[rows] > 2]
    rows = np.flatnonzero(n <= max_topics)
    rows = rows[achieved(n[rows], rows) < power]
    while rows.size:
        n[rows] += 1
        rows = rows[n[rows] <= max_topics]
        rows = rows[achieved(n[rows], rows) < power]
    n = np.where(n > max_topics, np.nan, n)
    out[todo] = n
    return out.reshape(shape)


def _numbers(x: Any, name: str) -> np.ndarray:
    """``x`` as a float array, refusing what is not numbers (strings, None, booleans)."""
    try:
        arr = np.asarray(x)
    except ValueError:  # ragged nesting
        arr = np.asarray(None)
    if arr.dtype.kind not in "iuf":
        raise ParameterError(
            f"topic_set_size: {name}={reprlib.repr(x)}: must be a number or an array of "
            f"numbers (not {type(x).__name__})"
        )
    return arr.astype(float)
