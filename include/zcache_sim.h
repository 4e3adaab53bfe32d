/*
 * zcache_sim.h - the simulation layer of libzcache: recorded traces played
 * through a page-cache model in front of a zcache.
 *
 * The pipeline (docs/ARCHITECTURE.md tells the life of one access):
 *
 *   trace --reader--> requests (dev or file, byte offset, length, R/W, time)
 *     --split--> page accesses, keyed (device or file, page number)
 *     --page-cache model (a registry: exact LRU, Linux's file LRU)-->
 *         read hit: nothing;  read miss: zcache get (hit = disk read avoided)
 *         write: zcache invalidate_page, then page-cache insert/touch
 *         eviction of page v: zcache put(v) with v's content
 *     --player--> libzcache (zcache.h), and the counters (zc_replay_stats)
 *
 * Readers: one per trace format, found by name (zc_trace_format_name()),
 * or sniffed from the content ("auto").  Content sources give pages their
 * bytes, since block traces carry none.  The replay object runs the model;
 * the player is the one place that plays ops into the zcache and counts.
 * Op streams (.zct) record what a replay played, to be played again.
 *
 * This layer uses the core only through zcache.h: the build gives it no
 * path to the core's internals, and the core none to it.  zcache_trace.h,
 * its former name, includes this header.
 *
 * Errors: functions return 0 / a count, or a negative -ZC_E* code; for
 * bad input (-ZC_EFORMAT, -ZC_EIO) a one-line message naming the file and
 * the line or byte offset is available from the object.  Nothing here
 * prints or exits.  Objects are not thread-safe; use one per thread.
 *
 * Copyright (C) 2026 the libzcache developers.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZCACHE_SIM_H
#define ZCACHE_SIM_H

#include <stdio.h>

#include "zcache.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * Requests and readers
 * ------------------------------------------------------------------------ */

/** One request: a block request (ino == 0), or an access to a file's
 *  pages (ino != 0: from an access stream). */
typedef struct zc_request {
    uint64_t time_ns; /* as recorded, from the trace's own origin */
    uint32_t dev;     /* device: (major << 20) | minor, or the format's
                         device number; for a file, the file system's
                         s_dev */
    bool write;       /* false: read */
    uint64_t offset;  /* bytes from the device start (ino 0), or from the
                         file's start */
    uint64_t length;  /* bytes, > 0 */
    uint64_t ino;     /* 0: a block request, pages keyed by the device as
                         the kernel's block-device page cache keys them;
                         else the inode whose pages are touched: pool =
                         the file system dev, key = ino, index = page in
                         the file */
    uint32_t flags;   /* ZC_REQ_* */
    uint64_t file_size; /* with ZC_REQ_SIZE: the file's size in bytes as
                           last recorded (an access stream records it);
                           else 0 */
} zc_request;

/* zc_request.flags */
#define ZC_REQ_MAPPED 1u /* a read through a memory mapping (a fault or
                            fault-around), not read(2) */
#define ZC_REQ_AROUND 2u /* with ZC_REQ_MAPPED: fault-around (the kernel
                            maps pages it has cached and reads none) */
#define ZC_REQ_SIZE 4u   /* file_size is known */

typedef struct zc_trace zc_trace;

/** The default bound on one request's length: 1 GiB, far above any real
 *  device request (Linux splits requests at max_sectors_kb, a few MiB) or
 *  read(2) of an access stream, and short enough that the replay, which
 *  walks a request page by page, takes seconds over it, not hours. */
#define ZC_TRACE_MAX_REQUEST_DEFAULT (1ull << 30)

/** Options for opening a trace. */
typedef struct zc_trace_options {
    const char *format;   /* a registered name, or NULL / "auto" to sniff */
    size_t page_size;     /* block lists name pages of this size; 0 = 4096 */
    uint64_t max_request; /* bytes one request may span, in every format:
                             zc_trace_next() refuses a longer one
                             (-ZC_EFORMAT, naming its line or offset);
                             0 = ZC_TRACE_MAX_REQUEST_DEFAULT */
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
 *  bad input (zc_trace_error() says where), a request longer than
 *  max_request included.  Zero-length requests and discards are skipped,
 *  as docs/ARCHITECTURE.md says. */
ZC_API int zc_trace_next(zc_trace *t, zc_request *req);

/** The last error's message ("FILE:LINE: what" or "FILE: offset N:
 *  what"), or "" if none. */
ZC_API const char *zc_trace_error(const zc_trace *t);

/** Where the request zc_trace_next() last returned came from, into
 *  buf[n]: "FILE:LINE" (a text format), "FILE: offset N" (a binary
 *  record), or "FILE" (per-CPU files merged by time); "" before the first.
 *  Returns buf.  For a message about a request that the reader accepted
 *  but its user refuses. */
ZC_API const char *zc_trace_where(const zc_trace *t, char *buf, size_t n);

/** The name of the format being read. */
ZC_API const char *zc_trace_format(const zc_trace *t);

/** A header field of the trace (access streams carry "key=value" fields:
 *  page_size, pack, memory_limit, read_ahead_kb, ...), or NULL if the
 *  format has none or the field is absent.  Valid until zc_trace_close(). */
ZC_API const char *zc_trace_meta(const zc_trace *t, const char *key);

/** The kernel's resident page count of file system dev as last recorded
 *  at or before the request last returned by zc_trace_next() (access
 *  streams carry such samples): 1 and *pages; 0 if no sample of dev has
 *  been read yet (or the format has none). */
ZC_API int zc_trace_resident(const zc_trace *t, uint32_t dev,
                             uint64_t *pages);

/** Close; NULL is fine. */
ZC_API void zc_trace_close(zc_trace *t);

/** The i-th registered trace format's name and one-line description, or
 *  NULL past the end. */
ZC_API const char *zc_trace_format_name(size_t i);
ZC_API const char *zc_trace_format_doc(size_t i);

/* ------------------------------------------------------------------------
 * Access streams (.zca): what programs asked of the page cache
 * ------------------------------------------------------------------------ */

/*
 * An access stream records every page a program reads (read(2) or through
 * a mapping) or writes, keyed as cleancache keys pages: file system (its
 * s_dev), inode, page index; with the time, samples of the kernel's
 * resident page count per file system, and file sizes.  Its readers are
 * trace formats ("access": the compact binary form, "access-text": the
 * text form), so zc_trace_open() reads them like any trace, sniffed by
 * "auto"; each access is one zc_request with ino != 0 and a whole number
 * of pages, mapped ones flagged ZC_REQ_MAPPED (a fault) or ZC_REQ_MAPPED
 * | ZC_REQ_AROUND (fault-around), and those of a file whose size the
 * stream recorded before them (in the same file of the trace) flagged
 * ZC_REQ_SIZE with file_size.
 * Header fields (zc_trace_meta()) say what the recorder knew: page_size
 * (always), pack (the content pack beside the stream, if any),
 * memory_limit, read_ahead_kb, and anything else the writer was given.
 */
typedef struct zc_access_writer zc_access_writer;

/** Options of an access-stream writer; zero fields take the defaults. */
typedef struct zc_access_writer_options {
    size_t page_size; /* 0: 4096 */
    bool text;        /* the text form */
    int level;        /* zstd level of the binary form: 0 = 19 */
    const char *meta; /* extra header fields, "key=value\n..." or NULL */
} zc_access_writer_options;

/** Create an access stream at path ("-": standard output).  Returns 0;
 *  -ZC_EINVAL; -ZC_EIO (message in err); -ZC_ENOMEM. */
ZC_API int zc_access_writer_open(const char *path,
                                 const zc_access_writer_options *opt,
                                 zc_access_writer **out, char *err,
                                 size_t errlen);

/** Append one access: req->ino != 0, offset and length whole pages,
 *  time_ns not before the previous record's.  Flags: ZC_REQ_MAPPED (a
 *  read: a fault), with ZC_REQ_AROUND (fault-around: AROUND without
 *  MAPPED is refused), ZC_REQ_SIZE (req->file_size is the file's size: a
 *  size record goes before the access when it is not the size last
 *  written for the file, so that a request read back carries it).
 *  Returns 0; -ZC_EINVAL (a bad request, with a message); -ZC_EIO;
 *  -ZC_ENOMEM.  Errors are sticky. */
ZC_API int zc_access_write(zc_access_writer *w, const zc_request *req);

/** Append a sample: at time_ns the kernel held `pages` pages of file
 *  system dev.  Returns as zc_access_write(). */
ZC_API int zc_access_write_resident(zc_access_writer *w, uint64_t time_ns,
                                    uint32_t dev, uint64_t pages);

/** Append a size record: from time_ns on, file ino (!= 0) of file system
 *  dev has `bytes` bytes; every later request of the file read from the
 *  stream carries ZC_REQ_SIZE and file_size = bytes, until the file's
 *  next size record.  Written whatever the size last written was.
 *  Returns as zc_access_write() (-ZC_EINVAL: ino 0, or time_ns before the
 *  previous record's). */
ZC_API int zc_access_write_size(zc_access_writer *w, uint64_t time_ns,
                                uint32_t dev, uint64_t ino, uint64_t bytes);

/** The last error's message, or "". */
ZC_API const char *zc_access_writer_error(const zc_access_writer *w);

/** Finish (an end record that makes the stream complete), close, free;
 *  the file is written under a temporary name and renamed into place here
 *  (zc_output_commit()), so that no reader sees a part of it.  Returns 0
 *  or the first error of the writer's life (then the old file, if any,
 *  stays).  NULL is fine. */
ZC_API int zc_access_writer_close(zc_access_writer *w, char *err,
                                  size_t errlen);

/** Close and free w without finishing the stream, after a failure part
 *  way: the temporary file is removed (a file of that name stays as it
 *  was); a stream written in place (standard output, a FIFO) ends with no
 *  end record, so that its reader sees it incomplete, never a cut stream
 *  passed off as whole.  NULL is fine. */
ZC_API void zc_access_writer_abandon(zc_access_writer *w);

/* ------------------------------------------------------------------------
 * Content packs (.zcp): page contents stored once
 * ------------------------------------------------------------------------ */

/*
 * A content pack holds distinct page contents, each stored once however
 * often it occurs, in zstd-compressed blocks with an index, so that any
 * content is read back by its id without decompressing the rest; and a
 * map from page keys to contents: (dev, 0, n) is page n of block device
 * dev, (dev, ino, n) page n of inode ino of file system dev.  The streams
 * of one recording (block trace, access stream, kernel op stream) share
 * one pack: the content source "pack:FILE" gives the pages of block traces
 * and access streams, and an op stream written with a pack refers to its
 * contents by id instead of carrying them.
 */
typedef struct zc_pack_writer zc_pack_writer;
typedef struct zc_pack zc_pack;

/** Create a pack at path (a regular file, or a new one: its blocks are
 *  read back as it is written, and the index written last).  level:
 *  zstd level, 0 = 19.  Returns 0; -ZC_EINVAL; -ZC_EIO (message in err);
 *  -ZC_ENOMEM. */
ZC_API int zc_pack_writer_open(const char *path, size_t page_size, int level,
                               zc_pack_writer **out, char *err,
                               size_t errlen);

/** Store page[page_size] unless an equal content is stored already; *id
 *  = its content id (ids are 0, 1, ... in order of first appearance).
 *  Returns 0; -ZC_EIO; -ZC_ENOMEM.  Errors are sticky. */
ZC_API int zc_pack_add(zc_pack_writer *w, const void *page, uint64_t *id);

/** Map the key (dev, ino, index) to page (stored as zc_pack_add() does);
 *  a key mapped again takes the new content.  *id as zc_pack_add() (id may
 *  be NULL).  Returns as zc_pack_add(). */
ZC_API int zc_pack_map(zc_pack_writer *w, uint32_t dev, uint64_t ino,
                       uint64_t index, const void *page, uint64_t *id);

/** The path the pack is being written to. */
ZC_API const char *zc_pack_writer_path(const zc_pack_writer *w);

/** The pack's identity: a 64-bit number drawn when the writer is opened
 *  (never 0), stored in the pack.  Streams that refer to the pack carry it
 *  (header field pack_id, 16 hex digits), so that a stream is never played
 *  with another recording's pack. */
ZC_API uint64_t zc_pack_writer_id(const zc_pack_writer *w);

ZC_API const char *zc_pack_writer_error(const zc_pack_writer *w);

/** Write the blocks still open and the index, close, free, and rename the
 *  pack into place (zc_output_commit()).  Returns 0 or the first error
 *  (then the pack's temporary file is removed, and an old file of that
 *  name stays).  NULL is fine. */
ZC_API int zc_pack_writer_close(zc_pack_writer *w, char *err, size_t errlen);

/** Close and free w without finishing the pack, after a failure part way:
 *  its temporary file is removed (a pack written in place, to a FIFO,
 *  ends with no index: no pack).  NULL is fine. */
ZC_API void zc_pack_writer_abandon(zc_pack_writer *w);

/** Open a pack.  Returns 0; -ZC_EIO; -ZC_EFORMAT (not a pack, bad
 *  checksum, truncated: message in err); -ZC_ENOMEM. */
ZC_API int zc_pack_open(const char *path, zc_pack **out, char *err,
                        size_t errlen);

ZC_API size_t zc_pack_page_size(const zc_pack *p);
ZC_API uint64_t zc_pack_contents(const zc_pack *p); /* distinct contents */
ZC_API uint64_t zc_pack_id(const zc_pack *p); /* the writer's id */
ZC_API uint64_t zc_pack_keys(const zc_pack *p);     /* mapped keys */

/** Content id into page[page_size].  Returns 0; -ZC_EINVAL (no such id);
 *  -ZC_EFORMAT or -ZC_EIO (a damaged block: zc_pack_error() says where). */
ZC_API int zc_pack_page(zc_pack *p, uint64_t id, void *page);

/** The content mapped to (dev, ino, index): 0 and *id; -ZC_ENOENT if the
 *  key is not mapped. */
ZC_API int zc_pack_lookup(const zc_pack *p, uint32_t dev, uint64_t ino,
                          uint64_t index, uint64_t *id);

ZC_API const char *zc_pack_error(const zc_pack *p);

/** Close; NULL is fine.  Not thread-safe: one object per thread. */
ZC_API void zc_pack_close(zc_pack *p);

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

/** The same for page `index` of inode ino of file system dev (ino 0:
 *  zc_content_page()).  Synthetic sources mix ino into the key; "pack:FILE"
 *  looks the key up in the pack (-ZC_ENOENT if it is not there); "image"
 *  has no file map and returns -ZC_EINVAL for ino != 0. */
ZC_API int zc_content_file_page(zc_content *src, uint32_t dev, uint64_t ino,
                                uint64_t index, uint64_t version, void *page);

/** The last page src refused, and why: "page (dev D, inode I, index N)
 *  is not in it" (a pack without it), or the damage found (a pack's block
 *  with its offset); "" while none was.  Valid until the next call. */
ZC_API const char *zc_content_error(const zc_content *src);

/** Whether src may give the pages of trace t: a trace whose header names a
 *  pack (fields pack_id, and pack: a file name beside the trace, no '/'
 *  and no "..") must be read with that pack, and a "pack:" source with the
 *  pack the trace names.  Returns 0; -ZC_EINVAL with a one-line message in
 *  err (another recording's pack, a pack field that is not a plain file
 *  name). */
ZC_API int zc_content_check_trace(const zc_content *src, const zc_trace *t,
                                  char *err, size_t errlen);

/** The file a content spec reads ("pack:F", "image:F", "corpus:F"): F,
 *  or NULL for a synthetic source (and for NULL). */
ZC_API const char *zc_content_file(const char *spec);

ZC_API void zc_content_close(zc_content *src);

/* ------------------------------------------------------------------------
 * Counters (of a replay and of a player)
 * ------------------------------------------------------------------------ */

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
    uint64_t zc_skipped;    /* adaptive: evictions not put (the zcache was
                               off, or the page was known to be rejected) */
    uint64_t zc_probes;     /* adaptive: skipped puts compressed to learn
                               their size (zc_estimate_page()) */
    uint64_t readahead;     /* pages a model brought in before anyone asked
                               (readahead): zcache gets, not accesses */
    uint64_t synthetic;     /* evicted pages the model read ahead, nobody
                               requested, and the content source does not
                               hold (a pack holds what the recording read):
                               put with the "synth" source's bytes */
} zc_replay_stats;

