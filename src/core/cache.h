/*
 * core/cache.h - the cache object, shared by cache.c (the API) and stats.c
 * (statistics and the debug checker).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_CACHE_H
#define ZC_CACHE_H

#include <pthread.h>
#include <string.h>

#include "dedup.h"
#include "index.h"

/* In front of every compressed object in the arena: the entry that owns
 * it (so compaction can update the entry) and its exact size. */
#define ZC__OBJ_HDR 6

/* Compression work space of one thread at a time: the compressor's work
 * memory and an output buffer with room for the object header in front. */
struct zc__scratch {
    struct zc__scratch *next;
    uint8_t *wrkmem;
    uint8_t *out;
    size_t bytes;
};

struct zc_cache {
    zc_config cfg;
    struct zc__mem mem;
    pthread_mutex_t lock;         /* everything below but scratch */
    pthread_mutex_t scratch_lock; /* the scratch free list */
    struct zc__scratch *scratch;
    const struct zc__compressor_ops *comp;
    const struct zc__allocator_ops *aops;
    void *alloc;
    const struct zc__policy_ops *pops;
    void *pstate;
    struct zc__arena arena;
    struct zc__index idx;
    uint8_t *bounce;     /* one object that straddles frames, under lock */
    size_t accept_bytes; /* largest compressed size kept */
    int level;           /* the compressor's level, resolved */
    uint8_t *dwrk;       /* decompression work memory, under lock */
    size_t dwrk_bytes;
    uint32_t *mates; /* frame mates of one object, under lock */
    unsigned mates_max;
    struct zc__dedup dd; /* copies and their sharers, if cfg.dedup */
    uint32_t *evbuf;     /* dedup: entries to evict with a frame */
    size_t evbuf_cap;
    size_t obj_max;             /* largest object the allocator takes */
    atomic_uint_fast64_t epoch; /* bumped by every pool creation and drop */
    atomic_size_t work_bytes;   /* scratch buffers held */
    zc_stats st;                /* counters; "now" fields are filled on read */
    uint64_t bad_moves; /* relocations whose entry did not match (a bug) */
};

/* The ring of sharers says whether an entry shares its copy (dedup). */
static inline bool zc__shared(const struct zc_cache *c, uint32_t eid)
{
    return c->cfg.dedup && *zc__dd_next(&c->dd, eid) != eid;
}

static inline void zc__read_hdr(const struct zc_cache *c, uint32_t handle,
                                uint32_t *eid, uint16_t *size)
{
    uint8_t tmp[ZC__OBJ_HDR];
    const uint8_t *p = c->aops->map(c->alloc, handle, ZC__OBJ_HDR, tmp);

    memcpy(eid, p, 4);
    memcpy(size, p + 4, 2);
}

#endif /* ZC_CACHE_H */
