/*
 * sweep_report.c - zcache-sweep's outputs of finished rows: the aligned
 * table, CSV and JSON on standard output, and the gnuplot plots.  A local
 * sweep and a merged plan (sweep_plan.c) both end here, so the two write
 * the same bytes from the same rows.
 *
 * Each writer sees the rows of one trace (view_of()); CSV and JSON
 * write one header (or array) and then every trace's rows, the table a
 * block per trace, the plots a set of files per trace.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "outfile.h"
#include "plot.h"
#include "split_log.h"
#include "statsout.h"
#include "sweep.h"

struct view view_of(const zc_sweep *sw, const struct sweep_args *a, size_t u)
{
    struct view v = {.sw = sw, .a = a, .u = u};

    v.cur = &zc_sweep_traces(sw, NULL)[u];
    v.jobs = zc_sweep_rows(sw, NULL) + v.cur->first_row;
    v.njobs = v.cur->nrows;
    v.nstatic = v.cur->nstatic;
    v.plot = a->plots ? a->plots[u] : NULL;
    v.nmrc = zc_sweep_curve_sizes(sw, &v.mrc_pages);
    return v;
}

/* The rates are the library's (zc_replay_rates(): README, Sweeps), all of
 * accesses: pc_hit% the page cache held the page; zc_hit% the zcache did
 * (a read it served, or a write that found a copy there); in_mem% either
 * tier, the sum of the two; kept% of puts. */
zc_rates rates(const zc_sweep_row *j)
{
    return zc_replay_rates(&j->st);
}

/* The cost model of a row (zc_sweep_row_cost()): in a memory split, what
 * counts is the disk reads against the split without a zcache (share 0),
 * since a split takes its memory from the page cache. */
zc_cost cost_of(const struct view *v, const zc_sweep_row *j)
{
    return zc_sweep_row_cost(v->sw, (size_t)(j - zc_sweep_rows(v->sw, NULL)));
}

/* Every row's zcache settings (--zcache), and the prices. */
static const char *zbase(const struct view *v)
{
    return v->a->so.zcache ? v->a->so.zcache : "";
}

static const zc_prices *prices_of(const struct view *v)
{
    return &v->a->so.prices;
}

/* What every row describes: its trace (the paths of a joined one
 * separated by spaces), its format (resolved: never "auto") and the
 * content source. */
static const char *content_name(const struct view *v)
{
    return v->cur->is_ops ? "(in the stream)" : v->cur->content;
}

/* The page-cache model's name (a registered one: no escaping needed). */
static const char *model_name(const struct view *v)
{
    return v->a->so.model ? v->a->so.model : "lru";
}

static void csv_header(FILE *f)
{
    fprintf(f, "trace,format,content,page_cache_pages,page_cache_model,"
               "zcache_spec,capacity_bytes,share_percent,adaptive,"
               "controller,zcache_config");
    out_replay_csv_header(f);
    fprintf(f, ",mrc_pc_hits");
    out_zcache_csv_header(f);
    fprintf(f, ",compress_ms,wasted_ms,decompress_ms,cpu_ms,disk_latency_us,"
               "saved_ms\n");
}

/* The rows of the trace in view. */
static void csv_rows(const struct view *v, FILE *f)
{
    for (size_t i = 0; i < v->njobs; i++) {
        const zc_sweep_row *j = &v->jobs[i];
        zc_cost c = cost_of(v, j);
        out_csv_string(f, v->cur->name);
        fprintf(f, ",%s,", v->cur->read_as);
        out_csv_string(f, content_name(v));
        fputc(',', f);
        fprintf(f, "%" PRIu64 ",%s,", j->page_cache_pages, model_name(v));
        out_csv_string(f, j->spec[0] ? j->spec : "off");
        fprintf(f, ",%" PRIu64 ",", j->capacity_bytes);
        if (!j->adaptive && v->a->so.memory)
            fprintf(f, "%g", j->share);
        fprintf(f, ",%s,%s,", j->adaptive ? "true" : "false",
                j->adaptive ? zc_adapt_controller_name(j->controller) : "");
        out_csv_string(f, j->have_zs ? j->config : "off");
        out_replay_csv(f, &j->st);
        fprintf(f, ",%" PRIu64, j->mrc_hits);
        out_zcache_csv(f, j->have_zs ? &j->zs : NULL);
        fprintf(f, ",%.3f,%.3f,%.3f,%.3f,%.1f,%.3f\n", c.compress_ms,
                c.wasted_ms, c.decompress_ms, c.cpu_ms,
                (double)(*prices_of(v)).disk_ns / 1e3, c.saved_ms);
    }
}

