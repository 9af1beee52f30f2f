"""mkdocs hook: the reference figures of ``tests/images`` (drawn by
``tests/tools/make_plot_references.py``, compared by ``tests/test_plot.py``) are shown by
``docs/plots.md`` with links that work on GitHub (``../tests/images/...``); the site copies
them to ``images/tests/`` and points the links there. The API pages drop the Sphinx roles
(``:func:``, ``:class:``...) that some docstrings use, which Markdown shows verbatim."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROLE = re.compile(r":(?:func|class|mod|meth|attr|data|exc|obj):(?=<code>)")
TESTS_IMAGES = Path(__file__).resolve().parent.parent / "tests" / "images"


def on_files(files: Files, config: Any) -> Files:
    for png in sorted(TESTS_IMAGES.glob("*.png")):
        files.append(File.generated(config, f"images/tests/{png.name}", abs_src_path=str(png)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    return markdown.replace("](../tests/images/", "](images/tests/")


def on_page_content(html: str, page: Any, config: Any, files: Files) -> str:
    return ROLE.sub("", html)
