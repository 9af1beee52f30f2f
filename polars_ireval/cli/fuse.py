"""``ireval fuse``: several run files fused into one (:func:`polars_ireval.fuse`).

::

    ireval fuse RUN RUN [RUN ...] [--method rrf] [--norm NORM] [--weights W,W,...]
           [--k K] [--gamma G] [--sigma S] [--phi P] [--missing skip|zero|min]
           [--queries error|union|intersection] [--depth D] [--ties trec_eval|doc_id_asc]
           [--guard exact|ranx] [--name NAME] [-o FILE] [--format trec|tsv|csv|jsonl|parquet]
           [--engine polars|duckdb]
    ireval fuse RUN RUN [RUN ...] --method probfuse --qrels QRELS [--train-runs RUN ...]
           [--n-segments 25] [--w 5] [--rel 1]
    ireval fuse RUN RUN [RUN ...] --qrels QRELS --optimize [--method rrf] [-m nDCG@10]
           [--folds 5] [--seed 0]

Each file is one run, named by its file; the fused run goes to stdout (TREC text, each
query by rank) or ``-o FILE`` (the format from the extension: ``.parquet``, ``.gz``, else
text), with ``--name`` as its tag (default: the method). A trained method (``posfuse``,
``probfuse``, ``segfuse``, ``slidefuse``, ``bayesfuse``, ``mapfuse``) learns from
``--qrels`` over the runs themselves or ``--train-runs``. With ``--optimize``, the method's
parameters are chosen by cross-validation over the queries of ``--qrels``
(:func:`polars_ireval.optimize_fusion`, ranx's grid): it prints the parameters each fold
chose, the in-sample and held-out means, and the held-out comparison with the single run
chosen the same way.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from polars_ireval.cli.common import Parser, Progress, UsageError, expand_runs, guarded, read_runs
from polars_ireval.engines.fusion import fuse
from polars_ireval.fusion.fuse import METHODS
from polars_ireval.fusion.normalize import GUARDS, NORMS
from polars_ireval.io.writers import run_text, write_run

FORMATS = ("trec", "tsv", "csv", "jsonl", "parquet")


def parser() -> Parser:
    p = Parser(
        prog="ireval fuse",
        description="Fuse runs into one (ranx's methods and normalisations, and more).",
        epilog="Example: ireval fuse bm25.run dense.run --method rrf --k 60 -o fused.run",
    )
    p.add_argument("runs", nargs="+", help="run files, globs or directories (two or more runs)")
    p.add_argument("--method", default="rrf", help=f"one of {sorted(METHODS)} (default: rrf)")
    p.add_argument(
        "--norm", default=None,
        help=f"one of {list(NORMS)} (default: min-max for score methods, none for rank ones)",
    )  # fmt: skip
    p.add_argument(
        "--weights", default=None, metavar="W,W,...",
        help="one weight per run, in the order of the files (wsum, wmnz, mixed, rrf, w_bordafuse)",
    )  # fmt: skip
    for name, (kind, what) in PARAMETERS.items():
        p.add_argument(f"--{name.replace('_', '-')}", type=kind, default=None, help=what)
    p.add_argument(
        "--missing", choices=("skip", "zero", "min"), default="skip",
        help="a document a run did not retrieve: skip (as ranx), zero, min (the run's lowest)",
    )  # fmt: skip
    p.add_argument(
        "--queries", choices=("error", "union", "intersection"), default="error",
        help="queries not in every run: error (default), union, intersection",
    )  # fmt: skip
    p.add_argument("--depth", type=int, default=None, help="cut each input run to its top D")
    p.add_argument(
        "--ties", choices=("trec_eval", "doc_id_asc"), default="trec_eval",
        help="order of equal scores, in the inputs and the fused run (doc id descending)",
    )  # fmt: skip
    p.add_argument(
        "--guard", choices=GUARDS, default="exact",
        help="zero denominators: exact (scores 0) or ranx (max(denominator, 1e-9))",
    )  # fmt: skip
    p.add_argument("--name", default=None, help="the fused run's name and tag (the method)")
    p.add_argument("-o", "--output", default=None, help="write FILE (format from its extension)")
    p.add_argument("--format", choices=FORMATS, default=None, help="output format (trec)")
    p.add_argument(
        "--progress", choices=("auto", "always", "never"), default="auto",
        help="progress on stderr while reading",
    )  # fmt: skip
    p.add_argument(
        "--engine", choices=("polars", "duckdb"), default="polars",
        help="polars (default) or duckdb (the ireval_fuse macro of sql/fusion.sql)",
    )  # fmt: skip
    p.add_argument(
        "--qrels", default=None,
        help="judgments: what a trained method (posfuse ... mapfuse) learns from, or --optimize's",
    )  # fmt: skip
    p.add_argument(
        "--train-runs", nargs="+", default=None, metavar="RUN",
        help="a trained method's training runs (one per run, same systems; default: the runs)",
    )  # fmt: skip
    p.add_argument(
        "--optimize", action="store_true",
        help="choose the method's parameters by k-fold cross-validation over the queries",
    )  # fmt: skip
    p.add_argument("-m", "--measure", default="nDCG@10", help="the measure --optimize maximises")
    p.add_argument("--folds", type=int, default=5, help="folds of --optimize (5)")
    p.add_argument("--seed", type=int, default=0, help="seed of --optimize's split (0)")
    return p


#: The methods' parameters as flags: their type and help.
PARAMETERS: dict[str, tuple[type, str]] = {
    "k": (float, "rrf's k (60)"),
    "gamma": (float, "gmnz's gamma (1)"),
    "sigma": (float, "logn_isr's sigma (0.01)"),
    "phi": (float, "rbc's phi (0.8)"),
    "n_segments": (int, "probfuse's segments a ranking is cut into (25)"),
    "w": (int, "slidefuse's half-window (5)"),
    "rel": (int, "the trained methods' lowest relevant grade (1)"),
}


def main(argv: Sequence[str]) -> int:
    """``ireval fuse ...``: returns the exit code (2 on error, one line on stderr)."""
    return guarded(_run, argv)


def _run(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    params = {n: getattr(args, n) for n in PARAMETERS}
    params = {n: v for n, v in params.items() if v is not None}
    weights = None
    if args.weights is not None:
        try:
            weights = [float(w) for w in args.weights.split(",")]
        except ValueError:
            raise UsageError(f"--weights {args.weights!r}: numbers separated by commas") from None
    progress = Progress(args.progress)
    runs = read_runs(expand_runs(args.runs), progress)
    progress.done()
    trained = args.method in METHODS and METHODS[args.method].trained
    if args.optimize or (args.qrels is not None and not trained):
        return _optimize(args, runs, weights, params)
    qrels = train_runs = None
    if args.qrels is not None:
        from polars_ireval.io.readers import read_qrels

        qrels = read_qrels(args.qrels)
    if args.train_runs is not None:
        train_runs = read_runs(expand_runs(args.train_runs), progress)
    fused: Any = fuse(
        runs, args.method, norm=args.norm, weights=weights, missing=args.missing,
        queries=args.queries, depth=args.depth, ties=args.ties, guard=args.guard,
        name=args.name, qrels=qrels, train_runs=train_runs, engine=args.engine, **params,
    )  # fmt: skip
    assert isinstance(fused, pl.DataFrame)  # eager runs in, an eager run out
    fmt = args.format or _format_of(args.output)
    if fmt == "trec":
        text = run_text(fused, ties=args.ties)
        if args.output is None:
            sys.stdout.write(text)
        elif args.output.endswith(".gz"):
            write_run(fused, args.output, ties=args.ties)
        else:
            Path(args.output).write_text(text)
        return 0
    if fmt == "parquet":
        if args.output is None:
            raise UsageError("--format parquet writes binary data: give -o FILE.parquet")
        fused.write_parquet(args.output)
        return 0
    text = (
        fused.write_ndjson()
        if fmt == "jsonl"
        else fused.write_csv(separator="\t" if fmt == "tsv" else ",", float_precision=None)
    )
    if args.output is None:
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text)
    return 0


def _optimize(args: Any, runs: pl.DataFrame, weights: Any, params: dict[str, float]) -> int:
    """``--optimize``: the cross-validated choice, printed as tables."""
    from polars_ireval.analysis.fusion_tuning import optimize_fusion
    from polars_ireval.cli.common import format_table
    from polars_ireval.io.readers import read_qrels

    if not (args.optimize and args.qrels is not None):
        raise UsageError("--optimize and --qrels go together: the queries tune the method")
    if weights is not None or params:
        raise UsageError("--optimize chooses the parameters: drop --weights, --k, --gamma...")
    tuned = optimize_fusion(
        runs, read_qrels(args.qrels), args.method, args.measure, folds=args.folds,
        seed=args.seed, norm=args.norm, missing=args.missing, queries=args.queries,
        depth=args.depth, ties=args.ties, guard=args.guard,
    )  # fmt: skip
    print(format_table(tuned.folds, integers=["fold", "queries"]).rstrip("\n"))
    print(
        f"\n{tuned.measure}: in-sample {tuned.in_sample:.4f}, held-out {tuned.held_out_mean:.4f}\n"
    )
    from polars_ireval.analysis.reporting import format_p

    cmp = tuned.compare()
    shown = cmp.select("measure", "run_a", "run_b", "mean_a", "mean_b", "delta").with_columns(
        pl.Series("p", [format_p(p) for p in cmp["p_value"]]), cmp["significant"]
    )  # a p-value is never printed as 0
    print(format_table(shown).rstrip("\n"))
    return 0


def _format_of(path: str | None) -> str:
    if path is None:
        return "trec"
    ext = Path(path).suffix.lower()
    return {".parquet": "parquet", ".tsv": "tsv", ".csv": "csv", ".jsonl": "jsonl"}.get(ext, "trec")
