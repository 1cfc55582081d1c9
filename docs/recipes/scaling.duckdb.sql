-- trialscope's scaling analysis over the Parquet aggregates of `trialscope summarize`, in DuckDB
-- (docs/parquet-schema.md; the rules: ../shared/reference/scaling.md, "Per-trial aggregation"
-- and "Correlated hotspots"). Run it with the aggregate directory as the working directory:
--
--     cd DIR && duckdb < scaling.duckdb.sql          (or: python3 scaling_duckdb.py DIR)
--
-- It computes, for every metric (inclusive, self, count) and every group (variant, semantic
-- frame): the per-input medians, Spearman's rho with average ranks for ties (window functions),
-- the two-sided p-value and the Benjamini-Hochberg q over all tested groups of the metric — the
-- numbers of `trialscope scaling --metric M --json` (tests/it/summarize.rs checks rho to 1e-12
-- and q to 1e-9 for every group).
--
-- p-values: for n > 10 trials trialscope uses the t approximation (df = n - 2), computed here in
-- SQL by the finite sums of Abramowitz & Stegun 26.7.3/26.7.4. For n <= 10 it uses the exact
-- permutation distribution of rho over all n! pairings; that is not practical in SQL, so the
-- recipe calls the scalar function spearman_exact_p(ranks_x DOUBLE[], ranks_y DOUBLE[]), which
-- the runner scaling_duckdb.py registers from spearman_p.py (a small Python UDF). In the DuckDB
-- CLI, without Python, define it first as
--     CREATE MACRO spearman_exact_p(a, b) AS CAST(NULL AS DOUBLE);
-- and groups of <= 10 trials get no p (they then drop out of the BH family: their q differ).
--
-- The input x is trials.input (the number trialscope's default pattern reads from the file
-- name); a trial takes part when status = 'ok' and input is finite. A trial of the variant that
-- lacks a frame contributes 0 (zero-filled) unless its import lost data (data_loss), when it
-- contributes nothing (missing).

-- Integer ids for the join and window keys (semantic ids and artifact ids are long strings).
CREATE OR REPLACE TEMP TABLE usable AS
SELECT row_number() OVER (ORDER BY artifact_id) AS tid, artifact_id, variant, input AS x,
       coalesce(data_loss, false) AS data_loss
FROM read_parquet('trials/*.parquet', union_by_name = true)
WHERE status = 'ok' AND input IS NOT NULL AND isfinite(input);

CREATE OR REPLACE TEMP TABLE costs AS
SELECT u.tid, c.semantic_frame_id, c.inclusive_ns, c.self_ns, c.count
FROM read_parquet('frame_costs/*.parquet') c
JOIN usable u ON u.artifact_id = c.artifact_id;

CREATE OR REPLACE TEMP TABLE frame_ids AS
SELECT row_number() OVER (ORDER BY semantic_frame_id) AS fid, semantic_frame_id
FROM (SELECT DISTINCT semantic_frame_id FROM costs);

-- Every (variant, frame) seen in a usable trial of the variant, times every usable trial of the
-- variant: the three metrics' values, zero-filled or missing.
CREATE OR REPLACE TEMP TABLE vals AS
WITH c AS (
    SELECT c.tid, f.fid, c.inclusive_ns, c.self_ns, c.count
    FROM costs c JOIN frame_ids f USING (semantic_frame_id)
),
groups AS (
    SELECT DISTINCT u.variant, c.fid FROM c JOIN usable u USING (tid)
)
SELECT g.variant, g.fid, u.tid, u.x,
       coalesce(c.inclusive_ns, 0)::DOUBLE AS y_inclusive,
       coalesce(c.self_ns, 0)::DOUBLE AS y_self,
       coalesce(c.count, 0)::DOUBLE AS y_count,
       c.tid IS NULL AS zero_filled
FROM groups g
JOIN usable u ON u.variant = g.variant
LEFT JOIN c ON c.tid = u.tid AND c.fid = g.fid
WHERE c.tid IS NOT NULL OR NOT u.data_loss;

