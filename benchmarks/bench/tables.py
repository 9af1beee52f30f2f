"""Tables: aligned plain text (printed) and Markdown (the pages), and their number cells."""

from __future__ import annotations


def number(value: float | None, fmt: str) -> str:
    """Format a number, or an em dash for a missing one."""
    return "—" if value is None else format(value, fmt)


def text_table(header: tuple[str, ...], cells: list[tuple[str, ...]]) -> str:
    """Render an aligned plain-text table."""
    widths = [max(len(str(c)) for c in column) for column in zip(header, *cells, strict=True)]
    rows = [header, tuple("-" * w for w in widths), *cells]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows]
    return "\n".join(line.rstrip() for line in lines)


def markdown_table(header: tuple[str, ...], cells: list[tuple[str, ...]]) -> str:
    """Render a Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in cells]
    return "\n".join(lines)
