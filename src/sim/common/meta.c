/*
 * sim/common/meta.c - checking a writer's extra header fields and writing them
 * in the text forms (the rule is in meta.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "meta.h"
#include "zcache.h"

int zc__meta_check(const char *meta, const char *const *own, char *why,
                   size_t cap)
{
    for (const char *p = meta; *p;) {
        size_t len = strcspn(p, "\n"), klen = strcspn(p, "=\n");
        bool bad = len && (klen == 0 || klen == len);
        for (size_t i = 0; !bad && i < len; i++)
            bad = (unsigned char)p[i] < 0x20 || p[i] == 0x7f ||
                  (i < klen && p[i] == ' ') || (i == klen + 1 && p[i] == ' ');
        if (bad) {
            snprintf(why, cap,
                     "header field '%.*s' is not key=value (no blanks in the "
                     "key or before the value, no control characters)",
                     (int)(len > 64 ? 64 : len), p);
            return -ZC_EINVAL;
        }
        for (size_t i = 0; len && own[i]; i++)
            if (klen == strlen(own[i]) && !strncmp(p, own[i], klen)) {
                snprintf(why, cap, "header field %s is the writer's own",
                         own[i]);
                return -ZC_EINVAL;
            }
        p += len + (p[len] == '\n');
    }
    return 0;
}

int zc__meta_text(FILE *f, const char *meta)
{
    int bad = 0;

    for (const char *p = meta; p && *p;) {
        size_t len = strcspn(p, "\n"), k = strcspn(p, "=");
        if (len) /* "meta KEY VALUE...": the rest of the line */
            bad |= fprintf(f, "meta %.*s %.*s\n", (int)k, p, (int)(len - k - 1),
                           p + k + 1) < 0;
        p += len + (p[len] == '\n');
    }
    return bad ? -1 : 0;
}
