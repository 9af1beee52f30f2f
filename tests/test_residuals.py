"""``evaluate(..., residuals=True)``: the residual and projected columns, per query and
aggregated, and the interval properties of seed 004's Table 2 for every measure that has a
residual (RBP, P@k, SDCG, InvSq and the C/W/L measures: the registry's, checked)."""

from __future__ import annotations

import dataclasses

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_ireval as ir
from polars_ireval.errors import ParameterError
from tests.paths import need_data
from tests.strategies import QRELS_SCHEMA, RUN_SCHEMA, frame_collections, ranked_scores
from tests.support import nearly_unjudged, to_polars

pytestmark = pytest.mark.filterwarnings("ignore::polars_ireval.CoverageWarning")

#: weights that do not depend on the gains: the interval properties hold exactly
STATIC = [
    *("RBP", "RBP(p=0.5)@5", "P@5", "P@30", "INSQ@20", "TBG(halflife=3)@20", "U(L=8)@20"),
    *("SDCG(max_rel=2)@10", "InvSq(max_rel=2)"),
]
#: adaptive user models (the weights move with the gains found)
ADAPTIVE = [
    *("INST@20", "INST(T=3)@20", "BPM(T=2,K=5)@20"),
    *("NERR8@10", "NERR9@5", "NERR10(p=0.5)@20", "NERR11(T=2)@20"),
]
WITH_RESIDUAL = STATIC + ADAPTIVE


def test_every_measure_with_a_residual_is_checked() -> None:
    """STATIC and ADAPTIVE name every registry measure that has a residual."""
    names = {m.name for m in ir.parse_measures(WITH_RESIDUAL)}
    assert names == {d.name for d in ir.definitions() if d.residual is not None}


def test_judged_weight_declarations_are_one_minus_the_residual() -> None:
    """Each measure that declares its judged weight (``judged=``: RBP, P) scores 1 -
    residual with those parameters, per query, on runs with unjudged documents, negative
    grades and rankings shorter than the depth; the others declare none."""
    run, qrels = _varied()
    measures = ir.parse_measures([*WITH_RESIDUAL, "RBP(ties='average')@10", "P(rel=2)@20"])
    declared = [m for m in measures if m.judged_weight() is not None]
    assert {m.name for m in declared} == {"RBP", "P"}
    assert "RBP(ties='average')@10" not in {m.label for m in declared}  # its own residual
    for m in declared:
        hidden = m.judged_weight()
        assert hidden is not None and hidden.label.startswith("judged weight of ")
        weight = dataclasses.replace(hidden, label_="weight")  # a row of the result
        out = ir.evaluate(run, qrels, [m, weight], per_query=True, residuals=True)
        mine = out.filter(pl.col("measure") == m.label).sort("query_id")
        got = out.filter(pl.col("measure") == weight.label).sort("query_id")
        assert got.height == mine.height > 0
        assert ((got["value"] - (1.0 - mine["residual"])).abs() <= 1e-14).all(), m.label


def _varied() -> tuple[pl.DataFrame, pl.DataFrame]:
    docs = [f"d{i}" for i in range(12)]
    run = pl.DataFrame(
        {
            "query_id": ["a"] * 12 + ["b"] * 3,
            "doc_id": docs + docs[:3],
            "score": [float(12 - i) for i in range(12)] + [3.0, 2.0, 1.0],
        }
    )
    judged = {"d0": 1, "d2": 0, "d3": -1, "d5": 2, "d9": 1}
    qrels = pl.DataFrame(
        {
            "query_id": ["a"] * len(judged) + ["b", "b"],
            "doc_id": [*judged, "d1", "d7"],
            "relevance": [*judged.values(), 1, 1],
        }
    )
    return run, qrels


NEARLY_UNJUDGED_ENGINES = ["polars", "duckdb", "spark", "spark-polars"]


