"""Checks of run and qrels frames, shared by every reader (io, prefs, judgment groups).

A validator takes a frame (from a file, a Polars or pandas frame, a pyarrow table or a
dict) and returns it in canonical form, or raises an error that names the file and line
(or the column) and says how to fix it:

* :func:`validate_run` and :func:`validate_qrels`: whole run and qrels frames; the frames
  they return are remembered (:func:`is_validated`), so that evaluating them does not
  check them again;
* column checks that other formats (preferences, judgment groups) build on:
  :func:`rename_aliases`, :func:`require`, :func:`id_column`, :func:`score_column`,
  :func:`relevance_column`, :func:`check_nulls`, :func:`check_duplicates`;
* :func:`where`: the place of a row (``file:line`` when the reader kept the locator
  columns :data:`LINE` and :data:`FILE`, else the source's name);
* the score policy: :func:`check_scores`, :func:`float32_scores`, :func:`float_score`.

This module reads no file and imports no reader: the readers (:mod:`polars_ireval.io.readers`,
:mod:`polars_ireval.trec_eval.prefs`, :mod:`polars_ireval.trec_eval.qrels_jg`) import it.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Mapping, Sequence
from typing import Any, Literal, NamedTuple, TypeVar

import polars as pl
import pyarrow as pa

from polars_ireval._base import schema as S
from polars_ireval._base.collect import collect
from polars_ireval.errors import (
    DuplicateError,
    EmptyInputError,
    ParameterError,
    RelevanceError,
    SchemaError,
    ScoreError,
)

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)

#: Locator columns the text readers add (line number, file), which :func:`where` reads
#: and :func:`validate_run` / :func:`validate_qrels` drop.
LINE = "__line"
FILE = "__file"

#: How errors name in-memory input (a frame, a LazyFrame, a dict).
INPUT = "<input>"
#: A run's own rank column, which ``ties="rank"`` orders by (a ``rank`` column is read as it).
INPUT_RANK = "input_rank"

#: The rankings of a run frame (see :func:`rankings`).
Layout = tuple[pl.DataFrame, pl.Series | None]


class _Checked(NamedTuple):
    """A frame that :func:`validate_run` or :func:`validate_qrels` returned.

    ``frame``: a weak reference (it tells a live frame from a recycled ``id``). ``arrow``:
    the frame's columns exported to Arrow (zero-copy), which holds its buffers: a frame
    changed in place afterwards (``frame.extend(...)``, ``frame[i, "score"] = ...``)
    must then copy the buffers it changes, so that its buffers no longer match these and
    the frame is checked again (see :func:`is_validated`). ``layout``: the rankings of a
    run frame, found while checking it. ``source``: how the errors named the frame's
    source (a file, ``"2 run files"``, :data:`INPUT`), for errors found after the check.
    """

    frame: weakref.ref[pl.DataFrame]
    arrow: pa.Table
    layout: Layout | None
    source: str


# Frames returned by validate_run/validate_qrels, so that evaluate() does not check them twice.
_VALIDATED: dict[int, _Checked] = {}
#: Rows per ranking (on average) up to which duplicates are counted ranking by ranking.
_SMALL_BLOCKS = 100_000

#: Other names of the library's columns (lower case), which :func:`rename_aliases` renames.
ALIASES = {
    "qid": S.QUERY_ID,
    "q_id": S.QUERY_ID,
    "query": S.QUERY_ID,
    "topic": S.QUERY_ID,
    "docno": S.DOC_ID,
    "docid": S.DOC_ID,
    "did": S.DOC_ID,
    "doc": S.DOC_ID,
    "sim": S.SCORE,
    "rank": INPUT_RANK,  # a run's own ranks (TREC's fourth field), read by ties="rank"
    "rel": S.RELEVANCE,
    "label": S.RELEVANCE,
    "grade": S.RELEVANCE,
    "judgment": S.RELEVANCE,
    "runid": S.RUN_ID,
    "run": S.RUN_ID,
    "system": S.RUN_ID,
    "tag": S.RUN_ID,
}


# --------------------------------------------------------------------------- validation


def validate_run(frame: pl.DataFrame, source: str = "<input>") -> pl.DataFrame:
    """Check a run frame and return it in canonical form.

    Ids become strings (integer ids are converted), scores float64 (``-0.0`` is stored as
    ``0.0``, as C compares them equal). Raises a specific error for a missing column, a
    null, NaN or infinite score, a duplicate (query, document) within a run, or no rows.
    Columns ``__line``/``__file`` (added by the text readers) locate errors and are dropped.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": [1, 1], "doc_id": ["a", "b"], "score": [2, 1]})
    >>> ir.validate_run(run).dtypes
    [String, String, Float64]
    >>> ir.validate_run(run.with_columns(doc_id=pl.lit("a")))
    Traceback (most recent call last):
    ...
    polars_ireval.errors.DuplicateError: <input>: the run lists (query_id='1', doc_id='a') 2 ...
    """
    frame = rename_aliases(frame)
    require(frame, (S.QUERY_ID, S.DOC_ID, S.SCORE), source, "run")
    id_cols = [c for c in (S.RUN_ID, S.QUERY_ID, S.DOC_ID) if c in frame.columns]
    frame = frame.with_columns(*[id_column(frame, c, source) for c in id_cols])
    frame = frame.with_columns(score_column(frame, source))
    if frame.height == 0:
        raise EmptyInputError(
            f"{source}: the run holds no ranking line; check the file and its path"
        )
    check_nulls(frame, [*id_cols, S.SCORE], source, "run")
    score = pl.col(S.SCORE)
    infinite, zero = frame.select(
        (~score.is_finite()).any().alias("infinite"), (score == 0.0).any().alias("zero")
    ).row(0)
    if zero:  # a new column only when there may be a -0.0 to store as 0.0
        frame = frame.with_columns(float_score(score))
    if infinite:
        bad = frame.filter(~score.is_finite())
        row = bad.row(0, named=True)
        raise ScoreError(
            f"{where(row, source)}: score {row[S.SCORE]} of document {row[S.DOC_ID]!r} "
            f"(query {row[S.QUERY_ID]!r}) is not finite; every score must be a finite number"
        )
    keys = [c for c in (S.RUN_ID, S.QUERY_ID) if c in frame.columns] + [S.DOC_ID]
    present, new = rankings(frame, keys[:-1])
    # When each ranking is one block of rows, a duplicate lies within a block
    check_duplicates(frame, keys, source, "run", new=new)
    out = frame.select(*keys[:-1], S.DOC_ID, S.SCORE, *_extra(frame, [*keys, S.SCORE]))
    return _mark(out, (present, new), source)


def new_ranking(keys: Sequence[str]) -> pl.Expr:
    """True on the first row of each block of consecutive rows with the same ``keys``."""
    changed = [pl.col(k).ne_missing(pl.col(k).shift()) for k in keys]
    return pl.any_horizontal(changed).fill_null(True)


def rankings(frame: pl.DataFrame, keys: Sequence[str]) -> tuple[pl.DataFrame, pl.Series | None]:
    """The distinct rankings (``keys``) of a run frame, and, when each ranking's rows are
    contiguous (as in TREC files), the mask of the rows that start one (else None).

    Known without a pass over the rows for a frame :func:`validate_run` returned.
    """
    entry = _checked(frame)
    if entry is not None and entry.layout is not None:
        return entry.layout
    new = collect(frame.lazy().select(new_ranking(keys)), frame).to_series()  # lazy: parallel
    starts = frame.filter(new).select(keys)
    if starts.is_duplicated().any():
        return frame.select(keys).unique(), None
    return starts, new


def validate_qrels(frame: pl.DataFrame, source: str = "<input>") -> pl.DataFrame:
    """Check a qrels frame and return it as ``query_id, doc_id, relevance``.

    Raises a specific error for a missing column, a null or non-integer grade, a duplicate
    (query, document), or no rows.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> ir.validate_qrels(pl.DataFrame({"qid": [1], "docno": ["a"], "rel": [2]})).columns
    ['query_id', 'doc_id', 'relevance']
    >>> ir.validate_qrels(pl.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1.5]}))
    Traceback (most recent call last):
    ...
    polars_ireval.errors.RelevanceError: <input>: relevance 1.5 is not an integer ...
    """
    frame = rename_aliases(frame)
    require(frame, (S.QUERY_ID, S.DOC_ID, S.RELEVANCE), source, "qrels")
    frame = frame.with_columns(
        id_column(frame, S.QUERY_ID, source),
        id_column(frame, S.DOC_ID, source),
        relevance_column(frame, source),
    )
    if frame.height == 0:
        raise EmptyInputError(f"{source}: the qrels hold no judgment; check the file and its path")
    check_nulls(frame, [S.QUERY_ID, S.DOC_ID, S.RELEVANCE], source, "qrels")
    check_duplicates(frame, [S.QUERY_ID, S.DOC_ID], source, "qrels")
    return _mark(frame.select(S.QUERY_ID, S.DOC_ID, S.RELEVANCE), source=source)


def is_validated(frame: pl.DataFrame) -> bool:
    """True when ``frame`` itself was returned by :func:`validate_run` or
    :func:`validate_qrels` and has not been changed in place since (its columns, their
    types and their buffers are the ones checked)."""
    return _checked(frame) is not None


def _checked(frame: pl.DataFrame) -> _Checked | None:
    entry = _VALIDATED.get(id(frame))
    if entry is None or entry.frame() is not frame:
        return None
    if _buffers(entry.arrow) != _buffers(_to_arrow(frame)):  # changed in place
        _VALIDATED.pop(id(frame), None)
        return None
    return entry


def _to_arrow(frame: pl.DataFrame) -> pa.Table:
    return frame.to_arrow(compat_level=pl.CompatLevel.newest())  # zero-copy


def _buffers(table: pa.Table) -> tuple[Any, ...]:
    """The names, types and buffer addresses of an Arrow table's columns."""
    return tuple(
        (
            name,
            column.type,
            tuple(
                (b.address, b.size) if b is not None else None
                for chunk in column.chunks
                for b in chunk.buffers()
            ),
        )
        for name, column in zip(table.column_names, table.columns, strict=True)
    )


