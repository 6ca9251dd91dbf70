// libheif shim: decode the primary image to interleaved RGBA; encode RGB with x265 or aom.
#pragma clang diagnostic error "-Wall"
#pragma clang diagnostic error "-Wextra"
#include "CHEIFCodec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libheif/heif.h>

static int failed(struct heif_error error, const char *what, char *message, size_t message_size) {
    snprintf(message, message_size, "%s: %s", what, error.message ? error.message : "unknown error");
    return error.code == heif_error_Memory_allocation_error ? HEIFCODEC_NO_MEMORY : HEIFCODEC_FAILED;
}

int heifcodec_has_codec(int av1, int decoding) {
    enum heif_compression_format format = av1 ? heif_compression_AV1 : heif_compression_HEVC;
    return decoding ? heif_have_decoder_for_format(format) : heif_have_encoder_for_format(format);
}

int heifcodec_decode_rgba(const void *data, size_t size, void *dst, size_t dst_size,
                          int out_width, int out_height, char *message, size_t message_size) {
    struct heif_context *context = heif_context_alloc();
    struct heif_image_handle *handle = NULL;
    struct heif_image *image = NULL;
    int status = HEIFCODEC_OK;
    if (!context) { snprintf(message, message_size, "out of memory"); return HEIFCODEC_NO_MEMORY; }
    struct heif_error error = heif_context_read_from_memory_without_copy(context, data, size, NULL);
    if (error.code) { status = failed(error, "cannot read the file", message, message_size); goto done; }
    error = heif_context_get_primary_image_handle(context, &handle);
    if (error.code) { status = failed(error, "no primary image", message, message_size); goto done; }
    int width = heif_image_handle_get_width(handle), height = heif_image_handle_get_height(handle);
    if (out_width < 1 || out_height < 1 || out_width > width || out_height > height ||
        dst_size < (size_t)out_width * out_height * 4) {
        snprintf(message, message_size, "bad output size %dx%d for a %dx%d image", out_width, out_height, width, height);
        status = HEIFCODEC_BAD_ARGUMENT;
        goto done;
    }
    // Interleaved RGB, not RGBA: libheif's image is then 3 bytes a pixel, not 4 (the alpha
    // is opaque here; an image with an alpha plane is asked for RGBA).
    int alpha = heif_image_handle_has_alpha_channel(handle);
    error = heif_decode_image(handle, &image, heif_colorspace_RGB,
                              alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, NULL);
    if (error.code) { status = failed(error, "decode failed", message, message_size); goto done; }
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    if (!plane) { snprintf(message, message_size, "decoded image has no interleaved plane"); status = HEIFCODEC_FAILED; goto done; }
    // The loop below reads width x height pixels: the decoded plane must be at least that large
    // (a crafted file can declare one size in its header and decode to another).
    int plane_width = heif_image_get_width(image, heif_channel_interleaved);
    int plane_height = heif_image_get_height(image, heif_channel_interleaved);
    if (plane_width < width || plane_height < height) {
        snprintf(message, message_size, "decoded plane is %dx%d, smaller than the %dx%d the file declares",
                 plane_width, plane_height, width, height);
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
            out[x * 4] = pixel[0]; out[x * 4 + 1] = pixel[1]; out[x * 4 + 2] = pixel[2];
            out[x * 4 + 3] = alpha ? pixel[3] : 255;
        }
    }
done:
    if (image) heif_image_release(image);
    if (handle) heif_image_handle_release(handle);
    heif_context_free(context);
    return status;
}

struct memory_writer { uint8_t *data; size_t size; };

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

int heifcodec_encode_rgb(const uint8_t *rgb, int width, int height, int av1, int quality,
                         uint8_t **out, size_t *out_size, char *message, size_t message_size) {
    struct heif_context *context = heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    struct heif_image *image = NULL;
    int status = HEIFCODEC_OK;
    if (!context) { snprintf(message, message_size, "out of memory"); return HEIFCODEC_NO_MEMORY; }
    struct heif_error error = heif_context_get_encoder_for_format(
        context, av1 ? heif_compression_AV1 : heif_compression_HEVC, &encoder);
    if (error.code) { status = failed(error, "no encoder", message, message_size); goto done; }
    heif_encoder_set_lossy_quality(encoder, quality);
    if (av1) heif_encoder_set_parameter_integer(encoder, "speed", 9);
    else heif_encoder_set_parameter_string(encoder, "preset", "ultrafast");
    error = heif_image_create(width, height, heif_colorspace_RGB, heif_chroma_interleaved_RGB, &image);
    if (error.code) { status = failed(error, "cannot create the image", message, message_size); goto done; }
    error = heif_image_add_plane(image, heif_channel_interleaved, width, height, 8);
    if (error.code) { status = failed(error, "cannot add the RGB plane", message, message_size); goto done; }
    int stride = 0;
    uint8_t *plane = heif_image_get_plane(image, heif_channel_interleaved, &stride);
    for (int y = 0; y < height; y++) memcpy(plane + (size_t)y * stride, rgb + (size_t)y * width * 3, (size_t)width * 3);
    error = heif_context_encode_image(context, image, encoder, NULL, NULL);
    if (error.code) { status = failed(error, "encode failed", message, message_size); goto done; }
    struct memory_writer memory = {NULL, 0};
    struct heif_writer writer = {.writer_api_version = 1, .write = write_memory};
    error = heif_context_write(context, &writer, &memory);
    if (error.code) { free(memory.data); status = failed(error, "cannot write the file", message, message_size); goto done; }
    *out = memory.data;
    *out_size = memory.size;
done:
    if (image) heif_image_release(image);
    if (encoder) heif_encoder_release(encoder);
    heif_context_free(context);
    return status;
}
