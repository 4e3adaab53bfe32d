/*
 * sim/fidelity/compare.c - the work of a fidelity run
 * (zc_fidelity_compare(), zcache_sim.h), sequential, each file read once:
 *   1. the access stream into memory, each request with the kernel's
 *      resident count its file system last sampled (64 bytes a request):
 *      the samples' median is known before any replay, and every replay
 *      takes the requests from memory without reading or parsing again.
 *      A sample is counted (for the median) when a request of its file
 *      system sees a new value: exactly the recorder's samples, which it
 *      writes only when the count changed, each before an access;
 *   2. the kernel stream, once: its counts, its pool-0 evictions in order,
 *      and pool 0 played into every capacity's zcache in lockstep;
 *   3. each row (a model at a size): one replay per capacity (one without
 *      a zcache with no curve), each through a replay the session makes
 *      (its content source and readahead), the row's model set on it.
 *      The model's op stream does not depend on the zcache behind it
 *      (DESIGN.md), so its gets, puts and evictions come from the first
 *      replay, through zc_replay_sink(); the later ones add curve points
 *      and are checked to agree (drift).
 * One compression memo is shared by every zcache, so each distinct content
 * is compressed once (a cache with a memo stores exactly what it would
 * without one).
 *
 * The model's gets are counted from its ops, not from the replay's
 * counters, so that a replay without a zcache counts them too (its player
 * counts them as disk reads then).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fidelity.h"

#define STEP_MASK 0xffffu /* progress every 65536 requests or ops */

/* The session's message for its error rc. */
static int session_error(zc_fidelity *f, int rc)
{
    return set_error(f, rc, "%s", zc_session_error(f->s));
}

/* p, an array of *cap elements of size bytes, grown to hold one more:
 * the new array, or NULL (out of memory; p is left as it was). */
static void *grow(void *p, size_t *cap, size_t size)
{
    size_t n = *cap ? *cap * 2 : 4096;
    void *q = n > SIZE_MAX / size ? NULL : realloc(p, n * size);

    if (q)
        *cap = n;
    return q;
}

/* Tell the caller where the run is: 0, or -ZC_ECANCELED when it says
 * stop. */
static int step(zc_fidelity *f, const zc_fidelity_step *st)
{
    if (!f->progress || !f->progress(f->progress_ctx, st))
        return 0;
    return set_error(f, -ZC_ECANCELED, "%s: stopped by the caller",
                     st->stage == ZC_FIDELITY_STAGE_KERNEL ? f->kernel_path
                                                           : f->access_path);
}

/* ---- the access stream, in memory --------------------------------------- */

/* Count a sample of file system dev when its value is new. */
static int note_sample(zc_fidelity *f, uint32_t dev, uint64_t pages)
{
    size_t i;

    for (i = 0; i < f->ndevs && f->devs[i].dev != dev; i++)
        ;
    if (i < f->ndevs && f->devs[i].pages == pages)
        return 0;
    if (i == f->ndevs) {
        struct dev_sample *d = realloc(f->devs, (i + 1) * sizeof(*d));
        if (!d)
            return -ZC_ENOMEM;
        f->devs = d;
        f->ndevs++;
    }
    f->devs[i] = (struct dev_sample){dev, pages};
    if (f->nsamples == f->samples_cap) {
        uint64_t *s = grow(f->samples, &f->samples_cap, sizeof(*s));
        if (!s)
            return -ZC_ENOMEM;
        f->samples = s;
    }
    f->samples[f->nsamples++] = pages;
    return 0;
}

/* Request x of file system req's dev: the sample it saw. */
static int take_sample(zc_fidelity *f, struct access *x)
{
    uint64_t pages;

    x->resident = NO_SAMPLE;
    if (zc__session_resident(f->s, x->req.dev, &pages) != 1)
        return 0;
    if (pages > ZC_REPLAY_PAGES_MAX)
        return set_error(f, -ZC_EFORMAT,
                         "%s: request %zu: a resident count of %" PRIu64
                         " pages: more than a replay models",
                         f->access_path, f->n, pages);
    x->resident = pages;
    if (note_sample(f, x->req.dev, pages))
        return set_error(f, -ZC_ENOMEM, "out of memory (%s)", f->access_path);
    return 0;
}

