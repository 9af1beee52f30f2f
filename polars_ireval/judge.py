"""The evaluation table: a run joined once with its qrels.

:func:`judge` returns one row per (run, query, document) that is retrieved or judged:

============  =========  ============================================================
column        type       meaning
============  =========  ============================================================
run_id        String     only when the run has several runs (a ``run_id`` column)
query_id      String
doc_id        String
score         Float64    null for a judged document the run did not retrieve
rank          UInt32     1-based position in the ranking; null when not retrieved
relevance     Int64      qrels grade; null when the document is unjudged
============  =========  ============================================================

Every measure is an aggregation over these columns inside ``group_by(run_id, query_id)``.
Judged documents that were not retrieved are present (rank null) so recall-oriented and
ideal-ranking measures see the whole judgment pool; a query the run lacks (with
``missing="zero"``) is a group with no retrieved row, and every measure scores it from the
same expressions.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, Literal, NamedTuple, TypeVar

import polars as pl

from polars_ireval._base import collect as C
from polars_ireval._base import schema as S
from polars_ireval._base.options import MISSING, Missing, check_flag, check_positive_int
from polars_ireval._base.options import check_relevance_level as check_relevance_level
from polars_ireval.errors import DuplicateError, MissingQueryError, ParameterError, SchemaError
from polars_ireval.io import validation as V
from polars_ireval.io.intake import Inputs, intake

Ties = Literal["trec_eval", "doc_id_asc", "input_order", "rank"]
#: The tie policies of :func:`polars_ireval.evaluate`: the judge's, and ``"average"`` (the
#: expected value over every order of the tied documents; evaluate only, every engine).
EvalTies = Literal["trec_eval", "doc_id_asc", "input_order", "rank", "average"]
FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)

TIES: tuple[str, ...] = ("trec_eval", "doc_id_asc", "input_order", "rank")
AVERAGE = "average"
INPUT_RANK = V.INPUT_RANK
_POS, _TIE, _TIED, _GROUP = "__pos", "__tie", "__tied", "__group"
_JUDGED = "__judged"
_NEW = "__new"
_QROW = "__qrow"
_BLOCK = "__block"
_KEY = "__key"
_GATE = "__gate"
_FIRST = "__first"
# seeds of the hashes of query ids and doc ids in the key that joins runs with qrels
_QUERY_SEED, _DOC_SEED = 0x51ED27, 0xD0C1D
RANKING = "__ranking"
#: From this many judgments on, the judged rows of a run in ranking order are found by one
#: join of the whole run on 64-bit keys (:func:`_judged_rows`); below, the rows whose doc
#: id some query judges are joined with the qrels on the id strings, a join whose build
#: side (the qrels) is then small: on 5M rows, 22K judgments (the benchmarks' campaign)
#: take 0.43 s that way against 0.54 s by keys; 1.4M judgments (deep) the other way round.
KEYED_JUDGMENTS = 200_000
_ABSENT = 1 << 31  # rankings numbered from here on are judged queries a run lacks


class Judgment(NamedTuple):
    """What :func:`judge_and_rankings` returns.

    ``table``: the evaluation table. ``present``: the rankings (``[run_id,] query_id``)
    the run holds. ``numbering``: None, or, when the table identifies its rankings by number
    (a ``RANKING`` column, u32, in ascending order, instead of ``[run_id,] query_id``),
    the lazy frame ``RANKING, [run_id,] query_id`` that names them. ``judged``: with
    ``unjudged=True``, the table of the judged documents only (lazy), the part of ``table``
    a caller needs for the measures that read no unjudged document. ``retrieved``: with
    ``numbering``, the rows of the judged documents the run retrieved (lazy; its rankings
    by number, in ascending order), all that a measure computed from the ranks of judged
    documents and query statistics needs (see :func:`polars_ireval.measures.query_stat`).
    """

    table: Any
    present: pl.LazyFrame
    numbering: pl.LazyFrame | None = None
    judged: pl.LazyFrame | None = None
    retrieved: pl.LazyFrame | None = None


def judge(
    run: Any,
    qrels: Any,
    *,
    max_depth: int | None = None,
    judged_only: bool = False,
    ties: Ties = "trec_eval",
    missing: Missing = "skip",
    unjudged: bool = True,
    validate: bool = True,
) -> Any:
    """Rank a run and join it with its qrels into the evaluation table.

    Parameters
    ----------
    run
        A run frame (``[run_id,] query_id, doc_id, score``) or anything :func:`read_run`
        accepts. A LazyFrame gives a LazyFrame.
    qrels
        A qrels frame (``query_id, doc_id, relevance``) or anything :func:`read_qrels` accepts.
    max_depth
        Keep only the top ``max_depth`` documents of each ranking (trec_eval ``-M``).
    judged_only
        Keep only documents judged with a grade >= 0 in each ranking (after the
        ``max_depth`` cut) and close up the ranks: Sakai's condensed list (trec_eval ``-J``).
    ties
        How documents with equal scores are ordered. ``"trec_eval"`` (default): doc id
        descending, compared byte-wise, as trec_eval does. ``"doc_id_asc"``: doc id
        ascending. ``"input_order"``: the order of the rows in the input. ``"rank"``: by the
        run's own ``input_rank`` column (ascending), then doc id descending.
    missing
        A query judged in the qrels that the run did not rank: ``"skip"`` (default, trec_eval
        without ``-c``), ``"zero"`` (scored with an empty ranking, so most measures give 0;
        trec_eval ``-c``), or ``"error"``. Queries ranked by the run but absent from the
        qrels are never evaluated (see :func:`coverage` to list them).
    unjudged
        Keep the retrieved documents that the qrels do not judge for their query (default).
        ``False`` leaves them out: a table of the judged documents only (with their ranks
        among all retrieved ones), often thousands of times smaller, which is all that the
        measures declared with ``unjudged=False`` need (:func:`evaluate` uses it then).
    validate
        Check the inputs (default): a LazyFrame is checked as part of its query, when it
        is collected, with the errors :func:`read_run` and :func:`read_qrels` raise.
        ``False`` skips the checks of LazyFrames, for input already checked (duplicates,
        NaN scores or fractional grades then give wrong numbers, not errors). DataFrames
        are always checked, once (a frame the readers returned is not checked again
        unless it was changed in place).

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        The evaluation table described in the module docstring.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"],
    ...                     "score": [0.5, 0.9, 0.5]})
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "z"],
    ...                       "relevance": [1, 2]})
    >>> ir.judge(run, qrels).sort("rank", nulls_last=True)
    shape: (4, 5)
    ┌──────────┬────────┬───────┬──────┬───────────┐
    │ query_id ┆ doc_id ┆ score ┆ rank ┆ relevance │
    │ ---      ┆ ---    ┆ ---   ┆ ---  ┆ ---       │
    │ str      ┆ str    ┆ f64   ┆ u32  ┆ i64       │
    ╞══════════╪════════╪═══════╪══════╪═══════════╡
    │ q1       ┆ b      ┆ 0.9   ┆ 1    ┆ null      │
    │ q1       ┆ c      ┆ 0.5   ┆ 2    ┆ null      │
    │ q1       ┆ a      ┆ 0.5   ┆ 3    ┆ 1         │
    │ q1       ┆ z      ┆ null  ┆ null ┆ 2         │
    └──────────┴────────┴───────┴──────┴───────────┘
    """
    check_options(max_depth=max_depth, ties=ties, missing=missing, judged_only=judged_only)
    check_flag("unjudged", unjudged)
    check_flag("validate", validate)
    inputs = intake(run, qrels, ties=ties, validate=validate)
    return judge_and_rankings(
        inputs,
        max_depth=max_depth,
        judged_only=judged_only,
        ties=ties,
        missing=missing,
        unjudged=unjudged,
    ).table


def judge_and_rankings(
    inputs: Inputs,
    *,
    max_depth: int | None = None,
    judged_only: bool = False,
    ties: Ties = "trec_eval",
    missing: Missing = "skip",
    unjudged: bool = True,
    collect: bool = True,
    numbered: bool = False,
) -> Judgment:
    """:func:`judge` of inputs checked at a front door (:func:`polars_ireval.io.intake.intake`:
    nothing is checked again here), and the rankings (``keys``) the run holds, for
    :func:`coverage_of`; the options are checked by the caller (:func:`check_options`).

    ``collect=False`` leaves the table lazy even for eager input, for a caller that
    computes on it (Polars then reads only the columns that the caller uses).
    ``numbered=True`` lets the table identify its rankings by number, in order (see
    :class:`Judgment`), where that comes cheaply: for a caller that groups by ranking,
    which is then a group-by on a sorted integer instead of hashed strings.
    """
    lazy = inputs.lazy
    run_in, qrels_in = inputs.run, inputs.qrels
    keys = inputs.keys
    qrels_lf = qrels_in.lazy()
    judged_queries = qrels_lf.select(S.QUERY_ID).unique()
    if isinstance(run_in, pl.DataFrame) and isinstance(qrels_in, pl.DataFrame):
        run_in, present, ordered = _prepare_eager(run_in, qrels_in, keys, ties)
    else:
        present = run_in.lazy().select(keys).unique()
        run_in = run_in.lazy().join(judged_queries, on=S.QUERY_ID, how="semi")
        ordered = False
    hits: pl.LazyFrame | None = None
    if ordered and ties != "rank":  # the rank column, not the scores, orders the rows
        assert isinstance(run_in, pl.DataFrame) and isinstance(qrels_in, pl.DataFrame)
        plain = candidates = None
        if qrels_in.height >= KEYED_JUDGMENTS:
            # the judged rows, found by a join on 64-bit keys (not strings)
            hits = _judged_rows(run_in, qrels_in, ties).lazy()
        if unjudged or hits is None:  # the other rows (or all, joined on the ids below)
            # the 64-bit hashes of the judged doc ids: hashing them is cheaper than finding
            # the distinct strings (deep pools judge millions of documents)
            hashes = C.collect(qrels_in.lazy().select(pl.col(S.DOC_ID).hash().unique()), qrels_in)
            plain, candidates = _rank_ordered(run_in.lazy(), ties, hashes.to_series())
        link = [_BLOCK]
        # the rankings in the order of their rows, numbered as _rank_ordered numbers them
        blocks = present.join(
            judged_queries, on=S.QUERY_ID, how="semi", maintain_order="left"
        ).with_row_index(_BLOCK)
    else:
        ranked = _rank_general(run_in.lazy(), keys, ties)
        judged_docs = None if lazy else C.collect(qrels_lf.select(S.DOC_ID).unique()).to_series()
        if judged_docs is None:  # rows whose doc id no query judges need no join
            docs = qrels_lf.select(S.DOC_ID).unique()
            plain = ranked.join(docs, on=S.DOC_ID, how="anti")
            candidates = ranked.join(docs, on=S.DOC_ID, how="semi")
        else:
            judged = pl.col(S.DOC_ID).is_in(judged_docs.implode())
            plain, candidates = ranked.filter(~judged), ranked.filter(judged)
        link, blocks = keys, None
    numbered_qrels = qrels_lf.with_row_index(_QROW)
    if hits is None:
        assert candidates is not None
        hits = candidates.join(
            numbered_qrels.select(S.QUERY_ID, S.DOC_ID, _QROW, S.RELEVANCE),
            on=[S.QUERY_ID, S.DOC_ID],
            how="inner",
        )
    if max_depth is not None:
        within = pl.col(S.RANK) <= max_depth
        hits = hits.filter(within)
        if plain is not None and candidates is not None:
            plain, candidates = plain.filter(within), candidates.filter(within)

    pairs = _evaluated_pairs(present, qrels_lf, keys, missing)
    if missing == "error" and not lazy:
        _raise_missing(present, pairs, keys)
    if blocks is not None:
        pairs = pairs.join(blocks, on=keys, how="left")
    # Every judged document of every evaluated ranking, with its rank when retrieved: one
    # join of the (few) candidate rows with the judgments of the evaluated rankings.
    # Each judgment is numbered (its qrels row), so that the candidates are looked up in
    # the small qrels once, and the judgments of the evaluated rankings then find their
    # ranks by (ranking, number): integers, not doc id strings.
    # With numbered rankings, (ranking, number) packs into one u64 key, which joins
    # about twice as fast as two columns when the qrels are dense.
    packed = _packed_key(blocks is not None)
    on = [_KEY] if packed else [*link, _QROW]
    found = hits.with_columns(packed).select(*on, S.SCORE, S.RANK)
    if numbered and blocks is not None:
        compact, numbering = _numbered_table(pairs, numbered_qrels, found, packed, keys)
        # in ranking order, as the table: a group-by then finds each ranking's rows together
        retrieved = hits.select(
            pl.col(_BLOCK).alias(RANKING), S.DOC_ID, S.SCORE, S.RANK, S.RELEVANCE
        ).sort(RANKING)
        table = compact
        if unjudged:
            assert plain is not None and candidates is not None
            other = candidates.join(qrels_lf, on=[S.QUERY_ID, S.DOC_ID], how="anti")
            relevance = qrels_lf.collect_schema()[S.RELEVANCE]
            table = _with_unjudged(compact, plain, other, relevance)
        if judged_only:
            table, compact, retrieved = condense(table), condense(compact), condense(retrieved)
        kept = compact if unjudged else None
        out = table if not collect else C.collect(table)
        return Judgment(out, present, numbering, kept, retrieved)
    judgments = pairs.join(numbered_qrels, on=S.QUERY_ID).with_columns(packed)
    columns = [*keys, S.DOC_ID, S.SCORE, S.RANK, S.RELEVANCE]
    parts = [judgments.join(found, on=on, how="left").select(columns)]
    if unjudged:
        assert plain is not None and candidates is not None
        relevance_type = qrels_lf.collect_schema()[S.RELEVANCE]
        none = pl.lit(None, dtype=relevance_type).alias(S.RELEVANCE)
        other = candidates.join(qrels_lf, on=[S.QUERY_ID, S.DOC_ID], how="anti")
        parts += [f.with_columns(none).select(columns) for f in (plain, other)]
    table = pl.concat(parts)
    if judged_only:
        table = _condense(table, keys)
    # the judged documents' rows are the same with or without the unjudged ones (condensed too)
    kept = table.lazy().filter(pl.col(S.RELEVANCE).is_not_null()) if unjudged else None
    return Judgment(table if lazy or not collect else C.collect(table), present, None, kept)


def coverage(run: Any, qrels: Any) -> Any:
    """Say, for every run and query, whether the run ranks it and the qrels judge it.

    Returns a frame ``[run_id,] query_id, in_run, in_qrels`` with a row for every query
    found on either side (for every run). Queries with ``in_qrels`` false are never
    evaluated; queries with ``in_run`` false are skipped, scored as zero or an error,
    following ``missing``.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": ["1", "2"], "doc_id": ["a", "b"], "score": [1.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["2", "3"], "doc_id": ["b", "c"], "relevance": [1, 1]})
    >>> ir.coverage(run, qrels)
    shape: (3, 3)
    ┌──────────┬────────┬──────────┐
    │ query_id ┆ in_run ┆ in_qrels │
    │ ---      ┆ ---    ┆ ---      │
    │ str      ┆ bool   ┆ bool     │
    ╞══════════╪════════╪══════════╡
    │ 1        ┆ true   ┆ false    │
    │ 2        ┆ true   ┆ true     │
    │ 3        ┆ false  ┆ true     │
    └──────────┴────────┴──────────┘
    """
    inputs = intake(run, qrels)
    out = coverage_of(present_rankings(inputs), inputs.qrels.lazy())
    return out if inputs.lazy else C.collect(out)


def present_rankings(inputs: Inputs) -> pl.LazyFrame:
    """The distinct rankings (``[run_id,] query_id``) of the run of ``inputs``; of a
    checked DataFrame from its validation, without a pass."""
    run, keys = inputs.run, inputs.keys
    if isinstance(run, pl.DataFrame):
        return _rankings(run, keys)[0].lazy()
    return run.select(keys).unique()


def coverage_of(present: pl.LazyFrame, qrels: pl.LazyFrame) -> pl.LazyFrame:
    """:func:`coverage` from the distinct rankings ``present`` (``[run_id,] query_id``)."""
    keys = present.collect_schema().names()
    present = present.with_columns(pl.lit(True).alias("in_run"))
    judged = qrels.select(S.QUERY_ID).unique().with_columns(pl.lit(True).alias("in_qrels"))
    if S.RUN_ID in keys:
        judged = present.select(S.RUN_ID).unique().join(judged, how="cross")
    return (
        present.join(judged, on=keys, how="full", coalesce=True)
        .with_columns(pl.col("in_run", "in_qrels").fill_null(False))
        .sort(keys)
    )


def condense(table: FrameT) -> FrameT:
    """The evaluation table of the condensed rankings: unjudged documents removed and the
    judged ones moved up (Sakai's condensed lists; trec_eval ``-J``; ir_measures'
    ``judged_only=True``). Documents judged with a negative grade (pooled, unjudged) stay,
    unranked, as trec_eval drops them from the ranking but keeps them in the qrels.

    ``judge(..., judged_only=True)`` and a measure's ``judged_only=True`` parameter both
    apply it; use it to compute free-function measures on condensed rankings.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "c"], "relevance": [1, 1]})
    >>> ir.condense(ir.judge(run, qrels)).sort("rank")
    shape: (2, 5)
    ┌──────────┬────────┬───────┬──────┬───────────┐
    │ query_id ┆ doc_id ┆ score ┆ rank ┆ relevance │
    │ ---      ┆ ---    ┆ ---   ┆ ---  ┆ ---       │
    │ str      ┆ str    ┆ f64   ┆ u32  ┆ i64       │
    ╞══════════╪════════╪═══════╪══════╪═══════════╡
    │ q        ┆ a      ┆ 3.0   ┆ 1    ┆ 1         │
    │ q        ┆ c      ┆ 1.0   ┆ 2    ┆ 1         │
    └──────────┴────────┴───────┴──────┴───────────┘
    """
    if not isinstance(table, (pl.DataFrame, pl.LazyFrame)):
        raise SchemaError(
            f"condense takes the evaluation table ir.judge(run, qrels) returns (a Polars "
            f"frame), not a {type(table).__module__}.{type(table).__name__}"
        )
    return _condense(check_table(table), group_keys(table))


# --------------------------------------------------------------------------- helpers


def group_keys(frame: pl.DataFrame | pl.LazyFrame | Collection[str]) -> list[str]:
    """The columns that identify one ranking: ``[run_id,] query_id``, or the ranking
    number of a numbered evaluation table (see :class:`Judgment`). Of a frame, or of its
    schema or column names (resolving the schema of a long lazy query takes milliseconds:
    a caller that has it passes it)."""
    schema = frame.collect_schema() if isinstance(frame, (pl.DataFrame, pl.LazyFrame)) else frame
    if RANKING in schema:
        return [RANKING]
    return [S.RUN_ID, S.QUERY_ID] if S.RUN_ID in schema else [S.QUERY_ID]


_rankings = V.rankings


def _prepare_eager(
    run: pl.DataFrame, qrels: pl.DataFrame, keys: list[str], ties: str
) -> tuple[pl.DataFrame, pl.LazyFrame, bool]:
    """Look at eager input once: the rankings present, and whether the rows are in ranking
    order (each ranking contiguous, scores non-increasing), as TREC files and most frames
    are, so that ranking needs no sort. Rows in another order are put in ranking order
    (:func:`_in_ranking_order`) unless the run's own rank column orders them (``ties="rank"``).
    Rows of queries without judgments go.
    """
    run, present, new, ordered = _ranking_layout(run, keys, reorder=ties != "rank")
    if new is not None and ordered:  # the mask stays right when whole rankings go below
        run = run.with_columns(new.alias(_NEW))
    judged_queries = qrels.get_column(S.QUERY_ID).unique()
    judged = pl.col(S.QUERY_ID).is_in(judged_queries.implode())
    if not present.select(judged.all()).item():
        run = run.filter(judged)
    return run, present.lazy(), ordered


def _ranking_layout(
    run: pl.DataFrame, keys: list[str], reorder: bool = True
) -> tuple[pl.DataFrame, pl.DataFrame, pl.Series | None, bool]:
    """``(run, present, new, ordered)``: the rankings present, the mask of the rows that
    start one (None unless each ranking's rows are contiguous) and whether the rows are in
    ranking order (each ranking contiguous, scores non-increasing), found in one pass;
    rows in another order are first put in ranking order (:func:`_in_ranking_order`) when
    ``reorder``."""
    present, new = _rankings(run, keys)
    score = pl.col(S.SCORE)
    ordered = new is not None and bool(
        C.collect(run.lazy().select((pl.lit(new) | (score <= score.shift())).all()), run).item()
    )
    if not ordered and reorder:
        run = _in_ranking_order(run, keys)
        present, new = _rankings(run, keys)
        ordered = new is not None
    return run, present, new, ordered


def rank_rows(run: pl.DataFrame, ties: str = "trec_eval") -> pl.DataFrame:
    """``run`` (eager and checked, as :func:`as_run` returns it) with each row's ``rank``
    (UInt32, from 1) in its ranking, as the evaluation table ranks it: score descending,
    ties by doc id (descending for ``"trec_eval"``, ascending for ``"doc_id_asc"``) or,
    for ``"input_order"``, in input order. The rows come grouped by ranking, scores
    descending: as given when they are (TREC files), else ranking by ranking
    (:func:`_in_ranking_order`); tied rows keep their order, their ranks give the tie
    policy's. No sort but that of the tied rows' doc ids (:func:`_tie_positions`), where
    one ordinal rank of (score, doc id) a ranking sorts every ranking (TREC-COVID's 143
    runs, one thread: 0.36 -> 0.10 s).
    """
    if ties not in ("trec_eval", "doc_id_asc", "input_order"):
        raise ValueError(f"rank_rows: ties={ties!r} is not a tie policy it applies")
    run, _, new, _ = _ranking_layout(run, group_keys(run))
    assert new is not None  # each ranking's rows are now contiguous
    run = run.with_columns(new.alias(_NEW))
    row = pl.int_range(run.height, dtype=pl.UInt32, eager=True)
    place = _tie_positions(run, ties)
    at = row if place is None else place
    block = (new.cum_sum() - 1).cast(pl.UInt32)
    start = row.filter(new).gather(block)
    return run.drop(_NEW).with_columns((at - start + 1).cast(pl.UInt32).alias(S.RANK))


def _in_ranking_order(run: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """The rows of ``run`` ranking by ranking (in order of first appearance, so that the
    result does not vary between calls), each ranking's scores descending and equal
    scores in input order (the readers store ``-0.0`` as ``0.0``, and Polars sorts them
    equal anyway): one group-by that sorts each ranking's row numbers by score, and one
    gather. The ordered path then resolves
    ties by doc id. Cheaper than ranking rows in any order (:func:`_rank_general`), for a
    copy of the run in memory: ``ir.evaluate`` of the five benchmark measures on shuffled
    rows (``benchmarks/floor.py``, checking the frame included) took 1.32 s instead of
    1.84 s on campaign (5M rows) and 1.29 s instead of 1.50 s on msmarco (7M rows).
    """
    order = C.collect(
        run.lazy()
        .with_row_index(_POS)
        .group_by(keys, maintain_order=True)
        .agg(pl.col(_POS).sort_by(S.SCORE, descending=True, maintain_order=True))
        .select(pl.col(_POS).explode()),
        run,
    ).to_series()
    return C.collect(run.lazy().select(pl.all().gather(order)), run)


def _rank_ordered(
    run: pl.LazyFrame, ties: str, judged_hashes: pl.Series
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """Rank rows already in ranking order (each ranking contiguous, scores non-increasing).

    A row's rank is its position in the ranking, except in runs of equal scores, where the
    tie policy orders the few tied rows by doc id: no string is sorted but the doc ids of
    tied rows. Returns ``(plain, candidates)``: ``plain`` holds the untied rows whose
    doc id no query judges (the bulk of a run, which needs no join with the qrels),
    ``candidates`` the others; both have a ``rank`` and the number of their ranking
    (``_BLOCK``). ``run`` has the mask of the rows that start a ranking (a column ``_NEW``).
    :func:`_judged_rows` finds the judged rows and ranks them the same way.
    """
    columns = [c for c in run.collect_schema().names() if c != _NEW]
    new = pl.col(_NEW)
    score = pl.col(S.SCORE)
    row = pl.int_range(pl.len(), dtype=pl.UInt32)
    # a stable order already breaks ties by input order
    tie_prev = pl.lit(False) if ties == "input_order" else ~new & (score == score.shift())
    tie, tied, judged = pl.col(_TIE), pl.col(_TIED), pl.col(_JUDGED)
    base = run.with_columns(row.alias(_POS), tie_prev.alias(_TIE)).with_columns(
        (tie | tie.shift(-1).fill_null(False)).alias(_TIED),
        _maybe_judged(judged_hashes).alias(_JUDGED),
    )

    def numbered(kept: pl.Expr) -> pl.LazyFrame:
        # The rows ``kept`` with their position in their ranking and the ranking's number,
        # counted on those rows and the first row of every ranking only (kept for that).
        start = pl.when(new).then(pl.col(_POS)).forward_fill()
        block = (new.cum_sum() - 1).cast(pl.UInt32).alias(_BLOCK)
        rows = base.filter(kept | new).with_columns(pl.col(_POS) - start, block)
        return rows.filter(kept)

    by_position = (pl.col(_POS) + 1).cast(pl.UInt32).alias(S.RANK)
    # The rows of one run of equal scores stay together, led by a row with tie false;
    # sorting them by (run of ties, doc id) puts each run in the order of the tie policy.
    group = pl.col(_GROUP)
    first = ~group.eq_missing(group.shift())
    in_group = row - pl.when(first).then(row).forward_fill()
    rank = (pl.col(_POS) + 1 + in_group).cast(pl.UInt32).alias(S.RANK)
    candidates = numbered(tied | judged)
    ranked_ties = (
        candidates.filter(tied)
        .with_columns(
            pl.when(~tie).then(pl.col(_POS)).forward_fill().alias(_POS),
            (~tie).cum_sum().alias(_GROUP),
        )
        .sort([_GROUP, S.DOC_ID], descending=[False, ties == "trec_eval"])
        .select(*columns, rank, _BLOCK)
    )
    plain = numbered(~tied & ~judged).select(*columns, by_position, _BLOCK)
    untied = candidates.filter(~tied).select(*columns, by_position, _BLOCK)
    return plain, pl.concat([untied, ranked_ties])


def _judged_rows(run: pl.DataFrame, qrels: pl.DataFrame, ties: str) -> pl.DataFrame:
    """The rows of ``run`` (in ranking order, with the mask ``_NEW`` of the rows that start
    a ranking) whose (query, doc id) ``qrels`` judges, in run order: ``_BLOCK`` (the
    number of the ranking, as :func:`_rank_ordered` numbers them), ``doc_id``, ``score``,
    ``rank``, ``_QROW`` (the row of the judgment in ``qrels``) and ``relevance``.

    One join of the run with the qrels on a 64-bit key (the hash of the query id xor the
    hash of the doc id): integers, where a join on the two id strings hashes and compares
    strings for every row of the run. Each match is then checked on the strings: the doc
    ids are compared, and the query ids too unless the distinct query ids of both sides
    have distinct hashes (equal keys and equal doc ids then mean equal query ids). A
    row's rank is its position in its ranking, except for rows tied in score, which the
    tie policy orders by doc id (:func:`_tie_positions`).
    """
    key = (_id_hash(S.QUERY_ID, _QUERY_SEED) ^ _id_hash(S.DOC_ID, _DOC_SEED)).alias(_KEY)
    pairs = C.collect(
        run.lazy()
        .select(key)
        .with_row_index(_POS)
        .join(qrels.lazy().select(key).with_row_index(_QROW), on=_KEY)
        .select(_POS, _QROW),
        run,
        qrels,
    ).sort(_POS)  # in run order (an eager sort: quicker); the run is then read in order
    pos, qrow = pairs.get_column(_POS), pairs.get_column(_QROW)
    doc = run.get_column(S.DOC_ID).gather(pos)
    same = doc == qrels.get_column(S.DOC_ID).gather(qrow)
    new_at = run.lazy().select(pl.arg_where(pl.col(_NEW)).cast(pl.UInt32))
    starts = C.collect(new_at, run).to_series()
    if not _distinct_hashes(run.get_column(S.QUERY_ID).gather(starts), qrels):
        query = run.get_column(S.QUERY_ID).gather(pos)
        same &= query == qrels.get_column(S.QUERY_ID).gather(qrow)
    if not same.all():  # a key shared by two pairs of ids: only the equal ids match
        pos, qrow, doc = pos.filter(same), qrow.filter(same), doc.filter(same)
    block = (starts.search_sorted(pos, side="right") - 1).cast(pl.UInt32)
    place = _tie_positions(run, ties)
    at = pos if place is None else place.gather(pos)
    return pl.DataFrame(
        {
            _BLOCK: block,
            S.DOC_ID: doc,
            S.SCORE: run.get_column(S.SCORE).gather(pos),
            S.RANK: (at - starts.gather(block) + 1).cast(pl.UInt32),
            _QROW: qrow,
            S.RELEVANCE: qrels.get_column(S.RELEVANCE).gather(qrow),
        }
    ).with_columns(pl.col(_BLOCK).set_sorted())


def _distinct_hashes(queries: pl.Series, qrels: pl.DataFrame) -> bool:
    """True when the distinct query ids of ``queries`` and ``qrels`` have distinct 64-bit
    hashes (seeded as in :func:`_judged_rows`), as all but astronomically few sets do."""
    both = pl.concat([queries.to_frame(S.QUERY_ID).lazy(), qrels.lazy().select(S.QUERY_ID)])
    distinct = both.unique().select(
        pl.len().alias("ids"), _id_hash(S.QUERY_ID, _QUERY_SEED).n_unique().alias("hashes")
    )
    ids, hashes = C.collect(distinct, qrels).row(0)
    return bool(ids == hashes)


def _id_hash(column: str, seed: int) -> pl.Expr:
    """The 64-bit hash of the id column ``column`` in the key that joins a run with its
    qrels (:func:`_judged_rows`). Any function of the id gives the same table, since
    matches are checked on the ids themselves (the tests put weak ones here)."""
    return pl.col(column).hash(seed)


def _tie_positions(run: pl.DataFrame, ties: str) -> pl.Series | None:
    """The position (0-based, in the whole run) each row of ``run`` (in ranking order, with
    the mask ``_NEW``) takes once each run of equal scores is put in the order of the tie
    policy; None when no row is tied, or for ``ties="input_order"`` (the rows' own order).
    Only the tied rows are sorted, by (run of ties, doc id), as :func:`_rank_ordered` does.
    """
    if ties == "input_order":
        return None
    new, score = pl.col(_NEW), pl.col(S.SCORE)
    tie, pos, group = pl.col(_TIE), pl.col(_POS), pl.col(_GROUP)
    row = pl.int_range(pl.len(), dtype=pl.UInt32)
    # each run of equal scores: a row with tie false, then the rows with tie true
    first = ~group.eq_missing(group.shift())
    in_group = row - pl.when(first).then(row).forward_fill()
    found = C.collect(
        run.lazy()
        .select(S.DOC_ID, (~new & (score == score.shift())).alias(_TIE))
        .with_row_index(_POS)
        .filter(tie | tie.shift(-1).fill_null(False))
        .with_columns(
            pl.when(~tie).then(pos).forward_fill().alias(_FIRST), (~tie).cum_sum().alias(_GROUP)
        ),
        run,
    ).sort([_GROUP, S.DOC_ID], descending=[False, ties == "trec_eval"])  # eager: quicker
    tied = C.collect(
        found.lazy().select(pos, (pl.col(_FIRST) + in_group).cast(pl.UInt32).alias(_FIRST)), found
    )
    if tied.height == 0:
        return None
    place = pl.int_range(run.height, dtype=pl.UInt32, eager=True)
    return place.scatter(tied.get_column(_POS), tied.get_column(_FIRST))


def _maybe_judged(judged_hashes: pl.Series) -> pl.Expr:
    """True for every row whose doc id's 64-bit hash is in ``judged_hashes`` (the distinct
    hashes of the judged doc ids): every judged row, and the rare row whose id only shares
    a hash with one (a row the join with the qrels then finds unjudged). Looking integers
    up is cheaper than looking strings up."""
    return pl.col(S.DOC_ID).hash().is_in(judged_hashes.implode())


def _packed_key(packed: bool) -> list[pl.Expr]:
    """``ranking number * 2**32 + judgment number`` as one u64 (when ``packed``)."""
    if not packed:
        return []
    block, qrow = pl.col(_BLOCK).cast(pl.UInt64), pl.col(_QROW).cast(pl.UInt64)
    return [(block * (1 << 32) + qrow).alias(_KEY)]


def _numbered_table(
    pairs: pl.LazyFrame,
    numbered_qrels: pl.LazyFrame,
    found: pl.LazyFrame,
    packed: list[pl.Expr],
    keys: list[str],
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """The evaluation table of the judged documents, its rankings by number: ``RANKING``
    (in ascending order), ``doc_id, score, rank, relevance``; and the frame that names the numbers.

    The evaluated rankings are numbered as :func:`_rank_ordered` numbers them (judged
    queries a run lacks, under ``missing="zero"``, after them); each one's judgments follow
    in qrels order, so the packed (ranking, judgment) key ascends along the table, and the
    retrieved judgments (``found``, sorted by that key) are matched by a merge (an as-of
    join with no tolerance) instead of a hash join. A group-by on the ranking number then
    finds each ranking's rows contiguous.
    """
    block = pl.col(_BLOCK)
    # numbered by their keys, not their row (the frame is read twice, its row order may vary)
    absent = pl.struct(keys).rank("ordinal").cast(pl.UInt32) + pl.lit(_ABSENT, dtype=pl.UInt32)
    pairs = pairs.with_columns(block.fill_null(absent)).sort(_BLOCK)
    judgments = (
        pairs.select(_BLOCK, S.QUERY_ID)
        .join(numbered_qrels, on=S.QUERY_ID, maintain_order="left_right")
        .with_columns(packed)
    )
    table = judgments.join_asof(found.sort(_KEY), on=_KEY, strategy="backward", tolerance=0).select(
        block.set_sorted().alias(RANKING), S.DOC_ID, S.SCORE, S.RANK, S.RELEVANCE
    )
    return table, pairs.select(block.alias(RANKING), *keys)


def _with_unjudged(
    table: pl.LazyFrame, plain: pl.LazyFrame, other: pl.LazyFrame, relevance: pl.DataType
) -> pl.LazyFrame:
    """A numbered table (see :func:`_numbered_table`) with the retrieved documents its
    rankings' qrels do not judge: ``plain`` (no query judges them; in run order, so in
    ranking order) and ``other`` (judged for other queries; few, sorted here), merged in
    ranking order, so that each ranking's rows stay contiguous."""
    none = pl.lit(None, dtype=relevance).alias(S.RELEVANCE)
    columns = [pl.col(_BLOCK).alias(RANKING), S.DOC_ID, S.SCORE, S.RANK, none]
    # merge_sorted trusts its inputs to be sorted: the table and plain are by construction
    # (ranking numbers ascend along a run), other is sorted here
    merged = table.merge_sorted(plain.select(columns), key=RANKING)
    return merged.merge_sorted(other.select(columns).sort(RANKING), key=RANKING)


