/*
 * sim/model/player.h - how ops count, shared by the player and by the
 * page-cache model's fast path when there is neither a zcache nor a
 * writer (then the model counts without making ops at all).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_SIM_MODEL_PLAYER_H
#define ZC_SIM_MODEL_PLAYER_H

#include "zcache_sim.h"

/* n read hits in the page cache */
static inline void zc__count_pc_hits(zc_replay_stats *st, uint64_t n)
{
    st->accesses += n;
    st->reads += n;
    st->pc_hits += n;
    st->resident_hits += n;
}

/* a read miss (then the zcache or the disk serves it) */
static inline void zc__count_read_miss(zc_replay_stats *st)
{
    st->accesses++;
    st->reads++;
}

/* a page read ahead (a get with ZC_OP_GET_AHEAD): no access and no read;
 * then the zcache or the disk serves it, as for a read miss, but a zcache
 * hit of it is no resident hit (nobody asked for the page) */
static inline void zc__count_read_ahead(zc_replay_stats *st)
{
    st->readahead++;
}

/* a page put with synthetic bytes: its source lacks it */
static inline void zc__count_synthetic(zc_replay_stats *st)
{
    st->synthetic++;
}

/* an invalidate_page, which the page-cache model makes for writes */
static inline void zc__count_invalidate(zc_replay_stats *st, uint32_t flags)
{
    if (flags & (ZC_OP_WRITE_MISS | ZC_OP_WRITE_HIT)) {
        st->accesses++;
        st->writes++;
    }
    if (flags & ZC_OP_WRITE_HIT) {
        st->pc_hits++;
        st->resident_hits++;
    }
}

/* a page-cache eviction (a put) */
static inline void zc__count_eviction(zc_replay_stats *st)
{
    st->pc_evictions++;
}

/* Play a put as zc_player_op() does, with what the cache found in *info
 * and its answer (0 stored, or a ZC_PUT_* reason) in *outcome. */
int zc__player_put(zc_player *p, const zc_op *op, zc_put_info *info,
                   int *outcome);

/* The player's counters, to count into. */
zc_replay_stats *zc__player_stats(zc_player *p);

#endif