def _mark(frame: pl.DataFrame, layout: Layout | None = None, source: str = INPUT) -> pl.DataFrame:
    # every column as a Series: a column Polars keeps as one repeated value (pl.lit) would
    # export new buffers each time, and never be known as checked
    frame = pl.DataFrame(frame.get_columns())
    key = id(frame)
    ref = weakref.ref(frame, lambda _: _VALIDATED.pop(key, None))
    _VALIDATED[key] = _Checked(ref, _to_arrow(frame), layout, source)
    return frame


def canonical_columns(frame: FrameT, source: str, kind: str) -> FrameT:
    """The columns of a run or qrels (``kind``) read from ``source`` (one of several files)
    as :func:`validate_run` / :func:`validate_qrels` convert them: ids as String (integers
    as their decimal text), scores Float64, grades Int64; so that the files' frames
    concatenate as each would read alone, and an error names the file: a missing column,
    an id type other than string or integer, a score not numeric, a grade not whole (a
    LazyFrame's grades: by type only, see :func:`relevance_column`).

    Examples
    --------
    >>> import polars as pl
    >>> frame = pl.DataFrame({"qid": [1], "docno": [7], "sim": [2]})
    >>> canonical_columns(frame, "a.parquet", "run").row(0)
    ('1', '7', 2.0)
    """
    frame = rename_aliases(frame)
    if kind == "run":
        require(frame, (S.QUERY_ID, S.DOC_ID, S.SCORE), source, kind)
        value = score_column(frame, source)
    else:
        require(frame, (S.QUERY_ID, S.DOC_ID, S.RELEVANCE), source, kind)
        value = relevance_column(frame, source)
    keys = (S.RUN_ID, S.QUERY_ID, S.DOC_ID) if kind == "run" else (S.QUERY_ID, S.DOC_ID)
    ids = [c for c in keys if c in _schema(frame)]
    return frame.with_columns(*[id_column(frame, c, source) for c in ids], value)


