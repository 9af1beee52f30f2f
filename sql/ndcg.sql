-- nDCG and nDCG@k with trec_eval's linear gains (gain = grade, 0 for unjudged or negative),
-- discount log2(rank + 1); the ideal ranking sorts every judged positive grade.
CREATE OR REPLACE MACRO ireval_ndcg(eval_table, k) AS TABLE
WITH g AS (
    SELECT run_id, query_id, rank,
        CASE WHEN relevance IS NOT NULL AND relevance > 0
            THEN CAST(relevance AS DOUBLE) ELSE CAST(0 AS DOUBLE) END AS gain
    FROM query_table(eval_table::VARCHAR)
),
ranked AS (
    SELECT run_id, query_id,
        SUM(gain / log2(CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE))) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS dcg,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM g
    WHERE rank IS NOT NULL AND (k IS NULL OR rank <= k) AND gain > 0
),
ideal_pos AS (
    SELECT run_id, query_id, gain,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY gain DESC) AS pos
    FROM g
    WHERE gain > 0
),
ideal AS (
    SELECT run_id, query_id,
        SUM(gain / log2(CAST(pos AS DOUBLE) + CAST(1 AS DOUBLE))) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS idcg,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY pos DESC) AS from_end
    FROM ideal_pos
    WHERE k IS NULL OR pos <= k
),
pairs AS (
    SELECT DISTINCT run_id, query_id FROM g
)
SELECT p.run_id, p.query_id,
    ireval_ratio(COALESCE(d.dcg, CAST(0 AS DOUBLE)), COALESCE(i.idcg, CAST(0 AS DOUBLE)))
        AS value
FROM pairs AS p
LEFT JOIN ranked AS d
    ON d.run_id = p.run_id AND d.query_id = p.query_id AND d.from_end = 1
LEFT JOIN ideal AS i
    ON i.run_id = p.run_id AND i.query_id = p.query_id AND i.from_end = 1;
