/*
 * split_log.c - an adaptive run's split over time, as CSV and a plot.
 *
 * A row per epoch of the controller (zc_adapt_epoch): when it ended, the
 * split in force, the split chosen next, what the model expected, the CPU
 * costs it used and the run's counters, plus the disk reads of the epoch
 * alone (the difference of the counters), which is what the plot draws
 * against the zcache's share.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "plot.h"
#include "split_log.h"

void split_log_csv(FILE *f, const zc_adapt_epoch *e, size_t n, size_t page_size)
{
    fprintf(f, "accesses,pc_pages,zc_bytes,zc_share_percent,next_pc_pages,"
               "next_zc_bytes,est_disk_reads,est_cost_ms,put_ns,get_ns,"
               "disk_reads,zc_hits,pc_hits,epoch_disk_reads\n");
    for (size_t i = 0; i < n; i++) {
        double m =
            (double)e[i].pc_pages * (double)page_size + (double)e[i].zc_bytes;
        fprintf(f,
                "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.1f,%" PRIu64 ",%" PRIu64
                ",%.1f,%.3f,%.0f,%.0f,%" PRIu64 ",%" PRIu64 ",%" PRIu64
                ",%" PRIu64 "\n",
                e[i].accesses, e[i].pc_pages, e[i].zc_bytes,
                m > 0 ? 100.0 * (double)e[i].zc_bytes / m : 0.0,
                e[i].next_pc_pages, e[i].next_zc_bytes, e[i].est_disk_reads,
                e[i].est_cost_ns / 1e6, e[i].put_ns, e[i].get_ns,
                e[i].disk_reads, e[i].zc_hits, e[i].pc_hits,
                e[i].disk_reads - (i ? e[i - 1].disk_reads : 0));
    }
}

int split_log_plot_together(const char *prog, const char *prefix,
                            const char *trace, const char *memory,
                            const char *const *csvs, const char *const *titles,
                            size_t n, const double *line_shares,
                            const char *const *line_titles, size_t nlines)
{
    char gp[1024], name[256], mem[512], t[256];
    outfile og = {0};
    FILE *f;

    plot_text(name, sizeof(name), trace);
    plot_text(mem, sizeof(mem), memory);
    if (snprintf(gp, sizeof(gp), "%s.gp", prefix) >= (int)sizeof(gp)) {
        fprintf(stderr, "%s: --plot %s: the name is too long\n", prog, prefix);
        return -1;
    }
    if (!(f = outfile_open(&og, gp))) {
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, gp, strerror(errno));
        return -1;
    }
    plot_header(f, prog, prefix, n ? csvs[0] : "");
    fprintf(f, "set datafile separator ','\nset key below\n"
               "set grid\nset xlabel 'page accesses'\n"
               "set ylabel 'zcache share of memory (%%)'\n"
               "set yrange [-2:102]\n");
    for (int k = 0; k < PLOT_TERMINALS; k++) {
        plot_terminal(f, prefix, k);
        fprintf(f, "set title '%s: the split of memory %s over time'\nplot ",
                name, mem);
        for (size_t i = 0; i < n; i++) {
            plot_text(t, sizeof(t), titles[i]);
            fprintf(f, "%s'%s' every ::1 using 1:4 with steps lw 2 title '%s'",
                    i ? ", " : "", csvs[i], t);
        }
        for (size_t i = 0; i < nlines; i++) {
            plot_text(t, sizeof(t), line_titles[i]);
            fprintf(f, "%s%g with lines dt %zu lw 2 title '%s'",
                    n || i ? ", " : "", line_shares[i], i + 2, t);
        }
        fprintf(f, "\n");
    }
    if (outfile_close(&og)) {
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, gp, strerror(errno));
        outfile_discard(&og);
        return -1;
    }
    plot_run(prog, prefix);
    return 0;
}

int split_log_plot(const char *prog, const char *prefix, const char *trace,
                   const char *memory, const zc_adapt_epoch *e, size_t n,
                   size_t page_size)
{
    char csv[1024], gp[1024];
    outfile oc = {0}, og = {0};
    const char *bad = csv;
    char name[256], mem[512];
    FILE *f;

    plot_text(name, sizeof(name), trace);
    plot_text(mem, sizeof(mem), memory);
    if (snprintf(csv, sizeof(csv), "%s.csv", prefix) >= (int)sizeof(csv) ||
        snprintf(gp, sizeof(gp), "%s.gp", prefix) >= (int)sizeof(gp)) {
        fprintf(stderr, "%s: --plot %s: the name is too long\n", prog, prefix);
        return -1;
    }
    if (!(f = outfile_open(&oc, csv)))
        goto fail;
    split_log_csv(f, e, n, page_size);
    if (outfile_close(&oc))
        goto fail;
    bad = gp;
    if (!(f = outfile_open(&og, gp)))
        goto fail;
    plot_header(f, prog, prefix, csv);
    fprintf(f, "set datafile separator ','\nset key below\n"
               "set grid\nset xlabel 'page accesses'\n"
               "set ylabel 'zcache share of memory (%%)'\n"
               "set yrange [0:100]\nset y2label 'disk reads per epoch'\n"
               "set y2tics\n");
    for (int t = 0; t < PLOT_TERMINALS; t++) {
        plot_terminal(f, prefix, t);
        fprintf(f,
                "set title '%s: adaptive split of memory %s'\n"
                "plot '%s' every ::1 using 1:4 with steps lw 2 "
                "title 'zcache share', '' every ::1 using 1:14 axes x1y2 "
                "with lines title 'disk reads'\n",
                name, mem, csv);
    }
    if (outfile_close(&og))
        goto fail;
    plot_run(prog, prefix);
    return 0;
fail:
    fprintf(stderr, "%s: cannot write %s: %s\n", prog, bad, strerror(errno));
    outfile_discard(&oc);
    outfile_discard(&og);
    return -1;
}
