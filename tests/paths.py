"""Where the tests find the checkout and the reference data in ../shared/data (skipped with a
message when absent). Imported by the test modules and by conftest.py."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
TREC_TEST = DATA / "trec_eval_test"
CAST = DATA / "cast2021"
#: The SQL engine's documentation page (its blocks run in tests/test_sql.py and
#: tests/test_sql_options.py).
SQL_DOC = ROOT / "docs" / "sql.md"


def need_data() -> Path:
    """Skip the calling test when ../shared/data is not beside the checkout."""
    if not DATA.is_dir():
        pytest.skip(f"reference data not found at {DATA}: clone the project with shared/ beside it")
    return DATA
