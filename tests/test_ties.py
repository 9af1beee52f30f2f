"""ir.tie_sensitivity (issue 20, part 5): the extremes of a measure over tie orders.

The oracle enumerates every order of the tied documents of each query (every permutation
of every group of equal scores, all groups at once), evaluates each order with
``ir.evaluate(..., ties="rank")`` and takes the minimum and maximum per query: the bounds
tie_sensitivity reports must be exactly those, so attained, for every registered measure it
accepts (and a measure it refuses must have a case where the grade-ordered ties miss them).
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_ireval as ir
from polars_ireval.analysis.ties import tie_orders
from polars_ireval.errors import ParameterError, ScoreError, UnknownMeasureError
from polars_ireval.registry import REGISTRY
from tests.conftest import ROOT, need_data
from tests.docblocks import normalise, run_blocks
from tests.strategies import distinct_scores, frame_collections, several_runs, tied_scores
from tests.support import every_measure, generated

#: Every registered measure (cutoff 3), and parameter values that change how it reads grades
#: and ranks, each measure string kept only where tie_sensitivity accepts it.
VARIANTS = [
    "P(rel=2)@3", "nDCG(gain='exp')@3", "nDCG(dcg='exp-log2')", "DCG(discount='root')@3",
    "DCG(discount='jk',b=3)", "DCG(discount='none')@3", "DCG(norm='scaled')@3",
    "DCG(discount='custom',weights=(1,0.5,0.5,0.2))", "AP(discount='square')",
    "AP(discount='none')", "AP(norm='min')", "AP(rel=2)", "ERR@3", "NERR10(p=0.5)@3",
    "INST(T=2)", "INST(max_rel=3,T=2)", "INSQ(max_rel=3)", "BPM(max_rel=3,T=2,K=3)", "BPM",
    "NERR8(max_rel=3)@3", "NERR11(max_rel=3,T=2)", "TBG(max_rel=3,halflife=2)",
    "U(max_rel=3,L=2)", "ED(measure='INST(max_rel=3)')", "ED(measure='BPM(T=2,K=3)')",
    "Bpref(rel=2)", "SetF(beta=2)", "Q(beta=0.5)", "utility(weights=(-1,2,-3,1))", "SP@3",
    "IPrec(recall=0.2)", "Rprec_mult(mult=0.5)", "RBP(p=0.5)@2", "RBP(ties='average')",
    "RBP_resid(p=0.5)@2", "HIT@2", "InvSq@2", "P(judged_only=True)@2", "AP(judged_only=True)",
    "AP", "RR", "RR(rel=2)", "Success(rel=2)@2", "SP", "nDCG", "DCG", "RBP(p=0.5)", "InvSq",
    "Rprec", "GradedP(gain='exp',discount='rank')@3",
]  # fmt: skip
MEASURES = [m for m in every_measure(3) + VARIANTS if ir.parse_measure(m).tie_bounded]

#: Measures refused, each with a case where the grade-ordered ties miss an extreme:
#: (measure, run rows (query, doc, score), qrels rows (query, doc, grade), options).
REFUSED: list[tuple[str, list[tuple[str, str, float]], list[tuple[str, str, int]], dict]] = [
    # a judged non-relevant document is a middle class: first it counts, cut it does not
    ("num_nonrel_judged_ret", [("q", "a", 1.0), ("q", "b", 1.0), ("q", "c", 1.0)],
     [("q", "a", 1), ("q", "b", 0)], {"max_depth": 1}),
    # grade 2 gains less than grade 1: grade order is not gain order
    ("nDCG(gains={0:0,1:3,2:1})", [("q", "a", 1.0), ("q", "b", 1.0), ("q", "c", 1.0)],
     [("q", "a", 1), ("q", "b", 2), ("q", "c", 0)], {}),
    # the self-normalised DCG's ideal is the best order of the top k it is given
    ("DCG(norm='self')@2", [("q", "a", 1.0), ("q", "b", 1.0), ("q", "c", 0.0), ("q", "d", 1.0)],
     [("q", "a", 1), ("q", "b", 1), ("q", "d", 2), ("q", "z", 2)], {}),
    # infAP estimates the precision above a relevant document from the judged ones there,
    # and a negative grade (pooled, unjudged) counts apart from both
    ("infAP", [("q", "a", 1.0), ("q", "b", 1.0), ("q", "c", 1.0), ("q", "d", 1.0)],
     [("q", "c", -1), ("q", "d", 2)], {}),
    # G's discount depends on how far the cumulated gain lags the ideal's
    ("G", [("q", "d3", 4.0), ("q", "d2", 3.0), ("q", "d0", 0.0), ("q", "d1", 0.0),
           ("q", "d4", 0.0)],
     [("q", "d0", 4), ("q", "d1", 2), ("q", "d2", 1), ("q", "x", -1)], {}),
    # Q's cumulated gain counts grades below rel: a gainful non-relevant document before a
    # relevant one can raise its term (one rank later, more gain)
    ("Q(rel=2)", [("q", "d2", 1.0), ("q", "d0", 0.0), ("q", "d1", 0.0), ("q", "d3", 0.0),
                  ("q", "d4", 0.0)],
     [("q", "d0", 1), ("q", "d1", 2), ("q", "d2", -1), ("q", "d3", 2), ("q", "y", 0)], {}),
    ("Q", [("q", "d2", 1.0), ("q", "d0", 0.0), ("q", "d1", 0.0), ("q", "d3", 0.0),
           ("q", "d4", 0.0), ("q", "d5", 0.0)],
     [("q", "d0", -1), ("q", "d1", 1), ("q", "d2", -1), ("q", "d4", 3), ("q", "d5", 0),
      ("q", "x", 3), ("q", "y", 3)], {"relevance_level": 2}),
]  # fmt: skip

OPTIONS: list[dict[str, Any]] = [
    {},
    {"max_depth": 3},
    {"judged_only": True},
    {"relevance_level": 2},
    {"missing": "zero"},
]


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ir.CoverageWarning)
        yield


# --------------------------------------------------------------------------- the oracle


def every_order(run: pl.DataFrame) -> pl.DataFrame:
    """Every order of the tied documents of each query, as rankings: order j of a query is
    the run ``run_id = j`` (with its rank in ``input_rank``); a query with fewer orders is
    absent from the later runs."""
    rows = []
    for (query,), ranking in run.group_by(["query_id"], maintain_order=True):
        ranking = ranking.sort("score", descending=True)
        groups = [
            list(zip(g["doc_id"], g["score"], strict=True))
            for _, g in ranking.group_by("score", maintain_order=True)
        ]
        for j, order in enumerate(itertools.product(*map(itertools.permutations, groups))):
            docs = [d for group in order for d in group]
            rows += [(str(j), query, d, s, i + 1) for i, (d, s) in enumerate(docs)]
    schema = ["run_id", "query_id", "doc_id", "score", "input_rank"]
    return pl.DataFrame(rows, schema=schema, orient="row")


def enumerated(
    run: pl.DataFrame, qrels: pl.DataFrame, measures: Sequence[str], **options: Any
) -> pl.DataFrame:
    """query_id, measure, the minimum and maximum of ``evaluate`` over every tie order."""
    # no ties (every order is given) and no missing (a query the run lacks has no order)
    options = {k: v for k, v in options.items() if k not in ("missing", "ties")}
    values = ir.evaluate(every_order(run), qrels, measures, per_query=True, ties="rank", **options)
    value = pl.col("value")
    return values.group_by("query_id", "measure").agg(
        value.min().alias("lo"), value.max().alias("hi")
    )


def check_against_enumeration(
    run: pl.DataFrame, qrels: pl.DataFrame, measures: Sequence[str], **options: Any
) -> None:
    got = ir.tie_sensitivity(run, qrels, measures, **options)
    want = enumerated(run, qrels, measures, **options)
    joined = got.join(want, on=["query_id", "measure"], how="left")
    ranked = set(run["query_id"])
    for row in joined.iter_rows(named=True):
        where = f"{row['measure']} on query {row['query_id']} ({options})"
        if row["query_id"] not in ranked:  # missing="zero": no order to vary
            assert row["min"] == row["max"] == row["value"], where
            assert not row["hinges_on_ties"], where
            continue
        if row["lo"] is None:  # a value the measure leaves undefined under every order
            assert row["min"] is None and row["max"] is None, where
            continue
        assert math.isclose(row["min"], row["lo"], rel_tol=0, abs_tol=1e-12), where
        assert math.isclose(row["max"], row["hi"], rel_tol=0, abs_tol=1e-12), where
        assert row["min"] - 1e-12 <= row["value"] <= row["max"] + 1e-12, where
        assert row["hinges_on_ties"] == (row["lo"] < row["hi"] - 1e-12), where
    # the same rows, in the same order, as evaluate(per_query=True) under the tie policy
    ties = options.get("ties", "trec_eval")
    plain = ir.evaluate(run, qrels, measures, per_query=True, ties=ties, **_evaluate(options))
    assert got.select("query_id", "measure", "value").equals(plain)


def _evaluate(options: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in options.items() if k != "ties"}


#: Small cases: up to 3 queries, pools of up to 6 documents, scores 0-2 (many ties), grades
#: -1 (judged, gain 0) to 3, unjudged documents and relevant ones never retrieved.
SMALL = frame_collections(queries=(1, 3), pool=(1, 6), scores=tied_scores(st.integers(0, 2)))
ENUMERATION = settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(map(str, o.items())) or "-")
@ENUMERATION
@given(frames=SMALL)
def test_bounds_are_the_extremes_over_every_tie_order(
    options: dict[str, Any], frames: tuple[pl.DataFrame, pl.DataFrame]
) -> None:
    run, qrels = frames
    level = options.get("relevance_level", 1)
    measures = [m for m in MEASURES if ir.parse_measure(m).tie_bounded_at(level)]
    check_against_enumeration(run, qrels, measures, **options)


@pytest.mark.parametrize("ties", ["doc_id_asc", "input_order"])
def test_value_follows_the_tie_policy(ties: str) -> None:
    run = pl.DataFrame(
        {"query_id": "q", "doc_id": ["b", "a", "c", "d"], "score": [1.0, 1.0, 1.0, 0.0]}
    )
    qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "d"], "relevance": [2, 1]})
    check_against_enumeration(run, qrels, ["nDCG@2", "RR", "P@1"], ties=ties)
    got = ir.tie_sensitivity(run, qrels, ["P@1"], ties=ties)
    # doc_id_asc puts a (relevant) first; input_order b (unjudged)
    assert got["value"].to_list() == [1.0 if ties == "doc_id_asc" else 0.0]
    assert got.select("min", "max").row(0) == (0.0, 1.0)


def test_every_registered_measure_is_bounded_or_refused() -> None:
    """Every measure of the registry is in the enumeration sample (accepted) or refused
    with a case below: a new measure cannot slip through untested."""
    accepted = {ir.parse_measure(m).name for m in MEASURES}
    refused = {ir.parse_measure(m).name for m, *_ in REFUSED}
    assert set(REGISTRY) - accepted - refused == set()


def test_q_is_bounded_where_every_gainful_grade_is_relevant() -> None:
    """Q at relevance level 1 (rel 0 or 1: every positive grade relevant) is accepted and
    checked by enumeration above; at level 2, or with rel=2, refused (cases in REFUSED)."""
    assert ir.parse_measure("Q").tie_bounded_at(1)
    assert ir.parse_measure("Q(rel=0)").tie_bounded_at(2)
    assert not ir.parse_measure("Q").tie_bounded_at(2)
    assert not ir.parse_measure("Q(rel=2)").tie_bounded_at(1)


@pytest.mark.parametrize(("measure", "run_rows", "qrels_rows", "options"), REFUSED)
def test_refused_measures_are_not_bounded_by_ordered_ties(
    measure: str, run_rows: list[Any], qrels_rows: list[Any], options: dict[str, Any]
) -> None:
    run = pl.DataFrame(run_rows, schema=["query_id", "doc_id", "score"], orient="row")
    qrels = pl.DataFrame(qrels_rows, schema=["query_id", "doc_id", "relevance"], orient="row")
    with pytest.raises(ParameterError, match="cannot bound") as info:
        ir.tie_sensitivity(run, qrels, ["P@5", measure], **options)
    assert repr(measure) in str(info.value) and "AP" in str(info.value)
    # why: the extremes over every order are not both at the grade-ordered ties
    orders = tie_orders(run, qrels).collect()
    at_ordered = ir.evaluate(orders, qrels, [measure], per_query=True, ties="rank", **options)
    truth = enumerated(run, qrels, [measure], **options)
    ordered = sorted(at_ordered["value"])
    assert (ordered[0], ordered[-1]) != (truth["lo"].item(), truth["hi"].item())


# --------------------------------------------------------------------------- the frame


@settings(max_examples=10, deadline=None, derandomize=True)
@given(frames=several_runs(max_ranked=5, scores=tied_scores(st.sampled_from([0.0, 1.0]))))
def test_several_runs_are_bounded_each_as_alone(frames: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    runs, qrels = frames
    measures = ["nDCG@3", "AP", "RBP"]
    both = ir.tie_sensitivity(runs, qrels, measures)
    assert both.columns == [
        "run_id", "query_id", "measure", "value", "min", "max", "hinges_on_ties"
    ]  # fmt: skip
    for (name,), one in runs.group_by(["run_id"]):
        alone = ir.tie_sensitivity(one.drop("run_id"), qrels, measures)
        mine = both.filter(pl.col("run_id") == name).drop("run_id")
        assert mine.equals(alone), name


def test_lazy_in_lazy_out_and_the_same_rows() -> None:
    runs, qrels = generated(seed=3)
    measures = ["nDCG@5", "AP", "P@3", "Bpref"]
    eager = ir.tie_sensitivity(runs, qrels, measures, missing="zero")
    lazy = ir.tie_sensitivity(runs.lazy(), qrels.lazy(), measures, missing="zero")
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect().equals(eager)
    assert eager["hinges_on_ties"].any() and not eager["hinges_on_ties"].all()


def test_max_depth_cuts_a_tie_by_its_order() -> None:
    """A tie straddling max_depth: which member is kept is part of the order."""
    run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"query_id": "q", "doc_id": ["b"], "relevance": [1]})
    got = ir.tie_sensitivity(run, qrels, ["NumRelRet", "SetP", "R@10"], max_depth=2)
    # trec_eval keeps c (doc id descending); the best order keeps b
    assert got.select("measure", "value", "min", "max").rows() == [
        ("NumRelRet", 0.0, 0.0, 1.0),
        ("SetP", 0.0, 0.0, 0.5),
        ("R@10", 0.0, 0.0, 1.0),
    ]


def test_float32_scores_make_ties() -> None:
    run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "score": [1.0000000001, 1.0]})
    qrels = pl.DataFrame({"query_id": "q", "doc_id": ["b"], "relevance": [1]})
    exact = ir.tie_sensitivity(run, qrels, ["RR"])
    rounded = ir.tie_sensitivity(run, qrels, ["RR"], scores="float32")
    assert exact.select("value", "min", "max").row(0) == (0.5, 0.5, 0.5)
    # tied at float32: trec_eval's order puts b first
    assert rounded.select("value", "min", "max").row(0) == (1.0, 0.5, 1.0)


# --------------------------------------------------------------------------- bad input


RUN = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "score": [1.0, 1.0]})
QRELS = pl.DataFrame({"query_id": "q", "doc_id": ["a"], "relevance": [1]})


@pytest.mark.parametrize("lazy", [False, True])
def test_nan_score_is_an_error(lazy: bool) -> None:
    run = RUN.with_columns(score=pl.Series([1.0, float("nan")]))
    with pytest.raises(ScoreError, match="score nan"):
        out = ir.tie_sensitivity(run.lazy() if lazy else run, QRELS, ["AP"])
        if lazy:
            out.collect()


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"ties": "rank"}, "ties='rank'.*trec_eval, doc_id_asc, input_order"),
        ({"ties": "bogus"}, "ties='bogus'.*average"),
        ({"max_depth": 0}, "max_depth=0"),
        ({"missing": "drop"}, "missing='drop'"),
        ({"relevance_level": 1.5}, "relevance_level=1.5"),
        ({"relevance_level": -1}, "relevance_level=-1: negative grades are never relevant"),
        ({"scores": "float16"}, "float16"),
        ({"validate": "yes"}, "validate='yes'"),
    ],
)
def test_bad_options_name_the_value(options: dict[str, Any], match: str) -> None:
    with pytest.raises(ParameterError, match=match):
        ir.tie_sensitivity(RUN, QRELS, ["AP"], **options)


def test_unknown_measure() -> None:
    with pytest.raises(UnknownMeasureError):
        ir.tie_sensitivity(RUN, QRELS, ["nope"])


def test_user_measure_is_refused_until_declared() -> None:
    """A measure outside the registry's bounded ones names the measures that are."""
    with pytest.raises(ParameterError, match="infAP") as info:
        ir.tie_sensitivity(RUN, QRELS, ["infAP"])
    assert "nDCG" in str(info.value)


