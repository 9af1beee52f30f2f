"""Planning judgments: what a budget buys.

:func:`simulate_judging` replays pooling methods (:data:`polars_ireval.analysis.pooling.METHODS`)
on a campaign whose judgments already exist, as Moffat, Webber and Zobel (SIGIR 2007,
``../shared/seeds/002_*``) did on TREC 8: a method asks for documents in its order, the
existing qrels say how each would have been judged, and at each budget the campaign is
evaluated on the judgments made so far. It reports what each budget buys: the relevant
documents found (the seed's Table 2), the runs' RBP base, residual and projection and their
average residual (Table 4), how much the methods' judgment sets overlap (Table 3), and how
well the system ordering agrees with the one the full qrels give (Kendall's tau). The
replay is here; the scoring of its judgments is :mod:`polars_ireval.analysis.budget_scores`.

:func:`pool_depths`, :func:`depth_qrels` and :func:`judged_depth`, seed 000's view of a
depth pool, are :mod:`polars_ireval.analysis.depth_pools` (imported here too).

Nothing here is random: the methods break ties deterministically (see
:mod:`polars_ireval.analysis.pooling`), so a simulation gives the same figures on every run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import polars as pl

from polars_ireval._base import schema as S
from polars_ireval._base.options import (
    check_flag,
    check_persistence,
    check_positive_int,
    check_relevance_level,
)
from polars_ireval._base.progress import ProgressOption, bar, check_progress
from polars_ireval._base.resources import require, require_listable
from polars_ireval.analysis.budget_scores import METHOD, STATUS, score_budgets
from polars_ireval.analysis.campaign import (
    BEST_RANK,
    CANDIDATE,
    PERSISTENCE,
    Campaign,
    build_campaign,
    check_queries,
    contributing,
    contributor_list,
    judged_state,
    rank_runs,
)
from polars_ireval.analysis.depth_pools import depth_qrels, judged_depth, pool_depths
from polars_ireval.analysis.pooling import (
    BUDGET,
    COUNTED,
    METHODS,
    POSITION,
    WEIGHT,
    batch_sequence,
    cut,
    method_of,
    static_sequence,
    trim,
)
from polars_ireval.errors import ParameterError
from polars_ireval.io.intake import intake_qrels, intake_run

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
    p = check_persistence(p, what=PERSISTENCE)
    check_flag("per_query", per_query)
    size = check_positive_int("batch", batch, what="the batch size", optional=True)
    if size is None:
        raise ParameterError("batch=None: give the batch size, a positive integer (default 100)")
    depth = check_positive_int("depth", depth, what="the pool depth", optional=True)
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

    run_frame = intake_run(runs)
    if isinstance(run_frame, pl.LazyFrame):
        run_frame = run_frame.collect()
    ranked = rank_runs(run_frame)
    q = intake_qrels(qrels)
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
        eligible &= camp.cands[BEST_RANK].to_numpy() <= depth
    skip = unknown == "skip"
    _check_judgments(camp.cands, eligible, budget_list, len(specs), per_query)

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
                (pl.col(POSITION) + 1).cast(pl.UInt32).alias("order"),
                WEIGHT,
                _status(skip).alias(STATUS),
                pl.col(CANDIDATE),
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
    scored = score_budgets(
        found,
        camp,
        ranked,
        run_frame,
        qrels_df,
        p=p,
        relevance_level=relevance_level,
        methods=[s.name for s in specs],
        budgets=budget_list,
        measures=extra,
        say=say,
    )
    return JudgingSimulation(
        summary=scored.summary,
        scores=scored.scores,
        per_query=scored.per_query,
        reference=scored.reference,
        judgments=found.drop(CANDIDATE),
        overlap=scored.overlap,
        agreement=scored.agreement,
        methods=tuple(s.name for s in specs),
        budgets=tuple(budget_list),
        p=p,
        per_query_budget=per_query,
        batch=size,
        unknown=unknown,
        contributors=None if names is None else tuple(names),
        depth=depth,
        measures=scored.measures,
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
        out.append(check_positive_int("budgets", b, what="each budget (a number of judgments)"))
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


def _status(skip: bool) -> pl.Expr:
    counted, known = pl.col(COUNTED), pl.col("__known")
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
        seq = camp.cands.select(CANDIDATE, S.QUERY_ID, S.DOC_ID, BEST_RANK)[
            chosen.cand
        ].with_columns(
            pl.Series(WEIGHT, chosen.weight, dtype=pl.Float64),
            pl.Series(COUNTED, chosen.counted, dtype=pl.Boolean),
        )
    else:
        seq = static_sequence(camp, spec, eligible)
        counted = (
            known_s.gather(seq[CANDIDATE]) if skip else pl.repeat(True, seq.height, eager=True)
        )
        seq = seq.with_columns(counted.alias(COUNTED))
    seq = seq.with_columns(known_s.gather(seq[CANDIDATE]).alias("__known")).with_row_index(POSITION)
    if spec.name == "depth":
        return seq
    return trim(seq.lazy(), budget, per_query=per_query).collect()
