// From a row of coefficients to output pixels: scaled IDCT, chroma upsampling, colour
// conversion, then the shared area-averaging resampler (CResample), which holds two output rows.
#pragma clang diagnostic error "-Wall"
#pragma clang diagnostic error "-Wextra"
#include "internal.h"

#include <CResample.h>

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// cosines[M - 1][x][u]: the 1-D kernel of an M-point IDCT, normalised as the 8-point one (its DC
// gives the block mean), as libjpeg-turbo computes each size. M = 2 and 4 (jidctred.c): the mean of
// 8 / M adjacent outputs of the 8-point IDCT, from all 8 coefficients (the exact area average of
// the full decode). Other M (jidctint.c): C(u) cos((2x + 1) u pi / 2M) / 2, C(0) = 1/sqrt(2), of
// the first min(M, 8) coefficients; M up to 16, for a subsampled component scaled up by its IDCT.
// Built once by the first render, whatever thread it runs on: pthread_once orders every other
// thread's reads after the table is complete (decoders render on many threads at once).
static float cosines[16][16][8];
static pthread_once_t cosines_once = PTHREAD_ONCE_INIT;

static double kernel(int m, int x, int u) {
    return (u == 0 ? M_SQRT1_2 : 1.0) * cos((2 * x + 1) * u * M_PI / (2.0 * m)) / 2.0;
}

static inline int kernel_taps(int m) { return m == 2 || m == 4 ? 8 : m < 8 ? m : 8; }

// Averaging 8 / M outputs cancels some frequencies exactly: u = 2, 4 and 6 at M = 2 (jidctred.c's
// 2x2 reads coefficients 0, 1, 3, 5 and 7 only), u = 4 at M = 4. Their kernel is zero, so the IDCT
// skips them, the coefficient's dequantization as well.
static inline int kernel_tap_zero(int m, int u) { return (m == 2 && u != 0 && (u & 1) == 0) || (m == 4 && u == 4); }

static void make_cosines(void) {
    for (int m = 1; m <= 16; m++)
        for (int x = 0; x < m; x++)
            for (int u = 0; u < kernel_taps(m); u++) {
                double value;
                if (m != 2 && m != 4) {
                    value = kernel(m, x, u);
                } else {
                    double sum = 0;
                    for (int j = 0; j < 8 / m; j++) sum += kernel(8, x * (8 / m) + j, u);
                    value = sum / (8 / m);
                }
                // cos of an odd multiple of pi / 2 is zero, not the 1e-17 the doubles give.
                cosines[m - 1][x][u] = fabs(value) < 1e-9 ? 0.0f : (float)value;
            }
}

static inline uint8_t clamp_sample(float v) {
    if (v <= 0) return 0;
    if (v >= 255) return 255;
    return (uint8_t)(v + 0.5f);
}

// The 1-D IDCT of M outputs from the taps at in[0], in[step], ... By the kernel's symmetry
// (k[M - 1 - x][u] = (-1)^u k[x][u]) output M - 1 - x is output x's even taps' sum minus its odd
// taps' where output x is their sum: half the products. The middle output of an odd M has no odd
// part (its odd taps are cosines of odd multiples of pi / 2).
static inline __attribute__((always_inline)) void idct_1d(const float (*k)[8], int m, const float *in, int step,
                                                          float *out) {
    int taps = kernel_taps(m);
    for (int x = 0; x < (m + 1) / 2; x++) {
        float even = 0, odd = 0;
        for (int u = 0; u < taps; u += 2)
            if (!kernel_tap_zero(m, u)) even += k[x][u] * in[u * step];
        if (2 * x + 1 == m) {
            out[x] = even;
            continue;
        }
        for (int u = 1; u < taps; u += 2) odd += k[x][u] * in[u * step];
        out[x] = even + odd;
        out[m - 1 - x] = even - odd;
    }
}

