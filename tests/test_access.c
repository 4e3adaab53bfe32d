/*
 * test_access.c - access streams (.zca): the writer, the "access" and
 * "access-text" readers, and the zstd layer under every trace format.
 *
 * Random streams (with resident samples, file sizes, header fields, the
 * mapped and fault-around flags and values at the edges of their ranges)
 * are written in both forms and read back exactly, with
 * zc_trace_resident() checked after every request and every request
 * carrying its file's last recorded size.  Hand-made binary streams check each
 * format error and its offset; text errors name their line.  Every truncation
 * of a small stream fails, and every bit flip of a compressed one fails or
 * reads the same.  Other formats are read through zstd (compressed here with
 * the libzstd API): sniffed, forced, in concatenated frames, and with their
 * entry-size check applied to the decompressed bytes.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <lzo/lzo1x.h>
#include <zstd.h>

#include "zcache.h"
#include "zcache_sim.h"
#include "zt_util.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define PAGE 4096u

/* ------------------------------------------------------------- reading */

/* Everything a read gives: requests, and the resident sample of each
 * stream dev after each request. */
struct read {
    int open_rc, rc;
    char format[32];
    char msg[512];
    size_t n;
    zc_request *req;
    uint64_t *res; /* n * NDEV: pages + 1, or 0 if no sample */
};

#define NDEV 3
static const uint32_t devs[NDEV] = {8u << 20 | 17, 259u << 20 | 3, UINT32_MAX};

/* zc_trace_options.max_request of the reads below (0: the default, 1 GiB) */
static uint64_t max_request;

static void read_paths(const char **paths, size_t n, const char *format,
                       struct read *r)
{
    zc_trace_options opt = {.format = format, .max_request = max_request};
    zc_trace *t;
    zc_request q;
    size_t cap = 0;
    int rc;

    memset(r, 0, sizeof(*r));
    r->open_rc = zc_trace_open(paths, n, &opt, &t, r->msg, sizeof(r->msg));
    if (r->open_rc) {
        r->rc = r->open_rc;
        return;
    }
    snprintf(r->format, sizeof(r->format), "%s", zc_trace_format(t));
    while ((rc = zc_trace_next(t, &q)) == 1) {
        if (r->n == cap) {
            cap = cap ? 2 * cap : 64;
            r->req = realloc(r->req, cap * sizeof(*r->req));
            r->res = realloc(r->res, cap * NDEV * sizeof(*r->res));
            assert_true(r->req && r->res);
        }
        r->req[r->n] = q;
        for (int d = 0; d < NDEV; d++) {
            uint64_t pages = 0;
            int got = zc_trace_resident(t, devs[d], &pages);
            r->res[r->n * NDEV + d] = got ? pages + 1 : 0;
        }
        r->n++;
    }
    r->rc = rc;
    snprintf(r->msg, sizeof(r->msg), "%s", zc_trace_error(t));
    assert_int_equal(zc_trace_next(t, &q), rc); /* sticky */
    zc_trace_close(t);
}

static void read_path(const char *path, const char *format, struct read *r)
{
    read_paths(&path, 1, format, r);
}

static void read_free(struct read *r)
{
    free(r->req);
    free(r->res);
}

static void assert_fails(const struct read *r, const char *what)
{
    if (r->rc >= 0 || !strstr(r->msg, what))
        fail_msg("expected an error with \"%s\", got %d \"%s\"", what, r->rc,
                 r->msg);
    assert_int_equal(r->rc, -ZC_EFORMAT);
}

static void assert_same_requests(const struct read *a, const struct read *b)
{
    assert_int_equal(a->rc, 0);
    assert_int_equal(b->rc, 0);
    assert_int_equal(a->n, b->n);
    for (size_t i = 0; i < a->n; i++)
        assert_memory_equal(&a->req[i], &b->req[i], sizeof(zc_request));
}

/* ---------------------------------------------------- random streams */

/* A random stream: what was written, for comparison. */
struct stream {
    size_t n; /* requests */
    zc_request req[600];
    uint64_t res[600 * NDEV]; /* as struct read */
};

static uint64_t pick_time_step(zt_rng *g)
{
    switch (zt_rng_below(g, 4)) {
    case 0: return 0;
    case 1: return zt_rng_below(g, 1000);
    case 2: return zt_rng_next(g) >> 40;
    default: return zt_rng_below(g, 1000000000);
    }
}

/* The sizes a stream recorded, as the reader keeps them: the last of each
 * (dev, ino). */
struct sizes {
    size_t n;
    struct {
        uint32_t dev;
        uint64_t ino, bytes;
    } v[700];
};

static void sizes_set(struct sizes *z, uint32_t dev, uint64_t ino,
                      uint64_t bytes)
{
    size_t i;

    for (i = 0; i < z->n && (z->v[i].dev != dev || z->v[i].ino != ino); i++)
        ;
    if (i == z->n) {
        assert_true(z->n < ARRAY_LEN(z->v));
        z->n++;
    }
    z->v[i].dev = dev;
    z->v[i].ino = ino;
    z->v[i].bytes = bytes;
}

/* q as the reader hands it out: with its file's last size, if any. */
static void sizes_apply(const struct sizes *z, zc_request *q)
{
    q->flags &= ~ZC_REQ_SIZE;
    q->file_size = 0;
    for (size_t i = 0; i < z->n; i++)
        if (z->v[i].dev == q->dev && z->v[i].ino == q->ino) {
            q->flags |= ZC_REQ_SIZE;
            q->file_size = z->v[i].bytes;
        }
}

static uint64_t pick_ino(zt_rng *g)
{
    return zt_rng_below(g, 8) ? 1 + zt_rng_below(g, 50) : zt_rng_next(g) | 1;
}

static uint64_t pick_size(zt_rng *g)
{
    switch (zt_rng_below(g, 4)) {
    case 0: return zt_rng_below(g, 3) ? 0 : UINT64_MAX;
    case 1: return zt_rng_next(g);
    default: return zt_rng_below(g, 1 << 24);
    }
}

static void write_stream(const char *path, bool text, uint64_t seed,
                         struct stream *s)
{
    static struct sizes z;
    zc_access_writer_options o = {.text = text,
                                  .level = 3,
                                  .meta = "memory_limit=256M\n"
                                          "read_ahead_kb=128\n"
                                          "note=a value with = and blanks"};
    uint64_t cur[NDEV] = {0}, t = 0;
    zc_access_writer *w;
    char err[256];
    zt_rng g;

