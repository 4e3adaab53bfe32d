/*
 * core/memo.c - a compression memo shared by caches: the compressed form of
 * each distinct page content, computed once.
 *
 * A sweep runs many caches over the same op stream; without a memo every
 * cache compresses every put, though the pages and the compressor are the
 * same.  With one, the first cache to put a content compresses it and
 * leaves the result here, with the time it took; the others copy it (a
 * hash, a lookup, a memcmp of the page and a memcpy) and count that time
 * as their own compression time, so the CPU cost model still reports the
 * cost of compressing.  The result is byte for byte what the compressor
 * would give: the page itself is kept and compared whole, so the hash (of
 * 64 sampled words) only finds candidates, and a collision can only cost
 * a miss, never a wrong page.
 *
 * Layout: 256 stripes, each a mutex and an open-addressing table of entry
 * pointers (linear probing, no deletion); an entry is the page, the
 * compressed bytes and their compressor and level.  The memo stops taking new
 * entries when max_bytes are held (later contents are simply compressed).
 * Memory is malloc's: a memo belongs to no cache's budget.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "memo.h"

enum { STRIPES = 256 };

struct entry {
    uint64_t h[2];
    const void *comp; /* the compressor's ops: one memo serves several */
    int level;
    size_t page_size, clen;
    uint64_t ns;
    int rc;
    unsigned char data[]; /* the page, then the compressed bytes */
};

struct stripe {
    pthread_mutex_t lock;
    struct entry **tab;
    size_t mask, used;
};

struct zc_memo {
    struct stripe s[STRIPES];
    pthread_mutex_t work_lock;
    struct zc__memo_work *work; /* free work memory (zc__memo_work_get) */
    size_t max_bytes;
    atomic_size_t bytes;
};

int zc_memo_create(size_t max_bytes, zc_memo **out)
{
    zc_memo *m;

    if (!out)
        return -ZC_EINVAL;
    m = calloc(1, sizeof(*m));
    if (!m)
        return -ZC_ENOMEM;
    for (int i = 0; i < STRIPES; i++)
        pthread_mutex_init(&m->s[i].lock, NULL);
    pthread_mutex_init(&m->work_lock, NULL);
    m->max_bytes = max_bytes;
    *out = m;
    return 0;
}

void zc_memo_destroy(zc_memo *m)
{
    if (!m)
        return;
    for (int i = 0; i < STRIPES; i++) {
        for (size_t k = 0; m->s[i].tab && k <= m->s[i].mask; k++)
            free(m->s[i].tab[k]);
        free(m->s[i].tab);
        pthread_mutex_destroy(&m->s[i].lock);
    }
    while (m->work) {
        struct zc__memo_work *w = m->work;
        m->work = w->next;
        free(w);
    }
    pthread_mutex_destroy(&m->work_lock);
    free(m);
}

struct zc__memo_work *zc__memo_work_get(zc_memo *m,
                                        const struct zc__compressor_ops *comp,
                                        int level, size_t ps, size_t wrk,
                                        size_t out)
{
    struct zc__memo_work **p, *w;
    size_t head = (sizeof(*w) + 15) & ~(size_t)15;

    pthread_mutex_lock(&m->work_lock);
    for (p = &m->work; *p; p = &(*p)->next)
        if ((*p)->comp == comp && (*p)->level == level && (*p)->ps == ps)
            break;
    w = *p;
    if (w)
        *p = w->next;
    pthread_mutex_unlock(&m->work_lock);
    if (w)
        return w;
    wrk = (wrk + 15) & ~(size_t)15;
    w = malloc(head + wrk + out);
    if (!w)
        return NULL;
    *w = (struct zc__memo_work){.comp = comp, .level = level, .ps = ps};
    w->wrkmem = (uint8_t *)w + head;
    w->out = w->wrkmem + wrk;
    if (comp->init_wrkmem)
        comp->init_wrkmem(w->wrkmem, ps, level);
    return w;
}

void zc__memo_work_put(zc_memo *m, struct zc__memo_work *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&m->work_lock);
    w->next = m->work;
    m->work = w;
    pthread_mutex_unlock(&m->work_lock);
}

void zc_memo_clear(zc_memo *m)
{
    if (!m)
        return;
    for (int i = 0; i < STRIPES; i++) {
        struct stripe *st = &m->s[i];
        for (size_t k = 0; st->tab && k <= st->mask; k++) {
            free(st->tab[k]);
            st->tab[k] = NULL;
        }
        st->used = 0;
    }
    atomic_store(&m->bytes, 0);
}

