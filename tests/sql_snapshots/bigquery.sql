-- polars_ireval SQL for bigquery: the evaluation table, then one query per measure.

CREATE TABLE `evaluation` AS
WITH run AS (
  SELECT
    COALESCE(SAFE_CAST(run_id AS STRING), '') AS run_id,
    SAFE_CAST(query_id AS STRING) AS query_id,
    SAFE_CAST(doc_id AS STRING) AS doc_id,
    SAFE_CAST(score AS FLOAT64) + SAFE_CAST(0 AS FLOAT64) AS score,
    SAFE_CAST(input_rank AS FLOAT64) AS input_rank,
    SAFE_CAST(input_order AS INT64) AS input_order
  FROM (
    SELECT
      run_id,
      query_id,
      doc_id,
      score,
      SAFE_CAST(NULL AS FLOAT64) AS input_rank,
      SAFE_CAST(NULL AS INT64) AS input_order
    FROM `run`
  ) AS src
), qrels AS (
  SELECT
    SAFE_CAST(query_id AS STRING) AS query_id,
    SAFE_CAST(doc_id AS STRING) AS doc_id,
    SAFE_CAST(relevance AS INT64) AS relevance
  FROM (
    SELECT
      query_id,
      doc_id,
      relevance
    FROM `qrels`
  ) AS srq
), judged_queries AS (
  SELECT DISTINCT
    query_id
  FROM qrels
), present AS (
  SELECT DISTINCT
    run_id,
    query_id
  FROM run
), pairs AS (
  SELECT
    pr.run_id,
    pr.query_id
  FROM present AS pr
  JOIN judged_queries AS jq
    ON pr.query_id = jq.query_id
  WHERE
    'skip' <> 'zero'
  UNION ALL
  SELECT
    ru.run_id,
    jq.query_id
  FROM (
    SELECT DISTINCT
      run_id
    FROM present
  ) AS ru
  CROSS JOIN judged_queries AS jq
  WHERE
    'skip' = 'zero'
), hits /* rank_by := 'count' with unjudged := FALSE: the retrieved documents their query judges, */ /* each ranked by counting the documents of its ranking at or ahead of it (no sort) */ AS (
  SELECT
    r.run_id,
    r.query_id,
    r.doc_id,
    r.score,
    r.input_rank,
    r.input_order
  FROM run AS r
  JOIN qrels AS q
    ON q.query_id = r.query_id AND q.doc_id = r.doc_id
  /* length(...) >= 0 is always true (the join leaves no null doc_id), but an optimizer */
  /* without statistics then estimates the hits below the run and builds the next join's */
  /* hash table on them (thousands of rows) instead of on the run (millions): DuckDB's */
  /* judge twice as fast on MS MARCO-like qrels */
  WHERE
    'window' = 'count' AND NOT TRUE AND LENGTH(q.doc_id) >= 0
), counted AS (
  SELECT
    h.run_id,
    h.query_id,
    h.doc_id,
    h.score,
    SUM(
      CASE
        WHEN 'trec_eval' = 'rank'
        THEN CASE
          WHEN r.input_rank < h.input_rank
          THEN 1
          WHEN r.input_rank = h.input_rank
          AND SAFE_CAST(r.doc_id AS BYTES) >= SAFE_CAST(h.doc_id AS BYTES)
          THEN 1
          ELSE 0
        END
        WHEN r.score > h.score
        THEN 1
        WHEN r.score < h.score
        THEN 0 /* (left out by the join already) */
        WHEN 'trec_eval' = 'trec_eval'
        THEN CASE
          WHEN SAFE_CAST(r.doc_id AS BYTES) >= SAFE_CAST(h.doc_id AS BYTES)
          THEN 1
          ELSE 0
        END
        WHEN 'trec_eval' = 'doc_id_asc'
        THEN CASE
          WHEN SAFE_CAST(r.doc_id AS BYTES) <= SAFE_CAST(h.doc_id AS BYTES)
          THEN 1
          ELSE 0
        END
        WHEN r.input_order <= h.input_order
        THEN 1
        ELSE 0
      END
    ) AS rank
  FROM hits AS h
  /* only the documents at or above the hit's score can be ahead of it (but by input_rank) */
  JOIN run AS r
    ON r.run_id = h.run_id
    AND r.query_id = h.query_id
    AND (
      'trec_eval' = 'rank' OR r.score >= h.score
    )
  GROUP BY
    h.run_id,
    h.query_id,
    h.doc_id,
    h.score
), ranked /* rank_by := 'window': one branch per tie policy, the others pruned (their filter is a false */ /* constant) */ AS (
  SELECT
    r.run_id,
    r.query_id,
    r.doc_id,
    r.score,
    ROW_NUMBER() OVER (
      PARTITION BY r.run_id, r.query_id
      ORDER BY r.score DESC, SAFE_CAST(r.doc_id AS BYTES) DESC
    ) AS rank
  FROM run AS r
  WHERE
    'trec_eval' = 'trec_eval'
    AND (
      'window' <> 'count' OR TRUE
    )
    AND r.query_id IN (
      SELECT
        query_id
      FROM judged_queries
    )
  UNION ALL
  SELECT
    r.run_id,
    r.query_id,
    r.doc_id,
    r.score,
    ROW_NUMBER() OVER (
      PARTITION BY r.run_id, r.query_id
      ORDER BY r.score DESC, SAFE_CAST(r.doc_id AS BYTES) ASC
    ) AS rank
  FROM run AS r
  WHERE
    'trec_eval' = 'doc_id_asc'
    AND (
      'window' <> 'count' OR TRUE
    )
    AND r.query_id IN (
      SELECT
        query_id
      FROM judged_queries
    )
  UNION ALL
  SELECT
    r.run_id,
    r.query_id,
    r.doc_id,
    r.score,
    ROW_NUMBER() OVER (PARTITION BY r.run_id, r.query_id ORDER BY r.score DESC, r.input_order ASC) AS rank
  FROM run AS r
  WHERE
    'trec_eval' = 'input_order'
    AND (
      'window' <> 'count' OR TRUE
    )
    AND r.query_id IN (
      SELECT
        query_id
      FROM judged_queries
    )
  UNION ALL
  SELECT
    r.run_id,
    r.query_id,
    r.doc_id,
    r.score,
    ROW_NUMBER() OVER (
      PARTITION BY r.run_id, r.query_id
      ORDER BY r.input_rank ASC, SAFE_CAST(r.doc_id AS BYTES) DESC
    ) AS rank
  FROM run AS r
  WHERE
    'trec_eval' = 'rank'
    AND (
      'window' <> 'count' OR TRUE
    )
    AND r.query_id IN (
      SELECT
        query_id
      FROM judged_queries
    )
  UNION ALL
  SELECT
    run_id,
    query_id,
    doc_id,
    score,
    rank
  FROM counted
), cut /* unjudged := FALSE: only the ranked documents some query judges meet the qrels */ AS (
  SELECT
    run_id,
    query_id,
    doc_id,
    score,
    rank
  FROM ranked
  WHERE
    (
      NULL IS NULL OR rank <= NULL
    )
    AND (
      TRUE OR TRUE OR doc_id IN (
        SELECT
          doc_id
        FROM qrels
      )
    )
), judged AS (
  SELECT
    pa.run_id,
    q.query_id,
    q.doc_id,
    q.relevance
  FROM pairs AS pa
  JOIN qrels AS q
    ON pa.query_id = q.query_id
), found /* unjudged := FALSE on an engine that merges by grouping (Spark, see JUDGED_BY_GROUP in */ /* polars_ireval.sql.templates): the judged rows alone, the retrieved ones with their score */ /* and rank, merged by grouping on run, query and document instead of the outer join below */ AS (
  SELECT
    c.run_id,
    c.query_id,
    c.doc_id,
    c.score,
    c.rank,
    q.relevance
  FROM ranked AS c
  JOIN qrels AS q
    ON q.query_id = c.query_id AND q.doc_id = c.doc_id
  WHERE
    NOT TRUE AND TRUE AND (
      NULL IS NULL OR c.rank <= NULL
    )
), merged AS (
  SELECT
    run_id,
    query_id,
    doc_id,
    MAX(score) AS score,
    MAX(rank) AS rank,
    MAX(relevance) AS relevance
  FROM (
    SELECT
      run_id,
      query_id,
      doc_id,
      score,
      rank,
      relevance
    FROM found
    UNION ALL
    SELECT
      run_id,
      query_id,
      doc_id,
      SAFE_CAST(NULL AS FLOAT64) AS score,
      SAFE_CAST(NULL AS INT64) AS rank,
      relevance
    FROM judged
    WHERE
      NOT TRUE AND TRUE
  ) AS u
  GROUP BY
    run_id,
    query_id,
    doc_id
), joined AS (
  SELECT
    COALESCE(c.run_id, j.run_id) AS run_id,
    COALESCE(c.query_id, j.query_id) AS query_id,
    COALESCE(c.doc_id, j.doc_id) AS doc_id,
    c.score AS score,
    c.rank AS rank,
    j.relevance AS relevance,
    CASE
      WHEN NOT c.rank IS NULL AND NOT j.relevance IS NULL AND j.relevance >= 0
      THEN 1
      ELSE 0
    END AS kept
  FROM cut AS c
  FULL OUTER JOIN judged AS j
    ON c.run_id = j.run_id AND c.query_id = j.query_id AND c.doc_id = j.doc_id
  WHERE
    TRUE OR NOT TRUE
  UNION ALL
  SELECT
    run_id,
    query_id,
    doc_id,
    score,
    rank,
    relevance,
    CASE WHEN NOT rank IS NULL AND relevance >= 0 THEN 1 ELSE 0 END AS kept
  FROM merged
)
SELECT
  run_id,
  query_id,
  doc_id,
  score,
  rank,
  relevance
FROM joined
WHERE
  NOT FALSE AND (
    TRUE OR NOT relevance IS NULL
  )
UNION ALL
SELECT
  run_id,
  query_id,
  doc_id,
  CASE WHEN kept = 1 THEN score END AS score,
  CASE
    WHEN kept = 1
    THEN SUM(kept) OVER (
      PARTITION BY run_id, query_id
      ORDER BY rank
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    )
  END AS rank,
  relevance
FROM joined
WHERE
  FALSE AND (
    rank IS NULL OR NOT relevance IS NULL
  );

-- measure: P@10
SELECT
  m.run_id,
  m.query_id,
  m.value
FROM (
  SELECT
    run_id,
    query_id,
    SAFE_CAST(rel_ret_k AS FLOAT64) / NULLIF(SAFE_CAST(10 AS FLOAT64), 0) AS value,
    SAFE_CAST(unknown_k + (
      10 - num_ret_k
    ) AS FLOAT64) * (
      SAFE_CAST(1 AS FLOAT64) / NULLIF(SAFE_CAST(10 AS FLOAT64), 0)
    ) AS residual,
    SAFE_CAST(1 AS FLOAT64) / NULLIF((
      SAFE_CAST(1 AS FLOAT64) / NULLIF(SAFE_CAST(10 AS FLOAT64), 0)
    ), 0) AS depth
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
      SUM(CASE WHEN is_ret_k = 1 AND NOT relevance IS NULL THEN 1 ELSE 0 END) AS judged_k,
      SUM(
        CASE
          WHEN is_ret_k = 1 AND (
            relevance IS NULL OR relevance < 0
          )
          THEN 1
          ELSE 0
        END
      ) AS unjudged_k,
      SUM(CASE WHEN is_ret_k = 1 AND relevance IS NULL THEN 1 ELSE 0 END) AS unknown_k,
      MIN(CASE WHEN is_ret_k = 1 AND is_rel = 1 THEN rank END) AS first_rel_k
    FROM (
      SELECT
        run_id,
        query_id,
        rank,
        relevance,
        CASE WHEN NOT rank IS NULL THEN 1 ELSE 0 END AS is_ret,
        CASE WHEN NOT rank IS NULL AND (
          10 IS NULL OR rank <= 10
        ) THEN 1 ELSE 0 END AS is_ret_k,
        CASE WHEN NOT relevance IS NULL AND relevance >= 1 THEN 1 ELSE 0 END AS is_rel,
        CASE
          WHEN NOT relevance IS NULL AND relevance >= 0 AND relevance < 1
          THEN 1
          ELSE 0
        END AS is_nonrel
      FROM `evaluation`
    ) AS f
    GROUP BY
      run_id,
      query_id
  )
) AS m;

-- measure: R@100
SELECT
  m.run_id,
  m.query_id,
  m.value
FROM (
  SELECT
    run_id,
    query_id,
    CASE
      WHEN num_rel > 0
      THEN SAFE_CAST(rel_ret_k AS FLOAT64) / NULLIF(SAFE_CAST(num_rel AS FLOAT64), 0)
      ELSE SAFE_CAST(0 AS FLOAT64)
    END AS value
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
      SUM(CASE WHEN is_ret_k = 1 AND NOT relevance IS NULL THEN 1 ELSE 0 END) AS judged_k,
      SUM(
        CASE
          WHEN is_ret_k = 1 AND (
            relevance IS NULL OR relevance < 0
          )
          THEN 1
          ELSE 0
        END
      ) AS unjudged_k,
      SUM(CASE WHEN is_ret_k = 1 AND relevance IS NULL THEN 1 ELSE 0 END) AS unknown_k,
      MIN(CASE WHEN is_ret_k = 1 AND is_rel = 1 THEN rank END) AS first_rel_k
    FROM (
      SELECT
        run_id,
        query_id,
        rank,
        relevance,
        CASE WHEN NOT rank IS NULL THEN 1 ELSE 0 END AS is_ret,
        CASE WHEN NOT rank IS NULL AND (
          100 IS NULL OR rank <= 100
        ) THEN 1 ELSE 0 END AS is_ret_k,
        CASE WHEN NOT relevance IS NULL AND relevance >= 1 THEN 1 ELSE 0 END AS is_rel,
        CASE
          WHEN NOT relevance IS NULL AND relevance >= 0 AND relevance < 1
          THEN 1
          ELSE 0
        END AS is_nonrel
      FROM `evaluation`
    ) AS f
    GROUP BY
      run_id,
      query_id
  )
) AS m;

-- measure: AP
SELECT
  m.run_id,
  m.query_id,
  m.value
FROM (
  WITH hits AS (
    SELECT
      run_id,
      query_id,
      rank,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank) AS i
    FROM `evaluation`
    WHERE
      NOT rank IS NULL
      AND (
        NULL IS NULL OR rank <= NULL
      )
      AND NOT relevance IS NULL
      AND relevance >= 1
  ), running AS (
    SELECT
      run_id,
      query_id,
      SUM(SAFE_CAST(i AS FLOAT64) / NULLIF(SAFE_CAST(rank AS FLOAT64), 0)) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM hits
  )
  SELECT
    s.run_id,
    s.query_id,
    CASE
      WHEN s.num_rel > 0
      THEN COALESCE(x.total, SAFE_CAST(0 AS FLOAT64)) / NULLIF(SAFE_CAST(s.num_rel AS FLOAT64), 0)
      ELSE SAFE_CAST(0 AS FLOAT64)
    END AS value
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
      SUM(CASE WHEN is_ret_k = 1 AND NOT relevance IS NULL THEN 1 ELSE 0 END) AS judged_k,
      SUM(
        CASE
          WHEN is_ret_k = 1 AND (
            relevance IS NULL OR relevance < 0
          )
          THEN 1
          ELSE 0
        END
      ) AS unjudged_k,
      SUM(CASE WHEN is_ret_k = 1 AND relevance IS NULL THEN 1 ELSE 0 END) AS unknown_k,
      MIN(CASE WHEN is_ret_k = 1 AND is_rel = 1 THEN rank END) AS first_rel_k
    FROM (
      SELECT
        run_id,
        query_id,
        rank,
        relevance,
        CASE WHEN NOT rank IS NULL THEN 1 ELSE 0 END AS is_ret,
        CASE WHEN NOT rank IS NULL AND (
          NULL IS NULL OR rank <= NULL
        ) THEN 1 ELSE 0 END AS is_ret_k,
        CASE WHEN NOT relevance IS NULL AND relevance >= 1 THEN 1 ELSE 0 END AS is_rel,
        CASE
          WHEN NOT relevance IS NULL AND relevance >= 0 AND relevance < 1
          THEN 1
          ELSE 0
        END AS is_nonrel
      FROM `evaluation`
    ) AS f
    GROUP BY
      run_id,
      query_id
  ) AS s
  LEFT JOIN running AS x
    ON x.run_id = s.run_id AND x.query_id = s.query_id AND x.from_end = 1
) AS m;

