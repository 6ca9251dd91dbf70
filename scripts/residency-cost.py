#!/usr/bin/env python3
"""What the residency snapshots cost: the same cells measured with the snapshots on and off
(`bench run --residency off`), each run in a fresh child. A round measures every cell each way, which way first alternating by round. A
round's two runs of a cell are a pair: what the machine does over the minutes of the study (its
load, what a heavy run leaves behind) falls on both runs of a pair alike, and what the snapshots
add is read from the pairs' differences.

Two workloads: the article's cases (data and download tasks, no render and a full render, the
embedded JPEG) and the costliest encoding for the snapshots, HEIC (download, full and stream
renders: libheif's many large blocks and jemalloc's mappings to read). Both allocators.

Writes OUT/residency-cost.csv, one row per run: its workload, whether the snapshots were on, the
round, the cell, the measured window and the trial's wall time (spawn to exit), and for the runs
with snapshots their number, their time (all threads, wall) and the part of it on the measured
threads inside the window. The file is rewritten after every round, so an interrupted study keeps
what it measured.

Usage: scripts/residency-cost.py --bench .build/release/bench --out results [--rounds 20] [--runs 1]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

from output_files import output_files

WORKLOADS = {
    "article": ["--strategy", "data", "--strategy", "download", "--render", "none", "--render", "full"],
    "heic": ["--encoding", "heic", "--strategy", "download", "--render", "full", "--render", "stream"],
}
# The study's own columns; the cell's (trials.csv's key and status) come from bench (`cell_columns`).
STUDY_COLUMNS = ["workload", "residency", "round"]
TIMING_COLUMNS = ["window_ms", "wall_ms", "snapshots", "snapshot_ms", "in_window_ms"]


def cell_columns(bench):
    """trials.csv's key (the cell and its run) and its status, as bench declares them (`bench list
    --output-files --json`), never a copy of its lists: trials.json's trials have the same names."""
    trials = output_files(bench, "residency-cost")["trials.csv"]
    return trials["key"] + [column for column in trials["columns"] if column == "status"]


def measure(bench, workload, residency, runs, scratch):
    """One `bench run` of `workload` with the snapshots on or off: its trials.json's trials."""
    folder = os.path.join(scratch, f"{workload}-{residency}")
    command = [bench, "run", *WORKLOADS[workload], "--allocator", "system", "--allocator", "jemalloc",
               "--runs", str(runs), "--out", folder, "--replace", "--residency", residency]
    environment = dict(os.environ)
    environment.pop("BENCH_RESIDENCY", None)  # the option decides, not an alias left in the environment
    status = subprocess.run(command, stdout=subprocess.DEVNULL, env=environment).returncode
    if status not in (0, 3):  # 3: some runs failed, each is a row
        sys.exit(f"residency-cost: {' '.join(command)} exited {status}")
    with open(os.path.join(folder, "trials.json")) as file:
        return json.load(file)["trials"]


def milliseconds(seconds):
    return "" if seconds is None else f"{seconds * 1e3:.3f}"


def row(workload, residency, round_number, trial, cell):
    return {
        "workload": workload, "residency": residency, "round": round_number,
        **{column: trial[column] for column in cell},
        "window_ms": milliseconds(trial.get("durationSeconds")),
        "wall_ms": milliseconds(trial.get("wallSeconds")),
        "snapshots": trial.get("residencySnapshots", ""),
        "snapshot_ms": milliseconds(trial.get("residencySeconds")),
        "in_window_ms": milliseconds(trial.get("residencyInWindowSeconds")),
    }


def write(rows, path, columns):
    temporary = path + ".tmp"
    with open(temporary, "w") as file:
        file.write(",".join(columns) + "\n")
        for values in rows:
            file.write(",".join(str(values[column]) for column in columns) + "\n")
    os.replace(temporary, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", default=".build/release/bench")
    parser.add_argument("--out", required=True, help="folder for residency-cost.csv")
    parser.add_argument("--rounds", type=int, default=20, help="rounds, each with the snapshots on and off")
    parser.add_argument("--runs", type=int, default=1, help="runs of each cell in a round, each way")
    args = parser.parse_args()
    if args.rounds < 1 or args.runs < 1:
        sys.exit(f"residency-cost: --rounds and --runs must be at least 1 (got {args.rounds}, {args.runs})")
    if not os.access(args.bench, os.X_OK):
        sys.exit(f"residency-cost: {args.bench} is not an executable bench; build it (swift build -c release)")
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "residency-cost.csv")
    cell = cell_columns(args.bench)
    columns = STUDY_COLUMNS + cell + TIMING_COLUMNS
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-residency-cost-") as scratch:
        for round_number in range(1, args.rounds + 1):
            for workload in WORKLOADS:
                # Which goes first alternates by round, so that neither always follows the other.
                order = ["on", "off"] if round_number % 2 else ["off", "on"]
                for residency in order:
                    print(f"residency-cost: round {round_number}, {workload}, snapshots {residency}",
                          file=sys.stderr, flush=True)
                    trials = measure(args.bench, workload, residency, args.runs, scratch)
                    rows += [row(workload, residency, round_number, trial, cell) for trial in trials]
            write(rows, path, columns)
    print(f"residency-cost: {len(rows)} rows in {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
