"""Fuse runs into one (:func:`fuse`) and normalise a run's scores (:func:`normalize`),
as one lazy Polars query over the runs' rows.

Every input run is ranked (score descending, ties as the evaluation breaks them: the
package's ``ties=`` policies), cut to ``depth`` when asked, its scores normalised ranking by
ranking, and each document's fused score is then an aggregate over the runs that retrieved
it: the Comb family over the normalised scores, the rank-based methods over the ranks the
normalised scores give. The fused run is ranked again under the same ``ties=`` policy, so
its order is defined whatever ties the fused scores hold.

Where tools differ, the choice is a parameter (docs/compat.md): ``missing`` (the score of a
document a run did not retrieve), ``queries`` (queries not in every run), ``depth`` (a cut
of each input run), ``guard`` (ranx's floors of normalisation denominators).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval._base.options import check_positive_int
from polars_ireval.errors import MissingQueryError, ParameterError
from polars_ireval.fusion.normalize import (
    RANKING,
    check_guard,
    check_norm,
    norm_expr,
    ordered_sum,
)
from polars_ireval.fusion.pairwise import PAIRWISE, pairwise_scores
from polars_ireval.fusion.trained import (
    N_SEGMENTS,
    WINDOW,
    Training,
    check_params,
    check_training,
    matched_names,
    trained_scores,
)
from polars_ireval.io.intake import intake_qrels, intake_run
from polars_ireval.judge import ranked

Method = Literal[
    "sum", "max", "min", "med", "anz", "mnz", "gmnz", "wsum", "wmnz", "mixed",
    "rrf", "isr", "log_isr", "logn_isr", "rbc", "dbsf", "median_rank", "bordafuse",
    "w_bordafuse", "posfuse", "probfuse", "segfuse", "slidefuse", "bayesfuse", "mapfuse",
    "condorcet", "w_condorcet", "copeland",
]  # fmt: skip
Missing = Literal["skip", "zero", "min"]
Queries = Literal["error", "union", "intersection"]
FUSION_MISSING: tuple[str, ...] = get_args(Missing)
FUSION_QUERIES: tuple[str, ...] = get_args(Queries)
#: The orders of tied scores a fusion takes (in its input rankings and the fused one).
FUSION_TIES = ("trec_eval", "doc_id_asc")
#: The methods the SQL of ``sql/fusion.sql`` computes too (DuckDB, Spark).
SQL_METHODS = (
    "sum", "max", "min", "med", "anz", "mnz", "gmnz", "wsum", "wmnz", "mixed", "dbsf",
    "rrf", "isr", "log_isr", "logn_isr", "rbc", "median_rank", "bordafuse", "w_bordafuse",
)  # fmt: skip

_RUN = "__fused_input"  # the input run a row comes from
_W = "__weight"


@dataclass(frozen=True)
class MethodSpec:
    """A fusion method: how it combines, its parameters (name -> default) and its
    default normalisation (ranx's: min-max for the score-based methods; the rank-based
    ones read ranks, on which a monotone normalisation has no effect); ``trained``: it
    learns from qrels (``fuse(qrels=)``)."""

    name: str
    label: str
    params: Mapping[str, float] = field(default_factory=dict)
    rank_based: bool = False
    weighted: bool = False
    trained: bool = False


METHODS: dict[str, MethodSpec] = {
    m.name: m
    for m in (
        MethodSpec("sum", "CombSUM"),
        MethodSpec("max", "CombMAX"),
        MethodSpec("min", "CombMIN"),
        MethodSpec("med", "CombMED"),
        MethodSpec("anz", "CombANZ"),
        MethodSpec("mnz", "CombMNZ"),
        MethodSpec("gmnz", "CombGMNZ", {"gamma": 1.0}),
        MethodSpec("wsum", "weighted sum", weighted=True),
        MethodSpec("wmnz", "weighted MNZ", weighted=True),
        MethodSpec("mixed", "mixed (weighted sum x sqrt(count))", weighted=True),
        MethodSpec("rrf", "reciprocal rank fusion", {"k": 60.0}, rank_based=True, weighted=True),
        MethodSpec("isr", "inverse square rank", rank_based=True),
        MethodSpec("log_isr", "log inverse square rank", rank_based=True),
        MethodSpec("logn_isr", "normalised log ISR", {"sigma": 0.01}, rank_based=True),
        MethodSpec("rbc", "rank-biased centroids", {"phi": 0.8}, rank_based=True),
        MethodSpec("dbsf", "distribution-based score fusion (sum of dbsf scores)"),
        MethodSpec("median_rank", "median rank (MEDRANK)", rank_based=True),
        MethodSpec("bordafuse", "Borda count", rank_based=True),
        MethodSpec("w_bordafuse", "weighted Borda count", rank_based=True, weighted=True),
        MethodSpec("posfuse", "PosFuse", {"rel": 1}, rank_based=True, trained=True),
        MethodSpec(
            "probfuse",
            "ProbFuse",
            {"n_segments": N_SEGMENTS, "rel": 1},
            rank_based=True,
            trained=True,
        ),
        MethodSpec("segfuse", "SegFuse", {"rel": 1}, trained=True),
        MethodSpec(
            "slidefuse", "SlideFuse", {"w": WINDOW, "rel": 1}, rank_based=True, trained=True
        ),
        MethodSpec("bayesfuse", "BayesFuse", {"rel": 1}, rank_based=True, trained=True),
        MethodSpec("mapfuse", "MAPFuse", {"rel": 1}, rank_based=True, trained=True),
        MethodSpec("condorcet", "Condorcet fusion", rank_based=True),
        MethodSpec("w_condorcet", "weighted Condorcet fusion", rank_based=True, weighted=True),
        MethodSpec("copeland", "Copeland's rule (wins - losses)", rank_based=True),
    )
}


def check_method(method: object, params: Mapping[str, Any]) -> tuple[MethodSpec, dict[str, float]]:
    """The method's declaration and its parameters (defaults filled in), checked."""
    if not isinstance(method, str) or method not in METHODS:
        raise ParameterError(f"method={method!r} is unknown; use one of {sorted(METHODS)}")
    spec = METHODS[str(method)]
    unknown = set(params) - set(spec.params)
    if unknown:
        raise ParameterError(
            f"method={spec.name!r} takes {sorted(spec.params) or 'no parameters'}; got "
            f"{sorted(unknown)}"
        )
    values = {**spec.params, **params}
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ParameterError(f"{name}={value!r}: a number")
        if not math.isfinite(value):
            raise ParameterError(f"{name}={value!r}: a finite number")
    if spec.name == "rrf" and values["k"] < 0:
        raise ParameterError(f"k={values['k']!r}: RRF's k is 0 or more (60 by default)")
    if spec.name == "rbc" and not 0 < values["phi"] < 1:
        raise ParameterError(f"phi={values['phi']!r}: RBC's persistence lies in (0, 1)")
    if spec.name == "logn_isr" and values["sigma"] <= 0:
        raise ParameterError(f"sigma={values['sigma']!r}: a positive number (0.01 by default)")
    if spec.trained:
        check_params(values)
    return spec, {k: float(v) for k, v in values.items()}


