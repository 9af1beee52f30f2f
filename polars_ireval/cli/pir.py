"""``ireval pir``: the preference identification ratio from the command line.

::

    ireval pir LISTS QRELS PREFERENCES [-m MEASURE]... [--cutoffs 1-10]
           [--threshold 0|T|best[,...]] [--group-by COLUMN] [-l L]
           [--format table|tsv|csv|jsonl] [-o FILE]

LISTS is a TREC run file whose query id is the session and whose tag (6th column) names
the list (or a Parquet/Arrow file with ``run_id, query_id, doc_id, score [, session]``),
QRELS the judgments, PREFERENCES what :func:`polars_ireval.read_preferences` reads
(``session preferred [more columns]``): a file, or a quoted glob or a directory whose files
are read together. It prints :func:`polars_ireval.analysis.pir`'s frame: an aligned table on a
terminal, TSV otherwise. Errors are one line on stderr (``ireval:
error: ...``) with exit code 2.
"""

from __future__ import annotations

import sys
from pathlib import Path

from polars_ireval.analysis.pir import check_cutoffs, pir
from polars_ireval.cli.common import Parser, UsageError, format_table, guarded

FORMATS = ("table", "tsv", "csv", "jsonl")
_EXTENSIONS = {".tsv": "tsv", ".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}


def pir_main(argv: list[str]) -> int:
    """``ireval pir ...``: returns the exit code (2 on error, with one line on stderr)."""
    return guarded(_pir, argv)


def parser() -> Parser:
    p = Parser(
        prog="ireval pir",
        description=(
            "Preference identification ratio: the share of sessions in which a measure's "
            "difference between the two lists names the list the user preferred (ties count "
            "one half), per measure, cut-off and threshold."
        ),
        epilog="Example: ireval pir lists.run qrels.txt prefs.tsv "
        "-m \"nDCG(discount='rank')\" --cutoffs 1-10 --threshold 0,best",
    )
    p.add_argument("lists", help="the result lists: a run whose query id is the session")
    p.add_argument("qrels", help="judgments of the sessions' documents")
    p.add_argument("preferences", help="file: session preferred [more columns]")
    p.add_argument(
        "-m",
        "--measure",
        action="append",
        default=None,
        help="a measure with no cutoff (repeatable; default nDCG)",
    )
    p.add_argument("--cutoffs", default="1-10", help="e.g. 1-10 or 1,3,5,10 (default 1-10)")
    p.add_argument(
        "--threshold", default="0", help="0, a number, best, or several with commas (default 0)"
    )
    p.add_argument("--group-by", default=None, help="a column of the preference file")
    p.add_argument("-l", "--relevance-level", type=int, default=1, help="minimum relevant grade")
    p.add_argument(
        "--ties", choices=("trec_eval", "doc_id_asc", "input_order", "rank"), default="trec_eval",
        help="order of documents with equal scores in the lists (trec_eval: doc id descending)",
    )  # fmt: skip
    p.add_argument("--format", choices=FORMATS, default=None, help="output format")
    p.add_argument("-o", "--output", default=None, help="write FILE (format from its extension)")
    return p


def cutoffs(text: str) -> list[int]:
    """``1-10``, ``1,3,5`` or a mix (``1-3,5,10``) as the integers they name.

    >>> cutoffs("1-3,5,10")
    [1, 2, 3, 5, 10]
    """
    parts: list[range] = []
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        low, dash, high = part.partition("-")
        try:
            parts.append(range(int(low), int(high) + 1) if dash else range(int(low), int(low) + 1))
        except ValueError:
            raise UsageError(
                f"--cutoffs {text!r}: {part!r} is not a number or a range; e.g. 1-10 or 1,5,10"
            ) from None
    check_cutoffs(sum(len(r) for r in parts))  # before they are listed
    out = [k for r in parts for k in r]
    if not out:
        raise UsageError(f"--cutoffs {text!r}: give cut-offs, e.g. 1-10")
    return out


def thresholds(text: str) -> list[float | str]:
    """``0``, ``0.05``, ``best`` or several with commas.

    >>> thresholds("0,best,0.1")
    [0.0, 'best', 0.1]
    """
    out: list[float | str] = []
    for part in text.replace(" ", "").split(","):
        if part == "best":
            out.append("best")
        elif part:
            try:
                out.append(float(part))
            except ValueError:
                raise UsageError(
                    f"--threshold {text!r}: {part!r} is neither a number nor 'best'"
                ) from None
    if not out:
        raise UsageError(f"--threshold {text!r}: give 0, a number or best")
    return out


def _pir(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    measures = args.measure or ["nDCG"]
    frame = pir(
        args.lists,
        args.qrels,
        args.preferences,
        measures,
        cutoffs=cutoffs(args.cutoffs),
        threshold=thresholds(args.threshold),
        group_by=args.group_by,
        relevance_level=args.relevance_level,
        ties=args.ties,
    )
    fmt = args.format
    if fmt is None:
        if args.output is not None:
            fmt = _EXTENSIONS.get(Path(args.output).suffix.lower(), "table")
        else:
            fmt = "table" if sys.stdout.isatty() else "tsv"
    if fmt == "jsonl":
        text = frame.write_ndjson()
    elif fmt in ("tsv", "csv"):
        text = frame.write_csv(separator="\t" if fmt == "tsv" else ",", float_precision=None)
    else:
        text = format_table(frame, integers=["cutoff", "sessions", "agree", "disagree", "tied"])
    if args.output is None:
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text)
    return 0
