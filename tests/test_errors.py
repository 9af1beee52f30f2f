"""Every bad input raises a specific error class whose message names the file, line or value."""

from __future__ import annotations

import gzip
import re
import warnings
from pathlib import Path

import polars as pl
import pytest

import polars_ireval as ir

GOOD_RUN = "q1 Q0 d1 1 2.0 tag\nq1 Q0 d2 2 1.0 tag\n"
GOOD_QRELS = "q1 0 d1 1\nq1 0 d2 0\n"


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.fixture
def run_df() -> pl.DataFrame:
    return pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "score": [2.0, 1.0]})


@pytest.fixture
def qrels_df() -> pl.DataFrame:
    return pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "relevance": [1, 0]})


# --------------------------------------------------------------------------- run files


def test_run_wrong_column_count_names_file_and_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "bad.run", GOOD_RUN + "q1 Q0 d3 3 0.5\n")
    with pytest.raises(ir.FormatError, match=rf"{re.escape(path)}:3: malformed line") as info:
        ir.read_run(path)
    assert info.value.line == 3
    assert info.value.path == path
    assert "six" in str(info.value)


# C's atof, which trec_eval uses, reads a prefix ("12abc" is 12) and hex ("0x10" is 16):
# trec_eval 9.0.4 evaluates these lines; they are errors here (docs/compat.md)
@pytest.mark.parametrize("bad", ["high", "12abc", "0x10", "1.5.2", "--1"])
def test_run_non_numeric_score_names_file_line_and_value(tmp_path: Path, bad: str) -> None:
    path = _write(tmp_path, "bad.run", "# comment\n" + GOOD_RUN + f"q1 Q0 d3 3 {bad} tag\n")
    pattern = rf"{re.escape(path)}:4: score '{re.escape(bad)}'"
    with pytest.raises(ir.FormatError, match=pattern) as info:
        ir.read_run(path)
    assert info.value.line == 4
    assert "'d3'" in str(info.value)


