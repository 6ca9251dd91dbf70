// What codec.c (libpng: the decoder, the encoder) and adam7.c (interlaced files read with zlib
// directly for the stream renderer) share.
#ifndef CPNGCODEC_INTERNAL_H
#define CPNGCODEC_INTERNAL_H

#include "CPNGCodec.h"

#include <stdio.h>

#include <png.h>

struct pngcodec_message {
    char text[256];
};

// libpng's error handler (longjmp back to the entry point's setjmp) and its warnings (ignored:
// they do not change the pixels; corrupt image data is an error).
void pngcodec_on_error(png_structp png, png_const_charp text);
void pngcodec_on_warning(png_structp png, png_const_charp text);

enum { DEC_CREATED, DEC_OPEN, DEC_DONE, DEC_FAILED };

struct pngcodec_decoder {
    png_structp png;
    png_infop info;
    struct pngcodec_message message;
    FILE *file;
    const uint8_t *data;
    size_t size, position;
    int state;
    png_uint_32 width, height;
    int interlaced;
};

// Sets the message (when text is not NULL) and the failed state; returns status.
int pngcodec_fail(pngcodec_decoder *d, int status, const char *text);

// An Adam7 file's image data read with zlib directly: the first pass finds where each of the
// seven passes starts (an inflate state copied there), then all seven advance together, one
// image row at a time, into the resampler. dst is RGBA, out_width x out_height.
int pngcodec_adam7_stream(pngcodec_decoder *d, uint8_t *dst, int out_width, int out_height);

#endif
