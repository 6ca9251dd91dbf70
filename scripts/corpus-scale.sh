#!/usr/bin/env bash
# The corpus scale benchmark, against its targets, into results/scale/:
#  (a) one 64x64 JPEG copied ROWS times, `bench corpus --strategy download --render none --runs 1
#      --jobs 2`: the parent's own CPU time (utime+stime of /proc/PID/stat, children excluded) and
#      the wall time sampled as corpus.csv grows, then per block of 1,000 rows. Target: the last
#      block within 20% of the first.
#  (b) NONIMAGES small text files walked and reported. Target: under 30 s.
# LABEL names the binary measured (before/after). Writes $OUT/LABEL-rows.csv (the samples),
# LABEL-blocks.csv, LABEL-nonimages.csv, then SUMMARY.md from every LABEL-*.csv there.
# Usage: BENCH=.build/release/bench LABEL=after ROWS=10000 NONIMAGES=50000 bash scripts/corpus-scale.sh
set -euo pipefail
BENCH=${BENCH:-.build/release/bench}
LABEL=${LABEL:-after}
ROWS=${ROWS:-10000}
NONIMAGES=${NONIMAGES:-50000}
BLOCK=${BLOCK:-1000}
JOBS=${JOBS:-2}
OUT=${OUT:-results/scale}
SKIP_A=${SKIP_A:-0}
SKIP_B=${SKIP_B:-0}
BENCH=$(realpath -m "$BENCH")
mkdir -p "$OUT"
work=$(mktemp -d /tmp/corpus-scale.XXXXXX)
trap 'rm -rf "$work"' EXIT
ticks=$(getconf CLK_TCK)

# The rows corpus.csv holds (its header not counted; a torn last line not counted).
rows_of() { local n; n=$( (wc -l < "$1") 2>/dev/null || echo 1); echo $(( n > 0 ? n - 1 : 0 )); }
# The parent's own CPU seconds: utime + stime, fields 14 and 15 of /proc/PID/stat.
cpu_of() { awk -v t="$ticks" '{ sub(/.*\) /, ""); printf "%.2f", ($12 + $13) / t }' "/proc/$1/stat" 2>/dev/null || echo ""; }

# Per block of BLOCK rows, from the samples: the first sample at or past each multiple of BLOCK rows.
blocks() {
  local samples="$OUT/$LABEL-rows.csv"
  awk -F, -v block="$BLOCK" -v total="$ROWS" 'NR == 1 { next }
    { while ($1 >= next_mark && next_mark <= total) { cpu[next_mark] = $2; wall[next_mark] = $3; next_mark += block }
      rows = $1; last_cpu = $2; last_wall = $3 }
    BEGIN { next_mark = 0 }
    END { print "rows_from,rows_to,parent_cpu_s,wall_s";
          for (m = block; m <= total; m += block) if ((m in cpu) && ((m - block) in cpu))
            printf "%d,%d,%.2f,%.1f\n", m - block, m, cpu[m] - cpu[m - block], wall[m] - wall[m - block]
          # The last block as far as the last sample went (the run may end between two samples).
          m = next_mark - block
          if (rows > m && rows < m + block && m >= 0 && (m in cpu) && rows - m >= block * 0.9)
            printf "%d,%d,%.2f,%.1f\n", m, rows, last_cpu - cpu[m], last_wall - wall[m] }' \
    "$samples" > "$OUT/$LABEL-blocks.csv"
}

# REBLOCK=1: the blocks again from LABEL-rows.csv (no run).
if [ "${REBLOCK:-0}" = 1 ]; then blocks; fi

if [ "$SKIP_A" != 1 ]; then
  mkdir -p "$work/images"
  "$BENCH" fixture --width 64 --height 64 --out "$work/tiny.jpg" > /dev/null
  for i in $(seq -w 1 "$ROWS"); do cp "$work/tiny.jpg" "$work/images/img$i.jpg"; done
  samples="$OUT/$LABEL-rows.csv"
  echo "rows,parent_cpu_s,wall_s" > "$samples"
  start=$(date +%s.%N)
  "$BENCH" corpus "$work/images" --strategy download --render none --runs 1 --jobs "$JOBS" --out "$work/out-a" \
    > "$work/a.stdout" 2> "$work/a.stderr" &
  pid=$!
  last=-1
  while kill -0 "$pid" 2> /dev/null; do
    rows=$(rows_of "$work/out-a/corpus.csv"); cpu=$(cpu_of "$pid")
    if [ -n "$cpu" ] && [ "$rows" != "$last" ]; then
      echo "$rows,$cpu,$(echo "$(date +%s.%N) - $start" | bc)" >> "$samples"; last=$rows
    fi
    sleep 0.2
  done
  status=0; wait "$pid" || status=$?
  wall=$(echo "$(date +%s.%N) - $start" | bc)
  echo "bench corpus exited $status after $wall s; rows $(rows_of "$work/out-a/corpus.csv")" >&2
  blocks
  echo "rows,exit_status,wall_s" > "$OUT/$LABEL-corpus.csv"
  echo "$(rows_of "$work/out-a/corpus.csv"),$status,$wall" >> "$OUT/$LABEL-corpus.csv"
