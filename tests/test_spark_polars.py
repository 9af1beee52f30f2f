"""``engine="spark-polars"`` (``polars_ireval.engines.spark_polars``): Spark partitions the run
by ranking and the Polars engine scores each partition in Spark's Python workers; the
result is the Polars engine's, bit for bit (the same code per ranking, the same
aggregation), with the same errors for bad input.

On the suite's Spark session (``tests/conftest.py``: ``local[1]``); the tests that matter
for the partitioning raise the shuffle partitions to four, so that the rankings of a run
are scored in different tasks and aggregated together.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import polars as pl
import pytest

import polars_ireval as ir
from tests.paths import TREC_TEST, need_data
from tests.support import generated, to_polars

pytest.importorskip("pyspark", reason="pyspark is a test dependency: pip install '.[test]'")

pytestmark = [
    pytest.mark.filterwarnings("ignore::polars_ireval.CoverageWarning", "ignore::FutureWarning"),
    pytest.mark.xdist_group("spark"),  # the suite's one JVM (see tests/conftest.py)
]

MEASURES = [
    *("AP", "nDCG@10", "P@5", "RR", "bpref", "gm_map", "ERR@10", "Rprec", "11pt_avg"),
    *("recall_1000", "num_rel_ret", "INST(T=2)@10", "RBP(p=0.8)", "SDCG@10", "infAP"),
]

OPTIONS: dict[str, dict[str, Any]] = {
    "defaults": {},
    "per-query-level-2": {"per_query": True, "relevance_level": 2},
    "residuals": {"residuals": True, "per_query": True},
    "doc-id-asc-depth-condensed": {"ties": "doc_id_asc", "max_depth": 5, "judged_only": True},
    "average": {"ties": "average"},
    "no-relevant-skip": {"no_relevant": "skip", "per_query": True},
    "no-relevant-nan": {"no_relevant": "nan"},
    "missing-zero": {"missing": "zero", "per_query": True},
    "missing-zero-level-2": {"missing": "zero", "ties": "doc_id_asc", "relevance_level": 2},
}


@pytest.fixture
def partitioned(spark: Any) -> Iterator[Any]:
    """The suite's session with four shuffle partitions for the test (one otherwise)."""
    before = spark.conf.get("spark.sql.shuffle.partitions")
    spark.conf.set("spark.sql.shuffle.partitions", "4")
    try:
        yield spark
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", before)


def on_spark(run: Any, qrels: Any, measures: Any, spark: Any, **options: Any) -> pl.DataFrame:
    got = ir.evaluate(run, qrels, measures, engine="spark-polars", con=spark, **options)
    assert hasattr(got, "sparkSession")
    return to_polars(got)


@pytest.mark.parametrize("options", list(OPTIONS.values()), ids=list(OPTIONS))
def test_equals_the_polars_engine(partitioned: Any, options: dict[str, Any]) -> None:
    """Three runs with ties (-0.0 and 0.0 too), unjudged documents, negative grades, judged
    queries the runs lack and a query without relevant documents: every option gives the
    Polars engine's frame exactly, per query and aggregated."""
    run, qrels = generated(7)
    names = MEASURES
    if options.get("ties") == "average":  # measures averaged in closed form, and an error
        with pytest.raises(ir.TieOrdersError, match="distinct orders of its tied documents"):
            on_spark(run, qrels, MEASURES, partitioned, **options)
        names = ["AP", "nDCG@10", "P@5", "RR", "RBP(p=0.8)", "recall_1000", "Rprec"]
    want = ir.evaluate(run, qrels, names, **options)
    got = on_spark(run, qrels, names, partitioned, **options)
    assert got.equals(want), (got, want)


def test_all_trec(partitioned: Any) -> None:
    """``-m all_trec`` (92 measures) per query at relevance level 2 with missing='zero',
    equal to the Polars engine's."""
    from polars_ireval.trec_eval import trec_items

    items, _ = trec_items(["all_trec"])
    names = [m for m in items if isinstance(m, ir.Measure)]
    run, qrels = generated(5)
    options: dict[str, Any] = {"per_query": True, "relevance_level": 2, "missing": "zero"}
    got = on_spark(run, qrels, names, partitioned, **options)
    assert got.height > 0 and got.equals(ir.evaluate(run, qrels, names, **options))


def test_spark_inputs(partitioned: Any) -> None:
    """Spark DataFrames (integer query ids, float scores) and a table name of the qrels, on
    trec_eval's test collection: the values of the same rows read by the Polars readers."""
    need_data()
    run = ir.read_run(TREC_TEST / "results.test")
    qrels = ir.read_qrels(TREC_TEST / "qrels.test")
    spark = partitioned
    numbered = run.with_columns(pl.col("query_id").cast(pl.Int64))
    run_sdf = spark.createDataFrame(numbered.to_arrow())
    qrels_sdf = spark.createDataFrame(qrels.to_arrow())
    qrels_sdf.createOrReplaceTempView("spark_polars_qrels")
    try:
        got = on_spark(run_sdf, "spark_polars_qrels", MEASURES, spark, relevance_level=2)
    finally:
        spark.catalog.dropTempView("spark_polars_qrels")
    assert got.equals(ir.evaluate(run, qrels, MEASURES, relevance_level=2))


