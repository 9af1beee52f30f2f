"""Hypothesis strategies for runs and qrels, shared by the property and oracle tests.

One generator of collections, :func:`collections`, serves every test that draws rankings
query by query; its parameters say what a test needs: how many queries, how large each
query's document pool is, how the ids look, how the scores are drawn (:func:`tied_scores`:
few distinct values, so ties; :func:`distinct_scores`: no ties; :func:`ranked_scores`: the
drawn order itself), the grades (negative ones: judged, gain 0) and whether a query may sit
on one side only (``one_sided``: rankings the qrels lack, judged queries the run lacks, so
empty rankings). Every query retrieves and judges a random subset of its pool, so runs hold
unjudged documents and qrels hold relevant documents never retrieved.

:func:`collections` gives plain mappings (``{query: {doc: score}}``, as pytrec_eval,
ir_measures and ranx take them); :func:`frame_collections` the same as Polars frames.
:func:`several_runs` draws several runs over a shared document set (ids that collations
reorder); :func:`small_run_and_qrels` and :func:`corrupted` the unsound inputs of the
bad-input tests; :func:`permutation_pairs` two orderings of the same items.

The draws are made in the order the tests drew them before they shared this module, so a
test given the same parameters generates the same examples.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import polars as pl
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

Run = dict[str, dict[str, float]]
Qrels = dict[str, dict[str, int]]
Frames = tuple[pl.DataFrame, pl.DataFrame]

RUN_SCHEMA = {"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}
QRELS_SCHEMA = {"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64}

#: Draws the scores of ``n`` retrieved documents, in ranking-list order.
Scores = Callable[[st.DrawFn, int], list[float]]


def tied_scores(values: st.SearchStrategy[Any]) -> Scores:
    """One draw from ``values`` per document: few distinct values give many ties (ranked
    by doc id, as trec_eval does, or averaged by the tie-aware measures)."""

    def scores(draw: st.DrawFn, n: int) -> list[float]:
        return [float(draw(values)) for _ in range(n)]

    return scores


def distinct_scores(low: int, high: int, divisor: int = 1) -> Scores:
    """``n`` distinct integers in ``[low, high]`` (one list draw), each divided by
    ``divisor``: no ties, for oracles that order ties differently."""

    def scores(draw: st.DrawFn, n: int) -> list[float]:
        drawn = draw(st.lists(st.integers(low, high), unique=True, min_size=n, max_size=n))
        return [float(s) / divisor for s in drawn]

    return scores


def ranked_scores() -> Scores:
    """Scores 0, -1, -2...: the documents ranked in the order drawn, no ties, no draw."""

    def scores(draw: st.DrawFn, n: int) -> list[float]:
        return [float(-i) for i in range(n)]

    return scores


#: Defaults of :func:`collections`: nine distinct scores (ties), grades -1 (judged, gain 0) to 3.
FEW_SCORES = tied_scores(st.integers(0, 8))
GRADES = st.integers(-1, 3)

#: Where a query of a one-sided collection sits: mostly on both sides.
SIDES = ("both", "both", "both", "run", "qrels")


@st.composite
def collections(
    draw: st.DrawFn,
    *,
    queries: tuple[int, int] = (1, 3),
    query_id: str = "{q}",
    pool: tuple[int, int] = (1, 20),
    doc_id: str = "d{i}",
    scores: Scores = FEW_SCORES,
    grades: st.SearchStrategy[int] = GRADES,
    one_sided: bool = False,
) -> tuple[Run, Qrels]:
    """A run and its qrels as mappings, query by query.

    Parameters
    ----------
    queries
        The range of the number of queries.
    query_id, doc_id
        Formats of the ids: ``{q}`` is the query's index from 0, ``{n}`` from 1 (numeric
        ids, as gdeval needs), ``{i}`` the document's index in its query's pool.
    pool
        The range of the size of each query's document pool; the run retrieves a non-empty
        subset of it (in drawn order) and the qrels judge another.
    scores
        How the retrieved documents' scores are drawn (:func:`tied_scores`,
        :func:`distinct_scores`, :func:`ranked_scores`).
    grades
        The grade of each judged document (negative: judged, gain 0).
    one_sided
        Put each query on both sides, or only in the run, or only in the qrels
        (:data:`SIDES`); neither side is left empty (query 0 gets one document).
    """
    run: Run = {}
    qrels: Qrels = {}
    for q in range(draw(st.integers(*queries))):
        qid = query_id.format(q=q, n=q + 1)
        docs = [doc_id.format(q=q, i=i) for i in range(draw(st.integers(*pool)))]
        side = draw(st.sampled_from(SIDES)) if one_sided else "both"
        if side != "qrels":
            ranked = draw(
                st.lists(st.sampled_from(docs), unique=True, min_size=1, max_size=len(docs))
            )
            run[qid] = dict(zip(ranked, scores(draw, len(ranked)), strict=True))
        if side != "run":
            judged = draw(
                st.lists(st.sampled_from(docs), unique=True, min_size=1, max_size=len(docs))
            )
            qrels[qid] = {d: draw(grades) for d in judged}
    first, first_doc = query_id.format(q=0, n=1), doc_id.format(q=0, i=0)
    if not run:
        run[first] = {first_doc: 1.0}
    if not qrels:
        qrels[first] = {first_doc: 1}
    return run, qrels


def frames(run: Run, qrels: Qrels) -> Frames:
    """A run and qrels given as mappings, as frames (rows in the mappings' order)."""
    return (
        pl.DataFrame(
            [(q, d, s) for q, docs in run.items() for d, s in docs.items()],
            schema=RUN_SCHEMA,
            orient="row",
        ),
        pl.DataFrame(
            [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()],
            schema=QRELS_SCHEMA,
            orient="row",
        ),
    )


def frame_collections(**parameters: Any) -> st.SearchStrategy[Frames]:
    """:func:`collections` (same parameters) as a run frame and a qrels frame."""
    return collections(**parameters).map(lambda c: frames(*c))


def graded_collections(max_grade: int = 3) -> st.SearchStrategy[tuple[Run, Qrels]]:
    """Runs with distinct scores (tools order ties differently) over 1-4 numbered queries
    (as gdeval needs) of up to 12 documents, grades -1 to ``max_grade``: the DCG family's
    and the user measures' oracles."""
    return collections(
        queries=(1, 4),
        query_id="{n}",
        pool=(1, 12),
        doc_id="d{q}_{i}",
        scores=distinct_scores(0, 1000, divisor=10),
        grades=st.integers(-1, max_grade),
    )


#: Settings of the oracle tests on :func:`graded_collections`: the same examples on every run
#: (an oracle's disagreement reproduces), no deadline (the oracles are slow to start).
DERANDOMIZED = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)


