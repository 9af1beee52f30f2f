"""ERR, Q-measure, HIT, inverse squares, SP and the AP variants: oracles and seed 004's properties.

Oracles, per query: gdeval (through ir_measures) for ERR at its 5 printed decimals, and a plain
Python transcription of each published formula at 1e-9 (ERR, Q, HIT, InvSq, SP, the AP
normalisations, graded and discounted AP). Properties (seed 004, Table 2): the bounded
measures stay in [0, 1]; an ideal ranking scores 1 where the measure is realizable; the
monotone measures never drop when the ranking is extended by one rank; the residuals of
SDCG and InvSq are the best case minus the base, and their interval never widens as
documents are judged.
"""

from __future__ import annotations

import logging
import math
import shutil
from typing import Any

import hypothesis.strategies as st
import ir_measures
import pytest
from hypothesis import given, settings

import polars_ireval as ir
from tests.oracles import ours, ours_many, ranking, shared, weight
from tests.strategies import DERANDOMIZED, Qrels, Run, frames, graded_collections

pytestmark = pytest.mark.filterwarnings("ignore::polars_ireval.CoverageWarning")
logging.getLogger("ir_measures").setLevel(logging.ERROR)


def grades_of(run: Run, qrels: Qrels, qid: str, k: int | None) -> list[int]:
    """The grade at each rank of the top k (0 for an unjudged document)."""
    docs = ranking(run, qid)
    docs = docs[:k] if k else docs
    return [qrels[qid].get(d, 0) for d in docs]


def need_perl() -> None:
    """gdeval (ir_measures' ERR) is a Perl script."""
    if shutil.which("perl") is None:
        pytest.skip("perl is not installed: gdeval, the ERR oracle, cannot run")


# --------------------------------------------------------------------------- formulas


def ref_err(grades: list[int], max_rel: int) -> float:
    score, reach = 0.0, 1.0
    for i, g in enumerate(grades, 1):
        r = (2 ** min(max(g, 0), max_rel) - 1) / 2**max_rel
        score += reach * r / i
        reach *= 1 - r
    return score


def ref_q(run: Run, qrels: Qrels, qid: str, k: int | None, beta: float, rel: int) -> float:
    judged = qrels[qid]
    big_r = sum(1 for g in judged.values() if g >= rel)
    if big_r == 0:
        return 0.0
    ideal = sorted((g for g in judged.values() if g > 0), reverse=True)
    total, found, cg = 0.0, 0, 0.0
    for i, g in enumerate(grades_of(run, qrels, qid, k), 1):
        cg += max(g, 0)
        if g >= rel:
            found += 1
            total += (found + beta * cg) / (i + beta * sum(ideal[:i]))
    return total / big_r


def ref_ap(
    run: Run, qrels: Qrels, qid: str, k: int | None, *, norm: str = "R", rel: int = 1,
    gains: dict[int, float] | None = None, discount: str = "rank", b: float = 2.0,
) -> float:  # fmt: skip
    def r_of(g: int) -> float:
        return gains.get(g, 0.0) if gains else float(g >= rel)

    top = [r_of(g) for g in grades_of(run, qrels, qid, k)]
    total, cum = 0.0, 0.0
    for i, r in enumerate(top, 1):
        cum += r
        total += r * cum * weight(i, discount, b)
    if norm == "self":
        n = sum(1 for r in top if r > 0)
    else:
        n = sum(1 for g in qrels[qid].values() if r_of(g) > 0)
        if norm == "min" and k is not None:
            n = min(n, k)
    return total / n if n else 0.0


def utilities(grades: list[int], max_rel: int) -> list[float]:
    return [min(max(g, 0), max_rel) / max_rel for g in grades]


# --------------------------------------------------------------------------- ERR


