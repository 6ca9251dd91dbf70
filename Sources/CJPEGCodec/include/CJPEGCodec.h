#ifndef CJPEGCODEC_H
#define CJPEGCODEC_H

// Thin shim over libjpeg(-turbo) for the Imaging module.
//
// libjpeg reports fatal errors by calling error_exit, which must not return; the
// usual answer is longjmp, and Swift frames must never be jumped over. So every
// function here that calls into libjpeg owns its own setjmp and turns a libjpeg
// error into a status code plus a message kept in the handle. Swift only ever sees
// status codes. No Swift code runs between a setjmp and the libjpeg calls it guards.

#include <stddef.h>
#include <stdint.h>

// Status codes returned by every fallible function.
#define JPEGCODEC_OK 0
#define JPEGCODEC_NOT_JPEG 1       // no SOI marker, or empty input
#define JPEGCODEC_DECODE_FAILED 2  // corrupt or truncated data, unsupported stream
#define JPEGCODEC_ENCODE_FAILED 3
#define JPEGCODEC_IO 4            // the file could not be opened or read
#define JPEGCODEC_BAD_ARGUMENT 5  // wrong call order, bad scale, buffer too small
#define JPEGCODEC_NO_MEMORY 6

// Version of the libjpeg-turbo headers we were built against (e.g. 2001005).
int jpegcodec_library_version(void);

// MARK: Decoder
// Usage: create, open_memory or open_file (reads the header), optionally
// set_scale, then read_rgba into a buffer of output_width * output_height * 4
// bytes, then destroy. After any error the handle only accepts destroy.
typedef struct jpegcodec_decoder jpegcodec_decoder;

jpegcodec_decoder *jpegcodec_decoder_create(void);     // NULL if out of memory
void jpegcodec_decoder_destroy(jpegcodec_decoder *d);  // also closes the file, if any

// Reads the header from a caller-owned buffer, which must stay valid and
// unchanged until destroy. The bytes are not copied (jpeg_mem_src).
int jpegcodec_decoder_open_memory(jpegcodec_decoder *d, const void *data, size_t size);
// Opens the file and reads its header; the body is streamed by jpeg_stdio_src
// (a 4 KiB buffer), the file is never read into memory whole.
int jpegcodec_decoder_open_file(jpegcodec_decoder *d, const char *path);

// Image size from the header.
int jpegcodec_decoder_image_width(const jpegcodec_decoder *d);
int jpegcodec_decoder_image_height(const jpegcodec_decoder *d);

// 1 when decoding keeps every DCT coefficient of the whole image in memory until the
// last scan (progressive, or sequential with several scans), 0 when it streams in strips.
int jpegcodec_decoder_buffers_coefficients(const jpegcodec_decoder *d);
// Bytes of that whole-image coefficient buffer (2 bytes per coefficient, each component
// padded to whole MCUs), whatever the output scale: DCT scaling shrinks only the IDCT's
// output. Computed from the header, before anything is allocated.
uint64_t jpegcodec_decoder_coefficient_bytes(const jpegcodec_decoder *d);

// Selects DCT scaling numerator/8 (numerator in 1...16, 8 = full size) and computes
// the output size with jpeg_calc_output_dimensions.
int jpegcodec_decoder_set_scale(jpegcodec_decoder *d, int numerator, int *output_width, int *output_height);

// Decodes to 8-bit RGBA (JCS_EXT_RGBA), row by row straight into dst, at the
// scale set (full size if none). dst_size must be >= output_width*output_height*4.
int jpegcodec_decoder_read_rgba(jpegcodec_decoder *d, void *dst, size_t dst_size);

// The message of the last error, "" if none. Owned by the handle.
const char *jpegcodec_decoder_message(const jpegcodec_decoder *d);

// MARK: Encoder
// Usage: create (starts compression), write_rows until height rows are written,
// finish (takes the JPEG bytes), destroy. Rows are RGB, 3 bytes per pixel, and
// are supplied in strips so the whole RGB image never has to exist at once.
typedef struct jpegcodec_encoder jpegcodec_encoder;

// Returns NULL only if out of memory; otherwise check jpegcodec_encoder_status.
jpegcodec_encoder *jpegcodec_encoder_create(int width, int height, int quality, int progressive);
// The same, with full_chroma = 1 for 4:4:4 (no chroma subsampling) instead of 4:2:0.
jpegcodec_encoder *jpegcodec_encoder_create_sampled(int width, int height, int quality, int progressive,
                                                    int full_chroma);
void jpegcodec_encoder_destroy(jpegcodec_encoder *e);  // frees unfinished output
int jpegcodec_encoder_status(const jpegcodec_encoder *e);
// Writes `count` rows starting at `rows`, `stride` bytes apart.
int jpegcodec_encoder_write_rows(jpegcodec_encoder *e, const uint8_t *rows, int count, size_t stride);
// Completes the file. On success *out is a malloc'd buffer of *out_size bytes that
// the caller now owns and must free().
int jpegcodec_encoder_finish(jpegcodec_encoder *e, uint8_t **out, size_t *out_size);
const char *jpegcodec_encoder_message(const jpegcodec_encoder *e);

// MARK: Fixture synthesis
// A deterministic, photo-like RGB image, made one row at a time. It lives in C
// only for speed: tests run in debug builds, and a Swift pixel loop at -Onone is
// an order of magnitude slower. Integer arithmetic only, so the same parameters
// give the same pixels on every machine.
typedef struct jpegcodec_fixture jpegcodec_fixture;

// grain: amplitude of the per-pixel noise (film grain / sensor noise), the knob
// that sets the compressed size. NULL if out of memory or invalid size.
jpegcodec_fixture *jpegcodec_fixture_create(int width, int height, uint64_t seed, int grain);
void jpegcodec_fixture_destroy(jpegcodec_fixture *f);
// Fills row y (width*3 bytes of RGB). Rows are independent: any order works.
void jpegcodec_fixture_row(const jpegcodec_fixture *f, int y, uint8_t *rgb);

#endif
