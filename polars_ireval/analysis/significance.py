"""``compare``: significance tests, effect sizes and confidence intervals between runs.

A comparison takes the long per-query frame :func:`polars_ireval.evaluate` returns with
``per_query=True`` (``run_id, query_id, measure, value`` and, with ``residuals=True``,
``residual, projected``) and returns a long frame: one row per measure and pair of runs,
with the means, the difference and its confidence interval, a standardized effect size, the
test statistic, the p-value before and after a correction for multiple comparisons, and
win/tie/loss counts. Rendering that frame as a table is :func:`polars_ireval.report`'s job.

Every test works on the matrix of per-query scores of one measure (runs x queries), and
every pair of runs is a row of a matrix of differences, so a family of ten thousand pairs
is a handful of numpy operations: scipy's tests take ``axis=-1``, and the resampling tests
(randomization, bootstrap, randomised Tukey HSD) multiply or index whole arrays of sign
flips, resamples and permutations, in chunks that bound memory. Distributions and
resampling intervals come from scipy (``scipy.stats``); nothing here re-implements one.

Direction follows scipy: ``delta = mean_a - mean_b`` and ``alternative="greater"`` means
"run_a scores higher than run_b". With ``baseline="bm25"`` every other run is ``run_a``
and the baseline is ``run_b``, so a positive ``delta`` is an improvement over the baseline.
"""

from __future__ import annotations

import difflib
import math
import reprlib
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

import numpy as np
import polars as pl

from polars_ireval._base.numeric import RELATIVE_TOLERANCE, is_integer, is_number, snap, snap_signed
from polars_ireval._base.progress import ProgressOption, bar, check_progress
from polars_ireval._base.resources import require
from polars_ireval.errors import (
    DuplicateError,
    EmptyInputError,
    MissingQueryError,
    ParameterError,
    SchemaError,
    ScoreError,
)

__all__ = [
    "ALTERNATIVES",
    "CORRECTIONS",
    "RESULT_COLUMNS",
    "TESTS",
    "adjust_p_values",
    "compare",
    "compare_bounds",
    "topic_set_size",
]

Alternative = Literal["two-sided", "greater", "less"]
Missing = Literal["error", "intersect", "zero"]

ALTERNATIVES: tuple[str, ...] = ("two-sided", "greater", "less")


@dataclass(frozen=True)
class SignificanceTest:
    """What a test is, for validation and for the legend of a report.

    Attributes
    ----------
    name : str
        The canonical name (``test=`` value, and the ``test`` column of the result).
    label : str
        How a report's legend names it.
    family_wise : bool
        The p-value already controls the family-wise error over all pairs of runs
        (Tukey's HSD and its randomised version): no further correction applies.
    resampling : bool
        The p-value is estimated from random resamples (takes ``resamples`` and ``seed``).
    """

    name: str
    label: str
    family_wise: bool = False
    resampling: bool = False


#: The tests, by canonical name. One table: validation, docs and legends read it.
TESTS: dict[str, SignificanceTest] = {
    spec.name: spec
    for spec in (
        SignificanceTest("t", "paired t-test"),
        SignificanceTest("wilcoxon", "Wilcoxon signed-rank test"),
        SignificanceTest("sign", "sign test"),
        SignificanceTest("randomization", "paired randomization test", resampling=True),
        SignificanceTest("bootstrap", "paired bootstrap test (studentized)", resampling=True),
        SignificanceTest("tukey_hsd", "Tukey HSD (two-way ANOVA, run x topic)", family_wise=True),
        SignificanceTest(
            "randomized_tukey_hsd",
            "randomised Tukey HSD (Sakai)",
            family_wise=True,
            resampling=True,
        ),
    )
}
_TEST_ALIASES = {
    "student": "t",
    "ttest": "t",
    "t-test": "t",
    "permutation": "randomization",
    "fisher": "randomization",
    "randomised_tukey_hsd": "randomized_tukey_hsd",
}

#: Corrections for multiple comparisons, by canonical name, with their legend labels.
CORRECTIONS: dict[str, str] = {
    "none": "no correction for multiple comparisons",
    "bonferroni": "Bonferroni correction",
    "holm": "Holm correction",
    "bh": "Benjamini-Hochberg correction (false discovery rate)",
    "by": "Benjamini-Yekutieli correction (false discovery rate)",
}
_CORRECTION_ALIASES = {"fdr_bh": "bh", "fdr_by": "by", "benjamini_hochberg": "bh"}

_CI_METHODS = ("t", "percentile", "bca", "tukey")
_EFFECT_SIZES = ("cohen_dz", "sakai")
_METHODS = ("auto", "exact", "approx", "monte_carlo")
_CONTINUITY = ("none", "scipy", "seed003")
_ZERO_METHODS = ("wilcox", "pratt", "zsplit")
_MISSING = ("error", "intersect", "zero")
#: Columns derived from the residual: ``missing="zero"`` cannot invent them.
_RESIDUAL_COLUMNS = ("residual", "upper", "projected")

#: The columns of :func:`compare`'s result, in order.
RESULT_COLUMNS: tuple[str, ...] = (
    "measure",
    "run_a",
    "run_b",
    "n",
    "mean_a",
    "mean_b",
    "delta",
    "ci_low",
    "ci_high",
    "effect_size",
    "statistic",
    "p_value",
    "p_adjusted",
    "significant",
    "direction",
    "wins",
    "ties",
    "losses",
    "topics_needed",
    "test",
    "alternative",
    "correction",
    "alpha",
    "ci_method",
    "confidence",
    "effect_size_kind",
    "resamples",
    "mc_error",
    "seed",
    "column_a",
    "column_b",
)

#: Memory for one block of resampled statistics (bytes): chunks are sized to stay under it.
_BLOCK_BYTES = 64 * 2**20
#: The largest number of topics for which all 2**n sign flips are enumerated.
_MAX_EXACT_TOPICS = 20
#: Bytes per resample and topic of the resampling tests and intervals (the sign flips or
#: multinomial counts, as integers then floats), and per resample besides (each pair's
#: block of statistics, when a block holds one pair). Peak RSS over the process's, three
#: runs of 25 topics and 10^6 resamples: randomization 474 MB (865 MB on 50 topics),
#: bootstrap 666 MB (1,056 MB), a percentile or BCa interval 490 MB (880 MB); randomised
#: Tukey HSD 298 MB for 10^7 trials (24 bytes a trial, in 64 MB blocks).
_RESAMPLE_TOPIC_BYTES = 16
_RESAMPLE_BYTES = {"randomization": 96, "bootstrap": 280, "interval": 96, "tukey": 24}


# --------------------------------------------------------------------------- input


@dataclass(frozen=True)
class _Matrices:
    """One measure's scores: rows are runs, columns queries (common to every row)."""

    measure: str
    runs: list[str]
    queries: list[str]
    xa: np.ndarray  # column `a`
    xb: np.ndarray  # column `b` (the same array when a == b)


