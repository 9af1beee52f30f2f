"""evaluate_out_of_core: a run evaluated a chunk of queries at a time gives the in-memory
evaluation's values (per query and aggregated), from Parquet and from TREC text."""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_ireval as ir
from polars_ireval import outofcore
from polars_ireval.errors import ParameterError
from polars_ireval.outofcore import _cut, _text_ranges

MEASURES = ["nDCG@10", "AP", "P@5", "R@20", "RR", "num_ret", "gm_map"]
QUERIES, DEPTH = 40, 25


def make_run(rng: np.random.Generator, runs: int) -> pl.DataFrame:
    """``runs`` runs of QUERIES queries x DEPTH documents, scores rounded (ties), each
    ranking's rows together, scores not increasing, the queries in a shuffled order."""
    frames = []
    for r in range(runs):
        for q in rng.permutation(QUERIES):
            depth = int(rng.integers(5, DEPTH + 1))
            docs = rng.choice(60, size=depth, replace=False)
            scores = np.sort(np.round(rng.uniform(0, 3, size=depth), 1))[::-1]
            frames.append(
                pl.DataFrame(
                    {
                        "run_id": f"run{r}",
                        "query_id": f"q{q:02d}",
                        "doc_id": [f"d{d}" for d in docs],
                        "score": scores,
                    }
                )
            )
    return pl.concat(frames)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One run (text, Parquet), two runs in one Parquet file, a text run whose rankings
    are interleaved, and qrels judging queries 3-44 (some not ranked, some ranked queries
    not judged, one judged query without relevant document)."""
    rng = np.random.default_rng(23)
    tmp = tmp_path_factory.mktemp("outofcore")
    two = make_run(rng, 2)
    one = two.filter(pl.col("run_id") == "run0").drop("run_id")
    qrels = pl.DataFrame(
        [
            (f"q{q:02d}", f"d{d}", int(rng.choice([0, 0, 1, 2, 3])) if q != 7 else 0)
            for q in range(3, QUERIES + 5)
            for d in rng.choice(60, size=20, replace=False)
        ],
        schema=["query_id", "doc_id", "relevance"],
        orient="row",
    )
    out = {
        "one.parquet": one,
        "two.parquet": two,
    }
    for name, frame in out.items():
        frame.write_parquet(tmp / name)
    text = one.with_columns(
        pl.lit("Q0").alias("q0"),
        (pl.int_range(pl.len()).over("query_id") + 1).alias("rank"),
        pl.lit("tag").alias("tag"),
    ).select("query_id", "q0", "doc_id", "rank", "score", "tag")
    text.write_csv(tmp / "one.trec", separator=" ", include_header=False, quote_style="never")
    mixed = text.with_row_index("i").sort(pl.col("i") % 7, "i").drop("i")  # rankings apart
    mixed.write_csv(tmp / "mixed.trec", separator=" ", include_header=False, quote_style="never")
    qrels.write_parquet(tmp / "qrels.parquet")
    return {name: tmp / name for name in ["one.parquet", "two.parquet", "one.trec", "mixed.trec",
                                          "qrels.parquet"]}  # fmt: skip


def in_memory(run: Path, qrels: Path, **options: object) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ir.CoverageWarning)
        return ir.evaluate(ir.read_run(str(run)), ir.read_qrels(str(qrels)), MEASURES, **options)


def chunked(run: Path, qrels: Path, **options: object) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ir.CoverageWarning)
        return ir.evaluate_out_of_core(str(run), str(qrels), MEASURES, **options)


@pytest.mark.parametrize("run", ["one.parquet", "two.parquet", "one.trec", "mixed.trec"])
@pytest.mark.parametrize("chunks", [4])
@pytest.mark.parametrize("per_query", [False, True])
def test_equals_in_memory(files: dict[str, Path], run: str, chunks: int, per_query: bool) -> None:
    want = in_memory(files[run], files["qrels.parquet"], per_query=per_query)
    got = chunked(files[run], files["qrels.parquet"], chunks=chunks, per_query=per_query)
    assert_frame_equal(got, want, check_exact=False, abs_tol=1e-12, rel_tol=0)


@pytest.mark.parametrize("run", ["one.parquet", "one.trec"])
def test_options_equal_in_memory(files: dict[str, Path], run: str) -> None:
    """missing="zero" (judged queries no chunk ranks go to the last chunk), no_relevant,
    max_depth and residuals give what they give in memory."""
    for options in (
        {"missing": "zero"},
        {"no_relevant": "skip", "per_query": True},
        {"no_relevant": "nan"},
        {"max_depth": 4, "residuals": True},
    ):
        want = in_memory(files[run], files["qrels.parquet"], **options)
        got = chunked(files[run], files["qrels.parquet"], chunks=5, **options)
        assert_frame_equal(got, want, check_exact=False, abs_tol=1e-12, rel_tol=0)


def test_rankings_apart_go_through_parquet(
    files: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A text file whose rankings' lines are apart is split only after a Parquet copy."""
    copies = []
    original = outofcore._text_to_parquet
    monkeypatch.setattr(outofcore, "_text_to_parquet", lambda *a: copies.append(a) or original(*a))
    chunked(files["one.trec"], files["qrels.parquet"], chunks=3)
    assert copies == []
    chunked(files["mixed.trec"], files["qrels.parquet"], chunks=3)
    assert len(copies) == 1


