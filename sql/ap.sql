-- Average precision (AP, AP@k = map_cut) and R-precision.

-- macro: ireval_ap(k := NULL, rel := 1)
-- AP@k: the sum of precision at each relevant document in the top k, over R. The terms
-- are added in rank order (a running window sum), as trec_eval does.
WITH hits AS (
    SELECT run_id, query_id, rank,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank) AS i
    FROM {eval_table}
    WHERE rank IS NOT NULL AND ({k} IS NULL OR rank <= {k})
        AND relevance IS NOT NULL AND relevance >= {rel}
),
running AS (
    SELECT run_id, query_id,
        SUM(CAST(i AS DOUBLE) / CAST(rank AS DOUBLE)) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS total,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM hits
)
SELECT s.run_id, s.query_id,
    CASE WHEN s.num_rel > 0 THEN COALESCE(x.total, CAST(0 AS DOUBLE)) / CAST(s.num_rel AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM {@stats(k := NULL)} AS s
LEFT JOIN running AS x
    ON x.run_id = s.run_id AND x.query_id = s.query_id AND x.from_end = 1

-- macro: ireval_rprec(rel := 1)
-- R-precision: relevant documents in the top R over R.
SELECT run_id, query_id,
    CASE WHEN num_rel > 0 THEN CAST(hits AS DOUBLE) / CAST(num_rel AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM (
    SELECT run_id, query_id,
        SUM(is_rel) AS num_rel,
        SUM(CASE WHEN rank IS NOT NULL AND is_rel = 1 AND rank <= num_rel_all THEN 1 ELSE 0 END)
            AS hits
    FROM (
        SELECT f.*, SUM(is_rel) OVER (PARTITION BY run_id, query_id) AS num_rel_all
        FROM (
            SELECT run_id, query_id, rank,
                CASE WHEN relevance IS NOT NULL AND relevance >= {rel} THEN 1 ELSE 0 END AS is_rel
            FROM {eval_table}
        ) AS f
    ) AS fr
    GROUP BY run_id, query_id
) AS c