-- Per-input medians (the points of each group).
CREATE OR REPLACE TABLE scaling_medians AS
WITH m AS (
    SELECT variant, fid, x AS input, median(y_inclusive) AS inclusive, median(y_self) AS self,
           median(y_count) AS count, count(*) AS trials, count(*) FILTER (WHERE zero_filled) AS zero_filled
    FROM vals GROUP BY ALL
)
SELECT m.variant, f.semantic_frame_id, metric, input, median, trials, zero_filled
FROM (UNPIVOT m ON inclusive, self, count INTO NAME metric VALUE median) m
JOIN frame_ids f USING (fid);

-- Average ranks: rank() is the lowest rank of a tie, count(*) with the default RANGE frame
-- (the peers included) its highest; the tie's mean rank is their mean.
CREATE OR REPLACE TEMP TABLE ranked AS
WITH r AS (
    SELECT variant, fid, x,
           count(*) OVER g AS n,
           (rank() OVER (g ORDER BY x) + count(*) OVER (g ORDER BY x)) / 2.0 AS rx,
           (rank() OVER (g ORDER BY y_inclusive) + count(*) OVER (g ORDER BY y_inclusive)) / 2.0 AS inclusive,
           (rank() OVER (g ORDER BY y_self) + count(*) OVER (g ORDER BY y_self)) / 2.0 AS self,
           (rank() OVER (g ORDER BY y_count) + count(*) OVER (g ORDER BY y_count)) / 2.0 AS count
    FROM vals
    WINDOW g AS (PARTITION BY variant, fid)
)
UNPIVOT r ON inclusive, self, count INTO NAME metric VALUE ry;

