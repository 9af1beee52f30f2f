"""The generated docs stay in step with the registry."""

from __future__ import annotations

from polars_ireval import _docs
from polars_ireval.registry import definitions
from tests.paths import ROOT


def test_measures_page_is_generated_from_the_registry() -> None:
    page = (ROOT / "docs" / "measures.md").read_text()
    assert page == _docs.render(), (
        "docs/measures.md is stale: run `python -m polars_ireval._docs > docs/measures.md`"
    )
    for defn in definitions():
        assert f"## {defn.name}\n" in page
