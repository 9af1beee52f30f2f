"""ir.pir, ir.read_preferences, ir.simulate_sessions, `ireval pir` and plot.pir_curves.

Oracles: PIR values worked out by hand below (each session's difference written in a
comment), a brute-force PIR over every threshold in exact fractions, and the simulator's
user model recomputed here from its lists and qrels.
"""

from __future__ import annotations

import gzip
import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import polars_ireval as ir
from polars_ireval.cli import main
from tests.docblocks import normalise, run_blocks
from tests.paths import ROOT


def lists_of(sessions: dict[str, dict[str, str]]) -> pl.DataFrame:
    """A run from {session: {list: "rn..."}}: each letter a document, r relevant (grade 1),
    n not (grade 0), ranked in the order written; document ids say their list and rank."""
    rows = []
    for s, pair in sessions.items():
        for name, docs in pair.items():
            for i, g in enumerate(docs):
                rows.append((name, s, f"{name}{i}{g}", float(len(docs) - i)))
    return pl.DataFrame(rows, schema=["run_id", "query_id", "doc_id", "score"], orient="row")


def qrels_of(lists: pl.DataFrame) -> pl.DataFrame:
    return lists.select(
        "query_id", "doc_id", pl.col("doc_id").str.ends_with("r").cast(pl.Int64).alias("relevance")
    )


def prefs_of(preferred: dict[str, str]) -> pl.DataFrame:
    return pl.DataFrame({"session": list(preferred), "preferred": list(preferred.values())})


# Four sessions, the preferred list first. P@2 differences (preferred - other):
#   a: rr vs nn  -> 1 - 0     = +1      P@1: 1 - 0 = +1
#   b: rr vs nn  -> +1                  P@1: +1
#   c: rn vs rr  -> 0.5 - 1   = -0.5    P@1: 1 - 1 = 0
#   d: rn vs nr  -> 0.5 - 0.5 = 0       P@1: 1 - 0 = +1
SESSIONS = {
    "a": {"A1": "rr", "B1": "nn"},
    "b": {"A2": "rr", "B2": "nn"},
    "c": {"A3": "rn", "B3": "rr"},
    "d": {"A4": "rn", "B4": "nr"},
}
PREFERRED = {"a": "A1", "b": "A2", "c": "A3", "d": "A4"}


@pytest.fixture
def hand() -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    lists = lists_of(SESSIONS)
    return lists, qrels_of(lists), prefs_of(PREFERRED)


def test_hand_worked_pir_with_threshold_ties(hand) -> None:
    out = ir.pir(*hand, ["P"], cutoffs=[1, 2], threshold=[0, 0.25, 0.5, 1, "best"])
    got = {
        (k, rule, t): (p, a, d, tie)
        for k, rule, t, p, a, d, tie in out.select(
            "cutoff", "rule", "threshold", "pir", "agree", "disagree", "tied"
        ).iter_rows()
    }
    assert set(out["sessions"]) == {4}
    # P@2, d = +1, +1, -0.5, 0
    assert got[(2, "fixed", 0.0)] == (2.5 / 4, 2, 1, 1)  # (2 + 1/2) / 4
    assert got[(2, "fixed", 0.25)] == (2.5 / 4, 2, 1, 1)  # nothing new within 0.25
    assert got[(2, "fixed", 0.5)] == (3 / 4, 2, 0, 2)  # |-0.5| <= 0.5: a tie, not wrong
    assert got[(2, "fixed", 1.0)] == (0.5, 0, 0, 4)  # every session tied: the baseline
    assert got[(2, "best", 0.5)] == (3 / 4, 2, 0, 2)  # the best, at 0.5
    # P@1, d = +1, +1, 0, +1: the best is the smallest threshold of the highest PIR, 0
    assert got[(1, "fixed", 0.0)] == (3.5 / 4, 3, 0, 1)
    assert got[(1, "best", 0.0)] == (3.5 / 4, 3, 0, 1)
    assert got[(1, "fixed", 0.5)] == (3.5 / 4, 3, 0, 1)
    assert got[(1, "fixed", 1.0)] == (0.5, 0, 0, 4)
    # rows: measure, cut-off, then the thresholds in the order given
    assert out["cutoff"].to_list() == [1] * 5 + [2] * 5
    assert out["rule"].to_list()[:5] == ["fixed"] * 4 + ["best"]


