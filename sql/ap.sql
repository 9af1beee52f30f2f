-- Average precision (AP, AP@k = map_cut) and its variants, sum of precisions, R-precision
-- and Sakai's Q-measure.

-- macro: ireval_ap(k: positive_int | NULL := NULL, rel: grade := 1)
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

-- macro: ireval_sp(k: positive_int | NULL := NULL, rel: grade := 1)
-- SP@k: the sum of precision at each relevant document in the top k (AP before its division
-- by R), added in rank order.
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
SELECT pa.run_id, pa.query_id, COALESCE(x.total, CAST(0 AS DOUBLE)) AS value
FROM {@pairs} AS pa
LEFT JOIN running AS x
    ON x.run_id = pa.run_id AND x.query_id = pa.query_id AND x.from_end = 1

-- macro: ireval_ap_variant(k: positive_int | NULL := NULL, rel: grade := 1,
--     norm: ap_norm := 'R', gains: unit_gain_map := '', discount: discount := 'rank',
--     b: positive := 2.0, weights: weight_vector := '') where discount_weights
-- AP's variants (polars_ireval.measures.ap.ap): the sum over the top k ranks of
-- r_i x (r_1 + ... + r_i) x w_i, in rank order, over a norm: 'R' (documents with r > 0),
-- 'min' (min(k, R); R without k) or 'self' (documents in the top k with r > 0); 0 when it
-- is 0. r is 1 for grade >= rel, or the grade's value in the gain map `gains` (grades not
-- listed and unjudged documents: 0); w_i the weight of rank i under `discount` (see the
-- `discounted` fragment; 'rank' 1/i gives AP).
WITH graded AS (
    SELECT run_id, query_id, rank,
        CASE WHEN relevance IS NULL THEN CAST(0 AS DOUBLE)
            WHEN {gains} = '' THEN
                CASE WHEN relevance >= {rel} THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END
            ELSE COALESCE({@gain_of}, CAST(0 AS DOUBLE))
        END AS r
    FROM {eval_table}
),
cum AS (
    SELECT run_id, query_id, rank,
        r * SUM(r) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS rc
    FROM graded
    WHERE rank IS NOT NULL AND ({k} IS NULL OR rank <= {k})
),
running AS (
    SELECT run_id, query_id,
        SUM({@discounted(g := rc, i := rank)}) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS total,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM cum
),
counts AS (
    SELECT run_id, query_id,
        SUM(CASE WHEN r > CAST(0 AS DOUBLE) THEN 1 ELSE 0 END) AS n_all,
        SUM(CASE WHEN r > CAST(0 AS DOUBLE) AND rank IS NOT NULL AND ({k} IS NULL OR rank <= {k})
            THEN 1 ELSE 0 END) AS n_top
    FROM graded
    GROUP BY run_id, query_id
),
normed AS (
    SELECT c.run_id, c.query_id, COALESCE(x.total, CAST(0 AS DOUBLE)) AS total,
        CASE WHEN {norm} = 'self' THEN c.n_top
            WHEN {norm} = 'min' AND {k} IS NOT NULL AND {k} < c.n_all THEN {k}
            ELSE c.n_all END AS n
    FROM counts AS c
    LEFT JOIN running AS x
        ON x.run_id = c.run_id AND x.query_id = c.query_id AND x.from_end = 1
)
SELECT run_id, query_id,
    CASE WHEN n > 0 THEN total / CAST(n AS DOUBLE) ELSE CAST(0 AS DOUBLE) END AS value
FROM normed

-- macro: ireval_q(k: positive_int | NULL := NULL, beta: non_negative := 1.0, rel: grade := 1,
--     gains: gain_map := '')
-- Q@k, Sakai's Q-measure: the sum over the relevant documents (grade >= rel) in the top k
-- of (C(i) + beta cg(i)) / (i + beta cg*(i)), in rank order, over R; C(i) relevant
-- documents in the top i, cg(i) the cumulated gain of the ranking, cg*(i) that of the
-- ideal ranking (its total past its end). Gain: the grade, or its value in `gains` (grades
-- not listed keep it); unjudged documents and negative grades gain 0.
WITH g AS (
    SELECT run_id, query_id, rank, relevance,
        CASE WHEN relevance IS NULL OR relevance < 0 THEN CAST(0 AS DOUBLE)
            ELSE COALESCE({@gain_of}, CAST(relevance AS DOUBLE)) END AS gain,
        CASE WHEN relevance IS NOT NULL AND relevance >= {rel} THEN 1 ELSE 0 END AS is_rel
    FROM {eval_table}
),
ideal AS (
    SELECT run_id, query_id, pos,
        SUM(gain) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cum_gain,
        COUNT(*) OVER (PARTITION BY run_id, query_id) AS len
    FROM (
        SELECT run_id, query_id, gain,
            row_number() OVER (PARTITION BY run_id, query_id ORDER BY gain DESC) AS pos
        FROM g
        WHERE gain > CAST(0 AS DOUBLE)
    ) AS ip
),
ilen AS (
    SELECT DISTINCT run_id, query_id, len FROM ideal
),
ranked AS (
    SELECT run_id, query_id, rank, is_rel,
        SUM(CAST(is_rel AS DOUBLE)) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS found,
        SUM(gain) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cum_gain
    FROM g
    WHERE rank IS NOT NULL AND ({k} IS NULL OR rank <= {k})
),
terms AS (
    SELECT r.run_id, r.query_id, r.rank,
        (r.found + CAST({beta} AS DOUBLE) * r.cum_gain)
        / (CAST(r.rank AS DOUBLE)
            + CAST({beta} AS DOUBLE) * COALESCE(i.cum_gain, CAST(0 AS DOUBLE))) AS term
    FROM ranked AS r
    LEFT JOIN ilen AS l ON l.run_id = r.run_id AND l.query_id = r.query_id
    LEFT JOIN ideal AS i ON i.run_id = r.run_id AND i.query_id = r.query_id
        AND i.pos = CASE WHEN r.rank < l.len THEN r.rank ELSE l.len END
    WHERE r.is_rel = 1
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
FROM {@stats(k := NULL)} AS s
LEFT JOIN running AS x
    ON x.run_id = s.run_id AND x.query_id = s.query_id AND x.from_end = 1

-- macro: ireval_rprec(k: positive_int | NULL := NULL, rel: grade := 1)
-- R-precision: relevant documents in the top R over R; with k (seed 004's RPrec@k), in the
-- top min(k, R) over min(k, R). 0 when R = 0.
SELECT run_id, query_id,
    CASE WHEN num_rel > 0 THEN CAST(hits AS DOUBLE) / CAST(
        CASE WHEN {k} IS NOT NULL AND {k} < num_rel THEN {k} ELSE num_rel END AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM (
    SELECT run_id, query_id,
        SUM(is_rel) AS num_rel,
        SUM(CASE WHEN rank IS NOT NULL AND is_rel = 1 AND rank <= num_rel_all
            AND ({k} IS NULL OR rank <= {k}) THEN 1 ELSE 0 END) AS hits
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
