/*
 * sim/fidelity/fidelity.h - what the parts of the fidelity run share:
 * opening (open.c: the options, the recording's streams, the object and
 * its result), comparing (compare.c: the work) and the eviction matcher
 * in its streaming form (match.c).
 *
 * The object owns every string and array its result (zc_fidelity_result)
 * points at; the streams, the resident counts, a row's matcher and the
 * memo live only from opening to the end of the work.  Nothing in it
 * grows with the recording: the access stream is read again for each
 * pass, the kernel stream once for the curve and once per row for its
 * evictions (memory: the models, the zcaches, the matcher's window and
 * one entry per distinct resident count).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_SIM_FIDELITY_FIDELITY_H
#define ZC_SIM_FIDELITY_FIDELITY_H

#include <stdio.h>

#include "run/session.h"

/* ---- the eviction matcher, streaming (match.c) --------------------------- */

typedef struct zc__match zc__match;

/** Where the matcher takes the kernel's evictions from, in order: 1 and
 *  *page, 0 at the end, or a -ZC_E* code (passed on). */
typedef int (*zc__match_pull)(void *ctx, zc_fidelity_page *page);

/** A matcher of window W (zc_fidelity_match()'s rule) that pulls the
 *  kernel's evictions from pull(ctx) as it needs them.  0; -ZC_ENOMEM. */
int zc__match_create(uint64_t window, zc__match_pull pull, void *ctx,
                     zc__match **out);

/** The model's next eviction.  0, or the pull's or -ZC_ENOMEM. */
int zc__match_model(zc__match *m, const zc_fidelity_page *page);

/** The model's evictions ended: the kernel's rest pulled and decided;
 *  *matched the kernel evictions matched.  0, or as zc__match_model(). */
int zc__match_finish(zc__match *m, uint64_t *matched);

void zc__match_free(zc__match *m);

/* ---- the run ------------------------------------------------------------- */

struct zc_fidelity {
    zc_fidelity_result res; /* what zc_fidelity_get() shows */
    char *recording, *access_path, *kernel_path, *content, *zspec;
    const char **models; /* registry strings */
    size_t nmodels;
    bool size_on[ZC_FIDELITY_SIZES];
    uint64_t *caps; /* ascending, distinct */
    size_t ncaps;
    zc_config cfg; /* every zcache's, but its capacity */
    size_t memo_bytes;
    zc_fidelity_progress progress;
    void *progress_ctx;
    zc_session *s;      /* the access stream's session: its content, its
                           model's settings, its first reading */
    zc_ops_reader *kin; /* the kernel stream */
    /* the requests' resident counts, each entry a count and the requests
     * that saw it (merged when the array fills: one per distinct count) */
    zc_resident_sample *seen;
    size_t nseen, seen_cap;
    uint64_t (*devs)[2]; /* per file system (dev, its last sample) */
    size_t ndevs;
    /* a row's first replay: its op stream counted and matched */
    uint64_t mgets;     /* pages brought in, */
    uint64_t mzc_gets;  /* of them zcache gets (write misses are not), */
    uint64_t mputs;     /* evictions */
    zc__match *match;   /* the row's matcher, or NULL */
    zc_ops_reader *kev; /* the kernel stream again, for its evictions */
    bool sink_failed;   /* the matcher failed: its message is in err */
    zc_memo *memo;      /* shared by every zcache */
    zc_fidelity_row *rows;
    zc_fidelity_point *points; /* nrows x ncaps */
    bool compared;
    char err[4096];
};

/* A message into f->err (printf-style); the value is rc. */
#define set_error(f, rc, ...)                                                  \
    (snprintf((f)->err, sizeof((f)->err), __VA_ARGS__), (rc))

/** Close the streams, free the counts, the matcher and the memo (the
 *  result stays). */
void zc__fidelity_release(zc_fidelity *f);

#endif
