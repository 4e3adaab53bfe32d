/*
 * sim/sweep/sweep.c - a sweep's options and lists, the traces of its
 * collection, and the rows and jobs they make (zcache_sim.h: Sweeps).
 *
 * Lists are split once, when the sweep is made: a value is a number or a
 * size (zc_parse_size()), an item FROM:TO:STEP a range written out value
 * by value (sizes in bytes when any of the three has a suffix, then whole
 * KiB), at most 64 values a list.  Each --set list is checked value by
 * value against the configuration parser on top of --zcache, so a bad one
 * is said once, not once per row; a key that sets the capacity (the
 * parser knows its aliases: a sentinel capacity shows which) labels the
 * row by its value and is refused with a memory split.
 *
 * Rows are made trace by trace, in an order that depends on the options
 * and the traces only (a plan's job N is the same rows in every process):
 * for a block trace, each page-cache size, each capacity, each --set
 * combination (a capacity of 0 makes one row without a zcache); for a
 * memory split, each share the same way, then one adaptive row per
 * controller and combination; for an op stream, each capacity.  They are
 * counted before any is made (at most 100000).  Jobs cut them into what
 * runs alone: a static row group of one page-cache size, an adaptive row,
 * an op stream's rows.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sweep.h"

#define MAX_ROWS ZC_SWEEP_ROWS_MAX
#define MAX_TRACES 100000
#define MAX_LIST ZC__SWEEP_MAX_LIST

int zc__sweep_fail(zc_sweep *sw, int rc, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(sw->err, sizeof(sw->err), fmt, ap);
    va_end(ap);
    return rc;
}

char *zc__sweep_dup(const char *s, bool *oom)
{
    char *d = s ? strdup(s) : NULL;

    *oom |= s && !d;
    return d;
}

/* ---- lists -------------------------------------------------------------- */

/* A number, or bytes with K/M/G (divided into pages when pages is set). */
int zc__sweep_size_arg(zc_sweep *sw, const char *s, bool pages,
                       const char *what, uint64_t *v)
{
    if ((pages ? zc_parse_pages(s, sw->o.page_size, v) : zc_parse_size(s, v)) <
        0)
        return zc__sweep_fail(sw, -ZC_EINVAL,
                              "%s %.64s: want a number, or %sbytes with K/M/G",
                              what, s, pages ? "whole pages of " : "");
    return 0;
}

/* bytes as a size the lists take: 64M, 512K, or a plain number */
static void size_label(char *out, size_t n, uint64_t bytes)
{
    if (bytes && !(bytes % (1u << 20)))
        snprintf(out, n, "%" PRIu64 "M", bytes >> 20);
    else if (bytes && !(bytes % 1024))
        snprintf(out, n, "%" PRIu64 "K", bytes >> 10);
    else
        snprintf(out, n, "%" PRIu64, bytes);
}

/* FROM:TO:STEP at p (split at c1, c2) written out into out[*n...]. */
static int split_range(zc_sweep *sw, char *p, char *c1, char *c2, char **out,
                       size_t *n, const char *what)
{
    uint64_t from, to, step;
    int sf, st, ss;
    bool bytes;

    *c1 = *c2 = '\0';
    sf = zc_parse_size(p, &from);
    st = zc_parse_size(c1 + 1, &to);
    ss = zc_parse_size(c2 + 1, &step);
    *c1 = *c2 = ':'; /* the messages name the whole range */
    if (sf < 0 || st < 0 || ss < 0 || step == 0 || to < from)
        return zc__sweep_fail(sw, -ZC_EINVAL, "%s %s: want FROM:TO:STEP", what,
                              p);
    /* Sizes with a suffix are bytes; say so in each value, so that
     * page-cache sizes are read as bytes, not pages. */
    bytes = sf == 1 || st == 1 || ss == 1;
    for (uint64_t v = from; v <= to; v += step) {
        if (*n == MAX_LIST)
            return zc__sweep_fail(sw, -ZC_EINVAL, "%s %s: more than %d values",
                                  what, p, MAX_LIST);
        if (sw->nrange_vals == sizeof(sw->range_vals) / sizeof(*sw->range_vals))
            return zc__sweep_fail(sw, -ZC_EINVAL, "%s",
                                  "too many range values");
        out[*n] = sw->range_vals[sw->nrange_vals++];
        if (bytes && v % 1024 == 0)
            size_label(out[(*n)++], 24, v);
        else if (bytes)
            return zc__sweep_fail(sw, -ZC_EINVAL,
                                  "%s %s: sizes in bytes must be whole KiB "
                                  "(FROM and STEP)",
                                  what, p);
        else
            snprintf(out[(*n)++], 24, "%" PRIu64, v);
        if (to - v < step)
            break;
    }
    return 0;
}