def test_aggregate_is_the_mean_in_query_order(files: dict[str, Path]) -> None:
    """The aggregate across chunks is trec_eval's: the per-query values of every chunk added
    one after the other in query-id order, divided by their number (oracle in Python)."""
    per_q = chunked(files["two.parquet"], files["qrels.parquet"], chunks=4, per_query=True)
    means = chunked(files["two.parquet"], files["qrels.parquet"], chunks=4)
    for (run_id, measure), rows in per_q.sort("query_id").group_by(
        ["run_id", "measure"], maintain_order=True
    ):
        values = rows["value"].to_list()
        total = 0.0
        for v in values:
            total += v
        got = means.filter((pl.col("run_id") == run_id) & (pl.col("measure") == measure))
        if measure == "num_ret":
            assert got["value"].item() == total
        elif measure != "gm_map":
            assert got["value"].item() == total / len(values)


def test_text_cut_between_queries(files: dict[str, Path]) -> None:
    """The byte ranges cover the file, and each starts a query's first line."""
    path = files["one.trec"]
    data = path.read_bytes()
    ranges = _text_ranges(str(path), len(data), 6)
    assert len(ranges) == 6
    assert ranges[0][0] == 0 and ranges[-1][1] == len(data)
    for (_, stop), (start, _) in itertools.pairwise(ranges):
        assert stop == start
        before = data[:start].splitlines()[-1].split()[0]
        after = data[start:].split(b" ", 1)[0]
        assert before != after


def test_cut_balances_rows() -> None:
    assert _cut([3, 3, 3, 3, 3, 3], 3, 1) == [(0, 2), (2, 4), (4, 6)]
    assert _cut([10, 1, 1], None, 5) == [(0, 1), (1, 2), (2, 3)]  # ceil(12 / 5) parts
    assert _cut([1, 1], 5, 1) == [(0, 1), (1, 2)]


def test_bad_options(files: dict[str, Path]) -> None:
    with pytest.raises(ParameterError, match="chunks=0"):
        chunked(files["one.parquet"], files["qrels.parquet"], chunks=0)
    with pytest.raises(ParameterError, match="mixed"):
        ir.evaluate_out_of_core(
            [str(files["one.parquet"]), str(files["one.trec"])], str(files["qrels.parquet"]), "AP"
        )


