#!/usr/bin/env python3
"""Checks the harness's memory figures against independent tools, for the article's four cases.

For each case (data/download x none/full, system allocator) one trial child is run
standalone (`bench _trial --stdout --spec-file SPEC`) against `bench serve`, several ways:

  ours       the exact heap maximum that bench keeps itself (its allocation wrappers are linked
             into the binary), over the whole process life (bench run reports the maximum over
             the measured window), and the peak RSS
  The other ways run with BENCH_EXACT_HEAP=off: bench's wrappers pass straight through to
  the allocator behind them, which the tools interpose as they would without them.
  heaptrack  under heaptrack: its "peak heap memory consumption" (requested bytes, decimal units)
  massif     under valgrind --tool=massif --peak-inaccuracy=0: the largest mem_heap_B
  time -v    under /usr/bin/time -v: "Maximum resident set size", compared with the same
             process's own peak RSS report
Every way runs --runs times and the medians are compared, ours against the tool's: some peaks
depend on a race between threads (see REPORT.md), which one run of a tool may or may not catch,
and the median of each side is what the table shows. Each side's min-max is shown beside it.

All figures are whole-process absolutes (baseline included), because the tools know nothing
of our measured window. Writes results/validation.csv and results/validation.md, and puts the
table into results/REPORT.md between its <!-- validation --> markers.

Usage: scripts/validate.py [--bench .build/release/bench] [--runs 3] [--out results]
Needs heaptrack, valgrind and time (apt-get install heaptrack valgrind time).
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# The article's four cases, and the calibration spike: a known answer (50,000,000 bytes over baseline).
CASES = [("data", "none"), ("data", "full"), ("download", "none"), ("download", "full"), ("calibration-spike", "none")]


def trial_spec(bench, strategy, render, url, work_directory):
    """Writes the trial's spec beside its work folder and returns the file's path (`--spec-file`).
    The spec is the one `bench run` would give the trial (`bench _trial-spec`), settle rule included;
    a long timeout, since the trial runs under valgrind too."""
    path = work_directory.rstrip("/") + ".spec.json"
    spec = run([bench, "_trial-spec", "--strategy", strategy, "--render", render, "--url", url,
                "--warmup-url", url.rsplit("/", 1)[0] + "/warmup", "--work-directory", work_directory,
                "--timeout", "600"]).stdout
    with open(path, "w") as f:
        f.write(spec)
    return path


def report_from(stdout):
    """The child's JSON report: the line that is a JSON object (heaptrack also writes to stdout)."""
    for line in stdout.splitlines():
        if line.startswith("{"):
            report = json.loads(line)
            if report.get("status") != "ok":
                raise SystemExit(f"validate: trial failed: {report.get('status')}: {report.get('error')}")
            return report
    raise SystemExit("validate: the trial printed no report:\n" + stdout[-2000:])


def run(command, env=None, cwd=None):
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, timeout=900)
    if result.returncode != 0:
        raise SystemExit(f"validate: {' '.join(command[:3])} ... exited {result.returncode}:\n{result.stderr[-2000:]}")
    return result


def start_server(bench):
    server = subprocess.Popen([bench, "serve", "--seconds", "3600"], stdout=subprocess.PIPE, text=True)
    line = server.stdout.readline()
    match = re.search(r"(http://127\.0\.0\.1:\d+/\S+)", line)
    if not match:
        server.kill()
        raise SystemExit(f"validate: bench serve did not start: {line!r}")
    return server, match.group(1)


def heaptrack_peak_bytes(output_base):
    text = run(["heaptrack_print", "-f", output_base + ".zst"]).stdout
    match = re.search(r"peak heap memory consumption: ([\d.]+)([KMG]?)", text)
    if not match:
        raise SystemExit("validate: heaptrack_print gave no peak")
    scale = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}[match.group(2)]  # heaptrack prints decimal units
    return float(match.group(1)) * scale


