/*
 * core/index.h - pool -> object -> page, as tmem and zcache indexed their
 * pages.
 *
 * A page held by the cache is an entry of 18 bytes in a chunked slab,
 * named by a 26-bit id (0 is never handed out: it is the policies' list
 * sentinel), so a cache holds at most 2^26 - 1 pages (67 million: 256 GiB
 * of 4 KiB pages; -ZC_ENOSPC beyond).  Entries of one object (a file:
 * pool + file key) hang in that object's own hash table, so dropping an
 * inode or a pool costs what it drops.  Objects hang in their pool's hash
 * table.
 *
 * An entry keeps the low 32 bits of its page index: the high bits are
 * part of the object's identity, so a file with pages more than 2^32 apart
 * (16 TiB of 4 KiB pages) is held as several objects (same key, other
 * index_hi), all in one chain of the pool's table, since that table hashes
 * the key only.  (Keeping 16 bits would make 16-byte entries, but split
 * every file of over 256 MiB into objects that one chain holds, so that a
 * lookup in a large file would walk them all.)  Nor does an entry name its
 * object: the last entry of every hash chain holds ZC__END | object id
 * instead of a successor, so the object of an entry is found by walking
 * to the end of its (short) chain.  Compressed data carries its own size
 * and entry id in a 6-byte header in the arena.
 *
 * The 144 bits, at byte offsets, read and written only through the
 * accessors below (entries are 1-byte aligned):
 *   0  chain   bit 31 ZC__END, bits 0..25 the next entry or the object id
 *              (ZC__CHAIN_MASK), bit 26 clock's referenced bit, bits 27..30
 *              the link's bits 48..51
 *   4  handle  the allocator's handle (< 2^31), ZC__HANDLE_RAW | frame, or
 *              ZC__HANDLE_SAME | the fill word's low 30 bits
 *   8  index   the page index's low 32 bits
 *   12 link    its bits 0..47 (52 in all): bits 0..25 next, 26..51 prev
 *              (the policies' list, or gdsf's heap slot in next); a
 *              same-filled page (no policy, no storage) keeps its fill
 *              word's high 34 bits in bits 0..33.
 * Hash bucket words hold chain values only (bits 26..30 clear), so a
 * pointer to a chain word may point into a bucket array or an entry.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_INDEX_H
#define ZC_INDEX_H

#include "internal.h"

#define ZC__ID_BITS 26
#define ZC__ID_MAX ((1u << ZC__ID_BITS) - 1) /* entry and object ids */
_Static_assert(ZC__ID_MAX == ZC_PAGES_MAX, "the header states the limit");
#define ZC__END 0x80000000u /* chain end tag, | object id */
#define ZC__CHAIN_MASK (ZC__END | ZC__ID_MAX)
#define ZC__HANDLE_RAW 0x80000000u  /* | frame id: an uncompressed page */
#define ZC__HANDLE_SAME 0xC0000000u /* | fill bits: no arena object */
#define ZC__HANDLE_KIND 0xC0000000u
#define ZC__INDEX_BITS 32 /* of a page index, kept in its entry */

#define ZC__ENT_SHIFT 8 /* 256 entries (4.5 KiB) per slab chunk */
#define ZC__OBJ_SHIFT 6 /* 64 objects (3 KiB) per slab chunk */

struct zc__entry {
    uint8_t b[18];
};

_Static_assert(sizeof(struct zc__entry) == 18, "an index entry is 18 bytes");

static inline bool zc__h_same(uint32_t h)
{
    return (h & ZC__HANDLE_KIND) == ZC__HANDLE_SAME;
}

static inline bool zc__h_raw(uint32_t h)
{
    return (h & ZC__HANDLE_KIND) == ZC__HANDLE_RAW;
}

static inline uint32_t zc__h_frame(uint32_t h) /* of a raw page */
{
    return h & ~ZC__HANDLE_KIND;
}

/* Chain words, in entries and in bucket arrays alike. */
static inline uint32_t zc__chain_get(const void *w)
{
    return zc__ld32(w) & ZC__CHAIN_MASK;
}

static inline void zc__chain_set(void *w, uint32_t v)
{
    zc__st32(w, (zc__ld32(w) & ~ZC__CHAIN_MASK) | v);
}