    zt_rng_seed(&g, seed);
    assert_int_equal(zc_access_writer_open(path, &o, &w, err, sizeof(err)), 0);
    s->n = 0;
    z.n = 0;
    while (s->n < ARRAY_LEN(s->req)) {
        uint64_t step = pick_time_step(&g);
        t = step > UINT64_MAX - t ? UINT64_MAX : t + step;
        if (s->n == 300)
            t = UINT64_MAX - 1000000; /* the end of time */
        if (zt_rng_below(&g, 5) == 0) {
            int d = (int)zt_rng_below(&g, NDEV - 1);
            uint64_t pages = zt_rng_below(&g, 2) ? zt_rng_below(&g, 100000)
                                                 : zt_rng_next(&g);
            assert_int_equal(zc_access_write_resident(w, t, devs[d], pages), 0);
            cur[d] = pages + 1;
            continue;
        }
        if (zt_rng_below(&g, 8) == 0) {
            uint32_t dev = devs[zt_rng_below(&g, NDEV)];
            uint64_t ino = pick_ino(&g), bytes = pick_size(&g);
            assert_int_equal(zc_access_write_size(w, t, dev, ino, bytes), 0);
            sizes_set(&z, dev, ino, bytes);
            continue;
        }
        zc_request *q = &s->req[s->n];
        uint64_t index, count;
        *q = (zc_request){.time_ns = t};
        q->dev = devs[zt_rng_below(&g, NDEV)];
        q->ino = pick_ino(&g);
        switch (zt_rng_below(&g, 4)) {
        case 0: /* the last pages a byte offset can name */
            count = 1 + zt_rng_below(&g, 4);
            index = (UINT64_MAX / PAGE) - count - zt_rng_below(&g, 2);
            break;
        default:
            index = zt_rng_below(&g, 1000000);
            count = 1 + zt_rng_below(&g, 64);
        }
        q->offset = index * PAGE;
        q->length = count * PAGE;
        q->write = zt_rng_below(&g, 3) == 0;
        if (!q->write && zt_rng_below(&g, 3) == 0)
            q->flags = zt_rng_below(&g, 2) ? ZC_REQ_MAPPED
                                           : ZC_REQ_MAPPED | ZC_REQ_AROUND;
        if (zt_rng_below(&g, 4) == 0) { /* a size the writer records */
            q->flags |= ZC_REQ_SIZE;
            q->file_size = pick_size(&g);
            sizes_set(&z, q->dev, q->ino, q->file_size);
        }
        assert_int_equal(zc_access_write(w, q), 0);
        sizes_apply(&z, q);
        memcpy(&s->res[s->n * NDEV], cur, sizeof(cur));
        s->n++;
    }
    assert_int_equal(zc_access_writer_close(w, err, sizeof(err)), 0);
}

static void check_stream(const char *path, const char *format,
                         const struct stream *s)
{
    struct read r;

    read_path(path, NULL, &r);
    if (r.rc)
        fail_msg("%s: %s", path, r.msg);
    assert_string_equal(r.format, format);
    assert_int_equal(r.n, s->n);
    for (size_t i = 0; i < s->n; i++) {
        assert_memory_equal(&r.req[i], &s->req[i], sizeof(zc_request));
        assert_memory_equal(&r.res[i * NDEV], &s->res[i * NDEV],
                            NDEV * sizeof(uint64_t));
    }
    read_free(&r);
}

static void test_random_streams_round_trip_in_both_forms(void **state)
{
    static struct stream s;
    const char *bin = zt_tmp_path("rt.zca"), *txt = zt_tmp_path("rt.zca.txt");

    (void)state;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        write_stream(bin, false, seed, &s);
        check_stream(bin, "access", &s);
        write_stream(txt, true, seed, &s);
        check_stream(txt, "access-text", &s);
    }
}

static void test_header_fields_are_the_trace_meta(void **state)
{
    static struct stream s;
    const char *paths[2] = {zt_tmp_path("meta.zca"), zt_tmp_path("meta.txt")};

    (void)state;
    write_stream(paths[0], false, 9, &s);
    write_stream(paths[1], true, 9, &s);
    for (int i = 0; i < 2; i++) {
        zc_trace *t;
        char err[256];
        assert_int_equal(
            zc_trace_open(&paths[i], 1, NULL, &t, err, sizeof(err)), 0);
        assert_string_equal(zc_trace_meta(t, "page_size"), "4096");
        assert_string_equal(zc_trace_meta(t, "memory_limit"), "256M");
        assert_string_equal(zc_trace_meta(t, "read_ahead_kb"), "128");
        assert_string_equal(zc_trace_meta(t, "note"),
                            "a value with = and blanks");
        assert_non_null(strstr(zc_trace_meta(t, "created_by"), "libzcache"));
        assert_null(zc_trace_meta(t, "pack"));
        zc_trace_close(t);
    }
}

/* ------------------------------------------------- hand-made binaries */

struct bytes {
    unsigned char b[4096];
    size_t n;
};

static void b_put(struct bytes *x, const void *p, size_t n)
{
    assert_true(x->n + n <= sizeof(x->b));
    memcpy(x->b + x->n, p, n);
    x->n += n;
}

static void b_varint(struct bytes *x, uint64_t v)
{
    unsigned char c;

    do {
        c = (unsigned char)(v & 0x7f);
        v >>= 7;
        if (v)
            c |= 0x80;
        b_put(x, &c, 1);
    } while (v);
}

static void b_op(struct bytes *x, unsigned op, int n, ...)
{
    unsigned char c = (unsigned char)op;
    va_list ap;

    b_put(x, &c, 1);
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        b_varint(x, va_arg(ap, uint64_t));
    va_end(ap);
}

/* The header of version 1.minor with these fields. */
static void b_header_v(struct bytes *x, const char *fields, unsigned minor)
{
    unsigned char fixed[16], sum[4];
    size_t n = strlen(fields);

    x->n = 0;
    memcpy(fixed, "\x89ZCA\r\n\x1a\n\x01\x00\x00\x00", 12);
    fixed[10] = (unsigned char)minor;
    zt_put_le32(fixed + 12, (uint32_t)n);
    b_put(x, fixed, 16);
    b_put(x, fields, n);
    zt_put_le32(sum, lzo_adler32(lzo_adler32(1, fixed, 16),
                                 (const unsigned char *)fields, n));
    b_put(x, sum, 4);
}

/* The header of this library's version, 1.1. */
static void b_header(struct bytes *x, const char *fields)
{
    b_header_v(x, fields, 1);
}

#define U(v) ((uint64_t)(v))
#define HDR "page_size=4096\n"
#define HLEN (16 + 15 + 4) /* the offset of the first record */

/* x as a stream: zstd-compressed, as the reader takes it. */
static void read_bytes(const struct bytes *x, struct read *r)
{
    size_t zlen;
    unsigned char *z = zt_zstd(x->b, x->n, &zlen);

    read_path(zt_write_tmp("hand.zca", z, zlen), "access", r);
    free(z);
}

static void expect_bytes_fail(const struct bytes *x, uint64_t offset,
                              const char *what)
{
    char where[64];
    struct read r;

    read_bytes(x, &r);
    assert_fails(&r, what);
    snprintf(where, sizeof(where),
             ": offset %llu: ", (unsigned long long)offset);
    if (!strstr(r.msg, where))
        fail_msg("expected \"%s\" in \"%s\"", where, r.msg);
    read_free(&r);
}

