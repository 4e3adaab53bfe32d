/*
 * core/alloc/z3fold.c - at most three objects per frame, after the kernel's
 * z3fold.
 *
 * A frame is cut into 64 chunks (page / 64 bytes each: 64 bytes on 4 KiB
 * pages, as the kernel's NCHUNKS_ORDER 6 gives).  Its first chunk (two on
 * 512-byte pages) holds a 16-byte header; after it come up to three
 * objects, each a whole number of chunks: "first" flush against the
 * header, "last" flush against the frame's end, and "middle" somewhere in
 * between.  Frames with a free slot wait on "unbuddied" lists bucketed by
 * free chunks; an allocation takes the first frame of the smallest bucket
 * that fits (first fit), else a fresh frame.  Full frames
 * (three objects) wait on the "buddied" list, so that check() sees every
 * frame, as the kernel's pool LRU does.
 *
 * The middle object is kept flush against a neighbour, which the kernel's
 * z3fold_compact_page does when it pays (BIG_CHUNK_GAP); here it always
 * does, so a frame that can take an object has exactly one free run and
 * its bucket is the whole of its free space:
 *   - first freed, middle and last left: middle moves up against last;
 *   - last freed, first and middle left: middle moves down against first;
 *   - middle left alone: it becomes the first object (at the header), the
 *     one move that changes a handle, reported through the relocate hook
 *     as zsmalloc reports its moves.
 * Moves within a frame keep the middle's handle, which names the slot, not
 * the offset (the start is in the header).
 *
 * Eviction frees whole frames: buddies() names the other objects of the
 * frame, as zbud's does.  Objects never straddle frames, so mates() is the
 * same set.
 *
 * Frame header (in the arena, as the kernel keeps it in the page):
 *   u8 first, middle, last (sizes in chunks, 0 = slot free), u8 start of
 *   middle (chunk), u32 prev, next (list, frame id + 1), u32 spare.
 * Handle: frame id << 2 | slot (0 first, 1 middle, 2 last).
 *
 * Invariants: a frame is held iff it holds an object; it is on the
 * buddied list iff it holds three, else on the unbuddied list of its free
 * chunks; a frame with fewer than three objects has one free run, where
 * the next object goes (first slot if free, else last, else middle right
 * after first), and never a middle object alone.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "../internal.h"

#define CHUNKS_ORDER 6
#define TOTAL (1u << CHUNKS_ORDER)
#define HDR_BYTES 16

enum { FIRST, MIDDLE, LAST };

struct z3_hdr {
    uint8_t first, middle, last;
    uint8_t start; /* of middle, in chunks; 0 when there is none */
    uint32_t prev, next;
    uint32_t spare;
};

struct z3 {
    struct zc__arena *arena;
    struct zc__mem *mem;
    struct zc__relocate reloc;
    size_t page;
    unsigned chunk_shift;
    unsigned hdr_chunks;
    uint32_t unbuddied[TOTAL]; /* by free chunks; frame id + 1 */
    uint32_t buddied;          /* full frames; frame id + 1 */
    uint64_t objects, frames;
};

static inline struct z3_hdr *hdr_of(const struct z3 *z, uint32_t frame)
{
    return (struct z3_hdr *)(void *)zc__arena_frame(z->arena, frame);
}

static inline unsigned nobj(const struct z3_hdr *h)
{
    return (h->first != 0) + (h->middle != 0) + (h->last != 0);
}

static inline unsigned free_chunks(const struct z3 *z, const struct z3_hdr *h)
{
    return TOTAL - z->hdr_chunks - h->first - h->middle - h->last;
}

/* The list a frame belongs on in its present state. */
static inline uint32_t *list_of(struct z3 *z, const struct z3_hdr *h)
{
    return nobj(h) == 3 ? &z->buddied : &z->unbuddied[free_chunks(z, h)];
}

static void list_push(struct z3 *z, uint32_t frame)
{
    struct z3_hdr *h = hdr_of(z, frame);
    uint32_t *head = list_of(z, h);

    h->prev = 0;
    h->next = *head;
    if (*head)
        hdr_of(z, *head - 1)->prev = frame + 1;
    *head = frame + 1;
}

/* Unlink a frame from the list its header says it is on: call before the
 * header changes. */
