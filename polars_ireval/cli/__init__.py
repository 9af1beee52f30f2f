"""``ireval``: evaluate TREC runs from the command line.

The first word chooses the mode (nothing else switches modes)::

    ireval QRELS RUN [RUN ...] [-m MEASURES]... [-q] [-l L] [-c] [-M N] [-J]
           [--format table|tsv|csv|jsonl|parquet] [--output FILE] [--engine polars|duckdb|spark]
           [--batch N]
    ireval --example                       # the bundled example campaign
    ireval --write-example DIR             # its files, regenerated (seeded) into DIR
    ireval trec_eval [trec_eval flags] QRELS RUN      # trec_eval 9.0.8, byte for byte
    ireval compare QRELS RUN [RUN ...] [options]     # significance tests and tables
    ireval pool RUN [RUN ...] --method M [options]     # documents to judge next
    ireval simulate QRELS RUN [RUN ...] [options]      # what a judgment budget buys
    ireval properties MEASURE [MEASURE ...] [options]  # seed 004's seven properties
    ireval pir LISTS QRELS PREFERENCES [options]       # preference identification ratio
    ireval plot KIND QRELS RUN [RUN ...] -o FIG.pdf    # a figure (PNG, SVG or PDF)

Each mode is a module of this package that parses its arguments, calls the library and
prints: :mod:`~polars_ireval.cli.modern` (the first form), :mod:`~polars_ireval.cli.trec_eval`
(:mod:`polars_ireval.trec_eval.text`), :mod:`~polars_ireval.cli.compare`,
:mod:`~polars_ireval.cli.pool` (``pool`` and ``simulate``), :mod:`~polars_ireval.cli.properties`,
:mod:`~polars_ireval.cli.pir` and :mod:`~polars_ireval.cli.plot`. This module dispatches on the
first word (:data:`COMMANDS`: ``ireval -h`` lists them, and a first word close to one that is
no file is an error saying which was meant) and holds what the modes share: :func:`guarded`,
:class:`UsageError`, :class:`Parser`, the reading of run files (:func:`expand_runs`,
:func:`read_runs`), :class:`Progress` and :func:`format_table`.

Errors are one line on stderr (``ireval: error: ...``) with exit code 2.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

from polars_ireval.cli.common import (
    COMMANDS,
    DEFAULT_MEASURES,
    Parser,
    Progress,
    UsageError,
    expand_runs,
    format_table,
    guarded,
    read_runs,
    run_name,
    unknown_command,
)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ireval`` command; returns the exit code.

    The first word names a mode of :data:`COMMANDS`; otherwise the arguments are the
    evaluation form's (``QRELS RUN...``). A first word that is no file and is close to a
    command (``comapre``) is an error naming the command meant, not a missing qrels file.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in COMMANDS:
        module, function, _ = COMMANDS[args[0]]
        command = getattr(importlib.import_module(module), function)
        return guarded(command, args[1:])  # the modes' own errors are one line already
    if args and (meant := unknown_command(args[0])) is not None:
        print(
            f"ireval: error: unknown command {args[0]!r}; did you mean {meant!r}?",
            file=sys.stderr,
        )
        return 2
    from polars_ireval.cli.modern import modern_main

    return guarded(modern_main, args)


__all__ = [
    "COMMANDS",
    "DEFAULT_MEASURES",
    "Parser",
    "Progress",
    "UsageError",
    "expand_runs",
    "format_table",
    "guarded",
    "main",
    "read_runs",
    "run_name",
]
