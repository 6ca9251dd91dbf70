#ifndef CHEAPSTATS_H
#define CHEAPSTATS_H
#include <stdint.h>

/// Heap counters of the calling process, in bytes. Reading them never allocates.
typedef struct {
    uint64_t allocated;  // bytes handed out to the program and not yet freed
} heapstats_counters;

/// 1 when jemalloc is the process's allocator (its `mallctl` is visible through dlsym), else 0.
int heapstats_jemalloc_present(void);

/// jemalloc: refreshes the stats epoch then reads stats.allocated. Returns 0 on success.
int heapstats_read_jemalloc(heapstats_counters *out);

/// glibc: mallinfo2(); allocated = in-use arena bytes + mmapped chunks. Returns 0.
int heapstats_read_glibc(heapstats_counters *out);

/// Bytes the allocator holds beyond the live blocks, that may be resident. jemalloc: its dirty and
/// muzzy pages of all arenas, its metadata, the blocks its threads' caches hold and the free regions
/// of its slabs (its retained memory is not mapped in, and is left out). glibc: the free bytes of
/// its arenas (mallinfo2 fordblks: free chunks, and the main arena's top chunk), the top chunk
/// given apart as [top, top + top_bytes): a part of it was never touched, and the caller reads
/// which (mincore). Upper bounds: a freed page never touched counts too.
/// jemalloc also gives arena 0's metadata (its base), which its page map's leaves come from.
/// Return 0 on success.
int heapstats_read_kept_jemalloc(uint64_t *bytes, uint64_t *first_arena_base);
int heapstats_read_kept_glibc(uint64_t *bytes_below_top, uintptr_t *top, uint64_t *top_bytes);

/// jemalloc: returns every arena's dirty and muzzy pages to the kernel (arena.<all>.purge). Returns 0 on success.
int heapstats_purge_jemalloc(void);

#endif
