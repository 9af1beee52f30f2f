"""Preference identification ratio (PIR): how often a metric names the result list a user
preferred (seed 001, Sirotkin's thesis, chapter 10).

A **session** shows one user two result lists for one query; the user says which list she
prefers. A metric scores both lists; the difference (preferred minus the other) *names*
the preferred list when it is above a threshold t, the other list when it is below -t, and
neither when ``|difference| <= t`` (a tie, counting one half). Over N sessions,

    PIR(t) = (#{d > t} + #{|d| <= t} / 2) / N,

a multiple of 1/(2N); 0.5 is the score of a metric that cannot tell any two lists apart
(the seed's baseline), 1 that of a metric agreeing with every user. Scores equal up to
rounding error (:data:`RELATIVE_TOLERANCE`, relative) are equal: two lists holding the
same fractional gains in another order tie under a metric without discount, as they do
in exact arithmetic.

Inputs (:func:`pir`): the lists as a run whose ``query_id`` is the session and whose
``run_id`` names the list (or a ``session`` column next to the ``query_id`` of the query
judged), graded judgments, and the preferences (:func:`read_preferences`: ``session
preferred [more columns]``). Every measure is evaluated at every cut-off in one
:func:`polars_ireval.evaluate` call; the PIR of every measure, cut-off and threshold is
then one Polars query. :func:`simulate_sessions` draws sessions from a stated user model
for tests and docs: it is a check of the machinery, not evidence about metrics.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping, Sequence, Sized
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import polars as pl

from polars_ireval._base import schema as S
from polars_ireval._base.options import check_persistence, check_positive_int
from polars_ireval._base.resources import require
from polars_ireval.engines.base import measures_estimate
from polars_ireval.errors import (
    DuplicateError,
    IrevalError,
    ParameterError,
    PreferenceError,
    SchemaError,
)
from polars_ireval.evaluate import evaluate
from polars_ireval.io.preferences import PREFERRED, SESSION, read_preferences
from polars_ireval.io.readers import read_qrels, read_run
from polars_ireval.io.tables import expand_paths
from polars_ireval.judge import Ties
from polars_ireval.parse import parse_measures
from polars_ireval.results import CoverageWarning

__all__ = ["PIR_COLUMNS", "Sessions", "pir", "read_preferences", "simulate_sessions"]

MEASURE, VALUE, CUTOFF = "measure", "value", "cutoff"
RULE, THRESHOLD = "rule", "threshold"
PIR, SESSIONS, AGREE, DISAGREE, TIED = "pir", "sessions", "agree", "disagree", "tied"

#: The columns of :func:`pir`'s frame (after the ``group_by`` column, when given).
PIR_COLUMNS: tuple[str, ...] = (
    MEASURE, CUTOFF, RULE, THRESHOLD, PIR, SESSIONS, AGREE, DISAGREE, TIED,
)  # fmt: skip

_AT, _ORDER, _DIFF, _TORDER = "\x00at", "\x00order", "\x00diff", "\x00torder"
_MINE, _OTHER, _TOL = "\x00mine", "\x00other", "\x00tol"
#: Two scores of a session closer than this times the larger of their magnitudes (or 1)
#: are equal: the same gains summed in another order differ in the last bits (gains 0.2,
#: 0.4... with no discount), and a difference of rounding error must not name a list.
RELATIVE_TOLERANCE = 1e-10
_SHOWN = 5  # ids named in an error message


def _some(ids: Sequence[Any]) -> str:
    shown = ", ".join(repr(str(i)) for i in list(ids)[:_SHOWN])
    more = len(ids) - _SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


# --------------------------------------------------------------------------- reading


def _lists(lists: Any) -> pl.DataFrame:
    """The lists as a frame ``run_id, query_id, doc_id, score [, session]``."""
    if isinstance(lists, pl.LazyFrame):
        lists = lists.collect()
    if not isinstance(lists, pl.DataFrame):
        if isinstance(lists, (str, Path)) and Path(lists).suffix.lower() in (
            ".parquet",
            ".arrow",
            ".ipc",
            ".feather",
        ):
            path = Path(lists)
            lists = pl.read_parquet(path) if path.suffix == ".parquet" else pl.read_ipc(path)
        else:  # TREC text: the tag names the list
            lists = read_run(lists, run_id="tag")
    need = [S.RUN_ID, S.QUERY_ID, S.DOC_ID, S.SCORE]
    absent = [c for c in need if c not in lists.columns]
    if absent:
        raise SchemaError(
            f"the lists lack the column(s) {absent} (they have {lists.columns}): give a run "
            "whose run_id names the list and whose query_id is the session (or a session "
            "column beside the query_id)"
        )
    return lists


def _preferences(preferences: Any, group_by: str | None) -> pl.DataFrame:
    if isinstance(preferences, pl.LazyFrame):
        preferences = preferences.collect()
    if not isinstance(preferences, pl.DataFrame):
        if expand_paths(preferences) is None:
            raise SchemaError(
                f"preferences: a frame (session, preferred) or files, not "
                f"{type(preferences).__name__}"
            )
        preferences = read_preferences(preferences)
    need = [SESSION, PREFERRED] + ([group_by] if group_by is not None else [])
    absent = [c for c in need if c not in preferences.columns]
    if absent:
        raise SchemaError(
            f"the preferences lack the column(s) {absent} (they have {preferences.columns})"
            + ("; group_by names a column of the preferences" if group_by in absent else "")
        )
    prefs = preferences.select(pl.col(c).cast(pl.String) for c in dict.fromkeys(need))
    empty = prefs.filter(pl.any_horizontal(pl.all().is_null()))
    if empty.height:
        raise PreferenceError(
            f"{empty.height} preference(s) with an empty field, e.g. {empty.row(0)}; every "
            "session needs the list preferred" + (f" and its {group_by}" if group_by else "")
        )
    twice = prefs.filter(pl.col(SESSION).is_duplicated())[SESSION].unique(maintain_order=True)
    if twice.len():
        raise DuplicateError(
            f"session(s) {_some(twice.to_list())} have more than one preference; a session "
            "states one"
        )
    return prefs


def _sessions(lists: pl.DataFrame, qrels: Any) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """(run, qrels, pairs): the run and qrels keyed by session (as ``query_id``), and each
    session's two lists (``query_id, run_id``)."""
    qrels = read_qrels(qrels)
    run = lists.with_columns(pl.col(S.RUN_ID, S.QUERY_ID, S.DOC_ID).cast(pl.String))
    if SESSION in run.columns:
        run = run.with_columns(pl.col(SESSION).cast(pl.String))
        pairs = run.select(SESSION, S.QUERY_ID).unique()
        split = pairs.filter(pl.col(SESSION).is_duplicated())[SESSION].unique().sort()
        if split.len():
            raise PreferenceError(
                f"session(s) {_some(split.to_list())} list documents for more than one "
                "query_id; a session shows two lists for one query"
            )
        qrels = pairs.join(qrels.with_columns(pl.col(S.QUERY_ID).cast(pl.String)), on=S.QUERY_ID)
        qrels = qrels.drop(S.QUERY_ID).rename({SESSION: S.QUERY_ID})
        run = run.drop(S.QUERY_ID).rename({SESSION: S.QUERY_ID})
    pairs = run.select(S.QUERY_ID, S.RUN_ID).unique().sort(S.QUERY_ID, S.RUN_ID)
    counts = pairs.group_by(S.QUERY_ID).len().filter(pl.col("len") != 2).sort(S.QUERY_ID)
    if counts.height:
        shown = ", ".join(f"{q!r} has {n}" for q, n in counts.head(_SHOWN).iter_rows())
        raise PreferenceError(
            f"{counts.height} session(s) with other than two lists ({shown}); a session "
            "compares exactly two result lists (run_id names the list)"
        )
    return run.select(S.RUN_ID, S.QUERY_ID, S.DOC_ID, S.SCORE), qrels, pairs


