"""``ireval trec_eval``: trec_eval's command line, printing what trec_eval prints.

It takes trec_eval's flags with their short and long forms (``-q``/``--query_eval_wanted``,
``-m``/``--measure``, ``-c``, ``-l``, ``-n``, ``-D``, ``-J``, ``-N``, ``-M``, ``-R``, ``-T``,
``-o``, ``-Z``, ``-h``, ``-v``) and prints on stdout what trec_eval 9.0.8 prints, or trec_eval
10.0 with ``--trec_eval_version 10.0``. The run may be ``-`` (stdin). The output comes from
:func:`polars_ireval.trec_eval.text.trec_eval_text`; this module parses and checks the flags,
reads stdin and prints.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from polars_ireval._version import __version__
from polars_ireval.cli.common import Parser, UsageError
from polars_ireval.errors import IrevalError
from polars_ireval.trec_eval import (
    REL_FORMATS,
    VERSIONS,
    TrecEvalStop,
    measure_help,
    trec_eval_text,
)


def _trec_parser() -> Parser:
    p = Parser(
        prog="ireval trec_eval",
        add_help=False,
        description=(
            "trec_eval 9.0.8 compatible evaluation: the same flags (short and long forms) "
            "and, on stdout, the same text byte for byte."
        ),
        epilog=(
            "Measures: trec_eval names with parameters (P.5,10  ndcg_cut.10  "
            "iprec_at_recall..10,.50) or nicknames (official, all_trec, set, prefs, "
            "all_prefs, qrels_jg). Errors: one line on stderr, exit code 2; where trec_eval itself "
            "stops (10.0 on a judged query the run lacks, without -c), its line and exit status."
        ),
    )
    add = p.add_argument
    add("files", nargs="*", metavar="FILE", help="rel_info_file results_file (results: - = stdin)")
    add("-h", "--help", action="store_true", help="print this help (and -m measures') and exit")
    add("-v", "--version", action="store_true", help="print the trec_eval version and exit")
    add("-q", "--query_eval_wanted", action="store_true", help="also print per-query values")
    add("-m", "--measure", action="append", default=None, help="measure[.params] or nickname")
    add(
        "-c",
        "--complete_rel_info_wanted",
        action="store_true",
        help="average over every judged query (missing queries count 0)",
    )
    add("-l", "--level_for_rel", type=int, default=1, metavar="L", help="minimum relevant grade")
    add("-n", "--nosummary", action="store_true", help="no summary (the 'all' lines)")
    add(
        "-D",
        "--Debug_level",
        default=None,
        metavar="N[.QID]",
        help="debug level; with .QID only query QID is evaluated (debug text is not printed)",
    )
    add("-J", "--Judged_docs_only", action="store_true", help="evaluate judged documents only")
    add(
        "-N",
        "--Number_docs_in_coll",
        type=int,
        default=None,
        metavar="N",
        help="documents in the collection (utility's last term)",
    )
    add(
        "-M",
        "--Max_retrieved_per_topic",
        type=int,
        default=None,
        metavar="M",
        help="evaluate the top M documents of each query only",
    )
    add(
        "-R",
        "--Rel_info_format",
        choices=REL_FORMATS,
        default="qrels",
        metavar="FORMAT",
        help=f"format of rel_info_file: {', '.join(REL_FORMATS)} (default qrels)",
    )
    add(
        "-T",
        "--Results_format",
        choices=("trec_results",),
        default="trec_results",
        metavar="FORMAT",
        help="format of results_file: trec_results (the only one)",
    )
    add(
        "-o",
        "--Output_old_results_format",
        action="store_true",
        help="accepted for compatibility; obsolete in trec_eval 9, no effect",
    )
    add("-Z", "--Zscore", default=None, metavar="ZFILE", help="print z-scores (qid meas mean sd)")
    add(
        "--trec_eval_version",
        choices=VERSIONS,
        default="9.0.8",
        help="imitate trec_eval 9.0.8 (default; scores read as 32-bit floats, as every 9.x "
        "does), 10.0 (scores as doubles), or 9.0.4 (the same output as 9.0.8)",
    )
    return p


def trec_eval_main(argv: Sequence[str]) -> int:
    """``ireval trec_eval ...``: print what trec_eval 9.0.8 (or 10.0) prints."""
    parser = _trec_parser()
    args = parser.parse_args(argv)
    if args.help:
        sys.stdout.write(parser.format_help() + measure_help(args.measure))
        return 0
    if args.version:
        print(
            f"trec_eval version {args.trec_eval_version} (ireval, polars_ireval {__version__})",
            file=sys.stderr,
        )
        return 0
    if len(args.files) != 2:
        raise UsageError(
            f"expected 2 files (rel_info_file results_file), got {len(args.files)}"
            + (f": {args.files}" if args.files else "")
        )
    qrels_path, run_path = args.files
    for path in (qrels_path, run_path, args.Zscore):
        if path is not None and path != "-" and not os.path.isfile(path):
            if os.path.isdir(path):
                raise UsageError(f"{path}: is a directory; trec_eval mode takes one file each")
            raise FileNotFoundError(2, "no such file", path)
    if qrels_path == "-":
        raise UsageError("only the results file may be '-' (stdin), as in trec_eval")
    _check_numbers(args.Max_retrieved_per_topic, args.Number_docs_in_coll, args.level_for_rel)
    query = _debug_query(args.Debug_level)
    tmp: str | None = None
    try:
        if run_path == "-":
            import tempfile

            with tempfile.NamedTemporaryFile("wb", suffix=".txt", delete=False) as f:
                # bytes: the reader checks the encoding (a text stream, as tests give, as UTF-8)
                stdin = getattr(sys.stdin, "buffer", None)
                f.write(stdin.read() if stdin else sys.stdin.read().encode("utf-8", "replace"))
                tmp = run_path = f.name
        text = trec_eval_text(
            qrels_path,
            run_path,
            measures=args.measure,
            relevance_level=args.level_for_rel,
            complete=args.complete_rel_info_wanted,
            judged_only=args.Judged_docs_only,
            max_depth=args.Max_retrieved_per_topic,
            per_query=args.query_eval_wanted,
            summary=not args.nosummary,
            num_docs=args.Number_docs_in_coll,
            rel_format=args.Rel_info_format,
            zscores=args.Zscore,
            query=query,
            version=args.trec_eval_version,
        )
    except TrecEvalStop as e:  # trec_eval stops here: what it prints, and its exit status
        sys.stdout.write(e.stdout)
        print(e.trec_message, file=sys.stderr)
        return e.status
    except IrevalError as e:  # name the run as the user gave it, not the temporary file
        if tmp is None:
            raise
        e.args = (str(e).replace(tmp, "<stdin>"),)
        raise
    finally:
        if tmp is not None:
            os.unlink(tmp)
    sys.stdout.write(text)
    return 0


def _check_numbers(max_depth: int | None, num_docs: int | None, level: int = 1) -> None:
    """``-M`` and ``-N``, which trec_eval takes as counts, and ``-l``, a grade of 0 or more
    (with a negative one trec_eval 9.0.4 counts negative grades as relevant and prints AP
    above 1)."""
    if level < 0:
        raise UsageError(
            f"-l {level}: negative grades are never relevant; give 0 (every judged grade) or more"
        )
    if max_depth is not None and max_depth < 1:
        raise UsageError(f"-M {max_depth}: the number of documents must be at least 1")
    if num_docs is not None and num_docs < 0:
        raise UsageError(f"-N {num_docs}: the collection size must be >= 0")


def _debug_query(text: str | None) -> str | None:
    """The query of ``-D level.qid`` (None without one); the level must be an integer."""
    if text is None:
        return None
    level, _, qid = text.partition(".")
    try:
        int(level)
    except ValueError:
        raise UsageError(
            f"-D {text!r}: expected a debug level (an integer), optionally followed by .QID"
        ) from None
    print(
        "ireval: note: -D: trec_eval's debug text is not reproduced"
        + (f"; only query {qid!r} is evaluated" if qid else ""),
        file=sys.stderr,
    )
    return qid or None
