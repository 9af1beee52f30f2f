-- Rank-biased precision (Moffat and Zobel, TOIS 2008) and its residual: rank i weighs
-- (1 - p) p^(i - 1); d = min(k, number retrieved) ranks are evaluated. With ties := 'average'
-- documents with equal scores share the mean weight of the ranks they span, and a tie cut
-- by k counts for the fraction inside (rbp_eval).

-- fragment: rbp_terms(k := NULL, p := 0.8, ties := 'rank')
-- Per retrieved row of the top d (every retrieved row with ties 'average'): rank,
-- relevance and the weight of the row: (1 - p) p^(rank - 1), or with ties 'average' the mean
-- weight (p^s - p^e) / (e - s) of the positions s + 1..e of its score's tie (s documents
-- score higher, e at least as high), times the fraction of the tie within the top k.
(
    SELECT run_id, query_id, rank, relevance,
        (CAST(1 AS DOUBLE) - CAST({p} AS DOUBLE))
            * pow(CAST({p} AS DOUBLE), CAST(rank AS DOUBLE) - CAST(1 AS DOUBLE)) AS weight
    FROM {eval_table}
    WHERE {ties} = 'rank' AND rank IS NOT NULL AND ({k} IS NULL OR rank <= {k})
    UNION ALL
    SELECT run_id, query_id, rank, relevance,
        CASE WHEN {k} IS NULL THEN mean
            ELSE mean * (CASE WHEN end_pos < CAST({k} AS DOUBLE) THEN end_pos
                ELSE CAST({k} AS DOUBLE) END - start_pos) / size END AS weight
    FROM (
        SELECT run_id, query_id, rank, relevance, start_pos, end_pos - start_pos AS size,
            end_pos,
            (pow(CAST({p} AS DOUBLE), start_pos) - pow(CAST({p} AS DOUBLE), end_pos))
                / (end_pos - start_pos) AS mean
        FROM (
            SELECT run_id, query_id, rank, relevance,
                CAST(rank() OVER (PARTITION BY run_id, query_id ORDER BY score DESC) - 1
                    AS DOUBLE) AS start_pos,
                CAST(COUNT(*) OVER (PARTITION BY run_id, query_id)
                    - rank() OVER (PARTITION BY run_id, query_id ORDER BY score ASC) + 1
                    AS DOUBLE) AS end_pos
            FROM {eval_table}
            WHERE {ties} = 'average' AND rank IS NOT NULL
        ) AS tie
    ) AS tw
    WHERE {k} IS NULL OR start_pos < CAST({k} AS DOUBLE)
)

-- macro: ireval_rbp(k: positive_int | NULL := NULL, p: open_unit_interval := 0.8,
--     rel: grade := 1, gains: unit_gain_map := '', ties: rbp_ties := 'rank')
-- RBP@k: the sum over the top d ranks of gain x weight, in rank order. Gain: 1 for grade
-- >= rel, or the grade's value in the gain map `gains` (',grade=gain,...,'; grades not
-- listed gain 0); unjudged documents gain 0. ties: 'rank' (each document its rank's weight)
-- or 'average' (rbp_eval). Column depth: the expected number of documents read, 1 / (1 - p).
WITH t AS (
    SELECT run_id, query_id, rank,
        CASE WHEN relevance IS NULL THEN CAST(0 AS DOUBLE)
            WHEN {gains} = '' THEN
                CASE WHEN relevance >= {rel} THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END
            ELSE COALESCE({@gain_of}, CAST(0 AS DOUBLE))
        END * weight AS term
    FROM {@rbp_terms} AS w
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
SELECT pa.run_id, pa.query_id, COALESCE(x.total, CAST(0 AS DOUBLE)) AS value,
    CAST(1 AS DOUBLE) / ((CAST(1 AS DOUBLE) - CAST({p} AS DOUBLE))
        * pow(CAST({p} AS DOUBLE), CAST(0 AS DOUBLE))) AS depth
FROM {@pairs} AS pa
LEFT JOIN running AS x
    ON x.run_id = pa.run_id AND x.query_id = pa.query_id AND x.from_end = 1

-- macro: ireval_rbp_resid(k: positive_int | NULL := NULL, p: open_unit_interval := 0.8,
--     ties: rbp_ties := 'rank')
-- RBP residual@k: the weight of the unjudged documents in the top d ranks plus p^d, the
-- most RBP@k could still grow; at most 1, and 1 when nothing in the top d is judged
-- (with ties := 'average', rbp_eval's tie weights cut at k: its sum). ties as for
-- ireval_rbp.
WITH t AS (
    SELECT run_id, query_id, rank,
        CASE WHEN relevance IS NULL THEN weight ELSE CAST(0 AS DOUBLE) END AS term
    FROM {@rbp_terms} AS w
),
running AS (
    SELECT run_id, query_id,
        SUM(term) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS total,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM t
),
depth AS (
    SELECT run_id, query_id,
        SUM(CASE WHEN {k} IS NULL OR rank <= {k} THEN 1 ELSE 0 END) AS d,
        SUM(CASE WHEN relevance IS NOT NULL AND ({k} IS NULL OR rank <= {k})
            THEN 1 ELSE 0 END) AS judged
    FROM {eval_table}
    WHERE rank IS NOT NULL
    GROUP BY run_id, query_id
)
SELECT pa.run_id, pa.query_id,
    CASE WHEN {ties} <> 'average' AND COALESCE(dp.judged, 0) = 0 THEN CAST(1 AS DOUBLE)
    ELSE LEAST(CAST(1 AS DOUBLE), COALESCE(x.total, CAST(0 AS DOUBLE))
        + pow(CAST({p} AS DOUBLE), CAST(dp.d AS DOUBLE))) END AS value
FROM {@pairs} AS pa
LEFT JOIN running AS x
    ON x.run_id = pa.run_id AND x.query_id = pa.query_id AND x.from_end = 1
LEFT JOIN depth AS dp ON dp.run_id = pa.run_id AND dp.query_id = pa.query_id