# --------------------------------------------------------------------------- ties="average"


def averages(measure: str, depth: int | None = None) -> bool:
    """Whether ``evaluate(..., ties="average", max_depth=depth)`` computes ``measure``."""
    try:
        ir.parse_measure(measure).average_expr(1, depth)
    except ParameterError:
        return False
    return True


AVERAGED = [m for m in every_measure(3) + VARIANTS if averages(m)]


def enumerated_mean(
    run: pl.DataFrame, qrels: pl.DataFrame, measures: Sequence[str], **options: Any
) -> pl.DataFrame:
    """query_id, measure, the mean of ``evaluate`` over every tie order (each equally
    likely), added with math.fsum."""
    options = {k: v for k, v in options.items() if k not in ("missing", "ties")}
    values = ir.evaluate(every_order(run), qrels, measures, per_query=True, ties="rank", **options)
    rows = [
        (q, m, math.fsum(v) / len(v) if None not in v else None)
        for (q, m), v in (
            (key, group["value"].to_list()) for key, group in values.group_by("query_id", "measure")
        )
    ]
    return pl.DataFrame(rows, schema=["query_id", "measure", "mean"], orient="row")


def check_average(
    run: pl.DataFrame, qrels: pl.DataFrame, measures: Sequence[str], **options: Any
) -> None:
    got = ir.evaluate(run, qrels, measures, per_query=True, ties="average", **options)
    want = enumerated_mean(run, qrels, measures, **options)
    plain = ir.evaluate(run, qrels, measures, per_query=True, **options)
    assert got.select("query_id", "measure").equals(plain.select("query_id", "measure"))
    joined = got.join(want, on=["query_id", "measure"], how="left").join(
        plain.rename({"value": "plain"}), on=["query_id", "measure"]
    )
    ranked = set(run["query_id"])
    for row in joined.iter_rows(named=True):
        where = f"{row['measure']} on query {row['query_id']} ({options})"
        if row["query_id"] not in ranked:  # missing="zero": the value of an absent query
            assert row["value"] == row["plain"], where
        elif row["mean"] is None:
            assert row["value"] is None, where
        else:
            assert row["value"] is not None, where
            assert math.isclose(row["value"], row["mean"], rel_tol=0, abs_tol=1e-12), where


