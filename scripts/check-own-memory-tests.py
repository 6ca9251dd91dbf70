#!/usr/bin/env python3
"""Every test suite that reads the test process's own memory is in the Makefile's OWN_MEMORY_TESTS.

`make test` runs the suite in parallel, then OWN_MEMORY_TESTS alone: a suite that reads this
process's RSS or heap while other tests run beside it measures their memory too. A test file reads
its own process's memory when it builds one of the probe's readers in-process (HeapCounters,
ProcessMemory, ExactHeapPeak, MeasurementWindow), reads /proc/self/statm or mallinfo itself, or
calls a test target's `residentBytes()` helper;
each of its suites ("Target.Suite", as `swift test --filter` sees it) must match OWN_MEMORY_TESTS.
Exits 1 naming the suites that do not, and why each file counts.

Usage: check-own-memory-tests.py [--makefile Makefile] [--tests Tests]
"""
import argparse
import pathlib
import re
import sys

READERS = re.compile(
    r"\b(HeapCounters\(expecting|ProcessMemory\(\)|ExactHeapPeak\(\)|MeasurementWindow\(|mallinfo2?\(|/proc/self/statm)"
    r"|(?<![.\w])(residentBytes\(\))"  # the test targets' own helper over /proc/self/statm
)
SUITE = re.compile(r"@Suite\b[^\n]*?\b(?:struct|enum|final class|class)\s+(\w+)")
# Suites that read their own memory but only against a bound far above what tests beside them add.
EXEMPT = {
    "ImagingTests.DecodeBudgetTests": "asserts only that RSS stays under 2 GB after refusing a 14.4 GB decode",
}
# Test targets that hold helpers, not suites.
HELPERS = {"TestSupport", "CTestImages"}


def own_memory_pattern(makefile: pathlib.Path) -> re.Pattern:
    for line in makefile.read_text().splitlines():
        match = re.match(r"OWN_MEMORY_TESTS\s*=\s*(.+)$", line)
        if match:
            return re.compile(match.group(1).strip())
    sys.exit(f"check-own-memory-tests: {makefile} defines no OWN_MEMORY_TESTS")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--makefile", default="Makefile", type=pathlib.Path)
    parser.add_argument("--tests", default="Tests", type=pathlib.Path)
    args = parser.parse_args()
    pattern = own_memory_pattern(args.makefile)
    missing = []
    for path in sorted(args.tests.rglob("*.swift")):
        target = path.relative_to(args.tests).parts[0]
        if target in HELPERS:
            continue
        text = path.read_text()
        reader = READERS.search(text)
        if not reader:
            continue
        for name in SUITE.findall(text):
            suite = f"{target}.{name}"
            if suite not in EXEMPT and not pattern.search(suite):
                missing.append(f"{suite} ({path}: {reader.group(0)})")
    if missing:
        print("check-own-memory-tests: these suites read the test process's own memory but run in parallel;",
              "add them to the Makefile's OWN_MEMORY_TESTS:", file=sys.stderr)
        for entry in missing:
            print(f"  {entry}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
