"""Judgment-group evaluation (trec_eval ``-R qrels_jg``, ``-m qrels_jg``).

Golden: every per-query and ``all`` value of trec_eval 9.0.8's ``out.test.qrels_jg``, at its
4 printed decimals and in its line order, for ``qrels.123`` and its v10 commented twin.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_ireval as ir
from polars_ireval.trec_eval.qrels_jg import evaluate_jg, read_qrels_jg
from tests.paths import TREC_TEST, need_data
from tests.refs import compare_with_trec_eval

pytestmark = pytest.mark.filterwarnings("ignore::polars_ireval.CoverageWarning")

DEFAULT_NAMES = [
    "map_avgjg",
    *[f"P_avgjg_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)],
    *[f"Rprec_mult_avgjg_{m / 10:3.2f}" for m in range(2, 21, 2)],
]


@pytest.mark.parametrize("qrels", ["qrels.123", "qrels.comments.123"])
def test_trec_eval_golden(qrels: str) -> None:
    need_data()
    table = read_qrels_jg(TREC_TEST / qrels)
    run = TREC_TEST / "results.test"
    compare_with_trec_eval(
        evaluate_jg(run, table, per_query=True),
        evaluate_jg(run, table),
        TREC_TEST / "expected_v9.0.8" / "out.test.qrels_jg",
        lambda m: False,
    )


def test_comment_twin_reads_the_same() -> None:
    """'#' lines are skipped; the twin's one other change is a '#' inside a docno (kept)."""
    need_data()
    twin = read_qrels_jg(TREC_TEST / "qrels.comments.123")
    assert "CR93E-3103#37" in twin["doc_id"].to_list()
    fixed = twin.with_columns(pl.col("doc_id").replace("CR93E-3103#37", "CR93E-3103"))
    assert_frame_equal(fixed, read_qrels_jg(TREC_TEST / "qrels.123"))


# --------------------------------------------------------------------------- hand-worked


def qrels_frame(rows: list[tuple[str, str, str, int]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=["query_id", "jg", "doc_id", "relevance"], orient="row")


def run_frame(ranking: list[str], query: str = "q") -> pl.DataFrame:
    n = len(ranking)
    return pl.DataFrame(
        {"query_id": [query] * n, "doc_id": ranking, "score": [float(n - i) for i in range(n)]}
    )


def values(run: pl.DataFrame, qrels: pl.DataFrame, measures: Any, **kw: Any) -> dict[str, float]:
    out = evaluate_jg(run, qrels, measures, **kw)
    return dict(zip(out["measure"], out["value"], strict=True))


# Assessor A: d1 (grade 2) and d3 (grade 1) relevant; assessor B: d2 (grade 1) relevant,
# d3 judged -1 (unjudged: never relevant, not counted in R). The run ranks d1, d2, d3.
#   A: AP = (1/1 + 2/3) / 2 = 5/6; P@2 = 1/2; R = 2, Rprec_mult 1.0 -> c = trunc(2.9) = 2:
#      P@2 = 1/2; Rprec_mult 0.5 -> c = trunc(1.9) = 1: P@1 = 1.
#   B: AP = (1/2) / 1 = 1/2; P@2 = 1/2; R = 1, Rprec_mult 1.0 -> c = 1: P@1 = 0;
#      Rprec_mult 0.5 -> c = trunc(1.4) = 1: 0.
# Query values are the means over A and B.
HAND = qrels_frame(
    [("q", "A", "d1", 2), ("q", "A", "d2", 0), ("q", "A", "d3", 1),
     ("q", "B", "d1", 0), ("q", "B", "d2", 1), ("q", "B", "d3", -1)]
)  # fmt: skip


def test_two_assessors_by_hand() -> None:
    got = values(run_frame(["d1", "d2", "d3"]), HAND, "map_avgjg P_avgjg.2 Rprec_mult_avgjg.0.5,1")
    assert got == pytest.approx(
        {
            "map_avgjg": (5 / 6 + 1 / 2) / 2,
            "P_avgjg_2": 0.5,
            "Rprec_mult_avgjg_0.50": (1 + 0) / 2,
            "Rprec_mult_avgjg_1.00": (1 / 2 + 0) / 2,
        }
    )


def test_relevance_level() -> None:
    """-l 2: only d1 is relevant for A (AP 1), nothing for B (AP 0)."""
    got = values(run_frame(["d1", "d2", "d3"]), HAND, "map_avgjg", relevance_level=2)
    assert got == {"map_avgjg": 0.5}


def test_one_group_equals_ordinary_evaluation() -> None:
    run = run_frame(["d3", "d1", "d2"])
    only_a = HAND.filter(pl.col("jg") == "A")
    got = values(run, only_a, "map_avgjg P_avgjg.1,2")
    plain = ir.evaluate(run, only_a.drop("jg"), ["map", "P.1,2"])
    assert list(got.values()) == plain["value"].to_list()


def test_per_query_and_mean_over_queries() -> None:
    qrels = pl.concat([HAND, HAND.filter(pl.col("jg") == "A").with_columns(query_id=pl.lit("r"))])
    run = pl.concat([run_frame(["d1", "d2", "d3"]), run_frame(["d1", "d2", "d3"], query="r")])
    per_query = evaluate_jg(run, qrels, "map_avgjg", per_query=True)
    assert per_query.rows() == [
        ("q", "map_avgjg", pytest.approx(2 / 3)),
        ("r", "map_avgjg", pytest.approx(5 / 6)),
    ]
    assert values(run, qrels, "map_avgjg") == pytest.approx({"map_avgjg": (2 / 3 + 5 / 6) / 2})


def test_several_runs_and_lazy_inputs() -> None:
    runs = pl.concat(
        [
            run_frame(["d1", "d2", "d3"]).with_columns(run_id=pl.lit("x")),
            run_frame(["d3", "d2", "d1"]).with_columns(run_id=pl.lit("y")),
        ]
    )
    eager = evaluate_jg(runs, HAND, per_query=True)
    assert eager.columns == ["run_id", "query_id", "measure", "value"]
    alone = evaluate_jg(run_frame(["d3", "d2", "d1"]), HAND, per_query=True)
    assert_frame_equal(eager.filter(pl.col("run_id") == "y").drop("run_id"), alone)
    lazy = evaluate_jg(runs.lazy(), HAND.lazy(), per_query=True)
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(), eager)


