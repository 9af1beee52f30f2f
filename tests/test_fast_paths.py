"""The fast paths agree with the general ones they shortcut.

* ``judge`` ranks rows already in ranking order without sorting, and fixes ties by sorting
  only the tied rows; rows in any other order (and lazy input) get one ordinal rank of a
  (score, doc id) struct per ranking: both checked against an independent full sort by
  (keys, score desc, doc id), on runs with many ties, shuffled or not, eager or lazy, one
  or several runs, for every tie policy.
* ``judge`` finds the judged rows of runs in ranking order by a join on 64-bit keys of
  (query id, doc id), each match checked on the ids: with keys that collide for most
  pairs (weak hashes put in for the test), the table is still the full sort's.
* ``judge(unjudged=False)`` is the evaluation table without its unjudged rows, and every
  measure declared ``unjudged=False`` gives the same values from it (and every measure
  declared True really depends on unjudged documents, so the declarations stay tight).
* ``evaluate`` computes the measures declared ``qrels_stats=True`` from the retrieved
  judged documents and one row of query statistics per ranking: the same values as from
  all judgments of every ranking (and every measure not declared so differs, so the
  declarations stay tight).
* ``read_run`` reads single-space TREC files with Polars' CSV reader (many files in one
  scan): checked against the general (regex) reader on clean files, and on every quirk
  that must send a file to the general reader (which then reads it, or names the bad
  line, as before).
"""

from __future__ import annotations

import functools
import gzip
import importlib
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_ireval as ir
from polars_ireval.errors import IrevalError
from polars_ireval.io.intake import Inputs, intake
from polars_ireval.results import with_judged_weights

io = importlib.import_module("polars_ireval.io.readers")
trec_text = importlib.import_module("polars_ireval.io.trec_text")


def _inputs(run: pl.DataFrame, qrels: pl.DataFrame, options: dict) -> Inputs:
    """The front door's intake of ``run`` and ``qrels`` under ``options``' tie policy (any
    order for "average", as evaluate reads them)."""
    ties = options.get("ties", "trec_eval")
    return intake(run, qrels, ties="trec_eval" if ties == "average" else ties)


def _random_run(seed: int, *, runs: int = 1, queries: int = 9, docs: int = 40) -> pl.DataFrame:
    """Rankings with many tied scores (few distinct values), ids of varying length; the
    queries q7 and q8 are never judged."""
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(runs):
        for q in range(queries):
            n = int(rng.integers(1, docs))
            ids = rng.choice(docs * 3, size=n, replace=False)
            scores = rng.integers(0, 5, size=n).astype(float) / 2.0
            for d, s in zip(ids, scores, strict=True):
                rows.append((f"r{r}", f"q{q}", f"d{d}" if d % 3 else f"D{d}x", float(s)))
    frame = pl.DataFrame(rows, schema=["run_id", "query_id", "doc_id", "score"], orient="row")
    return frame if runs > 1 else frame.drop("run_id")


def _random_qrels(seed: int, *, queries: int = 7, docs: int = 40) -> pl.DataFrame:
    rng = np.random.default_rng(seed + 1000)
    rows = []
    for q in range(queries):  # q0-q6, some of which a run may not rank
        for d in rng.choice(docs * 3, size=int(rng.integers(1, 15)), replace=False):
            rows.append((f"q{q}", f"d{d}" if d % 3 else f"D{d}x", int(rng.integers(-1, 3))))
    return pl.DataFrame(rows, schema=["query_id", "doc_id", "relevance"], orient="row")


def _oracle(run: pl.DataFrame, qrels: pl.DataFrame, ties: str, max_depth: int | None):
    """The evaluation table from one full sort: (keys, score desc, doc id per policy)."""
    keys = [c for c in ("run_id", "query_id") if c in run.columns]
    run = run.filter(pl.col("query_id").is_in(qrels["query_id"].implode()))
    ranked = run.sort(
        [*keys, "score", "doc_id"],
        descending=[False] * len(keys) + [True, ties == "trec_eval"],
    ).with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.UInt32).over(keys).alias("rank"))
    if max_depth is not None:
        ranked = ranked.filter(pl.col("rank") <= max_depth)
    judged = run.select(keys).unique().join(qrels, on="query_id")
    return ranked.join(judged, on=[*keys, "doc_id"], how="full", coalesce=True).select(
        *keys, "doc_id", "score", "rank", "relevance"
    )


def _canonical(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.sort(pl.all(), nulls_last=True)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("runs", [1, 3])
@pytest.mark.parametrize("ties", ["trec_eval", "doc_id_asc"])
@pytest.mark.parametrize("order", ["ranked", "shuffled"])
@pytest.mark.parametrize("keyed", [False, True], ids=["by_ids", "keyed"])
def test_judge_ranks_equal_a_full_sort(
    monkeypatch: pytest.MonkeyPatch, seed: int, runs: int, ties: str, order: str, keyed: bool
) -> None:
    # the judged rows of a ranked run: joined on the ids (few judgments) or on 64-bit keys
    # (many: judge.KEYED_JUDGMENTS), both paths on the same small cases
    monkeypatch.setattr(judge_module, "KEYED_JUDGMENTS", 0 if keyed else 1 << 62)
    run, qrels = _random_run(seed, runs=runs), _random_qrels(seed)
    keys = [c for c in ("run_id", "query_id") if c in run.columns]
    if order == "ranked":  # the fast path: rows already grouped, scores descending
        run = run.sort([*keys, "score"], descending=[False] * len(keys) + [True])
    else:
        run = run.sample(fraction=1.0, shuffle=True, seed=seed)
    for max_depth in (None, 7):
        expected = _canonical(_oracle(run, qrels, ties, max_depth))
        eager = ir.judge(run, qrels, ties=ties, max_depth=max_depth)  # type: ignore[arg-type]
        lazy = ir.judge(run.lazy(), qrels.lazy(), ties=ties, max_depth=max_depth)  # type: ignore[arg-type]
        assert_frame_equal(_canonical(eager), expected)
        assert_frame_equal(_canonical(lazy.collect()), expected)


judge_module = importlib.import_module("polars_ireval.judge")


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("runs", [1, 3])
@pytest.mark.parametrize("ties", ["trec_eval", "doc_id_asc", "input_order"])
@pytest.mark.parametrize("order", ["ranked", "shuffled"])
def test_rank_rows_equal_a_full_sort(seed: int, runs: int, ties: str, order: str) -> None:
    """``judge.rank_rows`` (which ``pooling.rank_runs`` ranks the pools' runs with) gives
    every row the rank of one stable full sort by (keys, score desc, doc id per policy),
    whether the rows come in ranking order or shuffled; its rows come grouped by ranking,
    scores descending."""
    run = _random_run(seed, runs=runs)
    keys = [c for c in ("run_id", "query_id") if c in run.columns]
    if order == "ranked":
        run = run.sort([*keys, "score"], descending=[False] * len(keys) + [True])
    else:
        run = run.sample(fraction=1.0, shuffle=True, seed=seed)
    by = [*keys, "score"] + ([] if ties == "input_order" else ["doc_id"])
    expected = run.sort(
        by,
        descending=[False] * len(keys) + [True, ties == "trec_eval"][: len(by) - len(keys)],
        maintain_order=True,
    ).with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.UInt32).over(keys).alias("rank"))
    got = judge_module.rank_rows(run, ties)
    assert got.height == run.height
    assert_frame_equal(got.sort([*keys, "doc_id"]), expected.sort([*keys, "doc_id"]))
    # grouped by ranking, scores descending in each (ties keep the order they came in)
    starts = got.select(pl.struct(keys).ne_missing(pl.struct(keys).shift()).alias("new"))
    assert starts["new"].sum() == got.select(keys).n_unique()
    assert got.select((pl.col("score").diff().fill_null(0.0) <= 0.0).all().over(keys).all()).item()


