"""Readers for runs and qrels: TREC text (plain or gzip), Parquet, Arrow IPC, frames and dicts.

Every reader returns a Polars frame with the library's column names:

* run: ``[run_id,] query_id, doc_id, score`` (``String, String, String, Float64``)
* qrels: ``query_id, doc_id, relevance`` (``String, String, Int64``)

Reading is an explicit boundary: the readers collect, and they validate what they read,
raising an error that names the file and line (malformed line, NaN score, duplicate
document, non-integer grade, empty file) instead of dropping anything.

This module holds :func:`read_run` and :func:`read_qrels` and their policies (where a run's
``run_id`` comes from, one ranking in one file): each reads the files given and chooses
what reads them best. The readers they choose between live beside it:
:mod:`polars_ireval.io.trec_text` (TREC text, the fast and the general reader),
:mod:`polars_ireval.io.tables` (Parquet, Arrow, frames, dicts, paths) and
:mod:`polars_ireval.io.lines` (the lines of text files); the checks of frames are
:mod:`polars_ireval.io.validation`'s.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval.errors import DuplicateError, EmptyInputError, IrevalError, ParameterError
from polars_ireval.io.lines import (
    MAX_LINE_BYTES,
    MAX_LINE_VAR,
    check_line_length,
    max_line_bytes,
    read_fields,
)
from polars_ireval.io.tables import (
    PathLike,
    RunIdPolicy,
    RunSource,
    expand_paths,
    file_format,
    file_run_id,
    frame_from_object,
    is_text_run,
    paths_label,
    read_table,
)
from polars_ireval.io.trec_text import (
    Ends,
    parse_simple_runs,
    read_qrels_text,
    read_run_text,
    read_simple_runs,
    run_tag,
)
from polars_ireval.io.validation import (
    FILE,
    INPUT,
    INPUT_RANK,
    LINE,
    SCORES,
    Layout,
    Scores,
    check_scores,
    float32_scores,
    float_score,
    is_validated,
    narrowed,
    new_ranking,
    rankings,
    validate_qrels,
    validate_run,
)

# The checks of frames live in polars_ireval.io.validation, the lines of text files in
# polars_ireval.io.lines, the other inputs in polars_ireval.io.tables and the TREC text
# readers in polars_ireval.io.trec_text; these names stay importable from here.

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
        stem = file_run_id(p)
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
    text = [p for p in paths if is_text_run(p)]
    together_ok = several and len(text) == len(paths)  # every file text: one scan
    simple = read_simple_runs(text, policy, ranks=ranks) if together_ok else None
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
        LINE in f.columns if is_text_run(p) else not several or FILE in f.columns
        for p, f in zip(paths, frames, strict=True)
    )


def _check_rankings_in_one_file(
    paths: list[str],
    frame: pl.DataFrame,
    heights: list[int] | None,
    ends: list[Ends] | None,
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


def _read_run_path(
    path: str, policy: RunIdPolicy, several: bool, *, fast: bool, ranks: bool = False
) -> pl.DataFrame:
    """One run file, of any format, read as one of ``several`` (``fast``: by the fast text
    reader when it can; else each row says where it comes from, for an error)."""
    fmt = file_format(path)
    if fmt != "trec":
        frame = read_table(path, fmt, "run", several, located=not fast)
        if policy in ("file", "tag") and (several or S.RUN_ID not in frame.columns):
            if policy == "tag" and S.RUN_ID in frame.columns:
                return frame
            frame = frame.with_columns(pl.lit(file_run_id(path)).alias(S.RUN_ID))
        elif policy == "none" and S.RUN_ID in frame.columns:
            frame = frame.drop(S.RUN_ID)
        return frame
    return read_run_text(path, policy, fast=fast, ranks=ranks)


def _read_qrels_path(path: str, several: bool, *, fast: bool = True) -> pl.DataFrame:
    """One qrels file, of any format, read as :func:`_read_run_path` reads a run file."""
    fmt = file_format(path)
    if fmt != "trec":
        return read_table(path, fmt, "qrels", several, located=not fast)
    return read_qrels_text(path, fast=fast)
