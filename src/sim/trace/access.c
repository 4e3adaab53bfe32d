/*
 * sim/trace/access.c - reading access streams (.zca), the binary form; and
 * what both forms' readers share (header fields, requests).
 *
 * The layout is in access.h.  reader.c has already undone the zstd
 * compression, so this reads plain records from the file's buffer: the
 * header in begin() (so that zc_trace_meta() answers as soon as the trace
 * is open), then one record at a time, at most ZCA_REC_MAX bytes, parsed
 * in place.  Resident samples are taken into the trace's table as they
 * are met and never handed out, so after zc_trace_next() returned a
 * request the table holds the samples recorded before it (after the end:
 * all of them).  Size records likewise go into the file's table of sizes
 * (files.h), from which each later request of the file takes its
 * file_size.  Time is the running sum of the records' dt.
 *
 * Every byte is checked: the header's Adler-32, and the records by zstd's
 * content checksum (the writer's frames carry one).  A binary stream that did
 * not come through zstd (say, after "zstd -d"), or any of whose frames has no
 * content checksum (after "zstd --no-check"), is refused: nothing would guard
 * its records against a flipped bit (of 5,216 single-bit flips of a 652-byte
 * stream without it, 739 read as other numbers).  Fuzzing builds, which skip
 * checksums, take both so that mutations reach the parser.  Varints may not run
 * past 64 bits, dev must fit 32 bits, ino and count may not be 0, count may not
 * pass ZCA_COUNT_MAX (a record costs time linear in its count downstream),
 * pages and bytes may not run past 2^64, nor the clock.  A stream that ends
 * without its end record, or has bytes after it, or whose end record counts
 * other than the records read, is an error: a truncated stream never passes for
 * a short one.  Messages are "FILE: offset N: what", N the offset of the record
 * (of the decompressed bytes).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <lzo/lzo1x.h>
#include <stdio.h>
#include <string.h>

#include "access.h"

/* ---- shared by both forms ------------------------------------------------ */

static const char *const words[] = {
    [ZCA_READ] = "r",        [ZCA_WRITE] = "w",
    [ZCA_MAPPED_READ] = "m", [ZCA_RESIDENT] = "resident",
    [ZCA_SIZE] = "size",     [ZCA_AROUND] = "a",
};

const char *zc__access_word(unsigned op)
{
    return op < sizeof(words) / sizeof(words[0]) ? words[op] : NULL;
}

unsigned zc__access_op(const char *w, size_t len)
{
    for (unsigned op = 0; op < sizeof(words) / sizeof(words[0]); op++)
        if (words[op] && strlen(words[op]) == len && !memcmp(w, words[op], len))
            return op;
    return 0;
}

int zc__access_field(struct zc__tfile *f, const char *key, size_t klen,
                     const char *value, size_t vlen, uint64_t *page_size,
                     const char **why)
{
    if (klen == 9 && memcmp(key, "page_size", 9) == 0) {
        const char *p = value, *end = value + vlen;
        uint64_t ps;
        if (*page_size) {
            *why = "page_size given twice";
            return -ZC_EFORMAT;
        }
        if (!zc__parse_u64(&p, end, &ps) || p != end || !zc__page_size_ok(ps)) {
            *why = "page_size is not a power of two in 512..65536";
            return -ZC_EFORMAT;
        }
        *page_size = ps;
    }
    return zc__tf_meta_add(f, key, klen, value, vlen);
}

const char *zc__access_request(struct zc__tfile *f, unsigned op, uint64_t dev,
                               uint64_t ino, uint64_t index, uint64_t count,
                               zc_request *req)
{
    static const uint32_t flags[] = {
        [ZCA_MAPPED_READ] = ZC_REQ_MAPPED,
        [ZCA_AROUND] = ZC_REQ_MAPPED | ZC_REQ_AROUND,
    };

    if (dev > UINT32_MAX)
        return "dev is not below 2^32";
    if (ino == 0)
        return "inode 0 (accesses are to files' pages)";
    if (count == 0)
        return "count 0";
    if (count > ZCA_COUNT_MAX)
        return "count past the cap of 2^20 pages per record";
    if (count - 1 > UINT64_MAX - index)
        return "index + count is past 2^64";
    if (!zc__byte_span(index, f->page_size, count, f->page_size, &req->offset,
                       &req->length))
        return "pages past the largest byte offset";
    req->dev = (uint32_t)dev;
    req->ino = ino;
    req->write = op == ZCA_WRITE;
    req->flags = flags[op];
    if (zc__file_size_get(&f->acc.sizes, req->dev, ino, &req->file_size))
        req->flags |= ZC_REQ_SIZE;
    return NULL;
}

