/*
 * sim/model/pagemap.c - the page-key map of pagemap.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>

#include "common/files.h"
#include "pagemap.h"

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

static int grow(struct zc__pagemap *m)
{
    uint64_t n = m->v ? (m->mask + 1) * 2 : 1024;
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
    if ((!m->v || (m->used + 1) * 2 > m->mask + 1) && grow(m))
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

void zc__pagemap_free(struct zc__pagemap *m)
{
    free(m->v);
    m->v = NULL;
    m->mask = m->used = 0;
}
