/*
 * sim/sweep/sweep.h - what the files of a sweep share: the object, its
 * traces, rows and jobs, and the text helpers of its saved files.
 *
 *   sweep.c   options and lists, preparing, what the sweep holds
 *   collect.c the traces of a collection (files, directories, manifests,
 *             joined), each settled as a session opens it
 *   rows.c    the rows the lists make, and the jobs that run them
 *   run.c     running jobs: a group through one session and a fan-out, an
 *             adaptive row through a session of its own, an op stream's
 *             rows a session each; the worker threads
 *   prices.c  the adaptive rows' CPU prices, fixed before any row runs
 *   plan.c    a sweep as a plan of jobs in a directory: the fingerprint,
 *             the prices, each job's rows written atomically, the merge
 *   text.c    a growing text and a cursor over one, for plan.c
 *
 * Data layout: rows[0..nrows) holds every row, trace by trace (a trace's
 * rows are contiguous: its static rows, then its adaptive ones); jobs[]
 * cuts them into the units of work that run alone (one trace at one
 * page-cache size: one model pass and one memo; an adaptive row; all rows
 * of an op stream).  Numbering is the order the rows are made in, which
 * depends on the options and the traces only: a plan's job N is the same
 * rows in every process that makes the same sweep.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_SIM_SWEEP_SWEEP_H
#define ZC_SIM_SWEEP_SWEEP_H

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#include "zcache_sim.h"

#define ZC__SWEEP_MAX_LIST 64
#define ZC__SWEEP_MAX_SETS 8

/* A trace of the collection: the strings its public view (tpub[], the
 * same index) points at.  Small until it is settled (a job's sweep holds
 * every trace of a large collection, and settles one). */
struct zc__sweep_trace {
    char **paths; /* owned */
    char *name, *format, *content, *origin, *read_as;
    char *used;           /* the content source settled on (owned) */
    uint64_t *curve_hits; /* [nmrc] (owned), once prepared */
};

/* A row: the strings its public view (rpub[], the same index) points at,
 * and what it holds while it runs. */
struct zc__sweep_row {
    char spec[512], group[256], label[256], config[512], compressor[32];
    char err[1024];
    zc_adapt_epoch *epochs;
    /* while it runs */
    zc_cache *zc;
    zc_player *player;
};

struct zc_sweep {
    zc_sweep_options o;
    /* the options' strings, copied */
    char *format, *content, *model, *zbase, *memory, *pc_list, *cap_list,
        *share_list, *mrc_list;
    char *set_key[ZC__SWEEP_MAX_SETS], *set_vals[ZC__SWEEP_MAX_SETS];
    char *set_v[ZC__SWEEP_MAX_SETS][ZC__SWEEP_MAX_LIST];
    size_t set_n[ZC__SWEEP_MAX_SETS];
    bool set_cap[ZC__SWEEP_MAX_SETS]; /* the key sets the capacity */
    int nsets;
    unsigned ctl[3];
    int nctl;
    char zcap[32]; /* without a capacity list: the rows' capacity */
    uint64_t memory_bytes;
    char *pcs[ZC__SWEEP_MAX_LIST], *caps[ZC__SWEEP_MAX_LIST],
        *shares[ZC__SWEEP_MAX_LIST];
    size_t npc, ncap, nshare;
    char range_vals[8 * ZC__SWEEP_MAX_LIST][24]; /* ranges, written out */
    size_t nrange_vals;
    uint64_t mrc_pages[ZC__SWEEP_MAX_LIST];
    size_t nmrc;
    /* the collection */
    struct zc__sweep_trace *traces;
    zc_sweep_trace *tpub;
    size_t ntraces, maxtraces;
    bool prepared, prepare_failed;
    bool page_size_given; /* by the caller: an op stream's must be it */
    /* the rows and the jobs */
    struct zc__sweep_row *rows;
    zc_sweep_row *rpub;
    size_t nrows, maxrows;
    zc_sweep_job *jobs;
    size_t njobs;
    size_t making; /* the trace whose rows are being made */
    /* Making a trace's rows: pos counts them, shape[] keeps each one's
     * page cache (the jobs are cut from it), and only those at positions
     * make_lo to make_hi - 1 are made. */
    size_t pos, make_lo, make_hi, static_end;
    uint64_t *shape;
    /* A sweep made for one job of the whole (zc_sweep_select_job()):
     * its trace, rows and job are numbered from 0 here, and from these
     * in the whole sweep (0 in a whole sweep); the whole's counts. */
    bool select;
    size_t sel_job, sel_trace, sel_row;
    size_t all_traces, all_rows, all_jobs;
    /* running */
    zc_memo *memo;
    pthread_mutex_t lock;
    zc_sweep_progress progress;
    void *progress_ctx;
    size_t jobs_done;
    uint64_t plan_id;      /* the plan this sweep runs or merges (plan.c) */
    char prices_from[512]; /* where the adaptive rows' prices came from */
    char err[2048];
};

