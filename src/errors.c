/*
 * errors.c - the one table of return codes, and the version.
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

static const char *const error_text[] = {
    [0] = "success",
    [ZC_ENOENT] = "page not in the cache",
    [ZC_EINVAL] = "invalid argument",
    [ZC_ENOMEM] = "out of memory",
    [ZC_ENOSPC] = "limit reached",
    [ZC_ECORRUPT] = "internal consistency check failed",
    [ZC_EIO] = "cannot open or read a file",
    [ZC_EFORMAT] = "malformed input",
};

static const char *const put_text[] = {
    [ZC_PUT_REJECT_POOR] = "not stored: compressed size above the limit",
    [ZC_PUT_REJECT_NOSPACE] = "not stored: no room in the arena",
    [ZC_PUT_REJECT_RACE] = "not stored: pool invalidated during the put",
    [ZC_PUT_REJECT_FULL] = "not stored: the arena filled up (hysteresis)",
    [ZC_PUT_REJECT_INACTIVE] = "not stored: the page was never active",
};

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

/* The calling thread's CPU time: what a compression it brackets cost,
 * whatever else the machine runs (wall time would count the waits). */
uint64_t zc__now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
