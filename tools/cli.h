/*
 * cli.h - what every tool's command line shares: one way to fail.
 *
 * A tool names itself once (cli_init) and may register what to undo
 * before it exits (remove a half-written output); then every error is one
 * line on stderr, "PROG: message", and an exit status: 2 for bad
 * arguments or bad input, 1 for any other failure.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_TOOLS_CLI_H
#define ZC_TOOLS_CLI_H

#include <stdbool.h>
#include <stdint.h>

/** The tool's name for messages, and a function to call before an error
 *  exit (NULL: none).  Also makes SIGINT, SIGTERM, SIGHUP, SIGQUIT,
 *  SIGPIPE, SIGXCPU and SIGXFSZ remove the temporary files of outputs not
 *  yet finished before they end the process (those the process ignores
 *  stay ignored), so that a killed tool leaves every output as it was. */
void cli_init(const char *prog, void (*cleanup)(void));

/** The message of the error being reported (for a cleanup that records
 *  it); "" before any. */
const char *cli_last_error(void);

/** "PROG: message" on stderr, the cleanup, exit(status). */
_Noreturn void die(int status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/** "PROG: message" on stderr (one line, as every error), exit(2): an
 *  argument the tool cannot take. */
_Noreturn void die_usage(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/** A page cache larger than a replay models (ZC_REPLAY_PAGES_MAX): opt
 *  and its value named, exit 2. */
_Noreturn void die_too_many_pages(const char *opt, const char *value);

/** A --read-ahead-kb value: KiB from 0 to 2^22.  0, or -1 if v is not
 *  one. */
int cli_read_ahead(const char *v, uint64_t *kb);

/** Whether name is a registered page-cache model. */
bool cli_model_known(const char *name);

/** Seconds on the monotonic clock (for progress and elapsed times). */
double cli_now(void);

/** The exit status for a library call that failed with rc: 2 for bad
 *  input (-ZC_EINVAL, -ZC_EFORMAT, -ZC_EIO, -ZC_ENOENT: a page the content
 *  source lacks), 1 for anything else (out of memory, a limit, stopped). */
int cli_status(int rc);

#endif
