"""``evaluate(..., ties="average")`` for every registered measure, on Polars and DuckDB.

The oracle enumerates every permutation of the tied documents of each ranking (every
permutation of every group of equal scores, all groups of a ranking at once: itertools,
document by document, not the distinct arrangements the library enumerates), gives each
its own run id, evaluates them all in one ``ir.evaluate(..., ties="rank")`` call and takes
the plain mean per run, query and measure: the expected value under a uniformly random
order of each tie. ``ties="average"`` must equal it to 1e-12, whether a measure is computed
by its closed form (Polars) or by enumerating the arrangements (the measures without one,
and every measure on DuckDB).
"""

from __future__ import annotations

import functools
import itertools
import math
import warnings
from collections.abc import Iterator
from typing import Any

import polars as pl
import pytest

import polars_ireval as ir
import polars_ireval.engines.average as average
import polars_ireval.engines.polars as polars_engine
from polars_ireval.errors import ParameterError, TieOrdersError
from tests.support import every_measure, generated, uncovered

#: Every registered measure (cutoff 3, the required parameters of tests/support.py), and
#: parameter values whose closed form is refused or differs (so enumerated on Polars too).
MEASURES = [
    *every_measure(3), "AP(norm='self')", "AP(discount='square')", "DCG(norm='self')@3",
    "nDCG(gains={0:0,1:3,2:1})@3", "RBP(ties='average')@4", "P(judged_only=True)@2",
    "ERR(judged_only=True)@3",
    "infAP(judged_only=True)", "ED(measure='BPM(T=2,K=3)')", "IPrec(recall=0.2)",
]  # fmt: skip

#: Measures whose expected value over tie orders is not defined, with the reason. None:
#: every measure reads a document through its judgment only (its grade, or that it is
#: unjudged: the evaluation table's rank and relevance, and the score, equal within a
#: tie), so each order of a tie gives it a value and the mean over the orders is defined.
NOT_DEFINED: dict[str, str] = {}

#: Two runs; r1's q1 has a tie of four (grades 2, 1, 0, unjudged) and one of three (1,
#: unjudged, -1), its q2 a tie of three of which two have the same grade; r2's q1 a tie of
#: four at the top (1, 0, -1, unjudged) and one of three at 0.0 and -0.0 (1, 1, 2). q3 is
#: judged and never ranked (missing="zero"); z, judged, only r2 retrieves.
RUN_ROWS = [
    ("r1", "q1", "a", 3.0), ("r1", "q1", "b", 2.0), ("r1", "q1", "c", 2.0),
    ("r1", "q1", "d", 2.0), ("r1", "q1", "e", 2.0), ("r1", "q1", "f", 1.0),
    ("r1", "q1", "g", 0.5), ("r1", "q1", "h", 0.5), ("r1", "q1", "i", 0.5),
    ("r1", "q2", "a", 1.0), ("r1", "q2", "b", 1.0), ("r1", "q2", "c", 1.0),
    ("r1", "q2", "d", 0.0),
    ("r2", "q1", "h", 1.0), ("r2", "q1", "d", 1.0), ("r2", "q1", "i", 1.0),
    ("r2", "q1", "g", 1.0), ("r2", "q1", "a", 0.0), ("r2", "q1", "c", -0.0),
    ("r2", "q1", "z", 0.0),
    ("r2", "q2", "d", 5.0), ("r2", "q2", "c", 4.0), ("r2", "q2", "a", 4.0),
]  # fmt: skip
QRELS_ROWS = [
    ("q1", "a", 1), ("q1", "b", 2), ("q1", "c", 1), ("q1", "d", 0), ("q1", "f", -1),
    ("q1", "g", 1), ("q1", "i", -1), ("q1", "z", 2),
    ("q2", "a", 2), ("q2", "b", 2), ("q2", "d", 1), ("q3", "x", 1),
]  # fmt: skip
RUN = pl.DataFrame(RUN_ROWS, schema=["run_id", "query_id", "doc_id", "score"], orient="row")
QRELS = pl.DataFrame(QRELS_ROWS, schema=["query_id", "doc_id", "relevance"], orient="row")

#: Condensed ties, under missing="zero" (two evaluations: the run's own rankings, the
#: other arrangements); cut ties, alone and condensed.
OPTIONS: list[dict[str, Any]] = [
    {},
    {"judged_only": True, "missing": "zero"},
    {"max_depth": 4, "relevance_level": 2},
    {"judged_only": True, "max_depth": 4},
]
#: DuckDB computes every measure by enumeration, and a call of all of them takes seconds:
#: the last option set only (the enumeration shared with the Polars engine, evaluated by
#: DuckDB under ties="rank", which tests/test_sql.py checks against the Polars engine).
DUCKDB_OPTIONS = OPTIONS[-1:]


