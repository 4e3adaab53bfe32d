/*
 * fuzz/fuzz_access.h - what the two access-stream targets share: writing a
 * stream that read completely again, in both forms, and reading it back.
 *
 * The requests are read once more from memory file slot 0 and written
 * with zc_access_writer into slot 3 (binary, zstd level 1) and slot 4
 * (text) at the stream's page size; each must read back (sniffed) as the
 * same requests in the same order: the run's count and chain, which
 * hashes flags and file sizes too (the writer records a request's
 * ZC_REQ_SIZE file_size where it changes).  Resident samples are state,
 * not requests, and are not carried over.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_FUZZ_ACCESS_H
#define ZC_FUZZ_ACCESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static uint8_t *fuzz_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0, got;

    FUZZ_CHECK(f != NULL);
    do {
        if (n == cap) {
            cap = cap ? 2 * cap : 4096;
            buf = realloc(buf, cap);
            FUZZ_CHECK(buf != NULL);
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
    } while (got);
    fclose(f);
    *len = n;
    return buf;
}

static void fuzz_access_rewrite(const uint8_t *data, size_t size,
                                const char *format,
                                const struct fuzz_run *whole)
{
    zc_trace_options topt = {.format = format};
    struct fuzz_file in, out[2];
    const char *path;
    char err[512];
    zc_trace *t;
    zc_request q = {0};
    const char *ps;
    int rc;

    fuzz_file_set(0, data, size, &in);
    path = in.path;
    for (int form = 0; form < 2; form++) {
        zc_access_writer_options o = {.text = form == 1, .level = 1};
        zc_access_writer *w;
        struct fuzz_run back;
        uint8_t *bytes;
        size_t len;

        FUZZ_CHECK(zc_trace_open(&path, 1, &topt, &t, err, sizeof(err)) == 0);
        ps = zc_trace_meta(t, "page_size");
        if (!ps) { /* an empty file: nothing to write */
            FUZZ_CHECK(whole->count == 0);
            zc_trace_close(t);
            return;
        }
        o.page_size = strtoul(ps, NULL, 10);
        fuzz_file_set(3 + form, NULL, 0, &out[form]);
        FUZZ_CHECK(zc_access_writer_open(out[form].path, &o, &w, err,
                                         sizeof(err)) == 0);
        while ((rc = zc_trace_next(t, &q)) == 1)
            if (zc_access_write(w, &q) != 0)
                fuzz_fail("the writer refused a request the reader made: "
                          "%s",
                          zc_access_writer_error(w));
        FUZZ_CHECK(rc == 0);
        FUZZ_CHECK(zc_access_writer_close(w, err, sizeof(err)) == 0);
        zc_trace_close(t); /* before fuzz_read counts the large blocks */
        bytes = fuzz_slurp(out[form].path, &len);
        fuzz_file_set(3 + form, bytes, len, &out[form]);
        fuzz_read(&out[form], 1, NULL, &back);
        if (!fuzz_complete(&back) || back.count != whole->count ||
            back.chain != whole->chain)
            fuzz_fail("a stream written again reads back otherwise (%s): "
                      "%llu requests, \"%s\"",
                      form ? "text" : "binary", (unsigned long long)back.count,
                      back.msg);
        free(bytes);
    }
}

#endif /* ZC_FUZZ_ACCESS_H */
