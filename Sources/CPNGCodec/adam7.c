// Adam7 PNG for the stream renderer, read with zlib directly. The seven passes follow one
// another in the image data, and each covers the whole image: libpng either holds the image
// (interlace handling) or hands out pass rows in file order. Here a first pass inflates the
// data up to the last pass, discarding it, and copies the inflate state (inflateCopy) where each
// earlier pass starts; the first pass's own state then goes on as the last pass's. The seven
// states advance together, each reading the file from its own position, so every image row is
// built from the current row of the passes it holds. What is held: seven inflate states (a 32 KB
// window each), two rows a pass, one image row and the resampler's rows.
//
// Time: the data is inflated once, and the part before the last pass (passes 1-6: half the
// pixels) twice, once to find where each pass starts. That is the floor of one state a pass:
// a pass's start is known only by inflating what comes before it, and a state cannot be made
// there without the 32 KB of output before it. A pass's copied state computes no Adler-32 (the
// last pass's state, which has inflated everything before it, checks the stream's).
#pragma clang diagnostic error "-Wall"
#pragma clang diagnostic error "-Wextra"
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include <CResample.h>

#define READ_CHUNK 8192  // bytes a cursor reads from the file at a time

static const int start_x[7] = {0, 4, 0, 2, 0, 1, 0}, start_y[7] = {0, 0, 4, 0, 2, 0, 1};
static const int step_x[7] = {8, 8, 4, 4, 2, 2, 1}, step_y[7] = {8, 8, 8, 4, 4, 2, 2};

// A position in the image data, which IDAT chunks split: the next byte's offset in the file (or
// the caller's bytes) and how many bytes of its chunk are left from there.
struct cursor {
    int fd;               // the file, read with pread; -1 for memory
    const uint8_t *data;  // memory, read in place
    size_t size;
    uint64_t offset;
    uint32_t left;
    uint8_t *buffer;  // file only: READ_CHUNK bytes
    int check_crc;    // the first pass checks every chunk's CRC
    uint32_t crc;
};

struct pass {
    z_stream z;
    int started;  // z was initialised (inflateEnd needed)
    struct cursor cursor;
    int width, height;  // in pixels; 0 for an empty pass
    size_t row_bytes;   // filtered row without its filter byte
    uint8_t *rows;      // two rows with their filter byte: the current and the one above
    int current;        // which of the two is the current
};

struct image_layout {
    int color_type, depth, bits_per_pixel, filter_bytes;
    int channels;  // of the image row and the resampler: 3 for 8-bit RGB without tRNS (alpha all
                   // 255, which the resampler adds), else 4 (RGBA)
    png_colorp palette;
    int palette_count;
    png_bytep trans;
    int trans_count;
    png_color_16p trans_color;
    int has_trans;
};

