"""Readers: TREC text quirks, gzip, Parquet/Arrow/pandas/dict, several runs, byte-wise ids."""

from __future__ import annotations

import gzip
import re
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest
from polars.testing import assert_frame_equal

import polars_ireval as ir

RUN_TEXT = "q1 Q0 d1 1 3.5 tagA\nq1 Q0 d2 2 2.25 tagA\nq2 Q0 d#3 1 1 tagA\nq2 Q0 d4 2 -0.5e1 tagA\n"
EXPECTED_RUN = pl.DataFrame(
    {
        "query_id": ["q1", "q1", "q2", "q2"],
        "doc_id": ["d1", "d2", "d#3", "d4"],
        "score": [3.5, 2.25, 1.0, -5.0],
    }
)
QRELS_TEXT = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d#3 2\nq2 0 d4 -1\n"
EXPECTED_QRELS = pl.DataFrame(
    {
        "query_id": ["q1", "q1", "q2", "q2"],
        "doc_id": ["d1", "d2", "d#3", "d4"],
        "relevance": [1, 0, 2, -1],
    }
)


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    if name.endswith(".gz"):
        with gzip.open(path, "wt") as f:
            f.write(text)
    else:
        path.write_text(text)
    return str(path)


def test_plain_run(tmp_path: Path) -> None:
    run = ir.read_run(_write(tmp_path, "a.run", RUN_TEXT))
    assert_frame_equal(run, EXPECTED_RUN)
    assert run.schema == pl.Schema(
        {"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}
    )


def test_mixed_whitespace_comments_and_extra_columns(tmp_path: Path) -> None:
    text = (
        "# header comment\n"
        "   # indented comment\n"
        "q1\tQ0   d1\t \t1     3.5\ttagA\n"
        "\n"
        "  q1 Q0 d2 2 2.25 tagA extra columns here\n"
        "q2 X d#3 1 1 tagA\r\n"
        "\t\n"
        "q2  Q0\t\td4 2 -0.5e1 tagA\t7\n"
    )
    run = ir.read_run(_write(tmp_path, "messy.run", text))
    assert_frame_equal(run, EXPECTED_RUN)


def test_hash_inside_doc_id_kept_hash_first_field_skipped(tmp_path: Path) -> None:
    text = "#q0 Q0 d9 1 9 t\nq1 Q0 #d1 1 2 t\nq1 Q0 d#2 2 1 t\n"
    run = ir.read_run(_write(tmp_path, "h.run", text))
    assert run["doc_id"].to_list() == ["#d1", "d#2"]
    assert run["query_id"].to_list() == ["q1", "q1"]


def test_gzip_run_and_qrels(tmp_path: Path) -> None:
    run = ir.read_run(_write(tmp_path, "a.run.gz", RUN_TEXT))
    qrels = ir.read_qrels(_write(tmp_path, "q.txt.gz", QRELS_TEXT))
    assert_frame_equal(run, EXPECTED_RUN)
    assert_frame_equal(qrels, EXPECTED_QRELS)


def test_qrels_any_iteration_token_and_negative_grades(tmp_path: Path) -> None:
    text = "q1 0 d1 1\nq1 Q0 d2 0\nq2 iter-7 d#3 2\n  q2\t\tx d4  -1  \n"
    qrels = ir.read_qrels(_write(tmp_path, "q.txt", text))
    assert_frame_equal(qrels, EXPECTED_QRELS)
    assert qrels.schema["relevance"] == pl.Int64


def test_scores_parsed_as_exact_float64(tmp_path: Path) -> None:
    tokens = [
        "0.1000000000000000055511151231257827",
        "1e-300",
        "0.30000000000000004",
        "123456789.123456789",
        "4.9e-324",
    ]
    text = "".join(f"q1 Q0 d{i} {i} {t} t\n" for i, t in enumerate(tokens))
    run = ir.read_run(_write(tmp_path, "f.run", text))
    assert run["score"].to_list() == [float(t) + 0.0 for t in tokens]
    assert run["score"][0] == 0.1
    assert run["score"][1] == 1e-300


def test_negative_zero_score_stored_as_zero(tmp_path: Path) -> None:
    run = ir.read_run(_write(tmp_path, "z.run", "q1 Q0 a 1 -0.0 t\nq1 Q0 b 2 0 t\n"))
    assert [str(s) for s in run["score"]] == ["0.0", "0.0"]
    frame = pl.DataFrame({"query_id": "q1", "doc_id": ["a", "b"], "score": [2.5, -0.0]})
    assert [str(s) for s in ir.read_run(frame)["score"]] == ["2.5", "0.0"]
    lazy = pl.LazyFrame({"query_id": ["q1"], "doc_id": ["a"], "score": [-0.0]})
    assert str(ir.judge(lazy, {"q1": {"a": 1}}).collect()["score"][0]) == "0.0"


def test_single_table_file_keeps_its_run_ids(tmp_path: Path) -> None:
    frame = pl.DataFrame(
        {
            "run_id": ["r1", "r2"],
            "query_id": ["q1", "q1"],
            "doc_id": ["a", "a"],
            "score": [1.0, 2.0],
        }
    )
    path = tmp_path / "runs.parquet"
    frame.write_parquet(path)
    assert ir.read_run(path).sort("run_id").equals(frame)


def test_parquet_arrow_pandas_dict_and_text_agree(tmp_path: Path) -> None:
    text_run = ir.read_run(_write(tmp_path, "a.run", RUN_TEXT))
    pq = tmp_path / "a.parquet"
    EXPECTED_RUN.write_parquet(pq)
    ipc = tmp_path / "a.arrow"
    EXPECTED_RUN.write_ipc(ipc)
    as_dict: dict[str, dict[str, float]] = {}
    for q, d, s in EXPECTED_RUN.iter_rows():
        as_dict.setdefault(q, {})[d] = s
    sources = {
        "parquet": str(pq),
        "ipc": str(ipc),
        "arrow_table": EXPECTED_RUN.to_arrow(),
        "pandas": EXPECTED_RUN.to_pandas(),
        "dict": as_dict,
        "polars": EXPECTED_RUN,
        "lazy": EXPECTED_RUN.lazy(),
        "aliases": EXPECTED_RUN.rename({"query_id": "qid", "doc_id": "docno", "score": "sim"}),
    }
    for name, src in sources.items():
        got = ir.read_run(src)
        assert got.schema == text_run.schema, name
        assert_frame_equal(got, text_run)


def test_qrels_formats_agree(tmp_path: Path) -> None:
    text_qrels = ir.read_qrels(_write(tmp_path, "q.txt", QRELS_TEXT))
    pq = tmp_path / "q.parquet"
    EXPECTED_QRELS.write_parquet(pq)
    as_dict: dict[str, dict[str, int]] = {}
    for q, d, r in EXPECTED_QRELS.iter_rows():
        as_dict.setdefault(q, {})[d] = r
    for name, src in {
        "parquet": str(pq),
        "arrow_table": pa.table(EXPECTED_QRELS.to_dict(as_series=False)),
        "pandas": EXPECTED_QRELS.to_pandas(),
        "dict": as_dict,
        "int32": EXPECTED_QRELS.with_columns(pl.col("relevance").cast(pl.Int32)),
    }.items():
        got = ir.read_qrels(src)
        assert got.schema == text_qrels.schema, name
        assert_frame_equal(got, text_qrels)


def test_integer_ids_become_strings() -> None:
    frame = pl.DataFrame({"query_id": [1, 1], "doc_id": [10, 2], "score": [1.0, 2.0]})
    run = ir.read_run(frame)
    assert run["query_id"].to_list() == ["1", "1"]
    assert run["doc_id"].to_list() == ["10", "2"]


@pytest.mark.parametrize("policy", ["Tag", "files", None])
def test_a_misspelt_run_id_policy_is_refused(tmp_path: Path, policy: object) -> None:
    """A policy that is none of the four left the runs without run_id: merged, P@2 1.0."""
    paths = [_write(tmp_path, f"{t}.run", f"1 Q0 {t}1 1 2 {t}\n") for t in ("a", "b")]
    with pytest.raises(ir.ParameterError, match=r"run_id=.*must be one of 'auto', 'tag'"):
        ir.read_run(paths, run_id=policy)  # type: ignore[arg-type]
    with pytest.raises(ir.ParameterError, match=r"run_id=.*must be one of"):
        ir.evaluate_out_of_core(paths, paths[0], ["P@1"], run_id=policy)  # type: ignore[arg-type]


def test_runs_that_would_merge_across_files_are_refused(tmp_path: Path) -> None:
    """Two files of one name in two folders (run_id="file"), and a ranking with rows in two
    Parquet files, or in a text and a Parquet file: read together they formed one ranking."""
    for d in ("x", "y"):
        (tmp_path / d).mkdir()
        _write(tmp_path / d, "bm25.run", f"1 Q0 {d}1 1 2 t\n")
    same = [str(tmp_path / d / "bm25.run") for d in ("x", "y")]
    with pytest.raises(ir.DuplicateError, match=r"would both be run 'bm25'"):
        ir.read_run(same, run_id="file")
    rows = {"run_id": "T", "query_id": "1", "score": 1.0}
    pl.DataFrame({**rows, "doc_id": "a"}).write_parquet(tmp_path / "a.parquet")
    pl.DataFrame({**rows, "doc_id": "b"}).write_parquet(tmp_path / "b.parquet")
    parts = [str(tmp_path / f) for f in ("a.parquet", "b.parquet")]
    with pytest.raises(ir.DuplicateError, match=r"a\.parquet and .*b\.parquet both rank query"):
        ir.read_run(parts)
    text = _write(tmp_path, "c.run", "1 Q0 c 1 2 T\n")
    with pytest.raises(ir.DuplicateError, match=r"both rank query '1' under run tag 'T'"):
        ir.read_run([text, parts[0]])


def test_a_bom_does_not_hide_a_ranking_split_across_files(tmp_path: Path) -> None:
    """The fast reader drops a UTF-8 BOM from the data but compared the first line's key with
    it: a ranking split across files merged silently when the second file began with one."""
    first = _write(tmp_path, "a.run", "1 Q0 a 1 3 T\n")
    second = tmp_path / "b.run"
    second.write_bytes(b"\xef\xbb\xbf1 Q0 b 1 2 T\n")
    with pytest.raises(ir.DuplicateError, match=r"both rank query '1' under run tag 'T'"):
        ir.read_run([first, str(second)])
    # the BOM itself is dropped (trec_eval 9.0.4 keeps it in the first query id)
    assert ir.read_run(str(second))["query_id"].to_list() == ["1"]


def test_several_runs_get_run_id_from_tag(tmp_path: Path) -> None:
    a = _write(tmp_path, "first.run", "q1 Q0 d1 1 2 alpha\nq1 Q0 d2 2 1 alpha\n")
    b = _write(tmp_path, "second.run.gz", "q1 Q0 d1 1 5 beta\n")
    run = ir.read_run([a, b])
    assert run.columns == ["run_id", "query_id", "doc_id", "score"]
    assert run["run_id"].to_list() == ["alpha", "alpha", "beta"]
    # same doc in two runs is not a duplicate
    assert run.filter(pl.col("doc_id") == "d1").height == 2
    by_file = ir.read_run([a, b], run_id="file")
    assert by_file["run_id"].to_list() == ["first", "first", "second"]
    # a directory and a glob give the same as the list
    assert_frame_equal(ir.read_run(str(tmp_path)), run)
    assert_frame_equal(ir.read_run(str(tmp_path / "*.run*")), run)
    # a single file has no run_id unless asked
    assert "run_id" not in ir.read_run(a).columns
    assert ir.read_run(a, run_id="tag")["run_id"].unique().to_list() == ["alpha"]
    assert ir.read_run(a, run_id="file")["run_id"].unique().to_list() == ["first"]
    assert ir.run_tag(a) == "alpha"


def test_several_parquet_runs_get_run_id_from_file_name(tmp_path: Path) -> None:
    EXPECTED_RUN.write_parquet(tmp_path / "x.parquet")
    EXPECTED_RUN.head(2).write_parquet(tmp_path / "y.parquet")
    run = ir.read_run([str(tmp_path / "x.parquet"), str(tmp_path / "y.parquet")])
    assert run["run_id"].to_list() == ["x"] * 4 + ["y"] * 2


def test_several_runs_one_tag_per_line(tmp_path: Path) -> None:
    # trec_eval reads the tag per file; two tags in one file become two runs with "tag"
    path = _write(tmp_path, "m.run", "q1 Q0 d1 1 2 a\nq1 Q0 d1 1 2 b\n")
    run = ir.read_run(path, run_id="tag")
    assert run["run_id"].to_list() == ["a", "b"]
    with pytest.raises(ir.DuplicateError):
        ir.read_run(path)


# Tools write default tags ("Anserini"), so two runs read together may share one: a
# ranking whose lines come from two files is an error naming both files and the fix,
# whether the files repeat documents (a duplicate) or not (the rankings would merge).
# ".gz" goes through the line-by-line reader, the others through the one-scan reader.
@pytest.mark.parametrize("ext", [".run", ".run.gz"])
@pytest.mark.parametrize(
    ("texts", "spanned"),
    [
        (["q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\n", "q1 Q0 d1 1 2 t\nq1 Q0 d3 2 1 t\n"], (0, 1)),
        (["q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\n", "q1 Q0 d7 1 2 t\n"], (0, 1)),
        (["q2 Q0 d1 1 2 t\n", "q1 Q0 d1 1 2 t\n", "q2 Q0 d5 1 2 t\nq1 Q0 d9 1 2 t\n"], (0, 2)),
        (["q1 Q0 d1 1 2 t\n", "q2 Q0 d1 1 2 u\n", "q1 Q0 d2 1 2 t\n"], (0, 2)),
    ],
    ids=["repeated docs", "disjoint docs", "interleaved", "across a file"],
)
def test_one_ranking_in_two_files_is_an_error(
    tmp_path: Path, ext: str, texts: list[str], spanned: tuple[int, int]
) -> None:
    paths = [_write(tmp_path, f"r{i}{ext}", text) for i, text in enumerate(texts)]
    first, second = (paths[i] for i in spanned)
    with pytest.raises(ir.DuplicateError, match=r"run_id='file'") as info:
        ir.read_run(paths)
    assert f"{first} and {second} both rank query" in str(info.value)
    with pytest.raises(ir.DuplicateError, match=r"both rank query"):
        ir.read_run(paths, run_id="tag")
    by_file = ir.read_run(paths, run_id="file")
    assert by_file["run_id"].unique(maintain_order=True).to_list() == [
        f"r{i}" for i in range(len(texts))
    ]


@pytest.mark.parametrize("ext", [".run", ".run.gz"])
def test_one_run_split_by_query_over_files(tmp_path: Path, ext: str) -> None:
    """A run written in parts, each with its own queries, reads as one run."""
    a = _write(tmp_path, f"part1{ext}", "q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\n")
    b = _write(tmp_path, f"part2{ext}", "q2 Q0 d1 1 2 t\n\n")
    run = ir.read_run([a, b])
    assert run.rows() == [("t", "q1", "d1", 2.0), ("t", "q1", "d2", 1.0), ("t", "q2", "d1", 2.0)]


def test_ids_compared_bytewise_in_tie_break(tmp_path: Path) -> None:
    # trec_eval: score descending, then strcmp(docno) descending
    docs = ["D10", "D2", "a", "B", "b", "D1", "Z", "é", "_"]
    text = "".join(f"q1 Q0 {d} {i} 1.0 t\n" for i, d in enumerate(docs))
    text += "q1 Q0 top 99 2.0 t\n"
    run = ir.read_run(_write(tmp_path, "ties.run", text))
    qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]})
    table = ir.judge(run, qrels).filter(pl.col("rank").is_not_null()).sort("rank")
    expected = ["top", *sorted(docs, key=lambda s: s.encode(), reverse=True)]
    assert table["doc_id"].to_list() == expected
    assert expected[1:5] == ["é", "b", "a", "_"]
    # "a" sits at rank 4 -> RR 1/4
    rr = ir.evaluate(run, qrels, "RR")["value"].item()
    assert rr == pytest.approx(1 / 4)
    # doc_id_asc is the reverse order among the ties
    asc = ir.judge(run, qrels, ties="doc_id_asc").filter(pl.col("rank").is_not_null())
    assert asc.sort("rank")["doc_id"].to_list() == ["top", *sorted(docs, key=str.encode)]