def massif_peak_bytes(path):
    with open(path) as massif:
        return max(int(value) for value in re.findall(r"mem_heap_B=(\d+)", massif.read()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench", default=".build/release/bench")
    parser.add_argument("--runs", type=int, default=3, help="runs per case for each way of measuring")
    parser.add_argument("--out", default="results")
    options = parser.parse_args()

    missing = [tool for tool in ("heaptrack", "heaptrack_print", "valgrind", "strip") if not shutil.which(tool)]
    if not os.path.exists("/usr/bin/time"):
        missing.append("/usr/bin/time")
    if missing:
        raise SystemExit(f"validate: missing {', '.join(missing)}; install: apt-get install heaptrack valgrind time binutils")
    bench = os.path.abspath(options.bench)
    if not os.path.exists(bench):
        raise SystemExit(f"validate: {bench} not found; run `swift build -c release` first")

    scratch = tempfile.mkdtemp(prefix="bench-validate-")
    # valgrind 3.19 cannot read the DWARF 5 that Swift 6 emits: give it a copy without debug info.
    bench_for_valgrind = os.path.join(scratch, "bench")
    run(["strip", "--strip-debug", "-o", bench_for_valgrind, bench])
    server, url = start_server(bench)
    rows = []
    started = time.time()
    try:
        for strategy, render in CASES:
            work = os.path.join(scratch, "work")
            os.makedirs(work, exist_ok=True)
            spec = trial_spec(bench, strategy, render, url, work)
            ours_env = {**os.environ, "TMPDIR": work}
            ours_env.pop("LD_PRELOAD", None)
            ours_env.pop("BENCH_EXACT_HEAP", None)
            # The tools' runs: bench's own wrappers off, so that only the tool counts.
            base_env = {**ours_env, "BENCH_EXACT_HEAP": "off"}

            ours = [report_from(run([bench, "_trial", "--stdout", "--spec-file", spec], env=ours_env).stdout)
                    for _ in range(options.runs)]
            timed = []
            for _ in range(options.runs):
                result = run(["/usr/bin/time", "-v", bench, "_trial", "--stdout", "--spec-file", spec], env=base_env)
                maximum = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr).group(1)) * 1024
                timed.append((maximum, report_from(result.stdout)["peakRSSBytes"]))

            heaptrack, massif = [], []
            for index in range(options.runs):
                heaptrack_base = os.path.join(scratch, f"heaptrack-{strategy}-{render}-{index}")
                run(["heaptrack", "-o", heaptrack_base, bench, "_trial", "--stdout", "--spec-file", spec], env=base_env, cwd=scratch)
                heaptrack.append(heaptrack_peak_bytes(heaptrack_base))
                massif_file = os.path.join(scratch, f"massif-{strategy}-{render}-{index}.out")
                run(["valgrind", "--tool=massif", "--peak-inaccuracy=0", f"--massif-out-file={massif_file}",
                     bench_for_valgrind, "_trial", "--stdout", "--spec-file", spec], env=base_env)
                massif.append(massif_peak_bytes(massif_file))

            row = {
                "strategy": strategy, "render": render,
                # The lifetime maximum: the tools see start-up and warm-up too.
                "ours_heap_peak_bytes": statistics.median(r["lifetimePeakHeapExactBytes"] for r in ours),
                "ours_heap_peak_min_bytes": min(r["lifetimePeakHeapExactBytes"] for r in ours),
                "ours_heap_peak_max_bytes": max(r["lifetimePeakHeapExactBytes"] for r in ours),
                "heaptrack_heap_peak_bytes": statistics.median(heaptrack),
                "heaptrack_heap_peak_min_bytes": min(heaptrack),
                "heaptrack_heap_peak_max_bytes": max(heaptrack),
                "massif_heap_peak_bytes": statistics.median(massif),
                "massif_heap_peak_min_bytes": min(massif),
                "massif_heap_peak_max_bytes": max(massif),
                "ours_rss_peak_bytes": statistics.median(peak for _, peak in timed),
                "time_v_max_rss_bytes": statistics.median(maximum for maximum, _ in timed),
                "ours_baseline_rss_bytes": statistics.median(r["baselineRSSBytes"] for r in ours),
                "ours_heap_peak_delta_bytes": statistics.median(
                    r["peakHeapExactBytes"] - r["baselineHeapExactBytes"] for r in ours),
                "ours_rss_peak_delta_bytes": statistics.median(r["peakRSSBytes"] - r["baselineRSSBytes"] for r in ours),
            }
            rows.append(row)
            print(f"validate: {strategy}+{render} done ({time.time() - started:.0f} s)", file=sys.stderr)
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(scratch, ignore_errors=True)

    os.makedirs(options.out, exist_ok=True)
    columns = list(rows[0].keys())
    with open(os.path.join(options.out, "validation.csv"), "w") as csv_file:
        csv_file.write(",".join(columns) + "\n")
        for row in rows:
            csv_file.write(",".join(str(int(row[c])) if isinstance(row[c], float) else str(row[c]) for c in columns) + "\n")
    table = markdown(rows, options.runs)
    with open(os.path.join(options.out, "validation.md"), "w") as report:
        report.write(table)
    replace_section(os.path.join(options.out, "REPORT.md"), table)
    print(table)


