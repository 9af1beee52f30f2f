"""Reading a frame of per-query scores (``results``) for a comparison: the columns, the
checks of the scores, the missing-query policy, the runs x queries matrices, and the
choices and names (run ids, pairs, measures) the callers pass.

:func:`polars_ireval.compare` and :func:`polars_ireval.report` read their ``results``
with the same functions, so that a report's means are over the topics its comparison used.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import polars as pl

from polars_ireval._base.numeric import is_integer, is_number
from polars_ireval._base.options import MISSING as MISSING
from polars_ireval._base.options import Missing as Missing
from polars_ireval.errors import (
    DuplicateError,
    EmptyInputError,
    MissingQueryError,
    ParameterError,
    SchemaError,
    ScoreError,
)

Alternative = Literal["two-sided", "greater", "less"]

#: The alternatives of a test (``alternative=``), as scipy names them.
ALTERNATIVES: tuple[str, ...] = ("two-sided", "greater", "less")
#: Columns derived from the residual: ``missing="zero"`` cannot invent them.
RESIDUAL_COLUMNS = ("residual", "upper", "projected")


@dataclass(frozen=True)
class Matrices:
    """One measure's scores: rows are runs, columns queries (common to every row)."""

    measure: str
    runs: list[str]
    queries: list[str]
    xa: np.ndarray  # column `a`
    xb: np.ndarray  # column `b` (the same array when a == b)


