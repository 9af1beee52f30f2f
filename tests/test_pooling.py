"""Pools and judging simulations (polars_ireval.analysis.pooling, polars_ireval.analysis.judging).

Seed 002 (Moffat, Webber, Zobel, SIGIR 2007) prints its own numbers in Table 1; the batch
loop is checked against a literal, one-document-at-a-time implementation of the seed's
formulas in exact arithmetic (:func:`oracle`), and the simulation's RBP against
``ir.evaluate``.
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy import stats

import polars_ireval as ir
from polars_ireval.analysis.pooling import METHODS
from polars_ireval.errors import (
    DuplicateError,
    EmptyInputError,
    FormatError,
    MissingQueryError,
    ParameterError,
    SchemaError,
    ScoreError,
)
from polars_ireval.io.pools import pool_text
from tests.support import nearly_unjudged

# --------------------------------------------------------------------------- fixtures

TABLE1 = {
    "1": [18, 22, 15, 13, 11, 25, 10, 84],
    "2": [22, 10, 11, 19, 38, 18, 33, 17],
    "3": [21, 35, 16, 11, 38, 33, 18, 17],
    "4": [10, 18, 11, 22, 87, 13, 17, 20],
}


def table1_runs() -> pl.DataFrame:
    return pl.DataFrame(
        [
            {"run_id": r, "query_id": "q", "doc_id": str(d), "score": 8.0 - i}
            for r, docs in TABLE1.items()
            for i, d in enumerate(docs)
        ]
    )


def campaign(seed: int, *, runs: int = 4, queries: int = 3, docs: int = 14) -> pl.DataFrame:
    """A random campaign with score ties (scores rounded), rankings of varied lengths."""
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(runs):
        for q in range(queries):
            n = int(rng.integers(4, docs))
            picked = rng.choice(docs, size=n, replace=False)
            scores = np.round(rng.random(n) * 4) / 4  # ties
            for d, s in zip(picked, scores, strict=True):
                rows.append((f"r{r}", f"q{q}", f"d{d:02d}", float(s)))
    return pl.DataFrame(rows, schema=["run_id", "query_id", "doc_id", "score"], orient="row")


def judgments(runs: pl.DataFrame, seed: int, share: float = 0.7) -> pl.DataFrame:
    """Qrels judging a random share of the retrieved documents, grades 0-2."""
    rng = np.random.default_rng(seed)
    cands = runs.select("query_id", "doc_id").unique().sort("query_id", "doc_id")
    keep = rng.random(cands.height) < share
    grades = rng.integers(0, 3, size=cands.height)
    return cands.with_columns(relevance=pl.Series(grades)).filter(pl.Series(keep))


# --------------------------------------------------------------------------- the oracle


def trec_rankings(runs: pl.DataFrame) -> dict[str, dict[str, list[str]]]:
    """run -> query -> documents, scores descending, ties by doc id descending."""
    out: dict[str, dict[str, list[tuple[float, str]]]] = {}
    for run, query, doc, score in runs.iter_rows():
        out.setdefault(run, {}).setdefault(query, []).append((score, doc))
    return {
        run: {q: [d for _, d in sorted(v, reverse=True)] for q, v in by_q.items()}
        for run, by_q in out.items()
    }


def oracle(
    runs: pl.DataFrame,
    method: str,
    *,
    budget: int,
    batch: int = 1,
    p: Fraction = Fraction(4, 5),
    per_query: bool = False,
    qrels: dict[tuple[str, str], int] | None = None,
    unknown: str = "nonrelevant",
    judged0: dict[tuple[str, str], int] | None = None,
    level: int = 1,
) -> list[tuple[str, str, str, Fraction]]:
    """Seed 002's procedure written out literally, in exact arithmetic: before each batch,
    every run's base and residual on every query and every candidate's weight are computed
    from the judgments made so far; the batch takes the heaviest candidates (ties: Method
    A's order), per query with ``per_query``. With ``unknown="skip"`` a scan passes over
    documents the qrels never judged; one that runs out of judged documents (of a query,
    per query) passes over every remaining candidate. Returns (query, doc, status, weight)
    in order."""
    rankings = trec_rankings(runs)
    order = sorted(rankings)

    def c(rank: int) -> Fraction:
        return (1 - p) * p ** (rank - 1)

    where: dict[tuple[str, str], list[tuple[str, int]]] = {}
    for run in order:
        for q, docs in rankings[run].items():
            for i, d in enumerate(docs, 1):
                where.setdefault((q, d), []).append((run, i))

    def a_key(cand: tuple[str, str]) -> tuple[object, ...]:
        total = sum(c(i) for _, i in where[cand])
        best = min(i for _, i in where[cand])
        first = min(order.index(r) for r, i in where[cand] if i == best)
        return (-total, best, first, cand[0], cand[1])

    tiebreak = {cand: n for n, cand in enumerate(sorted(where, key=a_key))}
    judged: dict[tuple[str, str], int] = dict(judged0 or {})
    done: set[tuple[str, str]] = set(judged)
    spent: dict[str, int] = {}
    out: list[tuple[str, str, str, Fraction]] = []
    power = {"A": None, "B": 0, "B_mid": 1, "C": 3}[method]

    def factor(run: str, q: str) -> Fraction:
        if power is None:
            return Fraction(1)
        docs = rankings[run][q]
        resid = sum(c(i) for i, d in enumerate(docs, 1) if (q, d) not in judged)
        resid += p ** len(docs)
        base = sum(c(i) for i, d in enumerate(docs, 1) if judged.get((q, d), -1) >= level)
        return resid * (base + resid / 2) ** power

    def room(q: str) -> int:
        if per_query:
            return min(batch, budget - spent.get(q, 0))
        return min(batch, budget - sum(spent.values()))

    while True:
        options = [cand for cand in where if cand not in done and room(cand[0]) > 0]
        if not options:
            break
        f = {(r, q): factor(r, q) for r in order for q in rankings[r]}
        weight = {o: Fraction(sum(c(i) * f[(r, o[0])] for r, i in where[o])) for o in options}
        ranked = sorted(options, key=lambda o: (-weight[o], tiebreak[o]))
        taken: dict[str, int] = {}
        picks = []
        for cand in ranked:
            scope = cand[0] if per_query else ""
            if taken.get(scope, 0) >= room(cand[0]):
                continue
            done.add(cand)
            if qrels is not None and cand not in qrels and unknown == "skip":
                out.append((*cand, "bypassed", weight[cand]))
                continue
            status = "judged" if qrels is None or cand in qrels else "unknown"
            out.append((*cand, status, weight[cand]))
            picks.append(cand)
            taken[scope] = taken.get(scope, 0) + 1
        if not picks:
            break
        for cand in picks:  # the batch's judgments arrive together
            judged[cand] = qrels.get(cand, 0) if qrels is not None else 0
            spent[cand[0]] = spent.get(cand[0], 0) + 1
    return out


def as_dict(qrels: pl.DataFrame) -> dict[tuple[str, str], int]:
    return {(q, d): r for q, d, r in qrels.select("query_id", "doc_id", "relevance").iter_rows()}


# --------------------------------------------------------------------------- seed 002, Table 1


def test_table1_pooling_order() -> None:
    pool = ir.pool(table1_runs(), method="max", budget=9)
    assert pool["doc_id"].to_list() == ["18", "22", "21", "10", "35", "15", "11", "16", "13"]
    assert pool["order"].to_list() == list(range(1, 10))


def test_table1_rank_weights_as_printed() -> None:
    # the header row of Table 1: (1 - p) p^(i-1) for ranks 1..8, two decimals
    pool = ir.pool(table1_runs(), method="depth", depth=8)
    weights = sorted(set(pool["weight"].round(2).to_list()), reverse=True)
    assert weights == [0.20, 0.16, 0.13, 0.10, 0.08, 0.07, 0.05, 0.04]


def test_table1_method_a_order_and_weights() -> None:
    pool = ir.pool(table1_runs(), method="A", budget=6)
    assert pool["doc_id"].to_list() == ["18", "22", "11", "10", "21", "13"]
    assert pool["weight"].round(2).to_list() == [0.48, 0.46, 0.44, 0.41, 0.20, 0.17]


def test_table1_judged_weight_and_residual_after_six_judgments() -> None:
    runs = table1_runs()
    pool = ir.pool(runs, method="A", budget=6)
    # every judged document relevant: each run's RBP base is the weight it has judged
    qrels = pool.select("query_id", "doc_id", pl.lit(1).alias("relevance"))
    out = ir.evaluate(runs, qrels, ["RBP(p=0.8)"], per_query=True, residuals=True).sort("run_id")
    judged = set(pool["doc_id"].to_list())
    # the table adds each judged rank's weight rounded to two decimals
    printed = [
        round(
            sum(round(0.2 * 0.8 ** (i - 1), 2) for i, d in enumerate(docs, 1) if str(d) in judged),
            2,
        )
        for docs in TABLE1.values()
    ]
    assert printed == [0.59, 0.56, 0.35, 0.66]
    assert [round(1 - t, 2) for t in printed] == [0.41, 0.44, 0.65, 0.34]
    exact = out["value"].to_list()
    assert exact == pytest.approx([0.5967488, 0.553536, 0.3548288, 0.655936], abs=1e-12)
    # the residual covers the unjudged ranks and everything past rank 8: 1 - judged weight
    assert out["residual"].to_list() == pytest.approx([1 - v for v in exact], abs=1e-12)
    # Table 1's own rounding puts run 2 at 0.56 (0.20+0.16+0.13+0.07) where the exact
    # 0.5535 rounds to 0.55, and its residual at 0.44 (exact 0.4465)
    assert [round(v, 2) for v in exact] == [0.60, 0.55, 0.35, 0.66]
    # The seed says "The average residual over the four runs is 0.49". That does not follow
    # from its own rows: (0.41 + 0.44 + 0.65 + 0.34) / 4 = 0.46, and the exact residuals
    # average 0.4597, also 0.46.
    assert sum(1 - t for t in printed) / 4 == pytest.approx(0.46)
    assert out["residual"].mean() == pytest.approx(0.4597376, abs=1e-12)
    assert round(out["residual"].mean(), 2) == 0.46 != 0.49


def test_table1_run3_has_the_largest_residual() -> None:
    # "Run 3 has a residual nearly twice as large as Run 4" under Method A's six judgments
    runs = table1_runs()
    pool = ir.pool(runs, method="A", budget=6)
    qrels = pool.select("query_id", "doc_id", pl.lit(0).alias("relevance"))
    out = ir.evaluate(runs, qrels, ["RBP(p=0.8)"], per_query=True, residuals=True)
    resid = dict(zip(out["run_id"], out["residual"], strict=True))
    assert max(resid, key=resid.__getitem__) == "3"
    assert 1.8 < resid["3"] / resid["4"] < 1.9


# --------------------------------------------------------------------------- pools


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("depth", [1, 3, 6])
def test_depth_pool_is_the_union_of_every_runs_top_d(seed: int, depth: int) -> None:
    runs = campaign(seed)
    pool = ir.pool(runs, method="depth", depth=depth)
    tops = (
        runs.sort(["score", "doc_id"], descending=True)
        .group_by("run_id", "query_id", maintain_order=True)
        .head(depth)
        .select("query_id", "doc_id")
        .unique()
    )
    assert set(pool.select("query_id", "doc_id").iter_rows()) == set(tops.iter_rows())
    assert pool.height == tops.height  # each document once
    assert pool["order"].to_list() == list(range(1, pool.height + 1))


@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("per_query", [False, True])
def test_a_budget_of_every_candidate_judges_every_candidate(method: str, per_query: bool) -> None:
    runs = campaign(4)
    cands = runs.select("query_id", "doc_id").unique()
    budget = cands.height
    pool = ir.pool(runs, method=method, budget=budget, per_query=per_query, batch=budget)
    assert pool.height == cands.height
    assert set(pool.select("query_id", "doc_id").iter_rows()) == set(cands.iter_rows())


def test_method_a_with_one_run_is_that_run_in_rank_order() -> None:
    runs = campaign(5, runs=1, queries=1)
    pool = ir.pool(runs.drop("run_id"), method="A")
    ranked = runs.sort(["score", "doc_id"], descending=True)["doc_id"].to_list()
    assert pool["doc_id"].to_list() == ranked
    assert pool["weight"].to_list() == pytest.approx([0.2 * 0.8**i for i in range(len(ranked))])


def test_the_pool_does_not_depend_on_the_order_of_the_rows() -> None:
    runs = campaign(6, runs=6, queries=4)
    shuffled = runs.sample(fraction=1.0, shuffle=True, seed=7)
    for method in METHODS:
        a = ir.pool(runs, method=method, budget=40, depth=10)
        b = ir.pool(shuffled, method=method, budget=40, depth=10)
        assert a.equals(b), method


def test_a_global_budget_interleaves_queries_level_by_level() -> None:
    runs = campaign(8, runs=3, queries=4)
    pool = ir.pool(runs, method="max", budget=6)
    # the first level: every run's top document, queries in turn within each run
    tops = (
        runs.sort(["score", "doc_id"], descending=True)
        .group_by("run_id", "query_id", maintain_order=True)
        .head(1)
    )
    assert set(pool.select("query_id", "doc_id").iter_rows()) <= set(
        tops.select("query_id", "doc_id").iter_rows()
    )
    assert pool["query_id"].n_unique() == 4


def test_per_query_budgets() -> None:
    runs = campaign(9, runs=4, queries=3)
    for method in METHODS:
        pool = ir.pool(runs, method=method, budget=3, per_query=True, batch=3)
        counts = pool.group_by("query_id").len()["len"].to_list()
        assert max(counts) <= 3, method
        if method != "depth":
            assert counts == [3, 3, 3], method


def test_depth_with_a_budget_takes_whole_levels() -> None:
    runs = campaign(10, runs=4, queries=3)
    levels = ir.pool_depths(runs).group_by("depth").len().sort("depth")["len"].to_list()
    fits = levels[0] + levels[1] + 1  # two levels and one document of the third
    pool = ir.pool(runs, method="depth", budget=fits)
    assert pool.height == levels[0] + levels[1]
    assert pool.equals(ir.pool(runs, method="depth", depth=2))
    with pytest.raises(ParameterError, match="depth 1"):
        ir.pool(runs, method="depth", budget=levels[0] - 1)


def test_depth_caps_the_candidates_of_every_method() -> None:
    runs = campaign(11)
    depth_pool = set(
        ir.pool(runs, method="depth", depth=2).select("query_id", "doc_id").iter_rows()
    )
    for method in ("max", "A", "B", "C"):
        pool = ir.pool(runs, method=method, depth=2, budget=1000, batch=1000)
        assert set(pool.select("query_id", "doc_id").iter_rows()) == depth_pool, method


def test_contributors_only_make_the_pool() -> None:
    runs = campaign(12, runs=5)
    pool = ir.pool(runs, method="depth", depth=3, contributors=["r0", "r3"])
    only = ir.pool(runs.filter(pl.col("run_id").is_in(["r0", "r3"])), method="depth", depth=3)
    assert pool.equals(only)


def test_judged_documents_are_not_chosen_again() -> None:
    runs = campaign(13)
    judged = judgments(runs, 14, share=0.4)
    for method in METHODS:
        pool = ir.pool(runs, method=method, budget=10, depth=5, qrels=judged)
        assert pool.join(judged, on=["query_id", "doc_id"], how="semi").height == 0, method


def test_lazy_runs_give_the_same_pool() -> None:
    runs = campaign(15)
    for method in ("depth", "A", "C"):
        a = ir.pool(runs, method=method, budget=12, depth=4)
        b = ir.pool(runs.lazy(), method=method, budget=12, depth=4)
        assert a.equals(b)


# --------------------------------------------------------------------------- the batches


@pytest.mark.parametrize("seed", [21, 22, 23])
@pytest.mark.parametrize("method", ["B", "B_mid", "C"])
@pytest.mark.parametrize("per_query", [False, True])
@pytest.mark.parametrize("unknown", ["nonrelevant", "skip"])
def test_batches_of_one_are_the_seeds_procedure(
    seed: int, method: str, per_query: bool, unknown: str
) -> None:
    runs = campaign(seed, runs=4, queries=2, docs=10)
    qrels = judgments(runs, seed + 100, share=0.75)
    budget = 6 if per_query else 12
    sim = ir.simulate_judging(
        runs,
        qrels,
        methods=[method],
        budgets=[budget],
        batch=1,
        per_query=per_query,
        unknown=unknown,  # type: ignore[arg-type]
    )
    got = sim.judgments.sort("order").select("query_id", "doc_id", "status").rows()
    want = [
        o[:3]
        for o in oracle(
            runs, method, budget=budget, per_query=per_query, qrels=as_dict(qrels), unknown=unknown
        )
    ]
    if per_query:  # queries are independent: compare each one's sequence
        for q in {w[0] for w in want} | {g[0] for g in got}:
            assert [g for g in got if g[0] == q] == [w for w in want if w[0] == q]
    else:
        assert got == want


@pytest.mark.parametrize("seed", [31, 32])
def test_method_b_pool_with_batches_of_one_is_the_seeds_procedure(seed: int) -> None:
    runs = campaign(seed, runs=5, queries=2, docs=10)
    pool = ir.pool(runs, method="B", budget=10, batch=1)
    want = oracle(runs, "B", budget=10)
    assert pool.select("query_id", "doc_id").rows() == [(q, d) for q, d, _, _ in want]
    np.testing.assert_allclose(pool["weight"], [float(w) for *_, w in want], rtol=1e-12)


@pytest.mark.parametrize("seed", [33, 34])
@pytest.mark.parametrize("method", ["B", "C"])
@pytest.mark.parametrize("per_query", [False, True])
def test_batches_of_several_documents(seed: int, method: str, per_query: bool) -> None:
    runs = campaign(seed, runs=5, queries=3, docs=12)
    qrels = judgments(runs, seed + 1, share=0.8)
    budget = 5 if per_query else 14
    sim = ir.simulate_judging(
        runs, qrels, methods=[method], budgets=[budget], batch=3, per_query=per_query
    )
    got = sim.judgments.sort("order").select("query_id", "doc_id", "status", "weight").rows()
    want = oracle(runs, method, budget=budget, batch=3, per_query=per_query, qrels=as_dict(qrels))
    key = (lambda o: o[0]) if per_query else (lambda o: "")
    for q in {key(o) for o in want}:
        mine = [g for g in got if key(g) == q]
        theirs = [w for w in want if key(w) == q]
        if not per_query:  # within a batch: by weight, as the oracle
            assert [g[:3] for g in mine] == [w[:3] for w in theirs]
        else:  # per query the batches interleave queries: compare each query's batches
            assert sorted(g[:3] for g in mine) == sorted(w[:3] for w in theirs)
            assert [g[:2] for g in mine] == [w[:2] for w in theirs]
        np.testing.assert_allclose([g[3] for g in mine], [float(w[3]) for w in theirs], rtol=1e-12)


@pytest.mark.parametrize("method", ["B_mid", "C"])
def test_the_next_batch_follows_the_judgments_made(method: str) -> None:
    runs = campaign(41, runs=5, queries=2, docs=10)
    judged = judgments(runs, 42, share=0.3)
    pool = ir.pool(runs, method=method, budget=4, qrels=judged)
    # one batch: the four heaviest documents under the current bases and residuals
    want = oracle(runs, method, budget=4, batch=4, judged0=as_dict(judged))
    assert pool.select("query_id", "doc_id").rows() == [w[:2] for w in want]
    np.testing.assert_allclose(pool["weight"], [float(w[3]) for w in want], rtol=1e-12)


def test_method_c_favours_the_runs_that_score() -> None:
    # two runs share nothing; run "good" has its judged document relevant, "bad" not:
    # Method C then asks for good's documents (f = 0.8 (0.2 + 0.4)^3 = 0.1728 against
    # 0.8 (0 + 0.4)^3 = 0.0512), Method B treats the runs alike
    good = [f"g{i}" for i in range(10)]
    bad = [f"b{i}" for i in range(10)]
    runs = pl.DataFrame(
        {
            "run_id": ["good"] * 10 + ["bad"] * 10,
            "query_id": "q",
            "doc_id": good + bad,
            "score": list(range(10, 0, -1)) * 2,
        }
    )
    judged = pl.DataFrame({"query_id": "q", "doc_id": ["g0", "b0"], "relevance": [1, 0]})
    c = ir.pool(runs, method="C", budget=4, qrels=judged)["doc_id"].to_list()
    assert c == ["g1", "g2", "g3", "g4"]
    b = ir.pool(runs, method="B", budget=4, qrels=judged, batch=1)["doc_id"].to_list()
    assert sorted(b) == ["b1", "b2", "g1", "g2"]


# --------------------------------------------------------------------------- simulation


@pytest.fixture(scope="module")
def sim_inputs() -> tuple[pl.DataFrame, pl.DataFrame]:
    runs = campaign(51, runs=6, queries=4, docs=20)
    return runs, judgments(runs, 52, share=0.6)


def test_projection_of_a_nearly_unjudged_ranking_is_exact() -> None:
    """A ranking whose one judged document, relevant, lies at rank 82: its judged weight,
    0.2 * 0.8^81 = 2.8e-9, is all its base, so RBP's projection is exactly 1. Computed from
    the residual, 1 - residual keeps about 7 of the weight's digits (the projection came
    out 1 - 1.3e-7); the simulation divides by the judged weight summed itself."""
    run, qrels = nearly_unjudged()
    sim = ir.simulate_judging(run, qrels, methods=["A"], budgets=[5], unknown="skip")
    got = sim.per_query.sort("run_id")
    assert got["value"].to_list() == pytest.approx([0.2 * 0.8**81, 0.2], rel=1e-15)
    assert got["projected"].to_list() == [1.0, 1.0]


@pytest.mark.parametrize("unknown", ["nonrelevant", "skip"])
def test_simulated_rbp_is_evaluate_on_the_judged_subset(
    sim_inputs: tuple[pl.DataFrame, pl.DataFrame], unknown: str
) -> None:
    runs, qrels = sim_inputs
    sim = ir.simulate_judging(
        runs,
        qrels,
        methods=["depth", "max", "A", "B", "C"],
        budgets=[15, 40],
        batch=3,
        unknown=unknown,  # type: ignore[arg-type]
    )
    for (method, budget), part in sim.judgments.group_by("method", "budget"):
        sub = part.filter(pl.col("status") != "bypassed").select(
            "query_id", "doc_id", pl.col("relevance").fill_null(0)
        )
        want = ir.evaluate(runs, sub, ["RBP(p=0.8)"], per_query=True, residuals=True)
        got = sim.per_query.filter((pl.col("method") == method) & (pl.col("budget") == budget))
        joined = got.join(want, on=["run_id", "query_id"], suffix="_ev")
        assert joined.height == want.height
        for col in ("value", "residual"):
            np.testing.assert_allclose(joined[col], joined[f"{col}_ev"], atol=1e-12)
        np.testing.assert_allclose(
            joined["projected"].fill_null(-1), joined["projected_ev"].fill_null(-1), atol=1e-9
        )
    full = ir.evaluate(runs, qrels, ["RBP(p=0.8)"], residuals=True).sort("run_id")
    ref = sim.reference.sort("run_id")
    np.testing.assert_allclose(ref["value"], full["value"], atol=1e-12)
    np.testing.assert_allclose(ref["residual"], full["residual"], atol=1e-12)


def test_simulation_counts_and_policies(sim_inputs: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    runs, qrels = sim_inputs
    grades = as_dict(qrels)
    for unknown in ("nonrelevant", "skip"):
        sim = ir.simulate_judging(
            runs,
            qrels,
            methods=["max", "A", "C"],
            budgets=[10, 30],
            batch=4,
            unknown=unknown,
        )
        for row in sim.summary.iter_rows(named=True):
            part = sim.judgments.filter(
                (pl.col("method") == row["method"]) & (pl.col("budget") == row["budget"])
            )
            asked = list(part.select("query_id", "doc_id").iter_rows())
            not_judged = [a for a in asked if a not in grades]
            assert row["considered"] == len(asked)
            assert row["unknown"] == len(not_judged)
            assert row["relevant"] == sum(1 for a in asked if grades.get(a, -1) >= 1)
            if unknown == "nonrelevant":
                assert row["judged"] == len(asked) == row["budget"]
                assert set(part["status"]) <= {"judged", "unknown"}
            else:
                assert row["judged"] == len(asked) - len(not_judged) == row["budget"]
                assert set(part["status"]) <= {"judged", "bypassed"}
                # nothing bypassed after the last judgment
                assert part.sort("order")["status"][-1] == "judged"


def runs_out_inputs() -> tuple[pl.DataFrame, pl.DataFrame]:
    """Two runs with one ranking: q1 ranks a..e, of which the qrels judge a (1) and c (0)
    only; q2 ranks x, y, z, all judged (1, 0, 1). Every method asks in rank order."""
    one = pl.DataFrame(
        {
            "query_id": ["q1"] * 5 + ["q2"] * 3,
            "doc_id": ["a", "b", "c", "d", "e", "x", "y", "z"],
            "score": [5.0, 4, 3, 2, 1, 3, 2, 1],
        }
    )
    run = pl.concat([one.with_columns(run_id=pl.lit(r)) for r in ("r", "s")])
    qrels = pl.DataFrame(
        {
            "query_id": ["q1", "q1", "q2", "q2", "q2"],
            "doc_id": ["a", "c", "x", "y", "z"],
            "relevance": [1, 0, 1, 0, 1],
        }
    )
    return run, qrels


@pytest.mark.parametrize("unknown", ["skip", "nonrelevant"])
def test_a_query_whose_qrels_run_out_has_every_candidate_considered(unknown: str) -> None:
    # Per-query budgets 1, 3, 4. skip: at budget 1, q1 asks for a (judged), q2 for x: 2
    # considered. At 3 and 4, q1 never gets 3 judgments (its qrels judge a and c only), so
    # it asks for all five documents, bypassing b, d and e; q2 judges x, y, z: 5 judged,
    # 8 considered, 3 unknown, 3 relevant (a, x, z). nonrelevant: each unjudged document
    # costs a judgment: budget 3 takes a b c + x y z (6, b unknown), budget 4 a b c d +
    # x y z (7, b and d unknown).
    run, qrels = runs_out_inputs()
    methods = ["depth", "max", "A", "B", "B_mid", "C"]
    sim = ir.simulate_judging(
        run, qrels, methods=methods, budgets=[1, 3, 4], per_query=True, batch=1,
        unknown=unknown,  # type: ignore[arg-type]
    )  # fmt: skip
    if unknown == "skip":
        want = {1: (2, 2, 0, 2), 3: (5, 8, 3, 3), 4: (5, 8, 3, 3)}
        if_depth = {1: (2, 3, 1, 2)}  # whole levels: b costs nothing, so level 2 fits
    else:
        want = {1: (2, 2, 0, 2), 3: (6, 6, 1, 3), 4: (7, 7, 2, 3)}
        if_depth = {}
    for row in sim.summary.iter_rows(named=True):
        counts = (row["judged"], row["considered"], row["unknown"], row["relevant"])
        expected = (if_depth if row["method"] == "depth" else {}).get(row["budget"])
        assert counts == (expected or want[row["budget"]]), row
    q1 = sim.judgments.filter(pl.col("budget") == 4, pl.col("query_id") == "q1")
    for method in methods:
        docs = q1.filter(pl.col("method") == method).sort("order")
        assert docs["doc_id"].to_list() == (
            ["a", "b", "c", "d", "e"] if unknown == "skip" else ["a", "b", "c", "d"]
        )


@pytest.mark.parametrize("method", ["A", "B", "C"])
def test_a_global_budget_beyond_the_judged_documents_considers_every_candidate(
    method: str,
) -> None:
    # over all queries: 5 judged documents for a budget of 6, so every one of the 8
    # candidates is asked for; a budget of 5 stops at the fifth judgment (z, the last
    # candidate of the pooling order: a x b y c z d e, by rank then query)
    run, qrels = runs_out_inputs()
    sim = ir.simulate_judging(run, qrels, methods=[method], budgets=[5, 6], unknown="skip")
    got = sim.summary.select("budget", "judged", "considered", "unknown").rows()
    considered_at_5 = len(sim.judgments.filter(pl.col("budget") == 5))
    assert got == [(5, 5, considered_at_5, considered_at_5 - 5), (6, 5, 8, 3)]


@pytest.mark.parametrize("seed", [61, 63])
@pytest.mark.parametrize("method", ["A", "B", "C"])
@pytest.mark.parametrize("per_query", [False, True])
@pytest.mark.parametrize("batch", [1, 3])
def test_a_scan_that_runs_out_of_judged_documents_is_the_seeds_procedure(
    seed: int, method: str, per_query: bool, batch: int
) -> None:
    # few judgments: the budget outruns them, and the scan passes every remaining candidate
    runs = campaign(seed, runs=4, queries=3, docs=10)
    qrels = judgments(runs, seed + 100, share=0.3)
    runs = runs.join(qrels.select("query_id").unique(), on="query_id", how="semi")
    budget = 6 if per_query else qrels.height + 1
    sim = ir.simulate_judging(
        runs, qrels, methods=[method], budgets=[budget], batch=batch, per_query=per_query,
        unknown="skip",
    )  # fmt: skip
    got = sim.judgments.sort("order").select("query_id", "doc_id", "status").rows()
    want = [
        o[:3]
        for o in oracle(
            runs, method, budget=budget, batch=batch, per_query=per_query,
            qrels=as_dict(qrels), unknown="skip",
        )
    ]  # fmt: skip
    # the corner is reached: a scan (of a query) ends with documents it bypassed
    scopes = {w[0] if per_query else "" for w in want}
    last = {s: [w for w in want if s in ("", w[0])][-1][2] for s in scopes}
    assert "bypassed" in last.values()
    for s in scopes:
        mine = [g for g in got if s in ("", g[0])]
        theirs = [w for w in want if s in ("", w[0])]
        if method == "A" or batch == 1 or not per_query:
            assert mine == theirs
        else:  # per query the batches interleave queries: compare each query's documents
            assert [g[:2] for g in mine] == [w[:2] for w in theirs]
            assert sorted(mine) == sorted(theirs)


def test_smaller_budgets_are_prefixes(sim_inputs: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    runs, qrels = sim_inputs
    sim = ir.simulate_judging(runs, qrels, methods=["max", "A", "B", "C"], budgets=[8, 20, 33])
    for method in ("max", "A", "B", "C"):
        sets = [
            sim.judgments.filter((pl.col("method") == method) & (pl.col("budget") == b))
            .sort("order")
            .select("query_id", "doc_id")
            .rows()
            for b in (8, 20, 33)
        ]
        assert sets[0] == sets[1][:8] and sets[1] == sets[2][:20]


def test_simulation_matches_the_pool(sim_inputs: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    # without unknown documents, the static methods' judgments are the pools
    runs, _ = sim_inputs
    everything = runs.select("query_id", "doc_id").unique().with_columns(relevance=pl.lit(0))
    sim = ir.simulate_judging(runs, everything, methods=["depth", "max", "A", "B"], budgets=[25])
    for method in ("depth", "max", "A", "B"):
        pool = ir.pool(runs, method=method, budget=25, batch=100)
        got = sim.judgments.filter(pl.col("method") == method).sort("order")
        assert got.select("query_id", "doc_id").rows() == pool.select("query_id", "doc_id").rows()
        np.testing.assert_allclose(got["weight"], pool["weight"])


def test_kendall_tau_and_overlap(sim_inputs: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    runs, qrels = sim_inputs
    sim = ir.simulate_judging(
        runs, qrels, methods=["depth", "A", "C"], budgets=[12, 30], measures=["nDCG@10", "P@5"]
    )
    ref = sim.reference
    for row in sim.agreement.iter_rows(named=True):
        got = sim.scores.filter(
            (pl.col("method") == row["method"])
            & (pl.col("budget") == row["budget"])
            & (pl.col("measure") == row["measure"])
        ).join(ref, on=["run_id", "measure"], suffix="_ref")
        want = stats.kendalltau(got["value"], got["value_ref"])
        if np.isnan(want.statistic):
            assert row["tau"] is None
        else:
            assert row["tau"] == pytest.approx(want.statistic)
            assert row["p_value"] == pytest.approx(want.pvalue)
        if row["measure"] != "nDCG@10":
            proj = got.drop_nulls(["projected", "projected_ref"])
            if proj["projected"].n_unique() < 2:  # nothing judged: no ordering
                assert row["tau_projected"] is None
            else:
                want_p = stats.kendalltau(proj["projected"], proj["projected_ref"]).statistic
                assert row["tau_projected"] == pytest.approx(want_p)
    assert set(sim.agreement["measure"]) == {"RBP(p=0.8)", "nDCG@10", "P@5"}
    assert sim.agreement.filter(pl.col("measure") == "nDCG@10")["tau_projected"].is_null().all()
    summary_tau = sim.summary.select("method", "budget", "tau")
    rbp_tau = sim.agreement.filter(pl.col("measure") == "RBP(p=0.8)").select(
        "method", "budget", "tau"
    )
    assert summary_tau.equals(rbp_tau)
    for row in sim.overlap.iter_rows(named=True):

        def judged(method: str, budget: int = row["budget"]) -> set[tuple[str, str]]:
            part = sim.judgments.filter(
                (pl.col("method") == method)
                & (pl.col("budget") == budget)
                & (pl.col("status") != "bypassed")
            )
            return set(part.select("query_id", "doc_id").iter_rows())

        a, b = judged(row["method_a"]), judged(row["method_b"])
        assert row["common"] == len(a & b)
        assert (row["judged_a"], row["judged_b"]) == (len(a), len(b))


def test_simulation_residual_means(sim_inputs: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    runs, qrels = sim_inputs
    sim = ir.simulate_judging(runs, qrels, methods=["A"], budgets=[20])
    scores = sim.scores.filter(pl.col("measure") == "RBP(p=0.8)")
    assert sim.summary["mean_residual"][0] == pytest.approx(scores["residual"].mean())
    top = sim.reference.sort("value", descending=True).head(2)["run_id"]  # a third of 6
    assert sim.summary["mean_residual_top"][0] == pytest.approx(
        scores.filter(pl.col("run_id").is_in(top.implode()))["residual"].mean()
    )
    # each run's mean is over its queries, and projected is the projection of the means
    per_q = sim.per_query.group_by("run_id").agg(pl.col("value", "residual").mean()).sort("run_id")
    means = scores.sort("run_id")
    np.testing.assert_allclose(per_q["value"], means["value"])
    proj = means["value"] + means["residual"] * means["value"] / (1 - means["residual"])
    np.testing.assert_allclose(means["projected"], proj)


def test_more_judgments_shrink_the_residual(sim_inputs: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    runs, qrels = sim_inputs
    sim = ir.simulate_judging(runs, qrels, methods=["C"], budgets=[5, 20, 60], batch=5)
    resid = sim.summary["mean_residual"].to_list()
    assert resid[0] > resid[1] > resid[2]


def test_per_query_simulation(sim_inputs: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    runs, qrels = sim_inputs
    sim = ir.simulate_judging(
        runs, qrels, methods=["depth", "A", "C"], budgets=[3, 6], per_query=True
    )
    counts = sim.judgments.group_by("method", "budget", "query_id").len()
    assert counts.filter(pl.col("method") != "depth")["len"].max() == 6
    assert (counts["len"] <= counts["budget"]).all()
    assert sim.per_query_budget


def test_simulation_repr_and_settings(sim_inputs: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    runs, qrels = sim_inputs
    sim = ir.simulate_judging(runs, qrels, methods="A,C", budgets=10, contributors=["r1", "r2"])
    assert sim.methods == ("A", "C") and sim.budgets == (10,)
    assert sim.contributors == ("r1", "r2")
    assert "pools from 2 runs" in repr(sim)
    # only the contributors' documents are asked for; every run is evaluated
    theirs = runs.filter(pl.col("run_id").is_in(["r1", "r2"])).select("query_id", "doc_id")
    assert sim.judgments.join(theirs, on=["query_id", "doc_id"], how="anti").height == 0
    assert sim.scores["run_id"].n_unique() == runs["run_id"].n_unique()


def test_progress_is_reported_only_when_asked(
    sim_inputs: tuple[pl.DataFrame, pl.DataFrame], capsys: pytest.CaptureFixture[str]
) -> None:
    runs, qrels = sim_inputs
    messages: list[str] = []
    ir.simulate_judging(runs, qrels, methods=["C"], budgets=[10], batch=5, progress=messages.append)
    assert any("C" in m for m in messages)
    ir.simulate_judging(runs, qrels, methods=["C"], budgets=[10], batch=5)
    assert capsys.readouterr() == ("", "")


# --------------------------------------------------------------------------- depths (seed 000)


def test_pool_depths_and_depth_qrels() -> None:
    runs = campaign(61, runs=5)
    qrels = judgments(runs, 62, share=0.8)
    depths = ir.pool_depths(runs, contributors=["r0", "r1", "r2"])
    for d in (1, 2, 4):
        pool = ir.pool(runs, method="depth", depth=d, contributors=["r0", "r1", "r2"])
        want = qrels.join(pool, on=["query_id", "doc_id"], how="semi")
        got = ir.depth_qrels(runs, qrels, depth=d, contributors=["r0", "r1", "r2"])
        assert got.equals(want)
        assert depths.filter(pl.col("depth") <= d).height == pool.height
    several = ir.depth_qrels(runs, qrels, depth=[4, 1])
    assert several.columns == ["depth", "query_id", "doc_id", "relevance"]
    assert (
        several.filter(pl.col("depth") == 1)
        .drop("depth")
        .equals(ir.depth_qrels(runs, qrels, depth=1))
    )


def test_depth_functions_are_lazy_for_lazy_input() -> None:
    runs = campaign(63)
    qrels = judgments(runs, 64)
    lazy = ir.depth_qrels(runs.lazy(), qrels, depth=2)
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect().equals(ir.depth_qrels(runs, qrels, depth=2))
    assert isinstance(ir.judged_depth(runs, qrels.lazy()), pl.LazyFrame)
    assert isinstance(ir.pool_depths(runs.lazy()), pl.LazyFrame)
    with pytest.raises(ParameterError, match="nobody"):
        ir.depth_qrels(runs.lazy(), qrels, depth=2, contributors=["nobody"]).collect()


def test_judged_depth_of_a_depth_pool() -> None:
    runs = campaign(65, runs=5, docs=20)
    full = judgments(runs, 66, share=1.0)
    for d in (1, 3, 5):
        qrels = ir.depth_qrels(runs, full, depth=d)
        per_run = ir.judged_depth(runs, qrels)
        # every run is judged at least to d (deeper where its documents are in others' tops)
        assert (per_run["judged_depth"] >= d).all()
        per_q = ir.judged_depth(runs, qrels, per_query=True)
        lengths = runs.group_by("run_id", "query_id").len()
        joined = per_q.join(lengths, on=["run_id", "query_id"])
        assert (joined["retrieved"] == joined["len"]).all()
        floor = pl.min_horizontal(pl.lit(d, dtype=pl.UInt32), pl.col("len"))
        assert joined.select((pl.col("judged_depth") >= floor).all()).item()
    # the per-query depth is the number of leading judged documents
    run = pl.DataFrame({"query_id": "1", "doc_id": ["a", "b", "c", "d"], "score": [4.0, 3, 2, 1]})
    qrels = pl.DataFrame({"query_id": "1", "doc_id": ["a", "b", "d"], "relevance": [1, 0, 1]})
    out = ir.judged_depth(run, qrels, per_query=True)
    assert out["judged_depth"].to_list() == [2] and out["retrieved"].to_list() == [4]
    complete = pl.DataFrame({"query_id": "1", "doc_id": ["a", "b"], "relevance": [1, 0]})
    short = run.head(2)
    assert ir.judged_depth(short, complete)["judged_depth"].to_list() == [2]


# --------------------------------------------------------------------------- files


def test_write_and_read_a_pool(tmp_path: pytest.TempPathFactory) -> None:
    pool = ir.pool(campaign(71), method="C", budget=9)
    for name in ("to_judge.txt", "p.parquet", "p.tsv", "p.csv", "p.jsonl"):
        path = f"{tmp_path}/{name}"
        ir.write_pool(pool, path, tag="C")
        back = ir.read_pool(path)
        assert back.equals(pool), name
    text = Path(f"{tmp_path}/to_judge.txt").read_text().splitlines()
    first = pool.row(0, named=True)
    assert text[0].split() == [
        first["query_id"],
        "Q0",
        first["doc_id"],
        "1",
        repr(first["weight"]),
        "C",
    ]


def test_read_pool_errors(tmp_path: pytest.TempPathFactory) -> None:
    bad = f"{tmp_path}/bad.txt"
    Path(bad).write_text("1 Q0 a 1 0.2 x\n1 Q0 b two 0.1 x\n")
    with pytest.raises(FormatError, match=r"bad.txt:2"):
        ir.read_pool(bad)
    dup = f"{tmp_path}/dup.txt"
    Path(dup).write_text("1 Q0 a 1 0.2 x\n1 Q0 a 2 0.1 x\n")
    with pytest.raises(DuplicateError, match="'a'"):
        ir.read_pool(dup)
    with pytest.raises(ParameterError, match="tag"):
        ir.write_pool(ir.pool(campaign(72), method="A", budget=2), f"{tmp_path}/t.txt", tag="a b")


def _at_row(pool: pl.DataFrame, row: int, **values: object) -> pl.DataFrame:
    """``pool`` with ``values`` set in its ``row`` (0-based)."""
    at = pl.int_range(pl.len()) == row
    return pool.with_columns(
        pl.when(at).then(pl.lit(v, dtype=pool.schema[c])).otherwise(pl.col(c)).alias(c)
        for c, v in values.items()
    )


@pytest.mark.parametrize("name", ["p.txt", "p.parquet"])
@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        (dict(doc_id=None), SchemaError, r"row 3 of the pool \(query 'q1'.*null doc_id"),
        (dict(query_id=None), SchemaError, "row 3 of the pool .*null query_id"),
        (dict(order=None), SchemaError, "row 3 of the pool .*null order"),
        (dict(weight=float("nan")), ScoreError, r"row 3 .*doc_id 'd12'.*weight nan.*finite"),
        (dict(weight=float("inf")), ScoreError, r"row 3 .*weight inf.*finite"),
        (dict(doc_id="d13", query_id="q1"), DuplicateError, r"'d13' of query 'q1'.*rows 1 and 3"),
    ],
)
def test_write_pool_refuses_rows_read_pool_cannot_read_back(
    tmp_path: pytest.TempPathFactory, name: str, change: dict, error: type, message: str
) -> None:
    pool = _at_row(ir.pool(campaign(71), method="C", budget=9), 2, **change)
    path = Path(f"{tmp_path}/{name}")
    with pytest.raises(error, match=message):
        ir.write_pool(pool, path)
    assert not path.exists()
    if name == "p.txt":
        with pytest.raises(error, match=message):
            pool_text(pool)


@pytest.mark.parametrize("doc_id", ["x y", "x\ty", ""])
def test_ids_a_text_line_cannot_hold_are_refused(
    tmp_path: pytest.TempPathFactory, doc_id: str
) -> None:
    pool = _at_row(ir.pool(campaign(71), method="C", budget=9), 2, doc_id=doc_id)
    path = f"{tmp_path}/p.txt"
    with pytest.raises(
        FormatError, match=rf"p.txt: row 3 .*doc_id {re.escape(repr(doc_id))}.*\.parquet"
    ):
        ir.write_pool(pool, path)
    # columnar files keep such ids
    ir.write_pool(pool, f"{tmp_path}/p.parquet")
    assert ir.read_pool(f"{tmp_path}/p.parquet").equals(pool)


def test_write_pool_into_a_missing_directory(tmp_path: pytest.TempPathFactory) -> None:
    pool = ir.pool(campaign(71), method="C", budget=9)
    path = f"{tmp_path}/nowhere/p.txt"
    with pytest.raises(ParameterError, match=rf"{path}: the directory .*nowhere.* does not exist"):
        ir.write_pool(pool, path)
    with pytest.raises(ParameterError, match=rf"{tmp_path}: is a directory"):
        ir.write_pool(pool, tmp_path)


def test_read_pool_of_an_empty_file(tmp_path: pytest.TempPathFactory) -> None:
    for text in ("", "\n  \n"):
        path = f"{tmp_path}/empty.txt"
        Path(path).write_text(text)
        with pytest.raises(EmptyInputError, match=r"empty\.txt: the pool holds no document"):
            ir.read_pool(path)


@pytest.mark.parametrize("name", ["nope.txt", "nope.parquet"])
def test_read_pool_of_a_missing_file_names_it(tmp_path: Path, name: str) -> None:
    with pytest.raises(
        FileNotFoundError, match=rf"^{re.escape(str(tmp_path / name))}: no such file$"
    ):
        ir.read_pool(tmp_path / name)


def test_read_pool_of_a_directory_says_so(tmp_path: Path) -> None:
    """A directory was 'no such file', although it exists."""
    with pytest.raises(
        IsADirectoryError,
        match=rf"^{re.escape(str(tmp_path))}: is a directory; pass the path of one pool file, "
        r"as write_pool or ireval pool -o wrote it$",
    ):
        ir.read_pool(tmp_path)


@pytest.mark.parametrize("tag", ["a b", "a\nb", " ", ""])
def test_pool_text_refuses_a_tag_read_pool_cannot_read_back(tag: str) -> None:
    """pool_text (ireval pool's standard output) wrote seven-field lines for tag='a b'."""
    pool = ir.pool(campaign(71), method="C", budget=9)
    hint = "_".join(tag.split()) or "pool"
    message = rf"^tag={re.escape(repr(tag))}: must be one word .*; e\.g\. tag='{hint}'$"
    with pytest.raises(ParameterError, match=message):
        pool_text(pool, tag=tag)


def test_read_pool_refuses_weights_that_are_not_finite(tmp_path: pytest.TempPathFactory) -> None:
    path = f"{tmp_path}/nan.txt"
    Path(path).write_text("1 Q0 a 1 0.2 x\n1 Q0 b 2 nan x\n")
    with pytest.raises(FormatError, match=r"nan.txt:2: .*finite"):
        ir.read_pool(path)
    pool = pl.DataFrame(
        {"query_id": ["1", "1"], "doc_id": ["a", None], "order": [1, 2], "weight": [0.2, 0.1]}
    )
    pool.write_parquet(f"{tmp_path}/null.parquet")
    with pytest.raises(SchemaError, match=r"null.parquet: row 2 .*null doc_id"):
        ir.read_pool(f"{tmp_path}/null.parquet")


@pytest.mark.parametrize("method", ["depth", "max", "A", "B"])
def test_progress_is_checked_for_every_method(method: str) -> None:
    with pytest.raises(ParameterError, match=r"progress='yes': must be True"):
        ir.pool(table1_runs(), method=method, depth=2, budget=3, progress="yes")  # type: ignore[arg-type]


def test_budgets_given_as_a_string_are_refused() -> None:
    runs = table1_runs()
    qrels = runs.select("query_id", "doc_id", relevance=pl.lit(1))
    with pytest.raises(ParameterError, match=r"budgets='10': a string; give .* e\.g\. \[10\]"):
        ir.simulate_judging(runs, qrels, budgets="10", methods=["A"])  # type: ignore[arg-type]


# --------------------------------------------------------------------------- bad input


def test_unknown_method() -> None:
    runs = table1_runs()
    with pytest.raises(ParameterError, match=r"method='D' is unknown.*'depth', 'max'"):
        ir.pool(runs, method="D", budget=3)
    with pytest.raises(ParameterError, match=r"did you mean 'B_mid'"):
        ir.pool(runs, method="B_mdi", budget=3)
    with pytest.raises(ParameterError, match="method="):
        ir.simulate_judging(
            runs,
            runs.select("query_id", "doc_id", relevance=pl.lit(1)),
            methods=["A", "E"],
            budgets=[3],
        )
    assert ir.pool(runs, method="c", budget=2).equals(ir.pool(runs, method="C", budget=2))
    assert ir.pool(runs, method="pooling", budget=3).equals(ir.pool(runs, method="max", budget=3))


@pytest.mark.parametrize("budget", [0, -5, 2.5, True, "10"])
def test_bad_budget(budget: object) -> None:
    with pytest.raises(ParameterError, match=rf"budget={budget!r}: .* positive integer"):
        ir.pool(table1_runs(), method="A", budget=budget)  # type: ignore[arg-type]
    qrels = table1_runs().select("query_id", "doc_id", relevance=pl.lit(1))
    with pytest.raises(ParameterError, match="budget"):
        ir.simulate_judging(table1_runs(), qrels, methods=["A"], budgets=[budget])  # type: ignore[list-item]


@pytest.mark.parametrize("p", [0, 1, 0.0, 1.0, -0.2, 1.5, True, "0.8", float("nan")])
def test_bad_persistence(p: object) -> None:
    with pytest.raises(ParameterError, match=rf"p={p!r}: .* strictly between 0 and 1"):
        ir.pool(table1_runs(), method="A", budget=3, p=p)  # type: ignore[arg-type]


def test_qrels_naming_queries_no_run_retrieved() -> None:
    runs = table1_runs()
    judged = pl.DataFrame({"query_id": ["q", "z9"], "doc_id": ["18", "1"], "relevance": [1, 0]})
    with pytest.raises(MissingQueryError, match=r"no run retrieved: \['z9'\]"):
        ir.pool(runs, method="C", budget=3, qrels=judged)
    with pytest.raises(MissingQueryError, match="z9"):
        ir.simulate_judging(runs, judged, methods=["A"], budgets=[3])


def test_runs_without_the_columns_needed() -> None:
    runs = table1_runs()
    with pytest.raises(SchemaError, match=r"lacks column\(s\) \['score'\]"):
        ir.pool(runs.drop("score"), method="A", budget=3)
    with pytest.raises(SchemaError, match="doc_id"):
        ir.pool(runs.drop("doc_id").lazy(), method="depth", depth=1)
    with pytest.raises(SchemaError, match="relevance"):
        ir.pool(runs, method="C", budget=3, qrels=runs.select("query_id", "doc_id"))
    with pytest.raises(SchemaError, match="query_id"):
        ir.judged_depth(
            runs.drop("query_id"), runs.select("query_id", "doc_id", relevance=pl.lit(1))
        )


def test_other_bad_parameters() -> None:
    runs = table1_runs()
    qrels = runs.select("query_id", "doc_id", relevance=pl.lit(1))
    cases = [
        (lambda: ir.pool(runs, method="depth"), "needs depth= .* or budget="),
        (lambda: ir.pool(runs, method="A", depth=0), r"depth=0: the pool depth"),
        (lambda: ir.pool(runs, method="B", budget=5, batch=0), r"batch=0: the batch size"),
        (lambda: ir.pool(runs, method="C", budget=5, batch=2), "call ir.pool again"),
        (lambda: ir.pool(runs, method="A", budget=3, contributors=["1", "7"]), r"\['7'\] is not"),
        (lambda: ir.pool(runs, method="A", budget=3, contributors="1"), "list of run ids"),
        (lambda: ir.pool(runs, method="A", budget=3, contributors=[]), "at least one run"),
        (
            lambda: ir.pool(runs, method="A", budget=3, per_query="yes"),  # type: ignore[arg-type]
            "per_query='yes'",
        ),
        (
            lambda: ir.simulate_judging(runs, qrels, budgets=[3], unknown="relevant"),  # type: ignore[arg-type]
            "unknown='relevant'",
        ),
        (lambda: ir.simulate_judging(runs, qrels, budgets=[]), r"budgets=\[\]: give at least one"),
        (lambda: ir.simulate_judging(runs, qrels, budgets=[3], methods=["A", "a"]), "twice"),
        (
            lambda: ir.simulate_judging(runs, qrels, budgets=[3], batch=None),  # type: ignore[arg-type]
            "batch=None",
        ),
        (lambda: ir.depth_qrels(runs, qrels, depth=[]), r"depth=\[\]"),
        (lambda: ir.depth_qrels(runs, qrels, depth=[2, 0]), r"depth=0"),
    ]
    for call, message in cases:
        with pytest.raises(ParameterError, match=message):
            call()
    with pytest.raises(ir.UnknownMeasureError):
        ir.simulate_judging(runs, qrels, budgets=[3], measures=["nDGC@10"])


def test_nothing_judged_scores_residual_one_and_no_projection() -> None:
    """A budget that buys nothing (a depth pool too deep for it): every ranking's RBP is
    base 0, residual exactly 1, projection null (there is no rate of relevance to project
    from), in the per-query and the mean scores and in the summary's mean residual; they
    were 0.0 and 0.9999999999999999 (a sum of rounded weights)."""
    runs = ir.read_run(ir.example_path("runs"), run_id="file")
    qrels = ir.read_qrels(ir.example_path("qrels.txt"))
    sim = ir.simulate_judging(runs, qrels, methods=["depth"], budgets=[10])
    assert sim.summary["judged"].to_list() == [0]
    assert sim.summary["mean_residual"].to_list() == [1.0]
    for frame in (sim.scores, sim.per_query):
        assert frame["residual"].to_list() == [1.0] * frame.height
        assert frame["projected"].null_count() == frame.height


def test_pool_weights_carry_the_digits_they_have() -> None:
    """Weights are sums of rounded RBP weights: reported to 13 significant digits, so that
    Method A's 0.328 reads 0.328 (it was 0.32799999999999996) and a maximum weight 1 - p
    reads 0.2 (it was 0.19999999999999996); the order was chosen on the weights as summed."""
    runs = ir.read_run(ir.example_path("runs"), run_id="file")
    for method in ("A", "B", "C", "max"):
        weights = ir.pool(runs, method=method, budget=200)["weight"].to_list()
        assert all(len(repr(w).lstrip("0.").replace(".", "").rstrip("0")) <= 13 for w in weights)
    assert ir.pool(runs, method="max", budget=5)["weight"].to_list() == [0.2] * 5
    assert 0.328 in ir.pool(runs, method="A", budget=10)["weight"].to_list()
