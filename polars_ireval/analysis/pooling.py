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
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, cast

import numpy as np
import polars as pl

from polars_ireval._base import schema as S
from polars_ireval._base.progress import ProgressOption, bar, check_progress
from polars_ireval.errors import (
    DuplicateError,
    EmptyInputError,
    FormatError,
    MissingQueryError,
    ParameterError,
    SchemaError,
    ScoreError,
)
from polars_ireval.judge import as_qrels, as_run, check_flag, check_relevance_level, rank_rows

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

ORDER = "order"
WEIGHT = "weight"
#: The columns of :func:`pool`'s result, in order.
POOL_COLUMNS: tuple[str, ...] = (S.QUERY_ID, S.DOC_ID, ORDER, WEIGHT)
#: The run id given to a run frame without a ``run_id`` column.
SINGLE_RUN = "run"

_RUN = "__run"  # a run's position among the runs, by run id
_C = "__c"  # the RBP weight of a row
_CAND = "__cand"  # a candidate's number: its position in Method A's order
_PAIR = "__pair"  # a ranking's (run, query) number
_BEST = "__best_rank"
_FIRST = "__first_run"
_SUM = "__sum_w"
_MAX = "__max_w"
_QIDX = "__query"
_ROW = "__row"  # a row's position in build_campaign's rows
_POS = "__pos"
_COUNTED = "__counted"
_BUDGET = "budget"


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


def check_p(p: Any) -> float:
    """``p`` as a float, or :class:`ParameterError` unless it is strictly between 0 and 1."""
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 < float(p) < 1.0:
        raise ParameterError(
            f"p={p!r}: the persistence must be a number strictly between 0 and 1 "
            "(0.8 is the seed's and ir_measures' default)"
        )
    return float(p)