def test_rank_runs_ranks_as_the_evaluation_table() -> None:
    """``pooling.rank_runs``: every contributing row's rank is the one the evaluation
    table gives it (trec_eval's tie order), on shuffled runs with many ties."""
    from polars_ireval.analysis.campaign import rank_runs

    run, qrels = _random_run(2, runs=3), _random_qrels(2)
    run = run.sample(fraction=1.0, shuffle=True, seed=2)
    ranked = rank_runs(run).rows
    table = ir.judge(run, qrels.filter(pl.col("query_id").is_in(run["query_id"].implode())))
    keys = ["run_id", "query_id", "doc_id"]
    ranks = table.filter(pl.col("rank").is_not_null()).select(*keys, "rank")
    assert ranks.height > 0
    joined = ranks.join(ranked.select(*keys, pl.col("rank").alias("pooled")), on=keys)
    assert joined.height == ranks.height
    assert (joined["rank"] == joined["pooled"]).all()


def _weak_hash(weak: tuple[str, ...]):
    """Hashes of ids for the join key, weak (the id's length: most ids collide) for the
    columns ``weak``, the library's own for the others."""

    def id_hash(column: str, seed: int) -> pl.Expr:
        if column in weak:
            return pl.col(column).str.len_bytes().cast(pl.UInt64)
        return pl.col(column).hash(seed)

    return id_hash


@pytest.mark.parametrize("weak", [("doc_id",), ("query_id", "doc_id")], ids=["doc", "both"])
@pytest.mark.parametrize("ties", ["trec_eval", "doc_id_asc", "input_order"])
def test_judged_rows_found_by_a_colliding_key_are_exact(
    monkeypatch: pytest.MonkeyPatch, weak: tuple[str, ...], ties: str
) -> None:
    """The judged rows are joined on a 64-bit key of the ids and checked on the ids: with
    a key that collides for most pairs (weak doc hashes alone, which the doc id check
    catches; weak query hashes too, which leave the query ids to compare as well), the
    table is still the full sort's (input_order: a stable sort by score)."""
    monkeypatch.setattr(judge_module, "_id_hash", _weak_hash(weak))
    # the keyed join whatever the number of judgments, and a count that it ran
    monkeypatch.setattr(judge_module, "KEYED_JUDGMENTS", 0)
    calls = []
    keyed = judge_module._judged_rows
    monkeypatch.setattr(
        judge_module, "_judged_rows", lambda *a, **k: calls.append(1) or keyed(*a, **k)
    )
    for seed in range(3):
        run = _random_run(seed, runs=2).sort(
            ["run_id", "query_id", "score"], descending=[False, False, True], maintain_order=True
        )
        qrels = _random_qrels(seed)
        distinct = judge_module._distinct_hashes(run.get_column("query_id"), qrels)
        assert distinct == (weak == ("doc_id",))  # q0-q8: one length, one weak hash
        for max_depth in (None, 5):
            if ties == "input_order":  # rows in input order within equal scores
                expected = _oracle_input_order(run, qrels, max_depth)
            else:
                expected = _oracle(run, qrels, ties, max_depth)
            for unjudged in (True, False):
                table = ir.judge(run, qrels, ties=ties, max_depth=max_depth, unjudged=unjudged)  # type: ignore[arg-type]
                want = expected if unjudged else expected.filter(pl.col("relevance").is_not_null())
                assert_frame_equal(_canonical(table), _canonical(want))
            # the retrieved judged rows, which evaluate reads as they are
            judgment = judge_module.judge_and_rankings(
                intake(run, qrels, ties=ties),
                ties=ties,
                max_depth=max_depth,
                unjudged=False,
                numbered=True,
            )
            assert judgment.retrieved is not None and judgment.numbering is not None
            retrieved = (
                judgment.retrieved.join(judgment.numbering, on=judge_module.RANKING)
                .select("run_id", "query_id", "doc_id", "score", "rank", "relevance")
                .collect()
            )
            found = expected.filter(
                pl.col("rank").is_not_null() & pl.col("relevance").is_not_null()
            )
            assert_frame_equal(_canonical(retrieved), _canonical(found))
    assert calls, "the keyed join was not taken"


def _oracle_input_order(run: pl.DataFrame, qrels: pl.DataFrame, max_depth: int | None):
    """:func:`_oracle` for ``ties="input_order"``: ranks by a stable sort on score alone."""
    keys = ["run_id", "query_id"]
    run = run.filter(pl.col("query_id").is_in(qrels["query_id"].implode()))
    ranked = run.sort([*keys, "score"], descending=[False, False, True], maintain_order=True)
    ranked = ranked.with_columns(
        pl.int_range(1, pl.len() + 1, dtype=pl.UInt32).over(keys).alias("rank")
    )
    if max_depth is not None:
        ranked = ranked.filter(pl.col("rank") <= max_depth)
    judged = run.select(keys).unique().join(qrels, on="query_id")
    return ranked.join(judged, on=[*keys, "doc_id"], how="full", coalesce=True).select(
        *keys, "doc_id", "score", "rank", "relevance"
    )


