// The first pass over the markers, and the cursors that decode every scan one MCU row at a time.
#pragma clang diagnostic error "-Wall"
#pragma clang diagnostic error "-Wextra"
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// Zigzag index -> natural index, with 16 entries past the end for corrupt runs (as libjpeg's).
static const int natural_order[64 + 16] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13,
    6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31,
    39, 46, 53, 60, 61, 54, 47, 55, 62, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63,
};

// Corrupt, truncated or unsupported input: the status of most failures here.
enum { CORRUPT = STREAMJPEG_DECODE_FAILED };

int sj_fail(streamjpeg_decoder *d, int status, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(d->message, sizeof d->message, format, args);
    va_end(args);
    d->state = SJ_FAILED;
    return status;
}

// MARK: Reading the input in chunks

static int reader_init(struct sj_reader *r, const struct sj_source *source, uint64_t offset, size_t capacity) {
    memset(r, 0, sizeof *r);
    r->source = source;
    r->base = offset;
    r->capacity = capacity;
    if (source->fd < 0) return 1;  // memory is read in place
    r->buf = malloc(capacity);
    return r->buf != NULL;
}

static void reader_free(struct sj_reader *r) {
    free(r->buf);
    r->buf = NULL;
}

static uint64_t reader_offset(const struct sj_reader *r) { return r->base + r->at; }

// The next byte, or -1 at the end of the input (or after a read error: `failed` tells).
static int reader_byte(struct sj_reader *r) {
    if (r->at < r->length) return r->data[r->at++];
    r->base += r->length;
    r->length = 0;
    r->at = 0;
    if (r->failed || r->base >= r->source->size) return -1;
    uint64_t left = r->source->size - r->base;
    size_t want = left < r->capacity ? (size_t)left : r->capacity;
    if (r->source->fd < 0) {
        r->data = r->source->memory + r->base;
        r->length = want;
    } else {
        ssize_t got;
        do got = pread(r->source->fd, r->buf, want, (off_t)r->base);
        while (got < 0 && errno == EINTR);
        if (got <= 0) {
            r->failed = 1;
            return -1;
        }
        r->data = r->buf;
        r->length = (size_t)got;
    }
    return r->data[r->at++];
}

static int reader_u16(struct sj_reader *r) {
    int high = reader_byte(r), low = reader_byte(r);
    return high < 0 || low < 0 ? -1 : (high << 8) | low;
}

// MARK: Huffman tables

// The table's lookup for an `n`-bit lookahead: (length << 8) | symbol for each code of at most n
// bits, 0 for the longer ones. 0 if out of memory.
static int fill_lookup(struct sj_huffman *t, int n) {
    uint16_t *lookup = calloc((size_t)1 << n, sizeof *lookup);
    if (lookup == NULL) return 0;
    for (int l = 1; l <= n; l++)
        for (int32_t code = t->maxcode[l] - t->bits[l] + 1; t->bits[l] && code <= t->maxcode[l]; code++)
            for (int look = code << (n - l), end = (code + 1) << (n - l); look < end; look++)
                lookup[look] = (uint16_t)((l << 8) | t->values[code + t->valoffset[l]]);
    free(t->lookup);
    t->lookup = lookup;
    t->lookahead = (uint8_t)n;
    return 1;
}

// The AC codes whose magnitude bits fit in the lookahead with them: their `lookup` entries become
// whole-coefficient ones (internal.h), the value, the zeros before it and the bits both take, from
// one lookup (stb_image's fast_ac is the same idea, in a table of its own), with a lookahead of
// 10 bits. Only for the AC tables a sequential or first AC scan reads (refinement scans read one
// bit a coefficient). 0 if out of memory.
static int add_whole_coefficients(struct sj_huffman *t) {
    if (t->lookahead == SJ_WHOLE_LOOKAHEAD) return 1;
    if (!fill_lookup(t, SJ_WHOLE_LOOKAHEAD)) return 0;
    for (unsigned look = 0; look < (1u << SJ_WHOLE_LOOKAHEAD); look++) {
        unsigned entry = t->lookup[look];
        int length = (int)(entry >> 8), size = (int)(entry & 15), run = (int)((entry & 255) >> 4);
        if (entry == 0 || size == 0 || size > 7 || length + size > SJ_WHOLE_LOOKAHEAD) continue;
        unsigned v = (look >> (SJ_WHOLE_LOOKAHEAD - length - size)) & ((1u << size) - 1);
        int value = v < (1u << (size - 1)) ? (int)v - (1 << size) + 1 : (int)v;
        t->lookup[look] = (uint16_t)(((length + size) << 12) | (run << 8) | (uint8_t)(int8_t)value);
    }
    return 1;
}

// Builds the decoding table as libjpeg's jpeg_make_d_derived_tbl does, with its checks: 1, 0 for a
// corrupt table, -1 out of memory.
static int huffman_build(struct sj_huffman *t, int is_dc) {
    int count = 0;
    for (int l = 1; l <= 16; l++) count += t->bits[l];
    if (count > 256) return 0;
    int sizes[257], codes[257];
    int p = 0;
    for (int l = 1; l <= 16; l++)
        for (int i = 0; i < t->bits[l]; i++) sizes[p++] = l;
    sizes[p] = 0;
    int code = 0, si = sizes[0];
    p = 0;
    while (sizes[p]) {
        while (sizes[p] == si) codes[p++] = code++;
        if (code >= (1 << si)) return 0;  // codes overflow their length
        code <<= 1;
        si++;
    }
    p = 0;
    for (int l = 1; l <= 16; l++) {
        if (t->bits[l]) {
            t->valoffset[l] = p - codes[p];
            p += t->bits[l];
            t->maxcode[l] = codes[p - 1];
        } else {
            t->maxcode[l] = -1;
        }
    }
    t->maxcode[17] = 0x7FFFFFFF;
    if (is_dc)
        for (int i = 0; i < count; i++)
            if (t->values[i] > 15) return 0;
    return fill_lookup(t, SJ_LOOKAHEAD) ? 1 : -1;
}

// MARK: The first pass

struct defined_table {
    int defined;
    uint8_t bits[17];
    uint8_t values[256];
    int pool_index;  // its derived table in the pool, -1 until a scan needs it
};

struct first_pass {
    struct sj_reader reader;
    struct defined_table huffman[2][4];  // [class][slot]
    uint16_t quant[4][64];
    int quant_defined[4];
    unsigned restart_interval;
    int frame_seen, jfif_seen, adobe_transform;
    int coef_bits[4][64];
};

