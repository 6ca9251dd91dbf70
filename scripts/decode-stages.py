#!/usr/bin/env python3
"""Where the stream renderer's decode time goes, by stage, from `perf script` of `bench render`.

Reads `perf script -F ip,sym,dso` output on stdin (one line per sample: the function the sample is in,
its own time only; a function inlined into another counts with its caller) and prints one CSV row
per stage: encoding,stage,samples. A sample in none of the stages' functions (the process's start,
reading the file, writing the output) is `other`; REPORT.md's shares leave it out. The stages and
their functions: Sources/CStreamJPEG (decoder.c, render.c), Sources/CPNGCodec/adam7.c, zlib and
Sources/CResample.

usage: perf script -F ip,sym,dso -i perf.data | decode-stages.py ENCODING >> decode-stages.csv
"""
import re
import sys

# (stage, the functions of ours whose self time it is; the libraries whose every function is).
STAGES = [
    (
        "entropy decoding",
        {
            "decode_sequential", "decode_dc_first", "decode_dc_refine", "decode_ac_first", "decode_ac_refine",
            "decode_ac_refine_9", "decode_ac_refine_with", "refine", "fill_bits", "decode_long_code", "bad_code",
            "cursor_decode_row", "process_restart", "check_scan_end", "streamjpeg_decode_row", "start_cursors",
        },
        (),
    ),
    # The IDCT and the colour conversion are inlined into render_rows, so one stage holds both.
    (
        "IDCT and colour conversion",
        {
            "render_rows", "idct_block", "idct_row", "idct_sized", "idct_1d", "convert_ycc_row", "convert_row",
            "ycc_to_rgb", "cmyk_to_rgb", "gather_row", "copy_row",
        },
        (),
    ),
    ("zlib: inflate and checksums", {"feed", "inflate_exactly", "finish_stream"}, ("libz.so",)),
    ("unfiltering and placing rows", {"unfilter", "paeth", "place", "sample", "eight_bits", "stream_rows"}, ()),
    (
        "resampling",
        {
            "resample_push", "push_to_resampler", "resample_init", "emit_row", "add_row", "emit_pixels", "average_across",
            "average_across_pixelwise",
        },
        (),
    ),
]
STAGE_NAMES = [name for name, _, _ in STAGES] + ["other"]


def stage_of(symbol, library):
    for name, functions, libraries in STAGES:
        if symbol in functions or any(part in library for part in libraries):
            return name
    return "other"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: decode-stages.py ENCODING < perf-script-output")
    encoding = sys.argv[1]
    counts = dict.fromkeys(STAGE_NAMES, 0)
    for line in sys.stdin:
        match = re.match(r"\s*[0-9a-f]+\s+(.*)\s+\((.*)\)\s*$", line)
        if not match:
            continue
        counts[stage_of(match.group(1).strip(), match.group(2))] += 1
    if sum(counts.values()) - counts["other"] == 0:
        sys.exit(f"decode-stages: no sample of {encoding} is in a decoding stage (is perf resolving bench's symbols?)")
    for stage in STAGE_NAMES:
        print(f"{encoding},{stage},{counts[stage]}")


if __name__ == "__main__":
    main()
