"""``ireval trec_eval --trec_eval_version V`` against the real trec_eval V, byte for byte.

Each of the three versions ``ireval trec_eval`` names runs as a binary: 9.0.4 (pyserini's
build, ``IREVAL_TREC_EVAL``), 9.0.8 and 10.0 (built from ``../shared/oracles`` by
``tests/tools/trec_eval_oracles.py``, or named by ``IREVAL_TREC_EVAL_9_0_8`` /
``IREVAL_TREC_EVAL_10_0``). Every generated case (``tests/trec_eval_cases.py``: ties, scores
equal as 32-bit floats only, negative grades and grades of 10 and more, queries on one side
only, ``-c -M -J -l -n -N``, cut-off and parameter lists, ``all_trec``) goes through the
binary and through ``ireval trec_eval`` with the same flags:

- where trec_eval prints results, the same bytes on stdout;
- where it stops with an error (``result qid 'X' not found in qrels``, ``Can't calculate
  measure``, ``No queries with both results and relevance info``), the same stdout (what it
  printed before), the same line on stderr and the same exit status;
- where it crashes (a segmentation fault on a query whose judgments are all -2 or below,
  after the first query: docs/compat.md), ``ireval`` stops with an error that says so.
"""

from __future__ import annotations

import io
import os
import subprocess
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pytest

from polars_ireval.cli import main
from tests.tools import trec_eval_oracles
from tests.trec_eval_cases import Case, case

VERSIONS = ("9.0.4", "9.0.8", "10.0")
SEEDS = 300
BLOCK = 25


def _binary(version: str) -> str:
    if version == "9.0.4":
        path = os.environ.get("IREVAL_TREC_EVAL")
        if not path:
            pytest.skip("no trec_eval 9.0.4 binary: set IREVAL_TREC_EVAL (.ci/run fetches it)")
        return path
    path = os.environ.get(trec_eval_oracles.env_name(version))
    if path:
        return path
    try:
        return str(trec_eval_oracles.build(version))
    except (OSError, subprocess.CalledProcessError) as e:
        pytest.skip(f"no trec_eval {version} binary: {e}")


def _ours(version: str, args: list[str]) -> tuple[int, bytes, bytes]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["trec_eval", "--trec_eval_version", version, *args])
    return code, out.getvalue().encode(), err.getvalue().encode()


def compare(binary: str, version: str, c: Case, folder: Path) -> tuple[str, str | None]:
    """(outcome, difference or None) of one case: ``same``, ``stop`` or ``crash``."""
    q, r = c.write(folder)
    args = [*c.flags, str(q), str(r)]
    theirs = subprocess.run([binary, *args], capture_output=True, timeout=60)
    code, out, err = _ours(version, args)
    where = f"seed {c.seed}: trec_eval {' '.join(c.flags)}"
    if theirs.returncode < 0:  # a signal: trec_eval crashed
        if code == 2 and b"crashes on such a query" in err:
            return "crash", None
        return "crash", f"{where}: trec_eval crashed ({theirs.returncode}); ireval {code} {err!r}"
    if theirs.returncode != code or theirs.stderr != err:
        return "stop", f"{where}: exit {theirs.returncode} {theirs.stderr!r}, ireval {code} {err!r}"
    if theirs.stdout != out:
        lines = zip(theirs.stdout.splitlines(), out.splitlines(), strict=False)
        first = next(((a, b) for a, b in lines if a != b), "(lengths differ)")
        return "same", f"{where}: first difference (trec_eval, ireval) {first}"
    return ("stop" if code else "same"), None


