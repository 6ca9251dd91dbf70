#!/usr/bin/env bash
# Every C file the package builds turns clang's -Wall and -Wextra into errors with a pragma before its
# first #include (SwiftPM's unsafeFlags would stop users from depending on the library by version, and
# tools-version 6.2's treatAllWarnings would raise the toolchain users need). Prints each file that
# does not and exits 1; make check-shape runs it.
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
for file in $(git ls-files 'Sources/*.c' 'Tests/*.c'); do
  first_include=$(grep -n -m1 '^#include' "$file" | cut -d: -f1)
  for group in all extra; do
    line=$(grep -n -m1 "^#pragma clang diagnostic error \"-W$group\"$" "$file" | cut -d: -f1)
    if [ -z "$line" ] || { [ -n "$first_include" ] && [ "$line" -gt "$first_include" ]; }; then
      echo "check-c-warnings: $file lacks '#pragma clang diagnostic error \"-W$group\"' before its first #include" >&2
      status=1
    fi
  done
done
exit $status
