"""``fusion.py``'s fusions, records and tables: what is fused (RRF and CombMNZ over all
campaign runs, ten variants fused and evaluated), a :class:`FusionRow` per (part, case,
tool, input), the ratios of ranx's times to polars_ireval's and the cells of the page's
tables. Standard library only: the measuring workers load only the tool they measure.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

SUBJECT = "polars_ireval"
PEER = "ranx"
#: The issue's target: ranx's time over polars_ireval's, from the Parquet file to the
#: fused run in memory, on RRF and CombMNZ(min-max).
TARGET = 10.0
#: The fused scores of the two tools must agree to this (absolute) on the top of each query.
TOLERANCE = 1e-9
TOP = 100


@dataclass(frozen=True)
class Fusion:
    """One fusion, as ``ir.fuse(runs, method, norm=norm, **params)`` and
    ``ranx.fuse(runs, norm=..., method=method, params=params)`` (the two share the method
    names; ranx takes ``None`` where polars_ireval takes ``norm="none"``)."""

    label: str
    method: str
    norm: str
    params: Mapping[str, float] = field(default_factory=dict)

    @property
    def ranx_norm(self) -> str | None:
        """ranx's ``norm=``: ``None`` (no normalisation) for ``"none"``."""
        return None if self.norm == "none" else self.norm

    def describe(self) -> str:
        """``rrf, norm none, k=60``: the call's arguments in a few words."""
        params = "".join(f", {k}={v:g}" for k, v in self.params.items())
        return f"{self.method}, norm {self.norm}{params}"


#: Part ``fuse``: all runs fused once. RRF reads ranks, on which a normalisation has no
#: effect: both tools skip it (ranx's default, min-max, would only add work to ranx).
FUSIONS: dict[str, Fusion] = {
    "rrf": Fusion("RRF (k=60)", "rrf", "none", {"k": 60}),
    "mnz": Fusion("CombMNZ (min-max)", "mnz", "min-max"),
}
#: Part ``variants``: ten fusions fused and evaluated. Not the Borda count: ranx's
#: ``bordafuse`` tests membership in a typed list for each of a query's candidates in each
#: run (quadratic), and had not finished one fusion of the campaign after 10 minutes.
VARIANTS: tuple[Fusion, ...] = (
    Fusion("rrf-k10", "rrf", "none", {"k": 10}),
    Fusion("rrf-k60", "rrf", "none", {"k": 60}),
    Fusion("mnz-minmax", "mnz", "min-max"),
    Fusion("mnz-zmuv", "mnz", "zmuv"),
    Fusion("sum-minmax", "sum", "min-max"),
    Fusion("sum-zmuv", "sum", "zmuv"),
    Fusion("max-minmax", "max", "min-max"),
    Fusion("max-zmuv", "max", "zmuv"),
    Fusion("isr", "isr", "none"),
    Fusion("rbc", "rbc", "none", {"phi": 0.8}),
)
#: The measures of part ``variants``: polars_ireval's names -> ranx's.
MEASURES = {"nDCG@10": "ndcg@10", "AP": "map", "P@10": "precision@10"}

PARTS = ("fuse", "variants", "stages")
#: (part, case, tool, input) in table order. ``memory``: the runs read before the clock
#: starts (polars_ireval's fuse alone; ranx's is a stage of its ``parquet`` row).
CASES: tuple[tuple[str, str, str, str], ...] = (
    ("fuse", "rrf", SUBJECT, "parquet"),
    ("fuse", "rrf", SUBJECT, "memory"),
    ("fuse", "rrf", PEER, "parquet"),
    ("fuse", "mnz", SUBJECT, "parquet"),
    ("fuse", "mnz", SUBJECT, "memory"),
    ("fuse", "mnz", PEER, "parquet"),
    ("variants", "variants", SUBJECT, "parquet"),
    ("variants", "variants", PEER, "parquet"),
)


