"""Public test collections fetched on demand: :func:`fetch` downloads a dataset's files
from their public source into a cache folder, checks each against the size and SHA-256
its manifest records, and returns the folder.

A manifest (``polars_ireval/data/datasets/NAME.json``) lists the files: their path at the
source, the path they get in the cache (runs are stored gzipped, as the readers read
them), their size and checksum. A file already in the cache and recorded as checked is
not fetched again. Nothing is fetched at import or by any other function.

The cache folder is ``cache=``, else ``$IREVAL_DATA``, else
``~/.cache/polars_ireval/datasets``; the source is ``base_url=``, else
``$IREVAL_DATASETS_URL`` (a mirror: the same relative paths), else the manifest's.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polars_ireval._base.progress import ProgressOption, bar
from polars_ireval.errors import FetchError, ParameterError

MANIFESTS = Path(__file__).resolve().parents[1] / "data" / "datasets"
#: The record, in a dataset's cache folder, of the files checked against the manifest.
CHECKED = ".checked.json"
CHUNK = 1 << 20


@dataclass(frozen=True)
class Entry:
    """One file of a manifest."""

    source: str
    path: str
    size: int
    sha256: str


def datasets() -> list[str]:
    """The names :func:`fetch` knows.

    Examples
    --------
    >>> import polars_ireval as ir
    >>> ir.datasets()
    ['trec-covid-r1']
    """
    return sorted(p.stem for p in MANIFESTS.glob("*.json"))


def _manifest(name: str) -> dict[str, Any]:
    if name not in datasets():  # a name, never a path
        raise ParameterError(f"dataset {name!r} is unknown; ir.fetch knows {datasets()}")
    return dict(json.loads((MANIFESTS / f"{name}.json").read_text(encoding="utf-8")))


def _entries(manifest: dict[str, Any], runs: Sequence[str] | None) -> list[Entry]:
    entries = [
        Entry(f["source"], f["path"], int(f["bytes"]), f["sha256"]) for f in manifest["files"]
    ]
    if runs is None:
        return entries
    if isinstance(runs, str):
        runs = [runs]
    known = {Path(e.source).name: e for e in entries if e.source.startswith("runs/")}
    unknown = [r for r in runs if r not in known]
    if unknown:
        raise ParameterError(
            f"runs={unknown!r}: not runs of {manifest['name']!r}; its runs are "
            f"{sorted(known)[:5]}... ({len(known)} in all)"
        )
    return [e for e in entries if not e.source.startswith("runs/")] + [known[r] for r in runs]


def _cache(name: str, cache: str | os.PathLike[str] | None) -> Path:
    root = cache or os.environ.get("IREVAL_DATA")
    base = Path(root) if root else Path.home() / ".cache" / "polars_ireval" / "datasets"
    return base / name


def _checked(folder: Path) -> dict[str, str]:
    try:
        return dict(json.loads((folder / CHECKED).read_text(encoding="utf-8")))
    except (FileNotFoundError, ValueError):
        return {}


def fetch(
    name: str,
    *,
    runs: str | Sequence[str] | None = None,
    cache: str | os.PathLike[str] | None = None,
    base_url: str | None = None,
    progress: ProgressOption = "auto",
) -> Path:
    """Download a public test collection (once) and return its folder.

    ``ir.fetch("trec-covid-r1")``: TREC-COVID round 1, the campaign of the tutorials: its
    143 runs (``runs/NAME.gz``), the official qrels (``qrels-rnd1.txt``) and leaderboard
    (``leaderboard.csv``), 3.5 million run lines: 155 MB downloaded, 54 MB kept (gzipped).
    Every file is checked against the size and SHA-256 of the package's manifest before
    it is kept; a file already in the cache and checked is not fetched again.

    Parameters
    ----------
    name
        The dataset (:func:`datasets` lists them).
    runs
        Fetch only these runs (their names; one name is one run), with the qrels and the
        leaderboard; default: every run.
    cache
        The folder to keep datasets in (the dataset gets a folder of its own there).
        Default: ``$IREVAL_DATA``, else ``~/.cache/polars_ireval/datasets``.
    base_url
        Where to download from: a mirror holding the source's relative paths. Default:
        ``$IREVAL_DATASETS_URL``, else the manifest's source.
    progress
        A progress bar on stderr while downloading: True, False or ``"auto"`` (when stderr
        is a terminal).

    Returns
    -------
    pathlib.Path
        The dataset's folder.

    Raises
    ------
    FetchError
        A file could not be downloaded (the URL and the reason), or what came differs from
        the manifest (the file, the sizes or checksums, and the way out).

    Examples
    --------
    >>> import os, polars_ireval as ir
    >>> data = ir.fetch("trec-covid-r1", runs=["smith.bm25"])  # doctest: +SKIP
    >>> run = ir.read_run(data / "runs" / "smith.bm25.gz")  # doctest: +SKIP
    >>> qrels = ir.read_qrels(data / "qrels-rnd1.txt")  # doctest: +SKIP
    """
    manifest = _manifest(name)
    entries = _entries(manifest, runs)
    folder = _cache(name, cache)
    base = base_url or os.environ.get("IREVAL_DATASETS_URL") or manifest["source"]
    base = base if base.endswith("/") else base + "/"
    checked = _checked(folder)
    todo = [
        e for e in entries if checked.get(e.path) != e.sha256 or not (folder / e.path).is_file()
    ]
    if not todo:
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    total = sum(e.size for e in todo)
    with bar(progress, total=total, desc=f"fetching {name}", unit="B") as shown:
        shown.unit_scale = True
        for entry in todo:
            _download(base + entry.source, entry, folder, shown)
            checked[entry.path] = entry.sha256
            _record(folder, checked)  # as it goes: an interrupted fetch resumes
    return folder


def _download(url: str, entry: Entry, folder: Path, shown: Any) -> None:
    """Fetch ``url`` into ``folder / entry.path`` (gzipped when the path ends in ``.gz``),
    checking its size and SHA-256 on the way; the file appears only once checked."""
    target = folder / entry.path
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    size = 0
    handle, tmp = tempfile.mkstemp(dir=target.parent, prefix=".fetch-")
    try:
        with os.fdopen(handle, "wb") as raw:
            compress = entry.path.endswith(".gz") and not entry.source.endswith(".gz")
            out: Any = (
                gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, compresslevel=6) if compress else raw
            )
            try:
                with urllib.request.urlopen(url, timeout=60) as response:
                    while chunk := response.read(CHUNK):
                        digest.update(chunk)
                        size += len(chunk)
                        out.write(chunk)
                        shown.update(len(chunk))
            finally:
                if out is not raw:
                    out.close()
        if size != entry.size or digest.hexdigest() != entry.sha256:
            raise FetchError(
                f"{url}: got {size:,} bytes with SHA-256 {digest.hexdigest()[:16]}..., the "
                f"manifest says {entry.size:,} bytes, {entry.sha256[:16]}...: the source "
                "changed or the download broke; try again, or point base_url= (or "
                "IREVAL_DATASETS_URL) at a mirror of the original files"
            )
        os.replace(tmp, target)
    except (urllib.error.URLError, OSError, TimeoutError) as e:
        reason = f"HTTP {e.code} {e.reason}" if isinstance(e, urllib.error.HTTPError) else e
        reason = getattr(reason, "reason", reason)
        raise FetchError(
            f"{url}: cannot download ({reason}); check the network, or copy the files into "
            f"{folder} and point base_url= (or IREVAL_DATASETS_URL) at a mirror"
        ) from e
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _record(folder: Path, checked: dict[str, str]) -> None:
    tmp = folder / (CHECKED + ".tmp")
    tmp.write_text(json.dumps(checked, indent=0, sort_keys=True), encoding="utf-8")
    os.replace(tmp, folder / CHECKED)


def files(name: str, runs: Iterable[str] | None = None) -> list[str]:
    """The paths (relative to the dataset's folder) :func:`fetch` writes."""
    return [e.path for e in _entries(_manifest(name), None if runs is None else list(runs))]


__all__ = ["datasets", "fetch", "files"]
