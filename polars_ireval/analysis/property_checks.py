"""The seven properties of :func:`polars_ireval.properties`, each read off one measure's scores
on a universe (:mod:`polars_ireval.analysis.property_universe`).

:func:`scores_on` gathers what the checks read: the measure's scores at depths k and k + 1
on every synthetic query, its relevance threshold, and the relevance level the measure
gives each state (grades it tells apart). Each check of :data:`CHECKS`, one function per
property in the seed's order, returns None when the property holds, else the frame of its
violations (worst first, at most ``max_violations``; columns :data:`VIOLATION_SCHEMA`).
See :mod:`polars_ireval.analysis.properties` for how each property is decided.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from polars_ireval._base.numeric import RELATIVE_TOLERANCE
from polars_ireval.analysis.property_universe import UNJUDGED, Universe
from polars_ireval.errors import ParameterError
from polars_ireval.registry import JUDGED_ONLY, Measure

#: The seven properties, in the seed's order (the columns of ``Properties.frame``).
PROPERTIES = (
    "bounded",
    "monotonic",
    "convergent",
    "top_weighted",
    "localized",
    "complete",
    "realizable",
)
#: Two scores closer than this times the larger of their magnitudes are equal (relative,
#: :data:`polars_ireval._base.numeric.RELATIVE_TOLERANCE`).
TOLERANCE = RELATIVE_TOLERANCE
#: The columns of a violation: scenario ``a`` against scenario ``b`` (see
#: ``Properties.counterexamples``).
VIOLATION_SCHEMA = {
    "measure": pl.String,
    "property": pl.String,
    "a_measure": pl.String,
    "a_ranking": pl.String,
    "a_depth": pl.Int64,
    "a_unretrieved": pl.Int64,
    "a_R": pl.Int64,
    "a_value": pl.Float64,
    "b_measure": pl.String,
    "b_ranking": pl.String,
    "b_depth": pl.Int64,
    "b_unretrieved": pl.Int64,
    "b_R": pl.Int64,
    "b_value": pl.Float64,
    "margin": pl.Float64,
}


def at_depth(m: Measure, depth: int, label: str | None = None) -> Measure:
    """``m`` with its cutoff set to ``depth``."""
    values: dict[str, Any] = {**m.params, "k": depth}
    if m.judged_only:
        values[JUDGED_ONLY] = True
    return m.defn.bind(values, label=label)


# --------------------------------------------------------------------------- the scores


@dataclass(frozen=True)
class Scores:
    """One measure's scores on one universe, and what the checks read of them.

    ``vk``/``vk1``: the score of every synthetic query of the universe at depths k and
    k + 1; ``probes``: the ideal ranking's score at each probe depth (for ``bounded``);
    ``grades``: the grade at each position of each ranking (-1 unjudged); ``rel``: the
    measure's relevance threshold; ``level``: the measure's relevance level of each state
    (-1 unjudged); ``strings``: the rankings as strings.
    """

    u: Universe
    m: Measure
    vk: np.ndarray
    vk1: np.ndarray
    probes: Mapping[int, float]
    strings: pl.Series
    options: Mapping[str, Any]
    grades: np.ndarray
    rel: int
    level: np.ndarray

    @property
    def k(self) -> int:
        return self.u.k


def scores_on(
    u: Universe,
    m: Measure,
    vk: np.ndarray,
    vk1: np.ndarray,
    *,
    probes: Mapping[int, float],
    strings: pl.Series,
    options: Mapping[str, Any],
) -> Scores:
    """The :class:`Scores` of ``m`` on ``u`` (``vk``, ``vk1``: every query's score at depths
    k and k + 1, the universe's queries first); :class:`ParameterError` when the measure's
    ``rel`` is not a relevant grade of the universe."""
    vk, vk1 = vk[: u.queries], vk1[: u.queries]
    rel = m.params.get("rel")
    rel = rel if isinstance(rel, int) and not isinstance(rel, bool) else 1
    if rel not in u.states or rel < 1:
        raise ParameterError(
            f"{m.label}: its relevance threshold rel={rel} is not among the audit's "
            f"relevant grades {[g for g in u.states if g]}; pass grades= with it, e.g. "
            f"grades=(0, 1, {max(rel, 2)})"
        )
    level = _levels(u, vk, vk1, rel)
    grades = u.grade_values()[u.codes]  # (rankings, n)
    return Scores(u, m, vk, vk1, probes, strings, options, grades, rel, level)


def _levels(u: Universe, vk: np.ndarray, vk1: np.ndarray, rel: int) -> np.ndarray:
    """The measure's relevance level of each state (-1 for unjudged): consecutive grades
    share a level when raising one to the other never changes a score."""
    grades = sorted(g for g in u.states if g is not None)
    state_of = {g: u.states.index(g) for g in grades}
    level, current = {grades[0]: 0}, 0
    for lo, hi in itertools.pairwise(grades):
        pairs = [_raised(u, p, state_of[lo], state_of[hi]) for p in range(u.n)]
        ra = np.concatenate([p[0] for p in pairs])
        rb = np.concatenate([p[1] for p in pairs])
        qa, qb = _expand(u, ra, rb)
        same = all(_same(v[qa], v[qb]) for v in (vk, vk1))
        # the seed's binary relevance (grade >= rel) is always a step
        current += 0 if same and not lo < rel <= hi else 1
        level[hi] = current
    return np.array([-1 if g is None else level[g] for g in u.states], dtype=np.int64)


# --------------------------------------------------------------------------- helpers


def _q(u: Universe, ranking: np.ndarray, extra: np.ndarray | int) -> np.ndarray:
    """The query of each ranking in its collection ``extra``."""
    return ranking * u.copies + extra


def _expand(u: Universe, ra: np.ndarray, rb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ranking pairs, in every collection: query pairs."""
    c = u.copies
    extra = np.tile(np.arange(c), len(ra))
    return _q(u, np.repeat(ra, c), extra), _q(u, np.repeat(rb, c), extra)


def _raised(u: Universe, pos: int, s_from: int, s_to: int) -> tuple[np.ndarray, np.ndarray]:
    """Rankings whose position ``pos`` holds state ``s_from``, and the same rankings with
    ``s_to`` there."""
    ra = np.nonzero(u.codes[:, pos] == s_from)[0]
    w = u.base ** (u.n - 1 - pos)
    rb = u.find(u.keys[ra] + (s_to - s_from) * w)
    keep = rb >= 0
    return ra[keep], rb[keep]


def _swapped(s: Scores, i: int, j: int) -> tuple[np.ndarray, np.ndarray]:
    """Rankings whose position j holds a document the measure finds more relevant than
    the one at position i (both judged), and the rankings with the two swapped."""
    u = s.u
    si, sj = u.codes[:, i], u.codes[:, j]
    li, lj = s.level[si], s.level[sj]
    ra = np.nonzero((li >= 0) & (lj > li))[0]
    wi, wj = u.base ** (u.n - 1 - i), u.base ** (u.n - 1 - j)
    delta = (sj[ra] - si[ra]) * wi + (si[ra] - sj[ra]) * wj
    rb = u.find(u.keys[ra] + delta)
    keep = rb >= 0
    return ra[keep], rb[keep]


def _binary(s: Scores) -> np.ndarray:
    """True for the rankings of the seed's binary relevance: every document judged,
    non-relevant (0) or relevant (the measure's ``rel``, 1 by default)."""
    return np.all((s.grades == 0) | (s.grades == s.rel), axis=1)


def _relevant(s: Scores) -> np.ndarray:
    """R of every query: documents judged with a grade >= rel, retrieved or not."""
    per_ranking = (s.grades >= s.rel).sum(axis=1)
    copies = s.u.copies
    extra = np.arange(copies) if s.rel <= 1 else np.zeros(copies, np.int64)
    return (per_ranking[:, None] + extra[None, :]).ravel()


def _frame(
    s: Scores,
    qa: np.ndarray,
    da: int | np.ndarray,
    va: np.ndarray,
    qb: np.ndarray | None,
    db: int | np.ndarray | None,
    vb: np.ndarray | None,
    margin: np.ndarray,
    sort: Sequence[str] = ("margin",),
) -> pl.DataFrame:
    """The violations as a frame, worst first, at most ``max_violations`` rows."""
    copies, rr = s.u.copies, _relevant(s)
    size = len(qa)

    def side(q: np.ndarray | None, d: Any, v: np.ndarray | None, p: str) -> dict[str, Any]:
        if q is None:
            nulls = pl.Series([None] * size)
            return {
                f"{p}_ranking": nulls.cast(pl.String),
                f"{p}_depth": nulls.cast(pl.Int64),
                f"{p}_unretrieved": nulls.cast(pl.Int64),
                f"{p}_R": nulls.cast(pl.Int64),
                f"{p}_value": nulls.cast(pl.Float64),
                f"{p}_measure": nulls.cast(pl.String),
            }
        depth = np.broadcast_to(np.asarray(d, dtype=np.int64), (size,))
        return {
            f"{p}_ranking": s.strings.gather(q // copies),
            f"{p}_depth": depth,
            f"{p}_unretrieved": q % copies,
            f"{p}_R": rr[q],
            f"{p}_value": v,
            f"{p}_depth_measure": depth,
        }

    out = pl.DataFrame(
        {
            **side(qa, da, va, "a"),
            **side(qb, db, vb, "b"),
            "margin": margin,
            "_unj": np.char.count(s.strings.gather(qa // copies).to_numpy().astype(str), UNJUDGED),
        }
    )
    out = out.sort(
        [*sort, "_unj", "a_R", "a_ranking", "b_ranking"],
        descending=[True] * len(sort) + [False] * 4,
        nulls_last=True,
    ).head(s.options["max_violations"])
    names = {}
    for p in ("a", "b"):
        col = f"{p}_depth_measure"
        if col in out.columns:
            depths = out[col].unique().to_list()
            names[p] = {d: at_depth(s.m, d).canonical for d in depths}
            out = out.with_columns(
                pl.col(col).replace_strict(names[p], return_dtype=pl.String).alias(f"{p}_measure")
            ).drop(col)
    return out.with_columns(pl.lit(s.m.label).alias("measure")).drop("_unj")


def _strict_rise(s: Scores, pairs: list[tuple[np.ndarray, np.ndarray]]) -> pl.DataFrame | None:
    """The pairs of rankings (a, b) where b does not score strictly more than a at k."""
    ra = np.concatenate([p[0] for p in pairs]) if pairs else np.zeros(0, np.int64)
    rb = np.concatenate([p[1] for p in pairs]) if pairs else np.zeros(0, np.int64)
    qa, qb = _expand(s.u, ra, rb)
    va, vb = s.vk[qa], s.vk[qb]
    bad = ~_above(vb, va) & ~(np.isnan(va) & np.isnan(vb))
    if not bad.any():
        return None
    qa, qb = qa[bad], qb[bad]
    return _frame(s, qa, s.k, va[bad], qb, s.k, vb[bad], (va - vb)[bad])


# --------------------------------------------------------------------------- the properties


def bounded(s: Scores) -> pl.DataFrame | None:
    """Every score of a binary ranking, at depths k and k + 1 and of the ideal ranking at
    the probe depths, lies within ``bounds``."""
    lo, hi = s.options["bounds"]
    q = np.nonzero(np.repeat(_binary(s), s.u.copies))[0]
    parts = []
    for depth, v in ((s.k, s.vk), (s.k + 1, s.vk1)):
        out = np.maximum(v[q] - hi, lo - v[q])
        bad = _above(v[q], hi) | _above(lo, v[q])
        if bad.any():
            parts.append(_frame(s, q[bad], depth, v[q][bad], None, None, None, out[bad]))
    if parts:
        return (
            pl.concat(parts)
            .sort("a_depth", "margin", descending=[False, True])
            .head(s.options["max_violations"])
        )
    for depth, value in sorted(s.probes.items()):
        excess = max(value - hi, lo - value)
        if _above(value, hi) or _above(lo, value):
            return pl.DataFrame(
                {
                    "measure": [s.m.label],
                    "a_measure": [at_depth(s.m, depth).canonical],
                    "a_ranking": ["1" * depth],
                    "a_depth": [depth],
                    "a_unretrieved": [0],
                    "a_R": [depth],
                    "a_value": [value],
                    "margin": [excess],
                }
            ).with_columns(
                *(
                    pl.lit(None, dtype=VIOLATION_SCHEMA[c]).alias(c)
                    for c in VIOLATION_SCHEMA
                    if c.startswith("b_")
                )
            )
    return None


def monotonic(s: Scores) -> pl.DataFrame | None:
    """Extending a ranking by one document never lowers its score."""
    drop = s.vk - s.vk1
    q = np.nonzero(_above(s.vk, s.vk1))[0]
    if not len(q):
        return None
    return _frame(s, q, s.k, s.vk[q], q, s.k + 1, s.vk1[q], drop[q])


def convergent(s: Scores) -> pl.DataFrame | None:
    """Swapping the document beyond the top k with a less relevant one inside it strictly
    raises the score."""
    return _strict_rise(s, [_swapped(s, i, s.k) for i in range(s.k)])


def top_weighted(s: Scores) -> pl.DataFrame | None:
    """Swapping a document inside the top k with a less relevant one above it strictly
    raises the score."""
    pairs = [_swapped(s, i, j) for j in range(s.k) for i in range(j)]
    return _strict_rise(s, pairs)


def localized(s: Scores) -> pl.DataFrame | None:
    """Rankings with the same top k score the same."""
    u = s.u
    top = np.repeat(u.keys // u.base, u.copies)
    frame = pl.DataFrame({"top": top, "q": np.arange(u.queries), "v": s.vk})
    spread = (
        frame.filter(pl.col("v").is_not_nan())
        .group_by("top")
        .agg(
            pl.col("q").sort_by("v").first().alias("qa"),
            pl.col("q").sort_by("v").last().alias("qb"),
            (pl.col("v").max() - pl.col("v").min()).alias("margin"),
            pl.col("v").max().alias("v_max"),
            pl.col("v").min().alias("v_min"),
        )
        .filter(
            pl.col("margin")
            > TOLERANCE * pl.max_horizontal(pl.col("v_max").abs(), pl.col("v_min").abs())
        )
    )
    if not spread.height:
        return None
    qa, qb = spread["qa"].to_numpy(), spread["qb"].to_numpy()
    return _frame(s, qa, s.k, s.vk[qa], qb, s.k, s.vk[qb], spread["margin"].to_numpy())


def complete(s: Scores) -> pl.DataFrame | None:
    """A query without relevant documents has a finite score and (``no_relevant="forced"``)
    that score is forced: raising a judgment never lowers the score."""
    u, copies, level = s.u, s.u.copies, s.level
    lowest = level[level >= 0].min()
    none_relevant = np.all(level[u.codes] <= lowest, axis=1)
    extra_relevant = level[u.states.index(1)] > lowest
    nothing = np.repeat(none_relevant, copies) & (
        np.tile(np.arange(copies) == 0, len(none_relevant)) | (not extra_relevant)
    )
    q = np.nonzero(nothing & ~np.isfinite(s.vk))[0]
    if len(q):
        return _frame(s, q, s.k, s.vk[q], None, None, None, np.ones(len(q)))
    if s.options["no_relevant"] == "scored":
        return None
    ra_list, rb_list = [], []
    judged = [state for state in range(u.base) if level[state] >= 0]
    for pos in range(u.n):
        for s_from in judged:
            for s_to in judged:
                if level[s_to] > level[s_from]:
                    ra, rb = _raised(u, pos, s_from, s_to)
                    ra_list.append(ra)
                    rb_list.append(rb)
    empty = [np.zeros(0, np.int64)]
    qa, qb = _expand(u, np.concatenate(ra_list + empty), np.concatenate(rb_list + empty))
    if extra_relevant:  # one more relevant document unretrieved
        r = np.repeat(np.arange(len(u.codes)), copies - 1)
        e = np.tile(np.arange(copies - 1), len(u.codes))
        qa = np.concatenate([qa, _q(u, r, e)])
        qb = np.concatenate([qb, _q(u, r, e + 1)])
    drop = s.vk[qa] - s.vk[qb]
    bad = _above(s.vk[qa], s.vk[qb])
    if not bad.any():
        return None
    qa, qb = qa[bad], qb[bad]
    return _frame(s, qa, s.k, s.vk[qa], qb, s.k, s.vk[qb], drop[bad])


def realizable(s: Scores) -> pl.DataFrame | None:
    """In every binary collection with R >= 1, some ranking reaches the highest score of
    all binary rankings."""
    q = np.nonzero(np.repeat(_binary(s), s.u.copies))[0]
    frame = pl.DataFrame({"q": q, "R": _relevant(s)[q], "v": s.vk[q]}).filter(
        pl.col("v").is_not_nan()
    )
    if not frame.height:
        return None
    best = frame.sort("v", "q", descending=[True, False]).row(0, named=True)
    short = (
        frame.filter(pl.col("R") >= 1)
        .group_by("R")
        .agg(pl.col("q").sort_by("v", descending=True).first(), pl.col("v").max())
        .filter(
            pl.col("v")
            < best["v"] - TOLERANCE * pl.max_horizontal(pl.col("v").abs(), abs(best["v"]))
        )
    )
    if not short.height:
        return None
    qa = short["q"].to_numpy()
    qb = np.full(len(qa), best["q"])
    return _frame(s, qa, s.k, s.vk[qa], qb, s.k, s.vk[qb], best["v"] - s.vk[qa])


#: The check of each property, in the seed's order (:data:`PROPERTIES`).
CHECKS: dict[str, Callable[[Scores], pl.DataFrame | None]] = {
    "bounded": bounded,
    "monotonic": monotonic,
    "convergent": convergent,
    "top_weighted": top_weighted,
    "localized": localized,
    "complete": complete,
    "realizable": realizable,
}


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    both_nan = np.isnan(a) & np.isnan(b)
    close = np.abs(a - b) <= TOLERANCE * np.maximum(np.abs(a), np.abs(b))
    return bool(np.all(both_nan | close))


def _above(x: Any, y: Any) -> Any:
    """``x > y`` by more than rounding error (:data:`TOLERANCE`, relative); False with NaN."""
    return x > y + TOLERANCE * np.maximum(np.abs(x), np.abs(y))
