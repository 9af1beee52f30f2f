"""Generate the synthetic benchmark workloads as TREC text files and Parquet.

Two workloads are produced, each from its own seeded ``numpy.random.default_rng``:

``msmarco``
    One run of 7,000 queries x 1,000 documents (7M lines) with MS MARCO-like sparse
    qrels: 1-4 judged documents per query, grades 0-3 (mostly 1), some of them
    retrieved by the run and some not.
``campaign``
    A TREC-style campaign: 100 runs x 50 queries x 1,000 documents ranked from a shared
    pool of plausible documents per query, with pooled qrels of 300-600 judged documents
    per query (grades 0-2) taken from the documents the runs rank highest.

``deep``
    One run of 7,000 queries x 1,000 documents with deep judgment pools: 150-250 judged
    documents per query (1.4M qrels lines), about 85% of them retrieved (drawn towards
    the top), grades 0-3 (mostly 0); scores with four decimals (so ties occur) and
    document ids of 20-29 characters.

Scores are float64, written with round-trip (``repr``) precision, and contain ties.
Files go to ``<data-dir>/<workload>-scale<scale>-seed<seed>/``; a ``manifest.json``
written last marks a complete data set, which is not generated again.

Usage::

    python generate.py [--scale 0.05] [--workloads msmarco campaign] [--data-dir DIR]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bench.layout import DEFAULT_DATA_DIR, DEFAULT_SEED, WORKLOADS
from bench.workloads import ensure


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--scale", type=float, default=1.0, help="multiplier of the number of queries"
    )
    parser.add_argument("--workloads", nargs="+", choices=WORKLOADS, default=list(WORKLOADS))
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR, help="cache directory")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    """Generate the requested workloads and print their manifests."""
    args = parse_args(argv)
    for name in args.workloads:
        spec = ensure(name, args.data_dir, args.scale, args.seed)
        print(f"{spec.directory}: {spec.manifest.read_text().strip()}")


if __name__ == "__main__":
    main()
