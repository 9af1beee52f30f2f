"""Preference evaluation: trec_eval's ``-R prefs`` and ``-R qrels_prefs`` modes (``all_prefs``).

A preferences file says, per query, which documents an assessor preferred to which others:

* a **judgment group** (``jg``) is one consistent set of preferences (one assessor, one
  information need); different groups may contradict each other;
* a **judgment subgroup** (``jsg``) is a set of documents of one group ranked against each
  other: within a subgroup, a document with a higher ``rel_level`` is preferred to one with a
  lower level (equal levels are tied). The preferences of the subgroups of one group are
  combined transitively.

:func:`evaluate_prefs` counts, per judgment group, how many of these preferences the ranking
of a run fulfils, and derives trec_eval's 14 ``all_prefs`` measures. The computation is a
handful of joins and group-bys over the preference pairs (see ``docs/prefs.md``); it
reproduces trec_eval 9.0.8 to the printed digit, including three of its quirks, each marked
"trec_eval 9.0.8 behaviour reproduced" below.

Frame layout (:func:`read_prefs`): ``query_id, jg, jsg, doc_id`` (String) and ``rel_level``
(Float64, ``0.0`` meaning non-relevant).
"""

from __future__ import annotations

import difflib
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval.errors import (
    DuplicateError,
    EmptyInputError,
    FormatError,
    IrevalError,
    MeasureSyntaxError,
    RelevanceError,
    UnknownMeasureError,
)
from polars_ireval.io import validation as V
from polars_ireval.io.intake import intake_run
from polars_ireval.io.lines import read_fields
from polars_ireval.io.tables import expand_paths, frame_from_object, paths_label
from polars_ireval.judge import group_keys
from polars_ireval.registry import Aggregate
from polars_ireval.results import CoverageWarning, long_frame

JG = "jg"
JSG = "jsg"
REL_LEVEL = "rel_level"
PREFS_COLUMNS: tuple[str, ...] = (S.QUERY_ID, JG, JSG, S.DOC_ID, REL_LEVEL)

#: The ``all_prefs`` measures, in trec_eval's print order (its ``measures.c`` table order).
PREFS_MEASURES: tuple[str, ...] = (
    "prefs_num_prefs_poss",
    "prefs_num_prefs_ful",
    "prefs_num_prefs_ful_ret",
    "prefs_simp",
    "prefs_pair",
    "prefs_avgjg",
    "prefs_avgjg_Rnonrel",
    "prefs_simp_ret",
    "prefs_pair_ret",
    "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret",
    "prefs_simp_imp",
    "prefs_pair_imp",
    "prefs_avgjg_imp",
)
#: Counts: printed as integers by trec_eval and summed (not averaged) over queries.
PREFS_COUNTS: frozenset[str] = frozenset(PREFS_MEASURES[:3])
#: trec_eval's nicknames (their ``runid`` and ``num_q`` print only in the summary: left out).
PREFS_NICKNAMES: dict[str, tuple[str, ...]] = {
    "all_prefs": PREFS_MEASURES,
    "prefs": PREFS_MEASURES[:6],
}

_PREFS_LAYOUT = "query_id jg jsg doc_id rel_level"
_QRELS_LAYOUT = "query_id iteration doc_id relevance"

# internal columns
_A, _B = "__a", "__b"  # preferred / less preferred document
_IA, _IB = "__ia", "__ib"  # their docids (positions, see _docids)
_LA, _LB = "__la", "__lb"
_DOCID, _NJR = "__docid", "__njr"
_EC = "__ec"  # judgment group with a single subgroup (trec_eval's equivalence classes)
_GD, _SG, _ROW = (
    "__gd",
    "__sg",
    "__row",
)  # integer ids of (query, group, document) / (query, group, subgroup)


class PreferenceError(IrevalError):
    """The preferences of one judgment group contradict each other, as trec_eval aborts on."""


# --------------------------------------------------------------------------- reading


