"""Expected reciprocal rank (Chapelle, Metzler, Zhang and Grinspan, CIKM 2009).

A cascade user reads down the ranking and stops at rank i, satisfied, with probability
R_i = (2^g_i - 1) / 2^g_max, where g_i is the grade of the document there (clipped to
[0, g_max]; unjudged documents have grade 0). The score is the expected reciprocal of the
stopping rank: ERR@k = Σ_{i <= k} (R_i / i) Π_{j < i} (1 - R_j).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from polars_ireval.measures._expr import RANK, REL, retrieved
from polars_ireval.measures.depth import DepthPlan
from polars_ireval.registry import measure, positive_int


def _stop(max_rel: int) -> pl.Expr:
    """R_i, the probability that the document at rank i satisfies the user."""
    grade = REL.clip(0, max_rel).fill_null(0).cast(pl.Float64)
    return (pl.lit(2.0).pow(grade) - 1.0) / 2.0**max_rel


def err_depth(args: dict[str, Any]) -> Any:
    """ERR@k at every depth: the running sum of its terms."""

    def fill(plan: DepthPlan) -> None:
        stop = _stop(args["max_rel"])
        reach = (1.0 - stop).cum_prod().shift(1, fill_value=1.0)
        terms = stop * reach / RANK.cast(pl.Float64)
        plan.value = plan.event("err", plan.running(terms.cum_sum()))

    return fill


@measure(
    "ERR",
    depth=err_depth,
    tie_bounds=True,
    sql="ireval_err",
    qrels_stats=True,
    unjudged=False,
    cite="Chapelle, Metzler, Zhang and Grinspan, Expected reciprocal rank for graded relevance, "
    "CIKM 2009",
    checks={"k": positive_int, "max_rel": positive_int},
)
def err(*, k: int | None = None, max_rel: int = 4) -> pl.Expr:
    """ERR@k: expected reciprocal rank, Σ_{i <= k} (R_i / i) Π_{j < i} (1 - R_j).

    R_i = (2^g_i - 1) / 2^max_rel is the probability that the document at rank i satisfies
    the user, who stops there; g_i is its grade clipped to [0, max_rel] (unjudged
    documents and negative grades: 0). The default ``max_rel=4`` is gdeval's
    ``$MAX_JUDGMENT``, so ``ERR@20`` matches ir_measures' ERR (gdeval rejects grades above
    4; here they count as 4). Bounded, monotone in k; it does not depend on R.

    Parameters
    ----------
    k
        Cutoff rank (default: the whole ranking).
    max_rel
        The highest grade of the relevance scale, g_max (default 4, as gdeval).

    See Also
    --------
    ir_measures ``ERR@20`` (gdeval, printed to 5 decimals); RR, its binary special case
    up to the 2^-max_rel factor.

    Examples
    --------
    Grades 2 then 1 with ``max_rel=2``: R = 3/4 then 1/4, ERR = 3/4 + (1/4)(1/4)/2.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "relevance": [2, 1]})
    >>> ir.evaluate(run, qrels, "ERR(max_rel=2)")["value"][0]
    0.78125
    """
    stop = _stop(max_rel)
    keep = retrieved(k)
    # (stop, rank) of the ranked documents in rank order, one list per ranking: built once
    rows = pl.struct(stop.alias("p"), RANK.cast(pl.Float64).alias("rank"))
    ranked = rows.filter(keep).sort_by(RANK.filter(keep)).implode()
    p, rank = pl.element().struct.field("p"), pl.element().struct.field("rank")
    reach = (1.0 - p).cum_prod().shift(1, fill_value=1.0)
    return ranked.list.eval((p * reach / rank).cum_sum().last()).list.first().fill_null(0.0)
