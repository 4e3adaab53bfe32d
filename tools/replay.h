/*
 * replay.h - what zcache-replay's two files share: the command line, and
 * what a run gave, for the reports (replay_report.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_TOOLS_REPLAY_H
#define ZC_TOOLS_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zcache.h"
#include "zcache_sim.h"

#define NAME "zcache-replay"

struct opts {
    const char *format;
    size_t page_size;
    uint64_t max_request;   /* bytes; 0: the library's default */
    const char *page_cache; /* as given */
    uint64_t pc_pages;
    const char *zspec; /* NULL: off */
    const char *content;
    char content_buf[4096]; /* the content in use, as the session says */
    const char *output;
    const char *save_ops;
    int save_level;
    bool page_size_set, page_cache_set, content_set;
    int progress; /* -1 auto, 0 off, 1 on */
    int verify;
    const char **traces; /* in argv */
    size_t ntraces;
    /* a fixed memory split between the page cache and the zcache */
    const char *memory; /* as given, or NULL */
    double share;       /* static split: the zcache's %, or -1 */
    uint64_t zc_bytes;  /* with --memory: the zcache's capacity to make */
    bool adaptive;
    zc_adapt_options adapt;
    const char *split_csv, *plot;
    const char *model; /* page-cache model */
    uint64_t ra_kb;    /* --read-ahead-kb */
    bool ra_set;
    bool follow_kernel; /* --page-cache kernel */
};

/* What a run gave. */
struct result {
    const char *format; /* the format read ("zct": an op stream) */
    zc_replay_stats rs;
    zc_stats zs;
    bool have_zs;
    double secs;
    char zc_config[512]; /* zc_config_format() of the zcache, or "off" */
    /* an adaptive run's figures (replay_split_outputs()) */
    size_t epochs, moves;
    double mean_share;
    uint64_t end_pc_pages, end_zc_bytes;
    char adapt_summary[512]; /* printed after the text results */
};

/* The results as --output says, on standard output. */
void replay_output(const struct opts *o, const struct result *r);

/* An adaptive run: --split-csv and --plot, and the figures of r.  The exit
 * status's 1 if a file cannot be written. */
int replay_split_outputs(const struct opts *o, const zc_replay *rp,
                         struct result *r);

#endif
