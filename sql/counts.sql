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
