// libjpeg shim: every entry point that calls libjpeg sets its own setjmp, so a
// libjpeg error unwinds only C frames, and is returned as a status code.
#pragma clang diagnostic error "-Wall"
#pragma clang diagnostic error "-Wextra"
#include "CJPEGCodec.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

int jpegcodec_library_version(void) { return LIBJPEG_TURBO_VERSION_NUMBER; }

// MARK: Errors

// Replaces libjpeg's default error manager, which prints and calls exit().
struct codec_error {
    struct jpeg_error_mgr pub;  // first, so cinfo->err can be cast back
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

static void codec_error_exit(j_common_ptr cinfo) {
    struct codec_error *err = (struct codec_error *)cinfo->err;
    (*err->pub.format_message)(cinfo, err->message);
    longjmp(err->jump, 1);
}

// Warnings that say nothing about the pixels; every other warning means corrupt
// or missing data ("Premature end of JPEG file" for a truncated body), and libjpeg
// would otherwise return a half-grey image as a success.
static int is_benign_warning(int code) {
    return code == JWRN_JFIF_MAJOR || code == JWRN_ADOBE_XFORM || code == JWRN_BOGUS_ICC;
}

static void codec_emit_message(j_common_ptr cinfo, int msg_level) {
    if (msg_level >= 0) return;  // trace messages: ignore
    cinfo->err->num_warnings++;
    if (is_benign_warning(cinfo->err->msg_code)) return;
    codec_error_exit(cinfo);  // a data warning is an error for us
}

static void codec_error_init(struct codec_error *err) {
    jpeg_std_error(&err->pub);
    err->pub.error_exit = codec_error_exit;
    err->pub.emit_message = codec_emit_message;
    err->message[0] = '\0';
}

// Status for the error that just longjmp'd.
static int status_for_error(const struct codec_error *err, int fallback) {
    switch (err->pub.msg_code) {
    case JERR_NO_SOI:
    case JERR_INPUT_EMPTY: return JPEGCODEC_NOT_JPEG;
    case JERR_OUT_OF_MEMORY: return JPEGCODEC_NO_MEMORY;
    default: return fallback;
    }
}

static void set_message(struct codec_error *err, const char *text) {
    snprintf(err->message, sizeof err->message, "%s", text);
}

// MARK: Decoder

enum { DEC_CREATED, DEC_HEADER_READ, DEC_DONE, DEC_FAILED };

struct jpegcodec_decoder {
    struct jpeg_decompress_struct cinfo;
    struct codec_error err;
    FILE *file;  // owned when decoding from a path
    int state;
};

jpegcodec_decoder *jpegcodec_decoder_create(void) {
    jpegcodec_decoder *d = calloc(1, sizeof *d);
    if (d == NULL) return NULL;
    codec_error_init(&d->err);
    d->cinfo.err = &d->err.pub;
    if (setjmp(d->err.jump)) {  // jpeg_create_decompress fails only if out of memory
        free(d);
        return NULL;
    }
    jpeg_create_decompress(&d->cinfo);
    d->state = DEC_CREATED;
    return d;
}

void jpegcodec_decoder_destroy(jpegcodec_decoder *d) {
    if (d == NULL) return;
    jpeg_destroy_decompress(&d->cinfo);  // never errors
    if (d->file != NULL) fclose(d->file);
    free(d);
}

static int decoder_fail(jpegcodec_decoder *d, int status) {
    d->state = DEC_FAILED;
    return status;
}

static int decoder_bad_call(jpegcodec_decoder *d, const char *what) {
    set_message(&d->err, what);
    return decoder_fail(d, JPEGCODEC_BAD_ARGUMENT);
}

// Reads the header once a source is installed. Must be called with the source set.
static int decoder_read_header(jpegcodec_decoder *d) {
    if (setjmp(d->err.jump)) return decoder_fail(d, status_for_error(&d->err, JPEGCODEC_DECODE_FAILED));
    jpeg_read_header(&d->cinfo, TRUE);
    d->state = DEC_HEADER_READ;
    return JPEGCODEC_OK;
}

int jpegcodec_decoder_open_memory(jpegcodec_decoder *d, const void *data, size_t size) {
    if (d->state != DEC_CREATED) return decoder_bad_call(d, "decoder already opened");
    if (setjmp(d->err.jump)) return decoder_fail(d, status_for_error(&d->err, JPEGCODEC_DECODE_FAILED));
    // Points libjpeg at the caller's bytes: no copy. Errors with "Empty input" if size is 0.
    jpeg_mem_src(&d->cinfo, (const unsigned char *)data, (unsigned long)size);
    return decoder_read_header(d);
}

int jpegcodec_decoder_open_file(jpegcodec_decoder *d, const char *path) {
    if (d->state != DEC_CREATED) return decoder_bad_call(d, "decoder already opened");
    d->file = fopen(path, "rb");
    if (d->file == NULL) {
        snprintf(d->err.message, sizeof d->err.message, "%s: %s", path, strerror(errno));
        return decoder_fail(d, JPEGCODEC_IO);
    }
    if (setjmp(d->err.jump)) return decoder_fail(d, status_for_error(&d->err, JPEGCODEC_DECODE_FAILED));
    jpeg_stdio_src(&d->cinfo, d->file);  // streams through a small buffer
    return decoder_read_header(d);
}

int jpegcodec_decoder_image_width(const jpegcodec_decoder *d) { return (int)d->cinfo.image_width; }
int jpegcodec_decoder_image_height(const jpegcodec_decoder *d) { return (int)d->cinfo.image_height; }

int jpegcodec_decoder_buffers_coefficients(const jpegcodec_decoder *d) {
    if (d->state != DEC_HEADER_READ) return 0;
    return d->cinfo.progressive_mode || jpeg_has_multiple_scans((j_decompress_ptr)&d->cinfo);
}

uint64_t jpegcodec_decoder_coefficient_bytes(const jpegcodec_decoder *d) {
    const struct jpeg_decompress_struct *c = &d->cinfo;
    if (d->state != DEC_HEADER_READ || c->num_components < 1 || c->comp_info == NULL) return 0;
    int max_h = 1, max_v = 1;
    for (int i = 0; i < c->num_components; i++) {
        if (c->comp_info[i].h_samp_factor > max_h) max_h = c->comp_info[i].h_samp_factor;
        if (c->comp_info[i].v_samp_factor > max_v) max_v = c->comp_info[i].v_samp_factor;
    }
    uint64_t total = 0;
    for (int i = 0; i < c->num_components; i++) {
        uint64_t h = (uint64_t)c->comp_info[i].h_samp_factor, v = (uint64_t)c->comp_info[i].v_samp_factor;
        uint64_t blocks_wide =
            ((uint64_t)c->image_width * h + (uint64_t)max_h * DCTSIZE - 1) / ((uint64_t)max_h * DCTSIZE);
        uint64_t blocks_high =
            ((uint64_t)c->image_height * v + (uint64_t)max_v * DCTSIZE - 1) / ((uint64_t)max_v * DCTSIZE);
        blocks_wide = (blocks_wide + h - 1) / h * h;  // libjpeg pads each buffer to whole MCUs
        blocks_high = (blocks_high + v - 1) / v * v;
        total += blocks_wide * blocks_high * DCTSIZE2 * sizeof(JCOEF);
    }
    return total;
}

int jpegcodec_decoder_set_scale(jpegcodec_decoder *d, int numerator, int *output_width, int *output_height) {
    if (d->state != DEC_HEADER_READ) return decoder_bad_call(d, "set_scale before the header or after decoding");
    if (numerator < 1 || numerator > 16) return decoder_bad_call(d, "scale numerator must be in 1...16");
    if (setjmp(d->err.jump)) return decoder_fail(d, status_for_error(&d->err, JPEGCODEC_BAD_ARGUMENT));
    d->cinfo.scale_num = (unsigned int)numerator;
    d->cinfo.scale_denom = 8;
    jpeg_calc_output_dimensions(&d->cinfo);
    *output_width = (int)d->cinfo.output_width;
    *output_height = (int)d->cinfo.output_height;
    return JPEGCODEC_OK;
}

// CMYK (YCCK is turned into CMYK by libjpeg) to RGBA, in place: both are 4 bytes a pixel.
// A file with an Adobe marker (Photoshop, and libjpeg's own writer) stores CMYK inverted, 255
// meaning no ink, so R = C * K / 255; without one, 0 means no ink.
static void cmyk_to_rgba(unsigned char *row, JDIMENSION width, int inverted) {
    for (JDIMENSION x = 0; x < width; x++, row += 4) {
        unsigned c = row[0], m = row[1], y = row[2], k = row[3];
        if (!inverted) {
            c = 255 - c;
            m = 255 - m;
            y = 255 - y;
            k = 255 - k;
        }
        row[0] = (unsigned char)((c * k + 127) / 255);
        row[1] = (unsigned char)((m * k + 127) / 255);
        row[2] = (unsigned char)((y * k + 127) / 255);
        row[3] = 255;
    }
}

int jpegcodec_decoder_read_rgba(jpegcodec_decoder *d, void *dst, size_t dst_size) {
    if (d->state != DEC_HEADER_READ) return decoder_bad_call(d, "read_rgba before the header or twice");
    if (setjmp(d->err.jump)) return decoder_fail(d, status_for_error(&d->err, JPEGCODEC_DECODE_FAILED));
    // libjpeg cannot convert CMYK or YCCK to RGB: it gives CMYK, converted here row by row.
    int cmyk = d->cinfo.jpeg_color_space == JCS_CMYK || d->cinfo.jpeg_color_space == JCS_YCCK;
    d->cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA;
    jpeg_calc_output_dimensions(&d->cinfo);  // check the caller's buffer before writing
    size_t stride = (size_t)d->cinfo.output_width * 4;
    if (d->cinfo.output_components != 4 || stride * d->cinfo.output_height > dst_size)
        return decoder_bad_call(d, "destination buffer smaller than output_width*output_height*4");

    jpeg_start_decompress(&d->cinfo);
    unsigned char *base = dst;
    while (d->cinfo.output_scanline < d->cinfo.output_height) {
        // Row pointers straight into the caller's bitmap: no intermediate copy.
        JSAMPROW rows[8];
        JDIMENSION first = d->cinfo.output_scanline;
        JDIMENSION n = d->cinfo.output_height - first;
        if (n > 8) n = 8;
        for (JDIMENSION i = 0; i < n; i++) rows[i] = base + (size_t)(first + i) * stride;
        JDIMENSION read = jpeg_read_scanlines(&d->cinfo, rows, n);
        if (cmyk)
            for (JDIMENSION i = 0; i < read; i++)
                cmyk_to_rgba(rows[i], d->cinfo.output_width, d->cinfo.saw_Adobe_marker);
    }
    jpeg_finish_decompress(&d->cinfo);
    d->state = DEC_DONE;
    return JPEGCODEC_OK;
}

const char *jpegcodec_decoder_message(const jpegcodec_decoder *d) { return d->err.message; }

// MARK: Encoder

// Our own growable memory destination instead of jpeg_mem_dest: jpeg_mem_dest loses
// track of its buffer (a leak) if compression aborts after the buffer has grown,
// and it grows by malloc + memcpy where realloc can often extend in place.
struct jpegcodec_encoder {
    struct jpeg_compress_struct cinfo;  // first, so callbacks can cast cinfo back
    struct jpeg_destination_mgr dest;
    struct codec_error err;
    uint8_t *buffer;
    size_t capacity;
    size_t size;  // valid after term_destination
    int status;
    int finished;
};

static void dest_init(j_compress_ptr cinfo) {
    jpegcodec_encoder *e = (jpegcodec_encoder *)cinfo;
    if (e->buffer == NULL) {
        e->capacity = 1 << 16;
        e->buffer = malloc(e->capacity);
        if (e->buffer == NULL) ERREXIT(cinfo, JERR_OUT_OF_MEMORY);
    }
    e->dest.next_output_byte = e->buffer;
    e->dest.free_in_buffer = e->capacity;
}

// Called when the buffer is full: double it.
static boolean dest_grow(j_compress_ptr cinfo) {
    jpegcodec_encoder *e = (jpegcodec_encoder *)cinfo;
    size_t used = e->capacity;
    uint8_t *bigger = realloc(e->buffer, e->capacity * 2);
    if (bigger == NULL) ERREXIT(cinfo, JERR_OUT_OF_MEMORY);
    e->buffer = bigger;
    e->capacity *= 2;
    e->dest.next_output_byte = e->buffer + used;
    e->dest.free_in_buffer = e->capacity - used;
    return TRUE;
}

static void dest_term(j_compress_ptr cinfo) {
    jpegcodec_encoder *e = (jpegcodec_encoder *)cinfo;
    e->size = e->capacity - e->dest.free_in_buffer;
}

jpegcodec_encoder *jpegcodec_encoder_create(int width, int height, int quality, int progressive) {
    return jpegcodec_encoder_create_sampled(width, height, quality, progressive, 0);
}

jpegcodec_encoder *jpegcodec_encoder_create_sampled(int width, int height, int quality, int progressive,
                                                    int full_chroma) {
    jpegcodec_encoder *e = calloc(1, sizeof *e);
    if (e == NULL) return NULL;
    codec_error_init(&e->err);
    e->cinfo.err = &e->err.pub;
    if (setjmp(e->err.jump)) {  // destroy copes with a half-made cinfo
        e->status = status_for_error(&e->err, JPEGCODEC_ENCODE_FAILED);
        return e;
    }
    jpeg_create_compress(&e->cinfo);
    if (width < 1 || height < 1 || width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION || quality < 1
        || quality > 100) {
        set_message(&e->err, "width/height must be in 1...65500 and quality in 1...100");
        e->status = JPEGCODEC_BAD_ARGUMENT;
        return e;
    }
    e->dest.init_destination = dest_init;
    e->dest.empty_output_buffer = dest_grow;
    e->dest.term_destination = dest_term;
    e->cinfo.dest = &e->dest;

    e->cinfo.image_width = (JDIMENSION)width;
    e->cinfo.image_height = (JDIMENSION)height;
    e->cinfo.input_components = 3;
    e->cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&e->cinfo);  // YCbCr 4:2:0, standard Huffman tables, islow DCT
    jpeg_set_quality(&e->cinfo, quality, TRUE);
    if (full_chroma) e->cinfo.comp_info[0].h_samp_factor = e->cinfo.comp_info[0].v_samp_factor = 1;  // 4:4:4
    if (progressive) jpeg_simple_progression(&e->cinfo);
    jpeg_start_compress(&e->cinfo, TRUE);
    e->status = JPEGCODEC_OK;
    return e;
}

