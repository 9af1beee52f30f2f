"""The least the deep workload can cost in Polars' own steps, against the issue's targets.

The targets on the deep workload are 5x pytrec_eval end to end from text and 10x from
Parquet. One process takes turns, ``--repeat`` rounds after an untimed one, between
pytrec_eval and polars_ireval as ``run.py`` calls them (its ``eval_pytrec_eval`` and
``eval_polars_ireval``) and the steps that any evaluation of this workload on Polars
performs at least once, each alone on data read before:

- decoding the run's three Parquet columns and the qrels' (``pl.read_parquet``), or
  parsing the text files (Polars' CSV reader, six and four fields, no check);
- the 64-bit hash of (query id, doc id) of every run row and judgment;
- the join of those keys (7M rows against 1.4M judgments), the cheapest way Polars has to
  find the judged rows (a join on the id strings costs about three times as much).

Their sum is a floor: it leaves out checking the input, ranking, checking the matched ids
and computing the measures. The table gives it against the time each target allows.

Usage::

    cd benchmarks && PYTHONPATH=.. python deep_floor.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import datetime
import statistics
import sys
from pathlib import Path

import polars as pl
from bench.layout import DEFAULT_DATA_DIR, short_path, workload
from bench.measuring import take_turns
from bench.tools import eval_polars_ireval, eval_pytrec_eval

import polars_ireval as ir

PYTREC = "pytrec_eval (`run.py`'s reader and `evaluate`), text"
TEXT = "polars_ireval end to end, text"
PARQUET = "polars_ireval end to end, Parquet"
DECODE_RUN = "decode the run's Parquet (3 columns)"
DECODE_QRELS = "decode the qrels' Parquet"
PARSE_RUN = "parse the run text (6 fields)"
PARSE_QRELS = "parse the qrels text (4 fields)"
HASH = "hash (query id, doc id) of run and qrels"
JOIN = "join the 64-bit keys"
#: The targets: speed-up over pytrec_eval by input format.
TARGETS = {"text": 5.0, "parquet": 10.0}


def key(frame: pl.DataFrame) -> pl.DataFrame:
    """The 64-bit key of each row: the hash of its query id xor that of its doc id."""
    return frame.select((pl.col("query_id").hash(1) ^ pl.col("doc_id").hash(2)).alias("key"))


def csv(path: Path, fields: int) -> pl.DataFrame:
    """A space-separated file of ``fields`` string fields (the score a float for runs)."""
    names = ["query_id", "q0", "doc_id", "rank", "score", "tag"][:fields]
    schema = {n: pl.Float64 if n == "score" else pl.String for n in names}
    if fields == 4:
        schema = {"query_id": pl.String, "iter": pl.String, "doc_id": pl.String, "rel": pl.Int64}
    return pl.read_csv(path, separator=" ", has_header=False, quote_char=None, schema=schema)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR))
    args = parser.parse_args(argv)
    spec = workload("deep", Path(args.data_dir), 1.0)
    if not spec.parquet_run.exists():
        sys.exit(f"no deep workload in {args.data_dir}: run `python generate.py` first")
    run = pl.read_parquet(spec.parquet_run, columns=["query_id", "doc_id", "score"])
    qrels = pl.read_parquet(spec.parquet_qrels)
    run_key, qrels_key = key(run), key(qrels)
    cases = {
        PYTREC: lambda: eval_pytrec_eval(spec, "text"),
        TEXT: lambda: eval_polars_ireval(spec, "text"),
        PARQUET: lambda: eval_polars_ireval(spec, "parquet"),
        DECODE_RUN: lambda: pl.read_parquet(spec.parquet_run),
        DECODE_QRELS: lambda: pl.read_parquet(spec.parquet_qrels),
        PARSE_RUN: lambda: csv(spec.text_runs[0], 6),
        PARSE_QRELS: lambda: csv(spec.text_qrels, 4),
        HASH: lambda: (key(run), key(qrels)),
        JOIN: lambda: run_key.join(qrels_key, on="key"),
    }
    times = take_turns(cases, args.repeat)
    med = {label: statistics.median(ts) for label, ts in times.items()}
    floors = {
        "parquet": med[DECODE_RUN] + med[DECODE_QRELS] + med[HASH] + med[JOIN],
        "text": med[PARSE_RUN] + med[PARSE_QRELS] + med[HASH] + med[JOIN],
    }
    now = datetime.datetime.now(datetime.timezone.utc)
    lines = [
        f"{now:%Y-%m-%d %H:%M} UTC, polars {pl.__version__}, polars-ireval {ir.__version__} "
        f"from `{short_path(Path(ir.__file__).parent)}`, {args.repeat} rounds:",
        "",
        "| step | median s | min s |",
        "|---|---|---|",
        *(f"| {label} | {med[label]:.3f} | {min(ts):.3f} |" for label, ts in times.items()),
        "",
        "| input | target | time allowed | floor (its steps above) | floor / allowed | "
        "polars_ireval | speed-up |",
        "|---|---|---|---|---|---|---|",
    ]
    for fmt, label in (("text", TEXT), ("parquet", PARQUET)):
        allowed = med[PYTREC] / TARGETS[fmt]
        lines.append(
            f"| {fmt} | {TARGETS[fmt]:g}x | {allowed:.3f} | {floors[fmt]:.3f} | "
            f"{floors[fmt] / allowed:.0%} | {med[label]:.3f} | {med[PYTREC] / med[label]:.2f}x |"
        )
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
