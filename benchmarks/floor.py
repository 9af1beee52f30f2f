"""How far the DuckDB engine can come to the Polars engine: DuckDB's floor, step by step.

On runs and qrels already in memory (the workloads' Parquet files, read untimed), one process
takes turns, ``--repeat`` rounds after an untimed one, between:

- ``ir.evaluate(run, qrels, MEASURES)`` (the Polars engine), on the run as read and on its
  rows shuffled (a seeded permutation). TREC files and most frames hold each ranking
  contiguous with falling scores; the Polars engine then ranks without sorting, the
  shuffled run shows what it costs when it must sort;
- ``ir.evaluate(..., engine="duckdb")``;
- reading the Parquet files (``ir.read_run``, ``ir.read_qrels``), which both engines do alike;
- single DuckDB steps over the same data registered as Arrow (registering untimed): a scan
  of the scores, the join of the run with the qrels, the cheapest ranking window there is
  (``row_number()`` partitioned by ranking and ordered by score alone, no tie-break, no
  join), the position of every row in its ranking when the rows come in ranking order (as
  the Polars engine uses them: a row number over the input order, a 64-bit hash of the
  ranking compared with the row before, the running start of the ranking; no tie-break,
  no check of the order), the judge as ``engine="duckdb"`` calls it, and the five
  measures' macros on the judged table.

The table gives each step's median and its ratio to the Polars engine's evaluation of the
run as read. A single step's ratio is a lower bound of the DuckDB engine's.

Usage::

    PYTHONPATH=.. python floor.py [--workloads msmarco campaign] [--repeat 5]
                                  [--out ../docs/benchmarks-duckdb-floor.md]
"""

from __future__ import annotations

import argparse
import datetime
import platform
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
from bench import workloads
from bench.layout import short_path
from bench.measuring import take_turns

import polars_ireval as ir
from polars_ireval import sql as irsql
from polars_ireval.engines.base import rank_by_of
from polars_ireval.engines.duckdb import arrow_level
from polars_ireval.parse import parse_measures
from polars_ireval.sql.compile import measure_sql

HERE = Path(__file__).resolve().parent
MEASURES = ["nDCG@10", "AP", "P@10", "R@1000", "RR"]
POLARS = "Polars engine, run as read"
READ = "reading the Parquet files (`ir.read_run`, `ir.read_qrels`)"
WINDOW = "DuckDB: cheapest ranking window"
JUDGE = "DuckDB: `ireval_judge` (judged table)"
POSITIONS = "DuckDB: positions from input order"
#: The issue's bound on the DuckDB engine's time over the Polars engine's.
TARGET = 1.5


def steps(
    run: pl.DataFrame, qrels: pl.DataFrame, paths: tuple[Path, Path]
) -> dict[str, Callable[[], Any]]:
    """The timed cases of one workload, by label (the Polars reference first)."""
    level = arrow_level(duckdb.__version__)
    con = irsql.load(duckdb.connect())
    numbered = run.with_row_index("input_order").with_columns(pl.col("input_order").cast(pl.Int64))
    con.register("run", numbered.to_arrow(compat_level=level))
    con.register("qrels", qrels.to_arrow(compat_level=level))
    keys = "run_id, query_id" if "run_id" in run.columns else "query_id"
    judge = (
        "CREATE OR REPLACE TEMP TABLE ev AS SELECT * FROM ireval_judge('run', 'qrels', "
        f"unjudged := FALSE, rank_by := '{rank_by_of(qrels)}')"
    )
    con.execute(judge)
    measures = " UNION ALL ".join(
        f"SELECT count(*) AS n, sum(value) AS v FROM ({measure_sql(m, 'ev')})"
        for m in parse_measures(MEASURES)
    )
    shuffled = run.sample(fraction=1.0, shuffle=True, seed=7)

    def sql(text: str) -> Callable[[], Any]:
        return lambda: con.sql(text).fetchall()

    return {
        POLARS: lambda: ir.evaluate(run, qrels, MEASURES),
        READ: lambda: (ir.read_run(paths[0]), ir.read_qrels(paths[1])),
        "Polars engine, rows shuffled": lambda: ir.evaluate(shuffled, qrels, MEASURES),
        'DuckDB engine (`engine="duckdb"`)': lambda: ir.evaluate(
            run, qrels, MEASURES, engine="duckdb"
        ),
        "DuckDB: scan the scores": sql("SELECT sum(score) FROM run"),
        "DuckDB: join run and qrels": sql(
            "SELECT count(*), sum(score) FROM run JOIN qrels USING (query_id, doc_id)"
        ),
        WINDOW: sql(
            "SELECT sum(rn) FROM (SELECT row_number() OVER (PARTITION BY "
            f"{keys} ORDER BY score DESC) AS rn FROM run)"
        ),
        POSITIONS: sql(
            "SELECT sum(input_order - start + 1) FROM (SELECT input_order, max(CASE WHEN "
            "prev IS NULL OR prev <> h THEN input_order END) OVER (ORDER BY input_order ROWS "
            "BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS start FROM (SELECT input_order, h, "
            "lag(h) OVER (ORDER BY input_order) AS prev FROM (SELECT input_order, "
            f"hash({keys}) AS h FROM run)))"
        ),
        JUDGE: lambda: con.execute(judge),
        "DuckDB: five measure macros on it": sql(measures),
    }


