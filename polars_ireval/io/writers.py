"""Write a run: TREC text (``query_id Q0 doc_id rank score tag``, gzipped for a ``.gz``
path) or Parquet, in a stable order (query id, then rank), so that
:func:`polars_ireval.read_run` reads back the same run."""

from __future__ import annotations

import gzip
import os
from pathlib import Path
from typing import Any

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval.errors import ParameterError
from polars_ireval.io.intake import intake_run
from polars_ireval.judge import ranked


def _ranked(run: Any, ties: str) -> pl.DataFrame:
    frame = intake_run(run)
    frame = frame.lazy() if isinstance(frame, pl.DataFrame) else frame
    keys = [c for c in (S.RUN_ID, S.QUERY_ID) if c in frame.collect_schema().names()]
    return ranked(frame, keys, ties).sort([*keys, S.RANK]).collect()


def run_text(run: Any, *, tag: str | None = None, ties: str = "trec_eval") -> str:
    """The TREC text of ``run``: ``query_id Q0 doc_id rank score tag`` a line, each
    ranking by rank (score descending, ties as ``ties``), scores in full precision; the tag
    is ``tag``, else the row's ``run_id``, else ``"run"``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_ireval.io.writers import run_text
    >>> run = pl.DataFrame({"query_id": "q1", "doc_id": ["a", "b"], "score": [0.5, 2.0]})
    >>> print(run_text(run, tag="mine"), end="")
    q1 Q0 b 1 2.0 mine
    q1 Q0 a 2 0.5 mine
    """
    if tag is not None and (not tag or any(ch.isspace() for ch in tag)):
        raise ParameterError(f"tag={tag!r}: one word (a TREC line's sixth field)")
    frame = _ranked(run, ties)
    label = (
        pl.lit(tag)
        if tag is not None
        else (pl.col(S.RUN_ID) if S.RUN_ID in frame.columns else pl.lit("run"))
    )
    lines = frame.select(
        pl.format(
            "{} Q0 {} {} {} {}",
            S.QUERY_ID,
            S.DOC_ID,
            S.RANK,
            pl.col(S.SCORE).cast(pl.String),
            label,
        )
    ).to_series()
    return "".join(f"{line}\n" for line in lines)


def write_run(
    run: Any, path: str | os.PathLike[str], *, tag: str | None = None, ties: str = "trec_eval"
) -> None:
    """Write ``run`` to ``path``: Parquet for a ``.parquet`` path (``[run_id,] query_id,
    doc_id, score, rank``), else TREC text (:func:`run_text`), gzipped for ``.gz``;
    :func:`polars_ireval.read_run` reads back the same run.

    Examples
    --------
    >>> import os, tempfile, polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q1", "doc_id": ["a", "b"], "score": [0.5, 2.0]})
    >>> path = os.path.join(tempfile.mkdtemp(), "mine.run.gz")
    >>> ir.write_run(run, path, tag="mine")
    >>> ir.read_run(path)["doc_id"].to_list(), ir.run_tag(path)
    (['b', 'a'], 'mine')
    """
    path = Path(path)
    if path.suffix.lower() == ".parquet":
        _ranked(run, ties).write_parquet(path)
        return
    data = run_text(run, tag=tag, ties=ties).encode("utf-8")
    if path.suffix.lower() == ".gz":
        data = gzip.compress(data, mtime=0)
    path.write_bytes(data)