/* Every request into memory with the sample it saw; the samples' first
 * value and median. */
static int load_access(zc_fidelity *f)
{
    zc_fidelity_step st = {.stage = ZC_FIDELITY_STAGE_LOAD};
    size_t ps = f->res.page_size;
    zc_request req;
    int rc;

    if ((rc = step(f, &st)))
        return rc;
    while ((rc = zc__session_next(f->s, &req)) == 1) {
        struct access *x = f->a;
        if (f->n == f->acap && !(x = grow(f->a, &f->acap, sizeof(*x))))
            return set_error(f, -ZC_ENOMEM, "out of memory (%s)",
                             f->access_path);
        f->a = x;
        x = &f->a[f->n++];
        x->req = req;
        if ((rc = take_sample(f, x)))
            return rc;
        f->res.accesses +=
            (req.offset + req.length - 1) / ps - req.offset / ps + 1;
        st.done = f->n;
        if (!(f->n & STEP_MASK) && (rc = step(f, &st)))
            return rc;
    }
    if (rc < 0)
        return session_error(f, rc);
    if (!f->nsamples)
        return set_error(f, -ZC_EFORMAT,
                         "%s: no resident samples: the model's page cache "
                         "cannot be sized as the kernel's (an access stream "
                         "from zcache-record has them)",
                         f->access_path);
    f->res.requests = f->n;
    f->res.samples = f->nsamples;
    f->res.first_sample = f->samples[0];
    f->res.median_sample = zc_resident_median(f->samples, f->nsamples);
    f->res.window = f->res.median_sample;
    return 0;
}

/* ---- zcaches and evictions ---------------------------------------------- */

static int make_cache(zc_fidelity *f, uint64_t capacity, zc_cache **zc)
{
    zc_config cfg = f->cfg;
    int rc;

    cfg.capacity_bytes = (size_t)capacity;
    cfg.memo = f->memo;
    rc = zc_cache_create(&cfg, zc);
    if (rc == -ZC_ENOMEM)
        return set_error(
            f, rc, "a zcache of %" PRIu64 " bytes: does not fit in memory",
            capacity);
    if (rc)
        return set_error(f, rc, "zcache spec '%s': %s", f->zspec,
                         zc_strerror(rc));
    return 0;
}

static int evicts_push(struct evicts *v, const zc_op *op)
{
    zc_fidelity_page *e = v->e;

    if (v->n == v->cap && !(e = grow(v->e, &v->cap, sizeof(*e))))
        return -ZC_ENOMEM;
    v->e = e;
    e = &v->e[v->n++];
    /* the inode, as zc_filekey_from_ino() puts it in the key */
    memcpy(&e->ino, op->key.fh, sizeof(e->ino));
    e->index = op->index;
    return 0;
}

/* Whether op brings a page into the page cache: a get (a read miss or
 * readahead), or a write that missed.  The kernel stream counts a page a
 * write brought in as a get; the model's stream says write_miss. */
static bool brings_in(const zc_op *op)
{
    return op->kind == ZC_OP_GET || (op->kind == ZC_OP_INVALIDATE_PAGE &&
                                     (op->flags & ZC_OP_WRITE_MISS));
}

/* ---- the kernel stream -------------------------------------------------- */

static int count_kernel_op(zc_fidelity *f, const zc_op *op)
{
    if (brings_in(op)) {
        if (op->pool == 0)
            f->res.kernel_gets++;
        else
            f->res.kernel_meta_gets++;
    } else if (op->kind == ZC_OP_PUT) {
        if (op->pool != 0)
            f->res.kernel_meta_puts++;
        else if (f->res.kernel_puts++, evicts_push(&f->kev, op))
            return set_error(f, -ZC_ENOMEM, "out of memory (%s)",
                             f->kernel_path);
    }
    return 0;
}

/* Every op: counted; pool 0's (and the page-cache hits) played into each
 * zcache. */
