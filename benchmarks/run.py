"""Time IR evaluation tools end to end on the generated workloads.

Every (tool, workload, input format) is measured in a fresh worker process (this script
with ``--worker``), ``--repeat`` times, the cases of a workload in turn (round-robin). A
worker imports its tool (timed apart), then times reading the files and computing the
mean of nDCG@10, AP, P@10, R@1000 and RR of every run, and reports that wall time, its
peak resident memory and the means. The parent warms the OS file cache, reports median
and minimum times, the ratio of each peer's time to polars_ireval's, cross-checks the
means against pytrec_eval, prints a table and writes it as Markdown plus the raw results
as JSON.

Usage::

    python run.py [--tools ...] [--workloads ...] [--scale 1.0] [--repeat 3]
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import json
import statistics
import sys
import time
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from bench import engine_results, outofcore_results
from bench.charts import draw_results
from bench.layout import (
    DEFAULT_DATA_DIR,
    DEFAULT_SEED,
    ENGINES_JSON,
    OUTOFCORE_JSON,
    REPO_DIR,
    RESULTS_JSON,
    WARMUP_SCALE,
    WORKLOADS,
    Workload,
    workload,
)
from bench.measuring import (
    BUSY_LOAD,
    check_load,
    command_line,
    machine,
    peak_rss_mb,
    short_paths,
    spawn,
    warm_cache,
)
from bench.results import Row, max_difference, ratios, status_text
from bench.tables import markdown_table, number, text_table
from bench.tools import (
    CASES,
    DISTRIBUTIONS,
    EVALUATORS,
    INPUTS,
    REFERENCE,
    SUBJECT,
    TOOLS,
    TREC_NAMES,
    import_tool,
)

DEFAULT_OUT = REPO_DIR / "docs" / "benchmarks.md"
DEFAULT_JSON = RESULTS_JSON

LIBRARIES = ("polars", "duckdb", "pyarrow", "numpy", "pandas", "numba", *DISTRIBUTIONS.values())


# --------------------------------------------------------------------------- worker


def measure_once(tool: str, spec: Workload, fmt: str) -> dict[str, Any]:
    """Import a tool, then time one evaluation of a workload in this process.

    Returns
    -------
    dict
        ``status`` (``ok``, ``unavailable`` or ``error``), ``error``, ``version``,
        ``import_s``, ``seconds``, ``peak_mb`` and ``means``.
    """
    start = time.perf_counter()
    try:
        version = import_tool(tool)
    except Exception as exc:
        return {"status": "unavailable", "error": f"{type(exc).__name__}: {exc}"}
    imported = time.perf_counter()
    try:
        means = EVALUATORS[tool](spec, fmt)
    except Exception as exc:
        return {"status": "error", "error": f"{type(exc).__name__}: {exc}", "version": version}
    done = time.perf_counter()
    return {
        "status": "ok",
        "version": version,
        "import_s": imported - start,
        "seconds": done - imported,
        "peak_mb": peak_rss_mb(),
        "means": means,
    }


def worker(args: argparse.Namespace) -> None:
    """Worker mode: measure once and write the record as JSON to ``--result-file``."""
    tool, name, fmt = args.worker
    spec = workload(name, args.data_dir, args.scale, args.seed)
    record = measure_once(tool, spec, fmt)
    Path(args.result_file).write_text(json.dumps(record))


# --------------------------------------------------------------------------- parent


def run_worker(
    tool: str, name: str, scale: float, fmt: str, args: argparse.Namespace
) -> dict[str, Any]:
    """Run one measurement of a workload (by name and scale) in a fresh Python process.

    Returns
    -------
    dict
        The worker's record, or ``status`` ``timeout``/``error`` if it did not write one.
    """
    return spawn(
        __file__,
        [
            *("--worker", tool, name, fmt),
            *("--data-dir", str(args.data_dir), "--scale", repr(scale)),
            *("--seed", str(args.seed)),
        ],
        args.timeout,
    )


def measure_round(row: Row, spec: Workload, args: argparse.Namespace) -> None:
    """Measure one more repetition of ``row``'s (tool, workload, input); a failure ends it."""
    record = run_worker(row.tool, spec.name, args.scale, row.input, args)
    row.version = record.get("version", row.version)
    if record["status"] != "ok":
        row.status, row.error = record["status"], short_paths(record["error"], args.data_dir)
        return
    row.times.append(record["seconds"])
    row.import_times.append(record["import_s"])
    row.peak_mb = max(row.peak_mb or 0.0, record["peak_mb"])
    row.means = record["means"]


