// libheif shim: decode the primary image to interleaved RGBA; encode RGB with x265 or aom.
#pragma clang diagnostic error "-Wall"
#pragma clang diagnostic error "-Wextra"
#include "CHEIFCodec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "library.h"

#include <CResample.h>

static int failed(struct heif_error error, const char *what, char *message, size_t message_size) {
    snprintf(message, message_size, "%s: %s", what, error.message ? error.message : "unknown error");
    return error.code == heif_error_Memory_allocation_error ? HEIFCODEC_NO_MEMORY : HEIFCODEC_FAILED;
}

/// Reads the file (from `path`, or from `data` in memory without a copy), takes its primary image and
/// checks the output size against it: HEIFCODEC_OK with `*handle`, `*width` and `*height` set, or the
/// failure's status with `message`. The caller frees the handle and the context.
static int open_primary(struct heif_context *context, const char *path, const void *data, size_t size, int out_width,
                        int out_height, size_t dst_size, struct heif_image_handle **handle, int *width, int *height,
                        char *message, size_t message_size) {
    struct heif_error error = path ? HEIF(heif_context_read_from_file)(context, path, NULL)
                                   : HEIF(heif_context_read_from_memory_without_copy)(context, data, size, NULL);
    if (error.code) return failed(error, "cannot read the file", message, message_size);
    error = HEIF(heif_context_get_primary_image_handle)(context, handle);
    if (error.code) return failed(error, "no primary image", message, message_size);
    *width = HEIF(heif_image_handle_get_width)(*handle);
    *height = HEIF(heif_image_handle_get_height)(*handle);
    if (out_width < 1 || out_height < 1 || out_width > *width || out_height > *height
        || dst_size < (size_t)out_width * out_height * 4) {
        snprintf(message, message_size, "bad output size %dx%d for a %dx%d image", out_width, out_height, *width,
                 *height);
        return HEIFCODEC_BAD_ARGUMENT;
    }
    return HEIFCODEC_OK;
}

const char *heifcodec_version(void) { return heif_library_load(NULL, 0) ? HEIF(heif_get_version)() : NULL; }

int heifcodec_unavailable(char *message, size_t message_size) {
    return heif_library_load(message, message_size) ? 0 : 1;
}

int heifcodec_has_codec(int av1, int decoding) {
    if (!heif_library_load(NULL, 0)) return 0;
    enum heif_compression_format format = av1 ? heif_compression_AV1 : heif_compression_HEVC;
    return decoding ? HEIF(heif_have_decoder_for_format)(format) : HEIF(heif_have_encoder_for_format)(format);
}

int heifcodec_decode_rgba(const void *data, size_t size, void *dst, size_t dst_size, int out_width, int out_height,
                          char *message, size_t message_size) {
    if (!heif_library_load(message, message_size)) return HEIFCODEC_FAILED;
    struct heif_context *context = HEIF(heif_context_alloc)();
    struct heif_image_handle *handle = NULL;
    struct heif_image *image = NULL;
    int status = HEIFCODEC_OK;
    if (!context) {
        snprintf(message, message_size, "out of memory");
        return HEIFCODEC_NO_MEMORY;
    }
    int width = 0, height = 0;
    status = open_primary(context, NULL, data, size, out_width, out_height, dst_size, &handle, &width, &height, message,
                          message_size);
    if (status != HEIFCODEC_OK) goto done;
    // Interleaved RGB, not RGBA: libheif's image is then 3 bytes a pixel, not 4 (the alpha
    // is opaque here; an image with an alpha plane is asked for RGBA).
    int alpha = HEIF(heif_image_handle_has_alpha_channel)(handle);
    struct heif_error error = HEIF(heif_decode_image)(
        handle, &image, heif_colorspace_RGB, alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, NULL);
    if (error.code) {
        status = failed(error, "decode failed", message, message_size);
        goto done;
    }
    int stride = 0;
    const uint8_t *plane = HEIF(heif_image_get_plane_readonly)(image, heif_channel_interleaved, &stride);
    if (!plane) {
        snprintf(message, message_size, "decoded image has no interleaved plane");
        status = HEIFCODEC_FAILED;
        goto done;
    }
    // The loop below reads width x height pixels: the decoded plane must be at least that large
    // (a crafted file can declare one size in its header and decode to another).
    int plane_width = HEIF(heif_image_get_width)(image, heif_channel_interleaved);
    int plane_height = HEIF(heif_image_get_height)(image, heif_channel_interleaved);
    if (plane_width < width || plane_height < height) {
        snprintf(message, message_size, "decoded plane is %dx%d, smaller than the %dx%d the file declares", plane_width,
                 plane_height, width, height);
        status = HEIFCODEC_FAILED;
        goto done;
    }
    // Straight into dst, scaled by nearest neighbour as heif_image_scale_image would, without
    // its second image: libheif 1.15 has no scaled decode.
    int channels = alpha ? 4 : 3;
    for (int y = 0; y < out_height; y++) {
        const uint8_t *row = plane + (size_t)((int64_t)y * height / out_height) * stride;
        uint8_t *out = (uint8_t *)dst + (size_t)y * out_width * 4;
        for (int x = 0; x < out_width; x++) {
            const uint8_t *pixel = row + (size_t)((int64_t)x * width / out_width) * channels;
            out[x * 4] = pixel[0];
            out[x * 4 + 1] = pixel[1];
            out[x * 4 + 2] = pixel[2];
            out[x * 4 + 3] = alpha ? pixel[3] : 255;
        }
    }
done:
    if (image) HEIF(heif_image_release)(image);
    if (handle) HEIF(heif_image_handle_release)(handle);
    HEIF(heif_context_free)(context);
    return status;
}

