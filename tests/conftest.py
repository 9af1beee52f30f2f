"""Shared fixtures: the reference data in ../shared/data (skipped with a message when absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
TREC_TEST = DATA / "trec_eval_test"
CAST = DATA / "cast2021"


def need_data() -> Path:
    """Skip the calling test when ../shared/data is not beside the checkout."""
    if not DATA.is_dir():
        pytest.skip(f"reference data not found at {DATA}: clone the project with shared/ beside it")
    return DATA


@pytest.fixture
def data() -> Path:
    return need_data()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests on Spark share one worker under pytest-xdist (``--dist loadgroup``): one JVM
    for the suite, while the other worker runs the rest."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        on_spark = "spark" in fixtures or "spark" in item.name.split("[")[-1]
        module = getattr(item, "module", None)
        if on_spark or (module is not None and module.__name__.endswith("test_spark")):
            item.add_marker(pytest.mark.xdist_group("spark"))
