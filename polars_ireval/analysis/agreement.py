"""``agreement`` and ``rbo``: how much two orderings of the same systems (or documents) agree.

:func:`agreement` takes two scorings of the same runs, either two frames with a run column
and a value column (two :func:`polars_ireval.evaluate` outputs: ``run_id, measure, value``)
or two mappings run -> score, and returns one coefficient: Kendall's tau-b, Spearman's rho
and Pearson's r (from ``scipy.stats``, nothing re-implemented), Yilmaz, Aslam and
Robertson's AP correlation tau_ap, or Webber, Moffat and Zobel's rank-biased overlap of the
two orderings of the runs. ``details=True`` returns an :class:`Agreement` with the extra
numbers (scipy's p-value, RBO's bounds).

:func:`rbo` is rank-biased overlap between two rankings of documents (Webber, Moffat and
Zobel 2010, "A similarity measure for indefinite rankings", TOIS 28(4)): two sequences of
ids, possibly of different lengths and not conjoint, give an :class:`RBO` with RBO_min
(eq. 11, with k the longer list's length), the residual RBO_res of section 4.2 (so that
RBO_max = RBO_min + RBO_res) and the extrapolated RBO_ext (eq. 32). Two run frames give
one row per query, each query's ranking in trec_eval's order (score descending, ties by
document id descending). Every query is a segment of one flat array, so a campaign's
queries are one numpy computation, not a loop.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any, Literal, overload

import numpy as np
import polars as pl

from polars_ireval._base.numeric import RELATIVE_TOLERANCE, is_number, snap
from polars_ireval._base.options import Missing, check_missing, check_persistence, renamed
from polars_ireval.errors import (
    DuplicateError,
    EmptyInputError,
    MissingQueryError,
    ParameterError,
    SchemaError,
    ScoreError,
)

__all__ = [
    "COEFFICIENTS",
    "METHODS",
    "RBO",
    "RBO_COLUMNS",
    "Agreement",
    "agreement",
    "rbo",
    "tau_ap",
]

Coefficient = Literal["kendall", "tau_ap", "rbo", "spearman", "pearson"]
#: The ``missing=`` of :func:`agreement` and :func:`rbo`: a run (a query) one side lacks
#: is left out (``"skip"``, formerly ``"intersect"``) or an error (``"error"``); there is
#: no score to give it, so no ``"zero"``.
_MISSING_SIDE: tuple[str, ...] = ("skip", "error")

#: The coefficients of :func:`agreement`, by name, with what each is.
COEFFICIENTS: dict[str, str] = {
    "kendall": "Kendall's tau-b (scipy.stats.kendalltau), ties allowed",
    "tau_ap": "AP correlation tau_ap (Yilmaz, Aslam and Robertson 2008), asymmetric, no ties",
    "rbo": "rank-biased overlap RBO_ext (Webber, Moffat and Zobel 2010), no ties",
    "spearman": "Spearman's rho (scipy.stats.spearmanr)",
    "pearson": "Pearson's r (scipy.stats.pearsonr)",
}
#: The former name of :data:`COEFFICIENTS`.
METHODS = COEFFICIENTS
_ALIASES = {"tau": "kendall", "kendalltau": "kendall", "tauap": "tau_ap", "ap": "tau_ap"}

#: The columns of :func:`rbo`'s result on two run frames, in order.
RBO_COLUMNS: tuple[str, ...] = (
    "query_id",
    "rbo_min",
    "rbo_res",
    "rbo_max",
    "rbo_ext",
    "overlap",
    "depth_a",
    "depth_b",
    "p",
)

_DEFAULT_P = 0.9


@dataclass(frozen=True)
class RBO:
    """Rank-biased overlap of two rankings, with its bounds.

    Attributes
    ----------
    min : float
        RBO_min (eq. 11 with k = the longer ranking's length): the agreement if nothing
        below the rankings' ends ever overlaps.
    res : float
        RBO_res (section 4.2): the most the unseen part of the rankings can add.
    ext : float
        RBO_ext (eq. 32): the point estimate, extrapolating the agreement seen at the ends.
    p : float
        The persistence.
    """

    min: float
    res: float
    ext: float
    p: float

    @property
    def max(self) -> float:
        """RBO_max = RBO_min + RBO_res."""
        return self.min + self.res


@dataclass(frozen=True)
class Agreement:
    """What :func:`agreement` computed, with ``details=True``.

    Attributes
    ----------
    method : str
        The coefficient's canonical name (a key of :data:`COEFFICIENTS`; the
        ``coefficient=`` asked for).
    coefficient : float
        What :func:`agreement` returns without ``details`` (RBO_ext for ``"rbo"``).
    n : int
        The number of runs compared.
    p_value : float or None
        scipy's two-sided p-value (kendall, spearman, pearson); None otherwise.
    rbo : RBO or None
        RBO's min, residual and extrapolated forms (``"rbo"``); None otherwise.
    runs : tuple of str
        The runs compared, sorted.
    """

    method: str
    coefficient: float
    n: int
    p_value: float | None = None
    rbo: RBO | None = None
    runs: tuple[str, ...] = ()


# --------------------------------------------------------------------------- input


def _coefficient(value: Any) -> str:
    if isinstance(value, str):
        key = value.strip().lower().replace("-", "_")
        key = _ALIASES.get(key, key)
        if key in COEFFICIENTS:
            return key
    close = difflib.get_close_matches(str(value), list(COEFFICIENTS), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ParameterError(f"coefficient={value!r} is unknown{hint}; use one of {list(COEFFICIENTS)}")


def _persistence(p: Any) -> float:
    return check_persistence(
        p, what="RBO's persistence (0.9 weighs the first 10 ranks by about 86%)"
    )


def _scores(
    side: Any,
    name: str,
    *,
    measure: str | None,
    run_col: str,
    value_col: str,
    measure_col: str,
) -> dict[str, float]:
    """One side's scores as a dict run -> float, checked (no NaN, no duplicate run)."""
    if isinstance(side, Mapping):
        if not side:
            raise EmptyInputError(f"{name}: the mapping holds no scores; give run -> score")
        scores: dict[str, float] = {}
        for run, value in side.items():
            if not is_number(value):  # "0.5" and True are typos, not scores
                raise ScoreError(
                    f"{name}: the score of run {run!r} is {value!r} ({type(value).__name__}), "
                    "not a number"
                )
            scores[str(run)] = float(value)
        if len(scores) != len(side):
            raise DuplicateError(f"{name}: two runs have the same id as strings")
    elif isinstance(side, (pl.DataFrame, pl.LazyFrame)):
        scores = _frame_scores(
            side,
            name,
            measure=measure,
            run_col=run_col,
            value_col=value_col,
            measure_col=measure_col,
        )
    else:
        raise SchemaError(
            f"{name}: agreement takes a Polars frame of scores (ir.evaluate's output) or a "
            f"mapping run -> score, not {type(side).__name__}"
        )
    bad = [run for run, v in scores.items() if not math.isfinite(v)]
    if bad:
        raise ScoreError(
            f"{name}: {len(bad)} run(s) have a NaN, infinite or missing score: "
            f"{sorted(bad)[:10]}; fix or drop them"
        )
    return scores


