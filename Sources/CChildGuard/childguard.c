// See CChildGuard.h.
#pragma clang diagnostic error "-Wall"
#pragma clang diagnostic error "-Wextra"
#define _GNU_SOURCE
#include "CChildGuard.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

int childguard_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

int childguard_die_with_parent(pid_t parent) { return childguard_signal_on_parent_death(SIGKILL, parent); }

int childguard_limit_data(pid_t pid, unsigned long long bytes) {
    struct rlimit limit = {.rlim_cur = (rlim_t)bytes, .rlim_max = (rlim_t)bytes};
    return prlimit(pid, RLIMIT_DATA, &limit, NULL) == 0 ? 0 : errno;
}

int childguard_become_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1) == 0 ? 0 : errno; }

int childguard_signal_on_parent_death(int signal, pid_t parent) {
    if (prctl(PR_SET_PDEATHSIG, signal) != 0) return 0;
    return getppid() == parent;
}

struct backstop {
    struct timespec deadline;
    int status;
    char message[256];
};

static struct backstop backstop;  // one per process: the thread reads it, nobody writes it after the start

static void *run_backstop(void *unused) {
    (void)unused;
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &backstop.deadline, NULL) == EINTR) {}
    size_t length = strlen(backstop.message);
    backstop.message[length] = '\n';  // the buffer keeps one byte free for it
    ssize_t ignored = write(STDERR_FILENO, backstop.message, length + 1);
    (void)ignored;
    _exit(backstop.status);
}

int childguard_start_backstop(double seconds, int status, const char *message) {
    clock_gettime(CLOCK_MONOTONIC, &backstop.deadline);
    long long nanos = (long long)(seconds * 1e9);
    backstop.deadline.tv_sec += (time_t)(nanos / 1000000000LL);
    backstop.deadline.tv_nsec += (long)(nanos % 1000000000LL);
    if (backstop.deadline.tv_nsec >= 1000000000L) {
        backstop.deadline.tv_sec += 1;
        backstop.deadline.tv_nsec -= 1000000000L;
    }
    backstop.status = status;
    strncpy(backstop.message, message, sizeof backstop.message - 2);
    backstop.message[sizeof backstop.message - 2] = '\0';

    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attributes, 64 * 1024);  // it only sleeps: a small stack, barely touched
    pthread_t thread;
    int error = pthread_create(&thread, &attributes, run_backstop, NULL);
    pthread_attr_destroy(&attributes);
    return error;
}