-- measure: nDCG@10
SELECT
  m.run_id,
  m.query_id,
  m.value
FROM (
  WITH g AS (
    SELECT
      *
    FROM (
      SELECT
        run_id,
        query_id,
        rank,
        relevance,
        CASE
          WHEN 'log2' = 'exp-log2'
          THEN POWER(SAFE_CAST(2 AS FLOAT64), grade) - SAFE_CAST(1 AS FLOAT64)
          ELSE grade
        END AS gain
      FROM (
        SELECT
          run_id,
          query_id,
          rank,
          relevance,
          CASE
            WHEN relevance IS NULL OR relevance < 0
            THEN SAFE_CAST(0 AS FLOAT64)
            WHEN '' = ''
            THEN SAFE_CAST(relevance AS FLOAT64)
            ELSE COALESCE(
              CASE
                WHEN '' = '' OR INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') = 0
                THEN SAFE_CAST(NULL AS FLOAT64)
                ELSE SAFE_CAST(NULLIF(
                  SUBSTRING(
                    SUBSTRING(
                      '',
                      INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') + LENGTH(SAFE_CAST(relevance AS STRING)) + 2
                    ),
                    1,
                    INSTR(
                      SUBSTRING(
                        '',
                        INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') + LENGTH(SAFE_CAST(relevance AS STRING)) + 2
                      ),
                      ','
                    ) - 1
                  ),
                  ''
                ) AS FLOAT64)
              END,
              SAFE_CAST(relevance AS FLOAT64)
            )
          END AS grade
        FROM `evaluation`
      ) AS gr
    ) AS g0
  ), ranked AS (
    SELECT
      run_id,
      query_id,
      SUM(gain / NULLIF(LOG(SAFE_CAST(rank AS FLOAT64) + SAFE_CAST(1 AS FLOAT64), 2), 0)) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS cum_dcg,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM g
    WHERE
      NOT rank IS NULL
      AND (
        10 IS NULL OR rank <= 10
      )
      AND gain <> SAFE_CAST(0 AS FLOAT64)
  ), ideal_pos AS (
    SELECT
      run_id,
      query_id,
      gain,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY gain DESC) AS pos
    FROM g
    WHERE
      gain > SAFE_CAST(0 AS FLOAT64)
  ), ideal AS (
    SELECT
      run_id,
      query_id,
      SUM(gain / NULLIF(LOG(SAFE_CAST(pos AS FLOAT64) + SAFE_CAST(1 AS FLOAT64), 2), 0)) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS idcg,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY pos DESC) AS from_end
    FROM ideal_pos
    WHERE
      10 IS NULL OR pos <= 10
  ), pairs AS (
    SELECT DISTINCT
      run_id,
      query_id
    FROM g
  )
  SELECT
    pa.run_id,
    pa.query_id,
    CASE
      WHEN i.idcg > SAFE_CAST(0 AS FLOAT64)
      THEN COALESCE(d.cum_dcg, SAFE_CAST(0 AS FLOAT64)) / NULLIF(i.idcg, 0)
      ELSE SAFE_CAST(0 AS FLOAT64)
    END AS value
  FROM pairs AS pa
  LEFT JOIN ranked AS d
    ON d.run_id = pa.run_id AND d.query_id = pa.query_id AND d.from_end = 1
  LEFT JOIN ideal AS i
    ON i.run_id = pa.run_id AND i.query_id = pa.query_id AND i.from_end = 1
) AS m;

-- measure: nDCG(dcg='exp-log2')@10
SELECT
  m.run_id,
  m.query_id,
  m.value
FROM (
  WITH g AS (
    SELECT
      *
    FROM (
      SELECT
        run_id,
        query_id,
        rank,
        relevance,
        CASE
          WHEN 'exp-log2' = 'exp-log2'
          THEN POWER(SAFE_CAST(2 AS FLOAT64), grade) - SAFE_CAST(1 AS FLOAT64)
          ELSE grade
        END AS gain
      FROM (
        SELECT
          run_id,
          query_id,
          rank,
          relevance,
          CASE
            WHEN relevance IS NULL OR relevance < 0
            THEN SAFE_CAST(0 AS FLOAT64)
            WHEN '' = ''
            THEN SAFE_CAST(relevance AS FLOAT64)
            ELSE COALESCE(
              CASE
                WHEN '' = '' OR INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') = 0
                THEN SAFE_CAST(NULL AS FLOAT64)
                ELSE SAFE_CAST(NULLIF(
                  SUBSTRING(
                    SUBSTRING(
                      '',
                      INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') + LENGTH(SAFE_CAST(relevance AS STRING)) + 2
                    ),
                    1,
                    INSTR(
                      SUBSTRING(
                        '',
                        INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') + LENGTH(SAFE_CAST(relevance AS STRING)) + 2
                      ),
                      ','
                    ) - 1
                  ),
                  ''
                ) AS FLOAT64)
              END,
              SAFE_CAST(relevance AS FLOAT64)
            )
          END AS grade
        FROM `evaluation`
      ) AS gr
    ) AS g0
  ), ranked AS (
    SELECT
      run_id,
      query_id,
      SUM(gain / NULLIF(LOG(SAFE_CAST(rank AS FLOAT64) + SAFE_CAST(1 AS FLOAT64), 2), 0)) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS cum_dcg,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM g
    WHERE
      NOT rank IS NULL
      AND (
        10 IS NULL OR rank <= 10
      )
      AND gain <> SAFE_CAST(0 AS FLOAT64)
  ), ideal_pos AS (
    SELECT
      run_id,
      query_id,
      gain,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY gain DESC) AS pos
    FROM g
    WHERE
      gain > SAFE_CAST(0 AS FLOAT64)
  ), ideal AS (
    SELECT
      run_id,
      query_id,
      SUM(gain / NULLIF(LOG(SAFE_CAST(pos AS FLOAT64) + SAFE_CAST(1 AS FLOAT64), 2), 0)) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS idcg,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY pos DESC) AS from_end
    FROM ideal_pos
    WHERE
      10 IS NULL OR pos <= 10
  ), pairs AS (
    SELECT DISTINCT
      run_id,
      query_id
    FROM g
  )
  SELECT
    pa.run_id,
    pa.query_id,
    CASE
      WHEN i.idcg > SAFE_CAST(0 AS FLOAT64)
      THEN COALESCE(d.cum_dcg, SAFE_CAST(0 AS FLOAT64)) / NULLIF(i.idcg, 0)
      ELSE SAFE_CAST(0 AS FLOAT64)
    END AS value
  FROM pairs AS pa
  LEFT JOIN ranked AS d
    ON d.run_id = pa.run_id AND d.query_id = pa.query_id AND d.from_end = 1
  LEFT JOIN ideal AS i
    ON i.run_id = pa.run_id AND i.query_id = pa.query_id AND i.from_end = 1
) AS m;

-- measure: RR
SELECT
  m.run_id,
  m.query_id,
  m.value
FROM (
  SELECT
    run_id,
    query_id,
    CASE
      WHEN first_rel_k IS NULL
      THEN SAFE_CAST(0 AS FLOAT64)
      ELSE SAFE_CAST(1 AS FLOAT64) / NULLIF(SAFE_CAST(first_rel_k AS FLOAT64), 0)
    END AS value
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
      SUM(CASE WHEN is_ret_k = 1 AND NOT relevance IS NULL THEN 1 ELSE 0 END) AS judged_k,
      SUM(
        CASE
          WHEN is_ret_k = 1 AND (
            relevance IS NULL OR relevance < 0
          )
          THEN 1
          ELSE 0
        END
      ) AS unjudged_k,
      SUM(CASE WHEN is_ret_k = 1 AND relevance IS NULL THEN 1 ELSE 0 END) AS unknown_k,
      MIN(CASE WHEN is_ret_k = 1 AND is_rel = 1 THEN rank END) AS first_rel_k
    FROM (
      SELECT
        run_id,
        query_id,
        rank,
        relevance,
        CASE WHEN NOT rank IS NULL THEN 1 ELSE 0 END AS is_ret,
        CASE WHEN NOT rank IS NULL AND (
          NULL IS NULL OR rank <= NULL
        ) THEN 1 ELSE 0 END AS is_ret_k,
        CASE WHEN NOT relevance IS NULL AND relevance >= 1 THEN 1 ELSE 0 END AS is_rel,
        CASE
          WHEN NOT relevance IS NULL AND relevance >= 0 AND relevance < 1
          THEN 1
          ELSE 0
        END AS is_nonrel
      FROM `evaluation`
    ) AS f
    GROUP BY
      run_id,
      query_id
  )
) AS m;

-- measure: Bpref
SELECT
  m.run_id,
  m.query_id,
  m.value
FROM (
  WITH t AS (
    SELECT
      run_id,
      query_id,
      rank,
      CASE WHEN NOT relevance IS NULL AND relevance >= 1 THEN 1 ELSE 0 END AS is_rel,
      CASE
        WHEN NOT relevance IS NULL AND relevance >= 0 AND relevance < 1
        THEN 1
        ELSE 0
      END AS is_nonrel
    FROM `evaluation`
    WHERE
      NOT rank IS NULL
  ), above AS (
    SELECT
      run_id,
      query_id,
      rank,
      is_rel,
      SUM(is_nonrel) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS n_above
    FROM t
  ), st AS (
    SELECT
      *
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
        SUM(CASE WHEN is_ret_k = 1 AND NOT relevance IS NULL THEN 1 ELSE 0 END) AS judged_k,
        SUM(
          CASE
            WHEN is_ret_k = 1 AND (
              relevance IS NULL OR relevance < 0
            )
            THEN 1
            ELSE 0
          END
        ) AS unjudged_k,
        SUM(CASE WHEN is_ret_k = 1 AND relevance IS NULL THEN 1 ELSE 0 END) AS unknown_k,
        MIN(CASE WHEN is_ret_k = 1 AND is_rel = 1 THEN rank END) AS first_rel_k
      FROM (
        SELECT
          run_id,
          query_id,
          rank,
          relevance,
          CASE WHEN NOT rank IS NULL THEN 1 ELSE 0 END AS is_ret,
          CASE WHEN NOT rank IS NULL AND (
            NULL IS NULL OR rank <= NULL
          ) THEN 1 ELSE 0 END AS is_ret_k,
          CASE WHEN NOT relevance IS NULL AND relevance >= 1 THEN 1 ELSE 0 END AS is_rel,
          CASE
            WHEN NOT relevance IS NULL AND relevance >= 0 AND relevance < 1
            THEN 1
            ELSE 0
          END AS is_nonrel
        FROM `evaluation`
      ) AS f
      GROUP BY
        run_id,
        query_id
    ) AS s0
  ), terms AS (
    SELECT
      a.run_id,
      a.query_id,
      a.rank,
      CASE
        WHEN a.n_above > 0
        THEN SAFE_CAST(1 AS FLOAT64) - SAFE_CAST(CASE WHEN a.n_above < s.num_rel THEN a.n_above ELSE s.num_rel END AS FLOAT64) / NULLIF(
          SAFE_CAST(CASE WHEN s.num_nonrel < s.num_rel THEN s.num_nonrel ELSE s.num_rel END AS FLOAT64),
          0
        )
        ELSE SAFE_CAST(1 AS FLOAT64)
      END AS term
    FROM above AS a
    JOIN st AS s
      ON a.run_id = s.run_id AND a.query_id = s.query_id
    WHERE
      a.is_rel = 1
  ), running AS (
    SELECT
      run_id,
      query_id,
      SUM(term) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM terms
  )
  SELECT
    s.run_id,
    s.query_id,
    CASE
      WHEN s.num_rel > 0
      THEN COALESCE(x.total, SAFE_CAST(0 AS FLOAT64)) / NULLIF(SAFE_CAST(s.num_rel AS FLOAT64), 0)
      ELSE SAFE_CAST(0 AS FLOAT64)
    END AS value
  FROM st AS s
  LEFT JOIN running AS x
    ON x.run_id = s.run_id AND x.query_id = s.query_id AND x.from_end = 1
) AS m;

-- measure: infAP
SELECT
  m.run_id,
  m.query_id,
  m.value
FROM (
  WITH t AS (
    SELECT
      run_id,
      query_id,
      rank,
      CASE WHEN NOT relevance IS NULL AND relevance >= 1 THEN 1 ELSE 0 END AS is_rel,
      CASE
        WHEN NOT relevance IS NULL AND relevance >= 0 AND relevance < 1
        THEN 1
        ELSE 0
      END AS is_nonrel,
      CASE WHEN NOT relevance IS NULL THEN 1 ELSE 0 END AS is_pooled
    FROM `evaluation`
    WHERE
      NOT rank IS NULL
  ), cum AS (
    SELECT
      run_id,
      query_id,
      rank,
      is_rel,
      SUM(is_rel) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS c_rel,
      SUM(is_nonrel) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS c_nonrel,
      SUM(is_pooled) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS c_pooled
    FROM t
  ), parts AS (
    SELECT
      run_id,
      query_id,
      rank,
      SAFE_CAST(rank AS FLOAT64) AS i,
      SAFE_CAST(rank AS FLOAT64) - SAFE_CAST(1 AS FLOAT64) AS j,
      SAFE_CAST(c_rel AS FLOAT64) - SAFE_CAST(1 AS FLOAT64) AS r,
      SAFE_CAST(c_nonrel AS FLOAT64) AS n,
      SAFE_CAST(c_pooled - 1 AS FLOAT64) AS pooled,
      SAFE_CAST(1 AS FLOAT64) / NULLIF(SAFE_CAST(100000 AS FLOAT64), 0) AS eps
    FROM cum
    WHERE
      is_rel = 1
  ), running AS (
    SELECT
      run_id,
      query_id,
      SUM(
        CASE
          WHEN j = SAFE_CAST(0 AS FLOAT64)
          THEN SAFE_CAST(1 AS FLOAT64)
          ELSE SAFE_CAST(1 AS FLOAT64) / NULLIF(i, 0) + (
            j / NULLIF(i, 0)
          ) * (
            pooled / NULLIF(j, 0)
          ) * (
            (
              r + eps
            ) / NULLIF((
              r + n + SAFE_CAST(2 AS FLOAT64) * eps
            ), 0)
          )
        END
      ) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM parts
  )
  SELECT
    s.run_id,
    s.query_id,
    CASE
      WHEN s.num_rel > 0
      THEN COALESCE(x.total, SAFE_CAST(0 AS FLOAT64)) / NULLIF(SAFE_CAST(s.num_rel AS FLOAT64), 0)
      ELSE SAFE_CAST(0 AS FLOAT64)
    END AS value
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
      SUM(CASE WHEN is_ret_k = 1 AND NOT relevance IS NULL THEN 1 ELSE 0 END) AS judged_k,
      SUM(
        CASE
          WHEN is_ret_k = 1 AND (
            relevance IS NULL OR relevance < 0
          )
          THEN 1
          ELSE 0
        END
      ) AS unjudged_k,
      SUM(CASE WHEN is_ret_k = 1 AND relevance IS NULL THEN 1 ELSE 0 END) AS unknown_k,
      MIN(CASE WHEN is_ret_k = 1 AND is_rel = 1 THEN rank END) AS first_rel_k
    FROM (
      SELECT
        run_id,
        query_id,
        rank,
        relevance,
        CASE WHEN NOT rank IS NULL THEN 1 ELSE 0 END AS is_ret,
        CASE WHEN NOT rank IS NULL AND (
          NULL IS NULL OR rank <= NULL
        ) THEN 1 ELSE 0 END AS is_ret_k,
        CASE WHEN NOT relevance IS NULL AND relevance >= 1 THEN 1 ELSE 0 END AS is_rel,
        CASE
          WHEN NOT relevance IS NULL AND relevance >= 0 AND relevance < 1
          THEN 1
          ELSE 0
        END AS is_nonrel
      FROM `evaluation`
    ) AS f
    GROUP BY
      run_id,
      query_id
  ) AS s
  LEFT JOIN running AS x
    ON x.run_id = s.run_id AND x.query_id = s.query_id AND x.from_end = 1
) AS m;

