/*
 * split_log.h - an adaptive run's split over time, written for people:
 * the epochs as CSV, and a gnuplot script (run when gnuplot is there)
 * that draws the zcache's share of memory and the disk reads per epoch.
 * Shared by zcache-replay and zcache-sweep.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_TOOLS_SPLIT_LOG_H
#define ZC_TOOLS_SPLIT_LOG_H

#include <stdio.h>

#include "zcache_sim.h"

/** The epochs as CSV: one header line, one line per epoch. */
void split_log_csv(FILE *f, const zc_adapt_epoch *e, size_t n,
                   size_t page_size);

/** PREFIX.csv and PREFIX.gp, then gnuplot for PREFIX.png and .svg if it
 *  is installed (else a note on stderr).  title names the run.  Returns 0,
 *  or -1 after a message on stderr naming the file that cannot be
 *  written; then neither file is left (outfile.h: a regular file only). */
int split_log_plot(const char *prog, const char *prefix, const char *trace,
                   const char *memory, const zc_adapt_epoch *e, size_t n,
                   size_t page_size);

/** PREFIX.gp drawing several adaptive runs' shares over time on one graph
 *  (csvs[i], written by split_log_plot(), titled titles[i]), with static
 *  splits' shares (line_shares[i] %, titled line_titles[i]) as level
 *  lines; then gnuplot as above.  Returns 0 or -1 after a message on
 *  stderr. */
int split_log_plot_together(const char *prog, const char *prefix,
                            const char *trace, const char *memory,
                            const char *const *csvs, const char *const *titles,
                            size_t n, const double *line_shares,
                            const char *const *line_titles, size_t nlines);

#endif
