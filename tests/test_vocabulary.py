"""One vocabulary (docs/architecture.md): the shared option checks of
``polars_ireval._base.options``, and every rename of CHANGELOG.md still accepting its old
spelling, with a DeprecationWarning that names the new one and points at the caller."""

from __future__ import annotations

import importlib
import inspect
import io
import warnings
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_ireval as ir
from polars_ireval._base import options as O
from polars_ireval.errors import MissingQueryError, ParameterError

HERE = str(Path(__file__).resolve())
judge = importlib.import_module("polars_ireval.judge")  # ir.judge is the function


def results() -> pl.DataFrame:
    """Per-query scores of three runs; run 'c' lacks query '4'."""
    values = {
        "a": [0.2, 0.5, 0.4, 0.1, 0.6],
        "b": [0.4, 0.6, 0.5, 0.3, 0.8],
        "c": [0.1, 0.2, 0.1, 0.0],
    }
    return pl.DataFrame(
        [
            {
                "run_id": r,
                "query_id": str(q),
                "measure": "AP",
                "value": v,
                "residual": 0.1,
                "projected": v,
            }
            for r, vs in values.items()
            for q, v in enumerate(vs)
        ]
    )


def deprecated(call: Callable[[], Any], *words: str) -> Any:
    """``call()``'s value; it must warn once with a DeprecationWarning naming ``words``,
    attributed to this file (the caller's line, not the package's)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = call()
    found = [w for w in seen if issubclass(w.category, DeprecationWarning)]
    assert len(found) == 1, [str(w.message) for w in seen]
    for word in words:
        assert word in str(found[0].message), str(found[0].message)
    assert found[0].filename == HERE, found[0].filename
    return out


def quiet(call: Callable[[], Any]) -> Any:
    """``call()``'s value; it must not warn about a deprecation."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        return call()


# --------------------------------------------------------------------------- the checks


def test_check_missing_folds_case_and_reads_the_old_word() -> None:
    assert O.check_missing(" Error ") == "error"
    assert O.check_missing("SKIP") == "skip"
    assert deprecated(lambda: O.check_missing("Intersect"), "'skip'") == "skip"
    assert deprecated(lambda: O.check_missing("intersect", allowed=("skip", "error")), "skip")
    with pytest.raises(ParameterError, match=r"missing='drop' is unknown; use one of \['skip'"):
        O.check_missing("drop")
    with pytest.raises(ParameterError, match=r"missing='zero' is unknown.*\['skip', 'error'\]"):
        O.check_missing("zero", allowed=("skip", "error"))
    with pytest.raises(ParameterError, match=r"missing=None is unknown"):
        O.check_missing(None)
    # "intersect" is "skip": refused where "skip" is not allowed
    with pytest.raises(ParameterError, match=r"how='intersect' is unknown"):
        O.check_missing("intersect", allowed=("zero", "error"), name="how")


def test_check_positive_int_messages_and_numpy_integers() -> None:
    assert O.check_positive_int("k", np.int64(3)) == 3
    assert type(O.check_positive_int("k", np.int32(3))) is int
    assert O.check_positive_int("k", None, optional=True) is None
    for bad in (0, -1, 2.0, True, np.bool_(True), "3", None):
        with pytest.raises(ParameterError, match=rf"k={bad!r}: must be a positive integer$"):
            O.check_positive_int("k", bad)
    with pytest.raises(
        ParameterError, match=r"^budget=0: the budget must be a positive integer \(or None\)$"
    ):
        O.check_positive_int("budget", 0, what="the budget", optional=True)


def test_check_persistence() -> None:
    assert O.check_persistence(np.float32(0.5)) == 0.5
    for bad in (0, 1, 1.0, -0.1, True, "0.8", float("nan"), None):
        with pytest.raises(ParameterError, match=r"strictly between 0 and 1"):
            O.check_persistence(bad)


def test_judge_keeps_the_names_it_shared() -> None:
    assert judge.check_flag is O.check_flag
    assert judge.check_relevance_level is O.check_relevance_level
    assert judge.MISSING == O.MISSING == ("skip", "zero", "error")
    with pytest.raises(
        ParameterError, match=r"max_depth=0: must be a positive integer \(or None\)"
    ):
        judge.check_options(max_depth=0, ties="trec_eval", missing="skip")


