#!/usr/bin/env python3
"""Self and inclusive time per function of a V8 `.cpuprofile` (node --cpu-prof), top N.

Usage: python3 tools/bench/cpuprofile_top.py FILE.cpuprofile [N] [FILTER]
FILTER keeps only samples whose stack contains a frame matching that substring (e.g. a stage
function), so one stage can be looked at on its own.
"""
import json
import sys
from collections import defaultdict

prof = json.load(open(sys.argv[1]))
top = int(sys.argv[2]) if len(sys.argv) > 2 else 40
filt = sys.argv[3] if len(sys.argv) > 3 else None
nodes = {n["id"]: n for n in prof["nodes"]}
parent = {}
for n in prof["nodes"]:
    for c in n.get("children", []):
        parent[c] = n["id"]
deltas = prof["timeDeltas"]
selft = defaultdict(float)
incl = defaultdict(float)
total = 0.0
for sid, dt in zip(prof["samples"], deltas[1:] + [0]):
    stack = []
    i = sid
    while i is not None:
        stack.append(nodes[i]["callFrame"]["functionName"] or "(anon)")
        i = parent.get(i)
    if filt and not any(filt in f for f in stack):
        continue
    total += dt
    selft[stack[0]] += dt
    for f in set(stack):
        incl[f] += dt
print(f"total {total / 1e3:.1f} ms" + (f" (stacks with {filt!r})" if filt else ""))
print("--- self")
for f, t in sorted(selft.items(), key=lambda x: -x[1])[:top]:
    print(f"{t / 1e3:9.1f} ms {100 * t / total:5.1f}%  {f[:150]}")
print("--- inclusive")
for f, t in sorted(incl.items(), key=lambda x: -x[1])[:top]:
    print(f"{t / 1e3:9.1f} ms {100 * t / total:5.1f}%  {f[:150]}")
