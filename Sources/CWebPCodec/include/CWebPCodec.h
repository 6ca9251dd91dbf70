#ifndef CWEBPCODEC_H
#define CWEBPCODEC_H

// Thin shim over libwebp for the Imaging module: one call to decode, one to encode.
// libwebp returns status codes (no longjmp); the shim turns them into a message.

#include <stddef.h>
#include <stdint.h>

#define WEBPCODEC_OK 0
#define WEBPCODEC_FAILED 2  // corrupt, truncated or unsupported data (message says which)
#define WEBPCODEC_IO 4      // the file could not be opened or read
#define WEBPCODEC_BAD_ARGUMENT 5
#define WEBPCODEC_NO_MEMORY 6

// Decodes a still WebP into dst as 8-bit RGBA of out_width x out_height: the image's own
// size for a full decode, smaller for libwebp's scaled decode (its rescaler works on
// rows as they are decoded, so the full-size RGBA image never exists). dst holds
// out_width*out_height*4 bytes. message gets at least 128 bytes.
int webpcodec_decode_rgba(const void *data, size_t size, void *dst, size_t dst_size, int out_width, int out_height,
                          char *message, size_t message_size);

// The stream renderer's WebP from a file: libwebp's incremental decoder (WebPIDecode, WebPIAppend)
// fed WEBPCODEC_READ_CHUNK bytes at a time, with its scaling to out_width x out_height straight
// into dst. Only the VP8X, ALPH and image chunks are fed (found by the chunks' sizes): metadata
// chunks (ICCP, EXIF, XMP) are skipped, never held. The file is never read whole: libwebp 1.2 keeps
// only the input it has not consumed
// for a lossy file of one token partition without alpha (and partition 0, copied). It keeps
// everything from the alpha chunk on when there is alpha (and a whole-image alpha plane), the
// whole input for several partitions, and for lossless the whole input and the image as
// 32-bit ARGB.
#define WEBPCODEC_READ_CHUNK 16384
int webpcodec_stream_file_rgba(const char *path, void *dst, size_t dst_size, int out_width, int out_height,
                               char *message, size_t message_size);

// Encodes packed RGB (width*3 bytes a row) to WebP: lossy at `quality` (0-100), or
// lossless (quality then sets the effort, 0 fastest). *out is malloc'd; the caller frees it.
int webpcodec_encode_rgb(const uint8_t *rgb, int width, int height, int lossless, float quality, int method,
                         uint8_t **out, size_t *out_size, char *message, size_t message_size);

#endif
