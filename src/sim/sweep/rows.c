/*
 * sim/sweep/rows.c - the rows a sweep's lists make, and the jobs that run
 * them.
 *
 * Rows are made trace by trace, in an order that depends on the options
 * and the traces only (a plan's job N is the same rows in every process):
 * for a block trace, each page-cache size, each capacity, each --set
 * combination (a capacity of 0 makes one row without a zcache); for a
 * memory split, each share the same way, then one adaptive row per
 * controller and combination; for an op stream, each capacity.  They are
 * counted before any is made (at most ZC_SWEEP_ROWS_MAX).  Jobs cut them
 * into what runs alone: a static row group of one page-cache size, an
 * adaptive row, an op stream's rows.
 *
 * Every trace makes the same rows and jobs (they depend on the lists
 * alone), so a sweep made for one job (zc_sweep_select_job(): a plan's
 * job, run on its own) finds where the job is by counting one trace's
 * rows, then makes that trace's rows at the job's positions and no
 * other: a job of a plan of 10,000 traces makes its own few rows, not
 * the plan's.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"

#define MAX_ROWS ZC_SWEEP_ROWS_MAX

/* ---- the rows ----------------------------------------------------------- */

/* The label and group of a row with a zcache: by the capacity the cache
 * gets (a --set of it comes after the capacity in the spec, so it wins),
 * then the other --set values. */
static int name_row(zc_sweep *sw, struct zc__sweep_row *r, const char *cap,
                    const int *pick)
{
    size_t n;

    snprintf(r->label, sizeof(r->label), "%s", cap);
    for (int s = 0; s < sw->nsets; s++)
        if (sw->set_cap[s])
            snprintf(r->label, sizeof(r->label), "%s", sw->set_v[s][pick[s]]);
    n = (size_t)snprintf(r->spec, sizeof(r->spec), "%s%scapacity=%s", sw->zbase,
                         *sw->zbase ? "," : "", cap);
    if (n >= sizeof(r->spec))
        return zc__sweep_fail(sw, -ZC_EINVAL,
                              "a zcache spec longer than %s bytes", "511");
    for (int s = 0; s < sw->nsets; s++) {
        const char *v = sw->set_v[s][pick[s]];
        n += (size_t)snprintf(r->spec + n, sizeof(r->spec) - n, ",%s=%s",
                              sw->set_key[s], v);
        if (n >= sizeof(r->spec))
            return zc__sweep_fail(sw, -ZC_EINVAL,
                                  "a zcache spec longer than %s bytes", "511");
        if (sw->set_cap[s])
            continue;
        if (strlen(r->label) + strlen(sw->set_key[s]) + strlen(v) + 3 <
            sizeof(r->label))
            sprintf(r->label + strlen(r->label), " %s=%s", sw->set_key[s], v);
        if (strlen(r->group) + strlen(sw->set_key[s]) + strlen(v) + 3 <
            sizeof(r->group))
            sprintf(r->group + strlen(r->group), ", %s=%s", sw->set_key[s], v);
    }
    return 0;
}

static int add_row(zc_sweep *sw, uint64_t pc, bool ops, const char *cap,
                   const int *pick, double share)
{
    struct zc__sweep_row *r;
    zc_sweep_row *p;
    size_t at = sw->pos++;
    int rc;

    /* every row is counted, and its page cache kept for the jobs; only
     * the rows asked for are made */
    sw->shape[at] = pc;
    if (at < sw->make_lo || at >= sw->make_hi)
        return 0;
    if (sw->nrows == sw->maxrows) /* counted before: a bug */
        return zc__sweep_fail(sw, -ZC_ECORRUPT, "%s", "more rows than counted");
    r = &sw->rows[sw->nrows];
    p = &sw->rpub[sw->nrows];
    sw->nrows++;
    p->trace = sw->making;
    p->page_cache_pages = pc;
    p->ops = ops;
    p->share = share;
    p->spec = r->spec;
    p->group = r->group;
    p->label = r->label;
    p->config = r->config;
    p->compressor = r->compressor;
    p->err = r->err;
    /* until it runs (zc_sweep_run()) or its results are read back */
    p->rc = -ZC_ECANCELED;
    snprintf(r->err, sizeof(r->err), "not run");
    /* an op stream has its own page cache: the group is the stream's */
    if (ops)
        snprintf(r->group, sizeof(r->group), "the recorded page cache%s%s",
                 *sw->zbase ? ", " : "", sw->zbase);
    else
        snprintf(r->group, sizeof(r->group), "page cache %" PRIu64 "%s%s", pc,
                 *sw->zbase ? ", " : "", sw->zbase);
    if (!cap)
        return 0; /* no zcache */
    if ((rc = zc__sweep_size_arg(sw, cap, false, "--capacity",
                                 &p->capacity_bytes)))
        return rc;
    return name_row(sw, r, cap, pick);
}

