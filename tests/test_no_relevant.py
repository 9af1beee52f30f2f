"""``evaluate(..., no_relevant=)``: the policy for queries without relevant documents.

Every policy is checked on hand-built qrels with R = 0 queries, for several measures
normalised by R and three that are not (P@3, and the self-normalised SN-AP and SN-DCG of
seed 004, whose denominators come from the ranking alone), against the measures computed
here from their textbook definitions (the oracle leaves a 0/0 undefined, and each policy
then says what the evaluation must report); the Polars and DuckDB engines must agree; the
error names the runs, queries and measures; the command line passes the policy through.
"""

from __future__ import annotations

import io
import math
import warnings
from pathlib import Path

import polars as pl
import pytest

import polars_ireval as ir
from polars_ireval.cli import main
from polars_ireval.registry import REGISTRY

# q1: R = 2 (grades 1 and 2); q2: judged, nothing relevant; q3: one document of grade 1
# (R = 1 at rel 1, R = 0 at rel 2); q4: judged, nothing relevant, and run "b" lacks it.
QRELS = pl.DataFrame(
    {
        "query_id": ["q1", "q1", "q1", "q2", "q2", "q3", "q3", "q4"],
        "doc_id": ["d1", "d2", "d3", "d1", "d4", "d5", "d6", "d7"],
        "relevance": [2, 1, 0, 0, 0, 1, 0, 0],
    }
)
RANKINGS = {
    ("a", "q1"): ["d3", "d1", "d9", "d2"],
    ("a", "q2"): ["d1", "d2"],
    ("a", "q3"): ["d6", "d5"],
    ("a", "q4"): ["d7"],
    ("b", "q1"): ["d2", "d8"],
    ("b", "q2"): ["d4"],
    ("b", "q3"): ["d5"],
}
MEASURES = ["AP", "nDCG@5", "R@5", "Rprec", "AP(rel=2)", "P@3"]
#: seed 004's SN-AP and SN-DCG: normalised by the ranking itself, 0 when it holds nothing
#: relevant, whatever R is (and the same under every policy)
SELF_NORMALISED = ["AP(norm='self')@5", "DCG(norm='self')@5"]
MEASURES += SELF_NORMALISED
ENGINES = ["polars", "duckdb"]


def _run() -> pl.DataFrame:
    rows = [
        (run, q, doc, float(len(docs) - i))
        for (run, q), docs in RANKINGS.items()
        for i, doc in enumerate(docs)
    ]
    return pl.DataFrame(rows, schema=["run_id", "query_id", "doc_id", "score"], orient="row")


def _grades(q: str) -> dict[str, int]:
    part = QRELS.filter(pl.col("query_id") == q)
    return dict(zip(part["doc_id"], part["relevance"], strict=True))


def _oracle(measure: str, ranking: list[str], grades: dict[str, int]) -> float | None:
    """The measure from its definition; None where it is 0/0 (no relevant document)."""
    rel = 2 if "rel=2" in measure else 1
    relevant = [d for d, g in grades.items() if g >= rel]
    hit = [grades.get(d, 0) >= rel for d in ranking]
    n_rel = len(relevant)
    if measure == "P@3":
        return sum(hit[:3]) / 3
    if measure == "AP(norm='self')@5":
        top = hit[:5]
        precisions = [sum(top[: i + 1]) / (i + 1) for i in range(len(top)) if top[i]]
        return sum(precisions) / len(precisions) if precisions else 0.0
    if measure == "DCG(norm='self')@5":
        gains = [max(grades.get(d, 0), 0) for d in ranking[:5]]
        dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
        best = sum(g / math.log2(i + 2) for i, g in enumerate(sorted(gains, reverse=True)))
        return dcg / best if best > 0 else 0.0
    if measure.startswith("AP"):
        precisions = [sum(hit[: i + 1]) / (i + 1) for i in range(len(hit)) if hit[i]]
        return sum(precisions) / n_rel if n_rel else None
    if measure == "R@5":
        return sum(hit[:5]) / n_rel if n_rel else None
    if measure == "Rprec":
        return sum(hit[:n_rel]) / n_rel if n_rel else None
    if measure == "nDCG@5":
        dcg = sum(grades.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranking[:5]))
        ideal = sorted((g for g in grades.values() if g > 0), reverse=True)[:5]
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        return dcg / idcg if idcg > 0 else None
    raise AssertionError(measure)