def ranked(run: pl.LazyFrame, keys: list[str], ties: str = "trec_eval") -> pl.LazyFrame:
    """``run`` with each row's ``rank`` (UInt32, from 1) in its ranking (the rows sharing
    ``keys``): score descending, ties as the evaluation breaks them (``"trec_eval"``,
    ``"doc_id_asc"``, ``"input_order"``, ``"rank"``); the rows in any order."""
    return _rank_general(run, keys, ties)


def _rank_general(run: pl.LazyFrame, keys: list[str], ties: str) -> pl.LazyFrame:
    """Rank rows in any order: one ordinal rank of a (primary, tie-breaker) struct within
    each ranking, which orders whole rows without sorting the frame. For lazy input (whose
    row order is not looked at) and ``ties="rank"``; eager rows are otherwise put in
    ranking order (:func:`_in_ranking_order`) and ranked by position."""
    score, doc = pl.col(S.SCORE), pl.col(S.DOC_ID)
    if ties == "trec_eval":  # score descending, then doc id descending
        by, descending = pl.struct(score, doc), True
    elif ties == "doc_id_asc":
        by, descending = pl.struct(-score, doc), False
    elif ties == "input_order":
        run = run.with_row_index(_POS)
        by, descending = pl.struct(-score, pl.col(_POS)), False
    else:  # "rank": the run's own rank column ascending, then doc id descending
        by, descending = pl.struct(-pl.col(INPUT_RANK).cast(pl.Float64), doc), True
    rank = by.rank("ordinal", descending=descending).over(keys).cast(pl.UInt32)
    return run.with_columns(rank.alias(S.RANK)).drop(_POS, strict=False)


