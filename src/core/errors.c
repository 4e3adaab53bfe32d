/*
 * core/errors.c - the texts of the return codes (from the header's lists), and
 * the version.
 *
 * Every value the API returns is explained here: 0, a negative -ZC_E*
 * error, or a positive ZC_PUT_* reason for a page that was not stored.
 * Back-end errors (liblzo2's) are translated into these codes where they
 * happen and never escape as their own numbers.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <time.h>

#include "internal.h"

#define TEXT(name, value, text) [value] = text,
static const char *const error_text[] = {[0] = "success", ZC_ERRORS(TEXT)};
static const char *const put_text[] = {ZC_PUT_OUTCOMES(TEXT)};
#undef TEXT

const char *zc_strerror(int code)
{
    size_t n;

    if (code <= 0) {
        n = (size_t) - (long)code;
        if (n < sizeof(error_text) / sizeof(error_text[0]) && error_text[n])
            return error_text[n];
        return "unknown error";
    }
    n = (size_t)code;
    if (n < sizeof(put_text) / sizeof(put_text[0]) && put_text[n])
        return put_text[n];
    return "unknown put outcome";
}

const char *zc_version(void)
{
    return ZC_VERSION_STRING;
}

unsigned zc_version_number(void)
{
    return ZC_VERSION_NUMBER;
}

/* The calling thread's CPU time: what a compression it brackets cost,
 * whatever else the machine runs (wall time would count the waits). */
uint64_t zc__now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
