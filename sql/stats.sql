-- Shared fragments: per-query counts, the (run, query) pairs, gains, gain and weight maps,
-- rank discounts and the positions 1..k.

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
        SUM(CASE WHEN is_ret_k = 1 AND relevance IS NULL THEN 1 ELSE 0 END) AS unknown_k,
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
                ELSE COALESCE({@gain_of(key := relevance)}, CAST(relevance AS DOUBLE))
            END AS grade
        FROM {eval_table}
    ) AS gr
)

-- fragment: gain_of(gains := '', key := relevance)
-- The value of the integer `key` in the map `gains` (text ',grade=gain,...,'), as a DOUBLE;
-- NULL when the map does not list it (or is ''). Found by position (instr, substr), not by a
-- regular expression: a pattern built from each row's key is compiled once per row. The
-- value runs from after ',key=' to the next comma (every map ends with one).
CASE WHEN {gains} = ''
        OR instr({gains}, ',' || CAST({key} AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr({gains}, instr({gains}, ',' || CAST({key} AS STRING) || '=')
            + length(CAST({key} AS STRING)) + 2),
        1,
        instr(substr({gains}, instr({gains}, ',' || CAST({key} AS STRING) || '=')
            + length(CAST({key} AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END

-- fragment: weight_of(weights := '', i := rank)
-- The weight of position `i` in the weight vector `weights` (text ',1=w1,2=w2,...,'); 0
-- past its end. Found as gain_of finds a gain.
CASE WHEN {weights} = ''
        OR instr({weights}, ',' || CAST({i} AS STRING) || '=') = 0 THEN CAST(0 AS DOUBLE)
    ELSE COALESCE(CAST(NULLIF(substr(
        substr({weights}, instr({weights}, ',' || CAST({i} AS STRING) || '=')
            + length(CAST({i} AS STRING)) + 2),
        1,
        instr(substr({weights}, instr({weights}, ',' || CAST({i} AS STRING) || '=')
            + length(CAST({i} AS STRING)) + 2), ',') - 1), '') AS DOUBLE), CAST(0 AS DOUBLE))
END

-- fragment: discounted(g := gain, i := rank, discount := 'log2', b := 2.0, weights := '')
-- g times the weight of the 1-based position i under `discount`, as
-- polars_ireval.measures.dcg.discounted: 'log2' 1/log2(i+1), 'log' 1/log_b(i+1), 'jk' 1 for
-- i < b then 1/log_b(i), 'none' 1, 'root' 1/sqrt(i), 'rank' 1/i, 'square' 1/i^2, 'click' and
-- 'custom' the i-th weight of `weights` (0 past it). A weight 1/x divides g by x.
CASE {discount}
    WHEN 'log2' THEN {g} / log2(CAST({i} AS DOUBLE) + CAST(1 AS DOUBLE))
    WHEN 'log' THEN {g} / (ln(CAST({i} AS DOUBLE) + CAST(1 AS DOUBLE)) / ln(CAST({b} AS DOUBLE)))
    WHEN 'jk' THEN CASE WHEN CAST({i} AS DOUBLE) < CAST({b} AS DOUBLE) THEN {g}
        ELSE {g} / (ln(CAST({i} AS DOUBLE)) / ln(CAST({b} AS DOUBLE))) END
    WHEN 'none' THEN {g}
    WHEN 'root' THEN {g} / sqrt(CAST({i} AS DOUBLE))
    WHEN 'rank' THEN {g} / CAST({i} AS DOUBLE)
    WHEN 'square' THEN {g} / (CAST({i} AS DOUBLE) * CAST({i} AS DOUBLE))
    ELSE {g} * {@weight_of}
END

-- fragment: digits()
-- The digits 0..9 as column d.
(
    SELECT 0 AS d UNION ALL SELECT 1 AS d UNION ALL SELECT 2 AS d UNION ALL SELECT 3 AS d
    UNION ALL SELECT 4 AS d UNION ALL SELECT 5 AS d UNION ALL SELECT 6 AS d
    UNION ALL SELECT 7 AS d UNION ALL SELECT 8 AS d UNION ALL SELECT 9 AS d
)

-- fragment: positions(k := NULL)
-- The positions 1..k (k at most 10^9) as column pos: nine digits cross joined, each digit
-- filtered on its own so that only the needed ones are generated. None for k NULL. The
-- portable text, which Trino, BigQuery and Snowflake get: DuckDB's macros and the Spark
-- engine take their own range table function instead (DUCKDB_POSITIONS in
-- polars_ireval/sql/templates.py, ranged_positions in polars_ireval/engines/spark.py).
(
    SELECT d0.d + d1.d * 10 + d2.d * 100 + d3.d * 1000 + d4.d * 10000 + d5.d * 100000
        + d6.d * 1000000 + d7.d * 10000000 + d8.d * 100000000 + 1 AS pos
    FROM {@digits} AS d0
    CROSS JOIN {@digits} AS d1
    CROSS JOIN {@digits} AS d2
    CROSS JOIN {@digits} AS d3
    CROSS JOIN {@digits} AS d4
    CROSS JOIN {@digits} AS d5
    CROSS JOIN {@digits} AS d6
    CROSS JOIN {@digits} AS d7
    CROSS JOIN {@digits} AS d8
    WHERE d0.d < {k} AND d1.d * 10 < {k} AND d2.d * 100 < {k} AND d3.d * 1000 < {k}
        AND d4.d * 10000 < {k} AND d5.d * 100000 < {k} AND d6.d * 1000000 < {k}
        AND d7.d * 10000000 < {k} AND d8.d * 100000000 < {k}
        AND d0.d + d1.d * 10 + d2.d * 100 + d3.d * 1000 + d4.d * 10000 + d5.d * 100000
            + d6.d * 1000000 + d7.d * 10000000 + d8.d * 100000000 < {k}
)
