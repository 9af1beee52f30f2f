"""``ir.fuse`` and ``ir.normalize`` against ranx (0.3.21) as the oracle: every method x
normalisation on generated runs (several queries, documents retrieved by one run only,
rankings of one document; scores distinct within a ranking, where ranx's order is defined),
the fused score of every (query, document) to 1e-9 and the fused ranking wherever the fused
scores do not tie. Then the choices ranx does not offer (``missing``, ``queries``, ``depth``,
``guard``), worked by hand, and the errors.
"""

from __future__ import annotations

import itertools
import math
import re
import warnings

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_ireval as ir

ranx = pytest.importorskip("ranx", reason="ranx is the oracle of the fusion methods")

SCORE_METHODS = ["sum", "max", "min", "med", "anz", "mnz", "gmnz", "wsum", "wmnz", "mixed"]
RANK_METHODS = ["rrf", "isr", "log_isr", "logn_isr", "rbc", "bordafuse", "w_bordafuse"]
NORMS = ["min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda", "none"]
#: 10 examples for each of the 108 method x normalisation pairs (1,080 campaigns in all)
SETTINGS = settings(
    max_examples=10, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


@st.composite
def campaigns(draw: st.DrawFn) -> dict[str, dict[str, dict[str, float]]]:
    """2 to 4 runs over the same 1 to 3 queries; each ranking 1 to 6 documents of a pool of
    8, with distinct positive scores (ties would leave ranx's order undefined)."""
    n_runs = draw(st.integers(2, 4))
    queries = [f"q{i}" for i in range(draw(st.integers(1, 3)))]
    runs = {}
    for r in range(n_runs):
        run = {}
        for q in queries:
            docs = draw(st.lists(st.sampled_from([f"d{i}" for i in range(8)]), min_size=1,
                                 max_size=6, unique=True))  # fmt: skip
            scores = draw(st.lists(st.integers(1, 10_000), min_size=len(docs),
                                   max_size=len(docs), unique=True))  # fmt: skip
            run[q] = {d: s / 100.0 for d, s in zip(docs, scores, strict=True)}
        runs[f"r{r}"] = run
    return runs


def frame(runs: dict[str, dict[str, dict[str, float]]]) -> pl.DataFrame:
    rows = [
        (r, q, d, s) for r, run in runs.items() for q, docs in run.items() for d, s in docs.items()
    ]
    return pl.DataFrame(rows, schema=["run_id", "query_id", "doc_id", "score"], orient="row")


def ranx_fuse(runs: dict, norm: str, method: str, params: dict) -> dict[str, dict[str, float]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fused = ranx.fuse(
            [ranx.Run(run, name=name) for name, run in runs.items()],
            norm=None if norm == "none" else norm,
            method=method,
            params=params,
        )
    return {q: dict(docs) for q, docs in fused.to_dict().items()}


def params_of(method: str, n_runs: int) -> tuple[dict, dict]:
    """(ranx's params, ours) for ``method``."""
    weights = [1.0 + 0.5 * i for i in range(n_runs)]
    return {
        "gmnz": ({"gamma": 0.7}, {"gamma": 0.7}),
        "wsum": ({"weights": weights}, {"weights": weights}),
        "wmnz": ({"weights": weights}, {"weights": weights}),
        "mixed": ({"weights": weights}, {"weights": weights}),
        "rrf": ({"k": 10}, {"k": 10}),
        "logn_isr": ({"sigma": 0.05}, {"sigma": 0.05}),
        "rbc": ({"phi": 0.7}, {"phi": 0.7}),
        "w_bordafuse": ({"weights": weights}, {"weights": weights}),
    }.get(method, ({}, {}))


def check_against_ranx(runs: dict, method: str, norm: str) -> None:
    theirs, ours = params_of(method, len(runs))
    want = ranx_fuse(runs, norm, method, theirs)
    got = ir.fuse(frame(runs), method, norm=norm, guard="ranx", **ours)
    for q, docs in want.items():
        mine = got.filter(pl.col("query_id") == q)
        scores = dict(zip(mine["doc_id"], mine["score"], strict=True))
        assert set(scores) == set(docs), (method, norm, q)
        for d, s in docs.items():
            assert scores[d] == pytest.approx(s, rel=1e-9, abs=1e-12), (method, norm, q, d)
        # the ranking, where ranx's order is defined (no tie among the fused scores)
        values = sorted(docs.values())
        if all(b - a > 1e-12 * max(1.0, abs(b)) for a, b in itertools.pairwise(values)):
            assert mine["doc_id"].to_list() == sorted(docs, key=lambda d: -docs[d])


@pytest.mark.parametrize("method", SCORE_METHODS)
@pytest.mark.parametrize("norm", NORMS)
@SETTINGS
@given(runs=campaigns())
def test_score_methods_equal_ranx(method: str, norm: str, runs: dict) -> None:
    check_against_ranx(runs, method, norm)


@pytest.mark.parametrize("method", RANK_METHODS)
@pytest.mark.parametrize("norm", ["none", "min-max", "min-max-inverted", "zmuv"])
@SETTINGS
@given(runs=campaigns())
def test_rank_methods_equal_ranx(method: str, norm: str, runs: dict) -> None:
    check_against_ranx(runs, method, norm)


@pytest.mark.parametrize("norm", [n for n in NORMS if n != "borda"])  # borda: across runs
@SETTINGS
@given(runs=campaigns())
def test_normalize_equals_ranx(norm: str, runs: dict) -> None:
    from ranx import normalization

    name, run = next(iter(runs.items()))
    got = ir.normalize(frame({name: run}).drop("run_id"), norm)
    if norm == "none":
        want = run
    else:
        switch = normalization.norm_switch(norm)
        want = switch(ranx.Run(run)).to_dict()
    for q, docs in want.items():
        mine = got.filter(pl.col("query_id") == q)
        scores = dict(zip(mine["doc_id"], mine["score"], strict=True))
        for d, s in docs.items():
            assert scores[d] == pytest.approx(s, rel=1e-9, abs=1e-12), (norm, q, d)


def test_worked_example() -> None:
    """Two runs of one query, by hand: a ranks x, y; b ranks y, z."""
    runs = pl.DataFrame(
        {"run_id": ["a", "a", "b", "b"], "query_id": "q", "doc_id": ["x", "y", "y", "z"],
         "score": [2.0, 1.0, 9.0, 3.0]}
    )  # fmt: skip
    rrf = ir.fuse(runs, "rrf")  # 1/(60 + r)
    assert dict(zip(rrf["doc_id"], rrf["score"], strict=True)) == pytest.approx(
        {"y": 1 / 62 + 1 / 61, "x": 1 / 61, "z": 1 / 62}
    )
    assert rrf["rank"].to_list() == [1, 2, 3] and rrf["run_id"].unique().to_list() == ["rrf"]
    # min-max: a: x 1, y 0; b: y 1, z 0
    mnz = ir.fuse(runs, "mnz")
    assert dict(zip(mnz["doc_id"], mnz["score"], strict=True)) == {"y": 2.0, "x": 1.0, "z": 0.0}
    # x and y tie at 1.0 under CombSUM: doc id descending (trec_eval), or ascending
    assert ir.fuse(runs, "sum")["doc_id"].to_list() == ["y", "x", "z"]
    assert ir.fuse(runs, "sum", ties="doc_id_asc")["doc_id"].to_list() == ["x", "y", "z"]
    # CombMIN: skip (ranx) takes x's one score 1; zero counts b's missing x as 0
    assert dict(ir.fuse(runs, "min").select("doc_id", "score").iter_rows())["x"] == 1.0
    assert (
        dict(ir.fuse(runs, "min", missing="zero").select("doc_id", "score").iter_rows())["x"] == 0.0
    )
    anz = dict(ir.fuse(runs, "anz", missing="min").select("doc_id", "score").iter_rows())
    assert anz == {"x": 0.5, "y": 0.5, "z": 0.0}  # x: (1 + b's lowest 0) / 2
    deep = ir.fuse(runs, "rrf", depth=1)  # each run cut to its first document
    assert sorted(deep["doc_id"].to_list()) == ["x", "y"]


def test_queries_policy_and_lazy() -> None:
    runs = pl.DataFrame({"run_id": ["a", "a", "b"], "query_id": ["q1", "q2", "q1"],
                         "doc_id": ["x", "y", "x"], "score": [1.0, 1.0, 2.0]})  # fmt: skip
    with pytest.raises(ir.MissingQueryError, match=r"1 query not in every run \(e.g. \['q2'\]\)"):
        ir.fuse(runs, "rrf")
    assert ir.fuse(runs, "rrf", queries="union")["query_id"].unique().sort().to_list() == [
        "q1",
        "q2",
    ]
    assert ir.fuse(runs, "rrf", queries="intersection")["query_id"].unique().to_list() == ["q1"]
    lazy = ir.fuse(runs.lazy(), "rrf", queries="union")
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect().equals(ir.fuse(runs, "rrf", queries="union"))
    with pytest.raises(ir.MissingQueryError):
        ir.fuse(runs.lazy(), "rrf").collect()
    # a list and a dict of runs
    a, b = runs.filter(run_id="a").drop("run_id"), runs.filter(run_id="b").drop("run_id")
    both = ir.fuse({"a": a, "b": b}, "rrf", queries="union")
    assert both.equals(ir.fuse(runs, "rrf", queries="union"))
    assert ir.fuse([a, b], "rrf", queries="union", name="mine")["run_id"].unique().to_list() == [
        "mine"
    ]


def test_guard_exact_and_ranx() -> None:
    """Equal scores: every document normalises to 0 either way; a maximum of 0 with
    norm='max': exact refuses negative scores, ranx divides by 1e-9."""
    run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "score": [2.0, 2.0]})
    assert ir.normalize(run, "min-max")["score"].to_list() == [0.0, 0.0]
    assert ir.normalize(run, "min-max", guard="ranx")["score"].to_list() == [0.0, 0.0]
    negative = run.with_columns(score=pl.Series([0.0, -1.0]))
    assert ir.normalize(negative, "max", guard="ranx")["score"].to_list() == pytest.approx(
        [0.0, -1e9]
    )
    runs = pl.concat(
        [negative.with_columns(run_id=pl.lit("a")), run.with_columns(run_id=pl.lit("b"))]
    )
    with pytest.raises(ir.ParameterError, match="norm='max' divides by the maximum"):
        ir.fuse(runs, "sum", norm="max")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda r: ir.fuse(r.filter(run_id="a"), "rrf"), "fusion takes two or more"),
        (lambda r: ir.fuse(r.drop("run_id").head(1), "rrf"), "one frame without a run_id"),
        (lambda r: ir.fuse(r, "borda_count"), "method='borda_count' is unknown"),
        (lambda r: ir.fuse(r, "sum", norm="l2"), "norm='l2' is unknown"),
        (lambda r: ir.fuse(r, "rrf", k=-1), "k=-1"),
        (lambda r: ir.fuse(r, "rrf", phi=0.5), "method='rrf' takes ['k']"),
        (lambda r: ir.fuse(r, "rbc", phi=1.0), "phi=1.0"),
        (lambda r: ir.fuse(r, "wsum", weights=[1.0]), "1 for 2 runs"),
        (lambda r: ir.fuse(r, "wsum", weights={"a": 1.0, "c": 1.0}), "one per run, by name"),
        (lambda r: ir.fuse(r, "wsum", weights=[1.0, math.nan]), "not a finite number"),
        (lambda r: ir.fuse(r, "sum", weights=[1.0, 2.0]), "method='sum' takes none"),
        (lambda r: ir.fuse(r, "rrf", missing="drop"), "missing='drop'"),
        (lambda r: ir.fuse(r, "rrf", queries="all"), "queries='all'"),
        (lambda r: ir.fuse(r, "rrf", depth=0), "depth=0"),
        (lambda r: ir.fuse(r, "rrf", guard="tiny"), "guard='tiny'"),
        (lambda r: ir.fuse(r.with_columns(score=pl.lit(math.nan)), "rrf"), "not finite"),
    ],
)
def test_bad_input(call, message: str) -> None:
    runs = pl.DataFrame({"run_id": ["a", "b"], "query_id": "q", "doc_id": "x", "score": [1.0, 2.0]})
    with pytest.raises(ir.IrevalError, match=re.escape(message)):
        call(runs)