def check_count(name: str, value: Any, *, what: str) -> int | None:
    """``value`` as a positive int (or None), else :class:`ParameterError` naming ``what``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ParameterError(f"{name}={value!r}: {what} must be a positive integer (or None)")
    return int(value)


def contributor_list(contributors: Any) -> list[str] | None:
    """``contributors`` as a list of run ids (None: every run)."""
    if contributors is None:
        return None
    if isinstance(contributors, str):
        raise ParameterError(
            f"contributors={contributors!r}: give a list of run ids, e.g. [{contributors!r}]"
        )
    if isinstance(contributors, pl.Series):
        contributors = contributors.to_list()
    try:
        names = [str(c) for c in contributors]
    except TypeError:
        raise ParameterError(
            f"contributors={contributors!r}: give a list of run ids (or None for every run)"
        ) from None
    if not names:
        raise ParameterError("contributors=[]: give at least one run id (or None for every run)")
    return names


# --------------------------------------------------------------------------- the campaign


class Ranked(NamedTuple):
    """Runs ranked once: ``rows`` is ``run_id, query_id, doc_id, rank, __run`` (the run's
    position in ``runs``, the run ids sorted), of every run or only of the contributing
    ones (see :func:`rank_runs`); ``queries`` the query ids that some run retrieved."""

    rows: pl.DataFrame
    runs: list[str]
    queries: pl.Series


def rank_runs(runs: Any, contributors: list[str] | None = None) -> Ranked:
    """Validate and rank ``runs`` (anything :func:`polars_ireval.read_run` accepts, eager
    or lazy): one row per (run, query, document) with its rank in trec_eval's order.

    With ``contributors``, only their rows are ranked and kept (a pool reads nothing else
    of the other runs); every run is validated, named in ``runs`` and counted in
    ``queries`` all the same. A run without a ``run_id`` column is one run named
    ``"run"``. A LazyFrame is collected here: choosing a pool needs the whole campaign.
    """
    frame = as_run(runs)
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    if S.RUN_ID not in frame.columns:
        frame = frame.with_columns(pl.lit(SINGLE_RUN).alias(S.RUN_ID))
    if frame.height == 0:
        raise EmptyInputError("the runs hold no document: nothing to pool")
    order = frame.select(S.RUN_ID).unique().sort(S.RUN_ID).with_row_index(_RUN)
    queries = frame.get_column(S.QUERY_ID).unique()
    if contributors is not None:
        frame = frame.filter(pl.col(S.RUN_ID).is_in(contributors))
    # ranked as the evaluation table ranks them (trec_eval's order)
    rows = (
        rank_rows(frame.select(S.RUN_ID, S.QUERY_ID, S.DOC_ID, S.SCORE))
        .lazy()
        .join(order.lazy(), on=S.RUN_ID)
        .select(S.RUN_ID, S.QUERY_ID, S.DOC_ID, S.RANK, _RUN)
        .collect()
    )
    return Ranked(rows, order[S.RUN_ID].to_list(), queries)


def contributing(ranked: Ranked, contributors: list[str] | None) -> Ranked:
    """The rows of the contributing runs only (all runs for None); unknown ids are errors."""
    if contributors is None:
        return ranked
    known = set(ranked.runs)
    unknown = [c for c in dict.fromkeys(contributors) if c not in known]
    if unknown:
        sample = ", ".join(repr(r) for r in ranked.runs[:5])
        raise ParameterError(
            f"contributors: {unknown[:5]!r} {'is' if len(unknown) == 1 else 'are'} not among "
            f"the {len(known)} runs (e.g. {sample}); check the run ids (a run read from a "
            "file is named by its tag or, with run_id='file', by its file name)"
        )
    wanted = set(contributors)
    names = [r for r in ranked.runs if r in wanted]
    rows = ranked.rows.filter(pl.col(S.RUN_ID).is_in(names))
    return Ranked(rows, names, ranked.queries)


def rbp_weight(p: float, rank: pl.Expr | None = None) -> pl.Expr:
    """(1 - p) p^(rank - 1), as :func:`polars_ireval.measures.rbp` computes it."""
    rank = pl.col(S.RANK) if rank is None else rank
    return (1.0 - p) * pl.lit(float(p)).pow(rank.cast(pl.Float64) - 1.0)


@dataclass(frozen=True)
class Campaign:
    """The contributing rows, numbered for the loop.

    ``cands``: one row per candidate document, numbered (``__cand``) in Method A's order,
    with ``query_id, doc_id``, its shallowest rank, the first run ranking it there, its
    summed and maximum weight and its query's number. ``pairs``: one row per ranking
    (``__pair``, ``run_id, query_id``, documents retrieved). ``rows``: ``__pair, __cand,
    __c`` for every contributing (run, query, document).
    """

    p: float
    cands: pl.DataFrame
    pairs: pl.DataFrame
    rows: pl.DataFrame

    def matrix(self) -> Any:
        """The documents x rankings sparse matrix of the weights ``c`` (CSR)."""
        from scipy import sparse

        shape = (self.cands.height, self.pairs.height)
        r = self.rows
        return sparse.csr_matrix(
            (r[_C].to_numpy(), (r[_CAND].to_numpy(), r[_PAIR].to_numpy())), shape=shape
        )

    def tail(self) -> np.ndarray:
        """p^n for each ranking of n documents: the weight of the ranks past its end."""
        n = self.pairs["retrieved"].to_numpy().astype(np.float64)
        return np.power(self.p, n)


def build_campaign(ranked: Ranked, p: float) -> Campaign:
    """Number the candidates and rankings of ``ranked`` and weigh every row: one grouped
    query gives every candidate's shallowest rank, first run and summed weight.

    The rows are sorted by (rank, run number), so that a candidate's first row has its
    shallowest rank and the first run ranking it there, and its weights are summed in rank
    order (a group keeps its rows' order; equal ranks have equal weights): two documents
    ranked at the same positions get bit-for-bit the same summed weight, whatever the order
    of the input rows. Each row finds its candidate through the row numbers its group
    collects, and its ranking as the dense rank of (run number, query number): no join on
    the id strings (TREC-COVID's 56 contributing runs, 1.2M rows: 1.3 -> 0.85 s).
    """
    rank = pl.col(S.RANK)
    # eager steps: Polars plans the joins of one lazy query over 3.5M rows much more
    # slowly (about ten times on TREC-COVID) than it runs them one by one
    rows = ranked.rows.with_columns(rbp_weight(p).alias(_C)).sort(S.RANK, _RUN).with_row_index(_ROW)
    cands = (
        rows.group_by(S.QUERY_ID, S.DOC_ID)
        .agg(
            rank.first().alias(_BEST),
            pl.col(_RUN).first().alias(_FIRST),
            pl.col(_C).sum().alias(_SUM),
            pl.col(_ROW),
        )
        .with_columns(
            rbp_weight(p, pl.col(_BEST)).alias(_MAX),
            (pl.col(S.QUERY_ID).rank("dense") - 1).cast(pl.UInt32).alias(_QIDX),
        )
        .sort(
            [_SUM, _BEST, _FIRST, S.QUERY_ID, S.DOC_ID],
            descending=[True, False, False, False, False],
        )
        .with_row_index(_CAND)
    )
    # each row's candidate and query number, in the rows' order
    of_row = cands.select(_CAND, _QIDX, _ROW).explode(_ROW).sort(_ROW)
    pairs = (
        ranked.rows.group_by(S.RUN_ID, S.QUERY_ID)
        .agg(pl.col(_RUN).first(), pl.len().alias("retrieved"))
        .sort(_RUN, S.QUERY_ID)
        .drop(_RUN)
        .with_row_index(_PAIR)
    )
    # the rankings are numbered in (run number, query id) order; query numbers follow the
    # ids' order, and below cands.height + 1
    key = rows[_RUN].cast(pl.UInt64) * (cands.height + 1) + of_row[_QIDX].cast(pl.UInt64)
    numbered = pl.DataFrame(
        {
            _PAIR: (key.rank("dense") - 1).cast(pl.UInt32),
            _CAND: of_row[_CAND],
            _C: rows[_C],
        }
    )
    return Campaign(p, cands.drop(_ROW), pairs, numbered)


def judged_state(
    camp: Campaign, qrels: pl.DataFrame | None, relevance_level: int
) -> tuple[np.ndarray, np.ndarray]:
    """For every candidate: judged in ``qrels`` (bool) and its gain (1 when its grade is
    at least ``relevance_level``, else 0)."""
    n = camp.cands.height
    if qrels is None:
        return np.zeros(n, dtype=bool), np.zeros(n)
    hits = (
        camp.cands.lazy()
        .select(_CAND, S.QUERY_ID, S.DOC_ID)
        .join(qrels.lazy(), on=[S.QUERY_ID, S.DOC_ID])
        .select(_CAND, (pl.col(S.RELEVANCE) >= relevance_level).cast(pl.Float64).alias("g"))
        .collect()
    )
    judged = np.zeros(n, dtype=bool)
    gain = np.zeros(n)
    idx = hits[_CAND].to_numpy()
    judged[idx] = True
    gain[idx] = hits["g"].to_numpy()
    return judged, gain


def check_queries(ranked: Ranked, qrels: pl.DataFrame, what: str) -> None:
    """:class:`MissingQueryError` when ``qrels`` judge queries that no run retrieved."""
    lacking = (
        qrels.lazy()
        .select(S.QUERY_ID)
        .unique()
        .join(ranked.queries.to_frame().lazy(), on=S.QUERY_ID, how="anti")
        .sort(S.QUERY_ID)
        .collect()[S.QUERY_ID]
        .to_list()
    )
    if lacking:
        more = f" and {len(lacking) - 5} more" if len(lacking) > 5 else ""
        raise MissingQueryError(
            f"{what} judge {len(lacking)} quer{'y' if len(lacking) == 1 else 'ies'} that no "
            f"run retrieved: {lacking[:5]!r}{more}; pass the judgments of these runs' "
            "queries (e.g. qrels.filter(pl.col('query_id').is_in(runs['query_id'])))"
        )


# --------------------------------------------------------------------------- sequences


def static_sequence(camp: Campaign, spec: PoolMethod, eligible: np.ndarray) -> pl.DataFrame:
    """The eligible candidates in the judging order of a static method (depth, max, A):
    ``__cand, query_id, doc_id, __best_rank, weight``, in order."""
    c = camp.cands.filter(pl.Series(eligible))
    if spec.name == "A":
        out = c.sort(_CAND).with_columns(pl.col(_SUM).alias(WEIGHT))
    else:
        keys = [_BEST, _FIRST, S.QUERY_ID, S.DOC_ID]
        out = c.sort(keys).with_columns(pl.col(_MAX).alias(WEIGHT))
    return out.select(_CAND, S.QUERY_ID, S.DOC_ID, _BEST, WEIGHT)


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
    qidx = camp.cands[_QIDX].to_numpy().astype(np.int64)
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
    counted = pl.col(_COUNTED).cast(pl.Int64)
    budget = pl.col(_BUDGET)
    cap = pl.when(budget.is_null()).then(pl.lit(2**62, dtype=pl.Int64)).otherwise(budget)
    frame = seq.join(
        pl.LazyFrame({_BUDGET: list(budgets)}, schema={_BUDGET: pl.Int64}), how="cross"
    )
    group = [_BUDGET, *scope]
    if levels:
        sizes = (
            frame.group_by(*group, _BEST)
            .agg(counted.sum().alias("__n"))
            .sort(_BEST)
            .with_columns(pl.col("__n").cum_sum().over(group).alias("__cum"))
        )
        # the deepest level such that it and every shallower level fit (levels with no
        # counted document cost nothing)
        deepest = (
            sizes.with_columns((pl.col("__cum") <= cap).alias("__fits"))
            .with_columns(pl.col("__fits").cast(pl.UInt8).cum_min().over(group).alias("__ok"))
            .filter(pl.col("__ok") == 1)
            .group_by(group)
            .agg(pl.col(_BEST).max().alias("__deepest"))
        )
        return (
            frame.join(deepest, on=group, how="left", nulls_equal=True)
            .filter(pl.col(_BEST) <= pl.col("__deepest"))
            .drop("__deepest")
        )
    before = (counted.cum_sum() - counted).over(group, order_by=_POS)
    return frame.sort(_BUDGET, _POS, nulls_last=True).filter(before < cap)


def trim(seq: pl.LazyFrame, budget: int | None, *, per_query: bool) -> pl.LazyFrame:
    """The rows of ``seq`` before its ``budget``-th counted document (of each query with
    ``per_query``): all that any budget up to ``budget`` can reach."""
    if budget is None:
        return seq
    counted = pl.col(_COUNTED).cast(pl.Int64)
    before = counted.cum_sum() - counted
    if per_query:
        before = before.over(S.QUERY_ID, order_by=_POS)
    return seq.sort(_POS).filter(before < budget)


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
    p = check_p(p)
    budget = check_count("budget", budget, what="the number of documents to judge")
    depth = check_count("depth", depth, what="the pool depth")
    batch = check_count("batch", batch, what="the batch size")
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
        q = as_qrels(qrels)
        judged_qrels = q.collect() if isinstance(q, pl.LazyFrame) else q
        check_queries(ranked, judged_qrels, "the qrels")
    camp = build_campaign(contributing(ranked, names), p)
    judged, gain = judged_state(camp, judged_qrels, relevance_level)
    eligible = ~judged
    if depth is not None:
        eligible &= camp.cands[_BEST].to_numpy() <= depth
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
            camp.cands.select(_CAND, S.QUERY_ID, S.DOC_ID)[chosen.cand]
            .with_columns(pl.Series(WEIGHT, chosen.weight, dtype=pl.Float64))
            .with_row_index(ORDER, offset=1)
        )
        return out.select(POOL_COLUMNS)
    seq = (
        static_sequence(camp, spec, eligible)
        .with_row_index(_POS)
        .with_columns(pl.lit(True).alias(_COUNTED))
    )
    out = (
        cut(seq.lazy(), [budget], per_query=per_query, levels=spec.name == "depth")
        .sort(_POS)
        .collect()
    )
    if out.height == 0 and spec.name == "depth" and budget is not None and seq.height:
        smallest = _shallowest_pool(seq, per_query)
        raise ParameterError(
            f"budget={budget}: the shallowest depth pool (depth 1) needs {smallest:,} "
            f"judgments{' for the smallest query' if per_query else ''}; raise the budget, "
            "or use method='max' to fill the budget in the pooling order"
        )
    return out.with_row_index(ORDER, offset=1).select(POOL_COLUMNS)


def _shallowest_pool(seq: pl.DataFrame, per_query: bool) -> int:
    top = seq.filter(pl.col(_BEST) == pl.col(_BEST).min())
    if per_query:
        return min(top.group_by(S.QUERY_ID).len()["len"].to_list())
    return top.height


# --------------------------------------------------------------------------- files


def write_pool(pool: pl.DataFrame, path: str | Path, *, tag: str = "pool") -> None:
    """Write a pool for the assessors.

    A path ending in ``.parquet``, ``.csv``, ``.tsv`` or ``.jsonl`` gets the frame as it
    is; any other gets TREC's run layout, one document a line in judging order:
    ``query_id Q0 doc_id order weight tag`` (topic and docno in columns 1 and 3, as in
    every TREC file; the weight with full precision). :func:`read_pool` reads either back.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir, tempfile, os
    >>> pool = pl.DataFrame({"query_id": ["1", "2"], "doc_id": ["d7", "d3"], "order": [1, 2],
    ...                      "weight": [0.36, 0.2]})
    >>> path = os.path.join(tempfile.mkdtemp(), "to_judge.txt")
    >>> ir.write_pool(pool, path, tag="C")
    >>> print(open(path).read(), end="")
    1 Q0 d7 1 0.36 C
    2 Q0 d3 2 0.2 C
    >>> ir.read_pool(path).equals(pool.cast({"order": pl.UInt32}))
    True

    Raises
    ------
    SchemaError
        A missing column, or a null in one (naming the row).
    ScoreError
        A weight that is NaN or infinite.
    DuplicateError
        A document listed twice for a query.
    FormatError
        In the text layout, a query or document id that is empty or holds whitespace (a
        Parquet, CSV, TSV or JSON-lines file keeps it).
    ParameterError
        A ``tag`` that is not one word, a directory that does not exist, a path that is a
        directory.
    """
    path = str(path)
    ext = Path(path).suffix.lower()
    columnar = ext in (".parquet", ".csv", ".tsv", ".jsonl", ".ndjson")
    frame = _pool_frame(pool, path, text=not columnar)
    check_pool_tag(tag)
    if Path(path).is_dir():
        raise ParameterError(f"{path}: is a directory; give the path of the file to write")
    folder = Path(path).parent
    if not folder.is_dir():
        raise ParameterError(
            f"{path}: the directory {str(folder)!r} does not exist; create it first "
            "(os.makedirs) or write the pool elsewhere"
        )
    if ext == ".parquet":
        frame.write_parquet(path)
    elif ext in (".csv", ".tsv"):
        frame.write_csv(path, separator="\t" if ext == ".tsv" else ",", float_precision=None)
    elif ext in (".jsonl", ".ndjson"):
        frame.write_ndjson(path)
    else:
        Path(path).write_text(pool_text(frame, tag=tag))


def pool_text(pool: pl.DataFrame, *, tag: str = "pool") -> str:
    """The TREC-layout text :func:`write_pool` writes (refusing what it refuses, a ``tag``
    that is not one word too: :func:`read_pool` could not read the lines back)."""
    check_pool_tag(tag)
    frame = _pool_frame(pool, "<pool>", text=True).sort(ORDER)
    lines = frame.select(
        pl.format(
            "{} Q0 {} {} {} {}",
            S.QUERY_ID,
            S.DOC_ID,
            ORDER,
            pl.col(WEIGHT).cast(pl.String),
            pl.lit(tag),
        )
    ).to_series()
    return "".join(f"{line}\n" for line in lines)


def check_pool_tag(tag: str) -> None:
    """Refuse a tag that :func:`read_pool` could not read back as a line's sixth field
    (:func:`write_pool` and :func:`pool_text`, hence ``ireval pool``'s text output too)."""
    if not tag or any(ch.isspace() for ch in tag):
        raise ParameterError(
            f"tag={tag!r}: must be one word (no whitespace), as read_pool reads the tag as a "
            f"line's sixth and last field; e.g. tag={'_'.join(tag.split()) or 'pool'!r}"
        )


def _pool_frame(pool: Any, source: str, *, text: bool = False) -> pl.DataFrame:
    """The pool's columns in their types, refusing rows that :func:`read_pool` could not
    read back (:func:`_check_rows`)."""
    if isinstance(pool, pl.LazyFrame):
        pool = pool.collect()
    if not isinstance(pool, pl.DataFrame):
        raise ParameterError(
            f"write_pool takes the frame ir.pool returns, not {type(pool).__name__}"
        )
    missing = [c for c in POOL_COLUMNS if c not in pool.columns]
    if missing:
        raise SchemaError(
            f"the pool lacks column(s) {missing}; it has {pool.columns}. A pool has "
            f"{list(POOL_COLUMNS)} (what ir.pool returns)"
        )
    frame = pool.select(
        pl.col(S.QUERY_ID).cast(pl.String),
        pl.col(S.DOC_ID).cast(pl.String),
        pl.col(ORDER).cast(pl.UInt32),
        pl.col(WEIGHT).cast(pl.Float64),
    )
    _check_rows(frame, source, text=text)
    return frame


def _check_rows(frame: pl.DataFrame, source: str, *, text: bool) -> None:
    """Refuse a null, a weight that is not finite, a (query, document) listed twice and,
    for the ``text`` layout, an id that is empty or holds whitespace; each error names the
    first such row (1-based, in the frame's order)."""
    rows = frame.with_row_index("__row", offset=1)

    def row_of(bad: pl.DataFrame) -> tuple[dict[str, Any], str]:
        row = bad.row(0, named=True)
        return row, (
            f"{source}: row {row['__row']} of the pool (query {row[S.QUERY_ID]!r}, "
            f"doc_id {row[S.DOC_ID]!r})"
        )

    for col in POOL_COLUMNS:
        bad = rows.filter(pl.col(col).is_null())
        if bad.height:
            _, where = row_of(bad)
            raise SchemaError(
                f"{where} has a null {col}; every row needs a query_id, doc_id, order and "
                "weight: fill or drop it"
            )
    bad = rows.filter(~pl.col(WEIGHT).is_finite())
    if bad.height:
        row, where = row_of(bad)
        raise ScoreError(
            f"{where} has weight {row[WEIGHT]}; a weight must be a finite number: fix or "
            "drop the row"
        )
    if text:
        for col in (S.QUERY_ID, S.DOC_ID):
            bad = rows.filter(pl.col(col).str.contains(r"^$|\s"))
            if bad.height:
                row, _ = row_of(bad)
                raise FormatError(
                    source,
                    None,
                    f"row {row['__row']} of the pool has {col} {row[col]!r}, which a TREC text "
                    "line cannot hold (its fields are separated by whitespace): change the id, "
                    "or write a .parquet, .tsv or .jsonl file, which keeps it",
                )
    dup = rows.filter(pl.struct(S.QUERY_ID, S.DOC_ID).is_duplicated())
    if dup.height:
        row = dup.row(0, named=True)
        same = dup.filter(
            (pl.col(S.QUERY_ID) == row[S.QUERY_ID]) & (pl.col(S.DOC_ID) == row[S.DOC_ID])
        )
        at = same["__row"].to_list()
        raise DuplicateError(
            f"{source}: document {row[S.DOC_ID]!r} of query {row[S.QUERY_ID]!r} is listed "
            f"{len(at)} times (rows {', '.join(map(str, at[:-1]))} and {at[-1]}); a pool "
            "lists each document once: keep one, e.g. "
            f"pool.unique([{S.QUERY_ID!r}, {S.DOC_ID!r}], keep='first')"
        )


_LINE = r"^\s*(\S+)\s+\S+\s+(\S+)\s+(\S+)\s+(\S+)(?:\s+\S+)?\s*$"


def read_pool(path: str | Path) -> pl.DataFrame:
    """Read a pool :func:`write_pool` wrote: ``query_id, doc_id, order, weight``.

    Text files are TREC's run layout (``query_id Q0 doc_id order weight [tag]``); Parquet,
    CSV, TSV and JSON-lines files hold the columns by name. A (query, document) listed
    twice is a :class:`DuplicateError`; a line that is not six fields with a whole order and
    a finite weight a :class:`FormatError` naming it; a file without a document an
    :class:`EmptyInputError`. See :func:`write_pool` for an example.

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist.
    IsADirectoryError
        ``path`` is a directory (a pool is one file).
    """
    path = str(path)
    if Path(path).is_dir():
        raise IsADirectoryError(
            f"{path}: is a directory; pass the path of one pool file, as write_pool or "
            "ireval pool -o wrote it"
        )
    if not Path(path).is_file():  # as the readers say it
        raise FileNotFoundError(f"{path}: no such file")
    ext = Path(path).suffix.lower()
    if ext == ".parquet":
        frame = _pool_frame(pl.read_parquet(path), path)
    elif ext in (".csv", ".tsv"):
        frame = _pool_frame(
            pl.read_csv(
                path,
                separator="\t" if ext == ".tsv" else ",",
                schema_overrides={S.QUERY_ID: pl.String, S.DOC_ID: pl.String},
            ),
            path,
        )
    elif ext in (".jsonl", ".ndjson"):
        frame = _pool_frame(pl.read_ndjson(path), path)
    else:
        text = Path(path).read_text()
        lines = pl.DataFrame(
            {"line": pl.Series(text.splitlines(), dtype=pl.String)}
        ).with_row_index("n", offset=1)
        lines = lines.filter(pl.col("line").str.strip_chars() != "")
        fields = lines.with_columns(pl.col("line").str.extract_groups(_LINE).alias("f")).unnest("f")
        parsed = fields.select(
            "n",
            "line",
            pl.col("1").alias(S.QUERY_ID),
            pl.col("2").alias(S.DOC_ID),
            pl.col("3").cast(pl.UInt32, strict=False).alias(ORDER),
            pl.col("4").cast(pl.Float64, strict=False).alias(WEIGHT),
        )
        bad = parsed.filter(
            pl.any_horizontal(pl.col(ORDER, WEIGHT).is_null()) | ~pl.col(WEIGHT).is_finite()
        )
        if bad.height:
            row = bad.row(0, named=True)
            raise FormatError(
                path,
                int(row["n"]),
                f"expected 'query_id Q0 doc_id order weight tag' with a whole order and a "
                f"finite numeric weight, got {row['line'][:200]!r}",
            )
        frame = parsed.select(POOL_COLUMNS)
    if frame.height == 0:
        raise EmptyInputError(f"{path}: the pool holds no document")
    dup = frame.filter(pl.struct(S.QUERY_ID, S.DOC_ID).is_duplicated())
    if dup.height:
        row = dup.row(0, named=True)
        raise DuplicateError(
            f"{path}: document {row[S.DOC_ID]!r} of query {row[S.QUERY_ID]!r} is listed "
            f"{dup.filter(pl.col(S.DOC_ID) == row[S.DOC_ID]).height} times; a pool lists "
            "each document once"
        )
    return frame.sort(ORDER)