def stacked_runs(runs: Any) -> tuple[pl.LazyFrame, list[str], bool]:
    """The input runs as one frame with their names in ``_RUN``, the names in order, and
    whether the input was lazy. ``runs``: a frame with ``run_id`` (each run one of its
    ids), a sequence of runs (frames or files; named by their ``run_id``, their file, or
    ``run1``, ``run2``...) or a mapping name -> run."""
    if isinstance(runs, (pl.DataFrame, pl.LazyFrame)):
        lazy = isinstance(runs, pl.LazyFrame)
        frame = intake_run(runs)
        frame = frame.lazy() if isinstance(frame, pl.DataFrame) else frame
        if S.RUN_ID not in frame.collect_schema().names():
            raise ParameterError(
                "fuse: one frame without a run_id column is one run; pass several runs "
                "(a frame with run_id, or a list or dict of runs)"
            )
        names = (
            runs.select(pl.col(S.RUN_ID).cast(pl.String).unique(maintain_order=True))
            .lazy()
            .collect()[S.RUN_ID]
            .to_list()
        )
        return frame.rename({S.RUN_ID: _RUN}), names, lazy
    if isinstance(runs, Mapping):
        items = list(runs.items())
    elif isinstance(runs, Sequence) and not isinstance(runs, str):
        items = [(None, r) for r in runs]
    else:
        raise ParameterError(
            "fuse: runs= is a frame with run_id, a list of runs or a dict name -> run; got "
            f"{type(runs).__name__}"
        )
    frames, names, lazy = [], [], False
    for i, (name, run) in enumerate(items, 1):
        lazy = lazy or isinstance(run, pl.LazyFrame)
        frame = intake_run(run)
        frame = frame.lazy() if isinstance(frame, pl.DataFrame) else frame
        if name is None:
            name = _name_of(run, i)
        frame = frame.drop(S.RUN_ID, strict=False).with_columns(pl.lit(str(name)).alias(_RUN))
        frames.append(frame.select(_RUN, S.QUERY_ID, S.DOC_ID, S.SCORE))
        names.append(str(name))
    if len(set(names)) != len(names):
        raise ParameterError(f"fuse: two runs share a name ({names}); name them with a dict")
    return pl.concat(frames), names, lazy


