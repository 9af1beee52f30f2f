"""Measure declarations, one module per family; importing this package registers them all."""

from polars_ireval.measures.ap import ap, gm_map, rprec, sp
from polars_ireval.measures.bpref import bpref, gm_bpref, inf_ap
from polars_ireval.measures.counts import (
    num_nonrel_judged_ret,
    num_q,
    num_rel_ret,
    num_relevant,
    num_ret,
)
from polars_ireval.measures.cwl import bpm, insq, inst, nerr8, nerr9, nerr10, nerr11, tbg, u_measure
from polars_ireval.measures.dcg import dcg, graded_precision, sdcg
from polars_ireval.measures.err import err
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
from polars_ireval.measures.qmeasure import q_measure
from polars_ireval.measures.rbp import rbp, rbp_resid
from polars_ireval.measures.rr import rr
from polars_ireval.measures.sets import (
    fallout,
    set_accuracy,
    set_f,
    set_map,
    set_precision,
    set_recall,
    set_relative_precision,
)
from polars_ireval.measures.usermodel import expected_depth
from polars_ireval.measures.weighted import hit, inv_sq

__all__ = [
    "ap",
    "bin_g",
    "bpm",
    "bpref",
    "dcg",
    "eleven_point_average",
    "err",
    "expected_depth",
    "fallout",
    "g_measure",
    "gm_bpref",
    "gm_map",
    "graded_precision",
    "hit",
    "inf_ap",
    "insq",
    "inst",
    "inv_sq",
    "iprec",
    "judged_at",
    "ndcg",
    "ndcg_rel",
    "nerr8",
    "nerr9",
    "nerr10",
    "nerr11",
    "num_nonrel_judged_ret",
    "num_q",
    "num_rel_ret",
    "num_relevant",
    "num_ret",
    "precision",
    "q_measure",
    "rbp",
    "rbp_resid",
    "recall",
    "relative_precision",
    "rndcg",
    "rprec",
    "rprec_mult",
    "rr",
    "sdcg",
    "set_accuracy",
    "set_f",
    "set_map",
    "set_precision",
    "set_recall",
    "set_relative_precision",
    "sp",
    "success",
    "tbg",
    "u_measure",
    "unjudged_at",
    "utility",
]
