-- ireval_judge(run_table, qrels_table): the evaluation table.
-- run_table: run_id, query_id, doc_id, score; qrels_table: query_id, doc_id, relevance.
-- Ranking follows trec_eval: score descending, then doc_id descending byte-wise.
-- Only (run, query) pairs ranked by the run and judged in the qrels are kept.
CREATE OR REPLACE MACRO ireval_judge(run_table, qrels_table) AS TABLE
WITH run AS (
    SELECT
        CAST(run_id AS VARCHAR) AS run_id,
        CAST(query_id AS VARCHAR) AS query_id,
        CAST(doc_id AS VARCHAR) AS doc_id,
        CAST(score AS DOUBLE) + CAST(0 AS DOUBLE) AS score
    FROM query_table(run_table::VARCHAR)
),
qrels AS (
    SELECT
        CAST(query_id AS VARCHAR) AS query_id,
        CAST(doc_id AS VARCHAR) AS doc_id,
        CAST(relevance AS BIGINT) AS relevance
    FROM query_table(qrels_table::VARCHAR)
),
judged_queries AS (
    SELECT DISTINCT query_id FROM qrels
),
ranked AS (
    SELECT
        r.run_id,
        r.query_id,
        r.doc_id,
        r.score,
        row_number() OVER (
            PARTITION BY r.run_id, r.query_id
            ORDER BY r.score DESC, r.doc_id COLLATE "C" DESC
        ) AS rank
    FROM run AS r
    WHERE r.query_id IN (SELECT query_id FROM judged_queries)
),
pairs AS (
    SELECT DISTINCT run_id, query_id FROM ranked
),
judged AS (
    SELECT p.run_id, q.query_id, q.doc_id, q.relevance
    FROM pairs AS p
    JOIN qrels AS q ON p.query_id = q.query_id
)
SELECT
    COALESCE(r.run_id, j.run_id) AS run_id,
    COALESCE(r.query_id, j.query_id) AS query_id,
    COALESCE(r.doc_id, j.doc_id) AS doc_id,
    r.score AS score,
    r.rank AS rank,
    j.relevance AS relevance
FROM ranked AS r
FULL OUTER JOIN judged AS j
    ON r.run_id = j.run_id AND r.query_id = j.query_id AND r.doc_id = j.doc_id;