AVERAGE_OPTIONS = [o for o in OPTIONS] + [{"max_depth": 2, "missing": "zero"}]


@pytest.mark.parametrize(
    "options", AVERAGE_OPTIONS, ids=lambda o: ",".join(map(str, o.items())) or "-"
)
@ENUMERATION
@given(frames=SMALL)
def test_average_is_the_mean_over_every_tie_order(
    options: dict[str, Any], frames: tuple[pl.DataFrame, pl.DataFrame]
) -> None:
    run, qrels = frames
    depth = options.get("max_depth")
    measures = [m for m in AVERAGED if averages(m, depth) and not (depth and "judged_only" in m)]
    check_average(run, qrels, measures, **options)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(frames=frame_collections(queries=(1, 3), pool=(1, 12), scores=distinct_scores(0, 50)))
def test_average_without_ties_is_the_value(frames: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    run, qrels = frames
    got = ir.evaluate(run, qrels, AVERAGED, per_query=True, ties="average")
    want = ir.evaluate(run, qrels, AVERAGED, per_query=True)
    assert got.select("query_id", "measure").equals(want.select("query_id", "measure"))
    diff = (got["value"] - want["value"]).abs()
    assert (diff.fill_null(0.0) <= 1e-12).all()
    assert got["value"].is_null().equals(want["value"].is_null())


def test_average_by_hand() -> None:
    """a (relevant), b, c tied at the top, then d (relevant): a sits at rank 1, 2 or 3."""
    run = pl.DataFrame(
        {"query_id": "q", "doc_id": ["a", "b", "c", "d"], "score": [1.0, 1.0, 1.0, 0.0]}
    )
    qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "d"], "relevance": [1, 1]})
    measures = ["RR", "AP", "P@1", "P@2", "Success@2", "R@2", "NumRelRet", "SetP"]
    got = dict(ir.evaluate(run, qrels, measures, ties="average").iter_rows())
    rr = (1 + 1 / 2 + 1 / 3) / 3
    want = {
        "RR": rr,
        "AP": (rr + 2 / 4) / 2,  # d is the 2nd relevant at rank 4
        "P@1": 1 / 3,
        "P@2": (2 / 3) / 2,
        "Success@2": 2 / 3,
        "R@2": (2 / 3) / 2,
        "NumRelRet": 2.0,
        "SetP": 2 / 4,
    }
    for name, value in want.items():
        assert math.isclose(got[name], value, rel_tol=0, abs_tol=1e-15), name
    # max_depth=2 keeps two of a, b, c: a with probability 2/3
    cut = dict(ir.evaluate(run, qrels, ["NumRelRet", "SetP", "AP"], ties="average", max_depth=2)
               .iter_rows())  # fmt: skip
    assert math.isclose(cut["NumRelRet"], 2 / 3, abs_tol=1e-15)
    assert math.isclose(cut["SetP"], (2 / 3) / 2, abs_tol=1e-15)
    assert math.isclose(cut["AP"], (1 + 1 / 2) / 3 / 2, abs_tol=1e-15)