/* A comma list split in place into out[]: the count, or a -ZC_E* code.
 * Items of --set lists (ranges false) are kept as they are. */
static int split_list(zc_sweep *sw, char *list, char **out, bool ranges,
                      const char *what)
{
    size_t n = 0;
    char *save = NULL;
    int rc;

    for (char *p = strtok_r(list, ",", &save); p;
         p = strtok_r(NULL, ",", &save)) {
        char *c1 = strchr(p, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (ranges && c1 && c2) {
            if ((rc = split_range(sw, p, c1, c2, out, &n, what)))
                return rc;
            continue;
        }
        if (n == MAX_LIST)
            return zc__sweep_fail(sw, -ZC_EINVAL, "%s: more than %d values",
                                  what, MAX_LIST);
        out[n++] = p;
    }
    if (!n && ranges) /* (an empty --set list is said by check_sets) */
        return zc__sweep_fail(sw, -ZC_EINVAL, "%s: an empty list", what);
    return (int)n;
}

/* The rows' capacity without a list: --zcache's, the default when a
 * zcache is asked for at all, else none ("0"). */
static int base_capacity(zc_sweep *sw)
{
    zc_config cfg = zc_config_default();
    char err[512];

    cfg.capacity_bytes = SIZE_MAX;
    if (zc_config_parse_error(&cfg, sw->zbase, err, sizeof(err)))
        return zc__sweep_fail(sw, -ZC_EINVAL, "--zcache %s: %s", sw->zbase,
                              err);
    if (cfg.capacity_bytes != SIZE_MAX) {
        if (sw->cap_list || sw->memory)
            return zc__sweep_fail(
                sw, -ZC_EINVAL,
                "--zcache %s: names a capacity, and so does %s; give "
                "capacities in one place",
                sw->zbase, sw->memory ? "--memory's --share" : "--capacity");
        if (!cfg.capacity_bytes)
            return zc__sweep_fail(
                sw, -ZC_EINVAL,
                "--zcache %s: capacity 0 is no zcache in a sweep; say "
                "--capacity 0 for rows without one",
                sw->zbase);
        size_label(sw->zcap, sizeof(sw->zcap), cfg.capacity_bytes);
    } else if (*sw->zbase || sw->nsets) {
        size_label(sw->zcap, sizeof(sw->zcap),
                   zc_config_default().capacity_bytes);
    } else {
        snprintf(sw->zcap, sizeof(sw->zcap), "0");
    }
    return 0;
}

/* Each --set list, split once and checked before any work. */
static int check_sets(zc_sweep *sw)
{
    char err[512];
    int rc;

    if ((rc = base_capacity(sw)))
        return rc;
    for (int s = 0; s < sw->nsets; s++) {
        char given[1024];
        snprintf(given, sizeof(given), "%s=%s", sw->set_key[s],
                 sw->set_vals[s]);
        if ((rc = split_list(sw, sw->set_vals[s], sw->set_v[s], false,
                             "--set")) < 0)
            return rc;
        if (!(sw->set_n[s] = (size_t)rc))
            return zc__sweep_fail(sw, -ZC_EINVAL,
                                  "--set %s: want KEY=V1,V2,... (the list is "
                                  "empty)",
                                  given);
        for (size_t i = 0; i < sw->set_n[s]; i++) {
            zc_config cfg = zc_config_default();
            char item[1024];
            snprintf(item, sizeof(item), "%s=%s", sw->set_key[s],
                     sw->set_v[s][i]);
            /* on top of --zcache, as the rows are; a value that other
             * --set lists may make valid (level with compressor) is left
             * to the rows, each failure said once */
            zc_config_parse_error(&cfg, sw->zbase, err, sizeof(err));
            cfg.capacity_bytes = SIZE_MAX;
            if (zc_config_parse_error(&cfg, item, err, sizeof(err)) &&
                sw->nsets == 1)
                return zc__sweep_fail(sw, -ZC_EINVAL, "--set %s: %s", given,
                                      err);
            sw->set_cap[s] = cfg.capacity_bytes != SIZE_MAX;
            if (sw->memory && sw->set_cap[s])
                return zc__sweep_fail(sw, -ZC_EINVAL,
                                      "--set %s: with --memory the capacity "
                                      "is the zcache's --share",
                                      given);
        }
    }
    return 0;
}

/* What the options say alone, before any trace. */
static int check_options(zc_sweep *sw)
{
    const zc_sweep_options *o = &sw->o;
    uint64_t m = 0;
    int rc;

    if (o->threads < 0 || o->threads > 64)
        return zc__sweep_fail(sw, -ZC_EINVAL,
                              "threads %d: want worker threads, 1 to 64",
                              o->threads);
    if (o->nsets > ZC__SWEEP_MAX_SETS || o->ncontrollers > 3)
        return zc__sweep_fail(sw, -ZC_EINVAL, "%s",
                              o->nsets > ZC__SWEEP_MAX_SETS
                                  ? "--set: at most 8"
                                  : "--adaptive: at most 3 controllers");
    if (sw->memory &&
        (rc = zc__sweep_size_arg(sw, sw->memory, false, "--memory", &m)))
        return rc;
    if (sw->memory && m < o->page_size)
        return zc__sweep_fail(sw, -ZC_EINVAL,
                              "--memory %s: want at least a page", sw->memory);
    if (sw->memory && m / o->page_size > ZC_REPLAY_PAGES_MAX)
        return zc__sweep_fail(sw, -ZC_EINVAL,
                              "--memory %s: more than the %u pages a replay "
                              "models",
                              sw->memory, ZC_REPLAY_PAGES_MAX);
    sw->memory_bytes = m;
    if (sw->memory && !sw->share_list && !o->adaptive)
        return zc__sweep_fail(sw, -ZC_EINVAL, "%s",
                              "--memory wants --share S1,S2,... or --adaptive");
    if (!sw->memory && (sw->share_list || o->adaptive))
        return zc__sweep_fail(sw, -ZC_EINVAL, "%s",
                              "--share and --adaptive need --memory M");
    if (sw->memory && (sw->pc_list || sw->cap_list))
        return zc__sweep_fail(sw, -ZC_EINVAL, "%s",
                              "--memory splits memory: no --page-cache or "
                              "--capacity");
    if (o->adapt.memory_bytes)
        return zc__sweep_fail(sw, -ZC_EINVAL, "%s",
                              "--adapt: the memory is --memory's");
    for (int i = 0; i < sw->nctl; i++) {
        if (!zc_adapt_controller_name(sw->ctl[i]))
            return zc__sweep_fail(sw, -ZC_EINVAL, "controller %u: no such one",
                                  sw->ctl[i]);
        for (int k = 0; k < i; k++)
            if (sw->ctl[k] == sw->ctl[i])
                return zc__sweep_fail(sw, -ZC_EINVAL,
                                      "--adaptive: %s named twice",
                                      zc_adapt_controller_name(sw->ctl[i]));
    }
    return check_sets(sw);
}

int zc_sweep_create(const zc_sweep_options *opt, zc_sweep **out, char *err,
                    size_t errlen)
{
    zc_sweep *sw;
    bool oom = false;
    int rc;

    if (err && errlen)
        err[0] = '\0';
    if (!opt || !out)
        return -ZC_EINVAL;
    *out = NULL;
    if (!(sw = calloc(1, sizeof(*sw))))
        return -ZC_ENOMEM;
    sw->o = *opt;
    sw->page_size_given = opt->page_size != 0;
    if (!sw->o.page_size)
        sw->o.page_size = 4096;
    if (!sw->o.prices.disk_ns)
        sw->o.prices.disk_ns = 100000;
    if (!sw->o.threads) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        sw->o.threads = n < 1 ? 1 : n > 64 ? 64 : (int)n;
    }
    if (sw->o.no_memo)
        sw->o.memo_bytes = 0;
    else if (!sw->o.memo_bytes)
        sw->o.memo_bytes = 1ull << 30;
    pthread_mutex_init(&sw->lock, NULL);
    sw->format = zc__sweep_dup(opt->format, &oom);
    sw->content = zc__sweep_dup(opt->content, &oom);
    sw->model = zc__sweep_dup(opt->model ? opt->model : "lru", &oom);
    sw->zbase = zc__sweep_dup(opt->zcache ? opt->zcache : "", &oom);
    sw->memory = zc__sweep_dup(opt->memory, &oom);
    sw->pc_list = zc__sweep_dup(opt->page_cache, &oom);
    sw->cap_list = zc__sweep_dup(opt->capacity, &oom);
    sw->share_list = zc__sweep_dup(opt->share, &oom);
    sw->mrc_list = zc__sweep_dup(opt->mrc, &oom);
    if ((opt->nsets && !opt->sets) ||
        (opt->ncontrollers && !opt->controllers)) {
        rc = zc__sweep_fail(sw, -ZC_EINVAL, "%s",
                            "sets or controllers: NULL with a count");
        goto fail;
    }
    for (size_t s = 0; s < opt->nsets && s < ZC__SWEEP_MAX_SETS; s++) {
        char *eq;
        if (!opt->sets[s]) {
            rc = zc__sweep_fail(sw, -ZC_EINVAL, "--set %zu: NULL", s);
            goto fail;
        }
        sw->set_key[s] = zc__sweep_dup(opt->sets[s], &oom);
        if (!sw->set_key[s])
            break;
        sw->nsets++; /* (freed with the sweep from here on) */
        if (!(eq = strchr(sw->set_key[s], '='))) {
            rc = zc__sweep_fail(sw, -ZC_EINVAL,
                                "--set %s: want KEY=V1,V2,... (at most 8)",
                                opt->sets[s]);
            goto fail;
        }
        *eq = '\0';
        sw->set_vals[s] = eq + 1;
    }
    for (size_t i = 0; i < opt->ncontrollers && i < 3; i++)
        sw->ctl[sw->nctl++] = opt->controllers[i];
    /* the options' pointers are the copies from here on */
    sw->o.format = sw->format;
    sw->o.content = sw->content;
    sw->o.model = sw->model;
    sw->o.zcache = sw->zbase;
    sw->o.sets = NULL;
    sw->o.controllers = NULL;
    if (oom) {
        rc = -ZC_ENOMEM;
        goto fail;
    }
    if ((rc = check_options(sw)))
        goto fail;
    *out = sw;
    return 0;
fail:
    if (err && errlen)
        snprintf(err, errlen, "%s", sw->err[0] ? sw->err : zc_strerror(rc));
    zc_sweep_destroy(sw);
    return rc;
}

