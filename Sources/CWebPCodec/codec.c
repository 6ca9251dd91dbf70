// libwebp shim: the advanced decoding API (WebPDecoderConfig) into a caller's buffer, with
// use_scaling for thumbnails; the advanced encoding API into memory.
#pragma clang diagnostic error "-Wall"
#pragma clang diagnostic error "-Wextra"
#include "CWebPCodec.h"

#include <stdio.h>
#include <stdlib.h>

#include <webp/decode.h>
#include <webp/encode.h>

static const char *status_text(VP8StatusCode status) {
    switch (status) {
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "bitstream error (corrupt data)";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported feature";
    case VP8_STATUS_SUSPENDED: return "suspended";
    case VP8_STATUS_USER_ABORT: return "aborted";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "not enough data (truncated)";
    default: return "unknown error";
    }
}

int webpcodec_decode_rgba(const void *data, size_t size, void *dst, size_t dst_size,
                          int out_width, int out_height, char *message, size_t message_size) {
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) {
        snprintf(message, message_size, "libwebp version mismatch");
        return WEBPCODEC_FAILED;
    }
    VP8StatusCode status = WebPGetFeatures(data, size, &config.input);
    if (status != VP8_STATUS_OK) {
        snprintf(message, message_size, "cannot read the header: %s", status_text(status));
        return WEBPCODEC_FAILED;
    }
    if (config.input.has_animation) {
        snprintf(message, message_size, "animated WebP is not supported");
        return WEBPCODEC_FAILED;
    }
    if (out_width < 1 || out_height < 1 || out_width > config.input.width || out_height > config.input.height ||
        dst_size < (size_t)out_width * out_height * 4) {
        snprintf(message, message_size, "bad output size %dx%d for a %dx%d image", out_width, out_height,
                 config.input.width, config.input.height);
        return WEBPCODEC_BAD_ARGUMENT;
    }
    if (out_width != config.input.width || out_height != config.input.height) {
        config.options.use_scaling = 1;
        config.options.scaled_width = out_width;
        config.options.scaled_height = out_height;
    }
    config.output.colorspace = MODE_RGBA;
    config.output.is_external_memory = 1;  // straight into dst: libwebp allocates no output
    config.output.u.RGBA.rgba = dst;
    config.output.u.RGBA.stride = out_width * 4;
    config.output.u.RGBA.size = (size_t)out_width * out_height * 4;
    status = WebPDecode(data, size, &config);
    WebPFreeDecBuffer(&config.output);  // frees nothing external; required by the API
    if (status != VP8_STATUS_OK) {
        snprintf(message, message_size, "%s", status_text(status));
        return status == VP8_STATUS_OUT_OF_MEMORY ? WEBPCODEC_NO_MEMORY : WEBPCODEC_FAILED;
    }
    return WEBPCODEC_OK;
}

int webpcodec_encode_rgb(const uint8_t *rgb, int width, int height, int lossless, float quality,
                         int method, uint8_t **out, size_t *out_size, char *message, size_t message_size) {
    WebPConfig config;
    WebPPicture picture;
    WebPMemoryWriter writer;
    if (!WebPConfigInit(&config) || !WebPPictureInit(&picture)) {
        snprintf(message, message_size, "libwebp version mismatch");
        return WEBPCODEC_FAILED;
    }
    config.lossless = lossless;
    config.quality = quality;
    config.method = method;
    if (!WebPValidateConfig(&config)) {
        snprintf(message, message_size, "invalid WebP settings (quality %.0f, method %d)", quality, method);
        return WEBPCODEC_BAD_ARGUMENT;
    }
    picture.use_argb = lossless;
    picture.width = width;
    picture.height = height;
    if (!WebPPictureImportRGB(&picture, rgb, width * 3)) {
        snprintf(message, message_size, "out of memory importing %dx%d pixels", width, height);
        return WEBPCODEC_NO_MEMORY;
    }
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    int ok = WebPEncode(&config, &picture);
    int error = picture.error_code;
    WebPPictureFree(&picture);
    if (!ok) {
        WebPMemoryWriterClear(&writer);
        snprintf(message, message_size, "WebPEncode failed (error %d)", error);
        return WEBPCODEC_FAILED;
    }
    *out = writer.mem;  // malloc'd by libwebp (WebPMalloc is malloc)
    *out_size = writer.size;
    return WEBPCODEC_OK;
}
