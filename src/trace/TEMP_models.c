/*
 * trace/TEMP_models.c - TEMPORARY stand-ins for the page-cache model
 * registry (only "lru"), so that zcache-fidelity links before the real
 * implementations land on main.  Drop before merge.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "zcache_trace.h"

const char *zc_page_cache_model_name(size_t i)
{
    return i == 0 ? "lru" : NULL;
}

const char *zc_page_cache_model_doc(size_t i)
{
    return i == 0 ? "exact least-recently-used (TEMP stand-in)" : NULL;
}

int zc_replay_set_model(zc_replay *r, const char *name)
{
    return r && name && strcmp(name, "lru") == 0 ? 0 : -ZC_EINVAL;
}

int zc_replay_set_read_ahead(zc_replay *r, uint64_t kb)
{
    return r && kb <= (1ull << 22) ? 0 : -ZC_EINVAL;
}

uint64_t zc_replay_resident(const zc_replay *r)
{
    (void)r;
    return 0;
}
