/*
 * policy/lru.c - least recently used, over every page that holds arena
 * space.
 *
 * A doubly linked list threaded through the entries' prev/next fields,
 * with entry 0 as the sentinel: next of 0 is the most recently used page,
 * prev of 0 the least.  A store and a hit that keeps its copy move a page
 * to the front; the victim is the back.  Same-filled pages take no arena
 * space and are never on the list.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "../index.h"

struct lru {
    struct zc__entries *ents;
};

static void lru_init(void *st, struct zc__entries *ents)
{
    struct lru *l = st;
    struct zc__entry *s = zc__ent(ents, 0);

    l->ents = ents;
    s->prev = s->next = 0;
}

static void lru_insert(void *st, uint32_t id)
{
    struct lru *l = st;
    struct zc__entry *s = zc__ent(l->ents, 0);
    struct zc__entry *e = zc__ent(l->ents, id);

    e->prev = 0;
    e->next = s->next;
    zc__ent(l->ents, s->next)->prev = id;
    s->next = id;
}

static void lru_remove(void *st, uint32_t id)
{
    struct lru *l = st;
    struct zc__entry *e = zc__ent(l->ents, id);

    zc__ent(l->ents, e->prev)->next = e->next;
    zc__ent(l->ents, e->next)->prev = e->prev;
    e->prev = e->next = 0;
}

static void lru_touch(void *st, uint32_t id)
{
    lru_remove(st, id);
    lru_insert(st, id);
}

static uint32_t lru_victim(void *st)
{
    struct lru *l = st;

    return zc__ent(l->ents, 0)->prev;
}

static uint64_t lru_count(const void *st)
{
    const struct lru *l = st;
    uint64_t n = 0;
    uint32_t prev = 0;

    for (uint32_t id = zc__ent(l->ents, 0)->next; id;
         id = zc__ent(l->ents, id)->next) {
        if (zc__ent(l->ents, id)->prev != prev || n > l->ents->used)
            return UINT64_MAX;
        prev = id;
        n++;
    }
    return zc__ent(l->ents, 0)->prev == prev ? n : UINT64_MAX;
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
