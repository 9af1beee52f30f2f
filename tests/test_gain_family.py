"""The DCG family (gain x discount x normalisation) against reference tools, per query.

Oracles: ranx's ``ndcg_burges`` and trectools (through ir_measures) for the exponential gain,
cwl_eval (through ir_measures) for SDCG, and a direct transcription of each formula in plain
Python for the discounts and normalisations no tool implements. Generated runs have distinct
scores (every tool orders ties differently; ``docs/compat.md``), unjudged documents, relevant
documents never retrieved, negative grades and queries without a relevant document.
pytrec_eval is not used here: it segfaults on a query judged only with negative grades.
"""

from __future__ import annotations

import logging
import math
import re
from typing import Any

import hypothesis.strategies as st
import ir_measures
import polars as pl
import pytest
from hypothesis import given, settings
from polars.testing import assert_frame_equal

import polars_ireval as ir
from polars_ireval.errors import ParameterError
from polars_ireval.measures.usermodel import unit_gain
from tests.oracles import ours, ranking, ranx_qrels, ranx_run, shared, weight
from tests.strategies import DERANDOMIZED, Qrels, Run, graded_collections
from tests.support import every_measure

pytestmark = pytest.mark.filterwarnings("ignore::polars_ireval.CoverageWarning")
logging.getLogger("ir_measures").setLevel(logging.ERROR)
logging.getLogger("ir_measures.cwl_eval").setLevel(logging.ERROR)


# --------------------------------------------------------------------------- plain-Python formulas


def gain_of(grade: int | None, gain: str) -> float:
    g = float(grade) if grade is not None and grade >= 0 else 0.0
    return 2**g - 1 if gain == "exp" else g


def reference_dcg(
    run: Run, qrels: Qrels, qid: str, *, k: int | None, norm: str, gain: str, discount: str,
    b: float = 2.0, weights: tuple[float, ...] = (), max_rel: int = 1,
) -> float:  # fmt: skip
    docs = ranking(run, qid)[:k] if k else ranking(run, qid)
    judged = qrels[qid]

    def dcg_of(gains: list[float]) -> float:
        return sum(g * weight(i, discount, b, weights) for i, g in enumerate(gains, 1))

    gains = [gain_of(judged.get(d), gain) for d in docs]
    if norm == "scaled":
        top = gain_of(max_rel, gain)
        gains = [min(g, top) for g in gains]
        assert k is not None
        best = math.fsum(weight(i, discount, b, weights) for i in range(1, k + 1))
        return dcg_of(gains) / (top * best)
    value = dcg_of(gains)
    if norm == "none":
        return value
    pool = [gain_of(g, gain) for g in judged.values()] if norm == "ideal" else gains
    ideal = sorted((g for g in pool if g > 0), reverse=True)
    best_value = dcg_of(ideal[:k] if k else ideal)
    return value / best_value if best_value > 0 else 0.0


DISCOUNTS = [
    ("log2", {}),
    ("log", {"b": 10}),
    ("jk", {"b": 2}),
    ("jk", {"b": 3.5}),
    ("none", {}),
    ("root", {}),
    ("rank", {}),
    ("square", {}),
    ("click", {"weights": (0.6, 0.25, 0.1, 0.05)}),
    ("custom", {"weights": (1.0, 0.0, 2.0)}),
]


def spec(name: str, params: dict[str, Any], k: int | None) -> str:
    args = ",".join(f"{key}={val!r}" for key, val in params.items())
    return f"{name}({args})" + (f"@{k}" if k else "")


@pytest.mark.parametrize(("discount", "extra"), DISCOUNTS)
@pytest.mark.parametrize("norm", ["none", "scaled", "ideal", "self"])
@pytest.mark.parametrize("gain", ["linear", "exp"])
@settings(DERANDOMIZED, max_examples=12)
@given(data=graded_collections(), k=st.sampled_from([None, 1, 3, 10]))
def test_every_gain_discount_and_norm_matches_its_formula(
    discount: str,
    extra: dict[str, Any],
    norm: str,
    gain: str,
    data: tuple[Run, Qrels],
    k: int | None,
) -> None:
    if norm == "scaled" and k is None:
        k = 5
    run, qrels = data
    params = {"norm": norm, "gain": gain, "discount": discount, **extra}
    got = ours(run, qrels, spec("DCG", params, k))
    for qid, v in got.items():
        want = reference_dcg(run, qrels, qid, k=k, **params)
        assert v == pytest.approx(want, rel=1e-9, abs=1e-12), (qid, run[qid], qrels[qid])


