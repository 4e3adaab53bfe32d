/*
 * sim/common/sizes.c - sizes as the tools and the library take them: a
 * page count or bytes (zc_parse_pages()), and the zcache's part of a
 * memory split (zc_share_capacity()).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "zcache_sim.h"

int zc_parse_pages(const char *s, size_t page_size, uint64_t *pages)
{
    int rc;

    if (!s || !pages || !page_size)
        return -ZC_EINVAL;
    if ((rc = zc_parse_size(s, pages)) < 0)
        return rc;
    if (rc == 1 && *pages % page_size) /* (1K of 4K pages is no cache) */
        return -ZC_EINVAL;
    if (rc == 1)
        *pages /= page_size;
    return 0;
}

uint64_t zc_share_capacity(uint64_t memory, double share, size_t page_size)
{
    if (!page_size || !(share > 0))
        return 0;
    if (share >= 100)
        return memory / page_size * page_size;
    return (uint64_t)((double)memory * share / 100.0) / page_size * page_size;
}