// The JPEG standard's example tables (ITU T.81 Annex K.3), for a sequential scan whose table 0
// or 1 no DHT defined: Motion-JPEG frames leave them out. libjpeg-turbo's decoder installs them
// the same way (jstdhuff.c; for sequential files only, as here): DC and AC, luminance then
// chrominance. Counts of codes of each length 1...16, then the symbols.
static const uint8_t standard_bits[2][2][16] = {
    {{0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0}, {0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0}},
    {{0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 125}, {0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 119}},
};
static const uint8_t standard_dc_values[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
static const uint8_t standard_ac_luminance[162] = {
    0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07, 0x22, 0x71,
    0x14, 0x32, 0x81, 0x91, 0xA1, 0x08, 0x23, 0x42, 0xB1, 0xC1, 0x15, 0x52, 0xD1, 0xF0, 0x24, 0x33, 0x62, 0x72,
    0x82, 0x09, 0x0A, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x34, 0x35, 0x36, 0x37,
    0x38, 0x39, 0x3A, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4A, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59,
    0x5A, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6A, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7A, 0x83,
    0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8A, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9A, 0xA2, 0xA3,
    0xA4, 0xA5, 0xA6, 0xA7, 0xA8, 0xA9, 0xAA, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0xC2, 0xC3,
    0xC4, 0xC5, 0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8, 0xD9, 0xDA, 0xE1, 0xE2,
    0xE3, 0xE4, 0xE5, 0xE6, 0xE7, 0xE8, 0xE9, 0xEA, 0xF1, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7, 0xF8, 0xF9, 0xFA,
};
static const uint8_t standard_ac_chrominance[162] = {
    0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71, 0x13, 0x22,
    0x32, 0x81, 0x08, 0x14, 0x42, 0x91, 0xA1, 0xB1, 0xC1, 0x09, 0x23, 0x33, 0x52, 0xF0, 0x15, 0x62, 0x72, 0xD1,
    0x0A, 0x16, 0x24, 0x34, 0xE1, 0x25, 0xF1, 0x17, 0x18, 0x19, 0x1A, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x35, 0x36,
    0x37, 0x38, 0x39, 0x3A, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4A, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58,
    0x59, 0x5A, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6A, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7A,
    0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8A, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9A,
    0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7, 0xA8, 0xA9, 0xAA, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA,
    0xC2, 0xC3, 0xC4, 0xC5, 0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8, 0xD9, 0xDA,
    0xE2, 0xE3, 0xE4, 0xE5, 0xE6, 0xE7, 0xE8, 0xE9, 0xEA, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7, 0xF8, 0xF9, 0xFA,
};

// Defines table `slot` (0 or 1) of `class` as the standard's.
static void define_standard_table(struct defined_table *t, int class, int slot) {
    memset(t, 0, sizeof *t);
    memcpy(t->bits + 1, standard_bits[class][slot], 16);
    if (class == 0)
        memcpy(t->values, standard_dc_values, sizeof standard_dc_values);
    else
        memcpy(t->values, slot == 0 ? standard_ac_luminance : standard_ac_chrominance, 162);
    t->defined = 1;
    t->pool_index = -1;
}

static int pool_index_for(streamjpeg_decoder *d, struct defined_table *t, int is_dc) {
    int *slot = &t->pool_index;
    if (*slot >= 0) return *slot;
    // The same content defined again for the same class: share it. Never across classes: a DC
    // table is checked for DC symbols, which an AC table with the same bytes never was.
    for (int i = 0; i < d->table_count; i++) {
        const struct sj_huffman *h = &d->tables[i];
        if (h->is_dc == is_dc && memcmp(h->bits, t->bits, sizeof t->bits) == 0
            && memcmp(h->values, t->values, sizeof t->values) == 0) {
            *slot = i;
            return i;
        }
    }
    struct sj_huffman *grown = realloc(d->tables, (size_t)(d->table_count + 1) * sizeof *grown);
    if (grown == NULL) return -2;
    d->tables = grown;
    struct sj_huffman *h = &d->tables[d->table_count];
    h->is_dc = (uint8_t)is_dc;
    h->lookup = NULL;
    memcpy(h->bits, t->bits, sizeof t->bits);
    memcpy(h->values, t->values, sizeof t->values);
    int built = huffman_build(h, is_dc);
    if (built != 1) {
        free(h->lookup);
        return built < 0 ? -2 : -3;
    }
    *slot = d->table_count++;
    return *slot;
}

static int read_dht(streamjpeg_decoder *d, struct first_pass *f, int length) {
    struct sj_reader *r = &f->reader;
    length -= 2;
    while (length > 0) {
        int index = reader_byte(r);
        if (index < 0 || length < 17) return sj_fail(d, CORRUPT, "DHT segment ends early");
        int class = index >> 4, slot = index & 15;
        if (class > 1 || slot > 3) return sj_fail(d, CORRUPT, "DHT defines table %d of class %d", slot, class);
        struct defined_table *t = &f->huffman[class][slot];
        memset(t, 0, sizeof *t);
        int count = 0;
        for (int l = 1; l <= 16; l++) {
            int b = reader_byte(r);
            if (b < 0) return sj_fail(d, CORRUPT, "DHT segment ends early");
            t->bits[l] = (uint8_t)b;
            count += b;
        }
        length -= 17;
        if (count > 256 || count > length) return sj_fail(d, CORRUPT, "DHT table of %d codes is corrupt", count);
        for (int i = 0; i < count; i++) {
            int b = reader_byte(r);
            if (b < 0) return sj_fail(d, CORRUPT, "DHT segment ends early");
            t->values[i] = (uint8_t)b;
        }
        length -= count;
        t->defined = 1;
        t->pool_index = -1;
    }
    if (length != 0) return sj_fail(d, CORRUPT, "DHT segment length is wrong");
    return STREAMJPEG_OK;
}

static int read_dqt(streamjpeg_decoder *d, struct first_pass *f, int length) {
    struct sj_reader *r = &f->reader;
    length -= 2;
    while (length > 0) {
        int index = reader_byte(r);
        if (index < 0) return sj_fail(d, CORRUPT, "DQT segment ends early");
        int precision = index >> 4, slot = index & 15;
        if (slot > 3 || precision > 1)
            return sj_fail(d, CORRUPT, "DQT defines table %d of precision %d", slot, precision);
        int size = 1 + 64 * (precision + 1);
        if (length < size) return sj_fail(d, CORRUPT, "DQT segment ends early");
        for (int i = 0; i < 64; i++) {
            int q = precision ? reader_u16(r) : reader_byte(r);
            if (q < 0) return sj_fail(d, CORRUPT, "DQT segment ends early");
            f->quant[slot][natural_order[i]] = (uint16_t)q;
        }
        f->quant_defined[slot] = 1;
        length -= size;
    }
    if (length != 0) return sj_fail(d, CORRUPT, "DQT segment length is wrong");
    return STREAMJPEG_OK;
}

static int read_sof(streamjpeg_decoder *d, struct first_pass *f, int marker, int length) {
    struct sj_reader *r = &f->reader;
    if (f->frame_seen) return sj_fail(d, CORRUPT, "a second frame header (SOF)");
    f->frame_seen = 1;
    d->progressive = marker == 0xC2;
    int precision = reader_byte(r);
    d->height = reader_u16(r);
    d->width = reader_u16(r);
    d->count = reader_byte(r);
    if (d->count < 0 || d->width < 0 || d->height < 0) return sj_fail(d, CORRUPT, "SOF segment ends early");
    if (precision != 8) return sj_fail(d, CORRUPT, "%d-bit samples are not supported (only 8-bit)", precision);
    if (d->height == 0)
        return sj_fail(d, CORRUPT,
                       "height 0: a DNL marker (the frame's height given after its first scan) "
                       "is not supported");
    if (d->width == 0) return sj_fail(d, CORRUPT, "width 0 in the frame header");
    if (d->width > 65500 || d->height > 65500)
        return sj_fail(d, CORRUPT, "%dx%d is over JPEG's 65500 limit", d->width, d->height);
    if (d->count != 1 && d->count != 3 && d->count != 4)
        return sj_fail(d, CORRUPT, "%d components (supported: 1, 3, 4)", d->count);
    if (length != 8 + 3 * d->count) return sj_fail(d, CORRUPT, "SOF segment length is wrong");
    d->hmax = d->vmax = 1;
    for (int c = 0; c < d->count; c++) {
        struct sj_component *comp = &d->component[c];
        comp->id = reader_byte(r);
        int sampling = reader_byte(r);
        comp->tq = reader_byte(r);
        if (comp->tq < 0) return sj_fail(d, CORRUPT, "SOF segment ends early");
        comp->h = sampling >> 4;
        comp->v = sampling & 15;
        if (comp->h < 1 || comp->h > 4 || comp->v < 1 || comp->v > 4 || comp->tq > 3)
            return sj_fail(d, CORRUPT, "component %d has sampling %dx%d, table %d", c, comp->h, comp->v, comp->tq);
        for (int o = 0; o < c; o++)
            if (d->component[o].id == comp->id) return sj_fail(d, CORRUPT, "two components with id %d", comp->id);
        if (comp->h > d->hmax) d->hmax = comp->h;
        if (comp->v > d->vmax) d->vmax = comp->v;
    }
    d->mcus_wide = (d->width + 8 * d->hmax - 1) / (8 * d->hmax);
    d->mcu_rows = (d->height + 8 * d->vmax - 1) / (8 * d->vmax);
    for (int c = 0; c < d->count; c++) {
        struct sj_component *comp = &d->component[c];
        // The component's size: ceil(image size x sampling / maximum sampling), in blocks.
        long cw = ((long)d->width * comp->h + d->hmax - 1) / d->hmax;
        long ch = ((long)d->height * comp->v + d->vmax - 1) / d->vmax;
        comp->blocks_wide = (int)((cw + 7) / 8);
        comp->blocks_high = (int)((ch + 7) / 8);
        comp->row_blocks = d->mcus_wide * comp->h;
        d->work += (uint64_t)comp->blocks_wide * (uint64_t)comp->blocks_high;  // the render's pass
    }
    return STREAMJPEG_OK;
}

// Checks a scan's parameters as libjpeg does (its warnings are errors here, as in CJPEGCodec).
static int check_scan(streamjpeg_decoder *d, struct first_pass *f, const struct sj_scan *s) {
    int n = d->scan_count + 1;
    if (!d->progressive) {
        if (s->ss != 0 || s->se != 63 || s->ah != 0 || s->al != 0)
            return sj_fail(d, CORRUPT, "scan %d of a sequential file has progressive parameters", n);
        return STREAMJPEG_OK;
    }
    int dc = s->ss == 0;
    int bad = dc ? s->se != 0 : (s->ss > s->se || s->se > 63 || s->count != 1);
    if (s->ah != 0 && s->al != s->ah - 1) bad = 1;
    if (s->al > 13) bad = 1;
    if (bad)
        return sj_fail(d, CORRUPT, "scan %d: invalid progressive parameters Ss=%d Se=%d Ah=%d Al=%d", n, s->ss, s->se,
                       s->ah, s->al);
    for (int i = 0; i < s->count; i++) {
        int *bits = f->coef_bits[s->component[i]];
        if (!dc && bits[0] < 0) return sj_fail(d, CORRUPT, "scan %d: AC coefficients before the DC scan", n);
        for (int k = s->ss; k <= s->se; k++) {
            int expected = bits[k] < 0 ? 0 : bits[k];
            if (s->ah != expected)
                return sj_fail(d, CORRUPT, "scan %d: refines coefficient %d from bit %d, expected %d", n, k, s->ah,
                               expected);
            bits[k] = s->al;
        }
    }
    return STREAMJPEG_OK;
}

// Adds the scan's blocks to the work; past the budget the file is refused before any decoding.
static int count_work(streamjpeg_decoder *d, const struct sj_scan *s) {
    const struct sj_component *first = &d->component[s->component[0]];
    uint64_t blocks = (uint64_t)first->blocks_wide * (uint64_t)first->blocks_high;
    if (s->count > 1) {  // interleaved: whole MCUs, padding blocks included
        int per_mcu = 0;
        for (int i = 0; i < s->count; i++) {
            const struct sj_component *comp = &d->component[s->component[i]];
            per_mcu += comp->h * comp->v;
        }
        blocks = (uint64_t)d->mcus_wide * (uint64_t)d->mcu_rows * (uint64_t)per_mcu;
    }
    d->work += blocks;
    uint64_t budget = streamjpeg_work_budget(d);
    if (d->work <= budget) return STREAMJPEG_OK;
    return sj_fail(d, STREAMJPEG_OVER_BUDGET,
                   "work budget passed at scan %d: a %dx%d frame is %llu blocks x scans so far (the render "
                   "counted as one), over %llu (%d scans over the blocks of the %llu-pixel budget)",
                   d->scan_count + 1, d->width, d->height, (unsigned long long)d->work, (unsigned long long)budget,
                   STREAMJPEG_SCAN_ALLOWANCE, (unsigned long long)d->pixel_budget);
}

static int read_sos(streamjpeg_decoder *d, struct first_pass *f, int length) {
    struct sj_reader *r = &f->reader;
    if (!f->frame_seen) return sj_fail(d, CORRUPT, "a scan (SOS) before the frame header (SOF)");
    if (d->scan_count >= STREAMJPEG_MAX_SCANS)
        return sj_fail(d, CORRUPT, "more than %d scans (the cap: each scan costs a cursor)", STREAMJPEG_MAX_SCANS);
    struct sj_scan s;
    memset(&s, 0, sizeof s);
    s.count = reader_byte(r);
    if (s.count < 1 || s.count > 4 || length != 6 + 2 * s.count)
        return sj_fail(d, CORRUPT, "scan %d has a corrupt header", d->scan_count + 1);
    int blocks = 0;
    for (int i = 0; i < s.count; i++) {
        int id = reader_byte(r), tables = reader_byte(r);
        if (tables < 0) return sj_fail(d, CORRUPT, "SOS segment ends early");
        int c = 0;
        while (c < d->count && d->component[c].id != id) c++;
        if (c == d->count)
            return sj_fail(d, CORRUPT, "scan %d names component id %d, not in the frame", d->scan_count + 1, id);
        for (int o = 0; o < i; o++)
            if (s.component[o] == c)
                return sj_fail(d, CORRUPT, "scan %d names component id %d twice", d->scan_count + 1, id);
        s.component[i] = c;
        s.dc_table[i] = tables >> 4;  // slots for now, pool indexes below
        s.ac_table[i] = tables & 15;
        blocks += s.count == 1 ? 1 : d->component[c].h * d->component[c].v;
    }
    if (blocks > 10) return sj_fail(d, CORRUPT, "scan %d has %d blocks an MCU (at most 10)", d->scan_count + 1, blocks);
    int ss = reader_byte(r), se = reader_byte(r), a = reader_byte(r);
    if (a < 0) return sj_fail(d, CORRUPT, "SOS segment ends early");
    s.ss = ss;
    s.se = se;
    s.ah = a >> 4;
    s.al = a & 15;
    int status = check_scan(d, f, &s);
    if (status != STREAMJPEG_OK) return status;
    // Tables: those in force now, each scan its own (the pool shares identical content).
    for (int i = 0; i < s.count; i++) {
        int needs_dc = s.ss == 0 && s.ah == 0;
        int needs_ac = s.se > 0;
        int slots[2] = {s.dc_table[i], s.ac_table[i]};
        s.dc_table[i] = s.ac_table[i] = -1;
        for (int class = 0; class < 2; class ++) {
            if (!(class == 0 ? needs_dc : needs_ac)) continue;
            if (!d->progressive && slots[class] <= 1 && !f->huffman[class][slots[class]].defined)
                define_standard_table(&f->huffman[class][slots[class]], class, slots[class]);
            if (slots[class] > 3 || !f->huffman[class][slots[class]].defined)
                return sj_fail(d, CORRUPT, "scan %d uses %s Huffman table %d, which no DHT defined", d->scan_count + 1,
                               class == 0 ? "DC" : "AC", slots[class]);
            int index = pool_index_for(d, &f->huffman[class][slots[class]], class == 0);
            if (index == -2) return sj_fail(d, STREAMJPEG_NO_MEMORY, "out of memory for Huffman tables");
            if (index < 0)
                return sj_fail(d, CORRUPT, "scan %d: %s Huffman table %d is corrupt", d->scan_count + 1,
                               class == 0 ? "DC" : "AC", slots[class]);
            if (class == 0)
                s.dc_table[i] = index;
            else
                s.ac_table[i] = index;
            if (class == 1 && (!d->progressive || s.ah == 0) && !add_whole_coefficients(&d->tables[index]))
                return sj_fail(d, STREAMJPEG_NO_MEMORY, "out of memory for Huffman tables");
        }
        struct sj_component *comp = &d->component[s.component[i]];
        if (!comp->quant_latched) {  // libjpeg latches a component's table at its first scan
            if (!f->quant_defined[comp->tq])
                return sj_fail(d, CORRUPT, "component %d uses quantization table %d, no DQT defined", s.component[i],
                               comp->tq);
            memcpy(comp->quant, f->quant[comp->tq], sizeof comp->quant);
            comp->quant_latched = 1;
        }
    }
    if ((status = count_work(d, &s)) != STREAMJPEG_OK) return status;
    s.restart_interval = f->restart_interval;
    s.data_offset = reader_offset(r);
    struct sj_scan *grown = realloc(d->scans, (size_t)(d->scan_count + 1) * sizeof *grown);
    if (grown == NULL) return sj_fail(d, STREAMJPEG_NO_MEMORY, "out of memory for the scan list");
    d->scans = grown;
    d->scans[d->scan_count++] = s;
    return STREAMJPEG_OK;
}

// Skips a scan's entropy data; returns the marker that ends it, or -1 with the failure set.
static int skip_entropy_data(streamjpeg_decoder *d, struct first_pass *f) {
    struct sj_reader *r = &f->reader;
    for (;;) {
        // Jump to the next 0xFF in the buffer: entropy data is most of the file.
        const uint8_t *ff = memchr(r->data + r->at, 0xFF, r->length - r->at);
        r->at = ff != NULL ? (size_t)(ff - r->data) : r->length;
        int b = reader_byte(r);
        if (b < 0) break;
        if (b != 0xFF) continue;
        do b = reader_byte(r);
        while (b == 0xFF);
        if (b < 0) break;
        if (b == 0 || (b >= 0xD0 && b <= 0xD7)) continue;  // a stuffed 0xFF, a restart marker
        return b;
    }
    if (r->failed)
        sj_fail(d, STREAMJPEG_IO, "cannot read the input: %s", strerror(errno));
    else
        sj_fail(d, CORRUPT,
                "the file ends inside the entropy data of scan %d (at byte %llu), "
                "before the end-of-image marker",
                d->scan_count, (unsigned long long)reader_offset(r));
    return -1;
}

static int skip_segment(streamjpeg_decoder *d, struct first_pass *f, int length) {
    for (int i = 2; i < length; i++)
        if (reader_byte(&f->reader) < 0) return sj_fail(d, CORRUPT, "a marker segment ends early");
    return STREAMJPEG_OK;
}

static int read_app(streamjpeg_decoder *d, struct first_pass *f, int marker, int length) {
    uint8_t head[12] = {0};
    int n = length - 2 < 12 ? length - 2 : 12;
    for (int i = 0; i < n; i++) {
        int b = reader_byte(&f->reader);
        if (b < 0) return sj_fail(d, CORRUPT, "a marker segment ends early");
        head[i] = (uint8_t)b;
    }
    if (marker == 0xE0 && n >= 5 && memcmp(head, "JFIF\0", 5) == 0) f->jfif_seen = 1;
    if (marker == 0xEE && n >= 12 && memcmp(head, "Adobe", 5) == 0) {
        d->adobe_seen = 1;
        f->adobe_transform = head[11];
    }
    return skip_segment(d, f, length - n);
}

// The colour space as libjpeg's default_decompress_parms infers it.
static void infer_color(streamjpeg_decoder *d, const struct first_pass *f) {
    if (d->count == 1) {
        d->color = SJ_GRAY;
    } else if (d->count == 3) {
        if (f->jfif_seen)
            d->color = SJ_YCC;
        else if (d->adobe_seen)
            d->color = f->adobe_transform == 0 ? SJ_RGB : SJ_YCC;
        else if (d->component[0].id == 'R' && d->component[1].id == 'G' && d->component[2].id == 'B')
            d->color = SJ_RGB;
        else
            d->color = SJ_YCC;
    } else {
        d->color = d->adobe_seen && f->adobe_transform != 0 ? SJ_YCCK : SJ_CMYK;
    }
}

// The next marker: 0xFF (fill bytes allowed) then its code. Anything else is an error.
static int next_marker(streamjpeg_decoder *d, struct first_pass *f) {
    int b = reader_byte(&f->reader);
    if (b != 0xFF) {
        if (b < 0)
            sj_fail(d, CORRUPT, "the file ends at byte %llu before the end-of-image marker",
                    (unsigned long long)reader_offset(&f->reader));
        else
            sj_fail(d, CORRUPT, "byte %llu: 0x%02X where a marker should be",
                    (unsigned long long)reader_offset(&f->reader) - 1, b);
        return -1;
    }
    do b = reader_byte(&f->reader);
    while (b == 0xFF);
    if (b < 0) sj_fail(d, CORRUPT, "the file ends inside a marker");
    return b;
}

static int first_pass(streamjpeg_decoder *d) {
    struct first_pass *f = calloc(1, sizeof *f);
    if (f == NULL) return sj_fail(d, STREAMJPEG_NO_MEMORY, "out of memory");
    int status = STREAMJPEG_OK;
    if (!reader_init(&f->reader, &d->source, 0, 4096)) {
        free(f);
        return sj_fail(d, STREAMJPEG_NO_MEMORY, "out of memory");
    }
    memset(f->coef_bits, 0xFF, sizeof f->coef_bits);  // -1: no scan yet
    if (reader_byte(&f->reader) != 0xFF || reader_byte(&f->reader) != 0xD8) {
        status = sj_fail(d, STREAMJPEG_NOT_JPEG, "not a JPEG (no SOI marker)");
        goto done;
    }
    int marker = next_marker(d, f);
    for (;;) {
        if (marker < 0) {  // next_marker or skip_entropy_data said why
            status = f->reader.failed ? STREAMJPEG_IO : STREAMJPEG_DECODE_FAILED;
            goto done;
        }
        if (marker == 0xD9) break;                                   // EOI
        if ((marker >= 0xD0 && marker <= 0xD7) || marker == 0x01) {  // RSTn or TEM between segments:
            marker = next_marker(d, f);                              // no length, skipped as libjpeg does
            continue;
        }
        if (marker == 0xD8) {
            status = sj_fail(d, CORRUPT, "unexpected marker 0xFF%02X at byte %llu", marker,
                             (unsigned long long)reader_offset(&f->reader) - 2);
            goto done;
        }
        int length = reader_u16(&f->reader);
        if (length < 2) {
            status = sj_fail(d, CORRUPT, "marker 0xFF%02X: segment ends early or has length %d", marker, length);
            goto done;
        }
        if (marker == 0xC0 || marker == 0xC1 || marker == 0xC2)
            status = read_sof(d, f, marker, length);
        else if (marker == 0xC3)
            status = sj_fail(d, CORRUPT, "lossless JPEG (SOF3) is not supported");
        else if (marker >= 0xC5 && marker <= 0xC7)
            status = sj_fail(d, CORRUPT, "hierarchical JPEG (SOF%d) is not supported", marker - 0xC0);
        else if ((marker >= 0xC9 && marker <= 0xCB) || (marker >= 0xCD && marker <= 0xCF) || marker == 0xCC)
            status = sj_fail(d, CORRUPT, "arithmetic coding (marker 0xFF%02X) is not supported", marker);
        else if (marker == 0xC4)
            status = read_dht(d, f, length);
        else if (marker == 0xDB)
            status = read_dqt(d, f, length);
        else if (marker == 0xDD) {
            int interval = reader_u16(&f->reader);
            if (length != 4 || interval < 0)
                status = sj_fail(d, CORRUPT, "DRI segment is corrupt");
            else
                f->restart_interval = (unsigned)interval;
        } else if (marker == 0xDC)
            status = sj_fail(d, CORRUPT,
                             "a DNL marker (the frame's height given after its first scan) "
                             "is not supported");
        else if (marker >= 0xE0 && marker <= 0xEF)
            status = read_app(d, f, marker, length);
        else if (marker == 0xFE)
            status = skip_segment(d, f, length);
        else if (marker == 0xDA) {
            status = read_sos(d, f, length);
            if (status != STREAMJPEG_OK) goto done;
            marker = skip_entropy_data(d, f);
            continue;
        } else
            status = sj_fail(d, CORRUPT, "unknown marker 0xFF%02X", marker);
        if (status != STREAMJPEG_OK) goto done;
        marker = next_marker(d, f);
    }
    if (d->scan_count == 0) {
        status = sj_fail(d, CORRUPT, "no scan before the end-of-image marker");
        goto done;
    }
    infer_color(d, f);
done:
    reader_free(&f->reader);
    free(f);
    return status;
}

// MARK: Opening

streamjpeg_decoder *streamjpeg_create(void) {
    streamjpeg_decoder *d = calloc(1, sizeof *d);
    if (d != NULL) {
        d->source.fd = -1;
        d->pixel_budget = STREAMJPEG_DEFAULT_PIXEL_BUDGET;
    }
    return d;
}

int streamjpeg_set_pixel_budget(streamjpeg_decoder *d, uint64_t pixels) {
    if (d->state != 0 || d->owns_fd || pixels < 1)
        return sj_fail(d, STREAMJPEG_BAD_ARGUMENT, "set_pixel_budget after open, or a budget of 0");
    d->pixel_budget = pixels;
    return STREAMJPEG_OK;
}

static void free_cursors(streamjpeg_decoder *d) {
    if (d->cursors == NULL) return;
    for (int i = 0; i < d->scan_count; i++) reader_free(&d->cursors[i].reader);
    free(d->cursors);
    d->cursors = NULL;
}

void streamjpeg_destroy(streamjpeg_decoder *d) {
    if (d == NULL) return;
    free_cursors(d);
    for (int c = 0; c < 4; c++) {
        free(d->component[c].row);
        free(d->component[c].plane);
        free(d->component[c].column);
    }
    free(d->scans);
    for (int i = 0; i < d->table_count; i++) free(d->tables[i].lookup);
    free(d->tables);
    if (d->owns_fd) close(d->source.fd);
    free(d);
}

static int open_source(streamjpeg_decoder *d) {
    int status = first_pass(d);
    if (status != STREAMJPEG_OK) return status;
    d->state = SJ_OPENED;
    return STREAMJPEG_OK;
}

int streamjpeg_open_file(streamjpeg_decoder *d, const char *path) {
    if (d->state != 0 || d->owns_fd) return sj_fail(d, STREAMJPEG_BAD_ARGUMENT, "decoder already opened");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return sj_fail(d, STREAMJPEG_IO, "cannot open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return sj_fail(d, STREAMJPEG_IO, "%s is not a regular file", path);
    }
    d->source.fd = fd;
    d->owns_fd = 1;
    d->source.size = (uint64_t)st.st_size;
    if (st.st_size == 0) return sj_fail(d, STREAMJPEG_NOT_JPEG, "empty input");
    return open_source(d);
}

int streamjpeg_open_memory(streamjpeg_decoder *d, const void *data, size_t size) {
    if (d->state != 0 || d->owns_fd) return sj_fail(d, STREAMJPEG_BAD_ARGUMENT, "decoder already opened");
    if (size == 0 || data == NULL) return sj_fail(d, STREAMJPEG_NOT_JPEG, "empty input");
    d->source.memory = data;
    d->source.size = size;
    return open_source(d);
}

int streamjpeg_width(const streamjpeg_decoder *d) { return d->width; }
int streamjpeg_height(const streamjpeg_decoder *d) { return d->height; }
int streamjpeg_components(const streamjpeg_decoder *d) { return d->count; }
int streamjpeg_scans(const streamjpeg_decoder *d) { return d->scan_count; }
int streamjpeg_mcu_rows(const streamjpeg_decoder *d) { return d->mcu_rows; }
uint64_t streamjpeg_work(const streamjpeg_decoder *d) { return d->work; }
uint64_t streamjpeg_work_budget(const streamjpeg_decoder *d) {
    return d->pixel_budget / 64 * STREAMJPEG_SCAN_ALLOWANCE;
}
const char *streamjpeg_message(const streamjpeg_decoder *d) { return d->message; }

int streamjpeg_component_blocks(const streamjpeg_decoder *d, int component, int *blocks_wide, int *blocks_high) {
    if (d->state != SJ_OPENED || component < 0 || component >= d->count) return STREAMJPEG_BAD_ARGUMENT;
    *blocks_wide = d->component[component].blocks_wide;
    *blocks_high = d->component[component].blocks_high;
    return STREAMJPEG_OK;
}

// MARK: Cursors

static int start_cursors(streamjpeg_decoder *d) {
    for (int c = 0; c < d->count; c++) {
        struct sj_component *comp = &d->component[c];
        comp->row = malloc((size_t)comp->v * (size_t)comp->row_blocks * 64 * sizeof(int16_t));
        if (comp->row == NULL) return sj_fail(d, STREAMJPEG_NO_MEMORY, "out of memory for a row of coefficients");
    }
    d->cursors = calloc((size_t)d->scan_count, sizeof *d->cursors);
    if (d->cursors == NULL) return sj_fail(d, STREAMJPEG_NO_MEMORY, "out of memory for the cursors");
    // Read buffers: 4 KiB each, smaller when there are many scans (at most 1 MiB together).
    size_t capacity = (size_t)(1 << 20) / (size_t)d->scan_count;
    if (capacity > 4096) capacity = 4096;
    if (capacity < 512) capacity = 512;
    for (int i = 0; i < d->scan_count; i++) {
        struct sj_cursor *cur = &d->cursors[i];
        cur->scan = &d->scans[i];
        cur->restarts_to_go = cur->scan->restart_interval;
        if (!reader_init(&cur->reader, &d->source, cur->scan->data_offset, capacity)) {
            free_cursors(d);
            return sj_fail(d, STREAMJPEG_NO_MEMORY, "out of memory for the cursors' buffers");
        }
    }
    return STREAMJPEG_OK;
}

// Tops the bit buffer up to at least 56 bits (at most 63): the valid bits are the top ones, the
// rest zero, so a peek is one shift by a constant. Past a marker (or the end) it feeds zeros and counts them, so a
// cursor that reads into them is caught after its block. The slow path: byte by byte.
static void fill_bits(struct sj_cursor *c) {
    while (c->bit_count < 56) {
        int byte = 0;
        if (c->marker == 0) {
            int b = reader_byte(&c->reader);
            if (b == 0xFF) {
                int next;
                do next = reader_byte(&c->reader);
                while (next == 0xFF);
                if (next == 0)
                    byte = 0xFF;
                else
                    c->marker = next < 0 ? -1 : next;
            } else if (b < 0) {
                c->marker = -1;
            } else {
                byte = b;
            }
        }
        if (c->marker != 0) c->zero_bits += 8;
        c->bits |= (uint64_t)byte << (56 - c->bit_count);
        c->bit_count += 8;
    }
}

// The bit reading a block does: inlined always, so that the window stays in registers.
#define HOT static inline __attribute__((always_inline))

// A cursor's bit buffer held in locals while a block decodes, so that the compiler keeps it in
// registers: the cursor's copy is written back only around the slow refill and after the block.
// `count` valid bits are the top ones of `bits` (the rest zero); callers make sure `count` covers
// what they read.
struct window {
    uint64_t bits;
    int count;
};

static inline struct window window_of(const struct sj_cursor *c) { return (struct window){c->bits, c->bit_count}; }

static inline void window_save(struct sj_cursor *c, struct window w) {
    c->bits = w.bits;
    c->bit_count = w.count;
}

static inline int has_ff_byte(uint64_t v) {
    uint64_t inverted = ~v;  // a 0xFF byte is a zero byte of the inverse
    return ((inverted - 0x0101010101010101ull) & ~inverted & 0x8080808080808080ull) != 0;
}

// Tops the window up to at least 56 bits; called with fewer than 56. The fast path (libjpeg-turbo's
// jdhuff.c has its like): eight bytes left in the read buffer and none of them 0xFF, so no stuffed
// byte and no marker among them: as many whole bytes as fit go in at once, with no test a byte.
// Anything else goes byte by byte through fill_bits.
HOT void refill(struct sj_cursor *c, struct window *w) {
    struct sj_reader *r = &c->reader;
    if (c->marker == 0 && r->length - r->at >= 8) {
        uint64_t next;
        memcpy(&next, r->data + r->at, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        next = __builtin_bswap64(next);  // the first byte on top
#endif
        if (!has_ff_byte(next)) {
            int take = (63 - w->count) >> 3;  // 1...7 whole bytes
            w->bits |= (next >> (64 - take * 8)) << (64 - take * 8 - w->count);
            w->count += take * 8;
            r->at += (size_t)take;
            return;
        }
    }
    window_save(c, *w);
    fill_bits(c);
    *w = window_of(c);
}

// Every read of a symbol and its extra bits (at most 16 + 15) starts with this.
HOT void window_need(struct sj_cursor *c, struct window *w, int n) {
    if (w->count < n) refill(c, w);
}

HOT void window_skip(struct window *w, int n) {  // n <= count
    w->bits <<= n;
    w->count -= n;
}

HOT unsigned window_get(struct window *w, int n) {  // n <= count, n <= 16 (0 gives 0)
    unsigned v = (unsigned)((w->bits >> 1) >> (63 - n));
    window_skip(w, n);
    return v;
}

HOT unsigned window_bit(struct sj_cursor *c, struct window *w) {
    window_need(c, w, 1);
    return window_get(w, 1);
}

static inline int extend(unsigned v, int s) {
    return s == 0 ? 0 : (v < (1u << (s - 1)) ? (int)v - (1 << s) + 1 : (int)v);
}

// A code longer than the lookahead: (length << 8) | symbol, or -1 for a code no table holds.
static int decode_long_code(uint64_t bits, const struct sj_huffman *t) {
    int l = t->lookahead;
    int32_t code = (int32_t)(bits >> (64 - l));
    while (l < 16 && code > t->maxcode[l]) {
        l++;
        code = (int32_t)(bits >> (64 - l));
    }
    if (code > t->maxcode[l]) return -1;
    return (l << 8) | t->values[code + t->valoffset[l]];
}

// A whole-coefficient entry's (length << 8) | symbol: the magnitude's size from the value's bits.
static inline unsigned symbol_of_whole(unsigned entry) {
    int value = (int8_t)(entry & 255);
    int size = 32 - __builtin_clz((unsigned)(value < 0 ? -value : value));
    return ((entry >> 12) - (unsigned)size) << 8 | ((entry >> 8) & 15) << 4 | (unsigned)size;
}

// The symbol of a `lookup` entry that is not a whole coefficient's: the code's bits skipped.
// -1 for a code no table holds. The window holds at least 16 bits.
HOT int symbol_of(struct window *w, const struct sj_huffman *t, unsigned entry) {
    if (entry == 0) {
        int found = decode_long_code(w->bits, t);
        if (found < 0) return -1;
        entry = (unsigned)found;
    }
    window_skip(w, (int)(entry >> 8));
    return (int)(entry & 255);
}

// A Huffman symbol, or -1 for a code no table holds. The window holds at least 16 bits.
HOT int decode_symbol(struct window *w, const struct sj_huffman *t) {
    unsigned entry = t->lookup[w->bits >> (64 - t->lookahead)];
    if (__builtin_expect(entry >> 12 != 0, 0)) entry = symbol_of_whole(entry);  // a refinement scan's
    return symbol_of(w, t, entry);
}

// The same for a table whose lookahead is SJ_LOOKAHEAD (every DC table, and the AC tables only
// refinement scans read): a shift by a constant, and no whole-coefficient entries.
HOT int decode_symbol_9(struct window *w, const struct sj_huffman *t) {
    return symbol_of(w, t, t->lookup[w->bits >> (64 - SJ_LOOKAHEAD)]);
}

struct block_context {
    streamjpeg_decoder *d;
    struct sj_cursor *cursor;
    int index;  // the component's place in the scan
};

static int bad_code(struct block_context *b) {
    return sj_fail(b->d, STREAMJPEG_DECODE_FAILED, "scan %d: corrupt entropy data (a Huffman code no table holds)",
                   (int)(b->cursor - b->d->cursors) + 1);
}

// A DC difference added to the component's predictor: the coefficient before any point transform.
// 0, or -1 for a code no table holds.
HOT int decode_dc(struct block_context *b, struct window *w, const struct sj_huffman *dc, int *value) {
    int t = decode_symbol_9(w, dc);  // a DC table's symbols are at most 15 (checked when built)
    if (t < 0) return -1;
    int diff = extend(window_get(w, t), t);
    *value = (int)((unsigned)b->cursor->dc_predictor[b->index] + (unsigned)diff);
    b->cursor->dc_predictor[b->index] = *value;
    return 0;
}

static int decode_sequential(struct block_context *b, int16_t *block) {
    struct sj_cursor *c = b->cursor;
    const struct sj_scan *s = c->scan;
    const struct sj_huffman *dc = &b->d->tables[s->dc_table[b->index]];
    const struct sj_huffman *ac = &b->d->tables[s->ac_table[b->index]];
    const uint16_t *lookup = ac->lookup;
    struct window w = window_of(c);
    window_need(c, &w, 32);
    int value;
    if (decode_dc(b, &w, dc, &value) < 0) return bad_code(b);
    block[0] = (int16_t)value;
    for (int k = 1; k < 64; k++) {
        // Most codes and their magnitudes fit in the lookahead: one lookup gives the value, and
        // the window needs only the lookahead's bits (a refill every few codes, not every other).
        window_need(c, &w, SJ_WHOLE_LOOKAHEAD);
        unsigned entry = lookup[w.bits >> (64 - SJ_WHOLE_LOOKAHEAD)];
        if (entry >> 12) {
            window_skip(&w, (int)(entry >> 12));
            k += (int)((entry >> 8) & 15);
            block[natural_order[k]] = (int8_t)(entry & 255);
            continue;
        }
        window_need(c, &w, 32);  // the top bits, and so `entry`, stay
        int rs = symbol_of(&w, ac, entry);
        if (rs < 0) return bad_code(b);
        int r = rs >> 4, sz = rs & 15;
        if (sz) {
            k += r;
            block[natural_order[k]] = (int16_t)extend(window_get(&w, sz), sz);
        } else {
            if (r != 15) break;
            k += 15;
        }
    }
    window_save(c, w);
    return STREAMJPEG_OK;
}

static int decode_dc_first(struct block_context *b, int16_t *block) {
    struct sj_cursor *c = b->cursor;
    struct window w = window_of(c);
    window_need(c, &w, 32);
    int value;
    if (decode_dc(b, &w, &b->d->tables[c->scan->dc_table[b->index]], &value) < 0) return bad_code(b);
    block[0] = (int16_t)((unsigned)value << c->scan->al);
    window_save(c, w);
    return STREAMJPEG_OK;
}

static int decode_dc_refine(struct block_context *b, int16_t *block) {
    struct sj_cursor *c = b->cursor;
    struct window w = window_of(c);
    if (window_bit(c, &w)) block[0] = (int16_t)(block[0] | (1 << c->scan->al));
    window_save(c, w);
    return STREAMJPEG_OK;
}

static int decode_ac_first(struct block_context *b, int16_t *block) {
    struct sj_cursor *c = b->cursor;
    const struct sj_scan *s = c->scan;
    if (c->eob_run > 0) {
        c->eob_run--;
        return STREAMJPEG_OK;
    }
    const struct sj_huffman *ac = &b->d->tables[s->ac_table[0]];
    const uint16_t *lookup = ac->lookup;
    struct window w = window_of(c);
    for (int k = s->ss; k <= s->se; k++) {
        window_need(c, &w, SJ_WHOLE_LOOKAHEAD);
        unsigned entry = lookup[w.bits >> (64 - SJ_WHOLE_LOOKAHEAD)];
        if (entry >> 12) {
            window_skip(&w, (int)(entry >> 12));
            k += (int)((entry >> 8) & 15);
            block[natural_order[k]] = (int16_t)((unsigned)(int8_t)(entry & 255) << s->al);
            continue;
        }
        window_need(c, &w, 32);  // the top bits, and so `entry`, stay
        int rs = symbol_of(&w, ac, entry);
        if (rs < 0) return bad_code(b);
        int r = rs >> 4, sz = rs & 15;
        if (sz) {
            k += r;
            block[natural_order[k]] = (int16_t)((unsigned)extend(window_get(&w, sz), sz) << s->al);
        } else if (r == 15) {
            k += 15;
        } else {
            c->eob_run = 1u << r;
            if (r) c->eob_run += window_get(&w, r);
            c->eob_run--;
            break;
        }
    }
    window_save(c, w);
    return STREAMJPEG_OK;
}

// A correction bit for a coefficient already non-zero: its magnitude grows by 1 << Al.
HOT void refine(struct sj_cursor *c, struct window *w, int16_t *coef, int p1, int m1) {
    if (window_bit(c, w) && (*coef & p1) == 0) *coef = (int16_t)(*coef + (*coef >= 0 ? p1 : m1));
}

// Always inlined into two block decoders: `nine` says the AC table's lookahead is SJ_LOOKAHEAD (the
// table no first scan shares, nearly always), so that its symbols are read as a DC table's are.
HOT int decode_ac_refine_with(struct block_context *b, int16_t *block, const int nine) {
    struct sj_cursor *c = b->cursor;
    const struct sj_scan *s = c->scan;
    int p1 = 1 << s->al, m1 = (int)((unsigned)-1 << s->al);
    int k = s->ss;
    const int se = s->se;  // in a register: the loops below test it at every coefficient
    struct window w = window_of(c);
    if (c->eob_run == 0) {
        const struct sj_huffman *ac = &b->d->tables[s->ac_table[0]];
        for (; k <= se; k++) {
            window_need(c, &w, 32);
            int rs = nine ? decode_symbol_9(&w, ac) : decode_symbol(&w, ac);
            if (rs < 0) return bad_code(b);
            int r = rs >> 4, sz = rs & 15, value = 0;
            if (sz) {
                if (sz != 1)
                    return sj_fail(b->d, STREAMJPEG_DECODE_FAILED, "scan %d: corrupt refinement data",
                                   (int)(c - b->d->cursors) + 1);
                value = window_get(&w, 1) ? p1 : m1;
            } else if (r != 15) {
                c->eob_run = 1u << r;
                if (r) c->eob_run += window_get(&w, r);
                break;  // the rest of the block goes with the EOB run below
            }
            // Past the already non-zero coefficients (refining each) and r still-zero ones.
            do {
                int16_t *coef = &block[natural_order[k]];
                if (*coef != 0)
                    refine(c, &w, coef, p1, m1);
                else if (--r < 0)
                    break;
                k++;
            } while (k <= se);
            if (value) block[natural_order[k]] = (int16_t)value;
        }
    }
    if (c->eob_run > 0) {
        for (; k <= se; k++) {
            int16_t *coef = &block[natural_order[k]];
            if (*coef != 0) refine(c, &w, coef, p1, m1);
        }
        c->eob_run--;
    }
    window_save(c, w);
    return STREAMJPEG_OK;
}

static int decode_ac_refine(struct block_context *b, int16_t *block) { return decode_ac_refine_with(b, block, 0); }

static int decode_ac_refine_9(struct block_context *b, int16_t *block) { return decode_ac_refine_with(b, block, 1); }

typedef int (*block_decoder)(struct block_context *, int16_t *);

static block_decoder decoder_for(const streamjpeg_decoder *d, const struct sj_scan *s) {
    if (!d->progressive) return decode_sequential;
    if (s->ss == 0) return s->ah == 0 ? decode_dc_first : decode_dc_refine;
    if (s->ah == 0) return decode_ac_first;
    return d->tables[s->ac_table[0]].lookahead == SJ_LOOKAHEAD ? decode_ac_refine_9 : decode_ac_refine;
}

// At a restart point: drop the bits left, expect RSTn, reset the predictors and EOB run.
static int process_restart(streamjpeg_decoder *d, struct sj_cursor *c) {
    c->bit_count = 0;
    c->zero_bits = 0;
    c->bits = 0;
    int marker = c->marker;
    if (marker == 0) {
        int b = reader_byte(&c->reader);
        if (b == 0xFF) {
            do b = reader_byte(&c->reader);
            while (b == 0xFF);
            marker = b < 0 ? -1 : b;
        } else {
            marker = b < 0 ? -1 : 0x100 + b;  // data where the marker should be
        }
    }
    if (marker != 0xD0 + (int)c->next_restart)
        return sj_fail(d, CORRUPT, "scan %d: expected restart marker RST%u, found %s 0x%02X", (int)(c - d->cursors) + 1,
                       c->next_restart, marker >= 0x100 ? "data byte" : "marker", marker < 0 ? 0 : marker & 0xFF);
    c->marker = 0;
    c->next_restart = (c->next_restart + 1) & 7;
    c->restarts_to_go = c->scan->restart_interval;
    c->eob_run = 0;
    memset(c->dc_predictor, 0, sizeof c->dc_predictor);
    return STREAMJPEG_OK;
}

// Before each MCU: a restart when the interval is done. After it: bits read past the data?
static inline int before_mcu(streamjpeg_decoder *d, struct sj_cursor *c) {
    if (c->scan->restart_interval == 0) return STREAMJPEG_OK;
    if (c->restarts_to_go == 0) {
        int status = process_restart(d, c);
        if (status != STREAMJPEG_OK) return status;
    }
    c->restarts_to_go--;
    return STREAMJPEG_OK;
}

static inline int after_mcu(streamjpeg_decoder *d, struct sj_cursor *c, int row) {
    if (c->bit_count >= c->zero_bits) return STREAMJPEG_OK;
    if (c->reader.failed) return sj_fail(d, STREAMJPEG_IO, "cannot read the input: %s", strerror(errno));
    if (c->marker < 0)
        return sj_fail(d, CORRUPT, "scan %d: the file ends inside its entropy data (MCU row %d)",
                       (int)(c - d->cursors) + 1, row);
    return sj_fail(d, CORRUPT, "scan %d: its entropy data ends early, at marker 0xFF%02X (MCU row %d)",
                   (int)(c - d->cursors) + 1, c->marker, row);
}

static int cursor_decode_row(streamjpeg_decoder *d, struct sj_cursor *c, int row) {
    const struct sj_scan *s = c->scan;
    block_decoder decode = decoder_for(d, s);
    struct block_context b = {d, c, 0};
    int status;
    if (s->count == 1) {  // non-interleaved: the component's own blocks, one an MCU
        struct sj_component *comp = &d->component[s->component[0]];
        int first = row * comp->v, last = first + comp->v;
        if (last > comp->blocks_high) last = comp->blocks_high;
        for (int by = first; by < last; by++) {
            int16_t *blocks = comp->row + (size_t)(by - first) * (size_t)comp->row_blocks * 64;
            for (int bx = 0; bx < comp->blocks_wide; bx++) {
                if ((status = before_mcu(d, c)) != STREAMJPEG_OK) return status;
                if ((status = decode(&b, blocks + (size_t)bx * 64)) != STREAMJPEG_OK) return status;
                if ((status = after_mcu(d, c, row)) != STREAMJPEG_OK) return status;
            }
        }
        return STREAMJPEG_OK;
    }
    for (int m = 0; m < d->mcus_wide; m++) {  // interleaved: whole MCUs
        if ((status = before_mcu(d, c)) != STREAMJPEG_OK) return status;
        for (int i = 0; i < s->count; i++) {
            struct sj_component *comp = &d->component[s->component[i]];
            b.index = i;
            for (int y = 0; y < comp->v; y++)
                for (int x = 0; x < comp->h; x++) {
                    size_t at = ((size_t)y * (size_t)comp->row_blocks + (size_t)(m * comp->h + x)) * 64;
                    if ((status = decode(&b, comp->row + at)) != STREAMJPEG_OK) return status;
                }
        }
        if ((status = after_mcu(d, c, row)) != STREAMJPEG_OK) return status;
    }
    return STREAMJPEG_OK;
}

// After its last block a scan's entropy data must be used up: less than a byte of padding before
// its marker. More is data the frame header does not account for (libjpeg warns "extraneous bytes
// before marker", which CJPEGCodec refuses as well).
static int check_scan_end(streamjpeg_decoder *d, struct sj_cursor *c) {
    int extra = c->bit_count - c->zero_bits >= 8;
    if (!extra && c->marker == 0) {
        int b = reader_byte(&c->reader);
        if (b == 0xFF) {
            do b = reader_byte(&c->reader);
            while (b == 0xFF);
            extra = b == 0;  // a stuffed 0xFF: data (a restart marker after the last block is allowed)
        } else {
            extra = b >= 0;
        }
    }
    if (!extra) return STREAMJPEG_OK;
    return sj_fail(d, CORRUPT, "scan %d: entropy data goes on after the last block of the %dx%d frame",
                   (int)(c - d->cursors) + 1, d->width, d->height);
}

int streamjpeg_decode_row(streamjpeg_decoder *d) {
    if (d->state != SJ_OPENED)
        return sj_fail(d, STREAMJPEG_BAD_ARGUMENT, "decode_row on a decoder not opened or failed");
    if (d->next_row >= d->mcu_rows) return sj_fail(d, STREAMJPEG_BAD_ARGUMENT, "decode_row past the last MCU row");
    if (d->cursors == NULL) {
        int status = start_cursors(d);
        if (status != STREAMJPEG_OK) return status;
    }
    for (int c = 0; c < d->count; c++) {
        struct sj_component *comp = &d->component[c];
        memset(comp->row, 0, (size_t)comp->v * (size_t)comp->row_blocks * 64 * sizeof(int16_t));
    }
    for (int i = 0; i < d->scan_count; i++) {
        int status = cursor_decode_row(d, &d->cursors[i], d->next_row);
        if (status == STREAMJPEG_OK && d->next_row == d->mcu_rows - 1) status = check_scan_end(d, &d->cursors[i]);
        if (status != STREAMJPEG_OK) return status;
    }
    d->next_row++;
    return STREAMJPEG_OK;
}

int streamjpeg_row_coefficients(streamjpeg_decoder *d, int component, int16_t *dst, size_t dst_count, int *rows) {
    if (d->state != SJ_OPENED || d->next_row == 0 || component < 0 || component >= d->count)
        return sj_fail(d, STREAMJPEG_BAD_ARGUMENT, "row_coefficients before decode_row, or no such component");
    struct sj_component *comp = &d->component[component];
    int first = (d->next_row - 1) * comp->v, count = comp->v;
    if (first + count > comp->blocks_high) count = comp->blocks_high - first;
    if (count < 0) count = 0;
    size_t row = (size_t)comp->blocks_wide * 64;
    if (dst_count < (size_t)count * row) return sj_fail(d, STREAMJPEG_BAD_ARGUMENT, "buffer too small for the row");
    for (int y = 0; y < count; y++)
        memcpy(dst + (size_t)y * row, comp->row + (size_t)y * (size_t)comp->row_blocks * 64, row * sizeof(int16_t));
    *rows = count;
    return STREAMJPEG_OK;
}
