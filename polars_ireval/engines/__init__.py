"""The engines that evaluate a :class:`~polars_ireval.engines.base.Request`, by name.

Each engine is a module with an ``evaluate(request)`` function: ``polars`` (one lazy Polars
query), ``duckdb`` (the SQL macros of ``sql/``), ``spark`` (the same SQL rendered for
Spark) and ``spark-polars`` (Spark partitions the run by ranking, the Polars engine scores
each partition in Spark's Python workers). :func:`polars_ireval.evaluate` validates and
parses once, then hands the request to the engine named by its ``engine`` argument. An
engine's module is imported when it is first used.
"""

from __future__ import annotations

import importlib
from typing import Any

from polars_ireval.engines.base import Engine, Request

#: Engine name -> the module holding its ``evaluate(request)``.
ENGINES = {
    "polars": "polars_ireval.engines.polars",
    "duckdb": "polars_ireval.engines.duckdb",
    "spark": "polars_ireval.engines.spark",
    "spark-polars": "polars_ireval.engines.spark_polars",
}


def engine(name: str) -> Engine:
    """The ``evaluate`` function of the engine ``name`` (one of :data:`ENGINES`)."""
    fn: Any = importlib.import_module(ENGINES[name]).evaluate
    return fn


__all__ = ["ENGINES", "Engine", "Request", "engine"]
