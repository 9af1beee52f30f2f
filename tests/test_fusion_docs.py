"""docs/fusion.md runs: its Python blocks, in order, print what its text blocks show (on
TREC-COVID round 1, fetched from a local mirror: tests/datasets.py)."""

from __future__ import annotations

import pytest

from tests.docblocks import normalise, run_blocks
from tests.paths import ROOT, need_data


@pytest.mark.xdist_group("fusion-docs")
def test_fusion_page_prints_what_it_shows() -> None:
    pytest.importorskip("matplotlib", reason="the page draws a figure: pip install '.[plot]'")
    need_data()
    results = run_blocks(ROOT / "docs" / "fusion.md")
    assert len(results) == 6
    for code, printed, expected in results:
        assert expected is not None, code
        assert normalise(printed) == normalise(expected), code