def _expected(policy: str, missing: str = "skip") -> dict[tuple[str, str, str], float]:
    """(run, query, measure) -> value under ``policy``; absent keys: no row."""
    queries = QRELS["query_id"].unique().sort().to_list()
    out: dict[tuple[str, str, str], float] = {}
    for run in ("a", "b"):
        for q in queries:
            if (run, q) not in RANKINGS and missing == "skip":
                continue
            ranking = RANKINGS.get((run, q), [])
            for m in MEASURES:
                value = _oracle(m, ranking, _grades(q))
                if value is None:
                    if policy == "skip":
                        continue
                    value = 0.0 if policy == "zero" else math.nan
                out[(run, q, m)] = value
    return out


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)  # NaN propagates through the sum


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, abs=1e-12)


def _evaluate(policy: str, engine: str, **kw) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ir.CoverageWarning)
        return ir.evaluate(_run(), QRELS, MEASURES, no_relevant=policy, engine=engine, **kw)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("missing", ["skip", "zero"])
@pytest.mark.parametrize("policy", ["zero", "nan", "skip"])
def test_policy_against_the_definitions(policy: str, missing: str, engine: str) -> None:
    expected = _expected(policy, missing)
    got = _evaluate(policy, engine, per_query=True, missing=missing)
    rows = {(r, q, m): v for r, q, m, v in got.rows()}
    assert set(rows) == set(expected)
    for key, value in expected.items():
        assert _same(rows[key], value), (key, rows[key], value)
    means = _evaluate(policy, engine, missing=missing)
    for run, m, value in means.rows():
        values = [v for (r, _, mm), v in expected.items() if (r, mm) == (run, m)]
        assert _same(value, _mean(values)), (run, m, value)


def test_zero_is_the_default_and_unchanged() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ir.CoverageWarning)
        base = ir.evaluate(_run(), QRELS, MEASURES, per_query=True)
    assert base.equals(_evaluate("zero", "polars", per_query=True))


def test_only_measures_normalised_by_r_change() -> None:
    got = _evaluate("nan", "polars", per_query=True)
    base = _evaluate("zero", "polars", per_query=True)
    joined = got.join(base, on=["run_id", "query_id", "measure"], suffix="_zero")
    changed = joined.filter(pl.col("value").is_nan())
    assert set(changed["measure"]) == {"AP", "nDCG@5", "R@5", "Rprec", "AP(rel=2)"}
    assert (changed["value_zero"] == 0.0).all()  # trec_eval's convention where undefined
    for measure in ["P@3", *SELF_NORMALISED]:
        assert not joined.filter(pl.col("measure") == measure)["value"].is_nan().any()


def test_r_is_counted_at_each_measures_rel() -> None:
    got = _evaluate("skip", "polars", per_query=True).filter(pl.col("query_id") == "q3")
    # q3's one document of grade 1 is relevant to AP, not to AP(rel=2)
    assert set(got["measure"]) == {"AP", "nDCG@5", "R@5", "Rprec", "P@3", *SELF_NORMALISED}


@pytest.mark.parametrize("per_query", [False, True])
@pytest.mark.parametrize("policy", ["zero", "nan", "skip"])
def test_engines_agree(policy: str, per_query: bool) -> None:
    p = _evaluate(policy, "polars", per_query=per_query)
    d = _evaluate(policy, "duckdb", per_query=per_query)
    assert p.columns == d.columns and p.height == d.height
    for a, b in zip(p.rows(), d.rows(), strict=True):
        assert a[:-1] == b[:-1] and _same(a[-1], b[-1])


@pytest.mark.parametrize("engine", ENGINES)
def test_error_names_runs_queries_and_measures(engine: str) -> None:
    with pytest.raises(ir.NoRelevantError) as info:
        _evaluate("error", engine)
    text = str(info.value)
    # q2 (both runs) and q3 (AP(rel=2) only); q4 is not evaluated for run b (missing='skip')
    assert text.startswith("5 evaluated (run, query) pair(s)")
    for part in ("runs a, b", "q2", "q3", "q4", "AP(rel=2)", "nDCG@5", "no_relevant='zero'"):
        assert part in text
    assert "P@3" not in text


def test_error_only_for_measures_normalised_by_r() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ir.CoverageWarning)
        out = ir.evaluate(_run(), QRELS, ["P@3", "RR"], no_relevant="error")
    assert out.height == 4  # two runs, two measures


