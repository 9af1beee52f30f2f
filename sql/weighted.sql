-- Utility measures over graded relevance in [0, 1] (Moffat, AIRS 2013): HIT and the
-- inverse-squares weighted precision. The utility of a judged document is its grade's value
-- in the map `gains` (grades not listed: 0), else its grade clipped to [0, max_rel] over
-- max_rel; unjudged documents have utility 0.

-- fragment: utility(max_rel := 1, gains := '')
-- Each row's utility in [0, 1], as polars_ireval.measures.weighted.unit_utility.
CASE WHEN relevance IS NULL THEN CAST(0 AS DOUBLE)
    WHEN {gains} = '' THEN CAST(CASE WHEN relevance < 0 THEN 0
        WHEN relevance > {max_rel} THEN {max_rel} ELSE relevance END AS DOUBLE)
        / CAST({max_rel} AS DOUBLE)
    ELSE COALESCE({@gain_of}, CAST(0 AS DOUBLE))
END

-- macro: ireval_hit(k: positive_int | NULL := NULL, max_rel: positive_int := 1,
--     gains: utility_map := '')
-- HIT@k: the best utility in the top k (0 for none).
SELECT run_id, query_id,
    COALESCE(MAX(CASE WHEN rank IS NOT NULL AND ({k} IS NULL OR rank <= {k})
        THEN {@utility} END), CAST(0 AS DOUBLE)) AS value
FROM {eval_table}
GROUP BY run_id, query_id

-- macro: ireval_invsq(k: positive_int | NULL := NULL, max_rel: positive_int := 1,
--     gains: utility_map := '')
-- InvSq@k: the sum over the top k ranks i of utility / (i (i + 1)), in rank order. Column
-- residual (as RBP@k's): the weight 1 / (i (i + 1)) of the unjudged documents in the top
-- d = min(k, retrieved), in rank order, plus that of every rank past d, 1 / (d + 1); at
-- most 1, and 1 when nothing in the top d is judged (polars_ireval.measures._expr's
-- unit_residual).
WITH t AS (
    SELECT run_id, query_id, rank,
        {@utility} / (CAST(rank AS DOUBLE) * (CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE)))
            AS term,
        CASE WHEN relevance IS NULL THEN CAST(1 AS DOUBLE)
            / (CAST(rank AS DOUBLE) * (CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE)))
            ELSE CAST(0 AS DOUBLE) END AS unjudged
    FROM {eval_table}
    WHERE rank IS NOT NULL AND ({k} IS NULL OR rank <= {k})
),
running AS (
    SELECT run_id, query_id,
        SUM(term) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS total,
        SUM(unjudged) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS unjudged_w,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank ASC) AS depth,
        SUM(CASE WHEN unjudged = CAST(0 AS DOUBLE) THEN 1 ELSE 0 END) OVER (
            PARTITION BY run_id, query_id
        ) AS judged,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM t
)
SELECT pa.run_id, pa.query_id, COALESCE(x.total, CAST(0 AS DOUBLE)) AS value,
    CASE WHEN COALESCE(x.judged, 0) = 0 THEN CAST(1 AS DOUBLE)
    ELSE LEAST(CAST(1 AS DOUBLE), x.unjudged_w
        + CAST(1 AS DOUBLE) / (CAST(x.depth AS DOUBLE) + CAST(1 AS DOUBLE))) END
        AS residual
FROM {@pairs} AS pa
LEFT JOIN running AS x
    ON x.run_id = pa.run_id AND x.query_id = pa.query_id AND x.from_end = 1
