"""Preference evaluation (trec_eval ``-R prefs`` / ``-R qrels_prefs``, ``-m all_prefs``).

Golden: every per-query and ``all`` value of trec_eval 9.0.8's expected outputs, compared at
its printed precision (4 decimals; integers for the counts), and its line order. Hand-worked
cases pin each measure family and each reproduced trec_eval quirk on a few documents.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_ireval as ir
from polars_ireval.trec_eval.prefs import (
    PREFS_COUNTS,
    PREFS_MEASURES,
    PreferenceError,
    evaluate_prefs,
    prefs_from_qrels,
    read_prefs,
    read_qrels_prefs,
)
from tests.paths import TREC_TEST, need_data
from tests.refs import compare_with_trec_eval

pytestmark = pytest.mark.filterwarnings("ignore::polars_ireval.CoverageWarning")

EXPECTED = "expected_v9.0.8"

# (id, reader, relevance file, run, expected trec_eval -q output)
GOLDEN = [
    ("prefs", read_prefs, "prefs.test", "prefs.results.test", "out.test.prefs"),
    # v10 only: '#' lines skipped, '#' inside a docno kept; same expected output
    ("prefs-comments", read_prefs, "prefs.comment.test", "prefs.results.test", "out.test.prefs"),
    ("qrels_prefs", read_qrels_prefs, "qrels.test", "results.test", "out.test.qrels_prefs"),
]


@pytest.mark.parametrize(
    "reader,prefs,run,expected", [c[1:] for c in GOLDEN], ids=[c[0] for c in GOLDEN]
)
def test_trec_eval_golden(
    reader: Callable[[Any], pl.DataFrame], prefs: str, run: str, expected: str
) -> None:
    need_data()
    table = reader(TREC_TEST / prefs)
    per_query = evaluate_prefs(TREC_TEST / run, table, per_query=True)
    overall = evaluate_prefs(TREC_TEST / run, table)
    compare_with_trec_eval(
        per_query, overall, TREC_TEST / EXPECTED / expected, lambda m: m in PREFS_COUNTS
    )


@pytest.mark.parametrize(
    "reader,plain,commented,field_hash",
    [
        (read_prefs, "prefs.test", "prefs.comment.test", ("CR93E-10505#37", "CR93E-10505")),
        (read_qrels_prefs, "qrels.test", "qrels.test.with-comments", ("CR#93E-1860", "CR93E-1860")),
    ],
    ids=["prefs", "qrels_prefs"],
)
def test_comment_twin_reads_the_same(
    reader: Callable[[Any], pl.DataFrame], plain: str, commented: str, field_hash: tuple[str, str]
) -> None:
    """'#' lines are skipped; a '#' inside a field is data (the twins differ only there)."""
    need_data()
    with_hash, without = field_hash
    twin = reader(TREC_TEST / commented)
    assert with_hash in twin["doc_id"].to_list()
    fixed = twin.with_columns(pl.col("doc_id").replace(with_hash, without))
    assert_frame_equal(fixed, reader(TREC_TEST / plain))


def test_qrels_prefs_without_iteration_column() -> None:
    """qrels.test has a constant second column: read_qrels + prefs_from_qrels is the same."""
    need_data()
    from_qrels = prefs_from_qrels(ir.read_qrels(TREC_TEST / "qrels.test"))
    assert_frame_equal(from_qrels, read_qrels_prefs(TREC_TEST / "qrels.test"))


# --------------------------------------------------------------------------- hand-worked


def prefs_frame(rows: list[tuple[str, str, str, str, float]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=["query_id", "jg", "jsg", "doc_id", "rel_level"], orient="row")


def run_frame(
    ranking: list[str], scores: list[float] | None = None, query: str = "q"
) -> pl.DataFrame:
    scores = (
        scores if scores is not None else [float(len(ranking) - i) for i in range(len(ranking))]
    )
    return pl.DataFrame(
        {"query_id": [query] * len(ranking), "doc_id": ranking, "score": scores},
        schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64},
    )


def values(run: pl.DataFrame, prefs: pl.DataFrame, **kw: Any) -> dict[str, float]:
    out = evaluate_prefs(run, prefs, **kw)
    return dict(zip(out["measure"], out["value"], strict=True))


# Three documents, one judgment group, one subgroup: a=2, b=1, c=0 give the preferences
# a>b, a>c, b>c. The run ranks b, a and misses c: docids b=0, a=1, c=2 (unretrieved), NJR=2.
#   a>b: both retrieved, wrong order  -> failed_ret
#   a>c: only a retrieved             -> fulfilled_imp
#   b>c: only b retrieved             -> fulfilled_imp
# poss = 3, ful = 2, ful_ret = 0; P_ret = 1, P_imp = 2, NO = 0.
# simp = 2/3, simp_ret = 0/1, simp_imp = (F_ret + F_imp)/(P_ret + P_imp) = 2/3. With one
# group, avgjg* equal simp*.
# pair: {b,a} (0,1): C[0][1] = 0 (no group prefers b), C[1][0] = 1 -> 0/1 = 0, both retrieved;
#   {a,c} (1,2) -> 1/1, {b,c} (0,2) -> 1/1, one retrieved. pair = pair_imp = 2/3, pair_ret = 0.
# Rnonrel: R_all = 2 (a, b) >= N_all = 1 (c), R_ret = 2: (2 + 2*1) / (3 + 2*1) = 0.8.
# Rnonrel_ret: R_ret = 2 >= N_ret = 0: (F_ret + R_ret*2) / (P_ret + R_all*2) = 4/5 = 0.8.
THREE_DOCS = {
    "prefs_num_prefs_poss": 3,
    "prefs_num_prefs_ful": 2,
    "prefs_num_prefs_ful_ret": 0,
    "prefs_simp": 2 / 3,
    "prefs_pair": 2 / 3,
    "prefs_avgjg": 2 / 3,
    "prefs_avgjg_Rnonrel": 0.8,
    "prefs_simp_ret": 0.0,
    "prefs_pair_ret": 0.0,
    "prefs_avgjg_ret": 0.0,
    "prefs_avgjg_Rnonrel_ret": 0.8,
    "prefs_simp_imp": 2 / 3,
    "prefs_pair_imp": 2 / 3,
    "prefs_avgjg_imp": 2 / 3,
}


def three_docs() -> pl.DataFrame:
    return prefs_frame(
        [("q", "0", "0", "a", 2.0), ("q", "0", "0", "b", 1.0), ("q", "0", "0", "c", 0.0)]
    )


def test_three_documents_by_hand() -> None:
    got = values(run_frame(["b", "a"]), three_docs())
    assert list(got) == list(PREFS_MEASURES)
    assert got == pytest.approx(THREE_DOCS)


def test_ideal_ranking_fulfils_everything() -> None:
    got = values(run_frame(["a", "b", "c"]), three_docs())
    assert got["prefs_num_prefs_ful_ret"] == got["prefs_num_prefs_poss"] == 3
    for name in ("prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_simp_ret", "prefs_pair_ret"):
        assert got[name] == 1.0


# Two subgroups: (1:3, 2:2, 3:1) and (2:5, 4:4) give 1>2, 1>3, 2>3, 2>4 and, transitively,
# 1>4 (trec_eval's own example); 3 and 4 stay unordered. Run: 1, 4, 2 (3 unretrieved), so
# docids 1=0, 4=1, 2=2, 3=3, NJR=3.
#   1>2 ful_ret, 1>3 ful_imp, 2>3 ful_imp, 2>4 failed_ret, 1>4 ful_ret
# poss = 5, ful = 4, ful_ret = 2, P_ret = 3: simp_ret = 2/3.
def test_transitive_closure_by_hand() -> None:
    prefs = prefs_frame(
        [
            ("q", "g", "s1", "1", 3.0),
            ("q", "g", "s1", "2", 2.0),
            ("q", "g", "s1", "3", 1.0),
            ("q", "g", "s2", "2", 5.0),
            ("q", "g", "s2", "4", 4.0),
        ]
    )
    got = values(run_frame(["1", "4", "2"]), prefs)
    assert got["prefs_num_prefs_poss"] == 5
    assert got["prefs_num_prefs_ful"] == 4
    assert got["prefs_num_prefs_ful_ret"] == 2
    assert got["prefs_simp_ret"] == pytest.approx(2 / 3)
    # a long chain (one document per subgroup pair) needs several closure rounds
    chain = prefs_frame(
        [
            ("q", "g", f"s{i}", d, lvl)
            for i in range(6)
            for d, lvl in ((str(i), 1.0), (str(i + 1), 0.5))
        ]
    )
    n = 7  # documents 0 > 1 > ... > 6: every pair i < j becomes a preference, 21 in all
    got = values(run_frame([str(i) for i in range(n)]), chain)
    assert got["prefs_num_prefs_poss"] == got["prefs_num_prefs_ful_ret"] == n * (n - 1) // 2


@pytest.mark.parametrize("preferred,fulfilled", [("a", 1), ("b", 0)])
def test_score_ties_break_by_doc_id_ascending(preferred: str, fulfilled: int) -> None:
    """Equal scores: 'a' ranks before 'b' (trec_eval's main ranking would put 'b' first)."""
    other = "b" if preferred == "a" else "a"
    prefs = prefs_frame([("q", "0", "0", preferred, 1.0), ("q", "0", "0", other, 0.0)])
    got = values(run_frame(["b", "a"], [1.0, 1.0]), prefs)
    assert got["prefs_num_prefs_ful_ret"] == fulfilled


# One group with R = 1 relevant (a) and N = 2 non-relevant (n1, n2): R < N, so Rnonrel
# recounts with the lowest class L = {n1, n2} cut to its first R_all = 1 document L' = {n1}.
# Run: a, n1 -> docids a=0, n1=1, n2=2, NJR=2. trec_eval pairs every document of every class,
# L included, with L': (a,n1) fulfilled, (n1,n1) and (n2,n1) not -> 1/3 (without the quirk:
# 1/1). Rnonrel_ret: R_ret = 1 >= N_ret = 1, no padding: F_ret / P_ret = 1/1.
def test_rnonrel_pairs_lowest_class_with_itself() -> None:
    prefs = prefs_frame(
        [("q", "0", "0", "a", 1.0), ("q", "0", "0", "n1", 0.0), ("q", "0", "0", "n2", 0.0)]
    )
    got = values(run_frame(["a", "n1"]), prefs)
    assert got["prefs_avgjg_Rnonrel"] == pytest.approx(1 / 3)
    assert got["prefs_avgjg_Rnonrel_ret"] == 1.0


# Group a=1, b=1, n=0; the run retrieves a only. R_ret = 1 >= N_ret = 0: trec_eval pads the
# numerator with R_ret*(R-N) = 1 but the denominator with R_all*(R-N) = 2: (0 + 1)/(0 + 2).
def test_rnonrel_ret_pads_denominator_with_all_relevant() -> None:
    prefs = prefs_frame(
        [("q", "0", "0", "a", 1.0), ("q", "0", "0", "b", 1.0), ("q", "0", "0", "n", 0.0)]
    )
    got = values(run_frame(["a"]), prefs)
    assert got["prefs_avgjg_Rnonrel_ret"] == 0.5


# Group g0 (a=1, n=0) is perfectly ranked: 1. Group g1 has only non-relevant documents, so
# its recount is 0/0 = NaN, which poisons the query's sum: Rnonrel = 0, not 0.5.
def test_rnonrel_nan_group_zeroes_the_query() -> None:
    prefs = prefs_frame(
        [
            ("q", "g0", "0", "a", 1.0),
            ("q", "g0", "0", "n", 0.0),
            ("q", "g1", "0", "x", 0.0),
            ("q", "g1", "0", "y", 0.0),
        ]
    )
    got = values(run_frame(["a", "n"]), prefs)
    assert got["prefs_avgjg_Rnonrel"] == 0.0
    assert got["prefs_avgjg"] == 0.5  # g1 has no preference: ratio 0, still counted
    only_g0 = values(run_frame(["a", "n"]), prefs.filter(pl.col("jg") == "g0"))
    assert only_g0["prefs_avgjg_Rnonrel"] == 1.0


# Groups g0: a>b, a>c; g1: b>a. Run a, b, c (all retrieved, in that order).
# simp pools the preferences: 2 of 3 fulfilled. avgjg averages groups: (2/2 + 0/1)/2 = 0.5.
# pair averages document pairs: {a,b}: 1 group each way -> 1/2; {a,c}: 1/1 -> (0.5 + 1)/2.
def test_simp_pair_avgjg_differ_with_conflicting_groups() -> None:
    prefs = prefs_frame(
        [
            ("q", "g0", "0", "a", 2.0),
            ("q", "g0", "0", "b", 1.0),
            ("q", "g0", "0", "c", 1.0),
            ("q", "g1", "0", "b", 1.0),
            ("q", "g1", "0", "a", 0.0),
        ]
    )
    got = values(run_frame(["a", "b", "c"]), prefs)
    assert got["prefs_simp"] == pytest.approx(2 / 3)
    assert got["prefs_avgjg"] == pytest.approx(0.5)
    assert got["prefs_pair"] == pytest.approx(0.75)


def test_aggregate_sums_counts_and_averages_the_rest() -> None:
    prefs = pl.concat([three_docs(), three_docs().with_columns(pl.lit("r").alias("query_id"))])
    run = pl.concat([run_frame(["b", "a"]), run_frame(["a", "b", "c"], query="r")])
    per_query = evaluate_prefs(run, prefs, per_query=True)
    assert per_query["query_id"].unique(maintain_order=True).to_list() == ["q", "r"]
    overall = values(run, prefs)
    assert overall["prefs_num_prefs_poss"] == 6
    assert overall["prefs_num_prefs_ful"] == 2 + 3
    assert overall["prefs_simp"] == pytest.approx((2 / 3 + 1) / 2)


def test_queries_missing_on_one_side_are_skipped() -> None:
    prefs = pl.concat([three_docs(), three_docs().with_columns(pl.lit("z").alias("query_id"))])
    run = pl.concat([run_frame(["b", "a"]), run_frame(["a"], query="only_run")])
    with pytest.warns(ir.CoverageWarning):
        out = evaluate_prefs(run, prefs, per_query=True)
    assert out["query_id"].unique().to_list() == ["q"]


def test_several_runs_and_lazy_inputs() -> None:
    prefs = three_docs()
    runs = pl.concat(
        [
            run_frame(["b", "a"]).with_columns(pl.lit("r1").alias("run_id")),
            run_frame(["a", "b", "c"]).with_columns(pl.lit("r2").alias("run_id")),
        ]
    ).select("run_id", "query_id", "doc_id", "score")
    both = evaluate_prefs(runs, prefs)
    assert both.columns == ["run_id", "measure", "value"]
    first = both.filter(pl.col("run_id") == "r1")
    assert dict(zip(first["measure"], first["value"], strict=True)) == pytest.approx(THREE_DOCS)
    lazy = evaluate_prefs(runs.lazy(), prefs.lazy(), per_query=True)
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(), evaluate_prefs(runs, prefs, per_query=True))


