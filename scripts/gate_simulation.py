#!/usr/bin/env python3
"""How often the memory gate flags a bimodal cell that did not change (a false alarm), by simulation.

The heap peak of data+full is bimodal: in some runs a 16 MiB buffer of the fetch is still alive
while the bitmap is decoded (~16.8 MB higher). If the current runs land in the high mode more often
than the baseline's, the median jumps past the allowance. This script draws gates from that
mixture, fitted to results/baseline.json, and applies the gate's rule as `bench compare` does
(median growth > max(absolute, relative x baseline median) AND the exact one-sided Mann-Whitney
p, ties included, below the level; or the growth alone when the values' ties make the level
unreachable), at several levels.

The model, per allocator: a run's value is one of the baseline's low-mode values (drawn with
replacement, so page and byte ties are kept) plus 16.8 MB with probability q, where q is the
high-mode rate observed in the baseline (at least 1 in 10, so that a mode the baseline did not
catch is still exercised). Deterministic: a fixed seed.

Usage: python3 scripts/gate_simulation.py [--gates 20000] [--baseline results/baseline.json]
"""
import argparse
import json
import random
import statistics
from math import comb

HIGH_MODE_BYTES = 16_800_000


def p_greater(sample, reference):
    """Exact P(U >= observed) over every split of the pooled values (the gate's MannWhitneyU), and
    the smallest p these values can give (P(U >= its largest possible value))."""
    n1, n2 = len(sample), len(reference)
    twice_u = sum(2 if s > r else 1 for s in sample for r in reference if s >= r)
    pooled = sorted(sample + reference)
    groups = []
    for value in pooled:
        if groups and groups[-1][0] == value:
            groups[-1][1] += 1
        else:
            groups.append([value, 1])
    counts = {(0, 0): 1}
    below = 0
    for _, size in groups:
        following = {}
        for (i, s), ways in counts.items():
            for a in range(0, min(size, n1 - i) + 1):
                b = size - a
                if below - i + b > n2:
                    continue
                key = (i + a, s + a * (2 * (below - i) + b))
                following[key] = following.get(key, 0) + ways * comb(size, a)
        counts = following
        below += size
    total = comb(n1 + n2, n1)
    final = {s: w for (i, s), w in counts.items() if i == n1}
    return sum(w for s, w in final.items() if s >= twice_u) / total, final[max(final)] / total


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", default="results/baseline.json")
    parser.add_argument("--thresholds", default="results/thresholds.json")
    parser.add_argument("--gates", type=int, default=20000)
    parser.add_argument("--current-runs", type=int, default=5)
    parser.add_argument("--rate", type=float, help="the high-mode rate q instead of the baseline's (at least 0.1)")
    options = parser.parse_args()
    trials = json.load(open(options.baseline))["trials"]
    tolerance = json.load(open(options.thresholds))["metrics"]["peak_allocated_delta_bytes"]
    rng = random.Random(11)
    for allocator in ("jemalloc", "system"):
        values = [r["peakHeapExactBytes"] - r["baselineHeapExactBytes"] for r in trials
                  if r["strategy"] == "data" and r["render"] == "full" and r["allocator"] == allocator]
        low_median = statistics.median(values)
        low = [v for v in values if v < low_median + HIGH_MODE_BYTES / 2]
        high = len(values) - len(low)
        q = options.rate if options.rate is not None else max(high / len(values), 0.1)
        draw = lambda: rng.choice(low) + (HIGH_MODE_BYTES if rng.random() < q else 0)
        flagged = {0.05: 0, 0.005: 0}
        for _ in range(options.gates):
            baseline = [draw() for _ in range(len(values))]
            current = [draw() for _ in range(options.current_runs)]
            base_median = statistics.median(baseline)
            allowed = max(tolerance["absolute_bytes"], abs(base_median) * tolerance["relative_percent"] / 100)
            if statistics.median(current) - base_median <= allowed:
                continue
            p, smallest = p_greater(current, baseline)
            for level in flagged:
                # As the gate: when the ties make the level unreachable, the allowance decides alone.
                if p < level or smallest >= level:
                    flagged[level] += 1
        print(f"{allocator}: {high} of {len(values)} baseline runs in the high mode; q = {q:.2f}; "
              f"{len(values)} baseline vs {options.current_runs} current runs, {options.gates} gates: "
              + ", ".join(f"flagged at {level}: {count / options.gates * 100:.2f} %" for level, count in flagged.items()))


if __name__ == "__main__":
    main()
