"""Lines of text files: the tools every text reader of the package uses.

The TREC run and qrels readers (:mod:`polars_ireval.io.trec_text`), the preference and
judgment-group readers (:mod:`polars_ireval.io.preferences`,
:mod:`polars_ireval.trec_eval.prefs`, :mod:`polars_ireval.trec_eval.qrels_jg`) read text
with them:

* :func:`scan_lines`: every physical line of a file (plain or gzip) with its number, and
  :func:`is_data_line`, which tells the lines that are neither blank nor ``#`` comments;
* :func:`read_lf_text`: a file's text with every line break made ``\\n`` (old Mac files
  break lines with a carriage return alone);
* :func:`extract_fields` and :func:`read_fields`: the fields of every data line, split by a
  regex on all lines at once, a malformed line raised with its file and number;
* :func:`check_line_length`: a line longer than :func:`max_line_bytes` is refused before it
  is read (a file without line breaks would otherwise be read as one huge line);
* :func:`unreadable_error` and :func:`quoted`: the error for a file that is not text (NUL
  bytes, not UTF-8, corrupt gzip), and a line or field quoted for a message.
"""

from __future__ import annotations

import gzip
import mmap
import os
import zlib
from collections.abc import Iterable, Sequence

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval._base.resources import parse_size
from polars_ireval.errors import FormatError, LineLengthError
from polars_ireval.io.validation import FILE, LINE

__all__ = [
    "MAX_LINE_BYTES",
    "MAX_LINE_VAR",
    "check_line_length",
    "extract_fields",
    "gunzip",
    "is_data_line",
    "max_line_bytes",
    "quoted",
    "read_fields",
    "read_lf_text",
    "scan_lines",
    "unreadable_error",
]

_CR = "__cr"


def scan_lines(path: str, text: bytes | None = None) -> pl.LazyFrame:
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


def read_lf_text(path: str) -> bytes:
    """The text of a file (gzip decompressed) with every line break made ``\\n``: old Mac
    files end their lines with a carriage return alone, which line readers do not take for
    a line break (their whole content would read as one line)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise unreadable_error(path, exc) from None
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def quoted(line: str, limit: int = 200) -> str:
    """A line (or a field of one) quoted for an error message, cut to its first ``limit``
    characters."""
    if len(line) <= limit:
        return repr(line)
    return f"{line[:limit]!r}... ({len(line):,} characters)"


def is_data_line() -> pl.Expr:
    """True for a line of :func:`scan_lines` that is data: neither blank nor a comment (its
    first character other than a space or a tab a ``#``)."""
    text = pl.col(S.LINE_TEXT)
    stripped = text.str.strip_chars_start(" \t")
    return text.is_not_null() & (stripped.str.strip_chars() != "") & ~stripped.str.starts_with("#")


def extract_fields(path: str, pattern: str, names: Sequence[str]) -> pl.DataFrame:
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
                scan_lines(path, data)
                .select(LINE, text, text.str.extract_groups(pattern).alias("f"), lone_cr.alias(_CR))
                .unnest("f")
                .rename(dict(zip([str(i) for i in range(1, len(names) + 1)], names, strict=True)))
                .with_columns(pl.when(pl.col(names[0]).is_null()).then(text).alias(S.LINE_TEXT))
                .collect()
            )
        except (pl.exceptions.PolarsError, OSError, EOFError) as exc:  # not text, bad gzip...
            raise unreadable_error(path, exc) from None
        found_cr = data is None and fields.height > 0 and bool(fields[_CR][0])
        fields = fields.drop(_CR)
        if not found_cr:
            break
        data = read_lf_text(path)  # read again, every CR a line break
    first = pl.col(names[0])
    rejected = fields.filter(first.is_null())
    if rejected.height:
        bad = rejected.filter(is_data_line())
        if bad.height:
            raise FormatError(path, bad[LINE][0], f"malformed line {quoted(bad[S.LINE_TEXT][0])}")
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
        fields = extract_fields(path, pattern, names)
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


def gunzip(path: str, data: mmap.mmap) -> bytes:
    """The decompressed text of the gzip file ``path`` (``data``: its bytes, mapped); corrupt
    gzip is the :func:`unreadable_error` of the file."""
    try:
        return gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as exc:
        raise unreadable_error(path, exc) from None


def unreadable_error(path: str, exc: Exception) -> FormatError:
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
