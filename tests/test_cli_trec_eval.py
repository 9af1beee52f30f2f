"""``ireval trec_eval``: -Z, trec_eval 10.0, RAG 2024, long flags, -N, -D, -h/-v.

Every expected text is a file written by trec_eval itself (its test suite, or the reference
outputs of ../shared/data made with the trec_eval 9.0.4 and 10.0 binaries); the few
hand-computed values say how they were computed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from polars_ireval.cli import main
from tests.conftest import CAST, TREC_TEST, need_data

RAG_REFS = TREC_TEST / "refs" / "qrels.comment.test"
CAST_RUNS = ["org_convdr", "org_manual_bm25"]

# (expected file at the top of trec_eval_test = trec_eval 10.0's, arguments) from its Makefile
EXPECTED_V10 = [
    ("out.test", "qrels.test results.test"),
    ("out.test", "qrels.test.with-comments results.test"),
    ("out.comment.test", "qrels.comment.test results.comment.test"),
    ("out.test.a", "-m all_trec qrels.test results.test"),
    ("out.test.aq", "-m all_trec -q qrels.test results.test"),
    ("out.test.aqc", "-m all_trec -q -c qrels.test results.trunc"),
    ("out.test.aqcM", "-m all_trec -q -c -M100 qrels.test results.trunc"),
    ("out.test.aql", "-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test"),
    ("out.test.prefs", "-m all_prefs -q -R prefs prefs.test prefs.results.test"),
    ("out.test.prefs", "-m all_prefs -q -R prefs prefs.comment.test prefs.results.test"),
    ("out.test.qrels_prefs", "-m all_prefs -q -R qrels_prefs qrels.test results.test"),
    ("out.test.qrels_jg", "-m qrels_jg -q -R qrels_jg qrels.123 results.test"),
    ("out.test.qrels_jg", "-m qrels_jg -q -R qrels_jg qrels.comments.123 results.test"),
    (
        "out.test.meas_params",
        "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 "
        "-m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 "
        "-mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 qrels.test results.test",
    ),
    ("out.test.aqZ", "-q -m all_trec -Z zscores_file qrels.test results.test"),
]


def _run(args: list[str], capsys) -> str:
    code = main(args)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


def _files(line: str, folder: Path) -> list[str]:
    """trec_eval arguments with every file of ``folder`` made absolute."""
    return [str(folder / p) if (folder / p).is_file() else p for p in line.split()]


def test_zscores_v9(capsys) -> None:
    need_data()
    z = TREC_TEST / "expected_v9.0.8" / "zscores_file"
    args = ["trec_eval", "-q", "-m", "all_trec", "-Z", str(z)]
    out = _run([*args, str(TREC_TEST / "qrels.test"), str(TREC_TEST / "results.test")], capsys)
    assert out == (TREC_TEST / "expected_v9.0.8" / "out.test.aqZ").read_text()


@pytest.mark.parametrize(
    ("expected", "line"), EXPECTED_V10, ids=[f"{e}:{a[:24]}" for e, a in EXPECTED_V10]
)
def test_trec_eval_10_expected_outputs(expected: str, line: str, capsys) -> None:
    need_data()
    args = ["trec_eval", "--trec_eval_version", "10.0", *_files(line, TREC_TEST)]
    assert _run(args, capsys) == (TREC_TEST / expected).read_text()


@pytest.mark.parametrize("version", ["9.0.4", "10.0"])
@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("mode", ["q", "c"])
def test_rag2024(version: str, level: int, mode: str, capsys) -> None:
    """TREC RAG 2024 (MS MARCO v2.1 segments with '#' in the docnos), -q and -c outputs."""
    need_data()
    flag = "-q" if mode == "q" else "-c"
    args = ["trec_eval", flag, "-m", "all_trec", f"-l{level}"]
    if version == "10.0":
        args += ["--trec_eval_version", "10.0"]
    args += [str(TREC_TEST / "qrels.comment.test"), str(TREC_TEST / "results.comment.test")]
    expected = RAG_REFS / f"results.comment.test.trec_eval-{version}.l{level}.{mode}.txt"
    assert _run(args, capsys) == expected.read_text()


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("run", CAST_RUNS)
def test_cast2021_trec_eval_10(run: str, level: int, capsys) -> None:
    need_data()
    args = ["trec_eval", "--trec_eval_version=10.0", "-q", "-m", "all_trec", "-l", str(level)]
    args += [str(CAST / "qrels.cast2021-docs.txt"), str(CAST / "runs" / f"{run}.run")]
    expected = CAST / "refs" / f"{run}.trec_eval-10.0.l{level}.q.txt"
    assert _run(args, capsys) == expected.read_text()


@pytest.mark.parametrize("version", ["9.0.4", "10.0"])
@pytest.mark.parametrize("level", [1, 2])
def test_rel_level_grades(version: str, level: int, capsys) -> None:
    """qrels.rel_level has grades -1..4."""
    need_data()
    args = ["trec_eval", "-q", "-m", "all_trec", "-l", str(level)]
    if version == "10.0":
        args += ["--trec_eval_version", "10.0"]
    args += [str(TREC_TEST / "qrels.rel_level"), str(TREC_TEST / "results.test")]
    ref = (
        TREC_TEST / "refs" / "qrels.rel_level" / f"results.test.trec_eval-{version}.l{level}.q.txt"
    )
    assert _run(args, capsys) == ref.read_text()


def test_complete_v9_on_truncated_run(capsys) -> None:
    need_data()
    args = ["trec_eval", "-c", "-m", "all_trec"]
    args += [str(TREC_TEST / "qrels.test"), str(TREC_TEST / "results.trunc")]
    ref = TREC_TEST / "refs" / "qrels.test" / "results.trunc.trec_eval-9.0.4.l1.c.txt"
    assert _run(args, capsys) == ref.read_text()


LONG_FORMS = [
    (["-q"], ["--query_eval_wanted"]),
    (["-c"], ["--complete_rel_info_wanted"]),
    (["-n", "-q"], ["--nosummary", "-q"]),
    (["-l2"], ["--level_for_rel", "2"]),
    (["-l", "2"], ["--level_for_rel=2"]),
    (["-M10"], ["--Max_retrieved_per_topic", "10"]),
    (["-J"], ["--Judged_docs_only"]),
    (["-mP.5"], ["--measure", "P.5"]),
    (["-m", "map", "-m", "P.5"], ["--measure=map", "--measure=P.5"]),
    (["-R", "qrels"], ["--Rel_info_format", "qrels"]),
    (["-T", "trec_results"], ["--Results_format=trec_results"]),
    (
        ["-N", "1000", "-m", "utility.1,-1,0,1"],
        ["--Number_docs_in_coll=1000", "-mutility.1,-1,0,1"],
    ),
    (["-qc"], ["-q", "-c"]),
    (["-o"], []),  # obsolete in trec_eval 9: accepted, no effect
]


@pytest.mark.parametrize(("short", "long"), LONG_FORMS, ids=[" ".join(s) for s, _ in LONG_FORMS])
def test_long_forms_equal_short_forms(short: list[str], long: list[str], capsys) -> None:
    need_data()
    files = [str(TREC_TEST / "qrels.rel_level"), str(TREC_TEST / "results.trunc")]
    a = _run(["trec_eval", *short, *files], capsys)
    b = _run(["trec_eval", *long, *files], capsys)
    assert a == b and a


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_number_docs_in_coll_sets_utility(tmp_path: Path, capsys) -> None:
    """utility.a,b,c,d = a·relret + b·(ret-relret) + c·(rel-relret) + d·(N + relret - ret - rel).

    Query 1: ranked d1 (grade 1), d2 (unjudged), d3 (grade 0); judged relevant d1, d4.
    relret=1, ret=3, rel=2; with N=100, weights (1, -1, 0, 1): 1 - 2 + 0 + (100 + 1 - 3 - 2) = 95.
    """
    qrels = _write(tmp_path, "qrels", "1 0 d1 1\n1 0 d3 0\n1 0 d4 1\n")
    run = _write(tmp_path, "run", "1 Q0 d1 1 3 t\n1 Q0 d2 2 2 t\n1 Q0 d3 3 1 t\n")
    out = _run(["trec_eval", "-N", "100", "-m", "utility.1,-1,0,1", qrels, run], capsys)
    assert out == "utility_1,-1,0,1      \tall\t95.0000\n"
    out = _run(["trec_eval", "-m", "utility.1,-1,0,1", qrels, run], capsys)
    assert out == "utility_1,-1,0,1      \tall\t-5.0000\n"  # N = 0: 1 - 2 + (0 + 1 - 3 - 2)


def test_debug_query_evaluates_one_query(capsys) -> None:
    need_data()
    files = [str(TREC_TEST / "qrels.test"), str(TREC_TEST / "results.test")]
    out = _run(["trec_eval", "-q", "-D", "1.302", "-m", "map", *files], capsys)
    full = (TREC_TEST / "expected_v9.0.8" / "out.test.aq").read_text().splitlines()
    line302 = next(x for x in full if x.startswith("map ") and "\t302\t" in x)
    assert out.splitlines()[0] == line302
    assert out.splitlines()[1] == line302.replace("\t302\t", "\tall\t")
    assert len(out.splitlines()) == 2


def test_help_and_version(capsys) -> None:
    assert main(["trec_eval", "-h", "-m", "ndcg_cut"]) == 0
    captured = capsys.readouterr()
    assert "--query_eval_wanted" in captured.out and "ndcg_cut:" in captured.out
    assert main(["trec_eval", "--version"]) == 0
    assert capsys.readouterr().err.startswith("trec_eval version 9.0.8")
    assert main(["trec_eval", "-v", "--trec_eval_version", "10.0"]) == 0
    assert capsys.readouterr().err.startswith("trec_eval version 10.0")


def test_zscore_missing_entries(tmp_path: Path, capsys) -> None:
    """A query or measure absent from the z-score file prints -1000000, as trec_eval does;
    stddev 0 gives 0 when the value equals the mean. P_5 of query 1 below is 1/5 = 0.2."""
    qrels = _write(tmp_path, "qrels", "1 0 d1 1\n2 0 d1 1\n")
    run = _write(tmp_path, "run", "1 Q0 d1 1 3 t\n2 Q0 d9 1 3 t\n")
    z = _write(tmp_path, "z", "1 P_5 0.1 0.05\n1 num_ret 1 0\n")
    out = _run(["trec_eval", "-q", "-Z", z, "-m", "P.5", "-m", "num_ret", qrels, run], capsys)
    assert out.splitlines() == [
        "Znum_ret               \t1\t0.0000",
        "ZP_5                   \t1\t2.0000",  # (0.2 - 0.1) / 0.05
        "Znum_ret               \t2\t-1000000.0000",
        "ZP_5                   \t2\t-1000000.0000",
        "Znum_ret               \tall\t-1000000.0000",  # counts add up
        "ZP_5                   \tall\t-499999.0000",  # (2 - 1000000) / 2
    ]


@pytest.mark.parametrize("version", ["9.0.4", "10.0"])
@pytest.mark.parametrize("level", [1, 2])
def test_complete_summaries(version: str, level: int, capsys) -> None:
    """``-c`` summaries (the ``.c.txt`` references), incl. trec_eval's ``num_rel`` under -c
    -l2, which counts grades >= 1 over the whole qrels."""
    need_data()
    extra = ["--trec_eval_version", "10.0"] if version == "10.0" else []
    cases = [
        (CAST / "qrels.cast2021-docs.txt", CAST / "runs" / "org_convdr.run",
         CAST / "refs" / f"org_convdr.trec_eval-{version}.l{level}.c.txt"),
        (TREC_TEST / "qrels.rel_level", TREC_TEST / "results.test", TREC_TEST / "refs"
         / "qrels.rel_level" / f"results.test.trec_eval-{version}.l{level}.c.txt"),
    ]  # fmt: skip
    for qrels, run, ref in cases:
        args = ["trec_eval", *extra, "-c", "-m", "all_trec", f"-l{level}", str(qrels), str(run)]
        assert _run(args, capsys) == ref.read_text(), ref.name


def test_zscore_complete_num_rel_and_negative_nan(capsys) -> None:
    """Two trec_eval details, as the trec_eval 9.0.4 binary prints them: under ``-c -Z``
    the ``num_rel`` summary is the plain count of grade >= 1 judgments (561 in qrels.test,
    as ``num_rel all`` of out.test), not a z-score; and a NaN from 0/0 prints ``-nan``
    (Rndcg of a RAG 2024 query with no positive grade at -l0)."""
    need_data()
    z = str(TREC_TEST / "expected_v9.0.8" / "zscores_file")
    files = [str(TREC_TEST / "qrels.test"), str(TREC_TEST / "results.trunc")]
    out = _run(["trec_eval", "-c", "-Z", z, "-m", "num_rel", *files], capsys)
    assert out == "Znum_rel               \tall\t561.0000\n"
    assert (
        "num_rel               \tall\t561\n"
        in (TREC_TEST / "expected_v9.0.8" / "out.test").read_text()
    )
    files = [str(TREC_TEST / "qrels.comment.test"), str(TREC_TEST / "results.comment.test")]
    out = _run(["trec_eval", "-q", "-l0", "-m", "Rndcg", *files], capsys)
    assert "Rndcg                 \t2024-36302\t  -nan\n" in out
    assert out.endswith("Rndcg                 \tall\t  -nan\n")
