"""Differential tests: random runs and qrels, compared per query with the reference tools.

pytrec-eval-terrier (trec_eval 9.0.8 compiled) is the oracle for every trec_eval measure it
computes, and ir_measures for its own strings. pytrec_eval compares scores as float32, so
the generated scores are float32-representable: ties are then the same in both tools.
"""

from __future__ import annotations

import math
from typing import Any

import hypothesis.strategies as st
import ir_measures
import numpy as np
import polars as pl
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings

import polars_ireval as ir
from polars_ireval.registry import TREC
from tests.strategies import collections, tied_scores

pytestmark = pytest.mark.filterwarnings("ignore::polars_ireval.CoverageWarning")

#: trec_eval names of the registry (``TREC``) that pytrec_eval does not compute.
NOT_IN_PYTREC_EVAL = {"unj"}  # added in trec_eval 10 (cli.TREC10_ADDED); pytrec_eval is 9.0.8
#: Cutoffs of the cutoff measures, where pools of up to 9 documents make them differ.
CUTOFFS = {"success": "1,2,5"}
#: Every trec_eval measure family of the registry that pytrec_eval computes per query,
#: derived from ``polars_ireval.registry.TREC``: a new trec_eval name is checked here.
PYTREC_MEASURES = {
    name + (f".{CUTOFFS.get(name, '1,2,3,5,10')}" if trec.param == "k" else "")
    for name, (_, trec) in TREC.items()
    if name not in NOT_IN_PYTREC_EVAL
}
GEOMETRIC = {"gm_map", "gm_bpref"}  # pytrec_eval returns ln(max(v, 1e-5)) per query

SCORES = [float(np.float32(x)) for x in (-1.5, 0.0, 0.1, 0.25, 0.3, 1.0, 2.0, 7.5)]


#: A run and qrels over a few queries, with ties, unjudged and unretrieved documents,
#: queries on one side only, negative grades and queries without relevant documents.
COLLECTIONS = collections(
    queries=(1, 4),
    query_id="q{q}",
    pool=(1, 9),
    doc_id="d{q}_{i}",
    scores=tied_scores(st.sampled_from(SCORES)),
    grades=st.integers(-1, 3),
    one_sided=True,
)


def test_pytrec_measures_are_every_trec_name() -> None:
    """PYTREC_MEASURES holds every trec_eval name of the registry pytrec_eval computes."""
    assert set(TREC) >= NOT_IN_PYTREC_EVAL
    assert not NOT_IN_PYTREC_EVAL & set(pytrec_eval.supported_measures)
    assert {m.split(".")[0] for m in PYTREC_MEASURES} <= set(pytrec_eval.supported_measures)
    assert len(PYTREC_MEASURES) == len(TREC) - len(NOT_IN_PYTREC_EVAL)


def _frames(run: dict, qrels: dict) -> tuple[pl.DataFrame, pl.DataFrame]:
    r = ir.read_run(run)
    q = ir.read_qrels(qrels)
    return r, q


def _ours(
    run: dict, qrels: dict, names: list[str], *, ordered: bool = False, **options: Any
) -> dict[tuple[str, str], float]:
    """Our per-query values; ``ordered``: from the run's rows in ranking order (each query
    contiguous, scores descending), which takes judge's fast path (no sort) and evaluate's
    numbered tables, instead of the dict's order, which takes the general path."""
    r, q = _frames(run, qrels)
    if ordered:
        r = r.sort(["query_id", "score", "doc_id"], descending=[False, True, True])
    out = ir.evaluate(r, q, names, per_query=True, **options)
    return {(row[0], row[1]): row[2] for row in out.select("query_id", "measure", "value").rows()}


