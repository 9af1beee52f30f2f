"""The tools measured and how each is called.

One evaluation function a tool (``EVALUATORS``), as ``run.py``'s workers time them and
``deep_floor.py`` takes turns with them, the five measures' names in each tool, and the
plain-Python readers of pytrec_eval's input (``outofcore.py`` uses them too). Each tool is
imported inside its function: this module imports nothing but the standard library, so
that a worker loads only the tool it measures.
"""

from __future__ import annotations

import importlib
import importlib.metadata
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from bench.layout import Workload

TOOLS = ("pytrec_eval", "ir_measures", "ranx", "polars_ireval")
INPUTS = ("text", "parquet")
SUBJECT = "polars_ireval"
REFERENCE = "pytrec_eval"
#: (tool, input) pairs in table order; peers read Parquet only where they offer a reader.
CASES = (
    ("pytrec_eval", "text"),
    ("ir_measures", "text"),
    ("ranx", "text"),
    ("ranx", "parquet"),
    ("polars_ireval", "text"),
    ("polars_ireval", "parquet"),
)
DISTRIBUTIONS = {
    "pytrec_eval": "pytrec-eval-terrier",
    "ir_measures": "ir-measures",
    "ranx": "ranx",
    "polars_ireval": "polars-ireval",
}
#: Attributes a tool must have to count as available (polars_ireval is being built).
REQUIRED = {SUBJECT: ("read_run", "read_qrels", "evaluate")}

#: The five measures, keyed by their trec_eval names (used in every result).
TREC_NAMES = ("ndcg_cut_10", "map", "P_10", "recall_1000", "recip_rank")
IR_MEASURES_NAMES = dict(zip(("nDCG@10", "AP", "P@10", "R@1000", "RR"), TREC_NAMES, strict=True))
#: The same measures as trec_eval ``-m`` options (what ir_measures passes): evaluating with
#: the dotted names is about 2x faster than with the underscore names in pytrec_eval 0.5.11.
PYTREC_EVAL_MEASURES = {"ndcg_cut.10", "map", "P.10", "recall.1000", "recip_rank"}
RANX_NAMES = dict(
    zip(("ndcg@10", "map", "precision@10", "recall@1000", "mrr"), TREC_NAMES, strict=True)
)

Means = dict[str, dict[str, float]]
"""Mean of each measure (trec_eval name) per run id."""


def mean_by_measure(per_query: Iterable[Mapping[str, float]]) -> dict[str, float]:
    """Average pytrec_eval's per-query values over the queries.

    Parameters
    ----------
    per_query
        One mapping ``measure -> value`` per query.

    Returns
    -------
    dict
        The mean of each measure of ``TREC_NAMES``.
    """
    rows = list(per_query)
    return {name: sum(row[name] for row in rows) / len(rows) for name in TREC_NAMES}


def read_run_dict(path: Path) -> dict[str, dict[str, float]]:
    """Read a TREC run into pytrec_eval's ``{query_id: {doc_id: score}}``.

    Same result as ``pytrec_eval.parse_run`` but about 20% faster (no ``strip``, no
    duplicate assertion), so pytrec_eval is timed with the fastest plain-Python reader.
    """
    run: defaultdict[str, dict[str, float]] = defaultdict(dict)
    with open(path) as lines:
        for line in lines:
            query_id, _, doc_id, _, score, _ = line.split()
            run[query_id][doc_id] = float(score)
    return run


def read_qrels_dict(path: Path) -> dict[str, dict[str, int]]:
    """Read TREC qrels into pytrec_eval's ``{query_id: {doc_id: relevance}}``."""
    qrels: defaultdict[str, dict[str, int]] = defaultdict(dict)
    with open(path) as lines:
        for line in lines:
            query_id, _, doc_id, relevance = line.split()
            qrels[query_id][doc_id] = int(relevance)
    return qrels


def eval_pytrec_eval(spec: Workload, fmt: str) -> Means:
    """Evaluate with pytrec_eval: one RelevanceEvaluator, ``evaluate`` once per run."""
    import pytrec_eval

    evaluator = pytrec_eval.RelevanceEvaluator(
        read_qrels_dict(spec.text_qrels), PYTREC_EVAL_MEASURES
    )
    return {
        run_id: mean_by_measure(evaluator.evaluate(read_run_dict(path)).values())
        for run_id, path in zip(spec.run_ids, spec.text_runs, strict=True)
    }