@settings(DERANDOMIZED, max_examples=25)
@given(data=graded_collections(max_grade=4), k=st.sampled_from([1, 3, 5, 20]))
def test_err_matches_gdeval_at_its_printed_decimals(data: tuple[Run, Qrels], k: int) -> None:
    need_perl()
    run, qrels = data
    measure = ir_measures.parse_measure(f"ERR@{k}")
    provider = ir_measures.providers.registry["gdeval"]
    want = {m.query_id: m.value for m in provider.iter_calc([measure], qrels, run)}
    got = ours(run, qrels, f"ERR@{k}")
    for qid, v in want.items():  # gdeval prints only queries with a positive judgment
        assert f"{got[qid]:.5f}" == f"{v:.5f}", (qid, run[qid], qrels[qid])


@DERANDOMIZED
@given(
    data=graded_collections(max_grade=5),
    k=st.sampled_from([None, 1, 3, 10]),
    max_rel=st.integers(1, 4),
)
def test_err_matches_its_formula(data: tuple[Run, Qrels], k: int | None, max_rel: int) -> None:
    run, qrels = data
    cut = f"@{k}" if k else ""
    got = ours(run, qrels, f"ERR(max_rel={max_rel}){cut}")
    for qid, v in got.items():
        want = ref_err(grades_of(run, qrels, qid, k), max_rel)
        assert v == pytest.approx(want, rel=1e-9, abs=1e-12)


# --------------------------------------------------------------------------- Q, HIT, InvSq, SP


@DERANDOMIZED
@given(
    data=graded_collections(),
    k=st.sampled_from([None, 1, 3, 10]),
    beta=st.sampled_from([0.0, 0.5, 1.0, 10.0]),
    rel=st.integers(1, 2),
)
def test_q_measure_matches_its_formula(
    data: tuple[Run, Qrels], k: int | None, beta: float, rel: int
) -> None:
    run, qrels = data
    cut = f"@{k}" if k else ""
    got = ours(run, qrels, f"Q(beta={beta},rel={rel}){cut}")
    ap = ours(run, qrels, f"AP(rel={rel}){cut}")
    for qid, v in got.items():
        assert v == pytest.approx(ref_q(run, qrels, qid, k, beta, rel), rel=1e-9, abs=1e-12)
        if beta == 0.0:
            assert v == pytest.approx(ap[qid], rel=1e-9, abs=1e-12)


@DERANDOMIZED
@given(data=graded_collections(), k=st.sampled_from([None, 1, 3, 10]), max_rel=st.integers(1, 3))
def test_hit_invsq_sp_match_their_formulas(
    data: tuple[Run, Qrels], k: int | None, max_rel: int
) -> None:
    run, qrels = data
    cut = f"@{k}" if k else ""
    hit = ours(run, qrels, f"HIT(max_rel={max_rel}){cut}")
    inv = ours(run, qrels, f"InvSq(max_rel={max_rel}){cut}")
    sp = ours(run, qrels, f"SP{cut}")
    for qid in hit:
        u = utilities(grades_of(run, qrels, qid, k), max_rel)
        assert hit[qid] == pytest.approx(max(u, default=0.0), abs=1e-12)
        want_inv = sum(x / (i * (i + 1)) for i, x in enumerate(u, 1))
        assert inv[qid] == pytest.approx(want_inv, rel=1e-9, abs=1e-12)
        assert sp[qid] == pytest.approx(
            ref_ap(run, qrels, qid, k, norm="self")
            * sum(1 for g in grades_of(run, qrels, qid, k) if g >= 1),
            rel=1e-9,
            abs=1e-12,
        )


def test_hit_and_invsq_take_a_utility_map() -> None:
    run = {"1": {"a": 3.0, "b": 2.0, "c": 1.0}}
    qrels = {"1": {"a": 1, "b": 4, "c": 2}}
    scale = "{0: 0.0, 1: 0.1, 2: 0.3, 3: 0.7, 4: 1.0}"
    assert ours(run, qrels, f"HIT(gains={scale})@1")["1"] == 0.1
    got = ours(run, qrels, f"InvSq(gains={scale})")["1"]
    assert got == pytest.approx(0.1 / 2 + 1.0 / 6 + 0.3 / 12, abs=1e-15)


