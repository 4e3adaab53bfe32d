/*
 * threads.h - zc-bench-core --threads N: put and get throughput of N
 * threads on one cache against one thread (threads.c says how).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef BENCH_THREADS_H
#define BENCH_THREADS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pages.h"

typedef struct bench_threads_result {
    unsigned threads; /* N */
    const char *allocator;
    size_t pages, kept; /* pages put by each phase; pages the cache kept */
    uint64_t put_ns[2]; /* median wall time: [0] 1 thread, [1] N */
    uint64_t get_ns[2];
    uint64_t lzo_ns[2];   /* lzo1x_1_compress alone on the same pages */
    size_t misses, wrong; /* the check after the last run */
    int check_rc;         /* zc_cache_check() then */
    int err;              /* a library error (< 0), or 0 */
} bench_threads_result;

/** Measure (runs interleaved, medians) and check; never exits on a
 *  library error (it is in r->err). */
void bench_threads_run(const page_set *ps, const char *allocator,
                       unsigned nthreads, unsigned runs,
                       bench_threads_result *r);

/** The report's section, and the JSON member "threads":{...}. */
void bench_threads_text(FILE *f, const bench_threads_result *r);
void bench_threads_json(FILE *f, const bench_threads_result *r);

/** A library error, a miss, wrong data or a failed check. */
bool bench_threads_failed(const bench_threads_result *r);

#endif /* BENCH_THREADS_H */
