// The operations of drive.h: each opens its own decoder, so that any of them can run on any thread.
#include "drive.h"

#include <CPNGCodec.h>
#include <CStreamJPEG.h>
#include <CWebPCodec.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>

static uint64_t fnv1a(const uint8_t *p, size_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

static int fits(int width, int height) {
    return width > 0 && height > 0 && (uint64_t)width * (uint64_t)height <= SZ_MAX_PIXELS;
}

void sz_probe(struct sz_input *in) {
    const uint8_t *p = in->data;
    size_t n = in->size;
    in->format = SZ_OTHER;
    in->width = in->height = 0;
    if (n >= 2 && p[0] == 0xFF && p[1] == 0xD8) {
        in->format = SZ_JPEG;
        streamjpeg_decoder *d = streamjpeg_create();
        if (d && streamjpeg_open_memory(d, p, n) == STREAMJPEG_OK) {
            in->width = streamjpeg_width(d);
            in->height = streamjpeg_height(d);
        }
        streamjpeg_destroy(d);
    } else if (n >= 8 && memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0) {
        in->format = SZ_PNG;
        pngcodec_decoder *d = pngcodec_decoder_create();
        if (d && pngcodec_decoder_open_memory(d, p, n) == PNGCODEC_OK) {
            in->width = pngcodec_decoder_width(d);
            in->height = pngcodec_decoder_height(d);
        }
        pngcodec_decoder_destroy(d);
    } else if (n >= 12 && memcmp(p, "RIFF", 4) == 0 && memcmp(p + 8, "WEBP", 4) == 0) {
        in->format = SZ_WEBP;
        if (!WebPGetInfo(p, n, &in->width, &in->height)) in->width = in->height = 0;
    }
}

int sz_load(const char *path, struct sz_input *in) {
    memset(in, 0, sizeof *in);
    in->path = path;
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t capacity = 65536;
    in->data = malloc(capacity);
    for (size_t got; in->data && (got = fread(in->data + in->size, 1, capacity - in->size, f)) > 0;) {
        in->size += got;
        if (in->size == capacity) {
            uint8_t *grown = realloc(in->data, capacity *= 2);
            if (!grown) {
                free(in->data);
                in->data = NULL;
            }
            in->data = grown;
        }
    }
    fclose(f);
    if (!in->data) return 0;
    sz_probe(in);
    return 1;
}

void sz_unload(struct sz_input *in) {
    free(in->data);
    in->data = NULL;
}

static int clamp_size(int v, int limit) { return v < 1 ? 1 : v > limit ? limit : v; }

int sz_ops(const struct sz_input *in, int full, struct sz_op *ops) {
    int n = 0, w = in->width, h = in->height, longest = w > h ? w : h;
    if (!fits(w, h)) return 0;
#define OP(K, A, B) (ops[n++] = (struct sz_op){(K), (A), (B)})
    switch (in->format) {
    case SZ_JPEG:
        OP(SZ_JPEG_COEFFICIENTS, 0, 0);
        if (!full) {  // as the fuzz target: a size from the input's length, and one scaled decode
            OP(SZ_JPEG_RENDER_MEMORY, 1 + (int)(in->size * 37 % 97), 0);
            OP(SZ_JPEG_SCALED, 1 + (int)(in->size % 8), (int)(in->size / 8 % 2));
            break;
        }
        // A long side of longest x M / 8 chooses the DCT scale M (or the next one up), then resamples.
        for (int m = 1; m <= 8; m++) OP(SZ_JPEG_RENDER_MEMORY, clamp_size(longest * m / 8, longest), 0);
        OP(SZ_JPEG_RENDER_MEMORY, 1, 0);
        OP(SZ_JPEG_RENDER_MEMORY, clamp_size(longest * 3 / 8 + 1, longest), 0);
        OP(SZ_JPEG_RENDER_FILE, longest, 0);
        OP(SZ_JPEG_RENDER_FILE, clamp_size(longest / 5, longest), 0);
        for (int m = 1; m <= 8; m++)
            for (int convert = 0; convert <= 1; convert++) OP(SZ_JPEG_SCALED, m, convert);
        break;
    case SZ_PNG:
        OP(SZ_PNG_STREAM_MEMORY, clamp_size(w / 2, w), clamp_size(h / 3, h));
        OP(SZ_PNG_STREAM_FILE, w, h);
        if (!full) break;
        OP(SZ_PNG_STREAM_MEMORY, w, h);
        OP(SZ_PNG_STREAM_MEMORY, 1, 1);
        OP(SZ_PNG_STREAM_MEMORY, clamp_size((w + 1) / 2, w), clamp_size((h + 1) / 2, h));
        OP(SZ_PNG_STREAM_MEMORY, clamp_size(w / 3, w), clamp_size(h / 7, h));
        OP(SZ_PNG_STREAM_FILE, clamp_size(w * 2 / 3, w), clamp_size(h / 2, h));
        OP(SZ_PNG_FULL, w, h);
        OP(SZ_PNG_BOX, clamp_size(w / 2, w), clamp_size(h / 2, h));
        OP(SZ_PNG_BOX, 1, 1);
        break;
    case SZ_WEBP:
        OP(SZ_WEBP_STREAM_FILE, clamp_size(w / 2, w), clamp_size(h / 2, h));
        OP(SZ_WEBP_MEMORY, w, h);
        if (!full) break;
        OP(SZ_WEBP_STREAM_FILE, w, h);
        OP(SZ_WEBP_STREAM_FILE, 1, 1);
        OP(SZ_WEBP_STREAM_FILE, clamp_size(w / 3, w), clamp_size(h / 5, h));
        OP(SZ_WEBP_MEMORY, clamp_size(w / 2, w), clamp_size(h / 3, h));
        break;
    }
#undef OP
    return n;
}

const char *sz_describe(const struct sz_op *op, char *text, size_t size) {
    static const char *const names[] = {
        "jpeg coefficients",
        "jpeg render (memory) max_pixel",
        "jpeg render (file) max_pixel",
        "jpeg scaled M/convert",
        "png stream (memory)",
        "png stream (file)",
        "png full",
        "png box",
        "webp stream (file)",
        "webp memory",
    };
    snprintf(text, size, "%s %d/%d", names[op->kind], op->a, op->b);
    return text;
}

static struct sz_result jpeg_coefficients(const struct sz_input *in) {
    struct sz_result result = {STREAMJPEG_NO_MEMORY, 1469598103934665603ULL};
    streamjpeg_decoder *d = streamjpeg_create();
    if (!d) return result;
    if ((result.status = streamjpeg_open_memory(d, in->data, in->size)) == STREAMJPEG_OK) {
        int count = streamjpeg_components(d), wide = 0, rows = 0;
        for (int c = 0; c < count; c++) {
            int w = 0, h = 0;
            streamjpeg_component_blocks(d, c, &w, &h);
            if (w > wide) wide = w;
        }
        size_t capacity = (size_t)wide * 64 * 4;  // v block rows, v at most 4
        int16_t *row = malloc(capacity * sizeof *row);
        for (int r = 0; row && r < streamjpeg_mcu_rows(d) && result.status == STREAMJPEG_OK; r++) {
            if ((result.status = streamjpeg_decode_row(d)) != STREAMJPEG_OK) break;
            for (int c = 0; c < count && result.status == STREAMJPEG_OK; c++) {
                int w = 0, h = 0;
                streamjpeg_component_blocks(d, c, &w, &h);
                result.status = streamjpeg_row_coefficients(d, c, row, capacity, &rows);
                if (result.status == STREAMJPEG_OK)
                    result.hash ^=
                        fnv1a((const uint8_t *)row, (size_t)rows * (size_t)w * 64 * sizeof *row) + (uint64_t)r;
            }
        }
        if (!row) result.status = STREAMJPEG_NO_MEMORY;
        free(row);
    }
    streamjpeg_destroy(d);
    return result;
}

static struct sz_result jpeg_render(const struct sz_input *in, int from_file, int max_pixel) {
    struct sz_result result = {STREAMJPEG_NO_MEMORY, 0};
    streamjpeg_decoder *d = streamjpeg_create();
    if (!d) return result;
    int width, height, m;
    result.status = from_file ? streamjpeg_open_file(d, in->path) : streamjpeg_open_memory(d, in->data, in->size);
    if (result.status == STREAMJPEG_OK) result.status = streamjpeg_set_output(d, max_pixel, &width, &height, &m);
    if (result.status == STREAMJPEG_OK) {
        size_t bytes = (size_t)width * (size_t)height * 4;
        uint8_t *pixels = malloc(bytes);
        result.status = pixels ? streamjpeg_render_rgba(d, pixels, bytes) : STREAMJPEG_NO_MEMORY;
        if (result.status == STREAMJPEG_OK) result.hash = fnv1a(pixels, bytes);
        free(pixels);
    }
    streamjpeg_destroy(d);
    return result;
}

static struct sz_result jpeg_scaled(const struct sz_input *in, int m, int convert) {
    struct sz_result result = {STREAMJPEG_NO_MEMORY, 0};
    streamjpeg_decoder *d = streamjpeg_create();
    if (!d) return result;
    if ((result.status = streamjpeg_open_memory(d, in->data, in->size)) == STREAMJPEG_OK) {
        size_t width = ((size_t)streamjpeg_width(d) * (size_t)m + 7) / 8;
        size_t height = ((size_t)streamjpeg_height(d) * (size_t)m + 7) / 8;
        size_t bytes = width * height * (size_t)(convert ? 3 : streamjpeg_components(d));
        uint8_t *pixels = malloc(bytes ? bytes : 1);
        result.status = pixels ? streamjpeg_render_scaled(d, m, convert, pixels, bytes) : STREAMJPEG_NO_MEMORY;
        if (result.status == STREAMJPEG_OK) result.hash = fnv1a(pixels, bytes);
        free(pixels);
    }
    streamjpeg_destroy(d);
    return result;
}

static struct sz_result png(const struct sz_input *in, int kind, int width, int height) {
    struct sz_result result = {PNGCODEC_NO_MEMORY, 0};
    pngcodec_decoder *d = pngcodec_decoder_create();
    if (!d) return result;
    result.status = kind == SZ_PNG_STREAM_FILE ? pngcodec_decoder_open_file(d, in->path)
                                               : pngcodec_decoder_open_memory(d, in->data, in->size);
    if (result.status == PNGCODEC_OK) {
        size_t bytes = (size_t)width * (size_t)height * 4;
        uint8_t *pixels = malloc(bytes);
        if (!pixels)
            result.status = PNGCODEC_NO_MEMORY;
        else if (kind == SZ_PNG_FULL)
            result.status = pngcodec_decoder_read_rgba(d, pixels, bytes);
        else if (kind == SZ_PNG_BOX)
            result.status = pngcodec_decoder_read_rgba_box(d, pixels, bytes, width, height);
        else
            result.status = pngcodec_decoder_read_rgba_stream(d, pixels, bytes, width, height);
        if (result.status == PNGCODEC_OK) result.hash = fnv1a(pixels, bytes);
        free(pixels);
    }
    pngcodec_decoder_destroy(d);
    return result;
}

static struct sz_result webp(const struct sz_input *in, int kind, int width, int height) {
    struct sz_result result = {WEBPCODEC_NO_MEMORY, 0};
    char message[256];
    size_t bytes = (size_t)width * (size_t)height * 4;
    uint8_t *pixels = malloc(bytes);
    if (!pixels) return result;
    if (kind == SZ_WEBP_STREAM_FILE)
        result.status = webpcodec_stream_file_rgba(in->path, pixels, bytes, width, height, message, sizeof message);
    else
        result.status =
            webpcodec_decode_rgba(in->data, in->size, pixels, bytes, width, height, message, sizeof message);
    if (result.status == WEBPCODEC_OK) result.hash = fnv1a(pixels, bytes);
    free(pixels);
    return result;
}

struct sz_result sz_run(const struct sz_input *in, const struct sz_op *op) {
    switch (op->kind) {
    case SZ_JPEG_COEFFICIENTS: return jpeg_coefficients(in);
    case SZ_JPEG_RENDER_MEMORY: return jpeg_render(in, 0, op->a);
    case SZ_JPEG_RENDER_FILE: return jpeg_render(in, 1, op->a);
    case SZ_JPEG_SCALED: return jpeg_scaled(in, op->a, op->b);
    case SZ_PNG_STREAM_MEMORY:
    case SZ_PNG_STREAM_FILE:
    case SZ_PNG_FULL:
    case SZ_PNG_BOX: return png(in, op->kind, op->a, op->b);
    default: return webp(in, op->kind, op->a, op->b);
    }
}
