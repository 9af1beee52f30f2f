"""The statistical tests and intervals of a comparison, vectorised over the pairs of runs.

Each test takes the matrix of per-query differences (pairs x topics) or the runs x topics
scores of one measure and returns one statistic and p-value per pair: the paired t-test,
Wilcoxon's signed-rank test (as scipy decides for each pair alone, with the enumeration
scipy does for ties and zeros on few topics, and seed 003's normal approximation), the sign
test, Fisher's randomization test, the paired bootstrap test, Tukey's HSD and its randomised
version; then the bootstrap intervals of the mean difference. The resampling ones work in
chunks bounded by :data:`BLOCK_BYTES`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from polars_ireval._base.progress import ProgressOption, bar
from polars_ireval.errors import ParameterError


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
TEST_ALIASES = {
    "student": "t",
    "ttest": "t",
    "t-test": "t",
    "permutation": "randomization",
    "fisher": "randomization",
    "randomised_tukey_hsd": "randomized_tukey_hsd",
}

#: Memory for one block of resampled statistics (bytes): chunks are sized to stay under it.
BLOCK_BYTES = 64 * 2**20
#: The largest number of topics for which all 2**n sign flips are enumerated.
MAX_EXACT_TOPICS = 20
#: Bytes per resample and topic of the resampling tests and intervals (the sign flips or
#: multinomial counts, as integers then floats), and per resample besides (each pair's
#: block of statistics, when a block holds one pair). Peak RSS over the process's, three
#: runs of 25 topics and 10^6 resamples: randomization 474 MB (865 MB on 50 topics),
#: bootstrap 666 MB (1,056 MB), a percentile or BCa interval 490 MB (880 MB); randomised
#: Tukey HSD 298 MB for 10^7 trials (24 bytes a trial, in 64 MB blocks).
RESAMPLE_TOPIC_BYTES = 16
RESAMPLE_BYTES = {"randomization": 96, "bootstrap": 280, "interval": 96, "tukey": 24}


def t_test(xa: np.ndarray, xb: np.ndarray | float, alt: str) -> Any:
    """scipy's paired (or, against a number, one-sample) t-test, vectorised over rows."""
    from scipy import stats

    if isinstance(xb, float):
        return stats.ttest_1samp(xa, popmean=xb, axis=-1, alternative=alt)
    return stats.ttest_rel(xa, xb, axis=-1, alternative=alt)


def wilcoxon(
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


def pair_direction(d: np.ndarray, delta: np.ndarray, opts: Any) -> np.ndarray:
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


def sign_test(d: np.ndarray, alt: str) -> tuple[np.ndarray, np.ndarray]:
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
    return max(1, BLOCK_BYTES // (8 * max(width, 1)))


def randomization(
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
    if exact and n > MAX_EXACT_TOPICS:
        raise ParameterError(
            f"method='exact' enumerates 2**{n} sign flips, too many for {n} topics "
            f"(at most {MAX_EXACT_TOPICS}); use method='monte_carlo' with resamples="
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


def _studentized(x: np.ndarray) -> np.ndarray:
    """mean / (sd / sqrt(n)) along the last axis; 0/0 is 0, c/0 is +-inf."""
    n = x.shape[-1]
    m = _mean2d(x)
    s = np.sqrt(_mean2d((x - m[..., None]) ** 2) * n / (n - 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = m / (s / math.sqrt(n))
    return cast(np.ndarray, np.where((s == 0) & (m == 0), 0.0, t))


def bootstrap_test(
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


def anova_residual_variance(x: np.ndarray) -> tuple[float, int]:
    """V_E of the two-way ANOVA without replication (runs x topics) and its df."""
    m, n = x.shape
    resid = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    df = (m - 1) * (n - 1)
    return float((resid**2).sum() / df), df


def tukey(x: np.ndarray, delta: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, int]:
    """Tukey's HSD on the two-way ANOVA residual variance: q = |delta| / sqrt(V_E / n),
    p from scipy's studentized range with k = number of runs, df = (k - 1)(n - 1), kept
    within its bounds (:func:`studentized_range_sf`)."""
    m, n = x.shape
    ve, df = anova_residual_variance(x)
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
            p[finite] = studentized_range_sf(uniq, m, df)[inverse.ravel()]
    return q, p, ve, df


def studentized_range_sf(q: np.ndarray, k: int, df: int) -> np.ndarray:
    """P(Q > q) for the studentized range of ``k`` means with ``df`` degrees of freedom:
    scipy's value, held within the bounds that any two of the k means give.

    One pair's studentized difference is |t_df| sqrt(2), so with p₂ = P(|t_df| > q/√2)
    (scipy's t, accurate far in the tail), p₂ <= P(Q > q) <= C(k, 2) p₂ (Bonferroni). Far
    in the tail scipy's numerical integration stops at a floor (4.66e-15 for k = 3, df = 48,
    from q = 19 on, whatever q) or underflows to 0 (k = 59, df = 2842, from q = 12): a p of
    0 or one that no longer falls as q grows. Outside the bounds, or 0, the upper bound is
    the p-value: conservative, never 0, exact for k = 2."""
    from scipy import stats

    pair = 2.0 * stats.t.sf(q / math.sqrt(2.0), df)
    upper = np.minimum(1.0, k * (k - 1) / 2.0 * pair)
    value = stats.studentized_range.sf(q, k, df)
    inside = (value > 0.0) & (value >= pair) & (value <= upper)
    return np.where(inside, value, upper)


def randomized_tukey(
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


def _mean2d(x: np.ndarray) -> np.ndarray:
    """The mean along the last axis, reduced in one 2-D layout whatever the batch shape,
    so that a pair gives bit-for-bit the same mean alone or among ten thousand (scipy's
    bootstrap compares resampled means with the estimate: ties must stay ties)."""
    x = np.ascontiguousarray(x)
    return cast(np.ndarray, x.reshape(-1, x.shape[-1]).mean(axis=-1).reshape(x.shape[:-1]))


def _mean_stat(x: np.ndarray, axis: int = -1) -> np.ndarray:
    return _mean2d(np.moveaxis(np.asarray(x), axis, -1))


def bootstrap_ci(
    d: np.ndarray, how: str, confidence: float, alt: str, resamples: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """scipy.stats.bootstrap's interval for the mean difference of every pair, in chunks,
    each chunk with a fresh generator from ``seed``: a pair's interval is the one scipy
    gives for that pair alone with ``rng=numpy.random.default_rng(seed)``."""
    from scipy import stats

    low = np.empty(d.shape[0])
    high = np.empty(d.shape[0])
    step = max(1, BLOCK_BYTES // (8 * resamples * d.shape[1]))
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
