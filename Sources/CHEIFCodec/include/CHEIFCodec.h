#ifndef CHEIFCODEC_H
#define CHEIFCODEC_H

// Thin shim over libheif (HEIC through libde265/x265, AVIF through dav1d/aom) for the
// Imaging module. libheif returns error structs (no longjmp); the shim copies their text.
// libheif is loaded on first use (library.h); where it cannot be, each call fails saying so.

#include <stddef.h>
#include <stdint.h>

#define HEIFCODEC_OK 0
#define HEIFCODEC_FAILED 2
#define HEIFCODEC_BAD_ARGUMENT 5
#define HEIFCODEC_NO_MEMORY 6

// libheif's version ("1.15.1"), or NULL when it cannot be loaded.
const char *heifcodec_version(void);

// 0 when libheif can be used; else 1, with why it cannot be loaded in message.
int heifcodec_unavailable(char *message, size_t message_size);

// 1 when this libheif can decode (decoding=1) or encode (decoding=0) the format:
// 0 HEVC (HEIC), 1 AV1 (AVIF).
int heifcodec_has_codec(int av1, int decoding);

// Decodes the primary image and writes out_width x out_height of it into dst as 8-bit RGBA.
// libheif 1.15 has no scaled decode and cannot decode into a caller's buffer: it decodes
// the whole image to YCbCr planes and converts them to its own interleaved RGB image (RGBA
// when there is an alpha plane); the shim copies that into dst, by nearest neighbour when
// smaller (as heif_image_scale_image does, without a second image), then frees it.
int heifcodec_decode_rgba(const void *data, size_t size, void *dst, size_t dst_size, int out_width, int out_height,
                          char *message, size_t message_size);

// The stream renderer's HEIC and AVIF: the primary image decoded to the codec's own planes
// (YCbCr at its chroma subsampling and bit depth, or monochrome, or planar RGB; no RGB image),
// then each row converted to RGB (the file's nclx matrix and range, chroma by nearest neighbour
// as libheif converts) and area-averaged (CResample) into dst, out_width x out_height. libheif
// 1.15 has no scaled or per-row decode: the planes are image-sized, and the decoder's own
// picture is alive while libheif copies it into them. path reads the file (libheif keeps the
// image item's bytes, not the file); else data (read in place).
int heifcodec_stream_rgba(const char *path, const void *data, size_t size, void *dst, size_t dst_size, int out_width,
                          int out_height, char *message, size_t message_size);

// Encodes packed RGB to HEIC (av1 = 0, x265) or AVIF (av1 = 1, aom) at `quality`, with the
// encoder's fastest preset (fixtures, not a study of encoders). *out is malloc'd.
int heifcodec_encode_rgb(const uint8_t *rgb, int width, int height, int av1, int quality, uint8_t **out,
                         size_t *out_size, char *message, size_t message_size);

#endif
