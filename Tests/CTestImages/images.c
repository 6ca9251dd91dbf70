#pragma clang diagnostic error "-Wall"
#pragma clang diagnostic error "-Wextra"
#include "CTestImages.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <png.h>

struct jpeg_failure {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
};

static void jpeg_failed(j_common_ptr cinfo) { longjmp(((struct jpeg_failure *)cinfo->err)->jump, 1); }

int testimages_jpeg(int width, int height, int space, const uint8_t *color, int arithmetic, uint8_t **out,
                    size_t *out_size, char *message, size_t message_size) {
    struct jpeg_compress_struct cinfo;
    struct jpeg_failure failure;
    unsigned char *buffer = NULL;
    unsigned long size = 0;
    int components = space == TESTIMAGES_RGB ? 3 : 4;
    uint8_t *row = malloc((size_t)width * components);
    if (!row) {
        snprintf(message, message_size, "out of memory");
        return -1;
    }
    for (int x = 0; x < width; x++) memcpy(row + (size_t)x * components, color, components);
    cinfo.err = jpeg_std_error(&failure.pub);
    failure.pub.error_exit = jpeg_failed;
    if (setjmp(failure.jump)) {
        (*cinfo.err->format_message)((j_common_ptr)&cinfo, message);
        jpeg_destroy_compress(&cinfo);
        free(buffer);
        free(row);
        return -1;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &buffer, &size);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = components;
    cinfo.in_color_space = space == TESTIMAGES_RGB ? JCS_RGB : JCS_CMYK;
    jpeg_set_defaults(&cinfo);
    if (space == TESTIMAGES_CMYK) jpeg_set_colorspace(&cinfo, JCS_CMYK);  // writes an Adobe marker
    if (space == TESTIMAGES_YCCK) jpeg_set_colorspace(&cinfo, JCS_YCCK);
    jpeg_set_quality(&cinfo, 95, TRUE);
    cinfo.arith_code = arithmetic ? TRUE : FALSE;
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW rows[1] = {row};
        jpeg_write_scanlines(&cinfo, rows, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    free(row);
    *out = buffer;  // malloc'd by libjpeg's memory destination
    *out_size = size;
    return 0;
}

struct png_memory {
    uint8_t *data;
    size_t size, capacity;
};

static void png_write_memory(png_structp png, png_bytep bytes, size_t count) {
    struct png_memory *m = png_get_io_ptr(png);
    if (m->size + count > m->capacity) {
        size_t capacity = (m->size + count) * 2;
        uint8_t *bigger = realloc(m->data, capacity);
        if (!bigger) png_error(png, "out of memory");
        m->data = bigger;
        m->capacity = capacity;
    }
    memcpy(m->data + m->size, bytes, count);
    m->size += count;
}

static void png_flush_memory(png_structp png) { (void)png; }

int testimages_palette_png(int width, int height, const uint8_t *first, const uint8_t *second, uint8_t **out,
                           size_t *out_size, char *message, size_t message_size) {
    struct png_memory memory = {NULL, 0, 0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    uint8_t *row = malloc((size_t)width);
    if (!info || !row) {
        snprintf(message, message_size, "out of memory");
        png_destroy_write_struct(&png, &info);
        free(row);
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        snprintf(message, message_size, "libpng failed to write the palette PNG");
        png_destroy_write_struct(&png, &info);
        free(memory.data);
        free(row);
        return -1;
    }
    png_set_write_fn(png, &memory, png_write_memory, png_flush_memory);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_PALETTE, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_color palette[2] = {{first[0], first[1], first[2]}, {second[0], second[1], second[2]}};
    png_set_PLTE(png, info, palette, 2);
    png_write_info(png, info);
    for (int x = 0; x < width; x++) row[x] = x < width / 2 ? 0 : 1;
    for (int y = 0; y < height; y++) png_write_row(png, row);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(row);
    *out = memory.data;
    *out_size = memory.size;
    return 0;
}

// One sample of `depth` bits at index i of a packed row (big-endian within bytes, as PNG packs).
static void put_sample(uint8_t *row, size_t i, int depth, unsigned value) {
    if (depth == 16) {
        row[2 * i] = (uint8_t)(value >> 8);
        row[2 * i + 1] = (uint8_t)value;
        return;
    }
    if (depth == 8) {
        row[i] = (uint8_t)value;
        return;
    }
    size_t bit = i * (size_t)depth;
    row[bit >> 3] |= (uint8_t)(value << (8 - depth - (int)(bit & 7)));
}

// An 8-bit sample at `depth`: its top bits, or repeated to 16.
static unsigned at_depth(uint8_t v, int depth) { return depth == 16 ? v * 257u : (unsigned)v >> (8 - depth); }

int testimages_png(const uint8_t *rgba, int width, int height, int color_type, int depth, int interlaced,
                   int transparent, uint8_t **out, size_t *out_size, char *message, size_t message_size) {
    struct png_memory memory = {NULL, 0, 0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    int channels = color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_PALETTE ? 1
        : color_type == PNG_COLOR_TYPE_GRAY_ALPHA                                            ? 2
        : color_type == PNG_COLOR_TYPE_RGB                                                   ? 3
                                                                                             : 4;
    uint8_t *rows = calloc((size_t)height, ((size_t)width * channels * depth + 7) / 8);
    png_bytep *pointers = malloc((size_t)height * sizeof *pointers);
    if (!info || !rows || !pointers) {
        snprintf(message, message_size, "out of memory");
        png_destroy_write_struct(&png, &info);
        free(rows);
        free(pointers);
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        snprintf(message, message_size, "libpng failed to write the PNG (type %d, depth %d)", color_type, depth);
        png_destroy_write_struct(&png, &info);
        free(memory.data);
        free(rows);
        free(pointers);
        return -1;
    }
    png_set_write_fn(png, &memory, png_write_memory, png_flush_memory);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, depth, color_type,
                 interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    int entries = color_type == PNG_COLOR_TYPE_PALETTE ? 1 << depth : 0;
    png_color palette[256];
    png_byte palette_alpha[256];
    for (int i = 0; i < entries; i++) {  // a ramp of colours, the first half partly transparent
        int v = i * 255 / (entries - 1);
        palette[i] = (png_color){(png_byte)v, (png_byte)(255 - v), (png_byte)(v / 2 + 64)};
        palette_alpha[i] = (png_byte)(i < entries / 2 ? i * 255 / entries : 255);
    }
    if (entries) png_set_PLTE(png, info, palette, entries);
    // tRNS: the first pixel's value is the transparent one (gray, RGB), or the palette's alphas.
    png_color_16 key = {0, (png_uint_16)at_depth(rgba[0], depth), (png_uint_16)at_depth(rgba[1], depth),
                        (png_uint_16)at_depth(rgba[2], depth), (png_uint_16)at_depth(rgba[0], depth)};
    if (transparent && entries) png_set_tRNS(png, info, palette_alpha, entries / 2 + 1, NULL);
    if (transparent && (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_RGB))
        png_set_tRNS(png, info, NULL, 0, &key);
    size_t stride = ((size_t)width * channels * depth + 7) / 8;
    for (int y = 0; y < height; y++) {
        uint8_t *row = rows + (size_t)y * stride;
        pointers[y] = row;
        for (int x = 0; x < width; x++) {
            const uint8_t *p = rgba + ((size_t)y * width + x) * 4;
            size_t i = (size_t)x * channels;
            switch (color_type) {
            case PNG_COLOR_TYPE_GRAY: put_sample(row, i, depth, at_depth(p[0], depth)); break;
            case PNG_COLOR_TYPE_PALETTE: put_sample(row, i, depth, (unsigned)p[0] >> (8 - depth)); break;
            case PNG_COLOR_TYPE_GRAY_ALPHA:
                put_sample(row, i, depth, at_depth(p[0], depth));
                put_sample(row, i + 1, depth, at_depth(p[3], depth));
                break;
            default:
                for (int c = 0; c < channels; c++) put_sample(row, i + c, depth, at_depth(p[c], depth));
            }
        }
    }
    png_set_rows(png, info, pointers);
    png_write_png(png, info, PNG_TRANSFORM_IDENTITY, NULL);
    png_destroy_write_struct(&png, &info);
    free(rows);
    free(pointers);
    *out = memory.data;
    *out_size = memory.size;
    return 0;
}

int testimages_jpeg_coefficients(const uint8_t *jpeg, size_t size, int component, int16_t **out, int *blocks_wide,
                                 int *blocks_high, char *message, size_t message_size) {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_failure failure;
    int16_t *blocks = NULL;
    cinfo.err = jpeg_std_error(&failure.pub);
    failure.pub.error_exit = jpeg_failed;
    if (setjmp(failure.jump)) {
        (*cinfo.err->format_message)((j_common_ptr)&cinfo, message);
        jpeg_destroy_decompress(&cinfo);
        free(blocks);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, jpeg, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    jvirt_barray_ptr *arrays = jpeg_read_coefficients(&cinfo);
    if (component < 0 || component >= cinfo.num_components) {
        snprintf(message, message_size, "no component %d", component);
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    jpeg_component_info *comp = &cinfo.comp_info[component];
    size_t wide = comp->width_in_blocks, high = comp->height_in_blocks;
    blocks = malloc(wide * high * 64 * sizeof(int16_t));
    if (!blocks) {
        snprintf(message, message_size, "out of memory");
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    for (JDIMENSION y = 0; y < high; y++) {
        JBLOCKARRAY row = (*cinfo.mem->access_virt_barray)((j_common_ptr)&cinfo, arrays[component], y, 1, FALSE);
        memcpy(blocks + (size_t)y * wide * 64, row[0], wide * 64 * sizeof(int16_t));
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    *out = blocks;
    *blocks_wide = (int)wide;
    *blocks_high = (int)high;
    return 0;
}

int testimages_jpeg_transcode(const uint8_t *jpeg, size_t size, const int *script, int scan_count, int restart_blocks,
                              uint8_t **out, size_t *out_size, char *message, size_t message_size) {
    struct jpeg_decompress_struct in;
    struct jpeg_compress_struct dst;
    struct jpeg_failure failure;
    unsigned char *buffer = NULL;
    unsigned long written = 0;
    jpeg_scan_info *scans = NULL;
    in.err = jpeg_std_error(&failure.pub);
    dst.err = &failure.pub;
    failure.pub.error_exit = jpeg_failed;
    jpeg_create_decompress(&in);
    jpeg_create_compress(&dst);
    if (setjmp(failure.jump)) {
        (*in.err->format_message)((j_common_ptr)&in, message);
        jpeg_destroy_compress(&dst);
        jpeg_destroy_decompress(&in);
        free(buffer);
        free(scans);
        return -1;
    }
    jpeg_mem_src(&in, jpeg, (unsigned long)size);
    jpeg_read_header(&in, TRUE);
    jvirt_barray_ptr *arrays = jpeg_read_coefficients(&in);
    jpeg_copy_critical_parameters(&in, &dst);
    jpeg_mem_dest(&dst, &buffer, &written);
    dst.optimize_coding = TRUE;
    if (scan_count < 0) jpeg_simple_progression(&dst);
    if (scan_count > 0) {
        scans = calloc((size_t)scan_count, sizeof *scans);
        if (!scans) {
            snprintf(message, message_size, "out of memory");
            longjmp(failure.jump, 2);
        }
        for (int i = 0; i < scan_count; i++) {
            const int *s = script + i * 9;
            scans[i].comps_in_scan = s[0];
            for (int c = 0; c < 4; c++) scans[i].component_index[c] = s[1 + c];
            scans[i].Ss = s[5];
            scans[i].Se = s[6];
            scans[i].Ah = s[7];
            scans[i].Al = s[8];
        }
        dst.scan_info = scans;
        dst.num_scans = scan_count;
    }
    dst.restart_interval = (unsigned)restart_blocks;
    jpeg_write_coefficients(&dst, arrays);
    jpeg_finish_compress(&dst);
    jpeg_destroy_compress(&dst);
    jpeg_finish_decompress(&in);
    jpeg_destroy_decompress(&in);
    free(scans);
    *out = buffer;
    *out_size = written;
    return 0;
}

int testimages_jpeg_rgba(const uint8_t *rgba, int width, int height, int gray, int h0, int v0, int quality,
                         uint8_t **out, size_t *out_size, char *message, size_t message_size) {
    struct jpeg_compress_struct cinfo;
    struct jpeg_failure failure;
    unsigned char *buffer = NULL;
    unsigned long size = 0;
    uint8_t *row = malloc((size_t)width * 3);
    if (!row) {
        snprintf(message, message_size, "out of memory");
        return -1;
    }
    cinfo.err = jpeg_std_error(&failure.pub);
    failure.pub.error_exit = jpeg_failed;
    if (setjmp(failure.jump)) {
        (*cinfo.err->format_message)((j_common_ptr)&cinfo, message);
        jpeg_destroy_compress(&cinfo);
        free(buffer);
        free(row);
        return -1;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &buffer, &size);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cinfo);
    if (gray) jpeg_set_colorspace(&cinfo, JCS_GRAYSCALE);
    cinfo.comp_info[0].h_samp_factor = h0;
    cinfo.comp_info[0].v_samp_factor = v0;
    jpeg_set_quality(&cinfo, quality, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        const uint8_t *source = rgba + (size_t)cinfo.next_scanline * (size_t)width * 4;
        for (int x = 0; x < width; x++) memcpy(row + (size_t)x * 3, source + (size_t)x * 4, 3);
        JSAMPROW rows[1] = {row};
        jpeg_write_scanlines(&cinfo, rows, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    free(row);
    *out = buffer;
    *out_size = size;
    return 0;
}

int testimages_jpeg_decode_scaled(const uint8_t *jpeg, size_t size, int numerator, int fancy_upsampling, int rgb,
                                  uint8_t **out, int *width, int *height, int *components, char *message,
                                  size_t message_size) {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_failure failure;
    uint8_t *pixels = NULL;
    cinfo.err = jpeg_std_error(&failure.pub);
    failure.pub.error_exit = jpeg_failed;
    if (setjmp(failure.jump)) {
        (*cinfo.err->format_message)((j_common_ptr)&cinfo, message);
        jpeg_destroy_decompress(&cinfo);
        free(pixels);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, jpeg, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.scale_num = (unsigned)numerator;
    cinfo.scale_denom = 8;
    cinfo.do_fancy_upsampling = fancy_upsampling ? TRUE : FALSE;
    cinfo.out_color_space = rgb ? JCS_RGB : cinfo.jpeg_color_space;
    jpeg_start_decompress(&cinfo);
    size_t stride = (size_t)cinfo.output_width * (size_t)cinfo.output_components;
    pixels = malloc(stride * cinfo.output_height);
    if (!pixels) {
        snprintf(message, message_size, "out of memory");
        longjmp(failure.jump, 2);
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = pixels + (size_t)cinfo.output_scanline * stride;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    *width = (int)cinfo.output_width;
    *height = (int)cinfo.output_height;
    *components = cinfo.output_components;
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    *out = pixels;
    return 0;
}
