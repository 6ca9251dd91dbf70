#!/usr/bin/env python3
"""The sanitizer run's source pictures and PNG fixtures (scripts/sanitize.sh makes the JPEG and WebP
ones from the pictures with cjpeg, jpegtran and cwebp).

    fixtures.py DIR

DIR/source-WxH.ppm and .pgm: deterministic pictures with texture and edges (odd sizes: partial MCUs).
DIR/png-*.png: every PNG colour type at every bit depth it allows, plain and Adam7 interlaced, rows
filtered with each of the five filters in turn and the image data split over several IDAT chunks;
small sizes where some Adam7 passes are empty; palettes with and without tRNS.
"""
import random
import struct
import sys
import zlib

SOURCES = [(61, 43), (203, 157), (1, 1), (17, 9)]


def picture(width, height, seed):
    rng = random.Random(seed)
    pixels = []
    for y in range(height):
        row = []
        for x in range(width):
            edge = 255 if (x // 8 + y // 8) % 2 else 30
            row.append(((x * 4 + rng.randint(0, 20)) % 256, (y * 6 + x) % 256, edge))
        pixels.append(row)
    return pixels


def write_pnm(path, pixels, gray):
    height, width = len(pixels), len(pixels[0])
    body = bytearray()
    for row in pixels:
        for r, g, b in row:
            body += bytes([(r * 299 + g * 587 + b * 114) // 1000]) if gray else bytes([r, g, b])
    with open(path, "wb") as f:
        f.write(b"%s\n%d %d\n255\n" % (b"P5" if gray else b"P6", width, height) + body)


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def filtered(rows, bpp):
    """Each row with its filter byte: filter type = row index mod 5."""
    out, previous = bytearray(), bytes(len(rows[0])) if rows else b""
    for index, row in enumerate(rows):
        kind = index % 5
        line = bytearray([kind])
        for i, value in enumerate(row):
            a = row[i - bpp] if i >= bpp else 0
            b = previous[i]
            c = previous[i - bpp] if i >= bpp else 0
            predictor = [0, a, b, (a + b) // 2, paeth(a, b, c)][kind]
            line.append((value - predictor) % 256)
        out += line
        previous = row
    return out


def pack(samples, depth):
    """Samples (ints) of one row packed at `depth` bits, big-endian, padded to a byte."""
    if depth == 16:
        return b"".join(struct.pack(">H", s) for s in samples)
    if depth == 8:
        return bytes(samples)
    out, accumulator, bits = bytearray(), 0, 0
    for s in samples:
        accumulator = (accumulator << depth) | s
        bits += depth
        if bits == 8:
            out.append(accumulator)
            accumulator, bits = 0, 0
    if bits:
        out.append(accumulator << (8 - bits))
    return bytes(out)


ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def write_png(path, width, height, color_type, depth, interlaced, pixels, transparency=False):
    channels = CHANNELS[color_type]
    maximum = (1 << depth) - 1

    def samples(x, y):
        r, g, b = pixels[y % len(pixels)][x % len(pixels[0])]
        alpha = (x * 37 + y * 11) % 256
        scale = lambda v: v * maximum // 255  # noqa: E731
        if color_type == 0:
            return [scale((r + g + b) // 3)]
        if color_type == 3:
            return [(x + y * 3) % (1 << depth)]
        if color_type == 4:
            return [scale((r + g + b) // 3), scale(alpha)]
        values = [scale(r), scale(g), scale(b)]
        return values + [scale(alpha)] if color_type == 6 else values

    bpp = max(1, channels * depth // 8)
    passes = ADAM7 if interlaced else [(0, 0, 1, 1)]
    data = bytearray()
    for x0, y0, dx, dy in passes:
        xs, ys = range(x0, width, dx), range(y0, height, dy)
        if not xs or not ys:
            continue
        rows = [pack([s for x in xs for s in samples(x, y)], depth) for y in ys]
        data += filtered(rows, bpp)
    compressed = zlib.compress(bytes(data), 9)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, color_type, 0, 0,
                                                                 1 if interlaced else 0))
    if color_type == 3:
        entries = 1 << depth
        png += chunk(b"PLTE", bytes(v for i in range(entries) for v in ((i * 73) % 256, (i * 151) % 256, i % 256)))
        if transparency:
            png += chunk(b"tRNS", bytes((i * 97) % 256 for i in range(min(entries, 5))))
    elif transparency and color_type in (0, 2):
        png += chunk(b"tRNS", struct.pack(">HHH", 1, 1, 1)[: 2 if color_type == 0 else 6])
    png += chunk(b"tEXt", b"Comment\x00sanitizer fixture")
    for i in range(0, len(compressed), 97):  # several IDAT chunks: the readers cross their boundaries
        png += chunk(b"IDAT", compressed[i:i + 97])
    png += chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)


def main():
    folder = sys.argv[1]
    for index, (width, height) in enumerate(SOURCES):
        pixels = picture(width, height, index + 1)
        write_pnm(f"{folder}/source-{width}x{height}.ppm", pixels, gray=False)
        write_pnm(f"{folder}/source-{width}x{height}.pgm", pixels, gray=True)
    pixels = picture(37, 23, 7)
    depths = {0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]}
    for interlaced in (False, True):
        mode = "adam7" if interlaced else "plain"
        for color_type, allowed in depths.items():
            for depth in allowed:
                write_png(f"{folder}/png-{mode}-type{color_type}-{depth}bit-37x23.png", 37, 23, color_type, depth,
                          interlaced, pixels)
        for color_type, depth in ((0, 8), (2, 8), (3, 4)):
            write_png(f"{folder}/png-{mode}-type{color_type}-{depth}bit-trns-37x23.png", 37, 23, color_type, depth,
                      interlaced, pixels, transparency=True)
        for width, height in ((1, 1), (3, 2), (9, 1), (1, 9), (8, 8), (5, 13)):  # empty Adam7 passes
            for color_type in (2, 6):
                write_png(f"{folder}/png-{mode}-type{color_type}-8bit-{width}x{height}.png", width, height, color_type,
                          8, interlaced, pixels)
    write_png(f"{folder}/png-adam7-type2-8bit-203x157.png", 203, 157, 2, 8, True, picture(203, 157, 2))
    write_png(f"{folder}/png-plain-type6-8bit-203x157.png", 203, 157, 6, 8, False, picture(203, 157, 2))


if __name__ == "__main__":
    main()
