"""Pairwise (majority) fusion: ``condorcet``, ``w_condorcet`` (ranx's) and ``copeland``.

Each compares every pair of a query's candidates (the documents any run retrieved for it)
in every run that has the query: a run ranks ``x`` above ``y`` when it retrieved ``x``
and either did not retrieve ``y`` or ranked it lower; a run that retrieved neither ranks
neither above the other.

- ``condorcet`` / ``w_condorcet`` (Montague and Aslam 2002, as ranx computes it): ``x``
  gets a run's vote (its weight) when the run ranks it above ``y``, and ``y`` gets every
  other run's vote (a tie within a run, both unretrieved, goes to ``y``); ranx sorts the
  candidates with "``x`` before ``y`` when ``x``'s votes are at least ``y``'s" and scores
  the document at 0-based position ``i`` of ``C`` candidates ``C - i``. That comparison
  is only an order when no pair compares both ways (equal votes, which also happen with
  an even number of runs) and there is no majority cycle; otherwise ranx's order depends on
  the order in which Python's set of candidates (hash-randomised) feeds its sort. Here a
  document scores ``C`` minus the number of candidates that beat it (``x`` beats ``y``
  when ``x`` comes first comparing ``x`` to ``y`` and not ``y`` first comparing ``y`` to
  ``x``): ranx's score wherever ranx's order is defined, and otherwise a defined score,
  ties in it ordered by the fused ranking's ``ties=`` policy.
- ``copeland`` (Copeland's rule; beyond ranx): ``x`` beats ``y`` when more runs rank ``x``
  above ``y`` than ``y`` above ``x`` (runs that rank neither above the other abstain); a
  document scores its wins minus its losses over the other candidates (from ``-(C - 1)`` to
  ``C - 1``; a Condorcet winner scores ``C - 1``).

The pairs come from a self-join of a query's candidates, ``C * (C - 1)`` rows per query
(O(C²) in time and memory: about 4 million rows for 2,000 candidates), each holding the
candidates' ranks in every run (one column per run): fine at fusion depths (hundreds of
documents per run), costly for deep runs (cut them with ``depth=``).
"""

from __future__ import annotations

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval.errors import ParameterError

PAIRWISE = ("condorcet", "w_condorcet", "copeland")


def pairwise_scores(
    rows: pl.LazyFrame, method: str, weight: dict[str, float], missing: str
) -> pl.LazyFrame:
    """One row per (query, document) of ``rows`` (the prepared runs: ``run_id, query_id,
    doc_id, rank``) with its fused ``score`` under ``method``; ``weight`` by run name (the
    runs in their order)."""
    if missing != "skip":
        raise ParameterError(
            f"missing={missing!r}: method={method!r} compares ranks, a document a run did not "
            "retrieve ranking below those it did; missing= is for the score-based Comb methods"
        )
    names = list(weight)
    rank = [f"__r{i}" for i in range(len(names))]
    wide = rows.group_by(S.QUERY_ID, S.DOC_ID).agg(
        pl.col(S.RANK).filter(pl.col(S.RUN_ID) == n).first().cast(pl.Float64).alias(r)
        for n, r in zip(names, rank, strict=True)
    )
    # an unretrieved document ranks past every retrieved one; two unretrieved ones tie
    wide = wide.with_columns(
        pl.col(rank).fill_null(float("inf")),
        *(pl.col(r).is_not_null().any().over(S.QUERY_ID).alias(f"{r}_has") for r in rank),
    )
    other = wide.select(S.QUERY_ID, pl.col(S.DOC_ID).alias("__y"), *(
        pl.col(r).alias(f"{r}_y") for r in rank
    ))  # fmt: skip
    pairs = wide.join(other, on=S.QUERY_ID).filter(pl.col(S.DOC_ID) != pl.col("__y"))

    def above(i: int, first: str, second: str) -> pl.Expr:
        return pl.col(first.format(r=rank[i])) < pl.col(second.format(r=rank[i]))

    if method == "copeland":
        x_over_y = pl.sum_horizontal(
            above(i, "{r}", "{r}_y").cast(pl.Int64) for i in range(len(names))
        )
        y_over_x = pl.sum_horizontal(
            above(i, "{r}_y", "{r}").cast(pl.Int64) for i in range(len(names))
        )
        point = (x_over_y - y_over_x).sign().cast(pl.Float64)
        by = S.DOC_ID
    else:

        def first(ahead: str, behind: str) -> pl.Expr:
            """ranx's ``_compare``: the runs' votes for ``ahead`` at least those for
            ``behind`` (votes summed run by run, in the runs' order, as ranx sums them)."""
            votes = [
                pl.when(pl.col(f"{r}_has") & above(i, ahead, behind)).then(weight[n]).otherwise(0.0)
                for i, (n, r) in enumerate(zip(names, rank, strict=True))
            ]
            against = [
                pl.when(pl.col(f"{r}_has") & ~above(i, ahead, behind))
                .then(weight[n])
                .otherwise(0.0)
                for i, (n, r) in enumerate(zip(names, rank, strict=True))
            ]
            return pl.sum_horizontal(votes) >= pl.sum_horizontal(against)

        # the pair (x, y) = (DOC_ID, __y): y beats x (a loss of x)
        beaten = first("{r}_y", "{r}") & ~first("{r}", "{r}_y")
        point = beaten.cast(pl.Float64)
        by = S.DOC_ID
    totals = pairs.group_by(S.QUERY_ID, by).agg(point.sum().alias("__points"))
    candidates = wide.select(
        S.QUERY_ID, S.DOC_ID, pl.len().over(S.QUERY_ID).cast(pl.Float64).alias("__c")
    )
    out = candidates.join(totals, on=[S.QUERY_ID, S.DOC_ID], how="left").with_columns(
        pl.col("__points").fill_null(0.0)
    )
    score = pl.col("__points") if method == "copeland" else pl.col("__c") - pl.col("__points")
    return out.select(S.QUERY_ID, S.DOC_ID, score.alias(S.SCORE))
