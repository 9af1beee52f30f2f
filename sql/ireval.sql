-- ireval.sql: every ireval_ DuckDB macro, generated from the portable templates of the
-- family files by `python -m polars_ireval.sql`. Do not edit; a test checks it is up to
-- date. Load it with `.read ireval.sql` (DuckDB CLI) or polars_ireval.sql.load(con).

-- ---- judge.sql

-- run_table: [run_id,] query_id, doc_id, score [, input_rank] [, input_order]; qrels_table:
-- query_id, doc_id, relevance. One row per (run, query, document) retrieved or judged: run_id,
-- query_id, doc_id, score, rank, relevance. Ranking: score descending, ties by doc_id descending
-- byte-wise (ties := 'trec_eval'); 'doc_id_asc'; 'input_order' (score descending, then the
-- input_order column); 'rank' (input_rank ascending, then doc_id descending). max_depth keeps
-- the top ranks (trec_eval -M); judged_only condenses the ranking to judged documents (trec_eval
-- -J); missing := 'zero' scores judged queries a run lacks as empty rankings (trec_eval -c),
-- 'skip' leaves them out, 'error' fails on the first (in DuckDB; a query rendered for another
-- engine cannot). unjudged := FALSE leaves out the retrieved documents the qrels do not judge
-- (polars_ireval.judge's unjudged=False): a smaller table, all that measures not depending on
-- unjudged documents need. rank_by := 'count' (used with unjudged := FALSE, ignored otherwise)
-- ranks each judged retrieved document by counting the documents of its ranking ahead of it
-- instead of sorting every ranking: cheaper when the qrels judge a few documents a query (MS
-- MARCO-like), dearer when they judge many; same table. A run without a run_id column gets
-- run_id ''.
CREATE OR REPLACE MACRO ireval_judge(run_table, qrels_table, max_depth := NULL, judged_only := FALSE, ties := 'trec_eval', missing := 'skip', unjudged := TRUE, rank_by := 'window') AS TABLE
WITH ireval_run_table AS (SELECT * EXCLUDE (ireval_columns) FROM (SELECT * FROM (SELECT NULL AS query_id, NULL AS doc_id, NULL AS score, CAST(NULL AS STRING) AS run_id, CAST(NULL AS DOUBLE) AS input_rank, CAST(NULL AS BIGINT) AS input_order WHERE 1 = 0) AS proto UNION ALL BY NAME SELECT *, typeof(ireval_src) AS ireval_columns FROM query_table(COALESCE(error(CASE
    WHEN NOT (max_depth IS NULL OR (regexp_full_match(typeof(max_depth), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(max_depth AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(max_depth AS HUGEINT) >= 1, FALSE)))
        THEN 'ireval_judge: max_depth := ' || CASE typeof(max_depth) WHEN 'VARCHAR' THEN '''' || replace(CAST(max_depth AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(max_depth AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer (or NULL)'
    WHEN NOT (judged_only IS NOT NULL AND regexp_full_match(typeof(judged_only), 'BOOLEAN') AND TRY_CAST(judged_only AS BOOLEAN) IS NOT NULL AND COALESCE(TRUE, FALSE))
        THEN 'ireval_judge: judged_only := ' || CASE typeof(judged_only) WHEN 'VARCHAR' THEN '''' || replace(CAST(judged_only AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(judged_only AS VARCHAR), 'NULL') END || ' is invalid; it must be TRUE or FALSE'
    WHEN NOT (ties IS NOT NULL AND regexp_full_match(typeof(ties), 'VARCHAR') AND TRY_CAST(ties AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(ties AS VARCHAR)) IN (encode('trec_eval'), encode('doc_id_asc'), encode('input_order'), encode('rank')), FALSE))
        THEN 'ireval_judge: ties := ' || CASE typeof(ties) WHEN 'VARCHAR' THEN '''' || replace(CAST(ties AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(ties AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''trec_eval'', ''doc_id_asc'', ''input_order'', ''rank'''
    WHEN NOT (missing IS NOT NULL AND regexp_full_match(typeof(missing), 'VARCHAR') AND TRY_CAST(missing AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(missing AS VARCHAR)) IN (encode('skip'), encode('zero'), encode('error')), FALSE))
        THEN 'ireval_judge: missing := ' || CASE typeof(missing) WHEN 'VARCHAR' THEN '''' || replace(CAST(missing AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(missing AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''skip'', ''zero'', ''error'''
    WHEN NOT (unjudged IS NOT NULL AND regexp_full_match(typeof(unjudged), 'BOOLEAN') AND TRY_CAST(unjudged AS BOOLEAN) IS NOT NULL AND COALESCE(TRUE, FALSE))
        THEN 'ireval_judge: unjudged := ' || CASE typeof(unjudged) WHEN 'VARCHAR' THEN '''' || replace(CAST(unjudged AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(unjudged AS VARCHAR), 'NULL') END || ' is invalid; it must be TRUE or FALSE'
    WHEN NOT (rank_by IS NOT NULL AND regexp_full_match(typeof(rank_by), 'VARCHAR') AND TRY_CAST(rank_by AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(rank_by AS VARCHAR)) IN (encode('window'), encode('count')), FALSE))
        THEN 'ireval_judge: rank_by := ' || CASE typeof(rank_by) WHEN 'VARCHAR' THEN '''' || replace(CAST(rank_by AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rank_by AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''window'', ''count'''
END), run_table::VARCHAR)) AS ireval_src) AS ireval_read WHERE CASE WHEN typeof(query_id) IN ('NULL', '"NULL"') OR typeof(doc_id) IN ('NULL', '"NULL"') OR typeof(score) IN ('NULL', '"NULL"') THEN error('ireval_judge: the run table ''' || run_table::VARCHAR || ''' lacks column(s) [''' || concat_ws(''', ''', CASE WHEN typeof(query_id) IN ('NULL', '"NULL"') THEN 'query_id' END, CASE WHEN typeof(doc_id) IN ('NULL', '"NULL"') THEN 'doc_id' END, CASE WHEN typeof(score) IN ('NULL', '"NULL"') THEN 'score' END) || ''']; it has ' || regexp_replace(ireval_columns, '^STRUCT\((.*)\)$', '\1') || '. Rename them to [''query_id'', ''doc_id'', ''score''], e.g. in a view: SELECT ..., <column> AS ' || coalesce(CASE WHEN typeof(query_id) IN ('NULL', '"NULL"') THEN 'query_id' END, CASE WHEN typeof(doc_id) IN ('NULL', '"NULL"') THEN 'doc_id' END, CASE WHEN typeof(score) IN ('NULL', '"NULL"') THEN 'score' END)) ELSE TRUE END),
ireval_qrels_table AS (SELECT * EXCLUDE (ireval_columns) FROM (SELECT * FROM (SELECT NULL AS query_id, NULL AS doc_id, NULL AS relevance WHERE 1 = 0) AS proto UNION ALL BY NAME SELECT *, typeof(ireval_src) AS ireval_columns FROM query_table(qrels_table::VARCHAR) AS ireval_src) AS ireval_read WHERE CASE WHEN typeof(query_id) IN ('NULL', '"NULL"') OR typeof(doc_id) IN ('NULL', '"NULL"') OR typeof(relevance) IN ('NULL', '"NULL"') THEN error('ireval_judge: the qrels table ''' || qrels_table::VARCHAR || ''' lacks column(s) [''' || concat_ws(''', ''', CASE WHEN typeof(query_id) IN ('NULL', '"NULL"') THEN 'query_id' END, CASE WHEN typeof(doc_id) IN ('NULL', '"NULL"') THEN 'doc_id' END, CASE WHEN typeof(relevance) IN ('NULL', '"NULL"') THEN 'relevance' END) || ''']; it has ' || regexp_replace(ireval_columns, '^STRUCT\((.*)\)$', '\1') || '. Rename them to [''query_id'', ''doc_id'', ''relevance''], e.g. in a view: SELECT ..., <column> AS ' || coalesce(CASE WHEN typeof(query_id) IN ('NULL', '"NULL"') THEN 'query_id' END, CASE WHEN typeof(doc_id) IN ('NULL', '"NULL"') THEN 'doc_id' END, CASE WHEN typeof(relevance) IN ('NULL', '"NULL"') THEN 'relevance' END)) ELSE TRUE END),
run AS (
    SELECT
        COALESCE(CAST(run_id AS STRING), '') AS run_id,
        CAST(query_id AS STRING) AS query_id,
        CAST(doc_id AS STRING) AS doc_id,
        CASE WHEN typeof(score) IN ('VARCHAR', 'BLOB') THEN CAST(error('the run''s score column is text; scores must be numbers: cast it, e.g. CAST(score AS DOUBLE)') AS DOUBLE) ELSE CAST(score AS DOUBLE) END + CAST(0 AS DOUBLE) AS score,
        CAST(input_rank AS DOUBLE) AS input_rank,
        CAST(input_order AS BIGINT) AS input_order
    FROM ireval_run_table AS src
),
qrels AS (
    SELECT
        CAST(query_id AS STRING) AS query_id,
        CAST(doc_id AS STRING) AS doc_id,
        CAST(relevance AS BIGINT) AS relevance
    FROM ireval_qrels_table AS srq
),
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
    WHERE TRY_CAST(missing AS VARCHAR) <> 'zero'
    UNION ALL
    SELECT ru.run_id, jq.query_id
    FROM (SELECT DISTINCT run_id FROM present) AS ru
    CROSS JOIN judged_queries AS jq
    WHERE TRY_CAST(missing AS VARCHAR) = 'zero'
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
    WHERE TRY_CAST(rank_by AS VARCHAR) = 'count' AND NOT TRY_CAST(unjudged AS BOOLEAN) AND length(q.doc_id) >= 0
),
counted AS (
    SELECT
        h.run_id,
        h.query_id,
        h.doc_id,
        h.score,
        SUM(CASE
            WHEN TRY_CAST(ties AS VARCHAR) = 'rank' THEN CASE
                WHEN r.input_rank < h.input_rank THEN 1
                WHEN r.input_rank = h.input_rank AND r.doc_id COLLATE "C" >= h.doc_id COLLATE "C" THEN 1
                ELSE 0 END
            WHEN r.score > h.score THEN 1
            WHEN r.score < h.score THEN 0  -- (left out by the join already)
            WHEN TRY_CAST(ties AS VARCHAR) = 'trec_eval' THEN CASE WHEN r.doc_id COLLATE "C" >= h.doc_id COLLATE "C" THEN 1 ELSE 0 END
            WHEN TRY_CAST(ties AS VARCHAR) = 'doc_id_asc' THEN CASE WHEN r.doc_id COLLATE "C" <= h.doc_id COLLATE "C" THEN 1 ELSE 0 END
            WHEN r.input_order <= h.input_order THEN 1
            ELSE 0
        END) AS rank
    FROM hits AS h
    -- only the documents at or above the hit's score can be ahead of it (but by input_rank)
    JOIN run AS r ON r.run_id = h.run_id AND r.query_id = h.query_id
        AND (TRY_CAST(ties AS VARCHAR) = 'rank' OR r.score >= h.score)
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
            ORDER BY r.score DESC, r.doc_id COLLATE "C" DESC
        ) AS rank
    FROM run AS r
    WHERE TRY_CAST(ties AS VARCHAR) = 'trec_eval' AND (TRY_CAST(rank_by AS VARCHAR) <> 'count' OR TRY_CAST(unjudged AS BOOLEAN))
        AND r.query_id IN (SELECT query_id FROM judged_queries)
    UNION ALL
    SELECT
        r.run_id,
        r.query_id,
        r.doc_id,
        r.score,
        row_number() OVER (
            PARTITION BY r.run_id, r.query_id
            ORDER BY r.score DESC, r.doc_id COLLATE "C" ASC
        ) AS rank
    FROM run AS r
    WHERE TRY_CAST(ties AS VARCHAR) = 'doc_id_asc' AND (TRY_CAST(rank_by AS VARCHAR) <> 'count' OR TRY_CAST(unjudged AS BOOLEAN))
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
    WHERE TRY_CAST(ties AS VARCHAR) = 'input_order' AND (TRY_CAST(rank_by AS VARCHAR) <> 'count' OR TRY_CAST(unjudged AS BOOLEAN))
        AND r.query_id IN (SELECT query_id FROM judged_queries)
    UNION ALL
    SELECT
        r.run_id,
        r.query_id,
        r.doc_id,
        r.score,
        row_number() OVER (
            PARTITION BY r.run_id, r.query_id
            ORDER BY r.input_rank ASC, r.doc_id COLLATE "C" DESC
        ) AS rank
    FROM run AS r
    WHERE TRY_CAST(ties AS VARCHAR) = 'rank' AND (TRY_CAST(rank_by AS VARCHAR) <> 'count' OR TRY_CAST(unjudged AS BOOLEAN))
        AND r.query_id IN (SELECT query_id FROM judged_queries)
    UNION ALL
    SELECT run_id, query_id, doc_id, score, rank FROM counted
),
-- unjudged := FALSE: only the ranked documents some query judges meet the qrels
cut AS (
    SELECT run_id, query_id, doc_id, score, rank
    FROM ranked
    WHERE (TRY_CAST(max_depth AS HUGEINT) IS NULL OR rank <= TRY_CAST(max_depth AS HUGEINT))
        AND (TRY_CAST(unjudged AS BOOLEAN) OR FALSE OR doc_id IN (SELECT doc_id FROM qrels))
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
    WHERE NOT TRY_CAST(unjudged AS BOOLEAN) AND FALSE
        AND (TRY_CAST(max_depth AS HUGEINT) IS NULL OR c.rank <= TRY_CAST(max_depth AS HUGEINT))
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
        WHERE NOT TRY_CAST(unjudged AS BOOLEAN) AND FALSE
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
    WHERE TRY_CAST(unjudged AS BOOLEAN) OR NOT FALSE
    UNION ALL
    SELECT run_id, query_id, doc_id, score, rank, relevance,
        CASE WHEN rank IS NOT NULL AND relevance >= 0 THEN 1 ELSE 0 END AS kept
    FROM merged
)
SELECT run_id, query_id, doc_id, score, rank, relevance
FROM joined
WHERE NOT TRY_CAST(judged_only AS BOOLEAN) AND (TRY_CAST(unjudged AS BOOLEAN) OR relevance IS NOT NULL)
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
WHERE TRY_CAST(judged_only AS BOOLEAN) AND (rank IS NULL OR relevance IS NOT NULL)
UNION ALL BY NAME
SELECT error('ireval_judge: missing := ''error'': ' || problem) AS run_id, error('ireval_judge: missing := ''error'': ' || problem) AS query_id FROM (SELECT MIN(problem) AS problem FROM (
SELECT 'run ''' || ru.run_id || ''' has no ranking for judged query ''' || jq.query_id
    || '''; pass missing := ''skip'' to leave such queries out or ''zero'' to score them 0'
    AS problem
-- (the query continues the WITH clause of the macro, whose CTEs present and judged_queries
-- it reads)
FROM (SELECT DISTINCT run_id FROM present) AS ru
CROSS JOIN judged_queries AS jq
LEFT JOIN present AS pr ON pr.run_id = ru.run_id AND pr.query_id = jq.query_id
WHERE pr.query_id IS NULL
) AS ireval_raised WHERE TRY_CAST(missing AS VARCHAR) = 'error') AS ireval_raise WHERE problem IS NOT NULL;

-- The rankings the run holds: one row (run_id, query_id) per ranking of run_table (run_id '' for
-- a run without one). Under missing := 'zero' the judge also scores the judged queries a run
-- lacks; a measure that declares its own value for those (utility: 0, as trec_eval -c adds
-- nothing for them) takes it where this table has no row.
CREATE OR REPLACE MACRO ireval_rankings(run_table) AS TABLE
WITH ireval_run_table AS (SELECT * EXCLUDE (ireval_columns) FROM (SELECT * FROM (SELECT NULL AS query_id, NULL AS doc_id, NULL AS score, CAST(NULL AS STRING) AS run_id, CAST(NULL AS DOUBLE) AS input_rank, CAST(NULL AS BIGINT) AS input_order WHERE 1 = 0) AS proto UNION ALL BY NAME SELECT *, typeof(ireval_src) AS ireval_columns FROM query_table(run_table::VARCHAR) AS ireval_src) AS ireval_read WHERE CASE WHEN typeof(query_id) IN ('NULL', '"NULL"') OR typeof(doc_id) IN ('NULL', '"NULL"') OR typeof(score) IN ('NULL', '"NULL"') THEN error('ireval_rankings: the run table ''' || run_table::VARCHAR || ''' lacks column(s) [''' || concat_ws(''', ''', CASE WHEN typeof(query_id) IN ('NULL', '"NULL"') THEN 'query_id' END, CASE WHEN typeof(doc_id) IN ('NULL', '"NULL"') THEN 'doc_id' END, CASE WHEN typeof(score) IN ('NULL', '"NULL"') THEN 'score' END) || ''']; it has ' || regexp_replace(ireval_columns, '^STRUCT\((.*)\)$', '\1') || '. Rename them to [''query_id'', ''doc_id'', ''score''], e.g. in a view: SELECT ..., <column> AS ' || coalesce(CASE WHEN typeof(query_id) IN ('NULL', '"NULL"') THEN 'query_id' END, CASE WHEN typeof(doc_id) IN ('NULL', '"NULL"') THEN 'doc_id' END, CASE WHEN typeof(score) IN ('NULL', '"NULL"') THEN 'score' END)) ELSE TRUE END)
SELECT DISTINCT
    COALESCE(CAST(run_id AS STRING), '') AS run_id,
    CAST(query_id AS STRING) AS query_id
FROM ireval_run_table AS src;

-- One row (problem, run_id, query_id, doc_id) per input row that polars_ireval's readers reject:
-- duplicate documents in a ranking or judgments, null ids, null, NaN or infinite scores, null or
-- non-integer grades. An empty result means the inputs are sound; the judge itself does not
-- check (it would cost an extra pass).
CREATE OR REPLACE MACRO ireval_check(run_table, qrels_table) AS TABLE
WITH ireval_run_table AS (SELECT * EXCLUDE (ireval_columns) FROM (SELECT * FROM (SELECT NULL AS query_id, NULL AS doc_id, NULL AS score, CAST(NULL AS STRING) AS run_id, CAST(NULL AS DOUBLE) AS input_rank, CAST(NULL AS BIGINT) AS input_order WHERE 1 = 0) AS proto UNION ALL BY NAME SELECT *, typeof(ireval_src) AS ireval_columns FROM query_table(run_table::VARCHAR) AS ireval_src) AS ireval_read WHERE CASE WHEN typeof(query_id) IN ('NULL', '"NULL"') OR typeof(doc_id) IN ('NULL', '"NULL"') OR typeof(score) IN ('NULL', '"NULL"') THEN error('ireval_check: the run table ''' || run_table::VARCHAR || ''' lacks column(s) [''' || concat_ws(''', ''', CASE WHEN typeof(query_id) IN ('NULL', '"NULL"') THEN 'query_id' END, CASE WHEN typeof(doc_id) IN ('NULL', '"NULL"') THEN 'doc_id' END, CASE WHEN typeof(score) IN ('NULL', '"NULL"') THEN 'score' END) || ''']; it has ' || regexp_replace(ireval_columns, '^STRUCT\((.*)\)$', '\1') || '. Rename them to [''query_id'', ''doc_id'', ''score''], e.g. in a view: SELECT ..., <column> AS ' || coalesce(CASE WHEN typeof(query_id) IN ('NULL', '"NULL"') THEN 'query_id' END, CASE WHEN typeof(doc_id) IN ('NULL', '"NULL"') THEN 'doc_id' END, CASE WHEN typeof(score) IN ('NULL', '"NULL"') THEN 'score' END)) ELSE TRUE END),
ireval_qrels_table AS (SELECT * EXCLUDE (ireval_columns) FROM (SELECT * FROM (SELECT NULL AS query_id, NULL AS doc_id, NULL AS relevance WHERE 1 = 0) AS proto UNION ALL BY NAME SELECT *, typeof(ireval_src) AS ireval_columns FROM query_table(qrels_table::VARCHAR) AS ireval_src) AS ireval_read WHERE CASE WHEN typeof(query_id) IN ('NULL', '"NULL"') OR typeof(doc_id) IN ('NULL', '"NULL"') OR typeof(relevance) IN ('NULL', '"NULL"') THEN error('ireval_check: the qrels table ''' || qrels_table::VARCHAR || ''' lacks column(s) [''' || concat_ws(''', ''', CASE WHEN typeof(query_id) IN ('NULL', '"NULL"') THEN 'query_id' END, CASE WHEN typeof(doc_id) IN ('NULL', '"NULL"') THEN 'doc_id' END, CASE WHEN typeof(relevance) IN ('NULL', '"NULL"') THEN 'relevance' END) || ''']; it has ' || regexp_replace(ireval_columns, '^STRUCT\((.*)\)$', '\1') || '. Rename them to [''query_id'', ''doc_id'', ''relevance''], e.g. in a view: SELECT ..., <column> AS ' || coalesce(CASE WHEN typeof(query_id) IN ('NULL', '"NULL"') THEN 'query_id' END, CASE WHEN typeof(doc_id) IN ('NULL', '"NULL"') THEN 'doc_id' END, CASE WHEN typeof(relevance) IN ('NULL', '"NULL"') THEN 'relevance' END)) ELSE TRUE END),
run AS (
    SELECT
        COALESCE(CAST(run_id AS STRING), '') AS run_id,
        CAST(query_id AS STRING) AS query_id,
        CAST(doc_id AS STRING) AS doc_id,
        CASE WHEN typeof(score) IN ('VARCHAR', 'BLOB') THEN CAST(error('the run''s score column is text; scores must be numbers: cast it, e.g. CAST(score AS DOUBLE)') AS DOUBLE) ELSE CAST(score AS DOUBLE) END + CAST(0 AS DOUBLE) AS score,
        CAST(input_rank AS DOUBLE) AS input_rank,
        CAST(input_order AS BIGINT) AS input_order
    FROM ireval_run_table AS src
),
qrels AS (
    SELECT
        CAST(query_id AS STRING) AS query_id,
        CAST(doc_id AS STRING) AS doc_id,
        CAST(relevance AS BIGINT) AS relevance
    FROM ireval_qrels_table AS srq
),
raw_qrels AS (
    SELECT query_id, doc_id, relevance FROM ireval_qrels_table AS rq
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
WHERE CAST(relevance AS DOUBLE) <> CAST(CAST(relevance AS BIGINT) AS DOUBLE);

-- ---- precision.sql

-- P@k: relevant documents in the top k over k (missing ranks count as non-relevant). Column
-- residual: the unjudged documents in the top k and the ranks missing before k, each weighing 1
-- / k (P@k's user model reads exactly k documents); column depth: k.
CREATE OR REPLACE MACRO ireval_p(eval_table, k, rel := 1) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NOT NULL AND regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1, FALSE))
        THEN 'ireval_p: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer'
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_p: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
END), eval_table::VARCHAR)))
SELECT run_id, query_id, CAST(rel_ret_k AS DOUBLE) / CAST(TRY_CAST(k AS HUGEINT) AS DOUBLE) AS value,
    CAST(unknown_k + (TRY_CAST(k AS HUGEINT) - num_ret_k) AS DOUBLE) * (CAST(1 AS DOUBLE) / CAST(TRY_CAST(k AS HUGEINT) AS DOUBLE))
        AS residual,
    CAST(1 AS DOUBLE) / (CAST(1 AS DOUBLE) / CAST(TRY_CAST(k AS HUGEINT) AS DOUBLE)) AS depth
FROM (
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
            CASE WHEN rank IS NOT NULL AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT))
                THEN 1 ELSE 0 END AS is_ret_k,
            CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_rel,
            CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_nonrel
        FROM ireval_eval_table
    ) AS f
    GROUP BY run_id, query_id
);

-- R@k: relevant documents in the top k over all relevant documents (0 when none).
CREATE OR REPLACE MACRO ireval_recall(eval_table, k, rel := 1) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NOT NULL AND regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1, FALSE))
        THEN 'ireval_recall: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer'
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_recall: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
END), eval_table::VARCHAR)))
SELECT run_id, query_id,
    CASE WHEN num_rel > 0 THEN CAST(rel_ret_k AS DOUBLE) / CAST(num_rel AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM (
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
            CASE WHEN rank IS NOT NULL AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT))
                THEN 1 ELSE 0 END AS is_ret_k,
            CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_rel,
            CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_nonrel
        FROM ireval_eval_table
    ) AS f
    GROUP BY run_id, query_id
);

-- Success@k: 1 when a relevant document is in the top k.
CREATE OR REPLACE MACRO ireval_success(eval_table, k, rel := 1) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NOT NULL AND regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1, FALSE))
        THEN 'ireval_success: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer'
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_success: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
END), eval_table::VARCHAR)))
SELECT run_id, query_id,
    CASE WHEN rel_ret_k > 0 THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END AS value
FROM (
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
            CASE WHEN rank IS NOT NULL AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT))
                THEN 1 ELSE 0 END AS is_ret_k,
            CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_rel,
            CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_nonrel
        FROM ireval_eval_table
    ) AS f
    GROUP BY run_id, query_id
);

-- relative_P@k: relevant documents in the top k over min(k, R).
CREATE OR REPLACE MACRO ireval_relative_p(eval_table, k, rel := 1) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NOT NULL AND regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1, FALSE))
        THEN 'ireval_relative_p: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer'
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_relative_p: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
END), eval_table::VARCHAR)))
SELECT run_id, query_id,
    CASE WHEN num_rel > 0 THEN CAST(rel_ret_k AS DOUBLE)
        / CAST(CASE WHEN num_rel < TRY_CAST(k AS HUGEINT) THEN num_rel ELSE TRY_CAST(k AS HUGEINT) END AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM (
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
            CASE WHEN rank IS NOT NULL AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT))
                THEN 1 ELSE 0 END AS is_ret_k,
            CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_rel,
            CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_nonrel
        FROM ireval_eval_table
    ) AS f
    GROUP BY run_id, query_id
);

-- Judged@k: share of the top k documents (as retrieved) that are judged.
CREATE OR REPLACE MACRO ireval_judged(eval_table, k) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NULL OR (regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1, FALSE)))
        THEN 'ireval_judged: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer (or NULL)'
END), eval_table::VARCHAR)))
SELECT run_id, query_id,
    CASE WHEN num_ret_k > 0 THEN CAST(judged_k AS DOUBLE) / CAST(num_ret_k AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM (
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
            CASE WHEN rank IS NOT NULL AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT))
                THEN 1 ELSE 0 END AS is_ret_k,
            CASE WHEN relevance IS NOT NULL AND relevance >= 1
                THEN 1 ELSE 0 END AS is_rel,
            CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < 1
                THEN 1 ELSE 0 END AS is_nonrel
        FROM ireval_eval_table
    ) AS f
    GROUP BY run_id, query_id
);

-- Unjudged@k: unjudged documents (or negative grades) in the top k, over k.
CREATE OR REPLACE MACRO ireval_unjudged(eval_table, k) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NOT NULL AND regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1, FALSE))
        THEN 'ireval_unjudged: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer'
END), eval_table::VARCHAR)))
SELECT run_id, query_id, CAST(unjudged_k AS DOUBLE) / CAST(TRY_CAST(k AS HUGEINT) AS DOUBLE) AS value
FROM (
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
            CASE WHEN rank IS NOT NULL AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT))
                THEN 1 ELSE 0 END AS is_ret_k,
            CASE WHEN relevance IS NOT NULL AND relevance >= 1
                THEN 1 ELSE 0 END AS is_rel,
            CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < 1
                THEN 1 ELSE 0 END AS is_nonrel
        FROM ireval_eval_table
    ) AS f
    GROUP BY run_id, query_id
);

-- ---- counts.sql

CREATE OR REPLACE MACRO ireval_num_q(eval_table) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(eval_table::VARCHAR))
SELECT run_id, query_id, CAST(1 AS DOUBLE) AS value
FROM (SELECT DISTINCT run_id, query_id FROM ireval_eval_table);

CREATE OR REPLACE MACRO ireval_num_ret(eval_table) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(eval_table::VARCHAR))
SELECT run_id, query_id, CAST(num_ret AS DOUBLE) AS value
FROM (
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
            CASE WHEN rank IS NOT NULL AND (NULL IS NULL OR rank <= NULL)
                THEN 1 ELSE 0 END AS is_ret_k,
            CASE WHEN relevance IS NOT NULL AND relevance >= 1
                THEN 1 ELSE 0 END AS is_rel,
            CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < 1
                THEN 1 ELSE 0 END AS is_nonrel
        FROM ireval_eval_table
    ) AS f
    GROUP BY run_id, query_id
);

CREATE OR REPLACE MACRO ireval_num_rel(eval_table, rel := 1) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_num_rel: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
END), eval_table::VARCHAR)))
SELECT run_id, query_id, CAST(num_rel AS DOUBLE) AS value
FROM (
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
            CASE WHEN rank IS NOT NULL AND (NULL IS NULL OR rank <= NULL)
                THEN 1 ELSE 0 END AS is_ret_k,
            CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_rel,
            CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_nonrel
        FROM ireval_eval_table
    ) AS f
    GROUP BY run_id, query_id
);

CREATE OR REPLACE MACRO ireval_num_rel_ret(eval_table, rel := 1) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_num_rel_ret: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
END), eval_table::VARCHAR)))
SELECT run_id, query_id, CAST(rel_ret AS DOUBLE) AS value
FROM (
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
            CASE WHEN rank IS NOT NULL AND (NULL IS NULL OR rank <= NULL)
                THEN 1 ELSE 0 END AS is_ret_k,
            CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_rel,
            CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_nonrel
        FROM ireval_eval_table
    ) AS f
    GROUP BY run_id, query_id
);

CREATE OR REPLACE MACRO ireval_num_nonrel_judged_ret(eval_table, rel := 1) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_num_nonrel_judged_ret: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
END), eval_table::VARCHAR)))
SELECT run_id, query_id, CAST(nonrel_ret AS DOUBLE) AS value
FROM (
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
            CASE WHEN rank IS NOT NULL AND (NULL IS NULL OR rank <= NULL)
                THEN 1 ELSE 0 END AS is_ret_k,
            CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_rel,
            CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_nonrel
        FROM ireval_eval_table
    ) AS f
    GROUP BY run_id, query_id
);

-- ---- sets.sql

CREATE OR REPLACE MACRO ireval_set_p(eval_table, rel := 1) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_set_p: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
END), eval_table::VARCHAR)))
SELECT run_id, query_id,
    CASE WHEN num_ret > 0 THEN CAST(rel_ret AS DOUBLE) / CAST(num_ret AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM (
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
            CASE WHEN rank IS NOT NULL AND (NULL IS NULL OR rank <= NULL)
                THEN 1 ELSE 0 END AS is_ret_k,
            CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_rel,
            CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_nonrel
        FROM ireval_eval_table
    ) AS f
    GROUP BY run_id, query_id
);

CREATE OR REPLACE MACRO ireval_set_r(eval_table, rel := 1) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_set_r: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
END), eval_table::VARCHAR)))
SELECT run_id, query_id,
    CASE WHEN num_rel > 0 THEN CAST(rel_ret AS DOUBLE) / CAST(num_rel AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM (
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
            CASE WHEN rank IS NOT NULL AND (NULL IS NULL OR rank <= NULL)
                THEN 1 ELSE 0 END AS is_ret_k,
            CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_rel,
            CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_nonrel
        FROM ireval_eval_table
    ) AS f
    GROUP BY run_id, query_id
);

CREATE OR REPLACE MACRO ireval_set_relative_p(eval_table, rel := 1) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_set_relative_p: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
END), eval_table::VARCHAR)))
SELECT run_id, query_id,
    CASE WHEN num_ret > 0 AND num_rel > 0 THEN CAST(rel_ret AS DOUBLE)
        / CAST(CASE WHEN num_ret < num_rel THEN num_ret ELSE num_rel END AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM (
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
            CASE WHEN rank IS NOT NULL AND (NULL IS NULL OR rank <= NULL)
                THEN 1 ELSE 0 END AS is_ret_k,
            CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_rel,
            CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_nonrel
        FROM ireval_eval_table
    ) AS f
    GROUP BY run_id, query_id
);

-- set_map: rel_ret^2 / (num_ret * num_rel) in one division, as trec_eval computes it.
CREATE OR REPLACE MACRO ireval_set_ap(eval_table, rel := 1) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_set_ap: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
END), eval_table::VARCHAR)))
SELECT run_id, query_id,
    CASE WHEN num_ret > 0 AND num_rel > 0
        THEN CAST(rel_ret AS DOUBLE) * CAST(rel_ret AS DOUBLE)
            / (CAST(num_ret AS DOUBLE) * CAST(num_rel AS DOUBLE))
    ELSE CAST(0 AS DOUBLE) END AS value
FROM (
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
            CASE WHEN rank IS NOT NULL AND (NULL IS NULL OR rank <= NULL)
                THEN 1 ELSE 0 END AS is_ret_k,
            CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_rel,
            CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_nonrel
        FROM ireval_eval_table
    ) AS f
    GROUP BY run_id, query_id
);

-- SetF: (1 + w) P R / (w P + R), 0 when the denominator is 0; w = beta, trec_eval's set_F.x (not
-- squared), or f_beta * f_beta (van Rijsbergen's beta, seed 003) when f_beta is given.
CREATE OR REPLACE MACRO ireval_set_f(eval_table, beta := 1, rel := 1, f_beta := NULL) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (beta IS NOT NULL AND regexp_full_match(typeof(beta), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(beta AS DOUBLE) IS NOT NULL AND COALESCE(isfinite(TRY_CAST(beta AS DOUBLE)) AND TRY_CAST(beta AS DOUBLE) >= 0, FALSE))
        THEN 'ireval_set_f: beta := ' || CASE typeof(beta) WHEN 'VARCHAR' THEN '''' || replace(CAST(beta AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(beta AS VARCHAR), 'NULL') END || ' is invalid; it must be a non-negative finite number'
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_set_f: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
    WHEN NOT (f_beta IS NULL OR (regexp_full_match(typeof(f_beta), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(f_beta AS DOUBLE) IS NOT NULL AND COALESCE(isfinite(TRY_CAST(f_beta AS DOUBLE)) AND TRY_CAST(f_beta AS DOUBLE) >= 0, FALSE)))
        THEN 'ireval_set_f: f_beta := ' || CASE typeof(f_beta) WHEN 'VARCHAR' THEN '''' || replace(CAST(f_beta AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(f_beta AS VARCHAR), 'NULL') END || ' is invalid; it must be a non-negative finite number (or NULL)'
    WHEN COALESCE(TRY_CAST(f_beta AS DOUBLE) IS NOT NULL AND TRY_CAST(beta AS DOUBLE) <> 1, FALSE)
        THEN 'ireval_set_f: ' || 'give beta or f_beta, not both (beta is trec_eval''s set_F weight of recall, beta² in van Rijsbergen''s F; f_beta is his beta, squared here)'
END), eval_table::VARCHAR)))
SELECT run_id, query_id,
    CASE WHEN b2 * sp + sr > 0
        THEN (CAST(1 AS DOUBLE) + b2) * sp * sr / (b2 * sp + sr)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM (
    SELECT run_id, query_id,
        CASE WHEN num_ret > 0 THEN CAST(rel_ret AS DOUBLE) / CAST(num_ret AS DOUBLE)
        ELSE CAST(0 AS DOUBLE) END AS sp,
        CASE WHEN num_rel > 0 THEN CAST(rel_ret AS DOUBLE) / CAST(num_rel AS DOUBLE)
        ELSE CAST(0 AS DOUBLE) END AS sr,
        CAST(COALESCE(TRY_CAST(f_beta AS DOUBLE) * TRY_CAST(f_beta AS DOUBLE), TRY_CAST(beta AS DOUBLE)) AS DOUBLE) AS b2
    FROM (
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
            CASE WHEN rank IS NOT NULL AND (NULL IS NULL OR rank <= NULL)
                THEN 1 ELSE 0 END AS is_ret_k,
            CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_rel,
            CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_nonrel
        FROM ireval_eval_table
    ) AS f
    GROUP BY run_id, query_id
)
) AS pr;

-- SetAccuracy: (TP + TN) / N of the top k (the whole ranking when k is NULL) in a collection of
-- num_docs documents; NaN when num_docs is smaller than the documents retrieved or judged for
-- the query.
CREATE OR REPLACE MACRO ireval_set_accuracy(eval_table, num_docs, k := NULL, rel := 1) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (num_docs IS NOT NULL AND regexp_full_match(typeof(num_docs), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(num_docs AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(num_docs AS HUGEINT) >= 1, FALSE))
        THEN 'ireval_set_accuracy: num_docs := ' || CASE typeof(num_docs) WHEN 'VARCHAR' THEN '''' || replace(CAST(num_docs AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(num_docs AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer'
    WHEN NOT (k IS NULL OR (regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1, FALSE)))
        THEN 'ireval_set_accuracy: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer (or NULL)'
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_set_accuracy: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
END), eval_table::VARCHAR)))
SELECT run_id, query_id,
    CASE WHEN docs <= TRY_CAST(num_docs AS HUGEINT)
        THEN (tp + (CAST(TRY_CAST(num_docs AS HUGEINT) AS DOUBLE) - ret - r + tp)) / CAST(TRY_CAST(num_docs AS HUGEINT) AS DOUBLE)
    ELSE CAST('NaN' AS DOUBLE) END AS value
