// An exact heap high-water mark, by interposing the allocation functions.
//
// This file is linked into the `bench` executable (a plain C target of the Probe module, never
// a preloaded library), so its malloc, free, calloc, realloc and friends are the process's:
// the executable comes first in the symbol search order, before any LD_PRELOAD library and
// libc. Each wrapper calls the next definition after the executable (RTLD_NEXT: jemalloc when
// it is preloaded, else glibc) and accounts the block's malloc_usable_size: what the allocator
// really handed out, including its rounding. Counting usable sizes means free() needs no table
// of sizes, so the cost is one atomic add (and a compare-and-swap while the peak is rising)
// per call.
//
// BENCH_EXACT_HEAP=off in the environment turns the counting off: the wrappers then pass
// straight through, and heappeak_counting() returns 0. Decided once, when the wrappers resolve
// the next definitions, with getenv (which does not allocate).
#pragma clang diagnostic error "-Wall"
#pragma clang diagnostic error "-Wextra"
#define _GNU_SOURCE
#include "CHeapPeak.h"
#include "spinlock.h"
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <time.h>
#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static _Atomic int64_t live_bytes;
static _Atomic int64_t peak_bytes;      // since the last reset: the measured window
static _Atomic int64_t lifetime_bytes;  // never reset: comparable with heaptrack and massif

static void *(*next_malloc)(size_t);
static void (*next_free)(void *);
static void *(*next_calloc)(size_t, size_t);
static void *(*next_realloc)(void *, size_t);
static int (*next_posix_memalign)(void **, size_t, size_t);
static void *(*next_aligned_alloc)(size_t, size_t);
static void *(*next_memalign)(size_t, size_t);
static size_t (*next_usable_size)(void *);

// Whether glibc's allocator is the one behind RTLD_NEXT (jemalloc's mallctl is not visible):
// only then may realloc read glibc's chunk header (see realloc).
static bool glibc_behind;
// glibc's chunk header: the size word before the block, whose bit 1 says the chunk was mmapped
// apart from the arenas, and bit 2 that it is in a thread arena (not the main one).
#define GLIBC_IS_MMAPPED 0x2
#define GLIBC_NON_MAIN_ARENA 0x4

static void note_arena_block(const void *pointer);

/// Whether glibc mapped the block apart from its arenas (false under any other allocator).
static bool mapped_apart(const void *pointer) {
    return glibc_behind && (((const size_t *)pointer)[-1] & GLIBC_IS_MMAPPED) != 0;
}

static _Atomic size_t page_size;

// The next definitions are resolved at the first call into any wrapper. `resolution` goes from
// UNRESOLVED to RESOLVING (one caller wins the compare-and-swap) to RESOLVED, stored with
// release after every pointer above is set, and loaded with acquire by every wrapper.
enum { UNRESOLVED, RESOLVING, RESOLVED };
static _Atomic int resolution = UNRESOLVED;
// Whether the wrappers count (decided with the resolution; counting until then).
static _Atomic bool counting = true;

// dlsym itself may allocate (an error message, dlerror's state). While the next definitions
// are being resolved, allocations are served from a small static arena, by an atomic bump.
// Each bootstrap block has a header that holds its size (for realloc and malloc_usable_size);
// blocks are never reused (free() recognises and ignores them), and static storage is zeroed
// (calloc needs nothing more).
#define BOOTSTRAP_ALIGNMENT 16
#define BOOTSTRAP_HEADER 16
static _Alignas(BOOTSTRAP_ALIGNMENT) char bootstrap_arena[64 * 1024];
static _Atomic size_t bootstrap_used;

static bool from_bootstrap(const void *pointer) {
    return (const char *)pointer >= bootstrap_arena
        && (const char *)pointer < bootstrap_arena + sizeof(bootstrap_arena);
}

static size_t bootstrap_size(const void *pointer) {
    return *(const size_t *)((const char *)pointer - BOOTSTRAP_HEADER);
}

static void *bootstrap_alloc(size_t alignment, size_t size) {
    if (alignment < BOOTSTRAP_ALIGNMENT) alignment = BOOTSTRAP_ALIGNMENT;
    if (alignment & (alignment - 1)) {
        errno = EINVAL;
        return NULL;
    }
    if (size > sizeof(bootstrap_arena)) {
        errno = ENOMEM;
        return NULL;
    }
    size_t used = atomic_load_explicit(&bootstrap_used, memory_order_relaxed);
    size_t start, end;
    do {
        start = (used + BOOTSTRAP_HEADER + alignment - 1) & ~(alignment - 1);
        end = start + size;
        if (end > sizeof(bootstrap_arena)) {
            errno = ENOMEM;
            return NULL;
        }
    } while (!atomic_compare_exchange_weak_explicit(&bootstrap_used, &used, end, memory_order_relaxed,
                                                    memory_order_relaxed));
    *(size_t *)(bootstrap_arena + start - BOOTSTRAP_HEADER) = size;
    return bootstrap_arena + start;
}

static size_t system_page_size(void) {
    size_t size = atomic_load_explicit(&page_size, memory_order_relaxed);
    if (size == 0) {
        size = (size_t)sysconf(_SC_PAGESIZE);  // from the auxiliary vector: no allocation
        atomic_store_explicit(&page_size, size, memory_order_relaxed);
    }
    return size;
}