static void list_unlink(struct z3 *z, uint32_t frame)
{
    struct z3_hdr *h = hdr_of(z, frame);

    if (h->prev)
        hdr_of(z, h->prev - 1)->next = h->next;
    else
        *list_of(z, h) = h->next;
    if (h->next)
        hdr_of(z, h->next - 1)->prev = h->prev;
}

static void z3_destroy(void *p)
{
    struct z3 *z = p;

    if (!z)
        return;
    /* Frames go back with the arena. */
    zc__free(z->mem, ZC__MEM_FIXED, z, sizeof(*z));
}

static int z3_create(struct zc__arena *arena, struct zc__mem *mem,
                     const struct zc__relocate *reloc, void **out)
{
    struct z3 *z = zc__calloc(mem, ZC__MEM_FIXED, sizeof(*z));

    if (!z)
        return -ZC_ENOMEM;
    z->arena = arena;
    z->mem = mem;
    z->reloc = *reloc;
    z->page = arena->page_size;
    z->chunk_shift = arena->page_shift - CHUNKS_ORDER;
    z->hdr_chunks = (HDR_BYTES + (1u << z->chunk_shift) - 1) >> z->chunk_shift;
    *out = z;
    return 0;
}

static size_t z3_max_size(const void *p)
{
    const struct z3 *z = p;

    return (size_t)(TOTAL - z->hdr_chunks) << z->chunk_shift;
}

/* Where a slot's object starts, in chunks. */
static unsigned start_of(const struct z3 *z, const struct z3_hdr *h,
                         unsigned slot)
{
    switch (slot) {
    case FIRST: return z->hdr_chunks;
    case MIDDLE: return h->start;
    default: return TOTAL - h->last;
    }
}

static uint8_t *place(const struct z3 *z, uint32_t handle)
{
    uint32_t frame = handle >> 2;
    const struct z3_hdr *h = hdr_of(z, frame);

    return zc__arena_frame(z->arena, frame) +
           ((size_t)start_of(z, h, handle & 3) << z->chunk_shift);
}

/* Put an object of n chunks into the frame's free run (which fits it). */
static unsigned settle(struct z3 *z, struct z3_hdr *h, unsigned n)
{
    if (!h->first) {
        h->first = (uint8_t)n;
        return FIRST;
    }
    if (!h->last) {
        h->last = (uint8_t)n;
        return LAST;
    }
    h->middle = (uint8_t)n;
    h->start = (uint8_t)(z->hdr_chunks + h->first);
    return MIDDLE;
}

static int z3_alloc(void *p, size_t size, uint32_t *handle)
{
    struct z3 *z = p;
    struct z3_hdr *h;
    unsigned n =
        (unsigned)((size + (1u << z->chunk_shift) - 1) >> z->chunk_shift);
    uint32_t frame;
    int rc;

    if (size == 0 || size > z3_max_size(z))
        return -ZC_EINVAL;
    for (unsigned b = n; b < TOTAL; b++) {
        if (!z->unbuddied[b])
            continue;
        frame = z->unbuddied[b] - 1;
        list_unlink(z, frame);
        h = hdr_of(z, frame);
        *handle = frame << 2 | settle(z, h, n);
        list_push(z, frame);
        z->objects++;
        return 0;
    }
    rc = zc__arena_alloc(z->arena, &frame);
    if (rc)
        return rc;
    if (frame >= 1u << 29) { /* the handle would not fit 31 bits */
        zc__arena_free(z->arena, frame);
        return -ZC_ENOSPC;
    }
    h = hdr_of(z, frame);
    memset(h, 0, sizeof(*h));
    *handle = frame << 2 | settle(z, h, n);
    list_push(z, frame);
    z->frames++;
    z->objects++;
    return 0;
}

static void move_middle(struct z3 *z, uint32_t frame, struct z3_hdr *h,
                        unsigned to)
{
    uint8_t *base = zc__arena_frame(z->arena, frame);

    if (to == h->start)
        return;
    memmove(base + ((size_t)to << z->chunk_shift),
            base + ((size_t)h->start << z->chunk_shift),
            (size_t)h->middle << z->chunk_shift);
    h->start = (uint8_t)to;
}

