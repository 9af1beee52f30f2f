"""``ireval compare``: significance tests between runs, from the command line.

::

    ireval compare QRELS RUN [RUN ...] [-m MEASURES]... [--baseline RUN | --pairs all]
           [--test t|wilcoxon|sign|randomization|bootstrap|tukey_hsd|randomized_tukey_hsd]
           [--correction none|bonferroni|holm|bh|by] [--alternative two-sided|greater|less]
           [--alpha A] [-a COLUMN] [-b COLUMN] [--missing error|skip|zero]
           [--resamples N] [--seed S] [--ci t|percentile|bca|tukey|none]
           [--format table|markdown|latex|html|tsv|csv|jsonl|parquet] [-o FILE]...

It reads and evaluates the runs per query (as ``ireval -q`` does), calls
:func:`polars_ireval.compare` and renders :func:`polars_ireval.report`: on a terminal the
runs x measures table with its marks and legend; piped, the comparison frame as TSV (one
row per measure and pair). ``--format`` chooses what goes to stdout: the table as
``table``, ``markdown``, ``latex`` or ``html``, or the comparison frame as ``tsv``, ``csv``,
``jsonl`` or ``parquet``. Each ``-o FILE`` (repeatable) writes one more format, taken from
the extension (``.txt``, ``.md``, ``.tex``, ``.html``, ``.tsv``, ``.csv``, ``.jsonl``,
``.parquet``).

Errors are one line on stderr (``ireval: error: ...``) with exit code 2.
"""

from __future__ import annotations

import json
import math
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from polars_ireval._base.numeric import RELATIVE_TOLERANCE
from polars_ireval._base.options import check_missing
from polars_ireval.analysis.reporting import Report, report
from polars_ireval.analysis.significance import (
    ALTERNATIVES,
    CORRECTIONS,
    TESTS,
    compare,
)
from polars_ireval.cli.common import (
    DEFAULT_MEASURES,
    Parser,
    Progress,
    UsageError,
    add_evaluation_options,
    evaluation_options,
    expand_runs,
    guarded,
    read_runs,
)
from polars_ireval.errors import MissingQueryError
from polars_ireval.evaluate import evaluate
from polars_ireval.io.readers import read_qrels
from polars_ireval.results import CoverageWarning

REPORT_FORMATS = ("table", "markdown", "latex", "html")
FRAME_FORMATS = ("tsv", "csv", "jsonl", "parquet")
_EXTENSIONS = {
    ".txt": "table",
    ".md": "markdown",
    ".markdown": "markdown",
    ".tex": "latex",
    ".html": "html",
    ".htm": "html",
    ".tsv": "tsv",
    ".csv": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
}


