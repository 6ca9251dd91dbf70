#ifndef CHEAPPEAK_H
#define CHEAPPEAK_H
#include <stdint.h>

// heappeak.c is linked into the executable (through the Probe module), so its malloc and
// friends are the process's own and wrap the allocator in use (glibc, or jemalloc preloaded).
// It adds and subtracts each block's usable size to a live-bytes counter and keeps the
// counter's maximum: an exact heap high-water mark that no sampling interval can miss.
// The functions below are plain calls: reading them never allocates and never calls dlsym.

/// Set to "off" in a process's environment, it turns the counting off for that process:
/// the wrappers pass straight through and heappeak_counting() returns 0.
#define HEAPPEAK_ENVIRONMENT_VARIABLE "BENCH_EXACT_HEAP"

/// 1 when the wrappers count (the default), 0 when BENCH_EXACT_HEAP=off turned them off.
int heappeak_counting(void);

/// Live heap bytes now, and their maximum since the last reset.
void heappeak_read(uint64_t *live, uint64_t *peak);

/// The maximum of live heap bytes over the process's whole life, never reset.
uint64_t heappeak_lifetime(void);

/// Sets the maximum to the current live bytes (called when the measured window opens).
void heappeak_reset(void);

#endif
