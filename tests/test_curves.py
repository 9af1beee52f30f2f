"""ir.pr_curve, ir.roc_curve, ir.confusion (polars_ireval/curves.py).

* pr_curve against every ``iprec_at_recall_*`` line trec_eval printed for the shared data
  (trec_eval 9 and 10, ``-q``, ``-c``, ``-M``, ``-l``, custom recall levels): equal at the 4
  printed decimals; against pytrec_eval (computed here, full precision) to 1e-9 on the
  trec_eval test data, CAsT 2021 and all 143 TREC-COVID runs.
* pr_curve against the library's own measures (IPrec, 11pt_avg, AP, NumRelRet).
* roc_curve and confusion on a case worked by hand from seed 003's definitions, and
  against NumRet, NumRelRet, P@k, R@k.
* Bad input: each error names the value and the fix.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

import polars_ireval as ir
from polars_ireval.analysis.curves import RECALL_11PT
from tests.conftest import CAST, TREC_TEST, need_data
from tests.refs import read_trec_eval_output

pytestmark = pytest.mark.filterwarnings("ignore::polars_ireval.CoverageWarning")

CAST_QRELS = "qrels.cast2021-docs.txt"
CAST_RUNS = ["org_convdr", "org_convdr_bert", "org_manual_ance", "org_manual_ance_bert",
             "org_manual_bm25"]  # fmt: skip
T9, T10 = "trec_eval9", "trec_eval10"


# --------------------------------------------------------------------------- trec_eval text

# (id, qrels, run, expected output, pr_curve options); paths relative to ../shared/data
_SUITE = [  # trec_eval's own expected outputs (v9.0.8 and v10.0; README of trec_eval_test)
    ("aq", "qrels.test", "results.test", "out.test.aq", {}),
    ("aqc", "qrels.test", "results.trunc", "out.test.aqc", {"missing": "zero"}),
    ("aqcM", "qrels.test", "results.trunc", "out.test.aqcM", {"missing": "zero", "max_depth": 100}),
    ("aql", "qrels.rel_level", "results.test", "out.test.aql", {"relevance_level": 2}),
    ("meas_params", "qrels.test", "results.test", "out.test.meas_params", {"points": True}),
]
TREC_EVAL_CASES = [
    *[
        (f"{name}-9", f"trec_eval_test/{q}", f"trec_eval_test/{r}",
         f"trec_eval_test/expected_v9.0.8/{out}", {**opts, "rounding": T9})
        for name, q, r, out, opts in _SUITE
    ],
    *[
        (f"{name}-10", f"trec_eval_test/{q}", f"trec_eval_test/{r}",
         f"trec_eval_test/{out}", {**opts, "rounding": T10})
        for name, q, r, out, opts in _SUITE
    ],
    *[  # refs/ made by make_refs.py with the trec_eval 9.0.4 and 10.0 binaries
        (f"{q}-{r}-{tag}-l{level}-{mode}", f"trec_eval_test/{q}", f"trec_eval_test/{r}",
         f"trec_eval_test/refs/{q}/{r}.trec_eval-{tag}.l{level}.{mode}.txt",
         {"relevance_level": level, "rounding": T10 if tag == "10.0" else T9,
          **({"missing": "zero"} if mode == "c" else {})})
        for q, r, tags, levels in [
            ("qrels.test", "results.test", ("9.0.4", "10.0"), (1,)),
            ("qrels.test", "results.trunc", ("9.0.4",), (1,)),
            ("qrels.rel_level", "results.test", ("9.0.4", "10.0"), (1, 2)),
            ("qrels.comment.test", "results.comment.test", ("9.0.4", "10.0"), (1, 2)),
        ]
        for tag in tags
        for level in levels
        for mode in ("q", "c")
    ],
    *[
        (f"cast-{run}-{tag}-l{level}-{mode}", f"cast2021/{CAST_QRELS}", f"cast2021/runs/{run}.run",
         f"cast2021/refs/{run}.trec_eval-{tag}.l{level}.{mode}.txt",
         {"relevance_level": level, "rounding": T10 if tag == "10.0" else T9,
          **({"missing": "zero"} if mode == "c" else {})})
        for run in CAST_RUNS
        for tag in ("9.0.4", "10.0")
        for level in (1, 2)
        for mode in ("q", "c")
    ],
]  # fmt: skip


def _reference(path: Path) -> pl.DataFrame:
    """The ``iprec_at_recall_*`` lines of a trec_eval output: query_id, recall, text."""
    for candidate in (path, path.with_name(path.name + ".gz")):
        if candidate.exists():
            want = read_trec_eval_output(candidate)
            break
    else:
        pytest.fail(f"reference output {path} is missing from the shared data")
    level = pl.col("measure").str.extract(r"^iprec_at_recall_([0-9.]+)$").cast(pl.Float64)
    return want.with_columns(level.alias("recall")).filter(pl.col("recall").is_not_null())


@pytest.mark.parametrize(
    ("qrels", "run", "expected", "options"),
    [pytest.param(*case[1:], id=case[0]) for case in TREC_EVAL_CASES],
)
def test_pr_curve_equals_trec_eval_iprec_at_recall(
    qrels: str, run: str, expected: str, options: dict
) -> None:
    data = need_data()
    want = _reference(data / expected)
    options = dict(options)
    if options.pop("points", False):  # trec_eval -m iprec_at_recall.0.10,...: its levels
        options["recall_points"] = tuple(want["recall"].unique().sort())
    else:
        assert want["recall"].unique().sort().to_list() == list(RECALL_11PT)
    per_query = ir.pr_curve(data / run, data / qrels, per_query=True, **options)
    mean = ir.pr_curve(data / run, data / qrels, **options)
    got = pl.concat(
        [per_query, mean.select(pl.lit("all").alias("query_id"), "recall", "precision")]
    ).with_columns(pl.col("precision").map_elements(lambda v: f"{v:6.4f}", pl.String))
    both = want.join(got, on=["query_id", "recall"], how="left", suffix="_got")
    assert both.height == want.height >= 11
    assert both.filter(pl.col("query_id") == "all").height == want["recall"].n_unique()
    wrong = both.filter(pl.col("precision").is_null() | (pl.col("text") != pl.col("precision")))
    assert wrong.is_empty(), f"{wrong.height} of {want.height} values differ:\n{wrong.head(10)}"


def test_the_golden_cases_cover_every_reference_file() -> None:
    """Every trec_eval output in the shared data with iprec_at_recall lines is a case."""
    data = need_data()
    listed = {(data / c[3]).resolve() for c in TREC_EVAL_CASES}
    found = {
        p.with_name(p.name.removesuffix(".gz")).resolve()
        for folder in (TREC_TEST / "refs", CAST / "refs")
        for p in folder.rglob("*.trec_eval-*.txt*")
    }
    assert found and found <= listed, sorted(map(str, found - listed))
    assert len(TREC_EVAL_CASES) == 10 + 22 + 40


# --------------------------------------------------------------------------- pytrec_eval


def _pytrec_curves(run: pl.DataFrame, qrels: pl.DataFrame, level: int) -> pl.DataFrame:
    """pytrec_eval's iprec_at_recall per (run, query, level), full precision."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    judged: dict[str, dict[str, int]] = {}
    for q, d, r in qrels.select("query_id", "doc_id", "relevance").iter_rows():
        judged.setdefault(q, {})[d] = r
    evaluator = pytrec_eval.RelevanceEvaluator(judged, {"iprec_at_recall"}, relevance_level=level)
    if "run_id" not in run.columns:
        run = run.with_columns(pl.lit("run").alias("run_id"))
    rows = []
    for (run_id,), one in run.partition_by("run_id", as_dict=True).items():
        ranked = {
            q: dict(zip(part["doc_id"].to_list(), part["score"].to_list(), strict=True))
            for (q,), part in one.partition_by("query_id", as_dict=True).items()
        }
        for q, values in evaluator.evaluate(ranked).items():
            rows += [(run_id, q, float(m.rsplit("_", 1)[1]), v) for m, v in values.items()]
    return pl.DataFrame(rows, schema=["run_id", "query_id", "recall", "want"], orient="row")


