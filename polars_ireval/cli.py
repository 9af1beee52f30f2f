"""``ireval``: evaluate TREC runs from the command line.

The first word chooses the mode (nothing else switches modes)::

    ireval QRELS RUN [RUN ...] [-m MEASURES]... [-q] [-l L] [-c] [-M N] [-J]
           [--format table|tsv|csv|jsonl|parquet] [--output FILE] [--engine polars|duckdb]
           [--batch N]
    ireval --example                       # the bundled example campaign
    ireval --write-example DIR             # its files, regenerated (seeded) into DIR
    ireval trec_eval [trec_eval flags] QRELS RUN      # trec_eval 9.0.8, byte for byte
    ireval compare QRELS RUN [RUN ...] [options]     # significance tests and tables
    ireval pool RUN [RUN ...] --method M [options]     # documents to judge next
    ireval simulate QRELS RUN [RUN ...] [options]      # what a judgment budget buys

**Modern mode.** Runs may be files, globs or directories (TREC text, ``.gz``, Parquet,
Arrow); every run file is one run, named after the file, and gives one row (one row per
query with ``-q``). Measures are ir_measures strings or trec_eval names (``-m "nDCG@10 AP
RBP(p=0.8)"``). The output is an aligned table on a terminal and TSV otherwise, or what
``--format`` / the ``--output`` file extension asks for. Queries that cannot be evaluated
(ranked but not judged, judged but not ranked) are summed up on stderr; a progress line
shows on stderr while many files are read, when stderr is a terminal. ``--batch N`` reads
and evaluates N run files at a time, so that memory holds N runs instead of the whole
campaign; the output is the same.

**trec_eval mode.** ``ireval trec_eval`` takes trec_eval's flags with their short and long
forms (``-q``/``--query_eval_wanted``, ``-m``/``--measure``, ``-c``, ``-l``, ``-n``, ``-D``,
``-J``, ``-N``, ``-M``, ``-R``, ``-T``, ``-o``, ``-Z``, ``-h``, ``-v``) and prints on stdout
what trec_eval 9.0.8 prints, or trec_eval 10.0 with ``--trec_eval_version 10.0``. The run
may be ``-`` (stdin).

Errors are one line on stderr (``ireval: error: ...``) with exit code 2.
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any, NoReturn

import polars as pl

from polars_ireval import schema as S
from polars_ireval.engines.polars import per_query_frame
from polars_ireval.errors import IrevalError
from polars_ireval.evaluate import evaluate, evaluate_table
from polars_ireval.example import EXAMPLE_COMMAND, example_path
from polars_ireval.io import Scores, file_run_id, is_text_run, read_qrels, read_run
from polars_ireval.judge import coverage
from polars_ireval.registry import REGISTRY, Measure
from polars_ireval.results import CoverageWarning, long_result
from polars_ireval.trec_format import NUM_Q, RUNID

DEFAULT_MEASURES = "nDCG@10 AP P@10 R@1000 RR"
FORMATS = ("table", "tsv", "csv", "jsonl", "parquet")
_EXTENSIONS = {
    ".tsv": "tsv",
    ".txt": "table",
    ".csv": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
    ".parquet": "parquet",
}
TREC_EVAL_VERSIONS = ("9.0.8", "10.0", "9.0.4")


class UsageError(IrevalError):
    """The command line itself is wrong (unknown flag, missing file argument...)."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors raised as :class:`UsageError` (not printed + exit)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} -h')")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ireval`` command; returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "compare":
        from polars_ireval.cli_compare import main as compare_main

        return compare_main(args[1:])
    if args and args[0] == "pool":
        from polars_ireval.cli_pool import pool_main

        return pool_main(args[1:])
    if args and args[0] == "simulate":
        from polars_ireval.cli_pool import simulate_main

        return simulate_main(args[1:])
    if args and args[0] == "trec_eval":
        return guarded(trec_eval_main, args[1:])
    return guarded(modern_main, args)


def guarded(command: Callable[[list[str]], int], argv: Sequence[str]) -> int:
    """Run a command's body on ``argv``: an error is one line on stderr (``ireval: error:
    ...``) and exit code 2, a closed pipe exit code 0. Every subcommand runs through it."""
    try:
        return command(list(argv))
    except (
        IrevalError, OSError, ImportError, NotImplementedError, pl.exceptions.PolarsError
    ) as e:  # fmt: skip
        if isinstance(e, BrokenPipeError):
            return 0
        print(f"ireval: error: {_one_line(e)}", file=sys.stderr)
        return 2


def _one_line(e: BaseException) -> str:
    if isinstance(e, FileNotFoundError):
        name = e.filename if e.filename is not None else str(e).rpartition(": ")[2]
        return f"{name}: no such file; check the path"
    if isinstance(e, IsADirectoryError) and e.filename is not None:
        return f"{e.filename}: is a directory, expected a file"
    if isinstance(e, OSError) and e.filename is not None:
        return f"{e.filename}: {e.strerror or e}"
    text = str(e) or type(e).__name__
    if isinstance(e, pl.exceptions.PolarsError):
        text = f"cannot read the input ({type(e).__name__}: {text})"
    return "; ".join(part.strip() for part in text.splitlines() if part.strip())


# --------------------------------------------------------------------------- modern mode


