"""``ir.optimize_fusion``: k-fold cross-validation over the queries. It picks, fold by fold,
what an exhaustive loop over the same grid and folds picks (written here with ``ir.fuse``
and ``ir.evaluate``), and every held-out score comes from parameters chosen without the
query it scores; the in-sample score stands beside it.
"""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

import polars_ireval as ir

RUNS = ir.read_run(ir.example_path("runs"), run_id="file")
QRELS = ir.read_qrels(ir.example_path("qrels.txt"))


def by_hand(method: str, grid: list[dict], measure: str, folds: int, seed: int):
    """The exhaustive loop: every candidate fused and scored per query; per fold, the
    first candidate (in grid order) of highest mean over the training queries."""
    per = {}
    for i, params in enumerate(grid):
        fused = ir.fuse(RUNS, method, name="x", **params)
        scores = ir.evaluate(fused, QRELS, measure, per_query=True, missing="zero")
        per[i] = dict(zip(scores["query_id"], scores["value"], strict=True))
    queries = np.array(sorted(per[0]))
    parts = np.array_split(queries[np.random.default_rng(seed).permutation(len(queries))], folds)
    chosen = []
    for part in parts:
        train = [q for q in queries if q not in set(part)]
        means = [np.mean([per[i][q] for q in train]) for i in range(len(grid))]
        best = int(np.argmax(means))  # the first of the highest
        chosen.append((best, set(part), {q: per[best][q] for q in part}))
    return chosen


@pytest.mark.parametrize(
    ("method", "grid"),
    [
        ("rrf", [{"k": k} for k in (1, 5, 20, 60, 200)]),
        ("wsum", [{"weights": w} for w in ([1, 0, 0], [0.5, 0.5, 0], [0.2, 0.7, 0.1], [0, 1, 0])]),
        ("rbc", [{"phi": p} for p in (0.3, 0.6, 0.9)]),
    ],
)
@pytest.mark.parametrize("seed", [0, 7])
def test_it_picks_what_an_exhaustive_loop_picks(method: str, grid: list, seed: int) -> None:
    tuned = ir.optimize_fusion(RUNS, QRELS, method, "AP", search=grid, folds=5, seed=seed)
    expected = by_hand(method, grid, "AP", 5, seed)
    assert [json.loads(p) for p in tuned.folds["params"]] == [grid[b] for b, _, _ in expected]
    fused = tuned.held_out.filter(pl.col("run_id") == "fused (tuned)")
    got = dict(zip(fused["query_id"], fused["value"], strict=True))
    for _, part, values in expected:
        for q in part:  # scored by the candidate chosen without it
            assert got[q] == pytest.approx(values[q], abs=1e-12)
    assert sorted(got) == sorted(q for _, part, _ in expected for q in part)  # each once


@pytest.mark.parametrize(
    ("method", "grid"),
    [("probfuse", [{"n_segments": n} for n in (1, 3, 8)]), ("slidefuse", [{"w": 1}, {"w": 4}])],
)
def test_a_trained_method_learns_fold_by_fold(method: str, grid: list) -> None:
    """A method trained on judgments: per fold, each candidate is trained on the training
    queries' runs and qrels alone (the loop below, with ir.fuse), chosen by its score on
    those queries, and the fold's queries are scored by the model that never saw them."""
    folds, seed = 4, 3
    tuned = ir.optimize_fusion(RUNS, QRELS, method, "AP", search=grid, folds=folds, seed=seed)
    queries = np.array(sorted(QRELS["query_id"].unique()))
    order = np.random.default_rng(seed).permutation(len(queries))
    fused = tuned.held_out.filter(pl.col("run_id") == "fused (tuned)")
    got = dict(zip(fused["query_id"], fused["value"], strict=True))
    for f, part in enumerate(np.array_split(queries[order], folds)):
        held = pl.col("query_id").is_in(list(part))
        train_runs, train_qrels = RUNS.filter(~held), QRELS.filter(~held)
        means, values = [], []
        for params in grid:
            model = {"qrels": train_qrels, "train_runs": train_runs, **params}
            on_train = _scored(ir.fuse(train_runs, method, **model))
            on_test = _scored(ir.fuse(RUNS.filter(held), method, **model))
            means.append(np.mean([on_train[q] for q in queries if q not in set(part)]))
            values.append(on_test)
        best = int(np.argmax(means))
        assert json.loads(tuned.folds["params"][f]) == grid[best]
        assert tuned.folds["in_sample"][f] == pytest.approx(means[best], abs=1e-12)
        for q in part:
            assert got[q] == pytest.approx(values[best][q], abs=1e-12)