/* The rows of the trace in view under their header. */
void csv(const struct view *v, FILE *f)
{
    csv_header(f);
    csv_rows(v, f);
}

/* One JSON row of the trace in view: rows[i]. */
static void json_row(const struct view *v, const zc_sweep_row *j, bool first)
{
    zc_cost c = cost_of(v, j);

    printf("%s\n {\"trace\":", first ? "" : ",");
    out_json_string(stdout, v->cur->name);
    printf(",\"format\":\"%s\",\"content\":", v->cur->read_as);
    out_json_string(stdout, content_name(v));
    printf(",\"page_cache_pages\":%" PRIu64
           ",\"page_cache_model\":\"%s\",\"zcache_spec\":",
           j->page_cache_pages, model_name(v));
    out_json_string(stdout, j->spec[0] ? j->spec : "off");
    printf(",\"capacity_bytes\":%" PRIu64 ",\"share_percent\":",
           j->capacity_bytes);
    if (j->adaptive)
        printf("null,\"adaptive\":true,\"controller\":\"%s\"",
               zc_adapt_controller_name(j->controller));
    else if (v->a->so.memory)
        printf("%g,\"adaptive\":false,\"controller\":null", j->share);
    else
        printf("null,\"adaptive\":false,\"controller\":null");
    printf(",\"zcache_config\":");
    out_json_string(stdout, j->have_zs ? j->config : "off");
    out_replay_json(stdout, &j->st);
    printf(",\"mrc_pc_hits\":%" PRIu64, j->mrc_hits);
    out_zcache_json(stdout, j->have_zs ? &j->zs : NULL);
    printf(",\"compress_ms\":%.3f,\"wasted_ms\":%.3f,"
           "\"decompress_ms\":%.3f,\"cpu_ms\":%.3f,"
           "\"disk_latency_us\":%.1f,\"saved_ms\":%.3f}",
           c.compress_ms, c.wasted_ms, c.decompress_ms, c.cpu_ms,
           (double)(*prices_of(v)).disk_ns / 1e3, c.saved_ms);
}

/* The --mrc curve of the trace in view, as a JSON object. */
static void json_curve(const struct view *v)
{
    printf("{\"trace\":");
    out_json_string(stdout, v->cur->name);
    printf(",\"accesses\":%" PRIu64 ",\"distinct_pages\":%" PRIu64
           ",\"curve\":[",
           v->cur->curve_accesses, v->cur->curve_distinct);
    for (size_t i = 0; i < v->nmrc; i++)
        printf("%s{\"pages\":%" PRIu64 ",\"hits\":%" PRIu64 "}", i ? "," : "",
               v->mrc_pages[i], v->cur->curve_hits[i]);
    printf("]}");
}

/* Every trace's rows in one array; with --mrc, {"rows": [...], "mrc":
 * CURVE} for one trace and "mrc": [CURVE, ...] for several. */
static void json(const zc_sweep *sw, const struct sweep_args *a)
{
    size_t nunits;
    const zc_sweep_trace *t = zc_sweep_traces(sw, &nunits);
    bool curve = a->so.mrc && !t[0].is_ops;

    if (curve)
        printf("{\"rows\":");
    printf("[");
    for (size_t u = 0, n = 0; u < nunits; u++) {
        struct view v = view_of(sw, a, u);
        for (size_t i = 0; i < v.njobs; i++)
            json_row(&v, &v.jobs[i], !n++);
    }
    printf("\n]");
    if (curve) {
        printf(",\"mrc\":%s", nunits > 1 ? "[" : "");
        for (size_t u = 0; u < nunits; u++) {
            struct view v = view_of(sw, a, u);
            if (u)
                printf(",\n");
            json_curve(&v);
        }
        printf("%s}", nunits > 1 ? "]" : "");
    }
    printf("\n");
}

/* Whether static row k has the --set values of row j (a row without a
 * zcache goes with every one). */
