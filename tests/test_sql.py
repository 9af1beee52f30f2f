"""The DuckDB SQL macros (``sql/``, ``polars_ireval.sql``) against the Polars measures."""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_ireval as ir
import polars_ireval.engines.duckdb as duckdb_engine
import polars_ireval.sql as irsql
from polars_ireval.engines.base import rank_by_of
from polars_ireval.measures.ap import AP_NORMS
from polars_ireval.measures.dcg import DISCOUNTS, GAINS, NORMS
from polars_ireval.measures.ndcg import DCG_KINDS
from polars_ireval.measures.usermodel import MODELS
from polars_ireval.registry import REGISTRY, SqlCall, SqlMean
from polars_ireval.sql import compile as sqlc
from polars_ireval.sql import templates as T
from polars_ireval.sql.options import MAX_POSITIONS
from tests.paths import CAST, ROOT, SQL_DOC, TREC_TEST, need_data
from tests.refs import TREC_EVAL_CASES, numeric, read_trec_eval_output, trec_text
from tests.support import (
    RANK_BY,
    TIE_IDS,
    compare,
    compare_residuals,
    generated,
    tie_frames,
    to_polars,
)

SQL = ROOT / "sql"

#: Measure strings exercising every SQL measure (names checked against SQL_MEASURES below).
MEASURES = [
    "P@5",
    "P@10",
    "P(rel=2)@10",
    "R@10",
    "R@1000",
    "Success@1",
    "Success(rel=2)@10",
    "relative_P@10",
    "Judged@10",
    "Judged",
    "Unjudged@10",
    "AP",
    "AP@10",
    "AP(rel=2)",
    "gm_map",
    "Rprec",
    "RPrec@5",
    "Rprec@1000",
    "Bpref",
    "gm_bpref",
    "infAP",
    "NumQ",
    "NumRet",
    "NumRel",
    "NumRelRet",
    "num_nonrel_judged_ret",
    "nDCG",
    "nDCG@10",
    "nDCG@1000",
    "nDCG(dcg='exp-log2')@10",
    "nDCG(gains={0:0,1:1,2:3})@10",
    "nDCG(gain='exp')@5",
    "GradedP(gains={1:0.5,2:1},discount='log2')@10",
    "ndcg.1=3,2=9",
    "ndcg_rel",
    "ndcg_rel(gains={1:3,2:9})",
    "Rndcg",
    "Rndcg(dcg='exp-log2')",
    "G",
    "G(gains={1:0.5,2:4})",
    "binG",
    "RR",
    "RR@5",
    "RR(rel=2)",
    "SetP",
    "SetR",
    "set_relative_P",
    "SetAP",
    "SetF",
    "SetF(beta=0.5)",
    "SetF(f_beta=2)",
    "SetAccuracy(num_docs=100000)",
    "SetAccuracy(num_docs=100000,rel=2)@10",
    "Fallout(num_docs=100000)",
    "Fallout(num_docs=100000)@10",
    "IPrec@0.0",
    "IPrec@0.5",
    "IPrec(rounding='trec_eval10')@0.3",
    "11pt_avg",
    "11pt_avg..25,.5,.75",
    "Rprec_mult(mult=0.6)",
    "Rprec_mult(mult=2.0)",
    "utility",
    "utility.2,-1,0,0",
    "utility(weights=(1.0,-1.0,0.5,0.25),num_docs=100)",
    "RBP",
    "RBP(p=0.95)@10",
    "RBP(rel=2)@5",
    "RBP(gains={1:0.5,2:1})",
    "RBP_resid",
    "RBP_resid(p=0.5)@5",
    "RBP(ties='average')@10",
    "RBP_resid(ties='average')",
    "map",
    "ndcg_cut.10",
    "recip_rank",
    "bpref",
    "AP(norm='min')@10",
    "AP(gains={1:0.5,2:1},discount='log2')",
    "nDCG(discount='rank')@10",
    "DCG@10",
    "DCG(norm='self',gain='exp')@5",
    "SDCG(max_rel=3)@10",
    "SP@10",
    "ERR@20",
    "Q",
    "HIT(max_rel=3)@5",
    "InvSq@10",
    "INST@10",
    "INSQ(T=2)",
    "TBG@20",
    "U(L=10)@20",
    "BPM",
    "NERR8@10",
    "NERR9@10",
    "NERR10",
    "NERR11",
    "ED(measure='INST@10')",
    # ir_measures' spellings: per-measure condensing, SetP(relative=True), NumRet(rel=r)
    "P(judged_only=True)@5",
    "nDCG(judged_only=True)@10",
    "utility(judged_only=True,weights=(1.0,-1.0,0.5,0.25),num_docs=100)",
    "SetP(relative=True)",
    "NumRet(rel=2)",
]

