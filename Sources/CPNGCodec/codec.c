// libpng shim: every entry point that calls libpng sets its own setjmp (png_jmpbuf), so a
// libpng error unwinds only C frames and comes back as a status code and a message.
#pragma clang diagnostic error "-Wall"
#pragma clang diagnostic error "-Wextra"
#include "internal.h"

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include <CResample.h>

// MARK: Errors

void pngcodec_on_error(png_structp png, png_const_charp text) {
    struct pngcodec_message *m = (struct pngcodec_message *)png_get_error_ptr(png);
    snprintf(m->text, sizeof m->text, "%s", text);
    png_longjmp(png, 1);
}

// libpng warns about things that do not change the pixels (an odd iCCP profile, a bad
// ancillary chunk it skips); corrupt image data is an error, reported through on_error.
void pngcodec_on_warning(png_structp png, png_const_charp text) {
    (void)png;
    (void)text;
}

// MARK: Decoder

static void read_memory(png_structp png, png_bytep out, size_t count) {
    pngcodec_decoder *d = (pngcodec_decoder *)png_get_io_ptr(png);
    if (count > d->size - d->position) png_error(png, "truncated PNG: the data ends early");
    memcpy(out, d->data + d->position, count);
    d->position += count;
}

pngcodec_decoder *pngcodec_decoder_create(void) {
    pngcodec_decoder *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &d->message, pngcodec_on_error, pngcodec_on_warning);
    d->info = d->png ? png_create_info_struct(d->png) : NULL;
    if (!d->info) {
        pngcodec_decoder_destroy(d);
        return NULL;
    }
    // libpng keeps every text chunk, EXIF, the ICC profile and suggested palettes in info (megabytes
    // in a photograph's export) though no pixel depends on them: handled as unknown chunks never kept,
    // they are read through a small buffer for their CRC and dropped. Unknown chunks likewise.
    static const png_byte metadata[] = "tEXt\0zTXt\0iTXt\0eXIf\0iCCP\0sPLT";
    png_set_keep_unknown_chunks(d->png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
    png_set_keep_unknown_chunks(d->png, PNG_HANDLE_CHUNK_NEVER, metadata, (int)(sizeof metadata / 5));
    return d;
}

void pngcodec_decoder_destroy(pngcodec_decoder *d) {
    if (!d) return;
    if (d->png) png_destroy_read_struct(&d->png, d->info ? &d->info : NULL, NULL);
    if (d->file) fclose(d->file);
    free(d);
}

int pngcodec_fail(pngcodec_decoder *d, int status, const char *text) {
    if (text) snprintf(d->message.text, sizeof d->message.text, "%s", text);
    d->state = DEC_FAILED;
    return status;
}

// Reads the signature and every chunk before the first IDAT, then sets the RGBA transforms.
static int read_header(pngcodec_decoder *d) {
    if (setjmp(png_jmpbuf(d->png))) return pngcodec_fail(d, PNGCODEC_FAILED, NULL);
    png_read_info(d->png, d->info);
    d->width = png_get_image_width(d->png, d->info);
    d->height = png_get_image_height(d->png, d->info);
    d->interlaced = png_get_interlace_type(d->png, d->info) == PNG_INTERLACE_ADAM7;
    png_set_expand(d->png);  // palette to RGB, gray below 8 bits to 8, tRNS to alpha
    png_set_strip_16(d->png);
    png_set_gray_to_rgb(d->png);
    png_set_add_alpha(d->png, 0xFF, PNG_FILLER_AFTER);  // opaque alpha where there is none
    d->state = DEC_OPEN;
    return PNGCODEC_OK;
}

int pngcodec_decoder_open_memory(pngcodec_decoder *d, const void *data, size_t size) {
    if (d->state != DEC_CREATED) return pngcodec_fail(d, PNGCODEC_BAD_ARGUMENT, "decoder already opened");
    d->data = data;
    d->size = size;
    png_set_read_fn(d->png, d, read_memory);
    return read_header(d);
}

