"""The official TREC-COVID round 1 leaderboard, reproduced from the 143 submitted runs.

NIST computed it with trec_eval ``-c -M1000`` (nDCG@10, P@5, bpref and MAP at relevance
level 1) and a graded RBP(p=.5) lower bound with gains 0, 0.5 and 1, using a trec_eval
binary that stores scores as 32-bit floats (9.0.4 and earlier): the run ``BERT``, whose
scores differ only in the seventh significant digit, has ties there, broken by document id.
``scores="float32"`` reproduces every one of the 715 printed values; reading scores as
doubles (trec_eval 9.0.5 and later) changes four of BERT's.
"""

from __future__ import annotations

import gzip
import subprocess
import sys

import polars as pl
import pytest

import polars_ireval as ir
from tests.paths import ROOT, need_data

#: leaderboard column -> measure string
MEASURES = {
    "ndcg@10": "nDCG@10",
    "p@5": "P@5",
    "RBP(p=.5)": "RBP(p=0.5,gains={1:0.5,2:1.0})",
    "bpref": "Bpref",
    "MAP": "AP",
}


@pytest.fixture(scope="module")
def campaign(
    trec_covid: tuple[pl.DataFrame, pl.DataFrame],
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    runs, qrels = trec_covid
    return runs, qrels, pl.read_csv(need_data() / "trec-covid-r1" / "leaderboard.csv")


def _printed(runs: pl.DataFrame, qrels: pl.DataFrame, scores: str) -> pl.DataFrame:
    """Each run's five values as trec_eval prints them (``%6.4f``), one row per run and
    leaderboard column."""
    result = ir.evaluate(
        runs, qrels, list(MEASURES.values()), missing="zero", max_depth=1000, scores=scores
    )
    column = pl.col("measure").replace_strict(list(MEASURES.values()), list(MEASURES))
    return result.select(
        pl.col("run_id").alias("run"),
        column.alias("column"),
        pl.col("value").map_elements(lambda v: f"{v:6.4f}", return_dtype=pl.String).alias("ours"),
    )


def _official(board: pl.DataFrame) -> pl.DataFrame:
    return board.unpivot(index="run", on=list(MEASURES), variable_name="column").select(
        "run",
        "column",
        pl.col("value").map_elements(lambda v: f"{v:6.4f}", return_dtype=pl.String).alias("nist"),
    )


def test_every_official_value_with_float32_scores(campaign) -> None:
    runs, qrels, board = campaign
    both = _official(board).join(_printed(runs, qrels, "float32"), on=["run", "column"], how="left")
    assert both.height == 715 and both["ours"].null_count() == 0
    differ = both.filter(pl.col("ours") != pl.col("nist"))
    assert differ.height == 0, differ


def test_double_scores_differ_only_on_the_run_with_seventh_digit_ties(campaign) -> None:
    runs, qrels, board = campaign
    both = _official(board).join(_printed(runs, qrels, "float64"), on=["run", "column"])
    differ = both.filter(pl.col("ours") != pl.col("nist")).sort("column")
    assert differ["run"].unique().to_list() == ["BERT"]
    assert differ.select("column", "nist", "ours").rows() == [
        ("MAP", "0.0653", "0.0652"),
        ("RBP(p=.5)", "0.1625", "0.1646"),
        ("bpref", "0.1506", "0.1505"),
        ("ndcg@10", "0.1731", "0.1736"),
    ]


def test_trec_eval_9_0_4_mode_prints_the_official_values(campaign, tmp_path) -> None:
    board = campaign[2]
    data = need_data() / "trec-covid-r1"
    run = tmp_path / "BERT.run"
    # the run as NIST received it: its own text, not rewritten from parsed doubles
    run.write_bytes(gzip.decompress((data / "runs" / "BERT.gz").read_bytes()))
    flags = ["-c", "-M1000", "-m", "ndcg_cut.10", "-m", "P.5", "-m", "bpref", "-m", "map"]
    out = subprocess.run(
        [sys.executable, "-m", "polars_ireval.cli", "trec_eval", "--trec_eval_version", "9.0.4",
         *flags, str(data / "qrels-rnd1.txt"), str(run)],
        capture_output=True, text=True, check=True, cwd=ROOT,
    ).stdout  # fmt: skip
    printed = {
        line.split("\t")[0].strip(): line.split("\t")[2] for line in out.splitlines() if line
    }
    official = board.filter(pl.col("run") == "BERT").row(0, named=True)
    assert printed["ndcg_cut_10"] == f"{official['ndcg@10']:6.4f}"
    assert printed["P_5"] == f"{official['p@5']:6.4f}"
    assert printed["bpref"] == f"{official['bpref']:6.4f}"
    assert printed["map"] == f"{official['MAP']:6.4f}"
