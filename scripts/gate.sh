#!/usr/bin/env bash
# The memory gate, in one place for make and CI (make would turn every failure into status 2).
#   scripts/gate.sh            quick run (the article's four cases, both allocators, GATE_RUNS runs)
#                              compared with the baseline; exits with bench compare's status:
#                              0 pass, 2 regression, 3 runs failed, cells missing or files not
#                              comparable, 5 no baseline
#   scripts/gate.sh baseline   measure the baseline (BASELINE_RUNS runs) with the same matrix
# Settings (environment):
#   GATE_BENCH     the bench binary (default .build/release/bench, the release build: make build)
#   GATE_BASELINE  the baseline file written or compared with (default results/baseline.json;
#                  CI measures the base commit into a temporary file instead, see .github/workflows/ci.yml)
#   GATE_OUT       where the quick run's exports go (default .build/gate)
set -uo pipefail
cd "$(dirname "$0")/.."

bench=${GATE_BENCH:-.build/release/bench}
baseline=${GATE_BASELINE:-results/baseline.json}
matrix=(--strategy data --strategy download --render none --render full)
out=${GATE_OUT:-.build/gate}

if [ ! -x "$bench" ]; then
  echo "gate: $bench is not built; run 'make build' (swift build -c release) or set GATE_BENCH" >&2
  exit 66
fi

# Each call re-measures into the same folders, which bench refuses without --replace (an earlier
# run's rows). A base commit's binary (CI measures the base with this script) may predate the flag.
replace=()
if "$bench" run --help 2>/dev/null | grep -q -- '--replace'; then replace=(--replace); fi

if [ "${1:-}" = "baseline" ]; then
  exec "$bench" baseline update "${matrix[@]}" --runs "${BASELINE_RUNS:-10}" --out "$out/baseline-run" "${replace[@]}" \
    --baseline "$baseline"
fi

"$bench" run "${matrix[@]}" --runs "${GATE_RUNS:-5}" --out "$out" "${replace[@]}"
status=$?
# 3 means some trials failed: they are rows, and compare names them in its table.
if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then exit "$status"; fi
exec "$bench" compare "$baseline" "$out/trials.json" --thresholds results/thresholds.json
