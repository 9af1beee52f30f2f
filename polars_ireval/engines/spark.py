"""The Spark engine: the same SQL as the DuckDB macros, rendered as Spark SQL.

``evaluate(..., engine="spark")`` renders the portable templates of ``sql/`` (see
:mod:`polars_ireval.sql.compile`) as Spark SQL. Inputs may be Spark DataFrames or tables
(evaluated where they are) or anything :func:`polars_ireval.read_run` accepts (validated in
Python, then handed to Spark as Arrow and checkpointed into its block store: see
:func:`from_polars`). For runs larger than the driver's memory, write Parquet and pass
Spark's DataFrame of it. ``ties="input_order"`` needs an ``input_order`` column on Spark
inputs (Spark rows have no order of their own). It runs on a classic session and on a Spark
Connect one (``SparkSession.builder.remote(...)``): it uses only DataFrame and SQL calls
that both offer (no SparkContext, no RDD).

A call runs a few Spark jobs and returns a DataFrame whose rows are already computed:

1. the judge (``ireval_judge``) builds the evaluation table once per ``judged_only`` flag
   the measures need, checkpointed (:func:`persisted`), so that
   every measure's plan starts from a leaf instead of the judge's plan;
2. the per-ranking counts that the cutoff measures divide (the ``stats`` fragment: P@k,
   R@k, Success@k, relative_P@k, the counts, and what IPrec and Rprec_mult read), for
   every cutoff and grade at once, in one aggregation (:func:`shared_stats`), checkpointed;
3. the measures, in batches of at most :data:`BATCH_COST` aggregations and windows
   (:func:`batches`), each batch one query whose result is checkpointed; a hundred
   measures make a handful of bounded plans, not one plan with a branch per measure.

The measures that read every position up to a cutoff (the CWL family, DCG's 'scaled'
normalisation) take them from Spark's ``range`` table function instead of the portable
templates' nine cross-joined digit tables (:func:`ranged_positions`): the same rows, without
the eight broadcast nested-loop joins Spark planned for each (20 residual measures on the
tests' generated runs, warm: 11.1 -> 7.3 s; 9.1-9.4 s once their sums ran in position order).

The returned DataFrame unions the batches' results in the order of
:func:`polars_ireval.evaluate`. The checkpoints live in Spark's block store (memory,
spilling to disk) while they are referenced: the evaluation tables and counts only during
the call, the results as long as the returned DataFrame is (drop it, ``del scores``, to
free them; Spark Connect releases them on the server then too).

Besides these jobs, only the input checks on Spark inputs collect anything: with
``validate=True``, one query reading the run once (:func:`screen_sql`: whether any row may
be bad, and the qrels' size, which chooses ``rank_by``), then ``ireval_check`` (at most five
bad rows, named in the error) only when it finds a suspect; and the missing-query check
for ``missing="error"``.
"""

from __future__ import annotations

import functools
import re
import uuid
from collections.abc import Iterable
from typing import Any

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval.engines.base import (
    INPUT_ORDER,
    Request,
    check_missing,
    qrels_frame,
    rank_by_of,
    refuse_average,
    run_frame,
)
from polars_ireval.errors import (
    DuplicateError,
    IrevalError,
    MissingQueryError,
    ParameterError,
    RelevanceError,
    SchemaError,
    ScoreError,
)
from polars_ireval.io.intake import intake_qrels, intake_run
from polars_ireval.judge import INPUT_RANK
from polars_ireval.registry import JUDGED_WEIGHT_PREFIX, Measure, SqlSpec
from polars_ireval.sql import library
from polars_ireval.sql import quote_backquoted as quote
from polars_ireval.sql import templates as T
from polars_ireval.sql.compile import (
    aggregate_sql,
    condensed,
    judge_options,
    judge_sql,
    measure_query,
    rank_by,
    residual_query,
    specs,
    with_absent,
)

_RUN_COLUMNS = (S.QUERY_ID, S.DOC_ID, S.SCORE)
_QRELS_COLUMNS = (S.QUERY_ID, S.DOC_ID, S.RELEVANCE)

#: Judgments per judged query (on average) up to which Spark ranks the judged documents by
#: counting (``rank_by := 'count'``), Spark's own
#: :data:`polars_ireval.sql.compile.SPARSE_JUDGMENTS`.
#: In local mode, on 500 rankings of 1,000 documents whose judged documents are retrieved at
#: random ranks, counting took as long as the window sort at 4 judgments a query (5.2 s
#: against 5.0 s) and longer at 12 (6.5 s against 5.7 s), where DuckDB's count takes half
#: the sort's time.
SPARSE_JUDGMENTS = 4.0

