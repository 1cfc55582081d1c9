"""Scale benchmark of the Parquet aggregates (issue 12; a harness, not a timed test).

    python3 tools/bench/summarize_bench.py summarize [--files 1000] [--bin target/release/trialscope]
    target/recipevenv/bin/python tools/bench/summarize_bench.py duckdb [--trials 100000] [--frames 1000]

`summarize`: writes N small generated Chrome JSON traces (60 complete events over 30 frame names,
inputs 1..10 in the file names) to a scratch folder, runs `trialscope summarize --out` over it
and reports files/s, rows/s (rows written to all four tables) and the peak RSS of the process.

`duckdb`: generates the aggregate tables of T synthetic trials x F frames with DuckDB itself
(one Parquet file per table: the layout of concatenated shards), runs
docs/recipes/scaling.duckdb.sql over them and reports the time, the frame_costs rows/s and the
peak RSS of this process (DuckDB runs in it). Scratch data goes to --scratch (deleted after).
"""

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def peak_children_mb():
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0


def peak_self_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def small_trace(rng, x):
    events = []
    ts = 0
    for i in range(60):
        dur = int(rng.expovariate(1.0 / (100 * x))) + 1
        events.append(
            {"name": f"op_{i % 30}", "cat": "bench", "ph": "X", "ts": ts, "dur": dur, "pid": 1, "tid": 1 + i % 2}
        )
        ts += dur + 1
    return json.dumps({"traceEvents": events, "displayTimeUnit": "ns"})


def bench_summarize(args):
    scratch = os.path.join(args.scratch, "traces")
    out = os.path.join(args.scratch, "agg")
    shutil.rmtree(args.scratch, ignore_errors=True)
    os.makedirs(scratch)
    rng = random.Random(0)
    for k in range(args.files):
        x = 1 + k % 10
        with open(os.path.join(scratch, f"bench_n{x}_r{k}.json"), "w") as f:
            f.write(small_trace(rng, x))
    t0 = time.perf_counter()
    r = subprocess.run([args.bin, "summarize", "--out", out, scratch], capture_output=True, text=True)
    secs = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(r.stderr[-2000:])
    rows = 0
    if args.count_rows:
        import duckdb

        for t in ["trials", "frames", "frame_costs", "unmatched_costs"]:
            rows += duckdb.sql(f"SELECT count(*) FROM read_parquet('{out}/{t}/*.parquet')").fetchone()[0]
    files = sum(len(fs) for _, _, fs in os.walk(out))
    print(r.stderr.strip().splitlines()[-1])
    print(
        f"summarize: {args.files} traces in {secs:.2f} s = {args.files / secs:.0f} files/s"
        + (f", {rows} rows = {rows / secs:.0f} rows/s" if rows else "")
        + f", {files} Parquet files, peak RSS {peak_children_mb():.0f} MB"
    )
    shutil.rmtree(args.scratch, ignore_errors=True)


def bench_duckdb(args):
    import duckdb

    sys.path.insert(0, os.path.join(ROOT, "docs", "recipes"))
    import scaling_duckdb

    d = args.scratch
    shutil.rmtree(d, ignore_errors=True)
    for t in ["trials", "frames", "frame_costs"]:
        os.makedirs(os.path.join(d, t))
    con = duckdb.connect()
    con.execute(f"SET threads = {args.threads}")
    t0 = time.perf_counter()
    T, F = args.trials, args.frames
    con.execute(f"""
        COPY (SELECT 'sha256:' || sha256(i::VARCHAR) AS artifact_id, 'synthetic/trial_n' || (1 + i % 20) || '_r' || i || '.json' AS path,
                     'ok' AS status, (1 + i % 20)::DOUBLE AS input, 'default' AS variant, false AS data_loss
              FROM range({T}) t(i)) TO '{d}/trials/all.parquet' (FORMAT parquet)""")
    con.execute(f"""
        COPY (SELECT 'sf1:' || sha256('f' || j::VARCHAR) AS semantic_frame_id, 'chrome_json' AS provider,
                     'op_' || j AS name, 'bench' AS category, NULL::VARCHAR AS file, NULL::BIGINT AS line,
                     NULL::VARCHAR AS function, NULL::VARCHAR AS posted_from
              FROM range({F}) f(j)) TO '{d}/frames/all.parquet' (FORMAT parquet)""")
    # Cost grows with the input for every 10th frame, noise elsewhere; every 7th frame is
    # absent from every 3rd trial (zero-filled).
    con.execute(f"""
        COPY (SELECT 'sha256:' || sha256(i::VARCHAR) AS artifact_id, 'sf1:' || sha256('f' || j::VARCHAR) AS semantic_frame_id,
                     (1000 + (CASE WHEN j % 10 = 0 THEN (1 + i % 20) * 100 ELSE 0 END) + hash(i * {F} + j) % 1000)::BIGINT AS inclusive_ns,
                     (500 + hash(i * {F} + j + 1) % 500)::BIGINT AS self_ns,
                     (1 + hash(i * {F} + j + 2) % 10)::BIGINT AS count
              FROM range({T}) t(i), range({F}) f(j)
              WHERE NOT (j % 7 = 0 AND i % 3 = 0)) TO '{d}/frame_costs/all.parquet' (FORMAT parquet)""")
    gen = time.perf_counter() - t0
    rows = con.execute(f"SELECT count(*) FROM read_parquet('{d}/frame_costs/*.parquet')").fetchone()[0]
    size = sum(os.path.getsize(os.path.join(p, f)) for p, _, fs in os.walk(d) for f in fs)
    con.close()
    with open(os.path.join(ROOT, "docs", "recipes", "scaling.duckdb.sql")) as f:
        sql = f.read()
    con = scaling_duckdb.connect(d)
    con.execute(f"SET threads = {args.threads}")
    if args.memory_limit:
        con.execute(f"SET memory_limit = '{args.memory_limit}'")
    con.execute(f"SET temp_directory = '{d}/.spill'")
    t1 = time.perf_counter()
    summary = con.execute(sql).fetchall()
    secs = time.perf_counter() - t1
    print(
        f"duckdb recipe: {T} trials x {F} frames, {rows} frame_costs rows ({size / 1e6:.0f} MB Parquet, generated in {gen:.0f} s): "
        f"{secs:.1f} s = {rows / secs:.0f} rows/s, peak RSS {peak_self_mb():.0f} MB, {args.threads} thread(s); tested/significant per metric: {summary}"
    )
    os.chdir(ROOT)
    shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["summarize", "duckdb"])
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "trialscope"))
    ap.add_argument("--count-rows", action="store_true", help="count the rows written (needs duckdb)")
    ap.add_argument("--trials", type=int, default=100_000)
    ap.add_argument("--frames", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--memory-limit", default=None)
    ap.add_argument("--scratch", default=os.path.join(ROOT, "target", "bench-scratch"))
    args = ap.parse_args()
    if args.what == "summarize":
        bench_summarize(args)
    else:
        bench_duckdb(args)


if __name__ == "__main__":
    main()