# --------------------------------------------------------------------------- tool oracles


@DERANDOMIZED
@given(data=graded_collections(), k=st.sampled_from([1, 3, 5, 10, 20]))
def test_ndcg_exp_gain_matches_ranx_ndcg_burges(data: tuple[Run, Qrels], k: int) -> None:
    import ranx  # here, not at collection: ranx (numba) takes seconds to import

    run, qrels = data
    their_run = ranx_run(run)
    ranx.evaluate(ranx_qrels(qrels), their_run, f"ndcg_burges@{k}")
    want = their_run.scores[f"ndcg_burges@{k}"]
    got = ours(run, qrels, f"nDCG(gain='exp')@{k}")
    assert set(got) == set(want)
    for qid, v in got.items():
        assert v == pytest.approx(float(want[qid]), rel=1e-9, abs=1e-12), (qid, run, qrels)


@DERANDOMIZED
@given(data=graded_collections(), k=st.sampled_from([1, 3, 5, 10]))
def test_ndcg_exp_gain_matches_ir_measures_exp_log2(data: tuple[Run, Qrels], k: int) -> None:
    run, qrels = data
    measure = ir_measures.parse_measure(f"nDCG(dcg='exp-log2')@{k}")
    provider = ir_measures.providers.registry["trectools"]
    want = {m.query_id: m.value for m in provider.iter_calc([measure], qrels, run)}
    got = ours(run, qrels, f"nDCG(gain='exp')@{k}")
    legacy = ours(run, qrels, f"nDCG(dcg='exp-log2')@{k}")
    dcg = ours(run, qrels, f"DCG(gain='exp')@{k}")
    for qid, v in got.items():
        assert v == legacy[qid]
        if math.isnan(want[qid]):  # trectools: NaN when no retrieved document gains
            assert v == 0.0 and dcg[qid] == 0.0
            continue
        assert v == pytest.approx(want[qid], rel=1e-9, abs=1e-12), (qid, run, qrels)


@DERANDOMIZED
@given(
    data=graded_collections(),
    k=st.sampled_from([1, 3, 5, 10]),
    max_rel=st.integers(1, 3),
    min_rel=st.sampled_from([0, 0, 1]),
)
def test_sdcg_matches_cwl_eval(data: tuple[Run, Qrels], k: int, max_rel: int, min_rel: int) -> None:
    if min_rel >= max_rel:
        min_rel = 0
    run, qrels = data
    text = f"SDCG(min_rel={min_rel},max_rel={max_rel})@{k}"
    measure = ir_measures.parse_measure(text)
    provider = ir_measures.providers.registry["cwl_eval"]
    want = {m.query_id: float(m.value) for m in provider.iter_calc([measure], qrels, run)}
    got = ours(run, qrels, text)
    for qid, v in got.items():
        assert v == pytest.approx(want[qid], rel=1e-9, abs=1e-12), (qid, run, qrels)


# --------------------------------------------------------------------------- compatibility


