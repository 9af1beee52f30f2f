"""Every bad input of tests/test_errors.py reaches the command line as one line on stderr,
``ireval: error: ...`` naming the file / line / value, exit code 2 and nothing on stdout;
in both modes. Plus the errors only the command line has (flags, z-score files, paths).
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

from polars_ireval.cli import main

GOOD_RUN = "q1 Q0 d1 1 2.0 tag\nq1 Q0 d2 2 1.0 tag\n"
GOOD_QRELS = "q1 0 d1 1\nq1 0 d2 0\n"

# (name, run text, qrels text, pattern the message must match; {run}/{qrels} = the paths)
BAD_FILES = [
    ("run columns", GOOD_RUN + "q1 Q0 d3 3\n", GOOD_QRELS, r"{run}:3: malformed line"),
    ("run score", "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 3.0 t\nq1 Q0 d3 3 0 t\nq1 Q0 d4 4 high t\n",
     GOOD_QRELS, r"{run}:4: score 'high'"),
    ("run duplicate", "q1 Q0 d1 1 2.0 t\nq1 Q0 d1 2 1.0 t\n", GOOD_QRELS,
     r"\(query_id='q1', doc_id='d1'\) 2 times \({run}:1, {run}:2\)"),
    ("run nan", GOOD_RUN + "q1 Q0 d3 3 nan t\n", GOOD_QRELS,
     r"{run}:3: score nan .*'d3'.*not finite"),
    ("run inf", GOOD_RUN + "q1 Q0 d3 3 inf t\n", GOOD_QRELS, r"{run}:3: score inf .*not finite"),
    ("run -Infinity", GOOD_RUN + "q1 Q0 d3 3 -Infinity t\n", GOOD_QRELS, r"{run}:3: .*not finite"),
    ("run empty", "", GOOD_QRELS, r"{run}: the run holds no ranking line"),
    ("run blank", "\n\n", GOOD_QRELS, r"{run}: the run holds no ranking line"),
    ("run comment only", "# only a comment\n  \n", GOOD_QRELS, r"{run}: the run holds no"),
    ("qrels columns", GOOD_RUN, GOOD_QRELS + "q1 0 d3\n", r"{qrels}:3: malformed line"),
    ("qrels 1.5", GOOD_RUN, "q1 0 d1 1.5\n", r"{qrels}:1: relevance '1\.5' .*not an integer"),
    ("qrels high", GOOD_RUN, "q1 0 d1 high\n", r"{qrels}:1: relevance 'high'"),
    ("qrels 1e3", GOOD_RUN, "q1 0 d1 1e3\n", r"{qrels}:1: relevance '1e3'"),
    ("qrels duplicate", GOOD_RUN, "q1 0 d1 1\nq1 0 d2 0\nq1 0 d2 1\n",
     r"qrels lists \(query_id='q1', doc_id='d2'\)"),
    ("qrels empty", GOOD_RUN, "", r"{qrels}: the qrels hold no"),
    ("qrels comment", GOOD_RUN, "# nothing\n", r"{qrels}: the qrels hold no"),
]  # fmt: skip

BAD_MEASURES = [
    ("nDGC@10", r"unknown measure 'nDGC@10'; did you mean 'nDCG'"),
    ("recip_rnak", r"'recip_rnak'.*did you mean 'recip_rank'"),
    ("P@0", r"P: k=0 is invalid"),
    ("nDCG@0", r"nDCG: k=0 is invalid"),
    ("P(rel=1.5)@5", r"P: rel=1\.5 is invalid.*integer"),
    ("IPrec@1.5", r"IPrec: recall=1\.5 is invalid"),
    ("SetF(beta=-1)", r"SetF: beta=-1 is invalid"),
    ("infAP(p=2)", r"unknown parameter\(s\) \['p'\]"),
    ("ndcg_cut.0", r"ndcg_cut\.0'?: cutoff '0' must be at least 1"),
    # trec_eval 9.0.4 takes these and prints nDCG 2.53; negative grades gain 0 here
    ("ndcg.-1=5", r"nDCG: gains=\{-1: 5\.0\} is invalid.*negative grades are never relevant"),
]

BAD_FLAGS = [
    (["-M", "0"], r"-M 0: the number of documents must be at least 1"),
    (["-M", "-5"], r"-M -5"),
    (["-M", "2.5"], r"invalid int value: '2\.5'"),
    (["-l", "1.5"], r"invalid int value: '1\.5'"),
    # trec_eval 9.0.4 counts grade -1 relevant at -l -1 and prints map 3.55
    (["-l", "-1"], r"(-l |relevance_level=)-1: negative grades are never relevant"),
    (["--no-such-flag"], r"unrecognized arguments: --no-such-flag"),
]


def _files(tmp_path: Path, run: str, qrels: str) -> tuple[str, str]:
    r, q = tmp_path / "run.txt", tmp_path / "qrels.txt"
    r.write_text(run)
    q.write_text(qrels)
    return str(r), str(q)


def _error(args: list[str], capsys) -> str:
    code = main(args)
    captured = capsys.readouterr()
    assert code == 2, (code, captured.err)
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert [x for x in lines if not x.startswith("ireval: note")] == lines[-1:], captured.err
    assert lines[-1].startswith("ireval: error: ")
    return lines[-1]


MODES = ["trec_eval", "modern"]


def _args(mode: str, qrels: str, run: str, extra: list[str]) -> list[str]:
    if mode == "trec_eval":
        return ["trec_eval", *extra, qrels, run]
    return [qrels, run, *extra]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("name", "run", "qrels", "pattern"), BAD_FILES, ids=[c[0] for c in BAD_FILES]
)
def test_bad_files(
    mode: str, name: str, run: str, qrels: str, pattern: str, tmp_path: Path, capsys
) -> None:
    run_path, qrels_path = _files(tmp_path, run, qrels)
    line = _error(
        _args(mode, qrels_path, run_path, ["-m", "P.5" if mode == "trec_eval" else "P@5"]), capsys
    )
    regex = pattern.format(run=re.escape(run_path), qrels=re.escape(qrels_path))
    assert re.search(regex, line), line


def test_no_common_query(tmp_path: Path, capsys) -> None:
    """trec_eval mode stops as trec_eval does (its line, exit status 7); modern mode says so
    on stderr."""
    run_path, qrels_path = _files(tmp_path, "q9 Q0 d1 1 2.0 t\n", GOOD_QRELS)
    line = "trec_eval: No queries with both results and relevance info"
    for flags in ([], ["-c"]):  # -c: trec_eval 9.x too
        assert main(["trec_eval", *flags, qrels_path, run_path]) == 7
        out, err = capsys.readouterr()
        assert (out, err) == ("", line + "\n")
    assert main([qrels_path, run_path, "-m", "P@5"]) == 0
    err = capsys.readouterr().err
    assert "0 queries evaluated" in err and "without judgments, not evaluated: q9" in err


@pytest.mark.parametrize("mode", MODES)
def test_missing_files(mode: str, tmp_path: Path, capsys) -> None:
    run_path, qrels_path = _files(tmp_path, GOOD_RUN, GOOD_QRELS)
    nope = str(tmp_path / "nope.run")
    line = _error(_args(mode, qrels_path, nope, []), capsys)
    assert line == f"ireval: error: {nope}: no such file; check the path"
    line = _error(_args(mode, str(tmp_path / "nope.qrels"), run_path, []), capsys)
    assert "nope.qrels: no such file" in line


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("measure", "pattern"), BAD_MEASURES, ids=[m for m, _ in BAD_MEASURES])
def test_bad_measures(mode: str, measure: str, pattern: str, tmp_path: Path, capsys) -> None:
    run_path, qrels_path = _files(tmp_path, GOOD_RUN, GOOD_QRELS)
    line = _error(_args(mode, qrels_path, run_path, ["-m", measure]), capsys)
    assert re.search(pattern, line), line


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("flags", "pattern"), BAD_FLAGS, ids=[" ".join(f) for f, _ in BAD_FLAGS])
def test_bad_flags(mode: str, flags: list[str], pattern: str, tmp_path: Path, capsys) -> None:
    run_path, qrels_path = _files(tmp_path, GOOD_RUN, GOOD_QRELS)
    line = _error(_args(mode, qrels_path, run_path, flags), capsys)
    assert re.search(pattern, line), line


# --------------------------------------------------------------------------- Parquet inputs
# the frame-level checks of the library (missing column, column types, null scores)


@pytest.mark.parametrize(
    ("frame", "pattern"),
    [
        (pl.DataFrame({"query_id": ["q1"], "doc_id": ["d1"]}), r"lacks column\(s\) \['score'\]"),
        (pl.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "score": ["x"]}),
         r"column 'score' has type String"),
        (pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "score": [1.0, None]}),
         r"null score"),
        (pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"],
                       "score": [1.0, float("nan")]}), r"not finite"),
    ],
)  # fmt: skip
def test_bad_parquet_run(frame: pl.DataFrame, pattern: str, tmp_path: Path, capsys) -> None:
    _, qrels_path = _files(tmp_path, GOOD_RUN, GOOD_QRELS)
    path = tmp_path / "run.parquet"
    frame.write_parquet(path)
    line = _error([qrels_path, str(path), "-m", "P@5"], capsys)
    assert re.search(pattern, line), line


@pytest.mark.parametrize(
    ("frame", "pattern"),
    [
        (pl.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "relevance": ["1"]}),
         r"column 'relevance' has type String"),
        (pl.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "relevance": [1.5]}),
         r"relevance 1\.5 is not an integer"),
        (pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d1"], "relevance": [1, 0]}),
         r"doc_id='d1'"),
    ],
)  # fmt: skip
def test_bad_parquet_qrels(frame: pl.DataFrame, pattern: str, tmp_path: Path, capsys) -> None:
    run_path, _ = _files(tmp_path, GOOD_RUN, GOOD_QRELS)
    path = tmp_path / "qrels.parquet"
    frame.write_parquet(path)
    line = _error([str(path), run_path, "-m", "P@5"], capsys)
    assert re.search(pattern, line), line


# --------------------------------------------------------------------------- command line only


@pytest.mark.parametrize(
    ("extra", "pattern"),
    [
        (["-R", "nope"], r"argument -R/--Rel_info_format: invalid choice: 'nope'"),
        (["-T", "csv"], r"argument -T/--Results_format: invalid choice: 'csv'"),
        (["-D", "x"], r"-D 'x': expected a debug level"),
        (["-N", "-1", "-m", "utility"], r"-N -1: the collection size must be >= 0"),
        (["-m", "relstring.x"], r"-m relstring\.x: 'x' is not a number of documents"),
        (["--trec_eval_version", "8"], r"invalid choice: '8'"),
        (["-m", "all_prefs"], r"-m all_prefs: preference measures need .*-R prefs"),
        (["-m", "qrels_jg"], r"-m qrels_jg: judgment-group measures need -R qrels_jg"),
    ],
)
def test_trec_eval_flag_errors(extra: list[str], pattern: str, tmp_path: Path, capsys) -> None:
    run_path, qrels_path = _files(tmp_path, GOOD_RUN, GOOD_QRELS)
    line = _error(["trec_eval", *extra, qrels_path, run_path], capsys)
    assert re.search(pattern, line), line


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("q1 P_5 0.1\n", r"{z}:1: expected 4 fields 'qid measure mean stddev', found 3"),
        ("q1 P_5 0.1 0.2\nq1 map x 0.2\n", r"{z}:2: mean 'x' is not a number"),
        ("q1 P_5 0.1 y\n", r"{z}:1: stddev 'y' is not a number"),
        ("q1 P_5 0.1 0.2\nq1 P_5 0.3 0.2\n", r"{z}:2: query 'q1', measure 'P_5' is given twice"),
        ("\n", r"{z}: the z-score file holds no"),
    ],
)
def test_zscore_file_errors(text: str, pattern: str, tmp_path: Path, capsys) -> None:
    run_path, qrels_path = _files(tmp_path, GOOD_RUN, GOOD_QRELS)
    z = tmp_path / "z.txt"
    z.write_text(text)
    line = _error(["trec_eval", "-Z", str(z), "-m", "P.5", qrels_path, run_path], capsys)
    assert re.search(pattern.format(z=re.escape(str(z))), line), line


def test_trec_eval_argument_errors(tmp_path: Path, capsys) -> None:
    run_path, qrels_path = _files(tmp_path, GOOD_RUN, GOOD_QRELS)
    assert "expected 2 files" in _error(["trec_eval", qrels_path], capsys)
    assert "expected 2 files" in _error(["trec_eval", qrels_path, run_path, run_path], capsys)
    assert "is a directory" in _error(["trec_eval", str(tmp_path), run_path], capsys)
    assert "only the results file may be '-'" in _error(["trec_eval", "-", run_path], capsys)
    assert "no such file" in _error(["trec_eval", "-Z", "nope.z", qrels_path, run_path], capsys)
    assert "names no measure" in _error(["trec_eval", "-m", "", qrels_path, run_path], capsys)


def test_modern_argument_errors(tmp_path: Path, capsys) -> None:
    run_path, qrels_path = _files(tmp_path, GOOD_RUN, GOOD_QRELS)
    assert "no measure given" in _error([qrels_path, run_path, "-m", ""], capsys)
    assert "give a qrels file and at least one run" in _error([], capsys)
    assert "at least one run after the qrels" in _error([qrels_path], capsys)
    assert "pattern matches no file" in _error([qrels_path, str(tmp_path / "*.none")], capsys)
    (tmp_path / "empty").mkdir()
    assert "holds no run file" in _error([qrels_path, str(tmp_path / "empty")], capsys)
    line = _error([qrels_path, run_path, run_path], capsys)
    assert "two runs are named 'run'" in line
    assert "cannot tell the format" in _error([qrels_path, run_path, "-o", "x.xyz"], capsys)
    assert "--example takes no" in _error(["--example", qrels_path], capsys)


@pytest.mark.parametrize(
    ("fmt", "text", "pattern"),
    [
        ("prefs", GOOD_QRELS, r"{rel}:1: malformed line 'q1 0 d1 1': expected 5"),
        ("qrels_prefs", "q1 0 d1 x\n", r"{rel}:1: .*'x'"),
        ("qrels_jg", "q1 0 d1\n", r"{rel}:1: malformed line"),
    ],
)
def test_other_rel_info_formats(fmt: str, text: str, pattern: str, tmp_path: Path, capsys) -> None:
    run_path, rel_path = _files(tmp_path, GOOD_RUN, text)
    measures = {"prefs": "all_prefs", "qrels_prefs": "all_prefs", "qrels_jg": "qrels_jg"}[fmt]
    line = _error(["trec_eval", "-R", fmt, "-m", measures, rel_path, run_path], capsys)
    assert re.search(pattern.format(rel=re.escape(rel_path)), line), line


@pytest.mark.parametrize("name", ["big.txt", "big.parquet", "big.pq"])
def test_float32_overflow_names_the_run_file(name: str, tmp_path: Path, capsys) -> None:
    """--scores float32: a score beyond the 32-bit range is refused naming the run file (the
    run_id the command adds lost the name: '<input>: score 1e+40'); a text run, a Parquet
    run without run_id, and one whose run name is not io's file name (.pq)."""
    _, qrels_path = _files(tmp_path, GOOD_RUN, GOOD_QRELS)
    path = str(tmp_path / name)
    frame = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "score": [1e40, 1.0]})
    if name.endswith(".txt"):
        Path(path).write_text("q1 Q0 d1 1 1e40 tag\nq1 Q0 d2 2 1.0 tag\n")
    else:
        frame.write_parquet(path)
    line = _error([qrels_path, path, "-m", "P@5", "--scores", "float32"], capsys)
    assert line.startswith(f"ireval: error: {path}: score 1e+40 of document 'd1'"), line
    assert "beyond the 32-bit float range" in line


