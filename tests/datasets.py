"""The datasets ``ir.fetch`` downloads, served to the tests from localhost, never from the
internet: a mirror of the source's layout (runs uncompressed, as the source serves them)
is made from ``../shared/data`` and served by ``http.server`` in a thread; the pages that
call ``ir.fetch`` then run with ``IREVAL_DATASETS_URL`` pointing at it and ``IREVAL_DATA``
at a cache folder this test run shares between its workers (behind a lock: the first
worker fetches, the others find the files checked).
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import gzip
import http.server
import os
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import polars_ireval as ir
from polars_ireval.io import datasets
from tests.paths import DATA, need_data

SHARED = {"trec-covid-r1": "trec-covid-r1"}


def mirror(name: str, folder: Path, runs: list[str] | None = None) -> Path:
    """The source's layout of ``name`` in ``folder``, from the copy in ../shared/data."""
    need_data()
    local = DATA / SHARED[name]
    manifest = datasets._manifest(name)
    for entry in datasets._entries(manifest, runs):
        target = folder / entry.source
        if target.is_file():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        data = (local / entry.path).read_bytes()
        if entry.path.endswith(".gz") and not entry.source.endswith(".gz"):
            data = gzip.decompress(data)
        tmp = target.with_suffix(target.suffix + ".tmp")
        tmp.write_bytes(data)
        os.replace(tmp, target)
    return folder


class Server:
    """``http.server`` on localhost over ``folder``, counting the requests it answers."""

    def __init__(self, folder: Path) -> None:
        self.requests: list[str] = []
        served = self.requests

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *args, **kwargs) -> None:
                super().__init__(*args, directory=str(folder), **kwargs)

            def log_message(self, format: str, *args: object) -> None:
                served.append(self.path)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@contextlib.contextmanager
def serving(folder: Path) -> Iterator[Server]:
    server = Server(folder)
    try:
        yield server
    finally:
        server.close()


#: Shared by the workers of one test run (xdist), keyed by the parent process.
SHARED_ROOT = Path(tempfile.gettempdir()) / f"polars_ireval-datasets-{os.getuid()}"


@functools.cache
def local_datasets(name: str = "trec-covid-r1") -> Path:
    """Fetch ``name`` once from a local mirror into the test run's cache, and point
    ``IREVAL_DATASETS_URL`` and ``IREVAL_DATA`` there for the pages that call
    ``ir.fetch`` (skipped with a message without ../shared/data)."""
    need_data()
    SHARED_ROOT.mkdir(parents=True, exist_ok=True)
    cache = SHARED_ROOT / "cache"
    with open(SHARED_ROOT / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with serving(mirror(name, SHARED_ROOT / "mirror" / name)) as server:
            folder = ir.fetch(name, cache=cache, base_url=server.url, progress=False)
    os.environ["IREVAL_DATA"] = str(cache)
    os.environ["IREVAL_DATASETS_URL"] = "http://127.0.0.1:9/"  # unused: the cache holds all
    return folder
