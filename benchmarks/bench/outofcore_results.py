"""``outofcore.py``'s table, a row per case, which ``docs/benchmarks-outofcore.md`` and the
out-of-core section of ``docs/benchmarks.md`` show."""

from __future__ import annotations

from typing import Any

#: The issue's target: at least this speed-up over pytrec_eval (with the peak memory bound,
#: the table's ``targets met``).
SPEEDUP = 5.0


def cells(rows: list[dict[str, Any]]) -> list[tuple[str, ...]]:
    """Table cells of the summary rows."""
    out = []
    for r in rows:
        if r["status"] != "ok":
            out.append((r["case"], "—", "—", "—", "—", "—", "—", f"{r['status']} {r['error']}"))
            continue
        speed = "—" if r["speedup"] is None else f"{r['speedup']:.2f}×"
        met = (
            "—"
            if r["memory_met"] is None
            else ("yes" if r["memory_met"] and (r["speedup"] or 0) >= SPEEDUP else "no")
        )
        diff = "—" if r["max_abs_diff"] is None else f"{r['max_abs_diff']:.3g}"
        out.append(
            (
                r["case"],
                f"{r['median_s']:.2f}",
                f"{r['min_s']:.2f}",
                f"{r['peak_mb']:.0f}",
                speed,
                diff,
                met,
                "ok",
            )
        )
    return out


HEADER = (
    "case",
    "median s",
    "min s",
    "peak MB (time -v)",
    "speed-up vs pytrec_eval",
    "max abs diff of means",
    "targets met",
    "status",
)
