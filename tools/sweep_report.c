/*
 * sweep_report.c - zcache-sweep's outputs of finished rows: the aligned
 * table, CSV and JSON on standard output, and the gnuplot plots.  A local
 * sweep and a merged plan (sweep_plan.c) both end here, so the two write
 * the same bytes from the same rows.
 *
 * Each writer sees the rows of one trace (report_view()); CSV and JSON
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

struct job *jobs;
size_t njobs, nstatic;
const struct unit *cur;

/* ---- output ------------------------------------------------------------- */

double pct(uint64_t a, uint64_t b)
{
    return b ? 100.0 * (double)a / (double)b : 0.0;
}

/* The rates, each defined once and all of accesses (README: Sweeps):
 * pc_hit% the page cache held the page; zc_hit% the zcache did (a read it
 * served, or a write that found a copy there); in_mem% either tier, the
 * sum of the two. */
static double pc_rate(const zc_replay_stats *st)
{
    return pct(st->pc_hits, st->accesses);
}

static double zc_rate(const zc_replay_stats *st)
{
    return pct(st->resident_hits - st->pc_hits, st->accesses);
}

static double mem_rate(const zc_replay_stats *st)
{
    return pct(st->resident_hits, st->accesses);
}

static double density(const zc_stats *z)
{
    return z->mem_used_total
               ? (double)z->compr_data_size / (double)z->mem_used_total
               : 0.0;
}

/* The cost model of a row (zc_cost_of): in a memory split, what counts is
 * the disk reads against the split without a zcache (share 0), since a
 * split takes its memory from the page cache. */
static const struct job *baseline(void)
{
    for (size_t i = 0; o.memory && i < njobs; i++)
        if (!jobs[i].cap_bytes && !jobs[i].adaptive)
            return &jobs[i];
    return NULL; /* no split without a zcache: zcache hits are the saving */
}

static zc_cost cost_of(const struct job *j)
{
    const struct job *b = baseline();
    double saved = b ? (double)b->st.disk_reads - (double)j->st.disk_reads
                     : (double)j->st.zc_hits;

    return zc_cost_of(&j->zs, saved, &o.prices);
}

/* What every row describes: its trace (the paths of a joined one
 * separated by spaces), its format (resolved: never "auto") and the
 * content source. */
static const char *content_name(void)
{
    return cur->is_ops ? "(in the stream)" : cur->content;
}

/* The page-cache model's name (a registered one: no escaping needed). */
static const char *model_name(void)
{
    return o.model ? o.model : "lru";
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
static void csv_rows(FILE *f)
{
    for (size_t i = 0; i < njobs; i++) {
        const struct job *j = &jobs[i];
        zc_cost c = cost_of(j);
        out_csv_string(f, cur->name);
        fprintf(f, ",%s,", cur->read_as);
        out_csv_string(f, content_name());
        fputc(',', f);
        fprintf(f, "%" PRIu64 ",%s,", j->pc_pages, model_name());
        out_csv_string(f, j->spec[0] ? j->spec : "off");
        fprintf(f, ",%" PRIu64 ",", j->cap_bytes);
        if (!j->adaptive && o.memory)
            fprintf(f, "%g", j->share);
        fprintf(f, ",%s,%s,", j->adaptive ? "true" : "false",
                j->adaptive ? zc_adapt_controller_name(j->controller) : "");
        out_csv_string(f, j->have_zs ? j->config : "off");
        out_replay_csv(f, &j->st);
        fprintf(f, ",%" PRIu64, j->mrc_hits);
        out_zcache_csv(f, j->have_zs ? &j->zs : NULL);
        fprintf(f, ",%.3f,%.3f,%.3f,%.3f,%.1f,%.3f\n", c.compress_ms,
                c.wasted_ms, c.decompress_ms, c.cpu_ms,
                (double)o.prices.disk_ns / 1e3, c.saved_ms);
    }
}

/* The rows of the trace in view under their header. */
static void csv(FILE *f)
{
    csv_header(f);
    csv_rows(f);
}

/* One JSON row of the trace in view: rows[i]. */
static void json_row(const struct job *j, bool first)
{
    zc_cost c = cost_of(j);

    printf("%s\n {\"trace\":", first ? "" : ",");
    out_json_string(stdout, cur->name);
    printf(",\"format\":\"%s\",\"content\":", cur->read_as);
    out_json_string(stdout, content_name());
    printf(",\"page_cache_pages\":%" PRIu64
           ",\"page_cache_model\":\"%s\",\"zcache_spec\":",
           j->pc_pages, model_name());
    out_json_string(stdout, j->spec[0] ? j->spec : "off");
    printf(",\"capacity_bytes\":%" PRIu64 ",\"share_percent\":", j->cap_bytes);
    if (j->adaptive)
        printf("null,\"adaptive\":true,\"controller\":\"%s\"",
               zc_adapt_controller_name(j->controller));
    else if (o.memory)
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
           (double)o.prices.disk_ns / 1e3, c.saved_ms);
}

