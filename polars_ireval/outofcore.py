"""Out-of-core evaluation: one run larger than memory, read and evaluated a chunk of
queries at a time.

:func:`evaluate_out_of_core` splits the rankings of a run file into a bounded number of
chunks of whole queries, evaluates each chunk with the Polars engine
(:func:`polars_ireval.engines.polars.per_query_frame`) against the judgments of its
queries, and aggregates the per-query values of all the chunks in one step, the way
:func:`polars_ireval.evaluate` aggregates them (:func:`polars_ireval.results.long_result`:
each run's queries in id order, added one after the other). Every value is computed from
one ranking and the judgments of its query, so the result equals the in-memory one.

How a file is split:

* Parquet or Arrow: the number of rows of each query is counted from the query column
  alone (streaming); the queries, in order, are cut into ranges of about ``chunk_rows``
  rows, and each range is read with a filter that Polars pushes down into the reader
  (row groups whose statistics fall outside it are skipped).
* TREC text written as TREC tools write it (six fields separated by single spaces, each
  ranking's lines together): the file is cut into byte ranges at line boundaries between
  two queries and each range is parsed on its own, one pass over the file. A ranking
  whose lines are not together (found when two chunks hold it) is read again through a
  temporary Parquet copy of the file, written by Polars' streaming engine (several files
  named by their tags, or read as one run, are then read whole, as :func:`read_run` reads
  them, which refuses a ranking split between two files). Other text
  (tabs, runs of spaces, comments, gzip) is read whole, as :func:`read_run` reads it.

Polars' streaming engine on the whole evaluation (``collect(engine="streaming")``) does
not bound the memory: ranking needs every row of a ranking and the window functions hold
the whole frame (``docs/benchmarks.md``, "Out of core").
"""

from __future__ import annotations

import itertools
import math
import os
import tempfile
import warnings
from collections.abc import Iterable, Iterator
from typing import Any

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval._base.options import check_positive_int
from polars_ireval.engines import polars as polars_engine
from polars_ireval.engines.base import Request
from polars_ireval.engines.polars import per_query_frame
from polars_ireval.errors import IrevalError, ParameterError
from polars_ireval.io.intake import Inputs, intake_run
from polars_ireval.io.readers import (
    RunIdPolicy,
    Scores,
    check_line_length,
    check_rankings_apart,
    check_run_id_policy,
    check_scores,
    expand_paths,
    file_run_id,
    float32_scores,
    is_text_run,
    parse_simple_runs,
    paths_label,
    read_qrels,
    read_run,
    validate_run,
)
from polars_ireval.io.validation import FILE, LINE, canonical_columns, rankings, rename_aliases
from polars_ireval.judge import (
    EvalTies,
    Missing,
    check_options,
    check_relevance_level,
    coverage_of,
)
from polars_ireval.parse import MeasureLike, parse_measures
from polars_ireval.results import (
    CoverageWarning,
    NoRelevant,
    check_no_relevant,
    long_result,
    no_relevant_note,
    no_relevant_pairs,
    raise_no_relevant,
    warn_coverage,
    with_judged_weights,
)

#: Rows a chunk holds when neither ``chunks`` nor ``chunk_rows`` is given: about 0.5 GB
#: of peak memory for a chunk of five measures (``docs/benchmarks.md``).
DEFAULT_CHUNK_ROWS = 4_000_000
#: Bytes read to estimate the length of a text run's lines.
_SAMPLE = 1 << 20
#: Bytes read at a time while looking for the end of a query's lines.
_WINDOW = 1 << 16


