"""docs/compare.md runs: its Python blocks, in order, print what its text blocks show."""

from __future__ import annotations

import contextlib
import io
import os
import re
import warnings
from pathlib import Path

from tests.conftest import ROOT, need_data

DOC = ROOT / "docs" / "compare.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)


def blocks(text: str) -> list[tuple[str, str, str | None]]:
    """(language, code, expected output) for each Python block; the expected output is the
    text block right after it (only blank lines between), if any."""
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
        out.append((lang, body, expected))
    return out


def run_blocks(text: str) -> list[tuple[str, str, str | None]]:
    """Execute the Python blocks in one namespace from the repository root; returns
    (code, printed output, expected output) per block."""
    namespace: dict[str, object] = {}
    results = []
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _, code, expected in blocks(text):
                buf = io.StringIO()
                with contextlib.redirect_stdout(buf):
                    exec(compile(code, str(DOC), "exec"), namespace)
                results.append((code, buf.getvalue(), expected))
    finally:
        os.chdir(cwd)
    return results


def normalise(s: str) -> str:
    return "\n".join(line.rstrip() for line in s.strip("\n").splitlines())


def test_docs_compare_blocks_run_and_print_what_they_show() -> None:
    need_data()
    text = Path(DOC).read_text()
    results = run_blocks(text)
    assert len(results) >= 8
    for code, printed, expected in results:
        if expected is None:
            continue
        assert normalise(printed) == normalise(expected), f"block:\n{code}"
