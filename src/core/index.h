/*
 * core/index.h - pool -> object -> page, as tmem and zcache indexed their
 * pages.
 *
 * A page held by the cache is an entry of 20 bytes in a chunked slab,
 * named by a 32-bit id (0 is never handed out: it is the policies' list
 * sentinel).  Entries of one object (a file: pool + file key) hang in that
 * object's own hash table, so dropping an inode or a pool costs what it
 * drops.  Objects hang in their pool's hash table.
 *
 * To fit 20 bytes, an entry keeps only the low 32 bits of its page index:
 * the high bits are part of the object's identity, so a file with pages
 * beyond 2^32 is held as several objects (same key, other index_hi), all
 * in one chain of the pool's table, since that table hashes the key only.
 * Nor does an entry name its object: the last entry of
 * every hash chain holds ZC__END | object id instead of a successor, so the
 * object of an entry is found by walking to the end of its (short) chain.
 * Compressed data carries its own size and entry id in a 6-byte header in
 * the arena; same-filled entries keep their fill word in the policy links,
 * which they do not use (they take no arena space, so no policy evicts
 * them).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_INDEX_H
#define ZC_INDEX_H

#include "internal.h"

#define ZC__END 0x80000000u         /* chain end tag, | object id */
#define ZC__HANDLE_SAME 0xFFFFFFFFu /* same-filled: no arena object */
#define ZC__HANDLE_RAW 0x80000000u  /* | frame id: an uncompressed page */
#define ZC__ID_MAX 0x7FFFFFFFu

#define ZC__ENT_SHIFT 8 /* 256 entries (5 KiB) per slab chunk */
#define ZC__OBJ_SHIFT 6 /* 64 objects (3 KiB) per slab chunk */

struct zc__entry {
    uint32_t index;  /* page index in the file, low 32 bits */
    uint32_t hnext;  /* next in the object's chain, or ZC__END | object */
    uint32_t handle; /* allocator handle, ZC__HANDLE_RAW | frame, or SAME */
    /* Two words whose meaning is the entry's kind and the policy's: */
    union {
        struct {           /* lru, fifo, frame_lru, clock: the list, */
            uint32_t prev; /* through entry ids (clock keeps its */
            uint32_t next; /* referenced bit in prev's bit 31) */
        };
        struct {              /* gdsf: */
            uint32_t heap_at; /* the entry's slot in the heap */
            uint32_t weight;  /* bytes (low bits) and frequency */
        };
        struct {              /* a same-filled page (no policy, no */
            uint32_t fill_lo; /* storage): the word it repeats */
            uint32_t fill_hi;
        };
    };
};

_Static_assert(sizeof(struct zc__entry) == 20, "an index entry is 20 bytes");

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
    uint32_t count;    /* pages */
    uint32_t hnext;    /* next object in the pool's chain, 0 = end */
    uint32_t index_hi; /* high 32 bits of the page indexes held here */
    uint16_t pool;
    uint8_t nb_log2;
    uint8_t live;
};

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
                         const zc_filekey *key, uint32_t index_hi);
/* Any object of the key, whatever its index_hi; 0 if none. */
uint32_t zc__object_find_any(const struct zc__index *x, int pool,
                             const zc_filekey *key);
int zc__object_new(struct zc__index *x, int pool, const zc_filekey *key,
                   uint32_t index_hi, uint32_t *id);
void zc__object_release(struct zc__index *x, uint32_t oid); /* empty only */

/* Pages of an object. */
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
