/*
 * sweep.h - what the three parts of zcache-sweep share, over the
 * library's sweep (zcache_sim.h: zc_sweep_*), which makes the rows and
 * runs them.
 *
 *   zcache-sweep.c   the command line, the collection, running
 *   sweep_report.c   the table, CSV and JSON of finished rows (the one
 *                    writer for a local run and a merge, so the two are
 *                    the same bytes)
 *   sweep_plot.c     their plots
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
#include <stdio.h>

#include "zcache.h"
#include "zcache_sim.h"

#define NAME "zcache-sweep"
#define MAX_SETS 8
/* The most worker threads a sweep takes: --jobs's bound, and what a
 * --run-job given more CPUs by Slurm (SLURM_CPUS_PER_TASK) runs. */
#define MAX_THREADS 64

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
    int plan_argi;             /* argv[plan_argi] is --plan */
    size_t run_job, plan_jobs; /* the job run, of the plan's jobs */
    uint64_t plan_id;          /* the plan run or merged */
    void *plan_mem[4];         /* plan_command()'s, freed at the end */
    char **plots;              /* each trace's plot prefix (--plot) */
};

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

/* sweep_report.c: every output the options ask for (table, CSV or JSON on
 * stdout; the plots), of every trace; and what the plots share with it:
 * the view of trace u, a row's rates (zc_replay_rates()) and costs
 * (zc_sweep_row_cost()), the CSV of the view, the static rows of fewest
 * disk reads and of least cost (among those with like's --set values, or
 * all: NULL). */
void report_output(const zc_sweep *sw, const struct sweep_args *a);
struct view view_of(const zc_sweep *sw, const struct sweep_args *a, size_t u);
zc_rates rates(const zc_sweep_row *j);
zc_cost cost_of(const struct view *v, const zc_sweep_row *j);
void csv(const struct view *v, FILE *f);
size_t best_row(const struct view *v, const zc_sweep_row *like);
size_t cheapest_row(const struct view *v, const zc_sweep_row *like);

/* sweep_plot.c: each trace's plot prefix (--plot PREFIX: PREFIX for one
 * trace, PREFIX-NAME for several), refused when a plot file would be an
 * input; the plots of the view. */
void plot_prefixes(const zc_sweep *sw, struct sweep_args *a);
void sweep_plots(const struct view *v);

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
