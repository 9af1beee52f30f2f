-- Counting measures: NumQ, NumRet, NumRel, NumRelRet, num_nonrel_judged_ret.

-- macro: ireval_num_q()
SELECT run_id, query_id, CAST(1 AS DOUBLE) AS value
FROM {@pairs}

-- macro: ireval_num_ret()
SELECT run_id, query_id, CAST(num_ret AS DOUBLE) AS value
FROM {@stats}

-- macro: ireval_num_rel(rel: grade := 1)
SELECT run_id, query_id, CAST(num_rel AS DOUBLE) AS value
FROM {@stats}

-- macro: ireval_num_rel_ret(rel: grade := 1)
SELECT run_id, query_id, CAST(rel_ret AS DOUBLE) AS value
FROM {@stats}

-- macro: ireval_num_nonrel_judged_ret(rel: grade := 1)
SELECT run_id, query_id, CAST(nonrel_ret AS DOUBLE) AS value
FROM {@stats}
