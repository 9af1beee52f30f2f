"""Build trec_eval 9.0.8 and 10.0 from ``../shared/oracles`` for the differential tests.

``../shared/oracles/trec_eval-<version>`` holds NIST's source at each tag (read-only in CI):
each is copied into a temporary folder, built with ``make`` and its binary moved into a cache
folder (``~/.cache/polars_ireval/trec_eval-<version>/trec_eval``), once. Printed as
``VERSION PATH`` lines; ``.ci/run`` exports them as ``IREVAL_TREC_EVAL_9_0_8`` and
``IREVAL_TREC_EVAL_10_0``. The 9.0.4 binary comes from pyserini's sdist
(``tests/tools/trec_eval_binary.py``).

    python tests/tools/trec_eval_oracles.py        # 9.0.8 /root/.cache/.../trec_eval ...
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ORACLES = ROOT.parent / "shared" / "oracles"
VERSIONS = ("9.0.8", "10.0")


def env_name(version: str) -> str:
    """The environment variable that names the binary of ``version``."""
    return "IREVAL_TREC_EVAL_" + version.replace(".", "_")


def cached(version: str) -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "polars_ireval" / f"trec_eval-{version}" / "trec_eval"


def build(version: str) -> Path:
    """The binary of ``version``, built from its source the first time.

    Raises
    ------
    FileNotFoundError
        The source is not there (``../shared`` absent).
    subprocess.CalledProcessError
        ``make`` failed.
    """
    target = cached(version)
    if target.is_file():
        return target
    source = ORACLES / f"trec_eval-{version}"
    if not (source / "Makefile").is_file():
        raise FileNotFoundError(f"{source}: no trec_eval source (../shared/oracles is absent)")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "src"
        shutil.copytree(source, work)
        subprocess.run(
            ["make", "-C", str(work)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        target.parent.mkdir(parents=True, exist_ok=True)
        part = target.with_name(f"trec_eval.{os.getpid()}")
        shutil.copy2(work / "trec_eval", part)
        os.replace(part, target)  # atomic: two test workers may build at once
    return target


def main() -> int:
    status = 0
    for version in VERSIONS:
        try:
            print(version, build(version))
        except (OSError, subprocess.CalledProcessError) as e:
            print(f"could not build trec_eval {version}: {e}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