def canonical_run_columns(columns: Sequence[str], ties: str) -> list[str]:
    """The columns of a canonical run of ``columns``: ``[run_id,] query_id, doc_id, score``,
    and ``input_rank`` when the run has it (``ties="rank"`` orders by it, and the SQL
    engines read it); an error for ``ties="rank"`` without it."""
    keys = [c for c in (S.RUN_ID, S.QUERY_ID) if c in columns]
    if INPUT_RANK in columns:
        return [*keys, S.DOC_ID, S.SCORE, INPUT_RANK]
    if ties == "rank":
        raise ParameterError(
            "ties='rank' orders tied documents by the run's own ranks: the run needs an "
            f"{INPUT_RANK} column (or a 'rank' column, read as it), and has {list(columns)}"
        )
    return [*keys, S.DOC_ID, S.SCORE]


def checked_lazy_run(frame: pl.LazyFrame, *, ties: str, validate: bool) -> pl.LazyFrame:
    """A LazyFrame run in canonical form (:func:`canonical_run_columns`), checked as
    :func:`validate_run` checks a DataFrame, as part of its query (``validate=False``: only
    renamed and cast); its schema (columns, types) is checked at once."""
    frame = rename_aliases(frame)
    require(frame, (S.QUERY_ID, S.DOC_ID, S.SCORE), INPUT, "run")
    schema = frame.collect_schema()
    keys = [c for c in (S.RUN_ID, S.QUERY_ID, S.DOC_ID) if c in schema]
    casts = [id_column(frame, c, INPUT) for c in keys]
    casts.append(float_score(score_column(frame, INPUT)))
    columns = canonical_run_columns(schema.names(), ties)
    if not validate:
        return frame.select(columns).with_columns(casts)
    out: dict[str, pl.DataType] = {c: pl.String() for c in keys}
    out[S.SCORE] = pl.Float64()
    out |= {c: schema[c] for c in columns[len(out) :]}
    checked = frame.select(columns).map_batches(
        lambda df: validate_run(df, INPUT), schema=pl.Schema(out)
    )
    return checked.cache()  # checked once, however often the plan reads it


