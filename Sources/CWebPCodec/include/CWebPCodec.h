#ifndef CWEBPCODEC_H
#define CWEBPCODEC_H

// Thin shim over libwebp for the Imaging module: one call to decode, one to encode.
// libwebp returns status codes (no longjmp); the shim turns them into a message.

#include <stddef.h>
#include <stdint.h>

#define WEBPCODEC_OK 0
#define WEBPCODEC_FAILED 2        // corrupt, truncated or unsupported data (message says which)
#define WEBPCODEC_BAD_ARGUMENT 5
#define WEBPCODEC_NO_MEMORY 6

// Decodes a still WebP into dst as 8-bit RGBA of out_width x out_height: the image's own
// size for a full decode, smaller for libwebp's scaled decode (its rescaler works on
// rows as they are decoded, so the full-size RGBA image never exists). dst holds
// out_width*out_height*4 bytes. message gets at least 128 bytes.
int webpcodec_decode_rgba(const void *data, size_t size, void *dst, size_t dst_size,
                          int out_width, int out_height, char *message, size_t message_size);

// Encodes packed RGB (width*3 bytes a row) to WebP: lossy at `quality` (0-100), or
// lossless (quality then sets the effort, 0 fastest). *out is malloc'd; the caller frees it.
int webpcodec_encode_rgb(const uint8_t *rgb, int width, int height, int lossless, float quality,
                         int method, uint8_t **out, size_t *out_size, char *message, size_t message_size);

#endif