def read_prefs(source: Any) -> pl.DataFrame:
    """Read a TREC preferences file (trec_eval ``-R prefs``) into a validated frame.

    Parameters
    ----------
    source
        A path (text ``query_id jg jsg doc_id rel_level``, one preference line each,
        optionally ``.gz``), a glob, a list of paths (concatenated), or a frame (Polars,
        pandas, pyarrow) with those five columns. Lines starting with ``#`` and blank
        lines are skipped (as trec_eval 10; 9.x rejects them).

    Returns
    -------
    polars.DataFrame
        ``query_id, jg, jsg, doc_id`` (String) and ``rel_level`` (Float64).

    Raises
    ------
    FormatError
        A line does not have exactly five fields, or its level is not a finite number
        (file and line named).
    DuplicateError
        A document appears twice in one subgroup (trec_eval would count it twice).
    EmptyInputError
        The input holds no preference line, or one of several files holds none.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_ireval.trec_eval.prefs import read_prefs
    >>> read_prefs(pl.DataFrame({"query_id": ["q1", "q1"], "jg": ["0", "0"],
    ...                          "jsg": ["0", "0"], "doc_id": ["a", "b"],
    ...                          "rel_level": [1, 0]}))
    shape: (2, 5)
    ┌──────────┬─────┬─────┬────────┬───────────┐
    │ query_id ┆ jg  ┆ jsg ┆ doc_id ┆ rel_level │
    │ ---      ┆ --- ┆ --- ┆ ---    ┆ ---       │
    │ str      ┆ str ┆ str ┆ str    ┆ f64       │
    ╞══════════╪═════╪═════╪════════╪═══════════╡
    │ q1       ┆ 0   ┆ 0   ┆ a      ┆ 1.0       │
    │ q1       ┆ 0   ┆ 0   ┆ b      ┆ 0.0       │
    └──────────┴─────┴─────┴────────┴───────────┘
    """
    paths = expand_paths(source)
    if paths is None:
        return _validate_prefs(_frame(source, "prefs"), "<input>")
    frames = [
        read_fields(p, [S.QUERY_ID, JG, JSG, S.DOC_ID, "__level"], _PREFS_LAYOUT)
        .pipe(_number_column, p, "__level", REL_LEVEL, "fifth")
        .select(*PREFS_COLUMNS, V.LINE, V.FILE)
        for p in paths
    ]
    _check_none_empty(paths, frames, "preferences")
    return _validate_prefs(pl.concat(frames), paths_label(paths, "preference files"))


def read_qrels_prefs(source: Any) -> pl.DataFrame:
    """Read ordinary qrels as preferences, as trec_eval ``-R qrels_prefs`` does.

    Each line ``query_id iteration doc_id relevance`` becomes a preference line whose
    judgment group is the **second column** (the one :func:`~polars_ireval.read_qrels`
    drops) and whose subgroup is ``"0"``; see :func:`prefs_from_qrels`.

    Parameters
    ----------
    source
        A path (plain or ``.gz``; ``#`` lines skipped), a glob, a list of paths, or a frame
        accepted by :func:`prefs_from_qrels`.

    Returns
    -------
    polars.DataFrame
        The preferences frame of :func:`read_prefs`.

    Raises
    ------
    FormatError
        A line does not have exactly four fields or its grade is not a number.
    DuplicateError
        A document is judged twice in one (query, iteration).
    EmptyInputError
        The input holds no judgment, or one of several files holds none.

    Examples
    --------
    >>> import polars_ireval as ir
    >>> from polars_ireval.trec_eval.prefs import read_qrels_prefs
    >>> read_qrels_prefs(ir.example_path("qrels.txt")).columns
    ['query_id', 'jg', 'jsg', 'doc_id', 'rel_level']
    """
    paths = expand_paths(source)
    if paths is None:
        return prefs_from_qrels(_frame(source, "qrels"))
    frames = [
        read_fields(p, [S.QUERY_ID, JG, S.DOC_ID, "__level"], _QRELS_LAYOUT)
        .pipe(_number_column, p, "__level", REL_LEVEL, "fourth")
        .select(S.QUERY_ID, JG, pl.lit("0").alias(JSG), S.DOC_ID, REL_LEVEL, V.LINE, V.FILE)
        for p in paths
    ]
    _check_none_empty(paths, frames, "qrels")
    return _validate_prefs(pl.concat(frames), paths_label(paths, "qrels files"), kind="qrels")


def prefs_from_qrels(qrels: pl.DataFrame) -> pl.DataFrame:
    """Turn qrels into preferences (trec_eval ``-R qrels_prefs``).

    Every (query, judgment group) becomes one group with a single subgroup ``"0"``, so each
    document is preferred to every document with a lower grade: with binary qrels, every
    relevant document to every judged non-relevant one. A negative grade is one more level,
    below 0 (and counts as non-relevant in ``prefs_avgjg_Rnonrel``).

    Parameters
    ----------
    qrels
        ``query_id, doc_id, relevance`` and optionally ``jg`` (the qrels' second column, as
        :func:`read_qrels_prefs` keeps it). Without ``jg`` all lines of a query form one
        group, which is what trec_eval does when the second column is constant (``0``).

    Returns
    -------
    polars.DataFrame
        ``query_id, jg, jsg, doc_id, rel_level``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_ireval.trec_eval.prefs import prefs_from_qrels
    >>> prefs_from_qrels(pl.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"],
    ...                                "relevance": [2, 0]}))
    shape: (2, 5)
    ┌──────────┬─────┬─────┬────────┬───────────┐
    │ query_id ┆ jg  ┆ jsg ┆ doc_id ┆ rel_level │
    │ ---      ┆ --- ┆ --- ┆ ---    ┆ ---       │
    │ str      ┆ str ┆ str ┆ str    ┆ f64       │
    ╞══════════╪═════╪═════╪════════╪═══════════╡
    │ 1        ┆ 0   ┆ 0   ┆ a      ┆ 2.0       │
    │ 1        ┆ 0   ┆ 0   ┆ b      ┆ 0.0       │
    └──────────┴─────┴─────┴────────┴───────────┘
    """
    frame = V.rename_aliases(_frame(qrels, "qrels"))
    V.require(frame, (S.QUERY_ID, S.DOC_ID, S.RELEVANCE), "<input>", "qrels")
    group = V.id_column(frame, JG, "<input>") if JG in frame.columns else pl.lit("0")
    frame = frame.with_columns(
        group.alias(JG),
        pl.lit("0").alias(JSG),
        pl.col(S.RELEVANCE).alias(REL_LEVEL),
    )
    return _validate_prefs(frame, "<input>", kind="qrels")


