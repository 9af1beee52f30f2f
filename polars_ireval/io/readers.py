"""Readers for runs and qrels: TREC text (plain or gzip), Parquet, Arrow IPC, frames and dicts.

Every reader returns a Polars frame with the library's column names:

* run: ``[run_id,] query_id, doc_id, score`` (``String, String, String, Float64``)
* qrels: ``query_id, doc_id, relevance`` (``String, String, Int64``)

Reading is an explicit boundary: the readers collect, and they validate what they read,
raising an error that names the file and line (malformed line, NaN score, duplicate
document, non-integer grade, empty file) instead of dropping anything.
"""

from __future__ import annotations

import glob
import gzip
import itertools
import mmap
import numbers
import os
import zlib
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval._base.resources import parse_size
from polars_ireval.errors import (
    DuplicateError,
    EmptyInputError,
    FormatError,
    IrevalError,
    LineLengthError,
    ParameterError,
    RelevanceError,
    SchemaError,
)
from polars_ireval.io.validation import (
    FILE,
    INPUT,
    INPUT_RANK,
    LINE,
    SCORES,
    Layout,
    Scores,
    canonical_columns,
    check_scores,
    float32_scores,
    float_score,
    is_validated,
    narrowed,
    new_ranking,
    rankings,
    rename_aliases,
    validate_qrels,
    validate_run,
)

# The checks of frames live in polars_ireval.io.validation; these names stay importable from here.
__all__ = [
    "INPUT",
    "INPUT_RANK",
    "MAX_LINE_BYTES",
    "MAX_LINE_VAR",
    "SCORES",
    "Layout",
    "PathLike",
    "RunIdPolicy",
    "RunSource",
    "Scores",
    "check_line_length",
    "check_rankings_apart",
    "check_scores",
    "expand_paths",
    "file_run_id",
    "float32_scores",
    "float_score",
    "frame_from_object",
    "is_text_run",
    "is_validated",
    "max_line_bytes",
    "narrowed",
    "new_ranking",
    "parse_simple_runs",
    "paths_label",
    "rankings",
    "read_fields",
    "read_qrels",
    "read_run",
    "run_tag",
    "validate_qrels",
    "validate_run",
]

PathLike = str | os.PathLike
RunSource = Any
RunIdPolicy = Literal["auto", "tag", "file", "none"]

_WS = r"[ \t]+"
_FIELD = r"([^ \t\r]+)"
_SKIP = r"[^ \t\r]+"
# qid Q0 docno rank score tag [anything]; the second column is any token (trec_eval ignores it)
_RUN_RX = rf"^[ \t]*{_FIELD}{_WS}{_SKIP}{_WS}{_FIELD}{_WS}{_FIELD}{_WS}{_FIELD}{_WS}{_FIELD}"
# qid iter docno rel, exactly four fields
_QRELS_RX = rf"^[ \t]*{_FIELD}{_WS}{_SKIP}{_WS}{_FIELD}{_WS}{_FIELD}[ \t\r]*$"

_CR = "__cr"

# --------------------------------------------------------------------------- public API


def read_run(
    source: RunSource,
    *,
    run_id: RunIdPolicy = "auto",
    scores: Scores = "float64",
    ranks: bool = False,
) -> pl.DataFrame:
    """Read one or many runs into a validated frame.

    Parameters
    ----------
    source
        A path (TREC text ``qid Q0 docno rank score tag``, optionally ``.gz``; ``.parquet``;
        ``.arrow``/``.ipc``/``.feather``), a glob pattern, a directory, a list of those, a
        Polars/pandas frame, a pyarrow table, or a pytrec_eval-style dict
        ``{query_id: {doc_id: score}}`` (keys strings, or integers read as their decimal
        text). Several files are read each as it would be alone (integer ids of a Parquet
        file as their text) and concatenated.
    run_id
        Where the ``run_id`` column comes from. ``"auto"`` (default): none for a single
        TREC text file (a Parquet or Arrow file keeps its own ``run_id`` column), the
        tag column (TREC text, as trec_eval's ``runid``) or the file name
        (other formats) for several. ``"tag"``: the TREC tag column. ``"file"``: the file
        name without extensions. ``"none"``: no ``run_id`` column (all lines form one run;
        a query ranked in two of several files is a :class:`DuplicateError`).
        A frame that already has a ``run_id`` column keeps it. Text files that share a
        tag form one run when each query's ranking lies in one file (a run written in
        parts); a ranking with lines in two files raises :class:`DuplicateError` naming
        them (two runs with one tag, e.g. a tool's default: pass ``run_id="file"``).
    scores
        ``"float64"`` (default): scores as written. ``"float32"``: each score rounded to
        the nearest 32-bit float, as trec_eval 9.x (and pytrec_eval) read
        them, so that scores equal to about seven significant digits tie; to reproduce
        results those tools computed (see :func:`polars_ireval.evaluate`'s ``scores``).
    ranks
        Keep a TREC text file's fourth field, the run's own rank, as an ``input_rank``
        column (Int64), which ``ties="rank"`` orders by (trec_eval ignores it; default
        False). A rank that is not an integer is then a :class:`FormatError` naming the
        line. A frame's or table's ``rank`` (or ``input_rank``) column is kept whatever
        ``ranks`` says.

    Returns
    -------
    polars.DataFrame
        ``[run_id,] query_id, doc_id, score`` (and ``input_rank`` with ``ranks``).
        Whitespace of any width separates fields, lines starting with ``#`` and blank
        lines are skipped, fields after the sixth are ignored, scores are parsed as
        float64.

    Raises
    ------
    FormatError
        A line does not have six fields or its score is not a number (file and line named).
    ScoreError
        A score is NaN or infinite.
    DuplicateError
        A document appears twice for one query of one run, or one ranking (run tag,
        query) has lines in two of several text files.
    EmptyInputError
        The input holds no data line.
    LineLengthError
        A :class:`FormatError` for a line longer than 1 MiB (``IREVAL_MAX_LINE_BYTES``
        raises the limit), found before the line is read.

    Examples
    --------
    >>> import polars_ireval as ir
    >>> run = ir.read_run(ir.example_path("runs/bm25.run"))
    >>> run.columns
    ['query_id', 'doc_id', 'score']
    """
    check_scores(scores)
    check_run_id_policy(run_id)
    if not isinstance(ranks, bool):
        raise ParameterError(f"ranks={ranks!r}: must be True or False")
    return float32_scores(_read_run(source, run_id, ranks), scores)