size_t zc_memo_bytes(const zc_memo *m)
{
    return m ? atomic_load(&((zc_memo *)m)->bytes) : 0;
}

/* A hash of 64 words spread over the page: lookups need only spread
 * contents well, since a found entry's page is compared whole; hashing
 * every word costs more than the memo saves (about 1 us a page). */
static void sample_hash(const void *page, size_t ps, uint64_t h[2])
{
    const unsigned char *p = page;
    size_t stride = ps / 64;
    uint64_t a = 0x9E3779B97F4A7C15ull ^ ps, b = 0xC2B2AE3D27D4EB4Full;

    for (size_t i = 0; i + 8 <= ps; i += stride) {
        uint64_t w;
        memcpy(&w, p + i + (i / stride) % (stride - 7), 8);
        a = (a ^ w) * 0x87c37b91114253d5ull;
        b = (b + w) * 0x4cf5ad432745937full;
    }
    h[0] = zc__fmix64(a ^ (b >> 29));
    h[1] = zc__fmix64(b + a);
}

static struct entry *find(struct stripe *st, const uint64_t h[2],
                          const void *comp, int level, const void *page,
                          size_t ps, size_t *slot)
{
    size_t i;

    if (!st->tab)
        return NULL;
    for (i = (size_t)(h[0] >> 8) & st->mask; st->tab[i];
         i = (i + 1) & st->mask) {
        struct entry *e = st->tab[i];
        if (e->h[0] == h[0] && e->h[1] == h[1] && e->comp == comp &&
            e->level == level && e->page_size == ps &&
            !memcmp(e->data, page, ps))
            return e;
    }
    *slot = i;
    return NULL;
}

int zc__memo_compress(zc_memo *m, const struct zc__compressor_ops *comp,
                      int level, const void *page, size_t ps, void *out,
                      size_t *clen, void *wrkmem, uint64_t *ns)
{
    uint64_t h[2], t0;
    struct stripe *st;
    struct entry *e;
    size_t slot = 0;
    int rc;

    sample_hash(page, ps, h);
    st = &m->s[h[0] & (STRIPES - 1)];
    pthread_mutex_lock(&st->lock);
    e = find(st, h, comp, level, page, ps, &slot);
    if (e) {
        memcpy(out, e->data + ps, e->clen);
        *clen = e->clen;
        *ns = e->ns;
        rc = e->rc;
        pthread_mutex_unlock(&st->lock);
        return rc;
    }
    pthread_mutex_unlock(&st->lock);

    /* Compress outside the lock; two threads may both do it, and the
     * second finds the first's entry when it comes to insert. */
    t0 = zc__now_ns();
    rc = comp->compress(page, ps, out, clen, wrkmem, level);
    *ns = zc__now_ns() - t0;
    if (atomic_load(&m->bytes) + sizeof(struct entry) + ps + (rc ? 0 : *clen) >
        m->max_bytes)
        return rc; /* full (a soft limit: threads may overshoot a little) */

    e = malloc(sizeof(*e) + ps + (rc ? 0 : *clen));
    if (!e)
        return rc; /* the memo is an optimisation: no memory, no entry */
    memcpy(e->h, h, sizeof(h));
    e->comp = comp;
    e->level = level;
    e->page_size = ps;
    e->clen = rc ? 0 : *clen;
    e->ns = *ns;
    e->rc = rc;
    memcpy(e->data, page, ps);
    memcpy(e->data + ps, out, e->clen);
    pthread_mutex_lock(&st->lock);
    if (!st->tab || (st->used + 1) * 2 > st->mask + 1) {
        size_t n = st->tab ? (st->mask + 1) * 2 : 64;
        struct entry **t = calloc(n, sizeof(*t));
        if (!t) {
            pthread_mutex_unlock(&st->lock);
            free(e);
            return rc;
        }
        for (size_t k = 0; st->tab && k <= st->mask; k++) {
            size_t i;
            if (!st->tab[k])
                continue;
            for (i = (size_t)(st->tab[k]->h[0] >> 8) & (n - 1); t[i];
                 i = (i + 1) & (n - 1))
                ;
            t[i] = st->tab[k];
        }
        free(st->tab);
        st->tab = t;
        st->mask = n - 1;
    }
    if (find(st, h, comp, level, page, ps, &slot)) {
        free(e); /* another thread was first */
    } else {
        st->tab[slot] = e;
        st->used++;
        atomic_fetch_add(&m->bytes, sizeof(*e) + ps + e->clen);
    }
    pthread_mutex_unlock(&st->lock);
    return rc;
}
