"""docs/judging.md runs: its Python blocks, in order, print what its text blocks show."""

from __future__ import annotations

import contextlib
import io
import os
import re
import warnings
from pathlib import Path

import polars as pl

from tests.conftest import ROOT, need_data

DOC = ROOT / "docs" / "judging.md"
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


def normalise(s: str) -> str:
    return "\n".join(line.rstrip() for line in s.strip("\n").splitlines())


def test_docs_judging_blocks_run_and_print_what_they_show() -> None:
    need_data()
    found = blocks(Path(DOC).read_text())
    assert len(found) >= 10
    assert all(expected is not None for _, expected in found)
    namespace: dict[str, object] = {}
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with warnings.catch_warnings(), pl.Config():  # the page sets table options
            warnings.simplefilter("ignore")
            for code, expected in found:
                buf = io.StringIO()
                with contextlib.redirect_stdout(buf):
                    exec(compile(code, str(DOC), "exec"), namespace)
                assert normalise(buf.getvalue()) == normalise(expected or ""), f"block:\n{code}"
    finally:
        os.chdir(cwd)


def test_docs_judging_command_lines_name_real_options() -> None:
    from polars_ireval.cli_pool import _pool_parser, _simulate_parser

    text = Path(DOC).read_text()
    commands = [line for line in text.splitlines() if line.startswith("ireval ")]
    assert len(commands) >= 4
    for line in commands:
        words = line.split("#")[0].split()
        parser = _pool_parser() if words[1] == "pool" else _simulate_parser()
        known = {o for action in parser._actions for o in action.option_strings}
        flags = [w for w in words[2:] if w.startswith("-")]
        assert set(flags) <= known, line