-- measure: IPrec@0.5
SELECT
  m.run_id,
  m.query_id,
  m.value
FROM (
  WITH hits AS (
    SELECT
      run_id,
      query_id,
      rank,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank) AS c
    FROM `evaluation`
    WHERE
      NOT rank IS NULL AND NOT relevance IS NULL AND relevance >= 1
  ), st AS (
    SELECT
      run_id,
      query_id,
      SAFE_CAST(SAFE_CAST(0.5 AS FLOAT64) AS FLOAT64) * SAFE_CAST(num_rel AS FLOAT64) AS x
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
        SUM(CASE WHEN is_ret_k = 1 AND NOT relevance IS NULL THEN 1 ELSE 0 END) AS judged_k,
        SUM(
          CASE
            WHEN is_ret_k = 1 AND (
              relevance IS NULL OR relevance < 0
            )
            THEN 1
            ELSE 0
          END
        ) AS unjudged_k,
        SUM(CASE WHEN is_ret_k = 1 AND relevance IS NULL THEN 1 ELSE 0 END) AS unknown_k,
        MIN(CASE WHEN is_ret_k = 1 AND is_rel = 1 THEN rank END) AS first_rel_k
      FROM (
        SELECT
          run_id,
          query_id,
          rank,
          relevance,
          CASE WHEN NOT rank IS NULL THEN 1 ELSE 0 END AS is_ret,
          CASE WHEN NOT rank IS NULL AND (
            NULL IS NULL OR rank <= NULL
          ) THEN 1 ELSE 0 END AS is_ret_k,
          CASE WHEN NOT relevance IS NULL AND relevance >= 1 THEN 1 ELSE 0 END AS is_rel,
          CASE
            WHEN NOT relevance IS NULL AND relevance >= 0 AND relevance < 1
            THEN 1
            ELSE 0
          END AS is_nonrel
        FROM `evaluation`
      ) AS f
      GROUP BY
        run_id,
        query_id
    ) AS s0
  ), needed AS (
    SELECT
      run_id,
      query_id,
      CASE
        WHEN 'trec_eval9' = 'trec_eval9'
        THEN FLOOR(x + SAFE_CAST(9 AS FLOAT64) / NULLIF(SAFE_CAST(10 AS FLOAT64), 0))
        ELSE FLOOR(x) + CASE
          WHEN x - FLOOR(x) >= SAFE_CAST(1 AS FLOAT64) / NULLIF(SAFE_CAST(2 AS FLOAT64), 0)
          THEN 1
          ELSE 0
        END
      END AS c
    FROM st
  )
  SELECT
    n.run_id,
    n.query_id,
    COALESCE(
      MAX(
        CASE
          WHEN h.c >= n.c
          THEN SAFE_CAST(h.c AS FLOAT64) / NULLIF(SAFE_CAST(h.rank AS FLOAT64), 0)
        END
      ),
      SAFE_CAST(0 AS FLOAT64)
    ) AS value
  FROM needed AS n
  LEFT JOIN hits AS h
    ON h.run_id = n.run_id AND h.query_id = n.query_id
  GROUP BY
    n.run_id,
    n.query_id
) AS m;

-- measure: Rndcg
SELECT
  m.run_id,
  m.query_id,
  m.value
FROM (
  WITH g AS (
    SELECT
      *
    FROM (
      SELECT
        run_id,
        query_id,
        rank,
        relevance,
        CASE
          WHEN 'log2' = 'exp-log2'
          THEN POWER(SAFE_CAST(2 AS FLOAT64), grade) - SAFE_CAST(1 AS FLOAT64)
          ELSE grade
        END AS gain
      FROM (
        SELECT
          run_id,
          query_id,
          rank,
          relevance,
          CASE
            WHEN relevance IS NULL OR relevance < 0
            THEN SAFE_CAST(0 AS FLOAT64)
            WHEN '' = ''
            THEN SAFE_CAST(relevance AS FLOAT64)
            ELSE COALESCE(
              CASE
                WHEN '' = '' OR INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') = 0
                THEN SAFE_CAST(NULL AS FLOAT64)
                ELSE SAFE_CAST(NULLIF(
                  SUBSTRING(
                    SUBSTRING(
                      '',
                      INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') + LENGTH(SAFE_CAST(relevance AS STRING)) + 2
                    ),
                    1,
                    INSTR(
                      SUBSTRING(
                        '',
                        INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') + LENGTH(SAFE_CAST(relevance AS STRING)) + 2
                      ),
                      ','
                    ) - 1
                  ),
                  ''
                ) AS FLOAT64)
              END,
              SAFE_CAST(relevance AS FLOAT64)
            )
          END AS grade
        FROM `evaluation`
      ) AS gr
    ) AS g0
  ), ranked AS (
    SELECT
      run_id,
      query_id,
      rank,
      gain,
      SUM(gain / NULLIF(LOG(SAFE_CAST(rank AS FLOAT64) + SAFE_CAST(1 AS FLOAT64), 2), 0)) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS cum_dcg,
      SUM(gain) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS cum_gain,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM g
    WHERE
      NOT rank IS NULL AND gain <> SAFE_CAST(0 AS FLOAT64)
  ), ideal_pos AS (
    SELECT
      run_id,
      query_id,
      gain,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY gain DESC) AS pos
    FROM g
    WHERE
      gain > SAFE_CAST(0 AS FLOAT64)
  ), ideal AS (
    SELECT
      run_id,
      query_id,
      pos,
      gain,
      SUM(gain / NULLIF(LOG(SAFE_CAST(pos AS FLOAT64) + SAFE_CAST(1 AS FLOAT64), 2), 0)) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS idcg,
      SUM(gain) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS cum_gain,
      SUM(
        CASE WHEN gain < SAFE_CAST(1 AS FLOAT64) THEN SAFE_CAST(1 AS FLOAT64) ELSE gain END
      ) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS floor_cum,
      CASE
        WHEN gain <> COALESCE(
          LEAD(gain) OVER (PARTITION BY run_id, query_id ORDER BY pos),
          SAFE_CAST(0 AS FLOAT64)
        )
        THEN 1
        ELSE 0
      END AS is_drop,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY pos DESC) AS from_end
    FROM ideal_pos
  ), ilen AS (
    SELECT
      run_id,
      query_id,
      pos AS len,
      idcg AS itotal,
      cum_gain AS igain
    FROM ideal
    WHERE
      from_end = 1
  ), rtot AS (
    SELECT
      run_id,
      query_id,
      cum_dcg AS rtotal
    FROM ranked
    WHERE
      from_end = 1
  ), st AS (
    SELECT
      *
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
        SUM(CASE WHEN is_ret_k = 1 AND NOT relevance IS NULL THEN 1 ELSE 0 END) AS judged_k,
        SUM(
          CASE
            WHEN is_ret_k = 1 AND (
              relevance IS NULL OR relevance < 0
            )
            THEN 1
            ELSE 0
          END
        ) AS unjudged_k,
        SUM(CASE WHEN is_ret_k = 1 AND relevance IS NULL THEN 1 ELSE 0 END) AS unknown_k,
        MIN(CASE WHEN is_ret_k = 1 AND is_rel = 1 THEN rank END) AS first_rel_k
      FROM (
        SELECT
          run_id,
          query_id,
          rank,
          relevance,
          CASE WHEN NOT rank IS NULL THEN 1 ELSE 0 END AS is_ret,
          CASE WHEN NOT rank IS NULL AND (
            NULL IS NULL OR rank <= NULL
          ) THEN 1 ELSE 0 END AS is_ret_k,
          CASE WHEN NOT relevance IS NULL AND relevance >= 1 THEN 1 ELSE 0 END AS is_rel,
          CASE
            WHEN NOT relevance IS NULL AND relevance >= 0 AND relevance < 1
            THEN 1
            ELSE 0
          END AS is_nonrel
        FROM `evaluation`
      ) AS f
      GROUP BY
        run_id,
        query_id
    ) AS s0
  ), dr AS (
    SELECT
      i.run_id,
      i.query_id,
      i.pos AS d,
      i.idcg,
      CASE WHEN i.pos < s.num_ret THEN i.pos ELSE s.num_ret END AS m
    FROM ideal AS i
    JOIN st AS s
      ON s.run_id = i.run_id AND s.query_id = i.query_id
    WHERE
      i.is_drop = 1
  ), hit AS (
    SELECT
      dr.run_id,
      dr.query_id,
      dr.d,
      r.cum_dcg,
      ROW_NUMBER() OVER (PARTITION BY dr.run_id, dr.query_id, dr.d ORDER BY r.rank DESC) AS from_end
    FROM dr
    JOIN ranked AS r
      ON r.run_id = dr.run_id AND r.query_id = dr.query_id AND r.rank <= dr.m
  ), terms AS (
    SELECT
      dr.run_id,
      dr.query_id,
      dr.d,
      COALESCE(h.cum_dcg, SAFE_CAST(0 AS FLOAT64)) / NULLIF(dr.idcg, 0) AS term
    FROM dr
    LEFT JOIN hit AS h
      ON h.run_id = dr.run_id AND h.query_id = dr.query_id AND h.d = dr.d AND h.from_end = 1
  ), running AS (
    SELECT
      run_id,
      query_id,
      SUM(term) OVER (
        PARTITION BY run_id, query_id
        ORDER BY d
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY d ASC) AS drops,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY d DESC) AS from_end
    FROM terms
  ), parts AS (
    SELECT
      s.run_id,
      s.query_id,
      s.num_rel,
      COALESCE(x.total, SAFE_CAST(0 AS FLOAT64)) AS total,
      COALESCE(x.drops, 0) AS drops,
      CASE WHEN COALESCE(l.len, 0) + 1 < s.num_ret THEN 1 ELSE 0 END AS tail,
      COALESCE(t.rtotal, SAFE_CAST(0 AS FLOAT64)) AS rtotal,
      l.itotal
    FROM st AS s
    LEFT JOIN ilen AS l
      ON l.run_id = s.run_id AND l.query_id = s.query_id
    LEFT JOIN rtot AS t
      ON t.run_id = s.run_id AND t.query_id = s.query_id
    LEFT JOIN running AS x
      ON x.run_id = s.run_id AND x.query_id = s.query_id AND x.from_end = 1
  )
  SELECT
    run_id,
    query_id,
    CASE
      WHEN num_rel > 0 AND NOT itotal IS NULL
      THEN (
        total + CASE WHEN tail = 1 THEN rtotal / NULLIF(itotal, 0) ELSE SAFE_CAST(0 AS FLOAT64) END
      ) / NULLIF(SAFE_CAST(drops + tail AS FLOAT64), 0)
      ELSE SAFE_CAST(0 AS FLOAT64)
    END AS value
  FROM parts
) AS m;

-- measure: RBP(p=0.8)@10
SELECT
  m.run_id,
  m.query_id,
  m.value
FROM (
  WITH t AS (
    SELECT
      run_id,
      query_id,
      rank,
      CASE
        WHEN relevance IS NULL
        THEN SAFE_CAST(0 AS FLOAT64)
        WHEN '' = ''
        THEN CASE
          WHEN relevance >= 1
          THEN SAFE_CAST(1 AS FLOAT64)
          ELSE SAFE_CAST(0 AS FLOAT64)
        END
        ELSE COALESCE(
          CASE
            WHEN '' = '' OR INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') = 0
            THEN SAFE_CAST(NULL AS FLOAT64)
            ELSE SAFE_CAST(NULLIF(
              SUBSTRING(
                SUBSTRING(
                  '',
                  INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') + LENGTH(SAFE_CAST(relevance AS STRING)) + 2
                ),
                1,
                INSTR(
                  SUBSTRING(
                    '',
                    INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') + LENGTH(SAFE_CAST(relevance AS STRING)) + 2
                  ),
                  ','
                ) - 1
              ),
              ''
            ) AS FLOAT64)
          END,
          SAFE_CAST(0 AS FLOAT64)
        )
      END * weight AS term
    FROM (
      SELECT
        run_id,
        query_id,
        rank,
        relevance,
        (
          SAFE_CAST(1 AS FLOAT64) - SAFE_CAST(SAFE_CAST(0.8 AS FLOAT64) AS FLOAT64)
        ) * POWER(
          SAFE_CAST(SAFE_CAST(0.8 AS FLOAT64) AS FLOAT64),
          SAFE_CAST(rank AS FLOAT64) - SAFE_CAST(1 AS FLOAT64)
        ) AS weight
      FROM `evaluation`
      WHERE
        'rank' = 'rank' AND NOT rank IS NULL AND (
          10 IS NULL OR rank <= 10
        )
      UNION ALL
      SELECT
        run_id,
        query_id,
        rank,
        relevance,
        CASE
          WHEN 10 IS NULL
          THEN mean
          ELSE mean * (
            CASE
              WHEN end_pos < SAFE_CAST(10 AS FLOAT64)
              THEN end_pos
              ELSE SAFE_CAST(10 AS FLOAT64)
            END - start_pos
          ) / NULLIF(size, 0)
        END AS weight
      FROM (
        SELECT
          run_id,
          query_id,
          rank,
          relevance,
          start_pos,
          end_pos - start_pos AS size,
          end_pos,
          (
            POWER(SAFE_CAST(SAFE_CAST(0.8 AS FLOAT64) AS FLOAT64), start_pos) - POWER(SAFE_CAST(SAFE_CAST(0.8 AS FLOAT64) AS FLOAT64), end_pos)
          ) / NULLIF((
            end_pos - start_pos
          ), 0) AS mean
        FROM (
          SELECT
            run_id,
            query_id,
            rank,
            relevance,
            SAFE_CAST(RANK() OVER (PARTITION BY run_id, query_id ORDER BY score DESC) - 1 AS FLOAT64) AS start_pos,
            SAFE_CAST(COUNT(*) OVER (PARTITION BY run_id, query_id) - RANK() OVER (PARTITION BY run_id, query_id ORDER BY score ASC) + 1 AS FLOAT64) AS end_pos
          FROM `evaluation`
          WHERE
            'rank' = 'average' AND NOT rank IS NULL
        ) AS tie
      ) AS tw
      WHERE
        10 IS NULL OR start_pos < SAFE_CAST(10 AS FLOAT64)
    ) AS w
  ), running AS (
    SELECT
      run_id,
      query_id,
      SUM(term) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM t
  )
  SELECT
    pa.run_id,
    pa.query_id,
    COALESCE(x.total, SAFE_CAST(0 AS FLOAT64)) AS value,
    SAFE_CAST(1 AS FLOAT64) / NULLIF(
      (
        (
          SAFE_CAST(1 AS FLOAT64) - SAFE_CAST(SAFE_CAST(0.8 AS FLOAT64) AS FLOAT64)
        ) * POWER(SAFE_CAST(SAFE_CAST(0.8 AS FLOAT64) AS FLOAT64), SAFE_CAST(0 AS FLOAT64))
      ),
      0
    ) AS depth
  FROM (
    SELECT DISTINCT
      run_id,
      query_id
    FROM `evaluation`
  ) AS pa
  LEFT JOIN running AS x
    ON x.run_id = pa.run_id AND x.query_id = pa.query_id AND x.from_end = 1
) AS m;

