"""ir.depth_curve, ir.ap_pooled and ir.volatility (seed 000: evaluation depth, AP'',
volatility).

The reference of a depth curve is ``ir.evaluate`` of ``f"{m}@{k}"`` at every depth k: every
value (and residual) must be the same float, bit for bit, on the bundled example, on
trec_eval's test data, on TREC-COVID round 1 and on generated campaigns (ties, unjudged
documents, negative grades, empty condensed rankings, queries on one side only). The
one-pass computation is also checked against depth_curve's own per-depth path, tau-b
against ``scipy.stats.kendalltau``, and the position changes and overturned pairs against
direct loops. No timing is asserted here (see benchmarks/depth_curve.py).
"""

from __future__ import annotations

import functools
import itertools
import math
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from scipy import stats

import polars_ireval as ir
from polars_ireval.analysis import stability
from polars_ireval.errors import (
    DuplicateError,
    EmptyInputError,
    ParameterError,
    ScoreError,
    UnknownMeasureError,
)
from polars_ireval.registry import aggregate
from tests.conftest import ROOT, TREC_TEST, need_data
from tests.docblocks import normalise, run_blocks

#: The measures of the issue, each with a one-pass computation.
MEASURES = ["AP", "nDCG", "Q(beta=1)", "RBP(p=0.8)", "ERR", "P", "R", "RR"]
#: Measures without one (evaluated per depth), with their parameters varied.
OTHERS = ["AP(norm='min')", "nDCG(gain='exp')", "RBP(p=0.5,ties='average')", "Success"]


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ir.CoverageWarning)
        yield


# --------------------------------------------------------------------------- the reference


#: References already computed in this module, by the identity of their inputs and their
#: arguments (the inputs are kept, so that their ids stay theirs): a check that needs a
#: reference another check of the same frames computed reads it (frames are immutable).
_REFERENCES: dict[tuple[Any, ...], tuple[Any, Any, pl.DataFrame]] = {}


def reference(
    runs: Any,
    qrels: Any,
    measures: Sequence[str],
    depths: Sequence[int],
    *,
    condensed: bool = False,
    **options: Any,
) -> pl.DataFrame:
    """``ir.evaluate`` of every ``m@k`` (one call), in the shape and order of depth_curve;
    computed once for the same frames and arguments (see :data:`_REFERENCES`)."""
    key = (id(runs), id(qrels), tuple(measures), tuple(depths), condensed, *sorted(options.items()))
    if key in _REFERENCES:
        return _REFERENCES[key][2]
    labels = [f"{m}@{d}" for m in measures for d in depths]
    scores = ir.evaluate(runs, qrels, labels, judged_only=condensed, **options)
    names = pl.DataFrame(
        {
            "label": labels,
            "name": [m for m in measures for _ in depths],
            "order": [i for i, _ in enumerate(measures) for _ in depths],
            "depth": [d for _ in measures for d in depths],
        }
    )
    keys = [c for c in ("run_id", "query_id") if c in scores.columns]
    extra = ["residual"] if options.get("residuals") else []
    out = (
        scores.join(names, left_on="measure", right_on="label")
        .sort("order", *keys, "depth")
        .select(*keys, pl.col("name").alias("measure"), "depth", "value", *extra)
    )
    _REFERENCES[key] = (runs, qrels, out)
    return out


def bits(series: pl.Series) -> tuple[list[bool], np.ndarray]:
    """The null mask and the bit patterns of a float column (NaN and -0.0 included)."""
    nulls = series.is_null().to_list()
    values = series.fill_null(0.0).cast(pl.Float64).to_numpy().copy()
    return nulls, values.view(np.uint64)


def assert_bitwise(ours: pl.DataFrame, ref: pl.DataFrame) -> None:
    """Same rows in the same order, every float the same bits."""
    assert ours.columns == ref.columns, (ours.columns, ref.columns)
    assert ours.height == ref.height, (ours.height, ref.height)
    for column in ours.columns:
        if ours.schema[column] == pl.Float64:
            a, b = bits(ours[column]), bits(ref[column])
            assert a[0] == b[0], f"{column}: nulls differ"
            differ = np.flatnonzero(a[1] != b[1])
            assert not differ.size, (
                f"{column}: {differ.size} of {ours.height} values differ, first rows\n"
                f"{ours[differ[:5].tolist()]}\n{ref[differ[:5].tolist()]}"
            )
        else:
            assert ours[column].to_list() == ref[column].to_list(), column