static void test_binary_format_errors_name_the_offset(void **state)
{
    struct bytes x;
    struct read r;

    (void)state;
    /* a good one */
    b_header(&x, HDR "pack=rec.zcp\n");
    b_op(&x, 0x01, 5, U(10), U(8 << 20 | 1), U(12), U(3), U(2));
    b_op(&x, 0x04, 3, U(5), U(8 << 20 | 1), U(777));
    b_op(&x, 0x03, 5, U(0), U(8 << 20 | 1), U(12), U(0), U(1));
    b_op(&x, 0x7E, 1, U(3));
    read_bytes(&x, &r);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.req[0].time_ns, 10);
    assert_int_equal(r.req[0].offset, 3 * PAGE);
    assert_int_equal(r.req[0].length, 2 * PAGE);
    assert_int_equal(r.req[0].ino, 12);
    assert_int_equal(r.req[0].flags, 0);
    assert_int_equal(r.req[1].time_ns, 15);
    assert_int_equal(r.req[1].flags, ZC_REQ_MAPPED);
    read_free(&r);

    b_header(&x, HDR);
    b_op(&x, 0x01, 5, U(1), U(1), U(0), U(0), U(1));
    b_op(&x, 0x7E, 1, U(1));
    expect_bytes_fail(&x, HLEN, "inode 0");

    b_header(&x, HDR);
    b_op(&x, 0x02, 5, U(1), U(1), U(5), U(0), U(0));
    expect_bytes_fail(&x, HLEN, "count 0");

    b_header(&x, HDR);
    b_op(&x, 0x02, 5, U(1), U(1), U(5), UINT64_MAX, U(2));
    expect_bytes_fail(&x, HLEN, "index + count");

    b_header(&x, HDR);
    b_op(&x, 0x02, 5, U(1), U(1), U(5), UINT64_MAX / PAGE, U(2));
    expect_bytes_fail(&x, HLEN, "past the largest byte offset");

    b_header(&x, HDR);
    b_op(&x, 0x01, 5, U(1), U(1) << 32, U(5), U(0), U(1));
    expect_bytes_fail(&x, HLEN, "dev");

    b_header(&x, HDR);
    b_op(&x, 0x04, 3, UINT64_MAX, U(1), U(5));
    b_op(&x, 0x01, 5, U(1), U(1), U(5), U(0), U(1));
    expect_bytes_fail(&x, HLEN + 13, "time past 2^64");

    b_header(&x, HDR);
    b_put(&x, "\x01\x01\x01\x01\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02",
          15);
    expect_bytes_fail(&x, HLEN, "number past 2^64");

    b_header(&x, HDR);
    b_op(&x, 0x01, 5, U(1), U(1), U(5), U(0), U(1));
    expect_bytes_fail(&x, HLEN, "without its end record");

    b_header(&x, HDR);
    expect_bytes_fail(&x, 0, "without its end record");

    b_header(&x, HDR);
    b_op(&x, 0x01, 5, U(1), U(1), U(5), U(0), U(1));
    b_op(&x, 0x7E, 1, U(2));
    expect_bytes_fail(&x, HLEN + 6, "counts 2 records, the stream has 1");

    b_header(&x, HDR);
    b_op(&x, 0x7E, 1, U(0));
    b_op(&x, 0x7E, 1, U(0));
    expect_bytes_fail(&x, HLEN + 2, "bytes after the end record");

    b_header(&x, HDR);
    b_op(&x, 0x07, 1, U(0));
    expect_bytes_fail(&x, HLEN, "unknown record type 0x07");

    /* sizes and fault-around */
    b_header(&x, HDR);
    b_op(&x, 0x05, 4, U(1), U(1), U(0), U(5));
    b_op(&x, 0x7E, 1, U(1));
    expect_bytes_fail(&x, HLEN, "inode 0");
    b_header(&x, HDR);
    b_op(&x, 0x01, 5, U(1), U(1), U(5), U(0), U(1));
    b_op(&x, 0x05, 4, U(1), U(1) << 32, U(5), U(5));
    b_op(&x, 0x7E, 1, U(2));
    expect_bytes_fail(&x, HLEN + 6, "dev is not below 2^32");
    b_header(&x, HDR);
    b_op(&x, 0x05, 4, UINT64_MAX, U(1), U(5), U(5));
    b_op(&x, 0x05, 4, U(1), U(1), U(5), U(5));
    expect_bytes_fail(&x, HLEN + 14, "time past 2^64");
    b_header(&x, HDR);
    b_put(&x, "\x05\x01\x01\x05", 4);
    expect_bytes_fail(&x, HLEN, "truncated record");
    b_header(&x, HDR);
    b_op(&x, 0x06, 5, U(1), U(1), U(5), U(0), U(0));
    expect_bytes_fail(&x, HLEN, "count 0");
    b_header(&x, HDR);
    b_op(&x, 0x06, 5, U(1), U(1), U(0), U(0), U(1));
    expect_bytes_fail(&x, HLEN, "inode 0");
    b_header(&x, HDR);
    b_op(&x, 0x05, 4, U(1), U(1), U(5), U(5));
    b_op(&x, 0x06, 5, U(1), U(1), U(5), U(0), U(1));
    b_op(&x, 0x7E, 1, U(1)); /* both count */
    expect_bytes_fail(&x, HLEN + 5 + 6, "counts 1 records, the stream has 2");

    /* a 1.0 stream reads (no sizes, no fault-around), and has neither */
    b_header_v(&x, HDR, 0);
    b_op(&x, 0x03, 5, U(1), U(1), U(5), U(0), U(1));
    b_op(&x, 0x7E, 1, U(1));
    read_bytes(&x, &r);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.req[0].flags, ZC_REQ_MAPPED);
    assert_int_equal(r.req[0].file_size, 0);
    read_free(&r);
    b_header_v(&x, HDR, 0);
    b_op(&x, 0x05, 4, U(1), U(1), U(5), U(5));
    b_op(&x, 0x7E, 1, U(1));
    expect_bytes_fail(&x, HLEN, "unknown record type 0x05 in a version 1.0");
    b_header_v(&x, HDR, 0);
    b_op(&x, 0x06, 5, U(1), U(1), U(5), U(0), U(1));
    b_op(&x, 0x7E, 1, U(1));
    expect_bytes_fail(&x, HLEN, "unknown record type 0x06 in a version 1.0");

    b_header(&x, HDR);
    b_put(&x, "\x01\x01\x01", 3);
    expect_bytes_fail(&x, HLEN, "truncated record");

    /* the header */
    static const char *const bad_ps[] = {"page_size=1000\n", "page_size=256\n",
                                         "page_size=131072\n",
                                         "page_size=4096x\n", "page_size=\n"};
    for (size_t i = 0; i < ARRAY_LEN(bad_ps); i++) {
        b_header(&x, bad_ps[i]);
        b_op(&x, 0x7E, 1, U(0));
        expect_bytes_fail(&x, 16, "page_size is not a power of two");
    }
    b_header(&x, "pack=x\n");
    b_op(&x, 0x7E, 1, U(0));
    expect_bytes_fail(&x, 16, "no page_size");
    b_header(&x, HDR HDR);
    expect_bytes_fail(&x, 16, "page_size given twice");
    b_header(&x, "page_size\n");
    expect_bytes_fail(&x, 16, "without key=value");
    b_header(&x, HDR);
    x.b[HLEN - 1] ^= 1;
    expect_bytes_fail(&x, 31, "checksum");
    b_header(&x, HDR);
    x.b[8] = 2;
    expect_bytes_fail(&x, 8, "version 2.1");
    b_header(&x, HDR);
    x.b[1] = 'X';
    read_bytes(&x, &r);
    assert_fails(&r, "bad magic");
    read_free(&r);
    /* sniffing refuses it too */
    read_path(zt_write_tmp("bad.zca", x.b, x.n), NULL, &r);
    assert_int_equal(r.rc, -ZC_EFORMAT);
    read_free(&r);

    /* a record's count: at most 2^20 pages (4 GiB: past the default bound
     * on one request, which test_readers checks, so raised here) */
    b_header(&x, HDR);
    b_op(&x, 0x01, 5, U(1), U(1), U(5), U(0), U(1) << 20);
    b_op(&x, 0x7E, 1, U(1));
    max_request = UINT64_MAX;
    read_bytes(&x, &r);
    max_request = 0;
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.req[0].length, (U(1) << 20) * PAGE);
    read_free(&r);
    b_header(&x, HDR);
    b_op(&x, 0x01, 5, U(1), U(1), U(5), U(7), (U(1) << 20) + 1);
    b_op(&x, 0x7E, 1, U(1));
    expect_bytes_fail(&x, HLEN, "count past the cap of 2^20 pages");
    b_header(&x, HDR);
    b_op(&x, 0x01, 5, U(1), U(1), U(5), U(0), U(1) << 40);
    b_op(&x, 0x7E, 1, U(1));
    expect_bytes_fail(&x, HLEN, "count past the cap");

    /* the bytes' last, (index + count) * page_size - 1, is at most
     * 2^64 - 1: the last page of the range is a page */
    b_header(&x, HDR);
    b_op(&x, 0x01, 5, U(1), U(1), U(5), (U(1) << 52) - 2, U(1));
    b_op(&x, 0x7E, 1, U(1));
    read_bytes(&x, &r);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.req[0].offset, UINT64_MAX - 2 * PAGE + 1);
    read_free(&r);
    b_header(&x, HDR);
    b_op(&x, 0x01, 5, U(1), U(1), U(5), (U(1) << 52) - 1, U(1));
    b_op(&x, 0x7E, 1, U(1));
    read_bytes(&x, &r);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.req[0].offset, UINT64_MAX - PAGE + 1);
    read_free(&r);
    b_header(&x, HDR);
    b_op(&x, 0x01, 5, U(1), U(1), U(5), (U(1) << 52) - 1, U(2));
    b_op(&x, 0x7E, 1, U(1));
    expect_bytes_fail(&x, HLEN, "past the largest byte offset");

    /* a newer minor version is refused, the reader's own is read */
    b_header(&x, HDR);
    b_op(&x, 0x7E, 1, U(0));
    x.b[10] = 2;
    expect_bytes_fail(&x, 10,
                      "written by a newer libzcache (version 1.2); this "
                      "library reads up to version 1.1");
    x.b[10] = 1;
    read_bytes(&x, &r);
    assert_int_equal(r.rc, 0);
    read_free(&r);

    /* the same bytes not compressed: nothing guards the records */
    b_header(&x, HDR);
    b_op(&x, 0x7E, 1, U(0));
    read_bytes(&x, &r);
    assert_int_equal(r.rc, 0);
    read_free(&r);
    read_path(zt_write_tmp("plain.zca", x.b, x.n), "access", &r);
    assert_fails(&r,
                 "plain.zca: offset 0: an access stream's binary form must be "
                 "zstd-compressed (its checksum guards the records)");
    read_free(&r);
    read_path(zt_write_tmp("plain.zca", x.b, x.n), NULL, &r);
    assert_fails(&r, "must be zstd-compressed");
    read_free(&r);

    /* an empty file has lost its header: the writer always writes one */
    read_path(zt_write_tmp("empty.zca", "", 0), "access", &r);
    assert_fails(&r, "empty.zca: offset 0: empty: an access stream begins "
                     "with its header");
    read_free(&r);
    read_path(zt_write_tmp("empty.txt", "", 0), "access-text", &r);
    assert_fails(&r, "empty.txt: offset 0: empty: an access stream begins");
    read_free(&r);
}

