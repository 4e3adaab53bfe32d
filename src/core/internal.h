/*
 * core/internal.h - what the library's modules share and nothing else sees.
 *
 * The library is layered: mem (the heap hook, with exact accounting) at the
 * bottom; arena (page frames within the byte budget) above it; allocators
 * (objects packed into frames) and policies (eviction order over index
 * entries) beside each other above that; the index (pool -> object ->
 * page) and the cache (the public API) on top.  Back-ends are reached only
 * through the small ops tables below, found by name in registry.c.
 *
 * Internal non-static symbols carry the zc__ prefix and hidden visibility.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_INTERNAL_H
#define ZC_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "zcache.h"

#define ZC__UNUSED(x) ((void)(x))

/* Internal assertions: the invariants zc_cache_check() walks, checked
 * where they are made.  On in builds with ZC_DEBUG (CMake's Debug builds,
 * the sanitizer build among them), where a broken one aborts with its
 * place; compiled out otherwise, so a release library never exits on its
 * own (it returns -ZC_ECORRUPT where it finds damage instead). */
#ifdef ZC_DEBUG
#include <assert.h>
#define ZC_ASSERT(cond) assert(cond)
#else
#define ZC_ASSERT(cond) ((void)0)
#endif

/* ---- mem.c: every heap byte of a cache goes through here -------------- */

/* What a metadata allocation grows with, for zc_stats' split of
 * meta_bytes: every call names it, and the free names it again. */
enum zc__mem_kind {
    ZC__MEM_FIXED, /* neither: the cache, back-end tables, work space */
    ZC__MEM_FILE,  /* the files held: objects, the pools' tables of them */
    ZC__MEM_PAGE,  /* the pages (or frames) held: entries, their buckets,
                      allocator spans, policy and dedup state */
    ZC__MEM_KINDS
};

struct zc__mem {
    zc_mem hook;
    atomic_size_t bytes;                     /* all bytes held now */
    atomic_size_t arena_bytes;               /* of which arena frames */
    atomic_size_t kind_bytes[ZC__MEM_KINDS]; /* the rest, by kind */
};

void zc__mem_init(struct zc__mem *m, const zc_mem *hook);
void *zc__alloc(struct zc__mem *m, enum zc__mem_kind kind, size_t n);
void *zc__calloc(struct zc__mem *m, enum zc__mem_kind kind, size_t n);
void zc__free(struct zc__mem *m, enum zc__mem_kind kind, void *p, size_t n);
/* Make room in a table of pointers (of slab chunks, which never move) for
 * entry n: doubled when full, from 8.  0; -ZC_ENOMEM. */
int zc__grow_table(struct zc__mem *m, enum zc__mem_kind kind, void ***table,
                   uint32_t *cap, uint32_t n);
void *zc__alloc_arena(struct zc__mem *m, size_t n);
void zc__free_arena(struct zc__mem *m, void *p, size_t n);

/* ---- arena.c: page frames, at most max_frames of them ----------------- */

#define ZC__CHUNK_FRAMES 64

struct zc__chunk {
    uint8_t *base;       /* NULL: slot unused */
    uint64_t free_mask;  /* bit i set: frame i is free */
    uint32_t nframes;    /* frames in this chunk (<= 64) */
    uint32_t prev, next; /* list of chunks with free frames (slot+1; 0 end) */
};

struct zc__arena {
    struct zc__mem *mem;
    size_t page_size;
    unsigned page_shift;
    uint32_t max_frames;      /* budget: frames in use at most */
    uint32_t max_frames_ever; /* the largest budget: frames obtained at most */
    uint32_t frames_obtained; /* in chunks held from mem */
    uint32_t frames_used;
    struct zc__chunk *chunks;
    uint32_t nchunks, chunks_cap; /* slots in use (high water), allocated */
    uint32_t partial;             /* first chunk with free frames, slot+1 */
};