@pytest.mark.parametrize("kind", ["run", "qrels"])
@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("truncated gzip", "the file is not valid gzip"),
        ("binary", "the file holds NUL bytes, so it is not text"),
        ("latin-1", r"the file is not UTF-8 text .*iconv"),
    ],
)
def test_unreadable_file_is_named(tmp_path: Path, kind: str, content: str, message: str) -> None:
    text = GOOD_RUN if kind == "run" else GOOD_QRELS
    path = tmp_path / (f"x.{kind}.gz" if content == "truncated gzip" else f"x.{kind}")
    if content == "truncated gzip":
        whole = gzip.compress((text * 2000).encode())
        path.write_bytes(whole[: len(whole) // 2])
    elif content == "binary":
        path.write_bytes(bytes(range(256)) * 8)
    else:
        path.write_bytes(text.replace("d1", "d\xe9").encode("latin-1"))
    read = ir.read_run if kind == "run" else ir.read_qrels
    with pytest.raises(ir.FormatError, match=rf"^{re.escape(str(path))}: {message}") as info:
        read(str(path))
    assert info.value.line is None


def test_run_overflowing_score_is_not_finite(tmp_path: Path) -> None:
    path = _write(tmp_path, "big.run", GOOD_RUN + "q1 Q0 d3 3 1e400 tag\n")
    with pytest.raises(ir.ScoreError, match=rf"{re.escape(path)}:3: score inf .*not finite"):
        ir.read_run(path)


def test_run_duplicate_document_names_both_lines(tmp_path: Path) -> None:
    path = _write(tmp_path, "dup.run", GOOD_RUN + "q1 Q0 d1 3 0.5 tag\n")
    with pytest.raises(ir.DuplicateError, match=r"doc_id='d1'") as info:
        ir.read_run(path)
    msg = str(info.value)
    assert f"{path}:1" in msg and f"{path}:3" in msg
    assert "2 times" in msg


def test_run_duplicate_in_frame(run_df: pl.DataFrame) -> None:
    dup = pl.concat([run_df, run_df.head(1)])
    with pytest.raises(ir.DuplicateError, match=r"query_id='q1', doc_id='d1'"):
        ir.validate_run(dup)


@pytest.mark.parametrize(
    "queries,rows", [(40, 50), (1, 250_000), (3, 30)], ids=["small blocks", "one big", "mixed"]
)
def test_run_duplicate_found_by_every_screen(queries: int, rows: int) -> None:
    """Contiguous rankings of modest size are screened per ranking, a huge one (or rows
    whose rankings interleave: "mixed") by hashes; each finds the duplicate, exactly."""
    frame = pl.DataFrame(
        {
            "query_id": [f"q{q}" for q in range(queries) for _ in range(rows)],
            "doc_id": [f"d{i}" for _ in range(queries) for i in range(rows)],
            "score": [float(-i) for _ in range(queries) for i in range(rows)],
        }
    )
    if queries == 3:
        frame = frame.sample(fraction=1.0, shuffle=True, seed=1)
    assert ir.validate_run(frame).height == queries * rows
    # the last row takes the doc id d0, which its query already ranks
    last = pl.int_range(pl.len()) == pl.len() - 1
    dup = frame.with_columns(doc_id=pl.when(last).then(pl.lit("d0")).otherwise("doc_id"))
    with pytest.raises(ir.DuplicateError, match=r"doc_id='d0'"):
        ir.validate_run(dup)


def test_same_doc_in_two_runs_is_not_a_duplicate(run_df: pl.DataFrame) -> None:
    two = pl.concat(
        [run_df.with_columns(run_id=pl.lit("a")), run_df.with_columns(run_id=pl.lit("b"))]
    )
    assert ir.validate_run(two).height == 4


@pytest.mark.parametrize("bad", ["nan", "NaN", "inf", "-inf", "Infinity"])
def test_run_non_finite_score_in_file(tmp_path: Path, bad: str) -> None:
    path = _write(tmp_path, "nan.run", GOOD_RUN + f"q1 Q0 d3 3 {bad} tag\n")
    with pytest.raises(ir.ScoreError, match=rf"{re.escape(path)}:3: score .* 'd3'.*not finite"):
        ir.read_run(path)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_run_non_finite_score_in_frame(run_df: pl.DataFrame, bad: float) -> None:
    frame = run_df.with_columns(pl.Series("score", [1.0, bad]))
    with pytest.raises(ir.ScoreError, match=r"document 'd2' \(query 'q1'\) is not finite"):
        ir.validate_run(frame)


def test_run_null_score(run_df: pl.DataFrame) -> None:
    frame = run_df.with_columns(pl.Series("score", [1.0, None]))
    with pytest.raises(ir.ScoreError, match="null score"):
        ir.validate_run(frame)


def test_run_missing_column() -> None:
    frame = pl.DataFrame({"query_id": ["q"], "doc_id": ["d"]})
    with pytest.raises(ir.SchemaError, match=r"lacks column\(s\) \['score'\]"):
        ir.validate_run(frame)


def test_run_string_score_column() -> None:
    frame = pl.DataFrame({"query_id": ["q"], "doc_id": ["d"], "score": ["1.0"]})
    with pytest.raises(ir.SchemaError, match="column 'score' has type String"):
        ir.validate_run(frame)


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n  \n"])
def test_empty_run_file(tmp_path: Path, text: str) -> None:
    path = _write(tmp_path, "empty.run", text)
    with pytest.raises(ir.EmptyInputError, match=re.escape(path)):
        ir.read_run(path)


def test_missing_run_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"nope\.run"):
        ir.read_run(str(tmp_path / "nope.run"))


def test_unreadable_object() -> None:
    with pytest.raises(ir.SchemaError, match="cannot read a run from a int"):
        ir.read_run(42)


# --------------------------------------------------------------------------- qrels files


def test_qrels_wrong_column_count(tmp_path: Path) -> None:
    path = _write(tmp_path, "bad.qrels", GOOD_QRELS + "q1 0 d3 1 extra\n")
    with pytest.raises(ir.FormatError, match=rf"{re.escape(path)}:3: malformed line") as info:
        ir.read_qrels(path)
    assert info.value.line == 3
    assert "four" in str(info.value)


@pytest.mark.parametrize(
    ("grade", "why"),
    [
        ("1.5", "is not an integer"),
        ("high", "is not an integer"),
        ("1e3", "is not an integer"),
        ("99999999999999999999", "is out of the 64-bit range"),
    ],
)
def test_qrels_non_integer_relevance_in_file(tmp_path: Path, grade: str, why: str) -> None:
    path = _write(tmp_path, "bad.qrels", GOOD_QRELS + f"q1 0 d3 {grade}\n")
    pattern = rf"{re.escape(path)}:3: relevance '{re.escape(grade)}' of document 'd3' {why}"
    with pytest.raises(ir.RelevanceError, match=pattern):
        ir.read_qrels(path)


def test_qrels_non_integer_relevance_in_frame(qrels_df: pl.DataFrame) -> None:
    frame = qrels_df.with_columns(pl.Series("relevance", [1.0, 1.5]))
    with pytest.raises(ir.RelevanceError, match=r"relevance 1\.5 is not an integer"):
        ir.validate_qrels(frame)
    # whole floats are accepted and become integers
    ok = ir.validate_qrels(qrels_df.with_columns(pl.Series("relevance", [1.0, 2.0])))
    assert ok["relevance"].to_list() == [1, 2]
    assert ok.schema["relevance"] == pl.Int64


def test_qrels_string_relevance_column(qrels_df: pl.DataFrame) -> None:
    frame = qrels_df.with_columns(pl.col("relevance").cast(pl.String))
    with pytest.raises(ir.RelevanceError, match="column 'relevance' has type String"):
        ir.validate_qrels(frame)


def test_qrels_duplicate_in_file(tmp_path: Path) -> None:
    path = _write(tmp_path, "dup.qrels", GOOD_QRELS + "q1 1 d2 2\n")
    with pytest.raises(ir.DuplicateError, match=r"qrels lists \(query_id='q1', doc_id='d2'\)"):
        ir.read_qrels(path)


def test_qrels_duplicate_in_frame(qrels_df: pl.DataFrame) -> None:
    with pytest.raises(ir.DuplicateError, match="doc_id='d1'"):
        ir.validate_qrels(pl.concat([qrels_df, qrels_df.head(1)]))


@pytest.mark.parametrize("text", ["", "\n", "# nothing\n"])
def test_empty_qrels_file(tmp_path: Path, text: str) -> None:
    path = _write(tmp_path, "empty.qrels", text)
    with pytest.raises(ir.EmptyInputError, match=rf"{re.escape(path)}: the qrels hold no"):
        ir.read_qrels(path)


def test_errors_are_value_errors() -> None:
    for cls in (
        ir.FormatError,
        ir.DuplicateError,
        ir.ScoreError,
        ir.RelevanceError,
        ir.EmptyInputError,
        ir.UnknownMeasureError,
        ir.ParameterError,
        ir.MissingQueryError,
    ):
        assert issubclass(cls, ir.IrevalError)
        assert issubclass(cls, ValueError)


# --------------------------------------------------------------------------- measures


@pytest.mark.parametrize(
    ("text", "suggestion"),
    [("nDGC@10", "nDCG"), ("ndgc", "ndcg"), ("Bperf", "Bpref"), ("recip_rnak", "recip_rank")],
)
def test_unknown_measure_suggests_closest(text: str, suggestion: str) -> None:
    with pytest.raises(ir.UnknownMeasureError, match=rf"'{re.escape(text)}'.*did you mean") as e:
        ir.parse_measure(text)
    assert f"'{suggestion}'" in str(e.value)


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("P@0", r"P: k=0 is invalid"),
        ("nDCG@0", r"nDCG: k=0 is invalid"),
        ("P(rel=1.5)@5", r"P: rel=1\.5 is invalid.*integer"),
        ("IPrec@1.5", r"IPrec: recall=1\.5 is invalid.*\[0, 1\]"),
        ("SetF(beta=-1)", r"SetF: beta=-1 is invalid"),
        ("infAP(p=2)", r"unknown parameter\(s\) \['p'\]"),
        ("ndcg_cut.x", r"'ndcg_cut\.x': cutoff 'x' is not a number"),
        ("P_0", r"'P_0': cutoff '0' must be at least 1"),
        ("iprec_at_recall.y", r"'iprec_at_recall\.y': parameter 'y' is not a number"),
    ],
)
def test_invalid_parameters(text: str, pattern: str) -> None:
    with pytest.raises(ir.ParameterError, match=pattern):
        ir.parse_measure(text)