def trectools_run(run: dict[str, dict[str, float]]):
    """A trectools TrecRun of ``run``, each query's documents by decreasing score."""
    import pandas as pd
    from trectools import TrecRun

    rows = [
        (q, "Q0", d, i, s, "t")
        for q, docs in run.items()
        for i, (d, s) in enumerate(sorted(docs.items(), key=lambda x: -x[1]), 1)
    ]
    out = TrecRun(None)
    out.load_run_from_dataframe(
        pd.DataFrame(rows, columns=["query", "q0", "docid", "rank", "score", "system"])
    )
    return out


def trectools_scores(fused) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for q, d, s in fused.run_data[["query", "docid", "score"]].itertuples(index=False):
        out.setdefault(str(q), {})[str(d)] = float(s)
    return out


@SETTINGS
@given(runs=campaigns(), drop=st.integers(0, 2))
def test_rrf_and_the_comb_family_equal_trectools(runs: dict, drop: int) -> None:
    """trectools' defaults: the union of the queries, each input run cut at 1,000, raw
    scores (no normalisation) for its ``combos``, which reads two runs (its merge keeps
    the scores of the first two columns only)."""
    fusion = pytest.importorskip("trectools.fusion", reason="trectools is an oracle of fuse")
    first = next(iter(runs.values()))
    if drop and len(first) > 1:  # a query one run lacks: the union keeps it
        first.pop(sorted(first)[0])
    frame_ = frame(runs)
    want = trectools_scores(
        fusion.reciprocal_rank_fusion([trectools_run(r) for r in runs.values()])
    )
    got = ir.fuse(frame_, "rrf", queries="union", depth=1000, ties="doc_id_asc")
    for q, docs in want.items():
        mine = got.filter(pl.col("query_id") == q)
        assert dict(zip(mine["doc_id"], mine["score"], strict=True)) == pytest.approx(docs)
    two = dict(list(runs.items())[:2])
    for strategy in ("sum", "max", "min", "anz", "mnz", "med"):
        pair = [trectools_run(r) for r in two.values()]
        want = trectools_scores(fusion.combos(pair, strategy=strategy))
        got = ir.fuse(frame(two), strategy, norm="none", queries="union")
        for q, docs in want.items():
            mine = got.filter(pl.col("query_id") == q)
            assert dict(zip(mine["doc_id"], mine["score"], strict=True)) == pytest.approx(docs), (
                strategy, q,
            )  # fmt: skip


