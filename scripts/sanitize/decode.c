// The AddressSanitizer + UndefinedBehaviorSanitizer harness (scripts/sanitize.sh): every input through
// the stream renderer's C code (drive.c), and the resampler on its own over a grid of sizes.
//
//   sanitize_decode --resample                 the resampler alone
//   sanitize_decode --fixtures DIR FILE...     every operation a file allows, then copies of it cut short
//                                              and with bytes changed; a fixture must decode unless its
//                                              name starts with "refused-"
//   sanitize_decode --corpus FILE...           a few operations a file (the fuzz corpus)
//   (a FILE of "-" reads the names from stdin, one a line)
//
// A sanitizer finding aborts with the sanitizer's report; the harness itself exits 1 when a fixture
// does not decode, or the resampler's output of a uniform image is not uniform. Each file's name is
// printed before it is decoded, so a report follows the name of the file that caused it.
#include "drive.h"

#include <CResample.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long files, operations, succeeded, derived, problems;
static long per_format[4];
static const char *scratch_dir = "/tmp";

// Runs every operation of the input; returns how many failed.
static int run_all(const struct sz_input *in, int full) {
    struct sz_op ops[SZ_MAX_OPS];
    int n = sz_ops(in, full, ops), failed = 0;
    for (int i = 0; i < n; i++) {
        struct sz_result r = sz_run(in, &ops[i]);
        operations++;
        if (r.status == 0)
            succeeded++;
        else
            failed++;
    }
    return failed;
}

// The bytes written to a scratch file of their own, so that the file-reading entry points see them too.
static void run_derived(const uint8_t *bytes, size_t size) {
    char path[4096];
    snprintf(path, sizeof path, "%s/derived-XXXXXX", scratch_dir);
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, bytes, size) != (ssize_t)size) {
        perror(path);
        exit(2);
    }
    close(fd);
    struct sz_input in = {path, (uint8_t *)bytes, size, 0, 0, 0};
    sz_probe(&in);
    run_all(&in, 0);
    derived++;
    unlink(path);
}

// Cut short at seven lengths, and sixteen copies with a byte changed (xorshift: the same every run).
static void run_damaged(const struct sz_input *in) {
    if (in->size < 16) return;
    uint8_t *copy = malloc(in->size);
    if (!copy) return;
    for (int k = 1; k < 8; k++) run_derived(in->data, in->size * (size_t)k / 8);
    uint32_t state = 2463534242u ^ (uint32_t)in->size;
    for (int k = 0; k < 16; k++) {
        memcpy(copy, in->data, in->size);
        for (int changes = 0; changes < 1 + k % 3; changes++) {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            size_t at = 2 + state % (in->size - 2);  // the signature kept: the decoders get past it
            copy[at] = k % 2 ? (uint8_t)(copy[at] ^ (1u << (state >> 8) % 8)) : (uint8_t)(state >> 16);
        }
        run_derived(copy, in->size);
    }
    free(copy);
}

static void run_file(const char *path, int fixtures) {
    struct sz_input in;
    printf("file: %s\n", path);
    fflush(stdout);
    if (!sz_load(path, &in)) {
        fprintf(stderr, "sanitize_decode: finding: cannot read %s\n", path);
        problems++;
        return;
    }
    files++;
    per_format[in.format]++;
    int failed = run_all(&in, fixtures);
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    int expect_ok = fixtures && strncmp(name, "refused-", 8) != 0;
    if (expect_ok && in.width == 0) {
        fprintf(stderr, "sanitize_decode: finding: the fixture %s does not open as a JPEG, PNG or WebP\n", path);
        problems++;
    } else if (expect_ok && failed) {
        fprintf(stderr, "sanitize_decode: finding: the fixture %s did not decode (%d operations failed)\n", path,
                failed);
        problems++;
    }
    if (fixtures) run_damaged(&in);
    sz_unload(&in);
}

// A uniform image must come out uniform at every size (the area weights sum to one), and nothing may
// be touched outside the output (ASan) or the source row.
static void run_resampler(void) {
    static const int sizes[] = {1, 2, 3, 5, 8, 13, 31, 64, 97};
    int count = (int)(sizeof sizes / sizeof *sizes);
    long cases = 0;
    for (int channels = 3; channels <= 4; channels++)
        for (int a = 0; a < count; a++)
            for (int b = 0; b < count; b++)
                for (int c = 0; c <= a; c++)
                    for (int e = 0; e <= b; e++) {
                        int sw = sizes[a], sh = sizes[b], w = sizes[c], h = sizes[e];
                        uint8_t *dst = malloc((size_t)w * (size_t)h * 4), *row = malloc((size_t)sw * (size_t)channels);
                        uint8_t value = (uint8_t)(37 * (a + b + c + e) + channels);
                        memset(row, value, (size_t)sw * (size_t)channels);
                        memset(dst, 0, (size_t)w * (size_t)h * 4);
                        struct resample_state r;
                        if (!resample_init(&r, sw, sh, w, h, channels, dst)) {
                            fprintf(stderr, "sanitize_decode: resample_init failed\n");
                            exit(2);
                        }
                        for (int y = 0; y <= sh; y++) resample_push(&r, row);  // one row past the end: ignored
                        resample_free(&r);
                        for (size_t i = 0; i < (size_t)w * (size_t)h * 4; i++) {
                            int expected = channels == 3 && i % 4 == 3 ? 255 : value;
                            if (abs(dst[i] - expected) > 1) {
                                fprintf(stderr,
                                        "sanitize_decode: finding: resampler %dx%d -> %dx%d (%d channels): sample %zu "
                                        "is %d, "
                                        "not %d\n",
                                        sw, sh, w, h, channels, i, dst[i], expected);
                                problems++;
                                break;
                            }
                        }
                        free(dst);
                        free(row);
                        cases++;
                    }
    printf("sanitize_decode: resampler %ld cases\n", cases);
}

static void run_list(int argc, char **argv, int fixtures) {
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "-") != 0) {
            run_file(argv[i], fixtures);
            continue;
        }
        char line[4096];
        while (fgets(line, sizeof line, stdin)) {
            line[strcspn(line, "\n")] = 0;
            if (line[0]) run_file(line, fixtures);
        }
    }
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "--resample") == 0) {
        run_resampler();
    } else if (argc >= 3 && strcmp(argv[1], "--fixtures") == 0) {
        scratch_dir = argv[2];
        run_list(argc - 3, argv + 3, 1);
    } else if (argc >= 2 && strcmp(argv[1], "--corpus") == 0) {
        run_list(argc - 2, argv + 2, 0);
    } else {
        fprintf(stderr,
                "usage: %s --resample | --fixtures SCRATCH_DIR FILE... | --corpus FILE... (- reads names from stdin)\n",
                argv[0]);
        return 2;
    }
    if (files)
        printf("sanitize_decode: %ld files (jpeg %ld, png %ld, webp %ld, other %ld), %ld damaged copies, "
               "%ld operations (%ld decoded, %ld refused)\n",
               files, per_format[SZ_JPEG], per_format[SZ_PNG], per_format[SZ_WEBP], per_format[SZ_OTHER], derived,
               operations, succeeded, operations - succeeded);
    return problems ? 1 : 0;
}
