/*
 * sim/model/player.c - playing a cleancache op stream into a zcache.
 *
 * The player is where ops meet the library: the page-cache model (replay.c)
 * hands it the ops it makes, and zcache-replay hands it the ops of a .zct
 * file, so both count the same way:
 *
 *   PC_HITS n           n accesses, n page-cache hits, n resident hits
 *   GET                 an access (a read miss): a hit is a disk read
 *                       avoided (and a resident hit), a miss is a disk
 *                       read; with ZC_OP_GET_AHEAD no access but a page
 *                       read ahead: a get, a hit or a disk read, and
 *                       readahead
 *   INVALIDATE_PAGE     with ZC_OP_WRITE_MISS an access whose copy in the
 *                       zcache, if any, is a resident hit (probed first);
 *                       with ZC_OP_WRITE_HIT an access and a page-cache hit
 *   PUT                 a page-cache eviction
 *
 * Stream pools (small numbers) map to the cache's pool ids through a table
 * filled at each init op.  Without a cache the player only counts.  As in
 * the kernel, a file system whose init failed (no pool id left) or whose
 * shared pool was destroyed through another stream pool of the same UUID
 * has no pool: its puts are dropped and its gets miss ("gone" below).
 *
 * Verification keeps, per key, a 128-bit hash of the bytes of its last put
 * (an open-addressing table, linear probing, backward-shift deletion); an
 * invalidate removes the page's entry, or scans for the inode's or pool's.
 * Keys use the cache's pool id, so that stream pools joined to one shared
 * pool see one shadow.
 * A get hit must match the entry; a hit with no entry is data the cache
 * should not have had.  Memory is malloc's: the player is not part of the
 * cache's budget.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/lptab.h"
#include "player.h"
#include "zcache_sim.h"

struct shadow {
    uint64_t index;
    uint64_t h[2];
    zc_filekey key;
    uint32_t pool1; /* stream pool + 1; 0: empty slot */
};

struct zc_player {
    zc_cache *zc;
    zc_replay_stats st;
    struct {
        int id; /* the cache's pool id; NOT_INIT, or GONE */
        size_t page_size;
    } * pools; /* by stream pool */
    size_t npools;
    unsigned char *page; /* of the largest page size */
    size_t page_cap;

    bool verify;
    struct shadow *sh;
    uint64_t sh_mask, sh_used;
};

int zc_player_create(zc_cache *zc, zc_player **out)
{
    zc_player *p;

    if (!out)
        return -ZC_EINVAL;
    p = calloc(1, sizeof(*p));
    if (!p)
        return -ZC_ENOMEM;
    p->zc = zc;
    *out = p;
    return 0;
}

void zc_player_verify(zc_player *p, bool on)
{
    if (p)
        p->verify = on;
}

int zc_player_stats_get(const zc_player *p, zc_replay_stats *out)
{
    if (!p || !out)
        return -ZC_EINVAL;
    *out = p->st;
    return 0;
}

zc_replay_stats *zc__player_stats(zc_player *p)
{
    return &p->st;
}

void zc_player_destroy(zc_player *p)
{
    if (!p)
        return;
    free(p->pools);
    free(p->page);
    free(p->sh);
    free(p);
}

/* ---- the shadow of verification ----------------------------------------- */

static uint64_t shadow_hash(uint32_t pool, const zc_filekey *k, uint64_t idx)
{
    uint64_t h = idx * 0x9E3779B97F4A7C15ull ^ pool;

    for (int i = 0; i < 6; i++)
        h = (h ^ k->fh[i]) * 0xff51afd7ed558ccdull;
    return zc__fmix64(h);
}

static struct shadow *shadow_find(zc_player *p, uint32_t pool,
                                  const zc_filekey *k, uint64_t idx,
                                  uint64_t *slot)
{
    uint64_t i;

    if (!p->sh)
        return NULL;
    for (i = shadow_hash(pool, k, idx) & p->sh_mask; p->sh[i].pool1;
         i = (i + 1) & p->sh_mask) {
        struct shadow *s = &p->sh[i];
        if (s->pool1 == pool + 1 && s->index == idx &&
            !memcmp(&s->key, k, sizeof(*k))) {
            *slot = i;
            return s;
        }
    }
    *slot = i;
    return NULL;
}

/* The shadow table's slots, for the one deletion rule (base/lptab.h). */
static bool sh_empty(const void *ctx, uint64_t j)
{
    return !((const zc_player *)ctx)->sh[j].pool1;
}

static uint64_t sh_home(const void *ctx, uint64_t j)
{
    const zc_player *p = ctx;

    return shadow_hash(p->sh[j].pool1 - 1, &p->sh[j].key, p->sh[j].index);
}

static void sh_move(void *ctx, uint64_t to, uint64_t from)
{
    zc_player *p = ctx;

    p->sh[to] = p->sh[from];
}

static void sh_clear(void *ctx, uint64_t i)
{
    ((zc_player *)ctx)->sh[i].pool1 = 0;
}

