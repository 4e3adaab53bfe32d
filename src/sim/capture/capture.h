/*
 * sim/capture/capture.h - what the files of the tracefs conversion
 * (zc_tracefs_convert(), zcache_sim.h) share: one conversion's state and
 * the calls between its stages.
 *
 * A conversion is a pipeline over the capture's lines, one file a
 * concept:
 *
 *   convert.c    the public call: options, the order of the stages, the
 *                capture read line by line, the one error report
 *   events.c     a line: task, pid, CPU, time, event name, and each
 *                event's details parsed and checked, then handed on
 *   pagecache.c  the kernel's page cache followed page by page: adds and
 *                deletes, the eviction rule, the resident count, which
 *                accessed pages the kernel had
 *   accesses.c   reads, faults, fault-around and writes as requests of the
 *                access stream, clipped to the files' sizes, with the
 *                resident samples before them
 *   contents.c   what the file system holds: the inodes (sizes, which
 *                exist after the run), extents, the image, the keys the
 *                pack must map and their contents
 *   outputs.c    the files written: blkparse text (plain or zstd), the
 *                op, access and pack writers, the inode list, and which
 *                of them a failure removes
 *
 * Errors: every stage returns 0 or a -ZC_E* code, after recording the
 * first failure's message in the state (zc__cap_fail() and friends); a
 * caller returns the code at once, and convert.c unwinds.  Nothing here
 * prints or exits.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_SIM_CAPTURE_CAPTURE_H
#define ZC_SIM_CAPTURE_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/files.h"
#include "common/output.h"
#include "zcache_sim.h"

#define ZC__CAP_PAGE 4096u
#define ZC__CAP_MAX_CPUS 8192 /* Linux's NR_CPUS at most */
/* The largest folio order an event may carry: x86-64's MAX_PAGE_ORDER,
 * the buddy allocator's largest block (include/linux/mmzone.h: 10 unless
 * the architecture forces another, which x86 does not), so no folio is
 * larger; the page cache's own cap, MAX_PAGECACHE_ORDER
 * (include/linux/pagemap.h), is lower still (9: a PMD). */
#define ZC__CAP_MAX_ORDER 10
#define ZC__CAP_LINE_MAX (1u << 20)

/* An access event's kind (accesses.c). */
enum zc__cap_access_kind {
    ZC__CAP_READ,         /* mm_filemap_get_pages: read(2) */
    ZC__CAP_MAPPED_RANGE, /* mm_filemap_map_pages: fault-around */
    ZC__CAP_FAULT,        /* mm_filemap_fault: one page of a mapping */
    ZC__CAP_WRITE,        /* ext4 write_begin */
};

/* A page the kernel holds (pagecache.c): the page (file, index), and the
 * event and task that added it.  file1: the inode's number + 1; 0 is an
 * empty slot. */
struct zc__cap_page {
    uint64_t index;
    uint64_t add_event;
    uint32_t file1;
    uint32_t add_pid;
};

/* A task of the capture (pagecache.c), by its number in tasks. */
struct zc__cap_task {
    uint64_t last_access; /* the event number of its last access */
    int reclaim_depth;    /* reclaim windows it is inside */
};

/* An inode of the traced file system (contents.c), by its number in
 * inodes.  size: the bytes reads are clipped to (the sizes entry, grown
 * by writes and mapped accesses). */
struct zc__cap_inode {
    uint64_t size;
    bool live;  /* in the live list: it exists after the run */
    bool named; /* some event names it (for the inode list) */
};

struct zc__cap_extent {
    uint64_t ino, lblk, pblk, len;
    bool unwritten;
};

/* A key's flag (contents.c).  ACCESS: the access stream names it (the
 * distinct pages of the stream are those keys). */
#define ZC__CAP_KEY_ACCESS 1u

struct zc__cap_text; /* blkparse text, plain or zstd (outputs.c) */

