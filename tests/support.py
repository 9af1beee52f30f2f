"""Helpers shared by several test modules: measure strings derived from the registry, the
generated run and qrels of the engine tests, and the comparison of two engines' frames.

(Test modules import from here, never from each other; pytest would otherwise collect a
test twice or run a module's fixtures where they were not meant to run.)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import polars as pl

import polars_ireval as ir
from polars_ireval.registry import REGISTRY, MeasureDef

# --------------------------------------------------------------------------- measure strings

#: Values for the required parameters that are not the cutoff.
REQUIRED = {"recall": 0.5, "mult": 2.0, "measure": "INST@5", "num_docs": 100_000}


def measure_label(defn: MeasureDef, k: int) -> str:
    """A measure string for ``defn``: its cutoff at ``k`` and its required parameters."""
    args = []
    for p in defn.params:
        if p.name == defn.cutoff or not p.required:
            continue
        if p.name not in REQUIRED:
            raise AssertionError(f"{defn.name}: add a value for required parameter {p.name!r}")
        args.append(f"{p.name}={REQUIRED[p.name]!r}")
    text = defn.name + (f"({','.join(args)})" if args else "")
    if defn.cutoff is None:
        return text
    return text + f"@{REQUIRED.get(defn.cutoff, k)!r}"


def every_measure(k: int = 5) -> list[str]:
    """One measure string per registry measure (cutoff ``k``), in declaration order."""
    return [measure_label(d, k) for d in ir.definitions()]


def uncovered(names: Iterable[str], exempt: Iterable[str] = ()) -> list[str]:
    """The registry measures that neither the measure strings ``names`` nor ``exempt`` (a
    mapping or set of measure names left out on purpose, each for a stated reason) name;
    what a test asserts empty so that a new measure cannot be left out of a sample."""
    named = {m.name for m in ir.parse_measures(list(names))}
    exempt = set(exempt)
    unknown = exempt - set(REGISTRY)
    assert not unknown, f"exempted measures that the registry lacks: {sorted(unknown)}"
    return sorted(set(REGISTRY) - named - exempt)


# --------------------------------------------------------------------------- generated data

#: Ids that collations reorder (case, accents, punctuation, trailing space, digits).
TIE_IDS = ["a_b", "a-b", "aB", "Ab", "é1", "D1 ", "D1", "D10", "D2"]


def generated(seed: int = 0, runs: int = 3, queries: int = 12) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Runs with many ties (few distinct scores, -0.0 and 0.0), ids that collations reorder,
    unjudged and negative-grade documents, judged documents never retrieved, a query the
    runs lack, a query the qrels lack, a query without relevant documents."""
    rng = np.random.default_rng(seed)
    ids = TIE_IDS + [f"d{i}" for i in range(30)]
    rows = []
    for r in range(runs):
        for q in range(queries):
            n = int(rng.integers(0 if q == 3 else 1, 25))
            docs = rng.choice(ids, size=min(n, len(ids)), replace=False)
            scores = rng.choice([0.0, -0.0, 0.5, 1.0, 2.0, -1.0], size=len(docs))
            rows += [
                (f"r{r}", f"q{q}", str(d), float(s)) for d, s in zip(docs, scores, strict=True)
            ]
    run = pl.DataFrame(rows, schema=["run_id", "query_id", "doc_id", "score"], orient="row")
    qrows = []
    for q in range(queries + 1):  # q{queries} is judged but never ranked
        if q == 5:
            continue  # ranked but never judged
        docs = rng.choice(ids, size=int(rng.integers(1, 20)), replace=False)
        grades = rng.choice([-1, 0, 0, 1, 1, 2, 3], size=len(docs))
        if q == 7:
            grades = np.minimum(grades, 0)  # no relevant document
        qrows += [(f"q{q}", str(d), int(g)) for d, g in zip(docs, grades, strict=True)]
    qrels = pl.DataFrame(qrows, schema=["query_id", "doc_id", "relevance"], orient="row")
    return run, qrels