@pytest.mark.parametrize("engine", NEARLY_UNJUDGED_ENGINES)
def test_projection_of_a_nearly_unjudged_ranking_is_exact(
    engine: str, request: pytest.FixtureRequest
) -> None:
    """A ranking whose one judged document, relevant, lies at rank 82 of 100: RBP's judged
    weight 0.2 * 0.8^81 = 2.8e-9 is all its base, so its projection is exactly 1 (and P@100's,
    1 judged of 100, is 1). Computed from the residual, 1 - residual keeps about 7 of the
    weight's digits: the projection was 1 - 1.3e-7. Every engine divides by the judged weight,
    per query and aggregated."""
    con = request.getfixturevalue("spark") if engine.startswith("spark") else None
    run, qrels = nearly_unjudged()
    names = ["RBP(p=0.8)", "P@100", "nDCG@10"]
    if engine == "spark":  # Spark SQL plans cost seconds a measure: RBP alone, per query
        # (its means are checked in test_sql.py's test_residuals_equal_polars, on
        # measures with judged weights too)
        names = names[:1]
    for per_query in (True,) if engine == "spark" else (True, False):
        out = ir.evaluate(
            run, qrels, names, per_query=per_query, residuals=True, engine=engine, con=con
        )  # type: ignore[arg-type]
        got = out if isinstance(out, pl.DataFrame) else to_polars(out)
        assert got["measure"].to_list() == names * 2  # no judged weight among the rows
        projected = got.filter(pl.col("measure") != "nDCG@10")["projected"].to_list()
        assert projected == [1.0] * 2 * len(names[:2]), (engine, per_query, got)
        assert got.filter(pl.col("measure") == "RBP(p=0.8)")["value"][0] == pytest.approx(
            0.2 * 0.8**81, rel=1e-12
        )


def _rows(out: pl.DataFrame) -> dict[tuple[str, str], tuple[float, float | None, float | None]]:
    return {
        (r["query_id"], r["measure"]): (r["value"], r["residual"], r["projected"])
        for r in out.iter_rows(named=True)
    }


def _eval(
    run, qrels, measures, **kw
) -> dict[tuple[str, str], tuple[float, float | None, float | None]]:
    return _rows(ir.evaluate(run, qrels, measures, per_query=True, residuals=True, **kw))


def _example() -> tuple[pl.DataFrame, pl.DataFrame]:
    # q1: grades 1, ?, 0 (rank 2 unjudged); q2: grades 0, 1
    run = pl.DataFrame(
        {
            "query_id": ["q1", "q1", "q1", "q2", "q2"],
            "doc_id": ["a", "b", "c", "d", "e"],
            "score": [3.0, 2.0, 1.0, 2.0, 1.0],
        }
    )
    qrels = pl.DataFrame(
        {
            "query_id": ["q1", "q1", "q2", "q2"],
            "doc_id": ["a", "c", "d", "e"],
            "relevance": [1, 0, 0, 1],
        }
    )
    return run, qrels


def test_columns_per_query_by_hand():
    run, qrels = _example()
    out = ir.evaluate(run, qrels, ["P@5", "RBP(p=0.5)", "AP"], per_query=True, residuals=True)
    assert out.columns == ["query_id", "measure", "value", "residual", "projected"]
    got = _rows(out)
    # P@5, q1: 1 relevant in 5; unknown: rank 2 (unjudged) and ranks 4, 5 (past the ranking)
    assert got["q1", "P@5"] == pytest.approx((0.2, 0.6, 0.2 + 0.6 * 0.2 / 0.4))
    # P@5, q2: 1 relevant; ranks 3..5 unknown
    assert got["q2", "P@5"] == pytest.approx((0.2, 0.6, 0.5))
    # RBP p=0.5, q1: base 0.5; residual 0.5 * 0.5 (rank 2) + 0.5^3 (past rank 3)
    assert got["q1", "RBP(p=0.5)"] == pytest.approx((0.5, 0.375, 0.5 + 0.375 * 0.5 / 0.625))
    # AP has no residual: null, and so is the projection
    assert got["q1", "AP"][1:] == (None, None)


