/*
 * sim/sweep/run.c - running a sweep's jobs.
 *
 * A group (one trace at one page-cache size) runs the model once, through
 * a session whose sink is a fan-out (zc_fanout) to one player per row:
 * every row sees every op in order, in batches over the worker threads,
 * each distinct content compressed once into the sweep's memo, so each
 * row ends exactly as a session of its configuration alone would.  The
 * session also feeds the LRU curve (zc_mrc), whose hits at the row's size
 * must equal the model's when the model is exact LRU.  An adaptive row
 * runs a session of its own with the controller (no memo: its CPU is its
 * own; its CPU prices fixed before any row ran, prices.c), an op stream's
 * row a session of the stream into its cache; those run a row a thread.
 *
 * What fails for one row (its zcache cannot be made, its player failed)
 * is the row's; what fails for the group's pass (the trace, its content)
 * stops the run, as no row of it could be right.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"

/* The cache of row i (NULL for "off"), with the memo when memo: 0, or
 * the row's failure, said in the row. */
static int open_cache(zc_sweep *sw, size_t i, bool memo, zc_cache **zc)
{
    struct zc__sweep_row *r = &sw->rows[i];
    zc_config cfg = {0};
    int rc;

    *zc = NULL;
    if (!r->spec[0])
        return 0;
    rc = zc_cache_open(r->spec, sw->o.page_size, 0, memo ? sw->memo : NULL,
                       &cfg, zc, r->err, sizeof(r->err));
    if (cfg.compressor) {
        zc_config_format(&cfg, r->config, sizeof(r->config));
        snprintf(r->compressor, sizeof(r->compressor), "%s", cfg.compressor);
    }
    return sw->rpub[i].rc = rc;
}

/* ---- progress ----------------------------------------------------------- */

struct progress {
    zc_sweep *sw;
    size_t job;
};

static int progress(void *ctx, const zc_session *s)
{
    struct progress *p = ctx;
    zc_sweep *sw = p->sw;
    size_t done;

    if (!sw->progress)
        return 0;
    pthread_mutex_lock(&sw->lock);
    done = sw->jobs_done;
    pthread_mutex_unlock(&sw->lock);
    return sw->progress(sw->progress_ctx, p->job, zc_session_requests(s), done);
}

static int job_started(zc_sweep *sw, size_t job)
{
    struct progress p = {sw, job};

    if (!sw->progress)
        return 0;
    pthread_mutex_lock(&sw->lock);
    size_t done = sw->jobs_done;
    pthread_mutex_unlock(&sw->lock);
    return p.sw->progress(sw->progress_ctx, job, 0, done);
}

static void job_done(zc_sweep *sw)
{
    pthread_mutex_lock(&sw->lock);
    sw->jobs_done++;
    pthread_mutex_unlock(&sw->lock);
}

/* ---- sessions ----------------------------------------------------------- */

/* A session of trace u, as the sweep opens it (content when needed). */
int zc__sweep_open_session(zc_sweep *sw, size_t u, bool need_content,
                           zc_session **s, char *err, size_t errlen)
{
    const struct zc__sweep_trace *t = &sw->traces[u];
    zc_session_options so = {0};

    so.format = sw->tpub[u].is_ops ? "zct" : t->format ? t->format : sw->format;
    so.page_size = sw->o.page_size;
    so.content = sw->tpub[u].is_ops ? NULL : t->used;
    so.no_content = !need_content;
    so.model = sw->model;
    so.read_ahead_set = sw->o.read_ahead_set;
    so.read_ahead_kb = sw->o.read_ahead_kb;
    return zc_session_open((const char *const *)t->paths, sw->tpub[u].npaths,
                           &so, s, err, errlen);
}

/* The LRU curve of a job's pass: its hits at each row's size, checked
 * against the model's when the model is exact LRU; the --mrc sizes too
 * when the job is its trace's first. */