def tie_frames() -> tuple[pl.DataFrame, pl.DataFrame]:
    """q1: ties on 0.0, -0.0 and 1.0; q2: every document of TIE_IDS tied at 0.0."""
    n = len(TIE_IDS)
    scores = [0.0, -0.0, 1.0, 1.0, 0.0, -0.0, 1.0, 0.0, -0.0]
    run = pl.DataFrame(
        {
            "run_id": ["r"] * n * 2,
            "query_id": ["q1"] * n + ["q2"] * n,
            "doc_id": TIE_IDS * 2,
            "score": scores + [0.0] * n,
        }
    )
    qrels = pl.DataFrame(
        {"query_id": ["q1", "q2", "q1"], "doc_id": ["D1", "é1", "zz"], "relevance": [1, 2, 1]}
    )
    return run, qrels


#: SPARSE_JUDGMENTS values that make evaluate choose each of the judge's rank_by strategies.
RANK_BY = {"window": 0.0, "count": float("inf")}


# --------------------------------------------------------------------------- comparisons


def compare(got: pl.DataFrame, want: pl.DataFrame, tol: float = 1e-12) -> None:
    """Two engines' results: the same columns, keys in the same order, values to ``tol``
    (NaN, a value undefined for the query, only where the other engine has NaN too)."""
    assert got.columns == want.columns
    assert got.height == want.height
    keys = [c for c in want.columns if c != "value"]
    assert got.select(keys).equals(want.select(keys))
    diff = (got["value"] - want["value"]).abs()
    both_nan = got["value"].is_nan() & want["value"].is_nan()
    bad = got.with_columns(want=want["value"], diff=diff, both_nan=both_nan).filter(
        ~((pl.col("diff") <= tol) | pl.col("both_nan"))
    )
    assert bad.height == 0, bad


def compare_residuals(got: pl.DataFrame, want: pl.DataFrame, tol: float = 1e-12) -> None:
    """value and residual to ``tol``; projected is the engine's own v + r v / (1 - r) (null
    unless r < 1) where 1 - r keeps its digits (r at least 1e-6 below 1: RBP and P divide by
    their judged weight itself, which differs there only by rounding), and the other
    engine's within the error that ``tol`` on v and r allows: p = v / (1 - r), so
    |dp| <= tol (1 / (1 - r) + v / (1 - r)^2), large as r nears 1."""
    assert got.columns == want.columns
    assert got.height == want.height
    keys = [c for c in want.columns if c not in ("value", "residual", "projected")]
    assert got.select(keys).equals(want.select(keys))
    for col in ("value", "residual"):
        assert (got[col].is_null() == want[col].is_null()).all(), col
        assert ((got[col] - want[col]).abs() <= tol).fill_null(True).all(), col
    v, r, p = got["value"], got["residual"], got["projected"]
    own = pl.select(pl.when(r < 1).then(v + r * v / (1 - r))).to_series()
    conditioned = (r <= 1 - 1e-6).fill_null(True)
    assert ((p.is_null() == own.is_null()) | ~conditioned).all()
    assert (((p - own).abs() <= tol * (1 + own.abs())) | ~conditioned).fill_null(True).all()
    rw = want["residual"]
    near_one = ((r - 1).abs() <= tol) | ((rw - 1).abs() <= tol)
    assert ((p.is_null() == want["projected"].is_null()) | near_one).fill_null(True).all()
    bound = tol * (1 / (1 - rw) + want["value"].abs() / (1 - rw) ** 2)
    assert ((p - want["projected"]).abs() <= bound).fill_null(True).all()


def to_polars(df: Any) -> pl.DataFrame:
    """A Spark DataFrame as a Polars one (through Arrow)."""
    out = pl.from_arrow(df.toArrow())
    assert isinstance(out, pl.DataFrame)
    return out


def nearly_unjudged() -> tuple[pl.DataFrame, pl.DataFrame]:
    """Run X ranks 100 documents, of which the qrels judge one, relevant, at rank 82; run Y
    ranks it first: RBP(p=0.8)'s judged weight is then 0.2 * 0.8^81 = 2.8e-9 for X (all its
    base: its projection is exactly 1), and 0.2 for Y."""
    docs = [f"x{i}" for i in range(100)]
    docs[81] = "star"
    rows = [("X", "q", d, 100.0 - i) for i, d in enumerate(docs)]
    rows += [("Y", "q", "star", 10.0), ("Y", "q", "y1", 9.0)]
    run = pl.DataFrame(rows, schema=["run_id", "query_id", "doc_id", "score"], orient="row")
    qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["star"], "relevance": [1]})
    return run, qrels
