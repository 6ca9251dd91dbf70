// The anonymous mappings made through mmap(), each with the code that asked for it.
//
// jemalloc counts what it keeps after free by its counters: a freed block's dirty pages, a new
// thread's cache, a new slab's free regions, each counted whole though a page never written was
// never resident (in a small cell that is a few hundred KiB either way). Its own mappings, read
// with mincore, say exactly how much of it is resident. jemalloc maps through mmap() (the PLT:
// this executable's definition comes first, as malloc's does); so do a few others, told apart by
// the caller's object. glibc's own mappings (its arenas, thread stacks, dlopen) go through its
// internal entry points and never reach these wrappers.
//
// The wrappers make the system calls themselves: no lookup of a next definition, so they work
// from the first mapping jemalloc makes (inside the first malloc, before main), and allocate
// nothing. The table is static, sorted by address, its ranges disjoint.
#pragma clang diagnostic error "-Wall"
#pragma clang diagnostic error "-Wextra"
#define _GNU_SOURCE
#include "CHeapPeak.h"
#include "spinlock.h"
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAPPING_CAPACITY 4096
static struct mapping {
    uintptr_t start, end;  // whole pages
    uintptr_t caller;      // the return address of the mmap() call
} mappings[MAPPING_CAPACITY];
static size_t mapping_count;      // under mapping_lock
static bool mappings_overflowed;  // a mapping was left out: the table no longer says all
static spin_lock_t mapping_lock = SPIN_LOCK_INIT;

static uintptr_t page_mask(void) { return (uintptr_t)sysconf(_SC_PAGESIZE) - 1; }

/// Under the lock: the first range that ends after `address` (mapping_count when none).
static size_t first_ending_after(uintptr_t address) {
    size_t low = 0, high = mapping_count;
    while (low < high) {
        size_t middle = (low + high) / 2;
        if (mappings[middle].end <= address)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

/// Under the lock: takes [start, end) out of the table (unmapped, or mapped over). A range it
/// would split in two with the table full is dropped whole, and the table marked incomplete.
static void cut(uintptr_t start, uintptr_t end) {
    size_t index = first_ending_after(start);
    while (index < mapping_count && mappings[index].start < end) {
        struct mapping *range = &mappings[index];
        bool keeps_below = range->start<start, keeps_above = range->end> end;
        if (keeps_below && keeps_above) {
            if (mapping_count == MAPPING_CAPACITY) {
                mappings_overflowed = true;
            } else {
                memmove(range + 1, range, (mapping_count - index) * sizeof(*range));
                mapping_count++;
                mappings[index].end = start;
                mappings[index + 1].start = end;
                return;
            }
        }
        if (keeps_below && !keeps_above) {
            range->end = start;
            index++;
        } else if (keeps_above && !keeps_below) {
            range->start = end;
            return;
        } else {
            memmove(range, range + 1, (mapping_count - index - 1) * sizeof(*range));
            mapping_count--;
        }
    }
}

/// Under the lock: [start, end) is now a new mapping asked for by `caller`.
static void add(uintptr_t start, uintptr_t end, uintptr_t caller) {
    cut(start, end);
    if (mapping_count == MAPPING_CAPACITY) {
        mappings_overflowed = true;
        return;
    }
    size_t index = first_ending_after(start);
    memmove(&mappings[index + 1], &mappings[index], (mapping_count - index) * sizeof(mappings[0]));
    mappings[index] = (struct mapping){start, end, caller};
    mapping_count++;
}

static uintptr_t round_up(uintptr_t address) { return (address + page_mask()) & ~page_mask(); }

void *mmap(void *address, size_t length, int protection, int flags, int descriptor, off_t offset) {
    // syscall reads each argument as a long (the last from the stack): each is passed as one.
    void *mapped =
        (void *)syscall(SYS_mmap, address, length, (long)protection, (long)flags, (long)descriptor, (long)offset);
    if (mapped != MAP_FAILED) {
        uintptr_t start = (uintptr_t)mapped, end = round_up(start + length);
        spin_lock(&mapping_lock);
        if (flags & MAP_ANONYMOUS) {
            add(start, end, (uintptr_t)__builtin_return_address(0));
        } else {
            cut(start, end);
        }
        spin_unlock(&mapping_lock);
    }
    return mapped;
}

void *mmap64(void *address, size_t length, int protection, int flags, int descriptor, off_t offset)
    __attribute__((alias("mmap")));

int munmap(void *address, size_t length) {
    int status = (int)syscall(SYS_munmap, address, length);
    if (status == 0) {
        spin_lock(&mapping_lock);
        cut((uintptr_t)address, round_up((uintptr_t)address + length));
        spin_unlock(&mapping_lock);
    }
    return status;
}

void *mremap(void *old_address, size_t old_length, size_t new_length, int flags, ...) {
    void *new_address = NULL;
    if (flags & MREMAP_FIXED) {
        va_list arguments;
        va_start(arguments, flags);
        new_address = va_arg(arguments, void *);
        va_end(arguments);
    }
    void *moved = (void *)syscall(SYS_mremap, old_address, old_length, new_length, (long)flags, new_address);
    if (moved != MAP_FAILED) {
        uintptr_t old_start = (uintptr_t)old_address;
        spin_lock(&mapping_lock);
        size_t index = first_ending_after(old_start);
        bool tracked = index < mapping_count && mappings[index].start <= old_start;
        uintptr_t caller = tracked ? mappings[index].caller : 0;
        cut(old_start, round_up(old_start + old_length));
        if (tracked) add((uintptr_t)moved, round_up((uintptr_t)moved + new_length), caller);
        spin_unlock(&mapping_lock);
    }
    return moved;
}

struct object_search {
    uintptr_t symbol;
    uintptr_t low, high;
};

static int find_object(struct dl_phdr_info *info, size_t size, void *context) {
    (void)size;
    struct object_search *search = context;
    uintptr_t low = UINTPTR_MAX, high = 0;
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_LOAD) continue;
        uintptr_t start = info->dlpi_addr + header->p_vaddr;
        if (start < low) low = start;
        if (start + header->p_memsz > high) high = start + header->p_memsz;
    }
    if (search->symbol < low || search->symbol >= high) return 0;
    search->low = low;
    search->high = high;
    return 1;
}