int pngcodec_decoder_open_file(pngcodec_decoder *d, const char *path) {
    if (d->state != DEC_CREATED) return pngcodec_fail(d, PNGCODEC_BAD_ARGUMENT, "decoder already opened");
    d->file = fopen(path, "rb");
    if (!d->file) {
        snprintf(d->message.text, sizeof d->message.text, "cannot open %s: %s", path, strerror(errno));
        return pngcodec_fail(d, PNGCODEC_IO, NULL);
    }
    png_init_io(d->png, d->file);
    return read_header(d);
}

int pngcodec_decoder_width(const pngcodec_decoder *d) { return (int)d->width; }
int pngcodec_decoder_height(const pngcodec_decoder *d) { return (int)d->height; }
int pngcodec_decoder_interlaced(const pngcodec_decoder *d) { return d->interlaced; }
const char *pngcodec_decoder_message(const pngcodec_decoder *d) { return d->message.text; }

int pngcodec_decoder_read_rgba(pngcodec_decoder *d, void *dst, size_t dst_size) {
    if (d->state != DEC_OPEN) return pngcodec_fail(d, PNGCODEC_BAD_ARGUMENT, "read_rgba needs an opened decoder");
    size_t stride = (size_t)d->width * 4;
    if (dst_size < stride * d->height) return pngcodec_fail(d, PNGCODEC_BAD_ARGUMENT, "destination too small");
    if (setjmp(png_jmpbuf(d->png))) return pngcodec_fail(d, PNGCODEC_FAILED, NULL);
    int passes = png_set_interlace_handling(d->png);  // Adam7: every pass refines rows in dst
    png_read_update_info(d->png, d->info);
    if (png_get_rowbytes(d->png, d->info) != stride)
        return pngcodec_fail(d, PNGCODEC_FAILED, "unexpected row size after transforms");
    for (int pass = 0; pass < passes; pass++)
        for (png_uint_32 y = 0; y < d->height; y++) png_read_row(d->png, (png_bytep)dst + y * stride, NULL);
    png_read_end(d->png, NULL);
    d->state = DEC_DONE;
    return PNGCODEC_OK;
}

// MARK: Streaming box downscale

// Largest number of source pixels one output pixel's box holds.
static uint64_t max_box_area(int width, int height, int out_width, int out_height) {
    uint64_t columns = ((uint64_t)width + out_width - 1) / out_width + 1;
    uint64_t rows = ((uint64_t)height + out_height - 1) / out_height + 1;
    return columns * rows;
}

uint64_t pngcodec_box_working_bytes(int width, int height, int interlaced, int out_width, int out_height) {
    uint64_t row = (uint64_t)width * 4 + (uint64_t)width * sizeof(uint32_t) + (uint64_t)out_width * 4;
    if (!interlaced) return row + (uint64_t)out_width * 4 * sizeof(uint32_t);
    uint64_t per_sum = max_box_area(width, height, out_width, out_height) * 255 <= UINT16_MAX ? 2 : 4;
    return row + (uint64_t)out_height * 4 + (uint64_t)out_width * out_height * 4 * per_sum;
}

// The output pixel of source column x (or row): floor(x * out / size).
static int map(png_uint_32 x, int out, png_uint_32 size) { return (int)(((uint64_t)x * (uint64_t)out) / size); }

// Non-interlaced: rows arrive top to bottom; one row of sums is flushed into dst when the
// next output row starts.
static int box_sequential(pngcodec_decoder *d, uint8_t *dst, int ow, int oh, uint8_t *row, const uint32_t *xmap,
                          const uint32_t *column_count, uint32_t *sums) {
    int current = 0;
    uint32_t rows_in_box = 0;
    for (png_uint_32 y = 0; y <= d->height; y++) {
        int oy = y < d->height ? map(y, oh, d->height) : oh;
        if (oy != current) {  // flush output row `current`
            uint8_t *out = dst + (size_t)current * ow * 4;
            for (int i = 0; i < ow * 4; i++) {
                uint32_t count = column_count[i / 4] * rows_in_box;
                out[i] = (uint8_t)((sums[i] + count / 2) / count);
            }
            memset(sums, 0, (size_t)ow * 4 * sizeof *sums);
            current = oy;
            rows_in_box = 0;
        }
        if (y == d->height) break;
        png_read_row(d->png, row, NULL);
        rows_in_box++;
        for (png_uint_32 x = 0; x < d->width; x++) {
            uint32_t *sum = sums + xmap[x] * 4;
            const uint8_t *pixel = row + (size_t)x * 4;
            sum[0] += pixel[0];
            sum[1] += pixel[1];
            sum[2] += pixel[2];
            sum[3] += pixel[3];
        }
    }
    return PNGCODEC_OK;
}