def _frame_scores(
    frame: pl.DataFrame | pl.LazyFrame,
    name: str,
    *,
    measure: str | None,
    run_col: str,
    value_col: str,
    measure_col: str,
) -> dict[str, float]:
    schema = frame.collect_schema() if isinstance(frame, pl.LazyFrame) else frame.schema
    names = list(schema.names())
    for col, what in ((run_col, "run_col"), (value_col, "value_col")):
        if col not in names:
            raise SchemaError(
                f"{name}: the frame has no {col!r} column (columns: {names}); pass {what}="
            )
    if not schema[value_col].is_numeric():
        raise SchemaError(f"{name}: column {value_col!r} holds {schema[value_col]}, not numbers")
    lf = frame.lazy() if isinstance(frame, pl.DataFrame) else frame
    empty = EmptyInputError(f"{name}: the frame holds no scores (no rows); give a score per run")
    if measure_col in names:
        present = lf.select(pl.col(measure_col).cast(pl.String).unique().sort()).collect()
        measures = present[measure_col].to_list()
        if not measures:
            raise empty
        if measure is None:
            if len(measures) > 1:
                raise ParameterError(
                    f"{name}: the frame holds {len(measures)} measures {measures}; pass "
                    "measure= to pick one (or a pair (measure_a, measure_b))"
                )
        elif measure not in measures:
            raise ParameterError(
                f"{name}: the frame has no measure {measure!r}; its measures are {measures}"
            )
        else:
            lf = lf.filter(pl.col(measure_col).cast(pl.String) == measure)
    elif measure is not None:
        raise SchemaError(
            f"{name}: measure={measure!r} but the frame has no {measure_col!r} column "
            f"(columns: {names})"
        )
    df = lf.select(
        pl.col(run_col).cast(pl.String).alias("run"),
        pl.col(value_col).cast(pl.Float64).fill_null(float("nan")).alias("value"),
    ).collect()
    if df.height == 0:
        raise empty
    if df["run"].null_count():
        raise SchemaError(f"{name}: column {run_col!r} holds null run ids")
    dup = df.filter(pl.col("run").is_duplicated())["run"].unique().sort().to_list()
    if dup:
        raise DuplicateError(
            f"{name}: runs {dup[:10]} have several rows; agreement needs one score per run "
            "(evaluate without per_query=True, or pick one measure with measure=)"
        )
    return dict(zip(df["run"].to_list(), df["value"].to_list(), strict=True))