def test_input_order_column(spark: Any) -> None:
    """``ties="input_order"``: a Spark run's ``input_order`` column orders the tied rows."""
    run, qrels = generated(3)
    run = run.with_row_index("input_order").with_columns(pl.col("input_order").cast(pl.Int64))
    shuffled = spark.createDataFrame(run.sample(fraction=1.0, shuffle=True, seed=1).to_arrow())
    names = ["AP", "nDCG@5", "RR"]
    options: dict[str, Any] = {"ties": "input_order", "per_query": True}
    got = on_spark(shuffled, qrels, names, spark, **options)
    assert got.equals(ir.evaluate(run.drop("input_order"), qrels, names, **options))
    without = spark.createDataFrame(run.drop("input_order").to_arrow())
    with pytest.raises(ir.ParameterError, match="input_order column"):
        on_spark(without, qrels, names, spark, **options)


def test_rank_column_and_missing_zero(spark: Any) -> None:
    """``ties="rank"``: the run's ``input_rank`` column orders each ranking; with
    ``missing="zero"`` the judged queries a run lacks are scored on the driver."""
    run, qrels = generated(4)
    rank = pl.int_range(pl.len()).over("run_id", "query_id").cast(pl.Int64) + 1
    run = run.with_columns(rank.reverse().over("run_id", "query_id").alias("input_rank"))
    names = ["AP", "nDCG@5", "num_rel", "P@5"]
    options: dict[str, Any] = {"ties": "rank", "missing": "zero", "per_query": True}
    got = on_spark(spark.createDataFrame(run.to_arrow()), qrels, names, spark, **options)
    assert got.equals(ir.evaluate(run, qrels, names, **options))


def test_bad_input_raises_the_readers_errors(spark: Any) -> None:
    """Bad rows are found where they are checked (the run's in the workers, the qrels on
    the driver) and raised as the readers' exceptions; missing='error' and 'zero' are
    handled on the driver (the judged query no partition holds scored there)."""
    qrels = spark.createDataFrame([("q", "d", 1)], ["query_id", "doc_id", "relevance"])
    cases = [
        ([("q", "d", 1.0), ("q", "d", 2.0)], ir.DuplicateError, "2 times"),
        ([("q", "d", float("nan"))], ir.ScoreError, "not finite"),
    ]
    for rows, error, message in cases:
        run = spark.createDataFrame(rows, "query_id string, doc_id string, score double")
        with pytest.raises(error, match=message):
            on_spark(run, qrels, ["AP"], spark)
    ok = spark.createDataFrame([("q", "d", 1.0)], ["query_id", "doc_id", "score"])
    half = spark.createDataFrame([("q", "d", 1.5)], ["query_id", "doc_id", "relevance"])
    with pytest.raises(ir.RelevanceError):
        on_spark(ok, half, ["AP"], spark)
    with pytest.raises(ir.SchemaError, match="score"):
        on_spark(ok.drop("score"), qrels, ["AP"], spark)
    judged = [("q", "d", 1), ("q2", "d", 1)]
    more = spark.createDataFrame(judged, ["query_id", "doc_id", "relevance"])
    with pytest.raises(ir.MissingQueryError, match="q2"):
        on_spark(ok, more, ["AP"], spark, missing="error")
    local_run = pl.DataFrame({"query_id": ["q"], "doc_id": ["d"], "score": [1.0]})
    local_qrels = pl.DataFrame(judged, schema=["query_id", "doc_id", "relevance"], orient="row")
    assert on_spark(ok, more, ["AP"], spark).equals(ir.evaluate(local_run, local_qrels, ["AP"]))
    zero = on_spark(ok, more, ["AP", "num_rel", "num_ret"], spark, missing="zero", per_query=True)
    assert zero.equals(
        ir.evaluate(
            local_run, local_qrels, ["AP", "num_rel", "num_ret"], missing="zero", per_query=True
        )
    )


@pytest.mark.parametrize("session", ["connect"], indirect=True)
def test_through_spark_connect(session: Any) -> None:
    """Through Spark Connect (the function runs in the server's Python workers)."""
    run, qrels = generated(2)
    names = ["AP", "nDCG@5", "P@3", "RR"]
    got = ir.evaluate(run, qrels, names, engine="spark-polars", con=session, per_query=True)
    assert type(got).__module__.startswith("pyspark.sql.connect")
    assert to_polars(got).equals(ir.evaluate(run, qrels, names, per_query=True))


@pytest.fixture
def session(request: pytest.FixtureRequest) -> Any:
    """The suite's classic session, or (``indirect`` parameter ``"connect"``) a Spark
    Connect session on the same JVM."""
    kind = getattr(request, "param", "classic")
    return request.getfixturevalue("spark" if kind == "classic" else "spark_connect")
