r"""trec_eval's text: the lines it prints, and the relstrings of the top ranks.

trec_eval prints one line per (measure, query): ``%-22s\t%s\t%6.4f\n`` (measure name
padded to 22 characters, query id or ``all``, value), counts with ``%ld`` and ``runid`` /
``relstring`` as text. With ``-q`` every query's lines come first (queries in string order,
measures in trec_eval's table order), then the ``all`` lines. ``runid``, ``num_q`` and the
geometric means (``gm_map``, ``gm_bpref``) print only in the summary; ``relstring`` only per
query. :func:`format_trec_eval` turns the long frames of :func:`polars_ireval.evaluate` (or
of the prefs / judgment-group evaluators) into that text; under ``-Z`` every numeric name
gets a ``Z`` in front and every value, counts included, prints with ``%6.4f``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import polars as pl

from polars_ireval._base import schema as S
from polars_ireval.trec_eval.names import NUM_Q, RUNID, Item


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


def relstring_texts(
    table: pl.DataFrame | None, lengths: dict[str, int]
) -> dict[str, dict[str, str]]:
    """``label -> {query_id: text}``: for each relstring label of ``lengths`` (with its
    length ``n``), the grades of each query's top ``n`` ranks of the evaluation ``table``,
    one character a rank (the grade, ``>`` above 9, ``.`` when negative, ``-`` unjudged);
    empty without a table or a relstring."""
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
