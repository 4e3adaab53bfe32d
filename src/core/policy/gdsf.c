/*
 * core/policy/gdsf.c - GreedyDual-Size-Frequency: the compression-aware policy.
 *
 * A compressed cache holds pages of very different sizes, and a hit on a
 * 300-byte page saves the same disk read as a hit on a 3.5 KiB one while
 * costing a twelfth of the memory.  GDSF (Cao and Irani's GreedyDual-Size,
 * with Cherkasova's frequency term) keeps the pages of greatest expected
 * reuse per stored byte: each page has the priority
 *
 *     H = L + freq / bytes
 *
 * where bytes is what the page takes in the arena, freq counts its stores
 * and hits, and L is the priority of the last page evicted.  The victim is
 * the page of least H; raising L to its H when it is evicted ages every page
 * left behind, so pages that were valuable long ago go in the end even if
 * small.  With equal reuse the larger page goes first; a recently used large
 * page outranks a small one that has sat unused while L passed it.
 *
 * Layout: a binary min-heap of (H, entry id, weight) in an array grown
 * through the cache's heap hook, the weight holding the page's bytes (low
 * 17 bits) and freq (the rest, saturating); an entry keeps its heap
 * position in its next link (heap_at), which gdsf does not otherwise use.
 * Invariants: heap[i].id's heap_at == i; each H is at least its parent's.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "../index.h"

#define BYTES_BITS 17
#define BYTES_MASK ((1u << BYTES_BITS) - 1)
#define FREQ_MAX ((1u << (32 - BYTES_BITS)) - 1)

struct slot { /* 16 bytes */
    double h;
    uint32_t id;
    uint32_t weight;
};

static inline uint32_t heap_at(const struct zc__entry *e)
{
    return zc__e_next(e);
}

struct gdsf {
    struct zc__entries *ents;
    struct zc__mem *mem;
    struct slot *heap;
    uint32_t n, cap;
    uint32_t victim; /* the last victim named: its removal is an eviction */
    double L;
};

static int gdsf_init(void *st, struct zc__entries *ents, struct zc__mem *mem)
{
    struct gdsf *g = st;

    g->ents = ents;
    g->mem = mem;
    return 0;
}

static void gdsf_destroy(void *st)
{
    struct gdsf *g = st;

    zc__free(g->mem, ZC__MEM_PAGE, g->heap, (size_t)g->cap * sizeof(*g->heap));
    g->heap = NULL;
    g->cap = g->n = 0;
}

static inline void place(struct gdsf *g, uint32_t i, struct slot s)
{
    g->heap[i] = s;
    zc__e_set_next(zc__ent(g->ents, s.id), i);
}

static void sift_up(struct gdsf *g, uint32_t i)
{
    struct slot s = g->heap[i];

    while (i > 0 && g->heap[(i - 1) / 2].h > s.h) {
        place(g, i, g->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    place(g, i, s);
}

static void sift_down(struct gdsf *g, uint32_t i)
{
    struct slot s = g->heap[i];

    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= g->n)
            break;
        if (c + 1 < g->n && g->heap[c + 1].h < g->heap[c].h)
            c++;
        if (g->heap[c].h >= s.h)
            break;
        place(g, i, g->heap[c]);
        i = c;
    }
    place(g, i, s);
}

static double priority(const struct gdsf *g, uint32_t meta)
{
    uint32_t bytes = meta & BYTES_MASK;

    return g->L + (double)(meta >> BYTES_BITS) / (bytes ? bytes : 1);
}

static int gdsf_insert(void *st, uint32_t id, uint32_t bytes)
{
    struct gdsf *g = st;
    uint32_t w;

    if (g->n == g->cap) {
        uint32_t cap = g->cap ? g->cap * 2 : 256;
        struct slot *h =
            zc__alloc(g->mem, ZC__MEM_PAGE, (size_t)cap * sizeof(*h));
        if (!h)
            return -ZC_ENOMEM;
        if (g->n)
            memcpy(h, g->heap, (size_t)g->n * sizeof(*h));
        zc__free(g->mem, ZC__MEM_PAGE, g->heap, (size_t)g->cap * sizeof(*h));
        g->heap = h;
        g->cap = cap;
    }
    w = (bytes > BYTES_MASK ? BYTES_MASK : bytes) | 1u << BYTES_BITS;
    g->heap[g->n].h = priority(g, w);
    g->heap[g->n].id = id;
    g->heap[g->n].weight = w;
    g->n++;
    sift_up(g, g->n - 1);
    return 0;
}

static void gdsf_touch(void *st, uint32_t id)
{
    struct gdsf *g = st;
    uint32_t i = heap_at(zc__ent(g->ents, id));
    struct slot *s = &g->heap[i];

    if ((s->weight >> BYTES_BITS) < FREQ_MAX)
        s->weight += 1u << BYTES_BITS;
    s->h = priority(g, s->weight);
    sift_down(g, i); /* H only grows: L never falls, freq never falls */
}

static void gdsf_remove(void *st, uint32_t id)
{
    struct gdsf *g = st;
    struct zc__entry *e = zc__ent(g->ents, id);
    uint32_t i = heap_at(e);
    double old = g->heap[i].h;

    if (id == g->victim) {
        g->L = old; /* evicted: age everyone else */
        g->victim = 0;
    }
    g->n--;
    if (i < g->n) {
        place(g, i, g->heap[g->n]);
        if (g->heap[i].h < old)
            sift_up(g, i);
        else
            sift_down(g, i);
    }
    zc__e_unlink(e);
}

static uint32_t gdsf_victim(void *st)
{
    struct gdsf *g = st;

    g->victim = g->n ? g->heap[0].id : 0;
    return g->victim;
}

static uint64_t gdsf_count(const void *st)
{
    const struct gdsf *g = st;

    for (uint32_t i = 0; i < g->n; i++) {
        if (heap_at(zc__ent(g->ents, g->heap[i].id)) != i ||
            (i && g->heap[(i - 1) / 2].h > g->heap[i].h) || g->heap[i].h < g->L)
            return UINT64_MAX;
    }
    return g->n;
}

const struct zc__policy_ops zc__policy_gdsf = {
    .name = "gdsf",
    .doc = "compression-aware: evicts the least expected reuse per stored "
           "byte (GreedyDual-Size-Frequency)",
    .state_size = sizeof(struct gdsf),
    .init = gdsf_init,
    .destroy = gdsf_destroy,
    .insert = gdsf_insert,
    .touch = gdsf_touch,
    .remove = gdsf_remove,
    .victim = gdsf_victim,
    .count = gdsf_count,
};