@pytest.mark.parametrize(
    "measures,expected",
    [
        (None, list(PREFS_MEASURES)),
        ("all_prefs", list(PREFS_MEASURES)),
        ("prefs", list(PREFS_MEASURES[:6])),
        (["prefs_pair_imp", "prefs_num_prefs_poss"], ["prefs_num_prefs_poss", "prefs_pair_imp"]),
        ("prefs_simp prefs prefs_simp_ret", [*PREFS_MEASURES[:6], "prefs_simp_ret"]),
    ],
)
def test_measure_selection_in_print_order(measures: Any, expected: list[str]) -> None:
    out = evaluate_prefs(run_frame(["a"]), three_docs(), measures)
    assert out["measure"].to_list() == expected


def test_unknown_measure() -> None:
    with pytest.raises(ir.UnknownMeasureError, match="prefs_simp"):
        evaluate_prefs(run_frame(["a"]), three_docs(), "prefs_smp")


# --------------------------------------------------------------------------- errors


def test_contradicting_subgroups() -> None:
    prefs = prefs_frame(
        [
            ("q", "g", "s1", "a", 2.0),
            ("q", "g", "s1", "b", 1.0),
            ("q", "g", "s2", "b", 2.0),
            ("q", "g", "s2", "a", 1.0),
        ]
    )
    with pytest.raises(PreferenceError, match=r"judgment group 'g'.*contradict"):
        evaluate_prefs(run_frame(["a"]), prefs)