FROM (
    SELECT run_id, query_id,
        CAST(SUM(CASE WHEN rank IS NOT NULL AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT))
            AND relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT) THEN 1 ELSE 0 END) AS DOUBLE) AS tp,
        CAST(SUM(CASE WHEN rank IS NOT NULL AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT))
            THEN 1 ELSE 0 END) AS DOUBLE) AS ret,
        CAST(SUM(CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
            THEN 1 ELSE 0 END) AS DOUBLE) AS r,
        COUNT(*) AS docs
    FROM ireval_eval_table
    GROUP BY run_id, query_id
);

-- Fallout: FP / (FP + TN) = (retrieved - TP) / (num_docs - R) of the top k (the whole ranking
-- when k is NULL), 0 when num_docs = R; NaN when num_docs is smaller than the documents
-- retrieved or judged for the query.
CREATE OR REPLACE MACRO ireval_fallout(eval_table, num_docs, k := NULL, rel := 1) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (num_docs IS NOT NULL AND regexp_full_match(typeof(num_docs), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(num_docs AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(num_docs AS HUGEINT) >= 1, FALSE))
        THEN 'ireval_fallout: num_docs := ' || CASE typeof(num_docs) WHEN 'VARCHAR' THEN '''' || replace(CAST(num_docs AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(num_docs AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer'
    WHEN NOT (k IS NULL OR (regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1, FALSE)))
        THEN 'ireval_fallout: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer (or NULL)'
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_fallout: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
END), eval_table::VARCHAR)))
SELECT run_id, query_id,
    CASE WHEN docs > TRY_CAST(num_docs AS HUGEINT) THEN CAST('NaN' AS DOUBLE)
    WHEN CAST(TRY_CAST(num_docs AS HUGEINT) AS DOUBLE) - r > 0
        THEN (ret - tp) / (CAST(TRY_CAST(num_docs AS HUGEINT) AS DOUBLE) - r)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM (
    SELECT run_id, query_id,
        CAST(SUM(CASE WHEN rank IS NOT NULL AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT))
            AND relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT) THEN 1 ELSE 0 END) AS DOUBLE) AS tp,
        CAST(SUM(CASE WHEN rank IS NOT NULL AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT))
            THEN 1 ELSE 0 END) AS DOUBLE) AS ret,
        CAST(SUM(CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
            THEN 1 ELSE 0 END) AS DOUBLE) AS r,
        COUNT(*) AS docs
    FROM ireval_eval_table
    GROUP BY run_id, query_id
);

-- ---- ap.sql

-- AP@k: the sum of precision at each relevant document in the top k, over R. The terms are added
-- in rank order (a running window sum), as trec_eval does.
CREATE OR REPLACE MACRO ireval_ap(eval_table, k := NULL, rel := 1) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NULL OR (regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1, FALSE)))
        THEN 'ireval_ap: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer (or NULL)'
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_ap: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
END), eval_table::VARCHAR))),
hits AS (
    SELECT run_id, query_id, rank,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank) AS i
    FROM ireval_eval_table
    WHERE rank IS NOT NULL AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT))
        AND relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
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
FROM (
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
            CASE WHEN rank IS NOT NULL AND (NULL IS NULL OR rank <= NULL)
                THEN 1 ELSE 0 END AS is_ret_k,
            CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_rel,
            CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_nonrel
        FROM ireval_eval_table
    ) AS f
    GROUP BY run_id, query_id
) AS s
LEFT JOIN running AS x
    ON x.run_id = s.run_id AND x.query_id = s.query_id AND x.from_end = 1;

-- SP@k: the sum of precision at each relevant document in the top k (AP before its division by
-- R), added in rank order.
CREATE OR REPLACE MACRO ireval_sp(eval_table, k := NULL, rel := 1) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NULL OR (regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1, FALSE)))
        THEN 'ireval_sp: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer (or NULL)'
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_sp: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
END), eval_table::VARCHAR))),
hits AS (
    SELECT run_id, query_id, rank,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank) AS i
    FROM ireval_eval_table
    WHERE rank IS NOT NULL AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT))
        AND relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
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
FROM (SELECT DISTINCT run_id, query_id FROM ireval_eval_table) AS pa
LEFT JOIN running AS x
    ON x.run_id = pa.run_id AND x.query_id = pa.query_id AND x.from_end = 1;

-- AP's variants (polars_ireval.measures.ap.ap): the sum over the top k ranks of r_i x (r_1 + ...
-- + r_i) x w_i, in rank order, over a norm: 'R' (documents with r > 0), 'min' (min(k, R); R
-- without k) or 'self' (documents in the top k with r > 0); 0 when it is 0. r is 1 for grade >=
-- rel, or the grade's value in the gain map `gains` (grades not listed and unjudged documents:
-- 0); w_i the weight of rank i under `discount` (see the `discounted` fragment; 'rank' 1/i gives
-- AP).
CREATE OR REPLACE MACRO ireval_ap_variant(eval_table, k := NULL, rel := 1, norm := 'R', gains := '', discount := 'rank', b := 2.0, weights := '') AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NULL OR (regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1, FALSE)))
        THEN 'ireval_ap_variant: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer (or NULL)'
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_ap_variant: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
    WHEN NOT (norm IS NOT NULL AND regexp_full_match(typeof(norm), 'VARCHAR') AND TRY_CAST(norm AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(norm AS VARCHAR)) IN (encode('R'), encode('min'), encode('self')), FALSE))
        THEN 'ireval_ap_variant: norm := ' || CASE typeof(norm) WHEN 'VARCHAR' THEN '''' || replace(CAST(norm AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(norm AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''R'', ''min'', ''self'''
    WHEN NOT (gains IS NOT NULL AND regexp_full_match(typeof(gains), 'VARCHAR') AND TRY_CAST(gains AS VARCHAR) IS NOT NULL AND COALESCE(TRY_CAST(gains AS VARCHAR) = '' OR (regexp_full_match(TRY_CAST(gains AS VARCHAR), '(,(0|-?[1-9][0-9]*)=[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)+,') AND len(list_distinct(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: split_part(ireval_e, '=', 1)))) = len(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ',')) AND list_bool_and(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: NOT starts_with(split_part(ireval_e, '=', 1), '-') AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) >= 0 AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) <= 1))), FALSE))
        THEN 'ireval_ap_variant: gains := ' || CASE typeof(gains) WHEN 'VARCHAR' THEN '''' || replace(CAST(gains AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(gains AS VARCHAR), 'NULL') END || ' is invalid; it must be '''' or a map '',grade=value,...,'' of distinct integer grades of 0 or more to gains in [0, 1], e.g. '',1=0.5,2=1,'''
    WHEN NOT (discount IS NOT NULL AND regexp_full_match(typeof(discount), 'VARCHAR') AND TRY_CAST(discount AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(discount AS VARCHAR)) IN (encode('log2'), encode('log'), encode('jk'), encode('none'), encode('root'), encode('rank'), encode('square'), encode('click'), encode('custom')), FALSE))
        THEN 'ireval_ap_variant: discount := ' || CASE typeof(discount) WHEN 'VARCHAR' THEN '''' || replace(CAST(discount AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(discount AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''log2'', ''log'', ''jk'', ''none'', ''root'', ''rank'', ''square'', ''click'', ''custom'''
    WHEN NOT (b IS NOT NULL AND regexp_full_match(typeof(b), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(b AS DOUBLE) IS NOT NULL AND COALESCE(isfinite(TRY_CAST(b AS DOUBLE)) AND TRY_CAST(b AS DOUBLE) > 0, FALSE))
        THEN 'ireval_ap_variant: b := ' || CASE typeof(b) WHEN 'VARCHAR' THEN '''' || replace(CAST(b AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(b AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive finite number'
    WHEN NOT (weights IS NOT NULL AND regexp_full_match(typeof(weights), 'VARCHAR') AND TRY_CAST(weights AS VARCHAR) IS NOT NULL AND COALESCE(TRY_CAST(weights AS VARCHAR) = '' OR (regexp_full_match(TRY_CAST(weights AS VARCHAR), '(,(0|-?[1-9][0-9]*)=[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)+,') AND list_bool_and(list_transform(string_split(trim(TRY_CAST(weights AS VARCHAR), ','), ','), lambda ireval_e, ireval_i: split_part(ireval_e, '=', 1) = CAST(ireval_i AS VARCHAR) AND isfinite(TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE)) AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) >= 0))), FALSE))
        THEN 'ireval_ap_variant: weights := ' || CASE typeof(weights) WHEN 'VARCHAR' THEN '''' || replace(CAST(weights AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(weights AS VARCHAR), 'NULL') END || ' is invalid; it must be '''' or a weight vector '',1=w1,2=w2,...,'' of finite non-negative weights of ranks 1, 2, ... in order, e.g. '',1=1,2=0.6,3=0.3,'''
    WHEN COALESCE(TRY_CAST(discount AS VARCHAR) IN ('click', 'custom') AND TRY_CAST(weights AS VARCHAR) = '', FALSE)
        THEN 'ireval_ap_variant: ' || 'discount := ' || '''' || TRY_CAST(discount AS VARCHAR) || '''' || ' needs weights := '',1=w1,2=w2,...,'', the weight of each rank'
    WHEN COALESCE(NOT (TRY_CAST(discount AS VARCHAR) IN ('click', 'custom')) AND TRY_CAST(weights AS VARCHAR) <> '', FALSE)
        THEN 'ireval_ap_variant: ' || 'weights is only used with discount := ''click'' or ''custom'', not ' || '''' || TRY_CAST(discount AS VARCHAR) || ''''
    WHEN COALESCE(TRY_CAST(discount AS VARCHAR) IN ('log', 'jk') AND NOT TRY_CAST(b AS DOUBLE) > 1, FALSE)
        THEN 'ireval_ap_variant: ' || 'discount := ' || '''' || TRY_CAST(discount AS VARCHAR) || '''' || ' needs a log base b > 1, got b := ' || CAST(TRY_CAST(b AS DOUBLE) AS VARCHAR)
END), eval_table::VARCHAR))),
graded AS (
    SELECT run_id, query_id, rank,
        CASE WHEN relevance IS NULL THEN CAST(0 AS DOUBLE)
            WHEN TRY_CAST(gains AS VARCHAR) = '' THEN
                CASE WHEN relevance >= TRY_CAST(rel AS HUGEINT) THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END
            ELSE COALESCE(CASE WHEN TRY_CAST(gains AS VARCHAR) = ''
        OR instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END, CAST(0 AS DOUBLE))
        END AS r
    FROM ireval_eval_table
),
cum AS (
    SELECT run_id, query_id, rank,
        r * SUM(r) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS rc
    FROM graded
    WHERE rank IS NOT NULL AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT))
),
running AS (
    SELECT run_id, query_id,
        SUM(CASE TRY_CAST(discount AS VARCHAR)
    WHEN 'log2' THEN rc / log2(CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE))
    WHEN 'log' THEN rc / (ln(CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE)) / ln(CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE)))
    WHEN 'jk' THEN CASE WHEN CAST(rank AS DOUBLE) < CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE) THEN rc
        ELSE rc / (ln(CAST(rank AS DOUBLE)) / ln(CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE))) END
    WHEN 'none' THEN rc
    WHEN 'root' THEN rc / sqrt(CAST(rank AS DOUBLE))
    WHEN 'rank' THEN rc / CAST(rank AS DOUBLE)
    WHEN 'square' THEN rc / (CAST(rank AS DOUBLE) * CAST(rank AS DOUBLE))
    ELSE rc * CASE WHEN TRY_CAST(weights AS VARCHAR) = ''
        OR instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(rank AS STRING) || '=') = 0 THEN CAST(0 AS DOUBLE)
    ELSE COALESCE(CAST(NULLIF(substr(
        substr(TRY_CAST(weights AS VARCHAR), instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(rank AS STRING) || '=')
            + length(CAST(rank AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(weights AS VARCHAR), instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(rank AS STRING) || '=')
            + length(CAST(rank AS STRING)) + 2), ',') - 1), '') AS DOUBLE), CAST(0 AS DOUBLE))
END
END) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS total,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM cum
),
counts AS (
    SELECT run_id, query_id,
        SUM(CASE WHEN r > CAST(0 AS DOUBLE) THEN 1 ELSE 0 END) AS n_all,
        SUM(CASE WHEN r > CAST(0 AS DOUBLE) AND rank IS NOT NULL AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT))
            THEN 1 ELSE 0 END) AS n_top
    FROM graded
    GROUP BY run_id, query_id
),
normed AS (
    SELECT c.run_id, c.query_id, COALESCE(x.total, CAST(0 AS DOUBLE)) AS total,
        CASE WHEN TRY_CAST(norm AS VARCHAR) = 'self' THEN c.n_top
            WHEN TRY_CAST(norm AS VARCHAR) = 'min' AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND TRY_CAST(k AS HUGEINT) < c.n_all THEN TRY_CAST(k AS HUGEINT)
            ELSE c.n_all END AS n
    FROM counts AS c
    LEFT JOIN running AS x
        ON x.run_id = c.run_id AND x.query_id = c.query_id AND x.from_end = 1
)
SELECT run_id, query_id,
    CASE WHEN n > 0 THEN total / CAST(n AS DOUBLE) ELSE CAST(0 AS DOUBLE) END AS value
FROM normed;

-- Q@k, Sakai's Q-measure: the sum over the relevant documents (grade >= rel) in the top k of
-- (C(i) + beta cg(i)) / (i + beta cg*(i)), in rank order, over R; C(i) relevant documents in the
-- top i, cg(i) the cumulated gain of the ranking, cg*(i) that of the ideal ranking (its total
-- past its end). Gain: the grade, or its value in `gains` (grades not listed keep it); unjudged
-- documents and negative grades gain 0.
CREATE OR REPLACE MACRO ireval_q(eval_table, k := NULL, beta := 1.0, rel := 1, gains := '') AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NULL OR (regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1, FALSE)))
        THEN 'ireval_q: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer (or NULL)'
    WHEN NOT (beta IS NOT NULL AND regexp_full_match(typeof(beta), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(beta AS DOUBLE) IS NOT NULL AND COALESCE(isfinite(TRY_CAST(beta AS DOUBLE)) AND TRY_CAST(beta AS DOUBLE) >= 0, FALSE))
        THEN 'ireval_q: beta := ' || CASE typeof(beta) WHEN 'VARCHAR' THEN '''' || replace(CAST(beta AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(beta AS VARCHAR), 'NULL') END || ' is invalid; it must be a non-negative finite number'
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_q: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
    WHEN NOT (gains IS NOT NULL AND regexp_full_match(typeof(gains), 'VARCHAR') AND TRY_CAST(gains AS VARCHAR) IS NOT NULL AND COALESCE(TRY_CAST(gains AS VARCHAR) = '' OR (regexp_full_match(TRY_CAST(gains AS VARCHAR), '(,(0|-?[1-9][0-9]*)=[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)+,') AND len(list_distinct(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: split_part(ireval_e, '=', 1)))) = len(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ',')) AND list_bool_and(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: NOT starts_with(split_part(ireval_e, '=', 1), '-') AND isfinite(TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE))))), FALSE))
        THEN 'ireval_q: gains := ' || CASE typeof(gains) WHEN 'VARCHAR' THEN '''' || replace(CAST(gains AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(gains AS VARCHAR), 'NULL') END || ' is invalid; it must be '''' or a map '',grade=value,...,'' of distinct integer grades of 0 or more to finite gains, e.g. '',1=1,2=3,'''
END), eval_table::VARCHAR))),
g AS (
    SELECT run_id, query_id, rank, relevance,
        CASE WHEN relevance IS NULL OR relevance < 0 THEN CAST(0 AS DOUBLE)
            ELSE COALESCE(CASE WHEN TRY_CAST(gains AS VARCHAR) = ''
        OR instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END, CAST(relevance AS DOUBLE)) END AS gain,
        CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT) THEN 1 ELSE 0 END AS is_rel
    FROM ireval_eval_table
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
    WHERE rank IS NOT NULL AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT))
),
terms AS (
    SELECT r.run_id, r.query_id, r.rank,
        (r.found + CAST(TRY_CAST(beta AS DOUBLE) AS DOUBLE) * r.cum_gain)
        / (CAST(r.rank AS DOUBLE)
            + CAST(TRY_CAST(beta AS DOUBLE) AS DOUBLE) * COALESCE(i.cum_gain, CAST(0 AS DOUBLE))) AS term
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
FROM (
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
            CASE WHEN rank IS NOT NULL AND (NULL IS NULL OR rank <= NULL)
                THEN 1 ELSE 0 END AS is_ret_k,
            CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_rel,
            CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_nonrel
        FROM ireval_eval_table
    ) AS f
    GROUP BY run_id, query_id
) AS s
LEFT JOIN running AS x
    ON x.run_id = s.run_id AND x.query_id = s.query_id AND x.from_end = 1;

-- R-precision: relevant documents in the top R over R; with k (seed 004's RPrec@k), in the top
-- min(k, R) over min(k, R). 0 when R = 0.
CREATE OR REPLACE MACRO ireval_rprec(eval_table, k := NULL, rel := 1) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NULL OR (regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1, FALSE)))
        THEN 'ireval_rprec: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer (or NULL)'
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_rprec: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
END), eval_table::VARCHAR)))
SELECT run_id, query_id,
    CASE WHEN num_rel > 0 THEN CAST(hits AS DOUBLE) / CAST(
        CASE WHEN TRY_CAST(k AS HUGEINT) IS NOT NULL AND TRY_CAST(k AS HUGEINT) < num_rel THEN TRY_CAST(k AS HUGEINT) ELSE num_rel END AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM (
    SELECT run_id, query_id,
        SUM(is_rel) AS num_rel,
        SUM(CASE WHEN rank IS NOT NULL AND is_rel = 1 AND rank <= num_rel_all
            AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT)) THEN 1 ELSE 0 END) AS hits
    FROM (
        SELECT f.*, SUM(is_rel) OVER (PARTITION BY run_id, query_id) AS num_rel_all
        FROM (
            SELECT run_id, query_id, rank,
                CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT) THEN 1 ELSE 0 END AS is_rel
            FROM ireval_eval_table
        ) AS f
    ) AS fr
    GROUP BY run_id, query_id
) AS c;

-- ---- rr.sql

-- 1 / rank of the first relevant document in the top k, 0 when none.
CREATE OR REPLACE MACRO ireval_rr(eval_table, k := NULL, rel := 1) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NULL OR (regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1, FALSE)))
        THEN 'ireval_rr: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer (or NULL)'
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_rr: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
END), eval_table::VARCHAR)))
SELECT run_id, query_id,
    CASE WHEN first_rel_k IS NULL THEN CAST(0 AS DOUBLE)
    ELSE CAST(1 AS DOUBLE) / CAST(first_rel_k AS DOUBLE) END AS value
FROM (
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
            CASE WHEN rank IS NOT NULL AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT))
                THEN 1 ELSE 0 END AS is_ret_k,
            CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_rel,
            CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_nonrel
        FROM ireval_eval_table
    ) AS f
    GROUP BY run_id, query_id
);

-- ---- ndcg.sql

-- nDCG@k: DCG of the top k over the DCG of the ideal top k; 0 without a positive gain.
CREATE OR REPLACE MACRO ireval_ndcg(eval_table, k := NULL, gains := '', dcg := 'log2') AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NULL OR (regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1, FALSE)))
        THEN 'ireval_ndcg: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer (or NULL)'
    WHEN NOT (gains IS NOT NULL AND regexp_full_match(typeof(gains), 'VARCHAR') AND TRY_CAST(gains AS VARCHAR) IS NOT NULL AND COALESCE(TRY_CAST(gains AS VARCHAR) = '' OR (regexp_full_match(TRY_CAST(gains AS VARCHAR), '(,(0|-?[1-9][0-9]*)=[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)+,') AND len(list_distinct(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: split_part(ireval_e, '=', 1)))) = len(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ',')) AND list_bool_and(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: NOT starts_with(split_part(ireval_e, '=', 1), '-') AND isfinite(TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE))))), FALSE))
        THEN 'ireval_ndcg: gains := ' || CASE typeof(gains) WHEN 'VARCHAR' THEN '''' || replace(CAST(gains AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(gains AS VARCHAR), 'NULL') END || ' is invalid; it must be '''' or a map '',grade=value,...,'' of distinct integer grades of 0 or more to finite gains, e.g. '',1=1,2=3,'''
    WHEN NOT (dcg IS NOT NULL AND regexp_full_match(typeof(dcg), 'VARCHAR') AND TRY_CAST(dcg AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(dcg AS VARCHAR)) IN (encode('log2'), encode('exp-log2')), FALSE))
        THEN 'ireval_ndcg: dcg := ' || CASE typeof(dcg) WHEN 'VARCHAR' THEN '''' || replace(CAST(dcg AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(dcg AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''log2'', ''exp-log2'''
END), eval_table::VARCHAR))),
g AS (
    SELECT * FROM (
    SELECT run_id, query_id, rank, relevance,
        CASE WHEN TRY_CAST(dcg AS VARCHAR) = 'exp-log2' THEN pow(CAST(2 AS DOUBLE), grade) - CAST(1 AS DOUBLE)
            ELSE grade END AS gain
    FROM (
        SELECT run_id, query_id, rank, relevance,
            CASE WHEN relevance IS NULL OR relevance < 0 THEN CAST(0 AS DOUBLE)
                WHEN TRY_CAST(gains AS VARCHAR) = '' THEN CAST(relevance AS DOUBLE)
                ELSE COALESCE(CASE WHEN TRY_CAST(gains AS VARCHAR) = ''
        OR instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END, CAST(relevance AS DOUBLE))
            END AS grade
        FROM ireval_eval_table
    ) AS gr
) AS g0
),
ranked AS (
    SELECT run_id, query_id,
        SUM(gain / log2(CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE))) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cum_dcg,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM g
    WHERE rank IS NOT NULL AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT)) AND gain <> CAST(0 AS DOUBLE)
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
    WHERE TRY_CAST(k AS HUGEINT) IS NULL OR pos <= TRY_CAST(k AS HUGEINT)
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
    ON i.run_id = pa.run_id AND i.query_id = pa.query_id AND i.from_end = 1;

-- ndcg_rel: the mean over the ideal ranking's L relevant documents of nDCG at each one's rank; a
-- relevant document not retrieved contributes the nDCG of the whole ranking.
CREATE OR REPLACE MACRO ireval_ndcg_rel(eval_table, gains := '', dcg := 'log2') AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (gains IS NOT NULL AND regexp_full_match(typeof(gains), 'VARCHAR') AND TRY_CAST(gains AS VARCHAR) IS NOT NULL AND COALESCE(TRY_CAST(gains AS VARCHAR) = '' OR (regexp_full_match(TRY_CAST(gains AS VARCHAR), '(,(0|-?[1-9][0-9]*)=[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)+,') AND len(list_distinct(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: split_part(ireval_e, '=', 1)))) = len(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ',')) AND list_bool_and(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: NOT starts_with(split_part(ireval_e, '=', 1), '-') AND isfinite(TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE))))), FALSE))
        THEN 'ireval_ndcg_rel: gains := ' || CASE typeof(gains) WHEN 'VARCHAR' THEN '''' || replace(CAST(gains AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(gains AS VARCHAR), 'NULL') END || ' is invalid; it must be '''' or a map '',grade=value,...,'' of distinct integer grades of 0 or more to finite gains, e.g. '',1=1,2=3,'''
    WHEN NOT (dcg IS NOT NULL AND regexp_full_match(typeof(dcg), 'VARCHAR') AND TRY_CAST(dcg AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(dcg AS VARCHAR)) IN (encode('log2'), encode('exp-log2')), FALSE))
        THEN 'ireval_ndcg_rel: dcg := ' || CASE typeof(dcg) WHEN 'VARCHAR' THEN '''' || replace(CAST(dcg AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(dcg AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''log2'', ''exp-log2'''
END), eval_table::VARCHAR))),
g AS (
    SELECT * FROM (
    SELECT run_id, query_id, rank, relevance,
        CASE WHEN TRY_CAST(dcg AS VARCHAR) = 'exp-log2' THEN pow(CAST(2 AS DOUBLE), grade) - CAST(1 AS DOUBLE)
            ELSE grade END AS gain
    FROM (
        SELECT run_id, query_id, rank, relevance,
            CASE WHEN relevance IS NULL OR relevance < 0 THEN CAST(0 AS DOUBLE)
                WHEN TRY_CAST(gains AS VARCHAR) = '' THEN CAST(relevance AS DOUBLE)
                ELSE COALESCE(CASE WHEN TRY_CAST(gains AS VARCHAR) = ''
        OR instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END, CAST(relevance AS DOUBLE))
            END AS grade
        FROM ireval_eval_table
    ) AS gr
) AS g0
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
),
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
FROM summed;

-- Rndcg: nDCG averaged over the R-levels of the ideal ranking (the last position of each gain
-- block), plus DCG / ideal DCG of the whole ranking when the ideal runs out at least two ranks
-- before its end. 0 when the query has no document with grade >= rel, or when no judged document
-- gains (the ideal ranking is empty).
CREATE OR REPLACE MACRO ireval_rndcg(eval_table, gains := '', dcg := 'log2', rel := 1) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (gains IS NOT NULL AND regexp_full_match(typeof(gains), 'VARCHAR') AND TRY_CAST(gains AS VARCHAR) IS NOT NULL AND COALESCE(TRY_CAST(gains AS VARCHAR) = '' OR (regexp_full_match(TRY_CAST(gains AS VARCHAR), '(,(0|-?[1-9][0-9]*)=[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)+,') AND len(list_distinct(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: split_part(ireval_e, '=', 1)))) = len(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ',')) AND list_bool_and(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: NOT starts_with(split_part(ireval_e, '=', 1), '-') AND isfinite(TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE))))), FALSE))
        THEN 'ireval_rndcg: gains := ' || CASE typeof(gains) WHEN 'VARCHAR' THEN '''' || replace(CAST(gains AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(gains AS VARCHAR), 'NULL') END || ' is invalid; it must be '''' or a map '',grade=value,...,'' of distinct integer grades of 0 or more to finite gains, e.g. '',1=1,2=3,'''
    WHEN NOT (dcg IS NOT NULL AND regexp_full_match(typeof(dcg), 'VARCHAR') AND TRY_CAST(dcg AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(dcg AS VARCHAR)) IN (encode('log2'), encode('exp-log2')), FALSE))
        THEN 'ireval_rndcg: dcg := ' || CASE typeof(dcg) WHEN 'VARCHAR' THEN '''' || replace(CAST(dcg AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(dcg AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''log2'', ''exp-log2'''
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_rndcg: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
END), eval_table::VARCHAR))),
g AS (
    SELECT * FROM (
    SELECT run_id, query_id, rank, relevance,
        CASE WHEN TRY_CAST(dcg AS VARCHAR) = 'exp-log2' THEN pow(CAST(2 AS DOUBLE), grade) - CAST(1 AS DOUBLE)
            ELSE grade END AS gain
    FROM (
        SELECT run_id, query_id, rank, relevance,
            CASE WHEN relevance IS NULL OR relevance < 0 THEN CAST(0 AS DOUBLE)
                WHEN TRY_CAST(gains AS VARCHAR) = '' THEN CAST(relevance AS DOUBLE)
                ELSE COALESCE(CASE WHEN TRY_CAST(gains AS VARCHAR) = ''
        OR instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END, CAST(relevance AS DOUBLE))
            END AS grade
        FROM ireval_eval_table
    ) AS gr
) AS g0
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
),
st AS (
    SELECT * FROM (
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
            CASE WHEN rank IS NOT NULL AND (NULL IS NULL OR rank <= NULL)
                THEN 1 ELSE 0 END AS is_ret_k,
            CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_rel,
            CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_nonrel
        FROM ireval_eval_table
    ) AS f
    GROUP BY run_id, query_id
) AS s0
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
FROM parts;

-- trec_eval's G: at each rank i with a non-zero gain, gain / log2(2 + C_i - S_i), with S_i the
-- cumulated gain of the ranking and C_i the cumulated ideal gain (each ideal position counting
-- at least 1, each rank past the ideal 1); the sum over the total ideal gain.
CREATE OR REPLACE MACRO ireval_g(eval_table, gains := '', dcg := 'log2') AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (gains IS NOT NULL AND regexp_full_match(typeof(gains), 'VARCHAR') AND TRY_CAST(gains AS VARCHAR) IS NOT NULL AND COALESCE(TRY_CAST(gains AS VARCHAR) = '' OR (regexp_full_match(TRY_CAST(gains AS VARCHAR), '(,(0|-?[1-9][0-9]*)=[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)+,') AND len(list_distinct(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: split_part(ireval_e, '=', 1)))) = len(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ',')) AND list_bool_and(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: NOT starts_with(split_part(ireval_e, '=', 1), '-') AND isfinite(TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE))))), FALSE))
        THEN 'ireval_g: gains := ' || CASE typeof(gains) WHEN 'VARCHAR' THEN '''' || replace(CAST(gains AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(gains AS VARCHAR), 'NULL') END || ' is invalid; it must be '''' or a map '',grade=value,...,'' of distinct integer grades of 0 or more to finite gains, e.g. '',1=1,2=3,'''
    WHEN NOT (dcg IS NOT NULL AND regexp_full_match(typeof(dcg), 'VARCHAR') AND TRY_CAST(dcg AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(dcg AS VARCHAR)) IN (encode('log2'), encode('exp-log2')), FALSE))
        THEN 'ireval_g: dcg := ' || CASE typeof(dcg) WHEN 'VARCHAR' THEN '''' || replace(CAST(dcg AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(dcg AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''log2'', ''exp-log2'''
END), eval_table::VARCHAR))),
g AS (
    SELECT * FROM (
    SELECT run_id, query_id, rank, relevance,
        CASE WHEN TRY_CAST(dcg AS VARCHAR) = 'exp-log2' THEN pow(CAST(2 AS DOUBLE), grade) - CAST(1 AS DOUBLE)
            ELSE grade END AS gain
    FROM (
        SELECT run_id, query_id, rank, relevance,
            CASE WHEN relevance IS NULL OR relevance < 0 THEN CAST(0 AS DOUBLE)
                WHEN TRY_CAST(gains AS VARCHAR) = '' THEN CAST(relevance AS DOUBLE)
                ELSE COALESCE(CASE WHEN TRY_CAST(gains AS VARCHAR) = ''
        OR instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END, CAST(relevance AS DOUBLE))
            END AS grade
        FROM ireval_eval_table
    ) AS gr
) AS g0
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
),
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
    ON x.run_id = pa.run_id AND x.query_id = pa.query_id AND x.from_end = 1;

