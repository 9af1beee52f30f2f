"""The C/W/L measures (INST, INSQ, TBG, U, BPM, NERR8-11) and the user-model mechanism, per query,
against cwl_eval (PyPI ``cwl-eval``) as a library and as its command line."""

from __future__ import annotations

import math
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_ireval as ir
from polars_ireval.errors import ParameterError
from polars_ireval.measures.cwl import inst_model, precision_model
from polars_ireval.measures.usermodel import MODELS, UserModel, unit_gain
from tests.paths import need_data
from tests.strategies import GRADES, frame_collections, tied_scores

cwl_ranking = pytest.importorskip("cwl.ruler.ranking")
from cwl.ruler.measures.cwl_bpm import BPMCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_insq import INSQCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_inst import INSTCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_nerr import (  # noqa: E402
    NERReq8CWLMetric,
    NERReq9CWLMetric,
    NERReq10CWLMetric,
    NERReq11CWLMetric,
)
from cwl.ruler.measures.cwl_precision import PrecisionCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_rbp import RBPCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_tbg import TBGCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_umeasure import UMeasureCWLMetric  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::polars_ireval.CoverageWarning")

SEED004_GAINS = {0: 0.0, 1: 0.1, 2: 0.3, 3: 0.7, 4: 1.0}

# (our measure string without cutoff, cwl_eval metric factory, cwl_eval depth or None for k)
CASES: list[tuple[str, Callable[[int], Any], int | None]] = [
    ("INST", lambda k: INSTCWLMetric(1.0), None),
    ("INST(T=2)", lambda k: INSTCWLMetric(2.0), None),
    ("INST(T=3.5)", lambda k: INSTCWLMetric(3.5), None),
    ("INSQ", lambda k: INSQCWLMetric(1.0), None),
    ("INSQ(T=2)", lambda k: INSQCWLMetric(2.0), None),
    ("TBG", lambda k: TBGCWLMetric(224), None),
    ("TBG(halflife=2)", lambda k: TBGCWLMetric(2), None),
    ("U", lambda k: UMeasureCWLMetric(1000), None),
    ("U(L=5)", lambda k: UMeasureCWLMetric(5), None),
    ("BPM", lambda k: BPMCWLMetric(1.0, 10), None),
    ("BPM(T=2,K=3)", lambda k: BPMCWLMetric(2.0, 3), None),
    # NERR8/9@k: truncated at k, scored (as ir_measures does) at cwl_eval's default depth
    ("NERR8", lambda k: NERReq8CWLMetric(k), 1000),
    ("NERR9", lambda k: NERReq9CWLMetric(k), 1000),
    ("NERR10", lambda k: NERReq10CWLMetric(0.9), None),
    ("NERR10(p=0.5)", lambda k: NERReq10CWLMetric(0.5), None),
    ("NERR11(T=2)", lambda k: NERReq11CWLMetric(2.0), None),
    # P@k: cwl_eval's precision is the user who reads k documents, at any depth >= k
    ("P", lambda k: PrecisionCWLMetric(k), 1000),
]
# RBP: ours is the infinite model, cwl_eval's is normalized over 1000 ranks (p^1000 apart)
RBP_CASES = [("RBP(p=0.2)", 0.2), ("RBP(p=0.4)", 0.4), ("RBP", 0.8), ("RBP(p=0.95)", 0.95)]


def test_every_user_model_is_checked_against_cwl_eval() -> None:
    """CASES and RBP_CASES hold every measure of the user-model mechanism (its MODELS)."""
    texts = [f"{name}@5" for name, _, _ in CASES] + [name for name, _ in RBP_CASES]
    assert {m.name for m in ir.parse_measures(texts)} == set(MODELS)


def _trec_order(run: pl.DataFrame) -> dict[str, list[str]]:
    """Each query's documents in trec_eval's order (score descending, then doc id descending
    byte-wise), computed here in plain Python, independently of the library."""
    rows: dict[str, list[tuple[float, bytes, str]]] = {}
    for q, d, s in run.select("query_id", "doc_id", "score").iter_rows():
        rows.setdefault(q, []).append((s, d.encode(), d))
    return {q: [d for _, _, d in sorted(r, reverse=True)] for q, r in rows.items()}


