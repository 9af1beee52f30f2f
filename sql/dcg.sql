-- The DCG family (polars_ireval.measures.dcg): a gain, a rank discount and a normalisation,
-- chosen independently. DCG@k = the sum over the top k ranks of gain x weight, in rank order.
-- Discounts are those of the `discounted` fragment; weight vectors ('click', 'custom') are
-- text ',1=w1,2=w2,...,'.

-- fragment: dcg_gain(gains := '', gain_type := 'linear', norm := 'none', max_rel := 1, min_rel := 0)
-- Each row's gain, as polars_ireval.measures.dcg.grade_gain: the grade (or its value in the
-- gain map `gains`; grades not listed keep their grade), 2^g - 1 with gain_type 'exp';
-- unjudged documents and negative grades gain 0. With norm 'scaled' (SDCG) the grade is
-- first clipped to [min_rel, max_rel] (unjudged: 0) and the gain of min_rel subtracted;
-- column scale is then the gain of max_rel less that of min_rel.
(
    SELECT ex.run_id, ex.query_id, ex.rank, ex.relevance,
        CASE WHEN {norm} = 'scaled' THEN CASE WHEN sc.low <> CAST(0 AS DOUBLE)
                THEN ex.eg - sc.low ELSE ex.eg END
            ELSE COALESCE(ex.eg, CAST(0 AS DOUBLE)) END AS gain,
        sc.top - sc.low AS scale
    FROM (
        SELECT run_id, query_id, rank, relevance,
            CASE WHEN {gain_type} = 'exp' THEN pow(CAST(2 AS DOUBLE), mg) - CAST(1 AS DOUBLE)
                ELSE mg END AS eg
        FROM (
            SELECT run_id, query_id, rank, relevance,
                COALESCE({@gain_of(key := grade)}, CAST(grade AS DOUBLE)) AS mg
            FROM (
                SELECT run_id, query_id, rank, relevance,
                    CASE WHEN {norm} = 'scaled' THEN
                        CASE WHEN COALESCE(relevance, 0) < {min_rel} THEN {min_rel}
                            WHEN COALESCE(relevance, 0) > {max_rel} THEN {max_rel}
                            ELSE COALESCE(relevance, 0) END
                    WHEN relevance >= 0 THEN relevance END AS grade
                FROM {eval_table}
            ) AS cl
        ) AS mp
    ) AS ex
    CROSS JOIN (
        SELECT
            CASE WHEN {gain_type} = 'exp' THEN pow(CAST(2 AS DOUBLE), lo) - CAST(1 AS DOUBLE)
                ELSE lo END AS low,
            CASE WHEN {gain_type} = 'exp' THEN pow(CAST(2 AS DOUBLE), hi) - CAST(1 AS DOUBLE)
                ELSE hi END AS top
        FROM (
            SELECT COALESCE({@gain_of(key := lo_grade)}, CAST(lo_grade AS DOUBLE)) AS lo,
                COALESCE({@gain_of(key := hi_grade)}, CAST(hi_grade AS DOUBLE)) AS hi
            FROM (SELECT {min_rel} AS lo_grade, {max_rel} AS hi_grade) AS e0
        ) AS ends
    ) AS sc
)

-- fragment: family_tables(k := NULL, norm := 'none', gain_type := 'linear', gains := '', discount := 'log2', b := 2.0, weights := '', max_rel := 1, min_rel := 0)
-- CTEs (continuing a WITH clause) of DCG@k under `norm`: g (gains), dcg (per query: the
-- DCG of the top k, 0 without a non-zero gain), best (per query, norm 'ideal' or 'self':
-- the DCG@k of the positive gains sorted best first, of all judged documents or of the
-- retrieved top k), wsum (norm 'scaled': the sum of the weights of ranks 1..k) and
-- value_of (run_id, query_id, value: DCG@k normalised).
g AS (
    SELECT * FROM {@dcg_gain} AS g0
),
ranked AS (
    SELECT run_id, query_id,
        SUM({@discounted(g := gain, i := rank)}) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS total,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM g
    WHERE rank IS NOT NULL AND ({k} IS NULL OR rank <= {k}) AND gain <> CAST(0 AS DOUBLE)
),
best_pos AS (
    SELECT run_id, query_id, gain,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY gain DESC) AS pos
    FROM g
    WHERE gain > CAST(0 AS DOUBLE) AND ({norm} = 'ideal' OR ({norm} = 'self'
        AND rank IS NOT NULL AND ({k} IS NULL OR rank <= {k})))
),
best_run AS (
    SELECT run_id, query_id,
        SUM({@discounted(g := gain, i := pos)}) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS total,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY pos DESC) AS from_end
    FROM best_pos
    WHERE {k} IS NULL OR pos <= {k}
),
wsum AS (
    SELECT SUM({@discounted(g := CAST(1 AS DOUBLE), i := pos)}) AS total
    FROM {@positions} AS po
    WHERE {norm} = 'scaled'
),
value_of AS (
    SELECT pa.run_id, pa.query_id,
        CASE {norm}
            WHEN 'none' THEN COALESCE(d.total, CAST(0 AS DOUBLE))
            WHEN 'scaled' THEN COALESCE(d.total, CAST(0 AS DOUBLE))
                * (CAST(1 AS DOUBLE) / (pa.scale * w.total))
            ELSE CASE WHEN bst.total > CAST(0 AS DOUBLE)
                THEN COALESCE(d.total, CAST(0 AS DOUBLE)) / bst.total
                ELSE CAST(0 AS DOUBLE) END
        END AS value
    FROM (SELECT DISTINCT run_id, query_id, scale FROM g) AS pa
    CROSS JOIN wsum AS w
    LEFT JOIN ranked AS d
        ON d.run_id = pa.run_id AND d.query_id = pa.query_id AND d.from_end = 1
    LEFT JOIN best_run AS bst
        ON bst.run_id = pa.run_id AND bst.query_id = pa.query_id AND bst.from_end = 1
)

