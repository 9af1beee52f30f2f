"""Draw the charts of ``docs/benchmarks.md`` from the committed results (``results.json``).

Two figures, one panel per workload, one bar per (tool, input) that ran, in the order of
the page's table:

- ``docs/images/benchmarks-time.png``: the median wall time, each peer's bar labelled with
  its time over polars_ireval's on the same workload and input (the table's
  ``peer / polars_ireval``);
- ``docs/images/benchmarks-memory.png``: the peak resident memory of the worker process.

Nothing is measured here: the numbers are the ones ``run.py`` wrote, read through the same
``Row`` and ratio functions that write the table, so the charts and the table cannot
disagree. ``run.py`` calls :func:`main` after a full run; ``python run.py --report-only``
rewrites the page and the charts from ``results.json``. ``tests/test_benchmark_charts.py``
counts the bars and checks every drawn number against the data.

Usage (from ``benchmarks/``)::

    python charts.py [--json results.json] [--out-dir ../docs/images]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from run import CASES, DEFAULT_JSON, REPO_DIR, SUBJECT, Row, ratios

DEFAULT_OUT_DIR = REPO_DIR / "docs" / "images"
TIME_PNG = "benchmarks-time.png"
MEMORY_PNG = "benchmarks-memory.png"
#: Bar colours: the subject stands out, the peers share one colour per input format.
COLOURS = {(SUBJECT, "text"): "#1f77b4", (SUBJECT, "parquet"): "#0b3d91"}
PEER_COLOURS = {"text": "#bbbbbb", "parquet": "#888888"}


def load(path: Path = DEFAULT_JSON) -> tuple[list[Row], dict[str, Any]]:
    """The rows of a results file and its context (date, machine, workloads...)."""
    data = json.loads(Path(path).read_text())
    rows = [Row(**r) for r in data["rows"]]
    return rows, {k: v for k, v in data.items() if k != "rows"}


def bar_label(tool: str, fmt: str) -> str:
    """The axis label of one bar."""
    return f"{tool} ({fmt})"


def _ordered(rows: list[Row], name: str) -> list[Row]:
    """A workload's rows in the table's case order (cases not run are left out)."""
    by_case = {(r.tool, r.input): r for r in rows if r.workload == name}
    return [by_case[c] for c in CASES if c in by_case]


def _workloads(rows: list[Row]) -> list[str]:
    return list(dict.fromkeys(r.workload for r in rows))


def _title(name: str, context: dict[str, Any]) -> str:
    m = context.get("manifests", {}).get(name)
    if not m:
        return name
    return f"{name}: {m['runs']} run(s) × {m['queries']:,} queries × 1,000 documents"


def _figure(rows: list[Row], context: dict[str, Any], what: str) -> Any:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    names = _workloads(rows)
    heights = [len(_ordered(rows, n)) for n in names]
    fig = Figure(figsize=(9, 1.2 + 0.42 * sum(heights) + 0.6 * len(names)), layout="constrained")
    axes = fig.subplots(len(names), 1, squeeze=False, height_ratios=heights)[:, 0]
    for ax, name in zip(axes, names, strict=True):
        ordered = _ordered(rows, name)
        labels, values, notes = [], [], []
        for y, row in enumerate(ordered):
            labels.append(bar_label(row.tool, row.input))
            if not row.ok:
                values.append(None)
                notes.append(row.status)
                continue
            if what == "time":
                vs_subject, _ = ratios(rows, row)
                values.append(row.median)
                note = f"{row.median:.3f} s"
                if vs_subject is not None:
                    note += f"  ({vs_subject:.2f}× polars_ireval from {row.input})"
            else:
                values.append(row.peak_mb)
                note = f"{row.peak_mb:.0f} MB"
            notes.append(note)
            colour = COLOURS.get((row.tool, row.input), PEER_COLOURS.get(row.input, "#888888"))
            ax.barh(y, values[-1], color=colour, height=0.7, gid=labels[-1])
        top = max((v for v in values if v is not None), default=1.0)
        for y, (value, note) in enumerate(zip(values, notes, strict=True)):
            ax.text((value or 0.0) + top * 0.01, y, note, va="center", fontsize=9)
        ax.set_yticks(range(len(labels)), labels)
        ax.invert_yaxis()
        ax.set_xlim(0, top * 1.45)
        ax.set_title(_title(name, context), fontsize=10, loc="left")
        ax.spines[["top", "right"]].set_visible(False)
    axes[-1].set_xlabel(
        "median wall time (s): reading the files and the five measures of every run"
        if what == "time"
        else "peak resident memory of the worker process (MB)"
    )
    machine = context.get("machine", {})
    fig.suptitle(
        f"{'Median time' if what == 'time' else 'Peak memory'}, benchmarks/run.py of "
        f"{context.get('date', '?')} ({machine.get('cores', '?')} cores, load average "
        f"{machine.get('load_before', '?')} before the run)",
        fontsize=10,
    )
    return fig


def time_figure(rows: list[Row], context: dict[str, Any]) -> Any:
    """Median time per (tool, input), one panel per workload (a matplotlib Figure)."""
    return _figure(rows, context, "time")


def memory_figure(rows: list[Row], context: dict[str, Any]) -> Any:
    """Peak memory per (tool, input), one panel per workload (a matplotlib Figure)."""
    return _figure(rows, context, "memory")


def main(json_path: Path = DEFAULT_JSON, out_dir: Path = DEFAULT_OUT_DIR) -> list[Path]:
    """Draw both charts from ``json_path`` into ``out_dir``; returns the files written."""
    rows, context = load(json_path)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, figure in ((TIME_PNG, time_figure), (MEMORY_PNG, memory_figure)):
        path = out_dir / name
        figure(rows, context).savefig(path, dpi=100, metadata={"Software": None})
        written.append(path)
    return written


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="results of run.py")
    parser.add_argument("--out-dir", type=Path, default=DEFAULT_OUT_DIR)
    args = parser.parse_args()
    for path in main(args.json, args.out_dir):
        print(f"wrote {path}")
