"""Fusion on DuckDB and Spark (``sql/fusion.sql``) against the Polars engine: every method
the SQL computes x every normalisation x each policy for a document a run lacks, on
generated campaigns with tied scores, documents one run alone retrieved and queries some
runs lack; the fused score of every (query, document) to 1e-12 and the same ranking (the
sums add their terms in increasing order on every engine, so documents tied in exact
arithmetic tie everywhere and are ordered by ``ties=``). Then the macros called as SQL,
their failures, and the errors of the front door.
"""

from __future__ import annotations

import math
from typing import Any

import duckdb
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_ireval as ir
import polars_ireval.sql as irsql
from polars_ireval.fusion.fuse import METHODS, SQL_METHODS
from polars_ireval.fusion.normalize import NORMS

SCORE_BASED = [m for m in SQL_METHODS if not METHODS[m].rank_based]
TOLERANCE = 1e-12


@st.composite
def campaigns(draw: st.DrawFn) -> pl.DataFrame:
    """2 to 4 runs over up to 3 queries (a run may lack one); rankings of 1 to 6 documents
    of a pool of 8, scores from a few values (ties), negative ones too."""
    rows = []
    for r in range(draw(st.integers(2, 4))):
        for q in range(3):
            if draw(st.integers(0, 4)) == 0:
                continue
            docs = draw(st.lists(st.sampled_from([f"d{i}" for i in range(8)]), min_size=1,
                                 max_size=6, unique=True))  # fmt: skip
            for d in docs:
                rows.append((f"r{r}", f"q{q}", d, draw(st.integers(-3, 6)) / 4.0))
    if not rows:
        rows.append(("r0", "q0", "d0", 1.0))
        rows.append(("r1", "q0", "d1", 2.0))
    return pl.DataFrame(rows, schema=["run_id", "query_id", "doc_id", "score"], orient="row")


def agree(want: pl.DataFrame, got: pl.DataFrame, what: Any) -> None:
    """The same rows, scores to 1e-12 (relative to 1 or the score), the same ranks."""
    assert got.columns == want.columns, what
    joined = want.join(got, on=["query_id", "doc_id"], how="full", suffix="_sql")
    assert joined.height == want.height == got.height, what
    for row in joined.iter_rows(named=True):
        assert row["run_id"] == row["run_id_sql"], what
        assert math.isclose(row["score"], row["score_sql"], rel_tol=TOLERANCE,
                            abs_tol=TOLERANCE), (what, row)  # fmt: skip
        assert row["rank"] == row["rank_sql"], (what, row)


@pytest.fixture(scope="module")
def con() -> Any:
    c = irsql.load(duckdb.connect(), ["ireval_fuse", "ireval_normalize"])
    yield c
    c.close()


OPTIONS = st.fixed_dictionaries(
    {
        "method": st.sampled_from(SQL_METHODS),
        "norm": st.sampled_from([None, *(n for n in NORMS if n != "max")]),
        "missing": st.sampled_from(["skip", "zero", "min"]),
        "ties": st.sampled_from(["trec_eval", "doc_id_asc"]),
        "depth": st.sampled_from([None, None, 2]),
        "guard": st.sampled_from(["exact", "ranx"]),
        "queries": st.sampled_from(["union", "intersection"]),
    }
)


SLOW_OK = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=SLOW_OK)
@given(runs=campaigns(), options=OPTIONS)
def test_duckdb_fuses_as_polars(con: Any, runs: pl.DataFrame, options: dict[str, Any]) -> None:
    """ir.fuse(engine="duckdb") equals the Polars engine (150 generated campaigns and
    option sets)."""
    params = _params(options["method"], runs)
    try:
        want = ir.fuse(runs, **options, **params)
    except ir.ParameterError:  # e.g. norm='max' on a negative score: refused the same way
        with pytest.raises(ir.ParameterError):
            ir.fuse(runs, **options, **params, engine="duckdb", con=con)
        return
    agree(want, ir.fuse(runs, **options, **params, engine="duckdb", con=con), options)


