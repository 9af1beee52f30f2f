-- Set measures over the whole retrieved set: SetP, SetR, set_relative_P, SetAP, SetF(beta).

-- macro: ireval_set_p(rel: integer := 1)
SELECT run_id, query_id,
    CASE WHEN num_ret > 0 THEN CAST(rel_ret AS DOUBLE) / CAST(num_ret AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM {@stats}

-- macro: ireval_set_r(rel: integer := 1)
SELECT run_id, query_id,
    CASE WHEN num_rel > 0 THEN CAST(rel_ret AS DOUBLE) / CAST(num_rel AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM {@stats}

-- macro: ireval_set_relative_p(rel: integer := 1)
SELECT run_id, query_id,
    CASE WHEN num_ret > 0 AND num_rel > 0 THEN CAST(rel_ret AS DOUBLE)
        / CAST(CASE WHEN num_ret < num_rel THEN num_ret ELSE num_rel END AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM {@stats}

-- macro: ireval_set_ap(rel: integer := 1)
-- set_map: rel_ret^2 / (num_ret * num_rel) in one division, as trec_eval computes it.
SELECT run_id, query_id,
    CASE WHEN num_ret > 0 AND num_rel > 0
        THEN CAST(rel_ret AS DOUBLE) * CAST(rel_ret AS DOUBLE)
            / (CAST(num_ret AS DOUBLE) * CAST(num_rel AS DOUBLE))
    ELSE CAST(0 AS DOUBLE) END AS value
FROM {@stats}

-- macro: ireval_set_f(beta: non_negative := 1, rel: integer := 1)
-- SetF: (1 + beta) P R / (beta P + R), trec_eval's set_F.x (beta not squared),
-- 0 when the denominator is 0.
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
        CAST({beta} AS DOUBLE) AS b2
    FROM {@stats}
) AS pr
