#!/usr/bin/env bash
# Which wasm functions V8 recompiled in its optimising tier (TurboFan) during a browser
# benchmark, by name. The release site has no name section, so this rebuilds the two modules
# as Trunk does (wasm-bindgen, then binaryen's wasm-opt -Os) with `-g` to keep the names,
# checks that every function body has the size the site's has (same indices), and reads V8's
# `--trace-wasm-compilation-times` lines ("Compiled function 0x…#<index> using TurboFan, took
# <µs> …") from LOG.
#
#   bash .ci/build-site ./ dist     # the site the benchmark serves, built from this tree
#   TRIALSCOPE_CHROME_LOGS=1 \
#   TRIALSCOPE_CHROME_ARGS=--js-flags=--trace-wasm-compilation-times \
#   TRIALSCOPE_SCALE_ONLY=demo TRIALSCOPE_SCALE_RUNS=1 TRIALSCOPE_SCALE_PICK_DELAY_MS=1500 \
#     cargo test --release --test it -- --ignored --nocapture benchmark_browser_scale > LOG 2>&1
#   bash tools/bench/wasm_tierup.sh LOG [MIN_MS]
#
# Prints, per compiled module (app = the page; worker = the import and session workers, which
# share the one module the page compiles, `ui::bridge::new_worker`; a site built before that
# could have a worker started later compile its own: then a second worker line, whose
# compiles repeat the first's), the TurboFan and Liftoff compile time
# summed (wall ms from V8's µs, so they grow with the machine's load; not CPU time), then every
# TurboFan compile of at least MIN_MS (default 10) in the order V8 finished them: its place in
# that order, the running total ms, its ms, its body size in bytes, its name. The import
# worker's warm-up (README "Crash isolation and parallel import") compiles first; a line marks
# where the first gzip file of the batch was inflated (the warm-up's trace is not compressed),
# so the compiles below it came with the dropped files. Not part of the app build; uses the
# tools .ci/setup installs; the two `wasm-opt -g` rebuilds take ~1 min.
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
log="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
min_ms="${2:-10}"
cd "$here"
export PATH="$here/.tools/node_modules/.bin:$HOME/.cargo/bin:$PATH"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
wasm="target/wasm32-unknown-unknown/wasm-release"
features=(--enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext
  --enable-mutable-globals)
wasm-bindgen --target web --out-dir "$work/app" --no-typescript "$wasm/app.wasm"
wasm-bindgen --target no-modules --out-dir "$work/worker" --no-typescript "$wasm/worker.wasm"
wasm-opt -Os -g "${features[@]}" "$work/app/app_bg.wasm" -o "$work/app.wasm"
wasm-opt -Os -g "${features[@]}" "$work/worker/worker_bg.wasm" -o "$work/worker.wasm"
app_site="$(ls dist/app-*_bg.wasm)"
python3 - "$log" "$min_ms" "$work/app.wasm" "$app_site" "$work/worker.wasm" \
  "$(ls dist/worker-*_bg.wasm)" "$here/tools/bench" <<'EOF'
import collections, re, sys

sys.path.insert(0, sys.argv[7])
from leb128 import varint as leb  # noqa: E402

log, min_ms = sys.argv[1], float(sys.argv[2])
pairs = {"app": (sys.argv[3], sys.argv[4]), "worker": (sys.argv[5], sys.argv[6])}


