/*
 * fidelity_report.h - zcache-fidelity's outputs, from a fidelity run's
 * result (zc_fidelity_get(), zcache_sim.h): the text tables, the JSON
 * (one object per model and size mode, the keys --help lists) and the
 * plot of zcache hits against capacity.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_TOOLS_FIDELITY_REPORT_H
#define ZC_TOOLS_FIDELITY_REPORT_H

#include <stdio.h>

#include "zcache_sim.h"

/** The text: the recording, a table of the measures (one row per model
 *  and size mode), a table of zcache hits (one row per capacity). */
void fidelity_text(FILE *out, const zc_fidelity_result *res);

/** The JSON array, one object per model and size mode. */
void fidelity_json(FILE *out, const zc_fidelity_result *res);

/** PREFIX.dat and PREFIX.gp, then gnuplot (plot.h): zcache hits against
 *  capacity, the kernel's curve and every row's on one plot, a hue per
 *  model by its place among the rows' models (the --model order).  A file
 *  that cannot be written: both removed, then die() (cli.h) as prog. */
void fidelity_plot(const char *prog, const char *prefix,
                   const zc_fidelity_result *res);

#endif
