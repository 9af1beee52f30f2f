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