def runs_frame(runs: Any) -> pl.DataFrame:
    """The runs :func:`fuse` takes as one checked frame ``run_id, query_id, doc_id,
    score`` (each run named as :func:`fuse` names it)."""
    stacked, _, _ = stacked_runs(runs)
    return (
        stacked.rename({_RUN: S.RUN_ID}).select(S.RUN_ID, S.QUERY_ID, S.DOC_ID, S.SCORE).collect()
    )


def _name_of(run: Any, i: int) -> str:
    if isinstance(run, pl.DataFrame) and S.RUN_ID in run.columns and run[S.RUN_ID].n_unique() == 1:
        return str(run[S.RUN_ID][0])
    if isinstance(run, (str, bytes)) or hasattr(run, "__fspath__"):
        from polars_ireval.io.readers import file_run_id

        return file_run_id(str(run))
    return f"run{i}"


def fuse(
    runs: Any,
    method: Method = "rrf",
    *,
    norm: str | None = None,
    weights: Sequence[float] | Mapping[str, float] | None = None,
    missing: Missing = "skip",
    queries: Queries = "error",
    depth: int | None = None,
    ties: str = "trec_eval",
    guard: str = "exact",
    name: str | None = None,
    qrels: Any = None,
    train_runs: Any = None,
    **params: float,
) -> pl.DataFrame | pl.LazyFrame:
    """Fuse runs into one run: ``run_id, query_id, doc_id, score, rank``.

    Parameters
    ----------
    runs
        Two or more runs: one frame with ``run_id``, a list of runs (frames or files) or a
        dict name -> run. A LazyFrame in gives a LazyFrame out.
    method
        The Comb family of Fox and Shaw over the normalised scores of the runs that
        retrieved a document: ``"sum"``, ``"max"``, ``"min"``, ``"med"`` (median),
        ``"anz"`` (mean), ``"mnz"`` (sum x count), ``"gmnz"`` (sum x count^gamma);
        weighted: ``"wsum"`` (sum of weight x score), ``"wmnz"`` (sum of scores x sum of
        the weights of the runs that retrieved it), ``"mixed"`` (weighted sum x
        sqrt(count)); over ranks r (from 1, in each normalised run): ``"rrf"``
        (sum of weight / (k + r), k = 60; Cormack et al.), ``"isr"`` (sum of 1/r² x
        count), ``"log_isr"`` (sum of 1/r² x ln count), ``"logn_isr"`` (sum of 1/r² x
        ln(count + sigma)), ``"rbc"`` (sum of (1 - phi) phi^(r-1); Bailey et al.). ranx's
        names and definitions. Beyond ranx: ``"dbsf"`` (the sum of the dbsf-normalised
        scores: mu +- 3 sigma per ranking, clipped to [0, 1]) and ``"median_rank"`` (minus
        the median rank over the runs, a run that did not retrieve a document ranking it
        past its end: MEDRANK).
        Trained on ``qrels=`` (ranx's; :mod:`polars_ireval.fusion.trained`), over the
        positions p of each run: ``"posfuse"`` (sum of the probability that position p
        holds a relevant document), ``"probfuse"`` (each ranking cut into ``n_segments``
        segments: sum of P(segment k) / (k + 1)), ``"segfuse"`` (segments of 5, 10, 20...
        positions: sum of P(segment) x (normalised score + 1)), ``"slidefuse"`` (sum of
        the mean probability over the positions p - w to p + w), ``"bayesfuse"`` (sum of
        the log odds of relevance of the document's segment, ln(0.001/0.999) where a run
        did not retrieve it) and ``"mapfuse"`` (sum of MAP / r, the run's MAP on the
        training queries). Pairwise (:mod:`polars_ireval.fusion.pairwise`; O(C²) per
        query of C candidates): ``"condorcet"`` and ``"w_condorcet"`` (C minus the number
        of candidates that beat the document in ranx's majority comparison, weighted for
        ``w_condorcet``: ranx's score C - position wherever ranx's order is defined) and,
        beyond ranx, ``"copeland"`` (pairwise majority wins minus losses).
    norm
        The normalisation of each ranking before fusing (:func:`normalize`): default
        ``"min-max"`` for the score-based methods, ``"none"`` for the rank-based ones.
    weights
        One per run (a list in the runs' order, or a dict by run name), for ``wsum``,
        ``wmnz``, ``mixed``, ``rrf``, ``w_bordafuse`` and ``w_condorcet`` (default: 1 each).
    missing
        The score of a document a run did not retrieve, in the score-based methods:
        ``"skip"`` (default, as ranx: the run has no say on it; sums add nothing, min, max,
        median and mean are over the runs that retrieved it), ``"zero"`` (it scores 0 in
        that run) or ``"min"`` (the run's lowest normalised score on the query). A count
        (MNZ, ISR) is always of the runs that retrieved it.
    queries
        Queries that some runs lack: ``"error"`` (default, as ranx), ``"union"`` (every
        query, fused from the runs that have it; trectools) or ``"intersection"``.
    depth
        Cut each input run to its top ``depth`` documents first (trectools: 1,000).
    ties
        How tied scores are ordered, in the input rankings (ranks) and in the fused one:
        ``"trec_eval"`` (doc id descending, default), ``"doc_id_asc"``.
    guard
        ``"exact"`` (default) or ``"ranx"`` (its max(denominator, 1e-9)); see
        :func:`normalize`.
    name
        The fused run's ``run_id`` (default: the method, e.g. ``"rrf"``).
    qrels
        The relevance judgments a trained method learns from (and only those take it): a
        frame or file as :func:`polars_ireval.read_qrels` reads. Its training queries are
        the queries of the training runs that the qrels judge; a document is relevant when
        its grade is at least ``rel`` (1, as ranx).
    train_runs
        The runs the trained model is learned from (default: ``runs``), as ``runs`` are
        given: one per run to fuse, of the same system (paired by name when the names are
        the runs', else in order, as ranx pairs them), prepared as the runs are (``norm``,
        ``depth``, ``ties``, ``queries``).
    **params
        The method's parameters: ``k`` (rrf), ``gamma`` (gmnz), ``sigma`` (logn_isr),
        ``phi`` (rbc), ``n_segments`` (probfuse, 25), ``w`` (slidefuse's half-window, 5),
        ``rel`` (the trained methods' lowest relevant grade, 1).

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        The fused run, ranking by ranking, rank 1 first.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> runs = pl.DataFrame({"run_id": ["a", "a", "b", "b"], "query_id": "q",
    ...                      "doc_id": ["x", "y", "y", "z"], "score": [2.0, 1.0, 9.0, 3.0]})
    >>> ir.fuse(runs, "rrf", k=0).rows()
    [('rrf', 'q', 'y', 1.5, 1), ('rrf', 'q', 'x', 1.0, 2), ('rrf', 'q', 'z', 0.5, 3)]
    >>> ir.fuse(runs, "sum").rows()  # min-max: x 1, y 0 + 1, z 0
    [('sum', 'q', 'y', 1.0, 1), ('sum', 'q', 'x', 1.0, 2), ('sum', 'q', 'z', 0.0, 3)]
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["y"], "relevance": [1]})
    >>> ir.fuse(runs, "posfuse", qrels=qrels)["score"].to_list()  # P(rank): a 0, 1; b 1, 0
    [2.0, 0.0, 0.0]
    >>> ir.fuse(runs, "copeland").select("doc_id", "score").rows()  # y beats z in a and b
    [('y', 1.0), ('x', 0.0), ('z', -1.0)]
    """
    spec, values = check_method(method, params)
    check_training(spec.name, spec.trained, qrels, train_runs)
    default = "dbsf" if spec.name == "dbsf" else "none" if spec.rank_based else "min-max"
    norm = check_norm(norm if norm is not None else default)
    guard = check_guard(guard)
    depth = check_choices(missing, queries, ties, depth, name)
    stacked, names, lazy = stacked_runs(runs)
    if len(names) < 2:
        raise ParameterError(f"fuse: {len(names)} run(s) ({names}); fusion takes two or more")
    weight = check_weights(weights, names, spec)
    frame = _prepared(stacked, names, norm, guard, depth, ties, queries)
    training = None
    if spec.trained:
        train_rows = frame
        if train_runs is not None:
            train, train_names, train_lazy = stacked_runs(train_runs)
            lazy = lazy or train_lazy
            train = train.with_columns(
                pl.col(_RUN).replace_strict(matched_names(train_names, names))
            )
            train_rows = _prepared(train, names, norm, guard, depth, ties, queries)
        judged = intake_qrels(qrels)
        lazy = lazy or isinstance(judged, pl.LazyFrame)
        training = Training(train_rows, judged.lazy())
    out = _combined(frame, spec, values, weight, missing, norm, guard, training)
    out = ranked(
        out.with_columns(pl.lit(spec.name if name is None else name).alias(S.RUN_ID)).select(
            S.RUN_ID, S.QUERY_ID, S.DOC_ID, S.SCORE
        ),
        [S.RUN_ID, S.QUERY_ID],
        ties,
    ).sort(S.QUERY_ID, S.RANK)
    return out if lazy else out.collect()


