// libheif, loaded on first use instead of at every process start. libheif brings libde265, x265,
// dav1d and aom: loading and relocating them and running their static constructors took about
// 6 ms of every measured child's start-up (the trial's fixed cost), though only HEIC and AVIF use
// them. A HEIC or AVIF trial loads it in its renderer's warm-up, before the measured window.
// The functions are called through one table, filled once (pthread_once) and read-only after.
#ifndef CHEIFCODEC_LIBRARY_H
#define CHEIFCODEC_LIBRARY_H

#include <stddef.h>

#include <libheif/heif.h>

// libheif's soname: its ABI major version, 1 since libheif 1.0.
#define HEIF_LIBRARY_SONAME "libheif.so.1"

#define HEIF_FUNCTIONS(X)                                                                                              \
    X(heif_get_version)                                                                                                \
    X(heif_context_alloc)                                                                                              \
    X(heif_context_encode_image)                                                                                       \
    X(heif_context_free)                                                                                               \
    X(heif_context_get_encoder_for_format)                                                                             \
    X(heif_context_get_primary_image_handle)                                                                           \
    X(heif_context_read_from_file)                                                                                     \
    X(heif_context_read_from_memory_without_copy)                                                                      \
    X(heif_context_write)                                                                                              \
    X(heif_decode_image)                                                                                               \
    X(heif_encoder_release)                                                                                            \
    X(heif_encoder_set_lossy_quality)                                                                                  \
    X(heif_encoder_set_parameter_integer)                                                                              \
    X(heif_encoder_set_parameter_string)                                                                               \
    X(heif_have_decoder_for_format)                                                                                    \
    X(heif_have_encoder_for_format)                                                                                    \
    X(heif_image_add_plane)                                                                                            \
    X(heif_image_create)                                                                                               \
    X(heif_image_get_bits_per_pixel_range)                                                                             \
    X(heif_image_get_chroma_format)                                                                                    \
    X(heif_image_get_colorspace)                                                                                       \
    X(heif_image_get_height)                                                                                           \
    X(heif_image_get_nclx_color_profile)                                                                               \
    X(heif_image_get_plane)                                                                                            \
    X(heif_image_get_plane_readonly)                                                                                   \
    X(heif_image_get_width)                                                                                            \
    X(heif_image_handle_get_height)                                                                                    \
    X(heif_image_handle_get_width)                                                                                     \
    X(heif_image_handle_has_alpha_channel)                                                                             \
    X(heif_image_handle_release)                                                                                       \
    X(heif_image_has_channel)                                                                                          \
    X(heif_image_release)                                                                                              \
    X(heif_nclx_color_profile_free)

struct heif_library {
#define HEIF_FIELD(name) __typeof__(name) *name;
    HEIF_FUNCTIONS(HEIF_FIELD)
#undef HEIF_FIELD
};

// The table, or NULL when libheif cannot be loaded; then message says why (dlerror's words).
const struct heif_library *heif_library_load(char *message, size_t message_size);

// A libheif function, once heif_library_load has returned the table (each entry point checks).
extern struct heif_library heif_library_functions;
#define HEIF(name) (heif_library_functions.name)

#endif