RUN_ID_POLICIES: tuple[str, ...] = ("auto", "tag", "file", "none")


def check_run_id_policy(run_id: Any) -> None:
    """Raise :class:`ParameterError` unless ``run_id`` is one of :data:`RUN_ID_POLICIES`
    (a misspelt policy would leave the runs without a ``run_id`` and merge them)."""
    if not isinstance(run_id, str) or run_id not in RUN_ID_POLICIES:
        raise ParameterError(
            f"run_id={run_id!r}: must be one of {', '.join(map(repr, RUN_ID_POLICIES))}"
        )


def _check_stems(paths: list[str]) -> None:
    """Raise :class:`DuplicateError` when two of ``paths`` would name the same run by their
    file name (``run_id="file"``): read together, their rankings would merge."""
    seen: dict[str, str] = {}
    for p in paths:
        stem = _stem(p)
        if stem in seen:
            raise DuplicateError(
                f"{seen[stem]} and {p} would both be run {stem!r} (run_id='file' names a run "
                "after its file name): rename one of them, or read them apart"
            )
        seen[stem] = p


def check_rankings_apart(
    paths: Sequence[str], frames: Sequence[pl.DataFrame | pl.LazyFrame]
) -> None:
    """Raise :class:`DuplicateError` when one ranking ([run id,] query) has rows in two of
    the files ``paths`` (read or scanned into ``frames``, in order), whatever their
    formats: read together, its rows would form one ranking."""
    names = [f.collect_schema().names() for f in frames]
    keys = [k for k in (S.RUN_ID, S.QUERY_ID) if all(k in n for n in names)]
    if S.QUERY_ID not in keys:
        return  # a frame without a query column: validation names it
    parts = [
        f.lazy()
        .select(pl.col(k).cast(pl.String) for k in keys)
        .unique()
        .with_columns(pl.lit(i, dtype=pl.UInt32).alias("__file_no"))
        for i, f in enumerate(frames)
    ]
    lazy = any(isinstance(f, pl.LazyFrame) for f in frames)  # files scanned: streaming
    found = _first_in_two_files(pl.concat(parts), keys, "streaming" if lazy else "auto")
    if found.height:
        row = found.row(0, named=True)
        raise _split_ranking(paths[row["first"]], paths[row["last"]], row)


def _read_run(source: RunSource, run_id: RunIdPolicy, ranks: bool = False) -> pl.DataFrame:
    paths = expand_paths(source)
    if paths is None:
        return validate_run(frame_from_object(source, kind="run"), INPUT)
    several = len(paths) > 1
    # "auto" on one file: a TREC text file gets no run_id, a table keeps the one it has
    policy = run_id if run_id != "auto" or not several else "tag"
    label = paths_label(paths, "run files")
    if several and policy == "file":
        _check_stems(paths)
    text = [p for p in paths if _format(p) == "trec"]
    together_ok = several and len(text) == len(paths)  # every file text: one scan
    simple = _read_simple_runs(text, policy, ranks=ranks) if together_ok else None
    together, ends = simple if simple is not None else (None, None)
    if together is not None:  # every file in one parallel scan
        frames = [together]
    else:
        frames = [_read_run_path(p, policy, several, fast=True, ranks=ranks) for p in paths]
        for path, frame in zip(paths, frames, strict=True):
            if several and frame.height == 0:  # one run of several would vanish
                raise EmptyInputError(
                    f"{path}: the run holds no ranking line; check the file, or leave it out"
                )
    # several TREC files whose lines are grouped by tag, or read in one scan as one run: one
    # ranking must not span two files (found from the order of the lines)
    by_tag = several and policy == "tag" and len(text) == len(paths)
    in_order = by_tag or (together is not None and policy == "none")
    keys = [S.RUN_ID, S.QUERY_ID] if by_tag else [S.QUERY_ID]
    if several and not by_tag and together is None:  # other formats: the same, file by file
        check_rankings_apart(paths, frames)
    heights = None if together is not None else [f.height for f in frames]
    try:
        out = validate_run(_concat(frames), label)
    except IrevalError as exc:
        if in_order and isinstance(exc, DuplicateError):  # the likelier cause, and its fix
            _check_rankings_in_one_file(paths, _concat(frames), heights, ends, keys)
        if together is None and _located(paths, frames):
            raise
    else:
        if in_order:
            _check_rankings_in_one_file(paths, out, heights, ends, keys)
        return out
    # the fast text reader keeps no line numbers, nor a table file among several its name:
    # read again to say where the error is
    frames = [_read_run_path(p, policy, several, fast=False, ranks=ranks) for p in paths]
    return validate_run(_concat(frames), label)


