"""trec_eval, byte for byte: its measure names, order and nicknames, how it aggregates, and
its text output (trec_eval 9.0.8 layout, or 10.0's, or 9.0.4's score precision).

:func:`trec_eval_text` is what ``trec_eval`` prints on stdout for a qrels file and a run
file. Its keyword options are trec_eval's flags; errors about measure tokens and formats
name the flag (``-m P.x: ...``), as trec_eval's users know them:

===================  =======================  ========================================
option               flag                     meaning
===================  =======================  ========================================
``measures``         ``-m``                   measure names with parameters, nicknames
``per_query``        ``-q``                   per-query lines before the ``all`` lines
``summary``          ``-n``                   ``False``: no ``all`` lines
``complete``         ``-c``                   average over every judged query
``relevance_level``  ``-l``                   minimum relevant grade
``judged_only``      ``-J``                   evaluate judged documents only
``max_depth``        ``-M``                   evaluate the top M documents only
``num_docs``         ``-N``                   documents in the collection (utility)
``rel_format``       ``-R``                   qrels, prefs, qrels_prefs or qrels_jg
``zscores``          ``-Z``                   a z-score file: print z-scores
``query``            ``-D level.qid``         evaluate this query only
``version``          ``--trec_eval_version``  9.0.8, 10.0 or 9.0.4 (:data:`VERSIONS`)
===================  =======================  ========================================

**Measures.** A ``-m`` token names a family (``P``), a family with parameters
(``P.5,10``, ``iprec_at_recall..10,.50``), one measure (``P_5``) or a nickname
(:func:`nicknames`: ``official``, ``all_trec``, ``set``; ``prefs``/``all_prefs`` and
``qrels_jg`` with their ``-R`` formats). :func:`trec_items` turns tokens into the output
items in trec_eval's table order (:data:`TREC_ORDER`), its default parameters sorted
ascending; ``relstring`` prints the grades of the top ranks.

**Aggregation.** :func:`aggregate` combines per-query values into the ``all`` line with
each measure's :meth:`polars_ireval.registry.Measure.aggregate` (sum, mean, or geometric
mean, added one query after the other in query order, as trec_eval adds them), except
where trec_eval does otherwise: under ``-c`` a geometric mean adds ``log(1e-5)`` for each
query the run lacks in one step after the others, ``num_rel`` counts every judged
document (:func:`_complete_num_rel`), and ``-Z`` combines z-scores
(:func:`zscore_summary`).

**Text.** trec_eval prints one line per (measure, query): ``%-22s\\t%s\\t%6.4f\\n`` (measure
name padded to 22 characters, query id or ``all``, value), counts with ``%ld`` and ``runid``
/ ``relstring`` as text. With ``-q`` every query's lines come first (queries in string order,
measures in trec_eval's table order), then the ``all`` lines. ``runid``, ``num_q`` and the
geometric means (``gm_map``, ``gm_bpref``) print only in the summary; ``relstring`` only per
query. :func:`format_trec_eval` turns the long frames of :func:`polars_ireval.evaluate` (or
of the prefs / judgment-group evaluators) into that text. Under ``-Z`` every numeric name
gets a ``Z`` in front and every value, counts included, prints with ``%6.4f``:
:func:`read_zscores` reads the z-score file, :func:`to_zscores` converts the per-query
values and :func:`zscore_summary` combines them. :func:`trec10_rbp` computes trec_eval
10.0's ``rbp`` and ``rbp_resid``, which differ from the registry's RBP.

Examples
--------
>>> import polars_ireval as ir
>>> qrels, run = ir.example_path("qrels.txt"), ir.example_path("runs/bm25.run")
>>> print(trec_eval_text(qrels, run, measures=["map P.5", "num_q"]), end="")
num_q                   all  25
map                     all  0.4035
P_5                     all  0.5600
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval._base.collect import collect, small_inputs
from polars_ireval.engines.polars import per_query_frame
from polars_ireval.errors import FormatError, IrevalError, ParameterError
from polars_ireval.evaluate import evaluate_table
from polars_ireval.io.readers import Scores, max_line_bytes, read_qrels, read_run
from polars_ireval.judge import judge
from polars_ireval.measures._expr import exact_div
from polars_ireval.measures.iprec import needed_relevant
from polars_ireval.parse import parse_measures
from polars_ireval.registry import MIN_GEO_MEAN, REGISTRY, TREC, Measure
from polars_ireval.results import long_result

#: Pseudo measures printed by trec_eval that are not numbers of :func:`evaluate`.
RUNID = "runid"
NUM_Q = "num_q"

#: One output item: a measure, ``"runid"``, ``"num_q"`` or a relstring label.
Item = Measure | str

#: The trec_eval versions imitated: 9.0.8 (the default), 10.0, and 9.0.4 (whose output
#: equals 9.0.8's on every input this package has tried: both read scores as 32-bit floats).
VERSIONS = ("9.0.8", "10.0", "9.0.4")


# --------------------------------------------------------------------------- names and order

#: trec_eval 9.0.8's measure table order (the order of its output lines).
TREC_ORDER = [
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
    "relstring",
    "recall",
    "infAP",
    "gm_bpref",
    "Rprec_mult",
    "utility",
    "11pt_avg",
    "binG",
    "G",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    "ndcg_cut",
    "map_cut",
    "relative_P",
    "success",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
]
#: Measures trec_eval 10.0 added to ``all_trec``, after the 9.0.8 ones.
TREC10_ADDED = ["rbp", "rbp_resid", "unj"]
#: trec_eval 10.0's ``rbp`` / ``rbp_resid`` (see :func:`trec10_rbp`).
TREC10_MEASURES = ("rbp", "rbp_resid")
OFFICIAL = [
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
]
SET = [
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "utility",
    "set_P",
    "set_recall",
    "set_relative_P",
    "set_map",
    "set_F",
]
PREFS_NICKNAMES = ("all_prefs", "prefs")
JG_NICKNAMES = ("qrels_jg",)
REL_FORMATS = ("qrels", "prefs", "qrels_prefs", "qrels_jg")


def nicknames(version: str = "9.0.8") -> dict[str, list[str]]:
    """trec_eval's measure nicknames (``-m official`` ...) for ``version``."""
    order = TREC_ORDER + (TREC10_ADDED if version == "10.0" else [])
    return {"official": OFFICIAL, "all_trec": order, "set": SET}