def test_aggregate_is_mean_residual_and_projection_of_means():
    run, qrels = _example()
    per_q = _eval(run, qrels, ["P@5", "INST@10", "AP"])
    agg = ir.evaluate(run, qrels, ["P@5", "INST@10", "AP"], residuals=True)
    for label in ("P@5", "INST@10"):
        row = agg.filter(measure=label).row(0, named=True)
        base = (per_q["q1", label][0] + per_q["q2", label][0]) / 2
        resid = (per_q["q1", label][1] + per_q["q2", label][1]) / 2
        assert row["value"] == pytest.approx(base, abs=1e-15)
        assert row["residual"] == pytest.approx(resid, abs=1e-15)
        assert row["projected"] == pytest.approx(base + resid * base / (1 - resid), abs=1e-15)
    assert agg.filter(measure="AP").select("residual", "projected").row(0) == (None, None)
    # without residuals=True the frame is unchanged
    assert ir.evaluate(run, qrels, ["P@5"]).columns == ["measure", "value"]


def test_many_runs_lazy_and_projection_null_when_nothing_is_known():
    run, qrels = _example()
    runs = pl.concat([run.with_columns(run_id=pl.lit("A")), run.with_columns(run_id=pl.lit("B"))])
    lazy = ir.evaluate(runs.lazy(), qrels.lazy(), ["RBP", "P@5"], residuals=True)
    assert isinstance(lazy, pl.LazyFrame)
    eager = ir.evaluate(runs, qrels, ["RBP", "P@5"], residuals=True)
    assert lazy.collect().equals(eager)
    assert eager["run_id"].to_list() == ["A", "A", "B", "B"]
    # a ranking of unjudged documents only: residual 1, projection undefined
    unjudged = pl.DataFrame({"query_id": ["q1"], "doc_id": ["zz"], "score": [1.0]})
    got = _eval(unjudged, qrels, ["P@1", "INSQ@3"])
    assert got["q1", "P@1"] == (0.0, 1.0, None)
    assert got["q1", "INSQ@3"] == (0.0, 1.0, None)


def test_bad_options():
    run, qrels = _example()
    with pytest.raises(ParameterError, match="residuals"):
        ir.evaluate(run, qrels, ["RBP"], residuals="yes")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="engine"):
        ir.evaluate(run, qrels, ["P@5"], residuals=True, engine="nope")  # type: ignore[arg-type]


@pytest.mark.parametrize("measure", [*WITH_RESIDUAL, "INSQ", "TBG", "U", "INST", "BPM"])
def test_a_query_without_ranking_is_all_residual(measure: str) -> None:
    """A judged query the run lacks (missing='zero'): nothing is known, so the residual is
    exactly 1 (weights normalized by one division) and the projection undefined, at the
    default depth 1000 too, where a sum of 1000 normalized weights is not exactly 1."""
    run, qrels = _example()
    qrels = pl.concat(
        [qrels, pl.DataFrame({"query_id": ["q9"], "doc_id": ["x"], "relevance": [1]})]
    )
    got = _eval(run, qrels, [measure], missing="zero")
    assert got["q9", measure] == (0.0, 1.0, None)