def _condense(table: FrameT, keys: list[str]) -> FrameT:
    """trec_eval ``-J``: after the ``-M`` cut, keep only documents judged with a grade >= 0
    in the ranking and close up the ranks (unjudged rows go, negative grades become unranked).
    """
    rank, rel = pl.col(S.RANK), pl.col(S.RELEVANCE)
    kept = pl.when(rel >= 0).then(rank).otherwise(None)
    return table.filter(rank.is_null() | rel.is_not_null()).with_columns(
        kept.rank("ordinal").over(keys).cast(pl.UInt32).alias(S.RANK),
        pl.when(rel >= 0).then(pl.col(S.SCORE)).otherwise(None).alias(S.SCORE),
    )


def _evaluated_pairs(
    present: pl.LazyFrame, qrels: pl.LazyFrame, keys: list[str], missing: str
) -> pl.LazyFrame:
    """The (run, query) pairs to evaluate under the missing-query policy."""
    judged = qrels.select(S.QUERY_ID).unique()
    if missing == "skip":
        return present.join(judged, on=S.QUERY_ID, how="semi")
    if S.RUN_ID in keys:
        return present.select(S.RUN_ID).unique().join(judged, how="cross")
    return judged


def _raise_missing(present: pl.LazyFrame, pairs: pl.LazyFrame, keys: list[str]) -> None:
    absent = C.collect(pairs.join(present, on=keys, how="anti").sort(keys))
    if absent.height:
        sample = ", ".join(str(r) for r in absent.head(5).rows())
        raise MissingQueryError(
            f"{absent.height} judged (run, query) pair(s) have no ranking in the run, e.g. "
            f"{sample}; pass missing='skip' to ignore them or missing='zero' to score them 0"
        )


