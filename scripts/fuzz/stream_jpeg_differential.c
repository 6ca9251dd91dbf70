// libFuzzer target: on every input that both the stream JPEG decoder (Sources/CStreamJPEG) and
// libjpeg-turbo's jpeg_read_coefficients accept, the two give the same frame and the same
// quantized coefficients, block for block; a difference aborts with where it is. libjpeg
// "accepts" as CJPEGCodec does: no error and no warning other than the benign ones (a data
// warning, such as a premature end, is an error there and in the stream decoder). libjpeg reads
// the input a few bytes at a time (trickle_source): with at least 512 bytes a block buffered, its
// sequential decoder takes a fast path that reads corrupt data otherwise (an invalid code as 0,
// stale coefficients after "FF FF 00"), which would be reported as differences that are not.
// scripts/fuzz-jpeg.sh builds it with clang -fsanitize=fuzzer,address,undefined and -ljpeg.
#include "CStreamJPEG.h"

#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jerror.h>
#include <jpeglib.h>

enum { MAX_PIXELS = 1 << 20 };  // libjpeg holds the whole image's coefficients

// Every component's coefficients, its blocks row by row, 64 each.
struct coefficients {
    int width, height, count;
    int wide[4], high[4];
    int16_t *blocks[4];
};

static void coefficients_free(struct coefficients *k) {
    for (int c = 0; c < 4; c++) free(k->blocks[c]);
}

static int stream_coefficients(const uint8_t *data, size_t size, struct coefficients *k) {
    streamjpeg_decoder *d = streamjpeg_create();
    int ok = 0;
    if (d == NULL || streamjpeg_open_memory(d, data, size) != STREAMJPEG_OK) goto done;
    k->width = streamjpeg_width(d);
    k->height = streamjpeg_height(d);
    k->count = streamjpeg_components(d);
    if ((uint64_t)k->width * (uint64_t)k->height > MAX_PIXELS) goto done;
    for (int c = 0; c < k->count; c++) {
        streamjpeg_component_blocks(d, c, &k->wide[c], &k->high[c]);
        k->blocks[c] = calloc((size_t)k->wide[c] * (size_t)k->high[c] * 64, sizeof(int16_t));
        if (k->blocks[c] == NULL) goto done;
    }
    int filled[4] = {0};
    for (int r = 0; r < streamjpeg_mcu_rows(d); r++) {
        if (streamjpeg_decode_row(d) != STREAMJPEG_OK) goto done;
        for (int c = 0; c < k->count; c++) {
            size_t row = (size_t)k->wide[c] * 64, left = (size_t)(k->high[c] - filled[c]) * row;
            int rows = 0;
            if (streamjpeg_row_coefficients(d, c, k->blocks[c] + filled[c] * row, left, &rows) != STREAMJPEG_OK)
                goto done;
            filled[c] += rows;
        }
    }
    for (int c = 0; c < k->count; c++)
        if (filled[c] != k->high[c]) {
            fprintf(stderr, "stream decoder: component %d has %d block rows, %d copied\n", c, k->high[c], filled[c]);
            abort();
        }
    ok = 1;
done:
    streamjpeg_destroy(d);
    return ok;
}

// A source that hands libjpeg at most TRICKLE_BYTES at a time, keeping it on its exact (slow)
// Huffman path. At the end it warns and feeds an EOI, as jpeg_mem_src does.
enum { TRICKLE_BYTES = 64 };

struct trickle_source {
    struct jpeg_source_mgr pub;
    const uint8_t *data;
    size_t size, at;
    JOCTET eoi[2];
};

