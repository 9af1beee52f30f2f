-- Fusion: several runs into one (ireval_fuse) and a run's scores normalised ranking by
-- ranking (ireval_normalize), as polars_ireval.fuse and polars_ireval.normalize compute
-- them (polars_ireval.fusion): the same steps, the same arithmetic.
--
-- runs_table: run_id, query_id, doc_id, score [, weight]: every input run, one run_id each
-- (a run without run_id is the run ''), weight the run's weight (the same on each of its
-- rows; 1 when absent or NULL), read by the weighted methods only. The rows are taken as
-- checked (ireval_check: no NULL or NaN score, no document twice in a ranking).

-- fragment: fusion_divide(num, den, guard)
-- num / den for a normalisation: 0 when den is 0 (guard 'exact'), or ranx's
-- num / max(den, 1e-9) (guard 'ranx').
CASE
    WHEN {guard} = 'ranx'
        THEN ({num}) / GREATEST({den}, CAST(1 AS DOUBLE) / CAST(1000000000 AS DOUBLE))
    WHEN ({den}) = 0 THEN CAST(0 AS DOUBLE)
    ELSE ({num}) / ({den})
END

-- fragment: fusion_norm(norm, method)
-- The normalisation in use: norm, or by default the method's (dbsf's own for dbsf, none
-- for the methods reading ranks, min-max for the others).
COALESCE({norm}, CASE
    WHEN {method} = 'dbsf' THEN 'dbsf'
    WHEN {method} IN ('rrf', 'isr', 'log_isr', 'logn_isr', 'rbc', 'median_rank', 'bordafuse',
        'w_bordafuse') THEN 'none'
    ELSE 'min-max' END)

-- fragment: fusion_order(ties)
-- The order of a ranking's rows r: score descending, ties by document id (byte-wise).
r.score DESC,
    CASE WHEN {ties} = 'trec_eval' THEN {doc_desc} END DESC,
    CASE WHEN {ties} = 'doc_id_asc' THEN {doc_asc} END ASC

-- fragment: fusion_grid(rows)
-- Every (run, query, document) of a query's candidates (the documents any run has for it)
-- and the runs that have the query: the run's length n and weight, the number of
-- candidates c, and the row's rank and score (NULL where the run lacks the document).
SELECT l.run_id, l.query_id, d.doc_id, l.n, l.weight, cc.c, x.rank, x.score
FROM (
    SELECT run_id, query_id, CAST(COUNT(*) AS DOUBLE) AS n, MAX(weight) AS weight
    FROM {rows}
    GROUP BY run_id, query_id
) AS l
JOIN (SELECT DISTINCT query_id, doc_id FROM {rows}) AS d ON d.query_id = l.query_id
JOIN (
    SELECT query_id, CAST(COUNT(DISTINCT doc_id) AS DOUBLE) AS c FROM {rows} GROUP BY query_id
) AS cc ON cc.query_id = l.query_id
LEFT JOIN {rows} AS x
    ON x.run_id = l.run_id AND x.query_id = l.query_id AND x.doc_id = d.doc_id

