/*
 * base/fenwick.h - a Fenwick (binary indexed) tree over slots 1..n: a
 * count per slot and, optionally, a weight, with prefix sums, an O(n)
 * rebuild, and a descent to the longest prefix whose count stays within
 * a bound.
 *
 * The recency stacks of the simulation are made of it: a page's last
 * access holds one slot (a time), the count of marks after a slot is the
 * number of distinct pages touched since (the stack distance: the LRU
 * curve, sim/model/mrc.c), and the weights sum the bytes those pages would
 * take in a zcache (the adaptive split, sim/model/adapt.c).  When the
 * slots run out the owner renumbers the live marks 1..k and rebuilds.
 *
 * Header only (static inline: the add and the prefix run once per access).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_BASE_FENWICK_H
#define ZC_BASE_FENWICK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct zc__fenwick {
    uint64_t n;       /* slots 1..n */
    int32_t *cnt;     /* [n + 1] */
    int64_t *wt;      /* [n + 1], or NULL: counts only */
    unsigned top_bit; /* the highest power of two <= n, as a shift */
};

/** Slots 1..n, all zero; weights or not.  0, or -1 if out of memory (then
 *  f holds nothing to free). */
static inline int zc__fw_init(struct zc__fenwick *f, uint64_t n, bool weights)
{
    f->n = n;
    f->top_bit = 0;
    while ((2ull << f->top_bit) <= n)
        f->top_bit++;
    f->cnt = calloc(n + 1, sizeof(*f->cnt));
    f->wt = weights ? calloc(n + 1, sizeof(*f->wt)) : NULL;
    if (!f->cnt || (weights && !f->wt)) {
        free(f->cnt);
        free(f->wt);
        f->cnt = NULL;
        f->wt = NULL;
        return -1;
    }
    return 0;
}

static inline void zc__fw_free(struct zc__fenwick *f)
{
    free(f->cnt);
    free(f->wt);
    f->cnt = NULL;
    f->wt = NULL;
}

/** Add c to slot i's count and w to its weight (w ignored without
 *  weights). */
static inline void zc__fw_add(struct zc__fenwick *f, uint64_t i, int32_t c,
                              int64_t w)
{
    if (f->wt)
        for (; i <= f->n; i += i & (~i + 1)) {
            f->cnt[i] += c;
            f->wt[i] += w;
        }
    else
        for (; i <= f->n; i += i & (~i + 1))
            f->cnt[i] += c;
}

/** The count in slots 1..i. */
static inline uint64_t zc__fw_count(const struct zc__fenwick *f, uint64_t i)
{
    int64_t s = 0;

    for (; i; i -= i & (~i + 1))
        s += f->cnt[i];
    return (uint64_t)s;
}

/** The count and the weight in slots 1..i. */
static inline void zc__fw_prefix(const struct zc__fenwick *f, uint64_t i,
                                 int64_t *c, int64_t *w)
{
    int64_t cc = 0, ww = 0;

    for (; i; i -= i & (~i + 1)) {
        cc += f->cnt[i];
        ww += f->wt[i];
    }
    *c = cc;
    *w = ww;
}

/** The weight of the longest prefix 1..pos whose count is at most below
 *  (needs weights). */
static inline int64_t zc__fw_weight_within(const struct zc__fenwick *f,
                                           int64_t below)
{
    int64_t cc = 0, ww = 0;
    uint64_t pos = 0;

    for (uint64_t step = 1ull << f->top_bit; step; step >>= 1)
        if (pos + step <= f->n && cc + f->cnt[pos + step] <= below) {
            pos += step;
            cc += f->cnt[pos];
            ww += f->wt[pos];
        }
    return ww;
}

/** Clear every slot (then set slots' own values with zc__fw_set_raw and
 *  call zc__fw_build). */
static inline void zc__fw_clear(struct zc__fenwick *f)
{
    memset(f->cnt, 0, (f->n + 1) * sizeof(*f->cnt));
    if (f->wt)
        memset(f->wt, 0, (f->n + 1) * sizeof(*f->wt));
}

/** Slot i's own value, before zc__fw_build. */
static inline void zc__fw_set_raw(struct zc__fenwick *f, uint64_t i, int32_t c,
                                  int64_t w)
{
    f->cnt[i] = c;
    if (f->wt)
        f->wt[i] = w;
}

/** Turn the slots' own values into the tree, in O(n). */
static inline void zc__fw_build(struct zc__fenwick *f)
{
    for (uint64_t i = 1; i <= f->n; i++) {
        uint64_t j = i + (i & (~i + 1));
        if (j > f->n)
            continue;
        f->cnt[j] += f->cnt[i];
        if (f->wt)
            f->wt[j] += f->wt[i];
    }
}

#endif
