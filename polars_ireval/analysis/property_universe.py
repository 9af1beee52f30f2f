"""The universe of :func:`polars_ireval.properties`: every ranking of length k + 1 over a few
states, and the synthetic queries that score them.

A state is a grade (default 0, 1, 2) or an unjudged document (:data:`UNJUDGED`). A ranking
is a row of state numbers; read as a number in base (number of states), it has a key, and
the keys are sorted, so that the ranking with one position changed is found by adding to the
key (:meth:`Universe.find`). Each ranking is scored in ``unretrieved + 1`` collections (0 to
``unretrieved`` relevant documents that it does not retrieve): one synthetic query each
(:func:`universe_inputs`). See :mod:`polars_ireval.analysis.properties` for what is audited
on them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from polars_ireval.errors import ParameterError

#: The character of an unjudged document in a ranking string ("01?10").
UNJUDGED = "?"


@dataclass(frozen=True)
class Universe:
    """The rankings of length n = k + 1 and their collections, as synthetic queries."""

    k: int
    codes: np.ndarray  # (rankings, n): state index per position
    keys: np.ndarray  # (rankings,): the code as a base-S number, sorted
    states: tuple[int | None, ...]  # grade per state, None for unjudged
    unretrieved: int

    @property
    def n(self) -> int:
        return self.k + 1

    @property
    def copies(self) -> int:
        return self.unretrieved + 1

    @property
    def queries(self) -> int:
        return len(self.codes) * self.copies

    @property
    def base(self) -> int:
        return len(self.states)

    def grade_values(self) -> np.ndarray:
        """Grade per state, -1 for unjudged."""
        return np.array([-1 if g is None else g for g in self.states], dtype=np.int64)

    def find(self, keys: np.ndarray) -> np.ndarray:
        """Index of each ranking key, -1 when it is not in the universe."""
        pos = np.searchsorted(self.keys, keys)
        pos = np.minimum(pos, len(self.keys) - 1)
        return np.where(self.keys[pos] == keys, pos, -1)

    def strings(self) -> pl.Series:
        """The ranking strings, one per ranking."""
        chars = [UNJUDGED if g is None else str(g) for g in self.states]
        cols = [pl.Series(np.array(chars)[self.codes[:, i]]).alias(str(i)) for i in range(self.n)]
        return pl.DataFrame(cols).select(pl.concat_str(pl.all()).alias("ranking"))["ranking"]


def universe(
    k: int,
    grades: Sequence[int],
    unjudged: bool,
    unretrieved: int,
    budget: int,
    relevant: Sequence[int] = (1,),
) -> Universe:
    """Every ranking of length k + 1 over the states, or, past ``budget`` queries, every
    binary ranking (grades 0 and r, for each relevance threshold r of ``relevant``) and,
    when they fit, those with one position changed to another state."""
    states: tuple[int | None, ...] = (*grades, *((None,) if unjudged else ()))
    base, n, copies = len(states), k + 1, unretrieved + 1
    if base**n * copies <= budget:
        codes = _all_codes(base, n)
    else:
        thresholds = sorted({r for r in relevant if r in grades and r != 0})
        count = len(thresholds) * 2**n
        if count * copies > budget:
            # as a power past 2**60: Python refuses to print integers of 4,300+ digits
            many = f"{count * copies}" if n <= 60 else f"{len(thresholds) * copies} x 2**{n}"
            raise ParameterError(
                f"depth k={k}: the {many} binary rankings of length {n} and their "
                f"collections exceed max_queries={budget}; audit at a smaller depth (the "
                "properties rarely change with k) or raise max_queries"
            )
        zero = grades.index(0)
        binaries = [np.where(_all_codes(2, n) == 0, zero, grades.index(r)) for r in thresholds]
        binary = np.unique(np.concatenate(binaries), axis=0)
        variants = [binary]
        if len(binary) * (1 + n * (base - 2)) * copies <= budget:
            for pos in range(n):
                for s in range(base):
                    v = binary.copy()
                    v[:, pos] = s
                    variants.append(v)
        codes = np.unique(np.concatenate(variants), axis=0)
    weights = base ** np.arange(n - 1, -1, -1, dtype=np.int64)
    keys = codes.astype(np.int64) @ weights
    order = np.argsort(keys)
    return Universe(k, codes[order], keys[order], states, unretrieved)


def _all_codes(base: int, n: int) -> np.ndarray:
    idx = np.arange(base**n, dtype=np.int64)
    powers = base ** np.arange(n - 1, -1, -1, dtype=np.int64)
    return ((idx[:, None] // powers) % base).astype(np.int64)


def universe_inputs(u: Universe, probes: Sequence[int]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The run and qrels of every query: the universe's, then one ideal ranking per probe
    depth D (D documents of grade 1, R = D)."""
    n, copies = u.n, u.copies
    q = np.arange(u.queries, dtype=np.int64)
    rank_of = q // copies
    extra = q % copies
    qid = np.repeat(q, n)
    pos = np.tile(np.arange(1, n + 1, dtype=np.int64), u.queries)
    grade = u.grade_values()[u.codes[rank_of].ravel()]
    run = pl.DataFrame({"q": qid, "pos": pos})
    judged = grade >= 0
    qrels = [pl.DataFrame({"q": qid[judged], "doc": pos[judged], "relevance": grade[judged]})]
    # unretrieved relevant documents (grade 1), and one unretrieved non-relevant document
    uq = np.repeat(q, extra)
    udoc = n + 1 + (np.arange(len(uq)) - np.repeat(np.cumsum(extra) - extra, extra))
    qrels.append(pl.DataFrame({"q": uq, "doc": udoc, "relevance": np.ones(len(uq), np.int64)}))
    qrels.append(pl.DataFrame({"q": q, "doc": np.full(len(q), 10**6), "relevance": 0}))
    start = u.queries
    for i, depth in enumerate(probes):
        pq = np.full(depth, start + i, dtype=np.int64)
        pp = np.arange(1, depth + 1, dtype=np.int64)
        run = pl.concat([run, pl.DataFrame({"q": pq, "pos": pp})])
        qrels.append(pl.DataFrame({"q": pq, "doc": pp, "relevance": np.ones(depth, np.int64)}))
    run_f = run.select(
        pl.col("q").cast(pl.String).alias("query_id"),
        ("d" + pl.col("pos").cast(pl.String)).alias("doc_id"),
        (-pl.col("pos")).cast(pl.Float64).alias("score"),
    )
    qrels_f = pl.concat([f.with_columns(pl.col("relevance").cast(pl.Int64)) for f in qrels]).select(
        pl.col("q").cast(pl.String).alias("query_id"),
        ("d" + pl.col("doc").cast(pl.String)).alias("doc_id"),
        pl.col("relevance"),
    )
    return run_f, qrels_f


def probe_depths(k: int) -> list[int]:
    return sorted({min(d, 1000) for d in (2 * k, 10 * k, 100 * k)} - {k, k + 1})
