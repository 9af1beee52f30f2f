"""One run larger than memory: polars_ireval out of core against pytrec_eval.

A synthetic run of ``--queries`` queries x 1,000 documents (50M rows by default; the
generator of ``engines.py``, DuckDB straight to Parquet) and its MS MARCO-like qrels, also
written as a TREC text file (Polars' streaming engine, ``sink_csv``). Each case runs in a
fresh process under ``/usr/bin/time -v``, whose "Maximum resident set size" is the peak
memory reported (the worker's own ``VmHWM`` is recorded too):

- ``pytrec_eval text``: the plain-Python reader of ``run.py`` into ``{qid: {docid:
  score}}`` and one ``RelevanceEvaluator.evaluate`` (the reference; 8.3 GB at 50M here).
- ``polars_ireval parquet``: ``ir.evaluate_out_of_core(run.parquet, qrels, measures)``.
- ``polars_ireval text``: ``ir.evaluate_out_of_core(run.trec, qrels, measures)``.
- ``ireval text``: the command ``ireval QRELS run.trec --chunks auto -m ...`` (wall time
  of the whole process, interpreter start-up and imports included).

Times are from reading the files to having the five means in memory (the CLI: the whole
process). The report checks the issue's targets: peak memory under ``--memory-bound`` MB
and at least 5x pytrec_eval's time; and that the means agree with pytrec_eval's.

Usage::

    python outofcore.py [--queries 50000] [--repeat 1] [--data-dir DIR]
                        [--out ../docs/benchmarks-outofcore.md] [--json outofcore.json]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from bench.layout import DEFAULT_DATA_DIR, DEFAULT_SEED, OUTOFCORE_JSON, REPO_DIR
from bench.measuring import check_load, command_line, machine, peak_rss_mb, worker_env
from bench.outofcore_results import HEADER, SPEEDUP, cells
from bench.results import max_difference
from bench.synthetic import ensure_synthetic
from bench.tables import markdown_table
from bench.tools import IR_MEASURES_NAMES, PYTREC_EVAL_MEASURES, mean_by_measure, read_run_dict

DEFAULT_OUT = REPO_DIR / "docs" / "benchmarks-outofcore.md"
DEFAULT_JSON = OUTOFCORE_JSON
CASES = ("pytrec_eval text", "polars_ireval parquet", "polars_ireval text", "ireval text")
REFERENCE = "pytrec_eval text"
#: The issue's targets: peak memory (MB) under this bound, and ``SPEEDUP`` over pytrec_eval.
MEMORY_BOUND_MB = 2048
TAG = "synthetic"


def text_run(parquet: Path) -> Path:
    """Write the synthetic Parquet run as TREC text beside it (once), streaming.

    The generator writes each query's 1,000 rows together in rank order, so a row's rank
    is its row number modulo 1,000, plus one.
    """
    import polars as pl

    path = parquet.with_suffix(".trec")
    if path.exists():
        return path
    print(f"writing {path} ...", file=sys.stderr, flush=True)
    part = path.with_suffix(".part")
    (
        pl.scan_parquet(parquet)
        .with_row_index("i")
        .select(
            "query_id",
            pl.lit("Q0").alias("q0"),
            "doc_id",
            (pl.col("i") % 1000 + 1).alias("rank"),
            "score",
            pl.lit(TAG).alias("tag"),
        )
        .sink_csv(part, separator=" ", include_header=False, quote_style="never")
    )
    part.rename(path)
    return path


# --------------------------------------------------------------------------- workers


def worker(case: str, run: str, qrels: str) -> dict[str, Any]:
    """Measure one case in this process: wall time (imports apart), means, VmHWM."""
    start = time.perf_counter()
    if case == REFERENCE:
        import polars as pl
        import pytrec_eval

        frame = pl.read_parquet(qrels)
        judged: dict[str, dict[str, int]] = {}
        for q, d, r in frame.iter_rows():
            judged.setdefault(q, {})[d] = r
        del frame
        imported = time.perf_counter()
        evaluator = pytrec_eval.RelevanceEvaluator(judged, PYTREC_EVAL_MEASURES)
        means = {TAG: mean_by_measure(evaluator.evaluate(read_run_dict(Path(run))).values())}
    else:
        import polars_ireval as ir

        imported = time.perf_counter()
        result = ir.evaluate_out_of_core(run, qrels, list(IR_MEASURES_NAMES))
        means = {TAG: {IR_MEASURES_NAMES[m]: v for m, v in result.iter_rows()}}
    done = time.perf_counter()
    return {
        "seconds": done - imported,
        "import_s": imported - start,
        "vmhwm_mb": peak_rss_mb(),
        "means": means,
    }


def time_v_peak_mb(stderr: str) -> float | None:
    """ "Maximum resident set size (kbytes)" of ``/usr/bin/time -v`` in MB."""
    found = re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr)
    return int(found.group(1)) / 2**10 if found else None


def measure(case: str, run: Path, qrels: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Run one case in a fresh process under ``/usr/bin/time -v``."""
    timer = ["/usr/bin/time", "-v"] if Path("/usr/bin/time").exists() else []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        if case == "ireval text":
            command = [
                sys.executable, "-m", "polars_ireval.cli", str(qrels), str(run),
                "--chunks", "auto", "-m", " ".join(IR_MEASURES_NAMES),
                "--format", "jsonl", "--output", str(out), "--quiet",
            ]  # fmt: skip
        else:
            command = [
                sys.executable, str(Path(__file__).resolve()), "--worker", case,
                str(run), str(qrels), str(out),
            ]  # fmt: skip
        start = time.perf_counter()
        try:
            proc = subprocess.run(
                [*timer, *command], env=worker_env(), capture_output=True, text=True,
                timeout=args.timeout,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            return {"status": "timeout"}
        wall = time.perf_counter() - start
        if proc.returncode != 0 or not out.exists():
            tail = [line for line in proc.stderr.splitlines() if "Command" not in line][-3:]
            return {"status": "error", "error": " / ".join(tail)}
        if case == "ireval text":
            row = json.loads(out.read_text().splitlines()[0])
            record = {
                "seconds": wall,
                "means": {TAG: {IR_MEASURES_NAMES[m]: row[m] for m in IR_MEASURES_NAMES}},
            }
        else:
            record = json.loads(out.read_text())
    record["status"] = "ok"
    record["peak_mb"] = time_v_peak_mb(proc.stderr)
    record["process_s"] = wall
    return record


# --------------------------------------------------------------------------- report


def summarize(records: dict[str, list[dict[str, Any]]], bound: float) -> list[dict[str, Any]]:
    """One row per case: median time, peak memory, speed-up over pytrec_eval, checks."""
    rows = []
    done = {c: [r for r in rs if r["status"] == "ok"] for c, rs in records.items()}
    ref = done.get(REFERENCE) or []
    ref_s = statistics.median(r["seconds"] for r in ref) if ref else None
    for case, recs in records.items():
        ok = done[case]
        if not ok:
            rows.append({"case": case, "status": recs[-1]["status"] if recs else "not run",
                         "error": recs[-1].get("error", "") if recs else ""})  # fmt: skip
            continue
        median = statistics.median(r["seconds"] for r in ok)
        peak = max(r["peak_mb"] or 0.0 for r in ok)
        diff = max_difference(ref[-1]["means"], ok[-1]["means"])[0] if ref else None
        rows.append(
            {
                "case": case,
                "status": "ok",
                "runs": len(ok),
                "median_s": median,
                "min_s": min(r["seconds"] for r in ok),
                "peak_mb": peak,
                "speedup": (ref_s / median) if ref_s and case != REFERENCE else None,
                "memory_met": peak < bound if case != REFERENCE else None,
                "max_abs_diff": diff if case != REFERENCE else None,
                "means": ok[-1]["means"][TAG],
            }
        )
    return rows


def markdown(rows: list[dict[str, Any]], context: dict[str, Any]) -> str:
    """The Markdown report."""
    info = context["machine"]
    m = context["manifest"]
    parts = [
        "# Benchmarks: one run larger than memory",
        f"Generated by `benchmarks/outofcore.py` on {context['date']}.",
        f"- CPU: {info['cpu']}, {info['cores']} cores; RAM {info['ram_gb']} GB; "
        f"Python {info['python']}\n- Load average before the run: {info['load_before']}",
        f"```\n{context['command']}\n```",
        f"Workload: one run of {m['queries']:,} queries × 1,000 documents "
        f"({m['run_lines']:,} lines; {context['sizes']}), {m['qrels_lines']:,} qrels lines "
        "(MS MARCO-like, `engines.py`'s generator).",
        __doc__.split("\n\n", 2)[1] + "\n\n" + __doc__.split("\n\n", 3)[2],
        markdown_table(HEADER, cells(rows)),
        f"Targets (issue 23): peak memory under {context['bound']:.0f} MB and at least "
        f"{SPEEDUP:g}x pytrec_eval's time. {context['repeat']} measurement(s) per case, "
        "the cases taking turns.",
    ]
    return "\n\n".join(parts) + "\n"


def main(argv: list[str] | None = None) -> None:
    """Generate the data if needed, measure every case, write the report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--cases", nargs="+", choices=CASES, default=list(CASES))
    parser.add_argument("--memory-bound", type=float, default=MEMORY_BOUND_MB, help="MB")
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        case, run, qrels, out = args.worker
        Path(out).write_text(json.dumps(worker(case, run, qrels)))
        return
    load = check_load()
    spec = ensure_synthetic(args.data_dir, args.queries, args.seed)
    text = text_run(spec.run)
    inputs = {case: (text if "text" in case else spec.run) for case in args.cases}
    records: dict[str, list[dict[str, Any]]] = {case: [] for case in args.cases}
    for i in range(args.repeat):
        for case in args.cases:
            print(f"measuring {case} {i + 1}/{args.repeat} ...", file=sys.stderr, flush=True)
            records[case].append(measure(case, inputs[case], spec.qrels, args))
            print(f"  {records[case][-1]}"[:300], file=sys.stderr, flush=True)
    rows = summarize(records, args.memory_bound)
    mb = {name: path.stat().st_size / 2**20 for name, path in (("p", spec.run), ("t", text))}
    sizes = f"Parquet {mb['p']:,.0f} MB, text {mb['t']:,.0f} MB"
    context = {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(load),
        "command": command_line(),
        "manifest": json.loads(spec.manifest.read_text()),
        "sizes": sizes,
        "bound": args.memory_bound,
        "repeat": args.repeat,
    }
    args.out.write_text(markdown(rows, context))
    args.json.write_text(json.dumps({**context, "rows": rows, "records": records}, indent=1) + "\n")
    print(markdown_table(HEADER, cells(rows)))
    print(f"wrote {args.out} and {args.json}")


if __name__ == "__main__":
    main()