static void take_curve(zc_sweep *sw, const zc_sweep_job *j, zc_mrc *mrc)
{
    struct zc__sweep_trace *u = &sw->traces[j->trace];
    zc_sweep_trace *t = &sw->tpub[j->trace];
    bool lru = !strcmp(sw->model, "lru");

    for (size_t i = j->first_row; i < j->first_row + j->nrows; i++) {
        zc_sweep_row *r = &sw->rpub[i];
        r->mrc_hits = zc_mrc_hits(mrc, r->page_cache_pages);
        if (lru && !r->adaptive && !r->rc && r->mrc_hits != r->st.pc_hits) {
            snprintf(sw->rows[i].err, sizeof(sw->rows[i].err),
                     "internal error: LRU curve %" PRIu64
                     " hits, model %" PRIu64 " at %" PRIu64 " pages",
                     r->mrc_hits, r->st.pc_hits, r->page_cache_pages);
            r->rc = -ZC_ECORRUPT;
        }
    }
    if (!j->curve)
        return;
    t->have_curve = true;
    t->curve_accesses = zc_mrc_accesses(mrc);
    t->curve_distinct = zc_mrc_distinct(mrc);
    for (size_t i = 0; i < sw->nmrc; i++)
        u->curve_hits[i] = zc_mrc_hits(mrc, sw->mrc_pages[i]);
}

/* Row i's counters at its end, and its cache and player gone. */
static void row_finish(zc_sweep *sw, size_t i)
{
    struct zc__sweep_row *r = &sw->rows[i];
    zc_sweep_row *p = &sw->rpub[i];

    if (r->player)
        zc_player_stats_get(r->player, &p->st);
    if (r->zc) {
        zc_stats_get(r->zc, &p->zs);
        p->have_zs = true;
        /* a --set capacity=... overrides the list's: the cache's */
        p->capacity_bytes = p->zs.capacity_bytes;
    }
    zc_player_destroy(r->player);
    zc_cache_destroy(r->zc);
    r->player = NULL;
    r->zc = NULL;
}

/* The session's failure as row i's. */
static void row_failed(zc_sweep *sw, size_t i, int rc, const char *msg)
{
    snprintf(sw->rows[i].err, sizeof(sw->rows[i].err), "%.1000s",
             msg && *msg ? msg : zc_strerror(rc));
    sw->rpub[i].rc = rc;
}

/* Row i about to run: its results of any earlier run gone. */
static void row_start(zc_sweep *sw, size_t i)
{
    zc_sweep_row *p = &sw->rpub[i];

    memset(&p->st, 0, sizeof(p->st));
    memset(&p->zs, 0, sizeof(p->zs));
    p->have_zs = false;
    p->mrc_hits = 0;
    p->rc = 0;
    sw->rows[i].err[0] = '\0';
    free(sw->rows[i].epochs);
    sw->rows[i].epochs = NULL;
    p->epochs = NULL;
    p->nepochs = 0;
}

/* ---- a group: one model pass, many caches ------------------------------- */

static int group_players(zc_sweep *sw, const zc_sweep_job *j, zc_fanout *fan,
                         bool *need_content)
{
    for (size_t i = j->first_row; i < j->first_row + j->nrows; i++) {
        struct zc__sweep_row *r = &sw->rows[i];
        if (open_cache(sw, i, true, &r->zc))
            continue;
        if (zc_player_create(r->zc, &r->player) ||
            zc_fanout_add(fan, r->player, r->zc))
            return -ZC_ENOMEM;
        /* contents only for puts into a zcache */
        *need_content |= r->zc != NULL;
    }
    return 0;
}