def check_choices(
    missing: object, queries: object, ties: object, depth: object, name: object = None
) -> int | None:
    """Check the options every fusion takes (on every engine); return ``depth``."""
    if not isinstance(missing, str) or missing not in FUSION_MISSING:
        raise ParameterError(f"missing={missing!r}: 'skip' (as ranx), 'zero' or 'min'")
    if not isinstance(queries, str) or queries not in FUSION_QUERIES:
        raise ParameterError(f"queries={queries!r}: 'error' (as ranx), 'union' or 'intersection'")
    if not isinstance(ties, str) or ties not in FUSION_TIES:
        raise ParameterError(f"ties={ties!r}: 'trec_eval' or 'doc_id_asc' for a fusion")
    if name is not None and not isinstance(name, str):
        raise ParameterError(f"name={name!r}: the fused run's run_id, a string")
    return check_positive_int("depth", depth, what="the depth of each input run", optional=True)


def check_weights(
    weights: Sequence[float] | Mapping[str, float] | None, names: list[str], spec: MethodSpec
) -> dict[str, float]:
    if weights is None:
        return dict.fromkeys(names, 1.0)
    if not spec.weighted:
        raise ParameterError(
            f"weights=: method={spec.name!r} takes none; the weighted ones are "
            f"{sorted(m for m, s in METHODS.items() if s.weighted)}"
        )
    if isinstance(weights, Mapping):
        if set(weights) != set(names):
            raise ParameterError(f"weights={dict(weights)!r}: one per run, by name: {names}")
        given = {str(k): v for k, v in weights.items()}
    else:
        given = dict(zip(names, list(weights), strict=False))
        if len(list(weights)) != len(names):
            raise ParameterError(
                f"weights={list(weights)!r}: {len(list(weights))} for {len(names)} runs ({names})"
            )
    for run, w in given.items():
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w):
            raise ParameterError(f"weights: {w!r} for run {run!r} is not a finite number")
    return {k: float(v) for k, v in given.items()}


