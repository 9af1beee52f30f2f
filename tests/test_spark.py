"""The Spark engine (``polars_ireval.engines.spark``): the templates of ``sql/`` rendered as
Spark SQL, run in local mode, against the Polars engine.

One Spark session serves the whole suite (the ``spark`` fixture of ``tests/conftest.py``:
``local[1]``, one shuffle partition, no UI, interpreted expressions). Spark plans are costly
on a small machine, so the measures are checked in few, large batches:
``tests/test_sql.py::test_engines_equal_polars`` and ``test_residuals_equal_polars`` run
every macro and code path (``SPARK_MEASURES``) on Spark as on DuckDB, and the DuckDB tests
check the same templates on every measure and parameter. This module covers what is Spark's
own: Spark inputs, options, byte-wise ties, bad input, ``-m all_trec`` in one call, and the
same through Spark Connect (the ``spark_connect`` fixture: a Connect server in the suite's
JVM).
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_ireval as ir
from polars_ireval.trec_eval import trec_items
from tests.paths import TREC_TEST, need_data
from tests.support import RANK_BY, TIE_IDS, compare, generated, tie_frames, to_polars

pyspark = pytest.importorskip(
    "pyspark", reason="pyspark is a test dependency: pip install '.[test]'"
)
import polars_ireval.engines.spark as irspark  # noqa: E402

pytestmark = pytest.mark.filterwarnings(
    "ignore::polars_ireval.CoverageWarning", "ignore::FutureWarning"
)


@pytest.fixture
def session(request: pytest.FixtureRequest) -> Any:
    """The suite's classic session, or (``indirect`` parameter ``"connect"``) a Spark
    Connect session on the same JVM."""
    kind = getattr(request, "param", "classic")
    return request.getfixturevalue("spark" if kind == "classic" else "spark_connect")


def all_trec() -> list[Any]:
    """The measures of trec_eval's ``-m all_trec``."""
    items, _ = trec_items(["all_trec"])
    return [m for m in items if isinstance(m, ir.Measure)]


def spark_eval(run: Any, qrels: Any, measures: Any, *, spark: Any, **options: Any) -> Any:
    """``evaluate`` on the Spark engine, in the session ``spark``."""
    return ir.evaluate(run, qrels, measures, engine="spark", con=spark, **options)


def test_spark_trec_eval_data(spark: Any) -> None:
    """trec_eval's test collection, relevance level 2, aggregated (means, sums, gmeans)."""
    need_data()
    run, qrels = TREC_TEST / "results.test", TREC_TEST / "qrels.test"
    names = [
        *("map", "gm_map", "ndcg_cut.10", "num_ret", "P.5", "recip_rank", "bpref", "infAP"),
        *("ERR@20", "INST@10"),
    ]
    got = to_polars(spark_eval(run, qrels, names, spark=spark, relevance_level=2))
    compare(got, ir.evaluate(run, qrels, names, relevance_level=2))


@pytest.mark.parametrize("strategy", sorted(RANK_BY))
def test_spark_frames_and_options(
    spark: Any, monkeypatch: pytest.MonkeyPatch, strategy: str
) -> None:
    """Spark DataFrames evaluated in place, with missing, max_depth, judged_only, ties, under
    each judge strategy (rank_by: chosen from the qrels' density by one Spark job, forced
    here; RBP_resid and Rndcg read the unjudged documents, so only the window ranks them)."""
    monkeypatch.setattr(irspark, "SPARSE_JUDGMENTS", RANK_BY[strategy])
    strategies = []
    judge_sql = irspark.judge_sql

    def spy(tables: dict[str, str], **options: Any) -> str:
        strategies.append(options["rank_by"])
        return judge_sql(tables, **options)

    monkeypatch.setattr(irspark, "judge_sql", spy)
    run, qrels = generated(1 if strategy == "window" else 4)
    run = run.with_row_index("input_order").with_columns(pl.col("input_order").cast(pl.Int64))
    run_sdf = spark.createDataFrame(run.to_arrow())
    qrels_sdf = spark.createDataFrame(qrels.to_arrow())
    if strategy == "window":
        names = ["AP", "nDCG@5", "RBP_resid", "Rndcg"]
    else:  # measures that need no unjudged documents
        names = ["AP", "nDCG@5", "P@3", "RR"]
    for options in (
        {"missing": "zero", "max_depth": 4, "judged_only": True, "relevance_level": 2},
        {"ties": "input_order"},
    ):
        got = to_polars(
            spark_eval(run_sdf, qrels_sdf, names, spark=spark, per_query=True, **options)
        )
        want = ir.evaluate(run.drop("input_order"), qrels, names, per_query=True, **options)
        compare(got, want)
    assert strategies == [strategy, strategy]


