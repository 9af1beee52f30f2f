"""ir.agreement and ir.rbo: against scipy, direct loops from the papers' definitions, the
``rbo`` package (PyPI) where it defines the same quantity, and worked values."""

from __future__ import annotations

import contextlib
import io
import math
import re

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from scipy import stats

import polars_ireval as ir
from polars_ireval.analysis.agreement import RBO_COLUMNS
from polars_ireval.errors import (
    DuplicateError,
    EmptyInputError,
    MissingQueryError,
    ParameterError,
    SchemaError,
    ScoreError,
)
from tests.paths import ROOT
from tests.strategies import permutation_pairs

# --------------------------------------------------------------------------- oracles


def tau_ap_loop(reference: list[float], evaluated: list[float]) -> float:
    """Yilmaz, Aslam and Robertson (2008), eq. 3, as written: items in the evaluated list's
    order; C(i) = items above rank i there that the reference also ranks above item i."""
    n = len(reference)
    order = sorted(range(n), key=lambda k: -evaluated[k])
    total = 0.0
    for i in range(1, n):
        c = sum(1 for j in range(i) if reference[order[j]] > reference[order[i]])
        total += c / i
    return 2.0 / (n - 1) * total - 1.0


def overlap(a: list[str], b: list[str], d: int) -> int:
    return len(set(a[:d]) & set(b[:d]))


def rbo_truncated(a: list[str], b: list[str], p: float, depth: int) -> float:
    """(1 - p) * sum_{d=1..depth} p^(d-1) * X_d / d on explicit lists (eq. 7, truncated)."""
    return (1 - p) * sum(p ** (d - 1) * overlap(a, b, d) / d for d in range(1, depth + 1))


def extend_min(a: list[str], b: list[str], depth: int) -> tuple[list[str], list[str]]:
    """Continue both lists with items nobody else has: what RBO_min assumes."""
    return (
        a + [f"a-new-{i}" for i in range(depth - len(a))],
        b + [f"b-new-{i}" for i in range(depth - len(b))],
    )


def extend_max(a: list[str], b: list[str], depth: int) -> tuple[list[str], list[str]]:
    """Continue each list with the other's items it lacks, then with the same new items:
    what RBO_max assumes (section 4.2)."""
    fresh = [f"new-{i}" for i in range(depth)]
    ea = a + [x for x in b if x not in a]
    eb = b + [x for x in a if x not in b]
    return (ea + fresh)[:depth], (eb + fresh)[:depth]


def rbo_min_formula(a: list[str], b: list[str], p: float) -> float:
    """Eq. 11 with k = the longer list's length."""
    k = max(len(a), len(b))
    xk = overlap(a, b, k)
    total = sum((overlap(a, b, d) - xk) * p**d / d for d in range(1, k + 1))
    return (1 - p) / p * (total - xk * math.log(1 - p))


def rbo_ext_formula(a: list[str], b: list[str], p: float) -> float:
    """Eq. 32 (uneven lists; eq. 30 when s == l)."""
    short, long_ = sorted((a, b), key=len)
    s, l_ = len(short), len(long_)
    xs, xl = overlap(a, b, s), overlap(a, b, l_)
    first = sum(overlap(a, b, d) * p**d / d for d in range(1, l_ + 1))
    second = sum(xs * (d - s) / (s * d) * p**d for d in range(s + 1, l_ + 1))
    return (1 - p) / p * (first + second) + ((xl - xs) / l_ + xs / s) * p**l_


def random_lists(rng: np.random.Generator) -> tuple[list[str], list[str]]:
    universe = [f"d{i}" for i in range(int(rng.integers(2, 40)))]
    la = int(rng.integers(1, len(universe) + 1))
    lb = int(rng.integers(1, len(universe) + 1))
    a = list(rng.permutation(universe)[:la])
    b = list(rng.permutation(universe)[:lb])
    return a, b


@pytest.fixture(scope="module")
def evaluated() -> pl.DataFrame:
    runs = ir.read_run(ir.example_path("runs"))
    qrels = ir.read_qrels(ir.example_path("qrels.txt"))
    return ir.evaluate(runs, qrels, ["nDCG@10", "AP", "P@10", "RR"])


def as_mapping(frame: pl.DataFrame, measure: str) -> dict[str, float]:
    sub = frame.filter(pl.col("measure") == measure)
    return dict(zip(sub["run_id"], sub["value"], strict=True))