#: Document ids of :func:`several_runs` (case and collation matter in their order), and
#: its scores: six values, a tiny one and a negative one among them.
SHARED_DOCS = (*(f"d{i}" for i in range(8)), "D1", "a", "B")
SHARED_SCORES = tied_scores(st.sampled_from([0.0, 0.5, 1.0, 2.0, -1.0, 1e-9]))


@st.composite
def several_runs(
    draw: st.DrawFn,
    *,
    runs: Sequence[str] = ("r1", "r2", "r3"),
    queries: Sequence[str] = ("1", "2", "10", "q"),
    docs: Sequence[str] = SHARED_DOCS,
    max_ranked: int = 10,
    scores: Scores = SHARED_SCORES,
    grades: st.SearchStrategy[int] = GRADES,
) -> Frames:
    """Several runs (a ``run_id`` column) over a shared document set: each run ranks a
    subset of ``queries`` (not always the same), the qrels judge another subset (so runs
    lack judged queries and queries lack judgments), each query up to ``max_ranked``
    documents with many tied scores."""
    run_rows = []
    for run in draw(st.lists(st.sampled_from(list(runs)), min_size=1, unique=True)):
        for q in draw(st.lists(st.sampled_from(list(queries)), min_size=1, unique=True)):
            ranked = draw(
                st.lists(st.sampled_from(list(docs)), min_size=1, max_size=max_ranked, unique=True)
            )
            run_rows += [
                (run, q, d, s) for d, s in zip(ranked, scores(draw, len(ranked)), strict=True)
            ]
    qrels_rows = []
    for q in draw(st.lists(st.sampled_from(list(queries)), min_size=1, unique=True)):
        for d in draw(
            st.lists(st.sampled_from(list(docs)), min_size=1, max_size=max_ranked, unique=True)
        ):
            qrels_rows.append((q, d, draw(grades)))
    run_schema = {"run_id": pl.String, **RUN_SCHEMA}
    return (
        pl.DataFrame(run_rows, schema=run_schema, orient="row"),
        pl.DataFrame(qrels_rows, schema=QRELS_SCHEMA, orient="row"),
    )