#: Aggregations and windows per Spark query (see :func:`batches`).
BATCH_COST = 40


def _is_spark_frame(obj: Any) -> bool:
    return hasattr(obj, "sparkSession") and hasattr(obj, "createOrReplaceTempView")


def spark_session(spark: Any) -> Any:
    """``spark``, or the active SparkSession (an error naming the fix without one)."""
    if spark is not None:
        return spark
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is None:
        raise ParameterError(
            "no active Spark session: pass spark=SparkSession.builder.getOrCreate()"
        )
    return active


def spark_frame(spark: Any, obj: Any) -> tuple[Any, bool]:
    """A Spark DataFrame for ``obj`` and whether it came from Spark (so is unchecked)."""
    if _is_spark_frame(obj):
        return obj, True
    if isinstance(obj, str) and re.fullmatch(r"[\w.`]+", obj) and _table_exists(spark, obj):
        return spark.table(obj), True
    return None, False


def from_polars(spark: Any, frame: pl.DataFrame) -> Any:
    """``frame`` as a Spark DataFrame whose rows live in Spark's block store.

    A DataFrame made from local data keeps the rows in its query plan (a LocalRelation),
    and Spark's optimizer computes the projections and filters over such a relation in the
    driver, once for every reference: the judge's query refers to the run many times and
    ran out of a 4 GB driver heap on a run of 100,000 rows. A local checkpoint moves the
    rows to the executors' blocks, so the plan refers to them instead of holding them.
    """
    return spark.createDataFrame(frame.to_arrow()).localCheckpoint()


def _table_exists(spark: Any, name: str) -> bool:
    try:
        return bool(spark.catalog.tableExists(name))
    except Exception:  # a name Spark cannot parse is no table: read it as a path
        return False


def temp_view(frame: Any, prefix: str) -> str:
    """``frame`` as a temporary view of a fresh name (``ireval_<prefix>_...``): its name."""
    name = f"ireval_{prefix}_{uuid.uuid4().hex}"
    frame.createOrReplaceTempView(name)
    return name


def _run_source(view: str, columns: Iterable[str]) -> str:
    have = set(columns)
    missing = [c for c in _RUN_COLUMNS if c not in have]
    if missing:
        raise SchemaError(f"the Spark run lacks column(s) {missing}; it needs {list(_RUN_COLUMNS)}")
    cols = [*(quote(c) for c in _RUN_COLUMNS)]
    for c, t in T.OPTIONAL_RUN_COLUMNS.items():
        cols.append(quote(c) if c in have else f"CAST(NULL AS {t}) AS {c}")
    return f"(SELECT {', '.join(cols)} FROM {quote(view)})"


def _qrels_source(view: str, columns: Iterable[str]) -> str:
    missing = [c for c in _QRELS_COLUMNS if c not in set(columns)]
    if missing:
        raise SchemaError(
            f"the Spark qrels lack column(s) {missing}; they need {list(_QRELS_COLUMNS)}"
        )
    return f"(SELECT {', '.join(quote(c) for c in _QRELS_COLUMNS)} FROM {quote(view)})"


_PROBLEMS: dict[str, type[IrevalError]] = {
    "duplicate": DuplicateError,
    "score": ScoreError,
    "relevance": RelevanceError,
    "null id": SchemaError,
}


#: A run row (of the judge's ``run``) or a qrels row (as given) that ``ireval_check``
#: reports without counting copies: a null id, a null or non-finite score (Spark orders NaN
#: above every number, so the bounds catch it), a null or non-integer grade.
_RUN_BAD = (
    "CASE WHEN query_id IS NULL OR doc_id IS NULL OR score IS NULL OR NOT (score >= "
    "CAST('-1.7976931348623157e308' AS DOUBLE) AND score <= "
    "CAST('1.7976931348623157e308' AS DOUBLE)) THEN 1 ELSE 0 END"
)
_QRELS_BAD = (
    "CASE WHEN query_id IS NULL OR doc_id IS NULL OR relevance IS NULL OR "
    "CAST(relevance AS DOUBLE) <> CAST(CAST(relevance AS BIGINT) AS DOUBLE) THEN 1 ELSE 0 END"
)