# --------------------------------------------------------------------------- scipy


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("seed", range(8))
def test_kendall_spearman_pearson_equal_scipy(seed: int, ties: bool) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 60))
    if ties:
        x, y = rng.integers(0, 5, n).astype(float), rng.integers(0, 5, n).astype(float)
    else:
        x, y = rng.random(n), rng.random(n)
    if ties:
        assert len(np.unique(x)) < n  # the case has ties indeed
    a = {f"run{i}": v for i, v in enumerate(x)}
    b = {f"run{i}": v for i, v in enumerate(y)}
    # the mappings are in another order than the vectors: alignment is by run id
    b = dict(reversed(list(b.items())))
    for method, ref in (
        ("kendall", stats.kendalltau(x, y)),
        ("spearman", stats.spearmanr(x, y)),
        ("pearson", stats.pearsonr(x, y)),
    ):
        got = ir.agreement(a, b, method, details=True)
        assert got.coefficient == pytest.approx(ref.statistic, abs=1e-12, rel=0)
        assert got.p_value == pytest.approx(ref.pvalue, abs=1e-12, rel=0)
        assert ir.agreement(a, b, method) == got.coefficient
        assert got.n == n


def test_kendall_is_tau_b_not_tau_a() -> None:
    a = {"r1": 1.0, "r2": 1.0, "r3": 2.0, "r4": 3.0}
    b = {"r1": 1.0, "r2": 2.0, "r3": 3.0, "r4": 4.0}
    # 5 concordant pairs, 1 tied in a: tau-b = 5 / sqrt(5 * 6), tau-a = 5 / 6
    assert ir.agreement(a, b) == pytest.approx(5 / math.sqrt(30), abs=1e-15)


# --------------------------------------------------------------------------- tau_ap


@settings(max_examples=200, deadline=None)
@given(permutation_pairs(2, 40))
def test_tau_ap_equals_the_double_loop(perms: tuple[list[int], list[int]]) -> None:
    ref = [float(v) for v in perms[0]]
    est = [float(v) for v in perms[1]]
    a = {f"r{i}": v for i, v in enumerate(ref)}
    b = {f"r{i}": v for i, v in enumerate(est)}
    assert ir.agreement(a, b, "tau_ap") == pytest.approx(tau_ap_loop(ref, est), abs=1e-12)


def test_tau_ap_identical_reversed_and_asymmetric() -> None:
    rng = np.random.default_rng(7)
    x = rng.random(50)
    a = {f"r{i}": v for i, v in enumerate(x)}
    rev = {f"r{i}": -v for i, v in enumerate(x)}
    assert ir.agreement(a, a, "tau_ap") == pytest.approx(1.0, abs=1e-12)
    assert ir.agreement(a, rev, "tau_ap") == pytest.approx(-1.0, abs=1e-12)
    # a swap at the top of b costs more than one at the bottom; and the order matters
    ref = {"r1": 4.0, "r2": 3.0, "r3": 2.0, "r4": 1.0}
    top = {"r1": 3.0, "r2": 4.0, "r3": 2.0, "r4": 1.0}
    bottom = {"r1": 4.0, "r2": 3.0, "r3": 1.0, "r4": 2.0}
    assert ir.agreement(ref, top, "tau_ap") == pytest.approx(1 / 3, abs=1e-15)
    assert ir.agreement(ref, bottom, "tau_ap") == pytest.approx(7 / 9, abs=1e-15)
    assert ir.agreement(ref, top) == ir.agreement(ref, bottom) == pytest.approx(2 / 3)
    abc = {"A": 3.0, "B": 2.0, "C": 1.0}
    bca = {"A": 1.0, "B": 3.0, "C": 2.0}
    assert ir.agreement(abc, bca, "tau_ap") == pytest.approx(0.0, abs=1e-15)
    assert ir.agreement(bca, abc, "tau_ap") == pytest.approx(-0.5, abs=1e-15)


def test_tau_ap_refuses_ties_naming_the_runs() -> None:
    a = {"bm25": 0.5, "dense": 0.5, "random": 0.1}
    b = {"bm25": 0.4, "dense": 0.6, "random": 0.2}
    undefined = r"tau_ap is undefined with ties.*bm25.*dense.*kendall"
    with pytest.raises(ParameterError, match=undefined):
        ir.agreement(a, b, "tau_ap")
    with pytest.raises(ParameterError, match="b ties runs"):
        ir.agreement(b, a, "tau_ap")