static int play_ops(zc_fidelity *f, zc_player **pl)
{
    zc_fidelity_step st = {.stage = ZC_FIDELITY_STAGE_KERNEL,
                           .zcaches = f->ncaps};
    uint64_t n;
    zc_op op;
    int rc;

    if ((rc = step(f, &st)))
        return rc;
    for (n = 1; (rc = zc_ops_next(f->kin, &op)) == 1; n++) {
        if ((rc = count_kernel_op(f, &op)))
            return rc;
        st.done = n;
        if (!(n & STEP_MASK) && (rc = step(f, &st)))
            return rc;
        if (op.pool != 0 && op.kind != ZC_OP_PC_HITS)
            continue; /* not the file system's: the model cannot see it */
        for (size_t c = 0; c < f->ncaps; c++)
            if ((rc = zc_player_op(pl[c], &op)))
                return set_error(f, rc, "%s: op %" PRIu64 ": %s",
                                 f->kernel_path, n, zc_strerror(rc));
    }
    if (rc < 0)
        return set_error(f, rc, "%s", zc_ops_error(f->kin));
    return 0;
}

/* One pass: the counts, the evictions, and every capacity's zcache. */
static int play_kernel(zc_fidelity *f)
{
    zc_cache **zc = calloc(f->ncaps + 1, sizeof(*zc));
    zc_player **pl = calloc(f->ncaps + 1, sizeof(*pl));
    int rc = 0;

    if (!zc || !pl)
        rc = set_error(f, -ZC_ENOMEM, "out of memory");
    for (size_t c = 0; !rc && c < f->ncaps; c++)
        if (!(rc = make_cache(f, f->caps[c], &zc[c])) &&
            zc_player_create(zc[c], &pl[c]))
            rc = set_error(f, -ZC_ENOMEM, "out of memory");
    if (!rc)
        rc = play_ops(f, pl);
    for (size_t c = 0; !rc && c < f->ncaps; c++) {
        zc_replay_stats st;
        zc_player_stats_get(pl[c], &st);
        for (size_t i = 0; i < f->res.nrows; i++) {
            f->points[i * f->ncaps + c].kernel_zc_hits = st.zc_hits;
            f->points[i * f->ncaps + c].kernel_zc_gets = st.zc_gets;
        }
    }
    for (size_t c = 0; (zc || pl) && c < f->ncaps; c++) {
        zc_player_destroy(pl ? pl[c] : NULL);
        zc_cache_destroy(zc ? zc[c] : NULL);
    }
    free(zc);
    free(pl);
    return rc;
}

/* ---- the models --------------------------------------------------------- */

/* The model's op stream as its first replay makes it (zc_replay_sink()). */
static int collect_op(void *ctx, const zc_op *op)
{
    zc_fidelity *f = ctx;

    if (brings_in(op))
        f->mgets++;
    if (op->kind == ZC_OP_GET)
        f->mzc_gets++;
    return op->kind == ZC_OP_PUT ? evicts_push(&f->mev, op) : 0;
}

/* A replay of row's model and size in front of zc, its ops collected when
 * collect. */
static int make_replay(zc_fidelity *f, const zc_fidelity_row *row, zc_cache *zc,
                       bool collect, zc_replay **r)
{
    int rc = zc__session_replay_create(f->s, row->capacity_pages, zc, r);

    if (rc)
        return session_error(f, rc);
    /* the session's model is the first */
    if (row->model != f->models[0] &&
        (rc = zc_replay_set_model(*r, row->model)))
        return set_error(f, rc, "cannot set up model %s: %s", row->model,
                         zc_strerror(rc));
    if (collect && (rc = zc_replay_sink(*r, collect_op, f)))
        return set_error(f, rc, "cannot collect the ops: %s", zc_strerror(rc));
    return 0;
}

/* Every request from memory, the page cache following the kernel's
 * samples at SIZE_KERNEL. */
static int replay_requests(zc_fidelity *f, const zc_fidelity_row *row,
                           zc_replay *r, zc_fidelity_step *st)
{
    uint64_t cap = row->capacity_pages;
    int rc;

    for (size_t i = 0; i < f->n; i++) {
        const struct access *x = &f->a[i];
        if (row->size == ZC_FIDELITY_SIZE_KERNEL && x->resident != NO_SAMPLE &&
            x->resident != cap) {
            if ((rc = zc_replay_set_page_cache(r, x->resident)))
                return session_error(
                    f, zc__session_fail(f->s, &x->req, i + 1, rc,
                                        "resizing the page cache"));
            cap = x->resident;
        }
        if ((rc = zc_replay_request(r, &x->req)))
            return session_error(
                f, zc__session_fail(f->s, &x->req, i + 1, rc, NULL));
        st->done = i + 1;
        if (!((i + 1) & STEP_MASK) && (rc = step(f, st)))
            return rc;
    }
    return 0;
}

