"""``compare``: significance tests, effect sizes and confidence intervals between runs,
one measure at a time (see the package's docstring)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

import numpy as np
import polars as pl

from polars_ireval._base.numeric import RELATIVE_TOLERANCE, is_integer, snap, snap_signed
from polars_ireval._base.options import Missing, check_missing, renamed
from polars_ireval._base.progress import ProgressOption
from polars_ireval.analysis.significance.corrections import adjust
from polars_ireval.analysis.significance.inputs import (
    RESIDUAL_COLUMNS,
    Alternative,
    Matrices,
    check_values,
    choice,
    chosen_measures,
    chosen_pairs,
    chosen_runs,
    collect,
    matrices,
    not_a_run,
)
from polars_ireval.analysis.significance.options import Options, check_resamples, checked_options
from polars_ireval.analysis.significance.power import topic_set_size
from polars_ireval.analysis.significance.tests import (
    anova_residual_variance,
    bootstrap_ci,
    bootstrap_test,
    pair_direction,
    randomization,
    randomized_tukey,
    sign_test,
    t_test,
    tukey,
    wilcoxon,
)
from polars_ireval.errors import EmptyInputError, ParameterError

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


@renamed(per_query="results", runs="run_ids")
def compare(
    results: pl.DataFrame | pl.LazyFrame,
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
    run_ids: str | Sequence[str] | None = None,
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
    results
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
        compared (``run_ids``), whatever rows ``baseline``/``pairs`` ask for.
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
    run_ids
        The runs taking part, a list of run ids or one (default: every run of the frame).
        As everywhere a run is named (``baseline``, ``pairs``), a str is one id (never its
        characters) and an integer names the run whose id is its decimal text (ids are
        read as strings: ``run_ids=[1, 2]`` are the runs ``'1'`` and ``'2'``). The
        missing-query policy, the ANOVA and the Tukey families are over these runs, with
        ``baseline`` or explicit ``pairs`` as with every pair: pass ``run_ids`` to narrow
        them (e.g. to the runs of the pairs). Formerly ``runs=`` (still accepted).
    missing
        Queries scored for some runs and not others (absent rows or null scores):
        ``"error"`` (default; the message names them), ``"skip"`` (compare each measure
        on the queries every run has; formerly ``"intersect"``, still accepted) or
        ``"zero"`` (score them 0; refused for the residual columns, whose value for an
        absent query is unknown).
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
        How the p-value is computed: ``"auto"``, ``"exact"``, or ``"approx"`` (Wilcoxon:
        scipy's normal approximation) / ``"monte_carlo"`` (randomization). ``"auto"``:
        Wilcoxon as scipy decides for each pair alone; randomization exact when ``2**n <=
        resamples``.
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
    >>> results = pl.DataFrame({
    ...     "run_id": ["bm25"] * 6 + ["dense"] * 6,
    ...     "query_id": ["q1", "q2", "q3", "q4", "q5", "q6"] * 2,
    ...     "measure": "nDCG@10",
    ...     "value": [0.2, 0.5, 0.4, 0.1, 0.6, 0.3, 0.4, 0.6, 0.4, 0.3, 0.8, 0.6]})
    >>> cmp = ir.compare(results, baseline="bm25", test="t")
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

    >>> ir.compare(results, baseline="bm25", test="randomization").select(
    ...     "statistic", "p_value", "resamples", "mc_error")
    shape: (1, 4)
    ┌───────────┬─────────┬───────────┬──────────┐
    │ statistic ┆ p_value ┆ resamples ┆ mc_error │
    │ ---       ┆ ---     ┆ ---       ┆ ---      │
    │ f64       ┆ f64     ┆ i64       ┆ f64      │
    ╞═══════════╪═════════╪═══════════╪══════════╡
    │ 0.166667  ┆ 0.0625  ┆ 64        ┆ 0.0      │
    └───────────┴─────────┴───────────┴──────────┘
    >>> ir.compare(results, baseline=0.3, alternative="greater").select(
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
    opts, one_sample = checked_options(
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
    missing = check_missing(missing)  # "Error" is "error"
    df = collect(
        results, a=opts.a, b=opts.b, run_col=run_col, query_col=query_col, measure_col=measure_col
    )
    check_values(df, opts.a, opts.b)
    all_runs = df["run"].unique(maintain_order=True).to_list()
    measure_names = chosen_measures(
        df, measures, residual=opts.a in RESIDUAL_COLUMNS or opts.b in RESIDUAL_COLUMNS
    )
    taking_part, explicit = _taking_part(
        all_runs, run_ids=run_ids, baseline=baseline, pairs=pairs, one_sample=one_sample
    )
    frames = []
    for measure in measure_names:
        mats = matrices(df, measure, taking_part, a=opts.a, b=opts.b, missing=missing)
        frames.append(
            _compare_measure(
                mats, opts, baseline=baseline, explicit=explicit, one_sample=one_sample
            )
        )
    return pl.concat(frames, how="vertical")


def _taking_part(
    all_runs: list[str], *, run_ids: Any, baseline: Any, pairs: Any, one_sample: bool
) -> tuple[list[str], list[tuple[str, str]] | None]:
    """The runs taking part (``run_ids``, checked with ``baseline`` and ``pairs``) and the
    explicit pairs, if any."""
    family = chosen_runs(all_runs, run_ids)
    if isinstance(pairs, str):
        choice(pairs, ["all"], "pairs", {})
    as_run = str(int(cast(int, baseline))) if is_integer(baseline) else None
    if as_run in all_runs:  # baseline=1 and a run '1' (e.g. from an integer run column)
        raise ParameterError(
            f"baseline={baseline!r} is both a run id and a number; pass baseline='{as_run}' "
            f"for the run or baseline={float(cast(int, baseline))!r} for a fixed score"
        )
    if isinstance(baseline, str) and baseline not in family:
        raise ParameterError(not_a_run(baseline, family, "baseline"))
    explicit = (
        chosen_pairs(pairs, family) if pairs is not None and not isinstance(pairs, str) else None
    )
    # every run of ``run_ids`` takes part, whichever rows are asked for: the missing-query
    # policy, the ANOVA (effect_size="sakai") and the Tukey interval are over them all
    taking_part = family
    if not one_sample and len(taking_part) < 2:
        held = f"{'run_ids= keeps' if run_ids is not None else 'the frame holds'} "
        held += f"{len(taking_part)} "
        held += f"({', '.join(map(repr, taking_part)) or 'none'})"
        raise TooFewRuns(
            f"compare needs at least two runs; {held}; to test one run against a fixed score "
            "pass baseline=<number>",
            held,
        )
    return taking_part, explicit


class TooFewRuns(EmptyInputError):
    """Fewer than two runs to compare; ``held`` says how many, for :func:`compare_bounds`
    to word its own message (its one-sided pairs take no fixed-score baseline)."""

    def __init__(self, message: str, held: str) -> None:
        super().__init__(message)
        self.held = held


def _pair_indices(
    mats: Matrices,
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
    mats: Matrices,
    opts: Options,
    *,
    baseline: str | float | None,
    explicit: list[tuple[str, str]] | None,
    one_sample: bool,
) -> pl.DataFrame:
    """One measure's rows: pairs, test, interval, effect size, correction, counts."""
    pairs = _differences(mats, opts, baseline=baseline, explicit=explicit, one_sample=one_sample)
    check_resamples(opts, len(mats.queries), mats.measure)
    tested = _test(mats, opts, pairs)
    low, high = _interval(mats, opts, pairs, tested, one_sample=one_sample)
    effect = _effect_size(mats, opts, pairs, tested)
    return _rows(mats, opts, pairs, tested, low, high, effect, one_sample=one_sample)