def evaluate_out_of_core(
    run: Any,
    qrels: Any,
    measures: MeasureLike | Iterable[MeasureLike],
    *,
    chunks: int | None = None,
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
    per_query: bool = False,
    relevance_level: int = 1,
    missing: Missing = "skip",
    no_relevant: NoRelevant = "zero",
    max_depth: int | None = None,
    judged_only: bool = False,
    ties: EvalTies = "trec_eval",
    residuals: bool = False,
    scores: Scores = "float64",
    run_id: RunIdPolicy = "auto",
) -> pl.DataFrame:
    """Evaluate a run file too large for memory, a chunk of queries at a time.

    The result equals ``evaluate(read_run(run, run_id=run_id), qrels, measures, ...)``
    (the Polars engine), with memory for one chunk of the run (and the qrels) instead of
    the whole run.

    Parameters
    ----------
    run
        A path, glob, directory or list of paths: TREC text files, or Parquet / Arrow
        files (not a mix). A frame is evaluated in memory (it already is).
    qrels
        Relevance judgments: a path or a frame (held in memory).
    measures
        As :func:`polars_ireval.evaluate`.
    chunks
        Number of chunks to cut the run into (at least 1). Default: as many as make
        chunks of about ``chunk_rows`` rows.
    chunk_rows
        Rows a chunk holds, about, when ``chunks`` is not given. A chunk of 4M rows
        (the default) takes about 0.5 GB to evaluate; a query is never split.
    per_query, relevance_level, missing, no_relevant, max_depth, judged_only, ties
        As :func:`polars_ireval.evaluate`. ``no_relevant="error"`` is checked chunk by
        chunk (it names the rankings of the first chunk that has any).
    residuals, scores
        As :func:`polars_ireval.evaluate`.
    run_id
        As :func:`polars_ireval.read_run`.

    Returns
    -------
    polars.DataFrame
        As :func:`polars_ireval.evaluate`.

    Raises
    ------
    ParameterError
        For a bad option; for text and table files mixed; for ``missing="zero"`` on
        several runs one of which ranks no query of some chunk (evaluate in memory, or
        with one chunk).
    ResourceError
        When a chunk's C/W/L measures would exceed the memory budget
        (``IREVAL_MEMORY_LIMIT``, else half the memory available; see
        ``docs/resources.md``), as :func:`polars_ireval.evaluate` weighs the whole run
        (smaller chunks hold less); a line longer than 1 MiB is a ``LineLengthError``.

    Warns
    -----
    CoverageWarning
        As :func:`polars_ireval.evaluate`.

    Examples
    --------
    >>> import polars_ireval as ir
    >>> run, qrels = ir.example_path("runs/bm25.run"), ir.example_path("qrels.txt")
    >>> chunked = ir.evaluate_out_of_core(run, qrels, ["nDCG@10", "AP"], chunks=3)
    >>> whole = ir.evaluate(ir.read_run(run), ir.read_qrels(qrels), ["nDCG@10", "AP"])
    >>> chunked.equals(whole)
    True
    """
    check_relevance_level(relevance_level)
    check_options(
        max_depth=max_depth, ties=ties, missing=missing, judged_only=judged_only, average=True
    )
    check_scores(scores)
    check_run_id_policy(run_id)
    check_no_relevant(no_relevant)
    _check_chunks(chunks, chunk_rows)
    parsed = list(parse_measures(measures))
    if residuals:  # the judged weights that projected divides by, as evaluate adds them
        parsed += with_judged_weights(parsed)
    qrels_frame = read_qrels(qrels)
    options: dict[str, Any] = {
        "relevance_level": relevance_level, "missing": missing, "max_depth": max_depth,
        "judged_only": judged_only, "ties": ties, "residuals": residuals,
        "no_relevant": no_relevant,
    }  # fmt: skip

    def in_memory(frame: pl.DataFrame) -> pl.DataFrame:
        # read and checked here: the Polars engine takes them as they are (no second intake)
        by = "trec_eval" if ties == "average" else ties
        inputs = Inputs(intake_run(frame, ties=by), qrels_frame)
        request = Request(
            frame, qrels_frame, tuple(parsed), per_query=per_query, inputs=inputs, **options
        )
        out = polars_engine.evaluate(request)
        assert isinstance(out, pl.DataFrame)
        return out

    paths = expand_paths(run)
    if paths is None:  # already in memory
        return in_memory(read_run(run, run_id=run_id, scores=scores))
    text = [is_text_run(p) for p in paths]
    if any(text) and not all(text):
        raise ParameterError(
            f"{paths_label(paths, 'run files')}: TREC text and Parquet/Arrow files mixed; "
            "evaluate them in two calls, or convert them to one format"
        )
    policy: RunIdPolicy = run_id if run_id != "auto" or len(paths) == 1 else "tag"
    try:
        if all(text):
            parts = _text_chunks(paths, policy, chunks, chunk_rows)
            if parts is None:  # gzip, zstd, empty: read as read_run reads it
                return in_memory(read_run(run, run_id=run_id, scores=scores))
            try:
                wide, cov = _evaluate_chunks(parts, qrels_frame, parsed, options, scores)
            except _SplitRanking:  # a ranking's lines apart: through a Parquet copy
                if len(paths) > 1 and policy in ("tag", "none"):
                    # maybe one ranking in two files, which read_run refuses: read as it does
                    return in_memory(read_run(run, run_id=run_id, scores=scores))
                with tempfile.TemporaryDirectory(prefix="ireval-") as tmp:
                    copy = _text_to_parquet(paths, policy, tmp)
                    label = paths_label(paths, "run files")  # errors name the user's files
                    table = _table_chunks([copy], "auto", chunks, chunk_rows, label=label)
                    wide, cov = _evaluate_chunks(table, qrels_frame, parsed, options, scores)
        else:
            table = _table_chunks(paths, policy, chunks, chunk_rows)
            wide, cov = _evaluate_chunks(table, qrels_frame, parsed, options, scores)
    except _Whole:  # lines the general reader reads (tabs, comments...): read it whole
        return in_memory(read_run(run, run_id=run_id, scores=scores))
    pairs = no_relevant_pairs(
        cov, qrels_frame.lazy(), parsed, relevance_level=relevance_level, missing=missing
    )
    warn_coverage(cov, missing, stacklevel=2, no_relevant=no_relevant_note(pairs, no_relevant))
    return long_result(wide.lazy(), parsed, per_query=per_query, residuals=residuals).collect()