-- measure: NumRet
SELECT
  m.run_id,
  m.query_id,
  m.value
FROM (
  SELECT
    run_id,
    query_id,
    SAFE_CAST(num_ret AS FLOAT64) AS value
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
      SUM(CASE WHEN is_ret_k = 1 AND NOT relevance IS NULL THEN 1 ELSE 0 END) AS judged_k,
      SUM(
        CASE
          WHEN is_ret_k = 1 AND (
            relevance IS NULL OR relevance < 0
          )
          THEN 1
          ELSE 0
        END
      ) AS unjudged_k,
      SUM(CASE WHEN is_ret_k = 1 AND relevance IS NULL THEN 1 ELSE 0 END) AS unknown_k,
      MIN(CASE WHEN is_ret_k = 1 AND is_rel = 1 THEN rank END) AS first_rel_k
    FROM (
      SELECT
        run_id,
        query_id,
        rank,
        relevance,
        CASE WHEN NOT rank IS NULL THEN 1 ELSE 0 END AS is_ret,
        CASE WHEN NOT rank IS NULL AND (
          NULL IS NULL OR rank <= NULL
        ) THEN 1 ELSE 0 END AS is_ret_k,
        CASE WHEN NOT relevance IS NULL AND relevance >= 1 THEN 1 ELSE 0 END AS is_rel,
        CASE
          WHEN NOT relevance IS NULL AND relevance >= 0 AND relevance < 1
          THEN 1
          ELSE 0
        END AS is_nonrel
      FROM `evaluation`
    ) AS f
    GROUP BY
      run_id,
      query_id
  )
) AS m;

-- measure: DCG(norm='self',gain='exp',discount='log',b=3.0)@10
SELECT
  m.run_id,
  m.query_id,
  m.value
FROM (
  WITH g AS (
    SELECT
      *
    FROM (
      SELECT
        ex.run_id,
        ex.query_id,
        ex.rank,
        ex.relevance,
        CASE
          WHEN 'self' = 'scaled'
          THEN CASE WHEN sc.low <> SAFE_CAST(0 AS FLOAT64) THEN ex.eg - sc.low ELSE ex.eg END
          ELSE COALESCE(ex.eg, SAFE_CAST(0 AS FLOAT64))
        END AS gain,
        sc.top - sc.low AS scale
      FROM (
        SELECT
          run_id,
          query_id,
          rank,
          relevance,
          CASE
            WHEN 'exp' = 'exp'
            THEN POWER(SAFE_CAST(2 AS FLOAT64), mg) - SAFE_CAST(1 AS FLOAT64)
            ELSE mg
          END AS eg
        FROM (
          SELECT
            run_id,
            query_id,
            rank,
            relevance,
            COALESCE(
              CASE
                WHEN '' = '' OR INSTR('', ',' || SAFE_CAST(grade AS STRING) || '=') = 0
                THEN SAFE_CAST(NULL AS FLOAT64)
                ELSE SAFE_CAST(NULLIF(
                  SUBSTRING(
                    SUBSTRING(
                      '',
                      INSTR('', ',' || SAFE_CAST(grade AS STRING) || '=') + LENGTH(SAFE_CAST(grade AS STRING)) + 2
                    ),
                    1,
                    INSTR(
                      SUBSTRING(
                        '',
                        INSTR('', ',' || SAFE_CAST(grade AS STRING) || '=') + LENGTH(SAFE_CAST(grade AS STRING)) + 2
                      ),
                      ','
                    ) - 1
                  ),
                  ''
                ) AS FLOAT64)
              END,
              SAFE_CAST(grade AS FLOAT64)
            ) AS mg
          FROM (
            SELECT
              run_id,
              query_id,
              rank,
              relevance,
              CASE
                WHEN 'self' = 'scaled'
                THEN CASE
                  WHEN COALESCE(relevance, 0) < 0
                  THEN 0
                  WHEN COALESCE(relevance, 0) > 1
                  THEN 1
                  ELSE COALESCE(relevance, 0)
                END
                WHEN relevance >= 0
                THEN relevance
              END AS grade
            FROM `evaluation`
          ) AS cl
        ) AS mp
      ) AS ex
      CROSS JOIN (
        SELECT
          CASE
            WHEN 'exp' = 'exp'
            THEN POWER(SAFE_CAST(2 AS FLOAT64), lo) - SAFE_CAST(1 AS FLOAT64)
            ELSE lo
          END AS low,
          CASE
            WHEN 'exp' = 'exp'
            THEN POWER(SAFE_CAST(2 AS FLOAT64), hi) - SAFE_CAST(1 AS FLOAT64)
            ELSE hi
          END AS top
        FROM (
          SELECT
            COALESCE(
              CASE
                WHEN '' = '' OR INSTR('', ',' || SAFE_CAST(lo_grade AS STRING) || '=') = 0
                THEN SAFE_CAST(NULL AS FLOAT64)
                ELSE SAFE_CAST(NULLIF(
                  SUBSTRING(
                    SUBSTRING(
                      '',
                      INSTR('', ',' || SAFE_CAST(lo_grade AS STRING) || '=') + LENGTH(SAFE_CAST(lo_grade AS STRING)) + 2
                    ),
                    1,
                    INSTR(
                      SUBSTRING(
                        '',
                        INSTR('', ',' || SAFE_CAST(lo_grade AS STRING) || '=') + LENGTH(SAFE_CAST(lo_grade AS STRING)) + 2
                      ),
                      ','
                    ) - 1
                  ),
                  ''
                ) AS FLOAT64)
              END,
              SAFE_CAST(lo_grade AS FLOAT64)
            ) AS lo,
            COALESCE(
              CASE
                WHEN '' = '' OR INSTR('', ',' || SAFE_CAST(hi_grade AS STRING) || '=') = 0
                THEN SAFE_CAST(NULL AS FLOAT64)
                ELSE SAFE_CAST(NULLIF(
                  SUBSTRING(
                    SUBSTRING(
                      '',
                      INSTR('', ',' || SAFE_CAST(hi_grade AS STRING) || '=') + LENGTH(SAFE_CAST(hi_grade AS STRING)) + 2
                    ),
                    1,
                    INSTR(
                      SUBSTRING(
                        '',
                        INSTR('', ',' || SAFE_CAST(hi_grade AS STRING) || '=') + LENGTH(SAFE_CAST(hi_grade AS STRING)) + 2
                      ),
                      ','
                    ) - 1
                  ),
                  ''
                ) AS FLOAT64)
              END,
              SAFE_CAST(hi_grade AS FLOAT64)
            ) AS hi
          FROM (
            SELECT
              0 AS lo_grade,
              1 AS hi_grade
          ) AS e0
        ) AS ends
      ) AS sc
    ) AS g0
  ), ranked AS (
    SELECT
      run_id,
      query_id,
      SUM(
        CASE 'log'
          WHEN 'log2'
          THEN gain / NULLIF(LOG(SAFE_CAST(rank AS FLOAT64) + SAFE_CAST(1 AS FLOAT64), 2), 0)
          WHEN 'log'
          THEN gain / NULLIF(
            (
              LN(SAFE_CAST(rank AS FLOAT64) + SAFE_CAST(1 AS FLOAT64)) / NULLIF(LN(SAFE_CAST(SAFE_CAST(3.0 AS FLOAT64) AS FLOAT64)), 0)
            ),
            0
          )
          WHEN 'jk'
          THEN CASE
            WHEN SAFE_CAST(rank AS FLOAT64) < SAFE_CAST(SAFE_CAST(3.0 AS FLOAT64) AS FLOAT64)
            THEN gain
            ELSE gain / NULLIF(
              (
                LN(SAFE_CAST(rank AS FLOAT64)) / NULLIF(LN(SAFE_CAST(SAFE_CAST(3.0 AS FLOAT64) AS FLOAT64)), 0)
              ),
              0
            )
          END
          WHEN 'none'
          THEN gain
          WHEN 'root'
          THEN gain / NULLIF(SQRT(SAFE_CAST(rank AS FLOAT64)), 0)
          WHEN 'rank'
          THEN gain / NULLIF(SAFE_CAST(rank AS FLOAT64), 0)
          WHEN 'square'
          THEN gain / NULLIF((
            SAFE_CAST(rank AS FLOAT64) * SAFE_CAST(rank AS FLOAT64)
          ), 0)
          ELSE gain * CASE
            WHEN '' = '' OR INSTR('', ',' || SAFE_CAST(rank AS STRING) || '=') = 0
            THEN SAFE_CAST(0 AS FLOAT64)
            ELSE COALESCE(
              SAFE_CAST(NULLIF(
                SUBSTRING(
                  SUBSTRING(
                    '',
                    INSTR('', ',' || SAFE_CAST(rank AS STRING) || '=') + LENGTH(SAFE_CAST(rank AS STRING)) + 2
                  ),
                  1,
                  INSTR(
                    SUBSTRING(
                      '',
                      INSTR('', ',' || SAFE_CAST(rank AS STRING) || '=') + LENGTH(SAFE_CAST(rank AS STRING)) + 2
                    ),
                    ','
                  ) - 1
                ),
                ''
              ) AS FLOAT64),
              SAFE_CAST(0 AS FLOAT64)
            )
          END
        END
      ) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM g
    WHERE
      NOT rank IS NULL
      AND (
        10 IS NULL OR rank <= 10
      )
      AND gain <> SAFE_CAST(0 AS FLOAT64)
  ), best_pos AS (
    SELECT
      run_id,
      query_id,
      gain,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY gain DESC) AS pos
    FROM g
    WHERE
      gain > SAFE_CAST(0 AS FLOAT64)
      AND (
        'self' = 'ideal'
        OR (
          'self' = 'self' AND NOT rank IS NULL AND (
            10 IS NULL OR rank <= 10
          )
        )
      )
  ), best_run AS (
    SELECT
      run_id,
      query_id,
      SUM(
        CASE 'log'
          WHEN 'log2'
          THEN gain / NULLIF(LOG(SAFE_CAST(pos AS FLOAT64) + SAFE_CAST(1 AS FLOAT64), 2), 0)
          WHEN 'log'
          THEN gain / NULLIF(
            (
              LN(SAFE_CAST(pos AS FLOAT64) + SAFE_CAST(1 AS FLOAT64)) / NULLIF(LN(SAFE_CAST(SAFE_CAST(3.0 AS FLOAT64) AS FLOAT64)), 0)
            ),
            0
          )
          WHEN 'jk'
          THEN CASE
            WHEN SAFE_CAST(pos AS FLOAT64) < SAFE_CAST(SAFE_CAST(3.0 AS FLOAT64) AS FLOAT64)
            THEN gain
            ELSE gain / NULLIF(
              (
                LN(SAFE_CAST(pos AS FLOAT64)) / NULLIF(LN(SAFE_CAST(SAFE_CAST(3.0 AS FLOAT64) AS FLOAT64)), 0)
              ),
              0
            )
          END
          WHEN 'none'
          THEN gain
          WHEN 'root'
          THEN gain / NULLIF(SQRT(SAFE_CAST(pos AS FLOAT64)), 0)
          WHEN 'rank'
          THEN gain / NULLIF(SAFE_CAST(pos AS FLOAT64), 0)
          WHEN 'square'
          THEN gain / NULLIF((
            SAFE_CAST(pos AS FLOAT64) * SAFE_CAST(pos AS FLOAT64)
          ), 0)
          ELSE gain * CASE
            WHEN '' = '' OR INSTR('', ',' || SAFE_CAST(pos AS STRING) || '=') = 0
            THEN SAFE_CAST(0 AS FLOAT64)
            ELSE COALESCE(
              SAFE_CAST(NULLIF(
                SUBSTRING(
                  SUBSTRING(
                    '',
                    INSTR('', ',' || SAFE_CAST(pos AS STRING) || '=') + LENGTH(SAFE_CAST(pos AS STRING)) + 2
                  ),
                  1,
                  INSTR(
                    SUBSTRING(
                      '',
                      INSTR('', ',' || SAFE_CAST(pos AS STRING) || '=') + LENGTH(SAFE_CAST(pos AS STRING)) + 2
                    ),
                    ','
                  ) - 1
                ),
                ''
              ) AS FLOAT64),
              SAFE_CAST(0 AS FLOAT64)
            )
          END
        END
      ) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY pos DESC) AS from_end
    FROM best_pos
    WHERE
      10 IS NULL OR pos <= 10
  ), wsum AS (
    SELECT
      SUM(
        CASE 'log'
          WHEN 'log2'
          THEN SAFE_CAST(1 AS FLOAT64) / NULLIF(LOG(SAFE_CAST(pos AS FLOAT64) + SAFE_CAST(1 AS FLOAT64), 2), 0)
          WHEN 'log'
          THEN SAFE_CAST(1 AS FLOAT64) / NULLIF(
            (
              LN(SAFE_CAST(pos AS FLOAT64) + SAFE_CAST(1 AS FLOAT64)) / NULLIF(LN(SAFE_CAST(SAFE_CAST(3.0 AS FLOAT64) AS FLOAT64)), 0)
            ),
            0
          )
          WHEN 'jk'
          THEN CASE
            WHEN SAFE_CAST(pos AS FLOAT64) < SAFE_CAST(SAFE_CAST(3.0 AS FLOAT64) AS FLOAT64)
            THEN SAFE_CAST(1 AS FLOAT64)
            ELSE SAFE_CAST(1 AS FLOAT64) / NULLIF(
              (
                LN(SAFE_CAST(pos AS FLOAT64)) / NULLIF(LN(SAFE_CAST(SAFE_CAST(3.0 AS FLOAT64) AS FLOAT64)), 0)
              ),
              0
            )
          END
          WHEN 'none'
          THEN SAFE_CAST(1 AS FLOAT64)
          WHEN 'root'
          THEN SAFE_CAST(1 AS FLOAT64) / NULLIF(SQRT(SAFE_CAST(pos AS FLOAT64)), 0)
          WHEN 'rank'
          THEN SAFE_CAST(1 AS FLOAT64) / NULLIF(SAFE_CAST(pos AS FLOAT64), 0)
          WHEN 'square'
          THEN SAFE_CAST(1 AS FLOAT64) / NULLIF((
            SAFE_CAST(pos AS FLOAT64) * SAFE_CAST(pos AS FLOAT64)
          ), 0)
          ELSE SAFE_CAST(1 AS FLOAT64) * CASE
            WHEN '' = '' OR INSTR('', ',' || SAFE_CAST(pos AS STRING) || '=') = 0
            THEN SAFE_CAST(0 AS FLOAT64)
            ELSE COALESCE(
              SAFE_CAST(NULLIF(
                SUBSTRING(
                  SUBSTRING(
                    '',
                    INSTR('', ',' || SAFE_CAST(pos AS STRING) || '=') + LENGTH(SAFE_CAST(pos AS STRING)) + 2
                  ),
                  1,
                  INSTR(
                    SUBSTRING(
                      '',
                      INSTR('', ',' || SAFE_CAST(pos AS STRING) || '=') + LENGTH(SAFE_CAST(pos AS STRING)) + 2
                    ),
                    ','
                  ) - 1
                ),
                ''
              ) AS FLOAT64),
              SAFE_CAST(0 AS FLOAT64)
            )
          END
        END
      ) AS total
    FROM (
      SELECT
        d0.d + d1.d * 10 + d2.d * 100 + d3.d * 1000 + d4.d * 10000 + d5.d * 100000 + d6.d * 1000000 + d7.d * 10000000 + d8.d * 100000000 + 1 AS pos
      FROM (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d0
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d1
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d2
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d3
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d4
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d5
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d6
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d7
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d8
      WHERE
        d0.d < 10
        AND d1.d * 10 < 10
        AND d2.d * 100 < 10
        AND d3.d * 1000 < 10
        AND d4.d * 10000 < 10
        AND d5.d * 100000 < 10
        AND d6.d * 1000000 < 10
        AND d7.d * 10000000 < 10
        AND d8.d * 100000000 < 10
        AND d0.d + d1.d * 10 + d2.d * 100 + d3.d * 1000 + d4.d * 10000 + d5.d * 100000 + d6.d * 1000000 + d7.d * 10000000 + d8.d * 100000000 < 10
    ) AS po
    WHERE
      'self' = 'scaled'
  ), value_of AS (
    SELECT
      pa.run_id,
      pa.query_id,
      CASE 'self'
        WHEN 'none'
        THEN COALESCE(d.total, SAFE_CAST(0 AS FLOAT64))
        WHEN 'scaled'
        THEN COALESCE(d.total, SAFE_CAST(0 AS FLOAT64)) * (
          SAFE_CAST(1 AS FLOAT64) / NULLIF((
            pa.scale * w.total
          ), 0)
        )
        ELSE CASE
          WHEN bst.total > SAFE_CAST(0 AS FLOAT64)
          THEN COALESCE(d.total, SAFE_CAST(0 AS FLOAT64)) / NULLIF(bst.total, 0)
          ELSE SAFE_CAST(0 AS FLOAT64)
        END
      END AS value
    FROM (
      SELECT DISTINCT
        run_id,
        query_id,
        scale
      FROM g
    ) AS pa
    CROSS JOIN wsum AS w
    LEFT JOIN ranked AS d
      ON d.run_id = pa.run_id AND d.query_id = pa.query_id AND d.from_end = 1
    LEFT JOIN best_run AS bst
      ON bst.run_id = pa.run_id AND bst.query_id = pa.query_id AND bst.from_end = 1
  )
  SELECT
    run_id,
    query_id,
    value
  FROM value_of
) AS m;