void zc__arena_init(struct zc__arena *a, struct zc__mem *mem, size_t page_size,
                    uint32_t max_frames);
void zc__arena_destroy(struct zc__arena *a);
void zc__arena_set_budget(struct zc__arena *a, uint32_t max_frames);
/* 0 and *frame; -ZC_ENOSPC at the budget; -ZC_ENOMEM. */
int zc__arena_alloc(struct zc__arena *a, uint32_t *frame);
void zc__arena_free(struct zc__arena *a, uint32_t frame);
int zc__arena_check(const struct zc__arena *a);

static inline uint8_t *zc__arena_frame(const struct zc__arena *a,
                                       uint32_t frame)
{
    return a->chunks[frame / ZC__CHUNK_FRAMES].base +
           ((size_t)(frame % ZC__CHUNK_FRAMES) << a->page_shift);
}

/* Whether frame is one the arena has handed out (and not taken back):
 * the arena's own answer, for the checkers of allocators and stats. */
static inline bool zc__arena_frame_in_use(const struct zc__arena *a,
                                          uint32_t frame)
{
    uint32_t slot = frame / ZC__CHUNK_FRAMES;
    unsigned bit = frame % ZC__CHUNK_FRAMES;

    return slot < a->nchunks && a->chunks[slot].base &&
           bit < a->chunks[slot].nframes &&
           !(a->chunks[slot].free_mask >> bit & 1);
}

/* ---- back-end ops tables --------------------------------------------- */

struct zc__compressor_ops {
    const char *name;
    const char *doc;
    int min_level, max_level, default_level; /* zc_config.level 0 = default */
    size_t (*wrkmem_size)(size_t page_size, int level);
    size_t (*dwrkmem_size)(size_t page_size); /* decompression, 0 if none */
    size_t (*bound)(size_t page_size);        /* largest output for one page */
    /* Optional (NULL: nothing to do): prepare work memory once, when the
     * cache makes it, for every later call. */
    void (*init_wrkmem)(void *wrkmem, size_t page_size, int level);
    void (*init_dwrkmem)(void *dwrkmem, size_t page_size);
    /* 0 and *out_len; -ZC_ECORRUPT if the back-end failed.  wrkmem is
     * wrkmem_size(len, level) bytes, 16-byte aligned. */
    int (*compress)(const void *src, size_t len, void *dst, size_t *out_len,
                    void *wrkmem, int level);
    /* 0 iff exactly dst_len bytes came out. */
    int (*decompress)(const void *src, size_t len, void *dst, size_t dst_len,
                      void *dwrkmem);
};

/* How an allocator tells its owner that compaction moved an object. */
struct zc__relocate {
    void (*moved)(void *ctx, uint32_t old_handle, uint32_t new_handle);
    void *ctx;
};

struct zc__allocator_ops {
    const char *name;
    const char *doc;
    int (*create)(struct zc__arena *arena, struct zc__mem *mem,
                  const struct zc__relocate *reloc, void **out);
    void (*destroy)(void *a);
    size_t (*max_size)(const void *a); /* largest object it takes */
    /* 0 and *handle (< 2^31); -ZC_ENOSPC: needs a frame the arena has not;
     * -ZC_ENOMEM. */
    int (*alloc)(void *a, size_t size, uint32_t *handle);
    void (*free)(void *a, uint32_t handle);
    /* A pointer to len bytes of the object: into the arena, or, when the
     * object straddles frames, into bounce after copying. */
    const void *(*map)(void *a, uint32_t handle, size_t len, void *bounce);
    void (*write)(void *a, uint32_t handle, const void *src, size_t len);
    /* Objects that must go with this one for its frame to become free;
     * NULL for an allocator that never evicts for a frame's sake. */
    unsigned (*buddies)(void *a, uint32_t handle, uint32_t *out, unsigned max);
    /* Every other object with bytes in a frame that this one occupies (a
     * frame-LRU policy evicts and refreshes them together).  At most max
     * are written; returns how many were. */
    unsigned (*mates)(void *a, uint32_t handle, uint32_t *out, unsigned max);
    /* Verify; *objects = objects held.  0 or -ZC_ECORRUPT. */
    int (*check)(const void *a, uint64_t *objects);
};

