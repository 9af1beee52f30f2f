"""Where trec_eval stops on its input instead of printing results (:func:`check_stops`,
:class:`TrecEvalStop`), and trec_eval 10.0's ranking of one bogus document for a query the
run lacks under ``-c`` (:data:`BOGUS_DOC`, :func:`with_bogus_rankings`, :func:`clear_bogus`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval.errors import IrevalError
from polars_ireval.trec_eval.names import NUM_Q, RUNID


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


#: The document trec_eval 10.0 ranks (score 1) for a query the run lacks, under ``-c``.
BOGUS_DOC = "ceci_nest_pas_un_docno"


def with_bogus_rankings(run: pl.DataFrame, qrels: pl.DataFrame) -> tuple[pl.DataFrame, list[str]]:
    """trec_eval 10.0 under ``-c``: each query of the qrels that the run lacks is evaluated
    as a ranking of one unjudged document, :data:`BOGUS_DOC` (``trec_eval.c``); returns the
    run with those rankings and their queries."""
    lacking = sorted(set(qrels[S.QUERY_ID].unique().to_list()) - set(run[S.QUERY_ID].to_list()))
    rows = pl.DataFrame({S.QUERY_ID: lacking, S.DOC_ID: BOGUS_DOC, S.SCORE: 1.0}).select(
        pl.col(c).cast(t) if c in (S.QUERY_ID, S.DOC_ID, S.SCORE) else pl.lit(None, t).alias(c)
        for c, t in run.schema.items()
    )
    return pl.concat([run, rows]), lacking


def clear_bogus(values: pl.DataFrame, bogus: Sequence[str]) -> pl.DataFrame:
    """What trec_eval 10.0 sets to 0 after evaluating a ranking of :data:`BOGUS_DOC`: the
    values named exactly ``num_ret``, ``utility`` or ``rbp_resid``, and ``unj*`` (it compares
    names, so ``utility_2,-1,0,0`` keeps the bogus document's value)."""
    if not bogus:
        return values
    m = pl.col("measure")
    named = m.is_in(["num_ret", "utility", "rbp_resid"]) | m.str.starts_with("unj")
    clear = named & pl.col(S.QUERY_ID).is_in(list(bogus))
    return values.with_columns(pl.when(clear).then(0.0).otherwise(pl.col("value")).alias("value"))