def test_hand_worked_ndcg_and_measure_strings(hand) -> None:
    # nDCG@2 of a 2-document list, R of the session's qrels: a: rr vs nn -> 1 - 0;
    # b the same; c: rn vs rr (R = 3: r's of both lists) -> (1)/(1 + 1/log2 3) -
    # (1 + 1/log2 3)/(1 + 1/log2 3) < 0; d: rn vs nr -> 1/x - (1/log2 3)/x > 0, x = IDCG@2.
    out = ir.pir(*hand, ["nDCG", "nDCG(discount='rank')"], cutoffs=[2])
    assert out["measure"].to_list() == ["nDCG", "nDCG(discount='rank')"]
    assert out["agree"].to_list() == [3, 3] and out["disagree"].to_list() == [1, 1]
    assert out["pir"].to_list() == [0.75, 0.75]


def brute_pir(d: list[float], t: float) -> Fraction:
    """PIR at ``t`` of differences of scores in [0, 1], a difference within 1e-10 of t
    counting as equal to it (as ``ir.pir`` does: 1/6 is 0.16666666666666663 or
    0.16666666666666674 as a difference of two precisions)."""
    t += 1e-10
    agree = sum(x > t for x in d)
    tied = sum(abs(x) <= t for x in d)
    return Fraction(2 * agree + tied, 2 * len(d))


def diffs(lists, qrels, prefs, measure: str) -> list[float]:
    scores = ir.evaluate(lists, qrels, measure, per_query=True)
    value = {(r, q): v for r, q, _, v in scores.iter_rows()}
    pairs = lists.select("query_id", "run_id").unique()
    out = []
    for s, p in prefs.select("session", "preferred").iter_rows():
        (other,) = [r for q, r in pairs.iter_rows() if q == s and r != p]
        out.append(value[(p, s)] - value[(other, s)])
    return out


@pytest.mark.parametrize("seed", [3, 11])
def test_best_threshold_equals_a_brute_force_search(seed: int) -> None:
    sim = ir.simulate_sessions(40, seed=seed, noise=0.1, depth=6, pool=12)
    measures = ["nDCG(discount='log2')", "P", "RBP(p=0.5)"]
    out = ir.pir(sim.lists, sim.qrels, sim.preferences, measures, cutoffs=[1, 3, 6],
                 threshold=["best", 0, 0.1])  # fmt: skip
    for m in measures:
        for k in (1, 3, 6):
            d = diffs(sim.lists, sim.qrels, sim.preferences, f"{m}@{k}")
            grid = sorted({0.0, *(abs(x) for x in d), *np.linspace(0, 1, 201)})
            values = {t: brute_pir(d, t) for t in grid}
            best = max(values.values())
            first = min(t for t, v in values.items() if v == best)
            rows = out.filter(measure=m, cutoff=k)
            got = {r: (t, p) for r, t, p in rows.select("rule", "threshold", "pir").iter_rows()}
            assert got["best"] == (first, float(best))
            fixed = rows.filter(rule="fixed")
            for t, p in fixed.select("threshold", "pir").iter_rows():
                assert p == float(brute_pir(d, t))


def test_seed_observations_hold_by_construction() -> None:
    """A multiple of 1/(2N); the best threshold never below 0.5 nor below t = 0;
    reversing every preference gives 1 - PIR at a fixed threshold."""
    sim = ir.simulate_sessions(37, seed=5, noise=0.2)
    args = (["nDCG", "GradedP(discount='root')", "ERR"],)
    out = ir.pir(sim.lists, sim.qrels, sim.preferences, *args, threshold=[0, "best", 0.05])
    n = 37
    assert set(out["sessions"]) == {n}
    twice = out["pir"] * (2 * n)
    assert (twice - twice.round()).abs().max() < 1e-9
    assert (out["agree"] + out["disagree"] + out["tied"] == n).all()
    wide = out.pivot("rule", index=["measure", "cutoff"], values="pir", aggregate_function="max")
    assert (wide["best"] >= 0.5).all() and (wide["best"] >= wide["fixed"]).all()
    other = pl.when(pl.col("preferred") == "A").then(pl.lit("B")).otherwise(pl.lit("A"))
    flipped = sim.preferences.with_columns(other.alias("preferred"))
    back = ir.pir(sim.lists, sim.qrels, flipped, *args, threshold=[0, 0.05])
    mine = out.filter(rule="fixed")
    assert back["agree"].to_list() == mine["disagree"].to_list()
    assert ((back["pir"] + mine["pir"] - 1).abs() < 1e-12).all()


# --------------------------------------------------------------------------- simulator


def utility(lists: pl.DataFrame, qrels: pl.DataFrame, p: float, gains: dict) -> dict:
    """The stated user's expected gain per (session, list), recomputed here."""
    grade = {(q, d): g for q, d, g in qrels.iter_rows()}
    out: dict = {}
    for (run, session), part in lists.group_by("run_id", "query_id"):
        docs = part.sort("score", descending=True)["doc_id"].to_list()
        u = sum(gains.get(grade[(session, d)], 0.0) * (1 - p) * p**i for i, d in enumerate(docs))
        out[(session, run)] = u
    return out