# --------------------------------------------------------------------------- unsound input


@st.composite
def small_run_and_qrels(draw: st.DrawFn) -> Frames:
    """Up to 8 run rows drawn one by one over 3 queries and 7 documents (repeated pairs
    dropped), scores with ties and -0.0; four fixed judgments with drawn grades -1 to 2."""
    queries = draw(st.lists(st.sampled_from(["q1", "q2", "q3"]), min_size=1, max_size=8))
    docs = [f"d{draw(st.integers(0, 6))}" for _ in queries]
    scores = draw(
        st.lists(
            st.sampled_from([0.0, -0.0, 0.5, 1.0, 2.0]),
            min_size=len(queries),
            max_size=len(queries),
        )
    )
    run = pl.DataFrame({"query_id": queries, "doc_id": docs, "score": scores})
    run = run.unique(["query_id", "doc_id"], keep="first", maintain_order=True)
    qrels = pl.DataFrame(
        {
            "query_id": ["q1", "q1", "q2", "q3"],
            "doc_id": ["d1", "d2", "d3", "d4"],
            "relevance": draw(st.lists(st.integers(-1, 2), min_size=4, max_size=4)),
        }
    )
    return run, qrels


def _dup_row(frame: pl.DataFrame) -> pl.DataFrame:
    return pl.concat([frame, frame.head(1)])


#: Ways to spoil a sound run and qrels: duplicate rows, a NaN, null or infinite score,
#: fractional grades, extra columns, an empty run or qrels.
CORRUPTIONS: list[Callable[[pl.DataFrame, pl.DataFrame], Frames]] = [
    lambda r, q: (_dup_row(r), q),
    lambda r, q: (r, _dup_row(q)),
    lambda r, q: (r.with_columns(pl.col("score").head(1).extend_constant(float("nan"), 0)
                                 .append(pl.col("score").slice(1)).alias("score")), q),
    lambda r, q: (r.with_columns(score=pl.when(pl.int_range(pl.len()) == 0).then(None)
                                 .otherwise(pl.col("score"))), q),
    lambda r, q: (r.with_columns(score=pl.when(pl.int_range(pl.len()) == 0).then(float("inf"))
                                 .otherwise(pl.col("score"))), q),
    lambda r, q: (r, q.with_columns(pl.col("relevance").cast(pl.Float64) + 0.5)),
    lambda r, q: (r.with_columns(pl.lit(9).alias("relevance"), pl.lit(0).alias("rank")), q),
    lambda r, q: (r.clear(), q),
    lambda r, q: (r, q.clear()),
]  # fmt: skip


@st.composite
def corrupted(
    draw: st.DrawFn,
    base: st.SearchStrategy[Frames],
    corruptions: Sequence[Callable[[pl.DataFrame, pl.DataFrame], Frames]] = CORRUPTIONS,
    max_corruptions: int = 2,
) -> Frames:
    """A run and qrels from ``base``, then up to ``max_corruptions`` of ``corruptions``."""
    run, qrels = draw(base)
    for corruption in draw(st.lists(st.sampled_from(corruptions), max_size=max_corruptions)):
        run, qrels = corruption(run, qrels)
    return run, qrels


# --------------------------------------------------------------------------- orderings


def permutation_pairs(
    min_size: int = 2, max_size: int = 40
) -> st.SearchStrategy[tuple[list[int], list[int]]]:
    """Two orderings of the same ``n`` items, ``n`` in ``[min_size, max_size]``."""
    return st.integers(min_size, max_size).flatmap(
        lambda n: st.tuples(st.permutations(range(n)), st.permutations(range(n)))
    )