def _check_chunks(chunks: int | None, chunk_rows: int) -> None:
    for name, value in (("chunks", chunks), ("chunk_rows", chunk_rows)):
        if value is None and name == "chunks":
            continue
        check_positive_int(name, value)


class _SplitRanking(Exception):
    """The lines of one ranking lie in two chunks of a text file."""


def _evaluate_chunks(
    parts: Iterator[tuple[bool, pl.DataFrame]],
    qrels: pl.DataFrame,
    measures: list[Any],
    options: dict[str, Any],
    scores: Scores,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The wide per-query frame (see :func:`polars_ireval.results.long_result`) of every
    chunk of ``parts`` (validated runs holding whole rankings, each with a flag true for
    the last) and their coverage.

    Each chunk is evaluated against the judgments of its queries; with ``missing="zero"``
    the last chunk also gets the judged queries no chunk ranks.
    """
    by = "trec_eval" if options["ties"] == "average" else options["ties"]  # the intake's order
    keys: pl.DataFrame | None = None  # the rankings seen so far
    runs: set[str] | None = None
    wides: list[pl.DataFrame] = []
    last: pl.DataFrame | None = None
    for final, part in parts:
        chunk = float32_scores(part, scores)
        del part
        rank_keys = [k for k in (S.RUN_ID, S.QUERY_ID) if k in chunk.columns]
        present = rankings(chunk, rank_keys)[0]  # known from the validation, no pass
        if keys is not None and present.join(keys, on=rank_keys, how="semi").height:
            raise _SplitRanking
        keys = present if keys is None else pl.concat([keys, present])
        queries = present.select(S.QUERY_ID).unique()
        judged = qrels.join(queries, on=S.QUERY_ID, how="semi")
        if final and options["missing"] == "zero":
            judged = judged.vstack(qrels.join(keys.select(S.QUERY_ID), on=S.QUERY_ID, how="anti"))
        if S.RUN_ID in chunk.columns and options["missing"] == "zero":
            ids = set(present[S.RUN_ID].unique().to_list())
            if runs is not None and ids != runs:
                raise ParameterError(
                    "missing='zero' out of core: a chunk holds no ranking of some run, so its "
                    "judged queries would not be scored 0 for it; evaluate with chunks=1 or "
                    "in memory (or evaluate each run apart)"
                )
            runs = ids
        # from the rankings (no check of the qrels: a chunk may hold no judged query)
        cov = coverage_of(present.lazy(), judged.lazy()).collect()
        if options["no_relevant"] == "error":
            raise_no_relevant(
                no_relevant_pairs(
                    cov,
                    judged.lazy(),
                    measures,
                    relevance_level=options["relevance_level"],
                    missing=options["missing"],
                )
            )
        if final:
            last = chunk
        if not judged.height:  # nothing of this chunk is judged: no query evaluated
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CoverageWarning)
            # the chunk checked as read (narrowed to the judge's columns here), the
            # judgments a part of the checked qrels
            inputs = Inputs(intake_run(chunk, ties=by), judged)
            wide = per_query_frame(inputs, measures, **options)
            wides.append(wide.collect())
        del chunk
    if not wides:  # no chunk has a judged query: the whole qrels against the last one
        assert last is not None, "no chunk"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CoverageWarning)
            inputs = Inputs(intake_run(last, ties=by), qrels)
            wides.append(per_query_frame(inputs, measures, **options).collect())
    # the coverage of every ranking against the whole qrels, as evaluate reports it: the
    # judged queries no chunk ranks are in no chunk's judgments
    assert keys is not None
    every = coverage_of(keys.lazy(), qrels.lazy()).collect()
    return pl.concat(wides, how="vertical_relaxed"), every


# --------------------------------------------------------------------------- tables


def _scan_table(path: str, policy: RunIdPolicy, several: bool) -> pl.LazyFrame:
    """A Parquet or Arrow run file as :func:`polars_ireval.read_run` reads it, lazily (its
    own columns named like the locators left out; one of ``several``: its columns
    converted as it alone would be read, see
    :func:`~polars_ireval.io.validation.canonical_columns`)."""
    scan = pl.scan_ipc(path) if not path.lower().endswith((".parquet", ".pq")) else None
    scan = pl.scan_parquet(path) if scan is None else scan
    scan = rename_aliases(scan.drop(LINE, FILE, strict=False))
    if several:
        scan = canonical_columns(scan, path, "run")
    names = scan.collect_schema().names()
    if policy in ("file", "tag") and (several or S.RUN_ID not in names):
        if policy == "tag" and S.RUN_ID in names:
            return scan
        return scan.with_columns(pl.lit(file_run_id(path)).alias(S.RUN_ID))
    if policy == "none" and S.RUN_ID in names:
        return scan.drop(S.RUN_ID)
    return scan


def _table_chunks(
    paths: list[str],
    policy: RunIdPolicy,
    chunks: int | None,
    chunk_rows: int,
    *,
    label: str | None = None,
) -> Iterator[tuple[bool, pl.DataFrame]]:
    """The rankings of Parquet/Arrow files in chunks of whole queries (ranges of query ids
    read with a pushed-down filter), each validated as :func:`read_run` validates;
    ``label`` names the files in errors (default: :func:`paths_label`; the user's text
    files for a copy of them). An error in a chunk of several files names the file."""
    label = paths_label(paths, "run files") if label is None else label
    scans = [_scan_table(p, policy, len(paths) > 1) for p in paths]
    if len(scans) > 1:  # as read_run: a ranking in two files would merge
        check_rankings_apart(paths, scans)
    scan = scans[0] if len(scans) == 1 else pl.concat(scans, how="diagonal_relaxed")
    # the same with each row's file, read again for the chunk that has an error
    located = pl.concat(
        [s.with_columns(pl.lit(p).alias(FILE)) for s, p in zip(scans, paths, strict=True)],
        how="diagonal_relaxed",
    )
    if S.QUERY_ID not in scan.collect_schema().names():
        yield True, validate_run(scan.head(0).collect(), label)  # names the missing column
        return
    sizes = (
        scan.group_by(S.QUERY_ID).agg(pl.len().alias("n")).sort(S.QUERY_ID, nulls_last=True)
    ).collect(engine="streaming")
    bounds = _cut(sizes["n"].to_list(), chunks, chunk_rows)
    ids = sizes[S.QUERY_ID]
    for i, (lo, hi) in enumerate(bounds):
        first, last = pl.lit(ids[lo], ids.dtype), pl.lit(ids[hi - 1], ids.dtype)
        query = pl.col(S.QUERY_ID)
        if ids[hi - 1] is None:  # nulls sort last: the validation names them
            keep = query.is_null() if ids[lo] is None else query.is_null() | (query >= first)
        else:
            keep = query.is_between(first, last)
        try:
            chunk = validate_run(scan.filter(keep).collect(), label)
        except IrevalError:
            if len(scans) > 1:
                validate_run(located.filter(keep).collect(), label)
            raise
        yield i == len(bounds) - 1, chunk


def _cut(sizes: list[int], chunks: int | None, chunk_rows: int) -> list[tuple[int, int]]:
    """Cut items of ``sizes`` (in order) into ``chunks`` ranges ``[lo, hi)`` of about equal
    totals (default: as many as make totals of about ``chunk_rows``); none empty.

    >>> _cut([1, 1, 1, 1], 2, 1)
    [(0, 2), (2, 4)]
    >>> _cut([5, 1, 1, 1], None, 4)
    [(0, 1), (1, 4)]
    """
    total = sum(sizes)
    parts = chunks if chunks is not None else max(1, math.ceil(total / chunk_rows))
    parts = max(1, min(parts, len(sizes)))
    out: list[tuple[int, int]] = []
    lo, done = 0, 0
    for i, size in enumerate(sizes):
        done += size
        if len(out) < parts - 1 and done >= total * (len(out) + 1) / parts:
            out.append((lo, i + 1))
            lo = i + 1
    if lo < len(sizes):
        out.append((lo, len(sizes)))
    return out


# --------------------------------------------------------------------------- text


def _text_chunks(
    paths: list[str], policy: RunIdPolicy, chunks: int | None, chunk_rows: int
) -> Iterator[tuple[bool, pl.DataFrame]] | None:
    """The rankings of TREC text files in chunks of whole queries (byte ranges cut between
    two queries' lines), or None when a file is not plain text with single spaces."""
    plans: list[tuple[str, list[tuple[int, int]]]] = []
    sizes = [os.path.getsize(p) for p in paths]
    total = sum(sizes)
    for path, size in zip(paths, sizes, strict=True):
        with open(path, "rb") as f:
            head = f.read(_SAMPLE)
        if not head or head[:2] == b"\x1f\x8b" or head[:4] == b"\x28\xb5\x2f\xfd":
            return None
        check_line_length(path)  # before a range is cut or read
        lines = max(1, head.count(b"\n"))
        if chunks is not None:
            parts = max(1, round(chunks * size / total)) if len(paths) > 1 else chunks
        else:
            parts = max(1, math.ceil(size / (len(head) / lines * chunk_rows)))
        plans.append((path, _text_ranges(path, size, parts)))
    label = paths_label(paths, "run files")
    return _parse_ranges(plans, policy, label)


def _parse_ranges(
    plans: list[tuple[str, list[tuple[int, int]]]], policy: RunIdPolicy, label: str
) -> Iterator[tuple[bool, pl.DataFrame]]:
    for n, (path, ranges) in enumerate(plans):
        with open(path, "rb") as f:
            for i, (start, stop) in enumerate(ranges):
                f.seek(start)
                data = f.read(stop - start)
                if b"\t" in data or b"\r" in data or b"\x00" in data:
                    frame = None  # a NUL: the general reader says where
                else:
                    frame = parse_simple_runs([data], [path], policy)
                if frame is None:  # lines the general reader reads: the files whole
                    raise _Whole
                del data
                final = n == len(plans) - 1 and i == len(ranges) - 1
                yield final, validate_run(frame, label)


class _Whole(Exception):
    """A text file needs the general reader."""


def _text_ranges(path: str, size: int, parts: int) -> list[tuple[int, int]]:
    """Byte ranges ``[start, stop)`` cutting the file into ``parts`` pieces, each cut at
    the start of a line whose query differs from the line's before it."""
    cuts = [0]
    with open(path, "rb") as f:
        for i in range(1, parts):
            at = _query_start(f, max(size * i // parts, cuts[-1]), size)
            if at >= size:
                break
            if at > cuts[-1]:
                cuts.append(at)
    cuts.append(size)
    return list(itertools.pairwise(cuts))


def _query_start(f: Any, pos: int, size: int) -> int:
    """The offset of the first line at or after ``pos`` whose first field (the query)
    differs from the one of the line before it (``size`` if none)."""
    f.seek(pos)
    buf = f.read(_WINDOW)
    nl = buf.find(b"\n")
    while nl < 0 and pos + len(buf) < size:  # a line longer than the window
        more = f.read(_WINDOW)
        nl = len(buf) + more.find(b"\n") if b"\n" in more else -1
        buf += more
    if nl < 0:
        return size
    # the line holding pos: its query is the previous line's
    f.seek(max(0, pos - _WINDOW))
    back = f.read(pos - max(0, pos - _WINDOW)) + buf[: nl + 1]
    line_start = back.rfind(b"\n", 0, len(back) - 1) + 1
    query = back[line_start:].split(b" ", 1)[0]
    at = pos + nl + 1
    while at < size:
        f.seek(at)
        block = f.read(_WINDOW)
        offset = 0
        while True:
            end = block.find(b"\n", offset)
            if end < 0:
                break
            if block[offset:end].split(b" ", 1)[0] != query:
                return at + offset
            offset = end + 1
        if offset == 0:  # a line longer than the window: keep it whole
            return size
        at += offset
        if at + 0 >= size:
            break
    return size


def _text_to_parquet(paths: list[str], policy: RunIdPolicy, directory: str) -> str:
    """Write the runs of text files (single spaces) to one Parquet file with Polars'
    streaming engine; return its path."""
    target = os.path.join(directory, "run.parquet")
    options: dict[str, Any] = {
        "separator": " ", "has_header": False, "quote_char": None,
        "schema": {S.QUERY_ID: pl.String, "__q0": pl.String, S.DOC_ID: pl.String,
                   "__rank": pl.String, S.SCORE: pl.Float64, "__tag": pl.String},
    }  # fmt: skip
    scans = []
    for path in paths:
        scan = pl.scan_csv(path, **options)
        if policy == "tag":
            scan = scan.with_columns(pl.col("__tag").alias(S.RUN_ID))
        elif policy == "file":
            scan = scan.with_columns(pl.lit(file_run_id(path)).alias(S.RUN_ID))
        named = policy in ("tag", "file")
        scans.append(scan.select(([S.RUN_ID] if named else []) + [S.QUERY_ID, S.DOC_ID, S.SCORE]))
    pl.concat(scans).sink_parquet(target)
    return target


__all__ = ["DEFAULT_CHUNK_ROWS", "evaluate_out_of_core"]