#: A column a lazy query joins to make another's checks run first (one row, dropped).
_GATE = "__gate"


def checked_lazy_qrels(
    frame: pl.LazyFrame, *, validate: bool, after: pl.LazyFrame | None = None
) -> pl.LazyFrame:
    """LazyFrame qrels in canonical form (``query_id, doc_id, relevance``), checked as
    :func:`validate_qrels` checks a DataFrame, as part of its query (``validate=False``:
    only renamed and cast). ``after``: a lazy frame whose query must have run (and raised
    its errors) before these qrels are checked."""
    frame = rename_aliases(frame)
    columns = (S.QUERY_ID, S.DOC_ID, S.RELEVANCE)
    require(frame, columns, INPUT, "qrels")
    casts = [
        id_column(frame, S.QUERY_ID, INPUT),
        id_column(frame, S.DOC_ID, INPUT),
        relevance_column(frame, INPUT),
    ]
    if not validate:
        return frame.select(casts)
    schema = pl.Schema({S.QUERY_ID: pl.String, S.DOC_ID: pl.String, S.RELEVANCE: pl.Int64})
    source = frame.select(columns)
    if after is not None:  # one row from `after`: its query runs first
        source = source.join(after.select(pl.len().alias(_GATE)), how="cross")
    checked = source.map_batches(
        lambda df: validate_qrels(df.drop(_GATE, strict=False), INPUT), schema=schema
    )
    return checked.cache()


def narrowed(frame: pl.DataFrame, columns: Sequence[str]) -> pl.DataFrame:
    """``frame.select(columns)``, still known as checked (with its rankings) when ``frame``
    was: for a checked frame whose extra columns a caller leaves out."""
    entry = _checked(frame)
    out = frame.select(columns)
    return out if entry is None else _mark(out, entry.layout, entry.source)