def _gain_of(grade: int | None, rel: int, gains: dict[int, float] | None) -> float:
    if grade is None:
        return math.nan  # unjudged: cwl_eval's NaN, resolved to min or max gain
    if gains is not None:
        return gains.get(grade, 0.0)
    return 1.0 if grade >= rel else 0.0


def cwl_oracle(
    run: pl.DataFrame,
    qrels: pl.DataFrame,
    metric: Callable[[], Any],
    depth: int,
    *,
    rel: int = 1,
    gains: dict[int, float] | None = None,
    queries: set[str] | None = None,
) -> dict[str, tuple[float, float, float]]:
    """Per query (EU, ResEU, expected depth) from cwl_eval's ruler, unit costs."""
    grades: dict[tuple[str, str], int] = {
        (q, d): g for q, d, g in qrels.select("query_id", "doc_id", "relevance").iter_rows()
    }
    order = _trec_order(run)
    judged_queries = set(qrels["query_id"])
    out = {}
    for q in queries if queries is not None else set(order) & judged_queries:
        g = [_gain_of(grades.get((q, d)), rel, gains) for d in order.get(q, [])]
        ranking = cwl_ranking.Ranking(
            q, np.array(g, dtype=float), np.full(len(g), np.nan), max_n=depth
        )
        m = metric()
        m.residuals = True
        m.measure(ranking)
        out[q] = (
            float(m.expected_utility),
            float(m.residual_expected_utility),
            float(m.expected_items),
        )
    return out


def _ours(run, qrels, labels, rel=1, **kw) -> dict[tuple[str, str], tuple[float, float]]:
    out = ir.evaluate(run, qrels, labels, per_query=True, residuals=True, relevance_level=rel, **kw)
    return {
        (r["query_id"], r["measure"]): (r["value"], r["residual"])
        for r in out.iter_rows(named=True)
    }


def check_cwl(run, qrels, ks=(5, 20, 1000), rel=1, gains=None, queries=None) -> int:
    """Compare every C/W/L case at every depth; return the number of comparisons."""
    suffix = "" if gains is None else f"gains={gains!r}"
    labels, expected = [], {}
    for name, factory, fixed in CASES:
        for k in ks:
            if name == "P" and gains is not None:
                continue  # P is binary
            label = _with(name, suffix) + f"@{k}"
            labels.append(label)
            theirs = cwl_oracle(
                run,
                qrels,
                lambda f=factory, k=k: f(k),
                fixed or k,
                rel=rel,
                gains=gains,
                queries=queries,
            )
            expected[label] = theirs
    for name, p in RBP_CASES:
        label = _with(name, suffix)
        labels.append(label)
        expected[label] = cwl_oracle(
            run, qrels, lambda p=p: RBPCWLMetric(p), 1000, rel=rel, gains=gains, queries=queries
        )
    ours = _ours(run, qrels, labels, rel=rel, missing="zero" if queries is not None else "skip")
    n = 0
    for label, theirs in expected.items():
        for q, (eu, res, _) in theirs.items():
            value, residual = ours[q, label]
            assert value == pytest.approx(eu, abs=1e-9), (label, q)
            assert residual == pytest.approx(res, abs=1e-9), (label, q)
            n += 1
    return n


def _with(name: str, extra: str) -> str:
    if not extra:
        return name
    if name.endswith(")"):
        return name[:-1] + "," + extra + ")"
    return f"{name}({extra})"


# -- generated rankings -----------------------------------------------------------------------


def runs_and_qrels(grades: st.SearchStrategy[int] = GRADES) -> Any:
    """1-3 queries of up to 25 documents; few distinct scores: ties, ordered by doc id as
    trec_eval does; negative grades: judged, gain 0."""
    return frame_collections(
        queries=(1, 3), pool=(1, 25), scores=tied_scores(st.integers(0, 6)), grades=grades
    )


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=runs_and_qrels(), rel=st.sampled_from((1, 2)))
def test_cwl_eval_oracle_binary_hypothesis(data, rel):
    run, qrels = data
    assert check_cwl(run, qrels, ks=(3, 20), rel=rel) > 0


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=runs_and_qrels(grades=st.integers(0, 4)))
def test_cwl_eval_oracle_graded_hypothesis(data):
    run, qrels = data
    assert check_cwl(run, qrels, ks=(4, 30), gains=SEED004_GAINS) > 0


