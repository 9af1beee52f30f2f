-- Set measures over the whole retrieved set: SetP, SetR, set_relative_P, SetAP, SetF(beta),
-- and, with the collection size, SetAccuracy and Fallout.

-- macro: ireval_set_p(rel: grade := 1)
SELECT run_id, query_id,
    CASE WHEN num_ret > 0 THEN CAST(rel_ret AS DOUBLE) / CAST(num_ret AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM {@stats}

-- macro: ireval_set_r(rel: grade := 1)
SELECT run_id, query_id,
    CASE WHEN num_rel > 0 THEN CAST(rel_ret AS DOUBLE) / CAST(num_rel AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM {@stats}

-- macro: ireval_set_relative_p(rel: grade := 1)
SELECT run_id, query_id,
    CASE WHEN num_ret > 0 AND num_rel > 0 THEN CAST(rel_ret AS DOUBLE)
        / CAST(CASE WHEN num_ret < num_rel THEN num_ret ELSE num_rel END AS DOUBLE)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM {@stats}

-- macro: ireval_set_ap(rel: grade := 1)
-- set_map: rel_ret^2 / (num_ret * num_rel) in one division, as trec_eval computes it.
SELECT run_id, query_id,
    CASE WHEN num_ret > 0 AND num_rel > 0
        THEN CAST(rel_ret AS DOUBLE) * CAST(rel_ret AS DOUBLE)
            / (CAST(num_ret AS DOUBLE) * CAST(num_rel AS DOUBLE))
    ELSE CAST(0 AS DOUBLE) END AS value
FROM {@stats}

-- macro: ireval_set_f(beta: non_negative := 1, rel: grade := 1,
--     f_beta: non_negative | NULL := NULL)
--     where beta_or_f_beta
-- SetF: (1 + w) P R / (w P + R), 0 when the denominator is 0; w = beta, trec_eval's set_F.x
-- (not squared), or f_beta * f_beta (van Rijsbergen's beta, seed 003) when f_beta is given.
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
        CAST(COALESCE({f_beta} * {f_beta}, {beta}) AS DOUBLE) AS b2
    FROM {@stats}
) AS pr

-- macro: ireval_set_accuracy(num_docs: positive_int, k: positive_int | NULL := NULL,
--     rel: grade := 1)
-- SetAccuracy: (TP + TN) / N of the top k (the whole ranking when k is NULL) in a
-- collection of num_docs documents; NaN when num_docs is smaller than the documents
-- retrieved or judged for the query.
SELECT run_id, query_id,
    CASE WHEN docs <= {num_docs}
        THEN (tp + (CAST({num_docs} AS DOUBLE) - ret - r + tp)) / CAST({num_docs} AS DOUBLE)
    ELSE CAST('NaN' AS DOUBLE) END AS value
FROM {@confusion}

-- macro: ireval_fallout(num_docs: positive_int, k: positive_int | NULL := NULL,
--     rel: grade := 1)
-- Fallout: FP / (FP + TN) = (retrieved - TP) / (num_docs - R) of the top k (the whole
-- ranking when k is NULL), 0 when num_docs = R; NaN when num_docs is smaller than the
-- documents retrieved or judged for the query.
SELECT run_id, query_id,
    CASE WHEN docs > {num_docs} THEN CAST('NaN' AS DOUBLE)
    WHEN CAST({num_docs} AS DOUBLE) - r > 0
        THEN (ret - tp) / (CAST({num_docs} AS DOUBLE) - r)
    ELSE CAST(0 AS DOUBLE) END AS value
FROM {@confusion}

-- fragment: confusion(k := NULL, rel := 1)
-- Per (run_id, query_id): TP and the retrieved documents of the top k, R, and the
-- documents retrieved (at any depth) or judged, as doubles.
(
    SELECT run_id, query_id,
        CAST(SUM(CASE WHEN rank IS NOT NULL AND ({k} IS NULL OR rank <= {k})
            AND relevance IS NOT NULL AND relevance >= {rel} THEN 1 ELSE 0 END) AS DOUBLE) AS tp,
        CAST(SUM(CASE WHEN rank IS NOT NULL AND ({k} IS NULL OR rank <= {k})
            THEN 1 ELSE 0 END) AS DOUBLE) AS ret,
        CAST(SUM(CASE WHEN relevance IS NOT NULL AND relevance >= {rel}
            THEN 1 ELSE 0 END) AS DOUBLE) AS r,
        COUNT(*) AS docs
    FROM {eval_table}
    GROUP BY run_id, query_id
)
