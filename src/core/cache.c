/*
 * core/cache.c - the cleancache API: pools, put, get, invalidate.
 *
 * A put runs in two halves.  Outside the lock it detects a same-filled
 * page (one repeated 64-bit word) or compresses the page into a scratch
 * buffer of its own.  Under the lock it drops any copy the key already has
 * (also when the new page is then rejected: a later get must never see the
 * old data), applies the admission rule on the exact compressed size,
 * asks the allocator for room, evicting by the policy until there is some,
 * and links the new entry into its object.  A put that raced with the
 * invalidation of its pool is dropped: every pool creation and drop bumps
 * an epoch, and a pool born after the put began is not the pool the caller
 * meant.
 *
 * What is stored:
 *   same-filled page   an entry only (handle SAME, fill word in its links)
 *   compressed page    6-byte header (entry id, size) + data, in the
 *                      allocator's arena
 *   raw page           a whole arena frame (handle RAW | frame), when the
 *                      compressed form and its header would not fit the
 *                      allocator's largest object (always for "none")
 *
 * A get decompresses under the lock, straight from the arena unless the
 * object straddles two frames.  Every page that stops being held is
 * dropped through drop(), which keeps the counters exact.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "memo.h"

enum drop_cause { DROP_INVALIDATE, DROP_EVICT, DROP_REPLACE, DROP_EXCLUSIVE };

zc_filekey zc_filekey_from_ino(uint64_t ino)
{
    zc_filekey k;

    memset(&k, 0, sizeof(k));
    memcpy(k.fh, &ino, sizeof(ino));
    return k;
}

/* ---- same-filled pages -------------------------------------------------- */

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static bool is_same_filled(const void *page, size_t ps, uint64_t *word)
{
    const uint8_t *p = page;
    uint64_t v = load64(p);

    /* The last word first: most pages differ there or early on.  Page
     * sizes are powers of two >= 512, so 32-byte steps end exactly. */
    if (load64(p + ps - 8) != v)
        return false;
    for (size_t i = 0; i < ps; i += 32) {
        if (load64(p + i) != v || load64(p + i + 8) != v ||
            load64(p + i + 16) != v || load64(p + i + 24) != v)
            return false;
    }
    *word = v;
    return true;
}

static void fill_words(void *page, size_t ps, uint64_t v)
{
    uint8_t *p = page;

    for (size_t i = 0; i < ps; i += 8)
        memcpy(p + i, &v, 8);
}

/* ---- scratch buffers ---------------------------------------------------- */

static struct zc__scratch *scratch_get(zc_cache *c)
{
    struct zc__scratch *sc;
    size_t head, wrk, bytes;

    pthread_mutex_lock(&c->scratch_lock);
    sc = c->scratch;
    if (sc)
        c->scratch = sc->next;
    pthread_mutex_unlock(&c->scratch_lock);
    if (sc)
        return sc;
    head = (sizeof(*sc) + 15) & ~(size_t)15;
    wrk = (c->comp->wrkmem_size(c->cfg.page_size, c->level) + 15) & ~(size_t)15;
    bytes = head + wrk + ZC__OBJ_HDR + c->comp->bound(c->cfg.page_size);
    sc = zc__alloc(&c->mem, ZC__MEM_FIXED, bytes);
    if (!sc)
        return NULL;
    sc->next = NULL;
    sc->wrkmem = (uint8_t *)sc + head;
    sc->out = sc->wrkmem + wrk;
    if (c->comp->init_wrkmem)
        c->comp->init_wrkmem(sc->wrkmem, c->cfg.page_size, c->level);
    sc->bytes = bytes;
    atomic_fetch_add(&c->work_bytes, bytes);
    return sc;
}

static void scratch_put(zc_cache *c, struct zc__scratch *sc)
{
    if (!sc)
        return;
    pthread_mutex_lock(&c->scratch_lock);
    sc->next = c->scratch;
    c->scratch = sc;
    pthread_mutex_unlock(&c->scratch_lock);
}

/* ---- dropping pages ----------------------------------------------------- */

/* The hash of a stored copy's bytes, as the put computed it. */
static uint32_t copy_hash(zc_cache *c, uint32_t h)
{
    uint32_t owner;
    uint16_t size;
    const uint8_t *p;

    if (zc__h_raw(h))
        return zc__dd_hash(zc__arena_frame(&c->arena, zc__h_frame(h)),
                           c->cfg.page_size);
    zc__read_hdr(c, h, &owner, &size);
    p = c->aops->map(c->alloc, h, ZC__OBJ_HDR + (size_t)size, c->bounce);
    return zc__dd_hash(p + ZC__OBJ_HDR, size);
}

/* Take eid out of its ring of sharers; the copy stays with the others.
 * A compressed copy's header then names one of them. */
static void unshare(zc_cache *c, uint32_t eid)
{
    uint32_t h = zc__e_handle(zc__ent(&c->idx.ents, eid));
    uint32_t next = zc__dd_unlink(&c->dd, eid);
    if (zc__h_raw(h)) {
        /* A raw copy has no header: the table says who its anchor is. */
        zc__dd_reanchor(&c->dd, copy_hash(c, h), eid, next);
    } else {
        uint32_t owner;
        uint16_t size;
        zc__read_hdr(c, h, &owner, &size);
        if (owner == eid) {
            uint8_t hdr[ZC__OBJ_HDR];
            zc__dd_reanchor(&c->dd, copy_hash(c, h), eid, next);
            memcpy(hdr, &next, 4);
            memcpy(hdr + 4, &size, 2);
            c->aops->write(c->alloc, h, hdr, ZC__OBJ_HDR);
        }
    }
    c->st.shared_pages--;
}