def test_query_ids_not_numeric(tmp_path: Path) -> None:
    # "10" and "9" stay strings, "010" is not "10"
    text = "10 Q0 a 1 1 t\n9 Q0 a 1 1 t\n010 Q0 a 1 1 t\n"
    run = ir.read_run(_write(tmp_path, "ids.run", text))
    assert sorted(run["query_id"].to_list()) == ["010", "10", "9"]


@pytest.mark.parametrize("ext", [".parquet", ".arrow"])
def test_several_table_files_with_integer_and_string_ids_read_as_each_alone(
    tmp_path: Path, ext: str
) -> None:
    """Integer ids in one table file and string ids in another raised Polars' raw 'failed to
    vstack column' SchemaError: each file is now read as it is alone (integer ids as their
    decimal text), and an id type that one file alone refuses names that file."""

    def write(name: str, frame: pl.DataFrame) -> str:
        path = str(tmp_path / f"{name}{ext}")
        frame.write_parquet(path) if ext == ".parquet" else frame.write_ipc(path)
        return path

    ints = write("ints", pl.DataFrame({"query_id": [1, 2], "doc_id": [10, 20], "score": [3, 2]}))
    texts = write("texts", pl.DataFrame({"query_id": ["3"], "doc_id": ["d"], "score": [1.5]}))
    run = ir.read_run([ints, texts], run_id="none")
    assert run.rows() == [("1", "10", 3.0), ("2", "20", 2.0), ("3", "d", 1.5)]
    text_run = _write(tmp_path, "t.run", "4 Q0 x 1 2 T\n")
    assert ir.read_run([text_run, ints], run_id="none")["query_id"].to_list() == ["4", "1", "2"]
    qi = write("qi", pl.DataFrame({"query_id": [1], "doc_id": [10], "relevance": [1.0]}))
    qs = write("qs", pl.DataFrame({"query_id": ["2"], "doc_id": ["d"], "relevance": [2]}))
    assert ir.read_qrels([qi, qs]).rows() == [("1", "10", 1), ("2", "d", 2)]
    floats = write("floats", pl.DataFrame({"query_id": [1.5], "doc_id": ["d"], "score": [1.0]}))
    with pytest.raises(ir.SchemaError, match=rf"floats{ext}: column 'query_id' has type Float64"):
        ir.read_run([texts, floats])


