"""Pool files: the documents to judge, written for the assessors and read back.

A pool is the frame :func:`polars_ireval.pool` returns, ``query_id, doc_id, order, weight``
(:data:`POOL_COLUMNS`). :func:`write_pool` writes it as TREC's run layout (one document a
line, in judging order: ``query_id Q0 doc_id order weight tag``) or, by the path's
extension, as Parquet, CSV, TSV or JSON lines; :func:`read_pool` reads either back, and
both refuse, naming the row or line, what the other could not read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval.errors import (
    DuplicateError,
    EmptyInputError,
    FormatError,
    ParameterError,
    SchemaError,
    ScoreError,
)

__all__ = [
    "ORDER",
    "POOL_COLUMNS",
    "WEIGHT",
    "check_pool_tag",
    "pool_text",
    "read_pool",
    "write_pool",
]

#: A document's position in the judging order (1 is judged first).
ORDER = "order"
#: A document's weight under the pooling method when it was chosen.
WEIGHT = "weight"
#: The columns of a pool (what :func:`polars_ireval.pool` returns), in order.
POOL_COLUMNS: tuple[str, ...] = (S.QUERY_ID, S.DOC_ID, ORDER, WEIGHT)


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
    :class:`EmptyInputError`.

    Examples
    --------
    >>> import os, tempfile, polars_ireval as ir
    >>> runs = ir.read_run(ir.example_path("runs"), run_id="file")
    >>> path = os.path.join(tempfile.mkdtemp(), "to_judge.txt")
    >>> ir.write_pool(ir.pool(runs, method="depth", depth=1), path, tag="depth1")
    >>> ir.read_pool(path).columns
    ['query_id', 'doc_id', 'order', 'weight']

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
