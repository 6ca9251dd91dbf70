#!/usr/bin/env python3
"""Every import of one of this package's modules is a direct dependency of the importing target,
and no library product reaches the maintainers' targets (this repository's document generators).

SwiftPM's --explicit-target-dependency-import-check accepts a module reached through another
dependency; this check does not: a target that imports Probe names Probe in Package.swift.
Reads `swift package dump-package` (or a saved dump given as the only argument) and the sources.
Exits 0 when both hold, 1 naming each undeclared import or reached target, 2 when the dump cannot be read.
"""
import json
import os
import re
import subprocess
import sys

# `import X`, `@testable import X`, `public import X`, `import struct X.Y`, `@_exported import X`...
IMPORT = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?"
    r"import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?([A-Za-z_][A-Za-z0-9_]*)"
)
# `#if canImport(X)` guards an import that may be absent; the guarded import still counts.

# Targets that make this repository's own documents (README.md, results/REPORT.md, SCENARIO.md).
MAINTAINER_ONLY = {"ReferenceDocuments", "bench-reference"}


def load_dump(argv):
    if len(argv) > 1:
        with open(argv[1]) as f:
            return json.load(f)
    out = subprocess.run(["swift", "package", "dump-package"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def target_dir(target):
    if target.get("path"):
        return target["path"]
    top = "Tests" if target["type"] == "test" else "Sources"
    return os.path.join(top, target["name"])


def declared(target):
    names = set()
    for dep in target.get("dependencies", []):
        for kind in ("byName", "target"):
            if kind in dep:
                names.add(dep[kind][0])
        # A product of this package would be named with package nil; none is used that way here.
    return names


def imports_in(folder):
    found = {}
    for root, _, files in os.walk(folder):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(root, name)
            with open(path, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    match = IMPORT.match(line)
                    if match:
                        found.setdefault(match.group(1), []).append(f"{path}:{number}")
    return found


def main(argv):
    try:
        dump = load_dump(argv)
    except (OSError, ValueError, subprocess.CalledProcessError) as error:
        print(f"check-imports: cannot read the package description: {error}", file=sys.stderr)
        return 2
    ours = {t["name"] for t in dump["targets"]}
    problems = []
    for target in dump["targets"]:
        folder = target_dir(target)
        if not os.path.isdir(folder):
            continue
        allowed = declared(target) | {target["name"]}
        for module, places in sorted(imports_in(folder).items()):
            if module in ours and module not in allowed:
                problems.append(f"{target['name']} imports {module} without depending on it ({places[0]}"
                                + (f" and {len(places) - 1} more" if len(places) > 1 else "") + ")")
    by_name = {t["name"]: t for t in dump["targets"]}
    for product in dump["products"]:
        if "library" not in product["type"]:
            continue
        reached, todo = set(), list(product["targets"])
        while todo:
            name = todo.pop()
            if name in reached or name not in by_name:
                continue
            reached.add(name)
            todo.extend(declared(by_name[name]))
        for name in sorted(reached & MAINTAINER_ONLY):
            problems.append(f"the library product {product['name']} reaches {name}, which only this repository's "
                            "maintainers may use")
    for problem in problems:
        print(f"check-imports: {problem}", file=sys.stderr)
    if problems:
        print(f"check-imports: {len(problems)} problems; declare each import in the target's dependencies in "
              "Package.swift or drop it, and keep the maintainers' targets out of every product", file=sys.stderr)
        return 1
    print(f"check-imports: every import of this package's {len(ours)} modules is declared; "
          f"no library product reaches {', '.join(sorted(MAINTAINER_ONLY))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
