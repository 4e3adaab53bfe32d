/*
 * sim/run/fanout.c - one op stream played into many caches, in lockstep.
 *
 * A sweep runs many zcache configurations behind one page-cache size.  The
 * page-cache model's op stream does not depend on the zcache behind it, so
 * the model runs once and its ops fan out to every configuration's player.
 * Ops are collected in a batch (the pages of its puts copied, since the
 * source's buffer is reused); when the batch is full it is played in two
 * phases by `threads` threads, the caller's among them:
 *
 *   prepare   each distinct compression (zc_memo_shared()) of the batch's
 *             pages is done once, the pages striped over the threads, into
 *             the shared memo;
 *   apply     each thread plays the whole batch, in order, into its share
 *             of the players (player g goes to thread g % threads).
 *
 * Every player sees every op in order, so each ends exactly as if it had
 * been given the stream alone; the memo only saves the work of compressing
 * a content more than once (and is cleared after each batch, since every
 * cache has put the batch's pages by then).  A player whose op fails keeps
 * that first error and gets no more ops; the others go on.
 *
 * The threads wait on one condition variable between phases (a generation
 * counter says a phase is ready; the last thread done wakes the caller).
 * They start at the first flush, as many as asked and as there are
 * players; if one cannot start, fewer play (the result is the same).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zcache.h"
#include "zcache_sim.h"

enum { BATCH_OPS = 8192, BATCH_PAGES = 1024, MAX_THREADS = 64 };

enum phase { PREPARE, APPLY };

struct member {
    zc_player *player;
    zc_cache *zc;
    bool prepares; /* the first of its kind of compression */
    int rc;
};

struct zc_fanout {
    size_t page_size;
    zc_memo *memo;
    int want_threads, nthreads;
    struct member *m;
    size_t n, cap;
    bool started;

    zc_op *ops;
    unsigned char *pages;
    size_t nops, npages;

    pthread_t th[MAX_THREADS];
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    unsigned long gen;
    enum phase phase;
    int pending;
    bool stop;
};

int zc_fanout_create(size_t page_size, int threads, zc_memo *memo,
                     zc_fanout **out)
{
    zc_fanout *f;

    if (!out)
        return -ZC_EINVAL;
    *out = NULL;
    if (page_size < 512 || page_size > 65536 ||
        (page_size & (page_size - 1)) || threads < 1 || threads > MAX_THREADS)
        return -ZC_EINVAL;
    f = calloc(1, sizeof(*f));
    if (!f)
        return -ZC_ENOMEM;
    f->page_size = page_size;
    f->memo = memo;
    f->want_threads = threads;
    f->ops = malloc(BATCH_OPS * sizeof(*f->ops));
    f->pages = malloc((size_t)BATCH_PAGES * page_size);
    if (!f->ops || !f->pages) {
        free(f->ops);
        free(f->pages);
        free(f);
        return -ZC_ENOMEM;
    }
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->work, NULL);
    pthread_cond_init(&f->done, NULL);
    *out = f;
    return 0;
}

int zc_fanout_add(zc_fanout *f, zc_player *p, zc_cache *zc)
{
    struct member *m;

    if (!f || !p || f->started || f->nops ||
        (zc && zc_cache_page_size(zc) != f->page_size))
        return -ZC_EINVAL;
    for (size_t k = 0; k < f->n; k++)
        if (f->m[k].player == p)
            return -ZC_EINVAL; /* two threads would drive it at once */
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 16;
        m = realloc(f->m, cap * sizeof(*m));
        if (!m)
            return -ZC_ENOMEM;
        f->m = m;
        f->cap = cap;
    }
    m = &f->m[f->n++];
    *m = (struct member){.player = p, .zc = zc, .prepares = zc != NULL};
    for (size_t k = 0; m->prepares && k + 1 < f->n; k++)
        if (f->m[k].prepares && zc_memo_shared(f->m[k].zc, zc))
            m->prepares = false;
    return 0;
}

/* Thread t's part of a phase. */
static void run_part(zc_fanout *f, int t, enum phase ph)
{
    const size_t nt = (size_t)f->nthreads;

    if (ph == PREPARE) {
        for (size_t g = 0; f->memo && g < f->n; g++)
            if (f->m[g].prepares)
                for (size_t p = (size_t)t; p < f->npages; p += nt)
                    zc_memo_prepare(f->memo, f->m[g].zc,
                                    f->pages + p * f->page_size);
        return;
    }
    for (size_t g = (size_t)t; g < f->n; g += nt) {
        struct member *m = &f->m[g];
        for (size_t i = 0; !m->rc && i < f->nops; i++)
            m->rc = zc_player_op(m->player, &f->ops[i]);
    }
}