// MARK: Native planes to the output size (the stream renderer)

struct planes {
    enum heif_colorspace space;
    int shift_x, shift_y;     // chroma subsampling: 1 for half
    const uint8_t *plane[4];  // Y Cb Cr (or R G B, or Y alone), then alpha or NULL
    int stride[4], depth[4];
    float kr, kb;  // the matrix
    int full_range, identity;
};

static inline float sample_at(const struct planes *p, int c, int x, int y) {
    const uint8_t *row = p->plane[c] + (size_t)y * (size_t)p->stride[c];
    return p->depth[c] > 8 ? (float)((const uint16_t *)(const void *)row)[x] : (float)row[x];
}

static inline uint8_t clamp_byte(float v) { return v <= 0 ? 0 : v >= 255 ? 255 : (uint8_t)(v + 0.5f); }

// Row y as 8-bit RGB(A), as libheif's own conversion makes it.
static void convert_row(const struct planes *p, int width, int y, uint8_t *out, int channels) {
    float max_y = (float)((1 << p->depth[0]) - 1), half = (float)(1 << (p->depth[0] - 1));
    float unit = (float)(1 << (p->depth[0] - 8));  // 8-bit steps in this depth
    int cy = y >> p->shift_y;
    for (int x = 0; x < width; x++, out += channels) {
        if (p->space == heif_colorspace_monochrome) {
            out[0] = out[1] = out[2] = clamp_byte(sample_at(p, 0, x, y) * 255.0f / max_y);
        } else if (p->space == heif_colorspace_RGB) {
            for (int c = 0; c < 3; c++) out[c] = clamp_byte(sample_at(p, c, x, y) * 255.0f / max_y);
        } else {
            int cx = x >> p->shift_x;
            float luma = sample_at(p, 0, x, y);
            float cb = sample_at(p, 1, cx, cy) - half, cr = sample_at(p, 2, cx, cy) - half;
            if (p->full_range) {
                luma *= 255.0f / max_y;
                cb *= 255.0f / max_y;
                cr *= 255.0f / max_y;
            } else {
                luma = (luma - 16 * unit) * 255.0f / (219 * unit);
                cb *= 255.0f / (224 * unit);
                cr *= 255.0f / (224 * unit);
            }
            if (p->identity) {  // GBR: Y is green, Cb blue, Cr red
                out[0] = clamp_byte(cr + 128);
                out[1] = clamp_byte(luma);
                out[2] = clamp_byte(cb + 128);
            } else {
                float kg = 1 - p->kr - p->kb;
                out[0] = clamp_byte(luma + 2 * (1 - p->kr) * cr);
                out[1] = clamp_byte(luma - (2 * p->kb * (1 - p->kb) * cb + 2 * p->kr * (1 - p->kr) * cr) / kg);
                out[2] = clamp_byte(luma + 2 * (1 - p->kb) * cb);
            }
        }
        if (channels == 4) out[3] = clamp_byte(sample_at(p, 3, x, y) * 255.0f / (float)((1 << p->depth[3]) - 1));
    }
}