/// True once the next definitions are known. False while they are being resolved, by this
/// thread (dlsym allocating) or, at start-up only, by another: the caller then uses the arena.
static bool resolved(void) {
    int state = atomic_load_explicit(&resolution, memory_order_acquire);
    if (state == RESOLVED) return true;
    if (state == RESOLVING) return false;
    int expected = UNRESOLVED;
    if (!atomic_compare_exchange_strong_explicit(&resolution, &expected, RESOLVING, memory_order_acq_rel,
                                                 memory_order_acquire)) {
        return expected == RESOLVED;
    }
    next_free = dlsym(RTLD_NEXT, "free");
    next_calloc = dlsym(RTLD_NEXT, "calloc");
    next_realloc = dlsym(RTLD_NEXT, "realloc");
    next_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    next_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
    next_memalign = dlsym(RTLD_NEXT, "memalign");
    next_usable_size = dlsym(RTLD_NEXT, "malloc_usable_size");
    next_malloc = dlsym(RTLD_NEXT, "malloc");
    // Without the five below nothing can be served: say which is missing and stop, rather than
    // call through a null pointer. The aligned three are served by posix_memalign when absent.
    const char *missing = next_malloc == NULL ? "malloc"
        : next_free == NULL                   ? "free"
        : next_calloc == NULL                 ? "calloc"
        : next_realloc == NULL                ? "realloc"
        : next_usable_size == NULL            ? "malloc_usable_size"
        : next_posix_memalign == NULL         ? "posix_memalign"
                                              : NULL;
    if (missing != NULL) {
        static const char prefix[] = "bench: heappeak: no next definition of ";
        static const char suffix[] = " after this executable (dlsym RTLD_NEXT)\n";
        (void)!write(STDERR_FILENO, prefix, sizeof(prefix) - 1);
        (void)!write(STDERR_FILENO, missing, strlen(missing));
        (void)!write(STDERR_FILENO, suffix, sizeof(suffix) - 1);
        _exit(70);
    }
    // Which library the next malloc is in. Not `dlsym(RTLD_NEXT, "mallctl") == NULL`: a failed
    // lookup raises a loader error (its message goes through gettext, under glibc's locale lock,
    // from inside this first malloc), and a child then hung in exit on that lock. dladdr only reads.
    Dl_info where;
    glibc_behind = dladdr((void *)next_malloc, &where) != 0 && where.dli_fname != NULL
        && strstr(where.dli_fname, "/libc.so") != NULL;
    system_page_size();
    const char *exact = getenv(HEAPPEAK_ENVIRONMENT_VARIABLE);
    atomic_store_explicit(&counting, !(exact != NULL && strcmp(exact, "off") == 0), memory_order_relaxed);
    atomic_store_explicit(&resolution, RESOLVED, memory_order_release);
    return true;
}

static bool is_counting(void) { return atomic_load_explicit(&counting, memory_order_relaxed); }

/// Raises `maximum` to `value`; true when this call raised it.
static bool raise_to(_Atomic int64_t *maximum, int64_t value) {
    int64_t seen = atomic_load_explicit(maximum, memory_order_relaxed);
    while (value > seen) {
        if (atomic_compare_exchange_weak_explicit(maximum, &seen, value, memory_order_relaxed, memory_order_relaxed)) {
            return true;
        }
    }
    return false;
}

// MARK: Recorded blocks (who holds the peak)

static _Atomic int64_t holder_threshold;  // 0: not recording
static _Atomic int64_t event_count;       // large-block events so far; written under holder_lock
static _Atomic int64_t peak_event;        // event_count when peak_bytes was last raised
static spin_lock_t holder_lock = SPIN_LOCK_INIT;
#define HOLDER_DEFAULT_CAPACITY 4096
static struct recorded_block {
    void *pointer;
    heappeak_block block;
    uint64_t measured_resident;  // at the last snapshot measured to keep (see heappeak_residency_keep)
    bool apart;                  // mapped apart from glibc's arenas (mapped_apart)
} * recorded;                    // mapped by heappeak_holders_start, every page written before the window
// The table's size in use: the capacity heappeak_holders_start was given, or less when
// BENCH_HOLDER_TABLE_SIZE says so (to see an overflow handled without allocating thousands of
// large blocks).
static size_t recorded_capacity;
static size_t recorded_count;       // under holder_lock
static uint64_t dropped_count;      // under holder_lock
static __thread bool taking_stack;  // backtrace may allocate: those blocks are not recorded

static __thread bool holds_holders;  // this thread holds holder_lock

/// Takes holder_lock. A thread that already holds it (a recorded block coming or going inside a
/// residency snapshot) would spin on it forever: it stops the process with a message instead.
static void lock_holders(void) {
    if (holds_holders) {
        static const char message[] =
            "heappeak: a recorded block came or went while its thread held the blocks' lock (an allocation "
            "inside a residency snapshot)\n";
        ssize_t written = write(STDERR_FILENO, message, sizeof message - 1);
        (void)written;
        abort();
    }
    spin_lock(&holder_lock);
    holds_holders = true;
}

static void unlock_holders(void) {
    holds_holders = false;
    spin_unlock(&holder_lock);
}

static uint64_t monotonic_nanos(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);  // the vDSO: no system call, no allocation
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static bool records(int64_t bytes) {
    int64_t threshold = atomic_load_explicit(&holder_threshold, memory_order_relaxed);
    return threshold > 0 && bytes >= threshold && !taking_stack;
}

static _Atomic bool peak_frozen;  // after the window: the peak and its event stay as they are

/// Adds `delta` to the live bytes; when they grow, raises both maxima to the new total, and notes
/// the event count with the peak (the recorded blocks live then are the peak's holders).
static void book(int64_t delta) {
    int64_t now = atomic_fetch_add_explicit(&live_bytes, delta, memory_order_relaxed) + delta;
    if (delta > 0) {
        if (!atomic_load_explicit(&peak_frozen, memory_order_relaxed) && raise_to(&peak_bytes, now)) {
            raise_to(&peak_event, atomic_load_explicit(&event_count, memory_order_acquire));
        }
        raise_to(&lifetime_bytes, now);
    }
}

/// The next event, under holder_lock.
static uint64_t next_event(void) {
    int64_t event = atomic_load_explicit(&event_count, memory_order_relaxed) + 1;
    atomic_store_explicit(&event_count, event, memory_order_release);
    return (uint64_t)event;
}

/// Room for one more record, under holder_lock: drops the records of freed blocks that were not
/// live at the peak so far (freed before it, or allocated after it). The peak only moves later, past
/// every event so far, so they can never be live at it: the table holds the blocks live now and those
/// live at the peak, however long the run.
static bool make_room(void) {
    if (recorded_count < recorded_capacity) return true;
    uint64_t peak = (uint64_t)atomic_load_explicit(&peak_event, memory_order_acquire);
    size_t kept = 0;
    for (size_t index = 0; index < recorded_count; index++) {
        const heappeak_block *block = &recorded[index].block;
        bool freed = block->freed_event != 0;
        if (freed && (block->freed_event <= peak || block->allocated_event > peak)) continue;
        if (kept != index) recorded[kept] = recorded[index];
        kept++;
    }
    recorded_count = kept;
    return recorded_count < recorded_capacity;
}

static _Atomic uint64_t recording_events;  // blocks recorded or released, and the time it took
static _Atomic uint64_t recording_nanos;

/// One more block recorded or released, which took since `started`.
static void count_recording(uint64_t started) {
    atomic_fetch_add_explicit(&recording_events, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&recording_nanos, monotonic_nanos() - started, memory_order_relaxed);
}

/// A recorded block's stack, taken before the holders' lock (backtrace may allocate: those blocks
/// are not recorded).
static int take_stack(void **stack) {
    taking_stack = true;
    int depth = backtrace(stack, HEAPPEAK_STACK_DEPTH);
    taking_stack = false;
    return depth > 0 ? depth : 0;
}

