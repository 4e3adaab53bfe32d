/*
 * sim/fidelity/fidelity.h - what the two halves of the fidelity run share:
 * opening (open.c: the options, the recording's streams, the object and
 * its result) and comparing (compare.c: the work).
 *
 * The object owns every string and array its result (zc_fidelity_result)
 * points at; the streams, the requests in memory, the evictions and the
 * memo live only from opening to the end of the work.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_SIM_FIDELITY_FIDELITY_H
#define ZC_SIM_FIDELITY_FIDELITY_H

#include <stdio.h>

#include "run/session.h"

#define NO_SAMPLE UINT64_MAX

/* A request of the access stream and the sample it saw. */
struct access {
    zc_request req;
    uint64_t resident; /* req.dev's resident count as last sampled at or
                          before req, or NO_SAMPLE */
};

/* The last sample seen per file system, to count each sample once. */
struct dev_sample {
    uint32_t dev;
    uint64_t pages;
};

struct evicts {
    zc_fidelity_page *e;
    size_t n, cap;
};

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
    zc_session *s;      /* the access stream */
    zc_ops_reader *kin; /* the kernel stream */
    struct access *a;   /* the access stream in memory */
    size_t n, acap;
    uint64_t *samples; /* each sample once, in order */
    size_t nsamples, samples_cap;
    struct dev_sample *devs; /* per file system: its last sample */
    size_t ndevs;
    struct evicts kev; /* the kernel's pool-0 puts, in order */
    uint64_t mgets;    /* the model's op stream: pages brought in, */
    uint64_t mzc_gets; /* of them zcache gets (write misses are not), */
    struct evicts mev; /* its evictions, in order */
    zc_memo *memo;     /* shared by every zcache */
    zc_fidelity_row *rows;
    zc_fidelity_point *points; /* nrows x ncaps */
    bool compared;
    char err[4096];
};

/* A message into f->err (printf-style); the value is rc. */
#define set_error(f, rc, ...)                                                  \
    (snprintf((f)->err, sizeof((f)->err), __VA_ARGS__), (rc))

/** Close the streams, free the requests, the evictions and the memo (the
 *  result stays). */
void zc__fidelity_release(zc_fidelity *f);

#endif
