// See CLoopbackGuard.h.
#pragma clang diagnostic error "-Wall"
#pragma clang diagnostic error "-Wextra"
#define _GNU_SOURCE
#include "CLoopbackGuard.h"
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef int (*connect_function)(int, const struct sockaddr *, socklen_t);

static _Atomic(connect_function) next_connect;
enum { UNDECIDED, OFF, ON };
static _Atomic int armed = UNDECIDED;

int loopbackguard_armed(void) {
    int state = atomic_load(&armed);
    if (state == UNDECIDED) {
        const char *value = getenv(LOOPBACKGUARD_ENVIRONMENT_VARIABLE);  // getenv does not allocate
        state = value != NULL && strcmp(value, "1") == 0 ? ON : OFF;
        atomic_store(&armed, state);
    }
    return state == ON;
}

static bool is_loopback(const struct sockaddr *address, socklen_t length) {
    if (address == NULL) return true;
    if (address->sa_family == AF_INET && length >= (socklen_t)sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *ipv4 = (const struct sockaddr_in *)address;
        return (ntohl(ipv4->sin_addr.s_addr) >> 24) == 127;
    }
    if (address->sa_family == AF_INET6 && length >= (socklen_t)sizeof(struct sockaddr_in6)) {
        const struct in6_addr *ipv6 = &((const struct sockaddr_in6 *)address)->sin6_addr;
        if (IN6_IS_ADDR_LOOPBACK(ipv6)) return true;
        return IN6_IS_ADDR_V4MAPPED(ipv6) && ipv6->s6_addr[12] == 127;
    }
    return address->sa_family != AF_INET && address->sa_family != AF_INET6;  // AF_UNIX and the like stay local
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

int connect(int socket, const struct sockaddr *address, socklen_t length) {
    connect_function forward = atomic_load(&next_connect);
    if (forward == NULL) {
        forward = (connect_function)dlsym(RTLD_NEXT, "connect");
        if (forward == NULL) {
            errno = ENOSYS;
            return -1;
        }
        atomic_store(&next_connect, forward);
    }
    if (loopbackguard_armed() && !is_loopback(address, length)) {
        char shown[INET6_ADDRSTRLEN] = "?";
        if (address->sa_family == AF_INET) {
            inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, shown, sizeof(shown));
        } else {
            inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)address)->sin6_addr, shown, sizeof(shown));
        }
        write_all("bench: refused a connection to ");
        write_all(shown);
        write_all(": only loopback (127.0.0.0/8, ::1) is measured here (" LOOPBACKGUARD_ENVIRONMENT_VARIABLE "=1)\n");
        errno = ECONNREFUSED;
        return -1;
    }
    return forward(socket, address, length);
}