@dataclass(frozen=True)
class _Differences:
    """The pairs of one measure and their per-query differences (one row per pair)."""

    ia: np.ndarray  # run_a's row of the matrices, per pair
    run_b: list[str | None]  # None against a fixed score
    xa: np.ndarray  # run_a's scores
    xb: np.ndarray | float  # run_b's scores, or the fixed score
    d: np.ndarray  # xa - xb, as computed
    exact: np.ndarray  # d as exact arithmetic has it (``tolerance``): what ranks or counts
    mean_a: np.ndarray
    mean_b: np.ndarray
    delta: np.ndarray  # mean difference, 0 when the means are equal up to rounding
    sd: np.ndarray  # standard deviation of ``exact``
    flat: np.ndarray  # every difference 0

    @property
    def rows(self) -> int:
        return int(self.d.shape[0])


def _differences(
    mats: Matrices,
    opts: Options,
    *,
    baseline: str | float | None,
    explicit: list[tuple[str, str]] | None,
    one_sample: bool,
) -> _Differences:
    """The pairs asked for (or every run against a fixed score) and their differences."""
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
    return _Differences(
        ia=ia,
        run_b=run_b,
        xa=xa,
        xb=xb_rows,
        d=d,
        exact=exact,
        mean_a=mean_a,
        mean_b=mean_b,
        delta=delta,
        sd=exact.std(axis=1, ddof=1),
        flat=np.all(exact == 0, axis=1),
    )


