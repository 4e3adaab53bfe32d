/*
 * sim/common/json.c - a string as JSON, the one escaper of the library and
 * the tools (zc_json_quote(), zcache_sim.h).
 *
 * A string may hold any bytes (a file name does): '"' and '\' are
 * escaped, control characters written as \u00XX, and a byte that is not
 * part of valid UTF-8 (overlong forms, surrogates and values past
 * U+10FFFF included) becomes U+FFFD, so the output is always valid JSON.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <string.h>

#include "zcache_sim.h"

/* The length of the valid UTF-8 sequence at s (1 to 4), or 0. */
static size_t utf8_len(const unsigned char *s)
{
    size_t n;
    unsigned min;

    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF)
        n = 2, min = 0x80;
    else if (s[0] >= 0xE0 && s[0] <= 0xEF)
        n = 3, min = 0x800;
    else if (s[0] >= 0xF0 && s[0] <= 0xF4)
        n = 4, min = 0x10000;
    else
        return 0;
    unsigned cp = s[0] & (0x7F >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

size_t zc_json_quote(const char *s, char *out, size_t n)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t len = 0;
    char esc[8];

#define PUT(str, k)                                                            \
    do {                                                                       \
        for (size_t i_ = 0; i_ < (k); i_++, len++)                             \
            if (len + 1 < n)                                                   \
                out[len] = (str)[i_];                                          \
    } while (0)
    PUT("\"", 1);
    while (*p) {
        size_t k = utf8_len(p);
        if (*p == '"' || *p == '\\') {
            esc[0] = '\\';
            esc[1] = (char)*p;
            PUT(esc, 2);
        } else if (*p < 0x20) {
            snprintf(esc, sizeof(esc), "\\u%04x", *p);
            PUT(esc, 6);
        } else if (k) {
            PUT((const char *)p, k);
        } else { /* not UTF-8 (a file name's raw byte): the replacement */
            PUT("\\ufffd", 6);
        }
        p += k ? k : 1;
    }
    PUT("\"", 1);
#undef PUT
    if (n)
        out[len < n ? len : n - 1] = '\0';
    return len;
}
