"""SQL for engines we do not run: Trino, BigQuery and Snowflake.

The templates of ``sql/`` are rendered as Spark SQL (:func:`polars_ireval.sql.templates.render`)
and translated by sqlglot into the target dialect. The output is one script: the evaluation
table (``CREATE TABLE evaluation AS`` the judge; a second one, ``evaluation_judged_only``,
when some but not all measures have ``judged_only=True``), then one ``SELECT run_id,
query_id, value`` per measure. ``tests/sql_snapshots/`` holds golden copies (not
executed), regenerated with ``python -m polars_ireval.sql.dialects tests/sql_snapshots``.

Examples
--------
>>> from polars_ireval.sql.dialects import script
>>> text = script(["P@5"], "trino")
>>> text.splitlines()[0]
'-- polars_ireval SQL for trino: the evaluation table, then one query per measure.'
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from polars_ireval import sql as irsql
from polars_ireval.errors import ParameterError
from polars_ireval.parse import MeasureLike, parse_measures
from polars_ireval.sql import quote_backquoted as quote
from polars_ireval.sql import templates as T
from polars_ireval.sql.compile import (
    condensed,
    judge_options,
    judge_sql,
    measure_query,
    spec,
    with_absent,
)

DIALECTS = ("trino", "bigquery", "snowflake")

#: The measures of the golden snapshots: one per macro family and option path.
SNAPSHOT_MEASURES = [
    "P@10",
    "R@100",
    "AP",
    "nDCG@10",
    "nDCG(dcg='exp-log2')@10",
    "RR",
    "Bpref",
    "infAP",
    "IPrec@0.5",
    "Rndcg",
    "RBP(p=0.8)@10",
    "NumRet",
    "DCG(norm='self',gain='exp',discount='log',b=3.0)@10",
    "SDCG(max_rel=3)@10",
    "AP(norm='min',discount='custom',weights=(1.0,0.5))@10",
    "SP",
    "Q",
    "ERR@20",
    "HIT@10",
    "InvSq@10",
    "RBP(ties='average')@10",
    "INST@10",
    "TBG@10",
]


def _translate(text: str, dialect: str) -> str:
    import sqlglot

    return sqlglot.transpile(text, read="spark", write=dialect, pretty=True)[0]


def script(
    measures: MeasureLike | Iterable[MeasureLike],
    dialect: str,
    *,
    run_table: str = "run",
    qrels_table: str = "qrels",
    eval_table: str = "evaluation",
    relevance_level: int = 1,
    **options: Any,
) -> str:
    """The evaluation script for ``dialect`` (``trino``, ``bigquery`` or ``snowflake``).

    ``run_table`` needs columns ``run_id, query_id, doc_id, score``; ``qrels_table``
    ``query_id, doc_id, relevance``. ``options`` are the judge's (``max_depth``,
    ``judged_only``, ``ties``, ``missing``, ``unjudged``, ``rank_by``; ``unjudged`` defaults
    to what :func:`polars_ireval.evaluate` chooses: False, a table of the judged documents
    only, unless a measure depends on the unjudged ones; ``rank_by="count"`` suits sparse
    qrels, see :data:`polars_ireval.sql.SPARSE_JUDGMENTS`). Table names are quoted as
    identifiers.
    """
    if dialect not in DIALECTS:
        raise ParameterError(f"dialect={dialect!r}: must be one of {', '.join(DIALECTS)}")
    parsed = parse_measures(measures)
    given_unjudged = options.pop("unjudged", None)
    flags = condensed(parsed, options.pop("judged_only", False))
    engine: T.Engine = "snowflake" if dialect == "snowflake" else "spark"
    proto = ", ".join(
        f"CAST(NULL AS {t}) AS {c}" for c, t in T.OPTIONAL_RUN_COLUMNS.items() if c != "run_id"
    )
    tables = {
        "run_table": f"(SELECT run_id, query_id, doc_id, score, {proto} FROM {quote(run_table)})",
        "qrels_table": f"(SELECT query_id, doc_id, relevance FROM {quote(qrels_table)})",
    }
    # the table of the measures condensed to judged documents (judged_only) gets a suffix
    # when other measures need the whole ranking
    names = {
        flag: eval_table + ("_judged_only" if flag and not all(flags) else "")
        for flag in sorted(set(flags))
    }
    tables_text = "the evaluation tables" if len(names) > 1 else "the evaluation table"
    parts = [f"-- polars_ireval SQL for {dialect}: {tables_text}, then one query per measure."]
    for flag, name in names.items():
        judge = judge_options(parsed, flags, flag, residuals=False, **options)
        if given_unjudged is not None:
            judge["unjudged"] = given_unjudged
        parts.append(f"CREATE TABLE {quote(name)} AS\n" + judge_sql(tables, engine=engine, **judge))
    lib = irsql.library()
    rankings = "(" + T.render(lib["ireval_rankings"], lib, {}, tables, engine) + ")"
    for m, flag in zip(parsed, flags, strict=True):
        body = measure_query(spec(m, relevance_level), quote(names[flag]), engine)
        if options.get("missing") == "zero" and m.defn.absent is not None:
            body = with_absent(body, m.defn.absent, rankings)
        parts.append(f"-- measure: {m.label}\n{body}")
    out = []
    for i, p in enumerate(parts):
        if i == 0:
            out.append(p)
            continue
        comment, _, sql = p.partition("\n") if p.startswith("--") else ("", "", p)
        text = _translate(sql, dialect) + ";"
        out.append(f"{comment}\n{text}" if comment else text)
    return "\n\n".join(out) + "\n"


def write_snapshots(directory: Path) -> list[Path]:
    """Write ``<dialect>.sql`` for every dialect into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for d in DIALECTS:
        path = directory / f"{d}.sql"
        path.write_text(script(SNAPSHOT_MEASURES, d), encoding="utf-8")
        paths.append(path)
    return paths


if __name__ == "__main__":
    for p in write_snapshots(Path(sys.argv[1] if len(sys.argv) > 1 else "tests/sql_snapshots")):
        print(p)
