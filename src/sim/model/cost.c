/*
 * sim/model/cost.c - the cost model of a finished run.
 *
 * What a zcache costs is CPU (compressions, the rejected among them, and
 * decompressions); what it saves is disk reads at a price each.  The CPU
 * is either the cache's measured times or, with fixed prices, its counts
 * times the prices, so that a table does not depend on the machine's load.
 * The controller (adapt.c) prices candidate splits with the same three
 * prices, over counts it predicts rather than counts that happened.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "zcache.h"
#include "zcache_sim.h"

zc_cost zc_cost_of(const zc_stats *zs, double reads_saved,
                   const zc_prices *p)
{
    zc_cost c = {0};

    if (!zs || !p)
        return c;
    if (p->put_ns) {
        /* (counts from one snapshot never have more rejected compressions
         * than compressions; a made-up one is not wrapped) */
        uint64_t kept = zs->compressions > zs->compressions_rejected
                            ? zs->compressions - zs->compressions_rejected
                            : 0;
        c.compress_ms =
            (double)(kept + zs->estimates) * (double)p->put_ns / 1e6;
        c.wasted_ms =
            (double)zs->compressions_rejected * (double)p->put_ns / 1e6;
        c.decompress_ms = (double)zs->decompressions * (double)p->get_ns / 1e6;
    } else {
        c.compress_ms =
            (double)(zs->compress_ns + zs->compress_ns_estimates) / 1e6;
        c.wasted_ms = (double)zs->compress_ns_rejected / 1e6;
        c.decompress_ms = (double)zs->decompress_ns / 1e6;
    }
    c.cpu_ms = c.compress_ms + c.wasted_ms + c.decompress_ms;
    c.saved_ms = reads_saved * (double)p->disk_ns / 1e6 - c.cpu_ms;
    return c;
}

static double pct(uint64_t a, uint64_t b)
{
    return b ? 100.0 * (double)a / (double)b : 0.0;
}

zc_rates zc_replay_rates(const zc_replay_stats *st)
{
    zc_rates r = {0};

    if (!st)
        return r;
    r.pc_hit = pct(st->pc_hits, st->accesses);
    r.zc_hit = pct(st->resident_hits - st->pc_hits, st->accesses);
    r.in_memory = pct(st->resident_hits, st->accesses);
    r.zc_get_hit = pct(st->zc_hits, st->zc_gets);
    r.disk_read = pct(st->disk_reads, st->reads);
    r.kept = pct(st->zc_stored, st->zc_puts);
    return r;
}

double zc_stats_density(const zc_stats *zs)
{
    return zs && zs->mem_used_total
               ? (double)zs->compr_data_size / (double)zs->mem_used_total
               : 0.0;
}