def _check_preferences(prefs: pl.DataFrame, pairs: pl.DataFrame) -> None:
    sessions = pairs[S.QUERY_ID].unique()
    unknown = prefs.filter(~pl.col(SESSION).is_in(sessions.implode()))[SESSION]
    if unknown.len():
        raise PreferenceError(
            f"{unknown.len()} preference(s) for session(s) with no lists: "
            f"{_some(unknown.to_list())}; the lists' query_id (or session column) names "
            "the sessions"
        )
    unstated = sessions.filter(~sessions.is_in(prefs[SESSION].implode())).sort()
    if unstated.len():
        raise PreferenceError(
            f"{unstated.len()} session(s) without a preference: {_some(unstated.to_list())}; "
            "state one or leave the session's lists out"
        )
    lists = pairs.group_by(S.QUERY_ID).agg(pl.col(S.RUN_ID).sort().alias("\x00lists"))
    bad = (
        prefs.join(lists, left_on=SESSION, right_on=S.QUERY_ID)
        .filter(~pl.col(PREFERRED).is_in(pl.col("\x00lists")))
        .sort(SESSION)
    )
    if bad.height:
        session, preferred, shown = bad.select(SESSION, PREFERRED, "\x00lists").row(0)
        raise PreferenceError(
            f"{bad.height} preference(s) name a list the session does not have, e.g. session "
            f"{session!r} prefers {preferred!r}, its lists are {shown}; preferred must be the "
            "run_id of one of the session's two lists"
        )


