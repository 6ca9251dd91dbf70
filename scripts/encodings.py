#!/usr/bin/env python3
"""What the encoding costs: the same picture in every encoding, full, thumbnail and stream, both
allocators, a few runs each, each run in a fresh child (`bench run`, download strategy: the
body goes to a file, so the peak is the decoder's), plus the peer: vipsthumbnail on the same
files at the same output size.

vipsthumbnail is an external command: each run is its own child, and its peak is the child's
maximum RSS from wait4 (ru_maxrss, the kernel's high-water mark over the child's whole life).
Its baseline is the same measure on a tiny image of the same encoding (start-up, libvips and the
codec loaded), so the delta is what the picture costs, as our rows' delta over a warmed-up child.

Writes OUT/encodings.csv, one row per run (ours and the peer's), with each of our rows' floor (the
output bitmap: what the job needs at the least). Beside it, what our children's peaks are made of:
OUT/encodings-holders.csv (holders.csv's rows without the stacks, the encoding first: who holds each
heap peak, by role) and OUT/encodings-residency.csv (residency.csv's rows, the encoding first: the
peak RSS by category). Rows are rewritten after every encoding, so an interrupted run keeps what it
measured. With --encoding, the rows of the other encodings already in these files are kept
(re-measure one encoding).

Usage: scripts/encodings.py --bench .build/release/bench --out results [--runs 3] [--encoding E ...]
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

from output_files import output_files

ENCODINGS = ["jpeg", "jpeg-progressive", "jpeg-444", "jpeg-progressive-444", "png-rgb", "png-rgb-interlaced",
             "png-rgba", "png-rgba-interlaced", "webp-lossy", "webp-lossless", "heic", "avif"]
COLUMNS = ["encoding", "tool", "render", "allocator", "run", "payload_bytes", "image_width", "image_height",
           "output_width", "output_height", "peak_rss_delta_bytes", "peak_heap_delta_bytes", "status", "error",
           "tool_version", "render_seconds", "floor_bytes"]


def copied_columns(bench):
    """The columns of encodings-holders.csv and encodings-residency.csv: holders.csv's (without the call
    stack: holders.folded and a run's own holders.csv keep those) and residency.csv's, the encoding
    first, as bench declares them (`bench list --output-files --json`), never a copy of its lists."""
    columns = {name: entry["columns"] for name, entry in output_files(bench, "encodings").items()}
    holders = ["encoding"] + [column for column in columns["holders.csv"] if column != "stack"]
    return holders, ["encoding"] + columns["residency.csv"]


def thumbnail_size(rows, encoding):
    """The size our thumbnail renderer gave this encoding (its rows' output size): vipsthumbnail is
    asked for the same, so the two are compared at one output size whatever rule bench follows."""
    sizes = {(row["output_width"], row["output_height"]) for row in rows
             if row["encoding"] == encoding and row["render"] == "thumbnail" and row["status"] == "ok"}
    if len(sizes) != 1:
        sys.exit(f"encodings: our thumbnail runs of {encoding} gave {len(sizes)} output sizes, expected one")
    width, height = sizes.pop()
    return int(width), int(height)


def fixture(bench, encoding, width, height, cache, out):
    subprocess.run([bench, "fixture", "--encoding", encoding, "--width", str(width), "--height", str(height),
                    "--fixture-cache", cache, "--out", out], check=True, stdout=subprocess.DEVNULL)
    return os.path.getsize(out)


def peak_kb(command):
    """Runs `command` as a child; its peak RSS in kB (wait4's ru_maxrss) and exit status."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    stderr = process.stderr.read().decode(errors="replace").strip()
    process.stderr.close()
    return usage.ru_maxrss, os.waitstatus_to_exitcode(status), stderr


def vips(vipsthumbnail, source, size, scratch):
    output = os.path.join(scratch, "thumbnail.v")  # libvips' own format: no encoder on the way out
    return peak_kb([vipsthumbnail, source, "--size", f"{size[0]}x{size[1]}", "-o", output])


def ours(bench, encoding, width, height, runs, max_pixel, cache, scratch, copied):
    folder = os.path.join(scratch, f"run-{encoding}")
    command = [bench, "run", "--encoding", encoding, "--width", str(width), "--height", str(height),
               "--strategy", "download", "--render", "full", "--render", "thumbnail", "--render", "stream",
               "--allocator", "system", "--allocator", "jemalloc", "--runs", str(runs),
               "--max-pixel", str(max_pixel), "--fixture-cache", cache, "--out", folder]
    status = subprocess.run(command, stdout=subprocess.DEVNULL).returncode
    if status not in (0, 3):  # 3: some runs failed, each is a row
        sys.exit(f"encodings: {' '.join(command)} exited {status}")
    # The decode time of each child (renderSeconds) is in trials.json only.
    with open(os.path.join(folder, "trials.json")) as file:
        seconds = {(t["render"], t["allocator"], str(t["run"])): t.get("renderSeconds")
                   for t in json.load(file)["trials"]}
    rows = []
    holder_columns, residency_columns = copied
    holders = read_rows(os.path.join(folder, "holders.csv"), encoding, holder_columns)
    residency = read_rows(os.path.join(folder, "residency.csv"), encoding, residency_columns)
    with open(os.path.join(folder, "trials.csv"), newline="") as file:
        for trial in csv.DictReader(file):
            rows.append({
                "encoding": encoding, "tool": "ours", "render": trial["render"], "allocator": trial["allocator"],
                "run": trial["run"], "payload_bytes": trial["payload_bytes"],
                "image_width": width, "image_height": height,
                "output_width": trial["image_width"], "output_height": trial["image_height"],
                "peak_rss_delta_bytes": trial["peak_rss_delta_bytes"],
                "peak_heap_delta_bytes": trial["peak_heap_exact_delta_bytes"] or trial["peak_allocated_delta_bytes"],
                "status": trial["status"], "error": trial["error"], "tool_version": "",
                "render_seconds": seconds.get((trial["render"], trial["allocator"], trial["run"])) or "",
                "floor_bytes": trial["floor_bytes"],
            })
    shutil.rmtree(folder, ignore_errors=True)
    return rows, holders, residency


def read_rows(path, encoding, columns):
    """A run folder's CSV rows, the encoding first, in `columns` (a column the file lacks stays empty)."""
    if not os.path.exists(path):
        return []
    with open(path, newline="") as file:
        return [{column: encoding if column == "encoding" else row.get(column, "") for column in columns}
                for row in csv.DictReader(file)]


def kept_rows(path, encodings):
    """The rows of `path` for encodings other than `encodings` (re-measuring some keeps the others)."""
    if not encodings or not os.path.exists(path):
        return []
    with open(path, newline="") as file:
        return [row for row in csv.DictReader(file) if row["encoding"] not in encodings]


def write(rows, path, columns=COLUMNS):
    temporary = path + ".tmp"
    with open(temporary, "w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=columns, lineterminator="\n", extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    os.replace(temporary, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", default=".build/release/bench")
    parser.add_argument("--out", required=True, help="folder for encodings.csv")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--width", type=int, default=6000)
    parser.add_argument("--height", type=int, default=4000)
    parser.add_argument("--max-pixel", type=int, default=1024)
    parser.add_argument("--encoding", action="append", choices=ENCODINGS, help="default: all")
    parser.add_argument("--fixture-cache", default=None, help="default: bench's own cache")
    parser.add_argument("--vipsthumbnail", default=shutil.which("vipsthumbnail"))
    args = parser.parse_args()
    if not args.vipsthumbnail:
        sys.exit("encodings: vipsthumbnail is missing; run scripts/setup.sh (libvips-tools)")
    if args.runs < 1:
        sys.exit(f"encodings: --runs must be at least 1 (got {args.runs})")
    os.makedirs(args.out, exist_ok=True)
    cache = args.fixture_cache or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                                               "image-memory-bench", "fixtures")
    version = subprocess.run([args.vipsthumbnail, "--vips-version"], capture_output=True, text=True).stdout.strip()
    path = os.path.join(args.out, "encodings.csv")
    holders_path = os.path.join(args.out, "encodings-holders.csv")
    residency_path = os.path.join(args.out, "encodings-residency.csv")
    rows = kept_rows(path, args.encoding)
    holders = kept_rows(holders_path, args.encoding)
    residency = kept_rows(residency_path, args.encoding)
    copied = copied_columns(args.bench)
    with tempfile.TemporaryDirectory(prefix="bench-encodings-") as scratch:
        for encoding in args.encoding or ENCODINGS:
            print(f"encodings: {encoding}", file=sys.stderr, flush=True)
            our_rows, our_holders, our_residency = ours(args.bench, encoding, args.width, args.height, args.runs,
                                                        args.max_pixel, cache, scratch, copied)
            rows += our_rows
            size = thumbnail_size(our_rows, encoding)
            holders += our_holders
            residency += our_residency
            picture = os.path.join(scratch, f"picture-{encoding}")
            tiny = os.path.join(scratch, f"tiny-{encoding}")
            payload = fixture(args.bench, encoding, args.width, args.height, cache, picture)
            fixture(args.bench, encoding, 64, 48, cache, tiny)
            for run in range(1, args.runs + 1):
                base_kb, base_status, base_error = vips(args.vipsthumbnail, tiny, (32, 24), scratch)
                peak, status, error = vips(args.vipsthumbnail, picture, size, scratch)
                ok = status == 0 and base_status == 0
                rows.append({
                    "encoding": encoding, "tool": "vipsthumbnail", "render": "thumbnail", "allocator": "system",
                    "run": run, "payload_bytes": payload, "image_width": args.width, "image_height": args.height,
                    "output_width": size[0], "output_height": size[1],
                    "peak_rss_delta_bytes": (peak - base_kb) * 1024 if ok else "", "peak_heap_delta_bytes": "",
                    "status": "ok" if ok else "failed",
                    "error": "" if ok else f"exit {status}: {error or base_error}"[:300],
                    "tool_version": version, "render_seconds": "", "floor_bytes": "",
                })
            for table in (rows, holders, residency):
                table.sort(key=lambda row: ENCODINGS.index(row["encoding"]))  # stable: runs stay in order
            write(rows, path)
            write(holders, holders_path, copied[0])
            write(residency, residency_path, copied[1])
    print(f"encodings: {len(rows)} rows in {os.path.join(args.out, 'encodings.csv')}", file=sys.stderr)


if __name__ == "__main__":
    main()