@pytest.mark.parametrize(
    ("seed", "p", "gains", "grades"),
    [
        (0, 0.8, None, (0.5, 0.3, 0.2)),
        (1, 0.5, {1: 0.25, 2: 0.5, 3: 1.0}, (0.4, 0.3, 0.2, 0.1)),
        (2, 0.95, {1: 1.0}, (0.7, 0.3)),
    ],
)
def test_noiseless_rbp_user_is_identified_in_every_session(seed, p, gains, grades) -> None:
    sim = ir.simulate_sessions(60, seed=seed, p=p, gains=gains, grades=grades)
    top = len(grades) - 1
    stated = gains if gains is not None else {g: g / top for g in range(1, top + 1)}
    u = utility(sim.lists, sim.qrels, p, stated)
    for s, pref in sim.preferences.iter_rows():
        other = "B" if pref == "A" else "A"
        assert u[(s, pref)] - u[(s, other)] >= 1e-6  # the preferred list is the better one
    # hence the user's own measure names the preferred list everywhere: PIR 1 at full depth
    out = ir.pir(sim.lists, sim.qrels, sim.preferences, [sim.measure], cutoffs=[10, 20],
                 threshold=[0, "best"])  # fmt: skip
    assert out["pir"].to_list() == [1.0] * 4 and set(out["disagree"]) == {0}


def test_simulator_noise_reproducibility_and_groups() -> None:
    a = ir.simulate_sessions(30, seed=9, noise=0.3, groups=["info", "nav"])
    b = ir.simulate_sessions(30, seed=np.random.default_rng(9), noise=0.3, groups=["info", "nav"])
    assert all(x.equals(y) for x, y in zip(a[:3], b[:3], strict=True))
    assert set(a.preferences["group"]) == {"info", "nav"}
    assert a.lists.group_by("run_id", "query_id").len()["len"].to_list() == [10] * 60
    # noise far above any utility difference (at most 1): preferences are near coin flips
    sim = ir.simulate_sessions(2000, seed=4, noise=100.0)
    (value,) = ir.pir(sim.lists, sim.qrels, sim.preferences, [sim.measure], cutoffs=10)["pir"]
    assert abs(value - 0.5) < 0.05  # 4.5 standard deviations of a fair coin over 2000


def test_simulator_gains_are_spelled_exactly_and_bad_options_refused() -> None:
    sim = ir.simulate_sessions(3, seed=0, gains={1: 0.123456789, 2: 1.0}, p=0.7)
    assert sim.measure == "RBP(p=0.7,gains={1:0.123456789,2:1})"
    cases = [
        ({"grades": (1.0,)}, "probability of each grade"),
        ({"grades": (0.5, 0.4)}, "summing to 1"),
        ({"grades": (1.0, 0.0)}, r"after 100 batches only 0 of 3"),
        ({"min_difference": 2.0}, r"lower it"),
        ({"p": 1.0}, r"p=1.0"),
        ({"noise": -1.0}, r"noise=-1.0"),
        ({"depth": 30}, r"depth <= pool"),
        ({"gains": {1: 2.0}}, r"in \[0, 1\]"),
        ({"seed": -1}, r"seed=-1"),
    ]
    for options, message in cases:
        with pytest.raises(ir.ParameterError, match=message):
            ir.simulate_sessions(3, **{"seed": 0, **options})


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"gains": {"1": 0.5}},
            r"gains=\{'1': 0.5\}: gains keys must be integer grades of 0 or more",
        ),
        ({"gains": {-1: 0.5}}, r"gains=\{-1: 0.5\}: gains keys must be integer grades"),
        ({"gains": {1.0: 0.5}}, r"gains=\{1.0: 0.5\}: gains keys must be integer grades"),
        ({"gains": {True: 0.5}}, r"gains=\{True: 0.5\}: gains keys must be integer grades"),
        ({"gains": [0.5, 1.0]}, r"gains=\[0.5, 1.0\]: give a dict"),
        ({"grades": (math.nan, 1.0)}, r"grades=\(nan, 1.0\): give the probability"),
        ({"grades": ("a", "b")}, r"grades=\('a', 'b'\): give the probability"),
        ({"groups": "ab"}, r"groups='ab': a string; give a list of labels, e.g. \['ab'\]"),
    ],
)
def test_simulator_refuses_mistyped_options(options, message) -> None:
    with pytest.raises(ir.ParameterError, match=message):
        ir.simulate_sessions(3, seed=0, **options)