def screen_sql(tables: dict[str, str]) -> str:
    """One query over the run and the qrels (``tables``: ``run_table``, ``qrels_table``, as
    the judge reads them) returning one row: ``suspect`` (1 when some row may be one that
    ``ireval_check`` reports, else 0), ``judgments`` and ``queries`` (the qrels' rows and
    judged queries, what :func:`polars_ireval.sql.compile.rank_by` reads).

    It reads the run once and groups its rows by a 64-bit hash of their ids instead of
    the ids' text: equal ids have equal hashes, so a duplicate always makes a group of two
    or more; a group of two without one (a hash collision) only makes the caller run
    ``ireval_check``, which names the rows. On sound inputs this is the only check, and it
    shuffles a number a row where ``ireval_check`` shuffles and sorts three strings.

    Examples
    --------
    >>> sql = screen_sql({"run_table": "run_view", "qrels_table": "qrels_view"})
    >>> sql.count("xxhash64(run_id, query_id, doc_id)"), sql.count("GROUP BY")
    (1, 2)
    """
    lib = library()
    inputs = T.render(lib["inputs"], lib, {}, tables)
    qrels = tables["qrels_table"]
    return (
        f"WITH {inputs} SELECT GREATEST(r.suspect, q.suspect) AS suspect, q.judgments, "
        "q.queries FROM ("
        "SELECT COALESCE(MAX(CASE WHEN n > 1 OR bad = 1 THEN 1 ELSE 0 END), 0) AS suspect "
        f"FROM (SELECT COUNT(*) AS n, MAX({_RUN_BAD}) AS bad FROM run "
        "GROUP BY xxhash64(run_id, query_id, doc_id)) AS rg) AS r CROSS JOIN ("
        "SELECT COALESCE(MAX(CASE WHEN n > 1 OR bad = 1 THEN 1 ELSE 0 END), 0) AS suspect, "
        "COALESCE(SUM(n), 0) AS judgments, COUNT(DISTINCT query_id) AS queries FROM ("
        f"SELECT query_id, COUNT(*) AS n, MAX({_QRELS_BAD}) AS bad FROM (SELECT "
        "CAST(query_id AS STRING) AS query_id, CAST(doc_id AS STRING) AS doc_id, relevance "
        f"FROM {qrels} AS q0) AS qs GROUP BY query_id, doc_id) AS qg) AS q"
    )


def _check(spark: Any, tables: dict[str, str]) -> tuple[int, int]:
    """Raise the readers' error for bad Spark inputs (:func:`screen_sql`, then, when it
    finds a suspect row, ``ireval_check`` for the rows to name); return the qrels' rows and
    judged queries."""
    row = spark.sql(screen_sql(tables)).first()
    if row["suspect"]:
        _full_check(spark, tables)
    return int(row["judgments"]), int(row["queries"])


def _full_check(spark: Any, tables: dict[str, str]) -> None:
    lib = library()
    query = T.render(lib["ireval_check"], lib, {}, tables)
    bad = spark.sql(query).limit(5).collect()
    if bad:
        first = bad[0]["problem"]
        cls = next((c for k, c in _PROBLEMS.items() if k in first), IrevalError)
        rows = "; ".join(
            f"{r['problem']} (run {r['run_id']!r}, query {r['query_id']!r}, "
            f"document {r['doc_id']!r})"
            for r in bad
        )
        raise cls(f"bad Spark input: {rows}; see ireval_check in docs/sql.md")


