"""Measures as SQL: each measure's declared macro call, typed and checked, composed into
queries over the evaluation table, for DuckDB (macro calls) or any engine (rendered
templates).

A measure declares its SQL beside its Polars expression (``sql=`` of
:func:`polars_ireval.registry.measure`): a macro of ``sql/`` taking its parameters, or a
builder choosing among several. :func:`spec` turns the declaration into the call with SQL
values: each argument typed by the kind the macro's header gives it (a DOUBLE is passed as
a float, a gain map as the text ``,1=0.5,2=1,``), and a depth beyond the positions the SQL
generates refused. The engines (:mod:`polars_ireval.engines.duckdb`,
:mod:`polars_ireval.engines.spark`) and :mod:`polars_ireval.sql.dialects` build their
queries from these specs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from polars_ireval.registry import MIN_GEO_MEAN, Measure, SqlCall, SqlMean, SqlSpec
from polars_ireval.sql import library, table_arg
from polars_ireval.sql import templates as T
from polars_ireval.sql.options import KINDS, MAX_POSITIONS

#: Option kinds passed as gain maps or weight vectors (text in SQL).
_MAPS = {"gain_map": T.gain_map, "unit_gain_map": T.gain_map, "utility_map": T.gain_map}
_POSITIONS = ("positions", "positions_from_2")


def _typed(label: str, call: SqlCall) -> SqlCall:
    """``call`` with each argument as the macro's header types it; raises
    NotImplementedError for a depth beyond :data:`MAX_POSITIONS`."""
    _check_depth(label, call)
    template = library()[call.macro]
    params = {p.name: p for p in template.scalars}
    args: dict[str, Any] = {}
    for name, value in call.args.items():
        kind = params[name].kind
        if kind in _MAPS:
            value = _MAPS[kind](value)
        elif kind == "weight_vector":
            value = T.weight_map(value)
        elif kind is not None and KINDS[kind].sql_type == "DOUBLE" and value is not None:
            value = float(value)
        args[name] = value
    return replace(call, args=args)


def _check_depth(label: str, call: SqlCall) -> None:
    """TypeError for an argument the macro does not take; NotImplementedError for a depth
    beyond the :data:`MAX_POSITIONS` positions the macro generates."""
    template = library()[call.macro]
    params = {p.name: p for p in template.scalars}
    scaled = "scaled_cutoff" in template.rules and call.args.get("norm") == "scaled"
    for name, value in call.args.items():
        param = params.get(name)
        if param is None:
            raise TypeError(f"{label}: macro {call.macro} has no parameter {name!r}")
        positional = param.kind in _POSITIONS or (name == "k" and scaled)
        if positional and isinstance(value, int) and value > MAX_POSITIONS:
            raise NotImplementedError(
                f"{label}: k={value} is deeper than the {MAX_POSITIONS} positions the SQL generates"
            )


def spec(m: Measure, relevance_level: int = 1) -> SqlSpec:
    """The macro call(s) computing measure ``m``, from its declaration.

    The parameters are also checked by building the Polars expression, so that a value
    the Polars engine refuses raises the same :class:`ParameterError` here; a depth the
    SQL cannot reach is refused first (the Polars expression of ``SDCG@k`` sums k weights).
    """
    if m.defn.sql is None:
        raise NotImplementedError(f"{m.name} has no SQL yet")
    try:
        built = m.defn.sql(m.arguments(relevance_level))
    except Exception:
        m.expr(relevance_level)  # the Polars engine's error for the same parameters
        raise
    calls = built.calls if isinstance(built, SqlMean) else (built,)
    for c in calls:
        _check_depth(m.label, c)
    m.expr(relevance_level)
    if isinstance(built, SqlMean):
        return SqlMean(tuple(_typed(m.label, c) for c in calls))
    return _typed(m.label, built)


def residual_spec(m: Measure, relevance_level: int = 1) -> SqlSpec | None:
    """The macro call computing the residual of ``m``; None for measures without one."""
    how = m.defn.sql_residual
    if m.defn.residual is None or how is None:
        return None
    m.residual_expr(relevance_level)
    if how == "residual":
        s = spec(m, relevance_level)
        assert isinstance(s, SqlCall), f"{m.name}: a residual column needs one macro call"
        return replace(s, column="residual")
    built = how(m.arguments(relevance_level))
    assert isinstance(built, SqlCall), f"{m.name}: a residual is one macro call"
    return _typed(m.label, built)


def specs(
    parsed: list[Measure], relevance_level: int, *, residuals: bool = False
) -> list[tuple[SqlSpec, SqlSpec | None]]:
    """The spec of every measure and of its residual (None without one, or unless
    ``residuals``); raises NotImplementedError naming all without SQL."""
    out, missing = [], []
    for m in parsed:
        try:
            r = residual_spec(m, relevance_level) if residuals else None
            out.append((spec(m, relevance_level), r))
        except NotImplementedError as e:
            reason = str(e).partition(": ")[2]
            missing.append(f"{m.label} ({reason})" if reason else m.label)
    if missing:
        raise NotImplementedError(
            f"no SQL for measure(s) {', '.join(missing)}; use the Polars engine"
        )
    return out


def macros_of(found: Iterable[SqlSpec | None]) -> set[str]:
    """The names of the macros that the specs call."""
    out = set()
    for s in found:
        if s is not None:
            out |= {c.macro for c in (s.calls if isinstance(s, SqlMean) else (s,))}
    return out


# --------------------------------------------------------------------------- composing


def compose(s: SqlSpec, source: Callable[[SqlCall], str], *, mean: str = "join") -> str:
    """``SELECT run_id, query_id, value`` for spec ``s``; ``source`` renders one call as a
    table expression (a DuckDB macro call, or a parenthesised query for other engines).

    A :class:`SqlMean` joins its calls on (run_id, query_id) (``mean="join"``), or stacks
    them (``mean="union"``: ``UNION ALL`` and one ``GROUP BY``, each call's value picked out
    by ``MAX(CASE ...)``), which adds the same values in the same order without a chain of
    joins: Spark ran out of execution memory on the ten sort-merge joins of ``11pt_avg``.
    """
    if isinstance(s, SqlCall):
        value = "m.value" if s.column == "value" else f"m.{s.column} AS value"
        return f"SELECT m.run_id, m.query_id, {value} FROM {source(s)} AS m"
    if mean == "union":
        stacked = " UNION ALL ".join(
            f"SELECT a.run_id, a.query_id, {i} AS part, a.{c.column} AS v FROM {source(c)} AS a"
            for i, c in enumerate(s.calls)
        )
        picked = [f"MAX(CASE WHEN u.part = {i} THEN u.v END)" for i in range(len(s.calls))]
        total = " + ".join(["CAST(0 AS DOUBLE)", *picked])
        return (
            f"SELECT u.run_id, u.query_id, ({total}) / CAST({len(s.calls)} AS DOUBLE) AS value "
            f"FROM ({stacked}) AS u GROUP BY u.run_id, u.query_id"
        )
    first = "a0"
    joins = [f"{source(s.calls[0])} AS {first}"]
    for i, c in enumerate(s.calls[1:], start=1):
        joins.append(
            f"JOIN {source(c)} AS a{i} ON a{i}.run_id = {first}.run_id "
            f"AND a{i}.query_id = {first}.query_id"
        )
    total = " + ".join(["CAST(0 AS DOUBLE)", *(f"a{i}.{c.column}" for i, c in enumerate(s.calls))])
    return (
        f"SELECT {first}.run_id, {first}.query_id, ({total}) / "
        f"CAST({len(s.calls)} AS DOUBLE) AS value FROM " + " ".join(joins)
    )


def compose_residual(
    s: SqlSpec, r: SqlSpec | None, source: Callable[[SqlCall], str], *, mean: str = "join"
) -> str:
    """``SELECT run_id, query_id, value, residual`` for the value spec ``s`` and the residual
    spec ``r`` (residual NULL when ``r`` is None). A residual read from the same macro call
    as the value comes from that one call."""
    if r is None:
        return (
            "SELECT v.run_id, v.query_id, v.value, CAST(NULL AS DOUBLE) AS residual "
            f"FROM ({compose(s, source, mean=mean)}) AS v"
        )
    if isinstance(s, SqlCall) and isinstance(r, SqlCall) and (s.macro, s.args) == (r.macro, r.args):
        return (
            f"SELECT m.run_id, m.query_id, m.{s.column} AS value, m.{r.column} AS residual "
            f"FROM {source(s)} AS m"
        )
    return (
        "SELECT v.run_id, v.query_id, v.value, r.value AS residual "
        f"FROM ({compose(s, source, mean=mean)}) AS v "
        f"LEFT JOIN ({compose(r, source, mean=mean)}) AS r "
        "ON r.run_id = v.run_id AND r.query_id = v.query_id"
    )


def macro_call(c: SqlCall, table: str) -> str:
    """``c`` as a DuckDB macro call on the table named ``table`` (quoted)."""
    args = [table_arg(table)] + [f"{k} := {T.literal(v)}" for k, v in c.args.items()]
    return f"{c.macro}({', '.join(args)})"


def measure_sql(m: Measure, table: str, relevance_level: int = 1) -> str:
    """The DuckDB ``SELECT`` computing measure ``m`` per query on the evaluation table ``table``."""
    return compose(spec(m, relevance_level), lambda c: macro_call(c, table))


def _rendered(eval_table: str, engine: T.Engine) -> Callable[[SqlCall], str]:
    lib = library()

    def source(c: SqlCall) -> str:
        return "(" + T.render(lib[c.macro], lib, c.args, {"eval_table": eval_table}, engine) + ")"

    return source


#: How each rendered engine composes a :class:`SqlMean` (see :func:`compose`).
_MEAN = {"duckdb": "join", "spark": "union", "snowflake": "join"}


def measure_query(s: SqlSpec, eval_table: str, engine: T.Engine = "spark") -> str:
    """``SELECT run_id, query_id, value`` for spec ``s`` over the table ``eval_table``, as
    one standalone query of ``engine``'s SQL."""
    return compose(s, _rendered(eval_table, engine), mean=_MEAN[engine])


