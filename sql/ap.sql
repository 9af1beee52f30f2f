-- Average precision (AP, AP@k = map_cut) and R-precision.
-- The precision terms are added in rank order (a running window sum), as trec_eval does.
CREATE OR REPLACE MACRO ireval_ap(eval_table, k, rel) AS TABLE
WITH hits AS (
    SELECT run_id, query_id, rank,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank) AS i
    FROM query_table(eval_table::VARCHAR)
    WHERE rank IS NOT NULL AND (k IS NULL OR rank <= k)
        AND relevance IS NOT NULL AND relevance >= rel
),
running AS (
    SELECT run_id, query_id, rank,
        SUM(CAST(i AS DOUBLE) / CAST(rank AS DOUBLE)) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS total,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM hits
)
SELECT s.run_id, s.query_id,
    ireval_ratio(COALESCE(x.total, CAST(0 AS DOUBLE)), s.num_rel) AS value
FROM ireval_stats(eval_table, NULL, rel) AS s
LEFT JOIN running AS x
    ON x.run_id = s.run_id AND x.query_id = s.query_id AND x.from_end = 1;

CREATE OR REPLACE MACRO ireval_rprec(eval_table, rel) AS TABLE
SELECT run_id, query_id, ireval_ratio(rel_ret_at_r, num_rel) AS value
FROM ireval_stats(eval_table, NULL, rel);