/* The --mrc curve of the trace in view, as a JSON object. */
static void json_curve(void)
{
    printf("{\"trace\":");
    out_json_string(stdout, cur->name);
    printf(",\"accesses\":%" PRIu64 ",\"distinct_pages\":%" PRIu64
           ",\"curve\":[",
           cur->curve_accesses, cur->curve_distinct);
    for (size_t i = 0; i < o.nmrc; i++)
        printf("%s{\"pages\":%" PRIu64 ",\"hits\":%" PRIu64 "}", i ? "," : "",
               o.mrc_pages[i], cur->curve_hits[i]);
    printf("]}");
}

/* Every trace's rows in one array; with --mrc, {"rows": [...], "mrc":
 * CURVE} for one trace and "mrc": [CURVE, ...] for several. */
static void json(void)
{
    bool curve = o.mrc_list && !units[0].is_ops;

    if (curve)
        printf("{\"rows\":");
    printf("[");
    for (size_t u = 0, n = 0; u < nunits; u++) {
        report_view(u);
        for (size_t i = 0; i < njobs; i++)
            json_row(&jobs[i], !n++);
    }
    printf("\n]");
    if (curve) {
        printf(",\"mrc\":%s", nunits > 1 ? "[" : "");
        for (size_t u = 0; u < nunits; u++) {
            report_view(u);
            if (u)
                printf(",\n");
            json_curve();
        }
        printf("%s}", nunits > 1 ? "]" : "");
    }
    printf("\n");
}

/* Whether static row k has the --set values of row j (a row without a
 * zcache goes with every one). */
static bool same_sets(const struct job *k, const struct job *j)
{
    const char *a = strchr(k->label, ' '), *b = strchr(j->label, ' ');

    return !k->spec[0] || !strcmp(a ? a : "", b ? b : "");
}

/* The static row of fewest disk reads, and of least cost: among those
 * with the --set values of row `like`, or all of them (NULL).  Row 0 is
 * share 0, which goes with every one. */
static size_t best_row(const struct job *like)
{
    size_t best = 0;

    for (size_t k = 1; k < nstatic; k++)
        if ((!like || same_sets(&jobs[k], like)) &&
            jobs[k].st.disk_reads < jobs[best].st.disk_reads)
            best = k;
    return best;
}

static size_t cheapest_row(const struct job *like)
{
    size_t cheapest = 0;

    for (size_t k = 1; k < nstatic; k++)
        if ((!like || same_sets(&jobs[k], like)) &&
            cost_of(&jobs[k]).saved_ms > cost_of(&jobs[cheapest]).saved_ms)
            cheapest = k;
    return cheapest;
}

