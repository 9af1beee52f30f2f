"""Condensed evaluation (seed 000; Sakai's condensed lists, trec_eval -J): with
``judged_only=True`` every registry measure scores the run with its unjudged documents
removed and the rest moved up, exactly as if the run had been condensed by hand; so does
the measure parameter ``judged_only=True`` (ir_measures' grammar: ``P(judged_only=True)@5``)
beside measures that score the whole run, in one evaluation."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import polars_ireval as ir
from polars_ireval.errors import ParameterError
from tests.paths import need_data
from tests.strategies import frame_collections, tied_scores
from tests.support import every_measure

pytestmark = pytest.mark.filterwarnings("ignore::polars_ireval.CoverageWarning")


def condense_by_hand(run: pl.DataFrame, qrels: pl.DataFrame, max_depth: int | None = None):
    """The condensed run, built from the run file: (the top ``max_depth`` in trec_eval's
    order, then) only the documents judged with a grade >= 0."""
    if max_depth is not None:
        run = (
            run.sort(["query_id", "score", "doc_id"], descending=[False, True, True])
            .group_by("query_id", maintain_order=True)
            .head(max_depth)
        )
    keep = qrels.filter(pl.col("relevance") >= 0).select("query_id", "doc_id")
    return run.join(keep, on=["query_id", "doc_id"], how="semi")


def _per_query(run, qrels, measures, **kw) -> dict[tuple[str, str], float]:
    out = ir.evaluate(run, qrels, measures, per_query=True, missing="zero", **kw)
    return {(r["query_id"], r["measure"]): r["value"] for r in out.iter_rows(named=True)}


def check_condensed(run, qrels, measures, max_depth=None) -> int:
    ours = _per_query(run, qrels, measures, judged_only=True, max_depth=max_depth)
    by_hand = _per_query(condense_by_hand(run, qrels, max_depth), qrels, measures)
    assert ours.keys() == by_hand.keys()
    for key, value in ours.items():
        expected = by_hand[key]
        assert value == pytest.approx(expected, abs=1e-12, nan_ok=True), key
    return len(ours)


def with_judged_only(label: str) -> str:
    """``label`` with the parameter judged_only=True (``P@5`` -> ``P(judged_only=True)@5``)."""
    name, at, cutoff = ("", "", "") if label.endswith(")") else label.rpartition("@")
    if not at:  # no cutoff (an '@' may sit inside a parameter: ED(measure='INST@5'))
        name, cutoff = label, ""
    if name.endswith(")"):
        name = name[:-1] + ",judged_only=True)"
    else:
        name += "(judged_only=True)"
    return name + at + cutoff


def check_measure_parameter(run, qrels, measures, **kw) -> int:
    """Each measure with judged_only=True, evaluated beside the plain measures, equals the
    measure on the condensed run (evaluate(judged_only=True))."""
    condensed = [with_judged_only(m) for m in measures]
    mixed = _per_query(run, qrels, [*measures, *condensed], **kw)
    whole = _per_query(run, qrels, measures, **kw)
    by_j = _per_query(run, qrels, measures, judged_only=True, **kw)
    for (q, label), value in by_j.items():
        assert mixed[q, with_judged_only(label)] == pytest.approx(value, abs=0, nan_ok=True)
        assert mixed[q, label] == pytest.approx(whole[q, label], abs=0, nan_ok=True)
    return len(by_j)


def test_every_measure_is_listed():
    labels = every_measure()
    assert len(labels) == len(list(ir.definitions()))
    for name in ("INST@5", "RBP@5", "P@5", "AP@5", "nDCG@5", "Bpref"):
        assert name in labels


#: 1-3 queries of up to 20 documents, nine distinct scores (ties), grades -1 to 3
runs_and_qrels = frame_collections(
    queries=(1, 3), pool=(1, 20), scores=tied_scores(st.integers(0, 8)), grades=st.integers(-1, 3)
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=runs_and_qrels, k=st.sampled_from((2, 3, 10)), max_depth=st.sampled_from((None, 4)))
def test_every_measure_condensed_equals_condensed_by_hand(data, k, max_depth):
    run, qrels = data
    assume(not condense_by_hand(run, qrels, max_depth).is_empty())  # an empty run is an error
    assert check_condensed(run, qrels, every_measure(k), max_depth) > 0


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=runs_and_qrels, k=st.sampled_from((2, 10)), max_depth=st.sampled_from((None, 4)))
def test_judged_only_parameter_equals_condensed_evaluation(data, k, max_depth):
    run, qrels = data
    assert check_measure_parameter(run, qrels, every_measure(k), max_depth=max_depth) > 0


def test_judged_only_parameter_shared_data():
    d = need_data() / "trec_eval_test"
    run, qrels = ir.read_run(d / "results.test"), ir.read_qrels(d / "qrels.rel_level")
    assert check_measure_parameter(run, qrels, every_measure(10)) == 3 * len(every_measure())


def test_judged_only_parameter_in_names_and_errors():
    assert ir.parse_measure("P(judged_only=True)@5").canonical == "P(judged_only=True)@5"
    assert ir.parse_measure("P(judged_only=False)@5").canonical == "P@5"
    with pytest.raises(ParameterError, match="True or False"):
        ir.parse_measure("P(judged_only=1)@5")
    with pytest.raises(ParameterError, match="condense the table first"):
        ir.precision(k=5, judged_only=True)
    table = ir.judge(*_two_queries())
    by_hand = ir.condense(table).group_by("query_id").agg(ir.precision(k=2)).sort("query_id")
    assert table.ireval.measures("P(judged_only=True)@2")["P(judged_only=True)@2"].to_list() == (
        by_hand["P@2"].to_list()
    )


def _two_queries() -> tuple[pl.DataFrame, pl.DataFrame]:
    run = pl.DataFrame(
        {"query_id": ["a"] * 3 + ["b"] * 2, "doc_id": list("xyzxy"), "score": [3.0, 2, 1, 2, 1]}
    )
    qrels = pl.DataFrame(
        {"query_id": ["a", "a", "b"], "doc_id": list("xzy"), "relevance": [1, 1, 1]}
    )
    return run, qrels


def test_every_measure_condensed_trec_eval_test():
    d = need_data() / "trec_eval_test"
    run = ir.read_run(d / "results.test")
    qrels = ir.read_qrels(d / "qrels.rel_level")  # negative grades too
    assert check_condensed(run, qrels, every_measure(10)) == 3 * len(every_measure())
    assert check_condensed(run, qrels, every_measure(100), max_depth=50) > 0


def test_condensed_residual_is_the_tail_only():
    """A condensed run holds no unjudged document: what is unknown is past its end."""
    run = pl.DataFrame(
        {"query_id": "q", "doc_id": ["a", "u1", "b", "u2", "c"], "score": [5.0, 4.0, 3.0, 2.0, 1.0]}
    )
    qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"], "relevance": [1, 0, 1]})
    out = ir.evaluate(
        run,
        qrels,
        ["RBP(p=0.5)", "P@4", "INSQ@3"],
        per_query=True,
        residuals=True,
        judged_only=True,
    )
    got = {r["measure"]: (r["value"], r["residual"]) for r in out.iter_rows(named=True)}
    # condensed: a, b, c at ranks 1, 2, 3
    assert got["RBP(p=0.5)"] == (pytest.approx(0.5 + 0.125), pytest.approx(0.5**3))
    assert got["P@4"] == (pytest.approx(0.5), pytest.approx(0.25))
    assert got["INSQ@3"][1] == 0.0
    # not condensed: u1 and u2 are unknown
    out = ir.evaluate(run, qrels, ["RBP(p=0.5)"], per_query=True, residuals=True)
    assert out.row(0, named=True)["residual"] == pytest.approx(0.25 + 0.0625 + 0.5**5)