def _parser() -> _Parser:
    p = _Parser(
        prog="ireval",
        description=(
            "Evaluate TREC runs against qrels: one row per run. "
            "'ireval trec_eval ...' is a drop-in for trec_eval 9.0.8 (see 'ireval trec_eval -h')."
        ),
        epilog=f"Example: {EXAMPLE_COMMAND}",
    )
    p.add_argument("qrels", nargs="?", help="qrels file (qid iter docno rel; .gz, Parquet)")
    p.add_argument(
        "runs", nargs="*", help="run files, globs or directories (TREC text, .gz, Parquet)"
    )
    p.add_argument(
        "-m",
        "--measure",
        action="append",
        default=None,
        help=f"measures: ir_measures strings or trec_eval names (default: {DEFAULT_MEASURES!r})",
    )
    p.add_argument("-q", "--per-query", action="store_true", help="one row per run and query")
    p.add_argument("-l", "--relevance-level", type=int, default=1, help="minimum relevant grade")
    p.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="score judged queries missing from a run as 0 (trec_eval -c)",
    )
    p.add_argument("-M", "--max-depth", type=int, default=None, help="evaluate the top M only")
    p.add_argument("-J", "--judged-only", action="store_true", help="drop unjudged documents")
    p.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="output format (default: table on a terminal, else tsv; or from --output's extension)",
    )
    p.add_argument("-o", "--output", default=None, help="write to this file instead of stdout")
    p.add_argument(
        "--engine",
        choices=("polars", "duckdb"),
        default="polars",
        help="polars (default, one lazy query) or duckdb (the SQL macros of sql/)",
    )
    p.add_argument(
        "--batch",
        type=int,
        default=None,
        metavar="N",
        help="read and evaluate N run files at a time: memory for N runs, not all of them "
        "(default: all at once, the fastest); the output is the same",
    )
    p.add_argument(
        "--scores",
        choices=("float64", "float32"),
        default="float64",
        help="float32: round scores to 32-bit floats before ranking, as trec_eval 9.0.4 and "
        "earlier (and pytrec_eval) do, to reproduce results computed with them",
    )
    p.add_argument("--quiet", action="store_true", help="no summary of skipped queries on stderr")
    p.add_argument(
        "--progress",
        choices=("auto", "always", "never"),
        default="auto",
        help="progress on stderr while reading (auto: when stderr is a terminal)",
    )
    p.add_argument("--example", action="store_true", help="evaluate the bundled example campaign")
    p.add_argument(
        "--write-example",
        metavar="DIR",
        default=None,
        help="write the example campaign (seeded, identical to the bundled one) into DIR",
    )
    return p


def modern_main(argv: Sequence[str]) -> int:
    """``ireval QRELS RUN...``: one row per run (per query with ``-q``)."""
    args = _parser().parse_args(argv)
    if args.write_example is not None:
        from polars_ireval.example import write_example

        write_example(Path(args.write_example))
        print(f"ireval: wrote the example campaign into {args.write_example}", file=sys.stderr)
        return 0
    if args.example:
        if args.qrels or args.runs:
            raise UsageError("--example takes no qrels or run arguments")
        qrels_path, run_args = example_path("qrels.txt"), [example_path("runs")]
    elif args.qrels and args.runs:
        qrels_path, run_args = args.qrels, args.runs
    elif args.qrels:
        raise UsageError(f"give at least one run after the qrels file {args.qrels!r}")
    else:
        raise UsageError("give a qrels file and at least one run (or --example); see ireval -h")
    if args.max_depth is not None and args.max_depth < 1:
        raise UsageError(f"-M {args.max_depth}: the number of documents must be at least 1")
    if args.batch is not None and args.batch < 1:
        raise UsageError(f"--batch {args.batch}: the number of run files must be at least 1")
    if not os.path.exists(qrels_path):
        raise FileNotFoundError(2, "no such file", qrels_path)
    fmt = _output_format(args.format, args.output)
    measures = " ".join(args.measure) if args.measure else DEFAULT_MEASURES
    from polars_ireval.parse import parse_measures

    try:  # fail on a bad measure before reading anything
        parsed = parse_measures(measures)
    except IrevalError as e:
        if any(token in str(e) for token in measures.split()):
            raise
        raise type(e)(f"-m {measures!r}: {e}") from None
    progress = Progress(args.progress)
    paths = expand_runs(run_args)
    progress.update("reading qrels", qrels_path)
    qrels = read_qrels(qrels_path)
    size = args.batch or len(paths)
    results: list[pl.DataFrame] = []
    covered: list[pl.DataFrame] = []
    seen: dict[str, str] = {}
    for start in range(0, len(paths), size):
        batch = paths[start : start + size]
        run = read_runs(batch, progress, seen=seen)
        what = (
            f"{len(paths)} run(s)"
            if size >= len(paths)
            else f"runs {start + 1}-{start + len(batch)} of {len(paths)}"
        )
        progress.update("evaluating", what)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CoverageWarning)
            results.append(
                evaluate(
                    run,
                    qrels,
                    parsed,
                    per_query=args.per_query,
                    relevance_level=args.relevance_level,
                    missing="zero" if args.complete else "skip",
                    max_depth=args.max_depth,
                    judged_only=args.judged_only,
                    engine=args.engine,
                    scores=args.scores,
                )
            )
        if not args.quiet:
            covered.append(coverage(run, qrels))
        del run  # a batch's rows go before the next batch is read
    progress.done()
    result = _concat_sorted(results)
    if not args.quiet:
        for line in coverage_summary(pl.concat(covered), complete=args.complete):
            print(f"ireval: {line}", file=sys.stderr)
    counts = [m.label for m in parsed if m.defn.integer]
    write_result(wide_result(result, [m.label for m in parsed]), fmt, args.output, counts)
    return 0


def _output_format(fmt: str | None, output: str | None) -> str:
    if fmt is not None:
        return fmt
    if output is not None:
        ext = "".join(Path(output).suffixes[-1:]).lower()
        if ext not in _EXTENSIONS:
            raise UsageError(
                f"--output {output!r}: cannot tell the format from {ext or 'no extension'!r}; "
                f"use one of {sorted(_EXTENSIONS)} or give --format"
            )
        return _EXTENSIONS[ext]
    return "table" if sys.stdout.isatty() else "tsv"


_GLOB_CHARS = set("*?[")


def expand_runs(args: Sequence[str]) -> list[str]:
    """Run files named by ``args``: files as given, globs expanded, directories listed.

    Globs and directories are sorted; hidden files (``.name``) in directories are left
    out. A glob that matches nothing or an empty directory is an error, not a silent skip.
    """
    paths: list[str] = []
    for arg in args:
        if os.path.isdir(arg):
            found = sorted(
                str(p) for p in Path(arg).iterdir() if p.is_file() and not p.name.startswith(".")
            )
            if not found:
                raise UsageError(f"{arg}: the directory holds no run file")
            paths += found
        elif _GLOB_CHARS & set(arg) and not os.path.exists(arg):
            found = sorted(p for p in glob.glob(arg) if os.path.isfile(p))
            if not found:
                raise UsageError(f"{arg}: the pattern matches no file")
            paths += found
        else:
            if not os.path.exists(arg):
                raise FileNotFoundError(2, "no such file", arg)
            paths.append(arg)
    return paths