def _ids(options: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items()) or "-"


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ir.CoverageWarning)
        yield


# --------------------------------------------------------------------------- the oracle


def every_permutation(run: pl.DataFrame) -> pl.DataFrame:
    """Every permutation of the tied documents of each ranking, as rankings: permutation j
    of run r's query is run ``r#j`` (its ranks in ``input_rank``)."""
    rows = []
    for (run_id, query), ranking in run.group_by(["run_id", "query_id"], maintain_order=True):
        ranking = ranking.with_columns(tie=pl.col("score") + 0.0).sort("tie", descending=True)
        groups = [list(g["doc_id"]) for _, g in ranking.group_by("tie", maintain_order=True)]
        score = dict(zip(ranking["doc_id"], ranking["score"], strict=True))
        for j, order in enumerate(itertools.product(*map(itertools.permutations, groups))):
            docs = [d for group in order for d in group]
            rows += [(f"{run_id}#{j}", query, d, score[d], i + 1) for i, d in enumerate(docs)]
    schema = ["run_id", "query_id", "doc_id", "score", "input_rank"]
    return pl.DataFrame(rows, schema=schema, orient="row")


@functools.cache
def enumerated_mean(options: tuple[tuple[str, Any], ...]) -> dict[tuple[str, str, str], Any]:
    """(run, query, measure) -> the mean of ``evaluate`` over every permutation of the ties
    (None where some order leaves the value undefined); with ``missing="zero"``, the
    queries a run lacks take the value ``evaluate`` gives them (they have no tie)."""
    given = dict(options)
    ranked = {k: v for k, v in given.items() if k != "missing"}
    values = ir.evaluate(
        every_permutation(RUN), QRELS, MEASURES, per_query=True, ties="rank", **ranked
    ).with_columns(pl.col("run_id").str.split("#").list.first())
    out: dict[tuple[str, str, str], Any] = {}
    for (run_id, query, measure), group in values.group_by("run_id", "query_id", "measure"):
        v = group["value"].to_list()
        out[run_id, query, measure] = None if None in v else math.fsum(v) / len(v)
    if given.get("missing") == "zero":
        plain = ir.evaluate(RUN, QRELS, MEASURES, per_query=True, **given)
        for run_id, query, measure, value in plain.iter_rows():
            out.setdefault((run_id, query, measure), value)
    return out


def check_against_enumeration(got: pl.DataFrame, options: dict[str, Any]) -> None:
    want = enumerated_mean(tuple(sorted(options.items())))
    plain = ir.evaluate(RUN, QRELS, MEASURES, per_query=True, **options)
    assert got.select("run_id", "query_id", "measure").equals(
        plain.select("run_id", "query_id", "measure")
    )
    assert set(got["measure"]) == set(MEASURES)
    assert set(want) == set(got.select("run_id", "query_id", "measure").iter_rows())
    for run_id, query, measure, value in got.iter_rows():
        mean = want[run_id, query, measure]
        where = f"{measure} on {run_id}/{query} ({options})"
        if mean is None:
            assert value is None, where
        elif math.isnan(mean):
            assert value is not None and math.isnan(value), where
        else:
            assert value is not None, where
            assert math.isclose(value, mean, rel_tol=0, abs_tol=1e-12), (where, value, mean)


def test_every_measure_is_averaged_or_said_undefined() -> None:
    assert uncovered(MEASURES, NOT_DEFINED) == []