def _check_against_pytrec(run: pl.DataFrame, qrels: pl.DataFrame, level: int) -> int:
    # pytrec_eval (trec_eval 9.0.8's code) holds scores as 32-bit floats: round them first,
    # so that both sides rank the same documents in the same order
    run = run.with_columns(pl.col("score").cast(pl.Float32).cast(pl.Float64))
    want = _pytrec_curves(run, qrels, level)
    got = ir.pr_curve(run, qrels, per_query=True, relevance_level=level)
    if "run_id" not in got.columns:
        got = got.with_columns(pl.lit("run").alias("run_id"))
    both = want.join(got, on=["run_id", "query_id", "recall"], how="full")
    assert both.height == want.height == got.height > 0
    err = both.select((pl.col("want") - pl.col("precision")).abs().max()).item()
    assert err <= 1e-9
    # the mean over queries (trec_eval's 'all' line, which pytrec_eval leaves to its caller)
    mean = ir.pr_curve(run, qrels, relevance_level=level)
    if "run_id" not in mean.columns:
        mean = mean.with_columns(pl.lit("run").alias("run_id"))
    expected = want.group_by("run_id", "recall").agg(pl.col("want").mean())
    both = expected.join(mean, on=["run_id", "recall"], how="full")
    assert both.height == expected.height == mean.height
    assert both.select((pl.col("want") - pl.col("precision")).abs().max()).item() <= 1e-9
    return want.height