def test_unknown_measure_through_evaluate(run_df: pl.DataFrame, qrels_df: pl.DataFrame) -> None:
    with pytest.raises(ir.UnknownMeasureError, match="nDCG"):
        ir.evaluate(run_df, qrels_df, "nDGC@10")


def test_no_measure(run_df: pl.DataFrame, qrels_df: pl.DataFrame) -> None:
    with pytest.raises(ir.MeasureSyntaxError, match="no measure given"):
        ir.evaluate(run_df, qrels_df, [])


# --------------------------------------------------------------------------- evaluate options


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"ties": "x"}, r"ties='x': must be one of trec_eval"),
        ({"missing": "x"}, r"missing='x': must be one of skip"),
        ({"max_depth": 0}, r"max_depth=0: must be a positive integer"),
        ({"max_depth": -5}, r"max_depth=-5"),
        ({"max_depth": 2.5}, r"max_depth=2\.5"),
        ({"relevance_level": 1.5}, r"relevance_level=1\.5: must be an integer"),
        ({"relevance_level": True}, r"relevance_level=True"),
    ],
)
def test_bad_evaluate_options(
    run_df: pl.DataFrame, qrels_df: pl.DataFrame, kwargs: dict, pattern: str
) -> None:
    with pytest.raises(ir.ParameterError, match=pattern):
        ir.evaluate(run_df, qrels_df, "P@5", **kwargs)


