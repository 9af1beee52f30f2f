"""``ireval trec_eval`` against a trec_eval binary, byte for byte, over many flag sets.

Runs when a trec_eval executable is given by ``IREVAL_TREC_EVAL`` (or is ``trec_eval`` on
``PATH``); e.g. the 9.0.4 build inside pyserini's sdist (``pip download pyserini==1.6.0
--no-deps --no-binary :all:``; ``pyserini/resources/jars/anserini-*-fatjar.jar`` holds
``trec_eval/trec_eval-linux-amd64``), which reproduces trec_eval 9.0.8's test suite. Without
one the test is skipped with that message: the fixed references of test_cli*.py still run.
9.0.4 and 9.0.8 keep scores as 32-bit floats, 10.0 as doubles: scores equal to 7 digits
tie in 9.x only (``tests/test_trec_eval_versions.py`` runs each version's binary).
`.ci/run` fetches the binary with `tests/tools/trec_eval_binary.py`.
Our side runs in this process (`main`, stdout captured), except in the 9.0.4 test, which
starts `python -m polars_ireval.cli` as a user would.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout

import pytest

from polars_ireval.cli import main
from polars_ireval.io.example import example_path
from tests.conftest import CAST, ROOT, TREC_TEST, need_data

BINARY = os.environ.get("IREVAL_TREC_EVAL") or shutil.which("trec_eval")

FLAGS = [
    "-q -m all_trec",
    "-q -c -m all_trec",
    "-q -M5 -m all_trec",
    "-q -J -m all_trec",  # CAsT query 107_4: set_map 21²/(28·40) rounds to 0.3937
    "-q -J -c -M20 -m all_trec -l2",
    "-q -l3 -m all_trec",
    "-q -l0 -m all_trec",
    "-q -c -l2 -M50 -m all_trec",
    "-q -n -m official -m relstring.15",
    "-q -N 5000 -m utility.1,-1,2,0.5",
    "-q -c -N 5000 -m utility.1,-1,2,0.5",  # -c adds 0 for a query the run lacks
    "-q -c -m set",
    "-q -m P.3,7,1000 -m ndcg_cut.5,1000 -m ndcg.0=1,1=2,2=8 -m success.1,3 -m recall.7",
    "-q -m map_cut.3,50 -m relative_P.7 -m Rprec_mult.0.5,3 -m 11pt_avg.0,.5,1 -m utility",
    "-q -m iprec_at_recall.0,.33,1 -m set_F",
    "-q -m set_F.0.5 -m set_F.3 -m P.1000 -m set_map",  # the first set_F wins
    "-q -m P.5 -m P.10 -m P -m ndcg.1=2 -m ndcg.1=5 -m relstring.5 -m relstring.7",
    # no relstring: each measure on the smallest table it needs, from one judgment
    "-q -J -c -M20 -l2 -m official -m set -m ndcg_rel -m Rndcg -m G -m infAP -m binG",
    "-q -M5 -m official -m num_nonrel_judged_ret -m utility -m gm_bpref",
]


def _pairs() -> list[tuple[str, str]]:
    return [
        (str(TREC_TEST / "qrels.test"), str(TREC_TEST / "results.trunc")),
        (str(TREC_TEST / "qrels.rel_level"), str(TREC_TEST / "results.test")),
        (str(TREC_TEST / "qrels.comment.test"), str(TREC_TEST / "results.comment.test")),
        (str(CAST / "qrels.cast2021-docs.txt"), str(CAST / "runs" / "org_manual_bm25.run")),
        (example_path("qrels.txt"), example_path("runs/random.run")),
    ]


def _run(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)


def _ireval(args: list[str]) -> tuple[int, str, str]:
    """``ireval trec_eval ARGS`` in this process: exit code, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["trec_eval", *args])
    return code, out.getvalue(), err.getvalue()


def _compare(flags: str, pairs: list[tuple[str, str]]) -> None:
    for qrels, run in pairs:
        theirs = _run([BINARY, *flags.split(), qrels, run])
        assert theirs.returncode == 0, theirs.stderr
        code, ours, err = _ireval([*flags.split(), qrels, run])
        assert code == 0, err
        if ours != theirs.stdout:
            diff = [
                (a, b)
                for a, b in zip(theirs.stdout.splitlines(), ours.splitlines(), strict=False)
                if a != b
            ]
            pytest.fail(f"{flags} {qrels} {run}: first differences (trec_eval, ireval) {diff[:3]}")


@pytest.mark.parametrize("flags", FLAGS)
def test_same_bytes_as_the_binary(flags: str) -> None:
    if BINARY is None:
        pytest.skip("no trec_eval binary: set IREVAL_TREC_EVAL=/path/to/trec_eval")
    need_data()
    _compare(flags, _pairs())


@pytest.mark.parametrize(
    "flags",
    [
        "-q -J -m all_trec",
        "-q -J -c -l2 -m all_trec",
        "-q -J -m iprec_at_recall.0,.04,.05,.3 -m 11pt_avg.0.3,0.5 -m 11pt_avg",
        "-q -J -M1 -m official",
    ],
)
def test_rankings_emptied_by_judged_only(flags: str, tmp_path) -> None:
    from tests.refs import EMPTIED_QRELS, EMPTIED_RUN

    if BINARY is None:
        pytest.skip("no trec_eval binary: set IREVAL_TREC_EVAL=/path/to/trec_eval")
    (tmp_path / "qrels").write_text(EMPTIED_QRELS)
    (tmp_path / "run").write_text(EMPTIED_RUN)
    _compare(flags, [(str(tmp_path / "qrels"), str(tmp_path / "run"))])


@pytest.mark.parametrize("flags", ["-q -c -M1000 -m all_trec", "-q -m official -l2"])
def test_9_0_4_mode_reads_scores_as_the_binary_does(flags: str, tmp_path) -> None:
    """``--trec_eval_version 9.0.4`` against the 9.0.4 binary on TREC-COVID's run BERT,
    whose scores differ in the seventh digit: 32-bit ties broken by doc id, as it does."""
    if BINARY is None:
        pytest.skip("no trec_eval binary: set IREVAL_TREC_EVAL=/path/to/trec_eval")
    import gzip

    covid = need_data() / "trec-covid-r1"
    run = tmp_path / "BERT.run"
    run.write_bytes(gzip.decompress((covid / "runs" / "BERT.gz").read_bytes()))
    qrels = str(covid / "qrels-rnd1.txt")
    theirs = _run([BINARY, *flags.split(), qrels, str(run)])
    cli = [sys.executable, "-m", "polars_ireval.cli", "trec_eval"]
    ours = _run([*cli, "--trec_eval_version", "9.0.4", *flags.split(), qrels, str(run)])
    assert theirs.returncode == 0 and ours.returncode == 0, ours.stderr
    assert ours.stdout == theirs.stdout
    # 9.0.8 stores scores as C floats too (float sim in its trec_format.h): the same bytes
    v908 = _run([*cli, *flags.split(), qrels, str(run)])
    assert v908.stdout == theirs.stdout
    # read as doubles (trec_eval 10.0), BERT's scores tie elsewhere: other values
    doubles = _run([*cli, "--trec_eval_version", "10.0", *flags.split(), qrels, str(run)])
    mine = {tuple(x.split("\t")[:2]): x for x in doubles.stdout.splitlines()}
    assert any(
        mine.get(tuple(x.split("\t")[:2]), x) != x
        for x in theirs.stdout.splitlines()
        if x.startswith(("map ", "P_10 "))
    )
