// The ThreadSanitizer harness (scripts/sanitize.sh, gcc -fsanitize=thread): four threads decode the
// same files at once, as the list scroll's concurrent queue and the image server do. Every thread
// runs every operation of every file (drive.c), each starting at a different one, after a barrier
// and with nothing decoded before it (a decode on the main thread first would order the threads'
// first uses of any lazily built table after it, and hide a race). Then each operation's output
// must be the same on every thread.
//
//   sanitize_threads FILE...   JPEG files first: every thread's first operation is then a JPEG render
//
// A data race is TSan's report (its exit status 66); the harness exits 1 when the threads' outputs differ.
#include "drive.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { THREADS = 4, ROUNDS = 1 };

struct work {
    int files;
    struct sz_input *inputs;
    int *op_count;  // per file
    struct sz_op (*ops)[SZ_MAX_OPS];
    pthread_barrier_t start;
};

struct thread {
    struct work *work;
    int index;
    struct sz_result (*results)[SZ_MAX_OPS];  // per file, per operation: the last round's
    long runs;
};

static void *decode(void *argument) {
    struct thread *t = argument;
    struct work *w = t->work;
    pthread_barrier_wait(&w->start);
    for (int round = 0; round < ROUNDS; round++)
        for (int k = 0; k < w->files; k++) {
            int f = (k + t->index) % w->files;  // the list starts with JPEGs: so does every thread
            for (int j = 0; j < w->op_count[f]; j++) {
                int i = (j + t->index * 3 + round) % w->op_count[f];  // different scales at once
                t->results[f][i] = sz_run(&w->inputs[f], &w->ops[f][i]);
                t->runs++;
            }
        }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE... (JPEG files first)\n", argv[0]);
        return 2;
    }
    struct work w = {argc - 1,
                     calloc((size_t)argc, sizeof(struct sz_input)),
                     calloc((size_t)argc, sizeof(int)),
                     calloc((size_t)argc, sizeof *w.ops),
                     {{0}}};
    // Only the formats' headers are read here (sz_probe opens each file): nothing is decoded.
    for (int f = 0; f < w.files; f++) {
        if (!sz_load(argv[f + 1], &w.inputs[f])) {
            fprintf(stderr, "sanitize_threads: cannot read %s\n", argv[f + 1]);
            return 2;
        }
        w.op_count[f] = sz_ops(&w.inputs[f], 1, w.ops[f]);
    }
    if (w.inputs[0].format != SZ_JPEG) {
        fprintf(stderr, "sanitize_threads: the first file must be a JPEG\n");
        return 2;
    }
    pthread_barrier_init(&w.start, NULL, THREADS);
    struct thread threads[THREADS];
    pthread_t ids[THREADS];
    for (int i = 0; i < THREADS; i++) {
        threads[i] = (struct thread){&w, i, calloc((size_t)w.files, sizeof *threads[i].results), 0};
        if (pthread_create(&ids[i], NULL, decode, &threads[i]) != 0) {
            fprintf(stderr, "sanitize_threads: cannot start a thread\n");
            return 2;
        }
    }
    long runs = 0, differences = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(ids[i], NULL);
        runs += threads[i].runs;
    }
    for (int f = 0; f < w.files; f++)
        for (int j = 0; j < w.op_count[f]; j++)
            for (int i = 1; i < THREADS; i++) {
                struct sz_result a = threads[0].results[f][j], b = threads[i].results[f][j];
                if (a.status == b.status && a.hash == b.hash) continue;
                char text[128];
                fprintf(stderr,
                        "sanitize_threads: finding: %s, %s: thread 0 gave status %d hash %016llx, thread %d status %d "
                        "hash %016llx\n",
                        w.inputs[f].path, sz_describe(&w.ops[f][j], text, sizeof text), a.status,
                        (unsigned long long)a.hash, i, b.status, (unsigned long long)b.hash);
                differences++;
            }
    printf("sanitize_threads: %d threads, %d files, %ld operations, %ld outputs that differ between threads\n", THREADS,
           w.files, runs, differences);
    for (int i = 0; i < THREADS; i++) free(threads[i].results);
    for (int f = 0; f < w.files; f++) sz_unload(&w.inputs[f]);
    free(w.inputs);
    free(w.op_count);
    free(w.ops);
    pthread_barrier_destroy(&w.start);
    return differences ? 1 : 0;
}