# --------------------------------------------------------------------------- AP variants

AP_VARIANTS: list[dict[str, Any]] = [
    {"norm": "min"},
    {"norm": "self"},
    {"gains": {1: 0.5, 2: 1.0, 3: 1.0}},
    {"gains": {1: 0.25, 3: 1.0}, "norm": "self"},
    {"discount": "none"},
    {"discount": "square"},
    {"discount": "root"},
    {"discount": "log2"},
    {"discount": "jk", "b": 5},
]


@pytest.mark.parametrize("variant", AP_VARIANTS, ids=str)
@settings(DERANDOMIZED, max_examples=15)
@given(data=graded_collections(), k=st.sampled_from([None, 1, 3, 10]))
def test_ap_variants_match_their_formulas(
    variant: dict[str, Any], data: tuple[Run, Qrels], k: int | None
) -> None:
    run, qrels = data
    args = ",".join(f"{key}={val!r}" for key, val in variant.items())
    got = ours(run, qrels, f"AP({args})" + (f"@{k}" if k else ""))
    for qid, v in got.items():
        want = ref_ap(run, qrels, qid, k, **variant)
        assert v == pytest.approx(want, rel=1e-9, abs=1e-12), (qid, run[qid], qrels[qid])


@DERANDOMIZED
@given(data=graded_collections(), k=st.sampled_from([None, 1, 3, 10]))
def test_ap_with_rank_discount_and_binary_gains_is_trec_eval_ap(
    data: tuple[Run, Qrels], k: int | None
) -> None:
    run, qrels = data
    cut = f"@{k}" if k else ""
    default = ours(run, qrels, f"AP{cut}")
    spelled = ours(run, qrels, f"AP(gains={{1: 1, 2: 1, 3: 1}},discount='rank'){cut}")
    for qid, v in default.items():
        assert spelled[qid] == pytest.approx(v, rel=1e-12, abs=1e-15)


# --------------------------------------------------------------------------- seed 004 properties

BOUNDED = [
    "nDCG@5", "SDCG(max_rel=3)@5", "DCG(norm='self')@5", "AP(norm='self')@5",
    "AP(norm='min')@5", "AP@5", "ERR@5", "HIT(max_rel=3)@5", "InvSq(max_rel=3)@5", "Q@5",
    "RR@5", "nDCG(gain='exp',discount='square')@5",
]  # fmt: skip
#: measure strings with a {k} slot that never drop when the ranking is extended by one rank
MONOTONE = [
    "DCG@{k}", "SP@{k}", "HIT(max_rel=3)@{k}", "RR@{k}", "AP@{k}", "InvSq(max_rel=3)@{k}",
    "ERR@{k}", "Q@{k}", "DCG(discount='jk',b=3)@{k}",
]  # fmt: skip
#: realizable: an ideal ranking (every judged document by grade, best first) scores 1
REALIZABLE = [
    "nDCG@3", "nDCG", "DCG(norm='self')@3", "AP(norm='self')@3", "AP(norm='min')@3",
    "AP(norm='min')", "HIT(max_rel=3)@3", "RR@3", "nDCG(gain='exp',discount='rank')@3",
]  # fmt: skip


@settings(DERANDOMIZED, max_examples=40)
@given(data=graded_collections())
def test_bounded_measures_stay_in_the_unit_interval(data: tuple[Run, Qrels]) -> None:
    run, qrels = data
    values = ours_many(run, qrels, BOUNDED)
    for m in BOUNDED:
        for qid, v in values[m].items():
            assert 0.0 <= v <= 1.0 + 1e-12, (m, qid, run[qid], qrels[qid])