def _located(paths: list[str], frames: list[pl.DataFrame]) -> bool:
    """True when each row of ``frames`` (read from ``paths``) says where it comes from, for
    an error: the line of a text file (the general reader), the name of a Parquet or
    Arrow file among several (read with ``fast=False``)."""
    several = len(paths) > 1
    return all(
        LINE in f.columns if _format(p) == "trec" else not several or FILE in f.columns
        for p, f in zip(paths, frames, strict=True)
    )


def _check_rankings_in_one_file(
    paths: list[str],
    frame: pl.DataFrame,
    heights: list[int] | None,
    ends: list[_Ends] | None,
    keys: list[str],
) -> None:
    """Raise :class:`DuplicateError` when the lines of one ranking (``keys``: run tag and
    query, or the query of files read as one run) come from two of the run files ``paths``
    (read in order into ``frame``; ``heights``: the number of rows each gave, or ``ends``:
    the (tag, query) of each one's first and last line): two runs with one tag (tools
    write default tags), or two runs read as one, whose rankings would otherwise merge."""
    _, new = rankings(frame, keys)
    picked = slice(2 - len(keys), 2)  # of an end (tag, query): the keys
    spans: tuple[int, tuple[str, ...]] | None = None  # (i, key values): spans files i, i + 1
    if new is not None and heights is None:
        # each ranking contiguous (and the files read in one scan): a ranking can only
        # continue across a file boundary, from one file's last line to the next's first
        assert ends is not None
        for i in range(len(paths) - 1):
            if ends[i][1][picked] == ends[i + 1][0][picked]:
                spans = (i, tuple(ends[i][1][picked]))
                break
    elif new is not None:
        assert heights is not None
        starts = list(itertools.accumulate(heights[:-1]))  # each later file's first row
        for i, start in enumerate(starts):
            if start < frame.height and not new[start]:
                spans = (i, frame.select(keys).row(start))
                break
    else:  # rankings interleave: number each row by its file
        # (rare: the one-scan reader gives no file boundaries; reading file by file does)
        counts = heights or [_read_run_path(p, "tag", True, fast=True).height for p in paths]
        number = pl.int_range(len(paths), dtype=pl.UInt32).repeat_by(pl.Series(counts)).explode()
        found = _first_in_two_files(frame.lazy().select(*keys, number.alias("__file_no")), keys)
        if found.height:
            row = found.row(0, named=True)
            raise _split_ranking(paths[row["first"]], paths[row["last"]], row)
    if spans is not None:
        i, values = spans
        raise _split_ranking(paths[i], paths[i + 1], dict(zip(keys, values, strict=True)))


def _first_in_two_files(
    numbered: pl.LazyFrame, keys: list[str], engine: Literal["auto", "streaming"] = "auto"
) -> pl.DataFrame:
    """Of rows ``keys`` numbered by their file (``__file_no``), the first ranking found in
    two files: ``keys, first, last`` (the two files' numbers), or no row."""
    file_no = pl.col("__file_no")
    return (
        numbered.group_by(keys)
        .agg(file_no.min().alias("first"), file_no.max().alias("last"))
        .filter(pl.col("first") != pl.col("last"))
        .sort("first", *keys)
        .head(1)
        .collect(engine=engine)
    )


def _split_ranking(first: str, second: str, key: Mapping[str, Any]) -> DuplicateError:
    """The error for one ranking (``key``: its query, and its run tag if it has one) in
    the two files ``first`` and ``second``."""
    query = key[S.QUERY_ID]
    if key.get(S.RUN_ID) is None:
        return DuplicateError(
            f"{first} and {second} both rank query {query!r}: read together, their rows "
            "would form one ranking. Pass run_id='file' to name each run after its file, "
            "or give the runs a run_id column"
        )
    return DuplicateError(
        f"{first} and {second} both rank query {query!r} under run tag {key[S.RUN_ID]!r}: "
        "read together, their lines would form one ranking. Pass run_id='file' to name each "
        "run after its file, or give the runs distinct tags (the sixth column)"
    )


def _gunzip(path: str, data: mmap.mmap) -> bytes:
    try:
        return gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as exc:
        raise _unreadable(path, exc) from None


def _unreadable(path: str, exc: Exception) -> FormatError:
    """The error for a file that cannot be read as lines of text, saying why."""
    with open(path, "rb") as f:
        compressed = f.read(2) == b"\x1f\x8b"
    if compressed:
        try:
            with open(path, "rb") as f:
                nul = _first_nul(gzip.decompress(f.read()))
        except (OSError, EOFError, zlib.error) as error:
            return FormatError(
                path, None, f"the file is not valid gzip ({error}); check the download or "
                "recompress it"
            )  # fmt: skip
    elif os.path.getsize(path) == 0:
        nul = None
    else:
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            nul = _first_nul(data)
    if nul is not None:
        return FormatError(
            path, None, f"the file holds NUL bytes, so it is not text (the first on line "
            f"{nul}; a corrupt text file, or a binary one); pass the TREC text file, "
            "written again if it is corrupt (or a Parquet or Arrow file, by its extension)"
        )  # fmt: skip
    if "utf-8" in str(exc).lower():
        return FormatError(
            path, None, f"the file is not UTF-8 text ({exc}); convert it, e.g. with "
            f"iconv -f latin1 -t utf-8 {path} > {path}.utf8"
        )  # fmt: skip
    return FormatError(path, None, f"the file cannot be read as lines of text ({exc})")


