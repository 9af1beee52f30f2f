"""The seeded generator of the benchmark workloads: msmarco, campaign and deep.

What each workload holds is told by ``generate.py`` (its command line) and
``benchmarks/README.md``. Each workload draws from its own
``numpy.random.default_rng([seed, index])``; :func:`ensure` writes the TREC text and
Parquet files where :func:`bench.layout.workload` says, the manifest last, unless a
complete set is there already.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl

from bench.layout import (
    CAMPAIGN_RUNS,
    DEEP_TAG,
    DEFAULT_SEED,
    MSMARCO_TAG,
    WORKLOADS,
    Workload,
    workload,
)

DEPTH = 1000

MSMARCO_QUERIES = 7000
MSMARCO_DOC_SPACE = (1_000_000, 10_000_000)

CAMPAIGN_QUERIES = 50
CAMPAIGN_POOL = 4000
CAMPAIGN_DOC_SPACE = (0, 50_000_000)
CAMPAIGN_JUDGED = (300, 600)

DEEP_QUERIES = 7000
DEEP_JUDGED = (150, 250)
DEEP_RETRIEVED = 0.85
DEEP_DOC_SPACE = (1, 10**17)


def n_queries(name: str, scale: float) -> int:
    """Number of queries of a workload at a given scale (at least one).

    Parameters
    ----------
    name
        Workload name.
    scale
        Multiplier of the full-size number of queries.

    Returns
    -------
    int
        The scaled number of queries.
    """
    full = {"msmarco": MSMARCO_QUERIES, "deep": DEEP_QUERIES}.get(name, CAMPAIGN_QUERIES)
    return max(1, round(full * scale))


def unique_ids(
    rng: np.random.Generator, rows: int, cols: int, space: tuple[int, int]
) -> np.ndarray:
    """Draw integer ids that are unique within each row.

    Parameters
    ----------
    rng
        Random generator.
    rows, cols
        Shape of the result.
    space
        Half-open interval ``[low, high)`` of the ids.

    Returns
    -------
    numpy.ndarray
        ``int64`` array of shape ``(rows, cols)``, rows in random order.
    """
    ids = rng.integers(*space, size=(rows, cols))
    while True:
        ordered = np.sort(ids, axis=1)
        bad = np.flatnonzero((ordered[:, 1:] == ordered[:, :-1]).any(axis=1))
        if bad.size == 0:
            return ids
        ids[bad] = rng.integers(*space, size=(bad.size, cols))


def msmarco_scores(rng: np.random.Generator, queries: int) -> np.ndarray:
    """BM25-like descending scores, about 3% of them tied with the previous one.

    Parameters
    ----------
    rng
        Random generator.
    queries
        Number of queries (rows).

    Returns
    -------
    numpy.ndarray
        ``float64`` array of shape ``(queries, DEPTH)``, each row non-increasing.
    """
    top = rng.uniform(15.0, 35.0, size=(queries, 1))
    gaps = rng.exponential(0.012, size=(queries, DEPTH))
    gaps[:, 0] = 0.0
    gaps[rng.random(size=gaps.shape) < 0.03] = 0.0
    return top - np.cumsum(gaps, axis=1)


def msmarco_rank(rng: np.random.Generator, taken: set[int]) -> int:
    """Draw a 0-based rank, skewed to the top, not already in ``taken``."""
    while True:
        rank = min(int(rng.geometric(0.05)) - 1, DEPTH - 1)
        if rank not in taken:
            taken.add(rank)
            return rank


def msmarco_unretrieved(rng: np.random.Generator, retrieved: np.ndarray, taken: set[int]) -> int:
    """Draw a document id absent from the ranking and from the judged documents."""
    while True:
        doc = int(rng.integers(*MSMARCO_DOC_SPACE))
        if doc not in taken and not np.any(retrieved == doc):
            taken.add(doc)
            return doc


def msmarco_query_qrels(rng: np.random.Generator, docs: np.ndarray) -> list[tuple[int, int]]:
    """Judgments of one MS MARCO-like query: 1-4 documents, at least one relevant.

    Parameters
    ----------
    rng
        Random generator.
    docs
        Document ids ranked for the query, in rank order.

    Returns
    -------
    list of (int, int)
        ``(doc_id, grade)`` pairs; about 65% of the documents are retrieved.
    """
    count = int(rng.choice([1, 2, 3, 4], p=[0.6, 0.25, 0.1, 0.05]))
    grades = rng.choice([0, 1, 2, 3], size=count, p=[0.1, 0.75, 0.1, 0.05])
    grades[0] = max(int(grades[0]), 1)
    ranks: set[int] = set()
    judged: set[int] = set()
    pairs = []
    for grade in grades:
        if rng.random() < 0.65:
            doc = int(docs[msmarco_rank(rng, ranks)])
            judged.add(doc)
        else:
            doc = msmarco_unretrieved(rng, docs, judged)
        pairs.append((doc, int(grade)))
    return pairs


def msmarco_qrels(rng: np.random.Generator, qids: np.ndarray, docs: np.ndarray) -> pl.DataFrame:
    """Sparse MS MARCO-like qrels for every query of the run.

    Parameters
    ----------
    rng
        Random generator.
    qids
        Integer query ids, shape ``(queries,)``.
    docs
        Ranked integer document ids, shape ``(queries, DEPTH)``.

    Returns
    -------
    polars.DataFrame
        Columns ``query_id, doc_id, relevance`` (``String, String, Int64``).
    """
    rows = [
        (str(qid), f"D{doc}", grade)
        for qid, ranked in zip(qids, docs, strict=True)
        for doc, grade in msmarco_query_qrels(rng, ranked)
    ]
    schema = {"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64}
    return pl.DataFrame(rows, schema=schema, orient="row")


def msmarco_frames(rng: np.random.Generator, queries: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Build the MS MARCO-like run and qrels.

    Parameters
    ----------
    rng
        Random generator.
    queries
        Number of queries.

    Returns
    -------
    tuple of polars.DataFrame
        The run (``run_id, query_id, doc_id, score, rank``) and the qrels.
    """
    qids = np.sort(rng.choice(np.arange(1, 1_200_000), size=queries, replace=False))
    docs = unique_ids(rng, queries, DEPTH, MSMARCO_DOC_SPACE)
    scores = msmarco_scores(rng, queries)
    run = pl.DataFrame(
        {
            "run_id": MSMARCO_TAG,
            "query_id": np.repeat(qids, DEPTH),
            "doc_id": docs.ravel(),
            "score": scores.ravel(),
            "rank": np.tile(np.arange(1, DEPTH + 1), queries),
        }
    ).with_columns(pl.col("query_id").cast(pl.String), pl.format("D{}", "doc_id").alias("doc_id"))
    return run, msmarco_qrels(rng, qids, docs)


