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
    'skip' = 'skip'
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
    'skip' <> 'skip'
), ranked /* one branch per tie policy: the others are pruned (their filter is a false constant) */ AS (
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
  JOIN pairs AS pa
    ON r.run_id = pa.run_id AND r.query_id = pa.query_id
  WHERE
    'trec_eval' = 'trec_eval'
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
  JOIN pairs AS pa
    ON r.run_id = pa.run_id AND r.query_id = pa.query_id
  WHERE
    'trec_eval' = 'doc_id_asc'
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
  JOIN pairs AS pa
    ON r.run_id = pa.run_id AND r.query_id = pa.query_id
  WHERE
    'trec_eval' = 'input_order'
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
  JOIN pairs AS pa
    ON r.run_id = pa.run_id AND r.query_id = pa.query_id
  WHERE
    'trec_eval' = 'rank'
), cut AS (
  SELECT
    run_id,
    query_id,
    doc_id,
    score,
    rank
  FROM ranked
  WHERE
    NULL IS NULL OR rank <= NULL
), judged AS (
  SELECT
    pa.run_id,
    q.query_id,
    q.doc_id,
    q.relevance
  FROM pairs AS pa
  JOIN qrels AS q
    ON pa.query_id = q.query_id
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
  NOT FALSE
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
    CAST(rel_ret_k AS DOUBLE) / NULLIF(CAST(10 AS DOUBLE), 0) AS value
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
              TRY_CAST(NULLIF(
                REGEXP_SUBSTR('', ',' || CAST(relevance AS VARCHAR) || '=([^,]*),', 1, 1, 'c', 1),
                ''
              ) AS DOUBLE),
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
              TRY_CAST(NULLIF(
                REGEXP_SUBSTR('', ',' || CAST(relevance AS VARCHAR) || '=([^,]*),', 1, 1, 'c', 1),
                ''
              ) AS DOUBLE),
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
              TRY_CAST(NULLIF(
                REGEXP_SUBSTR('', ',' || CAST(relevance AS VARCHAR) || '=([^,]*),', 1, 1, 'c', 1),
                ''
              ) AS DOUBLE),
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
      WHEN num_rel > 0 AND drops + tail > 0
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
          TRY_CAST(NULLIF(
            REGEXP_SUBSTR('', ',' || CAST(relevance AS VARCHAR) || '=([^,]*),', 1, 1, 'c', 1),
            ''
          ) AS DOUBLE),
          CAST(0 AS DOUBLE)
        )
      END * (
        (
          CAST(1 AS DOUBLE) - CAST(CAST(0.8 AS DOUBLE) AS DOUBLE)
        ) * POWER(CAST(CAST(0.8 AS DOUBLE) AS DOUBLE), CAST(rank AS DOUBLE) - CAST(1 AS DOUBLE))
      ) AS term
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
      ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY rank DESC NULLS LAST) AS from_end
    FROM t
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
