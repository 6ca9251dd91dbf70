#define _GNU_SOURCE
#include "CHeapStats.h"
#include <dlfcn.h>
#include <malloc.h>
#include <stddef.h>
#include <jemalloc/jemalloc.h>  // for mallctl's prototype only; the symbol comes from dlsym

// jemalloc.h maps je_mallctl to mallctl: take the type from it, never the symbol.
typedef __typeof__(mallctl) mallctl_function;

static mallctl_function *probe_mallctl(void) {
    static mallctl_function *found = NULL;
    static int looked = 0;
    if (!looked) {
        found = (mallctl_function *)dlsym(RTLD_DEFAULT, "mallctl");
        looked = 1;
    }
    return found;
}

int heapstats_jemalloc_present(void) { return probe_mallctl() != NULL; }

static int read_size(mallctl_function *ctl, const char *name, uint64_t *out) {
    size_t value = 0, length = sizeof(value);
    if (ctl(name, &value, &length, NULL, 0) != 0) return -1;
    *out = (uint64_t)value;
    return 0;
}

int heapstats_read_jemalloc(heapstats_counters *out) {
    mallctl_function *ctl = probe_mallctl();
    if (ctl == NULL) return -1;
    // Stats are cached per epoch; bumping the epoch refreshes them.
    uint64_t epoch = 1;
    size_t length = sizeof(epoch);
    if (ctl("epoch", &epoch, &length, &epoch, length) != 0) return -1;
    if (read_size(ctl, "stats.allocated", &out->allocated) != 0) return -1;
    if (read_size(ctl, "stats.active", &out->active) != 0) return -1;
    if (read_size(ctl, "stats.resident", &out->resident) != 0) return -1;
    return 0;
}

int heapstats_read_glibc(heapstats_counters *out) {
    struct mallinfo2 info = mallinfo2();
    out->allocated = (uint64_t)info.uordblks + (uint64_t)info.hblkhd;
    out->active = (uint64_t)info.arena + (uint64_t)info.hblkhd;
    out->resident = 0;
    return 0;
}

int64_t heapstats_jemalloc_narenas(void) {
    mallctl_function *ctl = probe_mallctl();
    if (ctl == NULL) return -1;
    unsigned narenas = 0;
    size_t length = sizeof(narenas);
    if (ctl("opt.narenas", &narenas, &length, NULL, 0) != 0) return -1;
    return (int64_t)narenas;
}

// libHeapPeak's two functions, found the same way as mallctl: the library is preloaded
// into the child only, so nothing here may link against it.
typedef void heappeak_read_function(uint64_t *, uint64_t *);
typedef void heappeak_reset_function(void);

static heappeak_read_function *exact_read(void) {
    static heappeak_read_function *found = NULL;
    static int looked = 0;
    if (!looked) {
        found = (heappeak_read_function *)dlsym(RTLD_DEFAULT, "heappeak_read");
        looked = 1;
    }
    return found;
}

int heapstats_exact_present(void) { return exact_read() != NULL; }

int heapstats_exact_read(uint64_t *live, uint64_t *peak) {
    heappeak_read_function *read = exact_read();
    if (read == NULL) return -1;
    read(live, peak);
    return 0;
}

void heapstats_exact_reset(void) {
    heappeak_reset_function *reset = (heappeak_reset_function *)dlsym(RTLD_DEFAULT, "heappeak_reset");
    if (reset != NULL) reset();
}

uint64_t heapstats_exact_lifetime_peak(void) {
    typedef uint64_t lifetime_function(void);
    lifetime_function *lifetime = (lifetime_function *)dlsym(RTLD_DEFAULT, "heappeak_lifetime");
    return lifetime != NULL ? lifetime() : 0;
}
