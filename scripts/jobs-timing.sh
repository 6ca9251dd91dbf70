#!/usr/bin/env bash
# Wall time of one bench workload serial and with --jobs 2, alternating (serial, parallel, serial, ...)
# so that the load of a shared machine falls on both; appends a row per run to OUT/timings.csv
# (workload, jobs, repeat, wall_s, status, load averages at start and end, cores) and keeps each
# run's folder in OUT/<workload>-j<jobs>-<repeat>/ for `bench compare`.
#
# Usage: scripts/jobs-timing.sh OUT WORKLOAD REPEATS bench-arguments...
#   e.g. scripts/jobs-timing.sh /tmp/jobs matrix 3 run --strategy all --render none --render full --render thumbnail --runs 5
# (BENCH=path/to/bench, default .build/release/bench). Never point OUT at results/ by hand: make reference does.
# Exits with bench's status when a run ends other than 0 or 3 (stopped, killed, refused).
set -euo pipefail
out=${1:?usage: jobs-timing.sh OUT WORKLOAD REPEATS bench-arguments...}
workload=${2:?workload name}
repeats=${3:?repeats}
shift 3
bench=${BENCH:-.build/release/bench}
mkdir -p "$out"
[ -f "$out/timings.csv" ] || echo "workload,jobs,repeat,wall_s,status,load_start,load_end,cores" > "$out/timings.csv"
first=${FIRST_REPEAT:-1}  # the number of the first repeat (a caller alternating workloads counts on)
for repeat in $(seq "$first" $((first + repeats - 1))); do
  for jobs in 1 2; do
    folder="$out/$workload-j$jobs-$repeat"
    rm -rf "$folder"
    load_start=$(cut -d' ' -f1 /proc/loadavg)
    start=$(date +%s.%N)
    status=0
    "$bench" "$@" --jobs "$jobs" --out "$folder" > "$folder.log" 2>&1 || status=$?
    end=$(date +%s.%N)
    wall=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }')
    echo "$workload,$jobs,$repeat,$wall,$status,$load_start,$(cut -d' ' -f1 /proc/loadavg),$(nproc)" >> "$out/timings.csv"
    echo "jobs-timing: $workload --jobs $jobs (repeat $repeat): $wall s, exit $status"
    # 3: some trials failed, still a timing. Anything else (a stop, a kill, bad input) ends the
    # workload with bench's status, so that a stopped or broken study stops here.
    case $status in
      0 | 3) ;;
      *) echo "jobs-timing: bench exited $status: stopping" >&2; exit "$status" ;;
    esac
  done
done
