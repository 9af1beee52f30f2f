"""Pools: which documents to send to the assessors, and in which order.

Moffat, Webber and Zobel (SIGIR 2007, ``../shared/seeds/002_*``) choose the documents to
judge by their weight in rank-biased precision. With persistence ``p``, run ``s`` gives the
document ``d`` it ranks at position ``b`` the weight ``c(s, d) = (1 - p) p^(b - 1)``
(0 when it does not retrieve ``d``); ``b_s`` and ``r_s`` are the run's current RBP base and
residual on the document's query. The methods (:data:`METHODS`):

=========  =====================================================  ==========================
method     a document's weight                                    changes as judging goes on
=========  =====================================================  ==========================
``depth``  whole levels: every contributing run's top ``k``       no
``max``    max_s c(s, d) (the seed's "pooling" order)             no
``A``      sum_s c(s, d)                                          no
``B``      sum_s c(s, d) r_s                                      with the documents chosen
``B_mid``  sum_s c(s, d) r_s (b_s + r_s / 2)                      with the judgments
``C``      sum_s c(s, d) r_s (b_s + r_s / 2)^3                    with the judgments
=========  =====================================================  ==========================

Documents are chosen in decreasing weight across all queries (a global budget, the seed's
default: queries get different numbers of judgments) or within each query (a per-query
budget). B, B_mid and C choose in batches: after each batch, every (run, query)'s base and
residual are recomputed from the judgments made so far, and so are the weights; a batch of
1 is the seed's procedure exactly.

Ties are broken the same way everywhere, so that a pool does not depend on the order of the
input rows: ``max`` and ``depth`` by the shallowest rank (the weight itself), then by the
first run (by run id) that ranks the document there, then by query id and doc id, which
reproduces the seed's Table 1 order and, across queries, goes round the queries level by
level; ``A`` by its weight, then as ``max``; B, B_mid and C by their weight (equal to about
twelve significant digits is a tie: the same sum taken in another order), then in Method
A's order. Each run's ranking is its scores descending, ties by doc id descending
(trec_eval's order).

The weights of a campaign come from one grouped query over all its (run, query, document)
rows. The batches of B, B_mid and C work on the same rows as a sparse matrix (documents x
rankings, entries ``c``): a ranking's base and residual are its column sums over judged and
unjudged documents (``M.T @ x``, a grouped sum over each ranking's rows), and the
documents' weights are row sums of ``c`` times their rankings' factors (``M @ f``, a
grouped sum over each document's rows). Polars' ``group_by`` computes the same sums about
twenty times slower, which matters when a campaign of 3.5M rows is re-weighed a hundred
times.

The campaign itself (the runs ranked once, the candidates numbered and weighed) is
:mod:`polars_ireval.analysis.campaign`; the pool files (:func:`write_pool`,
:func:`read_pool`) are :mod:`polars_ireval.io.pools`.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, cast

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
from polars_ireval.analysis.campaign import (
    BEST_RANK,
    CANDIDATE,
    FIRST_RUN,
    MAX_WEIGHT,
    PERSISTENCE,
    QUERY_NUMBER,
    SUM_WEIGHT,
    Campaign,
    build_campaign,
    check_queries,
    contributing,
    contributor_list,
    judged_state,
    rank_runs,
)
from polars_ireval.errors import ParameterError
from polars_ireval.io.intake import intake_qrels
from polars_ireval.io.pools import ORDER, POOL_COLUMNS, WEIGHT, read_pool, write_pool

__all__ = [
    "METHODS",
    "ORDER",
    "POOL_COLUMNS",
    "WEIGHT",
    "PoolMethod",
    "pool",
    "read_pool",
    "write_pool",
]

#: A document's position in a method's judging order (:func:`cut`, :func:`trim`).
POSITION = "__pos"
#: Whether a judgment is spent on the document (False: bypassed, in a simulation).
COUNTED = "__counted"
#: The column :func:`cut` adds: the budget within which a document is considered.
BUDGET = "budget"


@dataclass(frozen=True)
class PoolMethod:
    """What a pooling method is, for validation, the loop and the docs.

    Attributes
    ----------
    name : str
        The ``method=`` value.
    label : str
        How reports name it.
    formula : str
        A document's weight (c = the RBP weight of its rank in a run).
    sequential : bool
        The weights change as documents are chosen: chosen in batches.
    adaptive : bool
        The weights depend on the judgments (base scores): :func:`pool` gives one batch.
    residual : bool
        Each run's contribution is multiplied by its residual.
    power : int
        ... and by the midpoint of its score range raised to this power (0: not at all).
    """

    name: str
    label: str
    formula: str
    sequential: bool = False
    adaptive: bool = False
    residual: bool = False
    power: int = 0


#: The pooling methods, by name: one table that validation, the loop and the docs read.
METHODS: dict[str, PoolMethod] = {
    m.name: m
    for m in (
        PoolMethod("depth", "depth-k pool", "every contributing run's top k (whole levels)"),
        PoolMethod("max", "pooling order (maximum weight)", "max_s c(s,d)"),
        PoolMethod("A", "Method A (summed weight)", "sum_s c(s,d)"),
        PoolMethod(
            "B",
            "Method B (weight x residual)",
            "sum_s c(s,d) r_s",
            sequential=True,
            residual=True,
        ),
        PoolMethod(
            "B_mid",
            "Method B with the midpoint",
            "sum_s c(s,d) r_s (b_s + r_s/2)",
            sequential=True,
            adaptive=True,
            residual=True,
            power=1,
        ),
        PoolMethod(
            "C",
            "Method C (cubed midpoint)",
            "sum_s c(s,d) r_s (b_s + r_s/2)^3",
            sequential=True,
            adaptive=True,
            residual=True,
            power=3,
        ),
    )
}
_ALIASES = {"pooling": "max", "bmid": "B_mid", "b-mid": "B_mid", "b_mid": "B_mid"}


# --------------------------------------------------------------------------- validation


def method_of(value: Any) -> PoolMethod:
    """The :class:`PoolMethod` named ``value`` (case-insensitive; ``"pooling"`` is ``max``)."""
    if isinstance(value, PoolMethod):
        return value
    if isinstance(value, str):
        key = value.strip()
        for name in METHODS:
            if key.lower() == name.lower():
                return METHODS[name]
        if key.lower() in _ALIASES:
            return METHODS[_ALIASES[key.lower()]]
    close = difflib.get_close_matches(str(value), list(METHODS), n=1, cutoff=0.5)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ParameterError(f"method={value!r} is unknown{hint}; use one of {list(METHODS)}")


# --------------------------------------------------------------------------- sequences


def static_sequence(camp: Campaign, spec: PoolMethod, eligible: np.ndarray) -> pl.DataFrame:
    """The eligible candidates in the judging order of a static method (depth, max, A):
    ``__cand, query_id, doc_id, __best_rank, weight``, in order."""
    c = camp.cands.filter(pl.Series(eligible))
    if spec.name == "A":
        out = c.sort(CANDIDATE).with_columns(pl.col(SUM_WEIGHT).alias(WEIGHT))
    else:
        keys = [BEST_RANK, FIRST_RUN, S.QUERY_ID, S.DOC_ID]
        out = c.sort(keys).with_columns(pl.col(MAX_WEIGHT).alias(WEIGHT))
    return out.select(CANDIDATE, S.QUERY_ID, S.DOC_ID, BEST_RANK, WEIGHT)


class Chosen(NamedTuple):
    """What a batch loop chose, in order: candidates, their weight when chosen, whether a
    judgment was spent on them (False: bypassed), and the batch number."""

    cand: np.ndarray
    weight: np.ndarray
    counted: np.ndarray
    batch: np.ndarray


def batch_sequence(
    camp: Campaign,
    spec: PoolMethod,
    *,
    eligible: np.ndarray,
    judged: np.ndarray,
    gain: np.ndarray,
    budget: int | None,
    per_query: bool,
    batch: int,
    known: np.ndarray | None = None,
    outcome: np.ndarray | None = None,
    skip: bool = False,
    progress: Callable[[str], None] | ProgressOption | None = None,
) -> Chosen:
    """Choose documents batch by batch (B, B_mid, C; A too, with every factor 1).

    Before each batch, every ranking's residual (the weight of its unjudged documents plus
    the ranks past its end) and base (the weight of its relevant judged documents) are
    recomputed from the judgments made so far, then the factor of each ranking and the
    weight of each candidate. ``judged``/``gain``: the judgments before the start.
    ``known``/``outcome``: in a simulation, whether the qrels judge each candidate and its
    gain; without them (a pool for assessors) a chosen document counts as judged with gain
    0 (Method B does not read gains). ``skip``: documents the qrels do not judge are
    bypassed (not judged, not counted) instead of judged non-relevant. ``progress``: a
    function called with a message after each batch, or True / ``"auto"`` for a bar of
    the judgments chosen.
    """
    say = progress if callable(progress) else None
    shown = bar(
        False if progress is None or callable(progress) else progress,
        total=budget if budget is not None and not per_query else None,
        desc=f"method {spec.name}",
        unit="judgment",
    )
    m = camp.matrix()
    mt = m.T.tocsr()
    tail = camp.tail()
    n = m.shape[0]
    qidx = camp.cands[QUERY_NUMBER].to_numpy().astype(np.int64)
    nq = int(qidx.max()) + 1 if n else 0
    ids = np.arange(n)
    taken = ~eligible | judged
    j = judged.astype(np.float64)
    g = np.where(judged, gain, 0.0)
    spent: np.ndarray = np.zeros(nq, dtype=np.int64)
    big = n + 1
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, int]] = []
    step = 0
    while True:
        quota = np.full(nq, big) if budget is None else np.maximum(budget - spent, 0)
        k_q = np.minimum(quota, batch)
        left = big if budget is None else budget - int(spent.sum())
        k = min(batch, left)
        if (per_query and not k_q.any()) or (not per_query and left <= 0):
            break
        factor = np.ones(m.shape[1])
        if spec.residual:
            resid = np.clip(mt @ (1.0 - j) + tail, 0.0, 1.0)
            factor = resid
            if spec.power:
                base = mt @ (g * j)
                factor = resid * (base + resid / 2.0) ** spec.power
        w = m @ factor
        key = tie_key(w)
        free = ~taken
        pickable = free & known if (skip and known is not None) else free
        idx = np.flatnonzero(pickable)
        picks = _top_per_query(idx, key, qidx, k_q) if per_query else _top(idx, key, k)
        considered = picks
        if skip and known is not None:
            # a scope (query, or all queries) with fewer picks than its quota ran out of
            # judged documents: the scan passed every one of its remaining candidates
            if per_query:
                passed = (np.bincount(qidx[picks], minlength=nq) < k_q)[qidx]
            else:
                passed = np.full(n, picks.size < k)
            if picks.size:
                passed |= _ahead(picks, key, qidx, nq, per_query, ids)
            considered = np.concatenate([picks, np.flatnonzero(free & ~known & passed)])
        if considered.size == 0:
            break
        order = np.lexsort((considered, -key[considered]))
        considered = considered[order]
        counted = np.isin(considered, picks, assume_unique=True)
        parts.append((considered, w[considered], counted, step))
        taken[considered] = True
        j[picks] = 1.0
        if outcome is not None:
            g[picks] = outcome[picks]
        spent += np.bincount(qidx[picks], minlength=nq)
        step += 1
        shown.update(int(picks.size))
        if say is not None:
            say(f"{spec.name}: {int(spent.sum()):,} judgments chosen")
    shown.close()
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return Chosen(empty, np.zeros(0), np.zeros(0, dtype=bool), empty)
    return Chosen(
        np.concatenate([p[0] for p in parts]),
        np.concatenate([p[1] for p in parts]),
        np.concatenate([p[2] for p in parts]),
        np.concatenate([np.full(p[0].size, p[3]) for p in parts]),
    )


def tie_key(w: np.ndarray) -> np.ndarray:
    """``w`` (non-negative) rounded to 40 significant bits (about 12 decimal digits): the
    key the batches sort by, so that weights equal but for rounding (the same sum taken in
    another order) tie, and the tie goes to Method A's order, as it would in exact
    arithmetic. Rounding positive doubles as integers keeps their order."""
    bits = np.ascontiguousarray(w, dtype=np.float64).view(np.int64)
    rounded = (bits + (1 << 11)) & ~np.int64((1 << 12) - 1)
    return cast(np.ndarray, rounded.view(np.float64))


def _top(idx: np.ndarray, w: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` candidates ``idx`` of largest weight, ties by number, in that order."""
    if idx.size > k:
        vals = w[idx]
        kth = np.partition(vals, idx.size - k)[idx.size - k]
        idx = idx[vals >= kth]
    order = np.lexsort((idx, -w[idx]))
    return idx[order[:k]]