@pytest.mark.parametrize("missing", ["skip", "zero"])
def test_judge_missing_policies_equal_a_full_sort(missing: str) -> None:
    # run r2 ranks only unjudged queries; qrels judge q9, which no run ranks
    run = pl.concat(
        [
            _random_run(3, runs=2),
            pl.DataFrame({"run_id": "r2", "query_id": "q8", "doc_id": "d1", "score": 1.0}),
        ]
    )
    qrels = pl.concat(
        [_random_qrels(3), pl.DataFrame({"query_id": ["q9"], "doc_id": ["d1"], "relevance": [1]})]
    )
    keys = ["run_id", "query_id"]
    expected = _oracle(run, qrels, "trec_eval", None)
    if missing == "zero":  # every run gets every judged query, ranked or not
        pairs = run.select("run_id").unique().join(qrels.select("query_id").unique(), how="cross")
        absent = pairs.join(run.select(keys).unique(), on=keys, how="anti").join(
            qrels, on="query_id"
        )
        expected = pl.concat([expected, absent], how="diagonal_relaxed")
    for frame in (run, run.sort([*keys, "score"], descending=[False, False, True])):
        table = ir.judge(frame, qrels, missing=missing)  # type: ignore[arg-type]
        lazy = ir.judge(frame.lazy(), qrels.lazy(), missing=missing).collect()  # type: ignore[arg-type]
        assert_frame_equal(_canonical(table), _canonical(expected.select(table.columns)))
        assert_frame_equal(_canonical(lazy), _canonical(table))


@pytest.mark.parametrize("ties", ["trec_eval", "doc_id_asc", "input_order", "rank"])
@pytest.mark.parametrize("order", ["ranked", "shuffled"])
def test_every_tie_policy_equal_eager_lazy_and_full_sort(ties: str, order: str) -> None:
    """Each policy's order, from one full sort: score desc, then doc id desc / doc id asc /
    input row / the run's input_rank asc then doc id desc."""
    run = _random_run(11, runs=2)
    rng = np.random.default_rng(11)
    run = run.with_columns(input_rank=pl.Series(rng.integers(0, 4, run.height)))
    if order == "ranked":
        run = run.sort(["run_id", "query_id", "score"], descending=[False, False, True])
    else:
        run = run.sample(fraction=1.0, shuffle=True, seed=11)
    qrels = _random_qrels(11)
    keys = ["run_id", "query_id"]
    indexed = run.with_row_index("row")
    by = {
        "trec_eval": (["score", "doc_id"], [True, True]),
        "doc_id_asc": (["score", "doc_id"], [True, False]),
        "input_order": (["score", "row"], [True, False]),
        "rank": (["input_rank", "doc_id"], [False, True]),
    }[ties]
    expected = (
        indexed.filter(pl.col("query_id").is_in(qrels["query_id"].implode()))
        .sort([*keys, *by[0]], descending=[False, False, *by[1]])
        .with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.UInt32).over(keys).alias("rank"))
        .select(*keys, "doc_id", "rank")
        .sort([*keys, "doc_id"])
    )
    for frame in (run, run.lazy()):
        table = ir.judge(frame, qrels, ties=ties)  # type: ignore[arg-type]
        table = table.collect() if isinstance(table, pl.LazyFrame) else table
        got = table.filter(pl.col("rank").is_not_null()).select(*keys, "doc_id", "rank")
        assert_frame_equal(got.sort([*keys, "doc_id"]), expected)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(
    "options",
    [{}, {"max_depth": 5}, {"judged_only": True}, {"missing": "zero"}, {"ties": "doc_id_asc"}],
)
def test_compact_table_is_the_table_without_unjudged_rows(seed: int, options: dict) -> None:
    run, qrels = _random_run(seed, runs=2), _random_qrels(seed)
    for frame in (run.sort("run_id", "query_id", "score", descending=[False, False, True]), run):
        full = ir.judge(frame, qrels, **options)
        compact = ir.judge(frame, qrels, unjudged=False, **options)
        lazy = ir.judge(frame.lazy(), qrels.lazy(), unjudged=False, **options).collect()
        expected = _canonical(full.filter(pl.col("relevance").is_not_null()))
        assert expected.height > 0
        assert_frame_equal(_canonical(compact), expected)
        assert_frame_equal(_canonical(lazy), expected)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"max_depth": 5},
        {"judged_only": True},
        {"missing": "zero"},
        {"missing": "zero", "judged_only": True},
        {"ties": "doc_id_asc"},
        {"ties": "input_order"},
    ],
)
@pytest.mark.parametrize("unjudged", [False, True])
def test_numbered_table_is_the_table(seed: int, options: dict, unjudged: bool) -> None:
    """``evaluate`` groups an ordered run's rows by ranking number (rankings in order, each
    one's rows contiguous), named back by ``numbering``: the same rows as the table (the
    compact one, or the full one with the unjudged documents merged in), and the same values
    for every measure that the table serves."""
    from polars_ireval.evaluate import evaluate_table
    from polars_ireval.judge import RANKING, judge_and_rankings
    from polars_ireval.parse import parse_measures

    run, qrels = _random_run(seed, runs=2), _random_qrels(seed)
    run = run.sort("run_id", "query_id", "score", descending=[False, False, True])
    # a judged query the second run lacks, for missing="zero"
    run = run.filter(~((pl.col("run_id") == "r1") & (pl.col("query_id") == "q2")))
    judgment = judge_and_rankings(
        _inputs(run, qrels, options), unjudged=unjudged, numbered=True, collect=True, **options
    )
    table, present, numbering = judgment.table, judgment.present, judgment.numbering
    assert numbering is not None, "an ordered eager run takes the numbered path"
    assert table[RANKING].is_sorted() and table[RANKING].n_unique() == numbering.collect().height
    named = table.join(numbering.collect(), on=RANKING).drop(RANKING)
    compact = ir.judge(run, qrels, unjudged=unjudged, **options)
    assert_frame_equal(_canonical(named.select(compact.columns)), _canonical(compact))

    measures = parse_measures(UNJUDGED_CASES)
    measures = [m for m in measures if unjudged or not m.needs_unjudged]
    assert len(measures) > 40
    ranked = present if options.get("missing") == "zero" else None
    got = evaluate_table(
        table.lazy(), measures, per_query=True, ranked=ranked, numbering=numbering
    ).collect()
    expected = evaluate_table(compact.lazy(), measures, per_query=True, ranked=ranked).collect()
    assert_frame_equal(got, expected)