@settings(DERANDOMIZED, max_examples=40)
@given(data=graded_collections(), k=st.integers(1, 8))
def test_monotone_measures_never_drop_when_the_ranking_is_extended(
    data: tuple[Run, Qrels], k: int
) -> None:
    run, qrels = data
    strings = [m.format(k=j) for m in MONOTONE for j in (k, k + 1)]
    values = ours_many(run, qrels, strings)
    for m in MONOTONE:
        before, after = values[m.format(k=k)], values[m.format(k=k + 1)]
        for qid, v in before.items():
            assert after[qid] >= v - 1e-12, (m, k, qid, run[qid], qrels[qid])


@settings(DERANDOMIZED, max_examples=40)
@given(data=graded_collections(max_grade=3))
def test_an_ideal_ranking_scores_one_where_realizable(data: tuple[Run, Qrels]) -> None:
    _, qrels = data
    ideal: Run = {}
    for qid, docs in qrels.items():
        best = sorted(docs, key=lambda d: -docs[d])
        ideal[qid] = {d: float(len(best) - i) for i, d in enumerate(best)}
    values = ours_many(ideal, qrels, REALIZABLE)
    for m in REALIZABLE:
        got = values[m]
        for qid, v in got.items():
            top = max(qrels[qid].values())
            if m.startswith("HIT") and top < 3:
                assert v == pytest.approx(top / 3 if top > 0 else 0.0, abs=1e-12)
            elif top >= 1:
                assert v == pytest.approx(1.0, abs=1e-12), (m, qid, qrels[qid])
            else:
                assert v == 0.0  # not complete: no relevant document, scored 0 by convention


def test_sn_measures_break_convergence_as_seed_004_says() -> None:
    run = {"1": {f"d{i}": float(10 - i) for i in range(1, 6)}}
    r10000 = {"1": {"d1": 1, "x": 1, "y": 1}}
    r10001 = {"1": {"d1": 1, "d5": 1, "x": 1, "y": 1}}
    for m in ("AP(norm='self')@5", "DCG(norm='self')@5"):
        assert ours(run, r10001, m)["1"] < ours(run, r10000, m)["1"]
    for m in ("AP@5", "DCG@5", "SDCG@5", "SP@5"):
        assert ours(run, r10001, m)["1"] > ours(run, r10000, m)["1"]
    assert math.isclose(ours(run, r10001, "RR@5")["1"], ours(run, r10000, "RR@5")["1"])


@pytest.mark.parametrize(
    ("run_name", "qrels_name"),
    [
        ("trec_eval_test/results.test", "trec_eval_test/qrels.test"),
        ("trec_eval_test/results.comment.test", "trec_eval_test/qrels.comment.test"),
    ],
)
def test_err_on_shared_data_matches_gdeval(run_name: str, qrels_name: str) -> None:
    need_perl()

    run, qrels = shared(run_name, qrels_name)
    # gdeval reads a topic as the number after its last '-' (2024-12875 -> 12875)
    run = {q.rsplit("-", 1)[-1]: docs for q, docs in run.items()}
    qrels = {q.rsplit("-", 1)[-1]: docs for q, docs in qrels.items()}
    measure = ir_measures.parse_measure("ERR@20")
    provider = ir_measures.providers.registry["gdeval"]
    want = {m.query_id: m.value for m in provider.iter_calc([measure], qrels, run)}
    got = ours(run, qrels, "ERR@20")
    assert len(want) > 0 and any(v > 0 for v in want.values())
    for qid, v in want.items():
        assert f"{got[qid]:.5f}" == f"{v:.5f}", qid


# --------------------------------------------------------------------------- residuals


def best_case(run: Run, qrels: Qrels, k: int, max_rel: int) -> tuple[Run, Qrels]:
    """Every unjudged document of the top k judged ``max_rel``, and the ranking extended to
    k with documents of grade ``max_rel``: the best the score could still become."""
    run2 = {q: dict(docs) for q, docs in run.items()}
    qrels2 = {q: dict(docs) for q, docs in qrels.items()}
    for qid in run2:
        for d in ranking(run, qid)[:k]:
            qrels2[qid].setdefault(d, max_rel)
        low = min(run2[qid].values())
        for j in range(k - len(run2[qid])):
            run2[qid][f"extra{j}"] = low - 1 - j
            qrels2[qid][f"extra{j}"] = max_rel
    return run2, qrels2