@pytest.mark.parametrize(
    ("qrels", "run", "level"),
    [
        ("qrels.test", "results.test", 1),
        ("qrels.test", "results.trunc", 1),
        ("qrels.rel_level", "results.test", 1),
        ("qrels.rel_level", "results.test", 2),
        ("qrels.comment.test", "results.comment.test", 1),
        ("qrels.comment.test", "results.comment.test", 2),
        ("qrels-302.test", "results-302.test", 1),  # the case of trec_eval's rounding change
    ],
)
def test_pr_curve_equals_pytrec_eval_on_the_trec_eval_test_data(
    qrels: str, run: str, level: int
) -> None:
    need_data()
    assert (
        _check_against_pytrec(ir.read_run(TREC_TEST / run), ir.read_qrels(TREC_TEST / qrels), level)
        >= 11
    )


@pytest.mark.parametrize("level", [1, 2])
def test_pr_curve_equals_pytrec_eval_on_cast2021(level: int) -> None:
    need_data()
    runs = ir.read_run([CAST / "runs" / f"{r}.run" for r in CAST_RUNS], run_id="file")
    assert _check_against_pytrec(runs, ir.read_qrels(CAST / CAST_QRELS), level) > 5 * 11 * 100


def test_pr_curve_equals_pytrec_eval_on_every_trec_covid_run(trec_covid) -> None:
    runs, qrels = trec_covid
    assert runs["run_id"].n_unique() == 143
    assert _check_against_pytrec(runs, qrels, 1) == 143 * 30 * 11


# --------------------------------------------------------------------------- own measures


@pytest.fixture(scope="module")
def example() -> tuple[pl.DataFrame, pl.DataFrame]:
    return ir.read_run(ir.example_path("runs"), run_id="file"), ir.read_qrels(
        ir.example_path("qrels.txt")
    )


KEYS = ["run_id", "query_id"]


@pytest.mark.parametrize("rounding", [T9, T10])
@pytest.mark.parametrize("level", [1, 2])
def test_pr_curve_equals_iprec_and_11pt_avg(example, rounding: str, level: int) -> None:
    runs, qrels = example
    curve = ir.pr_curve(runs, qrels, per_query=True, relevance_level=level, rounding=rounding)
    names = {f"IPrec(rounding='{rounding}')@{x}": x for x in RECALL_11PT}
    names["11pt_avg(rounding='" + rounding + "')"] = -1.0
    per_q = ir.evaluate(runs, qrels, list(names), per_query=True, relevance_level=level)
    per_q = per_q.with_columns(pl.col("measure").replace_strict(names).alias("recall"))
    both = per_q.filter(pl.col("recall") >= 0).join(curve, on=[*KEYS, "recall"], how="full")
    assert both.height == curve.height == 3 * 25 * 11
    assert both.select((pl.col("value") - pl.col("precision")).abs().max()).item() <= 1e-12
    avg = curve.group_by(KEYS).agg(pl.col("precision").mean())
    both = per_q.filter(pl.col("recall") < 0).join(avg, on=KEYS, how="full")
    assert both.height == 75
    assert both.select((pl.col("value") - pl.col("precision")).abs().max()).item() <= 1e-12


