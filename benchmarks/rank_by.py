"""Where DuckDB's judge should count ranks rather than sort: sql.SPARSE_JUDGMENTS.

``ireval_judge(run, qrels, unjudged := FALSE, rank_by := 'window' | 'count')`` on a run
that DuckDB generates itself: ``--rankings`` rankings of ``--docs`` documents, scores
falling by rank with one rank in 32 tied with the one above, and qrels judging
``--judgments`` documents a query (each a retrieved document at a random rank). For each
number of judgments, both variants build the table ``--repeat`` times in one process, taking
turns; the table gives the fastest time of each, their ratio, and the number of rows on which
the two tables differ (0: same table).

Usage::

    python rank_by.py [--rankings 5000] [--docs 1000] [--judgments 1 4 8 12 16 24] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time

import duckdb

from polars_ireval import sql as irsql

JUDGE = (
    "CREATE OR REPLACE TEMP TABLE ev_{rank_by} AS SELECT * FROM "
    "ireval_judge(run, qrels, unjudged := FALSE, rank_by := '{rank_by}')"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rankings", type=int, default=5000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--judgments", type=int, nargs="+", default=[1, 4, 8, 12, 16, 24])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    con = irsql.load(duckdb.connect())
    con.execute(
        "CREATE TABLE run AS SELECT 'r' AS run_id, 'q' || (i // $docs) AS query_id, "
        "'d' || (i % $docs) || '-' || hash(i) % 997 AS doc_id, "
        "CAST($docs - (i % $docs) + CASE WHEN i % 32 = 0 THEN 1 ELSE 0 END AS DOUBLE) / 7 AS score "
        "FROM range($rows) AS t(i)",
        {"docs": args.docs, "rows": args.rankings * args.docs},
    )
    print(f"{args.rankings:,} rankings x {args.docs:,} documents, DuckDB {duckdb.__version__}\n")
    print("| judgments a query | window s | count s | count / window | rows that differ |")
    print("|---|---|---|---|---|")
    for k in args.judgments:
        con.execute(
            "CREATE OR REPLACE TABLE qrels AS SELECT query_id, doc_id, CAST(1 AS BIGINT) AS "
            "relevance FROM (SELECT query_id, doc_id, row_number() OVER (PARTITION BY query_id "
            "ORDER BY hash(doc_id || 'x')) AS j FROM run) WHERE j <= $k",
            {"k": k},
        )
        best = {"window": float("inf"), "count": float("inf")}
        for _ in range(args.repeat):
            for rank_by in best:
                start = time.perf_counter()
                con.execute(JUDGE.format(rank_by=rank_by))
                best[rank_by] = min(best[rank_by], time.perf_counter() - start)
        differ = con.sql(
            "SELECT count(*) FROM ((SELECT * FROM ev_window EXCEPT ALL SELECT * FROM ev_count) "
            "UNION ALL (SELECT * FROM ev_count EXCEPT ALL SELECT * FROM ev_window))"
        ).fetchall()[0][0]
        ratio = best["count"] / best["window"]
        print(f"| {k} | {best['window']:.3f} | {best['count']:.3f} | {ratio:.2f} | {differ} |")


if __name__ == "__main__":
    main()
