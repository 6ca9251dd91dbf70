#ifndef CHEAPPEAK_H
#define CHEAPPEAK_H
#include <stddef.h>
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

/// Called by every thread as it starts, before its start routine (CThreadGuard's pthread_create
/// calls it when this file is linked in). Under an allocator other than glibc's, while counting, it
/// makes one uncounted allocation, so that the allocator sets up this thread's state now, while the
/// thread's TSD destructors are still to run. Otherwise the thread's first call could be glibc freeing
/// other threads' cached stacks as this one exits (after its destructors, in __nptl_free_stacks): the
/// wrappers' malloc_usable_size would then fully set up a jemalloc tsd and tcache that nothing cleans
/// up, left linked into jemalloc's lists from a dead thread's stack.
void heappeak_thread_starts(void);

/// Live heap bytes now, and their maximum since the last reset.
void heappeak_read(uint64_t *live, uint64_t *peak);

/// The maximum of live heap bytes over the process's whole life, never reset.
uint64_t heappeak_lifetime(void);

/// Sets the maximum to the current live bytes (called when the measured window opens); unfreezes.
void heappeak_reset(void);

/// Stops the maximum (and the event it was reached at) from moving: called when the measured window
/// closes, so that reading the holders, which allocates, cannot become part of the peak they describe.
void heappeak_freeze(void);

// MARK: Who holds the peak
//
// Off until heappeak_holders_start: then every block of at least the threshold gets its call
// stack (return addresses) and the events at which it was allocated and freed, in one fixed
// table. The event count at which the peak was last raised is kept with the peak, so after the
// measured window the blocks live at the peak are known exactly. Blocks below the threshold are
// not recorded: they are the peak minus the recorded blocks. When the table is full, blocks freed
// before the peak so far are dropped (they cannot be live at any later peak); when none can be,
// new blocks go unrecorded and are counted as dropped.

#define HEAPPEAK_STACK_DEPTH 32

typedef struct {
    uint64_t bytes;
    /// The event count when the block was allocated, and when freed (0: still live).
    uint64_t allocated_event;
    uint64_t freed_event;
    /// CLOCK_MONOTONIC at those events (freed 0: still live).
    uint64_t allocated_nanos;
    uint64_t freed_nanos;
    /// Bytes of it resident (mincore) at the snapshot `heappeak_residency_snapshot` last kept
    /// (0: not live then, or no snapshot kept).
    uint64_t resident_bytes;
    uint32_t depth;
    /// Return addresses, innermost first (the wrappers' own frames included).
    void *stack[HEAPPEAK_STACK_DEPTH];
} heappeak_block;

/// Starts recording blocks of at least `threshold_bytes` (0 stops). Takes one stack first, so
/// that the unwinder's own set-up (glibc loads libgcc_s, which allocates) happens here, not in the window.
/// The first start with a threshold maps a table of `capacity` records (0: 4,096), every page
/// written: it holds the recorded blocks live now and those live at the peak, so it must fit the
/// most large blocks the run holds at once, twice; past it a block goes unrecorded (`dropped`).
void heappeak_holders_start(uint64_t threshold_bytes, size_t capacity);

/// Copies up to `capacity` recorded blocks live when the peak since the last reset was reached
/// into `out`, largest first is not promised; returns how many there are (more than `capacity`
/// when `out` is too small). `dropped` receives the blocks that went unrecorded (table full).
size_t heappeak_holders_at_peak(heappeak_block *out, size_t capacity, uint64_t *dropped);

/// What recording has cost so far: blocks recorded or released, and the time spent doing it
/// (stack, lock, table), measured inside the wrappers.
void heappeak_holders_cost(uint64_t *events, uint64_t *nanos);

/// dladdr for one address: the file it is in (as the loader names it: empty or argv[0] for the
/// main program), that file's load address, and the nearest exported symbol (NULL if none).
/// Returns 0 when the address is in no loaded file.
int heappeak_locate(uintptr_t address, const char **file, uintptr_t *base, const char **symbol);

// MARK: Residency (what of the heap is in RAM)

/// Bytes of [start, start + length) whose pages are resident (mincore), partial pages counted by
/// their overlap. Never allocates. A range with unmapped pages counts what is mapped, scanning
/// from its end down and stopping at the first unmapped page (the shape of a stack).
uint64_t heappeak_resident_range(uintptr_t start, uint64_t length);

/// The resident bytes of a stack [low, high), read from the top down in chunks of 16 pages up to
/// the first chunk with none resident (a stack is touched from its top) or unmapped.
uint64_t heappeak_resident_stack(uintptr_t low, uintptr_t high);

/// glibc: the resident bytes of its arenas: the main one, [main_start, sbrk(0)) (main_start is the
/// kernel's start_brk), and each thread arena's heaps seen so far (through the blocks the wrappers
/// handed out; 64 MiB each). Returns 0 when more heaps were seen than it keeps (512).
int heappeak_glibc_arenas_resident(uintptr_t main_start, uint64_t *resident);

/// RSS and its file-backed part (statm's second and third fields, `resident` and `shared`: mapped
/// files, code, shared memory), in bytes, from one pread of `descriptor` (an open /proc/self/statm)
/// into a buffer on the caller's stack: safe on several threads at once (the kernel serialises reads
/// of one procfs file), never allocates. Returns 0, both figures 0, when it could not be read.
int heappeak_read_statm(int descriptor, uint64_t *resident, uint64_t *file);