def check_curve(
    runs: Any,
    qrels: Any,
    measures: Sequence[str],
    depths: Sequence[int],
    **options: Any,
) -> pl.DataFrame:
    """depth_curve of ``measures`` equals the reference, bit for bit; returns the curve.

    Except the mean residuals of the one-pass measures (``residuals=True`` without
    ``per_query``): those are the mean of evaluate's per-query residuals added in query
    order, as every value is (see :func:`check_residual_means`)."""
    curve = ir.depth_curve(runs, qrels, measures, depths=depths, **options)
    ref = reference(runs, qrels, measures, depths, **options)
    if options.get("residuals") and not options.get("per_query"):
        check_residual_means(curve, ref, runs, qrels, measures, depths, **options)
        assert_bitwise(curve.drop("residual"), ref.drop("residual"))
    else:
        assert_bitwise(curve, ref)
    return curve


def check_residual_means(
    curve: pl.DataFrame,
    ref: pl.DataFrame,
    runs: Any,
    qrels: Any,
    measures: Sequence[str],
    depths: Sequence[int],
    **options: Any,
) -> None:
    """The mean residuals of the one-pass measures: evaluate's per-query residuals added in
    query order, bit for bit, and evaluate's mean to 1e-15; those of the other measures
    (evaluated per depth): evaluate's, bit for bit.

    evaluate takes Polars' ``mean`` of the residuals, whose rounding varies with how the
    engine reads the rows: on the example (one run of three) and on results.comment.test
    (one run, 31 queries) some means differ from the query-order sum in the last bit; on
    TREC-COVID's 143 runs none of those tested here does."""
    level = options.get("relevance_level", 1)
    one_pass = [
        m for m in measures if stability._fast_kind(stability._resolve(m, 0).base, level, False)
    ]
    # evaluate's per-query values of every measure (those of the one-pass ones kept): the
    # reference of the same frames with per_query=True, which a check may have computed
    per_query = reference(runs, qrels, measures, depths, **{**options, "per_query": True})
    per_query = per_query.filter(pl.col("measure").is_in(one_pass))
    keys = [c for c in ("run_id",) if c in curve.columns]
    in_order = (
        per_query.with_columns(pl.col("measure").cast(pl.Enum(one_pass)))
        .sort("measure", *keys, "depth", "query_id")
        .group_by("measure", *keys, "depth", maintain_order=True)
        .agg(aggregate(pl.col("residual")).alias("residual"))
    )
    fast = pl.col("measure").is_in(one_pass)
    assert_bitwise(curve.filter(fast).select("residual"), in_order.select("residual"))
    assert_bitwise(curve.filter(~fast).select("residual"), ref.filter(~fast).select("residual"))
    a, b = bits(curve["residual"]), bits(ref["residual"])
    assert a[0] == b[0]
    x, y = curve["residual"].fill_null(0.0).to_numpy(), ref["residual"].fill_null(0.0).to_numpy()
    assert np.all(np.abs(x - y) <= 1e-15 * np.maximum(np.abs(x), np.abs(y)))


@pytest.fixture(scope="module")
def example() -> tuple[pl.DataFrame, pl.DataFrame]:
    return ir.read_run(ir.example_path("runs")), ir.read_qrels(ir.example_path("qrels.txt"))


def covid_path() -> Path:
    return need_data() / "trec-covid-r1"


# --------------------------------------------------------------------------- equal to evaluate


OPTIONS = [
    {"per_query": p, "condensed": c, "residuals": r}
    for p, c, r in itertools.product([False, True], repeat=3)
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(k for k, v in o.items() if v))
def test_example_equals_evaluate_at_every_depth(
    example: tuple[pl.DataFrame, pl.DataFrame], options: dict[str, bool]
) -> None:
    runs, qrels = example
    # the example's rankings hold 100 documents: depths beyond them too
    depths = list(range(1, 121))
    check_curve(runs, qrels, MEASURES + OTHERS, depths, **options)


def test_one_evaluate_per_depth_is_the_batched_reference(
    example: tuple[pl.DataFrame, pl.DataFrame],
) -> None:
    """The reference evaluates every m@k in one call; each alone gives the same floats."""
    runs, qrels = example
    depths = [1, 7, 50, 100]
    curve = ir.depth_curve(runs, qrels, MEASURES, depths=depths, per_query=True, residuals=True)
    for m, d in itertools.product(MEASURES, depths):
        alone = ir.evaluate(runs, qrels, [f"{m}@{d}"], per_query=True, residuals=True)
        ours = curve.filter(measure=m, depth=d)
        assert ours.select("run_id", "query_id").rows() == alone.select("run_id", "query_id").rows()
        for column in ("value", "residual"):
            assert bits(ours[column])[0] == bits(alone[column])[0], (m, d, column)
            assert np.array_equal(bits(ours[column])[1], bits(alone[column])[1]), (m, d, column)