def test_every_recall_level_against_ap_and_num_rel_ret(example) -> None:
    """The raw curve at every relevant document retrieved sums to AP · R (AP's definition),
    and has one row per relevant document retrieved (the interpolated one, one more)."""
    runs, qrels = example
    stats = ir.evaluate(runs, qrels, ["AP", "NumRel", "NumRelRet"], per_query=True).pivot(
        "measure", index=KEYS, values="value"
    )
    raw = ir.pr_curve(runs, qrels, recall_points="all", per_query=True, interpolated=False)
    smooth = ir.pr_curve(runs, qrels, recall_points="all", per_query=True)
    sums = raw.group_by(KEYS).agg(pl.col("precision").sum().alias("sum"), pl.len().alias("n"))
    rows = smooth.group_by(KEYS).agg(pl.len().alias("m"))
    both = stats.join(sums, on=KEYS, how="left").join(rows, on=KEYS, how="left")
    assert both.height == 75 and both["m"].null_count() == 0
    ap = pl.col("sum").fill_null(0.0) / pl.col("NumRel")
    assert both.select((ap - pl.col("AP")).abs().max()).item() <= 1e-12
    assert (both["n"].fill_null(0) == both["NumRelRet"]).all()
    assert (both["m"] == both["NumRelRet"] + 1).all()
    # recall k/R, interpolated precision non-increasing and never below the raw precision
    assert (smooth.group_by(KEYS).agg(pl.col("precision").diff().max() <= 0)["precision"]).all()
    joined = raw.join(smooth, on=[*KEYS, "recall"], suffix="_ip")
    assert joined.height == raw.height
    assert (joined["precision_ip"] >= joined["precision"]).all()


def test_pr_curve_mean_is_the_mean_of_the_query_curves(example) -> None:
    runs, qrels = example
    per_q = ir.pr_curve(runs, qrels, per_query=True, interpolated=False)
    mean = ir.pr_curve(runs, qrels, interpolated=False)
    assert mean.columns == ["run_id", "recall", "precision"] and mean.height == 33
    again = per_q.group_by("run_id", "recall").agg(pl.col("precision").mean())
    both = mean.join(again, on=["run_id", "recall"], suffix="_2")
    assert both.height == 33
    assert both.select((pl.col("precision") - pl.col("precision_2")).abs().max()).item() < 1e-12
    assert mean.sort("run_id", "recall").equals(mean)


def test_lazy_shuffled_and_split_inputs_give_the_same_curves(example) -> None:
    runs, qrels = example
    want = ir.pr_curve(runs, qrels, per_query=True)
    lazy = ir.pr_curve(runs.lazy(), qrels.lazy(), per_query=True)
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect().equals(want)
    shuffled = ir.pr_curve(runs.sample(fraction=1.0, shuffle=True, seed=3), qrels, per_query=True)
    assert shuffled.equals(want)
    one = ir.pr_curve(runs.filter(run_id="bm25").drop("run_id"), qrels, per_query=True)
    assert one.equals(want.filter(run_id="bm25").drop("run_id"))
    roc = ir.roc_curve(runs, qrels, n_docs=5000)
    assert ir.roc_curve(runs.lazy(), qrels.lazy(), n_docs=5000).collect().equals(roc)
    counts = ir.confusion(runs, qrels, n_docs=5000, k=10)
    assert ir.confusion(runs.lazy(), qrels, n_docs=5000, k=10).collect().equals(counts)


# --------------------------------------------------------------------------- ROC, confusion

