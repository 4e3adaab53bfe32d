/*
 * sim/fidelity/match.c - the eviction matcher (zc_fidelity_match(),
 * zcache_sim.h): which of the kernel's evictions a model also makes, at
 * about the same point of the eviction order.
 *
 * The rule: the kernel's evictions are taken in order; eviction i matches
 * the model's eviction j of the same page (inode, index), not matched
 * before, with |i - j| <= W, the nearest one, the earlier on a tie.
 *
 * The model's evictions are sorted by (page, position), so that each
 * page's evictions are one run in order; for kernel eviction i a binary
 * search finds the first of its page at position i - W or later, and the
 * run is walked forward while positions stay within i + W.  The walk
 * stops at the first free eviction at or past i: every later one is
 * farther.  A match costs a binary search and a walk over the evictions
 * of its page within the window.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdint.h>
#include <stdlib.h>

#include "zcache_sim.h"

/* A model eviction and its place in the model's order. */
struct slot {
    uint64_t ino, index, pos;
};

static int slot_cmp(const void *a, const void *b)
{
    const struct slot *x = a, *y = b;
    int c = (x->ino > y->ino) - (x->ino < y->ino);

    if (!c)
        c = (x->index > y->index) - (x->index < y->index);
    return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* The first slot not below key (ino, index, pos). */
static size_t lower_bound(const struct slot *s, size_t n, struct slot key)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (slot_cmp(&s[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The free slot of kernel eviction i's page (key) nearest to i within
 * [i - w, i + w], the earlier on a tie; SIZE_MAX if none. */
static size_t nearest(const struct slot *s, const uint8_t *used, size_t n,
                      uint64_t i, uint64_t w, struct slot key)
{
    uint64_t hi = i > UINT64_MAX - w ? UINT64_MAX : i + w, bestd = 0;
    size_t best = SIZE_MAX;

    key.pos = i > w ? i - w : 0;
    for (size_t j = lower_bound(s, n, key);
         j < n && s[j].ino == key.ino && s[j].index == key.index &&
         s[j].pos <= hi;
         j++) {
        uint64_t d = s[j].pos > i ? s[j].pos - i : i - s[j].pos;
        if (used[j])
            continue;
        if (best == SIZE_MAX || d < bestd) {
            best = j;
            bestd = d;
        }
        if (s[j].pos >= i)
            break; /* the rest are farther */
    }
    return best;
}

int zc_fidelity_match(const zc_fidelity_page *kernel, size_t nkernel,
                      const zc_fidelity_page *model, size_t nmodel,
                      uint64_t window, uint64_t *matched)
{
    struct slot *s;
    uint8_t *used;

    if (!matched || (nkernel && !kernel) || (nmodel && !model))
        return -ZC_EINVAL;
    *matched = 0;
    if (nmodel > SIZE_MAX / sizeof(*s))
        return -ZC_ENOMEM;
    s = malloc((nmodel ? nmodel : 1) * sizeof(*s));
    used = calloc(nmodel ? nmodel : 1, 1);
    if (!s || !used) {
        free(s);
        free(used);
        return -ZC_ENOMEM;
    }
    for (size_t j = 0; j < nmodel; j++)
        s[j] = (struct slot){model[j].ino, model[j].index, j};
    qsort(s, nmodel, sizeof(*s), slot_cmp);
    for (size_t i = 0; i < nkernel; i++) {
        struct slot key = {kernel[i].ino, kernel[i].index, 0};
        size_t j = nearest(s, used, nmodel, i, window, key);
        if (j != SIZE_MAX) {
            used[j] = 1;
            ++*matched;
        }
    }
    free(s);
    free(used);
    return 0;
}