@pytest.mark.parametrize("ext", [".parquet", ".arrow"])
def test_an_error_in_one_of_several_table_files_names_it(tmp_path: Path, ext: str) -> None:
    """A duplicate, a NaN score or a missing column in one of several Parquet/Arrow files
    named '2 run files' (a missing column read as 'a null doc_id')."""

    def write(name: str, data: dict) -> str:
        path = str(tmp_path / f"{name}{ext}")
        frame = pl.DataFrame(data)
        frame.write_parquet(path) if ext == ".parquet" else frame.write_ipc(path)
        return path

    good = write("good", {"query_id": ["1"], "doc_id": ["a"], "score": [1.0]})
    dup = write("dup", {"query_id": ["2", "2"], "doc_id": ["a", "a"], "score": [1.0, 2.0]})
    nan = write("nan", {"query_id": ["3"], "doc_id": ["a"], "score": [float("nan")]})
    lacks = write("lacks", {"query_id": ["4"], "score": [1.0]})
    with pytest.raises(ir.DuplicateError, match=rf"2 times \(.*dup{ext}, .*dup{ext}\)"):
        ir.read_run([good, dup])
    with pytest.raises(ir.ScoreError, match=rf"nan{ext}: score nan of document 'a'"):
        ir.read_run([good, nan], run_id="none")
    with pytest.raises(
        ir.SchemaError, match=rf"lacks{ext}: the run lacks column\(s\) \['doc_id'\]"
    ):
        ir.read_run([good, lacks])
    text = _write(tmp_path, "t.qrels", "1 0 a 1\n")
    q1 = write("q1", {"query_id": ["1"], "doc_id": ["a"], "relevance": [1]})
    q2 = write("q2", {"query_id": ["2", "2"], "doc_id": ["b", "b"], "relevance": [1, 0]})
    with pytest.raises(ir.DuplicateError, match=rf"2 times \(.*q2{ext}, .*q2{ext}\)"):
        ir.read_qrels([q1, q2])
    with pytest.raises(ir.DuplicateError, match=rf"2 times \(.*t\.qrels:1, .*q1{ext}\)"):
        ir.read_qrels([text, q1])


