/*
 * cli.c - what every tool's command line shares: one way to fail (cli.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zcache_sim.h"

static const char *prog = "libzcache";
static void (*cleanup)(void);

/* A signal that ends the process: the outputs not finished lose their
 * temporary files (zc_output_remove_partial(): async-signal-safe), then
 * the signal does what it would have done. */
static void on_fatal_signal(int sig)
{
    zc_output_remove_partial();
    signal(sig, SIG_DFL);
    raise(sig);
}

void cli_init(const char *name, void (*undo)(void))
{
    static const int fatal[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT,
                                SIGPIPE, SIGXCPU, SIGXFSZ};
    struct sigaction sa, old;

    prog = name;
    cleanup = undo;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
        if (sigaction(fatal[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(fatal[i], &sa, NULL); /* nohup's SIGHUP stays ignored */
}

static char last[1024];

const char *cli_last_error(void)
{
    return last;
}

static void say(const char *fmt, va_list ap)
{
    va_list aq;

    va_copy(aq, ap);
    vsnprintf(last, sizeof(last), fmt, aq);
    va_end(aq);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void die(int status, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    say(fmt, ap);
    va_end(ap);
    if (cleanup)
        cleanup();
    exit(status);
}

void die_usage(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    say(fmt, ap);
    va_end(ap);
    if (cleanup)
        cleanup();
    exit(2);
}

void die_too_many_pages(const char *opt, const char *value)
{
    die(2, "%s %s: more than the %u pages a replay models", opt, value,
        ZC_REPLAY_PAGES_MAX);
}

int cli_status(int rc)
{
    return rc == -ZC_ENOENT || rc == -ZC_EINVAL || rc == -ZC_EFORMAT ||
                   rc == -ZC_EIO
               ? 2
               : 1;
}

double cli_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cli_read_ahead(const char *v, uint64_t *kb)
{
    char *end;

    if (!v || *v < '0' || *v > '9')
        return -1;
    errno = 0;
    *kb = strtoull(v, &end, 10);
    return *end || errno || *kb > ZC_READ_AHEAD_KB_MAX ? -1 : 0;
}

bool cli_model_known(const char *name)
{
    for (size_t i = 0; name && zc_page_cache_model_name(i); i++)
        if (strcmp(zc_page_cache_model_name(i), name) == 0)
            return true;
    return false;
}