/* ---- the rows ----------------------------------------------------------- */

/* The lists, split and checked once for every trace. */
static int split_lists(zc_sweep *sw)
{
    char *sizes[MAX_LIST];
    int rc;

    if (sw->share_list &&
        (rc = split_list(sw, sw->share_list, sw->shares, true, "--share")) < 0)
        return rc;
    sw->nshare = sw->share_list ? (size_t)rc : 0;
    if (sw->mrc_list) {
        if ((rc = split_list(sw, sw->mrc_list, sizes, true, "--mrc")) < 0)
            return rc;
        sw->nmrc = (size_t)rc;
        for (size_t i = 0; i < sw->nmrc; i++)
            if ((rc = zc__sweep_size_arg(sw, sizes[i], true, "--mrc",
                                         &sw->mrc_pages[i])))
                return rc;
    }
    if (sw->memory)
        return 0;
    if (sw->pc_list &&
        (rc = split_list(sw, sw->pc_list, sw->pcs, true, "--page-cache")) < 0)
        return rc;
    sw->npc = sw->pc_list ? (size_t)rc : 0;
    if (sw->cap_list &&
        (rc = split_list(sw, sw->cap_list, sw->caps, true, "--capacity")) < 0)
        return rc;
    sw->ncap = sw->cap_list ? (size_t)rc : 0;
    if (!sw->ncap) {
        sw->caps[0] = sw->zcap;
        sw->ncap = 1;
    }
    if (!sw->tpub[0].is_ops && !sw->npc)
        return zc__sweep_fail(sw, -ZC_EINVAL, "%s",
                              "--page-cache LIST is needed: the page-cache "
                              "sizes to model (op streams alone take none)");
    return 0;
}