-- measure: SDCG(max_rel=3)@10
SELECT
  m.run_id,
  m.query_id,
  m.value
FROM (
  WITH g AS (
    SELECT
      *
    FROM (
      SELECT
        ex.run_id,
        ex.query_id,
        ex.rank,
        ex.relevance,
        CASE
          WHEN 'scaled' = 'scaled'
          THEN CASE WHEN sc.low <> SAFE_CAST(0 AS FLOAT64) THEN ex.eg - sc.low ELSE ex.eg END
          ELSE COALESCE(ex.eg, SAFE_CAST(0 AS FLOAT64))
        END AS gain,
        sc.top - sc.low AS scale
      FROM (
        SELECT
          run_id,
          query_id,
          rank,
          relevance,
          CASE
            WHEN 'linear' = 'exp'
            THEN POWER(SAFE_CAST(2 AS FLOAT64), mg) - SAFE_CAST(1 AS FLOAT64)
            ELSE mg
          END AS eg
        FROM (
          SELECT
            run_id,
            query_id,
            rank,
            relevance,
            COALESCE(
              CASE
                WHEN '' = '' OR INSTR('', ',' || SAFE_CAST(grade AS STRING) || '=') = 0
                THEN SAFE_CAST(NULL AS FLOAT64)
                ELSE SAFE_CAST(NULLIF(
                  SUBSTRING(
                    SUBSTRING(
                      '',
                      INSTR('', ',' || SAFE_CAST(grade AS STRING) || '=') + LENGTH(SAFE_CAST(grade AS STRING)) + 2
                    ),
                    1,
                    INSTR(
                      SUBSTRING(
                        '',
                        INSTR('', ',' || SAFE_CAST(grade AS STRING) || '=') + LENGTH(SAFE_CAST(grade AS STRING)) + 2
                      ),
                      ','
                    ) - 1
                  ),
                  ''
                ) AS FLOAT64)
              END,
              SAFE_CAST(grade AS FLOAT64)
            ) AS mg
          FROM (
            SELECT
              run_id,
              query_id,
              rank,
              relevance,
              CASE
                WHEN 'scaled' = 'scaled'
                THEN CASE
                  WHEN COALESCE(relevance, 0) < 0
                  THEN 0
                  WHEN COALESCE(relevance, 0) > 3
                  THEN 3
                  ELSE COALESCE(relevance, 0)
                END
                WHEN relevance >= 0
                THEN relevance
              END AS grade
            FROM `evaluation`
          ) AS cl
        ) AS mp
      ) AS ex
      CROSS JOIN (
        SELECT
          CASE
            WHEN 'linear' = 'exp'
            THEN POWER(SAFE_CAST(2 AS FLOAT64), lo) - SAFE_CAST(1 AS FLOAT64)
            ELSE lo
          END AS low,
          CASE
            WHEN 'linear' = 'exp'
            THEN POWER(SAFE_CAST(2 AS FLOAT64), hi) - SAFE_CAST(1 AS FLOAT64)
            ELSE hi
          END AS top
        FROM (
          SELECT
            COALESCE(
              CASE
                WHEN '' = '' OR INSTR('', ',' || SAFE_CAST(lo_grade AS STRING) || '=') = 0
                THEN SAFE_CAST(NULL AS FLOAT64)
                ELSE SAFE_CAST(NULLIF(
                  SUBSTRING(
                    SUBSTRING(
                      '',
                      INSTR('', ',' || SAFE_CAST(lo_grade AS STRING) || '=') + LENGTH(SAFE_CAST(lo_grade AS STRING)) + 2
                    ),
                    1,
                    INSTR(
                      SUBSTRING(
                        '',
                        INSTR('', ',' || SAFE_CAST(lo_grade AS STRING) || '=') + LENGTH(SAFE_CAST(lo_grade AS STRING)) + 2
                      ),
                      ','
                    ) - 1
                  ),
                  ''
                ) AS FLOAT64)
              END,
              SAFE_CAST(lo_grade AS FLOAT64)
            ) AS lo,
            COALESCE(
              CASE
                WHEN '' = '' OR INSTR('', ',' || SAFE_CAST(hi_grade AS STRING) || '=') = 0
                THEN SAFE_CAST(NULL AS FLOAT64)
                ELSE SAFE_CAST(NULLIF(
                  SUBSTRING(
                    SUBSTRING(
                      '',
                      INSTR('', ',' || SAFE_CAST(hi_grade AS STRING) || '=') + LENGTH(SAFE_CAST(hi_grade AS STRING)) + 2
                    ),
                    1,
                    INSTR(
                      SUBSTRING(
                        '',
                        INSTR('', ',' || SAFE_CAST(hi_grade AS STRING) || '=') + LENGTH(SAFE_CAST(hi_grade AS STRING)) + 2
                      ),
                      ','
                    ) - 1
                  ),
                  ''
                ) AS FLOAT64)
              END,
              SAFE_CAST(hi_grade AS FLOAT64)
            ) AS hi
          FROM (
            SELECT
              0 AS lo_grade,
              3 AS hi_grade
          ) AS e0
        ) AS ends
      ) AS sc
    ) AS g0
  ), ranked AS (
    SELECT
      run_id,
      query_id,
      SUM(
        CASE 'log2'
          WHEN 'log2'
          THEN gain / NULLIF(LOG(SAFE_CAST(rank AS FLOAT64) + SAFE_CAST(1 AS FLOAT64), 2), 0)
          WHEN 'log'
          THEN gain / NULLIF(
            (
              LN(SAFE_CAST(rank AS FLOAT64) + SAFE_CAST(1 AS FLOAT64)) / NULLIF(LN(SAFE_CAST(SAFE_CAST(2.0 AS FLOAT64) AS FLOAT64)), 0)
            ),
            0
          )
          WHEN 'jk'
          THEN CASE
            WHEN SAFE_CAST(rank AS FLOAT64) < SAFE_CAST(SAFE_CAST(2.0 AS FLOAT64) AS FLOAT64)
            THEN gain
            ELSE gain / NULLIF(
              (
                LN(SAFE_CAST(rank AS FLOAT64)) / NULLIF(LN(SAFE_CAST(SAFE_CAST(2.0 AS FLOAT64) AS FLOAT64)), 0)
              ),
              0
            )
          END
          WHEN 'none'
          THEN gain
          WHEN 'root'
          THEN gain / NULLIF(SQRT(SAFE_CAST(rank AS FLOAT64)), 0)
          WHEN 'rank'
          THEN gain / NULLIF(SAFE_CAST(rank AS FLOAT64), 0)
          WHEN 'square'
          THEN gain / NULLIF((
            SAFE_CAST(rank AS FLOAT64) * SAFE_CAST(rank AS FLOAT64)
          ), 0)
          ELSE gain * CASE
            WHEN '' = '' OR INSTR('', ',' || SAFE_CAST(rank AS STRING) || '=') = 0
            THEN SAFE_CAST(0 AS FLOAT64)
            ELSE COALESCE(
              SAFE_CAST(NULLIF(
                SUBSTRING(
                  SUBSTRING(
                    '',
                    INSTR('', ',' || SAFE_CAST(rank AS STRING) || '=') + LENGTH(SAFE_CAST(rank AS STRING)) + 2
                  ),
                  1,
                  INSTR(
                    SUBSTRING(
                      '',
                      INSTR('', ',' || SAFE_CAST(rank AS STRING) || '=') + LENGTH(SAFE_CAST(rank AS STRING)) + 2
                    ),
                    ','
                  ) - 1
                ),
                ''
              ) AS FLOAT64),
              SAFE_CAST(0 AS FLOAT64)
            )
          END
        END
      ) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM g
    WHERE
      NOT rank IS NULL
      AND (
        10 IS NULL OR rank <= 10
      )
      AND gain <> SAFE_CAST(0 AS FLOAT64)
  ), best_pos AS (
    SELECT
      run_id,
      query_id,
      gain,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY gain DESC) AS pos
    FROM g
    WHERE
      gain > SAFE_CAST(0 AS FLOAT64)
      AND (
        'scaled' = 'ideal'
        OR (
          'scaled' = 'self' AND NOT rank IS NULL AND (
            10 IS NULL OR rank <= 10
          )
        )
      )
  ), best_run AS (
    SELECT
      run_id,
      query_id,
      SUM(
        CASE 'log2'
          WHEN 'log2'
          THEN gain / NULLIF(LOG(SAFE_CAST(pos AS FLOAT64) + SAFE_CAST(1 AS FLOAT64), 2), 0)
          WHEN 'log'
          THEN gain / NULLIF(
            (
              LN(SAFE_CAST(pos AS FLOAT64) + SAFE_CAST(1 AS FLOAT64)) / NULLIF(LN(SAFE_CAST(SAFE_CAST(2.0 AS FLOAT64) AS FLOAT64)), 0)
            ),
            0
          )
          WHEN 'jk'
          THEN CASE
            WHEN SAFE_CAST(pos AS FLOAT64) < SAFE_CAST(SAFE_CAST(2.0 AS FLOAT64) AS FLOAT64)
            THEN gain
            ELSE gain / NULLIF(
              (
                LN(SAFE_CAST(pos AS FLOAT64)) / NULLIF(LN(SAFE_CAST(SAFE_CAST(2.0 AS FLOAT64) AS FLOAT64)), 0)
              ),
              0
            )
          END
          WHEN 'none'
          THEN gain
          WHEN 'root'
          THEN gain / NULLIF(SQRT(SAFE_CAST(pos AS FLOAT64)), 0)
          WHEN 'rank'
          THEN gain / NULLIF(SAFE_CAST(pos AS FLOAT64), 0)
          WHEN 'square'
          THEN gain / NULLIF((
            SAFE_CAST(pos AS FLOAT64) * SAFE_CAST(pos AS FLOAT64)
          ), 0)
          ELSE gain * CASE
            WHEN '' = '' OR INSTR('', ',' || SAFE_CAST(pos AS STRING) || '=') = 0
            THEN SAFE_CAST(0 AS FLOAT64)
            ELSE COALESCE(
              SAFE_CAST(NULLIF(
                SUBSTRING(
                  SUBSTRING(
                    '',
                    INSTR('', ',' || SAFE_CAST(pos AS STRING) || '=') + LENGTH(SAFE_CAST(pos AS STRING)) + 2
                  ),
                  1,
                  INSTR(
                    SUBSTRING(
                      '',
                      INSTR('', ',' || SAFE_CAST(pos AS STRING) || '=') + LENGTH(SAFE_CAST(pos AS STRING)) + 2
                    ),
                    ','
                  ) - 1
                ),
                ''
              ) AS FLOAT64),
              SAFE_CAST(0 AS FLOAT64)
            )
          END
        END
      ) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY pos DESC) AS from_end
    FROM best_pos
    WHERE
      10 IS NULL OR pos <= 10
  ), wsum AS (
    SELECT
      SUM(
        CASE 'log2'
          WHEN 'log2'
          THEN SAFE_CAST(1 AS FLOAT64) / NULLIF(LOG(SAFE_CAST(pos AS FLOAT64) + SAFE_CAST(1 AS FLOAT64), 2), 0)
          WHEN 'log'
          THEN SAFE_CAST(1 AS FLOAT64) / NULLIF(
            (
              LN(SAFE_CAST(pos AS FLOAT64) + SAFE_CAST(1 AS FLOAT64)) / NULLIF(LN(SAFE_CAST(SAFE_CAST(2.0 AS FLOAT64) AS FLOAT64)), 0)
            ),
            0
          )
          WHEN 'jk'
          THEN CASE
            WHEN SAFE_CAST(pos AS FLOAT64) < SAFE_CAST(SAFE_CAST(2.0 AS FLOAT64) AS FLOAT64)
            THEN SAFE_CAST(1 AS FLOAT64)
            ELSE SAFE_CAST(1 AS FLOAT64) / NULLIF(
              (
                LN(SAFE_CAST(pos AS FLOAT64)) / NULLIF(LN(SAFE_CAST(SAFE_CAST(2.0 AS FLOAT64) AS FLOAT64)), 0)
              ),
              0
            )
          END
          WHEN 'none'
          THEN SAFE_CAST(1 AS FLOAT64)
          WHEN 'root'
          THEN SAFE_CAST(1 AS FLOAT64) / NULLIF(SQRT(SAFE_CAST(pos AS FLOAT64)), 0)
          WHEN 'rank'
          THEN SAFE_CAST(1 AS FLOAT64) / NULLIF(SAFE_CAST(pos AS FLOAT64), 0)
          WHEN 'square'
          THEN SAFE_CAST(1 AS FLOAT64) / NULLIF((
            SAFE_CAST(pos AS FLOAT64) * SAFE_CAST(pos AS FLOAT64)
          ), 0)
          ELSE SAFE_CAST(1 AS FLOAT64) * CASE
            WHEN '' = '' OR INSTR('', ',' || SAFE_CAST(pos AS STRING) || '=') = 0
            THEN SAFE_CAST(0 AS FLOAT64)
            ELSE COALESCE(
              SAFE_CAST(NULLIF(
                SUBSTRING(
                  SUBSTRING(
                    '',
                    INSTR('', ',' || SAFE_CAST(pos AS STRING) || '=') + LENGTH(SAFE_CAST(pos AS STRING)) + 2
                  ),
                  1,
                  INSTR(
                    SUBSTRING(
                      '',
                      INSTR('', ',' || SAFE_CAST(pos AS STRING) || '=') + LENGTH(SAFE_CAST(pos AS STRING)) + 2
                    ),
                    ','
                  ) - 1
                ),
                ''
              ) AS FLOAT64),
              SAFE_CAST(0 AS FLOAT64)
            )
          END
        END
      ) AS total
    FROM (
      SELECT
        d0.d + d1.d * 10 + d2.d * 100 + d3.d * 1000 + d4.d * 10000 + d5.d * 100000 + d6.d * 1000000 + d7.d * 10000000 + d8.d * 100000000 + 1 AS pos
      FROM (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d0
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d1
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d2
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d3
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d4
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d5
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d6
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d7
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d8
      WHERE
        d0.d < 10
        AND d1.d * 10 < 10
        AND d2.d * 100 < 10
        AND d3.d * 1000 < 10
        AND d4.d * 10000 < 10
        AND d5.d * 100000 < 10
        AND d6.d * 1000000 < 10
        AND d7.d * 10000000 < 10
        AND d8.d * 100000000 < 10
        AND d0.d + d1.d * 10 + d2.d * 100 + d3.d * 1000 + d4.d * 10000 + d5.d * 100000 + d6.d * 1000000 + d7.d * 10000000 + d8.d * 100000000 < 10
    ) AS po
    WHERE
      'scaled' = 'scaled'
  ), value_of AS (
    SELECT
      pa.run_id,
      pa.query_id,
      CASE 'scaled'
        WHEN 'none'
        THEN COALESCE(d.total, SAFE_CAST(0 AS FLOAT64))
        WHEN 'scaled'
        THEN COALESCE(d.total, SAFE_CAST(0 AS FLOAT64)) * (
          SAFE_CAST(1 AS FLOAT64) / NULLIF((
            pa.scale * w.total
          ), 0)
        )
        ELSE CASE
          WHEN bst.total > SAFE_CAST(0 AS FLOAT64)
          THEN COALESCE(d.total, SAFE_CAST(0 AS FLOAT64)) / NULLIF(bst.total, 0)
          ELSE SAFE_CAST(0 AS FLOAT64)
        END
      END AS value
    FROM (
      SELECT DISTINCT
        run_id,
        query_id,
        scale
      FROM g
    ) AS pa
    CROSS JOIN wsum AS w
    LEFT JOIN ranked AS d
      ON d.run_id = pa.run_id AND d.query_id = pa.query_id AND d.from_end = 1
    LEFT JOIN best_run AS bst
      ON bst.run_id = pa.run_id AND bst.query_id = pa.query_id AND bst.from_end = 1
  ), seen AS (
    SELECT
      run_id,
      query_id,
      SUM(
        CASE 'log2'
          WHEN 'log2'
          THEN SAFE_CAST(1 AS FLOAT64) / NULLIF(LOG(SAFE_CAST(rank AS FLOAT64) + SAFE_CAST(1 AS FLOAT64), 2), 0)
          WHEN 'log'
          THEN SAFE_CAST(1 AS FLOAT64) / NULLIF(
            (
              LN(SAFE_CAST(rank AS FLOAT64) + SAFE_CAST(1 AS FLOAT64)) / NULLIF(LN(SAFE_CAST(SAFE_CAST(2.0 AS FLOAT64) AS FLOAT64)), 0)
            ),
            0
          )
          WHEN 'jk'
          THEN CASE
            WHEN SAFE_CAST(rank AS FLOAT64) < SAFE_CAST(SAFE_CAST(2.0 AS FLOAT64) AS FLOAT64)
            THEN SAFE_CAST(1 AS FLOAT64)
            ELSE SAFE_CAST(1 AS FLOAT64) / NULLIF(
              (
                LN(SAFE_CAST(rank AS FLOAT64)) / NULLIF(LN(SAFE_CAST(SAFE_CAST(2.0 AS FLOAT64) AS FLOAT64)), 0)
              ),
              0
            )
          END
          WHEN 'none'
          THEN SAFE_CAST(1 AS FLOAT64)
          WHEN 'root'
          THEN SAFE_CAST(1 AS FLOAT64) / NULLIF(SQRT(SAFE_CAST(rank AS FLOAT64)), 0)
          WHEN 'rank'
          THEN SAFE_CAST(1 AS FLOAT64) / NULLIF(SAFE_CAST(rank AS FLOAT64), 0)
          WHEN 'square'
          THEN SAFE_CAST(1 AS FLOAT64) / NULLIF((
            SAFE_CAST(rank AS FLOAT64) * SAFE_CAST(rank AS FLOAT64)
          ), 0)
          ELSE SAFE_CAST(1 AS FLOAT64) * CASE
            WHEN '' = '' OR INSTR('', ',' || SAFE_CAST(rank AS STRING) || '=') = 0
            THEN SAFE_CAST(0 AS FLOAT64)
            ELSE COALESCE(
              SAFE_CAST(NULLIF(
                SUBSTRING(
                  SUBSTRING(
                    '',
                    INSTR('', ',' || SAFE_CAST(rank AS STRING) || '=') + LENGTH(SAFE_CAST(rank AS STRING)) + 2
                  ),
                  1,
                  INSTR(
                    SUBSTRING(
                      '',
                      INSTR('', ',' || SAFE_CAST(rank AS STRING) || '=') + LENGTH(SAFE_CAST(rank AS STRING)) + 2
                    ),
                    ','
                  ) - 1
                ),
                ''
              ) AS FLOAT64),
              SAFE_CAST(0 AS FLOAT64)
            )
          END
        END
      ) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS seen_w,
      SUM(
        CASE
          WHEN relevance IS NULL
          THEN CASE 'log2'
            WHEN 'log2'
            THEN SAFE_CAST(1 AS FLOAT64) / NULLIF(LOG(SAFE_CAST(rank AS FLOAT64) + SAFE_CAST(1 AS FLOAT64), 2), 0)
            WHEN 'log'
            THEN SAFE_CAST(1 AS FLOAT64) / NULLIF(
              (
                LN(SAFE_CAST(rank AS FLOAT64) + SAFE_CAST(1 AS FLOAT64)) / NULLIF(LN(SAFE_CAST(SAFE_CAST(2.0 AS FLOAT64) AS FLOAT64)), 0)
              ),
              0
            )
            WHEN 'jk'
            THEN CASE
              WHEN SAFE_CAST(rank AS FLOAT64) < SAFE_CAST(SAFE_CAST(2.0 AS FLOAT64) AS FLOAT64)
              THEN SAFE_CAST(1 AS FLOAT64)
              ELSE SAFE_CAST(1 AS FLOAT64) / NULLIF(
                (
                  LN(SAFE_CAST(rank AS FLOAT64)) / NULLIF(LN(SAFE_CAST(SAFE_CAST(2.0 AS FLOAT64) AS FLOAT64)), 0)
                ),
                0
              )
            END
            WHEN 'none'
            THEN SAFE_CAST(1 AS FLOAT64)
            WHEN 'root'
            THEN SAFE_CAST(1 AS FLOAT64) / NULLIF(SQRT(SAFE_CAST(rank AS FLOAT64)), 0)
            WHEN 'rank'
            THEN SAFE_CAST(1 AS FLOAT64) / NULLIF(SAFE_CAST(rank AS FLOAT64), 0)
            WHEN 'square'
            THEN SAFE_CAST(1 AS FLOAT64) / NULLIF((
              SAFE_CAST(rank AS FLOAT64) * SAFE_CAST(rank AS FLOAT64)
            ), 0)
            ELSE SAFE_CAST(1 AS FLOAT64) * CASE
              WHEN '' = '' OR INSTR('', ',' || SAFE_CAST(rank AS STRING) || '=') = 0
              THEN SAFE_CAST(0 AS FLOAT64)
              ELSE COALESCE(
                SAFE_CAST(NULLIF(
                  SUBSTRING(
                    SUBSTRING(
                      '',
                      INSTR('', ',' || SAFE_CAST(rank AS STRING) || '=') + LENGTH(SAFE_CAST(rank AS STRING)) + 2
                    ),
                    1,
                    INSTR(
                      SUBSTRING(
                        '',
                        INSTR('', ',' || SAFE_CAST(rank AS STRING) || '=') + LENGTH(SAFE_CAST(rank AS STRING)) + 2
                      ),
                      ','
                    ) - 1
                  ),
                  ''
                ) AS FLOAT64),
                SAFE_CAST(0 AS FLOAT64)
              )
            END
          END
          ELSE SAFE_CAST(0 AS FLOAT64)
        END
      ) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS unjudged_w,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM `evaluation`
    WHERE
      NOT rank IS NULL AND rank <= 10
  ), resid AS (
    SELECT
      v.run_id,
      v.query_id,
      v.value,
      (
        COALESCE(s.unjudged_w, SAFE_CAST(0 AS FLOAT64)) + (
          w.total - COALESCE(s.seen_w, SAFE_CAST(0 AS FLOAT64))
        )
      ) * (
        SAFE_CAST(1 AS FLOAT64) / NULLIF(w.total, 0)
      ) AS raw
    FROM value_of AS v
    CROSS JOIN wsum AS w
    LEFT JOIN seen AS s
      ON s.run_id = v.run_id AND s.query_id = v.query_id AND s.from_end = 1
  )
  SELECT
    run_id,
    query_id,
    value,
    CASE WHEN raw < SAFE_CAST(0 AS FLOAT64) THEN SAFE_CAST(0 AS FLOAT64) ELSE raw END AS residual
  FROM resid
) AS m;