def campaign_query(
    rng: np.random.Generator, strength: np.ndarray, quantized: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rank a shared pool of documents for one query in every run.

    Each pool document has a latent relevance ``z ~ N(0, 1)``; run ``r`` scores it
    ``strength[r] * z + N(0, 1)`` and keeps its top ``DEPTH`` documents.

    Parameters
    ----------
    rng
        Random generator.
    strength
        Per-run weight of the latent relevance, shape ``(runs,)``.
    quantized
        Per-run flag: round scores to three decimals (which makes many ties).

    Returns
    -------
    tuple of numpy.ndarray
        Pool document ids ``(POOL,)``, latent relevance ``(POOL,)``, ranked pool indices
        ``(runs, DEPTH)`` and their scores ``(runs, DEPTH)``.
    """
    pool = unique_ids(rng, 1, CAMPAIGN_POOL, CAMPAIGN_DOC_SPACE)[0]
    latent = rng.standard_normal(CAMPAIGN_POOL)
    noise = rng.standard_normal((strength.size, CAMPAIGN_POOL))
    raw = 20.0 + 3.0 * (strength[:, None] * latent[None, :] + noise)
    raw[quantized] = np.round(raw[quantized], 3)
    order = np.argsort(-raw, axis=1, kind="stable")[:, :DEPTH]
    return pool, latent, order, np.take_along_axis(raw, order, axis=1)


def campaign_judgments(
    rng: np.random.Generator, latent: np.ndarray, order: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Pool the best-ranked documents of all runs and grade them.

    Parameters
    ----------
    rng
        Random generator.
    latent
        Latent relevance of the pool documents.
    order
        Ranked pool indices of every run, shape ``(runs, DEPTH)``.

    Returns
    -------
    tuple of numpy.ndarray
        Judged pool indices and their grades (0-2, at least one grade above 0).
    """
    best = np.full(latent.size, DEPTH, dtype=np.int64)
    ranks = np.broadcast_to(np.arange(DEPTH), order.shape)
    np.minimum.at(best, order.ravel(), ranks.ravel())
    retrieved = np.flatnonzero(best < DEPTH)
    count = min(int(rng.integers(*CAMPAIGN_JUDGED, endpoint=True)), retrieved.size)
    judged = retrieved[np.argsort(best[retrieved], kind="stable")[:count]]
    grades = (latent[judged] > 1.6).astype(np.int64) + (latent[judged] > 2.3)
    if not grades.any():
        grades[0] = 1
    return judged, grades


def doc_label() -> pl.Expr:
    """Format an integer ``doc_id`` column as a campaign document id (``D00012345``)."""
    return pl.format("D{}", pl.col("doc_id").cast(pl.String).str.zfill(8)).alias("doc_id")


def campaign_frames(rng: np.random.Generator, queries: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Build the campaign runs (all in one frame) and the pooled qrels.

    Parameters
    ----------
    rng
        Random generator.
    queries
        Number of queries.

    Returns
    -------
    tuple of polars.DataFrame
        The runs (``run_id, query_id, doc_id, score, rank``) and the qrels.
    """
    strength = rng.uniform(0.2, 1.5, size=CAMPAIGN_RUNS)
    quantized = rng.random(CAMPAIGN_RUNS) < 0.1
    runs, qrels = [], []
    for qid in range(401, 401 + queries):
        pool, latent, order, scores = campaign_query(rng, strength, quantized)
        runs.append(
            pl.DataFrame(
                {
                    "run_id": np.repeat(np.arange(CAMPAIGN_RUNS), DEPTH),
                    "query_id": str(qid),
                    "doc_id": pool[order].ravel(),
                    "score": scores.ravel(),
                    "rank": np.tile(np.arange(1, DEPTH + 1), CAMPAIGN_RUNS),
                }
            )
        )
        judged, grades = campaign_judgments(rng, latent, order)
        qrels.append(
            pl.DataFrame({"query_id": str(qid), "doc_id": pool[judged], "relevance": grades})
        )
    run = (
        pl.concat(runs)
        .with_columns(
            pl.format("run{}", pl.col("run_id").cast(pl.String).str.zfill(3)).alias("run_id")
        )
        .with_columns(doc_label())
        .sort("run_id", maintain_order=True)
    )
    qrel_frame = pl.concat(qrels).with_columns(doc_label())
    return run, qrel_frame


def deep_labels(ids: np.ndarray, rng: np.random.Generator) -> pl.Series:
    """Document ids of 20-29 characters: ``doc-`` and the integer zero-padded to 16-25
    digits (a width drawn per document)."""
    width = rng.integers(16, 26, size=ids.size)
    return (
        pl.DataFrame({"n": ids, "w": width})
        .select(pl.format("doc-{}", pl.col("n").cast(pl.String).str.zfill(pl.col("w"))))
        .to_series()
        .alias("doc_id")
    )


def deep_frames(rng: np.random.Generator, queries: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Build the deep-pool run and its qrels.

    Scores are BM25-like (as :func:`msmarco_scores`) rounded to four decimals. Each query
    judges 150-250 documents: about 85% drawn from its ranking, each rank with a weight
    ``1 / (rank + 20)`` (the top more often), the rest documents no query retrieves;
    grades 0-3, relevance likelier near the top.

    Parameters
    ----------
    rng
        Random generator.
    queries
        Number of queries.

    Returns
    -------
    tuple of polars.DataFrame
        The run (``run_id, query_id, doc_id, score, rank``) and the qrels.
    """
    qids = np.sort(rng.choice(np.arange(1, 1_200_000), size=queries, replace=False))
    # integer ids from one space: the unretrieved ones are drawn above it
    docs = unique_ids(rng, queries, DEPTH, (DEEP_DOC_SPACE[0], DEEP_DOC_SPACE[1] // 2))
    scores = np.round(msmarco_scores(rng, queries), 4)
    labels = deep_labels(docs.ravel(), rng).to_numpy().reshape(queries, DEPTH)
    weights = 1.0 / (np.arange(DEPTH) + 20.0)
    weights /= weights.sum()
    q_rows, d_rows, g_rows = [], [], []
    for i, qid in enumerate(qids):
        count = int(rng.integers(*DEEP_JUDGED, endpoint=True))
        inside = int(rng.binomial(count, DEEP_RETRIEVED))
        ranks = rng.choice(DEPTH, size=inside, replace=False, p=weights)
        relevant = rng.random(inside) < 0.6 * np.exp(-ranks / 150.0)
        grades = relevant * rng.choice([1, 2, 3], size=inside, p=[0.6, 0.3, 0.1])
        outside = rng.integers(DEEP_DOC_SPACE[1] // 2, DEEP_DOC_SPACE[1], size=count - inside)
        q_rows.append(np.full(count, qid))
        d_rows.append(np.concatenate([docs[i, ranks], outside]))
        g_rows.append(np.concatenate([grades, rng.choice([0, 1], size=outside.size)]))
    judged = np.concatenate(d_rows)
    qrels = pl.DataFrame(
        {
            "query_id": np.concatenate(q_rows).astype(str),
            "doc_id": judged,
            "relevance": np.concatenate(g_rows).astype(np.int64),
        }
    )
    # a judged document keeps the label its run line has; unretrieved ones get their own
    known = pl.DataFrame({"doc_id": docs.ravel(), "label": labels.ravel()}).unique("doc_id")
    qrels = (
        qrels.join(known, on="doc_id", how="left")
        .with_columns(pl.coalesce("label", deep_labels(judged, rng)).alias("doc_id"))
        .select("query_id", "doc_id", "relevance")
    )
    run = pl.DataFrame(
        {
            "run_id": DEEP_TAG,
            "query_id": np.repeat(qids, DEPTH).astype(str),
            "doc_id": labels.ravel(),
            "score": scores.ravel(),
            "rank": np.tile(np.arange(1, DEPTH + 1), queries),
        }
    )
    return run, qrels


def write_trec_run(run: pl.DataFrame, path: Path) -> None:
    """Write one run as ``qid Q0 docid rank score tag`` lines.

    Scores are written by Polars with the shortest representation that round-trips
    to the same float64 (what ``repr`` prints).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = run.select("query_id", pl.lit("Q0"), "doc_id", "rank", "score", "run_id")
    lines.write_csv(path, separator=" ", include_header=False, quote_style="never")


def write_trec_qrels(qrels: pl.DataFrame, path: Path) -> None:
    """Write qrels as ``qid 0 docid rel`` lines."""
    lines = qrels.select("query_id", pl.lit("0"), "doc_id", "relevance")
    lines.write_csv(path, separator=" ", include_header=False, quote_style="never")


def write_workload(spec: Workload, run: pl.DataFrame, qrels: pl.DataFrame) -> None:
    """Write the text and Parquet files of a workload, then its manifest.

    Parameters
    ----------
    spec
        File layout.
    run
        Every run, with columns ``run_id, query_id, doc_id, score, rank``.
    qrels
        Columns ``query_id, doc_id, relevance``.
    """
    for (run_id,), part in run.partition_by("run_id", as_dict=True, maintain_order=True).items():
        write_trec_run(part, spec.directory / "runs" / f"{run_id}.trec")
    columns = (
        ["run_id", "query_id", "doc_id", "score"]
        if len(spec.run_ids) > 1
        else ["query_id", "doc_id", "score"]
    )
    run.select(columns).write_parquet(spec.parquet_run)
    write_trec_qrels(qrels, spec.text_qrels)
    qrels.write_parquet(spec.parquet_qrels)
    manifest = {
        "workload": spec.name,
        "runs": len(spec.run_ids),
        "queries": run["query_id"].n_unique(),
        "run_lines": run.height,
        "qrels_lines": qrels.height,
        "relevant": int((qrels["relevance"] > 0).sum()),
    }
    spec.manifest.write_text(json.dumps(manifest, indent=2) + "\n")


BUILDERS: dict[str, Callable[[np.random.Generator, int], tuple[pl.DataFrame, pl.DataFrame]]] = {
    "msmarco": msmarco_frames,
    "campaign": campaign_frames,
    "deep": deep_frames,
}


def ensure(name: str, data_dir: Path, scale: float, seed: int = DEFAULT_SEED) -> Workload:
    """Generate a workload unless its files are already complete.

    Parameters
    ----------
    name
        ``"msmarco"``, ``"campaign"`` or ``"deep"``.
    data_dir
        Cache directory.
    scale
        Multiplier of the number of queries.
    seed
        Base seed; each workload draws from ``default_rng([seed, index])``.

    Returns
    -------
    Workload
        The layout of the (now existing) files.
    """
    spec = workload(name, data_dir, scale, seed)
    if spec.is_complete():
        return spec
    spec.directory.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng([seed, WORKLOADS.index(name)])
    run, qrels = BUILDERS[name](rng, n_queries(name, scale))
    write_workload(spec, run, qrels)
    return spec