@pytest.mark.parametrize(
    "rows",
    [
        [("s1", "a", 0.0), ("s1", "b", 1.0), ("s2", "a", 2.0), ("s2", "c", 1.0)],
        [("s1", "a", 0.0), ("s2", "a", 1.0)],  # no preference at all, still inconsistent
    ],
    ids=["with-preferences", "without"],
)
def test_zero_and_positive_level_in_one_group(rows: list[tuple[str, str, float]]) -> None:
    prefs = prefs_frame([("q", "g", jsg, doc, level) for jsg, doc, level in rows])
    with pytest.raises(PreferenceError, match="'a' has rel_level 0"):
        evaluate_prefs(run_frame(["a"]), prefs)


READERS = [
    (read_prefs, "q 0 0 a 1\nq 0 0 b 0\nq 0 b 1\n", "expected 5 whitespace-separated"),
    (read_qrels_prefs, "q 0 a 1\nq 0 b 0\nq 0 b 1 x\n", "expected 4 whitespace-separated"),
]


@pytest.mark.parametrize("reader,text,message", READERS, ids=["prefs", "qrels_prefs"])
def test_malformed_line_names_file_and_line(
    reader: Callable[[Any], pl.DataFrame], text: str, message: str, tmp_path: Path
) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("# header\n" + text)
    with pytest.raises(
        ir.FormatError, match=rf"{re.escape(str(path))}:4: malformed line.*{message}"
    ) as err:
        reader(path)
    assert err.value.line == 4