# --------------------------------------------------------------------------- evaluation


def evaluate_prefs(
    run: Any,
    prefs: Any,
    measures: str | Iterable[str] | None = None,
    *,
    per_query: bool = False,
) -> Any:
    """Evaluate runs against preferences: trec_eval's ``all_prefs`` measures.

    Parameters
    ----------
    run
        One run or many (a ``run_id`` column): a frame, a path, a glob, a list of paths.
        A LazyFrame gives a LazyFrame.
    prefs
        Preferences from :func:`read_prefs` or :func:`read_qrels_prefs` (or a path, read
        with :func:`read_prefs`). A LazyFrame is collected: the transitive closure of
        multi-subgroup judgment groups iterates until no new pair appears.
    measures
        Names among :data:`PREFS_MEASURES` or the nicknames ``"all_prefs"`` (all 14, the
        default) and ``"prefs"`` (trec_eval's official six), as a list or one
        whitespace-separated string. The output lists them in trec_eval's print order.
    per_query
        One row per query (with ``query_id``) instead of the aggregate per run.

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        ``[run_id,] [query_id,] measure, value``, queries in string order. The aggregate
        sums the three ``prefs_num_prefs_*`` counts and averages every other measure over
        the queries present in both the run and the preferences (others are skipped, as
        trec_eval 9 does).

    Raises
    ------
    PreferenceError
        The preferences of a multi-subgroup judgment group contradict each other, or a
        document is non-relevant (0) in one subgroup and relevant (> 0) in another.
    UnknownMeasureError
        A measure name is not a prefs measure.

    Examples
    --------
    Three documents, one judgment group with levels a=2, b=1, c=0 (so a>b, a>c, b>c). The
    run ranks b above a and misses c: a>b fails, a>c and b>c are fulfilled (implied).

    >>> import polars as pl
    >>> from polars_ireval.trec_eval.prefs import evaluate_prefs
    >>> prefs = pl.DataFrame({"query_id": ["q"] * 3, "jg": ["0"] * 3, "jsg": ["0"] * 3,
    ...                       "doc_id": ["a", "b", "c"], "rel_level": [2.0, 1.0, 0.0]})
    >>> run = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["b", "a"], "score": [3.0, 2.0]})
    >>> evaluate_prefs(run, prefs, ["prefs_simp", "prefs_num_prefs_ful", "prefs_simp_ret"])
    shape: (3, 2)
    ┌─────────────────────┬──────────┐
    │ measure             ┆ value    │
    │ ---                 ┆ ---      │
    │ str                 ┆ f64      │
    ╞═════════════════════╪══════════╡
    │ prefs_num_prefs_ful ┆ 2.0      │
    │ prefs_simp          ┆ 0.666667 │
    │ prefs_simp_ret      ┆ 0.0      │
    └─────────────────────┴──────────┘
    """
    names = select_measures(measures, PREFS_MEASURES, PREFS_NICKNAMES)
    lazy = isinstance(run, pl.LazyFrame) or isinstance(prefs, pl.LazyFrame)
    run_lf = intake_run(run).lazy()
    keys = group_keys(run_lf)
    prefs_df = _as_prefs(prefs)
    if not lazy:
        warn_coverage(run_lf, prefs_df.lazy(), keys, "preferences")
    wide = _prefs_per_query(run_lf, prefs_df, keys)
    out = to_long(wide, keys, names, per_query=per_query, sums=PREFS_COUNTS)
    return out if lazy else out.collect()