#: Measure strings giving every parameter of every measure a value other than its default
#: (and every value of the choice parameters in CHOICES); checked by
#: test_every_parameter_is_exercised, run on every engine by test_parameters_equal_polars.
PARAMETER_CASES = [
    # the DCG family: normalisations, gains, every discount
    "DCG",
    "DCG(norm='ideal')@10",
    "DCG(norm='self')@5",
    "DCG(norm='scaled',max_rel=3)@10",
    "DCG(gain='exp',gains={0:0,1:1,2:3,3:7})@10",
    "DCG(discount='log',b=3.0)@10",
    "DCG(discount='jk',b=2.5)@10",
    "DCG(discount='none')@10",
    "DCG(discount='root')@10",
    "DCG(discount='rank')",
    "DCG(discount='square')@10",
    "DCG(discount='click',weights=(0.9,0.5,0.3,0.1))@10",
    "DCG(norm='scaled',gain='exp',gains={1:2,2:3},discount='custom',weights=(1.0,0.5,0.25),"
    "max_rel=2)@5",
    "SDCG@10",
    "SDCG(max_rel=3,min_rel=1)@10",
    "SDCG(gain='exp',max_rel=2)@5",
    "SDCG(gains={1:2,2:5},max_rel=2,discount='log',b=4.0)@10",
    "SDCG(discount='click',weights=(0.5,0.3,0.2))@5",
    "nDCG(gain='exp')@10",
    "nDCG(dcg='exp-log2',discount='rank')@10",
    "nDCG(discount='jk',b=3.0)@10",
    "nDCG(discount='custom',weights=(1.0,0.5,0.25))",
    "nDCG(gains={1:1,2:4},discount='square')@20",
    # graded, discounted precision (seed 001)
    "GradedP@10",
    "GradedP(gain='exp',discount='jk',b=5.0)@5",
    "GradedP(discount='log',b=5.0)@20",
    "GradedP(gains={1:0.2,2:0.6,3:1},discount='root')@10",
    "GradedP(discount='rank')@7",
    "GradedP(discount='square')@20",
    "GradedP(discount='click',weights=(0.5,0.3,0.2))@5",
    "GradedP(discount='custom',weights=(1.0,0.5))@3",
    # AP's variants and SP
    "AP(norm='min')",
    "AP(norm='self')@10",
    "AP(rel=2,norm='self')",
    "AP(gains={1:0.5,2:1},norm='min')@5",
    "AP(discount='none')@10",
    "AP(discount='jk',b=3.0)@10",
    "AP(discount='square')",
    "AP(discount='click',weights=(1.0,0.5,0.25))",
    "AP(discount='log',b=10.0)@10",
    "SP",
    "SP(rel=2)@5",
    # cascade and utility measures
    "ERR",
    "ERR(max_rel=2)@10",
    "ERR(max_rel=1)",
    "Q@10",
    "Q(beta=0)",
    "Q(beta=2.5,rel=2)@20",
    "Q(gains={1:3,2:9,3:12})",
    "HIT",
    "HIT@3",
    "HIT(gains={1:0.25,2:0.5,3:1})",
    "InvSq",
    "InvSq(max_rel=3)@5",
    "InvSq(gains={1:0.5,3:1})",
    # RBP's tie averaging, graded gains
    "RBP(ties='average')",
    "RBP(ties='average',p=0.5)@5",
    "RBP(ties='average',gains={1:0.5,2:1},rel=2)@10",
    "RBP(rel=2,p=0.95)@20",
    "RBP_resid(ties='average',p=0.9)@3",
    # C/W/L user models and their expected depth
    "INST",
    "INST(T=0.5,rel=2)",
    "INST(gains={1:0.5,2:1})@50",
    "INSQ(T=3)@10",
    "INSQ(rel=2,gains={2:0.5,3:1})@30",
    "TBG",
    "TBG(halflife=2.5)@10",
    "TBG(rel=2,gains={1:0.3,2:1})@100",
    "U",
    "U(L=5)@8",
    "U(L=20.5,rel=2,gains={1:0.5})@30",
    "BPM(T=2,K=5)@20",
    "BPM(K=3.5,rel=2)",
    "BPM(gains={1:0.5,2:1},T=1.5)@10",
    # ir_measures' gain scale of the C/W/L measures
    "INST(T=2,min_rel=1,max_rel=3)@50",
    "INSQ(min_rel=1,max_rel=3)@30",
    "TBG(min_rel=1,max_rel=2)@20",
    "U(L=10,min_rel=1,max_rel=2)@20",
    "BPM(T=1,K=20,min_rel=1,max_rel=3)",
    "ED(measure='INST(max_rel=3)@10')",
    # cwl_eval's NERR family (ICTIR 2021)
    "NERR8(rel=2,gains={1:0.5,2:1})@5",
    "NERR8(min_rel=1,max_rel=3)@10",
    "NERR9(min_rel=1,max_rel=3)@20",
    "NERR9(gains={1:0.5,2:1})@10",
    "NERR10(p=0.5,min_rel=1,max_rel=2)@30",
    "NERR10(gains={2:1})",
    "NERR11(T=2,gains={1:0.3,2:1})@25",
    "NERR11(min_rel=1,max_rel=2)@40",
    "ED(measure='NERR8@10')",
    "ED(measure='NERR9@5')",
    "ED(measure='NERR10(p=0.5)')",
    "ED(measure='NERR11')",
    "ED(measure='RBP(p=0.95)')",
    "ED(measure='P@10')",
    "ED(measure='INST(T=2)@10')",
    "ED(measure='INSQ')",
    "ED(measure='TBG(halflife=10)@50')",
    "ED(measure='U@20')",
    "ED(measure='BPM(T=2)',rel=2)",
    "ED(measure='INST',rel=2)",
    # parameters of the trec_eval measures left at their defaults above
    "gm_map@10",
    "11pt_avg(rounding='trec_eval10')",
    "ndcg_rel(dcg='exp-log2')",
    "Rndcg(gains={1:2,2:5})",
    "G(dcg='exp-log2')",
]

#: Every value of these choice parameters must occur in MEASURES or PARAMETER_CASES.
CHOICES: dict[tuple[str, str], tuple[object, ...]] = {
    ("DCG", "norm"): NORMS,
    ("DCG", "gain"): GAINS,
    ("DCG", "discount"): DISCOUNTS,
    ("GradedP", "discount"): DISCOUNTS,
    ("GradedP", "gain"): GAINS,
    ("AP", "norm"): AP_NORMS,
    ("nDCG", "dcg"): DCG_KINDS,
    ("nDCG", "gain"): GAINS,
    ("RBP", "ties"): ("rank", "average"),
    ("RBP_resid", "ties"): ("rank", "average"),
    ("IPrec", "rounding"): ("trec_eval9", "trec_eval10"),
}

#: One measure string per SQL macro and code path, for the Spark engine (Spark plans are
#: costly on a small machine: it runs these few, batched, and DuckDB runs every case).
SPARK_MEASURES = [
    "P@5",
    "R@10",
    "Success@1",
    "relative_P@10",
    "Judged@10",
    "Unjudged@10",
    "AP",
    "Rprec",
    "Bpref",
    "infAP",
    "NumQ",
    "NumRet",
    "NumRel",
    "NumRelRet",
    "num_nonrel_judged_ret",
    "nDCG@10",
    "nDCG(dcg='exp-log2')@10",
    "GradedP(gains={1:0.5,2:1},discount='root')@10",
    "ndcg.1=3,2=9",
    "ndcg_rel",
    "Rndcg",
    "G(gains={1:0.5,2:4})",
    "binG",
    "RR@5",
    "SetP",
    "SetR",
    "set_relative_P",
    "SetAP",
    "SetF(beta=0.5)",
    "IPrec(rounding='trec_eval10')@0.3",
    "11pt_avg..25,.5,.75",
    "Rprec_mult(mult=0.6)",
    "utility(weights=(1.0,-1.0,0.5,0.25),num_docs=100)",
    "RBP(gains={1:0.5,2:1})@10",
    "RBP_resid(p=0.5)@5",
    "DCG(norm='self',gain='exp',discount='jk',b=3.0)@10",
    "SDCG(max_rel=3,min_rel=1,gains={1:1,2:3,3:4},discount='click',weights=(1.0,0.6,0.3))@5",
    "nDCG(discount='root')@10",
    "DCG(discount='log',b=3.0,norm='ideal')@10",
    "AP(norm='min',gains={1:0.5,2:1},discount='square')@10",
    "SP@10",
    "Q(beta=0.5,gains={1:3,2:9})@10",
    "ERR(max_rel=3)@10",
    "HIT(gains={1:0.5,3:1})@5",
    "InvSq(max_rel=2)@10",
    "RBP(ties='average',gains={1:0.5,2:1})@5",
    "RBP_resid(ties='average')@5",
    "INST(T=2,gains={1:0.5,2:1})@20",
    "INSQ(min_rel=1,max_rel=3)@15",
    "TBG(halflife=3)@10",
    "U(L=5)@8",
    "BPM(T=2,K=5)@20",
    "NERR8(max_rel=2)@10",
    "NERR9@5",
    "NERR10(p=0.5)@20",
    "NERR11(T=2)@30",
    "ED(measure='INST@10')",
    "nDCG(judged_only=True)@10",
    "SetP(relative=True)",
    "NumRet(rel=2)",
    "SetAccuracy(num_docs=100000)@10",
    "Fallout(num_docs=100000,rel=2)",
]
#: Spark measures per query. Planning has a large fixed cost (the judge's plan) and grows
#: about linearly with the measures: all 60 in one query took 77 s in a warm JVM, in four
#: queries of 15-18 about 155 s.
SPARK_BATCH = 100

