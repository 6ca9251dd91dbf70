// Area averaging in both directions: a source pixel spans 1/source_width of the output's width,
// so it falls into at most two output columns (and its row into at most two output rows).
#pragma clang diagnostic error "-Wall"
#pragma clang diagnostic error "-Wextra"
#include "CResample.h"

#include <stdlib.h>
#include <string.h>

void resample_output_size(int width, int height, int max_pixel, int *output_width, int *output_height) {
    if (width > max_pixel || height > max_pixel) {
        if (width >= height) {
            height = (int)((double)height * max_pixel / width + 0.5);
            width = max_pixel;
        } else {
            width = (int)((double)width * max_pixel / height + 0.5);
            height = max_pixel;
        }
        if (width < 1) width = 1;
        if (height < 1) height = 1;
    }
    *output_width = width;
    *output_height = height;
}

int resample_init(struct resample_state *r, int sw, int sh, int w, int h, int channels, uint8_t *dst) {
    memset(r, 0, sizeof *r);
    r->source_width = sw;
    r->source_height = sh;
    r->width = w;
    r->height = h;
    r->channels = channels;
    r->dst = dst;
    r->x_target = malloc((size_t)sw * sizeof *r->x_target);
    r->x_weight = malloc((size_t)sw * sizeof *r->x_weight);
    r->row[0] = calloc((size_t)w * (size_t)channels, sizeof(double));
    r->row[1] = calloc((size_t)w * (size_t)channels, sizeof(double));
    r->scratch = malloc((size_t)w * (size_t)channels * sizeof(double));
    if (!r->x_target || !r->x_weight || !r->row[0] || !r->row[1] || !r->scratch) return 0;
    // Source column x spans [x w, (x + 1) w) in units of 1/sw of an output column: at most two columns.
    for (int x = 0; x < sw; x++) {
        long a = (long)x * w, b = a + w, target = a / sw, boundary = (target + 1) * (long)sw;
        r->x_target[x] = (int)target;
        r->x_weight[x] = (float)((b <= boundary ? b - a : boundary - a)) / (float)w;
    }
    return 1;
}

void resample_free(struct resample_state *r) {
    free(r->x_target);
    free(r->x_weight);
    free(r->row[0]);
    free(r->row[1]);
    free(r->scratch);
    memset(r, 0, sizeof *r);
}

// Each output pixel gathered (sw / w) x (sh / h) source pixels' worth of weight. Always inlined,
// so that emit_row's calls with a constant channel count unroll; the clamp has no branch.
static inline __attribute__((always_inline)) void emit_pixels(const struct resample_state *r, uint8_t *out, int n) {
    double scale = ((double)r->width / r->source_width) * ((double)r->height / r->source_height);
    const double *acc = r->row[0];
    for (int x = 0; x < r->width; x++) {
        for (int c = 0; c < n; c++) {
            double v = acc[x * n + c] * scale;
            double clamped = v < 0 ? 0 : v > 255 ? 255 : v;
            out[x * 4 + c] = (uint8_t)(int)(clamped + 0.5);
        }
        if (n == 3) out[x * 4 + 3] = 255;
    }
}

static void emit_row(struct resample_state *r, int y) {
    int n = r->channels;
    uint8_t *out = r->dst + (size_t)y * (size_t)r->width * 4;
    if (n == 3)
        emit_pixels(r, out, 3);
    else if (n == 4)
        emit_pixels(r, out, 4);
    else
        emit_pixels(r, out, n);
    double *done = r->row[0];
    r->row[0] = r->row[1];
    r->row[1] = done;
    memset(done, 0, (size_t)r->width * (size_t)n * sizeof(double));
}

static void add_row(struct resample_state *r, double *acc, double weight) {
    for (int i = 0; i < r->width * r->channels; i++) acc[i] += weight * r->scratch[i];
}

// One source row averaged across into scratch (cleared), a pixel at a time: for an upscale, where a
// pixel can cover more than two columns (only two of them get its weight, as ever).
static void average_across_pixelwise(struct resample_state *r, const uint8_t *row) {
    int sw = r->source_width, w = r->width, n = r->channels;
    for (int x = 0; x < sw; x++) {
        int t = r->x_target[x];
        double w0 = r->x_weight[x], w1 = 1.0 - w0;
        double *s = r->scratch + t * n;
        const uint8_t *p = row + (size_t)x * (size_t)n;
        for (int c = 0; c < n; c++) s[c] += w0 * p[c];
        if (w1 > 1e-9 && t + 1 < w)
            for (int c = 0; c < n; c++) s[n + c] += w1 * p[c];
    }
}

// The same for a downscale (or the same size): a pixel falls into one column or two neighbours,
// and every column has pixels of its own. A pixel wholly inside a column has weight 1 (x_weight
// is exactly 1.0f), so a column's whole pixels are summed in integers, exactly and with no chain
// of floating-point adds; then the pixel that ends the column, if it crosses into the next, adds
// its part and carries the rest to the next column. The sums are those of one pixel at a time, in
// another order: a column's value can differ from that order's in its last bits, never by a
// rounding step of the output. Always inlined, so that resample_push's calls with a constant
// channel count (3 or 4) unroll.
static inline __attribute__((always_inline)) void average_across(struct resample_state *r, const uint8_t *row, int n) {
    int sw = r->source_width, w = r->width, x = 0;
    double carry[4] = {0, 0, 0, 0};
    for (int t = 0; t < w; t++) {
        uint32_t whole[4] = {0, 0, 0, 0};
        const uint8_t *p = row + (size_t)x * (size_t)n;
        for (; x < sw && r->x_target[x] == t && r->x_weight[x] == 1.0f; x++, p += n)
            for (int c = 0; c < n; c++) whole[c] += p[c];
        double acc[4];
        for (int c = 0; c < n; c++) {
            acc[c] = carry[c] + whole[c];
            carry[c] = 0;
        }
        if (x < sw && r->x_target[x] == t) {  // the pixel that ends the column
            double w0 = r->x_weight[x], w1 = 1.0 - w0;
            int spills = w1 > 1e-9 && t + 1 < w;
            for (int c = 0; c < n; c++) {
                acc[c] += w0 * p[c];
                carry[c] = spills ? w1 * p[c] : 0;
            }
            x++;
        }
        for (int c = 0; c < n; c++) r->scratch[t * n + c] = acc[c];
    }
}

void resample_push(struct resample_state *r, const uint8_t *row) {
    int w = r->width, n = r->channels;
    if (r->next_source_row >= r->source_height) return;  // past the last row: nothing left to cover
    if (w > r->source_width) {
        memset(r->scratch, 0, (size_t)w * (size_t)n * sizeof(double));
        average_across_pixelwise(r, row);
    } else if (n == 3) {  // every column is written: no need to clear scratch
        average_across(r, row, 3);
    } else {
        average_across(r, row, 4);  // 3 or 4 channels (CResample.h)
    }
    long y = r->next_source_row++, h = r->height, sh = r->source_height;
    long a = y * h, b = a + h, target = a / sh, boundary = (target + 1) * sh;
    if (b <= boundary) {
        add_row(r, r->row[0], (double)(b - a) / h);
        if (b == boundary) emit_row(r, (int)target);
    } else {
        add_row(r, r->row[0], (double)(boundary - a) / h);
        emit_row(r, (int)target);
        add_row(r, r->row[0], (double)(b - boundary) / h);
    }
}