def _prepared(
    frame: pl.LazyFrame,
    names: list[str],
    norm: str,
    guard: str,
    depth: int | None,
    ties: str,
    queries: str,
) -> pl.LazyFrame:
    """The input rows with their rank in their run and their normalised score (rank
    again from the normalised scores, as ranx reads a normalised run in its order)."""
    keyed = frame.rename({_RUN: S.RUN_ID})
    rows = ranked(keyed, RANKING, ties)
    if depth is not None:
        rows = rows.filter(pl.col(S.RANK) <= depth)
    rows = _queries(rows, len(names), queries)
    if norm == "max" and guard == "exact":
        rows = _non_negative(rows)
    if norm == "borda":
        return ranked(_borda_normalised(rows), RANKING, ties)
    rows = rows.with_columns(norm_expr(norm, guard, pl.col(S.RANK)).alias(S.SCORE))
    if norm in ("min-max-inverted",):  # the order the normalised run has
        rows = ranked(rows.drop(S.RANK), RANKING, ties)
    return rows


def _borda_normalised(rows: pl.LazyFrame) -> pl.LazyFrame:
    """ranx's Borda normalisation: every candidate of the query in every run that has
    it, 1 - (r - 1)/C at rank r, 0.5 - (n - 1)/(2C) where the run (of n) did not
    retrieve it (:mod:`polars_ireval.fusion.normalize`)."""
    full = _candidates(rows)
    c, n = pl.col("__c").cast(pl.Float64), pl.col("__n").cast(pl.Float64)
    score = (
        pl.when(pl.col(S.RANK).is_not_null())
        .then(1.0 - (pl.col(S.RANK).cast(pl.Float64) - 1.0) / c)
        .otherwise(0.5 - (n - 1.0) / (2.0 * c))
    )
    return full.select(S.RUN_ID, S.QUERY_ID, S.DOC_ID, score.alias(S.SCORE))