@pytest.mark.parametrize("kind", ["run", "qrels"])
@pytest.mark.parametrize("shape", ["single spaces", "runs of spaces", "gzip"])
def test_a_nul_byte_in_an_id_is_refused_by_every_reader(
    tmp_path: Path, kind: str, shape: str
) -> None:
    """The fast reader took 'd\\x00x' as a document id; the general reader refused the whole
    file as 'not text'. Both name the file and the line now."""
    lines = (
        ["1 Q0 d1 1 2 t", "1 Q0 d\x00x 2 1 t"] if kind == "run" else ["1 0 d1 1", "1 0 d\x00x 0"]
    )
    if shape == "runs of spaces":
        lines[0] = lines[0].replace(" ", "  ")
    text = "\n".join(lines) + "\n"
    path = _write(tmp_path, f"x.{kind}{'.gz' if shape == 'gzip' else ''}", text)
    read = ir.read_run if kind == "run" else ir.read_qrels
    with pytest.raises(
        ir.FormatError, match=r"NUL bytes, so it is not text \(the first on line 2;"
    ):
        read(path)
    with pytest.raises(ir.FormatError, match=rf"^{path}: .* on line 2;"):
        read([_write(tmp_path, f"y.{kind}", text.replace("\x00", "")), path])


def test_a_nul_byte_far_into_a_file_is_named(tmp_path: Path) -> None:
    """Beyond the first megabyte, where the check for a binary file did not look."""
    text = "".join(f"1 Q0 d{i} {i} 1 t\n" for i in range(100_000)) + "2 Q0 \x00 1 1 t\n"
    path = _write(tmp_path, "far.run", text)
    with pytest.raises(ir.FormatError, match=rf"^{path}: .*NUL bytes.* on line 100001;"):
        ir.read_run(path)


