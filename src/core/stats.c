/*
 * core/stats.c - statistics snapshots and the debug checker.
 *
 * Counters live in the cache and change under its lock; the fields that
 * describe the present (arena, metadata, pools, objects) are read off the
 * structures that own them when a snapshot is taken, so they cannot drift.
 *
 * zc_cache_check() walks every structure and cross-checks it against the
 * counters: every pool, object and entry of the index, every arena header
 * against the entry that owns it, the policy's list, the allocator's own
 * invariants, the arena's frames and the memory accounting.  Tests call it
 * after every phase; it costs time linear in the cache's size.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stddef.h>
#include <string.h>

#include "cache.h"

/* ZC_STATS_FIELDS (zcache.h) lists every scalar field of zc_stats in
 * order, and nothing else follows but the histogram: checked here, so
 * that a counter added to the struct and not to the list stops the
 * build. */
enum {
#define ZC__IDX(f) zc__stats_idx_##f,
    ZC_STATS_FIELDS(ZC__IDX)
#undef ZC__IDX
        zc__stats_nfields
};
#define ZC__AT(f)                                                              \
    _Static_assert(offsetof(zc_stats, f) ==                                    \
                       (size_t)zc__stats_idx_##f * sizeof(uint64_t),           \
                   "ZC_STATS_FIELDS: " #f " is not where the list says");
ZC_STATS_FIELDS(ZC__AT)
#undef ZC__AT
_Static_assert(offsetof(zc_stats, compr_size_hist) ==
                   (size_t)zc__stats_nfields * sizeof(uint64_t),
               "ZC_STATS_FIELDS misses a field of zc_stats");
_Static_assert(sizeof(zc_stats) == offsetof(zc_stats, compr_size_hist) +
                                       ZC_HIST_BUCKETS * sizeof(uint64_t),
               "zc_stats has a field after compr_size_hist");

int zc_stats_get(const zc_cache *cc, zc_stats *out)
{
    zc_cache *c = (zc_cache *)cc; /* the lock is not part of the value */
    size_t arena, all;

    if (!c || !out)
        return -ZC_EINVAL;
    pthread_mutex_lock(&c->lock);
    *out = c->st;
    out->mem_used_total = (uint64_t)c->arena.frames_used * c->cfg.page_size;
    /* Whatever in frames in use is not an object's bytes (data and the
     * 6-byte header) is the allocator's: headers, rounding, free space.
     * Computed the same way for every allocator. */
    {
        uint64_t objs = out->stored_pages - out->same_filled_pages -
                        out->raw_pages - out->shared_pages;
        uint64_t held = out->compr_data_size + objs * ZC__OBJ_HDR;
        out->frag_bytes =
            out->mem_used_total > held ? out->mem_used_total - held : 0;
    }
    out->pools = c->idx.live_pools;
    out->capacity_bytes = c->cfg.capacity_bytes;
    out->objects = c->idx.files;
    /* Arena chunks come and go only under the cache lock, so these agree
     * with the frames above; scratch buffers (outside the lock) can only
     * make meta_bytes larger, never wrap it. */
    arena = atomic_load(&c->mem.arena_bytes);
    all = atomic_load(&c->mem.bytes);
    out->work_bytes = atomic_load(&c->work_bytes);
    out->meta_page_bytes = atomic_load(&c->mem.kind_bytes[ZC__MEM_PAGE]);
    out->meta_file_bytes = atomic_load(&c->mem.kind_bytes[ZC__MEM_FILE]);
    pthread_mutex_unlock(&c->lock);
    out->arena_bytes = arena;
    out->meta_bytes = all - arena;
    /* Page and file metadata change only under the lock; the rest,
     * scratch buffers taken outside it included, is fixed. */
    out->meta_fixed_bytes =
        out->meta_bytes - out->meta_page_bytes - out->meta_file_bytes;
    return 0;
}

struct tally {
    uint64_t pages, same, raw, compr, objects;
    uint64_t copies, shared; /* dedup: copies held, pages sharing one */
};

struct in_ring {
    const zc_cache *c;
    uint32_t eid;
};

static int is_anchor(void *ctx, uint32_t anchor)
{
    return anchor == ((const struct in_ring *)ctx)->eid;
}

static bool valid_eid(const zc_cache *c, uint32_t e)
{
    return e < c->idx.ents.nchunks << ZC__ENT_SHIFT && (e >> 8) < c->dd.nring;
}

/* Dedup: entry id's ring links agree both ways and hold one handle; each
 * copy is in the table under one entry of its ring, its anchor, which a
 * compressed copy's header names.  A ring is walked once, from its
 * anchor, where the copy and its sharers are counted: a ring without an
 * anchor, or with two, makes the totals disagree. */
static int check_sharers(const zc_cache *c, uint32_t id, struct tally *t)
{
    zc_cache *cc = (zc_cache *)c; /* map() takes the bounce buffer */
    uint32_t h = zc__e_handle(zc__ent(&c->idx.ents, id)), next, prev, e;
    struct in_ring x = {c, id};
    const uint8_t *p;
    size_t len;
    uint64_t n = 0;

    if (!valid_eid(c, id))
        return -ZC_ECORRUPT;
    next = *zc__dd_next(&c->dd, id);
    prev = *zc__dd_prev(&c->dd, id);
    if (!valid_eid(c, next) || !valid_eid(c, prev) ||
        *zc__dd_prev(&c->dd, next) != id || *zc__dd_next(&c->dd, prev) != id ||
        zc__e_handle(zc__ent(&c->idx.ents, next)) != h)
        return -ZC_ECORRUPT;
    if (zc__h_raw(h)) {
        uint32_t f = zc__h_frame(h);
        if (!zc__arena_frame_in_use(&c->arena, f))
            return -ZC_ECORRUPT;
        p = zc__arena_frame(&c->arena, f);
        len = c->cfg.page_size;
    } else {
        uint32_t owner;
        uint16_t size;
        zc__read_hdr(c, h, &owner, &size);
        if (size == 0 || size > c->accept_bytes || !valid_eid(c, owner) ||
            zc__e_handle(zc__ent(&c->idx.ents, owner)) != h)
            return -ZC_ECORRUPT;
        if (owner != id)
            return 0; /* counted at its anchor */
        p = (const uint8_t *)cc->aops->map(cc->alloc, h, ZC__OBJ_HDR + size,
                                           cc->bounce) +
            ZC__OBJ_HDR;
        len = size;
    }
    if (zc__dd_find(&c->dd, zc__dd_hash(p, len), is_anchor, &x) != id) {
        if (!zc__h_raw(h))
            return -ZC_ECORRUPT; /* the header's anchor is not the table's */
        return 0;                /* a raw copy's other sharer */
    }
    e = id;
    do {
        e = *zc__dd_next(&c->dd, e);
        if (!valid_eid(c, e) || zc__e_handle(zc__ent(&c->idx.ents, e)) != h ||
            ++n > c->idx.ents.used)
            return -ZC_ECORRUPT;
    } while (e != id);
    t->copies++;
    t->shared += n - 1;
    t->compr += len;
    if (zc__h_raw(h))
        t->raw++;
    return 0;
}

static int check_object(const zc_cache *c, uint32_t oid, int pool,
                        struct tally *t)
{
    const struct zc__object *o = zc__obj(&c->idx, oid);
    const uint32_t *tab = o->nb_log2 ? o->t.buckets : &o->t.bucket0;
    uint64_t n = 0;

    if (!o->live || o->pool != pool || o->count == 0)
        return -ZC_ECORRUPT;
    for (uint32_t b = 0; b < (1u << o->nb_log2); b++) {
        uint32_t id = tab[b];
        while (!(id & ZC__END)) {
            const struct zc__entry *e;
            if (id == 0 || id >= (c->idx.ents.nchunks << ZC__ENT_SHIFT) ||
                ++n > o->count)
                return -ZC_ECORRUPT;
            e = zc__ent(&c->idx.ents, id);
            if (zc__h_same(zc__e_handle(e))) {
                t->same++;
            } else if (c->cfg.dedup) {
                int rc = check_sharers(c, id, t);
                if (rc)
                    return rc;
            } else if (zc__h_raw(zc__e_handle(e))) {
                if (!zc__arena_frame_in_use(&c->arena,
                                            zc__h_frame(zc__e_handle(e))))
                    return -ZC_ECORRUPT;
                t->raw++;
                t->compr += c->cfg.page_size;
            } else {
                uint32_t owner;
                uint16_t size;
                zc__read_hdr(c, zc__e_handle(e), &owner, &size);
                if (owner != id || size == 0 || size > c->accept_bytes)
                    return -ZC_ECORRUPT;
                t->compr += size;
            }
            t->pages++;
            id = zc__e_chain_get(e);
        }
        if ((id & ~ZC__END) != oid)
            return -ZC_ECORRUPT;
    }
    if (n != o->count)
        return -ZC_ECORRUPT;
    t->objects++;
    return 0;
}

static int check_locked(const zc_cache *c)
{
    const zc_stats *s = &c->st;
    struct tally t;
    uint64_t held, policy_count;
    uint32_t live_pools = 0, files = 0;
    int rc;

    memset(&t, 0, sizeof(t));
    if (c->bad_moves)
        return -ZC_ECORRUPT;
    rc = zc__arena_check(&c->arena);
    if (rc)
        return rc;
    for (uint32_t i = 0; i < c->idx.npools; i++) {
        const struct zc__pool *p = &c->idx.pools[i];
        uint64_t nobj = 0;
        if (!p->live)
            continue;
        live_pools++;
        for (uint32_t b = 0; b < (1u << p->nb_log2); b++)
            for (uint32_t oid = p->buckets[b]; oid;
                 oid = zc__obj(&c->idx, oid)->hnext) {
                const struct zc__object *o = zc__obj(&c->idx, oid);
                uint32_t first = p->buckets[b];
                if (++nobj > p->nobj)
                    return -ZC_ECORRUPT;
                rc = check_object(c, oid, (int)i, &t);
                if (rc)
                    return rc;
                /* A file is counted at its first object in the chain. */
                while (first != oid && memcmp(&zc__obj(&c->idx, first)->key,
                                              &o->key, sizeof(o->key)))
                    first = zc__obj(&c->idx, first)->hnext;
                if (first == oid)
                    files++;
            }
        if (nobj != p->nobj)
            return -ZC_ECORRUPT;
    }
    if (live_pools != c->idx.live_pools || t.objects != c->idx.objects ||
        files != c->idx.files)
        return -ZC_ECORRUPT;
    if (c->cfg.dedup &&
        (t.shared != s->shared_pages || t.copies != c->dd.used ||
         t.copies + t.shared + t.same != t.pages))
        return -ZC_ECORRUPT;
    if (t.pages != s->stored_pages || t.same != s->same_filled_pages ||
        t.raw != s->raw_pages || t.compr != s->compr_data_size ||
        t.pages * c->cfg.page_size != s->orig_data_size ||
        t.pages != c->idx.ents.used)
        return -ZC_ECORRUPT;
    if (s->stored_pages != s->stored_puts - s->invalidates - s->evictions -
                               s->replaced - s->exclusive_drops)
        return -ZC_ECORRUPT;
    /* every compression is one of the size histogram's, or a put that lost
     * its pool meanwhile; a rejected one is counted among the rejections */
    {
        uint64_t hist = 0;
        for (int b = 0; b < ZC_HIST_BUCKETS; b++)
            hist += s->compr_size_hist[b];
        if (s->compressions_rejected > s->compressions ||
            s->compressions < hist || s->compressions > hist + s->reject_race ||
            s->compressions_rejected > s->reject_compress_poor +
                                           s->reject_full + s->reject_nospace +
                                           s->reject_race ||
            s->decompressions > s->succ_gets)
            return -ZC_ECORRUPT;
    }
    policy_count = c->pops->count(c->pstate);
    if (policy_count != t.pages - t.same)
        return -ZC_ECORRUPT;
    rc = c->aops->check(c->alloc, &held);
    if (rc)
        return rc;
    if (held != t.pages - t.same - t.raw - t.shared)
        return -ZC_ECORRUPT;
    if (atomic_load(&c->mem.arena_bytes) !=
            (size_t)c->arena.frames_obtained * c->cfg.page_size ||
        c->arena.frames_obtained > c->arena.max_frames_ever)
        return -ZC_ECORRUPT;
    return 0;
}

int zc_cache_check(const zc_cache *cc)
{
    zc_cache *c = (zc_cache *)cc;
    int rc;

    if (!c)
        return -ZC_EINVAL;
    pthread_mutex_lock(&c->lock);
    rc = check_locked(c);
    pthread_mutex_unlock(&c->lock);
    return rc;
}
