"""Bad input through every surface: the same error, or the same documented policy.

Each case is one input class (a run or qrels frame, or a text file where only text can
show it) and each surface one way in: the Python API on DataFrames (``eager``) and on
LazyFrames (``lazy``), the DuckDB engine (``duckdb``), the modern command line (``cli``)
and ``ireval trec_eval`` (``trec_eval``), both on the inputs written as Parquet (frame
cases) or text (text cases), and the SQL macros run by hand in DuckDB (``sql``). A case
either raises the same exception class with a message matching its pattern on every
surface that can express it, or (a policy case) gives on every surface what the clean
input gives there. No surface may return a number for input another surface rejects.
"""

from __future__ import annotations

import gzip
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import hypothesis.strategies as st
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings

import polars_ireval as ir
import polars_ireval.sql as irsql
from polars_ireval.cli import main
from tests.strategies import corrupted, small_run_and_qrels

MEASURES = ["nDCG@10", "AP", "P@2"]
TREC_MEASURES = ["-m", "ndcg_cut.10", "-m", "map", "-m", "P.2"]

RUN = pl.DataFrame(
    {
        "query_id": ["q1", "q1", "q1", "q2", "q2"],
        "doc_id": ["d1", "d2", "d3", "d4", "d5"],
        "score": [3.0, 2.0, 1.0, 2.0, 1.0],
    }
)
QRELS = pl.DataFrame(
    {
        "query_id": ["q1", "q1", "q2", "q2"],
        "doc_id": ["d1", "d3", "d5", "d6"],
        "relevance": [1, 2, 1, 0],
    }
)
RUN_TEXT = "".join(
    f"{q} Q0 {d} {i} {s} tag\n"
    for i, (q, d, s) in enumerate(RUN.select("query_id", "doc_id", "score").rows(), 1)
)
QRELS_TEXT = "".join(f"{q} 0 {d} {r}\n" for q, d, r in QRELS.rows())


def _set(frame: pl.DataFrame, column: str, values: list[Any], dtype: Any = None) -> pl.DataFrame:
    return frame.with_columns(pl.Series(column, values, dtype=dtype))


@dataclass
class Case:
    """One input class. ``run`` / ``qrels``: frames, or text (str) or bytes for files.
    ``error``: (exception class, pattern); None for a policy case (same as clean input).
    ``surfaces``: where the input can be expressed."""

    name: str
    run: Any = field(default_factory=lambda: RUN)
    qrels: Any = field(default_factory=lambda: QRELS)
    error: tuple[type[Exception], str] | None = None
    surfaces: tuple[str, ...] = ("eager", "lazy", "duckdb", "cli", "trec_eval", "sql")
    options: dict[str, Any] = field(default_factory=dict)


FRAME_SURFACES = ("eager", "lazy", "duckdb", "cli", "trec_eval", "sql")
TEXT_SURFACES = ("eager", "duckdb", "cli", "trec_eval")
_NOT_FINITE = (ir.ScoreError, r"score (nan|inf) of document 'd2' \(query 'q1'\) is not finite")