def residual_query(
    s: SqlSpec, r: SqlSpec | None, eval_table: str, engine: T.Engine = "spark"
) -> str:
    """``SELECT run_id, query_id, value, residual`` for the value spec ``s`` and the
    residual spec ``r`` (None: residual NULL) over the table ``eval_table``."""
    return compose_residual(s, r, _rendered(eval_table, engine), mean=_MEAN[engine])


def judge_sql(
    tables: Mapping[str, str],
    *,
    max_depth: int | None = None,
    judged_only: bool = False,
    ties: str = "trec_eval",
    missing: str = "skip",
    unjudged: bool = True,
    rank_by: str = "window",
    engine: T.Engine = "spark",
) -> str:
    """The evaluation-table query for ``tables`` (``run_table``, ``qrels_table``) as one
    standalone query of ``engine``'s SQL; ``unjudged=False`` leaves out the unjudged
    retrieved documents, whose judged ones ``rank_by="count"`` ranks by counting (see
    ``ireval_judge``)."""
    lib = library()
    args = {
        "max_depth": max_depth,
        "judged_only": bool(judged_only),
        "ties": ties,
        "missing": "skip" if missing == "error" else missing,
        "unjudged": bool(unjudged),
        "rank_by": rank_by,
    }
    return T.render(lib["ireval_judge"], lib, args, tables, engine)


