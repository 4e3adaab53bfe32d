/*
 * zcache_trace.h - feeding recorded block traces to libzcache.
 *
 * The pipeline (see DESIGN.md):
 *
 *   block trace --reader--> requests (dev, byte offset, length, R/W, time)
 *     --split--> page accesses, keyed (device, page number)
 *     --page-cache model (LRU of P pages)-->
 *         read hit: nothing;  read miss: zcache get (hit = disk read avoided)
 *         write: zcache invalidate_page, then page-cache insert/touch
 *         eviction of page v: zcache put(v) with v's content
 *     --> libzcache, and counters.
 *
 * Readers: one per trace format, found by name (zc_trace_format_name()),
 * or sniffed from the content ("auto").  Content sources give pages their
 * bytes, since block traces carry none.  The replay object runs the model.
 *
 * Errors: functions return 0 / a count, or a negative -ZC_E* code; for
 * bad input (-ZC_EFORMAT, -ZC_EIO) a one-line message naming the file and
 * the line or byte offset is available from the object.  Nothing here
 * prints or exits.  Objects are not thread-safe; use one per thread.
 *
 * Copyright (C) 2026 the libzcache developers.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZCACHE_TRACE_H
#define ZCACHE_TRACE_H

#include "zcache.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * Requests and readers
 * ------------------------------------------------------------------------ */

/** One block request. */
typedef struct zc_request {
    uint64_t time_ns; /* as recorded, from the trace's own origin */
    uint32_t dev;     /* device: (major << 20) | minor, or the format's
                         device number */
    bool write;       /* false: read */
    uint64_t offset;  /* bytes from the device start */
    uint64_t length;  /* bytes, > 0 */
} zc_request;

typedef struct zc_trace zc_trace;

/** Options for opening a trace. */
typedef struct zc_trace_options {
    const char *format; /* a registered name, or NULL / "auto" to sniff */
    size_t page_size;   /* block lists name pages of this size; 0 = 4096 */
} zc_trace_options;

/**
 * Open a trace made of npaths files (per-CPU blktrace files are merged by
 * time; other formats are read one file after the other).  A single
 * blktrace base name "NAME.blktrace" opens NAME.blktrace.0, .1, ... .
 *
 * Returns 0 and *out; -ZC_EINVAL (bad arguments, unknown format);
 * -ZC_EIO (a file cannot be opened or is a directory); -ZC_EFORMAT (the
 * format cannot be recognised, e.g. an empty first file with "auto", or a
 * binary block list whose size is not a whole number of entries);
 * -ZC_ENOMEM.  On failure, if err is not
 * NULL, a one-line message naming the file is written to err[errlen].
 */
ZC_API int zc_trace_open(const char *const *paths, size_t npaths,
                         const zc_trace_options *opt, zc_trace **out, char *err,
                         size_t errlen);

/** The next request: 1 and *req; 0 at the end; -ZC_EFORMAT or -ZC_EIO on
 *  bad input (zc_trace_error() says where).  Zero-length requests and
 *  discards are skipped, as DESIGN.md says. */
ZC_API int zc_trace_next(zc_trace *t, zc_request *req);

/** The last error's message ("FILE:LINE: what" or "FILE: offset N:
 *  what"), or "" if none. */
ZC_API const char *zc_trace_error(const zc_trace *t);

/** The name of the format being read. */
ZC_API const char *zc_trace_format(const zc_trace *t);

/** Close; NULL is fine. */
ZC_API void zc_trace_close(zc_trace *t);

/** The i-th registered trace format's name and one-line description, or
 *  NULL past the end. */
ZC_API const char *zc_trace_format_name(size_t i);
ZC_API const char *zc_trace_format_doc(size_t i);

/* ------------------------------------------------------------------------
 * Page contents
 * ------------------------------------------------------------------------ */

typedef struct zc_content zc_content;

/**
 * A content source by spec: "synth[:SEED]" (a seeded mix of zero,
 * text-like, binary-like and incompressible pages calibrated to real file
 * pages), "zero", "random[:SEED]", "corpus:FILE" (a real file's pages,
 * keys mapped onto them deterministically), "image:FILE" (the device
 * image: the bytes at the page's own offset; pages past its end are zero).
 * Returns 0; -ZC_EINVAL (bad spec, with a message in err); -ZC_EIO;
 * -ZC_ENOMEM.
 */
ZC_API int zc_content_open(const char *spec, size_t page_size, zc_content **out,
                           char *err, size_t errlen);

/** Fill page[page_size] with the content of (dev, page number, version):
 *  the same arguments always give the same bytes; a write gives a page a
 *  new version.  Returns 0; -ZC_EIO; -ZC_EINVAL for NULL arguments. */
ZC_API int zc_content_page(zc_content *src, uint32_t dev, uint64_t pageno,
                           uint64_t version, void *page);

ZC_API void zc_content_close(zc_content *src);

/* ------------------------------------------------------------------------
 * Replay: the page-cache model in front of a zcache
 * ------------------------------------------------------------------------ */

typedef struct zc_replay zc_replay;

/** Counters of a replay; names as in zcache-replay's output. */
typedef struct zc_replay_stats {
    uint64_t requests;      /* requests taken */
    uint64_t accesses;      /* page accesses */
    uint64_t reads, writes; /* page accesses by kind */
    uint64_t pc_hits;       /* page-cache hits (reads and writes) */
    uint64_t zc_gets;       /* read misses: zcache gets */
    uint64_t zc_hits;       /* gets that hit: disk reads avoided */
    uint64_t disk_reads;    /* read misses that the zcache did not serve */
    uint64_t zc_puts;       /* page-cache evictions put to the zcache */
    uint64_t zc_stored;     /* puts the zcache stored */
    uint64_t resident_hits; /* accesses whose page was in either tier */
    uint64_t pc_evictions;  /* pages evicted from the page cache */
    uint64_t zc_wrong;      /* with verification on: zcache hits whose bytes
                               differ from the page's latest content (a
                               library bug; always 0) */
} zc_replay_stats;

/**
 * A replay: a page cache of pc_pages pages (LRU) in front of the cache zc
 * (NULL: no zcache; then content may be NULL too).  Neither zc nor content
 * is owned.  Returns 0; -ZC_EINVAL; -ZC_ENOMEM.
 */
ZC_API int zc_replay_create(uint64_t pc_pages, size_t page_size, zc_cache *zc,
                            zc_content *content, zc_replay **out);

/** Feed one request: split into pages, each run through the model.
 *  Returns 0; -ZC_ENOMEM; an error of the zcache or the content source. */
ZC_API int zc_replay_request(zc_replay *r, const zc_request *req);

/** Verification: compare every zcache hit with the page's latest content
 *  (costs a content generation per hit); mismatches count in zc_wrong. */
ZC_API void zc_replay_verify(zc_replay *r, bool on);

ZC_API int zc_replay_stats_get(const zc_replay *r, zc_replay_stats *out);

/** Destroy; NULL is fine. */
ZC_API void zc_replay_destroy(zc_replay *r);

#ifdef __cplusplus
}
#endif

#endif /* ZCACHE_TRACE_H */
