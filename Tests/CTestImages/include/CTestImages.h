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
int testimages_jpeg(int width, int height, int space, const uint8_t *color, int arithmetic,
                    uint8_t **out, size_t *out_size, char *message, size_t message_size);

// An 8-bit palette PNG of `width` x `height`: a palette of 2 entries, the left half entry 0
// (`first`, RGB) and the right half entry 1 (`second`).
int testimages_palette_png(int width, int height, const uint8_t *first, const uint8_t *second,
                           uint8_t **out, size_t *out_size, char *message, size_t message_size);

#endif
