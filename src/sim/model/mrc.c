/*
 * sim/model/mrc.c - the exact LRU miss-ratio curve of a page stream in one
 * pass: stack (reuse) distances, as Mattson et al. (1970) defined them.
 *
 * An access's stack distance is the number of distinct other pages touched
 * since the page's previous access (infinite for a first access).  An LRU
 * cache of C pages hits exactly the accesses whose distance is below C, so
 * one histogram of distances gives the hits of every capacity at once, and
 * equals the plain LRU of docs/ARCHITECTURE.md (reads and writes both
 * allocate) for each.
 *
 * The distance is counted with a Fenwick tree (base/fenwick.h) over access
 * times: every page has a mark at the time of its last access, and the distance of an
 * access at time t to a page last seen at t' is the number of marks in
 * (t', t).  The tree spans a window of times; when it is full the live
 * marks (one per distinct page) are renumbered 0..D-1 in time order and
 * the window doubles if they filled more than half of it, so memory stays
 * O(distinct pages) and each access costs O(log window).  Pages map to
 * their last time through an open-addressing table (linear probing),
 * keyed as the replay keys them: (file number, page), the file number
 * standing for (dev, ino) (files.h; ino 0: the block device's pages).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "base/fenwick.h"
#include "common/files.h"
#include "zcache_sim.h"

struct page_slot {
    uint64_t page;
    uint32_t file; /* zc__files number of (dev, ino) */
    uint32_t used;
    uint64_t time; /* window time of the page's mark */
};

struct zc_mrc {
    /* pages -> time of their mark */
    struct page_slot *tab;
    uint64_t mask, distinct;

    /* the Fenwick tree over window times 1..size, and who marked each */
    struct zc__fenwick bit;
    uint64_t *owner; /* window time -> table slot + 1 (0: no mark) */
    uint64_t size, now;

    /* hist[d]: accesses of stack distance d */
    uint64_t *hist;
    uint64_t hist_cap;
    uint64_t accesses;

    struct zc__files files;
};

int zc_mrc_create(zc_mrc **out)
{
    zc_mrc *m;

    if (!out)
        return -ZC_EINVAL;
    *out = NULL;
    m = calloc(1, sizeof(*m));
    if (!m)
        return -ZC_ENOMEM;
    m->mask = 1023;
    m->size = 1024;
    m->tab = calloc(m->mask + 1, sizeof(*m->tab));
    m->owner = calloc(m->size + 1, sizeof(*m->owner));
    if (!m->tab || !m->owner || zc__fw_init(&m->bit, m->size, false)) {
        zc_mrc_destroy(m);
        return -ZC_ENOMEM;
    }
    *out = m;
    return 0;
}

void zc_mrc_destroy(zc_mrc *m)
{
    if (!m)
        return;
    free(m->tab);
    zc__fw_free(&m->bit);
    free(m->owner);
    free(m->hist);
    zc__files_free(&m->files);
    free(m);
}

/* Renumber the live marks 1..D in time order, in a window of new_size. */
static int compact(zc_mrc *m, uint64_t new_size)
{
    struct zc__fenwick bit;
    uint64_t *owner = calloc(new_size + 1, sizeof(*owner));
    uint64_t t = 0;

    if (!owner || zc__fw_init(&bit, new_size, false)) {
        free(owner);
        return -ZC_ENOMEM;
    }
    for (uint64_t i = 1; i <= m->now; i++) {
        if (!m->owner[i])
            continue;
        owner[++t] = m->owner[i];
        m->tab[m->owner[i] - 1].time = t;
    }
    zc__fw_free(&m->bit);
    free(m->owner);
    m->owner = owner;
    m->size = new_size;
    m->now = t;
    /* every position 1..t holds one mark */
    for (uint64_t i = 1; i <= t; i++)
        zc__fw_set_raw(&bit, i, 1, 0);
    zc__fw_build(&bit);
    m->bit = bit;
    return 0;
}

