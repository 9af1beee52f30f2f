"""``ireval``: evaluate TREC runs from the command line.

    ireval QRELS RUN [RUN ...] [-m MEASURES] [-q] [-l LEVEL] [-c] [-M DEPTH] [-J]
           [--format table|tsv|csv|json]
    ireval --example                      # the bundled example campaign

Runs may be files, globs or directories (TREC text, .gz or Parquet); several runs give one
row each. Errors are one line on stderr with exit code 2.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence

import polars as pl

from polars_ireval import schema as S
from polars_ireval.errors import IrevalError
from polars_ireval.evaluate import CoverageWarning, evaluate
from polars_ireval.example import example_path
from polars_ireval.io import read_qrels, read_run

DEFAULT_MEASURES = "nDCG@10 AP P@10 R@1000 RR NumQ"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ireval", description="Evaluate TREC runs against qrels.")
    p.add_argument("qrels", nargs="?", help="qrels file (qid iter docno rel)")
    p.add_argument("runs", nargs="*", help="run files, globs or directories")
    p.add_argument(
        "-m",
        "--measure",
        action="append",
        default=None,
        help=f"measures, ir_measures or trec_eval names (default: {DEFAULT_MEASURES!r})",
    )
    p.add_argument("-q", "--per-query", action="store_true", help="one row per query")
    p.add_argument("-l", "--relevance-level", type=int, default=1, help="minimum relevant grade")
    p.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="score judged queries missing from a run as 0 (trec_eval -c)",
    )
    p.add_argument("-M", "--max-depth", type=int, default=None, help="evaluate the top M only")
    p.add_argument("-J", "--judged-only", action="store_true", help="drop unjudged documents")
    p.add_argument("--format", choices=["table", "tsv", "csv", "json"], default="table")
    p.add_argument("--example", action="store_true", help="evaluate the bundled example campaign")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except (IrevalError, FileNotFoundError) as e:
        print(f"ireval: error: {e}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    if args.example:
        qrels_path, run_paths = example_path("qrels.txt"), [example_path("runs")]
    elif args.qrels and args.runs:
        qrels_path, run_paths = args.qrels, args.runs
    else:
        raise IrevalError("give a qrels file and at least one run (or --example); see ireval -h")
    measures = " ".join(args.measure) if args.measure else DEFAULT_MEASURES
    run = read_run(run_paths, run_id="file")
    qrels = read_qrels(qrels_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CoverageWarning)
        result = evaluate(
            run,
            qrels,
            measures,
            per_query=args.per_query,
            relevance_level=args.relevance_level,
            missing="zero" if args.complete else "skip",
            max_depth=args.max_depth,
            judged_only=args.judged_only,
        )
    for w in caught:
        print(f"ireval: note: {w.message}", file=sys.stderr)
    _write(result, args.format)
    return 0


def _write(result: pl.DataFrame, fmt: str) -> None:
    index = [c for c in (S.RUN_ID, S.QUERY_ID) if c in result.columns]
    if fmt == "json":
        sys.stdout.write(result.write_ndjson())
        return
    wide = (
        result.pivot(on="measure", index=index, values="value", maintain_order=True)
        if index
        else result
    )
    if fmt in ("tsv", "csv"):
        sys.stdout.write(wide.write_csv(separator="\t" if fmt == "tsv" else ","))
        return
    with pl.Config(
        tbl_rows=-1,
        tbl_cols=-1,
        tbl_hide_dataframe_shape=True,
        tbl_hide_column_data_types=True,
        float_precision=4,
        tbl_width_chars=200,
    ):
        print(wide)


if __name__ == "__main__":
    sys.exit(main())