/* Every combination of the --set values, for one (pc, capacity). */
static int add_rows(zc_sweep *sw, uint64_t pc, bool ops, const char *cap,
                    double share)
{
    int pick[ZC__SWEEP_MAX_SETS] = {0}, rc;

    if (!cap)
        return add_row(sw, pc, ops, NULL, pick, share);
    for (;;) {
        int s;
        if ((rc = add_row(sw, pc, ops, cap, pick, share)))
            return rc;
        for (s = 0; s < sw->nsets && (size_t)++pick[s] == sw->set_n[s]; s++)
            pick[s] = 0;
        if (s == sw->nsets)
            return 0;
    }
}

/* A --share value: a percentage, 0 to 100. */
static int share_of(zc_sweep *sw, const char *v, double *out)
{
    char *end;

    errno = 0;
    *out = strtod(v, &end);
    if (end == v || *end || errno || !(*out >= 0 && *out <= 100) ||
        strpbrk(v, "xXnN"))
        return zc__sweep_fail(sw, -ZC_EINVAL,
                              "--share %s: want a percentage, 0 to 100", v);
    return 0;
}

/* The zcache's capacity at a share of M. */
static uint64_t share_cap(const zc_sweep *sw, double share)
{
    return zc_share_capacity(sw->memory_bytes, share, sw->o.page_size);
}

/* How many rows one trace makes: a capacity (or share) with a zcache
 * takes every --set combination, one without makes one row.  At most
 * 64^10 (ten lists of 64): no overflow.  Checks every value on the way. */
static int count_rows(zc_sweep *sw, uint64_t *out)
{
    uint64_t combos = 1, n = 0, v;
    double share;
    int rc;

    for (int s = 0; s < sw->nsets; s++)
        combos *= sw->set_n[s];
    if (sw->memory) {
        for (size_t i = 0; i < sw->nshare; i++) {
            if ((rc = share_of(sw, sw->shares[i], &share)))
                return rc;
            n += share_cap(sw, share) ? combos : 1;
        }
        *out = n + (sw->o.adaptive ? combos * (uint64_t)sw->nctl : 0);
        return 0;
    }
    for (size_t c = 0; c < sw->ncap; c++) {
        if ((rc = zc__sweep_size_arg(sw, sw->caps[c], false, "--capacity", &v)))
            return rc;
        n += v ? combos : 1;
    }
    *out = n * (sw->tpub[0].is_ops ? 1 : sw->npc);
    return 0;
}

/* The adaptive rows of the trace being made: one per controller and
 * --set combination, a zcache made for all of M whose share the
 * controller sets; the label starts with "adaptive[:NAME]". */
