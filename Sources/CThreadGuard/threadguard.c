// See CThreadGuard.h: a pthread_create that, once armed, turns a thread that cannot start for
// lack of memory into an immediate abort rather than libdispatch's endless retry.
#pragma clang diagnostic error "-Wall"
#pragma clang diagnostic error "-Wextra"
#define _GNU_SOURCE
#include "CThreadGuard.h"
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef int (*create_function)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static _Atomic(create_function) next_create;
static char message_text[512];
static _Atomic(const char *) armed_message;

void threadguard_abort_on_failure(const char *message) {
    strncpy(message_text, message, sizeof(message_text) - 1);
    atomic_store(&armed_message, message_text);
}

static void write_all(const char *text) {
    size_t left = strlen(text);
    while (left > 0) {
        ssize_t written = write(STDERR_FILENO, text, left);
        if (written <= 0) return;
        text += written;
        left -= (size_t)written;
    }
}

// MARK: Stacks of the live threads, in a fixed table (no allocation: the heap is being measured)

enum { SLOT_FREE, SLOT_STARTING, SLOT_LIVE };
#define STACK_SLOTS 512
static struct stack_slot {
    _Atomic int state;
    void *(*start)(void *);
    void *argument;
    uintptr_t low, high;
} slots[STACK_SLOTS];
static _Atomic uint64_t untracked_threads;

/// Runs when a tracked thread ends, by returning or by pthread_exit: frees its slot.
static void release_slot(void *value) {
    struct stack_slot *slot = value;
    atomic_store(&slot->state, SLOT_FREE);
}

// CHeapPeak's, when it is linked into the same executable (bench): no dependency on it otherwise.
extern void heappeak_thread_starts(void) __attribute__((weak));

/// The new thread waits for its creator to record its stack (pthread_getattr_np allocates, and a
/// first allocation on a thread gives it a glibc arena of its own: the creator has one already),
/// so that it is alive while the creator reads it.

static void *tracked_start(void *value) {
    struct stack_slot *slot = value;
    while (atomic_load(&slot->state) == SLOT_STARTING) sched_yield();
    // The allocator's per-thread state is set up now, while the thread's TSD destructors are to run.
    if (heappeak_thread_starts != NULL) heappeak_thread_starts();
    void *(*start)(void *) = slot->start;
    void *argument = slot->argument;
    void *result;
    pthread_cleanup_push(release_slot, slot);
    result = start(argument);
    pthread_cleanup_pop(1);
    return result;
}

/// Records the stack of the thread just created, then lets it start.
static void record_stack(struct stack_slot *slot, pthread_t thread) {
    pthread_attr_t attributes;
    if (pthread_getattr_np(thread, &attributes) == 0) {
        void *address = NULL;
        size_t size = 0;
        if (pthread_attr_getstack(&attributes, &address, &size) == 0) {
            slot->low = (uintptr_t)address;
            slot->high = (uintptr_t)address + size;
        }
        pthread_attr_destroy(&attributes);
    }
    atomic_store(&slot->state, SLOT_LIVE);
}

/// A free slot, claimed, or -1 when the table is full.
static int claim_slot(void) {
    for (int index = 0; index < STACK_SLOTS; index++) {
        int expected = SLOT_FREE;
        if (atomic_compare_exchange_strong(&slots[index].state, &expected, SLOT_STARTING)) return index;
    }
    return -1;
}

size_t threadguard_stacks(threadguard_stack *out, size_t capacity, uint64_t *untracked) {
    size_t count = 0;
    for (int index = 0; index < STACK_SLOTS; index++) {
        if (atomic_load(&slots[index].state) != SLOT_LIVE) continue;
        if (count < capacity) out[count] = (threadguard_stack){slots[index].low, slots[index].high};
        count++;
    }
    if (untracked != NULL) *untracked = atomic_load(&untracked_threads);
    return count;
}

int threadguard_main_stack(threadguard_stack *out) {
    if ((pid_t)syscall(SYS_gettid) != getpid()) return 0;
    pthread_attr_t attributes;
    if (pthread_getattr_np(pthread_self(), &attributes) != 0) return 0;
    void *address = NULL;
    size_t size = 0;
    int found = pthread_attr_getstack(&attributes, &address, &size) == 0;
    pthread_attr_destroy(&attributes);
    if (!found) return 0;
    *out = (threadguard_stack){(uintptr_t)address, (uintptr_t)address + size};
    return 1;
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attributes, void *(*start)(void *), void *argument) {
    create_function create = atomic_load(&next_create);
    if (create == NULL) {
        create = (create_function)dlsym(RTLD_NEXT, "pthread_create");
        if (create == NULL) return EAGAIN;  // no libc to start threads with: say so, as glibc would
        atomic_store(&next_create, create);
    }
    int slot = claim_slot();
    int result;
    if (slot < 0) {
        atomic_fetch_add(&untracked_threads, 1);
        result = create(thread, attributes, start, argument);
    } else {
        slots[slot].start = start;
        slots[slot].argument = argument;
        slots[slot].low = slots[slot].high = 0;
        result = create(thread, attributes, tracked_start, &slots[slot]);
        if (result != 0)
            atomic_store(&slots[slot].state, SLOT_FREE);
        else
            record_stack(&slots[slot], *thread);
    }
    const char *message = atomic_load(&armed_message);
    if (result == EAGAIN && message != NULL) {
        write_all(message);
        write_all("\n");
        // The default action, not the backtracer's handler: it would need memory and threads too.
        signal(SIGABRT, SIG_DFL);
        abort();
    }
    return result;
}

void threadguard_touch_stack(size_t bytes) {
    if (bytes == 0) return;
    volatile unsigned char frame[bytes];
    for (size_t offset = 0; offset < bytes; offset += 4096) frame[offset] = 1;
}
