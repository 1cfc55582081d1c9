"""Scale benchmark of the Parquet aggregates (issue 12; a harness, not a timed test).

    python3 tools/bench/summarize_bench.py summarize [--files 1000] [--bin target/release/trialscope]
        [--bin target/debug/trialscope …] [--repeat 3] [--count-rows]
    target/recipevenv/bin/python tools/bench/summarize_bench.py duckdb [--trials 100000] [--frames 1000]

`summarize`: writes N small generated Chrome JSON traces (60 complete events over 30 frame names,
inputs 1..10 in the file names) to a scratch folder, runs `trialscope summarize --out` over it
and reports files/s, rows/s (rows written to the four core tables, with --count-rows and duckdb),
wall and CPU time (user + sys, os.wait4) and the peak RSS of each run (its VmHWM, polled). Several --bin are run
interleaved (A, B, A, B, …) on the same traces, so the shared machine's load hits each alike.

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


def vm_hwm_kb(pid):
    """The process's peak resident set (VmHWM, kB) so far; None once it has gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def run_measured(cmd):
    """Runs cmd; (returncode, stderr, wall s, CPU s = user + sys, peak RSS MB) of that child
    alone: CPU from os.wait4, the peak from the child's own VmHWM polled every 20 ms (ru_maxrss
    would also count the forking Python's pages before exec)."""
    import threading

    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    peak = [0]
    done = threading.Event()

    def poll():
        while not done.is_set():
            v = vm_hwm_kb(p.pid)
            if v is not None:
                peak[0] = max(peak[0], v)
            time.sleep(0.02)

    th = threading.Thread(target=poll)
    th.start()
    err = p.stderr.read()
    # The child has closed stderr: it is exiting; one last look before it is reaped.
    v = vm_hwm_kb(p.pid)
    if v is not None:
        peak[0] = max(peak[0], v)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    done.set()
    th.join()
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, err, wall, ru.ru_utime + ru.ru_stime, peak[0] / 1024.0


def bench_summarize(args):
    scratch = os.path.join(args.scratch, "traces")
    shutil.rmtree(args.scratch, ignore_errors=True)
    os.makedirs(scratch)
    rng = random.Random(0)
    for k in range(args.files):
        x = 1 + k % 10
        with open(os.path.join(scratch, f"bench_n{x}_r{k}.json"), "w") as f:
            f.write(small_trace(rng, x))
    bins = args.bin or [os.path.join(ROOT, "target", "release", "trialscope")]
    # Interleaved: bin A, bin B, A, B, … on the same traces (the machine's load hits each alike).
    results = {b: [] for b in bins}
    for rep in range(args.repeat):
        for b in bins:
            out = os.path.join(args.scratch, "agg")
            shutil.rmtree(out, ignore_errors=True)
            code, err, wall, cpu, rss = run_measured([b, "summarize", "--out", out, scratch])
            if code != 0:
                sys.exit(err[-2000:])
            rows = 0
            if args.count_rows:
                import duckdb

                for t in ["trials", "frames", "frame_costs", "unmatched_costs"]:
                    rows += duckdb.sql(f"SELECT count(*) FROM read_parquet('{out}/{t}/*.parquet')").fetchone()[0]
            files = sum(len(fs) for _, _, fs in os.walk(out))
            results[b].append((wall, cpu, rss))
            print(
                f"[{rep + 1}/{args.repeat}] {b}: {args.files} traces in {wall:.2f} s wall, {cpu:.2f} s CPU (user+sys) "
                f"= {args.files / wall:.0f} files/s"
                + (f", {rows} rows = {rows / wall:.0f} rows/s" if rows else "")
                + f", {files} Parquet files, peak RSS {rss:.0f} MB"
            )
            print("    " + err.strip().splitlines()[-1])
    for b, rs in results.items():
        walls = sorted(r[0] for r in rs)
        cpus = sorted(r[1] for r in rs)
        print(
            f"{b}: median of {len(rs)}: {walls[len(walls) // 2]:.2f} s wall "
            f"({args.files / walls[len(walls) // 2]:.0f} files/s), {cpus[len(cpus) // 2]:.2f} s CPU, "
            f"peak RSS max {max(r[2] for r in rs):.0f} MB"
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
    ap.add_argument("--bin", action="append", help="binary to run (repeatable: interleaved); default target/release/trialscope")
    ap.add_argument("--repeat", type=int, default=1, help="runs per binary, interleaved")
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
