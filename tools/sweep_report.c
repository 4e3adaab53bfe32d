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

/* What a writer sees: the rows of one trace (view_of()), and the
 * command line. */
struct view {
    const zc_sweep *sw;
    const struct sweep_args *a;
    size_t u;                  /* the trace */
    const zc_sweep_trace *cur; /* ... itself */
    const zc_sweep_row *jobs;  /* its rows */
    size_t njobs, nstatic;
    const char *plot; /* its plots' prefix */
    const uint64_t *mrc_pages;
    size_t nmrc;
};

static struct view view_of(const zc_sweep *sw, const struct sweep_args *a,
                           size_t u)
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
static zc_rates rates(const zc_sweep_row *j)
{
    return zc_replay_rates(&j->st);
}

/* The cost model of a row (zc_sweep_row_cost()): in a memory split, what
 * counts is the disk reads against the split without a zcache (share 0),
 * since a split takes its memory from the page cache. */
static zc_cost cost_of(const struct view *v, const zc_sweep_row *j)
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
static void csv(const struct view *v, FILE *f)
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

/* The static row of fewest disk reads, and of least cost: among those
 * with the --set values of row `like`, or all of them (NULL).  Row 0 is
 * share 0, which goes with every one. */
static size_t best_row(const struct view *v, const zc_sweep_row *like)
{
    size_t best = 0;

    for (size_t k = 1; k < v->nstatic; k++)
        if ((!like || same_sets(&v->jobs[k], like)) &&
            v->jobs[k].st.disk_reads < v->jobs[best].st.disk_reads)
            best = k;
    return best;
}

static size_t cheapest_row(const struct view *v, const zc_sweep_row *like)
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
    /* (the controllers take --cpu-price's unless --adapt sets theirs) */
    if (v->njobs > v->nstatic &&
        (!(v->a->so.adapt.put_ns || v->a->so.prices.put_ns) ||
         !(v->a->so.adapt.get_ns || v->a->so.prices.get_ns)))
        printf("\n(the controllers priced with the CPU each run measured: "
               "another run, or a busy\nmachine, may split differently; "
               "--cpu-price put=T,get=T makes them reproducible)");
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

/* PREFIX.csv, PREFIX.dat and PREFIX.gp, then gnuplot if it is there. */
/* A row's --set combination: its label after the capacity ("" if none). */
static const char *combo_of(const zc_sweep_row *j)
{
    const char *sp = strchr(j->label, ' ');

    return sp ? sp + 1 : "";
}

