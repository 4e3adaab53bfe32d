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
 * The list is threaded through the entries' prev/next fields with entry 0
 * as the sentinel; the referenced bit is bit 31 of prev (entry ids are
 * below 2^31), so every read of prev masks it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "../index.h"

#define REF 0x80000000u
#define ID(v) ((v) & ~REF)

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
    ent(k, 0)->prev = ent(k, 0)->next = 0;
    return 0;
}

static void set_prev(struct clock *k, uint32_t id, uint32_t prev)
{
    struct zc__entry *e = ent(k, id);

    e->prev = (e->prev & REF) | prev;
}

static void push_front(struct clock *k, uint32_t id, uint32_t ref)
{
    struct zc__entry *s = ent(k, 0);
    struct zc__entry *e = ent(k, id);

    e->prev = ref; /* prev = sentinel 0, with the bit */
    e->next = s->next;
    set_prev(k, s->next, id);
    s->next = id;
}

static void unlink_entry(struct clock *k, uint32_t id)
{
    struct zc__entry *e = ent(k, id);
    uint32_t prev = ID(e->prev);

    ent(k, prev)->next = e->next;
    set_prev(k, e->next, prev);
}

static int clock_insert(void *st, uint32_t id, uint32_t bytes)
{
    ZC__UNUSED(bytes);
    push_front(st, id, REF);
    return 0;
}

static void clock_touch(void *st, uint32_t id)
{
    struct clock *k = st;

    ent(k, id)->prev |= REF;
}

static void clock_remove(void *st, uint32_t id)
{
    struct clock *k = st;

    unlink_entry(k, id);
    ent(k, id)->prev = ent(k, id)->next = 0;
}

static uint32_t clock_victim(void *st)
{
    struct clock *k = st;
    uint32_t id;

    /* Each page is passed over at most once: it loses its bit on the way
     * to the front, so the loop ends within one turn of the list. */
    while ((id = ID(ent(k, 0)->prev)) != 0 && (ent(k, id)->prev & REF)) {
        unlink_entry(k, id);
        push_front(k, id, 0);
    }
    return id;
}

static uint64_t clock_count(const void *st)
{
    const struct clock *k = st;
    uint64_t n = 0;
    uint32_t prev = 0;

    for (uint32_t id = ent(k, 0)->next; id; id = ent(k, id)->next) {
        if (ID(ent(k, id)->prev) != prev || n > k->ents->used)
            return UINT64_MAX;
        prev = id;
        n++;
    }
    return ID(ent(k, 0)->prev) == prev ? n : UINT64_MAX;
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
