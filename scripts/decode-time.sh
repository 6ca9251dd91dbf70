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
# Then where the stream renderer's time goes, by stage: `perf record -e cpu-clock` (this machine has no
# hardware counters) of PROFILE_RENDERS (default 5) runs of `bench render --render stream` per file,
# classified by scripts/decode-stages.py into decode-stages.csv beside OUT (DecodeStages). perf is
# linux-perf (scripts/setup.sh); run as root, or with kernel.perf_event_paranoid at 1 or below.
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

stages="$(dirname "$out")/decode-stages.csv"
command -v perf >/dev/null || { echo "decode-time: perf is missing (bash scripts/setup.sh installs linux-perf)" >&2; exit 69; }
echo "encoding,stage,samples" >"$stages.partial"
for file in "${files[@]}"; do
  name=${file%%=*}
  perf record --quiet -e cpu-clock -F 4000 -o "$scratch/perf.data" -- bash -c \
    'for run in $(seq "$1"); do "$2" render "$3" --render stream --out "$4" >/dev/null; done' \
    profile "${PROFILE_RENDERS:-5}" "$BENCH" "${file#*=}" "$scratch/rendered.ppm"
  perf script -F ip,sym,dso -i "$scratch/perf.data" 2>/dev/null | python3 scripts/decode-stages.py "$name" >>"$stages.partial"
done
mv "$stages.partial" "$stages"
echo "decode-time: the stream renderer's stages in $stages" >&2