def test_trec_eval_strings_still_parse_to_the_default_path() -> None:
    run = ir.read_run(ir.example_path("runs/bm25.run"))
    qrels = ir.read_qrels(ir.example_path("qrels.txt"))
    strings = ["ndcg", "ndcg_cut.5,10", "ndcg.1=3,2=9", "nDCG@10", "nDCG(gains={0:0,1:1,2:3})@10"]
    base = ir.evaluate(run, qrels, strings, per_query=True)
    spelled = ir.evaluate(
        run,
        qrels,
        [
            "DCG(norm='ideal')",
            "DCG(norm='ideal')@5",
            "DCG(norm='ideal')@10",
            "DCG(norm='ideal',gains={1:3,2:9})",
            "DCG(norm='ideal')@10",
            "DCG(norm='ideal',gains={0:0,1:1,2:3})@10",
        ],
        per_query=True,
    )
    a = base.pivot(on="measure", index="query_id", values="value")
    b = spelled.pivot(on="measure", index="query_id", values="value")
    pairs = {
        "ndcg": "DCG(norm='ideal')",
        "ndcg_cut_5": "DCG(norm='ideal')@5",
        "ndcg_cut_10": "DCG(norm='ideal')@10",
        "ndcg_1=3,2=9": "DCG(norm='ideal',gains={1:3,2:9})",
        "nDCG@10": "DCG(norm='ideal')@10",
        "nDCG(gains={0:0,1:1,2:3})@10": "DCG(norm='ideal',gains={0:0,1:1,2:3})@10",
    }
    for ours_name, generic in pairs.items():
        diff = (a[ours_name] - b[generic]).abs().max()
        assert diff is not None and diff < 1e-12, ours_name


@pytest.mark.parametrize(
    ("measure", "message"),
    [
        ("DCG(discount='click')@5", "needs weights"),
        ("DCG(weights=(1,0.5))@5", "only used with discount='click'"),
        ("DCG(discount='jk',b=1)@5", "b > 1"),
        ("DCG(norm='scaled')", "needs a cutoff"),
        ("DCG(discount='cubic')@5", "discount='cubic' is invalid"),
        ("DCG(gain='square')@5", "gain='square' is invalid"),
        ("DCG(norm='R')@5", "norm='R' is invalid"),
        ("DCG(discount='custom',weights=(1,-1))@5", "weights=(1, -1) is invalid"),
        ("SDCG", "'k' is required"),
        ("SDCG(max_rel=0)@5", "max_rel=0 is invalid"),
        ("SDCG(min_rel=2,max_rel=2)@5", "must be below max_rel"),
        ("nDCG(discount='log',b=0.5)@5", "b > 1"),
        # graded AP's r is seed 001's relevance in [0, 1]: a gain of 2 would score a
        # perfect ranking above 1 (3.22 for grades 2, 2, 1 retrieved in that order)
        ("AP(gains={1:1,2:2})", "gains in [0, 1], e.g. {0: 0, 1: 0.5, 2: 1}"),
        ("AP(gains={0:-0.5,1:1})@5", "gains in [0, 1]"),
    ],
)
def test_bad_parameters_name_the_fix(measure: str, message: str) -> None:
    run = ir.read_run(ir.example_path("runs/bm25.run"))
    qrels = ir.read_qrels(ir.example_path("qrels.txt"))
    with pytest.raises(ParameterError, match=re.escape(message)):
        ir.evaluate(run, qrels, measure)


def test_graded_ap_macro_refuses_gains_above_one() -> None:
    """The DuckDB macro checks graded AP's gains as the parser does."""
    import duckdb

    con = duckdb.connect()
    ir.sql.load(con)
    run = ir.read_run(ir.example_path("runs/bm25.run"))
    qrels = ir.read_qrels(ir.example_path("qrels.txt"))
    con.register("run", run.to_arrow())
    con.register("qrels", qrels.to_arrow())
    con.execute("CREATE TABLE ev AS SELECT * FROM ireval_judge('run', 'qrels')")
    ok = "SELECT max(value) FROM ireval_ap_variant('ev', gains := ',1=0.5,2=1,')"
    best = con.execute(ok).fetchone()
    assert best is not None and 0 < best[0] <= 1
    with pytest.raises(duckdb.Error, match=r"gains := ',1=1,2=2,' is invalid; .*\[0, 1\]"):
        con.execute("SELECT * FROM ireval_ap_variant('ev', gains := ',1=1,2=2,')").fetchall()


# --------------------------------------------------------------------------- shared data


SHARED = [
    ("trec_eval_test/results.test", "trec_eval_test/qrels.test"),
    ("trec_eval_test/results.comment.test", "trec_eval_test/qrels.comment.test"),
    ("cast2021/runs/org_manual_bm25.run", "cast2021/qrels.cast2021-docs.txt"),
]


