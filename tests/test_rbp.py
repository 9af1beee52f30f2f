"""RBP and its residual: the seed's worked example, rbp_eval and ir_measures as oracles,
and the interval properties."""

from __future__ import annotations

import io
import math

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_ireval as ir
from polars_ireval.errors import ParameterError
from tests.paths import need_data
from tests.strategies import distinct_scores, frame_collections, tied_scores

rbp_eval = pytest.importorskip("rbp_eval")

pytestmark = [
    pytest.mark.filterwarnings("ignore::polars_ireval.CoverageWarning"),
    pytest.mark.filterwarnings("ignore:The inplace keyword"),  # pandas, inside trectools
]

PERSIST = (0.5, 0.8, 0.95)


def _per_query(run: pl.DataFrame, qrels: pl.DataFrame, measures: list[str], rel: int = 1):
    out = ir.evaluate(run, qrels, measures, per_query=True, relevance_level=rel)
    return {(r["query_id"], r["measure"]): r["value"] for r in out.iter_rows(named=True)}


def _rbp_eval(
    run: pl.DataFrame,
    qrels: pl.DataFrame,
    p: float,
    rel: int,
    k: int | None,
    gains: dict[int, float] | None = None,
):
    """Per-query (base, residual) from rbp_eval, binary gain at grade ``rel`` (or, with
    ``gains``, the mapped gain written as a fractional grade)."""
    qtext = "".join(
        f"{q} 0 {d} {g if gains is None else gains.get(g, 0.0)!r}\n"
        for q, d, g in qrels.select("query_id", "doc_id", "relevance").iter_rows()
    )
    rtext = "".join(
        f"{q} Q0 {d} {i} {s!r} tag\n"
        for i, (q, d, s) in enumerate(run.select("query_id", "doc_id", "score").iter_rows())
    )
    qr = rbp_eval.load_qrels(io.StringIO(qtext))
    if gains is None:
        qr.set_reltype(rbp_eval.RelType.BINARY, float(rel))
    else:
        qr.set_reltype(rbp_eval.RelType.FRACT, 1.0)
    res = rbp_eval.evaluate(
        qr,
        rbp_eval.load_run(io.StringIO(rtext)),
        rbp_eval.Ordering.SCORE,
        [p],
        [math.inf if k is None else float(k)],
    )
    return {
        r.qid: (r.depth_res[0].persist_res[0].sum, r.depth_res[0].persist_res[0].err)
        for r in res.qid_res
        if r.num_rel >= 0
    }


def _untie(run: pl.DataFrame) -> pl.DataFrame:
    """The same rankings (trec_eval tie order) with distinct scores: score = -rank."""
    every = run.select("query_id", "doc_id").with_columns(relevance=pl.lit(0, pl.Int64))
    table = ir.judge(run, every)
    ranked = run.join(
        table.select("query_id", "doc_id", "rank"), on=["query_id", "doc_id"], how="left"
    )
    return ranked.with_columns(score=-pl.col("rank").cast(pl.Float64)).drop("rank")


def _label(
    name: str,
    p: float,
    rel: int | None = None,
    k: int | None = None,
    ties: str = "rank",
    gains: dict[int, float] | None = None,
) -> str:
    args = [] if p == 0.8 else [f"p={p}"]
    if rel is not None and rel != 1:
        args.append(f"rel={rel}")
    if ties != "rank":
        args.append(f"ties={ties!r}")
    if gains is not None:
        args.append(f"gains={gains!r}")
    text = name + (f"({','.join(args)})" if args else "")
    return text + (f"@{k}" if k is not None else "")


