"""``ireval pool`` and ``ireval simulate`` (polars_ireval.cli.pool)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import polars_ireval as ir
from polars_ireval.cli.pool import _write_frame, pool_main, simulate_main

RUNS = ir.example_path("runs")
QRELS = ir.example_path("qrels.txt")


def test_pool_writes_the_trec_layout(capsys: pytest.CaptureFixture[str]) -> None:
    assert pool_main([RUNS, "--method", "C", "--budget", "7"]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert len(lines) == 7
    assert [line.split()[3] for line in lines] == [str(i) for i in range(1, 8)]
    assert {line.split()[5] for line in lines} == {"C"}
    assert err.startswith("ireval: 7 document(s) to judge over")
    want = ir.pool(ir.read_run(RUNS, run_id="file"), method="C", budget=7)
    assert [tuple(line.split()[:3:2]) for line in lines] == want.select("query_id", "doc_id").rows()


def test_pool_with_judgments_and_contributors(tmp_path: Path) -> None:
    runs = ir.read_run(RUNS, run_id="file")
    judged = ir.pool(runs, method="A", budget=20).join(
        ir.read_qrels(QRELS), on=["query_id", "doc_id"], how="inner"
    )
    qrels_path = tmp_path / "judged.txt"
    qrels_path.write_text(
        "".join(
            f"{q} 0 {d} {r}\n"
            for q, d, r in judged.select("query_id", "doc_id", "relevance").iter_rows()
        )
    )
    ids = tmp_path / "contributors.txt"
    ids.write_text("# pooled runs\nbm25\ndense  # the other one\n")
    out = tmp_path / "to_judge.txt"
    code = pool_main(
        [
            RUNS,
            "--method",
            "C",
            "--budget",
            "30",
            "--qrels",
            str(qrels_path),
            "--contributors",
            f"@{ids}",
            "-o",
            str(out),
            "--quiet",
        ]
    )
    assert code == 0
    got = ir.read_pool(out)
    want = ir.pool(
        runs,
        method="C",
        budget=30,
        qrels=judged.select("query_id", "doc_id", "relevance"),
        contributors=["bm25", "dense"],
    )
    assert got.select("query_id", "doc_id", "order").equals(
        want.select("query_id", "doc_id", "order")
    )
    parquet = tmp_path / "pool.parquet"
    assert (
        pool_main([RUNS, "--method", "depth", "--depth", "2", "-o", str(parquet), "--quiet"]) == 0
    )
    assert ir.read_pool(parquet).equals(ir.pool(runs, method="depth", depth=2))


def test_pool_formats(capsys: pytest.CaptureFixture[str]) -> None:
    assert pool_main([RUNS, "--method", "max", "--budget", "3", "--format", "tsv", "--quiet"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "query_id\tdoc_id\torder\tweight" and len(out) == 4


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--method", "E", "--budget", "5"], "method='E' is unknown"),
        (["--method", "C", "--budget", "0"], "budget=0"),
        (["--method", "C", "--budget", "5", "--p", "1.5"], "p=1.5"),
        (["--method", "C", "--budget", "5", "--contributors", "nobody"], "['nobody']"),
        (["--method", "C", "--budget", "5", "--batch", "2"], "call ir.pool again"),
        (["--method", "depth"], "needs depth="),
        (["--budget", "5"], "the following arguments are required: --method"),
        (["--method", "C", "--budget", "5", "--qrels", "missing.txt"], "missing.txt: no such file"),
    ],
)
def test_pool_errors_are_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert pool_main([RUNS, *args]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("ireval: error: ") and err.count("\n") == 1
    assert message in err


@pytest.mark.parametrize("tag", ["a b", "a\tb", ""])
@pytest.mark.parametrize("output", [None, "to_judge.txt", "to_judge.parquet"])
def test_pool_refuses_a_tag_read_pool_cannot_read_back(
    tag: str, output: str | None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tag with whitespace made seven-field lines on stdout that ir.read_pool refuses
    (write_pool refused it with -o FILE): one message for stdout and files, nothing written."""
    args = [RUNS, "--method", "depth", "--depth", "2", "--tag", tag, "--quiet"]
    if output is not None:
        args += ["-o", str(tmp_path / output)]
    assert pool_main(args) == 2
    out, err = capsys.readouterr()
    assert out == "" and list(tmp_path.iterdir()) == []
    assert err == (
        f"ireval: error: tag={tag!r}: must be one word (no whitespace), as read_pool reads the "
        f"tag as a line's sixth and last field; e.g. tag={'_'.join(tag.split()) or 'pool'!r}\n"
    )