def defined_for_trec_eval(qrels: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    """The qrels without queries whose every grade is negative.

    trec_eval 9.0.8 has no defined result for such a query: pytrec_eval 0.5.11 crashes with
    a segmentation fault on it (seen: qrels ``{'q0': {'d0_0': -1}}`` with ``gm_bpref`` and
    ``recip_rank`` requested together; ir_measures' trec_eval provider calls it too), so the
    oracles never see those queries. polars_ireval evaluates them as queries without a
    relevant document (``docs/compat.md``); ``test_all_negative_query`` pins that.
    """
    return {q: grades for q, grades in qrels.items() if max(grades.values()) >= 0}


def _pytrec_eval(run: dict, qrels: dict, level: int, judged_only: bool) -> dict:
    """pytrec_eval's per-query values on the queries it has a defined result for."""
    defined = defined_for_trec_eval(qrels)
    if not defined:
        return {}
    evaluator = pytrec_eval.RelevanceEvaluator(
        defined, PYTREC_MEASURES, relevance_level=level, judged_docs_only_flag=judged_only
    )
    return evaluator.evaluate(run)


@settings(
    max_examples=120, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(COLLECTIONS, st.sampled_from([1, 2]), st.booleans())
def test_against_pytrec_eval(data: tuple, level: int, judged_only: bool) -> None:
    run, qrels = data
    defined = defined_for_trec_eval(qrels)
    want = _pytrec_eval(run, qrels, level, judged_only)
    assert set(want) == set(run) & set(defined)  # the queries on both sides
    names = sorted(next(iter(want.values()))) if want else ["map"]
    for ordered in (False, True):  # the general path, and the fast path of ranked rows
        got = _ours(
            run, qrels, names, ordered=ordered, relevance_level=level, judged_only=judged_only
        )
        assert {q for q, _ in got} == set(run) & set(qrels)  # ours also scores the rest
        for qid, values in want.items():
            for name, expected in values.items():
                ours = got[(qid, name)]
                if name in GEOMETRIC:
                    ours = math.log(max(ours, ir.registry.MIN_GEO_MEAN))
                if math.isnan(expected):  # trec_eval's 0/0 when -J leaves nothing retrieved
                    assert ours == 0.0, (qid, name)
                    continue
                assert ours == pytest.approx(expected, abs=1e-9), (qid, name, ordered, run)


#: ir_measures strings, in groups evaluated by one ir_measures call each, with the tie policy
#: of the provider that computes them. The condensed (judged_only) measures get a call of
#: their own: ir_measures' pytrec_eval provider puts NumRet, NumQ and NumRel into whichever
#: pytrec_eval invocation it made first, so in a call with judged_only measures NumRet may
#: count the judged documents only, depending on the hash seed (ir_measures 0.4.3: NumRet 1
#: instead of 2 for run {q0: {d0_0: -1.5, d0_1: -1.5}}, qrels {q0: {d0_0: 0}} under
#: PYTHONHASHSEED=4). nDCG with mapped gains gets a call of its own too: the same provider
#: files a plain nDCG@k under the first invocation it made, and when that is the gains
#: invocation, the plain measure replaces the mapped one, which ir_measures then reports as 0
#: (ir_measures 0.4.3: 0.0 instead of 1.0 for run {q0: {d0_0: -1.5}}, qrels {q0: {d0_0: 1}},
#: `nDCG(gains={0:0,1:1,2:3,3:7})@5` asked beside `nDCG@5`, under PYTHONHASHSEED=21).
IR_MEASURES = [
    ("trec_eval", [
        "nDCG@5", "nDCG", "AP", "AP@3", "P@3", "P(rel=2)@3", "R@5", "RR", "Rprec", "Bpref",
        "infAP", "SetP", "SetR", "SetF", "NumRet", "NumRel", "NumRelRet", "Success@2",
        "IPrec@0.5", "AP(rel=2)", "NumQ",
        # ir_measures' other spellings
        "SetRelP", "NumRet(rel=2)", "SetAP",
    ]),
    # its per-measure condensed rankings
    ("trec_eval", [
        "P(judged_only=True)@3", "AP(judged_only=True)", "nDCG(judged_only=True)@5",
        "RR(judged_only=True)", "Rprec(judged_only=True)", "SetP(judged_only=True)",
        "Success(judged_only=True)@2", "R(judged_only=True)@3", "IPrec(judged_only=True)@0.5",
        "SetF(judged_only=True)", "SetAP(judged_only=True)",
    ]),
    # its mapped gains: a call of their own (see above)
    ("trec_eval", ["nDCG(gains={0:0,1:1,2:3,3:7})@5", "nDCG(gains={0:0,1:1,2:3,3:7})"]),
    ("doc_id_asc", ["RR@3", "Judged@3"]),
]  # fmt: skip


def test_ir_measures_cover_its_trec_eval_provider() -> None:
    """IR_MEASURES names every registry measure that ir_measures' pytrec_eval provider
    computes, and condensed (judged_only=True) every one it computes condensed: a measure
    added to either cannot be left out here."""
    provider = ir_measures.providers.registry["pytrec_eval"].SUPPORTED_MEASURES
    ours = ir.parse_measures([n for _, names in IR_MEASURES for n in names])
    named = {m.name for m in ours}
    condensed = {m.name for m in ours if m.judged_only}
    supported = {m.NAME for m in provider} & set(ir.registry.REGISTRY)
    assert supported <= named
    assert {m.NAME for m in provider if "judged_only" in m.params} <= condensed


@settings(
    max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(COLLECTIONS)
def test_against_ir_measures(data: tuple) -> None:
    run, qrels = data
    defined = defined_for_trec_eval(qrels)
    for ties, names in IR_MEASURES:
        measures = [ir_measures.parse_measure(n) for n in names]
        want = {
            (m.query_id, str(m.measure)): m.value
            for m in ir_measures.iter_calc(measures, defined, run)
            if m.query_id in run  # ir_measures also yields 0 for judged queries it lacks
        }
        assert {q for q, _ in want} == set(run) & set(defined)
        labels = {str(ir_measures.parse_measure(n)): n for n in names}
        for ordered in (False, True):  # the general path, and the fast path of ranked rows
            got = _ours(run, qrels, names, ordered=ordered, ties=ties)
            for (qid, label), expected in want.items():
                if math.isnan(expected):  # trec_eval's 0/0 when -J empties a ranking
                    assert label.startswith("IPrec(judged_only=True)"), (qid, label)
                    assert got[(qid, labels[label])] == 0.0
                    continue
                assert got[(qid, labels[label])] == pytest.approx(expected, abs=1e-9), (
                    qid,
                    label,
                    ordered,
                    run,
                )


def test_num_ret_beside_condensed_measures() -> None:
    """NumRet counts every retrieved document even beside judged_only measures (the case
    where ir_measures' pytrec_eval provider may count the condensed ranking: see
    IR_MEASURES)."""
    run = {"q0": {"d0_0": -1.5, "d0_1": -1.5}}
    qrels = {"q0": {"d0_0": 0}}
    got = _ours(run, qrels, ["NumRet", "P(judged_only=True)@3", "NumRet(judged_only=True)"])
    assert got == {
        ("q0", "NumRet"): 2.0,
        ("q0", "P(judged_only=True)@3"): 0.0,
        ("q0", "NumRet(judged_only=True)"): 1.0,
    }


def test_mapped_gains_beside_plain_ndcg() -> None:
    """nDCG with mapped gains and plain nDCG at the same cutoff, in one evaluation, each
    keep their own value (the case where ir_measures' pytrec_eval provider may drop one:
    see IR_MEASURES)."""
    run = {"q0": {"a": 2.0, "b": 1.0}}
    qrels = {"q0": {"a": 1, "b": 2}}
    got = _ours(run, qrels, ["nDCG@5", "nDCG(gains={0:0,1:1,2:3,3:7})@5"])
    assert got == {
        ("q0", "nDCG@5"): pytest.approx((1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3)), abs=1e-15),
        ("q0", "nDCG(gains={0:0,1:1,2:3,3:7})@5"): pytest.approx(
            (1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3)), abs=1e-15
        ),
    }


def test_all_negative_query() -> None:
    """A query judged only with negative grades (pooled, unjudged: trec_eval's -1) is
    evaluated as a query without a relevant document, beside normal queries."""
    run = {"q0": {"a": 2.0, "b": 1.0}, "q1": {"c": 1.0, "d": 0.5}}
    qrels = {"q0": {"a": -1, "b": -1}, "q1": {"d": 1}}
    got = _ours(run, qrels, ["AP", "P@2", "nDCG@2", "RR", "NumRel", "NumRet", "Bpref"])
    assert got == {
        ("q0", "AP"): 0.0, ("q0", "P@2"): 0.0, ("q0", "nDCG@2"): 0.0, ("q0", "RR"): 0.0,
        ("q0", "NumRel"): 0.0, ("q0", "NumRet"): 2.0, ("q0", "Bpref"): 0.0,
        ("q1", "AP"): 0.5, ("q1", "P@2"): 0.5,
        ("q1", "nDCG@2"): pytest.approx(1 / math.log2(3), abs=1e-15),
        ("q1", "RR"): 0.5, ("q1", "NumRel"): 1.0, ("q1", "NumRet"): 2.0, ("q1", "Bpref"): 1.0,
    }  # fmt: skip


@settings(
    max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(COLLECTIONS, st.sampled_from([0.25, 0.5, 3.0]))
def test_set_f_weight_against_pytrec_eval(data: tuple, beta: float) -> None:
    """``set_F.x`` weighs recall by x itself (not x²); pytrec_eval names it plain ``set_F``."""
    run, qrels = data
    defined = defined_for_trec_eval(qrels)
    want = pytrec_eval.RelevanceEvaluator(defined, {f"set_F.{beta}"}).evaluate(run)
    got = _ours(run, qrels, [f"SetF(beta={beta})", f"set_F.{beta}"])
    for qid, values in want.items():
        for label in (f"SetF(beta={beta})", f"set_F_{beta}"):  # trec_eval's output name
            assert got[(qid, label)] == pytest.approx(values["set_F"], abs=1e-9), (qid, label)


@settings(
    max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(COLLECTIONS, st.sampled_from([0.5, 2.0, 3.0]))
def test_set_f_of_van_rijsbergens_beta(data: tuple, f_beta: float) -> None:
    """``SetF(f_beta=β)`` is seed 003's F_β = (β² + 1) P R / (β² P + R) (eq. 6), which is
    trec_eval's ``set_F.(β²)``: F_3 weighs recall 9 times, where ``SetF(beta=3)`` (trec_eval's
    ``set_F.3``) weighs it 3 times."""
    run, qrels = data
    defined = defined_for_trec_eval(qrels)
    b2 = f_beta * f_beta
    want = pytrec_eval.RelevanceEvaluator(defined, {f"set_F.{b2}"}).evaluate(run)
    precision = pytrec_eval.RelevanceEvaluator(defined, {"set_P", "set_recall"}).evaluate(run)
    got = _ours(run, qrels, [f"SetF(f_beta={f_beta})"])
    for qid, values in want.items():
        p, r = precision[qid]["set_P"], precision[qid]["set_recall"]
        seed = (b2 + 1) * p * r / (b2 * p + r) if p + r > 0 else 0.0
        assert got[(qid, f"SetF(f_beta={f_beta})")] == pytest.approx(values["set_F"], abs=1e-9)
        assert got[(qid, f"SetF(f_beta={f_beta})")] == pytest.approx(seed, abs=1e-9)