@dataclass
class FusionRow:
    """Measurements of one (part, case, tool, input): wall times, ranx's stages (``read``,
    ``fuse``, ``evaluate``), the largest peak memory over the repetitions and, for the
    variants, the means."""

    part: str
    case: str
    tool: str
    input: str
    status: str = "ok"
    error: str = ""
    version: str = ""
    times: list[float] = field(default_factory=list)
    import_times: list[float] = field(default_factory=list)
    stages: dict[str, list[float]] = field(default_factory=dict)
    peak_mb: float | None = None
    means: dict[str, dict[str, float]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Whether every repetition succeeded."""
        return self.status == "ok" and bool(self.times)

    @property
    def median(self) -> float | None:
        """Median wall time in seconds."""
        return statistics.median(self.times) if self.ok else None

    @property
    def fastest(self) -> float | None:
        """Minimum wall time in seconds."""
        return min(self.times) if self.ok else None

    def stage(self, name: str) -> float | None:
        """Median time of one stage, if measured."""
        values = self.stages.get(name)
        return statistics.median(values) if self.ok and values else None

    def add(self, record: Mapping[str, Any]) -> None:
        """Add one successful worker record."""
        self.version = record.get("version", self.version)
        self.times.append(record["seconds"])
        self.import_times.append(record["import_s"])
        for name, value in record.get("stages", {}).items():
            self.stages.setdefault(name, []).append(value)
        self.peak_mb = max(self.peak_mb or 0.0, record["peak_mb"])
        self.means = record.get("means", {}) or self.means


def find(rows: list[FusionRow], case: str, tool: str, fmt: str) -> FusionRow | None:
    """The successful row of (case, tool, input), if any."""
    for row in rows:
        if (row.case, row.tool, row.input) == (case, tool, fmt) and row.ok:
            return row
    return None


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    """``numerator / denominator``, or ``None`` if either is missing."""
    if numerator is None or not denominator:
        return None
    return numerator / denominator


def times_x(value: float | None) -> str:
    """A ratio as ``12.3×``, or an em dash."""
    return "—" if value is None else f"{value:.1f}×"


def seconds(value: float | None, fmt: str = ".2f") -> str:
    """A time, or an em dash."""
    return "—" if value is None else format(value, fmt)


def status_text(row: FusionRow, width: int = 60) -> str:
    """``ok``, or the status and the error, shortened to ``width`` characters."""
    if row.ok:
        return "ok"
    text = f"{row.status}: {row.error}" if row.error else row.status
    return text if len(text) <= width else text[: width - 1] + "…"


def case_label(case: str) -> str:
    """The label of a case (``RRF (k=60)``, ``ten variants``)."""
    return FUSIONS[case].label if case in FUSIONS else f"{len(VARIANTS)} variants + evaluate"


def input_label(fmt: str) -> str:
    """How the input reaches the tool."""
    return {"parquet": "Parquet file", "memory": "frame in memory"}[fmt]


RESULT_HEADER = (
    "fusion",
    "tool",
    "input",
    "median s",
    "min s",
    "import s",
    "ranx's stages (median s)",
    "peak MB",
    "ranx / polars_ireval",
    "status",
)


def stage_text(row: FusionRow) -> str:
    """ranx's stages as ``read 24.1 + fuse 5.7``."""
    if not row.ok or not row.stages:
        return "—"
    return " + ".join(f"{name} {row.stage(name):.2f}" for name in row.stages)


def result_cells(rows: list[FusionRow]) -> list[tuple[str, ...]]:
    """One row of the results table per measured (case, tool, input): ranx's row carries
    its time over polars_ireval's from the same Parquet file."""
    cells = []
    for row in rows:
        vs = None
        if row.tool == PEER:
            subject = find(rows, row.case, SUBJECT, "parquet")
            vs = ratio(row.median, subject.median if subject else None)
        imported = statistics.median(row.import_times) if row.ok else None
        cells.append(
            (
                case_label(row.case),
                row.tool,
                input_label(row.input),
                seconds(row.median, ".3f"),
                seconds(row.fastest, ".3f"),
                seconds(imported),
                stage_text(row),
                seconds(row.peak_mb, ".0f"),
                times_x(vs),
                status_text(row),
            )
        )
    return cells


TARGET_HEADER = (
    "fusion",
    "polars_ireval s (Parquet)",
    "ranx s (Parquet)",
    "ranx / polars_ireval",
    "target",
    "met",
    "polars_ireval peak MB",
    "ranx peak MB",
    "fuse alone: polars_ireval s (frame)",
    "ranx's fuse stage s",
    "fuse alone: ranx / polars_ireval",
)


def target_cells(rows: list[FusionRow]) -> list[tuple[str, ...]]:
    """Per fusion of part ``fuse``: the end-to-end ratio against the target, the peak
    memory of both, and the fuse step alone (runs in memory) compared the same way."""
    cells = []
    for case in FUSIONS:
        ours, memory, theirs = (
            find(rows, case, SUBJECT, "parquet"),
            find(rows, case, SUBJECT, "memory"),
            find(rows, case, PEER, "parquet"),
        )
        if ours is None and theirs is None:
            continue
        end_to_end = ratio(theirs.median if theirs else None, ours.median if ours else None)
        fuse_stage = theirs.stage("fuse") if theirs else None
        alone = ratio(fuse_stage, memory.median if memory else None)
        met = "—" if end_to_end is None else ("yes" if end_to_end >= TARGET else "no")
        cells.append(
            (
                case_label(case),
                seconds(ours.median if ours else None, ".3f"),
                seconds(theirs.median if theirs else None),
                times_x(end_to_end),
                f"{TARGET:g}×",
                met,
                seconds(ours.peak_mb if ours else None, ".0f"),
                seconds(theirs.peak_mb if theirs else None, ".0f"),
                seconds(memory.median if memory else None, ".3f"),
                seconds(fuse_stage),
                times_x(alone),
            )
        )
    return cells


CHECK_HEADER = (
    "fusion",
    "fused rows (polars_ireval / ranx)",
    "(query, doc) compared",
    "max abs diff",
    "with a tie in an input ranking",
    "of those, different",
    "outside the tie bounds",
    "agree",
)


def check_cells(checks: list[dict[str, Any]]) -> list[tuple[str, ...]]:
    """The cells of the agreement check, one row per fusion."""
    cells = []
    for c in checks:
        if "error" in c:
            cells.append((case_label(c["case"]), "—", "—", "—", "—", "—", "—", c["error"]))
            continue
        tied = c.get("tied")
        cells.append(
            (
                case_label(c["case"]),
                f"{c['rows_ours']:,} / {c['rows_ranx']:,}",
                f"{c['compared']:,}",
                format(c["max_abs_diff_untied"], ".3g") + (" (untied)" if tied else ""),
                "—" if tied is None else f"{tied:,}",
                "—" if tied is None else f"{c['tied_differing']:,} (max {c['max_abs_diff']:.3g})",
                "—" if tied is None else f"{c['outside_bounds']:,}",
                "yes" if c["agree"] else "no",
            )
        )
    return cells


def difference(value: float) -> str:
    """A signed difference, ``0`` when there is none."""
    return "0" if value == 0 else f"{value:+.2g}"


VARIANT_HEADER = ("variant", "ir.fuse / ranx.fuse", *(f"{m} Δ" for m in MEASURES))


def variant_cells(rows: list[FusionRow]) -> list[tuple[str, ...]]:
    """Per variant: its call and the difference of each measure's mean (ranx - ours)."""
    ours = find(rows, "variants", SUBJECT, "parquet")
    theirs = find(rows, "variants", PEER, "parquet")
    cells = []
    for v in VARIANTS:
        diffs = []
        for m in MEASURES:
            a = ours.means.get(v.label, {}).get(m) if ours else None
            b = theirs.means.get(v.label, {}).get(m) if theirs else None
            diffs.append("—" if a is None or b is None else difference(b - a))
        cells.append((v.label, v.describe(), *diffs))
    return cells


STAGE_HEADER = (
    "step (polars_ireval's own, each alone on data prepared before)",
    "median s",
    "min s",
)


def stage_cells(stages: dict[str, list[float]]) -> list[tuple[str, ...]]:
    """The cells of the step table."""
    return [
        (label, f"{statistics.median(ts):.3f}", f"{min(ts):.3f}") for label, ts in stages.items()
    ]