/* Free what an entry holds and account for it; the entry itself stays. */
static void release_storage(zc_cache *c, uint32_t eid, enum drop_cause why)
{
    struct zc__entry *e = zc__ent(&c->idx.ents, eid);
    uint32_t h = zc__e_handle(e);

    if (zc__h_same(h)) {
        c->st.same_filled_pages--;
    } else if (zc__shared(c, eid)) {
        c->pops->remove(c->pstate, eid);
        unshare(c, eid);
    } else {
        if (c->cfg.dedup)
            zc__dd_remove(&c->dd, copy_hash(c, h), eid);
        c->pops->remove(c->pstate, eid);
        if (zc__h_raw(h)) {
            zc__arena_free(&c->arena, zc__h_frame(h));
            c->st.raw_pages--;
            c->st.compr_data_size -= c->cfg.page_size;
        } else {
            uint32_t owner;
            uint16_t size;
            zc__read_hdr(c, h, &owner, &size);
            c->st.compr_data_size -= size;
            c->aops->free(c->alloc, h);
        }
    }
    c->st.stored_pages--;
    c->st.orig_data_size -= c->cfg.page_size;
    switch (why) {
    case DROP_INVALIDATE: c->st.invalidates++; break;
    case DROP_EVICT: c->st.evictions++; break;
    case DROP_REPLACE: c->st.replaced++; break;
    case DROP_EXCLUSIVE: c->st.exclusive_drops++; break;
    }
}

static void drop(zc_cache *c, uint32_t oid, uint32_t eid, enum drop_cause why)
{
    ZC_ASSERT(oid && eid && zc__obj(&c->idx, oid)->count > 0);
    ZC_ASSERT(c->st.stored_pages > 0);
    release_storage(c, eid, why);
    zc__page_unlink(&c->idx, oid, eid);
    zc__entry_free(&c->idx, eid);
    if (zc__obj(&c->idx, oid)->count == 0)
        zc__object_release(&c->idx, oid);
}

struct drain_ctx {
    zc_cache *c;
};

static void drain_one(void *ctx, uint32_t eid)
{
    zc_cache *c = ((struct drain_ctx *)ctx)->c;

    release_storage(c, eid, DROP_INVALIDATE);
    zc__entry_free(&c->idx, eid);
}

static void drop_object(zc_cache *c, uint32_t oid)
{
    struct drain_ctx ctx = {c};

    zc__page_drain(&c->idx, oid, drain_one, &ctx);
    zc__object_release(&c->idx, oid);
}

/* How many shared victims in a row are refreshed before a copy is evicted
 * whole with all its sharers. */
#define SHARED_VICTIM_TRIES 64

/* Dedup: a frame is free only when every sharer of every copy in it is
 * gone.  Replace the owners in (*with)[0..*n) by all their rings, in
 * c->evbuf.  false if that needed memory that was refused. */
static bool expand_rings(zc_cache *c, uint32_t **with, unsigned *n)
{
    size_t total = 0, k = 0;

    for (unsigned i = 0; i < *n; i++) {
        uint32_t e = (*with)[i];
        do {
            total++;
            e = *zc__dd_next(&c->dd, e);
        } while (e != (*with)[i]);
    }
    if (total > c->evbuf_cap) {
        size_t cap = total * 2;
        uint32_t *b = zc__alloc(&c->mem, ZC__MEM_FIXED, cap * sizeof(*b));
        if (!b)
            return false;
        zc__free(&c->mem, ZC__MEM_FIXED, c->evbuf, c->evbuf_cap * sizeof(*b));
        c->evbuf = b;
        c->evbuf_cap = cap;
    }
    for (unsigned i = 0; i < *n; i++) {
        uint32_t e = (*with)[i];
        do {
            c->evbuf[k++] = e;
            e = *zc__dd_next(&c->dd, e);
        } while (e != (*with)[i]);
    }
    *with = c->evbuf;
    *n = (unsigned)total;
    return true;
}

/* Evict the policy's victim, and whatever must go with it to free its
 * frame.  false if nothing is evictable. */
static bool evict_one(zc_cache *c)
{
    uint32_t victim = c->pops->victim(c->pstate);
    uint32_t h, buddies[4], *with = buddies;
    unsigned n = 0;

    if (!victim)
        return false;
    /* Dedup: evicting one sharer of a copy frees nothing, and the copy was
     * used as recently as its most recent sharer.  So a shared victim is
     * refreshed and the policy asked again; if it names shared pages only
     * (or the same one: fifo ignores refreshes), the copy goes whole. */
    for (unsigned tries = 0;
         c->cfg.dedup && zc__shared(c, victim) && tries < SHARED_VICTIM_TRIES;
         tries++) {
        uint32_t next;
        c->pops->touch(c->pstate, victim);
        next = c->pops->victim(c->pstate);
        if (next == victim)
            break;
        victim = next;
    }
    h = zc__e_handle(zc__ent(&c->idx.ents, victim));
    if (!zc__h_raw(h)) {
        if (c->pops->whole_frames) {
            with = c->mates;
            n = c->aops->mates(c->alloc, h, with, c->mates_max - 1);
        } else {
            n = c->aops->buddies ? c->aops->buddies(c->alloc, h, with, 3) : 0;
        }
    }
    /* Handles to entries first: dropping one may compact the others. */
    for (unsigned i = 0; i < n; i++) {
        uint16_t size;
        zc__read_hdr(c, with[i], &with[i], &size);
    }
    if (c->cfg.dedup && (n || zc__shared(c, victim))) {
        with[n++] = victim; /* its whole ring goes, itself included */
        if (expand_rings(c, &with, &n)) {
            for (unsigned i = 0; i < n; i++)
                drop(c, zc__page_object(&c->idx, with[i]), with[i], DROP_EVICT);
            return true;
        }
        n = 0; /* no memory to list the sharers: the victim alone */
    }
    for (unsigned i = 0; i < n; i++)
        drop(c, zc__page_object(&c->idx, with[i]), with[i], DROP_EVICT);
    drop(c, zc__page_object(&c->idx, victim), victim, DROP_EVICT);
    return true;
}

