// The wrappers' locks: spin locks on an atomic_flag, since a mutex may allocate or call into
// the allocator the wrappers stand in for. Each is held for microseconds and taken by no code
// that could need it again while holding it.
#ifndef HEAPPEAK_SPINLOCK_H
#define HEAPPEAK_SPINLOCK_H

#include <stdatomic.h>

static inline void spin_lock(atomic_flag *lock) {
    while (atomic_flag_test_and_set_explicit(lock, memory_order_acquire)) {}
}

static inline void spin_unlock(atomic_flag *lock) { atomic_flag_clear_explicit(lock, memory_order_release); }

#endif
