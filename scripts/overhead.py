#!/usr/bin/env python3
"""Reduces the overhead runs of scripts/overhead.sh to the committed data of results/overhead/.

Usage: scripts/overhead.py SCRATCH OUT
  SCRATCH holds <label>/timings.csv and <label>/matrix-j<jobs>-<repeat>/ (trials.json, timeline.csv) for each label
  (fixed: the settle as a fixed 50 ms pause; rule: the settle rule), as scripts/jobs-timing.sh leaves them.
Writes OUT/phases.csv (one row per trial: where its wall time went, and its final readings over the
baseline, the figures the settle decides), OUT/settle.csv (one row per trial of
the fixed-pause runs: when RSS and the heap last moved after the render, and what the rule, replayed on
the trial's samples, would have read against the 50 ms reading) and OUT/timings.csv (wall time of each
matrix run, with the load averages).

The replay mirrors BenchCore's SettleDetector on time alone: a reading moves when RSS or the heap is
more than the tolerance away from the reference reading (the first reading after the render, then the
last one that moved); the rule is met once the readings have stayed for the quiet interval, counted
from the render. The rule's turns (the settling thread's wake-ups) are not in the recorded samples: on the
same samples the live rule ends at the replay's end or later, with no more movement left after it.
"""
import csv, json, os, sys

QUIET_S = 0.010          # SettleRule.defaultQuietNanos
RESIDENT_TOLERANCE = 64 * 1024   # SettleRule.defaultResidentToleranceBytes
HEAP_TOLERANCE = 64 * 1024       # SettleRule.defaultHeapToleranceBytes


def replay(points, start):
    """(time the rule is met or None, time of the last movement), seconds from the baseline."""
    reference = None
    last_movement = start
    met = None
    for t, rss, heap in points:
        if t < start:
            continue
        if reference is None:
            reference = (t, rss, heap)
            reference_time = start
        elif abs(rss - reference[1]) > RESIDENT_TOLERANCE or abs(heap - reference[2]) > HEAP_TOLERANCE:
            reference = (t, rss, heap)
            reference_time = t
            last_movement = t
        if met is None and t >= reference_time + QUIET_S:
            met = (t, rss, heap)
    return met, last_movement


def main():
    scratch, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    phases, settles, timings = [], [], []
    for label in sorted(os.listdir(scratch)):
        folder = os.path.join(scratch, label)
        if not os.path.isfile(os.path.join(folder, "timings.csv")):
            continue
        with open(os.path.join(folder, "timings.csv")) as f:
            for row in csv.DictReader(f):
                timings.append({"settle": label, **row})
        for run_folder in sorted(os.listdir(folder)):
            path = os.path.join(folder, run_folder, "trials.json")
            if not os.path.isfile(path):
                continue
            _, jobs, repeat = run_folder.rsplit("-", 2)
            with open(path) as f:
                trials = json.load(f)["trials"]
            # The samples of each trial: timeline.csv, by pid (trials.json leaves them out).
            timelines = {}
            with open(os.path.join(folder, run_folder, "timeline.csv")) as f:
                for row in csv.DictReader(f):
                    timelines.setdefault(int(row["pid"]), []).append(
                        (float(row["t_s"]), int(row["rss_bytes"]), int(row["allocated_bytes"])))
            for trial in trials:
                if trial.get("status") != "ok":
                    continue
                window = trial["durationSeconds"]
                timeline = timelines.get(trial["pid"], [])
                # The settle: recorded by the child, or (older children) the last sample after the render.
                settle = trial.get("settleSeconds")
                if settle is None and timeline:
                    settle = timeline[-1][0] - window
                key = {"settle": label, "jobs": jobs[1:], "repeat": repeat, "strategy": trial["strategy"],
                       "render": trial["render"], "allocator": trial["allocator"], "run": trial["run"]}
                startup, warmup, wall = trial["startupSeconds"], trial["warmupSeconds"], trial["wallSeconds"]
                phases.append({**key, **{name: "%.3f" % (value * 1000) for name, value in [
                    ("startup_ms", startup), ("warmup_ms", warmup), ("window_ms", window), ("settle_ms", settle),
                    ("tail_ms", wall - startup - warmup - window - settle), ("wall_ms", wall),
                    ("overhead_ms", wall - window)]},
                    "final_rss_delta_bytes": trial["finalRSSBytes"] - trial["baselineRSSBytes"],
                    "final_heap_delta_bytes": trial["finalAllocatedBytes"] - trial["baselineAllocatedBytes"],
                    # From the render to the last reading that moved past the rule's tolerances (rule runs' children record it).
                    "last_movement_ms": "%.3f" % (trial["settleLastMovementSeconds"] * 1000) if "settleLastMovementSeconds" in trial else ""})
                if label == "fixed" and timeline:
                    met, last_movement = replay(timeline, window)
                    final = timeline[-1]
                    settles.append({**key, "observed_ms": "%.3f" % (settle * 1000),
                                    "last_movement_ms": "%.3f" % ((last_movement - window) * 1000),
                                    "rule_end_ms": "%.3f" % ((met[0] - window) * 1000) if met else "",
                                    "rule_rss_diff_bytes": abs(met[1] - final[1]) if met else "",
                                    "rule_heap_diff_bytes": abs(met[2] - final[2]) if met else ""})
    for name, rows in [("phases.csv", phases), ("settle.csv", settles), ("timings.csv", timings)]:
        if not rows:
            continue
        with open(os.path.join(out, name), "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        print(f"overhead.py: {len(rows)} rows in {os.path.join(out, name)}")


if __name__ == "__main__":
    main()