/** Every field of zc_replay_stats, in declaration order, as X(name): the
 *  one list outputs iterate (the library checks at build time that it
 *  covers the struct). */
#define ZC_REPLAY_STATS_FIELDS(X)                                              \
    X(requests) X(accesses) X(reads) X(writes) X(pc_hits) X(zc_gets)          \
    X(zc_hits) X(disk_reads) X(zc_puts) X(zc_stored) X(resident_hits)          \
    X(pc_evictions) X(zc_wrong) X(zc_skipped) X(zc_probes) X(readahead)       \
    X(synthetic)

/* ------------------------------------------------------------------------
 * The cleancache op stream and its native format (.zct)
 * ------------------------------------------------------------------------ */

/** Kinds of ops: the cleancache calls, plus page-cache hits (which reach
 *  no cleancache hook but count as accesses). */
typedef enum zc_op_kind {
    ZC_OP_INIT_FS = 1,      /* pool, page_size */
    ZC_OP_INIT_SHARED_FS,   /* pool, page_size, uuid */
    ZC_OP_PUT,              /* pool, key, index, page (content) */
    ZC_OP_GET,              /* pool, key, index, flags */
    ZC_OP_INVALIDATE_PAGE,  /* pool, key, index, flags */
    ZC_OP_INVALIDATE_INODE, /* pool, key */
    ZC_OP_INVALIDATE_FS,    /* pool */
    ZC_OP_PC_HITS,          /* count: read hits in the page cache */
} zc_op_kind;

/* zc_op.flags of ZC_OP_INVALIDATE_PAGE made by the page-cache model. */
#define ZC_OP_WRITE_MISS                                                       \
    1u                     /* a write missed the page cache: an access;        \
                              a copy in the zcache is a resident hit */
#define ZC_OP_WRITE_HIT 2u /* a write hit the page cache: an access */
/* zc_op.flags of ZC_OP_PUT: the page was hit while in the page cache (the
 * kernel's PageActive, which zcache2 admitted on); the player passes it to
 * zc_put_page_flags() as ZC_PUT_ACTIVE. */
#define ZC_OP_PUT_ACTIVE 1u
/* zc_op.flags of ZC_OP_GET: a page the page-cache model read ahead, before
 * anyone asked for it.  The player counts it as a get (zc_gets when it has
 * a zcache, then zc_hits or disk_reads) and as readahead, never as an
 * access, a read or a resident hit. */
#define ZC_OP_GET_AHEAD 1u

/**
 * One op.  `pool` is the stream's own pool number (0, 1, ... in order of
 * their init_fs), mapped to the cache's pool ids by whoever plays it.
 * `page` points at page_size bytes, valid until the next call on the
 * object that produced the op; `content` is the stream's id of those
 * bytes (equal ids, equal bytes; 0 when unknown).
 */
typedef struct zc_op {
    zc_op_kind kind;
    uint32_t pool;
    uint32_t flags;
    zc_filekey key;
    uint64_t index;
    uint64_t count;
    size_t page_size;
    uint8_t uuid[16];
    uint64_t content;
    const void *page;
} zc_op;

/* ---- writing ---- */

typedef struct zc_ops_writer zc_ops_writer;

/** Options of an op-stream writer; zero fields take the defaults. */
typedef struct zc_ops_writer_options {
    size_t page_size; /* 0: 4096 */
    bool text;        /* the text form (for people and hand-written tests) */
    int level;        /* block compression: 0 or 1 LZO1X-1 (the default),
                         9 LZO1X-999 (slow to write, smaller; same reader),
                         -1 none (blocks stored as they are) */
    uint32_t window;  /* distinct contents a reader keeps: 0 = 16384;
                         window * page_size at most 1 GiB */
    const char *meta; /* extra header fields, "key=value\n..." or NULL */
    zc_pack_writer *pack; /* NULL, or where put contents are stored: the
                             stream refers to them by pack id (header
                             field pack=BASENAME; the pack must sit beside
                             the stream).  Not owned. */
} zc_ops_writer_options;

/**
 * Create an op stream at path ("-": standard output).  The binary form
 * (.zct) is: a versioned header with key=value fields, then checksummed
 * blocks of records, each block compressed; page contents are stored once
 * and referred to by id while they are within the window, so neither side
 * holds more than `window` pages.  Returns 0; -ZC_EINVAL; -ZC_EIO (with a
 * message in err); -ZC_ENOMEM.
 */
ZC_API int zc_ops_writer_open(const char *path,
                              const zc_ops_writer_options *opt,
                              zc_ops_writer **out, char *err, size_t errlen);

/** Append one op (a put copies its page).  Consecutive PC_HITS ops are
 *  merged.  Returns 0; -ZC_EINVAL (a bad op: unknown kind or flags, pool
 *  not initialised, a put without a page or with another page size,
 *  consecutive pc_hits whose sum passes 2^64 - 1);
 *  -ZC_EIO; -ZC_ENOMEM.  Errors are sticky. */
ZC_API int zc_ops_write(zc_ops_writer *w, const zc_op *op);

/** The last error's message, or "". */
ZC_API const char *zc_ops_writer_error(const zc_ops_writer *w);

/** Finish the stream (an end record that makes it complete), close,
 *  free, and rename it into place (zc_output_commit()).  Returns 0, or the
 *  first error of the writer's life (then the temporary file is removed;
 *  a stream written in place must be treated as incomplete).  NULL is
 *  fine. */
ZC_API int zc_ops_writer_close(zc_ops_writer *w, char *err, size_t errlen);

/** Close and free w without finishing the stream, after a failure part
 *  way (as zc_access_writer_abandon()): the temporary file is removed; a
 *  stream written in place ends with no end record, so that a reader sees
 *  it incomplete.  NULL is fine. */
ZC_API void zc_ops_writer_abandon(zc_ops_writer *w);

/* ---- reading ---- */

typedef struct zc_ops_reader zc_ops_reader;

/** Whether the first bytes of a file, head[len] (16 are enough), begin an
 *  op stream, binary or text. */
ZC_API bool zc_ops_sniff(const void *head, size_t len);

/** Open an op stream, binary or text (told by its first bytes).  Returns
 *  0; -ZC_EIO; -ZC_EFORMAT (not an op stream, a bad header, an unknown
 *  major version); -ZC_ENOMEM; with a one-line message in err. */
ZC_API int zc_ops_open(const char *path, zc_ops_reader **out, char *err,
                       size_t errlen);

/** The next op: 1 and *op; 0 at the end record; -ZC_EFORMAT (bad or
 *  truncated input: a stream without its end record is an error, never a
 *  short success; pc_hits counts and ops adding up past 2^64 - 1, which
 *  would wrap a player's counters) or -ZC_EIO, with the message in
 *  zc_ops_error().  Errors are sticky. */
ZC_API int zc_ops_next(zc_ops_reader *r, zc_op *op);

/** The last error's message ("FILE: offset N: what", "FILE:LINE: what"),
 *  or "". */
ZC_API const char *zc_ops_error(const zc_ops_reader *r);