static bool same_sets(const zc_sweep_row *k, const zc_sweep_row *j)
{
    const char *a = strchr(k->label, ' '), *b = strchr(j->label, ' ');

    return !k->spec[0] || !strcmp(a ? a : "", b ? b : "");
}

/* The adaptive rows' CPU prices, where they were measured (before any row
 * ran, the same for every run of the rows: a plan's jobs take the plan's),
 * and how to give them again. */
static void measured_prices(const struct view *v)
{
    const zc_sweep_row *first = NULL;
    bool alike = true;

    for (size_t i = v->nstatic; i < v->njobs; i++) {
        const zc_sweep_row *j = &v->jobs[i];
        if (!j->prices_measured)
            continue;
        if (!first)
            first = j;
        alike &= j->put_ns == first->put_ns && j->get_ns == first->get_ns;
    }
    if (!first)
        return;
    printf("\n(the controllers' CPU prices were measured once, before the "
           "rows ran: ");
    for (size_t i = v->nstatic; i < v->njobs; i++) {
        const zc_sweep_row *j = &v->jobs[i];
        if (j->prices_measured && (!alike || j == first))
            printf("%s%s%sput %.2f us, get %.2f us", j == first ? "" : "; ",
                   alike ? "" : j->label, alike ? "" : ": ",
                   (double)j->put_ns / 1e3, (double)j->get_ns / 1e3);
    }
    printf(";\nanother sweep measures again and may split differently");
    if (alike)
        printf(": --adapt put=%" PRIu64 "ns,get=%" PRIu64
               "ns weighs these again",
               first->put_ns, first->get_ns);
    printf(";\n--cpu-price put=T,get=T fixes them)");
}

/* The static row of fewest disk reads, and of least cost: among those
 * with the --set values of row `like`, or all of them (NULL).  Row 0 is
 * share 0, which goes with every one. */
size_t best_row(const struct view *v, const zc_sweep_row *like)
{
    size_t best = 0;

    for (size_t k = 1; k < v->nstatic; k++)
        if ((!like || same_sets(&v->jobs[k], like)) &&
            v->jobs[k].st.disk_reads < v->jobs[best].st.disk_reads)
            best = k;
    return best;
}

size_t cheapest_row(const struct view *v, const zc_sweep_row *like)
{
    size_t cheapest = 0;

    for (size_t k = 1; k < v->nstatic; k++)
        if ((!like || same_sets(&v->jobs[k], like)) &&
            cost_of(v, &v->jobs[k]).saved_ms >
                cost_of(v, &v->jobs[cheapest]).saved_ms)
            cheapest = k;
    return cheapest;
}

static void table(const struct view *v)
{
    size_t best = best_row(v, NULL);
    int w = 7; /* the zcache column: as wide as its widest label */

    for (size_t i = 0; i < v->njobs; i++)
        if ((int)strlen(v->jobs[i].label) > w)
            w = (int)strlen(v->jobs[i].label);
    if (*zbase(v))
        printf("every zcache: %s\n", zbase(v));
    printf("%-9s %-*s %8s %7s %7s %9s %7s %6s %7s %9s %9s %9s\n",
           v->a->so.memory ? "zc_share" : "pc_pages", w, "zcache", "accesses",
           "pc_hit%", "zc_hit%", "disk_reads", "in_mem%", "kept%", "density",
           "cpu_ms", "wasted_ms", "saved_ms");
    for (size_t i = 0; i < v->njobs; i++) {
        const zc_sweep_row *j = &v->jobs[i];
        zc_cost c = cost_of(v, j);
        char first[32];
        if (j->adaptive)
            snprintf(first, sizeof(first), "adaptive");
        else if (v->a->so.memory)
            snprintf(first, sizeof(first), "%.1f%%", j->share);
        else if (j->ops)
            snprintf(first, sizeof(first), "-"); /* the stream's own */
        else
            snprintf(first, sizeof(first), "%" PRIu64, j->page_cache_pages);
        printf("%-9s %-*s %8" PRIu64 " %6.2f%% %6.2f%% %9" PRIu64
               " %6.2f%% %5.1f%% %7.3f %9.2f %9.2f %9.1f%s\n",
               first, w, j->spec[0] ? j->label : "off", j->st.accesses,
               rates(j).pc_hit, rates(j).zc_hit, j->st.disk_reads,
               rates(j).in_memory, rates(j).kept, zc_stats_density(&j->zs),
               c.cpu_ms, c.wasted_ms, c.saved_ms,
               v->a->so.memory && v->nstatic && i == best
                   ? "  <- fewest disk reads"
                   : "");
    }
    for (size_t i = v->nstatic; v->nstatic && i < v->njobs; i++) {
        const zc_sweep_row *j = &v->jobs[i];
        zc_cost c = cost_of(v, j), cb;
        /* against the static rows of the same --set values (and "off") */
        size_t cheapest = cheapest_row(v, j);
        best = best_row(v, j);
        cb = cost_of(v, &v->jobs[cheapest]);
        printf(
            "\n%s: %zu epochs; disk reads %.3f x the fewest of a static "
            "split (%.1f%%),\n  cost (disk reads x latency + cpu) %.3f x "
            "the least of one (%.1f%%)",
            j->label, j->nepochs,
            (double)j->st.disk_reads /
                (double)(v->jobs[best].st.disk_reads
                             ? v->jobs[best].st.disk_reads
                             : 1),
            v->jobs[best].share,
            ((double)j->st.disk_reads * (double)(*prices_of(v)).disk_ns / 1e6 +
             c.cpu_ms) /
                ((double)v->jobs[cheapest].st.disk_reads *
                     (double)(*prices_of(v)).disk_ns / 1e6 +
                 cb.cpu_ms),
            v->jobs[cheapest].share);
    }
    measured_prices(v);
    if (v->njobs > v->nstatic)
        printf("\n");
}