# --------------------------------------------------------------------------- columns


def rename_aliases(frame: FrameT) -> FrameT:
    """``frame`` with its columns' common other names (:data:`ALIASES`, any case) renamed
    to the library's: ``qid`` → ``query_id``, ``docno`` → ``doc_id``, ``rel`` →
    ``relevance``... A column is renamed only when the target name is free.

    Examples
    --------
    >>> import polars as pl
    >>> rename_aliases(pl.DataFrame({"QID": ["1"], "docno": ["a"], "rel": [1]})).columns
    ['query_id', 'doc_id', 'relevance']
    """
    names = _schema(frame).names()
    present = set(names)
    mapping: dict[str, str] = {}
    for c in names:
        target = ALIASES.get(c.lower())
        if target is not None and target not in present and target not in mapping.values():
            mapping[c] = target
    return frame.rename(mapping) if mapping else frame


def require(
    frame: pl.DataFrame | pl.LazyFrame, cols: Sequence[str], source: str, kind: str
) -> None:
    """Raise :class:`SchemaError` unless ``frame`` has every column of ``cols``; the
    message names ``source`` and ``kind`` (``"run"``, ``"qrels"``, ``"prefs"``...).

    Examples
    --------
    >>> import polars as pl
    >>> require(pl.DataFrame({"query_id": ["1"]}), ["query_id", "doc_id"], "<input>", "run")
    Traceback (most recent call last):
    ...
    polars_ireval.errors.SchemaError: <input>: the run lacks column(s) ['doc_id']; ...
    """
    names = _schema(frame).names()
    missing = [c for c in cols if c not in names]
    if missing:
        raise SchemaError(
            f"{source}: the {kind} lacks column(s) {missing}; it has {names}. "
            f"Rename them to {list(cols)}"
        )


def id_column(frame: pl.DataFrame | pl.LazyFrame, col: str, source: str) -> pl.Expr:
    """The id column ``col`` as String: strings as they are, integers (and categoricals)
    as their decimal text; another type is a :class:`SchemaError` naming ``source``."""
    dtype = _schema(frame)[col]
    if dtype == pl.String:
        return pl.col(col)
    if dtype.is_integer() or dtype == pl.Categorical or isinstance(dtype, pl.Enum):
        return pl.col(col).cast(pl.String)
    raise SchemaError(
        f"{source}: column {col!r} has type {dtype}; ids must be strings (or integers, "
        f"converted to their decimal text). Cast it, e.g. pl.col({col!r}).cast(pl.String)"
    )


def score_column(frame: pl.DataFrame | pl.LazyFrame, source: str) -> pl.Expr:
    """The ``score`` column as Float64; a column that is not numeric is a
    :class:`SchemaError` naming ``source``."""
    dtype = _schema(frame)[S.SCORE]
    if not dtype.is_numeric():
        raise SchemaError(
            f"{source}: column 'score' has type {dtype}; scores must be numbers. "
            "Cast it, e.g. pl.col('score').cast(pl.Float64)"
        )
    return pl.col(S.SCORE).cast(pl.Float64)


Scores = Literal["float64", "float32"]
SCORES: tuple[str, ...] = ("float64", "float32")


def check_scores(scores: Any) -> None:
    """Raise :class:`ParameterError` unless ``scores`` is ``"float64"`` or ``"float32"``."""
    if scores not in SCORES:
        raise ParameterError(
            f"scores={scores!r}: must be 'float64' (scores as read) or 'float32' (rounded "
            "to 32-bit floats, as trec_eval 9.0.4 and earlier read them)"
        )


def float32_scores(run: Any, scores: Scores) -> Any:
    """A canonical run frame with every score rounded to the nearest 32-bit float (and
    back to float64), as trec_eval 9.0.4 and earlier store scores; ``run`` itself for
    ``scores="float64"``. A score beyond the 32-bit range (about 3.4e38) is a
    :class:`ScoreError`, as it would become infinite. A LazyFrame is rounded (and checked)
    as part of its query."""
    check_scores(scores)
    if scores == "float64":
        return run
    if isinstance(run, pl.LazyFrame):
        return run.map_batches(_float32, schema=run.collect_schema())
    entry = _checked(run)
    if entry is None:
        return _float32(run)
    return _mark(_float32(run, entry.source), entry.layout, entry.source)