@pytest.mark.parametrize(
    "options", [{}, {"missing": "zero", "max_depth": 6}, {"judged_only": True}]
)
@pytest.mark.parametrize("per_query", [True, False])
def test_measures_split_between_two_tables_equal_one_full_table(
    options: dict, per_query: bool
) -> None:
    """``evaluate`` computes the measures that need no unjudged row on the compact table and
    the others on the full one, then joins them: the same values and rows as all measures
    on the full table."""
    from polars_ireval.evaluate import evaluate_table
    from polars_ireval.judge import judge_and_rankings
    from polars_ireval.parse import parse_measures

    run, qrels = _random_run(5, runs=2), _random_qrels(5)
    run = run.sort("run_id", "query_id", "score", descending=[False, False, True])
    texts = ["nDCG@10", "NumRet", "AP", "Judged@5", "P(judged_only=True)@5", "RBP", "RR"]
    measures = parse_measures(texts)
    assert {m.needs_unjudged for m in measures} == {True, False}
    got = ir.evaluate(run, qrels, texts, per_query=per_query, **options)
    judgment = judge_and_rankings(_inputs(run, qrels, options), **options)
    table, present = judgment.table, judgment.present
    ranked = present if options.get("missing") == "zero" else None
    expected = evaluate_table(table.lazy(), measures, per_query=per_query, ranked=ranked)
    assert_frame_equal(got, expected.collect())


#: Measure strings exercising every registry measure and the parameters that change
#: whether unjudged documents matter (tie averaging); a test checks every measure is here.
UNJUDGED_CASES = [
    "DCG@5",
    "DCG(norm='self')@5",
    "DCG(norm='ideal',gain='exp')@5",
    "DCG(discount='jk',b=2)@6",
    "SDCG@5",
    "P@5",
    "R@5",
    "Success@5",
    "relative_P@5",
    "Judged@5",
    "Judged",
    "Unjudged@5",
    "AP",
    "AP@5",
    "AP(norm='self')@5",
    "AP(norm='min',discount='log2')@5",
    "gm_map",
    "Rprec",
    "RPrec@5",
    "SP@5",
    "Bpref",
    "gm_bpref",
    "infAP",
    "NumQ",
    "NumRet",
    "NumRet(rel=1)",
    "SetP(relative=True)",
    "P(judged_only=True)@5",
    "RBP(ties='average',judged_only=True)",
    "NumRel",
    "NumRelRet",
    "num_nonrel_judged_ret",
    "INST",
    "INSQ",
    "TBG",
    "U",
    "BPM",
    "NERR8@5",
    "NERR9@10",
    "NERR10",
    "NERR11(max_rel=2)",
    "INST@5",
    "ERR@5",
    "ERR",
    "IPrec@0.5",
    "11pt_avg",
    "Rprec_mult(mult=0.5)",
    "utility",
    "nDCG@10",
    "nDCG(gain='exp',discount='root')@5",
    "ndcg_rel",
    "Rndcg",
    "G",
    "binG",
    "Q",
    "Q@5",
    "RBP",
    "RBP(p=0.5,gains={0:0,1:0.5,2:1})@5",
    "RBP(ties='average')",
    "RBP_resid",
    "RBP_resid(ties='average')",
    "RR",
    "RR@3",
    "SetP",
    "SetR",
    "set_relative_P",
    "SetAP",
    "SetF",
    "HIT@5",
    "InvSq@5",
    "ED(measure='INST')",
    "GradedP@5",
    "SetAccuracy(num_docs=100000)@5",
    "Fallout(num_docs=100000)",
]


def test_unjudged_cases_cover_the_registry() -> None:
    from polars_ireval.parse import parse_measures
    from polars_ireval.registry import REGISTRY

    assert {m.name for m in parse_measures(UNJUDGED_CASES)} == set(REGISTRY)