static inline void *zc__e_chain(struct zc__entry *e)
{
    return e->b;
}

static inline uint32_t zc__e_chain_get(const struct zc__entry *e)
{
    return zc__chain_get(e->b);
}

static inline uint32_t zc__e_handle(const struct zc__entry *e)
{
    return zc__ld32(e->b + 4);
}

static inline void zc__e_set_handle(struct zc__entry *e, uint32_t h)
{
    zc__st32(e->b + 4, h);
}

static inline uint32_t zc__e_index(const struct zc__entry *e)
{
    return zc__ld32(e->b + 8);
}

#define ZC__L_ID 0x3FFFFFFull /* 26 bits */
#define ZC__L_PREV_SHIFT 26
#define ZC__C_REF (1u << 26)
#define ZC__C_LINK_SHIFT 27 /* the link's bits 48..51 in the chain word */

/* Bytes 12..17: link bits 0..15, then 16..47 (host order, both ways). */
static inline uint64_t zc__e_link(const struct zc__entry *e)
{
    return zc__ld16(e->b + 12) | (uint64_t)zc__ld32(e->b + 14) << 16 |
           (uint64_t)(zc__ld32(e->b) >> ZC__C_LINK_SHIFT & 0xFu) << 48;
}

static inline void zc__e_set_link(struct zc__entry *e, uint64_t v)
{
    uint32_t c = zc__ld32(e->b);

    zc__st16(e->b + 12, (uint16_t)v);
    zc__st32(e->b + 14, (uint32_t)(v >> 16));
    c = (c & ~(0xFu << ZC__C_LINK_SHIFT)) | (uint32_t)(v >> 48 & 0xFu)
                                                << ZC__C_LINK_SHIFT;
    zc__st32(e->b, c);
}

static inline uint32_t zc__e_next(const struct zc__entry *e)
{
    return (uint32_t)(zc__e_link(e) & ZC__L_ID);
}

static inline uint32_t zc__e_prev(const struct zc__entry *e)
{
    return (uint32_t)(zc__e_link(e) >> ZC__L_PREV_SHIFT & ZC__L_ID);
}

static inline void zc__e_set_next(struct zc__entry *e, uint32_t id)
{
    zc__e_set_link(e, (zc__e_link(e) & ~ZC__L_ID) | id);
}

static inline void zc__e_set_prev(struct zc__entry *e, uint32_t id)
{
    zc__e_set_link(e, (zc__e_link(e) & ~(ZC__L_ID << ZC__L_PREV_SHIFT)) |
                          (uint64_t)id << ZC__L_PREV_SHIFT);
}

static inline bool zc__e_ref(const struct zc__entry *e)
{
    return zc__ld32(e->b) & ZC__C_REF;
}

static inline void zc__e_set_ref(struct zc__entry *e, bool ref)
{
    uint32_t c = zc__ld32(e->b);

    zc__st32(e->b, ref ? c | ZC__C_REF : c & ~ZC__C_REF);
}

/* next, prev and ref cleared; the index and chain kept. */
static inline void zc__e_unlink(struct zc__entry *e)
{
    zc__e_set_link(e, 0);
    zc__e_set_ref(e, false);
}

/* A fresh entry for a page index: its low ZC__INDEX_BITS; everything
 * else cleared. */
static inline void zc__e_init(struct zc__entry *e, uint64_t index)
{
    memset(e->b, 0, sizeof(e->b));
    zc__st32(e->b + 8, (uint32_t)index);
}

static inline void zc__e_set_same(struct zc__entry *e, uint64_t word)
{
    zc__e_set_handle(e, ZC__HANDLE_SAME | (uint32_t)(word & 0x3FFFFFFFu));
    zc__e_set_link(e, word >> 30);
}

static inline uint64_t zc__e_fill(const struct zc__entry *e)
{
    return (zc__e_link(e) & ((1ull << 34) - 1)) << 30 |
           (zc__e_handle(e) & 0x3FFFFFFFu);
}

struct zc__entries {
    struct zc__entry **chunk;
    uint32_t nchunks, chunks_cap;
    uint32_t free; /* free list through hnext */
    uint32_t used; /* entries handed out */
};

static inline struct zc__entry *zc__ent(const struct zc__entries *E,
                                        uint32_t id)
{
    return &E->chunk[id >> ZC__ENT_SHIFT][id & ((1u << ZC__ENT_SHIFT) - 1)];
}