/// Under holder_lock: records a new block, then books it: the event comes first, so a peak this
/// block raises counts it as live.
static void add_recorded(void *pointer, int64_t bytes, void *const *stack, int depth) {
    if (make_room()) {
        struct recorded_block *entry = &recorded[recorded_count++];
        entry->pointer = pointer;
        entry->block.bytes = (uint64_t)bytes;
        entry->block.allocated_event = next_event();
        entry->block.freed_event = 0;
        entry->block.allocated_nanos = monotonic_nanos();
        entry->block.freed_nanos = 0;
        entry->block.resident_bytes = 0;
        entry->measured_resident = 0;
        entry->apart = mapped_apart(pointer);
        entry->block.depth = (uint32_t)depth;
        memcpy(entry->block.stack, stack, sizeof(void *) * entry->block.depth);
    } else {
        dropped_count++;
    }
    book(bytes);
}

/// Under holder_lock: books a block's release, then marks its record freed: a peak raised in
/// between cannot count it, since the live bytes no longer do. Returns its freed event (0: it
/// was not recorded).
static uint64_t release_recorded(void *pointer, int64_t bytes) {
    book(-bytes);
    for (size_t index = recorded_count; index > 0; index--) {
        struct recorded_block *entry = &recorded[index - 1];
        if (entry->pointer == pointer && entry->block.freed_event == 0) {
            entry->block.freed_nanos = monotonic_nanos();
            return entry->block.freed_event = next_event();
        }
    }
    return 0;
}

static void record_allocation(void *pointer, int64_t bytes) {
    uint64_t started = monotonic_nanos();
    void *stack[HEAPPEAK_STACK_DEPTH];
    int depth = take_stack(stack);
    lock_holders();
    add_recorded(pointer, bytes, stack, depth);
    unlock_holders();
    count_recording(started);
}

static uint64_t record_release(void *pointer, int64_t bytes) {
    uint64_t started = monotonic_nanos();
    lock_holders();
    uint64_t freed = release_recorded(pointer, bytes);
    unlock_holders();
    count_recording(started);
    return freed;
}

/// A block that realloc moved or resized (`before` bytes at `old`, NULL for none; `after` bytes at
/// `moved`), counted under one lock, so that a residency snapshot finds the old block or the new
/// one, never neither. `copied`: both were live while the allocator copied (the new one is booked
/// first, so the peaks count both); else the old one was gone first (in place, or remapped).
static void count_move(void *old, int64_t before, void *moved, int64_t after, bool copied) {
    uint64_t started = monotonic_nanos();
    void *stack[HEAPPEAK_STACK_DEPTH];
    bool record_new = records(after);
    int depth = record_new ? take_stack(stack) : 0;
    bool record_old = old != NULL && records(before);
    lock_holders();
    if (!copied && old != NULL) record_old ? (void)release_recorded(old, before) : book(-before);
    record_new ? add_recorded(moved, after, stack, depth) : book(after);
    if (copied && old != NULL) record_old ? (void)release_recorded(old, before) : book(-before);
    unlock_holders();
    if (record_new || record_old) count_recording(started);
}

/// Counts a block coming (+1) or going (-1): recorded with its stack when it is large enough.
/// Returns a recorded block's freed event (0: coming, or not recorded).
static uint64_t count_block(void *pointer, int64_t bytes, int sign) {
    if (!records(bytes)) {
        book(sign * bytes);
    } else if (sign > 0) {
        record_allocation(pointer, bytes);
    } else {
        return record_release(pointer, bytes);
    }
    return 0;
}

static void account(void *pointer, int sign) {
    if (pointer == NULL || from_bootstrap(pointer) || !is_counting()) return;
    if (sign > 0) note_arena_block(pointer);
    count_block(pointer, (int64_t)next_usable_size(pointer), sign);
}

void *malloc(size_t size) {
    if (!resolved()) return bootstrap_alloc(0, size);
    void *pointer = next_malloc(size);
    account(pointer, +1);
    return pointer;
}

// Called while a large block is freed (see heappeak_set_release_hook), never re-entered.
static _Atomic(void (*)(void *)) release_hook;
static void *_Atomic release_hook_context;
static _Atomic uint64_t release_hook_bytes;
// Bytes freed in blocks under release_hook_bytes since the hook was last called (on any thread):
// the hook is also called when they reach release_hook_freed_bytes (0: never), so that a decoder
// letting go of many small buffers at once is seen before the allocator hands their pages back.
static _Atomic uint64_t release_hook_freed_bytes;
static _Atomic uint64_t freed_since_hook;
// Reallocs of blocks the hook watches: how many began, and how many are running now.
static _Atomic uint64_t moves_begun;
static _Atomic uint64_t moves_running;
static __thread bool in_release_hook;
// The blocks being freed while the hook runs, on any thread: already out of the live bytes and the
// holders, still resident. Under holder_lock, so that a snapshot on any thread (the sampler's too)
// counts each either as live or as being released (measure_blocks).
#define RELEASING_CAPACITY 16
static struct releasing_block {
    void *pointer;  // NULL: a free slot
    uint64_t bytes;
    uint64_t event;  // its recorded entry's freed event; 0: not recorded
    bool apart;      // mapped apart from glibc's arenas
} releasing[RELEASING_CAPACITY];
static __thread uint64_t releasing_bytes;  // this thread's block, for heappeak_releasing_bytes

/// The hook to call for this block, or NULL: none set, inside the hook, not counting, or too small.
static void (*release_hook_for(void *pointer))(void *) {
    void (*hook)(void *) = atomic_load_explicit(&release_hook, memory_order_acquire);
    if (hook == NULL || in_release_hook || !is_counting()) return NULL;
    uint64_t bytes = next_usable_size(pointer);
    if (bytes < atomic_load_explicit(&release_hook_bytes, memory_order_relaxed)) {
        uint64_t every = atomic_load_explicit(&release_hook_freed_bytes, memory_order_relaxed);
        if (every == 0) return NULL;
        uint64_t freed = atomic_fetch_add_explicit(&freed_since_hook, bytes, memory_order_relaxed) + bytes;
        if (freed < every) return NULL;
    }
    atomic_store_explicit(&freed_since_hook, 0, memory_order_relaxed);
    return hook;
}

