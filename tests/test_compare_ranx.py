"""ranx.compare as an oracle: on the per-query scores ranx computes itself, ir.compare gives
its paired t-test p-values (to 1e-12), its Fisher randomization p-values (within the Monte
Carlo error of both) and its win/tie/loss counts."""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_ireval as ir
from tests.oracles import ranx_qrels, ranx_run
from tests.paths import DATA, need_data

COVID = DATA / "trec-covid-r1"
RUNS = ["run1", "BBGhelani1", "cu_dbmi_bm25_1", "bm25_baseline"]
METRICS = ["ndcg@10", "map"]
PERMUTATIONS = 2000


def nested(frame: pl.DataFrame, value: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for q, d, v in frame.select("query_id", "doc_id", value).iter_rows():
        out.setdefault(q, {})[d] = v
    return out


@functools.cache
def ranx_reports() -> tuple[pl.DataFrame, dict[str, Any], dict[str, Any]]:
    ranx = pytest.importorskip("ranx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        qrels = ranx_qrels(nested(ir.read_qrels(COVID / "qrels-rnd1.txt"), "relevance"))
        runs = [
            ranx_run(nested(ir.read_run(str(COVID / "runs" / f"{name}.gz")), "score"), name=name)
            for name in RUNS
        ]
        student = ranx.compare(qrels, runs, METRICS, stat_test="student", max_p=0.05).to_dict()
        fisher = ranx.compare(
            qrels, runs, METRICS, stat_test="fisher", n_permutations=PERMUTATIONS, max_p=0.05
        ).to_dict()
    per_q = pl.DataFrame(
        [
            {"run_id": run.name, "query_id": q, "measure": m, "value": float(v)}
            for run in runs
            for m in METRICS
            for q, v in run.scores[m].items()
        ]
    )
    return per_q, student, fisher


@pytest.fixture
def reports() -> tuple[pl.DataFrame, dict[str, Any], dict[str, Any]]:
    need_data()
    return ranx_reports()


def test_paired_t_equals_ranx_student(reports: tuple[pl.DataFrame, dict, dict]) -> None:
    per_q, student, _ = reports
    cmp = ir.compare(per_q, pairs="all", test="t")
    assert cmp.height == len(METRICS) * math.comb(len(RUNS), 2)
    for row in cmp.iter_rows(named=True):
        theirs = student[row["run_a"]]["comparisons"][row["run_b"]][row["measure"]]
        assert row["p_value"] == pytest.approx(theirs, rel=1e-12, abs=1e-15)
        wtl = student[row["run_a"]]["win_tie_loss"][row["run_b"]][row["measure"]]
        assert (row["wins"], row["ties"], row["losses"]) == (wtl["W"], wtl["T"], wtl["L"])
        assert row["mean_a"] == pytest.approx(
            student[row["run_a"]]["scores"][row["measure"]], rel=1e-12
        )


def test_randomization_agrees_with_ranx_fisher(reports: tuple[pl.DataFrame, dict, dict]) -> None:
    per_q, _, fisher = reports
    cmp = ir.compare(per_q, pairs="all", test="randomization", resamples=PERMUTATIONS, seed=3)
    for row in cmp.iter_rows(named=True):
        theirs = fisher[row["run_a"]]["comparisons"][row["run_b"]][row["measure"]]
        # ranx: count / B; ours: (count + 1) / (B + 1); both Monte Carlo estimates
        err = math.hypot(
            row["mc_error"], math.sqrt(max(theirs * (1 - theirs), 1e-12) / PERMUTATIONS)
        )
        assert abs(row["p_value"] - theirs) <= 4 * err + 2 / PERMUTATIONS
    assert np.all(cmp["resamples"].to_numpy() == PERMUTATIONS)
