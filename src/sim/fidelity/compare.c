/*
 * sim/fidelity/compare.c - the work of a fidelity run
 * (zc_fidelity_compare(), zcache_sim.h), in passes that each read a
 * stream from its start, so that nothing held grows with the recording:
 *   1. the access stream, through the run's session (whose first
 *      file-keyed request is checked against the content source): its
 *      requests and pages counted, and the resident count each request
 *      saw (the last sample of its file system), weighed by requests for
 *      the median (zc_resident_median()); a count is kept once however
 *      often it recurs, so the memory is one entry per distinct count.
 *      The samples are counted as the recorder wrote them: a request of
 *      a file system that sees a new value;
 *   2. the kernel stream, once: its counts, and pool 0 played into every
 *      capacity's zcache in lockstep;
 *   3. each row (a model at a size): one replay per capacity (one without
 *      a zcache with no curve), each reading the access stream again
 *      through a session of its own (no content: the replay takes its
 *      content source, readahead and model from the run's session), the
 *      page cache following that reading's samples at the kernel's size.
 *      The model's op stream does not depend on the zcache behind it
 *      (DESIGN.md), so its gets, puts and evictions come from the first
 *      replay, through zc_replay_sink(); its evictions go into the
 *      eviction matcher (match.c) as they happen, which reads the kernel
 *      stream's pool-0 evictions, from a reader of its own, as far as it
 *      needs.  The later replays add curve points and are checked to
 *      agree (drift).
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
#include "trace/resident.h"

#define STEP_MASK 0xffffu /* progress every 65536 requests or ops */