def _prefs_per_query(run: pl.LazyFrame, prefs: pl.DataFrame, keys: list[str]) -> pl.LazyFrame:
    """One row per evaluated ``[run_id,] query_id`` with the 14 measures as columns."""
    jg_keys = [*keys, JG]
    run_keys = [k for k in keys if k == S.RUN_ID]
    enc = _encode(prefs)
    pairs = _preference_pairs(enc).lazy()
    evaluated = (
        run.select(keys).unique().join(prefs.lazy().select(S.QUERY_ID), on=S.QUERY_ID, how="semi")
    )
    docs = _group_documents(run, enc, evaluated, keys)

    # Every preference with the docids of its two documents. Docids are positions in the
    # ranking (retrieved judged documents first), so "a before b" is ia < ib and "retrieved"
    # is docid < njr. A pair of a judgment group is listed once (trec_eval's 0/1 matrix).
    # The joins use the integer document-in-group id (__gd), which also fixes query and group.
    side = docs.select(*jg_keys, _GD, _DOCID, _NJR, _ROW, _EC, "__L", "__drop")
    pr = (
        pairs.join(
            side.rename({_GD: _A, _DOCID: _IA, _ROW: "__row_a", "__drop": "__drop_a"}).drop("__L"),
            on=_A,
        )
        .join(
            side.select(
                *run_keys,
                pl.col(_GD).alias(_B),
                pl.col(_DOCID).alias(_IB),
                pl.col(_ROW).alias("__row_b"),
                pl.col("__L").alias("__L_b"),
                pl.col("__drop").alias("__drop_b"),
            ),
            on=[*run_keys, _B],
        )
        .with_columns(pl.col(_IA, _IB, _NJR).cast(pl.Int64))
    )
    ia, ib, njr = pl.col(_IA), pl.col(_IB), pl.col(_NJR)
    a_ret, b_ret = ia < njr, ib < njr
    before = ia < ib
    ful_ret = a_ret & b_ret & before
    fail_ret = a_ret & b_ret & ~before
    ful_imp = a_ret & ~b_ret
    fail_imp = ~a_ret & b_ret
    notoccur = ~a_ret & ~b_ret
    ec = pl.col(_EC)
    kept = ~pl.col("__drop_a") & ~pl.col("__drop_b")
    # Rnonrel recount, pairs part (the other part is _lowest_class_pairs): for a single
    # subgroup group, the pairs whose less preferred document is not in the lowest class;
    # for a multi-subgroup group, the pairs whose documents both survive the cut.
    recount = pl.when(ec).then(~pl.col("__L_b")).otherwise(kept)

    def count(cond: pl.Expr, name: str) -> pl.Expr:
        return cond.sum().cast(pl.Int64).alias(name)

    per_jg_pairs = pr.group_by(jg_keys).agg(
        count(ful_ret, "F_ret"),
        count(ful_ret | fail_ret, "P_ret"),
        count(ful_imp, "F_imp"),
        count(ful_imp | fail_imp, "P_imp"),
        count(notoccur, "NO"),
        count(recount & a_ret & before, "rn_ful"),
        count(recount, "rn_poss"),
        count(recount & a_ret & b_ret & before, "rnr_ful"),
        count(recount & a_ret & b_ret, "rnr_poss"),
    )

    stats = docs.group_by(jg_keys).agg(
        pl.col(_EC).first(), *[pl.col(c).first() for c in ("R_all", "N_all", "R_ret", "N_ret")]
    )
    extra = _lowest_class_pairs(docs, jg_keys)
    per_jg = (
        stats.join(per_jg_pairs, on=jg_keys, how="left")
        .join(extra, on=jg_keys, how="left")
        .with_columns(pl.exclude(*jg_keys, _EC).fill_null(0).cast(pl.Int64))
        .with_columns(
            (pl.col("rn_ful") + pl.col("ex_ful")).alias("rn_ful"),
            (pl.col("rn_poss") + pl.col("ex_poss")).alias("rn_poss"),
            (pl.col("rnr_ful") + pl.col("exr_ful")).alias("rnr_ful"),
            (pl.col("rnr_poss") + pl.col("exr_poss")).alias("rnr_poss"),
        )
    )
    per_q = per_jg.group_by(keys).agg(_jg_measures())
    pair_q = _pair_measures(pr, keys)
    return (
        evaluated.join(per_q, on=keys, how="left")
        .join(pair_q, on=keys, how="left")
        .with_columns(pl.col("prefs_pair", "prefs_pair_ret", "prefs_pair_imp").fill_null(0.0))
        .select(*keys, *PREFS_MEASURES)
    )


def _encode(prefs: pl.DataFrame) -> pl.DataFrame:
    """The preferences with integer ids, so that the large joins use one integer key.

    Adds ``__gd`` (one id per query, judgment group and document), ``__sg`` (one per query,
    group and subgroup) and ``__ec`` (true when the group has a single subgroup: trec_eval's
    equivalence-class representation).
    """
    group = [S.QUERY_ID, JG]
    ec = prefs.group_by(group).agg((pl.col(JSG).n_unique() == 1).alias(_EC))
    gd = prefs.select(*group, S.DOC_ID).unique().with_row_index(_GD)
    sg = prefs.select(*group, JSG).unique().with_row_index(_SG)
    return prefs.join(gd, on=[*group, S.DOC_ID]).join(sg, on=[*group, JSG]).join(ec, on=group)


def _preference_pairs(enc: pl.DataFrame) -> pl.DataFrame:
    """Every preference ``(__a, __b)`` (``__gd`` ids): a preferred to b, once per group.

    Within a subgroup, every document is preferred to every document with a lower level. A
    group with one subgroup is a complete order with ties (trec_eval's equivalence classes).
    A group with several subgroups is closed transitively (a>b and b>c give a>c) by joining
    the pairs with themselves until no new pair appears: a loop over closure rounds (each
    round doubles the path length covered), not over queries or documents.
    """
    left = enc.select(_SG, _EC, pl.col(_GD).alias(_A), pl.col(REL_LEVEL).alias(_LA))
    right = enc.select(_SG, pl.col(_GD).alias(_B), pl.col(REL_LEVEL).alias(_LB))
    direct = left.lazy().join(right.lazy(), on=_SG).filter(pl.col(_LA) > pl.col(_LB))
    single = direct.filter(pl.col(_EC)).select(_A, _B)
    multi = direct.filter(~pl.col(_EC)).select(_A, _B).unique().collect()
    if not enc[_EC].all():
        _check_levels(enc)
    if multi.height:
        multi = _transitive_closure(multi, enc)
    return pl.concat([single.collect(), multi])


