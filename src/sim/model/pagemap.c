/*
 * sim/model/pagemap.c - the page-key map of pagemap.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>

#include "base/lptab.h"
#include "common/files.h"
#include "pagemap.h"

#define MIN_SLOTS 1024u

uint64_t zc__pagemap_get(const struct zc__pagemap *m, uint32_t file,
                         uint64_t page)
{
    if (!m->v)
        return 0;
    for (uint64_t i = zc__page_hash(file, page) & m->mask; m->v[i].used;
         i = (i + 1) & m->mask)
        if (m->v[i].page == page && m->v[i].file == file)
            return m->v[i].value;
    return 0;
}

/* Every key into a new array of n slots (a power of two, more than twice
 * the keys): 0, or -1 with m unchanged. */
static int rehash(struct zc__pagemap *m, uint64_t n)
{
    struct zc__pagemap_slot *t = calloc(n, sizeof(*t));

    if (!t)
        return -1;
    for (uint64_t j = 0; m->v && j <= m->mask; j++) {
        uint64_t i;
        if (!m->v[j].used)
            continue;
        for (i = zc__page_hash(m->v[j].file, m->v[j].page) & (n - 1);
             t[i].used; i = (i + 1) & (n - 1))
            ;
        t[i] = m->v[j];
    }
    free(m->v);
    m->v = t;
    m->mask = n - 1;
    return 0;
}

uint64_t *zc__pagemap_slot(struct zc__pagemap *m, uint32_t file,
                           uint64_t page)
{
    uint64_t i;

    if (m->v)
        for (i = zc__page_hash(file, page) & m->mask; m->v[i].used;
             i = (i + 1) & m->mask)
            if (m->v[i].page == page && m->v[i].file == file)
                return &m->v[i].value;
    /* A new key: room first, so a key present never allocates. */
    if ((!m->v || (m->used + 1) * 2 > m->mask + 1) &&
        rehash(m, m->v ? (m->mask + 1) * 2 : MIN_SLOTS))
        return NULL;
    for (i = zc__page_hash(file, page) & m->mask; m->v[i].used;
         i = (i + 1) & m->mask)
        ;
    m->v[i].page = page;
    m->v[i].file = file;
    m->v[i].used = 1;
    m->v[i].value = 0;
    m->used++;
    return &m->v[i].value;
}

/* The slots, for the one deletion rule. */
static bool slot_empty(const void *ctx, uint64_t j)
{
    return !((const struct zc__pagemap *)ctx)->v[j].used;
}

static uint64_t slot_home(const void *ctx, uint64_t j)
{
    const struct zc__pagemap_slot *s = &((const struct zc__pagemap *)ctx)->v[j];

    return zc__page_hash(s->file, s->page);
}

static void slot_move(void *ctx, uint64_t to, uint64_t from)
{
    struct zc__pagemap *m = ctx;

    m->v[to] = m->v[from];
}

static void slot_clear(void *ctx, uint64_t i)
{
    struct zc__pagemap_slot *s = &((struct zc__pagemap *)ctx)->v[i];

    s->used = 0;
    s->value = 0;
}

static const struct zc__lp_ops slot_ops = {slot_empty, slot_home, slot_move,
                                           slot_clear};

bool zc__pagemap_del(struct zc__pagemap *m, uint32_t file, uint64_t page)
{
    uint64_t i;

    if (!m->v)
        return false;
    for (i = zc__page_hash(file, page) & m->mask; m->v[i].used;
         i = (i + 1) & m->mask)
        if (m->v[i].page == page && m->v[i].file == file)
            break;
    if (!m->v[i].used)
        return false;
    zc__lp_delete(m, m->mask, i, &slot_ops);
    m->used--;
    /* An eighth full: halved (a quarter full then, so that a key entered
     * next does not double it again at once). */
    if (m->mask + 1 > MIN_SLOTS && m->used * 8 < m->mask + 1)
        (void)rehash(m, (m->mask + 1) / 2);
    return true;
}

void zc__pagemap_free(struct zc__pagemap *m)
{
    free(m->v);
    m->v = NULL;
    m->mask = m->used = 0;
}
