/*
 * core/policy/clock.c - second chance (CLOCK), as zswap's LRU works.
 *
 * Pages join the front of a FIFO with their referenced bit set, as zswap
 * sets entry->referenced on store; a hit that keeps its copy sets it
 * again.  The victim is found at the back: a referenced page there loses
 * its bit and goes round to the front once more, and the first page found
 * without the bit is the victim.  That is CLOCK with the hand at the back
 * of the list.
 *
 * The list is threaded through the entries' prev/next links with entry 0
 * as the sentinel; the referenced bit is the entry's own (zc__e_ref).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "../index.h"

struct clock {
    struct zc__entries *ents;
};

static inline struct zc__entry *ent(const struct clock *k, uint32_t id)
{
    return zc__ent(k->ents, id);
}

static int clock_init(void *st, struct zc__entries *ents, struct zc__mem *mem)
{
    struct clock *k = st;

    ZC__UNUSED(mem);
    k->ents = ents;
    zc__e_unlink(ent(k, 0));
    return 0;
}

static void push_front(struct clock *k, uint32_t id, bool ref)
{
    struct zc__entry *s = ent(k, 0);
    struct zc__entry *e = ent(k, id);
    uint32_t front = zc__e_next(s);

    zc__e_set_prev(e, 0);
    zc__e_set_ref(e, ref);
    zc__e_set_next(e, front);
    zc__e_set_prev(ent(k, front), id);
    zc__e_set_next(s, id);
}

static void unlink_entry(struct clock *k, uint32_t id)
{
    struct zc__entry *e = ent(k, id);
    uint32_t prev = zc__e_prev(e);

    zc__e_set_next(ent(k, prev), zc__e_next(e));
    zc__e_set_prev(ent(k, zc__e_next(e)), prev);
}

static int clock_insert(void *st, uint32_t id, uint32_t bytes)
{
    ZC__UNUSED(bytes);
    push_front(st, id, true);
    return 0;
}

static void clock_touch(void *st, uint32_t id)
{
    struct clock *k = st;

    zc__e_set_ref(ent(k, id), true);
}

static void clock_remove(void *st, uint32_t id)
{
    struct clock *k = st;

    unlink_entry(k, id);
    zc__e_unlink(ent(k, id));
}

static uint32_t clock_victim(void *st)
{
    struct clock *k = st;
    uint32_t id;

    /* Each page is passed over at most once: it loses its bit on the way
     * to the front, so the loop ends within one turn of the list. */
    while ((id = zc__e_prev(ent(k, 0))) != 0 && zc__e_ref(ent(k, id))) {
        unlink_entry(k, id);
        push_front(k, id, false);
    }
    return id;
}

static uint64_t clock_count(const void *st)
{
    const struct clock *k = st;
    uint64_t n = 0;
    uint32_t prev = 0;

    for (uint32_t id = zc__e_next(ent(k, 0)); id; id = zc__e_next(ent(k, id))) {
        if (zc__e_prev(ent(k, id)) != prev || n > k->ents->used)
            return UINT64_MAX;
        prev = id;
        n++;
    }
    return zc__e_prev(ent(k, 0)) == prev ? n : UINT64_MAX;
}

const struct zc__policy_ops zc__policy_clock = {
    .name = "clock",
    .doc = "second chance: referenced pages go round once more (zswap)",
    .state_size = sizeof(struct clock),
    .init = clock_init,
    .insert = clock_insert,
    .touch = clock_touch,
    .remove = clock_remove,
    .victim = clock_victim,
    .count = clock_count,
};