def selected_cases(args: argparse.Namespace) -> list[tuple[str, str]]:
    """The (tool, input) cases selected by ``--tools`` and ``--inputs``, in table order."""
    return [(tool, fmt) for tool, fmt in CASES if tool in args.tools and fmt in args.inputs]


def warm_up(args: argparse.Namespace) -> dict[str, str]:
    """Run every selected case once, untimed, on a tiny workload.

    This fills the on-disk caches that a first run populates (numba's compiled functions
    for ranx, Python bytecode), which would otherwise inflate a tool's first measurement,
    and finds the tools that cannot be imported.

    Returns
    -------
    dict
        The error message of each unavailable tool.
    """
    from bench import workloads  # numpy and Polars: not loaded by the workers

    workloads.ensure("msmarco", args.data_dir, WARMUP_SCALE, args.seed)
    unavailable: dict[str, str] = {}
    for tool, fmt in selected_cases(args):
        if tool in unavailable:
            continue
        print(f"warming up {tool} ({fmt}) ...", file=sys.stderr, flush=True)
        record = run_worker(tool, "msmarco", WARMUP_SCALE, fmt, args)
        if record["status"] == "unavailable":
            unavailable[tool] = record["error"]
    return unavailable


def benchmark(args: argparse.Namespace) -> tuple[list[Row], dict[str, dict[str, Any]]]:
    """Generate (if needed) and measure every selected workload and case.

    Returns
    -------
    tuple
        The rows, and the manifest of each workload.
    """
    from bench import workloads  # numpy and Polars: not loaded by the workers

    unavailable = warm_up(args)
    rows: list[Row] = []
    manifests = {}
    for name in args.workloads:
        spec = workloads.ensure(name, args.data_dir, args.scale, args.seed)
        manifests[name] = json.loads(spec.manifest.read_text())
        warm_cache(spec.files)
        cases = []
        for tool, fmt in selected_cases(args):
            status, error = (
                ("unavailable", unavailable[tool]) if tool in unavailable else ("ok", "")
            )
            cases.append(Row(tool, name, fmt, status, error))
        # Round-robin: repetition i of every case before repetition i + 1 of any, so that a
        # change in the machine's load over the run weighs on every tool alike (ratios).
        for i in range(args.repeat):
            for row in cases:
                if row.status != "ok":
                    continue
                print(
                    f"measuring {row.tool} on {name} ({row.input}), {i + 1}/{args.repeat} ...",
                    file=sys.stderr,
                    flush=True,
                )
                measure_round(row, spec, args)
        rows.extend(cases)
    return rows, manifests


# --------------------------------------------------------------------------- analysis


def cross_check(rows: list[Row]) -> list[dict[str, Any]]:
    """Compare every successful row's means with pytrec_eval's on the same workload.

    The reference is the pytrec_eval row, or the first successful row if there is none.

    Returns
    -------
    list of dict
        ``workload, tool, input, reference, max_abs_diff, where``.
    """
    checks = []
    for name in dict.fromkeys(r.workload for r in rows):
        done = [r for r in rows if r.workload == name and r.ok]
        reference = next((r for r in done if r.tool == REFERENCE), done[0] if done else None)
        for row in done:
            if row is reference or reference is None:
                continue
            diff, where = max_difference(reference.means, row.means)
            checks.append(
                {
                    "workload": name,
                    "tool": row.tool,
                    "input": row.input,
                    "reference": reference.tool,
                    "max_abs_diff": diff,
                    "where": where,
                }
            )
    return checks


def reference_means(rows: list[Row]) -> dict[str, dict[str, float]]:
    """Mean over runs of each measure, from pytrec_eval (or the first successful row)."""
    out = {}
    for name in dict.fromkeys(r.workload for r in rows):
        done = [r for r in rows if r.workload == name and r.ok]
        if not done:
            continue
        row = next((r for r in done if r.tool == REFERENCE), done[0])
        runs = list(row.means.values())
        out[name] = {m: sum(run[m] for run in runs) / len(runs) for m in TREC_NAMES}
    return out


