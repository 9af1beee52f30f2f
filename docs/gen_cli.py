"""Write ``docs/cli.md``, the ``ireval`` command-line reference, from the argparse parsers
of ``polars_ireval/cli/`` (``python docs/gen_cli.py``); ``tests/test_site.py`` fails when
the page is stale."""

from __future__ import annotations

import os
import sys
from pathlib import Path

PAGE = Path(__file__).resolve().parent / "cli.md"
WIDTH = "100"  # argparse wraps help to $COLUMNS: fixed, so the page does not depend on a terminal


def _parsers() -> list[tuple[str, str, object]]:
    from polars_ireval.cli import compare, fuse, modern, pir, pool, properties, trec_eval

    return [
        ("ireval", "Evaluate runs: one row per run (per query with `-q`).", modern.parser()),
        (
            "ireval trec_eval",
            "A drop-in for trec_eval 9.0.8, byte for byte.",
            trec_eval._trec_parser(),
        ),
        ("ireval compare", "Significance tests and the tables a paper prints.", compare.parser()),
        ("ireval pool", "Which documents to judge next.", pool.pool_parser()),
        ("ireval simulate", "What a judgment budget buys.", pool.simulate_parser()),
        (
            "ireval properties",
            "Seed 004's seven numeric properties of a measure.",
            properties.parser(),
        ),
        ("ireval fuse", "Several runs fused into one.", fuse.parser()),
        (
            "ireval pir",
            "Preference identification ratio of measures against user preferences.",
            pir.parser(),
        ),
    ]


def _without_a_flag() -> list[str]:
    from polars_ireval.cli.common import WITHOUT_A_FLAG

    return [
        "",
        "## Options of the Python API without a flag",
        "",
        "Every option of the functions the commands run that changes a number has a flag of",
        "the same name (`relevance_level` is `--relevance-level`, `ties` is `--ties`,",
        "`measures` is `-m`), with the same values; `tests/test_cli_options.py` reads the",
        "signatures and fails on one without. These are the exceptions:",
        "",
        "| command | parameter | why |",
        "|---|---|---|",
        *(f"| `{c}` | `{n}` | {why} |" for (c, n), why in WITHOUT_A_FLAG.items()),
    ]


def render() -> str:
    """The Markdown text of ``docs/cli.md``."""
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        parsers = _parsers()
        out = [
            "# CLI reference",
            "",
            "Generated from the argparse parsers of `polars_ireval/cli/` by",
            "`python docs/gen_cli.py`; do not edit. The first word chooses the mode (`ireval -h`",
            "lists them); any other first word is the qrels file of the evaluation form, except",
            "a word close to a mode's name that is no file (`ireval comapre ...`: `unknown",
            "command 'comapre'; did you mean 'compare'?`; a file of that name is still read as",
            "qrels). Errors are one line on stderr (`ireval: error: ...`) with exit code 2.",
            "",
            "| command | what it does |",
            "|---|---|",
        ]
        out += [f"| [`{name}`](#{name.replace(' ', '-')}) | {what} |" for name, what, _ in parsers]
        for name, what, parser in parsers:
            help_text = parser.format_help().rstrip()  # type: ignore[attr-defined]
            out += ["", f"## {name}", "", what, "", "```text", help_text, "```"]
        out += _without_a_flag()
        return "\n".join(out) + "\n"
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old


if __name__ == "__main__":
    sys.path.insert(0, str(PAGE.parent.parent))
    PAGE.write_text(render())
