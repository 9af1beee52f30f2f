"""``ireval QRELS RUN...``: the modern mode, one row per run (per query with ``-q``).

Runs may be files, globs or directories (TREC text, ``.gz``, Parquet, Arrow); every run
file is one run, named after the file, and gives one row (one row per query with ``-q``).
Measures are ir_measures strings or trec_eval names (``-m "nDCG@10 AP RBP(p=0.8)"``). The
output is an aligned table on a terminal and TSV otherwise, or what ``--format`` / the
``--output`` file extension asks for. Queries that cannot be evaluated (ranked but not
judged, judged but not ranked) are summed up on stderr; a progress line shows on stderr
while many files are read, when stderr is a terminal. ``--batch N`` reads and evaluates N
run files at a time, so that memory holds N runs instead of the whole campaign; the output
is the same. ``--chunks N|auto`` evaluates each run file a chunk of queries at a time
(:func:`polars_ireval.evaluate_out_of_core`), for one run larger than memory.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval.cli.common import (
    DEFAULT_MEASURES,
    Parser,
    Progress,
    UsageError,
    add_evaluation_options,
    claim_run_name,
    commands_help,
    evaluation_options,
    expand_runs,
    format_table,
    read_runs,
    run_name,
)
from polars_ireval.errors import IrevalError
from polars_ireval.evaluate import evaluate
from polars_ireval.io.example import EXAMPLE_COMMAND, example_path
from polars_ireval.io.readers import read_qrels
from polars_ireval.judge import coverage
from polars_ireval.outofcore import evaluate_out_of_core
from polars_ireval.results import (
    CoverageWarning,
    no_relevant_note,
    no_relevant_pairs,
)

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


def parser() -> Parser:
    p = Parser(
        prog="ireval",
        description=(  # kept as written (the list of commands): one line each
            "Evaluate TREC runs against qrels: one row per run (per query with -q).\n\n"
            + commands_help()
        ),
        epilog=f"Example: {EXAMPLE_COMMAND}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
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
    add_evaluation_options(p)
    p.add_argument(
        "--residuals",
        action="store_true",
        help="beside each measure that has one (RBP, P@k, InvSq, the C/W/L measures...), its "
        "residual and projected value, as columns '<measure> residual' and '<measure> "
        "projected' (empty for the others)",
    )
    p.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="output format (default: table on a terminal, else tsv; or from --output's extension)",
    )
    p.add_argument("-o", "--output", default=None, help="write to this file instead of stdout")
    p.add_argument(
        "--engine",
        choices=("polars", "duckdb", "spark", "spark-polars"),
        default="polars",
        help="polars (default, one lazy query), duckdb (the SQL macros of sql/), spark (the "
        "same SQL in the active Spark session, else SparkSession.builder.getOrCreate(): "
        "local, or Spark Connect when SPARK_REMOTE is set) or spark-polars (in that session, "
        "the Polars engine on each partition of the run, in Spark's Python workers)",
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
        "--chunks",
        default=None,
        metavar="N|auto",
        help="evaluate each run file a chunk of queries at a time (N chunks, or auto: about "
        "4M lines each), for a run larger than memory; the output is the same",
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
    args = parser().parse_args(argv)
    if args.write_example is not None:
        from polars_ireval.io.example import write_example

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
    options = _options(args)  # checks -M, -c with --missing
    if args.batch is not None and args.batch < 1:
        raise UsageError(f"--batch {args.batch}: the number of run files must be at least 1")
    chunks = _chunks(args.chunks)
    if chunks is not None and args.engine != "polars":
        raise UsageError(f"--chunks evaluates with the Polars engine; drop --engine {args.engine}")
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
    if chunks is not None:
        return _out_of_core(args, paths, qrels, parsed, chunks, fmt, progress)
    size = args.batch or len(paths)
    spark = _spark_session() if args.engine.startswith("spark") else None
    results: list[pl.DataFrame] = []
    covered: list[pl.DataFrame] = []
    seen: dict[str, str] = {}
    for start in range(0, len(paths), size):
        batch = paths[start : start + size]
        run = read_runs(batch, progress, seen=seen, ranks=args.ties == "rank")
        what = (
            f"{len(paths)} run(s)"
            if size >= len(paths)
            else f"runs {start + 1}-{start + len(batch)} of {len(paths)}"
        )
        progress.update("evaluating", what)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CoverageWarning)
            out: Any = evaluate(run, qrels, parsed, **options, engine=args.engine, con=spark)
            if spark is not None:  # a Spark DataFrame: its rows, through Arrow
                out = pl.from_arrow(out.toArrow())
            results.append(out)
        if not args.quiet:
            covered.append(coverage(run, qrels))
        del run  # a batch's rows go before the next batch is read
    progress.done()
    result = _concat_sorted(results)
    if not args.quiet:
        cov = pl.concat(covered)
        lines = coverage_summary(cov, complete=options["missing"] == "zero")
        pairs = no_relevant_pairs(
            cov, qrels.lazy(), parsed, relevance_level=args.relevance_level,
            missing=options["missing"],
        )  # fmt: skip
        note = no_relevant_note(pairs, args.no_relevant)
        for line in [*lines, *([note] if note else [])]:
            print(f"ireval: {line}", file=sys.stderr)
    counts = [m.label for m in parsed if m.defn.integer]
    wide = wide_result(result, [m.label for m in parsed], residuals=args.residuals)
    write_result(wide, fmt, args.output, counts)
    return 0


def _options(args: Any) -> dict[str, Any]:
    """The evaluation options the arguments give, as ``evaluate``'s keywords."""
    return {
        "per_query": args.per_query,
        "residuals": args.residuals,
        **evaluation_options(args),
    }