def replace_section(report_path, table):
    """Puts the table between REPORT.md's validation markers, if the report has them."""
    begin, end = "<!-- validation -->", "<!-- /validation -->"
    if not os.path.exists(report_path):
        return
    with open(report_path) as report:
        text = report.read()
    if begin not in text or end not in text:
        print(f"validate: {report_path} has no {begin} section; wrote validation.md only", file=sys.stderr)
        return
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    with open(report_path, "w") as report:
        report.write(head + begin + "\n" + table + end + tail)


def difference(ours, theirs):
    return f"{(ours - theirs) / theirs * 100:+.2f}%"


def differences(row, tool):
    """Our median heap peak against the tool's median (the figures the table shows side by side).
    The runs' ranges are in the table too: a peak that depends on a race can be bimodal, and then
    the two medians may sit in different modes; the brackets show when that happened."""
    return difference(row["ours_heap_peak_bytes"], row[f"{tool}_heap_peak_bytes"])


def markdown(rows, runs):
    mb = lambda value: f"{value / 1e6:.2f}"
    lines = [
        "<!-- generated by scripts/validate.py; do not edit -->",
        f"Whole-process peaks in MB (10^6 bytes), system allocator; each figure is the median of {runs} runs "
        "of its own process (min-max in brackets). The differences compare our median with the tool's median.",
        "",
        "| case | ours: exact heap peak | heaptrack | ours vs heaptrack | massif | ours vs massif "
        "| ours: peak RSS | time -v max RSS | ours vs time -v |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        if row["strategy"] == "calibration-spike":
            continue
        lines.append(
            f"| {row['strategy']}+{row['render']} "
            f"| {mb(row['ours_heap_peak_bytes'])} [{mb(row['ours_heap_peak_min_bytes'])}-{mb(row['ours_heap_peak_max_bytes'])}] "
            f"| {mb(row['heaptrack_heap_peak_bytes'])} [{mb(row['heaptrack_heap_peak_min_bytes'])}-{mb(row['heaptrack_heap_peak_max_bytes'])}] "
            f"| {differences(row, 'heaptrack')} "
            f"| {mb(row['massif_heap_peak_bytes'])} [{mb(row['massif_heap_peak_min_bytes'])}-{mb(row['massif_heap_peak_max_bytes'])}] "
            f"| {differences(row, 'massif')} "
            f"| {mb(row['ours_rss_peak_bytes'])} | {mb(row['time_v_max_rss_bytes'])} "
            f"| {difference(row['ours_rss_peak_bytes'], row['time_v_max_rss_bytes'])} |")
    for row in rows:
        if row["strategy"] != "calibration-spike":
            continue
        lines += [
            "",
            "Calibration (`--strategy calibration-spike`: 50,000,000 bytes malloc'd, every page touched, "
            "held 2 ms, freed), over each run's baseline: "
            f"exact heap peak {int(row['ours_heap_peak_delta_bytes']):,} bytes, "
            f"peak RSS {int(row['ours_rss_peak_delta_bytes']):,} bytes (VmHWM, after the block was freed); "
            f"whole-process heap peak {mb(row['ours_heap_peak_bytes'])} MB ours, "
            f"{mb(row['heaptrack_heap_peak_bytes'])} MB heaptrack, {mb(row['massif_heap_peak_bytes'])} MB massif.",
        ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
