"""``ireval properties``: Moffat's seven numeric properties of measures (seed 004).

::

    ireval properties MEASURE [MEASURE ...] [--format text|markdown|json] [--explain]
           [--residual lower|upper] [--no-relevant forced|scored] [--properties P,P,...]

Prints :func:`polars_ireval.analysis.properties` of the measures: an aligned table of yes/no (text,
the default), a Markdown table, or JSON (verdicts, counterexamples and options). With
``--explain`` the text and Markdown outputs add one sentence per failing property, with
the counterexample that decided it. Errors are one line on stderr (``ireval: error:
...``) with exit code 2.
"""

from __future__ import annotations

from polars_ireval.analysis.properties import PROPERTIES, properties
from polars_ireval.cli.common import Parser, UsageError, guarded

FORMATS = ("text", "markdown", "json")


def properties_main(argv: list[str]) -> int:
    """``ireval properties ...``: returns the exit code (2 on error, with one line on stderr)."""
    return guarded(_properties, argv)


def parser() -> Parser:
    p = Parser(
        prog="ireval properties",
        description=(
            "Decide Moffat's seven properties (bounded, monotonic, convergent, top_weighted, "
            "localized, complete, realizable) of each measure by enumerating rankings."
        ),
        epilog="Example: ireval properties 'nDCG@5' 'RBP(p=0.8)@5' --format markdown --explain",
    )
    p.add_argument("measures", nargs="+", help="measure strings with a depth, e.g. nDCG@5")
    p.add_argument("--format", choices=FORMATS, default="text", help="output format (text)")
    p.add_argument("--explain", action="store_true", help="a counterexample per failure")
    p.add_argument(
        "--residual", choices=("lower", "upper"), default="lower",
        help="score of a measure with a residual: its lower (default) or upper end",
    )  # fmt: skip
    p.add_argument(
        "--no-relevant", choices=("forced", "scored"), default="forced",
        help="a query without relevant documents: scored only when forced (default), or "
        "as the implementation scores it",
    )  # fmt: skip
    p.add_argument(
        "--properties", default=None, help=f"among {','.join(PROPERTIES)} (default: all)"
    )
    p.add_argument(
        "--no-unjudged", dest="unjudged", action="store_false",
        help="place no unjudged documents in the rankings enumerated",
    )  # fmt: skip
    p.add_argument(
        "--unretrieved", type=int, default=2,
        help="the most relevant documents a collection holds unretrieved (2)",
    )  # fmt: skip
    p.add_argument(
        "--max-queries", type=int, default=100_000,
        help="the most synthetic queries per depth (100000)",
    )  # fmt: skip
    p.add_argument(
        "--max-violations", type=int, default=100_000,
        help="the most violations kept per measure and property (100000)",
    )  # fmt: skip
    return p


def _properties(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    wanted = None
    if args.properties is not None:
        wanted = [p.strip() for p in args.properties.split(",") if p.strip()]
        if not wanted:
            raise UsageError("--properties: give property names separated by commas")
    out = properties(
        args.measures, properties=wanted, explain=args.explain, residual=args.residual,
        no_relevant=args.no_relevant, unjudged=args.unjudged, unretrieved=args.unretrieved,
        max_queries=args.max_queries, max_violations=args.max_violations,
    )  # fmt: skip
    if args.format == "json":
        print(out.to_json())
    elif args.format == "markdown":
        print(out.to_markdown())
    else:
        print(out.to_text())
    return 0