static void plot(const struct view *v)
{
    char path[3][1100], msg[1400], name[256], mem[64];
    outfile out[3] = {{0}};
    int bad = 0;
    FILE *f;
    size_t ngroups = 0, ncombos = 0;
    double lo = 100, hi = 0; /* the shares swept */

    snprintf(path[0], sizeof(path[0]), "%s.csv", v->plot);
    snprintf(path[1], sizeof(path[1]), "%s.dat", v->plot);
    snprintf(path[2], sizeof(path[2]), "%s.gp", v->plot);
    if (!(f = outfile_open(&out[0], path[0])))
        goto fail;
    csv(v, f);
    if (outfile_close(&out[0]))
        goto fail;
    bad = 1;
    if (!(f = outfile_open(&out[1], path[1])))
        goto fail;
    if (v->a->so.memory) {
        /* One block per --set combination: its static shares (the share
         * without a zcache, which all combinations share, first); then
         * one block per adaptive row (no share of its own): its disk
         * reads as a level across the shares swept. */
        bool any_zc = false;
        for (size_t i = 0; i < v->njobs; i++)
            any_zc |= v->jobs[i].share >= 0 && v->jobs[i].capacity_bytes;
        for (size_t i = 0; i < v->njobs; i++) {
            bool seen = false;
            if (v->jobs[i].share < 0 || (!v->jobs[i].capacity_bytes && any_zc))
                continue;
            for (size_t k = 0; k < i; k++)
                seen |= v->jobs[k].share >= 0 && v->jobs[k].capacity_bytes &&
                        !strcmp(combo_of(&v->jobs[k]), combo_of(&v->jobs[i]));
            if (seen)
                continue;
            fprintf(f, "%s\"%s\"\n", ncombos++ ? "\n\n" : "",
                    *combo_of(&v->jobs[i]) ? combo_of(&v->jobs[i])
                                           : "memory split");
            for (size_t k = 0; k < v->njobs; k++) {
                const zc_sweep_row *j = &v->jobs[k];
                if (j->share < 0 ||
                    (j->capacity_bytes &&
                     strcmp(combo_of(j), combo_of(&v->jobs[i]))))
                    continue;
                if (j->share < lo)
                    lo = j->share;
                if (j->share > hi)
                    hi = j->share;
                fprintf(f, "%.2f %" PRIu64 " %.3f %.3f %.3f\n", j->share,
                        j->st.disk_reads, rates(j).pc_hit, rates(j).zc_hit,
                        rates(j).in_memory);
            }
        }
        ngroups = ncombos;
        for (size_t i = 0; i < v->njobs; i++)
            if (v->jobs[i].share < 0) {
                fprintf(f, "\n\n\"adaptive%s%s\"\n",
                        *combo_of(&v->jobs[i]) ? ", " : "",
                        combo_of(&v->jobs[i]));
                fprintf(f, "%.2f %" PRIu64 "\n%.2f %" PRIu64 "\n", lo,
                        v->jobs[i].st.disk_reads, hi, v->jobs[i].st.disk_reads);
                ngroups++;
            }
    } else {
        /* One block per line of the plot: a group's rows by capacity, its
         * page cache's row without a zcache first. */
        for (size_t i = 0; i < v->njobs; i++) {
            bool seen = false;
            if (!v->jobs[i].capacity_bytes)
                continue;
            for (size_t k = 0; k < i; k++)
                seen |= v->jobs[k].capacity_bytes &&
                        !strcmp(v->jobs[k].group, v->jobs[i].group);
            if (seen)
                continue;
            fprintf(f, "%s\"%s\"\n", ngroups++ ? "\n\n" : "", v->jobs[i].group);
            for (size_t k = 0; k < v->njobs; k++) {
                const zc_sweep_row *j = &v->jobs[k];
                if ((j->capacity_bytes && strcmp(j->group, v->jobs[i].group)) ||
                    j->page_cache_pages != v->jobs[i].page_cache_pages ||
                    (!j->capacity_bytes && k > i))
                    continue;
                fprintf(f, "%.4f %.3f %.3f %.3f\n",
                        (double)j->capacity_bytes / 1048576.0, rates(j).pc_hit,
                        rates(j).zc_hit, rates(j).in_memory);
            }
        }
    }
    if (outfile_close(&out[1]))
        goto fail;
    bad = 2;
    if (!(f = outfile_open(&out[2], path[2])))
        goto fail;
    plot_header(f, NAME, v->plot, path[1]);
    plot_traces_text(name, sizeof(name), v->cur->paths, v->cur->npaths);
    plot_text(mem, sizeof(mem), v->a->so.memory ? v->a->so.memory : "");
    fprintf(f, "set datafile commentschars '#'\nset key below\n"
               "set grid\n");
    for (int t = 0; t < PLOT_TERMINALS; t++) {
        plot_terminal(f, v->plot, t);
        if (v->a->so.memory) {
            fprintf(f,
                    "set title '%s: memory split of %s, the zcache share'\n"
                    "set xlabel 'zcache share of memory (%%)'\n"
                    "set ylabel 'disk reads'\n"
                    "set xrange [%g:%g]\n",
                    name, mem, lo, hi > lo ? hi : lo + 1);
            if (ncombos == 1)
                /* one configuration: its disk reads and hit rates */
                fprintf(f,
                        "set y2label 'hit rate (%% of accesses)'\nset y2tics\n"
                        "plot '%s.dat' index 0 using 1:2 with linespoints "
                        "lw 2 lc 1 title 'disk reads', '' index 0 using 1:3 "
                        "axes x1y2 with lines lc 2 title 'page cache hits "
                        "(right axis)', '' index 0 using 1:4 axes x1y2 with "
                        "lines lc 3 title 'zcache hits (right axis)', '' "
                        "index 0 using 1:5 axes x1y2 with lines lc 4 title "
                        "'in memory (right axis)'",
                        v->plot);
            else
                /* several: their disk reads, one colour each */
                fprintf(f,
                        "plot for [i=0:%zu] '%s.dat' index i using 1:2 with "
                        "linespoints lw 2 lc i+1 title columnheader(1)",
                        ncombos - 1, v->plot);
            if (ngroups > ncombos)
                fprintf(f,
                        ", for [i=%zu:%zu] '' index i using 1:2 with lines "
                        "lw 2 dashtype 2 lc i-%zu+1 title "
                        "columnheader(1).' (disk reads)'",
                        ncombos, ngroups - 1, ncombos);
            fputc('\n', f);
        } else {
            fprintf(f, "set xlabel 'zcache capacity (MiB)'\n"
                       "set ylabel 'hits (%% of accesses)'\n");
            if (ngroups == 1) {
                /* one page cache: it goes in the title, and the three
                 * rates get three colours */
                char group[256];
                for (size_t i = 0; i < v->njobs; i++)
                    if (v->jobs[i].capacity_bytes) {
                        plot_text(group, sizeof(group), v->jobs[i].group);
                        break;
                    }
                fprintf(f, "set title '%s, %s: hits against zcache size'\n",
                        name, group);
                if (!strcmp(v->cur->read_as, "zct")) {
                    /* an op stream's page cache is the recorded one: its
                     * hits are not played, only the zcache's */
                    fprintf(f,
                            "plot '%s.dat' index 0 using 1:3 with linespoints "
                            "lw 2 lc 2 title 'zcache hits'\n",
                            v->plot);
                    continue;
                }
                fprintf(f,
                        "plot '%s.dat' index 0 using 1:4 with linespoints "
                        "lw 2 lc 1 title 'both tiers (in memory)', '' index 0 "
                        "using 1:3 with linespoints lw 2 dashtype 2 lc 2 "
                        "title 'zcache', '' index 0 using 1:2 with lines lw 2 "
                        "dashtype 3 lc 3 title 'page cache'\n",
                        v->plot);
                continue;
            }
            /* one colour per configuration, named once; the line's
             * style says the rate (the key's last three entries) */
            fprintf(f,
                    "set title '%s: hits against zcache size'\n"
                    "plot for [i=0:%zu] '%s.dat' index i using 1:4 with "
                    "linespoints lw 2 lc i+1 title columnheader(1), "
                    "for [i=0:%zu] '' index i using 1:3 with lines dashtype 2 "
                    "lc i+1 notitle, "
                    "for [i=0:%zu] '' index i using 1:2 with lines dashtype 3 "
                    "lc i+1 notitle, "
                    "NaN with lines lw 2 lc 'black' title 'solid: both tiers', "
                    "NaN with lines dashtype 2 lc 'black' title 'dashed: "
                    "zcache', NaN with lines dashtype 3 lc 'black' title "
                    "'dotted: page cache'\n",
                    name, ngroups ? ngroups - 1 : 0, v->plot,
                    ngroups ? ngroups - 1 : 0, ngroups ? ngroups - 1 : 0);
        }
    }
    if (outfile_close(&out[2]))
        goto fail;
    plot_run(NAME, v->plot);
    return;
fail:
    snprintf(msg, sizeof(msg), "cannot write %s: %s", path[bad],
             strerror(errno));
    for (int i = 0; i < 3; i++)
        outfile_discard(&out[i]);
    die(1, "%s", msg);
}

