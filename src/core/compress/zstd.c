/*
 * core/compress/zstd.c - Zstandard through libzstd, as zram and zswap offer it.
 *
 * Levels are zstd's own, from -7 (fastest) to 22; the default is 3, the
 * library's.  Each page is one zstd frame, written by ZSTD_compressCCtx
 * as the kernel's zstd_compress_cctx() does, so the sizes match what zram
 * would store.  Contexts live in the work memory the cache hands us
 * (ZSTD_initStaticCCtx / ZSTD_initStaticDCtx), sized for one page at the
 * chosen level: zstd then never allocates, and every byte it uses is
 * counted by the cache's heap hook.  A context is made once, when the
 * cache makes the work memory (its first 16 bytes keep the pointer), and
 * reused by every call: making one per page cost 15% of compression and
 * 30% of decompression time (bench/zc-bench-backends).  The static-context
 * calls belong to zstd's "static linking only" API, which Debian's shared
 * libzstd exports. Decompression insists on exactly a full page.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <string.h>

#include "../internal.h"

static ZSTD_compressionParameters params(size_t page_size, int level)
{
    return ZSTD_getCParams(level, page_size, 0);
}

#define HEAD 16 /* the context's pointer, keeping the rest 16-aligned */

static size_t cctx_size(size_t page_size, int level)
{
    return ZSTD_estimateCCtxSize_usingCParams(params(page_size, level));
}

static size_t zstd_wrkmem_size(size_t page_size, int level)
{
    return HEAD + cctx_size(page_size, level);
}

static size_t zstd_dwrkmem_size(size_t page_size)
{
    ZC__UNUSED(page_size);
    return HEAD + ZSTD_estimateDCtxSize();
}

static void zstd_init_wrkmem(void *wrkmem, size_t page_size, int level)
{
    ZSTD_CCtx *cc =
        ZSTD_initStaticCCtx((char *)wrkmem + HEAD, cctx_size(page_size, level));
    memcpy(wrkmem, &cc, sizeof(cc)); /* NULL: every compress fails */
}

static void zstd_init_dwrkmem(void *dwrkmem, size_t page_size)
{
    ZSTD_DCtx *dc =
        ZSTD_initStaticDCtx((char *)dwrkmem + HEAD, ZSTD_estimateDCtxSize());
    ZC__UNUSED(page_size);
    memcpy(dwrkmem, &dc, sizeof(dc));
}

static size_t zstd_bound(size_t page_size)
{
    return ZSTD_compressBound(page_size);
}

static int zstd_compress(const void *src, size_t len, void *dst,
                         size_t *out_len, void *wrkmem, int level)
{
    ZSTD_CCtx *cc;
    size_t n;

    memcpy(&cc, wrkmem, sizeof(cc));
    if (!cc)
        return -ZC_ECORRUPT;
    n = ZSTD_compressCCtx(cc, dst, ZSTD_compressBound(len), src, len, level);
    if (ZSTD_isError(n))
        return -ZC_ECORRUPT;
    *out_len = n;
    return 0;
}

static int zstd_decompress(const void *src, size_t len, void *dst,
                           size_t dst_len, void *dwrkmem)
{
    ZSTD_DCtx *dc;
    size_t n;

    memcpy(&dc, dwrkmem, sizeof(dc));
    if (!dc)
        return -ZC_ECORRUPT;
    n = ZSTD_decompressDCtx(dc, dst, dst_len, src, len);
    if (ZSTD_isError(n) || n != dst_len)
        return -ZC_ECORRUPT;
    return 0;
}

const struct zc__compressor_ops zc__compressor_zstd = {
    .name = "zstd",
    .doc = "Zstandard (libzstd), levels -7 to 22, default 3: denser, slower",
    .min_level = -7,
    .max_level = 22,
    .default_level = 3,
    .wrkmem_size = zstd_wrkmem_size,
    .dwrkmem_size = zstd_dwrkmem_size,
    .bound = zstd_bound,
    .init_wrkmem = zstd_init_wrkmem,
    .init_dwrkmem = zstd_init_dwrkmem,
    .compress = zstd_compress,
    .decompress = zstd_decompress,
};
