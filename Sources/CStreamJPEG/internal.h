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

// A `lookup` entry, for the code in the top `lookahead` bits of the window:
//   0                                a code longer than the lookahead (decode_long_code)
//   (length << 8) | symbol           a code of `length` bits; bits 12-15 are zero
//   (total << 12) | (run << 8) | v   in an AC table a sequential or first AC scan reads: a code
//                                    and its magnitude bits, `total` bits in all, for a
//                                    coefficient of value `(int8_t)v` (-127...127, never 0) after
//                                    `run` zeros: one lookup gives the whole coefficient
// A table looks 9 bits ahead (1 KiB); an AC table with whole-coefficient entries 10 (2 KiB), which
// the column tables' savings pay for (render.c, prepare_planes).
enum { SJ_LOOKAHEAD = 9, SJ_WHOLE_LOOKAHEAD = 10 };

struct sj_huffman {  // a derived decoding table, shared by the scans whose DHT content and class are the same
    uint8_t bits[17];
    uint8_t values[256];
    uint8_t is_dc;      // checked for its class when built: DC symbols are at most 15
    uint8_t lookahead;  // SJ_LOOKAHEAD, or SJ_WHOLE_LOOKAHEAD: `lookup` has whole-coefficient entries
    uint16_t *lookup;   // 1 << lookahead entries
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
    uint16_t *column;      // scaled-image column -> plane column (below the image's width: 16 bits)
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
