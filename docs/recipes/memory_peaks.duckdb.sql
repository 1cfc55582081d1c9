-- Peak hidden memory per job and rank over the `memory_intervals` tables (docs/parquet-schema.md)
-- of an aggregate directory: run from the directory (`cd agg && duckdb < memory_peaks.duckdb.sql`).
--
-- Per (job, rank): the attributed intervals, how many are collective_confident, the largest
-- peak gap (device_used − allocator_reserved, bytes; MiB for reading), the interval it
-- belongs to (absolute start = origin_ns + start_ns) and the highest confidence.
-- tests/it/summarize_tables.rs checks it against `trialscope memory --json FOLDER`.
SELECT job, rank,
       count(*) AS intervals,
       count(*) FILTER (WHERE classification = 'collective_confident') AS confident,
       max(peak_gap_bytes) AS peak_gap_bytes,
       max(peak_gap_bytes) / 1048576.0 AS peak_gap_mib,
       arg_max(origin_ns + start_ns, peak_gap_bytes) AS peak_start_unix_ns,
       max(confidence) AS max_confidence
FROM read_parquet('memory_intervals/*.parquet')
GROUP BY job, rank
ORDER BY job, rank;