def _transitive_closure(pairs: pl.DataFrame, enc: pl.DataFrame) -> pl.DataFrame:
    """Close ``pairs`` under a>b, b>c => a>c; a document preferred to itself is an error."""
    while True:
        step = pairs.join(
            pairs.select(pl.col(_A).alias(_B), pl.col(_B).alias("__c")), on=_B
        ).select(_A, pl.col("__c").alias(_B))
        grown = pl.concat([pairs, step]).unique()
        if grown.height == pairs.height:
            break
        pairs = grown
    loops = pairs.filter(pl.col(_A) == pl.col(_B))
    if loops.height:
        names = enc.select(_GD, S.QUERY_ID, JG, S.DOC_ID).unique(_GD)
        row = (
            loops.join(names, left_on=_A, right_on=_GD)
            .sort(S.QUERY_ID, JG, S.DOC_ID)
            .row(0, named=True)
        )
        raise PreferenceError(
            f"query {row[S.QUERY_ID]!r}, judgment group {row[JG]!r}: the subgroups contradict "
            f"each other (document {row[S.DOC_ID]!r} ends up preferred to itself through "
            "them); trec_eval aborts on this too. Split the group or fix the levels"
        )
    return pairs


def _check_levels(enc: pl.DataFrame) -> None:
    """A document cannot be non-relevant (0) in one subgroup and relevant in another."""
    level = pl.col(REL_LEVEL)
    mixed = (
        enc.filter(~pl.col(_EC))
        .group_by(S.QUERY_ID, JG, S.DOC_ID)
        .agg((level == 0).any().alias("zero"), (level > 0).any().alias("pos"))
        .filter(pl.col("zero") & pl.col("pos"))
        .sort(S.QUERY_ID, JG, S.DOC_ID)
    )
    if mixed.height:
        row = mixed.row(0, named=True)
        raise PreferenceError(
            f"query {row[S.QUERY_ID]!r}, judgment group {row[JG]!r}: document "
            f"{row[S.DOC_ID]!r} has rel_level 0 (non-relevant) in one subgroup and > 0 in "
            "another; trec_eval rejects this too. Give it consistent levels"
        )


def _group_documents(
    run: pl.LazyFrame, enc: pl.DataFrame, evaluated: pl.LazyFrame, keys: list[str]
) -> pl.LazyFrame:
    """One row per (run, query, judgment group, document) with its docid and Rnonrel flags.

    Docids number the query's judged documents (over all groups): the retrieved ones in
    ranking order (score descending, ties by doc_id **ascending**: trec_eval's prefs code
    differs from its main ranking here), then the unretrieved ones by doc_id. Unjudged
    retrieved documents play no part.
    """
    jg_keys = [*keys, JG]
    judged = enc.lazy().select(S.QUERY_ID, S.DOC_ID).unique()
    ids = (
        evaluated.join(judged, on=S.QUERY_ID)
        .join(run.select(*keys, S.DOC_ID, S.SCORE), on=[*keys, S.DOC_ID], how="left")
        .sort(
            [*keys, S.SCORE, S.DOC_ID],
            descending=[*[False] * len(keys), True, False],
            nulls_last=True,
        )
        .with_columns(
            pl.int_range(pl.len(), dtype=pl.Int64).over(keys).alias(_DOCID),
            pl.col(S.SCORE).is_not_null().sum().cast(pl.Int64).over(keys).alias(_NJR),
        )
        .with_row_index(_ROW)  # rows of one ranking are in docid order
        .select(*keys, S.DOC_ID, _DOCID, _NJR, _ROW)
    )
    # A document's level in its group: the only one for a single subgroup; for several
    # subgroups, the level in the last subgroup (string order), as trec_eval's rel_array.
    levels = (
        enc.lazy()
        .group_by(S.QUERY_ID, JG, S.DOC_ID)
        .agg(pl.col(REL_LEVEL).sort_by(JSG).last(), pl.col(_GD, _EC).first())
    )
    level, ec = pl.col(REL_LEVEL), pl.col(_EC)
    docid, njr = pl.col(_DOCID), pl.col(_NJR)
    ret = docid < njr
    rel = level > 0
    # Non-relevant: level <= 0 for equivalence classes, exactly 0 for several subgroups
    # (a negative level is then neither relevant nor non-relevant).
    nonrel = pl.when(ec).then(level <= 0).otherwise(level == 0)
    return (
        levels.join(ids, on=[S.QUERY_ID, S.DOC_ID])
        .with_columns(
            rel.alias("__rel"),
            nonrel.alias("__nonrel"),
            (ec & (level == level.min().over(jg_keys))).alias("__L"),
        )
        .with_columns(
            *[
                cond.sum().cast(pl.Int64).over(jg_keys).alias(name)
                for name, cond in (
                    ("R_all", pl.col("__rel")),
                    ("N_all", pl.col("__nonrel")),
                    ("R_ret", pl.col("__rel") & ret),
                    ("N_ret", pl.col("__nonrel") & ret),
                )
            ],
            # position among the group's non-relevant documents / its lowest class, by docid
            (docid.rank("ordinal").over([*jg_keys, "__nonrel"]) - 1).alias("__nonrel_ord"),
            (docid.rank("ordinal").over([*jg_keys, "__L"]) - 1).alias("__L_ord"),
        )
        .with_columns(
            # Rnonrel cut for several subgroups: non-relevant documents after the first R_all
            # (in docid order) are dropped; the _ret variant uses the same R_all threshold
            # (trec_eval 9.0.8 behaviour reproduced: not R_ret).
            (~ec & pl.col("__nonrel") & (pl.col("__nonrel_ord") >= pl.col("R_all"))).alias(
                "__drop"
            ),
        )
    )


