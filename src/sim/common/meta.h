/*
 * sim/common/meta.h - a writer's extra header fields ("key=value\n..."), as the
 * op-stream (zct_write.c) and access-stream (access_write.c) writers take
 * them from their callers.
 *
 * Both forms of both streams must read the fields back as given: the
 * binary header keeps "key=value" lines, the text header "meta KEY VALUE"
 * lines whose VALUE is the rest of the line.  So one rule for both
 * writers: lines of key=value (blank lines are left out), a key not empty
 * and without blanks or control characters, a value without control
 * characters nor a leading blank (the text form could not keep it), and
 * none of the keys the writer sets itself.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_SIM_COMMON_META_H
#define ZC_SIM_COMMON_META_H

#include <stddef.h>
#include <stdio.h>

/* Check meta against the rule above; own: the writer's keys, NULL last.
 * 0, or -ZC_EINVAL and a one-line message in why[cap]. */
int zc__meta_check(const char *meta, const char *const *own, char *why,
                   size_t cap);

/* Write meta's fields (NULL: none) as the text form's "meta KEY VALUE"
 * lines; 0, or -1 on a write error (errno says why). */
int zc__meta_text(FILE *f, const char *meta);

#endif /* ZC_SIM_COMMON_META_H */
