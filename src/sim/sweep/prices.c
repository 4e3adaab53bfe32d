/*
 * sim/sweep/prices.c - the adaptive rows' CPU prices, fixed before any
 * row runs.
 *
 * An adaptive row's controller weighs disk reads against the CPU its
 * zcache spends: a compression for each page it puts, a decompression
 * for each hit.  Measured as the row runs, those prices are the machine's
 * and its load's at that moment, and two runs of one row split
 * differently: sqlite-oltp at --memory 8M --share 50 --adaptive made
 * 34,926 and 35,052 disk reads in two local runs and 35,085 as a plan's
 * job.  So a sweep fixes them before its rows run: those the options give
 * (zc_adapt_options.put_ns/get_ns, else zc_prices') are every adaptive
 * row's; the others are measured here, once per trace and zcache spec,
 * and every run of those rows weighs the same prices: a local run, and a
 * plan's jobs, which take them from the plan (plan.c records them when
 * the plan is made, with where they came from).
 *
 * The measure: the row's zcache (its spec, all of M, no memo: as the row
 * runs) fed the trace's first accesses through a page cache of 64 pages,
 * so that nearly every access evicts a page to compress and a page read
 * again is a get, until 8192 pages were compressed (checked every 4096
 * requests) or the trace ends; the prices are the cache's own counters,
 * thread CPU time, by the controller's rule (zc__adapt_prices()), in
 * whole nanoseconds (a price given as "put=NNNns" is the same price).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "model/adapt.h"
#include "sweep.h"

#define MEASURE_PAGES 64          /* the page cache in front of it */
#define MEASURE_COMPRESSIONS 8192 /* enough for a mean */

static int enough(void *ctx, const zc_session *s)
{
    zc_stats st;

    (void)s;
    zc_stats_get(ctx, &st);
    return st.compressions + st.estimates >= MEASURE_COMPRESSIONS;
}

/* Row i's zcache on its trace: *put and *get, in ns (at least 1). */
static int measure(zc_sweep *sw, size_t i, uint64_t *put, uint64_t *get)
{
    const zc_sweep_row *r = &sw->rpub[i];
    zc_session_run_options ro = {0};
    zc_session *s = NULL;
    zc_cache *zc = NULL;
    double p, g;
    zc_stats st;
    char err[1024];
    int rc;

    memset(&st, 0, sizeof(st));
    if (zc_cache_open(r->spec, sw->o.page_size, 0, NULL, NULL, &zc, err,
                      sizeof(err))) {
        /* the controller's defaults: the row fails as it runs, and says
         * why */
        zc__adapt_prices(&st, &p, &g);
        *put = (uint64_t)p;
        *get = (uint64_t)g;
        return 0;
    }
    if ((rc = zc__sweep_open_session(sw, r->trace, true, &s, err,
                                     sizeof(err)))) {
        zc_cache_destroy(zc);
        return zc__sweep_fail(sw, rc, "%s", err);
    }
    ro.page_cache_pages = MEASURE_PAGES;
    ro.zcache = zc;
    ro.progress = enough;
    ro.progress_ctx = zc;
    if ((rc = zc_session_run(s, &ro)) == -ZC_ECANCELED)
        rc = 0; /* (enough: stopped) */
    if (rc)
        zc__sweep_fail(sw, rc, "measuring the adaptive rows' CPU prices: %s",
                       zc_session_error(s));
    zc_stats_get(zc, &st);
    zc_session_close(s);
    zc_cache_destroy(zc);
    zc__adapt_prices(&st, &p, &g);
    *put = p < 1 ? 1 : (uint64_t)(p + 0.5);
    *get = g < 1 ? 1 : (uint64_t)(g + 0.5);
    return rc;
}

/* Where measured prices came from, said once. */
static void say_measured(zc_sweep *sw)
{
    char host[256] = "", when[64] = "";
    time_t now = time(NULL);
    struct tm tm;

    if (sw->prices_from[0])
        return;
    if (gethostname(host, sizeof(host)) || !host[0])
        snprintf(host, sizeof(host), "?");
    host[sizeof(host) - 1] = '\0';
    if (gmtime_r(&now, &tm))
        strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(sw->prices_from, sizeof(sw->prices_from),
             "measured on %.100s at %s, before any row ran: each adaptive "
             "row's zcache on its trace's first accesses through a page "
             "cache of %d pages (up to %d compressions), thread CPU time a "
             "compression and a zcache hit",
             host, when, MEASURE_PAGES, MEASURE_COMPRESSIONS);
}

/* A row of trace t with the spec of row r whose prices were measured:
 * its row number, or SIZE_MAX. */
static size_t measured_like(const zc_sweep *sw, const zc_sweep_trace *t,
                            const zc_sweep_row *r)
{
    for (size_t i = t->first_row; i < t->first_row + t->nrows; i++)
        if (sw->rpub[i].adaptive && sw->rpub[i].prices_measured &&
            !strcmp(sw->rpub[i].spec, r->spec))
            return i;
    return SIZE_MAX;
}

int zc__sweep_fix_prices(zc_sweep *sw, const size_t *jobs, size_t n)
{
    const uint64_t put = sw->o.adapt.put_ns, get = sw->o.adapt.get_ns;

    for (size_t k = 0; k < (jobs ? n : sw->njobs); k++) {
        const zc_sweep_job *j = &sw->jobs[jobs ? jobs[k] : k];
        const zc_sweep_trace *t = &sw->tpub[j->trace];
        zc_sweep_row *r = &sw->rpub[j->first_row];
        uint64_t mp, mg;
        size_t like;
        int rc;
        if (j->kind != ZC_SWEEP_ADAPTIVE || r->put_ns)
            continue; /* (fixed already: kept) */
        r->put_ns = put;
        r->get_ns = get;
        if (put && get)
            continue;
        /* once per trace and zcache spec */
        if ((like = measured_like(sw, t, r)) != SIZE_MAX) {
            mp = sw->rpub[like].put_ns;
            mg = sw->rpub[like].get_ns;
        } else if ((rc = measure(sw, j->first_row, &mp, &mg))) {
            r->put_ns = r->get_ns = 0;
            return rc;
        }
        r->put_ns = put ? put : mp;
        r->get_ns = get ? get : mg;
        r->prices_measured = true;
        say_measured(sw);
    }
    if (!sw->prices_from[0] && put && get)
        snprintf(sw->prices_from, sizeof(sw->prices_from), "%s",
                 "given by the options");
    return 0;
}