def test_pool_tag_one_word_round_trips(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert pool_main([RUNS, "--method", "depth", "--depth", "2", "--tag", "a_b", "--quiet"]) == 0
    path = tmp_path / "to_judge.txt"
    path.write_text(capsys.readouterr().out)
    runs = ir.read_run(RUNS, run_id="file")
    assert ir.read_pool(path).equals(ir.pool(runs, method="depth", depth=2))


def test_simulate_prints_the_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code = simulate_main(
        [QRELS, RUNS, "--methods", "max,A,C", "--budgets", "100,300", "--batch", "10"]
    )
    assert code == 0
    out = capsys.readouterr().out
    got = pl.read_csv(out.encode(), separator="\t")
    runs = ir.read_run(RUNS, run_id="file")
    want = ir.simulate_judging(
        runs, ir.read_qrels(QRELS), methods=["max", "A", "C"], budgets=[100, 300], batch=10
    ).summary
    assert got.columns == want.columns
    assert got["relevant"].to_list() == want["relevant"].to_list()
    assert got["tau"].to_list() == pytest.approx(want["tau"].to_list())


def test_simulate_other_frames_and_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "overlap.csv"
    assert simulate_main([QRELS, RUNS, "--budgets", "50", "--show", "overlap", "-o", str(out)]) == 0
    overlap = pl.read_csv(out)
    assert overlap.columns == ["budget", "method_a", "method_b", "common", "judged_a", "judged_b"]
    assert (
        simulate_main(
            [
                QRELS,
                RUNS,
                "--budgets",
                "50",
                "--methods",
                "A",
                "-m",
                "nDCG@10 P@5",
                "--show",
                "agreement",
                "--format",
                "table",
                "--unknown",
                "skip",
            ]
        )
        == 0
    )
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["method", "budget", "measure", "tau", "p_value", "tau_projected"]
    assert [line.split()[2] for line in table[1:]] == ["RBP(p=0.8)", "nDCG@10", "P@5"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--budgets", "1e3"], "'1e3' is not a whole number"),
        (["--budgets", "100", "--methods", "A,Z"], "method='Z' is unknown"),
        (["--budgets", "100", "--unknown", "maybe"], "invalid choice: 'maybe'"),
        (["--budgets", "0"], "budgets=0"),
        (["--budgets", "100", "-m", "nDGC@10"], "nDGC@10"),
        (["--methods", "A"], "the following arguments are required: --budgets"),
    ],
)
def test_simulate_errors_are_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert simulate_main([QRELS, RUNS, *args]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("ireval: error: ") and err.count("\n") == 1
    assert message in err


def test_simulate_rejects_qrels_of_other_queries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels = tmp_path / "other.txt"
    qrels.write_text("999 0 doc 1\n101 0 doc01-033 1\n")
    assert simulate_main([str(qrels), RUNS, "--budgets", "10"]) == 2
    assert "no run retrieved: ['999']" in capsys.readouterr().err


def test_simulate_table_prints_small_p_values_and_weights(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Nine runs in the full qrels' order: Kendall's tau 1, exact p = 2 / 9! = 5.5e-06,
    which four decimals printed as 0.0000; so were the RBP weights deep in a ranking."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q1 0 d{i:02d} {int(i < 5)}\n" for i in range(60)))
    runs = tmp_path / "runs"
    runs.mkdir()
    for k in range(9):  # run k puts k non-relevant documents above the relevant ones
        order = [*range(5, 5 + k), *range(5), *range(5 + k, 60)]
        (runs / f"r{k}.run").write_text(
            "".join(f"q1 Q0 d{d:02d} {i + 1} {60 - i} r{k}\n" for i, d in enumerate(order))
        )
    args = [str(qrels), str(runs), "--budgets", "60", "--methods", "depth", "--format", "table"]
    assert simulate_main([*args, "--show", "agreement"]) == 0
    head, row = capsys.readouterr().out.splitlines()
    assert head.split() == ["method", "budget", "measure", "tau", "p_value", "tau_projected"]
    assert row.split() == ["depth", "60", "RBP(p=0.8)", "1.0000", "5.5e-06", "1.0000"]
    assert len(head) == len(row) and head.endswith("p_value  tau_projected")  # right-aligned
    assert simulate_main([*args, "--show", "summary"]) == 0
    assert capsys.readouterr().out.splitlines()[1].split()[-2:] == ["5.5e-06", "1.0000"]
    assert simulate_main([*args, "--show", "judgments"]) == 0
    weights = [line.split()[5] for line in capsys.readouterr().out.splitlines()[1:]]
    assert weights[:3] == ["0.2000", "0.2000", "0.1600"] and weights[-1] == "3.8e-07"
    assert "0.0000" not in weights
    empty = pl.DataFrame(schema={"method": pl.String, "p_value": pl.Float64})
    _write_frame(empty, "table", None)  # no row: the header alone
    assert capsys.readouterr().out == "method  p_value\n"
