#!/usr/bin/env bash
# `make test`: the suite on the release build, in two halves: in parallel, then alone the tests that
# read the test process's own memory (OWN_MEMORY_TESTS, from the Makefile); the slow tier (SLOW_TESTS)
# is left to `make test-slow`. The tests get a TMPDIR of
# their own, which must be empty afterwards (the build's own files aside: SwiftPM's and the compiler's): a
# test that leaves a file behind fails the suite, naming it. (The test process makes a folder of its own
# in it, Tests/CTestImages/private_tmpdir.c, and removes it at exit when nothing but FoundationNetworking's
# orphaned download bodies is in it.)
#   FILTER=REGEX   only the tests whose names match, in both halves (as `swift test --filter`)
#   TIER=slow      the slow tier instead (`make test-slow`; FILTER does not apply): the tests SLOW_TESTS names
#                  (the image server's load tests in real children, the gate's known answer, ...), in parallel;
#                  `make test` skips them
# Exit status: swift test's (the first half's if it failed), or 1 when the tests left files behind.
set -uo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
: "${OWN_MEMORY_TESTS:?OWN_MEMORY_TESTS (the Makefile sets it) names the tests that run alone}"
: "${SLOW_TESTS:?SLOW_TESTS (the Makefile sets it) names the slow tier, which make test skips}"
FILTER=${FILTER:-}
TIER=${TIER:-}
build=(-c release --disable-testable-imports)

scratch=$(mktemp -d "${TMPDIR:-/tmp}/bench-test.XXXXXX") || exit 1
# Searchable by others, as /tmp is: a test runs a copy of bench as another user from it.
chmod 755 "$scratch"
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

filter=()
[ -n "$FILTER" ] && filter=(--filter "$FILTER")
status=0
if [ "$TIER" = slow ]; then
  # The slow tier alone (it reads no test process's own memory: no second half).
  TMPDIR=$scratch "$SWIFT" test "${build[@]}" --parallel --filter "$SLOW_TESTS" || status=$?
else
  TMPDIR=$scratch "$SWIFT" test "${build[@]}" --parallel --skip "$OWN_MEMORY_TESTS|$SLOW_TESTS" "${filter[@]}" || status=$?
fi
# The second half: the own-memory tests alone (with FILTER, those of them it also matches, by their
# exact names: swift test's filters match any of theirs, never all).
alone=(--filter "$OWN_MEMORY_TESTS")
if [ "$TIER" = slow ]; then
  alone=()
elif [ -n "$FILTER" ]; then
  # The suite's own list (the test binary the first half built: `swift test list` would rebuild).
  names=$(TMPDIR=$scratch .build/release/ImageMemoryBenchPackageTests.xctest --testing-library swift-testing --list-tests \
    | grep -E "$OWN_MEMORY_TESTS" | grep -E "$FILTER" \
    | sed 's/[][\.*^$()+?{}|]/\\&/g' | paste -sd '|')
  alone=()
  [ -n "$names" ] && alone=(--filter "$names")
fi
second=0
if [ ${#alone[@]} -gt 0 ]; then
  TMPDIR=$scratch "$SWIFT" test "${build[@]}" --no-parallel --skip-build "${alone[@]}" || second=$?
fi
[ "$status" -ne 0 ] || status=$second

# What is left: every file, link and empty folder, less the build's own (SwiftPM's TemporaryDirectory.*
# folders and lock files, named for the paths they lock; the compiler's expanded macros).
left=$(find "$scratch" -mindepth 1 \( -path "$scratch/TemporaryDirectory.*" -prune \) \
  -o \( -path "$scratch/swift-generated-sources" -prune \) -o \( -path "$scratch/_*.lock" \) \
  -o \( \( -type f -o -type l -o -empty \) -printf '%P (%s bytes)\n' \) | sort)
if [ -n "$left" ]; then
  echo "make test: the tests left $(wc -l <<<"$left") file(s) in their TMPDIR; each test removes what it makes:" >&2
  sed 's/^/  /' <<<"$left" >&2
  [ "$status" -ne 0 ] || status=1
fi
exit "$status"