def _chunks(value: str | None) -> int | bool | None:
    """``--chunks``: None when absent, True for ``auto``, else the number of chunks."""
    if value is None:
        return None
    if value == "auto":
        return True
    if not value.isdigit() or int(value) < 1:
        raise UsageError(f"--chunks {value}: give a number of chunks (at least 1) or auto")
    return int(value)


def _out_of_core(
    args: Any,
    paths: Sequence[str],
    qrels: pl.DataFrame,
    parsed: Any,
    chunks: int | bool,
    fmt: str,
    progress: Progress,
) -> int:
    """``--chunks``: each run file evaluated a chunk of queries at a time
    (:func:`polars_ireval.evaluate_out_of_core`), named as without ``--chunks``."""
    results: list[pl.DataFrame] = []
    seen: dict[str, str] = {}
    notes: list[str] = []
    for i, path in enumerate(paths, 1):
        progress.update("evaluating in chunks", path, done=i - 1, total=len(paths))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", CoverageWarning)
            result = evaluate_out_of_core(
                path, qrels, parsed, chunks=None if chunks is True else int(chunks),
                **_options(args),
            )  # fmt: skip
        notes += [str(w.message) for w in caught if issubclass(w.category, CoverageWarning)]
        if S.RUN_ID not in result.columns:
            result = result.select(pl.lit(run_name(path)).alias(S.RUN_ID), pl.all())
        for rid in result[S.RUN_ID].unique(maintain_order=True).to_list():
            claim_run_name(rid, path, seen)
        results.append(result)
    progress.done()
    if not args.quiet:
        for note in notes:
            print(f"ireval: note: {note}", file=sys.stderr)
    counts = [m.label for m in parsed if m.defn.integer]
    result = _concat_sorted(results)
    wide = wide_result(result, [m.label for m in parsed], residuals=args.residuals)
    write_result(wide, fmt, args.output, counts)
    return 0


def _spark_session() -> Any:
    """The active Spark session, else ``SparkSession.builder.getOrCreate()`` (which reads
    ``SPARK_REMOTE`` for a Spark Connect server)."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise UsageError(
            "--engine spark and spark-polars need pyspark: pip install 'polars-ireval[spark]'"
        ) from None
    return SparkSession.getActiveSession() or SparkSession.builder.getOrCreate()


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


def _concat_sorted(results: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """The results of the batches of one command as one evaluation of all the runs would
    give them: ordered by run (and query), each keeping its measures' order."""
    if len(results) == 1:
        return results[0]
    out = pl.concat(results, how="vertical")
    index = [c for c in (S.RUN_ID, S.QUERY_ID) if c in out.columns]
    return out.sort(index, maintain_order=True)


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


def wide_result(
    result: pl.DataFrame, labels: Sequence[str], *, residuals: bool = False
) -> pl.DataFrame:
    """The long result of :func:`evaluate` as one row per run (and query), one column per
    measure in the order asked for (with ``residuals``, each followed by its
    ``'<measure> residual'`` and ``'<measure> projected'`` columns)."""
    index = [c for c in (S.RUN_ID, S.QUERY_ID) if c in result.columns]
    parts = [("value", "")]
    if residuals:
        parts += [("residual", " residual"), ("projected", " projected")]
    names = [label + suffix for label in labels for _, suffix in parts]
    if result.height == 0:
        return pl.DataFrame(
            schema={**{c: pl.String for c in index}, **dict.fromkeys(names, pl.Float64)}
        )
    keyed = result.with_columns(pl.lit(0).alias("__one")) if not index else result
    keys = index or ["__one"]
    wide = None
    for column, suffix in parts:
        piece = keyed.pivot(on="measure", index=keys, values=column, maintain_order=True)
        piece = piece.rename({label: label + suffix for label in labels if label in piece.columns})
        if wide is not None:
            piece = wide.join(piece, on=keys, how="left", maintain_order="left")
        wide = piece
    assert wide is not None
    return wide.select(*index, *names)


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
