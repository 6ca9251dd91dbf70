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

/// glibc: the bytes its arenas hold beyond the live blocks, that may be resident: the free bytes
/// of its arenas (mallinfo2 fordblks: free chunks, and the main arena's top chunk), the top chunk
/// given apart as [top, top + top_bytes): a part of it was never touched, and the caller reads
/// which (mincore). An upper bound: a freed page never touched counts too. (jemalloc's are read
/// from its own mappings instead: heappeak_mapped_resident.) Returns 0.
int heapstats_read_kept_glibc(uint64_t *bytes_below_top, uintptr_t *top, uint64_t *top_bytes);

/// jemalloc: arena 0's metadata (its base), which its page map's leaves come from. Returns 0 on success.
int heapstats_read_first_arena_base_jemalloc(uint64_t *bytes);

/// jemalloc: returns every arena's dirty and muzzy pages to the kernel (arena.<all>.purge). Returns 0 on success.
int heapstats_purge_jemalloc(void);

#endif
