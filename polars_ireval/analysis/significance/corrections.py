"""Corrections for multiple comparisons: :func:`adjust_p_values` and the table of their
names, :data:`CORRECTIONS`."""

from __future__ import annotations

from typing import Any

import numpy as np

from polars_ireval._base.numeric import is_number
from polars_ireval._base.options import renamed
from polars_ireval.analysis.significance.inputs import choice
from polars_ireval.errors import ParameterError

#: Corrections for multiple comparisons, by canonical name, with their legend labels.
CORRECTIONS: dict[str, str] = {
    "none": "no correction for multiple comparisons",
    "bonferroni": "Bonferroni correction",
    "holm": "Holm correction",
    "bh": "Benjamini-Hochberg correction (false discovery rate)",
    "by": "Benjamini-Yekutieli correction (false discovery rate)",
}
CORRECTION_ALIASES = {"fdr_bh": "bh", "fdr_by": "by", "benjamini_hochberg": "bh"}


@renamed(p="p_values", method="correction")
def adjust_p_values(p_values: Any, correction: str = "holm") -> np.ndarray:
    """p-values adjusted for multiple comparisons (one family).

    Parameters
    ----------
    p_values
        The family's p-values: a 1-D array-like of numbers in [0, 1] (NaN, infinite,
        missing values, booleans and strings are refused; a 2-D array is not one family).
        Formerly ``p=`` (still accepted).
    correction
        ``"none"``, ``"bonferroni"``, ``"holm"`` (step-down, family-wise error),
        ``"bh"`` (Benjamini-Hochberg, false discovery rate) or ``"by"``
        (Benjamini-Yekutieli, false discovery rate under any dependence), as
        :func:`polars_ireval.compare`'s ``correction=``. The statsmodels names
        ``"fdr_bh"`` and ``"fdr_by"`` are accepted. Formerly ``method=`` (still accepted).

    Returns
    -------
    numpy.ndarray
        Adjusted p-values (at most 1), in the order of ``p_values``; reject where they are
        ``<= alpha`` (as statsmodels' ``multipletests`` does).

    Examples
    --------
    >>> from polars_ireval.analysis.significance import adjust_p_values
    >>> adjust_p_values([0.01, 0.04, 0.03], "holm").round(4).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_p_values([0.01, 0.04, 0.03], "bh").round(4).tolist()
    [0.03, 0.04, 0.04]
    """
    how = choice(correction, list(CORRECTIONS), "correction", CORRECTION_ALIASES)
    return adjust(_p_values(p_values), how)


def _p_values(p: Any) -> np.ndarray:
    """``p`` as a 1-D float array of p-values, or a ParameterError naming the first bad one
    (``p[i]``, the i-th p-value)."""
    try:
        arr = np.asarray(p)
    except ValueError:  # ragged nesting
        arr = np.asarray(p, dtype=object)
    if arr.ndim > 1:
        raise ParameterError(
            f"adjust_p_values: p has shape {arr.shape}; give one family of p-values as a 1-D "
            "array (adjust each row on its own, or pass p.ravel() for one family of them all)"
        )
    flat = arr.ravel()
    if arr.dtype.kind not in "iuf":
        for i, x in enumerate(flat.tolist()):
            if not is_number(x):
                raise ParameterError(
                    f"adjust_p_values: p[{i}]={x!r} is not a p-value (a number in [0, 1])"
                )
    pv = flat.astype(float)
    bad = np.flatnonzero(~((pv >= 0) & (pv <= 1)))
    if bad.size:
        i = int(bad[0])
        raise ParameterError(
            f"adjust_p_values: p[{i}]={float(pv[i])!r} is not a p-value: every p must be a "
            "number in [0, 1]; fix or drop it first"
        )
    return pv


def adjust(pv: np.ndarray, how: str) -> np.ndarray:
    """The adjusted p-values of a checked 1-D array ``pv`` by the canonical correction
    ``how``."""
    m = pv.size
    if how == "none" or m == 0:
        return pv.copy()
    if how == "bonferroni":
        return np.minimum(pv * m, 1.0)
    order = np.argsort(pv, kind="mergesort")
    ps = pv[order]
    if how == "holm":
        adj = np.maximum.accumulate(ps * np.arange(m, 0, -1))
    else:
        factor = np.arange(1, m + 1) / m
        if how == "by":
            factor = factor / np.sum(1.0 / np.arange(1, m + 1))
        adj = np.minimum.accumulate((ps / factor)[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(adj, 1.0)
    return out