/// free() of a block the hook watches. The program lets go of the block now: it leaves the live
/// bytes and the holders before the hook looks at RSS, so that the hook's time (a snapshot takes
/// milliseconds) cannot raise a heap peak while another thread allocates; the memory itself goes
/// back to the allocator after the hook, so the hook (or a snapshot on another thread meanwhile)
/// still finds it resident.
static void release_watched(void *pointer, void (*hook)(void *)) {
    int64_t bytes = (int64_t)next_usable_size(pointer);
    bool recorded_block = records(bytes);
    bool apart = mapped_apart(pointer);
    uint64_t started = monotonic_nanos();
    struct releasing_block *slot = NULL;
    lock_holders();
    uint64_t event = recorded_block ? release_recorded(pointer, bytes) : (book(-bytes), 0);
    for (size_t index = 0; index < RELEASING_CAPACITY && slot == NULL; index++) {
        if (releasing[index].pointer == NULL) slot = &releasing[index];
    }
    // With every slot taken (16 threads inside the hook at once) the block is not counted as
    // being released: a snapshot meanwhile finds it in neither place.
    if (slot != NULL) *slot = (struct releasing_block){pointer, (uint64_t)bytes, event, apart};
    unlock_holders();
    if (recorded_block) count_recording(started);
    releasing_bytes = (uint64_t)bytes;
    in_release_hook = true;
    hook(atomic_load_explicit(&release_hook_context, memory_order_acquire));
    in_release_hook = false;
    releasing_bytes = 0;
    if (slot != NULL) {
        lock_holders();
        slot->pointer = NULL;
        unlock_holders();
    }
}

uint64_t heappeak_releasing_bytes(void) { return releasing_bytes; }

void heappeak_moves(uint64_t *begun, uint64_t *running) {
    *running = atomic_load_explicit(&moves_running, memory_order_acquire);
    *begun = atomic_load_explicit(&moves_begun, memory_order_acquire);
}

void heappeak_set_release_hook(void (*hook)(void *), void *context, uint64_t minimum_bytes, uint64_t freed_bytes) {
    atomic_store(&release_hook, NULL);
    atomic_store(&release_hook_bytes, minimum_bytes);
    atomic_store(&release_hook_freed_bytes, freed_bytes);
    atomic_store(&freed_since_hook, 0);
    // Clearing keeps the last context: a freeing thread that loaded the hook just before it was
    // cleared still calls it, and must not get NULL (contexts live as long as the process).
    if (context != NULL) atomic_store(&release_hook_context, context);
    atomic_store(&release_hook, hook);
}

void free(void *pointer) {
    if (pointer == NULL || from_bootstrap(pointer)) return;
    // A block that is not the arena's came from a next definition: they are resolved.
    void (*hook)(void *) = release_hook_for(pointer);
    if (hook != NULL) {
        release_watched(pointer, hook);
    } else {
        account(pointer, -1);
    }
    next_free(pointer);
}

void *calloc(size_t count, size_t size) {
    if (size && count > (size_t)-1 / size) {
        errno = ENOMEM;
        return NULL;
    }
    if (!resolved()) return bootstrap_alloc(0, count * size);
    void *pointer = next_calloc(count, size);
    account(pointer, +1);
    return pointer;
}

size_t malloc_usable_size(void *pointer) {
    if (pointer == NULL) return 0;
    if (from_bootstrap(pointer)) return bootstrap_size(pointer);
    return next_usable_size(pointer);
}

/// realloc. When the block moves, the allocator has both the old and the new block live while
/// it copies: the peaks are raised to the live bytes with the new block added before the old
/// one is taken away, then the change is booked. The exception is glibc moving a chunk it
/// mmapped: it remaps the pages (mremap), no copy, the two blocks are never live together. That
/// case is told by the old chunk's IS_MMAPPED bit, read before the call, and only when glibc
/// is the allocator behind this one (jemalloc has no such header, and always copies a move).
/// glibc copies an mmapped chunk only when mremap fails; that rare copy is not counted.
/// (Under a tool that replaces glibc's allocator, valgrind, there is no such header either:
/// run bench there with BENCH_EXACT_HEAP=off, as scripts/validate.py does, and nothing reads it.)
void *realloc(void *pointer, size_t size) {
    if (from_bootstrap(pointer)) {
        void *moved = malloc(size);
        size_t old = bootstrap_size(pointer);
        if (moved) memcpy(moved, pointer, size < old ? size : old);
        return moved;
    }
    if (!resolved()) return bootstrap_alloc(0, size);  // pointer is NULL here: nothing else exists yet
    if (!is_counting()) return next_realloc(pointer, size);
    int64_t before = 0;
    bool remapped = false;
    if (pointer != NULL) {
        before = (int64_t)next_usable_size(pointer);
        remapped = mapped_apart(pointer);
    }
    // While the allocator moves a large block, its pages are where no count says (the copy being
    // filled, or remapped elsewhere): residency snapshots meanwhile are retaken (heappeak_moves).
    uint64_t watched_bytes = atomic_load_explicit(&release_hook_bytes, memory_order_relaxed);
    bool watched = atomic_load_explicit(&release_hook, memory_order_relaxed) != NULL
        && ((uint64_t)before >= watched_bytes || size >= watched_bytes);
    if (watched) {
        atomic_fetch_add_explicit(&moves_begun, 1, memory_order_acq_rel);
        atomic_fetch_add_explicit(&moves_running, 1, memory_order_acq_rel);
    }
    void *moved = next_realloc(pointer, size);
    if (moved == NULL) {
        if (size == 0 && pointer != NULL) count_block(pointer, before, -1);  // realloc(p, 0) freed p
    } else {
        note_arena_block(moved);
        int64_t after = (int64_t)next_usable_size(moved);
        if (pointer != NULL && moved != pointer && !remapped) {
            count_move(pointer, before, moved, after, true);  // the copy: old and new block both live
        } else if (records(before) || records(after)) {
            // In place (or remapped): the old block is gone by the time the new one is counted.
            count_move(pointer, before, moved, after, false);
        } else {
            book(after - before);
        }
    }
    if (watched) atomic_fetch_sub_explicit(&moves_running, 1, memory_order_acq_rel);
    return moved;  // NULL: failed, the old block untouched (or realloc(p, 0) freed it)
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    if (!resolved()) {
        if (alignment < sizeof(void *) || alignment & (alignment - 1)) return EINVAL;
        void *pointer = bootstrap_alloc(alignment, size);
        if (pointer == NULL) return ENOMEM;
        *out = pointer;
        return 0;
    }
    int status = next_posix_memalign(out, alignment, size);
    if (status == 0) account(*out, +1);
    return status;
}