# Seed 003 (section 2, Table 1): TP are relevant documents in the ranking, FP non-relevant
# documents in the ranking, TN non-relevant documents missing from it, FN relevant
# documents missing from it. Section 3.1: TPR = recall = TP / (TP + FN), FPR = FP / (FP + TN).
#
# A collection of N = 20 documents. Query q: d1, d3, d4, d9 relevant (R = 4), d2 and d6
# judged non-relevant, d5 unjudged (counted non-relevant); the run ranks
#     rank  1   2   3   4   5   6
#     doc   d1  d2  d3  d5  d4  d6        (d9 never retrieved)
#     rel   1   0   1   -   1   0
# Negatives: N - R = 16 documents (FP + TN).
#     rank i   TP  FP  FN  TN   TPR = TP/4  FPR = FP/16
#     0        0   0   4   16   0           0
#     1        1   0   3   16   1/4         0
#     2        1   1   3   15   1/4         1/16
#     3        2   1   2   15   2/4         1/16
#     4        2   2   2   14   2/4         2/16
#     5        3   2   1   14   3/4         2/16
#     6        3   3   1   13   3/4         3/16
# The whole ranking: precision (eq. 3) 3/6, recall (eq. 4) 3/4, accuracy (eq. 5)
# (3 + 13)/20 = 0.8. Its top 3: TP 2, FP 1, FN 2, TN 15, accuracy 17/20.
# Query r: nothing relevant (R = 0): TPR undefined (null); e1 judged 0, e2 unjudged;
# FPR = FP / 20.
HAND_RUN = pl.DataFrame(
    {
        "query_id": ["q"] * 6 + ["r"] * 2,
        "doc_id": ["d1", "d2", "d3", "d5", "d4", "d6", "e1", "e2"],
        "score": [9.0, 8.0, 7.0, 6.0, 5.0, 4.0, 2.0, 1.0],
    }
)
HAND_QRELS = pl.DataFrame(
    {
        "query_id": ["q"] * 6 + ["r"],
        "doc_id": ["d1", "d3", "d4", "d9", "d2", "d6", "e1"],
        "relevance": [1, 2, 1, 1, 0, 0, 0],
    }
)
HAND_ROC = [  # (rank, TP, FP, TPR, FPR) for q, then r
    ("q", 0, 0, 0, 0.0, 0.0),
    ("q", 1, 1, 0, 1 / 4, 0.0),
    ("q", 2, 1, 1, 1 / 4, 1 / 16),
    ("q", 3, 2, 1, 2 / 4, 1 / 16),
    ("q", 4, 2, 2, 2 / 4, 2 / 16),
    ("q", 5, 3, 2, 3 / 4, 2 / 16),
    ("q", 6, 3, 3, 3 / 4, 3 / 16),
    ("r", 0, 0, 0, None, 0.0),
    ("r", 1, 0, 1, None, 1 / 20),
    ("r", 2, 0, 2, None, 2 / 20),
]


def test_roc_curve_worked_by_hand() -> None:
    got = ir.roc_curve(HAND_RUN, HAND_QRELS, n_docs=20)
    assert got.columns == ["query_id", "rank", "tp", "fp", "tpr", "fpr"]
    assert got.rows() == HAND_ROC
    # relevance_level=2: only d3 is relevant (R = 1), 19 negatives
    strict = ir.roc_curve(HAND_RUN, HAND_QRELS, n_docs=20, relevance_level=2)
    q = strict.filter(query_id="q")
    assert q["tp"].to_list() == [0, 0, 0, 1, 1, 1, 1]
    assert q["fpr"].to_list() == [x / 19 for x in (0, 1, 2, 2, 3, 4, 5)]


def test_roc_curve_follows_the_tie_policy() -> None:
    """d3 and d5 tied: trec_eval puts the larger doc id (d5) first."""
    tied = HAND_RUN.with_columns(
        pl.when(pl.col("doc_id") == "d3").then(6.0).otherwise(pl.col("score")).alias("score")
    )
    q = ir.roc_curve(tied, HAND_QRELS, n_docs=20).filter(query_id="q")
    assert q["tp"].to_list() == [0, 1, 1, 1, 2, 3, 3]
    asc = ir.roc_curve(tied, HAND_QRELS, n_docs=20, ties="doc_id_asc").filter(query_id="q")
    assert asc["tp"].to_list() == [0, 1, 1, 2, 2, 3, 3]


def test_confusion_worked_by_hand() -> None:
    got = ir.confusion(HAND_RUN, HAND_QRELS, n_docs=20)
    assert got.columns == ["query_id", "tp", "fp", "fn", "tn"]
    assert got.rows() == [("q", 3, 3, 1, 13), ("r", 0, 2, 0, 18)]
    top3 = ir.confusion(HAND_RUN, HAND_QRELS, n_docs=20, k=3)
    assert top3.rows() == [("q", 2, 1, 2, 15), ("r", 0, 2, 0, 18)]
    # eqs. 3 to 5 from the counts
    q = got.filter(query_id="q").row(0, named=True)
    assert q["tp"] / (q["tp"] + q["fp"]) == 3 / 6
    assert q["tp"] / (q["tp"] + q["fn"]) == 3 / 4
    assert (q["tp"] + q["tn"]) / 20 == 0.8
    q3 = top3.filter(query_id="q").row(0, named=True)
    assert (q3["tp"] + q3["tn"]) / 20 == 17 / 20
    # every ranking's four cells add up to the collection
    assert (got.select(pl.sum_horizontal("tp", "fp", "fn", "tn") == 20)).to_series().all()
    # a judged query the run lacks, with missing="zero": nothing retrieved
    absent = ir.confusion(HAND_RUN.filter(query_id="q"), HAND_QRELS, n_docs=20, missing="zero")
    assert absent.rows() == [("q", 3, 3, 1, 13), ("r", 0, 0, 0, 20)]
    roc = ir.roc_curve(HAND_RUN.filter(query_id="q"), HAND_QRELS, n_docs=20, missing="zero")
    assert roc.filter(query_id="r").rows() == [("r", 0, 0, 0, None, 0.0)]