def test_warning_counts_per_measure() -> None:
    with pytest.warns(ir.CoverageWarning) as record:
        ir.evaluate(_run(), QRELS, MEASURES, no_relevant="skip")
    text = " ".join(str(w.message) for w in record)
    # (a, q2), (a, q4), (b, q2); plus (a, q3), (b, q3) for AP(rel=2)
    assert "AP: 3" in text and "AP(rel=2): 5" in text and "no_relevant='skip'" in text


def test_no_warning_for_zero() -> None:
    run = _run().filter(pl.col("run_id") == "a")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ir.CoverageWarning)
        ir.evaluate(run, QRELS, MEASURES, no_relevant="zero")


def test_bad_policy_and_lazy_error() -> None:
    with pytest.raises(ir.ParameterError, match="no_relevant='none'"):
        ir.evaluate(_run(), QRELS, MEASURES, no_relevant="none")  # type: ignore[arg-type]
    with pytest.raises(ir.ParameterError, match="lazy"):
        ir.evaluate(_run().lazy(), QRELS, MEASURES, no_relevant="error")


def test_lazy_policy_stays_lazy() -> None:
    got = ir.evaluate(_run().lazy(), QRELS, MEASURES, no_relevant="skip", per_query=True)
    assert isinstance(got, pl.LazyFrame)
    assert got.collect().equals(_evaluate("skip", "polars", per_query=True))


def test_spark_refuses() -> None:
    with pytest.raises(NotImplementedError, match="Spark"):
        ir.evaluate(_run(), QRELS, ["AP"], engine="spark", no_relevant="nan")


def test_declarations() -> None:
    """Each measure declared normalised by R scores trec_eval's 0 on a query without
    relevant documents (the convention the policy replaces)."""
    strings = {"R": "R@5", "relative_P": "relative_P@5", "IPrec": "IPrec@0.5",
               "Rprec_mult": "Rprec_mult(mult=2.0)", "DCG": "DCG(norm='ideal')@5"}  # fmt: skip
    by_r = [strings.get(n, n) for n, d in REGISTRY.items() if d.by_r]
    run = _run().filter(pl.col("run_id") == "a").drop("run_id")
    got = ir.evaluate(run, QRELS, by_r, per_query=True, no_relevant="zero")
    assert got.filter(pl.col("query_id") == "q2")["value"].to_list() == [0.0] * len(by_r)
    with pytest.warns(ir.CoverageWarning, match="scored NaN"):
        nan = ir.evaluate(run, QRELS, by_r, per_query=True, no_relevant="nan")
    assert nan.filter(pl.col("query_id") == "q2")["value"].is_nan().all()


def test_cli(tmp_path: Path, capsys) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in QRELS.rows()))
    run = tmp_path / "a.run"
    docs = {q: d for (r, q), d in RANKINGS.items() if r == "a"}
    run.write_text(
        "".join(
            f"{q} Q0 {d} {i + 1} {len(ds) - i}.0 a\n"
            for q, ds in docs.items()
            for i, d in enumerate(ds)
        )
    )
    for policy in ("zero", "nan", "skip"):
        code = main([str(qrels), str(run), "-m", "AP P@3", "-q", "--format", "tsv",
                     "--no-relevant", policy])  # fmt: skip
        out, err = capsys.readouterr()
        assert code == 0, err
        got = pl.read_csv(
            io.StringIO(out), separator="\t", schema_overrides={"query_id": pl.String}
        )
        ap = dict(zip(got["query_id"], got["AP"], strict=True))
        want = _expected(policy)
        for q in ("q1", "q2", "q3", "q4"):
            key = ("a", q, "AP")
            if key in want:
                assert _same(ap[q], want[key]), (policy, q)
            else:
                assert ap[q] is None, (policy, q)
        assert ("without relevant documents" in err) == (policy != "zero")
    code = main([str(qrels), str(run), "-m", "AP", "--no-relevant", "error"])
    assert code != 0
    assert "no_relevant='zero'" in capsys.readouterr().err


def test_the_audit_finds_measures_normalised_by_r_incomplete() -> None:
    """properties(no_relevant='forced') (seed 004) and the by_r declarations agree: a score
    at R = 0 that is only a convention is what the policy replaces."""
    measures = ["AP@3", "R@3", "nDCG@3", "P@3", "RR@3"]
    forced = ir.properties(measures, properties="complete", no_relevant="forced").frame
    complete = dict(zip(forced["measure"], forced["complete"], strict=True))
    parsed = {m: ir.parse_measures(m)[0] for m in measures}
    assert complete == {m: not parsed[m].by_r for m in measures}
    scored = ir.properties(measures, properties="complete", no_relevant="scored").frame
    assert scored["complete"].all()
