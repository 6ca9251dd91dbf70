#ifndef CTESTIMAGES_H
#define CTESTIMAGES_H

// Encoders the tests need and the product does not: JPEGs in CMYK, YCCK or with arithmetic
// coding, and a palette PNG, each of one solid colour. On success *out is malloc'd (the
// caller frees it) and 0 is returned; otherwise -1 and a message in `message`.

#include <stddef.h>
#include <stdint.h>

#define TESTIMAGES_RGB 0
#define TESTIMAGES_CMYK 1
#define TESTIMAGES_YCCK 2

// `color` is 3 bytes (RGB) or 4 (CMYK as Adobe stores it: inverted, 255 is no ink).
int testimages_jpeg(int width, int height, int space, const uint8_t *color, int arithmetic, uint8_t **out,
                    size_t *out_size, char *message, size_t message_size);

// An 8-bit palette PNG of `width` x `height`: a palette of 2 entries, the left half entry 0
// (`first`, RGB) and the right half entry 1 (`second`).
int testimages_palette_png(int width, int height, const uint8_t *first, const uint8_t *second, uint8_t **out,
                           size_t *out_size, char *message, size_t message_size);

// A PNG of an RGBA image in any colour type (0 gray, 2 RGB, 3 palette, 4 gray+alpha, 6 RGBA) and
// bit depth PNG allows, Adam7 when `interlaced`: gray is the red channel, a palette index the red
// channel's top bits (into a ramp of colours), 16 bits the byte repeated. `transparent` adds tRNS:
// the first pixel's value (gray, RGB) or alphas for the palette's first half.
int testimages_png(const uint8_t *rgba, int width, int height, int color_type, int depth, int interlaced,
                   int transparent, uint8_t **out, size_t *out_size, char *message, size_t message_size);

// A baseline JPEG of an RGBA image (alpha ignored): grayscale when `gray`, else YCbCr with the
// luma sampled h0 x v0 (chroma 1x1), so 2x2 is 4:2:0, 2x1 4:2:2, 1x2 4:4:0, 1x1 4:4:4.
int testimages_jpeg_rgba(const uint8_t *rgba, int width, int height, int gray, int h0, int v0, int quality,
                         uint8_t **out, size_t *out_size, char *message, size_t message_size);

// libjpeg's own reading of a JPEG's coefficients (jpeg_read_coefficients): the component's
// blocks_wide x blocks_high blocks, 64 quantized coefficients each in natural order, malloc'd into
// *out (the caller frees it). Returns 0, or -1 with libjpeg's message.
int testimages_jpeg_coefficients(const uint8_t *jpeg, size_t size, int component, int16_t **out, int *blocks_wide,
                                 int *blocks_high, char *message, size_t message_size);

// jpegtran in process: the same coefficients written again (jpeg_write_coefficients) with
// `scan_count` scans from `script` (9 ints a scan: component count, 4 component indexes, Ss, Se,
// Ah, Al), or libjpeg's default progressive script when scan_count is -1, or one baseline scan when
// 0; a restart marker every `restart_blocks` MCUs (0: none). Optimized Huffman tables.
int testimages_jpeg_transcode(const uint8_t *jpeg, size_t size, const int *script, int scan_count, int restart_blocks,
                              uint8_t **out, size_t *out_size, char *message, size_t message_size);

// libjpeg's decode at the DCT scale numerator/8 to RGB (3 bytes a pixel) or, when `rgb` is 0, the
// file's own components (1, 3 or 4 bytes), malloc'd into *out, its size in *width x *height x
// *components; chroma upsampled by interpolation ("fancy", libjpeg's default) or by repeating
// samples (djpeg -nosmooth). Returns 0, or -1 with libjpeg's message.
int testimages_jpeg_decode_scaled(const uint8_t *jpeg, size_t size, int numerator, int fancy_upsampling, int rgb,
                                  uint8_t **out, int *width, int *height, int *components, char *message,
                                  size_t message_size);

#endif
