#!/usr/bin/env bash
# Per-trial overhead and the settle's evidence (results/overhead/, REPORT.md's "The settle"): the full
# matrix with the settle as a fixed 50 ms pause (BENCH_SETTLE=fixed, what the settle was before its rule)
# and with the settle rule, each serial and with --jobs 2, alternating, REPEATS times (scripts/jobs-timing.sh:
# wall times and load averages); then `bench-reference overhead` (the maintainers' tool, beside BENCH)
# reduces the runs to phases.csv, settle.csv and timings.csv in OUT (the settle rule replayed by the children's
# own detector), and `bench compare` of the serial fixed run against each rule run goes to OUT/compare-*.md.
#
# Usage: scripts/overhead.sh OUT [REPEATS]   (BENCH=path/to/bench, default .build/release/bench, and
#   bench-reference beside it (BENCH_REFERENCE);
#   SCRATCH, default /tmp/image-memory-bench-overhead, keeps the run folders).
# `bench-reference measure overhead` writes results/overhead/; never point OUT at results/ by hand.
set -euo pipefail
out=${1:?usage: overhead.sh OUT [REPEATS]}
repeats=${2:-2}
scratch=${SCRATCH:-/tmp/image-memory-bench-overhead}
export BENCH=${BENCH:-.build/release/bench}
matrix=(run --strategy all --render none --render full --render thumbnail --runs 5)
rm -rf "$scratch" && mkdir -p "$scratch" "$out"
for repeat in $(seq 1 "$repeats"); do
  BENCH_SETTLE=fixed FIRST_REPEAT=$repeat bash scripts/jobs-timing.sh "$scratch/fixed" matrix 1 "${matrix[@]}"
  FIRST_REPEAT=$repeat bash scripts/jobs-timing.sh "$scratch/rule" matrix 1 "${matrix[@]}"
done
"${BENCH_REFERENCE:-$(dirname "$BENCH")/bench-reference}" overhead "$scratch" "$out"
for jobs in 1 2; do
  "$BENCH" compare "$scratch/fixed/matrix-j1-1/trials.json" "$scratch/rule/matrix-j$jobs-1/trials.json" \
    --thresholds results/thresholds.json --format markdown > "$out/compare-fixed-rule-j$jobs.md" || true
done
