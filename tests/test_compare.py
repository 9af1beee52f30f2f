"""ir.compare against the reference implementations: scipy (tests, intervals, distributions),
statsmodels (corrections, two-way ANOVA, power), exact enumeration (Monte Carlo tests), on
the TREC-COVID round 1 runs in ../shared/data and on generated scores with ties and zeros."""

from __future__ import annotations

import functools
import math
import re
import warnings

import numpy as np
import polars as pl
import pytest
from scipy import stats

import polars_ireval as ir
from polars_ireval.analysis.significance import RESULT_COLUMNS, topic_set_size
from tests.paths import DATA, need_data

COVID = DATA / "trec-covid-r1"
#: A slice of TREC-COVID round 1: strong, middling and weak runs, two BM25 baselines.
COVID_RUNS = [
    "run1",
    "BBGhelani1",
    "BBGhelani2",  # the same nDCG@10 as BBGhelani1 on every topic but a few
    "xj4wang_run1",
    "run3",
    "cu_dbmi_bm25_1",
    "bm25_baseline",
    "smith.bm25",
    "BM25R2",
    "TMACC_SeTA_baseline",
]
MEASURES = ["nDCG@10", "AP", "RBP(p=0.8)"]


@functools.cache
def covid_per_query() -> pl.DataFrame:
    runs = ir.read_run([str(COVID / "runs" / f"{r}.gz") for r in COVID_RUNS], run_id="file")
    qrels = ir.read_qrels(COVID / "qrels-rnd1.txt")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ir.evaluate(runs, qrels, MEASURES, per_query=True, residuals=True)


@pytest.fixture
def covid() -> pl.DataFrame:
    need_data()
    return covid_per_query()


def generated(
    n_runs: int = 5, n_queries: int = 10, *, seed: int = 0, decimals: int | None = 1
) -> pl.DataFrame:
    """Scores in [0, 1] with a run effect; rounded (ties, zero differences) by default."""
    rng = np.random.default_rng(seed)
    effect = np.linspace(0, 0.3, n_runs)[:, None]
    x = np.clip(rng.beta(2, 3, size=(n_runs, n_queries)) + effect, 0, 1)
    if decimals is not None:
        x = x.round(decimals)
    return pl.DataFrame(
        {
            "run_id": np.repeat([f"r{i}" for i in range(n_runs)], n_queries),
            "query_id": np.tile([f"q{j:02d}" for j in range(n_queries)], n_runs),
            "measure": "M",
            "value": x.ravel(),
        }
    )


def scores(per_q: pl.DataFrame, measure: str, run: str, column: str = "value") -> np.ndarray:
    """One run's scores on one measure, by query id (the order compare uses)."""
    sub = per_q.filter((pl.col("measure") == measure) & (pl.col("run_id") == run)).sort("query_id")
    if column == "upper":
        return (sub["value"] + sub["residual"]).to_numpy()
    return sub[column].to_numpy()


