#!/usr/bin/env bash
# The stream renderer's time target (within 1.5x of libjpeg-turbo's DCT-scaled decode): the
# Benchmarks package's progressive-stream and progressive-thumbnail, measured in one package-benchmark
# run, their wall-clock samples written to OUT (default results/progressive-time.csv:
# benchmark,sample,wall_ms; package-benchmark exports each benchmark's samples in ascending order,
# so `sample` is a rank, not the iteration), which REPORT.md's "What the encoding costs" reads.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/progressive-time.csv}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
(cd Benchmarks && ${SWIFT:-swift} package --allow-writing-to-directory "$scratch" benchmark \
  --filter 'progressive-.*' --metric wallClock --format histogramSamples --path "$scratch" --no-progress)
python3 - "$scratch" "$out" <<'PYTHON'
import glob, os, sys
scratch, out = sys.argv[1], sys.argv[2]
rows = []
for name in ("progressive-stream", "progressive-thumbnail"):
    files = glob.glob(os.path.join(scratch, f"*{name}*.tsv"))
    if len(files) != 1:
        sys.exit(f"progressive-time: expected one sample file for {name}, found {len(files)} in {scratch}")
    lines = open(files[0]).read().split("\n")
    header, samples = lines[0], [line for line in lines[1:] if line.strip()]
    # "Time (wall clock) (ms)" or "(s)", "(μs)": the samples are in the unit the header names.
    scale = {"(ns)": 1e-6, "(μs)": 1e-3, "(us)": 1e-3, "(ms)": 1.0, "(s)": 1e3}
    unit = header.split()[-1]
    if unit not in scale:
        sys.exit(f"progressive-time: unknown unit '{unit}' in {files[0]}")
    rows += [(name, index + 1, float(sample) * scale[unit]) for index, sample in enumerate(samples)]
temporary = out + ".tmp"
with open(temporary, "w") as file:
    file.write("benchmark,sample,wall_ms\n")
    file.writelines(f"{name},{rank},{ms:.3f}\n" for name, rank, ms in rows)
os.replace(temporary, out)
print(f"progressive-time: {len(rows)} samples in {out}", file=sys.stderr)
PYTHON
