/*
 * core/alloc/xvmalloc.c - variable-sized blocks within frames, found through a
 * two-level bitmap over segregated free lists, after the xvmalloc that
 * the 2010 zcache and ramzswap used.
 *
 * A frame is a row of blocks that tile it exactly; no block straddles two
 * frames.  Each block starts with a 4-byte header:
 *   u16 size   payload bytes (the block less its header)
 *   u16 prev   offset of the physically previous block in the frame, its
 *              two low bits flags: BLOCK_FREE (this block), PREV_FREE
 *              (the previous one; spares a look at it when freeing)
 * and a free block's payload carries its free-list links:
 *   u32 prev frame + 1, u32 next frame + 1, u16 prev offset, u16 next
 *   offset.
 * Blocks are 8-byte aligned and at least MIN_BLOCK bytes (xvmalloc has
 * XV_ALIGN 4: 8 here lets a handle, frame id << (page_shift - 3) | block
 * offset / 8, fit 31 bits for every page size and budget).
 *
 * Free blocks sit on free lists by size: list i holds blocks of MIN_BLOCK
 * + i * DELTA to MIN_BLOCK + (i + 1) * DELTA - 1 bytes, DELTA being the
 * alignment (so a list holds one size exactly) unless that makes more than
 * 64 * 64 lists (64 KiB pages), then twice it.  A bit per list in 64-bit
 * words says which lists are non-empty, and a bit per word which words are
 * non-zero; an allocation rounds its size up to a list, looks at that
 * word from that bit up, then at the first non-zero word above: two find-
 * first-set instructions, constant time, and the block found fits with no
 * search of any list (xvmalloc's find_block; TLSF's scheme with a linear
 * first level, the size range of one page being small).  The block is
 * split when what is left is a block of its own, which goes back on a list.
 *
 * Freeing merges the block with a free next and a free previous block, so
 * two free blocks are never neighbours; a frame whose one block is free
 * goes back to the arena at once.  Nothing moves, and there is no
 * whole-frame eviction: no buddies(), mates() the frame's other
 * allocated blocks.
 *
 * The frames held are marked in a bitmap by frame id (xvmalloc keeps no
 * such record): check() walks every frame through it.
 *
 * Invariants: the blocks of a held frame tile it, each header's prev and
 * PREV_FREE agree with its neighbour, no two free blocks are adjacent, a
 * held frame has an allocated block; every free block is on the list of
 * its size, and a list's bit is set iff the list is non-empty, a word's
 * bit iff the word is non-zero.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "../internal.h"

#define HDR 4
#define ALIGN 8
#define MIN_BLOCK 32 /* header and payload; a free one holds its links */
#define MAX_WORDS 64 /* second-level words: at most 4096 lists */
#define BLOCK_FREE 1u
#define PREV_FREE 2u
#define FLAGS (BLOCK_FREE | PREV_FREE)

struct xv_loc {
    uint32_t frame1; /* frame id + 1; 0 = none */
    uint16_t off;
};

struct xv {
    struct zc__arena *arena;
    struct zc__mem *mem;
    size_t page;
    unsigned off_bits; /* handle bits for the block offset / ALIGN */
    unsigned dshift;   /* log2 of the size step between lists */
    uint32_t nlists;
    struct xv_loc *heads; /* by list */
    uint64_t flbitmap;    /* bit w: slbitmap[w] != 0 */
    uint64_t slbitmap[MAX_WORDS];
    uint64_t *held; /* bit per frame id: ours */
    size_t held_words;
    uint64_t objects, frames;
};

/* ---- blocks ----------------------------------------------------------- */

static inline uint8_t *blk(const struct xv *x, uint32_t frame, size_t off)
{
    return zc__arena_frame(x->arena, frame) + off;
}

/* A block's whole length, header included. */
static inline size_t blk_len(const uint8_t *b)
{
    return (size_t)zc__ld16(b) + HDR;
}

static inline size_t blk_prev(const uint8_t *b)
{
    return zc__ld16(b + 2) & ~FLAGS;
}

static inline unsigned blk_flags(const uint8_t *b)
{
    return zc__ld16(b + 2) & FLAGS;
}

static inline void blk_set(uint8_t *b, size_t len, size_t prev, unsigned flags)
{
    zc__st16(b, (uint16_t)(len - HDR));
    zc__st16(b + 2, (uint16_t)(prev | flags));
}

/* Tell the block after [off, off + len), if any, who precedes it now. */
static void next_learns(const struct xv *x, uint32_t frame, size_t off,
                        size_t len, int is_free)
{
    uint8_t *n;

    if (off + len >= x->page)
        return;
    n = blk(x, frame, off + len);
    blk_set(n, blk_len(n), off,
            (blk_flags(n) & BLOCK_FREE) | (is_free ? PREV_FREE : 0));
}

