// libFuzzer target: on every input that both the stream JPEG decoder (Sources/CStreamJPEG) and
// libjpeg-turbo's jpeg_read_coefficients accept, the two give the same frame and the same
// quantized coefficients, block for block; a difference aborts with where it is. libjpeg
// "accepts" as CJPEGCodec does: no error and no warning other than the benign ones (a data
// warning, such as a premature end, is an error there and in the stream decoder).
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
    cinfo.err = jpeg_std_error(&failure.pub);
    failure.pub.error_exit = error_exit;
    failure.pub.emit_message = emit_message;
    jpeg_create_decompress(&cinfo);
    if (setjmp(failure.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return 0;
    }
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
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
    fprintf(stderr, "stream decoder and libjpeg differ: %s (component %d, at %ld): %ld against %ld\n", what,
            component, at, ours, libjpeg);
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