/* One replay of row in front of a zcache of caps[c] (none for c < 0). */
static int replay_once(zc_fidelity *f, const zc_fidelity_row *row, long c,
                       zc_fidelity_step *st, zc_replay_stats *rs)
{
    zc_cache *zc = NULL;
    zc_replay *r = NULL;
    int rc;

    if ((c < 0 || !(rc = make_cache(f, f->caps[c], &zc))) &&
        !(rc = make_replay(f, row, zc, st->replay == 1, &r)) &&
        !(rc = step(f, st)) && !(rc = replay_requests(f, row, r, st)))
        zc_replay_stats_get(r, rs);
    zc_replay_destroy(r);
    zc_cache_destroy(zc);
    return rc;
}

/* Every replay of one row. */
static int run_row(zc_fidelity *f, zc_fidelity_row *row,
                   zc_fidelity_point *curve)
{
    zc_fidelity_step st = {.stage = ZC_FIDELITY_STAGE_REPLAY,
                           .total = f->n,
                           .model = row->model,
                           .size = row->size,
                           .replays = f->ncaps ? f->ncaps : 1};
    int rc;

    f->mgets = f->mzc_gets = 0;
    f->mev.n = 0;
    for (size_t c = 0; c < st.replays; c++) {
        zc_replay_stats rs;
        st.replay = c + 1;
        st.done = 0;
        if ((rc = replay_once(f, row, f->ncaps ? (long)c : -1, &st, &rs)))
            return rc;
        if (c == 0) {
            row->gets = f->mgets;
            row->puts = f->mev.n;
            row->readahead = rs.readahead;
        }
        if (!f->ncaps)
            continue;
        /* the same op stream, whatever the zcache behind it */
        if (rs.zc_gets != f->mzc_gets || rs.pc_evictions != row->puts)
            row->drift = true;
        curve[c].model_zc_hits = rs.zc_hits;
        curve[c].model_zc_gets = rs.zc_gets;
        if (rs.synthetic > row->synthetic)
            row->synthetic = rs.synthetic;
    }
    if ((rc = zc_fidelity_match(f->kev.e, f->kev.n, f->mev.e, f->mev.n,
                                f->res.window, &row->matched)))
        return set_error(f, rc, "out of memory (matching evictions)");
    if (f->kev.n)
        row->overlap = (double)row->matched / (double)f->kev.n;
    return 0;
}

static int run_rows(zc_fidelity *f)
{
    int rc;

    for (size_t i = 0; i < f->res.nrows; i++) {
        zc_fidelity_row *row = &f->rows[i];
        row->capacity_pages = row->size == ZC_FIDELITY_SIZE_KERNEL
                                  ? f->res.first_sample
                                  : f->res.median_sample;
        if ((rc = run_row(f, row, &f->points[i * f->ncaps])))
            return rc;
    }
    return 0;
}

int zc_fidelity_compare(zc_fidelity *f)
{
    int rc;

    if (!f)
        return -ZC_EINVAL;
    if (f->compared || !f->s)
        return set_error(f, -ZC_EINVAL, "a fidelity run compares once");
    f->compared = true;
    f->err[0] = '\0';
    if ((rc = load_access(f)))
        return rc;
    if (f->ncaps && f->memo_bytes && zc_memo_create(f->memo_bytes, &f->memo))
        return set_error(f, -ZC_ENOMEM, "the compression memo: out of memory");
    if ((rc = play_kernel(f)) || (rc = run_rows(f)))
        return rc;
    zc__fidelity_release(f);
    return 0;
}

int zc_fidelity_run(const char *recording, const zc_fidelity_options *opt,
                    zc_fidelity **out, char *err, size_t errlen)
{
    int rc = zc_fidelity_open(recording, opt, out, err, errlen);

    if (rc)
        return rc;
    if ((rc = zc_fidelity_compare(*out))) {
        if (err && errlen)
            snprintf(err, errlen, "%s", zc_fidelity_error(*out));
        zc_fidelity_free(*out);
        *out = NULL;
    }
    return rc;
}
