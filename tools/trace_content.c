/*
 * trace_content.c - a trace's default content source and the check that
 * the source can give its pages (see trace_content.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trace_content.h"

#include "cli.h"
#include "outfile.h"

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

void trace_refuse_clash(const char *opt, const char *out,
                        const char *const *suffixes, size_t n,
                        const char *const *traces, size_t ntraces,
                        const char *content_spec)
{
    const char **in = calloc(ntraces + 1, sizeof(*in));
    char path[4096];

    if (!in || !out)
        goto done;
    for (size_t i = 0; i < ntraces; i++)
        in[i] = traces[i];
    in[ntraces] = zc_content_file(content_spec);
    for (size_t k = 0; k < (n ? n : 1); k++) {
        const char *clash;
        snprintf(path, sizeof(path), "%s%s", out, n ? suffixes[k] : "");
        if ((clash = outfile_input_clash(path, in, ntraces + 1))) {
            char msg[8400];
            bool same = !strcmp(clash, path); /* else a link to it */
            if (!strcmp(path, out))
                snprintf(msg, sizeof(msg),
                         "%s %s: that is %s%san input of this run", opt, out,
                         same ? "" : clash, same ? "" : ", ");
            else
                snprintf(msg, sizeof(msg),
                         "%s %s: it would write %s, an input of this run%s%s",
                         opt, out, path, same ? "" : ": ", same ? "" : clash);
            free(in);
            die(2, "%s", msg);
        }
    }
done:
    free(in);
}

void trace_refuse_non_regular(const char *const *traces, size_t ntraces)
{
    struct stat st;

    for (size_t i = 0; i < ntraces; i++)
        if (stat(traces[i], &st) == 0 && !S_ISREG(st.st_mode))
            die(2,
                "%s: not a regular file: give a file (the trace is read more "
                "than once)",
                traces[i]);
}

int trace_content_check_each(const char *const *paths, size_t n,
                             const zc_trace_options *opt, const zc_content *src,
                             char *err, size_t errlen)
{
    char why[512];

    for (size_t i = 0; i < n; i++) {
        zc_trace *t;
        int rc;
        if ((rc = zc_trace_open(&paths[i], 1, opt, &t, why, sizeof(why)))) {
            snprintf(err, errlen, "%s", why);
            return rc;
        }
        rc = zc_content_check_trace(src, t, why, sizeof(why));
        zc_trace_close(t);
        if (rc) {
            snprintf(err, errlen, "%s: %s", paths[i], why);
            return rc;
        }
    }
    return 0;
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
    void *page = NULL;
    int prc = 0;

    /* the page the source refused, as it said (it may be an evicted
     * page of an earlier request) */
    if (src && *zc_content_error(src) &&
        (rc == -ZC_ENOENT || rc == -ZC_EFORMAT || rc == -ZC_EIO)) {
        snprintf(err, errlen, "content source %s: %s", spec ? spec : "(none)",
                 zc_content_error(src));
        return;
    }
    page = src ? malloc(page_size) : NULL;

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

int trace_parse_read_ahead(const char *v, uint64_t *kb)
{
    char *end;

    if (!v || *v < '0' || *v > '9')
        return -1;
    errno = 0;
    *kb = strtoull(v, &end, 10);
    return *end || errno || *kb > (1u << 22) ? -1 : 0;
}

bool trace_model_known(const char *name)
{
    for (size_t i = 0; name && zc_page_cache_model_name(i); i++)
        if (strcmp(zc_page_cache_model_name(i), name) == 0)
            return true;
    return false;
}

int trace_model_setup(zc_replay *r, const zc_trace *t, const char *trace_path,
                      const char *model, bool kb_set, uint64_t kb, char *err,
                      size_t errlen)
{
    const char *v = zc_trace_meta(t, "read_ahead_kb");
    int rc;

    if (model && !trace_model_known(model)) {
        snprintf(err, errlen, "no page-cache model '%.64s'", model);
        return -1;
    }
    if (model && (rc = zc_replay_set_model(r, model)))
        return rc;
    if (!kb_set && v && trace_parse_read_ahead(v, &kb)) {
        snprintf(err, errlen,
                 "%s: header field read_ahead_kb '%.40s' is not KiB from 0 "
                 "to 4194304",
                 trace_path, v);
        return -1;
    }
    if (!kb_set && !v)
        return 0;
    return zc_replay_set_read_ahead(r, kb);
}
