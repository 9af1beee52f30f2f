"""SetAccuracy and Fallout (polars_ireval/measures/sets.py, sql/sets.sql).

* Values worked by hand from seed 003's definitions (Table 1 and eq. 5; the false positive
  rate fp / (fp + tn) of its ROC section), with fractions, on a ranking with a missed
  relevant document, a judged non-relevant one, a negative grade and an unjudged one.
* Equal to the same formulas over ir.confusion's counts on the bundled example, for several
  cutoffs and grades, on the Polars and DuckDB engines.
* Bad input: a missing or non-positive collection size is a ParameterError naming it; a
  collection smaller than a query's documents gives NaN, not a number.
"""

from __future__ import annotations

import math
from fractions import Fraction

import polars as pl
import pytest

import polars_ireval as ir
from polars_ireval.errors import ParameterError

KEYS = ["run_id", "query_id"]

# q: a..f ranked 1..6; a (1) and c (2) relevant, e judged 0, x relevant and missed, y
# graded -1 (not relevant), b, d, f unjudged. r: two unjudged documents, nothing relevant.
RUN = pl.DataFrame(
    {
        "query_id": ["q"] * 6 + ["r"] * 2,
        "doc_id": [*"abcdef", "m", "n"],
        "score": [6.0, 5.0, 4.0, 3.0, 2.0, 1.0, 2.0, 1.0],
    }
)
QRELS = pl.DataFrame(
    {
        "query_id": ["q"] * 5 + ["r"],
        "doc_id": ["a", "c", "e", "x", "y", "z"],
        "relevance": [1, 2, 0, 1, -1, 0],
    }
)


def _hand(tp: int, fp: int, fn: int, tn: int) -> tuple[Fraction, Fraction]:
    """Accuracy (eq. 5) and fallout (fp / (fp + tn)) from the four cells."""
    n = tp + fp + fn + tn
    fallout = Fraction(fp, fp + tn) if fp + tn else Fraction(0)
    return Fraction(tp + tn, n), fallout


# (measure parameters, query, TP, FP, FN, TN), counted by hand in a collection of 20
HAND = [
    ("", "q", 2, 4, 1, 13),  # whole ranking: a, c found; x missed; 6 retrieved
    ("@2", "q", 1, 1, 2, 16),  # a, b
    (",rel=2", "q", 1, 5, 0, 14),  # only c is relevant at grade 2
    ("", "r", 0, 2, 0, 18),
]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize(("extra", "qid", "tp", "fp", "fn", "tn"), HAND)
def test_worked_by_hand(
    engine: str, extra: str, qid: str, tp: int, fp: int, fn: int, tn: int
) -> None:
    assert tp + fp + fn + tn == 20
    accuracy, fallout = _hand(tp, fp, fn, tn)
    params = "num_docs=20" + (extra if extra.startswith(",") else "")
    cut = extra if extra.startswith("@") else ""
    names = [f"SetAccuracy({params}){cut}", f"Fallout({params}){cut}"]
    got = ir.evaluate(RUN, QRELS, names, per_query=True, engine=engine).filter(query_id=qid)
    values = dict(zip(got["measure"], got["value"], strict=True))
    assert values[names[0]] == pytest.approx(float(accuracy), abs=1e-15)
    assert values[names[1]] == pytest.approx(float(fallout), abs=1e-15)


def test_smallest_collection_and_one_too_small() -> None:
    # q has 8 documents retrieved or judged (a..f, x, y): N = 8 leaves TN = 1
    names = ["SetAccuracy(num_docs=8)", "Fallout(num_docs=8)", "SetAccuracy(num_docs=7)",
             "Fallout(num_docs=7)"]  # fmt: skip
    for engine in ("polars", "duckdb"):
        got = ir.evaluate(RUN.filter(query_id="q"), QRELS, names, engine=engine)
        acc8, fall8, acc7, fall7 = got["value"].to_list()
        assert (acc8, fall8) == (pytest.approx(3 / 8), pytest.approx(4 / 5))
        assert math.isnan(acc7) and math.isnan(fall7)


def test_empty_ranking_and_no_nonrelevant_document() -> None:
    # missing="zero": r's judged query with nothing retrieved; all of N relevant -> fallout 0
    qrels = pl.DataFrame({"query_id": ["q", "q", "s"], "doc_id": ["a", "b", "t"], "relevance": 1})
    run = RUN.filter(query_id="q", doc_id="a")
    names = ["SetAccuracy(num_docs=2)", "Fallout(num_docs=2)"]
    got = ir.evaluate(run, qrels, names, per_query=True, missing="zero").sort("query_id")
    # q: TP 1, FN 1 in N = 2; s: nothing retrieved, FN 1, TN 1
    assert got.filter(query_id="q")["value"].to_list() == [0.5, 0.0]
    assert got.filter(query_id="s")["value"].to_list() == [0.5, 0.0]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize(("k", "rel"), [(None, 1), (5, 1), (20, 2), (1000, 1)])
def test_equal_to_confusion_on_the_example(engine: str, k: int | None, rel: int) -> None:
    runs = ir.read_run(ir.example_path("runs"), run_id="file")
    qrels = ir.read_qrels(ir.example_path("qrels.txt"))
    n = 25 * 200
    cut = "" if k is None else f"@{k}"
    acc, fall = f"SetAccuracy(num_docs={n},rel={rel}){cut}", f"Fallout(num_docs={n},rel={rel}){cut}"
    got = ir.evaluate(
        runs, qrels, [acc, fall], per_query=True, engine=engine, relevance_level=1
    ).pivot("measure", index=KEYS, values="value")
    cells = ir.confusion(runs, qrels, n_docs=n, k=k, relevance_level=rel)
    both = got.join(cells, on=KEYS, how="full", coalesce=True)
    assert both.height == got.height == cells.height == 75
    tp, fp, tn = pl.col("tp"), pl.col("fp"), pl.col("tn")
    err = both.select(
        ((pl.col(acc) - (tp + tn) / n).abs().max()).alias("acc"),
        ((pl.col(fall) - fp / (fp + tn)).abs().max()).alias("fall"),
    ).row(0)
    assert max(err) < 1e-15


@pytest.mark.parametrize(
    ("measure", "fragment"),
    [
        ("Fallout", "parameter 'num_docs' is required"),
        ("SetAccuracy@10", "parameter 'num_docs' is required"),
        ("Fallout(num_docs=0)", "num_docs"),
        ("SetAccuracy(num_docs=2.5)", "num_docs"),
        ("Fallout(num_docs=10)@0", "k"),
    ],
)
def test_bad_parameters(measure: str, fragment: str) -> None:
    with pytest.raises(ParameterError, match=fragment):
        ir.evaluate(RUN, QRELS, measure)