def test_rbp_average_is_rbp_evals_weights_without_a_cut() -> None:
    """Without a cutoff, rbp_eval's tie weights (RBP(ties='average')) are the expectation;
    with one that cuts a tie they are not, and ties='average' gives the exact one."""
    runs, qrels = generated(seed=5)
    got = ir.evaluate(
        runs, qrels, ["RBP", "RBP(ties='average')", "RBP@3", "RBP(ties='average')@3"],
        per_query=True, ties="average",
    )  # fmt: skip
    wide = got.pivot("measure", index=["run_id", "query_id"], values="value")
    assert ((wide["RBP"] - wide["RBP(ties='average')"]).abs() <= 1e-12).all()
    assert ((wide["RBP@3"] - wide["RBP(ties='average')@3"]).abs() > 1e-6).any()


@pytest.mark.parametrize("seed", [1, 3, 11])
def test_average_is_the_same_float_lazy_or_shuffled(seed: int) -> None:
    """The expected values are added in rank order: neither a lazy query nor another order
    of the input rows (which groups the rows otherwise) changes a bit."""
    runs, qrels = generated(seed=seed)
    options: dict[str, Any] = {"ties": "average", "per_query": True, "missing": "zero"}
    eager = ir.evaluate(runs, qrels, AVERAGED, **options)
    lazy = ir.evaluate(runs.lazy(), qrels.lazy(), AVERAGED, **options)
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect().equals(eager)
    rows = runs.sample(fraction=1.0, shuffle=True, seed=seed)
    judgments = qrels.sample(fraction=1.0, shuffle=True, seed=seed + 1)
    assert ir.evaluate(rows, judgments, AVERAGED, **options).equals(eager)