-- measure: AP(norm='min',discount='custom',weights=(1.0,0.5))@10
SELECT
  m.run_id,
  m.query_id,
  m.value
FROM (
  WITH graded AS (
    SELECT
      run_id,
      query_id,
      rank,
      CASE
        WHEN relevance IS NULL
        THEN SAFE_CAST(0 AS FLOAT64)
        WHEN '' = ''
        THEN CASE
          WHEN relevance >= 1
          THEN SAFE_CAST(1 AS FLOAT64)
          ELSE SAFE_CAST(0 AS FLOAT64)
        END
        ELSE COALESCE(
          CASE
            WHEN '' = '' OR INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') = 0
            THEN SAFE_CAST(NULL AS FLOAT64)
            ELSE SAFE_CAST(NULLIF(
              SUBSTRING(
                SUBSTRING(
                  '',
                  INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') + LENGTH(SAFE_CAST(relevance AS STRING)) + 2
                ),
                1,
                INSTR(
                  SUBSTRING(
                    '',
                    INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') + LENGTH(SAFE_CAST(relevance AS STRING)) + 2
                  ),
                  ','
                ) - 1
              ),
              ''
            ) AS FLOAT64)
          END,
          SAFE_CAST(0 AS FLOAT64)
        )
      END AS r
    FROM `evaluation`
  ), cum AS (
    SELECT
      run_id,
      query_id,
      rank,
      r * SUM(r) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS rc
    FROM graded
    WHERE
      NOT rank IS NULL AND (
        10 IS NULL OR rank <= 10
      )
  ), running AS (
    SELECT
      run_id,
      query_id,
      SUM(
        CASE 'custom'
          WHEN 'log2'
          THEN rc / NULLIF(LOG(SAFE_CAST(rank AS FLOAT64) + SAFE_CAST(1 AS FLOAT64), 2), 0)
          WHEN 'log'
          THEN rc / NULLIF(
            (
              LN(SAFE_CAST(rank AS FLOAT64) + SAFE_CAST(1 AS FLOAT64)) / NULLIF(LN(SAFE_CAST(SAFE_CAST(2.0 AS FLOAT64) AS FLOAT64)), 0)
            ),
            0
          )
          WHEN 'jk'
          THEN CASE
            WHEN SAFE_CAST(rank AS FLOAT64) < SAFE_CAST(SAFE_CAST(2.0 AS FLOAT64) AS FLOAT64)
            THEN rc
            ELSE rc / NULLIF(
              (
                LN(SAFE_CAST(rank AS FLOAT64)) / NULLIF(LN(SAFE_CAST(SAFE_CAST(2.0 AS FLOAT64) AS FLOAT64)), 0)
              ),
              0
            )
          END
          WHEN 'none'
          THEN rc
          WHEN 'root'
          THEN rc / NULLIF(SQRT(SAFE_CAST(rank AS FLOAT64)), 0)
          WHEN 'rank'
          THEN rc / NULLIF(SAFE_CAST(rank AS FLOAT64), 0)
          WHEN 'square'
          THEN rc / NULLIF((
            SAFE_CAST(rank AS FLOAT64) * SAFE_CAST(rank AS FLOAT64)
          ), 0)
          ELSE rc * CASE
            WHEN ',1=1.0,2=0.5,' = ''
            OR INSTR(',1=1.0,2=0.5,', ',' || SAFE_CAST(rank AS STRING) || '=') = 0
            THEN SAFE_CAST(0 AS FLOAT64)
            ELSE COALESCE(
              SAFE_CAST(NULLIF(
                SUBSTRING(
                  SUBSTRING(
                    ',1=1.0,2=0.5,',
                    INSTR(',1=1.0,2=0.5,', ',' || SAFE_CAST(rank AS STRING) || '=') + LENGTH(SAFE_CAST(rank AS STRING)) + 2
                  ),
                  1,
                  INSTR(
                    SUBSTRING(
                      ',1=1.0,2=0.5,',
                      INSTR(',1=1.0,2=0.5,', ',' || SAFE_CAST(rank AS STRING) || '=') + LENGTH(SAFE_CAST(rank AS STRING)) + 2
                    ),
                    ','
                  ) - 1
                ),
                ''
              ) AS FLOAT64),
              SAFE_CAST(0 AS FLOAT64)
            )
          END
        END
      ) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM cum
  ), counts AS (
    SELECT
      run_id,
      query_id,
      SUM(CASE WHEN r > SAFE_CAST(0 AS FLOAT64) THEN 1 ELSE 0 END) AS n_all,
      SUM(
        CASE
          WHEN r > SAFE_CAST(0 AS FLOAT64)
          AND NOT rank IS NULL
          AND (
            10 IS NULL OR rank <= 10
          )
          THEN 1
          ELSE 0
        END
      ) AS n_top
    FROM graded
    GROUP BY
      run_id,
      query_id
  ), normed AS (
    SELECT
      c.run_id,
      c.query_id,
      COALESCE(x.total, SAFE_CAST(0 AS FLOAT64)) AS total,
      CASE
        WHEN 'min' = 'self'
        THEN c.n_top
        WHEN 'min' = 'min' AND NOT 10 IS NULL AND 10 < c.n_all
        THEN 10
        ELSE c.n_all
      END AS n
    FROM counts AS c
    LEFT JOIN running AS x
      ON x.run_id = c.run_id AND x.query_id = c.query_id AND x.from_end = 1
  )
  SELECT
    run_id,
    query_id,
    CASE
      WHEN n > 0
      THEN total / NULLIF(SAFE_CAST(n AS FLOAT64), 0)
      ELSE SAFE_CAST(0 AS FLOAT64)
    END AS value
  FROM normed
) AS m;

