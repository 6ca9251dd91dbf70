#!/usr/bin/env python3
"""The module graph: every module of Package.swift, the process it runs in, and what it imports.

Prints the graph as a Markdown table from `swift package dump-package` (so it matches Package.swift,
whose declared dependencies scripts/check-imports.py checks against the imports). With
`--check FILE`, exits 1 when FILE's block between <!-- module-graph --> and <!-- /module-graph -->
differs (naming the first differing line); with `--write FILE`, rewrites that block.
A target missing from RUNS_IN below is an error: each new module says where it runs.
"""
import argparse
import json
import os
import subprocess
import sys

# Where each module's code runs: the parent (`bench run`, which plans, serves and reports), the
# measured child (`bench _trial`, `bench _scenario`, `bench _server`), both (the same executable), or only in a
# maintainer's or test's process.
# C targets and system libraries are listed with the Swift modules that import them.
RUNS_IN = {
    "BenchCore": "both", "BenchCommandLine": "both", "ImageMemoryBench": "both", "bench": "both",
    "Harness": "both", "Scenarios": "both", "Imaging": "both",
    "Probe": "child", "Strategies": "child", "DownloadPublisher": "child", "ImageServer": "child",
    "LoopbackServer": "parent", "Report": "parent", "Corpus": "parent", "Measuring": "parent",
    "ReferenceDocuments": "maintainers", "bench-reference": "maintainers", "BenchFuzz": "maintainers",
    "TestSupport": "tests",
}
WHAT = {
    "parent": "parent", "child": "child", "both": "parent and child",
    "maintainers": "maintainers' tools", "tests": "tests",
}
ORDER = ["both", "child", "parent", "maintainers", "tests"]
BEGIN, END = "<!-- module-graph -->", "<!-- /module-graph -->"


def dump(path):
    if path:
        with open(path) as f:
            return json.load(f)
    out = subprocess.run(["swift", "package", "dump-package"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def is_c(target):
    """A system library or a C target: folded into its importers' last column, not a row."""
    if target["type"] == "system":
        return True
    folder = target.get("path") or os.path.join("Tests" if target["type"] == "test" else "Sources", target["name"])
    return any(name.endswith(".c") for _, _, files in os.walk(folder) for name in files)


def graph(package):
    ours = {t["name"] for t in package["targets"]}
    c_modules = {t["name"] for t in package["targets"] if is_c(t)}
    rows, missing = [], []
    for target in package["targets"]:
        if target["type"] == "test" or target["name"] in c_modules:
            continue
        name = target["name"]
        if name not in RUNS_IN:
            missing.append(name)
            continue
        deps, outside = [], []
        for dep in target.get("dependencies", []):
            if "byName" in dep or "target" in dep:
                deps.append((dep.get("byName") or dep.get("target"))[0])
            elif "product" in dep:
                outside.append(dep["product"][0])
        mine = sorted(d for d in deps if d in ours and d not in c_modules)
        shims = sorted(d for d in deps if d in c_modules)
        rows.append((ORDER.index(RUNS_IN[name]), name, WHAT[RUNS_IN[name]],
                     ", ".join(mine) or "–", ", ".join(shims + outside) or "–"))
    if missing:
        raise SystemExit(f"module-graph: say where {', '.join(missing)} runs (RUNS_IN in scripts/module-graph.py)")
    rows.sort()
    lines = ["| module | runs in | imports of ours | C shims and outside packages |", "|---|---|---|---|"]
    lines += [f"| {name} | {where} | {mine} | {other} |" for _, name, where, mine, other in rows]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dump", help="a saved `swift package dump-package` output")
    parser.add_argument("--check", metavar="FILE")
    parser.add_argument("--write", metavar="FILE")
    args = parser.parse_args()
    table = graph(dump(args.dump))
    target = args.check or args.write
    if not target:
        sys.stdout.write(table)
        return 0
    text = open(target, encoding="utf-8").read()
    if BEGIN not in text or END not in text:
        print(f"module-graph: {target} has no {BEGIN} ... {END} block", file=sys.stderr)
        return 1
    head, rest = text.split(BEGIN, 1)
    current, tail = rest.split(END, 1)
    if args.write:
        with open(target, "w", encoding="utf-8") as f:
            f.write(head + BEGIN + "\n" + table + END + tail)
        return 0
    if current.strip() != table.strip():
        old, new = current.strip().splitlines(), table.strip().splitlines()
        first = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
        print(f"module-graph: {target}'s graph differs from Package.swift at row {first + 1}: "
              f"run `python3 scripts/module-graph.py --write {target}`", file=sys.stderr)
        return 1
    print(f"module-graph: {target} matches Package.swift")
    return 0


if __name__ == "__main__":
    sys.exit(main())