int zc_sweep_select_job(zc_sweep *sw, size_t n)
{
    if (!sw || sw->prepared || sw->prepare_failed)
        return -ZC_EINVAL;
    sw->select = true;
    sw->sel_job = n;
    return 0;
}

/* A sweep of one job: where the job is (counted on the first trace, whose
 * kind every trace shares), then its trace alone kept and settled. */
static int settle_job_trace(zc_sweep *sw)
{
    int rc;

    if ((rc = zc__sweep_kind(sw, 0)) || (rc = split_lists(sw)) ||
        (rc = zc__sweep_find_job(sw)))
        return rc;
    if (sw->sel_trace && (rc = zc__sweep_kind(sw, sw->sel_trace)))
        return rc;
    if (sw->tpub[sw->sel_trace].is_ops != sw->tpub[0].is_ops)
        return zc__sweep_mixed(sw, 0, sw->sel_trace);
    zc__sweep_keep_trace(sw, sw->sel_trace);
    return zc__sweep_setup_traces(sw);
}

int zc_sweep_prepare(zc_sweep *sw)
{
    int rc;

    if (!sw || sw->prepared)
        return -ZC_EINVAL;
    if (sw->prepare_failed) /* (its lists are split, its rows half made) */
        return zc__sweep_fail(sw, -ZC_EINVAL, "%s",
                              "a sweep whose preparation failed: make it "
                              "again");
    sw->prepare_failed = true;
    if (!sw->ntraces)
        return zc__sweep_fail(sw, -ZC_EINVAL, "%s", "no trace given");
    if (sw->o.join && sw->ntraces > 1 && (rc = zc__sweep_join(sw)))
        return rc;
    if (sw->select)
        rc = settle_job_trace(sw);
    else if (!(rc = zc__sweep_setup_traces(sw)))
        rc = split_lists(sw);
    if (rc || (rc = zc__sweep_make_rows(sw)))
        return rc;
    for (size_t i = 0; i < sw->ntraces; i++)
        if (!(sw->traces[i].curve_hits =
                  calloc(sw->nmrc ? sw->nmrc : 1, sizeof(uint64_t))))
            return -ZC_ENOMEM;
    if (sw->o.memo_bytes && zc_memo_create((size_t)sw->o.memo_bytes, &sw->memo))
        return zc__sweep_fail(sw, -ZC_ENOMEM, "%s", "out of memory");
    sw->prepared = true;
    sw->prepare_failed = false;
    return 0;
}

