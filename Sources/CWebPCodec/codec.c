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
#include <sys/stat.h>
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

int webpcodec_decode_rgba(const void *data, size_t size, void *dst, size_t dst_size, int out_width, int out_height,
                          char *message, size_t message_size) {
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
    if (out_width < 1 || out_height < 1 || out_width > config.input.width || out_height > config.input.height
        || dst_size < (size_t)out_width * out_height * 4) {
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

// What the incremental decoder is fed from a file: a RIFF header and VP8X written here, then the
// file's ALPH and image chunks. ICCP, EXIF, XMP and unknown chunks are skipped by their size: fed to
// libwebp, every byte before the image chunk stays in its input buffer until the headers parse.
struct image_chunks {
    int fd;
    uint8_t header[12 + 18];  // RIFF, size, WEBP; VP8X with its metadata flags cleared
    size_t header_size;
    off_t range_offset[2];  // the last ALPH chunk and the image chunk, headers included
    uint64_t range_size[2];
    int range_count;
    uint64_t fed;  // bytes handed out so far
};

static uint32_t le32(const uint8_t *p) {
    return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static int read_exact(int fd, uint8_t *out, size_t count, off_t offset) {
    size_t done = 0;
    while (done < count) {
        ssize_t got = pread(fd, out + done, count - done, offset + (off_t)done);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return got < 0 ? -1 : 0;
        done += (size_t)got;
    }
    return 1;
}

// Walks the chunks by their sizes to the image chunk (VP8 or VP8L); returns a WEBPCODEC_ status.
static int find_image_chunks(struct image_chunks *c, off_t file_size, char *message, size_t message_size) {
    uint8_t head[18];
    int got = read_exact(c->fd, head, 12, 0);
    if (got < 0) goto io;
    if (got == 0 || memcmp(head, "RIFF", 4) != 0 || memcmp(head + 8, "WEBP", 4) != 0) {
        snprintf(message, message_size, "not a RIFF/WEBP file");
        return WEBPCODEC_FAILED;
    }
    memcpy(c->header, head, 12);
    c->header_size = 12;
    int has_alpha = 0;
    for (off_t offset = 12; offset + 8 <= file_size;) {  // each chunk moves at least 8 bytes on
        if (read_exact(c->fd, head, 8, offset) <= 0) goto io;
        uint64_t size = le32(head + 4);
        uint64_t disk = 8 + size + (size & 1);
        if (memcmp(head, "VP8X", 4) == 0) {
            if (size < 10 || c->header_size != 12) {
                snprintf(message, message_size, "a VP8X chunk of %llu bytes, or a second one",
                         (unsigned long long)size);
                return WEBPCODEC_FAILED;
            }
            if (read_exact(c->fd, head + 8, 10, offset + 8) <= 0) goto io;
            put_le32(head + 4, 10);
            head[8] &= (uint8_t) ~(0x20 | 0x08 | 0x04);  // ICC, EXIF, XMP: not fed
            memcpy(c->header + 12, head, 18);
            c->header_size = 30;
        } else if (memcmp(head, "ALPH", 4) == 0) {
            has_alpha = 1;
            c->range_offset[0] = offset;
            c->range_size[0] = disk;
        } else if (memcmp(head, "VP8 ", 4) == 0 || memcmp(head, "VP8L", 4) == 0) {
            c->range_count = has_alpha ? 2 : 1;
            c->range_offset[c->range_count - 1] = offset;
            c->range_size[c->range_count - 1] = 8 + size;  // its padding byte, if any, is not needed
            uint64_t riff = 4 + (c->header_size - 12) + (has_alpha ? c->range_size[0] : 0) + disk;
            if (riff > UINT32_MAX) {
                snprintf(message, message_size, "an image chunk of %llu bytes", (unsigned long long)size);
                return WEBPCODEC_FAILED;
            }
            put_le32(c->header + 4, (uint32_t)riff);
            return WEBPCODEC_OK;
        }
        offset += (off_t)disk;
    }
    snprintf(message, message_size, "no VP8 or VP8L image chunk in %lld bytes", (long long)file_size);
    return WEBPCODEC_FAILED;
io:
    snprintf(message, message_size, "cannot read the file: %s", errno ? strerror(errno) : "it ends early");
    return WEBPCODEC_IO;
}

// The next bytes of what is fed: the written header, then each range read from the file. 0 at the
// end of the image chunk or of the file, -1 on a read error.
static ssize_t feed(struct image_chunks *c, uint8_t *out, size_t capacity) {
    uint64_t at = c->fed;
    if (at < c->header_size) {
        size_t n = c->header_size - (size_t)at < capacity ? c->header_size - (size_t)at : capacity;
        memcpy(out, c->header + at, n);
        c->fed += n;
        return (ssize_t)n;
    }
    at -= c->header_size;
    for (int i = 0; i < c->range_count; i++) {
        if (at >= c->range_size[i]) {
            at -= c->range_size[i];
            continue;
        }
        size_t n = c->range_size[i] - at < capacity ? (size_t)(c->range_size[i] - at) : capacity;
        ssize_t got;
        do got = pread(c->fd, out, n, c->range_offset[i] + (off_t)at);
        while (got < 0 && errno == EINTR);
        if (got <= 0) return got;
        c->fed += (uint64_t)got;
        return got;
    }
    return 0;
}

int webpcodec_stream_file_rgba(const char *path, void *dst, size_t dst_size, int out_width, int out_height,
                               char *message, size_t message_size) {
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) {
        snprintf(message, message_size, "libwebp version mismatch");
        return WEBPCODEC_FAILED;
    }
    struct image_chunks chunks = {.fd = open(path, O_RDONLY | O_CLOEXEC)};
    if (chunks.fd < 0) {
        snprintf(message, message_size, "cannot open %s: %s", path, strerror(errno));
        return WEBPCODEC_IO;
    }
    struct stat status;
    int result = fstat(chunks.fd, &status) == 0 ? WEBPCODEC_OK : WEBPCODEC_IO;
    if (result != WEBPCODEC_OK)
        snprintf(message, message_size, "cannot read %s: %s", path, strerror(errno));
    else
        result = find_image_chunks(&chunks, status.st_size, message, message_size);
    uint8_t chunk[WEBPCODEC_READ_CHUNK];
    ssize_t got = result == WEBPCODEC_OK ? feed(&chunks, chunk, sizeof chunk) : 0;
    if (result == WEBPCODEC_OK && got > 0 && (size_t)got < sizeof chunk) {  // the header: add the image's start
        ssize_t more = feed(&chunks, chunk + got, sizeof chunk - (size_t)got);
        got = more < 0 ? more : got + more;
    }
    WebPIDecoder *decoder = NULL;
    if (result == WEBPCODEC_OK) {
        // The features come from the header and the image chunk's start.
        VP8StatusCode features =
            got > 0 ? WebPGetFeatures(chunk, (size_t)got, &config.input) : VP8_STATUS_NOT_ENOUGH_DATA;
        if (features != VP8_STATUS_OK) {
            snprintf(message, message_size, "cannot read the header: %s", status_text(features));
            result = WEBPCODEC_FAILED;
        } else if (config.input.has_animation) {
            snprintf(message, message_size, "animated WebP is not supported");
            result = WEBPCODEC_FAILED;
        } else if (out_width < 1 || out_height < 1 || out_width > config.input.width || out_height > config.input.height
                   || dst_size < (size_t)out_width * out_height * 4) {
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
    }
    while (decoder && result == WEBPCODEC_OK) {
        if (got < 0) {
            snprintf(message, message_size, "cannot read %s: %s", path, strerror(errno));
            result = WEBPCODEC_IO;
            break;
        }
        if (got == 0) {
            snprintf(message, message_size, "the file ends inside its image chunk, before the image is complete");
            result = WEBPCODEC_FAILED;
            break;
        }
        VP8StatusCode appended = WebPIAppend(decoder, chunk, (size_t)got);
        if (appended == VP8_STATUS_OK) break;
        if (appended != VP8_STATUS_SUSPENDED) {
            snprintf(message, message_size, "%s", status_text(appended));
            result = appended == VP8_STATUS_OUT_OF_MEMORY ? WEBPCODEC_NO_MEMORY : WEBPCODEC_FAILED;
            break;
        }
        got = feed(&chunks, chunk, sizeof chunk);
    }
    if (decoder) WebPIDelete(decoder);
    WebPFreeDecBuffer(&config.output);  // frees nothing external; required by the API
    close(chunks.fd);
    return result;
}

int webpcodec_encode_rgb(const uint8_t *rgb, int width, int height, int lossless, float quality, int method,
                         uint8_t **out, size_t *out_size, char *message, size_t message_size) {
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