def test_float32_overflow_among_several_runs(tmp_path: Path, capsys) -> None:
    """Runs read one by one (a Parquet run among them) and concatenated: the error names the
    files read and the run (was '<input>')."""
    _, qrels_path = _files(tmp_path, GOOD_RUN, GOOD_QRELS)
    good, bad = str(tmp_path / "good.parquet"), str(tmp_path / "bad.txt")
    pl.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "score": [1.0]}).write_parquet(good)
    Path(bad).write_text("q1 Q0 d1 1 1e40 tag\n")
    line = _error([qrels_path, good, bad, "-m", "P@5", "--scores", "float32"], capsys)
    assert line.startswith(
        "ireval: error: 2 run files: score 1e+40 of document 'd1' (query 'q1', run 'bad')"
    ), line


# --------------------------------------------------------------------------- the first word

#: What ``ireval --help`` lists: every mode and the evaluation form (written out here, not
#: read from cli.COMMANDS, so that a mode dropped from the list fails).
MODE_NAMES = ["trec_eval", "compare", "fuse", "pool", "simulate", "properties", "pir", "plot"]


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_lists_the_commands(flag: str, capsys) -> None:
    """`ireval --help` named no subcommand: it lists each with a one-line summary."""
    try:
        code = main([flag])
    except SystemExit as e:  # argparse's help exits
        code = e.code
    out = capsys.readouterr().out
    assert code == 0
    listed = re.findall(r"^  (\S+(?: \S+)*?)  +(\S.*)$", out.split("commands")[1], re.M)
    names = [name for name, _ in listed]
    assert names[: len(MODE_NAMES) + 1] == ["QRELS RUN [RUN ...]", *MODE_NAMES]
    assert all(len(summary) > 10 for _, summary in listed[: len(MODE_NAMES) + 1])
    for name in MODE_NAMES:  # each mode's own help runs
        try:
            code = main([name, "-h"])
        except SystemExit as e:
            code = e.code
        assert code == 0, name
        assert capsys.readouterr().out.startswith(f"usage: ireval {name} ")