-- fragment: fusion_median(rows, value)
-- The median of value over the rows of each (query, document) of rows: the middle one, or
-- lo + (hi - lo) / 2 of the middle two (Polars' arithmetic).
SELECT query_id, doc_id, MIN(v) + (MAX(v) - MIN(v)) / CAST(2 AS DOUBLE) AS score
FROM (
    SELECT query_id, doc_id, {value} AS v,
        row_number() OVER (PARTITION BY query_id, doc_id ORDER BY {value}) AS pos,
        COUNT(*) OVER (PARTITION BY query_id, doc_id) AS cnt
    FROM {rows}
) AS m
WHERE pos * 2 IN (cnt, cnt + 1, cnt + 2)
GROUP BY query_id, doc_id

-- fragment: fusion_sums(rows)
-- Per (query, document) of rows (query_id, doc_id, score, retrieved, term, wterm): total
-- and wtotal, the sums of term and wterm each added in increasing order (a window over
-- the document's rows ordered by the term; DuckDB's macros use its ordered aggregate
-- instead), so that equal sets of terms give equal sums whatever the order of the runs:
-- documents tied in exact arithmetic tie. Also lo and hi (the least and greatest score),
-- n (the rows retrieved) and cnt (the rows).
SELECT query_id, doc_id, MAX(total) AS total, MAX(wtotal) AS wtotal, MIN(score) AS lo,
    MAX(score) AS hi, CAST(SUM(retrieved) AS DOUBLE) AS n, CAST(COUNT(*) AS DOUBLE) AS cnt
FROM (
    SELECT query_id, doc_id, score, retrieved,
        SUM(term) OVER (PARTITION BY query_id, doc_id ORDER BY term
            ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS total,
        SUM(wterm) OVER (PARTITION BY query_id, doc_id ORDER BY wterm
            ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS wtotal
    FROM {rows}
) AS s
GROUP BY query_id, doc_id

-- fragment: fusion_prepared(norm, method, guard, ties, depth, queries)
-- The input rows ranked, cut to depth, kept by the queries policy and normalised
-- (CTEs continuing a WITH clause; fusion_final: run_id, query_id, doc_id, weight, score,
-- rank, the rank read again from the normalised scores where they reorder a ranking).
-- Spark computes the two steps one after the other (polars_ireval.engines.fusion).
{@fusion_kept},
{@fusion_normalised}

-- fragment: fusion_kept(ties, depth, queries)
-- The input rows ranked, cut to depth and kept by the queries policy (fusion_kept: run_id,
-- query_id, doc_id, score, weight, rank).
fusion_read AS (
    SELECT
        COALESCE(CAST(run_id AS STRING), '') AS run_id,
        CAST(query_id AS STRING) AS query_id,
        CAST(doc_id AS STRING) AS doc_id,
        {score_value} + CAST(0 AS DOUBLE) AS score,
        COALESCE(CAST(weight AS DOUBLE), CAST(1 AS DOUBLE)) AS weight
    FROM {runs_table} AS src
),
fusion_ranked AS (
    SELECT r.run_id, r.query_id, r.doc_id, r.score, r.weight,
        row_number() OVER (PARTITION BY r.run_id, r.query_id ORDER BY {@fusion_order}) AS rank
    FROM fusion_read AS r
),
fusion_cut AS (
    SELECT run_id, query_id, doc_id, score, weight, rank
    FROM fusion_ranked
    WHERE {depth} IS NULL OR rank <= {depth}
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
    WHERE {queries} <> 'intersection' OR q.runs = a.runs
)

-- fragment: fusion_normalised(norm, method, guard, ties)
-- fusion_kept's rows normalised (fusion_final).
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
    WHERE {@fusion_norm} IN ('zmuv', 'dbsf')
    GROUP BY k.run_id, k.query_id
),
fusion_scaled AS (
    SELECT k.run_id, k.query_id, k.doc_id, k.weight, k.rank,
        CASE {@fusion_norm}
            WHEN 'min-max' THEN {@fusion_divide(num := k.score - s.lo, den := s.hi - s.lo)}
            WHEN 'min-max-inverted'
                THEN {@fusion_divide(num := s.hi - k.score, den := s.hi - s.lo)}
            WHEN 'max' THEN {@fusion_divide(num := k.score, den := s.hi)}
            WHEN 'sum' THEN {@fusion_divide(num := k.score - s.lo, den := s.total - s.lo * s.n)}
            WHEN 'zmuv' THEN {@fusion_divide(num := k.score - s.mu, den := d.sigma)}
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
    WHERE {@fusion_norm} <> 'borda'
),
-- borda: every candidate of the query in every run that has it, 1 - (r - 1) / C at rank r,
-- 1/2 - (n - 1) / (2 C) where the run (of n documents) lacks it
fusion_borda AS (
    SELECT g.run_id, g.query_id, g.doc_id, g.weight,
        CASE WHEN g.rank IS NOT NULL
            THEN CAST(1 AS DOUBLE) - (CAST(g.rank AS DOUBLE) - 1) / g.c
            ELSE CAST(1 AS DOUBLE) / CAST(2 AS DOUBLE) - (g.n - 1) / (CAST(2 AS DOUBLE) * g.c)
        END AS score
    FROM ({@fusion_grid(rows := fusion_kept)}) AS g
    WHERE {@fusion_norm} = 'borda'
),
fusion_final AS (
    SELECT r.run_id, r.query_id, r.doc_id, r.weight, r.score, r.rank
    FROM fusion_scaled AS r
    WHERE {@fusion_norm} <> 'min-max-inverted'
    UNION ALL
    SELECT r.run_id, r.query_id, r.doc_id, r.weight, r.score,
        row_number() OVER (PARTITION BY r.run_id, r.query_id ORDER BY {@fusion_order}) AS rank
    FROM fusion_scaled AS r
    WHERE {@fusion_norm} = 'min-max-inverted'
    UNION ALL
    SELECT r.run_id, r.query_id, r.doc_id, r.weight, r.score,
        row_number() OVER (PARTITION BY r.run_id, r.query_id ORDER BY {@fusion_order}) AS rank
    FROM fusion_borda AS r
)

-- fragment: fusion_combined(method, missing, gamma, k, phi, sigma)
-- fusion_final's rows combined into one score a (query, document): fusion_fused (CTEs
-- continuing a WITH clause).
-- the score-based methods: the normalised scores, and with missing 'zero' or 'min' every
-- candidate in every run that has the query, those it lacks scored 0 or its lowest score
fusion_low AS (
    SELECT run_id, query_id, MIN(score) AS low
    FROM fusion_final
    WHERE {missing} = 'min'
    GROUP BY run_id, query_id
),
fusion_scored AS (
    SELECT query_id, doc_id, weight, score, 1 AS retrieved
    FROM fusion_final
    WHERE {missing} = 'skip'
    UNION ALL
    SELECT g.query_id, g.doc_id, g.weight,
        COALESCE(g.score, CASE WHEN {missing} = 'zero' THEN CAST(0 AS DOUBLE) ELSE lw.low END)
            AS score,
        CASE WHEN g.score IS NULL THEN 0 ELSE 1 END AS retrieved
    FROM ({@fusion_grid(rows := fusion_final)}) AS g
    LEFT JOIN fusion_low AS lw ON lw.run_id = g.run_id AND lw.query_id = g.query_id
    WHERE {missing} <> 'skip' AND {method} IN ('sum', 'max', 'min', 'med', 'anz', 'mnz', 'gmnz',
        'wsum', 'wmnz', 'mixed', 'dbsf')
),
-- the terms each method adds up (fusion_sums: in increasing order)
fusion_comb_terms AS (
    SELECT query_id, doc_id, score, retrieved,
        CASE WHEN {method} IN ('wsum', 'mixed') THEN weight * score ELSE score END AS term,
        CASE WHEN {method} = 'wmnz' AND retrieved = 1 THEN weight ELSE CAST(0 AS DOUBLE) END
            AS wterm
    FROM fusion_scored
    WHERE {method} IN ('sum', 'max', 'min', 'anz', 'mnz', 'gmnz', 'wsum', 'wmnz', 'mixed',
        'dbsf')
),
fusion_comb AS (
    SELECT query_id, doc_id,
        CASE {method}
            WHEN 'max' THEN hi
            WHEN 'min' THEN lo
            WHEN 'anz' THEN total / cnt
            WHEN 'mnz' THEN total * n
            WHEN 'gmnz' THEN total * POWER(n, {gamma})
            WHEN 'wmnz' THEN total * wtotal
            WHEN 'mixed' THEN total * SQRT(n)
            ELSE total  -- sum, wsum, dbsf
        END AS score
    FROM ({@fusion_sums(rows := fusion_comb_terms)}) AS cs
),
fusion_med_rows AS (
    SELECT query_id, doc_id, score FROM fusion_scored WHERE {method} = 'med'
),
fusion_med AS (
    {@fusion_median(rows := fusion_med_rows, value := score)}
),
-- the methods reading ranks r: sums over the runs that have the document
fusion_rank_terms AS (
    SELECT query_id, doc_id, CAST(0 AS DOUBLE) AS score, 1 AS retrieved,
        CASE {method}
            WHEN 'rrf' THEN weight / ({k} + CAST(rank AS DOUBLE))
            WHEN 'rbc' THEN (1 - {phi}) * POWER({phi}, CAST(rank AS DOUBLE) - 1)
            ELSE CAST(1 AS DOUBLE) / (CAST(rank AS DOUBLE) * CAST(rank AS DOUBLE))
        END AS term,
        CAST(0 AS DOUBLE) AS wterm
    FROM fusion_final
    WHERE {method} IN ('rrf', 'rbc', 'isr', 'log_isr', 'logn_isr')
),
fusion_rank_sums AS (
    SELECT query_id, doc_id,
        CASE {method}
            WHEN 'isr' THEN total * cnt
            WHEN 'log_isr' THEN total * LN(cnt)
            WHEN 'logn_isr' THEN total * LN(cnt + {sigma})
            ELSE total  -- rrf, rbc
        END AS score
    FROM ({@fusion_sums(rows := fusion_rank_terms)}) AS rs
),
-- over every candidate: Borda's points (c - r + 1 at rank r, (c - n + 1) / 2 where the run
-- of n lacks it) and MEDRANK's ranks (n + 1 where the run lacks it)
fusion_candidates AS (
    SELECT g.query_id, g.doc_id, g.weight, g.n, g.c, g.rank
    FROM ({@fusion_grid(rows := fusion_final)}) AS g
    WHERE {method} IN ('bordafuse', 'w_bordafuse', 'median_rank')
),
fusion_borda_points AS (
    SELECT query_id, doc_id, CAST(0 AS DOUBLE) AS score, 1 AS retrieved,
        CASE WHEN {method} = 'w_bordafuse' THEN weight ELSE CAST(1 AS DOUBLE) END
            * CASE WHEN rank IS NOT NULL THEN c - CAST(rank AS DOUBLE) + 1
                ELSE (c - n + 1) / CAST(2 AS DOUBLE) END AS term,
        CAST(0 AS DOUBLE) AS wterm
    FROM fusion_candidates
    WHERE {method} IN ('bordafuse', 'w_bordafuse')
),
fusion_borda_count AS (
    SELECT query_id, doc_id, total AS score
    FROM ({@fusion_sums(rows := fusion_borda_points)}) AS bs
),
fusion_filled_ranks AS (
    SELECT query_id, doc_id, COALESCE(CAST(rank AS DOUBLE), n + 1) AS filled
    FROM fusion_candidates
    WHERE {method} = 'median_rank'
),
fusion_medrank AS (
    SELECT query_id, doc_id, -score AS score
    FROM ({@fusion_median(rows := fusion_filled_ranks, value := filled)}) AS m
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

-- fragment: fusion_output(name, method, ties)
-- The fused run: fusion_fused ranked.
SELECT COALESCE({name}, {method}) AS run_id, r.query_id, r.doc_id, r.score,
    row_number() OVER (PARTITION BY r.query_id ORDER BY {@fusion_order}) AS rank
FROM fusion_fused AS r

-- macro: ireval_normalize(runs_table, norm: fuse_norm := 'min-max',
--     guard: fuse_guard := 'exact', ties: fuse_ties := 'trec_eval')
-- The runs with each ranking's scores normalised (polars_ireval.normalize): run_id,
-- query_id, doc_id, score, rank. norm: 'min-max', 'min-max-inverted', 'max', 'sum', 'zmuv',
-- 'rank', 'dbsf', 'borda' (over the candidates of the runs of the table) or 'none'; guard
-- 'exact' (a zero denominator normalises to 0) or 'ranx' (ranx's max(denominator, 1e-9));
-- ties: how tied scores are ranked ('trec_eval': doc_id descending, or 'doc_id_asc').
WITH {@fusion_prepared(method := 'none', depth := NULL, queries := 'union')}
SELECT run_id, query_id, doc_id, score, rank FROM fusion_final

-- raise: ireval_normalize(norm := 'max', guard := 'exact')
-- a ranking with a negative score (norm 'max' divides by the maximum)
{@fusion_negative}

-- fragment: fusion_negative()
-- The rankings with a negative score, for norm 'max' under guard 'exact'.
SELECT 'run ''' || run_id || ''' scores ' || CAST(MIN(score) AS STRING) || ' on query '''
    || query_id || '''; norm ''max'' divides by the maximum and needs scores of 0 or more: '
    || 'use norm := ''min-max'' (or guard := ''ranx'' for ranx''s arithmetic)' AS problem
FROM fusion_kept
GROUP BY run_id, query_id
HAVING MIN(score) < 0

-- macro: ireval_fuse(runs_table, method: fuse_method := 'rrf', norm: fuse_norm | NULL := NULL,
--     k: non_negative := 60, gamma: number := 1, sigma: positive := 0.01,
--     phi: open_unit_interval := 0.8, missing: fuse_missing := 'skip',
--     queries: fuse_queries := 'error', depth: positive_int | NULL := NULL,
--     ties: fuse_ties := 'trec_eval', guard: fuse_guard := 'exact', name: text | NULL := NULL)
-- The runs fused into one (polars_ireval.fuse): run_id (name, or the method), query_id,
-- doc_id, score, rank. Methods: the Comb family over the normalised scores of the runs that
-- have a document ('sum', 'max', 'min', 'med', 'anz', 'mnz', 'gmnz' with gamma), weighted
-- ('wsum', 'wmnz', 'mixed'), over ranks ('rrf' with k, weighted; 'isr', 'log_isr',
-- 'logn_isr' with sigma, 'rbc' with phi, 'bordafuse', 'w_bordafuse', 'median_rank') and
-- 'dbsf'. norm: each ranking's normalisation first (ireval_normalize; NULL: min-max, or
-- none for the methods reading ranks, dbsf's own for dbsf). missing: the score of a
-- document a run lacks in the score-based methods ('skip': no say; 'zero'; 'min': the
-- run's lowest). queries: a query not in every run fails ('error'), is fused from the
-- runs that have it ('union') or left out ('intersection'). depth: each input ranking cut
-- to its top depth first. ties: tied scores ranked by doc_id descending ('trec_eval') or
-- ascending ('doc_id_asc'), in the inputs and the fused run.
WITH {@fusion_prepared},
{@fusion_combined}
{@fusion_output}

-- raise: ireval_fuse(queries := 'error')
-- a query that some run lacks (queries := 'error')
SELECT 'query ''' || q.query_id || ''' is in ' || CAST(q.runs AS STRING) || ' of the '
    || CAST(a.runs AS STRING) || ' runs: pass queries := ''union'' (fuse each query from the '
    || 'runs that have it) or queries := ''intersection''' AS problem
FROM fusion_query_runs AS q
CROSS JOIN fusion_runs AS a
WHERE q.runs < a.runs

-- raise: ireval_fuse(norm := 'max', guard := 'exact')
-- a ranking with a negative score (norm 'max' divides by the maximum)
{@fusion_negative}