def test_renamed_forwards_warns_and_refuses_both() -> None:
    @O.renamed(old="new")
    def f(*, new: int) -> int:
        return new

    assert quiet(lambda: f(new=1)) == 1
    assert deprecated(lambda: f(old=2), "f(old=...)", "f(new=...)") == 2  # type: ignore[call-arg]
    with pytest.raises(ParameterError, match=r"f: old= is the old name of new=; pass new= only"):
        f(old=1, new=2)  # type: ignore[call-arg]
    assert f.__renamed__ == {"old": "new"}  # type: ignore[attr-defined]
    assert list(inspect.signature(f).parameters) == ["new"]


def test_public_signatures_use_the_new_names() -> None:
    from polars_ireval import plot

    firsts = {
        ir.compare: "results",
        ir.compare_bounds: "results",
        ir.report: "results",
        ir.pr_curve: "run",
        ir.roc_curve: "run",
        ir.adjust_p_values: "p_values",
        plot.per_query_delta: "results",
        plot.per_query_delta_frame: "results",
        plot.score_ranges: "results",
        plot.score_ranges_frame: "results",
    }
    for func, first in firsts.items():
        assert next(iter(inspect.signature(func).parameters)) == first, func.__name__
    for func in (ir.compare, ir.compare_bounds, ir.report, plot.per_query_delta, plot.depth_curves):
        assert "run_ids" in inspect.signature(func).parameters, func.__name__
    assert list(inspect.signature(ir.agreement).parameters)[2] == "coefficient"
    assert list(inspect.signature(ir.adjust_p_values).parameters)[1] == "correction"


# --------------------------------------------------------------------------- old spellings


def test_compare_report_and_bounds_take_their_old_keywords() -> None:
    df = results()
    new = ir.compare(df, run_ids=["a", "b"])
    old = deprecated(lambda: ir.compare(per_query=df, run_ids=["a", "b"]), "results=")
    assert old.equals(new)
    assert deprecated(lambda: ir.compare(df, runs=["a", "b"]), "run_ids=").equals(new)
    rep = ir.report(df, new, run_ids=["b"])
    assert deprecated(
        lambda: ir.report(per_query=df, comparison=new, run_ids=["b"]), "results="
    ).frame.equals(rep.frame)
    assert deprecated(lambda: ir.report(df, new, runs=["b"]), "run_ids=").frame.equals(rep.frame)
    bounds = ir.compare_bounds(df, run_ids=["a", "b"], test="t")
    assert deprecated(lambda: ir.compare_bounds(df, runs=["a", "b"], test="t"), "run_ids=").equals(
        bounds
    )
    assert deprecated(
        lambda: ir.compare_bounds(per_query=df, run_ids=["a", "b"], test="t"), "results="
    ).equals(bounds)
    with pytest.raises(ParameterError, match="pass run_ids= only"):
        ir.compare(df, runs=["a"], run_ids=["a", "b"])


def test_missing_intersect_is_skip_everywhere() -> None:
    df = results()
    with pytest.raises(MissingQueryError, match=r"'c' lacks query '4'.*missing='skip'"):
        ir.compare(df)
    skip = quiet(lambda: ir.compare(df, missing="skip"))
    assert skip["n"].to_list() == [4, 4, 4]
    assert deprecated(lambda: ir.compare(df, missing="intersect"), "missing='skip'").equals(skip)
    rep = ir.report(df, skip, missing="skip")
    assert deprecated(lambda: ir.report(df, skip, missing="intersect"), "skip").frame.equals(
        rep.frame
    )
    bounds = ir.compare_bounds(df, missing="skip", test="t")
    assert deprecated(lambda: ir.compare_bounds(df, missing="intersect", test="t"), "skip").equals(
        bounds
    )
    # agreement and rbo: skip or error (no score to give a run or a query one side lacks)
    a, b = {"x": 0.1, "y": 0.2, "z": 0.3}, {"x": 0.1, "y": 0.3, "w": 0.0}
    assert ir.agreement(a, b, missing="skip") == pytest.approx(1.0)
    assert deprecated(lambda: ir.agreement(a, b, missing="intersect"), "skip") == pytest.approx(1.0)
    with pytest.raises(ParameterError, match=r"missing='zero' is unknown.*\['skip', 'error'\]"):
        ir.agreement(a, b, missing="zero")
    run_a = pl.DataFrame(
        {"query_id": ["1", "1", "2"], "doc_id": ["d", "e", "d"], "score": [2.0, 1.0, 1.0]}
    )
    run_b = run_a.filter(pl.col("query_id") == "1")
    by_query = ir.rbo(run_a, run_b, missing="skip")
    assert by_query["query_id"].to_list() == ["1"]
    assert deprecated(lambda: ir.rbo(run_a, run_b, missing="intersect"), "skip").equals(by_query)


