/*
 * sweep.h - what the three parts of zcache-sweep share, over the
 * library's sweep (zcache_sim.h: zc_sweep_*), which makes the rows and
 * runs them.
 *
 *   zcache-sweep.c   the command line, the collection, running
 *   sweep_report.c   the table, CSV, JSON and plots of finished rows (the
 *                    one writer for a local run and a merge, so the two
 *                    are the same bytes)
 *   sweep_plan.c     --plan, --run-job and --merge over the library's
 *                    plan directory: the arguments, the job's summary,
 *                    the merge's list of what is missing
 *
 * No globals: the command line is a struct sweep_args, passed along.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_TOOLS_SWEEP_H
#define ZC_TOOLS_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zcache.h"
#include "zcache_sim.h"

#define NAME "zcache-sweep"
#define MAX_SETS 8

/* The command line: the library's options, and what only the tool does. */
struct sweep_args {
    zc_sweep_options so;
    const char *sets[MAX_SETS];
    unsigned ctl[3];
    const char *output; /* text, csv, json */
    const char *plot;   /* --plot PREFIX, or NULL */
    const char *manifest;
    const char **traces; /* files and directories, as given */
    size_t ntraces;
    bool jobs_set;
    /* --plan DIR, --run-job DIR N, --merge DIR: at most one */
    const char *plan_dir, *run_dir, *merge_dir;
    int plan_argi; /* argv[plan_argi] is --plan */
    size_t run_job;
    uint64_t plan_id; /* the plan run or merged */
    char **plots;     /* each trace's plot prefix (--plot) */
};

/* sweep_report.c: every output the options ask for (table, CSV or JSON on
 * stdout; the plots), of every trace. */
void report_output(const zc_sweep *sw, const struct sweep_args *a);

/* sweep_plan.c.  argv is "--run-job DIR N [--jobs N]" or "--merge DIR
 * [--output F] [--plot P]": replaced by the plan's arguments (and those
 * options), and the process moves to the directory the plan was made in.
 * For --run-job, every error exit from here on records the job as
 * failed. */
void plan_command(int *argc, char ***argv, struct sweep_args *a);
/* --plan: write it, say how to run it. */
void plan_write(zc_sweep *sw, const struct sweep_args *a, int argc,
                char **argv);
/* --run-job: exit (2) unless the plan still describes what its arguments
 * make now, before the work. */
void plan_job_check(zc_sweep *sw, const struct sweep_args *a);
/* --run-job, after the run: save the job's rows (or its failure), say so
 * on stderr; the exit status. */
int plan_job_save(zc_sweep *sw, const struct sweep_args *a, double seconds);
/* --merge: every job's rows, or exit 1 listing the jobs not done. */
void plan_merge(zc_sweep *sw, const struct sweep_args *a);

#endif