def _check_against_rbp_eval(run, qrels, p, rel, k, ties="rank", gains=None):
    base_l = _label("RBP", p, rel, k, ties, gains)
    resid_l = _label("RBP_resid", p, None, k, ties)
    ours = _per_query(run, qrels, [base_l, resid_l], rel)
    # the residual evaluate(..., residuals=True) reports beside RBP is RBP_resid
    out = ir.evaluate(run, qrels, [base_l], per_query=True, relevance_level=rel, residuals=True)
    reported = {r["query_id"]: r["residual"] for r in out.iter_rows(named=True)}
    theirs = _rbp_eval(run, qrels, p, rel, k, gains)
    qids = {q for q, _ in ours}
    assert qids == set(theirs)
    for q in qids:
        base, err = theirs[q]
        assert ours[q, base_l] == pytest.approx(base, abs=1e-9)
        assert ours[q, resid_l] == pytest.approx(err, abs=1e-9)
        assert reported[q] == ours[q, resid_l]
    return len(qids)


# -- the worked example of Moffat and Zobel (seed 002) ---------------------------------


def _seed_example() -> tuple[pl.DataFrame, pl.DataFrame]:
    # judgments 0,1,1,0,0,1,?,0,0,1: the 7th document and everything past the 10th unjudged
    grades = [0, 1, 1, 0, 0, 1, None, 0, 0, 1]
    docs = [f"d{i}" for i in range(1, 11)]
    run = pl.DataFrame(
        {"query_id": ["q"] * 10, "doc_id": docs, "score": [float(10 - i) for i in range(10)]}
    )
    judged = [(d, g) for d, g in zip(docs, grades, strict=True) if g is not None]
    qrels = pl.DataFrame(
        {
            "query_id": ["q"] * len(judged),
            "doc_id": [d for d, _ in judged],
            "relevance": [g for _, g in judged],
        }
    )
    return run, qrels


def test_seed_worked_example():
    run, qrels = _seed_example()
    got = _per_query(run, qrels, ["RBP", "RBP(p=0.8)", "RBP_resid", "RBPResidual"])
    assert round(got["q", "RBP"], 3) == 0.380
    assert got["q", "RBP(p=0.8)"] == got["q", "RBP"]
    assert round(got["q", "RBP_resid"], 3) == 0.160
    assert got["q", "RBPResidual"] == got["q", "RBP_resid"]
    # exact: 0.2 (0.8 + 0.8^2 + 0.8^5 + 0.8^9); 0.2 * 0.8^6 + 0.8^10
    assert got["q", "RBP"] == pytest.approx(0.2 * (0.8 + 0.8**2 + 0.8**5 + 0.8**9), abs=1e-12)
    assert got["q", "RBP_resid"] == pytest.approx(0.2 * 0.8**6 + 0.8**10, abs=1e-12)


def test_cutoff_gains_and_strings():
    run, qrels = _seed_example()
    got = _per_query(
        run, qrels, ["RBP(p=0.5)@3", "RBP_resid(p=0.5)@3", "RBP(gains={0:0,1:0.5})", "RBP@100"]
    )
    assert got["q", "RBP(p=0.5)@3"] == pytest.approx(0.5 * (0.5 + 0.25))
    assert got["q", "RBP_resid(p=0.5)@3"] == pytest.approx(0.5**3)
    assert got["q", "RBP(gains={0:0,1:0.5})"] == pytest.approx(
        0.5 * 0.2 * (0.8 + 0.8**2 + 0.8**5 + 0.8**9)
    )
    # a cutoff past the ranking changes nothing: d = number retrieved
    assert got["q", "RBP@100"] == pytest.approx(0.2 * (0.8 + 0.8**2 + 0.8**5 + 0.8**9))
    assert ir.parse_measure("RBP(p=0.8)").canonical == "RBP"
    assert ir.parse_measure("RBP(rel=2)@10").canonical == "RBP(rel=2)@10"
    assert ir.parse_measure("RBP(p=0.95)").canonical == "RBP(p=0.95)"
    for bad in ("RBP(p=1.0)", "RBP(p=0)", "RBP(gains={1:2})", "RBP_resid(p=1.5)"):
        with pytest.raises(ParameterError):
            ir.parse_measure(bad)


