#!/usr/bin/env bash
# The stream renderer's time against the thumbnail renderer's (issue 46's targets: baseline JPEG 1.1x,
# progressive JPEG 1.0x, PNG interlaced 1.3x), on the 6000x4000 fixtures `bench fixture` makes: JPEG
# baseline 4:2:0 and 4:4:4, progressive 4:2:0 and 4:4:4, the baseline 4:2:0 file with a restart
# marker every MCU row (jpegtran -restart 1) and PNG RGB interlaced. `bench-reference _decode-time`
# decodes each file to 1024 pixels on the long side in PAIRS pairs (default 41) after WARM_UP (2),
# stream and thumbnail back to back in one process, their order alternating, each timed by the CPU
# time of the decoding thread; writes OUT (default results/decode-time.csv: encoding,pair,stream_cpu_s,
# thumbnail_cpu_s), which REPORT.md's "What the encoding costs" reads (DecodeTime: the median of the
# pairs' ratios and its 95% interval). A few minutes.
# BENCH (default .build/release/bench) makes the fixtures; BENCH_REFERENCE (default bench-reference
# beside it) times them.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/decode-time.csv}
BENCH=${BENCH:-.build/release/bench}
BENCH_REFERENCE=${BENCH_REFERENCE:-$(dirname "$BENCH")/bench-reference}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
files=()
for encoding in jpeg jpeg-444 jpeg-progressive jpeg-progressive-444 png-rgb-interlaced; do
  "$BENCH" fixture --encoding "$encoding" --width 6000 --height 4000 --out "$scratch/$encoding" >/dev/null
  files+=("$encoding=$scratch/$encoding")
done
jpegtran -restart 1 "$scratch/jpeg" >"$scratch/jpeg-restart"
files+=("jpeg-restart=$scratch/jpeg-restart")
"$BENCH_REFERENCE" _decode-time --pairs "${PAIRS:-41}" --warm-up "${WARM_UP:-2}" --max-pixel 1024 --out "$out" \
  "${files[@]}"
echo "decode-time: $(($(wc -l <"$out") - 1)) pairs in $out" >&2
