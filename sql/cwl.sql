-- The C/W/L measures of cwl_eval (polars_ireval.measures.cwl, .usermodel): INST, INSQ, TBG,
-- U and BPM. A user model scores the positions 1..k (cwl_eval's depth): a ranking shorter
-- than k is extended with unknown documents. Its weights W(i) (given directly, or as the
-- product of the continuation C(j) over the positions j < i) are normalised over the k
-- positions; each macro returns value (the expected utility per document, the sum of W(i)
-- g_i, unjudged documents and positions past the ranking gaining 0), residual (how much the
-- value could still grow if they all gained 1, cwl_eval's ResEU) and depth (the expected
-- number of documents read, 1 / W(1)). Every document costs 1 (cwl_eval without a cost
-- file); gains are 1 for grade >= rel, or the grade's value in the gain map `gains`
-- (',grade=gain,...,', each in [0, 1]; grades not listed gain 0), or with max_rel
-- (ir_measures' scale) the grade clipped to [min_rel, max_rel], less min_rel, over
-- max_rel - min_rel.

-- fragment: cwl_cells(k := 1000, rel := 1, gains := '', min_rel := 0, max_rel := NULL)
-- CTEs (continuing a WITH clause): cells, one row per (run_id, query_id) and position pos in
-- 1..k, with i (pos as a DOUBLE), the gain in the worst case g_lo (unjudged documents and
-- positions past the ranking gain 0) and in the best case g_hi (they gain 1), and their
-- running sums cg_lo and cg_hi over positions 1..pos.
seen AS (
    SELECT run_id, query_id, rank,
        CASE WHEN relevance IS NULL THEN NULL
            WHEN {max_rel} IS NOT NULL THEN CASE
                WHEN relevance >= {max_rel} THEN CAST(1 AS DOUBLE)
                WHEN relevance <= {min_rel} THEN CAST(0 AS DOUBLE)
                ELSE CAST(relevance - {min_rel} AS DOUBLE) / CAST({max_rel} - {min_rel} AS DOUBLE)
                END
            WHEN {gains} = '' THEN
                CASE WHEN relevance >= {rel} THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END
            ELSE COALESCE({@gain_of}, CAST(0 AS DOUBLE))
        END AS gain
    FROM {eval_table}
    WHERE rank IS NOT NULL AND rank <= {k}
),
known AS (
    SELECT pa.run_id, pa.query_id, po.pos, CAST(po.pos AS DOUBLE) AS i,
        COALESCE(s.gain, CAST(0 AS DOUBLE)) AS g_lo,
        COALESCE(s.gain, CAST(1 AS DOUBLE)) AS g_hi
    FROM {@pairs} AS pa
    CROSS JOIN {@positions} AS po
    LEFT JOIN seen AS s
        ON s.run_id = pa.run_id AND s.query_id = pa.query_id AND s.rank = po.pos
),
cells AS (
    SELECT run_id, query_id, pos, i, g_lo, g_hi,
        SUM(g_lo) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cg_lo,
        SUM(g_hi) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cg_hi
    FROM known
)

-- fragment: cwl_continued()
-- CTE weighted (continuing a WITH clause) from CTE cont (run_id, query_id, pos, g_lo, g_hi
-- and the continuation C(pos) in each case, c_lo and c_hi, each >= 0): the unnormalised
-- weights w_lo and w_hi, the product of C over the positions before pos (1 at pos 1; the
-- exponential of a running sum of logarithms, 0 after a position where C is 0).
weighted AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        CASE WHEN COALESCE(SUM(CASE WHEN c_lo > CAST(0 AS DOUBLE) THEN 0 ELSE 1 END) OVER (
                PARTITION BY run_id, query_id ORDER BY pos
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) > 0
            THEN CAST(0 AS DOUBLE)
            ELSE exp(COALESCE(SUM(ln(CASE WHEN c_lo > CAST(0 AS DOUBLE) THEN c_lo
                ELSE CAST(1 AS DOUBLE) END)) OVER (
                    PARTITION BY run_id, query_id ORDER BY pos
                    ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), CAST(0 AS DOUBLE)))
        END AS w_lo,
        CASE WHEN COALESCE(SUM(CASE WHEN c_hi > CAST(0 AS DOUBLE) THEN 0 ELSE 1 END) OVER (
                PARTITION BY run_id, query_id ORDER BY pos
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) > 0
            THEN CAST(0 AS DOUBLE)
            ELSE exp(COALESCE(SUM(ln(CASE WHEN c_hi > CAST(0 AS DOUBLE) THEN c_hi
                ELSE CAST(1 AS DOUBLE) END)) OVER (
                    PARTITION BY run_id, query_id ORDER BY pos
                    ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), CAST(0 AS DOUBLE)))
        END AS w_hi
    FROM cont
)

-- fragment: cwl_score(adaptive := FALSE)
-- The final SELECT over CTE weighted (run_id, query_id, pos, g_lo, g_hi, w_lo, w_hi): with
-- W = w / (sum of w over the positions), value = the sum of W_lo g_lo; residual = the sum
-- of W_hi g_hi less value for an adaptive model (whose weights depend on the gains), else
-- the sum of W (g_hi - g_lo); depth = 1 / W_lo(1). The sums are running sums over the
-- positions in their order, read at their largest (every term is >= 0: w >= 0 and
-- 0 <= g_lo <= g_hi), and divided by the sum of w once: an engine adds the same terms in
-- the same order on every call, where a plain SUM adds a ranking's rows in the order its
-- threads deliver them (in DuckDB the last bits changed from call to call on rankings of
-- 1,000 positions).
SELECT run_id, query_id,
    MAX(s_lo) / MAX(t_lo) AS value,
    CASE WHEN {adaptive} THEN MAX(s_hi) / MAX(t_hi) - MAX(s_lo) / MAX(t_lo)
        ELSE MAX(s_gap) / MAX(t_lo) END AS residual,
    MAX(t_lo) / MAX(CASE WHEN pos = 1 THEN w_lo END) AS depth
FROM (
    SELECT run_id, query_id, pos, w_lo,
        SUM(w_lo) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS t_lo,
        SUM(w_hi) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS t_hi,
        SUM(w_lo * g_lo) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS s_lo,
        SUM(w_hi * g_hi) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS s_hi,
        SUM(w_lo * (g_hi - g_lo)) OVER (
            PARTITION BY run_id, query_id ORDER BY pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS s_gap
    FROM weighted
) AS running
GROUP BY run_id, query_id

-- macro: ireval_inst(k: positions := 1000, target: positive := 1.0, rel: grade := 1,
--     gains: unit_gain_map := '', min_rel: integer := 0, max_rel: integer | NULL := NULL)
--     where min_below_max, gains_or_max_rel
-- INST@k (cwl_eval's INSTCWLMetric(T), T = target): adaptive, C(i) = ((i + T + T_i - 1) /
-- (i + T + T_i))^2 with T_i = T less the gain of positions 1..i.
WITH {@cwl_cells},
ratios AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        (i + CAST({target} AS DOUBLE) + (CAST({target} AS DOUBLE) - cg_lo) - CAST(1 AS DOUBLE))
        / (i + CAST({target} AS DOUBLE) + (CAST({target} AS DOUBLE) - cg_lo)) AS q_lo,
        (i + CAST({target} AS DOUBLE) + (CAST({target} AS DOUBLE) - cg_hi) - CAST(1 AS DOUBLE))
        / (i + CAST({target} AS DOUBLE) + (CAST({target} AS DOUBLE) - cg_hi)) AS q_hi
    FROM cells
),
cont AS (
    SELECT run_id, query_id, pos, g_lo, g_hi, q_lo * q_lo AS c_lo, q_hi * q_hi AS c_hi
    FROM ratios
),
{@cwl_continued}
{@cwl_score(adaptive := TRUE)}

-- macro: ireval_insq(k: positions := 1000, target: positive := 1.0, rel: grade := 1,
--     gains: unit_gain_map := '', min_rel: integer := 0, max_rel: integer | NULL := NULL)
--     where min_below_max, gains_or_max_rel
-- INSQ@k (cwl_eval's INSQCWLMetric(T), T = target): C(i) = ((i + 2T - 1) / (i + 2T))^2.
WITH {@cwl_cells},
ratios AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        (i + CAST(2 AS DOUBLE) * CAST({target} AS DOUBLE) - CAST(1 AS DOUBLE))
        / (i + CAST(2 AS DOUBLE) * CAST({target} AS DOUBLE)) AS q
    FROM cells
),
cont AS (
    SELECT run_id, query_id, pos, g_lo, g_hi, q * q AS c_lo, q * q AS c_hi
    FROM ratios
),
{@cwl_continued}
{@cwl_score(adaptive := FALSE)}

-- macro: ireval_tbg(k: positions := 1000, halflife: positive := 224.0, rel: grade := 1,
--     gains: unit_gain_map := '', min_rel: integer := 0, max_rel: integer | NULL := NULL)
--     where min_below_max, gains_or_max_rel
-- TBG@k (cwl_eval's TBGCWLMetric(halflife)): W(i) proportional to 2^(-(i - 1) / halflife).
WITH {@cwl_cells},
weighted AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        pow(CAST(2 AS DOUBLE), (CAST(0 AS DOUBLE) - (i - CAST(1 AS DOUBLE)))
            * (CAST(1 AS DOUBLE) / CAST({halflife} AS DOUBLE))) AS w_lo,
        pow(CAST(2 AS DOUBLE), (CAST(0 AS DOUBLE) - (i - CAST(1 AS DOUBLE)))
            * (CAST(1 AS DOUBLE) / CAST({halflife} AS DOUBLE))) AS w_hi
    FROM cells
)
{@cwl_score(adaptive := FALSE)}

-- macro: ireval_u(k: positions_from_2 := 1000, stop_length: positive := 1000.0,
--     rel: grade := 1, gains: unit_gain_map := '', min_rel: integer := 0,
--     max_rel: integer | NULL := NULL) where min_below_max, gains_or_max_rel
-- U@k (cwl_eval's UMeasureCWLMetric(L), L = stop_length): W(i) proportional to
-- max(0, 1 - (i - 1) / L), and 0 at position k.
WITH {@cwl_cells},
decays AS (
    SELECT run_id, query_id, pos, i, g_lo, g_hi,
        CAST(1 AS DOUBLE) - (i - CAST(1 AS DOUBLE))
            * (CAST(1 AS DOUBLE) / CAST({stop_length} AS DOUBLE)) AS decay
    FROM cells
),
weighted AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        CASE WHEN i < CAST({k} AS DOUBLE) AND decay > CAST(0 AS DOUBLE) THEN decay
            ELSE CAST(0 AS DOUBLE) END AS w_lo,
        CASE WHEN i < CAST({k} AS DOUBLE) AND decay > CAST(0 AS DOUBLE) THEN decay
            ELSE CAST(0 AS DOUBLE) END AS w_hi
    FROM decays
)
{@cwl_score(adaptive := FALSE)}

-- macro: ireval_bpm(k: positions := 1000, target: positive := 1.0, budget: positive := 10.0,
--     rel: grade := 1, gains: unit_gain_map := '', min_rel: integer := 0,
--     max_rel: integer | NULL := NULL) where min_below_max, gains_or_max_rel
-- BPM@k (cwl_eval's static BPMCWLMetric(T, K), T = target, K = budget): C(i) = 1 while the
-- gain of positions 1..i is below T and i below K, else 0.
WITH {@cwl_cells},
cont AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        CASE WHEN cg_lo < CAST({target} AS DOUBLE) AND i < CAST({budget} AS DOUBLE)
            THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END AS c_lo,
        CASE WHEN cg_hi < CAST({target} AS DOUBLE) AND i < CAST({budget} AS DOUBLE)
            THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END AS c_hi
    FROM cells
),
{@cwl_continued}
{@cwl_score(adaptive := TRUE)}

-- macro: ireval_nerr8(k: positions, rel: grade := 1, gains: unit_gain_map := '',
--     min_rel: integer := 0, max_rel: integer | NULL := NULL)
--     where min_below_max, gains_or_max_rel
-- NERR8@k (cwl_eval's NERReq8CWLMetric(k), Azzopardi et al. ICTIR 2021 eq. 8): C(i) = 1 - g_i
-- for i < k, 0 at k.
WITH {@cwl_cells},
cont AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        CASE WHEN i < CAST({k} AS DOUBLE) THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END
            * (CAST(1 AS DOUBLE) - g_lo) AS c_lo,
        CASE WHEN i < CAST({k} AS DOUBLE) THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END
            * (CAST(1 AS DOUBLE) - g_hi) AS c_hi
    FROM cells
),
{@cwl_continued}
{@cwl_score(adaptive := TRUE)}

-- macro: ireval_nerr9(k: positions, rel: grade := 1, gains: unit_gain_map := '',
--     min_rel: integer := 0, max_rel: integer | NULL := NULL)
--     where min_below_max, gains_or_max_rel
-- NERR9@k (cwl_eval's NERReq9CWLMetric(k), eq. 9): C(i) = i / (i + 1) (1 - g_i) for i < k,
-- 0 at k.
WITH {@cwl_cells},
cont AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        CASE WHEN i < CAST({k} AS DOUBLE) THEN i / (i + CAST(1 AS DOUBLE))
            ELSE CAST(0 AS DOUBLE) END * (CAST(1 AS DOUBLE) - g_lo) AS c_lo,
        CASE WHEN i < CAST({k} AS DOUBLE) THEN i / (i + CAST(1 AS DOUBLE))
            ELSE CAST(0 AS DOUBLE) END * (CAST(1 AS DOUBLE) - g_hi) AS c_hi
    FROM cells
),
{@cwl_continued}
{@cwl_score(adaptive := TRUE)}

-- macro: ireval_nerr10(k: positions := 1000, p: open_unit_interval := 0.9, rel: grade := 1,
--     gains: unit_gain_map := '', min_rel: integer := 0, max_rel: integer | NULL := NULL)
--     where min_below_max, gains_or_max_rel
-- NERR10 (cwl_eval's NERReq10CWLMetric(phi), phi = p, eq. 10): C(i) = p (1 - g_i).
WITH {@cwl_cells},
cont AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        CAST({p} AS DOUBLE) * (CAST(1 AS DOUBLE) - g_lo) AS c_lo,
        CAST({p} AS DOUBLE) * (CAST(1 AS DOUBLE) - g_hi) AS c_hi
    FROM cells
),
{@cwl_continued}
{@cwl_score(adaptive := TRUE)}

-- macro: ireval_nerr11(k: positions := 1000, target: positive := 1.0, rel: grade := 1,
--     gains: unit_gain_map := '', min_rel: integer := 0, max_rel: integer | NULL := NULL)
--     where min_below_max, gains_or_max_rel
-- NERR11 (cwl_eval's NERReq11CWLMetric(T), T = target, eq. 11): C(i) = ((i + 2T - 1) /
-- (i + 2T))^2 (1 - g_i).
WITH {@cwl_cells},
ratios AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        (i + CAST(2 AS DOUBLE) * CAST({target} AS DOUBLE) - CAST(1 AS DOUBLE))
        / (i + CAST(2 AS DOUBLE) * CAST({target} AS DOUBLE)) AS q
    FROM cells
),
cont AS (
    SELECT run_id, query_id, pos, g_lo, g_hi,
        q * q * (CAST(1 AS DOUBLE) - g_lo) AS c_lo,
        q * q * (CAST(1 AS DOUBLE) - g_hi) AS c_hi
    FROM ratios
),
{@cwl_continued}
{@cwl_score(adaptive := TRUE)}