#: Judge options for test_spark_judge_without_unjudged (each tie policy, a depth cut, the
#: condensed table, judged queries a run lacks).
JUDGE_OPTIONS: list[dict[str, Any]] = [
    {},
    {"ties": "doc_id_asc", "max_depth": 4, "missing": "zero"},
    {"ties": "input_order", "judged_only": True},
    {"max_depth": 3, "judged_only": True, "missing": "zero"},
]


@pytest.mark.parametrize("rank_by", sorted(RANK_BY))
def test_spark_judge_without_unjudged(spark: Any, rank_by: str) -> None:
    """The judge's table without the unjudged documents (``unjudged := FALSE``, which Spark
    merges by grouping: ``JUDGED_BY_GROUP``) is ``polars_ireval.judge(unjudged=False)``'s,
    row for row, under each ranking strategy and the options that change its rows."""
    from polars_ireval.sql import quote_backquoted as quote
    from polars_ireval.sql.compile import judge_sql
    from polars_ireval.sql.templates import JUDGED_BY_GROUP

    assert JUDGED_BY_GROUP["spark"] == "TRUE"
    run, qrels = generated(2)
    ordered = run.with_row_index("input_order").with_columns(pl.col("input_order").cast(pl.Int64))
    spark.createDataFrame(ordered.to_arrow()).createOrReplaceTempView("unjudged_run")
    spark.createDataFrame(qrels.to_arrow()).createOrReplaceTempView("unjudged_qrels")
    tables = {
        "run_table": f"(SELECT *, CAST(NULL AS DOUBLE) AS input_rank FROM {quote('unjudged_run')})",
        "qrels_table": quote("unjudged_qrels"),
    }
    keys = ["run_id", "query_id", "doc_id"]
    for options in JUDGE_OPTIONS:
        query = judge_sql(tables, unjudged=False, rank_by=rank_by, **options)
        got = to_polars(spark.sql(query)).select(
            *keys, "score", pl.col("rank").cast(pl.UInt32), "relevance"
        )
        want = ir.judge(run, qrels, unjudged=False, **options)
        assert got.height > 0 and got["rank"].null_count() > 0, options
        assert got.sort(keys).equals(want.select(got.columns).sort(keys)), options


def test_spark_ties_are_byte_wise(spark: Any) -> None:
    """The judge ranks doc ids byte-wise (CAST AS BINARY) and ties -0.0 with 0.0."""
    from polars_ireval.sql import quote_backquoted as quote
    from polars_ireval.sql.compile import judge_sql

    run, qrels = tie_frames()
    spark.createDataFrame(run.to_arrow()).createOrReplaceTempView("tie_run")
    spark.createDataFrame(qrels.to_arrow()).createOrReplaceTempView("tie_qrels")
    tables = {
        "run_table": f"(SELECT *, CAST(NULL AS DOUBLE) AS input_rank, "
        f"CAST(NULL AS BIGINT) AS input_order FROM {quote('tie_run')})",
        "qrels_table": quote("tie_qrels"),
    }
    for ties in ("trec_eval", "doc_id_asc"):
        got = to_polars(spark.sql(judge_sql(tables, ties=ties))).select(
            "query_id", "doc_id", pl.col("rank").cast(pl.UInt32), "relevance"
        )
        want = ir.judge(run, qrels, ties=ties).select("query_id", "doc_id", "rank", "relevance")
        order = ["query_id", "doc_id"]
        assert got.sort(order).equals(want.sort(order))
        q2 = got.filter(pl.col("query_id") == "q2", pl.col("rank").is_not_null()).sort("rank")
        expected = sorted(TIE_IDS, key=lambda s: s.encode(), reverse=ties == "trec_eval")
        assert q2["doc_id"].to_list() == expected