static void set_matrix(struct planes *p, const struct heif_image *image) {
    p->kr = 0.299f;  // BT.601 and full range when the file says nothing, as libheif assumes
    p->kb = 0.114f;
    p->full_range = 1;
    struct heif_color_profile_nclx *nclx = NULL;
    if (HEIF(heif_image_get_nclx_color_profile)(image, &nclx).code != heif_error_Ok || !nclx) return;
    p->full_range = nclx->full_range_flag;
    switch ((int)nclx->matrix_coefficients) {
    case 0: p->identity = 1; break;
    case 1:
        p->kr = 0.2126f;
        p->kb = 0.0722f;
        break;
    case 4:
        p->kr = 0.30f;
        p->kb = 0.11f;
        break;
    case 7:
        p->kr = 0.212f;
        p->kb = 0.087f;
        break;
    case 9:
    case 10:
        p->kr = 0.2627f;
        p->kb = 0.0593f;
        break;
    default: break;  // 5, 6 and the rest: BT.601
    }
    HEIF(heif_nclx_color_profile_free)(nclx);
}

// The decoded image's planes, or 0 when its layout is none of those this converts.
static int find_planes(struct planes *p, const struct heif_image *image) {
    memset(p, 0, sizeof *p);
    p->space = HEIF(heif_image_get_colorspace)(image);
    enum heif_chroma chroma = HEIF(heif_image_get_chroma_format)(image);
    enum heif_channel channels[3] = {heif_channel_Y, heif_channel_Cb, heif_channel_Cr};
    int count = 3;
    if (p->space == heif_colorspace_RGB && chroma == heif_chroma_444) {
        channels[0] = heif_channel_R;
        channels[1] = heif_channel_G;
        channels[2] = heif_channel_B;
    } else if (p->space == heif_colorspace_monochrome) {
        count = 1;
    } else if (p->space == heif_colorspace_YCbCr && chroma >= heif_chroma_420 && chroma <= heif_chroma_444) {
        p->shift_x = chroma != heif_chroma_444;
        p->shift_y = chroma == heif_chroma_420;
        set_matrix(p, image);
    } else {
        return 0;
    }
    for (int c = 0; c < count; c++) {
        p->plane[c] = HEIF(heif_image_get_plane_readonly)(image, channels[c], &p->stride[c]);
        p->depth[c] = HEIF(heif_image_get_bits_per_pixel_range)(image, channels[c]);
        if (!p->plane[c] || p->depth[c] < 8 || p->depth[c] > 16) return 0;
    }
    if (HEIF(heif_image_has_channel)(image, heif_channel_Alpha)) {
        p->plane[3] = HEIF(heif_image_get_plane_readonly)(image, heif_channel_Alpha, &p->stride[3]);
        p->depth[3] = HEIF(heif_image_get_bits_per_pixel_range)(image, heif_channel_Alpha);
        if (!p->plane[3] || p->depth[3] < 8 || p->depth[3] > 16) return 0;
    }
    return 1;
}

int heifcodec_stream_rgba(const char *path, const void *data, size_t size, void *dst, size_t dst_size, int out_width,
                          int out_height, char *message, size_t message_size) {
    if (!heif_library_load(message, message_size)) return HEIFCODEC_FAILED;
    struct heif_context *context = HEIF(heif_context_alloc)();
    struct heif_image_handle *handle = NULL;
    struct heif_image *image = NULL;
    uint8_t *row = NULL;
    struct resample_state r = {0};
    int status = HEIFCODEC_OK;
    if (!context) {
        snprintf(message, message_size, "out of memory");
        return HEIFCODEC_NO_MEMORY;
    }
    int width = 0, height = 0;
    status = open_primary(context, path, data, size, out_width, out_height, dst_size, &handle, &width, &height, message,
                          message_size);
    if (status != HEIFCODEC_OK) goto done;
    struct heif_error error =
        HEIF(heif_decode_image)(handle, &image, heif_colorspace_undefined, heif_chroma_undefined, NULL);
    if (error.code) {
        status = failed(error, "decode failed", message, message_size);
        goto done;
    }
    struct planes planes;
    if (!find_planes(&planes, image)) {
        snprintf(message, message_size, "decoded planes of an unsupported layout (colorspace %d, chroma %d)",
                 (int)HEIF(heif_image_get_colorspace)(image), (int)HEIF(heif_image_get_chroma_format)(image));
        status = HEIFCODEC_FAILED;
        goto done;
    }
    // Every plane must cover what the loop reads (a crafted file can decode to another size).
    for (int c = 0; c < 4; c++) {
        if (!planes.plane[c]) continue;
        int subsampled = c == 1 || c == 2;
        int shift_x = subsampled ? planes.shift_x : 0, shift_y = subsampled ? planes.shift_y : 0;
        enum heif_channel channel = c == 3        ? heif_channel_Alpha
            : planes.space == heif_colorspace_RGB ? (enum heif_channel)(heif_channel_R + c)
                                                  : (enum heif_channel)c;
        if (HEIF(heif_image_get_width)(image, channel) < ((width + shift_x) >> shift_x)
            || HEIF(heif_image_get_height)(image, channel) < ((height + shift_y) >> shift_y)) {
            snprintf(message, message_size, "a decoded plane is smaller than the %dx%d the file declares", width,
                     height);
            status = HEIFCODEC_FAILED;
            goto done;
        }
    }
    int channels = planes.plane[3] ? 4 : 3;
    row = malloc((size_t)width * (size_t)channels);
    if (!row || !resample_init(&r, width, height, out_width, out_height, channels, dst)) {
        snprintf(message, message_size, "out of memory for the working rows");
        status = HEIFCODEC_NO_MEMORY;
        goto done;
    }
    for (int y = 0; y < height; y++) {
        convert_row(&planes, width, y, row, channels);
        resample_push(&r, row);
    }
done:
    resample_free(&r);
    free(row);
    if (image) HEIF(heif_image_release)(image);
    if (handle) HEIF(heif_image_handle_release)(handle);
    HEIF(heif_context_free)(context);
    return status;
}

