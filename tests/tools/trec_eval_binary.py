"""Fetch a real trec_eval binary for ``tests/test_cli_binary.py``; print its path.

trec_eval is not on PyPI as a binary of its own, but pyserini's source distribution ships
one (trec_eval 9.0.4 for linux-amd64, inside its Anserini fat jar), which reproduces every
expected output of trec_eval 9.0.8's test suite. This script downloads that sdist with pip
(165 MB, from the package index only), extracts the binary into a cache folder and prints
its path; ``.ci/run`` exports it as ``IREVAL_TREC_EVAL``. It exits 1 with a message on
stderr when the binary cannot be had (another platform, no index), and the binary tests
then skip saying so.

    python tests/tools/trec_eval_binary.py            # prints /root/.cache/.../trec_eval
"""

from __future__ import annotations

import os
import platform
import stat
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

SDIST = "pyserini==1.6.0"
MEMBER = "trec_eval/trec_eval-linux-amd64"


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "polars_ireval" / "trec_eval-9.0.4"


def fetch(target: Path) -> Path:
    """Download pyserini's sdist and extract the trec_eval binary to ``target/trec_eval``."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
             "--no-deps", "--no-binary", ":all:", SDIST, "-d", tmp],
            check=True, stdout=subprocess.DEVNULL,
        )  # fmt: skip
        (sdist,) = Path(tmp).glob("pyserini-*.tar.gz")
        with tarfile.open(sdist) as tar:
            jar_info = next(m for m in tar.getmembers() if m.name.endswith("-fatjar.jar"))
            jar = tar.extractfile(jar_info)
            if jar is None:
                raise FileNotFoundError(jar_info.name)
            jar_path = Path(tmp) / "anserini.jar"
            jar_path.write_bytes(jar.read())
        with zipfile.ZipFile(jar_path) as z:
            data = z.read(MEMBER)
    target.mkdir(parents=True, exist_ok=True)
    binary = target / "trec_eval"
    binary.write_bytes(data)
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return binary


def main() -> int:
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        print(f"no trec_eval binary for {platform.system()} {platform.machine()}", file=sys.stderr)
        return 1
    binary = cache_dir() / "trec_eval"
    try:
        if not binary.is_file():
            fetch(binary.parent)
        subprocess.run([str(binary), "-v"], check=False, capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError, StopIteration, KeyError) as e:
        print(f"could not get trec_eval from {SDIST}: {e}", file=sys.stderr)
        return 1
    print(binary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
