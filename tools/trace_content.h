/*
 * trace_content.h - which content source a trace's pages take, and
 * whether it can give them.  Shared by zcache-replay and zcache-sweep.
 *
 * An access stream recorded with a content pack names it in its header
 * (pack=NAME, beside the stream): without --content, the tools read the
 * pages from "pack:" + that path.  Some sources (image:FILE) have only
 * block pages; a file-keyed request through them is refused with a
 * message that says what to use instead, before the replay starts.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_TOOLS_TRACE_CONTENT_H
#define ZC_TOOLS_TRACE_CONTENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zcache_sim.h"

/** The content source of trace t opened from trace_path when none was
 *  given: "pack:" + the pack its header names, resolved beside
 *  trace_path (an absolute name as it is), into spec[len].  Returns 1 if
 *  the header names a pack, 0 if not (spec untouched), -1 if the path
 *  does not fit. */
int trace_content_default(const zc_trace *t, const char *trace_path, char *spec,
                          size_t len);

/** Refuse (exit 2, naming opt) an output that is one of the run's inputs:
 *  its traces, or the file its content spec reads.  out may be a prefix:
 *  then each of the n suffixes is checked (out + suffix). */
void trace_refuse_clash(const char *opt, const char *out,
                        const char *const *suffixes, size_t n,
                        const char *const *traces, size_t ntraces,
                        const char *content_spec);

/** Refuse (exit 2, naming it) a trace that is not a regular file: the
 *  tools read each trace more than once (its format sniffed, its header
 *  checked against the content, then replayed), and a pipe read again
 *  goes on where the last reader stopped. */
void trace_refuse_non_regular(const char *const *traces, size_t ntraces);

/** zc_content_check_trace() for each of the n traces of a run alone (a
 *  run's later traces are opened only when their turn comes, so checking
 *  the run as one would see the first one's header only): 0, or a -ZC_E*
 *  code with "PATH: what is wrong" in err[errlen], PATH the trace at
 *  fault (trace_content_status() gives the exit status). */
int trace_content_check_each(const char *const *paths, size_t n,
                             const zc_trace_options *opt, const zc_content *src,
                             char *err, size_t errlen);

/** Whether src (opened from spec) gives the pages of request req: 0, or
 *  -1 with a one-line message in err[errlen] when req is file-keyed and
 *  the source has no file pages.  Block requests always pass; other
 *  errors are left to the replay, which meets them in turn. */
int trace_content_check(zc_content *src, const char *spec,
                        const zc_request *req, size_t page_size, char *err,
                        size_t errlen);

/** After zc_replay_request(req) failed with rc: a one-line message in
 *  err[errlen] naming the content source spec and, when the source
 *  refuses one of req's pages, that page's key ("content source pack:X:
 *  page (dev D, inode I, index N) is not in it"); else rc's text.  The
 *  source has no error text of its own to give. */
void trace_content_explain(zc_content *src, const char *spec,
                           const zc_request *req, size_t page_size, int rc,
                           char *err, size_t errlen);

/** The exit status for a replay that failed with rc: 1 out of memory or
 *  an internal error, 2 bad input (a trace, a content source). */
int trace_content_status(int rc);

/** A --read-ahead-kb value: KiB from 0 to 2^22.  0, or -1 if v is not
 *  one. */
int trace_parse_read_ahead(const char *v, uint64_t *kb);

/** Whether name is a registered page-cache model. */
bool trace_model_known(const char *name);

/** Set up the page-cache model of r: the model name (NULL: the default)
 *  and its readahead limit: kb when kb_set, else the read_ahead_kb field
 *  of trace t's header when it has one, else the library's default.
 *  Before the first request.  0; -1 with a one-line message naming
 *  trace_path in err[errlen] (a field that is not KiB, an unknown model);
 *  or a -ZC_E* code of the library. */
int trace_model_setup(zc_replay *r, const zc_trace *t, const char *trace_path,
                      const char *model, bool kb_set, uint64_t kb, char *err,
                      size_t errlen);

#endif
