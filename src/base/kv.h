/*
 * base/kv.h - "key=value,key=value": the one reader of the library's
 * specs (the cache's configuration, the adaptive controller's options).
 *
 * Items are separated by commas; whitespace around keys and values is
 * ignored; empty items are skipped.  An item without '=', or with an
 * empty value, is an error naming it.  Each key=value goes to the
 * owner's function, which knows its keys (and says what is wrong with an
 * unknown one or a bad value).
 *
 * Header only.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_BASE_KV_H
#define ZC_BASE_KV_H

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zcache.h"

/* One key=value: 0, or nonzero (its error already in err) to stop. */
typedef int (*zc__kv_fn)(void *ctx, char *key, char *val, char *err,
                         size_t errlen);

static inline char *zc__kv_trim(char *s)
{
    char *e;

    while (isspace((unsigned char)*s))
        s++;
    e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

/** Each item of spec to fn (see above).  Returns 0; fn's nonzero return;
 *  -ZC_EINVAL for an item that is no key=value; -ZC_ENOMEM.  err (errlen
 *  > 0) gets the one-line message. */
static inline int zc__kv_each(const char *spec, zc__kv_fn fn, void *ctx,
                              char *err, size_t errlen)
{
    size_t len = strlen(spec);
    char *copy = malloc(len + 1), *item, *save = NULL;
    int rc = 0;

    if (!copy) {
        snprintf(err, errlen, "out of memory");
        return -ZC_ENOMEM;
    }
    memcpy(copy, spec, len + 1);
    for (item = strtok_r(copy, ",", &save); item && !rc;
         item = strtok_r(NULL, ",", &save)) {
        char *eq;
        item = zc__kv_trim(item);
        if (!*item)
            continue;
        if (!(eq = strchr(item, '='))) {
            snprintf(err, errlen, "'%s': want key=value", item);
            rc = -ZC_EINVAL;
            break;
        }
        *eq = '\0';
        item = zc__kv_trim(item);
        if (!*zc__kv_trim(eq + 1)) {
            snprintf(err, errlen, "%s: empty value", item);
            rc = -ZC_EINVAL;
            break;
        }
        rc = fn(ctx, item, zc__kv_trim(eq + 1), err, errlen);
    }
    free(copy);
    return rc;
}

#endif
