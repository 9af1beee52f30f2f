"""Measure declarations, one module per family; importing this package registers them all."""

from polars_ireval.measures.ap import ap, gm_map, rprec
from polars_ireval.measures.bpref import bpref, gm_bpref, inf_ap
from polars_ireval.measures.counts import (
    num_nonrel_judged_ret,
    num_q,
    num_rel_ret,
    num_relevant,
    num_ret,
)
from polars_ireval.measures.iprec import eleven_point_average, iprec, rprec_mult, utility
from polars_ireval.measures.ndcg import bin_g, g_measure, ndcg, ndcg_rel, rndcg
from polars_ireval.measures.precision import (
    judged_at,
    precision,
    recall,
    relative_precision,
    success,
    unjudged_at,
)
from polars_ireval.measures.rbp import rbp, rbp_resid
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
    "bin_g",
    "bpref",
    "eleven_point_average",
    "g_measure",
    "gm_bpref",
    "gm_map",
    "inf_ap",
    "iprec",
    "judged_at",
    "ndcg",
    "ndcg_rel",
    "num_nonrel_judged_ret",
    "num_q",
    "num_rel_ret",
    "num_relevant",
    "num_ret",
    "precision",
    "rbp",
    "rbp_resid",
    "recall",
    "relative_precision",
    "rndcg",
    "rprec",
    "rprec_mult",
    "rr",
    "set_f",
    "set_map",
    "set_precision",
    "set_recall",
    "set_relative_precision",
    "success",
    "unjudged_at",
    "utility",
]