static void trickle_init(j_decompress_ptr cinfo) { (void)cinfo; }
static void trickle_term(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean trickle_fill(j_decompress_ptr cinfo) {
    struct trickle_source *source = (struct trickle_source *)cinfo->src;
    if (source->at >= source->size) {
        WARNMS(cinfo, JWRN_JPEG_EOF);
        source->eoi[0] = 0xFF;
        source->eoi[1] = JPEG_EOI;
        source->pub.next_input_byte = source->eoi;
        source->pub.bytes_in_buffer = 2;
        return TRUE;
    }
    size_t left = source->size - source->at;
    source->pub.next_input_byte = source->data + source->at;
    source->pub.bytes_in_buffer = left < TRICKLE_BYTES ? left : TRICKLE_BYTES;
    source->at += source->pub.bytes_in_buffer;
    return TRUE;
}

static void trickle_skip(j_decompress_ptr cinfo, long count) {
    struct jpeg_source_mgr *source = cinfo->src;
    if (count <= 0) return;
    while ((size_t)count > source->bytes_in_buffer) {
        count -= (long)source->bytes_in_buffer;
        source->fill_input_buffer(cinfo);
    }
    source->next_input_byte += count;
    source->bytes_in_buffer -= (size_t)count;
}

static void trickle_attach(j_decompress_ptr cinfo, struct trickle_source *source, const uint8_t *data, size_t size) {
    memset(source, 0, sizeof *source);
    source->data = data;
    source->size = size;
    source->pub.init_source = trickle_init;
    source->pub.fill_input_buffer = trickle_fill;
    source->pub.skip_input_data = trickle_skip;
    source->pub.resync_to_restart = jpeg_resync_to_restart;
    source->pub.term_source = trickle_term;
    cinfo->src = &source->pub;
}

struct failure {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
};

static void error_exit(j_common_ptr cinfo) { longjmp(((struct failure *)cinfo->err)->jump, 1); }

static void emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;
    int code = cinfo->err->msg_code;  // as CJPEGCodec's is_benign_warning
    if (code == JWRN_JFIF_MAJOR || code == JWRN_ADOBE_XFORM || code == JWRN_BOGUS_ICC) return;
    error_exit(cinfo);
}

static int libjpeg_coefficients(const uint8_t *data, size_t size, struct coefficients *k) {
    struct jpeg_decompress_struct cinfo;
    struct failure failure;
    struct trickle_source source;
    cinfo.err = jpeg_std_error(&failure.pub);
    failure.pub.error_exit = error_exit;
    failure.pub.emit_message = emit_message;
    jpeg_create_decompress(&cinfo);
    if (setjmp(failure.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return 0;
    }
    trickle_attach(&cinfo, &source, data, size);
    jpeg_read_header(&cinfo, TRUE);
    if ((uint64_t)cinfo.image_width * cinfo.image_height > MAX_PIXELS) longjmp(failure.jump, 1);
    jvirt_barray_ptr *arrays = jpeg_read_coefficients(&cinfo);
    k->width = (int)cinfo.image_width;
    k->height = (int)cinfo.image_height;
    k->count = cinfo.num_components;
    for (int c = 0; c < k->count && c < 4; c++) {
        jpeg_component_info *comp = &cinfo.comp_info[c];
        k->wide[c] = (int)comp->width_in_blocks;
        k->high[c] = (int)comp->height_in_blocks;
        size_t row = (size_t)k->wide[c] * 64;
        k->blocks[c] = malloc(row * (size_t)k->high[c] * sizeof(int16_t));
        if (k->blocks[c] == NULL) longjmp(failure.jump, 1);
        for (int y = 0; y < k->high[c]; y++) {
            JBLOCKARRAY blocks =
                (*cinfo.mem->access_virt_barray)((j_common_ptr)&cinfo, arrays[c], (JDIMENSION)y, 1, FALSE);
            memcpy(k->blocks[c] + (size_t)y * row, blocks[0], row * sizeof(int16_t));
        }
    }
    jpeg_finish_decompress(&cinfo);  // reads to EOI: a warning there is a refusal too
    jpeg_destroy_decompress(&cinfo);
    return 1;
}

static void differ(const char *what, int component, long at, long ours, long libjpeg) {
    fprintf(stderr, "stream decoder and libjpeg differ: %s (component %d, at %ld): %ld against %ld\n", what, component,
            at, ours, libjpeg);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct coefficients ours = {0}, theirs = {0};
    if (stream_coefficients(data, size, &ours) && libjpeg_coefficients(data, size, &theirs)) {
        if (ours.width != theirs.width) differ("width", -1, 0, ours.width, theirs.width);
        if (ours.height != theirs.height) differ("height", -1, 0, ours.height, theirs.height);
        if (ours.count != theirs.count) differ("components", -1, 0, ours.count, theirs.count);
        for (int c = 0; c < ours.count; c++) {
            if (ours.wide[c] != theirs.wide[c]) differ("blocks wide", c, 0, ours.wide[c], theirs.wide[c]);
            if (ours.high[c] != theirs.high[c]) differ("blocks high", c, 0, ours.high[c], theirs.high[c]);
            size_t n = (size_t)ours.wide[c] * (size_t)ours.high[c] * 64;
            for (size_t i = 0; i < n; i++)
                if (ours.blocks[c][i] != theirs.blocks[c][i])
                    differ("coefficient (block index x 64 + natural index)", c, (long)i, ours.blocks[c][i],
                           theirs.blocks[c][i]);
        }
    }
    coefficients_free(&ours);
    coefficients_free(&theirs);
    return 0;
}