def _first_nul(data: bytes | mmap.mmap, block: int = 1 << 24) -> int | None:
    """The 1-based number of the line that holds the first NUL byte of ``data``, or None.

    >>> _first_nul(b"1 Q0 d1 1 2 t\\n1 Q0 d\\x002 2 1 t\\n"), _first_nul(b"text\\n")
    (2, None)
    """
    at = data.find(b"\x00")
    if at < 0:
        return None
    return 1 + sum(data[i : min(i + block, at)].count(b"\n") for i in range(0, at, block))


def _first_last_keys(data: bytes | mmap.mmap, width: int = 6, sep: bytes = b" ") -> _Ends | None:
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


def _concat(frames: list[pl.DataFrame]) -> pl.DataFrame:
    return pl.concat(frames, how="diagonal") if len(frames) > 1 else frames[0]


def read_qrels(source: RunSource) -> pl.DataFrame:
    """Read relevance judgments into a validated frame.

    Parameters
    ----------
    source
        A path (TREC qrels ``qid iter docno rel``, optionally ``.gz``; ``.parquet``;
        ``.arrow``), a list of paths (concatenated), a frame, a pyarrow table, or a
        pytrec_eval-style dict ``{query_id: {doc_id: grade}}``.

    Returns
    -------
    polars.DataFrame
        ``query_id, doc_id, relevance`` with integer grades (negative grades are kept:
        trec_eval treats them as judged but never relevant).

    Raises
    ------
    FormatError
        A line does not have exactly four fields (file and line named).
    RelevanceError
        A grade is not an integer.
    DuplicateError
        A document is judged twice for one query.
    EmptyInputError
        The input holds no judgment.
    LineLengthError
        A :class:`FormatError` for a line longer than 1 MiB (``IREVAL_MAX_LINE_BYTES``
        raises the limit), found before the line is read.

    Examples
    --------
    >>> import polars_ireval as ir
    >>> qrels = ir.read_qrels(ir.example_path("qrels.txt"))
    >>> qrels.schema["relevance"]
    Int64
    """
    paths = expand_paths(source)
    if paths is None:
        return validate_qrels(frame_from_object(source, kind="qrels"), INPUT)
    label = paths_label(paths, "qrels files")
    several = len(paths) > 1
    frames = [_read_qrels_path(p, several) for p in paths]
    for path, frame in zip(paths, frames, strict=True):
        if len(paths) > 1 and frame.height == 0:  # its judgments would vanish unnoticed
            raise EmptyInputError(
                f"{path}: the qrels hold no judgment; check the file, or leave it out"
            )
    try:
        return validate_qrels(_concat(frames), label)
    except IrevalError:
        if _located(paths, frames):
            raise
    # the fast text reader keeps no line numbers, nor a table file among several its name:
    # read again to say where the error is
    frames = [_read_qrels_path(p, several, fast=False) for p in paths]
    return validate_qrels(_concat(frames), label)


def run_tag(path: PathLike) -> str | None:
    """Return the tag (sixth column) of the first data line of a TREC run file.

    trec_eval prints this as ``runid``. Returns ``None`` for non-text formats.
    """
    path = str(path)
    if _format(path) != "trec":
        return None
    lines = _scan_lines(path).filter(_is_data_line()).head(1).collect()
    if lines.height == 0:
        return None
    fields = lines[S.LINE_TEXT][0].split()
    return fields[5] if len(fields) >= 6 else None


def paths_label(paths: Sequence[str], what: str = "files") -> str:
    """How errors name the input read from ``paths``: the file, or how many ``what``.

    >>> paths_label(["a.txt"]), paths_label(["a.txt", "b.txt"], "run files")
    ('a.txt', '2 run files')
    """
    return paths[0] if len(paths) == 1 else f"{len(paths)} {what}"


# --------------------------------------------------------------------------- text files


def _scan_lines(path: str, text: bytes | None = None) -> pl.LazyFrame:
    """Every physical line of a text file (plain or gzip) with its 1-based number; of
    ``text`` instead of the file's bytes when given. A line longer than
    :func:`max_line_bytes` is a :class:`FormatError` (:func:`check_line_length`)."""
    check_line_length(path, text)
    return pl.scan_csv(
        path if text is None else text,
        has_header=False,
        separator="\x00",
        quote_char=None,
        schema={S.LINE_TEXT: pl.String},
    ).with_row_index(LINE, offset=1)


#: The longest line the text readers take, in bytes (1 MiB), unless the environment
#: variable :data:`MAX_LINE_VAR` says otherwise: a TREC run or qrels line is a few dozen
#: bytes, and a file without line breaks would otherwise be read as one huge line (Polars
#: cannot allocate a string of a gigabyte: it panics).
MAX_LINE_BYTES = 2**20
MAX_LINE_VAR = "IREVAL_MAX_LINE_BYTES"
#: Bytes read at a time when a gzip file's lines are measured (decompressed).
_GZIP_BLOCK = 2**24
_BREAKS = (b"\n", b"\r")  # a carriage return alone ends a line too (old Mac files)
#: A long line is measured up to this many times the limit (its length "at least" past it).
_MEASURED = 16