@functools.cache
def _full_and_compact(seed: int, missing: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The evaluation table of generated runs ``seed`` and it without its unjudged rows
    (judged once for every measure of the test below)."""
    run, qrels = _random_run(seed, runs=2), _random_qrels(seed)
    full = ir.judge(run, qrels, missing=missing)  # type: ignore[arg-type]
    return full, full.filter(pl.col("relevance").is_not_null())


@pytest.mark.parametrize("text", UNJUDGED_CASES)
def test_unjudged_declarations_hold(text: str) -> None:
    """A measure declared ``unjudged=False`` gives the same floats without the unjudged
    rows; one declared True differs somewhere (else it should be declared False)."""
    from polars_ireval.evaluate import evaluate_table
    from polars_ireval.parse import parse_measures

    (measure,) = parse_measures([text])
    differences = 0
    for seed in range(6):
        for missing in ("skip", "zero"):
            full, compact = _full_and_compact(seed, missing)
            a, b = (
                evaluate_table(t.lazy(), [measure], per_query=True).collect().sort(pl.all())
                for t in (full, compact)
            )
            assert a.height == b.height > 0
            same = (a["value"] == b["value"]) | (a["value"].is_null() & b["value"].is_null())
            differences += int((~same).sum())
    if measure.needs_unjudged:
        assert differences > 0, f"{text} never depends on unjudged rows: declare unjudged=False"
    else:
        assert differences == 0, f"{text} is declared unjudged=False but depends on them"


def _needs_judged_only(text: str) -> bool:
    from polars_ireval.parse import parse_measures

    return not parse_measures([text])[0].needs_unjudged


#: The cases that the tables of judged documents serve (all but those reading unjudged ones).
JUDGED_CASES = [text for text in UNJUDGED_CASES if _needs_judged_only(text)]


@functools.cache
def _judged_tables(seed: int, options: tuple[tuple[str, Any], ...]) -> tuple[pl.LazyFrame, ...]:
    """Generated runs ``seed`` judged with ``options`` (once for every measure of the test
    below): ``qrels`` and the judgment's ``table``, ``retrieved``, ``numbering`` and
    ``present``, each computed (as lazy frames over their rows)."""
    from polars_ireval.judge import judge_and_rankings

    run, qrels = _random_run(seed, runs=2), _random_qrels(seed)
    run = run.sort("run_id", "query_id", "score", descending=[False, False, True])
    # a judged query the second run lacks, for missing="zero"
    run = run.filter(~((pl.col("run_id") == "r1") & (pl.col("query_id") == "q2")))
    judgment = judge_and_rankings(
        _inputs(run, qrels, dict(options)), unjudged=False, numbered=True, collect=False,
        **dict(options),
    )  # fmt: skip
    assert judgment.retrieved is not None
    frames = (judgment.table, judgment.retrieved, judgment.numbering, judgment.present)
    return (qrels.lazy(), *(f.lazy().collect().lazy() for f in frames))


@pytest.mark.parametrize("text", JUDGED_CASES)
def test_qrels_stats_declarations_hold(text: str) -> None:
    """A measure declared ``qrels_stats=True`` gives the same floats from the judged
    documents the run retrieved plus one row of query statistics per ranking as from every
    judgment of every ranking; one not declared so differs somewhere (else declare it)."""
    from polars_ireval.engines.polars import per_query_columns
    from polars_ireval.parse import parse_measures

    (measure,) = parse_measures([text])
    options: list[dict] = [
        {},
        {"missing": "zero", "relevance_level": 2},
        {"judged_only": True, "max_depth": 6},
    ]
    differences = compared = 0
    for seed in range(6):
        for option in options:
            level = option.get("relevance_level", 1)
            qrels, table, retrieved, numbering, present = _judged_tables(
                seed, tuple((k, v) for k, v in option.items() if k != "relevance_level")
            )
            common = {
                "relevance_level": level,
                "numbering": numbering,
                "ranked": present if option.get("missing") == "zero" else None,
            }
            a, b = (
                per_query_columns(t, [measure], qrels=stats, **common).collect().sort(pl.all())
                for t, stats in ((table, None), (retrieved, qrels))
            )
            assert a.height == b.height > 0
            x, y = a[measure.label], b[measure.label]
            differences += int((~((x == y) | (x.is_null() & y.is_null()))).sum())
            compared += a.height
    assert compared > 100
    if measure.defn.qrels_stats:
        assert differences == 0, f"{text} is declared qrels_stats=True but reads other judgments"
    else:
        assert differences > 0, f"{text} needs no unretrieved judgment: declare qrels_stats=True"


def test_judge_input_order_keeps_the_order_of_equal_scores() -> None:
    run = pl.DataFrame(
        {"query_id": ["q"] * 4, "doc_id": ["a", "c", "b", "d"], "score": [2.0, 1.0, 1.0, 1.0]}
    )
    qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["b"], "relevance": [1]})
    for frame in (run, run.reverse()):
        table = ir.judge(frame, qrels, ties="input_order").sort("rank")
        tied = frame.filter(pl.col("score") == 1.0)["doc_id"].to_list()
        assert table["doc_id"].to_list() == ["a", *tied]
        assert table["rank"].to_list() == [1, 2, 3, 4]


@pytest.mark.parametrize(
    ("ties", "expected"),
    [("trec_eval", "dcba"), ("doc_id_asc", "abcd"), ("input_order", "abcd")],
)
def test_rows_put_in_ranking_order_keep_signed_zeros_tied(ties: str, expected: str) -> None:
    # rankings interleaved: eager input is regrouped by ranking first; -0.0 ties 0.0, so
    # the policy alone orders a, b, c, d (input order a, b, c, d)
    run = pl.DataFrame(
        {
            "query_id": ["q", "p", "q", "q", "p", "q"],
            "doc_id": ["a", "x", "b", "c", "y", "d"],
            "score": [0.0, 1.0, -0.0, 0.0, 2.0, -0.0],
        }
    )
    qrels = pl.DataFrame({"query_id": ["q", "p"], "doc_id": ["b", "x"], "relevance": [1, 1]})
    eager = ir.judge(run, qrels, ties=ties)  # type: ignore[arg-type]
    lazy = ir.judge(run.lazy(), qrels.lazy(), ties=ties).collect()  # type: ignore[arg-type]
    assert_frame_equal(_canonical(eager), _canonical(lazy))
    ranked = eager.filter(pl.col("query_id") == "q").sort("rank")
    assert "".join(ranked["doc_id"]) == expected
    assert eager.filter(pl.col("query_id") == "p").sort("rank")["doc_id"].to_list() == ["y", "x"]


def test_judge_of_interleaved_rankings_sorts_them() -> None:
    # q1 appears in two blocks: not in ranking order, so judge must sort
    run = pl.DataFrame(
        {"query_id": ["q1", "q2", "q1"], "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]}
    )
    qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["c", "b"], "relevance": [1, 1]})
    table = ir.judge(run, qrels).sort("query_id", "rank")
    assert table["rank"].to_list() == [1, 2, 1]


# ------------------------------------------------------------------------- text reader

CLEAN = "q1 Q0 d1 1 3.5 tagA\nq1 Q0 d2 2 2.25 tagA\nq2 Q0 d#3 1 1 tagA\nq2 Q0 d4 2 -0.5e1 tagA\n"


def _general(path: str, run_id: str = "auto") -> pl.DataFrame:
    """What the general (regex) reader gives for one file."""
    policy = "none" if run_id == "auto" else run_id
    frame = io._read_run_path(path, policy, False, fast=False)
    return io.validate_run(frame, path)


def _write_text(path: Path, text: str) -> None:
    """``text`` to ``path``, gzip-compressed when the name ends in ``.gz``."""
    path.write_bytes(gzip.compress(text.encode()) if path.suffix == ".gz" else text.encode())


@pytest.mark.parametrize("ext", ["", ".gz"])
@pytest.mark.parametrize("run_id", ["auto", "tag", "file"])
def test_simple_text_equals_general_reader(tmp_path: Path, run_id: str, ext: str) -> None:
    path = tmp_path / f"clean.run{ext}"
    _write_text(path, CLEAN)
    assert trec_text._read_simple_run(str(path), "none") is not None  # the fast path is taken
    assert_frame_equal(ir.read_run(str(path), run_id=run_id), _general(str(path), run_id))  # type: ignore[arg-type]


def test_generated_text_equals_general_reader(tmp_path: Path) -> None:
    run = _random_run(7, runs=2)
    lines = [f"{q} Q0 {d} {i} {s!r} {r}" for i, (r, q, d, s) in enumerate(run.iter_rows(), start=1)]
    path = tmp_path / "gen.run"
    path.write_text("\n".join(lines))  # no final newline
    assert trec_text._read_simple_run(str(path), "tag") is not None
    assert_frame_equal(ir.read_run(str(path), run_id="tag"), _general(str(path), "tag"))


@pytest.mark.parametrize("compressed", [(), (1,), (0, 1, 2)], ids=["plain", "mixed", "gzip"])
@pytest.mark.parametrize("run_id", ["auto", "tag", "file"])
def test_many_files_in_one_scan_equal_file_by_file(
    tmp_path: Path, run_id: str, compressed: tuple[int, ...]
) -> None:
    paths = []
    for i in range(3):
        path = tmp_path / (f"run{i}.txt.gz" if i in compressed else f"run{i}.txt")
        _write_text(path, CLEAN.replace("tagA", f"tag{i}").replace("d2", f"d2x{i}"))
        paths.append(str(path))
    policy = "tag" if run_id == "auto" else run_id
    assert trec_text.read_simple_runs(paths, policy) is not None  # the one-scan path is taken
    alone = [io._read_run_path(p, policy, True, fast=False) for p in paths]  # type: ignore[arg-type]
    expected = io.validate_run(pl.concat(alone, how="diagonal"), "x")
    assert_frame_equal(ir.read_run(paths, run_id=run_id), expected)  # type: ignore[arg-type]
    assert ir.read_run(paths, run_id=run_id)["run_id"].unique(maintain_order=True).to_list() == (  # type: ignore[arg-type]
        ["run0", "run1", "run2"] if run_id == "file" else ["tag0", "tag1", "tag2"]
    )


@pytest.mark.parametrize("empty", ["", "# only a comment\n", "\n\n"])
def test_an_empty_file_among_many_is_named(tmp_path: Path, empty: str) -> None:
    paths = [tmp_path / "a.run", tmp_path / "b.run", tmp_path / "c.run"]
    for path, text in zip(paths, [CLEAN, empty, CLEAN.replace("tagA", "tagC")], strict=True):
        path.write_text(text)
    with pytest.raises(IrevalError, match=r"b\.run: the run holds no ranking line"):
        ir.read_run([str(p) for p in paths])


TABBED = CLEAN.replace(" ", "\t")

#: Quirks of tab-separated text that send it to the general reader.
TAB_QUIRKS = {
    "space beside tabs": "q3\tQ0\td9 1\t3.5\ttagA\n",
    "two tabs": "q3\tQ0\t\td9\t1\t3.5\ttagA\n",
    "trailing tab": "q3\tQ0\td9\t1\t3.5\ttagA\t\n",
    "five fields": "q3\tQ0\td9\t1\t3.5\n",
}


@pytest.mark.parametrize("ext", ["", ".gz"])
def test_tab_separated_text_equals_general_reader(tmp_path: Path, ext: str) -> None:
    """Many TREC runs (TREC-COVID's) separate their fields by single tabs: read fast too,
    as the general reader and as the same run separated by spaces."""
    path, spaced = tmp_path / f"tabbed.run{ext}", tmp_path / "spaced.run"
    _write_text(path, TABBED)
    _write_text(spaced, CLEAN)
    assert trec_text._read_simple_run(str(path), "none") is not None  # the fast path is taken
    assert_frame_equal(ir.read_run(str(path)), _general(str(path)))
    assert_frame_equal(ir.read_run(str(path)), ir.read_run(str(spaced)))


def test_tab_and_space_separated_files_together(tmp_path: Path) -> None:
    """Files that differ in their separator are read by the general reader, as one run."""
    paths = [tmp_path / "a.run", tmp_path / "b.run"]
    paths[0].write_text(CLEAN)
    paths[1].write_text(TABBED.replace("tagA", "tagB"))
    names = [str(p) for p in paths]
    assert all(trec_text._read_simple_run(n, "tag") is not None for n in names)  # each alone: fast
    assert trec_text.read_simple_runs(names, "tag") is None  # together: the general reader
    alone = [io._read_run_path(n, "tag", True, fast=False) for n in names]
    expected = io.validate_run(pl.concat(alone, how="diagonal"), "x")
    assert_frame_equal(ir.read_run(names), expected)


QUIRKS = {
    "tab": "q3\tQ0 d9 1 3.5 tagA\n",
    "tab in Q0": "q3 Q0\tx d9 1 3.5 tagA\n",
    "carriage return": "q3 Q0 d9 1 3.5 tagA\r\n",
    "double space": "q3  Q0 d9 1 3.5 tagA\n",
    "empty Q0, five fields": "q3  d9 1 3.5 tagA\n",
    "empty rank, five fields": "q3 Q0 d9  3.5 tagA\n",
    "leading space": " q3 Q0 d9 1 3.5 tagA\n",
    "trailing space": "q3 Q0 d9 1 3.5 tagA \n",
    "seven fields": "q3 Q0 d9 1 3.5 tagA extra\n",
    "five fields": "q3 Q0 d9 1 3.5\n",
    "comment of six fields": "# a b c d e\n",
    "blank line": "\n",
    "bad score": "q3 Q0 d9 1 x3.5 tagA\n",
}


@pytest.mark.parametrize("ext", ["", ".gz"])
@pytest.mark.parametrize(
    ("shape", "quirk"),
    [("spaced", q) for q in sorted(QUIRKS)] + [("tabbed", q) for q in sorted(TAB_QUIRKS)],
)
def test_quirky_text_goes_to_the_general_reader(
    tmp_path: Path, shape: str, quirk: str, ext: str
) -> None:
    base, quirks = (CLEAN, QUIRKS) if shape == "spaced" else (TABBED, TAB_QUIRKS)
    path = tmp_path / f"quirk.run{ext}"
    _write_text(path, base + quirks[quirk] + base.replace("q", "p"))
    assert trec_text._read_simple_run(str(path), "none") is None
    try:
        expected: pl.DataFrame | str = _general(str(path))
    except IrevalError as e:
        expected = str(e)
    if isinstance(expected, str):
        with pytest.raises(IrevalError) as info:
            ir.read_run(str(path))
        assert str(info.value) == expected
        assert f"quirk.run{ext}:5" in expected  # the line is named
    else:
        assert_frame_equal(ir.read_run(str(path)), expected)


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        ("q1 Q0 d1 9 1.0 tagA\n", "quirk.run:5"),  # duplicate document
        ("q1 Q0 d9 9 nan tagA\n", "quirk.run:5"),  # NaN score
    ],
)
def test_fast_read_errors_still_name_the_line(tmp_path: Path, extra: str, fragment: str) -> None:
    path = tmp_path / "quirk.run"
    path.write_text(CLEAN + extra)
    assert trec_text._read_simple_run(str(path), "none") is not None  # parsed fast, rejected later
    with pytest.raises(IrevalError, match=fragment):
        ir.read_run(str(path))


# ------------------------------------------------------------------------- nDCG blocks

GAINS = {
    "linear": ({}, lambda grade: grade),
    "map": (
        {"gains": {1: 3.0, 2: 9.0, 0: 0.5}},
        lambda g: g.replace([1.0, 2.0, 0.0], [3.0, 9.0, 0.5]),
    ),
    "exp": ({"dcg": "exp-log2"}, lambda grade: pl.lit(2.0).pow(grade) - 1.0),
}


@pytest.mark.parametrize("gain", sorted(GAINS))
@pytest.mark.parametrize("k", [None, 3, 10])
def test_dcg_blocks_equal_ndcg(gain: str, k: int | None) -> None:
    """dcg_at_k / ideal_dcg_at_k give nDCG's very floats, per query (with ties, unjudged
    and negative grades, judged documents never retrieved)."""
    from polars_ireval.measures._expr import dcg_at_k, ideal_dcg_at_k, ratio

    params, of_grade = GAINS[gain]
    for seed in range(4):
        table = ir.judge(_random_run(seed, runs=2), _random_qrels(seed))
        got = table.group_by("run_id", "query_id").agg(
            ratio(dcg_at_k(of_grade, k), ideal_dcg_at_k(of_grade, k)).alias("fast"),
            ir.ndcg(k=k, **params).alias("ndcg"),  # type: ignore[arg-type]
        )
        assert got.height > 10
        assert (got["fast"] == got["ndcg"]).all()


def test_built_expressions_are_reused_with_their_query_statistics(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``evaluate`` builds each expression of the package's measures once per process
    (``engines.polars.built``): a second evaluation reuses them, with the query statistics
    they read, and gives the frame of a first; a cache bounded to 3 entries (evicting while
    building) gives it too. With residuals the full table is used (no statistics): the
    values are built apart from those of the statistics path."""
    from collections import OrderedDict

    from polars_ireval.engines import polars as engine

    run, qrels = _random_run(3, runs=2), _random_qrels(3)
    names = ["nDCG@5", "AP", "R@10", "11pt_avg", "RBP(p=0.8)", "ERR@10", "infAP", "P@5"]
    for kw in ({"missing": "zero"}, {"residuals": True}):
        monkeypatch.setattr(engine, "_BUILT", OrderedDict())
        monkeypatch.setattr(engine, "BUILT_LIMIT", 4096)
        first = ir.evaluate(run, qrels, names, per_query=True, **kw)
        cached = dict(engine._BUILT)
        # with residuals, each measure's value and residual, and the judged weights (RBP's,
        # P's) that projected divides by, evaluated beside them
        weights = len(with_judged_weights(ir.parse_measures(names)))
        assert weights == 2
        expected = (len(names) + weights) * 2 if kw.get("residuals") else len(names)
        assert len(cached) == expected
        stats = sum(len(s) for _, _, s in cached.values())
        assert (stats > 0) == (not kw.get("residuals"))  # R and the ideal DCGs, read by name
        again = ir.evaluate(run, qrels, names, per_query=True, **kw)
        assert engine._BUILT.keys() == cached.keys()
        assert all(engine._BUILT[key][1] is cached[key][1] for key in cached)  # none rebuilt
        assert_frame_equal(again, first)
        monkeypatch.setattr(engine, "_BUILT", OrderedDict())
        monkeypatch.setattr(engine, "BUILT_LIMIT", 3)
        assert_frame_equal(ir.evaluate(run, qrels, names, per_query=True, **kw), first)
        assert len(engine._BUILT) == 3


@pytest.mark.parametrize("per_query", [True, False])
def test_in_memory_and_streaming_collects_agree(
    monkeypatch: pytest.MonkeyPatch, per_query: bool
) -> None:
    """``evaluate`` collects its queries on a small eager run with Polars' in-memory engine
    and on a large one with the streaming engine (``polars_ireval._base.collect.IN_MEMORY_ROWS``):
    the same floats from both, means included, on runs with ties and unjudged documents."""
    from polars_ireval._base import collect as engine

    names = ["nDCG@5", "AP", "R@10", "11pt_avg", "RBP(p=0.8)", "ERR@10", "infAP", "bpref"]
    for seed in range(3):
        run, qrels = _random_run(seed, runs=3), _random_qrels(seed)
        got = {}
        for rows in (0, 10**9):
            monkeypatch.setattr(engine, "IN_MEMORY_ROWS", rows)
            got[rows] = ir.evaluate(run, qrels, names, per_query=per_query, residuals=True)
        assert_frame_equal(got[0], got[10**9], check_exact=True)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"residuals": True, "missing": "zero"},
        {"no_relevant": "skip"},
        {"no_relevant": "nan", "residuals": True},
        {"no_relevant": "skip", "judged_only": True, "relevance_level": 2},
        {"ties": "average"},
    ],
    ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "-",
)
@pytest.mark.parametrize("runs", [1, 2])
def test_known_columns_are_the_wide_frame_columns(options: dict[str, Any], runs: int) -> None:
    """The Polars engine names the columns of its per-query frame without resolving the
    frame's schema (``results.wide_names``): the names are exactly the schema's."""
    from polars_ireval.engines import polars as engine
    from polars_ireval.parse import parse_measures

    run, qrels = _random_run(5, runs=runs), _random_qrels(5)
    names = ["nDCG@5", "AP", "P@5", "RBP(p=0.8)", "Rprec", "ERR@10", "NumRet", "bpref"]
    parsed = parse_measures(names)
    if options.get("ties") == "average":
        parsed = [m for m in parsed if m.defn.average is not None]
    frame, known = engine.named_per_query_frame(_inputs(run, qrels, options), parsed, **options)
    assert known is not None
    assert sorted(known) == sorted(frame.collect_schema().names())


