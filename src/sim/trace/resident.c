/*
 * sim/trace/resident.c - the median of an access stream's resident
 * samples, written once (zc_resident_median(), zcache_sim.h).
 *
 * An access stream samples the kernel's resident page count of each file
 * system whenever it changes (zc_access_write_resident()), always just
 * before a request.  Two numbers are made from those samples and must be
 * the same: the median that zcache-tracefs reports in NAME.info, and the
 * fidelity run's window and fixed page-cache size (src/sim/fidelity/).
 * Both take it from here: the median over the stream's requests of the
 * count each request saw (the last sample of its file system at or before
 * it), the upper one.  A sample weighs the requests it held for, not 1: a
 * count that changes often while the cache fills or drains would
 * otherwise outvote the count the cache kept for most of the run.
 *
 * Data: an array of zc_resident_sample, a count and the requests that saw
 * it.  zc_resident_median() sorts it by count and walks the weights to
 * the middle; zc__resident_merge() (resident.h) also folds equal counts
 * into one entry, so that a caller that accumulates one entry per change
 * can keep its memory to the distinct counts.  The floor of the trace
 * readers is the floor of the streams that carry the samples, so every
 * floor above (the fidelity run, the capture's conversion) reaches it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>

#include "resident.h"

static int sample_cmp(const void *a, const void *b)
{
    const zc_resident_sample *x = a, *y = b;

    return (x->pages > y->pages) - (x->pages < y->pages);
}

uint64_t zc_resident_median(zc_resident_sample *samples, size_t n)
{
    uint64_t total = 0, rank, seen = 0;

    if (!samples || !n)
        return 0;
    qsort(samples, n, sizeof(*samples), sample_cmp);
    for (size_t i = 0; i < n; i++)
        total += samples[i].requests;
    if (!total)
        return 0;
    /* the upper median: the count of the request at rank total / 2 (from
     * 0) when the requests are sorted by the count they saw */
    rank = total / 2;
    for (size_t i = 0; i < n; i++) {
        seen += samples[i].requests;
        if (seen > rank)
            return samples[i].pages;
    }
    return samples[n - 1].pages; /* not reached: seen ends at total */
}

size_t zc__resident_merge(zc_resident_sample *samples, size_t n)
{
    size_t out = 0;

    if (!samples || !n)
        return 0;
    qsort(samples, n, sizeof(*samples), sample_cmp);
    for (size_t i = 0; i < n; i++) {
        if (out && samples[out - 1].pages == samples[i].pages)
            samples[out - 1].requests += samples[i].requests;
        else
            samples[out++] = samples[i];
    }
    return out;
}