def max_line_bytes() -> int:
    """The longest line the readers take: ``IREVAL_MAX_LINE_BYTES`` (bytes, or ``4M``...)
    when set, else :data:`MAX_LINE_BYTES`."""
    text = os.environ.get(MAX_LINE_VAR)
    return parse_size(text, MAX_LINE_VAR) if text and text.strip() else MAX_LINE_BYTES


def check_line_length(path: str, data: bytes | mmap.mmap | None = None) -> None:
    """Raise :class:`FormatError` naming the file and line when a line of the text file
    ``path`` is longer than :func:`max_line_bytes`; ``data``: its text, when already read
    (decompressed for gzip). Else the file is mapped (plain) or decompressed a block at a
    time (gzip), never held whole.

    No Python loop per line: the text is searched in blocks of half the limit for a line
    break (``find`` stops at the first, a few dozen bytes in); a block without one may lie
    in a long line, which is then measured. About 2,000 searches for a 500 MB file.

    >>> check_line_length("x.run", b"1 Q0 d1 1 2.5 t\\n" + b"x" * 3_000_000)
    Traceback (most recent call last):
    ...
    polars_ireval.errors.LineLengthError: x.run:2: the line is 3,000,000 bytes long, more ...
    """
    limit = max_line_bytes()
    if data is not None:
        found = _long_line(data, limit, whole=True)
        if found is not None:
            line, length = 1 + _breaks(data, found[0]), found[1] - found[0]
            exact = found[1] == len(data) or data[found[1] : found[1] + 1] in _BREAKS
            raise _too_long(path, line, length, limit, exact=exact)
        _passed(_file_key(path, limit))  # the general reader need not decompress it again
        return
    key = _file_key(path, limit)
    if key is not None and key in _PASSED:
        return
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        magic = f.read(2)
        if magic != b"\x1f\x8b":
            if size <= limit:
                return
            try:  # mapped: only the pages searched are read
                with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
                    check_line_length(path, mapped)
                return
            except OSError:  # no address space left to map it: a block at a time
                f.seek(0)
                _check_stream(path, iter(lambda: f.read(_GZIP_BLOCK), b""), limit)
                _passed(key)
                return
    try:
        with gzip.open(path, "rb") as gz:
            _check_stream(path, iter(lambda: gz.read(_GZIP_BLOCK), b""), limit)
    except (OSError, EOFError, zlib.error):  # not valid gzip: the reader says what is wrong
        return
    _passed(key)


#: The files (path, size, modification time, limit) whose lines were found short enough:
#: a gzip file the fast reader decompressed and checked, then read by the general reader,
#: is not decompressed again for the check.
_PASSED: set[tuple[str, int, int, int]] = set()


def _passed(key: tuple[str, int, int, int] | None) -> None:
    if key is not None:
        if len(_PASSED) > 4096:  # a long-lived process reading many files
            _PASSED.clear()
        _PASSED.add(key)


