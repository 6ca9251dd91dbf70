// What both sanitizer harnesses share (scripts/sanitize.sh builds them straight from the C sources):
// an input file read whole, its format, and the operations the stream renderer's C code runs on it.
// Each operation drives one entry point of CStreamJPEG, CPNGCodec or CWebPCodec (and through them
// CResample) and returns its status and a hash of its output, so that runs can be compared.
#ifndef SANITIZE_DRIVE_H
#define SANITIZE_DRIVE_H

#include <stddef.h>
#include <stdint.h>

enum sz_format { SZ_OTHER, SZ_JPEG, SZ_PNG, SZ_WEBP };

struct sz_input {
    const char *path;  // the file (the file-reading entry points open it)
    uint8_t *data;     // its bytes (the memory entry points read them)
    size_t size;
    int format;
    int width, height;  // from the header; 0 when it does not open
};

enum sz_kind {
    SZ_JPEG_COEFFICIENTS,   // every MCU row's coefficients, every component (the test hook)
    SZ_JPEG_RENDER_MEMORY,  // streamjpeg_render_rgba, a = max_pixel
    SZ_JPEG_RENDER_FILE,
    SZ_JPEG_SCALED,        // streamjpeg_render_scaled, a = M (1...8), b = convert
    SZ_PNG_STREAM_MEMORY,  // pngcodec_decoder_read_rgba_stream, a x b
    SZ_PNG_STREAM_FILE,
    SZ_PNG_FULL,          // pngcodec_decoder_read_rgba
    SZ_PNG_BOX,           // pngcodec_decoder_read_rgba_box, a x b
    SZ_WEBP_STREAM_FILE,  // webpcodec_stream_file_rgba, a x b
    SZ_WEBP_MEMORY,       // webpcodec_decode_rgba, a x b
};

struct sz_op {
    int kind, a, b;
};

struct sz_result {
    int status;     // the entry point's status: 0 ok
    uint64_t hash;  // FNV-1a of the output when ok
};

// Images with more pixels than this are opened (their headers read) but not decoded: like the fuzz
// target, rows of huge images only cost time.
enum { SZ_MAX_PIXELS = 1 << 22, SZ_MAX_OPS = 64 };

// Reads the file whole and its header. 0 if it cannot be read.
int sz_load(const char *path, struct sz_input *in);
void sz_unload(struct sz_input *in);
// Reads the format and size from in->data (used again after the bytes change).
void sz_probe(struct sz_input *in);

// The operations for an input: `full` every scale, size and entry point; otherwise a few.
// Returns how many were written to ops (at most SZ_MAX_OPS).
int sz_ops(const struct sz_input *in, int full, struct sz_op *ops);
struct sz_result sz_run(const struct sz_input *in, const struct sz_op *op);
const char *sz_describe(const struct sz_op *op, char *text, size_t size);

#endif