def evaluate(request: Request) -> Any:
    """Evaluate ``request`` on Spark (``request.con``: the SparkSession, default the active
    one); return a lazy Spark DataFrame.

    ``request.validate`` checks Spark inputs for duplicates, null ids, null/NaN/infinite
    scores and non-integer grades first (one small query), raising the error the Python
    readers raise.
    """
    r = request
    refuse_average(r, "spark")
    if r.no_relevant != "zero" and any(m.by_r for m in r.parsed):
        raise NotImplementedError(
            f"no_relevant={r.no_relevant!r} is not implemented on the Spark engine (its "
            "result stays in Spark, and the policy is applied in Polars); use "
            "engine='polars' or 'duckdb', or no_relevant='zero'"
        )
    parsed = r.parsed
    ties, missing = r.ties, r.missing
    all_specs = specs(parsed, r.relevance_level, residuals=r.residuals)
    spark = spark_session(r.con)
    run_sdf, run_native = spark_frame(spark, r.run)
    qrels_sdf, qrels_native = spark_frame(spark, r.qrels)
    # the Spark engine's intake: a Spark table stays in Spark, a frame or path is read and
    # checked as the front door reads for the other engines
    run_df = (
        None if run_native else run_frame(intake_run(r.run, ties=ties, validate=r.validate), ties)
    )
    qrels_df = None if qrels_native else qrels_frame(intake_qrels(r.qrels, validate=r.validate))
    if missing == "error" and run_df is not None and qrels_df is not None:
        check_missing(run_df, qrels_df)
    if run_df is not None:
        run_sdf = from_polars(spark, run_df)
    if qrels_df is not None:
        qrels_sdf = from_polars(spark, qrels_df)
    if ties == "rank" and INPUT_RANK not in run_sdf.columns:
        raise ParameterError("ties='rank' needs an input_rank column in the run")
    if ties == "input_order" and INPUT_ORDER not in run_sdf.columns:
        raise ParameterError(
            "ties='input_order' needs an input_order column on a Spark run (Spark rows have "
            "no order of their own)"
        )
    multi = S.RUN_ID in run_sdf.columns
    evaluations: dict[bool, Any] = {}
    views = [temp_view(run_sdf, "run"), temp_view(qrels_sdf, "qrels")]
    try:
        tables = {
            "run_table": _run_source(views[0], run_sdf.columns),
            "qrels_table": _qrels_source(views[1], qrels_sdf.columns),
        }
        counted = None
        if r.validate and (run_native or qrels_native):
            counted = _check(spark, tables)
        if missing == "error" and (run_native or qrels_native):
            _raise_missing(spark, tables)
        # one evaluation table per judged_only flag the measures need (see condensed),
        # checkpointed so that its judge runs once (not repartitioned by ranking first: a
        # checkpoint does not keep the partitioning, so the measures shuffled it again)
        flags = condensed(parsed, r.judged_only)
        if qrels_df is not None:
            strategy = rank_by_of(qrels_df, SPARSE_JUDGMENTS)
        elif counted is not None:  # counted by the check
            strategy = rank_by(*counted, SPARSE_JUDGMENTS)
        else:  # one small job over the qrels
            judgments, queries = qrels_sdf.selectExpr(
                "COUNT(*)", f"COUNT(DISTINCT {S.QUERY_ID})"
            ).first()
            strategy = rank_by(judgments, queries, SPARSE_JUDGMENTS)
        common: dict[str, Any] = {
            "max_depth": r.max_depth,
            "ties": ties,
            "missing": missing,
            "rank_by": strategy,
        }
        eval_views: dict[bool, str] = {}
        for flag in sorted(set(flags)):
            options = judge_options(parsed, flags, flag, residuals=r.residuals, **common)
            evaluation = spark.sql(judge_sql(tables, **options))
            evaluations[flag] = persisted(evaluation)
            views.append(temp_view(evaluations[flag], "eval"))
            eval_views[flag] = quote(views[-1])
        rankings = None
        if missing == "zero" and any(m.defn.absent is not None for m in parsed):
            lib = library()
            rankings = "(" + T.render(lib["ireval_rankings"], lib, {}, tables, "spark") + ")"
        branches = _branches(
            parsed,
            all_specs,
            [eval_views[f] for f in flags],
            r.per_query,
            r.residuals,
            rankings=rankings,
        )
        # the per-ranking counts (the stats fragment) of every cutoff and grade, in one
        # aggregation over each evaluation table, checkpointed; the measures read them
        branches, shared = _shared_stats(spark, branches, sorted(set(eval_views.values())))
        views += list(shared)
        keys = ([S.RUN_ID] if multi else []) + ([S.QUERY_ID] if r.per_query else [])
        parts = [
            spark.sql(
                _batch_query([branches[i] for i in batch], keys, r.residuals)
            ).localCheckpoint(eager=True)
            for batch in batches(branches)
        ]
        out = _ordered(parts, multi, r.per_query, r.residuals, _weights(parsed))
    finally:
        for v in views:
            spark.catalog.dropTempView(v)
        evaluations.clear()  # the checkpoints go with the last reference
    return out