def test_columns_named_like_the_locators_are_never_read(tmp_path: Path) -> None:
    """A frame's or a Parquet file's own '__line' / '__file' columns were read as where its
    rows come from: a duplicate was reported at 'x.run:5' and 'y.run:6'."""
    frame = pl.DataFrame(
        {"query_id": ["1", "1"], "doc_id": ["a", "a"], "score": [1.0, 2.0],
         "__line": [5, 6], "__file": ["x.run", "y.run"]}
    )  # fmt: skip
    with pytest.raises(ir.DuplicateError, match=r"^<input>: .* 2 times \(<input>, <input>\)"):
        ir.read_run(frame)
    path = str(tmp_path / "run.parquet")
    frame.write_parquet(path)
    with pytest.raises(ir.DuplicateError, match=r"2 times \(.*run\.parquet, .*run\.parquet\)"):
        ir.read_run(path)
    with pytest.raises(ir.DuplicateError, match=r"2 times \(.*run\.parquet, .*run\.parquet\)"):
        ir.read_run([path, _write(tmp_path, "b.run", "2 Q0 b 1 1 T\n")])
    clean = ir.read_run(frame.unique(["query_id", "doc_id"], keep="first", maintain_order=True))
    assert clean.rows() == [("1", "a", 1.0)]
    assert clean.columns == ["query_id", "doc_id", "score"]