def test_spark_bad_input(spark: Any) -> None:
    """Spark inputs are checked (ireval_check) and raise the readers' exceptions."""
    qrels = spark.createDataFrame([("q", "d", 1)], ["query_id", "doc_id", "relevance"])
    dup = spark.createDataFrame([("q", "d", 1.0), ("q", "d", 2.0)], ["query_id", "doc_id", "score"])
    with pytest.raises(ir.DuplicateError, match="duplicate document"):
        spark_eval(dup, qrels, "AP", spark=spark)
    nan = spark.createDataFrame([("q", "d", float("nan"))], ["query_id", "doc_id", "score"])
    with pytest.raises(ir.ScoreError, match="not finite"):
        spark_eval(nan, qrels, "AP", spark=spark)
    nocol = spark.createDataFrame([("q", "d")], ["query_id", "doc_id"])
    with pytest.raises(ir.SchemaError, match="score"):
        spark_eval(nocol, qrels, "AP", spark=spark)
    ok = spark.createDataFrame([("q", "d", 1.0)], ["query_id", "doc_id", "score"])
    more = spark.createDataFrame(
        [("q", "d", 1), ("q2", "d", 1)], ["query_id", "doc_id", "relevance"]
    )
    with pytest.raises(ir.MissingQueryError, match="q2"):
        spark_eval(ok, more, "AP", spark=spark, missing="error")
    # the one-pass screen flags each kind (then ireval_check names them all, in one call)
    null = spark.createDataFrame([("q", "d", None)], "query_id string, doc_id string, score double")
    bad = spark.createDataFrame([("q", "d", 1.0), ("q", "d", 1.5)], qrels.columns)
    with pytest.raises(ir.IrevalError) as raised:
        spark_eval(null, bad, "AP", spark=spark)
    for problem in ("score is null", "duplicate judgment", "relevance is not an integer"):
        assert problem in str(raised.value)