static int add_adaptive_rows(zc_sweep *sw)
{
    char capstr[32];
    int rc;

    snprintf(capstr, sizeof(capstr), "%" PRIu64, sw->memory_bytes);
    for (int c = 0; c < sw->nctl; c++) {
        size_t first = sw->nrows;
        char name[32];
        snprintf(name, sizeof(name), "adaptive%s%s", sw->ctl[c] ? ":" : "",
                 sw->ctl[c] ? zc_adapt_controller_name(sw->ctl[c]) : "");
        if ((rc = add_rows(sw, sw->memory_bytes / sw->o.page_size, false,
                           capstr, -1)))
            return rc;
        for (size_t i = first; i < sw->nrows; i++) {
            char *l = sw->rows[i].label;
            size_t nl = strlen(name), nc = strlen(capstr);
            sw->rpub[i].adaptive = true;
            sw->rpub[i].controller = sw->ctl[c];
            /* the name replaces the capacity (cut to fit) */
            if (strlen(l) - nc + nl >= sizeof(sw->rows[i].label))
                l[sizeof(sw->rows[i].label) - 1 - nl + nc] = '\0';
            memmove(l + nl, l + nc, strlen(l + nc) + 1);
            memcpy(l, name, nl);
        }
    }
    return 0;
}

static int add_split_rows(zc_sweep *sw)
{
    for (size_t i = 0; i < sw->nshare; i++) {
        double share;
        uint64_t cap, pc;
        char capstr[32];
        int rc = share_of(sw, sw->shares[i], &share);
        if (rc)
            return rc;
        cap = share_cap(sw, share);
        pc = (sw->memory_bytes - cap) / sw->o.page_size;
        if (cap > ZC_CAPACITY_MAX)
            return zc__sweep_fail(sw, -ZC_EINVAL,
                                  "--memory %s --share: a zcache of %" PRIu64
                                  " bytes is more than the library's largest, "
                                  "%zu (15 GiB)",
                                  sw->memory, cap, (size_t)ZC_CAPACITY_MAX);
        snprintf(capstr, sizeof(capstr), "%" PRIu64, cap);
        if ((rc = add_rows(sw, pc, false, cap ? capstr : NULL, share)))
            return rc;
    }
    return 0;
}

/* A capacity as given, or NULL for 0: no zcache. */
static const char *cap_of(const char *s)
{
    uint64_t v;

    return zc_parse_size(s, &v) >= 0 && v ? s : NULL;
}

/* The rows of trace u (those at positions make_lo to make_hi - 1 made);
 * static_end: the position of its first adaptive row. */
static int add_trace_rows(zc_sweep *sw, size_t u)
{
    zc_sweep_trace *t = &sw->tpub[u];
    int rc = 0;

    sw->making = u;
    sw->pos = 0;
    t->first_row = sw->nrows;
    if (sw->share_list && (rc = add_split_rows(sw)))
        return rc;
    if (sw->memory) {
        t->nstatic = sw->nrows - t->first_row;
        sw->static_end = sw->pos;
        if (sw->o.adaptive && (rc = add_adaptive_rows(sw)))
            return rc;
    } else if (t->is_ops) {
        for (size_t c = 0; c < sw->ncap && !rc; c++)
            rc = add_rows(sw, 0, true, cap_of(sw->caps[c]), 0);
        t->nstatic = sw->nrows - t->first_row;
        sw->static_end = sw->pos;
    } else {
        for (size_t p = 0; p < sw->npc && !rc; p++) {
            uint64_t pc;
            if ((rc = zc__sweep_size_arg(sw, sw->pcs[p], true, "--page-cache",
                                         &pc)))
                return rc;
            if (pc > ZC_REPLAY_PAGES_MAX)
                return zc__sweep_fail(sw, -ZC_EINVAL,
                                      "--page-cache %s: more than the %u "
                                      "pages a replay models",
                                      sw->pcs[p], ZC_REPLAY_PAGES_MAX);
            for (size_t c = 0; c < sw->ncap && !rc; c++)
                rc = add_rows(sw, pc, false, cap_of(sw->caps[c]), 0);
        }
        t->nstatic = sw->nrows - t->first_row;
        sw->static_end = sw->pos;
    }
    t->nrows = sw->nrows - t->first_row;
    return rc;
}

/* A bound on the memory job j takes, in bytes (zc_sweep_job): the same
 * in the whole sweep and in a sweep of the job alone. */