@pytest.mark.parametrize("block", range(SEEDS // BLOCK))
@pytest.mark.parametrize("version", VERSIONS)
def test_same_bytes_as_the_binary(version: str, block: int, tmp_path: Path) -> None:
    binary = _binary(version)
    failures, outcomes = [], Counter[str]()
    for seed in range(block * BLOCK, (block + 1) * BLOCK):
        outcome, difference = compare(binary, version, case(seed, version), tmp_path)
        outcomes[outcome] += 1
        if difference:
            failures.append(difference)
    assert not failures, f"{len(failures)} of {BLOCK} cases differ ({dict(outcomes)}):\n" + (
        "\n".join(failures[:5])
    )


def _float32_tie(c: Case) -> bool:
    """Whether a query of the run has two scores equal as C floats but not as doubles."""
    seen: dict[tuple[str, float], set[float]] = {}
    for line in c.run.splitlines():
        qid, _, _, _, score, _ = line.split()
        seen.setdefault((qid, float(np.float32(score))), set()).add(float(score))
    return any(len(v) > 1 for v in seen.values())


def test_the_cases_reach_what_the_versions_disagree_on() -> None:
    """The generated cases hold what this test is for (a case generator that drifted to
    easy inputs would pass the comparison and test nothing)."""
    cases = [case(seed) for seed in range(SEEDS)]
    flags = Counter(f[:2] for c in cases for f in c.flags if f.startswith("-"))
    for flag in ("-q", "-c", "-M", "-J", "-l", "-n", "-N"):
        assert flags[flag] >= 10, (flag, flags)
    assert sum(_float32_tie(c) for c in cases) >= 30
    grades = [int(line.split()[3]) for c in cases for line in c.qrels.splitlines()]
    assert min(grades) <= -2 and max(grades) >= 10
    assert sum("all_trec" in c.flags for c in cases) >= 100


# --------------------------------------------------------------------------- named cases
# Each input of issue 39 with what trec_eval prints (read off the binaries, and checked
# against each binary that is here).

FLOAT32_TIE = Case(0, "1 0 dA 0\n1 0 dB 1\n", "1 Q0 dA 1 1.00000001 t\n1 Q0 dB 2 1 t\n", ())
NAMED = [
    # scores equal as C floats: 9.x ranks dB (doc id descending) first
    (
        "9.0.8",
        FLOAT32_TIE,
        "-m map -m P.1",
        0,
        "map                   \tall\t1.0000\nP_1                   \tall\t1.0000\n",
        "",
    ),
    (
        "9.0.4",
        FLOAT32_TIE,
        "-m map -m P.1",
        0,
        "map                   \tall\t1.0000\nP_1                   \tall\t1.0000\n",
        "",
    ),
    (
        "10.0",
        FLOAT32_TIE,
        "-m map -m P.1",
        0,
        "map                   \tall\t0.5000\nP_1                   \tall\t0.0000\n",
        "",
    ),
    # a grade of 10 or more is '>' in relstring
    (
        "9.0.8",
        Case(
            1,
            "1 0 a 12\n1 0 b 3\n1 0 c -1\n",
            "1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n1 Q0 d 4 0 t\n",
            (),
        ),
        "-q -n -m relstring",
        0,
        "relstring             \t1\t'>3.-'\n",
        "",
    ),
    # 10.0 without -c: a judged query the run lacks stops it, after the -q lines before it
    (
        "10.0",
        Case(2, "1 0 a 1\n2 0 a 1\n3 0 a 1\n", "1 Q0 a 1 3 t\n3 Q0 a 1 3 t\n", ()),
        "-q -m P.1",
        4,
        "P_1                   \t1\t1.0000\n",
        "trec_eval: result qid '2' not found in qrels\n",
    ),
    # 9.x skips that query
    (
        "9.0.8",
        Case(2, "1 0 a 1\n2 0 a 1\n3 0 a 1\n", "1 Q0 a 1 3 t\n3 Q0 a 1 3 t\n", ()),
        "-m P.1",
        0,
        "P_1                   \tall\t1.0000\n",
        "",
    ),
    # the first query evaluated has only negative grades: no buffer for its grades
    (
        "9.0.8",
        Case(3, "1 0 a -1\n2 0 a 1\n", "1 Q0 a 1 3 t\n2 Q0 a 1 3 t\n", ()),
        "-q -m map -m P.1",
        4,
        "",
        "trec_eval: Can't calculate measure 'map'\n",
    ),
    (
        "10.0",
        Case(3, "1 0 a -1\n2 0 a 1\n", "1 Q0 a 1 3 t\n2 Q0 a 1 3 t\n", ()),
        "-m all_trec",
        4,
        "",
        "trec_eval: Can't calculate measure 'num_ret'\n",
    ),
    # ... a later one is fine with -1
    (
        "9.0.8",
        Case(4, "1 0 a 1\n2 0 a -1\n", "1 Q0 a 1 3 t\n2 Q0 a 1 3 t\n", ()),
        "-m map",
        0,
        "map                   \tall\t0.5000\n",
        "",
    ),
    # no query on both sides: 9.x stops; 10.0 -c evaluates the judged one as a ranking of
    # one unjudged document
    (
        "9.0.8",
        Case(5, "1 0 a 1\n", "2 Q0 a 1 1 t\n", ()),
        "-c -m map",
        7,
        "",
        "trec_eval: No queries with both results and relevance info\n",
    ),
    (
        "10.0",
        Case(5, "1 0 a 1\n", "2 Q0 a 1 1 t\n", ()),
        "-c -m num_ret -m map",
        0,
        "num_ret               \tall\t0\nmap                   \tall\t0.0000\n",
        "",
    ),
    # 10.0 -c: utility with parameters keeps the bogus document's value (trec_eval clears
    # the value named 'utility' only)
    (
        "10.0",
        Case(6, "1 0 a 1\n2 0 a 1\n", "1 Q0 a 1 1 t\n", ()),
        "-q -c -m utility",
        0,
        "utility               \t1\t1.0000\nutility               \t2\t0.0000\n"
        "utility               \tall\t0.5000\n",
        "",
    ),
    (
        "10.0",
        Case(6, "1 0 a 1\n2 0 a 1\n", "1 Q0 a 1 1 t\n", ()),
        "-q -c -m utility.2,-1,0,0",
        0,
        "utility_2,-1,0,0      \t1\t2.0000\nutility_2,-1,0,0      \t2\t-1.0000\n"
        "utility_2,-1,0,0      \tall\t0.5000\n",
        "",
    ),
    # -l 0 and grade-0 judgments only: Rndcg divides by 0 levels
    (
        "9.0.8",
        Case(7, "1 0 a 0\n2 0 a 1\n", "1 Q0 a 1 3 t\n2 Q0 a 1 3 t\n", ()),
        "-q -l 0 -m Rndcg",
        0,
        "Rndcg                 \t1\t  -nan\nRndcg                 \t2\t1.0000\n"
        "Rndcg                 \tall\t  -nan\n",
        "",
    ),
]


@pytest.mark.parametrize(("version", "c", "flags", "status", "stdout", "stderr"), NAMED)
def test_named_cases(version, c, flags, status, stdout, stderr, tmp_path: Path) -> None:
    q, r = c.write(tmp_path)
    args = [*flags.split(), str(q), str(r)]
    assert _ours(version, args) == (status, stdout.encode(), stderr.encode())
    binary = _binary(version)
    theirs = subprocess.run([binary, *args], capture_output=True, timeout=60)
    assert (theirs.returncode, theirs.stdout, theirs.stderr) == (
        status,
        stdout.encode(),
        stderr.encode(),
    )


def test_a_later_query_judged_below_minus_one_crashes_trec_eval(tmp_path: Path) -> None:
    """trec_eval clears a negative number of grade counters and crashes (every version):
    ``ireval trec_eval`` says so instead."""
    c = Case(8, "1 0 a 2\n2 0 a -2\n", "1 Q0 a 1 3 t\n2 Q0 a 1 3 t\n", ())
    q, r = c.write(tmp_path)
    for version in VERSIONS:
        code, out, err = _ours(version, ["-m", "map", str(q), str(r)])
        assert code == 2 and out == b""
        said = f"every judgment of it is below -1 (highest grade -2); trec_eval {version} crashes"
        assert f"query '2': {said}".encode() in err
        theirs = subprocess.run(
            [_binary(version), "-m", "map", str(q), str(r)], capture_output=True
        )
        assert theirs.returncode < 0 and theirs.stdout == b""
