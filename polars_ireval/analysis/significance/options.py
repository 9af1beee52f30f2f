"""The options of :func:`polars_ireval.compare`, checked once and together
(:func:`checked_options`), and the memory the resampling ones will take
(:func:`check_resamples`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from polars_ireval._base.numeric import RELATIVE_TOLERANCE, is_number
from polars_ireval._base.options import check_positive_int
from polars_ireval._base.progress import ProgressOption, check_progress
from polars_ireval._base.resources import require
from polars_ireval.analysis.significance.corrections import CORRECTION_ALIASES, CORRECTIONS
from polars_ireval.analysis.significance.inputs import (
    ALTERNATIVES,
    LARGEST_SCORE,
    check_level,
    choice,
)
from polars_ireval.analysis.significance.tests import (
    BLOCK_BYTES,
    MAX_EXACT_TOPICS,
    RESAMPLE_BYTES,
    RESAMPLE_TOPIC_BYTES,
    TEST_ALIASES,
    TESTS,
)
from polars_ireval.errors import ParameterError

_CI_METHODS = ("t", "percentile", "bca", "tukey")
_EFFECT_SIZES = ("cohen_dz", "sakai")
_METHODS = ("auto", "exact", "approx", "monte_carlo")
_CONTINUITY = ("none", "scipy", "seed003")
_ZERO_METHODS = ("wilcox", "pratt", "zsplit")


@dataclass(frozen=True)
class Options:
    """:func:`~polars_ireval.analysis.significance.comparison.compare`'s options, checked and
    canonical (``seed`` an integer, ``ci`` and ``effect_size`` resolved from ``"auto"``)."""

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


def checked_options(**kw: Any) -> tuple[Options, bool]:
    """:func:`~polars_ireval.analysis.significance.comparison.compare`'s options (its keyword
    arguments but the frame's, the measures, runs and missing policy), checked alone and
    together, canonical; and whether the comparison is against a fixed score."""
    test = choice(kw["test"], list(TESTS), "test", TEST_ALIASES)
    correction = choice(kw["correction"], list(CORRECTIONS), "correction", CORRECTION_ALIASES)
    alt = choice(kw["alternative"], ALTERNATIVES, "alternative", {})
    check_level(kw["alpha"], "alpha")
    alpha = float(kw["alpha"])
    conf = kw["confidence"]
    if conf is None:
        conf = 1 - alpha
    check_level(conf, "confidence")
    check_level(kw["power"], "power")
    a = kw["a"]
    b = kw["b"] if kw["b"] is not None else a
    for name, col in (("a", a), ("b", b)):
        if not isinstance(col, str) or not col:
            raise ParameterError(f"{name}={col!r}: give a column name such as 'value' or 'upper'")
    baseline, pairs = kw["baseline"], kw["pairs"]
    one_sample = _one_sample(baseline, pairs, a=a, b=b)
    if TESTS[test].family_wise:
        _check_family_wise(test, correction, alt, one_sample=one_sample, a=a, b=b)
    method, continuity, zero_method = _test_method(kw, test)
    ci = _interval(kw["ci"], test, alt, one_sample=one_sample, a=a, b=b)
    all_pairs = kw["pairs"] == "all" or (baseline is None and pairs is None)
    es = _effect_size(kw["effect_size"], test, all_pairs, one_sample=one_sample, a=a, b=b)
    resamples, mind, tol = _check_numbers(kw)
    opts = Options(
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


def _one_sample(baseline: Any, pairs: Any, *, a: str, b: str) -> bool:
    """Whether ``baseline`` is a fixed score (a one-sample comparison), after checking
    that it goes with ``pairs`` and the columns."""
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
    return one_sample


def _check_family_wise(
    test: str, correction: str, alt: str, *, one_sample: bool, a: str, b: str
) -> None:
    """The Tukey tests: two-sided, family-wise by themselves, runs against runs on one column."""
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


def _test_method(kw: dict[str, Any], test: str) -> tuple[str, str, str]:
    """``method``, ``continuity`` and ``zero_method``, checked against the test."""
    method = choice(kw["method"], _METHODS, "method", {})
    if method == "approx" and test != "wilcoxon":
        raise ParameterError(f"method='approx' is for test='wilcoxon', not {test!r}")
    if method == "monte_carlo" and test != "randomization":
        raise ParameterError(f"method='monte_carlo' is for test='randomization', not {test!r}")
    if method == "exact" and test not in ("wilcoxon", "randomization"):
        raise ParameterError(
            f"method='exact' is for test='wilcoxon' or 'randomization', not {test!r}"
        )
    continuity = choice(kw["continuity"], _CONTINUITY, "continuity", {})
    zero_method = choice(kw["zero_method"], _ZERO_METHODS, "zero_method", {})
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
    return method, continuity, zero_method


def _interval(ci: Any, test: str, alt: str, *, one_sample: bool, a: str, b: str) -> str | None:
    """``ci``: ``"auto"`` resolved for the test, ``"tukey"`` checked against the design."""
    if ci is not None:
        ci = choice(ci, ("auto", *_CI_METHODS), "ci", {})
        if ci == "auto":
            ci = "tukey" if test == "tukey_hsd" else "t"
        if ci == "tukey" and (one_sample or a != b):
            raise ParameterError("ci='tukey' needs runs compared with each other on one column")
        if ci == "tukey" and alt != "two-sided":
            raise ParameterError("ci='tukey' is two-sided; pass alternative='two-sided'")
    return cast("str | None", ci)


def _effect_size(
    effect_size: Any, test: str, all_pairs: bool, *, one_sample: bool, a: str, b: str
) -> str:
    """``effect_size``: ``"auto"`` resolved (Sakai's for all pairs and the Tukey tests on
    one column), ``"sakai"`` checked against the design."""
    es = choice(effect_size, ("auto", *_EFFECT_SIZES), "effect_size", {})
    if es == "auto":
        family_wise = TESTS[test].family_wise
        es = "sakai" if (all_pairs or family_wise) and a == b and not one_sample else "cohen_dz"
    elif es == "sakai" and (one_sample or a != b):
        raise ParameterError(
            "effect_size='sakai' divides by the ANOVA residual variance of runs compared on "
            "one column; use effect_size='cohen_dz'"
        )
    return es


def _check_numbers(kw: dict[str, Any]) -> tuple[Any, Any, Any]:
    """``resamples``, ``min_difference`` and ``tolerance``, checked (not yet converted)."""
    resamples = kw["resamples"]
    check_positive_int("resamples", resamples, what="the number of resamples (e.g. 10000)")
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
    return resamples, mind, tol


def _progress_option(progress: Any) -> ProgressOption:
    check_progress(progress)
    return cast(ProgressOption, progress)


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


def _resampling_estimate(opts: Options, n: int) -> tuple[int, str]:
    """The bytes the resampling test and interval of ``opts`` hold at once on ``n``
    topics (the larger of the two: one runs after the other), and which one it is."""
    r, per_topic = opts.resamples, RESAMPLE_TOPIC_BYTES * n
    parts = {"": 0}
    if opts.test == "randomization":
        exact = opts.method == "exact" or (opts.method == "auto" and 2**n <= r)
        # exact on more than MAX_EXACT_TOPICS topics is refused before anything is drawn
        flips = (2**n if n <= MAX_EXACT_TOPICS else 0) if exact else r
        parts["randomization"] = flips * (per_topic + RESAMPLE_BYTES["randomization"])
    elif opts.test == "bootstrap":
        parts["bootstrap"] = r * (per_topic + RESAMPLE_BYTES["bootstrap"])
    elif opts.test == "randomized_tukey_hsd":
        parts["randomized_tukey_hsd"] = r * RESAMPLE_BYTES["tukey"] + BLOCK_BYTES
    if opts.ci in ("percentile", "bca"):
        parts[f"ci={opts.ci!r}"] = r * (per_topic + RESAMPLE_BYTES["interval"])
    which = max(parts, key=lambda k: parts[k])
    return parts[which], which


def check_resamples(opts: Options, n: int, measure: str) -> None:
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
