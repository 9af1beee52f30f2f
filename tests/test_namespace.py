"""The ``ireval`` namespace checks the evaluation table it is given: a table made by hand
(not by ``judge``) with a float grade, a rank below 1 or a rank held twice would otherwise
be scored (a NaN grade compares as relevant: P@4 and AP of 1.0)."""

from __future__ import annotations

import re

import polars as pl
import pytest

import polars_ireval as ir

RUN = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c", "d"], "score": [4.0, 3, 2, 1]})
QRELS = pl.DataFrame({"query_id": "q", "doc_id": ["a", "c", "z"], "relevance": [1, 2, 0]})
TABLE = ir.judge(RUN, QRELS)


def test_a_judged_table_is_scored_eager_and_lazy() -> None:
    want = ir.evaluate(RUN, QRELS, ["P@2", "AP"], per_query=True)["value"].to_list()
    for frame in (TABLE, TABLE.lazy()):
        got = frame.ireval.measures("P@2 AP")
        got = got.collect() if isinstance(got, pl.LazyFrame) else got
        assert got.row(0) == ("q", *want)


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        (pl.lit(float("nan")).alias("relevance"), ir.SchemaError,
         "column 'relevance' has type Float64; it must hold integers"),
        (pl.col("rank").cast(pl.Float64) + 0.5, ir.SchemaError, "column 'rank' has type Float64"),
        (pl.col("query_id").cast(pl.Categorical), ir.SchemaError,
         "column 'query_id' has type Categorical; ids are strings"),
        (pl.col("rank") - 1, ir.SchemaError,
         "ranks document 'a' at 0 (query 'q'); ranks start at 1"),
        (pl.lit(1, pl.UInt32).alias("rank"), ir.DuplicateError, "both at rank 1 (query 'q')"),
    ],
    ids=["NaN grade", "float rank", "categorical ids", "rank 0", "one rank twice"],
)  # fmt: skip
def test_a_table_the_measures_cannot_read_is_refused(
    change: pl.Expr, error: type[Exception], message: str
) -> None:
    bad = TABLE.with_columns(change)
    with pytest.raises(error, match=re.escape(message)):
        bad.ireval.measures("P@4 AP")
    lazy = bad.lazy()  # the same error: the schema at once, the values when collected
    with pytest.raises(error, match=re.escape(message)):
        lazy.ireval.measures("P@4 AP").collect()


def test_missing_columns_and_duplicates_name_the_fix() -> None:
    with pytest.raises(
        ir.SchemaError, match=r"lacks column\(s\) \['rank', 'relevance'\].*ir\.judge"
    ):
        RUN.ireval.measures("P@2")
    with pytest.raises(ir.DuplicateError, match="holds document 'a' twice"):
        pl.concat([TABLE, TABLE.filter(pl.col("doc_id") == "a")]).ireval.measures("P@2")
    with pytest.raises(ir.ParameterError, match=r"relevance_level=1\.5: must be an integer"):
        TABLE.ireval.measures("P@2", relevance_level=1.5)  # type: ignore[arg-type]


def test_condense_checks_its_table() -> None:
    with pytest.raises(ir.SchemaError, match=r"lacks column\(s\) \['rank'\]"):
        ir.condense(QRELS)
    with pytest.raises(ir.SchemaError, match=r"not a pandas\.DataFrame"):
        ir.condense(TABLE.to_pandas())
    condensed = ir.condense(TABLE).sort("rank", nulls_last=True)
    assert condensed.select("doc_id", "rank").rows() == [("a", 1), ("c", 2), ("z", None)]