@pytest.mark.parametrize("reader", [read_prefs, read_qrels_prefs], ids=["prefs", "qrels_prefs"])
@pytest.mark.parametrize("text", ["", "# only a comment\n\n"], ids=["empty", "comments"])
def test_empty_file(reader: Callable[[Any], pl.DataFrame], text: str, tmp_path: Path) -> None:
    path = tmp_path / "empty.txt"
    path.write_text(text)
    with pytest.raises(ir.EmptyInputError):
        reader(path)


PLAIN = {"prefs": "q1 0 0 a 1\nq1 0 0 b 0\nq2 0 0 c 2\n", "qrels": "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\n"}
READER = {"prefs": read_prefs, "qrels": read_qrels_prefs}


@pytest.mark.parametrize("kind", ["prefs", "qrels"])
@pytest.mark.parametrize(
    "encode",
    [
        lambda t: b"\xef\xbb\xbf" + t,  # a UTF-8 BOM
        lambda t: gzip.compress(b"\xef\xbb\xbf" + t),
        lambda t: t.replace(b"\n", b"\r\n"),  # Windows
        lambda t: b"\xef\xbb\xbf" + t.replace(b"\n", b"\r"),  # old Mac, and a BOM
        lambda t: b"\xef\xbb\xbf# header\n" + t.replace(b" ", b"\t"),
    ],
    ids=["bom", "bom-gzip", "crlf", "cr", "bom-comment-tabs"],
)
def test_text_variants_read_as_read_qrels_reads_them(
    kind: str, encode: Callable[[bytes], bytes], tmp_path: Path
) -> None:
    plain = tmp_path / "plain.txt"
    plain.write_text(PLAIN[kind])
    other = tmp_path / "other.txt"
    other.write_bytes(encode(PLAIN[kind].encode()))
    want = READER[kind](plain)
    assert want["query_id"].to_list() == ["q1", "q1", "q2"]
    assert_frame_equal(READER[kind](other), want)
    assert_frame_equal(READER[kind](str(other)), want)
    if kind == "qrels":  # the same judgments as read_qrels reads
        qrels = ir.read_qrels(other)
        assert qrels.select("query_id", "doc_id").rows() == want.select("query_id", "doc_id").rows()


