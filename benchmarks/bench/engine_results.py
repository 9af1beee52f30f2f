"""``engines.py``'s records and tables: :class:`Measured` rows, each engine's time over the
Polars engine's (Spark's over DuckDB's too), and the tables of parts A, B and C, which
``docs/benchmarks-engines.md`` and the engines section of ``docs/benchmarks.md`` show.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from bench.results import Row, max_difference, status_text
from bench.tables import number

#: The issue's target: the DuckDB engine's time at most this multiple of the Polars engine's.
DUCKDB_TARGET = 1.5
#: The issue's target for part C: the Spark engine's time at most this multiple of DuckDB's.
SPARK_TARGET = 10.0
#: Largest difference between two engines' means that counts as agreement.
AGREEMENT = 1e-9

#: ``ireval_judge`` options of each part B variant, as SQL named arguments.
JUDGE_VARIANTS = {
    "judged": ", unjudged := FALSE",
    "counted": ", unjudged := FALSE, rank_by := 'count'",
    "full": "",
}
JUDGE_LABELS = {
    "judged": "ireval_judge(..., unjudged := FALSE)",
    "counted": "ireval_judge(..., unjudged := FALSE, rank_by := 'count')",
    "full": "ireval_judge(...) (defaults)",
}
#: Timings that workers report besides ``import_s`` and ``seconds``: Spark's session
#: start-up, the call to ``evaluate(engine="spark")`` and a second (warm) evaluation,
#: and the evaluation table of part B.
PHASES = {"startup_s", "plan_s", "warm_s", "judge_s"}


@dataclass
class Measured(Row):
    """A row of ``run.py`` (``tool`` is the engine, ``input`` the input or judge variant)
    with what this benchmark records besides (``phases``: the lists of ``PHASES``)."""

    part: str = "a"
    rows: int = 0
    phases: dict[str, list[float]] = field(default_factory=dict)
    jvm_peak_mb: float | None = None
    temp_peak_mb: float | None = None
    eval_rows: int | None = None


def reference(rows: list[Measured], row: Measured) -> Measured | None:
    """The successful Polars engine row of the same part and workload, if any."""
    return next(
        (
            r
            for r in rows
            if (r.part, r.workload, r.tool) == (row.part, row.workload, "polars") and r.ok
        ),
        None,
    )


def versus_polars(rows: list[Measured], row: Measured) -> tuple[float | None, float | None]:
    """The row's median time over the Polars engine's and the largest difference of their
    means (both None for the Polars row itself or without a reference)."""
    ref = reference(rows, row)
    if ref is None or ref is row or not row.ok or not ref.median or row.median is None:
        return None, None
    return row.median / ref.median, max_difference(ref.means, row.means)[0]


def versus_duckdb(rows: list[Measured], row: Measured) -> float | None:
    """The row's median time over the DuckDB engine's on the same part and workload (None
    for the other engines or without a DuckDB row)."""
    ref = next(
        (
            r
            for r in rows
            if (r.part, r.workload, r.tool) == (row.part, row.workload, "duckdb") and r.ok
        ),
        None,
    )
    spark = row.tool.startswith("spark")
    if not spark or ref is None or not row.ok or not ref.median or not row.median:
        return None
    return row.median / ref.median


def judge_difference(rows: list[Measured]) -> float | None:
    """Largest difference between the means of part B's first judge variant and the others
    (None unless two succeeded)."""
    done = [r for r in rows if r.part == "b" and r.ok]
    diffs = [max_difference(done[0].means, r.means)[0] for r in done[1:]]
    return max(diffs) if diffs else None


def agreement(diff: float | None) -> str:
    """``yes``/``no``: whether a difference of means is within ``AGREEMENT``."""
    return "—" if diff is None else ("yes" if diff <= AGREEMENT else "no")


def median_of(values: list[float]) -> float | None:
    """The median of a list, None if it is empty."""
    return statistics.median(values) if values else None


ENGINE_HEADER = (
    "workload",
    "rows",
    "engine",
    "median s",
    "min s",
    "import s",
    "peak MB",
    "time / polars",
    "max diff vs polars",
    "agree",
    "status",
)
TARGET_HEADER = ("workload", "duckdb / polars", "target", "met")
BIG_HEADER = (
    "judge",
    "rows",
    "memory_limit",
    "wall s",
    "judge s",
    "evaluation rows",
    "peak MB",
    "spill peak MB",
    "status",
)
SPARK_HEADER = (
    "workload",
    "engine",
    "rows",
    "median s",
    "min s",
    "import s",
    "session start s",
    "evaluate() s",
    "warm s",
    "peak MB (Python)",
    "peak MB (JVM)",
    "time / polars",
    "time / duckdb",
    "max diff vs polars",
    "agree",
    "status",
)
SPARK_TARGET_HEADER = ("workload", "engine", "spark / duckdb", "target", "met")


def engine_cells(rows: list[Measured], part: str) -> list[tuple[str, ...]]:
    """Cells of the part A table."""
    cells: list[tuple[str, ...]] = []
    for row in (r for r in rows if r.part == part):
        ratio, diff = versus_polars(rows, row)
        cells.append(
            (
                row.workload,
                f"{row.rows:,}",
                row.tool,
                number(row.median, ".3f"),
                number(row.fastest, ".3f"),
                number(median_of(row.import_times), ".2f"),
                number(row.peak_mb, ".0f"),
                number(ratio, ".2f"),
                number(diff, ".2g"),
                agreement(diff),
                status_text(row),
            )
        )
    return cells


def target_cells(rows: list[Measured]) -> list[tuple[str, ...]]:
    """Cells of the part A target table: DuckDB's time over Polars' per workload."""
    cells: list[tuple[str, ...]] = []
    for row in (r for r in rows if r.part == "a" and r.tool == "duckdb"):
        ratio = versus_polars(rows, row)[0]
        met = "—" if ratio is None else ("yes" if ratio <= DUCKDB_TARGET else "no")
        cells.append((row.workload, number(ratio, ".2f"), f"≤ {DUCKDB_TARGET:g}", met))
    return cells


def big_cells(rows: list[Measured], memory_limit: str) -> list[tuple[str, ...]]:
    """Cells of the part B table."""
    return [
        (
            JUDGE_LABELS[row.input],
            f"{row.rows:,}",
            memory_limit,
            number(row.median, ".1f"),
            number(median_of(row.phases.get("judge_s", [])), ".1f"),
            number(row.eval_rows, ",d"),
            number(row.peak_mb, ".0f"),
            number(row.temp_peak_mb, ".0f"),
            "completed" if row.ok else status_text(row),
        )
        for row in rows
        if row.part == "b"
    ]


def spark_cells(rows: list[Measured]) -> list[tuple[str, ...]]:
    """Cells of the part C table."""
    cells: list[tuple[str, ...]] = []
    for row in (r for r in rows if r.part == "c"):
        ratio, diff = versus_polars(rows, row)
        cells.append(
            (
                row.workload,
                row.tool,
                f"{row.rows:,}",
                number(row.median, ".2f"),
                number(row.fastest, ".2f"),
                number(median_of(row.import_times), ".2f"),
                number(median_of(row.phases.get("startup_s", [])), ".1f"),
                number(median_of(row.phases.get("plan_s", [])), ".1f"),
                number(median_of(row.phases.get("warm_s", [])), ".1f"),
                number(row.peak_mb, ".0f"),
                number(row.jvm_peak_mb, ".0f"),
                number(ratio, ".2f"),
                number(versus_duckdb(rows, row), ".1f"),
                number(diff, ".2g"),
                agreement(diff),
                status_text(row),
            )
        )
    return cells


def spark_target_cells(rows: list[Measured]) -> list[tuple[str, ...]]:
    """Cells of the part C target table: Spark's time over DuckDB's per workload."""
    cells: list[tuple[str, ...]] = []
    for row in (r for r in rows if r.part == "c" and r.tool.startswith("spark")):
        ratio = versus_duckdb(rows, row)
        met = "—" if ratio is None else ("yes" if ratio <= SPARK_TARGET else "no")
        cells.append((row.workload, row.tool, number(ratio, ".1f"), f"≤ {SPARK_TARGET:g}", met))
    return cells
