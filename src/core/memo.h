/*
 * core/memo.h - the compression memo, as the cache uses it (see memo.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_MEMO_H
#define ZC_MEMO_H

#include "internal.h"

/* Compress page[ps] into out as comp at level would, through the memo:
 * returns compress()'s result, *clen, and in *ns the time the compression
 * took (when it was done for another cache, the time it took then). */
int zc__memo_compress(zc_memo *m, const struct zc__compressor_ops *comp,
                      int level, const void *page, size_t ps, void *out,
                      size_t *clen, void *wrkmem, uint64_t *ns);

/* Work memory of the memo's own, for zc_memo_prepare(): comp at level
 * for pages of ps bytes, with wrk bytes of work memory and out bytes of
 * output; from a free list of the memo's (malloc's: preparing pages for a
 * cache charges nothing to its memory, whatever the thread).  NULL: out
 * of memory.  Give it back with zc__memo_work_put(). */
struct zc__memo_work {
    struct zc__memo_work *next;
    const struct zc__compressor_ops *comp;
    int level;
    size_t ps;
    uint8_t *wrkmem, *out;
};
struct zc__memo_work *zc__memo_work_get(zc_memo *m,
                                        const struct zc__compressor_ops *comp,
                                        int level, size_t ps, size_t wrk,
                                        size_t out);
void zc__memo_work_put(zc_memo *m, struct zc__memo_work *w);

#endif
