/*
 * core/index.c - slabs of entries and objects, and the two levels of hashing.
 *
 * Entries and objects live in chunked slabs (never moved, so ids are
 * stable and chunks are allocated one at a time, not doubled and copied).
 * Each object's page table is a power-of-two array of chain heads: it
 * doubles when the object holds more than four pages per bucket and
 * halves below one, so buckets cost 1 to 2 bytes per page (the budget is
 * 32 bytes of metadata per page, all included, and an entry takes 16); an
 * object of 4 pages or fewer keeps its one bucket inline.  A failed resize
 * is harmless (chains just get longer), so growing never fails an
 * operation.
 *
 * Chains end in ZC__END | object id (see index.h).  Pool tables chain
 * objects through zc__object.hnext and end in 0.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "index.h"

#define ENT_PER_CHUNK (1u << ZC__ENT_SHIFT)
#define OBJ_PER_CHUNK (1u << ZC__OBJ_SHIFT)
#define POOL_NB_LOG2 4

static inline uint32_t hash_index(uint32_t index, unsigned nb_log2)
{
    if (!nb_log2)
        return 0;
    return (uint32_t)((index * 0x9E3779B97F4A7C15ull) >> (64 - nb_log2));
}

static inline uint32_t hash_key(const zc_filekey *k, unsigned nb_log2)
{
    uint64_t h = 0x243F6A8885A308D3ull;

    for (int i = 0; i < 6; i++)
        h = (h ^ k->fh[i]) * 0x100000001B3ull + (h >> 29);
    h *= 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> (64 - nb_log2));
}

int zc__index_init(struct zc__index *x, struct zc__mem *mem)
{
    memset(x, 0, sizeof(*x));
    x->mem = mem;
    return 0;
}

void zc__index_destroy(struct zc__index *x)
{
    struct zc__mem *m = x->mem;

    for (uint32_t i = 0; i < x->nochunks; i++) {
        struct zc__object *c = x->ochunk[i];
        for (uint32_t j = 0; j < OBJ_PER_CHUNK; j++)
            if (c[j].live && c[j].nb_log2)
                zc__free(m, ZC__MEM_PAGE, c[j].t.buckets,
                         sizeof(uint32_t) << c[j].nb_log2);
        zc__free(m, ZC__MEM_FILE, c, OBJ_PER_CHUNK * sizeof(*c));
    }
    zc__free(m, ZC__MEM_FILE, x->ochunk, x->ochunks_cap * sizeof(*x->ochunk));
    for (uint32_t i = 0; i < x->ents.nchunks; i++)
        zc__free(m, ZC__MEM_PAGE, x->ents.chunk[i],
                 ENT_PER_CHUNK * sizeof(struct zc__entry));
    zc__free(m, ZC__MEM_PAGE, x->ents.chunk,
             x->ents.chunks_cap * sizeof(*x->ents.chunk));
    for (uint32_t i = 0; i < x->npools; i++)
        if (x->pools[i].live)
            zc__free(m, ZC__MEM_FILE, x->pools[i].buckets,
                     sizeof(uint32_t) << x->pools[i].nb_log2);
    zc__free(m, ZC__MEM_FIXED, x->pools, x->pools_cap * sizeof(*x->pools));
    memset(x, 0, sizeof(*x));
}

/* ---- entries ---------------------------------------------------------- */

int zc__entry_new(struct zc__index *x, uint32_t *id)
{
    struct zc__entries *E = &x->ents;
    struct zc__entry *c;
    uint32_t base, first;

    if (!E->free) {
        if ((uint64_t)(E->nchunks + 1) << ZC__ENT_SHIFT > ZC__ID_MAX + 1ull)
            return -ZC_ENOSPC;
        if (zc__grow_table(x->mem, ZC__MEM_PAGE, (void ***)&E->chunk,
                           &E->chunks_cap, E->nchunks))
            return -ZC_ENOMEM;
        c = zc__alloc(x->mem, ZC__MEM_PAGE, ENT_PER_CHUNK * sizeof(*c));
        if (!c)
            return -ZC_ENOMEM;
        memset(c, 0, ENT_PER_CHUNK * sizeof(*c));
        base = E->nchunks << ZC__ENT_SHIFT;
        E->chunk[E->nchunks++] = c;
        /* Id 0 stays out of circulation: it is the policies' sentinel. */
        first = base ? 0 : 1;
        for (uint32_t i = ENT_PER_CHUNK; i-- > first;) {
            zc__st32(zc__e_chain(&c[i]), E->free);
            E->free = base + i;
        }
    }
    *id = E->free;
    E->free = zc__chain_get(zc__e_chain(zc__ent(E, *id)));
    E->used++;
    return 0;
}

