"""``benchmarks/charts.py`` (``bench.charts``): the charts of ``docs/benchmarks.md`` and
``docs/benchmarks-engines.md`` show the committed results.

Oracle: ``benchmarks/results.json`` and ``engines.json`` read here with ``json`` alone,
medians by ``statistics.median`` and ratios worked out here; the bars are counted and
measured on the figure. Nothing is measured (the benchmarks are too costly for a test).
"""

from __future__ import annotations

import copy
import importlib
import json
import statistics
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.paths import ROOT

BENCH = ROOT / "benchmarks"
RESULTS = BENCH / "results.json"
ENGINES = BENCH / "engines.json"
PAGE = ROOT / "docs" / "benchmarks.md"
ENGINES_PAGE = ROOT / "docs" / "benchmarks-engines.md"


@pytest.fixture(scope="module")
def benchmarks() -> Iterator[None]:
    """``benchmarks/`` on ``sys.path``, as for its scripts: they and their library
    (``bench``) import each other by bare name."""
    sys.path.insert(0, str(BENCH))
    yield
    sys.path.remove(str(BENCH))


@pytest.fixture(scope="module")
def charts(benchmarks: None) -> Any:
    pytest.importorskip("matplotlib")
    return importlib.import_module("bench.charts")


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return json.loads(RESULTS.read_text())


def _bars(fig: Any, *, by_part: bool = False) -> dict[str, dict[str, tuple[float, str]]]:
    """Per panel (its title's workload; with ``by_part``, ``workload|part`` from the
    engines chart's titles), per bar label: the bar's length and its note."""
    from matplotlib.patches import Rectangle

    out = {}
    for ax in fig.axes:
        title = ax.get_title(loc="left")
        workload = title.split(":")[0]
        if by_part:
            workload += "|" + title.rsplit(", ", 1)[-1]
        ticks = {
            round(t): lab.get_text()
            for t, lab in zip(ax.get_yticks(), ax.get_yticklabels(), strict=True)
        }
        notes = {round(t.get_position()[1]): t.get_text() for t in ax.texts}
        bars = [p for p in ax.patches if isinstance(p, Rectangle)]
        panel = {}
        for bar in bars:
            y = round(bar.get_y() + bar.get_height() / 2)
            assert bar.get_x() == 0.0
            panel[ticks[y]] = (bar.get_width(), notes[y])
        assert len(panel) == len(bars)  # one bar a label
        out[workload] = panel
    return out


def _ok(row: dict[str, Any]) -> bool:
    return row["status"] == "ok" and bool(row["times"])


def _subject_median(data: dict[str, Any], row: dict[str, Any]) -> float | None:
    for r in data["rows"]:
        if (r["tool"], r["workload"], r["input"]) == ("polars_ireval", row["workload"],
                                                      row["input"]) and _ok(r):  # fmt: skip
            return statistics.median(r["times"])
    return None


def test_time_chart_draws_every_median_and_ratio(charts: Any, data: dict[str, Any]) -> None:
    fig = charts.time_figure(*charts.load(RESULTS))
    bars = _bars(fig)
    workloads = list(dict.fromkeys(r["workload"] for r in data["rows"]))
    assert list(bars) == workloads
    n_ratios = 0
    for name in workloads:
        rows = [r for r in data["rows"] if r["workload"] == name and _ok(r)]
        assert len(bars[name]) == len(rows) == 6  # four peers' cases and polars_ireval's two
        for r in rows:
            width, note = bars[name][f"{r['tool']} ({r['input']})"]
            median = statistics.median(r["times"])
            assert width == median
            assert note.startswith(f"{median:.3f} s")
            subject = _subject_median(data, r)
            if r["tool"] != "polars_ireval" and subject is not None:
                assert f"({median / subject:.2f}× polars_ireval from {r['input']})" in note
                n_ratios += 1
            else:
                assert "×" not in note
    # every peer row of every workload has a polars_ireval row
    assert n_ratios == 4 * len(workloads)
    # the ratios drawn are the page's table's
    page = PAGE.read_text()

    def median_of(tool: str) -> float:
        key = (tool, "msmarco", "text")
        row = next(r for r in data["rows"] if (r["tool"], r["workload"], r["input"]) == key)
        return statistics.median(row["times"])

    median = median_of("pytrec_eval")
    ratio = median / median_of("polars_ireval")
    assert f"| pytrec_eval | msmarco | text | {median:.3f} |" in page
    assert f"| {ratio:.2f}× |" in page
    assert bars["msmarco"]["pytrec_eval (text)"][1] == (
        f"{median:.3f} s  ({ratio:.2f}× polars_ireval from text)"
    )


def test_memory_chart_draws_every_peak(charts: Any, data: dict[str, Any]) -> None:
    bars = _bars(charts.memory_figure(*charts.load(RESULTS)))
    total = 0
    for name, panel in bars.items():
        rows = [r for r in data["rows"] if r["workload"] == name and _ok(r)]
        assert len(panel) == len(rows)
        for r in rows:
            width, note = panel[f"{r['tool']} ({r['input']})"]
            assert width == r["peak_mb"] and note == f"{r['peak_mb']:.0f} MB"
            total += 1
    assert total == len(data["rows"]) == 6 * len(bars)