/// Where a residency snapshot reads the allocator's own memory.
typedef enum {
    /// Not in the snapshot: the caller reads it apart (glibc's counters, when the wrappers do not count).
    HEAPPEAK_ALLOCATOR_MEMORY_APART = 0,
    /// The anonymous mappings made by code in [low, high) (jemalloc's library).
    HEAPPEAK_ALLOCATOR_MEMORY_MAPPINGS = 1,
    /// glibc's arenas: the main one from `low` (the kernel's start_brk), the thread arenas' heaps seen.
    HEAPPEAK_ALLOCATOR_MEMORY_GLIBC_ARENAS = 2,
} heappeak_allocator_memory;

/// The readings of a residency snapshot that must agree with each other.
typedef struct {
    /// The recorded blocks live now, and the blocks being freed inside the release hook (on any
    /// thread): their bytes, how many of them are resident, and of those how many in glibc's arenas
    /// (every block but those glibc mapped apart; under jemalloc, all of them).
    uint64_t holder_bytes;
    uint64_t holder_resident;
    uint64_t holder_resident_in_arenas;
    /// The live heap (`heappeak_read`'s) plus the blocks being freed (still resident).
    uint64_t live_heap;
    /// The allocator's own memory, resident (0 with HEAPPEAK_ALLOCATOR_MEMORY_APART).
    uint64_t allocator_resident;
    /// statm's RSS and its file-backed part, in bytes (`heappeak_read_statm`; 0 when it could not be read).
    uint64_t resident_bytes;
    uint64_t file_bytes;
    /// 1: no realloc moved a block the release hook watches while the readings were taken (0: torn).
    int consistent;
    /// `heappeak_read`'s live bytes as the readings began and as they ended.
    uint64_t live_before;
    uint64_t live_after;
} heappeak_residency_reading;

/// One residency snapshot's readings that must agree, taken whole under the recorded blocks' lock:
/// the blocks (as above), the live heap, the allocator's own memory (`memory`, with `low` and
/// `high` as it says) and statm (read from `statm_descriptor`, an open /proc/self/statm; -1: not
/// read). While the lock is held no recorded block comes or goes (a thread doing so waits), and
/// nothing under it allocates: a recorded block allocated on the locking thread stops the process
/// with a message rather than spinning forever. With `keep` set, each recorded block's residency
/// now is held until `heappeak_residency_keep` makes it its `resident_bytes`. Never allocates.
void heappeak_residency_snapshot(int keep, heappeak_allocator_memory memory, uintptr_t low, uintptr_t high,
                                 int statm_descriptor, heappeak_residency_reading *out);

/// Each recorded block's `resident_bytes` becomes its residency at the last snapshot measured with
/// `keep` set: call it when that snapshot is the one kept.
void heappeak_residency_keep(void);

/// Calls `hook(context)` on the freeing thread while any block of at least `minimum_bytes` is
/// freed (a moment RSS may fall from its peak), and while the smaller blocks freed since the hook's
/// last call reach `freed_bytes` (0: never); never from inside the hook itself; NULL stops it.
/// The block has already left the live bytes and the holders (the hook's time cannot raise a heap
/// peak) and is still resident: `heappeak_residency_snapshot` counts it, on any thread.
/// A thread already past the check may still call the last hook once it is stopped, with its
/// context: a context must stay valid for the process's life.
void heappeak_set_release_hook(void (*hook)(void *), void *context, uint64_t minimum_bytes, uint64_t freed_bytes);

/// The loaded object that defines `symbol_name` (dlsym RTLD_DEFAULT), as the address range of its
/// loaded segments: to tell its mappings apart in `heappeak_mapped_resident`. Returns 0 when none does.
int heappeak_object_range(const char *symbol_name, uintptr_t *low, uintptr_t *high);

/// The anonymous mappings made through mmap() (mappings.c's wrappers, from the process's start) by
/// code in [low, high) (`inside` 1) or by code outside it (0), and their resident bytes (mincore).
/// Returns 0 when the table overflowed (4096 mappings) and no longer holds them all: those it holds
/// are counted.
int heappeak_mapped_resident(uintptr_t low, uintptr_t high, int inside, uint64_t *mapped, uint64_t *resident);

/// The noted mapping that holds `address`: its range and the return address of its mmap() call.
/// Returns 0 when none does.
int heappeak_mapping_at(uintptr_t address, uintptr_t *start, uintptr_t *end, uintptr_t *caller);

/// While the release hook is set, reallocs of blocks of at least its `minimum_bytes` (before or
/// after): how many began so far, and how many are running. The allocator moves such a block
/// inside realloc, where no count follows its pages: a residency snapshot that overlaps one is
/// torn (`ResidencyPeak` waits one out, or takes the snapshot again).
void heappeak_moves(uint64_t *begun, uint64_t *running);

/// Inside the release hook, the bytes of the block this thread is freeing (no longer in the live
/// bytes); 0 elsewhere.
uint64_t heappeak_releasing_bytes(void);

#endif
