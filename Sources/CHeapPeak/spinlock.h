// The wrappers' locks: spin locks on an atomic bool, since a mutex may allocate or call into the
// allocator the wrappers stand in for. Each is held for microseconds and taken by no code that
// could need it again while holding it. A waiter reads the lock until it looks free before it
// tries again (no writes to the line while it is held), and gives its core away after a few
// hundred reads: with more threads allocating than cores, the holder may be waiting for that core.
#ifndef HEAPPEAK_SPINLOCK_H
#define HEAPPEAK_SPINLOCK_H

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>

typedef atomic_bool spin_lock_t;
#define SPIN_LOCK_INIT false

/// Reads of a held lock before the waiter yields its core (sched_yield: a system call, no allocation).
#define SPIN_READS_BEFORE_YIELD 128

static inline void spin_lock(spin_lock_t *lock) {
    while (atomic_exchange_explicit(lock, true, memory_order_acquire)) {
        int reads = 0;
        while (atomic_load_explicit(lock, memory_order_relaxed)) {
            if (++reads == SPIN_READS_BEFORE_YIELD) {
                reads = 0;
                sched_yield();
            }
        }
    }
}

static inline void spin_unlock(spin_lock_t *lock) { atomic_store_explicit(lock, false, memory_order_release); }

#endif