def _params(method: str, runs: pl.DataFrame) -> dict[str, Any]:
    names = runs["run_id"].unique(maintain_order=True).to_list()
    weights = {n: 1.0 + 0.5 * i for i, n in enumerate(names)}
    return {
        "gmnz": {"gamma": 0.7},
        "rrf": {"k": 10, "weights": weights},
        "rbc": {"phi": 0.6},
        "logn_isr": {"sigma": 0.2},
        "wsum": {"weights": weights},
        "wmnz": {"weights": weights},
        "mixed": {"weights": weights},
        "w_bordafuse": {"weights": weights},
    }.get(method, {})


FIXED = pl.DataFrame(
    [
        (r, q, d, s)
        for r, q, d, s in zip(
            "aaaaaabbbbbcccc",
            ["q1"] * 3 + ["q2"] * 3 + ["q1"] * 2 + ["q2"] * 3 + ["q1"] * 2 + ["q2"] * 2,
            "xyzxwvyzwxuztuw",
            [3.0, 2.0, 2.0, 0.5, 0.25, 0.0, 9.0, 9.0, 4.0, 3.0, 1.0, 0.7, 0.2, 5.0, 5.0],
            strict=True,
        )
    ],
    schema=["run_id", "query_id", "doc_id", "score"],
    orient="row",
)


@pytest.mark.parametrize("method", SQL_METHODS)
@pytest.mark.parametrize("norm", [None, *NORMS])
def test_every_method_and_norm_on_duckdb(con: Any, method: str, norm: str | None) -> None:
    """Every SQL method x every normalisation on one campaign with tied scores (a run's
    equal scores, equal fused scores), each query in every run."""
    params = _params(method, FIXED)
    want = ir.fuse(FIXED, method, norm=norm, **params)
    agree(want, ir.fuse(FIXED, method, norm=norm, **params, engine="duckdb", con=con), norm)


@pytest.mark.parametrize("method", SCORE_BASED)
@pytest.mark.parametrize("missing", ["zero", "min"])
def test_missing_documents_on_duckdb(con: Any, method: str, missing: str) -> None:
    params = _params(method, FIXED)
    want = ir.fuse(FIXED, method, missing=missing, **params)
    got = ir.fuse(FIXED, method, missing=missing, **params, engine="duckdb", con=con)
    agree(want, got, missing)


def test_mathematical_ties_tie_on_every_engine(con: Any) -> None:
    """RRF (k = 60) of three runs ranking x at 1, 2, 8 and y at 8, 1, 2: added in the runs'
    order, 1/61 + 1/62 + 1/68 and 1/68 + 1/61 + 1/62 differ in the last bit; added in
    increasing order, on every engine, x and y tie and are ranked by doc_id (descending:
    y first), whatever the order of the rows."""
    fill = [f"m{i}" for i in range(1, 7)]
    orders = {"a": ["x", *fill, "y"], "b": ["y", "x"], "c": ["m1", "y", *fill[1:], "x"]}
    runs = pl.DataFrame(
        [
            (r, "q", d, float(len(docs) - i))
            for r, docs in orders.items()
            for i, d in enumerate(docs)
        ],
        schema=["run_id", "query_id", "doc_id", "score"],
        orient="row",
    )
    assert 1 / 61 + 1 / 62 + 1 / 68 != 1 / 68 + 1 / 61 + 1 / 62  # the premise
    for engine in ("polars", "duckdb"):
        on = {"engine": engine, "con": con if engine == "duckdb" else None}
        fused = ir.fuse(runs, "rrf", **on)
        x, y = (fused.filter(pl.col("doc_id") == d)["score"].item() for d in "xy")
        assert x == y, engine
        assert fused["doc_id"].to_list()[:2] == ["y", "x"], engine
        assert ir.fuse(runs.reverse(), "rrf", **on).equals(fused), engine