def test_empty_ranking_scores_zero_with_full_residual():
    """A judged query the run lacks (missing='zero'): cwl_eval on an empty ranking."""
    run = pl.DataFrame({"query_id": ["a"], "doc_id": ["x"], "score": [1.0]})
    qrels = pl.DataFrame({"query_id": ["a", "b"], "doc_id": ["x", "y"], "relevance": [1, 1]})
    assert check_cwl(run, qrels, ks=(5,), queries={"a", "b"}) > 0
    got = _ours(run, qrels, ["INST@5", "RBP"], missing="zero")
    assert got["b", "INST@5"] == (0.0, 1.0)
    assert got["b", "RBP"] == (0.0, 1.0)


# -- the reference data -------------------------------------------------------------------


def test_cwl_eval_oracle_trec_eval_test():
    d = need_data() / "trec_eval_test"
    run = ir.read_run(d / "results.test")
    qrels = ir.read_qrels(d / "qrels.test")
    assert check_cwl(run, qrels, ks=(10, 1000)) == 3 * 38  # 3 queries, 38 measures


def test_cwl_eval_oracle_rel_level_negative_grades():
    d = need_data() / "trec_eval_test"
    run = ir.read_run(d / "results.test")
    qrels = ir.read_qrels(d / "qrels.rel_level")  # grades -1..4
    assert qrels["relevance"].min() < 0
    assert check_cwl(run, qrels, ks=(25,), rel=2) == 3 * 21  # 3 queries, 21 measures


def test_cwl_eval_oracle_cast2021_graded():
    d = need_data() / "cast2021"
    run_path = sorted((d / "runs").iterdir())[0]
    run = ir.read_run(run_path)
    qrels = ir.read_qrels(d / "qrels.cast2021-docs.txt")
    queries = sorted(set(run["query_id"]) & set(qrels["query_id"]))[:40]
    run = run.filter(pl.col("query_id").is_in(queries))
    assert check_cwl(run, qrels, ks=(10, 1000), gains=SEED004_GAINS) > 500


# -- the command line -------------------------------------------------------------------------


