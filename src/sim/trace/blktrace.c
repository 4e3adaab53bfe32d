/*
 * sim/trace/blktrace.c - blktrace's binary per-CPU files.
 *
 * A file is a sequence of records: a 48-byte struct blk_io_trace header
 *
 *     u32 magic    0x65617400 | version (7)
 *     u32 sequence
 *     u64 time     nanoseconds
 *     u64 sector   512-byte units
 *     u32 bytes
 *     u32 action   low 16 bits: what happened; high 16: category bits
 *     u32 pid, device (the kernel's dev_t: major << 20 | minor), cpu
 *     u16 error, pdu_len
 *
 * then pdu_len payload bytes, all in the byte order of the machine that
 * recorded it: the magic tells which, record by record.  The constants are
 * those of the kernel's include/uapi/linux/blktrace_api.h.  A request is a
 * record whose action is __BLK_TA_QUEUE (1; the __BLK_TA_CGROUP flag, 1 <<
 * 8, which only says a cgroup id is in the payload, is ignored) and whose
 * BLK_TC_NOTIFY category bit is clear: notify records (process names,
 * timestamps, messages) reuse the low action values.  A write iff
 * BLK_TC_WRITE; BLK_TC_DISCARD records and bytes == 0 are skipped.
 *
 * A capture is one such file per CPU, each in time order; reader.c merges
 * them.  A header cut short, a bad magic or version, or a payload running
 * past the end of the file is an error naming the record's offset.  An
 * empty file is a capture of a CPU that saw nothing: no requests.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "reader.h"

enum {
    HEADER_BYTES = 48,
    BLK_IO_TRACE_MAGIC = 0x65617400,
    BLK_IO_TRACE_VERSION = 0x07,
    BLK_TC_SHIFT = 16,
    BLK_TC_WRITE = 1 << 1,
    BLK_TC_NOTIFY = 1 << 10,
    BLK_TC_DISCARD = 1 << 13,
    BLK_TA_QUEUE = 1,
    BLK_TA_CGROUP = 1 << 8,
};

static uint16_t get16(const unsigned char *p, bool swap)
{
    uint16_t v;

    memcpy(&v, p, sizeof(v));
    return swap ? __builtin_bswap16(v) : v;
}

static uint32_t get32(const unsigned char *p, bool swap)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return swap ? __builtin_bswap32(v) : v;
}

static uint64_t get64(const unsigned char *p, bool swap)
{
    uint64_t v;

    memcpy(&v, p, sizeof(v));
    return swap ? __builtin_bswap64(v) : v;
}

/* Whether the magic at p is blktrace's, and in which byte order. */
static bool magic_order(const unsigned char *p, bool *swap)
{
    uint32_t m = get32(p, false);

    if ((m & 0xffffff00u) == BLK_IO_TRACE_MAGIC) {
        *swap = false;
        return true;
    }
    if ((__builtin_bswap32(m) & 0xffffff00u) == BLK_IO_TRACE_MAGIC) {
        *swap = true;
        return true;
    }
    return false;
}

static int blktrace_next(struct zc__tfile *f, zc_request *req)
{
    for (;;) {
        uint64_t at = zc__tf_offset(f), sector;
        const unsigned char *p;
        uint32_t action, bytes, version;
        size_t avail, pdu_len;
        bool swap;
        int rc;

        rc = zc__tf_fill(f, HEADER_BYTES, &avail);
        if (rc || avail == 0)
            return rc;
        if (avail < HEADER_BYTES)
            return zc__tf_fail_at(f, at,
                                  "truncated record: %zu of %d header bytes",
                                  avail, HEADER_BYTES);
        p = f->buf + f->pos;
        if (!magic_order(p, &swap))
            return zc__tf_fail_at(f, at, "bad magic 0x%08x (not blktrace)",
                                  (unsigned)get32(p, false));
        version = get32(p, swap) & 0xff;
        if (version != BLK_IO_TRACE_VERSION)
            return zc__tf_fail_at(f, at, "blktrace version %u, only %d is read",
                                  (unsigned)version, BLK_IO_TRACE_VERSION);
        pdu_len = get16(p + 46, swap);
        rc = zc__tf_fill(f, HEADER_BYTES + pdu_len, &avail);
        if (rc)
            return rc;
        p = f->buf + f->pos; /* the fill may have moved the bytes */
        if (avail < HEADER_BYTES + pdu_len)
            return zc__tf_fail_at(f, at,
                                  "payload of %zu bytes runs past the end of "
                                  "the file",
                                  pdu_len);
        f->pos += HEADER_BYTES + pdu_len;

        action = get32(p + 28, swap);
        bytes = get32(p + 24, swap);
        if ((action & (BLK_TC_NOTIFY << BLK_TC_SHIFT)) ||
            (action & 0xffff & ~(uint32_t)BLK_TA_CGROUP) != BLK_TA_QUEUE ||
            (action & (BLK_TC_DISCARD << BLK_TC_SHIFT)) || bytes == 0)
            continue;
        sector = get64(p + 16, swap);
        if (!zc__byte_span(sector, 512, bytes, 1, &req->offset, &req->length))
            return zc__tf_fail_at(f, at,
                                  "sector %llu + %u bytes is past the "
                                  "largest byte offset",
                                  (unsigned long long)sector, (unsigned)bytes);
        req->time_ns = get64(p + 8, swap);
        req->dev = get32(p + 36, swap);
        req->write = (action & (BLK_TC_WRITE << BLK_TC_SHIFT)) != 0;
        f->rec_off = at;
        return 1;
    }
}

static bool blktrace_sniff(const unsigned char *head, size_t len, bool at_eof)
{
    bool swap;

    (void)at_eof;
    return len >= 4 && magic_order(head, &swap);
}

const struct zc__trace_format zc__trace_blktrace = {
    .name = "blktrace",
    .doc = "blktrace binary per-CPU files (NAME.blktrace.N), merged by time",
    .merge_by_time = true,
    .sniff = blktrace_sniff,
    .next = blktrace_next,
};
