"""The README's set-up, as a new user runs it: a fresh virtual environment, ``pip install .``
from (a copy of) the checkout, then ``ireval --example`` on a terminal; its output must be
the one the README shows.

The virtual environment sees the system's site-packages (``--system-site-packages``), so
that the dependencies (polars, duckdb, ...) need no download; the package itself is built
and installed from the checkout into the environment, and the test checks that the
``ireval`` that runs is that one.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from tests.paths import ROOT

README = ROOT / "README.md"


def _setup_commands() -> tuple[str, str]:
    """The first README command line, split at ``&&``: (install, evaluate)."""
    text = README.read_text()
    block = re.search(r"## Set-up.*?```bash\n(.*?)```", text, re.S)
    assert block, "README has no bash block in its Set-up section"
    first = block.group(1).splitlines()[0].split("#")[0].strip()
    install, _, run = first.partition("&&")
    return install.strip(), run.strip()


def _expected_output() -> str:
    text = README.read_text()
    block = re.search(r"## Set-up.*?```text\n(.*?)```", text, re.S)
    assert block, "README has no expected-output (text) block in its Set-up section"
    return block.group(1)


def _in_terminal(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[int, str]:
    """Run ``cmd`` with stdout on a pseudo-terminal (as a user's shell would); return the
    exit code and what it printed, with the terminal's CRLF turned back into LF."""
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen(cmd, stdout=slave, stderr=subprocess.PIPE, env=env, cwd=cwd)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    code = proc.wait(timeout=300)
    assert proc.stderr is not None
    proc.stderr.close()
    return code, b"".join(chunks).decode().replace("\r\n", "\n")


def test_readme_setup_in_fresh_venv(tmp_path: Path) -> None:
    install, run = _setup_commands()
    assert install == "pip install ." and run == "ireval --example", (install, run)
    if sys.platform == "win32":
        pytest.skip("uses a POSIX pseudo-terminal")

    # a copy of the checkout, so that the build cannot touch the shared working tree
    src = tmp_path / "checkout"
    shutil.copytree(
        ROOT,
        src,
        ignore=shutil.ignore_patterns(".git", "__pycache__", "*.egg-info", ".mypy_cache",
                                      ".ruff_cache", ".pytest_cache", "build", "dist",
                                      ".hypothesis", "benchmarks"),
    )  # fmt: skip
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=True).create(env_dir)
    bindir = env_dir / "bin"
    env = {
        **os.environ,
        "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}",
        "VIRTUAL_ENV": str(env_dir),
    }
    env.pop("PYTHONPATH", None)
    done = subprocess.run(
        install.split(), cwd=src, env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]

    # the ireval on PATH is the venv's, and it imports the package installed there
    assert shutil.which("ireval", path=env["PATH"]) == str(bindir / "ireval")
    where = subprocess.run(
        [str(bindir / "python"), "-c", "import polars_ireval; print(polars_ireval.__file__)"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert where.stdout.strip().startswith(str(env_dir)), where.stdout + where.stderr

    code, out = _in_terminal(run.split(), env, tmp_path)
    assert code == 0, out
    assert out == _expected_output()
