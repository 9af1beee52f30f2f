-- ireval_stats(eval_table, k, rel): per (run_id, query_id) counts that the simple
-- measures divide. k NULL means no cutoff; rel is the minimum relevant grade.
CREATE OR REPLACE MACRO ireval_stats(eval_table, k, rel) AS TABLE
WITH t AS (
    SELECT
        run_id,
        query_id,
        rank,
        relevance,
        CASE WHEN rank IS NOT NULL THEN 1 ELSE 0 END AS is_ret,
        CASE WHEN rank IS NOT NULL AND (k IS NULL OR rank <= k) THEN 1 ELSE 0 END AS is_ret_k,
        CASE WHEN relevance IS NOT NULL AND relevance >= rel THEN 1 ELSE 0 END AS is_rel,
        CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < rel
            THEN 1 ELSE 0 END AS is_nonrel
    FROM query_table(eval_table::VARCHAR)
),
r AS (
    SELECT t.*, SUM(is_rel) OVER (PARTITION BY run_id, query_id) AS num_rel_all FROM t
)
SELECT
    run_id,
    query_id,
    SUM(is_ret) AS num_ret,
    SUM(is_ret_k) AS num_ret_k,
    SUM(is_rel) AS num_rel,
    SUM(is_ret * is_rel) AS rel_ret,
    SUM(is_ret_k * is_rel) AS rel_ret_k,
    SUM(is_nonrel) AS num_nonrel,
    SUM(is_ret * is_nonrel) AS nonrel_ret,
    SUM(CASE WHEN is_ret_k = 1 AND relevance IS NOT NULL THEN 1 ELSE 0 END) AS judged_k,
    SUM(CASE WHEN is_ret_k = 1 AND (relevance IS NULL OR relevance < 0)
        THEN 1 ELSE 0 END) AS unjudged_k,
    MIN(CASE WHEN is_ret_k = 1 AND is_rel = 1 THEN rank END) AS first_rel_k,
    SUM(CASE WHEN is_ret = 1 AND is_rel = 1 AND rank <= num_rel_all THEN 1 ELSE 0 END)
        AS rel_ret_at_r
FROM r
GROUP BY run_id, query_id;

-- ireval_ratio(num, den): num / den as DOUBLE, 0 when den is 0 (trec_eval's convention).
CREATE OR REPLACE MACRO ireval_ratio(num, den) AS
    CASE WHEN den > 0 THEN CAST(num AS DOUBLE) / CAST(den AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END;
