#!/usr/bin/env python3
"""The module graph: every module of Package.swift, the process it runs in, and what it imports.

Prints the graph as a Markdown table from `swift package dump-package` (so it matches Package.swift,
whose declared dependencies scripts/check-imports.py checks against the imports). With
`--check FILE`, exits 1 when FILE's block between <!-- module-graph --> and <!-- /module-graph -->
differs (naming the first differing line); with `--write FILE`, rewrites that block.
With `--drawing`, the same graph as a Mermaid drawing (a box per module, grouped by the process it
runs in, an arrow for each import that no longer path implies), for docs/ARCHITECTURE.md's block
between <!-- module-drawing --> and <!-- /module-drawing --> (`--drawing --check/--write FILE`).
A target missing from RUNS_IN below is an error: each new module says where it runs.
"""
import argparse
import json
import os
import subprocess
import sys

# Where each module's code runs: the parent (`bench run`, which plans, serves and reports), the
# measured child (`bench _trial`, `bench _list-scroll`, `bench _server`), both (the same executable), or only in a
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
DRAWING_BEGIN, DRAWING_END = "<!-- module-drawing -->", "<!-- /module-drawing -->"


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


def modules(package):
    """(order, name, runs in, our Swift modules it imports, its C shims and outside packages), sorted."""
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
        rows.append((ORDER.index(RUNS_IN[name]), name, RUNS_IN[name], mine, shims + outside))
    if missing:
        raise SystemExit(f"module-graph: say where {', '.join(missing)} runs (RUNS_IN in scripts/module-graph.py)")
    return sorted(rows)


def table(rows):
    lines = ["| module | runs in | imports of ours | C shims and outside packages |", "|---|---|---|---|"]
    lines += [f"| {name} | {WHAT[where]} | {', '.join(mine) or '–'} | {', '.join(other) or '–'} |"
              for _, name, where, mine, other in rows]
    return "\n".join(lines) + "\n"


def drawing(rows):
    """A Mermaid flowchart: subgraphs by process, an arrow A --> B where A imports B and no other
    import path leads from A to B (the transitive reduction: the table has every import)."""
    imports = {name: set(mine) for _, name, _, mine, _ in rows}

    def reaches(start, goal, skip):
        seen, todo = set(), [m for m in imports[start] if m != skip]
        while todo:
            module = todo.pop()
            if module == goal:
                return True
            if module not in seen:
                seen.add(module)
                todo.extend(imports.get(module, ()))
        return False

    ident = {name: name.replace("-", "_") for name in imports}
    lines = ["```mermaid", "flowchart TD"]
    for where in ORDER:
        names = [name for _, name, w, _, _ in rows if w == where]
        if names:
            lines.append(f'  subgraph {where}["{WHAT[where]}"]')
            lines += [f'    {ident[name]}["{name}"]' for name in names]
            lines.append("  end")
    for _, name, _, mine, _ in rows:
        lines += [f"  {ident[name]} --> {ident[dep]}" for dep in mine if not reaches(name, dep, skip=dep)]
    lines.append("```")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dump", help="a saved `swift package dump-package` output")
    parser.add_argument("--check", metavar="FILE")
    parser.add_argument("--write", metavar="FILE")
    parser.add_argument("--drawing", action="store_true", help="the Mermaid drawing instead of the table")
    args = parser.parse_args()
    rows = modules(dump(args.dump))
    block = drawing(rows) if args.drawing else table(rows)
    begin, end = (DRAWING_BEGIN, DRAWING_END) if args.drawing else (BEGIN, END)
    target = args.check or args.write
    if not target:
        sys.stdout.write(block)
        return 0
    text = open(target, encoding="utf-8").read()
    if begin not in text or end not in text:
        print(f"module-graph: {target} has no {begin} ... {end} block", file=sys.stderr)
        return 1
    head, rest = text.split(begin, 1)
    current, tail = rest.split(end, 1)
    if args.write:
        with open(target, "w", encoding="utf-8") as f:
            f.write(head + begin + "\n" + block + end + tail)
        return 0
    if current.strip() != block.strip():
        old, new = current.strip().splitlines(), block.strip().splitlines()
        first = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
        print(f"module-graph: {target}'s graph differs from Package.swift at row {first + 1}: "
              f"run `python3 scripts/module-graph.py{' --drawing' if args.drawing else ''} --write {target}`",
              file=sys.stderr)
        return 1
    print(f"module-graph: {target} matches Package.swift")
    return 0


if __name__ == "__main__":
    sys.exit(main())
