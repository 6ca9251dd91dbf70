// See CThreadGuard.h: a pthread_create that, once armed, turns a thread that cannot start for
// lack of memory into an immediate abort rather than libdispatch's endless retry.
#define _GNU_SOURCE
#include "CThreadGuard.h"
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
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

int pthread_create(pthread_t *thread, const pthread_attr_t *attributes, void *(*start)(void *), void *argument) {
    create_function create = atomic_load(&next_create);
    if (create == NULL) {
        create = (create_function)dlsym(RTLD_NEXT, "pthread_create");
        if (create == NULL) return EAGAIN;  // no libc to start threads with: say so, as glibc would
        atomic_store(&next_create, create);
    }
    int result = create(thread, attributes, start, argument);
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