/* A page was stored or hit: with a frame policy, its frame mates are
 * refreshed with it, so that a frame's pages keep together. */
static void touch_mates(zc_cache *c, uint32_t h)
{
    unsigned n;

    if (!c->pops->whole_frames || zc__h_raw(h) || zc__h_same(h))
        return;
    n = c->aops->mates(c->alloc, h, c->mates, c->mates_max);
    for (unsigned i = 0; i < n; i++) {
        uint32_t eid;
        uint16_t size;
        zc__read_hdr(c, c->mates[i], &eid, &size);
        c->pops->touch(c->pstate, eid);
    }
}

/* The allocator moved an object: point its entry at the new place. */
static void on_moved(void *ctx, uint32_t old_handle, uint32_t new_handle)
{
    zc_cache *c = ctx;
    uint32_t eid;
    uint16_t size;

    zc__read_hdr(c, new_handle, &eid, &size);
    if (zc__e_handle(zc__ent(&c->idx.ents, eid)) != old_handle) {
        c->bad_moves++; /* zc_cache_check() reports it */
    } else if (c->cfg.dedup) {
        uint32_t e = eid;
        do {
            zc__e_set_handle(zc__ent(&c->idx.ents, e), new_handle);
            e = *zc__dd_next(&c->dd, e);
        } while (e != eid);
    } else {
        zc__e_set_handle(zc__ent(&c->idx.ents, eid), new_handle);
    }
    c->st.compactions++;
}

/* ---- create / destroy --------------------------------------------------- */

static void cache_free_parts(zc_cache *c)
{
    if (c->alloc)
        c->aops->destroy(c->alloc);
    c->alloc = NULL;
    if (c->pstate) {
        if (c->pops->destroy)
            c->pops->destroy(c->pstate);
        zc__free(&c->mem, ZC__MEM_FIXED, c->pstate, c->pops->state_size);
    }
    zc__free(&c->mem, ZC__MEM_FIXED, c->dwrk, c->dwrk_bytes);
    zc__dd_destroy(&c->dd);
    zc__free(&c->mem, ZC__MEM_FIXED, c->evbuf, c->evbuf_cap * sizeof(uint32_t));
    zc__free(&c->mem, ZC__MEM_FIXED, c->mates,
             (size_t)c->mates_max * sizeof(uint32_t));
    zc__index_destroy(&c->idx);
    zc__arena_destroy(&c->arena);
    zc__free(&c->mem, ZC__MEM_FIXED, c->bounce, c->cfg.page_size);
    while (c->scratch) {
        struct zc__scratch *sc = c->scratch;
        c->scratch = sc->next;
        zc__free(&c->mem, ZC__MEM_FIXED, sc, sc->bytes);
    }
}

