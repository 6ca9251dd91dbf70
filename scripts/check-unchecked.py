#!/usr/bin/env python3
"""Swift 6's checks are switched off in at most LIMIT places of Sources, each with its reason.

`@unchecked Sendable` and `nonisolated(unsafe)` tell the compiler to trust us about a data race. Each
one must say why beside it: a comment in the lines just above it that names the escape hatch
("`@unchecked Sendable`: ..."). Exits 1 naming every place over the limit or without a reason.

Usage: check-unchecked.py [--limit N] [--sources Sources]
"""
import argparse
import pathlib
import re
import sys

ESCAPE = re.compile(r"@unchecked Sendable|nonisolated\(unsafe\)")
# How far above the declaration its reason may start (a doc comment of a few lines).
REASON_LINES = 8


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=4)
    parser.add_argument("--sources", default="Sources", type=pathlib.Path)
    args = parser.parse_args()
    places, unexplained = [], []
    for path in sorted(args.sources.rglob("*.swift")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, 1):
            code = line.split("//", 1)[0]
            match = ESCAPE.search(code)
            if not match:
                continue
            places.append(f"{path}:{number}")
            above = lines[max(0, number - 1 - REASON_LINES):number - 1]
            reason = f"`{match.group(0)}`:"
            if not any(text.lstrip().startswith("//") and reason in text for text in above):
                unexplained.append(f"{path}:{number}: no comment above it that starts its reason with {reason}")
    print(f"check-unchecked: {len(places)} @unchecked Sendable / nonisolated(unsafe) in {args.sources} "
          f"(at most {args.limit})")
    status = 0
    if len(places) > args.limit:
        print(f"check-unchecked: {len(places)} places, over the limit of {args.limit}:", *places, sep="\n  ",
              file=sys.stderr)
        status = 1
    if unexplained:
        print("check-unchecked: without their reason:", *unexplained, sep="\n  ", file=sys.stderr)
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