int zc__access_size(struct zc__tfile *f, uint64_t dev, uint64_t ino,
                    uint64_t bytes, const char **why)
{
    int rc;

    if (dev > UINT32_MAX) {
        *why = "dev is not below 2^32";
        return -ZC_EFORMAT;
    }
    if (ino == 0) {
        *why = "inode 0 (sizes are files')";
        return -ZC_EFORMAT;
    }
    rc = zc__file_size_set(&f->acc.sizes, (uint32_t)dev, ino, bytes);
    if (rc == -ZC_EINVAL) {
        *why = "sizes of more than 2^32 - 2 files";
        return -ZC_EFORMAT;
    }
    if (rc)
        snprintf(f->err, f->errlen, "%s: out of memory", f->path);
    return rc;
}

/* ---- the binary form -------------------------------------------------- */

/* The header fields text[n]: lines of key=value. */
static int header_fields(struct zc__tfile *f, const char *text, size_t n,
                         uint64_t at)
{
    const char *p = text, *end = text + n, *why;
    uint64_t ps = 0;

    if (memchr(text, '\0', n) || text[n - 1] != '\n')
        return zc__tf_fail_at(f, at, "header fields are not lines of text");
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eq = memchr(p, '=', (size_t)(nl - p));
        int rc;
        if (!eq || eq == p)
            return zc__tf_fail_at(f, at, "header field without key=value");
        rc = zc__access_field(f, p, (size_t)(eq - p), eq + 1,
                              (size_t)(nl - eq - 1), &ps, &why);
        if (rc == -ZC_EFORMAT)
            return zc__tf_fail_at(f, at, "%s", why);
        if (rc)
            return rc;
        p = nl + 1;
    }
    if (!ps)
        return zc__tf_fail_at(f, at, "no page_size header field");
    f->page_size = (size_t)ps;
    return 0;
}

static int access_begin(struct zc__tfile *f)
{
    const unsigned char *p;
    size_t avail;
    uint32_t n;
    int rc = zc__tf_fill(f, ZCA_FIXED, &avail);

    if (rc)
        return rc;
    /* an empty file has lost its header (a recording cut short): every
     * stream the writer makes has one, even with no records */
    if (avail == 0)
        return zc__tf_fail_at(f, 0, "empty: an access stream begins with "
                                    "its header");
    p = f->buf + f->pos;
    if (avail < 8 || memcmp(p, ZCA_MAGIC, 8) != 0)
        return zc__tf_fail_at(f, 0, "not an access stream (bad magic)");
    if (ZC__CHECKSUMS && !f->zstd)
        return zc__tf_fail_at(f, 0,
                              "an access stream's binary form must be "
                              "zstd-compressed (its checksum guards the "
                              "records)");
    if (ZC__CHECKSUMS &&
        (rc = zc__tf_need_zstd_checksums(f, "an access stream's records")))
        return rc;
    if (avail < ZCA_FIXED)
        return zc__tf_fail_at(f, 0, "truncated header");
    if ((p[8] | p[9] << 8) != ZCA_MAJOR)
        return zc__tf_fail_at(f, 8,
                              "format version %u.%u; this library reads "
                              "version %d",
                              (unsigned)(p[8] | p[9] << 8),
                              (unsigned)(p[10] | p[11] << 8), ZCA_MAJOR);
    if ((p[10] | p[11] << 8) > ZCA_MINOR)
        return zc__tf_fail_at(f, 10,
                              "written by a newer libzcache (version %d.%u); "
                              "this library reads up to version %d.%d",
                              ZCA_MAJOR, (unsigned)(p[10] | p[11] << 8),
                              ZCA_MAJOR, ZCA_MINOR);
    n = zc__get_le32(p + 12);
    if (n == 0 || n > ZCA_HEADER_MAX)
        return zc__tf_fail_at(f, 12, "header length %u out of range (1..%d)",
                              (unsigned)n, ZCA_HEADER_MAX);
    rc = zc__tf_fill(f, ZCA_FIXED + n + 4, &avail);
    if (rc)
        return rc;
    p = f->buf + f->pos;
    if (avail < ZCA_FIXED + n + 4)
        return zc__tf_fail_at(f, 12, "truncated header");
    if (ZC__CHECKSUMS &&
        lzo_adler32(1, p, ZCA_FIXED + n) != zc__get_le32(p + ZCA_FIXED + n))
        return zc__tf_fail_at(f, ZCA_FIXED + n, "header checksum mismatch");
    rc = header_fields(f, (const char *)p + ZCA_FIXED, n, ZCA_FIXED);
    if (rc)
        return rc;
    f->pos += ZCA_FIXED + n + 4;
    f->acc.minor = (unsigned)(p[10] | p[11] << 8);
    f->rec_off = 0; /* the header, until a record is read */
    f->state = ZCA_S_RECORDS;
    return 0;
}

