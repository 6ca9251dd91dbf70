#pragma clang diagnostic error "-Wall"
#pragma clang diagnostic error "-Wextra"
#define _GNU_SOURCE
#include "CHeapStats.h"
#include <dlfcn.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>
#include <unistd.h>
#include <jemalloc/jemalloc.h>  // for mallctl's prototype only; the symbol comes from dlsym

// jemalloc.h maps je_mallctl to mallctl: take the type from it, never the symbol.
typedef __typeof__(mallctl) mallctl_function;

// Looked up once (the first call, on the thread that builds HeapCounters, before the sampler
// starts), then read from an atomic: no dlsym per read.
static mallctl_function *probe_mallctl(void) {
    static _Atomic(mallctl_function *) found = NULL;
    static atomic_bool looked = false;
    if (!atomic_load_explicit(&looked, memory_order_acquire)) {
        atomic_store_explicit(&found, (mallctl_function *)dlsym(RTLD_DEFAULT, "mallctl"), memory_order_relaxed);
        atomic_store_explicit(&looked, true, memory_order_release);
    }
    return atomic_load_explicit(&found, memory_order_relaxed);
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
    return 0;
}

int heapstats_read_glibc(heapstats_counters *out) {
    struct mallinfo2 info = mallinfo2();
    out->allocated = (uint64_t)info.uordblks + (uint64_t)info.hblkhd;
    return 0;
}

int heapstats_read_first_arena_base_jemalloc(uint64_t *bytes) {
    mallctl_function *ctl = probe_mallctl();
    if (ctl == NULL) return -1;
    uint64_t epoch = 1;
    size_t length = sizeof(epoch);
    if (ctl("epoch", &epoch, &length, &epoch, length) != 0) return -1;
    return read_size(ctl, "stats.arenas.0.base", bytes);
}

int heapstats_read_kept_glibc(uint64_t *bytes_below_top, uintptr_t *top, uint64_t *top_bytes) {
    struct mallinfo2 info = mallinfo2();
    // keepcost is the main arena's top chunk, which ends at the program break.
    uintptr_t end = (uintptr_t)sbrk(0);
    uint64_t keep = info.keepcost <= info.fordblks ? (uint64_t)info.keepcost : 0;
    *bytes_below_top = (uint64_t)info.fordblks - keep;
    *top_bytes = end != (uintptr_t)-1 && keep <= end ? keep : 0;
    *top = end - *top_bytes;
    return 0;
}

int heapstats_purge_jemalloc(void) {
    mallctl_function *ctl = probe_mallctl();
    if (ctl == NULL) return -1;
    return ctl("arena.4096.purge", NULL, NULL, NULL, 0) == 0 ? 0 : -1;
}