def _measure_pair(measure: Any) -> tuple[str | None, str | None]:
    """``measure=`` as (measure_a, measure_b): one name for both sides, or a pair."""
    if isinstance(measure, (tuple, list)):
        if len(measure) != 2:
            raise ParameterError(
                f"measure={measure!r}: give one measure name or a pair (measure_a, measure_b), "
                f"not {len(measure)} names"
            )
        pair = (measure[0], measure[1])
    else:
        pair = (measure, measure)
    for m in pair:
        if m is not None and not isinstance(m, str):
            raise ParameterError(
                f"measure={measure!r}: a measure is named by a str, e.g. 'nDCG@10' (or a pair "
                "of them)"
            )
    return pair


def _align(
    sa: dict[str, float], sb: dict[str, float], missing: str
) -> tuple[list[str], np.ndarray, np.ndarray]:
    only_a = sorted(set(sa) - set(sb))
    only_b = sorted(set(sb) - set(sa))
    if (only_a or only_b) and missing == "error":
        raise MissingQueryError(
            f"the two sides score different runs: {len(only_a)} run(s) only in a "
            f"(missing from b): {only_a[:10]}; {len(only_b)} run(s) only in b (missing "
            f"from a): {only_b[:10]}; pass missing='skip' to compare the common runs"
        )
    runs = sorted(set(sa) & set(sb))
    if len(runs) < 2:
        raise EmptyInputError(
            f"the two sides have {len(runs)} run(s) in common ({runs}); an agreement "
            "between orderings needs at least 2 runs"
        )
    return runs, np.array([sa[r] for r in runs]), np.array([sb[r] for r in runs])


def _tied_up_to(x: np.ndarray, tolerance: Any) -> np.ndarray:
    """``x`` with scores equal up to rounding error (``tolerance`` times the largest)
    made equal: two runs whose mean P@5 is the same sum taken in another order tie."""
    if not is_number(tolerance) or not 0 <= tolerance < 1:
        raise ParameterError(
            f"tolerance={tolerance!r}: must be a number in [0, 1), the relative rounding "
            f"error under which two scores are equal (default {RELATIVE_TOLERANCE:g}; 0 for none)"
        )
    return snap(x, np.abs(x), float(tolerance))


def _refuse_ties(x: np.ndarray, runs: list[str], side: str, coefficient: str) -> None:
    values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    if (counts > 1).any():
        tied = np.flatnonzero(counts > 1)[:5]
        shown = "; ".join(
            f"{sorted(runs[i] for i in np.flatnonzero(inverse == g))} at {values[g]:g}"
            for g in tied
        )
        raise ParameterError(
            f"{coefficient} is undefined with ties, and {side} ties runs: {shown}; use "
            "coefficient='kendall' (tau-b handles ties)"
        )


# --------------------------------------------------------------------------- tau_ap