int zc_cache_create(const zc_config *cfg, zc_cache **out)
{
    struct zc__mem m;
    zc_cache *c;
    struct zc__relocate reloc;
    uint32_t first;
    int rc;

    if (!cfg || !out)
        return -ZC_EINVAL;
    *out = NULL;
    rc = zc__config_validate(cfg);
    if (rc)
        return rc;
    zc__mem_init(&m, &cfg->mem);
    c = zc__calloc(&m, ZC__MEM_FIXED, sizeof(*c));
    if (!c)
        return -ZC_ENOMEM;
    zc__mem_init(&c->mem, &cfg->mem);
    atomic_store(&c->mem.bytes, atomic_load(&m.bytes));
    atomic_store(&c->mem.kind_bytes[ZC__MEM_FIXED],
                 atomic_load(&m.kind_bytes[ZC__MEM_FIXED]));
    c->cfg = *cfg;
    c->comp = zc__find_compressor(cfg->compressor);
    c->aops = zc__find_allocator(cfg->allocator);
    c->pops = zc__find_policy(cfg->policy);
    c->cfg.compressor = c->comp->name;
    c->cfg.allocator = c->aops->name;
    c->cfg.policy = c->pops->name;
    c->accept_bytes = cfg->page_size * cfg->accept_percent / 100;
    c->level = cfg->level ? cfg->level : c->comp->default_level;
    c->cfg.level = c->level;
    atomic_init(&c->epoch, 0);
    atomic_init(&c->work_bytes, 0);
    if (pthread_mutex_init(&c->lock, NULL)) {
        zc__free(&c->mem, ZC__MEM_FIXED, c, sizeof(*c));
        return -ZC_ENOMEM;
    }
    if (pthread_mutex_init(&c->scratch_lock, NULL)) {
        pthread_mutex_destroy(&c->lock);
        zc__free(&c->mem, ZC__MEM_FIXED, c, sizeof(*c));
        return -ZC_ENOMEM;
    }
    zc__arena_init(&c->arena, &c->mem, cfg->page_size,
                   (uint32_t)(cfg->capacity_bytes / cfg->page_size));
    zc__index_init(&c->idx, &c->mem);
    zc__dd_init(&c->dd, &c->mem);
    reloc.moved = on_moved;
    reloc.ctx = c;
    rc = -ZC_ENOMEM;
    c->bounce = zc__alloc(&c->mem, ZC__MEM_FIXED, cfg->page_size);
    c->pstate = zc__calloc(&c->mem, ZC__MEM_FIXED, c->pops->state_size);
    if (!c->bounce || !c->pstate)
        goto fail;
    c->dwrk_bytes = c->comp->dwrkmem_size(cfg->page_size);
    if (c->dwrk_bytes &&
        !(c->dwrk = zc__alloc(&c->mem, ZC__MEM_FIXED, c->dwrk_bytes)))
        goto fail;
    if (c->dwrk && c->comp->init_dwrkmem)
        c->comp->init_dwrkmem(c->dwrk, cfg->page_size);
    if (c->pops->whole_frames) {
        /* An object's frames hold at most two frames' worth of others
         * (objects take at least 8 bytes) and the cache's header. */
        c->mates_max = (unsigned)(2 * cfg->page_size / 8 + 8);
        c->mates =
            zc__alloc(&c->mem, ZC__MEM_FIXED, c->mates_max * sizeof(uint32_t));
        if (!c->mates)
            goto fail;
    }
    /* The first entry chunk holds entry 0, the policies' sentinel. */
    rc = zc__entry_new(&c->idx, &first);
    if (rc)
        goto fail;
    zc__entry_free(&c->idx, first);
    rc = c->pops->init(c->pstate, &c->idx.ents, &c->mem);
    if (rc)
        goto fail;
    rc = c->aops->create(&c->arena, &c->mem, &reloc, &c->alloc);
    if (rc)
        goto fail;
    c->obj_max = c->aops->max_size(c->alloc);
    *out = c;
    return 0;
fail:
    cache_free_parts(c);
    pthread_mutex_destroy(&c->scratch_lock);
    pthread_mutex_destroy(&c->lock);
    m = c->mem;
    zc__free(&m, ZC__MEM_FIXED, c, sizeof(*c));
    return rc;
}

void zc_cache_destroy(zc_cache *c)
{
    struct zc__mem m;

    if (!c)
        return;
    cache_free_parts(c);
    /* Every allocation was freed under the kind it was made with. */
    ZC_ASSERT(atomic_load(&c->mem.arena_bytes) == 0);
    ZC_ASSERT(atomic_load(&c->mem.kind_bytes[ZC__MEM_PAGE]) == 0);
    ZC_ASSERT(atomic_load(&c->mem.kind_bytes[ZC__MEM_FILE]) == 0);
    ZC_ASSERT(atomic_load(&c->mem.kind_bytes[ZC__MEM_FIXED]) == sizeof(*c));
    pthread_mutex_destroy(&c->scratch_lock);
    pthread_mutex_destroy(&c->lock);
    m = c->mem;
    zc__free(&m, ZC__MEM_FIXED, c, sizeof(*c));
}

/* ---- pools -------------------------------------------------------------- */

static int new_pool(zc_cache *c, size_t page_size, const uint8_t *uuid)
{
    int id = -1, rc;

    if (!c || page_size != c->cfg.page_size)
        return -ZC_EINVAL;
    pthread_mutex_lock(&c->lock);
    if (uuid) {
        for (uint32_t i = 0; i < c->idx.npools; i++) {
            struct zc__pool *p = &c->idx.pools[i];
            if (p->live && p->shared && memcmp(p->uuid, uuid, 16) == 0) {
                pthread_mutex_unlock(&c->lock);
                return (int)i;
            }
        }
    }
    rc = zc__pool_new(&c->idx, atomic_load(&c->epoch) + 1, &id);
    if (!rc) {
        atomic_fetch_add(&c->epoch, 1);
        if (uuid) {
            c->idx.pools[id].shared = 1;
            memcpy(c->idx.pools[id].uuid, uuid, 16);
        }
    }
    pthread_mutex_unlock(&c->lock);
    return rc ? rc : id;
}

int zc_init_fs(zc_cache *c, size_t page_size)
{
    return new_pool(c, page_size, NULL);
}

int zc_init_shared_fs(zc_cache *c, const uint8_t uuid[16], size_t page_size)
{
    if (!uuid)
        return -ZC_EINVAL;
    return new_pool(c, page_size, uuid);
}

/* ---- memo --------------------------------------------------------------- */

int zc_memo_prepare(zc_memo *m, zc_cache *c, const void *page)
{
    const size_t ps = c ? c->cfg.page_size : 0;
    struct zc__memo_work *w;
    uint64_t word, ns;
    size_t clen = 0;
    int rc;

    if (!m || !c || !page)
        return -ZC_EINVAL;
    if (c->cfg.same_filled && is_same_filled(page, ps, &word))
        return 0; /* a put compresses nothing */
    /* the memo's work memory, not c's: preparing charges c nothing */
    w = zc__memo_work_get(m, c->comp, c->level, ps,
                          c->comp->wrkmem_size(ps, c->level),
                          ZC__OBJ_HDR + c->comp->bound(ps));
    if (!w)
        return -ZC_ENOMEM;
    rc = zc__memo_compress(m, c->comp, c->level, page, ps, w->out + ZC__OBJ_HDR,
                           &clen, w->wrkmem, &ns);
    zc__memo_work_put(m, w);
    (void)rc; /* a failed compression is remembered like any other */
    return 0;
}