def test_a_measure_declared_elsewhere_is_built_every_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the package's own measures (pure builders) are kept built: a declaration whose
    builder lives elsewhere (a user's, which may read state) is called at every evaluation."""
    import dataclasses
    from collections import OrderedDict

    from polars_ireval.engines import polars as engine
    from polars_ireval.registry import REGISTRY

    calls: list[int] = []

    def build(*, k: int, rel: int = 1) -> pl.Expr:
        calls.append(k)
        return pl.len().cast(pl.Float64)

    users = dataclasses.replace(REGISTRY["P"], build=build).bind({"k": 3})
    own = REGISTRY["P"].bind({"k": 3})
    monkeypatch.setattr(engine, "_BUILT", OrderedDict())
    for _ in range(2):
        engine.built(users, "value", 1, users.expr)
        engine.built(own, "value", 1, own.expr)
    assert calls == [3, 3]
    assert [key[0] for key in engine._BUILT] == [id(own.defn)]


@pytest.mark.filterwarnings("ignore::polars_ireval.CoverageWarning")
def test_duckdb_engine_reuses_its_own_database(monkeypatch: pytest.MonkeyPatch) -> None:
    """Called without a connection, the DuckDB engine evaluates on a cursor of one
    in-memory database per process (``engines.duckdb._Own``): each macro is installed there
    once (a second evaluation installs nothing), the cursor is closed after the call (also
    when the call fails), no table or registered frame is left in the database, and the
    values are those of a fresh connection. A process with another id (a forked child) makes
    its own database. A caller's connection still gets the macros at every call."""
    import duckdb

    from polars_ireval.engines import duckdb as engine

    loads: list[list[str]] = []
    real_load = engine.load

    def counted(con: Any, macros: Any = None) -> Any:
        loads.append(list(macros))
        return real_load(con, macros)

    cursors: list[Any] = []
    real_cursor = engine.own_cursor

    def kept() -> Any:
        cursors.append(real_cursor())
        return cursors[-1]

    monkeypatch.setattr(engine, "load", counted)
    monkeypatch.setattr(engine, "own_cursor", kept)
    monkeypatch.setattr(engine._Own, "pid", None)  # a database of this test's own
    run, qrels = _random_run(4, runs=2), _random_qrels(4)
    names = ["nDCG@5", "AP", "P@5", "RBP(p=0.8)"]
    kw = {"per_query": True, "missing": "zero", "engine": "duckdb"}
    first = ir.evaluate(run, qrels, names, **kw)
    assert loads and "ireval_judge" in loads[0]
    loads.clear()
    again = ir.evaluate(run, qrels, [*names, "ERR@10"], **kw)
    assert loads == [["ireval_err"]]  # only the macro the first call did not need
    assert_frame_equal(again.filter(pl.col("measure") != "ERR@10"), first, check_exact=True)
    fresh = ir.evaluate(run, qrels, names, con=duckdb.connect(), **kw)
    assert_frame_equal(fresh, first, check_exact=True)
    assert len(loads) == 2 and "ireval_judge" in loads[1]  # the caller's connection: all
    for cursor in cursors:
        with pytest.raises(duckdb.ConnectionException):
            cursor.execute("SELECT 1")
    db = engine._Own.db
    assert db.execute("SELECT count(*) FROM duckdb_tables()").fetchone() == (0,)
    assert db.execute("SELECT count(*) FROM duckdb_views() WHERE NOT internal").fetchone() == (0,)

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("failed")

    monkeypatch.setattr(engine, "_per_query_frame", fail)
    with pytest.raises(RuntimeError, match="failed"):
        ir.evaluate(run, qrels, names, **kw)
    with pytest.raises(duckdb.ConnectionException):
        cursors[-1].execute("SELECT 1")
    monkeypatch.undo()
    monkeypatch.setattr(engine._Own, "pid", -1)  # as in a forked child
    assert_frame_equal(ir.evaluate(run, qrels, names, **kw), first, check_exact=True)
    assert engine._Own.db is not db


@pytest.mark.filterwarnings("ignore::polars_ireval.CoverageWarning")
def test_duckdb_engine_evaluates_in_threads() -> None:
    """Evaluations in several threads at once, each on its own cursor of the engine's
    database (macros installed by whichever thread needs them first), give the values of
    one evaluation alone."""
    from concurrent.futures import ThreadPoolExecutor

    jobs = [
        (_random_run(seed, runs=2), _random_qrels(seed), names)
        for seed in range(4)
        for names in (["nDCG@5", "AP"], ["RBP(p=0.8)", "ERR@10", "P@5"], ["bpref", "infAP"])
    ]

    def one(job: tuple[Any, Any, list[str]]) -> pl.DataFrame:
        run, qrels, names = job
        return ir.evaluate(run, qrels, names, per_query=True, engine="duckdb")

    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(one, jobs))
    for job, got in zip(jobs, together, strict=True):
        assert got.height > 0
        assert_frame_equal(got, one(job), check_exact=True)


def test_evaluate_table_takes_measure_strings_and_returns_the_input_kind() -> None:
    """``ir.evaluate_table`` parses measure strings as ``evaluate`` does (it raised
    AttributeError on one), gives a DataFrame for a DataFrame and a LazyFrame for a
    LazyFrame, and checks a hand-built table."""
    run, qrels = _random_run(3, runs=2), _random_qrels(3)
    table = ir.judge(run, qrels)
    expected = ir.evaluate(run, qrels, ["P@5", "AP"], per_query=True)
    eager = ir.evaluate_table(table, "P@5 AP", per_query=True)
    assert isinstance(eager, pl.DataFrame)
    assert_frame_equal(eager, expected)
    lazy = ir.evaluate_table(table.lazy(), ["P@5", ir.parse_measure("AP")], per_query=True)
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(), expected)
    with pytest.raises(ir.SchemaError, match="lacks column"):
        ir.evaluate_table(table.drop("rank"), "P@5")
    with pytest.raises(ir.UnknownMeasureError):
        ir.evaluate_table(table, "nope@5")