def persisted(frame: Any) -> Any:
    """``frame`` computed once into Spark's block store (a local checkpoint: memory, spilling
    to disk, Spark's default for one), so that every measure reads it as a leaf of its plan
    instead of recomputing it or matching its plan against Spark's cache; works on a
    classic session and on a Spark Connect one (pyspark 4). Spark frees the blocks once the
    frame is no longer referenced."""
    return frame.localCheckpoint(eager=True)


def batches(branches: list[str]) -> list[list[int]]:
    """The measures' queries (their indices) in the order given, cut into batches of at
    most :data:`BATCH_COST` aggregations and windows (each query costs one more than it
    has), each batch one Spark query: a plan of bounded size whatever the number of
    measures."""
    out: list[list[int]] = []
    size = 0
    for i, b in enumerate(branches):
        cost = 1 + b.count("GROUP BY") + b.count(" OVER (")
        if out and size + cost <= BATCH_COST:
            out[-1].append(i)
            size += cost
        else:
            out.append([i])
            size = cost
    return out


def _branches(
    parsed: list[Measure],
    all_specs: list[tuple[SqlSpec, SqlSpec | None]],
    tables: list[str],
    per_query: bool,
    residuals: bool = False,
    rankings: str | None = None,
) -> list[str]:
    """Per measure, the query of its rows (``run_id``, ``query_id`` when ``per_query``,
    ``measure_index``, ``measure``, ``value`` [, ``residual``]) on its evaluation table
    (``tables``, one per measure); ``rankings``: the pairs the run holds
    (``ireval_rankings``), given under ``missing="zero"`` for the measures that declare a
    value for the others."""
    parts = []
    for i, (m, (s, r), table) in enumerate(zip(parsed, all_specs, tables, strict=True)):
        label = T.literal(m.label)
        body = ranged_positions(
            residual_query(s, r, table) if residuals else measure_query(s, table)
        )
        if rankings is not None and m.defn.absent is not None:
            body = with_absent(body, m.defn.absent, rankings, residual=residuals)
        if per_query:
            resid = ", q.residual" if residuals else ""
            parts.append(
                f"SELECT q.run_id, q.query_id, {i} AS measure_index, {label} AS measure, "
                f"q.value{resid} FROM ({body}) AS q"
            )
        else:
            resid = ", AVG(q.residual) AS residual" if residuals else ""
            parts.append(
                f"SELECT q.run_id, {i} AS measure_index, {label} AS measure, "
                f"CAST({aggregate_sql(m.defn.aggregate)} AS DOUBLE) AS value{resid} "
                f"FROM ({body}) AS q GROUP BY q.run_id"
            )
    return parts


def _batch_query(branches: list[str], keys: list[str], residuals: bool) -> str:
    """The rows of the measures' queries ``branches`` in one query (unordered), with the
    result's columns (``keys``, ``measure_index``, ``measure``, ``value`` [, ``residual``,
    ``projected``])."""
    cols = [*keys, "measure_index", "measure", "CAST(value AS DOUBLE) AS value"]
    if residuals:
        # polars_ireval.results.projected: null unless the residual is below 1
        one = "CAST(1 AS DOUBLE)"
        cols += [
            "CAST(residual AS DOUBLE) AS residual",
            f"CAST(CASE WHEN residual < {one} THEN value + residual * value / ({one} - residual) "
            "END AS DOUBLE) AS projected",
        ]
    return f"SELECT {', '.join(cols)} FROM ({' UNION ALL '.join(branches)}) AS u"


_SENTINEL_K, _SENTINEL_REL = "__ireval_k__", "__ireval_rel__"


@functools.cache
def _stats_pattern(table: str) -> re.Pattern[str]:
    """The stats fragment rendered on ``table``, as a pattern capturing its k and rel."""
    lib = library()
    text = T.expand(
        lib["stats"].body, {"k": _SENTINEL_K, "rel": _SENTINEL_REL, "eval_table": table}, lib
    )
    pattern = re.escape(text)
    pattern = pattern.replace(re.escape(_SENTINEL_K), r"(?P<k>NULL|\d+)", 1)
    pattern = pattern.replace(re.escape(_SENTINEL_K), r"(?P=k)")
    pattern = pattern.replace(re.escape(_SENTINEL_REL), r"(?P<rel>-?\d+)", 1)
    pattern = pattern.replace(re.escape(_SENTINEL_REL), r"(?P=rel)")
    return re.compile(pattern)


