/*
 * sim/common/bytes.c - the one-line error message shared by the binary trace
 * formats' readers and writers (bytes.h has the rest, inline).
 *
 * A message is "PATH: what", cut to the caller's buffer, with line breaks
 * made blanks: every tool prints it as one line, whatever a path or a
 * hostile header field holds.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>

#include "bytes.h"

void zc__vfail(char *err, size_t cap, const char *path, const char *fmt,
               va_list ap)
{
    int n = snprintf(err, cap, "%s: ", path);

    if (n >= 0 && (size_t)n < cap)
        vsnprintf(err + n, cap - (size_t)n, fmt, ap);
    for (char *p = err; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
}
