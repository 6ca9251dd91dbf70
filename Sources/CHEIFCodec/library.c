// Loads libheif on first use: see library.h.
#pragma clang diagnostic error "-Wall"
#pragma clang diagnostic error "-Wextra"
#include "library.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

struct heif_library heif_library_functions;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;
static char load_error[256];

static void load(void) {
    // RTLD_LOCAL: libheif's symbols stay out of the global scope; the executable's malloc and
    // operator new wrappers (CHeapPeak) still come first for it and its codecs, as when linked.
    void *library = dlopen(HEIF_LIBRARY_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(load_error, sizeof load_error, "cannot load %s: %s", HEIF_LIBRARY_SONAME, dlerror());
        return;
    }
#define HEIF_RESOLVE(name)                                                                                             \
    if (!(heif_library_functions.name = (__typeof__(name) *)dlsym(library, #name))) {                                  \
        snprintf(load_error, sizeof load_error, "%s has no %s", HEIF_LIBRARY_SONAME, #name);                           \
        return;                                                                                                        \
    }
    HEIF_FUNCTIONS(HEIF_RESOLVE)
#undef HEIF_RESOLVE
    loaded = 1;
}

const struct heif_library *heif_library_load(char *message, size_t message_size) {
    pthread_once(&load_once, load);
    if (loaded) return &heif_library_functions;
    if (message && message_size > 0) snprintf(message, message_size, "%s", load_error);
    return NULL;
}
