"""Judgment-group evaluation: trec_eval's ``-R qrels_jg`` mode (``-m qrels_jg``).

A judgment-group qrels file is an ordinary qrels file whose second column names a
**judgment group** (``jg``, e.g. one assessor): each (query, group) is a complete set of
judgments of its own. trec_eval scores the run against each group separately and reports,
per query, the mean over its groups of ``map``, ``P`` and ``Rprec_mult``, named
``map_avgjg``, ``P_avgjg_<k>`` and ``Rprec_mult_avgjg_<m>``.

:func:`evaluate_jg` reuses the main engine: it treats every (query, group) as one pseudo
query, evaluates ``map``/``P``/``Rprec_mult`` on it with :func:`polars_ireval.evaluate`
(trec_eval's ranking: score descending, ties by doc_id descending), then averages over the
groups of each query.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval._base.options import check_flag
from polars_ireval.errors import (
    EmptyInputError,
    MeasureSyntaxError,
    ParameterError,
    RelevanceError,
    UnknownMeasureError,
)
from polars_ireval.evaluate import evaluate
from polars_ireval.io import validation as V
from polars_ireval.io.intake import intake_run
from polars_ireval.io.lines import read_fields
from polars_ireval.io.tables import expand_paths, frame_from_object, paths_label
from polars_ireval.judge import group_keys
from polars_ireval.parse import parse_measures
from polars_ireval.registry import Measure
from polars_ireval.results import MEASURE, VALUE
from polars_ireval.trec_eval.prefs import JG, warn_coverage

#: trec_eval's default cutoffs of ``P_avgjg`` and multipliers of ``Rprec_mult_avgjg``.
P_AVGJG_CUTOFFS: tuple[int, ...] = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RPREC_MULT_AVGJG: tuple[float, ...] = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)

#: The qrels_jg families in trec_eval's print order: (name, engine measure, default params).
JG_FAMILIES: tuple[tuple[str, str, str], ...] = (
    ("map_avgjg", "map", ""),
    ("P_avgjg", "P", "." + ",".join(map(str, P_AVGJG_CUTOFFS))),
    ("Rprec_mult_avgjg", "Rprec_mult", "." + ",".join(map(str, RPREC_MULT_AVGJG))),
)
JG_NICKNAMES: dict[str, tuple[str, ...]] = {"qrels_jg": tuple(f[0] for f in JG_FAMILIES)}

_LAYOUT = "query_id jg doc_id relevance"
_COLUMNS = (S.QUERY_ID, JG, S.DOC_ID, S.RELEVANCE)
_PSEUDO = "__pseudo_query"
_ORDER = "__order"


def read_qrels_jg(source: Any) -> pl.DataFrame:
    """Read judgment-group qrels (trec_eval ``-R qrels_jg``) into a validated frame.

    Parameters
    ----------
    source
        A path (text ``query_id jg doc_id relevance``, plain or ``.gz``; ``#`` lines and
        blank lines skipped), a glob, a list of paths, or a frame with those columns.

    Returns
    -------
    polars.DataFrame
        ``query_id, jg, doc_id`` (String) and ``relevance`` (Int64; negative grades are kept:
        judged but never relevant, and not counted in the number of relevant documents).

    Raises
    ------
    FormatError
        A line does not have exactly four fields (file and line named).
    RelevanceError
        A grade is not an integer.
    DuplicateError
        A document is judged twice in one (query, group), as trec_eval rejects too.
    EmptyInputError
        The input holds no judgment.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_ireval.trec_eval.qrels_jg import read_qrels_jg
    >>> read_qrels_jg(pl.DataFrame({"query_id": [1, 1], "jg": ["A", "B"],
    ...                             "doc_id": ["d1", "d1"], "relevance": [1, 0]}))
    shape: (2, 4)
    ┌──────────┬─────┬────────┬───────────┐
    │ query_id ┆ jg  ┆ doc_id ┆ relevance │
    │ ---      ┆ --- ┆ ---    ┆ ---       │
    │ str      ┆ str ┆ str    ┆ i64       │
    ╞══════════╪═════╪════════╪═══════════╡
    │ 1        ┆ A   ┆ d1     ┆ 1         │
    │ 1        ┆ B   ┆ d1     ┆ 0         │
    └──────────┴─────┴────────┴───────────┘
    """
    paths = expand_paths(source)
    if paths is None:
        return _validate(frame_from_object(source, "qrels", columns=_COLUMNS), "<input>")
    frames = []
    for path in paths:
        fields = read_fields(path, [S.QUERY_ID, JG, S.DOC_ID, "__rel"], _LAYOUT)
        rel = pl.col("__rel").cast(pl.Int64, strict=False)
        bad = fields.filter(rel.is_null())
        if bad.height:
            row = bad.row(0, named=True)
            raise RelevanceError(
                f"{path}:{row[V.LINE]}: relevance {row['__rel']!r} of document "
                f"{row[S.DOC_ID]!r} is not an integer; grades must be whole numbers such as "
                "0, 1, 2 or -1"
            )
        frames.append(
            fields.select(S.QUERY_ID, JG, S.DOC_ID, rel.alias(S.RELEVANCE), V.LINE, V.FILE)
        )
    return _validate(pl.concat(frames), paths_label(paths))


def evaluate_jg(
    run: Any,
    qrels_jg: Any,
    measures: str | Iterable[str] | None = None,
    *,
    per_query: bool = False,
    relevance_level: int = 1,
) -> Any:
    """Evaluate runs against judgment-group qrels: trec_eval's ``qrels_jg`` measures.

    Parameters
    ----------
    run
        One run or many (a ``run_id`` column): a frame, a path, a glob, a list of paths.
        A LazyFrame gives a LazyFrame.
    qrels_jg
        Judgment-group qrels from :func:`read_qrels_jg` (or a path).
    measures
        trec_eval names: ``map_avgjg``, ``P_avgjg`` (cutoffs 5 ... 1000), ``P_avgjg.5,10``,
        ``P_avgjg_10``, ``Rprec_mult_avgjg`` (multipliers 0.2 ... 2.0),
        ``Rprec_mult_avgjg.0.5,1``, or the nickname ``qrels_jg`` (all three families, the
        default); a list or one whitespace-separated string. The output lists them in
        trec_eval's print order (map, P, Rprec_mult; parameters ascending).
    per_query
        One row per query (with ``query_id``) instead of the mean per run.
    relevance_level
        Minimum grade counted as relevant (trec_eval ``-l``).

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        ``[run_id,] [query_id,] measure, value``: per query, the mean over its judgment
        groups; the aggregate is the mean over the queries present in both inputs.

    Examples
    --------
    Two assessors judge query q: for A only d1 is relevant, for B only d2. The run ranks
    d1 first, so AP is 1 for A and 1/2 for B.

    >>> import polars as pl
    >>> from polars_ireval.trec_eval.qrels_jg import evaluate_jg
    >>> qrels = pl.DataFrame({"query_id": ["q"] * 4, "jg": ["A", "A", "B", "B"],
    ...                       "doc_id": ["d1", "d2", "d1", "d2"], "relevance": [1, 0, 0, 1]})
    >>> run = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["d1", "d2"],
    ...                     "score": [2.0, 1.0]})
    >>> evaluate_jg(run, qrels, ["map_avgjg", "P_avgjg.1,2"])
    shape: (3, 2)
    ┌───────────┬───────┐
    │ measure   ┆ value │
    │ ---       ┆ ---   │
    │ str       ┆ f64   │
    ╞═══════════╪═══════╡
    │ map_avgjg ┆ 0.75  │
    │ P_avgjg_1 ┆ 0.5   │
    │ P_avgjg_2 ┆ 0.5   │
    └───────────┴───────┘
    """
    if not isinstance(relevance_level, int) or isinstance(relevance_level, bool):
        raise ParameterError(f"relevance_level={relevance_level!r}: must be an integer grade")
    check_flag("per_query", per_query)
    measures_ = _jg_measures(measures)
    lazy = isinstance(run, pl.LazyFrame) or isinstance(qrels_jg, pl.LazyFrame)
    run_lf = intake_run(run).lazy()
    keys = group_keys(run_lf)
    run_keys = [k for k in keys if k == S.RUN_ID]
    qrels_lf = _as_qrels_jg(qrels_jg).lazy()
    if not lazy:
        warn_coverage(run_lf, qrels_lf, keys, "judgments")

    # Every (query, judgment group) ranked by the run becomes one pseudo query.
    groups = (
        qrels_lf.select(S.QUERY_ID, JG)
        .unique()
        .join(run_lf.select(S.QUERY_ID).unique(), on=S.QUERY_ID, how="semi")
        .sort(S.QUERY_ID, JG)
        .with_row_index(_PSEUDO)
        .with_columns(pl.col(_PSEUDO).cast(pl.String))
    )
    pseudo_run = run_lf.join(groups.select(S.QUERY_ID, _PSEUDO), on=S.QUERY_ID).select(
        *run_keys, pl.col(_PSEUDO).alias(S.QUERY_ID), S.DOC_ID, S.SCORE
    )
    pseudo_qrels = qrels_lf.join(groups, on=[S.QUERY_ID, JG]).select(
        pl.col(_PSEUDO).alias(S.QUERY_ID), S.DOC_ID, S.RELEVANCE
    )
    per_group = evaluate(
        pseudo_run,
        pseudo_qrels,
        [m for m, _ in measures_],
        per_query=True,
        relevance_level=relevance_level,
    )
    names = pl.LazyFrame(
        {
            MEASURE: [m.label for m, _ in measures_],
            "__name": [name for _, name in measures_],
            _ORDER: list(range(len(measures_))),
        },
        schema={MEASURE: pl.String, "__name": pl.String, _ORDER: pl.Int64},
    )
    # mean over the judgment groups of each query, then (aggregate) over the queries
    per_q = (
        per_group.rename({S.QUERY_ID: _PSEUDO})
        .join(groups.select(_PSEUDO, S.QUERY_ID), on=_PSEUDO)
        .join(names, on=MEASURE)
        .group_by(*keys, _ORDER, "__name")
        .agg(pl.col(VALUE).mean())
    )
    index = keys if per_query else run_keys
    if not per_query:
        per_q = per_q.group_by(*run_keys, _ORDER, "__name").agg(pl.col(VALUE).mean())
    out = per_q.sort(*index, _ORDER).select(*index, pl.col("__name").alias(MEASURE), VALUE)
    return out if lazy else out.collect()


def _jg_measures(measures: str | Iterable[str] | None) -> list[tuple[Measure, str]]:
    """Requested measures as (engine measure, output name), in trec_eval's print order.

    ``P_avgjg.5,10`` is evaluated as ``P.5,10`` (labels ``P_5``, ``P_10``) and renamed
    ``P_avgjg_5``, ``P_avgjg_10``.
    """
    if measures is None:
        tokens = list(JG_NICKNAMES["qrels_jg"])
    else:
        items = [measures] if isinstance(measures, str) else list(measures)
        tokens = []
        for item in items:
            if not isinstance(item, str):
                raise MeasureSyntaxError(f"{item!r}: a measure must be a string such as 'P_avgjg'")
            for token in item.split():
                tokens.extend(JG_NICKNAMES.get(token, (token,)))
    if not tokens:
        raise MeasureSyntaxError("no measure given; name at least one, e.g. 'map_avgjg'")
    found: dict[str, tuple[int, tuple[Any, ...], Measure]] = {}
    for token in tokens:
        for order, (name, engine, defaults) in enumerate(JG_FAMILIES):
            rest = token[len(name) :]
            if token.startswith(name) and (rest == "" or rest[0] in "._"):
                for m in parse_measures(engine + (rest or defaults)):
                    params = tuple(v for k, v in m.values if k != "rel")
                    found.setdefault(name + m.label[len(engine) :], (order, params, m))
                break
        else:
            raise UnknownMeasureError(
                f"unknown qrels_jg measure {token!r}; the measures are "
                f"{', '.join(f[0] for f in JG_FAMILIES)} (with trec_eval parameters such as "
                "'P_avgjg.5,10') and the nickname 'qrels_jg'"
            )
    ordered = sorted(found.items(), key=lambda kv: (kv[1][0], kv[1][1]))
    return [(m, name) for name, (_, _, m) in ordered]


def _as_qrels_jg(qrels: Any) -> pl.DataFrame | pl.LazyFrame:
    if isinstance(qrels, pl.LazyFrame):
        return qrels.with_columns(
            pl.col(S.QUERY_ID, JG, S.DOC_ID).cast(pl.String), pl.col(S.RELEVANCE).cast(pl.Int64)
        )
    return read_qrels_jg(qrels)


def _validate(frame: pl.DataFrame, source: str) -> pl.DataFrame:
    frame = V.rename_aliases(frame)
    cols = _COLUMNS
    V.require(frame, cols, source, "qrels_jg")
    frame = frame.with_columns(
        *[V.id_column(frame, c, source) for c in (S.QUERY_ID, JG, S.DOC_ID)],
        V.relevance_column(frame, source),
    )
    if frame.height == 0:
        raise EmptyInputError(f"{source}: the qrels hold no judgment; check the file and its path")
    V.check_nulls(frame, cols, source, "qrels_jg")
    V.check_duplicates(frame, [S.QUERY_ID, JG, S.DOC_ID], source, "qrels_jg")
    return frame.select(cols)