static int run_group(zc_sweep *sw, size_t job)
{
    const zc_sweep_job *j = &sw->jobs[job];
    zc_session_run_options ro = {0};
    struct progress pg = {sw, job};
    zc_replay_stats model;
    zc_session *s = NULL;
    zc_fanout *fan = NULL;
    zc_mrc *mrc = NULL;
    bool need_content = false;
    char err[1024];
    int rc;

    for (size_t i = j->first_row; i < j->first_row + j->nrows; i++)
        row_start(sw, i);
    if ((rc = zc_fanout_create(sw->o.page_size, sw->o.threads, sw->memo,
                               &fan)) ||
        (rc = zc_mrc_create(&mrc)) ||
        (rc = group_players(sw, j, fan, &need_content))) {
        rc = zc__sweep_fail(sw, rc, "%s", zc_strerror(rc));
        goto out;
    }
    if ((rc = zc__sweep_open_session(sw, j->trace, need_content, &s, err,
                                     sizeof(err)))) {
        rc = zc__sweep_fail(sw, rc, "%s", err);
        goto out;
    }
    ro.page_cache_pages = sw->rpub[j->first_row].page_cache_pages;
    ro.sink = zc_fanout_sink;
    ro.sink_ctx = fan;
    ro.mrc = mrc;
    ro.progress = progress;
    ro.progress_ctx = &pg;
    if ((rc = zc_session_run(s, &ro))) {
        rc = -ZC_ENOMEM == rc && !zc_session_replay(s)
                 ? zc__sweep_fail(sw, rc, "%s: %s",
                                  sw->memory ? "--memory" : "--page-cache",
                                  zc_session_error(s))
                 : zc__sweep_fail(sw, rc, "%s", zc_session_error(s));
        goto out;
    }
    sw->tpub[j->trace].requests = zc_session_requests(s);
    zc_fanout_flush(fan);
    zc_session_stats(s, &model);
    /* the requests are the model's (one pass for the group); the rest is
     * each row's player's */
    for (size_t i = j->first_row, k = 0; i < j->first_row + j->nrows; i++) {
        struct zc__sweep_row *r = &sw->rows[i];
        int prc = r->player ? zc_fanout_status(fan, k++) : 0;
        if (prc) {
            snprintf(r->err, sizeof(r->err), "%s", zc_strerror(prc));
            sw->rpub[i].rc = prc;
        }
        row_finish(sw, i);
        sw->rpub[i].st.requests = model.requests;
    }
    take_curve(sw, j, mrc);
out:
    zc_fanout_destroy(fan);
    zc_session_close(s);
    zc_mrc_destroy(mrc);
    for (size_t i = j->first_row; i < j->first_row + j->nrows; i++) {
        row_finish(sw, i); /* (after a failure: the caches go) */
        if (rc)            /* no row of a pass that failed is right */
            row_failed(sw, i, rc, sw->err);
    }
    return rc;
}

/* ---- a row a thread: adaptive rows, op streams' rows -------------------- */

/* One adaptive row: the whole pipeline with the controller, on its own
 * (no memo: its CPU is its own); its capacity stays all of M, which the
 * controller moves. */
