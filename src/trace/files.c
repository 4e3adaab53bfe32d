/*
 * trace/files.c - numbering the files whose pages the models key (see
 * files.h: the pair (dev, ino) interned as a 32-bit file number).
 *
 * The table is probed only when a request names another file than the
 * last one, so a block trace of one device never probes it after its
 * first request, and an access stream probes it once per request.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>

#include "files.h"

#define FILES_MAX 0xFFFFFFFEu /* numbers + 1 fit the table's uint32_t */

static inline uint64_t file_hash(uint32_t dev, uint64_t ino)
{
    return zc__page_hash(dev, ino ^ (ino >> 32));
}

/* Double the table (or make the first one). */
static int grow(struct zc__files *f)
{
    uint64_t size = f->table ? (f->mask + 1) * 2 : 64;
    uint32_t *t = calloc(size, sizeof(*t));

    if (!t)
        return -ZC_ENOMEM;
    for (uint32_t k = 0; k < f->n; k++) {
        uint64_t i = file_hash(f->v[k].dev, f->v[k].ino) & (size - 1);
        while (t[i])
            i = (i + 1) & (size - 1);
        t[i] = k + 1;
    }
    free(f->table);
    f->table = t;
    f->mask = size - 1;
    return 0;
}

int zc__files_id(struct zc__files *f, uint32_t dev, uint64_t ino,
                 uint32_t *file)
{
    uint64_t i;
    int rc;

    if (f->n && f->v[f->last].dev == dev && f->v[f->last].ino == ino) {
        *file = f->last;
        return 0;
    }
    if ((!f->table || ((uint64_t)f->n + 1) * 2 > f->mask + 1) && (rc = grow(f)))
        return rc;
    for (i = file_hash(dev, ino) & f->mask; f->table[i];
         i = (i + 1) & f->mask) {
        const struct zc__file *x = &f->v[f->table[i] - 1];
        if (x->dev == dev && x->ino == ino) {
            *file = f->last = f->table[i] - 1;
            return 0;
        }
    }
    if (f->n == FILES_MAX)
        return -ZC_EINVAL;
    if (f->n == f->cap) {
        uint32_t cap =
            f->cap ? (f->cap > FILES_MAX / 2 ? FILES_MAX : f->cap * 2) : 16;
        struct zc__file *v = realloc(f->v, (size_t)cap * sizeof(*v));
        if (!v)
            return -ZC_ENOMEM;
        f->v = v;
        f->cap = cap;
    }
    f->v[f->n].dev = dev;
    f->v[f->n].ino = ino;
    f->table[i] = f->n + 1;
    *file = f->last = f->n++;
    return 0;
}

void zc__files_free(struct zc__files *f)
{
    free(f->v);
    free(f->table);
    f->v = NULL;
    f->table = NULL;
    f->n = f->cap = 0;
    f->mask = 0;
    f->last = 0;
}
