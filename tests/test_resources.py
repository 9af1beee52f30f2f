"""Resource guards: an input whose size the user controls ends with the package's error
(:class:`polars_ireval.ResourceError`, or the readers' ``FormatError`` for a long line),
never with an abort, a Rust panic or a raw MemoryError.

Each hostile input runs in a subprocess whose address space is limited
(``resource.setrlimit(RLIMIT_AS)``) well below what the input would take, and the test
asserts the words of the message (input, estimate, budget, way out). Then unit tests of the
budget (``IREVAL_MEMORY_LIMIT``, ``RLIMIT_AS``) and of the line-length check.
"""

from __future__ import annotations

import functools
import gzip
import os
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path

import polars as pl
import pytest

import polars_ireval as ir
from polars_ireval._base import resources as _resources
from polars_ireval.errors import LineLengthError
from polars_ireval.io import lines

resource = pytest.importorskip("resource")  # POSIX only

QRELS = ir.example_path("qrels.txt")
BM25 = ir.example_path("runs/bm25.run")
RUNS = [ir.example_path(f"runs/{n}.run") for n in ("bm25", "dense", "random")]
GiB = 2**30
#: The address space of the subprocesses: enough for Python, Polars and DuckDB to start
#: and evaluate the bundled example (DuckDB needs about 2 GB of address space to start its
#: threads), far below what each input below would take (6 GB to hundreds of GB).
POLARS_LIMIT = int(1.5 * GiB)
SCIPY_LIMIT = DUCKDB_LIMIT = int(2.5 * GiB)
#: Not a timing: a run that hangs instead of failing ends the test instead of the suite.
HANG = 120


#: The child sets its own limit before it runs ``-c CODE`` or ``-m MODULE``: a limit set in
#: ``preexec_fn`` runs Python in the forked copy of the test worker, where the gRPC threads
#: of an earlier Spark test abort the child before it execs (SIGABRT, "epoll_wait error").
LAUNCH = """\
import resource, runpy, sys
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
mode, target, sys.argv = sys.argv[2], sys.argv[3], [sys.argv[3], *sys.argv[4:]]
if mode == "-m":
    runpy.run_module(target, run_name="__main__", alter_sys=True)
else:
    exec(compile(target, "<string>", "exec"), {"__name__": "__main__"})
"""


