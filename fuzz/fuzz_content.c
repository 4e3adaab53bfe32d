/*
 * fuzz/fuzz_content.c - libFuzzer target: zc_content_open() specs and the
 * pages they give.
 *
 * The input: one byte choosing the page size (below 0xf0: 512 << (b % 8),
 * the valid sizes; from 0xf0: one of a list of invalid ones), then the
 * spec up to the first NUL, then the bytes of a file.  In the spec of a
 * file source (corpus:, image:) the argument "@" stands for that file (a
 * memory file); any other argument is looked up under a directory that
 * does not exist, so the target never opens the machine's own files.
 *
 * Checks: the result is 0, -ZC_EINVAL or -ZC_EIO; on failure the message
 * is not empty, and is one line when the spec is; on success it is
 * empty, and pages are a pure function of their key (two fills of one
 * key are equal), "zero" gives zeros, and "image:@" gives the file's
 * bytes at the page's offset, zeros past its end.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const size_t bad_sizes[] = {
    0, 1, 256, 511, 513, 3000, 4095, 131072, (size_t)1 << 40, (size_t)-1};

/* The spec to open: spec[len] with a file source's argument replaced. */
static char *make_spec(const char *spec, size_t len, const char *file)
{
    static const char none[] = "/nonexistent-zc-fuzz/";
    const char *colon = memchr(spec, ':', len);
    size_t name = colon ? (size_t)(colon - spec) : len;
    size_t cap = len + strlen(none) + strlen(file) + 1;
    char *out = malloc(cap);

    FUZZ_CHECK(out != NULL);
    if (colon && ((name == 6 && memcmp(spec, "corpus", 6) == 0) ||
                  (name == 5 && memcmp(spec, "image", 5) == 0))) {
        const char *arg = colon + 1;
        size_t alen = len - name - 1;

        if (alen == 1 && arg[0] == '@')
            snprintf(out, cap, "%.*s%s", (int)(name + 1), spec, file);
        else if (alen > 0)
            snprintf(out, cap, "%.*s%s%.*s", (int)(name + 1), spec, none,
                     (int)alen, arg);
        else
            snprintf(out, cap, "%.*s", (int)len, spec);
    } else {
        snprintf(out, cap, "%.*s", (int)len, spec);
    }
    return out;
}

static void check_pages(zc_content *c, const char *spec, size_t page_size,
                        const struct fuzz_file *f, uint64_t h)
{
    const struct {
        uint32_t dev;
        uint64_t pageno, version;
    } keys[] = {
        {0, 0, 0},
        {(uint32_t)h, (h >> 32) % 64, h % 3},
        {UINT32_MAX, UINT64_MAX, UINT64_MAX},
        {1, (h >> 8) % 4, 1},
    };
    uint8_t *p = malloc(page_size), *q = malloc(page_size);

    FUZZ_CHECK(p != NULL && q != NULL);
    FUZZ_CHECK(zc_content_page(c, 0, 0, 0, NULL) == -ZC_EINVAL);
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        uint32_t dev = keys[i].dev;
        uint64_t pageno = keys[i].pageno, version = keys[i].version;

        memset(p, 0x5a, page_size);
        memset(q, 0xa5, page_size);
        FUZZ_CHECK(zc_content_page(c, dev, pageno, version, p) == 0);
        FUZZ_CHECK(zc_content_page(c, dev, pageno, version, q) == 0);
        FUZZ_CHECK(memcmp(p, q, page_size) == 0);
        if (strcmp(spec, "zero") == 0)
            FUZZ_CHECK(p[0] == 0 && memcmp(p, p + 1, page_size - 1) == 0);
        if (strncmp(spec, "image:/proc/", 12) == 0) {
            uint64_t off = pageno <= UINT64_MAX / page_size ? pageno * page_size
                                                            : UINT64_MAX;
            size_t have = off < f->size ? f->size - (size_t)off : 0;

            if (have > page_size)
                have = page_size;
            memset(q, 0, page_size);
            if (have)
                memcpy(q, f->data + off, have);
            FUZZ_CHECK(memcmp(p, q, page_size) == 0);
        }
    }
    free(p);
    free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul;
    struct fuzz_file f;
    size_t page_size, len;
    zc_content *c = NULL;
    char err[512], small[8], *spec;
    int rc;

    if (size == 0)
        return 0;
    page_size = data[0] < 0xf0
                    ? (size_t)512 << (data[0] % 8)
                    : bad_sizes[(data[0] - 0xf0) %
                                (sizeof(bad_sizes) / sizeof(bad_sizes[0]))];
    data++;
    size--;
    nul = memchr(data, '\0', size);
    len = nul ? (size_t)(nul - data) : size;
    if (nul)
        fuzz_file_set(0, nul + 1, size - len - 1, &f);
    else
        fuzz_file_set(0, data, 0, &f);
    spec = make_spec((const char *)data, len, f.path);

    rc = zc_content_open(spec, page_size, &c, err, sizeof(err));
    FUZZ_CHECK(zc_content_open(spec, page_size, NULL, small, sizeof(small)) ==
               -ZC_EINVAL);
    FUZZ_CHECK(memchr(small, '\0', sizeof(small)) != NULL);
    if (rc == 0) {
        FUZZ_CHECK(c != NULL && err[0] == '\0');
        check_pages(c, spec, page_size, &f, fuzz_hash(data, size));
        zc_content_close(c);
    } else {
        FUZZ_CHECK(c == NULL);
        FUZZ_CHECK(rc == -ZC_EINVAL || rc == -ZC_EIO);
        FUZZ_CHECK(err[0] != '\0');
        if (!strpbrk(spec, "\n\r") && strpbrk(err, "\n\r"))
            fuzz_fail("message of a one-line spec is not one line: \"%s\"",
                      err);
    }
    free(spec);
    return 0;
}
