/*
 * sim/common/ctab.c - growing, inserting into and removing from the table of
 * content hashes (layout and use in ctab.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>

#include "ctab.h"
#include "base/lptab.h"
#include "zcache.h"

static int grow(struct zc__ctab *t)
{
    uint64_t n = t->slot ? (t->mask + 1) * 2 : 1024;
    struct zc__ctab_slot *s = calloc(n, sizeof(*s));

    if (!s)
        return -ZC_ENOMEM;
    for (uint64_t j = 0; t->slot && j <= t->mask; j++) {
        uint64_t i;
        if (!t->slot[j].id1)
            continue;
        for (i = t->slot[j].h[0] & (n - 1); s[i].id1; i = (i + 1) & (n - 1))
            ;
        s[i] = t->slot[j];
    }
    free(t->slot);
    t->slot = s;
    t->mask = n - 1;
    return 0;
}

int zc__ctab_insert(struct zc__ctab *t, const uint64_t h[2], uint64_t id)
{
    uint64_t i;

    if ((!t->slot || (t->used + 1) * 2 > t->mask + 1) && grow(t))
        return -ZC_ENOMEM;
    for (i = h[0] & t->mask; t->slot[i].id1; i = (i + 1) & t->mask)
        ;
    t->slot[i].h[0] = h[0];
    t->slot[i].h[1] = h[1];
    t->slot[i].id1 = id + 1;
    t->used++;
    return 0;
}

/* The slots (id + 1, the hash kept), for the one deletion rule. */
static bool slot_empty(const void *ctx, uint64_t j)
{
    return !((const struct zc__ctab *)ctx)->slot[j].id1;
}

static uint64_t slot_home(const void *ctx, uint64_t j)
{
    return ((const struct zc__ctab *)ctx)->slot[j].h[0];
}

static void slot_move(void *ctx, uint64_t to, uint64_t from)
{
    struct zc__ctab *t = ctx;

    t->slot[to] = t->slot[from];
}

static void slot_clear(void *ctx, uint64_t i)
{
    ((struct zc__ctab *)ctx)->slot[i].id1 = 0;
}

static const struct zc__lp_ops slot_ops = {slot_empty, slot_home, slot_move,
                                           slot_clear};

void zc__ctab_remove(struct zc__ctab *t, const uint64_t h[2], uint64_t id)
{
    uint64_t i;

    if (!t->slot)
        return;
    for (i = h[0] & t->mask; t->slot[i].id1 != id + 1; i = (i + 1) & t->mask)
        if (!t->slot[i].id1)
            return;
    zc__lp_delete(t, t->mask, i, &slot_ops);
    t->used--;
}

void zc__ctab_free(struct zc__ctab *t)
{
    free(t->slot);
    t->slot = NULL;
    t->mask = t->used = 0;
}
