#!/usr/bin/env bash
# Draws the charts of a results folder as SVG and PNG in <results>/charts, and regenerates the
# tables of <results>/REPORT.md. `bench report` turns a run's CSVs into gnuplot's input; gnuplot
# only draws. Any output gnuplot writes to stderr (a warning included) fails the run.
#
# Usage: scripts/plots.sh [results-folder]      (BENCH=path/to/bench, default .build/release/bench)
# `make plots` passes the latest run (runs/<UTC time>/). `bench-reference measure documents` (make
# reference) passes results/ with DOCUMENTS: then the maintainers' bench-reference (BENCH_REFERENCE) regenerates REPORT.md,
# SCENARIO.md and the documents' figures from the committed results instead.
set -euo pipefail

results=${1:-results}
bench=${BENCH:-.build/release/bench}
bench_reference=${BENCH_REFERENCE:-$(dirname "$bench")/bench-reference}
plots_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/plots" && pwd)
charts="$results/charts"
data="$charts/data"

if [ ! -x "$bench" ]; then
  echo "plots: $bench is not built; run 'swift build -c release' or set BENCH" >&2
  exit 66
fi
command -v gnuplot >/dev/null || { echo "plots: gnuplot is missing; run scripts/setup.sh" >&2; exit 69; }

# DOCUMENTS="README.md docs/X.md ..." (bench-reference measure documents): the committed reference, whose REPORT.md,
# SCENARIO.md and those documents' figures the maintainers' bench-reference regenerates.
if [ -n "${DOCUMENTS:-}" ]; then
  [ -x "$bench_reference" ] || { echo "plots: $bench_reference is not built; run 'swift build -c release'" >&2; exit 66; }
  documents=()
  for document in $DOCUMENTS; do documents+=(--document "$document"); done
  "$bench_reference" --results "$results" --data-out "$data" "${documents[@]}"
else
  "$bench" report --results "$results" --data-out "$data"
fi

drawn=()
# gp_string VALUE: VALUE as a gnuplot string literal (single-quoted; a quote inside is doubled),
# so that a folder with a quote in its name does not end the string early.
gp_string() { local escaped=${1//\'/\'\'}; printf "'%s'" "$escaped"; }
# draw CHART GNUPLOT-SETTINGS: runs plots/CHART.gp once per format; fails on any gnuplot output.
draw() {
  local chart=$1 settings=$2 format warnings
  for format in svg png; do
    if ! warnings=$(gnuplot -e "$settings; out_base=$(gp_string "$charts/$chart"); format='$format'" \
                      "$plots_dir/$chart.gp" 2>&1 >/dev/null) || [ -n "$warnings" ]; then
      echo "plots: gnuplot failed or warned on $chart.$format:" >&2
      echo "$warnings" >&2
      exit 1
    fi
    drawn+=("$charts/$chart.$format")
  done
}

for chart in article timeline sweep matrix; do
  # A chart whose data is absent (no timeline.csv or sweep.csv) is skipped, and an old image of it removed.
  case $chart in
    timeline) input="$data/timeline.dat" ;;
    sweep) input="$data/sweep.dat" ;;
    *) input="$data/$chart.dat" ;;
  esac
  if [ ! -f "$input" ]; then
    echo "plots: skipping $chart: no $(basename "$input") (its CSV is missing)" >&2
    rm -f "$charts/$chart.svg" "$charts/$chart.png"
    continue
  fi
  draw "$chart" "plots_dir=$(gp_string "$plots_dir"); data_dir=$(gp_string "$data")"
done
# The encodings chart: bench report writes encodings.dat when the folder has encodings.csv (make encodings).
# The holders chart: bench report writes holders.dat when the folder (or its holders/ run) has a holders.csv.
if [ -f "$data/holders.dat" ]; then
  draw holders "plots_dir=$(gp_string "$plots_dir"); data_dir=$(gp_string "$data")"
fi
# The residency chart: bench report writes residency.dat when the folder (or its holders/ run) has a residency.csv.
if [ -f "$data/residency.dat" ]; then
  draw residency "plots_dir=$(gp_string "$plots_dir"); data_dir=$(gp_string "$data")"
fi
if [ -f "$data/encodings.dat" ]; then
  draw encodings "plots_dir=$(gp_string "$plots_dir"); data_dir=$(gp_string "$data")"
fi
# The image server's chart: bench report writes server.dat for an image server's folder (server.csv),
# bench-reference for the reference's server/server.csv (bench-reference measure server).
if [ -f "$data/server.dat" ]; then
  draw server "plots_dir=$(gp_string "$plots_dir"); data_dir=$(gp_string "$data")"
fi
# The list-scroll chart reads list-scroll.csv itself (bench scenario list-scroll writes it); a folder of
# the previous format (settings.json's format 1) holds the same columns as scenario.csv.
for scroll_csv in "$results/list-scroll.csv" "$results/scenario.csv"; do
  if [ -f "$scroll_csv" ]; then
    draw list-scroll "csv=$(gp_string "$scroll_csv"); plots_dir=$(gp_string "$plots_dir"); data_dir=$(gp_string "$data")"
    break
  fi
done
echo "drew ${drawn[*]}"
if [ -f "${results%/}/REPORT.md" ]; then
  echo "plots: charts in $charts, report in ${results%/}/REPORT.md"
else
  echo "plots: charts in $charts"
fi