def run_name(path: str) -> str:
    """The run name of a file: its name without extensions (``runs/bm25.run.gz`` → bm25)."""
    name = Path(path).name
    for _ in range(2):
        stem, ext = os.path.splitext(name)
        if ext.lower() in (".gz", ".run", ".txt", ".trec", ".parquet", ".arrow", ".ipc", ".tsv"):
            name = stem
    return name or Path(path).name


def read_runs(
    paths: Sequence[str],
    progress: Progress | None = None,
    *,
    seen: dict[str, str] | None = None,
) -> pl.DataFrame:
    """Read every run file into one frame with a ``run_id`` column (one run per file).

    A Parquet or Arrow file that has its own ``run_id`` column keeps it (it may hold many
    runs). Two files giving the same run name are an error, also across calls that share
    ``seen`` (run name -> file, filled in here: the batches of one command). Several TREC
    text files are read together (one parallel scan, one validation).
    """
    origin: dict[str, str] = {} if seen is None else seen
    names = [run_name(p) for p in paths]
    # io names a run by file_run_id, which mostly agrees with run_name
    same = names == [file_run_id(p) for p in paths] and len(set(names)) == len(names)
    if len(paths) > 1 and same and all(is_text_run(p) for p in paths):
        for name, path in zip(names, paths, strict=True):
            _claim(name, path, origin)
        if progress is not None:
            progress.update(f"reading {len(paths)} runs", paths[0])
        return read_run(paths, run_id="file")
    frames: list[pl.DataFrame] = []
    for i, path in enumerate(paths, 1):
        if progress is not None:
            progress.update(f"reading run {i}/{len(paths)}", path)
        frame = read_run(path, run_id="auto")
        if S.RUN_ID not in frame.columns:
            frame = frame.with_columns(pl.lit(run_name(path)).alias(S.RUN_ID))
        frame = frame.select(S.RUN_ID, S.QUERY_ID, S.DOC_ID, S.SCORE)
        for rid in frame[S.RUN_ID].unique(maintain_order=True).to_list():
            _claim(rid, path, origin)
        frames.append(frame)
    return pl.concat(frames, how="vertical") if len(frames) > 1 else frames[0]


def _claim(name: str, path: str, origin: dict[str, str]) -> None:
    """Record that run ``name`` comes from ``path``; a name met before is an error."""
    if name in origin:
        raise UsageError(
            f"two runs are named {name!r} ({origin[name]} and {path}); rename one of the files"
        )
    origin[name] = path


