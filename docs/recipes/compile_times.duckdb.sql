-- Compile time per full key over the `compile_records` tables (docs/parquet-schema.md) of an
-- aggregate directory: run from the directory (`cd agg && duckdb < compile_times.duckdb.sql`).
--
-- The full key is compile-triage.md's (cell, transform, hardware, hostname, jax_version,
-- precision, cache_state); rows with any of them or compile_s null are left out, as the triage
-- leaves "incomplete" rows out. Per key: rows, median / min / max compile_s (s), the first and
-- last timestamp, and the drift of the last row against the key's median (last / median). The
-- warm medians are what `trialscope pin` pins (tests/it/summarize_tables.rs checks them to
-- 1e-12); comparing a key's median across `jax_version` values shows a version's compile
-- time drift.
SELECT cell, transform, hardware, hostname, jax_version, precision, cache_state,
       count(*) AS rows,
       median(compile_s) AS median_s,
       min(compile_s) AS min_s,
       max(compile_s) AS max_s,
       min(timestamp) AS first_timestamp,
       max(timestamp) AS last_timestamp,
       arg_max(compile_s, timestamp_unix_ns) / median(compile_s) AS last_over_median
FROM read_parquet('compile_records/*.parquet')
WHERE cell IS NOT NULL AND transform IS NOT NULL AND hardware IS NOT NULL
  AND hostname IS NOT NULL AND jax_version IS NOT NULL AND precision IS NOT NULL
  AND cache_state IS NOT NULL AND compile_s IS NOT NULL
GROUP BY ALL
ORDER BY cell, transform, hardware, hostname, jax_version, precision, cache_state;