# --------------------------------------------------------------------------- parameters


def _measure(item: Any) -> str:
    """A measure string with a cutoff parameter and none given (``"nDCG"``, ``"P"``)."""
    if not isinstance(item, str):
        raise ParameterError(
            f"measures holds {item!r}: give measure strings such as 'nDCG' or 'P(rel=2)'"
        )
    text = item.strip()
    try:  # the string with a cutoff appended is one measure (ir_measures' grammar)
        probe = parse_measures(f"{text}@1")
    except IrevalError:
        probe = []
    if len(probe) == 1 and probe[0].defn.cutoff is not None:
        return text
    found = parse_measures(text)  # unknown names and bad syntax raise here
    if len(found) == 1 and found[0].defn.cutoff is not None:
        bare = found[0].canonical.rsplit("@", 1)[0]
        raise ParameterError(
            f"{text!r} already has a cutoff; pir evaluates every measure at each of "
            f"cutoffs=: pass it without, e.g. {bare!r}"
        )
    raise ParameterError(
        f"{text!r}: pir needs one measure with a cutoff parameter (nDCG, P, AP, ERR, RBP, "
        "GradedP, ...), to evaluate it at each of cutoffs="
    )


def check_cutoffs(cutoffs: int, measures: int = 1, lists: int = 0) -> None:
    """Raise :class:`~polars_ireval.errors.ResourceError` when evaluating ``measures``
    measures at ``cutoffs`` cut-offs over ``lists`` result lists (0: not yet known) needs
    more memory than the budget: every measure at every cut-off is one measure of one
    evaluation (:func:`polars_ireval.engines.base.measures_estimate`). Called before the
    cut-offs are listed (a range's length), and again when the sessions are read."""
    count = cutoffs * measures
    on = f" on {lists:,} lists" if lists else ""
    require(
        f"{measures} measure(s) at {cutoffs:,} cut-offs{on}",
        measures_estimate(count, lists, batch=count),
        how=f"{count:,} measures in one evaluation",
        fix="ask for fewer cut-offs (e.g. cutoffs=[1, 3, 5, 10, 20])",
    )


def _cutoffs(cutoffs: Any) -> list[int]:
    if isinstance(cutoffs, int) and not isinstance(cutoffs, bool):
        cutoffs = [cutoffs]
    if isinstance(cutoffs, Sized) and isinstance(cutoffs, Iterable):  # before listing it
        check_cutoffs(len(cutoffs))
    values = list(cutoffs) if isinstance(cutoffs, Iterable) else None
    if not values or any(not isinstance(k, int) or isinstance(k, bool) or k < 1 for k in values):
        raise ParameterError(f"cutoffs={cutoffs!r}: give positive integers, e.g. range(1, 11)")
    return sorted(set(values))


def _thresholds(threshold: Any) -> list[float | str]:
    items = (
        list(threshold)
        if isinstance(threshold, Sequence) and not isinstance(threshold, str)
        else [threshold]
    )
    out: list[float | str] = []
    for t in items:
        if t == "best":
            out.append("best")
        elif (
            isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t) and t >= 0
        ):
            out.append(float(t))
        else:
            raise ParameterError(
                f"threshold={t!r}: give 0, a non-negative number, 'best', or a list of them"
            )
    if not out:
        raise ParameterError("threshold=[]: give at least one threshold, e.g. 0 or 'best'")
    return list(dict.fromkeys(out))


# --------------------------------------------------------------------------- pir


