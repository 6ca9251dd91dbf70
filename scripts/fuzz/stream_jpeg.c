// libFuzzer target: the stream JPEG decoder (Sources/CStreamJPEG) on any input returns a status
// and never reads or writes out of bounds (ASan, UBSan). Each input is decoded twice: every MCU
// row's coefficients through the test hook, and a render at a size taken from the input's length.
// scripts/fuzz-jpeg.sh builds it with clang -fsanitize=fuzzer,address,undefined.
#include "CStreamJPEG.h"

#include <stdint.h>
#include <stdlib.h>

// Larger images are opened (the first pass runs) but not decoded: their rows only cost time.
enum { MAX_PIXELS = 1 << 22 };

static int fits(const streamjpeg_decoder *d) {
    return (uint64_t)streamjpeg_width(d) * (uint64_t)streamjpeg_height(d) <= MAX_PIXELS;
}

static void decode_coefficients(const uint8_t *data, size_t size) {
    streamjpeg_decoder *d = streamjpeg_create();
    if (d == NULL) return;
    if (streamjpeg_open_memory(d, data, size) == STREAMJPEG_OK && fits(d)) {
        int count = streamjpeg_components(d), wide = 0, rows = 0;
        for (int c = 0; c < count; c++) {
            int w, h;
            streamjpeg_component_blocks(d, c, &w, &h);
            if (w > wide) wide = w;
        }
        size_t capacity = (size_t)wide * 64 * 4;
        int16_t *row = malloc(capacity * sizeof *row);
        for (int r = 0; row != NULL && r < streamjpeg_mcu_rows(d); r++) {
            if (streamjpeg_decode_row(d) != STREAMJPEG_OK) break;
            for (int c = 0; c < count; c++) streamjpeg_row_coefficients(d, c, row, capacity, &rows);
        }
        free(row);
    }
    streamjpeg_destroy(d);
}

static void render(const uint8_t *data, size_t size, int max_pixel) {
    streamjpeg_decoder *d = streamjpeg_create();
    if (d == NULL) return;
    int width, height, numerator;
    if (streamjpeg_open_memory(d, data, size) == STREAMJPEG_OK && fits(d)
        && streamjpeg_set_output(d, max_pixel, &width, &height, &numerator) == STREAMJPEG_OK) {
        size_t bytes = (size_t)width * (size_t)height * 4;
        void *pixels = malloc(bytes);
        if (pixels != NULL) streamjpeg_render_rgba(d, pixels, bytes);
        free(pixels);
    }
    streamjpeg_destroy(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    decode_coefficients(data, size);
    render(data, size, 1 + (int)(size * 37 % 97));  // scales 1/8 ... 8/8 on small images
    return 0;
}
