"""``run.py``'s records: a :class:`Row` per (tool, workload, input), and how rows compare
(a peer's time over polars_ireval's, the fastest peer's over polars_ireval's, the largest
difference between two tools' means). ``engines.py``'s rows extend it
(``bench.engine_results.Measured``).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from bench.tools import SUBJECT, Means


@dataclass
class Row:
    """Measurements of one (tool, workload, input format)."""

    tool: str
    workload: str
    input: str
    status: str = "ok"
    error: str = ""
    version: str = ""
    times: list[float] = field(default_factory=list)
    import_times: list[float] = field(default_factory=list)
    peak_mb: float | None = None
    means: Means = field(default_factory=dict)

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


def status_text(row: Row, width: int = 70) -> str:
    """One-line status of a row, the error shortened to ``width`` characters."""
    if row.ok:
        return "ok"
    text = f"{row.status}: {row.error}" if row.error else row.status
    return text if len(text) <= width else text[: width - 1] + "…"


def subject_row(rows: list[Row], row: Row) -> Row | None:
    """The successful polars_ireval row with the same workload and input as ``row``."""
    for other in rows:
        if (other.tool, other.workload, other.input) == (SUBJECT, row.workload, row.input):
            return other if other.ok else None
    return None


def fastest_peer(rows: list[Row], name: str) -> Row | None:
    """The fastest successful peer row (any input) on a workload."""
    peers = [r for r in rows if r.workload == name and r.tool != SUBJECT and r.ok]
    return min(peers, key=lambda r: r.median or 0.0, default=None)


def ratios(rows: list[Row], row: Row) -> tuple[float | None, float | None]:
    """Speed ratios of a row.

    Returns
    -------
    tuple
        ``peer_time / polars_ireval_time`` (peer rows, same workload and input) and
        ``fastest_peer_time / polars_ireval_time`` (polars_ireval rows).
    """
    if not row.ok or row.median is None:
        return None, None
    if row.tool != SUBJECT:
        subject = subject_row(rows, row)
        return (row.median / subject.median if subject and subject.median else None), None
    peer = fastest_peer(rows, row.workload)
    return None, (peer.median / row.median if peer and peer.median else None)


def max_difference(reference: Means, means: Means) -> tuple[float, str]:
    """Largest absolute difference between two sets of means.

    Returns
    -------
    tuple
        The difference (``inf`` if a run or measure is missing) and where it occurs.
    """
    worst, where = 0.0, ""
    for run_id, values in reference.items():
        for name, value in values.items():
            other = means.get(run_id, {}).get(name)
            diff = float("inf") if other is None else abs(other - value)
            if diff > worst or not where:
                worst, where = diff, f"{name} ({run_id})"
    return worst, where
