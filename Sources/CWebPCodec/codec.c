// libwebp shim: the advanced decoding API (WebPDecoderConfig) into a caller's buffer, with
// use_scaling for thumbnails; the advanced encoding API into memory.
#pragma clang diagnostic error "-Wall"
#pragma clang diagnostic error "-Wextra"
#include "CWebPCodec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

// The output: RGBA of out_width x out_height in dst, scaled by libwebp when smaller than the image.
static void set_output(WebPDecoderConfig *config, void *dst, int out_width, int out_height) {
    if (out_width != config->input.width || out_height != config->input.height) {
        config->options.use_scaling = 1;
        config->options.scaled_width = out_width;
        config->options.scaled_height = out_height;
    }
    config->output.colorspace = MODE_RGBA;
    config->output.is_external_memory = 1;  // straight into dst: libwebp allocates no output
    config->output.u.RGBA.rgba = dst;
    config->output.u.RGBA.stride = out_width * 4;
    config->output.u.RGBA.size = (size_t)out_width * out_height * 4;
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
    set_output(&config, dst, out_width, out_height);
    status = WebPDecode(data, size, &config);
    WebPFreeDecBuffer(&config.output);  // frees nothing external; required by the API
    if (status != VP8_STATUS_OK) {
        snprintf(message, message_size, "%s", status_text(status));
        return status == VP8_STATUS_OUT_OF_MEMORY ? WEBPCODEC_NO_MEMORY : WEBPCODEC_FAILED;
    }
    return WEBPCODEC_OK;
}

int webpcodec_stream_file_rgba(const char *path, void *dst, size_t dst_size, int out_width, int out_height,
                               char *message, size_t message_size) {
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) {
        snprintf(message, message_size, "libwebp version mismatch");
        return WEBPCODEC_FAILED;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(message, message_size, "cannot open %s: %s", path, strerror(errno));
        return WEBPCODEC_IO;
    }
    uint8_t chunk[WEBPCODEC_READ_CHUNK];
    ssize_t got = pread(fd, chunk, sizeof chunk, 0);  // the header's features come from the first chunk
    VP8StatusCode status = got > 0 ? WebPGetFeatures(chunk, (size_t)got, &config.input) : VP8_STATUS_NOT_ENOUGH_DATA;
    int result = WEBPCODEC_OK;
    WebPIDecoder *decoder = NULL;
    if (status != VP8_STATUS_OK) {
        snprintf(message, message_size, "cannot read the header: %s", status_text(status));
        result = WEBPCODEC_FAILED;
    } else if (config.input.has_animation) {
        snprintf(message, message_size, "animated WebP is not supported");
        result = WEBPCODEC_FAILED;
    } else if (out_width < 1 || out_height < 1 || out_width > config.input.width || out_height > config.input.height ||
               dst_size < (size_t)out_width * out_height * 4) {
        snprintf(message, message_size, "bad output size %dx%d for a %dx%d image", out_width, out_height,
                 config.input.width, config.input.height);
        result = WEBPCODEC_BAD_ARGUMENT;
    } else {
        set_output(&config, dst, out_width, out_height);
        decoder = WebPIDecode(NULL, 0, &config);
        if (!decoder) {
            snprintf(message, message_size, "out of memory for the incremental decoder");
            result = WEBPCODEC_NO_MEMORY;
        }
    }
    for (off_t offset = 0; decoder && result == WEBPCODEC_OK;) {
        got = pread(fd, chunk, sizeof chunk, offset);
        if (got < 0) {
            snprintf(message, message_size, "cannot read %s: %s", path, strerror(errno));
            result = WEBPCODEC_IO;
            break;
        }
        if (got == 0) {
            snprintf(message, message_size, "the file ends after %lld bytes, before the image is complete",
                     (long long)offset);
            result = WEBPCODEC_FAILED;
            break;
        }
        offset += got;
        status = WebPIAppend(decoder, chunk, (size_t)got);
        if (status == VP8_STATUS_OK) break;
        if (status != VP8_STATUS_SUSPENDED) {
            snprintf(message, message_size, "%s", status_text(status));
            result = status == VP8_STATUS_OUT_OF_MEMORY ? WEBPCODEC_NO_MEMORY : WEBPCODEC_FAILED;
        }
    }
    if (decoder) WebPIDelete(decoder);
    WebPFreeDecBuffer(&config.output);  // frees nothing external; required by the API
    close(fd);
    return result;
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
