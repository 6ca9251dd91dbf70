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

#endif