CASES = [
    # -- frames (written as Parquet for the command line)
    Case("duplicate document", run=pl.concat([RUN, RUN.head(1)]),
         error=(ir.DuplicateError, r"lists \(query_id='q1', doc_id='d1'\) 2 times")),
    Case("NaN score", run=_set(RUN, "score", [3.0, float("nan"), 1.0, 2.0, 1.0]),
         error=_NOT_FINITE),
    Case("infinite score", run=_set(RUN, "score", [3.0, float("inf"), 1.0, 2.0, 1.0]),
         error=_NOT_FINITE),
    Case("null score", run=_set(RUN, "score", [3.0, None, 1.0, 2.0, 1.0]),
         error=(ir.ScoreError, r"null score")),
    Case("string score", run=RUN.with_columns(pl.col("score").cast(pl.String)),
         error=(ir.SchemaError, r"column 'score' has type String; scores must be numbers")),
    Case("float query ids", run=RUN.with_columns(pl.lit(1.5).alias("query_id")),
         error=(ir.SchemaError, r"column 'query_id' has type Float64")),
    Case("null doc id", run=_set(RUN, "doc_id", ["d1", None, "d3", "d4", "d5"]),
         error=(ir.SchemaError, r"null doc_id")),
    Case("empty run", run=RUN.clear(), error=(ir.EmptyInputError, r"the run holds no ranking")),
    Case("empty qrels", qrels=QRELS.clear(),
         error=(ir.EmptyInputError, r"the qrels hold no judgment")),
    Case("duplicate judgment", qrels=pl.concat([QRELS, QRELS.tail(1)]),
         error=(ir.DuplicateError, r"qrels lists \(query_id='q2', doc_id='d6'\) 2 times")),
    Case("grade 1.7", qrels=_set(QRELS, "relevance", [1.0, 1.7, 1.0, 0.0]),
         error=(ir.RelevanceError, r"relevance 1\.7 is not an integer \(document 'd3'")),
    Case("grade NaN", qrels=_set(QRELS, "relevance", [1.0, float("nan"), 1.0, 0.0]),
         error=(ir.RelevanceError, r"relevance nan is not an integer")),
    Case("grade infinite", qrels=_set(QRELS, "relevance", [1.0, float("-inf"), 1.0, 0.0]),
         error=(ir.RelevanceError, r"relevance -inf is not an integer")),
    Case("grade 1e30", qrels=_set(QRELS, "relevance", [1.0, 1e30, 1.0, 0.0]),
         error=(ir.RelevanceError, r"relevance 1e\+30 is out of the 64-bit range")),
    Case("grade above int64", qrels=_set(QRELS, "relevance", [1, 2**63 + 5, 1, 0], pl.UInt64),
         error=(ir.RelevanceError, r"9223372036854775813 is out of the 64-bit range")),
    Case("null grade", qrels=_set(QRELS, "relevance", [1, None, 1, 0]),
         error=(ir.RelevanceError, r"null relevance")),
    # policies: columns of the user's own never stand for the library's
    Case("float grades that are whole", qrels=_set(QRELS, "relevance", [1.0, 2.0, 1.0, 0.0])),
    Case("relevance column on the run", run=RUN.with_columns(pl.lit(5).alias("relevance"))),
    Case("rank column on the run", run=RUN.with_columns(pl.Series("rank", [1, 2, 3, 1, 2]))),
    Case("internal column names on the run",
         run=RUN.with_columns(*[pl.lit(7).alias(c) for c in
                                ("__block", "__ranking", "__new", "__key", "__pos", "__line")])),
    Case("internal column names on the qrels",
         qrels=QRELS.with_columns(*[pl.lit(0).alias(c) for c in ("__qrow", "score", "rank")])),
    # -- text files
    Case("malformed line", run=RUN_TEXT + "q2 Q0 d9 3\n", surfaces=TEXT_SURFACES,
         error=(ir.FormatError, r":6: malformed line 'q2 Q0 d9 3'")),
    Case("score that is not a number", run=RUN_TEXT.replace("1.0 tag", "1.0x tag", 1),
         surfaces=TEXT_SURFACES, error=(ir.FormatError, r":3: score '1\.0x'")),
    Case("a 1 MB malformed line", run=RUN_TEXT + "x" * 1_000_000 + "\n",
         surfaces=TEXT_SURFACES, error=(ir.FormatError, r"\(1,000,000 characters\)")),
    Case("a 10 MB line", run=RUN_TEXT + "x" * 10_000_000 + "\n", surfaces=TEXT_SURFACES,
         error=(ir.FormatError, r":6: the line is 10,000,000 bytes long, more than the "
                r"1,048,576 a line may have.*IREVAL_MAX_LINE_BYTES=")),
    Case("old Mac line ends (CR)", run=RUN_TEXT.replace("\n", "\r"),
         qrels=QRELS_TEXT.replace("\n", "\r"), surfaces=TEXT_SURFACES),
    Case("Windows line ends (CRLF)", run=RUN_TEXT.replace("\n", "\r\n"), surfaces=TEXT_SURFACES),
    Case("comment lines", run="# a comment\n" + RUN_TEXT, qrels="#q1 0 d2 1\n" + QRELS_TEXT,
         surfaces=TEXT_SURFACES),
    Case("text grade 2.0", qrels=QRELS_TEXT.replace("d3 2", "d3 2.0"), surfaces=TEXT_SURFACES),
    Case("text grade 1.7", qrels=QRELS_TEXT.replace("d3 2", "d3 1.7"), surfaces=TEXT_SURFACES,
         error=(ir.RelevanceError, r":2: relevance '1\.7' of document 'd3' is not an integer")),
    Case("corrupt gzip", run=gzip.compress(RUN_TEXT.encode())[:-12], surfaces=TEXT_SURFACES,
         error=(ir.FormatError, r"not valid gzip")),
    Case("not UTF-8", run=RUN_TEXT.encode().replace(b"d2", b"d\xff"), surfaces=TEXT_SURFACES,
         error=(ir.FormatError, r"not UTF-8 text")),
    # -- options
    Case("ties with a case typo", options={"ties": "Trec_Eval"},
         surfaces=("eager", "lazy", "duckdb"),
         error=(ir.ParameterError, r"ties='Trec_Eval': must be one of")),
    Case("max_depth -1", options={"max_depth": -1}, surfaces=("eager", "lazy", "duckdb"),
         error=(ir.ParameterError, r"max_depth=-1: must be a positive integer")),
    Case("max_depth True", options={"max_depth": True}, surfaces=("eager", "lazy", "duckdb"),
         error=(ir.ParameterError, r"max_depth=True: must be a positive integer")),
    Case("judged_only 'no'", options={"judged_only": "no"}, surfaces=("eager", "lazy", "duckdb"),
         error=(ir.ParameterError, r"judged_only='no': must be True or False")),
    Case("ties='rank' without ranks", options={"ties": "rank"},
         surfaces=("eager", "lazy", "duckdb"), error=(ir.ParameterError, r"ties='rank'.*'rank'")),
    Case("ties='rank' with a rank column", options={"ties": "rank"},
         run=RUN.with_columns(pl.Series("rank", [1, 2, 3, 1, 2])),
         surfaces=("eager", "lazy", "duckdb")),
]  # fmt: skip