/* --------------------------------------- truncations and bit flips */

static void small_stream(const char *path, bool text)
{
    zc_access_writer_options o = {.text = text, .meta = "pack=x.zcp"};
    zc_access_writer *w;
    zc_request q = {.dev = 8 << 20 | 1, .ino = 99, .length = PAGE};

    assert_int_equal(zc_access_writer_open(path, &o, &w, NULL, 0), 0);
    for (int i = 0; i < 12; i++) {
        q.time_ns = 1000u * (uint64_t)i;
        q.offset = PAGE * (uint64_t)(i * 7 % 5);
        q.write = i % 4 == 3;
        q.flags = i % 4 == 1   ? ZC_REQ_MAPPED
                  : i % 4 == 2 ? ZC_REQ_MAPPED | ZC_REQ_AROUND
                               : 0;
        if (i % 6 == 4) {
            q.flags |= ZC_REQ_SIZE;
            q.file_size = PAGE * (uint64_t)(i + 1);
        }
        assert_int_equal(zc_access_write(w, &q), 0);
        if (i % 5 == 2)
            assert_int_equal(
                zc_access_write_resident(w, q.time_ns, q.dev, (uint64_t)i * 10),
                0);
    }
    assert_int_equal(zc_access_writer_close(w, NULL, 0), 0);
}

static void test_every_truncation_of_a_stream_fails(void **state)
{
    const char *path = zt_tmp_path("small.zca"), *cut = zt_tmp_path("cut.zca");
    unsigned char *z, *raw;
    size_t zlen, rawlen;
    struct read whole, r;

    (void)state;
    small_stream(path, false);
    z = zt_read_file(path, &zlen);
    read_path(path, NULL, &whole);
    if (whole.rc)
        fail_msg("%s", whole.msg);
    assert_int_equal(whole.n, 12);
    /* the compressed file, and the bytes inside it (each cut of those
     * compressed again, whole frames: the cut is in the records) */
    rawlen = ZSTD_getFrameContentSize(z, zlen);
    assert_true(rawlen < 4096);
    raw = malloc(rawlen);
    assert_int_equal(ZSTD_decompress(raw, rawlen, z, zlen), rawlen);
    for (int form = 0; form < 2; form++) {
        const unsigned char *b = form ? raw : z;
        size_t n = form ? rawlen : zlen;
        for (size_t k = 1; k < n; k++) {
            size_t clen;
            unsigned char *c = form ? zt_zstd(b, k, &clen) : NULL;
            zt_write_tmp("cut.zca", form ? c : b, form ? clen : k);
            free(c);
            read_path(cut, "access", &r);
            if (r.rc != -ZC_EFORMAT)
                fail_msg("a cut at %zu of %zu (%s) read %zu requests, %d", k, n,
                         form ? "raw" : "zstd", r.n, r.rc);
            read_free(&r);
        }
    }
    /* the text form: every cut at a line end fails too */
    small_stream(path, true);
    free(z);
    z = zt_read_file(path, &zlen);
    for (size_t k = 1; k < zlen; k++) {
        if (z[k - 1] != '\n')
            continue;
        zt_write_tmp("cut.zca", z, k);
        read_path(cut, "access-text", &r);
        assert_int_equal(r.rc, -ZC_EFORMAT);
        read_free(&r);
    }
    read_free(&whole);
    free(raw);
    free(z);
}

static void test_bit_flips_fail_or_read_the_same(void **state)
{
    const char *path = zt_tmp_path("flip.zca"),
               *bad = zt_tmp_path("flipped.zca");
    unsigned char *z;
    size_t zlen;
    struct read whole, r;
    size_t failed = 0, same = 0;

    (void)state;
    small_stream(path, false);
    z = zt_read_file(path, &zlen);
    read_path(path, NULL, &whole);
    for (size_t i = 0; i < zlen; i++)
        for (int bit = 0; bit < 8; bit++) {
            z[i] ^= (unsigned char)(1u << bit);
            zt_write_tmp("flipped.zca", z, zlen);
            read_path(bad, "access", &r);
            if (r.rc == 0) {
                assert_same_requests(&whole, &r);
                same++;
            } else {
                assert_int_equal(r.rc, -ZC_EFORMAT);
                failed++;
            }
            read_free(&r);
            z[i] ^= (unsigned char)(1u << bit);
        }
    /* only flips zstd ignores (e.g. the window size of a small frame) can
     * leave the stream readable */
    assert_true(same < failed / 20);
    read_free(&whole);
    free(z);
}

