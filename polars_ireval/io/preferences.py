"""Preference files of :func:`polars_ireval.pir`: one session a line, which of its two
result lists the user preferred (``session preferred [more columns]``, under a header).

Not trec_eval's preference formats (``-R prefs``: ``query_id jg jsg doc_id rel_level``,
``-R qrels_prefs``): those are read by :func:`polars_ireval.trec_eval.prefs.read_prefs` and
:func:`~polars_ireval.trec_eval.prefs.read_qrels_prefs`, beside the measures that use them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval.errors import DuplicateError, EmptyInputError, FormatError, SchemaError
from polars_ireval.io.lines import (
    is_data_line,
    quoted,
    read_fields,
    read_lf_text,
    scan_lines,
    unreadable_error,
)
from polars_ireval.io.tables import expand_paths
from polars_ireval.io.validation import FILE, LINE

__all__ = ["PREFERRED", "SESSION", "read_preferences"]

#: The two columns a preference file starts with: the session, and the list preferred.
SESSION = "session"
PREFERRED = "preferred"


def read_preferences(source: str | os.PathLike[str] | Sequence[Any]) -> pl.DataFrame:
    """Read a preference file: one session a line, which of its two lists the user preferred.

    The format: a header line naming the columns, ``session`` and ``preferred`` first, then
    any others (e.g. ``type``, to group sessions by with :func:`pir`'s ``group_by``); one
    line per session below it. Fields are separated by tabs or spaces (ids hold no
    whitespace, as in TREC files); blank lines and lines starting with ``#`` are skipped.
    ``preferred`` is the ``run_id`` of the preferred list (a run tag in a TREC run file).
    A session where the user stated no preference is left out of the file. The text is
    read as :func:`~polars_ireval.read_qrels` reads it: UTF-8 (a byte-order mark
    dropped), gzip-compressed or not (told by its first bytes, whatever the name), lines
    ending in LF, CRLF or CR.

    Parameters
    ----------
    source
        The file (a ``str`` or a path), or several: a glob pattern, a directory (its files,
        sorted) or a list of those. Each file has its own header, the same in every file;
        their sessions are concatenated in the order of the files.

    Returns
    -------
    polars.DataFrame
        One String column per header field, in the order of the lines.

    Raises
    ------
    FormatError
        The header does not start with ``session preferred`` or differs from the first
        file's, a line has another number of fields than the header, or the file
        is not UTF-8 text (binary, corrupt gzip); the file and, where known, the line named.
    DuplicateError
        A session appears on two lines, of one file or two (both named).
    EmptyInputError
        A file holds no session (each of several must hold one), or the list is empty.
    SchemaError
        ``source`` is not a path, a glob, a directory or a list of them.

    Examples
    --------
    >>> import tempfile, os, polars_ireval as ir
    >>> path = os.path.join(tempfile.mkdtemp(), "prefs.tsv")
    >>> _ = open(path, "w").write("session\\tpreferred\\ttype\\ns1\\tA\\tinfo\\ns2\\tB\\tnav\\n")
    >>> ir.read_preferences(path)
    shape: (2, 3)
    ┌─────────┬───────────┬──────┐
    │ session ┆ preferred ┆ type │
    │ ---     ┆ ---       ┆ ---  │
    │ str     ┆ str       ┆ str  │
    ╞═════════╪═══════════╪══════╡
    │ s1      ┆ A         ┆ info │
    │ s2      ┆ B         ┆ nav  │
    └─────────┴───────────┴──────┘
    """
    paths = expand_paths(source)
    if paths is None:
        raise SchemaError(
            f"preferences: a path, a glob, a directory or a list of them, not "
            f"{type(source).__name__}"
        )
    header: list[str] = []
    frames: list[pl.DataFrame] = []
    for path in paths:
        line, names, frame = _preference_file(path, several=len(paths) > 1)
        if not frames:
            header = names
        elif names != header:
            raise FormatError(
                path, line, f"the header names the columns {names}, {paths[0]}'s {header}; "
                "preference files read together have the same header"
            )  # fmt: skip
        frames.append(frame.select(*header, LINE, FILE))
    prefs = pl.concat(frames)
    again = prefs.filter(~pl.col(SESSION).is_first_distinct())
    if again.height:  # the first line repeating a session, and the line it repeats
        session = again[SESSION][0]
        (f1, l1), (f2, l2) = (
            prefs.filter(pl.col(SESSION) == session).select(FILE, LINE).head(2).rows()
        )
        lines = f"{f1}: session {session!r} on lines {l1} and {l2}"
        if f1 != f2:
            lines = f"session {session!r} on {f1}:{l1} and {f2}:{l2}"
        raise DuplicateError(f"{lines}; a session states one preference")
    return prefs.drop(LINE, FILE)


def _preference_file(path: str, *, several: bool) -> tuple[int, list[str], pl.DataFrame]:
    """The header line of a preference file (its number and fields) and its sessions: one
    String column per header field, and the locators :data:`LINE` and :data:`FILE`."""
    data: bytes | None = None
    while True:  # the first line that is not blank nor a comment
        try:
            first = scan_lines(path, data).filter(is_data_line()).head(1).collect()
        except (pl.exceptions.PolarsError, OSError, EOFError) as exc:  # not text, bad gzip
            raise unreadable_error(path, exc) from None
        text = first[S.LINE_TEXT][0].rstrip("\r") if first.height else ""
        if data is not None or (first.height and "\r" not in text):
            break
        data = read_lf_text(path)  # none, or lines broken by a CR alone (old Mac): every CR a break
    empty = EmptyInputError(
        f"{path}: no session (a header line and one line per session)"
        + ("; check the file, or leave it out" if several else "")
    )
    if not first.height:
        raise empty
    number, names = first[LINE][0], re.findall(r"[^ \t\r]+", text)
    if names[:2] != [SESSION, PREFERRED]:
        raise FormatError(
            path, number, f"the header must start with 'session preferred', got "
            f"{quoted(text)}; add the header line 'session<TAB>preferred' above the sessions"
        )  # fmt: skip
    if len(set(names)) != len(names):
        raise FormatError(path, number, f"the header names a column twice: {names}")
    fields = [f"\x00{i}" for i in range(len(names))]  # the header may name any column
    frame = read_fields(path, fields, " ".join(names)).filter(pl.col(LINE) != number)
    if not frame.height:
        raise empty
    return number, names, frame.rename(dict(zip(fields, names, strict=True)))