static void run_adaptive(zc_sweep *sw, size_t job)
{
    const zc_sweep_job *j = &sw->jobs[job];
    size_t i = j->first_row;
    struct zc__sweep_row *r = &sw->rows[i];
    zc_session_run_options ro = {0};
    struct progress pg = {sw, job};
    zc_adapt_options ao = sw->o.adapt;
    const zc_adapt_epoch *e;
    zc_session *s = NULL;
    zc_mrc *mrc = NULL;
    zc_cache *zc = NULL;
    char err[1024];
    int rc;

    ao.controller = sw->rpub[i].controller;
    ao.put_ns = sw->rpub[i].put_ns; /* (fixed before any row ran) */
    ao.get_ns = sw->rpub[i].get_ns;
    row_start(sw, i);
    if (open_cache(sw, i, false, &zc))
        return;
    if ((rc = zc_mrc_create(&mrc))) {
        row_failed(sw, i, rc, NULL);
        goto out;
    }
    if ((rc = zc__sweep_open_session(sw, j->trace, true, &s, err,
                                     sizeof(err)))) {
        row_failed(sw, i, rc, err);
        goto out;
    }
    ro.page_cache_pages = sw->rpub[i].page_cache_pages;
    ro.zcache = zc;
    ro.adapt = &ao;
    ro.mrc = mrc;
    ro.progress = progress;
    ro.progress_ctx = &pg;
    if ((rc = zc_session_run(s, &ro))) {
        row_failed(sw, i, rc, zc_session_error(s));
        goto out;
    }
    zc_session_stats(s, &sw->rpub[i].st);
    zc_stats_get(zc, &sw->rpub[i].zs);
    sw->rpub[i].have_zs = true;
    sw->rpub[i].nepochs = zc_replay_adapt_log(zc_session_replay(s), &e);
    free(r->epochs);
    r->epochs =
        malloc((sw->rpub[i].nepochs ? sw->rpub[i].nepochs : 1) * sizeof(*e));
    if (!r->epochs) {
        sw->rpub[i].nepochs = 0;
        row_failed(sw, i, -ZC_ENOMEM, NULL);
        goto out;
    }
    if (sw->rpub[i].nepochs) /* (no epoch ended: e may be NULL) */
        memcpy(r->epochs, e, sw->rpub[i].nepochs * sizeof(*e));
    sw->rpub[i].epochs = r->epochs;
    take_curve(sw, j, mrc);
out:
    zc_session_close(s);
    zc_mrc_destroy(mrc);
    zc_cache_destroy(zc);
}

/* Row i of an op stream: the stream into its cache. */
static void run_ops_row(zc_sweep *sw, size_t job, size_t i)
{
    const zc_sweep_job *j = &sw->jobs[job];
    struct zc__sweep_row *r = &sw->rows[i];
    zc_session_run_options ro = {0};
    struct progress pg = {sw, job};
    zc_session *s = NULL;
    char err[1024];
    int rc;

    row_start(sw, i);
    if (open_cache(sw, i, false, &r->zc))
        return;
    if ((rc = zc__sweep_open_session(sw, j->trace, false, &s, err,
                                     sizeof(err)))) {
        row_failed(sw, i, rc, err);
        row_finish(sw, i);
        return;
    }
    ro.zcache = r->zc;
    ro.progress = progress;
    ro.progress_ctx = &pg;
    if ((rc = zc_session_run(s, &ro)))
        row_failed(sw, i, rc, zc_session_error(s));
    zc_session_stats(s, &sw->rpub[i].st);
    zc_session_close(s);
    zc_player_destroy(r->player);
    r->player = NULL;
    row_finish(sw, i);
}

/* The rows that run a row a thread, and which job each is of.  Threads
 * take the next one until none is left (or the run is stopped). */
struct pool {
    zc_sweep *sw;
    size_t *row, *job, n, next;
    bool stop;
};

static void *worker(void *arg)
{
    struct pool *p = arg;
    zc_sweep *sw = p->sw;

    for (;;) {
        size_t i, job;
        pthread_mutex_lock(&sw->lock);
        if (p->stop || p->next == p->n) {
            pthread_mutex_unlock(&sw->lock);
            return NULL;
        }
        i = p->row[p->next];
        job = p->job[p->next++];
        pthread_mutex_unlock(&sw->lock);
        if (job_started(sw, job)) {
            sw->rpub[i].rc = -ZC_ECANCELED; /* (its err: "not run") */
        } else if (sw->jobs[job].kind == ZC_SWEEP_ADAPTIVE)
            run_adaptive(sw, job);
        else
            run_ops_row(sw, job, i);
        pthread_mutex_lock(&sw->lock);
        p->stop |= sw->rpub[i].rc == -ZC_ECANCELED;
        pthread_mutex_unlock(&sw->lock);
        /* a job of an op stream is done with its last row */
        if (i == sw->jobs[job].first_row + sw->jobs[job].nrows - 1)
            job_done(sw);
    }
}