static uint64_t job_memory(const zc_sweep *sw, const zc_sweep_job *j)
{
    uint64_t b = 128ull << 20, caps = 0;
    bool zc = false;

    for (size_t i = j->first_row; i < j->first_row + j->nrows; i++) {
        caps += sw->rpub[i].capacity_bytes + sw->rpub[i].capacity_bytes / 4;
        zc |= sw->rpub[i].capacity_bytes != 0 || sw->rpub[i].adaptive;
    }
    if (j->kind != ZC_SWEEP_OPS)
        b += sw->rpub[j->first_row].page_cache_pages * 256;
    if (zc)
        b += sw->o.memo_bytes;
    /* its own rows (about 3.5 KiB each), and every trace of the
     * collection named (a job makes only its own rows) */
    b += (uint64_t)j->nrows * 4096 +
         (uint64_t)sw->all_traces * (sizeof(struct zc__sweep_trace) + 512);
    return b + caps;
}

/* The jobs of a trace whose rows (positions 0 to sw->pos - 1, the first
 * static_end static) have the page caches shape[]: a static group by
 * page-cache size (one model pass), each adaptive row alone, an op
 * stream's rows together.  Into out[] from its trace u's row first
 * (positions added); the count.  out NULL: counted only. */
static size_t trace_jobs(const zc_sweep *sw, bool ops, size_t u, size_t first,
                         zc_sweep_job *out)
{
    size_t n = 0, end = sw->static_end;

    if (ops && sw->pos) {
        if (out)
            out[n] = (zc_sweep_job){ZC_SWEEP_OPS, u, first, sw->pos, 0, 0};
        n++;
    }
    for (size_t i = 0; !ops && i < end;) {
        size_t k = 1;
        while (i + k < end && sw->shape[i + k] == sw->shape[i])
            k++;
        if (out)
            out[n] = (zc_sweep_job){ZC_SWEEP_GROUP, u, first + i, k, 0, 0};
        n++;
        i += k;
    }
    for (size_t i = end; i < sw->pos; i++, n++)
        if (out)
            out[n] = (zc_sweep_job){ZC_SWEEP_ADAPTIVE, u, first + i, 1, 0, 0};
    if (n && out)
        out[0].curve = true; /* the trace's first job takes the curve */
    return n;
}

/* The adaptive options the rows share: all of M, and the sweep's prices
 * where --adapt sets none. */
static int adapt_options(zc_sweep *sw)
{
    if (!sw->o.adaptive)
        return 0;
    if (sw->memory_bytes > ZC_CAPACITY_MAX)
        return zc__sweep_fail(sw, -ZC_EINVAL,
                              "--memory %s --adaptive: the zcache is made "
                              "for all of M, and the library's largest is "
                              "%zu bytes (15 GiB)",
                              sw->memory, (size_t)ZC_CAPACITY_MAX);
    if (!sw->nctl)
        sw->ctl[sw->nctl++] = sw->o.adapt.controller;
    sw->o.adapt.memory_bytes = sw->memory_bytes;
    if (!sw->o.adapt.disk_ns)
        sw->o.adapt.disk_ns = sw->o.prices.disk_ns;
    if (!sw->o.adapt.put_ns)
        sw->o.adapt.put_ns = sw->o.prices.put_ns;
    if (!sw->o.adapt.get_ns)
        sw->o.adapt.get_ns = sw->o.prices.get_ns;
    return 0;
}

/* The rows each trace makes (every trace makes as many), checked against
 * the limit for all of them; shape[] made for them. */
static int rows_per_trace(zc_sweep *sw, uint64_t *per)
{
    uint64_t n;
    int rc;

    if ((rc = adapt_options(sw)) || (rc = count_rows(sw, per)))
        return rc;
    /* at most MAX_TRACES traces: per * n does not wrap */
    n = *per > MAX_ROWS ? *per : *per * sw->ntraces;
    if (n > MAX_ROWS)
        return zc__sweep_fail(sw, -ZC_EINVAL,
                              "%" PRIu64 " rows (the cross product of the "
                              "lists%s): more than a sweep's limit, %d",
                              n, sw->ntraces > 1 ? ", for every trace" : "",
                              MAX_ROWS);
    if (!(sw->shape = calloc(*per ? (size_t)*per : 1, sizeof(*sw->shape))))
        return -ZC_ENOMEM;
    return 0;
}

