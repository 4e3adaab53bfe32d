/*
 * sim/model/replay.c - the page-cache model in front of a zcache.
 *
 * Each request is split into the pages it touches (docs/ARCHITECTURE.md: bytes
 * [off, off+len) touch pages floor(off/P) .. floor((off+len-1)/P), in
 * ascending order), and each page runs through a page-cache model (pcm.h:
 * "lru" by default, or any registered one), which says what happened:
 *
 *   hit                 a read counts a page-cache hit; a write gives the
 *                       page a new version and invalidates any zcache copy
 *   miss                a read asks the zcache: a hit is a disk read
 *                       avoided; a write drops any copy there (a copy
 *                       found counts as a resident hit), new version
 *   readahead           a zcache get that is not an access (ZC_OP_GET_AHEAD)
 *   eviction            a put to the zcache with the page's content,
 *                       flagged ZC_OP_PUT_ACTIVE if the page was hit while
 *                       in the page cache (what zcache2's admission read)
 *
 * Pages are keyed as cleancache keys them.  A block request (ino 0) keys
 * its pages like the kernel's block-device page cache: zcache pool = the
 * device (one private pool per device, created on first sight), file key
 * = the device number (zc_filekey_from_ino(dev)), index = page number of
 * the device.  A file request (ino != 0, from an access stream) keys its
 * pages pool = the file system's dev (one private pool per file system,
 * created on first sight), file key = zc_filekey_from_ino(ino), index =
 * page in the file.  A stream that mixes block requests of device D with
 * file requests of a file system whose s_dev is D (a loop-device image
 * traced both ways) gets two pools, as the kernel's block-device pages
 * and the file system's pages belong to different super blocks: else the
 * block page n of D (key D) and page n of inode D (key D) would be one
 * zcache key.  A stream of one kind has exactly one pool per dev.  Page
 * contents come from the content source as (dev, page, version) or (dev, ino,
 * index, version), the version counting the page's writes, so a put always
 * carries the page's latest bytes.
 *
 * Data layout: the (dev, ino) pair of a request is interned once as a
 * 32-bit file number (files.h), and pages are keyed (file, page) in the
 * model, in the version map (pagemap.h: pages never written are version 0
 * and cost nothing there) and in the map of pages read ahead and not yet
 * requested (pagemap.h: a page leaves it when it is requested or
 * evicted, so it holds resident pages only and its memory follows the
 * page cache's capacity, not the trace; the version map is the one table
 * that grows with the trace, by the pages it writes).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "adapt.h"
#include "common/files.h"
#include "pagemap.h"
#include "pcm.h"
#include "player.h"
#include "zcache_sim.h"

/* ZC_REPLAY_STATS_FIELDS (zcache_sim.h) lists every field of
 * zc_replay_stats in order: checked here, so that a counter added to the
 * struct and not to the list stops the build. */
_Static_assert(ZC_REPLAY_PAGES_MAX < ZC__PCM_NIL / 2,
               "a model's page indexes must not reach its NIL");
