-- ireval.sql: every ireval_ macro, generated from the family files by
-- `python -m polars_ireval.sql`. Do not edit; a test checks it is up to date.

-- ---- stats.sql
-- ireval_stats(eval_table, k, rel): per (run_id, query_id) counts that the simple
-- measures divide. k NULL means no cutoff; rel is the minimum relevant grade.
CREATE OR REPLACE MACRO ireval_stats(eval_table, k, rel) AS TABLE
WITH t AS (
    SELECT
        run_id,
        query_id,
        rank,
        relevance,
        CASE WHEN rank IS NOT NULL THEN 1 ELSE 0 END AS is_ret,
        CASE WHEN rank IS NOT NULL AND (k IS NULL OR rank <= k) THEN 1 ELSE 0 END AS is_ret_k,
        CASE WHEN relevance IS NOT NULL AND relevance >= rel THEN 1 ELSE 0 END AS is_rel,
        CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < rel
            THEN 1 ELSE 0 END AS is_nonrel
    FROM query_table(eval_table::VARCHAR)
),
r AS (
    SELECT t.*, SUM(is_rel) OVER (PARTITION BY run_id, query_id) AS num_rel_all FROM t
)
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
    MIN(CASE WHEN is_ret_k = 1 AND is_rel = 1 THEN rank END) AS first_rel_k,
    SUM(CASE WHEN is_ret = 1 AND is_rel = 1 AND rank <= num_rel_all THEN 1 ELSE 0 END)
        AS rel_ret_at_r
FROM r
GROUP BY run_id, query_id;