# --------------------------------------------------------------------------- reporting


HEADER = (
    "tool",
    "workload",
    "input",
    "median s",
    "min s",
    "import s",
    "peak MB",
    "peer / polars_ireval",
    "speed-up vs fastest peer",
    "status",
)


def table_rows(rows: list[Row]) -> list[tuple[str, ...]]:
    """The cells of the results table, one tuple per row."""
    cells: list[tuple[str, ...]] = []
    for row in rows:
        vs_subject, speedup = ratios(rows, row)
        import_s = statistics.median(row.import_times) if row.ok else None
        cells.append(
            (
                row.tool,
                row.workload,
                row.input,
                number(row.median, ".3f"),
                number(row.fastest, ".3f"),
                number(import_s, ".2f"),
                number(row.peak_mb, ".0f"),
                number(vs_subject, ".2f") + ("×" if vs_subject else ""),
                number(speedup, ".2f") + ("×" if speedup else ""),
                status_text(row),
            )
        )
    return cells


CHECK_HEADER = ("workload", "tool", "input", "reference", "max abs diff", "at")


def check_cells(checks: list[dict[str, Any]]) -> list[tuple[str, ...]]:
    """The cells of the cross-check table."""
    return [
        (
            c["workload"],
            c["tool"],
            c["input"],
            c["reference"],
            format(c["max_abs_diff"], ".3g"),
            c["where"],
        )
        for c in checks
    ]


