-- Reciprocal rank (RR, RR@k).

-- macro: ireval_rr(k: positive_int | NULL := NULL, rel: grade := 1)
-- 1 / rank of the first relevant document in the top k, 0 when none.
SELECT run_id, query_id,
    CASE WHEN first_rel_k IS NULL THEN CAST(0 AS DOUBLE)
    ELSE CAST(1 AS DOUBLE) / CAST(first_rel_k AS DOUBLE) END AS value
FROM {@stats}
