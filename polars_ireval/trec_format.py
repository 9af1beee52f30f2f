"""trec_eval's text output, byte for byte (trec_eval 9.0.8 layout).

trec_eval prints one line per (measure, query): ``%-22s\\t%s\\t%6.4f\\n`` (measure name padded
to 22 characters, query id or ``all``, value), counts with ``%ld`` and ``runid`` / ``relstring``
as text. With ``-q`` every query's lines come first (queries in string order, measures in
trec_eval's table order), then the ``all`` lines. ``runid``, ``num_q`` and the geometric means
(``gm_map``, ``gm_bpref``) print only in the summary; ``relstring`` only per query.

:func:`format_trec_eval` turns the long frames of :func:`polars_ireval.evaluate` (or of the
prefs / judgment-group evaluators) into that text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from polars_ireval import schema as S
from polars_ireval.registry import Measure

#: Pseudo measures printed by trec_eval that are not numbers of :func:`evaluate`.
RUNID = "runid"
NUM_Q = "num_q"

#: One output item: a measure, ``"runid"``, ``"num_q"`` or a relstring label.
Item = Measure | str


def format_value(value: float | int | str, integer: bool = False) -> str:
    """A value as trec_eval prints it: ``%ld`` for counts, ``%6.4f`` otherwise, text as is."""
    if isinstance(value, str):
        return value
    if integer:
        return str(round(value))
    return f"{value:6.4f}"


def format_line(name: str, query_id: str, value: float | int | str, integer: bool = False) -> str:
    """One trec_eval output line (with its newline)."""
    return f"{name:<22}\t{query_id}\t{format_value(value, integer)}\n"


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
    """
    relstrings = relstrings or {}
    integers = integers or {}
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
                    out.append(format_line(label, q, v, _integer(item, integers)))
    if show_summary:
        totals = dict(summary.select("measure", "value").iter_rows())
        for item in items:
            label = _label(item)
            if label == RUNID:
                out.append(format_line(RUNID, "all", run_id))
            elif label == NUM_Q:
                out.append(format_line(NUM_Q, "all", num_q, True))
            elif _per_query_only(item, relstrings):
                continue
            elif label in totals and totals[label] is not None:
                out.append(format_line(label, "all", totals[label], _integer(item, integers)))
    return "".join(out)
