"""Running the Python blocks of a documentation page: each prints what the text block after
it shows (``tests/test_*_docs.py``)."""

from __future__ import annotations

import contextlib
import io
import os
import re
import warnings
from pathlib import Path

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


def run_blocks(page: Path) -> list[tuple[str, str, str | None]]:
    """Execute the page's Python blocks in order, in one namespace, from the repository
    root (Polars' table options restored after); (code, printed, expected) per block."""
    namespace: dict[str, object] = {}
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
    finally:
        os.chdir(cwd)
    return results


def normalise(s: str) -> str:
    return "\n".join(line.rstrip() for line in s.strip("\n").splitlines())
