-- Rank-biased precision (Moffat and Zobel, TOIS 2008) and its residual: rank i weighs
-- (1 - p) p^(i - 1); d = min(k, number retrieved) ranks are evaluated.

-- macro: ireval_rbp(k := NULL, p := 0.8, rel := 1, gains := '')
-- RBP@k: the sum over the top d ranks of gain x weight, in rank order. Gain: 1 for grade
-- >= rel, or the grade's value in the gain map `gains` (',grade=gain,...,'; grades not
-- listed gain 0); unjudged documents gain 0.
WITH t AS (
    SELECT run_id, query_id, rank,
        CASE WHEN relevance IS NULL THEN CAST(0 AS DOUBLE)
            WHEN {gains} = '' THEN
                CASE WHEN relevance >= {rel} THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END
            ELSE COALESCE(CAST(NULLIF(regexp_extract({gains},
                ',' || CAST(relevance AS STRING) || '=([^,]*),', 1), '') AS DOUBLE),
                CAST(0 AS DOUBLE))
        END * ((CAST(1 AS DOUBLE) - CAST({p} AS DOUBLE))
            * pow(CAST({p} AS DOUBLE), CAST(rank AS DOUBLE) - CAST(1 AS DOUBLE))) AS term
    FROM {eval_table}
    WHERE rank IS NOT NULL AND ({k} IS NULL OR rank <= {k})
),
running AS (
    SELECT run_id, query_id,
        SUM(term) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS total,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM t
)
SELECT pa.run_id, pa.query_id, COALESCE(x.total, CAST(0 AS DOUBLE)) AS value
FROM {@pairs} AS pa
LEFT JOIN running AS x
    ON x.run_id = pa.run_id AND x.query_id = pa.query_id AND x.from_end = 1

-- macro: ireval_rbp_resid(k := NULL, p := 0.8)
-- RBP residual@k: the weight of the unjudged documents in the top d ranks plus p^d, the
-- most RBP@k could still grow.
WITH t AS (
    SELECT run_id, query_id, rank,
        CASE WHEN relevance IS NULL THEN
            (CAST(1 AS DOUBLE) - CAST({p} AS DOUBLE))
            * pow(CAST({p} AS DOUBLE), CAST(rank AS DOUBLE) - CAST(1 AS DOUBLE))
        ELSE CAST(0 AS DOUBLE) END AS term
    FROM {eval_table}
    WHERE rank IS NOT NULL AND ({k} IS NULL OR rank <= {k})
),
running AS (
    SELECT run_id, query_id,
        SUM(term) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS total,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank ASC) AS depth,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM t
)
SELECT pa.run_id, pa.query_id,
    COALESCE(x.total, CAST(0 AS DOUBLE))
        + pow(CAST({p} AS DOUBLE), CAST(COALESCE(x.depth, 0) AS DOUBLE)) AS value
FROM {@pairs} AS pa
LEFT JOIN running AS x
    ON x.run_id = pa.run_id AND x.query_id = pa.query_id AND x.from_end = 1