def check_options(
    *,
    max_depth: int | None,
    ties: str,
    missing: str,
    judged_only: bool = False,
    average: bool = False,
) -> None:
    """Raise :class:`ParameterError` for an evaluation option out of range: ``max_depth``
    (a positive integer or None), ``ties`` (one of :data:`TIES`, or ``"average"`` too
    with ``average=True``), ``missing``, ``judged_only``."""
    check_positive_int("max_depth", max_depth, optional=True)
    check_flag("judged_only", judged_only)
    allowed = (*TIES, AVERAGE) if average else TIES
    if ties not in allowed:
        raise ParameterError(f"ties={ties!r}: must be one of {', '.join(allowed)}")
    if missing not in MISSING:
        raise ParameterError(f"missing={missing!r}: must be one of {', '.join(MISSING)}")


_TABLE = "evaluation table"


def check_table(table: FrameT) -> FrameT:
    """``table`` if it is an evaluation table (see the module docstring) the measures can
    read; else a specific error: a missing column, ids that are not strings, a rank or a
    relevance that is not an integer column (a float grade, NaN included, would compare
    as relevant), a rank below 1, two rows of one ranking at one rank, or one document
    twice in a ranking. A LazyFrame's schema is checked at once, its values as part of
    its query, when it is collected (with the same errors).

    Examples
    --------
    >>> import polars as pl
    >>> table = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "rank": [1, 1],
    ...                       "relevance": [1, 0]})
    >>> check_table(table)
    Traceback (most recent call last):
    ...
    polars_ireval.errors.DuplicateError: <input>: the evaluation table ranks documents 'a' ...
    """
    schema = table.collect_schema()
    keys: list[str] = group_keys(schema)
    lacking = [c for c in (*keys, S.DOC_ID, S.RANK, S.RELEVANCE) if c not in schema]
    if lacking:
        raise SchemaError(
            f"{V.INPUT}: the {_TABLE} lacks column(s) {lacking}; it has {schema.names()}. "
            "The measures read the table ir.judge(run, qrels) builds"
        )
    for c in (*keys, S.DOC_ID):
        if c != RANKING and schema[c] != pl.String:
            raise SchemaError(
                f"{V.INPUT}: the {_TABLE}'s column {c!r} has type {schema[c]}; ids are strings: "
                f"cast it, e.g. pl.col({c!r}).cast(pl.String), or build the table with ir.judge"
            )
    for c in (S.RANK, S.RELEVANCE):
        if not schema[c].is_integer():
            raise SchemaError(
                f"{V.INPUT}: the {_TABLE}'s column {c!r} has type {schema[c]}; it must hold "
                f"integers (null where {'not retrieved' if c == S.RANK else 'unjudged'}): "
                f"cast it, e.g. pl.col({c!r}).cast(pl.Int64), or build the table with ir.judge"
            )
    if isinstance(table, pl.DataFrame):
        _check_table_values(table, keys)
        return table

    def checked(frame: pl.DataFrame) -> pl.DataFrame:
        _check_table_values(frame, keys)
        return frame

    # a LazyFrame's values: checked as part of its query, when it is collected
    return table.map_batches(checked, schema=schema)


