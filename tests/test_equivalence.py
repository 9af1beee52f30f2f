"""Equivalences: row order, eager/lazy/streaming, runs together, namespace, free functions."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_ireval as ir
from tests.strategies import several_runs

pytestmark = pytest.mark.filterwarnings("ignore::polars_ireval.CoverageWarning")

# one or more measures of every family
MEASURES = [
    "nDCG@10",
    "nDCG",
    "AP",
    "AP@5",
    "P@10",
    "P(rel=2)@5",
    "R@1000",
    "RR",
    "Rprec",
    "Bpref",
    "infAP",
    "SetF",
    "SetP",
    "SetR",
    "NumRet",
    "NumRel",
    "NumRelRet",
    "iprec_at_recall",
    "IPrec@0.5",
    "ndcg_rel",
    "Rndcg",
    "G",
    "binG",
    "gm_map",
    "Success@3",
    "Judged@10",
    "map",
    "ndcg_cut.5",
    "recip_rank",
]


@pytest.fixture(scope="module")
def example() -> tuple[pl.DataFrame, pl.DataFrame]:
    run = ir.read_run(ir.example_path("runs"))
    qrels = ir.read_qrels(ir.example_path("qrels.txt"))
    return run, qrels


def _sorted(frame: pl.DataFrame) -> pl.DataFrame:
    keys = [c for c in ("run_id", "query_id", "measure") if c in frame.columns]
    return frame.sort(keys)


def _assert_same(a: pl.DataFrame, b: pl.DataFrame) -> None:
    assert_frame_equal(_sorted(a), _sorted(b), check_exact=False, rel_tol=1e-12, abs_tol=1e-12)


# generated collections: several_runs (tests/strategies.py), up to 3 runs, 4 queries, 11 docs,
# many tied scores
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------- example


@pytest.mark.parametrize("per_query", [False, True])
def test_shuffled_rows_change_nothing_example(
    example: tuple[pl.DataFrame, pl.DataFrame], per_query: bool
) -> None:
    run, qrels = example
    base = ir.evaluate(run, qrels, MEASURES, per_query=per_query)
    for seed in (1, 2):
        shuffled = ir.evaluate(
            run.sample(fraction=1.0, shuffle=True, seed=seed),
            qrels.sample(fraction=1.0, shuffle=True, seed=seed),
            MEASURES,
            per_query=per_query,
        )
        # exact: the ranking order and every aggregation must not depend on row order
        _assert_same(base, shuffled)


@pytest.mark.parametrize("per_query", [False, True])
def test_eager_lazy_streaming_agree_example(
    example: tuple[pl.DataFrame, pl.DataFrame], per_query: bool
) -> None:
    run, qrels = example
    eager = ir.evaluate(run, qrels, MEASURES, per_query=per_query)
    lazy = ir.evaluate(run.lazy(), qrels.lazy(), MEASURES, per_query=per_query)
    assert isinstance(lazy, pl.LazyFrame)
    _assert_same(eager, lazy.collect())
    _assert_same(eager, lazy.collect(engine="streaming"))
    # the result has every requested measure for every run
    assert set(eager["measure"]) >= {"nDCG@10", "AP", "gm_map", "Rndcg", "iprec_at_recall_0.50"}
    assert eager["run_id"].n_unique() == 3


def test_paths_equal_frames(example: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    run, qrels = example
    from_paths = ir.evaluate(ir.example_path("runs"), ir.example_path("qrels.txt"), MEASURES)
    _assert_same(from_paths, ir.evaluate(run, qrels, MEASURES))


@pytest.mark.parametrize(
    "options",
    [{}, {"missing": "zero"}, {"max_depth": 20}, {"judged_only": True}, {"relevance_level": 2}],
)
def test_three_runs_at_once_equal_each_alone(
    example: tuple[pl.DataFrame, pl.DataFrame], options: dict
) -> None:
    run, qrels = example
    together = ir.evaluate(run, qrels, MEASURES, per_query=True, **options)
    for name in ("bm25", "dense", "random"):
        alone = ir.evaluate(
            ir.read_run(ir.example_path(f"runs/{name}.run")),
            qrels,
            MEASURES,
            per_query=True,
            **options,
        )
        part = together.filter(pl.col("run_id") == name).drop("run_id")
        assert part.height > 0
        _assert_same(part, alone)
    agg = ir.evaluate(run, qrels, MEASURES, **options)
    for name in ("bm25", "dense", "random"):
        alone = ir.evaluate(
            ir.read_run(ir.example_path(f"runs/{name}.run")), qrels, MEASURES, **options
        )
        _assert_same(agg.filter(pl.col("run_id") == name).drop("run_id"), alone)


NAMESPACE = [
    ("ndcg", {"k": 10}, "nDCG@10"),
    ("ndcg", {}, "nDCG"),
    ("ap", {}, "AP"),
    ("ap", {"k": 5}, "AP@5"),
    ("precision", {"k": 10}, "P@10"),
    ("precision", {"k": 5, "rel": 2}, "P(rel=2)@5"),
    ("recall", {"k": 1000}, "R@1000"),
    ("rr", {}, "RR"),
    ("rprec", {}, "Rprec"),
    ("rprec", {"k": 5}, "RPrec@5"),
    ("success", {"k": 3}, "Success@3"),
    ("ap", {"k": 10, "norm": "self"}, "AP(norm='self')@10"),
    ("ndcg", {"k": 10, "gain": "exp"}, "nDCG(gain='exp')@10"),
    ("dcg", {"k": 5, "norm": "self"}, "DCG(norm='self')@5"),
    ("sdcg", {"k": 5}, "SDCG@5"),
    ("err", {"k": 20}, "ERR@20"),
    ("rbp", {"p": 0.5}, "RBP(p=0.5)"),
    ("inst", {"T": 2.0}, "INST(T=2.0)"),
]


def _per_query_values(run: pl.DataFrame, qrels: pl.DataFrame, measure: str) -> pl.DataFrame:
    long = ir.evaluate(run, qrels, [measure], per_query=True)
    keys = [c for c in ("run_id", "query_id") if c in long.columns]
    return long.select(*keys, pl.col("value").alias("v")).sort(keys)


@pytest.mark.parametrize(("method", "kwargs", "measure"), NAMESPACE)
def test_namespace_equals_evaluate(
    example: tuple[pl.DataFrame, pl.DataFrame], method: str, kwargs: dict, measure: str
) -> None:
    run, qrels = example
    table = ir.judge(run, qrels)
    expected = _per_query_values(run, qrels, measure)
    out = getattr(table.ireval, method)(**kwargs)
    assert out.columns[:2] == ["run_id", "query_id"]
    got = out.select("run_id", "query_id", pl.col(out.columns[-1]).cast(pl.Float64).alias("v"))
    assert_frame_equal(got, expected, check_exact=False, rel_tol=1e-12, abs_tol=1e-12)
    # lazy namespace too
    lazy = getattr(table.lazy().ireval, method)(**kwargs).collect()
    assert_frame_equal(lazy, out)
    # measures() by string
    by_string = table.ireval.measures(measure)
    assert_frame_equal(
        by_string.select("run_id", "query_id", pl.col(measure).cast(pl.Float64).alias("v")),
        expected,
        check_exact=False,
        rel_tol=1e-12,
        abs_tol=1e-12,
    )


FREE = [
    (lambda: ir.ndcg(k=10), "nDCG@10"),
    (lambda: ir.ap(), "AP"),
    (lambda: ir.precision(k=10), "P@10"),
    (lambda: ir.recall(k=1000), "R@1000"),
    (lambda: ir.rr(), "RR"),
    (lambda: ir.rprec(), "Rprec"),
    (lambda: ir.rprec(k=3), "RPrec@3"),
    (lambda: ir.bpref(), "Bpref"),
    (lambda: ir.inf_ap(), "infAP"),
    (lambda: ir.set_f(), "SetF"),
    (lambda: ir.num_ret(), "NumRet"),
    (lambda: ir.rndcg(), "Rndcg"),
    (lambda: ir.g_measure(), "G"),
    (lambda: ir.bin_g(), "binG"),
    (lambda: ir.ndcg_rel(), "ndcg_rel"),
]


def test_free_functions_in_group_by_equal_evaluate(
    example: tuple[pl.DataFrame, pl.DataFrame],
) -> None:
    run, qrels = example
    table = ir.judge(run, qrels)
    exprs = [make() for make, _ in FREE]
    per_q = table.group_by("run_id", "query_id").agg(exprs).sort("run_id", "query_id")
    lazy = (
        table.lazy()
        .group_by("run_id", "query_id")
        .agg(exprs)
        .sort("run_id", "query_id")
        .collect(engine="streaming")
    )
    assert_frame_equal(per_q, lazy)
    for (_, measure), col in zip(FREE, per_q.columns[2:], strict=True):
        expected = _per_query_values(run, qrels, measure)
        got = per_q.select("run_id", "query_id", pl.col(col).cast(pl.Float64).alias("v"))
        assert_frame_equal(got, expected, check_exact=False, rel_tol=1e-12, abs_tol=1e-12)


# --------------------------------------------------------------------------- generated


@SETTINGS
@given(data=several_runs(), seed=st.integers(0, 2**16))
def test_generated_shuffle_and_engines_agree(
    data: tuple[pl.DataFrame, pl.DataFrame], seed: int
) -> None:
    run, qrels = data
    base = ir.evaluate(run, qrels, MEASURES, per_query=True, missing="zero")
    shuffled = ir.evaluate(
        run.sample(fraction=1.0, shuffle=True, seed=seed),
        qrels.sample(fraction=1.0, shuffle=True, seed=seed),
        MEASURES,
        per_query=True,
        missing="zero",
    )
    _assert_same(base, shuffled)
    lazy = ir.evaluate(run.lazy(), qrels.lazy(), MEASURES, per_query=True, missing="zero")
    _assert_same(base, lazy.collect())
    _assert_same(base, lazy.collect(engine="streaming"))
    agg = ir.evaluate(run, qrels, MEASURES, missing="zero")
    agg_lazy = ir.evaluate(run.lazy(), qrels.lazy(), MEASURES, missing="zero")
    _assert_same(agg, agg_lazy.collect(engine="streaming"))


@SETTINGS
@given(data=several_runs())
def test_generated_runs_together_equal_alone(data: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    run, qrels = data
    for options in ({}, {"missing": "zero"}):
        together = ir.evaluate(run, qrels, MEASURES, per_query=True, **options)
        for name in run["run_id"].unique():
            alone = ir.evaluate(
                run.filter(pl.col("run_id") == name).drop("run_id"),
                qrels,
                MEASURES,
                per_query=True,
                **options,
            )
            _assert_same(together.filter(pl.col("run_id") == name).drop("run_id"), alone)


@SETTINGS
@given(data=several_runs())
def test_generated_namespace_and_free_functions(data: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    run, qrels = data
    table = ir.judge(run, qrels, missing="zero")
    # evaluate's values of every measure string below, in one call (each measure's values
    # are its own: test_generated_runs_together_equal_alone's kind of check)
    strings = list(dict.fromkeys([m for *_, m in NAMESPACE] + [m for _, m in FREE]))
    labels = dict(zip(strings, (m.label for m in ir.parse_measures(strings)), strict=True))
    values = ir.evaluate(run, qrels, strings, per_query=True, missing="zero")

    def evaluated(measure: str) -> pl.DataFrame:
        return values.filter(pl.col("measure") == labels[measure]).select(
            "run_id", "query_id", pl.col("value").alias("v")
        )

    for method, kwargs, measure in NAMESPACE:
        out = getattr(table.ireval, method)(**kwargs)
        got = out.select("run_id", "query_id", pl.col(out.columns[-1]).cast(pl.Float64).alias("v"))
        _assert_same(got, evaluated(measure))
    exprs = [make() for make, _ in FREE]
    per_q = table.group_by("run_id", "query_id").agg(exprs)
    for (_, measure), col in zip(FREE, per_q.columns[2:], strict=True):
        got = per_q.select("run_id", "query_id", pl.col(col).cast(pl.Float64).alias("v"))
        _assert_same(got, evaluated(measure))


#: ir_measures' other spellings of a measure (its grammar), and what they mean here
SPELLINGS = [
    ("RPrec", "Rprec"),
    ("SetRelP", "set_relative_P"),
    ("SetP(relative=True)", "set_relative_P"),
    ("NumRet(rel=1)", "NumRelRet(rel=1)"),
    ("NumRet(rel=2)", "NumRelRet(rel=2)"),
    ("MRR", "RR"),
    ("BPref", "Bpref"),
    ("MAP", "AP"),
]


@pytest.mark.parametrize(("spelling", "meaning"), SPELLINGS)
@pytest.mark.parametrize("relevance_level", [1, 2])
def test_ir_measures_spellings(
    example: tuple[pl.DataFrame, pl.DataFrame], spelling: str, meaning: str, relevance_level: int
) -> None:
    run, qrels = example
    out = ir.evaluate(
        run, qrels, [spelling, meaning], per_query=True, relevance_level=relevance_level
    )
    a = out.filter(pl.col("measure") == spelling)["value"]
    b = out.filter(pl.col("measure") == meaning)["value"]
    assert a.len() == b.len() > 0
    assert (a == b).all()


def test_a_query_the_run_lacks_scores_what_trec_eval_c_adds() -> None:
    """trec_eval -c adds 0 for a judged query the run lacks, for utility too, whose empty
    ranking is worth c·R + d·(N − R); a ranking that judged_only empties keeps that value."""
    run = pl.DataFrame({"query_id": ["q1", "q1", "q3"], "doc_id": ["a", "b", "u"],
                        "score": [2.0, 1.0, 1.0]})  # fmt: skip
    qrels = pl.DataFrame({"query_id": ["q1", "q2", "q3"], "doc_id": ["a", "x", "y"],
                          "relevance": [1, 1, 1]})  # fmt: skip
    u = "utility(weights=(1.0,-1.0,-1.0,0.5),num_docs=10)"
    for frame in (run, run.lazy()):
        out = ir.evaluate(frame, qrels, [u, "P@1"], per_query=True, missing="zero",
                          judged_only=True)  # fmt: skip
        out = out.collect() if isinstance(out, pl.LazyFrame) else out
        got = {(r["query_id"], r["measure"]): r["value"] for r in out.iter_rows(named=True)}
        assert got["q2", u] == 0.0  # absent from the run: 0, as trec_eval -c
        assert got["q3", u] == -1.0 + 0.5 * 9  # emptied by judged_only: c·R + d·(N − R)
        assert got["q1", u] == 1.0 + 0.5 * 9
        assert got["q2", "P@1"] == 0.0