def choice(value: Any, choices: Sequence[str], what: str, aliases: dict[str, str]) -> str:
    """``value`` as one of ``choices`` (case, spaces and ``-``/``_`` aside but for the
    alternative, whose names have ``-``; ``aliases`` map other names to them), or a
    ParameterError naming ``what``, the closest choice and the choices.

    >>> choice("Holm", ["none", "holm"], "correction", {})
    'holm'
    """
    if isinstance(value, str):
        key = value.strip().lower().replace("-", "_") if what != "alternative" else value
        key = aliases.get(key, key)
        if key in choices:
            return key
    close = difflib.get_close_matches(str(value), list(choices), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ParameterError(f"{what}={value!r} is unknown{hint}; use one of {list(choices)}")


def check_level(x: Any, name: str) -> None:
    """Refuse ``x`` unless it is a number strictly between 0 and 1 (a level, a power)."""
    if not is_number(x) or not 0 < float(x) < 1:
        raise ParameterError(f"{name}={x!r}: must be a number strictly between 0 and 1")


def collect(
    frame: Any,
    *,
    a: str,
    b: str,
    run_col: str,
    query_col: str,
    measure_col: str,
) -> pl.DataFrame:
    """The columns a comparison reads, collected (a LazyFrame is collected here: the
    statistics need every query of a run at once), with ``__a`` and ``__b`` computed."""
    if isinstance(frame, pl.LazyFrame):
        schema = frame.collect_schema()
    elif isinstance(frame, pl.DataFrame):
        schema = frame.schema
    else:
        raise SchemaError(
            f"compare takes a Polars DataFrame or LazyFrame of per-query scores, not "
            f"{type(frame).__name__}; use ir.evaluate(runs, qrels, measures, per_query=True)"
        )
    names = list(schema.names())
    if query_col not in names:
        raise SchemaError(
            f"the frame has no {query_col!r} column (columns: {names}): compare needs "
            "per-query scores; evaluate with per_query=True (or pass query_col=)"
        )
    if run_col not in names:
        raise SchemaError(
            f"the frame has no {run_col!r} column (columns: {names}): compare needs two "
            "runs or more; evaluate several runs (or pass run_col=)"
        )

    def source(col: str) -> pl.Expr:
        if col in names:
            if not schema[col].is_numeric():
                raise SchemaError(f"column {col!r} holds {schema[col]}, not numbers")
            return pl.col(col).cast(pl.Float64)
        if col == "upper" and "value" in names and "residual" in names:
            return pl.col("value").cast(pl.Float64) + pl.col("residual").cast(pl.Float64)
        hint = (
            "; 'upper' is value + residual: evaluate with residuals=True"
            if col in RESIDUAL_COLUMNS
            else ""
        )
        raise SchemaError(f"the frame has no column {col!r} (columns: {names}){hint}")

    measure = (
        pl.col(measure_col).cast(pl.String)
        if measure_col in names
        else pl.lit(a if a == b else f"{a}/{b}")
    )
    lf = frame.lazy() if isinstance(frame, pl.DataFrame) else frame
    df = lf.select(
        pl.col(run_col).cast(pl.String).alias("run"),
        pl.col(query_col).cast(pl.String).alias("query"),
        measure.alias("measure"),
        source(a).alias("__a"),
        source(b).alias("__b"),
    ).collect()
    if measure_col not in names:  # one measure, so one score per (run, query)
        dup = df.filter(pl.struct("run", "query").is_duplicated())
        if dup.height:
            row = dup.row(0, named=True)
            raise DuplicateError(
                f"the frame has no {measure_col!r} column but several scores per (run, query), "
                f"e.g. run {row['run']!r}, query {row['query']!r}: pass measure_col= the column "
                "naming the measures (or keep one row per run and query)"
            )
    return df


#: The largest score magnitude :func:`compare` takes: beyond it, the squares its variances
#: sum overflow 64-bit floats (NaN deltas, or a t statistic of 0 and p = 1, silently), up to
#: ten million topics. Test statistics and p-values do not change when scores are divided by
#: a constant.
LARGEST_SCORE = 1e150


def check_values(df: pl.DataFrame, a: str, b: str) -> None:
    """Duplicates, NaN/inf and scores beyond ``LARGEST_SCORE`` are errors; nulls are
    missing scores (the missing policy)."""
    fixes = {
        "run": ("run id", ""),
        "query": ("query id", ""),
        "measure": ("measure", " (fill it, or pass measure_col= the column naming them)"),
    }
    for col, (what, fix) in fixes.items():
        if df[col].null_count():
            raise SchemaError(
                f"the {what} column holds {df[col].null_count()} null(s); every score needs "
                f"a {col}{fix}"
            )
    dup = df.filter(pl.struct("run", "query", "measure").is_duplicated())
    if dup.height:
        row = dup.row(0, named=True)
        constant = (
            f"; the measure column holds one value ({row['measure']!r}) on every row: if it "
            "does not name the measures, pass measure_col= the column that does"
            if df["measure"].n_unique() == 1
            else ""
        )
        raise DuplicateError(
            f"{dup.height} rows share their (run, query, measure), e.g. run {row['run']!r}, "
            f"query {row['query']!r}, measure {row['measure']!r}; "
            f"keep one row per run, query and measure{constant}"
        )
    for col, name in (("__a", a), ("__b", b)):
        bad = df.filter(pl.col(col).is_nan() | pl.col(col).is_infinite())
        if bad.height:
            row = bad.row(0, named=True)
            raise ScoreError(
                f"column {name!r} holds {bad.height} NaN or infinite value(s), e.g. run "
                f"{row['run']!r}, query {row['query']!r}, measure {row['measure']!r}: "
                f"{row[col]}; fix or drop them (a query a run lacks is a missing row, "
                "see missing=)"
            )
    for col, name in (("__a", a), ("__b", b)):
        bad = df.filter(pl.col(col).abs() > LARGEST_SCORE)
        if bad.height:
            row = bad.sort(pl.col(col).abs(), descending=True).row(0, named=True)
            scale = 10.0 ** min(308, math.ceil(math.log10(abs(row[col]))))
            raise ScoreError(
                f"column {name!r} holds {bad.height} value(s) beyond +-{LARGEST_SCORE:g}, e.g. "
                f"run {row['run']!r}, query {row['query']!r}, measure {row['measure']!r}: "
                f"{row[col]!r}; the differences and variances of such scores overflow 64-bit "
                f"floats: divide the scores by a constant, e.g. pl.col({name!r}) / {scale:g} "
                "(test statistics and p-values stay the same, means and deltas scale with it)"
            )


def matrices(
    df: pl.DataFrame,
    measure: str,
    runs: list[str],
    *,
    a: str,
    b: str,
    missing: str,
) -> Matrices:
    """The runs x queries matrices of one measure, after the missing-query policy."""
    sub = df.filter((pl.col("measure") == measure) & pl.col("run").is_in(runs))
    queries = sorted(sub["query"].unique().to_list())
    if len(queries) < 2:
        raise EmptyInputError(
            f"measure {measure!r} has {len(queries)} query; a comparison needs at least 2 "
            "topics (queries) scored for the runs"
        )
    ri = sub["run"].cast(pl.Enum(runs)).to_physical().to_numpy()
    qi = sub["query"].cast(pl.Enum(queries)).to_physical().to_numpy()
    shape = (len(runs), len(queries))
    xa = np.full(shape, np.nan)
    xb = np.full(shape, np.nan)
    xa[ri, qi] = sub["__a"].fill_null(np.nan).to_numpy()
    xb[ri, qi] = sub["__b"].fill_null(np.nan).to_numpy()
    lacking = np.isnan(xa) | np.isnan(xb)
    if lacking.any():
        if missing == "error":
            rr, qq = np.nonzero(lacking)
            shown = ", ".join(
                f"{runs[r]!r} lacks query {queries[q]!r}"
                for r, q in zip(rr[:5], qq[:5], strict=True)
            )
            more = f" and {len(rr) - 5} more" if len(rr) > 5 else ""
            raise MissingQueryError(
                f"measure {measure!r}: {len(rr)} (run, query) score(s) missing: {shown}{more}; "
                "pass missing='skip' to compare on the queries every run has, or "
                "missing='zero' to score them 0 (or evaluate with missing='zero')"
            )
        if missing == "skip":
            keep = ~lacking.any(axis=0)
            if keep.sum() < 2:
                raise EmptyInputError(
                    f"measure {measure!r}: the runs have {int(keep.sum())} query in common; a "
                    "comparison needs at least 2"
                )
            queries = [q for q, k in zip(queries, keep, strict=True) if k]
            xa, xb = xa[:, keep], xb[:, keep]
        else:  # zero
            for x, name in ((xa, a), (xb, b)):
                gaps = np.isnan(x)
                if gaps.any() and name in RESIDUAL_COLUMNS:
                    raise ParameterError(
                        f"missing='zero' cannot score {name!r} for the {int(gaps.sum())} missing "
                        f"(run, query) score(s) of {measure!r}: its residual is unknown; "
                        "evaluate with missing='zero' (which computes it) or use "
                        "missing='skip'"
                    )
                x[gaps] = 0.0
    return Matrices(measure, runs, queries, xa, xa if a == b else xb)


def chosen_measures(
    df: pl.DataFrame, measures: str | Sequence[str] | None, *, residual: bool
) -> list[str]:
    """The measures to compare. Comparing a residual column (``residual``, ``upper``,
    ``projected``), the default is the measures that have residuals (null elsewhere)."""
    present = df["measure"].unique(maintain_order=True).to_list()
    if not present:
        raise EmptyInputError("the frame holds no scores: nothing to compare")
    scored = present
    if residual:
        has = df.group_by("measure", maintain_order=True).agg(
            (pl.col("__a").is_not_null().any() & pl.col("__b").is_not_null().any()).alias("ok")
        )
        scored = has.filter("ok")["measure"].to_list()
    if measures is None:
        if not scored:
            raise SchemaError(
                f"no measure of the frame ({present}) has residuals; evaluate with "
                "residuals=True a measure that has one (RBP, P, SDCG, the C/W/L measures)"
            )
        return scored
    wanted = [measures] if isinstance(measures, str) else list(measures)
    if not wanted:
        raise ParameterError("measures=[]: name at least one measure (or None for all)")
    for m in wanted:
        if m not in present:
            raise ParameterError(f"measure {m!r} is not in the frame; it holds {present}")
        if m not in scored:
            raise SchemaError(
                f"measure {m!r} has no residual (null), so no 'upper' or 'projected' score; "
                f"the measures with residuals here: {scored}"
            )
    return wanted


def not_a_run(name: Any, runs: Sequence[str], what: str) -> str:
    """The message for ``what=name`` not among ``runs``, with the closest run ids."""
    lower = {r.lower(): r for r in runs}
    close = [lower[c] for c in difflib.get_close_matches(str(name).lower(), list(lower), n=3)]
    hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
    shown = ", ".join(map(repr, runs[:8])) + (f" and {len(runs) - 8} more" if len(runs) > 8 else "")
    return f"{what}={name!r} is not among the runs ({shown}){hint}"


def is_run_id(x: Any) -> bool:
    """Whether ``x`` can name a run: a str, or an integer (read as its decimal text)."""
    return isinstance(x, str) or is_integer(x)


def run_name(x: Any, runs: Sequence[str], what: str) -> str:
    """A run id as the frame holds it (ids are read as strings): a str, or an integer
    read as its decimal text (``1`` names the run ``'1'``)."""
    if not is_run_id(x):
        raise ParameterError(
            f"{what}={x!r}: a run id is a str (or an integer, read as its decimal text)"
        )
    name = x if isinstance(x, str) else str(int(x))
    if name not in runs:
        raise ParameterError(not_a_run(x, runs, what))
    return name


def chosen_runs(all_runs: list[str], run_ids: Any) -> list[str]:
    """``run_ids=``: a list of run ids, or one id (a str is one run, not its characters)."""
    if run_ids is None:
        return all_runs
    if isinstance(run_ids, str):
        run_ids = [run_ids]
    if isinstance(run_ids, Mapping) or not isinstance(run_ids, Iterable):
        raise ParameterError(f"run_ids={run_ids!r}: give a run id or a list of run ids")
    return list(dict.fromkeys(run_name(r, all_runs, "run_ids") for r in run_ids))


def chosen_pairs(pairs: Any, runs: list[str]) -> list[tuple[str, str]]:
    """``pairs=``: a list of ``(run_a, run_b)``, or one pair (``("bm25", "dense")``)."""
    if isinstance(pairs, (tuple, list)) and len(pairs) == 2 and all(map(is_run_id, pairs)):
        pairs = [pairs]
    out = []
    for pair in pairs:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise ParameterError(f"pairs: {pair!r} is not a (run_a, run_b) pair")
        ra, rb = (run_name(r, runs, "pairs") for r in pair)
        if ra == rb:
            raise ParameterError(f"pairs: ({ra!r}, {rb!r}) compares a run with itself")
        out.append((ra, rb))
    if not out:
        raise ParameterError("pairs=[]: name at least one (run_a, run_b) pair, or pairs='all'")
    return out