struct zc__cap {
    zc_tracefs_options o; /* the caller's; dev and dev_set once found */
    zc_tracefs_summary n; /* the counters, each kept in one stage */

    /* errors and input lines (convert.c) */
    int rc;
    char *msg;       /* the first failure's message (NULL: out of memory) */
    uint64_t lineno; /* the capture's line being read */
    char *line;      /* ZC__CAP_LINE_MAX + 1 bytes: the line read */

    /* events.c */
    uint64_t event_no; /* events in the order read (tracefs merges CPUs) */
    uint64_t t0_ns;
    bool have_t0;
    uint64_t newest_ns; /* the newest event so far, and its line */
    uint64_t newest_line;
    bool scanning;         /* the first pass that finds the device */
    struct zc__files devs; /* the devices it saw, as (dev, 0) */
    uint64_t *dev_events;  /* by device number: its events */
    size_t dev_events_cap;
    uint64_t cpu_last[ZC__CAP_MAX_CPUS]; /* a CPU's last event, ns */
    uint64_t seq[ZC__CAP_MAX_CPUS];      /* blkparse sequence numbers */

    /* pagecache.c */
    struct zc__cap_page *pages;
    uint64_t pages_mask, pages_used;
    struct zc__files tasks; /* pid -> task number, as (pid, 0) */
    struct zc__cap_task *task;
    size_t task_cap;
    int64_t resident; /* pages of the file system the kernel holds */

    /* accesses.c */
    uint64_t last_access_ns;
    zc_resident_sample *samples; /* each with the requests it held for;
                                    the last is the current one; those
                                    before it folded by count (fold_at) */
    size_t samples_cap;
    size_t nkept;   /* entries of samples[] */
    size_t fold_at; /* fold samples[] when it holds this many */
    uint64_t last_sample;
    bool have_sample;

    /* contents.c */
    struct zc__files inodes; /* ino -> inode number, as (0, ino) */
    struct zc__cap_inode *inode;
    size_t inode_cap;
    struct zc__cap_extent *ext;
    size_t next, ext_cap;
    struct zc__cap_keys *keys; /* the keys the streams name, as runs */
    int image_fd;
    zc_content *synth;
    unsigned char page[ZC__CAP_PAGE]; /* the content of the last key read */

    /* outputs.c */
    struct zc__cap_text *bp;
    zc_ops_writer *ops;
    zc_access_writer *aw;
    zc_pack_writer *pw;
    bool pool_init[2];
    zc_output *inodes_out;                /* --inodes, written at the end */
    struct zc__output_group finished;     /* outputs to rename together */
};

/* ---- errors (convert.c) ---- */

/* Record a failure: its code, whether the caller was at fault (bad
 * options or input) or the system (a read or write error, memory), and
 * its message; the first failure's is kept.  Returns rc.  The two kinds
 * by name: zc__cap_fail() the system's, zc__cap_refuse() the caller's. */
int zc__cap_error(struct zc__cap *c, int rc, bool bad_input, const char *fmt,
                  ...) __attribute__((format(printf, 4, 5)));
#define zc__cap_fail(c, rc, ...) zc__cap_error(c, rc, false, __VA_ARGS__)
#define zc__cap_refuse(c, rc, ...) zc__cap_error(c, rc, true, __VA_ARGS__)

/* Bad input at the current line: "INPUT:LINE: what", -ZC_EFORMAT. */
int zc__cap_bad(struct zc__cap *c, const char *what);

/* -ZC_ENOMEM, "out of memory". */
int zc__cap_nomem(struct zc__cap *c);

/* Make room for one more of *n elements of size bytes at *p (capacity
 * *cap; the first allocation first elements): doubles.  0 or
 * -ZC_ENOMEM (nothing changed). */
int zc__cap_reserve(struct zc__cap *c, void *p, size_t *cap, size_t n,
                    size_t size, size_t first);

