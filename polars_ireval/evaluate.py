"""``evaluate``: the front door. Score one or many runs on many measures, on any engine.

It checks the options and parses the measures once, then hands one
:class:`~polars_ireval.engines.base.Request` to the engine named by ``engine`` (see
:mod:`polars_ireval.engines`); every engine's result has the shape of
:func:`polars_ireval.results.long_result`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, overload

import polars as pl

from polars_ireval._base.collect import collect
from polars_ireval.engines import ENGINES, Request
from polars_ireval.engines import engine as engine_named
from polars_ireval.engines.average import evaluate_spark
from polars_ireval.engines.base import check_positions
from polars_ireval.engines.polars import per_query_columns
from polars_ireval.errors import ParameterError
from polars_ireval.io.intake import Inputs, intake, intake_run
from polars_ireval.io.readers import Scores, check_scores, float32_scores
from polars_ireval.judge import (
    AVERAGE,
    EvalTies,
    Missing,
    check_flag,
    check_options,
    check_relevance_level,
    check_table,
)
from polars_ireval.parse import MeasureLike, parse_measures
from polars_ireval.results import (
    CoverageWarning,
    NoRelevant,
    check_no_relevant,
    long_result,
    with_judged_weights,
)


def evaluate(
    run: Any,
    qrels: Any,
    measures: MeasureLike | Iterable[MeasureLike],
    *,
    per_query: bool = False,
    relevance_level: int = 1,
    missing: Missing = "skip",
    no_relevant: NoRelevant = "zero",
    max_depth: int | None = None,
    judged_only: bool = False,
    ties: EvalTies = "trec_eval",
    engine: Literal["polars", "duckdb", "spark", "spark-polars"] = "polars",
    residuals: bool = False,
    validate: bool = True,
    scores: Scores = "float64",
    con: Any = None,
) -> Any:
    """Evaluate runs against qrels on the given measures.

    Parameters
    ----------
    run
        One run or many (a ``run_id`` column): a frame, a path, a glob, a list of paths.
        A LazyFrame gives a LazyFrame: the whole evaluation is one lazy query.
    qrels
        Relevance judgments: a frame or a path.
    measures
        Measure strings in ir_measures' grammar (``"nDCG@10"``, ``"P(rel=2)@5"``) or
        trec_eval's (``"ndcg_cut.10"``, ``"P_5"``, ``"map"``), as a list or one
        whitespace-separated string.
    per_query
        Return one row per query (with ``query_id``) instead of the aggregate per run.
    relevance_level
        Minimum grade counted as relevant by measures whose ``rel`` is not given
        (trec_eval ``-l``).
    missing
        Queries judged but not ranked by a run: ``"skip"`` (default, trec_eval),
        ``"zero"`` (trec_eval ``-c``) or ``"error"``. See :func:`judge`.
    no_relevant
        Evaluated queries whose judgments hold no relevant document (R = 0, R counted at
        the measure's ``rel``, else at ``relevance_level``), for the measures normalised by
        R, whose value there is 0/0: AP, R@k, Rprec, nDCG, Bpref, infAP, Q, IPrec, SetR,
        SetF... (those declared ``by_r``; ``docs/compat.md`` lists them). Other measures
        are never changed.

        - ``"zero"`` (default, trec_eval, ir_measures, ranx): the value is 0 and the query
          counts in the mean, as it always did.
        - ``"nan"``: the per-query value is NaN, and NaN propagates into the run's mean (as
          numpy's ``mean`` does): the value is undefined for one query, so the mean over
          all of them is too, and a NaN mean says so where a silently smaller set of
          queries would not. For the mean over the queries that have relevant documents,
          ask ``"skip"``.
        - ``"skip"``: the query is left out of that measure, its per-query rows and its
          mean; other measures keep it.
        - ``"error"``: raise :class:`~polars_ireval.errors.NoRelevantError` naming the
          runs, queries and measures (eager inputs only: checking needs the data).

        With ``"nan"`` and ``"skip"``, the :class:`CoverageWarning` counts the queries
        concerned per measure. Not available on the Spark engine (``NotImplementedError``).
    max_depth
        Evaluate only the top ``max_depth`` documents of each ranking (trec_eval ``-M``).
    judged_only
        Remove unjudged documents before ranking (condensed lists; trec_eval ``-J``).
    ties
        Order of documents with equal scores; see :func:`judge`. ``"average"``: the
        expected value of each measure over every order of the documents with equal
        scores (each order equally likely), for every measure, on every engine (see
        ``docs/ties.md``). On the Polars engine, the measures that declare a closed form
        (P, R, Success, relative_P, Judged, Unjudged, RR, AP, Rprec, the DCG family,
        RBP...) compute it in one pass, whatever the ties. The others (ERR, the C/W/L
        measures, Q, Bpref, infAP, IPrec, ...; and, with ``max_depth``, those scoring
        condensed rankings), and every measure on DuckDB and Spark, are averaged over
        every distinct arrangement of the tied documents (documents of the same grade, or
        unjudged, are interchangeable), each arrangement evaluated as a ranking in one
        call of the engine (:mod:`polars_ireval.engines.average`); a ranking with more
        than ``polars_ireval.engines.average.MAX_ARRANGEMENTS`` (10,000) arrangements
        raises :class:`~polars_ireval.errors.TieOrdersError`. On Spark the run and qrels
        must be Polars frames or paths (the arrangements are made in Polars), and the
        result is a Spark DataFrame made from the Polars result. With a lazy input, the
        tie groups are found when ``evaluate`` is called (the run is read once for them).
        Not with ``residuals=True``.
    engine
        ``"polars"`` (default): one lazy Polars query. ``"duckdb"``: the SQL macros of
        ``sql/`` in DuckDB (see :mod:`polars_ireval.engines.duckdb`; returns an eager
        frame). ``"spark"``: the same SQL rendered for Apache Spark (see
        :mod:`polars_ireval.engines.spark`; run and qrels may also be Spark DataFrames or
        table names; returns a lazy Spark DataFrame). ``"spark-polars"``: Spark
        partitions the run by ranking and the Polars engine scores each partition in
        Spark's Python workers, the same values as ``"polars"`` (see
        :mod:`polars_ireval.engines.spark_polars`: polars_ireval must be installed on the
        executors; the qrels are collected to the driver; returns a Spark DataFrame).
    residuals
        Add the columns ``residual`` and ``projected`` (every engine). The residual is how
        much the value could still grow if every unjudged document in the evaluated ranks,
        and every rank between the end of the ranking and the measure's depth, had the
        maximum gain (Moffat and Zobel's RBP residual; cwl_eval's ``ResEU``): the true
        value lies in [value, value + residual]. ``projected`` is Moffat and Zobel's
        extrapolation value + residual * value / (1 - residual) (the unjudged weight
        relevant at the rate of the judged weight; null when residual = 1), that is value
        / (1 - residual). RBP and P divide by their judged weight summed itself (a hidden
        measure evaluated beside them, :func:`polars_ireval.results.with_judged_weights`):
        1 - residual loses its digits when nearly nothing is judged (a ranking whose one
        judged document, relevant, is at rank 82 projected RBP to 1 - 1.3e-7 instead of 1,
        and TREC-COVID rankings judged only past rank 100 to 0.012 instead of 1); the
        others divide by 1 - residual, with a relative error of about 1e-16 / (1 -
        residual) (their judged weight is not 1 - residual: adaptive models, RBP's
        ``ties='average'``, SDCG's and InvSq's gains). Both are null
        for measures without a residual; those with one are RBP, P, SDCG, InvSq and the
        C/W/L measures (INST, INSQ, TBG, U, BPM), and any measure declared with a
        ``residual`` (see
        :mod:`polars_ireval.measures.usermodel`). Aggregated rows carry the mean residual
        and the projection of the aggregated value and residual.
    validate
        Check the inputs (default). DataFrames and files are checked when read, once;
        a LazyFrame is checked as part of its query when it is collected, with the same
        errors (duplicate documents, null, NaN or infinite scores, fractional grades,
        empty input...). ``False`` skips the checks of LazyFrames, for input already
        checked: bad input then gives wrong numbers, not errors.
    scores
        ``"float64"`` (default): scores as read, as trec_eval 10.0 and ranx compare them.
        ``"float32"``: each score rounded to the nearest 32-bit float before ranking, as
        every trec_eval 9.x release (and pytrec_eval) reads them: scores that differ
        only beyond the seventh significant digit then tie, and the tie is broken by the
        ``ties`` policy. Official results of many TREC tracks were computed that way; use
        it to reproduce them exactly (see ``docs/compat.md``).
    con
        The engine's connection: a DuckDB connection for ``engine="duckdb"`` (the macros
        are installed into it; by default a cursor of the engine's own in-memory database,
        which keeps the macros installed between calls), a SparkSession for
        ``engine="spark"`` and ``"spark-polars"`` (default: the active one).

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        Columns ``[run_id,] [query_id,] measure, value``; ``measure`` holds the string asked
        for (a trec_eval family such as ``"P"`` expands to ``P_5``, ``P_10``, ...). The
        aggregate is the mean over evaluated queries, the sum for counts (``num_ret``...)
        and the geometric mean for ``gm_*``.

    Warns
    -----
    CoverageWarning
        For eager inputs, when queries of the run are absent from the qrels (never
        evaluated) or judged queries are absent from the run (with ``missing="skip"``),
        or when ``no_relevant="nan"`` or ``"skip"`` changed the value of a query without
        relevant documents.

    Raises
    ------
    NoRelevantError
        With ``no_relevant="error"``, when an evaluated query has no relevant document
        and a measure normalised by R is asked for.
    TieOrdersError
        With ``ties="average"``, when a ranking has more distinct orders of its tied
        documents than the enumeration's limit, for a measure without a closed form.
    ResourceError
        When the C/W/L measures (INST, TBG, U, BPM, NERR...) would build more position
        vectors (their depth, per ranking) than the memory budget
        (``IREVAL_MEMORY_LIMIT``, else half the memory available; see
        ``docs/resources.md``) holds; raised before they are built (Polars, DuckDB). The
        rankings of a lazy run are not counted: the depth alone is weighed.

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> run = pl.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"],
    ...                     "score": [2.0, 1.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["1", "2"], "doc_id": ["b", "c"], "relevance": [1, 2]})
    >>> ir.evaluate(run, qrels, ["P@1", "RR", "ndcg"])
    shape: (3, 2)
    ┌─────────┬──────────┐
    │ measure ┆ value    │
    │ ---     ┆ ---      │
    │ str     ┆ f64      │
    ╞═════════╪══════════╡
    │ P@1     ┆ 0.5      │
    │ RR      ┆ 0.75     │
    │ ndcg    ┆ 0.815465 │
    └─────────┴──────────┘

    Query 2 below has no relevant document: AP is 0/0 there. trec_eval scores it 0
    (``"zero"``), ``"skip"`` leaves it out of AP (not of P@1), ``"nan"`` makes it NaN:

    >>> import warnings
    >>> qrels = pl.DataFrame({"query_id": ["1", "2"], "doc_id": ["b", "c"], "relevance": [1, 0]})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     zero, skip, nan = (ir.evaluate(run, qrels, ["AP", "P@1"], no_relevant=p)
    ...                        for p in ("zero", "skip", "nan"))
    >>> zero["value"].to_list(), skip["value"].to_list(), nan["value"].to_list()
    ([0.25, 0.0], [0.5, 0.0], [nan, 0.0])
    >>> print(str(caught[-1].message).split(", per")[0])  # the coverage summary
    (run, query) pairs without relevant documents scored NaN (no_relevant='nan')

    Documents a and b tie below: trec_eval's order puts b first, ``ties="average"`` each
    first half the time (RR by its closed form, ERR over the two arrangements):

    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c"],
    ...                     "score": [1.0, 1.0, 0.5]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "c"], "relevance": [1, 1]})
    >>> ir.evaluate(run, qrels, ["RR", "ERR"])["value"].round(6).to_list()
    [0.5, 0.050781]
    >>> ir.evaluate(run, qrels, ["RR", "ERR"], ties="average")["value"].round(6).to_list()
    [0.75, 0.066406]
    """
    check_relevance_level(relevance_level)
    for name, flag in (("per_query", per_query), ("residuals", residuals), ("validate", validate)):
        check_flag(name, flag)
    check_options(
        max_depth=max_depth, ties=ties, missing=missing, judged_only=judged_only, average=True
    )
    if engine not in ENGINES:
        raise ParameterError(
            f"engine={engine!r}: must be 'polars', 'duckdb', 'spark' or 'spark-polars'"
        )
    if con is not None and engine == "polars":
        raise ParameterError("con= is a DuckDB connection or a SparkSession: pass engine= too")
    check_scores(scores)
    check_no_relevant(no_relevant)
    lazy = isinstance(run, pl.LazyFrame) or isinstance(qrels, pl.LazyFrame)
    if lazy and no_relevant == "error":
        raise ParameterError(
            "no_relevant='error' checks the queries before evaluating, which a lazy "
            "evaluation cannot do without collecting: pass DataFrames (or paths), or use "
            "no_relevant='nan' or 'skip'"
        )
    if scores == "float32" and type(run).__module__.startswith("pyspark"):
        raise ParameterError(
            "scores='float32' rounds scores in Python; for a Spark DataFrame, round them "
            "in Spark: run.withColumn('score', F.col('score').cast('float').cast('double'))"
        )
    parsed = parse_measures(measures)
    if residuals:  # the judged weights that projected divides by (results.long_frame)
        parsed += with_judged_weights(parsed)
    # the intake: the run and qrels read and checked once, here; the engines take them as
    # they are (the Spark engines read a Spark table in Spark, and a frame or path as this)
    by = "trec_eval" if ties == AVERAGE else ties  # any order of the ties, then averaged
    inputs = None
    if engine in ("polars", "duckdb"):
        inputs = intake(run, qrels, ties=by, validate=validate)
        if scores == "float32":
            inputs = Inputs(float32_scores(inputs.run, scores), inputs.qrels)
    elif scores == "float32":
        run = float32_scores(intake_run(run, ties=by, validate=validate), scores)
    request = Request(
        run, qrels, tuple(parsed), per_query=per_query,
        relevance_level=relevance_level, missing=missing, max_depth=max_depth,
        judged_only=judged_only, ties=ties, residuals=residuals, validate=validate,
        lazy=lazy, con=con, no_relevant=no_relevant, inputs=inputs,
    )  # fmt: skip
    if ties == AVERAGE and engine == "spark":  # the arrangements made in Polars
        return evaluate_spark(request)
    return engine_named(engine)(request)


@overload
def evaluate_table(
    table: pl.DataFrame,
    measures: MeasureLike | Iterable[MeasureLike],
    *,
    per_query: bool = ...,
    relevance_level: int = ...,
    residuals: bool = ...,
    ranked: pl.LazyFrame | None = ...,
    numbering: pl.LazyFrame | None = ...,
    validate: bool = ...,
) -> pl.DataFrame: ...


@overload
def evaluate_table(
    table: pl.LazyFrame,
    measures: MeasureLike | Iterable[MeasureLike],
    *,
    per_query: bool = ...,
    relevance_level: int = ...,
    residuals: bool = ...,
    ranked: pl.LazyFrame | None = ...,
    numbering: pl.LazyFrame | None = ...,
    validate: bool = ...,
) -> pl.LazyFrame: ...


def evaluate_table(
    table: pl.DataFrame | pl.LazyFrame,
    measures: MeasureLike | Iterable[MeasureLike],
    *,
    per_query: bool = False,
    relevance_level: int = 1,
    residuals: bool = False,
    ranked: pl.LazyFrame | None = None,
    numbering: pl.LazyFrame | None = None,
    validate: bool = True,
) -> pl.DataFrame | pl.LazyFrame:
    """Compute ``measures`` on an evaluation table (from :func:`judge`): a DataFrame gives a
    DataFrame, a LazyFrame a LazyFrame (one lazy query).

    ``measures`` are measure strings or parsed measures, as :func:`evaluate` takes them.
    With ``residuals``, add the columns ``residual`` and ``projected`` (see :func:`evaluate`).
    ``ranked``: the rankings (``[run_id,] query_id``) the run holds, when the table also
    scores judged queries the run lacks (``missing="zero"``): those take the value the
    measure declares for them (``absent``; trec_eval's ``-c`` adds 0 for ``utility``).
    ``numbering``: for a table whose rankings are numbered, the frame that names them (see
    :class:`polars_ireval.judge.Judgment`). ``validate=False`` skips the checks of the
    table (:func:`polars_ireval.judge.check_table`), for a table :func:`judge` built.

    Examples
    --------
    >>> import polars_ireval as ir
    >>> run, qrels = ir.read_run(ir.example_path("runs/bm25.run")), ir.read_qrels(
    ...     ir.example_path("qrels.txt"))
    >>> table = ir.judge(run, qrels)
    >>> ir.evaluate_table(table, "P@5 AP").equals(ir.evaluate(run, qrels, ["P@5", "AP"]))
    True
    """
    check_relevance_level(relevance_level)
    for name, flag in (("per_query", per_query), ("residuals", residuals), ("validate", validate)):
        check_flag(name, flag)
    parsed = parse_measures(measures)
    keyed = isinstance(table, pl.DataFrame) and "query_id" in table.columns  # not numbered
    check_positions(  # the C/W/L measures' vectors, over the table's rankings
        parsed, table if keyed else table.lazy(), table.lazy(), engine="polars",
        missing="skip", residuals=residuals,
    )  # fmt: skip
    lazy = table.lazy()
    if validate:
        lazy = check_table(lazy)
    if residuals:  # the judged weights that projected divides by (as in evaluate)
        parsed = [*parsed, *with_judged_weights(parsed)]
    per_q = per_query_columns(
        lazy,
        parsed,
        relevance_level=relevance_level,
        residuals=residuals,
        ranked=ranked,
        numbering=numbering,
    )
    out = long_result(per_q, parsed, per_query=per_query, residuals=residuals)
    return collect(out, table) if isinstance(table, pl.DataFrame) else out


__all__ = ["CoverageWarning", "evaluate", "evaluate_table"]
