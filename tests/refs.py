"""The reference outputs in ../shared/data: the trec_eval cases, readers of trec_eval text and
pytrec_eval TSV, and the comparison of a result with a trec_eval output."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path

import polars as pl

#: trec_eval_test cases: (id, qrels, run, expected trec_eval -q output, evaluate() options),
#: files under ../shared/data/trec_eval_test
TREC_EVAL_CASES = [
    ("aq", "qrels.test", "results.test", "expected_v9.0.8/out.test.aq", {}),
    ("aqc", "qrels.test", "results.trunc", "expected_v9.0.8/out.test.aqc", {"missing": "zero"}),
    (
        "aqcM",
        "qrels.test",
        "results.trunc",
        "expected_v9.0.8/out.test.aqcM",
        {"missing": "zero", "max_depth": 100},
    ),
    (
        "aql",
        "qrels.rel_level",
        "results.test",
        "expected_v9.0.8/out.test.aql",
        {"relevance_level": 2},
    ),
    ("meas_params", "qrels.test", "results.test", "expected_v9.0.8/out.test.meas_params", {}),
    *[
        (
            f"{qrels}-l{level}",
            qrels,
            run,
            f"refs/{qrels}/{run}.trec_eval-9.0.4.l{level}.q.txt",
            {"relevance_level": level},
        )
        for qrels, run, levels in [
            ("qrels.test", "results.test", (1,)),
            ("qrels.test", "results.trunc", (1,)),
            ("qrels.rel_level", "results.test", (1, 2)),
            ("qrels.comment.test", "results.comment.test", (1, 2)),
        ]
        for level in levels
    ],
]

#: A collection that -J empties: q2's documents are all unjudged, so -J leaves it an empty
#: ranking (trec_eval's interpolated precision divides 0 by 0 there: -nan); q3 is judged but
#: not ranked (-c). Compared with the trec_eval binary (tests/test_cli_binary.py) and with
#: its output (tests/test_cli.py).
EMPTIED_QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\nq2 0 d4 2\nq3 0 d5 1\nq4 0 d6 0\n"
EMPTIED_RUN = (
    "q1 Q0 d1 1 3.0 t\nq1 Q0 d7 2 2.0 t\nq2 Q0 d8 1 5.0 t\nq2 Q0 d9 2 4.0 t\nq4 Q0 d9 1 1.0 t\n"
)

#: trec_eval lines that are not numbers of a measure: checked by the CLI tests.
NOT_NUMERIC = {"runid", "relstring"}


def numeric(measure: str) -> bool:
    """Every trec_eval line but ``runid`` and ``relstring``; these must all parse (a measure
    we cannot parse fails the test instead of being left out)."""
    return measure not in NOT_NUMERIC and not measure.startswith("relstring")


def read_trec_eval_output(path: Path) -> pl.DataFrame:
    """trec_eval stdout as ``measure, query_id, text`` (the printed value, unparsed)."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:  # type: ignore[operator]
        rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    return pl.DataFrame(
        [(m.strip(), q, v) for m, q, v in rows],
        schema=["measure", "query_id", "text"],
        orient="row",
    )


def read_pytrec_eval_tsv(path: Path) -> pl.DataFrame:
    """A make_refs.py TSV as ``measure, query_id, value`` (full-precision floats)."""
    return pl.read_csv(
        path,
        separator="\t",
        has_header=False,
        new_columns=["measure", "query_id", "value"],
        schema_overrides={"query_id": pl.String, "value": pl.Float64},
    )


def trec_text(value: float, integer: bool) -> str:
    """A value printed as trec_eval prints it: ``%ld`` for counts, ``%6.4f`` otherwise."""
    return str(round(value)) if integer else f"{value:6.4f}"


def compare_with_trec_eval(
    got_per_query: pl.DataFrame,
    got_all: pl.DataFrame,
    expected: Path,
    integer: Callable[[str], bool],
) -> None:
    """Every value of a trec_eval ``-q`` output, at its printed precision, in its order."""
    want = read_trec_eval_output(expected)
    num_q = int(want.filter(pl.col("measure") == "num_q")["text"][0])
    want = want.filter(~pl.col("measure").is_in(["runid", "num_q"]))
    got = pl.concat(
        [
            got_per_query,
            got_all.with_columns(pl.lit("all").alias("query_id")).select(got_per_query.columns),
        ]
    )
    assert got_per_query["query_id"].n_unique() == num_q
    # same lines in the same order: queries in string order, measures in print order
    assert got.select("measure", "query_id").rows() == want.select("measure", "query_id").rows()
    ours = [trec_text(v, integer(m)) for m, v in zip(got["measure"], got["value"], strict=True)]
    diff = want.with_columns(pl.Series("ours", ours), got["value"]).filter(
        pl.col("ours") != pl.col("text").str.strip_chars()
    )
    assert diff.height == 0, f"{diff.height} values differ from trec_eval:\n{diff.head(20)}"