def test_groups_and_sessions_sharing_a_query() -> None:
    sim = ir.simulate_sessions(24, seed=2, noise=0.1, groups=["info", "nav", "tx"])
    out = ir.pir(sim.lists, sim.qrels, sim.preferences, ["nDCG"], cutoffs=[3, 10],
                 threshold=["best", 0], group_by="group")  # fmt: skip
    assert out.columns[0] == "group"
    for g in ("info", "nav", "tx"):
        keep = sim.preferences.filter(group=g)
        part = sim.lists.filter(pl.col("query_id").is_in(keep["session"].implode()))
        alone = ir.pir(part, sim.qrels, keep.drop("group"), ["nDCG"], cutoffs=[3, 10],
                       threshold=["best", 0])  # fmt: skip
        assert out.filter(group=g).drop("group").equals(alone)
    # one file with a session column: two sessions of one query q, judged once for both
    pairs = pl.DataFrame({"session": ["s1", "s2"], "query_id": ["q", "q"]})
    lists = lists_of({"s1": {"A": "rn", "B": "nr"}, "s2": {"C": "rn", "D": "nr"}})
    lists = lists.with_columns(pl.col("doc_id").str.slice(1)).rename({"query_id": "session"})
    lists = lists.join(pairs, on="session")
    qrels = pl.DataFrame({"query_id": "q", "doc_id": ["0r", "1r", "0n", "1n"],
                          "relevance": [1, 1, 0, 0]})  # fmt: skip
    prefs = prefs_of({"s1": "A", "s2": "D"})
    out = ir.pir(lists, qrels, prefs, ["P"], cutoffs=[1])
    assert out.select("agree", "disagree", "sessions").row(0) == (1, 1, 2)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        (lambda r, q, p: (r.filter(pl.col("run_id") != "B3"), q, p), ir.PreferenceError,
         r"other than two lists \('c' has 1\)"),
        (lambda r, q, p: (pl.concat([r, r.filter(run_id="A1").with_columns(
            run_id=pl.lit("X"))]), q, p), ir.PreferenceError, r"'a' has 3"),
        (lambda r, q, p: (r, q, p.with_columns(preferred=pl.lit("A1"))), ir.PreferenceError,
         r"session 'b' prefers 'A1', its lists are \['A2', 'B2'\]"),
        (lambda r, q, p: (r, q, p.filter(pl.col("session") != "d")), ir.PreferenceError,
         r"1 session\(s\) without a preference: 'd'"),
        (lambda r, q, p: (r, q, pl.concat([p, prefs_of({"zz": "A1"})])), ir.PreferenceError,
         r"session\(s\) with no lists: 'zz'"),
        (lambda r, q, p: (r, q, pl.concat([p, p.head(1)])), ir.DuplicateError,
         r"'a' have more than one preference"),
        (lambda r, q, p: (r, q.filter(pl.col("query_id") != "c"), p), ir.PreferenceError,
         r"no judged document: 'c'"),
        (lambda r, q, p: (r, q, p.rename({"preferred": "pref"})), ir.SchemaError,
         r"lack the column\(s\) \['preferred'\]"),
        (lambda r, q, p: (r.drop("run_id"), q, p), ir.SchemaError, r"\['run_id'\]"),
    ],
)  # fmt: skip
def test_bad_sessions_are_refused_naming_them(hand, change, error, message) -> None:
    with pytest.raises(error, match=message):
        ir.pir(*change(*hand), ["P"], cutoffs=[1])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"measures": ["nDCG@10"]}, r"already has a cutoff.*'nDCG'"),
        ({"measures": ["Bpref"]}, r"one measure with a cutoff parameter"),
        ({"measures": []}, r"measures is empty"),
        ({"cutoffs": [0, 1]}, r"cutoffs=\[0, 1\]"),
        ({"threshold": -0.1}, r"threshold=-0.1"),
        ({"threshold": "worst"}, r"threshold='worst'"),
        ({"group_by": "type"}, r"group_by names a column"),
    ],
)
def test_bad_options_are_refused(hand, options, message) -> None:
    args = {"measures": ["P"], **options}
    with pytest.raises((ir.ParameterError, ir.SchemaError), match=message):
        ir.pir(*hand, args.pop("measures"), **args)


def test_a_session_spanning_two_queries_is_refused() -> None:
    lists = lists_of({"s": {"A": "r", "B": "n"}}).rename({"query_id": "session"})
    lists = lists.with_columns(query_id=pl.when(pl.col("run_id") == "A").then(pl.lit("q1"))
                               .otherwise(pl.lit("q2")))  # fmt: skip
    qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["A0r", "B0n"], "relevance": [1, 0]})
    with pytest.raises(ir.PreferenceError, match=r"'s' list documents for more than one query"):
        ir.pir(lists, qrels, prefs_of({"s": "A"}), ["P"], cutoffs=[1])


# --------------------------------------------------------------------------- reader