def pir(
    lists: Any,
    qrels: Any,
    preferences: Any,
    measures: str | Sequence[str],
    *,
    cutoffs: int | Iterable[int] = range(1, 11),
    threshold: float | str | Sequence[float | str] = 0.0,
    group_by: str | None = None,
    relevance_level: int = 1,
    ties: Ties = "trec_eval",
) -> pl.DataFrame:
    """The preference identification ratio of each measure at each cut-off and threshold.

    For each session, each measure m and cut-off k, d = m@k(preferred list) − m@k(other
    list). At threshold t, ``agree`` counts the sessions with d > t, ``disagree`` those
    with d < −t and ``tied`` those with |d| <= t, and PIR = (agree + tied / 2) / N over
    the N sessions: a multiple of 1/(2N), 0.5 when the metric ties every session. The
    comparisons allow for rounding error: a difference within :data:`RELATIVE_TOLERANCE`
    times the larger score (or 1) of t counts as equal to it (the same gains summed in
    another order are equal).

    Parameters
    ----------
    lists
        The result lists: a run (frame or file) whose ``query_id`` is the session and
        whose ``run_id`` names the list (in a TREC run file, the tag column), each session
        with exactly two lists. With a ``session`` column, ``query_id`` is instead the
        query of the session, as the qrels name it (several sessions may share a query).
        Parquet and Arrow files are read as frames (keeping a ``session`` column).
    qrels
        Graded judgments (frame or file, as :func:`polars_ireval.read_qrels`), per
        session (or per query with a ``session`` column). A session none of whose
        documents is judged cannot be scored and raises :class:`PreferenceError`.
    preferences
        ``session, preferred`` (and the ``group_by`` column): a frame, or a file (a glob,
        a directory, a list of them) read by :func:`read_preferences`; ``preferred`` is the
        ``run_id`` of the preferred list.
    measures
        Measure strings with a cutoff parameter and no cutoff given, e.g.
        ``["nDCG(discount='log2')", "nDCG(discount='root')", "P"]``; each is evaluated at
        every cut-off (``f"{m}@{k}"``).
    cutoffs
        Positive integers (default 1..10).
    threshold
        0 (default), a non-negative number, ``"best"`` (the threshold giving the highest
        PIR, the smallest such one when several do, searched over 0 and every |d| of the
        measure and cut-off: PIR(t) only changes there), or a list of these: one row per
        threshold.
    group_by
        A column of the preferences (e.g. the query type): one PIR per group, each over
        its own sessions (seed 001's informational subset).
    relevance_level, ties
        As for :func:`polars_ireval.evaluate`.

    Returns
    -------
    polars.DataFrame
        ``[group_by,] measure, cutoff, rule, threshold, pir, sessions, agree, disagree,
        tied``: ``measure`` as given, ``rule`` ``"fixed"`` or ``"best"``, ``threshold``
        the one used (for ``"best"``, the one found). Rows by group, measure (in the order
        given), cut-off and threshold (in the order given).

    Raises
    ------
    PreferenceError
        A session with other than two lists, a preference naming a list the session does
        not have, a session without a preference (or a preference without lists), a
        session without judgments.
    SchemaError, DuplicateError, ParameterError
        A missing column, a session with two preferences, a bad measure, cut-off or
        threshold.
    ResourceError
        When the measures at every cut-off, evaluated at once, would exceed the memory
        budget (``IREVAL_MEMORY_LIMIT``, else half the memory available; see
        ``docs/resources.md``); a range of cut-offs is weighed before it is listed.

    Examples
    --------
    Two sessions: in s1 the preferred list A has a relevant document first, B second; in
    s2 the user preferred D, which holds the same relevant document at the same rank as C.
    P@1 names A in s1 and ties s2; P@2 ties both.

    >>> import polars as pl, polars_ireval as ir
    >>> lists = pl.DataFrame({
    ...     "query_id": ["s1"] * 4 + ["s2"] * 4,
    ...     "run_id": ["A", "A", "B", "B", "C", "C", "D", "D"],
    ...     "doc_id": ["r", "n", "n", "r", "r", "n", "r", "m"],
    ...     "score": [2.0, 1.0] * 4})
    >>> qrels = pl.DataFrame({"query_id": ["s1", "s1", "s2", "s2", "s2"],
    ...                       "doc_id": ["r", "n", "r", "n", "m"],
    ...                       "relevance": [1, 0, 1, 0, 0]})
    >>> prefs = pl.DataFrame({"session": ["s1", "s2"], "preferred": ["A", "D"]})
    >>> out = ir.pir(lists, qrels, prefs, ["P", "nDCG"], cutoffs=[1, 2])
    >>> out.select("measure", "cutoff", "pir", "agree", "tied")
    shape: (4, 5)
    ┌─────────┬────────┬──────┬───────┬──────┐
    │ measure ┆ cutoff ┆ pir  ┆ agree ┆ tied │
    │ ---     ┆ ---    ┆ ---  ┆ ---   ┆ ---  │
    │ str     ┆ i64    ┆ f64  ┆ u32   ┆ u32  │
    ╞═════════╪════════╪══════╪═══════╪══════╡
    │ P       ┆ 1      ┆ 0.75 ┆ 1     ┆ 1    │
    │ P       ┆ 2      ┆ 0.5  ┆ 0     ┆ 2    │
    │ nDCG    ┆ 1      ┆ 0.75 ┆ 1     ┆ 1    │
    │ nDCG    ┆ 2      ┆ 0.75 ┆ 1     ┆ 1    │
    └─────────┴────────┴──────┴───────┴──────┘
    """
    labels = [_measure(m) for m in ([measures] if isinstance(measures, str) else measures)]
    if not labels:
        raise ParameterError("measures is empty: give at least one, e.g. ['nDCG', 'P']")
    labels = list(dict.fromkeys(labels))
    ks = _cutoffs(cutoffs)
    rules = _thresholds(threshold)
    prefs = _preferences(preferences, group_by)
    run, judged, pairs = _sessions(_lists(lists), qrels)
    _check_preferences(prefs, pairs)
    check_cutoffs(len(ks), len(labels), lists=pairs.height)

    names = pl.DataFrame(
        {
            _AT: [f"{m}@{k}" for m in labels for k in ks],
            MEASURE: [m for m in labels for _ in ks],
            _ORDER: [i for i, _ in enumerate(labels) for _ in ks],
            CUTOFF: [k for _ in labels for k in ks],
        },
        schema={_AT: pl.String, MEASURE: pl.String, _ORDER: pl.Int64, CUTOFF: pl.Int64},
    )
    with warnings.catch_warnings():  # a list's run_id ranks only its own session
        warnings.simplefilter("ignore", CoverageWarning)
        scores = evaluate(
            run,
            judged,
            names[_AT].to_list(),
            per_query=True,
            relevance_level=relevance_level,
            ties=ties,
        )
    ids = pairs[S.QUERY_ID].unique()
    unjudged = ids.filter(~ids.is_in(scores[S.QUERY_ID].unique().implode()))
    if unjudged.len():
        raise PreferenceError(
            f"{unjudged.len()} session(s) with no judged document: "
            f"{_some(unjudged.sort().to_list())}; judge their documents or leave them out"
        )
    return _pir_frame(scores.lazy(), names.lazy(), prefs.lazy(), rules, group_by).collect()