def limited(args: list[str], limit: int = POLARS_LIMIT, **env: str) -> subprocess.CompletedProcess:
    """``python args...`` (``-c CODE`` or ``-m MODULE ...``) under ``RLIMIT_AS = limit``,
    the budget left to the package."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("IREVAL_")}
    environ.update(env)
    return subprocess.run(
        [sys.executable, "-c", LAUNCH, str(limit), *args], capture_output=True, text=True,
        env=environ, timeout=HANG, cwd=Path(__file__).parents[1],
    )  # fmt: skip


def python(code: str, limit: int = POLARS_LIMIT) -> subprocess.CompletedProcess:
    """Run ``code`` (after ``import polars_ireval as ir``) under the limit; the package's
    error is printed as ``ResourceError: ...`` with exit status 3."""
    body = textwrap.indent(textwrap.dedent(code), "    ")
    program = (
        "import polars as pl, polars_ireval as ir\n"
        f"QRELS, BM25, RUNS = {QRELS!r}, {BM25!r}, {RUNS!r}\n"
        "try:\n" + body + "\nexcept ir.IrevalError as e:\n"
        "    print(f'{type(e).__name__}: {e}'); raise SystemExit(3)\n"
    )
    return limited(["-c", program], limit)


def cli(*argv: str, limit: int = POLARS_LIMIT) -> subprocess.CompletedProcess:
    return limited(["-m", "polars_ireval.cli", *argv], limit)


def refused(done: subprocess.CompletedProcess, *words: str, status: int = 3) -> str:
    """The message of a process that ended with the package's error, checked for
    ``words`` and for the budget coming from the address-space limit."""
    text = done.stdout + done.stderr
    assert done.returncode == status, f"exit {done.returncode}:\n{text[-3000:]}"
    for word in (*words, "RLIMIT_AS", "IREVAL_MEMORY_LIMIT="):
        assert word in text, f"{word!r} not in:\n{text[-3000:]}"
    return text


# --------------------------------------------------------------------------- C/W/L depths


def test_cwl_depth_on_the_command_line() -> None:
    done = cli(QRELS, BM25, "-m", "INST@10000000", "-m", "P@10")
    text = refused(done, "ireval: error: INST@10000000 on 25 rankings needs about", status=2)
    assert "lower the depth" in text and "evaluate_out_of_core" in text


def test_cwl_depth_on_duckdb() -> None:
    done = python(
        "ir.evaluate(ir.read_run(BM25), QRELS, ['TBG@100000000'], engine='duckdb')",
        DUCKDB_LIMIT,
    )
    refused(done, "ResourceError: TBG@100000000 on 25 rankings needs about")


def test_cwl_depth_of_a_lazy_run_is_bounded_by_the_depth_alone() -> None:
    done = python("ir.evaluate(ir.read_run(BM25).lazy(), QRELS, ['NERR8@100000000']).collect()")
    refused(done, "NERR8@100000000 on each ranking (the run is lazy")


def test_expected_depth_of_a_deep_model() -> None:
    done = python("ir.evaluate(ir.read_run(RUNS), QRELS, [\"ED(measure='U@30000000')\"])")
    refused(done, "ED(measure='U@30000000') on 75 rankings")


# --------------------------------------------------------------------------- depth_curve


def test_depth_curve_of_a_million_depths() -> None:
    done = python("ir.depth_curve(RUNS, QRELS, 'AP', depths=range(1, 10**6))")
    refused(done, "depth_curve of AP at 999,999 depths on 75 rankings needs about")


def test_depth_curve_of_a_billion_depths_is_refused_before_listing_them() -> None:
    done = python("ir.depth_curve(BM25, QRELS, 'INST', depths=range(1, 10**9))")
    refused(done, "depths= of 999,999,999 values needs about", "sparser grid")


# --------------------------------------------------------------------------- long lines


def test_a_300_mb_line(tmp_path: Path) -> None:
    path = tmp_path / "one.run"
    with path.open("wb") as f:  # one line, no break: what a corrupt download looks like
        f.write(b"1 Q0 ")
        for _ in range(300):
            f.write(b"abcdefgh " * 116_509)
    done = cli(QRELS, str(path))
    refused_line = done.stderr
    assert done.returncode == 2, done.stderr[-2000:]
    assert f"ireval: error: {path}:1: the line is at least 16,777,216 bytes long" in refused_line
    assert "IREVAL_MAX_LINE_BYTES=" in refused_line


def test_a_300_mb_line_gzipped(tmp_path: Path) -> None:
    path = tmp_path / "one.run.gz"
    pack = zlib.compressobj(1, zlib.DEFLATED, 31)  # gzip, streamed
    with path.open("wb") as f:
        f.write(pack.compress(b"1 Q0 d1 1 2.5 t\n" * 3))
        for _ in range(300):
            f.write(pack.compress(b"abcdefgh " * 116_509))
        f.write(pack.flush())
    done = cli("trec_eval", QRELS, str(path))
    assert done.returncode == 2, done.stderr[-2000:]
    assert f"{path}:4: the line is at least" in done.stderr


# --------------------------------------------------------------------------- resampling


@pytest.mark.parametrize(
    ("options", "what"),
    [
        ("test='bootstrap'", "test='bootstrap' with resamples=1,000,000,000 on 25 topics"),
        ("test='permutation', method='monte_carlo'", "test='randomization' with resamples=1,00"),
        ("test='randomized_tukey_hsd'", "test='randomized_tukey_hsd' with resamples"),
        ("ci='bca'", "ci='bca' with resamples=1,000,000,000"),
    ],
)
def test_a_billion_resamples(options: str, what: str) -> None:
    done = python(
        f"""
        pq = ir.evaluate(ir.read_run(RUNS), QRELS, ['AP'], per_query=True)
        ir.compare(pq, {options}, resamples=10**9)
        """,
        SCIPY_LIMIT,
    )
    refused(done, f"AP: {what}", "fewer resamples")


def test_a_billion_resamples_on_the_command_line() -> None:
    done = cli("compare", QRELS, *RUNS, "-m", "AP", "--test", "bootstrap",
               "--resamples", "1000000000", limit=SCIPY_LIMIT)  # fmt: skip
    refused(done, "ireval: error: AP: test='bootstrap' with resamples=1,000,000,000", status=2)


# --------------------------------------------------------------------------- pir


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, str]:
    from tests.test_pir import write_files

    return write_files(tmp_path_factory.mktemp("pir"), ir.simulate_sessions(50, seed=3))


@pytest.mark.parametrize("span", ["1-1000000000", "1-10000"])
def test_pir_cutoff_ranges(sessions: tuple[str, str, str], span: str) -> None:
    done = cli("pir", *sessions, "--cutoffs", span)
    count = f"{int(span.split('-')[1]):,}"
    refused(done, f"ireval: error: 1 measure(s) at {count} cut-offs", "fewer cut-offs", status=2)


def test_pir_range_through_the_api() -> None:
    done = python(
        """
        sim = ir.simulate_sessions(50, seed=3)
        ir.pir(sim.lists, sim.qrels, sim.preferences, ['nDCG', 'P'], cutoffs=range(1, 20001))
        """
    )
    refused(done, "measure(s) at 20,000 cut-offs")


# --------------------------------------------------------------------------- other sizes


def test_judging_simulation_budgets() -> None:
    done = python(
        "ir.simulate_judging(RUNS, QRELS, budgets=range(1, 3000), methods=['depth', 'A', 'B', 'C'])"
    )
    refused(done, "simulate_judging of 4 method(s) at 2,999 budgets needs about", "fewer budgets")


def test_simulated_sessions() -> None:
    refused(python("ir.simulate_sessions(10**8, seed=1)"), "simulate_sessions(n=100,000,000")


def test_depth_qrels_at_a_million_depths() -> None:
    done = python("ir.depth_qrels(RUNS, QRELS, depth=range(1, 10**6))")
    refused(done, "depth_qrels at 999,999 depths of 2,948 judgments")


def test_properties_universe() -> None:
    done = python("ir.properties(['nDCG@9'], max_queries=10**8)")
    refused(done, "the audit of nDCG@9 at depth 9 on 3,145,728 synthetic queries", "max_queries")


# --------------------------------------------------------------------------- the budget


@pytest.mark.parametrize(
    ("text", "size"),
    [("8G", 8 * GiB), ("512M", 512 * 2**20), ("1.5G", 3 * GiB // 2), ("4096", 4096),
     ("64KiB", 65536), (" 2gb ", 2 * GiB), ("1T", 2**40)],
)  # fmt: skip
def test_memory_limit_variable(monkeypatch: pytest.MonkeyPatch, text: str, size: int) -> None:
    monkeypatch.setenv("IREVAL_MEMORY_LIMIT", text)
    assert _resources.memory_budget() == size
    assert _resources.budget_and_source()[1] == f"IREVAL_MEMORY_LIMIT={text.strip()}"


@pytest.mark.parametrize("text", ["lots", "-1", "0", "8 G B", "1e9", "G", "nan"])
def test_a_bad_memory_limit_names_the_variable(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setenv("IREVAL_MEMORY_LIMIT", text)
    with pytest.raises(ir.ParameterError, match=r"IREVAL_MEMORY_LIMIT=.*give a size in bytes"):
        _resources.memory_budget()


def test_budget_is_half_the_least_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("IREVAL_MEMORY_LIMIT", raising=False)
    monkeypatch.setattr(_resources, "_physical", lambda: 64 * GiB)
    monkeypatch.setattr(_resources, "_cgroup", lambda: 8 * GiB)
    monkeypatch.setattr(_resources, "_address_space", lambda: None)
    assert _resources.budget_and_source() == (4 * GiB, "50% of the cgroup's memory.max, 8.0 GiB")
    monkeypatch.setattr(_resources, "_address_space", lambda: 2 * GiB)
    budget, source = _resources.budget_and_source()
    assert budget == GiB and "RLIMIT_AS" in source


def test_rlimit_sets_the_budget() -> None:
    code = (
        "from polars_ireval._base import resources as r; b, s = r.budget_and_source(); "
        "print(b, s, sep='|')"
    )
    done = limited(["-c", code], POLARS_LIMIT)
    budget, source = done.stdout.strip().split("|")
    assert 0 < int(budget) < POLARS_LIMIT / 2
    assert source.startswith("50% of the address space left under RLIMIT_AS")


def test_the_variable_raises_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    run = ir.read_run(BM25)
    monkeypatch.setenv("IREVAL_MEMORY_LIMIT", "64M")
    with pytest.raises(
        ir.ResourceError,
        match=r"INST@100000 on 25 rankings needs about 2\d\d\.\d "
        r"MiB .* memory budget of 64\.0 MiB \(IREVAL_MEMORY_LIMIT=64M\)",
    ) as e:
        ir.evaluate(run, QRELS, ["INST@100000"])  # fmt: skip
    assert e.value.estimate == 100_000 * (25 + pl.thread_pool_size()) * 100
    assert (e.value.what, e.value.budget) == ("INST@100000 on 25 rankings", 64 * 2**20)
    monkeypatch.setenv("IREVAL_MEMORY_LIMIT", "1G")
    assert ir.evaluate(run, QRELS, ["INST@100000"])["value"].item() > 0


def test_shallow_measures_never_count_rankings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IREVAL_MEMORY_LIMIT", "1M")  # only the C/W/L depths are weighed
    assert ir.evaluate(ir.read_run(RUNS), QRELS, ["nDCG@10", "AP", "RBP"]).height == 9


# --------------------------------------------------------------------------- line length


def test_a_3_mb_line(tmp_path: Path) -> None:
    good = b"q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1.5 t\n"
    plain, packed = tmp_path / "long.run", tmp_path / "long.run.gz"
    plain.write_bytes(good + b"x" * 3_000_000 + b"\n" + good)
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    for path in (plain, packed):
        with pytest.raises(LineLengthError, match=rf"{path}:3: the line is 3,000,000 bytes long"):
            ir.read_run(path)
        with pytest.raises(ir.FormatError, match=r"IREVAL_MAX_LINE_BYTES=6000000"):
            lines.check_line_length(str(path))  # gzip: a block at a time
    only = tmp_path / "one.qrels"
    only.write_bytes(b"q1 0 " + b"y" * 3_000_000)  # no line break at all
    with pytest.raises(ir.FormatError, match=r"one.qrels:1: the line is 3,000,005 bytes long"):
        ir.read_qrels(only)


def test_the_variable_raises_the_line_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "long.run"
    path.write_bytes(b"q1 Q0 d1 1 2.5 t\n" + b"x" * 3_000_000 + b"\n")
    monkeypatch.setenv("IREVAL_MAX_LINE_BYTES", "4M")  # then it is merely malformed
    with pytest.raises(ir.FormatError, match=r"long.run:2: malformed line 'xxx"):
        ir.read_run(path)
    monkeypatch.setenv("IREVAL_MAX_LINE_BYTES", "two")
    with pytest.raises(ir.ParameterError, match=r"IREVAL_MAX_LINE_BYTES='two'"):
        ir.read_run(path)


def test_normal_files_pass() -> None:
    for path in (QRELS, *RUNS):
        lines.check_line_length(path)
    assert ir.read_run(RUNS).height == 7500


@pytest.mark.parametrize("block", [1, 7, 64, 10_000])
@pytest.mark.parametrize("end", [b"\n", b"\r\n", b"\r", b""])
def test_the_limit_is_exact(monkeypatch: pytest.MonkeyPatch, block: int, end: bytes) -> None:
    """A line of exactly the limit passes, one byte more does not: on the whole text and a
    block at a time, whatever the line breaks (a CR alone is one: old Mac files)."""
    monkeypatch.setenv("IREVAL_MAX_LINE_BYTES", "1000")
    head = (b"q1 Q0 d1 1 2.5 t" + (end or b"\n")) * 40
    for length, ok in ((1000, True), (1001, False)):
        text = head + b"x" * length + (end + head if end else b"")  # b"": the last line
        blocks = [text[i : i + block] for i in range(0, len(text), block)]
        for check in (
            functools.partial(lines.check_line_length, "t.run", text),
            functools.partial(lines._check_stream, "t.run", blocks, 1000),
        ):
            if ok:
                check()
            else:
                with pytest.raises(LineLengthError, match=r"t\.run:41: the line is "):
                    check()


def test_the_docs_page_runs() -> None:
    from tests.docblocks import run_blocks
    from tests.paths import ROOT

    page = ROOT / "docs" / "resources.md"
    [(_, printed, _)] = run_blocks(page)
    assert printed.startswith("INST@10000000 on 25 rankings needs about 2")
    assert "memory budget of 1.0 GiB (IREVAL_MEMORY_LIMIT=1G); lower the depth" in printed
    assert "IREVAL_MEMORY_LIMIT" not in os.environ
    text = page.read_text()
    for name in ("evaluate", "depth_curve", "compare", "pir", "simulate_judging",
                 "simulate_sessions", "depth_qrels", "properties"):  # fmt: skip
        assert f"| `{name}`" in text, name