/* ---- what the sweep holds ----------------------------------------------- */

const zc_sweep_trace *zc_sweep_traces(const zc_sweep *sw, size_t *n)
{
    if (n)
        *n = sw ? sw->ntraces : 0;
    for (size_t i = 0; sw && i < sw->ntraces; i++) {
        struct zc__sweep_trace *u = &sw->traces[i];
        zc_sweep_trace *t = &sw->tpub[i];
        t->name = u->name;
        t->paths = (const char *const *)u->paths;
        t->read_as = u->read_as ? u->read_as : "";
        t->content = u->used ? u->used : "";
        t->curve_hits = u->curve_hits;
    }
    return sw ? sw->tpub : NULL;
}

const zc_sweep_row *zc_sweep_rows(const zc_sweep *sw, size_t *n)
{
    if (n)
        *n = sw ? sw->nrows : 0;
    return sw ? sw->rpub : NULL;
}

const zc_sweep_job *zc_sweep_jobs(const zc_sweep *sw, size_t *n)
{
    if (n)
        *n = sw ? sw->njobs : 0;
    return sw ? sw->jobs : NULL;
}

size_t zc_sweep_curve_sizes(const zc_sweep *sw, const uint64_t **pages)
{
    if (pages)
        *pages = sw ? sw->mrc_pages : NULL;
    return sw ? sw->nmrc : 0;
}

