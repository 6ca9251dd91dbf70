// What decoder.c (markers, cursors, entropy decoding) and render.c (IDCT, colour, resampling)
// share: the decoder's state. Not part of the module's API.
#ifndef STREAMJPEG_INTERNAL_H
#define STREAMJPEG_INTERNAL_H

#include "CStreamJPEG.h"

#include <stdarg.h>

// A bounded window on the input: pread on a descriptor into `buf`, or a window in place on a
// memory buffer (no copy, no `buf`).
struct sj_source {
    int fd;  // -1 for memory
    const uint8_t *memory;
    uint64_t size;
};

struct sj_reader {
    const struct sj_source *source;
    uint64_t base;        // input offset of data[0]
    uint8_t *buf;         // the read buffer, for a descriptor only
    const uint8_t *data;  // the window's `length` bytes: buf, or the memory buffer at base
    size_t capacity, length, at;
    int failed;  // a read error (not the end)
};

#ifndef SJ_FAST_BITS
#define SJ_FAST_BITS 10  // the whole-coefficient lookahead of AC codes (at least the 9 of `lookup`)
#endif

struct sj_fast_ac {  // an AC code and its magnitude bits, both inside SJ_FAST_BITS of lookahead
    int16_t value;   // the coefficient, before any point transform
    uint8_t run;     // zeros before it
    uint8_t length;  // the code's bits and the magnitude's; 0: not such a code
};

struct sj_huffman {  // a derived decoding table, shared by the scans whose DHT content and class are the same
    int is_dc;       // checked for its class when built: DC symbols are at most 15
    uint8_t bits[17];
    uint8_t values[256];
    uint16_t lookup[512];        // 9-bit lookahead: (length << 8) | value, 0 when longer
    struct sj_fast_ac *fast_ac;  // 1 << SJ_FAST_BITS: lookahead to a whole coefficient (AC tables of
                                 // sequential and first AC scans; NULL for the others)
    int32_t maxcode[18];
    int32_t valoffset[17];
};

struct sj_component {
    int id, h, v, tq;
    int blocks_wide, blocks_high;  // the component's own blocks
    int row_blocks;                // blocks a row in the row buffer (MCUs a row x h)
    uint16_t quant[64];            // natural order, latched at the component's first scan
    int quant_latched;
    int16_t *row;  // v block rows of row_blocks blocks, 64 coefficients each
    // rendering
    int scale_h, scale_v;  // IDCT output size of a block
    float dequant[64];     // quant as floats, for the IDCT
    uint8_t *plane;        // v * scale_v rows of row_blocks * scale_h samples
    int *column;           // scaled-image column -> plane column
};

struct sj_scan {
    int count;
    int component[4];              // indexes into the frame
    int dc_table[4], ac_table[4];  // indexes into the table pool, -1 if unused
    int ss, se, ah, al;
    unsigned restart_interval;
    uint64_t data_offset;
};

struct sj_cursor {
    const struct sj_scan *scan;
    struct sj_reader reader;
    uint64_t bits;
    int bit_count;  // valid bits in `bits` (the top ones; the rest are zero)
    int zero_bits;  // of those, zeros fed after a marker or the end
    int marker;     // marker met inside the entropy data, 0 if none yet
    unsigned eob_run;
    int dc_predictor[4];
    unsigned restarts_to_go;
    unsigned next_restart;  // RSTn expected next, 0..7
};

enum { SJ_OPENED = 1, SJ_FAILED = 2 };

struct streamjpeg_decoder {
    struct sj_source source;
    int owns_fd;
    int state;
    char message[256];
    int progressive;
    int width, height, count;
    struct sj_component component[4];
    int hmax, vmax, mcus_wide, mcu_rows;
    int color;  // SJ_GRAY, SJ_YCC, SJ_RGB, SJ_CMYK, SJ_YCCK
    int adobe_seen;
    struct sj_scan *scans;
    int scan_count;
    struct sj_huffman *tables;
    int table_count;
    struct sj_cursor *cursors;
    int next_row;
    uint64_t pixel_budget, work;  // work: blocks x scans counted by the first pass
    // rendering
    int out_width, out_height, scale;
    int planes_full_width;  // every plane's column x is the scaled image's column x
};

enum { SJ_GRAY, SJ_YCC, SJ_RGB, SJ_CMYK, SJ_YCCK };

int sj_fail(streamjpeg_decoder *d, int status, const char *format, ...) __attribute__((format(printf, 3, 4)));

#endif