void jpegcodec_encoder_destroy(jpegcodec_encoder *e) {
    if (e == NULL) return;
    jpeg_destroy_compress(&e->cinfo);
    free(e->buffer);
    free(e);
}

int jpegcodec_encoder_status(const jpegcodec_encoder *e) { return e->status; }

int jpegcodec_encoder_write_rows(jpegcodec_encoder *e, const uint8_t *rows, int count, size_t stride) {
    if (e->status != JPEGCODEC_OK) return e->status;
    if (e->finished || count < 0 || e->cinfo.next_scanline + (JDIMENSION)count > e->cinfo.image_height) {
        set_message(&e->err, "more rows written than the image height");
        return e->status = JPEGCODEC_BAD_ARGUMENT;
    }
    if (setjmp(e->err.jump)) return e->status = status_for_error(&e->err, JPEGCODEC_ENCODE_FAILED);
    for (int i = 0; i < count; i++) {
        JSAMPROW row = (JSAMPROW)(rows + (size_t)i * stride);  // libjpeg only reads it
        jpeg_write_scanlines(&e->cinfo, &row, 1);
    }
    return JPEGCODEC_OK;
}

int jpegcodec_encoder_finish(jpegcodec_encoder *e, uint8_t **out, size_t *out_size) {
    if (e->status != JPEGCODEC_OK) return e->status;
    if (e->finished || e->cinfo.next_scanline != e->cinfo.image_height) {
        set_message(&e->err, "finish called before all rows were written");
        return e->status = JPEGCODEC_BAD_ARGUMENT;
    }
    if (setjmp(e->err.jump)) return e->status = status_for_error(&e->err, JPEGCODEC_ENCODE_FAILED);
    jpeg_finish_compress(&e->cinfo);
    e->finished = 1;
    // Hand over the buffer, trimmed so the caller does not keep up to 2x slack alive.
    uint8_t *trimmed = realloc(e->buffer, e->size > 0 ? e->size : 1);
    *out = trimmed != NULL ? trimmed : e->buffer;
    *out_size = e->size;
    e->buffer = NULL;
    return JPEGCODEC_OK;
}

const char *jpegcodec_encoder_message(const jpegcodec_encoder *e) { return e->err.message; }
