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
(:mod:`polars_ireval.trec_eval`), :mod:`~polars_ireval.cli.compare`,
:mod:`~polars_ireval.cli.pool` (``pool`` and ``simulate``), :mod:`~polars_ireval.cli.properties`,
:mod:`~polars_ireval.cli.pir` and :mod:`~polars_ireval.cli.plot`. This module dispatches on the
first word and holds what the modes share: :func:`guarded`, :class:`UsageError`, :class:`Parser`,
the reading of run files (:func:`expand_runs`, :func:`read_runs`), :class:`Progress` and
:func:`format_table`.

Errors are one line on stderr (``ireval: error: ...``) with exit code 2.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from polars_ireval.cli.common import (
    DEFAULT_MEASURES,
    Parser,
    Progress,
    UsageError,
    expand_runs,
    format_table,
    guarded,
    read_runs,
    run_name,
)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ireval`` command; returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "compare":
        from polars_ireval.cli.compare import main as compare_main

        return compare_main(args[1:])
    if args and args[0] == "pool":
        from polars_ireval.cli.pool import pool_main

        return pool_main(args[1:])
    if args and args[0] == "simulate":
        from polars_ireval.cli.pool import simulate_main

        return simulate_main(args[1:])
    if args and args[0] == "properties":
        from polars_ireval.cli.properties import properties_main

        return properties_main(args[1:])
    if args and args[0] == "plot":
        from polars_ireval.cli.plot import plot_main

        return plot_main(args[1:])
    if args and args[0] == "pir":
        from polars_ireval.cli.pir import pir_main

        return pir_main(args[1:])
    if args and args[0] == "trec_eval":
        from polars_ireval.cli.trec_eval import trec_eval_main

        return guarded(trec_eval_main, args[1:])
    from polars_ireval.cli.modern import modern_main

    return guarded(modern_main, args)


__all__ = [
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
