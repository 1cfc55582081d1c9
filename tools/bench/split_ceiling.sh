#!/usr/bin/env bash
# The ceiling of importing one Perfetto trace on both cores (docs/benchmarks.md, "Perfetto
# native ≥ 5× upb", session 31): splits TRACE into two byte-balanced parts at its sequences'
# incremental-state clears (split_sequences.py), then measures ROUNDS rounds, each of
#   upb    the Python upb decode of the whole file (`Trace.FromString`, bytes read beforehand),
#   whole  `trialscope bench --child --runs 1 TRACE`,
#   parts  both parts' `bench --child --runs 1` started together: the later one's import time,
#   one    the first part alone,
# each the best of 3 tries, and prints each round's times and the ratios upb/whole and
# upb/parts, then their medians. Import times are the `best_import_s` the child prints (no
# process start-up); upb's is timed inside Python. A benchmark, not a test.
#
# Usage: tools/bench/split_ceiling.sh TRIALSCOPE_BIN TRACE.pb [ROUNDS=8]
#   PYTHON=… the peer venv's python (default target/peervenv/bin/python, README "Command line",
#   `bench`); the parts are written beside TRACE as TRACE.part0.pb / TRACE.part1.pb.
set -euo pipefail
bin="$1"
trace="$2"
rounds="${3:-8}"
py="${PYTHON:-target/peervenv/bin/python}"
here="$(cd "$(dirname "$0")" && pwd)"
"$py" "$here/split_sequences.py" "$trace" "$trace.part" 2

import_s() { # FILE → the import time `bench --child --runs 1` prints, in s
  "$bin" bench --child --runs 1 "$1" | "$py" -c 'import json,sys; print(json.load(sys.stdin)[0]["best_import_s"])'
}
best_of_3() { # COMMAND… → the smallest of three numbers it prints
  local best="" t
  for _ in 1 2 3; do
    t=$("$@")
    best=$("$py" -c "print(min(x for x in ($t, ${best:-$t})))")
  done
  echo "$best"
}
parts_at_once() {
  local a b
  a=$(mktemp)
  b=$(mktemp)
  import_s "$trace.part0.pb" > "$a" &
  import_s "$trace.part1.pb" > "$b"
  wait
  "$py" -c "print(max($(cat "$a"), $(cat "$b")))"
  rm -f "$a" "$b"
}
upb_s() {
  "$py" - "$trace" <<'PY'
import sys, time
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb
data = open(sys.argv[1], "rb").read()
t = time.perf_counter()
pb.Trace.FromString(data)
print(time.perf_counter() - t)
PY
}

echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
results=$(mktemp)
for r in $(seq 1 "$rounds"); do
  u=$(best_of_3 upb_s)
  w=$(best_of_3 import_s "$trace")
  p=$(best_of_3 parts_at_once)
  o=$(best_of_3 import_s "$trace.part0.pb")
  echo "$u $w $p $o" >> "$results"
  "$py" -c "u,w,p,o=$u,$w,$p,$o; print(f'round $r: upb {u:.3f} s, whole {w:.3f} s, parts at once {p:.3f} s, one part {o:.3f} s; upb/whole {u/w:.2f}x, upb/parts {u/p:.2f}x')"
done
"$py" - "$results" <<'PY'
import statistics, sys
rows = [list(map(float, line.split())) for line in open(sys.argv[1])]
whole = [u / w for u, w, p, o in rows]
parts = [u / p for u, w, p, o in rows]
share = [p / w for u, w, p, o in rows]
f = lambda xs: f"median {statistics.median(xs):.2f} ({min(xs):.2f}-{max(xs):.2f})"
print(f"upb/whole {f(whole)}; upb/parts {f(parts)}; parts/whole time {f(share)}")
PY
rm -f "$results"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