/// aligned_alloc or memalign through posix_memalign, for an allocator that lacks them.
static void *aligned_by_posix_memalign(size_t alignment, size_t size) {
    if (alignment < sizeof(void *)) alignment = sizeof(void *);
    void *pointer = NULL;
    int status = next_posix_memalign(&pointer, alignment, size);
    if (status != 0) {
        errno = status;
        return NULL;
    }
    return pointer;
}

void *aligned_alloc(size_t alignment, size_t size) {
    if (!resolved()) return bootstrap_alloc(alignment, size);
    void *pointer =
        next_aligned_alloc ? next_aligned_alloc(alignment, size) : aligned_by_posix_memalign(alignment, size);
    account(pointer, +1);
    return pointer;
}

void *memalign(size_t alignment, size_t size) {
    if (!resolved()) return bootstrap_alloc(alignment, size);
    void *pointer = next_memalign ? next_memalign(alignment, size) : aligned_by_posix_memalign(alignment, size);
    account(pointer, +1);
    return pointer;
}

void *reallocarray(void *pointer, size_t count, size_t size) {
    if (size && count > (size_t)-1 / size) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(pointer, count * size);
}

void *valloc(size_t size) { return memalign(system_page_size(), size); }

void *pvalloc(size_t size) {
    size_t page = system_page_size();
    if (size > (size_t)-1 - page) {
        errno = ENOMEM;
        return NULL;
    }
    return memalign(page, size == 0 ? page : (size + page - 1) & ~(page - 1));
}

void heappeak_thread_starts(void) {
    // jemalloc 5.3's free() alone would set up a minimal tsd, which needs no cleanup; its
    // malloc_usable_size, which the wrappers' free calls first, sets up a full one (a tcache, and a
    // place in its list of threads), whose cleanup is a TSD destructor: one that has already run when
    // a thread exiting frees the DTVs of cached stacks over glibc's cache limit. The thread's stack
    // is then reused or unmapped while jemalloc's lists still link through it: the next thread to
    // leave those lists beside it crashes in jemalloc. An allocation here, as the thread starts,
    // sets the full tsd up while its destructor is still to run. Not under glibc: a first
    // allocation there gives the thread an arena, which a thread that never allocates would not have.
    if (!resolved() || glibc_behind || !is_counting()) return;
    next_free(next_malloc(1));
}

int heappeak_counting(void) {
    resolved();
    return is_counting() ? 1 : 0;
}

void heappeak_read(uint64_t *live, uint64_t *peak) {
    int64_t now = atomic_load_explicit(&live_bytes, memory_order_relaxed);
    int64_t high = atomic_load_explicit(&peak_bytes, memory_order_relaxed);
    *live = now > 0 ? (uint64_t)now : 0;
    *peak = high > 0 ? (uint64_t)high : 0;
}

uint64_t heappeak_lifetime(void) {
    int64_t high = atomic_load_explicit(&lifetime_bytes, memory_order_relaxed);
    return high > 0 ? (uint64_t)high : 0;
}

// The unwinder reads each library's .eh_frame_hdr and .eh_frame to walk a stack. Pages of them it
// first reads inside the measured window would be counted in the window's RSS (a fetch through
// FoundationNetworking touched about 0.6 MB of them): they are read once here, before the baseline.
static volatile unsigned char touched_sink;

static void touch_pages(const unsigned char *start, const unsigned char *end) {
    uintptr_t page = system_page_size();
    for (uintptr_t address = (uintptr_t)start & ~(page - 1); address < (uintptr_t)end; address += page) {
        touched_sink += *(const volatile unsigned char *)address;
    }
}

/// The end of the loaded segment of `info` that holds `address` (NULL if none does).
static const unsigned char *segment_end(const struct dl_phdr_info *info, const unsigned char *address) {
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        const unsigned char *start = (const unsigned char *)(info->dlpi_addr + header->p_vaddr);
        if (header->p_type == PT_LOAD && address >= start && address < start + header->p_memsz)
            return start + header->p_memsz;
    }
    return NULL;
}

static int touch_unwind_tables(struct dl_phdr_info *info, size_t size, void *unused) {
    (void)size;
    (void)unused;
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_GNU_EH_FRAME || header->p_memsz < 8) continue;
        const unsigned char *table = (const unsigned char *)(info->dlpi_addr + header->p_vaddr);
        touch_pages(table, table + header->p_memsz);
        // .eh_frame_hdr: version 1, then the encoding of the pointer to .eh_frame (pc-relative or
        // absolute, 4 or 8 bytes: what linkers write); anything else is left alone.
        unsigned char encoding = table[1];
        const unsigned char *field = table + 4;
        int64_t value;
        switch (encoding & 0x0f) {
        case 0x0b: {
            int32_t v;
            memcpy(&v, field, 4);
            value = v;
            break;
        }
        case 0x03: {
            uint32_t v;
            memcpy(&v, field, 4);
            value = v;
            break;
        }
        case 0x00:
        case 0x04:
        case 0x0c: {
            int64_t v;
            memcpy(&v, field, 8);
            value = v;
            break;
        }
        default: continue;
        }
        const unsigned char *frames;
        if ((encoding & 0x70) == 0x10)
            frames = field + value;
        else if ((encoding & 0x70) == 0x00)
            frames = (const unsigned char *)(uintptr_t)value;
        else
            continue;
        const unsigned char *end = segment_end(info, frames);
        if (end == NULL) continue;
        // Entry by entry, never past the segment: a zero length ends .eh_frame (lld may omit it).
        for (const unsigned char *entry = frames; entry + 4 <= end;) {
            uint32_t length;
            memcpy(&length, entry, 4);
            if (length == 0) break;
            uint64_t total = 4 + (uint64_t)length;
            if (length == 0xffffffffu) {
                if (entry + 12 > end) break;
                uint64_t extended;
                memcpy(&extended, entry + 4, 8);
                total = 12 + extended;
            }
            if (total > (uint64_t)(end - entry)) break;
            touch_pages(entry, entry + total);
            entry += total;
        }
    }
    return 0;
}

static size_t mapped_capacity;  // records the table has room for: it is mapped once

/// Maps the table once, every page written, so that filling it later moves no resident memory.
static void map_table(size_t capacity) {
    if (recorded != NULL) return;
    size_t bytes = capacity * sizeof *recorded;
    void *table = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (table == MAP_FAILED) return;  // nothing recorded: every block counts as dropped
    memset(table, 0, bytes);
    recorded = table;
    mapped_capacity = capacity;
}

