/*
 * sim/model/pcm_lru.c - the exact LRU page cache ("lru", the default model).
 *
 * One list, most recently used at the head.  A hit moves the page to the
 * head; a miss enters it at the head, after evicting the tail page when
 * the cache is full.  A cache of 0 pages passes every missed page
 * through: it is evicted as soon as it came in.  A page is "active" at
 * eviction if it was hit while resident.  Mapped, fault-around and
 * file-size hints are ignored: every access is an access.  This is the
 * model that reproduces libCacheSim's LRU on every reference trace.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>

#include "pcm.h"

#define HIT 1u /* node flag: hit since it came in */

struct zc__pcm {
    struct zc__pcm_set set;
    struct zc__pcm_list lru;
    uint64_t cap;
};

static int lru_create(const struct zc__pcm_params *p, struct zc__pcm **out)
{
    struct zc__pcm *m = calloc(1, sizeof(*m));
    int rc;

    if (!m)
        return -ZC_ENOMEM;
    rc = zc__pcm_set_init(&m->set, p->pages);
    if (rc) {
        free(m);
        return rc;
    }
    zc__pcm_list_init(&m->lru);
    m->cap = p->pages;
    *out = m;
    return 0;
}

static void lru_destroy(struct zc__pcm *m)
{
    if (!m)
        return;
    zc__pcm_set_free(&m->set);
    free(m);
}

static int evict_tail(struct zc__pcm *m, const struct zc__pcm_io *io)
{
    uint32_t n = m->lru.tail;
    struct zc__pcm_node x = *zc__pcm_node(&m->set, n);

    zc__pcm_list_unlink(&m->set, &m->lru, n);
    zc__pcm_set_remove(&m->set, n);
    return io->evict(io->ctx, x.file, x.page, (x.flags & HIT) != 0);
}

static int lru_access(struct zc__pcm *m, const struct zc__pcm_req *q,
                      uint64_t page, const struct zc__pcm_io *io)
{
    uint32_t n = zc__pcm_set_find(&m->set, q->file, page);
    int rc;

    if (n != ZC__PCM_NIL) {
        zc__pcm_node(&m->set, n)->flags |= HIT;
        if (n != m->lru.head) {
            zc__pcm_list_unlink(&m->set, &m->lru, n);
            zc__pcm_list_push_head(&m->set, &m->lru, n);
        }
        return io->hit(io->ctx, q->file, page, q->write);
    }
    if ((rc = io->miss(io->ctx, q->file, page, q->write)))
        return rc;
    if (m->cap == 0)
        return io->evict(io->ctx, q->file, page, false);
    if (m->set.used >= m->cap && (rc = evict_tail(m, io)))
        return rc;
    if ((rc = zc__pcm_set_add(&m->set, q->file, page, &n)))
        return rc;
    zc__pcm_list_push_head(&m->set, &m->lru, n);
    return 0;
}

static int lru_resize(struct zc__pcm *m, uint64_t pages,
                      const struct zc__pcm_io *io)
{
    m->cap = pages;
    while (m->set.used > pages) {
        int rc = evict_tail(m, io);
        if (rc)
            return rc;
    }
    return 0;
}

static uint64_t lru_resident(const struct zc__pcm *m)
{
    return m->set.used;
}

const struct zc__pcm_ops zc__pcm_lru = {
    .name = "lru",
    .doc = "exact least-recently-used: a hit moves the page to the front, "
           "the back page is evicted",
    .create = lru_create,
    .destroy = lru_destroy,
    .access = lru_access,
    .resize = lru_resize,
    .resident = lru_resident,
};
