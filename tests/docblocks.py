"""Running the Python blocks of a documentation page: each prints what the text block after
it shows (``tests/test_*_docs.py``)."""

from __future__ import annotations

import contextlib
import io
import os
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from tests.paths import ROOT

FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)


def blocks(text: str) -> list[tuple[str, str | None]]:
    """(code, expected output) for each Python block; the expected output is the text block
    right after it (only blank lines between), if any."""
    found = [(m.group(1), m.group(2), m.start(), m.end()) for m in FENCE.finditer(text)]
    out = []
    for i, (lang, body, _, end) in enumerate(found):
        if lang != "python":
            continue
        expected = None
        if i + 1 < len(found):
            nlang, nbody, nstart, _ = found[i + 1]
            if nlang == "text" and not text[end:nstart].strip():
                expected = nbody
        out.append((body, expected))
    return out


def run_blocks(
    page: Path,
    after: Callable[[int, dict[str, Any]], None] | None = None,
    namespace: dict[str, Any] | None = None,
) -> list[tuple[str, str, str | None]]:
    """Execute the page's Python blocks in order, in one namespace, from the repository
    root (Polars' table options restored after); (code, printed, expected) per block.
    ``after(i, namespace)`` is called after block ``i`` (from 0), if given; ``namespace``
    (a dict, filled in place) lets the caller read the page's variables afterwards."""
    namespace = {} if namespace is None else namespace
    if "ir.fetch(" in page.read_text():  # served from localhost, never the internet
        from tests.datasets import local_datasets

        local_datasets()
    results = []
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with warnings.catch_warnings(), pl.Config():  # a page may set table options
            warnings.simplefilter("ignore")
            for code, expected in blocks(page.read_text()):
                buf = io.StringIO()
                with contextlib.redirect_stdout(buf):
                    exec(compile(code, str(page), "exec"), namespace)
                results.append((code, buf.getvalue(), expected))
                if after is not None:
                    after(len(results) - 1, namespace)
    finally:
        os.chdir(cwd)
    return results


def normalise(s: str) -> str:
    return "\n".join(line.rstrip() for line in s.strip("\n").splitlines())


IMAGE = re.compile(r"!\[[^\]]*\]\((?:\.\./)*images/([\w.-]+\.png)\)")


def figure_names(text: str) -> list[list[str]]:
    """Per Python block, the images (``docs/images/NAME.png``) the page shows between
    that block and the next Python block: the figures that block draws."""
    found = [(m.group(1), m.start(), m.end()) for m in FENCE.finditer(text)]
    python = [(start, end) for lang, start, end in found if lang == "python"]
    out = []
    for i, (_, end) in enumerate(python):
        stop = python[i + 1][0] if i + 1 < len(python) else len(text)
        out.append(IMAGE.findall(text[end:stop]))
    return out


def run_page(
    page: Path, namespace: dict[str, Any] | None = None
) -> tuple[list[tuple[str, str, str | None]], dict[str, Any]]:
    """Run the page's blocks (as :func:`run_blocks`) and collect the figures they draw:
    {image name: matplotlib Figure}. A block followed by image links must leave, among
    the values of its namespace, exactly that many Figures it created, in the order of
    the links (the order they were bound)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    names = figure_names(page.read_text())
    seen: set[int] = set()
    figures: dict[str, Any] = {}

    def collect(i: int, namespace: dict[str, Any]) -> None:
        new = [v for v in namespace.values() if isinstance(v, Figure) and id(v) not in seen]
        seen.update(id(v) for v in new)
        if len(new) != len(names[i]):
            raise AssertionError(
                f"{page.name}, Python block {i + 1}: it draws {len(new)} figure(s) and the "
                f"page shows {names[i]} after it"
            )
        figures.update(zip(names[i], new, strict=True))

    return run_blocks(page, after=collect, namespace=namespace), figures


def save_figure(fig: Any, path: Path) -> None:
    """Save a tutorial figure as the committed files are saved (tests compare them)."""
    fig.savefig(path, dpi=80, metadata={"Software": None})
