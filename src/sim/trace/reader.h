/*
 * sim/trace/reader.h - what the block-trace readers share.
 *
 * A trace is one or more files; reader.c opens them, picks the format (by
 * name or by sniffing the first bytes), and either reads the files one
 * after the other or, for per-CPU captures, merges them by time.  A format
 * only ever sees one file: a struct zc__tfile, a buffered window on it
 * that hands out whole lines (text formats) or a number of contiguous
 * bytes (binary formats), and knows its name, line and byte offset so that
 * every error message can say where.
 *
 * A format is a small const ops table (name, doc, how to sniff it, how to
 * read the next request from a file), listed once in reader.c and found by
 * name.  Formats parse numbers by hand with the helpers below: no sscanf,
 * no locale, every overflow caught.
 *
 * A file that begins with the zstd frame magic (28 B5 2F FD) or a
 * skippable frame's (5? 2A 4D 18) is read through a decompressor, whatever
 * the format (once: zstd inside zstd is an error): buf then holds decompressed
 * bytes, and offsets, lines and the entry-size check are of those; only
 * the decompressor's own errors, and a frame without zstd's content
 * checksum in a format that relies on it (zc__tf_need_zstd_checksums()),
 * name an offset in the compressed file.
 *
 * Invariants of a zc__tfile: buf[pos..end) are the unread bytes, buf_off is
 * the (decompressed) offset of buf[0], 0 <= pos <= end <= cap; eof is set
 * once the bytes are exhausted (read() returned 0, and for a compressed
 * file the last frame was complete); line counts the lines handed out so
 * far (the current line's number once one has been returned; 0 for binary
 * formats, which keep rec_off instead).  Compressed:
 * zin[zin_pos..zin_end) are compressed bytes not yet decompressed, zin_off
 * the file offset of zin[0], frame_off the offset of the frame being
 * decompressed, and zret the decompressor's last result (0 between
 * frames).
 *
 * What a trace knows beside its requests (access streams: header fields
 * and samples of resident pages) is kept by reader.c for the whole trace
 * in a zc__trace_info, which formats fill through the helpers below and
 * zc_trace_meta() / zc_trace_resident() read.  Recorded file sizes are
 * the file's own (acc.sizes), not the trace's: they go into the requests
 * that follow them in the same file.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_SIM_TRACE_READER_H
#define ZC_SIM_TRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/files.h"
#include "zcache_sim.h"

/* Header fields and resident-page samples of a trace. */
struct zc__trace_info {
    char **meta; /* "key\0value" strings in the order read; the last of a
                    key wins (earlier ones stay valid until the close) */
    size_t nmeta, meta_cap;
    struct zc__resident {
        uint32_t dev;
        uint64_t pages;
    } * res; /* the last sample of each file system, in order of arrival */
    size_t nres, res_cap;
};

/* One open trace file. */
struct zc__tfile {
    const char *path;
    int fd; /* -1 once closed */
    unsigned char *buf;
    size_t cap;
    size_t pos, end;
    uint64_t buf_off;
    uint64_t line;
    uint64_t rec_off; /* binary formats: the offset of the last record read
                         (set by the format), which the messages about a
                         request name once next() has returned it */
    bool eof;
    size_t page_size;     /* block lists: bytes per listed page; access
                             streams: the header's page_size */
    size_t entry_size;    /* the format's, checked at the end of a compressed
                             file (plain files: by size when opened) */
    uint64_t state;       /* the format's own, 0 when the file is opened */
    struct {              /* access streams' own, 0 when the file is opened */
        uint64_t clock;   /* time of the last record */
        uint64_t records; /* records read */
        unsigned minor;   /* the binary form's minor version */
        struct zc__file_sizes sizes; /* the files' recorded sizes; freed
                                        when the file is closed */
    } acc;
    struct zc__trace_info *info; /* the trace's */
    char *err;                   /* the trace's message buffer */
    size_t errlen;

    /* zstd-compressed files */
    void *zstd; /* ZSTD_DCtx, or NULL: the file is read as it is */
    unsigned char *zin;
    size_t zin_cap, zin_pos, zin_end;
    uint64_t zin_off, frame_off;
    size_t zret;
    bool zin_eof;
    uint64_t unchecked_frame;    /* 1 + the offset of the first data frame
                                    without zstd's content checksum; 0 none */
    const char *checksums_guard; /* what zstd's checksum guards, if the
                                    format relies on it (NULL: it does not) */
};

/* Make at least want bytes readable at buf + pos if the file has them
 * (want <= cap); *avail = what is readable, less than want only at the end
 * of the file.  0, or -ZC_EIO with a message. */
int zc__tf_fill(struct zc__tfile *f, size_t want, size_t *avail);

/* The next line, without its '\n' (and '\r' before it): 1 and
 * [*line, *line + *len); 0 at the end of the file; -ZC_EIO; -ZC_EFORMAT
 * for a line longer than the buffer.  Valid until the next call. */
int zc__tf_line(struct zc__tfile *f, const char **line, size_t *len);

/* The next line with data, skipping blank lines and '#' comments: 1 and
 * [*p, *end) from its first non-space character; otherwise as
 * zc__tf_line(). */
int zc__tf_data_line(struct zc__tfile *f, const char **p, const char **end);

/* Set the message "FILE:LINE: what" (current line) and return
 * -ZC_EFORMAT. */