def measure_help(specs: Sequence[str] | None) -> str:
    """The ``Measures:`` part of ``trec_eval -h -m ...``: each named family with its summary
    (empty without ``specs``)."""
    if not specs:
        return ""
    out = ["\nMeasures:\n"]
    for spec in specs:
        for token in spec.split():
            family = _family(token)
            if family in TREC:
                defn = TREC[family][0]
                out.append(f"  {family}: {defn.summary}\n")
            else:
                out.append(f"  {token}\n")
    return "".join(out)


def _family(token: str) -> str:
    """The trec_eval measure a ``-m`` token names (``P.5,10`` and ``P_5`` are ``P``)."""
    if token in TREC or token in TREC10_MEASURES or token.startswith("relstring"):
        return "relstring" if token.startswith("relstring") else token
    base = token.split(".", 1)[0]
    if base in TREC or base in TREC10_MEASURES:
        return base
    for i in range(len(token) - 1, 0, -1):
        if token[i] == "_" and token[:i] in TREC:
            return token[:i]
    return token


def _expand(token: str) -> list[Measure]:
    """Measures of one ``-m`` token, parameters ascending as trec_eval sorts them."""
    if token in TREC:
        _defn, spec = TREC[token]
        if spec.kind == "list" and spec.defaults:
            return parse_measures([f"{token}_{spec.fmt(v)}" for v in spec.defaults])
    found = parse_measures(token)

    def key(m: Measure) -> tuple[int, float]:
        spec = TREC.get(_family(token))
        v = m.params.get(spec[1].param) if spec and spec[1].param else None
        return (0, float(v)) if isinstance(v, (int, float)) else (1, 0.0)

    return sorted(found, key=key)


def _relstring_len(token: str) -> int:
    rest = token[len("relstring") :].lstrip("._")
    if not rest:
        return 10
    try:
        n = int(float(rest))
    except ValueError:
        raise ParameterError(f"-m {token}: {rest!r} is not a number of documents") from None
    if n < 1:
        raise ParameterError(f"-m {token}: the relstring length must be at least 1")
    return n


def trec_families(specs: Sequence[str], version: str = "9.0.8") -> dict[str, list[str]]:
    """The measure families the ``-m`` tokens ask for, in trec_eval's table order (the order
    it computes and prints them), each with its tokens."""
    names = nicknames(version)
    order_all = names["all_trec"]
    families: dict[str, list[str]] = {}
    for spec in specs:
        for token in spec.split():
            if token in PREFS_NICKNAMES or token.startswith("prefs_"):
                raise ParameterError(
                    f"-m {token}: preference measures need preference judgments: "
                    "add -R prefs (a prefs file) or -R qrels_prefs (prefs from the qrels)"
                )
            if token in JG_NICKNAMES or token.endswith("_avgjg"):
                raise ParameterError(f"-m {token}: judgment-group measures need -R qrels_jg")
            for name in names.get(token, [token]):
                families.setdefault(_family(name), []).append(name)
    order = [f for f in order_all if f in families] + [f for f in families if f not in order_all]
    return {f: families[f] for f in order}