/* What the table's columns mean: once, after every trace's table. */
static void table_footer(const struct view *v)
{
    printf("\npc_hit%%, zc_hit%%, in_mem%%: shares of accesses whose page "
           "the page cache held,\nthe zcache held, either held (in_mem%% = "
           "pc_hit%% + zc_hit%%);\nkept%%: puts the zcache stored; density: "
           "compressed bytes / arena bytes in use\nat the end; "
           "saved_ms: %s x %.0f us\nof disk latency - cpu_ms (compress, "
           "wasted on rejects, decompress; %s).\n",
           zc_sweep_baseline(v->sw, v->u) != SIZE_MAX
               ? "disk reads fewer than at share 0"
               : "zcache hits",
           (double)(*prices_of(v)).disk_ns / 1e3,
           (*prices_of(v)).put_ns ? "fixed prices, --cpu-price"
                                  : "thread CPU time measured");
}

/* The --mrc curve of the trace in view, as a text table. */
static void table_curve(const struct view *v)
{
    printf("\nLRU curve of the page cache (one pass, %" PRIu64
           " accesses, %" PRIu64 " distinct pages):\n%12s %12s %9s\n",
           v->cur->curve_accesses, v->cur->curve_distinct, "pages", "hits",
           "hit%");
    for (size_t i = 0; i < v->nmrc; i++)
        printf("%12" PRIu64 " %12" PRIu64 " %8.4f%%\n", v->mrc_pages[i],
               v->cur->curve_hits[i],
               v->cur->curve_accesses ? 100.0 * (double)v->cur->curve_hits[i] /
                                            (double)v->cur->curve_accesses
                                      : 0.0);
}

void report_output(const zc_sweep *sw, const struct sweep_args *a)
{
    size_t nunits;
    struct view v;

    zc_sweep_traces(sw, &nunits);
    for (size_t u = 0; a->plot && u < nunits; u++) {
        v = view_of(sw, a, u);
        sweep_plots(&v);
    }
    if (!strcmp(a->output, "csv")) {
        csv_header(stdout);
        for (size_t u = 0; u < nunits; u++) {
            v = view_of(sw, a, u);
            csv_rows(&v, stdout);
        }
    } else if (!strcmp(a->output, "json")) {
        json(sw, a);
    } else {
        for (size_t u = 0; u < nunits; u++) {
            v = view_of(sw, a, u);
            if (nunits > 1)
                printf("%s== %s\n", u ? "\n" : "", v.cur->name);
            table(&v);
            if (a->so.mrc && !v.cur->is_ops && nunits > 1)
                table_curve(&v);
        }
        table_footer(&v);
        if (a->so.mrc && !v.cur->is_ops && nunits == 1)
            table_curve(&v);
    }
}