def test_confusion_and_roc_agree_with_the_measures(example) -> None:
    runs, qrels = example
    n_docs = 25 * 200  # the example's pools: 200 documents per query
    names = ["NumRet", "NumRel", "NumRelRet", "P@10", "R@10"]
    stats = ir.evaluate(runs, qrels, names, per_query=True).pivot(
        "measure", index=KEYS, values="value"
    )
    whole = ir.confusion(runs, qrels, n_docs=n_docs)
    top10 = ir.confusion(runs, qrels, n_docs=n_docs, k=10)
    roc = ir.roc_curve(runs, qrels, n_docs=n_docs)
    last = roc.group_by(KEYS).agg(pl.all().last(), pl.len().alias("rows"))
    both = (
        stats.join(whole, on=KEYS)
        .join(top10, on=KEYS, suffix="_10")
        .join(last, on=KEYS, suffix="_roc")
    )
    assert both.height == 75
    assert (both["tp"] == both["NumRelRet"]).all()
    assert (both["tp"] + both["fp"] == both["NumRet"]).all()
    assert (both["tp"] + both["fn"] == both["NumRel"]).all()
    assert (both["tn"] == n_docs - both["NumRet"] - both["fn"]).all()
    assert both.select((pl.col("tp_10") / 10 - pl.col("P@10")).abs().max()).item() < 1e-12
    recall = pl.col("tp_10") / (pl.col("tp_10") + pl.col("fn_10"))
    assert both.select((recall - pl.col("R@10")).abs().max()).item() < 1e-12
    assert (both["tp_roc"] == both["tp"]).all() and (both["fp_roc"] == both["fp"]).all()
    assert (both["rows"] == both["NumRet"] + 1).all()
    # ROC: monotone from (0, 0); FPR = FP / (N - R)
    steps = roc.group_by(KEYS).agg(
        pl.col("tpr").diff().min().alias("dt"), pl.col("fpr").diff().min().alias("df")
    )
    assert (steps["dt"] >= 0).all() and (steps["df"] >= 0).all()
    fpr = pl.col("fp_roc") / (n_docs - pl.col("NumRel"))
    assert both.select((fpr - pl.col("fpr")).abs().max()).item() < 1e-15


def test_roc_and_confusion_on_trec_covid(trec_covid) -> None:
    runs, qrels = trec_covid
    runs = runs.filter(pl.col("run_id").is_in(["bm25_baseline", "run1", "BBGhelani1"]))
    n_docs = pl.concat([runs["doc_id"], qrels["doc_id"]]).n_unique()  # a lower bound of N
    counts = ir.confusion(runs, qrels, n_docs=n_docs, k=100)
    stats = ir.evaluate(runs, qrels, ["R@100", "NumRel"], per_query=True).pivot(
        "measure", index=KEYS, values="value"
    )
    both = counts.join(stats, on=KEYS)
    assert both.height == 3 * 30
    recall = pl.col("tp") / (pl.col("tp") + pl.col("fn"))
    assert both.select((recall - pl.col("R@100")).abs().max()).item() < 1e-12
    roc = ir.roc_curve(runs, qrels, n_docs=n_docs)
    sizes = runs.group_by(KEYS).len()
    assert roc.height == sizes["len"].sum() + sizes.height


# --------------------------------------------------------------------------- bad input

