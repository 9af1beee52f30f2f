"""polars_ireval: IR evaluation as Polars expressions and DuckDB SQL.

Examples
--------
>>> import polars_ireval as ir
>>> run = ir.read_run(ir.example_path("runs/bm25.run"))          # doctest: +SKIP
>>> qrels = ir.read_qrels(ir.example_path("qrels.txt"))          # doctest: +SKIP
>>> ir.evaluate(run, qrels, ["nDCG@10", "AP", "P@10"])             # doctest: +SKIP
"""

from typing import TYPE_CHECKING, Any

from polars_ireval import namespace as _namespace  # noqa: F401  (registers df.ireval)
from polars_ireval._version import __version__ as __version__
from polars_ireval.analysis.agreement import RBO, Agreement, agreement, rbo
from polars_ireval.analysis.pir import Sessions, pir, read_preferences, simulate_sessions
from polars_ireval.analysis.properties import Properties, properties
from polars_ireval.engines.fusion import fuse, normalize
from polars_ireval.errors import (
    DuplicateError,
    EmptyInputError,
    FetchError,
    FormatError,
    IrevalError,
    MeasureSyntaxError,
    MissingQueryError,
    NoRelevantError,
    ParameterError,
    PreferenceError,
    RelevanceError,
    ResourceError,
    SchemaError,
    ScoreError,
    TieOrdersError,
    UnknownMeasureError,
)
from polars_ireval.evaluate import CoverageWarning, evaluate, evaluate_table
from polars_ireval.io.datasets import datasets, fetch
from polars_ireval.io.example import example_path
from polars_ireval.io.readers import read_qrels, read_run, run_tag, validate_qrels, validate_run
from polars_ireval.io.writers import write_run
from polars_ireval.judge import condense, coverage, judge
from polars_ireval.measures import *  # noqa: F403
from polars_ireval.measures import __all__ as _measure_names
from polars_ireval.outofcore import evaluate_out_of_core
from polars_ireval.parse import known_names, parse_measure, parse_measures
from polars_ireval.registry import REGISTRY, Measure, MeasureDef, definitions

if TYPE_CHECKING:
    from polars_ireval.analysis.curves import confusion, pr_curve, roc_curve
    from polars_ireval.analysis.depth_pools import depth_qrels, judged_depth, pool_depths
    from polars_ireval.analysis.fusion_tuning import FusionTuning, optimize_fusion
    from polars_ireval.analysis.judging import JudgingSimulation, simulate_judging
    from polars_ireval.analysis.pooling import pool
    from polars_ireval.analysis.reporting import Report, report
    from polars_ireval.analysis.significance import (
        adjust_p_values,
        compare,
        compare_bounds,
        topic_set_size,
    )
    from polars_ireval.analysis.stability import ap_pooled, depth_curve
    from polars_ireval.analysis.ties import tie_sensitivity
    from polars_ireval.analysis.volatility import Volatility, volatility
    from polars_ireval.io.pools import read_pool, write_pool

#: The analysis functions, imported on first use so that ``import polars_ireval`` stays
#: as quick as the evaluator itself (``python -X importtime -c 'import polars_ireval'``).
#: ``agreement``, ``pir`` and ``properties`` are imported above instead: each module shares
#: its name with a function it defines, and ``import polars_ireval.analysis.pir`` would shadow the
#: function if it were lazy.
_LAZY = {
    "confusion": "polars_ireval.analysis.curves",
    "pr_curve": "polars_ireval.analysis.curves",
    "roc_curve": "polars_ireval.analysis.curves",
    "JudgingSimulation": "polars_ireval.analysis.judging",
    "depth_qrels": "polars_ireval.analysis.depth_pools",
    "judged_depth": "polars_ireval.analysis.depth_pools",
    "pool_depths": "polars_ireval.analysis.depth_pools",
    "simulate_judging": "polars_ireval.analysis.judging",
    "optimize_fusion": "polars_ireval.analysis.fusion_tuning",
    "FusionTuning": "polars_ireval.analysis.fusion_tuning",
    "pool": "polars_ireval.analysis.pooling",
    "read_pool": "polars_ireval.io.pools",
    "write_pool": "polars_ireval.io.pools",
    "Report": "polars_ireval.analysis.reporting",
    "report": "polars_ireval.analysis.reporting",
    "adjust_p_values": "polars_ireval.analysis.significance",
    "compare": "polars_ireval.analysis.significance",
    "compare_bounds": "polars_ireval.analysis.significance",
    "topic_set_size": "polars_ireval.analysis.significance",
    "Volatility": "polars_ireval.analysis.volatility",
    "ap_pooled": "polars_ireval.analysis.stability",
    "depth_curve": "polars_ireval.analysis.stability",
    "volatility": "polars_ireval.analysis.volatility",
    "tie_sensitivity": "polars_ireval.analysis.ties",
}

__all__ = [
    "RBO",
    "REGISTRY",
    "CoverageWarning",
    "DuplicateError",
    "EmptyInputError",
    "FetchError",
    "FormatError",
    "IrevalError",
    "JudgingSimulation",
    "Measure",
    "MeasureDef",
    "MeasureSyntaxError",
    "MissingQueryError",
    "NoRelevantError",
    "ParameterError",
    "PreferenceError",
    "RelevanceError",
    "Report",
    "ResourceError",
    "SchemaError",
    "ScoreError",
    "Sessions",
    "TieOrdersError",
    "UnknownMeasureError",
    "Volatility",
    "Agreement",
    "adjust_p_values",
    "agreement",
    "ap_pooled",
    "compare",
    "compare_bounds",
    "condense",
    "confusion",
    "coverage",
    "definitions",
    "depth_curve",
    "depth_qrels",
    "evaluate",
    "evaluate_out_of_core",
    "evaluate_table",
    "example_path",
    "datasets",
    "fetch",
    "fuse",
    "normalize",
    "optimize_fusion",
    "FusionTuning",
    "write_run",
    "judge",
    "judged_depth",
    "known_names",
    "parse_measure",
    "parse_measures",
    "pir",
    "pool",
    "properties",
    "Properties",
    "pr_curve",
    "pool_depths",
    "read_pool",
    "read_preferences",
    "read_qrels",
    "rbo",
    "read_run",
    "report",
    "roc_curve",
    "run_tag",
    "simulate_sessions",
    "simulate_judging",
    "tie_sensitivity",
    "topic_set_size",
    "validate_qrels",
    "validate_run",
    "volatility",
    "write_pool",
    *_measure_names,
]


def __getattr__(name: str) -> Any:
    """Import an analysis function of :data:`_LAZY` on first use."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'polars_ireval' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
