#!/usr/bin/env bash
# Regenerates the README's screenshots (docs/screenshots/{scaling,triage,memory}.png) in
# headless Chromium: builds the site, then runs the ignored test `screenshots` of
# tests/it/screenshots.rs, which drives the demo and the corpus through each tab and saves
# the viewport (each PNG is checked to stay under 200 KB). Needs trunk, chromium and
# chromedriver as for the browser tests, and ../shared/corpus beside the checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
TRUNK_SKIP_VERSION_CHECK=true PATH="$PWD/.tools/node_modules/.bin:$HOME/.cargo/bin:$PATH" \
  trunk build --release --offline
cargo test --test it -- --ignored --exact screenshots::screenshots_of_every_tab
ls -l docs/screenshots/