// Adam7 without libpng's interlace handling: each pass is a small image of its own whose
// pixels are added straight into their output pixel's sums.
#define DEFINE_BOX_INTERLACED(NAME, SUM_T)                                                                             \
    static int NAME(pngcodec_decoder *d, uint8_t *dst, int ow, int oh, uint8_t *row, const uint32_t *xmap,             \
                    const uint32_t *column_count, const uint32_t *row_count, SUM_T *sums) {                            \
        for (int pass = 0; pass < 7; pass++) {                                                                         \
            png_uint_32 columns = PNG_PASS_COLS(d->width, pass), rows = PNG_PASS_ROWS(d->height, pass);                \
            if (columns == 0 || rows == 0) continue; /* libpng skips empty passes too */                               \
            for (png_uint_32 r = 0; r < rows; r++) {                                                                   \
                png_read_row(d->png, row, NULL);                                                                       \
                SUM_T *line = sums + (size_t)map(PNG_ROW_FROM_PASS_ROW(r, pass), oh, d->height) * ow * 4;              \
                for (png_uint_32 c = 0; c < columns; c++) {                                                            \
                    SUM_T *sum = line + xmap[PNG_COL_FROM_PASS_COL(c, pass)] * 4;                                      \
                    const uint8_t *pixel = row + (size_t)c * 4;                                                        \
                    sum[0] += pixel[0];                                                                                \
                    sum[1] += pixel[1];                                                                                \
                    sum[2] += pixel[2];                                                                                \
                    sum[3] += pixel[3];                                                                                \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
        for (size_t i = 0; i < (size_t)ow * oh * 4; i++) {                                                             \
            uint32_t count = column_count[(i / 4) % ow] * row_count[i / 4 / ow];                                       \
            dst[i] = (uint8_t)((sums[i] + count / 2) / count);                                                         \
        }                                                                                                              \
        return PNGCODEC_OK;                                                                                            \
    }
DEFINE_BOX_INTERLACED(box_interlaced16, uint16_t)
DEFINE_BOX_INTERLACED(box_interlaced32, uint32_t)

int pngcodec_decoder_read_rgba_box(pngcodec_decoder *d, void *dst, size_t dst_size, int out_width, int out_height) {
    if (d->state != DEC_OPEN) return pngcodec_fail(d, PNGCODEC_BAD_ARGUMENT, "read_rgba_box needs an opened decoder");
    if (out_width < 1 || out_height < 1 || (png_uint_32)out_width > d->width || (png_uint_32)out_height > d->height)
        return pngcodec_fail(d, PNGCODEC_BAD_ARGUMENT, "thumbnail size must be between 1 and the image size");
    if (dst_size < (size_t)out_width * out_height * 4)
        return pngcodec_fail(d, PNGCODEC_BAD_ARGUMENT, "destination too small");
    // Volatile across setjmp: freed on both paths.
    uint8_t *volatile row = malloc((size_t)d->width * 4);
    uint32_t *volatile xmap = malloc((size_t)d->width * sizeof(uint32_t));
    uint32_t *volatile column_count = calloc((size_t)out_width, sizeof(uint32_t));
    uint32_t *volatile row_count = calloc((size_t)out_height, sizeof(uint32_t));
    int narrow = max_box_area((int)d->width, (int)d->height, out_width, out_height) * 255 <= UINT16_MAX;
    size_t sums_size = !d->interlaced
        ? (size_t)out_width * 4 * sizeof(uint32_t)
        : (size_t)out_width * out_height * 4 * (narrow ? sizeof(uint16_t) : sizeof(uint32_t));
    void *volatile sums = calloc(sums_size, 1);
    int status;
    if (!row || !xmap || !column_count || !row_count || !sums) {
        status = pngcodec_fail(d, PNGCODEC_NO_MEMORY, "out of memory for the thumbnail's rows");
    } else if (setjmp(png_jmpbuf(d->png))) {
        status = pngcodec_fail(d, PNGCODEC_FAILED, NULL);
    } else {
        for (png_uint_32 x = 0; x < d->width; x++) {
            xmap[x] = (uint32_t)map(x, out_width, d->width);
            column_count[xmap[x]]++;
        }
        for (png_uint_32 y = 0; y < d->height; y++) row_count[map(y, out_height, d->height)]++;
        png_read_update_info(d->png, d->info);
        if (png_get_rowbytes(d->png, d->info) != (size_t)d->width * 4) {
            status = pngcodec_fail(d, PNGCODEC_FAILED, "unexpected row size after transforms");
        } else if (!d->interlaced) {
            status = box_sequential(d, dst, out_width, out_height, row, xmap, column_count, sums);
        } else if (narrow) {
            status = box_interlaced16(d, dst, out_width, out_height, row, xmap, column_count, row_count, sums);
        } else {
            status = box_interlaced32(d, dst, out_width, out_height, row, xmap, column_count, row_count, sums);
        }
        if (status == PNGCODEC_OK) {
            png_read_end(d->png, NULL);
            d->state = DEC_DONE;
        }
    }
    free(row);
    free(xmap);
    free(column_count);
    free(row_count);
    free(sums);
    return status;
}

// MARK: Streaming to the output size (the stream renderer)

// Rows top to bottom through the resampler. Owns the setjmp: r and row stay the caller's.
static int stream_rows(pngcodec_decoder *d, uint8_t *row, struct resample_state *r) {
    if (setjmp(png_jmpbuf(d->png))) return pngcodec_fail(d, PNGCODEC_FAILED, NULL);
    png_read_update_info(d->png, d->info);
    if (png_get_rowbytes(d->png, d->info) != (size_t)d->width * 4)
        return pngcodec_fail(d, PNGCODEC_FAILED, "unexpected row size after transforms");
    for (png_uint_32 y = 0; y < d->height; y++) {
        png_read_row(d->png, row, NULL);
        resample_push(r, row);
    }
    png_read_end(d->png, NULL);
    return PNGCODEC_OK;
}

int pngcodec_decoder_read_rgba_stream(pngcodec_decoder *d, void *dst, size_t dst_size, int out_width, int out_height) {
    if (d->state != DEC_OPEN)
        return pngcodec_fail(d, PNGCODEC_BAD_ARGUMENT, "read_rgba_stream needs an opened decoder");
    if (out_width < 1 || out_height < 1 || (png_uint_32)out_width > d->width || (png_uint_32)out_height > d->height)
        return pngcodec_fail(d, PNGCODEC_BAD_ARGUMENT, "output size must be between 1 and the image size");
    if (dst_size < (size_t)out_width * out_height * 4)
        return pngcodec_fail(d, PNGCODEC_BAD_ARGUMENT, "destination too small");
    int status;
    if (d->interlaced) {
        status = pngcodec_adam7_stream(d, dst, out_width, out_height);
    } else {
        struct resample_state r;
        uint8_t *row = malloc((size_t)d->width * 4);
        if (!resample_init(&r, (int)d->width, (int)d->height, out_width, out_height, 4, dst) || !row)
            status = pngcodec_fail(d, PNGCODEC_NO_MEMORY, "out of memory for the working rows");
        else
            status = stream_rows(d, row, &r);
        resample_free(&r);
        free(row);
    }
    if (status == PNGCODEC_OK) d->state = DEC_DONE;
    return status;
}

// MARK: Encoder

struct pngcodec_encoder {
    png_structp png;
    png_infop info;
    struct pngcodec_message message;
    int status, width, height, alpha, passes;
    uint8_t *row;  // RGBA staging row when alpha is asked for
    uint8_t *out;
    size_t out_size, out_capacity;
};

static void write_memory(png_structp png, png_bytep data, size_t count) {
    pngcodec_encoder *e = (pngcodec_encoder *)png_get_io_ptr(png);
    if (count > e->out_capacity - e->out_size) {
        size_t capacity = e->out_capacity ? e->out_capacity : 65536;
        while (count > capacity - e->out_size) capacity *= 2;
        uint8_t *grown = realloc(e->out, capacity);
        if (!grown) png_error(png, "out of memory for the encoded PNG");
        e->out = grown;
        e->out_capacity = capacity;
    }
    memcpy(e->out + e->out_size, data, count);
    e->out_size += count;
}

static void flush_memory(png_structp png) { (void)png; }

pngcodec_encoder *pngcodec_encoder_create(int width, int height, int alpha, int interlaced, int compression_level) {
    pngcodec_encoder *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->width = width;
    e->height = height;
    e->alpha = alpha;
    e->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &e->message, pngcodec_on_error, pngcodec_on_warning);
    e->info = e->png ? png_create_info_struct(e->png) : NULL;
    e->row = malloc((size_t)width * 4);
    if (!e->info || !e->row) {
        pngcodec_encoder_destroy(e);
        return NULL;
    }
    if (setjmp(png_jmpbuf(e->png))) {
        e->status = PNGCODEC_FAILED;
        return e;
    }
    png_set_write_fn(e->png, e, write_memory, flush_memory);
    png_set_IHDR(e->png, e->info, (png_uint_32)width, (png_uint_32)height, 8,
                 alpha ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB,
                 interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(e->png, compression_level);
    png_write_info(e->png, e->info);
    e->passes = interlaced ? png_set_interlace_handling(e->png) : 1;
    return e;
}

void pngcodec_encoder_destroy(pngcodec_encoder *e) {
    if (!e) return;
    if (e->png) png_destroy_write_struct(&e->png, e->info ? &e->info : NULL);
    free(e->row);
    free(e->out);
    free(e);
}

int pngcodec_encoder_status(const pngcodec_encoder *e) { return e->status; }
int pngcodec_encoder_passes(const pngcodec_encoder *e) { return e->passes; }
const char *pngcodec_encoder_message(const pngcodec_encoder *e) { return e->message.text; }

int pngcodec_encoder_write_rgb_row(pngcodec_encoder *e, const uint8_t *rgb, int y) {
    if (e->status != PNGCODEC_OK) return e->status;
    const uint8_t *row = rgb;
    if (e->alpha) {
        // A vignette from 255 at the centre to 55 in the corners: integer-only, so deterministic.
        int64_t dy = ((int64_t)2 * y - e->height) * 256 / e->height;
        for (int x = 0; x < e->width; x++) {
            int64_t dx = ((int64_t)2 * x - e->width) * 256 / e->width;
            memcpy(e->row + (size_t)x * 4, rgb + (size_t)x * 3, 3);
            e->row[(size_t)x * 4 + 3] = (uint8_t)(255 - (dx * dx + dy * dy) * 200 / 131072);
        }
        row = e->row;
    }
    if (setjmp(png_jmpbuf(e->png))) return e->status = PNGCODEC_FAILED;
    png_write_row(e->png, (png_const_bytep)row);
    return PNGCODEC_OK;
}

int pngcodec_encoder_finish(pngcodec_encoder *e, uint8_t **out, size_t *out_size) {
    if (e->status != PNGCODEC_OK) return e->status;
    if (setjmp(png_jmpbuf(e->png))) return e->status = PNGCODEC_FAILED;
    png_write_end(e->png, NULL);
    *out = e->out;
    *out_size = e->out_size;
    e->out = NULL;
    return PNGCODEC_OK;
}
