// Deterministic photo-like test image: smooth multi-scale value noise (large
// shapes down to fine texture), contour "objects" with sharp edges, slow colour
// casts, a vertical light gradient, and per-pixel grain whose amplitude sets the
// compressed size. Integer / fixed-point arithmetic only (no floating point,
// no libc random), so the pixels are identical on every machine.
// Note: `>>` on negative ints is arithmetic on every compiler Swift supports.
#pragma clang diagnostic error "-Wall"
#pragma clang diagnostic error "-Wextra"
#include "CJPEGCodec.h"

#include <stdlib.h>

// SplitMix64's output function: a good 64-bit mixer, used as a stateless hash.
static uint64_t mix64(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// One octave of value noise: random values on a lattice every 2^shift pixels,
// interpolated with smoothstep. Lattice values are in [-1024, 1023].
enum { LAYER_COUNT = 8 };
struct layer {
    int shift;
    int gw, gh;      // lattice size: covers the image plus one extra cell
    int16_t *grid;   // gh rows of gw values
    uint16_t *ease;  // smoothstep(t / 2^shift) * 256, for t in 0..<2^shift
};

// Layer roles, by index (amplitudes are applied in jpegcodec_fixture_row).
enum { L_HUGE, L_LARGE, L_MEDIUM, L_SMALL, L_FINE, C_RED, C_BLUE, C_DETAIL };
static const int layer_shift[LAYER_COUNT] = {10, 8, 6, 4, 2, 9, 9, 7};

struct jpegcodec_fixture {
    int width, height, grain;
    uint64_t seed;
    struct layer layers[LAYER_COUNT];
};

void jpegcodec_fixture_destroy(jpegcodec_fixture *f) {
    if (f == NULL) return;
    for (int k = 0; k < LAYER_COUNT; k++) {
        free(f->layers[k].grid);
        free(f->layers[k].ease);
    }
    free(f);
}

jpegcodec_fixture *jpegcodec_fixture_create(int width, int height, uint64_t seed, int grain) {
    if (width < 1 || height < 1 || width > 65535 || height > 65535 || grain < 0) return NULL;
    jpegcodec_fixture *f = calloc(1, sizeof *f);
    if (f == NULL) return NULL;
    f->width = width;
    f->height = height;
    f->seed = seed;
    f->grain = grain;
    for (int k = 0; k < LAYER_COUNT; k++) {
        struct layer *l = &f->layers[k];
        int cell = 1 << layer_shift[k];
        l->shift = layer_shift[k];
        l->gw = (width >> l->shift) + 2;
        l->gh = (height >> l->shift) + 2;
        l->grid = malloc(sizeof(int16_t) * (size_t)l->gw * (size_t)l->gh);
        l->ease = malloc(sizeof(uint16_t) * (size_t)cell);
        if (l->grid == NULL || l->ease == NULL) {
            jpegcodec_fixture_destroy(f);
            return NULL;
        }
        uint64_t layer_key = mix64(seed ^ ((uint64_t)(k + 1) << 56));
        for (int gy = 0; gy < l->gh; gy++)
            for (int gx = 0; gx < l->gw; gx++) {
                uint64_t h = mix64(layer_key ^ ((uint64_t)gy << 32) ^ (uint64_t)gx);
                l->grid[(size_t)gy * l->gw + gx] = (int16_t)((int)(h >> 53) - 1024);
            }
        for (int t = 0; t < cell; t++) {
            int64_t u = ((int64_t)t << 16) >> l->shift;               // t / cell in 16.16
            int64_t s = ((u * u) >> 16) * (3 * 65536 - 2 * u) >> 16;  // 3u^2 - 2u^3
            l->ease[t] = (uint16_t)(s >> 8);                          // 0...255
        }
    }
    return f;
}

static int clamp_int(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// A soft step from 0 to 1024 over a few raw units around `level`: turns a smooth
// field into regions with sharp (2 to 4 px) boundaries, like objects in a photo.
static int step_edge(int v, int level) { return clamp_int((v - level) * 64, 0, 1024); }

void jpegcodec_fixture_row(const jpegcodec_fixture *f, int y, uint8_t *rgb) {
    // Interpolate every layer vertically once for this row; the pixel loop then
    // only interpolates horizontally.
    int32_t *rows[LAYER_COUNT];
    size_t total = 0;
    for (int k = 0; k < LAYER_COUNT; k++) total += (size_t)f->layers[k].gw;
    int32_t *scratch = malloc(sizeof(int32_t) * total);
    if (scratch == NULL) return;  // cannot happen in practice; leaves the row as is
    int32_t *next = scratch;
    for (int k = 0; k < LAYER_COUNT; k++) {
        const struct layer *l = &f->layers[k];
        const int16_t *g0 = l->grid + (size_t)(y >> l->shift) * l->gw;
        const int16_t *g1 = g0 + l->gw;
        int ey = l->ease[y & ((1 << l->shift) - 1)];
        for (int gx = 0; gx < l->gw; gx++) next[gx] = g0[gx] + (((g1[gx] - g0[gx]) * ey) >> 8);
        rows[k] = next;
        next += l->gw;
    }

    // Brighter towards the top, like a sky: +-20 levels.
    int light = 110 + (f->height / 2 - y) * 40 / f->height;
    uint64_t row_key = mix64(f->seed ^ 0xA5A5A5A5ull ^ ((uint64_t)y << 32));
    int grain = f->grain;

    for (int x = 0; x < f->width; x++) {
        int v[LAYER_COUNT];
        for (int k = 0; k < LAYER_COUNT; k++) {
            const struct layer *l = &f->layers[k];
            int gx = x >> l->shift;
            int a = rows[k][gx], b = rows[k][gx + 1];
            v[k] = a + (((b - a) * l->ease[x & ((1 << l->shift) - 1)]) >> 8);
        }
        // Structure: amplitudes in grey levels per octave (value * amp / 1024). The
        // strong 4 px octave is fine texture (foliage, fabric); with the grain it
        // carries most of the entropy, so the file size depends on both.
        int luma =
            light + ((v[L_HUGE] * 55 + v[L_LARGE] * 30 + v[L_MEDIUM] * 16 + v[L_SMALL] * 16 + v[L_FINE] * 28) >> 10);
        int object = step_edge(v[L_LARGE], 200);   // big shapes
        int detail = step_edge(v[L_MEDIUM], 300);  // smaller ones
        luma += (object * 36 + detail * 18) >> 10;
        int cr = (v[C_RED] * 30 + v[C_DETAIL] * 12 + object * 14) >> 10;
        int cb = (v[C_BLUE] * 30 - object * 10) >> 10;

        // Grain: triangular noise from one hash per pixel, mostly luminance.
        uint64_t h = mix64(row_key + (uint64_t)x);
        int n_luma = (int)(h & 0xFF) + (int)((h >> 8) & 0xFF) - 255;  // -255...255
        int n_red = (int)((h >> 16) & 0xFF) - 128;
        int n_blue = (int)((h >> 24) & 0xFF) - 128;
        int g = (n_luma * grain) >> 8;
        int gr = (n_red * grain) >> 10, gb = (n_blue * grain) >> 10;

        rgb[3 * x + 0] = (uint8_t)clamp_int(luma + cr + g + gr, 0, 255);
        rgb[3 * x + 1] = (uint8_t)clamp_int(luma - ((cr + cb) >> 1) + g, 0, 255);
        rgb[3 * x + 2] = (uint8_t)clamp_int(luma + cb + g + gb, 0, 255);
    }
    free(scratch);
}