-- trec_eval's binG: the sum over relevant retrieved documents of 1 / log2(2 + documents ranked
-- above it that are not relevant), over R.
CREATE OR REPLACE MACRO ireval_bing(eval_table, rel := 1) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_bing: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
END), eval_table::VARCHAR))),
hits AS (
    SELECT run_id, query_id, rank,
        CAST(rank AS DOUBLE)
            - CAST(row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank) AS DOUBLE)
            AS above
    FROM ireval_eval_table
    WHERE rank IS NOT NULL AND relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
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
FROM (
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
            CASE WHEN rank IS NOT NULL AND (NULL IS NULL OR rank <= NULL)
                THEN 1 ELSE 0 END AS is_ret_k,
            CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_rel,
            CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_nonrel
        FROM ireval_eval_table
    ) AS f
    GROUP BY run_id, query_id
) AS s
LEFT JOIN running AS x
    ON x.run_id = s.run_id AND x.query_id = s.query_id AND x.from_end = 1;

-- ---- dcg.sql

-- DCG@k: the sum over the top k ranks of gain x weight (rank order). norm: 'none' (DCG), 'ideal'
-- (nDCG: over the DCG@k of the query's ideal ranking), 'self' (SN-DCG: over the DCG@k of the
-- retrieved top k sorted by gain), 'scaled' (SDCG: over the gain of max_rel times the sum of the
-- weights of ranks 1..k; grades clipped to [0, max_rel]; needs k). gain_type 'linear' (the
-- grade) or 'exp' (2^grade - 1); gains maps grades to gains; discount and b as the `discounted`
-- fragment, weights ',1=w1,2=w2,...,'.
CREATE OR REPLACE MACRO ireval_dcg(eval_table, k := NULL, norm := 'none', gain_type := 'linear', gains := '', discount := 'log2', b := 2.0, weights := '', max_rel := 1) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NULL OR (regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1, FALSE)))
        THEN 'ireval_dcg: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer (or NULL)'
    WHEN NOT (norm IS NOT NULL AND regexp_full_match(typeof(norm), 'VARCHAR') AND TRY_CAST(norm AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(norm AS VARCHAR)) IN (encode('none'), encode('scaled'), encode('ideal'), encode('self')), FALSE))
        THEN 'ireval_dcg: norm := ' || CASE typeof(norm) WHEN 'VARCHAR' THEN '''' || replace(CAST(norm AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(norm AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''none'', ''scaled'', ''ideal'', ''self'''
    WHEN NOT (gain_type IS NOT NULL AND regexp_full_match(typeof(gain_type), 'VARCHAR') AND TRY_CAST(gain_type AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(gain_type AS VARCHAR)) IN (encode('linear'), encode('exp')), FALSE))
        THEN 'ireval_dcg: gain_type := ' || CASE typeof(gain_type) WHEN 'VARCHAR' THEN '''' || replace(CAST(gain_type AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(gain_type AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''linear'', ''exp'''
    WHEN NOT (gains IS NOT NULL AND regexp_full_match(typeof(gains), 'VARCHAR') AND TRY_CAST(gains AS VARCHAR) IS NOT NULL AND COALESCE(TRY_CAST(gains AS VARCHAR) = '' OR (regexp_full_match(TRY_CAST(gains AS VARCHAR), '(,(0|-?[1-9][0-9]*)=[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)+,') AND len(list_distinct(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: split_part(ireval_e, '=', 1)))) = len(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ',')) AND list_bool_and(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: NOT starts_with(split_part(ireval_e, '=', 1), '-') AND isfinite(TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE))))), FALSE))
        THEN 'ireval_dcg: gains := ' || CASE typeof(gains) WHEN 'VARCHAR' THEN '''' || replace(CAST(gains AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(gains AS VARCHAR), 'NULL') END || ' is invalid; it must be '''' or a map '',grade=value,...,'' of distinct integer grades of 0 or more to finite gains, e.g. '',1=1,2=3,'''
    WHEN NOT (discount IS NOT NULL AND regexp_full_match(typeof(discount), 'VARCHAR') AND TRY_CAST(discount AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(discount AS VARCHAR)) IN (encode('log2'), encode('log'), encode('jk'), encode('none'), encode('root'), encode('rank'), encode('square'), encode('click'), encode('custom')), FALSE))
        THEN 'ireval_dcg: discount := ' || CASE typeof(discount) WHEN 'VARCHAR' THEN '''' || replace(CAST(discount AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(discount AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''log2'', ''log'', ''jk'', ''none'', ''root'', ''rank'', ''square'', ''click'', ''custom'''
    WHEN NOT (b IS NOT NULL AND regexp_full_match(typeof(b), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(b AS DOUBLE) IS NOT NULL AND COALESCE(isfinite(TRY_CAST(b AS DOUBLE)) AND TRY_CAST(b AS DOUBLE) > 0, FALSE))
        THEN 'ireval_dcg: b := ' || CASE typeof(b) WHEN 'VARCHAR' THEN '''' || replace(CAST(b AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(b AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive finite number'
    WHEN NOT (weights IS NOT NULL AND regexp_full_match(typeof(weights), 'VARCHAR') AND TRY_CAST(weights AS VARCHAR) IS NOT NULL AND COALESCE(TRY_CAST(weights AS VARCHAR) = '' OR (regexp_full_match(TRY_CAST(weights AS VARCHAR), '(,(0|-?[1-9][0-9]*)=[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)+,') AND list_bool_and(list_transform(string_split(trim(TRY_CAST(weights AS VARCHAR), ','), ','), lambda ireval_e, ireval_i: split_part(ireval_e, '=', 1) = CAST(ireval_i AS VARCHAR) AND isfinite(TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE)) AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) >= 0))), FALSE))
        THEN 'ireval_dcg: weights := ' || CASE typeof(weights) WHEN 'VARCHAR' THEN '''' || replace(CAST(weights AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(weights AS VARCHAR), 'NULL') END || ' is invalid; it must be '''' or a weight vector '',1=w1,2=w2,...,'' of finite non-negative weights of ranks 1, 2, ... in order, e.g. '',1=1,2=0.6,3=0.3,'''
    WHEN NOT (max_rel IS NOT NULL AND regexp_full_match(typeof(max_rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(max_rel AS HUGEINT) >= 1, FALSE))
        THEN 'ireval_dcg: max_rel := ' || CASE typeof(max_rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(max_rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(max_rel AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer'
    WHEN COALESCE(TRY_CAST(discount AS VARCHAR) IN ('click', 'custom') AND TRY_CAST(weights AS VARCHAR) = '', FALSE)
        THEN 'ireval_dcg: ' || 'discount := ' || '''' || TRY_CAST(discount AS VARCHAR) || '''' || ' needs weights := '',1=w1,2=w2,...,'', the weight of each rank'
    WHEN COALESCE(NOT (TRY_CAST(discount AS VARCHAR) IN ('click', 'custom')) AND TRY_CAST(weights AS VARCHAR) <> '', FALSE)
        THEN 'ireval_dcg: ' || 'weights is only used with discount := ''click'' or ''custom'', not ' || '''' || TRY_CAST(discount AS VARCHAR) || ''''
    WHEN COALESCE(TRY_CAST(discount AS VARCHAR) IN ('log', 'jk') AND NOT TRY_CAST(b AS DOUBLE) > 1, FALSE)
        THEN 'ireval_dcg: ' || 'discount := ' || '''' || TRY_CAST(discount AS VARCHAR) || '''' || ' needs a log base b > 1, got b := ' || CAST(TRY_CAST(b AS DOUBLE) AS VARCHAR)
    WHEN COALESCE(TRY_CAST(norm AS VARCHAR) = 'scaled' AND TRY_CAST(k AS HUGEINT) IS NULL, FALSE)
        THEN 'ireval_dcg: ' || 'norm := ''scaled'' (SDCG) needs a cutoff k'
    WHEN COALESCE(TRY_CAST(norm AS VARCHAR) = 'scaled' AND TRY_CAST(k AS HUGEINT) > 1000000000, FALSE)
        THEN 'ireval_dcg: ' || 'norm := ''scaled'' needs k at most 1000000000 (the positions the SQL generates)'
    WHEN COALESCE(TRY_CAST(norm AS VARCHAR) = 'scaled' AND NOT ((CASE WHEN TRY_CAST(gain_type AS VARCHAR) = 'exp' THEN pow(2.0, COALESCE(TRY_CAST(NULLIF(regexp_extract(TRY_CAST(gains AS VARCHAR), ',' || CAST(TRY_CAST(max_rel AS HUGEINT) AS VARCHAR) || '=([^,]*),', 1), '') AS DOUBLE), CAST(TRY_CAST(max_rel AS HUGEINT) AS DOUBLE))) - 1.0 ELSE COALESCE(TRY_CAST(NULLIF(regexp_extract(TRY_CAST(gains AS VARCHAR), ',' || CAST(TRY_CAST(max_rel AS HUGEINT) AS VARCHAR) || '=([^,]*),', 1), '') AS DOUBLE), CAST(TRY_CAST(max_rel AS HUGEINT) AS DOUBLE)) END) - (CASE WHEN TRY_CAST(gain_type AS VARCHAR) = 'exp' THEN pow(2.0, COALESCE(TRY_CAST(NULLIF(regexp_extract(TRY_CAST(gains AS VARCHAR), ',' || CAST(0 AS VARCHAR) || '=([^,]*),', 1), '') AS DOUBLE), CAST(0 AS DOUBLE))) - 1.0 ELSE COALESCE(TRY_CAST(NULLIF(regexp_extract(TRY_CAST(gains AS VARCHAR), ',' || CAST(0 AS VARCHAR) || '=([^,]*),', 1), '') AS DOUBLE), CAST(0 AS DOUBLE)) END) > 0 AND (TRY_CAST(discount AS VARCHAR) NOT IN ('click', 'custom') OR COALESCE(list_bool_or(list_transform(string_split(trim(TRY_CAST(weights AS VARCHAR), ','), ','), lambda ireval_e, ireval_i: ireval_i <= TRY_CAST(k AS HUGEINT) AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) > 0)), FALSE))), FALSE)
        THEN 'ireval_dcg: ' || 'the best possible DCG is not positive; use a discount with a positive weight in the top k and max_rel with a gain above min_rel''s'
END), eval_table::VARCHAR))),
g AS (
    SELECT * FROM (
    SELECT ex.run_id, ex.query_id, ex.rank, ex.relevance,
        CASE WHEN TRY_CAST(norm AS VARCHAR) = 'scaled' THEN CASE WHEN sc.low <> CAST(0 AS DOUBLE)
                THEN ex.eg - sc.low ELSE ex.eg END
            ELSE COALESCE(ex.eg, CAST(0 AS DOUBLE)) END AS gain,
        sc.top - sc.low AS scale
    FROM (
        SELECT run_id, query_id, rank, relevance,
            CASE WHEN TRY_CAST(gain_type AS VARCHAR) = 'exp' THEN pow(CAST(2 AS DOUBLE), mg) - CAST(1 AS DOUBLE)
                ELSE mg END AS eg
        FROM (
            SELECT run_id, query_id, rank, relevance,
                COALESCE(CASE WHEN TRY_CAST(gains AS VARCHAR) = ''
        OR instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(grade AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(grade AS STRING) || '=')
            + length(CAST(grade AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(grade AS STRING) || '=')
            + length(CAST(grade AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END, CAST(grade AS DOUBLE)) AS mg
            FROM (
                SELECT run_id, query_id, rank, relevance,
                    CASE WHEN TRY_CAST(norm AS VARCHAR) = 'scaled' THEN
                        CASE WHEN COALESCE(relevance, 0) < 0 THEN 0
                            WHEN COALESCE(relevance, 0) > TRY_CAST(max_rel AS HUGEINT) THEN TRY_CAST(max_rel AS HUGEINT)
                            ELSE COALESCE(relevance, 0) END
                    WHEN relevance >= 0 THEN relevance END AS grade
                FROM ireval_eval_table
            ) AS cl
        ) AS mp
    ) AS ex
    CROSS JOIN (
        SELECT
            CASE WHEN TRY_CAST(gain_type AS VARCHAR) = 'exp' THEN pow(CAST(2 AS DOUBLE), lo) - CAST(1 AS DOUBLE)
                ELSE lo END AS low,
            CASE WHEN TRY_CAST(gain_type AS VARCHAR) = 'exp' THEN pow(CAST(2 AS DOUBLE), hi) - CAST(1 AS DOUBLE)
                ELSE hi END AS top
        FROM (
            SELECT COALESCE(CASE WHEN TRY_CAST(gains AS VARCHAR) = ''
        OR instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(lo_grade AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(lo_grade AS STRING) || '=')
            + length(CAST(lo_grade AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(lo_grade AS STRING) || '=')
            + length(CAST(lo_grade AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END, CAST(lo_grade AS DOUBLE)) AS lo,
                COALESCE(CASE WHEN TRY_CAST(gains AS VARCHAR) = ''
        OR instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(hi_grade AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(hi_grade AS STRING) || '=')
            + length(CAST(hi_grade AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(hi_grade AS STRING) || '=')
            + length(CAST(hi_grade AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END, CAST(hi_grade AS DOUBLE)) AS hi
            FROM (SELECT 0 AS lo_grade, TRY_CAST(max_rel AS HUGEINT) AS hi_grade) AS e0
        ) AS ends
    ) AS sc
) AS g0
),
ranked AS (
    SELECT run_id, query_id,
        SUM(CASE TRY_CAST(discount AS VARCHAR)
    WHEN 'log2' THEN gain / log2(CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE))
    WHEN 'log' THEN gain / (ln(CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE)) / ln(CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE)))
    WHEN 'jk' THEN CASE WHEN CAST(rank AS DOUBLE) < CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE) THEN gain
        ELSE gain / (ln(CAST(rank AS DOUBLE)) / ln(CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE))) END
    WHEN 'none' THEN gain
    WHEN 'root' THEN gain / sqrt(CAST(rank AS DOUBLE))
    WHEN 'rank' THEN gain / CAST(rank AS DOUBLE)
    WHEN 'square' THEN gain / (CAST(rank AS DOUBLE) * CAST(rank AS DOUBLE))
    ELSE gain * CASE WHEN TRY_CAST(weights AS VARCHAR) = ''
        OR instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(rank AS STRING) || '=') = 0 THEN CAST(0 AS DOUBLE)
    ELSE COALESCE(CAST(NULLIF(substr(
        substr(TRY_CAST(weights AS VARCHAR), instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(rank AS STRING) || '=')
            + length(CAST(rank AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(weights AS VARCHAR), instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(rank AS STRING) || '=')
            + length(CAST(rank AS STRING)) + 2), ',') - 1), '') AS DOUBLE), CAST(0 AS DOUBLE))
END
END) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS total,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM g
    WHERE rank IS NOT NULL AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT)) AND gain <> CAST(0 AS DOUBLE)
),
best_pos AS (
    SELECT run_id, query_id, gain,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY gain DESC) AS pos
    FROM g
    WHERE gain > CAST(0 AS DOUBLE) AND (TRY_CAST(norm AS VARCHAR) = 'ideal' OR (TRY_CAST(norm AS VARCHAR) = 'self'
        AND rank IS NOT NULL AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT))))
),
best_run AS (
    SELECT run_id, query_id,
        SUM(CASE TRY_CAST(discount AS VARCHAR)
    WHEN 'log2' THEN gain / log2(CAST(pos AS DOUBLE) + CAST(1 AS DOUBLE))
    WHEN 'log' THEN gain / (ln(CAST(pos AS DOUBLE) + CAST(1 AS DOUBLE)) / ln(CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE)))
    WHEN 'jk' THEN CASE WHEN CAST(pos AS DOUBLE) < CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE) THEN gain
        ELSE gain / (ln(CAST(pos AS DOUBLE)) / ln(CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE))) END
    WHEN 'none' THEN gain
    WHEN 'root' THEN gain / sqrt(CAST(pos AS DOUBLE))
    WHEN 'rank' THEN gain / CAST(pos AS DOUBLE)
    WHEN 'square' THEN gain / (CAST(pos AS DOUBLE) * CAST(pos AS DOUBLE))
    ELSE gain * CASE WHEN TRY_CAST(weights AS VARCHAR) = ''
        OR instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(pos AS STRING) || '=') = 0 THEN CAST(0 AS DOUBLE)
    ELSE COALESCE(CAST(NULLIF(substr(
        substr(TRY_CAST(weights AS VARCHAR), instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(pos AS STRING) || '=')
            + length(CAST(pos AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(weights AS VARCHAR), instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(pos AS STRING) || '=')
            + length(CAST(pos AS STRING)) + 2), ',') - 1), '') AS DOUBLE), CAST(0 AS DOUBLE))
END
END) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS total,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY pos DESC) AS from_end
    FROM best_pos
    WHERE TRY_CAST(k AS HUGEINT) IS NULL OR pos <= TRY_CAST(k AS HUGEINT)
),
wsum AS (
    SELECT SUM(CASE TRY_CAST(discount AS VARCHAR)
    WHEN 'log2' THEN CAST(1 AS DOUBLE) / log2(CAST(pos AS DOUBLE) + CAST(1 AS DOUBLE))
    WHEN 'log' THEN CAST(1 AS DOUBLE) / (ln(CAST(pos AS DOUBLE) + CAST(1 AS DOUBLE)) / ln(CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE)))
    WHEN 'jk' THEN CASE WHEN CAST(pos AS DOUBLE) < CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE) THEN CAST(1 AS DOUBLE)
        ELSE CAST(1 AS DOUBLE) / (ln(CAST(pos AS DOUBLE)) / ln(CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE))) END
    WHEN 'none' THEN CAST(1 AS DOUBLE)
    WHEN 'root' THEN CAST(1 AS DOUBLE) / sqrt(CAST(pos AS DOUBLE))
    WHEN 'rank' THEN CAST(1 AS DOUBLE) / CAST(pos AS DOUBLE)
    WHEN 'square' THEN CAST(1 AS DOUBLE) / (CAST(pos AS DOUBLE) * CAST(pos AS DOUBLE))
    ELSE CAST(1 AS DOUBLE) * CASE WHEN TRY_CAST(weights AS VARCHAR) = ''
        OR instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(pos AS STRING) || '=') = 0 THEN CAST(0 AS DOUBLE)
    ELSE COALESCE(CAST(NULLIF(substr(
        substr(TRY_CAST(weights AS VARCHAR), instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(pos AS STRING) || '=')
            + length(CAST(pos AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(weights AS VARCHAR), instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(pos AS STRING) || '=')
            + length(CAST(pos AS STRING)) + 2), ',') - 1), '') AS DOUBLE), CAST(0 AS DOUBLE))
END
END) AS total
    FROM (SELECT CAST(range AS INTEGER) AS pos FROM range(1, CAST(COALESCE(TRY_CAST(k AS HUGEINT), 0) + 1 AS BIGINT))) AS po
    WHERE TRY_CAST(norm AS VARCHAR) = 'scaled'
),
value_of AS (
    SELECT pa.run_id, pa.query_id,
        CASE TRY_CAST(norm AS VARCHAR)
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
SELECT run_id, query_id, value FROM value_of;

-- SDCG@k: DCG@k over gain(max_rel) x the sum of the weights of ranks 1..k, grades clipped to
-- [min_rel, max_rel] (unjudged: min_rel) less the gain of min_rel. Column residual: the weight
-- of the unjudged documents in the top k and of the ranks between the end of the ranking and k,
-- over the sum of the weights (at least 0).
CREATE OR REPLACE MACRO ireval_sdcg(eval_table, k, max_rel := 1, min_rel := 0, gain_type := 'linear', gains := '', discount := 'log2', b := 2.0, weights := '') AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NOT NULL AND regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1 AND TRY_CAST(k AS HUGEINT) <= 1000000000, FALSE))
        THEN 'ireval_sdcg: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer, at most 1000000000 (the positions the SQL generates)'
    WHEN NOT (max_rel IS NOT NULL AND regexp_full_match(typeof(max_rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(max_rel AS HUGEINT) >= 1, FALSE))
        THEN 'ireval_sdcg: max_rel := ' || CASE typeof(max_rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(max_rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(max_rel AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer'
    WHEN NOT (min_rel IS NOT NULL AND regexp_full_match(typeof(min_rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(min_rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(min_rel AS HUGEINT) >= 0, FALSE))
        THEN 'ireval_sdcg: min_rel := ' || CASE typeof(min_rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(min_rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(min_rel AS VARCHAR), 'NULL') END || ' is invalid; it must be a non-negative integer'
    WHEN NOT (gain_type IS NOT NULL AND regexp_full_match(typeof(gain_type), 'VARCHAR') AND TRY_CAST(gain_type AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(gain_type AS VARCHAR)) IN (encode('linear'), encode('exp')), FALSE))
        THEN 'ireval_sdcg: gain_type := ' || CASE typeof(gain_type) WHEN 'VARCHAR' THEN '''' || replace(CAST(gain_type AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(gain_type AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''linear'', ''exp'''
    WHEN NOT (gains IS NOT NULL AND regexp_full_match(typeof(gains), 'VARCHAR') AND TRY_CAST(gains AS VARCHAR) IS NOT NULL AND COALESCE(TRY_CAST(gains AS VARCHAR) = '' OR (regexp_full_match(TRY_CAST(gains AS VARCHAR), '(,(0|-?[1-9][0-9]*)=[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)+,') AND len(list_distinct(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: split_part(ireval_e, '=', 1)))) = len(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ',')) AND list_bool_and(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: NOT starts_with(split_part(ireval_e, '=', 1), '-') AND isfinite(TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE))))), FALSE))
        THEN 'ireval_sdcg: gains := ' || CASE typeof(gains) WHEN 'VARCHAR' THEN '''' || replace(CAST(gains AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(gains AS VARCHAR), 'NULL') END || ' is invalid; it must be '''' or a map '',grade=value,...,'' of distinct integer grades of 0 or more to finite gains, e.g. '',1=1,2=3,'''
    WHEN NOT (discount IS NOT NULL AND regexp_full_match(typeof(discount), 'VARCHAR') AND TRY_CAST(discount AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(discount AS VARCHAR)) IN (encode('log2'), encode('log'), encode('jk'), encode('none'), encode('root'), encode('rank'), encode('square'), encode('click'), encode('custom')), FALSE))
        THEN 'ireval_sdcg: discount := ' || CASE typeof(discount) WHEN 'VARCHAR' THEN '''' || replace(CAST(discount AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(discount AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''log2'', ''log'', ''jk'', ''none'', ''root'', ''rank'', ''square'', ''click'', ''custom'''
    WHEN NOT (b IS NOT NULL AND regexp_full_match(typeof(b), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(b AS DOUBLE) IS NOT NULL AND COALESCE(isfinite(TRY_CAST(b AS DOUBLE)) AND TRY_CAST(b AS DOUBLE) > 0, FALSE))
        THEN 'ireval_sdcg: b := ' || CASE typeof(b) WHEN 'VARCHAR' THEN '''' || replace(CAST(b AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(b AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive finite number'
    WHEN NOT (weights IS NOT NULL AND regexp_full_match(typeof(weights), 'VARCHAR') AND TRY_CAST(weights AS VARCHAR) IS NOT NULL AND COALESCE(TRY_CAST(weights AS VARCHAR) = '' OR (regexp_full_match(TRY_CAST(weights AS VARCHAR), '(,(0|-?[1-9][0-9]*)=[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)+,') AND list_bool_and(list_transform(string_split(trim(TRY_CAST(weights AS VARCHAR), ','), ','), lambda ireval_e, ireval_i: split_part(ireval_e, '=', 1) = CAST(ireval_i AS VARCHAR) AND isfinite(TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE)) AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) >= 0))), FALSE))
        THEN 'ireval_sdcg: weights := ' || CASE typeof(weights) WHEN 'VARCHAR' THEN '''' || replace(CAST(weights AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(weights AS VARCHAR), 'NULL') END || ' is invalid; it must be '''' or a weight vector '',1=w1,2=w2,...,'' of finite non-negative weights of ranks 1, 2, ... in order, e.g. '',1=1,2=0.6,3=0.3,'''
    WHEN COALESCE(TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND TRY_CAST(min_rel AS HUGEINT) >= TRY_CAST(max_rel AS HUGEINT), FALSE)
        THEN 'ireval_sdcg: ' || 'min_rel := ' || CAST(TRY_CAST(min_rel AS HUGEINT) AS VARCHAR) || ' must be below max_rel := ' || CAST(TRY_CAST(max_rel AS HUGEINT) AS VARCHAR)
    WHEN COALESCE(TRY_CAST(discount AS VARCHAR) IN ('click', 'custom') AND TRY_CAST(weights AS VARCHAR) = '', FALSE)
        THEN 'ireval_sdcg: ' || 'discount := ' || '''' || TRY_CAST(discount AS VARCHAR) || '''' || ' needs weights := '',1=w1,2=w2,...,'', the weight of each rank'
    WHEN COALESCE(NOT (TRY_CAST(discount AS VARCHAR) IN ('click', 'custom')) AND TRY_CAST(weights AS VARCHAR) <> '', FALSE)
        THEN 'ireval_sdcg: ' || 'weights is only used with discount := ''click'' or ''custom'', not ' || '''' || TRY_CAST(discount AS VARCHAR) || ''''
    WHEN COALESCE(TRY_CAST(discount AS VARCHAR) IN ('log', 'jk') AND NOT TRY_CAST(b AS DOUBLE) > 1, FALSE)
        THEN 'ireval_sdcg: ' || 'discount := ' || '''' || TRY_CAST(discount AS VARCHAR) || '''' || ' needs a log base b > 1, got b := ' || CAST(TRY_CAST(b AS DOUBLE) AS VARCHAR)
    WHEN COALESCE('scaled' = 'scaled' AND NOT ((CASE WHEN TRY_CAST(gain_type AS VARCHAR) = 'exp' THEN pow(2.0, COALESCE(TRY_CAST(NULLIF(regexp_extract(TRY_CAST(gains AS VARCHAR), ',' || CAST(TRY_CAST(max_rel AS HUGEINT) AS VARCHAR) || '=([^,]*),', 1), '') AS DOUBLE), CAST(TRY_CAST(max_rel AS HUGEINT) AS DOUBLE))) - 1.0 ELSE COALESCE(TRY_CAST(NULLIF(regexp_extract(TRY_CAST(gains AS VARCHAR), ',' || CAST(TRY_CAST(max_rel AS HUGEINT) AS VARCHAR) || '=([^,]*),', 1), '') AS DOUBLE), CAST(TRY_CAST(max_rel AS HUGEINT) AS DOUBLE)) END) - (CASE WHEN TRY_CAST(gain_type AS VARCHAR) = 'exp' THEN pow(2.0, COALESCE(TRY_CAST(NULLIF(regexp_extract(TRY_CAST(gains AS VARCHAR), ',' || CAST(TRY_CAST(min_rel AS HUGEINT) AS VARCHAR) || '=([^,]*),', 1), '') AS DOUBLE), CAST(TRY_CAST(min_rel AS HUGEINT) AS DOUBLE))) - 1.0 ELSE COALESCE(TRY_CAST(NULLIF(regexp_extract(TRY_CAST(gains AS VARCHAR), ',' || CAST(TRY_CAST(min_rel AS HUGEINT) AS VARCHAR) || '=([^,]*),', 1), '') AS DOUBLE), CAST(TRY_CAST(min_rel AS HUGEINT) AS DOUBLE)) END) > 0 AND (TRY_CAST(discount AS VARCHAR) NOT IN ('click', 'custom') OR COALESCE(list_bool_or(list_transform(string_split(trim(TRY_CAST(weights AS VARCHAR), ','), ','), lambda ireval_e, ireval_i: ireval_i <= TRY_CAST(k AS HUGEINT) AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) > 0)), FALSE))), FALSE)
        THEN 'ireval_sdcg: ' || 'the best possible DCG is not positive; use a discount with a positive weight in the top k and max_rel with a gain above min_rel''s'
END), eval_table::VARCHAR))),
g AS (
    SELECT * FROM (
    SELECT ex.run_id, ex.query_id, ex.rank, ex.relevance,
        CASE WHEN 'scaled' = 'scaled' THEN CASE WHEN sc.low <> CAST(0 AS DOUBLE)
                THEN ex.eg - sc.low ELSE ex.eg END
            ELSE COALESCE(ex.eg, CAST(0 AS DOUBLE)) END AS gain,
        sc.top - sc.low AS scale
    FROM (
        SELECT run_id, query_id, rank, relevance,
            CASE WHEN TRY_CAST(gain_type AS VARCHAR) = 'exp' THEN pow(CAST(2 AS DOUBLE), mg) - CAST(1 AS DOUBLE)
                ELSE mg END AS eg
        FROM (
            SELECT run_id, query_id, rank, relevance,
                COALESCE(CASE WHEN TRY_CAST(gains AS VARCHAR) = ''
        OR instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(grade AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(grade AS STRING) || '=')
            + length(CAST(grade AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(grade AS STRING) || '=')
            + length(CAST(grade AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END, CAST(grade AS DOUBLE)) AS mg
            FROM (
                SELECT run_id, query_id, rank, relevance,
                    CASE WHEN 'scaled' = 'scaled' THEN
                        CASE WHEN COALESCE(relevance, 0) < TRY_CAST(min_rel AS HUGEINT) THEN TRY_CAST(min_rel AS HUGEINT)
                            WHEN COALESCE(relevance, 0) > TRY_CAST(max_rel AS HUGEINT) THEN TRY_CAST(max_rel AS HUGEINT)
                            ELSE COALESCE(relevance, 0) END
                    WHEN relevance >= 0 THEN relevance END AS grade
                FROM ireval_eval_table
            ) AS cl
        ) AS mp
    ) AS ex
    CROSS JOIN (
        SELECT
            CASE WHEN TRY_CAST(gain_type AS VARCHAR) = 'exp' THEN pow(CAST(2 AS DOUBLE), lo) - CAST(1 AS DOUBLE)
                ELSE lo END AS low,
            CASE WHEN TRY_CAST(gain_type AS VARCHAR) = 'exp' THEN pow(CAST(2 AS DOUBLE), hi) - CAST(1 AS DOUBLE)
                ELSE hi END AS top
        FROM (
            SELECT COALESCE(CASE WHEN TRY_CAST(gains AS VARCHAR) = ''
        OR instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(lo_grade AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(lo_grade AS STRING) || '=')
            + length(CAST(lo_grade AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(lo_grade AS STRING) || '=')
            + length(CAST(lo_grade AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END, CAST(lo_grade AS DOUBLE)) AS lo,
                COALESCE(CASE WHEN TRY_CAST(gains AS VARCHAR) = ''
        OR instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(hi_grade AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(hi_grade AS STRING) || '=')
            + length(CAST(hi_grade AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(hi_grade AS STRING) || '=')
            + length(CAST(hi_grade AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END, CAST(hi_grade AS DOUBLE)) AS hi
            FROM (SELECT TRY_CAST(min_rel AS HUGEINT) AS lo_grade, TRY_CAST(max_rel AS HUGEINT) AS hi_grade) AS e0
        ) AS ends
    ) AS sc
) AS g0
),
ranked AS (
    SELECT run_id, query_id,
        SUM(CASE TRY_CAST(discount AS VARCHAR)
    WHEN 'log2' THEN gain / log2(CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE))
    WHEN 'log' THEN gain / (ln(CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE)) / ln(CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE)))
    WHEN 'jk' THEN CASE WHEN CAST(rank AS DOUBLE) < CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE) THEN gain
        ELSE gain / (ln(CAST(rank AS DOUBLE)) / ln(CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE))) END
    WHEN 'none' THEN gain
    WHEN 'root' THEN gain / sqrt(CAST(rank AS DOUBLE))
    WHEN 'rank' THEN gain / CAST(rank AS DOUBLE)
    WHEN 'square' THEN gain / (CAST(rank AS DOUBLE) * CAST(rank AS DOUBLE))
    ELSE gain * CASE WHEN TRY_CAST(weights AS VARCHAR) = ''
        OR instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(rank AS STRING) || '=') = 0 THEN CAST(0 AS DOUBLE)
    ELSE COALESCE(CAST(NULLIF(substr(
        substr(TRY_CAST(weights AS VARCHAR), instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(rank AS STRING) || '=')
            + length(CAST(rank AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(weights AS VARCHAR), instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(rank AS STRING) || '=')
            + length(CAST(rank AS STRING)) + 2), ',') - 1), '') AS DOUBLE), CAST(0 AS DOUBLE))
END
END) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS total,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM g
    WHERE rank IS NOT NULL AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT)) AND gain <> CAST(0 AS DOUBLE)
),
best_pos AS (
    SELECT run_id, query_id, gain,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY gain DESC) AS pos
    FROM g
    WHERE gain > CAST(0 AS DOUBLE) AND ('scaled' = 'ideal' OR ('scaled' = 'self'
        AND rank IS NOT NULL AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT))))
),
best_run AS (
    SELECT run_id, query_id,
        SUM(CASE TRY_CAST(discount AS VARCHAR)
    WHEN 'log2' THEN gain / log2(CAST(pos AS DOUBLE) + CAST(1 AS DOUBLE))
    WHEN 'log' THEN gain / (ln(CAST(pos AS DOUBLE) + CAST(1 AS DOUBLE)) / ln(CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE)))
    WHEN 'jk' THEN CASE WHEN CAST(pos AS DOUBLE) < CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE) THEN gain
        ELSE gain / (ln(CAST(pos AS DOUBLE)) / ln(CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE))) END
    WHEN 'none' THEN gain
    WHEN 'root' THEN gain / sqrt(CAST(pos AS DOUBLE))
    WHEN 'rank' THEN gain / CAST(pos AS DOUBLE)
    WHEN 'square' THEN gain / (CAST(pos AS DOUBLE) * CAST(pos AS DOUBLE))
    ELSE gain * CASE WHEN TRY_CAST(weights AS VARCHAR) = ''
        OR instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(pos AS STRING) || '=') = 0 THEN CAST(0 AS DOUBLE)
    ELSE COALESCE(CAST(NULLIF(substr(
        substr(TRY_CAST(weights AS VARCHAR), instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(pos AS STRING) || '=')
            + length(CAST(pos AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(weights AS VARCHAR), instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(pos AS STRING) || '=')
            + length(CAST(pos AS STRING)) + 2), ',') - 1), '') AS DOUBLE), CAST(0 AS DOUBLE))
