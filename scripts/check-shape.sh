#!/usr/bin/env bash
# The package's shape, checked in CI (.ci/run) and by `make check-shape`:
#  1. every import of this package's modules is declared in Package.swift, and no library product
#     reaches the maintainers' targets (scripts/check-imports.py);
#  2. README.md's module graph and docs/ARCHITECTURE.md's drawing of it match Package.swift
#     (scripts/module-graph.py), every relative
#     link of README.md, CONTRIBUTING.md and docs/ resolves (scripts/check-links.sh), every test
#     suite that reads its own process's memory runs alone (scripts/check-own-memory-tests.py), and
#     GitHub's workflows match GitHub's schema (check-jsonschema);
#  3. `public` is the library's API: at most PUBLIC_LIMIT lines outside Sources/ImageMemoryBench
#     (inter-module API is `package`);
#  4. ImageMemoryBench's DocC catalog builds with warnings as errors (swift-docc-plugin);
#  5. the API of the products the example uses (ImageMemoryBench, Imaging) has no breaking change
#     against API_BASELINE (default: the previous commit), by `swift package diagnose-api-breaking-changes`;
#     scripts/api-breakage-allowlist.txt lists the reported changes that break no user's source (a
#     type renamed with a deprecated alias changes the mangled name, not what compiles).
#  6. every Swift file of the package, Benchmarks/ and the example is as `swift format` writes it
#     (.swift-format, swift-nio's rules at 120 columns; `make format` rewrites them so);
#  7. Swift 6's data-race checks are switched off (`@unchecked Sendable`, `nonisolated(unsafe)`) in at
#     most 4 places of Sources, each with its reason beside it (scripts/check-unchecked.py).
#  8. every C file of the package makes clang's -Wall and -Wextra errors (scripts/check-c-warnings.sh),
#     and every C file of the repository is as clang-format writes it (.clang-format; make format).
# Exits 1 naming the first check that failed.
set -uo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
PUBLIC_LIMIT=${PUBLIC_LIMIT:-150}
API_BASELINE=${API_BASELINE:-HEAD~1}
docs_out=${DOCS_OUT:-.build/docs}

fail() { echo "check-shape: $*" >&2; exit 1; }

dump=$(mktemp)
trap 'rm -f "$dump"' EXIT
$SWIFT package dump-package > "$dump" || fail "swift package dump-package failed"
python3 scripts/check-imports.py "$dump" || fail "undeclared imports or a product reaching the maintainers' targets"
python3 scripts/module-graph.py --dump "$dump" --check README.md || fail "README.md's module graph is stale"
python3 scripts/module-graph.py --dump "$dump" --drawing --check docs/ARCHITECTURE.md \
  || fail "docs/ARCHITECTURE.md's module drawing is stale"
bash scripts/check-links.sh || fail "a link of README.md, CONTRIBUTING.md or docs/ is broken"
python3 scripts/check-own-memory-tests.py || fail "a test suite that reads its own memory would run in parallel"
python3 scripts/check-unchecked.py || fail "too many unchecked Sendable escapes, or one without its reason"
bash scripts/check-c-warnings.sh || fail "a C file does not make its warnings errors"
command -v clang-format >/dev/null || fail "clang-format is missing (bash scripts/setup.sh installs it)"
clang-format --dry-run --Werror $(git ls-files '*.c' '*.h') || fail "a C file is not as clang-format writes it; run make format"

# GitHub's workflows against GitHub's schema, offline (no runner is reachable from the project's
# machine): check-jsonschema from PyPI, in a virtual environment of its own under .build/.
venv=.build/check-shape-venv
[ -x "$venv/bin/check-jsonschema" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install --quiet check-jsonschema; } \
  || fail "cannot install check-jsonschema (python3 -m venv, then pip from PyPI)"
"$venv/bin/check-jsonschema" --builtin-schema vendor.github-workflows .github/workflows/*.yml \
  || fail "a workflow in .github/workflows does not match GitHub's schema"

# The formatter's own lint, every finding an error (--strict); the paths are `make format`'s.
$SWIFT format lint --strict --parallel --recursive $(cat scripts/swift-format-paths) \
  || fail "a Swift file is not as swift format writes it; run make format"

public_lines=$(grep -rw --include='*.swift' public Sources | grep -vc '^Sources/ImageMemoryBench/' || true)
echo "check-shape: $public_lines lines say public outside Sources/ImageMemoryBench (at most $PUBLIC_LIMIT)"
[ "$public_lines" -le "$PUBLIC_LIMIT" ] || fail "$public_lines public lines outside Sources/ImageMemoryBench; inter-module API is package"

$SWIFT package --allow-writing-to-directory "$docs_out" generate-documentation --target ImageMemoryBench \
  --output-path "$docs_out" --warnings-as-errors || fail "the DocC catalog of ImageMemoryBench has warnings"

git rev-parse --verify --quiet "$API_BASELINE^{commit}" >/dev/null \
  || fail "no commit $API_BASELINE to compare the API with (a shallow clone? fetch the history or set API_BASELINE)"
$SWIFT package diagnose-api-breaking-changes "$API_BASELINE" --products ImageMemoryBench Imaging \
  --breakage-allowlist-path scripts/api-breakage-allowlist.txt \
  || fail "the API of ImageMemoryBench or Imaging (the products the example uses) breaks against $API_BASELINE"
echo "check-shape: imports, module graph, links, public API, DocC and API compatibility hold"