/** A header field's value, or NULL; valid until zc_ops_close().
 *  "page_size" is always there. */
ZC_API const char *zc_ops_meta(const zc_ops_reader *r, const char *key);

ZC_API size_t zc_ops_page_size(const zc_ops_reader *r);

/** Close; NULL is fine. */
ZC_API void zc_ops_close(zc_ops_reader *r);

/* ---- playing ---- */

typedef struct zc_player zc_player;

/**
 * A player drives the cache zc (NULL: no zcache, every get misses) with
 * ops and counts as the replay does (zc_replay_stats; `requests` stays 0
 * and `pc_evictions` counts puts).  Stream pools are created in zc at
 * their init op.  Not owned: zc.  Returns 0; -ZC_EINVAL; -ZC_ENOMEM.
 */
ZC_API int zc_player_create(zc_cache *zc, zc_player **out);

/** Play one op.  Returns 0; -ZC_EINVAL (a pool not initialised, a second
 *  init of one pool, a put without a page when there is a cache, an op
 *  that could carry `accesses` past 2^64 - 1: a pc_hits count larger than
 *  what is left, or any op once it is there); -ZC_ENOMEM; an error of the
 *  cache. */
ZC_API int zc_player_op(zc_player *p, const zc_op *op);

/** Verification: remember a 128-bit hash of every put's bytes and check
 *  every get hit against the last put of its key that no invalidate
 *  removed; mismatches and hits on keys with no such put count in
 *  zc_wrong.  Turn on before the first op. */
ZC_API void zc_player_verify(zc_player *p, bool on);

ZC_API int zc_player_stats_get(const zc_player *p, zc_replay_stats *out);

/** Destroy; NULL is fine. */
ZC_API void zc_player_destroy(zc_player *p);

/* ---- the cost model of a run ---- */

/** The prices of the cost model. */
typedef struct zc_prices {
    uint64_t disk_ns; /* a disk read */
    uint64_t put_ns;  /* a compression; 0: the cache's measured times
                         (and then get_ns is not used) */
    uint64_t get_ns;  /* a decompression */
} zc_prices;

/** A run's costs, in milliseconds. */
typedef struct zc_cost {
    double compress_ms;   /* compressions stored or estimated */
    double wasted_ms;     /* compressions the half-size rule rejected */
    double decompress_ms;
    double cpu_ms;        /* the three above */
    double saved_ms;      /* reads_saved disk reads, less cpu_ms */
} zc_cost;

/** The costs of a run whose zcache ended with stats zs, which saved
 *  reads_saved disk reads (its zc_hits; or, where its memory was taken from
 *  the page cache, a baseline's disk_reads less its own, which may be
 *  negative).  All zero when zs or p is NULL. */
ZC_API zc_cost zc_cost_of(const zc_stats *zs, double reads_saved,
                          const zc_prices *p);

/** A page count: a plain number is pages, one with a K/M/G/T suffix bytes
 *  (zc_parse_size()), whole pages of page_size bytes (6K of 4 KiB pages is
 *  refused, not taken for one page).  Returns 0 and *pages; -ZC_EINVAL. */
ZC_API int zc_parse_pages(const char *s, size_t page_size, uint64_t *pages);

/** The zcache's capacity at share percent (0 to 100) of a memory of
 *  `memory` bytes split with a page cache: whole pages of page_size
 *  bytes, rounded down (the page cache gets the rest). */
ZC_API uint64_t zc_share_capacity(uint64_t memory, double share,
                                  size_t page_size);

/* ---- fan-out: one op stream, many caches, in lockstep ---- */

typedef struct zc_fanout zc_fanout;

/**
 * A fan-out plays one op stream into many players, as a sweep does with
 * the ops of one page-cache model: ops are collected in batches (put pages
 * copied), and each full batch is played by `threads` threads (1 to 64,
 * the caller's among them; no more than there are players).  They first
 * compress the batch's pages into memo (NULL: not done), once for each
 * group of caches that zc_memo_shared() says compress alike, then play the
 * batch, each into its share of the players.  Every player sees every op
 * in order, so each ends exactly as if it had played the stream alone.
 * For the memo to save work, make the caches with zc_config.memo set to
 * it: a cache without it compresses its puts itself (a sweep's memo is
 * 1 GiB; it stops taking entries when full).  Every pool of the stream
 * must have pages of page_size bytes.  Not owned:
 * memo, the players and their caches; nothing else may use them until
 * zc_fanout_flush() returns.  Returns 0; -ZC_EINVAL; -ZC_ENOMEM.
 */
ZC_API int zc_fanout_create(size_t page_size, int threads, zc_memo *memo,
                            zc_fanout **out);

/** Add a player and the cache it drives (NULL: none), before the first
 *  op.  Returns 0; -ZC_EINVAL (after the first op, a player already
 *  added, a cache of another page size); -ZC_ENOMEM. */
ZC_API int zc_fanout_add(zc_fanout *f, zc_player *p, zc_cache *zc);

/** Take one op; a zc_op_sink, so zc_replay_sink(r, zc_fanout_sink, f)
 *  fans a replay's ops out.  Returns 0; -ZC_EINVAL (an init op of another
 *  page size).  The players' errors are kept apart: zc_fanout_status(). */
ZC_API int zc_fanout_sink(void *f, const zc_op *op);

/** Play what is collected (call it after the last op).  Returns 0. */
ZC_API int zc_fanout_flush(zc_fanout *f);

/** The first error (0: none) of the i-th player added (in the order of
 *  zc_fanout_add()); a player whose op failed
 *  gets no more ops, the others go on.  -ZC_EINVAL: no such player. */
ZC_API int zc_fanout_status(const zc_fanout *f, size_t i);

/** Stop the threads and free; NULL is fine.  The players stay; ops taken
 *  since the last zc_fanout_flush() are not played. */
ZC_API void zc_fanout_destroy(zc_fanout *f);

/* ------------------------------------------------------------------------
 * Replay: the page-cache model in front of a zcache
 * ------------------------------------------------------------------------ */

typedef struct zc_replay zc_replay;

/** The largest page cache a replay models, in pages (2^31 - 2: a model
 *  names its pages by 31-bit indexes; 8 TiB of 4 KiB pages).  The tools
 *  refuse larger --page-cache and --memory values with this number. */
#define ZC_REPLAY_PAGES_MAX 0x7FFFFFFEu

/**
 * A replay: a page cache of pc_pages pages (LRU) in front of the cache zc
 * (NULL: no zcache; then content may be NULL too).  Neither zc nor content
 * is owned.  Returns 0; -ZC_EINVAL (pc_pages above ZC_REPLAY_PAGES_MAX
 * among others); -ZC_ENOMEM.
 */
ZC_API int zc_replay_create(uint64_t pc_pages, size_t page_size, zc_cache *zc,
                            zc_content *content, zc_replay **out);

/** Feed one request: split into pages, each run through the model.
 *  Returns 0; -ZC_ENOMEM; an error of the zcache or the content source. */
ZC_API int zc_replay_request(zc_replay *r, const zc_request *req);

/**
 * Change the page cache's capacity mid-run, in pages (an adaptive split
 * moves memory between the page cache and the zcache).  Growing takes
 * effect at once; shrinking evicts the least recently used pages, each
 * put to the zcache as any eviction is.  Returns 0; -ZC_EINVAL (NULL, or
 * pages too large); -ZC_ENOMEM (nothing changed); or the error of an op it
 * emitted (the page cache then holds fewer pages than before).
 */
ZC_API int zc_replay_set_page_cache(zc_replay *r, uint64_t pages);

/**
 * Page-cache models, found by name.  zc_page_cache_model_name(i) is the
 * i-th registered model for i = 0, 1, ... (NULL past the end), and
 * zc_page_cache_model_doc(i) says in one line what it is.  "lru" (exact
 * least-recently-used, the default) is the first; "linux" follows the
 * kernel's two-list replacement, workingset refaults and readahead.
 */
ZC_API const char *zc_page_cache_model_name(size_t i);
ZC_API const char *zc_page_cache_model_doc(size_t i);

/**
 * Choose the page-cache model of r by name (default "lru"), before its
 * first request and before zc_replay_adapt().  Returns 0; -ZC_EINVAL
 * (NULL, a name no model has, or r has taken a request).
 */
ZC_API int zc_replay_set_model(zc_replay *r, const char *name);

/**
 * The readahead limit of a model that reads ahead, in KiB: the device's
 * read_ahead_kb (default 128, a disk's; 0: no readahead).  An access
 * stream records it (zc_trace_meta(t, "read_ahead_kb")).  Before the
 * first request.  Returns 0; -ZC_EINVAL (NULL, more than
 * ZC_READ_AHEAD_KB_MAX, or r has taken a request).
 */
ZC_API int zc_replay_set_read_ahead(zc_replay *r, uint64_t kb);

/** The largest readahead limit, in KiB (4 GiB), that a replay, a session
 *  and an access stream's header field read_ahead_kb take. */
#define ZC_READ_AHEAD_KB_MAX (1u << 22)

/** The pages the page cache holds now (0 for NULL). */
ZC_API uint64_t zc_replay_resident(const zc_replay *r);

/**
 * Adaptive sizing: a fixed memory shared by the page cache and the zcache,
 * and a controller that moves the boundary between them.
 *
 * The controller keeps one recency stack over the pages in both tiers and
 * pages recently dropped from them (ghosts: keys without data, up to
 * `ghost_factor` times the pages M holds), each with what it would cost in
 * the zcache: its measured compressed size as a share of the arena, zero
 * if it was rejected, the mean of its kind if never compressed.  From
 * every access's depth in that stack it counts, for each candidate split
 * (the zcache's share of M in `steps` steps), the page-cache hits, zcache
 * hits and disk reads that split would have had, and prices them: disk
 * reads x disk_ns + compressions x put_ns + decompressions x get_ns (the
 * measured costs make a run depend on timing; fixed ones make it
 * reproducible).  At the end of each epoch it moves to the cheapest split
 * over the recent (decayed) history when that gains more than 25 disk
 * reads' worth and 0.5% plus what the move costs (the hits the new split
 * lacks at first, the compressions of the pages a larger zcache takes);
 * else to the cheapest over the whole run when that gains as much and the
 * recent history does not price it above the split in force.
 * Admission: with a share of 0 the zcache is off and puts cost nothing,
 * except at most one in `probe_every` (8 x that once 256 sizes are known)
 * compressed without being stored to keep the sizes known, as long as
 * those probes cost at most 0.25% of the disk reads'; a page known to be
 * rejected (compressed since its last write) is not compressed again.
 */
typedef struct zc_adapt_options {
    uint64_t memory_bytes;  /* M: page-cache pages + the zcache's arena */
    uint64_t disk_ns;       /* a disk read's cost; 0: 100000 (an SSD) */
    uint64_t put_ns;        /* a compression's cost; 0: measured as it runs */
    uint64_t get_ns;        /* a decompression's cost; 0: measured */
    unsigned steps;         /* candidate shares 0, 100/steps, ..., 100 %;
                               0: 20 */
    uint64_t epoch;         /* accesses between decisions; 0: max(64, the
                               pages M holds / 8) */
    unsigned decay_percent; /* weight kept by the history at each epoch;
                               0: what halves it each time the pages M
                               holds have been accessed */
    unsigned probe_every;   /* with the zcache off, at most one unknown
                               page in this many is compressed; 0: 16 */
    unsigned start_percent; /* the zcache's share until the first decision
                               (the nearest candidate split;
                               zc_adapt_options_parse() refuses one between
                               two) */
    unsigned ghost_factor;  /* 0: 16 */
    unsigned controller;    /* ZC_ADAPT_MODEL (0), _FIXED or _ARC */
} zc_adapt_options;