def _write(tmp_path: Path, name: str, content: Any, suffix: str) -> str:
    if isinstance(content, pl.DataFrame):
        path = tmp_path / f"{name}.parquet"
        content.write_parquet(path)
    else:
        is_gzip = isinstance(content, bytes) and content[:2] == b"\x1f\x8b"
        path = tmp_path / f"{name}{suffix}{'.gz' if is_gzip else ''}"
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return str(path)


def _api(run: Any, qrels: Any, options: dict[str, Any], surface: str) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ir.CoverageWarning)
        if surface == "lazy":
            out = ir.evaluate(run.lazy(), qrels.lazy(), MEASURES, per_query=True, **options)
            assert isinstance(out, pl.LazyFrame)  # the checks run when it is collected
            return out.collect()
        engine = "duckdb" if surface == "duckdb" else "polars"
        return ir.evaluate(run, qrels, MEASURES, per_query=True, engine=engine, **options)


def _cli(args: list[str], capsys) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _sql(run: pl.DataFrame, qrels: pl.DataFrame) -> tuple[Any, Any]:
    """``ireval_check``'s problem rows (or its error) and what ``ireval_ap`` gives on the
    evaluation table ``ireval_judge`` builds (or the error), run by hand in DuckDB."""
    con = irsql.load(duckdb.connect(), ["ireval_check", "ireval_judge", "ireval_ap"])
    con.register("run_in", run.to_arrow())
    con.register("qrels_in", qrels.to_arrow())
    out: list[Any] = []
    for query in (
        "SELECT * FROM ireval_check('run_in', 'qrels_in')",
        "CREATE TABLE ev AS SELECT * FROM ireval_judge('run_in', 'qrels_in');"
        "SELECT query_id, value FROM ireval_ap('ev') ORDER BY 1",
    ):
        try:
            out.append(con.sql(query).fetchall())
        except duckdb.Error as exc:
            out.append(exc)
    return out[0], out[1]


def _outcome(case: Case, surface: str, tmp_path: Path, capsys) -> Any:
    """What ``surface`` gives for the case's input: a value to compare, or the exception
    (for the command line: an exception rebuilt from its one line of stderr)."""
    run, qrels = case.run, case.qrels
    if surface in ("eager", "lazy", "duckdb"):
        if not isinstance(run, pl.DataFrame):
            run = _write(tmp_path, "run", run, ".run")
        if not isinstance(qrels, pl.DataFrame):
            qrels = _write(tmp_path, "qrels", qrels, ".qrels")
        try:
            return _api(run, qrels, case.options, surface).sort("query_id", "measure")
        except ir.IrevalError as exc:
            return exc
    if surface == "sql":
        return _sql(run, qrels)
    run_path = _write(tmp_path, "run", run, ".run")
    qrels_path = _write(tmp_path, "qrels", qrels, ".qrels")
    if surface == "cli":
        args = [qrels_path, run_path, "-q", "--format", "tsv", "-m", " ".join(MEASURES)]
    else:
        args = ["trec_eval", "-q", *TREC_MEASURES, qrels_path, run_path]
    code, out, err = _cli(args, capsys)
    if code:
        assert out == "", f"{surface}: output on stdout beside an error"
        return RuntimeError(err)
    return out.replace(run_path, "RUN")


