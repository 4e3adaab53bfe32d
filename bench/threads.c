/*
 * threads.c - zc-bench-core --threads N: puts and gets from N threads into
 * one cache, against one thread, on the same pages in the same run.
 *
 * A cache compresses outside its lock (core/cache.c: a put's first half
 * runs on the caller's thread with a scratch buffer of its own; only the
 * index, the allocator and the policy are under the lock), so puts from
 * several threads should scale with the cores until the locked half
 * dominates.  This measures it: the page set is dealt out to the threads
 * in blocks of BENCH_BLOCK_PAGES (so each thread sees the same mix of
 * directories), every thread puts its own pages (distinct keys), then
 * gets the ones the cache kept (non-exclusive).  Each phase is timed from
 * the moment all threads are released together (a barrier) until the last
 * one ends; thread start-up is outside the clock.  One thread runs through
 * the same code, so the ratio is of like with like.
 *
 * Each run makes a fresh cache for 1 thread and one for N, interleaved
 * (1, N, 1, N, ...) so that a slow spell of a shared machine hits both;
 * medians are reported.  After the last run every page is fetched once
 * more and compared with the original: a kept page must come back intact
 * and a rejected one must miss; zc_cache_check() must pass.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _POSIX_C_SOURCE 200809L /* pthread barriers, clock_gettime */
#include "threads.h"

#include <lzo/lzo1x.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One thread's share of a phase. */
struct worker {
    pthread_t tid;
    const page_set *ps;
    zc_cache *c;
    int pool;
    unsigned me, nthreads;
    int what;         /* the phase: PHASE_LZO, PHASE_PUT or PHASE_GET */
    uint8_t *wrkmem;  /* PHASE_LZO: liblzo2's work memory, this thread's */
    int *rcs;         /* per page: the put's outcome (shared, disjoint) */
    uint8_t *scratch; /* a page */
    int err;          /* a library error, < 0 */
    pthread_barrier_t *go;
    uint64_t t0, t1; /* its own start (after the barrier) and end */
};

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Whether page i is thread t's (of n): blocks of BENCH_BLOCK_PAGES dealt
 * round-robin. */
/* A thread's scratch: a page, or an LZO output of one. */
#define SCRATCH_BYTES(ps) ((ps) + (ps) / 16 + 64 + 3)

static bool mine(size_t i, unsigned t, unsigned n)
{
    return (i / BENCH_BLOCK_PAGES) % n == t;
}

enum { PHASE_LZO, PHASE_PUT, PHASE_GET };

static void *work(void *arg)
{
    struct worker *w = arg;
    const page_set *ps = w->ps;

    pthread_barrier_wait(w->go);
    w->t0 = now_ns();
    for (size_t i = 0; i < ps->n && !w->err; i++) {
        if (!mine(i, w->me, w->nthreads))
            continue;
        if (w->what == PHASE_LZO) {
            lzo_uint out_len;
            if (lzo1x_1_compress(page_at(ps, i), ps->page_size, w->scratch,
                                 &out_len, w->wrkmem) != LZO_E_OK)
                w->err = -ZC_ECORRUPT;
        } else if (w->what == PHASE_PUT) {
            w->rcs[i] = zc_put_page(w->c, w->pool, &ps->keys[i], ps->index[i],
                                    page_at(ps, i));
            if (w->rcs[i] < 0)
                w->err = w->rcs[i];
        } else if (w->rcs[i] == 0) {
            int rc = zc_get_page(w->c, w->pool, &ps->keys[i], ps->index[i],
                                 w->scratch);
            if (rc < 0 && rc != -ZC_ENOENT)
                w->err = rc;
        }
    }
    w->t1 = now_ns();
    return NULL;
}

/* One phase with n threads; its wall time, from the first thread's start
 * to the last one's end (each thread reads the clock itself: the main
 * thread may be descheduled after the barrier), or 0 on a failure (err). */
