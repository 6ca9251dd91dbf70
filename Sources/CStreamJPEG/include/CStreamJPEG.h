#ifndef CSTREAMJPEG_H
#define CSTREAMJPEG_H

// A Huffman JPEG decoder that holds one row of MCUs, whatever the file's scan structure.
//
// libjpeg(-turbo) keeps every DCT coefficient of the image for a file with more than one scan
// (progressive, or sequential with one scan a component). This decoder does not: a first pass
// over the markers finds where each scan's entropy data starts and which tables and restart
// interval are in force there; then one cursor a scan (its tables, bit position, EOB run, DC
// predictors, restart count, and a small read buffer) and, for every MCU row, each cursor in
// file order decodes its blocks of that row into one row of coefficients. A refinement scan
// finds there what the earlier scans wrote. A baseline file is the one-scan case.
//
// The input is read in bounded chunks (pread on a descriptor into a small buffer, or windows in
// place on a caller's buffer, never copied), never whole. Errors are status codes with a message kept in the handle; nothing
// here aborts or longjmps.
//
// Bounds. Memory: one row of MCUs (coefficients and samples), a cursor and (reading a descriptor)
// a read buffer a scan (at most STREAMJPEG_MAX_SCANS scans, 1 MiB of buffers together). Work: every scan decodes
// each of its blocks once and the render transforms each block once, so the first pass counts
// the work as blocks x scans (the render counted as one more scan over every block) and refuses
// a file whose count passes the work budget before decoding anything: a small file cannot buy
// more CPU than the budget, however many scans of EOB runs it holds. The budget follows the
// pixel budget (the Swift side's DecodeBudget, --max-image-pixels): the blocks of an image at
// the pixel budget (64 pixels a block) times STREAMJPEG_SCAN_ALLOWANCE scans. libjpeg's default
// progressive script costs 17 blocks x scans for 64 pixels of a 4:4:4 image and 9.5 of a 4:2:0
// one (render included; a baseline file 6 and 3), so a 6000x4000 photograph takes at most 6.4
// million of the default budget's 44.7 million. A block x scan costs tens of nanoseconds at worst
// (a refinement scan's EOB run still visits every coefficient of its band).

#include <stddef.h>
#include <stdint.h>

#define STREAMJPEG_OK 0
#define STREAMJPEG_NOT_JPEG 1       // no SOI marker, or empty input
#define STREAMJPEG_DECODE_FAILED 2  // corrupt, truncated or unsupported (arithmetic, 12-bit, lossless)
#define STREAMJPEG_IO 4             // the file could not be opened or read
#define STREAMJPEG_BAD_ARGUMENT 5   // wrong call order, buffer too small
#define STREAMJPEG_NO_MEMORY 6
#define STREAMJPEG_OVER_BUDGET 7  // more work (blocks x scans) than the pixel budget allows

// Each scan costs a cursor and its read buffer: files with more scans are refused. djpeg's
// -maxscans is the same defence; libjpeg-turbo's TurboJPEG refuses past 500.
#define STREAMJPEG_MAX_SCANS 1000

// The work budget: blocks x scans up to the pixel budget's blocks (pixels / 64) times this.
#define STREAMJPEG_SCAN_ALLOWANCE 16
// The pixel budget when the caller sets none: the Swift side's default (DecodeBudget).
#define STREAMJPEG_DEFAULT_PIXEL_BUDGET 178956970

typedef struct streamjpeg_decoder streamjpeg_decoder;

streamjpeg_decoder *streamjpeg_create(void);     // NULL if out of memory
void streamjpeg_destroy(streamjpeg_decoder *d);  // closes the file it opened, if any

// Sets the pixel budget the work budget follows (before open; at least 1).
int streamjpeg_set_pixel_budget(streamjpeg_decoder *d, uint64_t pixels);
// The work budget in force: blocks x scans (pixel budget / 64 x STREAMJPEG_SCAN_ALLOWANCE).
uint64_t streamjpeg_work_budget(const streamjpeg_decoder *d);

// Opens the input and runs the first pass (markers only). The memory buffer must stay valid
// and unchanged until destroy; it is read, never copied whole.
int streamjpeg_open_file(streamjpeg_decoder *d, const char *path);
int streamjpeg_open_memory(streamjpeg_decoder *d, const void *data, size_t size);

int streamjpeg_width(const streamjpeg_decoder *d);
int streamjpeg_height(const streamjpeg_decoder *d);
int streamjpeg_components(const streamjpeg_decoder *d);
int streamjpeg_scans(const streamjpeg_decoder *d);
int streamjpeg_mcu_rows(const streamjpeg_decoder *d);
// The work the first pass counted: blocks x scans, the render counted as one more scan.
uint64_t streamjpeg_work(const streamjpeg_decoder *d);

// MARK: Coefficients (the test hook)
// The component's size in blocks (ceil(component width / 8) x ceil(component height / 8)).
int streamjpeg_component_blocks(const streamjpeg_decoder *d, int component, int *blocks_wide, int *blocks_high);
// Decodes the next MCU row's coefficients with every scan's cursor, in file order.
int streamjpeg_decode_row(streamjpeg_decoder *d);
// Copies the component's block rows of the MCU row just decoded (those inside the component),
// blocks_wide blocks each, 64 coefficients a block in natural order, quantized, as
// jpeg_read_coefficients gives them. *rows is how many block rows were copied.
int streamjpeg_row_coefficients(streamjpeg_decoder *d, int component, int16_t *dst, size_t dst_count, int *rows);

// MARK: Rendering
// Chooses the output size: the long side max_pixel (never more than the image's), aspect kept,
// and the DCT scale M/8, the smallest whose output is at least that size.
int streamjpeg_set_output(streamjpeg_decoder *d, int max_pixel, int *output_width, int *output_height,
                          int *scale_numerator);
// Decodes every row (from the first if nothing was decoded yet), IDCT at M/8, upsamples chroma,
// converts to RGB (YCCK and CMYK as CJPEGCodec does) and area-averages into dst, 8-bit RGBA.
int streamjpeg_render_rgba(streamjpeg_decoder *d, void *dst, size_t dst_size);

// The test hook of the pixels: every row decoded at the DCT scale M/8 (M = scale_numerator, 1...8),
// chroma upsampled as for rendering, before the resampler: ceil(width x M / 8) x ceil(height x M / 8)
// pixels into dst, converted to RGB (3 bytes each) or, with `convert` 0, the file's own components
// (1, 3 or 4 bytes: Y, YCbCr, ...). What libjpeg-turbo's scaled decode gives.
int streamjpeg_render_scaled(streamjpeg_decoder *d, int scale_numerator, int convert, void *dst, size_t dst_size);

// The message of the last error, "" if none. Owned by the handle.
const char *streamjpeg_message(const streamjpeg_decoder *d);

#endif