def _concat_sorted(results: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """The results of the batches of one command as one evaluation of all the runs would
    give them: ordered by run (and query), each keeping its measures' order."""
    if len(results) == 1:
        return results[0]
    out = pl.concat(results, how="vertical")
    index = [c for c in (S.RUN_ID, S.QUERY_ID) if c in out.columns]
    return out.sort(index, maintain_order=True)


class Progress:
    """One status line on stderr, rewritten in place, when stderr is a terminal.

    ``mode``: ``"auto"`` (shown when stderr is a terminal and the work takes more than
    half a second), ``"always"`` or ``"never"``.
    """

    def __init__(self, mode: str = "auto", stream: IO[str] | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = mode == "always" or (mode == "auto" and self.stream.isatty())
        self.start = time.monotonic()
        self.shown = False

    def update(self, what: str, detail: str = "") -> None:
        if not self.enabled:
            return
        if not self.shown and self.stream.isatty() and time.monotonic() - self.start < 0.5:
            return
        line = f"ireval: {what} {detail}"[:78]
        self.stream.write("\r" + line.ljust(78))
        self.stream.flush()
        self.shown = True

    def done(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * 78 + "\r")
            self.stream.flush()


def coverage_summary(cov: pl.DataFrame, *, complete: bool) -> list[str]:
    """Lines saying, per run, which queries were evaluated, skipped or scored 0, from the
    :func:`polars_ireval.coverage` frame of the runs and qrels.

    Queries ranked but never judged are not evaluated; queries judged but not ranked are
    skipped (or scored 0 with ``-c``). Nothing is left out silently.
    """
    keys = [S.RUN_ID] if S.RUN_ID in cov.columns else []
    summary = (
        cov.group_by(keys, maintain_order=True)
        .agg(
            (pl.col("in_run") & pl.col("in_qrels")).sum().alias("both"),
            pl.col(S.QUERY_ID).filter(~pl.col("in_qrels")).sort().alias("unjudged"),
            pl.col(S.QUERY_ID).filter(~pl.col("in_run")).sort().alias("unranked"),
        )
        .sort(keys)
        if keys
        else cov.select(
            (pl.col("in_run") & pl.col("in_qrels")).sum().alias("both"),
            pl.col(S.QUERY_ID).filter(~pl.col("in_qrels")).sort().implode().alias("unjudged"),
            pl.col(S.QUERY_ID).filter(~pl.col("in_run")).sort().implode().alias("unranked"),
        )
    )
    lines = []
    for row in summary.iter_rows(named=True):
        name = f"run {row[S.RUN_ID]}: " if keys else ""
        parts = [f"{row['both']} queries evaluated"]
        if row["unranked"]:
            what = "scored 0 (-c)" if complete else "skipped (use -c to score them 0)"
            parts.append(
                f"{len(row['unranked'])} judged queries not in the run, {what}: "
                + _sample(row["unranked"])
            )
        if row["unjudged"]:
            parts.append(
                f"{len(row['unjudged'])} ranked queries without judgments, not evaluated: "
                + _sample(row["unjudged"])
            )
        if len(parts) > 1:
            lines.append("note: " + name + "; ".join(parts))
    if not lines:
        n = summary["both"].to_list() or [0]
        span = str(n[0]) if min(n) == max(n) else f"{min(n)}-{max(n)}"
        lines.append(f"note: {summary.height} run(s) x {span} queries evaluated, none skipped")
    return lines


def _sample(ids: Sequence[str], n: int = 5) -> str:
    shown = ", ".join(ids[:n])
    return shown + (f" and {len(ids) - n} more" if len(ids) > n else "")


def wide_result(result: pl.DataFrame, labels: Sequence[str]) -> pl.DataFrame:
    """The long result of :func:`evaluate` as one row per run (and query), one column per
    measure in the order asked for."""
    index = [c for c in (S.RUN_ID, S.QUERY_ID) if c in result.columns]
    if result.height == 0:
        return pl.DataFrame(
            schema={**{c: pl.String for c in index}, **dict.fromkeys(labels, pl.Float64)}
        )
    if not index:
        return result.pivot(on="measure", values="value").select(labels)
    wide = result.pivot(on="measure", index=index, values="value", maintain_order=True)
    return wide.select(*index, *labels)


def write_result(
    wide: pl.DataFrame, fmt: str, output: str | None, integers: Sequence[str] = ()
) -> None:
    """Write the wide result as ``fmt`` to ``output`` (a path) or stdout."""
    if fmt == "parquet":
        if output is None:
            if sys.stdout.isatty():
                raise UsageError("--format parquet writes binary data: give --output FILE.parquet")
            wide.write_parquet(sys.stdout.buffer)
            return
        wide.write_parquet(output)
        return
    if fmt == "jsonl":
        text = wide.write_ndjson()
    elif fmt in ("tsv", "csv"):
        text = wide.write_csv(separator="\t" if fmt == "tsv" else ",", float_precision=None)
    else:
        text = format_table(wide, integers=integers)
    if output is None:
        sys.stdout.write(text)
    else:
        Path(output).write_text(text)


def format_table(wide: pl.DataFrame, decimals: int = 4, integers: Sequence[str] = ()) -> str:
    """An aligned text table: text columns left-aligned, numbers right-aligned with
    ``decimals`` digits (the ``integers`` columns, counts, without).

    >>> import polars as pl
    >>> print(format_table(pl.DataFrame({"run_id": ["a", "bb"], "P@5": [0.4, 0.25]})), end="")
    run_id     P@5
    a       0.4000
    bb      0.2500
    """
    columns: list[list[str]] = []
    right: list[bool] = []
    for name in wide.columns:
        col = wide[name]
        if col.dtype.is_numeric():
            fmt = "{:.0f}" if name in integers else f"{{:.{decimals}f}}"
            text = ["" if v is None else fmt.format(v) for v in col.to_list()]
            right.append(True)
        else:
            text = col.cast(pl.String).fill_null("").to_list()
            right.append(False)
        columns.append([name, *text])
    widths = [max(len(v) for v in col) for col in columns]
    lines = []
    for i in range(wide.height + 1):
        cells = [
            (col[i].rjust(w) if r else col[i].ljust(w))
            for col, w, r in zip(columns, widths, right, strict=True)
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- trec_eval mode

#: trec_eval 9.0.8's measure table order (the order of its output lines).
TREC_ORDER = [
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
    "relstring",
    "recall",
    "infAP",
    "gm_bpref",
    "Rprec_mult",
    "utility",
    "11pt_avg",
    "binG",
    "G",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    "ndcg_cut",
    "map_cut",
    "relative_P",
    "success",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
]
#: Measures trec_eval 10.0 added to ``all_trec``, after the 9.0.8 ones.
TREC10_ADDED = ["rbp", "rbp_resid", "unj"]
#: trec_eval 10.0's ``rbp`` / ``rbp_resid`` (see :func:`polars_ireval.trec_format.trec10_rbp`).
TREC10_MEASURES = ("rbp", "rbp_resid")
OFFICIAL = [
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
]
SET = [
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "utility",
    "set_P",
    "set_recall",
    "set_relative_P",
    "set_map",
    "set_F",
]
PREFS_NICKNAMES = ("all_prefs", "prefs")
JG_NICKNAMES = ("qrels_jg",)
REL_FORMATS = ("qrels", "prefs", "qrels_prefs", "qrels_jg")


def nicknames(version: str = "9.0.8") -> dict[str, list[str]]:
    """trec_eval's measure nicknames (``-m official`` ...) for ``version``."""
    order = TREC_ORDER + (TREC10_ADDED if version == "10.0" else [])
    return {"official": OFFICIAL, "all_trec": order, "set": SET}


def _trec_parser() -> _Parser:
    p = _Parser(
        prog="ireval trec_eval",
        add_help=False,
        description=(
            "trec_eval 9.0.8 compatible evaluation: the same flags (short and long forms) "
            "and, on stdout, the same text byte for byte."
        ),
        epilog=(
            "Measures: trec_eval names with parameters (P.5,10  ndcg_cut.10  "
            "iprec_at_recall..10,.50) or nicknames (official, all_trec, set, prefs, "
            "all_prefs, qrels_jg). Errors: one line on stderr, exit code 2."
        ),
    )
    add = p.add_argument
    add("files", nargs="*", metavar="FILE", help="rel_info_file results_file (results: - = stdin)")
    add("-h", "--help", action="store_true", help="print this help (and -m measures') and exit")
    add("-v", "--version", action="store_true", help="print the trec_eval version and exit")
    add("-q", "--query_eval_wanted", action="store_true", help="also print per-query values")
    add("-m", "--measure", action="append", default=None, help="measure[.params] or nickname")
    add(
        "-c",
        "--complete_rel_info_wanted",
        action="store_true",
        help="average over every judged query (missing queries count 0)",
    )
    add("-l", "--level_for_rel", type=int, default=1, metavar="L", help="minimum relevant grade")
    add("-n", "--nosummary", action="store_true", help="no summary (the 'all' lines)")
    add(
        "-D",
        "--Debug_level",
        default=None,
        metavar="N[.QID]",
        help="debug level; with .QID only query QID is evaluated (debug text is not printed)",
    )
    add("-J", "--Judged_docs_only", action="store_true", help="evaluate judged documents only")
    add(
        "-N",
        "--Number_docs_in_coll",
        type=int,
        default=None,
        metavar="N",
        help="documents in the collection (utility's last term)",
    )
    add(
        "-M",
        "--Max_retrieved_per_topic",
        type=int,
        default=None,
        metavar="M",
        help="evaluate the top M documents of each query only",
    )
    add(
        "-R",
        "--Rel_info_format",
        choices=REL_FORMATS,
        default="qrels",
        metavar="FORMAT",
        help=f"format of rel_info_file: {', '.join(REL_FORMATS)} (default qrels)",
    )
    add(
        "-T",
        "--Results_format",
        choices=("trec_results",),
        default="trec_results",
        metavar="FORMAT",
        help="format of results_file: trec_results (the only one)",
    )
    add(
        "-o",
        "--Output_old_results_format",
        action="store_true",
        help="accepted for compatibility; obsolete in trec_eval 9, no effect",
    )
    add("-Z", "--Zscore", default=None, metavar="ZFILE", help="print z-scores (qid meas mean sd)")
    add(
        "--trec_eval_version",
        choices=TREC_EVAL_VERSIONS,
        default="9.0.8",
        help="imitate trec_eval 9.0.8 (default), 10.0, or 9.0.4 (9.0.8's output with scores "
        "read as 32-bit floats, as 9.0.4 and earlier store them: the binary many official "
        "TREC results were computed with)",
    )
    return p


def trec_eval_main(argv: Sequence[str]) -> int:
    """``ireval trec_eval ...``: print what trec_eval 9.0.8 (or 10.0) prints."""
    parser = _trec_parser()
    args = parser.parse_args(argv)
    if args.help:
        sys.stdout.write(parser.format_help() + _measure_help(args.measure))
        return 0
    if args.version:
        from polars_ireval import __version__

        print(
            f"trec_eval version {args.trec_eval_version} (ireval, polars_ireval {__version__})",
            file=sys.stderr,
        )
        return 0
    if len(args.files) != 2:
        raise UsageError(
            f"expected 2 files (rel_info_file results_file), got {len(args.files)}"
            + (f": {args.files}" if args.files else "")
        )
    qrels_path, run_path = args.files
    for path in (qrels_path, run_path, args.Zscore):
        if path is not None and path != "-" and not os.path.isfile(path):
            if os.path.isdir(path):
                raise UsageError(f"{path}: is a directory; trec_eval mode takes one file each")
            raise FileNotFoundError(2, "no such file", path)
    if qrels_path == "-":
        raise UsageError("only the results file may be '-' (stdin), as in trec_eval")
    tmp: str | None = None
    try:
        if run_path == "-":
            import tempfile

            with tempfile.NamedTemporaryFile("wb", suffix=".txt", delete=False) as f:
                # bytes: the reader checks the encoding (a text stream, as tests give, as UTF-8)
                stdin = getattr(sys.stdin, "buffer", None)
                f.write(stdin.read() if stdin else sys.stdin.read().encode("utf-8", "replace"))
                tmp = run_path = f.name
        sys.stdout.write(trec_eval_text(args, qrels_path, run_path))
        return 0
    except IrevalError as e:  # name the run as the user gave it, not the temporary file
        if tmp is None:
            raise
        e.args = (str(e).replace(tmp, "<stdin>"),)
        raise
    finally:
        if tmp is not None:
            os.unlink(tmp)


def _measure_help(specs: Sequence[str] | None) -> str:
    if not specs:
        return ""
    from polars_ireval.registry import TREC

    out = ["\nMeasures:\n"]
    for spec in specs:
        for token in spec.split():
            family = _family(token)
            if family in TREC:
                defn = TREC[family][0]
                out.append(f"  {family}: {defn.summary}\n")
            else:
                out.append(f"  {token}\n")
    return "".join(out)


def _family(token: str) -> str:
    """The trec_eval measure a ``-m`` token names (``P.5,10`` and ``P_5`` are ``P``)."""
    from polars_ireval.registry import TREC

    if token in TREC or token in TREC10_MEASURES or token.startswith("relstring"):
        return "relstring" if token.startswith("relstring") else token
    base = token.split(".", 1)[0]
    if base in TREC or base in TREC10_MEASURES:
        return base
    for i in range(len(token) - 1, 0, -1):
        if token[i] == "_" and token[:i] in TREC:
            return token[:i]
    return token


def _expand(token: str) -> list[Measure]:
    """Measures of one ``-m`` token, parameters ascending as trec_eval sorts them."""
    from polars_ireval.parse import parse_measures
    from polars_ireval.registry import TREC

    if token in TREC:
        _defn, spec = TREC[token]
        if spec.kind == "list" and spec.defaults:
            return parse_measures([f"{token}_{spec.fmt(v)}" for v in spec.defaults])
    found = parse_measures(token)

    def key(m: Measure) -> tuple[int, float]:
        spec = TREC.get(_family(token))
        v = m.params.get(spec[1].param) if spec and spec[1].param else None
        return (0, float(v)) if isinstance(v, (int, float)) else (1, 0.0)

    return sorted(found, key=key)


def _relstring_len(token: str) -> int:
    rest = token[len("relstring") :].lstrip("._")
    if not rest:
        return 10
    try:
        n = int(float(rest))
    except ValueError:
        raise UsageError(f"-m {token}: {rest!r} is not a number of documents") from None
    if n < 1:
        raise UsageError(f"-m {token}: the relstring length must be at least 1")
    return n


def trec_items(specs: Sequence[str], version: str = "9.0.8") -> tuple[list[Any], dict[str, int]]:
    """Output items in trec_eval's table order, and the relstring labels with their length."""
    names = nicknames(version)
    order_all = names["all_trec"]
    families: dict[str, list[str]] = {}
    for spec in specs:
        for token in spec.split():
            if token in PREFS_NICKNAMES or token.startswith("prefs_"):
                raise UsageError(
                    f"-m {token}: preference measures need preference judgments: "
                    "add -R prefs (a prefs file) or -R qrels_prefs (prefs from the qrels)"
                )
            if token in JG_NICKNAMES or token.endswith("_avgjg"):
                raise UsageError(f"-m {token}: judgment-group measures need -R qrels_jg")
            for name in names.get(token, [token]):
                families.setdefault(_family(name), []).append(name)
    order = [f for f in order_all if f in families] + [f for f in families if f not in order_all]
    items: list[Any] = []
    rel: dict[str, int] = {}
    for fam in order:
        tokens = families[fam]
        if any(t != fam for t in tokens):  # explicit parameters replace trec_eval's defaults
            # and, as in trec_eval, the first explicit parameters of a measure win: later
            # ones (-m P.5 -m P.10) are ignored
            tokens = [t for t in tokens if t != fam][:1]
        for token in tokens:
            if fam in (RUNID, NUM_Q) or fam in TREC10_MEASURES:
                if fam not in items:
                    items.append(fam)
            elif fam == "relstring":
                n = _relstring_len(token)
                label = "relstring" if token == "relstring" else f"relstring_{n}"
                rel[label] = n
                if label not in items:
                    items.append(label)
            else:
                try:
                    expanded = _expand(token)
                except IrevalError as e:
                    if token in str(e):
                        raise
                    raise type(e)(f"-m {token}: {e}") from None
                for m in expanded:
                    if all(not isinstance(i, Measure) or i.label != m.label for i in items):
                        items.append(m)
    return items, rel


#: What trec_eval's interpolated precision reads of a ranking, evaluated beside the
#: measures asked for under ``-J`` (labels no measure string can take).
_HIDDEN_STATS = [
    REGISTRY["NumRet"].bind({}, label="\x00num_ret"),
    REGISTRY["NumRel"].bind({}, label="\x00num_rel"),
]


def _empty_ranking_nan(
    per_query: pl.DataFrame, measures: list[Measure], stats: list[Measure], ranked: set[str]
) -> pl.DataFrame:
    """trec_eval's interpolated precision of a ranking that ``-J`` empties (every
    retrieved document unjudged): it divides 0 relevant by 0 retrieved documents, and
    prints ``-nan`` for each recall level asking for no relevant document (x·R rounded
    to 0), and for ``11pt_avg`` when one of its levels does. The library scores such a
    ranking 0 (docs/compat.md); this mode prints what trec_eval prints. ``per_query``
    holds the values of ``measures`` and of ``stats`` (num_ret, num_rel), which go.
    """
    from polars_ireval.measures.iprec import needed_relevant

    ret, rel = (m.label for m in stats)
    values = per_query.filter(~pl.col("measure").is_in([ret, rel]))
    counts = per_query.filter(pl.col("measure").is_in([ret, rel])).pivot(
        on="measure", index=S.QUERY_ID, values="value"
    )
    empty = (pl.col(ret) == 0) & pl.col(S.QUERY_ID).is_in(sorted(ranked))  # not -c's
    nan = pl.lit(float("-nan"))  # x86's 0/0, which trec_eval prints as -nan
    value = pl.col("value")
    for m in measures:
        if m.name not in ("IPrec", "11pt_avg"):
            continue
        given = {p.name: p.default for p in m.defn.params} | m.params
        levels = (given["recall"],) if m.name == "IPrec" else given["points"]
        rounding = given["rounding"]
        zero = pl.any_horizontal([needed_relevant(x, pl.col(rel), rounding) == 0 for x in levels])
        value = pl.when((pl.col("measure") == m.label) & empty & zero).then(nan).otherwise(value)
    return (
        values.join(counts, on=S.QUERY_ID, how="left", maintain_order="left")
        .with_columns(value.alias("value"))
        .select(values.columns)
    )


def _relstring_table(
    run: pl.DataFrame, qrels: pl.DataFrame, length: int, options: dict[str, Any]
) -> pl.DataFrame:
    """The evaluation table relstring reads: its ``length`` top ranks only, unless ``-J``
    condenses the rankings (their top ranks then come from anywhere in the run)."""
    from polars_ireval.judge import judge

    depth = options["max_depth"]
    if not options["judged_only"]:
        depth = length if depth is None else min(depth, length)
    return judge(run, qrels, unjudged=True, **{**options, "max_depth": depth})


def _relstrings(table: pl.DataFrame | None, lengths: dict[str, int]) -> dict[str, dict[str, str]]:
    if table is None or not lengths:
        return {}
    ranked = table.filter(pl.col(S.RANK).is_not_null()).sort(S.QUERY_ID, S.RANK)
    rel = pl.col(S.RELEVANCE)
    char = (
        pl.when(rel.is_null())
        .then(pl.lit("-"))
        .when(rel < 0)
        .then(pl.lit("."))
        .when(rel > 9)
        .then(pl.lit("+"))
        .otherwise(rel.cast(pl.Int64).cast(pl.String))
    )
    out: dict[str, dict[str, str]] = {}
    for label, n in lengths.items():
        strings = (
            ranked.filter(pl.col(S.RANK) <= n)
            .group_by(S.QUERY_ID, maintain_order=True)
            .agg(char.str.join(""))
        )
        out[label] = dict(strings.iter_rows())
    return out


def _configure(items: list[Any], args: argparse.Namespace) -> list[Any]:
    """Apply ``-N`` (utility's collection size) and the trec_eval version to the measures."""
    out = []
    for item in items:
        if isinstance(item, Measure):
            names = {p.name for p in item.defn.params}
            params = item.params
            if args.trec_eval_version == "10.0" and "rounding" in names:
                params["rounding"] = "trec_eval10"
            if args.Number_docs_in_coll is not None and "num_docs" in names:
                params["num_docs"] = args.Number_docs_in_coll
            if params != item.params:
                item = item.defn.bind(params, label=item.label)
        out.append(item)
    return out


def _debug_query(text: str | None) -> str | None:
    """The query of ``-D level.qid`` (None without one); the level must be an integer."""
    if text is None:
        return None
    level, _, qid = text.partition(".")
    try:
        int(level)
    except ValueError:
        raise UsageError(
            f"-D {text!r}: expected a debug level (an integer), optionally followed by .QID"
        ) from None
    print(
        "ireval: note: -D: trec_eval's debug text is not reproduced"
        + (f"; only query {qid!r} is evaluated" if qid else ""),
        file=sys.stderr,
    )
    return qid or None


def _check_options(args: argparse.Namespace) -> None:
    if args.Max_retrieved_per_topic is not None and args.Max_retrieved_per_topic < 1:
        raise UsageError(
            f"-M {args.Max_retrieved_per_topic}: the number of documents must be at least 1"
        )
    if args.Number_docs_in_coll is not None and args.Number_docs_in_coll < 0:
        raise UsageError(f"-N {args.Number_docs_in_coll}: the collection size must be >= 0")


def trec_eval_text(args: argparse.Namespace, qrels_path: str, run_path: str) -> str:
    """What trec_eval prints on stdout for the parsed arguments ``args``."""
    from polars_ireval.judge import judge
    from polars_ireval.trec_format import format_trec_eval

    _check_options(args)
    specs = args.measure or ["official"]
    if any(not spec.split() for spec in specs):
        raise UsageError("-m '': names no measure; give e.g. -m map or -m official")
    tokens = [t for s in specs for t in s.split()]
    run_id = first_tag(run_path)
    debug_query = _debug_query(args.Debug_level)
    if args.Rel_info_format != "qrels":
        if args.Zscore is not None:
            raise UsageError(f"-Z is not supported with -R {args.Rel_info_format} yet")
        return _trec_eval_special(args, qrels_path, run_path, tokens, run_id, debug_query)
    items, lengths = trec_items(specs, args.trec_eval_version)
    items = _configure(items, args)
    measures = [i for i in items if isinstance(i, Measure)]
    run = read_run([run_path], run_id="none", scores=_scores(args))
    qrels = read_qrels(qrels_path)
    zscores = None
    if args.Zscore is not None:
        from polars_ireval.trec_format import read_zscores

        zscores = read_zscores(args.Zscore)
    if debug_query is not None:
        run = run.filter(pl.col(S.QUERY_ID) == debug_query)
        qrels = qrels.filter(pl.col(S.QUERY_ID) == debug_query)
    # trec_eval 10.0's rbp and unj_* read the evaluation table itself, relstring its top ranks
    trec10 = any(i in TREC10_MEASURES for i in items)
    options: dict[str, Any] = {
        "missing": "zero" if args.complete_rel_info_wanted else "skip",
        "max_depth": args.Max_retrieved_per_topic,
        "judged_only": args.Judged_docs_only,
    }
    ranked = set(run[S.QUERY_ID].unique().to_list())
    # under -J, what the NaN of an emptied ranking depends on is evaluated beside them
    nan_check = args.Judged_docs_only and bool(measures)
    computed = [*measures, *_HIDDEN_STATS] if nan_check else measures
    table = None
    if trec10 or not measures:
        unjudged = bool(lengths) or trec10 or any(m.needs_unjudged for m in measures)
        table = judge(run, qrels, unjudged=unjudged, **options)
        evaluated = sorted(table[S.QUERY_ID].unique().to_list())
        per_query = _per_query_values(
            table,
            computed,
            args.level_for_rel,
            run if args.complete_rel_info_wanted else None,
        )
    else:  # evaluate's engine: one judgment, each measure on the smallest table it needs
        per_q = per_query_frame(run, qrels, computed, relevance_level=args.level_for_rel, **options)
        per_query = long_result(per_q, computed, per_query=True).collect()
        evaluated = sorted(per_query[S.QUERY_ID].unique().to_list())
        if lengths:
            table = _relstring_table(run, qrels, max(lengths.values()), options)
    if nan_check:
        per_query = _empty_ranking_nan(per_query, measures, _HIDDEN_STATS, ranked)
    if not ranked.intersection(evaluated):  # with -c too, as trec_eval
        raise IrevalError(
            f"no query has both results in {run_path} and judgments in {qrels_path}; "
            "check that the files belong together (trec_eval stops here too)"
        )
    kinds: dict[str, str] = {m.label: m.defn.aggregate for m in measures}
    summary = aggregate(per_query, kinds, sorted(ranked))
    if trec10:
        from polars_ireval.trec_format import trec10_rbp

        wanted = [i for i in items if isinstance(i, str)]
        assert table is not None
        extra = trec10_rbp(table).filter(pl.col("measure").is_in(wanted))
        per_query = pl.concat([per_query, extra])
        summary = pl.concat([summary, aggregate(extra, dict.fromkeys(wanted, "mean"))])
    if zscores is not None:
        from polars_ireval.trec_format import to_zscores, zscore_summary

        per_query = to_zscores(
            per_query,
            zscores,
            ranked=sorted(ranked),
            gmean=[m.label for m in measures if m.defn.aggregate == "gmean"],
        )
        summary = zscore_summary(
            per_query, {m.label: m.defn.aggregate for m in measures}, len(evaluated)
        )
    if args.complete_rel_info_wanted:  # under -Z too: trec_eval overwrites the sum
        summary = _complete_num_rel(summary, qrels)
    complete_v10 = args.trec_eval_version == "10.0" and args.complete_rel_info_wanted
    shown = evaluated if complete_v10 else [q for q in evaluated if q in ranked]
    # '' for a shown query with nothing ranked: one the run lacks (10.0 with -c), or one
    # whose every document -J removed; trec_eval prints '' for both
    relstrings = {
        k: {q: v.get(q, "") for q in shown} for k, v in _relstrings(table, lengths).items()
    }
    return format_trec_eval(
        items,
        summary,
        per_query if args.query_eval_wanted else None,
        run_id=run_id,
        num_q=len(evaluated),
        relstrings=relstrings,
        queries=shown,
        show_summary=not args.nosummary,
        zscore=zscores is not None,
    )


def _scores(args: argparse.Namespace) -> Scores:
    """How trec_eval mode reads scores: as 32-bit floats for trec_eval 9.0.4."""
    return "float32" if args.trec_eval_version == "9.0.4" else "float64"


def first_tag(path: str) -> str:
    """The tag (sixth field) of the first data line of a TREC run: trec_eval's ``runid``.

    Reads only up to that line (blank and ``#`` lines are skipped); ``""`` when the file
    has no such line or is not TREC text (the reader reports what is wrong with it).
    """
    import gzip
    import zlib

    if Path(path).suffix.lower() in (".parquet", ".arrow", ".ipc", ".feather"):
        return ""
    with open(path, "rb") as raw:
        compressed = raw.read(2) == b"\x1f\x8b"
    try:
        with (gzip.open if compressed else open)(path, "rb") as f:
            for line in f:
                # a carriage return alone ends a line too (old Mac files)
                for part in line.replace(b"\r", b"\n").split(b"\n"):
                    fields = part.decode("utf-8", "replace").split()
                    if fields and not fields[0].startswith("#"):
                        return fields[5] if len(fields) >= 6 else ""
    except (OSError, EOFError, zlib.error):  # corrupt gzip: the reader says what is wrong
        return ""
    return ""


def _complete_num_rel(summary: pl.DataFrame, qrels: pl.DataFrame) -> pl.DataFrame:
    """trec_eval's ``num_rel`` summary under ``-c``: the judgments with a grade >= 1 over
    every query of the qrels, whatever ``-l``, ``-M`` or ``-J`` say (trec_eval 9.0.4 and
    10.0 both print this; checked on the CAsT 2021, RAG 2024 and rel_level references)."""
    total = float(qrels.filter(pl.col(S.RELEVANCE) >= 1).height)
    return summary.with_columns(
        pl.when(pl.col("measure") == "num_rel")
        .then(pl.lit(total))
        .otherwise(pl.col("value"))
        .alias("value")
    )


def _per_query_values(
    table: pl.DataFrame,
    measures: list[Measure],
    level: int,
    run: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """``query_id, measure, value`` of ``measures`` on an evaluation table; with ``run``
    (``-c``), the queries it lacks take the value trec_eval adds for them."""
    if not measures:
        return pl.DataFrame(
            schema={S.QUERY_ID: pl.String, "measure": pl.String, "value": pl.Float64}
        )
    present = None if run is None else run.lazy().select(S.QUERY_ID).unique()
    return evaluate_table(
        table.lazy(), measures, per_query=True, relevance_level=level, ranked=present
    ).collect()


def aggregate(
    per_query: pl.DataFrame, kinds: dict[str, str], ranked: Sequence[str] | None = None
) -> pl.DataFrame:
    """``measure, value``: per-query values combined exactly as trec_eval combines them.

    trec_eval adds the per-query values one by one in query order, then divides by the
    number of queries (``mean``), keeps the sum (``sum``, counts) or takes
    ``exp(Σ log(max(v, 1e-5)) / n)`` (``gmean``), where the queries ``-c`` adds (not in
    ``ranked``) count ``log(1e-5)`` each, added last. A sequential sum (``cum_sum``)
    reproduces its rounding, which a pairwise sum can miss at the 4th decimal.

    Parameters
    ----------
    per_query
        ``query_id, measure, value``, queries in trec_eval's (string) order.
    kinds
        ``label -> "mean" | "sum" | "gmean"``.
    ranked
        The queries the run ranks (default: all of ``per_query``'s).
    """
    import math

    from polars_ireval.registry import MIN_GEO_MEAN

    v = pl.col("value")
    in_run = pl.col(S.QUERY_ID).is_in(list(ranked)) if ranked is not None else pl.lit(True)
    kind = pl.col("kind").first()
    n = pl.len().cast(pl.Float64)
    log_sum = v.clip(lower_bound=MIN_GEO_MEAN).log().filter(in_run).cum_sum().last()
    missing = (~in_run).sum().cast(pl.Float64) * math.log(MIN_GEO_MEAN)
    return (
        per_query.with_columns(pl.col("measure").replace_strict(kinds).alias("kind"))
        .group_by("measure", maintain_order=True)
        .agg(
            pl.when(kind == "sum")
            .then(v.cum_sum().last())
            .when(kind == "gmean")
            .then(((log_sum.fill_null(0.0) + missing) / n).exp())
            .otherwise(v.cum_sum().last() / n)
            .alias("value")
        )
    )


def _trec_eval_special(
    args: argparse.Namespace,
    qrels_path: str,
    run_path: str,
    tokens: list[str],
    run_id: str,
    debug_query: str | None,
) -> str:
    """``-R prefs``, ``-R qrels_prefs`` and ``-R qrels_jg``."""
    from polars_ireval.trec_format import format_trec_eval

    names = [t for t in tokens if t not in (RUNID, NUM_Q, "official")]
    run = read_run([run_path], run_id="none", scores=_scores(args))
    if debug_query is not None:
        run = run.filter(pl.col(S.QUERY_ID) == debug_query)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if args.Rel_info_format == "qrels_jg":
            from polars_ireval.judgment_groups import evaluate_jg, read_qrels_jg

            judged = read_qrels_jg(qrels_path)
            level = args.level_for_rel
            per_query = evaluate_jg(
                run, judged, names or None, per_query=True, relevance_level=level
            )
            summary = evaluate_jg(run, judged, names or None, relevance_level=level)
        else:
            from polars_ireval.prefs import evaluate_prefs, read_prefs, read_qrels_prefs

            reader: Callable[[str], pl.DataFrame] = (
                read_prefs if args.Rel_info_format == "prefs" else read_qrels_prefs
            )
            judged = reader(qrels_path)
            per_query = evaluate_prefs(run, judged, names or None, per_query=True)
            summary = evaluate_prefs(run, judged, names or None)
    labels = [RUNID, NUM_Q, *summary["measure"].to_list()]
    integers = {m: m.startswith("prefs_num_prefs") for m in labels[2:]}
    queries = per_query[S.QUERY_ID].unique(maintain_order=True).to_list()
    return format_trec_eval(
        labels,
        summary,
        per_query if args.query_eval_wanted else None,
        run_id=run_id,
        num_q=len(queries),
        queries=queries,
        show_summary=not args.nosummary,
        integers=integers,
    )


if __name__ == "__main__":
    sys.exit(main())
