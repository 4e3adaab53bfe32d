/*
 * sim/trace/access_text.c - reading access streams, the text form.
 *
 * The layout is in access.h:
 *
 *     zca-text 1
 *     meta page_size 4096
 *     0.000001000 r 8:17 12 0 4
 *     0.000002500 resident 8:17 1234
 *     0.000003000 m 8388625 12 7
 *     0.000003000 size 8:17 12 40960
 *     0.000004000 a 8:17 12 8 2
 *     end
 *
 * Any first line "zca-text VERSION" sniffs as this format, so that a
 * version other than 1 is refused as unsupported rather than unknown.
 * begin() reads the first line and the meta lines (so that zc_trace_meta()
 * answers once the trace is open), and puts back the first line that is
 * not one.  Then a line per record; resident samples go to the trace's
 * table and sizes to the file's, and neither is handed out, as in the
 * binary form.  Times are absolute and may not go back; after "end" only blank
 * lines and comments may follow, and a stream without "end" is an error.
 * Messages are "FILE:LINE: what".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "access.h"

/* The word at *pp (up to a blank): its length, *pp past it and the blanks
 * after it. */
static size_t word(const char **pp, const char *end, const char **w)
{
    const char *p = *pp;

    *w = p;
    while (p < end && !zc__is_space(*p))
        p++;
    *pp = zc__skip_space(p, end);
    return (size_t)(p - *w);
}

static bool is_word(const char *w, size_t len, const char *s)
{
    return len == strlen(s) && memcmp(w, s, len) == 0;
}

/* A number that is the whole word at *pp. */
static bool number(const char **pp, const char *end, uint64_t *v)
{
    const char *w, *p;
    size_t len = word(pp, end, &w);

    p = w;
    return len && zc__parse_u64(&p, w + len, v) && p == w + len;
}

/* DEV: MAJ:MIN or a decimal s_dev. */
static bool device(const char **pp, const char *end, uint32_t *dev)
{
    const char *w, *p;
    size_t len = word(pp, end, &w);
    uint64_t maj, min;

    p = w;
    if (!len || !zc__parse_u64(&p, w + len, &maj))
        return false;
    if (p == w + len) {
        *dev = (uint32_t)maj;
        return maj <= UINT32_MAX;
    }
    if (*p++ != ':' || !zc__parse_u64(&p, w + len, &min) || p != w + len ||
        maj >= (1u << 12) || min >= (1u << 20))
        return false;
    *dev = (uint32_t)(maj << 20 | min);
    return true;
}

/* TIME: seconds, at most 9 decimals. */
static bool timestamp(const char **pp, const char *end, uint64_t *ns)
{
    const char *w, *p, *dot;
    size_t len = word(pp, end, &w);
    bool point;

    p = w;
    dot = memchr(w, '.', len);
    if (!len || (dot && (size_t)(w + len - dot - 1) > 9))
        return false;
    return zc__parse_time(&p, w + len, 1000000000u, ns, &point) &&
           p == w + len && (!point || dot + 1 < w + len);
}

static int text_begin(struct zc__tfile *f)
{
    const char *p, *end;
    uint64_t ps = 0;
    int rc = zc__tf_data_line(f, &p, &end);

    if (rc < 0)
        return rc;
    if (rc == 0) /* every stream the writer makes has its header */
        return zc__tf_fail_at(f, 0, "empty: an access stream begins with "
                                    "\"" ZCA_TEXT_MAGIC "\"");
    while (end > p && zc__is_space(end[-1]))
        end--;
    if (!is_word(p, (size_t)(end - p), ZCA_TEXT_MAGIC)) {
        const char *v = p, *w;
        size_t vlen = word(&v, end, &w);
        if (!is_word(w, vlen, ZCA_TEXT_WORD) || v == end)
            return zc__tf_fail_line(f, "expected \"" ZCA_TEXT_MAGIC "\"");
        /* the version as written, when it is a printable word */
        for (vlen = 0;
             v + vlen < end && vlen <= 32 && (unsigned char)v[vlen] > 0x20 &&
             (unsigned char)v[vlen] < 0x7f;
             vlen++)
            ;
        if (v + vlen != end || vlen > 32)
            return zc__tf_fail_line(
                f, "unsupported access-stream text "
                   "version (this library reads \"" ZCA_TEXT_MAGIC "\")");
        return zc__tf_fail_line(f,
                                "unsupported access-stream text version %.*s "
                                "(this library reads \"" ZCA_TEXT_MAGIC "\")",
                                (int)vlen, v);
    }
    for (;;) {
        const char *key, *why;
        size_t klen;
        rc = zc__tf_data_line(f, &p, &end);
        if (rc < 0)
            return rc;
        if (rc == 0)
            break;
        if (end - p < 4 || memcmp(p, "meta", 4) != 0 ||
            (end - p > 4 && !zc__is_space(p[4]))) {
            f->pos = (size_t)(p - (const char *)f->buf); /* put it back */
            f->line--;
            break;
        }
        p += 4;
        p = zc__skip_space(p, end);
        klen = word(&p, end, &key);
        if (!klen || memchr(key, '=', klen))
            return zc__tf_fail_line(f, "expected \"meta KEY VALUE\"");
        rc = zc__access_field(f, key, klen, p, (size_t)(end - p), &ps, &why);
        if (rc == -ZC_EFORMAT)
            return zc__tf_fail_line(f, "%s", why);
        if (rc)
            return rc;
    }
    if (!ps)
        return zc__tf_fail_line(f, "no \"meta page_size\" line");
    f->page_size = (size_t)ps;
    f->state = ZCA_S_RECORDS;
    return 0;
}

