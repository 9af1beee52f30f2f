-- Recall-interpolated precision (IPrec; 11pt_avg is the mean of IPrec at its recall levels),
-- precision at multiples of R (Rprec_mult), and linear utility.

-- macro: ireval_iprec(recall: unit_interval, rel: grade := 1,
--     rounding: rounding := 'trec_eval9')
-- IPrec@x: the best precision at or after the c-th relevant document, where
-- c = trunc(x R + 0.9) (rounding 'trec_eval9') or round(x R) ('trec_eval10'); 0 when fewer
-- than c relevant documents are retrieved.
WITH hits AS (
    SELECT run_id, query_id, rank,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank) AS c
    FROM {eval_table}
    WHERE rank IS NOT NULL AND relevance IS NOT NULL AND relevance >= {rel}
),
st AS (
    SELECT run_id, query_id,
        CAST({recall} AS DOUBLE) * CAST(num_rel AS DOUBLE) AS x
    FROM {@stats(k := NULL)} AS s0
),
needed AS (
    SELECT run_id, query_id,
        CASE WHEN {rounding} = 'trec_eval9'
            THEN FLOOR(x + CAST(9 AS DOUBLE) / CAST(10 AS DOUBLE))
            ELSE FLOOR(x) + CASE WHEN x - FLOOR(x) >= CAST(1 AS DOUBLE) / CAST(2 AS DOUBLE)
                THEN 1 ELSE 0 END
        END AS c
    FROM st
)
SELECT n.run_id, n.query_id,
    COALESCE(MAX(CASE WHEN h.c >= n.c
        THEN CAST(h.c AS DOUBLE) / CAST(h.rank AS DOUBLE) END), CAST(0 AS DOUBLE)) AS value
FROM needed AS n
LEFT JOIN hits AS h ON h.run_id = n.run_id AND h.query_id = n.query_id
GROUP BY n.run_id, n.query_id

-- macro: ireval_rprec_mult(mult: non_negative, rel: grade := 1)
-- Precision at rank c = trunc(mult R + 0.9), divided by c even when fewer documents are
-- retrieved; 0 when c is 0.
WITH cut AS (
    SELECT run_id, query_id,
        FLOOR(CAST({mult} AS DOUBLE) * CAST(num_rel AS DOUBLE)
            + CAST(9 AS DOUBLE) / CAST(10 AS DOUBLE)) AS c
    FROM {@stats(k := NULL)} AS s0
),
hits AS (
    SELECT t.run_id, t.query_id,
        SUM(CASE WHEN t.rank IS NOT NULL AND t.rank <= u.c AND t.relevance IS NOT NULL
            AND t.relevance >= {rel} THEN 1 ELSE 0 END) AS rel_ret_c
    FROM {eval_table} AS t
    JOIN cut AS u ON u.run_id = t.run_id AND u.query_id = t.query_id
    GROUP BY t.run_id, t.query_id
)
SELECT u.run_id, u.query_id,
    CASE WHEN u.c > 0 THEN CAST(h.rel_ret_c AS DOUBLE) / CAST(u.c AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM cut AS u
JOIN hits AS h ON h.run_id = u.run_id AND h.query_id = u.query_id

-- macro: ireval_utility(w_rel_ret: number := 1, w_nonrel_ret: number := -1,
--     w_rel_missed: number := 0, w_nonrel_missed: number := 0, num_docs: non_negative := 0,
--     rel: grade := 1)
-- Linear utility a (relevant retrieved) + b (non-relevant retrieved) + c (relevant missed)
-- + d (non-relevant missed, from the collection size num_docs); unjudged documents
-- retrieved count as non-relevant.
SELECT run_id, query_id,
    CAST({w_rel_ret} AS DOUBLE) * h
    + CAST({w_nonrel_ret} AS DOUBLE) * (n - h)
    + CAST({w_rel_missed} AS DOUBLE) * (r - h)
    + CAST({w_nonrel_missed} AS DOUBLE) * (CAST({num_docs} AS DOUBLE) + h - n - r) AS value
FROM (
    SELECT run_id, query_id,
        CAST(rel_ret AS DOUBLE) AS h,
        CAST(num_ret AS DOUBLE) AS n,
        CAST(num_rel AS DOUBLE) AS r
    FROM {@stats(k := NULL)} AS s0
) AS u
