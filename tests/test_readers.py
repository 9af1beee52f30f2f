"""Readers: TREC text quirks, gzip, Parquet/Arrow/pandas/dict, several runs, byte-wise ids."""

from __future__ import annotations

import gzip
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