def _file_key(path: str, limit: int) -> tuple[str, int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:  # text that names no file
        return None
    return os.path.abspath(path), st.st_size, st.st_mtime_ns, limit


def _check_stream(path: str, blocks: Iterable[bytes], limit: int) -> None:
    """:func:`check_line_length` over text given a block at a time: each block is searched
    with the bytes of the line it continues (at most ``limit``) before it."""
    carry, line = b"", 1
    for block in blocks:
        buf = carry + block
        found = _long_line(buf, limit, whole=False)
        if found is not None:  # its length so far: the line may go on
            line += _breaks(buf, found[0])
            raise _too_long(path, line, found[1] - found[0], limit, exact=False)
        last = max(buf.rfind(b"\n"), buf.rfind(b"\r"))
        if last == len(buf) - 1 and buf.endswith(b"\r"):  # maybe a CR LF cut in two
            line += _breaks(buf, last)
            carry = b"\r"
        elif last >= 0:
            line += _breaks(buf, last + 1)
            carry = buf[last + 1 :]
        else:
            carry = buf


def _long_line(data: bytes | mmap.mmap, limit: int, *, whole: bool) -> tuple[int, int] | None:
    """The start and end of the first line of ``data`` longer than ``limit`` bytes (the
    end: where its line break is, or as far as ``data`` goes), or None. ``whole``: ``data``
    is all the text (else its last line may go on past it, and is left to the next
    block)."""
    n, step, pos = len(data), max(limit // 2, 1), 0
    while pos + step <= n:
        end = pos + step
        if any(data.find(b, pos, end) >= 0 for b in _BREAKS):
            pos = end
            continue
        # a block without a break: measure the line holding it
        start = 1 + max(data.rfind(b, max(pos - limit - 1, 0), pos) for b in _BREAKS)
        if start == 0 and pos > limit:  # no break within the limit before the block
            start = 1 + max(data.rfind(b, 0, pos) for b in _BREAKS)
            return start, _line_end(data, end, start + _MEASURED * limit)
        stop = min(start + limit + 1, n)
        ends = [e for e in (data.find(b, end, stop) for b in _BREAKS) if e >= 0]
        if ends:
            pos = min(ends) + 1
        elif start + limit < n:
            return start, _line_end(data, end, start + _MEASURED * limit)
        else:  # the line reaches the end of the data, within the limit
            return None
    return None


def _line_end(data: bytes | mmap.mmap, pos: int, stop: int) -> int:
    """Where the line holding ``pos`` ends, searched up to ``stop`` (else ``stop``)."""
    ends = [e for e in (data.find(b, pos, stop) for b in _BREAKS) if e >= 0]
    return min(ends) if ends else min(stop, len(data))


def _breaks(data: bytes | mmap.mmap, stop: int, block: int = 1 << 24) -> int:
    """The line breaks in ``data[:stop]``: LF, CR LF and CR alone each count once."""
    count, previous = 0, b""
    for i in range(0, stop, block):
        part = data[i : min(i + block, stop)]
        count += part.count(b"\n") + part.count(b"\r") - part.count(b"\r\n")
        if previous.endswith(b"\r") and part.startswith(b"\n"):
            count -= 1
        previous = part[-1:]
    return count


def _too_long(path: str, line: int, length: int, limit: int, *, exact: bool) -> FormatError:
    return LineLengthError(
        path,
        line,
        f"the line is {'' if exact else 'at least '}{length:,} bytes long, more than the "
        f"{limit:,} a line may have: a TREC "
        "run or qrels line is a few dozen bytes; check that this is the text file meant "
        "(not one without line breaks, nor binary data), or raise the limit: "
        f"{MAX_LINE_VAR}={max(2 * length, 2 * limit)}",
    )


def _lf_text(path: str) -> bytes:
    """The text of a file (gzip decompressed) with every line break made ``\\n``: old Mac
    files end their lines with a carriage return alone, which line readers do not take for
    a line break (their whole content would read as one line)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise _unreadable(path, exc) from None
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def _shown(line: str, limit: int = 200) -> str:
    """A line quoted for an error message, cut to its first ``limit`` characters."""
    if len(line) <= limit:
        return repr(line)
    return f"{line[:limit]!r}... ({len(line):,} characters)"


def _is_data_line() -> pl.Expr:
    text = pl.col(S.LINE_TEXT)
    stripped = text.str.strip_chars_start(" \t")
    return text.is_not_null() & (stripped.str.strip_chars() != "") & ~stripped.str.starts_with("#")


def _extract(path: str, pattern: str, names: Sequence[str]) -> pl.DataFrame:
    """Split every line of a text file with ``pattern``; keep data lines, raise on bad ones.

    The regex runs on all lines at once (parallel, no Python per line). Lines it rejects
    are blank lines, ``#`` comment lines (skipped) or malformed lines (raised); only those
    few keep their text. A matched line whose first field starts with ``#`` is a comment.
    """
    text = pl.col(S.LINE_TEXT)
    # a carriage return before the end of a line: lines broken by a CR alone (old Mac)
    lone_cr = text.str.strip_chars_end("\r").str.contains("\r", literal=True).any()
    data: bytes | None = None
    while True:
        try:
            fields = (
                _scan_lines(path, data)
                .select(LINE, text, text.str.extract_groups(pattern).alias("f"), lone_cr.alias(_CR))
                .unnest("f")
                .rename(dict(zip([str(i) for i in range(1, len(names) + 1)], names, strict=True)))
                .with_columns(pl.when(pl.col(names[0]).is_null()).then(text).alias(S.LINE_TEXT))
                .collect()
            )
        except (pl.exceptions.PolarsError, OSError, EOFError) as exc:  # not text, bad gzip...
            raise _unreadable(path, exc) from None
        found_cr = data is None and fields.height > 0 and bool(fields[_CR][0])
        fields = fields.drop(_CR)
        if not found_cr:
            break
        data = _lf_text(path)  # read again, every CR a line break
    first = pl.col(names[0])
    rejected = fields.filter(first.is_null())
    if rejected.height:
        bad = rejected.filter(_is_data_line())
        if bad.height:
            raise FormatError(path, bad[LINE][0], f"malformed line {_shown(bad[S.LINE_TEXT][0])}")
    return fields.filter(first.is_not_null() & ~first.str.starts_with("#")).drop(S.LINE_TEXT)


def read_fields(path: str, names: Sequence[str], layout: str) -> pl.DataFrame:
    """The data lines of a text file (plain or gzip) with exactly ``len(names)`` fields
    separated by spaces or tabs, as String columns ``names`` plus the locator columns
    (:data:`polars_ireval.io.validation.LINE`, :data:`~polars_ireval.io.validation.FILE`).

    Blank lines and ``#`` lines are skipped; any other line with another number of fields
    is a :class:`FormatError` naming the file and line and the expected ``layout`` (for
    the preference and judgment-group formats, whose columns differ from a run's).

    Examples
    --------
    >>> import polars_ireval as ir
    >>> read_fields(ir.example_path("qrels.txt"), ["q", "it", "doc", "rel"],
    ...             "qid iter docno rel").columns
    ['__line', 'q', 'it', 'doc', 'rel', '__file']
    """
    field = r"([^ \t\r]+)"
    pattern = r"^[ \t]*" + r"[ \t]+".join([field] * len(names)) + r"[ \t\r]*$"
    try:
        fields = _extract(path, pattern, names)
    except FormatError as e:
        if e.line is None or isinstance(e, LineLengthError):  # not about its fields
            raise
        detail = str(e)[len(f"{path}:{e.line}: ") :]
        raise FormatError(
            path,
            e.line,
            f"{detail}: expected {len(names)} whitespace-separated fields '{layout}'",
        ) from None
    return fields.with_columns(pl.lit(path).alias(FILE))


def _read_run_path(
    path: str, policy: RunIdPolicy, several: bool, *, fast: bool, ranks: bool = False
) -> pl.DataFrame:
    fmt = _format(path)
    if fmt != "trec":
        frame = _read_table(path, fmt, "run", several, located=not fast)
        if policy in ("file", "tag") and (several or S.RUN_ID not in frame.columns):
            if policy == "tag" and S.RUN_ID in frame.columns:
                return frame
            frame = frame.with_columns(pl.lit(_stem(path)).alias(S.RUN_ID))
        elif policy == "none" and S.RUN_ID in frame.columns:
            frame = frame.drop(S.RUN_ID)
        return frame
    if fast:
        simple = _read_simple_run(path, policy, ranks)
        if simple is not None:
            return simple
    try:
        fields = _extract(path, _RUN_RX, [S.QUERY_ID, S.DOC_ID, "__rank", "__score", "__tag"])
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
        cols.insert(0, pl.lit(_stem(path)).alias(S.RUN_ID))
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
            path, row[LINE], f"{what} {_shown(row[column])} of document {row[S.DOC_ID]!r} {why}"
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


#: The (tag, query) of the first and of the last line of a run file.
_Ends = tuple[tuple[str, str], tuple[str, str]]


def _read_simple_run(path: str, policy: RunIdPolicy, ranks: bool = False) -> pl.DataFrame | None:
    """One run read as :func:`_read_simple_runs` reads several."""
    found = _read_simple_runs([path], policy, ranks=ranks)
    return None if found is None else found[0]


def _read_simple_runs(
    paths: list[str], policy: RunIdPolicy, *, ranks: bool = False
) -> tuple[pl.DataFrame, list[_Ends]] | None:
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
    :func:`_read_simple_runs` reads them, ``paths`` naming them (for ``policy="file"``),
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
            stems = pl.col(FILE).replace_strict(paths, [_stem(p) for p in paths])
            scan = scan.with_columns(stems.alias(S.RUN_ID))
    else:  # decompressed text in memory, with each plain file's bytes
        texts = [s if isinstance(s, bytes) else Path(s).read_bytes() for s in sources]
        if policy == "file":  # one scan a file, each named after it, run together
            scan = pl.concat(
                pl.scan_csv(text, **options).with_columns(pl.lit(_stem(path)).alias(S.RUN_ID))
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


def _simple_source(path: str, fields: int = 6) -> tuple[str | bytes, _Ends, bytes] | None:
    """What :func:`_read_simple_runs` scans of one run file: the path (a plain file) or
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
            text = _gunzip(path, mapped) if mapped[:2] == b"\x1f\x8b" else None
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


def _read_qrels_path(path: str, several: bool, *, fast: bool = True) -> pl.DataFrame:
    fmt = _format(path)
    if fmt != "trec":
        return _read_table(path, fmt, "qrels", several, located=not fast)
    simple = _read_simple_qrels(path) if fast else None
    if simple is not None:
        return simple
    try:
        fields = _extract(path, _QRELS_RX, [S.QUERY_ID, S.DOC_ID, "__rel"])
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
            f"{path}:{row[LINE]}: relevance {_shown(row['__rel'])} of document {row[S.DOC_ID]!r} "
            f"{what}; grades must be whole numbers such as 0, 1, 2 or -1"
        )
    return fields.select(
        S.QUERY_ID, S.DOC_ID, rel.alias(S.RELEVANCE), LINE, pl.lit(path).alias(FILE)
    )


# --------------------------------------------------------------------------- other inputs


def _format(path: str) -> str:
    name = path.lower()
    if name.endswith(".parquet") or name.endswith(".pq"):
        return "parquet"
    if name.endswith((".arrow", ".ipc", ".feather")):
        return "ipc"
    return "trec"


def _read_table(
    path: str, fmt: str, kind: str, several: bool, *, located: bool = False
) -> pl.DataFrame:
    """A Parquet or Arrow (``fmt``) run or qrels file (``kind``), its columns renamed
    (:func:`~polars_ireval.io.validation.rename_aliases`) and its own columns named like the
    locators left out (they would be read as where its rows come from). One of
    ``several`` files: its columns converted as it alone would be read
    (:func:`~polars_ireval.io.validation.canonical_columns`: the files then concatenate, and
    an error names the file), and with ``located``, the file's name in :data:`FILE`."""
    frame = pl.read_parquet(path) if fmt == "parquet" else pl.read_ipc(path)
    frame = rename_aliases(_without_locators(frame))
    if not several:
        return frame
    frame = canonical_columns(frame, path, kind)
    return frame.with_columns(pl.lit(path).alias(FILE)) if located else frame


def _without_locators(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` without its own columns named like the locators (:data:`LINE`,
    :data:`FILE`): never read, as a lazy frame's are not (they would say where its rows
    come from), and never kept (:func:`~polars_ireval.io.validation.validate_run` drops them)."""
    if LINE in frame.columns or FILE in frame.columns:
        return frame.drop(LINE, FILE, strict=False)
    return frame


def expand_paths(source: Any) -> list[str] | None:
    """Turn a path, glob, directory or list of them into file paths; None for objects
    (frames, tables, dicts), which :func:`frame_from_object` reads.

    Directories and globs are sorted. An empty list, an empty directory or a glob that
    matches nothing is an :class:`EmptyInputError`, a missing file a ``FileNotFoundError``.
    """
    if isinstance(source, (str, os.PathLike)):
        items: Iterable[Any] = [source]
    elif isinstance(source, (list, tuple)) and all(
        isinstance(s, (str, os.PathLike)) for s in source
    ):
        items = source
        if not items:
            raise EmptyInputError("an empty list of files was given; pass at least one path")
    else:
        return None
    paths: list[str] = []
    for item in items:
        text = os.fspath(item)
        if os.path.isdir(text):
            found = sorted(str(p) for p in Path(text).iterdir() if p.is_file())
            if not found:
                raise EmptyInputError(f"{text}: the directory holds no file")
            paths.extend(found)
        elif os.path.exists(text):
            paths.append(text)
        elif glob.has_magic(text):
            found = sorted(glob.glob(text))
            if not found:
                raise EmptyInputError(f"{text}: no file matches this pattern")
            paths.extend(found)
        else:
            raise FileNotFoundError(f"{text}: no such file")
    return paths


def frame_from_object(
    source: Any, kind: str, *, columns: Sequence[str] | None = None
) -> pl.DataFrame:
    """A Polars frame of an in-memory ``kind`` (``"run"``, ``"qrels"``...): a Polars frame
    (a LazyFrame is collected), a pandas frame, a pyarrow table, or a pytrec_eval-style
    dict ``{query_id: {doc_id: value}}`` (the value a score for a run, else a grade).

    A format whose frames need more ``columns`` than a dict holds (preferences, judgment
    groups) passes them: a dict is then refused with a message naming them. Anything else
    is a :class:`SchemaError`. The frame is not checked here (see
    :mod:`polars_ireval.io.validation`).
    """
    if isinstance(source, pl.LazyFrame):
        return _without_locators(source.collect())
    if isinstance(source, pl.DataFrame):
        return _without_locators(source)
    if isinstance(source, Mapping) and columns is not None:
        raise SchemaError(
            f"cannot read {kind} from a dict; pass a path or a frame with columns {list(columns)}"
        )
    if isinstance(source, Mapping):
        return _frame_from_dict(source, kind)
    module = type(source).__module__
    if module.startswith("pyarrow"):
        frame = pl.from_arrow(source)
        assert isinstance(frame, pl.DataFrame)
        return _without_locators(frame)
    if module.startswith("pandas"):
        return _without_locators(pl.from_pandas(source))
    raise SchemaError(
        f"cannot read a {kind} from a {type(source).__name__}; pass a path, a Polars or pandas "
        "frame, a pyarrow table or a dict {query_id: {doc_id: value}}"
    )


def _frame_from_dict(source: Mapping[Any, Any], kind: str) -> pl.DataFrame:
    """The frame of a dict ``{query_id: {doc_id: value}}``; every key a string or an
    integer (its decimal text), as ids of a frame must be: ``str()`` of a float key
    ``1.0`` would give the query ``'1.0'``, not the ``'1'`` of the key ``1``."""
    value = S.SCORE if kind == "run" else S.RELEVANCE
    for q, docs in source.items():
        if not isinstance(docs, Mapping):
            raise SchemaError(
                f"{INPUT}: the dict's value for query {q!r} ({type(docs).__name__}) is not a "
                f"dict; give {{query_id: {{doc_id: {value}}}}}"
            )
    types = set(map(type, source)).union(*(map(type, docs) for docs in source.values()))
    if types <= {str}:  # the usual case: no conversion
        rows = [(q, d, v) for q, docs in source.items() for d, v in docs.items()]
    elif types <= {str, int}:  # exactly str or int (not bool): str() is the decimal text
        rows = [(str(q), str(d), v) for q, docs in source.items() for d, v in docs.items()]
    else:
        rows = [
            (_dict_id(q, "query"), _dict_id(d, "document"), v)
            for q, docs in source.items()
            for d, v in docs.items()
        ]
    return pl.DataFrame(
        rows, schema=[S.QUERY_ID, S.DOC_ID, value], orient="row", infer_schema_length=None
    )


def _dict_id(key: Any, what: str) -> str:
    """A dict's ``what`` (query or document) key as an id: a string, or an integer's decimal
    text; another type is a :class:`SchemaError`."""
    if isinstance(key, str):
        return str(key)
    if isinstance(key, numbers.Integral) and not isinstance(key, bool):
        return str(int(key))
    raise SchemaError(
        f"{INPUT}: the dict's {what} key {key!r} ({type(key).__name__}) is not a string or "
        "an integer; ids are strings (an integer is read as its decimal text, a float such "
        f"as 1.0 would not match '1'). Key the dict by strings, e.g. str(int(k)) for whole "
        "numbers"
    )


def file_run_id(path: PathLike) -> str:
    """The run id that ``read_run(..., run_id="file")`` gives the runs of a file: its name
    without extensions (``runs/bm25.run.gz`` -> ``bm25``)."""
    return _stem(str(path))


def is_text_run(path: PathLike) -> bool:
    """True for a path :func:`read_run` reads as TREC text (not Parquet or Arrow)."""
    return _format(str(path)) == "trec"


def _stem(path: str) -> str:
    name = os.path.basename(path)
    for ext in (
        ".gz",
        ".parquet",
        ".pq",
        ".arrow",
        ".ipc",
        ".feather",
        ".run",
        ".txt",
        ".trec",
        ".tsv",
    ):
        if name.lower().endswith(ext):
            name = name[: -len(ext)]
    return name