size_t zc_cache_page_size(const zc_cache *c)
{
    return c ? c->cfg.page_size : 0;
}

bool zc_memo_shared(const zc_cache *a, const zc_cache *b)
{
    return a && b && a->comp == b->comp && a->level == b->level &&
           a->cfg.page_size == b->cfg.page_size &&
           a->cfg.same_filled == b->cfg.same_filled;
}

/* ---- put ---------------------------------------------------------------- */

/* Dedup: does the copy held by anchor have exactly these bytes? */
struct same_copy {
    zc_cache *c;
    bool raw;
    const uint8_t *bytes;
    size_t clen;
};

static int is_same_copy(void *ctx, uint32_t anchor)
{
    struct same_copy *x = ctx;
    zc_cache *c = x->c;
    uint32_t h = zc__e_handle(zc__ent(&c->idx.ents, anchor)), owner;
    uint16_t size;

    if (x->raw != zc__h_raw(h))
        return 0;
    if (x->raw)
        return !memcmp(zc__arena_frame(&c->arena, zc__h_frame(h)), x->bytes,
                       c->cfg.page_size);
    zc__read_hdr(c, h, &owner, &size);
    return size == x->clen &&
           !memcmp((const uint8_t *)c->aops->map(
                       c->alloc, h, ZC__OBJ_HDR + x->clen, c->bounce) +
                       ZC__OBJ_HDR,
                   x->bytes, x->clen);
}

/* Hysteresis: the arena is full.  Evict by the policy down to the
 * watermark, as zswap's shrinker would before it accepts again. */
static void shrink_to_watermark(zc_cache *c)
{
    uint32_t target = (uint32_t)((uint64_t)c->arena.max_frames *
                                 c->cfg.hysteresis_percent / 100);

    while (c->arena.frames_used > target && evict_one(c))
        ;
}

int zc_put_page(zc_cache *c, int pool, const zc_filekey *key, uint64_t index,
                const void *page)
{
    return zc_put_page_flags(c, pool, key, index, page, 0);
}

int zc_put_page_flags(zc_cache *c, int pool, const zc_filekey *key,
                      uint64_t index, const void *page, unsigned flags)
{
    return zc_put_page_info(c, pool, key, index, page, flags, NULL);
}

/*
 * A put in stages, each named for what it decides:
 *   put_compress   outside the lock: the admission filter's verdict, the
 *                  same-filled test, the compression (through the memo)
 *   put_admit      under the lock: the pool still there, the old copy of
 *                  the key dropped, the half-size rule, raw or not, dedup
 *   put_index      the file object and the entry, pinned
 *   put_share      dedup: link to an identical copy already held
 *   put_room       an object in the arena, evicting by the policy (or the
 *                  hysteresis watermark) until it fits; the policy told
 *   put_write      the bytes and the entry written, the counters
 * Each returns 0 to go on, or the put's result (an error, a reason for not
 * storing, or PUT_DONE when the page is stored).
 */
#define PUT_DONE 1000

struct put {
    zc_cache *c;
    int pool;
    const zc_filekey *key;
    uint64_t index;
    const void *page;
    size_t ps, clen;
    struct zc__scratch *sc;
    uint64_t epoch0, word, dt;
    uint32_t oid, eid, handle, dhash, anchor;
    bool same, raw, inactive, full;
    int crc; /* the compression's result */
};

/* Compress one page with the cache's compressor, through its memo if it
 * has one: into sc->out after the object header; its length and time. */
static int compress_page(zc_cache *c, struct zc__scratch *sc, const void *page,
                         size_t *clen, uint64_t *dt)
{
    const size_t ps = c->cfg.page_size;
    uint64_t t0;
    int rc;

    if (c->cfg.memo)
        return zc__memo_compress(c->cfg.memo, c->comp, c->level, page, ps,
                                 sc->out + ZC__OBJ_HDR, clen, sc->wrkmem, dt);
    t0 = zc__now_ns();
    rc = c->comp->compress(page, ps, sc->out + ZC__OBJ_HDR, clen, sc->wrkmem,
                           c->level);
    *dt = zc__now_ns() - t0;
    return rc;
}

/* Give back an entry that was not stored, and its object if that was its
 * only page. */
static void unpin_entry(zc_cache *c, uint32_t oid, uint32_t eid)
{
    zc__entry_free(&c->idx, eid);
    if (zc__obj(&c->idx, oid)->count == 0)
        zc__object_release(&c->idx, oid);
}

static void put_compress(struct put *p, unsigned flags)
{
    zc_cache *c = p->c;

    /* A page the admission filter refuses costs no compression. */
    p->inactive = c->cfg.active_only && !(flags & ZC_PUT_ACTIVE);
    if (!p->inactive)
        p->same =
            c->cfg.same_filled && is_same_filled(p->page, p->ps, &p->word);
    if (p->same || p->inactive)
        return;
    p->sc = scratch_get(c);
    p->crc =
        p->sc ? compress_page(c, p->sc, p->page, &p->clen, &p->dt) : -ZC_ENOMEM;
}