@pytest.mark.parametrize("kind", ["prefs", "qrels"])
def test_an_empty_file_among_several_is_an_error(kind: str, tmp_path: Path) -> None:
    full, empty = tmp_path / "full.txt", tmp_path / "empty.txt"
    full.write_text(PLAIN[kind])
    empty.write_text("# nothing judged\n")
    with pytest.raises(ir.EmptyInputError, match=rf"^{re.escape(str(empty))}: .*leave it out"):
        READER[kind]([full, empty])
    full.write_text(PLAIN["qrels"])
    with pytest.raises(ir.EmptyInputError, match=rf"^{re.escape(str(empty))}: .*leave it out"):
        ir.read_qrels([full, empty])  # as read_qrels


@pytest.mark.parametrize(
    "kind,label", [("prefs", "2 preference files"), ("qrels", "2 qrels files")]
)
def test_several_files_are_named_in_errors(kind: str, label: str, tmp_path: Path) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt.gz"
    a.write_text(PLAIN[kind])
    b.write_bytes(gzip.compress(PLAIN[kind].encode()))
    with pytest.raises(ir.DuplicateError, match=rf"^{label}: .*a\.txt:1.*b\.txt\.gz:1"):
        READER[kind]([a, b])


@pytest.mark.parametrize("kind", ["prefs", "qrels"])
@pytest.mark.parametrize(
    "content,message",
    [
        (b"q3 caf\xe9\n", r"the file is not UTF-8 text \(.*\); convert it, e\.g\. with iconv"),
        (b"\x1f\x8b" + b"not gzip" * 4, r"the file is not valid gzip \(.*\); check the download"),
        (b"\x00\x01\x02" * 8, r"the file holds NUL bytes, so it is not text"),
    ],
    ids=["latin-1", "bad-gzip", "binary"],
)
def test_unreadable_file_is_named_as_read_qrels_names_it(
    kind: str, content: bytes, message: str, tmp_path: Path
) -> None:
    path = tmp_path / "bad.txt"
    path.write_bytes(PLAIN[kind].encode() + content if b"caf" in content else content)
    with pytest.raises(ir.FormatError, match=rf"^{re.escape(str(path))}: {message}") as err:
        READER[kind](path)
    assert err.value.line is None
    with pytest.raises(ir.FormatError, match=rf"^{re.escape(str(path))}: {message}"):
        ir.read_qrels(path)