def test_bad_judge_options(run_df: pl.DataFrame, qrels_df: pl.DataFrame) -> None:
    with pytest.raises(ir.ParameterError, match="ties='nope'"):
        ir.judge(run_df, qrels_df, ties="nope")  # type: ignore[arg-type]


def test_missing_error_raises(run_df: pl.DataFrame, qrels_df: pl.DataFrame) -> None:
    qrels = pl.concat(
        [qrels_df, pl.DataFrame({"query_id": ["q9"], "doc_id": ["x"], "relevance": [1]})]
    )
    with pytest.raises(ir.MissingQueryError, match=r"1 judged .*q9.*missing='zero'"):
        ir.evaluate(run_df, qrels, "P@5", missing="error")
    with pytest.raises(ir.MissingQueryError, match="q9"):
        ir.judge(run_df, qrels, missing="error")
    # no error when every judged query is ranked
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = ir.evaluate(run_df, qrels_df, "P@1", missing="error")
    assert out["value"].to_list() == [1.0]


def test_coverage_warning_unjudged_query(run_df: pl.DataFrame, qrels_df: pl.DataFrame) -> None:
    run = pl.concat([run_df, pl.DataFrame({"query_id": ["q7"], "doc_id": ["x"], "score": [1.0]})])
    with pytest.warns(ir.CoverageWarning, match=r"1 ranked .*no judgment.*queries q7"):
        ir.evaluate(run, qrels_df, "P@1")