END
END) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS total,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY pos DESC) AS from_end
    FROM best_pos
    WHERE TRY_CAST(k AS HUGEINT) IS NULL OR pos <= TRY_CAST(k AS HUGEINT)
),
wsum AS (
    SELECT SUM(CASE TRY_CAST(discount AS VARCHAR)
    WHEN 'log2' THEN CAST(1 AS DOUBLE) / log2(CAST(pos AS DOUBLE) + CAST(1 AS DOUBLE))
    WHEN 'log' THEN CAST(1 AS DOUBLE) / (ln(CAST(pos AS DOUBLE) + CAST(1 AS DOUBLE)) / ln(CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE)))
    WHEN 'jk' THEN CASE WHEN CAST(pos AS DOUBLE) < CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE) THEN CAST(1 AS DOUBLE)
        ELSE CAST(1 AS DOUBLE) / (ln(CAST(pos AS DOUBLE)) / ln(CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE))) END
    WHEN 'none' THEN CAST(1 AS DOUBLE)
    WHEN 'root' THEN CAST(1 AS DOUBLE) / sqrt(CAST(pos AS DOUBLE))
    WHEN 'rank' THEN CAST(1 AS DOUBLE) / CAST(pos AS DOUBLE)
    WHEN 'square' THEN CAST(1 AS DOUBLE) / (CAST(pos AS DOUBLE) * CAST(pos AS DOUBLE))
    ELSE CAST(1 AS DOUBLE) * CASE WHEN TRY_CAST(weights AS VARCHAR) = ''
        OR instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(pos AS STRING) || '=') = 0 THEN CAST(0 AS DOUBLE)
    ELSE COALESCE(CAST(NULLIF(substr(
        substr(TRY_CAST(weights AS VARCHAR), instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(pos AS STRING) || '=')
            + length(CAST(pos AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(weights AS VARCHAR), instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(pos AS STRING) || '=')
            + length(CAST(pos AS STRING)) + 2), ',') - 1), '') AS DOUBLE), CAST(0 AS DOUBLE))
END
END) AS total
    FROM (SELECT CAST(range AS INTEGER) AS pos FROM range(1, CAST(COALESCE(TRY_CAST(k AS HUGEINT), 0) + 1 AS BIGINT))) AS po
    WHERE 'scaled' = 'scaled'
),
value_of AS (
    SELECT pa.run_id, pa.query_id,
        CASE 'scaled'
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
),
seen AS (
    SELECT run_id, query_id,
        SUM(CASE TRY_CAST(discount AS VARCHAR)
    WHEN 'log2' THEN CAST(1 AS DOUBLE) / log2(CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE))
    WHEN 'log' THEN CAST(1 AS DOUBLE) / (ln(CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE)) / ln(CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE)))
    WHEN 'jk' THEN CASE WHEN CAST(rank AS DOUBLE) < CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE) THEN CAST(1 AS DOUBLE)
        ELSE CAST(1 AS DOUBLE) / (ln(CAST(rank AS DOUBLE)) / ln(CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE))) END
    WHEN 'none' THEN CAST(1 AS DOUBLE)
    WHEN 'root' THEN CAST(1 AS DOUBLE) / sqrt(CAST(rank AS DOUBLE))
    WHEN 'rank' THEN CAST(1 AS DOUBLE) / CAST(rank AS DOUBLE)
    WHEN 'square' THEN CAST(1 AS DOUBLE) / (CAST(rank AS DOUBLE) * CAST(rank AS DOUBLE))
    ELSE CAST(1 AS DOUBLE) * CASE WHEN TRY_CAST(weights AS VARCHAR) = ''
        OR instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(rank AS STRING) || '=') = 0 THEN CAST(0 AS DOUBLE)
    ELSE COALESCE(CAST(NULLIF(substr(
        substr(TRY_CAST(weights AS VARCHAR), instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(rank AS STRING) || '=')
            + length(CAST(rank AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(weights AS VARCHAR), instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(rank AS STRING) || '=')
            + length(CAST(rank AS STRING)) + 2), ',') - 1), '') AS DOUBLE), CAST(0 AS DOUBLE))
END
END) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS seen_w,
        SUM(CASE WHEN relevance IS NULL
            THEN CASE TRY_CAST(discount AS VARCHAR)
    WHEN 'log2' THEN CAST(1 AS DOUBLE) / log2(CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE))
    WHEN 'log' THEN CAST(1 AS DOUBLE) / (ln(CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE)) / ln(CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE)))
    WHEN 'jk' THEN CASE WHEN CAST(rank AS DOUBLE) < CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE) THEN CAST(1 AS DOUBLE)
        ELSE CAST(1 AS DOUBLE) / (ln(CAST(rank AS DOUBLE)) / ln(CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE))) END
    WHEN 'none' THEN CAST(1 AS DOUBLE)
    WHEN 'root' THEN CAST(1 AS DOUBLE) / sqrt(CAST(rank AS DOUBLE))
    WHEN 'rank' THEN CAST(1 AS DOUBLE) / CAST(rank AS DOUBLE)
    WHEN 'square' THEN CAST(1 AS DOUBLE) / (CAST(rank AS DOUBLE) * CAST(rank AS DOUBLE))
    ELSE CAST(1 AS DOUBLE) * CASE WHEN TRY_CAST(weights AS VARCHAR) = ''
        OR instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(rank AS STRING) || '=') = 0 THEN CAST(0 AS DOUBLE)
    ELSE COALESCE(CAST(NULLIF(substr(
        substr(TRY_CAST(weights AS VARCHAR), instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(rank AS STRING) || '=')
            + length(CAST(rank AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(weights AS VARCHAR), instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(rank AS STRING) || '=')
            + length(CAST(rank AS STRING)) + 2), ',') - 1), '') AS DOUBLE), CAST(0 AS DOUBLE))
END
END ELSE CAST(0 AS DOUBLE) END)
        OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS unjudged_w,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM ireval_eval_table
    WHERE rank IS NOT NULL AND rank <= TRY_CAST(k AS HUGEINT)
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
FROM resid;

-- GradedP@k: graded, discounted precision, the sum over the top k ranks of gain x weight (rank
-- order) divided by k, as polars_ireval.measures.dcg.graded_precision. Gains as dcg_gain (the
-- grade or its mapped gain, 2^g - 1 with gain_type 'exp'; unjudged documents and negative grades
-- 0); discount and b as the `discounted` fragment, weights ',1=w1,2=w2,...,'. Missing ranks
-- before k count as gain 0.
CREATE OR REPLACE MACRO ireval_graded_p(eval_table, k, gains := '', gain_type := 'linear', discount := 'none', b := 2.0, weights := '') AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NOT NULL AND regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1, FALSE))
        THEN 'ireval_graded_p: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer'
    WHEN NOT (gains IS NOT NULL AND regexp_full_match(typeof(gains), 'VARCHAR') AND TRY_CAST(gains AS VARCHAR) IS NOT NULL AND COALESCE(TRY_CAST(gains AS VARCHAR) = '' OR (regexp_full_match(TRY_CAST(gains AS VARCHAR), '(,(0|-?[1-9][0-9]*)=[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)+,') AND len(list_distinct(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: split_part(ireval_e, '=', 1)))) = len(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ',')) AND list_bool_and(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: NOT starts_with(split_part(ireval_e, '=', 1), '-') AND isfinite(TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE))))), FALSE))
        THEN 'ireval_graded_p: gains := ' || CASE typeof(gains) WHEN 'VARCHAR' THEN '''' || replace(CAST(gains AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(gains AS VARCHAR), 'NULL') END || ' is invalid; it must be '''' or a map '',grade=value,...,'' of distinct integer grades of 0 or more to finite gains, e.g. '',1=1,2=3,'''
    WHEN NOT (gain_type IS NOT NULL AND regexp_full_match(typeof(gain_type), 'VARCHAR') AND TRY_CAST(gain_type AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(gain_type AS VARCHAR)) IN (encode('linear'), encode('exp')), FALSE))
        THEN 'ireval_graded_p: gain_type := ' || CASE typeof(gain_type) WHEN 'VARCHAR' THEN '''' || replace(CAST(gain_type AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(gain_type AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''linear'', ''exp'''
    WHEN NOT (discount IS NOT NULL AND regexp_full_match(typeof(discount), 'VARCHAR') AND TRY_CAST(discount AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(discount AS VARCHAR)) IN (encode('log2'), encode('log'), encode('jk'), encode('none'), encode('root'), encode('rank'), encode('square'), encode('click'), encode('custom')), FALSE))
        THEN 'ireval_graded_p: discount := ' || CASE typeof(discount) WHEN 'VARCHAR' THEN '''' || replace(CAST(discount AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(discount AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''log2'', ''log'', ''jk'', ''none'', ''root'', ''rank'', ''square'', ''click'', ''custom'''
    WHEN NOT (b IS NOT NULL AND regexp_full_match(typeof(b), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(b AS DOUBLE) IS NOT NULL AND COALESCE(isfinite(TRY_CAST(b AS DOUBLE)) AND TRY_CAST(b AS DOUBLE) > 0, FALSE))
        THEN 'ireval_graded_p: b := ' || CASE typeof(b) WHEN 'VARCHAR' THEN '''' || replace(CAST(b AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(b AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive finite number'
    WHEN NOT (weights IS NOT NULL AND regexp_full_match(typeof(weights), 'VARCHAR') AND TRY_CAST(weights AS VARCHAR) IS NOT NULL AND COALESCE(TRY_CAST(weights AS VARCHAR) = '' OR (regexp_full_match(TRY_CAST(weights AS VARCHAR), '(,(0|-?[1-9][0-9]*)=[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)+,') AND list_bool_and(list_transform(string_split(trim(TRY_CAST(weights AS VARCHAR), ','), ','), lambda ireval_e, ireval_i: split_part(ireval_e, '=', 1) = CAST(ireval_i AS VARCHAR) AND isfinite(TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE)) AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) >= 0))), FALSE))
        THEN 'ireval_graded_p: weights := ' || CASE typeof(weights) WHEN 'VARCHAR' THEN '''' || replace(CAST(weights AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(weights AS VARCHAR), 'NULL') END || ' is invalid; it must be '''' or a weight vector '',1=w1,2=w2,...,'' of finite non-negative weights of ranks 1, 2, ... in order, e.g. '',1=1,2=0.6,3=0.3,'''
    WHEN COALESCE(TRY_CAST(discount AS VARCHAR) IN ('click', 'custom') AND TRY_CAST(weights AS VARCHAR) = '', FALSE)
        THEN 'ireval_graded_p: ' || 'discount := ' || '''' || TRY_CAST(discount AS VARCHAR) || '''' || ' needs weights := '',1=w1,2=w2,...,'', the weight of each rank'
    WHEN COALESCE(NOT (TRY_CAST(discount AS VARCHAR) IN ('click', 'custom')) AND TRY_CAST(weights AS VARCHAR) <> '', FALSE)
        THEN 'ireval_graded_p: ' || 'weights is only used with discount := ''click'' or ''custom'', not ' || '''' || TRY_CAST(discount AS VARCHAR) || ''''
    WHEN COALESCE(TRY_CAST(discount AS VARCHAR) IN ('log', 'jk') AND NOT TRY_CAST(b AS DOUBLE) > 1, FALSE)
        THEN 'ireval_graded_p: ' || 'discount := ' || '''' || TRY_CAST(discount AS VARCHAR) || '''' || ' needs a log base b > 1, got b := ' || CAST(TRY_CAST(b AS DOUBLE) AS VARCHAR)
END), eval_table::VARCHAR))),
g AS (
    SELECT * FROM (
    SELECT ex.run_id, ex.query_id, ex.rank, ex.relevance,
        CASE WHEN 'none' = 'scaled' THEN CASE WHEN sc.low <> CAST(0 AS DOUBLE)
                THEN ex.eg - sc.low ELSE ex.eg END
            ELSE COALESCE(ex.eg, CAST(0 AS DOUBLE)) END AS gain,
        sc.top - sc.low AS scale
    FROM (
        SELECT run_id, query_id, rank, relevance,
            CASE WHEN TRY_CAST(gain_type AS VARCHAR) = 'exp' THEN pow(CAST(2 AS DOUBLE), mg) - CAST(1 AS DOUBLE)
                ELSE mg END AS eg
        FROM (
            SELECT run_id, query_id, rank, relevance,
                COALESCE(CASE WHEN TRY_CAST(gains AS VARCHAR) = ''
        OR instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(grade AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(grade AS STRING) || '=')
            + length(CAST(grade AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(grade AS STRING) || '=')
            + length(CAST(grade AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END, CAST(grade AS DOUBLE)) AS mg
            FROM (
                SELECT run_id, query_id, rank, relevance,
                    CASE WHEN 'none' = 'scaled' THEN
                        CASE WHEN COALESCE(relevance, 0) < 0 THEN 0
                            WHEN COALESCE(relevance, 0) > 1 THEN 1
                            ELSE COALESCE(relevance, 0) END
                    WHEN relevance >= 0 THEN relevance END AS grade
                FROM ireval_eval_table
            ) AS cl
        ) AS mp
    ) AS ex
    CROSS JOIN (
        SELECT
            CASE WHEN TRY_CAST(gain_type AS VARCHAR) = 'exp' THEN pow(CAST(2 AS DOUBLE), lo) - CAST(1 AS DOUBLE)
                ELSE lo END AS low,
            CASE WHEN TRY_CAST(gain_type AS VARCHAR) = 'exp' THEN pow(CAST(2 AS DOUBLE), hi) - CAST(1 AS DOUBLE)
                ELSE hi END AS top
        FROM (
            SELECT COALESCE(CASE WHEN TRY_CAST(gains AS VARCHAR) = ''
        OR instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(lo_grade AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(lo_grade AS STRING) || '=')
            + length(CAST(lo_grade AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(lo_grade AS STRING) || '=')
            + length(CAST(lo_grade AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END, CAST(lo_grade AS DOUBLE)) AS lo,
                COALESCE(CASE WHEN TRY_CAST(gains AS VARCHAR) = ''
        OR instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(hi_grade AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(hi_grade AS STRING) || '=')
            + length(CAST(hi_grade AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(hi_grade AS STRING) || '=')
            + length(CAST(hi_grade AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END, CAST(hi_grade AS DOUBLE)) AS hi
            FROM (SELECT 0 AS lo_grade, 1 AS hi_grade) AS e0
        ) AS ends
    ) AS sc
) AS g0
),
ranked AS (
    SELECT run_id, query_id,
        SUM(CASE TRY_CAST(discount AS VARCHAR)
    WHEN 'log2' THEN gain / log2(CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE))
    WHEN 'log' THEN gain / (ln(CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE)) / ln(CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE)))
    WHEN 'jk' THEN CASE WHEN CAST(rank AS DOUBLE) < CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE) THEN gain
        ELSE gain / (ln(CAST(rank AS DOUBLE)) / ln(CAST(TRY_CAST(b AS DOUBLE) AS DOUBLE))) END
    WHEN 'none' THEN gain
    WHEN 'root' THEN gain / sqrt(CAST(rank AS DOUBLE))
    WHEN 'rank' THEN gain / CAST(rank AS DOUBLE)
    WHEN 'square' THEN gain / (CAST(rank AS DOUBLE) * CAST(rank AS DOUBLE))
    ELSE gain * CASE WHEN TRY_CAST(weights AS VARCHAR) = ''
        OR instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(rank AS STRING) || '=') = 0 THEN CAST(0 AS DOUBLE)
    ELSE COALESCE(CAST(NULLIF(substr(
        substr(TRY_CAST(weights AS VARCHAR), instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(rank AS STRING) || '=')
            + length(CAST(rank AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(weights AS VARCHAR), instr(TRY_CAST(weights AS VARCHAR), ',' || CAST(rank AS STRING) || '=')
            + length(CAST(rank AS STRING)) + 2), ',') - 1), '') AS DOUBLE), CAST(0 AS DOUBLE))
END
END) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS total,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM g
    WHERE rank IS NOT NULL AND rank <= TRY_CAST(k AS HUGEINT)
)
SELECT pa.run_id, pa.query_id,
    COALESCE(d.total, CAST(0 AS DOUBLE)) / CAST(TRY_CAST(k AS HUGEINT) AS DOUBLE) AS value
FROM (SELECT DISTINCT run_id, query_id FROM g) AS pa
LEFT JOIN ranked AS d
    ON d.run_id = pa.run_id AND d.query_id = pa.query_id AND d.from_end = 1;

-- ---- bpref.sql

-- bpref: (1/R) sum over relevant retrieved d of 1 - min(n_d, R) / min(N, R), where n_d counts
-- judged non-relevant documents ranked above d and N those judged for the query.
CREATE OR REPLACE MACRO ireval_bpref(eval_table, rel := 1) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_bpref: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
END), eval_table::VARCHAR))),
t AS (
    SELECT run_id, query_id, rank,
        CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT) THEN 1 ELSE 0 END AS is_rel,
        CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < TRY_CAST(rel AS HUGEINT)
            THEN 1 ELSE 0 END AS is_nonrel
    FROM ireval_eval_table
    WHERE rank IS NOT NULL
),
above AS (
    SELECT run_id, query_id, rank, is_rel,
        SUM(is_nonrel) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS n_above
    FROM t
),
st AS (
    SELECT * FROM (
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
            CASE WHEN rank IS NOT NULL AND (NULL IS NULL OR rank <= NULL)
                THEN 1 ELSE 0 END AS is_ret_k,
            CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_rel,
            CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_nonrel
        FROM ireval_eval_table
    ) AS f
    GROUP BY run_id, query_id
) AS s0
),
terms AS (
    SELECT a.run_id, a.query_id, a.rank,
        CASE WHEN a.n_above > 0 THEN
            CAST(1 AS DOUBLE)
            - CAST(CASE WHEN a.n_above < s.num_rel THEN a.n_above ELSE s.num_rel END AS DOUBLE)
            / CAST(CASE WHEN s.num_nonrel < s.num_rel THEN s.num_nonrel ELSE s.num_rel END
                AS DOUBLE)
        ELSE CAST(1 AS DOUBLE) END AS term
    FROM above AS a
    JOIN st AS s ON a.run_id = s.run_id AND a.query_id = s.query_id
    WHERE a.is_rel = 1
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
FROM st AS s
LEFT JOIN running AS x
    ON x.run_id = s.run_id AND x.query_id = s.query_id AND x.from_end = 1;

-- infAP (Yilmaz and Aslam): for the relevant retrieved document at rank i > 1, 1/i + ((i-1)/i)
-- (p/(i-1)) ((r + eps)/(r + n + 2 eps)), with p pooled (judged, any grade), r relevant and n
-- judged non-relevant documents above it; rank 1 contributes 1; the sum is divided by R. eps =
-- 1e-5 (trec_eval's INFAP_EPSILON).
CREATE OR REPLACE MACRO ireval_infap(eval_table, rel := 1) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_infap: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
END), eval_table::VARCHAR))),
t AS (
    SELECT run_id, query_id, rank,
        CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT) THEN 1 ELSE 0 END AS is_rel,
        CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < TRY_CAST(rel AS HUGEINT)
            THEN 1 ELSE 0 END AS is_nonrel,
        CASE WHEN relevance IS NOT NULL THEN 1 ELSE 0 END AS is_pooled
    FROM ireval_eval_table
    WHERE rank IS NOT NULL
),
cum AS (
    SELECT run_id, query_id, rank, is_rel,
        SUM(is_rel) OVER (PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS c_rel,
        SUM(is_nonrel) OVER (PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS c_nonrel,
        SUM(is_pooled) OVER (PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS c_pooled
    FROM t
),
parts AS (
    SELECT run_id, query_id, rank,
        CAST(rank AS DOUBLE) AS i,
        CAST(rank AS DOUBLE) - CAST(1 AS DOUBLE) AS j,
        CAST(c_rel AS DOUBLE) - CAST(1 AS DOUBLE) AS r,
        CAST(c_nonrel AS DOUBLE) AS n,
        CAST(c_pooled - 1 AS DOUBLE) AS pooled,
        CAST(1 AS DOUBLE) / CAST(100000 AS DOUBLE) AS eps
    FROM cum
    WHERE is_rel = 1
),
running AS (
    SELECT run_id, query_id,
        SUM(CASE WHEN j = CAST(0 AS DOUBLE) THEN CAST(1 AS DOUBLE)
            ELSE CAST(1 AS DOUBLE) / i + (j / i) * (pooled / j)
                * ((r + eps) / (r + n + CAST(2 AS DOUBLE) * eps)) END) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS total,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM parts
)
SELECT s.run_id, s.query_id,
    CASE WHEN s.num_rel > 0 THEN COALESCE(x.total, CAST(0 AS DOUBLE)) / CAST(s.num_rel AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM (
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
            CASE WHEN rank IS NOT NULL AND (NULL IS NULL OR rank <= NULL)
                THEN 1 ELSE 0 END AS is_ret_k,
            CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_rel,
            CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_nonrel
        FROM ireval_eval_table
    ) AS f
    GROUP BY run_id, query_id
) AS s
LEFT JOIN running AS x
    ON x.run_id = s.run_id AND x.query_id = s.query_id AND x.from_end = 1;

-- ---- iprec.sql

-- IPrec@x: the best precision at or after the c-th relevant document, where c = trunc(x R + 0.9)
-- (rounding 'trec_eval9') or round(x R) ('trec_eval10'); 0 when fewer than c relevant documents
-- are retrieved.
CREATE OR REPLACE MACRO ireval_iprec(eval_table, recall, rel := 1, rounding := 'trec_eval9') AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (recall IS NOT NULL AND regexp_full_match(typeof(recall), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(recall AS DOUBLE) IS NOT NULL AND COALESCE(TRY_CAST(recall AS DOUBLE) >= 0 AND TRY_CAST(recall AS DOUBLE) <= 1, FALSE))
        THEN 'ireval_iprec: recall := ' || CASE typeof(recall) WHEN 'VARCHAR' THEN '''' || replace(CAST(recall AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(recall AS VARCHAR), 'NULL') END || ' is invalid; it must be a number in [0, 1]'
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_iprec: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
    WHEN NOT (rounding IS NOT NULL AND regexp_full_match(typeof(rounding), 'VARCHAR') AND TRY_CAST(rounding AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(rounding AS VARCHAR)) IN (encode('trec_eval9'), encode('trec_eval10')), FALSE))
        THEN 'ireval_iprec: rounding := ' || CASE typeof(rounding) WHEN 'VARCHAR' THEN '''' || replace(CAST(rounding AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rounding AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''trec_eval9'', ''trec_eval10'''
END), eval_table::VARCHAR))),
hits AS (
    SELECT run_id, query_id, rank,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank) AS c
    FROM ireval_eval_table
    WHERE rank IS NOT NULL AND relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
),
st AS (
    SELECT run_id, query_id,
        CAST(TRY_CAST(recall AS DOUBLE) AS DOUBLE) * CAST(num_rel AS DOUBLE) AS x
    FROM (
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
            CASE WHEN rank IS NOT NULL AND (NULL IS NULL OR rank <= NULL)
                THEN 1 ELSE 0 END AS is_ret_k,
            CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_rel,
            CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_nonrel
        FROM ireval_eval_table
    ) AS f
    GROUP BY run_id, query_id
) AS s0
),
needed AS (
    SELECT run_id, query_id,
        CASE WHEN TRY_CAST(rounding AS VARCHAR) = 'trec_eval9'
            THEN FLOOR(x + CAST(9 AS DOUBLE) / CAST(10 AS DOUBLE))
            ELSE FLOOR(x) + CASE WHEN x - FLOOR(x) >= CAST(1 AS DOUBLE) / CAST(2 AS DOUBLE)
                THEN 1 ELSE 0 END
        END AS c
    FROM st
)
SELECT n.run_id, n.query_id,
    COALESCE(MAX(CASE WHEN h.c >= n.c
        THEN CAST(h.c AS DOUBLE) / CAST(h.rank AS DOUBLE) END), CAST(0 AS DOUBLE)) AS value
FROM needed AS n
LEFT JOIN hits AS h ON h.run_id = n.run_id AND h.query_id = n.query_id
GROUP BY n.run_id, n.query_id;

-- Precision at rank c = trunc(mult R + 0.9), divided by c even when fewer documents are
-- retrieved; 0 when c is 0.
CREATE OR REPLACE MACRO ireval_rprec_mult(eval_table, mult, rel := 1) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (mult IS NOT NULL AND regexp_full_match(typeof(mult), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(mult AS DOUBLE) IS NOT NULL AND COALESCE(isfinite(TRY_CAST(mult AS DOUBLE)) AND TRY_CAST(mult AS DOUBLE) >= 0, FALSE))
        THEN 'ireval_rprec_mult: mult := ' || CASE typeof(mult) WHEN 'VARCHAR' THEN '''' || replace(CAST(mult AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(mult AS VARCHAR), 'NULL') END || ' is invalid; it must be a non-negative finite number'
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_rprec_mult: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
END), eval_table::VARCHAR))),
cut AS (
    SELECT run_id, query_id,
        FLOOR(CAST(TRY_CAST(mult AS DOUBLE) AS DOUBLE) * CAST(num_rel AS DOUBLE)
            + CAST(9 AS DOUBLE) / CAST(10 AS DOUBLE)) AS c
    FROM (
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
            CASE WHEN rank IS NOT NULL AND (NULL IS NULL OR rank <= NULL)
                THEN 1 ELSE 0 END AS is_ret_k,
            CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_rel,
            CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_nonrel
        FROM ireval_eval_table
    ) AS f
    GROUP BY run_id, query_id
) AS s0
),
hits AS (
    SELECT t.run_id, t.query_id,
        SUM(CASE WHEN t.rank IS NOT NULL AND t.rank <= u.c AND t.relevance IS NOT NULL
            AND t.relevance >= TRY_CAST(rel AS HUGEINT) THEN 1 ELSE 0 END) AS rel_ret_c
    FROM ireval_eval_table AS t
    JOIN cut AS u ON u.run_id = t.run_id AND u.query_id = t.query_id
    GROUP BY t.run_id, t.query_id
)
SELECT u.run_id, u.query_id,
    CASE WHEN u.c > 0 THEN CAST(h.rel_ret_c AS DOUBLE) / CAST(u.c AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM cut AS u
JOIN hits AS h ON h.run_id = u.run_id AND h.query_id = u.query_id;

-- Linear utility a (relevant retrieved) + b (non-relevant retrieved) + c (relevant missed) + d
-- (non-relevant missed, from the collection size num_docs); unjudged documents retrieved count
-- as non-relevant.
CREATE OR REPLACE MACRO ireval_utility(eval_table, w_rel_ret := 1, w_nonrel_ret := -1, w_rel_missed := 0, w_nonrel_missed := 0, num_docs := 0, rel := 1) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (w_rel_ret IS NOT NULL AND regexp_full_match(typeof(w_rel_ret), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(w_rel_ret AS DOUBLE) IS NOT NULL AND COALESCE(isfinite(TRY_CAST(w_rel_ret AS DOUBLE)), FALSE))
        THEN 'ireval_utility: w_rel_ret := ' || CASE typeof(w_rel_ret) WHEN 'VARCHAR' THEN '''' || replace(CAST(w_rel_ret AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(w_rel_ret AS VARCHAR), 'NULL') END || ' is invalid; it must be a finite number'
    WHEN NOT (w_nonrel_ret IS NOT NULL AND regexp_full_match(typeof(w_nonrel_ret), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(w_nonrel_ret AS DOUBLE) IS NOT NULL AND COALESCE(isfinite(TRY_CAST(w_nonrel_ret AS DOUBLE)), FALSE))
        THEN 'ireval_utility: w_nonrel_ret := ' || CASE typeof(w_nonrel_ret) WHEN 'VARCHAR' THEN '''' || replace(CAST(w_nonrel_ret AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(w_nonrel_ret AS VARCHAR), 'NULL') END || ' is invalid; it must be a finite number'
    WHEN NOT (w_rel_missed IS NOT NULL AND regexp_full_match(typeof(w_rel_missed), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(w_rel_missed AS DOUBLE) IS NOT NULL AND COALESCE(isfinite(TRY_CAST(w_rel_missed AS DOUBLE)), FALSE))
        THEN 'ireval_utility: w_rel_missed := ' || CASE typeof(w_rel_missed) WHEN 'VARCHAR' THEN '''' || replace(CAST(w_rel_missed AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(w_rel_missed AS VARCHAR), 'NULL') END || ' is invalid; it must be a finite number'
    WHEN NOT (w_nonrel_missed IS NOT NULL AND regexp_full_match(typeof(w_nonrel_missed), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(w_nonrel_missed AS DOUBLE) IS NOT NULL AND COALESCE(isfinite(TRY_CAST(w_nonrel_missed AS DOUBLE)), FALSE))
        THEN 'ireval_utility: w_nonrel_missed := ' || CASE typeof(w_nonrel_missed) WHEN 'VARCHAR' THEN '''' || replace(CAST(w_nonrel_missed AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(w_nonrel_missed AS VARCHAR), 'NULL') END || ' is invalid; it must be a finite number'
    WHEN NOT (num_docs IS NOT NULL AND regexp_full_match(typeof(num_docs), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(num_docs AS DOUBLE) IS NOT NULL AND COALESCE(isfinite(TRY_CAST(num_docs AS DOUBLE)) AND TRY_CAST(num_docs AS DOUBLE) >= 0, FALSE))
        THEN 'ireval_utility: num_docs := ' || CASE typeof(num_docs) WHEN 'VARCHAR' THEN '''' || replace(CAST(num_docs AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(num_docs AS VARCHAR), 'NULL') END || ' is invalid; it must be a non-negative finite number'
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_utility: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
END), eval_table::VARCHAR)))
SELECT run_id, query_id,
    CAST(TRY_CAST(w_rel_ret AS DOUBLE) AS DOUBLE) * h
    + CAST(TRY_CAST(w_nonrel_ret AS DOUBLE) AS DOUBLE) * (n - h)
    + CAST(TRY_CAST(w_rel_missed AS DOUBLE) AS DOUBLE) * (r - h)
    + CAST(TRY_CAST(w_nonrel_missed AS DOUBLE) AS DOUBLE) * (CAST(TRY_CAST(num_docs AS DOUBLE) AS DOUBLE) + h - n - r) AS value
FROM (
    SELECT run_id, query_id,
        CAST(rel_ret AS DOUBLE) AS h,
        CAST(num_ret AS DOUBLE) AS n,
        CAST(num_rel AS DOUBLE) AS r
    FROM (
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
            CASE WHEN rank IS NOT NULL AND (NULL IS NULL OR rank <= NULL)
                THEN 1 ELSE 0 END AS is_ret_k,
            CASE WHEN relevance IS NOT NULL AND relevance >= TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_rel,
            CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < TRY_CAST(rel AS HUGEINT)
                THEN 1 ELSE 0 END AS is_nonrel
        FROM ireval_eval_table
    ) AS f
    GROUP BY run_id, query_id
) AS s0
) AS u;

-- ---- err.sql

-- ERR@k: the sum over the top k ranks of R_i / i times the product of (1 - R_j) over the ranks j
-- above i, in rank order, with R_i = (2^g - 1) / 2^max_rel and g the grade clipped to [0,
-- max_rel] (unjudged documents: 0). The product is the exponential of a running sum of
-- logarithms (1 - R_j >= 2^-max_rel > 0).
CREATE OR REPLACE MACRO ireval_err(eval_table, k := NULL, max_rel := 4) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NULL OR (regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1, FALSE)))
        THEN 'ireval_err: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer (or NULL)'
    WHEN NOT (max_rel IS NOT NULL AND regexp_full_match(typeof(max_rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(max_rel AS HUGEINT) >= 1, FALSE))
        THEN 'ireval_err: max_rel := ' || CASE typeof(max_rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(max_rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(max_rel AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer'
END), eval_table::VARCHAR))),
stops AS (
    SELECT run_id, query_id, rank,
        (pow(CAST(2 AS DOUBLE), CAST(CASE WHEN relevance IS NULL OR relevance < 0 THEN 0
            WHEN relevance > TRY_CAST(max_rel AS HUGEINT) THEN TRY_CAST(max_rel AS HUGEINT) ELSE relevance END AS DOUBLE))
            - CAST(1 AS DOUBLE))
        * (CAST(1 AS DOUBLE) / pow(CAST(2 AS DOUBLE), CAST(TRY_CAST(max_rel AS HUGEINT) AS DOUBLE))) AS stop
    FROM ireval_eval_table
    WHERE rank IS NOT NULL AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT))
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
FROM (SELECT DISTINCT run_id, query_id FROM ireval_eval_table) AS pa
LEFT JOIN running AS x
    ON x.run_id = pa.run_id AND x.query_id = pa.query_id AND x.from_end = 1;

-- ---- weighted.sql

-- HIT@k: the best utility in the top k (0 for none).
CREATE OR REPLACE MACRO ireval_hit(eval_table, k := NULL, max_rel := 1, gains := '') AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NULL OR (regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1, FALSE)))
        THEN 'ireval_hit: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer (or NULL)'
    WHEN NOT (max_rel IS NOT NULL AND regexp_full_match(typeof(max_rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(max_rel AS HUGEINT) >= 1, FALSE))
        THEN 'ireval_hit: max_rel := ' || CASE typeof(max_rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(max_rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(max_rel AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer'
    WHEN NOT (gains IS NOT NULL AND regexp_full_match(typeof(gains), 'VARCHAR') AND TRY_CAST(gains AS VARCHAR) IS NOT NULL AND COALESCE(TRY_CAST(gains AS VARCHAR) = '' OR (regexp_full_match(TRY_CAST(gains AS VARCHAR), '(,(0|-?[1-9][0-9]*)=[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)+,') AND len(list_distinct(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: split_part(ireval_e, '=', 1)))) = len(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ',')) AND list_bool_and(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: NOT starts_with(split_part(ireval_e, '=', 1), '-') AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) >= 0 AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) <= 1))), FALSE))
        THEN 'ireval_hit: gains := ' || CASE typeof(gains) WHEN 'VARCHAR' THEN '''' || replace(CAST(gains AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(gains AS VARCHAR), 'NULL') END || ' is invalid; it must be '''' or a map '',grade=value,...,'' of distinct integer grades of 0 or more to utilities in [0, 1], e.g. '',1=0.3,2=1,'''