void heappeak_holders_start(uint64_t threshold_bytes, size_t capacity) {
    if (threshold_bytes > 0) {
        dl_iterate_phdr(touch_unwind_tables, NULL);
        size_t wanted = capacity > 0 ? capacity : HOLDER_DEFAULT_CAPACITY;
        lock_holders();
        map_table(wanted > HOLDER_DEFAULT_CAPACITY ? wanted : HOLDER_DEFAULT_CAPACITY);
        recorded_capacity = wanted < mapped_capacity ? wanted : mapped_capacity;
        unlock_holders();
    }
    // Only a whole number from 0 to the table's size is taken; anything else leaves the whole table.
    const char *size = getenv("BENCH_HOLDER_TABLE_SIZE");
    if (size != NULL && *size != '\0') {
        char *end = NULL;
        errno = 0;
        long value = strtol(size, &end, 10);
        if (errno == 0 && *end == '\0' && value >= 0 && (size_t)value < recorded_capacity)
            recorded_capacity = (size_t)value;
    }
    void *stack[HEAPPEAK_STACK_DEPTH];
    taking_stack = true;
    backtrace(stack, HEAPPEAK_STACK_DEPTH);
    taking_stack = false;
    atomic_store(&holder_threshold, (int64_t)threshold_bytes);
}

void heappeak_holders_cost(uint64_t *events, uint64_t *nanos) {
    *events = atomic_load_explicit(&recording_events, memory_order_relaxed);
    *nanos = atomic_load_explicit(&recording_nanos, memory_order_relaxed);
}

size_t heappeak_holders_at_peak(heappeak_block *out, size_t capacity, uint64_t *dropped) {
    lock_holders();
    uint64_t peak = (uint64_t)atomic_load(&peak_event);
    size_t count = 0;
    for (size_t index = 0; index < recorded_count; index++) {
        const heappeak_block *block = &recorded[index].block;
        bool live = block->allocated_event <= peak && (block->freed_event == 0 || block->freed_event > peak);
        if (!live) continue;
        if (count < capacity) out[count] = *block;
        count++;
    }
    if (dropped != NULL) *dropped = dropped_count;
    unlock_holders();
    return count;
}

int heappeak_locate(uintptr_t address, const char **file, uintptr_t *base, const char **symbol) {
    Dl_info info;
    if (dladdr((const void *)address, &info) == 0) return 0;
    *file = info.dli_fname;
    *base = (uintptr_t)info.dli_fbase;
    *symbol = info.dli_sname;
    return 1;
}

// MARK: Residency

#define RESIDENCY_VECTOR 4096  // pages per mincore call: 16 MiB of 4 KiB pages, 4 KiB of stack

/// Resident bytes of the whole pages [first, first + pages * page), or -1 when some are unmapped.
static int64_t resident_pages(uintptr_t first, size_t pages, uintptr_t start, uintptr_t end) {
    size_t page = system_page_size();
    unsigned char vector[RESIDENCY_VECTOR];
    if (mincore((void *)first, pages * page, vector) != 0) return -1;
    // Counted whole in a loop without branches (a snapshot reads hundreds of MB of pages); only the
    // first and the last page can hold less of [start, end).
    size_t count = 0;
    for (size_t index = 0; index < pages; index++) count += vector[index] & 1;
    int64_t total = (int64_t)(count * page);
    uintptr_t after_last = first + pages * page;
    if ((vector[0] & 1) && start > first) total -= (int64_t)(start - first);
    if ((vector[pages - 1] & 1) && end < after_last) total -= (int64_t)(after_last - end);
    return total;
}

uint64_t heappeak_resident_range(uintptr_t start, uint64_t length) {
    if (length == 0) return 0;
    uintptr_t page = system_page_size();
    uintptr_t end = start + length;
    uintptr_t low = start & ~(page - 1);
    uintptr_t high = (end + page - 1) & ~(page - 1);
    uint64_t total = 0;
    // From the top down, so that a stack's unmapped bottom ends the scan.
    while (high > low) {
        size_t pages = (high - low) / page < RESIDENCY_VECTOR ? (high - low) / page : RESIDENCY_VECTOR;
        uintptr_t first = high - pages * page;
        int64_t chunk = resident_pages(first, pages, start, end);
        if (chunk < 0) {
            // Some page here is unmapped: go page by page down to it.
            for (uintptr_t at = high - page; at >= first; at -= page) {
                int64_t one = resident_pages(at, 1, start, end);
                if (one < 0) return total;
                total += (uint64_t)one;
                if (at == first) break;
            }
            return total;
        }
        total += (uint64_t)chunk;
        high = first;
    }
    return total;
}

uint64_t heappeak_resident_stack(uintptr_t low, uintptr_t high) {
    uintptr_t page = system_page_size();
    const size_t chunk = 16;
    high &= ~(page - 1);
    low = (low + page - 1) & ~(page - 1);
    uint64_t total = 0;
    while (high >= low + chunk * page) {
        int64_t resident = resident_pages(high - chunk * page, chunk, low, high);
        if (resident < 0) return total + heappeak_resident_range(high - chunk * page, chunk * page);
        if (resident == 0) return total;
        total += (uint64_t)resident;
        high -= chunk * page;
    }
    return total + heappeak_resident_range(low, high - low);
}

/// The recorded blocks live now (and those being freed inside the release hook, on any thread): their
/// bytes, how many are resident, of those how many in glibc's arenas, and the live heap. Under
/// holder_lock. With `keep`, each block's residency now is held for heappeak_residency_keep.
static void measure_blocks(int keep, uint64_t *bytes, uint64_t *resident, uint64_t *live_heap,
                           uint64_t *in_arenas_resident) {
    uint64_t live = 0, in_ram = 0, being_released = 0, in_arenas = 0;
    bool counted_with_entry[RELEASING_CAPACITY] = {false};
    // A recorded block is booked under this lock, so it is either in these bytes and the table or
    // in neither; a block being released (inside the release hook, on any thread) has left both
    // and is still resident: counted here, in the live heap too.
    int64_t heap_now = atomic_load_explicit(&live_bytes, memory_order_relaxed);
    for (size_t slot = 0; slot < RELEASING_CAPACITY; slot++) {
        if (releasing[slot].pointer != NULL) being_released += releasing[slot].bytes;
    }
    *live_heap = (heap_now > 0 ? (uint64_t)heap_now : 0) + being_released;
    for (size_t index = 0; index < recorded_count; index++) {
        struct recorded_block *entry = &recorded[index];
        uint64_t here = 0;
        bool counted = entry->block.freed_event == 0;
        for (size_t slot = 0; slot < RELEASING_CAPACITY && !counted && being_released > 0; slot++) {
            if (releasing[slot].pointer != NULL && releasing[slot].event == entry->block.freed_event) {
                counted = counted_with_entry[slot] = true;
            }
        }
        if (counted) {
            here = heappeak_resident_range((uintptr_t)entry->pointer, entry->block.bytes);
            live += entry->block.bytes;
            in_ram += here;
            if (!entry->apart) in_arenas += here;
        }
        if (keep) entry->measured_resident = here;
    }
    // The rest: not recorded (under the holders' threshold), or its entry already compacted away.
    for (size_t slot = 0; slot < RELEASING_CAPACITY; slot++) {
        if (releasing[slot].pointer == NULL || counted_with_entry[slot]) continue;
        uint64_t here = heappeak_resident_range((uintptr_t)releasing[slot].pointer, releasing[slot].bytes);
        live += releasing[slot].bytes;
        in_ram += here;
        if (!releasing[slot].apart) in_arenas += here;
    }
    *bytes = live;
    *resident = in_ram;
    *in_arenas_resident = in_arenas;
}

