-- bpref: (1/R) sum over relevant retrieved d of 1 - min(n_d, R) / min(N, R), where n_d
-- counts judged non-relevant documents ranked above d and N those judged for the query.
CREATE OR REPLACE MACRO ireval_bpref(eval_table, rel) AS TABLE
WITH t AS (
    SELECT run_id, query_id, rank,
        CASE WHEN relevance IS NOT NULL AND relevance >= rel THEN 1 ELSE 0 END AS is_rel,
        CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < rel
            THEN 1 ELSE 0 END AS is_nonrel
    FROM query_table(eval_table::VARCHAR)
    WHERE rank IS NOT NULL
),
above AS (
    SELECT run_id, query_id, rank, is_rel,
        SUM(is_nonrel) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS n_above
    FROM t
),
terms AS (
    SELECT a.run_id, a.query_id, a.rank,
        CASE WHEN a.n_above > 0 THEN
            CAST(1 AS DOUBLE)
            - CAST(CASE WHEN a.n_above < s.num_rel THEN a.n_above ELSE s.num_rel END AS DOUBLE)
            / CAST(CASE WHEN s.num_nonrel < s.num_rel THEN s.num_nonrel ELSE s.num_rel END
                AS DOUBLE)
        ELSE CAST(1 AS DOUBLE) END AS term
    FROM above AS a
    JOIN ireval_stats(eval_table, NULL, rel) AS s
        ON a.run_id = s.run_id AND a.query_id = s.query_id
    WHERE a.is_rel = 1
),
running AS (
    SELECT run_id, query_id,
        SUM(term) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS total,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM terms
)
SELECT s.run_id, s.query_id,
    ireval_ratio(COALESCE(x.total, CAST(0 AS DOUBLE)), s.num_rel) AS value
FROM ireval_stats(eval_table, NULL, rel) AS s
LEFT JOIN running AS x
    ON x.run_id = s.run_id AND x.query_id = s.query_id AND x.from_end = 1;
