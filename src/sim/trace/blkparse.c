/*
 * sim/trace/blkparse.c - blkparse's default text output.
 *
 * Every event line starts with blkparse's header
 *
 *     maj,min cpu sequence seconds.nanoseconds pid action
 *
 * and only Q (queue) events are requests: "... Q RWBS SECTOR + COUNT
 * [comm]", sectors of 512 bytes, a write iff RWBS contains W, a discard
 * (RWBS contains D) skipped.  A Q with no data is printed without
 * "SECTOR + COUNT" (a flush: "Q FWS [comm]") and a SCSI pass-through one
 * with "BYTES (CDB)": both are skipped, as are zero-length requests.  The
 * sector is the one logged on the Q event, which for a partition is the
 * whole disk's sector after the remap (the A event before it says from
 * where); the reference numbers of the shared block traces are computed on it,
 * so no remap is undone here.  The device is (maj << 20) | min, the kernel's
 * dev_t.
 *
 * A line is an event line iff it starts with "DIGITS,DIGITS"; every other
 * line (blank, the per-CPU and total summaries, "Throughput", "Events")
 * is skipped.  An event line whose header does not parse, or a Q line
 * whose payload does not, is an error naming the file and line: in a
 * blkparse file they mean corruption or a cut-off line.  So is a NUL byte:
 * no text has one, and a binary file read as blkparse (--format blkparse
 * on an op stream, an access stream, an executable) gave 0 requests.  A
 * file of text with no event line is a trace of no requests, as an empty
 * one is (what blkparse prints of an idle device, and every prefix of a
 * trace cut before its first event, read as the events it holds).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "reader.h"

struct event {
    uint64_t maj, min, time_ns;
    const char *action;
    size_t action_len;
};

/* At least one blank, then the blanks skipped; false if none. */
static bool blanks(const char **pp, const char *end)
{
    const char *p = *pp;

    if (p >= end || !zc__is_space(*p))
        return false;
    *pp = zc__skip_space(p, end);
    return true;
}

/* Whether the line starts like an event: blanks, DIGITS ',' DIGIT. */
static bool is_event_line(const char *p, const char *end)
{
    p = zc__skip_space(p, end);
    if (p >= end || !zc__is_digit(*p))
        return false;
    while (p < end && zc__is_digit(*p))
        p++;
    return end - p >= 2 && p[0] == ',' && zc__is_digit(p[1]);
}

/* The header up to and including the action; p is left after it. */
static bool parse_event(const char **pp, const char *end, struct event *ev)
{
    const char *p = zc__skip_space(*pp, end);
    uint64_t cpu, seq, pid;
    bool point;

    if (!zc__parse_u64(&p, end, &ev->maj) || p >= end || *p++ != ',' ||
        !zc__parse_u64(&p, end, &ev->min) || !blanks(&p, end) ||
        !zc__parse_u64(&p, end, &cpu) || !blanks(&p, end) ||
        !zc__parse_u64(&p, end, &seq) || !blanks(&p, end) ||
        !zc__parse_time(&p, end, 1000000000u, &ev->time_ns, &point) ||
        !blanks(&p, end) || !zc__parse_u64(&p, end, &pid) || !blanks(&p, end))
        return false;
    ev->action = p;
    while (p < end && ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')))
        p++;
    ev->action_len = (size_t)(p - ev->action);
    if (ev->action_len == 0 || (p < end && !zc__is_space(*p)))
        return false;
    *pp = p;
    return true;
}

/* The payload of a Q event: 1 and *req, 0 if it carries no data to
 * count, or an error. */
static int parse_queue(struct zc__tfile *f, const char *p, const char *end,
                       const struct event *ev, zc_request *req)
{
    const char *rwbs;
    uint64_t sector, count;
    size_t rwbs_len;

    if (!blanks(&p, end))
        return zc__tf_fail_line(f, "Q event without RWBS");
    rwbs = p;
    while (p < end && !zc__is_space(*p))
        p++;
    rwbs_len = (size_t)(p - rwbs);
    p = zc__skip_space(p, end);
    if (p < end && *p == '[')
        return 0; /* no data: a flush or an empty barrier */
    if (!zc__parse_u64(&p, end, &sector))
        return zc__tf_fail_line(f, "Q event: expected \"SECTOR + COUNT\" "
                                   "after the RWBS");
    p = zc__skip_space(p, end);
    if (p < end && *p == '(')
        return 0; /* a SCSI pass-through command: bytes, not sectors */
    if (p >= end || *p != '+')
        return zc__tf_fail_line(f, "Q event: expected \"+ COUNT\" after the "
                                   "sector");
    p = zc__skip_space(p + 1, end);
    if (!zc__parse_u64(&p, end, &count) || (p < end && !zc__is_space(*p)))
        return zc__tf_fail_line(f, "Q event: bad sector count");
    if (memchr(rwbs, 'D', rwbs_len) || count == 0)
        return 0;
    if (ev->maj >= (1u << 12) || ev->min >= (1u << 20))
        return zc__tf_fail_line(f, "device %llu,%llu out of range",
                                (unsigned long long)ev->maj,
                                (unsigned long long)ev->min);
    if (!zc__byte_span(sector, 512, count, 512, &req->offset, &req->length))
        return zc__tf_fail_line(f,
                                "sector %llu + %llu sectors is past the "
                                "largest byte offset",
                                (unsigned long long)sector,
                                (unsigned long long)count);
    req->time_ns = ev->time_ns;
    req->dev = (uint32_t)(ev->maj << 20 | ev->min);
    req->write = memchr(rwbs, 'W', rwbs_len) != NULL;
    return 1;
}

static int blkparse_next(struct zc__tfile *f, zc_request *req)
{
    const char *line, *p, *end;
    struct event ev;
    size_t len;
    int rc;

    for (;;) {
        rc = zc__tf_line(f, &line, &len);
        if (rc <= 0)
            return rc;
        end = line + len;
        if (memchr(line, '\0', len))
            return zc__tf_fail_line(f, "a NUL byte: not blkparse's text");
        if (!is_event_line(line, end))
            continue;
        p = line;
        if (!parse_event(&p, end, &ev))
            return zc__tf_fail_line(f, "malformed event line (expected "
                                       "\"MAJ,MIN CPU SEQ TIME PID "
                                       "ACTION ...\")");
        if (ev.action_len != 1 || ev.action[0] != 'Q')
            continue;
        rc = parse_queue(f, p, end, &ev, req);
        if (rc)
            return rc;
    }
}

static bool blkparse_sniff(const unsigned char *head, size_t len, bool at_eof)
{
    const char *line;
    struct event ev;
    size_t llen;

    if (!zc__sniff_first_line(head, len, at_eof, &line, &llen))
        return false;
    return is_event_line(line, line + llen) &&
           parse_event(&line, line + llen, &ev);
}

const struct zc__trace_format zc__trace_blkparse = {
    .name = "blkparse",
    .doc = "blkparse default text output; Q events are the requests",
    .sniff = blkparse_sniff,
    .next = blkparse_next,
};
