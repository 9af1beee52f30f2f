"""The documentation site: ``mkdocs build --strict`` passes and writes every page of the
navigation, and the generated CLI reference is fresh."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT

PAGES = [
    "index.html",
    "tutorials/evaluate/index.html",
    "tutorials/compare/index.html",
    "tutorials/judging/index.html",
    "tutorials/choosing/index.html",
    "compare/index.html",
    "fusion/index.html",
    "judging/index.html",
    "stability/index.html",
    "properties/index.html",
    "pir/index.html",
    "measures/index.html",
    "reference/api/index.html",
    "reference/plot/index.html",
    "reference/sql/index.html",
    "cli/index.html",
    "compat/index.html",
    "sql/index.html",
    "spark/index.html",
    "benchmarks/index.html",
    "architecture/index.html",
    "images/tests/pr_curve_example.png",
    "images/benchmarks-time.png",
    "images/benchmarks-memory.png",
    "images/benchmarks-engines.png",
]


def _gen_cli():  # docs/ is not a package: load the generator by path
    spec = importlib.util.spec_from_file_location("gen_cli", ROOT / "docs" / "gen_cli.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_site_builds_strict(tmp_path: Path) -> None:
    if importlib.util.find_spec("mkdocs") is None:
        pytest.skip("mkdocs is not installed: pip install -e '.[test]' (or '.[docs]')")
    out = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stderr[-4000:]
    missing = [p for p in PAGES if not (out / p).is_file()]
    assert not missing, missing
    measures = (out / "measures" / "index.html").read_text()
    assert 'id="ndcg"' in measures and "ir_measures string" in measures
    api = (out / "reference" / "api" / "index.html").read_text()
    assert "polars_ireval.evaluate" in api
    # no field documented by Python's own docstring of its default's type (int, bool...)
    for builtin in ("int([x])", "bool(x)", "Built-in immutable sequence", "TYPE_CHECKING"):
        assert builtin not in api, builtin
    named_like_modules = {
        "evaluate": "evaluate",
        "properties": "analysis.properties",
        "pir": "analysis.pir",
        "agreement": "analysis.agreement",
        "judge": "judge",
    }
    for name, module in named_like_modules.items():
        assert f'id="polars_ireval.{module}.{name}"' in api, name


def test_cli_reference_is_fresh() -> None:
    page = (ROOT / "docs" / "cli.md").read_text()
    gen = _gen_cli()
    if sys.version_info >= (3, 13):  # argparse 3.13 lays out options differently
        for name, _, _ in gen._parsers():
            assert f"## {name}\n" in page
        return
    assert page == gen.render(), "docs/cli.md is stale: run `python docs/gen_cli.py`"


def _gen_api():
    spec = importlib.util.spec_from_file_location("gen_api", ROOT / "docs" / "gen_api.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_api_reference_is_fresh_and_lists_every_public_name_once() -> None:
    """docs/reference/api.md is what docs/gen_api.py writes: every name of ``__all__`` (but
    the registry dict) once, in sections in a user's reading order (evaluate first), each
    with a one-line summary; no name of the typing machinery or of Python's builtins."""
    import polars_ireval as ir

    gen = _gen_api()
    page = (ROOT / "docs" / "reference" / "api.md").read_text(encoding="utf-8")
    assert page == gen.render(), "docs/reference/api.md is stale: run `python docs/gen_api.py`"
    listed = [n for _, _, names in gen.sections() for n in names]
    assert sorted(listed) == sorted(n for n in ir.__all__ if n != "REGISTRY")
    assert len(listed) == len(set(listed))
    assert listed[0] == "evaluate" and gen.sections()[0][0] == "Evaluate"
    assert "TYPE_CHECKING" not in page
    rows = [line for line in page.splitlines() if line.startswith("| [`")]
    assert len(rows) == len(listed)
    assert all(not line.endswith("|  |") for line in rows)  # each with its summary


def test_every_public_function_has_an_example() -> None:
    """The reference shows an example for each public function (its docstring's doctest,
    run by the suite); the classes and errors are shown by the functions that make them."""
    import inspect

    import polars_ireval as ir

    functions = [n for n in ir.__all__ if inspect.isfunction(getattr(ir, n))]
    without = [n for n in functions if ">>>" not in (inspect.getdoc(getattr(ir, n)) or "")]
    assert not without, without


@pytest.mark.parametrize("page", ["index.md", "reference/api.md"])
def test_the_python_example_of_the_page_prints_what_it_shows(page: str) -> None:
    from tests.docblocks import normalise, run_blocks

    for code, printed, expected in run_blocks(ROOT / "docs" / page):
        if expected is not None:
            assert normalise(printed) == normalise(expected), code