static void table(void)
{
    size_t best = best_row(NULL);
    int w = 7; /* the zcache column: as wide as its widest label */

    for (size_t i = 0; i < njobs; i++)
        if ((int)strlen(jobs[i].label) > w)
            w = (int)strlen(jobs[i].label);
    if (*o.zbase)
        printf("every zcache: %s\n", o.zbase);
    printf("%-9s %-*s %8s %7s %7s %9s %7s %6s %7s %9s %9s %9s\n",
           o.memory ? "zc_share" : "pc_pages", w, "zcache", "accesses",
           "pc_hit%", "zc_hit%", "disk_reads", "in_mem%", "kept%", "density",
           "cpu_ms", "wasted_ms", "saved_ms");
    for (size_t i = 0; i < njobs; i++) {
        const struct job *j = &jobs[i];
        zc_cost c = cost_of(j);
        char first[32];
        if (j->adaptive)
            snprintf(first, sizeof(first), "adaptive");
        else if (o.memory)
            snprintf(first, sizeof(first), "%.1f%%", j->share);
        else if (j->ops)
            snprintf(first, sizeof(first), "-"); /* the stream's own */
        else
            snprintf(first, sizeof(first), "%" PRIu64, j->pc_pages);
        printf("%-9s %-*s %8" PRIu64 " %6.2f%% %6.2f%% %9" PRIu64
               " %6.2f%% %5.1f%% %7.3f %9.2f %9.2f %9.1f%s\n",
               first, w, j->spec[0] ? j->label : "off", j->st.accesses,
               pc_rate(&j->st), zc_rate(&j->st), j->st.disk_reads,
               mem_rate(&j->st), pct(j->st.zc_stored, j->st.zc_puts),
               density(&j->zs), c.cpu_ms, c.wasted_ms, c.saved_ms,
               o.memory && nstatic && i == best ? "  <- fewest disk reads"
                                                : "");
    }
    for (size_t i = nstatic; nstatic && i < njobs; i++) {
        const struct job *j = &jobs[i];
        zc_cost c = cost_of(j), cb;
        /* against the static rows of the same --set values (and "off") */
        size_t cheapest = cheapest_row(j);
        best = best_row(j);
        cb = cost_of(&jobs[cheapest]);
        printf("\n%s: %zu epochs; disk reads %.3f x the fewest of a static "
               "split (%.1f%%),\n  cost (disk reads x latency + cpu) %.3f x "
               "the least of one (%.1f%%)",
               j->label, j->nepochs,
               (double)j->st.disk_reads /
                   (double)(jobs[best].st.disk_reads ? jobs[best].st.disk_reads
                                                     : 1),
               jobs[best].share,
               ((double)j->st.disk_reads * (double)o.prices.disk_ns / 1e6 +
                c.cpu_ms) /
                   ((double)jobs[cheapest].st.disk_reads *
                        (double)o.prices.disk_ns / 1e6 +
                    cb.cpu_ms),
               jobs[cheapest].share);
    }
    if (njobs > nstatic && (!o.adapt.put_ns || !o.adapt.get_ns))
        printf("\n(the controllers priced with the CPU each run measured: "
               "another run, or a busy\nmachine, may split differently; "
               "--cpu-price put=T,get=T makes them reproducible)");
    if (njobs > nstatic)
        printf("\n");
}

/* What the table's columns mean: once, after every trace's table. */
static void table_footer(void)
{
    printf("\npc_hit%%, zc_hit%%, in_mem%%: shares of accesses whose page "
           "the page cache held,\nthe zcache held, either held (in_mem%% = "
           "pc_hit%% + zc_hit%%);\nkept%%: puts the zcache stored; density: "
           "compressed bytes / arena bytes in use\nat the end; "
           "saved_ms: %s x %.0f us\nof disk latency - cpu_ms (compress, "
           "wasted on rejects, decompress; %s).\n",
           baseline() ? "disk reads fewer than at share 0" : "zcache hits",
           (double)o.prices.disk_ns / 1e3,
           o.prices.put_ns ? "fixed prices, --cpu-price"
                           : "thread CPU time measured");
}

/* PREFIX.csv, PREFIX.dat and PREFIX.gp, then gnuplot if it is there. */
/* A row's --set combination: its label after the capacity ("" if none). */
static const char *combo_of(const struct job *j)
{
    const char *sp = strchr(j->label, ' ');

    return sp ? sp + 1 : "";
}

