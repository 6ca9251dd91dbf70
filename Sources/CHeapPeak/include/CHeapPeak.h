#ifndef CHEAPPEAK_H
#define CHEAPPEAK_H
#include <stdint.h>

// libHeapPeak.so is preloaded into the measured child (LD_PRELOAD, before jemalloc when
// both are used). It wraps malloc and friends, adds and subtracts each block's usable size
// to a live-bytes counter, and keeps the counter's maximum: an exact heap high-water mark
// that no sampling interval can miss. The child finds these two functions with dlsym.

/// Live heap bytes now, and their maximum since the last reset.
void heappeak_read(uint64_t *live, uint64_t *peak);

/// The maximum of live heap bytes over the process's whole life, never reset.
uint64_t heappeak_lifetime(void);

/// Sets the maximum to the current live bytes (called when the measured window opens).
void heappeak_reset(void);

#endif