_GATE = "__gate"


def _gated(rows: pl.LazyFrame, check: Any, source: pl.LazyFrame) -> pl.LazyFrame:
    """``rows``, joined to the one-row frame ``check`` returns from ``source`` (which it
    refuses by raising): the query cannot give a row before the check has run."""

    def gate(frame: pl.DataFrame) -> pl.DataFrame:
        check(frame)
        return pl.DataFrame({_GATE: [True]})

    passed = source.map_batches(gate, schema=pl.Schema({_GATE: pl.Boolean}))
    return rows.join(passed, how="cross").drop(_GATE)


def check_non_negative(low: pl.DataFrame) -> None:
    """Refuse ``norm="max"`` (score / maximum) on a negative score: ``low`` holds each
    ranking's lowest score (``run_id, query_id, score``). Every engine's check."""
    bad = low.filter(pl.col(S.SCORE) < 0.0).sort(S.SCORE, S.RUN_ID, S.QUERY_ID)
    if bad.height:
        row = bad.row(0, named=True)
        raise ParameterError(
            f"norm='max' divides by the maximum and needs scores of 0 or more; run "
            f"{row[S.RUN_ID]!r} scores {row[S.SCORE]} on query {row[S.QUERY_ID]!r}: use "
            "norm='min-max' (or guard='ranx' for ranx's arithmetic)"
        )


def check_every_run(present: pl.DataFrame, n_runs: int) -> None:
    """Refuse (``queries="error"``) a query not in every run: ``present`` holds each query's
    number of runs (``query_id, runs``). Every engine's check."""
    short = present.filter(pl.col("runs") < n_runs)
    if short.height:
        raise MissingQueryError(
            f"fuse: {short.height} quer{'y' if short.height == 1 else 'ies'} not in every "
            f"run (e.g. {sorted(short[S.QUERY_ID].to_list())[:3]}); pass queries='union' "
            "(fuse each from the runs that have it) or queries='intersection'"
        )


def _non_negative(rows: pl.LazyFrame) -> pl.LazyFrame:
    """Refuse a negative score under ``norm="max"``, as part of the query."""
    return _gated(rows, check_non_negative, rows.group_by(RANKING).agg(pl.col(S.SCORE).min()))


