"""``ir.properties``: seed 004's seven properties, decided by enumeration.

Oracles: the seed's Table 2 typed in from the paper, the seed's own numeric examples
worked by hand, every counterexample re-scored by ``evaluate`` on a run and qrels built
here from its ranking string, and a direct computation of RPrec@k.
"""

from __future__ import annotations

import importlib
import itertools
import json
import math

import numpy as np
import polars as pl
import pytest

import polars_ireval as ir
from polars_ireval.cli import main
from polars_ireval.errors import ParameterError
from tests.paths import ROOT

# the package's ``properties`` is the function; the module is reached by its name
props_module = importlib.import_module("polars_ireval.analysis.properties")
universe_module = importlib.import_module("polars_ireval.analysis.property_universe")

Y, N = True, False
#: Seed 004, Table 2, cell for cell: bounded, monotonic, convergent, top-weighted,
#: localized, complete, realizable; each metric as this library writes it at depth k.
TABLE2 = {
    "DCG@{k}": (N, Y, Y, Y, Y, Y, N),
    "SP@{k}": (N, Y, Y, Y, Y, Y, N),
    "RPrec@{k}": (Y, N, N, N, N, N, Y),
    "DCG(norm='self')@{k}": (Y, N, N, Y, Y, N, Y),  # SN-DCG
    "AP(norm='self')@{k}": (Y, N, N, Y, Y, N, Y),  # SN-AP
    "P@{k}": (Y, N, Y, N, Y, Y, N),
    "nDCG@{k}": (Y, N, Y, Y, N, N, Y),
    "SDCG@{k}": (Y, N, Y, Y, Y, Y, N),
    "HIT@{k}": (Y, Y, N, N, Y, Y, Y),
    "RR@{k}": (Y, Y, N, N, Y, Y, Y),
    "R@{k}": (Y, Y, Y, N, N, N, N),  # Recall
    "AP@{k}": (Y, Y, Y, Y, N, N, N),
    "RBP(p=0.8)@{k}": (Y, Y, Y, Y, Y, Y, N),
}
PROPS = (
    "bounded",
    "monotonic",
    "convergent",
    "top_weighted",
    "localized",
    "complete",
    "realizable",
)


def seed_measures(k: int) -> list[str]:
    return [m.format(k=k) for m in TABLE2]


@pytest.fixture(scope="module")
def at5() -> ir.Properties:
    return ir.properties(seed_measures(5))


# --------------------------------------------------------------------------- helpers