/* The rest of a record line after TIME and its kind: 1 and *req (an
 * access), 2 (a sample or a size), or an error. */
static int text_record(struct zc__tfile *f, const char *p, const char *end,
                       unsigned op, zc_request *req)
{
    uint64_t ino, index, count = 1, pages, bytes;
    uint32_t dev;
    const char *why;
    int rc;

    if (!device(&p, end, &dev))
        return zc__tf_fail_line(f, "bad DEV (MAJ:MIN or a decimal s_dev)");
    if (op == ZCA_RESIDENT) {
        if (!number(&p, end, &pages) || p != end)
            return zc__tf_fail_line(f, "expected \"TIME resident DEV "
                                       "PAGES\"");
        rc = zc__tf_resident(f, dev, pages);
        if (rc == 1)
            return zc__tf_fail_line(f,
                                    "resident samples of more than %d file "
                                    "systems",
                                    ZC__RESIDENT_MAX);
        return rc ? rc : 2;
    }
    if (op == ZCA_SIZE) {
        if (!number(&p, end, &ino) || !number(&p, end, &bytes) || p != end)
            return zc__tf_fail_line(f, "expected \"TIME size DEV INO "
                                       "BYTES\"");
        rc = zc__access_size(f, dev, ino, bytes, &why);
        if (rc == -ZC_EFORMAT)
            return zc__tf_fail_line(f, "%s", why);
        return rc ? rc : 2;
    }
    if (!number(&p, end, &ino) || !number(&p, end, &index) ||
        (p < end && !number(&p, end, &count)) || p != end)
        return zc__tf_fail_line(f, "expected \"TIME r|w|m|a DEV INO INDEX "
                                   "[COUNT]\"");
    why = zc__access_request(f, op, dev, ino, index, count, req);
    if (why)
        return zc__tf_fail_line(f, "%s", why);
    return 1;
}

static int text_next(struct zc__tfile *f, zc_request *req)
{
    for (;;) {
        const char *p, *end, *kind;
        uint64_t t;
        size_t klen;
        unsigned op;
        int rc = zc__tf_data_line(f, &p, &end);

        if (rc < 0)
            return rc;
        if (rc == 0) {
            if (f->state == ZCA_S_ENDED)
                return 0;
            return zc__tf_fail_line(f, "the stream ends without its \"end\" "
                                       "line (cut short?)");
        }
        if (f->state == ZCA_S_ENDED)
            return zc__tf_fail_line(f, "data after \"end\"");
        while (end > p && zc__is_space(end[-1]))
            end--;
        if (is_word(p, (size_t)(end - p), "end")) {
            f->state = ZCA_S_ENDED;
            continue;
        }
        if (!timestamp(&p, end, &t))
            return zc__tf_fail_line(f, "bad TIME (seconds, at most 9 "
                                       "decimals)");
        if (t < f->acc.clock)
            return zc__tf_fail_line(f, "time goes back");
        klen = word(&p, end, &kind);
        op = zc__access_op(kind, klen);
        if (!op)
            return zc__tf_fail_line(f,
                                    "unknown record \"%.*s\" (r, w, m, a, "
                                    "resident, size, end)",
                                    (int)(klen > 32 ? 32 : klen), kind);
        rc = text_record(f, p, end, op, req);
        if (rc < 0)
            return rc;
        f->acc.clock = t;
        f->acc.records++;
        if (rc == 1) {
            req->time_ns = t;
            return 1;
        }
    }
}

/* "zca-text VERSION", any version: begin() says if it is not ours. */
static bool text_sniff(const unsigned char *head, size_t len, bool at_eof)
{
    const char *line, *p, *w;
    size_t llen, wlen;

    if (!zc__sniff_first_line(head, len, at_eof, &line, &llen))
        return false;
    p = line;
    wlen = word(&p, line + llen, &w);
    return is_word(w, wlen, ZCA_TEXT_WORD) && p < line + llen;
}

const struct zc__trace_format zc__trace_access_text = {
    .name = "access-text",
    .doc = "access stream, text form (\"zca-text 1\")",
    .sniff = text_sniff,
    .begin = text_begin,
    .next = text_next,
};
