#!/usr/bin/env bash
# The stream renderer's C code under the sanitizers, and the measured child's allocator wrappers under
# jemalloc (make sanitize, CI). The Swift tests cannot run
# under ASan (CHeapPeak replaces malloc), so three C harnesses in scripts/sanitize/ are built straight
# from the sources of CStreamJPEG, CResample, CPNGCodec and CWebPCodec (linked with libpng, libwebp):
#   sanitize_decode   the toolchain's clang, -fsanitize=address,undefined -fno-sanitize-recover=undefined
#                     (leaks reported too): the resampler over a grid of sizes; every fixture through
#                     every entry point (JPEG coefficients, renders at every DCT scale M/8, from memory
#                     and from the file; PNG and WebP stream, full and box decodes at several sizes), then
#                     copies of each cut short and with bytes changed; then the fuzz corpus, if there is
#                     one (.build-fuzz/jpeg/corpus-*, from make fuzz-smoke or make fuzz; SANITIZE_CORPUS
#                     names other folders), a few operations an input
#   sanitize_threads  gcc -fsanitize=thread (the toolchain's clang TSan needs libdispatch): four threads
#                     decoding the same fixtures at once, every operation, their outputs compared
#   thread_exit       no sanitizer: the exact-heap wrappers (CHeapPeak) and the thread table (CThreadGuard)
#                     as the measured child has them, under jemalloc (LD_PRELOAD), threads coming and going
#                     past glibc's stack cache: it must not crash (scripts/sanitize/thread-exit.c says why)
# The fixtures are made here, small: JPEGs by cjpeg and jpegtran (4:2:0, 4:2:2, 4:4:0, 4:4:4, 4:1:1, gray,
# RGB; baseline, optimized, progressive, every scan script of scripts/jpeg-scans/, restart markers;
# arithmetic ones, which must be refused), PNGs by scripts/sanitize/fixtures.py (every colour type and
# depth, plain and Adam7) and lossy and lossless WebPs by cwebp. A fixture must decode.
# Everything goes to .build-sanitize/ (logs in .build-sanitize/logs/). A few minutes on 2 cores.
# Exit status: 0 nothing found; 1 a finding (the sanitizer's report is printed); 2 a missing tool.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
CLANG=${CLANG:-$(dirname "$(command -v swift 2>/dev/null || echo /usr/bin/swift)")/clang}
[ -x "$CLANG" ] || CLANG=$(command -v clang || true)
GCC=${GCC:-gcc}
scratch=.build-sanitize
fixtures=$scratch/fixtures logs=$scratch/logs
for tool in "$CLANG" "$GCC" cjpeg jpegtran cwebp python3; do
  if [ -z "$tool" ] || ! command -v "$tool" > /dev/null; then
    echo "sanitize: ${tool:-clang} is missing (bash scripts/setup.sh installs gcc, libjpeg-turbo-progs and webp)" >&2
    exit 2
  fi
done
rm -rf "$fixtures" "$logs"
mkdir -p "$fixtures" "$logs" "$scratch/tmp"