static uint32_t big_endian(const uint8_t *b) {
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static int failed(pngcodec_decoder *d, const char *text) { return pngcodec_fail(d, PNGCODEC_FAILED, text); }

static int failed_in(pngcodec_decoder *d, const char *format, int detail) {
    snprintf(d->message.text, sizeof d->message.text, format, detail);
    return pngcodec_fail(d, PNGCODEC_FAILED, NULL);
}

// Reads count bytes at offset (a chunk's CRC and the next chunk's header). 0 if the input ends.
static int read_at(const struct cursor *c, uint64_t offset, uint8_t *dst, size_t count) {
    if (c->fd < 0) {
        if (offset > c->size || count > c->size - offset) return 0;
        memcpy(dst, c->data + offset, count);
        return 1;
    }
    return pread(c->fd, dst, count, (off_t)offset) == (ssize_t)count;
}

enum { FED, NO_MORE_DATA, FEED_FAILED };

// Gives z the next bytes of image data, never crossing a chunk's end.
static int feed(pngcodec_decoder *d, struct cursor *c, z_stream *z) {
    while (c->left == 0) {  // the chunk is done: its CRC, then the next chunk's header
        uint8_t tail[12];
        if (!read_at(c, c->offset, tail, sizeof tail)) return NO_MORE_DATA;
        if (c->check_crc && big_endian(tail) != c->crc) {
            failed(d, "IDAT: CRC error");
            return FEED_FAILED;
        }
        if (memcmp(tail + 8, "IDAT", 4) != 0) return NO_MORE_DATA;
        uint32_t length = big_endian(tail + 4);
        if (length > PNG_UINT_31_MAX) {
            failed(d, "IDAT: chunk length too large");
            return FEED_FAILED;
        }
        c->offset += sizeof tail;
        c->left = length;
        c->crc = (uint32_t)crc32(0, (const Bytef *)"IDAT", 4);
    }
    uInt count = c->left < READ_CHUNK ? c->left : READ_CHUNK;
    const uint8_t *bytes;
    if (c->fd < 0) {
        if (c->offset > c->size || count > c->size - c->offset) return NO_MORE_DATA;
        bytes = c->data + c->offset;
    } else {
        ssize_t got = pread(c->fd, c->buffer, count, (off_t)c->offset);
        if (got <= 0) return NO_MORE_DATA;
        count = (uInt)got;
        bytes = c->buffer;
    }
    if (c->check_crc) c->crc = (uint32_t)crc32(c->crc, bytes, count);
    z->next_in = (Bytef *)bytes;
    z->avail_in = count;
    c->offset += count;
    c->left -= count;
    return FED;
}

// Inflates exactly count bytes of pass `pass` into out.
static int inflate_exactly(pngcodec_decoder *d, struct cursor *c, z_stream *z, uint8_t *out, size_t count, int pass) {
    z->next_out = out;
    z->avail_out = (uInt)count;
    while (z->avail_out > 0) {
        if (z->avail_in == 0) {
            int fed = feed(d, c, z);
            if (fed == FEED_FAILED) return PNGCODEC_FAILED;
            if (fed == NO_MORE_DATA) return failed_in(d, "the image data ends early, in Adam7 pass %d", pass + 1);
        }
        int status = inflate(z, Z_NO_FLUSH);
        if (status == Z_STREAM_END && z->avail_out > 0)
            return failed_in(d, "the image data ends early, in Adam7 pass %d", pass + 1);
        if (status == Z_STREAM_END) break;
        if (status != Z_OK && status != Z_BUF_ERROR) {
            snprintf(d->message.text, sizeof d->message.text, "IDAT: %s", z->msg ? z->msg : "inflate failed");
            return pngcodec_fail(d, PNGCODEC_FAILED, NULL);
        }
    }
    return PNGCODEC_OK;
}

// After the last pass: the stream must check out (its Adler-32), as libpng requires.
static int finish_stream(pngcodec_decoder *d, struct cursor *c, z_stream *z) {
    uint8_t extra[64];
    for (;;) {
        z->next_out = extra;
        z->avail_out = sizeof extra;
        if (z->avail_in == 0) {
            int fed = feed(d, c, z);
            if (fed == FEED_FAILED) return PNGCODEC_FAILED;
            if (fed == NO_MORE_DATA) return PNGCODEC_OK;  // no end of stream: libpng only warns
        }
        int status = inflate(z, Z_NO_FLUSH);
        if (status == Z_STREAM_END) return PNGCODEC_OK;
        if (status == Z_OK && z->avail_out == 0) return PNGCODEC_OK;  // extra data: libpng only warns
        if (status != Z_OK && status != Z_BUF_ERROR) {
            snprintf(d->message.text, sizeof d->message.text, "IDAT: %s", z->msg ? z->msg : "inflate failed");
            return pngcodec_fail(d, PNGCODEC_FAILED, NULL);
        }
    }
}

static int paeth(int a, int b, int c) {
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

// The filters that read the pixel to the left, a pixel at a time, with the left pixel and the
// one above it (the corner) kept in locals: a byte's sum waits on the byte bpp before it, which
// through memory is a store and a load each time. Always inlined, so that a constant bpp (3 and
// 4: 8-bit RGB and RGBA) unrolls the channels into registers. count is a multiple of bpp.
#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE void unfilter_sub(uint8_t *x, size_t count, size_t bpp) {
    uint8_t left[8] = {0};
    for (size_t i = 0; i < count; i += bpp)
        for (size_t c = 0; c < bpp; c++) left[c] = x[i + c] = (uint8_t)(x[i + c] + left[c]);
}

ALWAYS_INLINE void unfilter_average(uint8_t *x, const uint8_t *b, size_t count, size_t bpp) {
    uint8_t left[8] = {0};
    for (size_t i = 0; i < count; i += bpp)
        for (size_t c = 0; c < bpp; c++) left[c] = x[i + c] = (uint8_t)(x[i + c] + ((left[c] + b[i + c]) >> 1));
}

ALWAYS_INLINE void unfilter_paeth(uint8_t *x, const uint8_t *b, size_t count, size_t bpp) {
    uint8_t left[8] = {0}, corner[8] = {0};
    for (size_t i = 0; i < count; i += bpp)
        for (size_t c = 0; c < bpp; c++) {
            left[c] = x[i + c] = (uint8_t)(x[i + c] + paeth(left[c], b[i + c], corner[c]));
            corner[c] = b[i + c];
        }
}

ALWAYS_INLINE void unfilter_left(int filter, uint8_t *x, const uint8_t *b, size_t count, size_t bpp) {
    if (filter == 1)
        unfilter_sub(x, count, bpp);
    else if (filter == 3)
        unfilter_average(x, b, count, bpp);
    else
        unfilter_paeth(x, b, count, bpp);
}

// Undoes the row's filter (its first byte) against the row above (all zeros for a pass's first
// row). bpp: the filter's bytes a pixel, 1 to 8. 0 for a filter type that is none of the five.
static int unfilter(uint8_t *row, const uint8_t *above, size_t count, int bpp) {
    uint8_t *x = row + 1;
    const uint8_t *b = above + 1;
    switch (row[0]) {
    case 0: return 1;
    case 2:
        for (size_t i = 0; i < count; i++) x[i] = (uint8_t)(x[i] + b[i]);
        return 1;
    case 1:
    case 3:
    case 4:
        if (bpp == 3)
            unfilter_left(row[0], x, b, count, 3);
        else if (bpp == 4)
            unfilter_left(row[0], x, b, count, 4);
        else
            unfilter_left(row[0], x, b, count, (size_t)bpp);
        return 1;
    default: return 0;
    }
}

static inline unsigned sample(const uint8_t *row, size_t index, int depth) {
    if (depth == 8) return row[index];
    if (depth == 16) return (unsigned)row[2 * index] << 8 | row[2 * index + 1];
    size_t bit = index * (size_t)depth;
    return (unsigned)(row[bit >> 3] >> (8 - depth - (int)(bit & 7))) & ((1u << depth) - 1);
}

// 8 bits as libpng's expand and strip_16 make them: low depths replicated, 16 bits' high byte.
static inline uint8_t eight_bits(unsigned v, int depth) {
    return depth == 16 ? (uint8_t)(v >> 8) : depth == 8 ? (uint8_t)v : (uint8_t)(v * 255 / ((1u << depth) - 1));
}

// One pass row's pixels into the image row, at their columns, as RGBA (or RGB: l->channels): what
// the libpng path's transforms make (palette and gray expanded, tRNS to alpha, 16 bits stripped,
// opaque alpha added). 8-bit RGB and RGBA are copied as they are.
static void place(const struct image_layout *l, const uint8_t *raw, int count, int first, int step,
                  uint8_t *image_row) {
    int depth = l->depth;
    if (l->channels == 3) {
        uint8_t *out = image_row + (size_t)first * 3;
        for (int i = 0; i < count; i++, raw += 3, out += (size_t)step * 3) memcpy(out, raw, 3);
        return;
    }
    if (depth == 8 && l->color_type == PNG_COLOR_TYPE_RGB_ALPHA) {
        uint8_t *out = image_row + (size_t)first * 4;
        for (int i = 0; i < count; i++, raw += 4, out += (size_t)step * 4) memcpy(out, raw, 4);
        return;
    }
    for (int i = 0; i < count; i++) {
        uint8_t *out = image_row + (size_t)(first + i * step) * 4;
        switch (l->color_type) {
        case PNG_COLOR_TYPE_GRAY: {
            unsigned v = sample(raw, (size_t)i, depth);
            out[0] = out[1] = out[2] = eight_bits(v, depth);
            out[3] = l->has_trans && v == l->trans_color->gray ? 0 : 255;
            break;
        }
        case PNG_COLOR_TYPE_RGB: {
            unsigned r = sample(raw, (size_t)i * 3, depth), g = sample(raw, (size_t)i * 3 + 1, depth),
                     b = sample(raw, (size_t)i * 3 + 2, depth);
            out[0] = eight_bits(r, depth);
            out[1] = eight_bits(g, depth);
            out[2] = eight_bits(b, depth);
            out[3] = l->has_trans && r == l->trans_color->red && g == l->trans_color->green && b == l->trans_color->blue
                ? 0
                : 255;
            break;
        }
        case PNG_COLOR_TYPE_PALETTE: {
            unsigned index = sample(raw, (size_t)i, depth);
            png_color color = index < (unsigned)l->palette_count ? l->palette[index] : (png_color){0, 0, 0};
            out[0] = color.red;
            out[1] = color.green;
            out[2] = color.blue;
            out[3] = index < (unsigned)l->trans_count ? l->trans[index] : 255;
            break;
        }
        case PNG_COLOR_TYPE_GRAY_ALPHA:
            out[0] = out[1] = out[2] = eight_bits(sample(raw, (size_t)i * 2, depth), depth);
            out[3] = eight_bits(sample(raw, (size_t)i * 2 + 1, depth), depth);
            break;
        default:  // RGBA
            for (int c = 0; c < 4; c++) out[c] = eight_bits(sample(raw, (size_t)i * 4 + (size_t)c, depth), depth);
        }
    }
}

static int read_layout(pngcodec_decoder *d, struct image_layout *l) {
    memset(l, 0, sizeof *l);
    l->color_type = png_get_color_type(d->png, d->info);
    l->depth = png_get_bit_depth(d->png, d->info);
    int channels = png_get_channels(d->png, d->info);
    l->bits_per_pixel = channels * l->depth;
    l->filter_bytes = l->bits_per_pixel < 8 ? 1 : l->bits_per_pixel / 8;
    if (l->color_type == PNG_COLOR_TYPE_PALETTE && !png_get_PLTE(d->png, d->info, &l->palette, &l->palette_count))
        return failed(d, "a palette image without a PLTE chunk");
    if (png_get_valid(d->png, d->info, PNG_INFO_tRNS)) {
        png_get_tRNS(d->png, d->info, &l->trans, &l->trans_count, &l->trans_color);
        l->has_trans = l->color_type == PNG_COLOR_TYPE_GRAY || l->color_type == PNG_COLOR_TYPE_RGB;
        if (l->color_type != PNG_COLOR_TYPE_PALETTE) l->trans_count = 0;
    }
    l->channels = l->color_type == PNG_COLOR_TYPE_RGB && l->depth == 8 && !l->has_trans ? 3 : 4;
    return PNGCODEC_OK;
}

// The first pass, in the last non-empty pass's own state: every earlier pass's start found by
// inflating the data up to the last pass; there its state is copied. The first pass's cursor and
// state stop where the last pass starts, and go on as that pass's.
static int find_passes(pngcodec_decoder *d, struct cursor *first, struct pass *passes, int last) {
    struct pass *final = &passes[last];
    if (inflateInit(&final->z) != Z_OK) return pngcodec_fail(d, PNGCODEC_NO_MEMORY, "out of memory for zlib");
    final->started = 1;
    uint8_t discard[8192];
    int status = PNGCODEC_OK;
    for (int p = 0; p < last && status == PNGCODEC_OK; p++) {
        struct pass *pass = &passes[p];
        if (pass->width == 0 || pass->height == 0) continue;  // libpng skips empty passes too
        if (inflateCopy(&pass->z, &final->z) != Z_OK) {
            status = pngcodec_fail(d, PNGCODEC_NO_MEMORY, "out of memory for zlib");
            break;
        }
        pass->started = 1;
        inflateValidate(&pass->z, 0);  // a pass ends inside the stream: its Adler-32 is never checked
        pass->z.next_in = NULL;        // the pass reads its own input, from where the first pass stands
        pass->z.avail_in = 0;
        pass->cursor = *first;
        pass->cursor.offset = first->offset - final->z.avail_in;
        pass->cursor.left = first->left + final->z.avail_in;
        pass->cursor.check_crc = 0;
        pass->cursor.buffer = NULL;
        size_t remaining = (size_t)pass->height * (pass->row_bytes + 1);
        while (remaining > 0 && status == PNGCODEC_OK) {
            size_t count = remaining < sizeof discard ? remaining : sizeof discard;
            status = inflate_exactly(d, first, &final->z, discard, count, p);
            remaining -= count;
        }
    }
    if (status == PNGCODEC_OK) {
        final->cursor = *first;  // its read buffer and CRC checks go on with it
        first->buffer = NULL;
    }
    return status;
}

static int stream_rows(pngcodec_decoder *d, const struct image_layout *l, struct pass *passes, uint8_t *image_row,
                       struct resample_state *r) {
    for (int y = 0; y < (int)d->height; y++) {
        for (int p = 0; p < 7; p++) {
            struct pass *pass = &passes[p];
            if (pass->width == 0 || pass->height == 0 || y < start_y[p] || (y - start_y[p]) % step_y[p] != 0) continue;
            size_t stride = pass->row_bytes + 1;
            uint8_t *row = pass->rows + (size_t)pass->current * stride;
            uint8_t *above = pass->rows + (size_t)!pass->current * stride;
            int status = inflate_exactly(d, &pass->cursor, &pass->z, row, stride, p);
            if (status != PNGCODEC_OK) return status;
            if (!unfilter(row, above, pass->row_bytes, l->filter_bytes))
                return failed_in(d, "bad adaptive filter type %d", row[0]);
            place(l, row + 1, pass->width, start_x[p], step_x[p], image_row);
            pass->current = !pass->current;
        }
        resample_push(r, image_row);
    }
    return PNGCODEC_OK;
}

int pngcodec_adam7_stream(pngcodec_decoder *d, uint8_t *dst, int out_width, int out_height) {
    struct image_layout layout;
    int status = read_layout(d, &layout);
    if (status != PNGCODEC_OK) return status;
    // libpng has read the first IDAT's length and type: its data starts here.
    struct cursor first = {.fd = d->file ? fileno(d->file) : -1, .data = d->data, .size = d->size, .check_crc = 1};
    first.offset = d->file ? (uint64_t)ftell(d->file) : d->position;
    uint8_t header[8];
    if (first.offset < 8 || !read_at(&first, first.offset - 8, header, sizeof header) || memcmp(header + 4, "IDAT", 4))
        return failed(d, "IDAT: cannot find the image data");
    first.left = big_endian(header);
    first.crc = (uint32_t)crc32(0, (const Bytef *)"IDAT", 4);

    struct pass passes[7];
    memset(passes, 0, sizeof passes);
    struct resample_state r;
    uint8_t *image_row = malloc((size_t)d->width * (size_t)layout.channels);
    int ok = resample_init(&r, (int)d->width, (int)d->height, out_width, out_height, layout.channels, dst) && image_row;
    if (d->file) ok = ok && (first.buffer = malloc(READ_CHUNK)) != NULL;
    for (int p = 0; p < 7; p++) {
        struct pass *pass = &passes[p];
        if ((int)d->width > start_x[p]) pass->width = ((int)d->width - start_x[p] + step_x[p] - 1) / step_x[p];
        if ((int)d->height > start_y[p]) pass->height = ((int)d->height - start_y[p] + step_y[p] - 1) / step_y[p];
        pass->row_bytes = ((size_t)pass->width * (size_t)layout.bits_per_pixel + 7) / 8;
        if (pass->width == 0 || pass->height == 0) continue;
        pass->rows = calloc(2, pass->row_bytes + 1);
        ok = ok && pass->rows;
    }
    int last = 6;
    while (last > 0 && (passes[last].width == 0 || passes[last].height == 0)) last--;
    if (!ok) {
        status = pngcodec_fail(d, PNGCODEC_NO_MEMORY, "out of memory for the working rows");
    } else if ((status = find_passes(d, &first, passes, last)) == PNGCODEC_OK) {
        for (int p = 0; p < last && ok; p++)
            if (passes[p].started && d->file) ok = (passes[p].cursor.buffer = malloc(READ_CHUNK)) != NULL;
        status = ok ? stream_rows(d, &layout, passes, image_row, &r)
                    : pngcodec_fail(d, PNGCODEC_NO_MEMORY, "out of memory for the read buffers");
        // After the last row: the stream must check out (its Adler-32), as libpng requires.
        if (status == PNGCODEC_OK) status = finish_stream(d, &passes[last].cursor, &passes[last].z);
    }
    for (int p = 0; p < 7; p++) {
        if (passes[p].started) inflateEnd(&passes[p].z);
        free(passes[p].cursor.buffer);
        free(passes[p].rows);
    }
    free(first.buffer);
    free(image_row);
    resample_free(&r);
    return status;
}
