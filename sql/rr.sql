-- Reciprocal rank (RR, RR@k): 1 / rank of the first relevant document, 0 when none.
CREATE OR REPLACE MACRO ireval_rr(eval_table, k, rel) AS TABLE
SELECT run_id, query_id,
    CASE WHEN first_rel_k IS NULL THEN CAST(0 AS DOUBLE)
    ELSE CAST(1 AS DOUBLE) / CAST(first_rel_k AS DOUBLE) END AS value
FROM ireval_stats(eval_table, k, rel);