void zc__entry_free(struct zc__index *x, uint32_t id)
{
    struct zc__entry *e = zc__ent(&x->ents, id);

    zc__e_set_handle(e, 0);
    zc__st32(zc__e_chain(e), x->ents.free);
    x->ents.free = id;
    x->ents.used--;
}

/* ---- pools ------------------------------------------------------------ */

int zc__pool_new(struct zc__index *x, uint64_t born, int *id)
{
    uint32_t i;
    uint32_t *b;

    for (i = x->pool_hint; i < x->npools; i++)
        if (!x->pools[i].live)
            break;
    if (i >= 65535)
        return -ZC_ENOSPC;
    if (i == x->pools_cap) {
        uint32_t cap = x->pools_cap ? x->pools_cap * 2 : 8;
        struct zc__pool *t =
            zc__calloc(x->mem, ZC__MEM_FIXED, cap * sizeof(*t));
        if (!t)
            return -ZC_ENOMEM;
        if (x->pools)
            memcpy(t, x->pools, x->pools_cap * sizeof(*t));
        zc__free(x->mem, ZC__MEM_FIXED, x->pools, x->pools_cap * sizeof(*t));
        x->pools = t;
        x->pools_cap = cap;
    }
    b = zc__calloc(x->mem, ZC__MEM_FILE, sizeof(uint32_t) << POOL_NB_LOG2);
    if (!b)
        return -ZC_ENOMEM;
    if (i == x->npools)
        x->npools++;
    memset(&x->pools[i], 0, sizeof(x->pools[i]));
    x->pools[i].buckets = b;
    x->pools[i].nb_log2 = POOL_NB_LOG2;
    x->pools[i].live = 1;
    x->pools[i].born = born;
    x->live_pools++;
    x->pool_hint = i + 1;
    *id = (int)i;
    return 0;
}

void zc__pool_release(struct zc__index *x, int id, uint64_t epoch)
{
    struct zc__pool *p = &x->pools[id];

    zc__free(x->mem, ZC__MEM_FILE, p->buckets, sizeof(uint32_t) << p->nb_log2);
    memset(p, 0, sizeof(*p));
    p->died = epoch;
    x->live_pools--;
    if ((uint32_t)id < x->pool_hint)
        x->pool_hint = (uint32_t)id;
}

static void pool_rehash(struct zc__index *x, struct zc__pool *p,
                        unsigned nb_log2)
{
    uint32_t *nb =
        zc__calloc(x->mem, ZC__MEM_FILE, sizeof(uint32_t) << nb_log2);

    if (!nb)
        return; /* longer chains, still correct */
    for (uint32_t b = 0; b < (1u << p->nb_log2); b++) {
        uint32_t oid = p->buckets[b];
        while (oid) {
            struct zc__object *o = zc__obj(x, oid);
            uint32_t next = o->hnext;
            uint32_t h = hash_key(&o->key, nb_log2);
            o->hnext = nb[h];
            nb[h] = oid;
            oid = next;
        }
    }
    zc__free(x->mem, ZC__MEM_FILE, p->buckets, sizeof(uint32_t) << p->nb_log2);
    p->buckets = nb;
    p->nb_log2 = (uint8_t)nb_log2;
}

/* ---- objects ---------------------------------------------------------- */