def parser() -> Parser:
    p = Parser(
        prog="ireval compare",
        description=(
            "Compare runs with significance tests: every run against a baseline, or every "
            "pair; prints the runs x measures table with significance marks."
        ),
        epilog=(
            "Example: ireval compare qrels.txt runs/ -m 'nDCG@10 AP' --baseline bm25 "
            "--test t --correction holm --format latex"
        ),
    )
    p.add_argument("qrels", help="qrels file (qid iter docno rel; .gz, Parquet)")
    p.add_argument("runs", nargs="+", help="run files, globs or directories")
    p.add_argument(
        "-m",
        "--measure",
        action="append",
        default=None,
        help=f"measures (default: {DEFAULT_MEASURES!r})",
    )
    who = p.add_mutually_exclusive_group()
    who.add_argument(
        "--baseline",
        default=None,
        help="compare every run with this run (or with a fixed score, when a number)",
    )
    who.add_argument(
        "--pairs", choices=("all",), default=None, help="compare every pair (the default)"
    )
    p.add_argument("--test", default="t", help=f"one of {list(TESTS)} (default: t)")
    p.add_argument(
        "--correction", default="none", help=f"one of {list(CORRECTIONS)} (default: none)"
    )
    p.add_argument("--alternative", default="two-sided", choices=ALTERNATIVES)
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (0.05)")
    p.add_argument("-a", dest="a", default="value", help="column of run_a (default: value)")
    p.add_argument(
        "-b", dest="b", default=None, help="column of run_b: value, upper, projected (default: -a)"
    )
    p.add_argument(
        "--missing",
        default="error",
        choices=("error", "skip", "zero", "intersect"),
        metavar="{error,skip,zero}",
        help="queries some runs lack: error (default), skip (compare on the queries every "
        "run has; 'intersect', its old name, is still accepted), zero (score them 0)",
    )
    p.add_argument("--resamples", type=int, default=10_000, help="resamples (10000)")
    p.add_argument("--seed", type=int, default=None, help="seed of the resampling")
    p.add_argument("--method", default="auto", help="auto, exact, approx, monte_carlo")
    p.add_argument("--continuity", default="none", help="Wilcoxon: none, scipy, seed003")
    p.add_argument(
        "--tolerance",
        type=float,
        default=RELATIVE_TOLERANCE,
        help="relative rounding error under which two differences are equal, for the "
        "Wilcoxon and sign tests (1e-14; 0: the floats as scipy ranks them)",
    )
    p.add_argument(
        "--ci",
        default="auto",
        help="interval of the difference: auto, t, percentile, bca, tukey, none",
    )
    p.add_argument(
        "--show-ci",
        choices=("mean", "delta"),
        default=None,
        help="print intervals in the table: of each mean, or of the difference from the baseline",
    )
    p.add_argument("--sort-by", default=None, metavar="MEASURE", help="order rows by this mean")
    p.add_argument("--decimals", type=int, default=4, help="digits in the table (4)")
    p.add_argument(
        "--format",
        choices=REPORT_FORMATS + FRAME_FORMATS,
        default=None,
        help="stdout: table on a terminal, else tsv (the comparison frame)",
    )
    p.add_argument(
        "-o",
        "--output",
        action="append",
        default=[],
        help="also write FILE, format from its extension (repeatable)",
    )
    add_evaluation_options(p, missing=False)  # --missing above is the comparison's
    _statistics_options(p)
    _latex_options(p)
    p.add_argument(
        "--progress", choices=("auto", "always", "never"), default="auto", help="progress on stderr"
    )
    return p


def _statistics_options(p: Parser) -> None:
    """compare's and report's options beyond the test: runs, interval, effect size, power."""
    p.add_argument(
        "--run-ids", default=None, metavar="IDS",
        help="the runs to compare (and show), separated by commas (default: all)",
    )  # fmt: skip
    p.add_argument(
        "--confidence", type=float, default=None,
        help="level of the intervals (default: 1 - alpha)",
    )  # fmt: skip
    p.add_argument(
        "--effect-size", default="auto",
        help="auto, cohen_dz (delta / sd of the differences) or sakai (delta / sqrt(V_E))",
    )  # fmt: skip
    p.add_argument(
        "--zero-method", default="wilcox",
        help="Wilcoxon: zero differences wilcox (dropped, default), pratt or zsplit",
    )  # fmt: skip
    p.add_argument(
        "--power", type=float, default=0.8,
        help="power for topics_needed (0.8)",
    )  # fmt: skip
    p.add_argument(
        "--min-difference", type=float, default=None,
        help="difference topics_needed is for (default: each pair's observed delta)",
    )  # fmt: skip
    p.add_argument(
        "--p-values", action="store_true",
        help="against a baseline: each run's (adjusted) p-value in its cell",
    )  # fmt: skip
    p.add_argument(
        "--p-floor", type=float, default=0.001,
        help="smallest p-value printed as a number; below it 'p < FLOOR' (0.001)",
    )  # fmt: skip
    p.add_argument(
        "--mode", choices=("baseline", "letters"), default=None,
        help="the table's marks: baseline (up/down) or letters (default: letters unless "
        "--baseline)",
    )  # fmt: skip