struct zc__object { /* 48 bytes */
    zc_filekey key;
    union {
        uint32_t *buckets; /* the table when nb_log2 > 0 */
        uint32_t bucket0;  /* the table when nb_log2 == 0 */
    } t;
    uint32_t count;    /* pages, and puts in flight */
    uint32_t hnext;    /* next object in the pool's chain, 0 = end */
    uint32_t index_hi; /* the page indexes' bits 32..63 */
    uint16_t pool;
    uint8_t nb_log2;
    uint8_t live;
};

_Static_assert(sizeof(struct zc__object) == 48, "an object is 48 bytes");

/* The part of a page index an object stands for, and the part its
 * entries keep. */
static inline uint64_t zc__index_hi(uint64_t index)
{
    return index >> ZC__INDEX_BITS;
}

static inline uint32_t zc__index_lo(uint64_t index)
{
    return (uint32_t)index;
}

static inline uint64_t zc__obj_index_hi(const struct zc__object *o)
{
    return o->index_hi;
}

struct zc__pool {
    uint32_t *buckets; /* object ids */
    uint32_t nobj;
    uint8_t nb_log2;
    uint8_t live;
    uint8_t shared;
    uint8_t uuid[16];
    uint64_t born; /* the cache's pool epoch when created */
    uint64_t died; /* ... when last dropped (slot not live) */
};

struct zc__index {
    struct zc__mem *mem;
    struct zc__entries ents;
    struct zc__object **ochunk;
    uint32_t nochunks, ochunks_cap;
    uint32_t ofree;   /* free objects through hnext */
    uint32_t objects; /* live */
    uint32_t files;   /* distinct (pool, key) among them */
    struct zc__pool *pools;
    uint32_t npools, pools_cap; /* slots ever used, allocated */
    uint32_t pool_hint;         /* no free slot below this one */
    uint32_t live_pools;
};

static inline struct zc__object *zc__obj(const struct zc__index *x, uint32_t id)
{
    return &x->ochunk[id >> ZC__OBJ_SHIFT][id & ((1u << ZC__OBJ_SHIFT) - 1)];
}

int zc__index_init(struct zc__index *x, struct zc__mem *mem);
void zc__index_destroy(struct zc__index *x);

/* Entries. */
int zc__entry_new(struct zc__index *x, uint32_t *id);
void zc__entry_free(struct zc__index *x, uint32_t id);

/* Pools: 0..npools-1; a live one has live set. */
int zc__pool_new(struct zc__index *x, uint64_t born, int *id);
static inline struct zc__pool *zc__pool_get(const struct zc__index *x, int id)
{
    if (id < 0 || (uint32_t)id >= x->npools || !x->pools[id].live)
        return NULL;
    return &x->pools[id];
}
/* Must hold no object; the slot remembers the epoch of its death. */
void zc__pool_release(struct zc__index *x, int id, uint64_t epoch);

/* Objects. */
uint32_t zc__object_find(const struct zc__index *x, int pool,
                         const zc_filekey *key, uint64_t index_hi);
/* Any object of the key, whatever its index_hi; 0 if none. */
uint32_t zc__object_find_any(const struct zc__index *x, int pool,
                             const zc_filekey *key);
int zc__object_new(struct zc__index *x, int pool, const zc_filekey *key,
                   uint64_t index_hi, uint32_t *id);
void zc__object_release(struct zc__index *x, uint32_t oid); /* empty only */

/* Pages of an object. */
/* index: the low ZC__INDEX_BITS (zc__index_lo). */
uint32_t zc__page_find(const struct zc__index *x, uint32_t oid, uint32_t index);
void zc__page_link(struct zc__index *x, uint32_t oid, uint32_t eid);
void zc__page_unlink(struct zc__index *x, uint32_t oid, uint32_t eid);
uint32_t zc__page_object(const struct zc__index *x, uint32_t eid);
/* Call fn on every page of an object, then empty its table.  fn may free
 * the entry but must not touch this object's table. */
void zc__page_drain(struct zc__index *x, uint32_t oid,
                    void (*fn)(void *ctx, uint32_t eid), void *ctx);

size_t zc__object_buckets(const struct zc__object *o);

#endif /* ZC_INDEX_H */
