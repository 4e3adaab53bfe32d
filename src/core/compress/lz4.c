/*
 * core/compress/lz4.c - LZ4 through liblz4: the fast compressor of zram and
 * zswap today.
 *
 * Levels follow the lz4 command line: 1 and 2 are the fast compressor
 * (LZ4_compress_fast_extState, acceleration 1; level 1 is the default and
 * what the kernel's "lz4" does), 3 to 12 are LZ4HC at that level (the
 * kernel's "lz4hc").  Both write the same block format, read by one
 * decoder.  The work memory is liblz4's own state, given to it through
 * the *_extState calls so that every byte comes from the cache's heap
 * hook; decoding needs none.  Decompression uses the bounds-checked
 * LZ4_decompress_safe and insists on a full page.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <lz4.h>
#include <lz4hc.h>

#include "../internal.h"

#define HC_FROM 3

static size_t lz4_wrkmem_size(size_t page_size, int level)
{
    ZC__UNUSED(page_size);
    return (size_t)(level >= HC_FROM ? LZ4_sizeofStateHC() : LZ4_sizeofState());
}

static size_t lz4_dwrkmem_size(size_t page_size)
{
    ZC__UNUSED(page_size);
    return 0;
}

static size_t lz4_bound(size_t page_size)
{
    return (size_t)LZ4_compressBound((int)page_size);
}

static int lz4_compress(const void *src, size_t len, void *dst, size_t *out_len,
                        void *wrkmem, int level)
{
    int cap = LZ4_compressBound((int)len), n;

    if (level >= HC_FROM)
        n = LZ4_compress_HC_extStateHC(wrkmem, src, dst, (int)len, cap, level);
    else
        n = LZ4_compress_fast_extState(wrkmem, src, dst, (int)len, cap, 1);
    if (n <= 0)
        return -ZC_ECORRUPT;
    *out_len = (size_t)n;
    return 0;
}

static int lz4_decompress(const void *src, size_t len, void *dst,
                          size_t dst_len, void *dwrkmem)
{
    ZC__UNUSED(dwrkmem);
    if (LZ4_decompress_safe(src, dst, (int)len, (int)dst_len) != (int)dst_len)
        return -ZC_ECORRUPT;
    return 0;
}

const struct zc__compressor_ops zc__compressor_lz4 = {
    .name = "lz4",
    .doc = "LZ4 (liblz4), zram's and zswap's fast choice; levels 3-12: LZ4HC",
    .min_level = 1,
    .max_level = 12,
    .default_level = 1,
    .wrkmem_size = lz4_wrkmem_size,
    .dwrkmem_size = lz4_dwrkmem_size,
    .bound = lz4_bound,
    .compress = lz4_compress,
    .decompress = lz4_decompress,
};
