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
document, and ``-Z`` combines z-scores (:func:`zscore_summary`).

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

**Modules.** :mod:`~polars_ireval.trec_eval.text` (:func:`trec_eval_text`, which reads the
files and calls the others), :mod:`~polars_ireval.trec_eval.names` (names, order,
nicknames), :mod:`~polars_ireval.trec_eval.stops` (where trec_eval stops),
:mod:`~polars_ireval.trec_eval.aggregation`, :mod:`~polars_ireval.trec_eval.output` (the
text), :mod:`~polars_ireval.trec_eval.zscores` (``-Z``), :mod:`~polars_ireval.trec_eval.trec10`
(10.0's ``rbp``), and the ``-R`` formats :mod:`~polars_ireval.trec_eval.prefs` and
:mod:`~polars_ireval.trec_eval.qrels_jg`.

Examples
--------
>>> import polars_ireval as ir
>>> qrels, run = ir.example_path("qrels.txt"), ir.example_path("runs/bm25.run")
>>> print(trec_eval_text(qrels, run, measures=["map P.5", "num_q"]), end="")
num_q                   all  25
map                     all  0.4035
P_5                     all  0.5600
"""

from polars_ireval.trec_eval.aggregation import aggregate
from polars_ireval.trec_eval.names import (
    JG_NICKNAMES,
    NUM_Q,
    OFFICIAL,
    PREFS_NICKNAMES,
    REL_FORMATS,
    RUNID,
    SET,
    TREC10_ADDED,
    TREC10_MEASURES,
    TREC_ORDER,
    VERSIONS,
    Item,
    measure_help,
    nicknames,
    trec_families,
    trec_items,
)
from polars_ireval.trec_eval.output import format_line, format_trec_eval, format_value
from polars_ireval.trec_eval.stops import BOGUS_DOC, TrecEvalStop, check_stops
from polars_ireval.trec_eval.text import first_tag, trec_eval_text
from polars_ireval.trec_eval.trec10 import TREC10_RBP_P, trec10_rbp
from polars_ireval.trec_eval.zscores import (
    MISSING_ZSCORE,
    ZSCORE_SCHEMA,
    read_zscores,
    to_zscores,
    zscore_summary,
)

__all__ = [
    "BOGUS_DOC",
    "JG_NICKNAMES",
    "MISSING_ZSCORE",
    "NUM_Q",
    "OFFICIAL",
    "PREFS_NICKNAMES",
    "REL_FORMATS",
    "RUNID",
    "SET",
    "TREC10_ADDED",
    "TREC10_MEASURES",
    "TREC10_RBP_P",
    "TREC_ORDER",
    "VERSIONS",
    "ZSCORE_SCHEMA",
    "Item",
    "TrecEvalStop",
    "aggregate",
    "check_stops",
    "first_tag",
    "format_line",
    "format_trec_eval",
    "format_value",
    "measure_help",
    "nicknames",
    "read_zscores",
    "to_zscores",
    "trec10_rbp",
    "trec_eval_text",
    "trec_families",
    "trec_items",
    "zscore_summary",
]
