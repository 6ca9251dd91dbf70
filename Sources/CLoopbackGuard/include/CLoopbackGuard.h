#ifndef CLOOPBACKGUARD_H
#define CLOOPBACKGUARD_H

// loopbackguard.c defines connect in the executable (as CHeapPeak defines malloc), so every
// socket the process connects, libcurl's under URLSession included, goes through it to glibc's.
//
// A measured child whose environment has BENCH_LOOPBACK_ONLY=1 (every child of `bench corpus`
// and of a `bench run` on the embedded server) refuses a TCP or UDP connection to any address
// that is not loopback (127.0.0.0/8, ::1, ::ffff:127.0.0.0/104) with ECONNREFUSED and a line on
// stderr naming it: a redirect that leaves loopback, or any other way out, never reaches the network.

/// The environment variable that arms the guard in a process started with it set to 1.
#define LOOPBACKGUARD_ENVIRONMENT_VARIABLE "BENCH_LOOPBACK_ONLY"

/// 1 when this process refuses connections off loopback.
int loopbackguard_armed(void);

#endif
