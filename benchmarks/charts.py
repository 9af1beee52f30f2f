"""Draw the benchmark pages' charts from the committed results (``results.json``,
``engines.json``).

From ``results.json`` (``run.py``, ``docs/benchmarks.md``), one panel per workload, one bar
per (tool, input) that ran, in the order of the page's table:

- ``docs/images/benchmarks-time.png``: the median wall time, each peer's bar labelled with
  its time over polars_ireval's on the same workload and input (the table's
  ``peer / polars_ireval``);
- ``docs/images/benchmarks-memory.png``: the peak resident memory of the worker process.

From ``engines.json`` (``engines.py``, ``docs/benchmarks-engines.md``):
``docs/images/benchmarks-engines.png``, the median time of each engine in parts A and C,
labelled with its time over the Polars engine's (the tables' ``time / polars``).

Nothing is measured here: the numbers are the ones the benchmarks wrote, read through the
same row classes and ratio functions that write the tables, so the charts and the tables
cannot disagree. ``run.py`` and ``engines.py`` draw their charts after a run, and with
``--report-only`` rewrite their page and charts from their JSON without measuring.
``tests/test_benchmark_charts.py`` counts the bars and checks every drawn number against
the data.

Usage (from ``benchmarks/``)::

    python charts.py [--json results.json] [--engines-json engines.json] [--out-dir ../docs/images]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bench.charts import DEFAULT_OUT_DIR, draw_engines, draw_results
from bench.layout import ENGINES_JSON, RESULTS_JSON


def main(argv: list[str] | None = None) -> None:
    """Draw the three charts from the results files."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--json", type=Path, default=RESULTS_JSON, help="results of run.py")
    parser.add_argument(
        "--engines-json", type=Path, default=ENGINES_JSON, help="results of engines.py"
    )
    parser.add_argument("--out-dir", type=Path, default=DEFAULT_OUT_DIR)
    args = parser.parse_args(argv)
    for path in [
        *draw_results(args.json, args.out_dir),
        *draw_engines(args.engines_json, args.out_dir),
    ]:
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
