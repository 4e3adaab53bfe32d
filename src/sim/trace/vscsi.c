/*
 * sim/trace/vscsi.c - CloudPhysics vscsi traces as CSV (libCacheSim's).
 *
 * One request per line, "version,time,op,size,lbn", after an optional
 * header line (a first line, blank and '#' lines aside, of five
 * comma-separated fields of printable ASCII whose first is not a number,
 * such as "version,time,op,size,lbn"):
 *
 *     version  ignored (1 or 2, the binary layout it was converted from)
 *     time     seconds, whole or with a fraction
 *     op       the SCSI opcode in hex, "0x" optional: 28 READ(10),
 *              88 READ(16), 2a WRITE(10), 8a WRITE(16); other commands
 *              (SYNCHRONIZE CACHE, INQUIRY, ...) move no data and are
 *              skipped
 *     size     bytes
 *     lbn      logical block number, 512-byte sectors
 *
 * The device is 0.  Blanks around fields are allowed; blank lines and
 * lines starting with '#' are skipped; anything else that is not five
 * numbers is an error naming the file and line.  Zero-size requests are
 * skipped.  An empty file is a trace of no requests.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "reader.h"

struct fields {
    uint64_t time_ns, op, size, lbn;
};

/* Past the blanks and the comma that end a field; false if no comma. */
static bool comma(const char **pp, const char *end)
{
    const char *p = zc__skip_space(*pp, end);

    if (p >= end || *p != ',')
        return false;
    *pp = zc__skip_space(p + 1, end);
    return true;
}

/* 1 and the fields, or 0 with *why. */
static int parse_fields(const char *p, const char *end, struct fields *v,
                        const char **why)
{
    uint64_t version;
    bool point;

    p = zc__skip_space(p, end);
    if (!zc__parse_u64(&p, end, &version)) {
        *why = "bad version field";
        return 0;
    }
    if (!comma(&p, end) ||
        !zc__parse_time(&p, end, 1000000000u, &v->time_ns, &point)) {
        *why = "bad time field";
        return 0;
    }
    if (!comma(&p, end) || !zc__parse_hex(&p, end, &v->op)) {
        *why = "bad op field (a SCSI opcode in hex)";
        return 0;
    }
    if (!comma(&p, end) || !zc__parse_u64(&p, end, &v->size)) {
        *why = "bad size field";
        return 0;
    }
    if (!comma(&p, end) || !zc__parse_u64(&p, end, &v->lbn)) {
        *why = "bad lbn field";
        return 0;
    }
    if (zc__skip_space(p, end) != end) {
        *why = "expected 5 fields: version,time,op,size,lbn";
        return 0;
    }
    return 1;
}

/* A header: five comma-separated fields, the first not a number, in
 * printable ASCII (so that binary bytes with four commas before their first
 * line end, such as an access stream whose first byte is damaged, are not an
 * empty vscsi trace). */
static bool is_header(const char *p, const char *end)
{
    unsigned commas = 0;

    p = zc__skip_space(p, end);
    if (p >= end || zc__is_digit(*p))
        return false;
    for (; p < end; p++) {
        unsigned char c = (unsigned char)*p;
        if ((c < 0x20 && c != '\t') || c > 0x7e)
            return false;
        commas += c == ',';
    }
    return commas == 4;
}

static int vscsi_next(struct zc__tfile *f, zc_request *req)
{
    const char *p, *end, *why = "";
    struct fields v;
    int rc;

    for (;;) {
        rc = zc__tf_data_line(f, &p, &end);
        if (rc <= 0)
            return rc;
        if (!f->state++ && is_header(p, end))
            continue;
        if (!parse_fields(p, end, &v, &why))
            return zc__tf_fail_line(f, "%s", why);
        if (v.op != 0x28 && v.op != 0x88 && v.op != 0x2a && v.op != 0x8a)
            continue;
        if (v.size == 0)
            continue;
        if (!zc__byte_span(v.lbn, 512, v.size, 1, &req->offset, &req->length))
            return zc__tf_fail_line(f,
                                    "lbn %llu + %llu bytes is past the "
                                    "largest byte offset",
                                    (unsigned long long)v.lbn,
                                    (unsigned long long)v.size);
        req->time_ns = v.time_ns;
        req->dev = 0;
        req->write = v.op == 0x2a || v.op == 0x8a;
        return 1;
    }
}

static bool vscsi_sniff(const unsigned char *head, size_t len, bool at_eof)
{
    const char *line, *why;
    struct fields v;
    size_t llen;

    if (!zc__sniff_first_line(head, len, at_eof, &line, &llen))
        return false;
    return is_header(line, line + llen) ||
           parse_fields(line, line + llen, &v, &why);
}

const struct zc__trace_format zc__trace_vscsi = {
    .name = "vscsi",
    .doc = "CloudPhysics vscsi CSV: version,time,op,size,lbn (op in hex)",
    .sniff = vscsi_sniff,
    .next = vscsi_next,
};