def section(
    name: str, run: pl.DataFrame, qrels: pl.DataFrame, times: dict[str, list[float]]
) -> list[str]:
    """The Markdown table of one workload and what it means for the 1.5x target."""
    med = {label: statistics.median(ts) for label, ts in times.items()}
    ref, read = med[POLARS], med[READ]
    ranking = min(med[WINDOW], med[POSITIONS], med[JUDGE])
    budget = TARGET * (read + ref) - read
    lines = [
        f"## {name}",
        "",
        f"{run.height:,} run rows, {qrels.height:,} judgments.",
        "",
        "| step | median s | min s | / Polars engine |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {label} | {med[label]:.3f} | {min(ts):.3f} | {med[label] / ref:.2f} |"
        for label, ts in times.items()
    ]
    lines += [
        "",
        "The cheapest ranking here (the window, the positions from input order, or the "
        f"judge, which ranks by counting on sparse qrels) takes {ranking:.3f} s, "
        f"{ranking / ref:.2f}x the Polars engine's whole evaluation. End to end from "
        "Parquet, as `engines.py` times the engines (both read the files the same way, "
        f"{read:.3f} s), {TARGET:g}x the Polars engine leaves the DuckDB engine "
        f"{budget:.3f} s after reading: "
        + (f"ranking alone takes {ranking / budget:.0%} of that." if budget > 0 else "nothing."),
        "",
    ]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workloads", nargs="+", default=["msmarco", "campaign"])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--data-dir", default=str(HERE / "data"))
    parser.add_argument("--out", default=str(HERE.parent / "docs" / "benchmarks-duckdb-floor.md"))
    args = parser.parse_args(argv)

    lines = [
        "# DuckDB engine: its floor against the Polars engine",
        "",
        f"Generated by `benchmarks/floor.py` on "
        f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC "
        f"(Python {platform.python_version()}, polars {pl.__version__}, duckdb "
        f"{duckdb.__version__}, polars-ireval {ir.__version__} from "
        f"`{short_path(Path(ir.__file__).parent)}`).",
        "",
        "```",
        f"cd benchmarks && PYTHONPATH=.. python floor.py --workloads {' '.join(args.workloads)} "
        f"--repeat {args.repeat}",
        "```",
        "",
        (__doc__ or "").split("\n\n", 1)[1].split("\n\nUsage")[0],
        "",
    ]
    for name in args.workloads:
        spec = workloads.ensure(name, Path(args.data_dir), 1.0)
        run = ir.read_run(spec.parquet_run)
        qrels = ir.read_qrels(spec.parquet_qrels)
        print(f"{name}: {run.height:,} rows ...", file=sys.stderr)
        paths = (spec.parquet_run, spec.parquet_qrels)
        times = take_turns(steps(run, qrels, paths), args.repeat)
        lines += section(name, run, qrels, times)
    Path(args.out).write_text("\n".join(lines))
    print("\n".join(lines))
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
