"""Modern ``ireval``: several runs (files, globs, directories, gzip, Parquet), output formats,
``--engine``, progress and the summary of skipped queries on stderr.

The values are checked against :func:`polars_ireval.evaluate` on the same files (the library
itself is checked against the reference tools in test_golden / test_differential); these
tests check what the command line adds: finding the runs, naming them, laying out rows.
"""

from __future__ import annotations

import gzip
import io
import json
import shutil
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_ireval as ir
from polars_ireval.cli import Progress, main

EXAMPLE = Path(ir.example_path())
MEASURES = "nDCG@10 AP P@10 RR"


def _run(args: list[str], capsys) -> tuple[str, str]:
    code = main(args)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out, captured.err


def _reference(per_query: bool = False) -> pl.DataFrame:
    runs = [
        ir.read_run(EXAMPLE / "runs" / f"{n}.run").with_columns(run_id=pl.lit(n))
        for n in ("bm25", "dense", "random")
    ]
    long = ir.evaluate(
        pl.concat(runs), ir.read_qrels(EXAMPLE / "qrels.txt"), MEASURES, per_query=per_query
    )
    index = ["run_id", "query_id"] if per_query else ["run_id"]
    return long.pivot(on="measure", index=index, values="value").sort(index)


def _same(got: pl.DataFrame, expected: pl.DataFrame) -> None:
    """Equal up to 1e-12: means summed in another order may differ in the last bits."""
    assert_frame_equal(got, expected, check_exact=False, rel_tol=1e-12, abs_tol=1e-12)


@pytest.mark.parametrize("fmt", ["tsv", "csv"])
def test_text_formats_one_row_per_run(fmt: str, capsys) -> None:
    out, _ = _run(["--example", "-m", MEASURES, "--format", fmt], capsys)
    got = pl.read_csv(io.StringIO(out), separator="\t" if fmt == "tsv" else ",")
    assert got.columns == ["run_id", *MEASURES.split()]
    _same(got, _reference())  # full precision: round-trip float text


def test_jsonl_per_query(capsys) -> None:
    out, _ = _run(["--example", "-m", MEASURES, "-q", "--format", "jsonl"], capsys)
    rows = [json.loads(line) for line in out.splitlines()]
    got = pl.DataFrame(rows, schema_overrides={"query_id": pl.String}).sort("run_id", "query_id")
    assert got.height == 75
    _same(got, _reference(per_query=True))


def test_parquet_output_file(tmp_path: Path, capsys) -> None:
    target = tmp_path / "scores.parquet"
    out, _ = _run(["--example", "-m", MEASURES, "-o", str(target)], capsys)
    assert out == ""
    _same(pl.read_parquet(target), _reference())


def test_table_format_is_aligned(capsys) -> None:
    out, _ = _run(["--example", "-m", "P@10 NumRet", "--format", "table"], capsys)
    lines = out.splitlines()
    ref = _reference()
    assert lines[0].split() == ["run_id", "P@10", "NumRet"]
    assert len({len(line) for line in lines}) == 1  # right-aligned numbers: equal widths
    for line, (run_id, p10) in zip(
        lines[1:], ref.select("run_id", "P@10").iter_rows(), strict=True
    ):
        assert line.split() == [run_id, f"{p10:.4f}", "2500"]  # 25 queries x 100 documents


def test_globs_directories_gzip_and_parquet_inputs(tmp_path: Path, capsys) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(EXAMPLE / "runs" / "bm25.run", runs / "bm25.run")
    with gzip.open(runs / "dense.run.gz", "wt") as f:
        f.write((EXAMPLE / "runs" / "dense.run").read_text())
    ir.read_run(EXAMPLE / "runs" / "random.run").write_parquet(tmp_path / "random.parquet")
    qrels = str(EXAMPLE / "qrels.txt")
    by_dir, _ = _run([qrels, str(runs), str(tmp_path / "*.parquet"), "-m", MEASURES], capsys)
    by_glob, _ = _run(
        [qrels, str(runs / "*"), str(tmp_path / "random.parquet"), "-m", MEASURES], capsys
    )
    _same(pl.read_csv(io.StringIO(by_dir), separator="\t"), _reference())
    _same(pl.read_csv(io.StringIO(by_glob), separator="\t"), _reference())


