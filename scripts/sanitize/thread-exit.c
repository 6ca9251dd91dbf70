// The exact-heap wrappers (CHeapPeak) and the thread table (CThreadGuard) under jemalloc, as the
// measured child runs them, with threads coming and going as the image server's renders do: it must
// end without a crash (make sanitize runs it with LD_PRELOAD=libjemalloc.so.2).
//
// What it guards: a detached thread that never allocated exits while glibc's cache of dead thread
// stacks is over its 40 MiB limit, so it frees other cached stacks' TLS itself, after its TSD
// destructors (__nptl_free_stacks -> _dl_deallocate_tls -> free). The wrappers' free asks
// malloc_usable_size first, which in jemalloc 5.3 sets up a full per-thread state that no destructor
// cleans up; once that dead thread's stack is reused or unmapped, the next thread to leave jemalloc's
// list of threads beside it crashes. heappeak_thread_starts (called as every thread starts) sets the
// state up while its destructor is still to run.
//
// Usage: thread-exit [rounds] (default 20). Exit status: 0 no crash; a crash kills it (SIGSEGV).
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static _Atomic int running;

static void *allocating(void *unused) {
    (void)unused;
    free(malloc(100));
    atomic_fetch_sub(&running, 1);
    return NULL;
}

static void *idle(void *unused) {  // never allocates
    (void)unused;
    atomic_fetch_sub(&running, 1);
    return NULL;
}

static void start(void *(*body)(void *), size_t stack_bytes) {
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attributes, stack_bytes);
    atomic_fetch_add(&running, 1);
    pthread_t thread;
    if (pthread_create(&thread, &attributes, body, NULL) != 0) {
        perror("thread-exit: pthread_create");
        exit(2);
    }
    pthread_attr_destroy(&attributes);
}

/// Waits for the threads to end, then a little more for them to be gone.
static void drain(void) {
    while (atomic_load(&running) > 0) usleep(1000);
    usleep(20000);
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    free(malloc(1));
    for (int round = 0; round < rounds; round++) {
        // Fill glibc's stack cache: six stacks of 8 MiB, the cache trimmed to 40 MiB.
        for (int index = 0; index < 6; index++) start(allocating, 8 << 20);
        drain();
        // An idle thread with a stack of another size (not from the cache): at its exit the cache is
        // over its limit, and it frees the oldest cached stacks itself.
        start(idle, 12 << 20);
        drain();
        // Threads that allocate come and go (into and out of jemalloc's list of threads), and their
        // stacks push the idle thread's out of the cache.
        for (int index = 0; index < 8; index++) start(allocating, 16 << 20);
        drain();
    }
    printf("thread-exit: no crash after %d rounds\n", rounds);
    return 0;
}