def test_empty_ranking_with_missing_zero():
    run, qrels = _seed_example()
    qrels = pl.concat([qrels, pl.DataFrame({"query_id": ["z"], "doc_id": ["x"], "relevance": [1]})])
    out = ir.evaluate(run, qrels, ["RBP", "RBP_resid"], per_query=True, missing="zero")
    z = {r["measure"]: r["value"] for r in out.filter(query_id="z").iter_rows(named=True)}
    assert z == {"RBP": 0.0, "RBP_resid": 1.0}


# -- oracles -------------------------------------------------------------------------------


#: 1-4 queries of up to 25 documents, distinct scores, grades 0-3
runs_and_qrels = frame_collections(
    queries=(1, 4), pool=(1, 25), scores=distinct_scores(-10_000, 10_000), grades=st.integers(0, 3)
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=runs_and_qrels,
    p=st.sampled_from(PERSIST),
    rel=st.sampled_from((1, 2)),
    k=st.sampled_from((None, 1, 5, 10)),
)
def test_rbp_eval_oracle_hypothesis(data, p, rel, k):
    run, qrels = data
    _check_against_rbp_eval(run, qrels, p, rel, k)


#: Rankings with many tied scores (rbp_eval averages weights over them), grades 0-4
tied_runs_and_qrels = frame_collections(
    queries=(1, 4), pool=(1, 25), scores=tied_scores(st.integers(0, 5)), grades=st.integers(0, 4)
)


SEED004_GAINS = {0: 0.0, 1: 0.1, 2: 0.3, 3: 0.7, 4: 1.0}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=tied_runs_and_qrels,
    p=st.sampled_from(PERSIST),
    rel=st.sampled_from((1, 2)),
    k=st.sampled_from((None, 1, 3, 5, 10)),
)
def test_rbp_eval_oracle_tie_averaging_hypothesis(data, p, rel, k):
    run, qrels = data
    _check_against_rbp_eval(run, qrels, p, rel, k, ties="average")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=tied_runs_and_qrels,
    p=st.sampled_from(PERSIST),
    k=st.sampled_from((None, 4)),
    ties=st.sampled_from(("rank", "average")),
)
def test_rbp_eval_oracle_graded_gains_hypothesis(data, p, k, ties):
    run, qrels = data
    if ties == "rank":
        run = _untie(run)
    _check_against_rbp_eval(run, qrels, p, 1, k, ties=ties, gains=SEED004_GAINS)


@pytest.mark.parametrize("p", PERSIST)
@pytest.mark.parametrize("k", [None, 10, 100])
def test_rbp_eval_oracle_tie_averaging_trec_eval_test(p, k):
    d = need_data() / "trec_eval_test"
    run = ir.read_run(d / "results.test")  # real ties, averaged by rbp_eval as by us
    qrels = ir.read_qrels(d / "qrels.test")
    assert run.group_by("query_id", "score").len()["len"].max() > 1
    assert _check_against_rbp_eval(run, qrels, p, 1, k, ties="average") > 0


def test_tie_averaging_by_hand():
    # scores 3, 2, 2, 2, 1: the three tied documents share (w2 + w3 + w4) / 3, p = 0.5
    run = pl.DataFrame(
        {"query_id": "q", "doc_id": list("abcde"), "score": [3.0, 2.0, 2.0, 2.0, 1.0]}
    )
    qrels = pl.DataFrame({"query_id": "q", "doc_id": ["b", "e"], "relevance": [1, 0]})
    got = _per_query(
        run,
        qrels,
        ["RBP(p=0.5,ties='average')", "RBP(p=0.5,ties='average')@3", "RBP(p=0.5)"],
    )
    shared = (0.25 + 0.125 + 0.0625) / 3
    assert got["q", "RBP(p=0.5,ties='average')"] == pytest.approx(shared, abs=1e-15)
    # a cutoff at 3 keeps 2 of the tie's 3 positions: each tied document counts 2/3
    assert got["q", "RBP(p=0.5,ties='average')@3"] == pytest.approx(shared * 2 / 3, abs=1e-15)
    # trec_eval's order puts d, then c, then b: b is at rank 4
    assert got["q", "RBP(p=0.5)"] == pytest.approx(0.0625, abs=1e-15)
    with pytest.raises(ParameterError):
        ir.parse_measure("RBP(ties='random')")