def test_the_case_has_ties_that_move_every_kind_of_measure() -> None:
    """The case discriminates: the values over the permutations differ for most measures
    (a ties="average" that evaluated one order would fail), and the per-ranking counts of
    permutations are those the oracle enumerates (4! 3!, 3!; 4! 3!, 2!)."""
    perms = every_permutation(RUN).select("run_id", "query_id").unique()
    counts = perms.with_columns(pl.col("run_id").str.split("#").list.first()).group_by(
        "run_id", "query_id"
    )
    assert sorted(counts.len().rows()) == [
        ("r1", "q1", 144), ("r1", "q2", 6), ("r2", "q1", 144), ("r2", "q2", 2)
    ]  # fmt: skip
    values = ir.evaluate(every_permutation(RUN), QRELS, MEASURES, per_query=True, ties="rank")
    spread = (
        values.with_columns(pl.col("run_id").str.split("#").list.first())
        .group_by("run_id", "query_id", "measure")
        .agg((pl.col("value").max() - pl.col("value").min()).alias("spread"))
    )
    moving = set(spread.filter(pl.col("spread") > 1e-9)["measure"])
    order_free = {"NumQ", "NumRet", "NumRel", "NumRelRet", "num_nonrel_judged_ret", "Judged@3"}
    order_free |= {"Unjudged@3", "SetP", "SetR", "set_relative_P", "SetF", "utility"}
    order_free |= {"SetAccuracy(num_docs=100000)@3", "Fallout(num_docs=100000)@3", "SetAP"}
    order_free |= {"RBP(ties='average')@4", "Rprec", "Rprec_mult(mult=2.0)"}
    assert set(MEASURES) - moving <= order_free, set(MEASURES) - moving - order_free


@pytest.mark.parametrize("options", OPTIONS, ids=_ids)
def test_polars_average_is_the_mean_over_every_permutation(options: dict[str, Any]) -> None:
    got = ir.evaluate(RUN, QRELS, MEASURES, per_query=True, ties="average", **options)
    check_against_enumeration(got, options)


@pytest.mark.parametrize("options", DUCKDB_OPTIONS, ids=_ids)
def test_duckdb_average_is_the_mean_over_every_permutation(options: dict[str, Any]) -> None:
    pytest.importorskip("duckdb")
    got = ir.evaluate(
        RUN, QRELS, MEASURES, per_query=True, ties="average", engine="duckdb", **options
    )
    check_against_enumeration(got, options)


def test_the_mean_over_queries_is_of_the_expected_values() -> None:
    per_query = ir.evaluate(RUN, QRELS, MEASURES, per_query=True, ties="average")
    means = per_query.group_by("run_id", "measure", maintain_order=True).agg(
        pl.col("value").mean().alias("want")
    )
    got = ir.evaluate(RUN, QRELS, MEASURES, ties="average")
    counts = {d.name for d in ir.definitions() if d.aggregate == "sum"}
    gm = {d.name for d in ir.definitions() if d.aggregate == "gmean"}
    joined = got.join(means, on=["run_id", "measure"])
    assert joined.height == got.height
    for run_id, measure, value, want in joined.iter_rows():
        name = ir.parse_measure(measure).name
        if name in counts:
            want = per_query.filter(run_id=run_id, measure=measure)["value"].sum()
        elif name in gm:
            v = per_query.filter(run_id=run_id, measure=measure)["value"].clip(1e-5)
            want = math.exp(v.log().mean())
        assert math.isclose(value, want, rel_tol=1e-12, abs_tol=1e-12), measure


# --------------------------------------------------------------------------- closed forms