def _same_error(outcome: Any, error: tuple[type[Exception], str], surface: str) -> None:
    cls, pattern = error
    if surface in ("cli", "trec_eval"):
        assert isinstance(outcome, RuntimeError), f"{surface} gave a result: {outcome!r}"
        line = str(outcome)
        assert line.startswith("ireval: error: ") and line.count("\n") == 1, line
        assert re.search(pattern, line), line
        return
    assert isinstance(outcome, cls), f"{surface}: expected {cls.__name__}, got {outcome!r}"
    assert re.search(pattern, str(outcome)), str(outcome)


@pytest.mark.parametrize(
    ("case", "surface"),
    [pytest.param(c, s, id=f"{c.name}-{s}") for c in CASES for s in c.surfaces],
)
def test_each_surface(case: Case, surface: str, tmp_path: Path, capsys) -> None:
    outcome = _outcome(case, surface, tmp_path, capsys)
    clean = Case("clean", surfaces=case.surfaces)
    if surface == "sql":
        problems, values = outcome
        if case.error is not None:
            # the documented policy: ireval_check names the problem (or the judge refuses
            # the input, or gives no row); the macros never score it
            refused = isinstance(problems, Exception) or problems
            assert refused or isinstance(values, Exception) or values == [], values
        else:
            assert problems == [], problems
            assert values == _outcome(clean, surface, tmp_path, capsys)[1]
        return
    if case.error is not None:
        _same_error(outcome, case.error, surface)
        return
    expected = _outcome(clean, surface, tmp_path, capsys)
    if isinstance(outcome, pl.DataFrame):
        assert outcome.equals(expected), (outcome, expected)
    else:
        assert outcome == expected


def test_ties_rank_reads_a_rank_column() -> None:
    """A run's ``rank`` column is its own ranks: ``ties="rank"`` orders ties by it."""
    run = pl.DataFrame(
        {"query_id": "q", "doc_id": ["a", "b", "c"], "score": 1.0, "rank": [3, 1, 2]}
    )
    qrels = pl.DataFrame({"query_id": "q", "doc_id": ["b"], "relevance": [1]})
    for frame in (run, run.lazy()):
        got = ir.evaluate(frame, qrels, ["RR"], ties="rank")
        got = got.collect() if isinstance(got, pl.LazyFrame) else got
        assert got["value"].to_list() == [1.0]
    assert ir.evaluate(run, qrels, ["RR"])["value"].to_list() == [0.5]  # trec_eval: c, b, a


MUTATIONS: list[tuple[str, Callable[[pl.DataFrame], None], tuple[type[Exception], str]]] = [
    ("extend", lambda f: f.extend(f), (ir.DuplicateError, r"2 times")),
    ("NaN score", lambda f: f.__setitem__((0, "score"), float("nan")),
     (ir.ScoreError, r"score nan of document 'd1'")),
    ("doc id", lambda f: f.__setitem__((1, "doc_id"), "d1"), (ir.DuplicateError, r"'d1'")),
    ("insert a column", lambda f: f.insert_column(0, pl.Series("run_id", ["r"] * f.height)),
     None),
]  # fmt: skip


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m[0])
def test_frames_changed_after_a_first_evaluation_are_checked_again(
    mutation: tuple[str, Callable[[pl.DataFrame], None], Any], engine: str
) -> None:
    _, change, error = mutation
    run = ir.read_run(RUN)  # checked once, then changed in place
    before = ir.evaluate(run, QRELS, MEASURES, per_query=True, engine=engine)
    change(run)
    if error is None:  # still sound: the same numbers, with the new column's run id
        after = ir.evaluate(run, QRELS, MEASURES, per_query=True, engine=engine)
        assert after.drop("run_id").equals(before)
        return
    with pytest.raises(error[0], match=error[1]):
        ir.evaluate(run, QRELS, MEASURES, engine=engine)


def test_validate_false_skips_the_checks_of_lazy_input() -> None:
    """The documented opt-out: a LazyFrame evaluated with validate=False is not checked
    (a duplicate then counts twice), and an eager frame is checked regardless."""
    dup = pl.concat([RUN, RUN.head(1)])
    out = ir.evaluate(dup.lazy(), QRELS, ["num_ret"], validate=False).collect()
    assert out["value"].to_list() == [6.0]
    with pytest.raises(ir.DuplicateError):
        ir.evaluate(dup, QRELS, ["num_ret"], validate=False)
    with pytest.raises(ir.ParameterError, match="validate='no'"):
        ir.evaluate(RUN, QRELS, ["num_ret"], validate="no")


