/*
 * core/arena.c - the page frames of a cache, within its byte budget.
 *
 * Frames are what the capacity counts, as physical pages were for zcache.
 * They are obtained from the heap hook in chunks of up to 64 contiguous
 * frames (one allocation per chunk, not per frame, so that the frame table
 * costs an eighth of a byte per frame instead of eight), and a chunk goes
 * back to the heap as soon as its last frame is freed.  A chunk is never
 * larger than what is left of the budget, so the bytes obtained never
 * exceed it.
 *
 * Frame ids are chunk slot * 64 + position: dense and stable, and at most
 * 31 bits for any budget up to ZC_CAPACITY_MAX.
 *
 * The budget can change (zc_set_capacity): a shrink leaves chunks obtained
 * under the old budget in place until they empty, so the budget bounds the
 * frames in use, and the frames obtained stay within the largest budget
 * the arena ever had.
 *
 * Invariants: frames_used == sum of clear bits over live chunks <=
 * max_frames; frames_obtained == sum of nframes over live chunks <=
 * max_frames_ever; a chunk with a free frame is on the partial list, and
 * no other chunk is.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "internal.h"

void zc__arena_init(struct zc__arena *a, struct zc__mem *mem, size_t page_size,
                    uint32_t max_frames)
{
    memset(a, 0, sizeof(*a));
    a->mem = mem;
    a->page_size = page_size;
    a->page_shift = zc__log2(page_size);
    a->max_frames = max_frames;
    a->max_frames_ever = max_frames;
}

void zc__arena_set_budget(struct zc__arena *a, uint32_t max_frames)
{
    a->max_frames = max_frames;
    if (max_frames > a->max_frames_ever)
        a->max_frames_ever = max_frames;
}

void zc__arena_destroy(struct zc__arena *a)
{
    for (uint32_t i = 0; i < a->nchunks; i++)
        if (a->chunks[i].base)
            zc__free_arena(a->mem, a->chunks[i].base,
                           (size_t)a->chunks[i].nframes << a->page_shift);
    zc__free(a->mem, ZC__MEM_PAGE, a->chunks,
             a->chunks_cap * sizeof(*a->chunks));
    a->chunks = NULL;
    a->nchunks = a->chunks_cap = 0;
}

static uint64_t full_mask(uint32_t n)
{
    return n >= 64 ? ~0ULL : ((1ULL << n) - 1);
}

static void partial_unlink(struct zc__arena *a, uint32_t slot)
{
    struct zc__chunk *ch = &a->chunks[slot];

    if (ch->prev)
        a->chunks[ch->prev - 1].next = ch->next;
    else
        a->partial = ch->next;
    if (ch->next)
        a->chunks[ch->next - 1].prev = ch->prev;
    ch->prev = ch->next = 0;
}

static void partial_push(struct zc__arena *a, uint32_t slot)
{
    struct zc__chunk *ch = &a->chunks[slot];

    ch->prev = 0;
    ch->next = a->partial;
    if (a->partial)
        a->chunks[a->partial - 1].prev = slot + 1;
    a->partial = slot + 1;
}

/* A new chunk of frames; 0 and the slot, or -ZC_ENOSPC / -ZC_ENOMEM. */
static int chunk_new(struct zc__arena *a, uint32_t *slot_out)
{
    uint32_t left = a->max_frames > a->frames_obtained
                        ? a->max_frames - a->frames_obtained
                        : 0;
    uint32_t n = left < ZC__CHUNK_FRAMES ? left : ZC__CHUNK_FRAMES;
    uint32_t slot;
    uint8_t *base;

    if (n == 0)
        return -ZC_ENOSPC;
    for (slot = 0; slot < a->nchunks; slot++)
        if (!a->chunks[slot].base)
            break;
    if (slot == a->chunks_cap) {
        uint32_t cap = a->chunks_cap ? a->chunks_cap * 2 : 4;
        struct zc__chunk *t =
            zc__calloc(a->mem, ZC__MEM_PAGE, cap * sizeof(*t));

        if (!t)
            return -ZC_ENOMEM;
        if (a->chunks)
            memcpy(t, a->chunks, a->chunks_cap * sizeof(*t));
        zc__free(a->mem, ZC__MEM_PAGE, a->chunks, a->chunks_cap * sizeof(*t));
        a->chunks = t;
        a->chunks_cap = cap;
    }
    base = zc__alloc_arena(a->mem, (size_t)n << a->page_shift);
    if (!base)
        return -ZC_ENOMEM;
    if (slot == a->nchunks)
        a->nchunks++;
    memset(&a->chunks[slot], 0, sizeof(a->chunks[slot]));
    a->chunks[slot].base = base;
    a->chunks[slot].nframes = n;
    a->chunks[slot].free_mask = full_mask(n);
    a->frames_obtained += n;
    partial_push(a, slot);
    *slot_out = slot;
    return 0;
}