def trec_items(specs: Sequence[str], version: str = "9.0.8") -> tuple[list[Any], dict[str, int]]:
    """Output items in trec_eval's table order, and the relstring labels with their length."""
    items: list[Any] = []
    rel: dict[str, int] = {}
    for fam, tokens in trec_families(specs, version).items():
        if any(t != fam for t in tokens):  # explicit parameters replace trec_eval's defaults
            # and, as in trec_eval, the first explicit parameters of a measure win: later
            # ones (-m P.5 -m P.10) are ignored
            tokens = [t for t in tokens if t != fam][:1]
        for token in tokens:
            if fam in (RUNID, NUM_Q) or fam in TREC10_MEASURES:
                if fam not in items:
                    items.append(fam)
            elif fam == "relstring":
                n = _relstring_len(token)
                label = "relstring" if token == "relstring" else f"relstring_{n}"
                rel[label] = n
                if label not in items:
                    items.append(label)
            else:
                try:
                    expanded = _expand(token)
                except IrevalError as e:
                    if token in str(e):
                        raise
                    raise type(e)(f"-m {token}: {e}") from None
                for m in expanded:
                    if all(not isinstance(i, Measure) or i.label != m.label for i in items):
                        items.append(m)
    return items, rel


# --------------------------------------------------------------------------- where trec_eval stops


class TrecEvalStop(IrevalError):
    """trec_eval stops on this input with an error: ``ireval trec_eval`` prints what it
    prints and exits as it exits.

    Attributes
    ----------
    trec_message : str
        trec_eval's line on stderr (``trec_eval: result qid '7' not found in qrels``).
    status : int
        trec_eval's exit status.
    stdout : str
        What trec_eval printed on stdout before it stopped (the ``-q`` lines of the queries
        it had evaluated).
    """

    def __init__(self, explanation: str, trec_message: str, status: int) -> None:
        super().__init__(f"{explanation} ({trec_message!r}, exit status {status})")
        self.trec_message = trec_message
        self.status = status
        self.stdout = ""
        self.before: list[str] = []


def check_stops(
    run_queries: Sequence[str],
    qrels_grades: Mapping[str, int],
    families: Sequence[str],
    *,
    version: str,
    complete: bool,
) -> TrecEvalStop | None:
    """Where trec_eval stops on this input instead of printing results.

    trec_eval evaluates the queries in string order: 9.x those the run and the qrels share,
    10.0 every query of the qrels (a query the run lacks is an error without ``-c``: ``result
    qid 'X' not found in qrels``, exit 4). Each query's judgments go through one buffer of
    ``highest grade + 1`` counters (``form_res_rels.c``), allocated at the first query and
    grown when a later one needs more: a first query whose grades are all negative finds
    no buffer (``Can't calculate measure 'M'``, M the first measure asked for after
    ``runid`` and ``num_q``, exit 4); a later query whose grades are all -2 or below clears
    a negative number of counters, and trec_eval crashes (a segmentation fault, no output):
    that input raises :class:`IrevalError` here, since nothing can be reproduced.

    Parameters
    ----------
    run_queries
        The queries of the run.
    qrels_grades
        Each query of the qrels with its highest grade.
    families
        The measure families asked for, in trec_eval's table order (:func:`trec_families`).
    version, complete
        The trec_eval version and ``-c``.

    Returns
    -------
    TrecEvalStop or None
        The stop (its ``before``: the queries evaluated before it), or None.
    """
    in_run = set(run_queries)
    if version == "10.0":
        order = sorted(qrels_grades)
    else:
        order = sorted(q for q in in_run if q in qrels_grades)
    calc = next((f for f in families if f not in (RUNID, NUM_Q)), None)
    for i, q in enumerate(order):
        if q not in in_run and not complete:
            stop = TrecEvalStop(
                f"trec_eval 10.0 stops at query {q!r}, judged but not in the run "
                "(9.x skips it; -c evaluates it as an empty ranking)",
                f"trec_eval: result qid '{q}' not found in qrels",
                4,
            )
            stop.before = order[:i]
            return stop
        if calc is None:
            continue
        top = qrels_grades[q]
        if i == 0 and top < 0:
            return TrecEvalStop(
                f"trec_eval {version} stops at its first query {q!r}, whose judgments are all "
                f"negative (highest grade {top}): judge a document of it 0 or more",
                f"trec_eval: Can't calculate measure '{calc}'",
                4,
            )
        if top < -1:
            raise IrevalError(
                f"query {q!r}: every judgment of it is below -1 (highest grade {top}); "
                f"trec_eval {version} crashes on such a query after the first (a segmentation "
                "fault, no output), so there is nothing to reproduce: judge a document of it "
                "-1 or more, or remove its judgments"
            )
    if not order:  # 9.x only: 10.0 stops at the first query above or evaluates it (-c)
        return TrecEvalStop(
            "no query has both results and judgments; check that the files belong together",
            "trec_eval: No queries with both results and relevance info",
            7,
        )
    return None


