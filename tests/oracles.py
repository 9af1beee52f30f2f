"""Helpers of the oracle tests on collections given as mappings (``{query: {doc: score}}``,
as ranx, ir_measures and pytrec_eval take them): our per-query values on them, the ranking
order every tool sees, the shared data as such mappings, and the discounts from their
definitions (the plain-Python transcriptions the DCG family and the AP variants are
checked against)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
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


RANX_ID_WIDTH = 64


def _ranx_table(mapping: dict[str, dict[str, Any]], dtype: type) -> Any:
    """ranx's own table of ``mapping`` (``create_and_sort``, as ``ranx.Run.from_dict`` builds it),
    with the document ids in arrays of one width, ``RANX_ID_WIDTH``, where ranx takes the
    longest id's: numba compiles ``create_and_sort`` again, 7-8 s on a cold cache, for every
    width it meets, and generated or shared data bring a dozen."""
    from numba.typed import List
    from ranx.data_structures.common import create_and_sort

    longest = max((len(d) for docs in mapping.values() for d in docs), default=0)
    assert longest <= RANX_ID_WIDTH, f"a document id of {longest} characters: raise RANX_ID_WIDTH"
    q_ids = List(list(mapping))
    doc_ids = List([np.array(list(docs), dtype=f"<U{RANX_ID_WIDTH}") for docs in mapping.values()])
    values = List([np.array(list(docs.values()), dtype=dtype) for docs in mapping.values()])
    return create_and_sort(q_ids, doc_ids, values)


def ranx_run(run: dict[str, dict[str, float]], name: str | None = None) -> Any:
    """``ranx.Run.from_dict(run, name)``, built through :func:`_ranx_table`."""
    import ranx

    out = ranx.Run(name=name)
    out.run = _ranx_table(run, float)
    out.sorted = True
    return out


def ranx_qrels(qrels: dict[str, dict[str, int]]) -> Any:
    """``ranx.Qrels.from_dict(qrels)``, built through :func:`_ranx_table`."""
    import ranx

    out = ranx.Qrels()
    out.qrels = _ranx_table(qrels, int)
    out.sorted = True
    return out


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