/* ----------------------------------------------------------- text errors */

static void test_text_errors_name_the_line(void **state)
{
    static const struct {
        const char *text;
        const char *what; /* ":LINE: what" */
    } cases[] = {
        {"zca-txt 1\n", ":1: expected \"zca-text 1\""},
        {"zca-text 1\nmeta pack x\nend\n", ":2: no \"meta page_size\""},
        {"zca-text 1\nmeta page_size 4000\nend\n", ":2: page_size is not"},
        {"zca-text 1\nmeta page_size 4096\nmeta page_size 4096\n",
         ":3: page_size given twice"},
        {"zca-text 1\nmeta page_size 4096\nmeta\n", ":3: expected \"meta KEY"},
        {"zca-text 1\nmeta page_size 4096\n1 r 8:1 5 0\n",
         ":3: the stream ends without its \"end\""},
        {"zca-text 1\nmeta page_size 4096\n# c\n\n1 r 8:1 0 0\nend\n",
         ":5: inode 0"},
        {"zca-text 1\nmeta page_size 4096\n1 r 8:1 5 0 0\nend\n",
         ":3: count 0"},
        {"zca-text 1\nmeta page_size 4096\n2 r 8:1 5 0\n1 w 8:1 5 0\nend\n",
         ":4: time goes back"},
        {"zca-text 1\nmeta page_size 4096\n1.0000000001 r 8:1 5 0\nend\n",
         ":3: bad TIME"},
        {"zca-text 1\nmeta page_size 4096\nx r 8:1 5 0\nend\n", ":3: bad TIME"},
        {"zca-text 1\nmeta page_size 4096\n1 x 8:1 5 0\nend\n",
         ":3: unknown record \"x\""},
        {"zca-text 1\nmeta page_size 4096\n1 r 4096:1 5 0\nend\n",
         ":3: bad DEV"},
        {"zca-text 1\nmeta page_size 4096\n1 r 1:1048576 5 0\nend\n",
         ":3: bad DEV"},
        {"zca-text 1\nmeta page_size 4096\n1 r 4294967296 5 0\nend\n",
         ":3: bad DEV"},
        {"zca-text 1\nmeta page_size 4096\n1 r 8:1 5 0 1 9\nend\n",
         ":3: expected \"TIME r|w|m|a DEV INO INDEX [COUNT]\""},
        {"zca-text 1\nmeta page_size 4096\n1 r 8:1 5 18446744073709551615 "
         "2\nend\n",
         ":3: index + count"},
        {"zca-text 1\nmeta page_size 4096\n1 resident 8:1\nend\n",
         ":3: expected \"TIME resident"},
        {"zca-text 1\nmeta page_size 4096\n1 size 8:1 5\nend\n",
         ":3: expected \"TIME size DEV INO BYTES\""},
        {"zca-text 1\nmeta page_size 4096\n1 size 8:1 5 1 2\nend\n",
         ":3: expected \"TIME size"},
        {"zca-text 1\nmeta page_size 4096\n1 size 8:1 5 "
         "18446744073709551616\nend\n",
         ":3: expected \"TIME size"},
        {"zca-text 1\nmeta page_size 4096\n1 r 8:1 5 0\n1 size 8:1 0 4096\n"
         "end\n",
         ":4: inode 0"},
        {"zca-text 1\nmeta page_size 4096\n1 size x 5 4096\nend\n",
         ":3: bad DEV"},
        {"zca-text 1\nmeta page_size 4096\n1 a 8:1 5\nend\n",
         ":3: expected \"TIME r|w|m|a"},
        {"zca-text 1\nmeta page_size 4096\n1 a 8:1 5 0 0\nend\n",
         ":3: count 0"},
        {"zca-text 1\nmeta page_size 4096\n1 s 8:1 5 0\nend\n",
         ":3: unknown record \"s\" (r, w, m, a, resident, size, end)"},
        {"zca-text 1\nmeta page_size 4096\nend\n1 r 8:1 5 0\n",
         ":4: data after \"end\""},
        {"zca-text 1\nmeta page_size 4096\n1 r 8:1 5 0 1048577\nend\n",
         ":3: count past the cap of 2^20 pages"},
        {"zca-text 2\nmeta page_size 4096\nend\n",
         ":1: unsupported access-stream text version 2"},
        {"zca-text 1.1 \nmeta page_size 4096\nend\n",
         ":1: unsupported access-stream text version 1.1"},
        {"zca-text\nmeta page_size 4096\nend\n", ":1: expected \"zca-text 1"},
    };
    struct read r;
    char what[128];

    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        const char *path =
            zt_write_tmp("bad.txt", cases[i].text, strlen(cases[i].text));
        read_path(path, "access-text", &r);
        snprintf(what, sizeof(what), "%s%s", path, cases[i].what);
        if (r.rc != -ZC_EFORMAT || strncmp(r.msg, what, strlen(what)) != 0)
            fail_msg("case %zu: expected \"%s...\", got %d \"%s\"", i, what,
                     r.rc, r.msg);
        read_free(&r);
    }
}

static void test_text_form_details(void **state)
{
    static const char text[] = "# an access stream by hand\n"
                               "\n"
                               "zca-text 1\r\n"
                               "meta page_size 512\n"
                               "meta memory_limit  1G \n"
                               "0.5 r 8:17 12 3\n"
                               "0.5 resident 8388625 40\n"
                               "  1 m 8388625 12 4 2  \n"
                               "1.000000001 w 0:0 1 0 1\n"
                               "end\n"
                               "# done\n";
    struct read r;

    (void)state;
    read_path(zt_write_tmp("v2.txt", "zca-text 2\n", 11), NULL, &r);
    assert_fails(&r, "v2.txt:1: unsupported access-stream text version 2");
    read_free(&r);
    read_path(zt_write_tmp("hand.txt", text, strlen(text)), NULL, &r);
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.format, "access-text");
    assert_int_equal(r.n, 3);
    assert_int_equal(r.req[0].time_ns, 500000000);
    assert_int_equal(r.req[0].dev, 8 << 20 | 17);
    assert_int_equal(r.req[0].offset, 3 * 512);
    assert_int_equal(r.req[0].length, 512);
    assert_int_equal(r.req[0].write, false);
    assert_int_equal(r.res[0 * NDEV + 0], 0); /* the sample came after */
    assert_int_equal(r.req[1].dev, 8 << 20 | 17);
    assert_int_equal(r.req[1].flags, ZC_REQ_MAPPED);
    assert_int_equal(r.req[1].offset, 4 * 512);
    assert_int_equal(r.req[1].length, 2 * 512);
    assert_int_equal(r.res[1 * NDEV + 0], 41);
    assert_int_equal(r.req[2].time_ns, 1000000001);
    assert_int_equal(r.req[2].write, true);
    assert_int_equal(r.req[2].dev, 0);
    read_free(&r);
}