@pytest.mark.parametrize("norm", NORMS)
def test_normalize_on_duckdb(con: Any, norm: str) -> None:
    runs = FIXED.with_columns(pl.col("score").abs())
    want = ir.normalize(runs, norm).sort("run_id", "query_id", "doc_id")
    got = ir.normalize(runs, norm, engine="duckdb", con=con).sort("run_id", "query_id", "doc_id")
    assert got.select(want.columns).drop("score").equals(want.drop("score"))
    assert (got["score"] - want["score"]).abs().max() <= TOLERANCE


def test_normalize_one_run_on_duckdb(con: Any) -> None:
    run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"], "score": [4.0, 2.0, 1.0]})
    got = ir.normalize(run, "min-max", engine="duckdb", con=con)
    assert got.columns == ["query_id", "doc_id", "score"]
    assert got["score"].to_list() == [1.0, 1 / 3, 0.0]


def test_macros_called_as_sql(con: Any) -> None:
    """The macros read a table of runs (a weight column optional) and take their options
    by name; the result is a run."""
    con.register("campaign", FIXED.to_arrow())
    rows = con.sql(
        "SELECT doc_id, rank FROM ireval_fuse('campaign', method := 'rrf', k := 0) "
        "WHERE query_id = 'q1' ORDER BY rank"
    ).fetchall()
    want = ir.fuse(FIXED, "rrf", k=0).filter(pl.col("query_id") == "q1")
    assert rows == list(zip(want["doc_id"], want["rank"], strict=True))
    weighted = FIXED.with_columns(weight=pl.when(pl.col("run_id") == "a").then(2.0).otherwise(1.0))
    con.register("weighted", weighted.to_arrow())
    got = pl.from_arrow(
        con.sql("SELECT * FROM ireval_fuse('weighted', method := 'wsum')").to_arrow_table()
    )
    assert isinstance(got, pl.DataFrame)
    agree(ir.fuse(FIXED, "wsum", weights={"a": 2.0, "b": 1.0, "c": 1.0}), got, "weights")


def test_macros_fail_as_the_front_door(con: Any) -> None:
    short = FIXED.filter(~((pl.col("run_id") == "c") & (pl.col("query_id") == "q2")))
    con.register("short", short.to_arrow())
    with pytest.raises(duckdb.Error, match="query 'q2' is in 2 of the 3 runs: pass queries"):
        con.sql("SELECT * FROM ireval_fuse('short')").fetchall()
    with pytest.raises(ir.MissingQueryError, match="not in every run"):
        ir.fuse(short, engine="duckdb", con=con)
    negative = FIXED.with_columns(pl.col("score") - 1.0)
    con.register("negative", negative.to_arrow())
    with pytest.raises(duckdb.Error, match="norm 'max' divides by the maximum"):
        con.sql("SELECT * FROM ireval_fuse('negative', method := 'sum', norm := 'max')").fetchall()
    with pytest.raises(ir.ParameterError, match="norm='max' divides by the maximum"):
        ir.fuse(negative, "sum", norm="max", engine="duckdb", con=con)
    with pytest.raises(duckdb.Error, match=r"ireval_fuse: k := -1 is invalid"):
        con.sql("SELECT * FROM ireval_fuse('negative', k := -1)").fetchall()
    with pytest.raises(duckdb.Error, match=r"ireval_fuse: method := 'combsum' is invalid"):
        con.sql("SELECT * FROM ireval_fuse('negative', method := 'combsum')").fetchall()