def inputs(ranking: str, unretrieved: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The run and qrels of one scenario: the ranking's documents by decreasing score,
    judged by their grades ('?' unjudged), plus ``unretrieved`` relevant documents the run
    lacks and one judged non-relevant document it lacks."""
    docs = [f"doc{i}" for i in range(len(ranking))]
    run = pl.DataFrame(
        {"query_id": "q", "doc_id": docs, "score": [100.0 - i for i in range(len(ranking))]}
    )
    judged = [(d, int(c)) for d, c in zip(docs, ranking, strict=True) if c != "?"]
    judged += [(f"missing{j}", 1) for j in range(unretrieved)] + [("other", 0)]
    qrels = pl.DataFrame(
        {"query_id": "q", "doc_id": [d for d, _ in judged], "relevance": [g for _, g in judged]}
    )
    return run, qrels


def score(measure: str, ranking: str, unretrieved: int, upper: bool = False) -> float:
    run, qrels = inputs(ranking, unretrieved)
    out = ir.evaluate(run, qrels, measure, per_query=True, residuals=upper)
    value = out["value"][0]
    if upper and out["residual"][0] is not None:
        value += out["residual"][0]
    return value


def score_all(rows: list[dict], upper: bool = False) -> dict[tuple[int, str], float]:
    """Both sides of every violation re-scored in one evaluate call (one query per side)."""
    runs, qrels, asked = [], [], set()
    for i, row in enumerate(rows):
        for side in ("a", "b"):
            if row[f"{side}_ranking"] is None:
                continue
            run, qr = inputs(row[f"{side}_ranking"], row[f"{side}_unretrieved"])
            qid = pl.lit(f"{i}{side}")
            runs.append(run.with_columns(qid.alias("query_id")))
            qrels.append(qr.with_columns(qid.alias("query_id")))
            asked.add(row[f"{side}_measure"])
    out = ir.evaluate(pl.concat(runs), pl.concat(qrels), sorted(asked), per_query=True,
                      residuals=upper)  # fmt: skip
    value = pl.col("value") + (pl.col("residual").fill_null(0.0) if upper else 0.0)
    return {(q, m): v for q, m, v in out.select("query_id", "measure", value).iter_rows()}


def check_violations(rows: list[dict], upper: bool = False) -> None:
    scores = score_all(rows, upper)
    for i, row in enumerate(rows):
        a = scores[(f"{i}a", row["a_measure"])]
        b = scores[(f"{i}b", row["b_measure"])] if row["b_ranking"] is not None else None
        check_violation(row, a, b)


def check_violation(row: dict, a: float, b: float | None) -> None:
    """Both sides of a violation, re-scored with evaluate: the property fails on them."""
    assert a == pytest.approx(row["a_value"], abs=1e-12), row
    prop = row["property"]
    if row["b_ranking"] is None:
        if prop == "bounded":
            assert not 0.0 <= a <= 1.0, row
        else:
            assert prop == "complete" and not math.isfinite(a), row
        return
    assert b == pytest.approx(row["b_value"], abs=1e-12), row
    ra, rb, k = row["a_ranking"], row["b_ranking"], row["a_depth"]
    if prop == "monotonic":
        assert ra == rb and row["b_depth"] == k + 1 and b < a, row
    elif prop in ("convergent", "top_weighted"):
        diff = [i for i in range(len(ra)) if ra[i] != rb[i]]
        assert len(diff) == 2 and sorted(ra[i] for i in diff) == sorted(rb[i] for i in diff)
        i, j = diff
        assert rb[i] > ra[i], row  # the more relevant document moved up
        assert (j == k) if prop == "convergent" else (j < k), row
        assert b <= a + 1e-9, row  # not a strict rise (scores within 1e-9 are equal)
    elif prop == "localized":
        assert ra[:k] == rb[:k] and a != pytest.approx(b, abs=1e-9), row
    elif prop == "complete":
        raised = all(y >= x for x, y in zip(ra, rb, strict=True))
        assert raised and row["b_unretrieved"] >= row["a_unretrieved"] and b < a, row
    elif prop == "realizable":
        assert row["a_R"] >= 1 and a < b, row
    else:  # pragma: no cover
        raise AssertionError(prop)


# --------------------------------------------------------------------------- Table 2


@pytest.mark.parametrize("k", [3, 4, 5, 10])
def test_table2_cell_for_cell(k: int, at5: ir.Properties) -> None:
    out = at5 if k == 5 else ir.properties(seed_measures(k))
    assert out.frame.columns == ["measure", *PROPS]
    got = {r[0]: tuple(r[1:]) for r in out.frame.iter_rows()}
    for measure, cells in TABLE2.items():
        name = measure.format(k=k)
        wrong = [p for p, want, have in zip(PROPS, cells, got[name], strict=True) if want != have]
        assert not wrong, f"{name}: {wrong} differ from seed 004's Table 2"


def test_every_counterexample_shows_the_violation(at5: ir.Properties) -> None:
    failures = sum(not v for cells in TABLE2.values() for v in cells)
    assert at5.counterexamples.height == failures
    check_violations(at5.counterexamples.to_dicts())


def test_a_sample_of_every_violation_shows_it(at5: ir.Properties) -> None:
    # every 401st violation of each (measure, property), the first and last included
    position = pl.int_range(pl.len()).over("measure", "property")
    sample = at5.violations.filter(
        (position % 401 == 0) | (position == pl.len().over("measure", "property") - 1)
    )
    assert sample.height > 400
    check_violations(sample.to_dicts())


# --------------------------------------------------------------------------- the seed's examples


def _dcg(bits: str) -> float:
    return sum(int(b) / math.log2(i + 2) for i, b in enumerate(bits))


def test_seed_monotonicity_example(at5: ir.Properties) -> None:
    # "11111" -> "111110": P, SDCG and nDCG (R > 5) fall from 1 to 0.83, 0.89, 0.89
    want = {"P@5": 5 / 6, "SDCG@5": _dcg("11111") / _dcg("111111"),
            "nDCG@5": _dcg("11111") / _dcg("111111")}  # fmt: skip
    for measure, value in want.items():
        row = at5.counterexample(measure, "monotonic")
        assert row["a_ranking"][:5] == "11111" and row["b_ranking"] == "111110", row
        assert row["a_value"] == pytest.approx(1.0) and row["b_value"] == pytest.approx(value)
        assert measure != "nDCG@5" or row["a_R"] > 5
    assert round(5 / 6, 2) == 0.83 and round(_dcg("11111") / _dcg("111111"), 2) == 0.89


def test_seed_sn_ap_convergence_example(at5: ir.Properties) -> None:
    # "10000" scores SN-AP@5 = 1, "10001" (1 + 2/5) / 2 = 0.7
    row = at5.counterexample("AP(norm='self')@5", "convergent")
    assert (row["a_ranking"][:5], row["b_ranking"][:5]) == ("10000", "10001")
    assert (row["a_value"], row["b_value"]) == (pytest.approx(1.0), pytest.approx(0.7))


def test_seed_rr_convergence_example(at5: ir.Properties) -> None:
    # "01000" and "01100" have the same RR@5
    v = at5.violations.filter(
        pl.col("measure") == "RR@5",
        pl.col("property") == "convergent",
        pl.col("a_ranking").str.slice(0, 5) == "01000",
        pl.col("b_ranking").str.slice(0, 5) == "01100",
    )
    assert v.height > 0
    assert v["a_value"].to_list() == v["b_value"].to_list() == [0.5] * v.height


def test_seed_rr_top_weighted_example(at5: ir.Properties) -> None:
    # RR@5 of "10001" and "11000" are the same
    v = at5.violations.filter(
        pl.col("measure") == "RR@5",
        pl.col("property") == "top_weighted",
        pl.col("a_ranking").str.slice(0, 5) == "10001",
        pl.col("b_ranking").str.slice(0, 5) == "11000",
    )
    assert v.height > 0 and set(v["a_value"]) == set(v["b_value"]) == {1.0}


def test_seed_sn_dcg_example(at5: ir.Properties) -> None:
    # "10100" -> "10101": SN-DCG@5 from 1.5 / 1.63 = 0.92 down to 1.89 / 2.13 = 0.88
    v = at5.violations.filter(
        pl.col("measure") == "DCG(norm='self')@5",
        pl.col("property") == "convergent",
        pl.col("a_ranking") == "101001",
        pl.col("b_ranking") == "101010",
    )
    assert v.height > 0
    assert v["a_value"][0] == pytest.approx(_dcg("10100") / _dcg("11"))
    assert v["b_value"][0] == pytest.approx(_dcg("10101") / _dcg("111"))
    # the seed's figures: 1.5 / 1.63, and 1.89 / 2.13 (0.8855, which it truncates to 0.88)
    assert (round(_dcg("10100"), 2), round(_dcg("11"), 2)) == (1.5, 1.63)
    assert (round(_dcg("10101"), 2), round(_dcg("111"), 2)) == (1.89, 2.13)
    assert round(v["a_value"][0], 2) == 0.92 and math.floor(v["b_value"][0] * 100) == 88


def test_dcg_unbounded_as_the_seed_argues(at5: ir.Properties) -> None:
    row = at5.counterexample("DCG@5", "bounded")
    assert row["a_value"] == pytest.approx(_dcg(row["a_ranking"][:5])) and row["a_value"] > 1
    # at depth 1 the binary rankings stay in [0, 1]; a deeper ideal ranking does not
    row = ir.properties("DCG@1", properties="bounded").counterexample("DCG@1", "bounded")
    assert row is not None and row["a_depth"] > 1
    check_violations([row])


# --------------------------------------------------------------------------- options


def test_rbp_upper_end_is_not_monotonic() -> None:
    # footnote a: the lower end of RBP's range is monotonic, the upper end is not
    out = ir.properties("RBP(p=0.8)@5", residual="upper")
    assert out.verdict("RBP(p=0.8)@5", "monotonic") is False
    row = out.counterexample("RBP(p=0.8)@5", "monotonic")
    check_violations([row], upper=True)
    assert ir.properties("RBP(p=0.8)@5").verdict("RBP(p=0.8)@5", "monotonic") is True


def test_no_relevant_scored_takes_the_convention() -> None:
    measures = ["AP@5", "nDCG@5", "AP(norm='self')@5", "RPrec@5", "R@5"]
    forced = ir.properties(measures, properties="complete")
    scored = ir.properties(measures, properties="complete", no_relevant="scored")
    assert forced.frame["complete"].to_list() == [False] * 5
    assert scored.frame["complete"].to_list() == [True] * 5
    # the implementation scores 0 without a relevant document
    for m in measures:
        assert score(m, "000000", 0) == 0.0


def test_subset_of_properties_leaves_the_others_null() -> None:
    out = ir.properties("P@5", properties=["monotonic", "realizable"])
    row = out.frame.row(0, named=True)
    assert row["monotonic"] is False and row["realizable"] is False
    assert all(row[p] is None for p in PROPS if p not in ("monotonic", "realizable"))


def test_grades_are_read_from_the_measure() -> None:
    # P@k: grades 1 and 2 are alike (no swap between them); nDCG tells them apart
    out = ir.properties(["P@4", "nDCG@4"], properties="convergent")
    assert out.frame["convergent"].to_list() == [True, True]
    v = ir.properties("P(rel=2)@4", properties="convergent")
    assert v.frame["convergent"].to_list() == [True]
    # "relevant" is grade >= rel: P(rel=2)@k is no more realizable than P@k, at any depth
    for k in (4, 10):
        got = ir.properties([f"P(rel=2)@{k}", f"P@{k}"], properties="realizable")
        assert got.frame["realizable"].to_list() == [False, False]
        assert got.counterexample(f"P(rel=2)@{k}", "realizable")["a_ranking"].count("2") == 1


def test_two_evaluate_calls_per_depth(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = props_module.evaluate

    def counting(run, qrels, measures, **kw):  # type: ignore[no-untyped-def]
        calls.append(run["query_id"].n_unique())
        return real(run, qrels, measures, **kw)

    monkeypatch.setattr(props_module, "evaluate", counting)
    ir.properties(["P@4", "AP@4", "nDCG@5"])
    # depth 4: every ranking of 5 positions over 4 states in 3 collections, then the ideal
    # rankings at the 3 probe depths (8, 40, 400) apart; depth 5 likewise
    assert calls == [4**5 * 3, 3, 4**6 * 3, 3]
    calls.clear()
    ir.properties(["P@4"], properties=["monotonic", "localized"])  # no probes: one call
    assert calls == [4**5 * 3]


def test_outputs() -> None:
    out = ir.properties(["RR@5", "P@5"], explain=True)
    text = str(out)
    assert text.splitlines()[0].split() == ["measure", *PROPS]
    assert "RR@5 is not convergent" in text and "P@5 is not monotonic" in text
    md = out.to_markdown()
    assert md.splitlines()[0] == "| measure | " + " | ".join(PROPS) + " |"
    assert "| `P@5` | yes | no | yes | no | yes | yes | no |" in md
    assert "- P@5 is not realizable" in md
    assert "is not" not in out.to_markdown(explain=False)
    data = json.loads(out.to_json())
    assert data["properties"][1] == {"measure": "P@5", **dict(zip(PROPS, TABLE2["P@{k}"],
                                                              strict=True))}  # fmt: skip
    assert {c["property"] for c in data["counterexamples"] if c["measure"] == "RR@5"} == {
        "convergent", "top_weighted"}  # fmt: skip


# --------------------------------------------------------------------------- RPrec@k


def test_rprec_at_k_equals_a_direct_computation() -> None:
    rng = np.random.default_rng(4)
    rows, qrels, want = [], [], {}
    for q in range(300):
        n = int(rng.integers(0, 9))
        grades = rng.integers(-1, 3, size=n)  # -1: unjudged
        extra = int(rng.integers(0, 4))
        docs = [f"d{i}" for i in range(n)]
        rows += [(str(q), d, float(n - i)) for i, d in enumerate(docs)]
        qrels += [(str(q), d, int(g)) for d, g in zip(docs, grades, strict=True) if g >= 0]
        qrels += [(str(q), f"x{j}", 1) for j in range(extra)] + [(str(q), "z", 0)]
        rel = [g >= 1 for g in grades]
        big_r = sum(rel) + extra
        for k in (1, 3, 5, 10):
            depth = min(k, big_r)
            want[(str(q), f"RPrec@{k}")] = sum(rel[:depth]) / depth if depth else 0.0
        want[(str(q), "Rprec")] = sum(rel[:big_r]) / big_r if big_r else 0.0
    run = pl.DataFrame(rows, schema=["query_id", "doc_id", "score"], orient="row")
    qr = pl.DataFrame(qrels, schema=["query_id", "doc_id", "relevance"], orient="row")
    names = ["RPrec@1", "RPrec@3", "RPrec@5", "RPrec@10", "Rprec"]
    with pytest.warns(ir.CoverageWarning):  # queries with nothing retrieved
        out = ir.evaluate(run, qr, names, per_query=True)
    got = {(r["query_id"], r["measure"]): r["value"] for r in out.iter_rows(named=True)}
    assert got.keys() == {key for key in want if key[0] in set(run["query_id"])}
    for key, value in got.items():
        assert value == pytest.approx(want[key], abs=1e-15), key


def test_rprec_cutoff_is_seed_definition() -> None:
    # RPrec@k = P@k while k <= R, P@R once k >= R
    run, qrels = inputs("1101100", 1)  # R = 5
    out = ir.evaluate(run, qrels, ["RPrec@3", "P@3", "RPrec@7", "P@5", "Rprec"])
    assert out["value"].to_list() == pytest.approx([2 / 3, 2 / 3, 4 / 5, 4 / 5, 4 / 5])
    assert ir.parse_measure("RPrec@5").canonical == "Rprec@5"


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("measures", "kwargs", "message"),
    [
        ("AP", {}, "give its cutoff, e.g. 'AP@5'"),
        ("Bpref", {}, "Bpref has no depth cutoff"),
        (["P@5", "IPrec@0.5"], {}, "IPrec has no depth cutoff"),
        ("P@5", {"properties": "monotone"}, "unknown property 'monotone'"),
        ("P@5", {"properties": ["bounded", "local"]}, "unknown property 'local'"),
        ("P@5", {"grades": (0, 2)}, "grades=(0, 2) is invalid"),
        ("P@5", {"residual": "middle"}, "residual='middle' is invalid"),
        ("P@5", {"no_relevant": "zero"}, "no_relevant='zero' is invalid"),
        ("P@5", {"bounds": (1.0, 0.0)}, "bounds=(1.0, 0.0) is invalid"),
        ("P@5", {"unretrieved": 0}, "unretrieved=0 is invalid"),
        ("P@40", {}, "depth k=40"),
        ("P(rel=3)@5", {}, "rel=3 is not among the audit's relevant grades"),
    ],
)
def test_bad_input(measures: object, kwargs: dict, message: str) -> None:
    with pytest.raises(ParameterError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ir.properties(measures, **kwargs)  # type: ignore[arg-type]


def test_unknown_measure_is_the_parser_error() -> None:
    with pytest.raises(ir.UnknownMeasureError):
        ir.properties("nDGC@5")


# --------------------------------------------------------------------------- CLI


def test_cli_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["properties", "nDCG@5", "RBP(p=0.8)@5", "--format", "markdown"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[2] == "| `nDCG@5` | yes | no | yes | yes | no | no | yes |"
    assert out[3] == "| `RBP(p=0.8)@5` | yes | yes | yes | yes | yes | yes | no |"


def test_cli_text_explain_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["properties", "RR@5", "--explain"]) == 0
    text = capsys.readouterr().out
    assert "RR@5 is not convergent" in text and "RR@5 is not top-weighted" in text
    assert main(["properties", "SP@5", "--format", "json", "--properties", "bounded"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["properties"] == [{"measure": "SP@5", "bounded": False,
                                   **{p: None for p in PROPS[1:]}}]  # fmt: skip
    assert main(["properties", "RBP(p=0.8)@5", "--residual", "upper", "--properties",
                 "monotonic"]) == 0  # fmt: skip
    assert capsys.readouterr().out.splitlines()[1].split()[:3] == ["RBP(p=0.8)@5", "—", "no"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["AP"], "give its cutoff"),
        (["P@5", "--properties", "foo"], "unknown property 'foo'"),
        (["P@5", "--format", "html"], "invalid choice"),
        ([], "the following arguments are required"),
    ],
)
def test_cli_errors(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["properties", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ireval: error:") and message in err


# --------------------------------------------------------------------------- docs


def test_docs_data_is_fresh(at5: ir.Properties) -> None:
    # the one fresh enumeration behind docs/properties.md and docs/measures.md
    from tests.tools import make_properties_page

    assert [m for _, m in make_properties_page.SEED] == seed_measures(5)
    data = (ROOT / "docs" / "properties.json").read_text()
    assert data == make_properties_page.compute(seed=at5), (
        "docs/properties.json is stale: run `python tests/tools/make_properties_page.py`"
    )


def test_docs_page_is_generated() -> None:
    from tests.tools import make_properties_page

    page = (ROOT / "docs" / "properties.md").read_text()
    assert page == make_properties_page.render(), (
        "docs/properties.md is stale: run `python tests/tools/make_properties_page.py`"
    )
    for name, measure in make_properties_page.SEED:
        cells = " | ".join("yes" if v else "no" for v in TABLE2[measure.replace("@5", "@{k}")])
        assert f"| {name} | `{measure}` | {cells} |" in page


def test_universe_enumerates_every_ranking() -> None:
    u = universe_module.universe(3, [0, 1, 2], True, 2, 100_000)
    assert len(u.codes) == 4**4
    got = set(u.strings().to_list())
    assert got == {"".join(p) for p in itertools.product("012?", repeat=4)}
    # beyond the budget: every binary ranking, and those with one other state
    u = universe_module.universe(10, [0, 1, 2], True, 2, 200_000)
    strings = set(u.strings().to_list())
    assert {"".join(p) for p in itertools.product("01", repeat=11)} <= strings
    assert all(sum(c not in "01" for c in s) <= 1 for s in strings)
    assert len(strings) == 2**11 + 11 * 2 * 2**10


def test_a_rise_smaller_than_an_absolute_tolerance_counts() -> None:
    """A relevant document entering RBP(p=0.1)@10 at rank 10 raises it by 0.9 * 0.1^9 =
    9e-10: a rise, as exact arithmetic has it (the tolerance is relative, about rounding
    error); an absolute 1e-9 made RBP(p=0.1)@10 not convergent."""
    out = ir.properties(["RBP(p=0.1)@10"]).frame.row(0, named=True)
    assert out["convergent"] and out["top_weighted"] and out["monotonic"]


def test_an_empty_list_of_properties_is_refused() -> None:
    with pytest.raises(ir.ParameterError, match=r"properties=\[\]: name at least one"):
        ir.properties(["AP@5"], properties=[])
