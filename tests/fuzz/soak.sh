#!/usr/bin/env bash
# Long fuzzing: HOURS (default 1, fractions allowed) shared by all targets, in rounds of 10
# minutes per target, so every target gets time even when the soak is stopped early. The
# corpus grows in tests/fuzz/corpus/ (or $FUZZ_WORK) across rounds and across soaks; findings
# are kept in tests/fuzz/artifacts/TARGET/ and listed at the end. Never stops at a finding.
# Usage: bash tests/fuzz/soak.sh [HOURS]
set -euo pipefail
hours="${1:-1}"
source "$(dirname "$0")/common.sh"
fuzz_setup
fuzz_build
fuzz_seeds
mkdir -p "$work/logs"
since="$work/logs/.soak_started"
touch "$since"
end=$(( $(date +%s) + $(awk -v h="$hours" 'BEGIN { printf "%d", h * 3600 }') ))
round=0
while [ "$(date +%s)" -lt "$end" ]; do
  round=$((round + 1))
  for t in "${TARGETS[@]}"; do
    left=$(( end - $(date +%s) ))
    [ "$left" -gt 0 ] || break
    slice=$(( left < 600 ? left : 600 ))
    log="$work/logs/soak_${t}_$round.log"
    fuzz_one "$t" "$slice" "$log" || echo "fuzz: $t stopped (exit $?) in round $round; see $log"
    fuzz_summary "$t" "$log"
  done
done
status=0
for t in "${TARGETS[@]}"; do
  cat "$work"/logs/soak_"$t"_*.log >"$work/logs/soak_$t.all" 2>/dev/null || true
  fuzz_no_findings "$t" "$work/logs/soak_$t.all" "$since" || status=1
done
exit "$status"
