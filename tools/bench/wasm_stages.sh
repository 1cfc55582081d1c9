#!/usr/bin/env bash
# Builds the wasm32 stage timer (tools/bench/wasm_stages/lib.rs over tools/bench/stages.rs) for
# Node into target/wasm-stages: a throw-away crate under target/wasm-stages-crate whose manifest
# is written here, depending on this checkout's library, with the root Cargo.toml's
# `[profile.*]` sections copied in (so it is built exactly as Trunk builds the worker) and the
# root Cargo.lock. Names are kept (no wasm-opt, wasm-bindgen --keep-debug), so a
# `node --cpu-prof` profile shows Rust function names. PROFILE=wasm-release by default (the
# worker's profile); WASM_OPT=1 also runs wasm-opt -O as Trunk does. Then:
#   node tools/bench/wasm_stages.js --runs 3 FILE…
# Not part of the app build.
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$here"
profile="${PROFILE:-wasm-release}"
out="${OUT:-target/wasm-stages}"
crate="target/wasm-stages-crate"
mkdir -p "$crate"
{
  cat <<TOML
[package]
name = "wasm_stages"
version = "0.0.0"
edition = "2021"
publish = false

[lib]
path = "$here/tools/bench/wasm_stages/lib.rs"
crate-type = ["cdylib"]

[dependencies]
trialscope = { path = "$here" }
# No features of their own: the library's (the root manifest's) are the ones built.
sha2 = { version = "0.10", default-features = false }
flate2 = { version = "1", default-features = false }
wasm-bindgen = "=0.2.130"

[workspace]

TOML
  # Every [profile…] section of the root manifest, to its end or the next non-profile section.
  awk '/^\[/{keep = ($0 ~ /^\[profile/)} keep' Cargo.toml
} > "$crate/Cargo.toml.new"
cmp -s "$crate/Cargo.toml.new" "$crate/Cargo.toml" || mv "$crate/Cargo.toml.new" "$crate/Cargo.toml"
rm -f "$crate/Cargo.toml.new"
cp Cargo.lock "$crate/Cargo.lock"
CARGO_TARGET_DIR="$here/target" cargo build --offline --manifest-path "$crate/Cargo.toml" \
  --target wasm32-unknown-unknown --profile "$profile"
wasm="target/wasm32-unknown-unknown/$profile/wasm_stages.wasm"
"$HOME/.cargo/bin/wasm-bindgen" --target nodejs --keep-debug --out-dir "$out" "$wasm"
if [ -n "${WASM_OPT:-}" ]; then
  "$here/.tools/node_modules/.bin/wasm-opt" -O --debuginfo --enable-bulk-memory --enable-nontrapping-float-to-int \
    --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
    "$out/wasm_stages_bg.wasm" -o "$out/wasm_stages_bg.wasm"
fi
ls -l "$out"