@pytest.mark.parametrize(("run_name", "qrels_name"), SHARED)
def test_shared_data_against_ranx_and_cwl_eval(run_name: str, qrels_name: str) -> None:
    import ranx

    run, qrels = shared(run_name, qrels_name)
    their_run = ranx_run(run)
    ranx.evaluate(ranx_qrels(qrels), their_run, ["ndcg_burges@10", "ndcg_burges@100"])
    for k in (10, 100):
        want = their_run.scores[f"ndcg_burges@{k}"]
        got = ours(run, qrels, f"nDCG(gain='exp')@{k}")
        assert set(got) == set(want) and len(got) > 0
        for qid, v in got.items():
            assert v == pytest.approx(float(want[qid]), rel=1e-9, abs=1e-12), qid
    measure = ir_measures.parse_measure("SDCG(max_rel=3)@10")
    provider = ir_measures.providers.registry["cwl_eval"]
    cwl = {m.query_id: float(m.value) for m in provider.iter_calc([measure], qrels, run)}
    got = ours(run, qrels, "SDCG(max_rel=3)@10")
    assert set(got) == set(cwl)
    for qid, v in got.items():
        assert v == pytest.approx(cwl[qid], rel=1e-9, abs=1e-12), qid


NEW_MEASURES = [
    "DCG@10", "SDCG(max_rel=2)@10", "DCG(norm='self')@5", "nDCG(gain='exp')@10",
    "DCG(discount='jk',b=2)@6", "AP(norm='self')@5", "AP(norm='min')@10",
    "AP(gains={1:0.5,2:1},discount='square')", "SP@10", "ERR@20", "Q", "HIT(max_rel=2)@5",
    "InvSq@10", "DCG(discount='click',weights=(0.5,0.3,0.2))@10",
]  # fmt: skip


def test_new_measures_eager_lazy_streaming_and_shuffled_agree() -> None:
    run = ir.read_run(ir.example_path("runs/bm25.run"))
    qrels = ir.read_qrels(ir.example_path("qrels.txt"))
    eager = ir.evaluate(run, qrels, NEW_MEASURES, per_query=True)
    lazy = ir.evaluate(run.lazy(), qrels.lazy(), NEW_MEASURES, per_query=True)
    shuffled = run.sample(fraction=1.0, shuffle=True, seed=7)
    assert eager.height == 25 * len(NEW_MEASURES)
    assert eager.equals(lazy.collect(engine="streaming"))
    assert eager.equals(ir.evaluate(shuffled, qrels, NEW_MEASURES, per_query=True))


def test_a_rankings_values_do_not_depend_on_where_it_sits() -> None:
    # Polars divides a column by a literal through the literal's reciprocal (one unit in the
    # last place off), but a single value exactly; which one a measure got depended on the
    # query plan, so a ranking's value changed with the order of the rankings around it.
    run = ir.read_run(ir.example_path("runs/bm25.run"))
    qrels = ir.read_qrels(ir.example_path("qrels.txt"))
    extra = ["TBG(halflife=3)@10", "U(L=7)@10", "INST(T=2,max_rel=2)@10", "SDCG(max_rel=3)@5"]
    measures = [*every_measure(10), *NEW_MEASURES, *extra]
    want = ir.evaluate(run, qrels, measures, per_query=True)
    assert want.height == 25 * len(set(measures))
    for descending in (False, True):  # whole rankings moved, each one's rows kept in order
        moved = run.sort("query_id", descending=descending, maintain_order=True)
        got = ir.evaluate(moved, qrels, measures, per_query=True)
        assert_frame_equal(got, want, check_exact=True)


def test_sdcg_is_dcg_over_its_bound_divided_once() -> None:
    # the grades here top out at max_rel, so the clipped DCG is the plain one
    run = ir.read_run(ir.example_path("runs/bm25.run"))
    qrels = ir.read_qrels(ir.example_path("qrels.txt")).with_columns(
        pl.col("relevance").clip(upper_bound=2)
    )
    both = ir.evaluate(run, qrels, ["DCG@10", "SDCG(max_rel=2)@10"], per_query=True)
    wide = both.pivot("measure", index="query_id", values="value")
    bound = 2 * math.fsum(1 / math.log2(i + 1) for i in range(1, 11))
    pairs = wide.select("DCG@10", "SDCG(max_rel=2)@10").rows()
    assert len(pairs) == 25 and any(dcg > 0 for dcg, _ in pairs)
    assert [s for _, s in pairs] == [dcg / bound for dcg, _ in pairs]