/** zc_adapt_options.controller: how the split moves.
 *  MODEL  the cheapest candidate of the model's histories (below);
 *  FIXED  never: the zcache keeps start_percent of M (20, zswap's default
 *         pool limit, when start_percent is 0); a baseline;
 *  ARC    an ARC-style balancer: a disk read that the next larger zcache
 *         would have served moves the boundary a page towards the zcache,
 *         one the next larger page cache would have served a page back,
 *         and each epoch takes the candidate nearest the boundary; CPU
 *         is not weighed; a baseline. */
enum { ZC_ADAPT_MODEL, ZC_ADAPT_FIXED, ZC_ADAPT_ARC };

/**
 * Set options from "key=value,..." (memory=64M, disk=100us|8ms|hdd|ssd|
 * nvme, put=5us, get=1us, steps=20, epoch=4096, decay=90, probe=16,
 * start=0, ghosts=16); keys not named keep their values.  Returns 0 or
 * -ZC_EINVAL with a one-line message in err.
 */
ZC_API int zc_adapt_options_parse(zc_adapt_options *opt, const char *spec,
                                  char *err, size_t errlen);

/** The keys zc_adapt_options_parse() takes: the i-th key's name (NULL
 *  past the last) and a one-line description with its default. */
ZC_API const char *zc_adapt_key_name(size_t i);
ZC_API const char *zc_adapt_key_doc(size_t i);

/** The name of controller c (ZC_ADAPT_MODEL...: "model", "fixed", "arc"),
 *  as the controller key takes it; NULL past the last. */
ZC_API const char *zc_adapt_controller_name(unsigned c);

/** One epoch of an adaptive replay. */
typedef struct zc_adapt_epoch {
    uint64_t accesses; /* accesses before the epoch's end */
    uint64_t pc_pages; /* the split in force during the epoch */
    uint64_t zc_bytes; /* (0: the zcache was off) */
    uint64_t next_pc_pages, next_zc_bytes; /* the split chosen at its end */
    double est_disk_reads; /* decayed history: disk reads of the chosen and */
    double est_cost_ns;    /* its cost */
    double put_ns, get_ns; /* the CPU costs used */
    uint64_t disk_reads, zc_hits, pc_hits; /* counters at the epoch's end */
} zc_adapt_epoch;

/**
 * Make r adaptive: from now on the page cache and the zcache (whose
 * capacity is set here) share opt->memory_bytes, split by the controller.
 * Call before the first request, on a replay with a zcache and no op
 * writer or sink (the split makes the op stream depend on the zcache).
 * Make the zcache with capacity M: allocators lay out their size classes
 * by the capacity they are made with (zsmalloc's spans), and the
 * controller may give it all of M.
 * Returns 0; -ZC_EINVAL (bad options, a steps value above 100); -ZC_ENOMEM.
 */
ZC_API int zc_replay_adapt(zc_replay *r, const zc_adapt_options *opt);

/** The epochs so far (NULL and 0 when not adaptive); valid until the next
 *  request. */
ZC_API size_t zc_replay_adapt_log(const zc_replay *r,
                                  const zc_adapt_epoch **out);

/** Verification (zc_player_verify()): every zcache hit is checked against
 *  the bytes of the page's last put; mismatches count in zc_wrong.  Since
 *  every put carries the page's latest content and writes invalidate, a
 *  correct cache never counts one.  Turn on before the first request. */
ZC_API void zc_replay_verify(zc_replay *r, bool on);

/** Save the op stream the replay makes (the same whatever zcache is
 *  behind it) to w, which needs a content source.  Call it before the
 *  first request (a stream must hold its init ops).  Not owned: close w
 *  after the last request.  Returns 0; -ZC_EINVAL. */
ZC_API int zc_replay_save_ops(zc_replay *r, zc_ops_writer *w);

/** A function given every op the replay makes, after the writer and
 *  before the player; a non-zero return stops the replay with that code.
 *  op->page is valid during the call only. */
typedef int (*zc_op_sink)(void *ctx, const zc_op *op);

/** Hand every op to fn(ctx, op) (NULL: stop); pages are made for puts
 *  from the replay's content source (without one, a put carries no bytes:
 *  op->page is NULL, for sinks that only count).  Call it before the first
 *  request.  Returns 0; -ZC_EINVAL (an adaptive replay). */
ZC_API int zc_replay_sink(zc_replay *r, zc_op_sink fn, void *ctx);

ZC_API int zc_replay_stats_get(const zc_replay *r, zc_replay_stats *out);

/** Destroy; NULL is fine. */
ZC_API void zc_replay_destroy(zc_replay *r);

/* ------------------------------------------------------------------------
 * The LRU miss-ratio curve of the page-cache tier, in one pass
 * ------------------------------------------------------------------------ */

typedef struct zc_mrc zc_mrc;

/** An exact LRU hit curve: feed page accesses once, then ask the hits of
 *  any page-cache size (an LRU of C pages hits the accesses whose stack
 *  distance is below C; reads and writes both count, as in the replay).
 *  Memory is O(distinct pages); an access costs O(log distinct pages).
 *  Returns 0; -ZC_EINVAL; -ZC_ENOMEM. */
ZC_API int zc_mrc_create(zc_mrc **out);

/** One access of page `page` of device `dev`.  0; -ZC_EINVAL; -ZC_ENOMEM. */
ZC_API int zc_mrc_access(zc_mrc *m, uint32_t dev, uint64_t page);

/** One access of page `index` of inode ino of file system dev (ino 0:
 *  zc_mrc_access()).  0; -ZC_EINVAL; -ZC_ENOMEM. */
ZC_API int zc_mrc_file_access(zc_mrc *m, uint32_t dev, uint64_t ino,
                              uint64_t index);

/** A request, split into pages as the replay does.  0; -ZC_EINVAL;
 *  -ZC_ENOMEM. */
ZC_API int zc_mrc_request(zc_mrc *m, const zc_request *req, size_t page_size);

/** Hits of an LRU page cache of `pages` pages over the accesses so far. */
ZC_API uint64_t zc_mrc_hits(const zc_mrc *m, uint64_t pages);

ZC_API uint64_t zc_mrc_accesses(const zc_mrc *m);
ZC_API uint64_t zc_mrc_distinct(const zc_mrc *m);

/** Destroy; NULL is fine. */
ZC_API void zc_mrc_destroy(zc_mrc *m);

/* ------------------------------------------------------------------------
 * The tracefs conversion: a raw capture into a recording
 * ------------------------------------------------------------------------ */

/*
 * A recording is made by tracing the kernel (tools/zcache-record enables
 * the events in a tracefs instance) and converting the capture: the text
 * of trace_pipe, or of `trace-cmd report` (no flags column, perhaps an
 * "INSTANCE:" in front, header lines such as "cpus=2"), one event a line:
 *
 *   block:block_bio_queue                   the Q event of blktrace
 *   filemap:mm_filemap_add_to_page_cache    a folio entered the page cache
 *   filemap:mm_filemap_delete_from_page_cache  a folio left it
 *   filemap:mm_filemap_get_pages            a read(2): the requested range
 *   filemap:mm_filemap_map_pages            fault-around of a mapping
 *   filemap:mm_filemap_fault                one page of a mapping
 *   ext4:ext4_da_write_begin, ext4_write_begin  a buffered write
 *   vmscan:mm_vmscan_*_reclaim_begin/_end   reclaim windows, per task
 *
 * of one file system on one block device: dev, or without it the one
 * device the capture's events name, found by a first pass over the
 * capture (a regular file; several devices need dev, and events of other
 * devices are ignored and counted).  The conversion follows the kernel's
 * page cache page by page (2^order pages a folio, order at most 10:
 * x86-64's MAX_PAGE_ORDER, the largest block its page allocator gives)
 * and writes:
 *
 *   blkparse    the Q events in blkparse's default text format, after
 *               comment lines saying they were made from tracefs events
 *   access      the access stream: one request per read, fault or write,
 *               and per run of cached pages of a fault-around; samples of
 *               the file system's resident pages; with sizes, reads
 *               clipped to the file's size and sizes recorded
 *   kernel_ops  the kernel's op stream: a page added is a get; a page
 *               deleted inside a reclaim window of its task, or by kswapd
 *               or kdamond, is an eviction (a put with its bytes); any
 *               other delete invalidates the page.  Pool 0 is the file
 *               system (key: inode), pool 1 the block device's metadata
 *               pages (bdevfs pages of inode dev: key the device)
 *   pack        every key the streams name mapped to its content, read
 *               from the device image through the files' extents; pages
 *               of files deleted during the run get synthetic contents
 *               ("synth:1"), counted; the access stream's header names the
 *               pack (pack=, pack_id=), the op stream refers to it
 *   inodes      "ex <INO>" for every inode the capture names (the debugfs
 *               commands that list their extents, for a second pass)
 *
 * tools/zcache-tracefs documents each output in full; its options are
 * these fields, spelled with dashes, and the messages name them so.
 *
 * Times: ns since the first event line.  The events of one CPU never go
 * back in time; across CPUs, whose clocks and merged buffers may be a hair
 * apart, an event older than the newest one before it by at most
 * ZC_TRACEFS_REORDER_MAX_NS takes the newest one's time (so every output
 * goes forward), counted as reordered, wherever it is (the first event
 * included); an older one is bad input.
 *
 * Errors: a -ZC_E* code and a one-line message.  Bad input is
 * -ZC_EFORMAT, "FILE:LINE: what": a line that does not parse, longer than
 * 1 MiB, holding a NUL byte or (the last one) without its newline, lost
 * events (the capture is incomplete), an event older than its CPU's
 * previous one, or older than the newest event (another CPU's) by more
 * than ZC_TRACEFS_REORDER_MAX_NS, a folio order above 10, an access of
 * more than 2^20 pages (a read(2) moves at most 2 GiB), a bio of more
 * than 4 GiB (the kernel's size of a bio is 32 bits); "FILE: what" for a
 * capture with no event of the device, or without dev of no device or of
 * several.  An input that cannot be opened or read, or an output that
 * cannot be written, is -ZC_EIO ("FILE: why", or the writer's message and
 * code); bad options -ZC_EINVAL (read_ahead_kb above
 * ZC_READ_AHEAD_KB_MAX; no dev and a capture that is not a regular file);
 * -ZC_ENOMEM.  A failed conversion leaves none of its outputs behind:
 * each is written under a temporary name (zc_output_open()) and renamed
 * into place when the input has been read whole, one after another; a
 * failure removes the temporary files, and those already renamed if they
 * are still the regular files it put there (never a symlink or its
 * target).  Files of those names that were there before stay as they
 * were until then; a device, a FIFO or standard output gets what was
 * written.  Nothing prints or exits.
 */

/** The most an event may be older than an earlier one of another CPU:
 *  1 ms (ns).  trace_pipe merges the CPUs' buffers by time, so what it
 *  shows out of order is an event committed a little late, or clocks a
 *  little apart (trace_clock local): microseconds.  1 ms is far above
 *  that and far below anything a page-cache model times; an older event
 *  means a capture spliced or clocks that disagree (record with
 *  trace_clock mono). */
#define ZC_TRACEFS_REORDER_MAX_NS 1000000u

/** What to convert, and where to; start from zc_tracefs_options_default().
 *  Paths are not copied; NULL leaves an output (or an input) out. */