def _latex_options(p: Parser) -> None:
    """Report.to_latex's options, for --format latex (and -o FILE.tex)."""
    p.add_argument("--caption", default=None, help="LaTeX: the table's caption")
    p.add_argument("--label", default=None, help="LaTeX: the table's \\label")
    p.add_argument("--placement", default="tbp", help="LaTeX: float placement (tbp)")
    p.add_argument(
        "--size", default="small",
        help="LaTeX: font size, small (default), footnotesize, scriptsize, tiny, normalsize",
    )  # fmt: skip
    p.add_argument(
        "--fit", choices=("width", "none"), default="width",
        help="LaTeX: width (scale a table wider than the line down to it) or none",
    )  # fmt: skip
    p.add_argument(
        "--long", choices=("auto", "split", "longtable", "none"), default="auto",
        help="LaTeX: many runs: auto (split past --rows-per-table), split, longtable, none",
    )  # fmt: skip
    p.add_argument(
        "--rows-per-table", type=int, default=35, help="LaTeX: runs per float when split (35)"
    )
    p.add_argument(
        "--legend", choices=("note", "caption", "none"), default="note",
        help="LaTeX: the legend as a note under the table, in the caption, or none",
    )  # fmt: skip
    p.add_argument("--wide", action="store_true", help="LaTeX: table* across two columns")
    p.add_argument(
        "--siunitx", action="store_true",
        help="LaTeX: number columns as siunitx S columns, aligned on the decimal point",
    )  # fmt: skip


def main(argv: Sequence[str]) -> int:
    """``ireval compare ...``: returns the exit code (2 on error, with one line on stderr)."""
    return guarded(_run, argv)