/* qsort's order of uint64_t. */
int zc__cap_u64_cmp(const void *a, const void *b);

/* What to do with a line (line ln of path). */
typedef int zc__cap_line_fn(struct zc__cap *c, char *line, const char *path,
                            uint64_t ln);

/* Each line of f (path: its name for messages) to fn, *ln counting them;
 * a line is at most 1 MiB and holds no NUL byte.  zc__cap_read_file()
 * opens path (refusing a directory) and reads it so. */
int zc__cap_read_lines(struct zc__cap *c, const char *path, FILE *f,
                       uint64_t *ln, zc__cap_line_fn *fn);
int zc__cap_read_file(struct zc__cap *c, const char *path, zc__cap_line_fn *fn);

/* ---- events.c ---- */

/* An unsigned number in base 10 or 16 at *p (a "0x" is taken in base
 * 16), ending at a blank, the end, or one of the characters of stop:
 * true, *v, and *p moved past it; false on anything else or overflow. */
bool zc__cap_take_u64(const char **p, int base, const char *stop, uint64_t *v);

/* One line of the capture (modified in place).  With c->scanning, the
 * first pass: the line is parsed and checked as in the conversion, and
 * only the device of its event is noted. */
int zc__cap_line(struct zc__cap *c, char *s);

/* After the first pass: the device is the one its events named (a
 * capture of none, or of several, is refused: several need --dev), and
 * the pass's counts and clocks are forgotten. */
int zc__cap_settle_dev(struct zc__cap *c);

/* Whether an event of device dev is the device's (c->o.dev, known by
 * then).  Counted: ours, or other_devices. */
bool zc__cap_our_dev(struct zc__cap *c, uint32_t dev);

void zc__cap_events_free(struct zc__cap *c);

/* ---- pagecache.c ---- */

/* A folio of `pages` pages at page `first` of inode ino of s_dev sdev was
 * added to (add) or deleted from the page cache by task pid named comm. */
int zc__cap_folio(struct zc__cap *c, bool add, uint32_t sdev, uint64_t ino,
                  uint64_t first, uint64_t pages, const char *comm,
                  uint32_t pid);

/* A reclaim window of task pid begins (+1) or ends (-1). */
int zc__cap_reclaim(struct zc__cap *c, uint32_t pid, int step);

/* The task pid, made if new: 0 and *t; -ZC_ENOMEM. */
int zc__cap_task(struct zc__cap *c, uint32_t pid, struct zc__cap_task **t);

/* Whether the kernel holds page index of the inode numbered file. */
bool zc__cap_cached(const struct zc__cap *c, uint32_t file, uint64_t index);

/* Whether the kernel had that page when task pid (t) read it. */
bool zc__cap_kernel_hit(const struct zc__cap *c, uint32_t file, uint64_t index,
                        const struct zc__cap_task *t, uint32_t pid);

/* Task pid (t) accessed pages at the current event. */
void zc__cap_accessed(struct zc__cap *c, struct zc__cap_task *t, uint32_t pid);

void zc__cap_pagecache_free(struct zc__cap *c);

/* ---- accesses.c ---- */

/* An access event of pages first..last of inode ino of s_dev dev, whose
 * bytes end at `end` (a write's or a mapped range's: the file grows to
 * it), rel ns after the capture's start, by task pid. */
int zc__cap_access(struct zc__cap *c, enum zc__cap_access_kind kind,
                   uint32_t dev, uint64_t ino, uint64_t first, uint64_t last,
                   uint64_t end, uint64_t rel, uint32_t pid);

/* The resident samples' minimum, median and maximum into c->n. */
void zc__cap_resident_summary(struct zc__cap *c);

/* ---- contents.c ---- */

/* The inode ino, made if new (ino 0 is bad input): 0, *file, *e. */
int zc__cap_inode(struct zc__cap *c, uint64_t ino, uint32_t *file,
                  struct zc__cap_inode **e);