@pytest.mark.parametrize("p", PERSIST)
@pytest.mark.parametrize("k", [None, 10])
def test_rbp_eval_oracle_trec_eval_test(p, k):
    d = need_data() / "trec_eval_test"
    run = _untie(ir.read_run(d / "results.test"))
    qrels = ir.read_qrels(d / "qrels.test")
    assert _check_against_rbp_eval(run, qrels, p, 1, k) > 0


def _ir_measures_rbp(run: pl.DataFrame, qrels: pl.DataFrame, p: float) -> dict[str, float]:
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("trectools")  # ir_measures' provider for RBP without rel
    measure = ir_measures.parse_measure(f"RBP(p={p})")
    return {
        m.query_id: m.value
        for m in ir_measures.trectools.iter_calc([measure], qrels.to_pandas(), run.to_pandas())
    }


@pytest.mark.parametrize("p", PERSIST)
def test_ir_measures_oracle_trec_eval_test(p):
    d = need_data() / "trec_eval_test"
    run = _untie(ir.read_run(d / "results.test"))
    qrels = ir.read_qrels(d / "qrels.test")  # binary grades: ir_measures' graded gain = ours
    theirs = _ir_measures_rbp(run, qrels, p)
    label = _label("RBP", p)
    ours = {q: v for (q, _), v in _per_query(run, qrels, [label]).items()}
    assert set(ours) <= set(theirs)
    for q, v in ours.items():
        assert v == pytest.approx(theirs[q], abs=1e-9)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=runs_and_qrels, p=st.sampled_from(PERSIST))
def test_ir_measures_oracle_hypothesis(data, p):
    run, qrels = data
    # trectools (ir_measures' RBP provider) averages the weights of equal scores on adjacent
    # rows even across queries (its tie groups are not per query): the last document of one
    # query and the first of the next must not share a score, so every score is made unique
    run = _untie(run).with_columns(
        score=pl.col("score") - 1000.0 * pl.col("query_id").cast(pl.Int64).cast(pl.Float64)
    )
    qrels = qrels.with_columns(relevance=(pl.col("relevance") >= 1).cast(pl.Int64))
    ours = {q: v for (q, _), v in _per_query(run, qrels, [_label("RBP", p)]).items()}
    if not ours or run.is_empty():
        return
    theirs = _ir_measures_rbp(run, qrels, p)
    for q, v in ours.items():
        assert v == pytest.approx(theirs.get(q, 0.0), abs=1e-9)


# -- properties ----------------------------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=runs_and_qrels,
    p=st.sampled_from(PERSIST),
    k=st.sampled_from((None, 3, 10)),
    extra=st.lists(st.integers(0, 3), max_size=30),
)
def test_interval_properties(data, p, k, extra):
    run, qrels = data
    base, resid = _label("RBP", p, None, k), _label("RBP_resid", p, None, k)
    before = _per_query(run, qrels, [base, resid])
    for q in {q for q, _ in before}:
        b, r = before[q, base], before[q, resid]
        assert -1e-12 <= b <= 1 + 1e-12
        assert -1e-12 <= r <= 1 + 1e-12
        assert b + r <= 1 + 1e-12
    # judge some of the unjudged retrieved documents: the interval can only shrink
    known = set(qrels.select("query_id", "doc_id").iter_rows())
    new = [(q, d) for q, d in run.select("query_id", "doc_id").iter_rows() if (q, d) not in known]
    added = [(q, d, g) for (q, d), g in zip(new, extra, strict=False)]
    if not added:
        return
    more = pl.concat(
        [qrels, pl.DataFrame(added, schema=qrels.schema, orient="row")], how="vertical"
    )
    after = _per_query(run, more, [base, resid])
    for q in {q for q, _ in before}:
        lo0, hi0 = before[q, base], before[q, base] + before[q, resid]
        lo1, hi1 = after[q, base], after[q, base] + after[q, resid]
        assert lo0 - 1e-12 <= lo1 <= hi1 <= hi0 + 1e-12