-- measure: SP
SELECT
  m.run_id,
  m.query_id,
  m.value
FROM (
  WITH hits AS (
    SELECT
      run_id,
      query_id,
      rank,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank) AS i
    FROM `evaluation`
    WHERE
      NOT rank IS NULL
      AND (
        NULL IS NULL OR rank <= NULL
      )
      AND NOT relevance IS NULL
      AND relevance >= 1
  ), running AS (
    SELECT
      run_id,
      query_id,
      SUM(SAFE_CAST(i AS FLOAT64) / NULLIF(SAFE_CAST(rank AS FLOAT64), 0)) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM hits
  )
  SELECT
    pa.run_id,
    pa.query_id,
    COALESCE(x.total, SAFE_CAST(0 AS FLOAT64)) AS value
  FROM (
    SELECT DISTINCT
      run_id,
      query_id
    FROM `evaluation`
  ) AS pa
  LEFT JOIN running AS x
    ON x.run_id = pa.run_id AND x.query_id = pa.query_id AND x.from_end = 1
) AS m;

-- measure: Q
SELECT
  m.run_id,
  m.query_id,
  m.value
FROM (
  WITH g AS (
    SELECT
      run_id,
      query_id,
      rank,
      relevance,
      CASE
        WHEN relevance IS NULL OR relevance < 0
        THEN SAFE_CAST(0 AS FLOAT64)
        ELSE COALESCE(
          CASE
            WHEN '' = '' OR INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') = 0
            THEN SAFE_CAST(NULL AS FLOAT64)
            ELSE SAFE_CAST(NULLIF(
              SUBSTRING(
                SUBSTRING(
                  '',
                  INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') + LENGTH(SAFE_CAST(relevance AS STRING)) + 2
                ),
                1,
                INSTR(
                  SUBSTRING(
                    '',
                    INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') + LENGTH(SAFE_CAST(relevance AS STRING)) + 2
                  ),
                  ','
                ) - 1
              ),
              ''
            ) AS FLOAT64)
          END,
          SAFE_CAST(relevance AS FLOAT64)
        )
      END AS gain,
      CASE WHEN NOT relevance IS NULL AND relevance >= 1 THEN 1 ELSE 0 END AS is_rel
    FROM `evaluation`
  ), ideal AS (
    SELECT
      run_id,
      query_id,
      pos,
      SUM(gain) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS cum_gain,
      COUNT(*) OVER (PARTITION BY run_id, query_id) AS len
    FROM (
      SELECT
        run_id,
        query_id,
        gain,
        ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY gain DESC) AS pos
      FROM g
      WHERE
        gain > SAFE_CAST(0 AS FLOAT64)
    ) AS ip
  ), ilen AS (
    SELECT DISTINCT
      run_id,
      query_id,
      len
    FROM ideal
  ), ranked AS (
    SELECT
      run_id,
      query_id,
      rank,
      is_rel,
      SUM(SAFE_CAST(is_rel AS FLOAT64)) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS found,
      SUM(gain) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS cum_gain
    FROM g
    WHERE
      NOT rank IS NULL AND (
        NULL IS NULL OR rank <= NULL
      )
  ), terms AS (
    SELECT
      r.run_id,
      r.query_id,
      r.rank,
      (
        r.found + SAFE_CAST(SAFE_CAST(1.0 AS FLOAT64) AS FLOAT64) * r.cum_gain
      ) / NULLIF(
        (
          SAFE_CAST(r.rank AS FLOAT64) + SAFE_CAST(SAFE_CAST(1.0 AS FLOAT64) AS FLOAT64) * COALESCE(i.cum_gain, SAFE_CAST(0 AS FLOAT64))
        ),
        0
      ) AS term
    FROM ranked AS r
    LEFT JOIN ilen AS l
      ON l.run_id = r.run_id AND l.query_id = r.query_id
    LEFT JOIN ideal AS i
      ON i.run_id = r.run_id
      AND i.query_id = r.query_id
      AND i.pos = CASE WHEN r.rank < l.len THEN r.rank ELSE l.len END
    WHERE
      r.is_rel = 1
  ), running AS (
    SELECT
      run_id,
      query_id,
      SUM(term) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM terms
  )
  SELECT
    s.run_id,
    s.query_id,
    CASE
      WHEN s.num_rel > 0
      THEN COALESCE(x.total, SAFE_CAST(0 AS FLOAT64)) / NULLIF(SAFE_CAST(s.num_rel AS FLOAT64), 0)
      ELSE SAFE_CAST(0 AS FLOAT64)
    END AS value
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
      SUM(CASE WHEN is_ret_k = 1 AND NOT relevance IS NULL THEN 1 ELSE 0 END) AS judged_k,
      SUM(
        CASE
          WHEN is_ret_k = 1 AND (
            relevance IS NULL OR relevance < 0
          )
          THEN 1
          ELSE 0
        END
      ) AS unjudged_k,
      SUM(CASE WHEN is_ret_k = 1 AND relevance IS NULL THEN 1 ELSE 0 END) AS unknown_k,
      MIN(CASE WHEN is_ret_k = 1 AND is_rel = 1 THEN rank END) AS first_rel_k
    FROM (
      SELECT
        run_id,
        query_id,
        rank,
        relevance,
        CASE WHEN NOT rank IS NULL THEN 1 ELSE 0 END AS is_ret,
        CASE WHEN NOT rank IS NULL AND (
          NULL IS NULL OR rank <= NULL
        ) THEN 1 ELSE 0 END AS is_ret_k,
        CASE WHEN NOT relevance IS NULL AND relevance >= 1 THEN 1 ELSE 0 END AS is_rel,
        CASE
          WHEN NOT relevance IS NULL AND relevance >= 0 AND relevance < 1
          THEN 1
          ELSE 0
        END AS is_nonrel
      FROM `evaluation`
    ) AS f
    GROUP BY
      run_id,
      query_id
  ) AS s
  LEFT JOIN running AS x
    ON x.run_id = s.run_id AND x.query_id = s.query_id AND x.from_end = 1
) AS m;

-- measure: ERR@20
SELECT
  m.run_id,
  m.query_id,
  m.value
FROM (
  WITH stops AS (
    SELECT
      run_id,
      query_id,
      rank,
      (
        POWER(
          SAFE_CAST(2 AS FLOAT64),
          SAFE_CAST(CASE
            WHEN relevance IS NULL OR relevance < 0
            THEN 0
            WHEN relevance > 4
            THEN 4
            ELSE relevance
          END AS FLOAT64)
        ) - SAFE_CAST(1 AS FLOAT64)
      ) * (
        SAFE_CAST(1 AS FLOAT64) / NULLIF(POWER(SAFE_CAST(2 AS FLOAT64), SAFE_CAST(4 AS FLOAT64)), 0)
      ) AS stop
    FROM `evaluation`
    WHERE
      NOT rank IS NULL AND (
        20 IS NULL OR rank <= 20
      )
  ), reached AS (
    SELECT
      run_id,
      query_id,
      rank,
      stop,
      EXP(
        COALESCE(
          SUM(LN(SAFE_CAST(1 AS FLOAT64) - stop)) OVER (
            PARTITION BY run_id, query_id
            ORDER BY rank
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
          ),
          SAFE_CAST(0 AS FLOAT64)
        )
      ) AS reach
    FROM stops
  ), running AS (
    SELECT
      run_id,
      query_id,
      SUM(stop * reach / NULLIF(SAFE_CAST(rank AS FLOAT64), 0)) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM reached
  )
  SELECT
    pa.run_id,
    pa.query_id,
    COALESCE(x.total, SAFE_CAST(0 AS FLOAT64)) AS value
  FROM (
    SELECT DISTINCT
      run_id,
      query_id
    FROM `evaluation`
  ) AS pa
  LEFT JOIN running AS x
    ON x.run_id = pa.run_id AND x.query_id = pa.query_id AND x.from_end = 1
) AS m;

-- measure: HIT@10
SELECT
  m.run_id,
  m.query_id,
  m.value
FROM (
  SELECT
    run_id,
    query_id,
    COALESCE(
      MAX(
        CASE
          WHEN NOT rank IS NULL AND (
            10 IS NULL OR rank <= 10
          )
          THEN CASE
            WHEN relevance IS NULL
            THEN SAFE_CAST(0 AS FLOAT64)
            WHEN '' = ''
            THEN SAFE_CAST(CASE WHEN relevance < 0 THEN 0 WHEN relevance > 1 THEN 1 ELSE relevance END AS FLOAT64) / NULLIF(SAFE_CAST(1 AS FLOAT64), 0)
            ELSE COALESCE(
              CASE
                WHEN '' = '' OR INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') = 0
                THEN SAFE_CAST(NULL AS FLOAT64)
                ELSE SAFE_CAST(NULLIF(
                  SUBSTRING(
                    SUBSTRING(
                      '',
                      INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') + LENGTH(SAFE_CAST(relevance AS STRING)) + 2
                    ),
                    1,
                    INSTR(
                      SUBSTRING(
                        '',
                        INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') + LENGTH(SAFE_CAST(relevance AS STRING)) + 2
                      ),
                      ','
                    ) - 1
                  ),
                  ''
                ) AS FLOAT64)
              END,
              SAFE_CAST(0 AS FLOAT64)
            )
          END
        END
      ),
      SAFE_CAST(0 AS FLOAT64)
    ) AS value
  FROM `evaluation`
  GROUP BY
    run_id,
    query_id
) AS m;

-- measure: InvSq@10
SELECT
  m.run_id,
  m.query_id,
  m.value
FROM (
  WITH t AS (
    SELECT
      run_id,
      query_id,
      rank,
      CASE
        WHEN relevance IS NULL
        THEN SAFE_CAST(0 AS FLOAT64)
        WHEN '' = ''
        THEN SAFE_CAST(CASE WHEN relevance < 0 THEN 0 WHEN relevance > 1 THEN 1 ELSE relevance END AS FLOAT64) / NULLIF(SAFE_CAST(1 AS FLOAT64), 0)
        ELSE COALESCE(
          CASE
            WHEN '' = '' OR INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') = 0
            THEN SAFE_CAST(NULL AS FLOAT64)
            ELSE SAFE_CAST(NULLIF(
              SUBSTRING(
                SUBSTRING(
                  '',
                  INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') + LENGTH(SAFE_CAST(relevance AS STRING)) + 2
                ),
                1,
                INSTR(
                  SUBSTRING(
                    '',
                    INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') + LENGTH(SAFE_CAST(relevance AS STRING)) + 2
                  ),
                  ','
                ) - 1
              ),
              ''
            ) AS FLOAT64)
          END,
          SAFE_CAST(0 AS FLOAT64)
        )
      END / NULLIF(
        (
          SAFE_CAST(rank AS FLOAT64) * (
            SAFE_CAST(rank AS FLOAT64) + SAFE_CAST(1 AS FLOAT64)
          )
        ),
        0
      ) AS term,
      CASE
        WHEN relevance IS NULL
        THEN SAFE_CAST(1 AS FLOAT64) / NULLIF(
          (
            SAFE_CAST(rank AS FLOAT64) * (
              SAFE_CAST(rank AS FLOAT64) + SAFE_CAST(1 AS FLOAT64)
            )
          ),
          0
        )
        ELSE SAFE_CAST(0 AS FLOAT64)
      END AS unjudged
    FROM `evaluation`
    WHERE
      NOT rank IS NULL AND (
        10 IS NULL OR rank <= 10
      )
  ), running AS (
    SELECT
      run_id,
      query_id,
      SUM(term) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      SUM(unjudged) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS unjudged_w,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank ASC) AS depth,
      SUM(CASE WHEN unjudged = SAFE_CAST(0 AS FLOAT64) THEN 1 ELSE 0 END) OVER (PARTITION BY run_id, query_id) AS judged,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM t
  )
  SELECT
    pa.run_id,
    pa.query_id,
    COALESCE(x.total, SAFE_CAST(0 AS FLOAT64)) AS value,
    CASE
      WHEN COALESCE(x.judged, 0) = 0
      THEN SAFE_CAST(1 AS FLOAT64)
      ELSE LEAST(
        SAFE_CAST(1 AS FLOAT64),
        x.unjudged_w + SAFE_CAST(1 AS FLOAT64) / NULLIF((
          SAFE_CAST(x.depth AS FLOAT64) + SAFE_CAST(1 AS FLOAT64)
        ), 0)
      )
    END AS residual
  FROM (
    SELECT DISTINCT
      run_id,
      query_id
    FROM `evaluation`
  ) AS pa
  LEFT JOIN running AS x
    ON x.run_id = pa.run_id AND x.query_id = pa.query_id AND x.from_end = 1
) AS m;

-- measure: RBP(ties='average')@10
SELECT
  m.run_id,
  m.query_id,
  m.value
FROM (
  WITH t AS (
    SELECT
      run_id,
      query_id,
      rank,
      CASE
        WHEN relevance IS NULL
        THEN SAFE_CAST(0 AS FLOAT64)
        WHEN '' = ''
        THEN CASE
          WHEN relevance >= 1
          THEN SAFE_CAST(1 AS FLOAT64)
          ELSE SAFE_CAST(0 AS FLOAT64)
        END
        ELSE COALESCE(
          CASE
            WHEN '' = '' OR INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') = 0
            THEN SAFE_CAST(NULL AS FLOAT64)
            ELSE SAFE_CAST(NULLIF(
              SUBSTRING(
                SUBSTRING(
                  '',
                  INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') + LENGTH(SAFE_CAST(relevance AS STRING)) + 2
                ),
                1,
                INSTR(
                  SUBSTRING(
                    '',
                    INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') + LENGTH(SAFE_CAST(relevance AS STRING)) + 2
                  ),
                  ','
                ) - 1
              ),
              ''
            ) AS FLOAT64)
          END,
          SAFE_CAST(0 AS FLOAT64)
        )
      END * weight AS term
    FROM (
      SELECT
        run_id,
        query_id,
        rank,
        relevance,
        (
          SAFE_CAST(1 AS FLOAT64) - SAFE_CAST(SAFE_CAST(0.8 AS FLOAT64) AS FLOAT64)
        ) * POWER(
          SAFE_CAST(SAFE_CAST(0.8 AS FLOAT64) AS FLOAT64),
          SAFE_CAST(rank AS FLOAT64) - SAFE_CAST(1 AS FLOAT64)
        ) AS weight
      FROM `evaluation`
      WHERE
        'average' = 'rank' AND NOT rank IS NULL AND (
          10 IS NULL OR rank <= 10
        )
      UNION ALL
      SELECT
        run_id,
        query_id,
        rank,
        relevance,
        CASE
          WHEN 10 IS NULL
          THEN mean
          ELSE mean * (
            CASE
              WHEN end_pos < SAFE_CAST(10 AS FLOAT64)
              THEN end_pos
              ELSE SAFE_CAST(10 AS FLOAT64)
            END - start_pos
          ) / NULLIF(size, 0)
        END AS weight
      FROM (
        SELECT
          run_id,
          query_id,
          rank,
          relevance,
          start_pos,
          end_pos - start_pos AS size,
          end_pos,
          (
            POWER(SAFE_CAST(SAFE_CAST(0.8 AS FLOAT64) AS FLOAT64), start_pos) - POWER(SAFE_CAST(SAFE_CAST(0.8 AS FLOAT64) AS FLOAT64), end_pos)
          ) / NULLIF((
            end_pos - start_pos
          ), 0) AS mean
        FROM (
          SELECT
            run_id,
            query_id,
            rank,
            relevance,
            SAFE_CAST(RANK() OVER (PARTITION BY run_id, query_id ORDER BY score DESC) - 1 AS FLOAT64) AS start_pos,
            SAFE_CAST(COUNT(*) OVER (PARTITION BY run_id, query_id) - RANK() OVER (PARTITION BY run_id, query_id ORDER BY score ASC) + 1 AS FLOAT64) AS end_pos
          FROM `evaluation`
          WHERE
            'average' = 'average' AND NOT rank IS NULL
        ) AS tie
      ) AS tw
      WHERE
        10 IS NULL OR start_pos < SAFE_CAST(10 AS FLOAT64)
    ) AS w
  ), running AS (
    SELECT
      run_id,
      query_id,
      SUM(term) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC) AS from_end
    FROM t
  )
  SELECT
    pa.run_id,
    pa.query_id,
    COALESCE(x.total, SAFE_CAST(0 AS FLOAT64)) AS value,
    SAFE_CAST(1 AS FLOAT64) / NULLIF(
      (
        (
          SAFE_CAST(1 AS FLOAT64) - SAFE_CAST(SAFE_CAST(0.8 AS FLOAT64) AS FLOAT64)
        ) * POWER(SAFE_CAST(SAFE_CAST(0.8 AS FLOAT64) AS FLOAT64), SAFE_CAST(0 AS FLOAT64))
      ),
      0
    ) AS depth
  FROM (
    SELECT DISTINCT
      run_id,
      query_id
    FROM `evaluation`
  ) AS pa
  LEFT JOIN running AS x
    ON x.run_id = pa.run_id AND x.query_id = pa.query_id AND x.from_end = 1
) AS m;

