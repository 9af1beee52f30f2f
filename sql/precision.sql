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