def test_several_text_runs_read_together_keep_their_file_names(tmp_path: Path, capsys) -> None:
    """Text runs are read in one scan (``read_run(paths, run_id="file")``), named by file as
    one by one; a file the fast reader declines (tabs) or two files of one name still work
    as before (the latter is an error naming both)."""
    from polars_ireval.cli import read_runs

    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(EXAMPLE / "runs" / "bm25.run", runs / "bm25.run")
    with gzip.open(runs / "dense.run.gz", "wt") as f:
        f.write((EXAMPLE / "runs" / "dense.run").read_text())
    tabbed = (EXAMPLE / "runs" / "random.run").read_text().replace(" ", "\t")
    (runs / "random.txt").write_text(tabbed)
    paths = sorted(str(p) for p in runs.iterdir())
    together = read_runs(paths)
    one_by_one = pl.concat(
        [
            ir.read_run(p).with_columns(run_id=pl.lit(n)).select(together.columns)
            for p, n in zip(paths, ["bm25", "dense", "random"], strict=True)
        ]
    )
    assert_frame_equal(together, one_by_one)
    out, _ = _run([str(EXAMPLE / "qrels.txt"), str(runs), "-m", MEASURES], capsys)
    _same(pl.read_csv(io.StringIO(out), separator="\t"), _reference())
    shutil.copy(runs / "bm25.run", runs / "bm25.trec")
    assert main([str(EXAMPLE / "qrels.txt"), str(runs)]) != 0
    assert "two runs are named 'bm25'" in capsys.readouterr().err


@pytest.mark.parametrize("options", [[], ["-c", "-M", "5", "-J"], ["-l", "2", "-M", "50"]])
def test_duckdb_engine_equals_polars(capsys, options: list[str]) -> None:
    measures = "P@10 AP nDCG@10 RR infAP Rprec"
    polars_out, _ = _run(["--example", "-m", measures, *options, "--engine", "polars"], capsys)
    duck_out, _ = _run(["--example", "-m", measures, *options, "--engine", "duckdb"], capsys)
    a = pl.read_csv(io.StringIO(polars_out), separator="\t")
    b = pl.read_csv(io.StringIO(duck_out), separator="\t")
    assert a.columns == b.columns
    for col in measures.split():
        assert (a[col] - b[col]).abs().max() < 1e-12, col