-- measure: INST@10
SELECT
  m.run_id,
  m.query_id,
  m.value
FROM (
  WITH seen AS (
    SELECT
      run_id,
      query_id,
      rank,
      CASE
        WHEN relevance IS NULL
        THEN NULL
        WHEN NOT NULL IS NULL
        THEN CASE
          WHEN relevance >= NULL
          THEN SAFE_CAST(1 AS FLOAT64)
          WHEN relevance <= 0
          THEN SAFE_CAST(0 AS FLOAT64)
          ELSE SAFE_CAST(relevance - 0 AS FLOAT64) / NULLIF(SAFE_CAST(NULL - 0 AS FLOAT64), 0)
        END
        WHEN '' = ''
        THEN CASE
          WHEN relevance >= 1
          THEN SAFE_CAST(1 AS FLOAT64)
          ELSE SAFE_CAST(0 AS FLOAT64)
        END
        ELSE COALESCE(
          CASE
            WHEN '' = '' OR INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') = 0
            THEN SAFE_CAST(NULL AS FLOAT64)
            ELSE SAFE_CAST(NULLIF(
              SUBSTRING(
                SUBSTRING(
                  '',
                  INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') + LENGTH(SAFE_CAST(relevance AS STRING)) + 2
                ),
                1,
                INSTR(
                  SUBSTRING(
                    '',
                    INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') + LENGTH(SAFE_CAST(relevance AS STRING)) + 2
                  ),
                  ','
                ) - 1
              ),
              ''
            ) AS FLOAT64)
          END,
          SAFE_CAST(0 AS FLOAT64)
        )
      END AS gain
    FROM `evaluation`
    WHERE
      NOT rank IS NULL AND rank <= 10
  ), known AS (
    SELECT
      pa.run_id,
      pa.query_id,
      po.pos,
      SAFE_CAST(po.pos AS FLOAT64) AS i,
      COALESCE(s.gain, SAFE_CAST(0 AS FLOAT64)) AS g_lo,
      COALESCE(s.gain, SAFE_CAST(1 AS FLOAT64)) AS g_hi
    FROM (
      SELECT DISTINCT
        run_id,
        query_id
      FROM `evaluation`
    ) AS pa
    CROSS JOIN (
      SELECT
        d0.d + d1.d * 10 + d2.d * 100 + d3.d * 1000 + d4.d * 10000 + d5.d * 100000 + d6.d * 1000000 + d7.d * 10000000 + d8.d * 100000000 + 1 AS pos
      FROM (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d0
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d1
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d2
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d3
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d4
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d5
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d6
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d7
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d8
      WHERE
        d0.d < 10
        AND d1.d * 10 < 10
        AND d2.d * 100 < 10
        AND d3.d * 1000 < 10
        AND d4.d * 10000 < 10
        AND d5.d * 100000 < 10
        AND d6.d * 1000000 < 10
        AND d7.d * 10000000 < 10
        AND d8.d * 100000000 < 10
        AND d0.d + d1.d * 10 + d2.d * 100 + d3.d * 1000 + d4.d * 10000 + d5.d * 100000 + d6.d * 1000000 + d7.d * 10000000 + d8.d * 100000000 < 10
    ) AS po
    LEFT JOIN seen AS s
      ON s.run_id = pa.run_id AND s.query_id = pa.query_id AND s.rank = po.pos
  ), cells AS (
    SELECT
      run_id,
      query_id,
      pos,
      i,
      g_lo,
      g_hi,
      SUM(g_lo) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS cg_lo,
      SUM(g_hi) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS cg_hi
    FROM known
  ), ratios AS (
    SELECT
      run_id,
      query_id,
      pos,
      g_lo,
      g_hi,
      (
        i + SAFE_CAST(SAFE_CAST(1.0 AS FLOAT64) AS FLOAT64) + (
          SAFE_CAST(SAFE_CAST(1.0 AS FLOAT64) AS FLOAT64) - cg_lo
        ) - SAFE_CAST(1 AS FLOAT64)
      ) / NULLIF(
        (
          i + SAFE_CAST(SAFE_CAST(1.0 AS FLOAT64) AS FLOAT64) + (
            SAFE_CAST(SAFE_CAST(1.0 AS FLOAT64) AS FLOAT64) - cg_lo
          )
        ),
        0
      ) AS q_lo,
      (
        i + SAFE_CAST(SAFE_CAST(1.0 AS FLOAT64) AS FLOAT64) + (
          SAFE_CAST(SAFE_CAST(1.0 AS FLOAT64) AS FLOAT64) - cg_hi
        ) - SAFE_CAST(1 AS FLOAT64)
      ) / NULLIF(
        (
          i + SAFE_CAST(SAFE_CAST(1.0 AS FLOAT64) AS FLOAT64) + (
            SAFE_CAST(SAFE_CAST(1.0 AS FLOAT64) AS FLOAT64) - cg_hi
          )
        ),
        0
      ) AS q_hi
    FROM cells
  ), cont AS (
    SELECT
      run_id,
      query_id,
      pos,
      g_lo,
      g_hi,
      q_lo * q_lo AS c_lo,
      q_hi * q_hi AS c_hi
    FROM ratios
  ), weighted AS (
    SELECT
      run_id,
      query_id,
      pos,
      g_lo,
      g_hi,
      CASE
        WHEN COALESCE(
          SUM(CASE WHEN c_lo > SAFE_CAST(0 AS FLOAT64) THEN 0 ELSE 1 END) OVER (
            PARTITION BY run_id, query_id
            ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
          ),
          0
        ) > 0
        THEN SAFE_CAST(0 AS FLOAT64)
        ELSE EXP(
          COALESCE(
            SUM(
              LN(
                CASE WHEN c_lo > SAFE_CAST(0 AS FLOAT64) THEN c_lo ELSE SAFE_CAST(1 AS FLOAT64) END
              )
            ) OVER (
              PARTITION BY run_id, query_id
              ORDER BY pos
              ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
            ),
            SAFE_CAST(0 AS FLOAT64)
          )
        )
      END AS w_lo,
      CASE
        WHEN COALESCE(
          SUM(CASE WHEN c_hi > SAFE_CAST(0 AS FLOAT64) THEN 0 ELSE 1 END) OVER (
            PARTITION BY run_id, query_id
            ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
          ),
          0
        ) > 0
        THEN SAFE_CAST(0 AS FLOAT64)
        ELSE EXP(
          COALESCE(
            SUM(
              LN(
                CASE WHEN c_hi > SAFE_CAST(0 AS FLOAT64) THEN c_hi ELSE SAFE_CAST(1 AS FLOAT64) END
              )
            ) OVER (
              PARTITION BY run_id, query_id
              ORDER BY pos
              ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
            ),
            SAFE_CAST(0 AS FLOAT64)
          )
        )
      END AS w_hi
    FROM cont
  )
  SELECT
    run_id,
    query_id,
    MAX(s_lo) / NULLIF(MAX(t_lo), 0) AS value,
    CASE
      WHEN TRUE
      THEN MAX(s_hi) / NULLIF(MAX(t_hi), 0) - MAX(s_lo) / NULLIF(MAX(t_lo), 0)
      ELSE MAX(s_gap) / NULLIF(MAX(t_lo), 0)
    END AS residual,
    MAX(t_lo) / NULLIF(MAX(CASE WHEN pos = 1 THEN w_lo END), 0) AS depth
  FROM (
    SELECT
      run_id,
      query_id,
      pos,
      w_lo,
      SUM(w_lo) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS t_lo,
      SUM(w_hi) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS t_hi,
      SUM(w_lo * g_lo) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS s_lo,
      SUM(w_hi * g_hi) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS s_hi,
      SUM(w_lo * (
        g_hi - g_lo
      )) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS s_gap
    FROM weighted
  ) AS running
  GROUP BY
    run_id,
    query_id
) AS m;

-- measure: TBG@10
SELECT
  m.run_id,
  m.query_id,
  m.value
FROM (
  WITH seen AS (
    SELECT
      run_id,
      query_id,
      rank,
      CASE
        WHEN relevance IS NULL
        THEN NULL
        WHEN NOT NULL IS NULL
        THEN CASE
          WHEN relevance >= NULL
          THEN SAFE_CAST(1 AS FLOAT64)
          WHEN relevance <= 0
          THEN SAFE_CAST(0 AS FLOAT64)
          ELSE SAFE_CAST(relevance - 0 AS FLOAT64) / NULLIF(SAFE_CAST(NULL - 0 AS FLOAT64), 0)
        END
        WHEN '' = ''
        THEN CASE
          WHEN relevance >= 1
          THEN SAFE_CAST(1 AS FLOAT64)
          ELSE SAFE_CAST(0 AS FLOAT64)
        END
        ELSE COALESCE(
          CASE
            WHEN '' = '' OR INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') = 0
            THEN SAFE_CAST(NULL AS FLOAT64)
            ELSE SAFE_CAST(NULLIF(
              SUBSTRING(
                SUBSTRING(
                  '',
                  INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') + LENGTH(SAFE_CAST(relevance AS STRING)) + 2
                ),
                1,
                INSTR(
                  SUBSTRING(
                    '',
                    INSTR('', ',' || SAFE_CAST(relevance AS STRING) || '=') + LENGTH(SAFE_CAST(relevance AS STRING)) + 2
                  ),
                  ','
                ) - 1
              ),
              ''
            ) AS FLOAT64)
          END,
          SAFE_CAST(0 AS FLOAT64)
        )
      END AS gain
    FROM `evaluation`
    WHERE
      NOT rank IS NULL AND rank <= 10
  ), known AS (
    SELECT
      pa.run_id,
      pa.query_id,
      po.pos,
      SAFE_CAST(po.pos AS FLOAT64) AS i,
      COALESCE(s.gain, SAFE_CAST(0 AS FLOAT64)) AS g_lo,
      COALESCE(s.gain, SAFE_CAST(1 AS FLOAT64)) AS g_hi
    FROM (
      SELECT DISTINCT
        run_id,
        query_id
      FROM `evaluation`
    ) AS pa
    CROSS JOIN (
      SELECT
        d0.d + d1.d * 10 + d2.d * 100 + d3.d * 1000 + d4.d * 10000 + d5.d * 100000 + d6.d * 1000000 + d7.d * 10000000 + d8.d * 100000000 + 1 AS pos
      FROM (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d0
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d1
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d2
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d3
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d4
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d5
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d6
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d7
      CROSS JOIN (
        SELECT
          0 AS d
        UNION ALL
        SELECT
          1 AS d
        UNION ALL
        SELECT
          2 AS d
        UNION ALL
        SELECT
          3 AS d
        UNION ALL
        SELECT
          4 AS d
        UNION ALL
        SELECT
          5 AS d
        UNION ALL
        SELECT
          6 AS d
        UNION ALL
        SELECT
          7 AS d
        UNION ALL
        SELECT
          8 AS d
        UNION ALL
        SELECT
          9 AS d
      ) AS d8
      WHERE
        d0.d < 10
        AND d1.d * 10 < 10
        AND d2.d * 100 < 10
        AND d3.d * 1000 < 10
        AND d4.d * 10000 < 10
        AND d5.d * 100000 < 10
        AND d6.d * 1000000 < 10
        AND d7.d * 10000000 < 10
        AND d8.d * 100000000 < 10
        AND d0.d + d1.d * 10 + d2.d * 100 + d3.d * 1000 + d4.d * 10000 + d5.d * 100000 + d6.d * 1000000 + d7.d * 10000000 + d8.d * 100000000 < 10
    ) AS po
    LEFT JOIN seen AS s
      ON s.run_id = pa.run_id AND s.query_id = pa.query_id AND s.rank = po.pos
  ), cells AS (
    SELECT
      run_id,
      query_id,
      pos,
      i,
      g_lo,
      g_hi,
      SUM(g_lo) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS cg_lo,
      SUM(g_hi) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS cg_hi
    FROM known
  ), weighted AS (
    SELECT
      run_id,
      query_id,
      pos,
      g_lo,
      g_hi,
      POWER(
        SAFE_CAST(2 AS FLOAT64),
        (
          SAFE_CAST(0 AS FLOAT64) - (
            i - SAFE_CAST(1 AS FLOAT64)
          )
        ) * (
          SAFE_CAST(1 AS FLOAT64) / NULLIF(SAFE_CAST(SAFE_CAST(224.0 AS FLOAT64) AS FLOAT64), 0)
        )
      ) AS w_lo,
      POWER(
        SAFE_CAST(2 AS FLOAT64),
        (
          SAFE_CAST(0 AS FLOAT64) - (
            i - SAFE_CAST(1 AS FLOAT64)
          )
        ) * (
          SAFE_CAST(1 AS FLOAT64) / NULLIF(SAFE_CAST(SAFE_CAST(224.0 AS FLOAT64) AS FLOAT64), 0)
        )
      ) AS w_hi
    FROM cells
  )
  SELECT
    run_id,
    query_id,
    MAX(s_lo) / NULLIF(MAX(t_lo), 0) AS value,
    CASE
      WHEN FALSE
      THEN MAX(s_hi) / NULLIF(MAX(t_hi), 0) - MAX(s_lo) / NULLIF(MAX(t_lo), 0)
      ELSE MAX(s_gap) / NULLIF(MAX(t_lo), 0)
    END AS residual,
    MAX(t_lo) / NULLIF(MAX(CASE WHEN pos = 1 THEN w_lo END), 0) AS depth
  FROM (
    SELECT
      run_id,
      query_id,
      pos,
      w_lo,
      SUM(w_lo) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS t_lo,
      SUM(w_hi) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS t_hi,
      SUM(w_lo * g_lo) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS s_lo,
      SUM(w_hi * g_hi) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS s_hi,
      SUM(w_lo * (
        g_hi - g_lo
      )) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS s_gap
    FROM weighted
  ) AS running
  GROUP BY
    run_id,
    query_id
) AS m;