-- macro: ireval_dcg(k: positive_int | NULL := NULL, norm: dcg_norm := 'none',
--     gain_type: gain_type := 'linear', gains: gain_map := '', discount: discount := 'log2',
--     b: positive := 2.0, weights: weight_vector := '', max_rel: positive_int := 1)
--     where discount_weights, scaled_cutoff, scaled_best
-- DCG@k: the sum over the top k ranks of gain x weight (rank order). norm: 'none' (DCG),
-- 'ideal' (nDCG: over the DCG@k of the query's ideal ranking), 'self' (SN-DCG: over the
-- DCG@k of the retrieved top k sorted by gain), 'scaled' (SDCG: over the gain of max_rel
-- times the sum of the weights of ranks 1..k; grades clipped to [0, max_rel]; needs k).
-- gain_type 'linear' (the grade) or 'exp' (2^grade - 1); gains maps grades to gains;
-- discount and b as the `discounted` fragment, weights ',1=w1,2=w2,...,'.
WITH {@family_tables(min_rel := 0)}
SELECT run_id, query_id, value FROM value_of

-- macro: ireval_sdcg(k: positions, max_rel: positive_int := 1, min_rel: non_negative_int := 0,
--     gain_type: gain_type := 'linear', gains: gain_map := '', discount: discount := 'log2',
--     b: positive := 2.0, weights: weight_vector := '')
--     where min_below_max, discount_weights, scaled_best
-- SDCG@k: DCG@k over gain(max_rel) x the sum of the weights of ranks 1..k, grades clipped to
-- [min_rel, max_rel] (unjudged: min_rel) less the gain of min_rel. Column residual: the
-- weight of the unjudged documents in the top k and of the ranks between the end of the
-- ranking and k, over the sum of the weights (at least 0).
WITH {@family_tables(norm := 'scaled')},
seen AS (
    SELECT run_id, query_id,
        SUM({@discounted(g := CAST(1 AS DOUBLE), i := rank)}) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS seen_w,
        SUM(CASE WHEN relevance IS NULL
            THEN {@discounted(g := CAST(1 AS DOUBLE), i := rank)} ELSE CAST(0 AS DOUBLE) END)
        OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS unjudged_w,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM {eval_table}
    WHERE rank IS NOT NULL AND rank <= {k}
),
resid AS (
    SELECT v.run_id, v.query_id, v.value,
        (COALESCE(s.unjudged_w, CAST(0 AS DOUBLE))
            + (w.total - COALESCE(s.seen_w, CAST(0 AS DOUBLE))))
            * (CAST(1 AS DOUBLE) / w.total) AS raw
    FROM value_of AS v
    CROSS JOIN wsum AS w
    LEFT JOIN seen AS s
        ON s.run_id = v.run_id AND s.query_id = v.query_id AND s.from_end = 1
)
SELECT run_id, query_id, value,
    CASE WHEN raw < CAST(0 AS DOUBLE) THEN CAST(0 AS DOUBLE) ELSE raw END AS residual
FROM resid

-- macro: ireval_graded_p(k: positive_int, gains: gain_map := '',
--     gain_type: gain_type := 'linear', discount: discount := 'none', b: positive := 2.0,
--     weights: weight_vector := '')
--     where discount_weights
-- GradedP@k: graded, discounted precision, the sum over the top k ranks of gain x weight
-- (rank order) divided by k, as polars_ireval.measures.dcg.graded_precision. Gains as
-- dcg_gain (the grade or its mapped gain, 2^g - 1 with gain_type 'exp'; unjudged documents
-- and negative grades 0); discount and b as the `discounted` fragment, weights
-- ',1=w1,2=w2,...,'. Missing ranks before k count as gain 0.
WITH g AS (
    SELECT * FROM {@dcg_gain} AS g0
),
ranked AS (
    SELECT run_id, query_id,
        SUM({@discounted(g := gain, i := rank)}) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS total,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM g
    WHERE rank IS NOT NULL AND rank <= {k}
)
SELECT pa.run_id, pa.query_id,
    COALESCE(d.total, CAST(0 AS DOUBLE)) / CAST({k} AS DOUBLE) AS value
FROM (SELECT DISTINCT run_id, query_id FROM g) AS pa
LEFT JOIN ranked AS d
    ON d.run_id = pa.run_id AND d.query_id = pa.query_id AND d.from_end = 1
