"""The benchmark pages' charts, drawn from the results files (``charts.py`` says which).

Nothing is measured here: the numbers are the ones the benchmarks wrote, read through the
same row classes and ratio functions that write the tables (``bench.results``,
``bench.engine_results``), so that the charts and the tables cannot disagree. matplotlib
is imported when a figure is drawn.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.engine_results import Measured, versus_polars
from bench.layout import ENGINES_JSON, REPO_DIR, RESULTS_JSON
from bench.results import Row, ratios
from bench.tools import CASES, SUBJECT

DEFAULT_OUT_DIR = REPO_DIR / "docs" / "images"
TIME_PNG = "benchmarks-time.png"
MEMORY_PNG = "benchmarks-memory.png"
ENGINES_PNG = "benchmarks-engines.png"
#: The parts of ``engines.py`` the engines chart draws (B, DuckDB SQL under a memory limit,
#: compares judge variants, not engines: its table says it).
ENGINE_PARTS = {"a": "Polars and DuckDB engines", "c": "Spark in local mode"}
#: Bar colours: the subject stands out, the peers share one colour per input format.
COLOURS = {(SUBJECT, "text"): "#1f77b4", (SUBJECT, "parquet"): "#0b3d91"}
PEER_COLOURS = {"text": "#bbbbbb", "parquet": "#888888"}


def load(path: Path = RESULTS_JSON) -> tuple[list[Row], dict[str, Any]]:
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


#: One bar: its axis label, its length (None: the case failed, no bar), its note, colour.
Bar = tuple[str, float | None, str, str]


def _colour(tool: str, fmt: str) -> str:
    return COLOURS.get((tool, fmt), PEER_COLOURS.get(fmt, "#888888"))


def _draw(panels: list[tuple[str, list[Bar]]], xlabel: str, title: str) -> Any:
    """One horizontal bar panel a (title, bars), stacked, in a new Figure."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    heights = [len(bars) for _, bars in panels]
    fig = Figure(figsize=(9, 1.2 + 0.42 * sum(heights) + 0.6 * len(panels)), layout="constrained")
    axes = fig.subplots(len(panels), 1, squeeze=False, height_ratios=heights)[:, 0]
    for ax, (panel_title, bars) in zip(axes, panels, strict=True):
        top = max((v for _, v, _, _ in bars if v is not None), default=1.0)
        for y, (label, value, note, colour) in enumerate(bars):
            if value is not None:
                ax.barh(y, value, color=colour, height=0.7, gid=label)
            ax.text((value or 0.0) + top * 0.01, y, note, va="center", fontsize=9)
        ax.set_yticks(range(len(bars)), [b[0] for b in bars])
        ax.invert_yaxis()
        ax.set_xlim(0, top * 1.45)
        ax.set_title(panel_title, fontsize=10, loc="left")
        ax.spines[["top", "right"]].set_visible(False)
    axes[-1].set_xlabel(xlabel)
    fig.suptitle(title, fontsize=10)
    return fig


def _run_title(what: str, context: dict[str, Any], script: str) -> str:
    machine = context.get("machine", {})
    return (
        f"{what}, benchmarks/{script} of {context.get('date', '?')} "
        f"({machine.get('cores', '?')} cores, load average {machine.get('load_before', '?')} "
        "before the run)"
    )


def _results_figure(rows: list[Row], context: dict[str, Any], what: str) -> Any:
    panels = []
    for name in _workloads(rows):
        bars: list[Bar] = []
        for row in _ordered(rows, name):
            label = bar_label(row.tool, row.input)
            if not row.ok:
                bars.append((label, None, row.status, ""))
                continue
            if what == "time":
                vs_subject, _ = ratios(rows, row)
                value, note = row.median, f"{row.median:.3f} s"
                if vs_subject is not None:
                    note += f"  ({vs_subject:.2f}× polars_ireval from {row.input})"
            else:
                value, note = row.peak_mb, f"{row.peak_mb:.0f} MB"
            bars.append((label, value, note, _colour(row.tool, row.input)))
        panels.append((_title(name, context), bars))
    if what == "time":
        xlabel = "median wall time (s): reading the files and the five measures of every run"
        return _draw(panels, xlabel, _run_title("Median time", context, "run.py"))
    xlabel = "peak resident memory of the worker process (MB)"
    return _draw(panels, xlabel, _run_title("Peak memory", context, "run.py"))


def time_figure(rows: list[Row], context: dict[str, Any]) -> Any:
    """Median time per (tool, input), one panel per workload (a matplotlib Figure)."""
    return _results_figure(rows, context, "time")


def memory_figure(rows: list[Row], context: dict[str, Any]) -> Any:
    """Peak memory per (tool, input), one panel per workload (a matplotlib Figure)."""
    return _results_figure(rows, context, "memory")


def load_engines(path: Path = ENGINES_JSON) -> tuple[list[Measured], dict[str, Any]]:
    """The rows (:class:`Measured`) of an ``engines.py`` results file and its context."""
    data = json.loads(Path(path).read_text())
    rows = [Measured(**r) for r in data["rows"]]
    return rows, {k: v for k, v in data.items() if k != "rows"}


def engines_figure(rows: list[Measured], context: dict[str, Any]) -> Any:
    """``engines.py``'s parts A and C: the median time of each engine, one panel per
    (part, workload), each engine's bar labelled with its time over the Polars engine's."""
    panels = []
    for part, name in dict.fromkeys((r.part, r.workload) for r in rows if r.part in ENGINE_PARTS):
        bars: list[Bar] = []
        for row in (r for r in rows if (r.part, r.workload) == (part, name)):
            if not row.ok:
                bars.append((row.tool, None, row.status, ""))
                continue
            ratio, _ = versus_polars(rows, row)
            note = f"{row.median:.3f} s" + (f"  ({ratio:.2f}× polars)" if ratio else "")
            colour = COLOURS[(SUBJECT, "text")] if row.tool == "polars" else PEER_COLOURS["text"]
            bars.append((row.tool, row.median, note, colour))
        title = f"{name}: {rows_of(rows, part, name):,} rows, {ENGINE_PARTS[part]}"
        panels.append((title, bars))
    xlabel = (
        "median wall time (s): reading the Parquet files and the five measures "
        "(Spark's session start-up not included)"
    )
    return _draw(panels, xlabel, _run_title("Engines", context, "engines.py"))


def rows_of(rows: list[Measured], part: str, name: str) -> int:
    """The number of run rows of a (part, workload)."""
    return next(r.rows for r in rows if (r.part, r.workload) == (part, name))


def _save(fig: Any, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100, metadata={"Software": None})
    return path


def draw_results(json_path: Path = RESULTS_JSON, out_dir: Path = DEFAULT_OUT_DIR) -> list[Path]:
    """Draw ``run.py``'s two charts from ``json_path`` into ``out_dir``; returns the files."""
    rows, context = load(json_path)
    return [
        _save(time_figure(rows, context), out_dir / TIME_PNG),
        _save(memory_figure(rows, context), out_dir / MEMORY_PNG),
    ]


def draw_engines(json_path: Path = ENGINES_JSON, out_dir: Path = DEFAULT_OUT_DIR) -> list[Path]:
    """Draw ``engines.py``'s chart from ``json_path`` into ``out_dir``; returns the file."""
    return [_save(engines_figure(*load_engines(json_path)), out_dir / ENGINES_PNG)]
