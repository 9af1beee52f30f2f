"""GradedP@k (seed 001's graded, discounted precision) against a brute-force oracle written
here, on generated runs with graded, unjudged and negative grades and short rankings; its
SQL macro is checked against the Polars engine by tests/test_sql.py."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

import polars_ireval as ir


def campaign(seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    rng = np.random.default_rng(seed)
    runs, qrels = [], []
    for q in range(12):
        n = int(rng.integers(1, 25))  # some rankings shorter than k
        docs = [f"d{j}" for j in rng.permutation(40)[:n]]
        scores = rng.permutation(n).astype(float)  # no tied scores
        runs += [(f"q{q}", d, s) for d, s in zip(docs, scores, strict=True)]
        for j in range(40):
            if rng.random() < 0.7:  # the rest unjudged
                qrels.append((f"q{q}", f"d{j}", int(rng.integers(-1, 4))))
    run = pl.DataFrame(runs, schema=["query_id", "doc_id", "score"], orient="row")
    qrel = pl.DataFrame(qrels, schema=["query_id", "doc_id", "relevance"], orient="row")
    return run, qrel


def weight(i: int, discount: str, b: float, weights: tuple[float, ...]) -> float:
    return {
        "none": lambda: 1.0,
        "log2": lambda: 1 / math.log2(i + 1),
        "log": lambda: 1 / math.log(i + 1, b),
        "jk": lambda: 1.0 if i < b else 1 / math.log(i, b),
        "root": lambda: 1 / math.sqrt(i),
        "rank": lambda: 1 / i,
        "square": lambda: 1 / i**2,
        "click": lambda: weights[i - 1] if i <= len(weights) else 0.0,
    }[discount]()


def oracle(run, qrels, k, gains, gain, discount, b=2.0, weights=()) -> dict[str, float]:
    grade = {(q, d): g for q, d, g in qrels.iter_rows()}
    out = {}
    for q in qrels["query_id"].unique():  # trec_eval: judged queries the run ranks
        ranked = run.filter(query_id=q).sort("score", descending=True)["doc_id"].to_list()
        if not ranked:
            continue
        total = 0.0
        for i, d in enumerate(ranked[:k], start=1):
            g = grade.get((q, d))
            value = 0.0 if g is None or g < 0 else float(gains.get(g, g))
            if gain == "exp":
                value = 2.0**value - 1.0
            total += value * weight(i, discount, b, weights)
        out[q] = total / k
    return out


CASES = [
    ("GradedP@10", 10, {}, "linear", "none", {}),
    ("GradedP(gains={1:0.2,2:0.6,3:1})@5", 5, {1: 0.2, 2: 0.6, 3: 1}, "linear", "none", {}),
    ("GradedP(discount='log2')@10", 10, {}, "linear", "log2", {}),
    ("GradedP(discount='log',b=5.0)@10", 10, {}, "linear", "log", {"b": 5.0}),
    ("GradedP(discount='jk',b=5.0)@20", 20, {}, "linear", "jk", {"b": 5.0}),
    ("GradedP(discount='root',gain='exp')@7", 7, {}, "exp", "root", {}),
    ("GradedP(discount='rank')@3", 3, {}, "linear", "rank", {}),
    ("GradedP(discount='square',gains={3:1})@10", 10, {3: 1}, "linear", "square", {}),
    ("GradedP(discount='click',weights=(0.5,0.3,0.2))@5", 5, {}, "linear", "click",
     {"weights": (0.5, 0.3, 0.2)}),
]  # fmt: skip


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(("text", "k", "gains", "gain", "discount", "extra"), CASES)
def test_graded_precision_equals_the_oracle(seed, text, k, gains, gain, discount, extra) -> None:
    run, qrels = campaign(seed)
    got = ir.evaluate(run, qrels, text, per_query=True)
    want = oracle(run, qrels, k, gains, gain, discount, **extra)
    assert set(got["query_id"]) == set(want)
    for q, v in got.select("query_id", "value").iter_rows():
        assert v == pytest.approx(want[q], rel=1e-12, abs=1e-15)


def test_binary_undiscounted_is_precision_and_the_numerator_is_dcg() -> None:
    run, qrels = campaign(3)
    binary = qrels.with_columns(pl.col("relevance").clip(-1, 1))
    a = ir.evaluate(run, binary, ["GradedP@10", "P@10"], per_query=True)
    wide = a.pivot("measure", index="query_id", values="value")
    assert wide["GradedP@10"].to_list() == wide["P@10"].to_list()  # bit for bit
    b = ir.evaluate(run, qrels, ["GradedP(discount='root')@10", "DCG(discount='root')@10"],
                    per_query=True).pivot("measure", index="query_id", values="value")  # fmt: skip
    assert (b["GradedP(discount='root')@10"] * 10).to_list() == pytest.approx(
        b["DCG(discount='root')@10"].to_list(), rel=1e-12
    )


def test_graded_precision_bad_parameters() -> None:
    run, qrels = campaign(0)
    with pytest.raises(ir.ParameterError, match="weights"):
        ir.evaluate(run, qrels, "GradedP(discount='click')@5")
    with pytest.raises(ir.ParameterError, match="b > 1"):
        ir.evaluate(run, qrels, "GradedP(discount='jk',b=1.0)@5")
    with pytest.raises(ir.IrevalError):
        ir.evaluate(run, qrels, "GradedP")  # k is required: the denominator