// IDCT of one block to mh x mv samples (mh, mv in 1...16), dequantizing as it goes. Always inlined,
// so that idct_block's calls with constant sizes unroll.
static inline __attribute__((always_inline)) void idct_sized(const int16_t *coef, const float *quant, int mh, int mv,
                                                             uint8_t *out, size_t stride) {
    float work[8][16];                               // [v][x]: rows transformed
    int nu = kernel_taps(mh), nv = kernel_taps(mv);  // the coefficients each direction uses
    unsigned rows = 0;                               // the rows with a coefficient that is not zero
    for (int v = 0; v < nv; v++) {
        if (kernel_tap_zero(mv, v)) continue;
        uint64_t halves[2];  // the row's eight coefficients, tested at once (most rows are zeros)
        memcpy(halves, coef + v * 8, sizeof halves);
        if ((halves[0] | halves[1]) == 0) {
            for (int x = 0; x < mh; x++) work[v][x] = 0;
            continue;
        }
        float g[8];
        int any = 0;
        for (int u = 0; u < nu; u++) {
            if (kernel_tap_zero(mh, u)) continue;
            g[u] = (float)coef[v * 8 + u] * quant[v * 8 + u];
            any |= coef[v * 8 + u];
        }
        if (any) {
            rows |= 1u << v;
            idct_1d(cosines[mh - 1], mh, g, 1, work[v]);
        } else {
            for (int x = 0; x < mh; x++) work[v][x] = 0;
        }
    }
    if ((rows & ~1u) == 0) {
        // Only the first row (or none): every column is flat, its value the DC tap (the same for
        // every y) times the row's, which is what the column pass below would sum (the other
        // rows' products are zeros).
        for (int x = 0; x < mh; x++) {
            uint8_t sample = clamp_sample(cosines[mv - 1][0][0] * work[0][x] + 128.0f);
            for (int y = 0; y < mv; y++) out[(size_t)y * stride + (size_t)x] = sample;
        }
        return;
    }
    for (int x = 0; x < mh; x++) {
        float column[16];
        idct_1d(cosines[mv - 1], mv, &work[0][x], 16, column);
        for (int y = 0; y < mv; y++) out[(size_t)y * stride + (size_t)x] = clamp_sample(column[y] + 128.0f);
    }
}

// The square sizes a render uses most (M/8 of a 4:4:4 or 4:2:0 file, its chroma doubled) get
// their own unrolled copies.
static void idct_block(const int16_t *coef, const float *quant, int mh, int mv, uint8_t *out, size_t stride) {
    if (mh == mv) {
        switch (mh) {
        case 1: idct_sized(coef, quant, 1, 1, out, stride); return;
        case 2: idct_sized(coef, quant, 2, 2, out, stride); return;
        case 3: idct_sized(coef, quant, 3, 3, out, stride); return;
        case 4: idct_sized(coef, quant, 4, 4, out, stride); return;
        case 6: idct_sized(coef, quant, 6, 6, out, stride); return;
        case 8: idct_sized(coef, quant, 8, 8, out, stride); return;
        default: break;
        }
    }
    idct_sized(coef, quant, mh, mv, out, stride);
}

int streamjpeg_set_output(streamjpeg_decoder *d, int max_pixel, int *output_width, int *output_height,
                          int *scale_numerator) {
    if (d->state != SJ_OPENED || max_pixel < 1)
        return sj_fail(d, STREAMJPEG_BAD_ARGUMENT, "set_output before open, or max_pixel < 1");
    int width, height;
    resample_output_size(d->width, d->height, max_pixel, &width, &height);
    int m = 1;
    while (m < 8 && (((long)d->width * m + 7) / 8 < width || ((long)d->height * m + 7) / 8 < height)) m++;
    d->out_width = width;
    d->out_height = height;
    d->scale = m;
    *output_width = width;
    *output_height = height;
    *scale_numerator = m;
    return STREAMJPEG_OK;
}

// MARK: Colour

// YCbCr to RGB in libjpeg's fixed point (jdcolor.c: 16 fraction bits, its rounding), so that only
// the IDCT's rounding separates our samples from libjpeg-turbo's.
enum { SCALEBITS = 16 };
#define FIX(x) ((int32_t)((x) * (1 << SCALEBITS) + 0.5))

static inline uint8_t clamp_int(int v) { return v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v; }

static inline void ycc_to_rgb(int y, int cb, int cr, uint8_t *rgb) {
    int32_t b = cb - 128, r = cr - 128;
    rgb[0] = clamp_int(y + (int)((FIX(1.40200) * r + (1 << (SCALEBITS - 1))) >> SCALEBITS));
    rgb[1] = clamp_int(y + (int)((-FIX(0.34414) * b - FIX(0.71414) * r + (1 << (SCALEBITS - 1))) >> SCALEBITS));
    rgb[2] = clamp_int(y + (int)((FIX(1.77200) * b + (1 << (SCALEBITS - 1))) >> SCALEBITS));
}

