/*
 * trace/content_file_tmp.c - TEMP: stand-ins for zc_content_file_page()
 * and zc_trace_meta() until the branches that implement them (content.c,
 * reader.c) are merged.  THE LEAD DELETES THIS FILE AT THE MERGE.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "zcache_trace.h"

/* TEMP: ino mixed into the block key; no "image" refusal, no pack. */
int zc_content_file_page(zc_content *src, uint32_t dev, uint64_t ino,
                         uint64_t index, uint64_t version, void *page)
{
    if (!ino)
        return zc_content_page(src, dev, index, version, page);
    return zc_content_page(src, dev ^ (uint32_t)(ino * 0x9E3779B1u),
                           index ^ (ino << 32), version, page);
}

/* TEMP: no format has header fields yet. */
const char *zc_trace_meta(const zc_trace *t, const char *key)
{
    (void)t;
    (void)key;
    return NULL;
}