size_t zc_sweep_page_size(const zc_sweep *sw)
{
    return sw ? sw->o.page_size : 0;
}

const char *zc_sweep_error(const zc_sweep *sw)
{
    return sw ? sw->err : "";
}

size_t zc_sweep_baseline(const zc_sweep *sw, size_t u)
{
    const zc_sweep_trace *t;

    if (!sw || u >= sw->ntraces || !sw->memory)
        return SIZE_MAX;
    t = &sw->tpub[u];
    for (size_t i = t->first_row; i < t->first_row + t->nrows; i++)
        if (!sw->rpub[i].capacity_bytes && !sw->rpub[i].adaptive)
            return i;
    return SIZE_MAX; /* no split without a zcache: zcache hits are saved */
}

zc_cost zc_sweep_row_cost(const zc_sweep *sw, size_t i)
{
    const zc_sweep_row *r;
    size_t b;
    double saved;

    if (!sw || i >= sw->nrows)
        return zc_cost_of(NULL, 0, NULL);
    r = &sw->rpub[i];
    b = zc_sweep_baseline(sw, r->trace);
    saved = b != SIZE_MAX
                ? (double)sw->rpub[b].st.disk_reads - (double)r->st.disk_reads
                : (double)r->st.zc_hits;
    return zc_cost_of(&r->zs, saved, &sw->o.prices);
}

void zc_sweep_destroy(zc_sweep *sw)
{
    if (!sw)
        return;
    for (size_t i = 0; i < sw->ntraces; i++)
        zc__sweep_trace_free(&sw->traces[i], sw->tpub[i].npaths);
    for (size_t i = 0; i < sw->nrows; i++) {
        free(sw->rows[i].epochs);
        zc_player_destroy(sw->rows[i].player);
        zc_cache_destroy(sw->rows[i].zc);
    }
    free(sw->traces);
    free(sw->tpub);
    free(sw->rows);
    free(sw->rpub);
    free(sw->jobs);
    free(sw->shape);
    zc_memo_destroy(sw->memo);
    free(sw->format);
    free(sw->content);
    free(sw->model);
    free(sw->zbase);
    free(sw->memory);
    free(sw->pc_list);
    free(sw->cap_list);
    free(sw->share_list);
    free(sw->mrc_list);
    for (int s = 0; s < sw->nsets; s++)
        free(sw->set_key[s]);
    pthread_mutex_destroy(&sw->lock);
    free(sw);
}