def _pir_frame(
    scores: pl.LazyFrame,
    names: pl.LazyFrame,
    prefs: pl.LazyFrame,
    rules: list[float | str],
    group_by: str | None,
) -> pl.LazyFrame:
    """One query: the differences per session, then PIR per measure, cut-off and threshold."""
    keys = ([group_by] if group_by else []) + [_ORDER, MEASURE, CUTOFF]
    side = pl.col(S.RUN_ID) == pl.col(PREFERRED)
    diffs = (
        scores.rename({MEASURE: _AT})
        .join(names, on=_AT)
        .join(prefs, left_on=S.QUERY_ID, right_on=SESSION)
        .group_by(*keys, S.QUERY_ID)
        .agg(
            pl.col(VALUE).filter(side).first().alias(_MINE),
            pl.col(VALUE).filter(~side).first().alias(_OTHER),
        )
        .select(*keys, S.QUERY_ID, *_difference(pl.col(_MINE), pl.col(_OTHER)))
    )
    frames = []
    fixed = [t for t in rules if t != "best"]
    order = {t: i for i, t in enumerate(rules)}
    if fixed:
        ts = pl.LazyFrame(
            {THRESHOLD: fixed, _TORDER: [order[t] for t in fixed]},
            schema={THRESHOLD: pl.Float64, _TORDER: pl.Int64},
        )
        d, t = pl.col(_DIFF), pl.col(THRESHOLD) + pl.col(_TOL)
        frames.append(
            diffs.join(ts, how="cross")
            .group_by(*keys, THRESHOLD, _TORDER)
            .agg(
                (d > t).sum().alias(AGREE),
                (d < -t).sum().alias(DISAGREE),
                (d.abs() <= t).sum().alias(TIED),
            )
            .with_columns(pl.lit("fixed").alias(RULE))
        )
    if "best" in rules:
        frames.append(
            _best(diffs, keys).with_columns(pl.lit(order["best"], pl.Int64).alias(_TORDER))
        )
    out = pl.concat(frames, how="diagonal")
    n = pl.col(AGREE) + pl.col(DISAGREE) + pl.col(TIED)
    pir_value = (2 * pl.col(AGREE) + pl.col(TIED)).cast(pl.Float64) / (2 * n).cast(pl.Float64)
    return (
        out.with_columns(pir_value.alias(PIR), n.alias(SESSIONS))
        .sort(*keys, _TORDER)
        .select(*([group_by] if group_by else []), *PIR_COLUMNS)
    )


