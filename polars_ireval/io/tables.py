"""Inputs other than text: paths and what they expand to, Parquet and Arrow files, frames
and dicts.

* :func:`expand_paths`: a path, a glob, a directory or a list of them as the files they
  name (None for an object, which :func:`frame_from_object` reads);
* :func:`file_format` and :func:`read_table`: which format a path's extension says, and a
  Parquet or Arrow file read as a run or qrels frame;
* :func:`frame_from_object`: a Polars, pandas or pyarrow frame, or a pytrec_eval-style dict
  ``{query_id: {doc_id: value}}``, as a Polars frame;
* :func:`file_run_id`, :func:`is_text_run` and :func:`paths_label`: the run a file names,
  whether it is TREC text, and how errors name several files.

Nothing here checks a frame's rows: :mod:`polars_ireval.io.validation` does, and
:mod:`polars_ireval.io.readers` chooses the reader.
"""

from __future__ import annotations

import glob
import numbers
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval.errors import EmptyInputError, SchemaError
from polars_ireval.io.validation import FILE, INPUT, LINE, canonical_columns, rename_aliases

__all__ = [
    "PathLike",
    "RunIdPolicy",
    "RunSource",
    "expand_paths",
    "file_format",
    "file_run_id",
    "frame_from_object",
    "is_text_run",
    "paths_label",
    "read_table",
]

PathLike = str | os.PathLike
RunSource = Any
#: Where ``read_run``'s ``run_id`` column comes from (see :func:`polars_ireval.read_run`).
RunIdPolicy = Literal["auto", "tag", "file", "none"]


def file_format(path: str) -> str:
    """The format a path's extension says: ``"parquet"`` (``.parquet``, ``.pq``), ``"ipc"``
    (``.arrow``, ``.ipc``, ``.feather``), else ``"trec"`` (TREC text, plain or gzip)."""
    name = path.lower()
    if name.endswith(".parquet") or name.endswith(".pq"):
        return "parquet"
    if name.endswith((".arrow", ".ipc", ".feather")):
        return "ipc"
    return "trec"


def read_table(
    path: str, fmt: str, kind: str, several: bool, *, located: bool = False
) -> pl.DataFrame:
    """A Parquet or Arrow (``fmt``) run or qrels file (``kind``), its columns renamed
    (:func:`~polars_ireval.io.validation.rename_aliases`) and its own columns named like the
    locators left out (they would be read as where its rows come from). One of
    ``several`` files: its columns converted as it alone would be read
    (:func:`~polars_ireval.io.validation.canonical_columns`: the files then concatenate, and
    an error names the file), and with ``located``, the file's name in :data:`FILE`."""
    frame = pl.read_parquet(path) if fmt == "parquet" else pl.read_ipc(path)
    frame = rename_aliases(_without_locators(frame))
    if not several:
        return frame
    frame = canonical_columns(frame, path, kind)
    return frame.with_columns(pl.lit(path).alias(FILE)) if located else frame