struct zc__entries; /* index.h */

struct zc__policy_ops {
    const char *name;
    const char *doc;
    size_t state_size;
    /* Pages in a frame go together: the cache refreshes a page's frame
     * mates with it and evicts them with the victim (a frame LRU). */
    bool whole_frames;
    /* 0; -ZC_ENOMEM.  mem is for state that grows with the pages held. */
    int (*init)(void *st, struct zc__entries *ents, struct zc__mem *mem);
    void (*destroy)(void *st); /* NULL if init allocates nothing */
    /* Newly stored, taking `bytes` of the arena (object and header, or a
     * frame).  0; -ZC_ENOMEM (the page is then not stored). */
    int (*insert)(void *st, uint32_t id, uint32_t bytes);
    void (*touch)(void *st, uint32_t id); /* hit that keeps the copy */
    void (*remove)(void *st, uint32_t id);
    uint32_t (*victim)(void *st); /* next to evict, 0 if none; not removed */
    uint64_t (*count)(const void *st); /* walks: entries held, for checks */
};

/* ---- registry.c ------------------------------------------------------- */

const struct zc__compressor_ops *zc__find_compressor(const char *name);
const struct zc__allocator_ops *zc__find_allocator(const char *name);
const struct zc__policy_ops *zc__find_policy(const char *name);

extern const struct zc__compressor_ops zc__compressor_lzo;
extern const struct zc__compressor_ops zc__compressor_none;
extern const struct zc__compressor_ops zc__compressor_lz4;
extern const struct zc__compressor_ops zc__compressor_zstd;
/* Why a known back-end is absent from this build, or NULL. */
const char *zc__backend_absent(zc_backend_kind kind, const char *name);
extern const struct zc__allocator_ops zc__allocator_zsmalloc;
extern const struct zc__allocator_ops zc__allocator_zbud;
extern const struct zc__allocator_ops zc__allocator_z3fold;
extern const struct zc__allocator_ops zc__allocator_xvmalloc;
extern const struct zc__policy_ops zc__policy_lru;
extern const struct zc__policy_ops zc__policy_fifo;
extern const struct zc__policy_ops zc__policy_clock;
extern const struct zc__policy_ops zc__policy_frame_lru;
extern const struct zc__policy_ops zc__policy_gdsf;

/* ---- alloc/zsmalloc.c, for the conformance tests -------------------- */

/* The frames (1 or 2, in span order) that the slot of zsmalloc object h
 * reaches into.  mates() is defined by slots, and a slot may reach into a
 * frame where the object's own bytes do not, so map() cannot tell the
 * tests' brute force what this does. */
unsigned zc__zsmalloc_slot_frames(const void *a, uint32_t h, uint32_t out[2]);

/* ---- config.c --------------------------------------------------------- */

int zc__config_validate(const zc_config *cfg);

/* ---- small helpers ---------------------------------------------------- */

/* Host-order loads and stores at any alignment (in frames, entries). */
static inline uint16_t zc__ld16(const void *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

static inline void zc__st16(void *p, uint16_t v)
{
    memcpy(p, &v, 2);
}

static inline uint32_t zc__ld32(const void *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline void zc__st32(void *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

static inline unsigned zc__log2(size_t v)
{
    unsigned r = 0;
    while (v > 1) {
        v >>= 1;
        r++;
    }
    return r;
}

/* The calling thread's CPU time in ns (CLOCK_THREAD_CPUTIME_ID): the
 * compress_ns and decompress_ns counters are differences of it. */
uint64_t zc__now_ns(void);

#endif /* ZC_INTERNAL_H */
