#!/usr/bin/env bash
# The one CI definition: `.ci/run` (this machine) and .github/workflows/ci.yml (GitHub) both run it.
# In order: the README's `make test` and `make test-slow` (the slow tier); the example package (a user's loader built against this one,
# its rows checked); scripts/validate.py's unit check; the decoders' C code under ASan, UBSan and
# TSan (make sanitize); the package's shape (make check-shape:
# imports, module graph, links, public API, DocC, API breakage, the workflows against GitHub's
# schema); the release build; the memory gate; the README's `make bench` and `make plots`; and a
# check that nothing here rewrote a tracked file.
#
# The one difference between the two places is the gate's baseline:
#   GATE_BASE_COMMIT unset  the committed results/baseline.json (measured on this project's machine);
#   GATE_BASE_COMMIT=SHA    that commit built and measured on the same runner first (GitHub's runners
#                           are not this machine, so only a baseline measured there compares).
#
# Exits 1 when tests fail or a tracked file changed; otherwise with the gate's own status (0 pass,
# 2 regression, 3 failed runs or missing cells, 5 no baseline). Its last line is always
# "tests: N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
test_log=$(mktemp)
trap 'rm -f "$test_log"' EXIT
passed=0

# Swift Testing's summaries ("Test run with N tests ... passed|failed"; make test has two, summed) and one "✘ Test ... failed
# after" line per failed test (a parameterised test counts once). The suite has no XCTest cases.
count_tests() { grep -aoE 'Test run with [0-9]+ tests?' "$test_log" | grep -oE '[0-9]+' | awk '{ n += $1 } END { if (NR) print n }'; }
count_failures() { grep -aE '^✘ Test .* failed after' "$test_log" | grep -vcE '^✘ Test run with' || true; }
# step NAME COMMAND...: runs it, says how long it took; returns its status.
step() {
  local name=$1 begun status; shift
  begun=$(date +%s)
  "$@"
  status=$?
  echo "ci: $name took $(( $(date +%s) - begun )) s (exit $status)"
  return "$status"
}
fail() { echo "ci: $1" >&2; echo "tests: $passed passed, ${2:-1} failed"; exit 1; }

step "make test" bash -c 'make test 2>&1 | tee "$0"; exit "${PIPESTATUS[0]}"' "$test_log"
test_status=$?
total=$(count_tests); failed=$(count_failures)
[ -n "$total" ] || fail "no test summary in the output of make test"
passed=$(( total - failed ))
if [ "$test_status" -ne 0 ] || [ "$failed" -ne 0 ]; then fail "make test failed" "$(( failed > 0 ? failed : 1 ))"; fi

step "make test-slow" bash -c 'make test-slow 2>&1 | tee "$0"; exit "${PIPESTATUS[0]}"' "$test_log"
slow_status=$?
slow_total=$(count_tests); slow_failed=$(count_failures)
if [ "$slow_status" -ne 0 ] || [ "$slow_failed" -ne 0 ] || [ -z "$slow_total" ]; then
  fail "make test-slow failed" "$(( slow_failed > 0 ? slow_failed : 1 ))"
fi
passed=$(( passed + slow_total - slow_failed ))

step "make example-test" bash -c 'make example-test 2>&1 | tee "$0"; exit "${PIPESTATUS[0]}"' "$test_log"
example_status=$?
example_total=$(count_tests); example_failed=$(count_failures)
if [ "$example_status" -ne 0 ] || [ "$example_failed" -ne 0 ] || [ -z "$example_total" ] || [ "$example_total" -eq 0 ]; then
  fail "the example package failed to build or its rows are wrong" "$(( example_failed > 0 ? example_failed : 1 ))"
fi
passed=$(( passed + example_total ))

step "scripts/validate_test.py" python3 scripts/validate_test.py || fail "scripts/validate_test.py failed"
passed=$(( passed + 1 ))

# The C decoders under the sanitizers: the Swift tests cannot run under ASan (CHeapPeak replaces malloc).
step "make sanitize" make sanitize || fail "make sanitize failed: a sanitizer finding (its report is above)"
passed=$(( passed + 1 ))

step "make check-shape" make check-shape || fail "make check-shape failed"
step "release build" make build || fail "release build failed" 0

if [ -n "${GATE_BASE_COMMIT:-}" ]; then
  # The head's gate.sh with the base's binary: the same matrix on both sides.
  base_tree=${GATE_BASE_TREE:-.build/gate-base-tree}
  export GATE_BASELINE=${GATE_BASELINE:-.build/gate-base/baseline.json}
  rm -rf "$base_tree"; git worktree prune
  step "baseline of $GATE_BASE_COMMIT" bash -c 'git worktree add --detach "$0" "$1" \
    && swift build -c release --package-path "$0" \
    && GATE_BENCH="$0/.build/release/bench" GATE_OUT=.build/gate-base bash scripts/gate.sh baseline' \
    "$base_tree" "$GATE_BASE_COMMIT" || fail "the base commit's baseline could not be measured" 0
fi
gate_status=0
step "gate (run and compare with ${GATE_BASELINE:-results/baseline.json})" bash scripts/gate.sh || gate_status=$?

# The README's commands as a user types them: a run and its charts, into runs/ (gitignored).
if ! step "make bench and make plots" bash -c 'make bench && make plots'; then
  echo "ci: make bench or make plots failed" >&2
  [ "$gate_status" -ne 0 ] || gate_status=1
fi

# A user's run never rewrites a committed file: neither may anything CI ran.
[ -z "${GATE_BASE_COMMIT:-}" ] || git worktree remove --force "$base_tree" 2>/dev/null
changed=$(git status --porcelain)
if [ -n "$changed" ]; then
  echo "ci: these files changed or appeared outside .gitignore during the run:" >&2
  echo "$changed" >&2
  gate_status=1
fi
echo "ci: total $(( $(date +%s) - started )) s"
echo "tests: $passed passed, 0 failed"
exit "$gate_status"
