/*
 * sim/trace/resident.c - the median of an access stream's resident
 * samples, written once (zc_resident_median(), zcache_sim.h).
 *
 * An access stream samples the kernel's resident page count of each file
 * system whenever it changes (zc_access_write_resident()).  Two numbers
 * are made from those samples and must be the same: the median that
 * zcache-tracefs reports in NAME.info, and the fidelity run's window and
 * fixed page-cache size (src/sim/fidelity/).  Both take it from here: the
 * upper median of the samples, each counted once.  It sits on the trace
 * floor, the floor of the streams that carry the samples, so that every
 * floor above (the fidelity run, the capture's conversion) reaches it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>

#include "zcache_sim.h"

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

uint64_t zc_resident_median(uint64_t *samples, size_t n)
{
    if (!samples || !n)
        return 0;
    qsort(samples, n, sizeof(*samples), u64_cmp);
    return samples[n / 2];
}
