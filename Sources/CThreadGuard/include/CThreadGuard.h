#ifndef CTHREADGUARD_H
#define CTHREADGUARD_H

// threadguard.c defines pthread_create in the executable (as CHeapPeak defines malloc), so every
// thread the process starts, libdispatch's workers included, goes through it to glibc's.
//
// Under a memory limit (RLIMIT_DATA counts thread stacks), a thread's stack may not fit, and
// pthread_create fails with EAGAIN. libdispatch then sleeps a second and tries again, forever:
// the work that would free memory waits for that very thread, and the process idles until it
// is killed from outside. Once armed, a failed pthread_create ends the process at once instead,
// with SIGABRT and `message` on stderr (so its row says why).

/// From now on a pthread_create that fails for lack of memory prints `message` (copied, up to
/// 511 bytes, and written without allocating) and aborts. Call it once, before other threads start
/// depending on it.
void threadguard_abort_on_failure(const char *message);

// Every thread started through it also has its stack recorded (pthread_getattr_np, in the new
// thread before its start routine runs) until it exits: what residency snapshots read.

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uintptr_t low;   // lowest address of the stack (its guard page excluded)
    uintptr_t high;  // one past its highest address
} threadguard_stack;

/// Copies the stacks of the threads alive now (the main thread's is not among them) into `out`,
/// up to `capacity`; returns how many there are. `untracked` receives the threads started while
/// the table was full. Never allocates.
size_t threadguard_stacks(threadguard_stack *out, size_t capacity, uint64_t *untracked);

/// The main thread's stack as the loader gives it (its whole possible extent: read it from the top
/// down to the first unmapped page), when called on the main thread: returns 1, else 0.
int threadguard_main_stack(threadguard_stack *out);

/// Touches `bytes` of the calling thread's stack below the caller's frame, one volatile store a
/// page, so that an optimizing compiler keeps every store (a known-answer child's stack pages).
void threadguard_touch_stack(size_t bytes);

#endif
