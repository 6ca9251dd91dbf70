#!/usr/bin/env bash
# Fuzzes the image header inspectors and the result-file readers with libFuzzer (Sources/BenchFuzz)
# for FUZZ_SECONDS (default 120). Builds into .build-fuzz (its own scratch path, so the normal build
# is untouched), seeds the corpus with small valid files (images from `bench fixture`, a few rows of
# the committed CSVs and trials.json), and keeps what it finds in .build-fuzz/crashes.
# Exit status: 0 nothing found; 1 a crasher (its file and how to replay it are printed).
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
FUZZ_SECONDS=${FUZZ_SECONDS:-120}
scratch=.build-fuzz
# Each run's crashers in a folder of their own, so what this run found is counted alone.
seeds=$scratch/seeds corpus=$scratch/corpus crashes=$scratch/crashes/$(date -u +%Y-%m-%dT%H-%M-%SZ)
mkdir -p "$seeds" "$corpus" "$crashes"

echo "fuzz: building BenchFuzz with -sanitize=fuzzer,address into $scratch"
# (ld.gold warns about every ASan helper it cannot export: noise, filtered.)
$SWIFT build -c release --scratch-path "$scratch" --product BenchFuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING 2>&1 \
  | { grep -v 'Cannot export local symbol' || true; }
fuzzer="$($SWIFT build -c release --scratch-path "$scratch" --product BenchFuzz --show-bin-path)/BenchFuzz"

echo "fuzz: seeding $seeds"
for encoding in jpeg jpeg-progressive jpeg-444 png-rgb png-rgba-interlaced webp-lossy webp-lossless heic avif; do
  [ -s "$seeds/$encoding" ] && continue
  if [ -z "${bench:-}" ]; then  # built only when a seed is missing
    $SWIFT build --product bench >/dev/null
    bench="$($SWIFT build --show-bin-path)/bench"
  fi
  "$bench" fixture --encoding "$encoding" --width 24 --height 16 --out "$seeds/$encoding" >/dev/null
done
for csv in trials timeline sweep encodings; do head -c 3000 "results/$csv.csv" > "$seeds/$csv.csv"; done
python3 - "$seeds/trials.json" <<'PY'
import json, sys
exported = json.load(open("results/trials.json"))
json.dump({"trials": exported["trials"][:1]}, open(sys.argv[1], "w"))
PY

echo "fuzz: running for $FUZZ_SECONDS s"
status=0
# Swift's own backtracer is off: libFuzzer reports the crash and saves the input itself.
SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 "$fuzzer" "$corpus" "$seeds" -dict=scripts/fuzz.dict -max_len=4096 \
  -max_total_time="$FUZZ_SECONDS" -print_final_stats=1 \
  -artifact_prefix="$crashes/" || status=$?
found=$(find "$crashes" -type f | wc -l)
echo "fuzz: $(find "$corpus" -type f | wc -l) inputs in the corpus, $found crasher(s) in $crashes"
if [ "$status" -ne 0 ] || [ "$found" -ne 0 ]; then
  echo "fuzz: replay one with: $fuzzer <file>   (or a plain build's $($SWIFT build --show-bin-path)/BenchFuzz <file>)"
  exit 1
fi