@dataclass(frozen=True)
class _Tested:
    """What the test gave, per pair."""

    tres: Any  # scipy's t-test result (its interval serves ci="t" whatever the test)
    stat: np.ndarray
    p: np.ndarray
    mc_error: np.ndarray | None  # resampling tests only
    resamples: np.ndarray | None  # resampling tests only
    ve: float | None = None  # the ANOVA residual variance, when the test computed it
    df_e: int = 0


def _test(mats: Matrices, opts: Options, pairs: _Differences) -> _Tested:
    """Run ``opts.test`` on every pair; all differences 0 give p = 1 and no statistic."""
    rows, d, exact, delta = pairs.rows, pairs.d, pairs.exact, pairs.delta
    resamples_col: np.ndarray | None = None
    mc_error: np.ndarray | None = None
    ve: float | None = None
    df_e = 0
    alt = opts.alternative
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        tres = t_test(pairs.xa, pairs.xb, alt)
        if opts.test == "t":
            stat, p = np.asarray(tres.statistic, float), np.asarray(tres.pvalue, float)
        elif opts.test == "wilcoxon":
            stat, p = wilcoxon(exact, alt, opts.method, opts.continuity, opts.zero_method)
        elif opts.test == "sign":
            stat, p = sign_test(exact, alt)
        elif opts.test == "randomization":
            stat, p, mc_error, used = randomization(
                d, alt, opts.resamples, opts.method, opts.seed, opts.progress
            )
            resamples_col = np.full(rows, used)
        elif opts.test == "bootstrap":
            stat, p, mc_error = bootstrap_test(d, alt, opts.resamples, opts.seed, opts.progress)
            resamples_col = np.full(rows, opts.resamples)
        elif opts.test == "tukey_hsd":
            stat, p, ve, df_e = tukey(mats.xa, delta)
        else:  # randomized_tukey_hsd
            p, mc_error = randomized_tukey(mats.xa, delta, opts.resamples, opts.seed, opts.progress)
            stat = delta.copy()
            resamples_col = np.full(rows, opts.resamples)
    flat = pairs.flat
    if mc_error is not None:
        mc_error = np.where(flat, 0.0, mc_error)
    return _Tested(
        tres=tres,
        stat=np.where(flat, np.nan, stat),
        p=np.where(flat, 1.0, p),
        mc_error=mc_error,
        resamples=resamples_col,
        ve=ve,
        df_e=df_e,
    )


def _anova(mats: Matrices, tested: _Tested) -> tuple[float, int]:
    """The two-way ANOVA's residual variance and its df: the test's, or computed."""
    if tested.ve is not None:
        return tested.ve, tested.df_e
    return anova_residual_variance(mats.xa)