def _queries(rows: pl.LazyFrame, n_runs: int, policy: str) -> pl.LazyFrame:
    if policy == "union":
        return rows
    runs_per_query = pl.col(S.RUN_ID).n_unique().over(S.QUERY_ID)
    if policy == "intersection":
        return rows.filter(runs_per_query == n_runs)
    present = rows.group_by(S.QUERY_ID).agg(pl.col(S.RUN_ID).n_unique().alias("runs"))
    return _gated(rows, lambda frame: check_every_run(frame, n_runs), present)


def _combined(
    rows: pl.LazyFrame,
    spec: MethodSpec,
    values: dict[str, float],
    weight: dict[str, float],
    missing: str,
    norm: str,
    guard: str,
    training: Training | None = None,
) -> pl.LazyFrame:
    """One row per (query, document) with its fused ``score``."""
    if training is not None:
        return trained_scores(rows, spec.name, values, training, missing)
    if spec.name in PAIRWISE:
        return pairwise_scores(rows, spec.name, weight, missing)
    w = pl.col(S.RUN_ID).replace_strict(weight, return_dtype=pl.Float64).alias(_W)
    rows = rows.with_columns(w)
    count = pl.len().cast(pl.Float64)
    r = pl.col(S.RANK).cast(pl.Float64)
    if spec.name == "median_rank":
        return _median_rank(rows)
    if spec.name in ("bordafuse", "w_bordafuse"):
        return _borda_count(rows)
    if spec.rank_based:
        if spec.name == "rrf":
            term = pl.col(_W) / (values["k"] + r)
        elif spec.name == "rbc":
            phi = values["phi"]
            term = (1.0 - phi) * pl.lit(phi).pow(r - 1.0)
        else:
            term = 1.0 / (r * r)
        rows = rows.with_columns(term.alias(S.SCORE))
        total = ordered_sum(pl.col(S.SCORE))
        fused = {
            "rrf": total,
            "rbc": total,
            "isr": total * count,
            "log_isr": total * count.log(),
            "logn_isr": total * (count + values.get("sigma", 0.0)).log(),
        }[spec.name]
        return rows.group_by(S.QUERY_ID, S.DOC_ID).agg(fused.alias(S.SCORE))
    if missing != "skip":
        rows = _filled(rows, missing)
    retrieved = pl.col("__retrieved")
    s = pl.col(S.SCORE)
    n = retrieved.sum().cast(pl.Float64)  # the runs that retrieved the document
    total, weighted = ordered_sum(s), ordered_sum(pl.col(_W) * s)
    fused = {
        "sum": total,
        "max": s.max(),
        "min": s.min(),
        "med": s.median(),
        "anz": total / count,
        "mnz": total * n,
        "gmnz": total * n.pow(values.get("gamma", 1.0)),
        "wsum": weighted,
        "wmnz": total * ordered_sum(pl.col(_W).filter(retrieved)),
        "mixed": weighted * n.sqrt(),
        "dbsf": total,
    }[spec.name]
    if missing == "skip":
        rows = rows.with_columns(pl.lit(True).alias("__retrieved"))
    return rows.group_by(S.QUERY_ID, S.DOC_ID).agg(fused.alias(S.SCORE))


def _candidates(rows: pl.LazyFrame) -> pl.LazyFrame:
    """Every (run, query, document) of a query's candidates (the documents any run
    retrieved for it) and the runs that have the query, with the run's length ``__n``,
    the number of candidates ``__c`` and the row's ``rank`` and ``score`` (null where the
    run did not retrieve the document)."""
    docs = rows.select(S.QUERY_ID, S.DOC_ID).unique()
    counts = docs.group_by(S.QUERY_ID).agg(pl.len().alias("__c"))
    names = rows.collect_schema().names()
    per_run = [pl.len().alias("__n"), *([pl.col(_W).first()] if _W in names else [])]
    lengths = rows.group_by(S.RUN_ID, S.QUERY_ID).agg(per_run)  # the run's weight too
    keep = [c for c in (S.RUN_ID, S.QUERY_ID, S.DOC_ID, S.RANK, S.SCORE) if c in names]
    return (
        lengths.join(docs, on=S.QUERY_ID)
        .join(counts, on=S.QUERY_ID)
        .join(rows.select(keep), on=[S.RUN_ID, S.QUERY_ID, S.DOC_ID], how="left")
    )