typedef struct zc_tracefs_options {
    const char *input;      /* the capture, read from its start: once with
                               dev_set (a FIFO may feed it live), else
                               twice; its base name goes into the
                               outputs' headers (source=) */
    uint32_t dev;           /* with dev_set: the device, major << 20 |
                               minor; else the one device the capture's
                               events name (never bdevfs; a regular file
                               only, read twice) */
    bool dev_set;
    uint32_t bdevfs;        /* s_dev of the block-device pseudo file system
                               (default 3) */
    const char *blkparse;   /* "-": standard output; zstd if it ends in .zst */
    const char *access;     /* .zca; the text form if it ends in .txt; "-":
                               standard output */
    const char *kernel_ops; /* .zct; the text form if .txt (then not with a
                               pack); "-": standard output */
    const char *pack;       /* a file, not "-" */
    const char *inodes;
    const char *image;      /* the device image after the run (kernel_ops
                               and pack need it, and dev_set) */
    const char *extents;    /* lines "INO LBLK PBLK LEN [u]" (u: unwritten,
                               reads as zeros); a file page no extent
                               covers is a hole if the file exists */
    const char *sizes;      /* lines "INO SIZE" before the run: reads are
                               clipped to them and the sizes recorded */
    const char *live;       /* lines "INO SIZE" after the run: the files
                               that exist (without it, those with an
                               extent) */
    uint64_t memory_limit;  /* with memory_limit_set: the access stream's
                               header field memory_limit */
    bool memory_limit_set;
    uint64_t read_ahead_kb; /* with read_ahead_set: its read_ahead_kb, at
                               most ZC_READ_AHEAD_KB_MAX */
    bool read_ahead_set;
    int level;              /* the op stream's blocks: 0 stored, 1 LZO1X-1,
                               9 LZO1X-999 (the default) */
} zc_tracefs_options;

/** What a conversion saw and wrote.  Pages count 2^order pages a folio. */
typedef struct zc_tracefs_summary {
    uint32_t dev;           /* the device converted (given, or found) */
    uint64_t lines;         /* event lines (not comments nor headers) */
    uint64_t ours;          /* events of the device or its metadata pages */
    uint64_t other;         /* events of other devices or kinds, empty
                               writes */
    uint64_t markers;       /* tracing_mark_write events */
    uint64_t bios;          /* block_bio_queue events of the device */
    uint64_t adds, deletes; /* page-cache add and delete events */
    uint64_t evictions;     /* deletes the eviction rule calls evictions */
    uint64_t invalidations; /* the other deletes (truncations) */
    uint64_t gets, puts;    /* the kernel op stream's, in pages */
    uint64_t synthetic_puts; /* puts of pages of deleted files */
    uint64_t reads, writes, mapped; /* the access stream's pages */
    uint64_t read_events, write_events, mapped_events;
    uint64_t distinct;      /* distinct pages of the access stream */
    uint64_t past_eof;      /* reads wholly past the end, dropped */
    uint64_t clipped_pages; /* pages past the end cut from reads */
    uint64_t reordered;     /* events older than the newest before them
                               (another CPU's) by at most
                               ZC_TRACEFS_REORDER_MAX_NS: given its time */
    uint64_t samples;       /* resident samples written (one before each
                               access whose count changed) */
    uint64_t resident_min, resident_median, resident_max; /* of the samples
                               (the median: zc_resident_median(), each
                               sample weighed by the accesses it held
                               for) */
    uint64_t resident_below_zero; /* deletes of pages cached before the
                                     capture began (the count stays 0) */
    uint64_t kernel_hits, kernel_misses; /* accessed pages the kernel had
                               (a page the reading task itself added since
                               its previous access is a miss) */
    uint64_t unmapped_fault_around; /* fault-around pages not cached, so
                                       not mapped: left out */
    uint64_t pack_keys;     /* keys mapped in the pack */
    uint64_t synthetic_keys; /* of them with synthetic contents */
    bool bad_input;         /* after a failure: the options or the inputs
                               were at fault (bad options, an input that
                               cannot be opened, malformed input), not the
                               system (a read or write error, memory) */
    uint64_t other_devices; /* events of devices other than dev (bdevfs
                               pages of other devices included): ignored */
    bool dev_found;         /* dev was not given: the capture's one device */
} zc_tracefs_summary;

/** The default options: no input, no outputs, bdevfs 3, level 9. */
ZC_API zc_tracefs_options zc_tracefs_options_default(void);

/**
 * Convert the capture opt->input into the outputs opt names.  Inputs are
 * read and checked (extents, sizes, live, image) before any output is
 * made.  Returns 0 and *sum; a -ZC_E* code (above) with a one-line
 * message in err[errlen] (if err is not NULL) and *sum as far as it got,
 * bad_input set as it says.  sum may be NULL.  Nothing is kept between
 * calls; calls in parallel threads (with distinct outputs) are as safe as
 * the writers they open.
 */
ZC_API int zc_tracefs_convert(const zc_tracefs_options *opt,
                              zc_tracefs_summary *sum, char *err,
                              size_t errlen);

/* ------------------------------------------------------------------------
 * Fidelity: a page-cache model set beside the kernel's page cache
 * ------------------------------------------------------------------------ */

/*
 * A recording (traces/README.md) holds one run twice: NAME.zca, the access
 * stream (what the programs asked of the page cache, with samples of the
 * kernel's resident page count), and NAME.kernel.zct, the kernel's own
 * page-cache stream (a page added is a get, a page reclaimed a put).  A
 * fidelity run replays the access stream through page-cache models and
 * sets what each does beside what the kernel did, for two sizes of the
 * model's page cache (zc_fidelity_size), on these measures:
 *
 *   kernel gets, puts  pages brought in (GET ops, and invalidate_page ops
 *       flagged ZC_OP_WRITE_MISS: a write that missed) and evictions (PUT
 *       ops) of the kernel stream's pool 0, the file system; its other
 *       pools (the block device's page cache: ext4's metadata, which the
 *       access stream cannot see) count apart as meta gets and puts.
 *       Invalidations are neither.
 *   model gets, puts   the same of the model's op stream: its read misses,
 *       readahead and write misses; its evictions.
 *   evicted overlap    the share of the kernel's pool-0 evictions that the
 *       model also makes at about the same point of its own eviction
 *       order, the two orders aligned first (zc_fidelity_match()), within
 *       a window of the median resident count: a page evicted a whole
 *       cache turnover from its aligned point is another event, and
 *       evictions only one side makes (pages cached before the
 *       recording, reclaimed first) cost only themselves.
 *   curve              per zcache capacity: the zcache hits and gets of the
 *       kernel stream's pool 0 played into a zcache of that capacity (the
 *       other pools are left out: the model cannot see them), and of the
 *       access stream replayed through the model into one; the same
 *       configuration on both sides, contents from the recording's pack.
 *
 * The model's op stream does not depend on the zcache behind it, so its
 * gets, puts and evictions are taken from its first replay; later replays
 * add curve points, and a row says if they disagreed (drift).  Invariant:
 * a kernel stream that is the lru model's own op stream at a constant
 * capacity C (zc_session_ops_writer()) beside an access stream whose
 * samples are all C gives model == kernel on every measure and an overlap
 * of 1, in both size modes.
 *
 * Nothing here prints or exits: errors are a -ZC_E* code and a one-line
 * message naming the file at fault.  Not thread-safe: one object per
 * thread.
 */

/** A resident count and the requests that saw it. */
typedef struct zc_resident_sample {
    uint64_t pages;    /* the kernel's resident page count of a file system */
    uint64_t requests; /* requests of the access stream during which it
                          held: from its sample to the file system's next */
} zc_resident_sample;

/**
 * The median resident count, defined once: samples[n] are a recording's
 * samples of the kernel's resident page count (a sample is a change of
 * its file system's count, written before a request, as the recorder
 * writes them), each with the requests it held for (entries of the same
 * count may repeat; their requests add up).  The median is over the
 * requests, not the samples: sorted by the count each saw, the count of
 * the request at rank R / 2 from 0 (R = the requests in all; the upper
 * median).  A cache that changes often while it fills weighs what those
 * few requests weigh.  Sorts samples by count, ascending, in place (so
 * samples[0] and samples[n - 1] are the least and the greatest counts);
 * returns 0 when n or R is 0.  NAME.info's median (zcache-tracefs), the
 * fidelity window and the fixed page-cache size are this number.
 */
ZC_API uint64_t zc_resident_median(zc_resident_sample *samples, size_t n);

/** An evicted page of a file: (inode, page index). */
typedef struct zc_fidelity_page {
    uint64_t ino, index;
} zc_fidelity_page;

/**
 * The eviction matcher: how many of the kernel's evictions kernel[nkernel]
 * (in order) the model's model[nmodel] (in order) also make, near the same
 * point once the two orders are aligned.  W = window; U = max(W, 16).
 *   - The kernel's evictions are taken 16 U at a time (a segment), with
 *     the model's 32 U evictions from max(0, A - W), A being the aligned
 *     point reached (0 at first).
 *   - The segment is aligned with them by a longest common subsequence:
 *     pairs of the same page (inode, index), the model position A or
 *     later, both orders kept (Hunt and Szymanski's; each kernel
 *     eviction's candidates from the largest model position down; for
 *     each length k the chain ending earliest).  A chain's jumps J add
 *     up, for each pair, the model evictions between it and the pair
 *     before (A for the first) beyond W.  The chain with the most k - J
 *     is kept (the shorter on a tie; none if none is above 0): skipping a
 *     few evictions at a time is free, a jump (to a whole turn of a loop
 *     ahead, where a chain is about as long) costs a pair per eviction.
 *   - Kernel eviction i's aligned point a(i) is the model position of the
 *     chain's last pair at or before i, but never less than A.
 *   - The first half of the segment (all of it after the kernel's last
 *     eviction) is decided in order: eviction i matches the earliest model
 *     eviction of the same page among those, not matched before, with
 *     a(i) - W <= j <= a(i) + W.  A becomes the last a(i); the next
 *     segment starts after the decided half.
 * So evictions only the kernel makes (pages cached before the recording,
 * reclaimed first) cost only themselves, however many; so do those only
 * the model makes, a few at a time or in a run that the common evictions
 * after it pay for; and the orders may differ locally by W.  Memory
 * follows W (some 4 KiB per U, and the alignment's live pairs), not the
 * numbers of evictions; each side is read once, in step.  Returns 0 and
 * *matched; -ZC_EINVAL (NULL arrays with entries, NULL matched);
 * -ZC_ENOMEM.
 */
ZC_API int zc_fidelity_match(const zc_fidelity_page *kernel, size_t nkernel,
                             const zc_fidelity_page *model, size_t nmodel,
                             uint64_t window, uint64_t *matched);

/** How the model's page cache is sized. */
typedef enum zc_fidelity_size {
    /* it follows the kernel's resident count: before each request, the
     * last sample of the request's file system; from the start, the
     * stream's first sample (not a cache of 0) */
    ZC_FIDELITY_SIZE_KERNEL,
    /* fixed: zc_resident_median() of the counts the requests saw */
    ZC_FIDELITY_SIZE_MEDIAN,
    ZC_FIDELITY_SIZES
} zc_fidelity_size;

/** "kernel" or "median" (the tools' spelling); NULL past the last. */
ZC_API const char *zc_fidelity_size_name(unsigned size);

/** Where a fidelity run is (zc_fidelity_progress). */
typedef enum zc_fidelity_stage {
    ZC_FIDELITY_STAGE_LOAD,   /* the access stream counted (a first
                                 reading: requests, resident counts) */
    ZC_FIDELITY_STAGE_KERNEL, /* the kernel stream played into the zcaches */
    ZC_FIDELITY_STAGE_REPLAY  /* a row's replay of the access stream */
} zc_fidelity_stage;