def _scored(fused: pl.DataFrame) -> dict:
    s = ir.evaluate(fused, QRELS, "AP", per_query=True, missing="zero")
    return dict(zip(s["query_id"], s["value"], strict=True))


def test_no_held_out_score_comes_from_a_query_it_was_tuned_on() -> None:
    """A grid whose candidates differ on one query only: the held-out score of that query
    is the candidate the other queries chose, not the one best on it."""
    tuned = ir.optimize_fusion(RUNS, QRELS, "rrf", "nDCG@10", search=[{"k": 1}, {"k": 60}],
                               folds=25)  # fmt: skip
    assert tuned.folds["queries"].to_list() == [1] * 25  # leave one query out
    scores = tuned.scores.pivot(on="candidate", index="query_id", values="value")
    held = tuned.held_out.filter(pl.col("run_id") == "fused (tuned)")
    for row in held.iter_rows(named=True):
        others = tuned.scores.filter(pl.col("query_id") != row["query_id"])
        best = (
            others.group_by("candidate").agg(pl.col("value").mean())
            .sort(["value", "candidate"], descending=[True, False])["candidate"][0]
        )  # fmt: skip
        assert row["value"] == scores.filter(pl.col("query_id") == row["query_id"])[str(best)][0]


def test_in_sample_beside_held_out_and_the_comparison() -> None:
    tuned = ir.optimize_fusion(RUNS, QRELS, "rrf", "nDCG@10", search=[{"k": 10}, {"k": 60}])
    assert set(tuned.folds.columns) >= {
        "in_sample",
        "held_out",
        "best_single",
        "best_single_held_out",
    }
    assert tuned.in_sample == pytest.approx(tuned.folds["in_sample"].mean())
    fused = tuned.held_out.filter(pl.col("run_id") == "fused (tuned)")
    assert tuned.held_out_mean == pytest.approx(fused["value"].mean())
    assert fused.height == 25 and tuned.held_out.height == 50
    cmp = tuned.compare()
    assert cmp.select("run_a", "run_b").row(0) == ("fused (tuned)", "best single run (tuned)")
    assert cmp["n"][0] == 25


def test_ranx_grids() -> None:
    from polars_ireval.analysis.fusion_tuning import ranx_grid

    assert [g["k"] for g in ranx_grid("rrf", 2)] == list(range(10, 101, 10))
    assert len(ranx_grid("wsum", 2)) == 11 and len(ranx_grid("wsum", 3)) == 66
    assert all(abs(sum(g["weights"]) - 1) < 1e-12 for g in ranx_grid("mixed", 3))
    assert ranx_grid("rbc", 2)[-1] == {"phi": 0.99} and ranx_grid("sum", 2) == [{}]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"folds": 1}, "folds=1: at least 2"),
        ({"folds": 26}, "only 25 queries"),
        ({"search": []}, "non-empty list"),
        ({"search": ["k=5"]}, "is not a dict"),
        ({"measure": "AP P@10"}, "one measure to maximise"),
        ({"method": "nope"}, "method='nope' is unknown"),
        ({"search": [{"k": -1}]}, "k=-1"),
    ],
)
def test_bad_arguments(kwargs: dict, message: str) -> None:
    with pytest.raises(ir.ParameterError, match=message):
        ir.optimize_fusion(RUNS, QRELS, **{"method": "rrf", "measure": "AP", **kwargs})


def test_the_command_line_optimises(tmp_path, capsys) -> None:
    """``ireval fuse --qrels --optimize`` prints what optimize_fusion chose, the in-sample and
    held-out means and the held-out comparison, its p-value never printed as 0."""
    from polars_ireval.cli import main

    paths = [ir.example_path(f"runs/{n}.run") for n in ("bm25", "dense")]
    code = main(["fuse", *paths, "--qrels", ir.example_path("qrels.txt"), "--optimize",
                 "-m", "AP", "--folds", "5", "--seed", "3"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    tuned = ir.optimize_fusion(
        ir.read_run(paths, run_id="file"), QRELS, "rrf", "AP", folds=5, seed=3
    )
    for params in tuned.folds["params"]:
        assert params in out
    assert f"in-sample {tuned.in_sample:.4f}, held-out {tuned.held_out_mean:.4f}" in out
    assert "fused (tuned)" in out and "p = 0.000" not in out
    assert main(["fuse", *paths, "--optimize"]) == 2
    assert "--optimize and --qrels go together" in capsys.readouterr().err