def _lowest_class_pairs(docs: pl.LazyFrame, jg_keys: list[str]) -> pl.LazyFrame:
    """The Rnonrel recount of single-subgroup groups, second part: every document × L'.

    When a group has fewer relevant (R) than non-relevant documents, trec_eval recounts it
    with its lowest class L cut to its first R documents L' (docid order), pairing every
    document of **every** class with L'. That includes L itself, so non-relevant documents
    are paired with each other and with themselves (a pair (d, d) is never fulfilled):
    trec_eval 9.0.8 behaviour reproduced, required to match its output. If L holds fewer
    than R documents (undefined behaviour in the C code, which reads past the class), L'
    is all of L. The ``_ret`` variant keeps retrieved documents only and cuts L to R_ret.
    """
    docid, njr = pl.col(_DOCID), pl.col(_NJR)
    ret = docid < njr
    base = docs.filter(pl.col(_EC))
    cut = base.filter(pl.col("__L"))
    cut_all = cut.filter(
        (pl.col("R_all") < pl.col("N_all")) & (pl.col("__L_ord") < pl.col("R_all"))
    )
    cut_ret = cut.filter(
        (pl.col("R_ret") < pl.col("N_ret")) & ret & (pl.col("__L_ord") < pl.col("R_ret"))
    )
    a = base.select(*jg_keys, pl.col(_DOCID).alias(_IA), _NJR)
    ia, ib = pl.col(_IA), pl.col(_IB)
    every = (
        a.join(cut_all.select(*jg_keys, pl.col(_DOCID).alias(_IB)), on=jg_keys)
        .group_by(jg_keys)
        .agg(
            ((ia < ib) & (ia < pl.col(_NJR))).sum().cast(pl.Int64).alias("ex_ful"),
            pl.len().cast(pl.Int64).alias("ex_poss"),
        )
    )
    retrieved = (
        a.filter(ia < pl.col(_NJR))
        .join(cut_ret.select(*jg_keys, pl.col(_DOCID).alias(_IB)), on=jg_keys)
        .group_by(jg_keys)
        .agg(
            (ia < ib).sum().cast(pl.Int64).alias("exr_ful"),
            pl.len().cast(pl.Int64).alias("exr_poss"),
        )
    )
    return every.join(retrieved, on=jg_keys, how="full", coalesce=True)


def _ratio(num: pl.Expr, den: pl.Expr) -> pl.Expr:
    """num / den, 0 when den is 0 (trec_eval leaves the measure at its initial 0)."""
    return pl.when(den > 0).then(num / den).otherwise(0.0)


def _jg_measures() -> list[pl.Expr]:
    """Per-query aggregations over the judgment groups of the query."""
    f_ret, p_ret = pl.col("F_ret"), pl.col("P_ret")
    f_all = f_ret + pl.col("F_imp")
    p_imp = p_ret + pl.col("P_imp")
    p_all = p_imp + pl.col("NO")

    def avgjg(ful: pl.Expr, poss: pl.Expr) -> pl.Expr:
        total = _ratio(ful, poss).sum()
        return pl.when(total > 0).then(total / pl.len()).otherwise(0.0)

    r_all, n_all = pl.col("R_all"), pl.col("N_all")
    r_ret, n_ret = pl.col("R_ret"), pl.col("N_ret")
    # Rnonrel: act as if each group had as many non-relevant documents as relevant ones.
    # With R >= N the counts are padded; the _ret variant pads its denominator with R_all,
    # not R_ret (trec_eval 9.0.8 behaviour reproduced). With R < N the group is recounted.
    # The division is unguarded, so 0/0 gives NaN (Polars float division, as C's).
    s_all = (
        pl.when(r_all >= n_all)
        .then((f_all + r_ret * (r_all - n_all)) / (p_all + r_all * (r_all - n_all)))
        .otherwise(pl.col("rn_ful") / pl.col("rn_poss"))
    )
    s_ret = (
        pl.when(r_ret >= n_ret)
        .then((f_ret + r_ret * (r_ret - n_ret)) / (p_ret + r_all * (r_ret - n_ret)))
        .otherwise(pl.col("rnr_ful") / pl.col("rnr_poss"))
    )

    def rnonrel(s: pl.Expr) -> pl.Expr:
        # One NaN group poisons the sum and "NaN > 0" is false in C, so the query scores 0
        # (trec_eval 9.0.8 behaviour reproduced). Polars orders NaN above every number, so
        # the NaN test is explicit.
        total = s.cast(pl.Float64).sum()
        return pl.when(s.is_nan().any() | (total <= 0)).then(0.0).otherwise(total / pl.len())

    return [
        p_all.sum().alias("prefs_num_prefs_poss"),
        f_all.sum().alias("prefs_num_prefs_ful"),
        f_ret.sum().alias("prefs_num_prefs_ful_ret"),
        _ratio(f_all.sum(), p_all.sum()).alias("prefs_simp"),
        avgjg(f_all, p_all).alias("prefs_avgjg"),
        rnonrel(s_all).alias("prefs_avgjg_Rnonrel"),
        _ratio(f_ret.sum(), p_ret.sum()).alias("prefs_simp_ret"),
        avgjg(f_ret, p_ret).alias("prefs_avgjg_ret"),
        rnonrel(s_ret).alias("prefs_avgjg_Rnonrel_ret"),
        _ratio(f_all.sum(), p_imp.sum()).alias("prefs_simp_imp"),
        avgjg(f_all, p_imp).alias("prefs_avgjg_imp"),
    ]