def tau_ap(reference: np.ndarray, evaluated: np.ndarray) -> float:
    """AP correlation tau_ap of an evaluated ordering against a reference (Yilmaz et al.).

    Both orderings rank the same items by score, descending, without ties. Going down the
    evaluated ordering, C(i) counts the items above rank i that the reference also ranks
    above the item at rank i; tau_ap = 2 / (n - 1) * sum_{i=2..n} C(i) / (i - 1) - 1. An error
    near the top of the evaluated ordering costs more than one near the bottom.

    Parameters
    ----------
    reference
        The reference scores (the "true" ordering, e.g. a measure on the full qrels).
    evaluated
        The scores of the ordering evaluated, item by item as in ``reference``.

    Returns
    -------
    float
        tau_ap, in [-1, 1]: 1 for the same ordering, -1 for the reversed one.

    Examples
    --------
    >>> import numpy as np
    >>> round(tau_ap(np.array([4.0, 3.0, 2.0, 1.0]), np.array([3.0, 4.0, 2.0, 1.0])), 12)
    0.333333333333
    """
    ref = np.asarray(reference, dtype=np.float64)
    est = np.asarray(evaluated, dtype=np.float64)
    n = ref.shape[0]
    ref_in_est_order = ref[np.argsort(-est, kind="stable")]
    # above[j, i]: the reference ranks item j (above i in the evaluated order, j < i) above i
    above = np.triu(ref_in_est_order[:, None] > ref_in_est_order[None, :], k=1)
    c = above.sum(axis=0)[1:]
    return float(2.0 / (n - 1) * np.sum(c / np.arange(1, n)) - 1.0)


# --------------------------------------------------------------------------- rbo