static int put_admit(struct put *p)
{
    zc_cache *c = p->c;
    struct zc__pool *pl = zc__pool_get(&c->idx, p->pool);

    if (!pl || pl->born > p->epoch0) {
        if (!pl && (p->pool < 0 || (uint32_t)p->pool >= c->idx.npools ||
                    c->idx.pools[p->pool].died <= p->epoch0))
            return -ZC_EINVAL; /* it was not a pool when the put began */
        /* The pool went away, or is a new pool on a reused id. */
        c->st.reject_race++;
        c->st.compress_ns_rejected += p->dt;
        if (p->sc && !p->crc) { /* it was compressed */
            c->st.compressions++;
            c->st.compressions_rejected++;
        }
        return ZC_PUT_REJECT_RACE;
    }
    p->oid = zc__object_find(&c->idx, p->pool, p->key, zc__index_hi(p->index));
    if (p->oid) {
        uint32_t eid = zc__page_find(&c->idx, p->oid, zc__index_lo(p->index));
        if (eid) {
            bool last = zc__obj(&c->idx, p->oid)->count == 1;
            drop(c, p->oid, eid, DROP_REPLACE);
            if (last)
                p->oid = 0; /* the object went with its only page */
        }
    }
    if (p->crc)
        return p->crc;
    if (p->inactive) {
        c->st.reject_inactive++;
        return ZC_PUT_REJECT_INACTIVE;
    }
    if (p->same)
        return 0;
    {
        size_t b = p->clen * 16 / p->ps;
        c->st.compr_size_hist[b < ZC_HIST_BUCKETS ? b : ZC_HIST_BUCKETS - 1]++;
    }
    c->st.compressions++;
    if (p->clen > c->accept_bytes) {
        if (!c->cfg.store_raw) {
            c->st.reject_compress_poor++;
            c->st.compressions_rejected++;
            c->st.compress_ns_rejected += p->dt;
            return ZC_PUT_REJECT_POOR;
        }
        p->raw = true;
    }
    p->raw = p->raw || p->clen + ZC__OBJ_HDR > c->obj_max;
    if (c->cfg.dedup) {
        struct same_copy sx = {
            c, p->raw, p->raw ? p->page : p->sc->out + ZC__OBJ_HDR, p->clen};
        p->dhash = zc__dd_hash(sx.bytes, p->raw ? p->ps : p->clen);
        p->anchor = zc__dd_find(&c->dd, p->dhash, is_same_copy, &sx);
    }
    return 0;
}

/* Index first: a failure here leaves the cache as it was, and the object
 * is pinned (count + 1, in put_room) so that evicting its other pages to
 * make room cannot release it under us. */
static int put_index(struct put *p)
{
    zc_cache *c = p->c;
    int rc = 0;

    if (!p->oid)
        rc = zc__object_new(&c->idx, p->pool, p->key, zc__index_hi(p->index),
                            &p->oid);
    if (rc)
        return rc;
    rc = zc__entry_new(&c->idx, &p->eid);
    if (!rc)
        zc__e_init(zc__ent(&c->idx.ents, p->eid), p->index);
    if (!rc && c->cfg.dedup && (rc = zc__dd_ring_reserve(&c->dd, p->eid)))
        zc__entry_free(&c->idx, p->eid);
    if (rc && zc__obj(&c->idx, p->oid)->count == 0)
        zc__object_release(&c->idx, p->oid);
    return rc;
}

/* The size the policy weighs an entry by. */
static uint32_t put_size(const struct put *p)
{
    return p->raw ? (uint32_t)p->ps : (uint32_t)(p->clen + ZC__OBJ_HDR);
}

static int put_share(struct put *p)
{
    zc_cache *c = p->c;
    struct zc__entry *e;
    int rc;

    p->handle = zc__e_handle(zc__ent(&c->idx.ents, p->anchor));
    rc = c->pops->insert(c->pstate, p->eid, put_size(p));
    if (rc) {
        unpin_entry(c, p->oid, p->eid);
        return rc;
    }
    e = zc__ent(&c->idx.ents, p->eid);
    zc__e_set_handle(e, p->handle);
    zc__dd_link_after(&c->dd, p->anchor, p->eid);
    touch_mates(c, p->handle);
    c->st.compress_ns += p->dt;
    c->st.dedup_hits++;
    c->st.shared_pages++;
    if (p->raw && p->clen > c->accept_bytes)
        c->st.raw_stored++;
    return PUT_DONE;
}

static int put_room(struct put *p)
{
    zc_cache *c = p->c;
    int rc;

    zc__obj(&c->idx, p->oid)->count++;
    for (;;) {
        uint32_t frame;
        if (p->raw) {
            rc = zc__arena_alloc(&c->arena, &frame);
            p->handle = ZC__HANDLE_RAW | frame; /* frames < 2^30 */
        } else {
            rc = c->aops->alloc(c->alloc, p->clen + ZC__OBJ_HDR, &p->handle);
        }
        if (rc != -ZC_ENOSPC)
            break;
        if (c->cfg.hysteresis_percent) {
            shrink_to_watermark(c);
            p->full = true;
            break;
        }
        if (!evict_one(c))
            break;
    }
    if (!rc) {
        rc = c->pops->insert(c->pstate, p->eid, put_size(p));
        if (!rc && c->cfg.dedup &&
            (rc = zc__dd_insert(&c->dd, p->dhash, p->eid)))
            c->pops->remove(c->pstate, p->eid);
        if (rc && p->raw)
            zc__arena_free(&c->arena, zc__h_frame(p->handle));
        else if (rc)
            c->aops->free(c->alloc, p->handle);
    }
    zc__obj(&c->idx, p->oid)->count--;
    if (!rc)
        return 0;
    unpin_entry(c, p->oid, p->eid);
    if (rc != -ZC_ENOSPC)
        return rc;
    c->st.compressions_rejected++;
    c->st.compress_ns_rejected += p->dt;
    if (p->full) {
        c->st.reject_full++;
        return ZC_PUT_REJECT_FULL;
    }
    c->st.reject_nospace++;
    return ZC_PUT_REJECT_NOSPACE;
}

