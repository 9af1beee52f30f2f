"""What each budget of a judging simulation buys: the campaign scored on its judgments.

:func:`polars_ireval.simulate_judging` (:mod:`polars_ireval.analysis.judging`) replays the
pooling methods; :func:`score_budgets` scores what they asked for. Every run's rows on the
judged queries are a documents x rankings matrix of RBP weights (``_Evaluation``), so
that a method's judgment sets at all its budgets are scored by one sparse product: a
ranking's base is the column sum over its relevant judged documents, its residual the sum
over its unjudged ones plus the ranks past its end (as ``RBP`` and ``RBP_resid`` compute
them). Other measures go through :func:`polars_ireval.evaluate`, once per (method, budget).
Then the means over queries, Kendall's tau of each run ordering against the full qrels',
the summary of each (method, budget) and the overlap of the methods' judgments.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import polars as pl

from polars_ireval._base import schema as S
from polars_ireval._base.numeric import RELATIVE_TOLERANCE, snap
from polars_ireval.analysis.campaign import (
    CANDIDATE,
    RUN_NUMBER,
    SINGLE_RUN,
    Campaign,
    Ranked,
    rbp_weight,
)
from polars_ireval.analysis.pooling import BUDGET
from polars_ireval.results import PROJECTED, RESIDUAL, VALUE, projected, projected_by_weight

#: The column naming the pooling method of a row.
METHOD = "method"
#: The column naming the measure of a row.
MEASURE = "measure"
#: The column holding a document's status (``judging.STATUSES``): ``"judged"``,
#: ``"unknown"`` (not judged in the qrels, taken as non-relevant) or ``"bypassed"``.
STATUS = "status"
_DOC = "__doc"


class BudgetScores(NamedTuple):
    """What :func:`score_budgets` returns: the frames of
    :class:`~polars_ireval.analysis.judging.JudgingSimulation` that score the judgments,
    and the measures reported (RBP(p) first)."""

    per_query: pl.DataFrame
    scores: pl.DataFrame
    reference: pl.DataFrame
    agreement: pl.DataFrame
    summary: pl.DataFrame
    overlap: pl.DataFrame
    measures: tuple[str, ...]


def score_budgets(
    found: pl.DataFrame,
    camp: Campaign,
    ranked: Ranked,
    run: pl.DataFrame,
    qrels: pl.DataFrame,
    *,
    p: float,
    relevance_level: int,
    methods: list[str],
    budgets: list[int],
    measures: list[str],
    say: Callable[[str], None],
) -> BudgetScores:
    """Score the judgments ``found`` (``method, budget, query_id, doc_id, order, weight,
    status, __cand, relevance``: what each method asked for within each budget) of the
    campaign ``camp`` (the contributing rows of ``ranked``, every run's rows): every run's
    RBP(``p``) and the other ``measures`` per query and on average, with the full
    ``qrels`` as reference; Kendall's tau of the run orderings; the summary per (method,
    budget) and the methods' overlap. ``run`` is the runs as read (for ``measures``)."""
    evaluation = _Evaluation.build(ranked, qrels, p, relevance_level)
    per_q = evaluation.per_query(found, camp, methods, budgets)
    reference_q = evaluation.reference()
    label = _rbp_label(p)
    per_q = per_q.with_columns(pl.lit(label).alias(MEASURE))
    reference_q = reference_q.with_columns(pl.lit(label).alias(MEASURE))
    extra = [m for m in measures if m != label]
    if extra:
        more, more_ref = _other_measures(run, qrels, found, extra, say)
        per_q = pl.concat([per_q, more], how="diagonal_relaxed")
        reference_q = pl.concat([reference_q, more_ref], how="diagonal_relaxed")
    # rows by method (in the order asked), budget, measure (RBP first), run and query
    measure_order = pl.Enum([label, *extra])
    per_q = _order_columns(per_q, [METHOD, BUDGET, S.RUN_ID, S.QUERY_ID]).sort(
        pl.col(METHOD).cast(pl.Enum(methods)),
        BUDGET,
        pl.col(MEASURE).cast(measure_order),
        S.RUN_ID,
        S.QUERY_ID,
    )
    reference_q = _order_columns(reference_q, [S.RUN_ID, S.QUERY_ID]).sort(
        pl.col(MEASURE).cast(measure_order), S.RUN_ID, S.QUERY_ID
    )
    scores = _means(per_q, [METHOD, BUDGET, S.RUN_ID, MEASURE])
    reference = _means(reference_q, [S.RUN_ID, MEASURE])
    return BudgetScores(
        per_query=per_q,
        scores=scores,
        reference=reference,
        agreement=_agreement(scores, reference),
        summary=_summary(found, scores, reference, label, relevance_level, budgets, methods),
        overlap=_overlap(found, methods),
        measures=(label, *extra),
    )