def test_read_preferences(tmp_path) -> None:
    path = tmp_path / "prefs.tsv"
    path.write_text("# a comment\n\nsession\tpreferred\ttype\ns1\tA\tinfo\n# more\ns2  B nav\n")
    got = ir.read_preferences(path)
    assert got.to_dict(as_series=False) == {
        "session": ["s1", "s2"], "preferred": ["A", "B"], "type": ["info", "nav"],
    }  # fmt: skip


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        ("s1\tA\n", ir.FormatError, r"prefs.tsv:1: the header must start with 'session"),
        ("session\tpreferred\ns1\tA\ns2\n", ir.FormatError,
         r"prefs.tsv:3: malformed line 's2': expected 2 whitespace-separated fields "
         r"'session preferred'$"),
        ("session preferred\ns1 A x\n", ir.FormatError, r"prefs.tsv:2: malformed line 's1 A x'"),
        ("session preferred\ns1 A\ns1 B\n", ir.DuplicateError, r"'s1' on lines 2 and 3"),
        ("session preferred session\n", ir.FormatError, r"names a column twice"),
        ("# nothing\nsession preferred\n", ir.EmptyInputError, r"no session"),
        ("", ir.EmptyInputError, r"prefs.tsv: no session"),
        ("session preferred\n\n# none\n", ir.EmptyInputError, r"prefs.tsv: no session"),
    ],
)  # fmt: skip
def test_reader_errors_name_the_line(tmp_path, text, error, message) -> None:
    path = tmp_path / "prefs.tsv"
    path.write_text(text)
    with pytest.raises(error, match=message):
        ir.read_preferences(path)


WANT = {"session": ["s1", "s2"], "preferred": ["A", "B"], "type": ["info", "nav"]}
TEXT = b"session\tpreferred\ttype\ns1\tA\tinfo\ns2\tB\tnav\n"


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("prefs.tsv.gz", gzip.compress(TEXT)),
        ("prefs.tsv", gzip.compress(TEXT)),  # gzip by its magic bytes, whatever the name
        ("bom.tsv", b"\xef\xbb\xbf" + TEXT),
        ("crlf.tsv", b"\xef\xbb\xbf# a comment\r\n\r\n" + TEXT.replace(b"\n", b"\r\n")),
        ("mac.tsv", b"# old Mac\r" + TEXT.replace(b"\n", b"\r")),
        ("utf8.tsv", TEXT.replace(b"info", "inf\u00f6".encode())),
    ],
    ids=["gz", "gzip-by-magic", "bom", "bom-crlf", "cr", "utf8"],
)
def test_read_preferences_reads_what_the_other_readers_read(tmp_path, name, data) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    want = dict(WANT, type=["inf\u00f6", "nav"]) if name == "utf8.tsv" else WANT
    assert ir.read_preferences(path).to_dict(as_series=False) == want
    assert ir.read_preferences(str(path)).to_dict(as_series=False) == want


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"session preferred\ns\xe91 A\n",
         r"^{path}: the file is not UTF-8 text \(invalid utf-8 sequence\); convert it"),
        (b"session preferred\ns1 A\ns2\x00 B\n",
         r"^{path}: the file holds NUL bytes, so it is not text \(the first on line 3;"),
        (gzip.compress(TEXT)[:20], r"^{path}: the file is not valid gzip \("),
        (b"\x00\x01\x02\xff\xfe", r"^{path}: the file (holds NUL bytes|is not UTF-8)"),
    ],
    ids=["latin1", "nul", "bad-gzip", "binary"],
)  # fmt: skip
def test_read_preferences_refuses_what_is_not_text(tmp_path, data, message) -> None:
    path = tmp_path / "prefs.tsv"
    path.write_bytes(data)
    with pytest.raises(ir.FormatError, match=message.format(path=re.escape(str(path)))):
        ir.read_preferences(path)


def test_read_preferences_reads_several_files(tmp_path) -> None:
    (tmp_path / "a.tsv").write_text("session preferred type\ns1 A info\n")
    (tmp_path / "b.tsv").write_text("# round 2\nsession\tpreferred\ttype\ns2\tB\tnav\n")
    (tmp_path / "c.tsv").write_text("session preferred type\ns3 C nav\n")
    paths = [tmp_path / "a.tsv", tmp_path / "b.tsv", tmp_path / "c.tsv"]
    three = dict(WANT, session=["s1", "s2", "s3"], preferred=["A", "B", "C"],
                 type=["info", "nav", "nav"])  # fmt: skip
    assert ir.read_preferences(paths).to_dict(as_series=False) == three
    assert ir.read_preferences(str(tmp_path / "*.tsv")).to_dict(as_series=False) == three
    assert ir.read_preferences(tmp_path).to_dict(as_series=False) == three  # a directory
    assert ir.read_preferences(paths[:1]).to_dict(as_series=False) == {
        "session": ["s1"], "preferred": ["A"], "type": ["info"],
    }  # fmt: skip