def _float32(frame: pl.DataFrame, source: str = INPUT) -> pl.DataFrame:
    rounded = pl.col(S.SCORE).cast(pl.Float32)
    bad = frame.filter(rounded.is_infinite())
    if bad.height:
        row = bad.row(0, named=True)
        run = f", run {row[S.RUN_ID]!r}" if S.RUN_ID in row else ""
        raise ScoreError(
            f"{where(row, source)}: score {row[S.SCORE]} of document {row[S.DOC_ID]!r} (query "
            f"{row[S.QUERY_ID]!r}{run}) is beyond the 32-bit float range (about 3.4e38), so it "
            "cannot be rounded to a 32-bit float as trec_eval 9.0.4 reads scores; evaluate "
            "with the scores as written (64-bit, the default)"
        )
    return frame.with_columns(float_score(rounded))


def float_score(score: pl.Expr) -> pl.Expr:
    """``score`` as float64 with ``-0.0`` stored as ``0.0``: C compares them equal, so they
    tie, and a tie is then broken by doc id the same way on every engine."""
    score = score.cast(pl.Float64)
    return pl.when(score == 0.0).then(0.0).otherwise(score).alias(S.SCORE)


def relevance_column(frame: pl.DataFrame | pl.LazyFrame, source: str) -> pl.Expr:
    """``relevance`` as Int64. Integer and boolean grades convert; float grades must be
    whole numbers in the 64-bit range (``1.0`` is 1; ``1.7``, NaN, infinities and
    ``1e30`` are :class:`RelevanceError`, naming the row), and so must unsigned ones
    (a UInt64 above 2**63 - 1). Values are checked on a DataFrame; a LazyFrame's only by
    type here (its values when it is collected, see :func:`polars_ireval.io.intake.intake_qrels`).
    """
    dtype = _schema(frame)[S.RELEVANCE]
    col = pl.col(S.RELEVANCE)
    if dtype.is_float():
        bad = ~col.is_finite() | (col != col.round(0)) | (col.abs() >= 2.0**63)
        what = "is not an integer"
    elif dtype == pl.UInt64:
        bad, what = col > _INT64_MAX, "is out of the 64-bit range (above 2**63 - 1)"
    elif dtype.is_integer() or dtype == pl.Boolean:
        return col.cast(pl.Int64)
    else:
        raise RelevanceError(
            f"{source}: column 'relevance' has type {dtype}; grades must be integers. "
            "Cast it, e.g. pl.col('relevance').cast(pl.Int64)"
        )
    if isinstance(frame, pl.DataFrame):
        found = frame.filter(col.is_not_null() & bad)
        if found.height:
            row = found.row(0, named=True)
            value = row[S.RELEVANCE]
            if dtype.is_float() and math.isfinite(value) and value == round(value):
                what = "is out of the 64-bit range"
            raise RelevanceError(
                f"{where(row, source)}: relevance {value} {what} (document "
                f"{row[S.DOC_ID]!r}, query {row[S.QUERY_ID]!r}); grades must be whole "
                "numbers such as 0, 1, 2 or -1"
            )
    return col.cast(pl.Int64)


_INT64_MAX = (1 << 63) - 1


def _schema(frame: pl.DataFrame | pl.LazyFrame) -> pl.Schema:
    return frame.collect_schema() if isinstance(frame, pl.LazyFrame) else frame.schema