@pytest.mark.parametrize(
    ("qrels", "run", "level"),
    [
        ("qrels.test", "results.test", 1),
        ("qrels.rel_level", "results.test", 1),  # grades -1..4
        ("qrels.rel_level", "results.test", 2),
        ("qrels.comment.test", "results.comment.test", 1),  # TREC RAG 2024, grades 0..3
    ],
)
def test_trec_eval_test_data_equals_evaluate(qrels: str, run: str, level: int) -> None:
    need_data()
    runs, judged = ir.read_run(TREC_TEST / run), ir.read_qrels(TREC_TEST / qrels)
    depths = [*range(1, 101), *range(110, 501, 10), 1000]
    for per_query, residuals in [(True, True), (False, True), (False, False)]:
        check_curve(
            runs, judged, MEASURES, depths, per_query=per_query, residuals=residuals,
            relevance_level=level,
        )  # fmt: skip
    check_curve(runs, judged, MEASURES, depths, condensed=True, relevance_level=level)


def test_trec_covid_sample_equals_evaluate_at_depths_1_to_100() -> None:
    """Twelve real runs of TREC-COVID round 1, every depth from 1 to 100."""
    files = sorted((covid_path() / "runs").glob("*.gz"))[::12]
    runs = ir.read_run(files, run_id="file")
    qrels = ir.read_qrels(covid_path() / "qrels-rnd1.txt")
    assert runs["run_id"].n_unique() == 12
    depths = list(range(1, 101))
    check_curve(runs, qrels, MEASURES, depths, per_query=True, residuals=True)
    check_curve(runs, qrels, MEASURES, depths, residuals=True)


#: Parameters other than the defaults for the measures with a one-pass declaration (a
#: measure declared with a depth hook later is tested with its defaults at least).
VARIANTS = {
    "AP": ["AP(rel=2)"],
    "nDCG": ["nDCG(gains={1:3,2:9})", "nDCG(dcg='exp-log2')"],
    "Q": ["Q(beta=0.5,rel=2)"],
    "RBP": ["RBP(p=0.5,rel=2)"],
    "ERR": ["ERR(max_rel=2)"],
    "P": ["P(rel=2)"],
    "R": ["R(rel=2)"],
    "RR": ["RR(rel=2)"],
}


@pytest.mark.parametrize("name", stability.FAST)
def test_every_one_pass_declaration_equals_evaluate_on_trec_covid(name: str) -> None:
    """Every measure whose declaration has a depth hook (``stability.FAST`` is read from the
    registry), with its defaults and other parameters: the one pass is taken, and its values
    and residuals equal ``evaluate(f"{m}@{k}")`` at every depth from 1 to 100 on twelve
    TREC-COVID runs, per query, bit for bit."""
    files = sorted((covid_path() / "runs").glob("*.gz"))[::12]
    runs = ir.read_run(files, run_id="file")
    qrels = ir.read_qrels(covid_path() / "qrels-rnd1.txt")
    measures = [name, *VARIANTS.get(name, [])]
    for text in measures:
        curve = stability._resolve(text, 0)
        assert curve.base is not None
        assert stability._fast_kind(curve.base, 1, False) == name, text
    check_curve(runs, qrels, measures, list(range(1, 101)), per_query=True, residuals=True)


def test_all_143_runs_equal_evaluate_at_a_few_depths(
    trec_covid: tuple[pl.DataFrame, pl.DataFrame],
) -> None:
    runs, qrels = trec_covid
    assert runs["run_id"].n_unique() == 143
    depths = [1, 5, 10, 100, 1000]
    check_curve(runs, qrels, MEASURES, depths, residuals=True)
    check_curve(runs, qrels, MEASURES, depths, condensed=True, per_query=True, residuals=True)


# --------------------------------------------------------------------------- generated campaigns