def test_spark_screen_suspects_only_ask(spark: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A suspect found by the one-pass screen (a hash collision, say) on sound inputs only
    runs ireval_check, which finds nothing: the check passes and returns the screen's
    counts of the qrels."""
    run = spark.createDataFrame([("q", "a", 2.0), ("q", "b", 1.0)], ["query_id", "doc_id", "score"])
    qrels = spark.createDataFrame([("q", "b", 1)], ["query_id", "doc_id", "relevance"])
    run.createOrReplaceTempView("screen_run")
    qrels.createOrReplaceTempView("screen_qrels")
    tables = {
        "run_table": irspark._run_source("screen_run", run.columns),
        "qrels_table": irspark._qrels_source("screen_qrels", qrels.columns),
    }
    assert irspark._check(spark, tables) == (1, 1)  # sound: the screen's counts, no error
    asked = []
    monkeypatch.setattr(
        irspark, "screen_sql", lambda t: "SELECT 1 AS suspect, 7 AS judgments, 3 AS queries"
    )
    monkeypatch.setattr(irspark, "_full_check", lambda *a: asked.append(a))
    assert irspark._check(spark, tables) == (7, 3) and len(asked) == 1


def test_evaluate_engine_spark(spark: Any) -> None:
    """evaluate(engine="spark") runs in the active session and returns a Spark DataFrame."""
    run, qrels = ir.example_path("runs"), ir.example_path("qrels.txt")
    got = ir.evaluate(run, qrels, ["nDCG@10", "AP"], engine="spark")
    assert hasattr(got, "sparkSession")
    compare(to_polars(got), ir.evaluate(run, qrels, ["nDCG@10", "AP"]))


def test_a_polars_run_of_100000_rows(spark: Any) -> None:
    """A Polars run of 100,000 rows evaluates on Spark as on Polars. While its rows stayed
    in Spark's query plan, Spark's optimizer copied them at each of the judge's references
    to the run and exhausted a 4 GB driver heap (see
    ``polars_ireval.engines.spark.from_polars``)."""
    rng = np.random.default_rng(11)
    queries, depth = 100, 1000
    run = pl.DataFrame(
        {
            "query_id": np.repeat(np.arange(queries), depth).astype(str),
            "doc_id": np.char.add("d", np.tile(np.arange(depth), queries).astype(str)),
            "score": rng.integers(0, 400, queries * depth) / 4.0,  # many ties
        }
    )
    judged = np.array([rng.choice(depth + 50, 8, replace=False) for _ in range(queries)])
    qrels = pl.DataFrame(
        {
            "query_id": np.repeat(np.arange(queries), 8).astype(str),
            "doc_id": np.char.add("d", judged.ravel().astype(str)),
            "relevance": rng.integers(0, 3, queries * 8),
        }
    )
    names = ["nDCG@10", "AP", "P@10", "R@1000", "RR"]
    got = to_polars(spark_eval(run, qrels, names, spark=spark, per_query=True))
    compare(got, ir.evaluate(run, qrels, names, per_query=True))


def test_positions_come_from_spark_range() -> None:
    """Every measure that reads the positions 1..k (the CWL family, DCG's 'scaled' norm)
    takes them from Spark's range on the Spark engine: none keeps the portable digit cross
    join, which the rewrite misses silently if the fragment changes shape (no Spark needed:
    the values are checked by test_residuals_equal_polars and test_engines_equal_polars)."""
    from polars_ireval.sql.compile import measure_query, specs

    names = ["INST@20", "BPM(T=2)", "U(L=10)@20", "SDCG@10", "DCG(norm='scaled')@10"]
    queries = [measure_query(s, "ev") for s, _ in specs(ir.parse_measures(names), 1)]
    assert all("d8.d" in q for q in queries)
    ranged = [irspark.ranged_positions(q) for q in queries]
    assert not any("d8.d" in q or "SELECT 9 AS d" in q for q in ranged)
    assert all("FROM range(1, COALESCE(" in q for q in ranged)


@pytest.mark.parametrize(
    "session,level",
    [("classic", 2), ("connect", 1)],
    indirect=["session"],
    ids=["classic-l2", "connect-l1"],
)
def test_all_trec_on_spark(session: Any, level: int) -> None:
    """``-m all_trec`` (92 measures) in one call equals the Polars engine per query, on runs
    with ties, unjudged documents, negative grades and judged queries the runs lack. One
    call of that size used to build one plan with a branch per measure and ran out of
    memory (issue 23); its counts are now one aggregation and its plans come in batches."""
    run, qrels = generated(5)
    names = all_trec()
    kw: dict[str, Any] = {"per_query": True, "relevance_level": level, "missing": "zero"}
    got = to_polars(spark_eval(run, qrels, names, spark=session, **kw))
    compare(got, ir.evaluate(run, qrels, names, **kw))


def test_all_trec_plans_are_bounded() -> None:
    """The counts of all_trec's cutoff measures (P, recall, relative_P, success ...: 21
    cutoffs and grades) come from one aggregation, and its queries from few bounded
    batches (no Spark needed: the SQL is inspected)."""
    from polars_ireval.sql.compile import measure_query, specs

    parsed = all_trec()
    queries = [measure_query(s, "ev") for s, _ in specs(parsed, 1)]
    shared, wide = irspark.shared_stats(queries, "ev", "counts")
    assert wide is not None and wide.count("GROUP BY") == 1
    assert all("SUM(is_ret)" not in q for q in shared)
    before = sum(q.count("GROUP BY") for q in queries)
    after = sum(q.count("GROUP BY") for q in shared)
    assert after < before / 2, (before, after)
    batches = irspark.batches(shared)
    assert sorted(i for b in batches for i in b) == list(range(len(parsed)))
    assert len(batches) <= 8


@pytest.mark.parametrize("session", ["connect"], indirect=True)
def test_connect_inputs(session: Any) -> None:
    """Through Spark Connect: Polars frames (sent as Arrow and checkpointed), a Connect
    DataFrame and a table name, and a bad input raising the readers' exception."""
    run, qrels = generated(2)
    names = ["AP", "nDCG@5", "P@3", "RR", "11pt_avg"]
    want = ir.evaluate(run, qrels, names, per_query=True)
    got = spark_eval(run, qrels, names, spark=session, per_query=True)
    assert type(got).__module__.startswith("pyspark.sql.connect")
    compare(to_polars(got), want)
    run_sdf = session.createDataFrame(run.to_arrow())
    qrels_sdf = session.createDataFrame(qrels.to_arrow())
    qrels_sdf.createOrReplaceTempView("connect_qrels")
    try:
        got = spark_eval(run_sdf, "connect_qrels", names, spark=session, per_query=True)
        compare(to_polars(got), want)
    finally:
        session.catalog.dropTempView("connect_qrels")
    dup = session.createDataFrame(
        [("q", "d", 1.0), ("q", "d", 2.0)], ["query_id", "doc_id", "score"]
    )
    with pytest.raises(ir.DuplicateError, match="duplicate document"):
        spark_eval(dup, qrels_sdf, "AP", spark=session)


def test_cli_engine_spark(spark: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """``ireval --engine spark`` and ``spark-polars`` (in the active session) print what the
    Polars engine does."""
    from polars_ireval.cli import main

    args = ["--example", "-m", "P@5 AP 11pt_avg", "-q", "--format", "tsv"]
    outputs = []
    for engine in ("polars", "spark", "spark-polars"):
        assert main([*args, "--engine", engine]) == 0
        outputs.append(capsys.readouterr().out)
    want, *gots = (pl.read_csv(io.StringIO(o), separator="\t") for o in outputs)
    for got in gots:
        assert got.columns == want.columns and got.height == want.height > 0
        for c in want.columns:
            if want[c].dtype.is_float():
                assert ((got[c] - want[c]).abs() <= 1e-12).all(), c
            else:
                assert got[c].equals(want[c]), c