int heappeak_read_statm(int descriptor, uint64_t *resident, uint64_t *file) {
    char text[192];  // seven numbers of at most 20 digits and their separators
    ssize_t count = descriptor >= 0 ? pread(descriptor, text, sizeof text, 0) : -1;
    *resident = 0;
    *file = 0;
    if (count <= 0) return 0;
    uint64_t fields[3] = {0, 0, 0};  // size, resident, shared: in pages
    ssize_t at = 0;
    for (int field = 0; field < 3; field++) {
        while (at < count && (text[at] < '0' || text[at] > '9')) at++;
        while (at < count && text[at] >= '0' && text[at] <= '9')
            fields[field] = fields[field] * 10 + (uint64_t)(text[at++] - '0');
    }
    *resident = fields[1] * system_page_size();
    *file = fields[2] * system_page_size();
    return 1;
}

void heappeak_residency_snapshot(int keep, heappeak_allocator_memory memory, uintptr_t low, uintptr_t high,
                                 int statm_descriptor, heappeak_residency_reading *out) {
    memset(out, 0, sizeof *out);
    uint64_t begun_before, running_before, begun_after, running_after;
    lock_holders();
    heappeak_moves(&begun_before, &running_before);
    int64_t live_before = atomic_load_explicit(&live_bytes, memory_order_relaxed);
    measure_blocks(keep, &out->holder_bytes, &out->holder_resident, &out->live_heap, &out->holder_resident_in_arenas);
    uint64_t mapped = 0;
    switch (memory) {
    case HEAPPEAK_ALLOCATOR_MEMORY_MAPPINGS:
        heappeak_mapped_resident(low, high, 1, &mapped, &out->allocator_resident);
        break;
    case HEAPPEAK_ALLOCATOR_MEMORY_GLIBC_ARENAS: heappeak_glibc_arenas_resident(low, &out->allocator_resident); break;
    case HEAPPEAK_ALLOCATOR_MEMORY_APART: break;
    }
    heappeak_read_statm(statm_descriptor, &out->resident_bytes, &out->file_bytes);
    heappeak_moves(&begun_after, &running_after);
    int64_t live_after = atomic_load_explicit(&live_bytes, memory_order_relaxed);
    unlock_holders();
    out->live_before = live_before > 0 ? (uint64_t)live_before : 0;
    out->live_after = live_after > 0 ? (uint64_t)live_after : 0;
    // Torn: a realloc moved a watched block (its pages where no count says) while the readings were taken.
    out->consistent = running_before == 0 && begun_after == begun_before;
}

void heappeak_residency_keep(void) {
    lock_holders();
    for (size_t index = 0; index < recorded_count; index++) {
        recorded[index].block.resident_bytes = recorded[index].measured_resident;
    }
    unlock_holders();
}

void heappeak_freeze(void) { atomic_store(&peak_frozen, true); }

void heappeak_reset(void) {
    atomic_store(&peak_frozen, false);
    // A thread that books between the load and the store raises the old, higher maximum, and
    // the store then drops its rise: raise to the live bytes read after the store as well.
    atomic_store(&peak_bytes, atomic_load(&live_bytes));
    raise_to(&peak_bytes, atomic_load(&live_bytes));
    atomic_store(&peak_event, atomic_load(&event_count));
}

// MARK: glibc's arenas
//
// glibc's free memory, read by its counters (mallinfo2's free bytes), counts a freed chunk's pages
// whole though some were never written. Its arenas' own pages, read with mincore, do not: the
// main arena is the program break's heap, [start_brk, sbrk(0)); each thread arena is a chain of
// heaps, each a reservation of HEAP_MAX_SIZE (64 MiB on 64-bit glibc 2.36) aligned to its size, of
// which only what is in use is writable. A heap is seen through the blocks allocated in it: a thread
// arena's chunk has NON_MAIN_ARENA in its header, and its heap starts at the address rounded down.
// The heap's header (glibc's heap_info) says how much of the reservation is in use: its third word.
#define GLIBC_HEAP_BYTES ((uintptr_t)64 << 20)
#define GLIBC_HEAPS_CAPACITY 512
static uintptr_t glibc_heaps[GLIBC_HEAPS_CAPACITY];  // under heaps_lock
static size_t glibc_heap_count;
static bool glibc_heaps_overflowed;
static spin_lock_t heaps_lock = SPIN_LOCK_INIT;
static __thread uintptr_t last_heap_seen;

/// A block glibc just handed out: notes its heap when it is in a thread arena not seen before.
static void note_arena_block(const void *pointer) {
    if (!glibc_behind || pointer == NULL || from_bootstrap(pointer)) return;
    size_t head = ((const size_t *)pointer)[-1];
    if ((head & GLIBC_NON_MAIN_ARENA) == 0 || (head & GLIBC_IS_MMAPPED) != 0) return;
    uintptr_t heap = (uintptr_t)pointer & ~(GLIBC_HEAP_BYTES - 1);
    if (heap == last_heap_seen) return;
    last_heap_seen = heap;
    spin_lock(&heaps_lock);
    bool known = false;
    for (size_t index = 0; index < glibc_heap_count && !known; index++) known = glibc_heaps[index] == heap;
    if (!known) {
        if (glibc_heap_count < GLIBC_HEAPS_CAPACITY) {
            glibc_heaps[glibc_heap_count++] = heap;
        } else {
            glibc_heaps_overflowed = true;
        }
    }
    spin_unlock(&heaps_lock);
}