struct memory_writer {
    uint8_t *data;
    size_t size;
};

static struct heif_error write_memory(struct heif_context *context, const void *data, size_t size, void *userdata) {
    (void)context;
    struct memory_writer *writer = userdata;
    struct heif_error result = {heif_error_Ok, heif_suberror_Unspecified, "ok"};
    writer->data = malloc(size ? size : 1);
    if (!writer->data) {
        result.code = heif_error_Memory_allocation_error;
        result.message = "out of memory for the encoded file";
        return result;
    }
    memcpy(writer->data, data, size);
    writer->size = size;
    return result;
}

int heifcodec_encode_rgb(const uint8_t *rgb, int width, int height, int av1, int quality, uint8_t **out,
                         size_t *out_size, char *message, size_t message_size) {
    if (!heif_library_load(message, message_size)) return HEIFCODEC_FAILED;
    struct heif_context *context = HEIF(heif_context_alloc)();
    struct heif_encoder *encoder = NULL;
    struct heif_image *image = NULL;
    int status = HEIFCODEC_OK;
    if (!context) {
        snprintf(message, message_size, "out of memory");
        return HEIFCODEC_NO_MEMORY;
    }
    struct heif_error error = HEIF(heif_context_get_encoder_for_format)(
        context, av1 ? heif_compression_AV1 : heif_compression_HEVC, &encoder);
    if (error.code) {
        status = failed(error, "no encoder", message, message_size);
        goto done;
    }
    HEIF(heif_encoder_set_lossy_quality)(encoder, quality);
    if (av1)
        HEIF(heif_encoder_set_parameter_integer)(encoder, "speed", 9);
    else
        HEIF(heif_encoder_set_parameter_string)(encoder, "preset", "ultrafast");
    error = HEIF(heif_image_create)(width, height, heif_colorspace_RGB, heif_chroma_interleaved_RGB, &image);
    if (error.code) {
        status = failed(error, "cannot create the image", message, message_size);
        goto done;
    }
    error = HEIF(heif_image_add_plane)(image, heif_channel_interleaved, width, height, 8);
    if (error.code) {
        status = failed(error, "cannot add the RGB plane", message, message_size);
        goto done;
    }
    int stride = 0;
    uint8_t *plane = HEIF(heif_image_get_plane)(image, heif_channel_interleaved, &stride);
    for (int y = 0; y < height; y++) memcpy(plane + (size_t)y * stride, rgb + (size_t)y * width * 3, (size_t)width * 3);
    error = HEIF(heif_context_encode_image)(context, image, encoder, NULL, NULL);
    if (error.code) {
        status = failed(error, "encode failed", message, message_size);
        goto done;
    }
    struct memory_writer memory = {NULL, 0};
    struct heif_writer writer = {.writer_api_version = 1, .write = write_memory};
    error = HEIF(heif_context_write)(context, &writer, &memory);
    if (error.code) {
        free(memory.data);
        status = failed(error, "cannot write the file", message, message_size);
        goto done;
    }
    *out = memory.data;
    *out_size = memory.size;
done:
    if (image) HEIF(heif_image_release)(image);
    if (encoder) HEIF(heif_encoder_release)(encoder);
    HEIF(heif_context_free)(context);
    return status;
}
