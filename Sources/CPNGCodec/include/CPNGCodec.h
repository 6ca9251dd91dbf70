#ifndef CPNGCODEC_H
#define CPNGCODEC_H

// Thin shim over libpng for the Imaging module. libpng reports errors with longjmp:
// every function here that calls libpng owns its setjmp and returns a status code,
// with libpng's message kept in the handle. Swift never sees a longjmp.

#include <stddef.h>
#include <stdint.h>

#define PNGCODEC_OK 0
#define PNGCODEC_FAILED 2        // corrupt, truncated or unsupported data (message says which)
#define PNGCODEC_IO 4            // the file could not be opened
#define PNGCODEC_BAD_ARGUMENT 5  // wrong call order, buffer too small
#define PNGCODEC_NO_MEMORY 6

// MARK: Decoder
// create, open_memory or open_file (reads up to the first IDAT), then ONE of read_rgba
// (full size), read_rgba_box (streaming box downscale) or read_rgba_stream, then destroy.
typedef struct pngcodec_decoder pngcodec_decoder;

pngcodec_decoder *pngcodec_decoder_create(void);
void pngcodec_decoder_destroy(pngcodec_decoder *d);
// The bytes are read in place (not copied) and must outlive the decoder.
int pngcodec_decoder_open_memory(pngcodec_decoder *d, const void *data, size_t size);
// Streams the file through stdio: it is never read into memory whole.
int pngcodec_decoder_open_file(pngcodec_decoder *d, const char *path);
int pngcodec_decoder_width(const pngcodec_decoder *d);
int pngcodec_decoder_height(const pngcodec_decoder *d);
int pngcodec_decoder_interlaced(const pngcodec_decoder *d);

// Any PNG to 8-bit RGBA (palette and gray expanded, 16-bit stripped, opaque alpha added),
// row by row straight into dst (width*height*4 bytes). Adam7 passes are combined in dst.
int pngcodec_decoder_read_rgba(pngcodec_decoder *d, void *dst, size_t dst_size);

// A box-filtered RGBA thumbnail of out_width x out_height (each no larger than the image)
// into dst (out_width*out_height*4 bytes). Non-interlaced: one source row at a time plus
// one output row of 32-bit sums (16 bytes per output column). Interlaced (Adam7): each
// pass's pixels go straight into per-output-pixel sums (8 bytes per output pixel when a
// box holds at most 257 pixels, else 16), never a full-size image.
int pngcodec_decoder_read_rgba_box(pngcodec_decoder *d, void *dst, size_t dst_size, int out_width, int out_height);
// Bytes of working memory read_rgba_box allocates besides dst, for the budget check.
uint64_t pngcodec_box_working_bytes(int width, int height, int interlaced, int out_width, int out_height);

// The stream renderer: RGBA of out_width x out_height into dst, area-averaged (CResample) from
// rows as they are decoded. Non-interlaced: libpng's rows, one at a time. Adam7: the file's
// image data is read with zlib directly, one inflate state a pass (found by a first pass over
// the data), all seven advancing together: seven states and seven pass rows, never an image.
// The file is read with pread in small chunks; memory in place.
int pngcodec_decoder_read_rgba_stream(pngcodec_decoder *d, void *dst, size_t dst_size, int out_width, int out_height);

const char *pngcodec_decoder_message(const pngcodec_decoder *d);

// MARK: Encoder
// create, then height rows per pass for pngcodec_encoder_passes() passes (Adam7: 7, each
// pass wants every row again), then finish (takes the PNG bytes), then destroy.
typedef struct pngcodec_encoder pngcodec_encoder;

// alpha: 1 writes RGBA with a deterministic alpha (a smooth vignette), 0 writes RGB.
pngcodec_encoder *pngcodec_encoder_create(int width, int height, int alpha, int interlaced, int compression_level);
void pngcodec_encoder_destroy(pngcodec_encoder *e);
int pngcodec_encoder_status(const pngcodec_encoder *e);
int pngcodec_encoder_passes(const pngcodec_encoder *e);
// One row of RGB (width*3 bytes) for image row y; alpha is added here when asked for.
int pngcodec_encoder_write_rgb_row(pngcodec_encoder *e, const uint8_t *rgb, int y);
// On success *out is malloc'd (*out_size bytes) and owned by the caller (free()).
int pngcodec_encoder_finish(pngcodec_encoder *e, uint8_t **out, size_t *out_size);
const char *pngcodec_encoder_message(const pngcodec_encoder *e);

#endif