sources=(Sources/CStreamJPEG/*.c Sources/CResample/*.c Sources/CPNGCodec/*.c Sources/CWebPCodec/*.c
  scripts/sanitize/drive.c)
includes=(-I Sources/CStreamJPEG/include -I Sources/CResample/include -I Sources/CPNGCodec/include
  -I Sources/CWebPCodec/include)
libraries=(-lpng -lwebp -lz -lm)
echo "sanitize: building the harnesses ($CLANG: ASan+UBSan; $GCC: TSan)"
"$CLANG" -g -O1 -Wall -Wextra -Werror -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined \
  "${includes[@]}" scripts/sanitize/decode.c "${sources[@]}" "${libraries[@]}" -o "$scratch/sanitize_decode" 2>&1 \
  | { grep -v "Cannot export local symbol" || true; }
# -Wno-clobbered: gcc warns of every local alive across libpng's setjmp, modified after it or not (clang does not).
"$GCC" -g -O2 -Wall -Wextra -Wno-clobbered -Werror -fno-omit-frame-pointer -fsanitize=thread -Wno-unknown-pragmas -pthread \
  "${includes[@]}" scripts/sanitize/threads.c "${sources[@]}" "${libraries[@]}" -o "$scratch/sanitize_threads"
"$CLANG" -g -O1 -Wall -Wextra -Werror -pthread -I Sources/CHeapPeak/include -I Sources/CThreadGuard/include \
  Sources/CHeapPeak/*.c Sources/CThreadGuard/*.c scripts/sanitize/thread-exit.c -ldl -o "$scratch/thread_exit"
jemalloc=""
for library in /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 /usr/lib/aarch64-linux-gnu/libjemalloc.so.2 \
  /usr/lib64/libjemalloc.so.2 /usr/lib/libjemalloc.so.2 /usr/local/lib/libjemalloc.so.2; do
  [ -f "$library" ] && { jemalloc=$library; break; }
done
[ -n "$jemalloc" ] || { echo "sanitize: libjemalloc.so.2 is missing (bash scripts/setup.sh installs it)" >&2; exit 2; }

echo "sanitize: making the fixtures in $fixtures"
python3 scripts/sanitize/fixtures.py "$fixtures"
for source in "$fixtures"/source-*.ppm; do
  size=${source##*/source-} size=${size%.ppm}
  for sampling in 2x2 2x1 1x2 1x1 4x1; do
    base=$fixtures/jpeg-$size-$sampling
    cjpeg -quality 85 -sample "$sampling" "$source" > "$base-baseline.jpg"
    jpegtran -progressive "$base-baseline.jpg" > "$base-progressive.jpg"
    for script in scripts/jpeg-scans/*.txt; do
      name=${script##*/} name=${name%.txt}
      jpegtran -scans "$script" "$base-baseline.jpg" > "$base-$name.jpg"
    done
    jpegtran -progressive -restart 1B "$base-baseline.jpg" > "$base-progressive-restart-1B.jpg"
    jpegtran -scans scripts/jpeg-scans/mozjpeg.txt -restart 1 "$base-baseline.jpg" > "$base-mozjpeg-restart-1-row.jpg"
  done
  cjpeg -quality 100 -optimize -sample 1x1 "$source" > "$fixtures/jpeg-$size-q100-optimized.jpg"
  # Quality 5 needs 16-bit quantization tables (cjpeg cautions that they are not baseline).
  cjpeg -quality 5 -restart 2B "$source" 2> /dev/null > "$fixtures/jpeg-$size-q5-restart-2B.jpg"
  cjpeg -quality 85 -grayscale "$source" > "$fixtures/jpeg-$size-gray-baseline.jpg"
  cjpeg -quality 85 -progressive "${source%.ppm}.pgm" > "$fixtures/jpeg-$size-gray-progressive.jpg"
  jpegtran -restart 1B "$fixtures/jpeg-$size-gray-baseline.jpg" > "$fixtures/jpeg-$size-gray-restart-1B.jpg"
  cjpeg -quality 85 -rgb "$source" > "$fixtures/jpeg-$size-rgb-baseline.jpg"
  jpegtran -progressive "$fixtures/jpeg-$size-rgb-baseline.jpg" > "$fixtures/jpeg-$size-rgb-progressive.jpg"
  cjpeg -quality 85 -arithmetic "$source" > "$fixtures/refused-jpeg-$size-arithmetic.jpg"
  cjpeg -quality 85 -arithmetic -progressive "$source" > "$fixtures/refused-jpeg-$size-arithmetic-progressive.jpg"