def _rbp_label(p: float) -> str:
    return f"RBP(p={p:g})"


@dataclass(frozen=True)
class _Evaluation:
    """Every run's rows on the judged queries as a documents x rankings matrix of RBP
    weights, to score many judgment sets at once: a ranking's base is the column sum over
    its relevant judged documents, its residual the sum over its unjudged ones plus the
    ranks past its end (as ``RBP`` and ``RBP_resid`` compute them)."""

    docs: pl.DataFrame  # __doc, query_id, doc_id, __gain (full qrels), __judged
    pairs: pl.DataFrame  # run_id, query_id, retrieved
    matrix: Any  # rankings x documents (CSR), the transpose of documents x rankings
    tail: np.ndarray

    @staticmethod
    def build(ranked: Ranked, qrels: pl.DataFrame, p: float, level: int) -> _Evaluation:
        from scipy import sparse

        queries = qrels.select(S.QUERY_ID).unique()
        # eager steps, as in build_campaign (one lazy query runs these joins ten times slower)
        rows = ranked.rows.join(queries, on=S.QUERY_ID, how="semi")
        docs = (
            rows.select(S.QUERY_ID, S.DOC_ID)
            .unique()
            .sort(S.QUERY_ID, S.DOC_ID)
            .with_row_index(_DOC)
            .join(qrels, on=[S.QUERY_ID, S.DOC_ID], how="left", maintain_order="left")
            .select(
                _DOC,
                S.QUERY_ID,
                S.DOC_ID,
                (pl.col(S.RELEVANCE) >= level).fill_null(False).cast(pl.Float64).alias("__gain"),
                pl.col(S.RELEVANCE).is_not_null().alias("__judged"),
            )
        )
        pairs = (
            rows.group_by(S.RUN_ID, S.QUERY_ID)
            .agg(pl.col(RUN_NUMBER).first(), pl.len().alias("retrieved"))
            .sort(RUN_NUMBER, S.QUERY_ID)
            .drop(RUN_NUMBER)
            .with_row_index("__pair")
        )
        numbered = (
            rows.join(docs.select(_DOC, S.QUERY_ID, S.DOC_ID), on=[S.QUERY_ID, S.DOC_ID])
            .join(pairs.select("__pair", S.RUN_ID, S.QUERY_ID), on=[S.RUN_ID, S.QUERY_ID])
            .select("__pair", _DOC, rbp_weight(p).alias("__c"))
        )
        matrix = sparse.csr_matrix(
            (
                numbered["__c"].to_numpy(),
                (numbered["__pair"].to_numpy(), numbered[_DOC].to_numpy()),
            ),
            shape=(pairs.height, docs.height),
        )
        tail = np.power(p, pairs["retrieved"].to_numpy().astype(np.float64))
        return _Evaluation(docs, pairs.drop("__pair"), matrix, tail)

    def _scores(self, judged: np.ndarray, gain: np.ndarray) -> tuple[np.ndarray, ...]:
        """Base, residual and judged weight of every ranking (rows) for each column of
        ``judged``: the residual is 1 minus the judged weight, which the projection reads
        itself (:func:`polars_ireval.results.projected_by_weight`)."""
        base = np.asarray(self.matrix @ (gain * judged))
        resid = np.asarray(self.matrix @ (1.0 - judged)) + self.tail[:, None]
        weight = np.asarray(self.matrix @ judged)
        # as evaluate's residual (measures._expr.unit_residual): 1 with nothing judged, at
        # most 1 (a sum of many weights rounds), so that a mean over unjudged rankings is 1
        resid = np.where(weight > 0.0, np.minimum(resid, 1.0), 1.0)
        return base, resid, weight

    def _frame(self, base: np.ndarray, resid: np.ndarray, weight: np.ndarray) -> pl.DataFrame:
        judged = "__judged_weight"
        return (
            self.pairs.select(S.RUN_ID, S.QUERY_ID)
            .with_columns(
                pl.Series(VALUE, base.ravel()),
                pl.Series(RESIDUAL, resid.ravel()),
                pl.Series(judged, weight.ravel()),
            )
            .with_columns(projected_by_weight(pl.col(VALUE), pl.col(judged)).alias(PROJECTED))
            .drop(judged)
        )

    def reference(self) -> pl.DataFrame:
        judged = self.docs["__judged"].to_numpy().astype(np.float64)[:, None]
        gain = self.docs["__gain"].to_numpy()[:, None]
        return self._frame(*self._scores(judged, gain))

    def per_query(
        self, found: pl.DataFrame, camp: Campaign, methods: list[str], budgets: list[int]
    ) -> pl.DataFrame:
        """RBP base, residual and projection of every ranking, method and budget."""
        link = (
            camp.cands.lazy()
            .select(CANDIDATE, S.QUERY_ID, S.DOC_ID)
            .join(self.docs.lazy().select(_DOC, S.QUERY_ID, S.DOC_ID), on=[S.QUERY_ID, S.DOC_ID])
            .select(CANDIDATE, _DOC)
        )
        used = (
            found.lazy()
            .filter(pl.col(STATUS) != "bypassed")
            .join(link, on=CANDIDATE)
            .select(METHOD, BUDGET, _DOC)
            .collect()
        )
        gain = self.docs["__gain"].to_numpy()[:, None]
        frames = []
        for method in methods:  # one product per method, over all its budgets at once
            mine = used.filter(pl.col(METHOD) == method)
            judged = np.zeros((self.docs.height, len(budgets)))
            column = mine[BUDGET].replace_strict(budgets, list(range(len(budgets))))
            judged[mine[_DOC].to_numpy(), column.to_numpy()] = 1.0
            base, resid, weight = self._scores(judged, gain)
            for i, b in enumerate(budgets):
                frames.append(
                    self._frame(base[:, i], resid[:, i], weight[:, i]).with_columns(
                        pl.lit(method).alias(METHOD), pl.lit(b, dtype=pl.Int64).alias(BUDGET)
                    )
                )
        return pl.concat(frames)