@functools.cache
def _positions_pattern() -> re.Pattern[str]:
    """The positions fragment as rendered, as a pattern capturing its k."""
    lib = library()
    text = T.expand(lib["positions"].body, {"k": _SENTINEL_K}, lib)
    pattern = re.escape(text).replace(re.escape(_SENTINEL_K), r"(?P<k>[^\n]+?)", 1)
    return re.compile(pattern.replace(re.escape(_SENTINEL_K), r"(?P=k)"))


def ranged_positions(query: str) -> str:
    """``query`` with each rendering of the ``positions`` fragment (the positions 1..k from
    nine digit tables cross joined: portable SQL, which Spark plans as broadcasts and
    nested-loop joins) replaced by Spark's ``range`` table function: the same rows, INT
    ``pos`` 1..k, none for k NULL. k is a literal in a rendered query, as ``range`` needs.

    Examples
    --------
    >>> from polars_ireval.sql import library, templates as T
    >>> portable = T.expand(library()["positions"].body, {"k": "10"}, library())
    >>> portable.count("CROSS JOIN")
    8
    >>> ranged_positions(f"SELECT pos FROM {portable} AS po")
    'SELECT pos FROM (SELECT CAST(id AS INT) AS pos FROM range(1, COALESCE(10, 0) + 1)) AS po'
    """
    return _positions_pattern().sub(
        lambda m: f"(SELECT CAST(id AS INT) AS pos FROM range(1, COALESCE({m['k']}, 0) + 1))",
        query,
    )


_STATS_PARTS = re.compile(
    r"^\(\s*SELECT\s+run_id,\s*query_id,(?P<outer>.*?)FROM \(\s*SELECT\s+run_id,\s*"
    r"query_id,\s*rank,\s*relevance,(?P<inner>.*?)FROM (?P<table>.*?)\s*\) AS f\s+"
    r"GROUP BY run_id, query_id\s*\)$",
    re.S,
)
_ALIAS = re.compile(r"\bAS (\w+)\s*(?:,|$)")


def shared_stats(branches: list[str], table: str, name: str) -> tuple[list[str], str | None]:
    """``branches`` (the measures' queries) with each per-ranking count table they read on
    the evaluation table ``table`` (the ``stats`` fragment, one per cutoff and grade)
    replaced by its columns of the table ``name``; and the query of that table, which
    computes the counts of every cutoff and grade in one aggregation (None, and
    ``branches`` as given, when fewer than two count tables are read). The counts are
    integers, so the values are those of the fragment.

    Examples
    --------
    >>> import polars_ireval as ir
    >>> from polars_ireval.sql.compile import measure_query, spec
    >>> queries = [measure_query(spec(m), "ev") for m in ir.parse_measures(["P@5", "R@10"])]
    >>> [q.count("GROUP BY") for q in queries]
    [1, 1]
    >>> shared, wide = shared_stats(queries, "ev", "counts")
    >>> [q.count("GROUP BY") for q in shared], wide.count("GROUP BY")
    ([0, 0], 1)
    """
    lib = library()
    pattern = _stats_pattern(table)
    combos = sorted({(m["k"], m["rel"]) for b in branches for m in pattern.finditer(b)})
    if len(combos) < 2:
        return branches, None
    outer, inner, replaced = [], [], {}
    for j, (k, rel) in enumerate(combos):
        text = T.expand(lib["stats"].body, {"k": k, "rel": rel, "eval_table": table}, lib)
        found = _STATS_PARTS.match(text.strip())
        if found is None:  # the fragment changed shape: leave the queries as they are
            return branches, None
        columns = _ALIAS.findall(found["outer"])
        o, i = found["outer"], found["inner"]
        for a in columns + _ALIAS.findall(found["inner"]):
            o = re.sub(rf"\b{a}\b", f"{a}_{j}", o)
            i = re.sub(rf"\b{a}\b", f"{a}_{j}", i)
        outer.append(o.strip().rstrip(","))
        inner.append(i.strip().rstrip(","))
        picked = ", ".join(f"{a}_{j} AS {a}" for a in columns)
        replaced[(k, rel)] = f"(SELECT run_id, query_id, {picked} FROM {name})"
    wide = (
        f"SELECT run_id, query_id, {', '.join(outer)} FROM (SELECT run_id, query_id, rank, "
        f"relevance, {', '.join(inner)} FROM {table}) AS f GROUP BY run_id, query_id"
    )
    return [pattern.sub(lambda m: replaced[(m["k"], m["rel"])], b) for b in branches], wide