def test_means_equal_up_to_rounding_tie() -> None:
    """Runs b and c have the same three per-query scores in another order: their means,
    0.2 in exact arithmetic, are 0.20000000000000004 and 0.19999999999999998. Every
    ordering method ties them (tau_ap refuses the tie); pearson and ``tolerance=0`` take
    the floats as scipy does."""
    b, c = (sum(v) / 3 for v in ([0.1, 0.1, 0.4], [0.1, 0.4, 0.1]))
    assert b != c
    x = {"a": 0.5, "b": b, "c": c, "d": 0.1}
    y = {"a": 0.6, "b": 0.3, "c": 0.4, "d": 0.2}
    xs, ys = [x[r] for r in "abcd"], [y[r] for r in "abcd"]
    exact = [0.5, 0.2, 0.2, 0.1]
    assert ir.agreement(x, y) == pytest.approx(stats.kendalltau(exact, ys).statistic, abs=1e-15)
    assert ir.agreement(x, y, "spearman") == pytest.approx(
        stats.spearmanr(exact, ys).statistic, abs=1e-15
    )
    assert ir.agreement(x, y, "pearson") == pytest.approx(
        stats.pearsonr(xs, ys).statistic, abs=1e-15
    )
    assert ir.agreement(x, y, tolerance=0) == pytest.approx(
        stats.kendalltau(xs, ys).statistic, abs=1e-15
    )
    assert stats.kendalltau(exact, ys).statistic != pytest.approx(
        stats.kendalltau(xs, ys).statistic
    )
    with pytest.raises(ParameterError, match=r"tau_ap is undefined with ties.*'b', 'c'"):
        ir.agreement(x, y, "tau_ap")
    # the floats put b above c, y puts c above b: 2/3 (1/1 + 1/2 + 3/3) - 1
    assert ir.agreement(x, y, "tau_ap", tolerance=0) == pytest.approx(2 / 3, abs=1e-15)
    with pytest.raises(ParameterError, match=r"tolerance=1: must be a number in \[0, 1\)"):
        ir.agreement(x, y, tolerance=1)


# --------------------------------------------------------------------------- rbo


@pytest.mark.parametrize("p", [0.5, 0.9, 0.98])
@pytest.mark.parametrize("k", [1, 2, 5, 20])
def test_rbo_identical_lists_worked_values(k: int, p: float) -> None:
    items = [f"d{i}" for i in range(k)]
    r = ir.rbo(items, items, p=p)
    # X_d = d: eq. 11 gives 1 - p^k + k (1 - p) / p * sum_{d>k} p^d / d
    tail = -math.log(1 - p) - sum(p**d / d for d in range(1, k + 1))
    assert r.min == pytest.approx(1 - p**k + k * (1 - p) / p * tail, abs=1e-12)
    assert r.ext == pytest.approx(1.0, abs=1e-12)  # eq. 30: all agreement, extrapolated
    assert r.max == pytest.approx(1.0, abs=1e-12)  # f = k: the residual fills up to 1
    assert r.p == p


def test_rbo_worked_values() -> None:
    assert ir.rbo(["a"], ["a"], p=0.5).min == pytest.approx(math.log(2), abs=1e-15)
    disjoint = ir.rbo(["a", "b", "c"], ["x", "y"], p=0.9)
    assert disjoint.min == 0.0
    assert disjoint.ext == 0.0
    # s = 2, l = 3, X_l = 0, f = 5: res = p^2 + p^3 - p^5 - (1-p)/p (2 sum_{3..5} + 3 sum_{4..5})
    p = 0.9
    res = (
        p**2
        + p**3
        - p**5
        - (1 - p)
        / p
        * (2 * sum(p**d / d for d in range(3, 6)) + 3 * sum(p**d / d for d in range(4, 6)))
    )
    assert disjoint.res == pytest.approx(res, abs=1e-15)


@pytest.mark.parametrize("seed", range(40))
def test_rbo_min_and_max_are_the_extreme_continuations(seed: int) -> None:
    """RBO_min and RBO_max = min + res equal RBO of the lists continued as the paper's
    bounds assume, summed directly to a depth where p^depth is negligible."""
    rng = np.random.default_rng(seed)
    a, b = random_lists(rng)
    p = float(rng.choice([0.5, 0.8, 0.9]))
    depth = 400
    r = ir.rbo(a, b, p=p)
    assert r.min == pytest.approx(rbo_truncated(*extend_min(a, b, depth), p, depth), abs=1e-12)
    assert r.max == pytest.approx(rbo_truncated(*extend_max(a, b, depth), p, depth), abs=1e-12)
    assert r.min == pytest.approx(rbo_min_formula(a, b, p), abs=1e-12)
    assert r.ext == pytest.approx(rbo_ext_formula(a, b, p), abs=1e-12)
    assert r.min - 1e-12 <= r.ext <= r.max + 1e-12
    assert r.min >= 0.0
    assert r.max <= 1.0 + 1e-12
    swapped = ir.rbo(b, a, p=p)  # RBO is symmetric
    assert (swapped.min, swapped.res, swapped.ext) == pytest.approx((r.min, r.res, r.ext))


