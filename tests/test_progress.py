"""Progress bars (polars_ireval/_progress.py, tqdm): shown on stderr when asked, never
changing a result.

* ``compare`` (randomization, bootstrap, randomised Tukey HSD), ``simulate_judging`` and
  ``pool`` with ``progress=True`` write a bar to stderr and return exactly the frame they
  return without it; with the default (False) stderr stays empty.
* ``"auto"`` shows nothing when stderr is not a terminal (pytest's capture); a bad value is
  a ParameterError naming it.
* The CLI's status line is a tqdm bar, cleared at the end.
"""

from __future__ import annotations

import io

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_ireval as ir
from polars_ireval._base.progress import bar
from polars_ireval.cli import Progress
from polars_ireval.errors import ParameterError

pytestmark = pytest.mark.filterwarnings("ignore::polars_ireval.CoverageWarning")


@pytest.fixture(scope="module")
def campaign() -> tuple[pl.DataFrame, pl.DataFrame]:
    return ir.read_run(ir.example_path("runs"), run_id="file"), ir.read_qrels(
        ir.example_path("qrels.txt")
    )


@pytest.fixture(scope="module")
def per_q(campaign) -> pl.DataFrame:
    runs, qrels = campaign
    return ir.evaluate(runs, qrels, ["AP", "nDCG@10"], per_query=True)


@pytest.mark.parametrize(
    ("test", "label"),
    [
        ("randomization", "randomization test"),
        ("bootstrap", "bootstrap test"),
        ("randomized_tukey_hsd", "randomised Tukey HSD"),
    ],
)
def test_compare_shows_a_bar_and_the_same_result(per_q, capsys, test: str, label: str) -> None:
    kw = {"pairs": "all", "test": test, "resamples": 2000, "seed": 7, "ci": None}
    quiet = ir.compare(per_q, **kw)
    assert capsys.readouterr().err == ""
    shown = ir.compare(per_q, **kw, progress=True)
    err = capsys.readouterr().err
    assert f"{label}: 100%|" in err
    assert_frame_equal(shown, quiet)
    auto = ir.compare(per_q, **kw, progress="auto")  # stderr is captured: not a terminal
    assert capsys.readouterr().err == ""
    assert_frame_equal(auto, quiet)


def test_simulate_judging_shows_a_bar_and_the_same_result(campaign, capsys) -> None:
    runs, qrels = campaign
    kw = {"methods": ["depth", "A", "C"], "budgets": [50, 200], "batch": 50}
    quiet = ir.simulate_judging(runs, qrels, **kw)
    assert capsys.readouterr().err == ""
    shown = ir.simulate_judging(runs, qrels, **kw, progress=True)
    err = capsys.readouterr().err
    assert "simulating judging: 100%|" in err and "3/3" in err
    assert_frame_equal(shown.judgments, quiet.judgments)
    assert_frame_equal(shown.scores, quiet.scores)


def test_pool_shows_a_bar_of_judgments_and_the_same_pool(campaign, capsys) -> None:
    runs, _ = campaign
    quiet = ir.pool(runs, method="B", budget=300, batch=100)
    assert capsys.readouterr().err == ""
    shown = ir.pool(runs, method="B", budget=300, batch=100, progress=True)
    err = capsys.readouterr().err
    assert "method B: 100%|" in err and "300/300" in err
    assert_frame_equal(shown, quiet)
    messages: list[str] = []  # a function still receives the messages
    assert_frame_equal(
        ir.pool(runs, method="B", budget=300, batch=100, progress=messages.append), quiet
    )
    assert messages == [f"B: {n:,} judgments chosen" for n in (100, 200, 300)]


@pytest.mark.parametrize("value", ["yes", 1.5, None])
def test_bad_progress_values(per_q, value) -> None:
    with pytest.raises(ParameterError, match=r"progress=.*must be True"):
        ir.compare(per_q, pairs="all", test="randomization", progress=value)


def test_bar_is_off_unless_asked() -> None:
    out = io.StringIO()
    with bar(False, total=2, stream=out) as b:
        b.update(2)
    with bar("auto", total=2, stream=out) as b:  # a StringIO is no terminal
        b.update(2)
    assert out.getvalue() == ""
    with bar(True, total=2, desc="work", stream=out) as b:
        b.update(2)
    assert "work: 100%|" in out.getvalue() and "2/2" in out.getvalue()


def test_cli_status_bar_is_cleared() -> None:
    stream = io.StringIO()
    progress = Progress("always", stream)
    progress.update("reading runs", "b.run", done=1, total=2)
    progress.update("evaluating", "2 run file(s)")
    progress.done()
    text = stream.getvalue()
    assert "ireval: reading runs:  50%|" in text and "ireval: evaluating" in text
    last = text.rsplit("\r", 2)
    assert last[-1] == "" and last[-2].strip() == ""  # the last write blanks the line
    never = io.StringIO()
    Progress("never", never).update("reading runs")
    assert never.getvalue() == ""
