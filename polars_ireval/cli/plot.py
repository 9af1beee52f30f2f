"""``ireval plot``: the figures of :mod:`polars_ireval.plot` from the command line.

::

    ireval plot pr QRELS RUN [RUN ...] -o pr.pdf [--per-query] [--uninterpolated]
    ireval plot roc QRELS RUN [RUN ...] --n-docs N -o roc.svg [--query Q]...
    ireval plot delta QRELS RUN [RUN ...] --baseline RUN -m MEASURE -o delta.png
    ireval plot ranges QRELS RUN [RUN ...] -m MEASURE -o ranges.pdf
    ireval plot intervals QRELS RUN [RUN ...] -m MEASURE [--baseline RUN] [--test t] -o ci.pdf
    ireval plot significance QRELS RUN [RUN ...] -m MEASURE [--test t] -o sig.pdf
    ireval plot scatter QRELS RUN [RUN ...] -m MEASURE_X -m MEASURE_Y -o scatter.png
    ireval plot depth QRELS RUN [RUN ...] -m MEASURE [-m ...] --depths 1-1000 -o depth.pdf
    ireval plot pir LISTS QRELS PREFERENCES [-m MEASURE]... [--cutoffs 1-10] -o pir.pdf

Each kind computes the frame with the library (:func:`polars_ireval.pr_curve`,
:func:`polars_ireval.evaluate`, :func:`polars_ireval.compare`, ...) and draws it with the
function of :mod:`polars_ireval.plot` of the same name (:data:`KINDS`); the output file's
extension chooses PNG, SVG or PDF. RUN arguments are files, directories or globs, as for
``ireval``. Errors are one line on stderr (``ireval: error: ...``) with exit code 2: an
unknown kind, an unknown extension, matplotlib missing (``pip install
"polars-ireval[plot]"``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from polars_ireval.cli.common import Parser, UsageError, expand_runs, guarded, read_runs
from polars_ireval.cli.pir import cutoffs, thresholds

#: The kinds of figure, the function of :mod:`polars_ireval.plot` that draws each, and
#: what it shows.
KINDS: dict[str, tuple[str, str]] = {
    "pr": ("pr_curve", "recall-precision curves, a line per run"),
    "roc": ("roc_curve", "ROC curves (TPR against FPR), a line per ranking; needs --n-docs"),
    "delta": ("per_query_delta", "each topic's difference from --baseline, as bars"),
    "ranges": ("score_ranges", "each run's score range base .. base + residual (seed 002)"),
    "intervals": ("intervals", "the confidence interval of each difference (ir.compare)"),
    "significance": ("significance", "the matrix of significant differences (ir.compare)"),
    "scatter": ("scatter", "one measure against another, a point per run, Kendall's tau"),
    "depth": ("depth_curves", "measures against evaluation depth, a line per run (seed 000)"),
    "pir": ("pir_curves", "PIR against cut-off, a line per measure (seed 001)"),
}

#: Output formats by file extension.
FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}


def plot_main(argv: list[str]) -> int:
    """``ireval plot KIND ...``: returns the exit code (2 on error, with one line on stderr)."""
    return guarded(_plot, argv)


def parser() -> Parser:
    kinds = "\n".join(f"  {k:<13} {text}" for k, (_, text) in KINDS.items())
    p = Parser(
        prog="ireval plot",
        description="Draw a figure of polars_ireval.plot into a PNG, SVG or PDF file "
        "(by the extension of -o).",
        epilog=f"Kinds:\n{kinds}\n\nExample: ireval plot delta qrels.txt runs/ --baseline bm25 "
        "-m nDCG@10 -o delta.png",
        formatter_class=_RawEpilog,
    )
    p.add_argument("kind", metavar="KIND", help="one of " + ", ".join(KINDS))
    p.add_argument(
        "inputs", nargs="+", metavar="FILE", help="QRELS RUN... (pir: LISTS QRELS PREFS)"
    )
    p.add_argument("-o", "--output", required=True, help="the figure: FILE.png, .svg or .pdf")
    p.add_argument("-m", "--measure", action="append", default=None, help="a measure (repeatable)")
    p.add_argument("--baseline", default=None, help="delta, intervals: the baseline run")
    p.add_argument("--n-docs", type=int, default=None, help="roc: the collection size N")
    p.add_argument("--query", action="append", default=None, help="roc: the query (repeatable)")
    p.add_argument("--per-query", action="store_true", help="pr: a line per (run, query)")
    p.add_argument("--uninterpolated", action="store_true", help="pr: raw precision points")
    p.add_argument("--test", default="t", help="intervals, significance: the test (t)")
    p.add_argument("--correction", default="none", help="intervals, significance: (none)")
    p.add_argument("--seed", type=int, default=None, help="seed of randomised tests")
    p.add_argument("--depths", default="1-1000", help="depth: e.g. 1-1000 or 1,10,100")
    p.add_argument("--pool-depth", type=int, default=None, help="depth: the depth to mark")
    p.add_argument("--cutoffs", default="1-10", help="pir: e.g. 1-10 (default 1-10)")
    p.add_argument("--threshold", default="0", help="pir: 0, a number, best, or several")
    p.add_argument("-l", "--relevance-level", type=int, default=1, help="minimum relevant grade")
    p.add_argument("--dpi", type=int, default=150, help="PNG resolution (default 150)")
    return p


class _RawEpilog(argparse.RawDescriptionHelpFormatter):
    """Keeps the epilog's list of kinds as written."""