@pytest.mark.parametrize("seed", range(40))
def test_rbo_ext_equals_the_rbo_package(seed: int) -> None:
    rbo_package = pytest.importorskip("rbo", reason="the rbo package (PyPI) is not installed")
    rng = np.random.default_rng(1000 + seed)
    a, b = random_lists(rng)
    p = float(rng.choice([0.5, 0.8, 0.9, 0.98]))
    theirs = rbo_package.RankingSimilarity(a, b).rbo_ext(p=p)
    assert ir.rbo(a, b, p=p).ext == pytest.approx(theirs, abs=1e-12)


def test_rbo_run_frames_query_by_query() -> None:
    runs = ir.read_run(ir.example_path("runs"))
    bm25, dense = runs.filter(run_id="bm25"), runs.filter(run_id="dense")
    out = ir.rbo(bm25, dense.lazy(), p=0.9)
    assert out.columns == list(RBO_COLUMNS)
    assert out.height == 25
    for query in ("101", "113", "125"):

        def ranking(run: pl.DataFrame, q: str = query) -> list[str]:
            sub = run.filter(query_id=q).sort(["score", "doc_id"], descending=True)
            return sub["doc_id"].to_list()

        want = ir.rbo(ranking(bm25), ranking(dense), p=0.9)
        row = out.filter(query_id=query).row(0, named=True)
        assert (row["rbo_min"], row["rbo_res"], row["rbo_ext"]) == pytest.approx(
            (want.min, want.res, want.ext), abs=1e-12
        )
        assert row["rbo_max"] == pytest.approx(want.max, abs=1e-12)


def test_rbo_run_frames_uneven_ties_and_missing_queries() -> None:
    a = pl.DataFrame(
        {
            "query_id": ["1", "1", "1", "2"],
            "doc_id": ["x", "y", "z", "x"],
            "score": [1.0, 1.0, 0.5, 1.0],
        }
    )
    b = pl.DataFrame({"query_id": ["1", "1"], "doc_id": ["y", "w"], "score": [2.0, 1.0]})
    with pytest.raises(MissingQueryError, match=r"only in run_a \['2'\]"):
        ir.rbo(a, b)
    out = ir.rbo(a, b, missing="skip", p=0.8)
    # query 1: a ranks y (tie on score, doc id descending) then x, z; b ranks y, w
    want = ir.rbo(["y", "x", "z"], ["y", "w"], p=0.8)
    assert out["query_id"].to_list() == ["1"]
    assert out.row(0)[1:5] == pytest.approx((want.min, want.res, want.max, want.ext), abs=1e-15)
    assert out.select("overlap", "depth_a", "depth_b").row(0) == (1, 3, 2)


# --------------------------------------------------------------------------- frames


def test_frames_give_the_same_values_as_mappings(evaluated: pl.DataFrame) -> None:
    ndcg, ap = as_mapping(evaluated, "nDCG@10"), as_mapping(evaluated, "AP")
    rr = as_mapping(evaluated, "RR")
    frame_ndcg = evaluated.filter(measure="nDCG@10")
    for method in ("kendall", "spearman", "pearson", "tau_ap", "rbo"):
        assert ir.agreement(
            evaluated, evaluated, method, measure=("nDCG@10", "AP")
        ) == ir.agreement(ndcg, ap, method)
        assert ir.agreement(frame_ndcg, evaluated.lazy(), method, measure=("nDCG@10", "RR")) == (
            ir.agreement(ndcg, rr, method)
        )
    # the example campaign: nDCG@10 and AP order bm25, dense, random alike; RR swaps the top
    assert ir.agreement(evaluated, evaluated, measure=("nDCG@10", "AP")) == pytest.approx(1.0)
    assert ir.agreement(frame_ndcg, evaluated, measure=("nDCG@10", "RR")) == pytest.approx(1 / 3)
    renamed = frame_ndcg.rename({"run_id": "system", "value": "score"}).drop("measure")
    assert ir.agreement(renamed, ap, run_col="system", value_col="score") == ir.agreement(ndcg, ap)


