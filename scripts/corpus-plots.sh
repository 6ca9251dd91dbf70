#!/usr/bin/env bash
# Draws the corpus chart of a `bench corpus` output folder (charts/data/corpus.dat, written by bench
# corpus) as SVG and PNG in <folder>/charts/corpus.{svg,png}. Any gnuplot output on stderr fails it.
# Usage: scripts/corpus-plots.sh <corpus-folder>
set -euo pipefail
folder=${1:?usage: scripts/corpus-plots.sh <corpus-folder>}
plots_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/plots" && pwd)
data="$folder/charts/data"
[ -f "$data/corpus.dat" ] || { echo "corpus-plots: no $data/corpus.dat; run bench corpus --out $folder first" >&2; exit 66; }
command -v gnuplot >/dev/null || { echo "corpus-plots: gnuplot is missing; run scripts/setup.sh" >&2; exit 69; }
for format in svg png; do
  if ! warnings=$(gnuplot -e "plots_dir='$plots_dir'; data_dir='$data'; out_base='$folder/charts/corpus'; format='$format'" \
                    "$plots_dir/corpus.gp" 2>&1 >/dev/null) || [ -n "$warnings" ]; then
    echo "corpus-plots: gnuplot failed or warned on corpus.$format:" >&2
    echo "$warnings" >&2
    exit 1
  fi
done
echo "drew $folder/charts/corpus.svg $folder/charts/corpus.png"
