-- Cutoff measures: P@k, R@k, Success@k, relative_P@k, Judged@k, Unjudged@k.

-- macro: ireval_p(k: positive_int, rel: grade := 1)
-- P@k: relevant documents in the top k over k (missing ranks count as non-relevant).
-- Column residual: the unjudged documents in the top k and the ranks missing before k, each
-- weighing 1 / k (P@k's user model reads exactly k documents); column depth: k.
SELECT run_id, query_id, CAST(rel_ret_k AS DOUBLE) / CAST({k} AS DOUBLE) AS value,
    CAST(unknown_k + ({k} - num_ret_k) AS DOUBLE) * (CAST(1 AS DOUBLE) / CAST({k} AS DOUBLE))
        AS residual,
    CAST(1 AS DOUBLE) / (CAST(1 AS DOUBLE) / CAST({k} AS DOUBLE)) AS depth
FROM {@stats}

-- macro: ireval_recall(k: positive_int, rel: grade := 1)
-- R@k: relevant documents in the top k over all relevant documents (0 when none).
SELECT run_id, query_id,
    CASE WHEN num_rel > 0 THEN CAST(rel_ret_k AS DOUBLE) / CAST(num_rel AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM {@stats}

-- macro: ireval_success(k: positive_int, rel: grade := 1)
-- Success@k: 1 when a relevant document is in the top k.
SELECT run_id, query_id,
    CASE WHEN rel_ret_k > 0 THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END AS value
FROM {@stats}

-- macro: ireval_relative_p(k: positive_int, rel: grade := 1)
-- relative_P@k: relevant documents in the top k over min(k, R).
SELECT run_id, query_id,
    CASE WHEN num_rel > 0 THEN CAST(rel_ret_k AS DOUBLE)
        / CAST(CASE WHEN num_rel < {k} THEN num_rel ELSE {k} END AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM {@stats}

-- macro: ireval_judged(k: positive_int | NULL)
-- Judged@k: share of the top k documents (as retrieved) that are judged.
SELECT run_id, query_id,
    CASE WHEN num_ret_k > 0 THEN CAST(judged_k AS DOUBLE) / CAST(num_ret_k AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM {@stats}

-- macro: ireval_unjudged(k: positive_int)
-- Unjudged@k: unjudged documents (or negative grades) in the top k, over k.
SELECT run_id, query_id, CAST(unjudged_k AS DOUBLE) / CAST({k} AS DOUBLE) AS value
FROM {@stats}
