/*
 * sim/common/cache_open.c - a zcache from a spec, with one explanation of
 * why it cannot be made (zc_cache_open(), zcache_sim.h).
 *
 * Every tool and run makes its caches from the zc_config_parse() spelling
 * over the library's defaults, for the pages of the trace it plays; what
 * can be wrong is said here once: the spec, another page size, a capacity
 * above the library's largest, one that does not fit in memory.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>

#include "zcache_sim.h"

int zc_cache_open(const char *spec, size_t page_size, size_t capacity,
                  zc_memo *memo, zc_config *cfg_out, zc_cache **out, char *err,
                  size_t errlen)
{
    zc_config cfg = zc_config_default();
    int rc;

    if (err && errlen)
        err[0] = '\0';
    if (!out)
        return -ZC_EINVAL;
    *out = NULL;
    if (!page_size) {
        if (err && errlen)
            snprintf(err, errlen, "page size 0: want the trace's page size");
        return -ZC_EINVAL;
    }
    cfg.page_size = page_size;
    if ((rc = zc_config_parse_error(&cfg, spec ? spec : "", err, errlen)))
        return rc;
    if (cfg.page_size != page_size) {
        if (err && errlen)
            snprintf(err, errlen, "page_size=%zu differs from the trace's %zu",
                     cfg.page_size, page_size);
        return -ZC_EINVAL;
    }
    if (capacity)
        cfg.capacity_bytes = capacity;
    cfg.memo = memo;
    if (cfg_out)
        *cfg_out = cfg;
    rc = zc_cache_create(&cfg, out);
    if (rc && err && errlen) {
        if (rc == -ZC_EINVAL && cfg.capacity_bytes > ZC_CAPACITY_MAX)
            snprintf(err, errlen,
                     "capacity %zu bytes: more than the library's largest, "
                     "%zu (15 GiB)",
                     cfg.capacity_bytes, (size_t)ZC_CAPACITY_MAX);
        else if (rc == -ZC_ENOMEM)
            snprintf(err, errlen, "capacity %zu bytes: does not fit in memory",
                     cfg.capacity_bytes);
        else
            snprintf(err, errlen, "cannot make this zcache: %s",
                     zc_strerror(rc));
    }
    return rc;
}