@functools.cache
def campaign(seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A small campaign full of edge cases: scores with ties, unjudged documents, negative
    grades, grades up to 3, rankings of different lengths, a query only in the runs, a
    query only in the qrels, a ranking all of whose documents are unjudged (empty once
    condensed), a query without relevant documents."""
    rng = np.random.default_rng(seed)
    docs = [f"d{i:02d}" for i in range(40)]
    rows = []
    for run in ("r1", "r2", "r3", "r4"):
        for query in ("q1", "q2", "q3", "q4", "q5", "qx"):
            n = int(rng.integers(1, 25))
            chosen = rng.choice(40, size=n, replace=False)
            scores = rng.integers(0, 6, size=n).astype(float)  # many ties
            if run == "r4" and query == "q3":  # documents nobody judged (d30..d39)
                chosen, scores = np.arange(30, 30 + min(n, 10)), scores[: min(n, 10)]
            rows += [(run, query, docs[c], s) for c, s in zip(chosen, scores, strict=True)]
    runs = pl.DataFrame(rows, schema=["run_id", "query_id", "doc_id", "score"], orient="row")
    judged = []
    for query in ("q1", "q2", "q3", "q4", "q5", "qy"):
        for c in rng.choice(30, size=18, replace=False):
            grade = 0 if query == "q5" else int(rng.choice([-1, 0, 0, 1, 2, 3]))
            judged.append((query, docs[c], grade))
    qrels = pl.DataFrame(judged, schema=["query_id", "doc_id", "relevance"], orient="row")
    return runs, qrels


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(k for k, v in o.items() if v))
def test_generated_campaigns_equal_evaluate(seed: int, options: dict[str, bool]) -> None:
    runs, qrels = campaign(seed)
    depths = list(range(1, 31))
    level = 1 + seed % 2
    ties = ("trec_eval", "doc_id_asc")[seed % 2]
    check_curve(
        runs, qrels, MEASURES, depths, relevance_level=level, ties=ties,
        **options,
    )  # fmt: skip


def test_generated_campaign_has_its_edge_cases() -> None:
    """The generator makes what the test above claims to cover (a test that cannot fail is
    a defect)."""
    runs, qrels = campaign(0)
    table = ir.judge(runs, qrels, judged_only=True)
    condensed = table.filter(pl.col("rank").is_not_null()).select("run_id", "query_id").unique()
    assert ("r4", "q3") not in condensed.rows()  # empty once condensed
    assert (qrels["relevance"] < 0).any()
    assert qrels.filter(query_id="q5")["relevance"].max() == 0
    assert runs.group_by("run_id", "query_id", "score").len()["len"].max() > 1


def test_single_run_without_run_id_and_lazy_input(
    example: tuple[pl.DataFrame, pl.DataFrame],
) -> None:
    runs, qrels = example
    one = runs.filter(run_id="bm25").drop("run_id")
    curve = check_curve(one, qrels, MEASURES, [1, 5, 10, 200], residuals=True)
    assert curve.columns == ["measure", "depth", "value", "residual"]
    lazy = ir.depth_curve(runs.lazy(), qrels.lazy(), MEASURES, depths=[1, 5, 10, 200])
    assert isinstance(lazy, pl.LazyFrame)
    assert_bitwise(lazy.collect(), reference(runs, qrels, MEASURES, [1, 5, 10, 200]))


# --------------------------------------------------------------------------- the one-pass path


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(k for k, v in o.items() if v))
def test_one_pass_equals_the_per_depth_path(
    example: tuple[pl.DataFrame, pl.DataFrame],
    options: dict[str, bool],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """depth_curve's two paths: running sums read at every depth, and one evaluate per
    depth (what it does for the measures without a one-pass computation)."""
    runs, qrels = example
    depths = [1, 2, 3, 5, 10, 30, 99, 100, 101, 150]
    fast = ir.depth_curve(runs, qrels, MEASURES, depths=depths, pool_depth=20, **options)
    monkeypatch.setattr(stability, "_fast_kind", lambda *args: None)
    slow = ir.depth_curve(runs, qrels, MEASURES, depths=depths, pool_depth=20, **options)
    if options["residuals"] and not options["per_query"]:  # means of residuals: see above
        x, y = fast["residual"].fill_null(0.0), slow["residual"].fill_null(0.0)
        assert fast["residual"].is_null().to_list() == slow["residual"].is_null().to_list()
        assert ((x - y).abs() <= 1e-15 * x.abs()).all()
        fast, slow = fast.drop("residual"), slow.drop("residual")
    assert_bitwise(fast, slow)


def test_which_measures_take_one_pass() -> None:
    def kind(text: str, condensed: bool = False) -> str | None:
        curve = stability._resolve(text, 0)
        assert curve.base is not None
        return stability._fast_kind(curve.base, 1, condensed)

    assert [kind(m) for m in MEASURES] == ["AP", "nDCG", "Q", "RBP", "ERR", "P", "R", "RR"]
    assert [kind(m) for m in OTHERS] == [None] * len(OTHERS)
    assert kind("AP(judged_only=True)") is None
    assert kind("AP(judged_only=True)", condensed=True) == "AP"


# --------------------------------------------------------------------------- measure strings


def test_measure_strings(example: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    runs, qrels = example
    curve = ir.depth_curve(runs, qrels, ["map", "AP", "P(rel=2)", "AP"], depths=[5, 10])
    assert curve["measure"].unique(maintain_order=True).to_list() == ["map", "AP", "P(rel=2)"]
    assert curve.filter(measure="map")["value"].to_list() == (
        curve.filter(measure="AP")["value"].to_list()
    )
    rel2 = reference(runs, qrels, ["P(rel=2)"], [5, 10])
    assert_bitwise(curve.filter(measure="P(rel=2)"), rel2)
    rel1 = ir.depth_curve(runs, qrels, ["P"], depths=[5, 10])
    assert (rel1["value"] != rel2["value"]).any()  # rel=2 was read, not the default
    measure = ir.parse_measure("RBP(p=0.8)")
    by_object = ir.depth_curve(runs, qrels, measure, depths=[5])
    assert by_object["measure"].unique().to_list() == ["RBP(p=0.8)"]


# --------------------------------------------------------------------------- pooling, AP''


def test_pool_depth_is_depth_qrels(trec_covid: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    runs, qrels = trec_covid
    board = pl.read_csv(covid_path() / "leaderboard.csv")
    contributors = board.filter(pl.col("contributed judgments") == "yes")["run"].to_list()
    assert 0 < len(contributors) < 143
    depths = [1, 5, 10, 20, 50]
    curve = ir.depth_curve(
        runs, qrels, MEASURES, depths=depths, pool_depth=10, contributors=contributors
    )
    pooled = ir.depth_qrels(runs, qrels, depth=10, contributors=contributors)
    assert pooled.height < qrels.height
    assert_bitwise(curve.drop("pooled"), reference(runs, pooled, MEASURES, depths))
    assert curve.filter(pl.col("pooled"))["depth"].unique().to_list() == [10]
    full = ir.depth_curve(runs, qrels, ["AP"], depths=[50])
    assert (full["value"] != curve.filter(measure="AP", depth=50)["value"]).any()


@pytest.mark.parametrize("k", [1, 3, 10, 20, 100, 1000])
def test_ap_pooled_is_ap_on_the_depth_k_pool(
    example: tuple[pl.DataFrame, pl.DataFrame], k: int
) -> None:
    """AP'' at k is AP@k on the qrels of the depth-k pool of all the runs (a run's top k is
    in that pool, and R is R_k there); a query none of whose judged documents is in that
    pool keeps R_k = 0 and scores 0, where evaluate on those qrels skips it."""
    runs, qrels = example
    ours = ir.ap_pooled(runs, qrels, k, per_query=True)
    assert ours["measure"].unique().to_list() == [f"AP''@{k}"]
    pool = ir.depth_qrels(runs, qrels, depth=k)
    theirs = ir.evaluate(runs, pool, [f"AP@{k}"], per_query=True)
    both = ours.join(theirs, on=["run_id", "query_id"], how="left")
    found = both.filter(pl.col("value_right").is_not_null())
    assert np.array_equal(bits(found["value"])[1], bits(found["value_right"])[1])
    assert both.filter(pl.col("value_right").is_null())["value"].eq(0.0).all()
    assert found.height == theirs.height
    if k >= 3:  # every query has a pooled judgment from depth 3 on
        assert both.height == theirs.height
        mean = ir.ap_pooled(runs, qrels, k)
        assert np.array_equal(
            bits(mean["value"])[1], bits(ir.evaluate(runs, pool, [f"AP@{k}"])["value"])[1]
        )


def test_ap_pooled_pools_the_contributors_only(
    trec_covid: tuple[pl.DataFrame, pl.DataFrame],
) -> None:
    """R_k is the contributing runs' pool to depth k (seed 000: the R that emerges from
    pooling to depth k), also for the runs that did not contribute: it pooled every run
    handed in (TREC-COVID, 56 contributors of 143, pooled to 7: CSIROmedNIR's AP''@1 was
    0.0471 for the seed's 0.0638). For a contributor it is AP@k on the contributors'
    depth-k pool."""
    runs, qrels = trec_covid
    board = pl.read_csv(covid_path() / "leaderboard.csv")
    contributors = board.filter(pl.col("contributed judgments") == "yes")["run"].to_list()
    k = 3
    ours = ir.ap_pooled(runs, qrels, k, per_query=True, contributors=contributors)
    pool = ir.depth_qrels(runs, qrels, depth=k, contributors=contributors)
    theirs = ir.evaluate(runs.filter(pl.col("run_id").is_in(contributors)), pool,
                         [f"AP@{k}"], per_query=True)  # fmt: skip
    both = theirs.join(ours, on=["run_id", "query_id"], how="left")
    assert np.array_equal(bits(both["value"])[1], bits(both["value_right"])[1])
    every = ir.ap_pooled(runs, qrels, k, per_query=True)
    assert (every["value"] <= ours["value"]).all() and (every["value"] < ours["value"]).any()
    curve = ir.depth_curve(runs, qrels, ["AP''"], depths=[1, 7], pool_depth=7,
                           contributors=contributors)  # fmt: skip
    at1 = curve.filter(run_id="CSIROmedNIR", depth=1)["value"].item()
    assert round(at1, 4) == 0.0638
    with pytest.raises(ir.ParameterError, match="not among the 143 runs"):
        ir.ap_pooled(runs, qrels, k, contributors=["no such run"])


def test_ap_pooled_is_not_sn_ap(example: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    """AP'' divides by the relevant documents of the campaign's depth-k pool; AP(norm='self')
    (SN-AP) by those of the run's own top k: different, and AP'' <= SN-AP."""
    runs, qrels = example
    pooled = ir.ap_pooled(runs, qrels, 10, per_query=True)["value"].to_numpy()
    self_ = ir.evaluate(runs, qrels, ["AP(norm='self')@10"], per_query=True)["value"].to_numpy()
    assert (pooled != self_).any()
    assert (pooled <= self_ + 1e-15).all()


@pytest.mark.parametrize("pool_depth", [5, 20])
def test_fig5_ap_prime_and_ap_pooled_coincide_beyond_the_pool(
    trec_covid: tuple[pl.DataFrame, pl.DataFrame], pool_depth: int
) -> None:
    """Seed 000, Fig. 5's caption: on a campaign pooled to depth d, AP'_k (AP@k over R of
    the pooled qrels) and AP''_k (over R_k) are identical for k >= d; below d they differ."""
    runs, qrels = trec_covid
    board = pl.read_csv(covid_path() / "leaderboard.csv")
    contributors = board.filter(pl.col("contributed judgments") == "yes")["run"].to_list()
    runs = runs.filter(pl.col("run_id").is_in(contributors))
    curve = ir.depth_curve(
        runs, qrels, ["AP", "AP''"], depths=range(1, 201), pool_depth=pool_depth,
        per_query=True,
    )  # fmt: skip
    side = curve.pivot("measure", index=["run_id", "query_id", "depth"], values="value")
    beyond = side.filter(pl.col("depth") >= pool_depth)
    assert np.array_equal(bits(beyond["AP"])[1], bits(beyond["AP''"])[1])
    below = side.filter(pl.col("depth") < pool_depth)
    assert (below["AP"] != below["AP''"]).sum() > 0
    assert (below["AP''"] >= below["AP"]).all()  # R_k <= R_d for k < d


# --------------------------------------------------------------------------- volatility


def loops(curve: pl.DataFrame, measure: str, reference_depth: int) -> dict[str, Any]:
    """Position changes and overturned pairs by direct loops over runs and depths (the
    scores rounded to 12 decimals: means equal in exact arithmetic are equal)."""
    rows = curve.filter(measure=measure).with_columns(pl.col("value").round(12))
    depths = sorted(set(rows["depth"].to_list()))
    runs = sorted(set(rows["run_id"].to_list()))
    value = {(r, d): v for r, d, v in rows.select("run_id", "depth", "value").iter_rows()}

    def position(run: str, depth: int) -> int:
        return 1 + sum(1 for other in runs if value[other, depth] > value[run, depth])

    changes = {
        r: sum(position(r, a) != position(r, b) for a, b in itertools.pairwise(depths))
        for r in runs
    }
    overturned = {
        (d, a, b)
        for d in depths
        for a in runs
        for b in runs
        if value[a, reference_depth] > value[b, reference_depth] and value[a, d] < value[b, d]
    }
    return {"changes": changes, "overturned": overturned, "depths": depths, "runs": runs}


def test_tau_equals_scipy(trec_covid: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    runs, qrels = trec_covid
    depths = [1, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000]
    curve = ir.depth_curve(runs, qrels, ["AP", "P", "RR", "ERR"], depths=depths)
    result = ir.volatility(curve, reference_depth=1000)
    assert result.tau.height == 4 * len(depths)
    for measure, depth, tau in result.tau.select("measure", "depth", "tau").iter_rows():
        # the means rounded to 12 decimals: equal in exact arithmetic, equal here
        rows = curve.filter(measure=measure).sort("run_id").with_columns(pl.col("value").round(12))
        at = rows.filter(depth=depth)["value"].to_numpy()
        ref = rows.filter(depth=1000)["value"].to_numpy()
        expected = stats.kendalltau(at, ref).statistic
        assert math.isclose(tau, expected, rel_tol=0, abs_tol=1e-12), (measure, depth)
    ties = curve.filter(measure="P", depth=1)["value"]
    assert ties.n_unique() < ties.len()  # tau-b's tie correction is exercised


def test_means_equal_up_to_rounding_tie() -> None:
    """The mean of runs b and c over three queries is 0.2 in exact arithmetic, and
    0.20000000000000004 and 0.19999999999999998 as floats (the same scores summed in
    another order): they tie at depth 5, so no position changes and no pair turns."""
    b, c = (sum(v) / 3 for v in ([0.1, 0.1, 0.4], [0.1, 0.4, 0.1]))
    assert b != c and abs(b - c) < 1e-15
    curve = pl.DataFrame(
        {"run_id": ["a", "b", "c"] * 2, "measure": "P", "depth": [5] * 3 + [10] * 3,
         "value": [0.9, b, c, 0.9, 0.2, 0.2]}
    )  # fmt: skip
    v = ir.volatility(curve, reference_depth=10)
    assert v.tau["tau"].to_list() == pytest.approx([1.0, 1.0], abs=1e-15)
    assert v.overturned.height == 0
    assert dict(v.changes.select("run_id", "changes").iter_rows()) == {"a": 0, "b": 0, "c": 0}


def test_tau_is_nan_when_every_run_ties() -> None:
    curve = pl.DataFrame(
        {
            "run_id": ["a", "b", "c"] * 2,
            "measure": "P",
            "depth": [1] * 3 + [2] * 3,
            "value": [0.5, 0.5, 0.5, 0.1, 0.3, 0.2],
        }
    )
    tau = ir.volatility(curve, reference_depth=2).tau
    assert math.isnan(tau.filter(depth=1)["tau"].item())
    assert math.isnan(stats.kendalltau([0.5, 0.5, 0.5], [0.1, 0.3, 0.2]).statistic)
    assert tau.filter(depth=2)["tau"].item() == 1.0


def test_changes_and_overturned_pairs_equal_direct_loops() -> None:
    frames = []
    for seed in range(3):
        runs, qrels = campaign(seed)
        curve = ir.depth_curve(runs, qrels, ["AP", "P", "RBP(p=0.8)"], depths=range(1, 26))
        frames.append(curve.with_columns(pl.col("run_id") + f"-{seed}"))
    curve = pl.concat(frames)
    result = ir.volatility(curve.lazy(), reference_depth=25)
    assert result.reference_depth == 25
    for measure in ["AP", "P", "RBP(p=0.8)"]:
        expected = loops(curve, measure, 25)
        got = result.changes.filter(measure=measure)
        assert dict(got.select("run_id", "changes").iter_rows()) == expected["changes"]
        pairs = result.overturned.filter(measure=measure)
        assert set(pairs.select("depth", "run_a", "run_b").iter_rows()) == expected["overturned"]
        per_depth = pairs.group_by("depth").len()
        counts = dict(per_depth.iter_rows())
        for depth, n in result.tau.filter(measure=measure).select("depth", "overturned").rows():
            assert counts.get(depth, 0) == n
    assert result.overturned.height > 0
    assert result.changes["changes"].sum() > 0
    positions = result.positions.filter(measure="P", depth=25)
    assert positions["position"].min() == 1


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("depths", "message"),
    [
        ([0, 1, 2], "at least 1"),
        ([-5], "at least 1"),
        ([1, 3, 2], "not increasing"),
        ([1, 2, 2, 3], "twice"),
        ([], "empty"),
        ([1, float("nan")], "NaN"),
        ([1.0, 2.0], "positive integer"),
        ([True], "positive integer"),
        (10, "sorted list"),
        ("1,2", "sorted list"),
    ],
)
def test_bad_depths(example: tuple[pl.DataFrame, pl.DataFrame], depths: Any, message: str) -> None:
    runs, qrels = example
    with pytest.raises(ParameterError, match=message) as err:
        ir.depth_curve(runs, qrels, ["AP"], depths=depths)
    assert "depth" in str(err.value)


@pytest.mark.parametrize(
    ("measure", "message"),
    [
        ("nDCG@10", r"already has a cutoff \(k=10\).*'nDCG'"),
        ("P_10", r"already has a cutoff \(k=10\).*'P'"),
        ("ndcg_cut.10", "already has a cutoff"),
        ("ndcg_cut", "names 9 measures"),
        ("infAP", "infAP has no cutoff parameter"),
        ("bpref", "no cutoff parameter"),
    ],
)
def test_bad_measures(
    example: tuple[pl.DataFrame, pl.DataFrame], measure: str, message: str
) -> None:
    runs, qrels = example
    with pytest.raises(ParameterError, match=message):
        ir.depth_curve(runs, qrels, [measure], depths=[1, 2])


def test_bad_options(example: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    runs, qrels = example
    with pytest.raises(UnknownMeasureError):
        ir.depth_curve(runs, qrels, ["NotAMeasure"], depths=[1])
    with pytest.raises(ParameterError, match="pool_depth=0"):
        ir.depth_curve(runs, qrels, ["AP"], depths=[1], pool_depth=0)
    with pytest.raises(ParameterError, match="pool_depth=nan"):
        ir.depth_curve(runs, qrels, ["AP"], depths=[1], pool_depth=float("nan"))
    with pytest.raises(ParameterError, match="pass pool_depth too"):
        ir.depth_curve(runs, qrels, ["AP"], depths=[1], contributors=["bm25"])
    with pytest.raises(ParameterError, match="measures is empty"):
        ir.depth_curve(runs, qrels, [], depths=[1])
    with pytest.raises(ParameterError, match="condensed"):
        ir.depth_curve(runs, qrels, ["AP"], depths=[1], condensed="yes")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="k=0"):
        ir.ap_pooled(runs, qrels, 0)


def good_curve() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "run_id": ["a", "b"] * 2,
            "measure": "AP",
            "depth": [10, 10, 100, 100],
            "value": [0.1, 0.2, 0.3, 0.1],
        }
    )