def _difference(mine: pl.Expr, other: pl.Expr) -> list[pl.Expr]:
    """The difference d = ``mine`` - ``other`` of one session, 0 when it is within the
    rounding error of the two values (:data:`RELATIVE_TOLERANCE`), and that tolerance."""
    tol = RELATIVE_TOLERANCE * pl.max_horizontal(mine.abs(), other.abs(), pl.lit(1.0))
    d = mine - other
    return [pl.when(d.abs() <= tol).then(0.0).otherwise(d).alias(_DIFF), tol.alias(_TOL)]


def _best(diffs: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """The threshold of the highest PIR (the smallest of equals) per ``keys``.

    PIR(t) changes only where t passes some |d|, so it is evaluated at 0 and at every
    distinct |d|: with the sessions ordered by |d|, ``tied`` at t = |d| is the running
    count, ``agree`` the positive differences beyond it. Values of |d| within the
    tolerance of the one before them are one step (at their smallest), as the fixed
    rule counts them.
    """
    a = pl.col(_DIFF).abs()
    ordered = diffs.sort(*keys, a)
    apart = (a - a.shift().over(keys)) > pl.col(_TOL)
    step = apart.fill_null(True).cum_sum().over(keys)
    steps = ordered.select(
        *keys, a.min().over(*keys, step).alias(THRESHOLD), pl.lit(1, pl.UInt32).alias("\x00n"),
        (pl.col(_DIFF) > 0).cast(pl.UInt32).alias("\x00pos"),
    )  # fmt: skip
    zero = (
        diffs.select(*keys)
        .unique()
        .with_columns(
            pl.lit(0.0).alias(THRESHOLD),
            pl.lit(0, pl.UInt32).alias("\x00n"),
            pl.lit(0, pl.UInt32).alias("\x00pos"),
        )
    )
    over = keys
    grid = (
        pl.concat([steps, zero])
        .group_by(*keys, THRESHOLD)
        .agg(pl.col("\x00n").sum(), pl.col("\x00pos").sum())
        .sort(*keys, THRESHOLD)
        .with_columns(
            pl.col("\x00n").cum_sum().over(over).alias(TIED),
            (pl.col("\x00pos").sum().over(over) - pl.col("\x00pos").cum_sum().over(over)).alias(
                AGREE
            ),
            pl.col("\x00n").sum().over(over).alias("\x00all"),
        )
        .with_columns((pl.col("\x00all") - pl.col(AGREE) - pl.col(TIED)).alias(DISAGREE))
    )
    score = 2 * pl.col(AGREE) + pl.col(TIED)
    return (
        grid.filter(score == score.max().over(over))
        .group_by(*keys)
        .agg(pl.all().sort_by(THRESHOLD).first())
        .select(*keys, THRESHOLD, AGREE, DISAGREE, TIED)
        .with_columns(pl.lit("best").alias(RULE))
    )


# --------------------------------------------------------------------------- simulation


class Sessions(NamedTuple):
    """Simulated sessions (:func:`simulate_sessions`): inputs of :func:`pir`, and the
    measure string that equals the simulated user's utility."""

    lists: pl.DataFrame
    qrels: pl.DataFrame
    preferences: pl.DataFrame
    measure: str


def _rng(seed: Any) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0:
        return np.random.default_rng(int(seed))
    raise ParameterError(f"seed={seed!r}: give a non-negative int or a numpy.random.Generator")


#: Bytes per row of the lists and qrels :func:`simulate_sessions` draws: 300,000 sessions
#: of the default shape (12M rows) took 1.1 GB of peak RSS.
_SESSION_ROW_BYTES = 100


def simulate_sessions(
    n: int,
    *,
    seed: int | np.random.Generator,
    p: float = 0.8,
    noise: float = 0.0,
    depth: int = 10,
    pool: int = 20,
    grades: Sequence[float] = (0.5, 0.3, 0.2),
    gains: Mapping[int, float] | None = None,
    groups: Sequence[str] | None = None,
    min_difference: float = 1e-6,
) -> Sessions:
    """Draw preference sessions from an RBP user with noise: data with a known answer for
    testing :func:`pir`, not evidence about metrics (no real user is involved).

    **The documents.** Each session has its own pool of ``pool`` documents (``d00``,
    ``d01``, ...) whose grades 0, 1, ... are drawn independently with probabilities
    ``grades``; all of them are judged (the qrels).

    **The lists.** Lists ``A`` and ``B`` are each ``depth`` distinct documents of the
    pool in a random order (drawn independently, so they may overlap); scores
    ``depth, depth - 1, ..., 1`` keep that order.

    **The user.** She reads a list as rank-biased precision's user does: on from each
    rank with probability ``p``, so that her expected gain from a list L is U(L) =
    (1 − p) Σ_i gain(grade_i) p^(i − 1) over its ``depth`` ranks, with ``gain`` the map
    ``gains`` (default: grade / highest grade). She prefers the list with the higher U +
    ε, ε ~ Normal(0, ``noise``) drawn for each list: with ``noise=0`` always the list of
    higher utility, otherwise the better list with probability Φ(ΔU / (noise √2)).
    Sessions with |ΔU| < ``min_difference`` are redrawn (she has no preference between
    lists so alike), so that no difference within floating-point rounding decides one.

    Hence, with ``noise=0``, the measure ``Sessions.measure`` (``RBP(p=...,gains=...)``)
    is her utility and names the preferred list in every session: its PIR at any cut-off
    >= ``depth`` and threshold 0 is exactly 1.

    Parameters
    ----------
    n
        Number of sessions.
    seed
        A non-negative int or a ``numpy.random.Generator`` (required: the draw is
        reproducible).
    p
        The user's persistence, in (0, 1) (default 0.8).
    noise
        Standard deviation of the noise on each list's utility (default 0).
    depth
        Length of each list (default 10).
    pool
        Documents per session to draw the lists from (default 20, at least ``depth``).
    grades
        Probability of each grade 0, 1, ... (default (0.5, 0.3, 0.2)); they must sum to 1.
    gains
        Gain of each grade, a dict of integer grades (0 or more) to numbers in [0, 1]
        (default grade / highest grade); grades not listed gain 0, as RBP's ``gains``.
    groups
        A list of labels, drawn uniformly for each session into a column ``group`` of the
        preferences (default: no such column), to try ``pir(..., group_by="group")``; a
        string is refused (``["ab"]`` is one group, ``["a", "b"]`` two).
    min_difference
        The smallest utility difference a user states a preference for (default 1e-6).

    Returns
    -------
    Sessions
        ``lists`` (``run_id, query_id, doc_id, score``; ``query_id`` is the session
        ``s0001``...), ``qrels`` (``query_id, doc_id, relevance``), ``preferences``
        (``session, preferred [, group]``) and ``measure``.

    Raises
    ------
    ResourceError
        When the sessions' lists and qrels would exceed the memory budget
        (``IREVAL_MEMORY_LIMIT``, else half the memory available; see
        ``docs/resources.md``).

    Examples
    --------
    >>> import polars_ireval as ir
    >>> sim = ir.simulate_sessions(50, seed=7)
    >>> sim.measure
    'RBP(p=0.8,gains={1:0.5,2:1})'
    >>> out = ir.pir(sim.lists, sim.qrels, sim.preferences, [sim.measure], cutoffs=[10])
    >>> out["pir"].item(), out["sessions"].item()
    (1.0, 50)
    """
    n = check_positive_int("n", n, what="the number of sessions")
    rng = _rng(seed)
    p = check_persistence(p, what="the user's persistence")
    if not (isinstance(noise, (int, float)) and math.isfinite(noise) and noise >= 0):
        raise ParameterError(f"noise={noise!r}: give a non-negative standard deviation")
    depth = check_positive_int("depth", depth, what="the length of each list")
    pool = check_positive_int("pool", pool, what="the number of documents per session")
    if pool < depth:
        raise ParameterError(
            f"depth={depth!r}, pool={pool!r}: give 1 <= depth <= pool (whole numbers)"
        )
    rows = n * (pool + 2 * depth)  # the qrels' and the two lists' rows
    require(
        f"simulate_sessions(n={n:,}, depth={depth}, pool={pool})",
        rows * _SESSION_ROW_BYTES,
        how=f"{rows:,} rows of lists and qrels x {_SESSION_ROW_BYTES} bytes",
        fix="draw fewer sessions (PIR's error at n sessions is about 0.5 / sqrt(n): 0.005 "
        "at n=10,000) or shorter lists",
    )
    try:
        probs = np.asarray(grades, dtype=float)
    except (TypeError, ValueError):
        probs = np.full(1, np.nan)  # not numbers: refused below
    if (
        probs.ndim != 1
        or probs.size < 2
        or not np.isfinite(probs).all()
        or (probs < 0).any()
        or abs(probs.sum() - 1) > 1e-9
    ):
        given = tuple(grades) if isinstance(grades, (list, tuple)) else grades
        raise ParameterError(
            f"grades={given!r}: give the probability of each grade 0, 1, ..., "
            "non-negative and summing to 1"
        )
    top = probs.size - 1
    if gains is not None and not isinstance(gains, Mapping):
        raise ParameterError(f"gains={gains!r}: give a dict {{grade: gain}}, e.g. {{1: 0.5, 2: 1}}")
    gain_of = dict(gains) if gains is not None else {g: g / top for g in range(1, top + 1)}
    if any(
        isinstance(g, (bool, np.bool_)) or not isinstance(g, (int, np.integer)) or g < 0
        for g in gain_of
    ):
        raise ParameterError(
            f"gains={gain_of!r}: gains keys must be integer grades of 0 or more, e.g. "
            "{1: 0.5, 2: 1}"
        )
    if any(
        not isinstance(v, (int, float, np.number)) or not (0 <= float(v) <= 1)
        for v in gain_of.values()
    ):
        raise ParameterError(f"gains={gain_of!r}: every gain must lie in [0, 1] (RBP's gains)")
    gain_of = {int(g): v for g, v in gain_of.items()}
    if not (isinstance(min_difference, (int, float)) and min_difference > 0):
        raise ParameterError(f"min_difference={min_difference!r}: give a positive number")
    table = np.array([float(gain_of.get(g, 0.0)) for g in range(top + 1)])
    weights = (1.0 - p) * p ** np.arange(depth)

    kept_grades, kept_lists, kept_pref = [], [], []
    have, rounds = 0, 0
    while have < n:  # batches of sessions; alike ones are redrawn
        rounds += 1
        if rounds > 100:
            raise ParameterError(
                f"simulate_sessions: after 100 batches only {have} of {n} sessions have lists "
                f"whose utilities differ by min_difference={min_difference!r} or more; lower "
                "it, or give grades= more than one grade of different gains"
            )
        m = max(2 * (n - have), 16)
        g = rng.choice(top + 1, size=(m, pool), p=probs)
        order = np.argsort(rng.random((m, 2, pool)), axis=-1)[..., :depth]
        shown = np.take_along_axis(g[:, None, :], order, axis=-1)
        utility = table[shown] @ weights
        noisy = utility + (rng.normal(0.0, noise, size=utility.shape) if noise > 0 else 0.0)
        ok = np.abs(utility[:, 0] - utility[:, 1]) >= min_difference
        take = np.flatnonzero(ok)[: n - have]
        kept_grades.append(g[take])
        kept_lists.append(order[take])
        kept_pref.append(noisy[take, 1] > noisy[take, 0])
        have += take.size
    g = np.concatenate(kept_grades)
    order = np.concatenate(kept_lists)
    prefer_b = np.concatenate(kept_pref)

    width = len(str(n))
    sessions = np.array([f"s{i + 1:0{max(width, 4)}d}" for i in range(n)])
    docs = np.array([f"d{j:0{len(str(pool - 1))}d}" for j in range(pool)])
    lists = pl.DataFrame(
        {
            S.RUN_ID: np.tile(np.repeat(np.array(["A", "B"]), depth), n),
            S.QUERY_ID: np.repeat(sessions, 2 * depth),
            S.DOC_ID: docs[order.reshape(-1)],
            S.SCORE: np.tile(np.arange(depth, 0, -1, dtype=float), 2 * n),
        }
    )
    qrels = pl.DataFrame(
        {
            S.QUERY_ID: np.repeat(sessions, pool),
            S.DOC_ID: np.tile(docs, n),
            S.RELEVANCE: g.reshape(-1).astype(np.int64),
        }
    )
    prefs = pl.DataFrame({SESSION: sessions, PREFERRED: np.where(prefer_b, "B", "A")})
    if isinstance(groups, (str, bytes)):
        raise ParameterError(
            f"groups={groups!r}: a string; give a list of labels, e.g. [{groups!r}] for one group"
        )
    if groups is not None:
        labels = [str(x) for x in groups]
        if not labels:
            raise ParameterError("groups=[]: give at least one label, or None")
        prefs = prefs.with_columns(
            pl.Series("group", np.array(labels)[rng.integers(0, len(labels), size=n)])
        )
    spelled = ",".join(f"{k}:{_number(v)}" for k, v in sorted(gain_of.items()) if v)
    return Sessions(lists, qrels, prefs, f"RBP(p={_number(p)},gains={{{spelled}}})")


def _number(v: float) -> str:
    """``v`` as a measure string writes it, exactly: ``1`` for 1.0, else its repr."""
    v = float(v)
    return str(int(v)) if v.is_integer() else repr(v)