/* The end record (its opcode at p[-1]) and nothing after it. */
static int end_record(struct zc__tfile *f, const unsigned char *p,
                      const unsigned char *end, uint64_t at)
{
    uint64_t n;
    size_t avail;
    int rc = zc__varint_get(&p, end, &n);

    if (rc <= 0)
        return zc__tf_fail_at(f, at, "%s",
                              rc ? "number past 2^64" : "truncated record");
    if (n != f->acc.records)
        return zc__tf_fail_at(f, at,
                              "the end record counts %llu records, the "
                              "stream has %llu",
                              (unsigned long long)n,
                              (unsigned long long)f->acc.records);
    f->pos = (size_t)(p - f->buf);
    f->state = ZCA_S_ENDED;
    rc = zc__tf_fill(f, 1, &avail);
    if (rc)
        return rc;
    if (avail)
        return zc__tf_fail_at(f, zc__tf_offset(f),
                              "bytes after the end record");
    return 0;
}

/* One record at `at`: 1 and *req (an access), 2 (a sample or a size), 0
 * (the end). */
static int record(struct zc__tfile *f, const unsigned char *p,
                  const unsigned char *end, uint64_t at, zc_request *req)
{
    unsigned op = *p++;
    uint64_t v[5], dt;
    int nv, rc;
    const char *why = NULL;

    if (op == ZCA_END)
        return end_record(f, p, end, at);
    if (op < ZCA_READ || op > ZCA_AROUND)
        return zc__tf_fail_at(f, at, "unknown record type 0x%02x", op);
    if (op > ZCA_RESIDENT && f->acc.minor == 0)
        return zc__tf_fail_at(f, at,
                              "unknown record type 0x%02x in a version 1.0 "
                              "stream (sizes and fault-around came with 1.1)",
                              op);
    nv = op == ZCA_RESIDENT ? 3 : op == ZCA_SIZE ? 4 : 5;
    for (int i = 0; i < nv; i++) {
        rc = zc__varint_get(&p, end, &v[i]);
        if (rc <= 0)
            return zc__tf_fail_at(f, at, "%s",
                                  rc ? "number past 2^64" : "truncated record");
    }
    dt = v[0];
    if (dt > UINT64_MAX - f->acc.clock)
        return zc__tf_fail_at(f, at, "time past 2^64 ns");
    if (op == ZCA_RESIDENT) {
        if (v[1] > UINT32_MAX)
            return zc__tf_fail_at(f, at, "dev is not below 2^32");
        rc = zc__tf_resident(f, (uint32_t)v[1], v[2]);
        if (rc == 1)
            return zc__tf_fail_at(f, at,
                                  "resident samples of more than %d file "
                                  "systems",
                                  ZC__RESIDENT_MAX);
        if (rc)
            return rc;
    } else if (op == ZCA_SIZE) {
        rc = zc__access_size(f, v[1], v[2], v[3], &why);
        if (rc == -ZC_EFORMAT)
            return zc__tf_fail_at(f, at, "%s", why);
        if (rc)
            return rc;
    } else {
        why = zc__access_request(f, op, v[1], v[2], v[3], v[4], req);
        if (why)
            return zc__tf_fail_at(f, at, "%s", why);
    }
    f->acc.clock += dt;
    f->acc.records++;
    f->rec_off = at;
    f->pos = (size_t)(p - f->buf);
    req->time_ns = f->acc.clock;
    return op == ZCA_RESIDENT || op == ZCA_SIZE ? 2 : 1;
}

static int access_next(struct zc__tfile *f, zc_request *req)
{
    for (;;) {
        uint64_t at = zc__tf_offset(f);
        const unsigned char *p;
        size_t avail;
        int rc;

        if (f->state == ZCA_S_ENDED)
            return 0;
        rc = zc__tf_fill(f, ZCA_REC_MAX, &avail);
        if (rc)
            return rc;
        if (avail == 0)
            return zc__tf_fail_at(f, f->rec_off,
                                  "the stream ends without its end record "
                                  "(cut after the record or header here)");
        p = f->buf + f->pos;
        rc = record(f, p, p + avail, at, req);
        if (rc != 2)
            return rc;
    }
}

static bool access_sniff(const unsigned char *head, size_t len, bool at_eof)
{
    (void)at_eof;
    return len >= 8 && memcmp(head, ZCA_MAGIC, 8) == 0;
}

const struct zc__trace_format zc__trace_access = {
    .name = "access",
    .doc = "access stream (.zca): pages read and written, by file",
    .sniff = access_sniff,
    .begin = access_begin,
    .next = access_next,
};