/* ---------------------------------------------------- resident samples */

static void test_resident_is_the_last_sample_before_the_request(void **state)
{
    static const char text[] = "zca-text 1\n"
                               "meta page_size 4096\n"
                               "1 resident 8:17 10\n"
                               "1 resident 259:3 5\n"
                               "2 r 8:17 1 0\n"
                               "3 resident 8:17 11\n"
                               "3 resident 8:17 12\n"
                               "4 r 8:17 1 1\n"
                               "5 r 8:17 1 2\n"
                               "6 resident 259:3 6\n"
                               "end\n";
    const char *path = zt_write_tmp("res.txt", text, strlen(text));
    const char *bp = zt_tmp_path("plain.blkparse");
    zc_trace *t;
    zc_request q;
    uint64_t pages = 0;

    (void)state;
    assert_int_equal(zc_trace_open(&path, 1, NULL, &t, NULL, 0), 0);
    assert_int_equal(zc_trace_resident(t, devs[0], &pages), 0);
    assert_int_equal(zc_trace_next(t, &q), 1);
    assert_int_equal(zc_trace_resident(t, devs[0], &pages), 1);
    assert_int_equal(pages, 10);
    assert_int_equal(zc_trace_resident(t, devs[1], &pages), 1);
    assert_int_equal(pages, 5);
    assert_int_equal(zc_trace_resident(t, 7, &pages), 0);
    assert_int_equal(zc_trace_next(t, &q), 1);
    assert_int_equal(zc_trace_resident(t, devs[0], &pages), 1);
    assert_int_equal(pages, 12);
    assert_int_equal(zc_trace_next(t, &q), 1);
    assert_int_equal(zc_trace_resident(t, devs[1], &pages), 1);
    assert_int_equal(pages, 5);
    assert_int_equal(zc_trace_next(t, &q), 0); /* the end: all samples */
    assert_int_equal(zc_trace_resident(t, devs[1], &pages), 1);
    assert_int_equal(pages, 6);
    zc_trace_close(t);

    /* other formats have neither samples nor fields; their requests are
     * block requests */
    zt_write_tmp("plain.blkparse",
                 "  8,16   5  1  0.000001850 18615  Q   R 16 + 8 [java]\n", 52);
    assert_int_equal(zc_trace_open(&bp, 1, NULL, &t, NULL, 0), 0);
    assert_null(zc_trace_meta(t, "page_size"));
    memset(&q, 0xa5, sizeof(q));
    assert_int_equal(zc_trace_next(t, &q), 1);
    assert_int_equal(q.ino, 0);
    assert_int_equal(q.flags, 0);
    assert_int_equal(q.file_size, 0);
    assert_int_equal(zc_trace_resident(t, 8 << 20 | 16, &pages), 0);
    zc_trace_close(t);
}

/* ------------------------------------------------------------- the writer */

static void test_writer_rejects_bad_requests(void **state)
{
    static const struct {
        zc_request q;
        const char *what;
    } bad[] = {
        {{.time_ns = 5, .ino = 0, .length = PAGE}, "inode 0"},
        {{.time_ns = 5, .ino = 1, .offset = 1, .length = PAGE}, "whole pages"},
        {{.time_ns = 5, .ino = 1, .length = 100}, "whole pages"},
        {{.time_ns = 5, .ino = 1, .length = 0}, "whole pages"},
        {{.time_ns = 5,
          .ino = 1,
          .offset = UINT64_MAX / PAGE * PAGE,
          .length = 2 * PAGE},
         "below 2^64"},
        {{.time_ns = 5, .ino = 1, .length = (U(1) << 20) * PAGE + PAGE},
         "past the cap of 2^20 pages"},
        {{.time_ns = 5, .ino = 1, .length = PAGE, .flags = 8}, "flags"},
        {{.time_ns = 5, .ino = 1, .length = PAGE, .flags = ZC_REQ_AROUND},
         "fault-around (ZC_REQ_AROUND) without ZC_REQ_MAPPED"},
        {{.time_ns = 5,
          .ino = 1,
          .length = PAGE,
          .write = true,
          .flags = ZC_REQ_MAPPED | ZC_REQ_AROUND},
         "mapped write"},
        {{.time_ns = 4,
          .ino = 1,
          .length = PAGE,
          .flags = ZC_REQ_SIZE,
          .file_size = 9},
         "before the previous"},
        {{.time_ns = 5,
          .ino = 1,
          .length = PAGE,
          .write = true,
          .flags = ZC_REQ_MAPPED},
         "mapped write"},
        {{.time_ns = 4, .ino = 1, .length = PAGE}, "before the previous"},
    };
    const char *path = zt_tmp_path("w.zca");
    zc_access_writer_options o = {.text = true};
    zc_request ok = {.time_ns = 5, .ino = 1, .length = PAGE};
    zc_access_writer *w;
    char err[256];

    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        o.text = i % 2;
        assert_int_equal(zc_access_writer_open(path, &o, &w, err, sizeof(err)),
                         0);
        assert_int_equal(zc_access_write(w, &ok), 0);
        assert_int_equal(zc_access_write(w, &bad[i].q), -ZC_EINVAL);
        if (!strstr(zc_access_writer_error(w), bad[i].what))
            fail_msg("case %zu: \"%s\"", i, zc_access_writer_error(w));
        /* sticky: a good request after it fails the same */
        assert_int_equal(zc_access_write(w, &ok), -ZC_EINVAL);
        assert_int_equal(zc_access_write_resident(w, 9, 1, 1), -ZC_EINVAL);
        assert_int_equal(zc_access_write_size(w, 9, 1, 1, 1), -ZC_EINVAL);
        assert_int_equal(zc_access_writer_close(w, err, sizeof(err)),
                         -ZC_EINVAL);
        assert_non_null(strstr(err, bad[i].what));
    }
    /* a resident sample in the past */
    assert_int_equal(zc_access_writer_open(path, NULL, &w, NULL, 0), 0);
    assert_int_equal(zc_access_write_resident(w, 9, 1, 1), 0);
    assert_int_equal(zc_access_write_resident(w, 8, 1, 1), -ZC_EINVAL);
    assert_int_equal(zc_access_writer_close(w, NULL, 0), -ZC_EINVAL);
    /* sizes: of a file, not in the past */
    for (int text = 0; text < 2; text++) {
        o = (zc_access_writer_options){.text = text};
        assert_int_equal(zc_access_writer_open(path, &o, &w, NULL, 0), 0);
        assert_int_equal(zc_access_write_size(w, 9, 1, 0, 1), -ZC_EINVAL);
        assert_non_null(strstr(zc_access_writer_error(w), "inode 0"));
        assert_int_equal(zc_access_writer_close(w, NULL, 0), -ZC_EINVAL);
        assert_int_equal(zc_access_writer_open(path, &o, &w, NULL, 0), 0);
        assert_int_equal(zc_access_write_size(w, 9, 1, 2, 1), 0);
        assert_int_equal(zc_access_write_size(w, 8, 1, 2, 1), -ZC_EINVAL);
        assert_non_null(
            strstr(zc_access_writer_error(w), "before the previous"));
        assert_int_equal(zc_access_writer_close(w, NULL, 0), -ZC_EINVAL);
    }
    assert_int_equal(zc_access_write_size(NULL, 9, 1, 2, 1), -ZC_EINVAL);
    /* options and fields */
    o = (zc_access_writer_options){.page_size = 1000};
    assert_int_equal(zc_access_writer_open(path, &o, &w, err, sizeof(err)),
                     -ZC_EINVAL);
    assert_null(w);
    o = (zc_access_writer_options){.level = 99};
    assert_int_equal(zc_access_writer_open(path, &o, &w, err, sizeof(err)),
                     -ZC_EINVAL);
    static const char *const metas[] = {"page_size=512", "novalue",  "a key=1",
                                        "k= leading",    "ctl=\x01", "=v"};
    for (size_t i = 0; i < ARRAY_LEN(metas); i++) {
        o = (zc_access_writer_options){.meta = metas[i]};
        assert_int_equal(zc_access_writer_open(path, &o, &w, err, sizeof(err)),
                         -ZC_EINVAL);
        assert_non_null(strstr(err, "header field"));
    }
    assert_int_equal(zc_access_writer_open(NULL, NULL, &w, NULL, 0),
                     -ZC_EINVAL);
    assert_int_equal(zc_access_writer_open("/nonexistent/dir/x.zca", NULL, &w,
                                           err, sizeof(err)),
                     -ZC_EIO);
    assert_non_null(strstr(err, "cannot create"));
    assert_int_equal(zc_access_writer_close(NULL, NULL, 0), 0);
}