def _force_enumeration(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the Polars engine average every measure by enumeration."""
    split = polars_engine.split_average

    def enumerate_all(measures: list[Any], *args: Any) -> tuple[list[Any], list[Any]]:
        split(measures, *args)  # its refusals
        return [], list(measures)

    monkeypatch.setattr(polars_engine, "split_average", enumerate_all)


@pytest.mark.parametrize("options", [{}, {"max_depth": 5, "missing": "zero"}], ids=_ids)
def test_closed_forms_equal_the_enumeration(
    monkeypatch: pytest.MonkeyPatch, options: dict[str, Any]
) -> None:
    """On generated runs (three runs, twelve queries, ties of up to a few documents), every
    measure with a closed form gives the value of the enumeration of its tie orders."""
    runs, qrels = generated(seed=2, queries=12)
    # ties among at most the top 8: the enumeration stays small
    runs = runs.filter(pl.col("doc_id").rank("ordinal").over("run_id", "query_id") <= 8)
    closed = [m for m in MEASURES if ir.parse_measure(m).defn.average is not None]
    depth = options.get("max_depth")
    closed = [
        m
        for m in closed
        if not polars_engine.split_average([ir.parse_measure(m)], False, depth, False)[1]
    ]
    assert len(closed) > 25
    want = ir.evaluate(runs, qrels, closed, per_query=True, ties="average", **options)
    _force_enumeration(monkeypatch)
    got = ir.evaluate(runs, qrels, closed, per_query=True, ties="average", **options)
    assert got.select("run_id", "query_id", "measure").equals(
        want.select("run_id", "query_id", "measure")
    )
    diff = (got["value"] - want["value"]).abs()
    assert ((diff <= 1e-12) | (got["value"].is_nan() & want["value"].is_nan())).all()
    assert got["value"].is_null().equals(want["value"].is_null())
    trec = ir.evaluate(runs, qrels, closed, per_query=True, **options)
    assert ((trec["value"] - want["value"]).abs() > 1e-6).any()  # the ties matter


# --------------------------------------------------------------------------- the limit


def test_too_many_orders_is_an_error_that_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    """r1's q1 has 4!/1 x 3!/1 = 144 arrangements (its grades all differ, but for one
    pair): over a limit of 100 it is refused, naming the run, query, groups and fixes."""
    monkeypatch.setattr(average, "MAX_ARRANGEMENTS", 100)
    with pytest.raises(TieOrdersError) as info:
        ir.evaluate(RUN, QRELS, ["ERR"], ties="average")
    text = str(info.value)
    assert isinstance(info.value, ParameterError)
    for part in [
        "query 'q1' of run 'r1'", "144 distinct orders", "tie groups of 4, 3 documents",
        "1+1+1+1; 1+1+1 documents per judgment", "limit of 100", "ties='trec_eval'",
        "tie_sensitivity", "MAX_ARRANGEMENTS",
    ]:  # fmt: skip
        assert part in text, (part, text)
    # the closed forms have no limit; at 144 the enumeration runs
    ir.evaluate(RUN, QRELS, ["AP", "nDCG@3"], ties="average")
    monkeypatch.setattr(average, "MAX_ARRANGEMENTS", 144)
    ir.evaluate(RUN, QRELS, ["ERR"], ties="average")


def test_grades_merge_documents_into_fewer_arrangements(monkeypatch: pytest.MonkeyPatch) -> None:
    """Twelve tied documents, eleven unjudged: 12! permutations, 12 distinct arrangements;
    documents below max_depth are not arranged at all."""
    docs = [f"d{i:02}" for i in range(12)]
    run = pl.DataFrame({"query_id": "q", "doc_id": docs, "score": 1.0})
    qrels = pl.DataFrame({"query_id": "q", "doc_id": ["d05"], "relevance": [1]})
    monkeypatch.setattr(average, "MAX_ARRANGEMENTS", 12)
    got = ir.evaluate(run, qrels, ["ERR", "IPrec@0.5"], ties="average")
    # the relevant document at rank k, k = 1..12, each equally likely: ERR and the
    # precision at recall 0.5 are its value at rank 1 over k
    on_top = run.with_columns(score=pl.when(pl.col("doc_id") == "d05").then(2.0).otherwise(1.0))
    top = ir.evaluate(on_top, qrels, ["ERR"])["value"][0]
    harmonic = math.fsum(1 / k for k in range(1, 13)) / 12
    assert math.isclose(got["value"][0], top * harmonic, rel_tol=0, abs_tol=1e-15)
    assert math.isclose(got["value"][1], harmonic, rel_tol=0, abs_tol=1e-15)
    tied = run.with_columns(score=pl.when(pl.col("doc_id") < "d03").then(2.0).otherwise(1.0))
    monkeypatch.setattr(average, "MAX_ARRANGEMENTS", 1)
    with pytest.raises(TieOrdersError, match="9 distinct orders"):
        ir.evaluate(tied, qrels, ["ERR"], ties="average")
    # cut at 3, the tie of nine below is cut whatever its order: one arrangement
    cut = ir.evaluate(tied, qrels, ["ERR"], ties="average", max_depth=3)
    assert cut["value"].to_list() == [0.0]


def test_ties_below_every_cutoff_are_not_arranged(monkeypatch: pytest.MonkeyPatch) -> None:
    """With only measures cut at 3 (uncondensed), a tie starting below rank 3 is not
    arranged (its order changes nothing they read): r1's q1 and r2's q1 have 4! = 24
    arrangements of the tie that rank 3 cuts instead of 144 and 72, and the values are
    still the mean over every permutation (every measure of the registry cut at k)."""
    cut = [m for m in MEASURES if average.read_depth([ir.parse_measure(m)], None, False) == 3]
    assert len(cut) > 30
    _force_enumeration(monkeypatch)
    monkeypatch.setattr(average, "MAX_ARRANGEMENTS", 24)
    got = ir.evaluate(RUN, QRELS, cut, per_query=True, ties="average")
    want = enumerated_mean(())
    for run_id, query, measure, value in got.iter_rows():
        mean = want[run_id, query, measure]
        assert math.isclose(value, mean, rel_tol=0, abs_tol=1e-12), (measure, run_id, query)
    with pytest.raises(TieOrdersError, match="144 distinct orders"):  # Q reads every rank
        ir.evaluate(RUN, QRELS, [*cut, "Q"], ties="average")


def test_rbp_tie_weights_read_the_whole_tie(monkeypatch: pytest.MonkeyPatch) -> None:
    """RBP(ties='average')@4 weighs r1's q1 tie at ranks 2-5 (cut by 4) by its size: its
    ranking must not be cut at 4 for the enumeration, which then equals the closed form."""
    measures = ["RBP(ties='average')@4", "RBP_resid(ties='average')@2"]
    want = ir.evaluate(RUN, QRELS, measures, per_query=True, ties="average")
    _force_enumeration(monkeypatch)
    got = ir.evaluate(RUN, QRELS, measures, per_query=True, ties="average")
    assert ((got["value"] - want["value"]).abs() <= 1e-12).all()


# --------------------------------------------------------------------------- the frame


def test_lazy_in_lazy_out_and_the_same_values() -> None:
    runs, qrels = generated(seed=4, queries=8)
    runs = runs.filter(pl.col("doc_id").rank("ordinal").over("run_id", "query_id") <= 7)
    measures = ["ERR@5", "AP", "Q", "IPrec@0.3", "nDCG@5"]
    options: dict[str, Any] = {"ties": "average", "per_query": True, "missing": "zero"}
    eager = ir.evaluate(runs, qrels, measures, **options)
    lazy = ir.evaluate(runs.lazy(), qrels.lazy(), measures, **options)
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect().equals(eager)
    shuffled = runs.sample(fraction=1.0, shuffle=True, seed=1)
    assert ir.evaluate(shuffled, qrels, measures, **options).equals(eager)


def test_one_run_without_a_run_id() -> None:
    one = RUN.filter(pl.col("run_id") == "r1").drop("run_id")
    got = ir.evaluate(one, QRELS, ["ERR@3", "Q", "AP"], ties="average", per_query=True)
    both = ir.evaluate(RUN, QRELS, ["ERR@3", "Q", "AP"], ties="average", per_query=True)
    assert got.equals(both.filter(pl.col("run_id") == "r1").drop("run_id"))


def test_checks_and_warnings_are_those_of_evaluate() -> None:
    """missing='error', no_relevant='error' and the coverage warning, once, with every
    measure named, as without ties='average'."""
    with pytest.raises(ir.MissingQueryError, match="q3"):
        ir.evaluate(RUN, QRELS, ["ERR", "AP"], ties="average", missing="error")
    qrels = QRELS.with_columns(
        relevance=pl.when(pl.col("query_id") == "q2").then(0).otherwise(pl.col("relevance"))
    )
    with pytest.raises(ir.NoRelevantError, match=r"\(AP, Q\)"):
        ir.evaluate(RUN, qrels, ["AP", "ERR", "Q"], ties="average", no_relevant="error")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ir.evaluate(RUN, QRELS, ["AP", "ERR"], ties="average")
    coverage = [w for w in caught if issubclass(w.category, ir.CoverageWarning)]
    assert len(coverage) == 1 and coverage[0].filename == __file__
    skipped = ir.evaluate(
        RUN, qrels, ["AP", "ERR", "Q"], ties="average", per_query=True, no_relevant="skip"
    )
    assert skipped.filter(pl.col("query_id") == "q2")["measure"].to_list() == ["ERR", "ERR"]


def test_spark_average_is_the_polars_average(spark: Any) -> None:
    """On Spark, the arrangements are made in Polars and each evaluated by the Spark engine
    under ties="rank": the values of the Polars engine (closed forms and enumeration), per
    query and aggregated, in a Spark DataFrame; Spark inputs are refused with the fix."""
    from tests.support import compare, to_polars

    measures = ["ERR@3", "AP"]  # one Spark call: every measure is enumerated there
    options: dict[str, Any] = {"ties": "average", "per_query": True}
    got = ir.evaluate(RUN, QRELS, measures, engine="spark", **options)
    assert hasattr(got, "sparkSession")
    compare(to_polars(got), ir.evaluate(RUN, QRELS, measures, **options))
    with pytest.raises(ParameterError, match="Polars frames or paths"):
        ir.evaluate(
            spark.createDataFrame(RUN.to_arrow()), QRELS, measures, engine="spark", ties="average"
        )
