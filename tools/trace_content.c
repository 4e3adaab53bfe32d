/*
 * trace_content.c - a trace's default content source and the check that
 * the source can give its pages (see trace_content.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_content.h"

int trace_content_default(const zc_trace *t, const char *trace_path, char *spec,
                          size_t len)
{
    const char *pack = zc_trace_meta(t, "pack");
    const char *slash = strrchr(trace_path, '/');
    int n;

    /* Only a plain name beside the trace (zc_content_check_trace() says
     * what is wrong with any other). */
    if (!pack || !*pack || strchr(pack, '/') || strstr(pack, ".."))
        return 0;
    if (!slash)
        n = snprintf(spec, len, "pack:%s", pack);
    else
        n = snprintf(spec, len, "pack:%.*s/%s", (int)(slash - trace_path),
                     trace_path, pack);
    return n < 0 || (size_t)n >= len ? -1 : 1;
}

int trace_content_check(zc_content *src, const char *spec,
                        const zc_request *req, size_t page_size, char *err,
                        size_t errlen)
{
    void *page;
    int rc;

    if (!src || !req->ino)
        return 0;
    page = malloc(page_size);
    if (!page)
        return 0; /* the replay will say it is out of memory */
    rc = zc_content_file_page(src, req->dev, req->ino, req->offset / page_size,
                              0, page);
    free(page);
    if (rc != -ZC_EINVAL)
        return 0;
    snprintf(err, errlen,
             "content source %s cannot give file pages; use pack:FILE or "
             "synth",
             spec);
    return -1;
}

void trace_content_explain(zc_content *src, const char *spec,
                           const zc_request *req, size_t page_size, int rc,
                           char *err, size_t errlen)
{
    uint64_t first = req->offset / page_size;
    uint64_t last = (req->offset + req->length - 1) / page_size;
    void *page = src ? malloc(page_size) : NULL;
    int prc = 0;

    /* The page the source refuses, looked for again (a request is at
     * most a few thousand pages; the first that fails is named). */
    if (req->offset + req->length - 1 < req->offset)
        last = UINT64_MAX / page_size;
    for (uint64_t i = first; page && i <= last && i - first < 4096; i++) {
        prc = req->ino
                  ? zc_content_file_page(src, req->dev, req->ino, i, 0, page)
                  : zc_content_page(src, req->dev, i, 0, page);
        if (prc) {
            first = i;
            break;
        }
    }
    free(page);
    if (!prc) {
        snprintf(err, errlen, "content source %s: %s", spec ? spec : "(none)",
                 zc_strerror(rc));
        return;
    }
    snprintf(err, errlen,
             "content source %s: page (dev %" PRIu32 ", inode %" PRIu64
             ", index %" PRIu64 ") %s",
             spec, req->dev, req->ino, first,
             prc == -ZC_ENOENT ? "is not in it"
             : prc == -ZC_EFORMAT || prc == -ZC_EIO
                 ? "cannot be read: the source is damaged or unreadable"
                 : zc_strerror(prc));
}

int trace_content_status(int rc)
{
    return rc == -ZC_ENOENT || rc == -ZC_EINVAL || rc == -ZC_EFORMAT ||
                   rc == -ZC_EIO
               ? 2
               : 1;
}