/* ---- free lists ------------------------------------------------------- */

/* The list a free block of len bytes goes on (its size rounded down)... */
static inline uint32_t list_for_block(const struct xv *x, size_t len)
{
    return (uint32_t)((len - MIN_BLOCK) >> x->dshift);
}

/* ...and the first whose every block fits len bytes (rounded up). */
static inline uint32_t list_for_need(const struct xv *x, size_t len)
{
    return (uint32_t)((len - MIN_BLOCK + ((size_t)1 << x->dshift) - 1) >>
                      x->dshift);
}

static void link_get(const struct xv *x, struct xv_loc at, struct xv_loc *prev,
                     struct xv_loc *next)
{
    const uint8_t *l = blk(x, at.frame1 - 1, at.off) + HDR;

    prev->frame1 = zc__ld32(l);
    next->frame1 = zc__ld32(l + 4);
    prev->off = zc__ld16(l + 8);
    next->off = zc__ld16(l + 10);
}

static void link_set_prev(const struct xv *x, struct xv_loc at,
                          struct xv_loc prev)
{
    uint8_t *l = blk(x, at.frame1 - 1, at.off) + HDR;

    zc__st32(l, prev.frame1);
    zc__st16(l + 8, prev.off);
}

static void link_set_next(const struct xv *x, struct xv_loc at,
                          struct xv_loc next)
{
    uint8_t *l = blk(x, at.frame1 - 1, at.off) + HDR;

    zc__st32(l + 4, next.frame1);
    zc__st16(l + 10, next.off);
}

static void list_insert(struct xv *x, uint32_t frame, size_t off, size_t len)
{
    uint32_t i = list_for_block(x, len);
    struct xv_loc at = {frame + 1, (uint16_t)off}, none = {0, 0};

    link_set_prev(x, at, none);
    link_set_next(x, at, x->heads[i]);
    if (x->heads[i].frame1)
        link_set_prev(x, x->heads[i], at);
    x->heads[i] = at;
    x->slbitmap[i / 64] |= 1ULL << (i % 64);
    x->flbitmap |= 1ULL << (i / 64);
}

static void list_remove(struct xv *x, uint32_t frame, size_t off, size_t len)
{
    uint32_t i = list_for_block(x, len);
    struct xv_loc at = {frame + 1, (uint16_t)off}, prev, next;

    link_get(x, at, &prev, &next);
    if (prev.frame1)
        link_set_next(x, prev, next);
    else
        x->heads[i] = next;
    if (next.frame1)
        link_set_prev(x, next, prev);
    if (!x->heads[i].frame1) {
        x->slbitmap[i / 64] &= ~(1ULL << (i % 64));
        if (!x->slbitmap[i / 64])
            x->flbitmap &= ~(1ULL << (i / 64));
    }
}

/* The first non-empty list whose blocks all fit len bytes; -1 if none. */
static int64_t find_list(const struct xv *x, size_t len)
{
    uint32_t i = list_for_need(x, len), w = i / 64;
    uint64_t bits, words;

    if (i >= x->nlists)
        return -1;
    bits = x->slbitmap[w] & (~0ULL << (i % 64));
    if (bits)
        return (int64_t)w * 64 + __builtin_ctzll(bits);
    words = w + 1 < 64 ? x->flbitmap & (~0ULL << (w + 1)) : 0;
    if (!words)
        return -1;
    w = (uint32_t)__builtin_ctzll(words);
    return (int64_t)w * 64 + __builtin_ctzll(x->slbitmap[w]);
}

/* ---- the frames held -------------------------------------------------- */

static int held_add(struct xv *x, uint32_t frame)
{
    size_t w = frame / 64;

    if (w >= x->held_words) {
        size_t n = x->held_words ? x->held_words * 2 : 16;
        uint64_t *t;
        while (n <= w)
            n *= 2;
        t = zc__calloc(x->mem, ZC__MEM_PAGE, n * sizeof(*t));
        if (!t)
            return -ZC_ENOMEM;
        if (x->held)
            memcpy(t, x->held, x->held_words * sizeof(*t));
        zc__free(x->mem, ZC__MEM_PAGE, x->held, x->held_words * sizeof(*t));
        x->held = t;
        x->held_words = n;
    }
    x->held[w] |= 1ULL << (frame % 64);
    x->frames++;
    return 0;
}

static void held_drop(struct xv *x, uint32_t frame)
{
    x->held[frame / 64] &= ~(1ULL << (frame % 64));
    x->frames--;
    zc__arena_free(x->arena, frame);
}

/* ---- ops -------------------------------------------------------------- */

