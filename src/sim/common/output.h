/*
 * sim/common/output.h - what the library's own modules add to the
 * outputs written whole (zc_output_*(), zcache_sim.h): outputs made
 * together, renamed together.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_SIM_COMMON_OUTPUT_H
#define ZC_SIM_COMMON_OUTPUT_H

#include "zcache_sim.h"

/* The outputs finished while a group was set, waiting for their rename. */
struct zc__output_group {
    zc_output **items;
    size_t n, cap;
};

/* From now on, in this thread, zc_output_commit() finishes an output and
 * adds it to g instead of renaming it (NULL: renames again). */
void zc__output_defer(struct zc__output_group *g);

/* Rename every output of g into place, in order, and empty g: 0, or
 * -ZC_EIO (with the message in err) when a rename failed; the outputs
 * after it are abandoned, those before it stay in place. */
int zc__output_group_commit(struct zc__output_group *g, char *err,
                            size_t errlen);

/* Remove every output of g (their temporary files) and empty g. */
void zc__output_group_abandon(struct zc__output_group *g);

/* A writer's end: *o committed when rc is 0 (the commit's result then
 * returned, its message in err), abandoned otherwise (rc returned: the
 * old file stays); *o is NULL after.  NULL *o: rc. */
int zc__output_end(zc_output **o, int rc, char *err, size_t errlen);

#endif