def check_nulls(frame: pl.DataFrame, cols: Sequence[str], source: str, kind: str) -> None:
    """Raise on the first null of ``cols`` (in that order), naming its row (:func:`where`):
    :class:`ScoreError` for ``score``, :class:`RelevanceError` for ``relevance``,
    :class:`SchemaError` for another column."""
    for col in cols:
        if not frame.get_column(col).null_count():  # kept with the column: no pass
            continue
        bad = frame.filter(pl.col(col).is_null())
        if bad.height:
            row = bad.row(0, named=True)
            err = (
                ScoreError
                if col == S.SCORE
                else RelevanceError
                if col == S.RELEVANCE
                else SchemaError
            )
            raise err(f"{where(row, source)}: {kind} has a null {col}; every row needs one")


def check_duplicates(
    frame: pl.DataFrame,
    keys: Sequence[str],
    source: str,
    kind: str,
    *,
    new: pl.Series | None = None,
) -> None:
    """Raise :class:`DuplicateError` when two rows of ``frame`` have the same ``keys``,
    naming the first two places (:func:`where`) and how to keep one row.

    ``new`` (from :func:`rankings`) marks the rows that start a ranking when each ranking
    is one block of rows; a duplicate then lies within a block, which is quicker to check.
    """
    # Fast screen: counts of distinct 64-bit hashes. When ``new`` marks the first rows of
    # blocks that hold every row of equal leading keys (each ranking contiguous) and the
    # blocks are small, count the distinct hashes of the last key per block (numbered in
    # ascending order: a group-by of contiguous slices; integers hash faster than
    # strings). Otherwise count the distinct hashes of the key columns (or of the block
    # number and the last key). Equal counts prove there is no duplicate; else (a
    # duplicate, or a rare hash collision) check exactly.
    block = pl.col("new").cum_sum().cast(pl.UInt64)  # with ``new`` as a column "new"
    if new is not None and frame.height <= _SMALL_BLOCKS * new.sum():
        distinct = (
            pl.DataFrame({"new": new, "key": frame.get_column(keys[-1])})
            .lazy()
            .select(block.set_sorted().alias("block"), pl.col("key").hash())
            .group_by("block")
            .agg(pl.col("key").n_unique())
            .select(pl.col("key").sum())
        )
        if collect(distinct, frame).item() == frame.height:
            return
    else:
        if new is None:
            parts = [pl.col(k).hash(i) for i, k in enumerate(keys)]
        else:
            parts = [pl.col(keys[-1]).hash(0), block * 0x9E3779B97F4A7C15]
        hashed = pl.reduce(lambda a, b: a ^ b, parts)
        source_frame = frame if new is None else frame.with_columns(new.alias("new"))
        if source_frame.select(hashed.n_unique()).item() == frame.height:
            return
    dup = frame.filter(pl.struct(keys).is_duplicated())
    if dup.height == 0:
        return
    first = dup.row(0, named=True)
    same = dup.filter(*[pl.col(k) == first[k] for k in keys])
    places = ", ".join(where(r, source) for r in same.head(2).iter_rows(named=True))
    what = ", ".join(f"{k}={first[k]!r}" for k in keys)
    raise DuplicateError(
        f"{source}: the {kind} lists ({what}) {same.height} times ({places}); trec_eval rejects "
        f"this too. Keep one row per document, e.g. frame.unique({list(keys)!r}, keep='first')"
    )


def where(row: Mapping[str, Any], source: str) -> str:
    """Where ``row`` comes from, for an error message: ``file:line`` when the reader kept
    the locator columns :data:`LINE` and :data:`FILE`, the file alone when it kept only
    :data:`FILE` (a Parquet or Arrow file among several), else ``source``.

    Examples
    --------
    >>> where({LINE: 3, FILE: "run.txt"}, "2 run files"), where({}, "<input>")
    ('run.txt:3', '<input>')
    >>> where({LINE: None, FILE: "b.parquet"}, "2 run files")
    'b.parquet'
    """
    if row.get(LINE) is not None:
        return f"{row.get(FILE) or source}:{row[LINE]}"
    return row.get(FILE) or source


def _extra(frame: pl.DataFrame, used: Sequence[str]) -> list[str]:
    """Columns the caller brought besides the canonical ones (kept, but not the locators)."""
    return [c for c in frame.columns if c not in used and c not in (LINE, FILE)]
