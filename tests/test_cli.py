"""``ireval trec_eval``: stdout byte-identical to trec_eval 9.0.8; one-line errors."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from polars_ireval.cli import main
from polars_ireval.trec_eval import nicknames
from tests.conftest import CAST, TREC_TEST, need_data

# (expected file in trec_eval_test/expected_v9.0.8, trec_eval arguments) from its Makefile
EXPECTED = [
    ("out.test", "qrels.test results.test"),
    ("out.test.a", "-m all_trec qrels.test results.test"),
    ("out.test.aq", "-m all_trec -q qrels.test results.test"),
    ("out.test.aqc", "-m all_trec -q -c qrels.test results.trunc"),
    ("out.test.aqcM", "-m all_trec -q -c -M100 qrels.test results.trunc"),
    ("out.test.aql", "-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test"),
    (
        "out.test.meas_params",
        "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 "
        "-m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 "
        "-mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 qrels.test results.test",
    ),
    ("out.test.prefs", "-m all_prefs -q -R prefs prefs.test prefs.results.test"),
    ("out.test.qrels_prefs", "-m all_prefs -q -R qrels_prefs qrels.test results.test"),
    ("out.test.qrels_jg", "-m qrels_jg -q -R qrels_jg qrels.123 results.test"),
]

CAST_RUNS = [
    "org_convdr",
    "org_convdr_bert",
    "org_manual_ance",
    "org_manual_ance_bert",
    "org_manual_bm25",
]


def _args(line: str, folder: Path) -> list[str]:
    """trec_eval arguments with the two trailing files made absolute."""
    parts = line.split()
    return ["trec_eval", *parts[:-2], *(str(folder / p) for p in parts[-2:])]


@pytest.mark.parametrize(("expected", "line"), EXPECTED, ids=[e for e, _ in EXPECTED])
def test_trec_eval_expected_outputs(expected: str, line: str, capsys) -> None:
    need_data()
    assert main(_args(line, TREC_TEST)) == 0
    out = capsys.readouterr().out
    assert out == (TREC_TEST / "expected_v9.0.8" / expected).read_text()


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("run", CAST_RUNS)
def test_cast2021_all_trec(run: str, level: int, capsys) -> None:
    need_data()
    args = ["trec_eval", "-q", "-m", "all_trec"] + (["-l", str(level)] if level != 1 else [])
    args += [str(CAST / "qrels.cast2021-docs.txt"), str(CAST / "runs" / f"{run}.run")]
    assert main(args) == 0
    expected = CAST / "refs" / f"{run}.trec_eval-9.0.4.l{level}.q.txt"
    assert capsys.readouterr().out == expected.read_text()


def test_stdin_run_and_no_summary(monkeypatch, capsys) -> None:
    need_data()
    monkeypatch.setattr("sys.stdin", io.StringIO((TREC_TEST / "results.test").read_text()))
    args = ["trec_eval", "-q", "-n", "-m", "all_trec", str(TREC_TEST / "qrels.test"), "-"]
    assert main(args) == 0
    out = capsys.readouterr().out
    expected = [
        line
        for line in (TREC_TEST / "expected_v9.0.8" / "out.test.aq").read_text().splitlines()
        if "\tall\t" not in line
    ]
    assert out.splitlines() == expected
    assert main(["trec_eval", "-q", "-n", "-m", "map", str(TREC_TEST / "qrels.test"),
                 str(TREC_TEST / "results.test")]) == 0  # fmt: skip
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[1] for line in lines] == ["301", "302", "303"]


def test_set_nickname(capsys) -> None:
    need_data()
    args = [
        "trec_eval",
        "-m",
        "set",
        str(TREC_TEST / "qrels.test"),
        str(TREC_TEST / "results.test"),
    ]
    assert main(args) == 0
    names = [line.split("\t")[0].strip() for line in capsys.readouterr().out.splitlines()]
    assert names == [
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "utility",  # in trec_eval's set_names (measures.c); the 9.0.4 binary prints it too
        "set_P",
        "set_relative_P",
        "set_recall",
        "set_map",
        "set_F",
    ]


def _error(args: list[str], capsys) -> str:
    code = main(args)
    captured = capsys.readouterr()
    assert code != 0
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("ireval: error: ")
    return lines[0]


def test_error_missing_file(tmp_path: Path, capsys) -> None:
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 d1 1 1.0 tag\n")
    _error(["trec_eval", str(tmp_path / "nope.qrels"), str(run)], capsys)


def test_error_malformed_line(tmp_path: Path, capsys) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n")
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 d1 1 1.0 tag\n1 Q0 d2\n")
    _error(["trec_eval", str(qrels), str(run)], capsys)


def test_error_unknown_measure(tmp_path: Path, capsys) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n")
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 d1 1 1.0 tag\n")
    line = _error(["trec_eval", "-m", "no_such_measure", str(qrels), str(run)], capsys)
    assert "no_such_measure" in line


def test_modern_mode_still_works(tmp_path: Path, capsys) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n")
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 d1 1 1.0 tag\n1 Q0 d2 2 0.5 tag\n")
    assert main([str(qrels), str(run), "-m", "P@1", "--format", "tsv"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith("1.0")


def test_relstring_alone(capsys) -> None:
    need_data()
    args = ["trec_eval", "-q", "-m", "relstring", str(TREC_TEST / "qrels.test")]
    assert main([*args, str(TREC_TEST / "results.test")]) == 0
    expected = [
        line
        for line in (TREC_TEST / "expected_v9.0.8" / "out.test.aq").read_text().splitlines()
        if line.startswith("relstring ")
    ]
    assert capsys.readouterr().out.splitlines() == expected


@pytest.mark.parametrize("flags", ["-q", "-q -c", "-q -J -M20 -l2", "-q -c -J -M5"])
def test_judged_and_full_tables_print_the_same(flags: str, capsys) -> None:
    """Without relstring, ``trec_eval`` mode computes each measure on the smallest table it
    needs (judged documents only, or every retrieved one), from one judgment of the run; with
    relstring, every measure on the one full table. Both print the same lines."""
    need_data()
    files = [str(TREC_TEST / "qrels.test"), str(TREC_TEST / "results.trunc")]
    assert main(["trec_eval", *flags.split(), "-m", "all_trec", *files]) == 0
    full = capsys.readouterr().out
    names = [n for n in nicknames()["all_trec"] if n != "relstring"]
    assert main(["trec_eval", *flags.split(), *[f"-m{n}" for n in names], *files]) == 0
    split = capsys.readouterr().out
    expected = [line for line in full.splitlines() if not line.startswith("relstring")]
    assert len(expected) > 200
    assert split.splitlines() == expected


# q2's documents are all unjudged and q4 judges nothing relevant; trec_eval 9.0.4's output
# (recorded from the binary; test_cli_binary.py compares more flag sets live)
EMPTIED_EXPECTED = """\
iprec_at_recall_0.00  \tq1\t1.0000
iprec_at_recall_0.04  \tq1\t1.0000
iprec_at_recall_0.05  \tq1\t1.0000
iprec_at_recall_0.30  \tq1\t1.0000
11pt_avg_0.3,0.5      \tq1\t1.0000
iprec_at_recall_0.00  \tq2\t  -nan
iprec_at_recall_0.04  \tq2\t  -nan
iprec_at_recall_0.05  \tq2\t0.0000
iprec_at_recall_0.30  \tq2\t0.0000
11pt_avg_0.3,0.5      \tq2\t0.0000
iprec_at_recall_0.00  \tq4\t  -nan
iprec_at_recall_0.04  \tq4\t  -nan
iprec_at_recall_0.05  \tq4\t  -nan
iprec_at_recall_0.30  \tq4\t  -nan
11pt_avg_0.3,0.5      \tq4\t  -nan
iprec_at_recall_0.00  \tall\t  -nan
iprec_at_recall_0.04  \tall\t  -nan
iprec_at_recall_0.05  \tall\t  -nan
iprec_at_recall_0.30  \tall\t  -nan
11pt_avg_0.3,0.5      \tall\t  -nan
"""


def test_judged_only_empty_ranking_prints_nan(tmp_path: Path, capsys) -> None:
    """A ranking that -J empties: trec_eval divides 0 by 0 for the recall levels that ask
    for no relevant document (x·R + 0.9 < 1), and so does this mode (the library gives 0)."""
    from tests.refs import EMPTIED_QRELS, EMPTIED_RUN

    (tmp_path / "qrels").write_text(EMPTIED_QRELS)
    (tmp_path / "run").write_text(EMPTIED_RUN)
    flags = [
        "-q",
        "-J",
        "-m",
        "iprec_at_recall.0,.04,.05,.3",
        "-m",
        "11pt_avg.0.3,0.5",
        "-m",
        "11pt_avg",
    ]
    assert main(["trec_eval", *flags, str(tmp_path / "qrels"), str(tmp_path / "run")]) == 0
    assert capsys.readouterr().out == EMPTIED_EXPECTED