uint32_t zc__object_find(const struct zc__index *x, int pool,
                         const zc_filekey *key, uint64_t index_hi)
{
    const struct zc__pool *p = &x->pools[pool];
    uint32_t oid = p->buckets[hash_key(key, p->nb_log2)];

    while (oid) {
        const struct zc__object *o = zc__obj(x, oid);
        if (zc__obj_index_hi(o) == index_hi &&
            memcmp(&o->key, key, sizeof(*key)) == 0)
            return oid;
        oid = o->hnext;
    }
    return 0;
}

uint32_t zc__object_find_any(const struct zc__index *x, int pool,
                             const zc_filekey *key)
{
    const struct zc__pool *p = &x->pools[pool];
    uint32_t oid = p->buckets[hash_key(key, p->nb_log2)];

    while (oid) {
        const struct zc__object *o = zc__obj(x, oid);
        if (memcmp(&o->key, key, sizeof(*key)) == 0)
            return oid;
        oid = o->hnext;
    }
    return 0;
}

int zc__object_new(struct zc__index *x, int pool, const zc_filekey *key,
                   uint64_t index_hi, uint32_t *id)
{
    struct zc__pool *p = &x->pools[pool];
    struct zc__object *o;
    uint32_t oid, h;

    if (!x->ofree) {
        struct zc__object *c;
        uint32_t base, first;

        if ((uint64_t)(x->nochunks + 1) << ZC__OBJ_SHIFT > ZC__ID_MAX + 1ull)
            return -ZC_ENOSPC;
        if (zc__grow_table(x->mem, ZC__MEM_FILE, (void ***)&x->ochunk,
                           &x->ochunks_cap, x->nochunks))
            return -ZC_ENOMEM;
        c = zc__calloc(x->mem, ZC__MEM_FILE, OBJ_PER_CHUNK * sizeof(*c));
        if (!c)
            return -ZC_ENOMEM;
        base = x->nochunks << ZC__OBJ_SHIFT;
        x->ochunk[x->nochunks++] = c;
        first = base ? 0 : 1;
        for (uint32_t i = OBJ_PER_CHUNK; i-- > first;) {
            c[i].hnext = x->ofree;
            x->ofree = base + i;
        }
    }
    if (!zc__object_find_any(x, pool, key))
        x->files++;
    oid = x->ofree;
    o = zc__obj(x, oid);
    x->ofree = o->hnext;
    memset(o, 0, sizeof(*o));
    o->key = *key;
    o->index_hi = (uint32_t)index_hi;
    o->pool = (uint16_t)pool;
    o->live = 1;
    o->t.bucket0 = ZC__END | oid;
    h = hash_key(key, p->nb_log2);
    o->hnext = p->buckets[h];
    p->buckets[h] = oid;
    p->nobj++;
    x->objects++;
    if (p->nobj > (2u << p->nb_log2) && p->nb_log2 < 30)
        pool_rehash(x, p, p->nb_log2 + 1u);
    *id = oid;
    return 0;
}

void zc__object_release(struct zc__index *x, uint32_t oid)
{
    struct zc__object *o = zc__obj(x, oid);
    struct zc__pool *p = &x->pools[o->pool];
    uint32_t *link = &p->buckets[hash_key(&o->key, p->nb_log2)];

    while (*link != oid)
        link = &zc__obj(x, *link)->hnext;
    *link = o->hnext;
    p->nobj--;
    x->objects--;
    if (!zc__object_find_any(x, o->pool, &o->key))
        x->files--;
    if (o->nb_log2)
        zc__free(x->mem, ZC__MEM_PAGE, o->t.buckets,
                 sizeof(uint32_t) << o->nb_log2);
    memset(o, 0, sizeof(*o));
    o->hnext = x->ofree;
    x->ofree = oid;
}

/* ---- pages of an object ----------------------------------------------- */

static inline uint32_t *table_of(struct zc__object *o)
{
    return o->nb_log2 ? o->t.buckets : &o->t.bucket0;
}

size_t zc__object_buckets(const struct zc__object *o)
{
    return (size_t)1 << o->nb_log2;
}