def test_several_measures_need_measure(evaluated: pl.DataFrame) -> None:
    with pytest.raises(ParameterError, match=r"4 measures .*pass measure="):
        ir.agreement(evaluated, evaluated)
    with pytest.raises(ParameterError, match="no measure 'nDCG@20'"):
        ir.agreement(evaluated, evaluated, measure="nDCG@20")
    with pytest.raises(SchemaError, match="no 'run' column"):
        ir.agreement(evaluated, evaluated, measure="AP", run_col="run")


# --------------------------------------------------------------------------- bad input


def test_bad_input() -> None:
    ok = {"bm25": 0.5, "dense": 0.6, "random": 0.2}
    with pytest.raises(EmptyInputError, match="at least 2 runs"):
        ir.agreement({"bm25": 0.5}, {"bm25": 0.4})
    both_sides = r"only in a \(missing from b\): \['random'\].*only in b.*\['splade'\]"
    with pytest.raises(MissingQueryError, match=both_sides):
        ir.agreement(ok, {"bm25": 0.5, "dense": 0.6, "splade": 0.2})
    common = ir.agreement(ok, {"bm25": 0.5, "dense": 0.6, "splade": 0.2}, missing="skip")
    assert common == pytest.approx(1.0)
    with pytest.raises(ScoreError, match=r"b: 1 run\(s\) have a NaN.*\['dense'\]"):
        ir.agreement(ok, {"bm25": 0.5, "dense": float("nan"), "random": 0.2})
    frame = pl.DataFrame({"run_id": ["bm25", "dense", "random"], "value": [0.1, None, 0.3]})
    with pytest.raises(ScoreError, match="dense"):
        ir.agreement(frame, ok)
    unknown = r"coefficient='kendal' is unknown \(did you mean 'kendall'"
    with pytest.raises(ParameterError, match=unknown):
        ir.agreement(ok, ok, "kendal")
    for p in (0.0, 1.0, -0.5, 1.5, float("nan")):
        with pytest.raises(ParameterError, match="strictly between 0 and 1"):
            ir.agreement(ok, ok, "rbo", p=p)
        with pytest.raises(ParameterError, match="strictly between 0 and 1"):
            ir.rbo(["a"], ["a"], p=p)
    with pytest.raises(ParameterError, match="takes none"):
        ir.agreement(ok, ok, "kendall", p=0.9)
    with pytest.raises(DuplicateError, match=r"ranking_b holds 'a' twice \(ranks 1 and 3\)"):
        ir.rbo(["a", "b"], ["a", "c", "a"])
    with pytest.raises(EmptyInputError, match="ranking_a is empty"):
        ir.rbo([], ["a"])
    dup = pl.DataFrame({"run_id": ["bm25", "bm25", "dense"], "value": [0.1, 0.2, 0.3]})
    with pytest.raises(DuplicateError, match=r"runs \['bm25'\] have several rows"):
        ir.agreement(dup, ok)
    with pytest.raises(ParameterError, match="rbo is undefined with ties"):
        ir.agreement(ok, {"bm25": 0.5, "dense": 0.5, "random": 0.2}, "rbo")


def test_rbo_takes_pandas_and_arrow_run_frames_as_polars_ones() -> None:
    pytest.importorskip("pandas")
    runs = ir.read_run(ir.example_path("runs"))
    bm25, dense = runs.filter(run_id="bm25"), runs.filter(run_id="dense")
    want = ir.rbo(bm25, dense)
    # before: the pandas frames were iterated as sequences of column names (ext 1.0)
    assert ir.rbo(bm25.to_pandas(), dense.to_pandas()).equals(want)
    assert ir.rbo(bm25.to_arrow(), dense.lazy()).equals(want)
    assert want["rbo_ext"].mean() == pytest.approx(0.1851, abs=1e-4)
    with pytest.raises(SchemaError, match="not one of each"):
        ir.rbo(bm25.to_pandas(), ["a", "b"])


