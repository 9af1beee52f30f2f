"""docs/compare.md runs: its Python blocks, in order, print what its text blocks show."""

from __future__ import annotations

from tests.docblocks import normalise, run_blocks
from tests.paths import ROOT, need_data

DOC = ROOT / "docs" / "compare.md"


def test_docs_compare_blocks_run_and_print_what_they_show() -> None:
    need_data()
    results = run_blocks(DOC)
    assert len(results) >= 8
    for code, printed, expected in results:
        if expected is None:
            continue
        assert normalise(printed) == normalise(expected), f"block:\n{code}"