# --------------------------------------------------------------------------- evaluation


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
    run = read_run([run_path], run_id="none", scores=scores)
    qrels = read_qrels(qrels_path)
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
        run, bogus = _with_bogus_rankings(run, qrels)
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
        table = judge(run, qrels, unjudged=unjudged, **options)
        evaluated = sorted(table[S.QUERY_ID].unique().to_list())
        values = _per_query_values(table, computed, relevance_level, run if complete else None)
    else:  # evaluate's engine: one judgment, each measure on the smallest table it needs
        with small_inputs(run, qrels):  # its queries on the inputs in memory if they are small
            per_q = per_query_frame(
                run, qrels, computed, relevance_level=relevance_level, **options
            )
        values = collect(long_result(per_q, computed, per_query=True), run, qrels)
        evaluated = sorted(values[S.QUERY_ID].unique().to_list())
        if lengths:
            table = _relstring_table(run, qrels, max(lengths.values()), options)
    if nan_check:
        values = _empty_ranking_nan(values, wanted, _HIDDEN_STATS, ranked)
    values = _clear_bogus(_rndcg_nan(values, wanted, qrels, relevance_level), bogus)
    totals = aggregate(values, wanted, sorted(ranked))
    if trec10:
        labels = [i for i in items if isinstance(i, str)]
        assert table is not None
        extra = _clear_bogus(trec10_rbp(table).filter(pl.col("measure").is_in(labels)), bogus)
        values = pl.concat([values, extra])
        totals = pl.concat([totals, aggregate(extra, _TREC10_MEANS)])
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
        for k, v in _relstrings(table, lengths).items()
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


#: The document trec_eval 10.0 ranks (score 1) for a query the run lacks, under ``-c``.
BOGUS_DOC = "ceci_nest_pas_un_docno"


def _with_bogus_rankings(run: pl.DataFrame, qrels: pl.DataFrame) -> tuple[pl.DataFrame, list[str]]:
    """trec_eval 10.0 under ``-c``: each query of the qrels that the run lacks is evaluated
    as a ranking of one unjudged document, :data:`BOGUS_DOC` (``trec_eval.c``); returns the
    run with those rankings and their queries."""
    lacking = sorted(set(qrels[S.QUERY_ID].unique().to_list()) - set(run[S.QUERY_ID].to_list()))
    rows = pl.DataFrame({S.QUERY_ID: lacking, S.DOC_ID: BOGUS_DOC, S.SCORE: 1.0}).select(
        pl.col(c).cast(t) if c in (S.QUERY_ID, S.DOC_ID, S.SCORE) else pl.lit(None, t).alias(c)
        for c, t in run.schema.items()
    )
    return pl.concat([run, rows]), lacking


def _clear_bogus(values: pl.DataFrame, bogus: Sequence[str]) -> pl.DataFrame:
    """What trec_eval 10.0 sets to 0 after evaluating a ranking of :data:`BOGUS_DOC`: the
    values named exactly ``num_ret``, ``utility`` or ``rbp_resid``, and ``unj*`` (it compares
    names, so ``utility_2,-1,0,0`` keeps the bogus document's value)."""
    if not bogus:
        return values
    m = pl.col("measure")
    named = m.is_in(["num_ret", "utility", "rbp_resid"]) | m.str.starts_with("unj")
    clear = named & pl.col(S.QUERY_ID).is_in(list(bogus))
    return values.with_columns(pl.when(clear).then(0.0).otherwise(pl.col("value")).alias("value"))


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
    return judge(run, qrels, unjudged=True, **{**options, "max_depth": depth})


