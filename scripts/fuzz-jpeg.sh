#!/usr/bin/env bash
# Fuzzes the stream JPEG decoder (Sources/CStreamJPEG) with libFuzzer: two targets built with the
# toolchain's clang (-fsanitize=fuzzer,address,undefined) straight from the decoder's C sources:
#   scripts/fuzz/stream_jpeg.c               every input decoded (coefficients, and a render); a crash,
#                                    an out-of-bounds access or undefined behaviour is a finding
#   scripts/fuzz/stream_jpeg_differential.c  on every input both it and libjpeg-turbo's jpeg_read_coefficients
#                                    accept, the coefficients must be equal; a difference is a finding
# Each runs FUZZ_RUNS inputs (default 1,000,000; `make fuzz-smoke` runs 10,000; FUZZ_TARGETS picks
# one), seeded with small files of every scan script the decoder supports, made by cjpeg and
# jpegtran (scripts/jpeg-scans/): baseline 4:2:0/4:2:2/4:4:0/4:4:4/gray/RGB, libjpeg's progressive
# script, mozjpeg's, refinement to bit 0, sequential a scan a component, restart markers every MCU
# and every row, and arithmetic-coded ones (refused). Everything goes to .build-fuzz/jpeg; findings
# to .build-fuzz/jpeg/findings/<UTC time>/.
# Exit status: 0 nothing found; 1 a finding (its file and how to replay it are printed).
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZ_RUNS=${FUZZ_RUNS:-1000000}
FUZZ_TARGETS=${FUZZ_TARGETS:-stream_jpeg stream_jpeg_differential}
CLANG=${CLANG:-$(dirname "$(command -v swift)")/clang}
scratch=.build-fuzz/jpeg
seeds=$scratch/seeds
findings=$scratch/findings/$(date -u +%Y-%m-%dT%H-%M-%SZ)
mkdir -p "$seeds" "$findings"

echo "fuzz-jpeg: building the targets with $CLANG"
for target in $FUZZ_TARGETS; do
  libjpeg=""
  [ "$target" = stream_jpeg_differential ] && libjpeg=-ljpeg
  "$CLANG" -g -O2 -Wall -Wextra -Werror -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I Sources/CStreamJPEG/include -I Sources/CResample/include scripts/fuzz/$target.c \
    Sources/CStreamJPEG/*.c Sources/CResample/*.c $libjpeg -lm -o "$scratch/$target" 2>&1 \
    | { grep -v "Cannot export local symbol" || true; }
done

echo "fuzz-jpeg: seeding $seeds"
python3 - "$scratch/source.ppm" <<'PY'
import random, sys
random.seed(1)
width, height = 61, 43  # odd: partial MCUs in both directions
pixels = bytearray()
for y in range(height):
    for x in range(width):
        pixels += bytes([(x * 4 + random.randint(0, 20)) % 256, y * 6 % 256, 255 if (x // 8 + y // 8) % 2 else 30])
open(sys.argv[1], "wb").write(b"P6\n%d %d\n255\n" % (width, height) + pixels)
PY
source=$scratch/source.ppm scans=scripts/jpeg-scans
for sampling in 2x2 2x1 1x2 1x1; do
  cjpeg -quality 85 -sample "$sampling" "$source" > "$seeds/baseline-$sampling.jpg"
  jpegtran -progressive "$seeds/baseline-$sampling.jpg" > "$seeds/progressive-$sampling.jpg"
  for script in mozjpeg refinement-to-bit-0 sequential-per-component; do
    jpegtran -scans "$scans/$script.txt" "$seeds/baseline-$sampling.jpg" > "$seeds/$script-$sampling.jpg"
  done
  jpegtran -progressive -restart 1B "$seeds/baseline-$sampling.jpg" > "$seeds/progressive-restart-1B-$sampling.jpg"
  jpegtran -scans "$scans/mozjpeg.txt" -restart 1 "$seeds/baseline-$sampling.jpg" \
    > "$seeds/mozjpeg-restart-1-row-$sampling.jpg"
done
cjpeg -quality 85 -grayscale "$source" > "$seeds/baseline-gray.jpg"
jpegtran -progressive "$seeds/baseline-gray.jpg" > "$seeds/progressive-gray.jpg"
jpegtran -restart 1B "$seeds/baseline-gray.jpg" > "$seeds/baseline-restart-1B-gray.jpg"
cjpeg -quality 85 -rgb "$source" > "$seeds/baseline-rgb.jpg"
jpegtran -progressive "$seeds/baseline-rgb.jpg" > "$seeds/progressive-rgb.jpg"
cjpeg -quality 85 -arithmetic "$source" > "$seeds/arithmetic.jpg"
cjpeg -quality 85 -arithmetic -progressive "$source" > "$seeds/arithmetic-progressive.jpg"

status=0
for target in $FUZZ_TARGETS; do
  corpus=$scratch/corpus-$target
  mkdir -p "$corpus" "$findings/$target"
  echo "fuzz-jpeg: $target, $FUZZ_RUNS inputs"
  started=$(date +%s) rc=0
  # libFuzzer's progress goes to the log (tail -f it); its summary is printed below.
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 "$scratch/$target" "$corpus" "$seeds" \
    -dict=scripts/fuzz.dict -runs="$FUZZ_RUNS" -timeout=60 -max_len=8192 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$findings/$target/" > "$findings/$target.log" 2>&1 || rc=$?
  grep -E '^(#[0-9]+ +(INITED|DONE)|stat::number_of_executed_units|SUMMARY|stream decoder|==[0-9]+==ERROR)' \
    "$findings/$target.log" || true
  inputs=$(find "$corpus" -type f | wc -l)
  echo "fuzz-jpeg: $target ran $(( $(date +%s) - started )) s, exit $rc, corpus $inputs inputs"
  [ "$rc" -ne 0 ] && status=1
done
found=$(find "$findings" -type f ! -name '*.log' | wc -l)
echo "fuzz-jpeg: $found finding(s) in $findings (logs: $findings/*.log)"
if [ "$status" -ne 0 ] || [ "$found" -ne 0 ]; then
  echo "fuzz-jpeg: replay one with: $scratch/<target> <file>"
  exit 1
fi