static void xv_destroy(void *p)
{
    struct xv *x = p;

    if (!x)
        return;
    /* Frames go back with the arena. */
    zc__free(x->mem, ZC__MEM_PAGE, x->held, x->held_words * sizeof(*x->held));
    zc__free(x->mem, ZC__MEM_FIXED, x->heads, x->nlists * sizeof(*x->heads));
    zc__free(x->mem, ZC__MEM_FIXED, x, sizeof(*x));
}

static int xv_create(struct zc__arena *arena, struct zc__mem *mem,
                     const struct zc__relocate *reloc, void **out)
{
    struct xv *x = zc__calloc(mem, ZC__MEM_FIXED, sizeof(*x));

    ZC__UNUSED(reloc);
    if (!x)
        return -ZC_ENOMEM;
    x->arena = arena;
    x->mem = mem;
    x->page = arena->page_size;
    x->off_bits = arena->page_shift - 3;
    x->dshift = 3;
    while (((x->page - MIN_BLOCK) >> x->dshift) + 1 > MAX_WORDS * 64)
        x->dshift++;
    x->nlists = (uint32_t)((x->page - MIN_BLOCK) >> x->dshift) + 1;
    x->heads = zc__calloc(mem, ZC__MEM_FIXED, x->nlists * sizeof(*x->heads));
    if (!x->heads) {
        xv_destroy(x);
        return -ZC_ENOMEM;
    }
    *out = x;
    return 0;
}

static size_t xv_max_size(const void *p)
{
    const struct xv *x = p;

    return x->page - HDR;
}