def _relstrings(table: pl.DataFrame | None, lengths: dict[str, int]) -> dict[str, dict[str, str]]:
    if table is None or not lengths:
        return {}
    ranked = table.filter(pl.col(S.RANK).is_not_null()).sort(S.QUERY_ID, S.RANK)
    rel = pl.col(S.RELEVANCE)
    char = (
        pl.when(rel.is_null())
        .then(pl.lit("-"))
        .when(rel < 0)
        .then(pl.lit("."))
        .when(rel > 9)
        .then(pl.lit(">"))
        .otherwise(rel.cast(pl.Int64).cast(pl.String))
    )
    out: dict[str, dict[str, str]] = {}
    for label, n in lengths.items():
        strings = (
            ranked.filter(pl.col(S.RANK) <= n)
            .group_by(S.QUERY_ID, maintain_order=True)
            .agg(char.str.join(""))
        )
        out[label] = dict(strings.iter_rows())
    return out


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


# --------------------------------------------------------------------------- aggregation

#: trec_eval 10.0's ``rbp`` and ``rbp_resid`` are means over the queries, as the registry's
#: RBP is: bound to their labels, RBP's declaration tells :func:`aggregate` how to combine
#: them (their values come from :func:`trec10_rbp`).
_TREC10_MEANS = [REGISTRY["RBP"].bind({}, label=name) for name in ("rbp", "rbp_resid")]


def aggregate(
    per_query: pl.DataFrame, measures: Sequence[Measure], ranked: Sequence[str] | None = None
) -> pl.DataFrame:
    """``measure, value``: per-query values combined exactly as trec_eval combines them.

    Each measure combines its values with :meth:`polars_ireval.registry.Measure.aggregate`,
    the library's one definition of trec_eval's aggregates: the sum (counts), or the mean
    or geometric mean, ``exp(Σ log(max(v, 1e-5)) / n)``, whose sum adds the values one
    after the other in query order as trec_eval does (a pairwise sum can miss its rounding
    at the 4th decimal). trec_eval's one exception: under ``-c``, a geometric mean counts
    ``log(1e-5)`` for each query the run lacks (not in ``ranked``), added in one step after
    the sum of the others, which is not what adding them in query order gives.

    Parameters
    ----------
    per_query
        ``query_id, measure, value``, queries in trec_eval's (string) order; every measure
        label is one of ``measures``'.
    measures
        The measures, whose declarations say how their values combine.
    ranked
        The queries the run ranks (default: all of ``per_query``'s).

    Examples
    --------
    >>> import polars as pl, polars_ireval as ir
    >>> gm = ir.parse_measure("gm_map")
    >>> values = pl.DataFrame({"query_id": ["1", "2", "3"], "measure": "gm_map",
    ...                        "value": [0.5, 0.2, 0.0]})
    >>> round(aggregate(values, [gm])["value"].item(), 6)  # (0.5 · 0.2 · 1e-5) ** (1/3)
    0.01
    >>> round(aggregate(values, [gm], ranked=["1", "2"])["value"].item(), 6)  # -c adds "3"
    0.01
    """
    labels = per_query["measure"].unique(maintain_order=True).to_list()
    if not labels:
        return pl.DataFrame(schema={"measure": pl.String, "value": pl.Float64})
    by_label = {m.label: m for m in measures}
    lacking = ranked is not None and not per_query[S.QUERY_ID].is_in(list(ranked)).all()
    exprs = []
    for label in labels:
        m = by_label.get(label)
        if m is None:
            raise ParameterError(f"aggregate: the values of {label!r} come with no measure")
        mine = pl.col("measure") == label
        values = pl.col("value").filter(mine)
        if lacking and m.defn.aggregate == "gmean":
            assert ranked is not None
            in_run = pl.col(S.QUERY_ID).filter(mine).is_in(list(ranked))
            value = _complete_gmean(values, in_run)
        else:
            value = m.aggregate(values)
        exprs.append(value.cast(pl.Float64).alias(label))
    return per_query.select(exprs).unpivot(variable_name="measure", value_name="value")


def _complete_gmean(values: pl.Expr, in_run: pl.Expr) -> pl.Expr:
    """trec_eval's geometric mean under ``-c``: ``exp((Σ_ranked log(max(v, 1e-5)) + k ·
    log(1e-5)) / n)`` for the ``k`` of the ``n`` queries the run lacks, the sum of the
    ranked ones taken in query order first."""
    log_sum = values.clip(lower_bound=MIN_GEO_MEAN).log().filter(in_run).cum_sum().last()
    missing = (~in_run).sum().cast(pl.Float64) * math.log(MIN_GEO_MEAN)
    n = values.len().cast(pl.Float64)
    return ((log_sum.fill_null(0.0) + missing) / n).exp()