def aggregate_sql(how: str, column: str = "value") -> str:
    """SQL aggregating a measure's per-query ``column`` over queries, as
    :meth:`polars_ireval.registry.Measure.aggregate` does: the sum for counts, the geometric
    mean with trec_eval's floor, else the mean."""
    if how == "sum":
        return f"SUM({column})"
    if how == "gmean":
        floor = T.literal(float(MIN_GEO_MEAN))
        return f"EXP(AVG(LN(GREATEST({column}, {floor}))))"
    return f"AVG({column})"


# --------------------------------------------------------------------------- the judge


def needs_unjudged(parsed: Iterable[Measure], *, residuals: bool = False) -> bool:
    """Whether the evaluation table must keep the unjudged retrieved documents: as the
    Polars engine decides, when residuals are asked for or a measure depends on them
    (``Measure.needs_unjudged``); otherwise ``ireval_judge(..., unjudged := FALSE)`` builds
    the (much smaller) table of the judged documents only."""
    return residuals or any(m.needs_unjudged for m in parsed)


def condensed(parsed: Iterable[Measure], judged_only: bool) -> list[bool]:
    """Per measure, whether it reads the condensed evaluation table (``ireval_judge(...,
    judged_only := TRUE)``): all of them under ``judged_only``, otherwise those with
    ``judged_only=True`` of their own (ir_measures' per-measure condensing), as the
    Polars engine does."""
    return [bool(judged_only) or m.judged_only for m in parsed]