/** What a progress callback is told. */
typedef struct zc_fidelity_step {
    zc_fidelity_stage stage;
    uint64_t done;         /* requests (ops) of the stage so far; 0: it
                              starts */
    uint64_t total;        /* REPLAY: the requests of a replay; else 0 */
    size_t zcaches;        /* KERNEL: the zcaches fed */
    const char *model;     /* REPLAY: the row's model, */
    zc_fidelity_size size; /* its size, */
    size_t replay;         /* and this replay's number, from 1, */
    size_t replays;        /* of the row's replays */
} zc_fidelity_step;

/** Called at each stage's start and every 65536 requests (ops) in it; a
 *  non-zero return stops the run with -ZC_ECANCELED. */
typedef int (*zc_fidelity_progress)(void *ctx, const zc_fidelity_step *step);

/** What to compare; zero fields take the defaults (those of
 *  zcache-fidelity without options). */
typedef struct zc_fidelity_options {
    const char *const *models; /* page-cache models (a name given twice is
                                  one row); NULL: every registered one */
    size_t nmodels;
    unsigned sizes;            /* bits 1 << ZC_FIDELITY_SIZE_*; 0: both */
    const uint64_t *capacities; /* the curve's zcache capacities in bytes
                                   (sorted, each once, in the result);
                                   NULL: 256K, 1M, 4M, 16M, 64M */
    size_t ncapacities;
    bool no_curve;             /* no zcache behind either side */
    const char *zcache;        /* the zcaches' configuration
                                  (zc_config_parse()) but capacity; NULL:
                                  the library's defaults */
    const char *content;       /* the access stream's content source, as
                                  zc_session_options.content */
    bool read_ahead_set;       /* as zc_session_options */
    uint64_t read_ahead_kb;
    uint64_t memo_bytes;       /* a compression memo shared by every zcache
                                  (each distinct content compressed once);
                                  0: 1 GiB */
    bool no_memo;              /* every zcache compresses */
    zc_fidelity_progress progress;
    void *progress_ctx;
} zc_fidelity_options;

/** One point of a row's curve. */
typedef struct zc_fidelity_point {
    uint64_t capacity_bytes;
    uint64_t kernel_zc_hits, kernel_zc_gets; /* the kernel stream's pool 0 */
    uint64_t model_zc_hits, model_zc_gets;   /* the row's model */
} zc_fidelity_point;

/** One model at one size. */
typedef struct zc_fidelity_row {
    const char *model;       /* a registry string */
    zc_fidelity_size size;
    uint64_t capacity_pages; /* the page cache's capacity (SIZE_KERNEL: at
                                the start, the first sample) */
    uint64_t gets, puts;     /* model gets and puts */
    uint64_t readahead;      /* of the gets, pages read ahead */
    uint64_t synthetic;      /* the most puts of one replay of pages the
                                content source lacks (read ahead further
                                than the recording read): synthetic bytes */
    uint64_t matched;        /* kernel evictions the model matched */
    double overlap;          /* matched / kernel_puts; -1 without kernel
                                evictions */
    bool drift;              /* a later replay's zcache gets or evictions
                                differed from the op stream's (reported) */
    const zc_fidelity_point *curve; /* ncapacities points */
} zc_fidelity_row;

/** A fidelity run's results; strings and arrays live as long as the
 *  object.  Counts are 0 until zc_fidelity_compare() succeeded. */
typedef struct zc_fidelity_result {
    const char *recording;     /* as given */
    const char *access_path;   /* NAME.zca */
    const char *kernel_path;   /* NAME.kernel.zct */
    const char *content;       /* the access stream's content source */
    const char *zcache_spec;   /* "": the library's defaults */
    size_t page_size;
    bool read_ahead_known;     /* the models' readahead limit: */
    uint64_t read_ahead_kb;
    const char *read_ahead_from; /* "option", "header" or "default" (not
                                    known: the model's own) */
    uint64_t requests, accesses; /* of the access stream: its requests,
                                    the pages they span */
    uint64_t kernel_gets, kernel_puts;           /* pool 0 */
    uint64_t kernel_meta_gets, kernel_meta_puts; /* the other pools */
    size_t samples;            /* resident samples, each once */
    uint64_t first_sample, median_sample; /* the first; zc_resident_median()
                                             over the requests */
    uint64_t window;           /* the matcher's: the median */
    const uint64_t *capacities; /* the curve's, ascending */
    size_t ncapacities;
    const zc_fidelity_row *rows; /* each model in order, at each size */
    size_t nrows;
} zc_fidelity_result;

typedef struct zc_fidelity zc_fidelity;

/**
 * Open the recording NAME (or NAME.zca, or NAME.kernel.zct) for a fidelity
 * run: both streams must be regular files; the access stream is opened
 * through a session (its content source resolved and checked), the kernel
 * stream's header checked against it (its page size, its pack), the
 * options checked.  No work yet: the paths and the content source are in
 * zc_fidelity_get() (a tool refuses an output over an input now).
 * Returns 0 and *out; -ZC_EIO (a file missing or unreadable); -ZC_EFORMAT
 * (not an access stream, a damaged header); -ZC_EINVAL (bad options,
 * another recording's pack, streams of two recordings); -ZC_ENOMEM; with
 * a one-line message in err[errlen].
 */
ZC_API int zc_fidelity_open(const char *recording,
                            const zc_fidelity_options *opt,
                            zc_fidelity **out, char *err, size_t errlen);

/**
 * Compute every measure, each stream read again for each pass so that the
 * memory does not grow with the recording: the access stream counted (its
 * requests and the resident count each saw), the kernel stream played once
 * into every capacity's zcache, each row's replays (each reading the
 * access stream; the first also matches the model's evictions against the
 * kernel stream's, read again).  Once per object.  Returns 0;
 * -ZC_ECANCELED (the progress callback said stop); -ZC_EFORMAT, -ZC_EIO
 * (a damaged stream; no resident samples); -ZC_ENOENT (a page the content
 * source lacks); -ZC_EINVAL; -ZC_ENOMEM; with the message in
 * zc_fidelity_error().
 */
ZC_API int zc_fidelity_compare(zc_fidelity *f);

/** zc_fidelity_open() and zc_fidelity_compare() in one call: on failure
 *  *out is NULL and the message is in err[errlen]. */
ZC_API int zc_fidelity_run(const char *recording,
                           const zc_fidelity_options *opt,
                           zc_fidelity **out, char *err, size_t errlen);

/** The results (NULL for NULL). */
ZC_API const zc_fidelity_result *zc_fidelity_get(const zc_fidelity *f);

/** The last error's message, or "". */
ZC_API const char *zc_fidelity_error(const zc_fidelity *f);

/** Free; NULL is fine. */
ZC_API void zc_fidelity_free(zc_fidelity *f);

/* ------------------------------------------------------------------------
 * Sessions: a recording opened, checked and replayed, in one object
 * ------------------------------------------------------------------------ */

/*
 * A session is how a recording is replayed correctly: it opens the traces
 * (a block trace, an access stream, or an op stream, sniffed or named),
 * takes the content source the caller names or else the pack the first
 * trace's header names (resolved beside it), checks every trace against
 * that source (never another recording's pack), reads the page-cache
 * model's readahead limit from the header (read_ahead_kb) unless the
 * caller sets one, and then runs the whole recording through a page-cache
 * model into one zcache, a fan-out of many (zc_fanout_sink), an op-stream
 * writer, or nothing, with one error report.  An op stream is played into
 * the zcache as it is: its page cache is already in it.
 *
 * Every tool of the project opens its recordings through a session.
 * Errors: a -ZC_E* code and a one-line message (zc_session_error(), or
 * err at open) naming the file and the line, offset, request or page at
 * fault.  Bad input is -ZC_EFORMAT, -ZC_EIO, -ZC_EINVAL or -ZC_ENOENT (a
 * page the content source lacks).  Nothing prints or exits.  Not
 * thread-safe: one session per thread.
 */
typedef struct zc_session zc_session;

/** How to open a recording; zero fields take the defaults. */
typedef struct zc_session_options {
    const char *format;   /* a trace format, "zct" for an op stream; NULL
                             or "auto": sniffed */
    size_t page_size;     /* 0: the header's page_size (an access
                             stream's), else 4096; an op stream has its
                             own, and a value given must be it */
    uint64_t max_request; /* zc_trace_options.max_request */
    const char *content;  /* a content source (zc_content_open()); NULL:
                             "pack:" and the pack the first trace's header
                             names, beside the trace, else "synth" */
    bool no_content;      /* no page bytes are needed (no zcache, no op
                             stream saved): no source is opened */
    const char *model;    /* the page-cache model; NULL: "lru" */
    bool read_ahead_set;  /* read_ahead_kb is the readahead limit; else
                             the header's read_ahead_kb, else the model's
                             default (128) */
    uint64_t read_ahead_kb;
} zc_session_options;

/**
 * Open the recording made of npaths trace files (read one after the other,
 * or merged by time for blktrace's per-CPU files; an op stream alone).
 * Each must be a regular file: a session reads a trace more than once (its
 * format sniffed, its header checked, then replayed).  Returns 0 and
 * *out; -ZC_EINVAL (bad options, an unknown model, a header field that is
 * wrong); -ZC_EIO; -ZC_EFORMAT; -ZC_ENOMEM; with a one-line message in
 * err[errlen].
 */
ZC_API int zc_session_open(const char *const *paths, size_t npaths,
                           const zc_session_options *opt, zc_session **out,
                           char *err, size_t errlen);

/** Whether the recording is an op stream (played as it is). */
ZC_API bool zc_session_is_ops(const zc_session *s);

/** The format read ("zct" for an op stream). */
ZC_API const char *zc_session_format(const zc_session *s);

/** The content source in use: the spec given or found (for an op stream:
 *  its header's content field, or "(in the stream)"). */
ZC_API const char *zc_session_content(const zc_session *s);

/** The page size of the run. */
ZC_API size_t zc_session_page_size(const zc_session *s);

/** A header field of the first trace or of the op stream, or NULL. */
ZC_API const char *zc_session_meta(const zc_session *s, const char *key);

/** The readahead limit the model gets, in KiB: 1 and *kb when the caller
 *  set it or the header has it (*from says which: "option" or "header");
 *  0 when the model keeps its default. */
ZC_API int zc_session_read_ahead(const zc_session *s, uint64_t *kb,
                                 const char **from);

/**
 * An op-stream writer at path for this session's run (the stream the
 * replay makes; for an op stream, the stream rewritten, or converted
 * between the binary and the text form): the text form when path ends in
 * ".txt"; level as zc_ops_writer_options.level.  Its header says where it
 * came from: format, page_cache (page_cache_pages; an op stream's own),
 * page_cache_model, content, source (the traces, or an op stream's own
 * source).  Its window holds twice the page cache's pages and 4096 more
 * (a page put again is put after at least page_cache_pages other puts),
 * from 16384 up to 262144 pages and at most 1 GiB of them.  Pass it to
 * zc_session_run() and close it after.  Returns 0; a -ZC_E* code with the
 * message in zc_session_error().
 */
ZC_API int zc_session_ops_writer(zc_session *s, const char *path, int level,
                                 uint64_t page_cache_pages,
                                 zc_ops_writer **out);

/** A callback a run calls every 4096 requests (or ops) and at its end:
 *  zc_session_requests() and zc_session_stats() say how far it is.  A
 *  non-zero return stops the run with -ZC_ECANCELED. */
typedef int (*zc_session_progress)(void *ctx, const zc_session *s);

/** What a run plays into; zero fields: a page cache of 0 pages, no
 *  zcache, nothing else. */