def test_read_preferences_errors_name_the_file_among_several(tmp_path) -> None:
    a, b = tmp_path / "a.tsv", tmp_path / "b.tsv"
    a.write_text("session preferred\ns1 A\ns2 B\n")

    def error(text: str, kind: type[Exception]) -> str:
        b.write_text(text)
        with pytest.raises(kind) as info:
            ir.read_preferences([a, b])
        return str(info.value)

    assert error("", ir.EmptyInputError) == (
        f"{b}: no session (a header line and one line per session); check the file, or leave it out"
    )
    assert error("session preferred\n", ir.EmptyInputError).startswith(f"{b}: no session")
    assert error("s3 C\n", ir.FormatError).startswith(
        f"{b}:1: the header must start with 'session preferred', got 's3 C'"
    )
    assert error("# x\nsession preferred type\ns3 C t\n", ir.FormatError) == (
        f"{b}:2: the header names the columns ['session', 'preferred', 'type'], {a}'s "
        "['session', 'preferred']; preference files read together have the same header"
    )
    assert error("session preferred\ns3 C\ns4\n", ir.FormatError).startswith(
        f"{b}:3: malformed line 's4': expected 2 whitespace-separated fields"
    )
    assert error("session preferred\ns3 C\ns2 D\n", ir.DuplicateError) == (
        f"session 's2' on {a}:3 and {b}:3; a session states one preference"
    )
    b.write_bytes(b"session preferred\ns\xe93 C\n")
    with pytest.raises(ir.FormatError, match=f"^{re.escape(str(b))}: the file is not UTF-8"):
        ir.read_preferences([a, b])
    with pytest.raises(ir.EmptyInputError, match="an empty list of files"):
        ir.read_preferences([])
    with pytest.raises(FileNotFoundError, match=r"nope\.tsv: no such file"):
        ir.read_preferences([a, tmp_path / "nope.tsv"])
    with pytest.raises(ir.SchemaError, match=r"preferences: a path.*not dict"):
        ir.read_preferences({"s1": "A"})  # type: ignore[arg-type]


def test_pir_reads_several_preference_files(tmp_path) -> None:
    sim = ir.simulate_sessions(8, seed=5)
    prefs = sim.preferences
    prefs.head(3).write_csv(tmp_path / "p1.tsv", separator="\t")
    prefs.tail(5).write_csv(tmp_path / "p2.tsv", separator="\t")
    paths = [tmp_path / "p1.tsv", tmp_path / "p2.tsv"]
    want = ir.pir(sim.lists, sim.qrels, prefs, ["P"], cutoffs=[1, 3])
    got = ir.pir(sim.lists, sim.qrels, paths, ["P"], cutoffs=[1, 3])
    assert got.equals(want) and want["sessions"].to_list() == [8, 8]


# --------------------------------------------------------------------------- CLI


def write_files(tmp_path, sim) -> tuple[str, str, str]:
    run = sim.lists.select(
        "query_id", pl.lit("Q0"), "doc_id", pl.col("score").rank("ordinal", descending=True)
        .over("run_id", "query_id").cast(pl.Int64).alias("rank"), "score", "run_id",
    )  # fmt: skip
    paths = tmp_path / "lists.run", tmp_path / "qrels.txt", tmp_path / "prefs.tsv"
    run.write_csv(paths[0], separator=" ", include_header=False)
    sim.qrels.select("query_id", pl.lit(0).alias("it"), "doc_id", "relevance").write_csv(
        paths[1], separator=" ", include_header=False
    )
    sim.preferences.write_csv(paths[2], separator="\t")
    return tuple(str(p) for p in paths)


def test_cli_prints_the_frame_of_ir_pir(tmp_path, capsys) -> None:
    sim = ir.simulate_sessions(20, seed=8, noise=0.1, groups=["x", "y"])
    lists, qrels, prefs = write_files(tmp_path, sim)
    argv = ["pir", lists, qrels, prefs, "-m", "nDCG(discount='rank')", "-m", "P",
            "--cutoffs", "1-10", "--threshold", "0,best", "--group-by", "group",
            "--format", "tsv"]  # fmt: skip
    assert main(argv) == 0
    printed = pl.read_csv(capsys.readouterr().out.encode(), separator="\t")
    want = ir.pir(sim.lists, sim.qrels, sim.preferences, ["nDCG(discount='rank')", "P"],
                  cutoffs=range(1, 11), threshold=[0, "best"], group_by="group")  # fmt: skip
    assert printed.height == want.height == 2 * 2 * 10 * 2
    assert printed["pir"].to_list() == want["pir"].to_list()
    assert printed["threshold"].to_list() == want["threshold"].to_list()


