/*
 * core/dedup.h - identical stored copies shared between pages (see dedup.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_DEDUP_H
#define ZC_DEDUP_H

#include "internal.h"

#define ZC__DD_NONE 0xFFFFFFFFu

struct zc__dd_link {
    uint32_t next, prev; /* the ring of entries sharing a copy */
};

struct zc__dd_slot {
    uint32_t anchor; /* an entry holding the copy; ZC__DD_NONE: empty */
    uint32_t hash;
};

struct zc__dedup {
    struct zc__mem *mem;
    struct zc__dd_slot *tab; /* open addressing, at most half full */
    uint32_t mask, used;
    struct zc__dd_link **ring; /* each entry's sharers, chunks of 256 */
    uint32_t nring, ring_cap;
};

uint32_t zc__dd_hash(const void *p, size_t n);

void zc__dd_init(struct zc__dedup *d, struct zc__mem *mem);
void zc__dd_destroy(struct zc__dedup *d);

/* The anchor of the first copy of hash for which same(ctx, anchor) says
 * yes, or NONE. */
uint32_t zc__dd_find(const struct zc__dedup *d, uint32_t hash,
                     int (*same)(void *ctx, uint32_t anchor), void *ctx);
/* 0; -ZC_ENOMEM (nothing changed). */
int zc__dd_insert(struct zc__dedup *d, uint32_t hash, uint32_t anchor);
void zc__dd_remove(struct zc__dedup *d, uint32_t hash, uint32_t anchor);
/* The copy's anchor leaves: another sharer takes its place.  Nothing
 * happens if old_anchor is not the anchor. */
void zc__dd_reanchor(struct zc__dedup *d, uint32_t hash, uint32_t old_anchor,
                     uint32_t new_anchor);

/* Room in the ring for entry eid: 0; -ZC_ENOMEM. */
int zc__dd_ring_reserve(struct zc__dedup *d, uint32_t eid);
static inline uint32_t *zc__dd_next(const struct zc__dedup *d, uint32_t eid)
{
    return &d->ring[eid >> 8][eid & 255].next;
}

static inline uint32_t *zc__dd_prev(const struct zc__dedup *d, uint32_t eid)
{
    return &d->ring[eid >> 8][eid & 255].prev;
}

/* The rings of sharers, spliced here and nowhere else. */

/* eid alone in a ring of its own (a copy nobody shares yet). */
static inline void zc__dd_ring_self(struct zc__dedup *d, uint32_t eid)
{
    *zc__dd_next(d, eid) = *zc__dd_prev(d, eid) = eid;
}

/* eid joins the ring of anchor, after it. */
static inline void zc__dd_link_after(struct zc__dedup *d, uint32_t anchor,
                                     uint32_t eid)
{
    uint32_t after = *zc__dd_next(d, anchor);

    *zc__dd_next(d, eid) = after;
    *zc__dd_prev(d, eid) = anchor;
    *zc__dd_prev(d, after) = eid;
    *zc__dd_next(d, anchor) = eid;
}

/* eid leaves its ring (then alone in its own); the ring's next member, or
 * eid itself if it was alone. */
static inline uint32_t zc__dd_unlink(struct zc__dedup *d, uint32_t eid)
{
    uint32_t next = *zc__dd_next(d, eid), prev = *zc__dd_prev(d, eid);

    *zc__dd_next(d, prev) = next;
    *zc__dd_prev(d, next) = prev;
    zc__dd_ring_self(d, eid);
    return next;
}

#endif