int zc__sweep_find_job(zc_sweep *sw)
{
    zc_sweep_job *tj;
    uint64_t per;
    size_t jpt, k;
    int rc;

    sw->all_traces = sw->ntraces;
    if ((rc = rows_per_trace(sw, &per)))
        return rc;
    /* the jobs of one trace, counted: every trace's are alike */
    sw->make_lo = sw->make_hi = 0;
    if ((rc = add_trace_rows(sw, 0)))
        return rc;
    jpt = trace_jobs(sw, sw->tpub[0].is_ops, 0, 0, NULL);
    sw->all_rows = (size_t)per * sw->ntraces;
    sw->all_jobs = jpt * sw->ntraces;
    if (!sw->all_jobs)
        return zc__sweep_fail(sw, -ZC_EINVAL, "job %zu: the sweep has none",
                              sw->sel_job);
    if (sw->sel_job >= sw->all_jobs)
        return zc__sweep_fail(sw, -ZC_EINVAL,
                              "job %zu: the sweep has jobs 0 to %zu",
                              sw->sel_job, sw->all_jobs - 1);
    if (!(tj = calloc(jpt, sizeof(*tj))))
        return -ZC_ENOMEM;
    trace_jobs(sw, sw->tpub[0].is_ops, 0, 0, tj);
    k = sw->sel_job % jpt;
    sw->sel_trace = sw->sel_job / jpt;
    sw->sel_row = sw->sel_trace * (size_t)per + tj[k].first_row;
    sw->make_lo = tj[k].first_row;
    sw->make_hi = tj[k].first_row + tj[k].nrows;
    free(tj);
    return 0;
}

int zc__sweep_make_rows(zc_sweep *sw)
{
    uint64_t per, n;
    int rc;

    if (!sw->select) {
        sw->all_traces = sw->ntraces;
        if ((rc = rows_per_trace(sw, &per)))
            return rc;
        sw->make_lo = 0;
        sw->make_hi = SIZE_MAX;
    } else {
        per = sw->make_hi - sw->make_lo; /* (zc__sweep_find_job()'s) */
    }
    n = per * sw->ntraces;
    sw->rows = calloc(n ? (size_t)n : 1, sizeof(*sw->rows));
    sw->rpub = calloc(n ? (size_t)n : 1, sizeof(*sw->rpub));
    sw->jobs = calloc(n ? (size_t)n : 1, sizeof(*sw->jobs));
    if (!sw->rows || !sw->rpub || !sw->jobs)
        return -ZC_ENOMEM;
    sw->maxrows = (size_t)n;
    for (size_t u = 0; u < sw->ntraces; u++) {
        size_t first = sw->nrows;
        if ((rc = add_trace_rows(sw, u)))
            return rc;
        if (!sw->select) {
            sw->njobs += trace_jobs(sw, sw->tpub[u].is_ops, u, first,
                                    sw->jobs + sw->njobs);
            continue;
        }
        /* the job alone: its rows, from 0; the curve if it is its
         * trace's first */
        sw->jobs[0] = (zc_sweep_job){
            .kind = sw->tpub[0].is_ops              ? ZC_SWEEP_OPS
                    : sw->make_lo >= sw->static_end ? ZC_SWEEP_ADAPTIVE
                                                    : ZC_SWEEP_GROUP,
            .nrows = sw->nrows,
            .curve = sw->sel_job % (sw->all_jobs / sw->all_traces) == 0};
        sw->njobs = 1;
    }
    if (!sw->select) {
        sw->all_rows = sw->nrows;
        sw->all_jobs = sw->njobs;
    }
    for (size_t j = 0; j < sw->njobs; j++)
        sw->jobs[j].memory_bytes = job_memory(sw, &sw->jobs[j]);
    return 0;
}