def test_a_failed_case_has_no_bar_but_says_so(
    charts: Any, data: dict[str, Any], tmp_path: Path
) -> None:
    broken = copy.deepcopy(data)
    row = next(r for r in broken["rows"] if (r["tool"], r["workload"]) == ("polars_ireval",
                                                                         "campaign"))  # fmt: skip
    row.update(status="timeout", error="timed out after 900 s", times=[])
    path = tmp_path / "results.json"
    path.write_text(json.dumps(broken))
    fig = charts.time_figure(*charts.load(path))
    campaign = next(ax for ax in fig.axes if ax.get_title(loc="left").startswith("campaign"))
    assert len(campaign.patches) == 5
    assert "timeout" in [t.get_text() for t in campaign.texts]
    # the peers reading text have no polars_ireval time to be compared with: no ratio
    notes = _bars(fig)["campaign"]
    assert notes["pytrec_eval (text)"][1] == f"{statistics.median(row_times(data)):.3f} s"


def row_times(data: dict[str, Any]) -> list[float]:
    return next(
        r["times"]
        for r in data["rows"]
        if (r["tool"], r["workload"], r["input"]) == ("pytrec_eval", "campaign", "text")
    )


def test_committed_charts_and_page_are_fresh(charts: Any, tmp_path: Path) -> None:
    from matplotlib.testing.compare import compare_images

    written = charts.draw_results(RESULTS, tmp_path)
    page = PAGE.read_text()
    for path in written:
        committed = ROOT / "docs" / "images" / path.name
        assert f"](images/{path.name})" in page
        assert compare_images(str(committed), str(path), tol=6) is None, (
            f"docs/images/{path.name} is stale: run `cd benchmarks && python charts.py`"
        )
    # the page is what run.py writes from results.json (``run.py --report-only``)
    import run
    from bench.results import Row

    results = json.loads(RESULTS.read_text())
    rows = [Row(**r) for r in results["rows"]]
    context = {k: v for k, v in results.items() if k not in ("rows", "cross_check")}
    assert page == run.markdown(rows, run.cross_check(rows), context), (
        "docs/benchmarks.md is stale: run `cd benchmarks && python run.py --report-only`"
    )


def test_engines_chart_draws_parts_a_and_c(charts: Any) -> None:
    data = json.loads(ENGINES.read_text())
    bars = _bars(charts.engines_figure(*charts.load_engines(ENGINES)), by_part=True)
    a, c = charts.ENGINE_PARTS["a"], charts.ENGINE_PARTS["c"]
    in_c = sum(r["part"] == "c" for r in data["rows"])  # Polars, DuckDB, each Spark row
    assert in_c >= 4
    assert {name: len(panel) for name, panel in bars.items()} == {
        f"msmarco|{a}": 2, f"campaign|{a}": 2, f"campaign|{c}": in_c}  # fmt: skip
    drawn = [r for r in data["rows"] if r["part"] in ("a", "c")]
    assert sum(map(len, bars.values())) == len(drawn) == 4 + in_c  # part B (SQL variants) is not
    for r in drawn:
        width, note = bars[f"{r['workload']}|{charts.ENGINE_PARTS[r['part']]}"][r["tool"]]
        median = statistics.median(r["times"])
        assert width == median and note.startswith(f"{median:.3f} s")
        polars = next(p for p in drawn if (p["part"], p["workload"], p["tool"]) ==
                      (r["part"], r["workload"], "polars"))  # fmt: skip
        if r["tool"] == "polars":
            assert "×" not in note
        else:
            ratio = median / statistics.median(polars["times"])
            assert note.endswith(f"({ratio:.2f}× polars)")
    # the page's tables give the same ratios as the chart's labels (from the data)
    page = ENGINES_PAGE.read_text()

    def median_of(part: str, tool: str) -> float:
        (row,) = [
            r for r in drawn if (r["part"], r["workload"], r["tool"]) == (part, "campaign", tool)
        ]
        return statistics.median(row["times"])

    for part, key, tool in (("a", a, "duckdb"), ("c", c, "spark")):
        ratio = f"{median_of(part, tool) / median_of(part, 'polars'):.2f}"
        assert bars[f"campaign|{key}"][tool][1].endswith(f"({ratio}× polars)")
        assert f"| {ratio} |" in page
    # and part C's ratio to DuckDB, against the 10x
    to_duckdb = median_of("c", "spark") / median_of("c", "duckdb")
    met = "yes" if to_duckdb <= 10 else "no"
    assert f"| campaign | spark | {to_duckdb:.1f} | ≤ 10 | {met} |" in page


def test_committed_engines_chart_and_page_are_fresh(charts: Any, tmp_path: Path) -> None:
    from matplotlib.testing.compare import compare_images

    (path,) = charts.draw_engines(ENGINES, tmp_path)
    page = ENGINES_PAGE.read_text()
    assert f"](images/{path.name})" in page
    committed = ROOT / "docs" / "images" / path.name
    assert compare_images(str(committed), str(path), tol=6) is None, (
        f"docs/images/{path.name} is stale: run `cd benchmarks && python charts.py`"
    )
    import engines
    from bench.engine_results import Measured

    results = json.loads(ENGINES.read_text())
    rows = [Measured(**r) for r in results["rows"]]
    context = {k: v for k, v in results.items() if k != "rows"}
    assert page == engines.markdown(rows, context), (
        "docs/benchmarks-engines.md is stale: run `cd benchmarks && python engines.py "
        "--report-only`"
    )