def test_coverage_warning_unranked_query(run_df: pl.DataFrame, qrels_df: pl.DataFrame) -> None:
    qrels = pl.concat(
        [qrels_df, pl.DataFrame({"query_id": ["q8"], "doc_id": ["x"], "relevance": [1]})]
    )
    with pytest.warns(ir.CoverageWarning, match=r"1 judged .*no ranking.*queries q8"):
        out = ir.evaluate(run_df, qrels, "P@1")
    assert out["value"].to_list() == [1.0]  # q8 skipped
    # with missing='zero' the query is scored 0 and no warning is given for it
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = ir.evaluate(run_df, qrels, "P@1", missing="zero")
    assert out["value"].to_list() == [0.5]


def test_no_coverage_warning_when_complete(run_df: pl.DataFrame, qrels_df: pl.DataFrame) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ir.evaluate(run_df, qrels_df, "P@1")


# --------------------------------------------------------------------------- measure parameters

#: A measure's own parameters, checked as the evaluation's options are (a negative ``rel``
#: is refused as ``relevance_level=-1`` is; cut-offs as ``max_depth``; gains' grades).
BAD_PARAMETERS = [
    (
        "AP(rel=-1)",
        "ireval_ap",
        {"rel": -1},
        "rel.*-1 is invalid; it must be an integer grade of 0",
    ),
    ("P(rel=-2)@5", "ireval_p", {"k": 5, "rel": -2}, "rel.*-2 is invalid; it must be an integer"),
    ("RBP(rel=-1)", "ireval_rbp", {"rel": -1}, "rel.*-1 is invalid; it must be an integer grade"),
    ("P@0", "ireval_p", {"k": 0}, "k.*0 is invalid; it must be a positive integer"),
    ("nDCG(gains={-1:5})@5", "ireval_ndcg", {"k": 5, "gains": ",-1=5,"}, "gains.*is invalid"),
    (
        "SetF(beta=2,f_beta=3)",
        "ireval_set_f",
        {"beta": 2, "f_beta": 3},
        "give (one of them|beta or f_beta, not both).*beta is trec_eval's set_F weight",
    ),
]


@pytest.mark.parametrize(("measure", "macro", "args", "message"), BAD_PARAMETERS)
def test_measure_parameters_are_checked_on_every_surface(
    measure: str, macro: str, args: dict, message: str, run_df, qrels_df, tmp_path, capsys
) -> None:
    import duckdb

    import polars_ireval.sql as irsql
    from polars_ireval.cli import main
    from polars_ireval.registry import SqlCall
    from polars_ireval.sql.compile import measure_query

    for run, qrels in ((run_df, qrels_df), (run_df.lazy(), qrels_df.lazy())):
        for engine in ("polars", "duckdb"):
            with pytest.raises(ir.ParameterError, match=message):
                ir.evaluate(run, qrels, measure, engine=engine)
    path_run, path_qrels = _write(tmp_path, "r", GOOD_RUN), _write(tmp_path, "q", GOOD_QRELS)
    assert main([path_qrels, path_run, "-m", measure]) == 2
    assert re.search(message, capsys.readouterr().err)
    con = irsql.load(duckdb.connect())
    con.register("run_frame", run_df.to_arrow())
    con.register("qrels_frame", qrels_df.to_arrow())
    con.execute("CREATE TABLE ev AS SELECT * FROM ireval_judge('run_frame', 'qrels_frame')")
    call = ", ".join(f"{k} := {v!r}" for k, v in args.items())
    with pytest.raises(duckdb.Error, match=message):
        con.sql(f"SELECT * FROM {macro}('ev', {call})").fetchall()
    with pytest.raises(ir.ParameterError, match=message):  # rendered for Spark
        measure_query(SqlCall(macro, args), "ev", "spark")