#: Judgments per judged query (on average) up to which the judge ranks the judged documents
#: by counting the documents ahead of each (``ireval_judge(..., rank_by := 'count')``, a
#: join of each judged retrieved document with its ranking) rather than sorting every
#: ranking (``'window'``). In DuckDB, on 5,000 rankings of 1,000 documents (one score in 32
#: tied) whose judged documents are all retrieved at random ranks, counting takes 32% of the
#: sort's time at 1 judgment a query, 43% at 4, 60% at 8, 89% at 12, 101% at 16 and 132% at
#: 24 (the sort: about 1.05 s for these 5M rows; ``benchmarks/rank_by.py``). The limit stays
#: below the break-even point, where counting gains little and loses fast past it.
SPARSE_JUDGMENTS = 12.0


def rank_by(judgments: int, queries: int, sparse: float | None = None) -> str:
    """``'count'`` for qrels of ``judgments`` rows over ``queries`` judged queries with at
    most ``sparse`` judgments a query on average (default :data:`SPARSE_JUDGMENTS`, the
    engine's own threshold otherwise), else ``'window'``: the ``rank_by`` of
    ``ireval_judge``."""
    limit = SPARSE_JUDGMENTS if sparse is None else sparse
    return "count" if 0 < judgments <= limit * queries else "window"


def judge_options(
    parsed: list[Measure],
    flags: list[bool],
    flag: bool,
    *,
    residuals: bool,
    rank_by: str = "window",
    **options: Any,
) -> dict[str, Any]:
    """The ``ireval_judge`` arguments of the evaluation table for the measures whose
    :func:`condensed` flag is ``flag``: ``options`` (max_depth, ties, missing), that
    ``judged_only``, whether those measures need the unjudged documents, and ``rank_by``
    (which only a table without them can use)."""
    chosen = [m for m, f in zip(parsed, flags, strict=True) if f == flag]
    unjudged = needs_unjudged(chosen, residuals=residuals)
    return {
        **options,
        "judged_only": flag,
        "unjudged": unjudged,
        "rank_by": "window" if unjudged else rank_by,
    }


def with_absent(body: str, value: float, rankings: str, *, residual: bool = False) -> str:
    """``body`` (``run_id, query_id, value[, residual]``) where the rankings that the table
    expression ``rankings`` (``ireval_rankings``: the pairs the run holds) lacks take
    ``value``: a measure's value for a judged query the run lacks under ``missing="zero"``
    (``MeasureDef.absent``; trec_eval -c adds 0 for utility)."""
    extra = ", q.residual" if residual else ""
    return (
        "SELECT q.run_id, q.query_id, CASE WHEN p.query_id IS NULL THEN "
        f"{T.literal(float(value))} ELSE q.value END AS value{extra} FROM ({body}) AS q "
        f"LEFT JOIN {rankings} AS p ON p.run_id = q.run_id AND p.query_id = q.query_id"
    )


__all__ = [
    "aggregate_sql",
    "compose",
    "compose_residual",
    "judge_sql",
    "macro_call",
    "measure_query",
    "measure_sql",
    "residual_query",
    "residual_spec",
    "spec",
    "specs",
]
