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

#endif
