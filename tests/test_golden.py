"""Golden tests: every value trec_eval 9 and pytrec_eval printed for the shared data sets.

trec_eval text is compared at its 4 printed decimals (exact string equality), pytrec_eval's
full-precision TSVs to 1e-9, per query and for the mean.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import polars_ireval as ir
from tests.paths import CAST, TREC_TEST, need_data
from tests.refs import (
    TREC_EVAL_CASES,
    numeric,
    read_pytrec_eval_tsv,
    read_trec_eval_output,
    trec_text,
)

pytestmark = pytest.mark.filterwarnings("ignore::polars_ireval.CoverageWarning")

CAST_RUNS = [
    "org_convdr",
    "org_convdr_bert",
    "org_manual_ance",
    "org_manual_ance_bert",
    "org_manual_bm25",
]


def _compare_trec_eval(qrels: Path, run: Path, expected: Path, options: dict) -> None:
    want = read_trec_eval_output(expected)
    names = [m for m in want["measure"].unique(maintain_order=True) if numeric(m)]
    measures = {m.label: m for m in ir.parse_measures(names)}
    per_query = ir.evaluate(run, qrels, names, per_query=True, **options)
    overall = ir.evaluate(run, qrels, names, **options).with_columns(
        pl.lit("all").alias("query_id")
    )
    got = pl.concat([per_query, overall.select(per_query.columns)])
    joined = want.filter(pl.col("measure").is_in(names)).join(
        got, on=["measure", "query_id"], how="left"
    )
    assert joined.height > 0
    missing = joined.filter(pl.col("value").is_null())
    assert missing.height == 0, f"no value computed for {missing.head(5).rows()}"
    ours = [
        trec_text(v, measures[m].defn.integer)
        for m, v in zip(joined["measure"], joined["value"], strict=True)
    ]
    bad = joined.with_columns(pl.Series("ours", ours)).filter(
        pl.col("ours").str.strip_chars() != pl.col("text").str.strip_chars()
    )
    assert bad.height == 0, f"{bad.height} values differ from trec_eval:\n{bad.head(20)}"


@pytest.mark.parametrize(
    "qrels,run,expected,options",
    [c[1:] for c in TREC_EVAL_CASES],
    ids=[c[0] for c in TREC_EVAL_CASES],
)
def test_trec_eval_outputs(qrels: str, run: str, expected: str, options: dict) -> None:
    need_data()
    _compare_trec_eval(TREC_TEST / qrels, TREC_TEST / run, TREC_TEST / expected, options)


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("name", CAST_RUNS)
def test_cast2021_trec_eval(name: str, level: int) -> None:
    need_data()
    expected = CAST / "refs" / f"{name}.trec_eval-9.0.4.l{level}.q.txt"
    _compare_trec_eval(
        CAST / "qrels.cast2021-docs.txt",
        CAST / "runs" / f"{name}.run",
        expected,
        {"relevance_level": level},
    )


PYTREC_CASES = [
    *[
        (
            f"cast-{name}-l{level}",
            CAST / "qrels.cast2021-docs.txt",
            CAST / "runs" / f"{name}.run",
            CAST / "refs" / f"{name}.pytrec_eval.l{level}.tsv",
            level,
        )
        for name in CAST_RUNS
        for level in (1, 2)
    ],
    *[
        (
            f"{qrels}-{run}-l{level}",
            TREC_TEST / qrels,
            TREC_TEST / run,
            TREC_TEST / "refs" / qrels / f"{run}.pytrec_eval.l{level}.tsv",
            level,
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


@pytest.mark.parametrize(
    "qrels,run,expected,level", [c[1:] for c in PYTREC_CASES], ids=[c[0] for c in PYTREC_CASES]
)
def test_pytrec_eval_full_precision(qrels: Path, run: Path, expected: Path, level: int) -> None:
    need_data()
    want = read_pytrec_eval_tsv(expected)
    names = [m for m in want["measure"].unique(maintain_order=True) if numeric(m)]
    per_query = ir.evaluate(run, qrels, names, per_query=True, relevance_level=level)
    overall = ir.evaluate(run, qrels, names, relevance_level=level)
    got = pl.concat(
        [per_query, overall.with_columns(pl.lit("all").alias("query_id")).select(per_query.columns)]
    )
    joined = want.filter(pl.col("measure").is_in(names)).join(
        got, on=["measure", "query_id"], how="left", suffix="_ours"
    )
    assert joined.height == want.filter(pl.col("measure").is_in(names)).height > 0
    assert joined["value_ours"].null_count() == 0
    diff = joined.with_columns((pl.col("value") - pl.col("value_ours")).abs().alias("diff"))
    bad = diff.filter(pl.col("diff") > 1e-9)
    assert bad.height == 0, f"{bad.height} values differ from pytrec_eval:\n{bad.head(20)}"