fi

if [ "$SKIP_B" != 1 ]; then
  mkdir -p "$work/text"
  (cd "$work/text" && seq -w 1 "$NONIMAGES" | xargs -n 1000 sh -c 'for i; do echo "not an image $i" > "note$i.txt"; done' sh)
  start=$(date +%s.%N)
  status=0
  /usr/bin/time -f "%U %S" -o "$work/b.time" "$BENCH" corpus "$work/text" --strategy download --render none --runs 1 \
    --out "$work/out-b" > /dev/null 2> "$work/b.stderr" || status=$?
  wall=$(echo "$(date +%s.%N) - $start" | bc)
  # /usr/bin/time's user+sys includes the children; bench spawns none here (no file is an image).
  cpu=$(tail -n 1 "$work/b.time" | awk '{ printf "%.2f", $1 + $2 }')
  echo "files,exit_status,wall_s,cpu_s,rows,stderr_bytes" > "$OUT/$LABEL-nonimages.csv"
  echo "$NONIMAGES,$status,$wall,$cpu,$(rows_of "$work/out-b/corpus.csv"),$(wc -c < "$work/b.stderr")" >> "$OUT/$LABEL-nonimages.csv"
  tail -n 3 "$work/b.stderr" >&2
fi

# SUMMARY.md from every label's files.
{
  echo "# Corpus scale benchmark"
  echo
  echo "Written by \`scripts/corpus-scale.sh\` (\`make corpus-scale\`) from the CSVs beside it; $(nproc) cores, $(uname -sr)."
  echo "Parent CPU is the figure to compare: wall time also depends on what else the machine runs."
  [ -n "${SUMMARY_NOTE:-}" ] && echo && echo "$SUMMARY_NOTE"
  echo
  echo "## (a) Tiny JPEG copies, \`--strategy download --render none --runs 1 --jobs $JOBS\`"
  echo
  echo "| binary | rows written | exit | wall (s) | rows a block | parent CPU, first block (s) | parent CPU, last block (s) | last / first |"
  echo "|---|---|---|---|---|---|---|---|"
  for f in "$OUT"/*-corpus.csv; do
    [ -e "$f" ] || continue
    label=$(basename "$f" -corpus.csv)
    read -r rows status wall < <(awk -F, 'NR == 2 { print $1, $2, $3 }' "$f")
    read -r size first last ratio < <(awk -F, 'NR == 2 { size = $2 - $1; first = $3 } NR > 1 { last = $3 }
      END { printf "%d %s %s %s\n", size, first, last, (first > 0 ? sprintf("%.2f", last / first) : "-") }' "$OUT/$label-blocks.csv")
    printf "| %s | %s | %s | %.0f | %s | %s | %s | %s |\n" "$label" "$rows" "$status" "$wall" "$size" "$first" "$last" "$ratio"
  done
  echo
  echo "Per block: \`LABEL-blocks.csv\` (a last block of fewer rows is as far as the last sample went); the samples as corpus.csv grew: \`LABEL-rows.csv\`. Parent CPU: utime+stime of the bench process itself (its children excluded)."
  echo
  echo "## (b) Files that are not images"
  echo
  echo "| binary | files | exit | wall (s) | CPU (s) | rows | stderr bytes |"
  echo "|---|---|---|---|---|---|---|"
  for f in "$OUT"/*-nonimages.csv; do
    [ -e "$f" ] || continue
    awk -F, -v label="$(basename "$f" -nonimages.csv)" 'NR == 2 { printf "| %s | %s | %s | %.1f | %s | %s | %s |\n", label, $1, $2, $3, $4, $5, $6 }' "$f"
  done
} > "$OUT/SUMMARY.md"
cat "$OUT/SUMMARY.md"