@pytest.mark.parametrize(
    ("a", "b", "match"),
    [
        ({"a", "b", "c"}, ["a", "b", "c"], r"ranking_a is a set: rbo takes ordered sequences"),
        (["a", "b"], {"a": 1, "b": 2}, r"ranking_b is a dict: rbo takes ordered sequences"),
        ([1, 2, 3], ["1", "2", "3"], r"ranking_a's ids are number and ranking_b's str"),
        (5, ["a"], r"ranking_a=5 \(int\) is not a sequence of ids"),
        (None, ["a"], r"ranking_a=None \(NoneType\) is not a sequence of ids"),
        (np.array([[1, 2], [3, 4]]), [1, 2], r"ranking_a has 2 dimensions \(shape \(2, 2\)\)"),
        ([["a"], ["b"]], [["a"]], r"ranking_a holds \['a'\] \(list\) at rank 1, not an id"),
        ([None, "a"], ["a"], r"ranking_a holds a missing id \(None\) at rank 1"),
        (["a", float("nan")], ["a"], r"ranking_a holds a missing id \(nan\) at rank 2"),
        ("abc", ["a"], r"not a string \(a string is one id"),
    ],
)
def test_rbo_refuses_what_is_not_a_ranking(a: object, b: object, match: str) -> None:
    with pytest.raises(SchemaError, match=match):
        ir.rbo(a, b)  # type: ignore[call-overload]


def test_rbo_ids_of_one_kind_match_across_containers() -> None:
    # numpy and Python integers are the same ids; numpy strings are strings
    assert ir.rbo(np.array([1, 2, 3]), [1, 2, 3]).ext == pytest.approx(1.0)
    assert ir.rbo(np.array(["a", "b"]), pl.Series(["a", "b"])).ext == pytest.approx(1.0)
    assert ir.rbo(("a", "b"), ["b", "a"], p=np.float32(0.5)).p == 0.5


def test_agreement_refuses_wrong_types_naming_the_value() -> None:
    ok = {"bm25": 0.5, "dense": 0.6, "random": 0.2}
    with pytest.raises(ParameterError, match=r"details='no': must be True or False"):
        ir.agreement(ok, ok, details="no")  # type: ignore[call-overload]
    with pytest.raises(ScoreError, match=r"a: the score of run 'bm25' is '0.5' \(str\)"):
        ir.agreement({**ok, "bm25": "0.5"}, ok)
    with pytest.raises(ScoreError, match=r"b: the score of run 'dense' is True \(bool\)"):
        ir.agreement(ok, {**ok, "dense": True})
    three = r"measure=\('AP', 'P@10', 'x'\): give one measure name or a pair"
    with pytest.raises(ParameterError, match=three):
        ir.agreement(ok, ok, measure=("AP", "P@10", "x"))  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match=r"measure=5: a measure is named by a str"):
        ir.agreement(ok, ok, measure=5)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match=r"tolerance='x': must be a number in \[0, 1\)"):
        ir.agreement(ok, ok, tolerance="x")  # type: ignore[arg-type]
    # numpy numbers are numbers
    assert ir.agreement(ok, ok, "rbo", p=np.float32(0.5)) == ir.agreement(ok, ok, "rbo", p=0.5)
    assert ir.agreement(ok, ok, tolerance=np.float32(0.0)) == pytest.approx(1.0)
    as_numpy = {k: np.float32(v) for k, v in ok.items()}
    assert ir.agreement(as_numpy, ok) == pytest.approx(1.0)


def test_agreement_measure_pair_as_a_list(evaluated: pl.DataFrame) -> None:
    pair = ir.agreement(evaluated, evaluated, measure=("nDCG@10", "RR"))
    assert ir.agreement(evaluated, evaluated, measure=["nDCG@10", "RR"]) == pair  # type: ignore[arg-type]


def test_agreement_on_empty_input_is_an_empty_input_error(evaluated: pl.DataFrame) -> None:
    ap = evaluated.filter(measure="AP")
    with pytest.raises(EmptyInputError, match="a: the frame holds no scores"):
        ir.agreement(ap.clear(), ap)
    with pytest.raises(EmptyInputError, match="b: the frame holds no scores"):
        ir.agreement(ap, ap.clear().lazy(), measure="AP")
    with pytest.raises(EmptyInputError, match="b: the frame holds no scores"):
        ir.agreement(ap, ap.clear().drop("measure"))
    with pytest.raises(EmptyInputError, match="a: the mapping holds no scores"):
        ir.agreement({}, {"bm25": 0.5, "dense": 0.6})


# --------------------------------------------------------------------------- docs


def test_docs_page_example_prints_what_it_shows() -> None:
    page = (ROOT / "docs" / "agreement.md").read_text()
    match = re.search(r"```python\n(.*?)```\n\n```text\n(.*?)```", page, re.S)
    assert match, "docs/agreement.md lost its example"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(match.group(1), {})
    assert printed.getvalue() == match.group(2)