BAD = [
    (ir.pr_curve, {"recall_points": "12pt"}, r"recall_points='12pt' is unknown: use '11pt'"),
    (ir.pr_curve, {"recall_points": (0.5, 1.5)}, r"recall_points=\(0.5, 1.5\).*in \[0, 1\]"),
    (ir.pr_curve, {"recall_points": []}, r"recall_points=\[\].*non-empty sequence"),
    (ir.pr_curve, {"recall_points": ("a",)}, r"recall_points=\('a',\).*recall levels in"),
    (ir.pr_curve, {"recall_points": (0.5, 0.5)}, r"lists 0.5 more than once: give each"),
    (ir.pr_curve, {"recall_points": "all"}, r"recall_points='all'.*pass per_query=True"),
    (ir.pr_curve, {"rounding": "trec_eval11"}, r"rounding='trec_eval11': use 'trec_eval9'"),
    (ir.pr_curve, {"interpolated": "yes"}, r"interpolated='yes': must be True or False"),
    (ir.pr_curve, {"relevance_level": "1"}, r"relevance_level='1': must be an integer grade"),
    (ir.pr_curve, {"missing": "drop"}, r"missing='drop': must be one of skip, zero, error"),
    (ir.pr_curve, {"ties": "random"}, r"ties='random': must be one of trec_eval"),
    (ir.pr_curve, {"max_depth": 0}, r"max_depth=0: must be a positive integer"),
    (ir.roc_curve, {"n_docs": 0}, r"n_docs=0: the number of documents in the collection"),
    (ir.roc_curve, {"n_docs": -5}, r"n_docs=-5: .* must be a\s+positive integer"),
    (ir.roc_curve, {"n_docs": 20.0}, r"n_docs=20.0: .* positive integer"),
    (ir.roc_curve, {"n_docs": True}, r"n_docs=True: .* positive integer"),
    (ir.roc_curve, {"n_docs": 10**20}, r"n_docs=100000000000000000000: .* at most 2\*\*63 - 1"),
    (ir.confusion, {"n_docs": 2**63}, r"n_docs=9223372036854775808: .* at most 2\*\*63 - 1"),
    (ir.confusion, {"n_docs": 20, "k": 0}, r"k=0: the cutoff .* must be a positive integer"),
    (ir.confusion, {"n_docs": 20, "k": 2.5}, r"k=2.5: the cutoff"),
    (ir.confusion, {"n_docs": None}, r"n_docs=None: the number of documents"),
]


@pytest.mark.parametrize(("function", "options", "message"), BAD)
def test_bad_options_name_the_value_and_the_fix(function, options: dict, message: str) -> None:
    if function is not ir.pr_curve and "n_docs" not in options:
        options = {"n_docs": 20, **options}
    with pytest.raises(ir.ParameterError, match=message):
        function(HAND_RUN, HAND_QRELS, **options)


def test_the_largest_collection_size_is_taken() -> None:
    n = 2**63 - 1  # the limit: Int64 counts
    roc = ir.roc_curve(HAND_RUN, HAND_QRELS, n_docs=n).filter(query_id="q")
    assert roc["fpr"].max() == roc["fp"].max() / (n - 4)  # R = 4 for q
    big = ir.confusion(HAND_RUN, HAND_QRELS, n_docs=n, k=2)
    small = ir.confusion(HAND_RUN, HAND_QRELS, n_docs=7, k=2)
    assert (big["tn"] - small["tn"]).to_list() == [n - 7, n - 7]


@pytest.mark.parametrize("function", [ir.roc_curve, ir.confusion])
def test_a_collection_smaller_than_a_ranking_is_refused(function) -> None:
    """q has 7 distinct documents (6 retrieved, d9 judged): n_docs=6 cannot hold them."""
    want = re.escape("n_docs=6 is smaller than the 7 documents retrieved or judged for ")
    with pytest.raises(ir.ParameterError, match=want + r"query_id='q'.*at least n_docs=7"):
        function(HAND_RUN, HAND_QRELS, n_docs=6)
    function(HAND_RUN, HAND_QRELS, n_docs=7)  # exactly enough
    lazy = function(HAND_RUN.lazy(), HAND_QRELS.lazy(), n_docs=6)  # lazy: when collected
    with pytest.raises(ir.ParameterError, match=want):
        lazy.collect()
    two = pl.concat([HAND_RUN.with_columns(run_id=pl.lit(r)) for r in ("a", "b")])
    with pytest.raises(ir.ParameterError, match=r"run_id='a', query_id='q' \(2 ranking"):
        function(two, HAND_QRELS, n_docs=6)
