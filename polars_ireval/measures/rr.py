"""Reciprocal rank."""

from __future__ import annotations

import polars as pl

from polars_ireval.measures._expr import relevant_ranks
from polars_ireval.registry import TrecName, integer, measure, positive_int


@measure(
    "RR",
    unjudged=False,
    aliases=["MRR"],
    cite="Voorhees, The TREC-8 Question Answering Track Report, 1999",
    trec=[TrecName("recip_rank")],
    checks={"k": positive_int, "rel": integer},
)
def rr(*, k: int | None = None, rel: int = 1) -> pl.Expr:
    """RR: 1 / the rank of the first relevant document (0 when none is retrieved).

    Averaged over queries this is MRR.

    Parameters
    ----------
    k
        Cutoff rank: a first relevant document below ``k`` gives 0 (default: none).
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``).

    See Also
    --------
    trec_eval ``recip_rank``; ir_measures ``RR``, ``RR@10``.
    """
    first = relevant_ranks(rel, k).min()
    return pl.when(first.is_not_null()).then(1.0 / first.cast(pl.Float64)).otherwise(0.0)
