"""Floating-point details where trec_eval's printed 4th decimal depends on the last bit.

Each case was found by comparing `ireval trec_eval` with a trec_eval binary.
"""

from __future__ import annotations

import math
import random

import polars as pl
import pytest

import polars_ireval as ir

pytestmark = pytest.mark.filterwarnings("ignore::polars_ireval.CoverageWarning")


def _run_and_qrels(n_rel: int, n_ret: int, n_judged_rel: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    docs = [f"d{i:04d}" for i in range(n_ret)]
    run = pl.DataFrame(
        {"query_id": "q", "doc_id": docs, "score": [float(-i) for i in range(n_ret)]}
    )
    judged = docs[:n_rel] + [f"x{i}" for i in range(n_judged_rel - n_rel)]
    qrels = pl.DataFrame({"query_id": "q", "doc_id": judged, "relevance": 1})
    return run, qrels


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_precision_divides_exactly(engine: str) -> None:
    """P@1000 with 9 relevant documents is 9/1000 = 0.009, not 9 * (1/1000)."""
    run, qrels = _run_and_qrels(n_rel=9, n_ret=1000, n_judged_rel=9)
    got = ir.evaluate(run, qrels, ["P@1000", "P@30"], per_query=True, engine=engine)
    assert got["value"].to_list() == [9 / 1000, 9 / 30]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_set_map_is_one_division(engine: str) -> None:
    """trec_eval's set_map is rel_ret² / (ret · R): 21/28 · 21/40 rounds differently."""
    run, qrels = _run_and_qrels(n_rel=21, n_ret=28, n_judged_rel=40)
    got = ir.evaluate(run, qrels, ["set_map"], per_query=True, engine=engine)
    assert got["value"].to_list() == [21.0 * 21.0 / (28.0 * 40.0)]
    assert 21.0 * 21.0 / (28.0 * 40.0) != (21 / 28) * (21 / 40)  # the case is real


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("beta", [0.5, 1.0, 3.0])
def test_set_f_weighs_recall_by_beta(engine: str, beta: float) -> None:
    """set_F.x = (x + 1) P R / (x P + R), trec_eval's formula (x is not squared)."""
    run, qrels = _run_and_qrels(n_rel=3, n_ret=6, n_judged_rel=4)
    p, r = 3 / 6, 3 / 4
    got = ir.evaluate(run, qrels, [f"SetF(beta={beta})"], per_query=True, engine=engine)
    assert got["value"].to_list() == [pytest.approx((beta + 1) * p * r / (beta * p + r), abs=1e-15)]


def _many_queries(seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Two runs over 300 queries whose RR and AP values are uneven fractions."""
    rng = random.Random(seed)
    rows, judged = [], []
    for q in range(300):
        qid = f"q{rng.randrange(10**6)}-{q}"  # ids whose string order is not row order
        judged += [(qid, f"d{d}", rng.choice([0, 1, 2])) for d in rng.sample(range(40), 7)]
        for run_id in ("a", "b"):
            rows += [(run_id, qid, f"d{d}", rng.random()) for d in range(40)]
    run = pl.DataFrame(rows, schema=["run_id", "query_id", "doc_id", "score"], orient="row")
    qrels = pl.DataFrame(judged, schema=["query_id", "doc_id", "relevance"], orient="row")
    return run.sample(fraction=1.0, shuffle=True, seed=seed), qrels


@pytest.mark.parametrize("engine", ["polars", "polars-streaming", "duckdb"])
def test_means_add_queries_in_id_order_as_trec_eval(engine: str) -> None:
    """A mean over queries is trec_eval's: a left-to-right sum in query id order, divided
    by the number of queries; the geometric mean sums the logs so. Bit for bit, whatever
    the order of the input rows or the engine (a pairwise sum differs in the last bit).
    """
    run, qrels = _many_queries(seed=3)
    measures = ["RR", "AP", "gm_map", "nDCG@10"]
    by = "duckdb" if engine == "duckdb" else "polars"  # per-query sums differ in the last bit
    per_query = ir.evaluate(run, qrels, measures, per_query=True, engine=by)
    if engine == "duckdb":
        means = ir.evaluate(run, qrels, measures, engine="duckdb")
    else:
        lazy = ir.evaluate(run.lazy(), qrels.lazy(), measures)
        means = lazy.collect(engine="streaming" if engine == "polars-streaming" else "auto")
    differs = False
    for (run_id, measure), group in per_query.sort("query_id").group_by(
        ["run_id", "measure"], maintain_order=True
    ):
        values = group["value"].to_list()
        if measure == "gm_map":
            expected = math.exp(_left_to_right([math.log(max(v, 1e-5)) for v in values]) / 300)
        else:
            expected = _left_to_right(values) / len(values)
            differs |= expected != math.fsum(values) / len(values)
        got = means.filter((pl.col("run_id") == run_id) & (pl.col("measure") == measure))
        assert got["value"].to_list() == [expected], (run_id, measure)
    assert differs  # a sum in another order would have missed some of these


def _left_to_right(values: list[float]) -> float:
    total = 0.0
    for v in values:
        total += v
    return total
