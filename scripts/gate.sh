#!/usr/bin/env bash
# The memory gate, in one place for make and CI (make would turn every failure into status 2).
#   scripts/gate.sh            quick run (the article's four cases, both allocators, GATE_RUNS runs)
#                              compared with results/baseline.json; exits with bench compare's status:
#                              0 pass, 2 regression, 3 runs failed or cells missing, 5 no baseline
#   scripts/gate.sh baseline   re-measure results/baseline.json (BASELINE_RUNS runs) with the same matrix
# Needs the release build (make build).
set -uo pipefail
cd "$(dirname "$0")/.."

bench=.build/release/bench
matrix=(--strategy data --strategy download --render none --render full)
out=${GATE_OUT:-.build/gate}

if [ "${1:-}" = "baseline" ]; then
  exec "$bench" baseline update "${matrix[@]}" --runs "${BASELINE_RUNS:-10}" --out "$out/baseline-run" \
    --baseline results/baseline.json
fi

"$bench" run "${matrix[@]}" --runs "${GATE_RUNS:-5}" --out "$out"
status=$?
# 3 means some trials failed: they are rows, and compare names them in its table.
if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then exit "$status"; fi
exec "$bench" compare results/baseline.json "$out/trials.json" --thresholds results/thresholds.json