#: Measures with a residual (and one without), for residuals=True on every engine.
RESIDUAL_MEASURES = [
    "P@5",
    "P(rel=2)@20",
    "SDCG@10",
    "SDCG(max_rel=3,min_rel=1,discount='rank')@5",
    "InvSq",
    "InvSq(max_rel=3)@5",
    "RBP",
    "RBP(p=0.5,gains={1:0.5,2:1})@5",
    "RBP(ties='average')@10",
    "INST@20",
    "INSQ(T=2)",
    "TBG(halflife=5)@30",
    "U(L=10)@20",
    "BPM(T=2)",
    "NERR8(max_rel=2)@10",
    "NERR9@5",
    "NERR10(p=0.5)@20",
    "NERR11(gains={1:0.5,2:1})",
    "RBP(judged_only=True)@10",
    "AP",
]

#: Evaluation options, each checked on every engine.
OPTIONS: list[dict[str, object]] = [
    {},
    {"relevance_level": 2},
    {"missing": "zero"},
    {"max_depth": 5},
    {"judged_only": True},
    {"ties": "doc_id_asc"},
    {"ties": "input_order"},
    {"missing": "zero", "max_depth": 3, "judged_only": True, "relevance_level": 2},
]


def duckdb_evaluate(run: Any, qrels: Any, measures: Any, **options: Any) -> pl.DataFrame:
    """``evaluate`` on the DuckDB engine."""
    out: pl.DataFrame = ir.evaluate(run, qrels, measures, engine="duckdb", **options)
    return out


def _datasets() -> list[tuple[str, object, object]]:
    example_runs = sorted(str(p) for p in Path(ir.example_path("runs")).glob("*.run"))
    out: list[tuple[str, object, object]] = [
        ("example-bm25", ir.example_path("runs/bm25.run"), ir.example_path("qrels.txt")),
        ("example-all", example_runs, ir.example_path("qrels.txt")),
    ]
    if TREC_TEST.is_dir():
        out.append(
            ("trec_eval_test", str(TREC_TEST / "results.test"), str(TREC_TEST / "qrels.test"))
        )
    g_run, g_qrels = generated()
    out.append(("generated", g_run, g_qrels))
    if CAST.is_dir():
        runs = sorted(str(p) for p in (CAST / "runs").glob("*.run"))
        out.append(("cast2021", runs, str(CAST / "qrels.cast2021-docs.txt")))
    return out


def test_measures_cover_sql() -> None:
    names = {m.name for m in ir.parse_measures(MEASURES)}
    assert names == set(REGISTRY)


def test_every_parameter_is_exercised() -> None:
    """MEASURES and PARAMETER_CASES give every parameter of every registry measure a value
    other than its default, every choice of CHOICES, and ED every user-model measure.
    (``rel`` is also set by ``relevance_level``, which the engine tests vary.)"""
    cases = ir.parse_measures([*MEASURES, *PARAMETER_CASES])
    missing = []
    for d in REGISTRY.values():
        for p in d.params:
            if p.name == "rel" and any(m.name == d.name for m in cases):
                continue
            used = [m.params[p.name] for m in cases if m.name == d.name and p.name in m.params]
            if not any(p.required or v != p.default for v in used):
                missing.append(f"{d.name}({p.name}=...)")
    for (name, param), values in CHOICES.items():
        used = {
            m.params.get(param, REGISTRY[name].param(param).default)
            for m in cases
            if m.name == name
        }
        missing += [f"{name}({param}={v!r})" for v in values if v not in used]
    inner = {ir.parse_measures(m.params["measure"])[0].name for m in cases if m.name == "ED"}
    missing += [f"ED(measure={name!r})" for name in sorted(set(MODELS) - inner)]
    assert not missing, f"add measure strings exercising {missing}"


def test_spark_measures_cover_every_macro() -> None:
    """SPARK_MEASURES (run on Spark by test_engines_equal_polars) calls every measure macro."""
    called = set()
    for m in ir.parse_measures(SPARK_MEASURES):
        s = sqlc.spec(m)
        calls = s.calls if isinstance(s, SqlMean) else (s,)
        called |= {c.macro for c in calls}
    macros = {t.name for t in irsql.library().values() if t.kind == "macro"}
    others = {"ireval_judge", "ireval_check", "ireval_rankings"}  # and the fusion's (below)
    fusion = {"ireval_fuse", "ireval_normalize"}  # run on Spark by tests/test_fusion_sql.py
    assert called == macros - others - fusion


def test_residual_measures_cover_registry() -> None:
    names = {m.name for m in ir.parse_measures(RESIDUAL_MEASURES)}
    with_residual = {d.name for d in REGISTRY.values() if d.residual is not None}
    assert with_residual <= names
    assert names - with_residual, "keep a measure without a residual (null residual)"
    assert {d.name for d in REGISTRY.values() if d.sql_residual is not None} == with_residual


# --------------------------------------------------------------------------- every engine


def _on_engine(engine: str, request: pytest.FixtureRequest, *args: Any, **kw: Any) -> pl.DataFrame:
    """``polars_ireval.evaluate(*args, engine=engine, **kw)`` as a Polars frame (Spark: in
    the suite's session, which the ``spark`` fixture makes the active one)."""
    if engine == "spark":
        request.getfixturevalue("spark")
    out = ir.evaluate(*args, engine=engine, **kw)  # type: ignore[arg-type]
    if engine == "spark":
        out = to_polars(out)
    assert isinstance(out, pl.DataFrame)
    return out


