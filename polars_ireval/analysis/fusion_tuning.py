"""Tune a fusion's parameters without fooling yourself: :func:`optimize_fusion`.

ranx's ``optimize_fusion`` picks the parameters that score best on the queries it then
reports on. Here the queries are split into ``folds`` (seeded): for each fold, every
candidate of the grid is scored on the other folds' queries (the training queries) and the
best one is kept; the fold's queries are then scored with it, never with parameters they
helped choose. The held-out per-query scores are a frame :func:`polars_ireval.compare`
takes; the in-sample score (the best candidate's mean over the training queries) stands
beside the held-out one, so that the optimism of tuning on the test queries is visible.

Every candidate of the grid is fused and evaluated in one lazy query (the fused runs
concatenated, named by the candidate), once for all folds. A method trained on judgments
(``probfuse``...) is trained fold by fold, on the training queries' runs and qrels alone,
and applied to the fold's queries (held out) and to the training queries (the in-sample
score it is chosen by): no query's judgments reach the model that scores it.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from polars_ireval._base import schema as S
from polars_ireval._base.options import check_positive_int
from polars_ireval.errors import ParameterError
from polars_ireval.evaluate import evaluate
from polars_ireval.fusion.fuse import METHODS, fuse, runs_frame
from polars_ireval.io.intake import intake_qrels
from polars_ireval.parse import parse_measures

#: The candidate's column in the scores, and the names of the frames' columns.
CANDIDATE, FOLD = "candidate", "fold"
#: The run ids of the held-out scores.
FUSED, BEST_SINGLE = "fused (tuned)", "best single run (tuned)"


def ranx_grid(method: str, n_runs: int) -> list[dict[str, Any]]:
    """ranx's default search (its ``optimize_fusion``): RRF's k from 10 to 100 by 10;
    gamma (gmnz) and sigma (logn_isr) from 0.01 to 1 by 0.01; phi (rbc) from 0.01 to 0.99
    (ranx also tries 1, where every score is 0); ProbFuse's segments and SlideFuse's window
    from 1 to 100; the weights of wsum, wmnz, mixed, w_bordafuse and w_condorcet: every
    choice of 0, 0.1, ..., 1 per run summing to 1."""
    hundredths = [round(i / 100, 2) for i in range(1, 101)]
    if method == "rrf":
        return [{"k": k} for k in range(10, 101, 10)]
    if method == "gmnz":
        return [{"gamma": g} for g in hundredths]
    if method == "logn_isr":
        return [{"sigma": s} for s in hundredths]
    if method == "rbc":
        return [{"phi": p} for p in hundredths[:-1]]
    if method == "probfuse":
        return [{"n_segments": n} for n in range(1, 101)]
    if method == "slidefuse":
        return [{"w": w} for w in range(1, 101)]
    if METHODS[method].weighted:
        tenths = range(11)
        combos = [c for c in itertools.product(tenths, repeat=n_runs) if sum(c) == 10]
        return [{"weights": [x / 10 for x in c]} for c in combos]
    return [{}]


@dataclass(frozen=True)
class FusionTuning:
    """What :func:`optimize_fusion` found.

    Attributes
    ----------
    folds : polars.DataFrame
        One row per fold: ``fold, params`` (JSON), ``queries`` (held out), ``in_sample``
        (the chosen candidate's mean over the training queries), ``held_out`` (its mean over
        the fold's queries), ``best_single`` and ``best_single_held_out`` (the single run
        best on the training queries, and its held-out mean).
    held_out : polars.DataFrame
        ``run_id, query_id, measure, value``: every query scored by the fusion tuned without
        it (``run_id`` "fused (tuned)") and by the single run chosen without it ("best
        single run (tuned)"): the input of :func:`polars_ireval.compare`.
    scores : polars.DataFrame
        ``candidate, params, query_id, value``: every candidate on every query.
    method, measure : str
        The fusion method and the measure tuned for.
    """

    folds: pl.DataFrame
    held_out: pl.DataFrame
    scores: pl.DataFrame
    method: str
    measure: str

    @property
    def in_sample(self) -> float:
        """The mean of the training-query means of the chosen candidates."""
        return float(self.folds["in_sample"].mean())  # type: ignore[arg-type]

    @property
    def held_out_mean(self) -> float:
        """The mean over all queries of the held-out scores of the fusion."""
        fused = self.held_out.filter(pl.col(S.RUN_ID) == FUSED)
        return float(fused["value"].mean())  # type: ignore[arg-type]

    def compare(self, **options: Any) -> pl.DataFrame:
        """The tuned fusion against the tuned best single run, both held out, with
        :func:`polars_ireval.compare` (``baseline`` = the single run; ``options`` as it
        takes them)."""
        from polars_ireval.analysis.significance import compare

        return compare(self.held_out, baseline=BEST_SINGLE, **options)


def optimize_fusion(
    runs: Any,
    qrels: Any,
    method: str = "rrf",
    measure: str = "nDCG@10",
    *,
    search: str | Sequence[Mapping[str, Any]] = "ranx",
    folds: int = 5,
    seed: int = 0,
    norm: str | None = None,
    **fuse_options: Any,
) -> FusionTuning:
    """Choose a fusion's parameters by k-fold cross-validation over the queries.

    Parameters
    ----------
    runs
        The runs to fuse: a frame with ``run_id``, or a list or dict of runs (as
        :func:`polars_ireval.fuse` takes them).
    qrels
        The judgments the measure is computed with.
    method
        The fusion method (:func:`polars_ireval.fuse`).
    measure
        One measure string, the one maximised (``"nDCG@10"``).
    search
        ``"ranx"`` (ranx's default grid for the method, :func:`ranx_grid`) or a list of
        candidates, each a dict of :func:`polars_ireval.fuse` parameters
        (``[{"k": 20}, {"k": 60}]``).
    folds
        How many parts the queries are split into (5); 1 is refused (nothing would be held
        out).
    seed
        The seed of the split.
    norm
        The normalisation (as :func:`polars_ireval.fuse`).
    **fuse_options
        Passed to :func:`polars_ireval.fuse` (``missing``, ``queries``, ``depth``, ``ties``,
        ``guard``).

    Returns
    -------
    FusionTuning

    Examples
    --------
    >>> import polars_ireval as ir
    >>> runs = ir.read_run(ir.example_path("runs"), run_id="file")
    >>> qrels = ir.read_qrels(ir.example_path("qrels.txt"))
    >>> tuned = ir.optimize_fusion(runs, qrels, "rrf", "nDCG@10", search=[{"k": 1}, {"k": 60}])
    >>> tuned.folds.columns[:4]
    ['fold', 'params', 'queries', 'in_sample']
    >>> tuned.held_out["run_id"].unique().sort().to_list()
    ['best single run (tuned)', 'fused (tuned)']
    """
    (parsed,) = _one_measure(measure)
    folds = check_positive_int("folds", folds, what="the number of folds")
    if folds < 2:
        raise ParameterError(f"folds={folds}: at least 2 (one fold is held out, the others tune)")
    if method not in METHODS:
        raise ParameterError(f"method={method!r} is unknown; use one of {sorted(METHODS)}")
    stacked = runs_frame(runs)
    names = stacked[S.RUN_ID].unique(maintain_order=True).to_list()
    grid = ranx_grid(method, len(names)) if search == "ranx" else _checked_grid(search)
    qrels = intake_qrels(qrels)
    singles = _per_query(stacked.lazy(), qrels, parsed).select(S.RUN_ID, S.QUERY_ID, "value")
    queries = singles[S.QUERY_ID].unique().sort().to_numpy()
    if len(queries) < folds:
        raise ParameterError(f"folds={folds}: only {len(queries)} queries to split")
    order = np.random.default_rng(seed).permutation(len(queries))
    parts = np.array_split(queries[order], folds)
    options = {"norm": norm, **fuse_options}
    if METHODS[method].trained:
        scores, training = _trained_scores(stacked, qrels, method, grid, parts, parsed, options)
    else:
        scores, training = _grid_scores(stacked, qrels, method, grid, parsed, options), None
    rows, held = [], []
    for f, part in enumerate(parts, 1):
        test = pl.Series(S.QUERY_ID, part)
        chosen, in_sample = _best(scores if training is None else training[f], CANDIDATE, test)
        single, _ = _best(singles, S.RUN_ID, test)
        mine = scores.filter(
            (pl.col(CANDIDATE) == chosen) & pl.col(S.QUERY_ID).is_in(test.implode())
        )
        theirs = singles.filter(
            (pl.col(S.RUN_ID) == single) & pl.col(S.QUERY_ID).is_in(test.implode())
        )
        held += [
            mine.select(pl.lit(FUSED).alias(S.RUN_ID), S.QUERY_ID, "value"),
            theirs.select(pl.lit(BEST_SINGLE).alias(S.RUN_ID), S.QUERY_ID, "value"),
        ]
        rows.append({
            FOLD: f, "params": json.dumps(grid[chosen]), "queries": len(part),
            "in_sample": in_sample, "held_out": float(mine["value"].mean()),  # type: ignore[arg-type]
            "best_single": single,
            "best_single_held_out": float(theirs["value"].mean()),  # type: ignore[arg-type]
        })  # fmt: skip
    held_out = (
        pl.concat(held)
        .with_columns(pl.lit(parsed.label).alias("measure"))
        .select(S.RUN_ID, S.QUERY_ID, "measure", "value")
        .sort(S.RUN_ID, S.QUERY_ID)
    )
    params = pl.DataFrame(
        {CANDIDATE: range(len(grid)), "params": [json.dumps(g) for g in grid]},
        schema={CANDIDATE: pl.Int64, "params": pl.String},
    )
    return FusionTuning(
        folds=pl.DataFrame(rows),
        held_out=held_out,
        scores=scores.join(params, on=CANDIDATE).select(CANDIDATE, "params", S.QUERY_ID, "value"),
        method=method,
        measure=parsed.label,
    )


def _grid_scores(
    stacked: pl.DataFrame, qrels: Any, method: str, grid: list[dict[str, Any]], measure: Any,
    options: dict[str, Any],
) -> pl.DataFrame:  # fmt: skip
    """``candidate, query_id, value``: every candidate of the grid on every query, the
    fusions in one lazy query."""
    fused: list[pl.LazyFrame] = []
    for i, candidate in enumerate(grid):
        one = fuse(stacked.lazy(), method, name=f"c{i}", **options, **candidate)  # type: ignore[arg-type]
        assert isinstance(one, pl.LazyFrame)
        fused.append(one)
    scored = _per_query(pl.concat(fused), qrels, measure)
    return scored.select(
        pl.col(S.RUN_ID).str.slice(1).cast(pl.Int64).alias(CANDIDATE), S.QUERY_ID, "value"
    )


def _trained_scores(
    stacked: pl.DataFrame, qrels: Any, method: str, grid: list[dict[str, Any]],
    parts: list[Any], measure: Any, options: dict[str, Any],
) -> tuple[pl.DataFrame, dict[int, pl.DataFrame]]:  # fmt: skip
    """A method trained on judgments, fold by fold: each candidate trained on the fold's
    training queries (the runs on them and their qrels) and applied to the fold's queries
    (the held-out scores, ``candidate, query_id, value``, every query scored by a model
    learned without it) and to the training queries themselves (fold -> the in-sample
    scores the candidate is chosen by). Every fusion in one lazy query."""
    fused: list[pl.LazyFrame] = []
    for f, part in enumerate(parts, 1):
        held = pl.col(S.QUERY_ID).is_in(pl.Series(part).implode())
        train_runs = stacked.lazy().filter(~held)
        train_qrels = qrels.lazy().filter(~held)
        for i, candidate in enumerate(grid):
            for tag, rows in (("held", stacked.lazy().filter(held)), ("train", train_runs)):
                one = fuse(
                    rows, method, name=f"{f}/{i}/{tag}", qrels=train_qrels,  # type: ignore[arg-type]
                    train_runs=train_runs, **options, **candidate,
                )  # fmt: skip
                assert isinstance(one, pl.LazyFrame)
                fused.append(one)
    scored = _per_query(pl.concat(fused), qrels, measure)
    name = pl.col(S.RUN_ID).str.split("/")
    scored = scored.select(
        name.list.get(0).cast(pl.Int64).alias(FOLD),
        name.list.get(1).cast(pl.Int64).alias(CANDIDATE),
        name.list.get(2).alias("tag"),
        S.QUERY_ID,
        "value",
    )
    # each fusion scored on the queries it fused (evaluate scores the others 0)
    fold_of = pl.DataFrame(
        {S.QUERY_ID: [q for part in parts for q in part],
         "home": [f for f, part in enumerate(parts, 1) for _ in part]},
        schema={S.QUERY_ID: pl.String, "home": pl.Int64},
    )  # fmt: skip
    scored = scored.join(fold_of, on=S.QUERY_ID)
    held_out = scored.filter((pl.col("tag") == "held") & (pl.col(FOLD) == pl.col("home")))
    training = scored.filter((pl.col("tag") == "train") & (pl.col(FOLD) != pl.col("home")))
    by_fold = {
        f: training.filter(pl.col(FOLD) == f).select(CANDIDATE, S.QUERY_ID, "value")
        for f in range(1, len(parts) + 1)
    }
    return held_out.select(CANDIDATE, S.QUERY_ID, "value"), by_fold


def _one_measure(measure: Any) -> list[Any]:
    parsed = parse_measures(measure)
    if len(parsed) != 1:
        raise ParameterError(
            f"measure={measure!r}: one measure to maximise (got {[m.label for m in parsed]})"
        )
    return parsed


def _checked_grid(search: Any) -> list[dict[str, Any]]:
    if isinstance(search, (str, bytes)) or not isinstance(search, Sequence) or not search:
        raise ParameterError(
            f"search={search!r}: 'ranx' (its default grid) or a non-empty list of dicts of "
            "fuse parameters, e.g. [{'k': 20}, {'k': 60}]"
        )
    grid = []
    for candidate in search:
        if not isinstance(candidate, Mapping):
            raise ParameterError(f"search: {candidate!r} is not a dict of fuse parameters")
        grid.append(dict(candidate))
    return grid


def _per_query(runs: pl.LazyFrame, qrels: Any, measure: Any) -> pl.DataFrame:
    """Each run's per-query score (every query of the qrels; a query a run lacks 0)."""
    import warnings

    from polars_ireval.results import CoverageWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CoverageWarning)
        out = evaluate(runs.collect(), qrels, [measure], per_query=True, missing="zero")
    assert isinstance(out, pl.DataFrame)
    return out


def _best(scores: pl.DataFrame, key: str, test: pl.Series) -> tuple[Any, float]:
    """The ``key`` with the highest mean over the queries not in ``test`` (the first in
    ``key`` order among equal means), and that mean."""
    means = (
        scores.filter(~pl.col(S.QUERY_ID).is_in(test.implode()))
        .group_by(key)
        .agg(pl.col("value").mean().alias("mean"))
        .sort(["mean", key], descending=[True, False])
    )
    return means[key][0], float(means["mean"][0])
