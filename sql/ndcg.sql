-- Gain-based measures: nDCG, ndcg_rel, Rndcg, G, binG. Gains come from the `gains`
-- fragment: the grade (or the gain map), 2^g - 1 with dcg = 'exp-log2'; discount
-- log2(rank + 1); the ideal ranking sorts every judged positive gain, best first.

-- macro: ireval_ndcg(k: positive_int | NULL := NULL, gains: gain_map := '', dcg: dcg := 'log2')
-- nDCG@k: DCG of the top k over the DCG of the ideal top k; 0 without a positive gain.
WITH g AS (
    SELECT * FROM {@gains} AS g0
),
ranked AS (
    SELECT run_id, query_id,
        SUM(gain / log2(CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE))) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cum_dcg,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM g
    WHERE rank IS NOT NULL AND ({k} IS NULL OR rank <= {k}) AND gain <> CAST(0 AS DOUBLE)
),
ideal_pos AS (
    SELECT run_id, query_id, gain,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY gain DESC) AS pos
    FROM g
    WHERE gain > CAST(0 AS DOUBLE)
),
ideal AS (
    SELECT run_id, query_id,
        SUM(gain / log2(CAST(pos AS DOUBLE) + CAST(1 AS DOUBLE))) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS idcg,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY pos DESC) AS from_end
    FROM ideal_pos
    WHERE {k} IS NULL OR pos <= {k}
),
pairs AS (
    SELECT DISTINCT run_id, query_id FROM g
)
SELECT pa.run_id, pa.query_id,
    CASE WHEN i.idcg > CAST(0 AS DOUBLE)
        THEN COALESCE(d.cum_dcg, CAST(0 AS DOUBLE)) / i.idcg
    ELSE CAST(0 AS DOUBLE) END AS value
FROM pairs AS pa
LEFT JOIN ranked AS d
    ON d.run_id = pa.run_id AND d.query_id = pa.query_id AND d.from_end = 1
LEFT JOIN ideal AS i
    ON i.run_id = pa.run_id AND i.query_id = pa.query_id AND i.from_end = 1

-- fragment: dcg_tables(gains := '', dcg := 'log2')
-- CTEs shared by ndcg_rel, Rndcg and G (the text continues a WITH clause): g (gains),
-- ranked (retrieved rows with a non-zero gain, running DCG and gain), ideal (positive
-- gains best first: position, running ideal DCG, running gain floored at 1), ilen (ideal
-- length and totals per query), rtot (ranked DCG total per query).
g AS (
    SELECT * FROM {@gains} AS g0
),
ranked AS (
    SELECT run_id, query_id, rank, gain,
        SUM(gain / log2(CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE))) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cum_dcg,
        SUM(gain) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cum_gain,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM g
    WHERE rank IS NOT NULL AND gain <> CAST(0 AS DOUBLE)
),
ideal_pos AS (
    SELECT run_id, query_id, gain,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY gain DESC) AS pos
    FROM g
    WHERE gain > CAST(0 AS DOUBLE)
),
ideal AS (
    SELECT run_id, query_id, pos, gain,
        SUM(gain / log2(CAST(pos AS DOUBLE) + CAST(1 AS DOUBLE))) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS idcg,
        SUM(gain) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cum_gain,
        SUM(CASE WHEN gain < CAST(1 AS DOUBLE) THEN CAST(1 AS DOUBLE) ELSE gain END) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS floor_cum,
        CASE WHEN gain <> COALESCE(LEAD(gain) OVER (
            PARTITION BY run_id, query_id ORDER BY pos), CAST(0 AS DOUBLE))
            THEN 1 ELSE 0 END AS is_drop,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY pos DESC) AS from_end
    FROM ideal_pos
),
ilen AS (
    SELECT run_id, query_id, pos AS len, idcg AS itotal, cum_gain AS igain
    FROM ideal
    WHERE from_end = 1
),
rtot AS (
    SELECT run_id, query_id, cum_dcg AS rtotal
    FROM ranked
    WHERE from_end = 1
)

