"""``ir.fetch``: a public dataset downloaded once, checked against the package's manifest,
cached; served here from localhost (``tests/datasets.py``), never from the internet.

Then what can go wrong: a file that is not the file (one byte changed, truncated), a
source that does not answer, an unknown dataset or run; and what must not happen: a
second download, a half-written file left behind.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest

import polars_ireval as ir
from polars_ireval.io import datasets
from tests.datasets import mirror, serving
from tests.paths import DATA, need_data

RUNS = ["smith.bm25", "BERT", "run1"]


@pytest.fixture
def source(tmp_path: Path) -> Path:
    return mirror("trec-covid-r1", tmp_path / "mirror", RUNS)


def test_the_manifest_lists_the_campaign() -> None:
    manifest = datasets._manifest("trec-covid-r1")
    paths = [f["path"] for f in manifest["files"]]
    assert paths[:2] == ["qrels-rnd1.txt", "leaderboard.csv"]
    assert sum(p.startswith("runs/") for p in paths) == 143
    assert all(re.fullmatch(r"[0-9a-f]{64}", f["sha256"]) for f in manifest["files"])
    assert manifest["source"].startswith("https://")
    assert ir.datasets() == ["trec-covid-r1"]


def test_fetch_downloads_checks_and_caches(source: Path, tmp_path: Path, capsys) -> None:
    cache = tmp_path / "cache"
    with serving(source) as server:
        folder = ir.fetch("trec-covid-r1", runs=RUNS, cache=cache, base_url=server.url,
                          progress=True)  # fmt: skip
        first = list(server.requests)
        again = ir.fetch("trec-covid-r1", runs=RUNS, cache=cache, base_url=server.url)
        assert server.requests == first  # nothing fetched twice
    assert folder == again == cache / "trec-covid-r1"
    assert sorted(first) == sorted(
        ["/qrels/qrels-rnd1.txt", "/leaderboard.csv", *(f"/runs/{r}" for r in RUNS)]
    )
    assert "fetching trec-covid-r1" in capsys.readouterr().err  # the progress bar
    # the files read as the copy in ../shared reads (runs gzipped, as the readers take them)
    shared = DATA / "trec-covid-r1"
    for run in RUNS:
        got = ir.read_run(folder / "runs" / f"{run}.gz")
        assert got.equals(ir.read_run(shared / "runs" / f"{run}.gz")), run
    assert ir.read_qrels(folder / "qrels-rnd1.txt").equals(ir.read_qrels(shared / "qrels-rnd1.txt"))
    assert pl.read_csv(folder / "leaderboard.csv").height == 143
    checked = json.loads((folder / datasets.CHECKED).read_text())
    assert set(checked) == {"qrels-rnd1.txt", "leaderboard.csv", *(f"runs/{r}.gz" for r in RUNS)}


def test_a_file_that_is_not_the_file_is_refused_and_not_kept(source: Path, tmp_path: Path) -> None:
    bad = source / "runs" / "BERT"
    data = bytearray(bad.read_bytes())
    data[100] ^= 1  # one bit
    bad.write_bytes(bytes(data))
    cache = tmp_path / "cache"
    with serving(source) as server, pytest.raises(ir.FetchError) as e:
        ir.fetch("trec-covid-r1", runs=["BERT"], cache=cache, base_url=server.url)
    message = str(e.value)
    assert "/runs/BERT: got" in message and "SHA-256" in message and "manifest says" in message
    assert "base_url=" in message
    folder = cache / "trec-covid-r1"
    assert not (folder / "runs" / "BERT.gz").exists()
    assert not list((folder / "runs").glob(".fetch-*"))  # no half-written file left
    bad.write_bytes(bytes(data[:-10]))  # truncated: the size says it
    with serving(source) as server, pytest.raises(ir.FetchError, match=r"got [\d,]+ bytes"):
        ir.fetch("trec-covid-r1", runs=["BERT"], cache=cache, base_url=server.url)


def test_a_source_that_does_not_answer(tmp_path: Path) -> None:
    with pytest.raises(ir.FetchError, match=r"http://127\.0\.0\.1:9/qrels/qrels-rnd1\.txt: cannot "
                       r"download .*copy the files into"):  # fmt: skip
        ir.fetch("trec-covid-r1", runs=[], cache=tmp_path, base_url="http://127.0.0.1:9")
    missing = tmp_path / "empty-mirror"
    missing.mkdir()
    with serving(missing) as server, pytest.raises(ir.FetchError, match="404"):
        ir.fetch("trec-covid-r1", runs=[], cache=tmp_path / "c", base_url=server.url)


def test_environment_variables_choose_the_cache_and_the_mirror(
    source: Path, tmp_path: Path, monkeypatch
) -> None:
    with serving(source) as server:
        monkeypatch.setenv("IREVAL_DATA", str(tmp_path / "env-cache"))
        monkeypatch.setenv("IREVAL_DATASETS_URL", server.url)
        folder = ir.fetch("trec-covid-r1", runs=["run1"], progress=False)
    assert folder == tmp_path / "env-cache" / "trec-covid-r1"
    assert (folder / "runs" / "run1.gz").is_file()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "msmarco"}, "dataset 'msmarco' is unknown; ir.fetch knows ['trec-covid-r1']"),
        ({"name": "../trec-covid-r1"}, "is unknown"),
        ({"name": "trec-covid-r1", "runs": ["nope"]}, "runs=['nope']: not runs of"),
        ({"name": "trec-covid-r1", "progress": "yes"}, "progress='yes'"),
    ],
)
def test_bad_arguments(kwargs: dict, message: str, tmp_path: Path) -> None:
    need_data()
    with pytest.raises(ir.ParameterError, match=re.escape(message)):
        ir.fetch(**{"cache": tmp_path, "base_url": "http://127.0.0.1:9", **kwargs})