def _top_per_query(idx: np.ndarray, w: np.ndarray, q: np.ndarray, k_q: np.ndarray) -> np.ndarray:
    """For each query, its ``k_q`` candidates of largest weight (ties by number)."""
    idx = idx[k_q[q[idx]] > 0]
    if idx.size == 0:
        return idx
    s = idx[np.lexsort((idx, -w[idx], q[idx]))]
    qs = q[s]
    starts = np.flatnonzero(np.r_[True, qs[1:] != qs[:-1]])
    pos = np.arange(s.size) - np.repeat(starts, np.diff(np.r_[starts, s.size]))
    return s[pos < k_q[qs]]


def _ahead(
    picks: np.ndarray, w: np.ndarray, q: np.ndarray, nq: int, per_query: bool, ids: np.ndarray
) -> np.ndarray:
    """Candidates that come before the last pick (of their query, per query) in the order
    weight descending, number ascending: those a scan for known documents passed."""
    order = np.lexsort((picks, -w[picks]))
    if not per_query:
        last = picks[order[-1]]
        return (w > w[last]) | ((w == w[last]) & (ids < last))
    ordered = picks[order]
    last_w = np.full(nq, np.inf)
    last_id = np.full(nq, -1)
    # the last pick of each query in the order: the first in the reversed order (numpy
    # does not say which of repeated indices an assignment keeps)
    backwards = ordered[::-1]
    queries, first = np.unique(q[backwards], return_index=True)
    last_w[queries] = w[backwards[first]]
    last_id[queries] = backwards[first]
    lw, li = last_w[q], last_id[q]
    return (w > lw) | ((w == lw) & (ids < li))