def library_versions(rows: list[Row]) -> dict[str, str]:
    """Installed version of every library involved (polars_ireval as its workers saw it)."""
    versions = {}
    for dist in LIBRARIES:
        try:
            versions[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            versions[dist] = "not installed"
    subject = next((r for r in rows if r.tool == SUBJECT), None)
    if subject is not None:
        versions[DISTRIBUTIONS[SUBJECT]] = subject.version or status_text(subject)
    return versions


def workload_lines(manifests: dict[str, dict[str, Any]]) -> list[str]:
    """One Markdown bullet per workload, from its manifest."""
    return [
        f"- **{name}**: {m['runs']} run(s) × {m['queries']} queries × 1,000 documents "
        f"({m['run_lines']:,} run lines per format), {m['qrels_lines']:,} qrels lines "
        f"({m['relevant']:,} relevant)."
        for name, m in manifests.items()
    ]


METHOD = """\
Each (tool, workload, input) is run in a fresh Python process, {repeat} time(s), the
cases of a workload taking turns (every case's first run, then every case's second,
...), so that a drift in the machine's load weighs on every tool alike; the table gives
the median and minimum wall time from reading the files to having the mean of nDCG@10,
AP, P@10, R@1000 and RR of every run in memory (trec_eval semantics: `ndcg_cut_10 map
P_10 recall_1000 recip_rank`). Importing the tool is timed apart (`import s`, not
included). Every case first runs once, untimed, on a tiny workload (this fills numba's
on-disk cache for ranx), and the OS file cache is warm (every file is read once before
the measurements). `peak MB` is the peak resident memory of the worker process
(interpreter and imports included). Tools use their defaults: pytrec_eval is single-
threaded; ranx (numba) and polars_ireval (Polars) use all cores.

- pytrec_eval: a plain-Python reader into its `{{qid: {{docid: score}}}}` dicts (about 20%
  faster than `pytrec_eval.parse_run`), one `RelevanceEvaluator`, `evaluate` per run,
  means over queries in Python.
- ir_measures: `read_trec_qrels`/`read_trec_run`, one `ir_measures.evaluator`,
  `calc_aggregate` per run.
- ranx: `Qrels.from_file`/`Run.from_file` (`kind="trec"`) and `ranx.evaluate` per run;
  for Parquet, `pandas.read_parquet` then `Qrels.from_df`/`Run.from_df` (one per `run_id`)
  with ids cast to `object` — what `Run.from_parquet` does, whose dtype check fails under
  pandas 3.
- polars_ireval: `ir.evaluate(ir.read_run(paths), ir.read_qrels(path), measures)`, text
  or Parquet chosen by extension, all runs of a campaign in one call.

`peer / polars_ireval` is the peer's median time over polars_ireval's on the same workload
and input (above 1: polars_ireval is faster); `speed-up vs fastest peer` is the fastest
peer's median (any input) over polars_ireval's."""


#: The issue's targets: polars_ireval's speed-up over the fastest peer, per input format.
SPEEDUP_TARGETS = {"text": 5.0, "parquet": 10.0}
TARGET_HEADER = (
    "workload",
    "input",
    "speed-up vs fastest peer",
    "target",
    "met",
    "peak MB",
    "pytrec_eval peak MB",
    "memory met",
)

ENGINE = """\
What polars_ireval does on these workloads (`polars_ireval/io/`, `polars_ireval/judge.py`):

- A TREC run whose lines are six fields separated by single spaces (what TREC tools write)
  or by single tabs (in text without spaces), plain or gzip, is read by Polars' parallel
  CSV reader, all the files of a campaign in one scan (TREC qrels whose lines are four
  such fields with integer grades too); any other shape (tabs beside spaces, runs of
  spaces, comments, blank or malformed lines, zstd) goes to the general regex reader,
  which names the bad line. A run that fails validation
  (duplicates, NaN) is read again the general way, so errors keep their file and line.
- Ranking sorts nothing when each ranking's rows are contiguous and their scores do not
  increase (TREC files, most frames; checked in one pass): the rank is the position in the
  ranking, and only the rows in runs of equal scores are sorted, by (run of ties, doc id).
  Otherwise (and for lazy input) each row's rank is one ordinal rank of the struct
  (score, doc id) within its ranking, which needs no sort of the frame.
- None of the five measures depends on unjudged documents (each measure declares whether
  it does), so the evaluation table holds only the judged documents, with their ranks
  among all retrieved ones: a few thousand rows for msmarco instead of 7 million. With
  many judgments (200K or more: deep pools) the judged rows are found by one join of the
  run with the qrels on a 64-bit key (the hash of the query id xor the hash of the doc
  id), each match checked on the ids: integers, not the strings of 7M rows against 1.4M
  judgments. With fewer, only the rows whose doc id some query judges (found by 64-bit
  hashes) are joined with the qrels on the ids, a join with a small build side."""


SEE_ALSO = """\
- [Deep judgments](benchmarks-deep.md): where the time goes on the deep workload, step by
  step.
- [Out of core](benchmarks-outofcore.md): one run of 50M lines evaluated a chunk of queries
  at a time (`ir.evaluate_out_of_core`, `ireval --chunks`), against pytrec_eval, with its
  peak memory (`benchmarks/outofcore.py`)."""


def targets(rows: list[Row]) -> list[tuple[str, ...]]:
    """One row per polars_ireval measurement: its speed-up and memory against the targets."""
    out: list[tuple[str, ...]] = []
    for row in rows:
        if row.tool != SUBJECT or not row.ok:
            continue
        speedup = ratios(rows, row)[1]
        goal = SPEEDUP_TARGETS.get(row.input)
        ref = next(
            (r for r in rows if r.ok and r.workload == row.workload and r.tool == REFERENCE),
            None,
        )
        ref_mb = ref.peak_mb if ref else None
        met = "—" if speedup is None or goal is None else ("yes" if speedup >= goal else "no")
        mem_met = (
            "—" if ref_mb is None or row.peak_mb is None else
            ("yes" if row.peak_mb <= ref_mb else "no")
        )  # fmt: skip
        out.append(
            (
                row.workload,
                row.input,
                number(speedup, ".2f"),
                number(goal, ".0f") + "x" if goal else "—",
                met,
                number(row.peak_mb, ".0f"),
                number(ref_mb, ".0f"),
                mem_met,
            )
        )
    return out


def failures(rows: list[Row]) -> list[str]:
    """A Markdown section with the full message of each failed row, if any."""
    lines = [
        f"- {r.tool}, {r.workload}, {r.input}: {r.status}: {r.error}" for r in rows if not r.ok
    ]
    return ["## Failures", "\n".join(lines)] if lines else []


CHARTS = """\
The same medians and peak memory, drawn from `benchmarks/results.json` by
`benchmarks/charts.py` (each peer's bar is labelled with its time over polars_ireval's on
the same workload and input):

![Median wall time of each tool and input, per workload](images/benchmarks-time.png)

![Peak resident memory of each tool and input, per workload](images/benchmarks-memory.png)"""


def markdown(rows: list[Row], checks: list[dict[str, Any]], context: dict[str, Any]) -> str:
    """Render the Markdown report."""
    info = context["machine"]
    versions = ", ".join(f"{k} {v}" for k, v in context["versions"].items())
    means = "\n".join(
        f"- {name}: " + ", ".join(f"{m} {v:.4f}" for m, v in values.items())
        for name, values in context["reference_means"].items()
    )
    parts = [
        "# Benchmarks",
        f"Generated by `benchmarks/run.py` on {context['date']}.",
        "## Machine",
        f"- CPU: {info['cpu']}, {info['cores']} cores\n- RAM: {info['ram_gb']} GB\n"
        f"- OS: {info['os']}\n- Python: {info['python']}\n- Libraries: {versions}\n"
        f"- Load average before the run: {info['load_before']}"
        + (" (busy machine: timings are skewed)" if info["load_before"] > BUSY_LOAD else ""),
        "## Command",
        f"```\n{context['command']}\n```",
        "## Workloads",
        "\n".join(workload_lines(context["manifests"]))
        + f"\n\nScale {context['scale']:g}, seed {context['seed']}; see `benchmarks/generate.py`.",
        "## Method",
        METHOD.format(repeat=context["repeat"]),
        "## Results",
        markdown_table(HEADER, table_rows(rows)),
        *failures(rows),
        CHARTS,
        "## Targets",
        "Issue 2 asks polars_ireval to be at least 5x faster than the fastest peer from "
        "text and 10x from Parquet, with a peak memory no higher than pytrec_eval's. "
        "On a busy machine (see the load average above) the ratios are only indicative.",
        markdown_table(TARGET_HEADER, targets(rows)),
        ENGINE,
        "## Cross-check",
        "Largest absolute difference between a tool's means and the reference's, over all "
        "runs and the five measures:",
        markdown_table(CHECK_HEADER, check_cells(checks)),
        "Reference means (averaged over runs):\n\n" + means,
        *companion_sections(),
        "## See also",
        SEE_ALSO,
    ]
    return "\n\n".join(parts) + "\n"


def companion_sections() -> list[str]:
    """The tables of the other two benchmark scripts, from their last runs' JSON (each
    table's ratios measured within that run): the engines (Polars, DuckDB, DuckDB SQL on
    50M rows under a memory limit, Spark local mode; ``engines.py``) and one run of 50M
    lines against pytrec_eval (``outofcore.py``). Nothing for a script not yet run."""
    parts: list[str] = []
    if ENGINES_JSON.exists():
        found = json.loads(ENGINES_JSON.read_text())
        rows = [engine_results.Measured(**r) for r in found["rows"]]
        done = {r.part for r in rows}
        parts += [
            "## Engines",
            f"From `benchmarks/engines.py`, run on {found['date']} (load average before "
            f"{found['machine']['load_before']}; a part kept from an earlier run says its own "
            "date there); its method, the SQL and the charts are on "
            "[the engines page](benchmarks-engines.md). The five measures' means per run, "
            "from Parquet files, each engine in a fresh process.",
        ]
        if "a" in done:
            parts += [
                "Polars and DuckDB engines (`ir.evaluate(..., engine=...)`):",
                markdown_table(
                    engine_results.ENGINE_HEADER, engine_results.engine_cells(rows, "a")
                ),
            ]
        if "b" in done:
            limit = found["memory_limit"]
            parts += [
                f"DuckDB SQL over 50M rows read in place, under `memory_limit = '{limit}'`:",
                markdown_table(engine_results.BIG_HEADER, engine_results.big_cells(rows, limit)),
            ]
        if "c" in done:
            parts += [
                "Spark in local mode (`engine='spark'`, the SQL rendered for Spark, and "
                "`engine='spark-polars'`, the Polars engine in Spark's Python workers, on "
                "`spark.read.parquet` frames), with the Polars and DuckDB engines on the same "
                "files in the same run:",
                markdown_table(engine_results.SPARK_HEADER, engine_results.spark_cells(rows)),
                f"Issue 23 asks Spark to be within {engine_results.SPARK_TARGET:g}x of DuckDB:",
                markdown_table(
                    engine_results.SPARK_TARGET_HEADER, engine_results.spark_target_cells(rows)
                ),
            ]
    if OUTOFCORE_JSON.exists():
        found = json.loads(OUTOFCORE_JSON.read_text())
        m = found["manifest"]
        parts += [
            "## One run of 50M lines",
            f"From `benchmarks/outofcore.py`, run on {found['date']} (load average before "
            f"{found['machine']['load_before']}; [its page](benchmarks-outofcore.md)): one "
            f"run of {m['queries']:,} queries × 1,000 documents ({found['sizes']}), "
            "evaluated a chunk of queries at a time (`ir.evaluate_out_of_core`, `ireval "
            "--chunks auto`) against pytrec_eval reading the text file; peak memory from "
            "`/usr/bin/time -v`.",
            markdown_table(outofcore_results.HEADER, outofcore_results.cells(found["rows"])),
        ]
    return parts


def report(
    rows: list[Row], manifests: dict[str, Any], load: float, args: argparse.Namespace
) -> None:
    """Print the tables and write the Markdown report and the JSON results."""
    checks = cross_check(rows)
    context = {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(load),
        "versions": library_versions(rows),
        "command": command_line(),
        "manifests": manifests,
        "scale": args.scale,
        "seed": args.seed,
        "repeat": args.repeat,
        "reference_means": reference_means(rows),
    }
    print(text_table(HEADER, table_rows(rows)))
    print("\ncross-check (max abs difference of the means vs the reference):")
    print(text_table(CHECK_HEADER, check_cells(checks)))
    print("\ntargets (5x the fastest peer from text, 10x from Parquet, memory <= pytrec_eval):")
    print(text_table(TARGET_HEADER, targets(rows)))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(markdown(rows, checks, context))
    results = {**context, "rows": [asdict(r) for r in rows], "cross_check": checks}
    args.json.write_text(json.dumps(results, indent=1) + "\n")
    print(f"\nwrote {args.out} and {args.json}")
    draw_charts(args)


def draw_charts(args: argparse.Namespace) -> None:
    """Draw the page's charts from ``args.json`` into ``images/`` beside ``args.out``."""
    for path in draw_results(args.json, args.out.parent / "images"):
        print(f"wrote {path}")


def report_only(args: argparse.Namespace) -> None:
    """Write the Markdown report and the charts again from ``args.json``, measuring nothing."""
    results = json.loads(args.json.read_text())
    rows = [Row(**r) for r in results["rows"]]
    context = {k: v for k, v in results.items() if k not in ("rows", "cross_check")}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(markdown(rows, cross_check(rows), context))
    print(f"wrote {args.out}")
    draw_charts(args)


# --------------------------------------------------------------------------- CLI


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tools", nargs="+", choices=TOOLS, default=list(TOOLS))
    parser.add_argument("--workloads", nargs="+", choices=WORKLOADS, default=list(WORKLOADS))
    parser.add_argument("--inputs", nargs="+", choices=INPUTS, default=list(INPUTS))
    parser.add_argument("--scale", type=float, default=1.0, help="multiplier of the queries")
    parser.add_argument("--repeat", type=int, default=3, help="measurements per case")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per measurement")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="Markdown report")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="raw results")
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="write the report and the charts again from --json, measuring nothing",
    )
    parser.add_argument(
        "--worker", nargs=3, metavar=("TOOL", "WORKLOAD", "INPUT"), help=argparse.SUPPRESS
    )
    parser.add_argument("--result-file", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark, or one measurement in worker mode."""
    args = parse_args(argv)
    if args.worker:
        worker(args)
        return
    if args.report_only:
        report_only(args)
        return
    load = check_load()
    rows, manifests = benchmark(args)
    report(rows, manifests, load, args)


if __name__ == "__main__":
    main()
