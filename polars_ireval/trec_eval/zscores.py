"""trec_eval's ``-Z``: the z-score file (:func:`read_zscores`), per-query values turned into
z-scores (:func:`to_zscores`) and their ``all`` lines (:func:`zscore_summary`)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval.errors import FormatError
from polars_ireval.measures._expr import exact_div
from polars_ireval.registry import MIN_GEO_MEAN

#: What trec_eval prints for a z-score it cannot compute (``MISSING_ZSCORE_VALUE``).
MISSING_ZSCORE = -1000000.0
ZSCORE_SCHEMA = {
    S.QUERY_ID: pl.String,
    "measure": pl.String,
    "mean": pl.Float64,
    "stddev": pl.Float64,
}


def read_zscores(path: str) -> pl.DataFrame:
    """Read a trec_eval z-score file: lines ``qid measure mean stddev``.

    Fields are separated by any whitespace; ``nan`` is a valid number (trec_eval's own test
    file uses it). Blank lines are skipped. A line with another number of fields, a value
    that is not a number, or a (query, measure) given twice raises :class:`FormatError`
    naming the file and line.

    Returns
    -------
    polars.DataFrame
        ``query_id, measure, mean, stddev``.
    """
    with open(path, encoding="utf-8", errors="strict") as f:
        text = f.read()
    lines = pl.DataFrame({"text": text.splitlines()}, schema={"text": pl.String})
    lines = lines.with_row_index("line", offset=1).filter(pl.col("text").str.strip_chars() != "")
    parts = lines.select(
        "line", pl.col("text").str.strip_chars().str.extract_all(r"\S+").alias("f")
    )
    bad = parts.filter(pl.col("f").list.len() != 4).head(1)
    if bad.height:
        line, got = bad["line"][0], bad["f"][0].to_list()
        raise FormatError(
            path,
            line,
            f"expected 4 fields 'qid measure mean stddev', found {len(got)}: {got}; "
            "fields are separated by spaces or tabs",
        )
    table = parts.select(
        "line",
        pl.col("f").list.get(0).alias(S.QUERY_ID),
        pl.col("f").list.get(1).alias("measure"),
        pl.col("f").list.get(2).alias("mean_text"),
        pl.col("f").list.get(3).alias("stddev_text"),
    ).with_columns(
        pl.col("mean_text").str.to_lowercase().cast(pl.Float64, strict=False).alias("mean"),
        pl.col("stddev_text").str.to_lowercase().cast(pl.Float64, strict=False).alias("stddev"),
    )
    for col in ("mean", "stddev"):
        bad = table.filter(pl.col(col).is_null()).head(1)
        if bad.height:
            raise FormatError(
                path,
                bad["line"][0],
                f"{col} {bad[col + '_text'][0]!r} is not a number; each line must be "
                "'qid measure mean stddev' with decimal numbers such as 0.25 (or nan)",
            )
    dup = table.filter(~pl.struct(S.QUERY_ID, "measure").is_first_distinct()).head(1)
    if dup.height:
        raise FormatError(
            path,
            dup["line"][0],
            f"query {dup[S.QUERY_ID][0]!r}, measure {dup['measure'][0]!r} is given twice; "
            "keep one line per query and measure",
        )
    if table.height == 0:
        raise FormatError(path, None, "the z-score file holds no 'qid measure mean stddev' line")
    return table.select(list(ZSCORE_SCHEMA))


def to_zscores(
    per_query: pl.DataFrame,
    zscores: pl.DataFrame,
    *,
    ranked: Sequence[str],
    gmean: Sequence[str] = (),
) -> pl.DataFrame:
    """Per-query values as trec_eval ``-Z`` turns them into z-scores.

    For a query the run ranks, the value ``v`` of a measure becomes ``(v - mean) / stddev``
    with the mean and standard deviation the z-score file gives for that query and measure;
    when the standard deviation is 0, ``0`` if ``v`` equals the mean and ``-1000000``
    otherwise; ``-1000000`` when the file has no line for them. Geometric-mean measures
    (``gmean`` labels) are converted from ``log(max(v, 1e-5))``, the value trec_eval stores
    for them. Queries scored only because of ``-c`` (not in ``ranked``) stay unconverted:
    0, or ``log(1e-5)`` for geometric means, as trec_eval adds them when averaging.

    Parameters
    ----------
    per_query
        ``query_id, measure, value``.
    zscores
        From :func:`read_zscores`.
    ranked
        The queries the run ranks.
    gmean
        Labels of measures averaged geometrically.
    """
    value = pl.col("value")
    is_gm = pl.col("measure").is_in(list(gmean))
    raw = pl.when(is_gm).then(value.clip(lower_bound=MIN_GEO_MEAN).log()).otherwise(value)
    mean, std = pl.col("mean"), pl.col("stddev")
    z = (
        pl.when(~pl.col(S.QUERY_ID).is_in(list(ranked)))
        .then(pl.when(is_gm).then(pl.lit(math.log(MIN_GEO_MEAN))).otherwise(0.0))
        .when(mean.is_null())
        .then(MISSING_ZSCORE)
        .when(std.is_nan() | (std != 0))
        .then((raw - mean) / std)
        .when(raw == mean)
        .then(0.0)
        .otherwise(MISSING_ZSCORE)
    )
    return per_query.join(zscores, on=[S.QUERY_ID, "measure"], how="left").select(
        S.QUERY_ID, "measure", z.alias("value")
    )


def zscore_summary(
    zvalues: pl.DataFrame, aggregates: Mapping[str, str], num_queries: int
) -> pl.DataFrame:
    """The ``all`` lines under ``-Z``: each measure's z-scores combined as trec_eval does.

    ``sum`` measures add them up; ``mean`` measures divide the sum by ``num_queries``
    (every evaluated query; with ``-c`` every judged query); ``gmean`` measures take
    ``exp(sum / num_queries)`` of the converted logarithms.
    """
    kind = pl.col("measure").replace_strict(aggregates, default="mean")
    total = zvalues.group_by("measure", maintain_order=True).agg(
        pl.col("value").cum_sum().last().alias("total")  # sequential, as trec_eval adds
    )
    n = float(max(num_queries, 1))
    return total.select(
        "measure",
        pl.when(kind == "sum")
        .then(pl.col("total"))
        .when(kind == "gmean")
        .then(exact_div(pl.col("total"), n).exp())
        .otherwise(exact_div(pl.col("total"), n))
        .alias("value"),
    )