static void z3_free(void *p, uint32_t handle)
{
    struct z3 *z = p;
    uint32_t frame = handle >> 2;
    struct z3_hdr *h = hdr_of(z, frame);
    int promoted = 0;

    list_unlink(z, frame);
    switch (handle & 3) {
    case FIRST: h->first = 0; break;
    case MIDDLE:
        h->middle = 0;
        h->start = 0;
        break;
    default: h->last = 0; break;
    }
    z->objects--;
    if (!nobj(h)) {
        z->frames--;
        zc__arena_free(z->arena, frame);
        return;
    }
    /* Keep the free space one run (see the top of the file). */
    if (h->middle) {
        if (!h->first && !h->last) {
            move_middle(z, frame, h, z->hdr_chunks);
            h->first = h->middle;
            h->middle = 0;
            h->start = 0;
            promoted = 1;
        } else if (!h->first) {
            move_middle(z, frame, h, TOTAL - h->last - h->middle);
        } else {
            move_middle(z, frame, h, z->hdr_chunks + h->first);
        }
    }
    list_push(z, frame);
    if (promoted)
        z->reloc.moved(z->reloc.ctx, frame << 2 | MIDDLE, frame << 2 | FIRST);
}

static const void *z3_map(void *p, uint32_t handle, size_t len, void *bounce)
{
    ZC__UNUSED(len);
    ZC__UNUSED(bounce);
    return place(p, handle);
}

static void z3_write(void *p, uint32_t handle, const void *src, size_t len)
{
    memcpy(place(p, handle), src, len);
}

/* The frame's other objects: all must go for the frame to be free, and
 * they are all that share it. */
static unsigned z3_buddies(void *p, uint32_t handle, uint32_t *out,
                           unsigned max)
{
    struct z3 *z = p;
    uint32_t frame = handle >> 2;
    const struct z3_hdr *h = hdr_of(z, frame);
    const uint8_t size[3] = {h->first, h->middle, h->last};
    unsigned n = 0;

    for (unsigned s = 0; s < 3 && n < max; s++)
        if (s != (handle & 3) && size[s])
            out[n++] = frame << 2 | s;
    return n;
}

static int check_frame(const struct z3 *z, const struct z3_hdr *h)
{
    unsigned n = nobj(h);

    if (!n || z->hdr_chunks + h->first + h->middle + h->last > TOTAL)
        return -ZC_ECORRUPT;
    if (!h->middle)
        return h->start ? -ZC_ECORRUPT : 0;
    /* The middle lies between first and last... */
    if (h->start < z->hdr_chunks + h->first ||
        h->start + h->middle > TOTAL - h->last)
        return -ZC_ECORRUPT;
    /* ...and, unless the frame is full, flush against its neighbour. */
    if (n == 1 || (!h->first && h->start + h->middle != TOTAL - h->last) ||
        (!h->last && h->start != z->hdr_chunks + h->first))
        return -ZC_ECORRUPT;
    return 0;
}

static int walk_list(const struct z3 *z, uint32_t head, int full,
                     unsigned bucket, uint64_t *frames, uint64_t *objects)
{
    for (uint32_t f = head, prev = 0; f; prev = f, f = hdr_of(z, f - 1)->next) {
        const struct z3_hdr *h;
        if (!zc__arena_frame_in_use(z->arena, f - 1) || ++*frames > z->frames)
            return -ZC_ECORRUPT;
        h = hdr_of(z, f - 1);
        if (h->prev != prev || check_frame(z, h))
            return -ZC_ECORRUPT;
        if (full ? nobj(h) != 3 : nobj(h) == 3 || free_chunks(z, h) != bucket)
            return -ZC_ECORRUPT;
        *objects += nobj(h);
    }
    return 0;
}

static int z3_check(const void *p, uint64_t *objects)
{
    const struct z3 *z = p;
    uint64_t frames = 0, objs = 0;
    int rc = walk_list(z, z->buddied, 1, 0, &frames, &objs);

    for (unsigned b = 0; b < TOTAL && !rc; b++)
        rc = walk_list(z, z->unbuddied[b], 0, b, &frames, &objs);
    *objects = objs;
    if (!rc && (frames != z->frames || objs != z->objects))
        rc = -ZC_ECORRUPT;
    return rc;
}

const struct zc__allocator_ops zc__allocator_z3fold = {
    .name = "z3fold",
    .doc = "at most three objects per frame in 64 chunks, whole frames "
           "evicted (after Linux z3fold)",
    .create = z3_create,
    .destroy = z3_destroy,
    .max_size = z3_max_size,
    .alloc = z3_alloc,
    .free = z3_free,
    .map = z3_map,
    .write = z3_write,
    .buddies = z3_buddies,
    .mates = z3_buddies,
    .check = z3_check,
};
