/*
 * sim/run/session.h - what the modules of the run floor (fidelity, the
 * sweep) take from a session besides its public calls (zcache_sim.h):
 * the request stream with its one content check, a replay set up as the
 * session sets one up, and the one explanation of a failed request.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_SIM_RUN_SESSION_H
#define ZC_SIM_RUN_SESSION_H

#include "zcache_sim.h"

/** The next request of a block trace or access stream (not an op
 *  stream): 1 and *req; 0 at the end; a -ZC_E* code with the message in
 *  zc_session_error().  The first file-keyed request is checked against
 *  the content source (a source without file pages is refused here, with
 *  what to use instead). */
int zc__session_next(zc_session *s, zc_request *req);

/** zc_trace_resident() of the session's trace. */
int zc__session_resident(const zc_session *s, uint32_t dev, uint64_t *pages);

/** A replay of pc_pages pages in front of zc (NULL: none), with the
 *  session's model, readahead limit and content source.  0; a -ZC_E* code
 *  with the message in zc_session_error() (a page cache that does not fit
 *  in memory is named with its size). */
int zc__session_replay_create(zc_session *s, uint64_t pc_pages, zc_cache *zc,
                              zc_replay **out);

/** After zc_replay_request(req) or zc_replay_set_page_cache() failed with
 *  rc: the message in zc_session_error(), "TRACE: request N: ..." naming
 *  the content source and the page it refused when it refused one.  doing
 *  (NULL: replaying the request) says what failed.  Returns rc. */
int zc__session_fail(zc_session *s, const zc_request *req, uint64_t n, int rc,
                     const char *doing);

/** The first trace's path, for messages. */
const char *zc__session_path(const zc_session *s);

/** The content source (NULL with no_content). */
zc_content *zc__session_source(const zc_session *s);

/** A printf-style message into zc_session_error(); returns rc. */
int zc__session_set_error(zc_session *s, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