def exact(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The differences x - y as exact arithmetic has them, for the rank and sign tests'
    oracles: rounded to 12 decimals, so that 0.3 - 0.1 (0.19999999999999998) and
    0.7 - 0.5 (0.20000000000000007) are the same 0.2 (the scores here are in [0, 1] and
    those that truly differ differ by far more)."""
    return np.round(x - y, 12)


def frames() -> list[tuple[str, pl.DataFrame]]:
    out = [("generated-ties", generated()), ("generated-smooth", generated(decimals=None, seed=1))]
    if COVID.is_dir():
        out.append(("covid", covid_per_query()))
    return out


FRAMES = pytest.mark.parametrize("name", ["generated-ties", "generated-smooth", "covid"])


def frame_named(name: str) -> pl.DataFrame:
    if name == "covid":
        need_data()
        return covid_per_query()
    return dict(frames())[name]


# --------------------------------------------------------------------------- scipy


@FRAMES
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_t_test_equals_scipy_ttest_rel(name: str, alternative: str) -> None:
    per_q = frame_named(name)
    cmp = ir.compare(per_q, pairs="all", test="t", alternative=alternative, ci="t")
    assert cmp.columns == list(RESULT_COLUMNS)
    assert cmp.height == per_q["measure"].n_unique() * math.comb(per_q["run_id"].n_unique(), 2)
    for row in cmp.iter_rows(named=True):
        x = scores(per_q, row["measure"], row["run_a"])
        y = scores(per_q, row["measure"], row["run_b"])
        if np.all(x == y):
            assert row["p_value"] == 1.0 and row["statistic"] is None
            continue
        ref = stats.ttest_rel(x, y, alternative=alternative)
        ci = ref.confidence_interval(0.95)
        assert row["statistic"] == pytest.approx(ref.statistic, rel=1e-12, abs=1e-12)
        assert row["p_value"] == pytest.approx(ref.pvalue, rel=1e-12, abs=1e-12)
        for got, want in ((row["ci_low"], ci.low), (row["ci_high"], ci.high)):
            assert got == pytest.approx(want, rel=1e-12, abs=1e-12)
        assert row["delta"] == pytest.approx(np.mean(x - y), abs=1e-12)
        assert row["mean_a"] >= row["mean_b"]  # pairs="all": the higher mean is run_a
        assert (row["wins"], row["ties"], row["losses"]) == (
            int((x > y).sum()),
            int((x == y).sum()),
            int((x < y).sum()),
        )
        assert row["effect_size_kind"] == "sakai"


def test_baseline_rows_and_cohen_dz(covid: pl.DataFrame) -> None:
    cmp = ir.compare(covid, baseline="bm25_baseline", test="t", measures="AP")
    assert cmp["run_b"].unique().to_list() == ["bm25_baseline"]
    in_frame = covid["run_id"].unique(maintain_order=True).to_list()  # the frame's order
    assert cmp["run_a"].to_list() == [r for r in in_frame if r != "bm25_baseline"]
    for row in cmp.iter_rows(named=True):
        d = scores(covid, "AP", row["run_a"]) - scores(covid, "AP", "bm25_baseline")
        assert row["effect_size_kind"] == "cohen_dz"
        assert row["effect_size"] == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
        assert row["delta"] == pytest.approx(row["mean_a"] - row["mean_b"], abs=1e-15)


@FRAMES
def test_one_sample_t_equals_scipy_ttest_1samp(name: str) -> None:
    """Seed 003 eq. 12: t = (mean - mu) / (s / sqrt(n)) against a target score."""
    per_q = frame_named(name)
    cmp = ir.compare(per_q, baseline=0.5, test="t", alternative="greater")
    assert cmp["run_b"].null_count() == cmp.height and cmp["mean_b"].unique().to_list() == [0.5]
    for row in cmp.iter_rows(named=True):
        x = scores(per_q, row["measure"], row["run_a"])
        ref = stats.ttest_1samp(x, 0.5, alternative="greater")
        assert row["statistic"] == pytest.approx(ref.statistic, rel=1e-12)
        assert row["p_value"] == pytest.approx(ref.pvalue, rel=1e-12, abs=1e-12)
        hand = (x.mean() - 0.5) / (x.std(ddof=1) / math.sqrt(len(x)))  # eq. 12 itself
        assert row["statistic"] == pytest.approx(hand, rel=1e-12)
        low = ref.confidence_interval(0.95).low - 0.5
        assert row["ci_low"] == pytest.approx(low, rel=1e-12, abs=1e-12)
        assert row["ci_high"] is None or math.isinf(row["ci_high"])


WILCOXON_CASES = [
    # (method, continuity, zero_method, alternative)
    ("auto", "none", "wilcox", "two-sided"),
    ("auto", "scipy", "wilcox", "greater"),
    ("approx", "scipy", "wilcox", "two-sided"),
    ("approx", "none", "pratt", "less"),
    ("approx", "scipy", "zsplit", "two-sided"),
    ("exact", "none", "wilcox", "greater"),
    ("auto", "none", "pratt", "two-sided"),  # small n with zeros: scipy's permutation path
    ("auto", "scipy", "zsplit", "less"),
]


@pytest.mark.parametrize("name", ["generated-ties", "generated-smooth", "covid", "small"])
@pytest.mark.parametrize(("method", "continuity", "zero_method", "alternative"), WILCOXON_CASES)
def test_wilcoxon_equals_scipy_pair_by_pair(
    name: str, method: str, continuity: str, zero_method: str, alternative: str
) -> None:
    """scipy decides 'auto' per call; compare decides per pair as scipy would for it alone."""
    per_q = generated(6, 9, seed=3, decimals=2) if name == "small" else frame_named(name)
    cmp = ir.compare(
        per_q,
        pairs="all",
        test="wilcoxon",
        method=method,
        continuity=continuity,
        zero_method=zero_method,
        alternative=alternative,
    )
    scipy_method = {"approx": "asymptotic"}.get(method, method)
    for row in cmp.iter_rows(named=True):
        d = exact(
            scores(per_q, row["measure"], row["run_a"]), scores(per_q, row["measure"], row["run_b"])
        )
        if np.all(d == 0):
            assert row["p_value"] == 1.0
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = stats.wilcoxon(
                d,
                zero_method=zero_method,
                correction=continuity == "scipy",
                alternative=alternative,
                method=scipy_method,
            )
        assert row["statistic"] == pytest.approx(ref.statistic, rel=1e-12, abs=1e-12)
        assert row["p_value"] == pytest.approx(ref.pvalue, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("name", ["generated-ties", "covid"])
def test_tolerance_zero_ranks_the_floats_as_scipy_does(name: str) -> None:
    """``tolerance=0`` gives scipy's numbers on the scores' own differences."""
    per_q = frame_named(name)
    for test in ("wilcoxon", "sign"):
        cmp = ir.compare(per_q, pairs="all", test=test, tolerance=0)
        for row in cmp.iter_rows(named=True):
            x = scores(per_q, row["measure"], row["run_a"])
            y = scores(per_q, row["measure"], row["run_b"])
            assert (row["wins"], row["ties"], row["losses"]) == (
                (x > y).sum(),
                (x == y).sum(),
                (x < y).sum(),
            )
            if np.all(x == y):
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if test == "wilcoxon":
                    ref = stats.wilcoxon(x, y).pvalue
                else:
                    ref = stats.binomtest(int((x > y).sum()), int((x != y).sum())).pvalue
            assert row["p_value"] == pytest.approx(ref, rel=1e-12, abs=1e-12)


def test_differences_equal_in_exact_arithmetic_are_tied() -> None:
    """P@5-like scores: 0.2 - 0.4, 0.4 - 0.6000000000000001 and 0.6000000000000001 - 0.8
    are three floats for one difference -0.2, and 0.1 + 0.2 - 0.3 is not 0. The tests that
    rank or count differences see exact arithmetic's values: scipy on the differences
    computed as fractions; with ``tolerance=0``, scipy on the floats, which differs."""
    from fractions import Fraction

    fifths = [[1, 2, 3, 4, 0, 2, 3, 4, 5, 1, 3, 2], [2, 3, 4, 1, 0, 1, 2, 0, 3, 2, 4, 4]]
    a, b = ([k / 5 for k in row] for row in fifths)
    a[4], b[4] = 0.1 + 0.2, 0.3  # a zero difference up to rounding
    per_q = pl.DataFrame(
        {"run_id": ["a"] * 12 + ["b"] * 12, "query_id": [f"q{i:02d}" for i in range(12)] * 2,
         "value": a + b}
    )  # fmt: skip
    d = [float(Fraction(x) - Fraction(y)) for x, y in zip(fifths[0], fifths[1], strict=True)]
    d = [v / 5 for v in d]
    assert len({abs(x - y) for x, y in zip(a, b, strict=True) if abs(abs(x - y) - 0.2) < 1e-9}) > 1
    for how in ("exact", "approx"):
        got = ir.compare(per_q, baseline="b", test="wilcoxon", method=how).row(0, named=True)
        ref = stats.wilcoxon(d, method={"approx": "asymptotic"}.get(how, how))
        raw = ir.compare(per_q, baseline="b", test="wilcoxon", method=how, tolerance=0)
        assert got["statistic"] == pytest.approx(ref.statistic, abs=1e-12)
        assert got["p_value"] == pytest.approx(ref.pvalue, rel=1e-12)
        assert raw["p_value"][0] != pytest.approx(ref.pvalue, rel=1e-3)
    sign = ir.compare(per_q, baseline="b", test="sign").row(0, named=True)
    assert (sign["wins"], sign["ties"], sign["losses"]) == (5, 1, 6)
    assert sign["p_value"] == pytest.approx(stats.binomtest(5, 11).pvalue, rel=1e-12)
    assert ir.compare(per_q, baseline="b", test="sign", tolerance=0)["ties"][0] == 0
    with pytest.raises(ir.ParameterError, match=r"tolerance=-1: must be a number in \[0, 1\)"):
        ir.compare(per_q, baseline="b", tolerance=-1)


def test_wilcoxon_on_trec_covid_p5_as_in_exact_arithmetic(covid: pl.DataFrame) -> None:
    """A pair of real runs whose P@5 differences take -0.2 as 0.19999999999999996 and
    0.20000000000000007: scipy on the floats gives p = 0.757, on the fractions 0.331."""
    from fractions import Fraction

    runs = ir.read_run(
        [str(COVID / "runs" / f"{r}.gz") for r in ("BITEM_df", "NTU_NMLAB_BM25_ALLQQ")],
        run_id="file",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        per_q = ir.evaluate(runs, ir.read_qrels(COVID / "qrels-rnd1.txt"), "P@5", per_query=True)
    x, y = (scores(per_q, "P@5", r) for r in ("BITEM_df", "NTU_NMLAB_BM25_ALLQQ"))
    d = [
        float(Fraction(round(u * 5), 5) - Fraction(round(v * 5), 5))
        for u, v in zip(x, y, strict=True)
    ]
    got = ir.compare(per_q, baseline="NTU_NMLAB_BM25_ALLQQ", test="wilcoxon").row(0, named=True)
    assert got["p_value"] == pytest.approx(stats.wilcoxon(d).pvalue, rel=1e-12)
    assert got["p_value"] == pytest.approx(0.3311115041, abs=1e-10)
    raw = ir.compare(per_q, baseline="NTU_NMLAB_BM25_ALLQQ", test="wilcoxon", tolerance=0)
    assert raw["p_value"][0] == pytest.approx(0.7569208853, abs=1e-10)


def test_wilcoxon_seed003_worked_case() -> None:
    """Seed 003 eq. 14-17 on differences worked by hand.

    d = +0.10 -0.05 +0.20 +0.15 +0.30 -0.25 +0.40 +0.35 (n = 8, no ties)
    ranks of |d|: 0.05->1 0.10->2 0.15->3 0.20->4 0.25->5 0.30->6 0.35->7 0.40->8
    signed ranks: +2 -1 +4 +3 +6 -5 +8 +7, W = 24 (eq. 14), mu_W = 0 (eq. 15)
    sigma_W = sqrt(8 * 9 * 17 / 6) = sqrt(204) = 14.2828568... (eq. 16)
    z = (W - 0.5) / sigma_W = 23.5 / 14.2828568 = 1.645329... (eq. 17), p (one-tailed) = 0.04995
    scipy's correction is 0.5 on T+ = (W + 36) / 2, i.e. 1 on W: z = 23 / sqrt(204) = 1.6103.
    """
    base = np.array([0.30, 0.50, 0.20, 0.40, 0.10, 0.60, 0.05, 0.15])
    d = np.array([0.10, -0.05, 0.20, 0.15, 0.30, -0.25, 0.40, 0.35])
    per_q = pl.DataFrame(
        {
            "run_id": ["new"] * 8 + ["old"] * 8,
            "query_id": [f"t{i}" for i in range(8)] * 2,
            "value": np.concatenate([base + d, base]),
        }
    )
    seed = ir.compare(
        per_q, pairs=[("new", "old")], test="wilcoxon", continuity="seed003", alternative="greater"
    ).row(0, named=True)
    assert seed["statistic"] == pytest.approx(23.5 / math.sqrt(204), rel=1e-12)
    assert seed["statistic"] == pytest.approx(1.645329, abs=1e-6)
    assert seed["p_value"] == pytest.approx(stats.norm.sf(23.5 / math.sqrt(204)), rel=1e-12)
    assert seed["p_value"] == pytest.approx(0.04995, abs=1e-5) and seed["significant"]
    # two-sided: the 0.5 moves W towards 0, p doubles
    two = ir.compare(per_q, pairs=[("new", "old")], test="wilcoxon", continuity="seed003")
    assert two["p_value"][0] == pytest.approx(2 * stats.norm.sf(23.5 / math.sqrt(204)), rel=1e-12)
    # scipy's own correction (half as large a z shift on W's scale... twice: 1 on W)
    sc = ir.compare(
        per_q,
        pairs=[("new", "old")],
        test="wilcoxon",
        continuity="scipy",
        method="approx",
        alternative="greater",
    ).row(0, named=True)
    ref = stats.wilcoxon(
        base + d, base, correction=True, method="asymptotic", alternative="greater"
    )
    assert sc["p_value"] == pytest.approx(ref.pvalue, rel=1e-12)
    assert sc["p_value"] == pytest.approx(stats.norm.sf(23 / math.sqrt(204)), rel=1e-9)
    assert not sc["significant"]  # 0.0537: the seed's smaller correction decides this one


@FRAMES
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_sign_test_equals_scipy_binomtest(name: str, alternative: str) -> None:
    per_q = frame_named(name)
    cmp = ir.compare(per_q, pairs="all", test="sign", alternative=alternative)
    for row in cmp.iter_rows(named=True):
        d = exact(
            scores(per_q, row["measure"], row["run_a"]), scores(per_q, row["measure"], row["run_b"])
        )
        wins, losses = int((d > 0).sum()), int((d < 0).sum())
        assert row["statistic"] == wins or (wins + losses == 0 and row["statistic"] is None)
        if wins + losses:
            ref = stats.binomtest(wins, wins + losses, 0.5, alternative=alternative)
            assert row["p_value"] == pytest.approx(ref.pvalue, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("name", ["generated-ties", "covid"])
@pytest.mark.parametrize("how", ["percentile", "bca"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_bootstrap_interval_equals_scipy_bootstrap(name: str, how: str, alternative: str) -> None:
    """Every pair gets the interval scipy.stats.bootstrap gives it alone with the same seed
    (ties in the resampled means included: BCa's bias correction counts them)."""
    per_q = frame_named(name)
    if name == "covid":
        per_q = per_q.filter(pl.col("run_id").is_in(COVID_RUNS[:4]))
    cmp = ir.compare(
        per_q, pairs="all", test="t", ci=how, resamples=499, seed=7, alternative=alternative
    )
    assert cmp["resamples"].unique().to_list() == [499]
    for row in cmp.iter_rows(named=True):
        d = scores(per_q, row["measure"], row["run_a"]) - scores(
            per_q, row["measure"], row["run_b"]
        )
        if np.all(d == 0):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = stats.bootstrap(
                (d,),
                np.mean,
                n_resamples=499,
                method="BCa" if how == "bca" else "percentile",
                alternative=alternative,
                confidence_level=0.95,
                rng=np.random.default_rng(7),
            ).confidence_interval
        for got, want in ((row["ci_low"], ref.low), (row["ci_high"], ref.high)):
            if math.isinf(want):
                assert got == want
            else:
                assert got == pytest.approx(want, rel=1e-12, abs=1e-12)


# --------------------------------------------------------------------------- corrections

SM_NAMES = {"bonferroni": "bonferroni", "holm": "holm", "bh": "fdr_bh", "by": "fdr_by"}


@pytest.mark.parametrize("correction", list(SM_NAMES))
@FRAMES
def test_corrections_equal_statsmodels_multipletests(name: str, correction: str) -> None:
    from statsmodels.stats.multitest import multipletests

    per_q = frame_named(name)
    cmp = ir.compare(per_q, pairs="all", test="t", correction=correction, alpha=0.05)
    for m in cmp["measure"].unique():
        sub = cmp.filter(pl.col("measure") == m)
        reject, adjusted, _, _ = multipletests(
            sub["p_value"].to_numpy(), alpha=0.05, method=SM_NAMES[correction]
        )
        np.testing.assert_allclose(sub["p_adjusted"].to_numpy(), adjusted, rtol=1e-12, atol=1e-12)
        assert sub["significant"].to_list() == reject.tolist()
    assert cmp["correction"].unique().to_list() == [correction]


def test_adjust_p_values_on_edge_cases() -> None:
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(5)
    for p in ([0.5], [0.01, 0.01, 0.01], rng.uniform(size=200) ** 3, [1.0, 0.0, 0.04]):
        for ours, theirs in SM_NAMES.items():
            want = multipletests(np.asarray(p), method=theirs)[1]
            got = ir.adjust_p_values(p, ours)
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    assert ir.adjust_p_values([0.2, 0.01], "none").tolist() == [0.2, 0.01]
    assert ir.adjust_p_values([0.2, 0.01], "fdr_bh").tolist() == [0.2, 0.02]


def test_the_correction_family_is_each_measure() -> None:
    per_q = pl.concat(
        [generated(seed=1), generated(seed=2).with_columns(pl.lit("N").alias("measure"))]
    )
    both = ir.compare(per_q, pairs="all", correction="bonferroni")
    one = ir.compare(per_q, pairs="all", correction="bonferroni", measures="N")
    assert (
        both.filter(pl.col("measure") == "N")["p_adjusted"].to_list() == one["p_adjusted"].to_list()
    )
    assert (one["p_adjusted"] == (one["p_value"] * 10).clip(upper_bound=1)).all()


# --------------------------------------------------------------------------- resampling


def exact_randomization(d: np.ndarray, alternative: str) -> float:
    """All 2**n sign flips of the differences, by itertools (an independent enumeration)."""
    import itertools

    obs = d.sum()
    sums = np.array([np.dot(s, d) for s in itertools.product((1.0, -1.0), repeat=len(d))])
    tol = 1e-9 * np.abs(d).sum()
    if alternative == "greater":
        return float((sums >= obs - tol).mean())
    if alternative == "less":
        return float((sums <= obs + tol).mean())
    return float((np.abs(sums) >= abs(obs) - tol).mean())


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_randomization_monte_carlo_within_its_error_of_exact(alternative: str) -> None:
    per_q = generated(6, 11, seed=4, decimals=2)
    exact = ir.compare(per_q, pairs="all", test="randomization", alternative=alternative)
    assert exact["resamples"].unique().to_list() == [2**11] and exact["mc_error"].max() == 0
    mc = ir.compare(
        per_q,
        pairs="all",
        test="randomization",
        method="monte_carlo",
        resamples=3000,
        seed=11,
        alternative=alternative,
    )
    assert mc["resamples"].unique().to_list() == [3000]
    for e, m in zip(exact.iter_rows(named=True), mc.iter_rows(named=True), strict=True):
        d = scores(per_q, "M", e["run_a"]) - scores(per_q, "M", e["run_b"])
        assert e["p_value"] == pytest.approx(exact_randomization(d, alternative), abs=1e-15)
        assert m["mc_error"] == pytest.approx(
            math.sqrt(m["p_value"] * (1 - m["p_value"]) / 3000), rel=1e-12
        )
        # (count + 1) / (B + 1) vs count / B: at most 1 / B apart; then 4 standard errors
        assert abs(m["p_value"] - e["p_value"]) <= 4 * m["mc_error"] + 1 / 3000 + 1e-3


def test_resampling_is_seeded_and_pair_independent() -> None:
    per_q = generated(5, 30, seed=8, decimals=None)
    kw = dict(test="randomization", resamples=500, seed=3)
    one = ir.compare(per_q, pairs=[("r3", "r1")], **kw)
    many = ir.compare(per_q, pairs="all", **kw)
    again = ir.compare(per_q, pairs="all", **kw)
    assert many.equals(again)
    row = many.filter((pl.col("run_a") == "r3") & (pl.col("run_b") == "r1"))
    assert row["p_value"].to_list() == one["p_value"].to_list()
    gen = ir.compare(
        per_q, pairs="all", test="randomization", resamples=500, seed=np.random.default_rng(3)
    )
    assert gen.height == many.height


def test_bootstrap_test_is_calibrated_and_agrees_with_t() -> None:
    """The studentized bootstrap p is close to the t-test's on smooth data, and its error
    is stated."""
    per_q = generated(4, 40, seed=9, decimals=None)
    boot = ir.compare(per_q, pairs="all", test="bootstrap", resamples=4000, seed=1)
    t = ir.compare(per_q, pairs="all", test="t")
    assert boot["resamples"].unique().to_list() == [4000]
    for b, tt in zip(boot.iter_rows(named=True), t.iter_rows(named=True), strict=True):
        assert b["statistic"] == pytest.approx(tt["statistic"], rel=1e-12)
        assert abs(b["p_value"] - tt["p_value"]) <= 4 * b["mc_error"] + 0.03


def test_randomized_tukey_with_two_runs_is_the_randomization_test() -> None:
    per_q = generated(2, 12, seed=12, decimals=2)
    exact = ir.compare(per_q, test="randomization").row(0, named=True)
    for seed in (1, 2):
        rt = ir.compare(per_q, test="randomized_tukey_hsd", resamples=4000, seed=seed).row(
            0, named=True
        )
        assert rt["resamples"] == 4000
        assert abs(rt["p_value"] - exact["p_value"]) <= 4 * rt["mc_error"] + 1 / 4000


@pytest.mark.parametrize("name", ["generated-ties", "covid"])
def test_randomized_tukey_never_below_the_unadjusted_p(name: str) -> None:
    per_q = frame_named(name)
    rt = ir.compare(per_q, pairs="all", test="randomized_tukey_hsd", resamples=2000, seed=5)
    un = ir.compare(per_q, pairs="all", test="randomization", resamples=2000, seed=6)
    assert rt["p_adjusted"].equals(rt["p_value"])
    for r, u in zip(rt.iter_rows(named=True), un.iter_rows(named=True), strict=True):
        assert (r["run_a"], r["run_b"]) == (u["run_a"], u["run_b"])
        slack = 4 * math.hypot(r["mc_error"], u["mc_error"] or 0) + 1 / 2000
        assert r["p_value"] >= u["p_value"] - slack
    # with many runs the family-wise p is much larger on average
    assert rt["p_value"].mean() > un["p_value"].mean()


# --------------------------------------------------------------------------- ANOVA, power


def test_explicit_pairs_are_compared_within_every_run() -> None:
    """The ANOVA (Sakai's effect size), the Tukey interval and the missing-query policy
    are over ``runs`` (default every run), with explicit pairs as with ``pairs="all"`` or a
    baseline: they were over the runs named in the pairs (effect size 1.56 for 1.46)."""
    per_q = generated(decimals=None, seed=5)
    kw = {"effect_size": "sakai", "ci": "tukey"}
    every = ir.compare(per_q, pairs="all", **kw).filter(run_a="r4", run_b="r0")
    picked = ir.compare(per_q, pairs=[("r4", "r0")], **kw)
    columns = ["effect_size", "ci_low", "ci_high", "p_value"]
    assert picked.select(columns).equals(every.select(columns))
    narrowed = ir.compare(per_q, pairs=[("r4", "r0")], run_ids=["r4", "r0"], **kw)
    assert narrowed["effect_size"].item() != picked["effect_size"].item()
    # a third run lacking a query: skip drops it for the pair too, as with a baseline
    gap = per_q.filter(~((pl.col("run_id") == "r2") & (pl.col("query_id") == "q00")))
    pair = ir.compare(gap, pairs=[("r4", "r0")], missing="skip")
    base = ir.compare(gap, baseline="r0", missing="skip").filter(run_a="r4")
    assert pair["n"].item() == base["n"].item() == 9
    assert pair["p_value"].item() == base["p_value"].item()


@pytest.mark.parametrize("name", ["generated-ties", "covid"])
def test_tukey_hsd_on_two_way_anova_residuals(name: str) -> None:
    """q = |delta| / sqrt(V_E / n), V_E = statsmodels' residual mean square of the two-way
    (run + topic) ANOVA; p from scipy's studentized range; Sakai's ES = delta / sqrt(V_E)."""
    import statsmodels.formula.api as smf

    per_q = frame_named(name)
    measure = per_q["measure"][0]
    if name == "covid":
        per_q = per_q.filter(pl.col("run_id").is_in(COVID_RUNS[:6]))
    cmp = ir.compare(per_q, pairs="all", test="tukey_hsd", measures=measure)
    sub = per_q.filter(pl.col("measure") == measure).to_pandas()
    fit = smf.ols("value ~ C(run_id) + C(query_id)", data=sub).fit()
    ve, df = fit.mse_resid, fit.df_resid
    k, n = per_q["run_id"].n_unique(), per_q["query_id"].n_unique()
    assert cmp["ci_method"].unique().to_list() == ["tukey"]
    qcrit = stats.studentized_range.ppf(0.95, k, df)
    for row in cmp.iter_rows(named=True):
        q = abs(row["delta"]) / math.sqrt(ve / n)
        if q == 0:  # identical runs (BBGhelani1 and 2 on nDCG@10)
            assert row["p_value"] == 1.0 and row["statistic"] is None
            continue
        assert row["statistic"] == pytest.approx(q, rel=1e-9)
        assert row["p_value"] == pytest.approx(
            stats.studentized_range.sf(q, k, df), rel=1e-9, abs=1e-12
        )
        assert row["effect_size"] == pytest.approx(row["delta"] / math.sqrt(ve), rel=1e-9)
        assert row["ci_high"] - row["delta"] == pytest.approx(qcrit * math.sqrt(ve / n), rel=1e-6)
    assert cmp["effect_size_kind"].unique().to_list() == ["sakai"]


def test_tukey_p_values_far_in_the_tail_are_never_zero_and_fall_as_q_grows() -> None:
    """scipy's studentized range stops at a floor (4.66e-15 for k = 3, df = 48, whatever
    q past 19) or underflows to 0 (k = 59: the DL 2020 campaign's p = 0 for pash_r3 vs
    p_bm25). The p-value stays within what one pair and the Bonferroni sum over the C(k, 2)
    pairs prove, p₂ <= p <= C(k, 2) p₂ with p₂ = P(|t_df| > q / sqrt 2), and is exact for
    two runs (the paired t-test of the ANOVA's residual variance)."""
    from polars_ireval.analysis.significance.tests import studentized_range_sf

    q = np.array([2.0, 5.0, 10.0, 12.0, 15.0, 19.67, 24.5, 40.0])
    for k, df in ((3, 48), (59, 2842), (143, 142 * 49)):
        p = studentized_range_sf(q, k, df)
        pair = 2 * stats.t.sf(q / math.sqrt(2), df)
        assert (p > 0).all() and (np.diff(p) < 0).all(), (k, p)
        assert (p >= pair).all() and (p <= np.minimum(1, k * (k - 1) / 2 * pair)).all()
    scipy = stats.studentized_range.sf(q[:3], 3, 48)  # where scipy is accurate, its value
    assert studentized_range_sf(q[:3], 3, 48) == pytest.approx(scipy, rel=1e-12)
    two = studentized_range_sf(q, 2, 30)
    assert two == pytest.approx(2 * stats.t.sf(q / math.sqrt(2), 30), rel=1e-12)
    # through compare: a run far above three others on 50 topics (q about 115, where scipy
    # gives its floor, one p for three q; only a q past about 5,000 underflows the bound
    # itself, below 1e-308)
    rng = np.random.default_rng(3)
    rows = [("far", f"q{i}", 0.9 + rng.normal(0, 0.05)) for i in range(50)]
    rows += [(f"r{j}", f"q{i}", 0.1 + rng.normal(0, 0.05)) for j in range(3) for i in range(50)]
    per_q = pl.DataFrame(rows, schema=["run_id", "query_id", "value"], orient="row")
    cmp = ir.compare(per_q.with_columns(measure=pl.lit("AP")), pairs="all", test="tukey_hsd")
    far = cmp.filter(pl.col("run_a") == "far").sort("statistic")
    assert (far["statistic"] > 50).all() and (far["p_value"] > 0).all(), far
    assert far["p_value"].is_sorted(descending=True) and far["p_value"].n_unique() == 3
    assert len(set(stats.studentized_range.sf(far["statistic"].to_numpy(), 4, 147))) == 1


def test_topics_needed_matches_statsmodels_power() -> None:
    from statsmodels.stats.power import TTestPower

    sd = np.array([0.1, 0.2, 0.25, 0.3, 0.15])
    diff = np.array([0.05, 0.05, 0.1, 0.02, 0.2])
    for alternative, sm_alt in (("two-sided", "two-sided"), ("greater", "larger")):
        got = topic_set_size(sd, diff, alpha=0.05, power=0.8, alternative=alternative)
        for g, s, dd in zip(got, sd, diff, strict=True):
            want = TTestPower().solve_power(
                effect_size=dd / s, alpha=0.05, power=0.8, alternative=sm_alt
            )
            assert g == max(2, math.ceil(want - 1e-9))
    assert np.isnan(topic_set_size(0.2, 0.0)[()])
    per_q = generated(3, 20, seed=2, decimals=None)
    cmp = ir.compare(per_q, pairs="all", min_difference=0.05)
    for row in cmp.iter_rows(named=True):
        d = scores(per_q, "M", row["run_a"]) - scores(per_q, "M", row["run_b"])
        want = TTestPower().solve_power(effect_size=0.05 / d.std(ddof=1), alpha=0.05, power=0.8)
        assert row["topics_needed"] == math.ceil(want)


# --------------------------------------------------------------------------- input


def test_lazy_equals_eager_and_columns_can_be_renamed() -> None:
    per_q = generated(seed=3)
    eager = ir.compare(per_q, pairs="all", test="wilcoxon")
    lazy = ir.compare(per_q.lazy(), pairs="all", test="wilcoxon")
    assert eager.equals(lazy)
    other = per_q.rename({"run_id": "system", "query_id": "topic", "value": "score"}).drop(
        "measure"
    )
    renamed = ir.compare(
        other, pairs="all", test="wilcoxon", a="score", run_col="system", query_col="topic"
    )
    assert renamed["p_value"].equals(eager["p_value"])
    assert renamed["measure"].unique().to_list() == ["score"]


def test_shuffled_rows_change_nothing(covid: pl.DataFrame) -> None:
    """Row order only changes the order of the result rows (and which of two runs with
    equal means is run_a): every pair keeps its numbers."""
    kw = dict(pairs="all", test="randomization", resamples=200, seed=1)

    def by_pair(cmp: pl.DataFrame) -> dict[tuple[str, frozenset[str]], tuple[float, float]]:
        return {
            (r["measure"], frozenset((r["run_a"], r["run_b"]))): (r["p_value"], abs(r["delta"]))
            for r in cmp.iter_rows(named=True)
        }

    shuffled = covid.sample(fraction=1.0, shuffle=True, seed=4)
    assert by_pair(ir.compare(covid, **kw)) == by_pair(ir.compare(shuffled, **kw))


def test_missing_queries_policies() -> None:
    per_q = generated(3, 6, seed=1)
    holed = per_q.filter(~((pl.col("run_id") == "r1") & (pl.col("query_id") == "q03")))
    with pytest.raises(ir.MissingQueryError, match=r"'r1' lacks query 'q03'.*missing='skip'"):
        ir.compare(holed, baseline="r0")
    nulls = per_q.with_columns(
        pl.when((pl.col("run_id") == "r2") & (pl.col("query_id") == "q05"))
        .then(None)
        .otherwise(pl.col("value"))
        .alias("value")
    )
    with pytest.raises(ir.MissingQueryError, match="'r2' lacks query 'q05'"):
        ir.compare(nulls, baseline="r0")
    inter = ir.compare(holed, baseline="r0", missing="skip")
    assert inter["n"].unique().to_list() == [5]
    kept = per_q.filter(pl.col("query_id") != "q03")
    assert inter.drop("n").equals(ir.compare(kept, baseline="r0").drop("n"))
    zero = ir.compare(holed, baseline="r0", missing="zero")
    filled = per_q.with_columns(
        pl.when((pl.col("run_id") == "r1") & (pl.col("query_id") == "q03"))
        .then(0.0)
        .otherwise(pl.col("value"))
        .alias("value")
    )
    assert zero.equals(ir.compare(filled, baseline="r0"))
    # a residual of a query a run lacks is unknown: "zero" refuses to invent it
    resid = holed.with_columns(pl.lit(0.1).alias("residual"))
    with pytest.raises(ir.ParameterError, match="residual is unknown"):
        ir.compare(resid, baseline="r0", b="upper", missing="zero")


@pytest.mark.parametrize(
    ("frame", "kwargs", "error", "match"),
    [
        ("one_run", {}, ir.EmptyInputError, "at least two runs"),
        ("ok", {"baseline": "bm42"}, ir.ParameterError, r"baseline='bm42' is not among the runs"),
        ("ok", {"baseline": "R1"}, ir.ParameterError, r"did you mean 'r1'"),
        ("one_topic", {}, ir.EmptyInputError, "at least 2"),
        ("nan", {}, ir.ScoreError, r"NaN.*run 'r1', query 'q02'"),
        ("ok", {"test": "welch"}, ir.ParameterError, r"test='welch' is unknown"),
        ("ok", {"test": "wilcoxn"}, ir.ParameterError, r"did you mean 'wilcoxon'"),
        ("ok", {"correction": "sidak"}, ir.ParameterError, r"correction='sidak' is unknown"),
        ("ok", {"alternative": "bigger"}, ir.ParameterError, "alternative='bigger'"),
        ("ok", {"alpha": 1.5}, ir.ParameterError, r"alpha=1.5"),
        ("ok", {"test": "tukey_hsd", "correction": "holm"}, ir.ParameterError, "family-wise"),
        ("ok", {"test": "tukey_hsd", "alternative": "greater"}, ir.ParameterError, "two-sided"),
        ("ok", {"baseline": "r0", "pairs": "all"}, ir.ParameterError, "not both"),
        ("ok", {"pairs": [("r0", "r9")]}, ir.ParameterError, "pairs='r9'"),
        ("ok", {"a": "upper"}, ir.SchemaError, "residuals=True"),
        ("ok", {"measures": ["AP"]}, ir.ParameterError, "measure 'AP' is not in the frame"),
        ("ok", {"resamples": 0}, ir.ParameterError, "resamples=0"),
        ("ok", {"seed": -1}, ir.ParameterError, "seed=-1"),
        ("ok", {"test": "t", "method": "exact"}, ir.ParameterError, "method='exact'"),
        ("ok", {"test": "randomization", "method": "exact", "baseline": "r0"}, None, None),
        ("dup", {}, ir.DuplicateError, "one row per run, query and measure"),
        ("aggregate", {}, ir.SchemaError, "per_query=True"),
    ],
)
def test_bad_input_gets_a_specific_error(
    frame: str, kwargs: dict, error: type | None, match: str | None
) -> None:
    ok = generated(3, 6, seed=2)
    frames = {
        "ok": ok,
        "one_run": ok.filter(pl.col("run_id") == "r0"),
        "one_topic": ok.filter(pl.col("query_id") == "q00"),
        "nan": ok.with_columns(
            pl.when((pl.col("run_id") == "r1") & (pl.col("query_id") == "q02"))
            .then(float("nan"))
            .otherwise(pl.col("value"))
            .alias("value")
        ),
        "dup": pl.concat([ok, ok.head(1)]),
        "aggregate": ok.group_by("run_id", "measure").agg(pl.col("value").mean()),
    }
    if error is None:
        ir.compare(frames[frame], **kwargs)
        return
    with pytest.raises(error, match=match):
        ir.compare(frames[frame], **kwargs)


def test_identical_runs_give_p_one() -> None:
    per_q = generated(2, 8, seed=1)
    twin = per_q.filter(pl.col("run_id") == "r0").with_columns(pl.lit("twin").alias("run_id"))
    for test in ("t", "wilcoxon", "sign", "randomization", "bootstrap"):
        row = ir.compare(pl.concat([per_q, twin]), pairs=[("twin", "r0")], test=test, seed=1).row(
            0, named=True
        )
        assert row["p_value"] == 1.0 and not row["significant"] and row["statistic"] is None
        assert (row["ci_low"], row["ci_high"]) == (0.0, 0.0) and row["ties"] == 8


@pytest.mark.parametrize("big", [1e308, -1e308, 1e200, 1.5e151])
def test_scores_whose_variances_overflow_are_refused(big: float) -> None:
    """+-1e308 gave NaN deltas and p-values, 1e200 a t statistic of 0 and p = 1, with
    nothing but numpy warnings: a ScoreError naming the score and the fix."""
    per_q = generated(2, 6, seed=4)
    at = (pl.col("run_id") == "r1") & (pl.col("query_id") == "q03")
    huge = per_q.with_columns(pl.when(at).then(big).otherwise(pl.col("value")).alias("value"))
    scale = 10.0 ** min(308, math.ceil(math.log10(abs(big))))
    message = (
        f"column 'value' holds 1 value(s) beyond +-1e+150, e.g. run 'r1', query 'q03', "
        f"measure 'M': {big!r}; the differences and variances of such scores overflow "
        f"64-bit floats: divide the scores by a constant, e.g. pl.col('value') / {scale:g} "
        "(test statistics and p-values stay the same, means and deltas scale with it)"
    )
    for test in ("t", "wilcoxon", "randomization", "bootstrap"):
        with pytest.raises(ir.ScoreError, match=f"^{re.escape(message)}$"):
            ir.compare(huge, baseline="r0", test=test)
    with pytest.raises(ir.ScoreError, match="beyond"):
        ir.report(huge, ir.compare(per_q, baseline="r0"))
    # the fix the message gives: finite results, and test statistics and p-values that do
    # not depend on the scale (times 1e140, within the bound)
    fixed = huge.with_columns(pl.col("value") / scale)
    for test in ("t", "wilcoxon", "randomization", "bootstrap"):
        got = ir.compare(fixed, baseline="r0", test=test, seed=1).row(0, named=True)
        far = ir.compare(
            fixed.with_columns(pl.col("value") * 1e140), baseline="r0", test=test, seed=1
        ).row(0, named=True)
        assert math.isfinite(got["p_value"]) and math.isfinite(got["delta"])
        assert far["p_value"] == pytest.approx(got["p_value"], rel=1e-9)
        assert far["delta"] == pytest.approx(got["delta"] * 1e140, rel=1e-9)
    with pytest.raises(ir.ParameterError, match=r"^baseline=1e\+200: a fixed score must be"):
        ir.compare(per_q, baseline=1e200)
    ir.compare(per_q, baseline=1e150)  # the bound itself is taken


# --------------------------------------------------------------------------- seed 002


def test_seed002_base_vs_top_reads_value_and_upper(covid: pl.DataFrame) -> None:
    """The issue's call, as written, on a frame with nDCG@10, AP and RBP: the residual
    columns exist for RBP only, so RBP is what it compares."""
    cmp = ir.compare(
        covid, pairs="all", test="wilcoxon", alternative="greater", a="value", b="upper"
    )
    assert cmp["measure"].unique().to_list() == ["RBP(p=0.8)"]
    with pytest.raises(ir.SchemaError, match="measure 'AP' has no residual"):
        ir.compare(covid, b="upper", measures=["AP", "RBP(p=0.8)"])
    rbp = covid.filter(pl.col("measure") == "RBP(p=0.8)")
    assert cmp["column_a"].unique().to_list() == ["value"]
    assert cmp["column_b"].unique().to_list() == ["upper"]
    for row in cmp.head(8).iter_rows(named=True):
        x = scores(rbp, "RBP(p=0.8)", row["run_a"])
        y = scores(rbp, "RBP(p=0.8)", row["run_b"], "upper")
        ref = stats.wilcoxon(x, y, alternative="greater")
        assert row["p_value"] == pytest.approx(ref.pvalue, rel=1e-12, abs=1e-12)
        assert row["mean_b"] == pytest.approx(y.mean(), rel=1e-12)
        # run_a has the higher mean *base* score (Table 5's orientation)
        assert x.mean() >= scores(rbp, "RBP(p=0.8)", row["run_b"]).mean()


def test_compare_bounds_counts_table5(covid: pl.DataFrame) -> None:
    table = ir.compare_bounds(covid, measures="RBP(p=0.8)", missing="skip")
    assert table["comparison"].to_list() == ["base_vs_base", "base_vs_top", "base_vs_projected"]
    assert table["pairs"].unique().to_list() == [math.comb(len(COVID_RUNS), 2)]
    sig = dict(zip(table["comparison"], table["significant"], strict=True))
    # the top of a range is above its base: fewer pairs survive (Table 5's pattern)
    assert sig["base_vs_top"] <= sig["base_vs_projected"] <= sig["base_vs_base"]
    direct = ir.compare(
        covid, pairs="all", test="wilcoxon", alternative="greater", b="upper", measures="RBP(p=0.8)"
    )
    assert sig["base_vs_top"] == direct["significant"].sum()
    with pytest.raises(ir.SchemaError, match="residual"):
        ir.compare_bounds(generated())
    with pytest.raises(ir.ParameterError, match="compare_bounds sets alternative"):
        ir.compare_bounds(covid, alternative="less")


# --------------------------------------------------------------------------- input checks


def integer_ids() -> pl.DataFrame:
    """Run and query ids as integers: compare reads them as their decimal text."""
    return pl.DataFrame(
        {
            "run_id": [1] * 5 + [2] * 5,
            "query_id": list(range(5)) * 2,
            "value": [0.1, 0.2, 0.3, 0.4, 0.5, 0.2, 0.3, 0.3, 0.6, 0.9],
        }
    )


def test_integer_run_ids_name_runs_and_an_integer_baseline_is_ambiguous() -> None:
    per_q = integer_ids()
    ambiguous = (
        r"baseline=1 is both a run id and a number; pass baseline='1' for the run or "
        r"baseline=1.0 for a fixed score"
    )
    with pytest.raises(ir.ParameterError, match=ambiguous):
        ir.compare(per_q, baseline=1)
    with pytest.raises(
        ir.ParameterError, match=r"baseline=np.int64\(2\) is both.*baseline=.2. for the run"
    ):
        ir.compare(per_q, baseline=np.int64(2))
    fixed = ir.compare(per_q, baseline=1.0)  # a float is a score
    assert fixed["run_b"].to_list() == [None, None] and fixed["mean_b"].to_list() == [1.0, 1.0]
    assert ir.compare(per_q, baseline=3)["mean_b"].to_list() == [3.0, 3.0]  # no run '3'
    by_name = ir.compare(per_q, baseline="1")
    assert by_name.select("run_a", "run_b").row(0) == ("2", "1")
    assert ir.compare(per_q, run_ids=[1, 2]).equals(ir.compare(per_q, run_ids=["1", "2"]))
    assert ir.compare(per_q, pairs=[(2, 1)]).equals(ir.compare(per_q, pairs=[("2", "1")]))
    with pytest.raises(ir.ParameterError, match=r"run_ids=3 is not among the runs \('1', '2'\)"):
        ir.compare(per_q, run_ids=[1, 3])
    with pytest.raises(ir.ParameterError, match=r"run_ids=1.0: a run id is a str"):
        ir.compare(per_q, run_ids=[1.0, 2])


def test_a_single_run_or_pair_is_one_item_not_its_characters() -> None:
    per_q = generated(3, 6, seed=2)
    one = ir.compare(per_q, run_ids="r0", baseline=0.3)
    assert one.equals(ir.compare(per_q, run_ids=["r0"], baseline=0.3))
    assert one["run_a"].to_list() == ["r0"]
    pair = ir.compare(per_q, pairs=("r2", "r0"))
    assert pair.equals(ir.compare(per_q, pairs=[("r2", "r0")]))
    assert pair.select("run_a", "run_b").rows() == [("r2", "r0")]
    with pytest.raises(ir.EmptyInputError, match=r"run_ids= keeps 1 \('r0'\)"):
        ir.compare(per_q, run_ids="r0")
    with pytest.raises(ir.ParameterError, match=r"run_ids=5: give a run id or a list of run ids"):
        ir.compare(per_q, run_ids=5)  # type: ignore[arg-type]


def test_no_measure_column_and_several_scores_per_run_and_query() -> None:
    two = pl.concat(
        [
            generated(3, 6, seed=1),
            generated(3, 6, seed=2).with_columns(pl.lit("N").alias("measure")),
        ]
    )
    with pytest.raises(
        ir.DuplicateError,
        match=r"the frame has no 'measure' column but several scores per \(run, query\), e\.g\. "
        r"run 'r0', query 'q00': pass measure_col=",
    ):
        ir.compare(two.drop("measure"))
    nulls = two.with_columns(pl.lit(None, pl.String).alias("measure"))
    with pytest.raises(ir.SchemaError, match=r"the measure column holds 36 null\(s\)"):
        ir.compare(nulls)
    constant = two.with_columns(pl.lit("M").alias("measure"))
    with pytest.raises(ir.DuplicateError, match=r"holds one value \('M'\) on every row"):
        ir.compare(constant)
    # one score per (run, query): a frame without a measure column is one measure
    assert ir.compare(generated(3, 6, seed=1).drop("measure"))["measure"].unique().to_list() == [
        "value"
    ]


def test_numpy_numbers_are_numbers_and_typos_are_refused() -> None:
    per_q = generated(3, 6, seed=2)
    want = ir.compare(per_q, baseline="r0", alpha=0.05, min_difference=0.1)
    got = ir.compare(per_q, baseline="r0", alpha=np.float64(0.05), min_difference=np.float32(0.1))
    assert got["p_value"].to_list() == want["p_value"].to_list()
    assert got["topics_needed"].to_list() == want["topics_needed"].to_list()
    as32 = ir.compare(per_q, baseline="r0", alpha=np.float32(0.05), power=np.float32(0.8))
    assert as32["alpha"][0] == pytest.approx(0.05)
    fixed = ir.compare(per_q, baseline=np.float32(0.5), tolerance=np.float32(0.0))
    assert fixed["mean_b"].to_list() == [0.5] * 3
    for bad in (True, float("inf"), "0.1"):
        with pytest.raises(ir.ParameterError, match=rf"min_difference={bad!r}: must be a positive"):
            ir.compare(per_q, min_difference=bad)  # type: ignore[arg-type]


def test_adjust_p_values_refuses_what_is_not_a_p_value() -> None:
    cases = [
        ([-0.2, 0.04, 1.5], r"p\[0\]=-0.2 is not a p-value"),
        ([0.01, 1.5, 0.03], r"p\[1\]=1.5 is not a p-value"),
        ([0.01, 0.04, math.inf], r"p\[2\]=inf is not a p-value"),
        ([0.01, math.nan], r"p\[1\]=nan is not a p-value"),
        ([0.01, None], r"p\[1\]=None is not a p-value"),
        (["0.01", 0.04], r"p\[0\]='0.01' is not a p-value"),
        ([True, False], r"p\[0\]=True is not a p-value"),
        ([[0.01, 0.02], [0.03, 0.04]], r"p has shape \(2, 2\); give one family"),
    ]
    for p, match in cases:
        with pytest.raises(ir.ParameterError, match=match):
            ir.adjust_p_values(p, "holm")
    assert ir.adjust_p_values(np.float32([0.01, 0.02]), "bonferroni").tolist() == pytest.approx(
        [0.02, 0.04]
    )
    assert ir.adjust_p_values([0.0, 1.0], "holm").tolist() == [0.0, 1.0]


def test_topic_set_size_refuses_what_it_cannot_size() -> None:
    with pytest.raises(ir.ParameterError, match=r"sd=-0.2 is negative"):
        topic_set_size(-0.2, 0.1)
    with pytest.raises(ir.ParameterError, match=r"sd\[1\]=-0.1 is negative"):
        topic_set_size([0.2, -0.1], [0.1, 0.1])
    for bad in (0, -5, 1, 1.5, True, None):
        with pytest.raises(
            ir.ParameterError, match=rf"max_topics={bad!r}: must be an integer >= 2"
        ):
            topic_set_size(0.2, 0.1, max_topics=bad)  # type: ignore[arg-type]
    with pytest.raises(ir.ParameterError, match=r"sd has shape \(3,\) and difference \(2,\)"):
        topic_set_size([0.2, 0.3, 0.1], [0.1, 0.2])
    with pytest.raises(ir.ParameterError, match=r"sd='a': must be a number or an array"):
        topic_set_size("a", 0.1)
    with pytest.raises(ir.ParameterError, match=r"difference=None: must be a number or an array"):
        topic_set_size(0.2, None)
    assert np.isnan(topic_set_size(0.2, 0.1, max_topics=np.int64(33)))
    assert topic_set_size(0.2, 0.1, max_topics=np.int64(34)) == 34.0
    assert topic_set_size(0.2, 0.1, alpha=np.float32(0.05)) == topic_set_size(0.2, 0.1)


def test_compare_bounds_messages_fit_compare_bounds() -> None:
    per_q = generated(3, 6, seed=2).with_columns(pl.lit(0.1).alias("residual"))
    with pytest.raises(ir.ParameterError, match=r"compare_bounds runs one-sided paired tests") as e:
        ir.compare_bounds(per_q, test="tukey_hsd")
    assert "alternative='two-sided'" not in str(e.value)
    one = per_q.filter(pl.col("run_id") == "r0")
    with pytest.raises(ir.EmptyInputError, match=r"compare_bounds compares pairs of runs") as e2:
        ir.compare_bounds(one)
    assert "baseline" not in str(e2.value)
    with pytest.raises(ir.EmptyInputError, match=r"run_ids= keeps 1 \('r1'\)"):
        ir.compare_bounds(per_q, run_ids=["r1"])


def test_missing_is_read_as_its_choice_whatever_its_case() -> None:
    """``missing="Error"`` passed the choice check (case folded) and was then taken for
    "zero": the lacking query was scored 0 (n = 3) where it should be named."""
    per_q = pl.DataFrame(
        {"run_id": ["a"] * 3 + ["b"] * 2, "query_id": ["1", "2", "3", "1", "2"],
         "value": [0.1, 0.2, 0.3, 0.2, 0.1]}
    )  # fmt: skip
    with pytest.raises(ir.MissingQueryError, match="'b' lacks query '3'"):
        ir.compare(per_q, missing="Error")  # type: ignore[arg-type]
    assert ir.compare(per_q, missing=" Skip")["n"].to_list() == [2]  # type: ignore[arg-type]
