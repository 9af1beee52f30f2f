"""Readers for the reference outputs in ../shared/data (trec_eval text, pytrec_eval TSV)."""

from __future__ import annotations

import gzip
from pathlib import Path

import polars as pl


def read_trec_eval_output(path: Path) -> pl.DataFrame:
    """trec_eval stdout as ``measure, query_id, text`` (the printed value, unparsed)."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:  # type: ignore[operator]
        rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    return pl.DataFrame(
        [(m.strip(), q, v) for m, q, v in rows],
        schema=["measure", "query_id", "text"],
        orient="row",
    )


def read_pytrec_eval_tsv(path: Path) -> pl.DataFrame:
    """A make_refs.py TSV as ``measure, query_id, value`` (full-precision floats)."""
    return pl.read_csv(
        path,
        separator="\t",
        has_header=False,
        new_columns=["measure", "query_id", "value"],
        schema_overrides={"query_id": pl.String, "value": pl.Float64},
    )


def trec_text(value: float, integer: bool) -> str:
    """A value printed as trec_eval prints it: ``%ld`` for counts, ``%6.4f`` otherwise."""
    return str(round(value)) if integer else f"{value:6.4f}"