/* --------------------------------------------------- zstd under every format
 */

static const char blkparse_text[] =
    "  8,16   5        1     0.000000000 18615  A   R 1444645666 + 256 <- "
    "(8,17) 1444645632\n"
    "  8,16   5        2     0.000001850 18615  Q   R 1444645666 + 256 "
    "[java]\n"
    "  8,16   2       12     9.378419363 16766  Q   W 3428327242 + 8 "
    "[flush-8:16]\n"
    "  8,16   2       14     9.378420564 16766  Q   W 3428327250 + 8 "
    "[flush-8:16]\n";

static void test_zstd_compressed_traces_read_as_the_plain_ones(void **state)
{
    const size_t len = strlen(blkparse_text), half = 150;
    unsigned char *z1, *z2, cat[4096];
    size_t n1, n2;
    struct read plain, r;
    uint32_t pages[5] = {1, 2, 3, 4, 5};

    (void)state;
    read_path(zt_write_tmp("p.blkparse", blkparse_text, len), NULL, &plain);
    assert_int_equal(plain.rc, 0);
    assert_int_equal(plain.n, 3);

    /* one frame, sniffed and forced */
    z1 = zt_zstd(blkparse_text, len, &n1);
    read_path(zt_write_tmp("p.blkparse.zst", z1, n1), NULL, &r);
    if (r.rc)
        fail_msg("%s", r.msg);
    assert_string_equal(r.format, "blkparse");
    assert_same_requests(&plain, &r);
    read_free(&r);
    read_path(zt_tmp_path("p.blkparse.zst"), "blkparse", &r);
    assert_same_requests(&plain, &r);
    read_free(&r);
    free(z1);

    /* two frames, cut mid-line: one stream */
    z1 = zt_zstd(blkparse_text, half, &n1);
    z2 = zt_zstd(blkparse_text + half, len - half, &n2);
    memcpy(cat, z1, n1);
    memcpy(cat + n1, z2, n2);
    read_path(zt_write_tmp("two.zst", cat, n1 + n2), NULL, &r);
    assert_same_requests(&plain, &r);
    read_free(&r);

    /* a skippable frame first: still zstd */
    memcpy(cat,
           "\x5a\x2a\x4d\x18\x03\x00\x00\x00"
           "abc",
           11);
    memcpy(cat + 11, z1, n1);
    memcpy(cat + 11 + n1, z2, n2);
    read_path(zt_write_tmp("skip.zst", cat, 11 + n1 + n2), NULL, &r);
    if (r.rc)
        fail_msg("%s", r.msg);
    assert_same_requests(&plain, &r);
    read_free(&r);
    memcpy(cat, z1, n1);
    memcpy(cat + n1, z2, n2);

    /* compressed twice: said so, sniffed or forced */
    {
        size_t n3;
        unsigned char *z3 = zt_zstd(cat, n1 + n2, &n3);
        const char *twice = zt_write_tmp("twice.zst", z3, n3);
        read_path(twice, NULL, &r);
        assert_fails(&r, "twice.zst: offset 0: compressed twice");
        read_free(&r);
        read_path(twice, "blkparse", &r);
        assert_fails(&r, "twice.zst: offset 0: compressed twice");
        read_free(&r);
        free(z3);
    }

    /* a truncated frame, a corrupt one, garbage after a frame */
    read_path(zt_write_tmp("cut.zst", cat, n1 + n2 - 3), "blkparse", &r);
    assert_fails(&r, "truncated zstd frame");
    if (!strstr(r.msg, ": offset "))
        fail_msg("%s", r.msg);
    read_free(&r);
    memcpy(cat + n1 + n2, "junk", 4);
    zt_write_tmp("junk.zst", cat, n1 + n2 + 4);
    read_path(zt_tmp_path("junk.zst"), "blkparse", &r);
    assert_fails(&r, "corrupt zstd frame");
    read_free(&r);
    free(z1);
    free(z2);

    /* a binary block list: the entry check is of the decompressed size */
    z1 = zt_zstd(pages, sizeof(pages), &n1);
    read_path(zt_write_tmp("l.u32.zst", z1, n1), "blocklist-u32", &r);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.n, 5);
    assert_int_equal(r.req[4].offset, 5 * PAGE);
    read_free(&r);
    free(z1);
    z1 = zt_zstd(pages, sizeof(pages) - 1, &n1);
    read_path(zt_write_tmp("l2.u32.zst", z1, n1), "blocklist-u32", &r);
    assert_fails(&r, "decompressed size 19 bytes is not a multiple");
    read_free(&r);
    free(z1);

    /* a text access stream compressed by hand, and an empty frame */
    {
        static const char acc[] = "zca-text 1\nmeta page_size 4096\n"
                                  "1 r 8:1 5 0\nend\n";
        z1 = zt_zstd(acc, strlen(acc), &n1);
        read_path(zt_write_tmp("a.txt.zst", z1, n1), NULL, &r);
        assert_string_equal(r.format, "access-text");
        assert_int_equal(r.rc, 0);
        assert_int_equal(r.n, 1);
        read_free(&r);
        free(z1);
        z1 = zt_zstd("", 0, &n1);
        read_path(zt_write_tmp("e.zst", z1, n1), NULL, &r);
        assert_int_equal(r.open_rc, -ZC_EFORMAT); /* empty: no format */
        read_free(&r);
        read_path(zt_tmp_path("e.zst"), "vscsi", &r);
        assert_int_equal(r.rc, 0);
        assert_int_equal(r.n, 0);
        read_free(&r);
        free(z1);
    }
    read_free(&plain);
}

static void test_a_trace_of_several_streams_reads_them_in_turn(void **state)
{
    static struct stream s1, s2;
    const char *paths[2] = {zt_tmp_path("one.zca"), zt_tmp_path("two.zca")};
    struct read r;

    (void)state;
    write_stream(paths[0], false, 21, &s1);
    write_stream(paths[1], false, 22, &s2);
    read_paths(paths, 2, NULL, &r);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.n, s1.n + s2.n);
    /* each as read alone: the sizes of one stream stay in it */
    for (size_t i = 0; i < s1.n; i++)
        assert_memory_equal(&r.req[i], &s1.req[i], sizeof(zc_request));
    for (size_t i = 0; i < s2.n; i++)
        assert_memory_equal(&r.req[s1.n + i], &s2.req[i], sizeof(zc_request));
    read_free(&r);
}

