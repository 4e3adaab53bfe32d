/*
 * core/alloc/zbud.c - at most two objects per frame, after the kernel's zbud.
 *
 * Each frame holds a "first" object right after a 16-byte header and a
 * "last" object flush with the frame's end; the free space is what lies
 * between.  Frames holding exactly one object wait on "unbuddied" lists
 * bucketed by free space in 64-byte steps; an allocation takes the first
 * frame from the smallest bucket that is sure to fit (first fit), else a
 * fresh frame.  Nothing ever moves, so there is no compaction; instead,
 * eviction frees whole frames: the buddy of an evicted object is evicted
 * with it (zbud_reclaim_page's behaviour), which buddies() tells the cache.
 *
 * Frame header (in the arena, as the kernel keeps it in the page):
 *   u16 first size, u16 last size, u32 prev, u32 next (unbuddied list,
 *   frame id + 1), u32 spare.
 * Handle: frame id << 1 | (0 first, 1 last).
 *
 * Invariants: a frame is on a list iff it holds exactly one object, on the
 * list of its free bytes / 64; a frame with no object is not held.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "../internal.h"

#define HDR 16
#define BUCKET 64

struct zb_hdr {
    uint16_t first, last;
    uint32_t prev, next;
    uint32_t spare;
};

struct zb {
    struct zc__arena *arena;
    struct zc__mem *mem;
    size_t page;
    uint32_t nlists;
    uint32_t *lists; /* frame id + 1 */
    uint64_t objects, frames, listed;
};

static inline struct zb_hdr *hdr_of(const struct zb *z, uint32_t frame)
{
    return (struct zb_hdr *)(void *)zc__arena_frame(z->arena, frame);
}

static inline size_t free_of(const struct zb *z, const struct zb_hdr *h)
{
    return z->page - HDR - h->first - h->last;
}

static void list_push(struct zb *z, uint32_t frame)
{
    struct zb_hdr *h = hdr_of(z, frame);
    uint32_t *head = &z->lists[free_of(z, h) / BUCKET];

    h->prev = 0;
    h->next = *head;
    if (*head)
        hdr_of(z, *head - 1)->prev = frame + 1;
    *head = frame + 1;
    z->listed++;
}

static void list_unlink(struct zb *z, uint32_t frame)
{
    struct zb_hdr *h = hdr_of(z, frame);

    if (h->prev)
        hdr_of(z, h->prev - 1)->next = h->next;
    else
        z->lists[free_of(z, h) / BUCKET] = h->next;
    if (h->next)
        hdr_of(z, h->next - 1)->prev = h->prev;
    z->listed--;
}

static void zb_destroy(void *p)
{
    struct zb *z = p;

    if (!z)
        return;
    /* Frames go back with the arena; only our own tables here. */
    zc__free(z->mem, ZC__MEM_FIXED, z->lists, z->nlists * sizeof(*z->lists));
    zc__free(z->mem, ZC__MEM_FIXED, z, sizeof(*z));
}

static int zb_create(struct zc__arena *arena, struct zc__mem *mem,
                     const struct zc__relocate *reloc, void **out)
{
    struct zb *z = zc__calloc(mem, ZC__MEM_FIXED, sizeof(*z));

    ZC__UNUSED(reloc);
    if (!z)
        return -ZC_ENOMEM;
    z->arena = arena;
    z->mem = mem;
    z->page = arena->page_size;
    z->nlists = (uint32_t)(z->page / BUCKET + 1);
    z->lists = zc__calloc(mem, ZC__MEM_FIXED, z->nlists * sizeof(*z->lists));
    if (!z->lists) {
        zb_destroy(z);
        return -ZC_ENOMEM;
    }
    *out = z;
    return 0;
}

static size_t zb_max_size(const void *p)
{
    const struct zb *z = p;

    return z->page - HDR;
}

static int zb_alloc(void *p, size_t size, uint32_t *handle)
{
    struct zb *z = p;
    struct zb_hdr *h;
    uint32_t frame;

    if (size == 0 || size > z->page - HDR)
        return -ZC_EINVAL;
    for (size_t b = (size + BUCKET - 1) / BUCKET; b < z->nlists; b++) {
        if (!z->lists[b])
            continue;
        frame = z->lists[b] - 1;
        list_unlink(z, frame);
        h = hdr_of(z, frame);
        if (h->first) {
            h->last = (uint16_t)size;
            *handle = frame << 1 | 1;
        } else {
            h->first = (uint16_t)size;
            *handle = frame << 1;
        }
        z->objects++;
        return 0;
    }
    {
        int rc = zc__arena_alloc(z->arena, &frame);
        if (rc)
            return rc;
    }
    h = hdr_of(z, frame);
    memset(h, 0, sizeof(*h));
    h->first = (uint16_t)size;
    list_push(z, frame);
    z->frames++;
    z->objects++;
    *handle = frame << 1;
    return 0;
}

static void zb_free(void *p, uint32_t handle)
{
    struct zb *z = p;
    uint32_t frame = handle >> 1;
    struct zb_hdr *h = hdr_of(z, frame);
    int both = h->first && h->last;

    if (!both)
        list_unlink(z, frame);
    if (handle & 1)
        h->last = 0;
    else
        h->first = 0;
    z->objects--;
    if (both) {
        list_push(z, frame);
    } else {
        z->frames--;
        zc__arena_free(z->arena, frame);
    }
}

static uint8_t *place(const struct zb *z, uint32_t handle)
{
    uint32_t frame = handle >> 1;
    uint8_t *base = zc__arena_frame(z->arena, frame);

    if (handle & 1)
        return base + z->page - hdr_of(z, frame)->last;
    return base + HDR;
}

static const void *zb_map(void *p, uint32_t handle, size_t len, void *bounce)
{
    ZC__UNUSED(len);
    ZC__UNUSED(bounce);
    return place(p, handle);
}

static void zb_write(void *p, uint32_t handle, const void *src, size_t len)
{
    memcpy(place(p, handle), src, len);
}

static unsigned zb_buddies(void *p, uint32_t handle, uint32_t *out,
                           unsigned max)
{
    struct zb *z = p;
    struct zb_hdr *h = hdr_of(z, handle >> 1);

    if (!max)
        return 0;
    if ((handle & 1) ? h->first : h->last) {
        out[0] = handle ^ 1;
        return 1;
    }
    return 0;
}

static int zb_check(const void *p, uint64_t *objects)
{
    const struct zb *z = p;
    uint64_t listed = 0;

    for (uint32_t b = 0; b < z->nlists; b++) {
        for (uint32_t f = z->lists[b], prev = 0; f;
             prev = f, f = hdr_of(z, f - 1)->next) {
            const struct zb_hdr *h = hdr_of(z, f - 1);
            if (h->prev != prev || (!h->first == !h->last) ||
                free_of(z, h) / BUCKET != b || ++listed > z->frames)
                return -ZC_ECORRUPT;
        }
    }
    *objects = z->objects;
    if (listed != z->listed || z->objects != 2 * z->frames - listed)
        return -ZC_ECORRUPT;
    return 0;
}

const struct zc__allocator_ops zc__allocator_zbud = {
    .name = "zbud",
    .doc = "at most two objects per frame, whole frames evicted (after "
           "Linux zbud)",
    .create = zb_create,
    .destroy = zb_destroy,
    .max_size = zb_max_size,
    .alloc = zb_alloc,
    .free = zb_free,
    .map = zb_map,
    .write = zb_write,
    .buddies = zb_buddies,
    .mates = zb_buddies,
    .check = zb_check,
};
