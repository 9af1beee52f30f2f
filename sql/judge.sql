-- The evaluation table: a run joined once with its qrels, as polars_ireval.judge.
--
-- Templates in this folder are portable SQL (DuckDB, Spark, and via sqlglot Trino, BigQuery,
-- Snowflake). `{name}` is a parameter or a table, `{@fragment}` includes a fragment,
-- `{doc_desc}`/`{doc_asc}` order document ids byte-wise on every engine. They are rendered by
-- polars_ireval.sql; `python -m polars_ireval.sql` writes the DuckDB macros to ireval.sql.

-- fragment: inputs()
-- The run and qrels tables with canonical column types (CTEs continuing a WITH clause).
run AS (
    SELECT
        COALESCE(CAST(run_id AS STRING), '') AS run_id,
        CAST(query_id AS STRING) AS query_id,
        CAST(doc_id AS STRING) AS doc_id,
        {score_value} + CAST(0 AS DOUBLE) AS score,
        CAST(input_rank AS DOUBLE) AS input_rank,
        CAST(input_order AS BIGINT) AS input_order
    FROM {run_table} AS src
),
qrels AS (
    SELECT
        CAST(query_id AS STRING) AS query_id,
        CAST(doc_id AS STRING) AS doc_id,
        CAST(relevance AS BIGINT) AS relevance
    FROM {qrels_table} AS srq
)