static int run_pool(zc_sweep *sw, const size_t *jobs, size_t n)
{
    struct pool p = {.sw = sw};
    pthread_t th[64];
    int nt, started = 0;

    for (size_t k = 0; k < n; k++)
        p.n += sw->jobs[jobs[k]].nrows;
    if (!p.n)
        return 0;
    p.row = malloc(p.n * sizeof(*p.row));
    p.job = malloc(p.n * sizeof(*p.job));
    if (!p.row || !p.job) {
        free(p.row);
        free(p.job);
        return zc__sweep_fail(sw, -ZC_ENOMEM, "%s", "out of memory");
    }
    p.n = 0;
    for (size_t k = 0; k < n; k++)
        for (size_t r = 0; r < sw->jobs[jobs[k]].nrows; r++) {
            p.row[p.n] = sw->jobs[jobs[k]].first_row + r;
            p.job[p.n++] = jobs[k];
        }
    nt = p.n < (size_t)sw->o.threads ? (int)p.n : sw->o.threads;
    for (int t = 0; t < nt; t++)
        if (!pthread_create(&th[t], NULL, worker, &p))
            started++;
    if (!started) /* no thread could start: this one works */
        worker(&p);
    for (int t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    free(p.row);
    free(p.job);
    return p.stop ? zc__sweep_fail(sw, -ZC_ECANCELED, "%s",
                                   "stopped by the caller")
                  : 0;
}

int zc__sweep_run_jobs(zc_sweep *sw, const size_t *jobs, size_t n)
{
    size_t *rest = malloc((n ? n : 1) * sizeof(*rest)), nrest = 0;
    int rc = 0;

    if (!rest)
        return zc__sweep_fail(sw, -ZC_ENOMEM, "%s", "out of memory");
    for (size_t k = 0; k < n && !rc; k++)
        if (sw->jobs[jobs[k]].kind == ZC_SWEEP_GROUP) {
            if (!(rc = job_started(sw, jobs[k])
                           ? zc__sweep_fail(sw, -ZC_ECANCELED, "%s",
                                            "stopped by the caller")
                           : run_group(sw, jobs[k])))
                job_done(sw);
        } else {
            rest[nrest++] = jobs[k];
        }
    if (!rc)
        rc = run_pool(sw, rest, nrest);
    free(rest);
    return rc;
}

int zc_sweep_run(zc_sweep *sw, const size_t *jobs, size_t n,
                 zc_sweep_progress fn, void *ctx)
{
    size_t *all = NULL;
    char *seen;
    int rc;

    if (!sw || (n && !jobs))
        return -ZC_EINVAL;
    if (!sw->prepared)
        return zc__sweep_fail(
            sw, -ZC_EINVAL, "%s",
            "a sweep runs once prepared (zc_sweep_prepare())");
    if (!jobs && !n) {
        if (!(all = malloc((sw->njobs ? sw->njobs : 1) * sizeof(*all))))
            return -ZC_ENOMEM;
        for (size_t k = 0; k < sw->njobs; k++)
            all[k] = k;
        jobs = all;
        n = sw->njobs;
    }
    if (!(seen = calloc(sw->njobs ? sw->njobs : 1, 1))) {
        free(all);
        return -ZC_ENOMEM;
    }
    for (size_t k = 0; k < n; k++) {
        rc = jobs[k] >= sw->njobs
                 ? zc__sweep_fail(sw, -ZC_EINVAL,
                                  "job %zu: the sweep has jobs 0 to %zu",
                                  jobs[k], sw->njobs - 1)
             : seen[jobs[k]]++ ? zc__sweep_fail(sw, -ZC_EINVAL,
                                                "job %zu given twice", jobs[k])
                               : 0;
        if (rc) {
            free(all);
            free(seen);
            return rc;
        }
    }
    free(seen);
    sw->progress = fn;
    sw->progress_ctx = ctx;
    sw->jobs_done = 0;
    /* the controllers' prices, before any row runs */
    if (!(rc = zc__sweep_fix_prices(sw, jobs, n)))
        rc = zc__sweep_run_jobs(sw, jobs, n);
    free(all);
    return rc;
}