def read(path):
    """(function imports, body sizes in index order, {function index: name})."""
    b = open(path, "rb").read()
    i, imports, bodies, names = 8, 0, [], {}
    while i < len(b):
        sid = b[i]
        n, i = leb(b, i + 1)
        end = i + n
        if sid == 2:
            cnt, j = leb(b, i)
            for _ in range(cnt):
                for _ in range(2):  # module and field names
                    ln, j = leb(b, j)
                    j += ln
                kind = b[j]
                j += 1
                if kind == 0:  # function: type index
                    _, j = leb(b, j)
                    imports += 1
                elif kind == 1:  # table: element type, limits
                    flags = b[j + 1]
                    _, j = leb(b, j + 2)
                    if flags & 1:
                        _, j = leb(b, j)
                elif kind == 2:  # memory: limits
                    flags = b[j]
                    _, j = leb(b, j + 1)
                    if flags & 1:
                        _, j = leb(b, j)
                elif kind == 3:  # global: value type, mutability
                    j += 2
        elif sid == 10:
            cnt, j = leb(b, i)
            for _ in range(cnt):
                sz, j = leb(b, j)
                bodies.append(sz)
                j += sz
        elif sid == 0:
            nl, j = leb(b, i)
            if b[j : j + nl] == b"name":
                j += nl
                while j < end:
                    sub = b[j]
                    sl, j = leb(b, j + 1)
                    if sub == 1:
                        cnt, k = leb(b, j)
                        for _ in range(cnt):
                            idx, k = leb(b, k)
                            ln, k = leb(b, k)
                            names[idx] = b[k : k + ln].decode("utf8", "replace")
                            k += ln
                    j += sl
        i = end
    return imports, bodies, names


def short(name):
    """A function's name without its hash (rustc writes the name section demangled)."""
    return re.sub(r"::h[0-9a-f]{16}$", "", name)


modules = {}
for mod, (named, site) in pairs.items():
    imports, nb, nm = read(named)
    _, sb, _ = read(site)
    if nb != sb:
        sys.exit(f"{mod}: the rebuilt module's bodies differ from {site}: rebuild the site "
                 "(bash .ci/build-site ./ dist) from this tree first")
    modules[mod] = (imports, nb, nm)

line = re.compile(r"Compiled function (0x[0-9a-f]+)#(\d+) using (\w+), took (\d+) .s"
                  r".*bodysize (\d+)")
by_ptr = collections.OrderedDict()
for text in open(log, encoding="utf8", errors="replace"):
    m = line.match(text)
    if m:
        by_ptr.setdefault(m.group(1), []).append(
            (int(m.group(2)), m.group(3), int(m.group(4)), int(m.group(5))))
if not by_ptr:
    sys.exit("no 'Compiled function' lines in the log: run with TRIALSCOPE_CHROME_LOGS=1 and "
             "TRIALSCOPE_CHROME_ARGS=--js-flags=--trace-wasm-compilation-times")


def which(entries):
    """The module in which every compiled function's index has the body size V8 printed."""
    for mod, (imports, bodies, _) in modules.items():
        if all(0 <= i - imports < len(bodies) and bodies[i - imports] == size
               for i, _, _, size in entries):
            return mod
    return None


for ptr, entries in by_ptr.items():
    mod = which(entries)
    tiers = collections.Counter()
    for _, tier, us, _ in entries:
        tiers[tier] += us
    print(f"module {ptr} ({mod or 'not this build'}): " + ", ".join(
        f"{t} {us / 1000:.0f} ms ({sum(1 for e in entries if e[1] == t)} functions)"
        for t, us in tiers.most_common()))
    names = modules[mod][2] if mod else {}
    # The warm-up's trace is not compressed, so the first compile of inflate (Liftoff compiles
    # a function at its first call) is the first gzip file of the batch.
    batch = next((k for k, e in enumerate(entries) if "miniz_oxide" in names.get(e[0], "")),
                 None)
    total, order, marked = 0, 0, False
    for k, (i, tier, us, size) in enumerate(entries):
        if tier != "TurboFan":
            continue
        order += 1
        total += us
        if batch is not None and k > batch and not marked:
            marked = True
            print(f"  ---- from here on: after the first inflate (a gzip file of the batch; "
                  f"{total / 1000 - us / 1000:.0f} ms before it) ----")
        if us >= min_ms * 1000:
            name = short(names.get(i, f"#{i}"))
            print(f"  {order:4} {total / 1000:7.0f} {us / 1000:6.0f} {size:7}  {name[:140]}")
EOF