def test_tie_sensitivity_reports_the_average() -> None:
    runs, qrels = generated(seed=7)
    measures = ["nDCG@5", "AP", "RR", "P@3"]
    got = ir.tie_sensitivity(runs, qrels, measures, ties="average")
    want = ir.evaluate(runs, qrels, measures, per_query=True, ties="average")
    assert got.select("run_id", "query_id", "measure", "value").equals(want)
    assert (got["min"] - 1e-12 <= got["value"]).all()
    assert (got["value"] <= got["max"] + 1e-12).all()
    assert (
        got.filter(~pl.col("hinges_on_ties"))
        .select((pl.col("value") - pl.col("min")).abs().max())
        .item()
        <= 1e-12
    )


@pytest.mark.parametrize(
    ("measures", "options", "match"),
    [
        (["AP"], {"residuals": True}, "residuals=False"),
        (["ERR"], {"residuals": True}, "residuals=False"),
        (["ERR"], {"residuals": True, "engine": "duckdb"}, "residuals=False"),
    ],
)
def test_average_refusals_say_why(measures: list[str], options: dict[str, Any], match: str) -> None:
    with pytest.raises(ParameterError, match=match):
        ir.evaluate(RUN, QRELS, measures, ties="average", **options)


def test_judge_has_no_average_order() -> None:
    with pytest.raises(ParameterError, match="ties='average': must be one of trec_eval"):
        ir.judge(RUN, QRELS, ties="average")


# --------------------------------------------------------------------------- docs


def test_docs_ties_blocks_run_and_print_what_they_show() -> None:
    need_data()
    results = run_blocks(ROOT / "docs" / "ties.md")
    assert len(results) == 3
    for code, printed, expected in results:
        assert expected is not None, f"block without its output:\n{code}"
        assert normalise(printed) == normalise(expected), f"block:\n{code}"