def _campaign(tmp_path: Path) -> tuple[str, str, str]:
    """Two runs: a ranks queries 1, 2, 3 (3 never judged); b ranks 1 only; 4 is judged by
    nobody's run."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n2 0 d2 1\n4 0 d4 1\n")
    a = tmp_path / "a.run"
    a.write_text("1 Q0 d1 1 3 a\n2 Q0 d9 1 3 a\n3 Q0 d3 1 3 a\n")
    b = tmp_path / "b.run"
    b.write_text("1 Q0 d1 1 3 b\n")
    return str(qrels), str(a), str(b)


def test_summary_of_skipped_queries_on_stderr(tmp_path: Path, capsys) -> None:
    qrels, a, b = _campaign(tmp_path)
    out, err = _run([qrels, a, b, "-m", "P@1"], capsys)
    lines = err.splitlines()
    assert lines == [
        "ireval: note: run a: 2 queries evaluated; 1 judged queries not in the run, skipped "
        "(use -c to score them 0): 4; 1 ranked queries without judgments, not evaluated: 3",
        "ireval: note: run b: 1 queries evaluated; 2 judged queries not in the run, skipped "
        "(use -c to score them 0): 2, 4",
    ]
    # P@1: a is right on 1, wrong on 2 -> 0.5; b right on 1 -> 1.0
    assert out.splitlines()[1:] == ["a\t0.5", "b\t1.0"]
    out, err = _run([qrels, a, b, "-m", "P@1", "-c"], capsys)
    assert "scored 0 (-c): 4" in err
    assert out.splitlines()[1:] == ["a\t0.3333333333333333", "b\t0.3333333333333333"]
    _, err = _run([qrels, a, b, "-m", "P@1", "--quiet"], capsys)
    assert err == ""


def test_progress_lines_on_stderr() -> None:
    stream = io.StringIO()
    progress = Progress("always", stream)
    progress.update("reading runs", "a.run", done=1, total=2)
    progress.done()
    assert "\rireval: reading runs:  50%|" in stream.getvalue()
    assert "1/2 [" in stream.getvalue() and "a.run]" in stream.getvalue()
    assert stream.getvalue().endswith("\r")  # the bar is cleared at the end
    quiet = io.StringIO()
    progress = Progress("auto", quiet)  # not a terminal: nothing
    progress.update("reading run 1/2", "a.run")
    progress.done()
    assert quiet.getvalue() == ""


def test_write_example_is_byte_identical(tmp_path: Path, capsys) -> None:
    assert main(["--write-example", str(tmp_path)]) == 0
    capsys.readouterr()
    for name in ("qrels.txt", "runs/bm25.run", "runs/dense.run", "runs/random.run"):
        assert (tmp_path / name).read_bytes() == (EXAMPLE / name).read_bytes(), name


def _batch_campaign(tmp_path: Path) -> list[str]:
    """Run files whose file order is not their run order (zz.parquet holds run 'a_first'),
    in both readers' shapes, and a run that lacks some judged queries."""
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(EXAMPLE / "runs" / "bm25.run", runs / "bm25.run")
    dense = (EXAMPLE / "runs" / "dense.run").read_text().splitlines(keepends=True)
    (runs / "dense.run").write_text("".join(dense[: len(dense) // 2]))
    shutil.copy(EXAMPLE / "runs" / "random.run", runs / "random.run")
    first = ir.read_run(EXAMPLE / "runs" / "random.run").with_columns(run_id=pl.lit("a_first"))
    first.write_parquet(runs / "zz.parquet")
    return [str(EXAMPLE / "qrels.txt"), str(runs)]


@pytest.mark.parametrize(
    "options", [[], ["-q"], ["-q", "-c", "-M", "5", "-l", "2"], ["--engine", "duckdb", "-q"]]
)
@pytest.mark.parametrize("batch", ["1", "3"])
def test_batches_give_the_output_of_one_evaluation(
    tmp_path: Path, capsys, options: list[str], batch: str
) -> None:
    """--batch N reads and evaluates N run files at a time: the same bytes on stdout (rows
    ordered by run, then query) and the same summary on stderr as all files at once. (With
    DuckDB, the same values to 1e-12: its window sums, AP's, add in an order that depends
    on the table's layout.)"""
    args = [*_batch_campaign(tmp_path), "-m", MEASURES, *options]
    whole = _run(args, capsys)
    batched = _run([*args, "--batch", batch], capsys)
    if "duckdb" in options:
        assert batched[1] == whole[1]
        read = [pl.read_csv(io.StringIO(out), separator="\t") for out, _ in (batched, whole)]
        _same(*read)
    else:
        assert batched == whole
    out, err = whole
    assert out.splitlines()[1].split("\t")[0] == "a_first"  # sorted by run, not by file
    assert "run dense: " in err and "judged queries not in the run" in err


def test_batches_share_run_names(tmp_path: Path, capsys) -> None:
    """Two files of one run name are an error also when they fall in different batches."""
    qrels, runs = _batch_campaign(tmp_path)
    shutil.copy(Path(runs) / "bm25.run", Path(runs) / "random.trec")  # run name 'random'
    assert main([qrels, runs, "--batch", "2"]) == 2
    err = capsys.readouterr().err
    assert "two runs are named 'random'" in err and "random.run" in err and "random.trec" in err
    assert main([qrels, runs, "--batch", "0"]) == 2
    assert "--batch 0: the number of run files must be at least 1" in capsys.readouterr().err
