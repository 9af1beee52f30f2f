-- Expected reciprocal rank (Chapelle, Metzler, Zhang and Grinspan, CIKM 2009).

-- macro: ireval_err(k: positive_int | NULL := NULL, max_rel: positive_int := 4)
-- ERR@k: the sum over the top k ranks of R_i / i times the product of (1 - R_j) over the
-- ranks j above i, in rank order, with R_i = (2^g - 1) / 2^max_rel and g the grade clipped to
-- [0, max_rel] (unjudged documents: 0). The product is the exponential of a running sum of
-- logarithms (1 - R_j >= 2^-max_rel > 0).
WITH stops AS (
    SELECT run_id, query_id, rank,
        (pow(CAST(2 AS DOUBLE), CAST(CASE WHEN relevance IS NULL OR relevance < 0 THEN 0
            WHEN relevance > {max_rel} THEN {max_rel} ELSE relevance END AS DOUBLE))
            - CAST(1 AS DOUBLE))
        * (CAST(1 AS DOUBLE) / pow(CAST(2 AS DOUBLE), CAST({max_rel} AS DOUBLE))) AS stop
    FROM {eval_table}
    WHERE rank IS NOT NULL AND ({k} IS NULL OR rank <= {k})
),
reached AS (
    SELECT run_id, query_id, rank, stop,
        exp(COALESCE(SUM(ln(CAST(1 AS DOUBLE) - stop)) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ), CAST(0 AS DOUBLE))) AS reach
    FROM stops
),
running AS (
    SELECT run_id, query_id,
        SUM(stop * reach / CAST(rank AS DOUBLE)) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS total,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM reached
)
SELECT pa.run_id, pa.query_id, COALESCE(x.total, CAST(0 AS DOUBLE)) AS value
FROM {@pairs} AS pa
LEFT JOIN running AS x
    ON x.run_id = pa.run_id AND x.query_id = pa.query_id AND x.from_end = 1
