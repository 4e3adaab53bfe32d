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

#endif