/* "INO SIZE" lines of path: sizes (live false) or the files left after
 * the run (live true).  The extents list.  The image opened. */
int zc__cap_load_sizes(struct zc__cap *c, const char *path, bool live);
int zc__cap_load_extents(struct zc__cap *c);
int zc__cap_open_image(struct zc__cap *c);

/* The key (dev, ino, index) is one the pack must map (flags: ACCESS if
 * the access stream names it; keys of no access are kept only for a
 * pack). */
int zc__cap_key(struct zc__cap *c, uint32_t dev, uint64_t ino, uint64_t index,
                uint32_t flags);

/* c->page = the content of (dev, ino, index) (ino 0: a device page);
 * *synthetic: whether it is made up (a deleted file's page). */
int zc__cap_content(struct zc__cap *c, uint32_t dev, uint64_t ino,
                    uint64_t index, bool *synthetic);

/* Every key, once, in key order: counted, and mapped into the pack with
 * its content if there is a pack. */
int zc__cap_map_keys(struct zc__cap *c);

/* The inodes some event named, ascending: 0 and a new array (*len of
 * them); -ZC_ENOMEM, not recorded (the caller says which output). */
int zc__cap_named_inodes(struct zc__cap *c, uint64_t **list, size_t *len);

void zc__cap_contents_free(struct zc__cap *c);

/* ---- outputs.c ---- */

/* Open every output the options name, in order: blkparse, pack, kernel
 * ops, access stream. */
int zc__cap_open_outputs(struct zc__cap *c);

/* A Q event's line of blkparse text (if it is written). */
int zc__cap_blkparse(struct zc__cap *c, uint32_t dev, unsigned cpu,
                     uint32_t pid, uint64_t rel, const char *rwbs,
                     uint64_t sector, uint64_t count, const char *comm);

/* An op of the kernel stream (its pool initialised first). */
int zc__cap_emit(struct zc__cap *c, const zc_op *op);

/* A resident sample, an access of the access stream (if written). */
int zc__cap_write_resident(struct zc__cap *c, uint64_t rel, uint64_t pages);
int zc__cap_write_access(struct zc__cap *c, const zc_request *req);

/* Finish every output: blkparse, op stream, access stream, then the
 * pack (its keys mapped), then the inode list. */
int zc__cap_close_outputs(struct zc__cap *c);

/* After a failure: drop the outputs still open (no end records: a
 * stream read from a FIFO or standard output stays incomplete) and
 * remove the regular files the conversion opened. */
void zc__cap_abandon_outputs(struct zc__cap *c);

/* ---- what the tables cost (pagecache.c, contents.c) ---- */

/* The work and the room of a conversion's tables, counted for tests that
 * bound them in operations and entries rather than in seconds or bytes
 * of RSS.  Per thread (a conversion runs on its caller's thread), summed
 * or maximised over the conversions since a test zeroed it; nothing
 * reads it but the tests. */
struct zc__cap_cost {
    uint64_t page_lookups; /* lookups of the held pages' table */
    uint64_t page_probes;  /* the slots those lookups visited */
    uint64_t page_slots;   /* the held pages' table's most slots */
    uint64_t tasks;        /* task records made */
    uint64_t key_slots;    /* the keys' most entries at once */
    uint64_t key_bytes;    /* the keys' most bytes at once */
    uint64_t sample_slots; /* the resident samples' most entries at once */
};
extern _Thread_local struct zc__cap_cost zc__cap_cost;

/* ---- keys by the run (contents.c) ---- */

/* The keys (dev, ino, first) .. (dev, ino, first + pages - 1), as
 * zc__cap_key() takes one (a folio, a request: one call).  first + pages
 * - 1 does not pass 2^64 - 1. */
int zc__cap_key_run(struct zc__cap *c, uint32_t dev, uint64_t ino,
                    uint64_t first, uint64_t pages, uint32_t flags);

#endif
