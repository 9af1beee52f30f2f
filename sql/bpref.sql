-- Measures for incomplete judgments: bpref and inferred AP.

-- macro: ireval_bpref(rel: grade := 1)
-- bpref: (1/R) sum over relevant retrieved d of 1 - min(n_d, R) / min(N, R), where n_d
-- counts judged non-relevant documents ranked above d and N those judged for the query.
WITH t AS (
    SELECT run_id, query_id, rank,
        CASE WHEN relevance IS NOT NULL AND relevance >= {rel} THEN 1 ELSE 0 END AS is_rel,
        CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < {rel}
            THEN 1 ELSE 0 END AS is_nonrel
    FROM {eval_table}
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
st AS (
    SELECT * FROM {@stats(k := NULL)} AS s0
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
    JOIN st AS s ON a.run_id = s.run_id AND a.query_id = s.query_id
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
    CASE WHEN s.num_rel > 0 THEN COALESCE(x.total, CAST(0 AS DOUBLE)) / CAST(s.num_rel AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM st AS s
LEFT JOIN running AS x
    ON x.run_id = s.run_id AND x.query_id = s.query_id AND x.from_end = 1

-- macro: ireval_infap(rel: grade := 1)
-- infAP (Yilmaz and Aslam): for the relevant retrieved document at rank i > 1,
-- 1/i + ((i-1)/i) (p/(i-1)) ((r + eps)/(r + n + 2 eps)), with p pooled (judged, any grade),
-- r relevant and n judged non-relevant documents above it; rank 1 contributes 1; the sum
-- is divided by R. eps = 1e-5 (trec_eval's INFAP_EPSILON).
WITH t AS (
    SELECT run_id, query_id, rank,
        CASE WHEN relevance IS NOT NULL AND relevance >= {rel} THEN 1 ELSE 0 END AS is_rel,
        CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < {rel}
            THEN 1 ELSE 0 END AS is_nonrel,
        CASE WHEN relevance IS NOT NULL THEN 1 ELSE 0 END AS is_pooled
    FROM {eval_table}
    WHERE rank IS NOT NULL
),
cum AS (
    SELECT run_id, query_id, rank, is_rel,
        SUM(is_rel) OVER (PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS c_rel,
        SUM(is_nonrel) OVER (PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS c_nonrel,
        SUM(is_pooled) OVER (PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS c_pooled
    FROM t
),
parts AS (
    SELECT run_id, query_id, rank,
        CAST(rank AS DOUBLE) AS i,
        CAST(rank AS DOUBLE) - CAST(1 AS DOUBLE) AS j,
        CAST(c_rel AS DOUBLE) - CAST(1 AS DOUBLE) AS r,
        CAST(c_nonrel AS DOUBLE) AS n,
        CAST(c_pooled - 1 AS DOUBLE) AS pooled,
        CAST(1 AS DOUBLE) / CAST(100000 AS DOUBLE) AS eps
    FROM cum
    WHERE is_rel = 1
),
running AS (
    SELECT run_id, query_id,
        SUM(CASE WHEN j = CAST(0 AS DOUBLE) THEN CAST(1 AS DOUBLE)
            ELSE CAST(1 AS DOUBLE) / i + (j / i) * (pooled / j)
                * ((r + eps) / (r + n + CAST(2 AS DOUBLE) * eps)) END) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS total,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM parts
)
SELECT s.run_id, s.query_id,
    CASE WHEN s.num_rel > 0 THEN COALESCE(x.total, CAST(0 AS DOUBLE)) / CAST(s.num_rel AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM {@stats(k := NULL)} AS s
LEFT JOIN running AS x
    ON x.run_id = s.run_id AND x.query_id = s.query_id AND x.from_end = 1
