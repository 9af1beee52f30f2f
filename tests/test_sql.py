"""The DuckDB SQL macros (``sql/``, ``polars_ireval.sql``) against the Polars measures."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import duckdb
import polars as pl
import pytest

import polars_ireval as ir
import polars_ireval.sql as irsql
from polars_ireval.registry import REGISTRY
from tests.conftest import CAST, TREC_TEST, need_data

ROOT = Path(__file__).resolve().parents[1]
SQL = ROOT / "sql"
DOC = ROOT / "docs" / "sql.md"

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
    "Bpref",
    "gm_bpref",
    "NumQ",
    "NumRet",
    "NumRel",
    "NumRelRet",
    "num_nonrel_judged_ret",
    "nDCG",
    "nDCG@10",
    "nDCG@1000",
    "RR",
    "RR@5",
    "RR(rel=2)",
    "SetP",
    "SetR",
    "set_relative_P",
    "SetAP",
    "SetF",
    "SetF(beta=0.5)",
    "map",
    "ndcg_cut.10",
    "recip_rank",
    "bpref",
]


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
    if CAST.is_dir():
        runs = sorted(str(p) for p in (CAST / "runs").glob("*.run"))
        out.append(("cast2021", runs, str(CAST / "qrels.cast2021-docs.txt")))
    return out


def test_measures_cover_sql() -> None:
    names = {m.name for m in ir.parse_measures(MEASURES)}
    assert names == set(irsql.SQL_MEASURES)


@pytest.mark.filterwarnings("ignore::polars_ireval.evaluate.CoverageWarning")
@pytest.mark.parametrize("name,run,qrels", _datasets(), ids=[d[0] for d in _datasets()])
@pytest.mark.parametrize("relevance_level", [1, 2])
def test_sql_equals_polars(name: str, run: object, qrels: object, relevance_level: int) -> None:
    if name in ("trec_eval_test", "cast2021"):
        need_data()
    kw = {"per_query": True, "relevance_level": relevance_level}
    got = irsql.evaluate(run, qrels, MEASURES, **kw)
    want = ir.evaluate(run, qrels, MEASURES, **kw)
    assert got.columns == want.columns
    assert got.height == want.height
    keys = [c for c in want.columns if c != "value"]
    assert got.select(keys).equals(want.select(keys))
    diff = (got["value"] - want["value"]).abs()
    bad = got.with_columns(want=want["value"], diff=diff).filter(pl.col("diff") > 1e-12)
    assert bad.height == 0, bad
    # aggregates: means, sums, geometric means as polars_ireval.evaluate
    agg = irsql.evaluate(run, qrels, MEASURES, relevance_level=relevance_level)
    ref = ir.evaluate(run, qrels, MEASURES, relevance_level=relevance_level)
    assert agg.drop("value").equals(ref.drop("value"))
    assert ((agg["value"] - ref["value"]).abs() <= 1e-12).all()


GOLDEN = [
    "map",
    "map_cut.10,100",
    "P.5,10",
    "recall.10,1000",
    "recip_rank",
    "ndcg",
    "ndcg_cut.10",
    "Rprec",
    "bpref",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "set_P",
    "set_recall",
    "set_F",
    "success.1,10",
    "gm_map",
]


def test_trec_eval_golden_text() -> None:
    """Printed like trec_eval (%6.4f), per query and all: the 4th decimal of rank-ordered sums."""
    from tests.refs import read_trec_eval_output, trec_text

    need_data()
    expected = read_trec_eval_output(TREC_TEST / "expected_v9.0.8" / "out.test.aq")
    measures = ir.parse_measures(GOLDEN)
    integer = {m.label: m.defn.integer for m in measures}
    run, qrels = TREC_TEST / "results.test", TREC_TEST / "qrels.test"
    per_q = irsql.evaluate(run, qrels, GOLDEN, per_query=True)
    agg = irsql.evaluate(run, qrels, GOLDEN).with_columns(query_id=pl.lit("all"))
    got = pl.concat([per_q, agg.select(per_q.columns)])
    got = got.with_columns(
        text=pl.struct("measure", "value").map_elements(
            lambda r: trec_text(r["value"], integer[r["measure"]]), return_dtype=pl.String
        )
    )
    joined = expected.join(got, on=["measure", "query_id"], how="inner", suffix="_got")
    assert set(joined["measure"].unique()) == set(integer), "labels must match trec_eval's"
    assert joined.height == expected.filter(pl.col("measure").is_in(list(integer))).height
    bad = joined.filter(pl.col("text").str.strip_chars() != pl.col("text_got").str.strip_chars())
    assert bad.height == 0, bad


TIE_IDS = ["a_b", "a-b", "aB", "Ab", "é1", "D1 ", "D1", "D10", "D2"]


def test_ties_rank_like_judge() -> None:
    n = len(TIE_IDS)
    scores = [0.0, -0.0, 1.0, 1.0, 0.0, -0.0, 1.0, 0.0, -0.0]
    run = pl.DataFrame(
        {
            "run_id": ["r"] * n * 2,
            "query_id": ["q1"] * n + ["q2"] * n,
            "doc_id": TIE_IDS * 2,
            "score": scores + [0.0] * n,
        }
    )
    qrels = pl.DataFrame(
        {"query_id": ["q1", "q2", "q1"], "doc_id": ["D1", "é1", "zz"], "relevance": [1, 2, 1]}
    )
    con = irsql.load(duckdb.connect())
    con.register("run", run.to_arrow())
    con.register("qrels", qrels.to_arrow())
    got = pl.from_arrow(
        con.sql(
            "SELECT query_id, doc_id, rank, relevance FROM ireval_judge('run', 'qrels')"
        ).to_arrow_table()
    )
    assert isinstance(got, pl.DataFrame)
    want = ir.judge(run, qrels).select("query_id", "doc_id", "rank", "relevance")
    order = ["query_id", "doc_id"]
    got = got.with_columns(pl.col("rank").cast(pl.UInt32)).sort(order)
    assert got.equals(want.sort(order))


_FORBIDDEN = {
    "one-argument log (use log2/ln)": re.compile(r"\blog\s*\(", re.I),
    "decimal literal (use CAST(1 AS DOUBLE))": re.compile(r"(?<![\w.])\d+\.\d*|(?<![\w.])\.\d+"),
    "list function": re.compile(r"\b(list_\w+|array_\w+|unnest)\s*\(", re.I),
    "lambda": re.compile(r"->|\blambda\b", re.I),
    "list literal or index": re.compile(r"\["),
    "MATERIALIZED": re.compile(r"\bmaterialized\b", re.I),
}


def _strip_comments(text: str) -> str:
    text = re.sub(r"--[^\n]*", "", text)
    return re.sub(r"'(?:[^']|'')*'", "''", text)


@pytest.mark.parametrize("path", sorted(SQL.glob("*.sql")), ids=lambda p: p.name)
def test_sql_lint(path: Path) -> None:
    code = _strip_comments(path.read_text(encoding="utf-8"))
    found = [why for why, rx in _FORBIDDEN.items() if rx.search(code)]
    assert not found, f"{path.name}: {found}"


def test_entry_file_is_the_concatenation() -> None:
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
    calls = " ".join(irsql.measure_sql(m, "t") for m in ir.parse_measures(MEASURES))
    assert set(re.findall(r"ireval_\w+", calls)) <= names
    defined = set(re.findall(r"MACRO (ireval_\w+)", (SQL / irsql.ENTRY).read_text()))
    assert defined == names
    assert irsql.sql_dir().resolve() in (
        SQL.resolve(),
        (ROOT / "polars_ireval/sql/files").resolve(),
    )


def test_registry_coverage() -> None:
    assert set(irsql.SQL_MEASURES) <= set(REGISTRY)
    assert set(REGISTRY) - set(irsql.SQL_MEASURES) == irsql.PENDING


def test_pending_measures_raise_naming_them() -> None:
    with pytest.raises(NotImplementedError, match=r"IPrec@0\.5.*nDCG\(dcg='exp-log2'\)@10"):
        irsql.evaluate(
            ir.example_path("runs/bm25.run"),
            ir.example_path("qrels.txt"),
            ["P@5", "IPrec@0.5", "nDCG(dcg='exp-log2')@10"],
        )


def test_unsupported_options_raise() -> None:
    with pytest.raises(NotImplementedError, match="max_depth=10"):
        irsql.evaluate(
            ir.example_path("runs/bm25.run"), ir.example_path("qrels.txt"), "AP", max_depth=10
        )


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
            irsql.measure_sql(ir.parse_measures("nDCG@10")[0], names["t"]) + " ORDER BY 2"
        ).to_arrow_table()
    )
    assert isinstance(got, pl.DataFrame)
    want = ir.evaluate(run.drop("run_id"), qrels, "nDCG@10", per_query=True)
    assert got["query_id"].to_list() == want["query_id"].to_list()
    assert ((got["value"] - want["value"]).abs() <= 1e-12).all()
    # the SQL evaluate uses awkward names of its own; a connection reused keeps working
    assert irsql.evaluate(run, qrels, "P@5", con=con).height == 1
    assert irsql.evaluate(run, qrels, "P@5", con=con).height == 1


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_docs_queries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(ir.example_path(), tmp_path, dirs_exist_ok=True)
    monkeypatch.chdir(tmp_path)
    for block in _blocks("python"):
        exec(compile(block, str(DOC), "exec"), {})
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
    pq = results[3]
    assert isinstance(pq, pl.DataFrame)
    ref_ap = ir.evaluate(runs, "qrels.txt", "AP").sort("run_id")
    assert pq["run_id"].to_list() == ref_ap["run_id"].to_list()
    assert ((pq["map"] - ref_ap["value"]).abs() <= 1e-12).all()


def test_evaluate_engine_duckdb_goes_through_the_macros() -> None:
    qrels, runs = ir.example_path("qrels.txt"), ir.example_path("runs")
    names = "nDCG@10 AP P@10 R@1000 RR Bpref"
    via_sql = ir.evaluate(runs, qrels, names, per_query=True, engine="duckdb")
    via_polars = ir.evaluate(runs, qrels, names, per_query=True)
    assert via_sql.columns == via_polars.columns
    joined = via_polars.join(via_sql, on=["run_id", "query_id", "measure"], suffix="_sql")
    assert joined.height == via_polars.height > 0
    assert (joined["value"] - joined["value_sql"]).abs().max() < 1e-12
    with pytest.raises(ir.ParameterError, match="engine='spark'"):
        ir.evaluate(runs, qrels, names, engine="spark")  # type: ignore[arg-type]