def test_extended_evaluation_deeper_than_the_ranking():
    """Seed 000's k > d: evaluating at depth k past the ranking (and the judgments) is
    supported; the residual is the weight of what is not known."""
    run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "relevance": [1, 1]})
    got = _eval(run, qrels, ["P@2", "P@10", "P@1000", "INSQ@2", "INSQ@10", "RBP"])
    assert got["q", "P@2"][:2] == (1.0, 0.0)
    assert got["q", "P@10"][:2] == (pytest.approx(0.2), pytest.approx(0.8))
    assert got["q", "P@1000"][:2] == (pytest.approx(0.002), pytest.approx(0.998))
    assert got["q", "INSQ@2"][:2] == (pytest.approx(1.0), pytest.approx(0.0))
    # the deeper the evaluation, the more is unknown
    assert got["q", "INSQ@10"][1] > 0
    assert got["q", "RBP"][1] == pytest.approx(0.8**2)
    # judgments to depth 1 only (d = 1), evaluation to k = 2: the residual covers rank 2
    shallow = qrels.filter(doc_id="a")
    got = _eval(run, shallow, ["P@2", "RBP(p=0.5)@2"])
    assert got["q", "P@2"][:2] == (0.5, 0.5)
    assert got["q", "RBP(p=0.5)@2"][:2] == (0.5, pytest.approx(0.25 + 0.25))


def test_ideal_ranking_scores_one():
    """Where the measure is realizable (k relevant documents for a depth-k model), the
    ideal ranking scores 1 with nothing left unknown."""
    k = 6
    run = pl.DataFrame(
        {
            "query_id": "q",
            "doc_id": [f"d{i}" for i in range(k)],
            "score": [float(-i) for i in range(k)],
        }
    )
    qrels = pl.DataFrame(
        {"query_id": "q", "doc_id": [f"d{i}" for i in range(k)], "relevance": [1] * k}
    )
    labels = [
        f"P@{k}",
        f"INST@{k}",
        f"INSQ@{k}",
        f"TBG(halflife=2)@{k}",
        f"U(L=3)@{k}",
        f"BPM(T=9,K=9)@{k}",
    ]
    got = _eval(run, qrels, labels)
    for label in labels:
        value, residual, projected = got["q", label]
        assert value == pytest.approx(1.0, abs=1e-12), label
        assert residual == pytest.approx(0.0, abs=1e-12), label
        assert projected == pytest.approx(1.0, abs=1e-12), label


# -- properties (seed 004, Table 2) on generated rankings ----------------------------------


#: 1-3 queries of up to 25 documents ranked in drawn order (no ties), grades -1 to 2
runs_and_qrels = frame_collections(
    queries=(1, 3), pool=(1, 25), scores=ranked_scores(), grades=st.integers(-1, 2)
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=runs_and_qrels)
def test_bounded(data):
    run, qrels = data
    for (q, label), (value, residual, projected) in _eval(run, qrels, WITH_RESIDUAL).items():
        assert -1e-12 <= value <= 1 + 1e-12, (q, label)
        assert -1e-12 <= residual <= 1 + 1e-12, (q, label)
        assert value + residual <= 1 + 1e-12, (q, label)
        if projected is not None:
            assert value - 1e-12 <= projected <= 1 + 1e-9, (q, label)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=runs_and_qrels, grades=st.lists(st.integers(-1, 2), min_size=1, max_size=30))
