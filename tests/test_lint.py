"""The habits of STYLE.md, enforced: ruff (lint and format) and mypy are clean on the tree."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests.paths import ROOT


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize(
    "command",
    [
        ("ruff", "check", "."),
        ("ruff", "format", "--check", "."),
        (sys.executable, "-m", "mypy"),
    ],
    ids=["ruff-check", "ruff-format", "mypy"],
)
def test_clean(command: tuple[str, ...]) -> None:
    if command[0] == "ruff" and shutil.which("ruff") is None:
        command = (sys.executable, "-m", *command)
    done = _run(*command)
    assert done.returncode == 0, f"{' '.join(command)} found problems:\n{done.stdout}{done.stderr}"