-- macro: ireval_judge(run_table, qrels_table, max_depth: positive_int | NULL := NULL,
--     judged_only: boolean := FALSE, ties: ties := 'trec_eval', missing: missing := 'skip',
--     unjudged: boolean := TRUE, rank_by: rank_by := 'window')
-- run_table: [run_id,] query_id, doc_id, score [, input_rank] [, input_order];
-- qrels_table: query_id, doc_id, relevance. One row per (run, query, document) retrieved
-- or judged: run_id, query_id, doc_id, score, rank, relevance. Ranking: score descending,
-- ties by doc_id descending byte-wise (ties := 'trec_eval'); 'doc_id_asc'; 'input_order'
-- (score descending, then the input_order column); 'rank' (input_rank ascending, then
-- doc_id descending). max_depth keeps the top ranks (trec_eval -M); judged_only condenses
-- the ranking to judged documents (trec_eval -J); missing := 'zero' scores judged queries
-- a run lacks as empty rankings (trec_eval -c), 'skip' leaves them out, 'error' fails on
-- the first (in DuckDB; a query rendered for another engine cannot). unjudged := FALSE
-- leaves out the retrieved documents the qrels do not judge (polars_ireval.judge's
-- unjudged=False): a smaller table, all that measures not depending on unjudged documents
-- need. rank_by := 'count' (used with unjudged := FALSE, ignored otherwise) ranks each judged
-- retrieved document by counting the documents of its ranking ahead of it instead of sorting
-- every ranking: cheaper when the qrels judge a few documents a query (MS MARCO-like), dearer
-- when they judge many; same table. A run without a run_id column gets run_id ''.
WITH {@inputs},
judged_queries AS (
    SELECT DISTINCT query_id FROM qrels
),
present AS (
    SELECT DISTINCT run_id, query_id FROM run
),
pairs AS (
    SELECT pr.run_id, pr.query_id
    FROM present AS pr
    JOIN judged_queries AS jq ON pr.query_id = jq.query_id
    WHERE {missing} <> 'zero'
    UNION ALL
    SELECT ru.run_id, jq.query_id
    FROM (SELECT DISTINCT run_id FROM present) AS ru
    CROSS JOIN judged_queries AS jq
    WHERE {missing} = 'zero'
),
-- rank_by := 'count' with unjudged := FALSE: the retrieved documents their query judges,
-- each ranked by counting the documents of its ranking at or ahead of it (no sort)
hits AS (
    SELECT r.run_id, r.query_id, r.doc_id, r.score, r.input_rank, r.input_order
    FROM run AS r
    JOIN qrels AS q ON q.query_id = r.query_id AND q.doc_id = r.doc_id
    -- length(...) >= 0 is always true (the join leaves no null doc_id), but an optimizer
    -- without statistics then estimates the hits below the run and builds the next join's
    -- hash table on them (thousands of rows) instead of on the run (millions): DuckDB's
    -- judge twice as fast on MS MARCO-like qrels
    WHERE {rank_by} = 'count' AND NOT {unjudged} AND length(q.doc_id) >= 0
),
counted AS (
    SELECT
        h.run_id,
        h.query_id,
        h.doc_id,
        h.score,
        SUM(CASE
            WHEN {ties} = 'rank' THEN CASE
                WHEN r.input_rank < h.input_rank THEN 1
                WHEN r.input_rank = h.input_rank AND {doc_desc} >= {hit_doc} THEN 1
                ELSE 0 END
            WHEN r.score > h.score THEN 1
            WHEN r.score < h.score THEN 0  -- (left out by the join already)
            WHEN {ties} = 'trec_eval' THEN CASE WHEN {doc_desc} >= {hit_doc} THEN 1 ELSE 0 END
            WHEN {ties} = 'doc_id_asc' THEN CASE WHEN {doc_asc} <= {hit_doc} THEN 1 ELSE 0 END
            WHEN r.input_order <= h.input_order THEN 1
            ELSE 0
        END) AS rank
    FROM hits AS h
    -- only the documents at or above the hit's score can be ahead of it (but by input_rank)
    JOIN run AS r ON r.run_id = h.run_id AND r.query_id = h.query_id
        AND ({ties} = 'rank' OR r.score >= h.score)
    GROUP BY h.run_id, h.query_id, h.doc_id, h.score
),
-- rank_by := 'window': one branch per tie policy, the others pruned (their filter is a false
-- constant)
ranked AS (
    SELECT
        r.run_id,
        r.query_id,
        r.doc_id,
        r.score,
        row_number() OVER (
            PARTITION BY r.run_id, r.query_id
            ORDER BY r.score DESC, {doc_desc} DESC
        ) AS rank
    FROM run AS r
    WHERE {ties} = 'trec_eval' AND ({rank_by} <> 'count' OR {unjudged})
        AND r.query_id IN (SELECT query_id FROM judged_queries)
    UNION ALL
    SELECT
        r.run_id,
        r.query_id,
        r.doc_id,
        r.score,
        row_number() OVER (
            PARTITION BY r.run_id, r.query_id
            ORDER BY r.score DESC, {doc_asc} ASC
        ) AS rank
    FROM run AS r
    WHERE {ties} = 'doc_id_asc' AND ({rank_by} <> 'count' OR {unjudged})
        AND r.query_id IN (SELECT query_id FROM judged_queries)
    UNION ALL
    SELECT
        r.run_id,
        r.query_id,
        r.doc_id,
        r.score,
        row_number() OVER (
            PARTITION BY r.run_id, r.query_id
            ORDER BY r.score DESC, r.input_order ASC
        ) AS rank
    FROM run AS r
    WHERE {ties} = 'input_order' AND ({rank_by} <> 'count' OR {unjudged})
        AND r.query_id IN (SELECT query_id FROM judged_queries)
    UNION ALL
    SELECT
        r.run_id,
        r.query_id,
        r.doc_id,
        r.score,
        row_number() OVER (
            PARTITION BY r.run_id, r.query_id
            ORDER BY r.input_rank ASC, {doc_desc} DESC
        ) AS rank
    FROM run AS r
    WHERE {ties} = 'rank' AND ({rank_by} <> 'count' OR {unjudged})
        AND r.query_id IN (SELECT query_id FROM judged_queries)
    UNION ALL
    SELECT run_id, query_id, doc_id, score, rank FROM counted
),
-- unjudged := FALSE: only the ranked documents some query judges meet the qrels
cut AS (
    SELECT run_id, query_id, doc_id, score, rank
    FROM ranked
    WHERE ({max_depth} IS NULL OR rank <= {max_depth})
        AND ({unjudged} OR {judged_by_group} OR doc_id IN (SELECT doc_id FROM qrels))
),
judged AS (
    SELECT pa.run_id, q.query_id, q.doc_id, q.relevance
    FROM pairs AS pa
    JOIN qrels AS q ON pa.query_id = q.query_id
),
-- unjudged := FALSE on an engine that merges by grouping (Spark, see JUDGED_BY_GROUP in
-- polars_ireval.sql.templates): the judged rows alone, the retrieved ones with their score
-- and rank, merged by grouping on run, query and document instead of the outer join below
found AS (
    SELECT c.run_id, c.query_id, c.doc_id, c.score, c.rank, q.relevance
    FROM ranked AS c
    JOIN qrels AS q ON q.query_id = c.query_id AND q.doc_id = c.doc_id
    WHERE NOT {unjudged} AND {judged_by_group}
        AND ({max_depth} IS NULL OR c.rank <= {max_depth})
),
merged AS (
    SELECT run_id, query_id, doc_id, MAX(score) AS score, MAX(rank) AS rank,
        MAX(relevance) AS relevance
    FROM (
        SELECT run_id, query_id, doc_id, score, rank, relevance FROM found
        UNION ALL
        SELECT run_id, query_id, doc_id, CAST(NULL AS DOUBLE) AS score,
            CAST(NULL AS BIGINT) AS rank, relevance
        FROM judged
        WHERE NOT {unjudged} AND {judged_by_group}
    ) AS u
    GROUP BY run_id, query_id, doc_id
),
joined AS (
    SELECT
        COALESCE(c.run_id, j.run_id) AS run_id,
        COALESCE(c.query_id, j.query_id) AS query_id,
        COALESCE(c.doc_id, j.doc_id) AS doc_id,
        c.score AS score,
        c.rank AS rank,
        j.relevance AS relevance,
        CASE WHEN c.rank IS NOT NULL AND j.relevance IS NOT NULL AND j.relevance >= 0
            THEN 1 ELSE 0 END AS kept
    FROM cut AS c
    FULL OUTER JOIN judged AS j
        ON c.run_id = j.run_id AND c.query_id = j.query_id AND c.doc_id = j.doc_id
    WHERE {unjudged} OR NOT {judged_by_group}
    UNION ALL
    SELECT run_id, query_id, doc_id, score, rank, relevance,
        CASE WHEN rank IS NOT NULL AND relevance >= 0 THEN 1 ELSE 0 END AS kept
    FROM merged
)
SELECT run_id, query_id, doc_id, score, rank, relevance
FROM joined
WHERE NOT {judged_only} AND ({unjudged} OR relevance IS NOT NULL)
UNION ALL
SELECT
    run_id,
    query_id,
    doc_id,
    CASE WHEN kept = 1 THEN score END AS score,
    CASE WHEN kept = 1 THEN SUM(kept) OVER (
        PARTITION BY run_id, query_id ORDER BY rank
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) END AS rank,
    relevance