-- ireval_ratio(num, den): num / den as DOUBLE, 0 when den is 0 (trec_eval's convention).
CREATE OR REPLACE MACRO ireval_ratio(num, den) AS
    CASE WHEN den > 0 THEN CAST(num AS DOUBLE) / CAST(den AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END;

-- ---- judge.sql
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

-- ---- precision.sql
-- Cutoff measures: P@k, R@k, Success@k, relative_P@k, Judged@k, Unjudged@k.
CREATE OR REPLACE MACRO ireval_p(eval_table, k, rel) AS TABLE
SELECT run_id, query_id, CAST(rel_ret_k AS DOUBLE) / CAST(k AS DOUBLE) AS value
FROM ireval_stats(eval_table, k, rel);

CREATE OR REPLACE MACRO ireval_recall(eval_table, k, rel) AS TABLE
SELECT run_id, query_id, ireval_ratio(rel_ret_k, num_rel) AS value
FROM ireval_stats(eval_table, k, rel);

CREATE OR REPLACE MACRO ireval_success(eval_table, k, rel) AS TABLE
SELECT run_id, query_id,
    CASE WHEN rel_ret_k > 0 THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END AS value
FROM ireval_stats(eval_table, k, rel);

CREATE OR REPLACE MACRO ireval_relative_p(eval_table, k, rel) AS TABLE
SELECT run_id, query_id,
    ireval_ratio(rel_ret_k, CASE WHEN num_rel < k THEN num_rel ELSE k END) AS value
FROM ireval_stats(eval_table, k, rel);

CREATE OR REPLACE MACRO ireval_judged(eval_table, k) AS TABLE
SELECT run_id, query_id, ireval_ratio(judged_k, num_ret_k) AS value
FROM ireval_stats(eval_table, k, 1);

CREATE OR REPLACE MACRO ireval_unjudged(eval_table, k) AS TABLE
SELECT run_id, query_id, CAST(unjudged_k AS DOUBLE) / CAST(k AS DOUBLE) AS value
FROM ireval_stats(eval_table, k, 1);

-- ---- counts.sql
-- Counting measures: NumQ, NumRet, NumRel, NumRelRet, num_nonrel_judged_ret.
CREATE OR REPLACE MACRO ireval_num_q(eval_table) AS TABLE
SELECT run_id, query_id, CAST(1 AS DOUBLE) AS value
FROM ireval_stats(eval_table, NULL, 1);

CREATE OR REPLACE MACRO ireval_num_ret(eval_table) AS TABLE
SELECT run_id, query_id, CAST(num_ret AS DOUBLE) AS value
FROM ireval_stats(eval_table, NULL, 1);

CREATE OR REPLACE MACRO ireval_num_rel(eval_table, rel) AS TABLE
SELECT run_id, query_id, CAST(num_rel AS DOUBLE) AS value
FROM ireval_stats(eval_table, NULL, rel);

CREATE OR REPLACE MACRO ireval_num_rel_ret(eval_table, rel) AS TABLE
SELECT run_id, query_id, CAST(rel_ret AS DOUBLE) AS value
FROM ireval_stats(eval_table, NULL, rel);

CREATE OR REPLACE MACRO ireval_num_nonrel_judged_ret(eval_table, rel) AS TABLE
SELECT run_id, query_id, CAST(nonrel_ret AS DOUBLE) AS value
FROM ireval_stats(eval_table, NULL, rel);

-- ---- sets.sql
-- Set measures: SetP, SetR, set_relative_P, SetAP, SetF(beta).
CREATE OR REPLACE MACRO ireval_set_p(eval_table, rel) AS TABLE
SELECT run_id, query_id, ireval_ratio(rel_ret, num_ret) AS value
FROM ireval_stats(eval_table, NULL, rel);

CREATE OR REPLACE MACRO ireval_set_r(eval_table, rel) AS TABLE
SELECT run_id, query_id, ireval_ratio(rel_ret, num_rel) AS value
FROM ireval_stats(eval_table, NULL, rel);

CREATE OR REPLACE MACRO ireval_set_relative_p(eval_table, rel) AS TABLE
SELECT run_id, query_id,
    ireval_ratio(rel_ret, CASE WHEN num_ret < num_rel THEN num_ret ELSE num_rel END) AS value
FROM ireval_stats(eval_table, NULL, rel);

CREATE OR REPLACE MACRO ireval_set_ap(eval_table, rel) AS TABLE
SELECT run_id, query_id,
    ireval_ratio(rel_ret, num_ret) * ireval_ratio(rel_ret, num_rel) AS value
FROM ireval_stats(eval_table, NULL, rel);

CREATE OR REPLACE MACRO ireval_set_f(eval_table, beta, rel) AS TABLE
WITH pr AS (
    SELECT run_id, query_id,
        ireval_ratio(rel_ret, num_ret) AS p,
        ireval_ratio(rel_ret, num_rel) AS r,
        CAST(beta AS DOUBLE) * CAST(beta AS DOUBLE) AS b2
    FROM ireval_stats(eval_table, NULL, rel)
)
SELECT run_id, query_id,
    ireval_ratio((CAST(1 AS DOUBLE) + b2) * p * r, b2 * p + r) AS value
FROM pr;

-- ---- ap.sql
-- Average precision (AP, AP@k = map_cut) and R-precision.
-- The precision terms are added in rank order (a running window sum), as trec_eval does.
CREATE OR REPLACE MACRO ireval_ap(eval_table, k, rel) AS TABLE
WITH hits AS (
    SELECT run_id, query_id, rank,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank) AS i
    FROM query_table(eval_table::VARCHAR)
    WHERE rank IS NOT NULL AND (k IS NULL OR rank <= k)
        AND relevance IS NOT NULL AND relevance >= rel
),
running AS (
    SELECT run_id, query_id, rank,
        SUM(CAST(i AS DOUBLE) / CAST(rank AS DOUBLE)) OVER (
            PARTITION BY run_id, query_id ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS total,
        row_number() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM hits
)
SELECT s.run_id, s.query_id,
    ireval_ratio(COALESCE(x.total, CAST(0 AS DOUBLE)), s.num_rel) AS value
FROM ireval_stats(eval_table, NULL, rel) AS s
LEFT JOIN running AS x
    ON x.run_id = s.run_id AND x.query_id = s.query_id AND x.from_end = 1;

CREATE OR REPLACE MACRO ireval_rprec(eval_table, rel) AS TABLE
SELECT run_id, query_id, ireval_ratio(rel_ret_at_r, num_rel) AS value
FROM ireval_stats(eval_table, NULL, rel);

-- ---- rr.sql
-- Reciprocal rank (RR, RR@k): 1 / rank of the first relevant document, 0 when none.
CREATE OR REPLACE MACRO ireval_rr(eval_table, k, rel) AS TABLE
SELECT run_id, query_id,
    CASE WHEN first_rel_k IS NULL THEN CAST(0 AS DOUBLE)
    ELSE CAST(1 AS DOUBLE) / CAST(first_rel_k AS DOUBLE) END AS value
FROM ireval_stats(eval_table, k, rel);

-- ---- ndcg.sql
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

-- ---- bpref.sql
-- bpref: (1/R) sum over relevant retrieved d of 1 - min(n_d, R) / min(N, R), where n_d
-- counts judged non-relevant documents ranked above d and N those judged for the query.
CREATE OR REPLACE MACRO ireval_bpref(eval_table, rel) AS TABLE
WITH t AS (
    SELECT run_id, query_id, rank,
        CASE WHEN relevance IS NOT NULL AND relevance >= rel THEN 1 ELSE 0 END AS is_rel,
        CASE WHEN relevance IS NOT NULL AND relevance >= 0 AND relevance < rel
            THEN 1 ELSE 0 END AS is_nonrel
    FROM query_table(eval_table::VARCHAR)
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
terms AS (
    SELECT a.run_id, a.query_id, a.rank,
        CASE WHEN a.n_above > 0 THEN
            CAST(1 AS DOUBLE)
            - CAST(CASE WHEN a.n_above < s.num_rel THEN a.n_above ELSE s.num_rel END AS DOUBLE)
            / CAST(CASE WHEN s.num_nonrel < s.num_rel THEN s.num_nonrel ELSE s.num_rel END
                AS DOUBLE)
        ELSE CAST(1 AS DOUBLE) END AS term
    FROM above AS a
    JOIN ireval_stats(eval_table, NULL, rel) AS s
        ON a.run_id = s.run_id AND a.query_id = s.query_id
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
    ireval_ratio(COALESCE(x.total, CAST(0 AS DOUBLE)), s.num_rel) AS value
FROM ireval_stats(eval_table, NULL, rel) AS s
LEFT JOIN running AS x
    ON x.run_id = s.run_id AND x.query_id = s.query_id AND x.from_end = 1;