/* The phase on every thread; back when all are done. */
static void run_phase(zc_fanout *f, enum phase ph)
{
    pthread_mutex_lock(&f->mu);
    f->phase = ph;
    f->pending = f->nthreads;
    f->gen++;
    pthread_cond_broadcast(&f->work);
    pthread_mutex_unlock(&f->mu);
    run_part(f, 0, ph);
    pthread_mutex_lock(&f->mu);
    f->pending--;
    while (f->pending)
        pthread_cond_wait(&f->done, &f->mu);
    pthread_mutex_unlock(&f->mu);
}

struct worker_arg {
    zc_fanout *f;
    int t;
};

static void *worker(void *arg)
{
    zc_fanout *f = ((struct worker_arg *)arg)->f;
    int t = ((struct worker_arg *)arg)->t;
    unsigned long seen;

    free(arg);
    pthread_mutex_lock(&f->mu);
    seen = 0; /* threads start before the first phase: gen 0 is not one */
    for (;;) {
        enum phase ph;
        while (f->gen == seen && !f->stop)
            pthread_cond_wait(&f->work, &f->mu);
        if (f->stop)
            break;
        seen = f->gen;
        ph = f->phase;
        pthread_mutex_unlock(&f->mu);
        run_part(f, t, ph);
        pthread_mutex_lock(&f->mu);
        if (--f->pending == 0)
            pthread_cond_signal(&f->done);
    }
    pthread_mutex_unlock(&f->mu);
    return NULL;
}

/* Start the threads, once: as many as wanted and as there are players
 * (the caller is thread 0).  One that cannot start is done without. */
static void start(zc_fanout *f)
{
    int want = f->want_threads < (int)f->n ? f->want_threads : (int)f->n;

    f->started = true;
    f->nthreads = 1;
    for (int t = 1; t < want; t++) {
        struct worker_arg *a = malloc(sizeof(*a));
        if (!a)
            break;
        *a = (struct worker_arg){f, t};
        if (pthread_create(&f->th[t], NULL, worker, a)) {
            free(a);
            break;
        }
        f->nthreads++;
    }
}

int zc_fanout_flush(zc_fanout *f)
{
    if (!f)
        return -ZC_EINVAL;
    if (!f->nops)
        return 0;
    if (!f->started)
        start(f);
    run_phase(f, PREPARE);
    run_phase(f, APPLY);
    f->nops = f->npages = 0;
    /* every cache has put this batch's pages: their compressed forms are
     * of no more use (a content met again is compressed again) */
    if (f->memo)
        zc_memo_clear(f->memo);
    return 0;
}

int zc_fanout_sink(void *ctx, const zc_op *op)
{
    zc_fanout *f = ctx;
    zc_op *o;

    if (!f || !op)
        return -ZC_EINVAL;
    if (f->nops == BATCH_OPS ||
        (op->kind == ZC_OP_PUT && op->page && f->npages == BATCH_PAGES))
        zc_fanout_flush(f);
    /* every pool's pages are page_size bytes: that is what is copied */
    if ((op->kind == ZC_OP_INIT_FS || op->kind == ZC_OP_INIT_SHARED_FS) &&
        op->page_size != f->page_size)
        return -ZC_EINVAL;
    o = &f->ops[f->nops++];
    *o = *op;
    if (op->kind == ZC_OP_PUT && op->page) {
        unsigned char *pg = f->pages + f->npages++ * f->page_size;
        memcpy(pg, op->page, f->page_size);
        o->page = pg;
    } else {
        o->page = NULL; /* only a put's page is read */
    }
    return 0;
}

int zc_fanout_status(const zc_fanout *f, size_t i)
{
    return f && i < f->n ? f->m[i].rc : -ZC_EINVAL;
}

void zc_fanout_destroy(zc_fanout *f)
{
    if (!f)
        return;
    pthread_mutex_lock(&f->mu);
    f->stop = true;
    pthread_cond_broadcast(&f->work);
    pthread_mutex_unlock(&f->mu);
    for (int t = 1; t < f->nthreads; t++)
        pthread_join(f->th[t], NULL);
    pthread_mutex_destroy(&f->mu);
    pthread_cond_destroy(&f->work);
    pthread_cond_destroy(&f->done);
    free(f->m);
    free(f->ops);
    free(f->pages);
    free(f);
}
