"""Every option of the Python API that changes a number has a flag of the same name on the
command line that runs it (``relevance_level`` is ``--relevance-level``), or is in the short
list below of those that cannot, each with its reason, which ``docs/cli.md`` prints.

The options are read from the functions' signatures, the flags from the commands' parsers:
a new keyword argument without its flag fails here.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

import pytest

import polars_ireval as ir
from polars_ireval.cli import compare, fuse, modern, pir, pool, properties
from polars_ireval.cli.common import WITHOUT_A_FLAG
from tests.paths import ROOT

#: (command, function, parser): the commands and the functions they call. ``ireval
#: compare`` evaluates the runs (evaluate's options), compares them and prints the report.
SURFACES: list[tuple[str, Callable[..., Any], Callable[[], Any]]] = [
    ("ireval", ir.evaluate, modern.parser),
    ("ireval compare", ir.evaluate, compare.parser),
    ("ireval compare", ir.compare, compare.parser),
    ("ireval compare", ir.report, compare.parser),
    ("ireval compare", ir.Report.to_latex, compare.parser),
    ("ireval pool", ir.pool, pool.pool_parser),
    ("ireval simulate", ir.simulate_judging, pool.simulate_parser),
    ("ireval properties", ir.properties, properties.parser),
    ("ireval pir", ir.pir, pir.parser),
    ("ireval fuse", ir.fuse, fuse.parser),
]

#: A parameter whose flag has another name: ``-m MEASURE`` (repeatable) for ``measures``.
FLAG_NAMES = {"measures": "measure"}


def _flags(parser: Any) -> set[str]:
    return {a.dest for a in parser._actions}


def _missing() -> list[tuple[str, str]]:
    out = []
    for command, function, make in SURFACES:
        flags = _flags(make())
        for name in inspect.signature(function).parameters:
            if name in flags or FLAG_NAMES.get(name) in flags or (command, name) in WITHOUT_A_FLAG:
                continue
            out.append((command, name))
    return out


def test_every_option_has_a_flag_or_a_documented_reason() -> None:
    missing = _missing()
    assert not missing, "options without a flag (add one, or a reason to WITHOUT_A_FLAG):\n" + (
        "\n".join(f"  {command}: {name}" for command, name in missing)
    )


def test_the_exceptions_are_needed_and_documented() -> None:
    """Each exception is an option the function has and its command lacks, and docs/cli.md
    lists it with its reason."""
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for (command, name), why in WITHOUT_A_FLAG.items():
        function_names = {
            n for c, f, _ in SURFACES if c == command for n in inspect.signature(f).parameters
        }
        assert name in function_names, (command, name)
        row = re.search(rf"^\| `{re.escape(command)}` \| `{name}` \| (.*) \|$", text, re.M)
        assert row is not None, f"docs/cli.md has no row for {command} {name}"
        assert row.group(1) == why, (command, name)


@pytest.mark.parametrize(
    ("argv", "keywords"),
    [
        (["--ties", "doc_id_asc"], {"ties": "doc_id_asc"}),
        (["--missing", "error"], {"missing": "error"}),
        (["-c"], {"missing": "zero"}),
        (["--no-relevant", "nan", "-l", "2"], {"no_relevant": "nan", "relevance_level": 2}),
        (["--scores", "float32", "-M", "5", "-J"], {"scores": "float32", "max_depth": 5}),
    ],
)
def test_flags_reach_evaluate_with_the_same_values(argv: list[str], keywords: dict) -> None:
    from polars_ireval.cli.common import evaluation_options

    args = modern.parser().parse_args(["q", "r", *argv])
    options = evaluation_options(args)
    for key, value in keywords.items():
        assert options[key] == value


def test_ties_reach_a_number(tmp_path) -> None:
    """NIST's DL 2020 RR@10 breaks ties by document id ascending: on a run whose two top
    documents tie, --ties doc_id_asc and the default give different RR, each what
    evaluate gives with the same option."""
    from polars_ireval.cli import main

    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1.0 t\n1 Q0 b 2 1.0 t\n")
    got = {}
    for ties in ("trec_eval", "doc_id_asc"):
        out = tmp_path / f"{ties}.tsv"
        code = main([str(tmp_path / "q"), str(tmp_path / "r"), "-m", "RR", "--ties", ties,
                     "-o", str(out), "--quiet"])  # fmt: skip
        assert code == 0
        got[ties] = float(out.read_text().splitlines()[1].split("\t")[1])
        run = ir.read_run(tmp_path / "r")
        want = ir.evaluate(run, tmp_path / "q", "RR", ties=ties)["value"][0]
        assert got[ties] == want
    assert got == {"trec_eval": 0.5, "doc_id_asc": 1.0}
