"""Planning judgments: what a budget buys, and what a pool depth leaves unjudged.

:func:`simulate_judging` replays pooling methods (:data:`polars_ireval.analysis.pooling.METHODS`)
on a campaign whose judgments already exist, as Moffat, Webber and Zobel (SIGIR 2007,
``../shared/seeds/002_*``) did on TREC 8: a method asks for documents in its order, the
existing qrels say how each would have been judged, and at each budget the campaign is
evaluated on the judgments made so far. It reports what each budget buys: the relevant
documents found (the seed's Table 2), the runs' RBP base, residual and projection and their
average residual (Table 4), how much the methods' judgment sets overlap (Table 3), and how
well the system ordering agrees with the one the full qrels give (Kendall's tau).

:func:`pool_depths`, :func:`depth_qrels` and :func:`judged_depth` are seed 000's view
(``../shared/seeds/000_*``): the depth at which each document enters a depth pool, the
qrels a campaign would have had if judged only to depth d, and the depth to which each run
is fully judged.

Nothing here is random: the methods break ties deterministically (see
:mod:`polars_ireval.analysis.pooling`), so a simulation gives the same figures on every run.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import polars as pl

from polars_ireval._base import schema as S
from polars_ireval._base.numeric import RELATIVE_TOLERANCE, snap
from polars_ireval._base.progress import ProgressOption, bar, check_progress
from polars_ireval._base.resources import require, require_listable
from polars_ireval.analysis.pooling import (
    _BEST,
    _CAND,
    _COUNTED,
    _POS,
    METHODS,
    SINGLE_RUN,
    WEIGHT,
    Campaign,
    Ranked,
    batch_sequence,
    build_campaign,
    check_count,
    check_p,
    check_queries,
    contributing,
    contributor_list,
    cut,
    judged_state,
    method_of,
    rank_runs,
    rbp_weight,
    static_sequence,
    trim,
)
from polars_ireval.errors import ParameterError
from polars_ireval.judge import as_qrels, as_run, check_flag, check_relevance_level
from polars_ireval.results import PROJECTED, RESIDUAL, VALUE, projected, projected_by_weight

__all__ = [
    "STATUSES",
    "JudgingSimulation",
    "depth_qrels",
    "judged_depth",
    "pool_depths",
    "simulate_judging",
]

Unknown = Literal["nonrelevant", "skip"]
UNKNOWN: tuple[str, ...] = ("nonrelevant", "skip")
#: ``status`` of a document a method asked for: judged in the qrels; not judged in the
#: qrels and taken as non-relevant (``unknown="nonrelevant"``); not judged and passed
#: over without spending a judgment (``unknown="skip"``).
STATUSES: tuple[str, ...] = ("judged", "unknown", "bypassed")
METHOD = "method"
BUDGET = "budget"
MEASURE = "measure"
_DOC = "__doc"
_STATUS = "status"


@dataclass(frozen=True)
class JudgingSimulation:
    """What :func:`simulate_judging` returns: frames, and the settings that made them.

    Attributes
    ----------
    summary : polars.DataFrame
        One row per method and budget: ``method, budget, judged`` (judgments the method
        used), ``considered`` (documents it asked for, bypassed ones included),
        ``unknown`` (documents it asked for that the qrels never judged: counted as
        non-relevant, or bypassed), ``relevant`` (relevant documents found, the seed's
        Table 2), ``mean_residual`` (the runs' RBP residual, averaged over queries then
        runs) and ``mean_residual_top`` (over the best third of the runs by full-qrels RBP,
        the seed's Table 4), ``tau`` and ``tau_p_value`` (Kendall's tau-b between the
        runs' mean RBP base and their mean RBP with the full qrels, from
        ``scipy.stats.kendalltau``) and ``tau_projected`` (the same between the projected RBP
        at the budget and with the full qrels).
    scores : polars.DataFrame
        ``method, budget, run_id, measure, value, residual, projected``: each run's mean
        over queries (the projection of the mean value and residual), for RBP(p) and the
        measures asked for.
    per_query : polars.DataFrame
        The same per query (``query_id`` after ``run_id``).
    reference : polars.DataFrame
        ``run_id, measure, value, residual, projected`` with the full qrels.
    judgments : polars.DataFrame
        ``method, budget, query_id, doc_id, order, weight, status, relevance``: the
        documents each method asked for within each budget, ``order`` their position in the
        method's order, ``weight`` their weight when chosen, ``status`` one of
        :data:`STATUSES` and ``relevance`` the qrels' grade (null when unjudged).
    overlap : polars.DataFrame
        ``budget, method_a, method_b, common, judged_a, judged_b``: documents judged by
        both methods (the seed's Table 3), for every pair of methods (and each with itself).
    agreement : polars.DataFrame
        ``method, budget, measure, tau, p_value, tau_projected``: Kendall's tau-b of each
        measure's run ordering against the full qrels' (``tau_projected``: of the projected
        values against the full qrels' projected values; null for measures
        without residuals).
    methods, budgets, p, per_query_budget, batch, unknown, contributors, depth, measures
        The settings (``per_query_budget`` is ``simulate_judging``'s ``per_query``; the
        name ``per_query`` holds the per-query frame).
    """

    summary: pl.DataFrame
    scores: pl.DataFrame
    per_query: pl.DataFrame
    reference: pl.DataFrame
    judgments: pl.DataFrame
    overlap: pl.DataFrame
    agreement: pl.DataFrame
    methods: tuple[str, ...]
    budgets: tuple[int, ...]
    p: float
    per_query_budget: bool
    batch: int
    unknown: str
    contributors: tuple[str, ...] | None = None
    depth: int | None = None
    measures: tuple[str, ...] = field(default_factory=tuple)

    def __repr__(self) -> str:
        scope = "per query" if self.per_query_budget else "over all queries"
        who = "all runs" if self.contributors is None else f"{len(self.contributors)} runs"
        return (
            f"JudgingSimulation(methods={list(self.methods)}, budgets={list(self.budgets)} "
            f"{scope}, p={self.p}, batch={self.batch}, unknown={self.unknown!r}, "
            f"pools from {who}; .summary, .scores, .per_query, .reference, .judgments, "
            ".overlap, .agreement)"
        )


# --------------------------------------------------------------------------- simulation


def simulate_judging(
    runs: Any,
    qrels: Any,
    *,
    budgets: Sequence[int] | int,
    methods: Sequence[str] = ("depth", "A", "B", "C"),
    p: float = 0.8,
    per_query: bool = False,
    contributors: Sequence[str] | None = None,
    depth: int | None = None,
    batch: int = 100,
    unknown: Unknown = "nonrelevant",
    measures: Sequence[str] | str | None = None,
    relevance_level: int = 1,
    progress: Callable[[str], None] | ProgressOption | None = None,
) -> JudgingSimulation:
    """Replay pooling methods on existing judgments: what each budget would have bought.

    Each method asks for documents in its order (Methods B, B_mid and C in batches, each
    batch chosen from the judgments of the previous ones, as :func:`polars_ireval.pool`
    would have chosen them); the qrels answer. At each budget the campaign is evaluated on
    the judgments made so far: every run's RBP(``p``) base, residual and projection (and
    any other ``measures``), the relevant documents found, the methods' overlap, and the
    agreement of the run ordering with the full qrels'.

    Parameters
    ----------
    runs
        Every run to evaluate (``run_id, query_id, doc_id, score``, a path...).
    qrels
        The campaign's judgments: the answers, and the reference evaluation. Queries they
        do not judge are not pooled; each run is scored on the judged queries it ranks.
    budgets
        Numbers of judgments (over all queries, or per query with ``per_query=True``). A
        method's judgments at a smaller budget are the first ones of its larger budgets,
        so every method is played out once, to the largest budget.
    methods
        Pooling methods (:data:`polars_ireval.analysis.pooling.METHODS`): ``"depth"`` (the deepest
        depth-k pool that fits into the budget, whole levels only; with ``unknown="skip"``
        counting the documents the qrels judge), ``"max"`` (seed 002's pooling order),
        ``"A"``, ``"B"``, ``"B_mid"``, ``"C"``.
    p
        Persistence of the pooling weights and of the RBP reported, in (0, 1).
    per_query
        The budgets are per query (default: over all queries, the seed's setting).
    contributors
        The runs whose rankings make the pools (default: every run); every run is
        evaluated. TREC-COVID round 1's leaderboard says which runs contributed.
    depth
        Only documents that some contributing run ranks within its top ``depth`` are
        candidates (the pool's maximum depth).
    batch
        Documents chosen between two updates of the runs' scores (B, B_mid, C; per query
        with ``per_query``); 1 reproduces the seed exactly, and costs a product over the
        campaign per judgment.
    unknown
        A document a method asks for that the qrels never judged: ``"nonrelevant"``
        (default, the seed's choice everywhere but its Table 2: judged non-relevant, a
        judgment spent) or ``"skip"`` (bypassed: not judged, no judgment spent, as the
        seed's Table 2). Either way they are counted in ``summary["unknown"]``.
    measures
        Other measures to evaluate at every budget (measure strings, as for
        :func:`polars_ireval.evaluate`, with residuals where the measure has them). Each
        (method, budget) is then one :func:`polars_ireval.evaluate`, which skips queries
        without judgments; the RBP(p) of ``scores`` scores them with base 0, residual 1.
    relevance_level
        The lowest grade counted as relevant (RBP's gain, Method C's base, ``relevant``).
    progress
        True for a progress bar (tqdm) on stderr over the methods, ``"auto"`` for one only
        when stderr is a terminal, or a function called with a short message as the work
        goes on (default: nothing is reported). The results do not depend on it.

    Returns
    -------
    JudgingSimulation
        The frames ``summary``, ``scores``, ``per_query``, ``reference``, ``judgments``,
        ``overlap`` and ``agreement`` (see :class:`JudgingSimulation`).

    Raises
    ------
    ParameterError
        An unknown method or ``unknown`` policy, ``p`` outside (0, 1), a budget, batch or
        depth that is not a positive integer, unknown contributors.
    MissingQueryError
        The qrels judge queries that no run retrieved.
    ResourceError
        When the judgments of every method at every budget would exceed the memory
        budget (``IREVAL_MEMORY_LIMIT``, else half the memory available; see
        ``docs/resources.md``).

    Examples
    --------
    The bundled example campaign (3 runs, 25 queries): 100 and 300 judgments chosen by the
    pooling order, Method A and Method C (in batches of 10). Its qrels do not judge every
    document the methods ask for: those count as non-relevant (``unknown``).

    >>> import polars as pl, polars_ireval as ir
    >>> runs = ir.read_run(ir.example_path("runs"), run_id="file")
    >>> qrels = ir.read_qrels(ir.example_path("qrels.txt"))
    >>> sim = ir.simulate_judging(runs, qrels, methods=["max", "A", "C"], budgets=[100, 300],
    ...                           batch=10)
    >>> sim.summary.select("method", "budget", "judged", "unknown", "relevant", "mean_residual")
    shape: (6, 6)
    ┌────────┬────────┬────────┬─────────┬──────────┬───────────────┐
    │ method ┆ budget ┆ judged ┆ unknown ┆ relevant ┆ mean_residual │
    │ ---    ┆ ---    ┆ ---    ┆ ---     ┆ ---      ┆ ---           │
    │ str    ┆ i64    ┆ u32    ┆ u32     ┆ u32      ┆ f64           │
    ╞════════╪════════╪════════╪═════════╪══════════╪═══════════════╡
    │ max    ┆ 100    ┆ 100    ┆ 41      ┆ 53       ┆ 0.719762      │
    │ max    ┆ 300    ┆ 300    ┆ 127     ┆ 150      ┆ 0.358639      │
    │ A      ┆ 100    ┆ 100    ┆ 43      ┆ 51       ┆ 0.707457      │
    │ A      ┆ 300    ┆ 300    ┆ 121     ┆ 156      ┆ 0.352927      │
    │ C      ┆ 100    ┆ 100    ┆ 39      ┆ 54       ┆ 0.73177       │
    │ C      ┆ 300    ┆ 300    ┆ 127     ┆ 156      ┆ 0.382506      │
    └────────┴────────┴────────┴─────────┴──────────┴───────────────┘
    >>> sim.scores.filter(pl.col("budget") == 300).pivot("method", index="run_id", values="value")
    shape: (3, 4)
    ┌────────┬──────────┬──────────┬──────────┐
    │ run_id ┆ max      ┆ A        ┆ C        │
    │ ---    ┆ ---      ┆ ---      ┆ ---      │
    │ str    ┆ f64      ┆ f64      ┆ f64      │
    ╞════════╪══════════╪══════════╪══════════╡
    │ bm25   ┆ 0.390505 ┆ 0.395307 ┆ 0.394506 │
    │ dense  ┆ 0.389606 ┆ 0.412491 ┆ 0.394976 │
    │ random ┆ 0.193194 ┆ 0.200557 ┆ 0.174763 │
    └────────┴──────────┴──────────┴──────────┘
    """
    specs = _methods(methods)
    budget_list = _budgets(budgets)
    p = check_p(p)
    check_flag("per_query", per_query)
    size = check_count("batch", batch, what="the batch size")
    if size is None:
        raise ParameterError("batch=None: give the batch size, a positive integer (default 100)")
    depth = check_count("depth", depth, what="the pool depth")
    if unknown not in UNKNOWN:
        raise ParameterError(
            f"unknown={unknown!r}: documents the qrels never judged are either "
            "'nonrelevant' (the seed's choice) or 'skip' (bypassed, as its Table 2)"
        )
    check_relevance_level(relevance_level)
    extra = _measure_list(measures)
    names = contributor_list(contributors)
    say = progress if callable(progress) else (lambda _: None)
    option: ProgressOption = False if progress is None or callable(progress) else progress
    check_progress(option)

    run_frame = as_run(runs)
    if isinstance(run_frame, pl.LazyFrame):
        run_frame = run_frame.collect()
    ranked = rank_runs(run_frame)
    q = as_qrels(qrels)
    qrels_df = q.collect() if isinstance(q, pl.LazyFrame) else q
    check_queries(ranked, qrels_df, "the qrels")
    judged_queries = qrels_df.select(S.QUERY_ID).unique()
    pooled = contributing(ranked, names)
    pooled = pooled._replace(rows=pooled.rows.join(judged_queries, on=S.QUERY_ID, how="semi"))
    say("weighing the candidates")
    camp = build_campaign(pooled, p)
    known, gain = judged_state(camp, qrels_df, relevance_level)
    eligible = np.ones(camp.cands.height, dtype=bool)
    if depth is not None:
        eligible &= camp.cands[_BEST].to_numpy() <= depth
    skip = unknown == "skip"
    _check_judgments(camp.cands, eligible, budget_list, len(specs), per_query)
    evaluation = _Evaluation.build(ranked, qrels_df, p, relevance_level)

    judgments: list[pl.DataFrame] = []
    shown = bar(option, total=len(specs), desc="simulating judging", unit="method")
    for spec in specs:
        say(f"method {spec.name}")
        shown.set_postfix_str(spec.name)
        seq = _method_sequence(
            camp,
            spec,
            eligible=eligible,
            known=known,
            gain=gain,
            budget=max(budget_list),
            per_query=per_query,
            batch=size,
            skip=skip,
            progress=progress if callable(progress) else None,
        )
        chosen = cut(seq.lazy(), budget_list, per_query=per_query, levels=spec.name == "depth")
        judgments.append(
            chosen.select(
                pl.lit(spec.name).alias(METHOD),
                pl.col(BUDGET),
                S.QUERY_ID,
                S.DOC_ID,
                (pl.col(_POS) + 1).cast(pl.UInt32).alias("order"),
                WEIGHT,
                _status(skip).alias(_STATUS),
                pl.col(_CAND),
            )
            .sort(BUDGET, "order")
            .collect()
        )
        shown.update(1)
    shown.close()
    found = pl.concat(judgments)
    grades = qrels_df.select(S.QUERY_ID, S.DOC_ID, S.RELEVANCE)
    found = found.join(grades, on=[S.QUERY_ID, S.DOC_ID], how="left", maintain_order="left")

    say("evaluating")
    per_q = evaluation.per_query(found, camp, [s.name for s in specs], budget_list)
    reference_q = evaluation.reference()
    label = _rbp_label(p)
    per_q = per_q.with_columns(pl.lit(label).alias(MEASURE))
    reference_q = reference_q.with_columns(pl.lit(label).alias(MEASURE))
    extra = [m for m in extra if m != label]
    if extra:
        more, more_ref = _other_measures(run_frame, qrels_df, found, extra, say)
        per_q = pl.concat([per_q, more], how="diagonal_relaxed")
        reference_q = pl.concat([reference_q, more_ref], how="diagonal_relaxed")
    # rows by method (in the order asked), budget, measure (RBP first), run and query
    method_names = [s.name for s in specs]
    measure_order = pl.Enum([label, *extra])
    per_q = _order_columns(per_q, [METHOD, BUDGET, S.RUN_ID, S.QUERY_ID]).sort(
        pl.col(METHOD).cast(pl.Enum(method_names)),
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
    agreement = _agreement(scores, reference)
    summary = _summary(found, scores, reference, label, relevance_level, budget_list, specs)
    overlap = _overlap(found, method_names)
    return JudgingSimulation(
        summary=summary,
        scores=scores,
        per_query=per_q,
        reference=reference,
        judgments=found.drop(_CAND),
        overlap=overlap,
        agreement=agreement,
        methods=tuple(s.name for s in specs),
        budgets=tuple(budget_list),
        p=p,
        per_query_budget=per_query,
        batch=size,
        unknown=unknown,
        contributors=None if names is None else tuple(names),
        depth=depth,
        measures=(label, *extra),
    )


def _methods(methods: Any) -> list[Any]:
    if isinstance(methods, str):
        methods = [m for m in methods.replace(",", " ").split() if m]
    try:
        specs = [method_of(m) for m in methods]
    except TypeError:
        raise ParameterError(f"methods={methods!r}: give a list of method names") from None
    if not specs:
        raise ParameterError(f"methods=[]: give at least one of {list(METHODS)}")
    names = [s.name for s in specs]
    if len(set(names)) < len(names):
        raise ParameterError(f"methods={names!r}: a method is listed twice")
    return specs


#: Bytes per judgment of a simulation (a method's judgments to one budget, and the
#: evaluation of the campaign on them): the bundled example's three runs, budgets 1..2999,
#: 4.4M judgments of one method took 1.9 GB of peak RSS, 17.9M of four methods 14.4 GB.
_JUDGMENT_BYTES = 800
_FEWER_BUDGETS = (
    "ask for fewer budgets (a sparser grid, e.g. budgets=[100, 200, 500, 1000, 2000, "
    "5000]) or fewer methods"
)


def _check_judgments(
    cands: pl.DataFrame, eligible: np.ndarray, budgets: list[int], methods: int, per_query: bool
) -> None:
    """Raise :class:`~polars_ireval.errors.ResourceError` before a simulation whose
    judgments (each method's, to each budget: the sum over the budgets of the documents
    it can judge, at most the eligible candidates, per query with ``per_query``) exceed
    the memory budget at :data:`_JUDGMENT_BYTES` each."""
    b = np.asarray(budgets, dtype=np.float64)
    if per_query:
        sizes = cands.filter(pl.Series(eligible)).group_by(S.QUERY_ID).len()["len"]
        c = np.sort(sizes.to_numpy().astype(np.float64))
    else:
        c = np.asarray([float(eligible.sum())])
    below = np.searchsorted(c, b, side="right")  # the queries that run out before b
    taken = np.concatenate([[0.0], np.cumsum(c)])[below] + b * (len(c) - below)
    judgments = int(methods * taken.sum())
    require(
        f"simulate_judging of {methods} method(s) at {len(budgets):,} budgets",
        judgments * _JUDGMENT_BYTES,
        how=f"{judgments:,} judgments over the budgets x {_JUDGMENT_BYTES} bytes",
        fix=_FEWER_BUDGETS,
    )


def _budgets(budgets: Any) -> list[int]:
    if isinstance(budgets, (str, bytes)):
        raise ParameterError(
            f"budgets={budgets!r}: a string; give a number of judgments or a list of them, "
            "e.g. [10]"
        )
    if isinstance(budgets, (int, np.integer)) and not isinstance(budgets, bool):
        budgets = [budgets]
    require_listable("budgets=", budgets, fix=_FEWER_BUDGETS)  # a range, before listing it
    try:
        values = list(budgets)
    except TypeError:
        raise ParameterError(
            f"budgets={budgets!r}: give a list of numbers of judgments, e.g. [1000, 5000]"
        ) from None
    if not values:
        raise ParameterError("budgets=[]: give at least one number of judgments")
    out = []
    for b in values:
        n = check_count("budgets", b, what="each budget (a number of judgments)")
        assert n is not None
        out.append(n)
    return sorted(set(out))


def _measure_list(measures: Any) -> list[str]:
    if measures is None:
        return []
    if isinstance(measures, str):
        measures = measures.split()
    from polars_ireval.parse import parse_measures

    labels = [str(m) for m in measures]
    parse_measures(labels)  # an unknown measure fails here, before any work
    return labels


def _rbp_label(p: float) -> str:
    return f"RBP(p={p:g})"


def _status(skip: bool) -> pl.Expr:
    counted, known = pl.col(_COUNTED), pl.col("__known")
    if skip:
        return pl.when(counted).then(pl.lit("judged")).otherwise(pl.lit("bypassed"))
    return pl.when(known).then(pl.lit("judged")).otherwise(pl.lit("unknown"))


def _method_sequence(
    camp: Campaign,
    spec: Any,
    *,
    eligible: np.ndarray,
    known: np.ndarray,
    gain: np.ndarray,
    budget: int,
    per_query: bool,
    batch: int,
    skip: bool,
    progress: Callable[[str], None] | None,
) -> pl.DataFrame:
    """The method's order, trimmed to ``budget``: ``__pos, __cand, query_id, doc_id,
    __best_rank, weight, __counted, __known``."""
    known_s = pl.Series("__known", known)
    if spec.sequential:
        chosen = batch_sequence(
            camp,
            spec,
            eligible=eligible,
            judged=np.zeros_like(known),
            gain=np.zeros_like(gain),
            budget=budget,
            per_query=per_query,
            batch=batch,
            known=known,
            outcome=gain,
            skip=skip,
            progress=progress,
        )
        seq = camp.cands.select(_CAND, S.QUERY_ID, S.DOC_ID, _BEST)[chosen.cand].with_columns(
            pl.Series(WEIGHT, chosen.weight, dtype=pl.Float64),
            pl.Series(_COUNTED, chosen.counted, dtype=pl.Boolean),
        )
    else:
        seq = static_sequence(camp, spec, eligible)
        counted = known_s.gather(seq[_CAND]) if skip else pl.repeat(True, seq.height, eager=True)
        seq = seq.with_columns(counted.alias(_COUNTED))
    seq = seq.with_columns(known_s.gather(seq[_CAND]).alias("__known")).with_row_index(_POS)
    if spec.name == "depth":
        return seq
    return trim(seq.lazy(), budget, per_query=per_query).collect()


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
            .agg(pl.col("__run").first(), pl.len().alias("retrieved"))
            .sort("__run", S.QUERY_ID)
            .drop("__run")
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
            .select(_CAND, S.QUERY_ID, S.DOC_ID)
            .join(self.docs.lazy().select(_DOC, S.QUERY_ID, S.DOC_ID), on=[S.QUERY_ID, S.DOC_ID])
            .select(_CAND, _DOC)
        )
        used = (
            found.lazy()
            .filter(pl.col(_STATUS) != "bypassed")
            .join(link, on=_CAND)
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
        sub = found.filter(mine & (pl.col(_STATUS) != "bypassed")).select(
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
    specs: list[Any],
) -> pl.DataFrame:
    status = pl.col(_STATUS)
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
        [(s.name, b) for s in specs for b in budgets],
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
    used = found.filter(pl.col(_STATUS) != "bypassed").select(METHOD, BUDGET, S.QUERY_ID, S.DOC_ID)
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


# --------------------------------------------------------------------------- depths


def checked_contributors(lf: pl.LazyFrame, wanted: list[str], lazy: bool) -> pl.LazyFrame:
    """``lf`` (runs with a ``run_id`` column), once every run of ``wanted`` is known to be
    among its runs: checked now (``lazy`` False) or when the query is collected (a
    :class:`ParameterError` naming the unknown ones)."""

    def check(frame: pl.DataFrame) -> pl.DataFrame:
        present = frame[S.RUN_ID].to_list()
        unknown = [c for c in wanted if c not in set(present)]
        if unknown:
            raise ParameterError(
                f"contributors: {unknown[:5]!r} {'is' if len(unknown) == 1 else 'are'} "
                f"not among the {len(present)} runs (e.g. {sorted(present)[:5]!r}); check "
                "the run ids"
            )
        return frame

    ids = lf.select(pl.col(S.RUN_ID).unique())
    if not lazy:
        check(ids.collect())
        return lf
    gate = ids.map_batches(check, schema=pl.Schema({S.RUN_ID: pl.String})).select(
        pl.len().alias("__gate")
    )
    return lf.join(gate, how="cross").drop("__gate")


def _ranked_lazy(runs: Any, contributors: list[str] | None) -> tuple[pl.LazyFrame, bool]:
    """``run_id, query_id, doc_id, rank`` of the (contributing) runs, lazily; and whether
    the input was lazy. Unknown contributors raise :class:`ParameterError`, for a lazy run
    when the query is collected."""
    run = as_run(runs)
    lazy = isinstance(run, pl.LazyFrame)
    lf = run.lazy()
    if S.RUN_ID not in lf.collect_schema():
        lf = lf.with_columns(pl.lit(SINGLE_RUN).alias(S.RUN_ID))
    if contributors is not None:
        wanted = list(dict.fromkeys(contributors))
        lf = checked_contributors(lf, wanted, lazy).filter(pl.col(S.RUN_ID).is_in(wanted))
    rank = (
        pl.struct(S.SCORE, S.DOC_ID)
        .rank("ordinal", descending=True)
        .over(S.RUN_ID, S.QUERY_ID)
        .cast(pl.UInt32)
        .alias(S.RANK)
    )
    return lf.with_columns(rank).select(S.RUN_ID, S.QUERY_ID, S.DOC_ID, S.RANK), lazy


def pool_depths(runs: Any, *, contributors: Sequence[str] | None = None) -> Any:
    """The depth at which each document enters a depth pool of the contributing runs.

    Parameters
    ----------
    runs
        The runs (a frame or what :func:`polars_ireval.read_run` reads). A LazyFrame gives
        a LazyFrame.
    contributors
        The runs that make the pool (default: every run).

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        ``query_id, doc_id, depth, runs``: ``depth`` is the shallowest rank at which a
        contributing run retrieves the document (trec_eval's order: scores descending, ties
        by doc id descending), so the depth-d pool is ``filter(pl.col("depth") <= d)``;
        ``runs`` counts the contributing runs that retrieve it at any rank. Sorted by query
        id, depth and doc id.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> runs = pl.DataFrame({"run_id": ["a", "a", "b", "b"], "query_id": "1",
    ...                      "doc_id": ["x", "y", "y", "z"], "score": [2.0, 1.0, 2.0, 1.0]})
    >>> ir.pool_depths(runs)
    shape: (3, 4)
    ┌──────────┬────────┬───────┬──────┐
    │ query_id ┆ doc_id ┆ depth ┆ runs │
    │ ---      ┆ ---    ┆ ---   ┆ ---  │
    │ str      ┆ str    ┆ u32   ┆ u32  │
    ╞══════════╪════════╪═══════╪══════╡
    │ 1        ┆ x      ┆ 1     ┆ 1    │
    │ 1        ┆ y      ┆ 1     ┆ 2    │
    │ 1        ┆ z      ┆ 2     ┆ 1    │
    └──────────┴────────┴───────┴──────┘
    """
    ranked, lazy = _ranked_lazy(runs, contributor_list(contributors))
    out = (
        ranked.group_by(S.QUERY_ID, S.DOC_ID)
        .agg(pl.col(S.RANK).min().alias("depth"), pl.len().cast(pl.UInt32).alias("runs"))
        .sort(S.QUERY_ID, "depth", S.DOC_ID)
    )
    return out if lazy else out.collect()


#: Bytes per row of :func:`depth_qrels` at several depths (the rows share their strings'
#: buffers): 72.8M rows at 29,999 depths of the bundled example took 610 MB of peak RSS.
_DEPTH_QRELS_ROW_BYTES = 16


def depth_qrels(
    runs: Any,
    qrels: Any,
    *,
    depth: int | Sequence[int],
    contributors: Sequence[str] | None = None,
) -> Any:
    """The qrels a campaign would have had if judged only to depth ``depth`` (seed 000).

    Keeps the judgments of the documents that some contributing run ranks within its top
    ``depth``: evaluate with them to see a campaign as if its pool had been that deep (an
    evaluation deeper than ``depth`` is then seed 000's "extended evaluation").

    Parameters
    ----------
    runs
        The runs whose depth-``depth`` pool is kept (with ``contributors``, only those).
    qrels
        The full judgments (a frame or path). A LazyFrame (runs or qrels) gives a LazyFrame.
    depth
        A pool depth (a positive integer), or several: then the result has a ``depth``
        column first and holds, for each depth, the judgments of that depth's pool.
    contributors
        The runs whose rankings make the pool (default: every run).

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        ``[depth,] query_id, doc_id, relevance``, in the qrels' order (per depth).

    Raises
    ------
    ResourceError
        At several depths, when up to depths x judgments rows would exceed the memory
        budget (``IREVAL_MEMORY_LIMIT``, else half the memory available; see
        ``docs/resources.md``).

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> runs = pl.DataFrame({"run_id": ["a", "a", "b", "b"], "query_id": "1",
    ...                      "doc_id": ["x", "y", "y", "z"], "score": [2.0, 1.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "1", "doc_id": ["x", "y", "z"], "relevance": [1, 0, 1]})
    >>> ir.depth_qrels(runs, qrels, depth=1)["doc_id"].to_list()
    ['x', 'y']
    >>> ir.depth_qrels(runs, qrels, depth=[1, 2]).group_by("depth").len().sort("depth")
    shape: (2, 2)
    ┌───────┬─────┐
    │ depth ┆ len │
    │ ---   ┆ --- │
    │ i64   ┆ u32 │
    ╞═══════╪═════╡
    │ 1     ┆ 2   │
    │ 2     ┆ 3   │
    └───────┴─────┘
    """
    several = not isinstance(depth, (int, np.integer)) or isinstance(depth, bool)
    if several:
        if isinstance(depth, (str, bytes)) or not hasattr(depth, "__iter__"):
            raise ParameterError(f"depth={depth!r}: give a pool depth or a list of depths")
        require_listable("depth=", depth, fix="ask for fewer depths (e.g. depth=[10, 20, 50])")
        depths = [check_count("depth", d, what="each pool depth") for d in depth]
        if not depths:
            raise ParameterError("depth=[]: give at least one pool depth")
    else:
        depths = [check_count("depth", depth, what="the pool depth")]
    values = sorted({int(d) for d in depths if d is not None})
    names = contributor_list(contributors)
    ranked, lazy_runs = _ranked_lazy(runs, names)
    q = as_qrels(qrels)
    lazy = lazy_runs or isinstance(q, pl.LazyFrame)
    entry = (
        ranked.filter(pl.col(S.RANK) <= max(values))
        .group_by(S.QUERY_ID, S.DOC_ID)
        .agg(pl.col(S.RANK).min().alias("__entry"))
    )
    kept = q.lazy().join(entry, on=[S.QUERY_ID, S.DOC_ID], how="inner", maintain_order="left")
    columns = [S.QUERY_ID, S.DOC_ID, S.RELEVANCE]
    if several:
        if isinstance(q, pl.DataFrame):  # at most every judgment at every depth
            rows = len(values) * q.height
            require(
                f"depth_qrels at {len(values):,} depths of {q.height:,} judgments",
                rows * _DEPTH_QRELS_ROW_BYTES,
                how=f"up to {rows:,} rows x {_DEPTH_QRELS_ROW_BYTES} bytes",
                fix="ask for fewer depths (e.g. depth=[10, 20, 50, 100])",
            )
        grid = pl.LazyFrame({"depth": values}, schema={"depth": pl.Int64})
        out = (
            grid.join(kept, how="cross", maintain_order="left_right")
            .filter(pl.col("__entry") <= pl.col("depth"))
            .select("depth", *columns)
        )
    else:
        out = kept.filter(pl.col("__entry") <= values[0]).select(columns)
    return out if lazy else out.collect()


def judged_depth(runs: Any, qrels: Any, *, per_query: bool = False) -> Any:
    """The depth to which each run is fully judged (seed 000's pooling depth ``d``).

    Parameters
    ----------
    runs
        The runs (a frame or what :func:`polars_ireval.read_run` reads); each ranking is
        its scores descending, ties by doc id descending (trec_eval's order).
    qrels
        The judgments (a frame or path). Only the queries they judge count. A LazyFrame
        (runs or qrels) gives a LazyFrame.
    per_query
        One row per run and query instead of per run.

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        Per query: ``run_id, query_id, judged_depth, retrieved``: the number of documents
        at the top of the ranking that are all judged, and the ranking's length (equal
        when every document is judged). Per run: ``run_id, judged_depth,
        mean_judged_depth``: the depth to which every query's ranking is judged (the
        smallest ``judged_depth`` of a ranking with an unjudged document; the longest
        ranking when none has one) and the mean over queries of ``judged_depth``.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> runs = pl.DataFrame({"run_id": "a", "query_id": ["1", "1", "1", "2", "2"],
    ...                      "doc_id": ["x", "y", "z", "u", "v"], "score": [3.0, 2, 1, 2, 1]})
    >>> qrels = pl.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["x", "z", "u"],
    ...                       "relevance": [1, 0, 1]})
    >>> ir.judged_depth(runs, qrels, per_query=True)
    shape: (2, 4)
    ┌────────┬──────────┬──────────────┬───────────┐
    │ run_id ┆ query_id ┆ judged_depth ┆ retrieved │
    │ ---    ┆ ---      ┆ ---          ┆ ---       │
    │ str    ┆ str      ┆ u32          ┆ u32       │
    ╞════════╪══════════╪══════════════╪═══════════╡
    │ a      ┆ 1        ┆ 1            ┆ 3         │
    │ a      ┆ 2        ┆ 1            ┆ 2         │
    └────────┴──────────┴──────────────┴───────────┘
    >>> ir.judged_depth(runs, qrels)
    shape: (1, 3)
    ┌────────┬──────────────┬───────────────────┐
    │ run_id ┆ judged_depth ┆ mean_judged_depth │
    │ ---    ┆ ---          ┆ ---               │
    │ str    ┆ u32          ┆ f64               │
    ╞════════╪══════════════╪═══════════════════╡
    │ a      ┆ 1            ┆ 1.0               │
    └────────┴──────────────┴───────────────────┘
    """
    check_flag("per_query", per_query)
    ranked, lazy_runs = _ranked_lazy(runs, None)
    q = as_qrels(qrels)
    lazy = lazy_runs or isinstance(q, pl.LazyFrame)
    qlf = q.lazy()
    judged = (
        ranked.join(qlf.select(S.QUERY_ID).unique(), on=S.QUERY_ID, how="semi")
        .join(
            qlf.select(S.QUERY_ID, S.DOC_ID, pl.lit(True).alias("__j")),
            on=[S.QUERY_ID, S.DOC_ID],
            how="left",
        )
        .with_columns(pl.col("__j").fill_null(False))
    )
    lead = pl.col("__j").sort_by(S.RANK).cast(pl.UInt32).cum_min().sum().cast(pl.UInt32)
    per_q = (
        judged.group_by(S.RUN_ID, S.QUERY_ID)
        .agg(lead.alias("judged_depth"), pl.len().cast(pl.UInt32).alias("retrieved"))
        .sort(S.RUN_ID, S.QUERY_ID)
    )
    if per_query:
        return per_q if lazy else per_q.collect()
    depth, length = pl.col("judged_depth"), pl.col("retrieved")
    per_run = (
        per_q.group_by(S.RUN_ID)
        .agg(
            pl.coalesce(depth.filter(depth < length).min(), length.max()).alias("judged_depth"),
            depth.mean().alias("mean_judged_depth"),
        )
        .sort(S.RUN_ID)
    )
    return per_run if lazy else per_run.collect()