uint32_t zc__page_find(const struct zc__index *x, uint32_t oid, uint32_t index)
{
    struct zc__object *o = zc__obj(x, oid);
    uint32_t id = table_of(o)[hash_index(index, o->nb_log2)];

    while (!(id & ZC__END)) {
        const struct zc__entry *e = zc__ent(&x->ents, id);
        if (zc__e_index(e) == index)
            return id;
        id = zc__e_chain_get(e);
    }
    return 0;
}

static void page_rehash(struct zc__index *x, uint32_t oid, unsigned nb_log2)
{
    struct zc__object *o = zc__obj(x, oid);
    uint32_t *old = table_of(o), *nb;
    uint32_t nold = 1u << o->nb_log2;
    uint32_t one;

    if (nb_log2) {
        nb = zc__alloc(x->mem, ZC__MEM_PAGE, sizeof(uint32_t) << nb_log2);
        if (!nb)
            return; /* longer chains, still correct */
    } else {
        nb = &one;
    }
    for (uint32_t b = 0; b < (1u << nb_log2); b++)
        nb[b] = ZC__END | oid;
    for (uint32_t b = 0; b < nold; b++) {
        uint32_t id = old[b];
        while (!(id & ZC__END)) {
            struct zc__entry *e = zc__ent(&x->ents, id);
            uint32_t next = zc__chain_get(zc__e_chain(e));
            uint32_t h = hash_index(zc__e_index(e), nb_log2);
            zc__chain_set(zc__e_chain(e), nb[h]);
            nb[h] = id;
            id = next;
        }
    }
    if (o->nb_log2)
        zc__free(x->mem, ZC__MEM_PAGE, o->t.buckets,
                 sizeof(uint32_t) << o->nb_log2);
    if (nb_log2) {
        o->t.buckets = nb;
    } else {
        o->t.buckets = NULL;
        o->t.bucket0 = one;
    }
    o->nb_log2 = (uint8_t)nb_log2;
}

void zc__page_link(struct zc__index *x, uint32_t oid, uint32_t eid)
{
    struct zc__object *o = zc__obj(x, oid);
    struct zc__entry *e = zc__ent(&x->ents, eid);
    uint32_t *head = &table_of(o)[hash_index(zc__e_index(e), o->nb_log2)];

    zc__chain_set(zc__e_chain(e), *head);
    *head = eid;
    o->count++;
    if (o->count > (4u << o->nb_log2) && o->nb_log2 < 30)
        page_rehash(x, oid, o->nb_log2 + 1u);
}

void zc__page_unlink(struct zc__index *x, uint32_t oid, uint32_t eid)
{
    struct zc__object *o = zc__obj(x, oid);
    struct zc__entry *e = zc__ent(&x->ents, eid);
    void *link = &table_of(o)[hash_index(zc__e_index(e), o->nb_log2)];

    while (zc__chain_get(link) != eid)
        link = zc__e_chain(zc__ent(&x->ents, zc__chain_get(link)));
    zc__chain_set(link, zc__chain_get(zc__e_chain(e)));
    o->count--;
    if (o->nb_log2 && o->count < (1u << o->nb_log2))
        page_rehash(x, oid, o->nb_log2 - 1u);
}

uint32_t zc__page_object(const struct zc__index *x, uint32_t eid)
{
    while (!(eid & ZC__END))
        eid = zc__chain_get(zc__e_chain(zc__ent(&x->ents, eid)));
    return eid & ~ZC__END;
}

void zc__page_drain(struct zc__index *x, uint32_t oid,
                    void (*fn)(void *ctx, uint32_t eid), void *ctx)
{
    struct zc__object *o = zc__obj(x, oid);
    uint32_t *t = table_of(o);

    for (uint32_t b = 0; b < (1u << o->nb_log2); b++) {
        uint32_t id = t[b];
        while (!(id & ZC__END)) {
            uint32_t next = zc__chain_get(zc__e_chain(zc__ent(&x->ents, id)));
            fn(ctx, id);
            id = next;
        }
        t[b] = ZC__END | oid;
    }
    o->count = 0;
}