def with_residuals(run: Run, qrels: Qrels, measure: str) -> dict[str, tuple[float, float]]:
    out = ir.evaluate(*frames(run, qrels), measure, per_query=True, residuals=True)
    return {q: (v, r) for q, v, r in out.select("query_id", "value", "residual").iter_rows()}


@pytest.mark.parametrize("name", ["SDCG(max_rel={m})@{k}", "InvSq(max_rel={m})@{k}"])
@settings(DERANDOMIZED, max_examples=25)
@given(data=graded_collections(), k=st.integers(1, 12), max_rel=st.integers(1, 3))
def test_residual_is_the_best_case_minus_the_base(
    name: str, data: tuple[Run, Qrels], k: int, max_rel: int
) -> None:
    """SDCG@k is a truncated measure: its best case fills the top k. InvSq@k reads the
    ranking to depth k of an infinite user model (as RBP@k): its best case also has
    utility 1 at every rank past k, whose weight is Σ_{i > k} 1/(i(i+1)) = 1/(k+1)."""
    run, qrels = data
    measure = name.format(m=max_rel, k=k)
    got = with_residuals(run, qrels, measure)
    best = ours(*best_case(run, qrels, k, max_rel), measure)
    beyond = 1 / (k + 1) if measure.startswith("InvSq") else 0.0
    for qid, (base, residual) in got.items():
        assert base + residual == pytest.approx(best[qid] + beyond, rel=1e-9, abs=1e-12)
        assert residual >= 0.0


@settings(DERANDOMIZED, max_examples=25)
@given(data=graded_collections(), k=st.integers(1, 12))
def test_invsq_residual_is_rbp_like_with_or_without_a_cutoff(
    data: tuple[Run, Qrels], k: int
) -> None:
    """InvSq and RBP read to depth k leave the same tail in the residual: the weight of
    every rank past the ranking (1/(n+1) for InvSq, p^n for RBP), so a cutoff deeper than
    the ranking changes neither value nor residual, and one inside it moves the unjudged
    weight below k into the tail."""
    run, qrels = data
    deep = max(len(docs) for docs in run.values()) + k
    for whole_name, cut_name in (("InvSq", f"InvSq@{deep}"), ("RBP(p=0.8)", f"RBP(p=0.8)@{deep}")):
        whole = with_residuals(run, qrels, whole_name)
        cut = with_residuals(run, qrels, cut_name)
        assert whole == pytest.approx(cut, rel=1e-12, abs=1e-15)
    for qid, (_, residual) in with_residuals(run, qrels, "InvSq").items():
        n = len(run[qid])
        unjudged = sum(
            1 / (i * (i + 1))
            for i, d in enumerate(ranking(run, qid), 1)
            if d not in qrels.get(qid, {})
        )
        assert residual == pytest.approx(unjudged + 1 / (n + 1), rel=1e-9, abs=1e-12)


@settings(DERANDOMIZED, max_examples=25)
@given(data=graded_collections(), k=st.integers(1, 8), grade=st.integers(0, 1))
def test_the_interval_never_widens_as_documents_are_judged(
    data: tuple[Run, Qrels], k: int, grade: int
) -> None:
    run, qrels = data
    for measure in (f"SDCG@{k}", f"InvSq@{k}", "InvSq"):
        before = with_residuals(run, qrels, measure)
        judged = {q: dict(docs) for q, docs in qrels.items()}
        for qid in run:
            unjudged = [d for d in ranking(run, qid) if d not in judged[qid]]
            if unjudged:
                judged[qid][unjudged[0]] = grade
        after = with_residuals(run, judged, measure)
        for qid, (lo, r) in before.items():
            lo2, r2 = after[qid]
            assert lo2 >= lo - 1e-12 and lo2 + r2 <= lo + r + 1e-12, (measure, qid)