static void plot(void)
{
    char path[3][1100], msg[1400], name[256], mem[64];
    outfile out[3] = {{0}};
    int bad = 0;
    FILE *f;
    size_t ngroups = 0, ncombos = 0;
    double lo = 100, hi = 0; /* the shares swept */

    snprintf(path[0], sizeof(path[0]), "%s.csv", cur->plot);
    snprintf(path[1], sizeof(path[1]), "%s.dat", cur->plot);
    snprintf(path[2], sizeof(path[2]), "%s.gp", cur->plot);
    if (!(f = outfile_open(&out[0], path[0])))
        goto fail;
    csv(f);
    if (outfile_close(&out[0]))
        goto fail;
    bad = 1;
    if (!(f = outfile_open(&out[1], path[1])))
        goto fail;
    if (o.memory) {
        /* One block per --set combination: its static shares (the share
         * without a zcache, which all combinations share, first); then
         * one block per adaptive row (no share of its own): its disk
         * reads as a level across the shares swept. */
        bool any_zc = false;
        for (size_t i = 0; i < njobs; i++)
            any_zc |= jobs[i].share >= 0 && jobs[i].cap_bytes;
        for (size_t i = 0; i < njobs; i++) {
            bool seen = false;
            if (jobs[i].share < 0 || (!jobs[i].cap_bytes && any_zc))
                continue;
            for (size_t k = 0; k < i; k++)
                seen |= jobs[k].share >= 0 && jobs[k].cap_bytes &&
                        !strcmp(combo_of(&jobs[k]), combo_of(&jobs[i]));
            if (seen)
                continue;
            fprintf(f, "%s\"%s\"\n", ncombos++ ? "\n\n" : "",
                    *combo_of(&jobs[i]) ? combo_of(&jobs[i]) : "memory split");
            for (size_t k = 0; k < njobs; k++) {
                const struct job *j = &jobs[k];
                if (j->share < 0 ||
                    (j->cap_bytes && strcmp(combo_of(j), combo_of(&jobs[i]))))
                    continue;
                if (j->share < lo)
                    lo = j->share;
                if (j->share > hi)
                    hi = j->share;
                fprintf(f, "%.2f %" PRIu64 " %.3f %.3f %.3f\n", j->share,
                        j->st.disk_reads, pc_rate(&j->st), zc_rate(&j->st),
                        mem_rate(&j->st));
            }
        }
        ngroups = ncombos;
        for (size_t i = 0; i < njobs; i++)
            if (jobs[i].share < 0) {
                fprintf(f, "\n\n\"adaptive%s%s\"\n",
                        *combo_of(&jobs[i]) ? ", " : "", combo_of(&jobs[i]));
                fprintf(f, "%.2f %" PRIu64 "\n%.2f %" PRIu64 "\n", lo,
                        jobs[i].st.disk_reads, hi, jobs[i].st.disk_reads);
                ngroups++;
            }
    } else {
        /* One block per line of the plot: a group's rows by capacity, its
         * page cache's row without a zcache first. */
        for (size_t i = 0; i < njobs; i++) {
            bool seen = false;
            if (!jobs[i].cap_bytes)
                continue;
            for (size_t k = 0; k < i; k++)
                seen |=
                    jobs[k].cap_bytes && !strcmp(jobs[k].group, jobs[i].group);
            if (seen)
                continue;
            fprintf(f, "%s\"%s\"\n", ngroups++ ? "\n\n" : "", jobs[i].group);
            for (size_t k = 0; k < njobs; k++) {
                const struct job *j = &jobs[k];
                if ((j->cap_bytes && strcmp(j->group, jobs[i].group)) ||
                    j->pc_pages != jobs[i].pc_pages || (!j->cap_bytes && k > i))
                    continue;
                fprintf(f, "%.4f %.3f %.3f %.3f\n",
                        (double)j->cap_bytes / 1048576.0, pc_rate(&j->st),
                        zc_rate(&j->st), mem_rate(&j->st));
            }
        }
    }
    if (outfile_close(&out[1]))
        goto fail;
    bad = 2;
    if (!(f = outfile_open(&out[2], path[2])))
        goto fail;
    plot_header(f, NAME, cur->plot, path[1]);
    plot_traces_text(name, sizeof(name), cur->paths, cur->npaths);
    plot_text(mem, sizeof(mem), o.memory ? o.memory : "");
    fprintf(f, "set datafile commentschars '#'\nset key below\n"
               "set grid\n");
    for (int t = 0; t < PLOT_TERMINALS; t++) {
        plot_terminal(f, cur->plot, t);
        if (o.memory) {
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
                        cur->plot);
            else
                /* several: their disk reads, one colour each */
                fprintf(f,
                        "plot for [i=0:%zu] '%s.dat' index i using 1:2 with "
                        "linespoints lw 2 lc i+1 title columnheader(1)",
                        ncombos - 1, cur->plot);
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
                for (size_t i = 0; i < njobs; i++)
                    if (jobs[i].cap_bytes) {
                        plot_text(group, sizeof(group), jobs[i].group);
                        break;
                    }
                fprintf(f, "set title '%s, %s: hits against zcache size'\n",
                        name, group);
                if (!strcmp(cur->read_as, "zct")) {
                    /* an op stream's page cache is the recorded one: its
                     * hits are not played, only the zcache's */
                    fprintf(f,
                            "plot '%s.dat' index 0 using 1:3 with linespoints "
                            "lw 2 lc 2 title 'zcache hits'\n",
                            cur->plot);
                    continue;
                }
                fprintf(f,
                        "plot '%s.dat' index 0 using 1:4 with linespoints "
                        "lw 2 lc 1 title 'both tiers (in memory)', '' index 0 "
                        "using 1:3 with linespoints lw 2 dashtype 2 lc 2 "
                        "title 'zcache', '' index 0 using 1:2 with lines lw 2 "
                        "dashtype 3 lc 3 title 'page cache'\n",
                        cur->plot);
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
                    name, ngroups ? ngroups - 1 : 0, cur->plot,
                    ngroups ? ngroups - 1 : 0, ngroups ? ngroups - 1 : 0);
        }
    }
    if (outfile_close(&out[2]))
        goto fail;
    plot_run(NAME, cur->plot);
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
static void plot_together(void)
{
    size_t n = njobs - nstatic, best = best_row(NULL),
           cheapest = cheapest_row(NULL);
    const char **csvs = calloc(n, sizeof(*csvs)),
               **titles = calloc(n, sizeof(*titles));
    char *names = calloc(n, 1100), prefix[1100], line[2][64], label[256];
    const char *lt[2] = {line[0], line[1]};
    double ls[2];
    size_t nl = 0;

    if (!csvs || !titles || !names)
        die(1, "%s", "out of memory");
    plot_traces_text(label, sizeof(label), cur->paths, cur->npaths);
    for (size_t i = 0; i < n; i++) {
        snprintf(names + i * 1100, 1100, "%s-adaptive-%zu.csv", cur->plot,
                 i + 1);
        csvs[i] = names + i * 1100;
        titles[i] = jobs[nstatic + i].label;
    }
    snprintf(prefix, sizeof(prefix), "%s-adaptive", cur->plot);
    if (nstatic) {
        snprintf(line[nl], sizeof(line[nl]),
                 "static %.1f%% (fewest disk reads)", jobs[best].share);
        ls[nl++] = jobs[best].share;
    }
    if (nstatic && cheapest != best) {
        snprintf(line[nl], sizeof(line[nl]), "static %.1f%% (least cost)",
                 jobs[cheapest].share);
        ls[nl++] = jobs[cheapest].share;
    }
    if (split_log_plot_together(NAME, prefix, label, o.memory, csvs, titles, n,
                                ls, lt, nl))
        exit(1);
    free(csvs);
    free(titles);
    free(names);
}