static int xv_alloc(void *p, size_t size, uint32_t *handle)
{
    struct xv *x = p;
    size_t need = (size + HDR + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    size_t off = 0, len, prev = 0;
    uint32_t frame;
    int64_t i;

    if (size == 0 || size > x->page - HDR)
        return -ZC_EINVAL;
    if (need < MIN_BLOCK)
        need = MIN_BLOCK;
    i = find_list(x, need);
    if (i >= 0) {
        frame = x->heads[i].frame1 - 1;
        off = x->heads[i].off;
        len = blk_len(blk(x, frame, off));
        prev = blk_prev(blk(x, frame, off));
        list_remove(x, frame, off, len);
    } else {
        int rc = zc__arena_alloc(x->arena, &frame);
        if (rc)
            return rc;
        if (frame >> (31 - x->off_bits)) { /* the handle would not fit */
            zc__arena_free(x->arena, frame);
            return -ZC_ENOSPC;
        }
        rc = held_add(x, frame);
        if (rc) {
            zc__arena_free(x->arena, frame);
            return rc;
        }
        len = x->page;
    }
    /* The free block's previous block is allocated: free ones merge. */
    if (len - need >= MIN_BLOCK) {
        blk_set(blk(x, frame, off), need, prev, 0);
        blk_set(blk(x, frame, off + need), len - need, off, BLOCK_FREE);
        list_insert(x, frame, off + need, len - need);
        next_learns(x, frame, off + need, len - need, 1);
    } else {
        blk_set(blk(x, frame, off), len, prev, 0);
        next_learns(x, frame, off, len, 0);
    }
    x->objects++;
    *handle = frame << x->off_bits | (uint32_t)(off / ALIGN);
    return 0;
}

static void xv_free(void *p, uint32_t handle)
{
    struct xv *x = p;
    uint32_t frame = handle >> x->off_bits;
    size_t off = (size_t)(handle & ((1u << x->off_bits) - 1)) * ALIGN;
    uint8_t *b = blk(x, frame, off);
    size_t len = blk_len(b), prev = blk_prev(b);

    x->objects--;
    if (off + len < x->page) {
        const uint8_t *n = blk(x, frame, off + len);
        if (blk_flags(n) & BLOCK_FREE) {
            size_t nlen = blk_len(n);
            list_remove(x, frame, off + len, nlen);
            len += nlen;
        }
    }
    if (blk_flags(b) & PREV_FREE) {
        const uint8_t *pb = blk(x, frame, prev);
        size_t plen = blk_len(pb);
        list_remove(x, frame, prev, plen);
        off = prev;
        len += plen;
        prev = blk_prev(pb);
    }
    if (len == x->page) {
        held_drop(x, frame);
        return;
    }
    blk_set(blk(x, frame, off), len, prev, BLOCK_FREE);
    list_insert(x, frame, off, len);
    next_learns(x, frame, off, len, 1);
}

static uint8_t *payload(const struct xv *x, uint32_t handle)
{
    return blk(x, handle >> x->off_bits,
               (size_t)(handle & ((1u << x->off_bits) - 1)) * ALIGN) +
           HDR;
}

static const void *xv_map(void *p, uint32_t handle, size_t len, void *bounce)
{
    ZC__UNUSED(len);
    ZC__UNUSED(bounce);
    return payload(p, handle);
}

static void xv_write(void *p, uint32_t handle, const void *src, size_t len)
{
    memcpy(payload(p, handle), src, len);
}

/* The other allocated blocks of the frame, in address order. */
static unsigned xv_mates(void *p, uint32_t handle, uint32_t *out, unsigned max)
{
    struct xv *x = p;
    uint32_t frame = handle >> x->off_bits;
    unsigned n = 0;

    for (size_t off = 0; off < x->page && n < max;) {
        const uint8_t *b = blk(x, frame, off);
        uint32_t h = frame << x->off_bits | (uint32_t)(off / ALIGN);
        if (!(blk_flags(b) & BLOCK_FREE) && h != handle)
            out[n++] = h;
        off += blk_len(b);
    }
    return n;
}

/* ---- check ------------------------------------------------------------ */

/* Walk a held frame's blocks: they tile it and agree with each other. */
static int check_frame(const struct xv *x, uint32_t frame, uint64_t *used,
                       uint64_t *nfree)
{
    size_t off = 0, prev = 0;
    unsigned prev_free = 0, any_used = 0;

    if (!zc__arena_frame_in_use(x->arena, frame))
        return -ZC_ECORRUPT;
    while (off < x->page) {
        const uint8_t *b = blk(x, frame, off);
        size_t len = blk_len(b);
        unsigned f = blk_flags(b);
        if (len < MIN_BLOCK || len % ALIGN || len > x->page - off ||
            blk_prev(b) != prev || !(f & PREV_FREE) != !prev_free ||
            ((f & BLOCK_FREE) && prev_free))
            return -ZC_ECORRUPT;
        if (f & BLOCK_FREE) {
            ++*nfree;
        } else {
            ++*used;
            any_used = 1;
        }
        prev_free = f & BLOCK_FREE;
        prev = off;
        off += len;
    }
    return any_used ? 0 : -ZC_ECORRUPT;
}

/* A listed place is a free block of a held frame, on the right list. */
static int check_listed(const struct xv *x, struct xv_loc at, uint32_t list)
{
    uint32_t frame = at.frame1 - 1;
    size_t off = 0;

    if (frame / 64 >= x->held_words ||
        !(x->held[frame / 64] >> (frame % 64) & 1))
        return -ZC_ECORRUPT;
    while (off < at.off)
        off += blk_len(blk(x, frame, off));
    if (off != at.off || !(blk_flags(blk(x, frame, off)) & BLOCK_FREE) ||
        list_for_block(x, blk_len(blk(x, frame, off))) != list)
        return -ZC_ECORRUPT;
    return 0;
}

static int xv_check(const void *p, uint64_t *objects)
{
    const struct xv *x = p;
    uint64_t used = 0, nfree = 0, listed = 0, frames = 0;
    int rc = 0;

    for (size_t w = 0; w < x->held_words && !rc; w++)
        for (uint64_t bits = x->held[w]; bits && !rc; bits &= bits - 1) {
            frames++;
            rc = check_frame(x, (uint32_t)(w * 64 + __builtin_ctzll(bits)),
                             &used, &nfree);
        }
    *objects = used;
    if (rc || frames != x->frames || used != x->objects)
        return -ZC_ECORRUPT;
    for (uint32_t w = 0; w < MAX_WORDS; w++) {
        if (!(x->flbitmap >> w & 1) != !x->slbitmap[w])
            return -ZC_ECORRUPT;
        for (unsigned b = 0; b < 64; b++) {
            uint32_t i = w * 64 + b;
            int bit = x->slbitmap[w] >> b & 1;
            if (i >= x->nlists) {
                if (bit)
                    return -ZC_ECORRUPT;
                continue;
            }
            if (!bit != !x->heads[i].frame1)
                return -ZC_ECORRUPT;
            for (struct xv_loc at = x->heads[i], prev = {0, 0}, pp, next;
                 at.frame1; prev = at, at = next) {
                if (++listed > nfree || check_listed(x, at, i))
                    return -ZC_ECORRUPT;
                link_get(x, at, &pp, &next);
                if (pp.frame1 != prev.frame1 ||
                    (prev.frame1 && pp.off != prev.off))
                    return -ZC_ECORRUPT;
            }
        }
    }
    return listed == nfree ? 0 : -ZC_ECORRUPT;
}

const struct zc__allocator_ops zc__allocator_xvmalloc = {
    .name = "xvmalloc",
    .doc = "blocks of any size within a frame, O(1) fit through a "
           "two-level bitmap over free lists, neighbours merged (after "
           "the 2010 zcache's xvmalloc)",
    .create = xv_create,
    .destroy = xv_destroy,
    .max_size = xv_max_size,
    .alloc = xv_alloc,
    .free = xv_free,
    .map = xv_map,
    .write = xv_write,
    .mates = xv_mates,
    .check = xv_check,
};
