"""Values equal in exact arithmetic are made equal before they are ranked or counted
(``polars_ireval._base.numeric``): the grouping against fractions, and its users."""

from __future__ import annotations

import math
from fractions import Fraction

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given
from scipy import stats

from polars_ireval._base.numeric import snap, snap_signed
from polars_ireval.analysis.budget_scores import _kendall
from tests.strategies import DERANDOMIZED


def test_worked_values() -> None:
    d = np.array([0.4 - 0.6000000000000001, 0.2 - 0.4, 0.6 - 0.4, 0.1 + 0.2 - 0.3, 0.7, np.nan])
    assert len(set(np.abs(d[:3]).tolist())) == 3  # three floats for |d| = 0.2
    got = snap_signed(d, 1.0)
    assert got[:3].tolist() == [-got[2], -got[2], got[2]] and got[2] == pytest.approx(0.2)
    assert got[3] == 0.0 and got[4] == 0.7 and math.isnan(got[5])
    assert snap_signed(d, 1.0, tolerance=0)[3] == d[3] != 0  # tolerance 0: the floats
    # each value's own scale: 1e-15 apart is rounding for scores of 0.5, not for 5e-4
    rows = np.array([[0.5, 0.5 + 1e-15], [5e-4, 5e-4 + 1e-15]])
    out = snap(rows, np.abs(rows))
    assert out[0, 0] == out[0, 1] and out[1, 0] != out[1, 1]


def test_true_differences_far_below_the_largest_score_stay() -> None:
    """RBP(p=0.5): a relevant document at rank 42 adds 0.5^42 = 2.3e-13, a true difference
    (1e-12 of the pair's largest score, 0.9, merged it)."""
    a = np.array([0.9, 0.3 + 0.5**42, 0.3, 0.25 + 0.5**42])
    b = np.array([0.1, 0.3, 0.3 + 0.5**42, 0.25])
    d = snap_signed(a - b, np.maximum(np.abs(a), np.abs(b)))
    assert (np.sign(d) == [1, 1, -1, 1]).all() and d[1] == -d[2] == d[3]


def test_one_value_and_none() -> None:
    assert snap(np.array([0.3]), 1.0).tolist() == [0.3]
    assert snap(np.array([[0.3], [1e-15]]), np.array([[1.0], [1.0]])).tolist() == [[0.3], [0.0]]
    assert snap(np.array([]), 1.0).tolist() == []


def test_a_group_holding_zero_is_zero() -> None:
    # -5e-15 and 4e-15 are within 1e-14 of 0 (scale 1), and 1.3e-14 within 1e-14 of
    # 4e-15 but, 0 being their group's value, more than 1e-14 from it: it stays
    assert snap(np.array([-5e-15, 4e-15, 3.0, 1.3e-14]), 1.0).tolist() == [0.0, 0.0, 3.0, 1.3e-14]


#: Scores as IR measures make them: fractions k/n computed in several orders.
FRACTIONS = st.lists(
    st.tuples(st.integers(0, 30), st.sampled_from([3, 5, 10, 20, 30]), st.integers(0, 2)),
    min_size=2,
    max_size=40,
)


def as_float(k: int, n: int, how: int) -> float:
    if how == 0:
        return k / n
    if how == 1:
        return sum([1 / n] * k)  # a running sum: P@n as a count of 1/n steps
    return (k * 3) / (n * 3)


@DERANDOMIZED
@given(FRACTIONS, FRACTIONS)
def test_differences_group_as_fractions_do(
    a: list[tuple[int, int, int]], b: list[tuple[int, int, int]]
) -> None:
    """snap_signed(x - y) has equal magnitudes exactly where the fractions' differences
    have, and zeros where they are zero."""
    m = min(len(a), len(b))
    x = np.array([as_float(*t) for t in a[:m]])
    y = np.array([as_float(*t) for t in b[:m]])
    exact = [
        Fraction(k, n) - Fraction(j, q) for (k, n, _), (j, q, _) in zip(a[:m], b[:m], strict=True)
    ]
    got = snap_signed(x - y, np.maximum(np.abs(x), np.abs(y)))
    for i in range(m):
        assert (got[i] == 0) == (exact[i] == 0)
        assert np.sign(got[i]) == np.sign(exact[i])
        for j in range(m):
            assert (abs(got[i]) == abs(got[j])) == (abs(exact[i]) == abs(exact[j]))


def test_judging_kendall_ties_means_equal_up_to_rounding() -> None:
    """The budgets' tau (simulate_judging's agreement) ties two runs whose means are the
    same scores summed in another order."""
    b, c = (sum(v) / 3 for v in ([0.1, 0.1, 0.4], [0.1, 0.4, 0.1]))
    assert b != c
    x, y = np.array([0.5, b, c, 0.1]), np.array([0.6, 0.3, 0.4, 0.2])
    tau, p = _kendall(x, y)
    ref = stats.kendalltau([0.5, 0.2, 0.2, 0.1], y)
    assert tau == pytest.approx(ref.statistic, abs=1e-15) and p == pytest.approx(
        ref.pvalue, abs=1e-15
    )
    assert tau != pytest.approx(stats.kendalltau(x, y).statistic)