def test_cwl_eval_command_line(tmp_path: Path):
    """cwl-eval itself (files in, 4 printed decimals out) agrees with the ruler and with us."""
    exe = shutil.which("cwl-eval")
    if exe is None:
        pytest.skip("the cwl-eval command is not installed")
    d = need_data() / "trec_eval_test"
    run = ir.read_run(d / "results.test")
    qrels = ir.read_qrels(d / "qrels.test")
    # cwl_eval reads gains in [0, 1] and ranks in file order: give it both
    (tmp_path / "gains").write_text(
        "".join(f"{q} 0 {doc} {int(g >= 1)}\n" for q, doc, g in qrels.iter_rows())
    )
    order = _trec_order(run)
    (tmp_path / "run").write_text(
        "".join(
            f"{q} D {doc} {i + 1} 0 tag\n"
            for q, docs in order.items()
            for i, doc in enumerate(docs)
        )
    )
    metrics = [
        "INSTCWLMetric(2.0)",
        "INSQCWLMetric(1.0)",
        "TBGCWLMetric(224)",
        "BPMCWLMetric(1.0,10)",
    ]
    (tmp_path / "metrics").write_text("\n".join(metrics) + "\n")
    out = subprocess.run(
        [exe, "gains", "run", "-m", "metrics", "-r"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    labels = {
        "INST-T=2.0": "INST(T=2)",
        "INSQ-T=1.0": "INSQ",
        "TBG-H@224": "TBG",
        "BPM-Static-T=1.0-K=10": "BPM",
    }
    ours = _ours(run, qrels, list(labels.values()))
    seen = 0
    for line in out.stdout.splitlines():
        q, name, eu, _etu, _ec, _etc, _ed, res_eu, *_ = line.split("\t")
        if (q, labels[name.strip()]) not in ours:
            continue
        value, residual = ours[q, labels[name.strip()]]
        assert abs(value - float(eu)) <= 5e-5 + 1e-12, (q, name)
        assert abs(residual - float(res_eu)) <= 5e-5 + 1e-12, (q, name)
        seen += 1
    assert seen == 4 * len({q for q, _ in ours})


# -- the mechanism: expected depth, parameters ---------------------------------------------


def test_expected_depth_matches_cwl_eval():
    d = need_data() / "trec_eval_test"
    run = ir.read_run(d / "results.test")
    qrels = ir.read_qrels(d / "qrels.test")
    table = ir.judge(run, qrels)
    models: dict[str, tuple[UserModel, Callable[[], Any], int]] = {
        "inst2": (inst_model(2.0, 50), lambda: INSTCWLMetric(2.0), 50),
        "p10": (precision_model(10), lambda: PrecisionCWLMetric(10), 10),
    }
    got = table.group_by("query_id").agg(
        m.expected_depth(unit_gain()).alias(name) for name, (m, _, _) in models.items()
    )
    for name, (_, factory, depth) in models.items():
        theirs = cwl_oracle(run, qrels, factory, depth)
        for q, v in got.select("query_id", name).iter_rows():
            assert v == pytest.approx(theirs[q][2], abs=1e-9), (name, q)
    assert set(got["p10"]) == {10.0}


def test_strings_and_parameters():
    assert ir.parse_measure("INST(T=1.0)").canonical == "INST"
    assert ir.parse_measure("INST(T=1.0)@1000").canonical == "INST@1000"
    assert ir.parse_measure("UMeasure(L=10)@5").canonical == "U(L=10)@5"
    assert ir.parse_measure("BPM(K=5)").canonical == "BPM(K=5)"
    for bad in ("INST(T=0)", "INSQ(T=-1)", "TBG(halflife=0)", "U(L=0)", "BPM(K=0)", "INST@0",
                "INST(gains={1:2})", "INST(rel=1.5)", "U@1"):  # fmt: skip
        with pytest.raises(ParameterError):
            ir.parse_measure(bad)


def test_free_functions_are_expressions():
    run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "relevance": [0, 1, 0]})
    table = ir.judge(run, qrels)
    got = table.group_by("query_id").agg(ir.inst(k=3), ir.insq(k=3), ir.bpm(k=3))
    ours = _ours(run, qrels, ["INST@3", "INSQ@3", "BPM@3"])
    assert got.row(0)[1:] == (ours["q", "INST@3"][0], ours["q", "INSQ@3"][0], ours["q", "BPM@3"][0])


def test_ed_measure_matches_cwl_eval_expected_depth():
    """``ED(measure=...)``: the expected depth of any user-model measure, cwl_eval's ``ED``."""
    d = need_data() / "trec_eval_test"
    run = ir.read_run(d / "results.test")
    qrels = ir.read_qrels(d / "qrels.test")
    cases = {
        "INST(T=2)@100": (lambda: INSTCWLMetric(2.0), 100),
        "INSQ@1000": (lambda: INSQCWLMetric(1.0), 1000),
        "TBG(halflife=5)@50": (lambda: TBGCWLMetric(5), 50),
        "U(L=20)@30": (lambda: UMeasureCWLMetric(20), 30),
        "BPM(T=2,K=8)@40": (lambda: BPMCWLMetric(2.0, 8), 40),
        "P@10": (lambda: PrecisionCWLMetric(10), 1000),
        "RBP(p=0.4)": (lambda: RBPCWLMetric(0.4), 1000),
    }
    labels = [f"ED(measure={m!r})" for m in cases]
    out = ir.evaluate(run, qrels, labels, per_query=True)
    ours = {(r["query_id"], r["measure"]): r["value"] for r in out.iter_rows(named=True)}
    n = 0
    for (factory, depth), label in zip(cases.values(), labels, strict=True):
        for q, (_, _, ed) in cwl_oracle(run, qrels, factory, depth).items():
            assert ours[q, label] == pytest.approx(ed, abs=1e-9), (label, q)
            n += 1
    assert n == 3 * len(cases)
    assert ours["301", "ED(measure='RBP(p=0.4)')"] == pytest.approx(1 / 0.6)
    for bad in ("ED(measure='AP')", "ED(measure=3)", "ED"):
        with pytest.raises(ParameterError):
            ir.parse_measure(bad)
