#ifndef CCHILDGUARD_H
#define CCHILDGUARD_H

// What Swift's Glibc module does not show, for the children bench and bench-reference start (Harness/ChildProcess):
// a spawn that closes every descriptor it was not given, and, in a measured child, a death
// signal from its parent and a backstop of its own.

#include <spawn.h>
#include <sys/types.h>

/// Adds "close every descriptor from `lowest` on" to a spawn's file actions (glibc 2.34 and later).
/// Returns 0, or the error number.
int childguard_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

/// In a child: asks for SIGKILL when the thread that spawned it ends (prctl PR_SET_PDEATHSIG),
/// then checks that its parent is still `parent`. Returns 1 when it is, 0 when the parent died
/// before the request was made (the signal will never come: the caller must leave).
int childguard_die_with_parent(pid_t parent);

/// The same with `signal` instead of SIGKILL: a child that must clean up when the thread that spawned
/// it ends (bench-reference's step guard then kills its process group) asks for a signal it can catch.
int childguard_signal_on_parent_death(int signal, pid_t parent);

/// Makes the caller the reaper of its orphaned descendants (PR_SET_CHILD_SUBREAPER), so that it can
/// wait for all of them. Returns 0, or the error number.
int childguard_become_subreaper(void);

/// Starts a detached thread that, `seconds` from now, writes `message` and a newline on stderr
/// and ends the process with `status` (_exit: no clean-up, nothing else runs). Returns 0, or the
/// error number of pthread_create.
int childguard_start_backstop(double seconds, int status, const char *message);

/// Sets `pid`'s RLIMIT_DATA (soft and hard) to `bytes` (prlimit(2), which Swift's Glibc module does
/// not show): a parent limiting a child it started. Returns 0, or the error number.
int childguard_limit_data(pid_t pid, unsigned long long bytes);

#endif
