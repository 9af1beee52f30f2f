"""Discounted cumulative gain, normalised by the ideal ranking (nDCG)."""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from polars_ireval.errors import ParameterError
from polars_ireval.measures._expr import (
    RANK,
    REL,
    ideal_positions,
    log2_discount,
    ordered_sum,
    ratio,
    retrieved,
)
from polars_ireval.measures.precision import CUTOFFS
from polars_ireval.registry import TrecName, check, gain_map, measure, positive_int

DCG_KINDS = ("log2", "exp-log2")


@check("it must be 'log2' (gain = grade) or 'exp-log2' (gain = 2**grade - 1)")
def dcg_kind(v: object) -> bool:
    return v in DCG_KINDS


def trec_gains(text: str) -> dict[int, float]:
    """trec_eval's gain map ``1=3,2=9,4=4.5`` as ``{1: 3.0, 2: 9.0, 4: 4.5}``."""
    out: dict[int, float] = {}
    for item in text.split(","):
        grade, sep, value = item.partition("=")
        try:
            out[int(grade)] = float(value)
        except ValueError:
            raise ParameterError(
                f"ndcg.{text}: {item!r} is not 'grade=gain' (e.g. ndcg.1=3,2=9)"
            ) from None
        if not sep:
            raise ParameterError(f"ndcg.{text}: {item!r} is not 'grade=gain' (e.g. ndcg.1=3,2=9)")
    return out


def gain(gains: Mapping[int, float] | None = None, dcg: str = "log2") -> pl.Expr:
    """Each row's gain: its grade (``log2``), ``2**grade - 1`` (``exp-log2``) or ``gains[grade]``.

    Unjudged documents and grades <= 0 gain 0 unless ``gains`` maps them explicitly;
    grades absent from ``gains`` gain 0.
    """
    if gains is not None:
        keys = list(gains)
        return REL.replace_strict(keys, [float(gains[k]) for k in keys], default=0.0).fill_null(0.0)
    grade = REL.cast(pl.Float64).fill_null(0.0).clip(lower_bound=0.0)
    if dcg == "exp-log2":
        return pl.lit(2.0).pow(grade) - 1.0
    return grade


def dcg_at(gain_expr: pl.Expr, k: int | None) -> pl.Expr:
    """DCG of the ranking: sum of gain / log2(rank + 1) over the top ``k``."""
    top = retrieved(k)
    return ordered_sum((gain_expr / log2_discount(RANK)).filter(top), RANK.filter(top))


def ideal_dcg_at(gain_expr: pl.Expr, k: int | None) -> pl.Expr:
    """DCG of the ideal ranking: every positive gain of the query, best first, top ``k``."""
    positive = gain_expr.filter(gain_expr > 0)
    pos = ideal_positions(positive)
    value = positive / log2_discount(pos)
    if k is not None:
        value, pos = value.filter(pos <= k), pos.filter(pos <= k)
    return ordered_sum(value, pos)


@measure(
    "nDCG",
    aliases=["NDCG"],
    cite="Järvelin and Kekäläinen, Cumulated gain-based evaluation of IR techniques, TOIS 2002",
    trec=[
        TrecName("ndcg", "gains", (), "whole", convert=trec_gains),
        TrecName("ndcg_cut", "k", CUTOFFS, "list"),
    ],
    checks={"k": positive_int, "gains": gain_map, "dcg": dcg_kind},
)
def ndcg(
    *, k: int | None = None, dcg: str = "log2", gains: Mapping[int, float] | None = None
) -> pl.Expr:
    """nDCG@k: DCG of the top ``k`` over the DCG of the ideal top ``k``.

    DCG = Σ gain(rank) / log2(rank + 1). The ideal ranking sorts every judged document of
    the query (retrieved or not) by gain. 0 when the query has no positive gain.

    Parameters
    ----------
    k
        Cutoff rank (default: the whole ranking, trec_eval's ``ndcg``).
    dcg
        ``"log2"`` (default): gain = grade, as trec_eval. ``"exp-log2"``: gain = 2^grade - 1
        (Burges et al.).
    gains
        Explicit gain per grade, e.g. ``{0: 0, 1: 1, 2: 3}``; grades not listed gain 0.

    See Also
    --------
    trec_eval ``ndcg``, ``ndcg_cut.k``, ``ndcg.1=3,2=9``; ir_measures ``nDCG@10``,
    ``nDCG(dcg='exp-log2')@10``, ``nDCG(gains={0:0,1:1,2:3})@10``.
    """
    g = gain(gains, dcg)
    return ratio(dcg_at(g, k), ideal_dcg_at(g, k))
