"""``tie_sensitivity``: which results hinge on the order of documents with equal scores.

A run that gives several documents the same score leaves their order open, and every tool
closes it its own way (trec_eval: doc id descending; see ``docs/compat.md``). A measure's
value can then depend on an arbitrary choice. :func:`tie_sensitivity` reports, per run,
query and measure, the value under the chosen tie policy and the minimum and maximum over
every order of the tied documents.

The bounds come from two re-ordered rankings, evaluated in one call of
:func:`polars_ireval.evaluate` (``ties="rank"``, the rankings given as ranks): within each
group of equal scores, the *best* order puts higher grades first and judged documents
before unjudged ones, the *worst* order the reverse (unjudged first, then grades
ascending). The measures declared ``tie_bounds=True`` (see
:class:`polars_ireval.registry.MeasureDef`) reach their minimum and maximum over tie orders
at those two orders, the one or the other: ``tests/test_ties.py`` checks it against an
enumeration of every order of the tied documents. The others are refused.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval._base.collect import collect
from polars_ireval._base.options import Missing, check_flag, check_relevance_level
from polars_ireval.errors import ParameterError
from polars_ireval.evaluate import evaluate
from polars_ireval.io.intake import intake
from polars_ireval.io.readers import Scores, check_scores, float32_scores
from polars_ireval.judge import INPUT_RANK, EvalTies, check_options
from polars_ireval.parse import MeasureLike, parse_measures
from polars_ireval.registry import Measure, definitions
from polars_ireval.results import MEASURE, VALUE

#: The tie policies whose order is by score first (``"rank"`` orders by the run's ranks),
#: and ``"average"``, the expected value over the tie orders.
SCORE_TIES = ("trec_eval", "doc_id_asc", "input_order", "average")
#: Output columns beside the keys, the measure and its value.
MIN, MAX, HINGES = "min", "max", "hinges_on_ties"
_BEST, _WORST = "+", "-"  # the orders, as the first character of an internal run id


def _bounded_names() -> list[str]:
    return [d.name for d in definitions() if d.tie_bounds]


def _check_measures(measures: list[Measure], relevance_level: int) -> None:
    refused = [m.label for m in measures if not m.tie_bounded_at(relevance_level)]
    if refused:
        raise ParameterError(
            f"tie_sensitivity cannot bound {', '.join(map(repr, refused))}: the extremes of "
            "such a measure over tie orders are not reached by ordering each tie by grade "
            "(an adaptive user model, a gain mapping not increasing with the grade, a nested "
            "measure, Q with a relevance level above 1). Measures it bounds (with increasing "
            "gains): "
            f"{', '.join(_bounded_names())}"
        )


def tie_orders(run: Any, qrels: Any) -> Any:
    """The run twice, as rankings (an ``input_rank`` column, 1 = top) in the best and the
    worst order of each group of tied documents; ``run_id`` is the original run id (empty
    when the run has none) after one character saying the order (``+`` best, ``-`` worst).

    Both orders keep the scores' order between groups. Within a group, the best order is
    grade descending with unjudged documents last, the worst order unjudged documents
    first, then grade ascending; documents of the same grade (or both unjudged) are
    interchangeable for every measure and follow doc id descending.
    """
    keys = [S.RUN_ID, S.QUERY_ID] if S.RUN_ID in run.collect_schema() else [S.QUERY_ID]
    graded = run.lazy().join(
        qrels.lazy().select(S.QUERY_ID, S.DOC_ID, S.RELEVANCE),
        on=[S.QUERY_ID, S.DOC_ID],
        how="left",
    )
    # unjudged below every grade: last in the best order, first in the worst
    grade = pl.col(S.RELEVANCE).cast(pl.Float64).fill_null(float("-inf"))
    score, doc = pl.col(S.SCORE), pl.col(S.DOC_ID)
    run_id = pl.col(S.RUN_ID) if S.RUN_ID in keys else pl.lit("")
    out = []
    for tag, sign in ((_BEST, 1.0), (_WORST, -1.0)):
        key = pl.struct(score, sign * grade, doc)
        rank = key.rank("ordinal", descending=True).over(keys).cast(pl.UInt32)
        out.append(
            graded.select(
                (pl.lit(tag) + run_id).alias(S.RUN_ID),
                S.QUERY_ID,
                S.DOC_ID,
                S.SCORE,
                rank.alias(INPUT_RANK),
            )
        )
    return pl.concat(out)


def tie_sensitivity(
    run: Any,
    qrels: Any,
    measures: MeasureLike | Iterable[MeasureLike],
    *,
    relevance_level: int = 1,
    missing: Missing = "skip",
    max_depth: int | None = None,
    judged_only: bool = False,
    ties: EvalTies = "trec_eval",
    scores: Scores = "float64",
    validate: bool = True,
) -> Any:
    """Per run, query and measure: the value, and its minimum and maximum over every order
    of the documents with equal scores.

    Parameters
    ----------
    run, qrels
        As for :func:`polars_ireval.evaluate` (one run or many, with a ``run_id`` column;
        a LazyFrame gives a LazyFrame).
    measures
        Measure strings, as for :func:`polars_ireval.evaluate`. Only measures whose
        extremes over tie orders lie at the grade-ordered tie orders are accepted (most of
        them; see ``docs/ties.md``); the others raise :class:`ParameterError` naming them.
    relevance_level, missing, max_depth, judged_only, scores, validate
        As for :func:`polars_ireval.evaluate`. A tie that ``max_depth`` cuts counts with
        all its members: which of them are kept is part of the tie order.
    ties
        The tie policy of the ``value`` column (default ``"trec_eval"``: doc id
        descending); one of the policies that order by score: ``"trec_eval"``,
        ``"doc_id_asc"``, ``"input_order"``, or ``"average"`` (the expected value over
        every tie order; see :func:`polars_ireval.evaluate`).

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        ``[run_id,] query_id, measure, value, min, max, hinges_on_ties``, in the order
        of ``evaluate(..., per_query=True)``: ``value`` under ``ties``, ``min`` and
        ``max`` over every order of the tied documents (both attained by some order), and
        ``hinges_on_ties`` = ``min < max``, the rows whose value depends on the tie order.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": ["q1", "q1", "q1", "q2", "q2"],
    ...                     "doc_id": ["a", "b", "c", "d", "e"],
    ...                     "score": [1.0, 1.0, 0.5, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "d"],
    ...                       "relevance": [1, 1]})
    >>> ir.tie_sensitivity(run, qrels, ["P@1", "RR"])
    shape: (4, 6)
    ┌──────────┬─────────┬───────┬─────┬─────┬────────────────┐
    │ query_id ┆ measure ┆ value ┆ min ┆ max ┆ hinges_on_ties │
    │ ---      ┆ ---     ┆ ---   ┆ --- ┆ --- ┆ ---            │
    │ str      ┆ str     ┆ f64   ┆ f64 ┆ f64 ┆ bool           │
    ╞══════════╪═════════╪═══════╪═════╪═════╪════════════════╡
    │ q1       ┆ P@1     ┆ 0.0   ┆ 0.0 ┆ 1.0 ┆ true           │
    │ q1       ┆ RR      ┆ 0.5   ┆ 0.5 ┆ 1.0 ┆ true           │
    │ q2       ┆ P@1     ┆ 1.0   ┆ 1.0 ┆ 1.0 ┆ false          │
    │ q2       ┆ RR      ┆ 1.0   ┆ 1.0 ┆ 1.0 ┆ false          │
    └──────────┴─────────┴───────┴─────┴─────┴────────────────┘
    """
    check_relevance_level(relevance_level)
    check_flag("validate", validate)
    check_options(
        max_depth=max_depth, ties=ties, missing=missing, judged_only=judged_only, average=True
    )
    if ties not in SCORE_TIES:
        raise ParameterError(
            f"ties={ties!r}: tie_sensitivity bounds a measure over the orders of documents "
            f"with equal scores, so the value it reports must be ranked by score too; pass "
            f"one of {', '.join(SCORE_TIES)}"
        )
    check_scores(scores)
    parsed = parse_measures(measures)
    _check_measures(parsed, relevance_level)
    lazy = isinstance(run, pl.LazyFrame) or isinstance(qrels, pl.LazyFrame)
    inputs = intake(run, qrels, validate=validate)
    run_in, qrels_in = inputs.run, inputs.qrels
    run_in = float32_scores(run_in, scores)
    options: dict[str, Any] = {
        "per_query": True,
        "relevance_level": relevance_level,
        "missing": missing,
        "max_depth": max_depth,
        "judged_only": judged_only,
    }
    observed = evaluate(run_in, qrels_in, parsed, ties=ties, **options).lazy()
    # both orders of every run in one evaluation; lazy, so that it warns of nothing twice
    ordered = tie_orders(run_in, qrels_in)
    bounds = evaluate(ordered, qrels_in.lazy(), parsed, ties="rank", validate=False, **options)
    keys = [S.RUN_ID, S.QUERY_ID] if S.RUN_ID in run_in.collect_schema() else [S.QUERY_ID]
    value = pl.col(VALUE)
    extremes = (
        bounds.with_columns(pl.col(S.RUN_ID).str.slice(1))
        .group_by(S.RUN_ID, S.QUERY_ID, MEASURE)
        .agg(value.min().alias(MIN), value.max().alias(MAX))
    )
    if S.RUN_ID not in keys:
        extremes = extremes.drop(S.RUN_ID)
    out = observed.join(
        extremes, on=[*keys, MEASURE], how="left", maintain_order="left"
    ).with_columns((pl.col(MIN) < pl.col(MAX)).alias(HINGES))
    return out if lazy else collect(out, run_in, qrels_in)


__all__ = ["tie_orders", "tie_sensitivity"]