/* The --mrc curve of the trace in view, as a text table. */
static void table_curve(void)
{
    printf("\nLRU curve of the page cache (one pass, %" PRIu64
           " accesses, %" PRIu64 " distinct pages):\n%12s %12s %9s\n",
           cur->curve_accesses, cur->curve_distinct, "pages", "hits", "hit%");
    for (size_t i = 0; i < o.nmrc; i++)
        printf("%12" PRIu64 " %12" PRIu64 " %8.4f%%\n", o.mrc_pages[i],
               cur->curve_hits[i],
               pct(cur->curve_hits[i], cur->curve_accesses));
}

/* The plots of the trace in view (--plot). */
static void plots(void)
{
    char label[256];

    plot_traces_text(label, sizeof(label), cur->paths, cur->npaths);
    for (size_t i = nstatic; i < njobs; i++) {
        char prefix[1200];
        snprintf(prefix, sizeof(prefix), "%s-adaptive%s%zu", cur->plot,
                 njobs - nstatic > 1 ? "-" : "",
                 njobs - nstatic > 1 ? i - nstatic + 1 : 0);
        if (njobs - nstatic == 1)
            snprintf(prefix, sizeof(prefix), "%s-adaptive", cur->plot);
        char what[512]; /* the memory, and the row's --set combination */
        snprintf(what, sizeof(what), "%s%s%s", o.memory,
                 *combo_of(&jobs[i]) ? ", " : "", combo_of(&jobs[i]));
        if (split_log_plot(NAME, prefix, label, what, jobs[i].epochs,
                           jobs[i].nepochs, o.page_size))
            exit(1);
    }
    if (njobs - nstatic > 1)
        plot_together();
    if (nstatic)
        plot();
}

void report_view(size_t u)
{
    cur = &units[u];
    jobs = rows + cur->first;
    njobs = cur->n;
    nstatic = cur->nstatic;
}

void report_output(void)
{
    for (size_t u = 0; o.plot && u < nunits; u++) {
        report_view(u);
        plots();
    }
    if (!strcmp(o.output, "csv")) {
        csv_header(stdout);
        for (size_t u = 0; u < nunits; u++) {
            report_view(u);
            csv_rows(stdout);
        }
    } else if (!strcmp(o.output, "json")) {
        json();
    } else {
        for (size_t u = 0; u < nunits; u++) {
            report_view(u);
            if (nunits > 1)
                printf("%s== %s\n", u ? "\n" : "", cur->name);
            table();
            if (o.mrc_list && !cur->is_ops && nunits > 1)
                table_curve();
        }
        table_footer();
        if (o.mrc_list && !cur->is_ops && nunits == 1)
            table_curve();
    }
}
