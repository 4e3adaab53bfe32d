/*
 * core/policy/lru.c - one recency list, three policies: lru, fifo, frame_lru.
 *
 * A doubly linked list threaded through the entries' prev/next links,
 * with entry 0 as the sentinel: next of 0 is the front (newest), prev of 0
 * the back; the victim is the back.  Same-filled pages take no arena
 * space and are never on the list.
 *
 *   lru        stores and hits that keep their copy move a page to the
 *              front: least recently used first.
 *   fifo       only stores put a page at the front; hits leave it where it
 *              is: first in, first out.
 *   frame_lru  lru over frames rather than pages, as zcache2 kept its zbud
 *              pages: the cache refreshes a page's frame mates with it
 *              (whole_frames), so the pages of a frame sit together in the
 *              order of the frame's last use, and the cache evicts the
 *              victim's mates with it, freeing the least recently used
 *              frame whole.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "../index.h"

struct lru {
    struct zc__entries *ents;
};

static int lru_init(void *st, struct zc__entries *ents, struct zc__mem *mem)
{
    struct lru *l = st;
    struct zc__entry *s = zc__ent(ents, 0);

    ZC__UNUSED(mem);
    l->ents = ents;
    zc__e_unlink(s);
    return 0;
}

static void push_front(struct lru *l, uint32_t id)
{
    struct zc__entry *s = zc__ent(l->ents, 0);
    struct zc__entry *e = zc__ent(l->ents, id);
    uint32_t front = zc__e_next(s);

    zc__e_set_prev(e, 0);
    zc__e_set_next(e, front);
    zc__e_set_prev(zc__ent(l->ents, front), id);
    zc__e_set_next(s, id);
}

static int lru_insert(void *st, uint32_t id, uint32_t bytes)
{
    ZC__UNUSED(bytes);
    push_front(st, id);
    return 0;
}

static void lru_remove(void *st, uint32_t id)
{
    struct lru *l = st;
    struct zc__entry *e = zc__ent(l->ents, id);

    zc__e_set_next(zc__ent(l->ents, zc__e_prev(e)), zc__e_next(e));
    zc__e_set_prev(zc__ent(l->ents, zc__e_next(e)), zc__e_prev(e));
    zc__e_unlink(e);
}

static void lru_touch(void *st, uint32_t id)
{
    lru_remove(st, id);
    push_front(st, id);
}

static void fifo_touch(void *st, uint32_t id)
{
    ZC__UNUSED(st);
    ZC__UNUSED(id);
}

static uint32_t lru_victim(void *st)
{
    struct lru *l = st;

    return zc__e_prev(zc__ent(l->ents, 0));
}

static uint64_t lru_count(const void *st)
{
    const struct lru *l = st;
    uint64_t n = 0;
    uint32_t prev = 0;

    for (uint32_t id = zc__e_next(zc__ent(l->ents, 0)); id;
         id = zc__e_next(zc__ent(l->ents, id))) {
        if (zc__e_prev(zc__ent(l->ents, id)) != prev || n > l->ents->used)
            return UINT64_MAX;
        prev = id;
        n++;
    }
    return zc__e_prev(zc__ent(l->ents, 0)) == prev ? n : UINT64_MAX;
}

const struct zc__policy_ops zc__policy_lru = {
    .name = "lru",
    .doc = "least recently used page first (stores and hits refresh)",
    .state_size = sizeof(struct lru),
    .init = lru_init,
    .insert = lru_insert,
    .touch = lru_touch,
    .remove = lru_remove,
    .victim = lru_victim,
    .count = lru_count,
};

const struct zc__policy_ops zc__policy_fifo = {
    .name = "fifo",
    .doc = "first stored, first evicted (hits do not refresh)",
    .state_size = sizeof(struct lru),
    .init = lru_init,
    .insert = lru_insert,
    .touch = fifo_touch,
    .remove = lru_remove,
    .victim = lru_victim,
    .count = lru_count,
};

const struct zc__policy_ops zc__policy_frame_lru = {
    .name = "frame_lru",
    .doc = "least recently used frame first, evicted whole with all its "
           "pages (zcache2's zbud LRU)",
    .state_size = sizeof(struct lru),
    .whole_frames = true,
    .init = lru_init,
    .insert = lru_insert,
    .touch = lru_touch,
    .remove = lru_remove,
    .victim = lru_victim,
    .count = lru_count,
};
