-- polars_ireval SQL for snowflake: the evaluation table, then one query per measure.

CREATE TABLE "evaluation" AS
WITH run AS (
  SELECT
    COALESCE(CAST(run_id AS VARCHAR), '') AS run_id,
    CAST(query_id AS VARCHAR) AS query_id,
    CAST(doc_id AS VARCHAR) AS doc_id,
    CAST(score AS DOUBLE) + CAST(0 AS DOUBLE) AS score,
    CAST(input_rank AS DOUBLE) AS input_rank,
    CAST(input_order AS BIGINT) AS input_order
  FROM (
    SELECT
      run_id,
      query_id,
      doc_id,
      score,
      CAST(NULL AS DOUBLE) AS input_rank,
      CAST(NULL AS BIGINT) AS input_order
    FROM "run"
  ) AS src
), qrels AS (
  SELECT
    CAST(query_id AS VARCHAR) AS query_id,
    CAST(doc_id AS VARCHAR) AS doc_id,
    CAST(relevance AS BIGINT) AS relevance
  FROM (
    SELECT
      query_id,
      doc_id,
      relevance
    FROM "qrels"
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
          AND TO_BINARY(r.doc_id, 'UTF-8') >= TO_BINARY(h.doc_id, 'UTF-8')
          THEN 1
          ELSE 0
        END
        WHEN r.score > h.score
        THEN 1
        WHEN r.score < h.score
        THEN 0 /* (left out by the join already) */
        WHEN 'trec_eval' = 'trec_eval'
        THEN CASE
          WHEN TO_BINARY(r.doc_id, 'UTF-8') >= TO_BINARY(h.doc_id, 'UTF-8')
          THEN 1
          ELSE 0
        END
        WHEN 'trec_eval' = 'doc_id_asc'
        THEN CASE
          WHEN TO_BINARY(r.doc_id, 'UTF-8') <= TO_BINARY(h.doc_id, 'UTF-8')
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
      ORDER BY r.score DESC NULLS LAST, TO_BINARY(r.doc_id, 'UTF-8') DESC NULLS LAST
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
      ORDER BY r.score DESC NULLS LAST, TO_BINARY(r.doc_id, 'UTF-8') ASC NULLS FIRST
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
    ROW_NUMBER() OVER (
      PARTITION BY r.run_id, r.query_id
      ORDER BY r.score DESC NULLS LAST, r.input_order ASC NULLS FIRST
    ) AS rank
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
      ORDER BY r.input_rank ASC NULLS FIRST, TO_BINARY(r.doc_id, 'UTF-8') DESC NULLS LAST
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
      TRUE OR FALSE OR doc_id IN (
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
    NOT TRUE AND FALSE AND (
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
      CAST(NULL AS DOUBLE) AS score,
      CAST(NULL AS BIGINT) AS rank,
      relevance
    FROM judged
    WHERE
      NOT TRUE AND FALSE
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
    TRUE OR NOT FALSE
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
      ORDER BY rank NULLS FIRST
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
    CAST(rel_ret_k AS DOUBLE) / NULLIF(CAST(10 AS DOUBLE), 0) AS value,
    CAST(unknown_k + (
      10 - num_ret_k
    ) AS DOUBLE) * (
      CAST(1 AS DOUBLE) / NULLIF(CAST(10 AS DOUBLE), 0)
    ) AS residual,
    CAST(1 AS DOUBLE) / NULLIF((
      CAST(1 AS DOUBLE) / NULLIF(CAST(10 AS DOUBLE), 0)
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
      FROM "evaluation"
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
      THEN CAST(rel_ret_k AS DOUBLE) / NULLIF(CAST(num_rel AS DOUBLE), 0)
      ELSE CAST(0 AS DOUBLE)
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
      FROM "evaluation"
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
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank NULLS FIRST) AS i
    FROM "evaluation"
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
      SUM(CAST(i AS DOUBLE) / NULLIF(CAST(rank AS DOUBLE), 0)) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC NULLS LAST) AS from_end
    FROM hits
  )
  SELECT
    s.run_id,
    s.query_id,
    CASE
      WHEN s.num_rel > 0
      THEN COALESCE(x.total, CAST(0 AS DOUBLE)) / NULLIF(CAST(s.num_rel AS DOUBLE), 0)
      ELSE CAST(0 AS DOUBLE)
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
      FROM "evaluation"
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
          THEN POWER(CAST(2 AS DOUBLE), grade) - CAST(1 AS DOUBLE)
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
            THEN CAST(0 AS DOUBLE)
            WHEN '' = ''
            THEN CAST(relevance AS DOUBLE)
            ELSE COALESCE(
              CASE
                WHEN '' = '' OR CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') = 0
                THEN CAST(NULL AS DOUBLE)
                ELSE TRY_CAST(NULLIF(
                  SUBSTRING(
                    SUBSTRING(
                      '',
                      CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') + LENGTH(CAST(relevance AS VARCHAR)) + 2
                    ),
                    1,
                    CHARINDEX(
                      ',',
                      SUBSTRING(
                        '',
                        CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') + LENGTH(CAST(relevance AS VARCHAR)) + 2
                      )
                    ) - 1
                  ),
                  ''
                ) AS DOUBLE)
              END,
              CAST(relevance AS DOUBLE)
            )
          END AS grade
        FROM "evaluation"
      ) AS gr
    ) AS g0
  ), ranked AS (
    SELECT
      run_id,
      query_id,
      SUM(gain / NULLIF(LOG(2, CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE)), 0)) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS cum_dcg,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC NULLS LAST) AS from_end
    FROM g
    WHERE
      NOT rank IS NULL AND (
        10 IS NULL OR rank <= 10
      ) AND gain <> CAST(0 AS DOUBLE)
  ), ideal_pos AS (
    SELECT
      run_id,
      query_id,
      gain,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY gain DESC NULLS LAST) AS pos
    FROM g
    WHERE
      gain > CAST(0 AS DOUBLE)
  ), ideal AS (
    SELECT
      run_id,
      query_id,
      SUM(gain / NULLIF(LOG(2, CAST(pos AS DOUBLE) + CAST(1 AS DOUBLE)), 0)) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS idcg,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY pos DESC NULLS LAST) AS from_end
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
      WHEN i.idcg > CAST(0 AS DOUBLE)
      THEN COALESCE(d.cum_dcg, CAST(0 AS DOUBLE)) / NULLIF(i.idcg, 0)
      ELSE CAST(0 AS DOUBLE)
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
          THEN POWER(CAST(2 AS DOUBLE), grade) - CAST(1 AS DOUBLE)
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
            THEN CAST(0 AS DOUBLE)
            WHEN '' = ''
            THEN CAST(relevance AS DOUBLE)
            ELSE COALESCE(
              CASE
                WHEN '' = '' OR CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') = 0
                THEN CAST(NULL AS DOUBLE)
                ELSE TRY_CAST(NULLIF(
                  SUBSTRING(
                    SUBSTRING(
                      '',
                      CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') + LENGTH(CAST(relevance AS VARCHAR)) + 2
                    ),
                    1,
                    CHARINDEX(
                      ',',
                      SUBSTRING(
                        '',
                        CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') + LENGTH(CAST(relevance AS VARCHAR)) + 2
                      )
                    ) - 1
                  ),
                  ''
                ) AS DOUBLE)
              END,
              CAST(relevance AS DOUBLE)
            )
          END AS grade
        FROM "evaluation"
      ) AS gr
    ) AS g0
  ), ranked AS (
    SELECT
      run_id,
      query_id,
      SUM(gain / NULLIF(LOG(2, CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE)), 0)) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS cum_dcg,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC NULLS LAST) AS from_end
    FROM g
    WHERE
      NOT rank IS NULL AND (
        10 IS NULL OR rank <= 10
      ) AND gain <> CAST(0 AS DOUBLE)
  ), ideal_pos AS (
    SELECT
      run_id,
      query_id,
      gain,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY gain DESC NULLS LAST) AS pos
    FROM g
    WHERE
      gain > CAST(0 AS DOUBLE)
  ), ideal AS (
    SELECT
      run_id,
      query_id,
      SUM(gain / NULLIF(LOG(2, CAST(pos AS DOUBLE) + CAST(1 AS DOUBLE)), 0)) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS idcg,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY pos DESC NULLS LAST) AS from_end
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
      WHEN i.idcg > CAST(0 AS DOUBLE)
      THEN COALESCE(d.cum_dcg, CAST(0 AS DOUBLE)) / NULLIF(i.idcg, 0)
      ELSE CAST(0 AS DOUBLE)
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
      THEN CAST(0 AS DOUBLE)
      ELSE CAST(1 AS DOUBLE) / NULLIF(CAST(first_rel_k AS DOUBLE), 0)
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
      FROM "evaluation"
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
    FROM "evaluation"
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
        ORDER BY rank NULLS FIRST
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
        FROM "evaluation"
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
        THEN CAST(1 AS DOUBLE) - CAST(CASE WHEN a.n_above < s.num_rel THEN a.n_above ELSE s.num_rel END AS DOUBLE) / NULLIF(
          CAST(CASE WHEN s.num_nonrel < s.num_rel THEN s.num_nonrel ELSE s.num_rel END AS DOUBLE),
          0
        )
        ELSE CAST(1 AS DOUBLE)
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
        ORDER BY rank NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC NULLS LAST) AS from_end
    FROM terms
  )
  SELECT
    s.run_id,
    s.query_id,
    CASE
      WHEN s.num_rel > 0
      THEN COALESCE(x.total, CAST(0 AS DOUBLE)) / NULLIF(CAST(s.num_rel AS DOUBLE), 0)
      ELSE CAST(0 AS DOUBLE)
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
    FROM "evaluation"
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
        ORDER BY rank NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS c_rel,
      SUM(is_nonrel) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS c_nonrel,
      SUM(is_pooled) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS c_pooled
    FROM t
  ), parts AS (
    SELECT
      run_id,
      query_id,
      rank,
      CAST(rank AS DOUBLE) AS i,
      CAST(rank AS DOUBLE) - CAST(1 AS DOUBLE) AS j,
      CAST(c_rel AS DOUBLE) - CAST(1 AS DOUBLE) AS r,
      CAST(c_nonrel AS DOUBLE) AS n,
      CAST(c_pooled - 1 AS DOUBLE) AS pooled,
      CAST(1 AS DOUBLE) / NULLIF(CAST(100000 AS DOUBLE), 0) AS eps
    FROM cum
    WHERE
      is_rel = 1
  ), running AS (
    SELECT
      run_id,
      query_id,
      SUM(
        CASE
          WHEN j = CAST(0 AS DOUBLE)
          THEN CAST(1 AS DOUBLE)
          ELSE CAST(1 AS DOUBLE) / NULLIF(i, 0) + (
            j / NULLIF(i, 0)
          ) * (
            pooled / NULLIF(j, 0)
          ) * (
            (
              r + eps
            ) / NULLIF((
              r + n + CAST(2 AS DOUBLE) * eps
            ), 0)
          )
        END
      ) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC NULLS LAST) AS from_end
    FROM parts
  )
  SELECT
    s.run_id,
    s.query_id,
    CASE
      WHEN s.num_rel > 0
      THEN COALESCE(x.total, CAST(0 AS DOUBLE)) / NULLIF(CAST(s.num_rel AS DOUBLE), 0)
      ELSE CAST(0 AS DOUBLE)
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
      FROM "evaluation"
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
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank NULLS FIRST) AS c
    FROM "evaluation"
    WHERE
      NOT rank IS NULL AND NOT relevance IS NULL AND relevance >= 1
  ), st AS (
    SELECT
      run_id,
      query_id,
      CAST(CAST(0.5 AS DOUBLE) AS DOUBLE) * CAST(num_rel AS DOUBLE) AS x
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
        FROM "evaluation"
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
        THEN FLOOR(x + CAST(9 AS DOUBLE) / NULLIF(CAST(10 AS DOUBLE), 0))
        ELSE FLOOR(x) + CASE
          WHEN x - FLOOR(x) >= CAST(1 AS DOUBLE) / NULLIF(CAST(2 AS DOUBLE), 0)
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
          THEN CAST(h.c AS DOUBLE) / NULLIF(CAST(h.rank AS DOUBLE), 0)
        END
      ),
      CAST(0 AS DOUBLE)
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
          THEN POWER(CAST(2 AS DOUBLE), grade) - CAST(1 AS DOUBLE)
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
            THEN CAST(0 AS DOUBLE)
            WHEN '' = ''
            THEN CAST(relevance AS DOUBLE)
            ELSE COALESCE(
              CASE
                WHEN '' = '' OR CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') = 0
                THEN CAST(NULL AS DOUBLE)
                ELSE TRY_CAST(NULLIF(
                  SUBSTRING(
                    SUBSTRING(
                      '',
                      CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') + LENGTH(CAST(relevance AS VARCHAR)) + 2
                    ),
                    1,
                    CHARINDEX(
                      ',',
                      SUBSTRING(
                        '',
                        CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') + LENGTH(CAST(relevance AS VARCHAR)) + 2
                      )
                    ) - 1
                  ),
                  ''
                ) AS DOUBLE)
              END,
              CAST(relevance AS DOUBLE)
            )
          END AS grade
        FROM "evaluation"
      ) AS gr
    ) AS g0
  ), ranked AS (
    SELECT
      run_id,
      query_id,
      rank,
      gain,
      SUM(gain / NULLIF(LOG(2, CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE)), 0)) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS cum_dcg,
      SUM(gain) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS cum_gain,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC NULLS LAST) AS from_end
    FROM g
    WHERE
      NOT rank IS NULL AND gain <> CAST(0 AS DOUBLE)
  ), ideal_pos AS (
    SELECT
      run_id,
      query_id,
      gain,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY gain DESC NULLS LAST) AS pos
    FROM g
    WHERE
      gain > CAST(0 AS DOUBLE)
  ), ideal AS (
    SELECT
      run_id,
      query_id,
      pos,
      gain,
      SUM(gain / NULLIF(LOG(2, CAST(pos AS DOUBLE) + CAST(1 AS DOUBLE)), 0)) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS idcg,
      SUM(gain) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS cum_gain,
      SUM(CASE WHEN gain < CAST(1 AS DOUBLE) THEN CAST(1 AS DOUBLE) ELSE gain END) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS floor_cum,
      CASE
        WHEN gain <> COALESCE(
          LEAD(gain) OVER (PARTITION BY run_id, query_id ORDER BY pos NULLS FIRST),
          CAST(0 AS DOUBLE)
        )
        THEN 1
        ELSE 0
      END AS is_drop,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY pos DESC NULLS LAST) AS from_end
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
        FROM "evaluation"
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
      ROW_NUMBER() OVER (PARTITION BY dr.run_id, dr.query_id, dr.d ORDER BY r.rank DESC NULLS LAST) AS from_end
    FROM dr
    JOIN ranked AS r
      ON r.run_id = dr.run_id AND r.query_id = dr.query_id AND r.rank <= dr.m
  ), terms AS (
    SELECT
      dr.run_id,
      dr.query_id,
      dr.d,
      COALESCE(h.cum_dcg, CAST(0 AS DOUBLE)) / NULLIF(dr.idcg, 0) AS term
    FROM dr
    LEFT JOIN hit AS h
      ON h.run_id = dr.run_id AND h.query_id = dr.query_id AND h.d = dr.d AND h.from_end = 1
  ), running AS (
    SELECT
      run_id,
      query_id,
      SUM(term) OVER (
        PARTITION BY run_id, query_id
        ORDER BY d NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY d ASC NULLS FIRST) AS drops,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY d DESC NULLS LAST) AS from_end
    FROM terms
  ), parts AS (
    SELECT
      s.run_id,
      s.query_id,
      s.num_rel,
      COALESCE(x.total, CAST(0 AS DOUBLE)) AS total,
      COALESCE(x.drops, 0) AS drops,
      CASE WHEN COALESCE(l.len, 0) + 1 < s.num_ret THEN 1 ELSE 0 END AS tail,
      COALESCE(t.rtotal, CAST(0 AS DOUBLE)) AS rtotal,
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
        total + CASE WHEN tail = 1 THEN rtotal / NULLIF(itotal, 0) ELSE CAST(0 AS DOUBLE) END
      ) / NULLIF(CAST(drops + tail AS DOUBLE), 0)
      ELSE CAST(0 AS DOUBLE)
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
        THEN CAST(0 AS DOUBLE)
        WHEN '' = ''
        THEN CASE WHEN relevance >= 1 THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END
        ELSE COALESCE(
          CASE
            WHEN '' = '' OR CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') = 0
            THEN CAST(NULL AS DOUBLE)
            ELSE TRY_CAST(NULLIF(
              SUBSTRING(
                SUBSTRING(
                  '',
                  CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') + LENGTH(CAST(relevance AS VARCHAR)) + 2
                ),
                1,
                CHARINDEX(
                  ',',
                  SUBSTRING(
                    '',
                    CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') + LENGTH(CAST(relevance AS VARCHAR)) + 2
                  )
                ) - 1
              ),
              ''
            ) AS DOUBLE)
          END,
          CAST(0 AS DOUBLE)
        )
      END * weight AS term
    FROM (
      SELECT
        run_id,
        query_id,
        rank,
        relevance,
        (
          CAST(1 AS DOUBLE) - CAST(CAST(0.8 AS DOUBLE) AS DOUBLE)
        ) * POWER(CAST(CAST(0.8 AS DOUBLE) AS DOUBLE), CAST(rank AS DOUBLE) - CAST(1 AS DOUBLE)) AS weight
      FROM "evaluation"
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
            CASE WHEN end_pos < CAST(10 AS DOUBLE) THEN end_pos ELSE CAST(10 AS DOUBLE) END - start_pos
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
            POWER(CAST(CAST(0.8 AS DOUBLE) AS DOUBLE), start_pos) - POWER(CAST(CAST(0.8 AS DOUBLE) AS DOUBLE), end_pos)
          ) / NULLIF((
            end_pos - start_pos
          ), 0) AS mean
        FROM (
          SELECT
            run_id,
            query_id,
            rank,
            relevance,
            CAST(RANK() OVER (PARTITION BY run_id, query_id ORDER BY score DESC NULLS LAST) - 1 AS DOUBLE) AS start_pos,
            CAST(COUNT(*) OVER (PARTITION BY run_id, query_id) - RANK() OVER (PARTITION BY run_id, query_id ORDER BY score ASC NULLS FIRST) + 1 AS DOUBLE) AS end_pos
          FROM "evaluation"
          WHERE
            'rank' = 'average' AND NOT rank IS NULL
        ) AS tie
      ) AS tw
      WHERE
        10 IS NULL OR start_pos < CAST(10 AS DOUBLE)
    ) AS w
  ), running AS (
    SELECT
      run_id,
      query_id,
      SUM(term) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC NULLS LAST) AS from_end
    FROM t
  )
  SELECT
    pa.run_id,
    pa.query_id,
    COALESCE(x.total, CAST(0 AS DOUBLE)) AS value,
    CAST(1 AS DOUBLE) / NULLIF(
      (
        (
          CAST(1 AS DOUBLE) - CAST(CAST(0.8 AS DOUBLE) AS DOUBLE)
        ) * POWER(CAST(CAST(0.8 AS DOUBLE) AS DOUBLE), CAST(0 AS DOUBLE))
      ),
      0
    ) AS depth
  FROM (
    SELECT DISTINCT
      run_id,
      query_id
    FROM "evaluation"
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
    CAST(num_ret AS DOUBLE) AS value
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
      FROM "evaluation"
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
          THEN CASE WHEN sc.low <> CAST(0 AS DOUBLE) THEN ex.eg - sc.low ELSE ex.eg END
          ELSE COALESCE(ex.eg, CAST(0 AS DOUBLE))
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
            THEN POWER(CAST(2 AS DOUBLE), mg) - CAST(1 AS DOUBLE)
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
                WHEN '' = '' OR CHARINDEX(',' || CAST(grade AS VARCHAR) || '=', '') = 0
                THEN CAST(NULL AS DOUBLE)
                ELSE TRY_CAST(NULLIF(
                  SUBSTRING(
                    SUBSTRING(
                      '',
                      CHARINDEX(',' || CAST(grade AS VARCHAR) || '=', '') + LENGTH(CAST(grade AS VARCHAR)) + 2
                    ),
                    1,
                    CHARINDEX(
                      ',',
                      SUBSTRING(
                        '',
                        CHARINDEX(',' || CAST(grade AS VARCHAR) || '=', '') + LENGTH(CAST(grade AS VARCHAR)) + 2
                      )
                    ) - 1
                  ),
                  ''
                ) AS DOUBLE)
              END,
              CAST(grade AS DOUBLE)
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
            FROM "evaluation"
          ) AS cl
        ) AS mp
      ) AS ex
      CROSS JOIN (
        SELECT
          CASE
            WHEN 'exp' = 'exp'
            THEN POWER(CAST(2 AS DOUBLE), lo) - CAST(1 AS DOUBLE)
            ELSE lo
          END AS low,
          CASE
            WHEN 'exp' = 'exp'
            THEN POWER(CAST(2 AS DOUBLE), hi) - CAST(1 AS DOUBLE)
            ELSE hi
          END AS top
        FROM (
          SELECT
            COALESCE(
              CASE
                WHEN '' = '' OR CHARINDEX(',' || CAST(lo_grade AS VARCHAR) || '=', '') = 0
                THEN CAST(NULL AS DOUBLE)
                ELSE TRY_CAST(NULLIF(
                  SUBSTRING(
                    SUBSTRING(
                      '',
                      CHARINDEX(',' || CAST(lo_grade AS VARCHAR) || '=', '') + LENGTH(CAST(lo_grade AS VARCHAR)) + 2
                    ),
                    1,
                    CHARINDEX(
                      ',',
                      SUBSTRING(
                        '',
                        CHARINDEX(',' || CAST(lo_grade AS VARCHAR) || '=', '') + LENGTH(CAST(lo_grade AS VARCHAR)) + 2
                      )
                    ) - 1
                  ),
                  ''
                ) AS DOUBLE)
              END,
              CAST(lo_grade AS DOUBLE)
            ) AS lo,
            COALESCE(
              CASE
                WHEN '' = '' OR CHARINDEX(',' || CAST(hi_grade AS VARCHAR) || '=', '') = 0
                THEN CAST(NULL AS DOUBLE)
                ELSE TRY_CAST(NULLIF(
                  SUBSTRING(
                    SUBSTRING(
                      '',
                      CHARINDEX(',' || CAST(hi_grade AS VARCHAR) || '=', '') + LENGTH(CAST(hi_grade AS VARCHAR)) + 2
                    ),
                    1,
                    CHARINDEX(
                      ',',
                      SUBSTRING(
                        '',
                        CHARINDEX(',' || CAST(hi_grade AS VARCHAR) || '=', '') + LENGTH(CAST(hi_grade AS VARCHAR)) + 2
                      )
                    ) - 1
                  ),
                  ''
                ) AS DOUBLE)
              END,
              CAST(hi_grade AS DOUBLE)
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
          THEN gain / NULLIF(LOG(2, CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE)), 0)
          WHEN 'log'
          THEN gain / NULLIF(
            (
              LN(CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE)) / NULLIF(LN(CAST(CAST(3.0 AS DOUBLE) AS DOUBLE)), 0)
            ),
            0
          )
          WHEN 'jk'
          THEN CASE
            WHEN CAST(rank AS DOUBLE) < CAST(CAST(3.0 AS DOUBLE) AS DOUBLE)
            THEN gain
            ELSE gain / NULLIF(
              (
                LN(CAST(rank AS DOUBLE)) / NULLIF(LN(CAST(CAST(3.0 AS DOUBLE) AS DOUBLE)), 0)
              ),
              0
            )
          END
          WHEN 'none'
          THEN gain
          WHEN 'root'
          THEN gain / NULLIF(SQRT(CAST(rank AS DOUBLE)), 0)
          WHEN 'rank'
          THEN gain / NULLIF(CAST(rank AS DOUBLE), 0)
          WHEN 'square'
          THEN gain / NULLIF((
            CAST(rank AS DOUBLE) * CAST(rank AS DOUBLE)
          ), 0)
          ELSE gain * CASE
            WHEN '' = '' OR CHARINDEX(',' || CAST(rank AS VARCHAR) || '=', '') = 0
            THEN CAST(0 AS DOUBLE)
            ELSE COALESCE(
              TRY_CAST(NULLIF(
                SUBSTRING(
                  SUBSTRING(
                    '',
                    CHARINDEX(',' || CAST(rank AS VARCHAR) || '=', '') + LENGTH(CAST(rank AS VARCHAR)) + 2
                  ),
                  1,
                  CHARINDEX(
                    ',',
                    SUBSTRING(
                      '',
                      CHARINDEX(',' || CAST(rank AS VARCHAR) || '=', '') + LENGTH(CAST(rank AS VARCHAR)) + 2
                    )
                  ) - 1
                ),
                ''
              ) AS DOUBLE),
              CAST(0 AS DOUBLE)
            )
          END
        END
      ) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC NULLS LAST) AS from_end
    FROM g
    WHERE
      NOT rank IS NULL AND (
        10 IS NULL OR rank <= 10
      ) AND gain <> CAST(0 AS DOUBLE)
  ), best_pos AS (
    SELECT
      run_id,
      query_id,
      gain,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY gain DESC NULLS LAST) AS pos
    FROM g
    WHERE
      gain > CAST(0 AS DOUBLE)
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
          THEN gain / NULLIF(LOG(2, CAST(pos AS DOUBLE) + CAST(1 AS DOUBLE)), 0)
          WHEN 'log'
          THEN gain / NULLIF(
            (
              LN(CAST(pos AS DOUBLE) + CAST(1 AS DOUBLE)) / NULLIF(LN(CAST(CAST(3.0 AS DOUBLE) AS DOUBLE)), 0)
            ),
            0
          )
          WHEN 'jk'
          THEN CASE
            WHEN CAST(pos AS DOUBLE) < CAST(CAST(3.0 AS DOUBLE) AS DOUBLE)
            THEN gain
            ELSE gain / NULLIF(
              (
                LN(CAST(pos AS DOUBLE)) / NULLIF(LN(CAST(CAST(3.0 AS DOUBLE) AS DOUBLE)), 0)
              ),
              0
            )
          END
          WHEN 'none'
          THEN gain
          WHEN 'root'
          THEN gain / NULLIF(SQRT(CAST(pos AS DOUBLE)), 0)
          WHEN 'rank'
          THEN gain / NULLIF(CAST(pos AS DOUBLE), 0)
          WHEN 'square'
          THEN gain / NULLIF((
            CAST(pos AS DOUBLE) * CAST(pos AS DOUBLE)
          ), 0)
          ELSE gain * CASE
            WHEN '' = '' OR CHARINDEX(',' || CAST(pos AS VARCHAR) || '=', '') = 0
            THEN CAST(0 AS DOUBLE)
            ELSE COALESCE(
              TRY_CAST(NULLIF(
                SUBSTRING(
                  SUBSTRING(
                    '',
                    CHARINDEX(',' || CAST(pos AS VARCHAR) || '=', '') + LENGTH(CAST(pos AS VARCHAR)) + 2
                  ),
                  1,
                  CHARINDEX(
                    ',',
                    SUBSTRING(
                      '',
                      CHARINDEX(',' || CAST(pos AS VARCHAR) || '=', '') + LENGTH(CAST(pos AS VARCHAR)) + 2
                    )
                  ) - 1
                ),
                ''
              ) AS DOUBLE),
              CAST(0 AS DOUBLE)
            )
          END
        END
      ) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY pos DESC NULLS LAST) AS from_end
    FROM best_pos
    WHERE
      10 IS NULL OR pos <= 10
  ), wsum AS (
    SELECT
      SUM(
        CASE 'log'
          WHEN 'log2'
          THEN CAST(1 AS DOUBLE) / NULLIF(LOG(2, CAST(pos AS DOUBLE) + CAST(1 AS DOUBLE)), 0)
          WHEN 'log'
          THEN CAST(1 AS DOUBLE) / NULLIF(
            (
              LN(CAST(pos AS DOUBLE) + CAST(1 AS DOUBLE)) / NULLIF(LN(CAST(CAST(3.0 AS DOUBLE) AS DOUBLE)), 0)
            ),
            0
          )
          WHEN 'jk'
          THEN CASE
            WHEN CAST(pos AS DOUBLE) < CAST(CAST(3.0 AS DOUBLE) AS DOUBLE)
            THEN CAST(1 AS DOUBLE)
            ELSE CAST(1 AS DOUBLE) / NULLIF(
              (
                LN(CAST(pos AS DOUBLE)) / NULLIF(LN(CAST(CAST(3.0 AS DOUBLE) AS DOUBLE)), 0)
              ),
              0
            )
          END
          WHEN 'none'
          THEN CAST(1 AS DOUBLE)
          WHEN 'root'
          THEN CAST(1 AS DOUBLE) / NULLIF(SQRT(CAST(pos AS DOUBLE)), 0)
          WHEN 'rank'
          THEN CAST(1 AS DOUBLE) / NULLIF(CAST(pos AS DOUBLE), 0)
          WHEN 'square'
          THEN CAST(1 AS DOUBLE) / NULLIF((
            CAST(pos AS DOUBLE) * CAST(pos AS DOUBLE)
          ), 0)
          ELSE CAST(1 AS DOUBLE) * CASE
            WHEN '' = '' OR CHARINDEX(',' || CAST(pos AS VARCHAR) || '=', '') = 0
            THEN CAST(0 AS DOUBLE)
            ELSE COALESCE(
              TRY_CAST(NULLIF(
                SUBSTRING(
                  SUBSTRING(
                    '',
                    CHARINDEX(',' || CAST(pos AS VARCHAR) || '=', '') + LENGTH(CAST(pos AS VARCHAR)) + 2
                  ),
                  1,
                  CHARINDEX(
                    ',',
                    SUBSTRING(
                      '',
                      CHARINDEX(',' || CAST(pos AS VARCHAR) || '=', '') + LENGTH(CAST(pos AS VARCHAR)) + 2
                    )
                  ) - 1
                ),
                ''
              ) AS DOUBLE),
              CAST(0 AS DOUBLE)
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
        THEN COALESCE(d.total, CAST(0 AS DOUBLE))
        WHEN 'scaled'
        THEN COALESCE(d.total, CAST(0 AS DOUBLE)) * (
          CAST(1 AS DOUBLE) / NULLIF((
            pa.scale * w.total
          ), 0)
        )
        ELSE CASE
          WHEN bst.total > CAST(0 AS DOUBLE)
          THEN COALESCE(d.total, CAST(0 AS DOUBLE)) / NULLIF(bst.total, 0)
          ELSE CAST(0 AS DOUBLE)
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
          THEN CASE WHEN sc.low <> CAST(0 AS DOUBLE) THEN ex.eg - sc.low ELSE ex.eg END
          ELSE COALESCE(ex.eg, CAST(0 AS DOUBLE))
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
            THEN POWER(CAST(2 AS DOUBLE), mg) - CAST(1 AS DOUBLE)
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
                WHEN '' = '' OR CHARINDEX(',' || CAST(grade AS VARCHAR) || '=', '') = 0
                THEN CAST(NULL AS DOUBLE)
                ELSE TRY_CAST(NULLIF(
                  SUBSTRING(
                    SUBSTRING(
                      '',
                      CHARINDEX(',' || CAST(grade AS VARCHAR) || '=', '') + LENGTH(CAST(grade AS VARCHAR)) + 2
                    ),
                    1,
                    CHARINDEX(
                      ',',
                      SUBSTRING(
                        '',
                        CHARINDEX(',' || CAST(grade AS VARCHAR) || '=', '') + LENGTH(CAST(grade AS VARCHAR)) + 2
                      )
                    ) - 1
                  ),
                  ''
                ) AS DOUBLE)
              END,
              CAST(grade AS DOUBLE)
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
            FROM "evaluation"
          ) AS cl
        ) AS mp
      ) AS ex
      CROSS JOIN (
        SELECT
          CASE
            WHEN 'linear' = 'exp'
            THEN POWER(CAST(2 AS DOUBLE), lo) - CAST(1 AS DOUBLE)
            ELSE lo
          END AS low,
          CASE
            WHEN 'linear' = 'exp'
            THEN POWER(CAST(2 AS DOUBLE), hi) - CAST(1 AS DOUBLE)
            ELSE hi
          END AS top
        FROM (
          SELECT
            COALESCE(
              CASE
                WHEN '' = '' OR CHARINDEX(',' || CAST(lo_grade AS VARCHAR) || '=', '') = 0
                THEN CAST(NULL AS DOUBLE)
                ELSE TRY_CAST(NULLIF(
                  SUBSTRING(
                    SUBSTRING(
                      '',
                      CHARINDEX(',' || CAST(lo_grade AS VARCHAR) || '=', '') + LENGTH(CAST(lo_grade AS VARCHAR)) + 2
                    ),
                    1,
                    CHARINDEX(
                      ',',
                      SUBSTRING(
                        '',
                        CHARINDEX(',' || CAST(lo_grade AS VARCHAR) || '=', '') + LENGTH(CAST(lo_grade AS VARCHAR)) + 2
                      )
                    ) - 1
                  ),
                  ''
                ) AS DOUBLE)
              END,
              CAST(lo_grade AS DOUBLE)
            ) AS lo,
            COALESCE(
              CASE
                WHEN '' = '' OR CHARINDEX(',' || CAST(hi_grade AS VARCHAR) || '=', '') = 0
                THEN CAST(NULL AS DOUBLE)
                ELSE TRY_CAST(NULLIF(
                  SUBSTRING(
                    SUBSTRING(
                      '',
                      CHARINDEX(',' || CAST(hi_grade AS VARCHAR) || '=', '') + LENGTH(CAST(hi_grade AS VARCHAR)) + 2
                    ),
                    1,
                    CHARINDEX(
                      ',',
                      SUBSTRING(
                        '',
                        CHARINDEX(',' || CAST(hi_grade AS VARCHAR) || '=', '') + LENGTH(CAST(hi_grade AS VARCHAR)) + 2
                      )
                    ) - 1
                  ),
                  ''
                ) AS DOUBLE)
              END,
              CAST(hi_grade AS DOUBLE)
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
          THEN gain / NULLIF(LOG(2, CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE)), 0)
          WHEN 'log'
          THEN gain / NULLIF(
            (
              LN(CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE)) / NULLIF(LN(CAST(CAST(2.0 AS DOUBLE) AS DOUBLE)), 0)
            ),
            0
          )
          WHEN 'jk'
          THEN CASE
            WHEN CAST(rank AS DOUBLE) < CAST(CAST(2.0 AS DOUBLE) AS DOUBLE)
            THEN gain
            ELSE gain / NULLIF(
              (
                LN(CAST(rank AS DOUBLE)) / NULLIF(LN(CAST(CAST(2.0 AS DOUBLE) AS DOUBLE)), 0)
              ),
              0
            )
          END
          WHEN 'none'
          THEN gain
          WHEN 'root'
          THEN gain / NULLIF(SQRT(CAST(rank AS DOUBLE)), 0)
          WHEN 'rank'
          THEN gain / NULLIF(CAST(rank AS DOUBLE), 0)
          WHEN 'square'
          THEN gain / NULLIF((
            CAST(rank AS DOUBLE) * CAST(rank AS DOUBLE)
          ), 0)
          ELSE gain * CASE
            WHEN '' = '' OR CHARINDEX(',' || CAST(rank AS VARCHAR) || '=', '') = 0
            THEN CAST(0 AS DOUBLE)
            ELSE COALESCE(
              TRY_CAST(NULLIF(
                SUBSTRING(
                  SUBSTRING(
                    '',
                    CHARINDEX(',' || CAST(rank AS VARCHAR) || '=', '') + LENGTH(CAST(rank AS VARCHAR)) + 2
                  ),
                  1,
                  CHARINDEX(
                    ',',
                    SUBSTRING(
                      '',
                      CHARINDEX(',' || CAST(rank AS VARCHAR) || '=', '') + LENGTH(CAST(rank AS VARCHAR)) + 2
                    )
                  ) - 1
                ),
                ''
              ) AS DOUBLE),
              CAST(0 AS DOUBLE)
            )
          END
        END
      ) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC NULLS LAST) AS from_end
    FROM g
    WHERE
      NOT rank IS NULL AND (
        10 IS NULL OR rank <= 10
      ) AND gain <> CAST(0 AS DOUBLE)
  ), best_pos AS (
    SELECT
      run_id,
      query_id,
      gain,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY gain DESC NULLS LAST) AS pos
    FROM g
    WHERE
      gain > CAST(0 AS DOUBLE)
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
          THEN gain / NULLIF(LOG(2, CAST(pos AS DOUBLE) + CAST(1 AS DOUBLE)), 0)
          WHEN 'log'
          THEN gain / NULLIF(
            (
              LN(CAST(pos AS DOUBLE) + CAST(1 AS DOUBLE)) / NULLIF(LN(CAST(CAST(2.0 AS DOUBLE) AS DOUBLE)), 0)
            ),
            0
          )
          WHEN 'jk'
          THEN CASE
            WHEN CAST(pos AS DOUBLE) < CAST(CAST(2.0 AS DOUBLE) AS DOUBLE)
            THEN gain
            ELSE gain / NULLIF(
              (
                LN(CAST(pos AS DOUBLE)) / NULLIF(LN(CAST(CAST(2.0 AS DOUBLE) AS DOUBLE)), 0)
              ),
              0
            )
          END
          WHEN 'none'
          THEN gain
          WHEN 'root'
          THEN gain / NULLIF(SQRT(CAST(pos AS DOUBLE)), 0)
          WHEN 'rank'
          THEN gain / NULLIF(CAST(pos AS DOUBLE), 0)
          WHEN 'square'
          THEN gain / NULLIF((
            CAST(pos AS DOUBLE) * CAST(pos AS DOUBLE)
          ), 0)
          ELSE gain * CASE
            WHEN '' = '' OR CHARINDEX(',' || CAST(pos AS VARCHAR) || '=', '') = 0
            THEN CAST(0 AS DOUBLE)
            ELSE COALESCE(
              TRY_CAST(NULLIF(
                SUBSTRING(
                  SUBSTRING(
                    '',
                    CHARINDEX(',' || CAST(pos AS VARCHAR) || '=', '') + LENGTH(CAST(pos AS VARCHAR)) + 2
                  ),
                  1,
                  CHARINDEX(
                    ',',
                    SUBSTRING(
                      '',
                      CHARINDEX(',' || CAST(pos AS VARCHAR) || '=', '') + LENGTH(CAST(pos AS VARCHAR)) + 2
                    )
                  ) - 1
                ),
                ''
              ) AS DOUBLE),
              CAST(0 AS DOUBLE)
            )
          END
        END
      ) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY pos DESC NULLS LAST) AS from_end
    FROM best_pos
    WHERE
      10 IS NULL OR pos <= 10
  ), wsum AS (
    SELECT
      SUM(
        CASE 'log2'
          WHEN 'log2'
          THEN CAST(1 AS DOUBLE) / NULLIF(LOG(2, CAST(pos AS DOUBLE) + CAST(1 AS DOUBLE)), 0)
          WHEN 'log'
          THEN CAST(1 AS DOUBLE) / NULLIF(
            (
              LN(CAST(pos AS DOUBLE) + CAST(1 AS DOUBLE)) / NULLIF(LN(CAST(CAST(2.0 AS DOUBLE) AS DOUBLE)), 0)
            ),
            0
          )
          WHEN 'jk'
          THEN CASE
            WHEN CAST(pos AS DOUBLE) < CAST(CAST(2.0 AS DOUBLE) AS DOUBLE)
            THEN CAST(1 AS DOUBLE)
            ELSE CAST(1 AS DOUBLE) / NULLIF(
              (
                LN(CAST(pos AS DOUBLE)) / NULLIF(LN(CAST(CAST(2.0 AS DOUBLE) AS DOUBLE)), 0)
              ),
              0
            )
          END
          WHEN 'none'
          THEN CAST(1 AS DOUBLE)
          WHEN 'root'
          THEN CAST(1 AS DOUBLE) / NULLIF(SQRT(CAST(pos AS DOUBLE)), 0)
          WHEN 'rank'
          THEN CAST(1 AS DOUBLE) / NULLIF(CAST(pos AS DOUBLE), 0)
          WHEN 'square'
          THEN CAST(1 AS DOUBLE) / NULLIF((
            CAST(pos AS DOUBLE) * CAST(pos AS DOUBLE)
          ), 0)
          ELSE CAST(1 AS DOUBLE) * CASE
            WHEN '' = '' OR CHARINDEX(',' || CAST(pos AS VARCHAR) || '=', '') = 0
            THEN CAST(0 AS DOUBLE)
            ELSE COALESCE(
              TRY_CAST(NULLIF(
                SUBSTRING(
                  SUBSTRING(
                    '',
                    CHARINDEX(',' || CAST(pos AS VARCHAR) || '=', '') + LENGTH(CAST(pos AS VARCHAR)) + 2
                  ),
                  1,
                  CHARINDEX(
                    ',',
                    SUBSTRING(
                      '',
                      CHARINDEX(',' || CAST(pos AS VARCHAR) || '=', '') + LENGTH(CAST(pos AS VARCHAR)) + 2
                    )
                  ) - 1
                ),
                ''
              ) AS DOUBLE),
              CAST(0 AS DOUBLE)
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
        THEN COALESCE(d.total, CAST(0 AS DOUBLE))
        WHEN 'scaled'
        THEN COALESCE(d.total, CAST(0 AS DOUBLE)) * (
          CAST(1 AS DOUBLE) / NULLIF((
            pa.scale * w.total
          ), 0)
        )
        ELSE CASE
          WHEN bst.total > CAST(0 AS DOUBLE)
          THEN COALESCE(d.total, CAST(0 AS DOUBLE)) / NULLIF(bst.total, 0)
          ELSE CAST(0 AS DOUBLE)
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
          THEN CAST(1 AS DOUBLE) / NULLIF(LOG(2, CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE)), 0)
          WHEN 'log'
          THEN CAST(1 AS DOUBLE) / NULLIF(
            (
              LN(CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE)) / NULLIF(LN(CAST(CAST(2.0 AS DOUBLE) AS DOUBLE)), 0)
            ),
            0
          )
          WHEN 'jk'
          THEN CASE
            WHEN CAST(rank AS DOUBLE) < CAST(CAST(2.0 AS DOUBLE) AS DOUBLE)
            THEN CAST(1 AS DOUBLE)
            ELSE CAST(1 AS DOUBLE) / NULLIF(
              (
                LN(CAST(rank AS DOUBLE)) / NULLIF(LN(CAST(CAST(2.0 AS DOUBLE) AS DOUBLE)), 0)
              ),
              0
            )
          END
          WHEN 'none'
          THEN CAST(1 AS DOUBLE)
          WHEN 'root'
          THEN CAST(1 AS DOUBLE) / NULLIF(SQRT(CAST(rank AS DOUBLE)), 0)
          WHEN 'rank'
          THEN CAST(1 AS DOUBLE) / NULLIF(CAST(rank AS DOUBLE), 0)
          WHEN 'square'
          THEN CAST(1 AS DOUBLE) / NULLIF((
            CAST(rank AS DOUBLE) * CAST(rank AS DOUBLE)
          ), 0)
          ELSE CAST(1 AS DOUBLE) * CASE
            WHEN '' = '' OR CHARINDEX(',' || CAST(rank AS VARCHAR) || '=', '') = 0
            THEN CAST(0 AS DOUBLE)
            ELSE COALESCE(
              TRY_CAST(NULLIF(
                SUBSTRING(
                  SUBSTRING(
                    '',
                    CHARINDEX(',' || CAST(rank AS VARCHAR) || '=', '') + LENGTH(CAST(rank AS VARCHAR)) + 2
                  ),
                  1,
                  CHARINDEX(
                    ',',
                    SUBSTRING(
                      '',
                      CHARINDEX(',' || CAST(rank AS VARCHAR) || '=', '') + LENGTH(CAST(rank AS VARCHAR)) + 2
                    )
                  ) - 1
                ),
                ''
              ) AS DOUBLE),
              CAST(0 AS DOUBLE)
            )
          END
        END
      ) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS seen_w,
      SUM(
        CASE
          WHEN relevance IS NULL
          THEN CASE 'log2'
            WHEN 'log2'
            THEN CAST(1 AS DOUBLE) / NULLIF(LOG(2, CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE)), 0)
            WHEN 'log'
            THEN CAST(1 AS DOUBLE) / NULLIF(
              (
                LN(CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE)) / NULLIF(LN(CAST(CAST(2.0 AS DOUBLE) AS DOUBLE)), 0)
              ),
              0
            )
            WHEN 'jk'
            THEN CASE
              WHEN CAST(rank AS DOUBLE) < CAST(CAST(2.0 AS DOUBLE) AS DOUBLE)
              THEN CAST(1 AS DOUBLE)
              ELSE CAST(1 AS DOUBLE) / NULLIF(
                (
                  LN(CAST(rank AS DOUBLE)) / NULLIF(LN(CAST(CAST(2.0 AS DOUBLE) AS DOUBLE)), 0)
                ),
                0
              )
            END
            WHEN 'none'
            THEN CAST(1 AS DOUBLE)
            WHEN 'root'
            THEN CAST(1 AS DOUBLE) / NULLIF(SQRT(CAST(rank AS DOUBLE)), 0)
            WHEN 'rank'
            THEN CAST(1 AS DOUBLE) / NULLIF(CAST(rank AS DOUBLE), 0)
            WHEN 'square'
            THEN CAST(1 AS DOUBLE) / NULLIF((
              CAST(rank AS DOUBLE) * CAST(rank AS DOUBLE)
            ), 0)
            ELSE CAST(1 AS DOUBLE) * CASE
              WHEN '' = '' OR CHARINDEX(',' || CAST(rank AS VARCHAR) || '=', '') = 0
              THEN CAST(0 AS DOUBLE)
              ELSE COALESCE(
                TRY_CAST(NULLIF(
                  SUBSTRING(
                    SUBSTRING(
                      '',
                      CHARINDEX(',' || CAST(rank AS VARCHAR) || '=', '') + LENGTH(CAST(rank AS VARCHAR)) + 2
                    ),
                    1,
                    CHARINDEX(
                      ',',
                      SUBSTRING(
                        '',
                        CHARINDEX(',' || CAST(rank AS VARCHAR) || '=', '') + LENGTH(CAST(rank AS VARCHAR)) + 2
                      )
                    ) - 1
                  ),
                  ''
                ) AS DOUBLE),
                CAST(0 AS DOUBLE)
              )
            END
          END
          ELSE CAST(0 AS DOUBLE)
        END
      ) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS unjudged_w,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC NULLS LAST) AS from_end
    FROM "evaluation"
    WHERE
      NOT rank IS NULL AND rank <= 10
  ), resid AS (
    SELECT
      v.run_id,
      v.query_id,
      v.value,
      (
        COALESCE(s.unjudged_w, CAST(0 AS DOUBLE)) + (
          w.total - COALESCE(s.seen_w, CAST(0 AS DOUBLE))
        )
      ) * (
        CAST(1 AS DOUBLE) / NULLIF(w.total, 0)
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
    CASE WHEN raw < CAST(0 AS DOUBLE) THEN CAST(0 AS DOUBLE) ELSE raw END AS residual
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
        THEN CAST(0 AS DOUBLE)
        WHEN '' = ''
        THEN CASE WHEN relevance >= 1 THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END
        ELSE COALESCE(
          CASE
            WHEN '' = '' OR CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') = 0
            THEN CAST(NULL AS DOUBLE)
            ELSE TRY_CAST(NULLIF(
              SUBSTRING(
                SUBSTRING(
                  '',
                  CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') + LENGTH(CAST(relevance AS VARCHAR)) + 2
                ),
                1,
                CHARINDEX(
                  ',',
                  SUBSTRING(
                    '',
                    CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') + LENGTH(CAST(relevance AS VARCHAR)) + 2
                  )
                ) - 1
              ),
              ''
            ) AS DOUBLE)
          END,
          CAST(0 AS DOUBLE)
        )
      END AS r
    FROM "evaluation"
  ), cum AS (
    SELECT
      run_id,
      query_id,
      rank,
      r * SUM(r) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank NULLS FIRST
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
          THEN rc / NULLIF(LOG(2, CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE)), 0)
          WHEN 'log'
          THEN rc / NULLIF(
            (
              LN(CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE)) / NULLIF(LN(CAST(CAST(2.0 AS DOUBLE) AS DOUBLE)), 0)
            ),
            0
          )
          WHEN 'jk'
          THEN CASE
            WHEN CAST(rank AS DOUBLE) < CAST(CAST(2.0 AS DOUBLE) AS DOUBLE)
            THEN rc
            ELSE rc / NULLIF(
              (
                LN(CAST(rank AS DOUBLE)) / NULLIF(LN(CAST(CAST(2.0 AS DOUBLE) AS DOUBLE)), 0)
              ),
              0
            )
          END
          WHEN 'none'
          THEN rc
          WHEN 'root'
          THEN rc / NULLIF(SQRT(CAST(rank AS DOUBLE)), 0)
          WHEN 'rank'
          THEN rc / NULLIF(CAST(rank AS DOUBLE), 0)
          WHEN 'square'
          THEN rc / NULLIF((
            CAST(rank AS DOUBLE) * CAST(rank AS DOUBLE)
          ), 0)
          ELSE rc * CASE
            WHEN ',1=1.0,2=0.5,' = ''
            OR CHARINDEX(',' || CAST(rank AS VARCHAR) || '=', ',1=1.0,2=0.5,') = 0
            THEN CAST(0 AS DOUBLE)
            ELSE COALESCE(
              TRY_CAST(NULLIF(
                SUBSTRING(
                  SUBSTRING(
                    ',1=1.0,2=0.5,',
                    CHARINDEX(',' || CAST(rank AS VARCHAR) || '=', ',1=1.0,2=0.5,') + LENGTH(CAST(rank AS VARCHAR)) + 2
                  ),
                  1,
                  CHARINDEX(
                    ',',
                    SUBSTRING(
                      ',1=1.0,2=0.5,',
                      CHARINDEX(',' || CAST(rank AS VARCHAR) || '=', ',1=1.0,2=0.5,') + LENGTH(CAST(rank AS VARCHAR)) + 2
                    )
                  ) - 1
                ),
                ''
              ) AS DOUBLE),
              CAST(0 AS DOUBLE)
            )
          END
        END
      ) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC NULLS LAST) AS from_end
    FROM cum
  ), counts AS (
    SELECT
      run_id,
      query_id,
      SUM(CASE WHEN r > CAST(0 AS DOUBLE) THEN 1 ELSE 0 END) AS n_all,
      SUM(
        CASE
          WHEN r > CAST(0 AS DOUBLE) AND NOT rank IS NULL AND (
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
      COALESCE(x.total, CAST(0 AS DOUBLE)) AS total,
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
    CASE WHEN n > 0 THEN total / NULLIF(CAST(n AS DOUBLE), 0) ELSE CAST(0 AS DOUBLE) END AS value
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
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank NULLS FIRST) AS i
    FROM "evaluation"
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
      SUM(CAST(i AS DOUBLE) / NULLIF(CAST(rank AS DOUBLE), 0)) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC NULLS LAST) AS from_end
    FROM hits
  )
  SELECT
    pa.run_id,
    pa.query_id,
    COALESCE(x.total, CAST(0 AS DOUBLE)) AS value
  FROM (
    SELECT DISTINCT
      run_id,
      query_id
    FROM "evaluation"
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
        THEN CAST(0 AS DOUBLE)
        ELSE COALESCE(
          CASE
            WHEN '' = '' OR CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') = 0
            THEN CAST(NULL AS DOUBLE)
            ELSE TRY_CAST(NULLIF(
              SUBSTRING(
                SUBSTRING(
                  '',
                  CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') + LENGTH(CAST(relevance AS VARCHAR)) + 2
                ),
                1,
                CHARINDEX(
                  ',',
                  SUBSTRING(
                    '',
                    CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') + LENGTH(CAST(relevance AS VARCHAR)) + 2
                  )
                ) - 1
              ),
              ''
            ) AS DOUBLE)
          END,
          CAST(relevance AS DOUBLE)
        )
      END AS gain,
      CASE WHEN NOT relevance IS NULL AND relevance >= 1 THEN 1 ELSE 0 END AS is_rel
    FROM "evaluation"
  ), ideal AS (
    SELECT
      run_id,
      query_id,
      pos,
      SUM(gain) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS cum_gain,
      COUNT(*) OVER (PARTITION BY run_id, query_id) AS len
    FROM (
      SELECT
        run_id,
        query_id,
        gain,
        ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY gain DESC NULLS LAST) AS pos
      FROM g
      WHERE
        gain > CAST(0 AS DOUBLE)
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
      SUM(CAST(is_rel AS DOUBLE)) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS found,
      SUM(gain) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank NULLS FIRST
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
        r.found + CAST(CAST(1.0 AS DOUBLE) AS DOUBLE) * r.cum_gain
      ) / NULLIF(
        (
          CAST(r.rank AS DOUBLE) + CAST(CAST(1.0 AS DOUBLE) AS DOUBLE) * COALESCE(i.cum_gain, CAST(0 AS DOUBLE))
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
        ORDER BY rank NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC NULLS LAST) AS from_end
    FROM terms
  )
  SELECT
    s.run_id,
    s.query_id,
    CASE
      WHEN s.num_rel > 0
      THEN COALESCE(x.total, CAST(0 AS DOUBLE)) / NULLIF(CAST(s.num_rel AS DOUBLE), 0)
      ELSE CAST(0 AS DOUBLE)
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
      FROM "evaluation"
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
          CAST(2 AS DOUBLE),
          CAST(CASE
            WHEN relevance IS NULL OR relevance < 0
            THEN 0
            WHEN relevance > 4
            THEN 4
            ELSE relevance
          END AS DOUBLE)
        ) - CAST(1 AS DOUBLE)
      ) * (
        CAST(1 AS DOUBLE) / NULLIF(POWER(CAST(2 AS DOUBLE), CAST(4 AS DOUBLE)), 0)
      ) AS stop
    FROM "evaluation"
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
          SUM(LN(CAST(1 AS DOUBLE) - stop)) OVER (
            PARTITION BY run_id, query_id
            ORDER BY rank NULLS FIRST
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
          ),
          CAST(0 AS DOUBLE)
        )
      ) AS reach
    FROM stops
  ), running AS (
    SELECT
      run_id,
      query_id,
      SUM(stop * reach / NULLIF(CAST(rank AS DOUBLE), 0)) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC NULLS LAST) AS from_end
    FROM reached
  )
  SELECT
    pa.run_id,
    pa.query_id,
    COALESCE(x.total, CAST(0 AS DOUBLE)) AS value
  FROM (
    SELECT DISTINCT
      run_id,
      query_id
    FROM "evaluation"
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
            THEN CAST(0 AS DOUBLE)
            WHEN '' = ''
            THEN CAST(CASE WHEN relevance < 0 THEN 0 WHEN relevance > 1 THEN 1 ELSE relevance END AS DOUBLE) / NULLIF(CAST(1 AS DOUBLE), 0)
            ELSE COALESCE(
              CASE
                WHEN '' = '' OR CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') = 0
                THEN CAST(NULL AS DOUBLE)
                ELSE TRY_CAST(NULLIF(
                  SUBSTRING(
                    SUBSTRING(
                      '',
                      CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') + LENGTH(CAST(relevance AS VARCHAR)) + 2
                    ),
                    1,
                    CHARINDEX(
                      ',',
                      SUBSTRING(
                        '',
                        CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') + LENGTH(CAST(relevance AS VARCHAR)) + 2
                      )
                    ) - 1
                  ),
                  ''
                ) AS DOUBLE)
              END,
              CAST(0 AS DOUBLE)
            )
          END
        END
      ),
      CAST(0 AS DOUBLE)
    ) AS value
  FROM "evaluation"
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
        THEN CAST(0 AS DOUBLE)
        WHEN '' = ''
        THEN CAST(CASE WHEN relevance < 0 THEN 0 WHEN relevance > 1 THEN 1 ELSE relevance END AS DOUBLE) / NULLIF(CAST(1 AS DOUBLE), 0)
        ELSE COALESCE(
          CASE
            WHEN '' = '' OR CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') = 0
            THEN CAST(NULL AS DOUBLE)
            ELSE TRY_CAST(NULLIF(
              SUBSTRING(
                SUBSTRING(
                  '',
                  CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') + LENGTH(CAST(relevance AS VARCHAR)) + 2
                ),
                1,
                CHARINDEX(
                  ',',
                  SUBSTRING(
                    '',
                    CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') + LENGTH(CAST(relevance AS VARCHAR)) + 2
                  )
                ) - 1
              ),
              ''
            ) AS DOUBLE)
          END,
          CAST(0 AS DOUBLE)
        )
      END / NULLIF((
        CAST(rank AS DOUBLE) * (
          CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE)
        )
      ), 0) AS term,
      CASE
        WHEN relevance IS NULL
        THEN CAST(1 AS DOUBLE) / NULLIF((
          CAST(rank AS DOUBLE) * (
            CAST(rank AS DOUBLE) + CAST(1 AS DOUBLE)
          )
        ), 0)
        ELSE CAST(0 AS DOUBLE)
      END AS unjudged
    FROM "evaluation"
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
        ORDER BY rank NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      SUM(unjudged) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS unjudged_w,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank ASC NULLS FIRST) AS depth,
      SUM(CASE WHEN unjudged = CAST(0 AS DOUBLE) THEN 1 ELSE 0 END) OVER (PARTITION BY run_id, query_id) AS judged,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC NULLS LAST) AS from_end
    FROM t
  )
  SELECT
    pa.run_id,
    pa.query_id,
    COALESCE(x.total, CAST(0 AS DOUBLE)) AS value,
    CASE
      WHEN COALESCE(x.judged, 0) = 0
      THEN CAST(1 AS DOUBLE)
      ELSE LEAST_IGNORE_NULLS(
        CAST(1 AS DOUBLE),
        x.unjudged_w + CAST(1 AS DOUBLE) / NULLIF((
          CAST(x.depth AS DOUBLE) + CAST(1 AS DOUBLE)
        ), 0)
      )
    END AS residual
  FROM (
    SELECT DISTINCT
      run_id,
      query_id
    FROM "evaluation"
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
        THEN CAST(0 AS DOUBLE)
        WHEN '' = ''
        THEN CASE WHEN relevance >= 1 THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END
        ELSE COALESCE(
          CASE
            WHEN '' = '' OR CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') = 0
            THEN CAST(NULL AS DOUBLE)
            ELSE TRY_CAST(NULLIF(
              SUBSTRING(
                SUBSTRING(
                  '',
                  CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') + LENGTH(CAST(relevance AS VARCHAR)) + 2
                ),
                1,
                CHARINDEX(
                  ',',
                  SUBSTRING(
                    '',
                    CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') + LENGTH(CAST(relevance AS VARCHAR)) + 2
                  )
                ) - 1
              ),
              ''
            ) AS DOUBLE)
          END,
          CAST(0 AS DOUBLE)
        )
      END * weight AS term
    FROM (
      SELECT
        run_id,
        query_id,
        rank,
        relevance,
        (
          CAST(1 AS DOUBLE) - CAST(CAST(0.8 AS DOUBLE) AS DOUBLE)
        ) * POWER(CAST(CAST(0.8 AS DOUBLE) AS DOUBLE), CAST(rank AS DOUBLE) - CAST(1 AS DOUBLE)) AS weight
      FROM "evaluation"
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
            CASE WHEN end_pos < CAST(10 AS DOUBLE) THEN end_pos ELSE CAST(10 AS DOUBLE) END - start_pos
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
            POWER(CAST(CAST(0.8 AS DOUBLE) AS DOUBLE), start_pos) - POWER(CAST(CAST(0.8 AS DOUBLE) AS DOUBLE), end_pos)
          ) / NULLIF((
            end_pos - start_pos
          ), 0) AS mean
        FROM (
          SELECT
            run_id,
            query_id,
            rank,
            relevance,
            CAST(RANK() OVER (PARTITION BY run_id, query_id ORDER BY score DESC NULLS LAST) - 1 AS DOUBLE) AS start_pos,
            CAST(COUNT(*) OVER (PARTITION BY run_id, query_id) - RANK() OVER (PARTITION BY run_id, query_id ORDER BY score ASC NULLS FIRST) + 1 AS DOUBLE) AS end_pos
          FROM "evaluation"
          WHERE
            'average' = 'average' AND NOT rank IS NULL
        ) AS tie
      ) AS tw
      WHERE
        10 IS NULL OR start_pos < CAST(10 AS DOUBLE)
    ) AS w
  ), running AS (
    SELECT
      run_id,
      query_id,
      SUM(term) OVER (
        PARTITION BY run_id, query_id
        ORDER BY rank NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS total,
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC NULLS LAST) AS from_end
    FROM t
  )
  SELECT
    pa.run_id,
    pa.query_id,
    COALESCE(x.total, CAST(0 AS DOUBLE)) AS value,
    CAST(1 AS DOUBLE) / NULLIF(
      (
        (
          CAST(1 AS DOUBLE) - CAST(CAST(0.8 AS DOUBLE) AS DOUBLE)
        ) * POWER(CAST(CAST(0.8 AS DOUBLE) AS DOUBLE), CAST(0 AS DOUBLE))
      ),
      0
    ) AS depth
  FROM (
    SELECT DISTINCT
      run_id,
      query_id
    FROM "evaluation"
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
          THEN CAST(1 AS DOUBLE)
          WHEN relevance <= 0
          THEN CAST(0 AS DOUBLE)
          ELSE CAST(relevance - 0 AS DOUBLE) / NULLIF(CAST(NULL - 0 AS DOUBLE), 0)
        END
        WHEN '' = ''
        THEN CASE WHEN relevance >= 1 THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END
        ELSE COALESCE(
          CASE
            WHEN '' = '' OR CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') = 0
            THEN CAST(NULL AS DOUBLE)
            ELSE TRY_CAST(NULLIF(
              SUBSTRING(
                SUBSTRING(
                  '',
                  CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') + LENGTH(CAST(relevance AS VARCHAR)) + 2
                ),
                1,
                CHARINDEX(
                  ',',
                  SUBSTRING(
                    '',
                    CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') + LENGTH(CAST(relevance AS VARCHAR)) + 2
                  )
                ) - 1
              ),
              ''
            ) AS DOUBLE)
          END,
          CAST(0 AS DOUBLE)
        )
      END AS gain
    FROM "evaluation"
    WHERE
      NOT rank IS NULL AND rank <= 10
  ), known AS (
    SELECT
      pa.run_id,
      pa.query_id,
      po.pos,
      CAST(po.pos AS DOUBLE) AS i,
      COALESCE(s.gain, CAST(0 AS DOUBLE)) AS g_lo,
      COALESCE(s.gain, CAST(1 AS DOUBLE)) AS g_hi
    FROM (
      SELECT DISTINCT
        run_id,
        query_id
      FROM "evaluation"
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
        ORDER BY pos NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS cg_lo,
      SUM(g_hi) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos NULLS FIRST
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
        i + CAST(CAST(1.0 AS DOUBLE) AS DOUBLE) + (
          CAST(CAST(1.0 AS DOUBLE) AS DOUBLE) - cg_lo
        ) - CAST(1 AS DOUBLE)
      ) / NULLIF(
        (
          i + CAST(CAST(1.0 AS DOUBLE) AS DOUBLE) + (
            CAST(CAST(1.0 AS DOUBLE) AS DOUBLE) - cg_lo
          )
        ),
        0
      ) AS q_lo,
      (
        i + CAST(CAST(1.0 AS DOUBLE) AS DOUBLE) + (
          CAST(CAST(1.0 AS DOUBLE) AS DOUBLE) - cg_hi
        ) - CAST(1 AS DOUBLE)
      ) / NULLIF(
        (
          i + CAST(CAST(1.0 AS DOUBLE) AS DOUBLE) + (
            CAST(CAST(1.0 AS DOUBLE) AS DOUBLE) - cg_hi
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
          SUM(CASE WHEN c_lo > CAST(0 AS DOUBLE) THEN 0 ELSE 1 END) OVER (
            PARTITION BY run_id, query_id
            ORDER BY pos NULLS FIRST
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
          ),
          0
        ) > 0
        THEN CAST(0 AS DOUBLE)
        ELSE EXP(
          COALESCE(
            SUM(LN(CASE WHEN c_lo > CAST(0 AS DOUBLE) THEN c_lo ELSE CAST(1 AS DOUBLE) END)) OVER (
              PARTITION BY run_id, query_id
              ORDER BY pos NULLS FIRST
              ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
            ),
            CAST(0 AS DOUBLE)
          )
        )
      END AS w_lo,
      CASE
        WHEN COALESCE(
          SUM(CASE WHEN c_hi > CAST(0 AS DOUBLE) THEN 0 ELSE 1 END) OVER (
            PARTITION BY run_id, query_id
            ORDER BY pos NULLS FIRST
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
          ),
          0
        ) > 0
        THEN CAST(0 AS DOUBLE)
        ELSE EXP(
          COALESCE(
            SUM(LN(CASE WHEN c_hi > CAST(0 AS DOUBLE) THEN c_hi ELSE CAST(1 AS DOUBLE) END)) OVER (
              PARTITION BY run_id, query_id
              ORDER BY pos NULLS FIRST
              ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
            ),
            CAST(0 AS DOUBLE)
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
        ORDER BY pos NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS t_lo,
      SUM(w_hi) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS t_hi,
      SUM(w_lo * g_lo) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS s_lo,
      SUM(w_hi * g_hi) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS s_hi,
      SUM(w_lo * (
        g_hi - g_lo
      )) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos NULLS FIRST
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
          THEN CAST(1 AS DOUBLE)
          WHEN relevance <= 0
          THEN CAST(0 AS DOUBLE)
          ELSE CAST(relevance - 0 AS DOUBLE) / NULLIF(CAST(NULL - 0 AS DOUBLE), 0)
        END
        WHEN '' = ''
        THEN CASE WHEN relevance >= 1 THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END
        ELSE COALESCE(
          CASE
            WHEN '' = '' OR CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') = 0
            THEN CAST(NULL AS DOUBLE)
            ELSE TRY_CAST(NULLIF(
              SUBSTRING(
                SUBSTRING(
                  '',
                  CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') + LENGTH(CAST(relevance AS VARCHAR)) + 2
                ),
                1,
                CHARINDEX(
                  ',',
                  SUBSTRING(
                    '',
                    CHARINDEX(',' || CAST(relevance AS VARCHAR) || '=', '') + LENGTH(CAST(relevance AS VARCHAR)) + 2
                  )
                ) - 1
              ),
              ''
            ) AS DOUBLE)
          END,
          CAST(0 AS DOUBLE)
        )
      END AS gain
    FROM "evaluation"
    WHERE
      NOT rank IS NULL AND rank <= 10
  ), known AS (
    SELECT
      pa.run_id,
      pa.query_id,
      po.pos,
      CAST(po.pos AS DOUBLE) AS i,
      COALESCE(s.gain, CAST(0 AS DOUBLE)) AS g_lo,
      COALESCE(s.gain, CAST(1 AS DOUBLE)) AS g_hi
    FROM (
      SELECT DISTINCT
        run_id,
        query_id
      FROM "evaluation"
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
        ORDER BY pos NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS cg_lo,
      SUM(g_hi) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos NULLS FIRST
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
        CAST(2 AS DOUBLE),
        (
          CAST(0 AS DOUBLE) - (
            i - CAST(1 AS DOUBLE)
          )
        ) * (
          CAST(1 AS DOUBLE) / NULLIF(CAST(CAST(224.0 AS DOUBLE) AS DOUBLE), 0)
        )
      ) AS w_lo,
      POWER(
        CAST(2 AS DOUBLE),
        (
          CAST(0 AS DOUBLE) - (
            i - CAST(1 AS DOUBLE)
          )
        ) * (
          CAST(1 AS DOUBLE) / NULLIF(CAST(CAST(224.0 AS DOUBLE) AS DOUBLE), 0)
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
        ORDER BY pos NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS t_lo,
      SUM(w_hi) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS t_hi,
      SUM(w_lo * g_lo) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS s_lo,
      SUM(w_hi * g_hi) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS s_hi,
      SUM(w_lo * (
        g_hi - g_lo
      )) OVER (
        PARTITION BY run_id, query_id
        ORDER BY pos NULLS FIRST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS s_gap
    FROM weighted
  ) AS running
  GROUP BY
    run_id,
    query_id
) AS m;