typedef struct zc_session_run_options {
    uint64_t page_cache_pages;     /* the page cache's capacity, at most
                                      ZC_REPLAY_PAGES_MAX */
    bool page_cache_kernel;        /* follow the kernel's resident page count
                                      as the access stream recorded it: before
                                      each request, its file system's last
                                      sample (the first request must have one) */
    zc_cache *zcache;              /* not owned; NULL: none */
    const zc_adapt_options *adapt; /* NULL, or an adaptive split of
                                      adapt->memory_bytes
                                      (zc_replay_adapt()) */
    bool verify;                   /* zc_replay_verify() */
    zc_ops_writer *save_ops;       /* not owned: the run's op stream */
    zc_op_sink sink;               /* every op, as zc_replay_sink() */
    void *sink_ctx;
    zc_mrc *mrc; /* not owned: fed every request */
    zc_session_progress progress;
    void *progress_ctx;
} zc_session_run_options;

/**
 * Run the whole recording once.  Returns 0; -ZC_EINVAL (bad run options, a
 * second run); -ZC_ECANCELED (the progress callback said stop); a -ZC_E*
 * code of the trace, the content source, the zcache or the op writer
 * (when the writer failed, zc_ops_writer_error() says why); with the
 * message in zc_session_error().  Counters stay readable after a failure.
 */
ZC_API int zc_session_run(zc_session *s, const zc_session_run_options *ro);

/** Requests (or ops of an op stream) taken so far. */
ZC_API uint64_t zc_session_requests(const zc_session *s);

/** The run's counters (the replay's, or the player's for an op stream). */
ZC_API int zc_session_stats(const zc_session *s, zc_replay_stats *out);

/** The replay the run made (NULL before a run and for an op stream): its
 *  adaptive log, its resident count. */
ZC_API const zc_replay *zc_session_replay(const zc_session *s);

/** The last error's message, or "". */
ZC_API const char *zc_session_error(const zc_session *s);

/** Close; NULL is fine.  The zcache, writer, sink and curve stay. */
ZC_API void zc_session_close(zc_session *s);

/**
 * A zcache from spec (the zc_config_parse() spelling, on the library's
 * defaults; NULL: "") for pages of page_size bytes (a page_size key in
 * spec must agree), its capacity overridden by capacity when that is not
 * 0, its memo (zc_config.memo) memo.  *cfg_out (may be NULL) gets the
 * configuration it was made with (zc_config_format() writes it).  Returns
 * 0; -ZC_EINVAL (a bad spec, another page size, a capacity above
 * ZC_CAPACITY_MAX); -ZC_ENOMEM (one that does not fit); with a one-line
 * message in err.
 */
ZC_API int zc_cache_open(const char *spec, size_t page_size, size_t capacity,
                         zc_memo *memo, zc_config *cfg_out, zc_cache **out,
                         char *err, size_t errlen);

/** s as a JSON string into out[n], quoted: '"' and the backslash escaped,
 *  control characters as \u00XX, a byte that is not part of valid UTF-8
 *  (a file name may hold any) as U+FFFD, so that the output is always
 *  valid JSON.  Returns the length of the whole quoted string (as
 *  snprintf(): out holds it when that is below n).  NULL reads as "". */
ZC_API size_t zc_json_quote(const char *s, char *out, size_t n);

/* ------------------------------------------------------------------------
 * Output files: whole or not at all
 * ------------------------------------------------------------------------ */

/**
 * An output file that no reader ever sees in part.  A regular file (or a
 * new one) is written under a temporary name beside it
 * (".NAME.zc-PID-N", with the mode of the file it replaces) and renamed
 * over it by zc_output_commit(); until then NAME stays as it was, and
 * zc_output_abandon() removes the temporary file.  A symlink to a regular
 * file is followed (its target is replaced).  Written in place, as fopen
 * "w" would: "-" (standard output), a FIFO, a device, a dangling symlink
 * (zc_output_atomic() says false).  A regular file in a directory that
 * forbids a new file is refused (-ZC_EIO): written in place, a kill would
 * leave a part that reads as whole.  Every writer of the library (access streams, op streams,
 * packs, sweep results, a conversion's outputs) writes through this.
 */
typedef struct zc_output zc_output;

/** Open path for writing.  Returns 0; -ZC_EINVAL (no path); -ZC_EIO (a
 *  directory, a path that cannot be created, no temporary file beside
 *  it); -ZC_ENOMEM; with a one-line message naming path in err. */
ZC_API int zc_output_open(const char *path, zc_output **out, char *err,
                          size_t errlen);

/** The stream to write (stdout for "-"). */
ZC_API FILE *zc_output_stream(const zc_output *o);

/** The path as given to zc_output_open(). */
ZC_API const char *zc_output_path(const zc_output *o);

/** Whether o is written under a temporary name (false: in place). */
ZC_API bool zc_output_atomic(const zc_output *o);

/** The file being written now: the temporary file, or the path as given
 *  when written in place (a writer that reads back what it wrote opens
 *  this). */
ZC_API const char *zc_output_file(const zc_output *o);

/** Flush and close o (standard output is flushed, not closed) and rename
 *  it into place; frees o whatever happens.  Returns 0, or -ZC_EIO (a
 *  write, flush, close or rename error: the temporary file is removed and
 *  the old file stays) with a message naming the path in err. */
ZC_API int zc_output_commit(zc_output *o, char *err, size_t errlen);

/** Close o and remove its temporary file (an output written in place
 *  stays as it is); frees o.  NULL is fine. */
ZC_API void zc_output_abandon(zc_output *o);

/** Remove the temporary file of every output of the process not yet
 *  committed or abandoned.  Async-signal-safe (atomic loads and unlink()
 *  only): for a handler of SIGINT, SIGTERM and the like, which then
 *  re-raises the signal; the outputs' objects stay for nobody to use. */
ZC_API void zc_output_remove_partial(void);

/* ------------------------------------------------------------------------
 * Rates: what share of what, defined once
 * ------------------------------------------------------------------------ */

/** The rates of a run's counters, in percent (0 where the denominator is
 *  0).  Each is a share of a named whole; the tools print these. */
typedef struct zc_rates {
    double pc_hit;     /* accesses the page cache held: pc_hits / accesses */
    double zc_hit;     /* accesses the zcache held (a read it served, or a
                          write that found a copy there): (resident_hits -
                          pc_hits) / accesses */
    double in_memory;  /* accesses either tier held: resident_hits /
                          accesses = pc_hit + zc_hit */
    double zc_get_hit; /* zcache gets that hit: zc_hits / zc_gets */
    double disk_read;  /* reads that went to the disk: disk_reads / reads */
    double kept;       /* puts the zcache stored: zc_stored / zc_puts */
} zc_rates;

ZC_API zc_rates zc_replay_rates(const zc_replay_stats *st);

/** The zcache's density at the end: compressed bytes / arena bytes in use
 *  (0 when none are in use). */
ZC_API double zc_stats_density(const zc_stats *zs);

/* ------------------------------------------------------------------------
 * Sweeps: many traces, many configurations, one table of rows
 * ------------------------------------------------------------------------ */

/*
 * A sweep runs the cross product of page-cache sizes, zcache capacities
 * and any zcache settings (each "KEY=V1,V2,..."), or, with a memory M,
 * splits M between the page cache and the zcache at each share (and lets
 * adaptive controllers move the split), over every trace of a
 * collection.  Work is done once where it can be: for each trace and
 * page-cache size the model runs once (its op stream does not depend on
 * the zcache) and a fan-out plays its ops into every configuration, each
 * distinct content compressed once into a shared memo; so each row is
 * exactly what a session of that configuration alone gives.  The LRU
 * curve of the page cache comes from one pass (zc_mrc) and is checked
 * against the model's hits when the model is "lru".
 *
 * Lists are strings in the tools' spelling: values separated by commas,
 * or FROM:TO:STEP ranges ("0:4M:1M"); sizes with K/M/G are bytes, page
 * caches without a suffix are pages; at most 64 values a list and 100000
 * rows a sweep.  Messages name the options as zcache-sweep spells them
 * (--page-cache for page_cache, --set for sets, ...).
 *
 * Use: zc_sweep_create(), zc_sweep_add_*() for the traces, then
 * zc_sweep_prepare() (each trace opened and checked, its content
 * settled, the rows and jobs made), then zc_sweep_run() (or a plan:
 * zc_sweep_plan_*), then the rows.  Errors: -ZC_E* codes with a one-line
 * message in zc_sweep_error() (err at create).  A row that fails keeps
 * its own code and message (zc_sweep_row.rc, .err) and the others go on.
 * Not thread-safe: one sweep per thread (zc_sweep_run() starts threads of
 * its own).
 */
typedef struct zc_sweep zc_sweep;

/** The most rows one sweep makes: every row is a cache in memory and a
 *  replay of the trace, and the lists' cross product grows fast (64 values
 *  in each of four lists are 16.7 M rows).  Counted before any is made. */
#define ZC_SWEEP_ROWS_MAX 100000

/** What a sweep varies; zero fields take the defaults. */
typedef struct zc_sweep_options {
    size_t page_size;        /* 0: 4096 (op streams: their own) */
    const char *format;      /* the traces' format; NULL: sniffed */
    const char *content;     /* a content source for every trace; NULL:
                                each trace's pack (its header names it),
                                else "synth" */
    const char *model;       /* page-cache model; NULL: "lru" */
    bool read_ahead_set;     /* read_ahead_kb is the readahead limit */
    uint64_t read_ahead_kb;
    const char *zcache;      /* every row's zcache settings, a
                                zc_config_parse() spec; NULL: "" */
    const char *page_cache;  /* the page-cache sizes (a list) */
    const char *capacity;    /* zcache capacities (a list; 0: no zcache);
                                NULL: the capacity --zcache names, or the
                                library's default when a zcache is asked
                                for at all, else none */
    const char *const *sets; /* nsets (at most 8) "KEY=V1,V2,...": any
                                zc_config key, the cross product */
    size_t nsets;
    const char *memory;      /* M, with share and/or adaptive; a size */
    const char *share;       /* the zcache's shares of M in % (a list) */
    bool adaptive;           /* adaptive rows over all of M */
    zc_adapt_options adapt;  /* their options (memory is M's) */
    const unsigned *controllers; /* a row each (ZC_ADAPT_*, at most 3);
                                    none: adapt.controller's */
    size_t ncontrollers;
    const char *mrc;         /* page-cache sizes to take the LRU curve at
                                (a list) */
    zc_prices prices;        /* the cost model; disk_ns 0: 100 us */
    uint64_t memo_bytes;     /* the compression memo shared by every row
                                (each distinct content compressed once);
                                0: 1 GiB, as zc_fidelity_options' */
    bool no_memo;            /* every row compresses its own puts */
    int threads;             /* worker threads, 1 to 64; 0: the online
                                CPUs (at most 64) */
    bool join;               /* every trace played as one stream */
} zc_sweep_options;

/** One trace of the collection, as the rows see it. */
typedef struct zc_sweep_trace {
    const char *name;         /* the paths, separated by spaces */
    const char *const *paths;
    size_t npaths;
    const char *read_as;      /* the format read ("zct": an op stream) */
    const char *content;      /* the content source ("(in the stream)"
                                 for an op stream) */
    bool is_ops;
    uint64_t requests;        /* once a pass has counted them, else 0 */
    size_t first_row, nstatic, nrows; /* its rows: static, then adaptive */
    bool have_curve;          /* the LRU curve at the mrc sizes */
    uint64_t curve_accesses, curve_distinct;
    const uint64_t *curve_hits; /* [zc_sweep_curve_sizes()] */
} zc_sweep_trace;