@pytest.mark.parametrize(
    "call,error,match",
    [
        (lambda: ir.fuse(FIXED, "rrf", k=-1, engine="duckdb"), ir.ParameterError, "k=-1"),
        (lambda: ir.fuse(FIXED, "copeland", engine="duckdb"), ir.ParameterError,
         "Polars engine only"),
        (lambda: ir.fuse(FIXED, engine="sqlite"), ir.ParameterError, "engine='sqlite'"),
        (lambda: ir.fuse(FIXED.filter(pl.col("run_id") == "a"), engine="duckdb"),
         ir.ParameterError, "fusion takes two or more"),
        (lambda: ir.fuse(FIXED, "wsum", weights=[1.0], engine="duckdb"), ir.ParameterError,
         "1 for 3 runs"),
        (lambda: ir.fuse(FIXED.with_columns(score=pl.lit(float("nan"))), engine="duckdb"),
         ir.ScoreError, "score nan .* is not finite"),
    ],
)  # fmt: skip
def test_front_door_errors_on_duckdb(call: Any, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        call()


# --------------------------------------------------------------------------- Spark

#: A case of each branch of the SQL (the DuckDB tests above cover every combination of the
#: same templates; a Spark call costs seconds).
SPARK_CASES = [
    {"method": "rrf"},
    {"method": "sum", "norm": "borda"},
    {"method": "med", "missing": "min"},
    {"method": "mnz", "missing": "zero", "norm": "zmuv", "guard": "ranx"},
    {"method": "bordafuse", "ties": "doc_id_asc"},
    {"method": "median_rank", "depth": 2},
    {"method": "logn_isr", "norm": "min-max-inverted"},
    {"method": "dbsf"},
]


def test_spark_fuses_as_polars(spark: Any) -> None:
    """ir.fuse(engine="spark") equals the Polars engine on every SQL method and
    normalisation (the campaign handed over from Polars, and read as a Spark DataFrame)."""
    frames = {}
    for i, case in enumerate(SPARK_CASES):
        params = _params(case["method"], FIXED)
        fused = ir.fuse(FIXED, **case, **params, engine="spark", con=spark, name=f"c{i}")
        frames[i] = fused
    union = frames[0]
    for frame in list(frames.values())[1:]:
        union = union.unionByName(frame)
    got = pl.from_arrow(union.toArrow())
    assert isinstance(got, pl.DataFrame)
    for i, case in enumerate(SPARK_CASES):
        want = ir.fuse(FIXED, **case, **_params(case["method"], FIXED), name=f"c{i}")
        agree(want, got.filter(pl.col("run_id") == f"c{i}").sort("query_id", "rank"), case)
    native = spark.createDataFrame(FIXED.to_arrow())
    fused = ir.fuse(native, "rrf", engine="spark", con=spark)
    agree(ir.fuse(FIXED, "rrf"), pl.from_arrow(fused.toArrow()).sort("query_id", "rank"), "native")


def test_spark_normalizes_as_polars(spark: Any) -> None:
    runs = FIXED.with_columns(pl.col("score").abs())
    for norm in ("zmuv", "borda", "min-max-inverted"):
        want = ir.normalize(runs, norm).sort("run_id", "query_id", "doc_id")
        got = pl.from_arrow(ir.normalize(runs, norm, engine="spark", con=spark).toArrow())
        assert isinstance(got, pl.DataFrame)
        got = got.sort("run_id", "query_id", "doc_id")
        assert (got["score"] - want["score"]).abs().max() <= TOLERANCE, norm


def test_spark_checks_its_runs(spark: Any) -> None:
    short = FIXED.filter(~((pl.col("run_id") == "c") & (pl.col("query_id") == "q2")))
    with pytest.raises(ir.MissingQueryError, match="not in every run"):
        ir.fuse(spark.createDataFrame(short.to_arrow()), engine="spark", con=spark)
    bad = FIXED.with_columns(score=pl.when(pl.col("doc_id") == "x").then(float("nan"))
                             .otherwise(pl.col("score")))  # fmt: skip
    with pytest.raises(ir.ScoreError, match="NaN"):
        ir.fuse(spark.createDataFrame(bad.to_arrow()), engine="spark", con=spark)
    negative = spark.createDataFrame(FIXED.with_columns(pl.col("score") - 1.0).to_arrow())
    with pytest.raises(ir.ParameterError, match="norm='max' divides by the maximum"):
        ir.fuse(negative, "sum", norm="max", engine="spark", con=spark)
    twice = pl.concat([FIXED, FIXED.head(1)])
    with pytest.raises(ir.DuplicateError, match="twice"):
        ir.fuse(spark.createDataFrame(twice.to_arrow()), engine="spark", con=spark)