/* With several adaptive rows, PREFIX-adaptive: every row's split over
 * time on one graph, and the static splits of fewest disk reads and of
 * least cost. */
static void plot_together(const struct view *v)
{
    size_t n = v->njobs - v->nstatic, best = best_row(v, NULL),
           cheapest = cheapest_row(v, NULL);
    const char **csvs = calloc(n, sizeof(*csvs)),
               **titles = calloc(n, sizeof(*titles));
    char *names = calloc(n, 1100), prefix[1100], line[2][64], label[256];
    const char *lt[2] = {line[0], line[1]};
    double ls[2];
    size_t nl = 0;

    if (!csvs || !titles || !names)
        die(1, "%s", "out of memory");
    plot_traces_text(label, sizeof(label), v->cur->paths, v->cur->npaths);
    for (size_t i = 0; i < n; i++) {
        snprintf(names + i * 1100, 1100, "%s-adaptive-%zu.csv", v->plot, i + 1);
        csvs[i] = names + i * 1100;
        titles[i] = v->jobs[v->nstatic + i].label;
    }
    snprintf(prefix, sizeof(prefix), "%s-adaptive", v->plot);
    if (v->nstatic) {
        snprintf(line[nl], sizeof(line[nl]),
                 "static %.1f%% (fewest disk reads)", v->jobs[best].share);
        ls[nl++] = v->jobs[best].share;
    }
    if (v->nstatic && cheapest != best) {
        snprintf(line[nl], sizeof(line[nl]), "static %.1f%% (least cost)",
                 v->jobs[cheapest].share);
        ls[nl++] = v->jobs[cheapest].share;
    }
    if (split_log_plot_together(NAME, prefix, label, v->a->so.memory, csvs,
                                titles, n, ls, lt, nl))
        exit(1);
    free(csvs);
    free(titles);
    free(names);
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

/* The plots of the trace in view (--plot). */
static void plots(const struct view *v)
{
    char label[256];

    plot_traces_text(label, sizeof(label), v->cur->paths, v->cur->npaths);
    for (size_t i = v->nstatic; i < v->njobs; i++) {
        char prefix[1200];
        snprintf(prefix, sizeof(prefix), "%s-adaptive%s%zu", v->plot,
                 v->njobs - v->nstatic > 1 ? "-" : "",
                 v->njobs - v->nstatic > 1 ? i - v->nstatic + 1 : 0);
        if (v->njobs - v->nstatic == 1)
            snprintf(prefix, sizeof(prefix), "%s-adaptive", v->plot);
        char what[512]; /* the memory, and the row's --set combination */
        snprintf(what, sizeof(what), "%s%s%s", v->a->so.memory,
                 *combo_of(&v->jobs[i]) ? ", " : "", combo_of(&v->jobs[i]));
        if (split_log_plot(NAME, prefix, label, what, v->jobs[i].epochs,
                           v->jobs[i].nepochs, zc_sweep_page_size(v->sw)))
            exit(1);
    }
    if (v->njobs - v->nstatic > 1)
        plot_together(v);
    if (v->nstatic)
        plot(v);
}

void report_output(const zc_sweep *sw, const struct sweep_args *a)
{
    size_t nunits;
    struct view v;

    zc_sweep_traces(sw, &nunits);
    for (size_t u = 0; a->plot && u < nunits; u++) {
        v = view_of(sw, a, u);
        plots(&v);
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