def _choice(value: Any, choices: Sequence[str], what: str, aliases: dict[str, str]) -> str:
    if isinstance(value, str):
        key = value.strip().lower().replace("-", "_") if what != "alternative" else value
        key = aliases.get(key, key)
        if key in choices:
            return key
    close = difflib.get_close_matches(str(value), list(choices), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ParameterError(f"{what}={value!r} is unknown{hint}; use one of {list(choices)}")


def _collect(
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
            if col in _RESIDUAL_COLUMNS
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


def _check_values(df: pl.DataFrame, a: str, b: str) -> None:
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


def _matrices(
    df: pl.DataFrame,
    measure: str,
    runs: list[str],
    *,
    a: str,
    b: str,
    missing: str,
) -> _Matrices:
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
                "pass missing='intersect' to compare on the queries every run has, or "
                "missing='zero' to score them 0 (or evaluate with missing='zero')"
            )
        if missing == "intersect":
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
                if gaps.any() and name in _RESIDUAL_COLUMNS:
                    raise ParameterError(
                        f"missing='zero' cannot score {name!r} for the {int(gaps.sum())} missing "
                        f"(run, query) score(s) of {measure!r}: its residual is unknown; "
                        "evaluate with missing='zero' (which computes it) or use "
                        "missing='intersect'"
                    )
                x[gaps] = 0.0
    return _Matrices(measure, runs, queries, xa, xa if a == b else xb)


# --------------------------------------------------------------------------- tests


def _t_test(xa: np.ndarray, xb: np.ndarray | float, alt: str) -> Any:
    """scipy's paired (or, against a number, one-sample) t-test, vectorised over rows."""
    from scipy import stats

    if isinstance(xb, float):
        return stats.ttest_1samp(xa, popmean=xb, axis=-1, alternative=alt)
    return stats.ttest_rel(xa, xb, axis=-1, alternative=alt)


def _wilcoxon(
    d: np.ndarray, alt: str, method: str, continuity: str, zero_method: str
) -> tuple[np.ndarray, np.ndarray]:
    """scipy's Wilcoxon signed-rank test, pair by pair as scipy decides for one pair.

    scipy's ``method="auto"`` decides once for a whole batch (a tie in one pair would send
    every pair to the normal approximation), so the pairs are grouped by the decision
    scipy takes for each pair alone, and each group is one vectorised scipy call.
    """
    from scipy import stats

    if continuity == "seed003":
        return _wilcoxon_seed003(d, alt)
    n = d.shape[1]
    stat = np.full(d.shape[0], np.nan)
    p = np.full(d.shape[0], np.nan)
    groups: list[tuple[Any, np.ndarray]]
    everyone = np.ones(d.shape[0], dtype=bool)
    if method == "exact":
        groups = [("exact", everyone)]
    elif method == "approx" or n > 50:
        groups = [("asymptotic", everyone)]
    else:
        zeros = (d == 0).any(axis=1)
        s = np.sort(np.abs(d), axis=1)
        ties = (np.diff(s, axis=1) == 0).any(axis=1)
        exact = ~zeros & ~ties
        small = ~exact & (n <= 13)
        groups = [("exact", exact), ("asymptotic", ~exact & ~small)]
        if small.any():
            stat[small], p[small] = _wilcoxon_enumerated(d[small], alt, zero_method)
    for how, mask in groups:
        if not mask.any():
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = stats.wilcoxon(
                d[mask],
                axis=-1,
                zero_method=zero_method,
                correction=continuity == "scipy",
                alternative=alt,
                method=how,
            )
        stat[mask] = res.statistic
        p[mask] = res.pvalue
    return stat, p


def _wilcoxon_enumerated(
    d: np.ndarray, alt: str, zero_method: str
) -> tuple[np.ndarray, np.ndarray]:
    """What scipy's ``wilcoxon`` does for ties or zeros with n <= 13 (an exact permutation
    test over all 2**n sign flips, via ``permutation_test``), as one matrix product: the
    sign flips' T+ are ``bits @ ranks``. Same null distribution, tolerance and counting
    as scipy (which calls the statistic once per flip)."""
    n = d.shape[1]
    ranks = _abs_ranks(d, zero_method)
    signed = np.where(d != 0, ranks, 0.0)
    offset = (ranks * (d == 0)).sum(axis=1) / 2 if zero_method == "zsplit" else 0.0
    r_plus = (ranks * (d > 0)).sum(axis=1) + offset
    r_minus = (ranks * (d < 0)).sum(axis=1) + offset
    bits = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(float)
    null = signed @ bits.T + np.asarray(offset)[..., None]  # (pairs, 2**n)
    gamma = np.abs(np.finfo(float).eps * 100 * r_plus)[:, None]
    less = (null <= r_plus[:, None] + gamma).sum(axis=1) / 2**n
    greater = (null >= r_plus[:, None] - gamma).sum(axis=1) / 2**n
    if alt == "less":
        p = less
    elif alt == "greater":
        p = greater
    else:
        p = np.minimum(less, greater) * 2
    stat = np.minimum(r_plus, r_minus) if alt == "two-sided" else r_plus
    return stat, np.clip(p, 0.0, 1.0)


def _abs_ranks(d: np.ndarray, zero_method: str) -> np.ndarray:
    """The ranks of each pair's |differences| (ties averaged) as the signed-rank test
    ranks them: ``"wilcox"`` ranks the non-zero ones only (zeros get 0); ``"pratt"`` and
    ``"zsplit"`` rank the zeros too."""
    from scipy import stats

    absd = np.abs(d)
    if zero_method == "wilcox":
        nonzero = np.where(d == 0, np.nan, absd)
        return np.nan_to_num(stats.rankdata(nonzero, axis=1, nan_policy="omit"))
    return stats.rankdata(absd, axis=1)


def _wilcoxon_seed003(d: np.ndarray, alt: str) -> tuple[np.ndarray, np.ndarray]:
    """The normal approximation of seed 003 (eq. 14-17): z = (W -+ 0.5) / sigma_W.

    W is the sum of the signed ranks of the non-zero differences (average ranks for ties),
    sigma_W = sqrt(n (n + 1) (2n + 1) / 6) with n the number of non-zero differences (no
    tie correction), and the 0.5 moves W towards 0 (two-sided) or against the alternative
    (one-sided). scipy's continuity correction is 0.5 on T+ = (W + n(n+1)/2) / 2, i.e. 1
    on W: the seed's is half of it. The statistic returned is z.
    """
    from scipy import stats

    w = (np.sign(d) * _abs_ranks(d, "wilcox")).sum(axis=1)
    count = (d != 0).sum(axis=1).astype(float)
    sigma = np.sqrt(count * (count + 1) * (2 * count + 1) / 6)
    if alt == "greater":
        shift = np.full_like(w, 0.5)
    elif alt == "less":
        shift = np.full_like(w, -0.5)
    else:
        shift = 0.5 * np.sign(w)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (w - shift) / sigma
    if alt == "greater":
        p = stats.norm.sf(z)
    elif alt == "less":
        p = stats.norm.cdf(z)
    else:
        p = 2 * stats.norm.sf(np.abs(z))
    return z, np.minimum(p, 1.0)


def _direction(d: np.ndarray, delta: np.ndarray, opts: Any) -> np.ndarray:
    """Which way each pair's test points: 1 (a above b), -1 (a below b) or 0, by the
    quantity the test ranks: the signed-rank sum W (Wilcoxon, zeros ranked as
    ``zero_method`` ranks them), wins - losses (sign test), the mean difference otherwise.
    W and wins - losses can point against the mean difference (many small wins, a few
    large losses): a significant result is then a significant *rise*."""
    if opts.test == "sign":
        return np.sign((d > 0).sum(axis=1) - (d < 0).sum(axis=1))
    if opts.test != "wilcoxon":
        return np.sign(delta)
    # seed 003's W ranks the non-zero differences; pratt's and zsplit's zero ranks add 0
    zero_method = "wilcox" if opts.continuity == "seed003" else opts.zero_method
    return np.sign((np.sign(d) * _abs_ranks(d, zero_method)).sum(axis=1))


def _sign_test(d: np.ndarray, alt: str) -> tuple[np.ndarray, np.ndarray]:
    """scipy's binomtest on (wins, wins + losses), once per distinct count pair."""
    from scipy import stats

    wins = (d > 0).sum(axis=1)
    nonzero = wins + (d < 0).sum(axis=1)
    p = np.ones(d.shape[0])
    keys, inverse = np.unique(np.stack([wins, nonzero], axis=1), axis=0, return_inverse=True)
    values = np.array(
        [
            stats.binomtest(int(k), int(m), 0.5, alternative=alt).pvalue if m > 0 else 1.0
            for k, m in keys
        ]
    )
    p[:] = values[inverse.ravel()]
    return wins.astype(float), p


def _signs(n: int, resamples: int, exact: bool, seed: int) -> np.ndarray:
    """Sign flips, one per row: all 2**n (exact) or ``resamples`` random ones."""
    if exact:
        bits = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
        return (1.0 - 2.0 * bits).astype(float)
    rng = np.random.default_rng(seed)
    return 1.0 - 2.0 * rng.integers(0, 2, size=(resamples, n)).astype(float)


def _count_extreme(null: np.ndarray, obs: np.ndarray, tol: np.ndarray, alt: str) -> np.ndarray:
    """How many of each row's null statistics are at least as extreme as ``obs``."""
    o, t = obs[:, None], tol[:, None]
    if alt == "greater":
        return cast(np.ndarray, (null >= o - t).sum(axis=1))
    if alt == "less":
        return cast(np.ndarray, (null <= o + t).sum(axis=1))
    return cast(np.ndarray, (np.abs(null) >= np.abs(o) - t).sum(axis=1))


def _rows_per_chunk(width: int) -> int:
    return max(1, _BLOCK_BYTES // (8 * max(width, 1)))


def _randomization(
    d: np.ndarray,
    alt: str,
    resamples: int,
    method: str,
    seed: int,
    progress: ProgressOption = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Fisher's paired randomization test on the mean difference (sign flips).

    Exact over all 2**n sign flips when ``2**n <= resamples`` (``method="auto"``) or
    ``method="exact"``; otherwise ``resamples`` random flips, the same for every pair, and
    p = (count + 1) / (resamples + 1) as scipy's ``permutation_test`` (never 0).
    Returns the statistic (mean difference), p, its Monte Carlo error and the number of
    sign flips used.
    """
    n = d.shape[1]
    exact = method == "exact" or (method == "auto" and 2**n <= resamples)
    if exact and n > _MAX_EXACT_TOPICS:
        raise ParameterError(
            f"method='exact' enumerates 2**{n} sign flips, too many for {n} topics "
            f"(at most {_MAX_EXACT_TOPICS}); use method='monte_carlo' with resamples="
        )
    signs = _signs(n, resamples, exact, seed)
    obs = d.sum(axis=1)
    tol = 1e-9 * np.maximum(np.abs(d).sum(axis=1), 1e-300)
    counts = np.empty(d.shape[0])
    step = _rows_per_chunk(signs.shape[0])
    with bar(progress, total=d.shape[0], desc="randomization test", unit="pair") as shown:
        for start in range(0, d.shape[0], step):
            block = d[start : start + step] @ signs.T
            sl = slice(start, start + step)
            counts[sl] = _count_extreme(block, obs[sl], tol[sl], alt)
            shown.update(block.shape[0])
    used = signs.shape[0]
    if exact:
        p = counts / used
        err = np.zeros_like(p)
    else:
        p = (counts + 1) / (used + 1)
        err = np.sqrt(p * (1 - p) / used)
    return obs / n, p, err, used


def _resampling_estimate(opts: _Options, n: int) -> tuple[int, str]:
    """The bytes the resampling test and interval of ``opts`` hold at once on ``n``
    topics (the larger of the two: one runs after the other), and which one it is."""
    r, per_topic = opts.resamples, _RESAMPLE_TOPIC_BYTES * n
    parts = {"": 0}
    if opts.test == "randomization":
        exact = opts.method == "exact" or (opts.method == "auto" and 2**n <= r)
        # exact on more than _MAX_EXACT_TOPICS topics is refused before anything is drawn
        flips = (2**n if n <= _MAX_EXACT_TOPICS else 0) if exact else r
        parts["randomization"] = flips * (per_topic + _RESAMPLE_BYTES["randomization"])
    elif opts.test == "bootstrap":
        parts["bootstrap"] = r * (per_topic + _RESAMPLE_BYTES["bootstrap"])
    elif opts.test == "randomized_tukey_hsd":
        parts["randomized_tukey_hsd"] = r * _RESAMPLE_BYTES["tukey"] + _BLOCK_BYTES
    if opts.ci in ("percentile", "bca"):
        parts[f"ci={opts.ci!r}"] = r * (per_topic + _RESAMPLE_BYTES["interval"])
    which = max(parts, key=lambda k: parts[k])
    return parts[which], which


def _check_resamples(opts: _Options, n: int, measure: str) -> None:
    """Raise :class:`~polars_ireval.errors.ResourceError` before resampling more than
    the memory budget holds (:func:`_resampling_estimate`)."""
    estimate, which = _resampling_estimate(opts, n)
    if not estimate:
        return
    what = which if which.startswith("ci=") else f"test={which!r}"
    require(
        f"{measure}: {what} with resamples={opts.resamples:,} on {n} topics",
        estimate,
        how=f"{opts.resamples:,} resamples x {n} topics",
        fix="use fewer resamples (the default 10,000 puts a p-value of 0.05 within about "
        "0.002, its Monte Carlo error, reported in mc_error), or a test that does not "
        "resample (test='t', 'wilcoxon'; ci='t')",
    )


def _studentized(x: np.ndarray) -> np.ndarray:
    """mean / (sd / sqrt(n)) along the last axis; 0/0 is 0, c/0 is +-inf."""
    n = x.shape[-1]
    m = _mean2d(x)
    s = np.sqrt(_mean2d((x - m[..., None]) ** 2) * n / (n - 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = m / (s / math.sqrt(n))
    return cast(np.ndarray, np.where((s == 0) & (m == 0), 0.0, t))


def _bootstrap_test(
    d: np.ndarray, alt: str, resamples: int, seed: int, progress: ProgressOption = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Paired bootstrap test of the studentized mean difference (Sakai, SIGIR 2006).

    The differences are centred (the null holds in the resampled world) and resampled with
    replacement ``resamples`` times, the same resampled topics for every pair: resample b
    takes topic j ``counts[b, j]`` times (a multinomial draw), so its sum and sum of
    squares are two matrix products. p is (count + 1) / (resamples + 1) of the bootstrap t
    at least as extreme as the observed t.
    """
    n = d.shape[1]
    counts_bj = np.random.default_rng(seed).multinomial(n, np.full(n, 1 / n), size=resamples)
    weights = counts_bj.T.astype(float)  # (n, resamples)
    t_obs = _studentized(d)
    centred = d - _mean2d(d)[:, None]
    counts = np.empty(d.shape[0])
    step = _rows_per_chunk(resamples)
    with bar(progress, total=d.shape[0], desc="bootstrap test", unit="pair") as shown:
        for start in range(0, d.shape[0], step):
            sl = slice(start, start + step)
            c = centred[sl]
            total = c @ weights
            squares = (c * c) @ weights
            mean = total / n
            var = np.maximum((squares - total * mean) / (n - 1), 0.0)
            # a resample of equal values has variance 0 (up to rounding): t is 0 or +-inf
            flat = var <= 1e-12 * squares / (n - 1)
            with np.errstate(divide="ignore", invalid="ignore"):
                t_star = mean / np.sqrt(var / n)
            zero_mean = np.abs(mean) <= 1e-12 * np.sqrt(squares / n)
            t_star = np.where(flat, np.where(zero_mean, 0.0, np.sign(mean) * np.inf), t_star)
            obs = t_obs[sl]  # +-inf when the differences are constant: only +-inf is as extreme
            tol = np.where(np.isfinite(obs), 1e-12 * np.abs(obs), 0.0)
            counts[sl] = _count_extreme(t_star, obs, tol, alt)
            shown.update(c.shape[0])
    p = (counts + 1) / (resamples + 1)
    return t_obs, p, np.sqrt(p * (1 - p) / resamples)


def _anova_residual_variance(x: np.ndarray) -> tuple[float, int]:
    """V_E of the two-way ANOVA without replication (runs x topics) and its df."""
    m, n = x.shape
    resid = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    df = (m - 1) * (n - 1)
    return float((resid**2).sum() / df), df


def _tukey(x: np.ndarray, delta: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, int]:
    """Tukey's HSD on the two-way ANOVA residual variance: q = |delta| / sqrt(V_E / n),
    p from scipy's studentized range with k = number of runs, df = (k - 1)(n - 1)."""
    from scipy import stats

    m, n = x.shape
    ve, df = _anova_residual_variance(x)
    se = math.sqrt(ve / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.abs(delta) / se if se > 0 else np.where(delta == 0, 0.0, np.inf)
    p = np.ones_like(q)
    finite = np.isfinite(q) & (q > 0)
    p[np.isinf(q)] = 0.0
    if finite.any():
        uniq, inverse = np.unique(q[finite], return_inverse=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p[finite] = np.clip(stats.studentized_range.sf(uniq, m, df), 0, 1)[inverse.ravel()]
    return q, p, ve, df


def _randomized_tukey(
    x: np.ndarray, delta: np.ndarray, resamples: int, seed: int, progress: ProgressOption = False
) -> tuple[np.ndarray, np.ndarray]:
    """Sakai's randomised Tukey HSD: in each trial every topic's scores are permuted
    across the runs; p = (#trials whose max - min of run means >= |delta| + 1) /
    (resamples + 1). The same trials serve every pair (that is what makes it family-wise).
    """
    m, n = x.shape
    rng = np.random.default_rng(seed)
    ranges = np.empty(resamples)
    step = _rows_per_chunk(m * n)
    with bar(progress, total=resamples, desc="randomised Tukey HSD", unit="trial") as shown:
        for start in range(0, resamples, step):
            t = min(step, resamples - start)
            trial = rng.permuted(np.broadcast_to(x, (t, m, n)), axis=1)
            means = trial.mean(axis=2)
            ranges[start : start + t] = means.max(axis=1) - means.min(axis=1)
            shown.update(t)
    ranges.sort()
    target = np.abs(delta) * (1 - 1e-12) - 1e-15
    counts = resamples - np.searchsorted(ranges, target, side="left")
    p = (counts + 1) / (resamples + 1)
    return p, np.sqrt(p * (1 - p) / resamples)


# --------------------------------------------------------------------------- estimates


def _mean2d(x: np.ndarray) -> np.ndarray:
    """The mean along the last axis, reduced in one 2-D layout whatever the batch shape,
    so that a pair gives bit-for-bit the same mean alone or among ten thousand (scipy's
    bootstrap compares resampled means with the estimate: ties must stay ties)."""
    x = np.ascontiguousarray(x)
    return cast(np.ndarray, x.reshape(-1, x.shape[-1]).mean(axis=-1).reshape(x.shape[:-1]))


def _mean_stat(x: np.ndarray, axis: int = -1) -> np.ndarray:
    return _mean2d(np.moveaxis(np.asarray(x), axis, -1))


def _bootstrap_ci(
    d: np.ndarray, how: str, confidence: float, alt: str, resamples: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """scipy.stats.bootstrap's interval for the mean difference of every pair, in chunks,
    each chunk with a fresh generator from ``seed``: a pair's interval is the one scipy
    gives for that pair alone with ``rng=numpy.random.default_rng(seed)``."""
    from scipy import stats

    low = np.empty(d.shape[0])
    high = np.empty(d.shape[0])
    step = max(1, _BLOCK_BYTES // (8 * resamples * d.shape[1]))
    method = "BCa" if how == "bca" else "percentile"
    for start in range(0, d.shape[0], step):
        sl = slice(start, start + step)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = stats.bootstrap(
                (d[sl],),
                _mean_stat,
                axis=-1,
                vectorized=True,
                n_resamples=resamples,
                method=method,
                confidence_level=confidence,
                alternative=alt,
                rng=np.random.default_rng(seed),
            )
        low[sl] = res.confidence_interval.low
        high[sl] = res.confidence_interval.high
    return low, high


def topic_set_size(
    sd: Any,
    difference: Any,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
    max_topics: int = 10_000_000,
) -> np.ndarray:
    """The number of topics a paired t-test needs to detect a difference with a power.

    Topic-set-size design (Sakai): the smallest ``n >= 2`` for which the paired t-test
    at level ``alpha`` rejects with probability ``power`` when the true mean difference is
    ``difference`` and the standard deviation of the per-topic differences is ``sd``. The
    power is computed from scipy's noncentral t (``scipy.stats.nct``) with ``n - 1``
    degrees of freedom and noncentrality ``difference * sqrt(n) / sd``.

    Parameters
    ----------
    sd, difference
        Arrays (or scalars) of the same shape: the standard deviation of the differences
        and the difference to detect (its absolute value is used).
    alpha
        Significance level of the test.
    power
        Wanted probability of detecting the difference (0.8 is customary).
    alternative
        ``"two-sided"`` or one-sided (``"greater"``, ``"less"``: the difference is taken in
        the direction of the alternative).
    max_topics
        Above this, the result is NaN (the difference is too small to detect): an integer,
        at least 2.

    Returns
    -------
    numpy.ndarray
        Topics needed (float, NaN when the difference is 0 or needs more than
        ``max_topics``, and where ``sd`` or ``difference`` is NaN or infinite).

    Raises
    ------
    ParameterError
        ``sd`` or ``difference`` not numbers, of shapes that do not broadcast, a negative
        ``sd``; ``alpha`` or ``power`` outside (0, 1); ``max_topics`` not an integer >= 2.

    Examples
    --------
    >>> from polars_ireval.analysis.significance import topic_set_size
    >>> topic_set_size([0.2, 0.2], [0.1, 0.05]).tolist()
    [34.0, 128.0]
    """
    from scipy import stats

    _check_level(alpha, "alpha")
    _check_level(power, "power")
    alt = _choice(alternative, ALTERNATIVES, "alternative", {})
    if not is_integer(max_topics) or max_topics < 2:
        raise ParameterError(
            f"max_topics={max_topics!r}: must be an integer >= 2 (a paired t-test needs 2 "
            "topics at least)"
        )
    max_topics = int(max_topics)
    sd_in, diff_in = _numbers(sd, "sd"), _numbers(difference, "difference")
    try:
        shape = np.broadcast_shapes(sd_in.shape, diff_in.shape)
    except ValueError:
        raise ParameterError(
            f"topic_set_size: sd has shape {sd_in.shape} and difference {diff_in.shape}; give "
            "arrays of one shape (or a scalar for either)"
        ) from None
    negative = np.flatnonzero(sd_in.ravel() < 0)
    if negative.size:
        i = int(negative[0])
        at = "" if sd_in.ndim == 0 else f"[{', '.join(map(str, np.unravel_index(i, sd_in.shape)))}]"
        raise ParameterError(
            f"topic_set_size: sd{at}={float(sd_in.ravel()[i])!r} is negative; a standard "
            "deviation is >= 0"
        )
    sd_a, diff_a = np.broadcast_arrays(sd_in, np.abs(diff_in))
    sd_a, diff_a = sd_a.ravel(), diff_a.ravel()
    out = np.full(sd_a.shape, np.nan)
    ok = np.isfinite(sd_a) & np.isfinite(diff_a) & (diff_a > 0)
    out[ok & (sd_a == 0)] = 2.0
    todo = ok & (sd_a > 0)
    if not todo.any():
        return out.reshape(shape)
    s, dlt = sd_a[todo], diff_a[todo]
    one_sided = alt != "two-sided"
    z_a = stats.norm.isf(alpha if one_sided else alpha / 2)
    z_b = stats.norm.ppf(power)
    start = np.ceil(((z_a + z_b) * s / dlt) ** 2)
    n = np.clip(np.nan_to_num(start, nan=2, posinf=max_topics + 1), 2, max_topics + 1)

    def achieved(k: np.ndarray, i: np.ndarray) -> np.ndarray:
        """Power of the test with k topics, for the rows i."""
        df = k - 1
        nc = dlt[i] * np.sqrt(k) / s[i]
        crit = stats.t.isf(alpha if one_sided else alpha / 2, df)
        pw = stats.nct.sf(crit, df, nc)
        if not one_sided:
            pw = pw + stats.nct.cdf(-crit, df, nc)
        return cast(np.ndarray, pw)

    # the normal approximation starts close: walk down while n - 1 suffices, then up while
    # n falls short, each time only over the rows still moving
    rows = np.flatnonzero((n > 2) & (n <= max_topics))
    while rows.size:
        rows = rows[achieved(n[rows] - 1, rows) >= power]
        n[rows] -= 1
        rows = rows[n[rows] > 2]
    rows = np.flatnonzero(n <= max_topics)
    rows = rows[achieved(n[rows], rows) < power]
    while rows.size:
        n[rows] += 1
        rows = rows[n[rows] <= max_topics]
        rows = rows[achieved(n[rows], rows) < power]
    n = np.where(n > max_topics, np.nan, n)
    out[todo] = n
    return out.reshape(shape)


def _numbers(x: Any, name: str) -> np.ndarray:
    """``x`` as a float array, refusing what is not numbers (strings, None, booleans)."""
    try:
        arr = np.asarray(x)
    except ValueError:  # ragged nesting
        arr = np.asarray(None)
    if arr.dtype.kind not in "iuf":
        raise ParameterError(
            f"topic_set_size: {name}={reprlib.repr(x)}: must be a number or an array of "
            f"numbers (not {type(x).__name__})"
        )
    return arr.astype(float)


def adjust_p_values(p: Any, method: str = "holm") -> np.ndarray:
    """p-values adjusted for multiple comparisons (one family).

    Parameters
    ----------
    p
        The family's p-values: a 1-D array-like of numbers in [0, 1] (NaN, infinite,
        missing values, booleans and strings are refused; a 2-D array is not one family).
    method
        ``"none"``, ``"bonferroni"``, ``"holm"`` (step-down, family-wise error),
        ``"bh"`` (Benjamini-Hochberg, false discovery rate) or ``"by"``
        (Benjamini-Yekutieli, false discovery rate under any dependence). The statsmodels
        names ``"fdr_bh"`` and ``"fdr_by"`` are accepted.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values (at most 1), in the order of ``p``; reject where they are
        ``<= alpha`` (as statsmodels' ``multipletests`` does).

    Examples
    --------
    >>> from polars_ireval.analysis.significance import adjust_p_values
    >>> adjust_p_values([0.01, 0.04, 0.03], "holm").round(4).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_p_values([0.01, 0.04, 0.03], "bh").round(4).tolist()
    [0.03, 0.04, 0.04]
    """
    how = _choice(method, list(CORRECTIONS), "correction", _CORRECTION_ALIASES)
    return _adjust(_p_values(p), how)


def _p_values(p: Any) -> np.ndarray:
    """``p`` as a 1-D float array of p-values, or a ParameterError naming the first bad one."""
    try:
        arr = np.asarray(p)
    except ValueError:  # ragged nesting
        arr = np.asarray(p, dtype=object)
    if arr.ndim > 1:
        raise ParameterError(
            f"adjust_p_values: p has shape {arr.shape}; give one family of p-values as a 1-D "
            "array (adjust each row on its own, or pass p.ravel() for one family of them all)"
        )
    flat = arr.ravel()
    if arr.dtype.kind not in "iuf":
        for i, x in enumerate(flat.tolist()):
            if not is_number(x):
                raise ParameterError(
                    f"adjust_p_values: p[{i}]={x!r} is not a p-value (a number in [0, 1])"
                )
    pv = flat.astype(float)
    bad = np.flatnonzero(~((pv >= 0) & (pv <= 1)))
    if bad.size:
        i = int(bad[0])
        raise ParameterError(
            f"adjust_p_values: p[{i}]={float(pv[i])!r} is not a p-value: every p must be a "
            "number in [0, 1]; fix or drop it first"
        )
    return pv


def _adjust(pv: np.ndarray, how: str) -> np.ndarray:
    """The adjusted p-values of a checked 1-D array ``pv`` by the canonical method ``how``."""
    m = pv.size
    if how == "none" or m == 0:
        return pv.copy()
    if how == "bonferroni":
        return np.minimum(pv * m, 1.0)
    order = np.argsort(pv, kind="mergesort")
    ps = pv[order]
    if how == "holm":
        adj = np.maximum.accumulate(ps * np.arange(m, 0, -1))
    else:
        factor = np.arange(1, m + 1) / m
        if how == "by":
            factor = factor / np.sum(1.0 / np.arange(1, m + 1))
        adj = np.minimum.accumulate((ps / factor)[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(adj, 1.0)
    return out


def _check_level(x: Any, name: str) -> None:
    if not is_number(x) or not 0 < float(x) < 1:
        raise ParameterError(f"{name}={x!r}: must be a number strictly between 0 and 1")


def _seed_int(seed: Any) -> int:
    if seed is None:
        return int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 2**63 - 1))
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0:
        return int(seed)
    raise ParameterError(
        f"seed={seed!r}: give a non-negative int or a numpy.random.Generator (or None for "
        "fresh entropy)"
    )


# --------------------------------------------------------------------------- compare


@dataclass(frozen=True)
class _Options:
    test: str
    correction: str
    alternative: str
    alpha: float
    ci: str | None
    confidence: float
    effect_size: str
    resamples: int
    seed: int
    method: str
    continuity: str
    zero_method: str
    power: float
    min_difference: float | None
    tolerance: float
    a: str
    b: str
    progress: ProgressOption = False


def compare(
    per_query: pl.DataFrame | pl.LazyFrame,
    *,
    baseline: str | float | None = None,
    pairs: Literal["all"] | tuple[str, str] | Sequence[tuple[str, str]] | None = None,
    test: str = "t",
    correction: str = "none",
    alternative: Alternative = "two-sided",
    alpha: float = 0.05,
    a: str = "value",
    b: str | None = None,
    measures: str | Sequence[str] | None = None,
    runs: str | Sequence[str] | None = None,
    missing: Missing = "error",
    ci: str | None = "auto",
    confidence: float | None = None,
    effect_size: str = "auto",
    resamples: int = 10_000,
    seed: int | np.random.Generator | None = None,
    method: str = "auto",
    continuity: str = "none",
    zero_method: str = "wilcox",
    power: float = 0.8,
    min_difference: float | None = None,
    tolerance: float = RELATIVE_TOLERANCE,
    run_col: str = "run_id",
    query_col: str = "query_id",
    measure_col: str = "measure",
    progress: ProgressOption = False,
) -> pl.DataFrame:
    """Compare runs pair by pair on their per-query scores: test, estimate, correct.

    Parameters
    ----------
    per_query
        Per-query scores: what :func:`polars_ireval.evaluate` returns with
        ``per_query=True`` (eager or lazy; one or many measures; with ``residual`` and
        ``projected`` when evaluated with ``residuals=True``), or any frame with run,
        query, measure and value columns (see ``run_col``...; without a measure column the
        frame is one measure). A LazyFrame is collected: the tests need all the queries
        of a run at once.
    baseline
        Compare every other run with this run (``run_a`` = the run, ``run_b`` = the
        baseline, so ``delta > 0`` is an improvement). A number instead of a run id
        compares every run with that fixed score (one-sample tests; seed 003, eq. 12):
        ``run_b`` is null and ``mean_b`` the number. Run ids are read as strings, so an
        integer that is also a run id (``baseline=1`` with a run ``'1'``, e.g. from an
        integer run column) is ambiguous and refused: pass ``'1'`` for the run or ``1.0``
        for the score (a float is always a score).
    pairs
        ``"all"`` (the default without ``baseline``): every pair of runs once, ``run_a``
        being the run with the higher mean of column ``a`` on that measure (so ``delta >=
        0`` when ``a == b``, and ``alternative="greater"`` tests "the better-looking run is
        better", as Moffat et al.'s Table 5). Or an explicit list of ``(run_a, run_b)``,
        or one pair ``(run_a, run_b)``.
    test
        ``"t"`` (paired t-test, ``scipy.stats.ttest_rel``; ``ttest_1samp`` against a
        number), ``"wilcoxon"`` (signed-rank, ``scipy.stats.wilcoxon``), ``"sign"``
        (``scipy.stats.binomtest`` on wins among non-tied topics), ``"randomization"``
        (paired permutation test of the mean difference: sign flips, exact for small n),
        ``"bootstrap"`` (paired bootstrap test of the studentized mean), ``"tukey_hsd"``
        (Tukey's HSD on the two-way run x topic ANOVA residual variance, p from
        ``scipy.stats.studentized_range``) or ``"randomized_tukey_hsd"`` (Sakai's
        randomised Tukey HSD). The Tukey tests are family-wise over all pairs of the runs
        compared (``runs``), whatever rows ``baseline``/``pairs`` ask for.
    correction
        ``"none"`` (default), ``"bonferroni"``, ``"holm"``, ``"bh"`` (Benjamini-Hochberg)
        or ``"by"`` (Benjamini-Yekutieli), applied per measure over the rows of the result
        (the family asked for). The Tukey tests control the family-wise error themselves:
        they take ``"none"``.
    alternative
        ``"two-sided"``, ``"greater"`` (mean_a > mean_b) or ``"less"``. The Tukey tests
        are two-sided.
    alpha
        Level: ``significant = p_adjusted <= alpha``.
    a, b
        The columns compared: run_a's scores from column ``a``, run_b's from ``b``
        (default: ``a``). ``"value"``, ``"residual"``, ``"projected"`` or any numeric
        column, and ``"upper"`` = value + residual (the top of the residual range). Seed
        002's "base vs top" is ``a="value", b="upper"``.
    measures
        The measures to compare, a list or one name (default: every measure of the frame;
        comparing a residual column, ``a`` or ``b`` in ``residual``, ``upper``,
        ``projected``: every measure that has residuals, as evaluate gives them only for
        RBP, P, SDCG and the C/W/L measures).
    runs
        The runs taking part, a list or one id (default: every run of the frame). As
        everywhere a run is named (``baseline``, ``pairs``), a str is one id (never its
        characters) and an integer names the run whose id is its decimal text (ids are
        read as strings: ``runs=[1, 2]`` are the runs ``'1'`` and ``'2'``). The
        missing-query policy, the ANOVA and the Tukey families are over these runs, with
        ``baseline`` or explicit ``pairs`` as with every pair: pass ``runs`` to narrow them
        (e.g. to the runs of the pairs).
    missing
        Queries scored for some runs and not others (absent rows or null scores):
        ``"error"`` (default; the message names them), ``"intersect"`` (compare each
        measure on the queries every run has) or ``"zero"`` (score them 0; refused for the
        residual columns, whose value for an absent query is unknown).
    ci
        Confidence interval of ``delta``: ``"t"`` (from scipy's t-test result),
        ``"percentile"`` or ``"bca"`` (``scipy.stats.bootstrap`` with ``resamples`` and
        ``seed``), ``"tukey"`` (simultaneous, from the studentized range and the ANOVA
        residual variance), ``None`` (null columns). ``"auto"``: ``"tukey"`` for
        ``tukey_hsd``, ``"t"`` otherwise. One-sided alternatives give one-sided intervals.
    confidence
        Confidence level of the interval (default ``1 - alpha``).
    effect_size
        ``"cohen_dz"`` (mean difference / standard deviation of the differences),
        ``"sakai"`` (mean difference / sqrt(V_E), V_E the residual variance of the two-way
        ANOVA over the runs; Sakai's ES_E for all-pairs comparisons) or ``"auto"``:
        ``"sakai"`` for all pairs and the Tukey tests (when ``a == b``), else ``"cohen_dz"``.
    resamples
        Random resamples of the resampling tests and bootstrap intervals.
    seed
        Seed of every resampling (an int or a ``numpy.random.Generator``; ``None``: fresh
        entropy). With an int, every pair sees the same resamples, so a pair's result does
        not depend on the other pairs.
    method
        ``"auto"``, ``"exact"``, or ``"approx"`` (Wilcoxon: scipy's normal approximation)
        / ``"monte_carlo"`` (randomization). ``"auto"``: Wilcoxon as scipy decides for each
        pair alone; randomization exact when ``2**n <= resamples``.
    continuity
        Wilcoxon's continuity correction in the normal approximation: ``"none"`` (scipy's
        default), ``"scipy"`` (0.5 on T+) or ``"seed003"`` (0.5 on W, the sum of signed
        ranks, as seed 003 eq. 17; the statistic is then z).
    zero_method
        Wilcoxon's treatment of zero differences (scipy's ``"wilcox"``, ``"pratt"``,
        ``"zsplit"``).
    power, min_difference
        ``topics_needed``: the topics a paired t-test at ``alpha`` needs to detect
        ``min_difference`` (default: the observed |delta|) with this power, for the observed
        standard deviation of the differences (see :func:`topic_set_size`).
    tolerance
        Per-query differences equal up to rounding error are one value (default
        ``1e-14``, relative to the larger magnitude of the two scores each difference comes
        from; the same for ``delta`` and the means that orient ``pairs="all"``): P@5's
        differences 0.2 - 0.4, 0.4 - 0.6000000000000001 and 0.6000000000000001 - 0.8 are
        all -0.2 exactly, but three floats. The tests that rank or count the differences
        (``"wilcoxon"``, ``"sign"``), ``direction``, ``wins``/``ties``/``losses`` and the
        standard deviation of the differences see them equal, as exact arithmetic does;
        the ones on their mean (t, randomization, bootstrap) are unaffected. ``0`` takes
        the floats as they are, as ``scipy.stats.wilcoxon`` (and ranx, R) do, which ranks
        rounding error: on the TREC-COVID round 1 runs this moves the Wilcoxon p-value
        of P@5 for most pairs of runs (``docs/compat.md``).
    run_col, query_col, measure_col
        Column names of a frame not made by :func:`evaluate`.
    progress
        Show a progress bar (tqdm) on stderr over the pairs of the randomization and
        bootstrap tests and the trials of the randomised Tukey HSD: False (default), True,
        or ``"auto"`` (only when stderr is a terminal). The results do not depend on it.

    Returns
    -------
    polars.DataFrame
        One row per measure and compared pair, columns :data:`RESULT_COLUMNS`:
        ``measure, run_a, run_b, n`` (topics), ``mean_a, mean_b, delta`` (mean_a - mean_b;
        0 when they are equal up to rounding, see ``tolerance``), ``ci_low, ci_high,
        effect_size, statistic, p_value, p_adjusted, significant``,
        ``direction`` (1 when the test points to a above b, -1 below, 0 neither way, as
        when every difference is 0: by the signed-rank sum for ``"wilcoxon"``, wins -
        losses for ``"sign"``, the mean difference otherwise; the first two can point
        against ``delta``), ``wins, ties, losses`` (topics where a > b, a == b, a < b),
        ``topics_needed``, then what was
        done: ``test, alternative, correction, alpha, ci_method, confidence,
        effect_size_kind, resamples`` (null for deterministic tests; ``2**n`` for exact
        enumeration), ``mc_error`` (Monte Carlo standard error of ``p_value``, 0 when
        exact), ``seed`` (the integer seed the resamples came from, null when nothing was
        resampled: with ``seed=None`` it is how to reproduce the result), ``column_a,
        column_b``. Rows whose differences are all 0 get p = 1 and a null statistic.

    Raises
    ------
    ParameterError
        An unknown test, correction, alternative or option, a baseline or run not in the
        frame, an integer baseline that is also a run id, or options that do not go
        together. Numbers may be Python's or numpy's (``alpha=np.float32(0.05)``); a bool
        is no number.
    EmptyInputError
        Fewer than two runs, or fewer than two topics.
    MissingQueryError
        With ``missing="error"``, queries scored for some runs and not others.
    ScoreError, DuplicateError, SchemaError
        NaN or infinite scores, scores beyond ``LARGEST_SCORE`` (1e150) in magnitude,
        whose variances would overflow (divide them by a constant: the p-values do not
        change), a (run, query, measure) twice (or, without a measure column, a (run,
        query) twice: pass ``measure_col=``), a null id or measure, a missing column.
    ResourceError
        When a resampling test or bootstrap interval would hold more resamples x topics
        than the memory budget (``IREVAL_MEMORY_LIMIT``, else half the memory available;
        see ``docs/resources.md``).

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> per_q = pl.DataFrame({
    ...     "run_id": ["bm25"] * 6 + ["dense"] * 6,
    ...     "query_id": ["q1", "q2", "q3", "q4", "q5", "q6"] * 2,
    ...     "measure": "nDCG@10",
    ...     "value": [0.2, 0.5, 0.4, 0.1, 0.6, 0.3, 0.4, 0.6, 0.4, 0.3, 0.8, 0.6]})
    >>> cmp = ir.compare(per_q, baseline="bm25", test="t")
    >>> cmp.select("run_a", "run_b", "delta", "ci_low", "p_value", "wins", "ties", "losses")
    shape: (1, 8)
    ┌───────┬───────┬──────────┬──────────┬─────────┬──────┬──────┬────────┐
    │ run_a ┆ run_b ┆ delta    ┆ ci_low   ┆ p_value ┆ wins ┆ ties ┆ losses │
    │ ---   ┆ ---   ┆ ---      ┆ ---      ┆ ---     ┆ ---  ┆ ---  ┆ ---    │
    │ str   ┆ str   ┆ f64      ┆ f64      ┆ f64     ┆ i64  ┆ i64  ┆ i64    │
    ╞═══════╪═══════╪══════════╪══════════╪═════════╪══════╪══════╪════════╡
    │ dense ┆ bm25  ┆ 0.166667 ┆ 0.058281 ┆ 0.01082 ┆ 5    ┆ 1    ┆ 0      │
    └───────┴───────┴──────────┴──────────┴─────────┴──────┴──────┴────────┘

    The exact randomization test (2**6 sign flips) and a one-sample t-test against 0.3:

    >>> ir.compare(per_q, baseline="bm25", test="randomization").select(
    ...     "statistic", "p_value", "resamples", "mc_error")
    shape: (1, 4)
    ┌───────────┬─────────┬───────────┬──────────┐
    │ statistic ┆ p_value ┆ resamples ┆ mc_error │
    │ ---       ┆ ---     ┆ ---       ┆ ---      │
    │ f64       ┆ f64     ┆ i64       ┆ f64      │
    ╞═══════════╪═════════╪═══════════╪══════════╡
    │ 0.166667  ┆ 0.0625  ┆ 64        ┆ 0.0      │
    └───────────┴─────────┴───────────┴──────────┘
    >>> ir.compare(per_q, baseline=0.3, alternative="greater").select(
    ...     "run_a", "mean_a", "mean_b", "statistic", "p_value")
    shape: (2, 5)
    ┌───────┬──────────┬────────┬───────────┬──────────┐
    │ run_a ┆ mean_a   ┆ mean_b ┆ statistic ┆ p_value  │
    │ ---   ┆ ---      ┆ ---    ┆ ---       ┆ ---      │
    │ str   ┆ f64      ┆ f64    ┆ f64       ┆ f64      │
    ╞═══════╪══════════╪════════╪═══════════╪══════════╡
    │ bm25  ┆ 0.35     ┆ 0.3    ┆ 0.654654  ┆ 0.270802 │
    │ dense ┆ 0.516667 ┆ 0.3    ┆ 2.892462  ┆ 0.017044 │
    └───────┴──────────┴────────┴───────────┴──────────┘
    """
    opts, one_sample = _options(
        test=test,
        correction=correction,
        alternative=alternative,
        alpha=alpha,
        ci=ci,
        confidence=confidence,
        effect_size=effect_size,
        resamples=resamples,
        seed=seed,
        method=method,
        continuity=continuity,
        zero_method=zero_method,
        power=power,
        min_difference=min_difference,
        tolerance=tolerance,
        a=a,
        b=b,
        baseline=baseline,
        pairs=pairs,
        progress=progress,
    )
    missing = cast(Missing, _choice(missing, _MISSING, "missing", {}))  # "Error" is "error"
    df = _collect(
        per_query, a=opts.a, b=opts.b, run_col=run_col, query_col=query_col, measure_col=measure_col
    )
    _check_values(df, opts.a, opts.b)
    all_runs = df["run"].unique(maintain_order=True).to_list()
    chosen_measures = _measures(
        df, measures, residual=opts.a in _RESIDUAL_COLUMNS or opts.b in _RESIDUAL_COLUMNS
    )
    family = _runs(all_runs, runs)
    if isinstance(pairs, str):
        _choice(pairs, ["all"], "pairs", {})
    as_run = str(int(cast(int, baseline))) if is_integer(baseline) else None
    if as_run in all_runs:  # baseline=1 and a run '1' (e.g. from an integer run column)
        raise ParameterError(
            f"baseline={baseline!r} is both a run id and a number; pass baseline='{as_run}' "
            f"for the run or baseline={float(cast(int, baseline))!r} for a fixed score"
        )
    if isinstance(baseline, str) and baseline not in family:
        raise ParameterError(_not_a_run(baseline, family, "baseline"))
    explicit = (
        _explicit_pairs(pairs, family) if pairs is not None and not isinstance(pairs, str) else None
    )
    # every run of ``runs`` takes part, whichever rows are asked for: the missing-query
    # policy, the ANOVA (effect_size="sakai") and the Tukey interval are over them all
    taking_part = family
    if not one_sample and len(taking_part) < 2:
        held = f"{'runs= keeps' if runs is not None else 'the frame holds'} {len(taking_part)} "
        held += f"({', '.join(map(repr, taking_part)) or 'none'})"
        raise _TooFewRuns(
            f"compare needs at least two runs; {held}; to test one run against a fixed score "
            "pass baseline=<number>",
            held,
        )
    frames = []
    for measure in chosen_measures:
        mats = _matrices(df, measure, taking_part, a=opts.a, b=opts.b, missing=missing)
        frames.append(
            _compare_measure(
                mats, opts, baseline=baseline, explicit=explicit, one_sample=one_sample
            )
        )
    return pl.concat(frames, how="vertical")


class _TooFewRuns(EmptyInputError):
    """Fewer than two runs to compare; ``held`` says how many, for :func:`compare_bounds`
    to word its own message (its one-sided pairs take no fixed-score baseline)."""

    def __init__(self, message: str, held: str) -> None:
        super().__init__(message)
        self.held = held


def _progress_option(progress: Any) -> ProgressOption:
    check_progress(progress)
    return cast(ProgressOption, progress)


def _options(**kw: Any) -> tuple[_Options, bool]:
    test = _choice(kw["test"], list(TESTS), "test", _TEST_ALIASES)
    spec = TESTS[test]
    correction = _choice(kw["correction"], list(CORRECTIONS), "correction", _CORRECTION_ALIASES)
    alt = _choice(kw["alternative"], ALTERNATIVES, "alternative", {})
    _check_level(kw["alpha"], "alpha")
    alpha = float(kw["alpha"])
    conf = kw["confidence"]
    if conf is None:
        conf = 1 - alpha
    _check_level(conf, "confidence")
    _check_level(kw["power"], "power")
    a = kw["a"]
    b = kw["b"] if kw["b"] is not None else a
    for name, col in (("a", a), ("b", b)):
        if not isinstance(col, str) or not col:
            raise ParameterError(f"{name}={col!r}: give a column name such as 'value' or 'upper'")
    baseline, pairs = kw["baseline"], kw["pairs"]
    if baseline is not None and pairs is not None:
        raise ParameterError(
            f"give baseline= or pairs=, not both (baseline={baseline!r}, pairs={pairs!r})"
        )
    one_sample = is_number(baseline)
    if baseline is not None and not one_sample and not isinstance(baseline, str):
        raise ParameterError(
            f"baseline={baseline!r}: give a run id (str) or a fixed score (a number)"
        )
    if one_sample and not math.isfinite(float(baseline)):
        raise ParameterError(f"baseline={baseline!r}: a fixed score must be finite")
    if one_sample and abs(float(baseline)) > LARGEST_SCORE:
        raise ParameterError(
            f"baseline={baseline!r}: a fixed score must be within +-{LARGEST_SCORE:g}, as the "
            "scores are; divide both by a constant"
        )
    if one_sample and b != a:
        raise ParameterError(
            f"b={b!r} reads run_b's scores, and against a fixed score (baseline={baseline!r}) "
            "there is no run_b; leave b unset"
        )
    if spec.family_wise:
        if correction != "none":
            raise ParameterError(
                f"test={test!r} controls the family-wise error over all pairs itself; "
                f"pass correction='none' (not {correction!r})"
            )
        if alt != "two-sided":
            raise ParameterError(f"test={test!r} is two-sided; pass alternative='two-sided'")
        if one_sample:
            raise ParameterError(
                f"test={test!r} compares runs with each other, not with a fixed score; use "
                "test='t' (or another paired test) with baseline=<number>"
            )
        if a != b:
            raise ParameterError(
                f"test={test!r} compares the runs on one column; a={a!r} and b={b!r} differ "
                "(use a paired test such as 'wilcoxon' or 't')"
            )
    method = _choice(kw["method"], _METHODS, "method", {})
    if method == "approx" and test != "wilcoxon":
        raise ParameterError(f"method='approx' is for test='wilcoxon', not {test!r}")
    if method == "monte_carlo" and test != "randomization":
        raise ParameterError(f"method='monte_carlo' is for test='randomization', not {test!r}")
    if method == "exact" and test not in ("wilcoxon", "randomization"):
        raise ParameterError(
            f"method='exact' is for test='wilcoxon' or 'randomization', not {test!r}"
        )
    continuity = _choice(kw["continuity"], _CONTINUITY, "continuity", {})
    zero_method = _choice(kw["zero_method"], _ZERO_METHODS, "zero_method", {})
    if continuity == "seed003":
        if method == "exact":
            raise ParameterError(
                "continuity='seed003' corrects the normal approximation; it does not go with "
                "method='exact'"
            )
        if zero_method != "wilcox":
            raise ParameterError(
                "continuity='seed003' drops zero differences: zero_method='wilcox'"
            )
    ci = kw["ci"]
    if ci is not None:
        ci = _choice(ci, ("auto", *_CI_METHODS), "ci", {})
        if ci == "auto":
            ci = "tukey" if test == "tukey_hsd" else "t"
        if ci == "tukey" and (one_sample or a != b):
            raise ParameterError("ci='tukey' needs runs compared with each other on one column")
        if ci == "tukey" and alt != "two-sided":
            raise ParameterError("ci='tukey' is two-sided; pass alternative='two-sided'")
    es = _choice(kw["effect_size"], ("auto", *_EFFECT_SIZES), "effect_size", {})
    if es == "auto":
        all_pairs = kw["pairs"] == "all" or (baseline is None and pairs is None)
        es = (
            "sakai" if (all_pairs or spec.family_wise) and a == b and not one_sample else "cohen_dz"
        )
    elif es == "sakai" and (one_sample or a != b):
        raise ParameterError(
            "effect_size='sakai' divides by the ANOVA residual variance of runs compared on "
            "one column; use effect_size='cohen_dz'"
        )
    resamples = kw["resamples"]
    if not isinstance(resamples, (int, np.integer)) or isinstance(resamples, bool) or resamples < 1:
        raise ParameterError(f"resamples={resamples!r}: must be a positive integer (e.g. 10000)")
    mind = kw["min_difference"]
    if mind is not None and (not is_number(mind) or not 0 < mind < math.inf):
        raise ParameterError(
            f"min_difference={mind!r}: must be a positive number (or None: the observed difference)"
        )
    tol = kw["tolerance"]
    if not is_number(tol) or not 0 <= tol < 1:
        raise ParameterError(
            f"tolerance={tol!r}: must be a number in [0, 1), the relative rounding error "
            f"under which two differences are equal (default {RELATIVE_TOLERANCE:g}; 0 for none)"
        )
    opts = _Options(
        test=test,
        correction=correction,
        alternative=alt,
        alpha=alpha,
        ci=ci,
        confidence=float(conf),
        effect_size=es,
        resamples=int(resamples),
        seed=_seed_int(kw["seed"]),
        method=method,
        continuity=continuity,
        zero_method=zero_method,
        power=float(kw["power"]),
        min_difference=None if mind is None else float(mind),
        tolerance=float(tol),
        progress=_progress_option(kw.get("progress", False)),
        a=a,
        b=b,
    )
    return opts, one_sample


def _not_a_run(name: Any, runs: Sequence[str], what: str) -> str:
    lower = {r.lower(): r for r in runs}
    close = [lower[c] for c in difflib.get_close_matches(str(name).lower(), list(lower), n=3)]
    hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
    shown = ", ".join(map(repr, runs[:8])) + (f" and {len(runs) - 8} more" if len(runs) > 8 else "")
    return f"{what}={name!r} is not among the runs ({shown}){hint}"


def _measures(
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


def _is_run_id(x: Any) -> bool:
    return isinstance(x, str) or is_integer(x)


def _run_name(x: Any, runs: Sequence[str], what: str) -> str:
    """A run id as the frame holds it (ids are read as strings): a str, or an integer
    read as its decimal text (``1`` names the run ``'1'``)."""
    if not _is_run_id(x):
        raise ParameterError(
            f"{what}={x!r}: a run id is a str (or an integer, read as its decimal text)"
        )
    name = x if isinstance(x, str) else str(int(x))
    if name not in runs:
        raise ParameterError(_not_a_run(x, runs, what))
    return name


def _runs(all_runs: list[str], runs: Any) -> list[str]:
    """``runs=``: a list of run ids, or one id (a str is one run, not its characters)."""
    if runs is None:
        return all_runs
    if isinstance(runs, str):
        runs = [runs]
    if isinstance(runs, Mapping) or not isinstance(runs, Iterable):
        raise ParameterError(f"runs={runs!r}: give a run id or a list of run ids")
    return list(dict.fromkeys(_run_name(r, all_runs, "runs") for r in runs))


def _explicit_pairs(pairs: Any, runs: list[str]) -> list[tuple[str, str]]:
    """``pairs=``: a list of ``(run_a, run_b)``, or one pair (``("bm25", "dense")``)."""
    if isinstance(pairs, (tuple, list)) and len(pairs) == 2 and all(map(_is_run_id, pairs)):
        pairs = [pairs]
    out = []
    for pair in pairs:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise ParameterError(f"pairs: {pair!r} is not a (run_a, run_b) pair")
        ra, rb = (_run_name(r, runs, "pairs") for r in pair)
        if ra == rb:
            raise ParameterError(f"pairs: ({ra!r}, {rb!r}) compares a run with itself")
        out.append((ra, rb))
    if not out:
        raise ParameterError("pairs=[]: name at least one (run_a, run_b) pair, or pairs='all'")
    return out


def _pair_indices(
    mats: _Matrices,
    baseline: str | float | None,
    explicit: list[tuple[str, str]] | None,
    tolerance: float,
) -> tuple[np.ndarray, np.ndarray]:
    pos = {r: i for i, r in enumerate(mats.runs)}
    if explicit is not None:
        ia = np.array([pos[x] for x, _ in explicit])
        ib = np.array([pos[y] for _, y in explicit])
        return ia, ib
    if isinstance(baseline, str):
        j = pos[baseline]
        ia = np.array([i for i in range(len(mats.runs)) if i != j])
        return ia, np.full(ia.shape, j)
    m = len(mats.runs)
    ia, ib = np.triu_indices(m, k=1)
    means = mats.xa.mean(axis=1)
    means = snap(means, np.abs(means), tolerance)  # equal means: the runs' order decides
    swap = means[ib] > means[ia]
    return np.where(swap, ib, ia), np.where(swap, ia, ib)


def _compare_measure(
    mats: _Matrices,
    opts: _Options,
    *,
    baseline: str | float | None,
    explicit: list[tuple[str, str]] | None,
    one_sample: bool,
) -> pl.DataFrame:
    """One measure's rows: pairs, test, interval, effect size, correction, counts."""
    from scipy import stats

    n = len(mats.queries)
    if one_sample:
        mu = float(cast(float, baseline))
        ia = np.arange(len(mats.runs))
        xa = mats.xa
        xb_rows: np.ndarray | float = mu
        d = xa - mu
        scale = np.maximum(np.abs(xa), abs(mu))  # of each difference: its operands
        run_b: list[str | None] = [None] * len(ia)
        mean_b = np.full(len(ia), mu)
    else:
        ia, ib = _pair_indices(mats, baseline, explicit, opts.tolerance)
        xa = mats.xa[ia]
        xb_rows = mats.xb[ib]
        d = xa - xb_rows
        scale = np.maximum(np.abs(xa), np.abs(xb_rows))  # of each difference: its operands
        run_b = [mats.runs[i] for i in ib]
        mean_b = mats.xb.mean(axis=1)[ib]
    mean_a = mats.xa.mean(axis=1)[ia]
    delta = d.mean(axis=1)
    # means equal up to rounding (the same scores in another order): a difference of 0
    close = np.abs(delta) <= opts.tolerance * np.maximum(np.abs(mean_a), np.abs(mean_b))
    delta = np.where(close, 0.0, delta)
    # the differences as exact arithmetic has them, for what ranks or counts them
    exact = snap_signed(d, scale, opts.tolerance)
    sd = exact.std(axis=1, ddof=1)
    flat = np.all(exact == 0, axis=1)
    rows = d.shape[0]
    _check_resamples(opts, n, mats.measure)
    resamples_col: np.ndarray | None = None
    mc_error: np.ndarray | None = None
    ve: float | None = None
    df_e = 0
    alt = opts.alternative
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        tres = _t_test(xa, xb_rows, alt)
        if opts.test == "t":
            stat, p = np.asarray(tres.statistic, float), np.asarray(tres.pvalue, float)
        elif opts.test == "wilcoxon":
            stat, p = _wilcoxon(exact, alt, opts.method, opts.continuity, opts.zero_method)
        elif opts.test == "sign":
            stat, p = _sign_test(exact, alt)
        elif opts.test == "randomization":
            stat, p, mc_error, used = _randomization(
                d, alt, opts.resamples, opts.method, opts.seed, opts.progress
            )
            resamples_col = np.full(rows, used)
        elif opts.test == "bootstrap":
            stat, p, mc_error = _bootstrap_test(d, alt, opts.resamples, opts.seed, opts.progress)
            resamples_col = np.full(rows, opts.resamples)
        elif opts.test == "tukey_hsd":
            stat, p, ve, df_e = _tukey(mats.xa, delta)
        else:  # randomized_tukey_hsd
            p, mc_error = _randomized_tukey(
                mats.xa, delta, opts.resamples, opts.seed, opts.progress
            )
            stat = delta.copy()
            resamples_col = np.full(rows, opts.resamples)
    stat = np.where(flat, np.nan, stat)
    p = np.where(flat, 1.0, p)
    if mc_error is not None:
        mc_error = np.where(flat, 0.0, mc_error)
    # confidence interval of delta
    low = np.full(rows, np.nan)
    high = np.full(rows, np.nan)
    if opts.ci == "t":
        with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            interval = tres.confidence_interval(opts.confidence)
        low, high = np.asarray(interval.low, float), np.asarray(interval.high, float)
        if one_sample:
            low, high = low - mean_b, high - mean_b
    elif opts.ci in ("percentile", "bca"):
        low, high = _bootstrap_ci(d, opts.ci, opts.confidence, alt, opts.resamples, opts.seed)
        if resamples_col is None:
            resamples_col = np.full(rows, opts.resamples)
    elif opts.ci == "tukey":
        if ve is None:
            ve, df_e = _anova_residual_variance(mats.xa)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            qcrit = float(stats.studentized_range.ppf(opts.confidence, len(mats.runs), df_e))
        half = qcrit * math.sqrt(ve / n)
        low, high = delta - half, delta + half
    if opts.ci is not None:  # all differences 0: the interval is the point 0
        low, high = np.where(flat, 0.0, low), np.where(flat, 0.0, high)
    # effect size
    with np.errstate(divide="ignore", invalid="ignore"):
        if opts.effect_size == "sakai":
            if ve is None:
                ve, df_e = _anova_residual_variance(mats.xa)
            effect = delta / math.sqrt(ve) if ve > 0 else np.full(rows, np.nan)
        else:
            effect = np.where(sd > 0, delta / sd, np.nan)
    target = opts.min_difference if opts.min_difference is not None else np.abs(delta)
    needed = topic_set_size(
        sd, target, alpha=opts.alpha, power=opts.power, alternative=cast(Alternative, alt)
    )
    p_adj = _adjust(np.asarray(p, dtype=float), opts.correction)
    direction = np.where(flat, 0, _direction(exact, delta, opts))
    wins = (exact > 0).sum(axis=1)
    ties = (exact == 0).sum(axis=1)
    losses = (exact < 0).sum(axis=1)

    def col(x: np.ndarray | None, dtype: Any = pl.Float64) -> pl.Series:
        if x is None:
            return pl.Series([None] * rows, dtype=dtype)
        s = pl.Series(np.asarray(x, dtype=float))
        s = s.fill_nan(None)
        return s.cast(dtype)

    out = pl.DataFrame(
        {
            "measure": [mats.measure] * rows,
            "run_a": [mats.runs[i] for i in ia],
            "run_b": pl.Series(run_b, dtype=pl.String),
            "n": pl.Series([n] * rows, dtype=pl.Int64),
            "mean_a": mean_a,
            "mean_b": mean_b,
            "delta": delta,
            "ci_low": col(low if opts.ci else None),
            "ci_high": col(high if opts.ci else None),
            "effect_size": col(effect),
            "statistic": col(stat),
            "p_value": p,
            "p_adjusted": p_adj,
            "significant": p_adj <= opts.alpha,
            "direction": pl.Series(direction.astype(np.int8), dtype=pl.Int8),
            "wins": wins.astype(np.int64),
            "ties": ties.astype(np.int64),
            "losses": losses.astype(np.int64),
            "topics_needed": col(needed, pl.Int64),
            "test": [opts.test] * rows,
            "alternative": [opts.alternative] * rows,
            "correction": [opts.correction] * rows,
            "alpha": [opts.alpha] * rows,
            "ci_method": pl.Series([opts.ci] * rows, dtype=pl.String),
            "confidence": pl.Series(
                [opts.confidence if opts.ci else None] * rows, dtype=pl.Float64
            ),
            "effect_size_kind": [opts.effect_size] * rows,
            "resamples": col(resamples_col, pl.Int64),
            "mc_error": col(mc_error),
            "seed": pl.Series(
                [opts.seed if resamples_col is not None else None] * rows, dtype=pl.Int64
            ),
            "column_a": [opts.a] * rows,
            "column_b": pl.Series([None if one_sample else opts.b] * rows, dtype=pl.String),
        }
    )
    return out.select(RESULT_COLUMNS)


# --------------------------------------------------------------------------- seed 002


#: Seed 002's Table 5: the column run_b is read from, per comparison.
BOUNDS: dict[str, str] = {
    "base_vs_base": "value",
    "base_vs_top": "upper",
    "base_vs_projected": "projected",
}


def compare_bounds(
    per_query: pl.DataFrame | pl.LazyFrame,
    *,
    measures: str | Sequence[str] | None = None,
    runs: str | Sequence[str] | None = None,
    test: str = "wilcoxon",
    alpha: float = 0.05,
    missing: Missing = "error",
    **options: Any,
) -> pl.DataFrame:
    """Moffat, Webber and Zobel's Table 5: how many pairs of runs stay significantly
    different once the residuals are taken into account.

    For every pair of runs (``pairs="all"``: ``run_a`` is the run with the higher mean
    base score), a one-tailed paired test (``alternative="greater"``; the paper's
    Wilcoxon by default) of run_a's base scores (``value``) against run_b's

    * base scores (``base_vs_base``),
    * tops of the residual ranges, value + residual (``base_vs_top``: run_a is better even
      if every unjudged document of run_b were relevant),
    * projected scores (``base_vs_projected``),

    counted at level ``alpha`` without correction, as the paper counts them.

    Parameters
    ----------
    per_query
        Per-query scores with residuals: ``evaluate(..., per_query=True, residuals=True)``
        on measures that have a residual (RBP, P, SDCG, the C/W/L measures).
    measures, runs, test, alpha, missing
        As for :func:`compare` (``missing`` applies to each comparison separately: a
        query whose projection is undefined, residual 1, is missing there). ``test`` is a
        paired one-sided test: not the (two-sided, family-wise) Tukey tests.
    **options
        Passed to :func:`compare` (``continuity``, ``method``, ``seed``...).

    Returns
    -------
    polars.DataFrame
        ``measure, comparison, column_b, pairs, n, significant, fraction``: per measure
        and comparison, the number of pairs, of topics, of significant pairs and their
        fraction.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> per_q = pl.DataFrame({
    ...     "run_id": ["a"] * 5 + ["b"] * 5,
    ...     "query_id": ["1", "2", "3", "4", "5"] * 2,
    ...     "measure": "RBP(p=0.8)",
    ...     "value": [0.6, 0.7, 0.5, 0.8, 0.9, 0.2, 0.3, 0.1, 0.3, 0.4],
    ...     "residual": [0.1, 0.0, 0.1, 0.1, 0.0, 0.5, 0.4, 0.6, 0.4, 0.5],
    ...     "projected": [0.67, 0.7, 0.56, 0.9, 0.9, 0.4, 0.5, 0.25, 0.9, 0.8]})
    >>> ir.compare_bounds(per_q).select("comparison", "pairs", "significant", "fraction")
    shape: (3, 4)
    ┌───────────────────┬───────┬─────────────┬──────────┐
    │ comparison        ┆ pairs ┆ significant ┆ fraction │
    │ ---               ┆ ---   ┆ ---         ┆ ---      │
    │ str               ┆ i64   ┆ i64         ┆ f64      │
    ╞═══════════════════╪═══════╪═════════════╪══════════╡
    │ base_vs_base      ┆ 1     ┆ 1           ┆ 1.0      │
    │ base_vs_top       ┆ 1     ┆ 0           ┆ 0.0      │
    │ base_vs_projected ┆ 1     ┆ 0           ┆ 0.0      │
    └───────────────────┴───────┴─────────────┴──────────┘
    """
    for key in ("pairs", "baseline", "a", "b", "alternative", "correction"):
        if key in options:
            raise ParameterError(f"compare_bounds sets {key}= itself (Table 5's design)")
    if TESTS[_choice(test, list(TESTS), "test", _TEST_ALIASES)].family_wise:
        raise ParameterError(
            f"test={test!r} is two-sided and family-wise, and compare_bounds runs one-sided "
            "paired tests (alternative='greater', Table 5's design); use test='wilcoxon' (the "
            "paper's), 't', 'sign', 'randomization' or 'bootstrap'"
        )
    frames = []
    for name, column in BOUNDS.items():
        try:
            cmp = compare(
                per_query,
                pairs="all",
                test=test,
                alternative="greater",
                alpha=alpha,
                a="value",
                b=column,
                measures=measures,
                runs=runs,
                missing=missing,
                **{"ci": None, **options},
            )
        except _TooFewRuns as exc:
            raise EmptyInputError(
                f"compare_bounds compares pairs of runs and needs at least two; {exc.held}"
            ) from None
        frames.append(
            cmp.group_by("measure", maintain_order=True).agg(
                pl.lit(name).alias("comparison"),
                pl.lit(column).alias("column_b"),
                pl.len().cast(pl.Int64).alias("pairs"),
                pl.col("n").first().alias("n"),
                pl.col("significant").sum().cast(pl.Int64).alias("significant"),
                pl.col("significant").mean().alias("fraction"),
            )
        )
    out = pl.concat(frames, how="vertical")
    order = {m: i for i, m in enumerate(out["measure"].unique(maintain_order=True).to_list())}
    return out.sort(pl.col("measure").replace_strict(order), maintain_order=True)