#: (engine, data set, relevance level, measures): DuckDB runs every parameter case on
#: generated runs and the shared data; Spark one measure per macro and code path, batched.
ENGINE_CASES = [
    pytest.param("duckdb", "generated", 1, PARAMETER_CASES, id="duckdb-generated-l1"),
    pytest.param("duckdb", "generated", 2, PARAMETER_CASES, id="duckdb-generated-l2"),
    pytest.param("duckdb", "trec_eval_test", 1, PARAMETER_CASES, id="duckdb-trec_eval_test"),
    pytest.param("duckdb", "cast2021", 2, PARAMETER_CASES, id="duckdb-cast2021-l2"),
    *(
        pytest.param("spark", "generated", 1, SPARK_MEASURES[i : i + SPARK_BATCH], id=f"spark-{i}")
        for i in range(0, len(SPARK_MEASURES), SPARK_BATCH)
    ),
]


@pytest.mark.filterwarnings("ignore::polars_ireval.CoverageWarning")
@pytest.mark.parametrize("engine,name,relevance_level,names", ENGINE_CASES)
def test_engines_equal_polars(
    engine: str, name: str, relevance_level: int, names: list[str], request: pytest.FixtureRequest
) -> None:
    """Every engine equals the Polars one per query, to 1e-12, on runs with ties, unjudged
    documents, negative grades, queries the qrels lack and judged queries the run lacks
    (scored as empty rankings: missing='zero')."""
    run, qrels = _dataset(name)
    kw = {"per_query": True, "relevance_level": relevance_level, "missing": "zero"}
    compare(
        _on_engine(engine, request, run, qrels, names, **kw), ir.evaluate(run, qrels, names, **kw)
    )


RESIDUAL_ENGINES = [
    pytest.param(engine, per_query, id=f"{engine}-{'per_query' if per_query else 'mean'}")
    for engine in ("duckdb", "spark")
    for per_query in (True, False)
]


@pytest.mark.filterwarnings("ignore::polars_ireval.CoverageWarning")
@pytest.mark.parametrize("engine,per_query", RESIDUAL_ENGINES)
def test_residuals_equal_polars(
    engine: str, per_query: bool, request: pytest.FixtureRequest
) -> None:
    """evaluate(residuals=True) on every engine: the same residual and projected columns
    (null for a measure without a residual), per query and as means per run."""
    run, qrels = generated(2)
    kw = {"per_query": per_query, "residuals": True, "missing": "zero"}
    got = _on_engine(engine, request, run, qrels, RESIDUAL_MEASURES, **kw)
    want = ir.evaluate(run, qrels, RESIDUAL_MEASURES, **kw)
    compare_residuals(got, want)
    assert got.filter(pl.col("measure") == "AP")["residual"].is_null().all()
    assert got["residual"].is_not_null().sum() > 0


#: (data set, relevance level) pairs checked per query; each call plans ~70 measures.
CASES = [
    ("example-all", 1),
    ("trec_eval_test", 1),
    ("generated", 1),
    ("generated", 2),
    ("cast2021", 1),
    ("cast2021", 2),
]


def _dataset(name: str) -> tuple[object, object]:
    if name in ("trec_eval_test", "cast2021"):
        need_data()
    found = {d[0]: d[1:] for d in _datasets()}
    return found[name]  # type: ignore[return-value]


@pytest.mark.filterwarnings("ignore::polars_ireval.CoverageWarning")
def test_duckdb_gives_the_same_floats_on_every_call() -> None:
    """Two identical calls, the same values and residuals bit for bit. The CWL measures'
    sums run over the positions in their order (``cwl_score`` in sql/cwl.sql); a plain SUM
    added a ranking's 1,000 rows in the order DuckDB's threads delivered them, and on
    TREC CAsT 2021 every pair of calls differed in the last bits of hundreds of values."""
    run, qrels = _dataset("cast2021")
    names = ["TBG@20", "INSQ(T=2)", "U(L=10)@20", "NERR10"]
    kw = {"per_query": True, "relevance_level": 2, "residuals": True}
    first = duckdb_evaluate(run, qrels, names, **kw)
    assert first.height == 4 * 790
    assert_frame_equal(duckdb_evaluate(run, qrels, names, **kw), first, check_exact=True)


@pytest.mark.filterwarnings("ignore::polars_ireval.CoverageWarning")
@pytest.mark.parametrize("name,relevance_level", CASES, ids=[f"{n}-l{lv}" for n, lv in CASES])
def test_sql_equals_polars(name: str, relevance_level: int) -> None:
    run, qrels = _dataset(name)
    kw = {"per_query": True, "relevance_level": relevance_level}
    compare(duckdb_evaluate(run, qrels, MEASURES, **kw), ir.evaluate(run, qrels, MEASURES, **kw))


@pytest.mark.filterwarnings("ignore::polars_ireval.CoverageWarning")
@pytest.mark.parametrize("name", ["example-all", "generated", "example-bm25"])
def test_sql_aggregates_equal_polars(name: str) -> None:
    """Means, sums and geometric means over queries as polars_ireval.evaluate."""
    run, qrels = _dataset(name)
    compare(duckdb_evaluate(run, qrels, MEASURES), ir.evaluate(run, qrels, MEASURES))


