# Shared by run.sh and soak.sh (sourced, not run): tool setup, the build, the seed corpora and
# one libFuzzer run of a target. Everything it writes is under tests/fuzz/{target,corpus,
# artifacts} (git-ignored) or $FUZZ_WORK.

CARGO_FUZZ_VERSION=0.13.2
fuzz_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$fuzz_dir/../.." && pwd)"
corpus_src="${TRIALSCOPE_CORPUS:-$repo/../shared/corpus}"
if [ -d "$corpus_src" ]; then corpus_src="$(cd "$corpus_src" && pwd)"; fi
work="${FUZZ_WORK:-$fuzz_dir/corpus}"
export PATH="$HOME/.cargo/bin:$PATH"
# cargo-fuzz needs nightly flags (-Zsanitizer, -Cpasses=sancov-module); stable rustc accepts them
# with RUSTC_BOOTSTRAP=1.
export RUSTC_BOOTSTRAP=1

# Every target (or those named in $FUZZ_TARGETS, e.g. "chrome_json load"), with its -max_len: big enough to reach real structures (many packets, nested
# args, hundreds of records), small enough for thousands of executions per second.
TARGETS=(${FUZZ_TARGETS:-perfetto chrome_json load records telemetry pins})
declare -A MAX_LEN=(
  [perfetto]=$((256 << 10))
  [chrome_json]=$((128 << 10))
  [load]=$((256 << 10))
  [records]=$((64 << 10))
  [telemetry]=$((64 << 10))
  [pins]=$((16 << 10))
)
# Budgets per input, a breach is a finding like a panic. Memory: issue #10 allows 512 MB + 3×
# the decompressed size, and the targets cap decompression at 64 MiB (src/lib.rs). Time: the
# importers are linear at ≥ 30 MB/s, so an input of max_len takes ≤ 30 ms per import; 5 s is
# the linear bound with a margin for a loaded machine, and quadratic behaviour at 256 KiB
# (the issue's 43 s cases) is far beyond it.
RSS_LIMIT_MB=1536
MALLOC_LIMIT_MB=1024
TIMEOUT_S=5

fuzz_setup() {
  if ! cargo fuzz --version 2>/dev/null | grep -q "$CARGO_FUZZ_VERSION"; then
    cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked
  fi
  # libFuzzer itself is C++ (built by libfuzzer-sys).
  if ! command -v c++ >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq g++ >/dev/null
  fi
}

# Release build with debug assertions and overflow checks (an overflow is a panic, i.e. a
# finding), no sanitizer: the code under test is safe Rust, and ASan would halve the exec rate
# and double the memory for nothing it could find there.
fuzz_build() {
  (cd "$fuzz_dir" && cargo fuzz build --fuzz-dir "$fuzz_dir" --release --debug-assertions \
    --sanitizer none)
}

fuzz_bin() {
  echo "$fuzz_dir/target/$(rustc -vV | sed -n 's/^host: //p')/release/$1"
}

# copy_seed FILE TARGET [NAME-BYTE]: FILE (gunzipped when .gz, except for `load`, which reads
# gzip itself) cut to the target's max_len into the target's seed dir. For `load`, NAME-BYTE
# is prepended: the target's first byte picks the file name.
copy_seed() {
  local f="$1" t="$2" pick="${3:-}" dir="$work/seeds/$2" max="${MAX_LEN[$2]}"
  local out
  out="$dir/$(echo "$f" | sed "s|^$corpus_src/||; s|^$fuzz_dir/||; s|/|_|g")"
  mkdir -p "$dir"
  {
    if [ -n "$pick" ]; then printf "\\x$pick"; fi
    if [ "$t" != load ] && [[ "$f" == *.gz ]]; then gzip -dc "$f" 2>/dev/null || true; else cat "$f"; fi
  } | head -c "$max" >"$out" || true # head closes the pipe early on big files
}