enum {
#define ZC__IDX(f) zc__rstats_idx_##f,
    ZC_REPLAY_STATS_FIELDS(ZC__IDX)
#undef ZC__IDX
    zc__rstats_nfields
};
#define ZC__AT(f)                                                              \
    _Static_assert(offsetof(zc_replay_stats, f) ==                             \
                       (size_t)zc__rstats_idx_##f * sizeof(uint64_t),          \
                   "ZC_REPLAY_STATS_FIELDS: " #f " is not where the list says");
ZC_REPLAY_STATS_FIELDS(ZC__AT)
#undef ZC__AT
_Static_assert(sizeof(zc_replay_stats) ==
                   (size_t)zc__rstats_nfields * sizeof(uint64_t),
               "ZC_REPLAY_STATS_FIELDS misses a field of zc_replay_stats");

struct zc_replay {
    size_t page_size;
    unsigned page_shift;
    zc_cache *zc;
    zc_content *content;
    zc_content *synth;       /* NULL, or bytes for pages content lacks */
    zc_player *player;       /* drives zc and counts */
    zc_ops_writer *ops;      /* NULL, or where the op stream is saved */
    zc_op_sink sink;         /* NULL, or who else gets every op */
    struct zc__adapt *adapt; /* NULL, or the controller of the split */
    void *sink_ctx;
    uint64_t requests;

    /* page cache */
    const struct zc__pcm_ops *model_ops;
    struct zc__pcm *model;
    struct zc__pcm_io io;
    uint64_t cap;           /* capacity, in pages */
    uint64_t cap_max;       /* 0, or the largest capacity to come (an
                               adaptive run's memory) */
    uint64_t read_ahead_kb; /* the model's readahead limit */

    struct zc__pagemap ver; /* versions of written pages */
    struct zc__pagemap ahead; /* the pages read ahead, resident and not
                                 yet requested (the only pages that may
                                 be missing from the content source) */

    struct zc__files files; /* file numbers of (dev, ino) */
    uint64_t *pools;        /* stream pool -> its POOL_KEY() */
    size_t npools, pools_cap;
    uint64_t last_pkey; /* the last lookup (valid if npools) */
    uint32_t last_pool;
    uint8_t *page; /* one page of content */
};

/* ---- versions ----------------------------------------------------------- */

static uint32_t version_of(const struct zc_replay *r, uint32_t file,
                           uint64_t page)
{
    return (uint32_t)zc__pagemap_get(&r->ver, file, page);
}

static int version_bump(struct zc_replay *r, uint32_t file, uint64_t page)
{
    uint64_t *v = zc__pagemap_slot(&r->ver, file, page);

    if (!v)
        return -ZC_ENOMEM;
    ++*v;
    return 0;
}

/* ---- the op stream ------------------------------------------------------ */

/* Every op goes to the writer, if one is attached, then to the player,
 * which drives the zcache and counts. */
static int emit(struct zc_replay *r, zc_op *op)
{
    int rc;

    if (r->ops && (rc = zc_ops_write(r->ops, op)))
        return rc;
    if (r->sink && (rc = r->sink(r->sink_ctx, op)))
        return rc;
    return zc_player_op(r->player, op);
}

/* A pool's identity: the block device dev, or the file system dev. */
#define POOL_KEY(dev, is_file) ((uint64_t)(dev) | (uint64_t) !!(is_file) << 32)

/* The stream pool of a device or file system: created, with its init op,
 * on first sight. */
static int pool_of(struct zc_replay *r, uint64_t pkey, uint32_t *pool)
{
    zc_op op;
    int rc;

    if (r->npools && r->last_pkey == pkey) {
        *pool = r->last_pool;
        return 0;
    }
    for (size_t i = 0; i < r->npools; i++)
        if (r->pools[i] == pkey) {
            r->last_pkey = pkey;
            *pool = r->last_pool = (uint32_t)i;
            return 0;
        }
    if (r->npools == r->pools_cap) {
        size_t cap = r->pools_cap ? r->pools_cap * 2 : 8;
        uint64_t *t = realloc(r->pools, cap * sizeof(*t));
        if (!t)
            return -ZC_ENOMEM;
        r->pools = t;
        r->pools_cap = cap;
    }
    memset(&op, 0, sizeof(op));
    op.kind = ZC_OP_INIT_FS;
    op.pool = (uint32_t)r->npools;
    op.page_size = r->page_size;
    rc = emit(r, &op);
    if (rc)
        return rc;
    r->pools[r->npools] = pkey;
    r->last_pkey = pkey;
    *pool = r->last_pool = (uint32_t)r->npools++;
    return 0;
}

static int adaptive_put(struct zc_replay *r, uint32_t file, uint64_t page,
                        uint32_t flags);

/* An op of a kind on the page (file, page), no content yet: pool = the
 * dev, key = the inode, or the dev itself for a block device's page. */
static int make_op(struct zc_replay *r, zc_op_kind kind, uint32_t file,
                   uint64_t page, uint32_t flags, zc_op *op)
{
    const struct zc__file *f = zc__files_get(&r->files, file);
    int rc = pool_of(r, POOL_KEY(f->dev, f->ino), &op->pool);

    if (rc)
        return rc;
    op->kind = kind;
    op->flags = flags;
    /* zc_filekey_from_ino(ino or dev), without the call */
    {
        uint64_t ino = f->ino ? f->ino : f->dev;
        memset(&op->key, 0, sizeof(op->key));
        memcpy(op->key.fh, &ino, sizeof(ino));
    }
    op->index = page;
    op->page = NULL;
    op->content = 0;
    return 0;
}

/* The latest content of the page (file, page) into r->page. */
static int content_of(struct zc_replay *r, uint32_t file, uint64_t page)
{
    const struct zc__file *f = zc__files_get(&r->files, file);
    uint64_t v = version_of(r, file, page);

    int rc;

    if (!f->ino)
        rc = zc_content_page(r->content, f->dev, page, v, r->page);
    else
        rc = zc_content_file_page(r->content, f->dev, f->ino, page, v, r->page);
    if (rc != -ZC_ENOENT || !zc__pagemap_get(&r->ahead, file, page))
        return rc;
    /* A page the model read ahead and nobody requested: a pack holds only
     * what the recording read, so it may lack the page. */
    if (!r->synth && zc_content_open("synth", r->page_size, &r->synth, NULL, 0))
        return -ZC_ENOMEM;
    zc__count_synthetic(zc__player_stats(r->player));
    return zc_content_file_page(r->synth, f->dev, f->ino, page, v, r->page);
}

/* An op on the page (file, page). */
static int page_op(struct zc_replay *r, zc_op_kind kind, uint32_t file,
                   uint64_t page, uint32_t flags)
{
    zc_op op;
    int rc;

    if (kind == ZC_OP_PUT && r->adapt)
        return adaptive_put(r, file, page, flags);
    if (!r->zc && !r->ops && !r->sink) {
        /* Nothing to drive: count as the player would, without ops. */
        zc_replay_stats *st = zc__player_stats(r->player);
        if (kind == ZC_OP_GET && (flags & ZC_OP_GET_AHEAD)) {
            zc__count_read_ahead(st);
            st->disk_reads++;
        } else if (kind == ZC_OP_GET) {
            zc__count_read_miss(st);
            st->disk_reads++;
        } else if (kind == ZC_OP_PUT) {
            zc__count_eviction(st);
        } else {
            zc__count_invalidate(st, flags);
        }
        return 0;
    }
    rc = make_op(r, kind, file, page, flags, &op);
    if (rc)
        return rc;
    /* a sink alone may go without contents: its puts carry no bytes */
    if (kind == ZC_OP_PUT && r->content && (r->zc || r->ops || r->sink)) {
        rc = content_of(r, file, page);
        if (rc)
            return rc;
        op.page = r->page;
    }
    return emit(r, &op);
}

/* An eviction in adaptive mode: put, dropped, or probed, as the controller
 * says; what a put or probe finds goes back to it. */
static int adaptive_put(struct zc_replay *r, uint32_t file, uint64_t page,
                        uint32_t flags)
{
    enum zc__adapt_plan plan = zc__adapt_plan(r->adapt, file, page);
    zc_replay_stats *st = zc__player_stats(r->player);
    zc_put_info info;
    zc_op op;
    int rc, outcome;

    if (plan != ZC__ADAPT_PUT) {
        zc__count_eviction(st);
        st->zc_skipped++;
        if (plan == ZC__ADAPT_SKIP)
            return 0;
    }
    rc = content_of(r, file, page);
    if (rc)
        return rc;
    if (plan == ZC__ADAPT_PROBE) {
        st->zc_probes++;
        outcome = zc_estimate_page(r->zc, r->page, &info);
        if (outcome < 0)
            return outcome;
        zc__adapt_learn(r->adapt, file, page, outcome, &info);
        return 0;
    }
    rc = make_op(r, ZC_OP_PUT, file, page, flags, &op);
    if (rc)
        return rc;
    op.page = r->page;
    memset(&info, 0, sizeof(info));
    rc = zc__player_put(r->player, &op, &info, &outcome);
    if (rc)
        return rc;
    zc__adapt_learn(r->adapt, file, page, outcome, &info);
    return 0;
}

/* Move the boundary to the controller's split: the zcache's capacity
 * first, so that a shrinking page cache puts into the new room. */
static int apply_split(struct zc_replay *r)
{
    uint64_t pc, zb;
    int rc;

    zc__adapt_split(r->adapt, &pc, &zb);
    rc = zc_set_capacity(r->zc, zb);
    return rc ? rc : zc_replay_set_page_cache(r, pc);
}

/* The end of an epoch: the controller decides, the split follows. */
static int adapt_epoch(struct zc_replay *r)
{
    zc_stats st;
    int rc = zc_stats_get(r->zc, &st);

    if (!rc)
        rc = zc__adapt_decide(r->adapt, &st, zc__player_stats(r->player));
    return rc ? rc : apply_split(r);
}

static int page_cache_hit(struct zc_replay *r)
{
    zc_op op;

    if (!r->zc && !r->ops && !r->sink) {
        zc__count_pc_hits(zc__player_stats(r->player), 1);
        return 0;
    }
    memset(&op, 0, sizeof(op));
    op.kind = ZC_OP_PC_HITS;
    op.count = 1;
    return emit(r, &op);
}

/* ---- what the model says ------------------------------------------------ */

/* (file, page) read ahead (mark) or requested or evicted (!mark): a
 * page leaves the map as soon as it is requested or evicted, so the map
 * holds resident pages only, at most the page cache's capacity. */
static int ahead_mark(struct zc_replay *r, uint32_t file, uint64_t page,
                      bool mark)
{
    uint64_t *v;

    if (!mark) {
        zc__pagemap_del(&r->ahead, file, page);
        return 0;
    }
    if (!(v = zc__pagemap_slot(&r->ahead, file, page)))
        return -ZC_ENOMEM;
    *v = 1;
    return 0;
}

static int on_hit(void *ctx, uint32_t file, uint64_t page, bool write)
{
    struct zc_replay *r = ctx;
    int rc = ahead_mark(r, file, page, false);

    if (rc)
        return rc;
    if (!write)
        return page_cache_hit(r);
    rc = page_op(r, ZC_OP_INVALIDATE_PAGE, file, page, ZC_OP_WRITE_HIT);
    return rc ? rc : version_bump(r, file, page);
}

/* A miss: a read tries the zcache, a write drops any copy there. */
static int on_miss(void *ctx, uint32_t file, uint64_t page, bool write)
{
    struct zc_replay *r = ctx;
    int rc;

    if (!write)
        return page_op(r, ZC_OP_GET, file, page, 0);
    rc = page_op(r, ZC_OP_INVALIDATE_PAGE, file, page, ZC_OP_WRITE_MISS);
    return rc ? rc : version_bump(r, file, page);
}

static int on_ahead(void *ctx, uint32_t file, uint64_t page)
{
    int rc = page_op(ctx, ZC_OP_GET, file, page, ZC_OP_GET_AHEAD);

    return rc ? rc : ahead_mark(ctx, file, page, true);
}

static int on_evict(void *ctx, uint32_t file, uint64_t page, bool active)
{
    int rc = page_op(ctx, ZC_OP_PUT, file, page, active ? ZC_OP_PUT_ACTIVE : 0);

    return rc ? rc : ahead_mark(ctx, file, page, false);
}

/* A new model of r's kind, capacity and readahead limit, replacing the
 * old one (which holds no page: before the first request). */
static int new_model(struct zc_replay *r, const struct zc__pcm_ops *ops)
{
    struct zc__pcm_params p = {r->cap, r->read_ahead_kb, r->page_size,
                               r->cap_max};
    struct zc__pcm *m;
    int rc = ops->create(&p, &m);

    if (rc)
        return rc;
    if (r->model)
        r->model_ops->destroy(r->model);
    r->model_ops = ops;
    r->model = m;
    return 0;
}

/* ---- public ----------------------------------------------------------- */

int zc_replay_create(uint64_t pc_pages, size_t page_size, zc_cache *zc,
                     zc_content *content, zc_replay **out)
{
    struct zc_replay *r;

    if (!out || page_size < 512 || (page_size & (page_size - 1)) ||
        pc_pages > ZC_REPLAY_PAGES_MAX || (zc && !content))
        return -ZC_EINVAL;
    *out = NULL;
    r = calloc(1, sizeof(*r));
    if (!r)
        return -ZC_ENOMEM;
    r->page_size = page_size;
    while ((1ul << r->page_shift) < page_size)
        r->page_shift++;
    r->zc = zc;
    r->content = content;
    r->cap = pc_pages;
    r->read_ahead_kb = 128;
    r->io = (struct zc__pcm_io){on_hit, on_miss, on_ahead, on_evict, r};
    r->page = malloc(page_size);
    if (!r->page || new_model(r, &zc__pcm_lru) ||
        zc_player_create(zc, &r->player)) {
        zc_replay_destroy(r);
        return -ZC_ENOMEM;
    }
    *out = r;
    return 0;
}

int zc_replay_set_model(zc_replay *r, const char *name)
{
    const struct zc__pcm_ops *ops = zc__pcm_find(name);

    if (!r || !ops || r->requests || r->adapt)
        return -ZC_EINVAL;
    return new_model(r, ops);
}

int zc_replay_set_read_ahead(zc_replay *r, uint64_t kb)
{
    if (!r || kb > ZC_READ_AHEAD_KB_MAX || r->requests)
        return -ZC_EINVAL;
    r->read_ahead_kb = kb;
    return new_model(r, r->model_ops);
}

uint64_t zc_replay_resident(const zc_replay *r)
{
    return r ? r->model_ops->resident(r->model) : 0;
}

int zc_replay_set_page_cache(zc_replay *r, uint64_t pages)
{
    if (!r || pages > ZC_REPLAY_PAGES_MAX)
        return -ZC_EINVAL;
    r->cap = pages;
    return r->model_ops->resize(r->model, pages, &r->io);
}

int zc_replay_request(zc_replay *r, const zc_request *req)
{
    struct zc__pcm_req q;
    int rc;

    if (!r || !req)
        return -ZC_EINVAL;
    if (req->length == 0)
        return 0;
    if (req->offset > UINT64_MAX - (req->length - 1))
        return -ZC_EINVAL;
    if ((rc = zc__files_id(&r->files, req->dev, req->ino, &q.file)))
        return rc;
    r->requests++;
    q.is_file = req->ino != 0;
    q.write = req->write;
    q.flags = req->flags;
    q.offset = req->offset;
    q.length = req->length;
    q.first = req->offset >> r->page_shift;
    q.last = (req->offset + req->length - 1) >> r->page_shift;
    q.size_pages = (req->flags & ZC_REQ_SIZE)
                       ? zc__pages_spanned(req->file_size, r->page_size)
                       : 0;
    for (uint64_t p = q.first;; p++) {
        if (r->adapt) {
            if (zc__adapt_epoch_over(r->adapt) && (rc = adapt_epoch(r)))
                return rc;
            if ((rc = zc__adapt_access(r->adapt, q.file, p, q.write)))
                return rc;
        }
        if ((rc = r->model_ops->access(r->model, &q, p, &r->io)))
            return rc;
        if (p == q.last)
            break;
    }
    return 0;
}

int zc_replay_adapt(zc_replay *r, const zc_adapt_options *opt)
{
    int rc;

    if (!r || !opt || !r->zc || r->ops || r->sink || r->adapt || r->requests ||
        !opt->memory_bytes ||
        opt->memory_bytes / r->page_size > ZC_REPLAY_PAGES_MAX)
        return -ZC_EINVAL;
    /* The page cache will never hold more than the whole memory: the
     * model is made again knowing it (it holds no page yet). */
    r->cap_max = opt->memory_bytes / r->page_size;
    if ((rc = new_model(r, r->model_ops))) {
        r->cap_max = 0;
        return rc;
    }
    rc = zc__adapt_create(opt, r->page_size, &r->adapt);
    if (rc)
        return rc;
    rc = apply_split(r);
    if (rc) {
        zc__adapt_destroy(r->adapt);
        r->adapt = NULL;
    }
    return rc;
}

size_t zc_replay_adapt_log(const zc_replay *r, const zc_adapt_epoch **out)
{
    if (!out)
        return 0;
    *out = NULL;
    return r && r->adapt ? zc__adapt_log(r->adapt, out) : 0;
}

const struct zc__adapt *zc__replay_adapt(const zc_replay *r)
{
    return r ? r->adapt : NULL;
}

void zc_replay_verify(zc_replay *r, bool on)
{
    if (r)
        zc_player_verify(r->player, on);
}

int zc_replay_save_ops(zc_replay *r, zc_ops_writer *w)
{
    if (!r || (w && !r->content) || (w && r->adapt))
        return -ZC_EINVAL;
    r->ops = w;
    return 0;
}

int zc_replay_sink(zc_replay *r, zc_op_sink fn, void *ctx)
{
    if (!r || (fn && r->adapt))
        return -ZC_EINVAL;
    r->sink = fn;
    r->sink_ctx = ctx;
    return 0;
}

int zc_replay_stats_get(const zc_replay *r, zc_replay_stats *out)
{
    int rc;

    if (!r || !out)
        return -ZC_EINVAL;
    rc = zc_player_stats_get(r->player, out);
    out->requests = r->requests;
    return rc;
}

void zc_replay_destroy(zc_replay *r)
{
    if (!r)
        return;
    if (r->model)
        r->model_ops->destroy(r->model);
    zc__pagemap_free(&r->ver);
    zc__pagemap_free(&r->ahead);
    free(r->pools);
    free(r->page);
    zc_content_close(r->synth);
    zc__files_free(&r->files);
    zc__adapt_destroy(r->adapt);
    zc_player_destroy(r->player);
    free(r);
}
