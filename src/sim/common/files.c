/*
 * sim/common/files.c - numbering the files whose pages the models key (see
 * files.h: the pair (dev, ino) interned as a 32-bit file number).
 *
 * The table is probed only when a request names another file than the
 * last one, so a block trace of one device never probes it after its
 * first request, and an access stream probes it once per request.
 *
 * File sizes: the array of sizes grows before a file is numbered, so a
 * numbered file always has its size, even after a failed allocation.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdint.h>
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

/* The slot of (dev, ino) in the table, or the empty slot where it would
 * go; the table exists. */
static uint64_t slot(const struct zc__files *f, uint32_t dev, uint64_t ino)
{
    uint64_t i;

    for (i = file_hash(dev, ino) & f->mask; f->table[i];
         i = (i + 1) & f->mask) {
        const struct zc__file *x = &f->v[f->table[i] - 1];
        if (x->dev == dev && x->ino == ino)
            break;
    }
    return i;
}

bool zc__files_find(struct zc__files *f, uint32_t dev, uint64_t ino,
                    uint32_t *file)
{
    uint64_t i;

    if (f->n && f->v[f->last].dev == dev && f->v[f->last].ino == ino) {
        *file = f->last;
        return true;
    }
    if (!f->table)
        return false;
    i = slot(f, dev, ino);
    if (!f->table[i])
        return false;
    *file = f->last = f->table[i] - 1;
    return true;
}

int zc__files_id(struct zc__files *f, uint32_t dev, uint64_t ino,
                 uint32_t *file)
{
    uint64_t i;
    int rc;

    if (zc__files_find(f, dev, ino, file))
        return 0;
    if ((!f->table || ((uint64_t)f->n + 1) * 2 > f->mask + 1) && (rc = grow(f)))
        return rc;
    i = slot(f, dev, ino);
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

int zc__file_size_set(struct zc__file_sizes *s, uint32_t dev, uint64_t ino,
                      uint64_t bytes)
{
    uint32_t file;
    int rc;

    if (!zc__files_find(&s->files, dev, ino, &file)) {
        /* room for the size first: a numbered file always has one */
        if (s->files.n == s->cap) {
            uint32_t cap =
                s->cap ? (s->cap > UINT32_MAX / 2 ? UINT32_MAX : s->cap * 2)
                       : 16;
            uint64_t want = (uint64_t)cap * sizeof(*s->bytes);
            uint64_t *b = want != (size_t)want /* a 32-bit host */
                              ? NULL
                              : realloc(s->bytes, (size_t)want);
            if (!b)
                return -ZC_ENOMEM;
            s->bytes = b;
            s->cap = cap;
        }
        rc = zc__files_id(&s->files, dev, ino, &file);
        if (rc)
            return rc;
    }
    s->bytes[file] = bytes;
    return 0;
}

void zc__file_sizes_free(struct zc__file_sizes *s)
{
    zc__files_free(&s->files);
    free(s->bytes);
    s->bytes = NULL;
    s->cap = 0;
}