static void put_write(struct put *p)
{
    zc_cache *c = p->c;
    struct zc__entry *e = zc__ent(&c->idx.ents, p->eid);

    /* an object fits its handle's frame(s): the header's 16-bit size */
    ZC_ASSERT(p->same || p->raw || p->clen + ZC__OBJ_HDR <= c->obj_max);
    ZC_ASSERT(p->same || p->raw || p->clen <= UINT16_MAX);

    zc__e_set_handle(e, p->handle);
    if (p->same) {
        zc__e_set_same(e, p->word);
        c->st.same_filled_pages++;
    } else if (p->raw) {
        memcpy(zc__arena_frame(&c->arena, zc__h_frame(p->handle)), p->page,
               p->ps);
        c->st.raw_pages++;
        c->st.compr_data_size += p->ps;
        if (p->clen > c->accept_bytes)
            c->st.raw_stored++;
    } else {
        uint16_t size = (uint16_t)p->clen;
        memcpy(p->sc->out, &p->eid, 4);
        memcpy(p->sc->out + 4, &size, 2);
        c->aops->write(c->alloc, p->handle, p->sc->out, p->clen + ZC__OBJ_HDR);
        c->st.compr_data_size += p->clen;
    }
    if (!p->same) {
        touch_mates(c, p->handle);
        c->st.compress_ns += p->dt;
    }
    if (c->cfg.dedup) /* a ring of its own */
        zc__dd_ring_self(&c->dd, p->eid);
}

int zc_put_page_info(zc_cache *c, int pool, const zc_filekey *key,
                     uint64_t index, const void *page, unsigned flags,
                     zc_put_info *info)
{
    struct put p = {.c = c,
                    .pool = pool,
                    .key = key,
                    .index = index,
                    .page = page,
                    .anchor = ZC__DD_NONE,
                    .handle = ZC__HANDLE_SAME};
    int rc;

    if (!c || !key || !page || (flags & ~ZC_PUT_ACTIVE))
        return -ZC_EINVAL;
    p.ps = c->cfg.page_size;
    p.epoch0 = atomic_load(&c->epoch);
    put_compress(&p, flags);

    pthread_mutex_lock(&c->lock);
    if (!(rc = put_admit(&p)) && !(rc = put_index(&p))) {
        if (p.anchor != ZC__DD_NONE)
            rc = put_share(&p);
        else if (!p.same)
            rc = put_room(&p);
        if (!rc) {
            put_write(&p);
            rc = PUT_DONE;
        }
    }
    if (rc == PUT_DONE) {
        ZC_ASSERT(p.oid && p.eid);
        ZC_ASSERT(p.same || p.anchor != ZC__DD_NONE || !zc__h_same(p.handle));
        zc__page_link(&c->idx, p.oid, p.eid);
        c->st.stored_pages++;
        c->st.stored_puts++;
        c->st.orig_data_size += p.ps;
        rc = 0;
    }
    if (rc >= 0)
        c->st.puts++;
    /* every page held went in by a stored put and is counted once */
    ZC_ASSERT(c->st.stored_pages == c->st.stored_puts - c->st.invalidates -
                                        c->st.evictions - c->st.replaced -
                                        c->st.exclusive_drops);
    ZC_ASSERT(c->st.compressions_rejected <= c->st.compressions);
    ZC_ASSERT(c->arena.frames_used <= c->arena.max_frames);
    pthread_mutex_unlock(&c->lock);
    scratch_put(c, p.sc);
    if (info) {
        info->compressed = p.same || p.inactive ? 0 : p.clen;
        info->compress_ns = p.dt;
        info->same_filled = p.same;
        info->raw = p.raw;
    }
    return rc;
}

int zc_estimate_page(zc_cache *c, const void *page, zc_put_info *info)
{
    const size_t ps = c ? c->cfg.page_size : 0;
    struct zc__scratch *sc;
    uint64_t word, dt = 0;
    size_t clen = 0;
    int rc;

    if (!c || !page || !info)
        return -ZC_EINVAL;
    memset(info, 0, sizeof(*info));
    if (c->cfg.same_filled && is_same_filled(page, ps, &word)) {
        info->same_filled = true;
        return 0;
    }
    sc = scratch_get(c);
    if (!sc)
        return -ZC_ENOMEM;
    rc = compress_page(c, sc, page, &clen, &dt);
    scratch_put(c, sc);
    if (rc)
        return rc;
    info->compressed = clen;
    info->compress_ns = dt;
    info->raw = (clen > c->accept_bytes && c->cfg.store_raw) ||
                clen + ZC__OBJ_HDR > c->obj_max;
    pthread_mutex_lock(&c->lock);
    c->st.estimates++;
    c->st.compress_ns_estimates += dt;
    pthread_mutex_unlock(&c->lock);
    return clen > c->accept_bytes && !c->cfg.store_raw ? ZC_PUT_REJECT_POOR : 0;
}

/* ---- get ---------------------------------------------------------------- */

