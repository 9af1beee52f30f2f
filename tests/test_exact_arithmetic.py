"""Floating-point details where trec_eval's printed 4th decimal depends on the last bit.

Each case was found by comparing `ireval trec_eval` with a trec_eval binary.
"""

from __future__ import annotations

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