/* A message into sw->err; returns rc. */
int zc__sweep_fail(zc_sweep *sw, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* sweep.c: a copy of s (NULL stays NULL; *oom set when it fails); a
 * number, or bytes with K/M/G (divided into pages when pages is set),
 * named by what in a message */
char *zc__sweep_dup(const char *s, bool *oom);
int zc__sweep_size_arg(zc_sweep *sw, const char *s, bool pages,
                       const char *what, uint64_t *v);

/* collect.c: --join's one trace of all; whether trace u is an op stream
 * (tpub[u].is_ops: by its format, else its first bytes; 0 or -ZC_EIO);
 * the refusal of traces a and b in one sweep, one an op stream; trace u
 * alone kept (the others freed); each trace opened and checked; a
 * trace's strings freed */
int zc__sweep_join(zc_sweep *sw);
int zc__sweep_kind(zc_sweep *sw, size_t u);
int zc__sweep_mixed(zc_sweep *sw, size_t a, size_t b);
void zc__sweep_keep_trace(zc_sweep *sw, size_t u);
int zc__sweep_setup_traces(zc_sweep *sw);
void zc__sweep_trace_free(struct zc__sweep_trace *u, size_t npaths);

/* rows.c: the rows of every trace, and their jobs; for a sweep of one
 * job, where it is in the whole (its trace, the positions of its rows:
 * before the trace is settled), then its rows */
int zc__sweep_make_rows(zc_sweep *sw);
int zc__sweep_find_job(zc_sweep *sw);

/* run.c: jobs[0..n) run; a session of trace u as the sweep opens it */
int zc__sweep_run_jobs(zc_sweep *sw, const size_t *jobs, size_t n);
int zc__sweep_open_session(zc_sweep *sw, size_t u, bool need_content,
                           zc_session **s, char *err, size_t errlen);

/* prices.c: the CPU prices of the adaptive rows of jobs[0..n) (NULL: of
 * every job) fixed where they are not: 0, or the -ZC_E* code of a trace
 * that could not be measured, with the message */
int zc__sweep_fix_prices(zc_sweep *sw, const size_t *jobs, size_t n);

/* ---- text.c: a growing text, and a cursor over one ---- */

struct zc__text {
    char *s;
    size_t len, cap;
    bool oom; /* an allocation failed: the text is incomplete */
};

void zc__text_add(struct zc__text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "KEY LEN:BYTES\n": a string that may hold anything */
void zc__text_str(struct zc__text *t, const char *key, const char *s);
/* a JSON string, quoted and escaped (control characters as \u00XX, bytes
 * that are not UTF-8 as U+FFFD) */
void zc__text_json(struct zc__text *t, const char *s);

struct zc__cursor {
    const char *p, *end, *path;
    size_t line;
    char err[512];
};

bool zc__cur_fail(struct zc__cursor *c, const char *what);
bool zc__cur_key(struct zc__cursor *c, const char *key);
bool zc__cur_u64(struct zc__cursor *c, uint64_t *v);
bool zc__cur_double(struct zc__cursor *c, double *v);
bool zc__cur_hex(struct zc__cursor *c, uint64_t *v);
bool zc__cur_magic(struct zc__cursor *c, const char *magic);
bool zc__cur_eol(struct zc__cursor *c);
bool zc__cur_str(struct zc__cursor *c, const char *key, char *out, size_t n);

/* FNV-1a over s[0..n): a plan's id and a saved file's checksum. */
uint64_t zc__fnv1a(const char *s, size_t n);

/* The whole regular file path (at most 256 MiB), NUL-terminated: 0;
 * -ZC_EIO with errno set (ENOENT: there is none) and why. */
int zc__read_all(const char *path, char **out, size_t *len, const char **why);

/* t into path through a temporary file in the same directory, flushed to
 * disk before the rename: a reader sees the old file or the whole new
 * one.  0, or -1 with errno. */
int zc__write_atomic(const char *path, const struct zc__text *t);

#endif