def _pair_measures(pr: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """prefs_pair*: mean over document pairs of the share of groups the ranking agrees with.

    For an unordered pair {i < j} (docids), C[i][j] groups prefer i (the one ranked higher)
    and C[j][i] prefer j; the pair contributes C[i][j] / (C[i][j] + C[j][i]) when i is
    retrieved, 0 when neither is. Pairs are grouped on one integer key built from the two
    documents' row numbers (unique across runs and queries).
    """
    ia, ib, njr = pl.col(_IA), pl.col(_IB), pl.col(_NJR)
    row_a, row_b = pl.col("__row_a").cast(pl.UInt64), pl.col("__row_b").cast(pl.UInt64)
    key = pl.min_horizontal(row_a, row_b) * (1 << 32) + pl.max_horizontal(row_a, row_b)
    lo, hi = pl.col("__lo"), pl.col("__hi")
    pairs = (
        pr.select(
            *keys,
            key.alias("__pair"),
            pl.min_horizontal(ia, ib).alias("__lo"),
            pl.max_horizontal(ia, ib).alias("__hi"),
            njr,
            (ia < ib).alias("__fwd"),
        )
        # plain column aggregations only: they take Polars' fast group-by path
        .group_by("__pair")
        .agg(
            pl.col(*keys, "__lo", "__hi", _NJR).first(),
            pl.col("__fwd").sum(),
            pl.len().alias("__n"),
        )
        .with_columns(
            pl.when(lo < njr).then(pl.col("__fwd") / pl.col("__n")).otherwise(0.0).alias("__share")
        )
    )
    share = pl.col("__share")
    one_ret, both_ret = lo < njr, hi < njr
    return pairs.group_by(keys).agg(
        _ratio(share.sum(), pl.len()).alias("prefs_pair"),
        _ratio(share.filter(both_ret).sum(), both_ret.sum()).alias("prefs_pair_ret"),
        _ratio(share.filter(one_ret).sum(), one_ret.sum()).alias("prefs_pair_imp"),
    )


# --------------------------------------------------------------------------- shared helpers


def select_measures(
    measures: str | Iterable[str] | None,
    known: Sequence[str],
    nicknames: Mapping[str, Sequence[str]],
) -> list[str]:
    """Expand names and nicknames into the requested measures, in ``known`` (print) order.

    Examples
    --------
    >>> from polars_ireval.trec_eval.prefs import PREFS_MEASURES, PREFS_NICKNAMES, select_measures
    >>> select_measures("prefs_pair prefs_num_prefs_ful", PREFS_MEASURES, PREFS_NICKNAMES)
    ['prefs_num_prefs_ful', 'prefs_pair']
    """
    if measures is None:
        return list(known)
    items = [measures] if isinstance(measures, str) else list(measures)
    wanted: set[str] = set()
    for item in items:
        if not isinstance(item, str):
            raise MeasureSyntaxError(f"{item!r}: a measure must be a string such as {known[0]!r}")
        for token in item.split():
            if token in nicknames:
                wanted.update(nicknames[token])
            elif token in known:
                wanted.add(token)
            else:
                close = difflib.get_close_matches(token, [*known, *nicknames], n=3, cutoff=0.6)
                hint = f"did you mean {' or '.join(map(repr, close))}? " if close else ""
                raise UnknownMeasureError(
                    f"unknown measure {token!r}; {hint}the measures here are "
                    f"{', '.join(known)} and the nicknames {', '.join(nicknames)}"
                )
    if not wanted:
        raise MeasureSyntaxError(f"no measure given; name at least one, e.g. {known[0]!r}")
    return [m for m in known if m in wanted]


def to_long(
    wide: pl.LazyFrame,
    keys: list[str],
    names: Sequence[str],
    *,
    per_query: bool,
    sums: frozenset[str] = frozenset(),
) -> pl.LazyFrame:
    """Per-query columns → ``[run_id,] [query_id,] measure, value``, like ``evaluate``
    (:func:`polars_ireval.results.long_frame`): the aggregate is the sum for ``sums`` and
    the mean over queries otherwise."""
    how: dict[str, Aggregate] = {n: "sum" if n in sums else "mean" for n in names}
    return long_frame(wide.select(*keys, *names), how, per_query=per_query)


def warn_coverage(run: pl.LazyFrame, judged: pl.LazyFrame, keys: list[str], what: str) -> None:
    """Warn about queries evaluated by neither side (trec_eval 9 skips them silently)."""
    present = run.select(keys).unique().collect()
    queries = judged.select(S.QUERY_ID).unique().collect()
    unjudged = present.join(queries, on=S.QUERY_ID, how="anti")
    unranked = queries.join(present, on=S.QUERY_ID, how="anti")
    parts = []
    if unjudged.height:
        sample = ", ".join(sorted(unjudged[S.QUERY_ID].unique())[:5])
        parts.append(
            f"{unjudged.height} ranked (run, query) pair(s) have no {what} and are not "
            f"evaluated (e.g. queries {sample})"
        )
    if unranked.height:
        sample = ", ".join(sorted(unranked[S.QUERY_ID])[:5])
        parts.append(f"{unranked.height} quer(ies) of the {what} are not ranked (e.g. {sample})")
    if parts:
        warnings.warn("; ".join(parts) + ".", CoverageWarning, stacklevel=3)


def _number_column(
    frame: pl.DataFrame, path: str, raw: str, name: str, position: str
) -> pl.DataFrame:
    value = pl.col(raw).cast(pl.Float64, strict=False)
    bad = frame.filter(value.is_null() | ~value.is_finite())
    if bad.height:
        row = bad.row(0, named=True)
        raise FormatError(
            path,
            row[V.LINE],
            f"level {row[raw]!r} of document {row[S.DOC_ID]!r} is not a finite number; the "
            f"{position} field must be a number such as 2, 0 or 0.5",
        )
    return frame.with_columns(value.alias(name))


def _check_none_empty(paths: list[str], frames: list[pl.DataFrame], kind: str) -> None:
    """An empty file among several is an error, as for :func:`~polars_ireval.read_qrels`:
    its lines would vanish unnoticed (a single empty file is one, in ``_validate_prefs``)."""
    if len(paths) > 1:
        for path, frame in zip(paths, frames, strict=True):
            if frame.height == 0:
                raise EmptyInputError(
                    f"{path}: the {kind} hold no line; check the file, or leave it out"
                )


def _frame(source: Any, kind: str) -> pl.DataFrame:
    """An in-memory prefs (or qrels, for :func:`prefs_from_qrels`) frame; not a dict."""
    columns = PREFS_COLUMNS if kind == "prefs" else (S.QUERY_ID, S.DOC_ID, S.RELEVANCE)
    return frame_from_object(source, kind, columns=columns)


def _as_prefs(prefs: Any) -> pl.DataFrame:
    if isinstance(prefs, pl.LazyFrame):
        prefs = prefs.collect()
    return read_prefs(prefs)


def _validate_prefs(frame: pl.DataFrame, source: str, kind: str = "prefs") -> pl.DataFrame:
    """Check a preferences frame and return it as ``query_id, jg, jsg, doc_id, rel_level``."""
    frame = V.rename_aliases(frame)
    V.require(frame, PREFS_COLUMNS, source, kind)
    ids = (S.QUERY_ID, JG, JSG, S.DOC_ID)
    dtype = frame.schema[REL_LEVEL]
    if not dtype.is_numeric():
        raise RelevanceError(
            f"{source}: column 'rel_level' has type {dtype}; levels must be numbers. "
            "Cast it, e.g. pl.col('rel_level').cast(pl.Float64)"
        )
    frame = frame.with_columns(
        *[V.id_column(frame, c, source) for c in ids], pl.col(REL_LEVEL).cast(pl.Float64)
    )
    if frame.height == 0:
        raise EmptyInputError(f"{source}: the {kind} hold no line; check the file and its path")
    V.check_nulls(frame, ids, source, kind)
    bad = frame.filter(pl.col(REL_LEVEL).is_null() | ~pl.col(REL_LEVEL).is_finite())
    if bad.height:
        row = bad.row(0, named=True)
        raise RelevanceError(
            f"{V.where(row, source)}: rel_level {row[REL_LEVEL]} of document "
            f"{row[S.DOC_ID]!r} is not a finite number; every line needs one"
        )
    dup = frame.filter(pl.struct(ids).is_duplicated())
    if dup.height:
        first = dup.row(0, named=True)
        same = dup.filter(*[pl.col(k) == first[k] for k in ids])
        places = ", ".join(V.where(r, source) for r in same.head(2).iter_rows(named=True))
        group = "judgment group" if kind == "prefs" else "query and iteration"
        raise DuplicateError(
            f"{source}: document {first[S.DOC_ID]!r} is listed {same.height} times in "
            f"query {first[S.QUERY_ID]!r}, judgment group {first[JG]!r}, subgroup "
            f"{first[JSG]!r} ({places}); trec_eval would count its preferences twice (or "
            f"fail if the levels differ). Keep one line per document and {group}"
        )
    return frame.select(PREFS_COLUMNS)
