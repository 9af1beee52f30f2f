"""The trained fusion methods (``posfuse probfuse segfuse slidefuse bayesfuse mapfuse``) and the
pairwise ones (``condorcet w_condorcet copeland``) of ``ir.fuse``, against ranx (0.3.21) as the
oracle: ranx learns from training runs and their qrels (``ranx.optimize_fusion``, or its
``probfuse_train``/``slidefuse_train`` for a given number of segments or window) and fuses
test runs with what it learned (``ranx.fuse(params=)``); ours the same in one call
(``ir.fuse(test, method, qrels=, train_runs=)``). Every (query, document) fused score to
1e-9, and the fused ranking wherever the fused scores do not tie. Condorcet: ranx's order
is only defined where its pairwise comparisons order the candidates (no tie, no cycle):
there ranx's scores and order, and everywhere a reference written here from ranx's
comparison. Then hand-worked examples, a check on TREC-COVID round 1 and the errors.
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
from tests.paths import need_data

ranx = pytest.importorskip("ranx", reason="ranx is the oracle of the fusion methods")

TRAINED = ["posfuse", "probfuse", "segfuse", "slidefuse", "bayesfuse", "mapfuse"]
#: 10 examples per method
SETTINGS = settings(
    max_examples=10, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
Runs = dict[str, dict[str, dict[str, float]]]


def rankings(draw: st.DrawFn, n_runs: int, queries: list[str], pool: int) -> Runs:
    """``n_runs`` runs over ``queries``, each ranking 1 to 6 documents of a pool of ``pool``
    with distinct scores (ties would leave ranx's order undefined)."""
    runs = {}
    for r in range(n_runs):
        run = {}
        for q in queries:
            docs = draw(st.lists(st.sampled_from([f"d{i}" for i in range(pool)]), min_size=1,
                                 max_size=min(6, pool), unique=True))  # fmt: skip
            scores = draw(st.lists(st.integers(1, 10_000), min_size=len(docs),
                                   max_size=len(docs), unique=True))  # fmt: skip
            run[q] = {d: s / 100.0 for d, s in zip(docs, scores, strict=True)}
        runs[f"r{r}"] = run
    return runs


@st.composite
def trained_campaigns(draw: st.DrawFn) -> dict:
    """2 or 3 systems, each with a training run over 1 to 3 training queries and a test run
    over 1 to 3 other queries; qrels judging 1 to 6 documents of every training query
    (grades 0 to 2) and some of the test queries (which the training must leave out)."""
    n_runs = draw(st.integers(2, 3))
    train = rankings(draw, n_runs, [f"t{i}" for i in range(draw(st.integers(1, 3)))], 8)
    test = rankings(draw, n_runs, [f"q{i}" for i in range(draw(st.integers(1, 3)))], 8)
    qrels = {}
    for q in [*train["r0"], *test["r0"]]:
        docs = draw(st.lists(st.integers(0, 7), min_size=1, max_size=6, unique=True))
        qrels[q] = {f"d{i}": draw(st.integers(0, 2)) for i in docs}
    return {
        "train": train,
        "test": test,
        "qrels": qrels,
        "norm": draw(st.sampled_from(["none", "min-max", "min-max-inverted", "zmuv"])),
        "own": draw(st.booleans()),  # fuse the training runs themselves (no train_runs=)
        "n_segments": draw(st.integers(1, 4)),
        "w": draw(st.integers(0, 3)),
        "rel": draw(st.sampled_from([1, 1, 2])),
    }


def frame(runs: Runs) -> pl.DataFrame:
    rows = [
        (r, q, d, s) for r, run in runs.items() for q, docs in run.items() for d, s in docs.items()
    ]
    return pl.DataFrame(rows, schema=["run_id", "query_id", "doc_id", "score"], orient="row")


def qrels_frame(qrels: dict[str, dict[str, int]]) -> pl.DataFrame:
    rows = [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    return pl.DataFrame(rows, schema=["query_id", "doc_id", "relevance"], orient="row")


def ranx_trained(method: str, train: Runs, test: Runs, qrels: dict, norm: str, c: dict) -> dict:
    """ranx's fused ``test``: the model learned from ``train`` (normalised as the runs are)
    and the qrels of the training queries (ranx's training reads grade >= 1 as relevant:
    ``rel=2`` is given to it as qrels with the grades >= 2 as 1, the others 0)."""
    from ranx.fusion import probfuse_train, slidefuse_train
    from ranx.normalization import norm_switch

    judged = {q: qrels[q] for q in next(iter(train.values()))}
    if c["rel"] != 1:
        judged = {q: {d: int(g >= c["rel"]) for d, g in docs.items()} for q, docs in judged.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        truth = ranx.Qrels(judged)
        runs = [ranx.Run(run, name=name) for name, run in train.items()]
        normed = runs if norm == "none" else [norm_switch(norm)(run) for run in runs]
        if method == "probfuse":
            params = {"probs": probfuse_train(truth, normed, c["n_segments"])}
        elif method == "slidefuse":
            params = {"probs": slidefuse_train(truth, normed), "w": c["w"]}
        else:
            params = ranx.optimize_fusion(
                truth, runs, norm=None if norm == "none" else norm, method=method
            )
        fused = ranx.fuse(
            [ranx.Run(run, name=name) for name, run in test.items()],
            norm=None if norm == "none" else norm,
            method=method,
            params=params,
        )
    return {q: dict(docs) for q, docs in fused.to_dict().items()}


def assert_same(got: pl.DataFrame, want: dict, what: object, order: bool = True) -> None:
    """Every fused score to 1e-9, and the ranking where ranx's is defined (no tie)."""
    for q, docs in want.items():
        mine = got.filter(pl.col("query_id") == q)
        scores = dict(zip(mine["doc_id"], mine["score"], strict=True))
        assert set(scores) == set(docs), (what, q)
        for d, s in docs.items():
            assert scores[d] == pytest.approx(s, rel=1e-9, abs=1e-12), (what, q, d, scores, docs)
        values = sorted(docs.values())
        if order and all(b - a > 1e-12 * max(1.0, abs(b)) for a, b in itertools.pairwise(values)):
            assert mine["doc_id"].to_list() == sorted(docs, key=lambda d: -docs[d]), (what, q)


@pytest.mark.parametrize("method", TRAINED)
@SETTINGS
@given(c=trained_campaigns())
def test_trained_methods_equal_ranx(method: str, c: dict) -> None:
    train, test = c["train"], (c["train"] if c["own"] else c["test"])
    want = ranx_trained(method, train, test, c["qrels"], c["norm"], c)
    params = {"rel": c["rel"]}
    if method == "probfuse":
        params["n_segments"] = c["n_segments"]
    if method == "slidefuse":
        params["w"] = c["w"]
    got = ir.fuse(
        frame(test),
        method,
        norm=c["norm"],
        guard="ranx",
        qrels=qrels_frame(c["qrels"]),
        train_runs=None if c["own"] else frame(train),
        **params,
    )
    assert_same(got, want, (method, c["norm"], params))


# ----------------------------------------------------------------------------- pairwise


@st.composite
def voting_campaigns(draw: st.DrawFn) -> Runs:
    """2 to 5 runs over 1 to 3 queries of 2 to 5 documents each: each ranking the whole pool
    (a permutation) or part of it, so that the majority often orders the candidates."""
    n_runs = draw(st.integers(2, 5))
    pool = draw(st.integers(2, 5))
    queries = [f"q{i}" for i in range(draw(st.integers(1, 3)))]
    docs = [f"d{i}" for i in range(pool)]
    runs: Runs = {}
    for r in range(n_runs):
        run = {}
        for q in queries:
            if draw(st.booleans()):
                ranking = draw(st.permutations(docs))
            else:
                ranking = draw(st.lists(st.sampled_from(docs), min_size=1, unique=True))
            run[q] = {d: float(len(ranking) - i) for i, d in enumerate(ranking)}
        runs[f"r{r}"] = run
    return runs


def ranx_comparison(runs: Runs, q: str, weights: list[float]) -> tuple[dict[str, int], bool]:
    """ranx's ``_compare`` written out: a run votes for ``x`` when it ranks ``x`` before
    ``y`` (an unretrieved document at index 1,000,000), every other run for ``y``; ``x``
    comes first when its votes are at least ``y``'s. ``x`` beats ``y`` when ``x`` comes
    first and ``y`` does not. Returns each candidate's losses and whether the comparison
    orders the candidates (then ranx's sort has one outcome)."""
    lists = [sorted(run[q], key=lambda d: -run[q][d]) for run in runs.values()]
    candidates = sorted({d for ranking in lists for d in ranking})
    index = [{d: ranking.index(d) if d in ranking else 1_000_000 for d in candidates}
             for ranking in lists]  # fmt: skip

    def first(x: str, y: str) -> bool:
        votes = sum(w for w, i in zip(weights, index, strict=True) if i[x] < i[y])
        against = sum(w for w, i in zip(weights, index, strict=True) if not i[x] < i[y])
        return votes >= against

    losses = {
        d: sum(first(x, d) and not first(d, x) for x in candidates if x != d) for d in candidates
    }
    return losses, sorted(losses.values()) == list(range(len(candidates)))


@pytest.mark.parametrize("method", ["condorcet", "w_condorcet"])
@SETTINGS
@given(runs=voting_campaigns())
def test_condorcet_equals_ranx_where_defined(method: str, runs: Runs) -> None:
    weights = [1.0 + 0.5 * i for i in range(len(runs))] if method == "w_condorcet" else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fused = ranx.fuse(
            [ranx.Run(run, name=name) for name, run in runs.items()],
            norm=None,
            method=method,
            params={"weights": weights} if weights else {},
        )
    want = {q: dict(docs) for q, docs in fused.to_dict().items()}
    got = ir.fuse(frame(runs), method, weights=weights)
    for q in want:
        losses, ordered = ranx_comparison(runs, q, weights or [1.0] * len(runs))
        mine = got.filter(pl.col("query_id") == q)
        scores = dict(zip(mine["doc_id"], mine["score"], strict=True))
        assert scores == {d: len(losses) - n for d, n in losses.items()}, (q, losses)
        if ordered:  # ranx's sort has one outcome: its scores C - position, and its order
            assert scores == want[q]
            assert mine["doc_id"].to_list() == sorted(want[q], key=lambda d: -want[q][d])


@SETTINGS
@given(runs=voting_campaigns())
def test_copeland_counts_pairwise_wins_and_losses(runs: Runs) -> None:
    """Against Copeland's rule written out: for each pair, the runs ranking one above the
    other (an unretrieved document below every retrieved one; two unretrieved ones tie)."""
    got = ir.fuse(frame(runs), "copeland")
    for q in next(iter(runs.values())):
        lists = [sorted(run[q], key=lambda d: -run[q][d]) for run in runs.values()]
        candidates = sorted({d for ranking in lists for d in ranking})

        def above(x: str, y: str, ranking: list[str]) -> bool:
            return x in ranking and (y not in ranking or ranking.index(x) < ranking.index(y))

        want = {}
        for x in candidates:
            margins = [
                sum(above(x, y, r) for r in lists) - sum(above(y, x, r) for r in lists)
                for y in candidates
                if y != x
            ]
            want[x] = float(sum((m > 0) - (m < 0) for m in margins))
        mine = got.filter(pl.col("query_id") == q)
        assert dict(zip(mine["doc_id"], mine["score"], strict=True)) == want
        # score descending, ties by doc id descending
        assert mine["doc_id"].to_list() == sorted(
            candidates, key=lambda d: (want[d], d), reverse=True
        )


def three(a: list[str], b: list[str], c: list[str] | None = None) -> pl.DataFrame:
    """Runs of one query ``q`` from their rankings, best first."""
    rankings = {"a": a, "b": b, **({"c": c} if c is not None else {})}
    rows = [
        (name, "q", d, float(len(ranking) - i))
        for name, ranking in rankings.items()
        for i, d in enumerate(ranking)
    ]
    return pl.DataFrame(rows, schema=["run_id", "query_id", "doc_id", "score"], orient="row")


def scores_of(fused: pl.DataFrame) -> list[tuple[str, float]]:
    return fused.select("doc_id", "score").rows()


def test_condorcet_and_copeland_by_hand() -> None:
    """1. a: x y z; b: y x z; c: x z y. x over y in a and c (2 votes to 1), x over z in all
    three, y over z in a and b: x beats y and z, y beats z, an order. Condorcet (C = 3
    candidates minus the number that beat the document): x 3, y 2, z 1, ranx's 3, 2, 1
    (C - position); Copeland (wins - losses): x 2, y 0, z -2.

    2. a: x y; b: z; c: z. x and y: a ranks x above y, b and c retrieved neither: ranx
    gives x a's vote and y the other two (2 to 1: x does not come first), and y no vote
    (0 to 3: y does not come first either): no winner, x and y tie (ranx's order between
    them is then whatever its sort makes of the comparisons). z over x in b and c (2 to 1),
    z over y likewise: z beats both. Condorcet: z 3, x 2, y 2 (x, y tied: doc id
    descending puts y first). Copeland: b and c abstain on x and y, so x beats y 1 to 0:
    z 2, x 0, y -2.

    3. a cycle: a: x y z; b: y z x; c: z x y: x beats y (a, c), y beats z (a, b), z beats
    x (b, c). Every candidate loses once: Condorcet 2, 2, 2; Copeland 0, 0, 0; ranx's order
    depends on its input order (Python's hash seed)."""
    ordered = three(["x", "y", "z"], ["y", "x", "z"], ["x", "z", "y"])
    assert scores_of(ir.fuse(ordered, "condorcet")) == [("x", 3.0), ("y", 2.0), ("z", 1.0)]
    assert scores_of(ir.fuse(ordered, "copeland")) == [("x", 2.0), ("y", 0.0), ("z", -2.0)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runs = [
            ranx.Run({"q": dict(zip(r["doc_id"], r["score"], strict=True))})
            for r in ordered.partition_by("run_id", maintain_order=True)
        ]
        assert dict(ranx.fuse(runs, norm=None, method="condorcet")["q"]) == {
            "x": 3.0, "y": 2.0, "z": 1.0,
        }  # fmt: skip
    abstain = three(["x", "y"], ["z"], ["z"])
    assert scores_of(ir.fuse(abstain, "condorcet")) == [("z", 3.0), ("y", 2.0), ("x", 2.0)]
    assert scores_of(ir.fuse(abstain, "copeland")) == [("z", 2.0), ("x", 0.0), ("y", -2.0)]
    cycle = three(["x", "y", "z"], ["y", "z", "x"], ["z", "x", "y"])
    assert scores_of(ir.fuse(cycle, "condorcet")) == [("z", 2.0), ("y", 2.0), ("x", 2.0)]
    assert scores_of(ir.fuse(cycle, "copeland", ties="doc_id_asc")) == [
        ("x", 0.0), ("y", 0.0), ("z", 0.0),
    ]  # fmt: skip
    # weighted: a alone (weight 3) outvotes b and c (1 each) in example 1's cycle
    weighted = ir.fuse(cycle, "w_condorcet", weights={"a": 3.0, "b": 1.0, "c": 1.0})
    assert scores_of(weighted) == [("x", 3.0), ("y", 2.0), ("z", 1.0)]
    # two runs ranking x, y in opposite orders: a tie (ranx: either first)
    two = three(["x", "y", "z"], ["y", "x"])
    assert scores_of(ir.fuse(two, "condorcet")) == [("y", 3.0), ("x", 3.0), ("z", 1.0)]
    # queries="union": b and c lack query q and do not vote on it (had they voted for y as
    # runs retrieving neither do, x would not come first: 1 vote to 2)
    union = pl.concat([three(["x", "y"], ["w"], ["w"]).filter(run_id="a"),
                       three(["w"], ["w"], ["w"]).with_columns(query_id=pl.lit("p"))])  # fmt: skip
    fused = ir.fuse(union, "condorcet", queries="union").filter(query_id="q")
    assert scores_of(fused) == [("x", 2.0), ("y", 1.0)]


def test_trained_methods_by_hand() -> None:
    """Training query t: run a ranks d1 d2 d3 d4, run b ranks d3 d2; qrels: d1 1, d2 2, d3 0
    (d4 unjudged). Hits: a 1 1 0 0, b 0 1.

    probfuse, 2 segments: a's 4 positions in segments of 2: P_a = (1, 0); b's 2 in segments
    of 1: P_b = (0, 1). Test query q: a ranks e1 e2 e3 (segments of ceil(3/2) = 2: e1, e2
    in the first, e3 in the second), b ranks e3 e1 (segments of 1). A document in segment
    k scores P(k) / (k + 1): e1 = 1 (a) + 1/2 (b) = 1.5, e2 = 1, e3 = 0/2 + 0 = 0.

    slidefuse, w = 1, over posfuse's P_a = (1, 1, 0, 0), P_b = (0, 1): in a's ranking of 3,
    e1 (window 0..1) 1, e2 (0..2) 2/3, e3 (1..2) 1/2; in b's of 2, e3 (0..1) 1/2, e1 (0..1)
    1/2: e1 1.5, e3 1, e2 2/3.

    mapfuse: R = 2 relevant (d1, d2); AP_a = (1/1 + 2/2) / 2 = 1, AP_b = (1/2) / 2 = 1/4;
    MAP / rank: e1 = 1 + 1/8, e2 = 1/2, e3 = 1/3 + 1/4. With rel=2 (only d2 relevant):
    AP_a = (1/2) / 1, AP_b = (1/2) / 1: e1 = 1/2 + 1/4, e2 = 1/4, e3 = 1/6 + 1/2."""
    train = three(["d1", "d2", "d3", "d4"], ["d3", "d2"]).with_columns(query_id=pl.lit("t"))
    test = three(["e1", "e2", "e3"], ["e3", "e1"])
    qrels = pl.DataFrame({"query_id": "t", "doc_id": ["d1", "d2", "d3"], "relevance": [1, 2, 0]})

    def fused(method: str, **params: float) -> dict[str, float]:
        out = ir.fuse(test, method, qrels=qrels, train_runs=train, **params)
        return dict(out.select("doc_id", "score").iter_rows())

    assert fused("probfuse", n_segments=2) == pytest.approx({"e1": 1.5, "e2": 1.0, "e3": 0.0})
    assert fused("slidefuse", w=1) == pytest.approx({"e1": 1.5, "e2": 2 / 3, "e3": 1.0})
    assert fused("mapfuse") == pytest.approx({"e1": 1.125, "e2": 0.5, "e3": 1 / 3 + 1 / 4})
    assert fused("mapfuse", rel=2) == pytest.approx({"e1": 0.75, "e2": 0.25, "e3": 1 / 6 + 0.5})
    # segfuse: the first segment (5 positions): P_a = 2/5, P_b = 1/5, times min-max + 1
    assert fused("segfuse") == pytest.approx(
        {"e1": 0.4 * 2 + 0.2 * 1, "e2": 0.4 * 1.5, "e3": 0.4 * 1 + 0.2 * 2}
    )
    # bayesfuse: positions 0-5: a 2/5 -> ln(2/3), b 1/5 -> ln(1/4)
    both, one = math.log(2 / 3) + math.log(1 / 4), math.log(2 / 3) + math.log(0.001 / 0.999)
    assert fused("bayesfuse") == pytest.approx({"e1": both, "e2": one, "e3": both})


def test_training_pairs_runs_by_name_else_in_order_and_stays_lazy() -> None:
    """Training runs with the runs' names pair by name (in any order); with other names, in
    order. A LazyFrame among the inputs gives a LazyFrame, equal to the eager result."""
    train = three(["d1", "d2", "d3", "d4"], ["d3", "d2"]).with_columns(query_id=pl.lit("t"))
    test = three(["e1", "e2", "e3"], ["e3", "e1"])
    qrels = pl.DataFrame({"query_id": "t", "doc_id": ["d1", "d2", "d3"], "relevance": [1, 2, 0]})
    want = ir.fuse(test, "mapfuse", qrels=qrels, train_runs=train)
    a, b = (train.filter(run_id=n).drop("run_id") for n in ("a", "b"))
    assert ir.fuse(test, "mapfuse", qrels=qrels, train_runs={"b": b, "a": a}).equals(want)
    assert ir.fuse(test, "mapfuse", qrels=qrels, train_runs=[a, b]).equals(want)
    swapped = ir.fuse(test, "mapfuse", qrels=qrels, train_runs=[b, a])
    assert not swapped.equals(want)  # b's MAP now weighs a's ranking
    lazy = ir.fuse(test, "mapfuse", qrels=qrels.lazy(), train_runs=train)
    assert isinstance(lazy, pl.LazyFrame) and lazy.collect().equals(want)
    assert isinstance(ir.fuse(test.lazy(), "copeland"), pl.LazyFrame)


def test_trained_methods_on_trec_covid() -> None:
    """TREC-COVID round 1: three runs without tied scores (1,000 documents per topic),
    trained on topics 1-10 and fused on topics 21-25, equal to ranx for every trained
    method (the segments of segfuse and bayesfuse reach the 1,000th position)."""
    data = need_data() / "trec-covid-r1"
    names = ["BBGhelani1", "BM25R2", "udel_fang_run2"]
    runs = ir.read_run([data / "runs" / f"{n}.gz" for n in names], run_id="file")
    qrels = ir.read_qrels(data / "qrels-rnd1.txt")
    topic = pl.col("query_id").cast(pl.Int64)
    train, test = runs.filter(topic <= 10), runs.filter(topic.is_between(21, 25))

    def as_dict(frame_: pl.DataFrame) -> Runs:
        out: Runs = {}
        for r, q, d, s in frame_.select("run_id", "query_id", "doc_id", "score").iter_rows():
            out.setdefault(r, {}).setdefault(q, {})[d] = s
        return out

    judged = {}
    for q, d, g in qrels.filter(topic <= 10).iter_rows():
        judged.setdefault(q, {})[d] = g
    config = {"rel": 1, "n_segments": 10, "w": 3}
    for method in TRAINED:
        want = ranx_trained(method, as_dict(train), as_dict(test), judged, "min-max", config)
        params = {"probfuse": {"n_segments": 10}, "slidefuse": {"w": 3}}.get(method, {})
        got = ir.fuse(
            test, method, norm="min-max", guard="ranx", qrels=qrels, train_runs=train, **params
        )
        assert_same(got, want, method)


def _runs() -> pl.DataFrame:
    return pl.DataFrame(
        {"run_id": ["a", "a", "b", "b"], "query_id": "q", "doc_id": ["x", "y", "y", "z"],
         "score": [2.0, 1.0, 9.0, 3.0]}
    )  # fmt: skip


QRELS = pl.DataFrame({"query_id": ["q"], "doc_id": ["y"], "relevance": [1]})


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda r: ir.fuse(r, "probfuse"), ir.ParameterError,
         "method='probfuse' is trained on relevance judgments: pass qrels="),
        (lambda r: ir.fuse(r, "rrf", qrels=QRELS), ir.ParameterError,
         "qrels=: method='rrf' is not trained"),
        (lambda r: ir.fuse(r, "copeland", train_runs=r), ir.ParameterError,
         "train_runs=: method='copeland' is not trained"),
        (lambda r: ir.fuse(r, "probfuse", qrels=QRELS, n_segments=0), ir.ParameterError,
         "n_segments=0: the number of segments must be a positive integer"),
        (lambda r: ir.fuse(r, "probfuse", qrels=QRELS, n_segments=2.5), ir.ParameterError,
         "n_segments=2.5"),
        (lambda r: ir.fuse(r, "slidefuse", qrels=QRELS, w=-1), ir.ParameterError,
         "w=-1: the half-width of the window must be an integer >= 0"),
        (lambda r: ir.fuse(r, "posfuse", qrels=QRELS, rel=0), ir.ParameterError, "rel=0"),
        (lambda r: ir.fuse(r, "posfuse", qrels=QRELS, w=2), ir.ParameterError,
         "method='posfuse' takes ['rel']"),
        (lambda r: ir.fuse(r, "condorcet", k=1), ir.ParameterError,
         "method='condorcet' takes no parameters"),
        (lambda r: ir.fuse(r, "condorcet", weights=[1.0, 2.0]), ir.ParameterError,
         "method='condorcet' takes none"),
        (lambda r: ir.fuse(r, "mapfuse", qrels=QRELS, missing="zero"), ir.ParameterError,
         "missing='zero': method='mapfuse' scores a document by its position"),
        (lambda r: ir.fuse(r, "copeland", missing="min"), ir.ParameterError,
         "missing='min': method='copeland' compares ranks"),
        (lambda r: ir.fuse(r, "posfuse", qrels=QRELS, train_runs=r.filter(run_id="a")),
         ir.ParameterError, "train_runs=: 1 training run(s) (['a']) for 2 runs to fuse"),
        (lambda r: ir.fuse(r, "posfuse", qrels=QRELS.with_columns(query_id=pl.lit("other"))),
         ir.ParameterError, "none of run 'a''s queries (e.g. ['q']) is in the qrels"),
        (lambda r: ir.fuse(r, "posfuse", qrels=QRELS,
                           train_runs=r.with_columns(query_id=pl.Series(["q", "t", "q", "q"]))),
         ir.MissingQueryError, "1 query not in every run (e.g. ['t'])"),
        (lambda r: ir.fuse(r, "posfuse", qrels=QRELS.with_columns(relevance=pl.lit(1.5))),
         ir.IrevalError, "relevance"),
    ],
)  # fmt: skip
def test_bad_input(call, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=re.escape(message)):
        call(_runs())


def test_lazy_errors_come_when_collected() -> None:
    """A training run without a judged query, in a lazy query: refused when collected."""
    lazy = ir.fuse(_runs().lazy(), "posfuse", qrels=QRELS.with_columns(query_id=pl.lit("o")))
    assert isinstance(lazy, pl.LazyFrame)
    with pytest.raises(ir.ParameterError, match="none of run 'a''s queries"):
        lazy.collect()


def test_the_registry_lists_the_new_methods() -> None:
    from polars_ireval.fusion.fuse import METHODS

    assert [m for m, s in METHODS.items() if s.trained] == TRAINED
    assert METHODS["probfuse"].params == {"n_segments": 25, "rel": 1}
    assert METHODS["slidefuse"].params == {"w": 5, "rel": 1}
    assert METHODS["w_condorcet"].weighted and not METHODS["condorcet"].weighted


def test_bayesfuse_where_ranx_rounds_or_reads_past_its_model() -> None:
    """1. Ten training queries whose five top documents are all relevant, in two runs: the
    first segment's precision is 1 and its log odds the guarded ln(1 / 0.001) = 6.9078 per
    run. (ranx adds 1/10 ten times, gets 0.9999999999999999 and ln(1 / 1.1e-16) = 36.74.)
    2. A ranking past 1,000 documents: a document below position 1,000 scores
    ln(0.001 / 0.999) in each run, as an unretrieved one (ranx reads past its array of 1,000
    log odds: arbitrary numbers)."""
    train = pl.DataFrame(
        [(r, f"t{q}", f"d{k}", 10.0 - k) for r in "ab" for q in range(10) for k in range(5)],
        schema=["run_id", "query_id", "doc_id", "score"],
        orient="row",
    )
    qrels = train.filter(run_id="a").select("query_id", "doc_id", relevance=pl.lit(1))
    test = three(["x", "y"], ["x", "y"])
    fused = ir.fuse(test, "bayesfuse", qrels=qrels, train_runs=train)
    assert fused["score"].to_list() == pytest.approx([2 * math.log(1 / 0.001)] * 2)
    deep = pl.DataFrame(
        [(r, "t", f"d{k:04d}", 2000.0 - k) for r in "ab" for k in range(1002)],
        schema=["run_id", "query_id", "doc_id", "score"],
        orient="row",
    )
    judged = pl.DataFrame({"query_id": "t", "doc_id": ["d0000", "d0999"], "relevance": 1})
    scores = dict(ir.fuse(deep, "bayesfuse", qrels=judged).select("doc_id", "score").iter_rows())
    last = 2 * math.log(0.002 / 0.998)  # positions 500-1000: 1 relevant of 500
    assert scores["d0999"] == pytest.approx(last)
    assert scores["d1000"] == scores["d1001"] == pytest.approx(2 * math.log(0.001 / 0.999))