/** One row: a configuration of a trace, and what running it gave. */
typedef struct zc_sweep_row {
    size_t trace;              /* zc_sweep_traces()[trace] */
    uint64_t page_cache_pages;
    bool ops;                  /* an op stream's: its own page cache */
    const char *spec;          /* the zcache's spec; "" = off */
    double share;              /* a memory split's zcache share (%); -1
                                  for an adaptive row */
    uint64_t capacity_bytes;   /* 0: no zcache */
    const char *group;         /* the spec without its capacity: a plot's
                                  line */
    const char *label;         /* what the row varies: capacity (or
                                  "adaptive[:NAME]") and --set values */
    bool adaptive;
    unsigned controller;       /* ZC_ADAPT_* of an adaptive row */
    uint64_t put_ns, get_ns;   /* an adaptive row's CPU prices, which its
                                  controller weighs against disk reads (a
                                  compression, a zcache hit): given, or
                                  measured once before any row ran (the
                                  same for every run of the row: a plan
                                  records them); 0 until then */
    bool prices_measured;      /* measured, not given */
    /* --- what running it gave --- */
    zc_replay_stats st;
    zc_stats zs;
    bool have_zs;
    const char *config;        /* the zcache's resolved configuration */
    const char *compressor;
    uint64_t mrc_hits;         /* the LRU curve's hits at its page cache */
    int rc;                    /* 0, or the -ZC_E* code it failed with;
                                  -ZC_ECANCELED until it has run to its
                                  end (never run, or its run stopped) */
    const char *err;           /* and why ("not run") */
    const zc_adapt_epoch *epochs; /* an adaptive row's split over time */
    size_t nepochs;
} zc_sweep_row;

/** A unit of work that runs alone: rows [first_row, first_row + nrows)
 *  of one trace. */
typedef enum zc_sweep_job_kind {
    ZC_SWEEP_GROUP,    /* a page-cache size: one model pass, a fan-out */
    ZC_SWEEP_ADAPTIVE, /* an adaptive row */
    ZC_SWEEP_OPS,      /* an op stream's rows, a thread each */
} zc_sweep_job_kind;

typedef struct zc_sweep_job {
    zc_sweep_job_kind kind;
    size_t trace, first_row, nrows;
    bool curve;            /* the trace's first: takes the --mrc curve */
    uint64_t memory_bytes; /* a bound on the memory it takes: the model
                              (about 256 bytes a page with the LRU curve),
                              each row's zcache and a quarter more, the
                              memo, the rows, and 128 MiB for the rest */
} zc_sweep_job;

/** Make a sweep: the options checked (lists split, --set values parsed
 *  once), nothing opened yet.  Returns 0; -ZC_EINVAL with a message in
 *  err; -ZC_ENOMEM. */
ZC_API int zc_sweep_create(const zc_sweep_options *opt, zc_sweep **out,
                           char *err, size_t errlen);

/** Add a trace of npaths files (read one after the other as one stream),
 *  with its own format and content (NULL: the sweep's); origin (NULL, or
 *  "FILE:LINE") names where it was listed, for messages.  Before
 *  zc_sweep_prepare().  Returns 0; -ZC_EINVAL; -ZC_ENOMEM. */
ZC_API int zc_sweep_add_trace(zc_sweep *sw, const char *const *paths,
                              size_t npaths, const char *format,
                              const char *content, const char *origin);

/** Add every trace of directory dir, by name: its regular files that a
 *  reader takes (per-CPU blktrace files NAME.blktrace.N as one trace);
 *  the others (packs, notes) are skipped, and counted in *skipped (may be
 *  NULL) with the first few names in note[notelen] (may be NULL).
 *  Returns 0; -ZC_EIO (unreadable, or no trace in it); -ZC_ENOMEM. */
ZC_API int zc_sweep_add_dir(zc_sweep *sw, const char *dir, size_t *skipped,
                            char *note, size_t notelen);

/** Add the traces a manifest lists, one a line: "PATH [format=NAME]
 *  [content=SPEC]"; a word starting with '#' begins a comment; a
 *  relative PATH (or a content's file) is taken from the manifest's
 *  directory.  Returns 0; -ZC_EIO; -ZC_EFORMAT ("FILE:LINE: what");
 *  -ZC_ENOMEM. */
ZC_API int zc_sweep_add_manifest(zc_sweep *sw, const char *file);

/** Make the sweep for its job n alone (a plan's job, run on its own), the
 *  traces added, before zc_sweep_prepare(): every trace of a collection
 *  makes the same rows, so prepare finds the job by counting, opens and
 *  checks its trace alone and makes its rows alone (a job of a plan of
 *  10,000 traces makes its own rows, not the plan's).  The sweep is then
 *  that job's: zc_sweep_traces() its trace, zc_sweep_rows() its rows,
 *  zc_sweep_jobs() the job, each numbered from 0; the plan calls take n
 *  and write the whole sweep's numbers.  prepare fails (-ZC_EINVAL) when
 *  the sweep has no job n.  Returns 0; -ZC_EINVAL (prepared already). */
ZC_API int zc_sweep_select_job(zc_sweep *sw, size_t n);

/** Open and check every trace (a regular file; its format; its content:
 *  never another recording's pack), settle its content source, and make
 *  the rows and the jobs.  Returns 0; a -ZC_E* code with the message. */
ZC_API int zc_sweep_prepare(zc_sweep *sw);

/** A callback zc_sweep_run() calls as the work goes: job `job` (of the
 *  sweep's) has read `requests` requests (0: starting it), `done` jobs of
 *  the run are finished.  It may be called from several threads at once.
 *  A non-zero return stops the run (-ZC_ECANCELED) once the jobs running
 *  finish their pass. */
typedef int (*zc_sweep_progress)(void *ctx, size_t job, uint64_t requests,
                                 size_t done);

/** Run jobs[0..n) (job numbers, each once; NULL and 0: every job): first
 *  the CPU prices of their adaptive rows fixed where they are not yet
 *  (zc_sweep_row.put_ns: those the options give, else measured once per
 *  trace and zcache spec on the trace's first accesses, before any row
 *  runs), then the groups one after the other, each spread over the
 *  threads, then the rest a row a thread.  A row's failure is the row's
 *  (rc, err); the run
 *  fails for what stops every row of a pass (a trace that cannot be read,
 *  a content source that lacks a page: bad input of the trace), and those
 *  rows fail with it.  Returns 0; -ZC_EINVAL (a job number out of range
 *  or given twice); -ZC_ECANCELED (stopped: the rows not run to their end
 *  say -ZC_ECANCELED); a -ZC_E* code with the message. */
ZC_API int zc_sweep_run(zc_sweep *sw, const size_t *jobs, size_t n,
                        zc_sweep_progress fn, void *ctx);

/** The traces, rows and jobs (valid until zc_sweep_destroy()). */
ZC_API const zc_sweep_trace *zc_sweep_traces(const zc_sweep *sw, size_t *n);
ZC_API const zc_sweep_row *zc_sweep_rows(const zc_sweep *sw, size_t *n);
ZC_API const zc_sweep_job *zc_sweep_jobs(const zc_sweep *sw, size_t *n);

/** The page-cache sizes of the LRU curve (the mrc list), in pages. */
ZC_API size_t zc_sweep_curve_sizes(const zc_sweep *sw,
                                   const uint64_t **pages);

/** The sweep's page size (an op stream's, once prepared). */
ZC_API size_t zc_sweep_page_size(const zc_sweep *sw);

/** The costs of row i (zc_cost_of() at the sweep's prices): the disk reads
 *  it saved are its zcache hits; in a memory split, those fewer than its
 *  trace's share-0 row (the split takes its memory from the page cache). */
ZC_API zc_cost zc_sweep_row_cost(const zc_sweep *sw, size_t i);

/** The row of the memory split's baseline for trace u (share 0), or
 *  SIZE_MAX when there is none. */
ZC_API size_t zc_sweep_baseline(const zc_sweep *sw, size_t u);

ZC_API const char *zc_sweep_error(const zc_sweep *sw);

/** Destroy; NULL is fine. */
ZC_API void zc_sweep_destroy(zc_sweep *sw);

/* ---- a sweep as a plan of jobs that run anywhere, then merged ---- */

/*
 * A plan is a directory: DIR/plan.args (the caller's arguments, kept as
 * strings, with the directory they were given in and the library's
 * version, checksummed), DIR/fingerprint (what the sweep made: every
 * trace with its files' sizes and modification times, its content
 * source's file, every job's rows; a job or merge refuses a plan whose
 * fingerprint differs now), DIR/manifest.json (the same for people and
 * schedulers: jobs, each one's memory bound), DIR/results/job-N.rows (a
 * done job's rows, written to a temporary name, flushed and renamed, so
 * a file of that name is whole) or job-N.failed (a job that failed, and
 * why), DIR/logs/ for a scheduler's logs.  Rows are written by the
 * library's field lists, doubles as hex floats: read back, a row is the
 * bytes it was, so a merge reports what a one-machine run reports.
 */

/** Write the plan of a prepared sweep into dir (made if needed; refused
 *  if it holds a plan): args[0..nargs) are kept as the caller gives them
 *  (the arguments that make this sweep again), cwd the directory they
 *  are relative to; the adaptive rows' CPU prices are fixed now (as
 *  zc_sweep_run() fixes them) and recorded in it with where they came
 *  from, and zc_sweep_plan_check() gives them to its jobs and merge.  *plan_id (may be NULL): the plan's id.  Returns 0;
 *  -ZC_EINVAL (a plan there, an argument of 64 KiB or more, a sweep made
 *  for one job); -ZC_EIO; -ZC_ENOMEM; with the message. */
ZC_API int zc_sweep_plan_write(zc_sweep *sw, const char *dir,
                               const char *const *args, size_t nargs,
                               const char *cwd, uint64_t *plan_id);

/** Read a plan's arguments back (to make the same sweep again): *args
 *  (nargs strings and a NULL, one allocation: free(*args)), *cwd (the
 *  directory they are relative to, inside the same allocation), the
 *  plan's job count, its id.  Returns 0; -ZC_EIO (no plan there);
 *  -ZC_EFORMAT (not a plan, another library version's, changed since it
 *  was made); -ZC_ENOMEM; with a one-line message in err. */
ZC_API int zc_sweep_plan_read(const char *dir, char ***args, size_t *nargs,
                              const char **cwd, size_t *njobs,
                              uint64_t *plan_id, char *err, size_t errlen);

/** Whether the prepared sweep is still the one planned in dir: the plan
 *  there is plan_id (zc_sweep_plan_read()'s, which the job files carry)
 *  of as many jobs, and its fingerprint is what the sweep makes now (a
 *  sweep of one job, zc_sweep_select_job(): the fingerprint's head and
 *  the parts of its trace and its job).  If so, its adaptive rows take
 *  the CPU prices the plan recorded.  0; -ZC_EFORMAT naming the line
 *  that changed; -ZC_EIO. */
ZC_API int zc_sweep_plan_check(zc_sweep *sw, const char *dir,
                               uint64_t plan_id);

/** Save job n's rows (after zc_sweep_run() of it) into the plan, or its
 *  failure when a row failed (the first failed row's message).  Returns
 *  0; -ZC_EINVAL (a row that did not run to its end: nothing saved; a
 *  sweep of another job); -ZC_EIO; -ZC_ENOMEM. */
ZC_API int zc_sweep_plan_save_job(zc_sweep *sw, const char *dir, size_t n);

/** Record that job n failed, and why (a job that dies before its rows
 *  are made).  Returns 0; -ZC_EIO. */
ZC_API int zc_sweep_plan_save_failure(const char *dir, uint64_t plan_id,
                                      size_t n, const char *why, char *err,
                                      size_t errlen);

/** Read job n's rows back from the plan into the sweep: 0; 1 when the job
 *  has no rows yet (never ran, running, or killed); -ZC_EFORMAT when it
 *  failed or its file is not whole (why in zc_sweep_error()). */
ZC_API int zc_sweep_plan_load_job(zc_sweep *sw, const char *dir, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* ZCACHE_SIM_H */
