"""trec_eval's text output, byte for byte (trec_eval 9.0.8 layout).

trec_eval prints one line per (measure, query): ``%-22s\\t%s\\t%6.4f\\n`` (measure name padded
to 22 characters, query id or ``all``, value), counts with ``%ld`` and ``runid`` / ``relstring``
as text. With ``-q`` every query's lines come first (queries in string order, measures in
trec_eval's table order), then the ``all`` lines. ``runid``, ``num_q`` and the geometric means
(``gm_map``, ``gm_bpref``) print only in the summary; ``relstring`` only per query.

:func:`format_trec_eval` turns the long frames of :func:`polars_ireval.evaluate` (or of the
prefs / judgment-group evaluators) into that text. Under ``-Z`` every numeric name gets a
``Z`` in front and every value, counts included, prints with ``%6.4f``: :func:`read_zscores`
reads the z-score file, :func:`to_zscores` converts the per-query values and
:func:`zscore_summary` combines them. :func:`trec10_rbp` computes trec_eval 10.0's ``rbp``
and ``rbp_resid``, which differ from the registry's RBP.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import polars as pl

from polars_ireval import schema as S
from polars_ireval.measures._expr import exact_div
from polars_ireval.registry import Measure

#: Pseudo measures printed by trec_eval that are not numbers of :func:`evaluate`.
RUNID = "runid"
NUM_Q = "num_q"

#: One output item: a measure, ``"runid"``, ``"num_q"`` or a relstring label.
Item = Measure | str


def format_value(value: float | int | str, integer: bool = False) -> str:
    """A value as trec_eval prints it: ``%ld`` for counts, ``%6.4f`` otherwise, text as is."""
    if isinstance(value, str):
        return value
    if integer:
        return str(round(value))
    if math.isnan(value):  # C's printf shows the sign bit of a NaN (x86's 0/0 is -nan)
        return ("-nan" if math.copysign(1.0, value) < 0 else "nan").rjust(6)
    return f"{value:6.4f}"


def format_line(
    name: str, query_id: str, value: float | int | str, integer: bool = False, prefix: str = ""
) -> str:
    r"""One trec_eval output line (with its newline); ``prefix`` is ``"Z"`` under ``-Z``.

    >>> format_line("P_5", "301", 0.4)
    'P_5                   \t301\t0.4000\n'
    >>> format_line("num_ret", "all", -5.22587, prefix="Z")
    'Znum_ret               \tall\t-5.2259\n'
    """
    return f"{prefix}{name:<22}\t{query_id}\t{format_value(value, integer)}\n"


def _label(item: Item) -> str:
    return item if isinstance(item, str) else item.label


def _integer(item: Item, integers: Mapping[str, bool]) -> bool:
    if isinstance(item, str):
        return integers.get(item, item == NUM_Q)
    return item.defn.integer


def _per_query_only(item: Item, relstrings: Mapping[str, Mapping[str, str]]) -> bool:
    return isinstance(item, str) and item in relstrings


def _summary_only(item: Item) -> bool:
    if isinstance(item, str):
        return item in (RUNID, NUM_Q)
    return item.defn.aggregate == "gmean"


def format_trec_eval(
    items: Sequence[Item],
    summary: pl.DataFrame,
    per_query: pl.DataFrame | None = None,
    *,
    run_id: str = "",
    num_q: int = 0,
    relstrings: Mapping[str, Mapping[str, str]] | None = None,
    queries: Sequence[str] | None = None,
    show_summary: bool = True,
    integers: Mapping[str, bool] | None = None,
    zscore: bool = False,
) -> str:
    """trec_eval's stdout for one run.

    Parameters
    ----------
    items
        What to print, in order: :class:`Measure` objects, ``"runid"``, ``"num_q"``, or the
        labels of ``relstrings`` / of extra string-labelled measures (prefs, qrels_jg).
    summary
        ``measure, value`` (the ``all`` values).
    per_query
        ``query_id, measure, value`` (``-q``), or None.
    run_id, num_q
        The ``runid`` and ``num_q`` summary values.
    relstrings
        ``label -> {query_id: text}`` for relstring measures (printed per query only).
    queries
        The queries whose per-query lines are printed (default: every query of ``per_query``).
    show_summary
        Print the ``all`` lines (trec_eval ``-n`` turns them off).
    integers
        For string items: whether the value is a count.
    zscore
        The values are z-scores (trec_eval ``-Z``): every numeric line gets a ``Z`` before
        its name and prints with ``%6.4f``, counts and ``num_q`` included.
    """
    relstrings = relstrings or {}
    integers = integers or {}
    prefix = "Z" if zscore else ""

    def is_int(item: Item) -> bool:
        return not zscore and _integer(item, integers)

    out: list[str] = []
    if per_query is not None:
        values: dict[tuple[str, str], float] = {
            (q, m): v for q, m, v in per_query.select(S.QUERY_ID, "measure", "value").iter_rows()
        }
        if queries is None:
            queries = per_query[S.QUERY_ID].unique(maintain_order=True).to_list()
        for q in queries:
            for item in items:
                label = _label(item)
                if _summary_only(item):
                    continue
                if label in relstrings:
                    text = relstrings[label].get(q)
                    if text is not None:
                        out.append(format_line(label, q, f"'{text}'"))
                    continue
                v = values.get((q, label))
                if v is not None:
                    out.append(format_line(label, q, v, is_int(item), prefix))
    if show_summary:
        totals = dict(summary.select("measure", "value").iter_rows())
        for item in items:
            label = _label(item)
            if label == RUNID:
                out.append(format_line(RUNID, "all", run_id))
            elif label == NUM_Q:
                out.append(format_line(NUM_Q, "all", num_q, not zscore, prefix))
            elif _per_query_only(item, relstrings):
                continue
            elif label in totals and totals[label] is not None:
                out.append(format_line(label, "all", totals[label], is_int(item), prefix))
    return "".join(out)


# --------------------------------------------------------------------------- z-scores (-Z)

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
    from polars_ireval.errors import FormatError

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
    from polars_ireval.registry import MIN_GEO_MEAN

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


# --------------------------------------------------------------------------- trec_eval 10.0

#: trec_eval 10.0's persistence for ``rbp`` and ``rbp_resid`` (fixed in its sources).
TREC10_RBP_P = 0.9


def trec10_rbp(table: pl.DataFrame, p: float = TREC10_RBP_P) -> pl.DataFrame:
    """trec_eval 10.0's ``rbp`` and ``rbp_resid`` per query, from an evaluation table.

    They differ from ``RBP`` / ``RBP_resid`` of the registry, so they are computed here:

    * ``rbp`` = (1 - p) Σ_i g_i p^(i-1) with graded gains: a judged grade ``r >= 0`` gains
      ``r / G``, where ``G`` is the query's highest grade when it exceeds 1 (else 1);
      unjudged documents and negative grades gain 0. ``-l`` plays no part.
    * ``rbp_resid`` = p^n + (1 - p) Σ_{i unjudged} p^(i-1) over the ``n`` ranked documents,
      where negative grades count as unjudged; 0 when no ranked document is unjudged.

    Parameters
    ----------
    table
        From :func:`polars_ireval.judge` (one run).
    p
        Persistence; trec_eval 10.0 fixes it to 0.9.

    Returns
    -------
    polars.DataFrame
        ``query_id, measure, value`` with measures ``rbp`` and ``rbp_resid``.
    """
    rank, rel = pl.col(S.RANK), pl.col(S.RELEVANCE)
    ranked = rank.is_not_null()
    weight = pl.lit(p).pow(rank.cast(pl.Float64) - 1.0)
    top = pl.max_horizontal(rel.max().cast(pl.Float64), pl.lit(1.0))
    gain = pl.when(rel >= 0).then(rel.cast(pl.Float64)).otherwise(0.0) / top
    unjudged = ranked & (rel.is_null() | (rel < 0))
    n = ranked.sum().cast(pl.Float64)
    wide = table.group_by(S.QUERY_ID).agg(
        ((1.0 - p) * (gain * weight).filter(ranked).sum()).alias("rbp"),
        pl.when(unjudged.any())
        .then(pl.lit(p).pow(n) + (1.0 - p) * weight.filter(unjudged).sum())
        .otherwise(0.0)
        .alias("rbp_resid"),
    )
    return wide.unpivot(
        index=S.QUERY_ID, on=["rbp", "rbp_resid"], variable_name="measure", value_name="value"
    ).sort(S.QUERY_ID, maintain_order=True)