@pytest.mark.parametrize(
    ("curve", "reference_depth", "message"),
    [
        (good_curve().drop("depth"), 100, "no column 'depth'"),
        (good_curve().rename({"value": "score"}), 100, "no column 'value'"),
        (good_curve(), 1000, r"reference_depth=1000 is not a depth.*reference_depth=100"),
        (good_curve(), 0, "reference_depth=0"),
        (good_curve().filter(run_id="a"), 100, "at least 2 runs"),
        (good_curve().with_columns(pl.lit("q1").alias("query_id")), 100, "per_query"),
        (good_curve().head(3), 100, "every run needs a value at every depth"),
    ],
)
def test_bad_volatility_input(curve: pl.DataFrame, reference_depth: int, message: str) -> None:
    with pytest.raises(ParameterError, match=message):
        ir.volatility(curve, reference_depth=reference_depth)


def _value_at(row: int, value: float | None) -> pl.Expr:
    at = pl.int_range(pl.len()) == row
    return pl.when(at).then(pl.lit(value, pl.Float64)).otherwise("value").alias("value")


@pytest.mark.parametrize(
    ("curve", "error", "message"),
    [
        (
            good_curve().with_columns(_value_at(2, float("nan"))),
            ScoreError,
            r"1 value\(s\) that are not finite numbers \(NaN, infinite or null\), e\.g\. "
            r"run 'a', 'AP' at depth 100: nan",
        ),
        (
            good_curve().with_columns(pl.lit(float("inf")).alias("value")),
            ScoreError,
            r"4 value\(s\) .* run 'a', 'AP' at depth 10: inf",
        ),
        (
            good_curve().with_columns(_value_at(3, float("-inf"))),
            ScoreError,
            r"run 'b', 'AP' at depth 100: -inf",
        ),
        (good_curve().with_columns(_value_at(1, None)), ScoreError, r"run 'b', 'AP' at depth 10"),
        (pl.concat([good_curve(), good_curve()]), DuplicateError, "2 values for run 'a'"),
        (good_curve().clear(), EmptyInputError, r"the curve holds no row.*ir\.depth_curve"),
    ],
)
def test_volatility_refuses_values_it_cannot_order(
    curve: pl.DataFrame, error: type, message: str
) -> None:
    with pytest.raises(error, match=message):
        ir.volatility(curve, reference_depth=100)


def test_volatility_refuses_other_objects() -> None:
    with pytest.raises(ParameterError, match="takes the frame depth_curve returns"):
        ir.volatility({"a": 1.0}, reference_depth=1)


# --------------------------------------------------------------------------- docs


def test_docs_stability_blocks_run_and_print_what_they_show() -> None:
    need_data()
    results = run_blocks(ROOT / "docs" / "stability.md")
    assert len(results) == 6
    for code, printed, expected in results:
        assert expected is not None, f"block without its output:\n{code}"
        assert normalise(printed) == normalise(expected), f"block:\n{code}"
