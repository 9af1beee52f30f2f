"""What trec_eval prints on stdout for a qrels file and a run file: :func:`trec_eval_text`.

Its keyword options are trec_eval's flags (see :mod:`polars_ireval.trec_eval`); it reads the
files, checks where trec_eval would stop (:mod:`~polars_ireval.trec_eval.stops`), evaluates
the measures the ``-m`` tokens name (:mod:`~polars_ireval.trec_eval.names`) with the
package's engine, reproduces trec_eval's quirks where its output differs from the
library's values (``-nan`` of Rndcg and of an interpolated precision that ``-J`` empties,
``num_rel`` under ``-c``), aggregates (:mod:`~polars_ireval.trec_eval.aggregation`,
:mod:`~polars_ireval.trec_eval.zscores`, :mod:`~polars_ireval.trec_eval.trec10`) and prints
(:mod:`~polars_ireval.trec_eval.output`). ``-R prefs``, ``-R qrels_prefs`` and
``-R qrels_jg`` go to :mod:`~polars_ireval.trec_eval.prefs` and
:mod:`~polars_ireval.trec_eval.qrels_jg`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval._base.collect import collect, small_inputs
from polars_ireval.engines.polars import per_query_frame
from polars_ireval.errors import ParameterError
from polars_ireval.evaluate import evaluate_table
from polars_ireval.io.intake import Inputs, intake
from polars_ireval.io.lines import max_line_bytes
from polars_ireval.io.readers import Scores, read_qrels, read_run
from polars_ireval.judge import judge_and_rankings
from polars_ireval.measures.iprec import needed_relevant
from polars_ireval.registry import REGISTRY, Measure
from polars_ireval.results import long_result
from polars_ireval.trec_eval.aggregation import aggregate
from polars_ireval.trec_eval.names import (
    NUM_Q,
    REL_FORMATS,
    RUNID,
    TREC10_MEASURES,
    VERSIONS,
    trec_families,
    trec_items,
)
from polars_ireval.trec_eval.output import format_trec_eval, relstring_texts
from polars_ireval.trec_eval.stops import check_stops, clear_bogus, with_bogus_rankings
from polars_ireval.trec_eval.trec10 import TREC10_MEANS, trec10_rbp
from polars_ireval.trec_eval.zscores import read_zscores, to_zscores, zscore_summary


def trec_eval_text(
    qrels_path: str,
    run_path: str,
    *,
    measures: str | Sequence[str] | None = None,
    relevance_level: int = 1,
    complete: bool = False,
    judged_only: bool = False,
    max_depth: int | None = None,
    per_query: bool = False,
    summary: bool = True,
    num_docs: int | None = None,
    rel_format: str = "qrels",
    zscores: str | None = None,
    query: str | None = None,
    version: str = "9.0.8",
) -> str:
    """What trec_eval prints on stdout for ``qrels_path`` and ``run_path``.

    Parameters
    ----------
    qrels_path
        The ``rel_info_file``: qrels (``qid iter docno rel``), or what ``rel_format`` says.
    run_path
        The ``results_file`` (``qid Q0 docno rank score tag``; its first tag is ``runid``).
    measures
        ``-m`` arguments (each one or more whitespace-separated tokens); default
        ``official``, as trec_eval without ``-m``.
    relevance_level, complete, judged_only, max_depth, per_query, summary, num_docs
        trec_eval's ``-l``, ``-c``, ``-J``, ``-M``, ``-q``, not ``-n``, ``-N``.
    rel_format
        ``-R``: ``"qrels"`` (default), ``"prefs"``, ``"qrels_prefs"`` or ``"qrels_jg"``.
    zscores
        ``-Z``: a file of ``qid measure mean stddev`` lines; the values printed are then
        z-scores (qrels format only).
    query
        The query of ``-D level.qid``: only it is evaluated.
    version
        The trec_eval whose output to reproduce (:data:`VERSIONS`).

    Returns
    -------
    str
        trec_eval's stdout, byte for byte.

    Raises
    ------
    ParameterError
        An option trec_eval rejects, or one this mode does not support (named by its flag).
    IrevalError
        A measure, the qrels or the run is wrong (see :func:`polars_ireval.read_run`), or
        no query has both results and judgments (trec_eval stops there too).
    """
    specs = _specs(measures)
    _check_choice(rel_format, REL_FORMATS, "-R")
    _check_choice(version, VERSIONS, "--trec_eval_version")
    tokens = [t for s in specs for t in s.split()]
    run_id = first_tag(run_path)
    # trec_eval 9.x stores each score as a C float (``float sim``): 10.0 reads doubles
    scores: Scores = "float64" if version == "10.0" else "float32"
    if rel_format != "qrels":
        if zscores is not None:
            raise ParameterError(f"-Z is not supported with -R {rel_format} yet")
        return _trec_eval_special(
            qrels_path,
            run_path,
            tokens,
            run_id=run_id,
            rel_format=rel_format,
            relevance_level=relevance_level,
            per_query=per_query,
            summary=summary,
            query=query,
            scores=scores,
        )
    items, lengths = trec_items(specs, version)
    items = _configure(items, version=version, num_docs=num_docs)
    wanted = [i for i in items if isinstance(i, Measure)]
    # the intake: read, checked and narrowed to the judge's columns once; what is cut or
    # added below keeps those columns, so the evaluation takes it as it is (Inputs)
    checked = intake(read_run([run_path], run_id="none", scores=scores), read_qrels(qrels_path))
    run, qrels = checked.run, checked.qrels
    assert isinstance(run, pl.DataFrame) and isinstance(qrels, pl.DataFrame)
    z_table = None if zscores is None else read_zscores(zscores)
    if query is not None:
        run = run.filter(pl.col(S.QUERY_ID) == query)
        qrels = qrels.filter(pl.col(S.QUERY_ID) == query)
    grades = qrels.group_by(S.QUERY_ID).agg(pl.col(S.RELEVANCE).max())
    stop = check_stops(
        run[S.QUERY_ID].unique().to_list(),
        dict(grades.iter_rows()),
        list(trec_families(specs, version)),
        version=version,
        complete=complete,
    )
    if stop is not None:
        if per_query and stop.before:  # the -q lines printed before the stop
            keep = pl.col(S.QUERY_ID).is_in(stop.before)
            run, qrels = run.filter(keep), qrels.filter(keep)
            summary = False
        else:
            raise stop
    bogus: list[str] = []
    if version == "10.0" and complete:
        run, bogus = with_bogus_rankings(run, qrels)
    # trec_eval 10.0's rbp and unj_* read the evaluation table itself, relstring its top ranks
    trec10 = any(i in TREC10_MEASURES for i in items)
    options: dict[str, Any] = {
        "missing": "zero" if complete else "skip",
        "max_depth": max_depth,
        "judged_only": judged_only,
    }
    ranked = set(run[S.QUERY_ID].unique().to_list())
    # under -J, what the NaN of an emptied ranking depends on is evaluated beside them
    nan_check = judged_only and bool(wanted)
    computed = [*wanted, *_HIDDEN_STATS] if nan_check else wanted
    table = None
    if trec10 or not wanted:
        unjudged = bool(lengths) or trec10 or any(m.needs_unjudged for m in wanted)
        table = _judged(run, qrels, unjudged=unjudged, **options)
        evaluated = sorted(table[S.QUERY_ID].unique().to_list())
        values = _per_query_values(table, computed, relevance_level, run if complete else None)
    else:  # evaluate's engine: one judgment, each measure on the smallest table it needs
        with small_inputs(run, qrels):  # its queries on the inputs in memory if they are small
            per_q = per_query_frame(  # read (and checked) by the readers above
                Inputs(run, qrels), computed, relevance_level=relevance_level, **options
            )
        values = collect(long_result(per_q, computed, per_query=True), run, qrels)
        evaluated = sorted(values[S.QUERY_ID].unique().to_list())
        if lengths:
            table = _relstring_table(run, qrels, max(lengths.values()), options)
    if nan_check:
        values = _empty_ranking_nan(values, wanted, _HIDDEN_STATS, ranked)
    values = clear_bogus(_rndcg_nan(values, wanted, qrels, relevance_level), bogus)
    totals = aggregate(values, wanted, sorted(ranked))
    if trec10:
        labels = [i for i in items if isinstance(i, str)]
        assert table is not None
        extra = clear_bogus(trec10_rbp(table).filter(pl.col("measure").is_in(labels)), bogus)
        values = pl.concat([values, extra])
        totals = pl.concat([totals, aggregate(extra, TREC10_MEANS)])
    if z_table is not None:
        values = to_zscores(
            values,
            z_table,
            ranked=sorted(ranked),
            gmean=[m.label for m in wanted if m.defn.aggregate == "gmean"],
        )
        totals = zscore_summary(values, {m.label: m.defn.aggregate for m in wanted}, len(evaluated))
    if complete:  # under -Z too: trec_eval overwrites the sum
        totals = _complete_num_rel(totals, qrels)
    shown = evaluated if version == "10.0" and complete else [q for q in evaluated if q in ranked]
    # '' for a shown query with nothing ranked: one the run lacks (10.0 with -c), or one
    # whose every document -J removed; trec_eval prints '' for both
    relstrings = {
        k: {q: "" if k == "relstring" and q in bogus else v.get(q, "") for q in shown}
        for k, v in relstring_texts(table, lengths).items()
    }
    text = format_trec_eval(
        items,
        totals,
        values if per_query else None,
        run_id=run_id,
        num_q=len(evaluated),
        relstrings=relstrings,
        queries=shown,
        show_summary=summary,
        zscore=z_table is not None,
    )
    if stop is not None:
        stop.stdout = text
        raise stop
    return text


def _specs(measures: str | Sequence[str] | None) -> list[str]:
    """The ``-m`` arguments (``official`` without any); one naming no measure is an error."""
    specs = (
        ["official"]
        if measures is None
        else [measures]
        if isinstance(measures, str)
        else list(measures)
    )
    if not specs or any(not spec.split() for spec in specs):
        raise ParameterError("-m '': names no measure; give e.g. -m map or -m official")
    return specs


def _check_choice(value: str, choices: Sequence[str], flag: str) -> None:
    if value not in choices:
        raise ParameterError(f"{flag} {value!r}: expected one of {', '.join(choices)}")


def _configure(items: list[Any], *, version: str, num_docs: int | None) -> list[Any]:
    """Apply ``-N`` (utility's collection size) and the trec_eval version to the measures."""
    out = []
    for item in items:
        if isinstance(item, Measure):
            names = {p.name for p in item.defn.params}
            params = item.params
            if version == "10.0" and "rounding" in names:
                params["rounding"] = "trec_eval10"
            if num_docs is not None and "num_docs" in names:
                params["num_docs"] = num_docs
            if params != item.params:
                item = item.defn.bind(params, label=item.label)
        out.append(item)
    return out


#: What trec_eval's interpolated precision reads of a ranking, evaluated beside the
#: measures asked for under ``-J`` (labels no measure string can take).
_HIDDEN_STATS = [
    REGISTRY["NumRet"].bind({}, label="\x00num_ret"),
    REGISTRY["NumRel"].bind({}, label="\x00num_rel"),
]


def _rndcg_nan(
    per_query: pl.DataFrame, measures: list[Measure], qrels: pl.DataFrame, level: int
) -> pl.DataFrame:
    """trec_eval's ``Rndcg`` of a query with a relevant document (grade >= ``level``) of
    which no judged document gains (``-l 0`` and grade-0 judgments only, or gains of 0):
    its sum of 0 R-levels divided by their number, printed ``-nan``. The library scores it
    0 (docs/compat.md)."""
    for m in measures:
        if m.name != "Rndcg":
            continue
        gains = m.params.get("gains") or {}
        grade = pl.col(S.RELEVANCE)
        gain = pl.col(S.RELEVANCE).cast(pl.Float64)
        for g, v in gains.items():
            gain = pl.when(grade == g).then(pl.lit(float(v))).otherwise(gain)
        undefined = (
            qrels.group_by(S.QUERY_ID)
            .agg(
                ((grade >= level).sum() > 0).alias("relevant"),
                (gain.filter(grade >= 0) > 0).any().alias("gains"),
            )
            .filter(pl.col("relevant") & ~pl.col("gains"))[S.QUERY_ID]
        )
        nan = (pl.col("measure") == m.label) & pl.col(S.QUERY_ID).is_in(undefined.to_list())
        per_query = per_query.with_columns(
            pl.when(nan).then(float("-nan")).otherwise(pl.col("value")).alias("value")
        )
    return per_query


def _empty_ranking_nan(
    per_query: pl.DataFrame, measures: list[Measure], stats: list[Measure], ranked: set[str]
) -> pl.DataFrame:
    """trec_eval's interpolated precision of a ranking that ``-J`` empties (every
    retrieved document unjudged): it divides 0 relevant by 0 retrieved documents, and
    prints ``-nan`` for each recall level asking for no relevant document (x·R rounded
    to 0), and for ``11pt_avg`` when one of its levels does. The library scores such a
    ranking 0 (docs/compat.md); this mode prints what trec_eval prints. ``per_query``
    holds the values of ``measures`` and of ``stats`` (num_ret, num_rel), which go.
    """
    ret, rel = (m.label for m in stats)
    values = per_query.filter(~pl.col("measure").is_in([ret, rel]))
    counts = per_query.filter(pl.col("measure").is_in([ret, rel])).pivot(
        on="measure", index=S.QUERY_ID, values="value"
    )
    empty = (pl.col(ret) == 0) & pl.col(S.QUERY_ID).is_in(sorted(ranked))  # not -c's
    nan = pl.lit(float("-nan"))  # x86's 0/0, which trec_eval prints as -nan
    value = pl.col("value")
    for m in measures:
        if m.name not in ("IPrec", "11pt_avg"):
            continue
        given = {p.name: p.default for p in m.defn.params} | m.params
        levels = (given["recall"],) if m.name == "IPrec" else given["points"]
        rounding = given["rounding"]
        zero = pl.any_horizontal([needed_relevant(x, pl.col(rel), rounding) == 0 for x in levels])
        value = pl.when((pl.col("measure") == m.label) & empty & zero).then(nan).otherwise(value)
    return (
        values.join(counts, on=S.QUERY_ID, how="left", maintain_order="left")
        .with_columns(value.alias("value"))
        .select(values.columns)
    )


def _relstring_table(
    run: pl.DataFrame, qrels: pl.DataFrame, length: int, options: dict[str, Any]
) -> pl.DataFrame:
    """The evaluation table relstring reads: its ``length`` top ranks only, unless ``-J``
    condenses the rankings (their top ranks then come from anywhere in the run)."""
    depth = options["max_depth"]
    if not options["judged_only"]:
        depth = length if depth is None else min(depth, length)
    return _judged(run, qrels, unjudged=True, **{**options, "max_depth": depth})


def _judged(run: pl.DataFrame, qrels: pl.DataFrame, **options: Any) -> pl.DataFrame:
    """The evaluation table of a run and qrels the readers read (checked): nothing is
    checked again."""
    table: pl.DataFrame = judge_and_rankings(Inputs(run, qrels), **options).table
    return table


def first_tag(path: str) -> str:
    """The tag (sixth field) of the first data line of a TREC run: trec_eval's ``runid``.

    Reads only up to that line (blank and ``#`` lines are skipped); ``""`` when the file
    has no such line or is not TREC text (the reader reports what is wrong with it).
    """
    import gzip
    import zlib

    if Path(path).suffix.lower() in (".parquet", ".arrow", ".ipc", ".feather"):
        return ""
    with open(path, "rb") as raw:
        compressed = raw.read(2) == b"\x1f\x8b"
    try:
        with (gzip.open if compressed else open)(path, "rb") as f:
            # a line at most max_line_bytes() at a time (a file without line breaks is not
            # read whole here: the reader says what is wrong with it)
            for line in iter(lambda: f.readline(max_line_bytes()), b""):
                # a carriage return alone ends a line too (old Mac files)
                for part in line.replace(b"\r", b"\n").split(b"\n"):
                    fields = part.decode("utf-8", "replace").split()
                    if fields and not fields[0].startswith("#"):
                        return fields[5] if len(fields) >= 6 else ""
    except (OSError, EOFError, zlib.error):  # corrupt gzip: the reader says what is wrong
        return ""
    return ""


def _complete_num_rel(summary: pl.DataFrame, qrels: pl.DataFrame) -> pl.DataFrame:
    """trec_eval's ``num_rel`` summary under ``-c``: the judgments with a grade >= 1 over
    every query of the qrels, whatever ``-l``, ``-M`` or ``-J`` say (trec_eval 9.0.4 and
    10.0 both print this; checked on the CAsT 2021, RAG 2024 and rel_level references)."""
    total = float(qrels.filter(pl.col(S.RELEVANCE) >= 1).height)
    return summary.with_columns(
        pl.when(pl.col("measure") == "num_rel")
        .then(pl.lit(total))
        .otherwise(pl.col("value"))
        .alias("value")
    )


def _per_query_values(
    table: pl.DataFrame,
    measures: list[Measure],
    level: int,
    run: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """``query_id, measure, value`` of ``measures`` on an evaluation table; with ``run``
    (``-c``), the queries it lacks take the value trec_eval adds for them."""
    if not measures:
        return pl.DataFrame(
            schema={S.QUERY_ID: pl.String, "measure": pl.String, "value": pl.Float64}
        )
    present = None if run is None else run.lazy().select(S.QUERY_ID).unique()
    return evaluate_table(  # a table judge() built: checked already
        table, measures, per_query=True, relevance_level=level, ranked=present, validate=False
    )


def _trec_eval_special(
    qrels_path: str,
    run_path: str,
    tokens: list[str],
    *,
    run_id: str,
    rel_format: str,
    relevance_level: int,
    per_query: bool,
    summary: bool,
    query: str | None,
    scores: Scores,
) -> str:
    """``-R prefs``, ``-R qrels_prefs`` and ``-R qrels_jg``."""
    names = [t for t in tokens if t not in (RUNID, NUM_Q, "official")]
    run = read_run([run_path], run_id="none", scores=scores)
    if query is not None:
        run = run.filter(pl.col(S.QUERY_ID) == query)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if rel_format == "qrels_jg":
            from polars_ireval.trec_eval.qrels_jg import evaluate_jg, read_qrels_jg

            judged = read_qrels_jg(qrels_path)
            values = evaluate_jg(
                run, judged, names or None, per_query=True, relevance_level=relevance_level
            )
            totals = evaluate_jg(run, judged, names or None, relevance_level=relevance_level)
        else:
            from polars_ireval.trec_eval.prefs import evaluate_prefs, read_prefs, read_qrels_prefs

            reader: Callable[[str], pl.DataFrame] = (
                read_prefs if rel_format == "prefs" else read_qrels_prefs
            )
            judged = reader(qrels_path)
            values = evaluate_prefs(run, judged, names or None, per_query=True)
            totals = evaluate_prefs(run, judged, names or None)
    labels = [RUNID, NUM_Q, *totals["measure"].to_list()]
    integers = {m: m.startswith("prefs_num_prefs") for m in labels[2:]}
    queries = values[S.QUERY_ID].unique(maintain_order=True).to_list()
    return format_trec_eval(
        labels,
        totals,
        values if per_query else None,
        run_id=run_id,
        num_q=len(queries),
        queries=queries,
        show_summary=summary,
        integers=integers,
    )