def _rbo_segments(
    s: np.ndarray, l_: np.ndarray, hits: np.ndarray, p: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """RBO_min, RBO_res, RBO_ext and the overlap of many pairs of rankings at once.

    Pair q has a shorter length ``s[q] >= 1`` and a longer ``l_[q] >= s[q]``; its depths
    1..l_[q] are a segment of the flat arrays, in order, and ``hits`` holds, per flat
    depth d, the number of items first in both rankings at depth d (an item at rank i of
    one and j of the other counts at max(i, j)), so X_d, the overlap at depth d, is the
    segment's cumulative sum of ``hits`` (for d > s, the whole shorter list against the
    longer one's prefix).
    """
    ends = np.cumsum(l_)
    starts = ends - l_
    seg = np.repeat(np.arange(l_.shape[0]), l_)
    d = np.arange(ends[-1]) - starts[seg] + 1
    total = np.cumsum(hits)
    x = total - (total[starts] - hits[starts])[seg]  # X_d within each segment
    x_l = x[ends - 1].astype(np.float64)
    x_s = x[starts + s - 1].astype(np.float64)
    w = np.power(p, d) / d
    q = (1.0 - p) / p
    log_tail = -math.log1p(-p)  # sum_{d>=1} p^d / d

    # RBO_min, eq. 11 with k = l: nothing unseen ever overlaps, so X_d = X_l beyond l
    rbo_min = q * (np.bincount(seg, weights=(x - x_l[seg]) * w) + x_l * log_tail)

    # RBO_res, section 4.2: f = l + s - X_l; H(n) = sum_{d=1..n} p^d / d
    f = (l_ + s - x_l).astype(np.int64)
    upto = np.arange(1, f.max() + 1)
    h = np.concatenate(([0.0], np.cumsum(np.power(p, upto) / upto)))
    rbo_res = (
        np.power(p, s)
        + np.power(p, l_)
        - np.power(p, f)
        - q * (s * (h[f] - h[s]) + l_ * (h[f] - h[l_]) + x_l * (log_tail - h[f]))
    )

    # RBO_ext, eq. 32: the agreement X_s / s of the shorter list's end extrapolated
    beyond = d > s[seg]
    uneven = np.where(beyond, (d - s[seg]) / (s[seg] * d) * np.power(p, d), 0.0)
    rbo_ext = q * (np.bincount(seg, weights=x * w) + x_s * np.bincount(seg, weights=uneven)) + (
        (x_l - x_s) / l_ + x_s / s
    ) * np.power(p, l_)
    return rbo_min, rbo_res, rbo_ext, x_l


def _ranking(x: Any, name: str) -> list[Any]:
    """One side of :func:`rbo` as a list of ids, rank 1 first: an ordered, one-dimensional
    sequence (list, tuple, 1-D array, Series), not a set, a mapping or a string."""
    if isinstance(x, (str, bytes)):
        raise SchemaError(
            f"{name}={x!r}: rbo takes sequences of ids, not a string (a string is one id: "
            f"pass [{x!r}])"
        )
    if isinstance(x, (AbstractSet, Mapping)):
        raise SchemaError(
            f"{name} is a {type(x).__name__}: rbo takes ordered sequences of ids (a list, "
            f"tuple, 1-D array or Series, rank 1 first); a {type(x).__name__}'s order is no "
            "ranking"
        )
    ndim = getattr(x, "ndim", 1)
    if ndim != 1:
        raise SchemaError(
            f"{name} has {ndim} dimensions (shape {getattr(x, 'shape', None)}): rbo takes one "
            "ranking per side, a 1-D sequence of ids"
        )
    try:
        return list(x)
    except TypeError:
        raise SchemaError(
            f"{name}={x!r} ({type(x).__name__}) is not a sequence of ids: rbo takes two "
            "sequences of ids or two run frames"
        ) from None


def _id_kind(item: Any) -> str:
    return "str" if isinstance(item, str) else "number" if is_number(item) else type(item).__name__


def _rbo_sequences(a: Any, b: Any, p: float) -> RBO:
    lists = (_ranking(a, "ranking_a"), _ranking(b, "ranking_b"))
    ranks: list[dict[Any, int]] = []
    for name, items in zip(("ranking_a", "ranking_b"), lists, strict=True):
        if not items:
            raise EmptyInputError(f"{name} is empty: RBO needs at least one item in each ranking")
        rank: dict[Any, int] = {}
        for i, item in enumerate(items, 1):
            if item is None or (isinstance(item, (float, np.floating)) and math.isnan(item)):
                raise SchemaError(f"{name} holds a missing id ({item!r}) at rank {i}")
            try:
                seen = item in rank
            except TypeError:  # unhashable: a list, an array
                raise SchemaError(
                    f"{name} holds {item!r} ({type(item).__name__}) at rank {i}, not an id: "
                    "rbo takes flat sequences of ids (strings or numbers)"
                ) from None
            if seen:
                raise DuplicateError(
                    f"{name} holds {item!r} twice (ranks {rank[item]} and {i}); RBO's "
                    "rankings have each item once"
                )
            rank[item] = i
        ranks.append(rank)
    kinds = [sorted({_id_kind(item) for item in items}) for items in lists]
    if kinds[0] != kinds[1]:  # 1 and "1" are different ids: the overlap would be silently 0
        ka, kb = (", ".join(k) for k in kinds)
        raise SchemaError(
            f"ranking_a's ids are {ka} and ranking_b's {kb} (e.g. {lists[0][0]!r} and "
            f"{lists[1][0]!r}): ids of different types never match; give both rankings ids "
            "of one type (e.g. [str(x) for x in ranking])"
        )
    s, l_ = sorted((len(lists[0]), len(lists[1])))
    hits = np.zeros(l_, dtype=np.int64)
    for item, i in ranks[0].items():
        j = ranks[1].get(item)
        if j is not None:
            hits[max(i, j) - 1] += 1
    mn, res, ext, _ = _rbo_segments(np.array([s]), np.array([l_]), hits, p)
    return RBO(min=float(mn[0]), res=float(res[0]), ext=float(ext[0]), p=p)


#: Frames of other libraries that :func:`rbo` reads as run frames, as ``read_run`` does.
_FOREIGN_FRAMES = {("pandas", "DataFrame"), ("pyarrow", "Table")}


def _run_frame(x: Any) -> pl.DataFrame | pl.LazyFrame | None:
    """``x`` as a Polars run frame (a pandas frame or a pyarrow table converted), or None
    when it is not a frame (then it is a sequence of ids, or wrong)."""
    if isinstance(x, (pl.DataFrame, pl.LazyFrame)):
        return x
    if (type(x).__module__.split(".")[0], type(x).__name__) in _FOREIGN_FRAMES:
        from polars_ireval.io.readers import frame_from_object

        return frame_from_object(x, "run")
    return None


def _ranked(run: pl.DataFrame | pl.LazyFrame, name: str) -> pl.DataFrame:
    from polars_ireval.io.readers import validate_run

    df = run.collect() if isinstance(run, pl.LazyFrame) else run
    if not isinstance(df, pl.DataFrame):
        raise SchemaError(f"{name}: rbo takes two sequences of ids or two run frames")
    df = validate_run(df, name)
    if "run_id" in df.columns and df["run_id"].n_unique() > 1:
        raise SchemaError(
            f"{name}: the frame holds {df['run_id'].n_unique()} runs "
            f"{sorted(df['run_id'].unique().to_list())[:10]}; pass one run per side "
            "(filter on run_id)"
        )
    return (
        df.select("query_id", "doc_id", "score")
        .sort(["query_id", "score", "doc_id"], descending=[False, True, True])
        .with_columns(pl.int_range(1, pl.len() + 1).over("query_id").alias("rank"))
    )


def _rbo_runs(
    run_a: pl.DataFrame | pl.LazyFrame,
    run_b: pl.DataFrame | pl.LazyFrame,
    p: float,
    missing: str,
) -> pl.DataFrame:
    ra, rb = _ranked(run_a, "run_a"), _ranked(run_b, "run_b")
    qa, qb = set(ra["query_id"].unique()), set(rb["query_id"].unique())
    if qa != qb and missing == "error":
        only_a, only_b = sorted(qa - qb), sorted(qb - qa)
        raise MissingQueryError(
            f"the runs rank different queries: {len(only_a)} only in run_a {only_a[:10]}, "
            f"{len(only_b)} only in run_b {only_b[:10]}; pass missing='skip' to compare "
            "the queries both rank"
        )
    queries = sorted(qa & qb)
    if not queries:
        raise EmptyInputError("the two runs have no query in common")
    enum = pl.Enum(queries)
    depth = (
        pl.DataFrame({"query_id": queries})
        .join(ra.group_by("query_id").agg(pl.len().alias("depth_a")), on="query_id")
        .join(rb.group_by("query_id").agg(pl.len().alias("depth_b")), on="query_id")
        .sort("query_id")
    )
    da = depth["depth_a"].to_numpy().astype(np.int64)
    db = depth["depth_b"].to_numpy().astype(np.int64)
    s, l_ = np.minimum(da, db), np.maximum(da, db)
    both = ra.join(rb, on=["query_id", "doc_id"], suffix="_b").filter(
        pl.col("query_id").is_in(queries)
    )
    qi = both["query_id"].cast(enum).to_physical().to_numpy().astype(np.int64)
    at = np.maximum(both["rank"].to_numpy(), both["rank_b"].to_numpy()).astype(np.int64)
    starts = np.cumsum(l_) - l_
    hits = np.zeros(int(l_.sum()), dtype=np.int64)
    np.add.at(hits, starts[qi] + at - 1, 1)
    mn, res, ext, x_l = _rbo_segments(s, l_, hits, p)
    return pl.DataFrame(
        {
            "query_id": queries,
            "rbo_min": mn,
            "rbo_res": res,
            "rbo_max": mn + res,
            "rbo_ext": ext,
            "overlap": x_l.astype(np.int64),
            "depth_a": da,
            "depth_b": db,
            "p": np.full(len(queries), p),
        }
    )


@overload
def rbo(a: Sequence[Any], b: Sequence[Any], *, p: float = ..., missing: Missing = ...) -> RBO: ...


@overload
def rbo(
    a: pl.DataFrame | pl.LazyFrame,
    b: pl.DataFrame | pl.LazyFrame,
    *,
    p: float = ...,
    missing: Missing = ...,
) -> pl.DataFrame: ...


def rbo(a: Any, b: Any, *, p: float = _DEFAULT_P, missing: Missing = "error") -> Any:
    """Rank-biased overlap (Webber, Moffat and Zobel 2010) of two rankings, with its bounds.

    RBO is the expected average overlap of the two rankings' prefixes for a user who goes
    from depth d to d + 1 with probability ``p``: (1 - p) * sum_d p^(d-1) * X_d / d, X_d
    the number of items the two depth-d prefixes share. On finite rankings only bounds and
    an estimate are known: RBO_min (eq. 11, nothing unseen ever overlaps; for lists of
    different lengths k is the longer one's length, section 4.1), RBO_res (section 4.2:
    RBO_max - RBO_min, everything unseen overlapping as much as it can) and RBO_ext (eq. 32,
    the agreement at the shorter list's end extrapolated). RBO_min <= RBO_ext <= RBO_max.

    Parameters
    ----------
    a, b
        Two ordered sequences of ids (a list, tuple, 1-D array or Series: ranks 1, 2,
        ...; each id once; of any lengths, possibly with no id in common; the ids of both
        of one type, strings or numbers: ``1`` and ``"1"`` never match), or two run
        frames (``query_id, doc_id, score``, one run each, as
        :func:`polars_ireval.read_run` returns them; Polars, pandas or pyarrow, converted
        as ``read_run`` converts them), compared query by query, each query's ranking in
        trec_eval's order (score descending, ties by document id descending). A set, a
        mapping or a string is no ranking and is refused.
    p
        The persistence, strictly between 0 and 1 (0.9: the first 10 ranks carry 86% of
        the weight).
    missing
        Run frames only: queries ranked by one run and not the other raise
        (``"error"``, naming them) or are left out (``"skip"``; formerly ``"intersect"``,
        still accepted).

    Returns
    -------
    RBO or polars.DataFrame
        Sequences: an :class:`RBO` (``min``, ``res``, ``max``, ``ext``, ``p``). Run frames:
        one row per query with the columns :data:`RBO_COLUMNS` (``overlap`` is the number
        of documents both rank, ``depth_a``/``depth_b`` the rankings' lengths).

    Raises
    ------
    ParameterError
        ``p`` is not strictly between 0 and 1.
    DuplicateError
        An id appears twice in one ranking.
    EmptyInputError
        A ranking is empty.
    SchemaError
        A side is not an ordered sequence of ids nor a run frame (a set, a mapping, a
        string, a number, a 2-D array), a frame and a sequence, an id missing (None, NaN)
        or unhashable, ids of different types on the two sides (``[1, 2]`` against
        ``["1", "2"]``).

    Examples
    --------
    >>> r = rbo(["a", "b", "c", "d"], ["b", "a", "c", "e"], p=0.9)
    >>> round(r.min, 4), round(r.res, 4), round(r.ext, 4)
    (0.4225, 0.4592, 0.7177)
    >>> rbo(["a"], ["a"], p=0.5).min  # -(1 - p) / p * ln(1 - p) = ln 2
    0.6931471805599453
    """
    p = _persistence(p)
    missing = check_missing(missing, allowed=_MISSING_SIDE)
    fa, fb = _run_frame(a), _run_frame(b)
    if fa is not None and fb is not None:
        return _rbo_runs(fa, fb, p, missing)
    if fa is not None or fb is not None:
        raise SchemaError("rbo takes two sequences of ids or two run frames, not one of each")
    return _rbo_sequences(a, b, p)


# --------------------------------------------------------------------------- agreement


@overload
def agreement(
    a: Any,
    b: Any,
    coefficient: str = ...,
    *,
    details: Literal[False] = ...,
    measure: str | tuple[str, str] | None = ...,
    p: float | None = ...,
    missing: Missing = ...,
    tolerance: float = ...,
    run_col: str = ...,
    value_col: str = ...,
    measure_col: str = ...,
) -> float: ...


@overload
def agreement(
    a: Any,
    b: Any,
    coefficient: str = ...,
    *,
    details: Literal[True],
    measure: str | tuple[str, str] | None = ...,
    p: float | None = ...,
    missing: Missing = ...,
    tolerance: float = ...,
    run_col: str = ...,
    value_col: str = ...,
    measure_col: str = ...,
) -> Agreement: ...


@renamed(method="coefficient")
def agreement(
    a: Any,
    b: Any,
    coefficient: str = "kendall",
    *,
    details: bool = False,
    measure: str | tuple[str, str] | None = None,
    p: float | None = None,
    missing: Missing = "error",
    tolerance: float = RELATIVE_TOLERANCE,
    run_col: str = "run_id",
    value_col: str = "value",
    measure_col: str = "measure",
) -> float | Agreement:
    """How much two scorings of the same runs agree on their ordering.

    Parameters
    ----------
    a, b
        The two scorings: frames with a run column and a value column (two
        :func:`polars_ireval.evaluate` outputs, ``run_id, measure, value``; eager or lazy)
        or mappings run -> score (one may be a frame and the other a mapping; the scores
        numbers, Python's or numpy's, not strings or booleans). For
        ``"tau_ap"``, ``a`` is the reference ordering and ``b`` the ordering evaluated
        against it.
    coefficient
        ``"kendall"`` (Kendall's tau-b, ``scipy.stats.kendalltau``; ties allowed),
        ``"tau_ap"`` (Yilmaz, Aslam and Robertson's AP correlation, SIGIR 2008: errors near
        the top of ``b``'s ordering cost more; asymmetric; undefined with ties),
        ``"rbo"`` (rank-biased overlap of the two orderings of the runs by score,
        descending: RBO_ext, see :func:`rbo`; undefined with ties), ``"spearman"``
        (``scipy.stats.spearmanr``) or ``"pearson"`` (``scipy.stats.pearsonr``, on the
        scores themselves). Formerly ``method=`` (still accepted).
    details
        ``True``: return an :class:`Agreement` (coefficient, number of runs, scipy's
        p-value, RBO's bounds) instead of the coefficient alone (a bool; anything else is
        refused).
    measure
        When a frame holds several measures (a ``measure`` column with more than one
        value), the one to read: a name for both sides, or a pair ``(measure_a,
        measure_b)`` (a tuple or a list of two names).
    p
        RBO's persistence (``"rbo"`` only; default 0.9).
    missing
        Runs scored on one side only: ``"error"`` (default; names them) or ``"skip"``
        (compare the common runs; formerly ``"intersect"``, still accepted).
    tolerance
        Scores equal up to rounding error are tied (default ``1e-14``, relative to the
        larger magnitude of the two scores compared): the mean of the same per-query
        scores summed in another order can differ in its last bits, and would order two
        runs the evaluation does not tell apart. Every coefficient but ``"pearson"`` sees them
        tied (``"tau_ap"`` and ``"rbo"`` then refuse them); ``0`` takes the floats as they
        are, as ``scipy.stats.kendalltau`` does.
    run_col, value_col, measure_col
        The frames' column names.

    Returns
    -------
    float or Agreement
        The coefficient (NaN where scipy gives NaN, e.g. a side scoring every run the
        same), or with ``details=True`` an :class:`Agreement`.

    Raises
    ------
    ParameterError
        Unknown coefficient, ``p`` outside (0, 1) or given to another coefficient, several measures
        and no ``measure=``, ``measure`` not a name or a pair of names, ``details`` not a
        bool, ``tolerance`` not in [0, 1), ties with ``"tau_ap"`` or ``"rbo"``.
    MissingQueryError
        The sides score different runs (with ``missing="error"``).
    EmptyInputError
        A side with no score (an empty frame or mapping), or fewer than 2 runs in common.
    ScoreError
        A NaN, infinite or missing score, or a score that is not a number (``"0.5"``,
        ``True``).

    Examples
    --------
    >>> ndcg = {"bm25": 0.51, "dense": 0.58, "random": 0.19, "splade": 0.55}
    >>> ap = {"bm25": 0.40, "dense": 0.46, "random": 0.18, "splade": 0.47}
    >>> agreement(ndcg, ap)  # one pair of runs (dense, splade) swapped out of six
    0.6666666666666669
    >>> round(agreement(ndcg, ap, "tau_ap"), 4)
    0.3333
    >>> agreement(ndcg, ap, "rbo", details=True).rbo.min  # doctest: +ELLIPSIS
    0.5...
    """
    name = _coefficient(coefficient)
    if not isinstance(details, (bool, np.bool_)):
        raise ParameterError(f"details={details!r}: must be True or False")
    if p is not None and name != "rbo":
        raise ParameterError(f"p={p!r} is RBO's persistence; coefficient={name!r} takes none")
    persistence = _persistence(_DEFAULT_P if p is None else p)
    missing = check_missing(missing, allowed=_MISSING_SIDE)
    ma, mb = _measure_pair(measure)
    common = {"run_col": run_col, "value_col": value_col, "measure_col": measure_col}
    sa = _scores(a, "a", measure=ma, **common)
    sb = _scores(b, "b", measure=mb, **common)
    runs, xa, xb = _align(sa, sb, missing)
    if name != "pearson":  # an ordering: scores equal up to rounding are tied
        xa, xb = _tied_up_to(xa, tolerance), _tied_up_to(xb, tolerance)
    p_value: float | None = None
    bounds: RBO | None = None
    if name in ("kendall", "spearman", "pearson"):
        from scipy import stats

        test = {"kendall": stats.kendalltau, "spearman": stats.spearmanr}.get(name, stats.pearsonr)
        res = test(xa, xb)
        value, p_value = float(res.statistic), float(res.pvalue)
    elif name == "tau_ap":
        _refuse_ties(xa, runs, "a", "tau_ap")
        _refuse_ties(xb, runs, "b", "tau_ap")
        value = tau_ap(xa, xb)
    else:
        _refuse_ties(xa, runs, "a", "rbo")
        _refuse_ties(xb, runs, "b", "rbo")
        order = np.array(runs, dtype=object)
        bounds = _rbo_sequences(
            list(order[np.argsort(-xa, kind="stable")]),
            list(order[np.argsort(-xb, kind="stable")]),
            persistence,
        )
        value = bounds.ext
    if not details:
        return value
    return Agreement(name, value, len(runs), p_value, bounds, tuple(runs))