@pytest.mark.parametrize(
    "measures,expected",
    [
        (None, DEFAULT_NAMES),
        ("qrels_jg", DEFAULT_NAMES),
        ("P_avgjg", DEFAULT_NAMES[1:10]),
        (["Rprec_mult_avgjg.1", "P_avgjg.10,5", "map_avgjg"],
         ["map_avgjg", "P_avgjg_5", "P_avgjg_10", "Rprec_mult_avgjg_1.00"]),
        ("P_avgjg_20 P_avgjg_5", ["P_avgjg_5", "P_avgjg_20"]),
    ],
)  # fmt: skip
def test_measure_names_in_print_order(measures: Any, expected: list[str]) -> None:
    out = evaluate_jg(run_frame(["d1"]), HAND, measures)
    assert out["measure"].to_list() == expected


@pytest.mark.parametrize("measures", ["ndcg_avgjg", "map", "P_avgjgx"])
def test_unknown_measure(measures: str) -> None:
    with pytest.raises(ir.UnknownMeasureError, match="qrels_jg"):
        evaluate_jg(run_frame(["d1"]), HAND, measures)


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("per_query", ["y", "no", 1, None])
def test_per_query_must_be_true_or_false(per_query: Any) -> None:
    with pytest.raises(
        ir.ParameterError, match=rf"per_query={re.escape(repr(per_query))}: must be True or False"
    ):
        evaluate_jg(run_frame(["d1"]), HAND, "map_avgjg", per_query=per_query)


def test_malformed_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("q A d1 1\n# comment\nq A d2\n")
    with pytest.raises(ir.FormatError, match=rf"{re.escape(str(path))}:3: malformed") as err:
        read_qrels_jg(path)
    assert err.value.line == 3
    assert "expected 4 whitespace-separated fields 'query_id jg doc_id relevance'" in str(err.value)


@pytest.mark.parametrize("text", ["", "# nothing\n"], ids=["empty", "comments"])
def test_empty_file(text: str, tmp_path: Path) -> None:
    path = tmp_path / "empty.txt"
    path.write_text(text)
    with pytest.raises(ir.EmptyInputError):
        read_qrels_jg(path)


def test_grade_not_an_integer(tmp_path: Path) -> None:
    path = tmp_path / "q.txt"
    path.write_text("q A d1 1\nq A d2 2.5\n")
    with pytest.raises(ir.RelevanceError, match=rf"{re.escape(str(path))}:2: relevance '2.5'"):
        read_qrels_jg(path)


def test_duplicate_document_in_group(tmp_path: Path) -> None:
    path = tmp_path / "q.txt"
    path.write_text("q A d1 1\nq B d1 0\nq A d1 0\n")
    with pytest.raises(ir.DuplicateError, match=r"q.txt:1.*q.txt:3"):
        read_qrels_jg(path)