// CMYK to RGB as CJPEGCodec does: with an Adobe marker, CMYK is stored inverted (255 = no ink).
static inline void cmyk_to_rgb(int c, int m, int y, int k, int inverted, uint8_t *rgb) {
    if (!inverted) {
        c = 255 - c;
        m = 255 - m;
        y = 255 - y;
        k = 255 - k;
    }
    rgb[0] = (uint8_t)((c * k + 127) / 255);
    rgb[1] = (uint8_t)((m * k + 127) / 255);
    rgb[2] = (uint8_t)((y * k + 127) / 255);
}

// YCbCr whose three planes are at the scaled image's own width (4:4:4, or chroma scaled up by its IDCT).
static void convert_ycc_row(const uint8_t *y, const uint8_t *cb, const uint8_t *cr, int width, uint8_t *rgb) {
    for (int x = 0; x < width; x++, rgb += 3) ycc_to_rgb(y[x], cb[x], cr[x], rgb);
}

static void convert_row(const streamjpeg_decoder *d, const uint8_t *const *samples, int width, uint8_t *rgb) {
    if (d->color == SJ_YCC && d->planes_full_width) {
        convert_ycc_row(samples[0], samples[1], samples[2], width, rgb);
        return;
    }
    const uint16_t *col[4];
    for (int c = 0; c < d->count; c++) col[c] = d->component[c].column;
    for (int x = 0; x < width; x++, rgb += 3) {
        switch (d->color) {
        case SJ_GRAY: rgb[0] = rgb[1] = rgb[2] = samples[0][col[0][x]]; break;
        case SJ_RGB:
            for (int c = 0; c < 3; c++) rgb[c] = samples[c][col[c][x]];
            break;
        case SJ_YCC: ycc_to_rgb(samples[0][col[0][x]], samples[1][col[1][x]], samples[2][col[2][x]], rgb); break;
        case SJ_CMYK:
            cmyk_to_rgb(samples[0][col[0][x]], samples[1][col[1][x]], samples[2][col[2][x]], samples[3][col[3][x]],
                        d->adobe_seen, rgb);
            break;
        default: {  // YCCK: libjpeg turns YCC into inverted CMY, K as it is
            uint8_t cmy[3];
            ycc_to_rgb(samples[0][col[0][x]], samples[1][col[1][x]], samples[2][col[2][x]], cmy);
            cmyk_to_rgb(255 - cmy[0], 255 - cmy[1], 255 - cmy[2], samples[3][col[3][x]], d->adobe_seen, rgb);
        }
        }
    }
}

// MARK: Rendering

static int prepare_planes(streamjpeg_decoder *d, int scaled_width) {
    int m = d->scale;
    d->planes_full_width = 1;
    for (int c = 0; c < d->count; c++) {
        struct sj_component *comp = &d->component[c];
        // A subsampled component's IDCT makes twice the samples a block (or four times) where
        // libjpeg-turbo's does (jdmaster.c: doubled while under 8 and both directions divide);
        // the rest of the way its samples are repeated (box upsampling).
        int size = m;
        while (size < 8 && (d->hmax * m) % (comp->h * size * 2) == 0 && (d->vmax * m) % (comp->v * size * 2) == 0)
            size *= 2;
        comp->scale_h = comp->scale_v = size;
        if (comp->h * size != d->hmax * m) d->planes_full_width = 0;  // a plane column is not a pixel
        for (int i = 0; i < 64; i++) comp->dequant[i] = (float)comp->quant[i];
        size_t width = (size_t)comp->row_blocks * (size_t)comp->scale_h;
        comp->plane = malloc(width * (size_t)comp->v * (size_t)comp->scale_v);
        // 16 bits a column (a column is below the image's width): the 2 bytes a column this saves
        // against an int pay for the 10-bit lookahead of the AC tables (internal.h).
        comp->column = malloc((size_t)scaled_width * sizeof *comp->column);
        if (comp->plane == NULL || comp->column == NULL) return 0;
        for (int x = 0; x < scaled_width; x++)
            comp->column[x] = (uint16_t)((long)x * comp->h * comp->scale_h / ((long)d->hmax * m));
    }
    return 1;
}

static void idct_row(streamjpeg_decoder *d) {
    for (int c = 0; c < d->count; c++) {
        struct sj_component *comp = &d->component[c];
        size_t stride = (size_t)comp->row_blocks * (size_t)comp->scale_h;
        for (int by = 0; by < comp->v; by++)
            for (int bx = 0; bx < comp->row_blocks; bx++) {
                const int16_t *coef = comp->row + ((size_t)by * (size_t)comp->row_blocks + (size_t)bx) * 64;
                uint8_t *out = comp->plane + (size_t)by * comp->scale_v * stride + (size_t)bx * comp->scale_h;
                idct_block(coef, comp->dequant, comp->scale_h, comp->scale_v, out, stride);
            }
    }
}