def test_level_not_a_number(tmp_path: Path) -> None:
    path = tmp_path / "p.txt"
    path.write_text("q 0 0 a 1\nq 0 0 b high\n")
    with pytest.raises(ir.FormatError, match=rf"{re.escape(str(path))}:2: level 'high'"):
        read_prefs(path)


def test_duplicate_document_in_subgroup(tmp_path: Path) -> None:
    path = tmp_path / "p.txt"
    path.write_text("q 0 0 a 1\nq 0 0 b 0\nq 0 0 a 1\n")
    with pytest.raises(ir.DuplicateError, match=r"'a' is listed 2 times.*p.txt:1.*p.txt:3"):
        read_prefs(path)
    # the same document in two subgroups (or groups) is fine
    path.write_text("q 0 0 a 1\nq 0 0 b 0\nq 0 1 a 1\nq 0 1 b 0\n")
    assert read_prefs(path).height == 4


def test_gzip_and_fractional_levels(tmp_path: Path) -> None:
    text = "q 0 0 a 0.5\nq 0 0 b -1\nq 0 0 c 2.25\n"
    path = tmp_path / "p.txt.gz"
    with gzip.open(path, "wt") as f:
        f.write(text)
    assert read_prefs(path)["rel_level"].to_list() == [0.5, -1.0, 2.25]


def test_frame_missing_column() -> None:
    with pytest.raises(ir.SchemaError, match="jsg"):
        read_prefs(
            pl.DataFrame({"query_id": ["q"], "jg": ["0"], "doc_id": ["a"], "rel_level": [1.0]})
        )


def test_row_order_does_not_matter() -> None:
    need_data()
    prefs = read_prefs(TREC_TEST / "prefs.test")
    run = ir.read_run(TREC_TEST / "prefs.results.test")
    want = evaluate_prefs(run, prefs, per_query=True)
    got = evaluate_prefs(
        run.sample(fraction=1.0, shuffle=True, seed=1),
        prefs.sample(fraction=1.0, shuffle=True, seed=2),
        per_query=True,
    )
    assert_frame_equal(got, want)