static const struct zc__lp_ops sh_ops = {sh_empty, sh_home, sh_move, sh_clear};

static void shadow_delete(zc_player *p, uint64_t i)
{
    zc__lp_delete(p, p->sh_mask, i, &sh_ops);
    p->sh_used--;
}

static int shadow_grow(zc_player *p)
{
    uint64_t n = p->sh ? (p->sh_mask + 1) * 2 : 1024;
    struct shadow *t = calloc(n, sizeof(*t));

    if (!t)
        return -ZC_ENOMEM;
    for (uint64_t j = 0; p->sh && j <= p->sh_mask; j++) {
        uint64_t i;
        if (!p->sh[j].pool1)
            continue;
        for (i = shadow_hash(p->sh[j].pool1 - 1, &p->sh[j].key,
                             p->sh[j].index) &
                 (n - 1);
             t[i].pool1; i = (i + 1) & (n - 1))
            ;
        t[i] = p->sh[j];
    }
    free(p->sh);
    p->sh = t;
    p->sh_mask = n - 1;
    return 0;
}

static int shadow_put(zc_player *p, uint32_t pool, const zc_op *op)
{
    uint64_t slot;
    struct shadow *s;

    if ((!p->sh || (p->sh_used + 1) * 2 > p->sh_mask + 1) && shadow_grow(p))
        return -ZC_ENOMEM;
    s = shadow_find(p, pool, &op->key, op->index, &slot);
    if (!s) {
        s = &p->sh[slot];
        s->pool1 = pool + 1;
        s->key = op->key;
        s->index = op->index;
        p->sh_used++;
    }
    zc__hash128(op->page, p->pools[op->pool].page_size, s->h);
    return 0;
}

/* Remove every entry of a pool (key NULL) or of one of its inodes.  A
 * deletion shifts later entries back into the slot, so the slot is looked
 * at again; an entry shifted across the end of the table from its start is
 * seen a second time, which is harmless. */
static void shadow_drop(zc_player *p, uint32_t pool, const zc_filekey *key)
{
    for (uint64_t i = 0; p->sh && i <= p->sh_mask;) {
        struct shadow *s = &p->sh[i];
        if (s->pool1 == pool + 1 &&
            (!key || !memcmp(&s->key, key, sizeof(*key))))
            shadow_delete(p, i);
        else
            i++;
    }
}

/* ---- ops ---------------------------------------------------------------- */

enum { NOT_INIT = -1, GONE = -2 };

/* What a get is: a read miss, or a page read ahead. */
static void count_get(zc_player *p, const zc_op *op)
{
    if (op->flags & ZC_OP_GET_AHEAD)
        zc__count_read_ahead(&p->st);
    else
        zc__count_read_miss(&p->st);
}

/* An op on a file system without a pool: counted, never stored or hit. */
static int gone(zc_player *p, const zc_op *op)
{
    switch (op->kind) {
    case ZC_OP_PUT:
        zc__count_eviction(&p->st);
        p->st.zc_puts++;
        return 0;
    case ZC_OP_GET:
        count_get(p, op);
        p->st.zc_gets++;
        p->st.disk_reads++;
        return 0;
    case ZC_OP_INVALIDATE_PAGE:
        zc__count_invalidate(&p->st, op->flags);
        return 0;
    case ZC_OP_INVALIDATE_FS: p->pools[op->pool].id = NOT_INIT; return 0;
    default: return 0;
    }
}

static int pool_init(zc_player *p, const zc_op *op)
{
    int id;

    if (op->pool >= p->npools) {
        size_t n = p->npools ? p->npools : 8;
        void *t;
        while (n <= op->pool)
            n *= 2;
        t = realloc(p->pools, n * sizeof(*p->pools));
        if (!t)
            return -ZC_ENOMEM;
        p->pools = t;
        for (size_t i = p->npools; i < n; i++)
            p->pools[i].id = NOT_INIT;
        p->npools = n;
    }
    if (p->pools[op->pool].id != NOT_INIT || op->page_size < 512 ||
        op->page_size > 65536 || (op->page_size & (op->page_size - 1)))
        return -ZC_EINVAL;
    if (op->page_size > p->page_cap) {
        unsigned char *t = realloc(p->page, op->page_size);
        if (!t)
            return -ZC_ENOMEM;
        p->page = t;
        p->page_cap = op->page_size;
    }
    if (!p->zc) {
        id = 0;
    } else if (op->kind == ZC_OP_INIT_SHARED_FS) {
        id = zc_init_shared_fs(p->zc, op->uuid, op->page_size);
    } else {
        id = zc_init_fs(p->zc, op->page_size);
    }
    if (id == -ZC_ENOSPC)
        id = GONE;
    else if (id < 0)
        return id;
    p->pools[op->pool].id = id;
    p->pools[op->pool].page_size = op->page_size;
    return 0;
}