END), eval_table::VARCHAR)))
SELECT run_id, query_id,
    COALESCE(MAX(CASE WHEN rank IS NOT NULL AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT))
        THEN CASE WHEN relevance IS NULL THEN CAST(0 AS DOUBLE)
    WHEN TRY_CAST(gains AS VARCHAR) = '' THEN CAST(CASE WHEN relevance < 0 THEN 0
        WHEN relevance > TRY_CAST(max_rel AS HUGEINT) THEN TRY_CAST(max_rel AS HUGEINT) ELSE relevance END AS DOUBLE)
        / CAST(TRY_CAST(max_rel AS HUGEINT) AS DOUBLE)
    ELSE COALESCE(CASE WHEN TRY_CAST(gains AS VARCHAR) = ''
        OR instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END, CAST(0 AS DOUBLE))
END END), CAST(0 AS DOUBLE)) AS value
FROM ireval_eval_table
GROUP BY run_id, query_id;

-- InvSq@k: the sum over the top k ranks i of utility / (i (i + 1)), in rank order. Column
-- residual (as RBP@k's): the weight 1 / (i (i + 1)) of the unjudged documents in the top d =
-- min(k, retrieved), in rank order, plus that of every rank past d, 1 / (d + 1); at most 1, and
-- 1 when nothing in the top d is judged (polars_ireval.measures._expr's unit_residual).
CREATE OR REPLACE MACRO ireval_invsq(eval_table, k := NULL, max_rel := 1, gains := '') AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NULL OR (regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1, FALSE)))
        THEN 'ireval_invsq: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer (or NULL)'
    WHEN NOT (max_rel IS NOT NULL AND regexp_full_match(typeof(max_rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(max_rel AS HUGEINT) >= 1, FALSE))
        THEN 'ireval_invsq: max_rel := ' || CASE typeof(max_rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(max_rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(max_rel AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer'
    WHEN NOT (gains IS NOT NULL AND regexp_full_match(typeof(gains), 'VARCHAR') AND TRY_CAST(gains AS VARCHAR) IS NOT NULL AND COALESCE(TRY_CAST(gains AS VARCHAR) = '' OR (regexp_full_match(TRY_CAST(gains AS VARCHAR), '(,(0|-?[1-9][0-9]*)=[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)+,') AND len(list_distinct(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: split_part(ireval_e, '=', 1)))) = len(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ',')) AND list_bool_and(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: NOT starts_with(split_part(ireval_e, '=', 1), '-') AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) >= 0 AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) <= 1))), FALSE))
        THEN 'ireval_invsq: gains := ' || CASE typeof(gains) WHEN 'VARCHAR' THEN '''' || replace(CAST(gains AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(gains AS VARCHAR), 'NULL') END || ' is invalid; it must be '''' or a map '',grade=value,...,'' of distinct integer grades of 0 or more to utilities in [0, 1], e.g. '',1=0.3,2=1,'''
END), eval_table::VARCHAR))),
t AS (
    SELECT run_id, query_id, rank,
        CASE WHEN relevance IS NULL THEN CAST(0 AS DOUBLE)
    WHEN TRY_CAST(gains AS VARCHAR) = '' THEN CAST(CASE WHEN relevance < 0 THEN 0
        WHEN relevance > TRY_CAST(max_rel AS HUGEINT) THEN TRY_CAST(max_rel AS HUGEINT) ELSE relevance END AS DOUBLE)
        / CAST(TRY_CAST(max_rel AS HUGEINT) AS DOUBLE)
    ELSE COALESCE(CASE WHEN TRY_CAST(gains AS VARCHAR) = ''
        OR instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END, CAST(0 AS DOUBLE))
END / (CAST(rank AS DOUBLE) * (CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE)))
            AS term,
        CASE WHEN relevance IS NULL THEN CAST(1 AS DOUBLE)
            / (CAST(rank AS DOUBLE) * (CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE)))
            ELSE CAST(0 AS DOUBLE) END AS unjudged
    FROM ireval_eval_table
    WHERE rank IS NOT NULL AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT))
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
FROM (SELECT DISTINCT run_id, query_id FROM ireval_eval_table) AS pa
LEFT JOIN running AS x
    ON x.run_id = pa.run_id AND x.query_id = pa.query_id AND x.from_end = 1;

-- ---- rbp.sql

-- RBP@k: the sum over the top d ranks of gain x weight, in rank order. Gain: 1 for grade >= rel,
-- or the grade's value in the gain map `gains` (',grade=gain,...,'; grades not listed gain 0);
-- unjudged documents gain 0. ties: 'rank' (each document its rank's weight) or 'average'
-- (rbp_eval). Column depth: the expected number of documents read, 1 / (1 - p).
CREATE OR REPLACE MACRO ireval_rbp(eval_table, k := NULL, p := 0.8, rel := 1, gains := '', ties := 'rank') AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NULL OR (regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1, FALSE)))
        THEN 'ireval_rbp: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer (or NULL)'
    WHEN NOT (p IS NOT NULL AND regexp_full_match(typeof(p), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(p AS DOUBLE) IS NOT NULL AND COALESCE(TRY_CAST(p AS DOUBLE) > 0 AND TRY_CAST(p AS DOUBLE) < 1, FALSE))
        THEN 'ireval_rbp: p := ' || CASE typeof(p) WHEN 'VARCHAR' THEN '''' || replace(CAST(p AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(p AS VARCHAR), 'NULL') END || ' is invalid; it must be a number in (0, 1)'
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_rbp: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
    WHEN NOT (gains IS NOT NULL AND regexp_full_match(typeof(gains), 'VARCHAR') AND TRY_CAST(gains AS VARCHAR) IS NOT NULL AND COALESCE(TRY_CAST(gains AS VARCHAR) = '' OR (regexp_full_match(TRY_CAST(gains AS VARCHAR), '(,(0|-?[1-9][0-9]*)=[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)+,') AND len(list_distinct(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: split_part(ireval_e, '=', 1)))) = len(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ',')) AND list_bool_and(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: NOT starts_with(split_part(ireval_e, '=', 1), '-') AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) >= 0 AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) <= 1))), FALSE))
        THEN 'ireval_rbp: gains := ' || CASE typeof(gains) WHEN 'VARCHAR' THEN '''' || replace(CAST(gains AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(gains AS VARCHAR), 'NULL') END || ' is invalid; it must be '''' or a map '',grade=value,...,'' of distinct integer grades of 0 or more to gains in [0, 1], e.g. '',1=0.5,2=1,'''
    WHEN NOT (ties IS NOT NULL AND regexp_full_match(typeof(ties), 'VARCHAR') AND TRY_CAST(ties AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(ties AS VARCHAR)) IN (encode('rank'), encode('average')), FALSE))
        THEN 'ireval_rbp: ties := ' || CASE typeof(ties) WHEN 'VARCHAR' THEN '''' || replace(CAST(ties AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(ties AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''rank'', ''average'''
END), eval_table::VARCHAR))),
t AS (
    SELECT run_id, query_id, rank,
        CASE WHEN relevance IS NULL THEN CAST(0 AS DOUBLE)
            WHEN TRY_CAST(gains AS VARCHAR) = '' THEN
                CASE WHEN relevance >= TRY_CAST(rel AS HUGEINT) THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END
            ELSE COALESCE(CASE WHEN TRY_CAST(gains AS VARCHAR) = ''
        OR instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END, CAST(0 AS DOUBLE))
        END * weight AS term
    FROM (
    SELECT run_id, query_id, rank, relevance,
        (CAST(1 AS DOUBLE) - CAST(TRY_CAST(p AS DOUBLE) AS DOUBLE))
            * pow(CAST(TRY_CAST(p AS DOUBLE) AS DOUBLE), CAST(rank AS DOUBLE) - CAST(1 AS DOUBLE)) AS weight
    FROM ireval_eval_table
    WHERE TRY_CAST(ties AS VARCHAR) = 'rank' AND rank IS NOT NULL AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT))
    UNION ALL
    SELECT run_id, query_id, rank, relevance,
        CASE WHEN TRY_CAST(k AS HUGEINT) IS NULL THEN mean
            ELSE mean * (CASE WHEN end_pos < CAST(TRY_CAST(k AS HUGEINT) AS DOUBLE) THEN end_pos
                ELSE CAST(TRY_CAST(k AS HUGEINT) AS DOUBLE) END - start_pos) / size END AS weight
    FROM (
        SELECT run_id, query_id, rank, relevance, start_pos, end_pos - start_pos AS size,
            end_pos,
            (pow(CAST(TRY_CAST(p AS DOUBLE) AS DOUBLE), start_pos) - pow(CAST(TRY_CAST(p AS DOUBLE) AS DOUBLE), end_pos))
                / (end_pos - start_pos) AS mean
        FROM (
            SELECT run_id, query_id, rank, relevance,
                CAST(rank() OVER (PARTITION BY run_id, query_id ORDER BY score DESC) - 1
                    AS DOUBLE) AS start_pos,
                CAST(COUNT(*) OVER (PARTITION BY run_id, query_id)
                    - rank() OVER (PARTITION BY run_id, query_id ORDER BY score ASC) + 1
                    AS DOUBLE) AS end_pos
            FROM ireval_eval_table
            WHERE TRY_CAST(ties AS VARCHAR) = 'average' AND rank IS NOT NULL
        ) AS tie
    ) AS tw
    WHERE TRY_CAST(k AS HUGEINT) IS NULL OR start_pos < CAST(TRY_CAST(k AS HUGEINT) AS DOUBLE)
) AS w
),
running AS (
    SELECT run_id, query_id,
        SUM(term) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS total,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM t
)
SELECT pa.run_id, pa.query_id, COALESCE(x.total, CAST(0 AS DOUBLE)) AS value,
    CAST(1 AS DOUBLE) / ((CAST(1 AS DOUBLE) - CAST(TRY_CAST(p AS DOUBLE) AS DOUBLE))
        * pow(CAST(TRY_CAST(p AS DOUBLE) AS DOUBLE), CAST(0 AS DOUBLE))) AS depth
FROM (SELECT DISTINCT run_id, query_id FROM ireval_eval_table) AS pa
LEFT JOIN running AS x
    ON x.run_id = pa.run_id AND x.query_id = pa.query_id AND x.from_end = 1;

-- RBP residual@k: the weight of the unjudged documents in the top d ranks plus p^d, the most
-- RBP@k could still grow; at most 1, and 1 when nothing in the top d is judged (with ties :=
-- 'average', rbp_eval's tie weights cut at k: its sum). ties as for ireval_rbp.
CREATE OR REPLACE MACRO ireval_rbp_resid(eval_table, k := NULL, p := 0.8, ties := 'rank') AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NULL OR (regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1, FALSE)))
        THEN 'ireval_rbp_resid: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer (or NULL)'
    WHEN NOT (p IS NOT NULL AND regexp_full_match(typeof(p), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(p AS DOUBLE) IS NOT NULL AND COALESCE(TRY_CAST(p AS DOUBLE) > 0 AND TRY_CAST(p AS DOUBLE) < 1, FALSE))
        THEN 'ireval_rbp_resid: p := ' || CASE typeof(p) WHEN 'VARCHAR' THEN '''' || replace(CAST(p AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(p AS VARCHAR), 'NULL') END || ' is invalid; it must be a number in (0, 1)'
    WHEN NOT (ties IS NOT NULL AND regexp_full_match(typeof(ties), 'VARCHAR') AND TRY_CAST(ties AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(ties AS VARCHAR)) IN (encode('rank'), encode('average')), FALSE))
        THEN 'ireval_rbp_resid: ties := ' || CASE typeof(ties) WHEN 'VARCHAR' THEN '''' || replace(CAST(ties AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(ties AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''rank'', ''average'''
END), eval_table::VARCHAR))),
t AS (
    SELECT run_id, query_id, rank,
        CASE WHEN relevance IS NULL THEN weight ELSE CAST(0 AS DOUBLE) END AS term
    FROM (
    SELECT run_id, query_id, rank, relevance,
        (CAST(1 AS DOUBLE) - CAST(TRY_CAST(p AS DOUBLE) AS DOUBLE))
            * pow(CAST(TRY_CAST(p AS DOUBLE) AS DOUBLE), CAST(rank AS DOUBLE) - CAST(1 AS DOUBLE)) AS weight
    FROM ireval_eval_table
    WHERE TRY_CAST(ties AS VARCHAR) = 'rank' AND rank IS NOT NULL AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT))
    UNION ALL
    SELECT run_id, query_id, rank, relevance,
        CASE WHEN TRY_CAST(k AS HUGEINT) IS NULL THEN mean
            ELSE mean * (CASE WHEN end_pos < CAST(TRY_CAST(k AS HUGEINT) AS DOUBLE) THEN end_pos
                ELSE CAST(TRY_CAST(k AS HUGEINT) AS DOUBLE) END - start_pos) / size END AS weight
    FROM (
        SELECT run_id, query_id, rank, relevance, start_pos, end_pos - start_pos AS size,
            end_pos,
            (pow(CAST(TRY_CAST(p AS DOUBLE) AS DOUBLE), start_pos) - pow(CAST(TRY_CAST(p AS DOUBLE) AS DOUBLE), end_pos))
                / (end_pos - start_pos) AS mean
        FROM (
            SELECT run_id, query_id, rank, relevance,
                CAST(rank() OVER (PARTITION BY run_id, query_id ORDER BY score DESC) - 1
                    AS DOUBLE) AS start_pos,
                CAST(COUNT(*) OVER (PARTITION BY run_id, query_id)
                    - rank() OVER (PARTITION BY run_id, query_id ORDER BY score ASC) + 1
                    AS DOUBLE) AS end_pos
            FROM ireval_eval_table
            WHERE TRY_CAST(ties AS VARCHAR) = 'average' AND rank IS NOT NULL
        ) AS tie
    ) AS tw
    WHERE TRY_CAST(k AS HUGEINT) IS NULL OR start_pos < CAST(TRY_CAST(k AS HUGEINT) AS DOUBLE)
) AS w
),
running AS (
    SELECT run_id, query_id,
        SUM(term) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS total,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM t
),
depth AS (
    SELECT run_id, query_id,
        SUM(CASE WHEN TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT) THEN 1 ELSE 0 END) AS d,
        SUM(CASE WHEN relevance IS NOT NULL AND (TRY_CAST(k AS HUGEINT) IS NULL OR rank <= TRY_CAST(k AS HUGEINT))
            THEN 1 ELSE 0 END) AS judged
    FROM ireval_eval_table
    WHERE rank IS NOT NULL
    GROUP BY run_id, query_id
)
SELECT pa.run_id, pa.query_id,
    CASE WHEN TRY_CAST(ties AS VARCHAR) <> 'average' AND COALESCE(dp.judged, 0) = 0 THEN CAST(1 AS DOUBLE)
    ELSE LEAST(CAST(1 AS DOUBLE), COALESCE(x.total, CAST(0 AS DOUBLE))
        + pow(CAST(TRY_CAST(p AS DOUBLE) AS DOUBLE), CAST(dp.d AS DOUBLE))) END AS value
FROM (SELECT DISTINCT run_id, query_id FROM ireval_eval_table) AS pa
LEFT JOIN running AS x
    ON x.run_id = pa.run_id AND x.query_id = pa.query_id AND x.from_end = 1
LEFT JOIN depth AS dp ON dp.run_id = pa.run_id AND dp.query_id = pa.query_id;

-- ---- cwl.sql