def _without_locators(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` without its own columns named like the locators (:data:`LINE`,
    :data:`FILE`): never read, as a lazy frame's are not (they would say where its rows
    come from), and never kept (:func:`~polars_ireval.io.validation.validate_run` drops them)."""
    if LINE in frame.columns or FILE in frame.columns:
        return frame.drop(LINE, FILE, strict=False)
    return frame


def expand_paths(source: Any) -> list[str] | None:
    """Turn a path, glob, directory or list of them into file paths; None for objects
    (frames, tables, dicts), which :func:`frame_from_object` reads.

    Directories and globs are sorted. An empty list, an empty directory or a glob that
    matches nothing is an :class:`EmptyInputError`, a missing file a ``FileNotFoundError``.
    """
    if isinstance(source, (str, os.PathLike)):
        items: Iterable[Any] = [source]
    elif isinstance(source, (list, tuple)) and all(
        isinstance(s, (str, os.PathLike)) for s in source
    ):
        items = source
        if not items:
            raise EmptyInputError("an empty list of files was given; pass at least one path")
    else:
        return None
    paths: list[str] = []
    for item in items:
        text = os.fspath(item)
        if os.path.isdir(text):
            found = sorted(str(p) for p in Path(text).iterdir() if p.is_file())
            if not found:
                raise EmptyInputError(f"{text}: the directory holds no file")
            paths.extend(found)
        elif os.path.exists(text):
            paths.append(text)
        elif glob.has_magic(text):
            found = sorted(glob.glob(text))
            if not found:
                raise EmptyInputError(f"{text}: no file matches this pattern")
            paths.extend(found)
        else:
            raise FileNotFoundError(f"{text}: no such file")
    return paths


def frame_from_object(
    source: Any, kind: str, *, columns: Sequence[str] | None = None
) -> pl.DataFrame:
    """A Polars frame of an in-memory ``kind`` (``"run"``, ``"qrels"``...): a Polars frame
    (a LazyFrame is collected), a pandas frame, a pyarrow table, or a pytrec_eval-style
    dict ``{query_id: {doc_id: value}}`` (the value a score for a run, else a grade).

    A format whose frames need more ``columns`` than a dict holds (preferences, judgment
    groups) passes them: a dict is then refused with a message naming them. Anything else
    is a :class:`SchemaError`. The frame is not checked here (see
    :mod:`polars_ireval.io.validation`).
    """
    if isinstance(source, pl.LazyFrame):
        return _without_locators(source.collect())
    if isinstance(source, pl.DataFrame):
        return _without_locators(source)
    if isinstance(source, Mapping) and columns is not None:
        raise SchemaError(
            f"cannot read {kind} from a dict; pass a path or a frame with columns {list(columns)}"
        )
    if isinstance(source, Mapping):
        return _frame_from_dict(source, kind)
    module = type(source).__module__
    if module.startswith("pyarrow"):
        frame = pl.from_arrow(source)
        assert isinstance(frame, pl.DataFrame)
        return _without_locators(frame)
    if module.startswith("pandas"):
        return _without_locators(pl.from_pandas(source))
    raise SchemaError(
        f"cannot read a {kind} from a {type(source).__name__}; pass a path, a Polars or pandas "
        "frame, a pyarrow table or a dict {query_id: {doc_id: value}}"
    )


def _frame_from_dict(source: Mapping[Any, Any], kind: str) -> pl.DataFrame:
    """The frame of a dict ``{query_id: {doc_id: value}}``; every key a string or an
    integer (its decimal text), as ids of a frame must be: ``str()`` of a float key
    ``1.0`` would give the query ``'1.0'``, not the ``'1'`` of the key ``1``."""
    value = S.SCORE if kind == "run" else S.RELEVANCE
    for q, docs in source.items():
        if not isinstance(docs, Mapping):
            raise SchemaError(
                f"{INPUT}: the dict's value for query {q!r} ({type(docs).__name__}) is not a "
                f"dict; give {{query_id: {{doc_id: {value}}}}}"
            )
    types = set(map(type, source)).union(*(map(type, docs) for docs in source.values()))
    if types <= {str}:  # the usual case: no conversion
        rows = [(q, d, v) for q, docs in source.items() for d, v in docs.items()]
    elif types <= {str, int}:  # exactly str or int (not bool): str() is the decimal text
        rows = [(str(q), str(d), v) for q, docs in source.items() for d, v in docs.items()]
    else:
        rows = [
            (_dict_id(q, "query"), _dict_id(d, "document"), v)
            for q, docs in source.items()
            for d, v in docs.items()
        ]
    return pl.DataFrame(
        rows, schema=[S.QUERY_ID, S.DOC_ID, value], orient="row", infer_schema_length=None
    )


def _dict_id(key: Any, what: str) -> str:
    """A dict's ``what`` (query or document) key as an id: a string, or an integer's decimal
    text; another type is a :class:`SchemaError`."""
    if isinstance(key, str):
        return str(key)
    if isinstance(key, numbers.Integral) and not isinstance(key, bool):
        return str(int(key))
    raise SchemaError(
        f"{INPUT}: the dict's {what} key {key!r} ({type(key).__name__}) is not a string or "
        "an integer; ids are strings (an integer is read as its decimal text, a float such "
        f"as 1.0 would not match '1'). Key the dict by strings, e.g. str(int(k)) for whole "
        "numbers"
    )


def file_run_id(path: PathLike) -> str:
    """The run id that ``read_run(..., run_id="file")`` gives the runs of a file: its name
    without extensions (``runs/bm25.run.gz`` -> ``bm25``)."""
    return _stem(str(path))


def is_text_run(path: PathLike) -> bool:
    """True for a path :func:`read_run` reads as TREC text (not Parquet or Arrow)."""
    return file_format(str(path)) == "trec"


def _stem(path: str) -> str:
    name = os.path.basename(path)
    for ext in (
        ".gz",
        ".parquet",
        ".pq",
        ".arrow",
        ".ipc",
        ".feather",
        ".run",
        ".txt",
        ".trec",
        ".tsv",
    ):
        if name.lower().endswith(ext):
            name = name[: -len(ext)]
    return name


def paths_label(paths: Sequence[str], what: str = "files") -> str:
    """How errors name the input read from ``paths``: the file, or how many ``what``.

    >>> paths_label(["a.txt"]), paths_label(["a.txt", "b.txt"], "run files")
    ('a.txt', '2 run files')
    """
    return paths[0] if len(paths) == 1 else f"{len(paths)} {what}"
