"""trec_eval's ``all`` lines: the per-query values combined exactly as trec_eval combines
them (:func:`aggregate`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval.errors import ParameterError
from polars_ireval.registry import MIN_GEO_MEAN, Measure


def aggregate(
    per_query: pl.DataFrame, measures: Sequence[Measure], ranked: Sequence[str] | None = None
) -> pl.DataFrame:
    """``measure, value``: per-query values combined exactly as trec_eval combines them.

    Each measure combines its values with :meth:`polars_ireval.registry.Measure.aggregate`,
    the library's one definition of trec_eval's aggregates: the sum (counts), or the mean
    or geometric mean, ``exp(Σ log(max(v, 1e-5)) / n)``, whose sum adds the values one
    after the other in query order as trec_eval does (a pairwise sum can miss its rounding
    at the 4th decimal). trec_eval's one exception: under ``-c``, a geometric mean counts
    ``log(1e-5)`` for each query the run lacks (not in ``ranked``), added in one step after
    the sum of the others, which is not what adding them in query order gives.

    Parameters
    ----------
    per_query
        ``query_id, measure, value``, queries in trec_eval's (string) order; every measure
        label is one of ``measures``'.
    measures
        The measures, whose declarations say how their values combine.
    ranked
        The queries the run ranks (default: all of ``per_query``'s).

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> gm = ir.parse_measure("gm_map")
    >>> values = pl.DataFrame({"query_id": ["1", "2", "3"], "measure": "gm_map",
    ...                        "value": [0.5, 0.2, 0.0]})
    >>> round(aggregate(values, [gm])["value"].item(), 6)  # (0.5 · 0.2 · 1e-5) ** (1/3)
    0.01
    >>> round(aggregate(values, [gm], ranked=["1", "2"])["value"].item(), 6)  # -c adds "3"
    0.01
    """
    labels = per_query["measure"].unique(maintain_order=True).to_list()
    if not labels:
        return pl.DataFrame(schema={"measure": pl.String, "value": pl.Float64})
    by_label = {m.label: m for m in measures}
    lacking = ranked is not None and not per_query[S.QUERY_ID].is_in(list(ranked)).all()
    exprs = []
    for label in labels:
        m = by_label.get(label)
        if m is None:
            raise ParameterError(f"aggregate: the values of {label!r} come with no measure")
        mine = pl.col("measure") == label
        values = pl.col("value").filter(mine)
        if lacking and m.defn.aggregate == "gmean":
            assert ranked is not None
            in_run = pl.col(S.QUERY_ID).filter(mine).is_in(list(ranked))
            value = _complete_gmean(values, in_run)
        else:
            value = m.aggregate(values)
        exprs.append(value.cast(pl.Float64).alias(label))
    return per_query.select(exprs).unpivot(variable_name="measure", value_name="value")


def _complete_gmean(values: pl.Expr, in_run: pl.Expr) -> pl.Expr:
    """trec_eval's geometric mean under ``-c``: ``exp((Σ_ranked log(max(v, 1e-5)) + k ·
    log(1e-5)) / n)`` for the ``k`` of the ``n`` queries the run lacks, the sum of the
    ranked ones taken in query order first."""
    log_sum = values.clip(lower_bound=MIN_GEO_MEAN).log().filter(in_run).cum_sum().last()
    missing = (~in_run).sum().cast(pl.Float64) * math.log(MIN_GEO_MEAN)
    n = values.len().cast(pl.Float64)
    return ((log_sum.fill_null(0.0) + missing) / n).exp()