def _other_measures(
    run: pl.DataFrame,
    qrels: pl.DataFrame,
    found: pl.DataFrame,
    measures: list[str],
    say: Callable[[str], None],
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``measures`` per query for every (method, budget) and for the full qrels, by
    :func:`polars_ireval.evaluate` (with residuals)."""
    from polars_ireval.evaluate import evaluate

    if S.RUN_ID not in run.columns:
        run = run.with_columns(pl.lit(SINGLE_RUN).alias(S.RUN_ID))

    def scored(judgments: pl.DataFrame) -> pl.DataFrame:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return evaluate(run, judgments, measures, per_query=True, residuals=True)

    frames = []
    keys = found.select(METHOD, BUDGET).unique(maintain_order=True).rows()
    for method, budget in keys:
        say(f"evaluating {method} at {budget:,}")
        mine = (pl.col(METHOD) == method) & (pl.col(BUDGET) == budget)
        sub = found.filter(mine & (pl.col(STATUS) != "bypassed")).select(
            S.QUERY_ID, S.DOC_ID, pl.col(S.RELEVANCE).fill_null(0)
        )
        if sub.height == 0:
            continue
        frames.append(
            scored(sub).with_columns(
                pl.lit(method).alias(METHOD), pl.lit(budget, dtype=pl.Int64).alias(BUDGET)
            )
        )
    reference = scored(qrels)
    empty = reference.clear().with_columns(
        pl.lit(None, dtype=pl.String).alias(METHOD), pl.lit(None, dtype=pl.Int64).alias(BUDGET)
    )
    return pl.concat([empty, *frames], how="diagonal_relaxed"), reference


def _order_columns(frame: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    return frame.select(*keys, MEASURE, VALUE, RESIDUAL, PROJECTED).with_columns(
        pl.col(MEASURE).cast(pl.String)
    )


def _means(per_query: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """Mean value and residual over each run's queries; the projection of the means."""
    return (
        per_query.group_by(keys, maintain_order=True)
        .agg(pl.col(VALUE).mean(), pl.col(RESIDUAL).mean())
        .with_columns(projected(pl.col(VALUE), pl.col(RESIDUAL)).alias(PROJECTED))
    )


def _kendall(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """scipy.stats.kendalltau (tau-b), pairs with a NaN left out; NaN when undefined;
    scores within rounding error of each other tied."""
    from scipy import stats

    ok = ~(np.isnan(x) | np.isnan(y))
    # scores equal up to rounding error tie (a mean summed in another order)
    x, y = (snap(v, np.abs(v), RELATIVE_TOLERANCE) for v in (x, y))
    if ok.sum() < 2 or np.ptp(x[ok]) == 0 or np.ptp(y[ok]) == 0:
        return math.nan, math.nan
    res = stats.kendalltau(x[ok], y[ok])
    return float(res.statistic), float(res.pvalue)


def _agreement(scores: pl.DataFrame, reference: pl.DataFrame) -> pl.DataFrame:
    """Kendall's tau of each (method, budget, measure)'s run ordering against the full
    qrels' ordering of the same measure: by value, and by projected value (against the
    projected values of the full qrels)."""
    ref = reference.select(
        S.RUN_ID, MEASURE, pl.col(VALUE).alias("__ref"), pl.col(PROJECTED).alias("__ref_p")
    )
    joined = scores.join(ref, on=[S.RUN_ID, MEASURE], how="inner")
    rows = []
    for (method, budget, measure), part in joined.group_by(
        METHOD, BUDGET, MEASURE, maintain_order=True
    ):

        def column(name: str, frame: pl.DataFrame = part) -> np.ndarray:
            return frame[name].cast(pl.Float64).fill_null(np.nan).to_numpy()

        tau, pv = _kendall(column(VALUE), column("__ref"))
        has_residual = part[RESIDUAL].is_not_null().any()
        tau_p = _kendall(column(PROJECTED), column("__ref_p"))[0] if has_residual else None
        rows.append((method, budget, measure, tau, pv, tau_p))
    return pl.DataFrame(
        rows,
        schema={
            METHOD: pl.String,
            BUDGET: pl.Int64,
            MEASURE: pl.String,
            "tau": pl.Float64,
            "p_value": pl.Float64,
            "tau_projected": pl.Float64,
        },
        orient="row",
    ).with_columns(pl.col("tau", "p_value", "tau_projected").fill_nan(None))


def _summary(
    found: pl.DataFrame,
    scores: pl.DataFrame,
    reference: pl.DataFrame,
    label: str,
    level: int,
    budgets: list[int],
    methods: list[str],
) -> pl.DataFrame:
    status = pl.col(STATUS)
    counts = found.group_by(METHOD, BUDGET).agg(
        (status != "bypassed").sum().alias("judged"),
        pl.len().alias("considered"),
        (status != "judged").sum().alias("unknown"),
        ((status == "judged") & (pl.col(S.RELEVANCE) >= level)).sum().alias("relevant"),
    )
    ref = reference.filter(pl.col(MEASURE) == label).sort(VALUE, S.RUN_ID, descending=[True, False])
    top = ref.head(max(1, math.ceil(ref.height / 3)))[S.RUN_ID]
    rbp = scores.filter(pl.col(MEASURE) == label)
    residuals = rbp.group_by(METHOD, BUDGET).agg(
        pl.col(RESIDUAL).mean().alias("mean_residual"),
        pl.col(RESIDUAL)
        .filter(pl.col(S.RUN_ID).is_in(top.implode()))
        .mean()
        .alias("mean_residual_top"),
    )
    tau = _agreement(rbp, reference.filter(pl.col(MEASURE) == label)).select(
        METHOD, BUDGET, "tau", pl.col("p_value").alias("tau_p_value"), "tau_projected"
    )
    grid = pl.DataFrame(
        [(m, b) for m in methods for b in budgets],
        schema={METHOD: pl.String, BUDGET: pl.Int64},
        orient="row",
    )
    zero = pl.col("judged", "considered", "unknown", "relevant").fill_null(0)
    return (
        grid.join(counts, on=[METHOD, BUDGET], how="left", maintain_order="left")
        .with_columns(zero.cast(pl.UInt32))
        .join(residuals, on=[METHOD, BUDGET], how="left", maintain_order="left")
        .join(tau, on=[METHOD, BUDGET], how="left", maintain_order="left")
    )


def _overlap(found: pl.DataFrame, methods: list[str]) -> pl.DataFrame:
    """Documents judged by both methods of each pair, per budget (one self-join)."""
    used = found.filter(pl.col(STATUS) != "bypassed").select(METHOD, BUDGET, S.QUERY_ID, S.DOC_ID)
    rank = {m: i for i, m in enumerate(methods)}
    order = pl.col(METHOD).replace_strict(rank, return_dtype=pl.Int64)
    a = used.with_columns(order.alias("__a"))
    b = used.with_columns(order.alias("__b"))
    common = (
        a.join(b, on=[BUDGET, S.QUERY_ID, S.DOC_ID], suffix="_b")
        .filter(pl.col("__a") <= pl.col("__b"))
        .group_by(BUDGET, pl.col(METHOD).alias("method_a"), pl.col("method_b"))
        .agg(pl.len().cast(pl.UInt32).alias("common"))
    )
    sizes = used.group_by(METHOD, BUDGET).agg(pl.len().cast(pl.UInt32).alias("__n"))
    budgets = sorted(found[BUDGET].unique().to_list())
    grid = pl.DataFrame(
        [
            (b, methods[i], methods[j])
            for b in budgets
            for i in range(len(methods))
            for j in range(i, len(methods))
        ],
        schema={BUDGET: pl.Int64, "method_a": pl.String, "method_b": pl.String},
        orient="row",
    )
    return (
        grid.join(common, on=[BUDGET, "method_a", "method_b"], how="left", maintain_order="left")
        .with_columns(pl.col("common").fill_null(0))
        .join(
            sizes.rename({METHOD: "method_a", "__n": "judged_a"}),
            on=["method_a", BUDGET],
            how="left",
            maintain_order="left",
        )
        .join(
            sizes.rename({METHOD: "method_b", "__n": "judged_b"}),
            on=["method_b", BUDGET],
            how="left",
            maintain_order="left",
        )
        .with_columns(pl.col("judged_a", "judged_b").fill_null(0))
    )
