"""TREC text runs and qrels: the fast reader, the general reader, and a run's tag.

* The **fast reader** (:func:`read_simple_runs`, :func:`parse_simple_runs`): files whose
  every line is the fields separated by single spaces (what TREC tools write), or by
  single tabs in text without spaces, plain or gzip, read by Polars' parallel CSV reader,
  several run files in one scan. It keeps no line numbers, and gives up (None) on any
  other shape.
* The **general reader** (:func:`read_run_text`, :func:`read_qrels_text` without the fast
  path): every line split by a regex on any run of whitespace, as trec_eval splits it;
  blank and ``#`` lines skipped, a UTF-8 byte-order mark dropped, lines broken by LF,
  CRLF or CR alone, and each row keeps its line and file (:data:`LINE`, :data:`FILE`), so
  that an error names them. Both read what trec_eval reads, the same way.
* :func:`run_tag`: the tag of a run file's first line (trec_eval's ``runid``).

The lines themselves (scanning, their length, NUL bytes, gzip) are
:mod:`polars_ireval.io.lines`'; which reader reads a file is
:mod:`polars_ireval.io.readers`' choice.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval.errors import FormatError, LineLengthError, RelevanceError
from polars_ireval.io.lines import (
    check_line_length,
    extract_fields,
    gunzip,
    is_data_line,
    quoted,
    scan_lines,
)
from polars_ireval.io.tables import PathLike, RunIdPolicy, file_run_id, is_text_run
from polars_ireval.io.validation import FILE, INPUT_RANK, LINE

__all__ = [
    "Ends",
    "parse_simple_runs",
    "read_qrels_text",
    "read_run_text",
    "read_simple_runs",
    "run_tag",
    "simple_separator",
]

_WS = r"[ \t]+"
_FIELD = r"([^ \t\r]+)"
_SKIP = r"[^ \t\r]+"
# qid Q0 docno rank score tag [anything]; the second column is any token (trec_eval ignores it)
_RUN_RX = rf"^[ \t]*{_FIELD}{_WS}{_SKIP}{_WS}{_FIELD}{_WS}{_FIELD}{_WS}{_FIELD}{_WS}{_FIELD}"
# qid iter docno rel, exactly four fields
_QRELS_RX = rf"^[ \t]*{_FIELD}{_WS}{_SKIP}{_WS}{_FIELD}{_WS}{_FIELD}[ \t\r]*$"


#: The (tag, query) of the first and of the last line of a run file.
Ends = tuple[tuple[str, str], tuple[str, str]]


def run_tag(path: PathLike) -> str | None:
    """Return the tag (sixth column) of the first data line of a TREC run file.

    trec_eval prints this as ``runid``. Returns ``None`` for non-text formats.

    Examples
    --------
    >>> import polars_ireval as ir
    >>> ir.run_tag(ir.example_path("runs/bm25.run"))
    'bm25'
    """
    path = str(path)
    if not is_text_run(path):
        return None
    lines = scan_lines(path).filter(is_data_line()).head(1).collect()
    if lines.height == 0:
        return None
    fields = lines[S.LINE_TEXT][0].split()
    return fields[5] if len(fields) >= 6 else None


def read_run_text(
    path: str, policy: RunIdPolicy, *, fast: bool, ranks: bool = False
) -> pl.DataFrame:
    """The TREC run file ``path``: by the fast reader when ``fast`` and it can, else by the
    general reader, whose rows keep their :data:`LINE` and :data:`FILE`. ``policy``: the
    ``run_id`` column (``"tag"``, ``"file"``; none otherwise); ``ranks``: the fourth field
    as ``input_rank``. A malformed line is a :class:`FormatError` naming it."""
    if fast:
        simple = _read_simple_run(path, policy, ranks)
        if simple is not None:
            return simple
    try:
        fields = extract_fields(path, _RUN_RX, [S.QUERY_ID, S.DOC_ID, "__rank", "__score", "__tag"])
    except FormatError as e:
        if e.line is None or isinstance(e, LineLengthError):  # not about its fields
            raise
        raise FormatError(
            path,
            e.line,
            f"{e.args[0].split(': ', 1)[1]}: expected six whitespace-separated "
            "fields 'query_id Q0 doc_id rank score tag'",
        ) from None
    score = _field(
        fields, "__score", pl.Float64, path, "score", "is not a number; the fifth field must "
        "be a decimal number such as 12.5 or -1.3e-2",
    )  # fmt: skip
    cols = [S.QUERY_ID, S.DOC_ID, score.alias(S.SCORE), LINE, pl.lit(path).alias(FILE)]
    if ranks:
        rank = _field(
            fields, "__rank", pl.Int64, path, "rank", "is not an integer; the fourth field must "
            "be a whole number such as 3 (or read the run without ranks=True: trec_eval "
            "ignores the field)",
        )  # fmt: skip
        cols.append(rank.alias(INPUT_RANK))
    if policy == "tag":
        cols.insert(0, pl.col("__tag").alias(S.RUN_ID))
    elif policy == "file":
        cols.insert(0, pl.lit(file_run_id(path)).alias(S.RUN_ID))
    return fields.select(cols)


def _field(
    fields: pl.DataFrame, column: str, dtype: type[pl.DataType], path: str, what: str, why: str
) -> pl.Expr:
    """``column`` of a run read by the general reader, cast to ``dtype``; a
    :class:`FormatError` naming the first line whose field is not one (``what``, ``why``)."""
    value = pl.col(column).cast(dtype, strict=False)
    bad = fields.filter(value.is_null())
    if bad.height:
        row = bad.row(0, named=True)
        raise FormatError(
            path, row[LINE], f"{what} {quoted(row[column])} of document {row[S.DOC_ID]!r} {why}"
        )
    return value


_SIMPLE_RUN = {
    S.QUERY_ID: pl.String,
    "__q0": pl.String,
    S.DOC_ID: pl.String,
    "__rank": pl.String,
    S.SCORE: pl.Float64,
    "__tag": pl.String,
}


def _read_simple_run(path: str, policy: RunIdPolicy, ranks: bool = False) -> pl.DataFrame | None:
    """One run read as :func:`read_simple_runs` reads several."""
    found = read_simple_runs([path], policy, ranks=ranks)
    return None if found is None else found[0]


def read_simple_runs(
    paths: list[str], policy: RunIdPolicy, *, ranks: bool = False
) -> tuple[pl.DataFrame, list[Ends]] | None:
    """Runs whose every line is six fields separated by single spaces, the shape TREC
    tools write (or by single tabs, in text without spaces), plain or gzip, read in one
    scan of all the files with Polars' parallel CSV reader (in their order); and the (tag,
    query) of each file's first and last line. None when a file needs the general reader
    (tabs beside spaces, carriage returns, other widths of space, comments, blank or
    malformed lines, an empty file, zstd) or the files differ in their separator: the
    general reader reads those the same way, and says where a malformed line is or which
    file is empty.
    """
    if not paths:
        return None
    workers = min(len(paths), os.cpu_count() or 1)
    if workers > 1:  # gzip files decompress in parallel (zlib releases the GIL)
        with ThreadPoolExecutor(workers) as pool:
            found = list(pool.map(_simple_source, paths))
    else:
        found = [_simple_source(p) for p in paths]
    if any(f is None for f in found):
        return None
    sources = [f[0] for f in found if f is not None]
    ends = [f[1] for f in found if f is not None]
    separators = {f[2] for f in found if f is not None}
    if len(separators) > 1:  # tab- and space-separated files: the general reader
        return None
    frame = parse_simple_runs(sources, paths, policy, separators.pop().decode(), ranks=ranks)
    return None if frame is None else (frame, ends)


def parse_simple_runs(
    sources: Sequence[str | bytes],
    paths: Sequence[str],
    policy: RunIdPolicy,
    separator: str = " ",
    *,
    ranks: bool = False,
) -> pl.DataFrame | None:
    """The runs ``sources`` (each a plain file's path or run text) read as
    :func:`read_simple_runs` reads them, ``paths`` naming them (for ``policy="file"``),
    with each line's rank as ``input_rank`` when ``ranks``; None when a line is not six
    fields separated by single ``separator`` (a space or a tab), a rank is not an integer
    (``ranks``), or there is no line.

    Examples
    --------
    >>> parse_simple_runs([b"1 Q0 d1 1 2.5 bm25\\n"], ["bm25.run"], "tag").rows()
    [('bm25', '1', 'd1', 2.5)]
    >>> parse_simple_runs([b"1\\tQ0\\td1\\t1\\t2.5\\tbm25\\n"], ["bm25.run"], "tag", "\\t").rows()
    [('bm25', '1', 'd1', 2.5)]
    """
    options: dict[str, Any] = {
        "separator": separator, "has_header": False, "quote_char": None, "schema": _SIMPLE_RUN
    }  # fmt: skip
    cols: list[pl.Expr] = [pl.col(S.QUERY_ID), pl.col(S.DOC_ID), pl.col(S.SCORE)]
    if ranks:  # a rank that is not an integer reads as null: the general reader names it
        cols.append(pl.col("__rank").cast(pl.Int64, strict=False).alias(INPUT_RANK))
    if policy == "tag":
        cols.insert(0, pl.col("__tag").alias(S.RUN_ID))
    elif policy == "file":
        cols.insert(0, pl.col(S.RUN_ID))
    plain = [s for s in sources if isinstance(s, str)]
    if len(plain) == len(sources):  # the files themselves, named by the scan (policy "file")
        by_path = policy == "file"
        scan = pl.scan_csv(plain, include_file_paths=FILE if by_path else None, **options)
        if by_path:
            stems = pl.col(FILE).replace_strict(paths, [file_run_id(p) for p in paths])
            scan = scan.with_columns(stems.alias(S.RUN_ID))
    else:  # decompressed text in memory, with each plain file's bytes
        texts = [s if isinstance(s, bytes) else Path(s).read_bytes() for s in sources]
        if policy == "file":  # one scan a file, each named after it, run together
            scan = pl.concat(
                pl.scan_csv(text, **options).with_columns(pl.lit(file_run_id(path)).alias(S.RUN_ID))
                for text, path in zip(texts, paths, strict=True)
            )
        else:
            scan = pl.scan_csv(texts, **options)
    # a field left empty (two spaces in a row, a missing field) reads as null
    gap = pl.any_horizontal(pl.col("__q0", "__rank", "__tag").is_null())
    try:
        frame = scan.select(*cols, gap.alias("__gap")).collect()
    except pl.exceptions.PolarsError:  # a line with more than six fields, a bad score...
        return None
    rejected = (
        frame.lazy()  # lazy: in parallel
        .select(
            pl.any_horizontal(
                pl.col("__gap").any(),
                pl.sum_horizontal(pl.all().null_count()) > 0,
                pl.col(S.QUERY_ID).str.starts_with("#").any(),
            )
        )
        .collect()
        .item()
    )
    if rejected or frame.height == 0:
        return None
    return frame.drop("__gap")


def _simple_source(path: str, fields: int = 6) -> tuple[str | bytes, Ends, bytes] | None:
    """What :func:`read_simple_runs` scans of one run file: the path (a plain file) or
    its decompressed text (gzip), the (tag, query) of its first and last line, and the
    separator of its fields (:func:`simple_separator`); None when the file needs the
    general reader (empty, zstd, carriage returns, tabs beside spaces, a first or last line
    without six fields). ``fields=4``: a qrels file (the ends are then ``(iteration,
    query)``)."""
    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:
            return None
        if f.read(2) != b"\x1f\x8b":  # plain text: its lines measured before it is mapped
            check_line_length(path)
        # mapped, not read: each search runs over the OS cache's pages, with no copy
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            if mapped[:4] == b"\x28\xb5\x2f\xfd":  # zstd
                return None
            text = gunzip(path, mapped) if mapped[:2] == b"\x1f\x8b" else None
            data = mapped if text is None else text
            if text is not None:
                check_line_length(path, text)
            sep = simple_separator(data)
            if sep is None:
                return None
            ends = _first_last_keys(data, fields, sep)
    if ends is None:
        return None
    return (path if text is None else text), ends, sep


def simple_separator(data: bytes | mmap.mmap) -> bytes | None:
    """The one character that separates the fields of run or qrels text the fast readers
    take: a space (what TREC tools write), or a tab in text without spaces (many TREC
    runs are tab-separated); None for text with carriage returns, or with both tabs and
    spaces (trec_eval splits on any run of whitespace: the general reader does), or with
    a NUL byte (not text: the general reader says where)."""
    if data.find(b"\r") >= 0 or data.find(b"\x00") >= 0:
        return None
    if data.find(b"\t") < 0:
        return b" "
    return None if data.find(b" ") >= 0 else b"\t"


_SIMPLE_QRELS = {
    S.QUERY_ID: pl.String,
    "__iter": pl.String,
    S.DOC_ID: pl.String,
    "__rel": pl.String,
}


def _read_simple_qrels(path: str) -> pl.DataFrame | None:
    """Qrels whose every line is four fields separated by single spaces with an integer
    grade (what TREC tools write; or by single tabs, in text without spaces), plain or
    gzip, read by Polars' parallel CSV reader;
    None when the file needs the general reader (the same conditions as for runs, see
    :func:`_simple_source`, and grades such as ``2.0``), which reads it the same way and
    says where a malformed line is."""
    found = _simple_source(path, fields=4)
    if found is None:
        return None
    options: dict[str, Any] = {
        "separator": found[2].decode(), "has_header": False, "quote_char": None,
        "schema": _SIMPLE_QRELS,
    }  # fmt: skip
    rel = pl.col("__rel").cast(pl.Int64, strict=False)
    try:
        frame = (
            pl.scan_csv(found[0], **options)
            .select(S.QUERY_ID, S.DOC_ID, rel.alias(S.RELEVANCE), pl.col("__iter"))
            .collect()
        )
    except pl.exceptions.PolarsError:  # a line with more than four fields...
        return None
    rejected = frame.select(
        pl.any_horizontal(
            pl.sum_horizontal(pl.all().null_count()) > 0,
            pl.col(S.QUERY_ID).str.starts_with("#").any(),
        )
    ).item()
    if rejected or frame.height == 0:
        return None
    return frame.drop("__iter")


def read_qrels_text(path: str, *, fast: bool = True) -> pl.DataFrame:
    """The TREC qrels file ``path``: by the fast reader when ``fast`` and it can, else by the
    general reader, whose rows keep their :data:`LINE` and :data:`FILE`. A malformed line
    is a :class:`FormatError`, a grade that is not an integer a :class:`RelevanceError`,
    each naming the line."""
    simple = _read_simple_qrels(path) if fast else None
    if simple is not None:
        return simple
    try:
        fields = extract_fields(path, _QRELS_RX, [S.QUERY_ID, S.DOC_ID, "__rel"])
    except FormatError as e:
        if e.line is None or isinstance(e, LineLengthError):  # not about its fields
            raise
        raise FormatError(
            path,
            e.line,
            f"{e.args[0].split(': ', 1)[1]}: expected four whitespace-separated "
            "fields 'query_id iteration doc_id relevance'",
        ) from None
    # "2.0" is the grade 2, as a float column's 2.0 is (and as trec_eval's atol reads it)
    rel = pl.col("__rel").str.replace(r"^([+-]?[0-9]+)\.0*$", "$1").cast(pl.Int64, strict=False)
    bad = fields.filter(rel.is_null())
    if bad.height:
        row = bad.row(0, named=True)
        digits = row["__rel"].lstrip("+-").isascii() and row["__rel"].lstrip("+-").isdigit()
        what = "is out of the 64-bit range" if digits else "is not an integer"
        raise RelevanceError(
            f"{path}:{row[LINE]}: relevance {quoted(row['__rel'])} of document {row[S.DOC_ID]!r} "
            f"{what}; grades must be whole numbers such as 0, 1, 2 or -1"
        )
    return fields.select(
        S.QUERY_ID, S.DOC_ID, rel.alias(S.RELEVANCE), LINE, pl.lit(path).alias(FILE)
    )


def _first_last_keys(data: bytes | mmap.mmap, width: int = 6, sep: bytes = b" ") -> Ends | None:
    """(tag, query) of the first and the last line of run text whose fields are
    separated by single ``sep`` (blank lines at either end skipped); None when either line
    has fewer than six fields (``width``: four for qrels, whose last field is taken)."""
    start, stop = 0, len(data)
    blank = b"\n" + sep
    while start < stop and data[start : start + 1] in blank:
        start += 1
    while stop > start and data[stop - 1 : stop] in blank:
        stop -= 1
    if data[start : start + 3] == b"\xef\xbb\xbf":  # a UTF-8 BOM, which the readers drop
        start += 3
    first_end = data.find(b"\n", start, stop)
    first = data[start : stop if first_end < 0 else first_end]
    last = data[data.rfind(b"\n", start, stop) + 1 : stop]
    keys = []
    for line in (first, last):
        fields = line.decode("utf-8", "replace").split(sep.decode())
        if len(fields) < width:
            return None
        keys.append((fields[width - 1], fields[0]))
    return keys[0], keys[1]