def eval_ir_measures(spec: Workload, fmt: str) -> Means:
    """Evaluate with ir_measures: its TREC readers and one evaluator's calc_aggregate per run."""
    import ir_measures

    measures = [ir_measures.parse_measure(name) for name in IR_MEASURES_NAMES]
    evaluator = ir_measures.evaluator(measures, ir_measures.read_trec_qrels(str(spec.text_qrels)))
    means = {}
    for run_id, path in zip(spec.run_ids, spec.text_runs, strict=True):
        aggregate = evaluator.calc_aggregate(ir_measures.read_trec_run(str(path)))
        means[run_id] = {IR_MEASURES_NAMES[str(m)]: value for m, value in aggregate.items()}
    return means


def ranx_frame(path: Path) -> Any:
    """Read a Parquet file with pandas, ids as ``object`` as ranx's ``from_df`` requires.

    ``Run.from_parquet`` is ``from_df(pandas.read_parquet(path))``, whose dtype assertion
    fails under pandas >= 3 (ids are read as the ``str`` dtype); this is the same call
    with the ids cast to ``object``.
    """
    import pandas as pd

    frame = pd.read_parquet(path)
    return frame.astype({"query_id": object, "doc_id": object})


def ranx_runs(spec: Workload, fmt: str) -> Iterator[tuple[str, Any]]:
    """Yield ``(run_id, ranx.Run)`` for every run, one at a time."""
    from ranx import Run

    if fmt == "text":
        for run_id, path in zip(spec.run_ids, spec.text_runs, strict=True):
            yield run_id, Run.from_file(str(path), kind="trec")
        return
    frame = ranx_frame(spec.parquet_run)
    columns = {"q_id_col": "query_id", "doc_id_col": "doc_id", "score_col": "score"}
    if "run_id" not in frame.columns:
        yield spec.run_ids[0], Run.from_df(frame, **columns)
        return
    for run_id, part in frame.groupby("run_id", sort=False):
        yield str(run_id), Run.from_df(part, **columns)


def eval_ranx(spec: Workload, fmt: str) -> Means:
    """Evaluate with ranx: Qrels/Run from TREC files or Parquet, ``ranx.evaluate`` per run."""
    from ranx import Qrels, evaluate

    if fmt == "text":
        qrels = Qrels.from_file(str(spec.text_qrels), kind="trec")
    else:
        qrels = Qrels.from_df(
            ranx_frame(spec.parquet_qrels),
            q_id_col="query_id",
            doc_id_col="doc_id",
            score_col="relevance",
        )
    means = {}
    for run_id, run in ranx_runs(spec, fmt):
        scores = evaluate(qrels, run, list(RANX_NAMES))
        means[run_id] = {RANX_NAMES[name]: float(value) for name, value in scores.items()}
    return means


def eval_polars_ireval(spec: Workload, fmt: str) -> Means:
    """Evaluate with polars_ireval: ``read_run``/``read_qrels`` and one ``evaluate`` call."""
    import polars as pl

    import polars_ireval as ir

    if fmt == "text":
        paths = [str(path) for path in spec.text_runs]
        run_source: str | list[str] = paths if len(paths) > 1 else paths[0]
        qrels_path = spec.text_qrels
    else:
        run_source, qrels_path = str(spec.parquet_run), spec.parquet_qrels
    result = ir.evaluate(
        ir.read_run(run_source), ir.read_qrels(str(qrels_path)), list(IR_MEASURES_NAMES)
    )
    if isinstance(result, pl.LazyFrame):
        result = result.collect()
    if "run_id" not in result.columns:
        result = result.with_columns(run_id=pl.lit(spec.run_ids[0]))
    means: Means = {}
    for row in result.iter_rows(named=True):
        means.setdefault(row["run_id"], {})[IR_MEASURES_NAMES[row["measure"]]] = row["value"]
    return means


EVALUATORS: dict[str, Callable[[Workload, str], Means]] = {
    "pytrec_eval": eval_pytrec_eval,
    "ir_measures": eval_ir_measures,
    "ranx": eval_ranx,
    "polars_ireval": eval_polars_ireval,
}


def import_tool(tool: str) -> str:
    """Import a tool and return its version.

    Raises
    ------
    ImportError
        The module cannot be imported or lacks an attribute the harness needs.
    """
    module = importlib.import_module(tool)
    missing = [name for name in REQUIRED.get(tool, ()) if not hasattr(module, name)]
    if missing:
        raise ImportError(f"{tool} has no {', '.join(missing)} (package incomplete)")
    try:
        return importlib.metadata.version(DISTRIBUTIONS[tool])
    except importlib.metadata.PackageNotFoundError:
        return f"{getattr(module, '__version__', 'unknown')} (working tree, not installed)"