-- rho = Pearson correlation of the ranks; the mean rank is exactly (n + 1) / 2, so the centred
-- sums are sums of quarter-integers (exact in doubles, in any order).
CREATE OR REPLACE TEMP TABLE groups_tested AS
WITH g AS (
    SELECT variant, fid, metric, any_value(n) AS n, count(DISTINCT x) AS distinct_inputs,
           sum((rx - (n + 1) / 2.0) * (ry - (n + 1) / 2.0)) AS sab,
           sum((rx - (n + 1) / 2.0) * (rx - (n + 1) / 2.0)) AS saa,
           sum((ry - (n + 1) / 2.0) * (ry - (n + 1) / 2.0)) AS sbb,
           -- The ranks themselves only where the exact p needs them (n <= 10).
           list(rx ORDER BY rx, ry) FILTER (WHERE n <= 10) AS ranks_x,
           list(ry ORDER BY rx, ry) FILTER (WHERE n <= 10) AS ranks_y,
           min(x) AS supported_min, max(x) AS supported_max
    FROM ranked
    GROUP BY variant, fid, metric
),
r AS (
    SELECT *, CASE WHEN saa * sbb > 0 THEN greatest(-1.0, least(1.0, sab / sqrt(saa * sbb))) END AS rho
    FROM g
    WHERE n >= 3 AND distinct_inputs >= 2
),
t AS (
    SELECT *, n - 2 AS df,
           abs(rho) * sqrt((n - 2) / ((1.0 + rho) * (1.0 - rho))) AS t_abs
    FROM r
    WHERE rho IS NOT NULL AND isfinite(rho)
),
a AS (
    -- P(|T| >= t) by Abramowitz & Stegun 26.7.3 (odd df) and 26.7.4 (even df), with
    -- x = cos^2(theta) = df / (df + t^2), s = sin(theta) = t / sqrt(df + t^2):
    --   even df: p = 1 - s * sum_{k < df/2} c_k x^k,           c_k = prod_{j<=k} (2j-1)/(2j)
    --   odd df:  p = 1 - 2/pi (atan(t/sqrt df) + s * sum_{k < (df-1)/2} d_k x^(k+1/2)),
    --                                                          d_k = prod_{j<=k} (2j)/(2j+1)
    -- For x < 1/2 the same p is summed directly as the series' tail (64 terms, ratio < 1/2),
    -- where 1 - A would lose the small p to cancellation.
    SELECT *, df / (df + t_abs * t_abs) AS x, t_abs / sqrt(df + t_abs * t_abs) AS s
    FROM t
),
pt AS (
    SELECT *,
        CASE
            WHEN abs(rho) >= 1.0 OR n <= 10 THEN NULL
            WHEN df % 2 = 0 AND x < 0.5 THEN
                s * list_sum(list_transform(range(df // 2, df // 2 + 64),
                    lambda k: exp(lgamma(k + 0.5) - lgamma(0.5) - lgamma(k + 1.0) + k * ln(x))))
            WHEN df % 2 = 0 THEN
                1.0 - s * list_sum(list_transform(range(0, df // 2),
                    lambda k: exp(lgamma(k + 0.5) - lgamma(0.5) - lgamma(k + 1.0)) * pow(x, k)))
            WHEN df = 1 AND x < 0.5 THEN 2.0 / pi() * atan(1.0 / t_abs)
            WHEN df = 1 THEN 1.0 - 2.0 / pi() * atan(t_abs)
            WHEN x < 0.5 THEN
                2.0 / pi() * s * list_sum(list_transform(range((df - 1) // 2, (df - 1) // 2 + 64),
                    lambda k: exp(2.0 * lgamma(k + 1.0) + 2.0 * k * ln(2.0) - lgamma(2.0 * k + 2.0) + (k + 0.5) * ln(x))))
            ELSE
                1.0 - 2.0 / pi() * (atan(t_abs / sqrt(df)) + s * list_sum(list_transform(range(0, (df - 1) // 2),
                    lambda k: exp(2.0 * lgamma(k + 1.0) + 2.0 * k * ln(2.0) - lgamma(2.0 * k + 2.0)) * pow(x, k + 0.5))))
        END AS p_t
    FROM a
),
p AS (
    SELECT * EXCLUDE (p_t, t_abs, x, s, sab, saa, sbb),
        CASE
            WHEN n <= 10 THEN spearman_exact_p(ranks_x, ranks_y)
            WHEN abs(rho) >= 1.0 THEN 0.0
            ELSE least(1.0, greatest(0.0, p_t))
        END AS p_value,
        CASE WHEN n <= 10 THEN 'exact_permutation' ELSE 't_distribution' END AS p_method
    FROM pt
)
SELECT p.*, f.semantic_frame_id FROM p JOIN frame_ids f USING (fid)
WHERE p_value IS NOT NULL AND isfinite(p_value);

-- Benjamini-Hochberg over all tested groups of each metric: q_(i) = min over j >= i of
-- p_(j) * m / j, capped at 1.
CREATE OR REPLACE TABLE scaling_hotspots AS
WITH ordered AS (
    SELECT *, count(*) OVER (PARTITION BY metric) AS m,
           row_number() OVER (PARTITION BY metric ORDER BY p_value, semantic_frame_id, variant) AS i
    FROM groups_tested
),
q AS (
    SELECT * EXCLUDE (ranks_x, ranks_y, fid),
           least(1.0, min(p_value * m / i) OVER (PARTITION BY metric ORDER BY i DESC
                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)) AS q_value
    FROM ordered
),
frames AS (
    SELECT DISTINCT ON (semantic_frame_id) *
    FROM read_parquet('frames/*.parquet')
    ORDER BY semantic_frame_id
)
SELECT q.variant, q.semantic_frame_id, q.metric, f.provider, f.name, f.category, f.file, f.line,
       f.function, f.posted_from, q.n AS trials, q.distinct_inputs, q.supported_min,
       q.supported_max, q.df, q.rho, q.p_value, q.p_method, q.q_value, q.m AS tested_hypotheses
FROM q LEFT JOIN frames f USING (semantic_frame_id)
ORDER BY q.metric, abs(q.rho) DESC, q.q_value, q.semantic_frame_id;

SELECT metric, count(*) AS tested, count(*) FILTER (WHERE q_value < 0.05) AS significant
FROM scaling_hotspots GROUP BY metric ORDER BY metric;