int zc__tf_fail_line(struct zc__tfile *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Set the message "FILE: offset N: what" and return -ZC_EFORMAT. */
int zc__tf_fail_at(struct zc__tfile *f, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The format's data is guarded by zstd's content checksum alone (what
 * names it, for the message: "an access stream's records"): a compressed
 * file's data frames must each carry one.  -ZC_EFORMAT "FILE: offset N:"
 * (N the frame's offset in the compressed file) for a frame decompressed
 * already, and from now on for each new frame as it begins; else 0.  A
 * plain file has no frames: the format refuses it itself. */
int zc__tf_need_zstd_checksums(struct zc__tfile *f, const char *what);

/* The offset of the next unread byte. */
static inline uint64_t zc__tf_offset(const struct zc__tfile *f)
{
    return f->buf_off + f->pos;
}

/* A trace format. */
struct zc__trace_format {
    const char *name;
    const char *doc;
    /* Binary arrays of fixed-size entries: a file's size must be a
     * multiple of this; 0 otherwise. */
    size_t entry_size;
    /* The files are per-CPU parts of one capture: merge them by time. */
    bool merge_by_time;
    /* Whether the first bytes of a file look like this format (at_eof:
     * head is the whole file).  NULL: never sniffed, only forced. */
    bool (*sniff)(const unsigned char *head, size_t len, bool at_eof);
    /* The file's header, read once before its first next() (when the
     * trace is opened for its first file); NULL: none.  0 or -ZC_E* as
     * next(). */
    int (*begin)(struct zc__tfile *f);
    /* The next request of the file: 1 and *req (zeroed by the caller);
     * 0 at its end; -ZC_E* with a message set through the zc__tf_fail_*
     * helpers.  Binary formats set f->rec_off to the request's record.
     * What holds for every format (a request's length within the trace's
     * max_request) reader.c checks after this. */
    int (*next)(struct zc__tfile *f, zc_request *req);
};

extern const struct zc__trace_format zc__trace_blkparse;
extern const struct zc__trace_format zc__trace_blktrace;
extern const struct zc__trace_format zc__trace_disksim;
extern const struct zc__trace_format zc__trace_vscsi;
extern const struct zc__trace_format zc__trace_blocklist_text;
extern const struct zc__trace_format zc__trace_blocklist_u32;
extern const struct zc__trace_format zc__trace_blocklist_u64;
extern const struct zc__trace_format zc__trace_access;
extern const struct zc__trace_format zc__trace_access_text;

/* ---- what a trace knows beside its requests ---------------------------- */

/* Add the header field key[klen] = value[vlen] to the trace's fields.  0,
 * or -ZC_ENOMEM with a message. */
int zc__tf_meta_add(struct zc__tfile *f, const char *key, size_t klen,
                    const char *value, size_t vlen);

/* Record that file system dev held `pages` resident pages.  0; 1 if the
 * table of file systems is full (ZC__RESIDENT_MAX: the format says where);
 * -ZC_ENOMEM with a message. */
int zc__tf_resident(struct zc__tfile *f, uint32_t dev, uint64_t pages);
#define ZC__RESIDENT_MAX 4096

/* ---- sniffing help ---------------------------------------------------- */

/* The first line of head that is neither blank nor a '#' comment, without
 * its line end.  A last line cut off by the end of head counts only if
 * at_eof.  false if there is none. */
bool zc__sniff_first_line(const unsigned char *head, size_t len, bool at_eof,
                          const char **line, size_t *llen);

/* ---- number parsing: p advances past what was taken ------------------- */

static inline bool zc__is_digit(char c)
{
    return (unsigned char)(c - '0') < 10;
}

static inline bool zc__is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static inline const char *zc__skip_space(const char *p, const char *end)
{
    while (p < end && zc__is_space(*p))
        p++;
    return p;
}

/* Decimal digits: true and *v; false if there are none or they overflow
 * 64 bits. */
static inline bool zc__parse_u64(const char **pp, const char *end, uint64_t *v)
{
    const char *p = *pp;
    uint64_t x = 0;

    if (p >= end || !zc__is_digit(*p))
        return false;
    do {
        unsigned d = (unsigned)(*p - '0');
        if (x > (UINT64_MAX - d) / 10)
            return false;
        x = x * 10 + d;
        p++;
    } while (p < end && zc__is_digit(*p));
    *pp = p;
    *v = x;
    return true;
}

/* Hexadecimal digits, an optional 0x/0X before them. */
bool zc__parse_hex(const char **pp, const char *end, uint64_t *v);

/* A non-negative decimal time "INT" or "INT.FRAC" in units of unit_ns
 * nanoseconds (1e9: seconds, 1e6: milliseconds, 1: nanoseconds), to
 * nanoseconds; fraction digits past the nanosecond are dropped.  false if
 * malformed or past 2^64 ns.  *had_point: whether a '.' was written. */
bool zc__parse_time(const char **pp, const char *end, uint64_t unit_ns,
                    uint64_t *ns, bool *had_point);

/* offset = pos * pos_unit, length = count * count_unit, with
 * offset + length representable: true; false on overflow. */
bool zc__byte_span(uint64_t pos, uint64_t pos_unit, uint64_t count,
                   uint64_t count_unit, uint64_t *offset, uint64_t *length);

#endif /* ZC_SIM_TRACE_READER_H */
