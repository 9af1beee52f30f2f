"""A campaign as the pooling methods read it: its runs ranked once, the contributing runs,
and every candidate document numbered and weighed.

:func:`rank_runs` validates and ranks the runs (trec_eval's order); :func:`contributing`
keeps the rows of the runs that make the pool; :func:`build_campaign` numbers the
candidates (in Method A's order) and the rankings and gives every row its RBP weight
(:class:`Campaign`), which :mod:`polars_ireval.analysis.pooling` chooses from and
:mod:`polars_ireval.analysis.judging` replays on. The checks of the parameters that every
pooling function takes is here too: ``contributors`` (``p`` and the counts are checked by
:mod:`polars_ireval._base.options`, as everywhere).

The columns a campaign adds to its frames are named by the constants below (each with two
leading underscores, so that they never meet a user's column).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import polars as pl

from polars_ireval._base import schema as S
from polars_ireval.errors import EmptyInputError, MissingQueryError, ParameterError
from polars_ireval.io.intake import intake_run
from polars_ireval.judge import rank_rows

#: How the pooling functions name ``p`` in their errors.
PERSISTENCE = "the persistence of the RBP weights (0.8 is the seed's and ir_measures' default)"
#: The run id given to a run frame without a ``run_id`` column.
SINGLE_RUN = "run"
#: A run's position among the runs, by run id (:attr:`Ranked.rows`).
RUN_NUMBER = "__run"
#: A candidate's number: its position in Method A's order (:attr:`Campaign.cands`).
CANDIDATE = "__cand"
#: A candidate's shallowest rank in a contributing run.
BEST_RANK = "__best_rank"
#: The number of the first run (by run id) that ranks the candidate at its shallowest rank.
FIRST_RUN = "__first_run"
#: A candidate's summed RBP weight over the runs (Method A's weight).
SUM_WEIGHT = "__sum_w"
#: A candidate's largest RBP weight over the runs (the pooling order's weight).
MAX_WEIGHT = "__max_w"
#: The number of a candidate's query (the query ids in order).
QUERY_NUMBER = "__query"
_C = "__c"  # the RBP weight of a row
_PAIR = "__pair"  # a ranking's (run, query) number
_ROW = "__row"  # a row's position in build_campaign's rows


# --------------------------------------------------------------------------- validation


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
    frame = intake_run(runs)
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    if S.RUN_ID not in frame.columns:
        frame = frame.with_columns(pl.lit(SINGLE_RUN).alias(S.RUN_ID))
    if frame.height == 0:
        raise EmptyInputError("the runs hold no document: nothing to pool")
    order = frame.select(S.RUN_ID).unique().sort(S.RUN_ID).with_row_index(RUN_NUMBER)
    queries = frame.get_column(S.QUERY_ID).unique()
    if contributors is not None:
        frame = frame.filter(pl.col(S.RUN_ID).is_in(contributors))
    # ranked as the evaluation table ranks them (trec_eval's order)
    rows = (
        rank_rows(frame.select(S.RUN_ID, S.QUERY_ID, S.DOC_ID, S.SCORE))
        .lazy()
        .join(order.lazy(), on=S.RUN_ID)
        .select(S.RUN_ID, S.QUERY_ID, S.DOC_ID, S.RANK, RUN_NUMBER)
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
            (r[_C].to_numpy(), (r[CANDIDATE].to_numpy(), r[_PAIR].to_numpy())), shape=shape
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
    rows = (
        ranked.rows.with_columns(rbp_weight(p).alias(_C))
        .sort(S.RANK, RUN_NUMBER)
        .with_row_index(_ROW)
    )
    cands = (
        rows.group_by(S.QUERY_ID, S.DOC_ID)
        .agg(
            rank.first().alias(BEST_RANK),
            pl.col(RUN_NUMBER).first().alias(FIRST_RUN),
            pl.col(_C).sum().alias(SUM_WEIGHT),
            pl.col(_ROW),
        )
        .with_columns(
            rbp_weight(p, pl.col(BEST_RANK)).alias(MAX_WEIGHT),
            (pl.col(S.QUERY_ID).rank("dense") - 1).cast(pl.UInt32).alias(QUERY_NUMBER),
        )
        .sort(
            [SUM_WEIGHT, BEST_RANK, FIRST_RUN, S.QUERY_ID, S.DOC_ID],
            descending=[True, False, False, False, False],
        )
        .with_row_index(CANDIDATE)
    )
    # each row's candidate and query number, in the rows' order
    of_row = cands.select(CANDIDATE, QUERY_NUMBER, _ROW).explode(_ROW).sort(_ROW)
    pairs = (
        ranked.rows.group_by(S.RUN_ID, S.QUERY_ID)
        .agg(pl.col(RUN_NUMBER).first(), pl.len().alias("retrieved"))
        .sort(RUN_NUMBER, S.QUERY_ID)
        .drop(RUN_NUMBER)
        .with_row_index(_PAIR)
    )
    # the rankings are numbered in (run number, query id) order; query numbers follow the
    # ids' order, and below cands.height + 1
    key = rows[RUN_NUMBER].cast(pl.UInt64) * (cands.height + 1) + of_row[QUERY_NUMBER].cast(
        pl.UInt64
    )
    numbered = pl.DataFrame(
        {
            _PAIR: (key.rank("dense") - 1).cast(pl.UInt32),
            CANDIDATE: of_row[CANDIDATE],
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
        .select(CANDIDATE, S.QUERY_ID, S.DOC_ID)
        .join(qrels.lazy(), on=[S.QUERY_ID, S.DOC_ID])
        .select(CANDIDATE, (pl.col(S.RELEVANCE) >= relevance_level).cast(pl.Float64).alias("g"))
        .collect()
    )
    judged = np.zeros(n, dtype=bool)
    gain = np.zeros(n)
    idx = hits[CANDIDATE].to_numpy()
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