def test_cli_writes_a_file_in_the_format_of_its_extension(tmp_path) -> None:
    sim = ir.simulate_sessions(6, seed=3)
    lists, qrels, prefs = write_files(tmp_path, sim)
    target = tmp_path / "pir.csv"
    assert main(["pir", lists, qrels, prefs, "--cutoffs", "2,5", "-o", str(target)]) == 0
    want = ir.pir(sim.lists, sim.qrels, sim.preferences, ["nDCG"], cutoffs=[2, 5])
    assert pl.read_csv(target)["pir"].to_list() == want["pir"].to_list()


def test_cli_reads_several_preference_files(tmp_path, capsys) -> None:
    sim = ir.simulate_sessions(6, seed=3)
    lists, qrels, prefs = write_files(tmp_path, sim)
    (tmp_path / "prefs").mkdir()
    parts = [str(tmp_path / "prefs" / "p1.tsv"), str(tmp_path / "prefs" / "p2.tsv")]
    sim.preferences.head(2).write_csv(parts[0], separator="\t")
    sim.preferences.tail(4).write_csv(parts[1], separator="\t")
    assert main(["pir", lists, qrels, prefs, "--cutoffs", "2,5", "--format", "tsv"]) == 0
    whole = capsys.readouterr().out
    assert whole.count("\n") == 3
    for several in (str(tmp_path / "prefs" / "p?.tsv"), str(tmp_path / "prefs")):
        assert main(["pir", lists, qrels, several, "--cutoffs", "2,5", "--format", "tsv"]) == 0
        assert capsys.readouterr().out == whole
    Path(parts[1]).write_text("")
    assert main(["pir", lists, qrels, str(tmp_path / "prefs")]) == 2
    assert capsys.readouterr().err == (
        f"ireval: error: {parts[1]}: no session (a header line and one line per session); "
        "check the file, or leave it out\n"
    )


