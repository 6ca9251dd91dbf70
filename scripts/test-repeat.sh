#!/usr/bin/env bash
# `make test-repeat N=10 [FILTER=REGEX]`: runs `make test`'s suite (scripts/test-suite.sh, both halves)
# N times on one build, and reports every failure with its test and its run: a flaky test shows
# as failing in some runs and not others. Each run's output goes to .build/test-repeat/run-I.log.
# Its last line is "test-repeat: N passed, M failed" (runs). Exit status: 0 when every run passed, else 1.
set -uo pipefail
cd "$(dirname "$0")/.."
N=${N:-10}
case $N in '' | *[!0-9]* | 0)
  echo "test-repeat: N='$N' is not a number of runs; give a positive whole number (make test-repeat N=10)" >&2
  exit 64
  ;;
esac
logs=.build/test-repeat
mkdir -p "$logs"
rm -f "$logs"/run-*.log
passed=0 failed=0
for run in $(seq 1 "$N"); do
  log=$logs/run-$run.log
  started=$(date +%s)
  bash scripts/test-suite.sh >"$log" 2>&1
  status=$?
  took=$(($(date +%s) - started))
  # One "✘ Test NAME(...) failed after" line per failed test; a leftover file is its own failure.
  tests=$(grep -aE '^✘ Test .* failed after' "$log" | grep -v '^✘ Test run with' | sed -E 's/^✘ Test (.*) failed after.*/\1/' | sort -u)
  if [ "$status" -eq 0 ]; then
    passed=$((passed + 1))
    echo "test-repeat: run $run of $N passed ($took s)"
  else
    failed=$((failed + 1))
    echo "test-repeat: run $run of $N FAILED ($took s, exit $status; $log)"
    if [ -n "$tests" ]; then sed 's/^/  failed: /' <<<"$tests"; fi
    grep -a '^make test: the tests left' "$log" | sed 's/^/  /'
    [ -n "$tests" ] || grep -aq '^make test: the tests left' "$log" || tail -5 "$log" | sed 's/^/  /'
  fi
done
echo "test-repeat: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