int heappeak_object_range(const char *symbol_name, uintptr_t *low, uintptr_t *high) {
    void *symbol = dlsym(RTLD_DEFAULT, symbol_name);
    if (symbol == NULL) return 0;
    struct object_search search = {(uintptr_t)symbol, 0, 0};
    if (dl_iterate_phdr(find_object, &search) == 0) return 0;
    *low = search.low;
    *high = search.high;
    return 1;
}

int heappeak_mapped_resident(uintptr_t low, uintptr_t high, int inside, uint64_t *mapped, uint64_t *resident) {
    uint64_t total = 0, in_ram = 0;
    spin_lock(&mapping_lock);
    bool complete = !mappings_overflowed;
    for (size_t index = 0; index < mapping_count; index++) {
        bool within = mappings[index].caller >= low && mappings[index].caller < high;
        if (within != (inside != 0)) continue;
        uint64_t length = mappings[index].end - mappings[index].start;
        total += length;
        in_ram += heappeak_resident_range(mappings[index].start, length);
    }
    spin_unlock(&mapping_lock);
    *mapped = total;
    *resident = in_ram;
    return complete ? 1 : 0;
}

int heappeak_mapping_at(uintptr_t address, uintptr_t *start, uintptr_t *end, uintptr_t *caller) {
    spin_lock(&mapping_lock);
    size_t index = first_ending_after(address);
    bool found = index < mapping_count && mappings[index].start <= address;
    if (found) {
        *start = mappings[index].start;
        *end = mappings[index].end;
        *caller = mappings[index].caller;
    }
    spin_unlock(&mapping_lock);
    return found ? 1 : 0;
}
