/*
 * sim/trace/disksim.c - DiskSim's ASCII trace format (also MQSim's).
 *
 * One request per line, five fields separated by blanks:
 *
 *     arrival_time device lba size_in_sectors type
 *
 * lba and size in 512-byte sectors; type is a flag word whose bit 0 is 1
 * for a read and 0 for a write; the device number is taken as it is.
 *
 * Time: DiskSim writes milliseconds with a fractional part ("%f"); MQSim,
 * whose traces are the common DiskSim-format files today, writes whole
 * nanoseconds.  A time written with a '.' is therefore read as
 * milliseconds and a time written as a bare integer as nanoseconds.  Time
 * only orders and labels requests, so a DiskSim file with integer
 * milliseconds is merely shown on a compressed time scale.
 *
 * Blank lines and lines starting with '#' are skipped; anything else that
 * is not five numbers is an error naming the file and line.  Zero-size
 * requests are skipped.  An empty file is a trace of no requests.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "reader.h"

struct fields {
    uint64_t time_ns, dev, lba, count, type;
};

/* The five fields of a line that is not blank: 1, or 0 if malformed with
 * *why saying what. */
static int parse_fields(const char *p, const char *end, struct fields *v,
                        const char **why)
{
    const char *start;
    bool point;

    p = zc__skip_space(p, end);
    start = p;
    if (!zc__parse_time(&p, end, 1000000, &v->time_ns, &point) || !point) {
        p = start;
        if (!zc__parse_time(&p, end, 1, &v->time_ns, &point) || point) {
            *why = "bad arrival time";
            return 0;
        }
    }
    uint64_t *ints[4] = {&v->dev, &v->lba, &v->count, &v->type};
    static const char *const names[4] = {"bad device", "bad lba", "bad size",
                                         "bad type"};
    for (int i = 0; i < 4; i++) {
        if (p >= end || !zc__is_space(*p)) {
            *why = i == 0 && p < end ? "bad arrival time"
                                     : "expected 5 fields: time device lba "
                                       "size type";
            return 0;
        }
        p = zc__skip_space(p, end);
        if (p >= end) {
            *why = "expected 5 fields: time device lba size type";
            return 0;
        }
        if (!zc__parse_u64(&p, end, ints[i])) {
            *why = names[i];
            return 0;
        }
    }
    if (p < end && !zc__is_space(*p)) {
        *why = "bad type";
        return 0;
    }
    if (zc__skip_space(p, end) != end) {
        *why = "expected 5 fields: time device lba size type";
        return 0;
    }
    return 1;
}

static int disksim_next(struct zc__tfile *f, zc_request *req)
{
    const char *p, *end, *why = "";
    struct fields v;
    int rc;

    for (;;) {
        rc = zc__tf_data_line(f, &p, &end);
        if (rc <= 0)
            return rc;
        if (!parse_fields(p, end, &v, &why))
            return zc__tf_fail_line(f, "%s", why);
        if (v.dev > UINT32_MAX)
            return zc__tf_fail_line(f, "device %llu out of range",
                                    (unsigned long long)v.dev);
        if (v.count == 0)
            continue;
        if (!zc__byte_span(v.lba, 512, v.count, 512, &req->offset,
                           &req->length))
            return zc__tf_fail_line(f,
                                    "lba %llu + %llu sectors is past the "
                                    "largest byte offset",
                                    (unsigned long long)v.lba,
                                    (unsigned long long)v.count);
        req->time_ns = v.time_ns;
        req->dev = (uint32_t)v.dev;
        req->write = (v.type & 1) == 0;
        return 1;
    }
}

static bool disksim_sniff(const unsigned char *head, size_t len, bool at_eof)
{
    const char *line, *why;
    struct fields v;
    size_t llen;

    return zc__sniff_first_line(head, len, at_eof, &line, &llen) &&
           parse_fields(line, line + llen, &v, &why);
}

const struct zc__trace_format zc__trace_disksim = {
    .name = "disksim",
    .doc = "DiskSim/MQSim ASCII: time device lba sectors type (1 = read)",
    .sniff = disksim_sniff,
    .next = disksim_next,
};