done
# Hand-made hostile files the decoders must refuse without undefined behaviour (scripts/sanitize/hostile/):
# refused-huffman-dc-as-ac.jpg, a DC table whose bytes equal an AC table of an earlier scan (issue 44).
cp scripts/sanitize/hostile/refused-*.jpg "$fixtures/"
for png in "$fixtures"/png-plain-type2-8bit-37x23.png "$fixtures"/png-plain-type6-8bit-37x23.png \
  "$fixtures"/png-plain-type6-8bit-203x157.png "$fixtures"/png-plain-type2-8bit-1x1.png; do
  name=${png##*/png-plain-} name=${name%.png}
  cwebp -quiet -q 75 "$png" -o "$fixtures/webp-lossy-$name.webp"
  cwebp -quiet -q 10 -m 0 -segments 1 "$png" -o "$fixtures/webp-lossy-q10-$name.webp"
  cwebp -quiet -lossless "$png" -o "$fixtures/webp-lossless-$name.webp"
done
cwebp -quiet -q 90 -alpha_q 50 -sharp_yuv "$fixtures/png-plain-type6-8bit-203x157.png" \
  -o "$fixtures/webp-lossy-alpha-q50-sharp-203x157.webp"
mapfile -t fixture_files < <(find "$fixtures" -name '*.jpg' -o -name '*.png' -o -name '*.webp' | sort)
# TSan costs tens of times ASan's time: the threads get the small images (JPEGs first: they all start on one).
f=$fixtures
thread_files=("$f"/jpeg-17x9-*.jpg "$f"/jpeg-61x43-2x2-*.jpg "$f"/jpeg-61x43-{gray,rgb}-*.jpg
  "$f"/png-*-type{2,6}-8bit-{37x23,3x2,5x13}.png "$f"/png-adam7-type{0,3}-*bit-37x23.png "$f"/webp-lossy*37x23.webp)
if [ -n "${SANITIZE_CORPUS:-}" ]; then
  read -ra corpus_dirs <<< "$SANITIZE_CORPUS"  # folders, separated by spaces
else
  mapfile -t corpus_dirs < <(find .build-fuzz/jpeg -maxdepth 1 -type d -name 'corpus-*' 2>/dev/null | sort)
fi

status=0 findings=()
# run NAME LOG COMMAND...: runs a harness, its output in LOG; on a failure prints the file it was on,
# the first report whole and one line a distinct finding.
run() {
  local name=$1 log=$2 begun rc=0; shift 2
  begun=$(date +%s)
  "$@" > "$log" 2>&1 || rc=$?
  grep -E '^sanitize_(decode|threads): ' "$log" | grep -v ': finding: ' || true
  echo "sanitize: $name took $(( $(date +%s) - begun )) s (exit $rc)"
  [ "$rc" -eq 0 ] && return 0
  status=1 findings+=("$name")
  {
    echo "sanitize: FINDING in $name (the whole log: $log)"
    grep -E '^file: ' "$log" | tail -1 || true
    awk '/^(==[0-9]+==ERROR|WARNING: ThreadSanitizer)|runtime error:/ { shown = 1 } shown && n++ < 60 { print }
      shown && /^SUMMARY/ { exit }' "$log"
    echo "sanitize: $name, every finding:"
    grep -E '^SUMMARY|^sanitize_(decode|threads): finding: ' "$log" | sort | uniq -c || true
  } >&2
}
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TSAN_OPTIONS=halt_on_error=0:exitcode=66:second_deadlock_stack=1
run "ASan+UBSan resampler" "$logs/resample.log" "$scratch/sanitize_decode" --resample
run "ASan+UBSan fixtures" "$logs/fixtures.log" "$scratch/sanitize_decode" --fixtures "$scratch/tmp" "${fixture_files[@]}"
corpus_count=0
if [ "${#corpus_dirs[@]}" -gt 0 ]; then
  find "${corpus_dirs[@]}" -type f | sort > "$scratch/corpus.txt"
  corpus_count=$(wc -l < "$scratch/corpus.txt")
  run "ASan+UBSan fuzz corpus ($corpus_count inputs of ${corpus_dirs[*]})" "$logs/corpus.log" \
    "$scratch/sanitize_decode" --corpus - < "$scratch/corpus.txt"
else
  echo "sanitize: no fuzz corpus (.build-fuzz/jpeg/corpus-*: make fuzz-smoke makes one); fixtures only"
fi
# gcc 12's TSan cannot map its shadow memory beside a kernel's full address randomization (vm.mmap_rnd_bits
# 32, kernels from 6.6): "unexpected memory mapping" at start. Then the harness runs without randomization.
threads=("$scratch/sanitize_threads")
probe=$("${threads[@]}" 2>&1 || true)  # its usage, or TSan's fatal error
if [[ $probe == *"unexpected memory mapping"* ]]; then
  echo "sanitize: TSan cannot start with this kernel's address randomization: running it under setarch -R"
  threads=(setarch "$(uname -m)" -R "${threads[@]}")
fi
run "TSan 4 threads" "$logs/threads.log" "${threads[@]}" "${thread_files[@]}"
run "threads exiting under jemalloc" "$logs/thread-exit.log" env LD_PRELOAD="$jemalloc" "$scratch/thread_exit" 20
rm -rf "$scratch/tmp"

elapsed=$(( $(date +%s) - started ))
what="ASan+UBSan over the resampler, ${#fixture_files[@]} fixtures with their damaged copies and $corpus_count corpus inputs; TSan over 4 threads decoding ${#thread_files[@]} of the fixtures at once; threads exiting under jemalloc"
if [ "$status" -ne 0 ]; then
  echo "sanitize: FAILED in $elapsed s: ${findings[*]} ($what; logs in $logs)"
  exit 1
fi
echo "sanitize: passed in $elapsed s: $what; no finding"