def _run(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    outputs = [(path, _format_of(path)) for path in args.output]
    stdout_fmt = args.format
    if stdout_fmt is None and not outputs:
        stdout_fmt = "table" if sys.stdout.isatty() else "tsv"
    elif stdout_fmt is None and sys.stdout.isatty():
        stdout_fmt = "table"
    options = evaluation_options(args, missing=False)  # checks -M
    from polars_ireval.parse import parse_measures

    measures = " ".join(args.measure) if args.measure else DEFAULT_MEASURES
    parsed = parse_measures(measures)
    progress = Progress(args.progress)
    paths = expand_runs(args.runs)
    progress.update("reading qrels", args.qrels)
    qrels = read_qrels(args.qrels)
    run = read_runs(paths, progress, ranks=args.ties == "rank")
    names = run["run_id"].unique(maintain_order=True).to_list()
    baseline: str | float | None = args.baseline
    if args.baseline is not None and args.baseline not in names:
        try:
            baseline = float(args.baseline)
        except ValueError:
            baseline = args.baseline  # compare() names the runs in its error
    residuals = any(c in ("residual", "upper", "projected") for c in (args.a, args.b))
    # 'intersect', the old name of 'skip', without the library's DeprecationWarning
    missing = check_missing("skip" if args.missing == "intersect" else args.missing)
    progress.update("evaluating", f"{len(paths)} run file(s)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CoverageWarning)
        results = evaluate(
            run,
            qrels,
            parsed,
            per_query=True,
            residuals=residuals,
            **options,
        )
    progress.done()  # the resampling tests show their own bar
    try:
        cmp = compare(
            results,
            baseline=baseline,
            pairs=args.pairs,
            test=args.test,
            correction=args.correction,
            alternative=args.alternative,
            alpha=args.alpha,
            a=args.a,
            b=args.b,
            missing=missing,
            ci=None if args.ci == "none" else args.ci,
            resamples=args.resamples,
            seed=args.seed,
            method=args.method,
            continuity=args.continuity,
            tolerance=args.tolerance,
            run_ids=_run_ids(args.run_ids),
            confidence=args.confidence,
            effect_size=args.effect_size,
            zero_method=args.zero_method,
            power=args.power,
            min_difference=args.min_difference,
            progress={"always": True, "never": False}.get(args.progress, "auto"),
        )
    except MissingQueryError as e:
        raise MissingQueryError(
            f"{e} (on the command line: --missing skip, or -c to score them 0)"
        ) from None
    rep: Report | None = None
    wanted = {fmt for _, fmt in outputs} | ({stdout_fmt} if stdout_fmt else set())
    if wanted & set(REPORT_FORMATS):
        rep = report(
            results,
            cmp,
            ci=args.show_ci,
            sort_by=args.sort_by,
            decimals=args.decimals,
            missing=missing,
            # every pair (the default): letters, also for two runs, whose one pair would
            # otherwise read as a comparison with the lower run as baseline
            mode=args.mode or (None if args.baseline is not None else "letters"),
            p_values=args.p_values,
            p_floor=args.p_floor,
        )
    latex = {
        "caption": args.caption, "label": args.label, "placement": args.placement,
        "size": None if args.size == "none" else args.size, "fit": args.fit, "long": args.long,
        "rows_per_table": args.rows_per_table, "legend": args.legend, "wide": args.wide,
        "siunitx": args.siunitx,
    }  # fmt: skip
    for path, fmt in outputs:
        _write(cmp, rep, fmt, path, ansi=False, latex=latex)
    if stdout_fmt is not None:
        _write(cmp, rep, stdout_fmt, None, ansi=sys.stdout.isatty(), latex=latex)
    return 0


def _run_ids(text: str | None) -> list[str] | None:
    """``--run-ids a,b,c`` as a list (None: every run)."""
    if text is None:
        return None
    ids = [t.strip() for t in text.split(",") if t.strip()]
    if not ids:
        raise UsageError(f"--run-ids {text!r}: name at least one run")
    return ids


def _format_of(path: str) -> str:
    ext = Path(path).suffix.lower()
    if ext not in _EXTENSIONS:
        raise UsageError(
            f"-o {path!r}: cannot tell the format from {ext or 'no extension'!r}; use one of "
            f"{sorted(_EXTENSIONS)}"
        )
    return _EXTENSIONS[ext]


def _ndjson(frame: pl.DataFrame) -> str:
    """``frame`` as JSON lines, an infinite number (the open end of a one-sided interval)
    as the string ``"inf"`` or ``"-inf"``: JSON has no infinity, and Polars writes it as
    null, which stays for a missing value."""
    text = frame.write_ndjson()
    infinite = [c for c, t in frame.schema.items() if t.is_float() and frame[c].is_infinite().any()]
    if not infinite:
        return text
    line = pl.col("_line")
    for c in infinite:  # JSON escapes every quote inside strings: the key is found once
        key = json.dumps(c) + ":"
        line = (
            pl.when(pl.col(c) == math.inf)
            .then(line.str.replace(key + "null", key + '"inf"', literal=True))
            .when(pl.col(c) == -math.inf)
            .then(line.str.replace(key + "null", key + '"-inf"', literal=True))
            .otherwise(line)
        )
    lines = frame.select(infinite).with_columns(_line=pl.Series(text.split("\n")[:-1]))
    return "\n".join(lines.select(line)["_line"]) + "\n"


def _write(
    cmp: pl.DataFrame,
    rep: Report | None,
    fmt: str,
    path: str | None,
    *,
    ansi: bool,
    latex: dict[str, Any] | None = None,
) -> None:
    """Write the comparison frame (tsv, csv, jsonl, parquet) or the report (table,
    markdown, latex, html) to ``path``, or to stdout."""
    if fmt == "parquet":
        if path is None:
            if sys.stdout.isatty():
                raise UsageError("--format parquet writes binary data: give -o FILE.parquet")
            cmp.write_parquet(sys.stdout.buffer)
        else:
            cmp.write_parquet(path)
        return
    if fmt in FRAME_FORMATS:
        text = (
            _ndjson(cmp)
            if fmt == "jsonl"
            else cmp.write_csv(separator="\t" if fmt == "tsv" else ",", float_precision=None)
        )
    elif rep is None:  # _run builds the report whenever a report format is asked for
        raise RuntimeError(f"no report was built for format {fmt!r}")
    else:
        if fmt == "table":
            text = rep.to_text(ansi=ansi)
        elif fmt == "latex":
            text = rep.to_latex(**(latex or {}))
        else:
            text = rep.render(fmt)
    if path is None:
        sys.stdout.write(text)
    else:
        Path(path).write_text(text)
