"""docs/judging.md runs: its Python blocks, in order, print what its text blocks show."""

from __future__ import annotations

from pathlib import Path

from tests.docblocks import normalise, run_blocks
from tests.paths import ROOT, need_data

DOC = ROOT / "docs" / "judging.md"


def test_docs_judging_blocks_run_and_print_what_they_show() -> None:
    need_data()
    results = run_blocks(DOC)
    assert len(results) >= 10
    for code, printed, expected in results:
        assert expected is not None, f"block without its output:\n{code}"
        assert normalise(printed) == normalise(expected), f"block:\n{code}"


def test_docs_judging_command_lines_name_real_options() -> None:
    from polars_ireval.cli.pool import pool_parser, simulate_parser

    text = Path(DOC).read_text()
    commands = [line for line in text.splitlines() if line.startswith("ireval ")]
    assert len(commands) >= 4
    for line in commands:
        words = line.split("#")[0].split()
        parser = pool_parser() if words[1] == "pool" else simulate_parser()
        known = {o for action in parser._actions for o in action.option_strings}
        flags = [w for w in words[2:] if w.startswith("-")]
        assert set(flags) <= known, line