#: ir_measures' C/W/L spellings (gains scaled by min_rel/max_rel) and ours for the same
#: measure: ir_measures' INST/INSQ take no cutoff (cwl_eval's depth, 1000), and its BPM@k
#: is the cost budget K at that depth, ours BPM(K=k).
CWL_SPELLINGS = [
    ("INST(max_rel=3)", "INST(max_rel=3)"),
    ("INST(T=2,min_rel=1,max_rel=3)", "INST(T=2,min_rel=1,max_rel=3)"),
    ("INSQ(max_rel=2)", "INSQ(max_rel=2)"),
    ("INSQ(T=3,max_rel=1)", "INSQ(T=3,max_rel=1)"),
    ("BPM(T=1,max_rel=3)@20", "BPM(T=1,K=20,max_rel=3)"),
    ("BPM(T=2,min_rel=1,max_rel=2)@5", "BPM(T=2,K=5,min_rel=1,max_rel=2)"),
    ("NERR8(max_rel=3)@10", "NERR8(max_rel=3)@10"),
    ("NERR9(min_rel=1,max_rel=3)@5", "NERR9(min_rel=1,max_rel=3)@5"),
    ("NERR10(p=0.5,max_rel=2)", "NERR10(p=0.5,max_rel=2)"),
    ("NERR11(T=2,max_rel=3)", "NERR11(T=2,max_rel=3)"),
]


@pytest.mark.parametrize(("run_name", "qrels_name"), SHARED)
def test_cwl_gain_scale_matches_ir_measures(run_name: str, qrels_name: str) -> None:
    """ir_measures' min_rel/max_rel on INST, INSQ, BPM and NERR8-11 (through cwl_eval),
    per query."""
    run, qrels = shared(run_name, qrels_name)
    provider = ir_measures.providers.registry["cwl_eval"]
    for theirs, mine in CWL_SPELLINGS:
        measure = ir_measures.parse_measure(theirs)
        want = {m.query_id: float(m.value) for m in provider.iter_calc([measure], qrels, run)}
        got = ours(run, qrels, mine)
        assert set(got) == set(want) and len(got) > 0, theirs
        for qid, v in got.items():
            assert v == pytest.approx(want[qid], rel=1e-9, abs=1e-12), (theirs, qid)


def test_cwl_gain_scale() -> None:
    """Grades clipped to [min_rel, max_rel] and scaled to [0, 1]; rel is then ignored;
    max_rel with gains, or min_rel >= max_rel, is refused."""
    run = pl.DataFrame({"query_id": ["q"] * 4, "doc_id": list("abcd"), "score": [4.0, 3, 2, 1]})
    qrels = pl.DataFrame(
        {"query_id": ["q"] * 4, "doc_id": list("abcd"), "relevance": [3, -1, 1, 5]}
    )
    table = ir.judge(run, qrels).sort("rank")
    gains = table.select(unit_gain(rel=2, min_rel=1, max_rel=4)).to_series().to_list()
    assert gains == [2 / 3, 0.0, 0.0, 1.0]
    same = ["INST(max_rel=4,min_rel=1)@4", "INST(gains={3:0.6666666666666666,5:1})@4"]
    out = ir.evaluate(run, qrels, same)["value"].to_list()
    assert out[0] == pytest.approx(out[1], abs=1e-15)
    for bad, why in [
        ("INST(max_rel=3,gains={1:1})", "give one of them"),
        ("INSQ(min_rel=2,max_rel=2)", "must be below"),
        ("BPM(max_rel=1.5)", "max_rel"),
    ]:
        with pytest.raises(ParameterError, match=why):
            ir.evaluate(run, qrels, [bad])
