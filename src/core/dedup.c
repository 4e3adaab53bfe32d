/*
 * core/dedup.c - pages of identical content share one stored copy.
 *
 * The 2010 zcache had no deduplication; KSM-style merging was the open
 * question.  With dedup on, a put whose stored form (the compressed bytes,
 * or the page for a raw copy) equals a copy already held takes no new
 * arena space: its entry points at the same allocator handle (or raw
 * frame).  Compression
 * is deterministic, so equal compressed bytes mean equal pages, and the
 * comparison is exact: a 32-bit hash of the stored bytes finds candidates,
 * the bytes themselves decide.
 *
 * Two structures:
 *   - a table of the copies held, (anchor, hash), open addressing with
 *     linear probing and backward-shift deletion, at most half full; the
 *     anchor is one entry holding the copy (entries know their handle, so
 *     compaction moves nothing here).  The hash is recomputed from the
 *     stored bytes when a copy goes or its anchor leaves, so it is not
 *     kept per entry;
 *   - the ring of sharers: for every entry, the next and previous entries
 *     holding the same copy (itself when alone), in chunks of 256 like the
 *     entries, so that a sharer leaves in constant time.  The
 *     header of a compressed copy names its anchor.
 *
 * Invariants (checked by zc_cache_check()): every entry of a ring has the
 * same handle; every copy held is in the table once, under one of its ring;
 * the header of a compressed copy names that same anchor.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "dedup.h"
#include "lptab.h"

uint32_t zc__dd_hash(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n, w;
    size_t i = 0;

    for (; i + 8 <= n; i += 8) {
        memcpy(&w, b + i, 8);
        h = (h ^ w) * 0x87c37b91114253d5ull;
        h ^= h >> 29;
    }
    w = 0;
    memcpy(&w, b + i, n - i);
    h = (h ^ w) * 0x4cf5ad432745937full;
    h ^= h >> 32;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return (uint32_t)h;
}

void zc__dd_init(struct zc__dedup *d, struct zc__mem *mem)
{
    memset(d, 0, sizeof(*d));
    d->mem = mem;
}

void zc__dd_destroy(struct zc__dedup *d)
{
    if (d->tab)
        zc__free(d->mem, ZC__MEM_PAGE, d->tab,
                 ((size_t)d->mask + 1) * sizeof(*d->tab));
    for (uint32_t i = 0; i < d->nring; i++)
        zc__free(d->mem, ZC__MEM_PAGE, d->ring[i],
                 256 * sizeof(struct zc__dd_link));
    zc__free(d->mem, ZC__MEM_PAGE, d->ring,
             (size_t)d->ring_cap * sizeof(*d->ring));
    memset(d, 0, sizeof(*d));
}

uint32_t zc__dd_find(const struct zc__dedup *d, uint32_t hash,
                     int (*same)(void *ctx, uint32_t anchor), void *ctx)
{
    if (!d->tab)
        return ZC__DD_NONE;
    for (uint32_t i = hash & d->mask; d->tab[i].anchor != ZC__DD_NONE;
         i = (i + 1) & d->mask)
        if (d->tab[i].hash == hash && same(ctx, d->tab[i].anchor))
            return d->tab[i].anchor;
    return ZC__DD_NONE;
}

static void place(struct zc__dd_slot *tab, uint32_t mask, struct zc__dd_slot s)
{
    uint32_t i = s.hash & mask;

    while (tab[i].anchor != ZC__DD_NONE)
        i = (i + 1) & mask;
    tab[i] = s;
}

int zc__dd_insert(struct zc__dedup *d, uint32_t hash, uint32_t anchor)
{
    if (!d->tab || (d->used + 1) * 2 > d->mask + 1) {
        uint32_t n = d->tab ? (d->mask + 1) * 2 : 256;
        struct zc__dd_slot *t =
            zc__alloc(d->mem, ZC__MEM_PAGE, (size_t)n * sizeof(*t));
        if (!t)
            return -ZC_ENOMEM;
        memset(t, 0xFF, (size_t)n * sizeof(*t));
        for (uint32_t i = 0; d->tab && i <= d->mask; i++)
            if (d->tab[i].anchor != ZC__DD_NONE)
                place(t, n - 1, d->tab[i]);
        if (d->tab)
            zc__free(d->mem, ZC__MEM_PAGE, d->tab,
                     ((size_t)d->mask + 1) * sizeof(*d->tab));
        d->tab = t;
        d->mask = n - 1;
    }
    place(d->tab, d->mask, (struct zc__dd_slot){anchor, hash});
    d->used++;
    return 0;
}

static uint32_t slot_of(const struct zc__dedup *d, uint32_t hash,
                        uint32_t anchor)
{
    for (uint32_t i = hash & d->mask; d->tab[i].anchor != ZC__DD_NONE;
         i = (i + 1) & d->mask)
        if (d->tab[i].anchor == anchor)
            return i;
    return ZC__DD_NONE;
}

/* The table's slots (anchor, hash), for the one deletion rule. */
static bool tab_empty(const void *ctx, uint64_t j)
{
    return ((const struct zc__dedup *)ctx)->tab[j].anchor == ZC__DD_NONE;
}

static uint64_t tab_home(const void *ctx, uint64_t j)
{
    return ((const struct zc__dedup *)ctx)->tab[j].hash;
}

static void tab_move(void *ctx, uint64_t to, uint64_t from)
{
    struct zc__dedup *d = ctx;

    d->tab[to] = d->tab[from];
}

static void tab_clear(void *ctx, uint64_t i)
{
    ((struct zc__dedup *)ctx)->tab[i].anchor = ZC__DD_NONE;
}

static const struct zc__lp_ops tab_ops = {tab_empty, tab_home, tab_move,
                                          tab_clear};

void zc__dd_remove(struct zc__dedup *d, uint32_t hash, uint32_t anchor)
{
    uint32_t i = d->tab ? slot_of(d, hash, anchor) : ZC__DD_NONE;

    if (i == ZC__DD_NONE)
        return; /* zc_cache_check() finds the table and the copies apart */
    d->used--;
    zc__lp_delete(d, d->mask, i, &tab_ops);
}

void zc__dd_reanchor(struct zc__dedup *d, uint32_t hash, uint32_t old_anchor,
                     uint32_t new_anchor)
{
    uint32_t i = d->tab ? slot_of(d, hash, old_anchor) : ZC__DD_NONE;

    if (i != ZC__DD_NONE)
        d->tab[i].anchor = new_anchor;
}

int zc__dd_ring_reserve(struct zc__dedup *d, uint32_t eid)
{
    uint32_t c = eid >> 8;

    while (d->nring <= c) {
        if (d->nring == d->ring_cap) {
            uint32_t cap = d->ring_cap ? d->ring_cap * 2 : 16;
            struct zc__dd_link **t =
                zc__alloc(d->mem, ZC__MEM_PAGE, (size_t)cap * sizeof(*t));
            if (!t)
                return -ZC_ENOMEM;
            if (d->nring)
                memcpy(t, d->ring, (size_t)d->nring * sizeof(*t));
            zc__free(d->mem, ZC__MEM_PAGE, d->ring,
                     (size_t)d->ring_cap * sizeof(*t));
            d->ring = t;
            d->ring_cap = cap;
        }
        d->ring[d->nring] =
            zc__alloc(d->mem, ZC__MEM_PAGE, 256 * sizeof(struct zc__dd_link));
        if (!d->ring[d->nring])
            return -ZC_ENOMEM;
        d->nring++;
    }
    return 0;
}
