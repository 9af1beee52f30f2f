"""Helpers of the oracle tests on collections given as mappings (``{query: {doc: score}}``,
as ranx, ir_measures and pytrec_eval take them): our per-query values on them, the ranking
order every tool sees, the shared data as such mappings, and the discounts from their
definitions (the plain-Python transcriptions the DCG family and the AP variants are
checked against)."""

from __future__ import annotations

import math

import polars as pl

import polars_ireval as ir
from tests.paths import need_data
from tests.strategies import Qrels, Run, frames


def ours(run: Run, qrels: Qrels, measure: str) -> dict[str, float]:
    """Our value of ``measure`` per query."""
    out = ir.evaluate(*frames(run, qrels), measure, per_query=True)
    return dict(zip(out["query_id"], out["value"], strict=True))


def ours_many(run: Run, qrels: Qrels, measures: list[str]) -> dict[str, dict[str, float]]:
    """Our value of each of ``measures`` per query, from one evaluation:
    ``{measure string: {query: value}}``."""
    labels = [m.label for m in ir.parse_measures(measures)]
    out = ir.evaluate(*frames(run, qrels), measures, per_query=True)
    by_label: dict[str, dict[str, float]] = {label: {} for label in labels}
    for label, query, value in out.select("measure", "query_id", "value").iter_rows():
        by_label[label][query] = value
    return {m: by_label[label] for m, label in zip(measures, labels, strict=True)}


def ranking(run: Run, qid: str) -> list[str]:
    """The documents of query ``qid`` by score, best first (the scores are distinct)."""
    return sorted(run[qid], key=lambda d: -run[qid][d])


def shared(run_name: str, qrels_name: str) -> tuple[Run, Qrels]:
    """A run of ../shared/data with trec_eval's order made explicit (score = -rank), so
    every tool sees the same ranking, and its qrels, both on the queries they share."""
    data = need_data()
    run = ir.read_run(data / run_name)
    qrels = ir.read_qrels(data / qrels_name)
    ranked = ir.judge(run, qrels).filter(pl.col("rank").is_not_null())
    run_d: Run = {}
    for q, d, rank in ranked.select("query_id", "doc_id", "rank").iter_rows():
        run_d.setdefault(q, {})[d] = -float(rank)
    qrels_d: Qrels = {}
    for q, d, g in qrels.filter(pl.col("query_id").is_in(list(run_d))).iter_rows():
        qrels_d.setdefault(q, {})[d] = g
    return {q: docs for q, docs in run_d.items() if q in qrels_d}, qrels_d


def weight(i: int, discount: str, b: float = 2.0, weights: tuple[float, ...] = ()) -> float:
    """w_i of every discount, straight from its definition."""
    if discount == "log2":
        return 1 / math.log2(i + 1)
    if discount == "log":
        return 1 / math.log(i + 1, b)
    if discount == "jk":
        return 1.0 if i < b else 1 / math.log(i, b)
    if discount == "none":
        return 1.0
    if discount == "root":
        return 1 / math.sqrt(i)
    if discount == "rank":
        return 1 / i
    if discount == "square":
        return 1 / i**2
    return weights[i - 1] if i <= len(weights) else 0.0