# --------------------------------------------------------------------------- text output


def format_value(value: float | int | str, integer: bool = False) -> str:
    """A value as trec_eval prints it: ``%ld`` for counts, ``%6.4f`` otherwise, text as is."""
    if isinstance(value, str):
        return value
    if integer:
        return str(round(value))
    if math.isnan(value):  # C's printf shows the sign bit of a NaN (x86's 0/0 is -nan)
        return ("-nan" if math.copysign(1.0, value) < 0 else "nan").rjust(6)
    return f"{value:6.4f}"


def format_line(
    name: str, query_id: str, value: float | int | str, integer: bool = False, prefix: str = ""
) -> str:
    r"""One trec_eval output line (with its newline); ``prefix`` is ``"Z"`` under ``-Z``.

    >>> format_line("P_5", "301", 0.4)
    'P_5                   \t301\t0.4000\n'
    >>> format_line("num_ret", "all", -5.22587, prefix="Z")
    'Znum_ret               \tall\t-5.2259\n'
    """
    return f"{prefix}{name:<22}\t{query_id}\t{format_value(value, integer)}\n"


def _label(item: Item) -> str:
    return item if isinstance(item, str) else item.label


def _integer(item: Item, integers: Mapping[str, bool]) -> bool:
    if isinstance(item, str):
        return integers.get(item, item == NUM_Q)
    return item.defn.integer


def _per_query_only(item: Item, relstrings: Mapping[str, Mapping[str, str]]) -> bool:
    return isinstance(item, str) and item in relstrings


def _summary_only(item: Item) -> bool:
    if isinstance(item, str):
        return item in (RUNID, NUM_Q)
    return item.defn.aggregate == "gmean"


def format_trec_eval(
    items: Sequence[Item],
    summary: pl.DataFrame,
    per_query: pl.DataFrame | None = None,
    *,
    run_id: str = "",
    num_q: int = 0,
    relstrings: Mapping[str, Mapping[str, str]] | None = None,
    queries: Sequence[str] | None = None,
    show_summary: bool = True,
    integers: Mapping[str, bool] | None = None,
    zscore: bool = False,
) -> str:
    """trec_eval's stdout for one run.

    Parameters
    ----------
    items
        What to print, in order: :class:`Measure` objects, ``"runid"``, ``"num_q"``, or the
        labels of ``relstrings`` / of extra string-labelled measures (prefs, qrels_jg).
    summary
        ``measure, value`` (the ``all`` values).
    per_query
        ``query_id, measure, value`` (``-q``), or None.
    run_id, num_q
        The ``runid`` and ``num_q`` summary values.
    relstrings
        ``label -> {query_id: text}`` for relstring measures (printed per query only).
    queries
        The queries whose per-query lines are printed (default: every query of ``per_query``).
    show_summary
        Print the ``all`` lines (trec_eval ``-n`` turns them off).
    integers
        For string items: whether the value is a count.
    zscore
        The values are z-scores (trec_eval ``-Z``): every numeric line gets a ``Z`` before
        its name and prints with ``%6.4f``, counts and ``num_q`` included.
    """
    relstrings = relstrings or {}
    integers = integers or {}
    prefix = "Z" if zscore else ""

    def is_int(item: Item) -> bool:
        return not zscore and _integer(item, integers)

    out: list[str] = []
    if per_query is not None:
        values: dict[tuple[str, str], float] = {
            (q, m): v for q, m, v in per_query.select(S.QUERY_ID, "measure", "value").iter_rows()
        }
        if queries is None:
            queries = per_query[S.QUERY_ID].unique(maintain_order=True).to_list()
        for q in queries:
            for item in items:
                label = _label(item)
                if _summary_only(item):
                    continue
                if label in relstrings:
                    text = relstrings[label].get(q)
                    if text is not None:
                        out.append(format_line(label, q, f"'{text}'"))
                    continue
                v = values.get((q, label))
                if v is not None:
                    out.append(format_line(label, q, v, is_int(item), prefix))
    if show_summary:
        totals = dict(summary.select("measure", "value").iter_rows())
        for item in items:
            label = _label(item)
            if label == RUNID:
                out.append(format_line(RUNID, "all", run_id))
            elif label == NUM_Q:
                out.append(format_line(NUM_Q, "all", num_q, not zscore, prefix))
            elif _per_query_only(item, relstrings):
                continue
            elif label in totals and totals[label] is not None:
                out.append(format_line(label, "all", totals[label], is_int(item), prefix))
    return "".join(out)


