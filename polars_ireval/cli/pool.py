"""``ireval pool`` and ``ireval simulate``: judgment pools from the command line.

::

    ireval pool RUN [RUN ...] --method depth|max|A|B|B_mid|C [--budget N] [--depth D]
           [--p P] [--per-query] [--qrels JUDGED] [--contributors IDS|@FILE] [--batch N]
           [--tag TAG] [-o FILE] [--format trec|tsv|csv|jsonl|parquet]
    ireval simulate QRELS RUN [RUN ...] --budgets N,N,... [--methods depth,A,B,C] [--p P]
           [--per-query] [--contributors IDS|@FILE] [--depth D] [--batch N]
           [--unknown nonrelevant|skip] [-m MEASURES]... [--show summary|scores|overlap|
           agreement|judgments] [--format table|tsv|csv|jsonl|parquet] [-o FILE]

``ireval pool`` writes the documents to judge next, in judging order, as TREC's run layout
(``query_id Q0 doc_id order weight tag``; :func:`polars_ireval.write_pool`) on stdout or
into ``-o FILE`` (the format from the extension: ``.parquet``, ``.csv``, ``.tsv``,
``.jsonl``, else text), and one line on stderr saying how many documents and queries.
``ireval simulate`` replays the methods on existing qrels
(:func:`polars_ireval.simulate_judging`) and prints one of its frames (``--show``, default
the summary): an aligned table on a terminal, TSV otherwise.

Contributors are run ids separated by commas, or ``@FILE``: a file with one run id a line
(``#`` starts a comment). Errors are one line on stderr (``ireval: error: ...``) with exit
code 2.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

import polars as pl

from polars_ireval.analysis.judging import UNKNOWN, simulate_judging
from polars_ireval.analysis.pooling import METHODS, pool
from polars_ireval.cli.common import (
    Parser,
    Progress,
    UsageError,
    expand_runs,
    format_table,
    guarded,
    read_runs,
)
from polars_ireval.io.pools import check_pool_tag, pool_text, write_pool
from polars_ireval.io.readers import read_qrels

POOL_FORMATS = ("trec", "tsv", "csv", "jsonl", "parquet")
SIMULATE_FORMATS = ("table", "tsv", "csv", "jsonl", "parquet")
SHOW = ("summary", "scores", "per_query", "overlap", "agreement", "judgments", "reference")
_FRAME_EXTENSIONS = {
    ".tsv": "tsv",
    ".csv": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
}


def pool_main(argv: list[str]) -> int:
    """``ireval pool ...``: returns the exit code (2 on error, with one line on stderr)."""
    return guarded(_pool, argv)


def simulate_main(argv: list[str]) -> int:
    """``ireval simulate ...``: returns the exit code (2 on error, with one line on stderr)."""
    return guarded(_simulate, argv)


# --------------------------------------------------------------------------- parsing


def _common(p: Parser) -> None:
    p.add_argument("--p", type=float, default=0.8, help="RBP persistence of the weights (0.8)")
    p.add_argument(
        "--per-query", action="store_true", help="the budget is per query (default: in all)"
    )
    p.add_argument(
        "--contributors",
        default=None,
        metavar="IDS|@FILE",
        help="runs that make the pool: ids separated by commas, or @FILE (one id a line)",
    )
    p.add_argument(
        "--depth", type=int, default=None, help="candidates within every run's top D only"
    )
    p.add_argument(
        "--progress", choices=("auto", "always", "never"), default="auto", help="progress on stderr"
    )


def pool_parser() -> Parser:
    p = Parser(
        prog="ireval pool",
        description=(
            "Choose the documents to judge next (seed 002's methods, or a depth pool) and "
            "write them in judging order: query_id Q0 doc_id order weight tag."
        ),
        epilog="Example: ireval pool runs/ --method C --budget 500 --qrels judged.txt "
        "-o to_judge.txt",
    )
    p.add_argument("runs", nargs="+", help="run files, globs or directories")
    p.add_argument("--method", required=True, help=f"one of {list(METHODS)}")
    p.add_argument("--budget", type=int, default=None, help="documents to choose")
    p.add_argument(
        "--qrels", default=None, help="judgments made so far (not chosen again; B_mid, C read them)"
    )
    p.add_argument(
        "--batch", type=int, default=None, help="Method B: documents between updates (100)"
    )
    p.add_argument(
        "--tag", default=None, help="last column of the text output: one word (the method)"
    )
    p.add_argument("-o", "--output", default=None, help="write FILE (format from its extension)")
    p.add_argument(
        "--format", choices=POOL_FORMATS, default=None, help="output format (default: trec)"
    )
    p.add_argument("--quiet", action="store_true", help="no summary line on stderr")
    p.add_argument(
        "-l", "--relevance-level", type=int, default=1,
        help="minimum relevant grade of --qrels (B_mid, C read it)",
    )  # fmt: skip
    _common(p)
    return p


def simulate_parser() -> Parser:
    p = Parser(
        prog="ireval simulate",
        description=(
            "Replay pooling methods on existing qrels: relevant documents found, residuals "
            "and agreement with the full qrels' run ordering at each budget."
        ),
        epilog="Example: ireval simulate qrels.txt runs/ --methods depth,A,B,C "
        "--budgets 1000,2000,5000",
    )
    p.add_argument("qrels", help="qrels file (the answers and the reference)")
    p.add_argument("runs", nargs="+", help="run files, globs or directories")
    p.add_argument(
        "--methods",
        default="depth,A,B,C",
        help=f"methods separated by commas, among {list(METHODS)} (default: depth,A,B,C)",
    )
    p.add_argument("--budgets", required=True, help="numbers of judgments separated by commas")
    p.add_argument(
        "--batch", type=int, default=100, help="B, B_mid, C: documents between updates (100)"
    )
    p.add_argument(
        "--unknown",
        choices=UNKNOWN,
        default="nonrelevant",
        help="documents the qrels never judged: nonrelevant (default) or skip (bypassed)",
    )
    p.add_argument(
        "-m", "--measure", action="append", default=None, help="more measures to evaluate"
    )
    p.add_argument("-l", "--relevance-level", type=int, default=1, help="minimum relevant grade")
    p.add_argument("--show", choices=SHOW, default="summary", help="the frame to print")
    p.add_argument("--format", choices=SIMULATE_FORMATS, default=None, help="output format")
    p.add_argument("-o", "--output", default=None, help="write FILE (format from its extension)")
    _common(p)
    return p


def _contributors(value: str | None) -> list[str] | None:
    if value is None:
        return None
    if value.startswith("@"):
        path = value[1:]
        text = Path(path).read_text()
        names = [line.split("#", 1)[0].strip() for line in text.splitlines()]
        ids = [n.split()[0] for n in names if n]
        if not ids:
            raise UsageError(f"--contributors {value}: the file names no run")
        return ids
    ids = [v.strip() for v in value.split(",") if v.strip()]
    if not ids:
        raise UsageError(f"--contributors {value!r}: give run ids separated by commas, or @FILE")
    return ids


def _existing(path: str) -> str:
    if not os.path.exists(path):
        raise FileNotFoundError(2, "no such file", path)
    return path


def _numbers(value: str, flag: str) -> list[int]:
    out = []
    for part in value.replace(" ", ",").split(","):
        if not part:
            continue
        try:
            out.append(int(part.replace("_", "")))
        except ValueError:
            raise UsageError(
                f"{flag} {value!r}: {part!r} is not a whole number; give numbers separated "
                "by commas, e.g. 1000,2000,5000"
            ) from None
    if not out:
        raise UsageError(f"{flag} {value!r}: give at least one number")
    return out


# --------------------------------------------------------------------------- commands


def _pool(argv: list[str]) -> int:
    args = pool_parser().parse_args(argv)
    tag = args.method if args.tag is None else args.tag
    if args.tag is not None:  # before pooling; write_pool and pool_text refuse the same
        check_pool_tag(args.tag)
    progress = Progress(args.progress)
    paths = expand_runs(args.runs)
    judged = None
    if args.qrels is not None:
        progress.update("reading qrels", args.qrels)
        judged = read_qrels(_existing(args.qrels))
    runs = read_runs(paths, progress)
    progress.update("pooling", f"{len(paths)} run file(s)")
    chosen = pool(
        runs,
        method=args.method,
        p=args.p,
        budget=args.budget,
        depth=args.depth,
        per_query=args.per_query,
        qrels=judged,
        contributors=_contributors(args.contributors),
        batch=args.batch,
        relevance_level=args.relevance_level,
        progress=lambda msg: progress.update("pooling", msg),
    )
    progress.done()
    if args.output is not None and args.format is None:
        write_pool(chosen, args.output, tag=tag)  # the format from the extension
    elif (args.format or "trec") == "trec":
        text = pool_text(chosen, tag=tag)
        if args.output is None:
            sys.stdout.write(text)
        else:
            Path(args.output).write_text(text)
    else:
        _write_frame(chosen, args.format, args.output)
    if not args.quiet:
        queries = chosen["query_id"].n_unique()
        print(
            f"ireval: {chosen.height:,} document(s) to judge over {queries:,} "
            f"quer{'y' if queries == 1 else 'ies'} (method {args.method}, p={args.p:g})",
            file=sys.stderr,
        )
    return 0


def _simulate(argv: list[str]) -> int:
    args = simulate_parser().parse_args(argv)
    budgets = _numbers(args.budgets, "--budgets")
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    if not methods:
        raise UsageError(f"--methods {args.methods!r}: give method names separated by commas")
    measures = " ".join(args.measure).split() if args.measure else None
    progress = Progress(args.progress)
    paths = expand_runs(args.runs)
    progress.update("reading qrels", args.qrels)
    qrels = read_qrels(_existing(args.qrels))
    runs = read_runs(paths, progress)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = simulate_judging(
            runs,
            qrels,
            methods=methods,
            budgets=budgets,
            p=args.p,
            per_query=args.per_query,
            contributors=_contributors(args.contributors),
            depth=args.depth,
            batch=args.batch,
            unknown=args.unknown,
            measures=measures,
            relevance_level=args.relevance_level,
            progress=lambda msg: progress.update("simulating", msg),
        )
    progress.done()
    frame: pl.DataFrame = getattr(sim, args.show)
    fmt = args.format
    if fmt is None:
        if args.output is not None:
            fmt = _FRAME_EXTENSIONS.get(Path(args.output).suffix.lower(), "table")
        else:
            fmt = "table" if sys.stdout.isatty() else "tsv"
    _write_frame(frame, fmt, args.output)
    return 0


def _small_numbers(frame: pl.DataFrame, decimals: int = 4) -> pl.DataFrame:
    """The p-values and RBP weights as text, in scientific notation where ``decimals``
    digits would print a number that is not 0 as 0 (``5.5e-06``, not ``0.0000``), padded
    (name too) so that the table aligns them right as it does numbers."""
    small = 0.5 * 10.0**-decimals
    for c, t in frame.schema.items():
        if not (t.is_float() and (c == "weight" or c.endswith("p_value"))):
            continue
        text = [
            "" if v is None else f"{v:.1e}" if 0 < abs(v) < small else f"{v:.{decimals}f}"
            for v in frame[c].to_list()
        ]
        width = max([len(c), *map(len, text)])
        padded = pl.Series(c, [v.rjust(width) for v in text], dtype=pl.String)
        frame = frame.with_columns(padded).rename({c: c.rjust(width)})
    return frame


def _write_frame(frame: pl.DataFrame, fmt: str, path: str | None) -> None:
    if fmt == "parquet":
        if path is None:
            if sys.stdout.isatty():
                raise UsageError("--format parquet writes binary data: give -o FILE.parquet")
            frame.write_parquet(sys.stdout.buffer)
        else:
            frame.write_parquet(path)
        return
    if fmt == "jsonl":
        text = frame.write_ndjson()
    elif fmt in ("tsv", "csv"):
        text = frame.write_csv(separator="\t" if fmt == "tsv" else ",", float_precision=None)
    else:
        counts = [c for c, t in frame.schema.items() if t.is_integer()]
        text = format_table(_small_numbers(frame), integers=counts)
    if path is None:
        sys.stdout.write(text)
    else:
        Path(path).write_text(text)