int zc__arena_alloc(struct zc__arena *a, uint32_t *frame)
{
    uint32_t slot;
    struct zc__chunk *ch;
    unsigned bit;

    /* After a shrink, chunks obtained under the old budget may still have
     * free frames: the budget counts frames in use. */
    if (a->frames_used >= a->max_frames)
        return -ZC_ENOSPC;
    if (a->partial) {
        slot = a->partial - 1;
    } else {
        int rc = chunk_new(a, &slot);
        if (rc)
            return rc;
    }
    ch = &a->chunks[slot];
    bit = (unsigned)__builtin_ctzll(ch->free_mask);
    ch->free_mask &= ~(1ULL << bit);
    if (!ch->free_mask)
        partial_unlink(a, slot);
    a->frames_used++;
    *frame = slot * ZC__CHUNK_FRAMES + bit;
    return 0;
}

void zc__arena_free(struct zc__arena *a, uint32_t frame)
{
    uint32_t slot = frame / ZC__CHUNK_FRAMES;
    unsigned bit = frame % ZC__CHUNK_FRAMES;
    struct zc__chunk *ch = &a->chunks[slot];

    if (!ch->free_mask)
        partial_push(a, slot);
    ch->free_mask |= 1ULL << bit;
    a->frames_used--;
    if (ch->free_mask == full_mask(ch->nframes)) {
        partial_unlink(a, slot);
        zc__free_arena(a->mem, ch->base, (size_t)ch->nframes << a->page_shift);
        a->frames_obtained -= ch->nframes;
        ch->base = NULL;
        ch->nframes = 0;
        ch->free_mask = 0;
        while (a->nchunks && !a->chunks[a->nchunks - 1].base)
            a->nchunks--;
    }
}

int zc__arena_check(const struct zc__arena *a)
{
    uint64_t used = 0, obtained = 0, partial = 0;

    for (uint32_t i = 0; i < a->nchunks; i++) {
        const struct zc__chunk *ch = &a->chunks[i];
        if (!ch->base)
            continue;
        if (ch->nframes == 0 || ch->nframes > ZC__CHUNK_FRAMES ||
            (ch->free_mask & ~full_mask(ch->nframes)))
            return -ZC_ECORRUPT;
        obtained += ch->nframes;
        used += ch->nframes - (unsigned)__builtin_popcountll(ch->free_mask);
        if (ch->free_mask)
            partial++;
    }
    for (uint32_t s = a->partial, n = 0; s; s = a->chunks[s - 1].next, n++) {
        if (s > a->nchunks || !a->chunks[s - 1].base ||
            !a->chunks[s - 1].free_mask || n > a->nchunks)
            return -ZC_ECORRUPT;
        partial--;
    }
    if (partial || used != a->frames_used || obtained != a->frames_obtained ||
        used > a->max_frames || obtained > a->max_frames_ever)
        return -ZC_ECORRUPT;
    return 0;
}
