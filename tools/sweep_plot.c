/*
 * sweep_plot.c - zcache-sweep's plots (--plot): each trace's prefix, and
 * its files: PREFIX.csv (the rows), PREFIX.dat and PREFIX.gp, then gnuplot
 * if it is there; an adaptive row's split over time (PREFIX-adaptive*),
 * and with several, all of them against the best static split.  No plot
 * file is ever written over an input of the run.
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
#include "sweep.h"

/* Each trace's plot prefix: --plot's for one trace, PREFIX-NAME for
 * several (NAME its file name; PREFIX-N-NAME where two share one); no
 * plot file over an input. */
void plot_prefixes(const zc_sweep *sw, struct sweep_args *a)
{
    static const char *const files[] = {
        ".csv",         ".dat",          ".gp",
        ".png",         ".svg",          "-adaptive.csv",
        "-adaptive.gp", "-adaptive.png", "-adaptive.svg"};
    size_t n;
    const zc_sweep_trace *u = zc_sweep_traces(sw, &n);

    if (!a->plot)
        return;
    if (!(a->plots = calloc(n, sizeof(*a->plots))))
        die(1, "%s", "out of memory");
    for (size_t i = 0; i < n; i++) {
        const char *base = strrchr(u[i].paths[0], '/');
        bool twice = false;
        size_t len;
        base = base ? base + 1 : u[i].paths[0];
        for (size_t k = 0; k < n && n > 1; k++) {
            const char *b = strrchr(u[k].paths[0], '/');
            twice |= k != i && !strcmp(b ? b + 1 : u[k].paths[0], base);
        }
        len = strlen(a->plot) + strlen(base) + 32;
        if (!(a->plots[i] = malloc(len)))
            die(1, "%s", "out of memory");
        if (n == 1)
            snprintf(a->plots[i], len, "%s", a->plot);
        else if (twice)
            snprintf(a->plots[i], len, "%s-%zu-%s", a->plot, i + 1, base);
        else
            snprintf(a->plots[i], len, "%s-%s", a->plot, base);
        if (strlen(a->plots[i]) > PLOT_PREFIX_MAX)
            die(2,
                "--plot %s: with %s's name, more than " PLOT_STR(
                    PLOT_PREFIX_MAX) " bytes",
                a->plot, u[i].paths[0]);
    }
    for (size_t i = 0; i < n; i++) {
        size_t nad = u[i].nrows - u[i].nstatic;
        for (size_t k = 0; k < n; k++)
            outfile_refuse_clash("--plot", a->plots[i], files, 9, u[k].paths,
                                 u[k].npaths,
                                 u[k].is_ops ? NULL : u[k].content);
        for (size_t r = 0; nad > 1 && r < nad; r++) {
            /* each adaptive row's plot files too */
            static const char *const ext[] = {"csv", "gp", "png", "svg"};
            char suffix[4][64];
            const char *const sp[4] = {suffix[0], suffix[1], suffix[2],
                                       suffix[3]};
            for (int e = 0; e < 4; e++)
                snprintf(suffix[e], sizeof(suffix[e]), "-adaptive-%zu.%s",
                         r + 1, ext[e]);
            for (size_t k = 0; k < n; k++)
                outfile_refuse_clash("--plot", a->plots[i], sp, 4, u[k].paths,
                                     u[k].npaths,
                                     u[k].is_ops ? NULL : u[k].content);
        }
    }
}

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

/* The plots of the trace in view (--plot). */
void sweep_plots(const struct view *v)
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