@pytest.mark.parametrize(
    ("word", "meant"),
    [("comapre", "compare"), ("trec-eval", "trec_eval"), ("porperties", "properties"),
     ("plots", "plot"), ("Simulate", "simulate")],
)  # fmt: skip
def test_a_misspelt_command_says_which_was_meant(
    word: str, meant: str, tmp_path: Path, monkeypatch, capsys
) -> None:
    """`ireval comapre ...` said "comapre: no such file"."""
    monkeypatch.chdir(tmp_path)
    line = _error([word, "qrels.txt", "run.txt"], capsys)
    assert line == f"ireval: error: unknown command {word!r}; did you mean {meant!r}?"


def test_a_file_named_like_a_command_is_still_qrels(tmp_path: Path, monkeypatch, capsys) -> None:
    """A file called `comapre` is read as qrels; a path that is no command word, or a word
    close to none, is a missing file as before."""
    monkeypatch.chdir(tmp_path)
    run_path, _ = _files(tmp_path, GOOD_RUN, GOOD_QRELS)
    Path("comapre").write_text(GOOD_QRELS)
    assert main(["comapre", run_path, "-m", "P@5", "--format", "tsv"]) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith("run\t")
    for word in ("compare.txt", "qrels", "./pool"):
        assert (
            _error([word, run_path], capsys)
            == f"ireval: error: {word}: no such file; check the path"
        )
