#!/usr/bin/env python3
"""Checks who holds the peak against heaptrack, for the article's four cases (glibc).

Each case's trial child (`bench _trial --stdout --spec-file SPEC`, against `bench serve`) runs under heaptrack
with the harness's own recording on: heaptrack interposes the allocator behind bench's wrappers,
so one process gives both answers for the same peak. Ours: the blocks the child recorded live at
its exact heap peak (peakBlocks in its report). heaptrack's: its PEAK MEMORY CONSUMERS, the
allocation sites of the blocks live at its peak with what each held (a site that grew one block by
realloc, over many calls, holds that block). Every block of 1 MB or more
on either side must have a partner on the other within 1% (ours counts usable sizes, heaptrack
requested sizes). Writes <out>/validation.csv and <out>/validation.md.

Usage: scripts/validate-holders.py [--bench .build/release/bench] [--runs 3] [--out results/holders]
Needs heaptrack (apt-get install heaptrack).
"""
import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import tempfile

import importlib.util

spec = importlib.util.spec_from_file_location("validate", os.path.join(os.path.dirname(__file__), "validate.py"))
validate = importlib.util.module_from_spec(spec)
spec.loader.exec_module(validate)

CASES = [("data", "none"), ("data", "full"), ("download", "none"), ("download", "full")]
LARGE = 1_000_000
TOLERANCE = 0.01


def our_blocks(stdout):
    """The report's recorded blocks live at the peak, in bytes, and its exact heap peak."""
    for line in stdout.splitlines():
        if line.startswith("{"):
            report, _ = json.JSONDecoder().raw_decode(line)
            if report.get("status") != "ok":
                raise SystemExit(f"validate-holders: trial failed: {report.get('status')}: {report.get('error')}")
            return [block["bytes"] for block in report.get("peakBlocks") or []], report["peakHeapExactBytes"]
    raise SystemExit("validate-holders: the trial printed no report")


def heaptrack_blocks(output_base):
    """What each allocation site held at heaptrack's peak (a site that grew a block by realloc holds that block)."""
    text = validate.run(["heaptrack_print", "-f", output_base + ".zst", "--print-peaks", "1", "--print-allocators", "0",
                         "--print-leaks", "0", "--print-temporary", "0", "--peak-limit", "50"]).stdout
    scale = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}  # heaptrack prints decimal units, two decimals
    sites = re.findall(r"^([\d.]+)([KMG]?) consumed over \d+ calls from:", text, re.MULTILINE)
    return [float(number) * scale[unit] for number, unit in sites]


def pair(ours, theirs):
    """Largest first, each block of either side with the nearest unpaired block of the other."""
    ours = sorted((b for b in ours if b >= LARGE), reverse=True)
    theirs = sorted((b for b in theirs if b >= LARGE), reverse=True)
    pairs, unmatched = [], []
    left = list(theirs)
    for block in ours:
        nearest = min(left, key=lambda other: abs(other - block), default=None)
        if nearest is not None and abs(nearest - block) <= TOLERANCE * block:
            pairs.append((block, nearest))
            left.remove(nearest)
        else:
            unmatched.append(("ours", block))
    unmatched += [("heaptrack", block) for block in left]
    return pairs, unmatched


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench", default=".build/release/bench")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", default="results/holders")
    options = parser.parse_args()
    if not shutil.which("heaptrack") or not shutil.which("heaptrack_print"):
        raise SystemExit("validate-holders: heaptrack is missing; install: apt-get install heaptrack")
    bench = os.path.abspath(options.bench)
    if not os.path.exists(bench):
        raise SystemExit(f"validate-holders: {bench} not found; run `swift build -c release` first")

    scratch = tempfile.mkdtemp(prefix="bench-validate-holders-")
    server, url = validate.start_server(bench)
    rows = []
    try:
        for strategy, render in CASES:
            for run in range(1, options.runs + 1):
                work = os.path.join(scratch, "work")
                os.makedirs(work, exist_ok=True)
                env = {**os.environ, "TMPDIR": work}
                env.pop("LD_PRELOAD", None)
                env.pop("BENCH_EXACT_HEAP", None)
                base = os.path.join(scratch, f"heaptrack-{strategy}-{render}-{run}")
                result = validate.run(["heaptrack", "-o", base, bench, "_trial", "--stdout", "--spec-file",
                                       validate.trial_spec(bench, strategy, render, url, work)], env=env, cwd=scratch)
                ours, peak = our_blocks(result.stdout)
                theirs = heaptrack_blocks(base)
                pairs, unmatched = pair(ours, theirs)
                worst = max((abs(a - b) / b * 100 for a, b in pairs), default=0.0)
                rows.append({
                    "strategy": strategy, "render": render, "run": run, "exact_heap_peak_bytes": peak,
                    "ours_large_blocks_mb": " ".join(f"{b / 1e6:.2f}" for b in sorted(ours, reverse=True) if b >= LARGE),
                    "heaptrack_large_blocks_mb": " ".join(f"{b / 1e6:.2f}" for b in sorted(theirs, reverse=True) if b >= LARGE),
                    "paired": len(pairs), "unpaired": len(unmatched), "max_difference_pct": f"{worst:.3f}",
                })
                shutil.rmtree(work, ignore_errors=True)
                print(f"validate-holders: {strategy}+{render} run {run}: {len(pairs)} paired, {len(unmatched)} unpaired, "
                      f"largest difference {worst:.3f}%", flush=True)
    finally:
        server.kill()
        shutil.rmtree(scratch, ignore_errors=True)

    os.makedirs(options.out, exist_ok=True)
    with open(os.path.join(options.out, "validation.csv"), "w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0].keys()))
        writer.writeheader()
        writer.writerows(rows)
    lines = ["<!-- generated by scripts/validate-holders.py; do not edit -->",
             "# Who holds the peak, against heaptrack",
             "",
             "Each run is one trial child under heaptrack, the harness's recording on: the blocks of 1 MB or more",
             "it found live at its exact heap peak, and what each allocation site held at heaptrack's peak, in MB.",
             "A block is paired with the other side's nearest within 1% (ours: usable sizes; heaptrack: requested).",
             "",
             "| case | run | exact heap peak (MB) | ours | heaptrack | paired | unpaired | largest difference |",
             "|---|---:|---:|---|---|---:|---:|---:|"]
    for row in rows:
        lines.append(f"| {row['strategy']}+{row['render']} | {row['run']} | {row['exact_heap_peak_bytes'] / 1e6:.1f} "
                     f"| {row['ours_large_blocks_mb'] or '–'} | {row['heaptrack_large_blocks_mb'] or '–'} | {row['paired']} "
                     f"| {row['unpaired']} | {row['max_difference_pct']}% |")
    with open(os.path.join(options.out, "validation.md"), "w") as file:
        file.write("\n".join(lines) + "\n")
    if any(row["unpaired"] for row in rows):
        raise SystemExit("validate-holders: some blocks have no partner within 1% (see validation.md)")


if __name__ == "__main__":
    main()