FROM joined
WHERE {judged_only} AND (rank IS NULL OR relevance IS NOT NULL)

-- raise: ireval_judge(missing := 'error')
-- a judged query that a run lacks (polars_ireval.judge raises MissingQueryError)
SELECT 'run ''' || ru.run_id || ''' has no ranking for judged query ''' || jq.query_id
    || '''; pass missing := ''skip'' to leave such queries out or ''zero'' to score them 0'
    AS problem
-- (the query continues the WITH clause of the macro, whose CTEs present and judged_queries
-- it reads)
FROM (SELECT DISTINCT run_id FROM present) AS ru
CROSS JOIN judged_queries AS jq
LEFT JOIN present AS pr ON pr.run_id = ru.run_id AND pr.query_id = jq.query_id
WHERE pr.query_id IS NULL

-- macro: ireval_rankings(run_table)
-- The rankings the run holds: one row (run_id, query_id) per ranking of run_table (run_id
-- '' for a run without one). Under missing := 'zero' the judge also scores the judged
-- queries a run lacks; a measure that declares its own value for those (utility: 0, as
-- trec_eval -c adds nothing for them) takes it where this table has no row.
SELECT DISTINCT
    COALESCE(CAST(run_id AS STRING), '') AS run_id,
    CAST(query_id AS STRING) AS query_id
FROM {run_table} AS src

-- macro: ireval_check(run_table, qrels_table)
-- One row (problem, run_id, query_id, doc_id) per input row that polars_ireval's readers
-- reject: duplicate documents in a ranking or judgments, null ids, null, NaN or infinite
-- scores, null or non-integer grades. An empty result means the inputs are sound; the
-- judge itself does not check (it would cost an extra pass).
WITH {@inputs},
raw_qrels AS (
    SELECT query_id, doc_id, relevance FROM {qrels_table} AS rq
)
SELECT 'run: duplicate document' AS problem, run_id, query_id, doc_id
FROM run
WHERE query_id IS NOT NULL AND doc_id IS NOT NULL
GROUP BY run_id, query_id, doc_id
HAVING COUNT(*) > 1
UNION ALL
SELECT 'run: null id' AS problem, run_id, query_id, doc_id
FROM run
WHERE query_id IS NULL OR doc_id IS NULL
UNION ALL
SELECT 'run: score is null or not finite' AS problem, run_id, query_id, doc_id
FROM run
WHERE score IS NULL OR NOT (score >= CAST('-1.7976931348623157e308' AS DOUBLE)
    AND score <= CAST('1.7976931348623157e308' AS DOUBLE))
UNION ALL
SELECT 'qrels: duplicate judgment' AS problem, CAST(NULL AS STRING) AS run_id, query_id, doc_id
FROM qrels
WHERE query_id IS NOT NULL AND doc_id IS NOT NULL
GROUP BY query_id, doc_id
HAVING COUNT(*) > 1
UNION ALL
SELECT 'qrels: null id' AS problem, CAST(NULL AS STRING) AS run_id, query_id, doc_id
FROM qrels
WHERE query_id IS NULL OR doc_id IS NULL
UNION ALL
SELECT 'qrels: null relevance' AS problem, CAST(NULL AS STRING) AS run_id,
    CAST(query_id AS STRING) AS query_id, CAST(doc_id AS STRING) AS doc_id
FROM raw_qrels
WHERE relevance IS NULL
UNION ALL
SELECT 'qrels: relevance is not an integer' AS problem, CAST(NULL AS STRING) AS run_id,
    CAST(query_id AS STRING) AS query_id, CAST(doc_id AS STRING) AS doc_id
FROM raw_qrels
WHERE CAST(relevance AS DOUBLE) <> CAST(CAST(relevance AS BIGINT) AS DOUBLE)