# The seed corpora, rebuilt from ../shared/corpus (real traces, the quirk files) and the small
# hand-written seeds in tests/fuzz/seeds/.
fuzz_seeds() {
  rm -rf "$work/seeds"
  local f
  for t in "${TARGETS[@]}"; do mkdir -p "$work/seeds/$t" "$work/$t"; done
  for t in chrome_json records telemetry pins; do
    for f in "$fuzz_dir/seeds/$t"/*; do [ -f "$f" ] && copy_seed "$f" "$t"; done
  done
  if [ ! -d "$corpus_src" ]; then
    echo "fuzz: no corpus at $corpus_src: hand-written seeds only" >&2
  else
    # Perfetto protobuf: every public trace and the smallest real Chromium captures.
    for f in $(find "$corpus_src" -type f \( -name '*.pftrace' -o -name '*.perfetto-trace' \
      -o -name 'systing_trace.pb' -o -name 'scaling_n1000_r0.pb.gz' \
      -o -name 'startup_trace_n4000.pb.gz' \) | sort); do
      copy_seed "$f" perfetto
    done
    # Chrome JSON: the quirk files, every public JSON trace, real Kineto/JAX (gunzipped, cut).
    for f in $(find "$corpus_src/quirks" "$corpus_src/public" -type f \
      \( -name '*.json' -o -name '*.json.gz' \) ! -name 'expected.json' ! -name 'manifest.json' \
      ! -name 'provenance.json' | sort) "$corpus_src/torch_multirank/rank0.trace.json.gz"; do
      copy_seed "$f" chrome_json
    done
    # Compile records (JAX runs, the scaling run log), cut to 64 KiB.
    for f in "$corpus_src"/jax_compile/*.jsonl "$corpus_src/chromium_scaling/runs.jsonl"; do
      [ -f "$f" ] && copy_seed "$f" records
    done
    # load: a few files of every kind, gzip kept, each with a name byte (see fuzz_targets/load.rs:
    # 0 trace.json, 1 pins.json, 2 trace.pftrace, 3 records.jsonl, 4 telemetry.jsonl).
    for f in $(find "$corpus_src/quirks" -name 'B0*.json' | sort) \
      "$corpus_src/public/catapult/simple_trace_gz.gz" \
      "$corpus_src/public/hta/rank-34.cpu_only.pt.trace.json.gz" \
      "$corpus_src/public/perfetto-difftests/json/json_all_slice_types.json"; do
      [ -f "$f" ] && copy_seed "$f" load 00
    done
    for f in $(find "$corpus_src/public/perfetto-difftests/proto" -name '*.pftrace' | sort | head -8) \
      "$corpus_src/public/winscope/input-events.perfetto-trace"; do
      [ -f "$f" ] && copy_seed "$f" load 02
    done
    for f in "$corpus_src/jax_compile/baseline.jsonl"; do [ -f "$f" ] && copy_seed "$f" load 03; done
  fi
  for f in "$fuzz_dir"/seeds/pins/*; do copy_seed "$f" load 01; done
  for f in "$fuzz_dir"/seeds/records/*; do copy_seed "$f" load 03; done
  for f in "$fuzz_dir"/seeds/telemetry/*; do copy_seed "$f" load 04; done
  for f in "$fuzz_dir"/seeds/chrome_json/*; do copy_seed "$f" load 00; done
}

# fuzz_one TARGET SECONDS LOG: runs TARGET for SECONDS on its corpus (grown in $work/TARGET,
# seeded from $work/seeds/TARGET); artifacts (crash-, timeout-, oom-, slow-unit-) go to
# tests/fuzz/artifacts/TARGET/. Returns libFuzzer's exit status.
fuzz_one() {
  local t="$1" secs="$2" log="$3"
  mkdir -p "$fuzz_dir/artifacts/$t"
  "$(fuzz_bin "$t")" "$work/$t" "$work/seeds/$t" \
    -max_total_time="$secs" -max_len="${MAX_LEN[$t]}" -timeout="$TIMEOUT_S" \
    -rss_limit_mb="$RSS_LIMIT_MB" -malloc_limit_mb="$MALLOC_LIMIT_MB" \
    -artifact_prefix="$fuzz_dir/artifacts/$t/" -print_final_stats=1 -close_fd_mask=1 \
    -seed="${FUZZ_SEED:-0}" \
    >"$log" 2>&1
}

# One line per run: target, executions, exec/s, coverage (edges) and features at the end.
fuzz_summary() {
  local t="$1" log="$2"
  local execs rate cov ft corp
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1 || true)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1 || true)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2 || true)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2 || true)
  corp=$(grep -o 'corp: [0-9]*/[0-9a-zA-Z]*' "$log" | tail -1 | cut -d' ' -f2 || true)
  printf '%-12s execs %-9s exec/s %-7s cov %-6s ft %-7s corpus %s\n' \
    "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}"
}

# fuzz_no_findings TARGET LOG SINCE: prints every reproducer of TARGET written after the file
# SINCE was touched, with the panic or limit message from LOG; true when there was none.
fuzz_no_findings() {
  local t="$1" log="$2" since="$3" found=0 f
  for f in $(find "$fuzz_dir/artifacts/$t" -type f -newer "$since" \
    \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | sort); do
    found=1
    echo "FINDING $t: $f"
    echo "  reproduce: $(fuzz_bin "$t") $f"
  done
  if [ "$found" = 1 ]; then
    grep -m1 -B2 -A12 "panicked at\|ERROR: libFuzzer\|==ERROR" "$log" | sed 's/^/  | /' || true
    return 1
  fi
}