def _borda_count(rows: pl.LazyFrame) -> pl.LazyFrame:
    """Aslam and Montague's Borda count (ranx's bordafuse): of C candidates, a run gives
    the document at rank r C - r + 1 points and each document it did not retrieve (of
    its n) (C - n + 1) / 2; the points summed over the runs (weighted for w_bordafuse)."""
    full = _candidates(rows)
    c, n = pl.col("__c").cast(pl.Float64), pl.col("__n").cast(pl.Float64)
    points = (
        pl.when(pl.col(S.RANK).is_not_null())
        .then(c - pl.col(S.RANK).cast(pl.Float64) + 1.0)
        .otherwise((c - n + 1.0) / 2.0)
    )
    total = ordered_sum(pl.col(_W) * points)
    return full.group_by(S.QUERY_ID, S.DOC_ID).agg(total.alias(S.SCORE))


def _median_rank(rows: pl.LazyFrame) -> pl.LazyFrame:
    """Fagin, Kumar and Sivakumar's MEDRANK as a score: minus the median of a document's
    ranks over every run that has the query, a run that did not retrieve it ranking it
    just past its end (its length + 1); the fused run thus lists documents by increasing
    median rank."""
    full = _candidates(rows)
    rank = pl.col(S.RANK).cast(pl.Float64).fill_null(pl.col("__n").cast(pl.Float64) + 1.0)
    return full.group_by(S.QUERY_ID, S.DOC_ID).agg((-rank.median()).alias(S.SCORE))


def _filled(rows: pl.LazyFrame, missing: str) -> pl.LazyFrame:
    """Every (run, query, document) of a query's documents and the runs that have the
    query, a document a run did not retrieve scored 0 or the run's lowest score (the grid
    of :func:`_candidates`)."""
    score = pl.col(S.SCORE)
    low = score.min().over(S.RUN_ID, S.QUERY_ID)  # over what the run retrieved
    fill = pl.lit(0.0) if missing == "zero" else low
    return (
        _candidates(rows)
        .with_columns(score.is_not_null().alias("__retrieved"), score.fill_null(fill))
        .drop("__n", "__c", S.RANK, strict=False)
    )


def normalize(
    run: Any, norm: str = "min-max", *, guard: str = "exact", ties: str = "trec_eval"
) -> pl.DataFrame | pl.LazyFrame:
    """A run (or several: ``run_id``) with each ranking's scores normalised:
    ``"min-max"``, ``"min-max-inverted"``, ``"max"``, ``"sum"``, ``"zmuv"``, ``"rank"``,
    ``"dbsf"``, ``"borda"`` (over the documents of the query in all the runs given) or
    ``"none"`` (:mod:`polars_ireval.fusion.normalize`): what :func:`fuse` reads. Rows in
    the order of the normalised scores (``ties`` breaking ties); ``guard`` as in
    :func:`fuse`.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"], "score": [4.0, 2.0, 1.0]})
    >>> ir.normalize(run, "min-max")["score"].to_list()
    [1.0, 0.3333333333333333, 0.0]
    """
    norm = check_norm(norm)
    guard = check_guard(guard)
    check_choices("skip", "union", ties, None)
    lazy = isinstance(run, pl.LazyFrame)
    frame = intake_run(run)
    frame = frame.lazy() if isinstance(frame, pl.DataFrame) else frame
    single = S.RUN_ID not in frame.collect_schema().names()
    if single:
        frame = frame.with_columns(pl.lit("").alias(S.RUN_ID))
    stacked = frame.select(pl.col(S.RUN_ID).alias(_RUN), S.QUERY_ID, S.DOC_ID, S.SCORE)
    rows = _prepared(stacked, [], norm, guard, None, ties, "union")
    out = rows.sort(S.RUN_ID, S.QUERY_ID, S.RANK).select(S.RUN_ID, S.QUERY_ID, S.DOC_ID, S.SCORE)
    if single:
        out = out.drop(S.RUN_ID)
    return out if lazy else out.collect()
