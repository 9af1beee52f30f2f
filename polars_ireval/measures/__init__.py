"""Measure declarations, one module per family; importing this package registers them all."""

from polars_ireval.measures.ap import ap, gm_map, rprec
from polars_ireval.measures.counts import (
    num_nonrel_judged_ret,
    num_q,
    num_rel_ret,
    num_relevant,
    num_ret,
)
from polars_ireval.measures.ndcg import ndcg
from polars_ireval.measures.precision import (
    judged_at,
    precision,
    recall,
    relative_precision,
    success,
)
from polars_ireval.measures.rr import rr
from polars_ireval.measures.sets import (
    set_f,
    set_map,
    set_precision,
    set_recall,
    set_relative_precision,
)

__all__ = [
    "ap",
    "gm_map",
    "judged_at",
    "ndcg",
    "num_nonrel_judged_ret",
    "num_q",
    "num_rel_ret",
    "num_relevant",
    "num_ret",
    "precision",
    "recall",
    "relative_precision",
    "rprec",
    "rr",
    "set_f",
    "set_map",
    "set_precision",
    "set_recall",
    "set_relative_precision",
    "success",
]