def _plot(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    if args.kind not in KINDS:
        raise UsageError(f"unknown plot kind {args.kind!r}; choose one of {', '.join(KINDS)}")
    fmt = FORMATS.get(Path(args.output).suffix.lower())
    if fmt is None:
        raise UsageError(
            f"-o {args.output}: unknown figure format {Path(args.output).suffix or '(none)'!r}; "
            "name the file .png, .svg or .pdf"
        )
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError(
            "ireval plot draws with matplotlib, which is not installed: "
            'pip install "polars-ireval[plot]"'
        ) from None
    fig = figure(args)
    fig.savefig(args.output, format=fmt, dpi=args.dpi)
    return 0


def figure(args: Any) -> Any:
    """The matplotlib Figure that ``ireval plot`` writes for the parsed ``args``."""
    from polars_ireval import plot

    draw: Callable[..., Any] = getattr(plot, KINDS[args.kind][0])
    if args.kind == "pir":
        return draw(_pir_frame(args))
    qrels, runs = _campaign(args)
    if args.kind == "pr":
        from polars_ireval.analysis.curves import pr_curve

        interpolated = not args.uninterpolated
        frame = pr_curve(
            runs, qrels, per_query=args.per_query, interpolated=interpolated,
            relevance_level=args.relevance_level,
        )  # fmt: skip
        return draw(frame, interpolated=interpolated)
    if args.kind == "roc":
        from polars_ireval.analysis.curves import roc_curve

        if args.n_docs is None:
            raise UsageError("plot roc needs the collection size: --n-docs N")
        if args.query:
            runs = runs.filter(pl.col("query_id").is_in(args.query))
        return draw(
            roc_curve(runs, qrels, n_docs=args.n_docs, relevance_level=args.relevance_level)
        )
    if args.kind == "depth":
        from polars_ireval.analysis.stability import depth_curve

        curve = depth_curve(
            runs, qrels, _measures(args, 1), depths=cutoffs(args.depths),
            pool_depth=args.pool_depth, relevance_level=args.relevance_level,
        )  # fmt: skip
        return draw(curve)
    from polars_ireval.evaluate import evaluate

    if args.kind == "scatter":
        names = _measures(args, 1)
        if len(names) != 2:
            raise UsageError(f"plot scatter draws two measures: -m X -m Y (got {len(names)})")
        scores = evaluate(runs, qrels, names, relevance_level=args.relevance_level)
        return draw(scores, measure=(names[0], names[1]))
    (name,) = _measures(args, 1, one=True)
    residuals = args.kind == "ranges"
    results = evaluate(
        runs, qrels, [name], per_query=True, residuals=residuals,
        relevance_level=args.relevance_level,
    )  # fmt: skip
    if args.kind == "ranges":
        return draw(results, measure=name)
    if args.kind == "delta":
        if args.baseline is None:
            raise UsageError("plot delta needs the run to compare with: --baseline RUN")
        return draw(results, baseline=args.baseline, measure=name)
    from polars_ireval.analysis.significance import compare

    cmp = compare(
        results, baseline=args.baseline, pairs=None if args.baseline else "all", test=args.test,
        correction=args.correction, seed=args.seed,
    )  # fmt: skip
    return draw(cmp, measure=name)


def _campaign(args: Any) -> tuple[pl.DataFrame, pl.DataFrame]:
    from polars_ireval.io.readers import read_qrels

    if len(args.inputs) < 2:
        raise UsageError(f"plot {args.kind} takes QRELS and at least one RUN")
    qrels = read_qrels(args.inputs[0])
    return qrels, read_runs(expand_runs(args.inputs[1:]))


def _measures(args: Any, at_least: int, *, one: bool = False) -> list[str]:
    names: list[str] = args.measure or []
    if len(names) < at_least or (one and len(names) != 1):
        need = "one measure: -m MEASURE" if one else "-m MEASURE (repeatable)"
        raise UsageError(f"plot {args.kind} needs {need}")
    return names


def _pir_frame(args: Any) -> pl.DataFrame:
    from polars_ireval.analysis.pir import pir

    if len(args.inputs) != 3:
        raise UsageError("plot pir takes LISTS QRELS PREFERENCES")
    lists, qrels, prefs = args.inputs
    return pir(
        lists, qrels, prefs, args.measure or ["nDCG"], cutoffs=cutoffs(args.cutoffs),
        threshold=thresholds(args.threshold), relevance_level=args.relevance_level,
    )  # fmt: skip