def _check_table_values(table: pl.DataFrame, keys: list[str]) -> None:
    rank = pl.col(S.RANK)
    low = table.filter(rank < 1)
    if low.height:
        row = low.row(0, named=True)
        raise SchemaError(
            f"{V.INPUT}: the {_TABLE} ranks document {row[S.DOC_ID]!r} at {row[S.RANK]} "
            f"({_ranking(row, keys)}); ranks start at 1"
        )
    for by, what in (([*keys, S.DOC_ID], "document"), ([*keys, S.RANK], "rank")):
        rows = table.filter(rank.is_not_null()) if what == "rank" else table
        twice = rows.filter(pl.len().over(by) > 1).head(2)
        if twice.height:
            a, b = twice.rows(named=True)
            if what == "rank":
                problem = (
                    f"ranks documents {a[S.DOC_ID]!r} and {b[S.DOC_ID]!r} both at rank {a[S.RANK]}"
                )
            else:
                problem = f"holds document {a[S.DOC_ID]!r} twice"
            raise DuplicateError(
                f"{V.INPUT}: the {_TABLE} {problem} ({_ranking(a, keys)}); one row per "
                "retrieved or judged document and rank, as ir.judge builds it"
            )


def _ranking(row: dict[str, Any], keys: list[str]) -> str:
    return ", ".join(f"{'query' if k == S.QUERY_ID else k} {row[k]!r}" for k in keys)
