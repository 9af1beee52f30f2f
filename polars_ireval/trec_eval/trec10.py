"""trec_eval 10.0's ``rbp`` and ``rbp_resid`` (:func:`trec10_rbp`), which differ from the
registry's RBP, and how their ``all`` lines combine (:data:`TREC10_MEANS`)."""

from __future__ import annotations

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval.registry import REGISTRY

#: trec_eval 10.0's persistence for ``rbp`` and ``rbp_resid`` (fixed in its sources).
TREC10_RBP_P = 0.9

#: trec_eval 10.0's ``rbp`` and ``rbp_resid`` are means over the queries, as the registry's
#: RBP is: bound to their labels, RBP's declaration tells :func:`aggregate` how to combine
#: them (their values come from :func:`trec10_rbp`).
TREC10_MEANS = [REGISTRY["RBP"].bind({}, label=name) for name in ("rbp", "rbp_resid")]


def trec10_rbp(table: pl.DataFrame, p: float = TREC10_RBP_P) -> pl.DataFrame:
    """trec_eval 10.0's ``rbp`` and ``rbp_resid`` per query, from an evaluation table.

    They differ from ``RBP`` / ``RBP_resid`` of the registry, so they are computed here:

    * ``rbp`` = (1 - p) Σ_i g_i p^(i-1) with graded gains: a judged grade ``r >= 0`` gains
      ``r / G``, where ``G`` is the query's highest grade when it exceeds 1 (else 1);
      unjudged documents and negative grades gain 0. ``-l`` plays no part.
    * ``rbp_resid`` = p^n + (1 - p) Σ_{i unjudged} p^(i-1) over the ``n`` ranked documents,
      where negative grades count as unjudged; 0 when no ranked document is unjudged.

    Parameters
    ----------
    table
        From :func:`polars_ireval.judge` (one run).
    p
        Persistence; trec_eval 10.0 fixes it to 0.9.

    Returns
    -------
    polars.DataFrame
        ``query_id, measure, value`` with measures ``rbp`` and ``rbp_resid``.
    """
    rank, rel = pl.col(S.RANK), pl.col(S.RELEVANCE)
    ranked = rank.is_not_null()
    # trec_eval's arithmetic, in its order: p^(i-1) as a running product (cur_p *= p), the
    # sums added rank after rank (a power or a pairwise sum moves the 4th decimal of a mean)
    steps = pl.lit(p, pl.Float64).repeat_by(ranked.sum()).explode()
    after = steps.cum_prod()  # p^i after rank i
    before = pl.lit(1.0).append(after).head(ranked.sum())  # p^(i-1) at rank i
    top = pl.max_horizontal(rel.max().cast(pl.Float64), pl.lit(1.0))
    in_order = rel.filter(ranked).sort_by(rank.filter(ranked))
    gains = pl.when(in_order >= 0).then(in_order.cast(pl.Float64)).otherwise(0.0) / top
    unjudged = in_order.is_null() | (in_order < 0)
    wide = table.group_by(S.QUERY_ID).agg(
        ((1.0 - p) * (gains * before).cum_sum().last().fill_null(0.0)).alias("rbp"),
        pl.when(unjudged.any())
        .then(
            after.last()
            + (1.0 - p) * pl.when(unjudged).then(before).otherwise(0.0).cum_sum().last()
        )
        .otherwise(0.0)
        .alias("rbp_resid"),
    )
    return wide.unpivot(
        index=S.QUERY_ID, on=["rbp", "rbp_resid"], variable_name="measure", value_name="value"
    ).sort(S.QUERY_ID, maintain_order=True)