@pytest.mark.parametrize("ext", [".run", ".run.gz"])
def test_text_files_read_as_one_run_must_not_share_a_query(tmp_path: Path, ext: str) -> None:
    """run_id="none" on text files read in one scan merged a query ranked in two files into
    one ranking (read file by file, or with Parquet, it was refused)."""
    a = _write(tmp_path, f"a{ext}", "1 Q0 d1 1 2 A\n2 Q0 d1 1 2 A\n")
    b = _write(tmp_path, f"b{ext}", "2 Q0 d2 1 2 B\n")
    c = _write(tmp_path, f"c{ext}", "3 Q0 d2 1 2 B\n4 Q0 d1 1 2 B\n1 Q0 d9 2 1 B\n")
    with pytest.raises(ir.DuplicateError) as info:
        ir.read_run([a, b], run_id="none")
    assert str(info.value).startswith(f"{a} and {b} both rank query '2': read together")
    with pytest.raises(ir.DuplicateError, match=rf"{a} and {c} both rank query '1'"):
        ir.read_run([a, c], run_id="none")  # apart from the boundary between the files
    d = _write(tmp_path, f"d{ext}", "2 Q0 d1 1 2 B\n")  # also a duplicate document
    with pytest.raises(ir.DuplicateError, match=rf"{a} and {d} both rank query '2'"):
        ir.read_run([a, d], run_id="none")
    run = ir.read_run([b, c], run_id="none")
    assert run["query_id"].to_list() == ["2", "3", "4", "1"]


