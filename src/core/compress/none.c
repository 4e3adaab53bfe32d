/*
 * core/compress/none.c - no compression: the "compressed" form is the page.
 *
 * With accept_percent=100 every page is stored raw in a frame of its own,
 * which turns the zcache into a plain second LRU tier of page frames: the
 * configuration behind the project's exact cross-check against one LRU of
 * the combined size.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "../internal.h"

static size_t none_wrkmem_size(size_t page_size, int level)
{
    ZC__UNUSED(page_size);
    ZC__UNUSED(level);
    return 0;
}

static size_t none_wrkmem_size_d(size_t page_size)
{
    ZC__UNUSED(page_size);
    return 0;
}

static size_t none_bound(size_t page_size)
{
    return page_size;
}

static int none_compress(const void *src, size_t len, void *dst,
                         size_t *out_len, void *wrkmem, int level)
{
    ZC__UNUSED(level);
    ZC__UNUSED(wrkmem);
    /* The cache stores such pages raw, from the page itself; the copy is
     * for whoever reads the output (a compression memo keeps it). */
    memcpy(dst, src, len);
    *out_len = len;
    return 0;
}

static int none_decompress(const void *src, size_t len, void *dst,
                           size_t dst_len, void *dwrkmem)
{
    ZC__UNUSED(dwrkmem);
    if (len != dst_len)
        return -ZC_ECORRUPT;
    memcpy(dst, src, len);
    return 0;
}

const struct zc__compressor_ops zc__compressor_none = {
    .name = "none",
    .doc = "no compression: every page is stored as it is, a frame each",
    .min_level = 0,
    .max_level = 0,
    .default_level = 0,
    .wrkmem_size = none_wrkmem_size,
    .dwrkmem_size = none_wrkmem_size_d,
    .bound = none_bound,
    .compress = none_compress,
    .decompress = none_decompress,
};
