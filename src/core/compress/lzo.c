/*
 * core/compress/lzo.c - LZO1X-1 through liblzo2, as zcache used it.
 *
 * The half-size rule is decided on exactly the size lzo1x_1_compress()
 * returns, so a caller who runs liblzo2 on the same page predicts every
 * decision.  Level 1 (the default) is that LZO1X-1; levels 2 to 9 are
 * LZO1X-999 at liblzo2's levels 2 to 9: slower to compress, a little
 * smaller, and decompressed by the same decoder, which is LZO's point.
 * Decompression uses the bounds-checked lzo1x_decompress_safe() and insists on
 * a full page: anything else is reported as corruption, so a get can never hand
 * back a short or garbled page.  liblzo2's error numbers stop here.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <lzo/lzo1x.h>

#include "../internal.h"

static size_t lzo_wrkmem_size(size_t page_size, int level)
{
    ZC__UNUSED(page_size);
    return level > 1 ? LZO1X_999_MEM_COMPRESS : LZO1X_1_MEM_COMPRESS;
}

static size_t lzo_dwrkmem_size(size_t page_size)
{
    ZC__UNUSED(page_size);
    return 0;
}

/* liblzo2's documented worst case for incompressible input. */
static size_t lzo_bound(size_t page_size)
{
    return page_size + page_size / 16 + 64 + 3;
}

static int lzo_compress(const void *src, size_t len, void *dst, size_t *out_len,
                        void *wrkmem, int level)
{
    lzo_uint n = 0;
    int rc;

    if (level > 1)
        rc = lzo1x_999_compress_level(src, len, dst, &n, wrkmem, NULL, 0, 0,
                                      level);
    else
        rc = lzo1x_1_compress(src, len, dst, &n, wrkmem);
    if (rc != LZO_E_OK)
        return -ZC_ECORRUPT;
    *out_len = n;
    return 0;
}

static int lzo_decompress(const void *src, size_t len, void *dst,
                          size_t dst_len, void *dwrkmem)
{
    ZC__UNUSED(dwrkmem);
    lzo_uint n = dst_len;

    if (lzo1x_decompress_safe(src, len, dst, &n, NULL) != LZO_E_OK ||
        n != dst_len)
        return -ZC_ECORRUPT;
    return 0;
}

const struct zc__compressor_ops zc__compressor_lzo = {
    .name = "lzo",
    .doc = "LZO1X-1 (liblzo2), the compressor of zcache, zswap and zram; "
           "levels 2-9: LZO1X-999",
    .min_level = 1,
    .max_level = 9,
    .default_level = 1,
    .wrkmem_size = lzo_wrkmem_size,
    .dwrkmem_size = lzo_dwrkmem_size,
    .bound = lzo_bound,
    .compress = lzo_compress,
    .decompress = lzo_decompress,
};