def test_cli_chunks(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """``ireval QRELS RUN --chunks N`` prints what ``ireval QRELS RUN`` prints."""
    from polars_ireval.cli import main

    command = [str(files["qrels.parquet"]), str(files["one.trec"]), str(files["two.parquet"])]
    command += ["-m", "nDCG@10 AP RR", "--format", "tsv", "--quiet"]
    assert main(command) == 0
    whole = capsys.readouterr().out
    assert main([*command, "--chunks", "3"]) == 0
    assert capsys.readouterr().out == whole
    assert whole.count("\n") == 4  # header, one, run0, run1


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_cli_chunks_refuse_other_engines(
    files: dict[str, Path], engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """--chunks evaluates with the Polars engine: another engine is refused, named, before
    any reading (no Spark session is started)."""
    from polars_ireval.cli import main

    command = [str(files["qrels.parquet"]), str(files["one.trec"]), "-m", "AP"]
    assert main([*command, "--chunks", "2", "--engine", engine]) == 2
    assert f"--chunks evaluates with the Polars engine; drop --engine {engine}" in (
        capsys.readouterr().err
    )


def test_docs_blocks_run_and_print_what_they_show() -> None:
    from tests.docblocks import normalise, run_blocks
    from tests.paths import ROOT

    results = run_blocks(ROOT / "docs" / "outofcore.md")
    assert len(results) == 2
    for code, printed, expected in results:
        assert expected is not None, f"block without its output:\n{code}"
        assert normalise(printed) == normalise(expected), f"block:\n{code}"


@pytest.mark.parametrize("shape", ["gzip", "tabs"])
def test_other_text_is_read_whole(files: dict[str, Path], tmp_path: Path, shape: str) -> None:
    """Text the fast reader does not take (gzip, tabs) is read as read_run reads it."""
    import gzip

    text = files["one.trec"].read_bytes()
    if shape == "gzip":
        path = tmp_path / "run.trec.gz"
        path.write_bytes(gzip.compress(text))
    else:
        path = tmp_path / "run.trec"
        path.write_bytes(text.replace(b" ", b"\t"))
    want = in_memory(path, files["qrels.parquet"])
    assert_frame_equal(chunked(path, files["qrels.parquet"], chunks=3), want)


def test_ranking_split_between_files_is_refused(files: dict[str, Path], tmp_path: Path) -> None:
    """Two text files with one tag that both rank a query: the error read_run gives."""
    lines = files["one.trec"].read_bytes().splitlines(keepends=True)
    (tmp_path / "a.trec").write_bytes(b"".join(lines[:10]))
    (tmp_path / "b.trec").write_bytes(b"".join(lines[10:]))  # the first ranking continues
    paths = [str(tmp_path / "a.trec"), str(tmp_path / "b.trec")]
    with pytest.raises(ir.DuplicateError, match="both rank query"):
        ir.read_run(paths)
    with pytest.raises(ir.DuplicateError, match="both rank query"):
        ir.evaluate_out_of_core(paths, str(files["qrels.parquet"]), "AP", chunks=2)


def test_coverage_is_reported_and_unjudged_chunks_are_evaluated(tmp_path: Path) -> None:
    """Judged queries the run lacks are reported as in memory (out of core said nothing),
    and a chunk of queries no judgment names is evaluated (it raised 'the qrels hold no
    judgment'): a run over more topics than the qrels judge, and judged topics it lacks."""
    lines = [f"{q} Q0 d{d} {d + 1} {10 - d} t" for q in range(1, 7) for d in range(5)]
    run = tmp_path / "run.txt"
    run.write_text("\n".join(lines) + "\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 d1 1\n" for q in (1, 2, 3, 7, 8)))
    with warnings.catch_warnings(record=True) as memory:
        warnings.simplefilter("always", ir.CoverageWarning)
        want = ir.evaluate(ir.read_run(str(run)), ir.read_qrels(str(qrels)), ["AP"])
    for chunks in (1, 3):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always", ir.CoverageWarning)
            got = ir.evaluate_out_of_core(str(run), str(qrels), ["AP"], chunks=chunks)
        assert got.equals(want)
        messages = [str(w.message) for w in seen]
        assert any("judged (run, query) pair(s) have no ranking" in m for m in messages)
        assert any("e.g. queries 7, 8" in m for m in messages)
        assert sorted(messages) == sorted(str(w.message) for w in memory)


def test_an_error_after_the_parquet_copy_names_the_users_file(tmp_path: Path) -> None:
    """A duplicate in a ranking whose lines are apart (read through a temporary Parquet
    copy) was reported in '/tmp/ireval-.../run.parquet'."""
    run = tmp_path / "apart.run"
    run.write_text("1 Q0 d1 1 3 t\n2 Q0 d1 1 3 t\n1 Q0 d1 2 2 t\n")
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 d1 1\n2 0 d1 1\n")
    with pytest.raises(ir.DuplicateError) as info:
        ir.evaluate_out_of_core(str(run), str(qrels), ["AP"], chunks=2)
    assert str(info.value).startswith(f"{run}: the run lists (query_id='1', doc_id='d1') 2 times")
    assert "ireval-" not in str(info.value)
    other = tmp_path / "other.run"
    other.write_text("3 Q0 d1 1 3 t\n")
    with pytest.raises(ir.DuplicateError, match=r"^2 run files: .*\(run_id='apart', query_id='1'"):
        ir.evaluate_out_of_core([str(other), str(run)], str(qrels), ["AP"], chunks=3,
                                run_id="file")  # fmt: skip


def test_a_nul_byte_is_refused_out_of_core(tmp_path: Path) -> None:
    """The chunk reader took 'd\\x00x' as a document id, as read_run's fast reader did."""
    run = tmp_path / "nul.run"
    run.write_bytes(b"1 Q0 d1 1 3 t\n2 Q0 d\x00x 1 3 t\n")
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 d1 1\n")
    with pytest.raises(ir.FormatError, match=rf"^{run}: .*NUL bytes.* on line 2;"):
        ir.evaluate_out_of_core(str(run), str(qrels), ["AP"], chunks=2)


def test_files_read_as_one_run_must_not_share_a_query_out_of_core(tmp_path: Path) -> None:
    """run_id="none": a query ranked in two files was merged into one ranking (through the
    Parquet copy), as read_run did in one scan."""
    a, b = tmp_path / "a.run", tmp_path / "b.run"
    a.write_text("1 Q0 d1 1 3 A\n2 Q0 d1 1 3 A\n")
    b.write_text("1 Q0 d2 1 3 B\n")
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 d1 1\n")
    with pytest.raises(ir.DuplicateError, match=rf"{a} and {b} both rank query '1'"):
        ir.evaluate_out_of_core([str(a), str(b)], str(qrels), ["AP"], chunks=2, run_id="none")


def test_several_table_files_are_read_as_read_run_reads_them(tmp_path: Path) -> None:
    """Out of core, several Parquet files were concatenated with relaxed types: float query
    ids became '1.5' (read_run refuses them), errors named '2 run files', and one query in
    two files read as one run was one ranking (read_run refuses it)."""
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 a 1\n3 0 a 1\n")

    def write(name: str, data: dict) -> str:
        pl.DataFrame(data).write_parquet(tmp_path / name)
        return str(tmp_path / name)

    def both(paths: list[str], **options: object) -> list[pl.DataFrame]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ir.CoverageWarning)
            return [
                ir.evaluate_out_of_core(paths, str(qrels), ["num_ret"], chunks=2, **options),
                ir.evaluate(ir.read_run(paths, **options), str(qrels), ["num_ret"]),
            ]

    ints = write("ints.parquet", {"query_id": [1, 2], "doc_id": ["a", "b"], "score": [1, 2]})
    texts = write("texts.parquet", {"query_id": ["3"], "doc_id": ["a"], "score": [1.0]})
    got, want = both([ints, texts])
    assert_frame_equal(got, want)
    floats = write("floats.parquet", {"query_id": [1.5], "doc_id": ["a"], "score": [1.0]})
    nan = write("nan.parquet", {"query_id": ["4"], "doc_id": ["a"], "score": [float("nan")]})
    again = write("again.parquet", {"query_id": ["3"], "doc_id": ["b"], "score": [2.0]})
    for paths, options, error, pattern in [
        ([texts, floats], {}, ir.SchemaError, r"floats\.parquet: column 'query_id' has type"),
        ([texts, nan], {}, ir.ScoreError, r"nan\.parquet: score nan of document 'a'"),
        ([texts, again], {"run_id": "none"}, ir.DuplicateError, r"again\.parquet both rank"),
    ]:
        with pytest.raises(error, match=pattern):
            ir.evaluate_out_of_core(paths, str(qrels), ["num_ret"], chunks=2, **options)
        with pytest.raises(error, match=pattern):
            ir.read_run(paths, **options)


def test_columns_named_like_the_locators_are_never_read_out_of_core(tmp_path: Path) -> None:
    """A Parquet file's own '__line' column was read as line numbers: 'x:5'."""
    path = tmp_path / "run.parquet"
    pl.DataFrame(
        {"query_id": ["1", "1"], "doc_id": ["a", "a"], "score": [1.0, 2.0],
         "__line": [5, 6], "__file": ["x", "y"]}
    ).write_parquet(path)  # fmt: skip
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 a 1\n")
    with pytest.raises(ir.DuplicateError, match=rf"2 times \({path}, {path}\)"):
        ir.evaluate_out_of_core(str(path), str(qrels), ["AP"], chunks=1)