/* s's message for its error rc. */
static int session_error(zc_fidelity *f, const zc_session *s, int rc)
{
    return set_error(f, rc, "%s", zc_session_error(s));
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

/* ---- the access stream: counts and the resident counts ------------------ */

/* Count a sample of file system dev when its value is new. */
static int note_sample(zc_fidelity *f, uint32_t dev, uint64_t pages)
{
    size_t i;

    for (i = 0; i < f->ndevs && f->devs[i][0] != dev; i++)
        ;
    if (i < f->ndevs && f->devs[i][1] == pages)
        return 0;
    if (i == f->ndevs) {
        uint64_t(*d)[2] = realloc(f->devs, (i + 1) * sizeof(*d));
        if (!d)
            return -ZC_ENOMEM;
        f->devs = d;
        f->ndevs++;
    }
    f->devs[i][0] = dev;
    f->devs[i][1] = pages;
    if (!f->res.samples++)
        f->res.first_sample = pages;
    return 0;
}

/* One more request that saw `pages`: the last entry's, or a new one (the
 * entries merged into one per count when the array is full, grown only
 * when that leaves it more than half full). */
static int note_seen(zc_fidelity *f, uint64_t pages)
{
    if (f->nseen && f->seen[f->nseen - 1].pages == pages) {
        f->seen[f->nseen - 1].requests++;
        return 0;
    }
    if (f->nseen == f->seen_cap) {
        size_t cap = f->seen_cap ? f->seen_cap : 1024;
        zc_resident_sample *v;
        f->nseen = zc__resident_merge(f->seen, f->nseen);
        if (f->nseen > cap / 2)
            cap *= 2;
        if (cap != f->seen_cap || !f->seen) {
            if (cap > SIZE_MAX / sizeof(*v) ||
                !(v = realloc(f->seen, cap * sizeof(*v))))
                return -ZC_ENOMEM;
            f->seen = v;
            f->seen_cap = cap;
        }
    }
    f->seen[f->nseen++] = (zc_resident_sample){pages, 1};
    return 0;
}

/* The resident count request n of file system dev saw, counted. */
static int take_sample(zc_fidelity *f, uint32_t dev, uint64_t n)
{
    uint64_t pages;

    if (zc__session_resident(f->s, dev, &pages) != 1)
        return 0;
    if (pages > ZC_REPLAY_PAGES_MAX)
        return set_error(f, -ZC_EFORMAT,
                         "%s: request %" PRIu64 ": a resident count of %" PRIu64
                         " pages: more than a replay models",
                         f->access_path, n, pages);
    if (note_sample(f, dev, pages) || note_seen(f, pages))
        return set_error(f, -ZC_ENOMEM, "out of memory (%s)", f->access_path);
    return 0;
}

/* Pass 1: the requests and pages, the samples, their median. */
static int count_access(zc_fidelity *f)
{
    zc_fidelity_step st = {.stage = ZC_FIDELITY_STAGE_LOAD};
    size_t ps = f->res.page_size;
    zc_request req;
    uint64_t n = 0;
    int rc;

    if ((rc = step(f, &st)))
        return rc;
    while ((rc = zc__session_next(f->s, &req)) == 1) {
        if ((rc = take_sample(f, req.dev, ++n)))
            return rc;
        f->res.accesses +=
            (req.offset + req.length - 1) / ps - req.offset / ps + 1;
        st.done = n;
        if (!(n & STEP_MASK) && (rc = step(f, &st)))
            return rc;
    }
    if (rc < 0)
        return session_error(f, f->s, rc);
    if (!f->res.samples)
        return set_error(f, -ZC_EFORMAT,
                         "%s: no resident samples: the model's page cache "
                         "cannot be sized as the kernel's (an access stream "
                         "from zcache-record has them)",
                         f->access_path);
    f->res.requests = n;
    f->res.median_sample = zc_resident_median(f->seen, f->nseen);
    f->res.window = f->res.median_sample;
    free(f->seen);
    f->seen = NULL;
    f->nseen = f->seen_cap = 0;
    return 0;
}

/* ---- zcaches ------------------------------------------------------------ */

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

/* Whether op brings a page into the page cache: a get (a read miss or
 * readahead), or a write that missed.  The kernel stream counts a page a
 * write brought in as a get; the model's stream says write_miss. */
static bool brings_in(const zc_op *op)
{
    return op->kind == ZC_OP_GET || (op->kind == ZC_OP_INVALIDATE_PAGE &&
                                     (op->flags & ZC_OP_WRITE_MISS));
}

/* The evicted page of a put: the inode, as zc_filekey_from_ino() puts it
 * in the key. */
static zc_fidelity_page evicted(const zc_op *op)
{
    zc_fidelity_page p;

    memcpy(&p.ino, op->key.fh, sizeof(p.ino));
    p.index = op->index;
    return p;
}

/* ---- the kernel stream -------------------------------------------------- */

static void count_kernel_op(zc_fidelity *f, const zc_op *op)
{
    if (brings_in(op)) {
        if (op->pool == 0)
            f->res.kernel_gets++;
        else
            f->res.kernel_meta_gets++;
    } else if (op->kind == ZC_OP_PUT) {
        if (op->pool == 0)
            f->res.kernel_puts++;
        else
            f->res.kernel_meta_puts++;
    }
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
        count_kernel_op(f, &op);
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

/* Pass 2: the counts and every capacity's zcache. */
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
    zc_ops_close(f->kin);
    f->kin = NULL;
    return rc;
}

/* ---- the models --------------------------------------------------------- */

/* The matcher's source: the kernel stream's next pool-0 eviction. */
static int kernel_eviction(void *ctx, zc_fidelity_page *page)
{
    zc_fidelity *f = ctx;
    zc_op op;
    int rc;

    while ((rc = zc_ops_next(f->kev, &op)) == 1)
        if (op.kind == ZC_OP_PUT && op.pool == 0) {
            *page = evicted(&op);
            return 1;
        }
    if (rc < 0)
        return set_error(f, rc, "%s", zc_ops_error(f->kev));
    return 0;
}

/* The model's op stream as its first replay makes it (zc_replay_sink()):
 * counted, its evictions matched. */
static int collect_op(void *ctx, const zc_op *op)
{
    zc_fidelity *f = ctx;
    zc_fidelity_page p;
    int rc;

    if (brings_in(op))
        f->mgets++;
    if (op->kind == ZC_OP_GET)
        f->mzc_gets++;
    if (op->kind != ZC_OP_PUT)
        return 0;
    f->mputs++;
    p = evicted(op);
    if ((rc = zc__match_model(f->match, &p))) {
        if (rc == -ZC_ENOMEM)
            (void)set_error(f, rc, "out of memory (matching evictions)");
        f->sink_failed = true;
    }
    return rc;
}

/* The row's matcher and its reader of the kernel stream. */
static int open_matcher(zc_fidelity *f)
{
    int rc = zc_ops_open(f->kernel_path, &f->kev, f->err, sizeof(f->err));

    if (rc)
        return rc;
    if (zc__match_create(f->res.window, kernel_eviction, f, &f->match))
        return set_error(f, -ZC_ENOMEM, "out of memory (matching evictions)");
    return 0;
}

static void close_matcher(zc_fidelity *f)
{
    zc__match_free(f->match);
    zc_ops_close(f->kev);
    f->match = NULL;
    f->kev = NULL;
}

/* A replay of row's model and size in front of zc, its ops collected when
 * collect. */
static int make_replay(zc_fidelity *f, const zc_fidelity_row *row, zc_cache *zc,
                       bool collect, zc_replay **r)
{
    int rc = zc__session_replay_create(f->s, row->capacity_pages, zc, r);

    if (rc)
        return session_error(f, f->s, rc);
    /* the session's model is the first */
    if (row->model != f->models[0] &&
        (rc = zc_replay_set_model(*r, row->model)))
        return set_error(f, rc, "cannot set up model %s: %s", row->model,
                         zc_strerror(rc));
    if (collect && (rc = zc_replay_sink(*r, collect_op, f)))
        return set_error(f, rc, "cannot collect the ops: %s", zc_strerror(rc));
    return 0;
}

/* The access stream again, for one replay: a session that reads it (the
 * content source is the run's session's). */
static int reread(zc_fidelity *f, zc_session **rs)
{
    zc_session_options so = {.no_content = true};
    const char *path = f->access_path;

    return zc_session_open(&path, 1, &so, rs, f->err, sizeof(f->err));
}

/* Every request of the access stream, the page cache following the
 * kernel's samples at SIZE_KERNEL. */
static int replay_requests(zc_fidelity *f, const zc_fidelity_row *row,
                           zc_replay *r, zc_fidelity_step *st)
{
    uint64_t cap = row->capacity_pages, n = 0, pages;
    zc_session *rs;
    zc_request req;
    int rc;

    if ((rc = reread(f, &rs)))
        return rc;
    while ((rc = zc__session_next(rs, &req)) == 1) {
        n++;
        if (row->size == ZC_FIDELITY_SIZE_KERNEL &&
            zc__session_resident(rs, req.dev, &pages) == 1 && pages != cap) {
            if ((rc = zc_replay_set_page_cache(r, pages))) {
                rc = session_error(f, f->s,
                                   zc__session_fail(f->s, &req, n, rc,
                                                    "resizing the page cache"));
                break;
            }
            cap = pages;
        }
        if ((rc = zc_replay_request(r, &req))) {
            if (!f->sink_failed)
                rc = session_error(f, f->s,
                                   zc__session_fail(f->s, &req, n, rc, NULL));
            break;
        }
        st->done = n;
        if (!(n & STEP_MASK) && (rc = step(f, st)))
            break;
    }
    if (rc < 0 && !*f->err)
        rc = session_error(f, rs, rc);
    zc_session_close(rs);
    return rc < 0 ? rc : 0;
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

/* The first replay: the model's op stream counted and matched. */
static int first_replay(zc_fidelity *f, zc_fidelity_row *row, long c,
                        zc_fidelity_step *st, zc_replay_stats *rs)
{
    int rc;

    f->mgets = f->mzc_gets = f->mputs = 0;
    f->sink_failed = false;
    if (!(rc = open_matcher(f)) && !(rc = replay_once(f, row, c, st, rs)) &&
        (rc = zc__match_finish(f->match, &row->matched)) == -ZC_ENOMEM)
        rc = set_error(f, rc, "out of memory (matching evictions)");
    close_matcher(f);
    if (rc)
        return rc;
    row->gets = f->mgets;
    row->puts = f->mputs;
    row->readahead = rs->readahead;
    if (f->res.kernel_puts)
        row->overlap = (double)row->matched / (double)f->res.kernel_puts;
    return 0;
}

/* Every replay of one row. */
static int run_row(zc_fidelity *f, zc_fidelity_row *row,
                   zc_fidelity_point *curve)
{
    zc_fidelity_step st = {.stage = ZC_FIDELITY_STAGE_REPLAY,
                           .total = f->res.requests,
                           .model = row->model,
                           .size = row->size,
                           .replays = f->ncaps ? f->ncaps : 1};
    int rc;

    for (size_t c = 0; c < st.replays; c++) {
        long cap = f->ncaps ? (long)c : -1;
        zc_replay_stats rs;
        st.replay = c + 1;
        st.done = 0;
        if ((rc = c ? replay_once(f, row, cap, &st, &rs)
                    : first_replay(f, row, cap, &st, &rs)))
            return rc;
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
    if ((rc = count_access(f)))
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