def test_agreement_adjust_and_pr_curve_take_their_old_keywords() -> None:
    a, b = {"x": 0.1, "y": 0.2, "z": 0.3}, {"x": 0.1, "y": 0.3, "z": 0.2}
    assert deprecated(
        lambda: ir.agreement(a, b, method="spearman"), "coefficient="
    ) == ir.agreement(a, b, coefficient="spearman")
    want = ir.adjust_p_values([0.01, 0.04], correction="bh").tolist()
    got = deprecated(lambda: ir.adjust_p_values(p=[0.01, 0.04], correction="bh"), "p_values=")
    assert got.tolist() == want
    got = deprecated(lambda: ir.adjust_p_values([0.01, 0.04], method="bh"), "correction=")
    assert got.tolist() == want
    run = ir.read_run(ir.example_path("runs/bm25.run"))
    qrels = ir.read_qrels(ir.example_path("qrels.txt"))
    old = deprecated(lambda: ir.pr_curve(runs=run, qrels=qrels), "pr_curve(run=...)")
    # (the mean over queries may differ in its last bit from one call to the next)
    assert old["precision"].to_list() == pytest.approx(ir.pr_curve(run, qrels)["precision"])


def test_plot_functions_take_their_old_keywords() -> None:
    pytest.importorskip("matplotlib")
    from polars_ireval import plot

    df = results().filter(pl.col("query_id") != "4")
    frame = plot.per_query_delta_frame(df, baseline="a", run_ids=["b"])
    old = deprecated(
        lambda: plot.per_query_delta_frame(per_q=df, baseline="a", run_ids=["b"]), "results="
    )
    assert old.equals(frame)
    assert deprecated(
        lambda: plot.per_query_delta_frame(df, baseline="a", runs=["b"]), "run_ids="
    ).equals(frame)
    ranges = plot.score_ranges_frame(df)
    assert deprecated(lambda: plot.score_ranges_frame(per_q=df), "results=").equals(ranges)
    assert deprecated(
        lambda: plot.score_ranges_frame(results(), missing="intersect"), "skip"
    ).equals(ranges)
    deprecated(lambda: plot.per_query_delta(per_q=df, baseline="a"), "results=")
    deprecated(lambda: plot.score_ranges(per_q=df), "results=")
    run = ir.read_run(ir.example_path("runs"))
    curve = ir.depth_curve(run, ir.read_qrels(ir.example_path("qrels.txt")), "AP", depths=[1, 5])
    fig = deprecated(lambda: plot.depth_curves(curve, runs=["bm25"]), "run_ids=")
    assert [
        line.get_label() for line in fig.axes[0].lines if not line.get_label().startswith("_")
    ] == ["bm25"]


def test_cli_compare_still_takes_missing_intersect() -> None:
    from polars_ireval.cli.compare import main

    qrels, runs = ir.example_path("qrels.txt"), ir.example_path("runs")
    out = {}
    for word in ("skip", "intersect"):
        stdout, stderr = io.StringIO(), io.StringIO()
        with redirect_stdout(stdout), redirect_stderr(stderr), warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)
            code = main([qrels, runs, "-m", "AP", "--missing", word, "--format", "csv"])
        assert code == 0, stderr.getvalue()
        out[word] = stdout.getvalue()
    assert out["intersect"] == out["skip"]


def test_numpy_integers_are_counts_on_every_engine() -> None:
    """check_positive_int takes numpy integers: the SQL engines render them as integers."""
    run = ir.read_run(ir.example_path("runs"))
    qrels = ir.read_qrels(ir.example_path("qrels.txt"))
    for engine in ("polars", "duckdb"):
        want = ir.evaluate(run, qrels, ["AP", "P@5"], max_depth=5, engine=engine)
        got = ir.evaluate(run, qrels, ["AP", "P@5"], max_depth=np.int64(5), engine=engine)
        assert got.equals(want), engine