def test_dbsf_and_median_rank_by_hand() -> None:
    """Two runs of three documents (a: x, y, z; b: y, z, w), scores 3, 2, 1 and 30, 20,
    10. DBSF: mu 2, sigma sqrt(2/3) (population), mu +- 3 sigma -> 0..1: the top document
    1/2 + sqrt(3/2)/6 = 0.7041, the middle 0.5, the last 0.2959; summed over the runs.
    Median rank: a run that did not retrieve a document ranks it 4 (past its 3)."""
    runs = pl.DataFrame(
        {"run_id": ["a"] * 3 + ["b"] * 3, "query_id": "q", "doc_id": list("xyzyzw"),
         "score": [3.0, 2.0, 1.0, 30.0, 20.0, 10.0]}
    )  # fmt: skip
    top = 0.5 + math.sqrt(1.5) / 6
    dbsf = dict(ir.fuse(runs, "dbsf").select("doc_id", "score").iter_rows())
    assert dbsf == pytest.approx({"y": top + 0.5, "z": 0.5 + (1 - top), "x": top, "w": 1 - top})
    one = ir.normalize(runs.filter(run_id="a").drop("run_id"), "dbsf")["score"].to_list()
    assert one == pytest.approx([top, 0.5, 1 - top])
    flat = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "score": [1.0, 1.0]})
    assert ir.normalize(flat, "dbsf")["score"].to_list() == [0.5, 0.5]
    # far from the mean: clipped to [0, 1]
    spread = pl.DataFrame({"query_id": "q", "doc_id": list("abcdefghij"),
                           "score": [100.0] + [1.0] * 9})  # fmt: skip
    assert ir.normalize(spread, "dbsf")["score"].max() <= 1.0
    median = ir.fuse(runs, "median_rank")
    assert median.select("doc_id", "score").rows() == [
        ("y", -1.5),
        ("z", -2.5),
        ("x", -2.5),
        ("w", -3.5),  # z, x tie: doc id descending
    ]


