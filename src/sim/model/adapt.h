/*
 * sim/model/adapt.h - the adaptive split's controller, as the replay uses it.
 *
 * The replay tells the controller every page access (before the model
 * runs it) and asks it what to do with every eviction; the controller
 * answers with a new split at the end of each epoch.  See adapt.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_SIM_MODEL_ADAPT_H
#define ZC_SIM_MODEL_ADAPT_H

#include "zcache_sim.h"

struct zc__adapt;

/* What to do with an eviction. */
/* With the zcache off, the probes (compressions to learn sizes) cost at
 * most this share of the disk reads' cost (and one probe). */
#define ZC__ADAPT_PROBE_BUDGET 0.0025

enum zc__adapt_plan {
    ZC__ADAPT_PUT,   /* put it to the zcache */
    ZC__ADAPT_SKIP,  /* drop it: no compression */
    ZC__ADAPT_PROBE, /* the zcache is off: compress it to learn its size */
};

int zc__adapt_create(const zc_adapt_options *opt, size_t page_size,
                     struct zc__adapt **out);
void zc__adapt_destroy(struct zc__adapt *a);

/* The split in force: page-cache pages and zcache bytes. */
void zc__adapt_split(const struct zc__adapt *a, uint64_t *pc_pages,
                     uint64_t *zc_bytes);

/* Whether an epoch has ended, so that zc__adapt_decide() is due before
 * the next access. */
bool zc__adapt_epoch_over(const struct zc__adapt *a);

/* End the epoch: price the candidates with the CPU costs measured (st:
 * the cache's statistics now) and log it with the replay's counters rs;
 * the split to apply is then zc__adapt_split()'s.  0 or -ZC_ENOMEM. */
int zc__adapt_decide(struct zc__adapt *a, const zc_stats *st,
                     const zc_replay_stats *rs);

/* One page access, before the model runs it.  Pages are keyed (file,
 * page): file is the replay's number of the page's (dev, ino) (files.h),
 * so the pages of two inodes or devices never meet.  0 or -ZC_ENOMEM. */
int zc__adapt_access(struct zc__adapt *a, uint32_t file, uint64_t page,
                     bool write);

/* What to do with the eviction of (file, page). */
enum zc__adapt_plan zc__adapt_plan(struct zc__adapt *a, uint32_t file,
                                   uint64_t page);

/* What a put or a probe of (file, page) found: the cache's answer (0
 * admitted, a ZC_PUT_* reason) and its info. */
void zc__adapt_learn(struct zc__adapt *a, uint32_t file, uint64_t page,
                     int outcome, const zc_put_info *info);

/* Candidate k's split and its counts since the start, as the model has
 * them (for tests: they must equal a static replay of that split when
 * every page's size is known). */
int zc__adapt_model(const struct zc__adapt *a, unsigned k, uint64_t *pc_pages,
                    uint64_t *zc_bytes, double *disk_reads, double *zc_hits);

/* The controller of an adaptive replay, or NULL. */
const struct zc__adapt *zc__replay_adapt(const zc_replay *r);

size_t zc__adapt_log(const struct zc__adapt *a, const zc_adapt_epoch **out);

/* The CPU prices a zcache's counters give, in ns: a compression's (the
 * mean thread CPU time of its puts' and probes' compressions) and a zcache
 * hit's (decompressing, over the gets it served); where there is none to
 * measure, the controller's default (put_ns may be NULL).  What the
 * controller weighs when no price is given, and what a sweep measures
 * before its rows run. */
void zc__adapt_prices(const zc_stats *st, double *put_ns, double *get_ns);

#endif