def cut(
    seq: pl.LazyFrame, budgets: Sequence[int | None], *, per_query: bool, levels: bool
) -> pl.LazyFrame:
    """The documents of ``seq`` considered within each budget, with a ``budget`` column.

    ``seq`` holds ``__pos`` (the judging order), ``query_id``, ``__counted`` (a judgment
    is spent on the document) and, for ``levels``, ``__best_rank``. Within budget ``b``
    (per query or over all queries) the documents up to the ``b``-th counted one are
    considered, and all of them when fewer than ``b`` are counted (a scan for judged
    documents that runs out passes every remaining one); with ``levels`` (the depth pool),
    the whole levels (documents of the same shallowest rank) whose counted documents fit
    into ``b``. A budget of None takes all.
    """
    scope = [S.QUERY_ID] if per_query else []
    counted = pl.col(COUNTED).cast(pl.Int64)
    budget = pl.col(BUDGET)
    cap = pl.when(budget.is_null()).then(pl.lit(2**62, dtype=pl.Int64)).otherwise(budget)
    frame = seq.join(pl.LazyFrame({BUDGET: list(budgets)}, schema={BUDGET: pl.Int64}), how="cross")
    group = [BUDGET, *scope]
    if levels:
        sizes = (
            frame.group_by(*group, BEST_RANK)
            .agg(counted.sum().alias("__n"))
            .sort(BEST_RANK)
            .with_columns(pl.col("__n").cum_sum().over(group).alias("__cum"))
        )
        # the deepest level such that it and every shallower level fit (levels with no
        # counted document cost nothing)
        deepest = (
            sizes.with_columns((pl.col("__cum") <= cap).alias("__fits"))
            .with_columns(pl.col("__fits").cast(pl.UInt8).cum_min().over(group).alias("__ok"))
            .filter(pl.col("__ok") == 1)
            .group_by(group)
            .agg(pl.col(BEST_RANK).max().alias("__deepest"))
        )
        return (
            frame.join(deepest, on=group, how="left", nulls_equal=True)
            .filter(pl.col(BEST_RANK) <= pl.col("__deepest"))
            .drop("__deepest")
        )
    before = (counted.cum_sum() - counted).over(group, order_by=POSITION)
    return frame.sort(BUDGET, POSITION, nulls_last=True).filter(before < cap)