def test_borda_by_hand() -> None:
    """a ranks x, y, z; b ranks y, w: C = 4 candidates. Borda count: a gives 4, 3, 2 and w
    (4 - 3 + 1)/2 = 1; b gives y 4, w 3, and x, z (4 - 2 + 1)/2 = 1.5 each. The Borda
    normalisation: 1 - (r - 1)/4, and 0.5 - (n - 1)/8 for what the run did not retrieve."""
    runs = pl.DataFrame(
        {"run_id": ["a"] * 3 + ["b"] * 2, "query_id": "q", "doc_id": list("xyzyw"),
         "score": [3.0, 2.0, 1.0, 30.0, 20.0]}
    )  # fmt: skip
    count = ir.fuse(runs, "bordafuse").select("doc_id", "score").rows()
    assert count == [("y", 7.0), ("x", 5.5), ("w", 4.0), ("z", 3.5)]
    normalised = dict(ir.fuse(runs, "sum", norm="borda").select("doc_id", "score").iter_rows())
    assert normalised == {"y": 1.75, "x": 1.375, "w": 1.0, "z": 0.875}


def test_the_command_line_writes_the_fused_run(tmp_path, capsys) -> None:
    """``ireval fuse`` reads run files (named by their files), fuses as ``ir.fuse`` does and
    writes a TREC run that reads back as the same run; ``write_run`` writes text, gzip and
    Parquet alike."""
    from polars_ireval.cli import main
    from polars_ireval.io.writers import write_run

    paths = [ir.example_path(f"runs/{n}.run") for n in ("bm25", "dense")]
    out = tmp_path / "fused.run"
    assert main(["fuse", *paths, "--method", "wsum", "--weights", "2,1", "--name", "hybrid",
                 "-o", str(out)]) == 0  # fmt: skip
    want = ir.fuse(ir.read_run(paths, run_id="file"), "wsum", weights=[2, 1], name="hybrid")
    back = ir.read_run(out)
    assert back.equals(want.select("query_id", "doc_id", "score"))
    assert ir.run_tag(out) == "hybrid"
    for name in ("f.run.gz", "f.parquet"):
        write_run(want, tmp_path / name)
        assert ir.read_run(tmp_path / name).select("query_id", "doc_id", "score").equals(back), name
    assert main(["fuse", *paths, "--method", "wsum", "--weights", "1"]) == 2
    assert "1 for 2 runs" in capsys.readouterr().err
    assert main(["fuse", paths[0]]) == 2
    assert "fusion takes two or more" in capsys.readouterr().err
    on_duckdb = tmp_path / "duckdb.run"
    assert (
        main(["fuse", *paths, "--method", "mnz", "--engine", "duckdb", "-o", str(on_duckdb)]) == 0
    )
    assert ir.read_run(on_duckdb).equals(ir.read_run(_written(tmp_path, paths, "mnz")))
    trained = tmp_path / "probfuse.run"
    qrels = ir.example_path("qrels.txt")
    assert main(["fuse", *paths, "--method", "probfuse", "--qrels", qrels, "--n-segments", "4",
                 "-o", str(trained)]) == 0  # fmt: skip
    want = ir.fuse(ir.read_run(paths, run_id="file"), "probfuse", qrels=ir.read_qrels(qrels),
                   n_segments=4)  # fmt: skip
    assert ir.read_run(trained).equals(want.select("query_id", "doc_id", "score"))
    assert main(["fuse", *paths, "--method", "copeland", "--engine", "duckdb"]) == 2
    assert "Polars engine only" in capsys.readouterr().err


def _written(tmp_path, paths, method) -> str:
    """``ireval fuse`` of ``paths`` with ``method`` on the Polars engine, written."""
    from polars_ireval.cli import main

    out = tmp_path / f"{method}-polars.run"
    assert main(["fuse", *paths, "--method", method, "-o", str(out)]) == 0
    return str(out)