static uint64_t phase(const page_set *ps, zc_cache *c, int pool, unsigned n,
                      int what, int *rcs, uint8_t *scratch, int *err)
{
    struct worker *w = bench_xcalloc(n, sizeof(*w));
    uint8_t *wrk = what == PHASE_LZO
                       ? bench_xmalloc((size_t)n * LZO1X_1_MEM_COMPRESS)
                       : NULL;
    pthread_barrier_t go;
    uint64_t t0 = UINT64_MAX, t1 = 0;
    unsigned started = 0;

    if (pthread_barrier_init(&go, NULL, n + 1))
        bench_die("pthread_barrier_init failed");
    for (unsigned t = 0; t < n; t++) {
        w[t] = (struct worker){
            .ps = ps,
            .c = c,
            .pool = pool,
            .me = t,
            .nthreads = n,
            .what = what,
            .rcs = rcs,
            .scratch = scratch + (size_t)t * SCRATCH_BYTES(ps->page_size),
            .wrkmem = wrk ? wrk + (size_t)t * LZO1X_1_MEM_COMPRESS : NULL,
            .go = &go};
        if (pthread_create(&w[t].tid, NULL, work, &w[t]))
            bench_die("pthread_create failed");
        started++;
    }
    pthread_barrier_wait(&go);
    for (unsigned t = 0; t < started; t++)
        pthread_join(w[t].tid, NULL);
    pthread_barrier_destroy(&go);
    for (unsigned t = 0; t < started; t++) {
        if (w[t].t0 < t0)
            t0 = w[t].t0;
        if (w[t].t1 > t1)
            t1 = w[t].t1;
    }
    for (unsigned t = 0; t < n; t++)
        if (w[t].err && !*err)
            *err = w[t].err;
    free(w);
    free(wrk);
    return *err ? 0 : t1 - t0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

static uint64_t median(uint64_t *v, unsigned n)
{
    qsort(v, n, sizeof(*v), cmp_u64);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Every page once more: kept ones intact, rejected ones missing. */
static void verify(const page_set *ps, zc_cache *c, int pool, const int *rcs,
                   uint8_t *scratch, bench_threads_result *r)
{
    for (size_t i = 0; i < ps->n; i++) {
        int rc = zc_get_page(c, pool, &ps->keys[i], ps->index[i], scratch);
        if (rcs[i] == 0 && rc != 0)
            r->misses++;
        else if (rcs[i] == 0 && memcmp(scratch, page_at(ps, i), ps->page_size))
            r->wrong++;
        else if (rcs[i] != 0 && rc == 0)
            r->wrong++;
    }
    r->check_rc = zc_cache_check(c);
}

void bench_threads_run(const page_set *ps, const char *allocator,
                       unsigned nthreads, unsigned runs,
                       bench_threads_result *r)
{
    const unsigned counts[2] = {1, nthreads};
    uint64_t *t_put[2], *t_get[2], *t_lzo[2];
    int *rcs = bench_xmalloc(ps->n * sizeof(*rcs));
    uint8_t *scratch =
        bench_xmalloc((size_t)nthreads * SCRATCH_BYTES(ps->page_size));

    memset(r, 0, sizeof(*r));
    r->threads = nthreads;
    r->allocator = allocator;
    r->pages = ps->n;
    for (int k = 0; k < 2; k++) {
        t_put[k] = bench_xcalloc(runs, sizeof(uint64_t));
        t_get[k] = bench_xcalloc(runs, sizeof(uint64_t));
        t_lzo[k] = bench_xcalloc(runs, sizeof(uint64_t));
    }
    for (unsigned run = 0; run < runs && !r->err; run++) {
        for (int k = 0; k < 2 && !r->err; k++) {
            zc_config cfg = zc_config_default();
            zc_cache *c = NULL;
            int pool, rc;
            cfg.capacity_bytes = ps->n * ps->page_size;
            cfg.compressor = "lzo";
            cfg.allocator = allocator;
            cfg.exclusive_gets = false;
            if ((rc = zc_cache_create(&cfg, &c)) < 0) {
                r->err = rc;
                break;
            }
            if ((pool = zc_init_fs(c, ps->page_size)) < 0) {
                r->err = pool;
                zc_cache_destroy(c);
                break;
            }
            /* the machine's own scaling: liblzo2 alone, the same pages */
            t_lzo[k][run] = phase(ps, NULL, -1, counts[k], PHASE_LZO, rcs,
                                  scratch, &r->err);
            if (!r->err)
                t_put[k][run] = phase(ps, c, pool, counts[k], PHASE_PUT, rcs,
                                      scratch, &r->err);
            if (!r->err)
                t_get[k][run] = phase(ps, c, pool, counts[k], PHASE_GET, rcs,
                                      scratch, &r->err);
            if (!r->err && run == runs - 1 && k == 1) {
                for (size_t i = 0; i < ps->n; i++)
                    r->kept += rcs[i] == 0;
                verify(ps, c, pool, rcs, scratch, r);
            }
            zc_cache_destroy(c);
        }
    }
    if (!r->err)
        for (int k = 0; k < 2; k++) {
            r->put_ns[k] = median(t_put[k], runs);
            r->get_ns[k] = median(t_get[k], runs);
            r->lzo_ns[k] = median(t_lzo[k], runs);
        }
    for (int k = 0; k < 2; k++) {
        free(t_put[k]);
        free(t_get[k]);
        free(t_lzo[k]);
    }
    free(scratch);
    free(rcs);
}

static double per_s(size_t n, uint64_t ns)
{
    return ns ? (double)n * 1e9 / (double)ns : 0.0;
}

static double scale(const uint64_t ns[2])
{
    return ns[1] ? (double)ns[0] / (double)ns[1] : 0.0;
}

void bench_threads_text(FILE *f, const bench_threads_result *r)
{
    fprintf(f,
            "\nthreads: puts and gets into one cache (%s, lzo), pages dealt "
            "to the threads\nin blocks of %u, distinct keys; median wall "
            "time of the runs:\n",
            r->allocator, BENCH_BLOCK_PAGES);
    if (r->err) {
        fprintf(f, "  FAILED: %s\n", zc_strerror(r->err));
        return;
    }
    fprintf(f, "  %-10s %14s %11u threads %6s\n", "", "1 thread", r->threads,
            "ratio");
    fprintf(f,
            "  %-10s %9.0f pg/s %14.0f pg/s  %6.2fx  (liblzo2 alone: the "
            "machine's scaling)\n",
            "lzo", per_s(r->pages, r->lzo_ns[0]), per_s(r->pages, r->lzo_ns[1]),
            scale(r->lzo_ns));
    fprintf(f, "  %-10s %9.0f pg/s %14.0f pg/s  %6.2fx  (%zu pages)\n", "put",
            per_s(r->pages, r->put_ns[0]), per_s(r->pages, r->put_ns[1]),
            scale(r->put_ns), r->pages);
    fprintf(f, "  %-10s %9.0f pg/s %14.0f pg/s  %6.2fx  (%zu kept pages)\n",
            "get", per_s(r->kept, r->get_ns[0]), per_s(r->kept, r->get_ns[1]),
            scale(r->get_ns), r->kept);
    fprintf(f,
            "  put scaling / lzo scaling: %.2f (1.00: puts scale as the "
            "compression they do)\n",
            scale(r->lzo_ns) ? scale(r->put_ns) / scale(r->lzo_ns) : 0.0);
    fprintf(f,
            "  after the last run: %zu misses, %zu wrong pages, "
            "zc_cache_check %s\n",
            r->misses, r->wrong, r->check_rc ? zc_strerror(r->check_rc) : "ok");
}

void bench_threads_json(FILE *f, const bench_threads_result *r)
{
    fprintf(f,
            "\"threads\":{\"threads\":%u,\"allocator\":\"%s\",\"pages\":%zu,"
            "\"kept\":%zu,\"error\":%d,\"put_ns_1\":%llu,\"put_ns_n\":%llu,"
            "\"get_ns_1\":%llu,\"get_ns_n\":%llu,\"lzo_ns_1\":%llu,"
            "\"lzo_ns_n\":%llu,\"put_scaling\":%.4f,\"get_scaling\":%.4f,"
            "\"lzo_scaling\":%.4f,\"misses\":%zu,\"wrong_data\":%zu,"
            "\"check\":%d}",
            r->threads, r->allocator, r->pages, r->kept, r->err,
            (unsigned long long)r->put_ns[0], (unsigned long long)r->put_ns[1],
            (unsigned long long)r->get_ns[0], (unsigned long long)r->get_ns[1],
            (unsigned long long)r->lzo_ns[0], (unsigned long long)r->lzo_ns[1],
            scale(r->put_ns), scale(r->get_ns), scale(r->lzo_ns), r->misses,
            r->wrong, r->check_rc);
}

bool bench_threads_failed(const bench_threads_result *r)
{
    return r->err || r->misses || r->wrong || r->check_rc;
}
