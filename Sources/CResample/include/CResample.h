#ifndef CRESAMPLE_H
#define CRESAMPLE_H

// The stream renderer's area-averaging resampler, shared by every format: source rows go in
// top to bottom, output rows come out as soon as the source rows they cover have arrived.
// Each source pixel's sRGB-encoded samples are weighted by the exact area it shares with
// each output pixel (straight alpha, channels averaged alike). It holds two output rows of
// sums and one averaged source row, never an image.

#include <stdint.h>

// The output size for a long side of max_pixel: aspect kept (rounded), at least 1, never upscaled.
void resample_output_size(int width, int height, int max_pixel, int *output_width, int *output_height);

struct resample_state {
    int source_width, source_height, width, height, channels;
    int *x_target;    // source column -> first output column it covers
    float *x_weight;  // its share of that column (the rest goes to the next), in output units
    double *row[2];   // output rows being summed: [0] the current, [1] the next
    double *scratch;  // one source row, averaged across
    int next_source_row;
    uint8_t *dst;  // RGBA, width x height
};

// channels: 3 (RGB rows; the output's alpha is 255) or 4 (RGBA rows). 0 if out of memory
// (call resample_free all the same).
int resample_init(struct resample_state *r, int source_width, int source_height, int width, int height, int channels,
                  uint8_t *dst);
// Takes the next source row: source_width pixels of `channels` bytes.
void resample_push(struct resample_state *r, const uint8_t *row);
void resample_free(struct resample_state *r);

#endif