int zc_get_page(zc_cache *c, int pool, const zc_filekey *key, uint64_t index,
                void *page)
{
    struct zc__pool *p;
    struct zc__entry *e;
    uint32_t oid, eid = 0, h;
    uint64_t t0;
    int rc = 0;

    if (!c || !key || !page)
        return -ZC_EINVAL;
    pthread_mutex_lock(&c->lock);
    p = zc__pool_get(&c->idx, pool);
    if (!p) {
        rc = -ZC_EINVAL;
        goto out;
    }
    oid = zc__object_find(&c->idx, pool, key, zc__index_hi(index));
    if (oid)
        eid = zc__page_find(&c->idx, oid, zc__index_lo(index));
    if (!eid) {
        c->st.failed_gets++;
        rc = -ZC_ENOENT;
        goto out;
    }
    e = zc__ent(&c->idx.ents, eid);
    h = zc__e_handle(e);
    t0 = zc__now_ns();
    if (zc__h_same(h)) {
        fill_words(page, c->cfg.page_size, zc__e_fill(e));
    } else if (zc__h_raw(h)) {
        memcpy(page, zc__arena_frame(&c->arena, zc__h_frame(h)),
               c->cfg.page_size);
    } else {
        uint32_t owner;
        uint16_t size;
        const uint8_t *src;

        zc__read_hdr(c, h, &owner, &size);
        src = c->aops->map(c->alloc, h, ZC__OBJ_HDR + (size_t)size, c->bounce);
        /* The header names this entry, or with dedup the anchor of the
         * copy, which holds the same handle. */
        if ((owner != eid &&
             (!c->cfg.dedup || owner >= c->idx.ents.nchunks << ZC__ENT_SHIFT ||
              zc__e_handle(zc__ent(&c->idx.ents, owner)) != h)) ||
            c->comp->decompress(src + ZC__OBJ_HDR, size, page, c->cfg.page_size,
                                c->dwrk)) {
            /* Never hand out what we cannot vouch for. */
            drop(c, oid, eid, DROP_INVALIDATE);
            rc = -ZC_ECORRUPT;
            goto out;
        }
    }
    c->st.decompress_ns += zc__now_ns() - t0;
    c->st.decompressions += !zc__h_same(h);
    if (c->cfg.exclusive_gets && !p->shared)
        drop(c, oid, eid, DROP_EXCLUSIVE);
    else if (!zc__h_same(h)) {
        c->pops->touch(c->pstate, eid);
        touch_mates(c, h);
    }
    c->st.succ_gets++;
out:
    pthread_mutex_unlock(&c->lock);
    return rc;
}

/* ---- capacity --------------------------------------------------------- */

int zc_set_capacity(zc_cache *c, size_t capacity_bytes)
{
    uint32_t frames;

    if (!c || capacity_bytes > ZC_CAPACITY_MAX)
        return -ZC_EINVAL;
    frames = (uint32_t)(capacity_bytes / c->cfg.page_size);
    pthread_mutex_lock(&c->lock);
    if (capacity_bytes != c->cfg.capacity_bytes)
        c->st.resizes++;
    c->cfg.capacity_bytes = capacity_bytes;
    zc__arena_set_budget(&c->arena, frames);
    while (c->arena.frames_used > frames) {
        uint64_t before = c->st.evictions;
        if (!evict_one(c))
            break; /* cannot happen: every frame in use holds pages */
        c->st.resize_evictions += c->st.evictions - before;
    }
    pthread_mutex_unlock(&c->lock);
    return 0;
}

/* ---- invalidation ------------------------------------------------------- */

int zc_probe_page(zc_cache *c, int pool, const zc_filekey *key, uint64_t index)
{
    uint32_t oid;
    int rc = 0;

    if (!c || !key)
        return -ZC_EINVAL;
    pthread_mutex_lock(&c->lock);
    if (!zc__pool_get(&c->idx, pool))
        rc = -ZC_EINVAL;
    else if ((oid = zc__object_find(&c->idx, pool, key, zc__index_hi(index))))
        rc = zc__page_find(&c->idx, oid, zc__index_lo(index)) != 0;
    pthread_mutex_unlock(&c->lock);
    return rc;
}

int zc_invalidate_page(zc_cache *c, int pool, const zc_filekey *key,
                       uint64_t index)
{
    uint32_t oid, eid;
    int rc = 0;

    if (!c || !key)
        return -ZC_EINVAL;
    pthread_mutex_lock(&c->lock);
    if (!zc__pool_get(&c->idx, pool)) {
        rc = -ZC_EINVAL;
    } else if ((oid =
                    zc__object_find(&c->idx, pool, key, zc__index_hi(index))) &&
               (eid = zc__page_find(&c->idx, oid, zc__index_lo(index)))) {
        drop(c, oid, eid, DROP_INVALIDATE);
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}

int zc_invalidate_inode(zc_cache *c, int pool, const zc_filekey *key)
{
    uint32_t oid;
    int rc = 0;

    if (!c || !key)
        return -ZC_EINVAL;
    pthread_mutex_lock(&c->lock);
    if (!zc__pool_get(&c->idx, pool))
        rc = -ZC_EINVAL;
    else
        while ((oid = zc__object_find_any(&c->idx, pool, key)))
            drop_object(c, oid);
    pthread_mutex_unlock(&c->lock);
    return rc;
}

int zc_invalidate_fs(zc_cache *c, int pool)
{
    struct zc__pool *p;

    if (!c)
        return -ZC_EINVAL;
    pthread_mutex_lock(&c->lock);
    p = zc__pool_get(&c->idx, pool);
    if (!p) {
        pthread_mutex_unlock(&c->lock);
        return -ZC_EINVAL;
    }
    for (uint32_t b = 0; b < (1u << p->nb_log2); b++)
        while (p->buckets[b])
            drop_object(c, p->buckets[b]);
    zc__pool_release(&c->idx, pool, atomic_fetch_add(&c->epoch, 1) + 1);
    pthread_mutex_unlock(&c->lock);
    return 0;
}
