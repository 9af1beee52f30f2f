"""The worked examples printed in the seed papers (../shared/seeds), to their printed precision.

Seed 004 is Moffat, "Seven numeric properties of effectiveness metrics" (AIRS 2013); it writes
rankings as binary strings ("10100": relevant at ranks 1 and 3) and takes R > k unless said
otherwise. Seed 003 works a DCG and an MRR example; seed 000 defines the AP variants. Each
expected value below is the number the paper prints, or (where the paper prints the terms but
not the total) the hand sum of the printed formula, written out.
"""

from __future__ import annotations

import math

import polars as pl
import pytest

import polars_ireval as ir


def binary(
    ranking: str, *, extra_relevant: int = 10, query: str = "q"
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A run for a binary string and qrels judging it, plus ``extra_relevant`` relevant
    documents the run did not retrieve (so R > k unless 0 is asked for)."""
    n = len(ranking)
    docs = [f"d{i + 1}" for i in range(n)]
    run = pl.DataFrame(
        {"query_id": query, "doc_id": docs, "score": [float(n - i) for i in range(n)]}
    )
    judged = [(d, int(c)) for d, c in zip(docs, ranking, strict=True)]
    judged += [(f"u{j}", 1) for j in range(extra_relevant)]
    qrels = pl.DataFrame(
        {
            "query_id": query,
            "doc_id": [d for d, _ in judged],
            "relevance": [g for _, g in judged],
        }
    )
    return run, qrels


def graded(grades: list[int], *, query: str = "q") -> tuple[pl.DataFrame, pl.DataFrame]:
    """A run ranking one document per grade, in order, every one of them judged."""
    n = len(grades)
    docs = [f"d{i + 1}" for i in range(n)]
    run = pl.DataFrame(
        {"query_id": query, "doc_id": docs, "score": [float(n - i) for i in range(n)]}
    )
    qrels = pl.DataFrame({"query_id": query, "doc_id": docs, "relevance": grades})
    return run, qrels


def value(run: pl.DataFrame, qrels: pl.DataFrame, measure: str) -> float:
    out = ir.evaluate(run, qrels, measure)
    return float(out["value"][0])


# --------------------------------------------------------------------------- seed 004


def test_seed004_dcg5_of_11000_is_1_63() -> None:
    # "the DCG@5 score of 1.63 assigned to the ranking B = '11000'"
    assert round(value(*binary("11000"), "DCG@5"), 2) == 1.63


def test_seed004_dcg11_of_00000111111_exceeds_dcg5_of_11000() -> None:
    # DCG is unbounded: "00000111111" at depth 11 beats "11000" at depth 5
    assert value(*binary("00000111111"), "DCG@11") > value(*binary("11000"), "DCG@5")


def test_seed004_sdcg5_of_11000_is_0_55() -> None:
    # (1.00 + 0.63)/(1.00 + 0.63 + 0.50 + 0.43 + 0.39) ≈ 0.55
    run, qrels = binary("11000")
    assert round(value(run, qrels, "SDCG@5"), 2) == 0.55
    assert value(run, qrels, "SDCG@5") == pytest.approx(
        (1 + 1 / math.log2(3)) / sum(1 / math.log2(i + 1) for i in range(1, 6)), abs=1e-12
    )
    assert value(run, qrels, "DCG(norm='scaled')@5") == value(run, qrels, "SDCG@5")


def test_seed004_sn_dcg5_of_10100_and_10101() -> None:
    # "(1.0 + 0.50)/(1.0 + 0.63) ≈ 0.92" and "1.89/2.13 = 0.88"
    # The paper rounds the first (0.9197 -> 0.92) and truncates the second (0.8855 -> 0.88,
    # which rounds to 0.89): both within one unit of the printed last digit, and exactly
    # the hand-computed ratios below.
    w = [1 / math.log2(i + 1) for i in range(1, 6)]
    first = value(*binary("10100"), "DCG(norm='self')@5")
    second = value(*binary("10101"), "DCG(norm='self')@5")
    assert round(first, 2) == 0.92
    assert math.floor(second * 100) / 100 == 0.88
    assert first == pytest.approx((w[0] + w[2]) / (w[0] + w[1]), abs=1e-12)
    assert second == pytest.approx((w[0] + w[2] + w[4]) / (w[0] + w[1] + w[2]), abs=1e-12)
    assert second < first  # the anomaly the paper points out: one more relevant, lower score
    # the printed numerator and denominator of the second one
    assert round(value(*binary("10101"), "DCG@5"), 2) == 1.89
    assert round(sum(1 / math.log2(i + 1) for i in range(1, 4)), 2) == 2.13


def test_seed004_sn_ap5_of_10000_and_10001() -> None:
    # "B = '10000' has a SN-AP@5 score of 1.0, whereas B = '10001' has ... 0.7"
    assert value(*binary("10000"), "AP(norm='self')@5") == 1.0
    assert value(*binary("10001"), "AP(norm='self')@5") == pytest.approx(0.7, abs=1e-12)


def test_seed004_p6_sdcg6_ndcg6_of_111110() -> None:
    # "P@6, SDCG@6, and NDCG@6 scores are 0.83, 0.89, and 0.89 (assuming that R > 5)"
    run, qrels = binary("111110")
    assert round(value(run, qrels, "P@6"), 2) == 0.83
    assert round(value(run, qrels, "SDCG@6"), 2) == 0.89
    assert round(value(run, qrels, "nDCG@6"), 2) == 0.89
    # ... down from 1.0 for "11111" at k = 5
    run5, qrels5 = binary("11111")
    for m in ("P@5", "SDCG@5", "nDCG@5"):
        assert value(run5, qrels5, m) == pytest.approx(1.0, abs=1e-12)


def test_seed004_rr5_of_01000_equals_01100() -> None:
    # RR is not convergent: "01000" and "01100" have the same RR@5 (1/2)
    assert value(*binary("01000"), "RR@5") == 0.5
    assert value(*binary("01100"), "RR@5") == 0.5
    # nor top-weighted: "10001" and "11000" have the same RR@5
    assert value(*binary("10001"), "RR@5") == value(*binary("11000"), "RR@5") == 1.0


def test_seed004_hit_and_sp_definitions() -> None:
    # HIT@k = max r_i with the utilities {0, 0.1, 0.3, 0.7, 1.0} of seed 004's scale
    scale = "{0: 0.0, 1: 0.1, 2: 0.3, 3: 0.7, 4: 1.0}"
    run, qrels = graded([1, 3, 2, 4])
    assert value(run, qrels, f"HIT(gains={scale})@3") == 0.7
    assert value(run, qrels, f"HIT(gains={scale})@4") == 1.0
    # SP@k = Σ b_i Prec@i: "10100" -> 1/1 + 2/3
    assert value(*binary("10100"), "SP@5") == pytest.approx(1 + 2 / 3, abs=1e-12)


def test_seed004_inverse_squares_weights_sum_to_one() -> None:
    # w_i = 1/(i(i+1)): "prefix sums of that sequence converge to one" (k/(k+1) at depth k)
    run, qrels = binary("1" * 50)
    assert value(run, qrels, "InvSq@50") == pytest.approx(50 / 51, abs=1e-12)
    assert value(run, qrels, "InvSq@1") == 0.5


# --------------------------------------------------------------------------- seed 003


def test_seed003_dcg_example() -> None:
    # relevance 3, 2, 3, 0, 1, 2 with DCG_p = rel_1 + Σ_{i>=2} rel_i / log2(i): the printed
    # terms are 3 (rank 1, no discount), 2, 1.892, 0, 0.431, 0.774
    run, qrels = graded([3, 2, 3, 0, 1, 2])
    printed = [3, 2, 1.892, 0, 0.431, 0.774]
    for k in range(1, 7):
        got = value(run, qrels, f"DCG(discount='jk',b=2)@{k}")
        assert round(got, 3) == pytest.approx(sum(printed[:k]), abs=2e-3)
    # the total, summed by hand from the formula: 3 + 2 + 3/log2 3 + 1/log2 5 + 2/log2 6
    total = 3 + 2 + 3 / math.log2(3) + 1 / math.log2(5) + 2 / math.log2(6)
    assert value(run, qrels, "DCG(discount='jk',b=2)@6") == pytest.approx(total, abs=1e-12)
    assert round(total, 3) == 8.097


def test_seed003_ndcg_exponential_formula() -> None:
    # eq. 10: NDCG with gain 2^R - 1 and discount log2(1 + m), normalised to 1 when perfect
    run, qrels = graded([3, 2, 3, 0, 1, 2])
    dcg = sum((2**g - 1) / math.log2(1 + m) for m, g in enumerate([3, 2, 3, 0, 1, 2], 1))
    ideal = sum((2**g - 1) / math.log2(1 + m) for m, g in enumerate([3, 3, 2, 2, 1], 1))
    assert value(run, qrels, "nDCG(gain='exp')@6") == pytest.approx(dcg / ideal, abs=1e-12)


def test_seed003_mrr_example_is_11_18() -> None:
    # cat: correct at rank 3, torus: rank 2, virus: rank 1 -> (1/3 + 1/2 + 1)/3 = 11/18
    guesses = {"cat": 3, "torus": 2, "virus": 1}
    run = pl.DataFrame(
        {
            "query_id": [q for q in guesses for _ in range(3)],
            "doc_id": [f"g{i}" for _ in guesses for i in range(1, 4)],
            "score": [3.0, 2.0, 1.0] * 3,
        }
    )
    qrels = pl.DataFrame(
        {"query_id": list(guesses), "doc_id": [f"g{r}" for r in guesses.values()], "relevance": 1}
    )
    mrr = float(ir.evaluate(run, qrels, "RR")["value"][0])
    assert mrr == pytest.approx(11 / 18, abs=1e-12)
    assert round(mrr, 2) == 0.61


# --------------------------------------------------------------------------- seed 001


def test_seed001_log_b_discounts_equal_no_discount_up_to_rank_b() -> None:
    # "the 'No discount', 'log5' and 'log2' conditions produce the same results for cut-off
    # values 1 and 2, and 'No discount' and 'log5' have the same values for cut-off values
    # 1 to 5": log b discounts nothing up to rank b (Järvelin and Kekäläinen's DCG)
    run, qrels = graded([2, 0, 1, 3, 1, 2, 3])
    for k in range(1, 8):
        none = value(run, qrels, f"nDCG(discount='none')@{k}")
        log5 = value(run, qrels, f"nDCG(discount='jk',b=5)@{k}")
        log2 = value(run, qrels, f"nDCG(discount='jk',b=2)@{k}")
        assert (log5 == none) is (k <= 5), k
        assert (log2 == none) is (k <= 2), k


def test_seed001_map_with_rank_discount_is_map_and_others_can_exceed_one() -> None:
    # Formula 10.2: "If the function discounts by rank, it is obviously the same as standard
    # MAP"; "for disc(r) [other than r], MAP does not necessarily fall into the [0..1] range"
    run, qrels = binary("1101", extra_relevant=0)
    assert value(run, qrels, "AP(discount='rank')") == value(run, qrels, "AP")
    # no discount: (1·1 + 1·2 + 0 + 1·3) / R = 6/3
    assert value(run, qrels, "AP(discount='none')") == 2.0
    # graded relevance in [0, 1] on a six-point scale enters twice, as in formula 10.2
    run, qrels = graded([5, 0, 3])
    six_point = "{0: 0.0, 1: 0.2, 2: 0.4, 3: 0.6, 4: 0.8, 5: 1.0}"
    want = (1.0 * 1.0 / 1 + 0.6 * (1.0 + 0.6) / 3) / 2
    assert value(run, qrels, f"AP(gains={six_point})") == pytest.approx(want, abs=1e-12)


# --------------------------------------------------------------------------- seed 000


def test_seed000_ap_variants() -> None:
    # eq. 1: 1/min(k, R); eq. 2: 1/R (trec_eval); eq. 3: 1/R_k. "11" at k = 2 with R = 4:
    # a perfect top 2 scores 1 under eq. 1, 2/4 under eq. 2 and 1 under eq. 3.
    run, qrels = binary("11", extra_relevant=2)
    assert value(run, qrels, "AP(norm='min')@2") == 1.0
    assert value(run, qrels, "AP@2") == 0.5
    assert value(run, qrels, "AP(norm='self')@2") == 1.0
    # "10" with R = 4: Σ r_i P(i) = 1, so eq. 1 gives 1/2, eq. 2 1/4, eq. 3 1/1
    run, qrels = binary("10", extra_relevant=3)
    assert value(run, qrels, "AP(norm='min')@2") == 0.5
    assert value(run, qrels, "AP@2") == 0.25
    assert value(run, qrels, "AP(norm='self')@2") == 1.0


def test_seed000_q_measure_beta_zero_is_ap() -> None:
    # Q-measure with β = 0 reduces to AP (Sakai); QM(1) is seed 000's setting
    run, qrels = binary("1011001", extra_relevant=2)
    assert value(run, qrels, "Q(beta=0)") == pytest.approx(value(run, qrels, "AP"), abs=1e-12)
    # binary gains, β = 1: (C(i) + cg(i)) / (i + cg*(i)) at relevant ranks 1, 3, 4, 7 over R = 6
    terms = [(1 + 1) / (1 + 1), (2 + 2) / (3 + 3), (3 + 3) / (4 + 4), (4 + 4) / (7 + 6)]
    assert value(run, qrels, "Q") == pytest.approx(sum(terms) / 6, abs=1e-12)