-- macro: ireval_ndcg_rel(gains: gain_map := '', dcg: dcg := 'log2')
-- ndcg_rel: the mean over the ideal ranking's L relevant documents of nDCG at each one's
-- rank; a relevant document not retrieved contributes the nDCG of the whole ranking.
WITH {@dcg_tables},
at_rel AS (
    SELECT r.run_id, r.query_id, r.rank, r.cum_dcg / i.idcg AS term
    FROM ranked AS r
    JOIN ilen AS l ON l.run_id = r.run_id AND l.query_id = r.query_id
    JOIN ideal AS i ON i.run_id = r.run_id AND i.query_id = r.query_id
        AND i.pos = CASE WHEN r.rank < l.len THEN r.rank ELSE l.len END
    WHERE r.gain > CAST(0 AS DOUBLE)
),
running AS (
    SELECT run_id, query_id,
        SUM(term) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS total,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank ASC) AS found,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM at_rel
),
summed AS (
    SELECT pa.run_id, pa.query_id, COALESCE(l.len, 0) AS len,
        COALESCE(x.total, CAST(0 AS DOUBLE)) + CASE WHEN COALESCE(l.len, 0) > COALESCE(x.found, 0)
            THEN CAST(l.len - COALESCE(x.found, 0) AS DOUBLE)
                * COALESCE(t.rtotal, CAST(0 AS DOUBLE)) / l.itotal
            ELSE CAST(0 AS DOUBLE) END AS total
    FROM (SELECT DISTINCT run_id, query_id FROM g) AS pa
    LEFT JOIN ilen AS l ON l.run_id = pa.run_id AND l.query_id = pa.query_id
    LEFT JOIN rtot AS t ON t.run_id = pa.run_id AND t.query_id = pa.query_id
    LEFT JOIN running AS x
        ON x.run_id = pa.run_id AND x.query_id = pa.query_id AND x.from_end = 1
)
SELECT run_id, query_id,
    CASE WHEN total > CAST(0 AS DOUBLE) THEN total / CAST(len AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM summed

-- macro: ireval_rndcg(gains: gain_map := '', dcg: dcg := 'log2', rel: grade := 1)
-- Rndcg: nDCG averaged over the R-levels of the ideal ranking (the last position of each
-- gain block), plus DCG / ideal DCG of the whole ranking when the ideal runs out at least
-- two ranks before its end. 0 when the query has no document with grade >= rel, or when
-- no judged document gains (the ideal ranking is empty).
WITH {@dcg_tables},
st AS (
    SELECT * FROM {@stats(k := NULL)} AS s0
),
dr AS (
    SELECT i.run_id, i.query_id, i.pos AS d, i.idcg,
        CASE WHEN i.pos < s.num_ret THEN i.pos ELSE s.num_ret END AS m
    FROM ideal AS i
    JOIN st AS s ON s.run_id = i.run_id AND s.query_id = i.query_id
    WHERE i.is_drop = 1
),
hit AS (
    SELECT dr.run_id, dr.query_id, dr.d, r.cum_dcg,
        row_number() OVER (PARTITION BY dr.run_id, dr.query_id, dr.d ORDER BY r.rank DESC)
            AS from_end
    FROM dr
    JOIN ranked AS r ON r.run_id = dr.run_id AND r.query_id = dr.query_id AND r.rank <= dr.m
),
terms AS (
    SELECT dr.run_id, dr.query_id, dr.d,
        COALESCE(h.cum_dcg, CAST(0 AS DOUBLE)) / dr.idcg AS term
    FROM dr
    LEFT JOIN hit AS h
        ON h.run_id = dr.run_id AND h.query_id = dr.query_id AND h.d = dr.d AND h.from_end = 1
),
running AS (
    SELECT run_id, query_id,
        SUM(term) OVER (
            PARTITION BY run_id, query_id ORDER BY d
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS total,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY d ASC) AS drops,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY d DESC) AS from_end
    FROM terms
),
parts AS (
    SELECT s.run_id, s.query_id, s.num_rel,
        COALESCE(x.total, CAST(0 AS DOUBLE)) AS total,
        COALESCE(x.drops, 0) AS drops,
        CASE WHEN COALESCE(l.len, 0) + 1 < s.num_ret THEN 1 ELSE 0 END AS tail,
        COALESCE(t.rtotal, CAST(0 AS DOUBLE)) AS rtotal,
        l.itotal
    FROM st AS s
    LEFT JOIN ilen AS l ON l.run_id = s.run_id AND l.query_id = s.query_id
    LEFT JOIN rtot AS t ON t.run_id = s.run_id AND t.query_id = s.query_id
    LEFT JOIN running AS x
        ON x.run_id = s.run_id AND x.query_id = s.query_id AND x.from_end = 1
)
SELECT run_id, query_id,
    CASE WHEN num_rel > 0 AND itotal IS NOT NULL THEN
        (total + CASE WHEN tail = 1 THEN rtotal / itotal ELSE CAST(0 AS DOUBLE) END)
        / CAST(drops + tail AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM parts

-- macro: ireval_g(gains: gain_map := '', dcg: dcg := 'log2')
-- trec_eval's G: at each rank i with a non-zero gain, gain / log2(2 + C_i - S_i), with S_i
-- the cumulated gain of the ranking and C_i the cumulated ideal gain (each ideal position
-- counting at least 1, each rank past the ideal 1); the sum over the total ideal gain.
WITH {@dcg_tables},
terms AS (
    SELECT r.run_id, r.query_id, r.rank,
        r.gain / log2(CAST(2 AS DOUBLE)
            + (COALESCE(i.floor_cum, CAST(0 AS DOUBLE))
                + (CAST(r.rank AS DOUBLE)
                    - CAST(CASE WHEN r.rank < COALESCE(l.len, 0) THEN r.rank
                        ELSE COALESCE(l.len, 0) END AS DOUBLE)))
            - r.cum_gain) AS term
    FROM ranked AS r
    LEFT JOIN ilen AS l ON l.run_id = r.run_id AND l.query_id = r.query_id
    LEFT JOIN ideal AS i ON i.run_id = r.run_id AND i.query_id = r.query_id
        AND i.pos = CASE WHEN r.rank < l.len THEN r.rank ELSE l.len END
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
SELECT pa.run_id, pa.query_id,
    CASE WHEN l.igain > CAST(0 AS DOUBLE)
        THEN COALESCE(x.total, CAST(0 AS DOUBLE)) / l.igain
    ELSE CAST(0 AS DOUBLE) END AS value
FROM (SELECT DISTINCT run_id, query_id FROM g) AS pa
LEFT JOIN ilen AS l ON l.run_id = pa.run_id AND l.query_id = pa.query_id
LEFT JOIN running AS x
    ON x.run_id = pa.run_id AND x.query_id = pa.query_id AND x.from_end = 1

-- macro: ireval_bing(rel: grade := 1)
-- trec_eval's binG: the sum over relevant retrieved documents of
-- 1 / log2(2 + documents ranked above it that are not relevant), over R.
WITH hits AS (
    SELECT run_id, query_id, rank,
        CAST(rank AS DOUBLE)
            - CAST(row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank) AS DOUBLE)
            AS above
    FROM {eval_table}
    WHERE rank IS NOT NULL AND relevance IS NOT NULL AND relevance >= {rel}
),
running AS (
    SELECT run_id, query_id,
        SUM(CAST(1 AS DOUBLE) / log2(CAST(2 AS DOUBLE) + above)) OVER (
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