# --------------------------------------------------------------------------- z-scores (-Z)

#: What trec_eval prints for a z-score it cannot compute (``MISSING_ZSCORE_VALUE``).
MISSING_ZSCORE = -1000000.0
ZSCORE_SCHEMA = {
    S.QUERY_ID: pl.String,
    "measure": pl.String,
    "mean": pl.Float64,
    "stddev": pl.Float64,
}


def read_zscores(path: str) -> pl.DataFrame:
    """Read a trec_eval z-score file: lines ``qid measure mean stddev``.

    Fields are separated by any whitespace; ``nan`` is a valid number (trec_eval's own test
    file uses it). Blank lines are skipped. A line with another number of fields, a value
    that is not a number, or a (query, measure) given twice raises :class:`FormatError`
    naming the file and line.

    Returns
    -------
    polars.DataFrame
        ``query_id, measure, mean, stddev``.
    """
    with open(path, encoding="utf-8", errors="strict") as f:
        text = f.read()
    lines = pl.DataFrame({"text": text.splitlines()}, schema={"text": pl.String})
    lines = lines.with_row_index("line", offset=1).filter(pl.col("text").str.strip_chars() != "")
    parts = lines.select(
        "line", pl.col("text").str.strip_chars().str.extract_all(r"\S+").alias("f")
    )
    bad = parts.filter(pl.col("f").list.len() != 4).head(1)
    if bad.height:
        line, got = bad["line"][0], bad["f"][0].to_list()
        raise FormatError(
            path,
            line,
            f"expected 4 fields 'qid measure mean stddev', found {len(got)}: {got}; "
            "fields are separated by spaces or tabs",
        )
    table = parts.select(
        "line",
        pl.col("f").list.get(0).alias(S.QUERY_ID),
        pl.col("f").list.get(1).alias("measure"),
        pl.col("f").list.get(2).alias("mean_text"),
        pl.col("f").list.get(3).alias("stddev_text"),
    ).with_columns(
        pl.col("mean_text").str.to_lowercase().cast(pl.Float64, strict=False).alias("mean"),
        pl.col("stddev_text").str.to_lowercase().cast(pl.Float64, strict=False).alias("stddev"),
    )
    for col in ("mean", "stddev"):
        bad = table.filter(pl.col(col).is_null()).head(1)
        if bad.height:
            raise FormatError(
                path,
                bad["line"][0],
                f"{col} {bad[col + '_text'][0]!r} is not a number; each line must be "
                "'qid measure mean stddev' with decimal numbers such as 0.25 (or nan)",
            )
    dup = table.filter(~pl.struct(S.QUERY_ID, "measure").is_first_distinct()).head(1)
    if dup.height:
        raise FormatError(
            path,
            dup["line"][0],
            f"query {dup[S.QUERY_ID][0]!r}, measure {dup['measure'][0]!r} is given twice; "
            "keep one line per query and measure",
        )
    if table.height == 0:
        raise FormatError(path, None, "the z-score file holds no 'qid measure mean stddev' line")
    return table.select(list(ZSCORE_SCHEMA))


def to_zscores(
    per_query: pl.DataFrame,
    zscores: pl.DataFrame,
    *,
    ranked: Sequence[str],
    gmean: Sequence[str] = (),
) -> pl.DataFrame:
    """Per-query values as trec_eval ``-Z`` turns them into z-scores.

    For a query the run ranks, the value ``v`` of a measure becomes ``(v - mean) / stddev``
    with the mean and standard deviation the z-score file gives for that query and measure;
    when the standard deviation is 0, ``0`` if ``v`` equals the mean and ``-1000000``
    otherwise; ``-1000000`` when the file has no line for them. Geometric-mean measures
    (``gmean`` labels) are converted from ``log(max(v, 1e-5))``, the value trec_eval stores
    for them. Queries scored only because of ``-c`` (not in ``ranked``) stay unconverted:
    0, or ``log(1e-5)`` for geometric means, as trec_eval adds them when averaging.

    Parameters
    ----------
    per_query
        ``query_id, measure, value``.
    zscores
        From :func:`read_zscores`.
    ranked
        The queries the run ranks.
    gmean
        Labels of measures averaged geometrically.
    """
    value = pl.col("value")
    is_gm = pl.col("measure").is_in(list(gmean))
    raw = pl.when(is_gm).then(value.clip(lower_bound=MIN_GEO_MEAN).log()).otherwise(value)
    mean, std = pl.col("mean"), pl.col("stddev")
    z = (
        pl.when(~pl.col(S.QUERY_ID).is_in(list(ranked)))
        .then(pl.when(is_gm).then(pl.lit(math.log(MIN_GEO_MEAN))).otherwise(0.0))
        .when(mean.is_null())
        .then(MISSING_ZSCORE)
        .when(std.is_nan() | (std != 0))
        .then((raw - mean) / std)
        .when(raw == mean)
        .then(0.0)
        .otherwise(MISSING_ZSCORE)
    )
    return per_query.join(zscores, on=[S.QUERY_ID, "measure"], how="left").select(
        S.QUERY_ID, "measure", z.alias("value")
    )