@pytest.fixture(params=sorted(RANK_BY))
def rank_by(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each ``ireval_judge`` ranking strategy in turn (``count`` is used by the measures
    that do not read the unjudged documents; the others keep ``window``)."""
    monkeypatch.setattr(sqlc, "SPARSE_JUDGMENTS", RANK_BY[request.param])
    return str(request.param)


def ranked_by(rank_by: str, monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], list[str]]:
    """The measures of MEASURES to evaluate under the ``rank_by`` strategy: all of them by
    ``window``; by ``count`` those that do not read the unjudged documents (the judge
    counts only for a table without them: with the others beside them, every table was
    ranked by the window again, the same query as under ``window``); and the list that
    receives the strategy of each evaluation table the DuckDB engine then builds."""
    strategies: list[str] = []
    judge_options = duckdb_engine.judge_options

    def spy(*args: Any, **kw: Any) -> dict[str, Any]:
        options = judge_options(*args, **kw)
        strategies.append(options["rank_by"])
        return options

    monkeypatch.setattr(duckdb_engine, "judge_options", spy)
    if rank_by == "window":
        return MEASURES, strategies
    counted = [m for m in MEASURES if not sqlc.needs_unjudged(ir.parse_measures(m))]
    return counted, strategies


@pytest.mark.filterwarnings("ignore::polars_ireval.CoverageWarning")
@pytest.mark.parametrize(
    "options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items())
)
def test_options_equal_polars(options: dict, rank_by: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """missing, max_depth, judged_only and ties go through ireval_judge like judge(), with
    the ranks sorted (rank_by 'window') or counted ('count')."""
    run, qrels = generated(1)
    kw = {"per_query": True, **options}
    names, strategies = ranked_by(rank_by, monkeypatch)
    compare(duckdb_evaluate(run, qrels, names, **kw), ir.evaluate(run, qrels, names, **kw))
    assert strategies and set(strategies) == {rank_by}, strategies


@pytest.mark.filterwarnings("ignore::polars_ireval.CoverageWarning")
def test_ties_by_input_rank(rank_by: str, monkeypatch: pytest.MonkeyPatch) -> None:
    run, qrels = generated(2)
    run = run.with_columns(input_rank=(pl.col("score") * -3).round(0))
    kw = {"per_query": True, "ties": "rank"}
    names, strategies = ranked_by(rank_by, monkeypatch)
    compare(duckdb_evaluate(run, qrels, names, **kw), ir.evaluate(run, qrels, names, **kw))
    assert strategies and set(strategies) == {rank_by}, strategies
    with pytest.raises(ir.ParameterError, match="input_rank column"):
        duckdb_evaluate(run.drop("input_rank"), qrels, "AP", ties="rank")


GOLDEN_CASES = [c for c in TREC_EVAL_CASES if c[0] in ("aq", "aqc", "aqcM", "aql", "meas_params")]


@pytest.mark.parametrize("case", GOLDEN_CASES, ids=[c[0] for c in GOLDEN_CASES])
def test_trec_eval_golden_text(case: tuple) -> None:
    """DuckDB reproduces every trec_eval reference output, printed like trec_eval (%6.4f):
    the same check as tests/test_golden.py makes for the Polars engine."""
    need_data()
    _, qrels, run, expected, options = case
    want = read_trec_eval_output(TREC_TEST / expected)
    names = [m for m in want["measure"].unique(maintain_order=True) if numeric(m)]
    measures = {m.label: m for m in ir.parse_measures(names)}
    run, qrels = TREC_TEST / run, TREC_TEST / qrels
    per_q = duckdb_evaluate(run, qrels, names, per_query=True, **options)
    agg = duckdb_evaluate(run, qrels, names, **options).with_columns(query_id=pl.lit("all"))
    got = pl.concat([per_q, agg.select(per_q.columns)])
    joined = want.filter(pl.col("measure").is_in(names)).join(
        got, on=["measure", "query_id"], how="left"
    )
    assert joined.height > 0
    assert joined.filter(pl.col("value").is_null()).height == 0
    ours = [
        trec_text(v, measures[m].defn.integer)
        for m, v in zip(joined["measure"], joined["value"], strict=True)
    ]
    bad = joined.with_columns(pl.Series("ours", ours)).filter(
        pl.col("ours").str.strip_chars() != pl.col("text").str.strip_chars()
    )
    assert bad.height == 0, bad


@pytest.mark.parametrize("collation", [None, "nocase", "noaccent", "nocase.noaccent"])
@pytest.mark.parametrize("ties", ["trec_eval", "doc_id_asc"])
def test_ties_rank_like_judge(collation: str | None, ties: str) -> None:
    """Byte-wise doc id order whatever the session's default collation; -0.0 ties 0.0."""
    run, qrels = tie_frames()
    con = irsql.load(duckdb.connect(), ["ireval_judge"])
    if collation:
        con.execute(f"SET default_collation = '{collation}'")
    # raw -0.0 scores straight from SQL, not through the Python readers
    con.register("run", run.to_arrow())
    con.register("qrels", qrels.to_arrow())
    got = pl.from_arrow(
        con.sql(
            "SELECT query_id, doc_id, rank, relevance "
            f"FROM ireval_judge('run', 'qrels', ties := '{ties}')"
        ).to_arrow_table()
    )
    assert isinstance(got, pl.DataFrame)
    want = ir.judge(run, qrels, ties=ties).select("query_id", "doc_id", "rank", "relevance")
    order = ["query_id", "doc_id"]
    got = got.with_columns(pl.col("rank").cast(pl.UInt32)).sort(order)
    assert got.equals(want.sort(order))
    # and the order itself, from Python's byte-wise sort: q2 is one big tie
    q2 = got.filter(pl.col("query_id") == "q2", pl.col("rank").is_not_null()).sort("rank")
    by_bytes = sorted(TIE_IDS, key=lambda s: s.encode(), reverse=ties == "trec_eval")
    assert q2["doc_id"].to_list() == by_bytes


def test_entry_file_is_the_generated_macros() -> None:
    assert {p.name for p in SQL.glob("*.sql")} == {*irsql.FILES, irsql.ENTRY}
    assert (SQL / irsql.ENTRY).read_text(encoding="utf-8") == irsql.concatenated(SQL), (
        "sql/ireval.sql is stale: run python -m polars_ireval.sql"
    )


def test_loads_into_bare_connection() -> None:
    con = duckdb.connect()
    con.execute((SQL / irsql.ENTRY).read_text(encoding="utf-8"))
    names = {
        r[0]
        for r in con.execute(
            "SELECT function_name FROM duckdb_functions() WHERE function_name LIKE 'ireval_%'"
        ).fetchall()
    }
    assert "ireval_judge" in names
    calls = " ".join(sqlc.measure_sql(m, "t") for m in ir.parse_measures(MEASURES))
    assert set(re.findall(r"ireval_\w+", calls)) <= names
    defined = set(re.findall(r"MACRO (ireval_\w+)", (SQL / irsql.ENTRY).read_text()))
    assert defined == names
    lib = irsql.library(SQL)
    assert defined == {t.name for t in lib.values() if t.kind == "macro"}
    assert irsql.sql_dir().resolve() in (
        SQL.resolve(),
        (ROOT / "polars_ireval/sql/files").resolve(),
    )


def test_load_installs_only_the_named_macros() -> None:
    """load(con, macros) installs those macros alone, and they work; a wrong name raises."""
    con = irsql.load(duckdb.connect(), ["ireval_judge", "ireval_p"])
    names = {
        r[0]
        for r in con.execute(
            "SELECT function_name FROM duckdb_functions() WHERE function_name LIKE 'ireval_%'"
        ).fetchall()
    }
    assert names == {"ireval_judge", "ireval_p"}
    con.execute("CREATE TABLE run AS SELECT 'q' AS query_id, 'd' AS doc_id, 1.0 AS score")
    con.execute("CREATE TABLE qrels AS SELECT 'q' AS query_id, 'd' AS doc_id, 1 AS relevance")
    con.execute("CREATE TABLE e AS SELECT * FROM ireval_judge('run', 'qrels')")
    assert con.sql("SELECT value FROM ireval_p('e', k := 2)").fetchall() == [(0.5,)]
    with pytest.raises(KeyError, match="ireval_nope"):
        irsql.load(duckdb.connect(), ["ireval_nope"])


def test_rankings_macro_lists_the_pairs_the_run_holds() -> None:
    """ireval_rankings: the (run_id, query_id) pairs of the run, '' for a run without
    run_id; what utility's 0 under missing='zero' is decided on."""
    con = irsql.load(duckdb.connect(), ["ireval_rankings"])
    con.execute(
        "CREATE TABLE run AS SELECT * FROM (VALUES ('q1', 'a', 1.0), ('q1', 'b', 0.5), "
        "('q2', 'a', 1.0)) AS t(query_id, doc_id, score)"
    )
    got = con.sql("SELECT * FROM ireval_rankings('run') ORDER BY ALL").fetchall()
    assert got == [("", "q1"), ("", "q2")]


def test_duckdb_cli_reads_the_entry_file(tmp_path: Path) -> None:
    """`.read sql/ireval.sql` from the DuckDB command line, without the Python package."""
    cli = shutil.which("duckdb")
    assert cli is not None, "the duckdb command comes with the test extra duckdb-cli"
    script = tmp_path / "s.sql"
    script.write_text(
        f".read {SQL / irsql.ENTRY}\n"
        "CREATE TABLE run AS SELECT 'q' AS query_id, 'd' AS doc_id, 1.0 AS score;\n"
        "CREATE TABLE qrels AS SELECT 'q' AS query_id, 'd' AS doc_id, 1 AS relevance;\n"
        "CREATE TABLE e AS SELECT * FROM ireval_judge('run', 'qrels');\n"
        "SELECT value FROM ireval_ap('e');\n"
    )
    import subprocess

    out = subprocess.run([cli, "-csv", "-c", f".read {script}"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["value", "1.0"]


def test_measures_without_sql_raise_naming_them(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("IPrec", "nDCG"):
        monkeypatch.setitem(REGISTRY, name, dataclasses.replace(REGISTRY[name], sql=None))
    with pytest.raises(NotImplementedError, match=r"IPrec@0\.5.*nDCG\(dcg='exp-log2'\)@10"):
        duckdb_evaluate(
            ir.example_path("runs/bm25.run"),
            ir.example_path("qrels.txt"),
            ["P@5", "IPrec@0.5", "nDCG(dcg='exp-log2')@10"],
        )


@pytest.mark.parametrize(
    "text,error",
    [
        ("DCG(norm='scaled')", "needs a cutoff"),
        ("SDCG(min_rel=2,max_rel=1)@5", "min_rel=2 must be below"),
        ("DCG(discount='click')@5", "needs weights="),
        ("nDCG(discount='log',b=1.0)@5", "log base b > 1"),
        ("AP(weights=(1.0,0.5))", "only used with discount='click'"),
    ],
)
def test_parameters_refused_like_polars(text: str, error: str) -> None:
    """A parameter value the Polars engine refuses raises the same ParameterError in SQL
    (spec() builds the Polars expression first), before anything runs."""
    run, qrels = ir.example_path("runs/bm25.run"), ir.example_path("qrels.txt")
    with pytest.raises(ir.ParameterError, match=re.escape(error)) as polars_err:
        ir.evaluate(run, qrels, [text])
    with pytest.raises(ir.ParameterError) as sql_err:
        duckdb_evaluate(run, qrels, [text])
    assert str(sql_err.value) == str(polars_err.value)


def test_positions_limit_raises() -> None:
    """The one thing the SQL cannot express: C/W/L depths (and SDCG cutoffs) beyond the
    10^9 positions its digit tables generate."""
    run, qrels = ir.example_path("runs/bm25.run"), ir.example_path("qrels.txt")
    deep = MAX_POSITIONS + 1
    for text in (f"INST@{deep}", f"SDCG@{deep}", f"DCG(norm='scaled')@{deep}"):
        with pytest.raises(NotImplementedError, match=f"k={deep} is deeper"):
            duckdb_evaluate(run, qrels, [text])
    s = sqlc.spec(ir.parse_measures(f"DCG@{deep}")[0])  # no positions: no limit
    assert isinstance(s, SqlCall) and s.macro == "ireval_dcg"


def test_bad_options_raise() -> None:
    run, qrels = ir.example_path("runs/bm25.run"), ir.example_path("qrels.txt")
    with pytest.raises(ir.ParameterError, match="max_depth"):
        duckdb_evaluate(run, qrels, "AP", max_depth=0)
    with pytest.raises(ir.ParameterError, match="ties"):
        duckdb_evaluate(run, qrels, "AP", ties="random")
    with pytest.raises(ir.ParameterError, match="missing"):
        duckdb_evaluate(run, qrels, "AP", missing="drop")
    with pytest.raises(ir.ParameterError, match="relevance_level"):
        duckdb_evaluate(run, qrels, "AP", relevance_level=1.5)  # type: ignore[arg-type]
    g_run, g_qrels = generated()
    with pytest.raises(ir.MissingQueryError, match="missing='zero'"):
        duckdb_evaluate(g_run, g_qrels, "AP", missing="error")


_BAD_RUNS = {
    "duplicate": (
        {"query_id": ["q", "q"], "doc_id": ["d", "d"], "score": [1.0, 2.0]},
        "DuplicateError",
    ),
    "nan score": ({"query_id": ["q"], "doc_id": ["d"], "score": [float("nan")]}, "ScoreError"),
    "null score": ({"query_id": ["q"], "doc_id": ["d"], "score": [None]}, "Error"),
    "missing column": ({"query_id": ["q"], "doc_id": ["d"]}, "Error"),
    "text score": ({"query_id": ["q"], "doc_id": ["d"], "score": ["high"]}, "Error"),
}


@pytest.mark.parametrize("case", sorted(_BAD_RUNS))
def test_bad_input_raises_like_polars(case: str) -> None:
    """Bad runs raise the same exception through SQL as through the Polars engine."""
    data, kind = _BAD_RUNS[case]
    run = pl.DataFrame(data, strict=False)
    qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["d"], "relevance": [1]})
    with pytest.raises(Exception) as polars_err:
        ir.evaluate(run, qrels, "AP")
    with pytest.raises(type(polars_err.value)) as sql_err:
        duckdb_evaluate(run, qrels, "AP")
    assert kind in type(sql_err.value).__name__
    assert str(sql_err.value) == str(polars_err.value)


def test_check_macro_reports_bad_rows() -> None:
    """ireval_check lists what the Python readers reject, for SQL-only users."""
    con = irsql.load(duckdb.connect())
    con.execute(
        "CREATE TABLE run AS SELECT * FROM (VALUES ('q', 'd', 1.0), ('q', 'd', 2.0), "
        "('q', 'e', 'NaN'::DOUBLE), ('q', NULL, 1.0), ('q', 'f', NULL)) v(query_id, doc_id, score)"
    )
    con.execute(
        "CREATE TABLE qrels AS SELECT * FROM (VALUES ('q', 'd', 1), ('q', 'd', 0), "
        "('q', 'e', NULL)) v(query_id, doc_id, relevance)"
    )
    got = con.sql("SELECT problem, doc_id FROM ireval_check('run', 'qrels') ORDER BY ALL")
    assert got.fetchall() == [
        ("qrels: duplicate judgment", "d"),
        ("qrels: null relevance", "e"),
        ("run: duplicate document", "d"),
        ("run: null id", None),
        ("run: score is null or not finite", "e"),
        ("run: score is null or not finite", "f"),
    ]
    con.execute("CREATE TABLE good_run AS SELECT * FROM run WHERE doc_id = 'd' AND score = 1")
    con.execute("CREATE TABLE good_qrels AS SELECT * FROM qrels WHERE relevance = 1")
    assert con.sql("SELECT * FROM ireval_check('good_run', 'good_qrels')").fetchall() == []


RUN_COLUMNS = {"query_id": ["q"], "doc_id": ["d"], "score": [1.0]}
QRELS_COLUMNS = {"query_id": ["q"], "doc_id": ["d"], "relevance": [1]}


LACKING = [
    ("qrels", {"relevance": "grade"}),
    ("qrels", {"doc_id": "docno", "relevance": "rel"}),
    ("run", {"score": "sim"}),
    ("run", {"query_id": "qid"}),
]


@pytest.mark.parametrize(
    ("macro", "kind", "renamed"),
    [
        (macro, kind, renamed)
        for macro in ("ireval_judge", "ireval_check", "ireval_rankings")
        for kind, renamed in LACKING
        if macro != "ireval_rankings" or kind == "run"  # it reads no qrels
    ],
)
def test_a_table_lacking_a_column_is_named_as_python_names_it(
    macro: str, kind: str, renamed: dict[str, str]
) -> None:
    """A qrels table without relevance gave DuckDB's binder error ("Column "relevance"
    referenced that exists in the SELECT clause..."): the macros name the table, the
    columns it lacks and those it has, and the fix, as the Python check does."""
    run = pl.DataFrame(RUN_COLUMNS)
    qrels = pl.DataFrame(QRELS_COLUMNS)
    if kind == "run":
        run = run.rename(renamed)
    else:
        qrels = qrels.rename(renamed)
    con = irsql.load(duckdb.connect())
    con.register("t_run", run)
    con.register("t_qrels", qrels)
    tables = "'t_run'" if macro == "ireval_rankings" else "'t_run', 't_qrels'"
    with pytest.raises(duckdb.InvalidInputException) as e:
        con.sql(f"SELECT * FROM {macro}({tables})").fetchall()
    cols = list(RUN_COLUMNS if kind == "run" else QRELS_COLUMNS)
    lacking = [c for c in cols if c in renamed]
    types = {"query_id": "VARCHAR", "doc_id": "VARCHAR", "score": "DOUBLE", "relevance": "BIGINT"}
    has = ", ".join(f"{renamed.get(c, c)} {types[c]}" for c in cols)
    assert str(e.value) == (
        f"Invalid Input Error: {macro}: the {kind} table 't_{kind}' lacks column(s) {lacking}; "
        f"it has {has}. Rename them to {cols}, e.g. in a view: SELECT ..., <column> AS "
        f"{lacking[0]}"
    )
    # the same columns and fix as the Python check names (which also reads common aliases
    # such as qid and docno)
    plain = {renamed[c]: f"x_{c}" for c in lacking}
    frame = (run if kind == "run" else qrels).rename(plain)
    with pytest.raises(ir.SchemaError) as py:
        ir.judge(frame, qrels) if kind == "run" else ir.judge(run, frame)
    assert f"lacks column(s) {lacking}; " in str(py.value)
    assert f"Rename them to {cols}" in str(py.value)


def test_a_table_with_its_columns_pays_no_check() -> None:
    """The column check is folded when the call is bound: no filter in the plan."""
    con = irsql.load(duckdb.connect())
    con.register("t_run", pl.DataFrame(RUN_COLUMNS))
    con.register("t_qrels", pl.DataFrame(QRELS_COLUMNS))
    plan = "".join(
        row[1]
        for row in con.sql("EXPLAIN SELECT * FROM ireval_check('t_run', 't_qrels')").fetchall()
    )
    assert "lacks column" not in plan and "typeof" not in plan


def test_quoted_table_names() -> None:
    run = pl.read_csv(
        ir.example_path("runs/bm25.run"),
        separator=" ",
        has_header=False,
        new_columns=["query_id", "q0", "doc_id", "rank", "score", "run_id"],
        schema_overrides={"query_id": pl.String},
    ).select("run_id", "query_id", "doc_id", "score")
    qrels = ir.read_qrels(ir.example_path("qrels.txt"))
    con = irsql.load(duckdb.connect())
    names = {"run": 'my "run"; DROP TABLE x', "qrels": "it's the qrels", "t": "eval table"}
    con.register(names["run"], run.to_arrow())
    con.register(names["qrels"], qrels.to_arrow())
    con.execute(
        f"CREATE TABLE {irsql.quote_ident(names['t'])} AS SELECT * FROM ireval_judge("
        f"{irsql.table_arg(names['run'])}, {irsql.table_arg(names['qrels'])})"
    )
    got = pl.from_arrow(
        con.sql(
            sqlc.measure_sql(ir.parse_measures("nDCG@10")[0], names["t"]) + " ORDER BY 2"
        ).to_arrow_table()
    )
    assert isinstance(got, pl.DataFrame)
    want = ir.evaluate(run.drop("run_id"), qrels, "nDCG@10", per_query=True)
    assert got["query_id"].to_list() == want["query_id"].to_list()
    assert ((got["value"] - want["value"]).abs() <= 1e-12).all()
    # the SQL evaluate uses awkward names of its own; a connection reused keeps working,
    # and keeps its own settings (the engine switches slow optimizers off for its query)
    con.execute("SET disabled_optimizers = 'join_order'")
    assert duckdb_evaluate(run, qrels, "P@5", con=con).height == 1
    assert duckdb_evaluate(run, qrels, "P@5", con=con).height == 1
    setting = con.execute("SELECT current_setting('disabled_optimizers')").fetchall()
    assert setting == [("join_order",)]


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", SQL_DOC.read_text(encoding="utf-8"), re.S)


def test_docs_queries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(ir.example_path(), tmp_path, dirs_exist_ok=True)
    monkeypatch.chdir(tmp_path)
    for block in _blocks("python"):
        exec(compile(block, str(SQL_DOC), "exec"), {})
    con = irsql.load(duckdb.connect())
    results = []
    for block in _blocks("sql"):
        *setup, last = [s for s in block.split(";") if s.strip()]
        for statement in setup:
            con.execute(statement)
        rel = con.sql(last)
        results.append(pl.from_arrow(rel.to_arrow_table()) if rel is not None else None)
    runs = sorted(str(p) for p in Path("runs").glob("*.run"))
    per_q = ir.evaluate("runs/bm25.run", "qrels.txt", "nDCG@10", per_query=True)
    ndcg = results[1]
    assert isinstance(ndcg, pl.DataFrame)
    assert ndcg["query_id"].to_list() == per_q["query_id"].to_list()
    assert ((ndcg["ndcg_10"] - per_q["value"]).abs() <= 1e-12).all()
    board = results[2]
    assert isinstance(board, pl.DataFrame)
    ref = ir.evaluate(runs, "qrels.txt", ["nDCG@10", "AP", "P@5"]).pivot(
        "measure", index="run_id", values="value"
    )
    ref = ref.sort("nDCG@10", descending=True)
    assert board["run_id"].to_list() == ref["run_id"].to_list()
    for col, m in [("ndcg_10", "nDCG@10"), ("map", "AP"), ("p_5", "P@5")]:
        assert ((board[col] - ref[m]).abs() <= 1e-12).all()
    meta = results[3]
    assert isinstance(meta, pl.DataFrame)
    per_q_all = ir.evaluate(runs, "qrels.txt", "nDCG@10", per_query=True)
    split = pl.when(pl.col("query_id").cast(pl.Int64) <= 112).then(pl.lit("train"))
    ref_meta = (
        per_q_all.with_columns(split=split.otherwise(pl.lit("test")))
        .group_by("run_id", "split")
        .agg(pl.col("value").mean())
        .sort("run_id", "split")
    )
    assert meta.select("run_id", "split").rows() == ref_meta.select("run_id", "split").rows()
    assert ((meta["ndcg_10"] - ref_meta["value"]).abs() <= 1e-12).all()
    pq = results[4]
    assert isinstance(pq, pl.DataFrame)
    ref_ap = ir.evaluate(runs, "qrels.txt", "AP").sort("run_id")
    assert pq["run_id"].to_list() == ref_ap["run_id"].to_list()
    assert ((pq["map"] - ref_ap["value"]).abs() <= 1e-12).all()
    inst = results[5]
    assert isinstance(inst, pl.DataFrame)
    names = ["INST(T=2)@10", "ED(measure='INST(T=2)@10')"]
    ref_inst = ir.evaluate(runs, "qrels.txt", names, residuals=True).sort("run_id")
    value, depth = (ref_inst.filter(pl.col("measure") == n) for n in names)
    assert inst["run_id"].to_list() == value["run_id"].to_list() == depth["run_id"].to_list()
    for col, want in [
        ("inst_10", value["value"]),
        ("inst_10_residual", value["residual"]),
        ("expected_depth", depth["value"]),
    ]:
        assert ((inst[col] - want).abs() <= 1e-12).all(), col
    assert len(results) == 6


def test_evaluate_engine_duckdb_goes_through_the_macros() -> None:
    qrels, runs = ir.example_path("qrels.txt"), ir.example_path("runs")
    names = "nDCG@10 AP P@10 R@1000 RR Bpref infAP RBP"
    via_sql = ir.evaluate(runs, qrels, names, per_query=True, engine="duckdb")
    via_polars = ir.evaluate(runs, qrels, names, per_query=True)
    assert via_sql.columns == via_polars.columns
    joined = via_polars.join(via_sql, on=["run_id", "query_id", "measure"], suffix="_sql")
    assert joined.height == via_polars.height > 0
    assert (joined["value"] - joined["value_sql"]).abs().max() < 1e-12
    with pytest.raises(ir.ParameterError, match="engine='sparkle'"):
        ir.evaluate(runs, qrels, names, engine="sparkle")  # type: ignore[arg-type]


JUDGE_OPTIONS = [
    {"ties": ties, **extra}
    for ties in ("trec_eval", "doc_id_asc", "input_order", "rank")
    for extra in ({}, {"max_depth": 5}, {"judged_only": True}, {"missing": "zero"})
]


@pytest.mark.parametrize(
    "options", JUDGE_OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items())
)
def test_judge_rank_by_count_equals_window(options: dict[str, object]) -> None:
    """ireval_judge(unjudged := FALSE): counting the documents ahead of each judged one
    gives the table the sorted ranking gives, row for row, under every tie policy and
    option (ties on -0.0/0.0 and on ids that collations reorder included)."""
    run, qrels = generated(3)
    run = run.with_columns(
        input_rank=(pl.int_range(pl.len()).over("run_id", "query_id") // 2).cast(pl.Float64),
        input_order=pl.int_range(pl.len(), dtype=pl.Int64),
    )
    con = irsql.load(duckdb.connect(), ["ireval_judge"])
    con.register("run", run.to_arrow())
    con.register("qrels", qrels.to_arrow())
    args = "".join(f", {k} := {T.literal(v)}" for k, v in options.items())

    def table(strategy: str) -> pl.DataFrame:
        query = (
            f"SELECT * FROM ireval_judge('run', 'qrels', unjudged := FALSE, "
            f"rank_by := '{strategy}'{args}) ORDER BY ALL"
        )
        out = pl.from_arrow(con.sql(query).to_arrow_table())
        assert isinstance(out, pl.DataFrame)
        return out

    window, count = table("window"), table("count")
    assert window.height > 0 and window["rank"].is_not_null().sum() > 0
    assert count.equals(window)
    if options == {"ties": "trec_eval"}:  # and both are judge(unjudged=False)'s table
        want = ir.judge(run.drop("input_rank", "input_order"), qrels, unjudged=False)
        assert (
            count.select(want.columns)
            .sort(want.columns)
            .equals(want.sort(want.columns), null_equal=True)
        )


def test_rank_by_follows_the_density_of_the_qrels() -> None:
    """Sparse qrels (MS MARCO: ~1.6 judgments a query) count, TREC-style pools sort."""
    assert sqlc.rank_by(11_171, 7_000) == "count"
    assert sqlc.rank_by(22_024, 50) == "window"
    assert sqlc.rank_by(0, 0) == "window"
    sparse = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    assert rank_by_of(sparse) == "count"
    measures = ir.parse_measures(["AP", "RBP_resid"])
    ap, resid = (
        sqlc.judge_options(measures[i : i + 1], [False], False, residuals=False, rank_by="count")
        for i in (0, 1)
    )
    assert (ap["unjudged"], ap["rank_by"]) == (False, "count")
    assert (resid["unjudged"], resid["rank_by"]) == (True, "window")  # needs the unjudged