def _shared_stats(
    spark: Any, branches: list[str], tables: list[str]
) -> tuple[list[str], dict[str, Any]]:
    """:func:`shared_stats` on each evaluation table of ``tables``, each table of counts
    computed and checkpointed (:func:`persisted`); and the views made, with their frames
    (kept referenced while the views are read: Spark Connect releases a checkpoint whose
    frame is collected)."""
    views: dict[str, Any] = {}
    for table in tables:
        name = f"ireval_stats_{uuid.uuid4().hex}"
        branches, wide = shared_stats(branches, table, quote(name))
        if wide is not None:
            views[name] = persisted(spark.sql(wide))
            views[name].createOrReplaceTempView(name)
    return branches, views


def _weights(parsed: list[Measure]) -> dict[int, int]:
    """The index of each measure whose judged weight is evaluated beside it (see
    :func:`polars_ireval.results.with_judged_weights`) -> the index of that weight."""
    index = {m.label: i for i, m in enumerate(parsed)}
    return {
        index[m.label[len(JUDGED_WEIGHT_PREFIX) :]]: i
        for i, m in enumerate(parsed)
        if m.label.startswith(JUDGED_WEIGHT_PREFIX)
        and m.label[len(JUDGED_WEIGHT_PREFIX) :] in index
    }


def _ordered(
    parts: list[Any],
    multi: bool,
    per_query: bool,
    residuals: bool,
    weights: dict[int, int] | None = None,
) -> Any:
    """The batches' rows (``parts``) in one frame, ordered as :func:`polars_ireval.evaluate`
    orders them, without ``measure_index``. ``weights``: measure index -> the index of its
    judged weight, whose rows go, each measure's ``projected`` then its value over that
    weight (:func:`polars_ireval.results.projected_by_weight`)."""
    out = functools.reduce(lambda a, b: a.unionByName(b), parts)
    keys = ([S.RUN_ID] if multi else []) + ([S.QUERY_ID] if per_query else [])
    if residuals and weights:
        hidden = ", ".join(str(i) for i in weights.values())
        partner = " ".join(f"WHEN {w} THEN {m}" for m, w in weights.items())
        by_weight = out.filter(f"measure_index IN ({hidden})").selectExpr(
            *keys, f"CASE measure_index {partner} END AS measure_index", "value AS __weight"
        )
        out = (
            out.filter(f"measure_index NOT IN ({hidden})")
            .join(by_weight, on=[*keys, "measure_index"], how="left")
            .selectExpr(
                *keys,
                "measure_index",
                "measure",
                "value",
                "residual",
                "CAST(CASE WHEN __weight IS NULL THEN projected WHEN __weight > "
                "CAST(0 AS DOUBLE) THEN value / __weight END AS DOUBLE) AS projected",
            )
        )
    cols = [*keys, "measure", "value", *(["residual", "projected"] if residuals else [])]
    return out.orderBy(*keys, "measure_index").select(*cols)


def _raise_missing(spark: Any, tables: dict[str, str]) -> None:
    query = (
        f"WITH r AS (SELECT DISTINCT COALESCE(CAST(run_id AS STRING), '') AS run_id, "
        f"CAST(query_id AS STRING) AS query_id FROM {tables['run_table']} AS a), "
        f"q AS (SELECT DISTINCT CAST(query_id AS STRING) AS query_id "
        f"FROM {tables['qrels_table']} AS b) "
        "SELECT ru.run_id, q.query_id FROM (SELECT DISTINCT run_id FROM r) AS ru CROSS JOIN q "
        "LEFT ANTI JOIN r ON r.run_id = ru.run_id AND r.query_id = q.query_id "
        "ORDER BY 1, 2"
    )
    absent = spark.sql(query).limit(5).collect()
    if absent:
        sample = ", ".join(str((r[0], r[1])) for r in absent)
        raise MissingQueryError(
            f"judged (run, query) pair(s) have no ranking in the run, e.g. {sample}; pass "
            "missing='skip' to ignore them or missing='zero' to score them 0"
        )


__all__ = [
    "batches",
    "evaluate",
    "from_polars",
    "persisted",
    "quote",
    "screen_sql",
    "shared_stats",
]