static int get(zc_player *p, int pool, const zc_op *op)
{
    int rc;

    count_get(p, op);
    if (!p->zc) {
        p->st.disk_reads++;
        return 0;
    }
    p->st.zc_gets++;
    rc = zc_get_page(p->zc, pool, &op->key, op->index, p->page);
    if (rc == -ZC_ENOENT) {
        p->st.disk_reads++;
        return 0;
    }
    if (rc)
        return rc;
    p->st.zc_hits++;
    if (!(op->flags & ZC_OP_GET_AHEAD))
        p->st.resident_hits++;
    if (p->verify) {
        uint64_t slot, h[2];
        struct shadow *s =
            shadow_find(p, (uint32_t)pool, &op->key, op->index, &slot);
        zc__hash128(p->page, p->pools[op->pool].page_size, h);
        if (!s || s->h[0] != h[0] || s->h[1] != h[1])
            p->st.zc_wrong++;
    }
    return 0;
}

static int invalidate_page(zc_player *p, int pool, const zc_op *op)
{
    int rc;

    zc__count_invalidate(&p->st, op->flags);
    if (!p->zc)
        return 0;
    if (op->flags & ZC_OP_WRITE_MISS) {
        rc = zc_probe_page(p->zc, pool, &op->key, op->index);
        if (rc < 0)
            return rc;
        if (rc)
            p->st.resident_hits++;
    }
    if (p->verify) {
        uint64_t slot;
        if (shadow_find(p, (uint32_t)pool, &op->key, op->index, &slot))
            shadow_delete(p, slot);
    }
    return zc_invalidate_page(p->zc, pool, &op->key, op->index);
}

/* A put; *outcome is the cache's answer (0 stored, a ZC_PUT_* reason). */
static int put(zc_player *p, int pool, const zc_op *op, zc_put_info *info,
               int *outcome)
{
    int rc;

    *outcome = ZC_PUT_REJECT_NOSPACE;
    zc__count_eviction(&p->st);
    if (!p->zc)
        return 0;
    if (!op->page)
        return -ZC_EINVAL;
    rc = zc_put_page_info(p->zc, pool, &op->key, op->index, op->page,
                          (op->flags & ZC_OP_PUT_ACTIVE) ? ZC_PUT_ACTIVE : 0,
                          info);
    if (rc < 0)
        return rc;
    *outcome = rc;
    p->st.zc_puts++;
    if (rc == 0)
        p->st.zc_stored++;
    return p->verify ? shadow_put(p, (uint32_t)pool, op) : 0;
}

int zc__player_put(zc_player *p, const zc_op *op, zc_put_info *info,
                   int *outcome)
{
    int pool;

    if (op->pool >= p->npools || p->pools[op->pool].id == NOT_INIT)
        return -ZC_EINVAL;
    pool = p->pools[op->pool].id;
    if (pool == GONE) {
        *outcome = ZC_PUT_REJECT_RACE;
        return gone(p, op);
    }
    return put(p, pool, op, info, outcome);
}

int zc_player_op(zc_player *p, const zc_op *op)
{
    int pool = -1, rc;

    if (!p || !op)
        return -ZC_EINVAL;
    /* Every counter is at most accesses, or the ops played (which never
     * reach 2^64): an op that could carry accesses past 2^64 - 1 is
     * refused rather than let a counter wrap. */
    if ((op->kind == ZC_OP_PC_HITS ? op->count : 1) >
        UINT64_MAX - p->st.accesses)
        return -ZC_EINVAL;
    if (op->kind == ZC_OP_PC_HITS) {
        zc__count_pc_hits(&p->st, op->count);
        return 0;
    }
    if (op->kind == ZC_OP_INIT_FS || op->kind == ZC_OP_INIT_SHARED_FS)
        return pool_init(p, op);
    if (op->pool >= p->npools || p->pools[op->pool].id == NOT_INIT)
        return -ZC_EINVAL;
    pool = p->pools[op->pool].id;
    if (pool == GONE)
        return gone(p, op);
    switch (op->kind) {
    case ZC_OP_PUT: return put(p, pool, op, NULL, &rc);
    case ZC_OP_GET: return get(p, pool, op);
    case ZC_OP_INVALIDATE_PAGE: return invalidate_page(p, pool, op);
    case ZC_OP_INVALIDATE_INODE:
        if (p->verify)
            shadow_drop(p, (uint32_t)pool, &op->key);
        return p->zc ? zc_invalidate_inode(p->zc, pool, &op->key) : 0;
    case ZC_OP_INVALIDATE_FS:
        if (p->verify)
            shadow_drop(p, (uint32_t)pool, NULL);
        /* Stream pools sharing this pool (same UUID) lose it too. */
        for (size_t i = 0; p->zc && i < p->npools; i++)
            if (i != op->pool && p->pools[i].id == pool)
                p->pools[i].id = GONE;
        p->pools[op->pool].id = NOT_INIT;
        return p->zc ? zc_invalidate_fs(p->zc, pool) : 0;
    default: return -ZC_EINVAL;
    }
}