def _interval(
    mats: Matrices, opts: Options, pairs: _Differences, tested: _Tested, *, one_sample: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The confidence interval of ``delta`` by ``opts.ci`` (NaN without one)."""
    from scipy import stats

    rows, delta = pairs.rows, pairs.delta
    low = np.full(rows, np.nan)
    high = np.full(rows, np.nan)
    if opts.ci == "t":
        with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            interval = tested.tres.confidence_interval(opts.confidence)
        low, high = np.asarray(interval.low, float), np.asarray(interval.high, float)
        if one_sample:
            low, high = low - pairs.mean_b, high - pairs.mean_b
    elif opts.ci in ("percentile", "bca"):
        low, high = bootstrap_ci(
            pairs.d, opts.ci, opts.confidence, opts.alternative, opts.resamples, opts.seed
        )
    elif opts.ci == "tukey":
        ve, df_e = _anova(mats, tested)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            qcrit = float(stats.studentized_range.ppf(opts.confidence, len(mats.runs), df_e))
        half = qcrit * math.sqrt(ve / len(mats.queries))
        low, high = delta - half, delta + half
    if opts.ci is not None:  # all differences 0: the interval is the point 0
        low, high = np.where(pairs.flat, 0.0, low), np.where(pairs.flat, 0.0, high)
    return low, high


def _effect_size(mats: Matrices, opts: Options, pairs: _Differences, tested: _Tested) -> np.ndarray:
    """``delta`` standardised: by sqrt(V_E) (``"sakai"``) or by the differences' sd."""
    delta = pairs.delta
    with np.errstate(divide="ignore", invalid="ignore"):
        if opts.effect_size == "sakai":
            ve, _ = _anova(mats, tested)
            return delta / math.sqrt(ve) if ve > 0 else np.full(pairs.rows, np.nan)
        return np.where(pairs.sd > 0, delta / pairs.sd, np.nan)


def _column(x: np.ndarray | None, rows: int, dtype: Any = pl.Float64) -> pl.Series:
    """A result column from an array whose NaN are nulls (all null for ``None``)."""
    if x is None:
        return pl.Series([None] * rows, dtype=dtype)
    s = pl.Series(np.asarray(x, dtype=float))
    s = s.fill_nan(None)
    return s.cast(dtype)


def _rows(
    mats: Matrices,
    opts: Options,
    pairs: _Differences,
    tested: _Tested,
    low: np.ndarray,
    high: np.ndarray,
    effect: np.ndarray,
    *,
    one_sample: bool,
) -> pl.DataFrame:
    """The result frame of one measure, columns :data:`RESULT_COLUMNS`: the estimates,
    the test, the correction over the rows, the topics needed and the counts."""
    rows, n, delta, exact = pairs.rows, len(mats.queries), pairs.delta, pairs.exact
    target = opts.min_difference if opts.min_difference is not None else np.abs(delta)
    needed = topic_set_size(
        pairs.sd,
        target,
        alpha=opts.alpha,
        power=opts.power,
        alternative=cast(Alternative, opts.alternative),
    )
    p_adj = adjust(np.asarray(tested.p, dtype=float), opts.correction)
    direction = np.where(pairs.flat, 0, pair_direction(exact, delta, opts))
    resamples_col = tested.resamples
    if resamples_col is None and opts.ci in ("percentile", "bca"):
        resamples_col = np.full(rows, opts.resamples)
    out = pl.DataFrame(
        {
            "measure": [mats.measure] * rows,
            "run_a": [mats.runs[i] for i in pairs.ia],
            "run_b": pl.Series(pairs.run_b, dtype=pl.String),
            "n": pl.Series([n] * rows, dtype=pl.Int64),
            "mean_a": pairs.mean_a,
            "mean_b": pairs.mean_b,
            "delta": delta,
            "ci_low": _column(low if opts.ci else None, rows),
            "ci_high": _column(high if opts.ci else None, rows),
            "effect_size": _column(effect, rows),
            "statistic": _column(tested.stat, rows),
            "p_value": tested.p,
            "p_adjusted": p_adj,
            "significant": p_adj <= opts.alpha,
            "direction": pl.Series(direction.astype(np.int8), dtype=pl.Int8),
            "wins": (exact > 0).sum(axis=1).astype(np.int64),
            "ties": (exact == 0).sum(axis=1).astype(np.int64),
            "losses": (exact < 0).sum(axis=1).astype(np.int64),
            "topics_needed": _column(needed, rows, pl.Int64),
            "test": [opts.test] * rows,
            "alternative": [opts.alternative] * rows,
            "correction": [opts.correction] * rows,
            "alpha": [opts.alpha] * rows,
            "ci_method": pl.Series([opts.ci] * rows, dtype=pl.String),
            "confidence": pl.Series(
                [opts.confidence if opts.ci else None] * rows, dtype=pl.Float64
            ),
            "effect_size_kind": [opts.effect_size] * rows,
            "resamples": _column(resamples_col, rows, pl.Int64),
            "mc_error": _column(tested.mc_error, rows),
            "seed": pl.Series(
                [opts.seed if resamples_col is not None else None] * rows, dtype=pl.Int64
            ),
            "column_a": [opts.a] * rows,
            "column_b": pl.Series([None if one_sample else opts.b] * rows, dtype=pl.String),
        }
    )
    return out.select(RESULT_COLUMNS)
