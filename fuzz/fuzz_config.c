/*
 * fuzz/fuzz_config.c - libFuzzer target: zc_config_parse() and
 * zc_parse_size().
 *
 * The input, up to its first NUL, is a "key=value,..." spec applied to
 * the default configuration.  Checks:
 *
 *   - zc_config_parse() and zc_config_parse_error() agree (result and
 *     configuration);
 *   - the result is 0 or -ZC_EINVAL; on success the message is empty, the
 *     back-end names are registered ones, and zc_config_format()'s spec
 *     parses back to the same configuration; on failure the message is
 *     not empty, and is one line when the spec is;
 *   - a short message buffer is always NUL-terminated;
 *   - zc_parse_size() on the same string: a plain number is all digits and
 *     prints back as itself (leading zeros aside), a suffixed one is a
 *     multiple of 1024.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static bool registered(zc_backend_kind kind, const char *name)
{
    const char *n;

    for (size_t i = 0; (n = zc_backend_name(kind, i)) != NULL; i++)
        if (strcmp(n, name) == 0)
            return true;
    return false;
}

static bool same_config(const zc_config *a, const zc_config *b)
{
    return a->capacity_bytes == b->capacity_bytes &&
           a->page_size == b->page_size &&
           strcmp(a->compressor, b->compressor) == 0 &&
           strcmp(a->allocator, b->allocator) == 0 &&
           strcmp(a->policy, b->policy) == 0 &&
           a->accept_percent == b->accept_percent &&
           a->same_filled == b->same_filled &&
           a->exclusive_gets == b->exclusive_gets;
}

static void check_size(const char *s)
{
    uint64_t v = 0;
    int rc = zc_parse_size(s, &v);

    FUZZ_CHECK(rc == 0 || rc == 1 || rc == -ZC_EINVAL);
    if (rc == 0) {
        char back[32];
        const char *digits = s;

        FUZZ_CHECK(strspn(s, "0123456789") == strlen(s));
        while (digits[0] == '0' && digits[1] != '\0')
            digits++;
        snprintf(back, sizeof(back), "%llu", (unsigned long long)v);
        FUZZ_CHECK(strcmp(back, digits) == 0);
    } else if (rc == 1) {
        FUZZ_CHECK(v % 1024 == 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zc_config a = zc_config_default(), b = zc_config_default();
    zc_config c = zc_config_default(), back = zc_config_default();
    char err[256], small[6], *spec, *text;
    int rc, n;

    spec = malloc(size + 1);
    FUZZ_CHECK(spec != NULL);
    memcpy(spec, data, size);
    spec[size] = '\0';

    rc = zc_config_parse_error(&a, spec, err, sizeof(err));
    FUZZ_CHECK(rc == 0 || rc == -ZC_EINVAL);
    FUZZ_CHECK(zc_config_parse(&b, spec) == rc && same_config(&a, &b));
    memset(small, 'x', sizeof(small));
    FUZZ_CHECK(zc_config_parse_error(&c, spec, small, sizeof(small)) == rc);
    FUZZ_CHECK(memchr(small, '\0', sizeof(small)) != NULL);
    if (rc == 0) {
        FUZZ_CHECK(err[0] == '\0');
        FUZZ_CHECK(registered(ZC_BACKEND_COMPRESSOR, a.compressor));
        FUZZ_CHECK(registered(ZC_BACKEND_ALLOCATOR, a.allocator));
        FUZZ_CHECK(registered(ZC_BACKEND_POLICY, a.policy));
        n = zc_config_format(&a, NULL, 0);
        FUZZ_CHECK(n > 0);
        text = malloc((size_t)n + 1);
        FUZZ_CHECK(text != NULL);
        FUZZ_CHECK(zc_config_format(&a, text, (size_t)n + 1) == n);
        if (zc_config_parse_error(&back, text, err, sizeof(err)) != 0 ||
            !same_config(&a, &back))
            fuzz_fail("\"%s\" does not parse back (%s)", text, err);
        free(text);
    } else {
        FUZZ_CHECK(err[0] != '\0');
        if (!strpbrk(spec, "\n\r") && strpbrk(err, "\n\r"))
            fuzz_fail("message of a one-line spec is not one line: \"%s\"",
                      err);
    }
    check_size(spec);
    free(spec);
    return 0;
}