// The samples of a row as the file holds them (1, 3 or 4 components), chroma upsampled.
static void gather_row(const streamjpeg_decoder *d, const uint8_t *const *samples, int width, uint8_t *out) {
    for (int x = 0; x < width; x++)
        for (int c = 0; c < d->count; c++) *out++ = samples[c][d->component[c].column[x]];
}

// Decodes every MCU row and hands each scaled row (ceil(width x M / 8) pixels) to `sink`: RGB, or
// with `convert` 0 the file's own components.
typedef void (*row_sink)(void *context, const uint8_t *rgb);

static int render_rows(streamjpeg_decoder *d, int convert, row_sink sink, void *context) {
    pthread_once(&cosines_once, make_cosines);
    int m = d->scale;
    int sw = (int)(((long)d->width * m + 7) / 8), sh = (int)(((long)d->height * m + 7) / 8);
    uint8_t *rgb = malloc((size_t)sw * 4);
    if (rgb == NULL || !prepare_planes(d, sw)) {
        free(rgb);
        return sj_fail(d, STREAMJPEG_NO_MEMORY, "out of memory for the working rows");
    }
    int status = STREAMJPEG_OK;
    int band = d->vmax * m;  // scaled rows an MCU row makes
    for (int row = 0; row < d->mcu_rows; row++) {
        if ((status = streamjpeg_decode_row(d)) != STREAMJPEG_OK) break;
        idct_row(d);
        for (int ly = 0; ly < band && row * band + ly < sh; ly++) {
            const uint8_t *samples[4];
            for (int c = 0; c < d->count; c++) {
                const struct sj_component *comp = &d->component[c];
                int plane_row = (int)((long)ly * comp->v * comp->scale_v / band);
                samples[c] = comp->plane + (size_t)plane_row * (size_t)comp->row_blocks * (size_t)comp->scale_h;
            }
            if (convert)
                convert_row(d, samples, sw, rgb);
            else
                gather_row(d, samples, sw, rgb);
            sink(context, rgb);
        }
    }
    free(rgb);
    return status;
}

static void push_to_resampler(void *context, const uint8_t *rgb) { resample_push(context, rgb); }

int streamjpeg_render_rgba(streamjpeg_decoder *d, void *dst, size_t dst_size) {
    if (d->state != SJ_OPENED || d->scale == 0 || d->next_row != 0)
        return sj_fail(d, STREAMJPEG_BAD_ARGUMENT, "render before set_output, or after rows were decoded");
    if (dst_size < (size_t)d->out_width * (size_t)d->out_height * 4)
        return sj_fail(d, STREAMJPEG_BAD_ARGUMENT, "output buffer too small");
    int m = d->scale;
    int sw = (int)(((long)d->width * m + 7) / 8), sh = (int)(((long)d->height * m + 7) / 8);
    struct resample_state r;
    int status;
    if (!resample_init(&r, sw, sh, d->out_width, d->out_height, 3, dst))
        status = sj_fail(d, STREAMJPEG_NO_MEMORY, "out of memory for the working rows");
    else
        status = render_rows(d, 1, push_to_resampler, &r);
    resample_free(&r);
    return status;
}

// MARK: The scaled image (the test hook)

struct scaled_sink {
    uint8_t *next;
    size_t row_bytes;
};

static void copy_row(void *context, const uint8_t *rgb) {
    struct scaled_sink *sink = context;
    memcpy(sink->next, rgb, sink->row_bytes);
    sink->next += sink->row_bytes;
}

int streamjpeg_render_scaled(streamjpeg_decoder *d, int scale_numerator, int convert, void *dst, size_t dst_size) {
    if (d->state != SJ_OPENED || d->next_row != 0 || scale_numerator < 1 || scale_numerator > 8)
        return sj_fail(d, STREAMJPEG_BAD_ARGUMENT, "render_scaled after rows were decoded, or scale not 1...8");
    int sw = (int)(((long)d->width * scale_numerator + 7) / 8), sh = (int)(((long)d->height * scale_numerator + 7) / 8);
    size_t row = (size_t)sw * (size_t)(convert ? 3 : d->count);
    if (dst_size < row * (size_t)sh) return sj_fail(d, STREAMJPEG_BAD_ARGUMENT, "output buffer too small");
    d->scale = scale_numerator;
    struct scaled_sink sink = {dst, row};
    return render_rows(d, convert, copy_row, &sink);
}
