// An exact heap high-water mark, by interposing the allocation functions.
//
// Each wrapper calls the next definition in the search order (glibc, or jemalloc when it
// is preloaded after this library) and accounts the block's malloc_usable_size: what the
// allocator really handed out, including its rounding. Counting usable sizes means free()
// needs no table of sizes, so the cost is one atomic add (and a compare-and-swap while
// the peak is rising) per call.
#define _GNU_SOURCE
#include "CHeapPeak.h"
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

static _Atomic int64_t live_bytes;
static _Atomic int64_t peak_bytes;      // since the last reset: the measured window
static _Atomic int64_t lifetime_bytes;  // never reset: comparable with heaptrack and massif

static void *(*next_malloc)(size_t);
static void (*next_free)(void *);
static void *(*next_calloc)(size_t, size_t);
static void *(*next_realloc)(void *, size_t);
static int (*next_posix_memalign)(void **, size_t, size_t);
static void *(*next_aligned_alloc)(size_t, size_t);
static void *(*next_memalign)(size_t, size_t);
static size_t (*next_usable_size)(void *);

// dlsym itself may allocate; until the real functions are known, serve from a small static
// arena. Blocks from it are never freed (free() recognises and ignores them).
static char bootstrap_arena[64 * 1024];
static size_t bootstrap_used;
static int resolving;

static int from_bootstrap(const void *pointer) {
    return (const char *)pointer >= bootstrap_arena && (const char *)pointer < bootstrap_arena + sizeof(bootstrap_arena);
}

static void *bootstrap_alloc(size_t size) {
    size_t start = (bootstrap_used + 15) & ~(size_t)15;
    if (start + size > sizeof(bootstrap_arena)) return NULL;
    bootstrap_used = start + size;
    return bootstrap_arena + start;
}

static void resolve(void) {
    if (next_malloc || resolving) return;
    resolving = 1;
    next_free = dlsym(RTLD_NEXT, "free");
    next_calloc = dlsym(RTLD_NEXT, "calloc");
    next_realloc = dlsym(RTLD_NEXT, "realloc");
    next_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    next_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
    next_memalign = dlsym(RTLD_NEXT, "memalign");
    next_usable_size = dlsym(RTLD_NEXT, "malloc_usable_size");
    next_malloc = dlsym(RTLD_NEXT, "malloc");
    resolving = 0;
}

static void raise_to(_Atomic int64_t *maximum, int64_t value) {
    int64_t seen = atomic_load_explicit(maximum, memory_order_relaxed);
    while (value > seen && !atomic_compare_exchange_weak_explicit(maximum, &seen, value, memory_order_relaxed,
                                                                  memory_order_relaxed)) {}
}

static void account(void *pointer, int sign) {
    if (pointer == NULL || from_bootstrap(pointer)) return;
    int64_t size = (int64_t)next_usable_size(pointer);
    int64_t now = atomic_fetch_add_explicit(&live_bytes, sign * size, memory_order_relaxed) + sign * size;
    if (sign > 0) {
        raise_to(&peak_bytes, now);
        raise_to(&lifetime_bytes, now);
    }
}

void *malloc(size_t size) {
    resolve();
    if (!next_malloc) return bootstrap_alloc(size);
    void *pointer = next_malloc(size);
    account(pointer, +1);
    return pointer;
}

void free(void *pointer) {
    if (pointer == NULL || from_bootstrap(pointer)) return;
    resolve();
    account(pointer, -1);
    next_free(pointer);
}

void *calloc(size_t count, size_t size) {
    resolve();
    if (!next_calloc) {
        if (size && count > (size_t)-1 / size) return NULL;
        return bootstrap_alloc(count * size);  // static storage is already zeroed
    }
    void *pointer = next_calloc(count, size);
    account(pointer, +1);
    return pointer;
}

void *realloc(void *pointer, size_t size) {
    resolve();
    if (from_bootstrap(pointer)) {
        void *moved = malloc(size);
        size_t available = (size_t)(bootstrap_arena + sizeof(bootstrap_arena) - (char *)pointer);
        if (moved) memcpy(moved, pointer, size < available ? size : available);
        return moved;
    }
    int64_t before = pointer ? (int64_t)next_usable_size(pointer) : 0;
    void *moved = next_realloc(pointer, size);
    if (moved == NULL && size != 0) return NULL;  // the old block is untouched
    atomic_fetch_sub_explicit(&live_bytes, before, memory_order_relaxed);
    account(moved, +1);
    return moved;
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    resolve();
    int status = next_posix_memalign(out, alignment, size);
    if (status == 0) account(*out, +1);
    return status;
}

void *aligned_alloc(size_t alignment, size_t size) {
    resolve();
    void *pointer = next_aligned_alloc(alignment, size);
    account(pointer, +1);
    return pointer;
}

void *memalign(size_t alignment, size_t size) {
    resolve();
    void *pointer = next_memalign(alignment, size);
    account(pointer, +1);
    return pointer;
}

void *reallocarray(void *pointer, size_t count, size_t size) {
    if (size && count > (size_t)-1 / size) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(pointer, count * size);
}

void *valloc(size_t size) {
    return memalign(4096, size);
}

void *pvalloc(size_t size) {
    return memalign(4096, (size + 4095) & ~(size_t)4095);
}

void heappeak_read(uint64_t *live, uint64_t *peak) {
    int64_t now = atomic_load_explicit(&live_bytes, memory_order_relaxed);
    int64_t high = atomic_load_explicit(&peak_bytes, memory_order_relaxed);
    *live = now > 0 ? (uint64_t)now : 0;
    *peak = high > 0 ? (uint64_t)high : 0;
}

uint64_t heappeak_lifetime(void) {
    int64_t high = atomic_load_explicit(&lifetime_bytes, memory_order_relaxed);
    return high > 0 ? (uint64_t)high : 0;
}

void heappeak_reset(void) {
    atomic_store_explicit(&peak_bytes, atomic_load_explicit(&live_bytes, memory_order_relaxed), memory_order_relaxed);
}