def zscore_summary(
    zvalues: pl.DataFrame, aggregates: Mapping[str, str], num_queries: int
) -> pl.DataFrame:
    """The ``all`` lines under ``-Z``: each measure's z-scores combined as trec_eval does.

    ``sum`` measures add them up; ``mean`` measures divide the sum by ``num_queries``
    (every evaluated query; with ``-c`` every judged query); ``gmean`` measures take
    ``exp(sum / num_queries)`` of the converted logarithms.
    """
    kind = pl.col("measure").replace_strict(aggregates, default="mean")
    total = zvalues.group_by("measure", maintain_order=True).agg(
        pl.col("value").cum_sum().last().alias("total")  # sequential, as trec_eval adds
    )
    n = float(max(num_queries, 1))
    return total.select(
        "measure",
        pl.when(kind == "sum")
        .then(pl.col("total"))
        .when(kind == "gmean")
        .then(exact_div(pl.col("total"), n).exp())
        .otherwise(exact_div(pl.col("total"), n))
        .alias("value"),
    )


# --------------------------------------------------------------------------- trec_eval 10.0

#: trec_eval 10.0's persistence for ``rbp`` and ``rbp_resid`` (fixed in its sources).
TREC10_RBP_P = 0.9


def trec10_rbp(table: pl.DataFrame, p: float = TREC10_RBP_P) -> pl.DataFrame:
    """trec_eval 10.0's ``rbp`` and ``rbp_resid`` per query, from an evaluation table.

    They differ from ``RBP`` / ``RBP_resid`` of the registry, so they are computed here:

    * ``rbp`` = (1 - p) Σ_i g_i p^(i-1) with graded gains: a judged grade ``r >= 0`` gains
      ``r / G``, where ``G`` is the query's highest grade when it exceeds 1 (else 1);
      unjudged documents and negative grades gain 0. ``-l`` plays no part.
    * ``rbp_resid`` = p^n + (1 - p) Σ_{i unjudged} p^(i-1) over the ``n`` ranked documents,
      where negative grades count as unjudged; 0 when no ranked document is unjudged.

    Parameters
    ----------
    table
        From :func:`polars_ireval.judge` (one run).
    p
        Persistence; trec_eval 10.0 fixes it to 0.9.

    Returns
    -------
    polars.DataFrame
        ``query_id, measure, value`` with measures ``rbp`` and ``rbp_resid``.
    """
    rank, rel = pl.col(S.RANK), pl.col(S.RELEVANCE)
    ranked = rank.is_not_null()
    # trec_eval's arithmetic, in its order: p^(i-1) as a running product (cur_p *= p), the
    # sums added rank after rank (a power or a pairwise sum moves the 4th decimal of a mean)
    steps = pl.lit(p, pl.Float64).repeat_by(ranked.sum()).explode()
    after = steps.cum_prod()  # p^i after rank i
    before = pl.lit(1.0).append(after).head(ranked.sum())  # p^(i-1) at rank i
    top = pl.max_horizontal(rel.max().cast(pl.Float64), pl.lit(1.0))
    in_order = rel.filter(ranked).sort_by(rank.filter(ranked))
    gains = pl.when(in_order >= 0).then(in_order.cast(pl.Float64)).otherwise(0.0) / top
    unjudged = in_order.is_null() | (in_order < 0)
    wide = table.group_by(S.QUERY_ID).agg(
        ((1.0 - p) * (gains * before).cum_sum().last().fill_null(0.0)).alias("rbp"),
        pl.when(unjudged.any())
        .then(
            after.last()
            + (1.0 - p) * pl.when(unjudged).then(before).otherwise(0.0).cum_sum().last()
        )
        .otherwise(0.0)
        .alias("rbp_resid"),
    )
    return wide.unpivot(
        index=S.QUERY_ID, on=["rbp", "rbp_resid"], variable_name="measure", value_name="value"
    ).sort(S.QUERY_ID, maintain_order=True)