def test_a_score_beyond_float32_names_the_file(tmp_path: Path, capsys) -> None:
    """It named '<input>' and the Python spelling scores='float64', from the CLI too."""
    from polars_ireval.cli import main

    path = _write(tmp_path, "big.run", "1 Q0 d1 1 2 T\n1 Q0 d2 2 1e40 T\n")
    qrels = _write(tmp_path, "q.txt", "1 0 d1 1\n")
    with pytest.raises(
        ir.ScoreError, match=rf"^{path}: score 1e\+40 of document 'd2' \(query '1'\)"
    ):
        ir.read_run(path, scores="float32")
    with pytest.raises(ir.ScoreError, match=rf"^{path}: score 1e\+40"):
        ir.evaluate(ir.read_run(path), qrels, "AP", scores="float32")
    assert main(["trec_eval", "--trec_eval_version", "9.0.4", qrels, path]) == 2
    err = capsys.readouterr().err
    assert f"{path}: score 1e+40 of document 'd2'" in err
    assert "<input>" not in err and "scores='float64'" not in err
    assert main([qrels, path, "-m", "AP", "--scores", "float32"]) == 2
    err = capsys.readouterr().err  # the CLI adds a run_id to the frame read: no file known
    assert "(query '1', run 'big')" in err and "scores='float64'" not in err
    other = _write(tmp_path, "small.run", "1 Q0 d1 1 2 T\n")
    with pytest.raises(ir.ScoreError, match=r"^2 run files: score 1e\+40 .*run 'big'"):
        ir.read_run([other, path], run_id="file", scores="float32")


@pytest.mark.parametrize("value", [[1, 2], 3, "d1"], ids=["list", "int", "str"])
@pytest.mark.parametrize("reader", [ir.read_run, ir.read_qrels])
def test_dict_values_must_be_dicts(value: object, reader: Callable[..., pl.DataFrame]) -> None:
    what = "score" if reader is ir.read_run else "relevance"
    kind = type(value).__name__
    with pytest.raises(
        ir.SchemaError,
        match=rf"^<input>: the dict's value for query 'q1' \({kind}\) is not a dict; give "
        rf"\{{query_id: \{{doc_id: {what}\}}\}}$",
    ):
        reader({"q1": value})


