"""Sakai's Q-measure: average precision blended with cumulated gain."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from polars_ireval.measures._expr import RANK, num_rel, ratio, relevant, retrieved, value_at
from polars_ireval.measures.dcg import Gains, grade_gain
from polars_ireval.measures.depth import DepthPlan, ratio_by_row
from polars_ireval.registry import (
    gain_map,
    grade_ordered,
    measure,
    non_negative,
    positive_int,
    relevant_grade,
)


def _q_tie_bounds(params: Mapping[str, Any]) -> bool:
    """Cumulated gain counts every positive grade, relevant or not: with ``rel`` above 1 a
    gainful grade below it, put before a relevant document, can raise the latter's term
    (a rank later, more gain), so the extremes need not lie at the grade-ordered ties."""
    return grade_ordered(params) and params.get("rel", 1) <= 1


def q_depth(args: dict[str, Any]) -> Any:
    """Q@k at every depth: its terms do not depend on k, so their running sum over R; the
    ideal cumulated gain at each rank comes from the query's judgments."""

    def fill(plan: DepthPlan) -> None:
        beta, rel = args["beta"], args["rel"]
        g = grade_gain("linear", args["gains"])
        best = plan.at_rank("best", g.filter(g > 0).sort(descending=True).cum_sum())
        is_rel = relevant(rel)
        found = is_rel.cast(pl.Float64).cum_sum()
        terms = (found + beta * g.cum_sum()) / (RANK.cast(pl.Float64) + beta * best)
        total = plan.event(
            "total", plan.running(pl.when(is_rel).then(terms).otherwise(0.0).cum_sum())
        )
        plan.value = ratio_by_row(total, plan.query("R", num_rel(rel)))

    return fill


@measure(
    "Q",
    depth=q_depth,
    tie_bounds=_q_tie_bounds,
    by_r=True,
    sql="ireval_q",
    unjudged=False,
    aliases=["QM"],
    cite="Sakai and Kando, On information retrieval metrics designed for evaluation with "
    "incomplete relevance assessments, Inf. Retr. 2008",
    checks={"k": positive_int, "beta": non_negative, "rel": relevant_grade, "gains": gain_map},
)
def q_measure(
    *, k: int | None = None, beta: float = 1.0, rel: int = 1, gains: Gains = None
) -> pl.Expr:
    """Q@k: Sakai's Q-measure, (1/R) Σ_{relevant i <= k} (C(i) + β cg(i)) / (i + β cg*(i)).

    C(i) is the number of relevant documents in the top i, cg(i) the cumulated gain of the
    ranking at i and cg*(i) that of the ideal ranking (every judged document by gain
    descending; past its end cg* stays at its total). β = 0 gives AP; a large β approaches
    a normalised cumulated gain. Like AP the user stops at a random relevant document, but
    is rewarded for graded gain; it needs R (recall-based, seed 000 uses QM(1)). 0 when
    R = 0.

    Parameters
    ----------
    k
        Cutoff rank (default: the whole ranking).
    beta
        Persistence β >= 0 towards gain (default 1, as seed 000).
    rel
        Minimum grade counted as relevant (default: the evaluation's ``relevance_level``).
    gains
        Gain per grade (default: the grade; negative grades and unjudged documents gain 0).

    See Also
    --------
    AP (β = 0); NTCIR's ``Q-measure`` (Sakai's NTCIREVAL).

    Examples
    --------
    Grades 0, 2 at ranks 1, 2 and an unretrieved grade-1 document, β = 1: the ideal gains
    are 2, 1, so Q = (1/2) (1 + 2) / (2 + 3) = 0.3.

    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"],
    ...                       "relevance": [0, 2, 1]})
    >>> ir.evaluate(run, qrels, ["Q", "Q(beta=0)", "AP"])["value"].to_list()
    [0.3, 0.25, 0.25]
    """
    g = grade_gain("linear", gains)
    keep = retrieved(k)
    order = RANK.filter(keep)
    rank = order.sort()
    gain = g.filter(keep).sort_by(order)
    is_rel = relevant(rel).filter(keep).sort_by(order)
    found = is_rel.cast(pl.Float64).cum_sum()
    ideal = g.filter(g > 0).sort(descending=True).cum_sum()
    best = value_at(ideal, pl.min_horizontal(rank, ideal.len()))
    terms = (found + beta * gain.cum_sum()) / (rank.cast(pl.Float64) + beta * best)
    total = terms.filter(is_rel).cum_sum().last().fill_null(0.0)
    return ratio(total, num_rel(rel))