def trim(seq: pl.LazyFrame, budget: int | None, *, per_query: bool) -> pl.LazyFrame:
    """The rows of ``seq`` before its ``budget``-th counted document (of each query with
    ``per_query``): all that any budget up to ``budget`` can reach."""
    if budget is None:
        return seq
    counted = pl.col(COUNTED).cast(pl.Int64)
    before = counted.cum_sum() - counted
    if per_query:
        before = before.over(S.QUERY_ID, order_by=POSITION)
    return seq.sort(POSITION).filter(before < budget)


# --------------------------------------------------------------------------- pool


def pool(
    runs: Any,
    *,
    method: str,
    p: float = 0.8,
    budget: int | None = None,
    depth: int | None = None,
    per_query: bool = False,
    qrels: Any = None,
    contributors: Sequence[str] | None = None,
    batch: int | None = None,
    relevance_level: int = 1,
    progress: Callable[[str], None] | ProgressOption | None = None,
) -> pl.DataFrame:
    """Choose the documents to judge next, in the order to judge them.

    Parameters
    ----------
    runs
        The runs (``run_id, query_id, doc_id, score``, or anything
        :func:`polars_ireval.read_run` accepts; eager or lazy: a LazyFrame is collected,
        as a pool needs the whole campaign). Each run's ranking is its scores descending,
        ties by doc id descending (trec_eval's order).
    method
        ``"depth"`` (every contributing run's top ``depth`` documents, TREC's pool),
        ``"max"`` (seed 002's pooling order: the maximum RBP weight over the runs),
        ``"A"`` (the sum of the RBP weights), ``"B"`` (each run's weight times its
        residual, recomputed batch by batch as documents are chosen), ``"B_mid"`` (times
        the residual and the midpoint of the run's score range) or ``"C"`` (times the
        residual and the midpoint cubed). B_mid and C read the judgments made so far
        (``qrels``) and give one batch, the next ``budget`` documents: judge them, add them
        to ``qrels`` and call again (:func:`polars_ireval.simulate_judging` plays that out
        on existing judgments). See :data:`METHODS`.
    p
        The persistence of the RBP weights, in (0, 1) (the seed's 0.8 by default).
    budget
        The number of documents to choose: over all queries (in decreasing weight across
        queries, the seed's setting), or for each query with ``per_query=True``. For
        ``"depth"``, the deepest pool (the same depth for every query; each query's own
        with ``per_query``, and nothing for a query whose depth-1 pool is larger) whose
        size fits into it. Default: no limit (every candidate, for ``depth`` within
        ``depth``).
    depth
        Only documents that some contributing run ranks within its top ``depth`` are
        candidates; for ``method="depth"``, the pool's depth (``budget`` may then stop
        shallower).
    per_query
        ``budget`` is per query instead of over all queries.
    qrels
        The judgments made so far (a qrels frame or path; their grades matter to B_mid and
        C): judged documents are not chosen again, and they set the runs' bases and
        residuals. Queries they judge must be retrieved by some run.
    contributors
        The run ids whose rankings make the pool (default: every run), e.g. up to two runs
        per group as in TREC; the other runs' rankings play no part.
    batch
        Method B: the documents chosen between two updates of the residuals (default
        100; 1 reproduces the seed exactly; per query with ``per_query``). B_mid and C:
        must be ``budget`` (the default) or more, as their next batch needs the judgments
        of this one.
    relevance_level
        The lowest grade that counts as relevant in the bases of B_mid and C.
    progress
        True for a progress bar (tqdm) on stderr of the judgments chosen by a sequential
        method, ``"auto"`` for one only when stderr is a terminal, or a function called
        with a short message after each batch (default: nothing is reported). The pool
        does not depend on it.

    Returns
    -------
    polars.DataFrame
        ``query_id, doc_id, order, weight``, in judging order: ``order`` 1 is judged first
        (within a batch the order is arbitrary to the method; here by weight), ``weight``
        the document's weight under the method when it was chosen (for ``depth`` and
        ``max`` its maximum RBP weight). :func:`write_pool` writes it for the assessors.

    Raises
    ------
    ParameterError
        An unknown method, ``p`` outside (0, 1), a budget, depth or batch that is not a
        positive integer, ``method="depth"`` without depth or budget (or with a budget too
        small for the shallowest pool), unknown contributors, a batch smaller than the
        budget for B_mid or C, a ``progress`` other than True, False, ``"auto"``, None or
        a function.
    MissingQueryError
        ``qrels`` judge queries that no run retrieved.
    SchemaError, FormatError, DuplicateError, ScoreError, EmptyInputError
        Runs or qrels that cannot be read or lack columns.

    Examples
    --------
    Seed 002's Table 1: four runs, their first eight documents, p = 0.8.

    >>> import polars as pl, polars_ireval as ir
    >>> table1 = {"1": [18, 22, 15, 13, 11, 25, 10, 84], "2": [22, 10, 11, 19, 38, 18, 33, 17],
    ...           "3": [21, 35, 16, 11, 38, 33, 18, 17], "4": [10, 18, 11, 22, 87, 13, 17, 20]}
    >>> runs = pl.DataFrame([{"run_id": r, "query_id": "q", "doc_id": str(d), "score": 8.0 - i}
    ...                      for r, docs in table1.items() for i, d in enumerate(docs)])
    >>> ir.pool(runs, method="max", budget=9)["doc_id"].to_list()
    ['18', '22', '21', '10', '35', '15', '11', '16', '13']
    >>> ir.pool(runs, method="A", budget=6).with_columns(pl.col("weight").round(2))
    shape: (6, 4)
    ┌──────────┬────────┬───────┬────────┐
    │ query_id ┆ doc_id ┆ order ┆ weight │
    │ ---      ┆ ---    ┆ ---   ┆ ---    │
    │ str      ┆ str    ┆ u32   ┆ f64    │
    ╞══════════╪════════╪═══════╪════════╡
    │ q        ┆ 18     ┆ 1     ┆ 0.48   │
    │ q        ┆ 22     ┆ 2     ┆ 0.46   │
    │ q        ┆ 11     ┆ 3     ┆ 0.44   │
    │ q        ┆ 10     ┆ 4     ┆ 0.41   │
    │ q        ┆ 21     ┆ 5     ┆ 0.2    │
    │ q        ┆ 13     ┆ 6     ┆ 0.17   │
    └──────────┴────────┴───────┴────────┘

    The depth-2 pool, and Method C's next two documents once 18 (relevant) and 22 (not
    relevant) are judged.

    >>> ir.pool(runs, method="depth", depth=2)["doc_id"].to_list()
    ['18', '22', '21', '10', '35']
    >>> judged = pl.DataFrame({"query_id": "q", "doc_id": ["18", "22"], "relevance": [1, 0]})
    >>> ir.pool(runs, method="C", budget=2, qrels=judged)["doc_id"].to_list()
    ['11', '10']
    """
    spec = method_of(method)
    p = check_persistence(p, what=PERSISTENCE)
    budget = check_positive_int(
        "budget", budget, what="the number of documents to judge", optional=True
    )
    depth = check_positive_int("depth", depth, what="the pool depth", optional=True)
    batch = check_positive_int("batch", batch, what="the batch size", optional=True)
    check_flag("per_query", per_query)
    check_relevance_level(relevance_level)
    if progress is not None and not callable(progress):
        check_progress(progress)
    names = contributor_list(contributors)
    if spec.name == "depth" and budget is None and depth is None:
        raise ParameterError(
            "method='depth' needs depth= (the pool depth) or budget= (the deepest pool "
            "that fits), e.g. ir.pool(runs, method='depth', depth=10)"
        )
    if spec.adaptive and batch is not None and (budget is None or batch < budget):
        raise ParameterError(
            f"batch={batch}: method={spec.name!r} chooses each batch from the judgments of "
            f"the previous ones, which a pool does not have; pool one batch "
            f"(budget={batch}), judge it, and call ir.pool again with the new qrels "
            "(ir.simulate_judging plays batches out on existing qrels)"
        )
    ranked = rank_runs(runs, names)
    judged_qrels: pl.DataFrame | None = None
    if qrels is not None:
        q = intake_qrels(qrels)
        judged_qrels = q.collect() if isinstance(q, pl.LazyFrame) else q
        check_queries(ranked, judged_qrels, "the qrels")
    camp = build_campaign(contributing(ranked, names), p)
    judged, gain = judged_state(camp, judged_qrels, relevance_level)
    eligible = ~judged
    if depth is not None:
        eligible &= camp.cands[BEST_RANK].to_numpy() <= depth
    if spec.sequential:
        size = batch if batch is not None else (budget if spec.adaptive else 100)
        chosen = batch_sequence(
            camp,
            spec,
            eligible=eligible,
            judged=judged,
            gain=gain,
            budget=budget,
            per_query=per_query,
            batch=size or camp.cands.height or 1,
            progress=progress,
        )
        out = (
            camp.cands.select(CANDIDATE, S.QUERY_ID, S.DOC_ID)[chosen.cand]
            .with_columns(pl.Series(WEIGHT, chosen.weight, dtype=pl.Float64))
            .with_row_index(ORDER, offset=1)
        )
        return _reported(out)
    seq = (
        static_sequence(camp, spec, eligible)
        .with_row_index(POSITION)
        .with_columns(pl.lit(True).alias(COUNTED))
    )
    out = (
        cut(seq.lazy(), [budget], per_query=per_query, levels=spec.name == "depth")
        .sort(POSITION)
        .collect()
    )
    if out.height == 0 and spec.name == "depth" and budget is not None and seq.height:
        smallest = _shallowest_pool(seq, per_query)
        raise ParameterError(
            f"budget={budget}: the shallowest depth pool (depth 1) needs {smallest:,} "
            f"judgments{' for the smallest query' if per_query else ''}; raise the budget, "
            "or use method='max' to fill the budget in the pooling order"
        )
    return _reported(out.with_row_index(ORDER, offset=1))


#: The significant digits of a reported weight: a weight is a sum of RBP weights
#: (1 - p) p^(b - 1), each rounded, times residuals (B, C) that are sums too, so its last
#: two or three of float64's 17 digits are the order of the operations (Method A's 0.328
#: came out 0.32799999999999996, B's 0.32799999999999985, C's 0.041 0.0409999999999999
#: at 15 digits); 13 keep the digits that tell weights apart (to 5e-13), and ``order``
#: says the rest.
WEIGHT_DIGITS = 13


def _reported(out: pl.DataFrame) -> pl.DataFrame:
    """The pool's columns, its weights to :data:`WEIGHT_DIGITS` significant digits (the
    order was chosen on the unrounded weights)."""
    return out.select(POOL_COLUMNS).with_columns(pl.col(WEIGHT).round_sig_figs(WEIGHT_DIGITS))


def _shallowest_pool(seq: pl.DataFrame, per_query: bool) -> int:
    top = seq.filter(pl.col(BEST_RANK) == pl.col(BEST_RANK).min())
    if per_query:
        return min(top.group_by(S.QUERY_ID).len()["len"].to_list())
    return top.height