def test_cli_errors_are_one_line(tmp_path, capsys) -> None:
    sim = ir.simulate_sessions(1, seed=8)
    lists, qrels, prefs = write_files(tmp_path, sim)
    (tmp_path / "bad.tsv").write_text("session\tpreferred\ns0001\tC\n")
    assert main(["pir", lists, qrels, str(tmp_path / "bad.tsv")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ireval: error:" in err and "'C'" in err
    assert main(["pir", lists, qrels, prefs, "--cutoffs", "1-x"]) == 2
    assert "--cutoffs '1-x'" in capsys.readouterr().err


# --------------------------------------------------------------------------- plot


def test_pir_curves_draws_a_line_per_measure_and_threshold() -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from polars_ireval import plot
    from polars_ireval.plot.drawing import figure_class

    sim = ir.simulate_sessions(30, seed=6, noise=0.1)
    measures = ["nDCG(discount='log2')", "nDCG(discount='root')", "P"]
    out = ir.pir(sim.lists, sim.qrels, sim.preferences, measures, cutoffs=range(1, 8),
                 threshold=["best", 0])  # fmt: skip
    fig = plot.pir_curves(out)
    (ax,) = fig.axes
    lines = [ln for ln in ax.lines if not ln.get_label().startswith("_")]
    assert len(lines) == 3 * 2 and len(ax.lines) == 7  # and the 0.5 baseline
    looks = [(ln.get_linestyle(), ln.get_marker()) for ln in lines]
    assert len(set(looks)) == len(looks)  # grey-scale readable
    first = out.filter(measure=measures[0], rule="best").sort("cutoff")
    assert list(lines[0].get_ydata()) == first["pir"].to_list()
    assert list(lines[0].get_xdata()) == list(range(1, 8))
    assert lines[0].get_label() == "nDCG(discount='log2') (t=best)"
    one = out.filter(rule="best")
    Figure = figure_class()
    given = Figure().add_subplot()
    assert plot.pir_curves(one, ax=given) is given.figure
    assert [ln.get_label() for ln in given.lines][:3] == measures
    assert "best threshold" in given.get_title()
    with pytest.raises(ir.SchemaError, match=r"pass the frame ir\.pir returns"):
        plot.pir_curves(out.drop("rule"))
    with pytest.raises(ir.ParameterError, match="6 curves"):
        plot.pir_curves(out, max_lines=5)


# --------------------------------------------------------------------------- docs


def test_docs_pir_blocks_run_and_print_what_they_show() -> None:
    results = run_blocks(ROOT / "docs" / "pir.md")
    assert len(results) >= 3
    for code, printed, expected in results:
        if expected is not None:
            assert normalise(printed) == normalise(expected), f"block:\n{code}"


def test_graded_precision_ranks_lists_as_dcg_does() -> None:
    """GradedP@k is DCG@k / k: at threshold 0 the two have the same PIR (docs/pir.md)."""
    sim = ir.simulate_sessions(50, seed=13, noise=0.2)
    ms = ["GradedP(gains={1:0.5,2:1},discount='root')", "DCG(gains={1:0.5,2:1},discount='root')"]
    out = ir.pir(sim.lists, sim.qrels, sim.preferences, ms, cutoffs=range(1, 11))
    a, b = (out.filter(measure=m).drop("measure") for m in ms)
    assert a.equals(b) and a["pir"].n_unique() > 1


SIX_POINT = "gains={1:0.2,2:0.4,3:0.6,4:0.8,5:1.0}"  # seed 001's six-point scale


def test_the_same_fractional_gains_in_another_order_tie() -> None:
    """Without discount, two lists of the same documents in opposite orders score the same
    in exact arithmetic; summed in another order, the seed's gains 0.2 ... 1 differ in
    the last bits, which must not name a list (it did: PIR 1.0 instead of 0.5)."""
    docs = ["a", "b", "c"]
    lists = pl.DataFrame({
        "query_id": "s1", "run_id": ["A"] * 3 + ["B"] * 3,
        "doc_id": docs + docs[::-1], "score": [3.0, 2.0, 1.0] * 2,
    })  # fmt: skip
    qrels = pl.DataFrame({"query_id": "s1", "doc_id": docs, "relevance": [1, 2, 3]})
    measures = [
        f"DCG(discount='none',{SIX_POINT})", f"GradedP({SIX_POINT})",
        f"nDCG(discount='none',{SIX_POINT})", f"AP(discount='none',{SIX_POINT})",
    ]  # fmt: skip
    values = ir.evaluate(lists, qrels, [f"{m}@3" for m in measures[:2]], per_query=True)
    a, b = (values.filter(run_id=r)["value"] for r in "AB")
    assert (a != b).all()  # 0.2 + 0.4 + 0.6 is not 0.6 + 0.4 + 0.2 in floating point
    prefs = prefs_of({"s1": "A"})
    out = ir.pir(lists, qrels, prefs, measures, cutoffs=[3, 4], threshold=[0, 0.1, "best"])
    assert out["tied"].to_list() == [1] * out.height
    assert set(out["pir"]) == {0.5}
    assert set(out.filter(rule="best")["threshold"]) == {0.0}


def test_fractional_gains_rank_lists_as_dcg_does_at_the_seeds_scale() -> None:
    """Seed 001's setting (gains 0.2 ... 1, no discount, 200 sessions): GradedP@k is DCG@k
    / k, so their PIRs are equal at every cut-off; before rounding error was allowed for,
    they differed at cut-offs 3, 5 and 6 (0.72 and 0.7175 at 3, where the sessions that
    tie in exact arithmetic give 0.73)."""
    gains = {1: 0.2, 2: 0.4, 3: 0.6, 4: 0.8, 5: 1.0}
    sim = ir.simulate_sessions(200, seed=2012, p=0.8, noise=0.05, gains=gains,
                               grades=(0.4, 0.2, 0.15, 0.1, 0.1, 0.05))  # fmt: skip
    ms = [f"GradedP({SIX_POINT})", f"DCG(discount='none',{SIX_POINT})"]
    out = ir.pir(sim.lists, sim.qrels, sim.preferences, ms, cutoffs=range(1, 11))
    a, b = (out.filter(measure=m).drop("measure") for m in ms)
    assert a.equals(b) and a["pir"].n_unique() > 1
    at3 = a.filter(cutoff=3)
    assert at3["pir"].item() == 0.73 and at3["tied"].item() > 0


def test_figure_script_draws_the_pages_measures() -> None:
    from tests.tools import make_pir_figure as script

    page = (ROOT / "docs" / "pir.md").read_text()
    assert f"CLICK = {script.CLICK!r}".replace("'", '"') in page
    for name, text in script.DISCOUNTS.items():  # the page writes the click weights as {CLICK}
        assert f'"{name}": ' in page and text.replace(script.CLICK, "{CLICK}") in page
    frame = script.discount_pir()
    assert frame.height == 70 and frame["measure"].unique(maintain_order=True).to_list() == list(
        script.DISCOUNTS
    )


def test_fractions_are_exact() -> None:
    """The PIR column is (2 agree + tied) / (2 N) rounded once."""
    sim = ir.simulate_sessions(21, seed=12, noise=0.2)
    out = ir.pir(sim.lists, sim.qrels, sim.preferences, ["AP"], cutoffs=[5])
    a, t, n = out.select("agree", "tied", "sessions").row(0)
    assert out["pir"].item() == float(Fraction(2 * a + t, 2 * n))
    assert not math.isnan(out["pir"].item())