@pytest.mark.parametrize(
    "key", [1.0, True, None, ("1",), 2.5], ids=["float", "bool", "None", "tuple", "2.5"]
)
@pytest.mark.parametrize("level", ["query", "document"])
def test_dict_keys_must_be_strings_or_integers(key: object, level: str) -> None:
    """Keys went through str(): the float 1.0 became query '1.0' while the int 1 became '1'."""
    data = {key: {"d": 1}} if level == "query" else {"q": {key: 1}}
    for read in (ir.read_run, ir.read_qrels):
        with pytest.raises(ir.SchemaError, match=rf"{level} key {re.escape(repr(key))} \("):
            read(data)


def test_dict_string_and_integer_keys_are_read() -> None:
    import numpy as np

    run = ir.read_run({1: {2: 1.5, "x": 1.0}, "q": {np.int64(7): 2.0}})
    assert run.rows() == [("1", "2", 1.5), ("1", "x", 1.0), ("q", "7", 2.0)]
    assert ir.read_qrels({"1": {"d": 2}}).rows() == [("1", "d", 2)]


def test_read_fields_passes_a_whole_file_error_through(tmp_path: Path) -> None:
    """It cut the message of an error without a line ('...: ile holds NUL bytes') and added
    the expected fields to it."""
    from polars_ireval.io.readers import read_fields

    path = tmp_path / "bin.txt"
    path.write_bytes(bytes(range(256)) * 8)
    with pytest.raises(ir.FormatError, match=r": the file holds NUL bytes, so it is not text") as e:
        read_fields(str(path), ["a", "b"], "a b")
    assert e.value.line is None and str(e.value).startswith(f"{path}: the file")
    assert "expected 2" not in str(e.value)


def test_ranks_keeps_the_trec_rank_field_for_ties_rank(tmp_path: Path) -> None:
    """``read_run(..., ranks=True)`` keeps the fourth field as ``input_rank``: a and b tie
    on score; the file ranks a first, trec_eval's tie order (doc id descending) b."""
    run = _write(tmp_path, "r.run", "1 Q0 b 2 1.0 t\n1 Q0 a 1 1.0 t\n1 Q0 c 3 0.5 t\n")
    qrels = ir.read_qrels(_write(tmp_path, "q.txt", "1 0 a 1\n1 0 b 0\n"))
    plain = ir.read_run(run)
    assert plain.columns == ["query_id", "doc_id", "score"]
    ranked = ir.read_run(run, ranks=True)
    assert ranked["input_rank"].to_list() == [2, 1, 3] and ranked["input_rank"].dtype == pl.Int64
    by_file = ir.evaluate(ranked, qrels, "P@1", ties="rank")["value"].item()
    by_trec_eval = ir.evaluate(ranked, qrels, "P@1")["value"].item()
    assert (by_file, by_trec_eval) == (1.0, 0.0)
    # the general reader (tabs beside spaces) and several files read in one scan alike
    mixed = _write(tmp_path, "m.run", "2\tQ0 d 1 1.0 u\n")
    both = ir.read_run([run, mixed], ranks=True)
    assert both.select("run_id", "input_rank").rows() == [("t", 2), ("t", 1), ("t", 3), ("u", 1)]
    other = _write(tmp_path, "o.run", "2 Q0 d 7 1.0 u\n")
    assert ir.read_run([run, other], ranks=True)["input_rank"].to_list() == [2, 1, 3, 7]


@pytest.mark.parametrize("text", ["1 Q0 a x 1.0 t\n", "1 Q0 a 1.5 1.0 t\n", "1\tQ0 a x 1.0 t\n"])
def test_ranks_refuses_a_rank_that_is_not_an_integer(tmp_path: Path, text: str) -> None:
    path = _write(tmp_path, "r.run", "1 Q0 b 2 1.0 t\n" + text)
    with pytest.raises(
        ir.FormatError, match=r"r\.run:2: rank '.*' of document 'a' is not an integer"
    ):
        ir.read_run(path, ranks=True)
    assert ir.read_run(path).height == 2  # without ranks=True, the field is not read
    with pytest.raises(ir.ParameterError, match="ranks='yes': must be True or False"):
        ir.read_run(path, ranks="yes")  # type: ignore[arg-type]