static int grow_table(zc_mrc *m)
{
    uint64_t n = (m->mask + 1) * 2;
    struct page_slot *t = calloc(n, sizeof(*t));

    if (!t)
        return -ZC_ENOMEM;
    for (uint64_t j = 0; j <= m->mask; j++) {
        uint64_t i;
        if (!m->tab[j].used)
            continue;
        for (i = zc__page_hash(m->tab[j].file, m->tab[j].page) & (n - 1);
             t[i].used; i = (i + 1) & (n - 1))
            ;
        t[i] = m->tab[j];
        m->owner[t[i].time] = i + 1;
    }
    free(m->tab);
    m->tab = t;
    m->mask = n - 1;
    return 0;
}

static int count(zc_mrc *m, uint64_t d)
{
    if (d >= m->hist_cap) {
        uint64_t n = m->hist_cap ? m->hist_cap : 1024;
        uint64_t *h;
        while (n <= d)
            n *= 2;
        h = realloc(m->hist, n * sizeof(*h));
        if (!h)
            return -ZC_ENOMEM;
        memset(h + m->hist_cap, 0, (n - m->hist_cap) * sizeof(*h));
        m->hist = h;
        m->hist_cap = n;
    }
    m->hist[d]++;
    return 0;
}

/* One access of page `page` of file number `file`. */
static int access_page(zc_mrc *m, uint32_t file, uint64_t page)
{
    uint64_t i;
    int rc;

    if (m->now == m->size) {
        /* The window is full: keep the live marks, doubling the window if
         * they take more than half of it. */
        rc = compact(m, m->distinct * 2 > m->size ? m->size * 2 : m->size);
        if (rc)
            return rc;
    }
    if ((m->distinct + 1) * 2 > m->mask + 1 && (rc = grow_table(m)))
        return rc;
    for (i = zc__page_hash(file, page) & m->mask; m->tab[i].used;
         i = (i + 1) & m->mask)
        if (m->tab[i].page == page && m->tab[i].file == file)
            break;
    if (m->tab[i].used) {
        uint64_t last = m->tab[i].time;
        /* distinct pages touched after last: marks in (last, now] */
        rc = count(m, zc__fw_count(&m->bit, m->now) -
                         zc__fw_count(&m->bit, last));
        if (rc)
            return rc;
        zc__fw_add(&m->bit, last, -1, 0);
        m->owner[last] = 0;
    } else {
        m->tab[i].used = 1;
        m->tab[i].file = file;
        m->tab[i].page = page;
        m->distinct++;
    }
    m->accesses++;
    m->now++;
    m->tab[i].time = m->now;
    m->owner[m->now] = i + 1;
    zc__fw_add(&m->bit, m->now, 1, 0);
    return 0;
}

int zc_mrc_file_access(zc_mrc *m, uint32_t dev, uint64_t ino, uint64_t index)
{
    uint32_t file;
    int rc;

    if (!m)
        return -ZC_EINVAL;
    if ((rc = zc__files_id(&m->files, dev, ino, &file)))
        return rc;
    return access_page(m, file, index);
}

int zc_mrc_access(zc_mrc *m, uint32_t dev, uint64_t page)
{
    return zc_mrc_file_access(m, dev, 0, page);
}

int zc_mrc_request(zc_mrc *m, const zc_request *req, size_t page_size)
{
    uint64_t first, last;
    uint32_t file;
    int rc;

    if (!m || !req || page_size < 512 || (page_size & (page_size - 1)))
        return -ZC_EINVAL;
    if (req->length == 0)
        return 0;
    if (req->offset > UINT64_MAX - (req->length - 1))
        return -ZC_EINVAL;
    if ((rc = zc__files_id(&m->files, req->dev, req->ino, &file)))
        return rc;
    first = req->offset / page_size;
    last = (req->offset + req->length - 1) / page_size;
    for (uint64_t p = first;; p++) {
        rc = access_page(m, file, p);
        if (rc)
            return rc;
        if (p == last)
            return 0;
    }
}

uint64_t zc_mrc_hits(const zc_mrc *m, uint64_t pages)
{
    uint64_t h = 0;

    if (!m)
        return 0;
    for (uint64_t d = 0; d < pages && d < m->hist_cap; d++)
        h += m->hist[d];
    return h;
}

uint64_t zc_mrc_accesses(const zc_mrc *m)
{
    return m ? m->accesses : 0;
}

uint64_t zc_mrc_distinct(const zc_mrc *m)
{
    return m ? m->distinct : 0;
}
