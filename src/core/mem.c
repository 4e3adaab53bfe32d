/*
 * core/mem.c - the injectable heap hook, with exact accounting.
 *
 * Every byte a cache takes from the heap, arena frames and metadata alike,
 * goes through zc__alloc()/zc__alloc_arena().  Callers pass the size back
 * on free (they always know it), so the hook need not remember sizes and
 * the cache can report arena and metadata bytes exactly.  The counters are
 * atomic because compression scratch buffers are taken outside the cache
 * lock.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void *default_alloc(void *opaque, size_t size)
{
    ZC__UNUSED(opaque);
    return malloc(size);
}

static void default_free(void *opaque, void *ptr)
{
    ZC__UNUSED(opaque);
    free(ptr);
}

void zc__mem_init(struct zc__mem *m, const zc_mem *hook)
{
    if (hook && hook->alloc) {
        m->hook = *hook;
    } else {
        m->hook.alloc = default_alloc;
        m->hook.free = default_free;
        m->hook.opaque = NULL;
    }
    atomic_init(&m->bytes, 0);
    atomic_init(&m->arena_bytes, 0);
    for (int k = 0; k < ZC__MEM_KINDS; k++)
        atomic_init(&m->kind_bytes[k], 0);
}

static void *hook_alloc(struct zc__mem *m, size_t n)
{
    void *p = m->hook.alloc(m->hook.opaque, n ? n : 1);

    if (p)
        atomic_fetch_add(&m->bytes, n);
    return p;
}

static void hook_free(struct zc__mem *m, void *p, size_t n)
{
    atomic_fetch_sub(&m->bytes, n);
    m->hook.free(m->hook.opaque, p);
}

void *zc__alloc(struct zc__mem *m, enum zc__mem_kind kind, size_t n)
{
    void *p = hook_alloc(m, n);

    if (p)
        atomic_fetch_add(&m->kind_bytes[kind], n);
    return p;
}

void *zc__calloc(struct zc__mem *m, enum zc__mem_kind kind, size_t n)
{
    void *p = zc__alloc(m, kind, n);

    if (p)
        memset(p, 0, n);
    return p;
}

void zc__free(struct zc__mem *m, enum zc__mem_kind kind, void *p, size_t n)
{
    if (!p)
        return;
    atomic_fetch_sub(&m->kind_bytes[kind], n);
    hook_free(m, p, n);
}

void *zc__alloc_arena(struct zc__mem *m, size_t n)
{
    void *p = hook_alloc(m, n);

    if (p)
        atomic_fetch_add(&m->arena_bytes, n);
    return p;
}

void zc__free_arena(struct zc__mem *m, void *p, size_t n)
{
    if (!p)
        return;
    atomic_fetch_sub(&m->arena_bytes, n);
    hook_free(m, p, n);
}

int zc__grow_table(struct zc__mem *m, enum zc__mem_kind kind, void ***table,
                   uint32_t *cap, uint32_t n)
{
    uint32_t ncap;
    void **t;

    if (n < *cap)
        return 0;
    ncap = *cap ? *cap * 2 : 8;
    t = zc__alloc(m, kind, ncap * sizeof(void *));
    if (!t)
        return -ZC_ENOMEM;
    if (*table)
        memcpy(t, *table, *cap * sizeof(void *));
    zc__free(m, kind, *table, *cap * sizeof(void *));
    *table = t;
    *cap = ncap;
    return 0;
}