int heappeak_glibc_arenas_resident(uintptr_t main_start, uint64_t *resident) {
    uint64_t total = 0;
    uintptr_t end = (uintptr_t)sbrk(0);
    if (end != (uintptr_t)-1 && main_start > 0 && end > main_start) {
        total += heappeak_resident_range(main_start, end - main_start);
    }
    spin_lock(&heaps_lock);
    bool complete = !glibc_heaps_overflowed;
    for (size_t index = 0; index < glibc_heap_count; index++) {
        // Read through the kernel: a heap glibc has since unmapped fails the read, not the process.
        // (syscall's arguments are read as longs, the last from the stack: each is passed as one.)
        size_t size = 0;
        struct iovec here = {&size, sizeof(size)};
        struct iovec there = {(void *)(glibc_heaps[index] + 2 * sizeof(void *)), sizeof(size)};
        long copied = syscall(SYS_process_vm_readv, (long)getpid(), &here, 1L, &there, 1L, 0L);
        if (copied != (long)sizeof(size)) continue;
        total += heappeak_resident_range(glibc_heaps[index], size < GLIBC_HEAP_BYTES ? size : GLIBC_HEAP_BYTES);
    }
    spin_unlock(&heaps_lock);
    *resident = total;
    return complete ? 1 : 0;
}

// MARK: C++ operator new and delete
//
// Debian's libjemalloc exports its own operator new and delete, which allocate without calling
// malloc: with jemalloc preloaded, the C++ decoders' blocks (libheif, libde265) would never reach
// the wrappers above. The executable's definitions below come first in the symbol search order,
// as malloc's do, and send every form to the wrappers, so both allocators count them. (Under glibc
// libstdc++'s operator new calls malloc anyway: the figures there do not change.)
// They are the Itanium C++ ABI's mangled names, defined in C; a C function cannot throw, so when
// malloc fails, the next operator new is asked instead: it runs the new-handler and throws
// std::bad_alloc as C++ requires (the nothrow forms return NULL, as they must).

typedef size_t cxx_align_val_t;  // std::align_val_t: an enum over size_t
typedef struct {
    char unused;
} cxx_nothrow_t;  // std::nothrow_t, passed by reference

static void *next_operator_new(const char *name, size_t size) {
    void *(*next)(size_t) = dlsym(RTLD_NEXT, name);
    return next != NULL ? next(size) : NULL;
}

static void *next_aligned_operator_new(const char *name, size_t size, size_t alignment) {
    void *(*next)(size_t, size_t) = dlsym(RTLD_NEXT, name);
    return next != NULL ? next(size, alignment) : NULL;
}

static void *new_block(size_t size) { return malloc(size == 0 ? 1 : size); }

static void *new_aligned_block(size_t size, size_t alignment) {
    void *pointer = NULL;
    return posix_memalign(&pointer, alignment < sizeof(void *) ? sizeof(void *) : alignment, size == 0 ? 1 : size) == 0
        ? pointer
        : NULL;
}

// operator new(size_t), new[](size_t)
void *_Znwm(size_t size) {
    void *pointer = new_block(size);
    return pointer != NULL ? pointer : next_operator_new("_Znwm", size);
}
void *_Znam(size_t size) {
    void *pointer = new_block(size);
    return pointer != NULL ? pointer : next_operator_new("_Znam", size);
}
// operator new(size_t, const nothrow_t &), new[]
void *_ZnwmRKSt9nothrow_t(size_t size, const cxx_nothrow_t *tag) {
    (void)tag;
    return new_block(size);
}
void *_ZnamRKSt9nothrow_t(size_t size, const cxx_nothrow_t *tag) {
    (void)tag;
    return new_block(size);
}
// operator new(size_t, align_val_t), new[]
void *_ZnwmSt11align_val_t(size_t size, cxx_align_val_t alignment) {
    void *pointer = new_aligned_block(size, alignment);
    return pointer != NULL ? pointer : next_aligned_operator_new("_ZnwmSt11align_val_t", size, alignment);
}
void *_ZnamSt11align_val_t(size_t size, cxx_align_val_t alignment) {
    void *pointer = new_aligned_block(size, alignment);
    return pointer != NULL ? pointer : next_aligned_operator_new("_ZnamSt11align_val_t", size, alignment);
}
// operator new(size_t, align_val_t, const nothrow_t &), new[]
void *_ZnwmSt11align_val_tRKSt9nothrow_t(size_t size, cxx_align_val_t alignment, const cxx_nothrow_t *tag) {
    (void)tag;
    return new_aligned_block(size, alignment);
}
void *_ZnamSt11align_val_tRKSt9nothrow_t(size_t size, cxx_align_val_t alignment, const cxx_nothrow_t *tag) {
    (void)tag;
    return new_aligned_block(size, alignment);
}

// Every operator delete: plain, array, sized, aligned, nothrow. All blocks above came from the
// wrappers (or from the next operator new, whose allocator's free takes them).
// One line an operator, as the list reads best:
// clang-format off
void _ZdlPv(void *pointer) { free(pointer); }
void _ZdaPv(void *pointer) { free(pointer); }
void _ZdlPvm(void *pointer, size_t size) { (void)size; free(pointer); }
void _ZdaPvm(void *pointer, size_t size) { (void)size; free(pointer); }
void _ZdlPvSt11align_val_t(void *pointer, cxx_align_val_t alignment) { (void)alignment; free(pointer); }
void _ZdaPvSt11align_val_t(void *pointer, cxx_align_val_t alignment) { (void)alignment; free(pointer); }
void _ZdlPvmSt11align_val_t(void *pointer, size_t size, cxx_align_val_t alignment) {
    (void)size; (void)alignment; free(pointer);
}
void _ZdaPvmSt11align_val_t(void *pointer, size_t size, cxx_align_val_t alignment) {
    (void)size; (void)alignment; free(pointer);
}
void _ZdlPvRKSt9nothrow_t(void *pointer, const cxx_nothrow_t *tag) { (void)tag; free(pointer); }
void _ZdaPvRKSt9nothrow_t(void *pointer, const cxx_nothrow_t *tag) { (void)tag; free(pointer); }
void _ZdlPvSt11align_val_tRKSt9nothrow_t(void *pointer, cxx_align_val_t alignment, const cxx_nothrow_t *tag) {
    (void)alignment; (void)tag; free(pointer);
}
void _ZdaPvSt11align_val_tRKSt9nothrow_t(void *pointer, cxx_align_val_t alignment, const cxx_nothrow_t *tag) {
    (void)alignment; (void)tag; free(pointer);
}
// clang-format on