-- INST@k (cwl_eval's INSTCWLMetric(T), T = target): adaptive, C(i) = ((i + T + T_i - 1) / (i + T
-- + T_i))^2 with T_i = T less the gain of positions 1..i.
CREATE OR REPLACE MACRO ireval_inst(eval_table, k := 1000, target := 1.0, rel := 1, gains := '', min_rel := 0, max_rel := NULL) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NOT NULL AND regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1 AND TRY_CAST(k AS HUGEINT) <= 1000000000, FALSE))
        THEN 'ireval_inst: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer, at most 1000000000 (the positions the SQL generates)'
    WHEN NOT (target IS NOT NULL AND regexp_full_match(typeof(target), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(target AS DOUBLE) IS NOT NULL AND COALESCE(isfinite(TRY_CAST(target AS DOUBLE)) AND TRY_CAST(target AS DOUBLE) > 0, FALSE))
        THEN 'ireval_inst: target := ' || CASE typeof(target) WHEN 'VARCHAR' THEN '''' || replace(CAST(target AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(target AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive finite number'
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_inst: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
    WHEN NOT (gains IS NOT NULL AND regexp_full_match(typeof(gains), 'VARCHAR') AND TRY_CAST(gains AS VARCHAR) IS NOT NULL AND COALESCE(TRY_CAST(gains AS VARCHAR) = '' OR (regexp_full_match(TRY_CAST(gains AS VARCHAR), '(,(0|-?[1-9][0-9]*)=[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)+,') AND len(list_distinct(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: split_part(ireval_e, '=', 1)))) = len(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ',')) AND list_bool_and(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: NOT starts_with(split_part(ireval_e, '=', 1), '-') AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) >= 0 AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) <= 1))), FALSE))
        THEN 'ireval_inst: gains := ' || CASE typeof(gains) WHEN 'VARCHAR' THEN '''' || replace(CAST(gains AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(gains AS VARCHAR), 'NULL') END || ' is invalid; it must be '''' or a map '',grade=value,...,'' of distinct integer grades of 0 or more to gains in [0, 1], e.g. '',1=0.5,2=1,'''
    WHEN NOT (min_rel IS NOT NULL AND regexp_full_match(typeof(min_rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(min_rel AS HUGEINT) IS NOT NULL AND COALESCE(TRUE, FALSE))
        THEN 'ireval_inst: min_rel := ' || CASE typeof(min_rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(min_rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(min_rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer'
    WHEN NOT (max_rel IS NULL OR (regexp_full_match(typeof(max_rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND COALESCE(TRUE, FALSE)))
        THEN 'ireval_inst: max_rel := ' || CASE typeof(max_rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(max_rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(max_rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer (or NULL)'
    WHEN COALESCE(TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND TRY_CAST(min_rel AS HUGEINT) >= TRY_CAST(max_rel AS HUGEINT), FALSE)
        THEN 'ireval_inst: ' || 'min_rel := ' || CAST(TRY_CAST(min_rel AS HUGEINT) AS VARCHAR) || ' must be below max_rel := ' || CAST(TRY_CAST(max_rel AS HUGEINT) AS VARCHAR)
    WHEN COALESCE(TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND TRY_CAST(gains AS VARCHAR) <> '', FALSE)
        THEN 'ireval_inst: ' || 'give gains or max_rel, not both (max_rel scales the grades between min_rel and max_rel to [0, 1])'
END), eval_table::VARCHAR))),
seen AS (
    SELECT run_id, query_id, rank,
        CASE WHEN relevance IS NULL THEN NULL
            WHEN TRY_CAST(max_rel AS HUGEINT) IS NOT NULL THEN CASE
                WHEN relevance >= TRY_CAST(max_rel AS HUGEINT) THEN CAST(1 AS DOUBLE)
                WHEN relevance <= TRY_CAST(min_rel AS HUGEINT) THEN CAST(0 AS DOUBLE)
                ELSE CAST(relevance - TRY_CAST(min_rel AS HUGEINT) AS DOUBLE) / CAST(TRY_CAST(max_rel AS HUGEINT) - TRY_CAST(min_rel AS HUGEINT) AS DOUBLE)
                END
            WHEN TRY_CAST(gains AS VARCHAR) = '' THEN
                CASE WHEN relevance >= TRY_CAST(rel AS HUGEINT) THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END
            ELSE COALESCE(CASE WHEN TRY_CAST(gains AS VARCHAR) = ''
        OR instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END, CAST(0 AS DOUBLE))
        END AS gain
    FROM ireval_eval_table
    WHERE rank IS NOT NULL AND rank <= TRY_CAST(k AS HUGEINT)
),
known AS (
    SELECT pa.run_id, pa.query_id, po.pos, CAST(po.pos AS DOUBLE) AS i,
        COALESCE(s.gain, CAST(0 AS DOUBLE)) AS g_lo,
        COALESCE(s.gain, CAST(1 AS DOUBLE)) AS g_hi
    FROM (SELECT DISTINCT run_id, query_id FROM ireval_eval_table) AS pa
    CROSS JOIN (SELECT CAST(range AS INTEGER) AS pos FROM range(1, CAST(COALESCE(TRY_CAST(k AS HUGEINT), 0) + 1 AS BIGINT))) AS po
    LEFT JOIN seen AS s
        ON s.run_id = pa.run_id AND s.query_id = pa.query_id AND s.rank = po.pos
),
cells AS (
    SELECT run_id, query_id, pos, i, g_lo, g_hi,
        SUM(g_lo) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cg_lo,
        SUM(g_hi) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cg_hi
    FROM known
),
ratios AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        (i + CAST(TRY_CAST(target AS DOUBLE) AS DOUBLE) + (CAST(TRY_CAST(target AS DOUBLE) AS DOUBLE) - cg_lo) - CAST(1 AS DOUBLE))
        / (i + CAST(TRY_CAST(target AS DOUBLE) AS DOUBLE) + (CAST(TRY_CAST(target AS DOUBLE) AS DOUBLE) - cg_lo)) AS q_lo,
        (i + CAST(TRY_CAST(target AS DOUBLE) AS DOUBLE) + (CAST(TRY_CAST(target AS DOUBLE) AS DOUBLE) - cg_hi) - CAST(1 AS DOUBLE))
        / (i + CAST(TRY_CAST(target AS DOUBLE) AS DOUBLE) + (CAST(TRY_CAST(target AS DOUBLE) AS DOUBLE) - cg_hi)) AS q_hi
    FROM cells
),
cont AS (
    SELECT run_id, query_id, pos, g_lo, g_hi, q_lo * q_lo AS c_lo, q_hi * q_hi AS c_hi
    FROM ratios
),
weighted AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        CASE WHEN COALESCE(SUM(CASE WHEN c_lo > CAST(0 AS DOUBLE) THEN 0 ELSE 1 END) OVER (
                PARTITION BY run_id, query_id ORDER BY pos
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) > 0
            THEN CAST(0 AS DOUBLE)
            ELSE exp(COALESCE(SUM(ln(CASE WHEN c_lo > CAST(0 AS DOUBLE) THEN c_lo
                ELSE CAST(1 AS DOUBLE) END)) OVER (
                    PARTITION BY run_id, query_id ORDER BY pos
                    ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), CAST(0 AS DOUBLE)))
        END AS w_lo,
        CASE WHEN COALESCE(SUM(CASE WHEN c_hi > CAST(0 AS DOUBLE) THEN 0 ELSE 1 END) OVER (
                PARTITION BY run_id, query_id ORDER BY pos
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) > 0
            THEN CAST(0 AS DOUBLE)
            ELSE exp(COALESCE(SUM(ln(CASE WHEN c_hi > CAST(0 AS DOUBLE) THEN c_hi
                ELSE CAST(1 AS DOUBLE) END)) OVER (
                    PARTITION BY run_id, query_id ORDER BY pos
                    ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), CAST(0 AS DOUBLE)))
        END AS w_hi
    FROM cont
)
SELECT run_id, query_id,
    SUM(w_lo * g_lo ORDER BY pos) / SUM(w_lo ORDER BY pos) AS value,
    CASE WHEN TRUE
        THEN SUM(w_hi * g_hi ORDER BY pos) / SUM(w_hi ORDER BY pos)
            - SUM(w_lo * g_lo ORDER BY pos) / SUM(w_lo ORDER BY pos)
        ELSE SUM(w_lo * (g_hi - g_lo) ORDER BY pos) / SUM(w_lo ORDER BY pos) END AS residual,
    SUM(w_lo ORDER BY pos) / MAX(CASE WHEN pos = 1 THEN w_lo END) AS depth
FROM weighted
GROUP BY run_id, query_id;

-- INSQ@k (cwl_eval's INSQCWLMetric(T), T = target): C(i) = ((i + 2T - 1) / (i + 2T))^2.
CREATE OR REPLACE MACRO ireval_insq(eval_table, k := 1000, target := 1.0, rel := 1, gains := '', min_rel := 0, max_rel := NULL) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NOT NULL AND regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1 AND TRY_CAST(k AS HUGEINT) <= 1000000000, FALSE))
        THEN 'ireval_insq: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer, at most 1000000000 (the positions the SQL generates)'
    WHEN NOT (target IS NOT NULL AND regexp_full_match(typeof(target), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(target AS DOUBLE) IS NOT NULL AND COALESCE(isfinite(TRY_CAST(target AS DOUBLE)) AND TRY_CAST(target AS DOUBLE) > 0, FALSE))
        THEN 'ireval_insq: target := ' || CASE typeof(target) WHEN 'VARCHAR' THEN '''' || replace(CAST(target AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(target AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive finite number'
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_insq: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
    WHEN NOT (gains IS NOT NULL AND regexp_full_match(typeof(gains), 'VARCHAR') AND TRY_CAST(gains AS VARCHAR) IS NOT NULL AND COALESCE(TRY_CAST(gains AS VARCHAR) = '' OR (regexp_full_match(TRY_CAST(gains AS VARCHAR), '(,(0|-?[1-9][0-9]*)=[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)+,') AND len(list_distinct(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: split_part(ireval_e, '=', 1)))) = len(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ',')) AND list_bool_and(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: NOT starts_with(split_part(ireval_e, '=', 1), '-') AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) >= 0 AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) <= 1))), FALSE))
        THEN 'ireval_insq: gains := ' || CASE typeof(gains) WHEN 'VARCHAR' THEN '''' || replace(CAST(gains AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(gains AS VARCHAR), 'NULL') END || ' is invalid; it must be '''' or a map '',grade=value,...,'' of distinct integer grades of 0 or more to gains in [0, 1], e.g. '',1=0.5,2=1,'''
    WHEN NOT (min_rel IS NOT NULL AND regexp_full_match(typeof(min_rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(min_rel AS HUGEINT) IS NOT NULL AND COALESCE(TRUE, FALSE))
        THEN 'ireval_insq: min_rel := ' || CASE typeof(min_rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(min_rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(min_rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer'
    WHEN NOT (max_rel IS NULL OR (regexp_full_match(typeof(max_rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND COALESCE(TRUE, FALSE)))
        THEN 'ireval_insq: max_rel := ' || CASE typeof(max_rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(max_rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(max_rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer (or NULL)'
    WHEN COALESCE(TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND TRY_CAST(min_rel AS HUGEINT) >= TRY_CAST(max_rel AS HUGEINT), FALSE)
        THEN 'ireval_insq: ' || 'min_rel := ' || CAST(TRY_CAST(min_rel AS HUGEINT) AS VARCHAR) || ' must be below max_rel := ' || CAST(TRY_CAST(max_rel AS HUGEINT) AS VARCHAR)
    WHEN COALESCE(TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND TRY_CAST(gains AS VARCHAR) <> '', FALSE)
        THEN 'ireval_insq: ' || 'give gains or max_rel, not both (max_rel scales the grades between min_rel and max_rel to [0, 1])'
END), eval_table::VARCHAR))),
seen AS (
    SELECT run_id, query_id, rank,
        CASE WHEN relevance IS NULL THEN NULL
            WHEN TRY_CAST(max_rel AS HUGEINT) IS NOT NULL THEN CASE
                WHEN relevance >= TRY_CAST(max_rel AS HUGEINT) THEN CAST(1 AS DOUBLE)
                WHEN relevance <= TRY_CAST(min_rel AS HUGEINT) THEN CAST(0 AS DOUBLE)
                ELSE CAST(relevance - TRY_CAST(min_rel AS HUGEINT) AS DOUBLE) / CAST(TRY_CAST(max_rel AS HUGEINT) - TRY_CAST(min_rel AS HUGEINT) AS DOUBLE)
                END
            WHEN TRY_CAST(gains AS VARCHAR) = '' THEN
                CASE WHEN relevance >= TRY_CAST(rel AS HUGEINT) THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END
            ELSE COALESCE(CASE WHEN TRY_CAST(gains AS VARCHAR) = ''
        OR instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END, CAST(0 AS DOUBLE))
        END AS gain
    FROM ireval_eval_table
    WHERE rank IS NOT NULL AND rank <= TRY_CAST(k AS HUGEINT)
),
known AS (
    SELECT pa.run_id, pa.query_id, po.pos, CAST(po.pos AS DOUBLE) AS i,
        COALESCE(s.gain, CAST(0 AS DOUBLE)) AS g_lo,
        COALESCE(s.gain, CAST(1 AS DOUBLE)) AS g_hi
    FROM (SELECT DISTINCT run_id, query_id FROM ireval_eval_table) AS pa
    CROSS JOIN (SELECT CAST(range AS INTEGER) AS pos FROM range(1, CAST(COALESCE(TRY_CAST(k AS HUGEINT), 0) + 1 AS BIGINT))) AS po
    LEFT JOIN seen AS s
        ON s.run_id = pa.run_id AND s.query_id = pa.query_id AND s.rank = po.pos
),
cells AS (
    SELECT run_id, query_id, pos, i, g_lo, g_hi,
        SUM(g_lo) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cg_lo,
        SUM(g_hi) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cg_hi
    FROM known
),
ratios AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        (i + CAST(2 AS DOUBLE) * CAST(TRY_CAST(target AS DOUBLE) AS DOUBLE) - CAST(1 AS DOUBLE))
        / (i + CAST(2 AS DOUBLE) * CAST(TRY_CAST(target AS DOUBLE) AS DOUBLE)) AS q
    FROM cells
),
cont AS (
    SELECT run_id, query_id, pos, g_lo, g_hi, q * q AS c_lo, q * q AS c_hi
    FROM ratios
),
weighted AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        CASE WHEN COALESCE(SUM(CASE WHEN c_lo > CAST(0 AS DOUBLE) THEN 0 ELSE 1 END) OVER (
                PARTITION BY run_id, query_id ORDER BY pos
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) > 0
            THEN CAST(0 AS DOUBLE)
            ELSE exp(COALESCE(SUM(ln(CASE WHEN c_lo > CAST(0 AS DOUBLE) THEN c_lo
                ELSE CAST(1 AS DOUBLE) END)) OVER (
                    PARTITION BY run_id, query_id ORDER BY pos
                    ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), CAST(0 AS DOUBLE)))
        END AS w_lo,
        CASE WHEN COALESCE(SUM(CASE WHEN c_hi > CAST(0 AS DOUBLE) THEN 0 ELSE 1 END) OVER (
                PARTITION BY run_id, query_id ORDER BY pos
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) > 0
            THEN CAST(0 AS DOUBLE)
            ELSE exp(COALESCE(SUM(ln(CASE WHEN c_hi > CAST(0 AS DOUBLE) THEN c_hi
                ELSE CAST(1 AS DOUBLE) END)) OVER (
                    PARTITION BY run_id, query_id ORDER BY pos
                    ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), CAST(0 AS DOUBLE)))
        END AS w_hi
    FROM cont
)
SELECT run_id, query_id,
    SUM(w_lo * g_lo ORDER BY pos) / SUM(w_lo ORDER BY pos) AS value,
    CASE WHEN FALSE
        THEN SUM(w_hi * g_hi ORDER BY pos) / SUM(w_hi ORDER BY pos)
            - SUM(w_lo * g_lo ORDER BY pos) / SUM(w_lo ORDER BY pos)
        ELSE SUM(w_lo * (g_hi - g_lo) ORDER BY pos) / SUM(w_lo ORDER BY pos) END AS residual,
    SUM(w_lo ORDER BY pos) / MAX(CASE WHEN pos = 1 THEN w_lo END) AS depth
FROM weighted
GROUP BY run_id, query_id;

-- TBG@k (cwl_eval's TBGCWLMetric(halflife)): W(i) proportional to 2^(-(i - 1) / halflife).
CREATE OR REPLACE MACRO ireval_tbg(eval_table, k := 1000, halflife := 224.0, rel := 1, gains := '', min_rel := 0, max_rel := NULL) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NOT NULL AND regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1 AND TRY_CAST(k AS HUGEINT) <= 1000000000, FALSE))
        THEN 'ireval_tbg: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer, at most 1000000000 (the positions the SQL generates)'
    WHEN NOT (halflife IS NOT NULL AND regexp_full_match(typeof(halflife), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(halflife AS DOUBLE) IS NOT NULL AND COALESCE(isfinite(TRY_CAST(halflife AS DOUBLE)) AND TRY_CAST(halflife AS DOUBLE) > 0, FALSE))
        THEN 'ireval_tbg: halflife := ' || CASE typeof(halflife) WHEN 'VARCHAR' THEN '''' || replace(CAST(halflife AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(halflife AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive finite number'
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_tbg: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
    WHEN NOT (gains IS NOT NULL AND regexp_full_match(typeof(gains), 'VARCHAR') AND TRY_CAST(gains AS VARCHAR) IS NOT NULL AND COALESCE(TRY_CAST(gains AS VARCHAR) = '' OR (regexp_full_match(TRY_CAST(gains AS VARCHAR), '(,(0|-?[1-9][0-9]*)=[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)+,') AND len(list_distinct(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: split_part(ireval_e, '=', 1)))) = len(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ',')) AND list_bool_and(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: NOT starts_with(split_part(ireval_e, '=', 1), '-') AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) >= 0 AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) <= 1))), FALSE))
        THEN 'ireval_tbg: gains := ' || CASE typeof(gains) WHEN 'VARCHAR' THEN '''' || replace(CAST(gains AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(gains AS VARCHAR), 'NULL') END || ' is invalid; it must be '''' or a map '',grade=value,...,'' of distinct integer grades of 0 or more to gains in [0, 1], e.g. '',1=0.5,2=1,'''
    WHEN NOT (min_rel IS NOT NULL AND regexp_full_match(typeof(min_rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(min_rel AS HUGEINT) IS NOT NULL AND COALESCE(TRUE, FALSE))
        THEN 'ireval_tbg: min_rel := ' || CASE typeof(min_rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(min_rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(min_rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer'
    WHEN NOT (max_rel IS NULL OR (regexp_full_match(typeof(max_rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND COALESCE(TRUE, FALSE)))
        THEN 'ireval_tbg: max_rel := ' || CASE typeof(max_rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(max_rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(max_rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer (or NULL)'
    WHEN COALESCE(TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND TRY_CAST(min_rel AS HUGEINT) >= TRY_CAST(max_rel AS HUGEINT), FALSE)
        THEN 'ireval_tbg: ' || 'min_rel := ' || CAST(TRY_CAST(min_rel AS HUGEINT) AS VARCHAR) || ' must be below max_rel := ' || CAST(TRY_CAST(max_rel AS HUGEINT) AS VARCHAR)
    WHEN COALESCE(TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND TRY_CAST(gains AS VARCHAR) <> '', FALSE)
        THEN 'ireval_tbg: ' || 'give gains or max_rel, not both (max_rel scales the grades between min_rel and max_rel to [0, 1])'
END), eval_table::VARCHAR))),
seen AS (
    SELECT run_id, query_id, rank,
        CASE WHEN relevance IS NULL THEN NULL
            WHEN TRY_CAST(max_rel AS HUGEINT) IS NOT NULL THEN CASE
                WHEN relevance >= TRY_CAST(max_rel AS HUGEINT) THEN CAST(1 AS DOUBLE)
                WHEN relevance <= TRY_CAST(min_rel AS HUGEINT) THEN CAST(0 AS DOUBLE)
                ELSE CAST(relevance - TRY_CAST(min_rel AS HUGEINT) AS DOUBLE) / CAST(TRY_CAST(max_rel AS HUGEINT) - TRY_CAST(min_rel AS HUGEINT) AS DOUBLE)
                END
            WHEN TRY_CAST(gains AS VARCHAR) = '' THEN
                CASE WHEN relevance >= TRY_CAST(rel AS HUGEINT) THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END
            ELSE COALESCE(CASE WHEN TRY_CAST(gains AS VARCHAR) = ''
        OR instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END, CAST(0 AS DOUBLE))
        END AS gain
    FROM ireval_eval_table
    WHERE rank IS NOT NULL AND rank <= TRY_CAST(k AS HUGEINT)
),
known AS (
    SELECT pa.run_id, pa.query_id, po.pos, CAST(po.pos AS DOUBLE) AS i,
        COALESCE(s.gain, CAST(0 AS DOUBLE)) AS g_lo,
        COALESCE(s.gain, CAST(1 AS DOUBLE)) AS g_hi
    FROM (SELECT DISTINCT run_id, query_id FROM ireval_eval_table) AS pa
    CROSS JOIN (SELECT CAST(range AS INTEGER) AS pos FROM range(1, CAST(COALESCE(TRY_CAST(k AS HUGEINT), 0) + 1 AS BIGINT))) AS po
    LEFT JOIN seen AS s
        ON s.run_id = pa.run_id AND s.query_id = pa.query_id AND s.rank = po.pos
),
cells AS (
    SELECT run_id, query_id, pos, i, g_lo, g_hi,
        SUM(g_lo) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cg_lo,
        SUM(g_hi) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cg_hi
    FROM known
),
weighted AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        pow(CAST(2 AS DOUBLE), (CAST(0 AS DOUBLE) - (i - CAST(1 AS DOUBLE)))
            * (CAST(1 AS DOUBLE) / CAST(TRY_CAST(halflife AS DOUBLE) AS DOUBLE))) AS w_lo,
        pow(CAST(2 AS DOUBLE), (CAST(0 AS DOUBLE) - (i - CAST(1 AS DOUBLE)))
            * (CAST(1 AS DOUBLE) / CAST(TRY_CAST(halflife AS DOUBLE) AS DOUBLE))) AS w_hi
    FROM cells
)
SELECT run_id, query_id,
    SUM(w_lo * g_lo ORDER BY pos) / SUM(w_lo ORDER BY pos) AS value,
    CASE WHEN FALSE
        THEN SUM(w_hi * g_hi ORDER BY pos) / SUM(w_hi ORDER BY pos)
            - SUM(w_lo * g_lo ORDER BY pos) / SUM(w_lo ORDER BY pos)
        ELSE SUM(w_lo * (g_hi - g_lo) ORDER BY pos) / SUM(w_lo ORDER BY pos) END AS residual,
    SUM(w_lo ORDER BY pos) / MAX(CASE WHEN pos = 1 THEN w_lo END) AS depth
FROM weighted
GROUP BY run_id, query_id;

-- U@k (cwl_eval's UMeasureCWLMetric(L), L = stop_length): W(i) proportional to max(0, 1 - (i -
-- 1) / L), and 0 at position k.
CREATE OR REPLACE MACRO ireval_u(eval_table, k := 1000, stop_length := 1000.0, rel := 1, gains := '', min_rel := 0, max_rel := NULL) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NOT NULL AND regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 2 AND TRY_CAST(k AS HUGEINT) <= 1000000000, FALSE))
        THEN 'ireval_u: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer from 2 to 1000000000 (U gives the last position weight 0)'
    WHEN NOT (stop_length IS NOT NULL AND regexp_full_match(typeof(stop_length), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(stop_length AS DOUBLE) IS NOT NULL AND COALESCE(isfinite(TRY_CAST(stop_length AS DOUBLE)) AND TRY_CAST(stop_length AS DOUBLE) > 0, FALSE))
        THEN 'ireval_u: stop_length := ' || CASE typeof(stop_length) WHEN 'VARCHAR' THEN '''' || replace(CAST(stop_length AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(stop_length AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive finite number'
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_u: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
    WHEN NOT (gains IS NOT NULL AND regexp_full_match(typeof(gains), 'VARCHAR') AND TRY_CAST(gains AS VARCHAR) IS NOT NULL AND COALESCE(TRY_CAST(gains AS VARCHAR) = '' OR (regexp_full_match(TRY_CAST(gains AS VARCHAR), '(,(0|-?[1-9][0-9]*)=[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)+,') AND len(list_distinct(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: split_part(ireval_e, '=', 1)))) = len(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ',')) AND list_bool_and(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: NOT starts_with(split_part(ireval_e, '=', 1), '-') AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) >= 0 AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) <= 1))), FALSE))
        THEN 'ireval_u: gains := ' || CASE typeof(gains) WHEN 'VARCHAR' THEN '''' || replace(CAST(gains AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(gains AS VARCHAR), 'NULL') END || ' is invalid; it must be '''' or a map '',grade=value,...,'' of distinct integer grades of 0 or more to gains in [0, 1], e.g. '',1=0.5,2=1,'''
    WHEN NOT (min_rel IS NOT NULL AND regexp_full_match(typeof(min_rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(min_rel AS HUGEINT) IS NOT NULL AND COALESCE(TRUE, FALSE))
        THEN 'ireval_u: min_rel := ' || CASE typeof(min_rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(min_rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(min_rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer'
    WHEN NOT (max_rel IS NULL OR (regexp_full_match(typeof(max_rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND COALESCE(TRUE, FALSE)))
        THEN 'ireval_u: max_rel := ' || CASE typeof(max_rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(max_rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(max_rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer (or NULL)'
    WHEN COALESCE(TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND TRY_CAST(min_rel AS HUGEINT) >= TRY_CAST(max_rel AS HUGEINT), FALSE)
        THEN 'ireval_u: ' || 'min_rel := ' || CAST(TRY_CAST(min_rel AS HUGEINT) AS VARCHAR) || ' must be below max_rel := ' || CAST(TRY_CAST(max_rel AS HUGEINT) AS VARCHAR)
    WHEN COALESCE(TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND TRY_CAST(gains AS VARCHAR) <> '', FALSE)
        THEN 'ireval_u: ' || 'give gains or max_rel, not both (max_rel scales the grades between min_rel and max_rel to [0, 1])'
END), eval_table::VARCHAR))),
seen AS (
    SELECT run_id, query_id, rank,
        CASE WHEN relevance IS NULL THEN NULL
            WHEN TRY_CAST(max_rel AS HUGEINT) IS NOT NULL THEN CASE
                WHEN relevance >= TRY_CAST(max_rel AS HUGEINT) THEN CAST(1 AS DOUBLE)
                WHEN relevance <= TRY_CAST(min_rel AS HUGEINT) THEN CAST(0 AS DOUBLE)
                ELSE CAST(relevance - TRY_CAST(min_rel AS HUGEINT) AS DOUBLE) / CAST(TRY_CAST(max_rel AS HUGEINT) - TRY_CAST(min_rel AS HUGEINT) AS DOUBLE)
                END
            WHEN TRY_CAST(gains AS VARCHAR) = '' THEN
                CASE WHEN relevance >= TRY_CAST(rel AS HUGEINT) THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END
            ELSE COALESCE(CASE WHEN TRY_CAST(gains AS VARCHAR) = ''
        OR instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END, CAST(0 AS DOUBLE))
        END AS gain
    FROM ireval_eval_table
    WHERE rank IS NOT NULL AND rank <= TRY_CAST(k AS HUGEINT)
),
known AS (
    SELECT pa.run_id, pa.query_id, po.pos, CAST(po.pos AS DOUBLE) AS i,
        COALESCE(s.gain, CAST(0 AS DOUBLE)) AS g_lo,
        COALESCE(s.gain, CAST(1 AS DOUBLE)) AS g_hi
    FROM (SELECT DISTINCT run_id, query_id FROM ireval_eval_table) AS pa
    CROSS JOIN (SELECT CAST(range AS INTEGER) AS pos FROM range(1, CAST(COALESCE(TRY_CAST(k AS HUGEINT), 0) + 1 AS BIGINT))) AS po
    LEFT JOIN seen AS s
        ON s.run_id = pa.run_id AND s.query_id = pa.query_id AND s.rank = po.pos
),
cells AS (
    SELECT run_id, query_id, pos, i, g_lo, g_hi,
        SUM(g_lo) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cg_lo,
        SUM(g_hi) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cg_hi
    FROM known
),
decays AS (
    SELECT run_id, query_id, pos, i, g_lo, g_hi,
        CAST(1 AS DOUBLE) - (i - CAST(1 AS DOUBLE))
            * (CAST(1 AS DOUBLE) / CAST(TRY_CAST(stop_length AS DOUBLE) AS DOUBLE)) AS decay
    FROM cells
),
weighted AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        CASE WHEN i < CAST(TRY_CAST(k AS HUGEINT) AS DOUBLE) AND decay > CAST(0 AS DOUBLE) THEN decay
            ELSE CAST(0 AS DOUBLE) END AS w_lo,
        CASE WHEN i < CAST(TRY_CAST(k AS HUGEINT) AS DOUBLE) AND decay > CAST(0 AS DOUBLE) THEN decay
            ELSE CAST(0 AS DOUBLE) END AS w_hi
    FROM decays
)
SELECT run_id, query_id,
    SUM(w_lo * g_lo ORDER BY pos) / SUM(w_lo ORDER BY pos) AS value,
    CASE WHEN FALSE
        THEN SUM(w_hi * g_hi ORDER BY pos) / SUM(w_hi ORDER BY pos)
            - SUM(w_lo * g_lo ORDER BY pos) / SUM(w_lo ORDER BY pos)
        ELSE SUM(w_lo * (g_hi - g_lo) ORDER BY pos) / SUM(w_lo ORDER BY pos) END AS residual,
    SUM(w_lo ORDER BY pos) / MAX(CASE WHEN pos = 1 THEN w_lo END) AS depth
FROM weighted
GROUP BY run_id, query_id;

-- BPM@k (cwl_eval's static BPMCWLMetric(T, K), T = target, K = budget): C(i) = 1 while the gain
-- of positions 1..i is below T and i below K, else 0.
CREATE OR REPLACE MACRO ireval_bpm(eval_table, k := 1000, target := 1.0, budget := 10.0, rel := 1, gains := '', min_rel := 0, max_rel := NULL) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NOT NULL AND regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1 AND TRY_CAST(k AS HUGEINT) <= 1000000000, FALSE))
        THEN 'ireval_bpm: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer, at most 1000000000 (the positions the SQL generates)'
    WHEN NOT (target IS NOT NULL AND regexp_full_match(typeof(target), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(target AS DOUBLE) IS NOT NULL AND COALESCE(isfinite(TRY_CAST(target AS DOUBLE)) AND TRY_CAST(target AS DOUBLE) > 0, FALSE))
        THEN 'ireval_bpm: target := ' || CASE typeof(target) WHEN 'VARCHAR' THEN '''' || replace(CAST(target AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(target AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive finite number'
    WHEN NOT (budget IS NOT NULL AND regexp_full_match(typeof(budget), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(budget AS DOUBLE) IS NOT NULL AND COALESCE(isfinite(TRY_CAST(budget AS DOUBLE)) AND TRY_CAST(budget AS DOUBLE) > 0, FALSE))
        THEN 'ireval_bpm: budget := ' || CASE typeof(budget) WHEN 'VARCHAR' THEN '''' || replace(CAST(budget AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(budget AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive finite number'
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_bpm: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
    WHEN NOT (gains IS NOT NULL AND regexp_full_match(typeof(gains), 'VARCHAR') AND TRY_CAST(gains AS VARCHAR) IS NOT NULL AND COALESCE(TRY_CAST(gains AS VARCHAR) = '' OR (regexp_full_match(TRY_CAST(gains AS VARCHAR), '(,(0|-?[1-9][0-9]*)=[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)+,') AND len(list_distinct(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: split_part(ireval_e, '=', 1)))) = len(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ',')) AND list_bool_and(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: NOT starts_with(split_part(ireval_e, '=', 1), '-') AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) >= 0 AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) <= 1))), FALSE))
        THEN 'ireval_bpm: gains := ' || CASE typeof(gains) WHEN 'VARCHAR' THEN '''' || replace(CAST(gains AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(gains AS VARCHAR), 'NULL') END || ' is invalid; it must be '''' or a map '',grade=value,...,'' of distinct integer grades of 0 or more to gains in [0, 1], e.g. '',1=0.5,2=1,'''
    WHEN NOT (min_rel IS NOT NULL AND regexp_full_match(typeof(min_rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(min_rel AS HUGEINT) IS NOT NULL AND COALESCE(TRUE, FALSE))
        THEN 'ireval_bpm: min_rel := ' || CASE typeof(min_rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(min_rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(min_rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer'
    WHEN NOT (max_rel IS NULL OR (regexp_full_match(typeof(max_rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND COALESCE(TRUE, FALSE)))
        THEN 'ireval_bpm: max_rel := ' || CASE typeof(max_rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(max_rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(max_rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer (or NULL)'
    WHEN COALESCE(TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND TRY_CAST(min_rel AS HUGEINT) >= TRY_CAST(max_rel AS HUGEINT), FALSE)
        THEN 'ireval_bpm: ' || 'min_rel := ' || CAST(TRY_CAST(min_rel AS HUGEINT) AS VARCHAR) || ' must be below max_rel := ' || CAST(TRY_CAST(max_rel AS HUGEINT) AS VARCHAR)
    WHEN COALESCE(TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND TRY_CAST(gains AS VARCHAR) <> '', FALSE)
        THEN 'ireval_bpm: ' || 'give gains or max_rel, not both (max_rel scales the grades between min_rel and max_rel to [0, 1])'
END), eval_table::VARCHAR))),
seen AS (
    SELECT run_id, query_id, rank,
        CASE WHEN relevance IS NULL THEN NULL
            WHEN TRY_CAST(max_rel AS HUGEINT) IS NOT NULL THEN CASE
                WHEN relevance >= TRY_CAST(max_rel AS HUGEINT) THEN CAST(1 AS DOUBLE)
                WHEN relevance <= TRY_CAST(min_rel AS HUGEINT) THEN CAST(0 AS DOUBLE)
                ELSE CAST(relevance - TRY_CAST(min_rel AS HUGEINT) AS DOUBLE) / CAST(TRY_CAST(max_rel AS HUGEINT) - TRY_CAST(min_rel AS HUGEINT) AS DOUBLE)
                END
            WHEN TRY_CAST(gains AS VARCHAR) = '' THEN
                CASE WHEN relevance >= TRY_CAST(rel AS HUGEINT) THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END
            ELSE COALESCE(CASE WHEN TRY_CAST(gains AS VARCHAR) = ''
        OR instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END, CAST(0 AS DOUBLE))
        END AS gain
    FROM ireval_eval_table
    WHERE rank IS NOT NULL AND rank <= TRY_CAST(k AS HUGEINT)
),
known AS (
    SELECT pa.run_id, pa.query_id, po.pos, CAST(po.pos AS DOUBLE) AS i,
        COALESCE(s.gain, CAST(0 AS DOUBLE)) AS g_lo,
        COALESCE(s.gain, CAST(1 AS DOUBLE)) AS g_hi
    FROM (SELECT DISTINCT run_id, query_id FROM ireval_eval_table) AS pa
    CROSS JOIN (SELECT CAST(range AS INTEGER) AS pos FROM range(1, CAST(COALESCE(TRY_CAST(k AS HUGEINT), 0) + 1 AS BIGINT))) AS po
    LEFT JOIN seen AS s
        ON s.run_id = pa.run_id AND s.query_id = pa.query_id AND s.rank = po.pos
),
cells AS (
    SELECT run_id, query_id, pos, i, g_lo, g_hi,
        SUM(g_lo) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cg_lo,
        SUM(g_hi) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cg_hi
    FROM known
),
cont AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        CASE WHEN cg_lo < CAST(TRY_CAST(target AS DOUBLE) AS DOUBLE) AND i < CAST(TRY_CAST(budget AS DOUBLE) AS DOUBLE)
            THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END AS c_lo,
        CASE WHEN cg_hi < CAST(TRY_CAST(target AS DOUBLE) AS DOUBLE) AND i < CAST(TRY_CAST(budget AS DOUBLE) AS DOUBLE)
            THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END AS c_hi
    FROM cells
),
weighted AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        CASE WHEN COALESCE(SUM(CASE WHEN c_lo > CAST(0 AS DOUBLE) THEN 0 ELSE 1 END) OVER (
                PARTITION BY run_id, query_id ORDER BY pos
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) > 0
            THEN CAST(0 AS DOUBLE)
            ELSE exp(COALESCE(SUM(ln(CASE WHEN c_lo > CAST(0 AS DOUBLE) THEN c_lo
                ELSE CAST(1 AS DOUBLE) END)) OVER (
                    PARTITION BY run_id, query_id ORDER BY pos
                    ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), CAST(0 AS DOUBLE)))
        END AS w_lo,
        CASE WHEN COALESCE(SUM(CASE WHEN c_hi > CAST(0 AS DOUBLE) THEN 0 ELSE 1 END) OVER (
                PARTITION BY run_id, query_id ORDER BY pos
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) > 0
            THEN CAST(0 AS DOUBLE)
            ELSE exp(COALESCE(SUM(ln(CASE WHEN c_hi > CAST(0 AS DOUBLE) THEN c_hi
                ELSE CAST(1 AS DOUBLE) END)) OVER (
                    PARTITION BY run_id, query_id ORDER BY pos
                    ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), CAST(0 AS DOUBLE)))
        END AS w_hi
    FROM cont
)
SELECT run_id, query_id,
    SUM(w_lo * g_lo ORDER BY pos) / SUM(w_lo ORDER BY pos) AS value,
    CASE WHEN TRUE
        THEN SUM(w_hi * g_hi ORDER BY pos) / SUM(w_hi ORDER BY pos)
            - SUM(w_lo * g_lo ORDER BY pos) / SUM(w_lo ORDER BY pos)
        ELSE SUM(w_lo * (g_hi - g_lo) ORDER BY pos) / SUM(w_lo ORDER BY pos) END AS residual,
    SUM(w_lo ORDER BY pos) / MAX(CASE WHEN pos = 1 THEN w_lo END) AS depth
FROM weighted
GROUP BY run_id, query_id;

-- NERR8@k (cwl_eval's NERReq8CWLMetric(k), Azzopardi et al. ICTIR 2021 eq. 8): C(i) = 1 - g_i
-- for i < k, 0 at k.
CREATE OR REPLACE MACRO ireval_nerr8(eval_table, k, rel := 1, gains := '', min_rel := 0, max_rel := NULL) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NOT NULL AND regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1 AND TRY_CAST(k AS HUGEINT) <= 1000000000, FALSE))
        THEN 'ireval_nerr8: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer, at most 1000000000 (the positions the SQL generates)'
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_nerr8: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
    WHEN NOT (gains IS NOT NULL AND regexp_full_match(typeof(gains), 'VARCHAR') AND TRY_CAST(gains AS VARCHAR) IS NOT NULL AND COALESCE(TRY_CAST(gains AS VARCHAR) = '' OR (regexp_full_match(TRY_CAST(gains AS VARCHAR), '(,(0|-?[1-9][0-9]*)=[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)+,') AND len(list_distinct(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: split_part(ireval_e, '=', 1)))) = len(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ',')) AND list_bool_and(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: NOT starts_with(split_part(ireval_e, '=', 1), '-') AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) >= 0 AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) <= 1))), FALSE))
        THEN 'ireval_nerr8: gains := ' || CASE typeof(gains) WHEN 'VARCHAR' THEN '''' || replace(CAST(gains AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(gains AS VARCHAR), 'NULL') END || ' is invalid; it must be '''' or a map '',grade=value,...,'' of distinct integer grades of 0 or more to gains in [0, 1], e.g. '',1=0.5,2=1,'''
    WHEN NOT (min_rel IS NOT NULL AND regexp_full_match(typeof(min_rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(min_rel AS HUGEINT) IS NOT NULL AND COALESCE(TRUE, FALSE))
        THEN 'ireval_nerr8: min_rel := ' || CASE typeof(min_rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(min_rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(min_rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer'
    WHEN NOT (max_rel IS NULL OR (regexp_full_match(typeof(max_rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND COALESCE(TRUE, FALSE)))
        THEN 'ireval_nerr8: max_rel := ' || CASE typeof(max_rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(max_rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(max_rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer (or NULL)'
    WHEN COALESCE(TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND TRY_CAST(min_rel AS HUGEINT) >= TRY_CAST(max_rel AS HUGEINT), FALSE)
        THEN 'ireval_nerr8: ' || 'min_rel := ' || CAST(TRY_CAST(min_rel AS HUGEINT) AS VARCHAR) || ' must be below max_rel := ' || CAST(TRY_CAST(max_rel AS HUGEINT) AS VARCHAR)
    WHEN COALESCE(TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND TRY_CAST(gains AS VARCHAR) <> '', FALSE)
        THEN 'ireval_nerr8: ' || 'give gains or max_rel, not both (max_rel scales the grades between min_rel and max_rel to [0, 1])'
END), eval_table::VARCHAR))),
seen AS (
    SELECT run_id, query_id, rank,
        CASE WHEN relevance IS NULL THEN NULL
            WHEN TRY_CAST(max_rel AS HUGEINT) IS NOT NULL THEN CASE
                WHEN relevance >= TRY_CAST(max_rel AS HUGEINT) THEN CAST(1 AS DOUBLE)
                WHEN relevance <= TRY_CAST(min_rel AS HUGEINT) THEN CAST(0 AS DOUBLE)
                ELSE CAST(relevance - TRY_CAST(min_rel AS HUGEINT) AS DOUBLE) / CAST(TRY_CAST(max_rel AS HUGEINT) - TRY_CAST(min_rel AS HUGEINT) AS DOUBLE)
                END
            WHEN TRY_CAST(gains AS VARCHAR) = '' THEN
                CASE WHEN relevance >= TRY_CAST(rel AS HUGEINT) THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END
            ELSE COALESCE(CASE WHEN TRY_CAST(gains AS VARCHAR) = ''
        OR instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END, CAST(0 AS DOUBLE))
        END AS gain
    FROM ireval_eval_table
    WHERE rank IS NOT NULL AND rank <= TRY_CAST(k AS HUGEINT)
),
known AS (
    SELECT pa.run_id, pa.query_id, po.pos, CAST(po.pos AS DOUBLE) AS i,
        COALESCE(s.gain, CAST(0 AS DOUBLE)) AS g_lo,
        COALESCE(s.gain, CAST(1 AS DOUBLE)) AS g_hi
    FROM (SELECT DISTINCT run_id, query_id FROM ireval_eval_table) AS pa
    CROSS JOIN (SELECT CAST(range AS INTEGER) AS pos FROM range(1, CAST(COALESCE(TRY_CAST(k AS HUGEINT), 0) + 1 AS BIGINT))) AS po
    LEFT JOIN seen AS s
        ON s.run_id = pa.run_id AND s.query_id = pa.query_id AND s.rank = po.pos
),
cells AS (
    SELECT run_id, query_id, pos, i, g_lo, g_hi,
        SUM(g_lo) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cg_lo,
        SUM(g_hi) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cg_hi
    FROM known
),
cont AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        CASE WHEN i < CAST(TRY_CAST(k AS HUGEINT) AS DOUBLE) THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END
            * (CAST(1 AS DOUBLE) - g_lo) AS c_lo,
        CASE WHEN i < CAST(TRY_CAST(k AS HUGEINT) AS DOUBLE) THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END
            * (CAST(1 AS DOUBLE) - g_hi) AS c_hi
    FROM cells
),
weighted AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        CASE WHEN COALESCE(SUM(CASE WHEN c_lo > CAST(0 AS DOUBLE) THEN 0 ELSE 1 END) OVER (
                PARTITION BY run_id, query_id ORDER BY pos
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) > 0
            THEN CAST(0 AS DOUBLE)
            ELSE exp(COALESCE(SUM(ln(CASE WHEN c_lo > CAST(0 AS DOUBLE) THEN c_lo
                ELSE CAST(1 AS DOUBLE) END)) OVER (
                    PARTITION BY run_id, query_id ORDER BY pos
                    ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), CAST(0 AS DOUBLE)))
        END AS w_lo,
        CASE WHEN COALESCE(SUM(CASE WHEN c_hi > CAST(0 AS DOUBLE) THEN 0 ELSE 1 END) OVER (
                PARTITION BY run_id, query_id ORDER BY pos
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) > 0
            THEN CAST(0 AS DOUBLE)
            ELSE exp(COALESCE(SUM(ln(CASE WHEN c_hi > CAST(0 AS DOUBLE) THEN c_hi
                ELSE CAST(1 AS DOUBLE) END)) OVER (
                    PARTITION BY run_id, query_id ORDER BY pos
                    ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), CAST(0 AS DOUBLE)))
        END AS w_hi
    FROM cont
)
SELECT run_id, query_id,
    SUM(w_lo * g_lo ORDER BY pos) / SUM(w_lo ORDER BY pos) AS value,
    CASE WHEN TRUE
        THEN SUM(w_hi * g_hi ORDER BY pos) / SUM(w_hi ORDER BY pos)
            - SUM(w_lo * g_lo ORDER BY pos) / SUM(w_lo ORDER BY pos)
        ELSE SUM(w_lo * (g_hi - g_lo) ORDER BY pos) / SUM(w_lo ORDER BY pos) END AS residual,
    SUM(w_lo ORDER BY pos) / MAX(CASE WHEN pos = 1 THEN w_lo END) AS depth
FROM weighted
GROUP BY run_id, query_id;

-- NERR9@k (cwl_eval's NERReq9CWLMetric(k), eq. 9): C(i) = i / (i + 1) (1 - g_i) for i < k, 0 at
-- k.
CREATE OR REPLACE MACRO ireval_nerr9(eval_table, k, rel := 1, gains := '', min_rel := 0, max_rel := NULL) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NOT NULL AND regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1 AND TRY_CAST(k AS HUGEINT) <= 1000000000, FALSE))
        THEN 'ireval_nerr9: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer, at most 1000000000 (the positions the SQL generates)'
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_nerr9: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
    WHEN NOT (gains IS NOT NULL AND regexp_full_match(typeof(gains), 'VARCHAR') AND TRY_CAST(gains AS VARCHAR) IS NOT NULL AND COALESCE(TRY_CAST(gains AS VARCHAR) = '' OR (regexp_full_match(TRY_CAST(gains AS VARCHAR), '(,(0|-?[1-9][0-9]*)=[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)+,') AND len(list_distinct(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: split_part(ireval_e, '=', 1)))) = len(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ',')) AND list_bool_and(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: NOT starts_with(split_part(ireval_e, '=', 1), '-') AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) >= 0 AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) <= 1))), FALSE))
        THEN 'ireval_nerr9: gains := ' || CASE typeof(gains) WHEN 'VARCHAR' THEN '''' || replace(CAST(gains AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(gains AS VARCHAR), 'NULL') END || ' is invalid; it must be '''' or a map '',grade=value,...,'' of distinct integer grades of 0 or more to gains in [0, 1], e.g. '',1=0.5,2=1,'''
    WHEN NOT (min_rel IS NOT NULL AND regexp_full_match(typeof(min_rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(min_rel AS HUGEINT) IS NOT NULL AND COALESCE(TRUE, FALSE))
        THEN 'ireval_nerr9: min_rel := ' || CASE typeof(min_rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(min_rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(min_rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer'
    WHEN NOT (max_rel IS NULL OR (regexp_full_match(typeof(max_rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND COALESCE(TRUE, FALSE)))
        THEN 'ireval_nerr9: max_rel := ' || CASE typeof(max_rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(max_rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(max_rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer (or NULL)'
    WHEN COALESCE(TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND TRY_CAST(min_rel AS HUGEINT) >= TRY_CAST(max_rel AS HUGEINT), FALSE)
        THEN 'ireval_nerr9: ' || 'min_rel := ' || CAST(TRY_CAST(min_rel AS HUGEINT) AS VARCHAR) || ' must be below max_rel := ' || CAST(TRY_CAST(max_rel AS HUGEINT) AS VARCHAR)
    WHEN COALESCE(TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND TRY_CAST(gains AS VARCHAR) <> '', FALSE)
        THEN 'ireval_nerr9: ' || 'give gains or max_rel, not both (max_rel scales the grades between min_rel and max_rel to [0, 1])'
END), eval_table::VARCHAR))),
seen AS (
    SELECT run_id, query_id, rank,
        CASE WHEN relevance IS NULL THEN NULL
            WHEN TRY_CAST(max_rel AS HUGEINT) IS NOT NULL THEN CASE
                WHEN relevance >= TRY_CAST(max_rel AS HUGEINT) THEN CAST(1 AS DOUBLE)
                WHEN relevance <= TRY_CAST(min_rel AS HUGEINT) THEN CAST(0 AS DOUBLE)
                ELSE CAST(relevance - TRY_CAST(min_rel AS HUGEINT) AS DOUBLE) / CAST(TRY_CAST(max_rel AS HUGEINT) - TRY_CAST(min_rel AS HUGEINT) AS DOUBLE)
                END
            WHEN TRY_CAST(gains AS VARCHAR) = '' THEN
                CASE WHEN relevance >= TRY_CAST(rel AS HUGEINT) THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END
            ELSE COALESCE(CASE WHEN TRY_CAST(gains AS VARCHAR) = ''
        OR instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END, CAST(0 AS DOUBLE))
        END AS gain
    FROM ireval_eval_table
    WHERE rank IS NOT NULL AND rank <= TRY_CAST(k AS HUGEINT)
),
known AS (
    SELECT pa.run_id, pa.query_id, po.pos, CAST(po.pos AS DOUBLE) AS i,
        COALESCE(s.gain, CAST(0 AS DOUBLE)) AS g_lo,
        COALESCE(s.gain, CAST(1 AS DOUBLE)) AS g_hi
    FROM (SELECT DISTINCT run_id, query_id FROM ireval_eval_table) AS pa
    CROSS JOIN (SELECT CAST(range AS INTEGER) AS pos FROM range(1, CAST(COALESCE(TRY_CAST(k AS HUGEINT), 0) + 1 AS BIGINT))) AS po
    LEFT JOIN seen AS s
        ON s.run_id = pa.run_id AND s.query_id = pa.query_id AND s.rank = po.pos
),
cells AS (
    SELECT run_id, query_id, pos, i, g_lo, g_hi,
        SUM(g_lo) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cg_lo,
        SUM(g_hi) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cg_hi
    FROM known
),
cont AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        CASE WHEN i < CAST(TRY_CAST(k AS HUGEINT) AS DOUBLE) THEN i / (i + CAST(1 AS DOUBLE))
            ELSE CAST(0 AS DOUBLE) END * (CAST(1 AS DOUBLE) - g_lo) AS c_lo,
        CASE WHEN i < CAST(TRY_CAST(k AS HUGEINT) AS DOUBLE) THEN i / (i + CAST(1 AS DOUBLE))
            ELSE CAST(0 AS DOUBLE) END * (CAST(1 AS DOUBLE) - g_hi) AS c_hi
    FROM cells
),
weighted AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        CASE WHEN COALESCE(SUM(CASE WHEN c_lo > CAST(0 AS DOUBLE) THEN 0 ELSE 1 END) OVER (
                PARTITION BY run_id, query_id ORDER BY pos
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) > 0
            THEN CAST(0 AS DOUBLE)
            ELSE exp(COALESCE(SUM(ln(CASE WHEN c_lo > CAST(0 AS DOUBLE) THEN c_lo
                ELSE CAST(1 AS DOUBLE) END)) OVER (
                    PARTITION BY run_id, query_id ORDER BY pos
                    ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), CAST(0 AS DOUBLE)))
        END AS w_lo,
        CASE WHEN COALESCE(SUM(CASE WHEN c_hi > CAST(0 AS DOUBLE) THEN 0 ELSE 1 END) OVER (
                PARTITION BY run_id, query_id ORDER BY pos
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) > 0
            THEN CAST(0 AS DOUBLE)
            ELSE exp(COALESCE(SUM(ln(CASE WHEN c_hi > CAST(0 AS DOUBLE) THEN c_hi
                ELSE CAST(1 AS DOUBLE) END)) OVER (
                    PARTITION BY run_id, query_id ORDER BY pos
                    ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), CAST(0 AS DOUBLE)))
        END AS w_hi
    FROM cont
)
SELECT run_id, query_id,
    SUM(w_lo * g_lo ORDER BY pos) / SUM(w_lo ORDER BY pos) AS value,
    CASE WHEN TRUE
        THEN SUM(w_hi * g_hi ORDER BY pos) / SUM(w_hi ORDER BY pos)
            - SUM(w_lo * g_lo ORDER BY pos) / SUM(w_lo ORDER BY pos)
        ELSE SUM(w_lo * (g_hi - g_lo) ORDER BY pos) / SUM(w_lo ORDER BY pos) END AS residual,
    SUM(w_lo ORDER BY pos) / MAX(CASE WHEN pos = 1 THEN w_lo END) AS depth
FROM weighted
GROUP BY run_id, query_id;

-- NERR10 (cwl_eval's NERReq10CWLMetric(phi), phi = p, eq. 10): C(i) = p (1 - g_i).
CREATE OR REPLACE MACRO ireval_nerr10(eval_table, k := 1000, p := 0.9, rel := 1, gains := '', min_rel := 0, max_rel := NULL) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NOT NULL AND regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1 AND TRY_CAST(k AS HUGEINT) <= 1000000000, FALSE))
        THEN 'ireval_nerr10: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer, at most 1000000000 (the positions the SQL generates)'
    WHEN NOT (p IS NOT NULL AND regexp_full_match(typeof(p), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(p AS DOUBLE) IS NOT NULL AND COALESCE(TRY_CAST(p AS DOUBLE) > 0 AND TRY_CAST(p AS DOUBLE) < 1, FALSE))
        THEN 'ireval_nerr10: p := ' || CASE typeof(p) WHEN 'VARCHAR' THEN '''' || replace(CAST(p AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(p AS VARCHAR), 'NULL') END || ' is invalid; it must be a number in (0, 1)'
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_nerr10: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
    WHEN NOT (gains IS NOT NULL AND regexp_full_match(typeof(gains), 'VARCHAR') AND TRY_CAST(gains AS VARCHAR) IS NOT NULL AND COALESCE(TRY_CAST(gains AS VARCHAR) = '' OR (regexp_full_match(TRY_CAST(gains AS VARCHAR), '(,(0|-?[1-9][0-9]*)=[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)+,') AND len(list_distinct(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: split_part(ireval_e, '=', 1)))) = len(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ',')) AND list_bool_and(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: NOT starts_with(split_part(ireval_e, '=', 1), '-') AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) >= 0 AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) <= 1))), FALSE))
        THEN 'ireval_nerr10: gains := ' || CASE typeof(gains) WHEN 'VARCHAR' THEN '''' || replace(CAST(gains AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(gains AS VARCHAR), 'NULL') END || ' is invalid; it must be '''' or a map '',grade=value,...,'' of distinct integer grades of 0 or more to gains in [0, 1], e.g. '',1=0.5,2=1,'''
    WHEN NOT (min_rel IS NOT NULL AND regexp_full_match(typeof(min_rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(min_rel AS HUGEINT) IS NOT NULL AND COALESCE(TRUE, FALSE))
        THEN 'ireval_nerr10: min_rel := ' || CASE typeof(min_rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(min_rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(min_rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer'
    WHEN NOT (max_rel IS NULL OR (regexp_full_match(typeof(max_rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND COALESCE(TRUE, FALSE)))
        THEN 'ireval_nerr10: max_rel := ' || CASE typeof(max_rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(max_rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(max_rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer (or NULL)'
    WHEN COALESCE(TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND TRY_CAST(min_rel AS HUGEINT) >= TRY_CAST(max_rel AS HUGEINT), FALSE)
        THEN 'ireval_nerr10: ' || 'min_rel := ' || CAST(TRY_CAST(min_rel AS HUGEINT) AS VARCHAR) || ' must be below max_rel := ' || CAST(TRY_CAST(max_rel AS HUGEINT) AS VARCHAR)
    WHEN COALESCE(TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND TRY_CAST(gains AS VARCHAR) <> '', FALSE)
        THEN 'ireval_nerr10: ' || 'give gains or max_rel, not both (max_rel scales the grades between min_rel and max_rel to [0, 1])'
END), eval_table::VARCHAR))),
seen AS (
    SELECT run_id, query_id, rank,
        CASE WHEN relevance IS NULL THEN NULL
            WHEN TRY_CAST(max_rel AS HUGEINT) IS NOT NULL THEN CASE
                WHEN relevance >= TRY_CAST(max_rel AS HUGEINT) THEN CAST(1 AS DOUBLE)
                WHEN relevance <= TRY_CAST(min_rel AS HUGEINT) THEN CAST(0 AS DOUBLE)
                ELSE CAST(relevance - TRY_CAST(min_rel AS HUGEINT) AS DOUBLE) / CAST(TRY_CAST(max_rel AS HUGEINT) - TRY_CAST(min_rel AS HUGEINT) AS DOUBLE)
                END
            WHEN TRY_CAST(gains AS VARCHAR) = '' THEN
                CASE WHEN relevance >= TRY_CAST(rel AS HUGEINT) THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END
            ELSE COALESCE(CASE WHEN TRY_CAST(gains AS VARCHAR) = ''
        OR instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END, CAST(0 AS DOUBLE))
        END AS gain
    FROM ireval_eval_table
    WHERE rank IS NOT NULL AND rank <= TRY_CAST(k AS HUGEINT)
),
known AS (
    SELECT pa.run_id, pa.query_id, po.pos, CAST(po.pos AS DOUBLE) AS i,
        COALESCE(s.gain, CAST(0 AS DOUBLE)) AS g_lo,
        COALESCE(s.gain, CAST(1 AS DOUBLE)) AS g_hi
    FROM (SELECT DISTINCT run_id, query_id FROM ireval_eval_table) AS pa
    CROSS JOIN (SELECT CAST(range AS INTEGER) AS pos FROM range(1, CAST(COALESCE(TRY_CAST(k AS HUGEINT), 0) + 1 AS BIGINT))) AS po
    LEFT JOIN seen AS s
        ON s.run_id = pa.run_id AND s.query_id = pa.query_id AND s.rank = po.pos
),
cells AS (
    SELECT run_id, query_id, pos, i, g_lo, g_hi,
        SUM(g_lo) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cg_lo,
        SUM(g_hi) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cg_hi
    FROM known
),
cont AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        CAST(TRY_CAST(p AS DOUBLE) AS DOUBLE) * (CAST(1 AS DOUBLE) - g_lo) AS c_lo,
        CAST(TRY_CAST(p AS DOUBLE) AS DOUBLE) * (CAST(1 AS DOUBLE) - g_hi) AS c_hi
    FROM cells
),
weighted AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        CASE WHEN COALESCE(SUM(CASE WHEN c_lo > CAST(0 AS DOUBLE) THEN 0 ELSE 1 END) OVER (
                PARTITION BY run_id, query_id ORDER BY pos
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) > 0
            THEN CAST(0 AS DOUBLE)
            ELSE exp(COALESCE(SUM(ln(CASE WHEN c_lo > CAST(0 AS DOUBLE) THEN c_lo
                ELSE CAST(1 AS DOUBLE) END)) OVER (
                    PARTITION BY run_id, query_id ORDER BY pos
                    ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), CAST(0 AS DOUBLE)))
        END AS w_lo,
        CASE WHEN COALESCE(SUM(CASE WHEN c_hi > CAST(0 AS DOUBLE) THEN 0 ELSE 1 END) OVER (
                PARTITION BY run_id, query_id ORDER BY pos
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) > 0
            THEN CAST(0 AS DOUBLE)
            ELSE exp(COALESCE(SUM(ln(CASE WHEN c_hi > CAST(0 AS DOUBLE) THEN c_hi
                ELSE CAST(1 AS DOUBLE) END)) OVER (
                    PARTITION BY run_id, query_id ORDER BY pos
                    ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), CAST(0 AS DOUBLE)))
        END AS w_hi
    FROM cont
)
SELECT run_id, query_id,
    SUM(w_lo * g_lo ORDER BY pos) / SUM(w_lo ORDER BY pos) AS value,
    CASE WHEN TRUE
        THEN SUM(w_hi * g_hi ORDER BY pos) / SUM(w_hi ORDER BY pos)
            - SUM(w_lo * g_lo ORDER BY pos) / SUM(w_lo ORDER BY pos)
        ELSE SUM(w_lo * (g_hi - g_lo) ORDER BY pos) / SUM(w_lo ORDER BY pos) END AS residual,
    SUM(w_lo ORDER BY pos) / MAX(CASE WHEN pos = 1 THEN w_lo END) AS depth
FROM weighted
GROUP BY run_id, query_id;

-- NERR11 (cwl_eval's NERReq11CWLMetric(T), T = target, eq. 11): C(i) = ((i + 2T - 1) / (i +
-- 2T))^2 (1 - g_i).
CREATE OR REPLACE MACRO ireval_nerr11(eval_table, k := 1000, target := 1.0, rel := 1, gains := '', min_rel := 0, max_rel := NULL) AS TABLE
WITH ireval_eval_table AS NOT MATERIALIZED (SELECT * FROM query_table(COALESCE(error(CASE
    WHEN NOT (k IS NOT NULL AND regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(k AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(k AS HUGEINT) >= 1 AND TRY_CAST(k AS HUGEINT) <= 1000000000, FALSE))
        THEN 'ireval_nerr11: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer, at most 1000000000 (the positions the SQL generates)'
    WHEN NOT (target IS NOT NULL AND regexp_full_match(typeof(target), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(target AS DOUBLE) IS NOT NULL AND COALESCE(isfinite(TRY_CAST(target AS DOUBLE)) AND TRY_CAST(target AS DOUBLE) > 0, FALSE))
        THEN 'ireval_nerr11: target := ' || CASE typeof(target) WHEN 'VARCHAR' THEN '''' || replace(CAST(target AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(target AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive finite number'
    WHEN NOT (rel IS NOT NULL AND regexp_full_match(typeof(rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(rel AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(rel AS HUGEINT) >= 0 OR TRY_CAST(rel AS HUGEINT) = -4611686018427387904, FALSE))
        THEN 'ireval_nerr11: rel := ' || CASE typeof(rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer grade of 0 or more (negative grades are never relevant)'
    WHEN NOT (gains IS NOT NULL AND regexp_full_match(typeof(gains), 'VARCHAR') AND TRY_CAST(gains AS VARCHAR) IS NOT NULL AND COALESCE(TRY_CAST(gains AS VARCHAR) = '' OR (regexp_full_match(TRY_CAST(gains AS VARCHAR), '(,(0|-?[1-9][0-9]*)=[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)+,') AND len(list_distinct(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: split_part(ireval_e, '=', 1)))) = len(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ',')) AND list_bool_and(list_transform(string_split(trim(TRY_CAST(gains AS VARCHAR), ','), ','), lambda ireval_e: NOT starts_with(split_part(ireval_e, '=', 1), '-') AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) >= 0 AND TRY_CAST(split_part(ireval_e, '=', 2) AS DOUBLE) <= 1))), FALSE))
        THEN 'ireval_nerr11: gains := ' || CASE typeof(gains) WHEN 'VARCHAR' THEN '''' || replace(CAST(gains AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(gains AS VARCHAR), 'NULL') END || ' is invalid; it must be '''' or a map '',grade=value,...,'' of distinct integer grades of 0 or more to gains in [0, 1], e.g. '',1=0.5,2=1,'''
    WHEN NOT (min_rel IS NOT NULL AND regexp_full_match(typeof(min_rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(min_rel AS HUGEINT) IS NOT NULL AND COALESCE(TRUE, FALSE))
        THEN 'ireval_nerr11: min_rel := ' || CASE typeof(min_rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(min_rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(min_rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer'
    WHEN NOT (max_rel IS NULL OR (regexp_full_match(typeof(max_rel), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND COALESCE(TRUE, FALSE)))
        THEN 'ireval_nerr11: max_rel := ' || CASE typeof(max_rel) WHEN 'VARCHAR' THEN '''' || replace(CAST(max_rel AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(max_rel AS VARCHAR), 'NULL') END || ' is invalid; it must be an integer (or NULL)'
    WHEN COALESCE(TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND TRY_CAST(min_rel AS HUGEINT) >= TRY_CAST(max_rel AS HUGEINT), FALSE)
        THEN 'ireval_nerr11: ' || 'min_rel := ' || CAST(TRY_CAST(min_rel AS HUGEINT) AS VARCHAR) || ' must be below max_rel := ' || CAST(TRY_CAST(max_rel AS HUGEINT) AS VARCHAR)
    WHEN COALESCE(TRY_CAST(max_rel AS HUGEINT) IS NOT NULL AND TRY_CAST(gains AS VARCHAR) <> '', FALSE)
        THEN 'ireval_nerr11: ' || 'give gains or max_rel, not both (max_rel scales the grades between min_rel and max_rel to [0, 1])'
END), eval_table::VARCHAR))),
seen AS (
    SELECT run_id, query_id, rank,
        CASE WHEN relevance IS NULL THEN NULL
            WHEN TRY_CAST(max_rel AS HUGEINT) IS NOT NULL THEN CASE
                WHEN relevance >= TRY_CAST(max_rel AS HUGEINT) THEN CAST(1 AS DOUBLE)
                WHEN relevance <= TRY_CAST(min_rel AS HUGEINT) THEN CAST(0 AS DOUBLE)
                ELSE CAST(relevance - TRY_CAST(min_rel AS HUGEINT) AS DOUBLE) / CAST(TRY_CAST(max_rel AS HUGEINT) - TRY_CAST(min_rel AS HUGEINT) AS DOUBLE)
                END
            WHEN TRY_CAST(gains AS VARCHAR) = '' THEN
                CASE WHEN relevance >= TRY_CAST(rel AS HUGEINT) THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END
            ELSE COALESCE(CASE WHEN TRY_CAST(gains AS VARCHAR) = ''
        OR instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=') = 0 THEN CAST(NULL AS DOUBLE)
    ELSE CAST(NULLIF(substr(
        substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2),
        1,
        instr(substr(TRY_CAST(gains AS VARCHAR), instr(TRY_CAST(gains AS VARCHAR), ',' || CAST(relevance AS STRING) || '=')
            + length(CAST(relevance AS STRING)) + 2), ',') - 1), '') AS DOUBLE)
END, CAST(0 AS DOUBLE))
        END AS gain
    FROM ireval_eval_table
    WHERE rank IS NOT NULL AND rank <= TRY_CAST(k AS HUGEINT)
),
known AS (
    SELECT pa.run_id, pa.query_id, po.pos, CAST(po.pos AS DOUBLE) AS i,
        COALESCE(s.gain, CAST(0 AS DOUBLE)) AS g_lo,
        COALESCE(s.gain, CAST(1 AS DOUBLE)) AS g_hi
    FROM (SELECT DISTINCT run_id, query_id FROM ireval_eval_table) AS pa
    CROSS JOIN (SELECT CAST(range AS INTEGER) AS pos FROM range(1, CAST(COALESCE(TRY_CAST(k AS HUGEINT), 0) + 1 AS BIGINT))) AS po
    LEFT JOIN seen AS s
        ON s.run_id = pa.run_id AND s.query_id = pa.query_id AND s.rank = po.pos
),
cells AS (
    SELECT run_id, query_id, pos, i, g_lo, g_hi,
        SUM(g_lo) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cg_lo,
        SUM(g_hi) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cg_hi
    FROM known
),
ratios AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        (i + CAST(2 AS DOUBLE) * CAST(TRY_CAST(target AS DOUBLE) AS DOUBLE) - CAST(1 AS DOUBLE))
        / (i + CAST(2 AS DOUBLE) * CAST(TRY_CAST(target AS DOUBLE) AS DOUBLE)) AS q
    FROM cells
),
cont AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        q * q * (CAST(1 AS DOUBLE) - g_lo) AS c_lo,
        q * q * (CAST(1 AS DOUBLE) - g_hi) AS c_hi
    FROM ratios
),
weighted AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        CASE WHEN COALESCE(SUM(CASE WHEN c_lo > CAST(0 AS DOUBLE) THEN 0 ELSE 1 END) OVER (
                PARTITION BY run_id, query_id ORDER BY pos
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) > 0
            THEN CAST(0 AS DOUBLE)
            ELSE exp(COALESCE(SUM(ln(CASE WHEN c_lo > CAST(0 AS DOUBLE) THEN c_lo
                ELSE CAST(1 AS DOUBLE) END)) OVER (
                    PARTITION BY run_id, query_id ORDER BY pos
                    ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), CAST(0 AS DOUBLE)))
        END AS w_lo,
        CASE WHEN COALESCE(SUM(CASE WHEN c_hi > CAST(0 AS DOUBLE) THEN 0 ELSE 1 END) OVER (
                PARTITION BY run_id, query_id ORDER BY pos
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) > 0
            THEN CAST(0 AS DOUBLE)
            ELSE exp(COALESCE(SUM(ln(CASE WHEN c_hi > CAST(0 AS DOUBLE) THEN c_hi
                ELSE CAST(1 AS DOUBLE) END)) OVER (
                    PARTITION BY run_id, query_id ORDER BY pos
                    ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), CAST(0 AS DOUBLE)))
        END AS w_hi
    FROM cont
)
SELECT run_id, query_id,
    SUM(w_lo * g_lo ORDER BY pos) / SUM(w_lo ORDER BY pos) AS value,
    CASE WHEN TRUE
        THEN SUM(w_hi * g_hi ORDER BY pos) / SUM(w_hi ORDER BY pos)
            - SUM(w_lo * g_lo ORDER BY pos) / SUM(w_lo ORDER BY pos)
        ELSE SUM(w_lo * (g_hi - g_lo) ORDER BY pos) / SUM(w_lo ORDER BY pos) END AS residual,
    SUM(w_lo ORDER BY pos) / MAX(CASE WHEN pos = 1 THEN w_lo END) AS depth
FROM weighted
GROUP BY run_id, query_id;

-- ---- fusion.sql

-- The runs with each ranking's scores normalised (polars_ireval.normalize): run_id, query_id,
-- doc_id, score, rank. norm: 'min-max', 'min-max-inverted', 'max', 'sum', 'zmuv', 'rank',
-- 'dbsf', 'borda' (over the candidates of the runs of the table) or 'none'; guard 'exact' (a
-- zero denominator normalises to 0) or 'ranx' (ranx's max(denominator, 1e-9)); ties: how tied
-- scores are ranked ('trec_eval': doc_id descending, or 'doc_id_asc').
CREATE OR REPLACE MACRO ireval_normalize(runs_table, norm := 'min-max', guard := 'exact', ties := 'trec_eval') AS TABLE
WITH ireval_runs_table AS (SELECT * EXCLUDE (ireval_columns) FROM (SELECT * FROM (SELECT NULL AS run_id, NULL AS query_id, NULL AS doc_id, NULL AS score, CAST(NULL AS DOUBLE) AS weight WHERE 1 = 0) AS proto UNION ALL BY NAME SELECT *, typeof(ireval_src) AS ireval_columns FROM query_table(COALESCE(error(CASE
    WHEN NOT (norm IS NOT NULL AND regexp_full_match(typeof(norm), 'VARCHAR') AND TRY_CAST(norm AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(norm AS VARCHAR)) IN (encode('min-max'), encode('min-max-inverted'), encode('max'), encode('sum'), encode('zmuv'), encode('rank'), encode('dbsf'), encode('borda'), encode('none')), FALSE))
        THEN 'ireval_normalize: norm := ' || CASE typeof(norm) WHEN 'VARCHAR' THEN '''' || replace(CAST(norm AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(norm AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''min-max'', ''min-max-inverted'', ''max'', ''sum'', ''zmuv'', ''rank'', ''dbsf'', ''borda'', ''none'''
    WHEN NOT (guard IS NOT NULL AND regexp_full_match(typeof(guard), 'VARCHAR') AND TRY_CAST(guard AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(guard AS VARCHAR)) IN (encode('exact'), encode('ranx')), FALSE))
        THEN 'ireval_normalize: guard := ' || CASE typeof(guard) WHEN 'VARCHAR' THEN '''' || replace(CAST(guard AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(guard AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''exact'', ''ranx'''
    WHEN NOT (ties IS NOT NULL AND regexp_full_match(typeof(ties), 'VARCHAR') AND TRY_CAST(ties AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(ties AS VARCHAR)) IN (encode('trec_eval'), encode('doc_id_asc')), FALSE))
        THEN 'ireval_normalize: ties := ' || CASE typeof(ties) WHEN 'VARCHAR' THEN '''' || replace(CAST(ties AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(ties AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''trec_eval'', ''doc_id_asc'''
END), runs_table::VARCHAR)) AS ireval_src) AS ireval_read WHERE CASE WHEN typeof(run_id) IN ('NULL', '"NULL"') OR typeof(query_id) IN ('NULL', '"NULL"') OR typeof(doc_id) IN ('NULL', '"NULL"') OR typeof(score) IN ('NULL', '"NULL"') THEN error('ireval_normalize: the runs table ''' || runs_table::VARCHAR || ''' lacks column(s) [''' || concat_ws(''', ''', CASE WHEN typeof(run_id) IN ('NULL', '"NULL"') THEN 'run_id' END, CASE WHEN typeof(query_id) IN ('NULL', '"NULL"') THEN 'query_id' END, CASE WHEN typeof(doc_id) IN ('NULL', '"NULL"') THEN 'doc_id' END, CASE WHEN typeof(score) IN ('NULL', '"NULL"') THEN 'score' END) || ''']; it has ' || regexp_replace(ireval_columns, '^STRUCT\((.*)\)$', '\1') || '. Rename them to [''run_id'', ''query_id'', ''doc_id'', ''score''], e.g. in a view: SELECT ..., <column> AS ' || coalesce(CASE WHEN typeof(run_id) IN ('NULL', '"NULL"') THEN 'run_id' END, CASE WHEN typeof(query_id) IN ('NULL', '"NULL"') THEN 'query_id' END, CASE WHEN typeof(doc_id) IN ('NULL', '"NULL"') THEN 'doc_id' END, CASE WHEN typeof(score) IN ('NULL', '"NULL"') THEN 'score' END)) ELSE TRUE END),
fusion_read AS (
    SELECT
        COALESCE(CAST(run_id AS STRING), '') AS run_id,
        CAST(query_id AS STRING) AS query_id,
        CAST(doc_id AS STRING) AS doc_id,
        CASE WHEN typeof(score) IN ('VARCHAR', 'BLOB') THEN CAST(error('the run''s score column is text; scores must be numbers: cast it, e.g. CAST(score AS DOUBLE)') AS DOUBLE) ELSE CAST(score AS DOUBLE) END + CAST(0 AS DOUBLE) AS score,
        COALESCE(CAST(weight AS DOUBLE), CAST(1 AS DOUBLE)) AS weight
    FROM ireval_runs_table AS src
),
fusion_ranked AS (
    SELECT r.run_id, r.query_id, r.doc_id, r.score, r.weight,
        row_number() OVER (PARTITION BY r.run_id, r.query_id ORDER BY r.score DESC,
    CASE WHEN TRY_CAST(ties AS VARCHAR) = 'trec_eval' THEN r.doc_id COLLATE "C" END DESC,
    CASE WHEN TRY_CAST(ties AS VARCHAR) = 'doc_id_asc' THEN r.doc_id COLLATE "C" END ASC) AS rank
    FROM fusion_read AS r
),
fusion_cut AS (
    SELECT run_id, query_id, doc_id, score, weight, rank
    FROM fusion_ranked
    WHERE NULL IS NULL OR rank <= NULL
),
fusion_runs AS (
    SELECT COUNT(DISTINCT run_id) AS runs FROM fusion_read
),
fusion_query_runs AS (
    SELECT query_id, COUNT(DISTINCT run_id) AS runs FROM fusion_cut GROUP BY query_id
),
fusion_kept AS (
    SELECT c.run_id, c.query_id, c.doc_id, c.score, c.weight, c.rank
    FROM fusion_cut AS c
    JOIN fusion_query_runs AS q ON q.query_id = c.query_id
    CROSS JOIN fusion_runs AS a
    WHERE 'union' <> 'intersection' OR q.runs = a.runs
),
fusion_stats AS (
    SELECT run_id, query_id, MIN(score) AS lo, MAX(score) AS hi, SUM(score) AS total,
        AVG(score) AS mu, CAST(COUNT(*) AS DOUBLE) AS n
    FROM fusion_kept
    GROUP BY run_id, query_id
),
-- the population standard deviation, in two passes (zmuv and dbsf only)
fusion_spread AS (
    SELECT k.run_id, k.query_id, SQRT(AVG((k.score - s.mu) * (k.score - s.mu))) AS sigma
    FROM fusion_kept AS k
    JOIN fusion_stats AS s ON s.run_id = k.run_id AND s.query_id = k.query_id
    WHERE COALESCE(TRY_CAST(norm AS VARCHAR), CASE
    WHEN 'none' = 'dbsf' THEN 'dbsf'
    WHEN 'none' IN ('rrf', 'isr', 'log_isr', 'logn_isr', 'rbc', 'median_rank', 'bordafuse',
        'w_bordafuse') THEN 'none'
    ELSE 'min-max' END) IN ('zmuv', 'dbsf')
    GROUP BY k.run_id, k.query_id
),
fusion_scaled AS (
    SELECT k.run_id, k.query_id, k.doc_id, k.weight, k.rank,
        CASE COALESCE(TRY_CAST(norm AS VARCHAR), CASE
    WHEN 'none' = 'dbsf' THEN 'dbsf'
    WHEN 'none' IN ('rrf', 'isr', 'log_isr', 'logn_isr', 'rbc', 'median_rank', 'bordafuse',
        'w_bordafuse') THEN 'none'
    ELSE 'min-max' END)
            WHEN 'min-max' THEN CASE
    WHEN TRY_CAST(guard AS VARCHAR) = 'ranx'
        THEN (k.score - s.lo) / GREATEST(s.hi - s.lo, CAST(1 AS DOUBLE) / CAST(1000000000 AS DOUBLE))
    WHEN (s.hi - s.lo) = 0 THEN CAST(0 AS DOUBLE)
    ELSE (k.score - s.lo) / (s.hi - s.lo)
END
            WHEN 'min-max-inverted'
                THEN CASE
    WHEN TRY_CAST(guard AS VARCHAR) = 'ranx'
        THEN (s.hi - k.score) / GREATEST(s.hi - s.lo, CAST(1 AS DOUBLE) / CAST(1000000000 AS DOUBLE))
    WHEN (s.hi - s.lo) = 0 THEN CAST(0 AS DOUBLE)
    ELSE (s.hi - k.score) / (s.hi - s.lo)
END
            WHEN 'max' THEN CASE
    WHEN TRY_CAST(guard AS VARCHAR) = 'ranx'
        THEN (k.score) / GREATEST(s.hi, CAST(1 AS DOUBLE) / CAST(1000000000 AS DOUBLE))
    WHEN (s.hi) = 0 THEN CAST(0 AS DOUBLE)
    ELSE (k.score) / (s.hi)
END
            WHEN 'sum' THEN CASE
    WHEN TRY_CAST(guard AS VARCHAR) = 'ranx'
        THEN (k.score - s.lo) / GREATEST(s.total - s.lo * s.n, CAST(1 AS DOUBLE) / CAST(1000000000 AS DOUBLE))
    WHEN (s.total - s.lo * s.n) = 0 THEN CAST(0 AS DOUBLE)
    ELSE (k.score - s.lo) / (s.total - s.lo * s.n)
END
            WHEN 'zmuv' THEN CASE
    WHEN TRY_CAST(guard AS VARCHAR) = 'ranx'
        THEN (k.score - s.mu) / GREATEST(d.sigma, CAST(1 AS DOUBLE) / CAST(1000000000 AS DOUBLE))
    WHEN (d.sigma) = 0 THEN CAST(0 AS DOUBLE)
    ELSE (k.score - s.mu) / (d.sigma)
END
            WHEN 'dbsf' THEN CASE
                WHEN d.sigma = 0 THEN CAST(1 AS DOUBLE) / CAST(2 AS DOUBLE)
                ELSE LEAST(GREATEST(
                    (k.score - (s.mu - CAST(3 AS DOUBLE) * d.sigma))
                        / (CAST(6 AS DOUBLE) * d.sigma),
                    CAST(0 AS DOUBLE)), CAST(1 AS DOUBLE)) END
            WHEN 'rank' THEN CAST(1 AS DOUBLE) - (CAST(k.rank AS DOUBLE) - 1) / s.n
            ELSE k.score
        END AS score
    FROM fusion_kept AS k
    JOIN fusion_stats AS s ON s.run_id = k.run_id AND s.query_id = k.query_id
    LEFT JOIN fusion_spread AS d ON d.run_id = k.run_id AND d.query_id = k.query_id
    WHERE COALESCE(TRY_CAST(norm AS VARCHAR), CASE
    WHEN 'none' = 'dbsf' THEN 'dbsf'
    WHEN 'none' IN ('rrf', 'isr', 'log_isr', 'logn_isr', 'rbc', 'median_rank', 'bordafuse',
        'w_bordafuse') THEN 'none'
    ELSE 'min-max' END) <> 'borda'
),
-- borda: every candidate of the query in every run that has it, 1 - (r - 1) / C at rank r,
-- 1/2 - (n - 1) / (2 C) where the run (of n documents) lacks it
fusion_borda AS (
    SELECT g.run_id, g.query_id, g.doc_id, g.weight,
        CASE WHEN g.rank IS NOT NULL
            THEN CAST(1 AS DOUBLE) - (CAST(g.rank AS DOUBLE) - 1) / g.c
            ELSE CAST(1 AS DOUBLE) / CAST(2 AS DOUBLE) - (g.n - 1) / (CAST(2 AS DOUBLE) * g.c)
        END AS score
    FROM (SELECT l.run_id, l.query_id, d.doc_id, l.n, l.weight, cc.c, x.rank, x.score
FROM (
    SELECT run_id, query_id, CAST(COUNT(*) AS DOUBLE) AS n, MAX(weight) AS weight
    FROM fusion_kept
    GROUP BY run_id, query_id
) AS l
JOIN (SELECT DISTINCT query_id, doc_id FROM fusion_kept) AS d ON d.query_id = l.query_id
JOIN (
    SELECT query_id, CAST(COUNT(DISTINCT doc_id) AS DOUBLE) AS c FROM fusion_kept GROUP BY query_id
) AS cc ON cc.query_id = l.query_id
LEFT JOIN fusion_kept AS x
    ON x.run_id = l.run_id AND x.query_id = l.query_id AND x.doc_id = d.doc_id) AS g
    WHERE COALESCE(TRY_CAST(norm AS VARCHAR), CASE
    WHEN 'none' = 'dbsf' THEN 'dbsf'
    WHEN 'none' IN ('rrf', 'isr', 'log_isr', 'logn_isr', 'rbc', 'median_rank', 'bordafuse',
        'w_bordafuse') THEN 'none'
    ELSE 'min-max' END) = 'borda'
),
fusion_final AS (
    SELECT r.run_id, r.query_id, r.doc_id, r.weight, r.score, r.rank
    FROM fusion_scaled AS r
    WHERE COALESCE(TRY_CAST(norm AS VARCHAR), CASE
    WHEN 'none' = 'dbsf' THEN 'dbsf'
    WHEN 'none' IN ('rrf', 'isr', 'log_isr', 'logn_isr', 'rbc', 'median_rank', 'bordafuse',
        'w_bordafuse') THEN 'none'
    ELSE 'min-max' END) <> 'min-max-inverted'
    UNION ALL
    SELECT r.run_id, r.query_id, r.doc_id, r.weight, r.score,
        row_number() OVER (PARTITION BY r.run_id, r.query_id ORDER BY r.score DESC,
    CASE WHEN TRY_CAST(ties AS VARCHAR) = 'trec_eval' THEN r.doc_id COLLATE "C" END DESC,
    CASE WHEN TRY_CAST(ties AS VARCHAR) = 'doc_id_asc' THEN r.doc_id COLLATE "C" END ASC) AS rank
    FROM fusion_scaled AS r
    WHERE COALESCE(TRY_CAST(norm AS VARCHAR), CASE
    WHEN 'none' = 'dbsf' THEN 'dbsf'
    WHEN 'none' IN ('rrf', 'isr', 'log_isr', 'logn_isr', 'rbc', 'median_rank', 'bordafuse',
        'w_bordafuse') THEN 'none'
    ELSE 'min-max' END) = 'min-max-inverted'
    UNION ALL
    SELECT r.run_id, r.query_id, r.doc_id, r.weight, r.score,
        row_number() OVER (PARTITION BY r.run_id, r.query_id ORDER BY r.score DESC,
    CASE WHEN TRY_CAST(ties AS VARCHAR) = 'trec_eval' THEN r.doc_id COLLATE "C" END DESC,
    CASE WHEN TRY_CAST(ties AS VARCHAR) = 'doc_id_asc' THEN r.doc_id COLLATE "C" END ASC) AS rank
    FROM fusion_borda AS r
)
SELECT run_id, query_id, doc_id, score, rank FROM fusion_final
UNION ALL BY NAME
SELECT error('ireval_normalize: norm := ''max'', guard := ''exact'': ' || problem) AS run_id, error('ireval_normalize: norm := ''max'', guard := ''exact'': ' || problem) AS query_id FROM (SELECT MIN(problem) AS problem FROM (
SELECT 'run ''' || run_id || ''' scores ' || CAST(MIN(score) AS STRING) || ' on query '''
    || query_id || '''; norm ''max'' divides by the maximum and needs scores of 0 or more: '
    || 'use norm := ''min-max'' (or guard := ''ranx'' for ranx''s arithmetic)' AS problem
FROM fusion_kept
GROUP BY run_id, query_id
HAVING MIN(score) < 0
) AS ireval_raised WHERE TRY_CAST(norm AS VARCHAR) = 'max' AND TRY_CAST(guard AS VARCHAR) = 'exact') AS ireval_raise WHERE problem IS NOT NULL;

-- The runs fused into one (polars_ireval.fuse): run_id (name, or the method), query_id, doc_id,
-- score, rank. Methods: the Comb family over the normalised scores of the runs that have a
-- document ('sum', 'max', 'min', 'med', 'anz', 'mnz', 'gmnz' with gamma), weighted ('wsum',
-- 'wmnz', 'mixed'), over ranks ('rrf' with k, weighted; 'isr', 'log_isr', 'logn_isr' with sigma,
-- 'rbc' with phi, 'bordafuse', 'w_bordafuse', 'median_rank') and 'dbsf'. norm: each ranking's
-- normalisation first (ireval_normalize; NULL: min-max, or none for the methods reading ranks,
-- dbsf's own for dbsf). missing: the score of a document a run lacks in the score-based methods
-- ('skip': no say; 'zero'; 'min': the run's lowest). queries: a query not in every run fails
-- ('error'), is fused from the runs that have it ('union') or left out ('intersection'). depth:
-- each input ranking cut to its top depth first. ties: tied scores ranked by doc_id descending
-- ('trec_eval') or ascending ('doc_id_asc'), in the inputs and the fused run.
CREATE OR REPLACE MACRO ireval_fuse(runs_table, method := 'rrf', norm := NULL, k := 60, gamma := 1, sigma := 0.01, phi := 0.8, missing := 'skip', queries := 'error', depth := NULL, ties := 'trec_eval', guard := 'exact', name := NULL) AS TABLE
WITH ireval_runs_table AS (SELECT * EXCLUDE (ireval_columns) FROM (SELECT * FROM (SELECT NULL AS run_id, NULL AS query_id, NULL AS doc_id, NULL AS score, CAST(NULL AS DOUBLE) AS weight WHERE 1 = 0) AS proto UNION ALL BY NAME SELECT *, typeof(ireval_src) AS ireval_columns FROM query_table(COALESCE(error(CASE
    WHEN NOT (method IS NOT NULL AND regexp_full_match(typeof(method), 'VARCHAR') AND TRY_CAST(method AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(method AS VARCHAR)) IN (encode('sum'), encode('max'), encode('min'), encode('med'), encode('anz'), encode('mnz'), encode('gmnz'), encode('wsum'), encode('wmnz'), encode('mixed'), encode('dbsf'), encode('rrf'), encode('isr'), encode('log_isr'), encode('logn_isr'), encode('rbc'), encode('median_rank'), encode('bordafuse'), encode('w_bordafuse')), FALSE))
        THEN 'ireval_fuse: method := ' || CASE typeof(method) WHEN 'VARCHAR' THEN '''' || replace(CAST(method AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(method AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''sum'', ''max'', ''min'', ''med'', ''anz'', ''mnz'', ''gmnz'', ''wsum'', ''wmnz'', ''mixed'', ''dbsf'', ''rrf'', ''isr'', ''log_isr'', ''logn_isr'', ''rbc'', ''median_rank'', ''bordafuse'', ''w_bordafuse'''
    WHEN NOT (norm IS NULL OR (regexp_full_match(typeof(norm), 'VARCHAR') AND TRY_CAST(norm AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(norm AS VARCHAR)) IN (encode('min-max'), encode('min-max-inverted'), encode('max'), encode('sum'), encode('zmuv'), encode('rank'), encode('dbsf'), encode('borda'), encode('none')), FALSE)))
        THEN 'ireval_fuse: norm := ' || CASE typeof(norm) WHEN 'VARCHAR' THEN '''' || replace(CAST(norm AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(norm AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''min-max'', ''min-max-inverted'', ''max'', ''sum'', ''zmuv'', ''rank'', ''dbsf'', ''borda'', ''none'' (or NULL)'
    WHEN NOT (k IS NOT NULL AND regexp_full_match(typeof(k), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(k AS DOUBLE) IS NOT NULL AND COALESCE(isfinite(TRY_CAST(k AS DOUBLE)) AND TRY_CAST(k AS DOUBLE) >= 0, FALSE))
        THEN 'ireval_fuse: k := ' || CASE typeof(k) WHEN 'VARCHAR' THEN '''' || replace(CAST(k AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(k AS VARCHAR), 'NULL') END || ' is invalid; it must be a non-negative finite number'
    WHEN NOT (gamma IS NOT NULL AND regexp_full_match(typeof(gamma), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(gamma AS DOUBLE) IS NOT NULL AND COALESCE(isfinite(TRY_CAST(gamma AS DOUBLE)), FALSE))
        THEN 'ireval_fuse: gamma := ' || CASE typeof(gamma) WHEN 'VARCHAR' THEN '''' || replace(CAST(gamma AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(gamma AS VARCHAR), 'NULL') END || ' is invalid; it must be a finite number'
    WHEN NOT (sigma IS NOT NULL AND regexp_full_match(typeof(sigma), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(sigma AS DOUBLE) IS NOT NULL AND COALESCE(isfinite(TRY_CAST(sigma AS DOUBLE)) AND TRY_CAST(sigma AS DOUBLE) > 0, FALSE))
        THEN 'ireval_fuse: sigma := ' || CASE typeof(sigma) WHEN 'VARCHAR' THEN '''' || replace(CAST(sigma AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(sigma AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive finite number'
    WHEN NOT (phi IS NOT NULL AND regexp_full_match(typeof(phi), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|DECIMAL\(.*\)') AND TRY_CAST(phi AS DOUBLE) IS NOT NULL AND COALESCE(TRY_CAST(phi AS DOUBLE) > 0 AND TRY_CAST(phi AS DOUBLE) < 1, FALSE))
        THEN 'ireval_fuse: phi := ' || CASE typeof(phi) WHEN 'VARCHAR' THEN '''' || replace(CAST(phi AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(phi AS VARCHAR), 'NULL') END || ' is invalid; it must be a number in (0, 1)'
    WHEN NOT (missing IS NOT NULL AND regexp_full_match(typeof(missing), 'VARCHAR') AND TRY_CAST(missing AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(missing AS VARCHAR)) IN (encode('skip'), encode('zero'), encode('min')), FALSE))
        THEN 'ireval_fuse: missing := ' || CASE typeof(missing) WHEN 'VARCHAR' THEN '''' || replace(CAST(missing AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(missing AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''skip'', ''zero'', ''min'''
    WHEN NOT (queries IS NOT NULL AND regexp_full_match(typeof(queries), 'VARCHAR') AND TRY_CAST(queries AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(queries AS VARCHAR)) IN (encode('error'), encode('union'), encode('intersection')), FALSE))
        THEN 'ireval_fuse: queries := ' || CASE typeof(queries) WHEN 'VARCHAR' THEN '''' || replace(CAST(queries AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(queries AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''error'', ''union'', ''intersection'''
    WHEN NOT (depth IS NULL OR (regexp_full_match(typeof(depth), 'U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?') AND TRY_CAST(depth AS HUGEINT) IS NOT NULL AND COALESCE(TRY_CAST(depth AS HUGEINT) >= 1, FALSE)))
        THEN 'ireval_fuse: depth := ' || CASE typeof(depth) WHEN 'VARCHAR' THEN '''' || replace(CAST(depth AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(depth AS VARCHAR), 'NULL') END || ' is invalid; it must be a positive integer (or NULL)'
    WHEN NOT (ties IS NOT NULL AND regexp_full_match(typeof(ties), 'VARCHAR') AND TRY_CAST(ties AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(ties AS VARCHAR)) IN (encode('trec_eval'), encode('doc_id_asc')), FALSE))
        THEN 'ireval_fuse: ties := ' || CASE typeof(ties) WHEN 'VARCHAR' THEN '''' || replace(CAST(ties AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(ties AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''trec_eval'', ''doc_id_asc'''
    WHEN NOT (guard IS NOT NULL AND regexp_full_match(typeof(guard), 'VARCHAR') AND TRY_CAST(guard AS VARCHAR) IS NOT NULL AND COALESCE(encode(TRY_CAST(guard AS VARCHAR)) IN (encode('exact'), encode('ranx')), FALSE))
        THEN 'ireval_fuse: guard := ' || CASE typeof(guard) WHEN 'VARCHAR' THEN '''' || replace(CAST(guard AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(guard AS VARCHAR), 'NULL') END || ' is invalid; it must be one of ''exact'', ''ranx'''
    WHEN NOT (name IS NULL OR (regexp_full_match(typeof(name), 'VARCHAR') AND TRY_CAST(name AS VARCHAR) IS NOT NULL AND COALESCE(TRUE, FALSE)))
        THEN 'ireval_fuse: name := ' || CASE typeof(name) WHEN 'VARCHAR' THEN '''' || replace(CAST(name AS VARCHAR), '''', '''''') || '''' ELSE COALESCE(CAST(name AS VARCHAR), 'NULL') END || ' is invalid; it must be text (or NULL)'
END), runs_table::VARCHAR)) AS ireval_src) AS ireval_read WHERE CASE WHEN typeof(run_id) IN ('NULL', '"NULL"') OR typeof(query_id) IN ('NULL', '"NULL"') OR typeof(doc_id) IN ('NULL', '"NULL"') OR typeof(score) IN ('NULL', '"NULL"') THEN error('ireval_fuse: the runs table ''' || runs_table::VARCHAR || ''' lacks column(s) [''' || concat_ws(''', ''', CASE WHEN typeof(run_id) IN ('NULL', '"NULL"') THEN 'run_id' END, CASE WHEN typeof(query_id) IN ('NULL', '"NULL"') THEN 'query_id' END, CASE WHEN typeof(doc_id) IN ('NULL', '"NULL"') THEN 'doc_id' END, CASE WHEN typeof(score) IN ('NULL', '"NULL"') THEN 'score' END) || ''']; it has ' || regexp_replace(ireval_columns, '^STRUCT\((.*)\)$', '\1') || '. Rename them to [''run_id'', ''query_id'', ''doc_id'', ''score''], e.g. in a view: SELECT ..., <column> AS ' || coalesce(CASE WHEN typeof(run_id) IN ('NULL', '"NULL"') THEN 'run_id' END, CASE WHEN typeof(query_id) IN ('NULL', '"NULL"') THEN 'query_id' END, CASE WHEN typeof(doc_id) IN ('NULL', '"NULL"') THEN 'doc_id' END, CASE WHEN typeof(score) IN ('NULL', '"NULL"') THEN 'score' END)) ELSE TRUE END),
fusion_read AS (
    SELECT
        COALESCE(CAST(run_id AS STRING), '') AS run_id,
        CAST(query_id AS STRING) AS query_id,
        CAST(doc_id AS STRING) AS doc_id,
        CASE WHEN typeof(score) IN ('VARCHAR', 'BLOB') THEN CAST(error('the run''s score column is text; scores must be numbers: cast it, e.g. CAST(score AS DOUBLE)') AS DOUBLE) ELSE CAST(score AS DOUBLE) END + CAST(0 AS DOUBLE) AS score,
        COALESCE(CAST(weight AS DOUBLE), CAST(1 AS DOUBLE)) AS weight
    FROM ireval_runs_table AS src
),
fusion_ranked AS (
    SELECT r.run_id, r.query_id, r.doc_id, r.score, r.weight,
        row_number() OVER (PARTITION BY r.run_id, r.query_id ORDER BY r.score DESC,
    CASE WHEN TRY_CAST(ties AS VARCHAR) = 'trec_eval' THEN r.doc_id COLLATE "C" END DESC,
    CASE WHEN TRY_CAST(ties AS VARCHAR) = 'doc_id_asc' THEN r.doc_id COLLATE "C" END ASC) AS rank
    FROM fusion_read AS r
),
fusion_cut AS (
    SELECT run_id, query_id, doc_id, score, weight, rank
    FROM fusion_ranked
    WHERE TRY_CAST(depth AS HUGEINT) IS NULL OR rank <= TRY_CAST(depth AS HUGEINT)
),
fusion_runs AS (
    SELECT COUNT(DISTINCT run_id) AS runs FROM fusion_read
),
fusion_query_runs AS (
    SELECT query_id, COUNT(DISTINCT run_id) AS runs FROM fusion_cut GROUP BY query_id
),
fusion_kept AS (
    SELECT c.run_id, c.query_id, c.doc_id, c.score, c.weight, c.rank
    FROM fusion_cut AS c
    JOIN fusion_query_runs AS q ON q.query_id = c.query_id
    CROSS JOIN fusion_runs AS a
    WHERE TRY_CAST(queries AS VARCHAR) <> 'intersection' OR q.runs = a.runs
),
fusion_stats AS (
    SELECT run_id, query_id, MIN(score) AS lo, MAX(score) AS hi, SUM(score) AS total,
        AVG(score) AS mu, CAST(COUNT(*) AS DOUBLE) AS n
    FROM fusion_kept
    GROUP BY run_id, query_id
),
-- the population standard deviation, in two passes (zmuv and dbsf only)
fusion_spread AS (
    SELECT k.run_id, k.query_id, SQRT(AVG((k.score - s.mu) * (k.score - s.mu))) AS sigma
    FROM fusion_kept AS k
    JOIN fusion_stats AS s ON s.run_id = k.run_id AND s.query_id = k.query_id
    WHERE COALESCE(TRY_CAST(norm AS VARCHAR), CASE
    WHEN TRY_CAST(method AS VARCHAR) = 'dbsf' THEN 'dbsf'
    WHEN TRY_CAST(method AS VARCHAR) IN ('rrf', 'isr', 'log_isr', 'logn_isr', 'rbc', 'median_rank', 'bordafuse',
        'w_bordafuse') THEN 'none'
    ELSE 'min-max' END) IN ('zmuv', 'dbsf')
    GROUP BY k.run_id, k.query_id
),
fusion_scaled AS (
    SELECT k.run_id, k.query_id, k.doc_id, k.weight, k.rank,
        CASE COALESCE(TRY_CAST(norm AS VARCHAR), CASE
    WHEN TRY_CAST(method AS VARCHAR) = 'dbsf' THEN 'dbsf'
    WHEN TRY_CAST(method AS VARCHAR) IN ('rrf', 'isr', 'log_isr', 'logn_isr', 'rbc', 'median_rank', 'bordafuse',
        'w_bordafuse') THEN 'none'
    ELSE 'min-max' END)
            WHEN 'min-max' THEN CASE
    WHEN TRY_CAST(guard AS VARCHAR) = 'ranx'
        THEN (k.score - s.lo) / GREATEST(s.hi - s.lo, CAST(1 AS DOUBLE) / CAST(1000000000 AS DOUBLE))
    WHEN (s.hi - s.lo) = 0 THEN CAST(0 AS DOUBLE)
    ELSE (k.score - s.lo) / (s.hi - s.lo)
END
            WHEN 'min-max-inverted'
                THEN CASE
    WHEN TRY_CAST(guard AS VARCHAR) = 'ranx'
        THEN (s.hi - k.score) / GREATEST(s.hi - s.lo, CAST(1 AS DOUBLE) / CAST(1000000000 AS DOUBLE))
    WHEN (s.hi - s.lo) = 0 THEN CAST(0 AS DOUBLE)
    ELSE (s.hi - k.score) / (s.hi - s.lo)
END
            WHEN 'max' THEN CASE
    WHEN TRY_CAST(guard AS VARCHAR) = 'ranx'
        THEN (k.score) / GREATEST(s.hi, CAST(1 AS DOUBLE) / CAST(1000000000 AS DOUBLE))
    WHEN (s.hi) = 0 THEN CAST(0 AS DOUBLE)
    ELSE (k.score) / (s.hi)
END
            WHEN 'sum' THEN CASE
    WHEN TRY_CAST(guard AS VARCHAR) = 'ranx'
        THEN (k.score - s.lo) / GREATEST(s.total - s.lo * s.n, CAST(1 AS DOUBLE) / CAST(1000000000 AS DOUBLE))
    WHEN (s.total - s.lo * s.n) = 0 THEN CAST(0 AS DOUBLE)
    ELSE (k.score - s.lo) / (s.total - s.lo * s.n)
END
            WHEN 'zmuv' THEN CASE
    WHEN TRY_CAST(guard AS VARCHAR) = 'ranx'
        THEN (k.score - s.mu) / GREATEST(d.sigma, CAST(1 AS DOUBLE) / CAST(1000000000 AS DOUBLE))
    WHEN (d.sigma) = 0 THEN CAST(0 AS DOUBLE)
    ELSE (k.score - s.mu) / (d.sigma)
END
            WHEN 'dbsf' THEN CASE
                WHEN d.sigma = 0 THEN CAST(1 AS DOUBLE) / CAST(2 AS DOUBLE)
                ELSE LEAST(GREATEST(
                    (k.score - (s.mu - CAST(3 AS DOUBLE) * d.sigma))
                        / (CAST(6 AS DOUBLE) * d.sigma),
                    CAST(0 AS DOUBLE)), CAST(1 AS DOUBLE)) END
            WHEN 'rank' THEN CAST(1 AS DOUBLE) - (CAST(k.rank AS DOUBLE) - 1) / s.n
            ELSE k.score
        END AS score
    FROM fusion_kept AS k
    JOIN fusion_stats AS s ON s.run_id = k.run_id AND s.query_id = k.query_id
    LEFT JOIN fusion_spread AS d ON d.run_id = k.run_id AND d.query_id = k.query_id
    WHERE COALESCE(TRY_CAST(norm AS VARCHAR), CASE
    WHEN TRY_CAST(method AS VARCHAR) = 'dbsf' THEN 'dbsf'
    WHEN TRY_CAST(method AS VARCHAR) IN ('rrf', 'isr', 'log_isr', 'logn_isr', 'rbc', 'median_rank', 'bordafuse',
        'w_bordafuse') THEN 'none'
    ELSE 'min-max' END) <> 'borda'
),
-- borda: every candidate of the query in every run that has it, 1 - (r - 1) / C at rank r,
-- 1/2 - (n - 1) / (2 C) where the run (of n documents) lacks it
fusion_borda AS (
    SELECT g.run_id, g.query_id, g.doc_id, g.weight,
        CASE WHEN g.rank IS NOT NULL
            THEN CAST(1 AS DOUBLE) - (CAST(g.rank AS DOUBLE) - 1) / g.c
            ELSE CAST(1 AS DOUBLE) / CAST(2 AS DOUBLE) - (g.n - 1) / (CAST(2 AS DOUBLE) * g.c)
        END AS score
    FROM (SELECT l.run_id, l.query_id, d.doc_id, l.n, l.weight, cc.c, x.rank, x.score
FROM (
    SELECT run_id, query_id, CAST(COUNT(*) AS DOUBLE) AS n, MAX(weight) AS weight
    FROM fusion_kept
    GROUP BY run_id, query_id
) AS l
JOIN (SELECT DISTINCT query_id, doc_id FROM fusion_kept) AS d ON d.query_id = l.query_id
JOIN (
    SELECT query_id, CAST(COUNT(DISTINCT doc_id) AS DOUBLE) AS c FROM fusion_kept GROUP BY query_id
) AS cc ON cc.query_id = l.query_id
LEFT JOIN fusion_kept AS x
    ON x.run_id = l.run_id AND x.query_id = l.query_id AND x.doc_id = d.doc_id) AS g
    WHERE COALESCE(TRY_CAST(norm AS VARCHAR), CASE
    WHEN TRY_CAST(method AS VARCHAR) = 'dbsf' THEN 'dbsf'
    WHEN TRY_CAST(method AS VARCHAR) IN ('rrf', 'isr', 'log_isr', 'logn_isr', 'rbc', 'median_rank', 'bordafuse',
        'w_bordafuse') THEN 'none'
    ELSE 'min-max' END) = 'borda'
),
fusion_final AS (
    SELECT r.run_id, r.query_id, r.doc_id, r.weight, r.score, r.rank
    FROM fusion_scaled AS r
    WHERE COALESCE(TRY_CAST(norm AS VARCHAR), CASE
    WHEN TRY_CAST(method AS VARCHAR) = 'dbsf' THEN 'dbsf'
    WHEN TRY_CAST(method AS VARCHAR) IN ('rrf', 'isr', 'log_isr', 'logn_isr', 'rbc', 'median_rank', 'bordafuse',
        'w_bordafuse') THEN 'none'
    ELSE 'min-max' END) <> 'min-max-inverted'
    UNION ALL
    SELECT r.run_id, r.query_id, r.doc_id, r.weight, r.score,
        row_number() OVER (PARTITION BY r.run_id, r.query_id ORDER BY r.score DESC,
    CASE WHEN TRY_CAST(ties AS VARCHAR) = 'trec_eval' THEN r.doc_id COLLATE "C" END DESC,
    CASE WHEN TRY_CAST(ties AS VARCHAR) = 'doc_id_asc' THEN r.doc_id COLLATE "C" END ASC) AS rank
    FROM fusion_scaled AS r
    WHERE COALESCE(TRY_CAST(norm AS VARCHAR), CASE
    WHEN TRY_CAST(method AS VARCHAR) = 'dbsf' THEN 'dbsf'
    WHEN TRY_CAST(method AS VARCHAR) IN ('rrf', 'isr', 'log_isr', 'logn_isr', 'rbc', 'median_rank', 'bordafuse',
        'w_bordafuse') THEN 'none'
    ELSE 'min-max' END) = 'min-max-inverted'
    UNION ALL
    SELECT r.run_id, r.query_id, r.doc_id, r.weight, r.score,
        row_number() OVER (PARTITION BY r.run_id, r.query_id ORDER BY r.score DESC,
    CASE WHEN TRY_CAST(ties AS VARCHAR) = 'trec_eval' THEN r.doc_id COLLATE "C" END DESC,
    CASE WHEN TRY_CAST(ties AS VARCHAR) = 'doc_id_asc' THEN r.doc_id COLLATE "C" END ASC) AS rank
    FROM fusion_borda AS r
),
fusion_low AS (
    SELECT run_id, query_id, MIN(score) AS low
    FROM fusion_final
    WHERE TRY_CAST(missing AS VARCHAR) = 'min'
    GROUP BY run_id, query_id
),
fusion_scored AS (
    SELECT query_id, doc_id, weight, score, 1 AS retrieved
    FROM fusion_final
    WHERE TRY_CAST(missing AS VARCHAR) = 'skip'
    UNION ALL
    SELECT g.query_id, g.doc_id, g.weight,
        COALESCE(g.score, CASE WHEN TRY_CAST(missing AS VARCHAR) = 'zero' THEN CAST(0 AS DOUBLE) ELSE lw.low END)
            AS score,
        CASE WHEN g.score IS NULL THEN 0 ELSE 1 END AS retrieved
    FROM (SELECT l.run_id, l.query_id, d.doc_id, l.n, l.weight, cc.c, x.rank, x.score
FROM (
    SELECT run_id, query_id, CAST(COUNT(*) AS DOUBLE) AS n, MAX(weight) AS weight
    FROM fusion_final
    GROUP BY run_id, query_id
) AS l
JOIN (SELECT DISTINCT query_id, doc_id FROM fusion_final) AS d ON d.query_id = l.query_id
JOIN (
    SELECT query_id, CAST(COUNT(DISTINCT doc_id) AS DOUBLE) AS c FROM fusion_final GROUP BY query_id
) AS cc ON cc.query_id = l.query_id
LEFT JOIN fusion_final AS x
    ON x.run_id = l.run_id AND x.query_id = l.query_id AND x.doc_id = d.doc_id) AS g
    LEFT JOIN fusion_low AS lw ON lw.run_id = g.run_id AND lw.query_id = g.query_id
    WHERE TRY_CAST(missing AS VARCHAR) <> 'skip' AND TRY_CAST(method AS VARCHAR) IN ('sum', 'max', 'min', 'med', 'anz', 'mnz', 'gmnz',
        'wsum', 'wmnz', 'mixed', 'dbsf')
),
-- the terms each method adds up (fusion_sums: in increasing order)
fusion_comb_terms AS (
    SELECT query_id, doc_id, score, retrieved,
        CASE WHEN TRY_CAST(method AS VARCHAR) IN ('wsum', 'mixed') THEN weight * score ELSE score END AS term,
        CASE WHEN TRY_CAST(method AS VARCHAR) = 'wmnz' AND retrieved = 1 THEN weight ELSE CAST(0 AS DOUBLE) END
            AS wterm
    FROM fusion_scored
    WHERE TRY_CAST(method AS VARCHAR) IN ('sum', 'max', 'min', 'anz', 'mnz', 'gmnz', 'wsum', 'wmnz', 'mixed',
        'dbsf')
),
fusion_comb AS (
    SELECT query_id, doc_id,
        CASE TRY_CAST(method AS VARCHAR)
            WHEN 'max' THEN hi
            WHEN 'min' THEN lo
            WHEN 'anz' THEN total / cnt
            WHEN 'mnz' THEN total * n
            WHEN 'gmnz' THEN total * POWER(n, TRY_CAST(gamma AS DOUBLE))
            WHEN 'wmnz' THEN total * wtotal
            WHEN 'mixed' THEN total * SQRT(n)
            ELSE total  -- sum, wsum, dbsf
        END AS score
    FROM (SELECT query_id, doc_id, SUM(term ORDER BY term) AS total,
    SUM(wterm ORDER BY wterm) AS wtotal, MIN(score) AS lo, MAX(score) AS hi,
    CAST(SUM(retrieved) AS DOUBLE) AS n, CAST(COUNT(*) AS DOUBLE) AS cnt
FROM fusion_comb_terms
GROUP BY query_id, doc_id) AS cs
),
fusion_med_rows AS (
    SELECT query_id, doc_id, score FROM fusion_scored WHERE TRY_CAST(method AS VARCHAR) = 'med'
),
fusion_med AS (
    SELECT query_id, doc_id, MIN(v) + (MAX(v) - MIN(v)) / CAST(2 AS DOUBLE) AS score
FROM (
    SELECT query_id, doc_id, score AS v,
        row_number() OVER (PARTITION BY query_id, doc_id ORDER BY score) AS pos,
        COUNT(*) OVER (PARTITION BY query_id, doc_id) AS cnt
    FROM fusion_med_rows
) AS m
WHERE pos * 2 IN (cnt, cnt + 1, cnt + 2)
GROUP BY query_id, doc_id
),
-- the methods reading ranks r: sums over the runs that have the document
fusion_rank_terms AS (
    SELECT query_id, doc_id, CAST(0 AS DOUBLE) AS score, 1 AS retrieved,
        CASE TRY_CAST(method AS VARCHAR)
            WHEN 'rrf' THEN weight / (TRY_CAST(k AS DOUBLE) + CAST(rank AS DOUBLE))
            WHEN 'rbc' THEN (1 - TRY_CAST(phi AS DOUBLE)) * POWER(TRY_CAST(phi AS DOUBLE), CAST(rank AS DOUBLE) - 1)
            ELSE CAST(1 AS DOUBLE) / (CAST(rank AS DOUBLE) * CAST(rank AS DOUBLE))
        END AS term,
        CAST(0 AS DOUBLE) AS wterm
    FROM fusion_final
    WHERE TRY_CAST(method AS VARCHAR) IN ('rrf', 'rbc', 'isr', 'log_isr', 'logn_isr')
),
fusion_rank_sums AS (
    SELECT query_id, doc_id,
        CASE TRY_CAST(method AS VARCHAR)
            WHEN 'isr' THEN total * cnt
            WHEN 'log_isr' THEN total * LN(cnt)
            WHEN 'logn_isr' THEN total * LN(cnt + TRY_CAST(sigma AS DOUBLE))
            ELSE total  -- rrf, rbc
        END AS score
    FROM (SELECT query_id, doc_id, SUM(term ORDER BY term) AS total,
    SUM(wterm ORDER BY wterm) AS wtotal, MIN(score) AS lo, MAX(score) AS hi,
    CAST(SUM(retrieved) AS DOUBLE) AS n, CAST(COUNT(*) AS DOUBLE) AS cnt
FROM fusion_rank_terms
GROUP BY query_id, doc_id) AS rs
),
-- over every candidate: Borda's points (c - r + 1 at rank r, (c - n + 1) / 2 where the run
-- of n lacks it) and MEDRANK's ranks (n + 1 where the run lacks it)
fusion_candidates AS (
    SELECT g.query_id, g.doc_id, g.weight, g.n, g.c, g.rank
    FROM (SELECT l.run_id, l.query_id, d.doc_id, l.n, l.weight, cc.c, x.rank, x.score
FROM (
    SELECT run_id, query_id, CAST(COUNT(*) AS DOUBLE) AS n, MAX(weight) AS weight
    FROM fusion_final
    GROUP BY run_id, query_id
) AS l
JOIN (SELECT DISTINCT query_id, doc_id FROM fusion_final) AS d ON d.query_id = l.query_id
JOIN (
    SELECT query_id, CAST(COUNT(DISTINCT doc_id) AS DOUBLE) AS c FROM fusion_final GROUP BY query_id
) AS cc ON cc.query_id = l.query_id
LEFT JOIN fusion_final AS x
    ON x.run_id = l.run_id AND x.query_id = l.query_id AND x.doc_id = d.doc_id) AS g
    WHERE TRY_CAST(method AS VARCHAR) IN ('bordafuse', 'w_bordafuse', 'median_rank')
),
fusion_borda_points AS (
    SELECT query_id, doc_id, CAST(0 AS DOUBLE) AS score, 1 AS retrieved,
        CASE WHEN TRY_CAST(method AS VARCHAR) = 'w_bordafuse' THEN weight ELSE CAST(1 AS DOUBLE) END
            * CASE WHEN rank IS NOT NULL THEN c - CAST(rank AS DOUBLE) + 1
                ELSE (c - n + 1) / CAST(2 AS DOUBLE) END AS term,
        CAST(0 AS DOUBLE) AS wterm
    FROM fusion_candidates
    WHERE TRY_CAST(method AS VARCHAR) IN ('bordafuse', 'w_bordafuse')
),
fusion_borda_count AS (
    SELECT query_id, doc_id, total AS score
    FROM (SELECT query_id, doc_id, SUM(term ORDER BY term) AS total,
    SUM(wterm ORDER BY wterm) AS wtotal, MIN(score) AS lo, MAX(score) AS hi,
    CAST(SUM(retrieved) AS DOUBLE) AS n, CAST(COUNT(*) AS DOUBLE) AS cnt
FROM fusion_borda_points
GROUP BY query_id, doc_id) AS bs
),
fusion_filled_ranks AS (
    SELECT query_id, doc_id, COALESCE(CAST(rank AS DOUBLE), n + 1) AS filled
    FROM fusion_candidates
    WHERE TRY_CAST(method AS VARCHAR) = 'median_rank'
),
fusion_medrank AS (
    SELECT query_id, doc_id, -score AS score
    FROM (SELECT query_id, doc_id, MIN(v) + (MAX(v) - MIN(v)) / CAST(2 AS DOUBLE) AS score
FROM (
    SELECT query_id, doc_id, filled AS v,
        row_number() OVER (PARTITION BY query_id, doc_id ORDER BY filled) AS pos,
        COUNT(*) OVER (PARTITION BY query_id, doc_id) AS cnt
    FROM fusion_filled_ranks
) AS m
WHERE pos * 2 IN (cnt, cnt + 1, cnt + 2)
GROUP BY query_id, doc_id) AS m
),
fusion_fused AS (
    SELECT query_id, doc_id, score FROM fusion_comb
    UNION ALL
    SELECT query_id, doc_id, score FROM fusion_med
    UNION ALL
    SELECT query_id, doc_id, score FROM fusion_rank_sums
    UNION ALL
    SELECT query_id, doc_id, score FROM fusion_borda_count
    UNION ALL
    SELECT query_id, doc_id, score FROM fusion_medrank
)
SELECT COALESCE(TRY_CAST(name AS VARCHAR), TRY_CAST(method AS VARCHAR)) AS run_id, r.query_id, r.doc_id, r.score,
    row_number() OVER (PARTITION BY r.query_id ORDER BY r.score DESC,
    CASE WHEN TRY_CAST(ties AS VARCHAR) = 'trec_eval' THEN r.doc_id COLLATE "C" END DESC,
    CASE WHEN TRY_CAST(ties AS VARCHAR) = 'doc_id_asc' THEN r.doc_id COLLATE "C" END ASC) AS rank
FROM fusion_fused AS r
UNION ALL BY NAME
SELECT error('ireval_fuse: queries := ''error'': ' || problem) AS run_id, error('ireval_fuse: queries := ''error'': ' || problem) AS query_id FROM (SELECT MIN(problem) AS problem FROM (
SELECT 'query ''' || q.query_id || ''' is in ' || CAST(q.runs AS STRING) || ' of the '
    || CAST(a.runs AS STRING) || ' runs: pass queries := ''union'' (fuse each query from the '
    || 'runs that have it) or queries := ''intersection''' AS problem
FROM fusion_query_runs AS q
CROSS JOIN fusion_runs AS a
WHERE q.runs < a.runs
) AS ireval_raised WHERE TRY_CAST(queries AS VARCHAR) = 'error') AS ireval_raise WHERE problem IS NOT NULL
UNION ALL BY NAME
SELECT error('ireval_fuse: norm := ''max'', guard := ''exact'': ' || problem) AS run_id, error('ireval_fuse: norm := ''max'', guard := ''exact'': ' || problem) AS query_id FROM (SELECT MIN(problem) AS problem FROM (
SELECT 'run ''' || run_id || ''' scores ' || CAST(MIN(score) AS STRING) || ' on query '''
    || query_id || '''; norm ''max'' divides by the maximum and needs scores of 0 or more: '
    || 'use norm := ''min-max'' (or guard := ''ranx'' for ranx''s arithmetic)' AS problem
FROM fusion_kept
GROUP BY run_id, query_id
HAVING MIN(score) < 0
) AS ireval_raised WHERE TRY_CAST(norm AS VARCHAR) = 'max' AND TRY_CAST(guard AS VARCHAR) = 'exact') AS ireval_raise WHERE problem IS NOT NULL;