/* ----------------------------------------------------------- file sizes */

/* The requests of the stream below, as the reader must hand them out. */
static const zc_request sized[] = {
    {.time_ns = 1000000000, .dev = 8 << 20 | 17, .ino = 5, .length = PAGE},
    {.time_ns = 2000000000,
     .dev = 8 << 20 | 17,
     .ino = 5,
     .length = PAGE,
     .flags = ZC_REQ_SIZE,
     .file_size = 10000},
    {.time_ns = 2000000000, .dev = 8 << 20 | 17, .ino = 6, .length = PAGE},
    {.time_ns = 2000000000, .dev = 8 << 20 | 18, .ino = 5, .length = PAGE},
    {.time_ns = 4000000000,
     .dev = 8 << 20 | 17,
     .ino = 5,
     .length = 2 * PAGE,
     .flags = ZC_REQ_MAPPED | ZC_REQ_AROUND | ZC_REQ_SIZE,
     .file_size = 0},
    {.time_ns = 5000000000,
     .dev = 8 << 20 | 17,
     .ino = 5,
     .offset = 3 * PAGE,
     .length = PAGE,
     .write = true,
     .flags = ZC_REQ_SIZE,
     .file_size = 16384},
    {.time_ns = 6000000000,
     .dev = 8 << 20 | 17,
     .ino = 5,
     .offset = 7 * PAGE,
     .length = PAGE,
     .flags = ZC_REQ_MAPPED | ZC_REQ_SIZE,
     .file_size = 16384},
    {.time_ns = 7000000000,
     .dev = 8 << 20 | 18,
     .ino = 5,
     .length = PAGE,
     .flags = ZC_REQ_SIZE,
     .file_size = UINT64_MAX},
};

static void expect_sized(const struct read *r)
{
    if (r->rc)
        fail_msg("%s", r->msg);
    assert_int_equal(r->n, ARRAY_LEN(sized));
    for (size_t i = 0; i < r->n; i++) {
        if (memcmp(&r->req[i], &sized[i], sizeof(zc_request)))
            fail_msg("request %zu: flags %u file_size %llu", i,
                     (unsigned)r->req[i].flags,
                     (unsigned long long)r->req[i].file_size);
    }
}

static void test_requests_carry_the_last_recorded_size(void **state)
{
    static const char text[] = "zca-text 1\n"
                               "meta page_size 4096\n"
                               "1 r 8:17 5 0\n"
                               "2 size 8:17 5 10000\n"
                               "2 r 8:17 5 0\n"
                               "2 r 8:17 6 0\n"
                               "2 r 8:18 5 0\n"
                               "3 size 8:17 5 0\n"
                               "4 a 8:17 5 0 2\n"
                               "5 size 8:17 5 16384\n"
                               "5 w 8:17 5 3\n"
                               "6 m 8:17 5 7\n"
                               "7 size 8388626 5 18446744073709551615\n"
                               "7 r 8:18 5 0\n"
                               "end\n";
    struct read r;

    (void)state;
    read_path(zt_write_tmp("sized.txt", text, strlen(text)), NULL, &r);
    expect_sized(&r);
    read_free(&r);

    /* written again, in both forms, from the requests alone: the writer
     * records a size where it changed, and they read back the same */
    for (int text_form = 0; text_form < 2; text_form++) {
        zc_access_writer_options o = {.text = text_form};
        const char *path = zt_tmp_path("sized.zca");
        zc_access_writer *w;
        char err[256];
        assert_int_equal(zc_access_writer_open(path, &o, &w, err, sizeof(err)),
                         0);
        for (size_t i = 0; i < ARRAY_LEN(sized); i++)
            assert_int_equal(zc_access_write(w, &sized[i]), 0);
        assert_int_equal(zc_access_writer_close(w, err, sizeof(err)), 0);
        read_path(path, NULL, &r);
        assert_string_equal(r.format, text_form ? "access-text" : "access");
        expect_sized(&r);
        read_free(&r);
        if (text_form) { /* one size record per change, at its request */
            size_t len;
            char *got = (char *)zt_read_file(path, &len);
            got = realloc(got, len + 1);
            got[len] = '\0';
            assert_non_null(strstr(got, "2.000000000 size 8:17 5 10000\n"
                                        "2.000000000 r 8:17 5 0 1\n"
                                        "2.000000000 r 8:17 6 0 1\n"));
            assert_non_null(strstr(got, "4.000000000 size 8:17 5 0\n"
                                        "4.000000000 a 8:17 5 0 2\n"
                                        "5.000000000 size 8:17 5 16384\n"
                                        "5.000000000 w 8:17 5 3 1\n"
                                        "6.000000000 m 8:17 5 7 1\n"));
            free(got);
        }
    }

    /* the same in the binary form, by hand: a size record is no request
     * and counts in the end record */
    {
        struct bytes x;
        b_header(&x, HDR);
        b_op(&x, 0x05, 4, U(1), U(1), U(5), U(3 * PAGE + 1));
        b_op(&x, 0x06, 5, U(1), U(1), U(5), U(1), U(3));
        b_op(&x, 0x05, 4, U(1), U(1), U(5), U(PAGE));
        b_op(&x, 0x01, 5, U(1), U(1), U(5), U(0), U(1));
        b_op(&x, 0x7E, 1, U(4));
        read_bytes(&x, &r);
        assert_int_equal(r.rc, 0);
        assert_int_equal(r.n, 2);
        assert_int_equal(r.req[0].time_ns, 2);
        assert_int_equal(r.req[0].flags,
                         ZC_REQ_MAPPED | ZC_REQ_AROUND | ZC_REQ_SIZE);
        assert_int_equal(r.req[0].file_size, 3 * PAGE + 1);
        assert_int_equal(r.req[0].offset, PAGE);
        assert_int_equal(r.req[0].length, 3 * PAGE);
        assert_int_equal(r.req[1].time_ns, 4);
        assert_int_equal(r.req[1].flags, ZC_REQ_SIZE);
        assert_int_equal(r.req[1].file_size, PAGE);
        read_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_streams_round_trip_in_both_forms),
        cmocka_unit_test(test_header_fields_are_the_trace_meta),
        cmocka_unit_test(test_binary_format_errors_name_the_offset),
        cmocka_unit_test(test_every_truncation_of_a_stream_fails),
        cmocka_unit_test(test_bit_flips_fail_or_read_the_same),
        cmocka_unit_test(test_text_errors_name_the_line),
        cmocka_unit_test(test_text_form_details),
        cmocka_unit_test(test_resident_is_the_last_sample_before_the_request),
        cmocka_unit_test(test_writer_rejects_bad_requests),
        cmocka_unit_test(test_zstd_compressed_traces_read_as_the_plain_ones),
        cmocka_unit_test(test_a_trace_of_several_streams_reads_them_in_turn),
        cmocka_unit_test(test_requests_carry_the_last_recorded_size),
    };

    return cmocka_run_group_tests(tests, zt_tmpdir_setup, zt_tmpdir_teardown);
}
