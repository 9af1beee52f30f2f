-- Shared fragments: per-query counts, the (run, query) pairs, and gains.

-- fragment: stats(k := NULL, rel := 1)
-- Per (run_id, query_id) counts that the simple measures divide. k NULL: no cutoff; rel is
-- the minimum relevant grade.
(
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
        MIN(CASE WHEN is_ret_k = 1 AND is_rel = 1 THEN rank END) AS first_rel_k
    FROM (
        SELECT
            run_id,
            query_id,
            rank,
            relevance,
            CASE WHEN rank IS NOT NULL THEN 1 ELSE 0 END AS is_ret,
            CASE WHEN rank IS NOT NULL AND ({k} IS NULL OR rank <= {k})
                THEN 1 ELSE 0 END AS is_ret_k,
            CASE WHEN relevance IS NOT NULL AND relevance >= {rel}
                THEN 1 ELSE 0 END AS is_rel,
            CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < {rel}
                THEN 1 ELSE 0 END AS is_nonrel
        FROM {eval_table}
    ) AS f
    GROUP BY run_id, query_id
)

-- fragment: pairs()
-- Every evaluated (run_id, query_id).
(SELECT DISTINCT run_id, query_id FROM {eval_table})

-- fragment: gains(gains := '', dcg := 'log2')
-- Each row's gain, as polars_ireval.measures.ndcg.gain: the grade, or its value in the gain
-- map `gains` (text ',grade=gain,...,'; grades not listed keep their grade), raised to
-- 2^g - 1 when dcg = 'exp-log2'; unjudged documents and negative grades gain 0.
(
    SELECT run_id, query_id, rank, relevance,
        CASE WHEN {dcg} = 'exp-log2' THEN pow(CAST(2 AS DOUBLE), grade) - CAST(1 AS DOUBLE)
            ELSE grade END AS gain
    FROM (
        SELECT run_id, query_id, rank, relevance,
            CASE WHEN relevance IS NULL OR relevance < 0 THEN CAST(0 AS DOUBLE)
                WHEN {gains} = '' THEN CAST(relevance AS DOUBLE)
                ELSE COALESCE(CAST(NULLIF(regexp_extract({gains},
                    ',' || CAST(relevance AS STRING) || '=([^,]*),', 1), '') AS DOUBLE),
                    CAST(relevance AS DOUBLE))
            END AS grade
        FROM {eval_table}
    ) AS gr
)