def test_interval_never_widens_as_documents_are_judged(data, grades):
    run, qrels = data
    before = _eval(run, qrels, WITH_RESIDUAL)
    known = set(qrels.select("query_id", "doc_id").iter_rows())
    new = [(q, d) for q, d in run.select("query_id", "doc_id").iter_rows() if (q, d) not in known]
    added = [(q, d, g) for (q, d), g in zip(new, grades, strict=False)]
    if not added:
        return
    more = pl.concat([qrels, pl.DataFrame(added, schema=QRELS_SCHEMA, orient="row")])
    after = _eval(run, more, WITH_RESIDUAL)
    for key, (lo0, r0, _) in before.items():
        lo1, r1, _ = after[key]
        assert lo0 - 1e-12 <= lo1, key
        assert lo1 + r1 <= lo0 + r0 + 1e-12, key


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=runs_and_qrels, extra=st.integers(1, 10))
def test_monotone_when_the_ranking_is_extended(data, extra):
    """Appending documents below the ranking never lowers the base score: the weights of
    static models do not change, and an adaptive model (INST, BPM) only moves weight from
    the ranks past the old ranking (gain 0) to the ranks before them."""
    run, qrels = data
    tail = pl.DataFrame(
        [(q, f"x{q}_{i}", -1000.0 - i) for q in run["query_id"].unique() for i in range(extra)],
        schema=RUN_SCHEMA,
        orient="row",
    )
    # the new documents are judged with the grades of the pool, cycling
    judged = pl.DataFrame(
        [(q, d, i % 3 - 1) for i, (q, d, _) in enumerate(tail.iter_rows())],
        schema=QRELS_SCHEMA,
        orient="row",
    )
    before = _eval(run, qrels, WITH_RESIDUAL)
    after = _eval(pl.concat([run, tail]), pl.concat([qrels, judged]), WITH_RESIDUAL)
    for key, (value, _, _) in before.items():
        assert after[key][0] >= value - 1e-12, key


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=runs_and_qrels, seed=st.integers(0, 2**16))
def test_shuffling_rows_changes_nothing(data, seed):
    run, qrels = data
    a = ir.evaluate(run, qrels, WITH_RESIDUAL, per_query=True, residuals=True)
    b = ir.evaluate(
        run.sample(fraction=1.0, shuffle=True, seed=seed),
        qrels.sample(fraction=1.0, shuffle=True, seed=seed),
        WITH_RESIDUAL,
        per_query=True,
        residuals=True,
    )
    assert a.equals(b)


def test_eager_lazy_and_streaming_agree():
    d = need_data() / "trec_eval_test"
    run = ir.read_run(d / "results.test")
    qrels = ir.read_qrels(d / "qrels.test")
    measures = [*WITH_RESIDUAL, "RBP(ties='average')", "ED(measure='INST(T=2)')", "AP"]
    for per_query in (True, False):
        eager = ir.evaluate(run, qrels, measures, residuals=True, per_query=per_query)
        lazy = ir.evaluate(run.lazy(), qrels.lazy(), measures, residuals=True, per_query=per_query)
        # per query: identical; aggregated: the mean over queries may add them in another
        # order (group_by), so the last bit may differ
        tol = {"check_exact": per_query, "rel_tol": 1e-14, "abs_tol": 1e-15}
        assert_frame_equal(eager, lazy.collect(), **tol)
        assert_frame_equal(eager, lazy.collect(engine="streaming"), **tol)
    assert eager.height == len(measures)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("n", [50, 100, 1000])
def test_a_ranking_with_nothing_judged_has_residual_one_and_never_more(engine: str, n: int) -> None:
    """Nothing judged in the depth read: all of the model's weight is unknown, residual
    exactly 1 (the sum of the weights rounded: 0.9999999999999996 for RBP(p=0.8) over 50
    documents, 1.0000000000000002 for p=0.95 over 100); with judged documents, at most 1."""
    run = pl.DataFrame(
        {
            "query_id": "q",
            "doc_id": [f"d{i}" for i in range(n)],
            "score": [float(n - i) for i in range(n)],
        }
    )
    nothing = pl.DataFrame({"query_id": ["q"], "doc_id": ["x"], "relevance": [1]})
    measures = [
        "RBP(p=0.8)",
        "RBP(p=0.95)",
        "RBP(p=0.5)@5",
        "InvSq",
        "InvSq@5",
        "RBP_resid(p=0.95)",
    ]
    got = ir.evaluate(run, nothing, measures, residuals=True, engine=engine)
    assert got["residual"].to_list()[: len(measures) - 1] == [1.0] * (len(measures) - 1)
    assert got.filter(measure="RBP_resid(p=0.95)")["value"].item() == 1.0
    assert got["projected"][: len(measures) - 1].is_null().all()
    last = pl.DataFrame({"query_id": ["q"], "doc_id": [f"d{n - 1}"], "relevance": [0]})
    some = ir.evaluate(run, last, measures, residuals=True, engine=engine)
    assert (some["residual"].drop_nulls() <= 1.0).all()
