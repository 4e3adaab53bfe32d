/*
 * sweep.h - what the three parts of zcache-sweep share: the options, the
 * traces of a collection, the rows and the work they are split into.
 *
 *   zcache-sweep.c   the command line, the rows, running the work
 *   sweep_report.c   the table, CSV, JSON and plots of finished rows
 *   sweep_plan.c     a sweep as a plan of jobs in a directory: the
 *                    manifest, each job's rows written atomically, the
 *                    merge that reads them back
 *
 * Data layout: `rows[0..nrows)` holds every row of the sweep, trace by
 * trace (a trace's rows are contiguous: its static rows, then its
 * adaptive ones).  `works[0..nworks)` cuts them into the units of work
 * that run alone: one trace at one page-cache size (its configurations
 * share one model pass and one compression memo), an adaptive row, or
 * all rows of an op stream.  Numbering is the order the rows are made in,
 * which depends on the command line only: a plan's job N is the same
 * rows in every process that parses the same arguments.
 *
 * The report writers see one trace at a time: report_view(u) points
 * `jobs`, `njobs`, `nstatic` and `cur` at the rows of trace u.
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
#define MAX_LIST 64
#define MAX_SETS 8

/* One trace of a collection: one file, or (--join) all of them played
 * as one stream. */
struct unit {
    const char **paths;
    size_t npaths;
    char *name;          /* the trace column: the paths, space-separated */
    const char *format;  /* --format, or the manifest's; NULL: sniffed */
    const char *content; /* the content source, resolved */
    bool content_set;    /* given (--content or the manifest), not found */
    char *origin;        /* "FILE:LINE" of its manifest line, or NULL */
    const char *read_as; /* the format read ("zct" for an op stream) */
    bool is_ops;
    uint64_t requests;        /* its requests, once a pass has counted them */
    char plot[1024];          /* its plots' prefix (--plot, or PREFIX-NAME) */
    size_t first, nstatic, n; /* its rows: rows[first..first+n) */
    /* The LRU curve at the --mrc sizes, from its first work's pass. */
    bool have_curve;
    uint64_t curve_accesses, curve_distinct, curve_hits[MAX_LIST];
    char content_buf[4096];
};

/* A row: one configuration of one trace, and what running it gave. */
struct job {
    size_t unit; /* its trace: units[unit] */
    uint64_t pc_pages;
    const char *ops;     /* the stream to play */
    char spec[512];      /* the zcache spec; "" = off */
    double share;        /* memory-split mode: the zcache's share, % */
    uint64_t cap_bytes;  /* the zcache's capacity, 0: off */
    char group[256];     /* the spec without its capacity: a plot's line */
    char label[256];     /* what this row varies: capacity and --set values */
    bool adaptive;       /* a run of the controller over all of M */
    unsigned controller; /* its zc_adapt_options.controller */
    /* --- what running it gave (sweep_plan.c writes and reads these) --- */
    zc_replay_stats st;
    zc_stats zs;
    bool have_zs;
    char config[512]; /* the zcache's resolved configuration */
    char compressor[32];
    uint64_t mrc_hits; /* the LRU curve's hits at pc_pages */
    int rc;
    char err[1024];
    zc_adapt_epoch *epochs; /* its split over time */
    size_t nepochs;
    /* --- while it runs --- */
    zc_cache *zc;
    zc_player *player;
};

/* A unit of work: rows[first..first+n) of one trace. */
enum work_kind { WORK_GROUP, WORK_ADAPTIVE, WORK_OPS };
struct work {
    enum work_kind kind;
    size_t unit, first, n;
    bool curve; /* the trace's first: it records the --mrc curve */
};

struct sweep_options {
    const char *format, *content, *output, *zbase, *memory, *plot;
    char zcap[32];  /* without --capacity: the rows' capacity ("0": none) */
    char *mrc_list; /* page-cache sizes to print the LRU curve at */
    uint64_t mrc_pages[MAX_LIST]; /* ... in pages */
    size_t nmrc;
    const char *model; /* page-cache model (NULL: lru) */
    uint64_t ra_kb;    /* --read-ahead-kb */
    bool ra_set;
    zc_prices prices; /* --disk-latency and --cpu-price (0: measured) */
    uint64_t memo_mb; /* the compression memo's size, MiB; 0: none */
    size_t page_size;
    char *pc_list, *cap_list, *share_list;
    char *set_key[MAX_SETS], *set_vals[MAX_SETS];
    char *set_v[MAX_SETS][MAX_LIST]; /* each --set list, split once */
    size_t set_n[MAX_SETS];
    bool set_cap[MAX_SETS]; /* the key is the capacity (or an alias) */
    int nsets, jobs;
    bool jobs_set;
    const char **traces; /* the command line's traces and directories */
    size_t ntraces;
    const char *manifest; /* --manifest FILE, or NULL */
    bool join;            /* --join: every trace one stream */
    bool adaptive, content_set;
    zc_adapt_options adapt;
    unsigned ctl[3]; /* --adaptive=LIST: the controllers, in order */
    int nctl;        /* 0: --adapt's (the model by default) */
    /* --plan DIR, --run-job DIR N, --merge DIR: at most one */
    const char *plan_dir, *run_dir, *merge_dir;
    int plan_argi; /* argv[plan_argi] is --plan */
    size_t run_job;
};

extern struct sweep_options o;
extern struct unit *units;
extern size_t nunits;
extern struct job *rows;
extern size_t nrows;
extern struct work *works;
extern size_t nworks;

/* The report's view: the rows of one trace (report_view()). */
extern struct job *jobs;
extern size_t njobs, nstatic;
extern const struct unit *cur;

/* zcache-sweep.c */
uint64_t size_arg(const char *s, bool pages, const char *what);
size_t split_list(char *list, char **out, bool ranges, const char *what);

/* sweep_report.c */
double pct(uint64_t a, uint64_t b);
void report_view(size_t u);
/* Every output the options ask for (table, CSV or JSON on stdout; the
 * plots), of every trace. */
void report_output(void);

/* sweep_plan.c: the work of a plan directory (README: Many traces, many
 * machines).  Each exits with a message on failure. */
void plan_write(const char *dir, int argc, char **argv);
/* argv is "--run-job DIR N [--jobs N]" or "--merge DIR [--output F]
 * [--plot P]": replaced by the plan's arguments (and those options), and
 * the process moves to the directory the plan was made in.  For
 * --run-job, every error exit from here on records the job as failed. */
void plan_command(int *argc, char ***argv);
/* Exit (status 2) unless the plan in dir still describes what its
 * arguments make now (the traces and packs unchanged since --plan). */
void plan_check(const char *dir);
/* Write job n's rows (after running them) atomically into the plan; a
 * failed row is written as the job's failure.  Returns the job's status. */
int plan_save_job(const char *dir, size_t n, double seconds);
/* Read every job's rows back; a missing or failed job is listed by
 * number, and the merge then exits 1. */
void plan_load_all(const char *dir);

#endif