# -- properties: eager and lazy agree on every input, sound or not


#: A small run and qrels, then zero to two corruptions of either (strategies.CORRUPTIONS).
corrupted_runs = corrupted(small_run_and_qrels())


def _evaluated(run: Any, qrels: Any, **options: Any) -> Any:
    try:
        return _api(run, qrels, options, "lazy" if isinstance(run, pl.LazyFrame) else "eager")
    except ir.IrevalError as exc:
        return (type(exc), str(exc))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corrupted_runs, st.sampled_from(["skip", "zero"]))
def test_eager_and_lazy_give_the_same_errors_and_values(data: tuple, missing: str) -> None:
    run, qrels = data
    eager = _evaluated(run, qrels, missing=missing)
    lazy = _evaluated(run.lazy(), qrels, missing=missing)
    if isinstance(eager, pl.DataFrame):
        assert isinstance(lazy, pl.DataFrame), lazy
        assert eager.sort("query_id", "measure").equals(lazy.sort("query_id", "measure"))
    else:
        assert eager == lazy


IN_PLACE: list[Callable[[pl.DataFrame, Any], None]] = [
    lambda f, v: f.extend(f.head(1)),
    lambda f, v: f.extend(f.head(1).with_columns(pl.lit("d-new").alias("doc_id"))),
    lambda f, v: f.__setitem__((0, "score"), v),
    lambda f, v: f.__setitem__((f.height - 1, "doc_id"), f[0, "doc_id"]),
    lambda f, v: f.replace_column(f.get_column_index("score"), f["score"].cast(pl.String)),
    lambda f, v: f.insert_column(0, pl.Series("run_id", ["r"] * f.height)),
]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    corrupted_runs,
    st.lists(st.sampled_from(range(len(IN_PLACE))), min_size=1, max_size=3),
    st.sampled_from([float("nan"), float("inf"), None, 0.25, 7.0]),
)
def test_a_frame_changed_in_place_is_judged_as_a_fresh_copy(
    data: tuple, changes: list[int], value: Any
) -> None:
    """Evaluate a checked frame, change it in place, evaluate again: the outcome (values or
    error) is that of the changed rows given as a new frame."""
    run, qrels = data
    try:
        checked = ir.read_run(run)
    except ir.IrevalError:
        return  # nothing checked to change
    _evaluated(checked, qrels)
    for i in changes:
        if "run_id" in checked.columns and i == len(IN_PLACE) - 1:
            continue
        IN_PLACE[i](checked, value)
    fresh = pl.DataFrame(checked.to_dict(as_series=True))
    assert str(_evaluated(checked, qrels)) == str(_evaluated(fresh, qrels))


def test_trec_eval_mode_reads_stdin_as_bytes(tmp_path: Path) -> None:
    """Non-UTF-8 bytes on stdin are the reader's one-line error naming ``<stdin>`` (they were
    a UnicodeEncodeError traceback); a sound run on stdin prints what the file prints."""
    import subprocess
    import sys

    qrels = _write(tmp_path, "qrels", QRELS_TEXT, ".qrels")
    cmd = [sys.executable, "-m", "polars_ireval.cli", "trec_eval", "-m", "map", qrels, "-"]
    bad = subprocess.run(cmd, input=RUN_TEXT.encode().replace(b"d2", b"d\xff"),
                         capture_output=True, timeout=120)  # fmt: skip
    assert bad.returncode == 2 and bad.stdout == b""
    assert bad.stderr.decode().startswith("ireval: error: <stdin>: the file is not UTF-8 text")
    good = subprocess.run(cmd, input=RUN_TEXT.encode(), capture_output=True, timeout=120)
    from_file = subprocess.run(
        [*cmd[:-1], _write(tmp_path, "run", RUN_TEXT, ".run")], capture_output=True, timeout=120
    )
    assert good.returncode == 0 and good.stdout == from_file.stdout


def test_a_checked_frame_is_known_as_checked_until_changed() -> None:
    """The readers' frames are not checked again (the cache holds), even when a column was
    one repeated value (``pl.lit``), whose Arrow export Polars rebuilds each time."""
    from polars_ireval.io.readers import is_validated

    qrels = ir.read_qrels(QRELS.with_columns(pl.lit(1).alias("relevance")))
    run = ir.read_run(RUN.with_columns(pl.lit(1.0).alias("score")))
    assert is_validated(qrels) and is_validated(run)
    ir.evaluate(run, qrels, MEASURES)
    assert is_validated(qrels) and is_validated(run)
    run[0, "score"] = 2.0
    assert not is_validated(run)
