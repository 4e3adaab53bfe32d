/*
 * test_readers.c - the block-trace readers of zcache_sim.h.
 *
 * Two kinds of checks.  Real traces written by others (../shared/traces/ext,
 * described in its SOURCES.md) are read and split into 4 KiB pages as
 * DESIGN.md says; the counts must equal the reference numbers of
 * SOURCES.md exactly.  Those traces are not part of the project: when the
 * folder is missing the tests say why and are reported as skipped, never
 * as passed.  Then small inputs written here, one per behaviour, for every
 * format: what is a request and what is skipped, byte order, the per-CPU
 * merge, sniffing, and every kind of bad input with the exact start of its
 * message ("FILE:LINE: " or "FILE: offset N: ").  Bad input must never
 * crash: truncated and mutated copies of every sample are read to the end
 * (under the sanitizers in the CI build).
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
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "zcache.h"
#include "zcache_sim.h"
#include "zt_util.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define EXT_DIR ZC_SHARED_DIR "/traces/ext"
#define PAGE 4096u
#define MAX_REQS 64

static const char *write_text(const char *name, const char *text)
{
    return zt_write_tmp(name, text, strlen(text));
}

/* --------------------------------------------------------- reading helpers */

struct result {
    zc_request req[MAX_REQS];
    size_t n;
    int rc; /* of the last zc_trace_next: 0 or the error */
    char msg[512];
    char format[32];
};

/* Open (asserting success) and read to the end or the first error. */
static void read_paths(const char *const *paths, size_t npaths,
                       const char *format, size_t page_size, struct result *r)
{
    zc_trace_options opt = {.format = format, .page_size = page_size};
    char err[512] = "";
    zc_trace *t = NULL;
    zc_request req;
    int rc = zc_trace_open(paths, npaths, &opt, &t, err, sizeof(err));

    if (rc != 0)
        print_message("open %s failed: %d %s\n", paths[0], rc, err);
    assert_int_equal(rc, 0);
    assert_non_null(t);
    memset(r, 0, sizeof(*r));
    snprintf(r->format, sizeof(r->format), "%s", zc_trace_format(t));
    while ((rc = zc_trace_next(t, &req)) == 1) {
        assert_true(r->n < MAX_REQS);
        assert_true(req.length > 0);
        r->req[r->n++] = req;
    }
    r->rc = rc;
    snprintf(r->msg, sizeof(r->msg), "%s", zc_trace_error(t));
    if (rc == 0)
        assert_string_equal(r->msg, "");
    zc_trace_close(t);
}

static void read_one(const char *path, const char *format, struct result *r)
{
    read_paths(&path, 1, format, 0, r);
}

static void assert_request(const zc_request *q, uint64_t time_ns, uint32_t dev,
                           bool write, uint64_t offset, uint64_t length)
{
    assert_int_equal(q->time_ns, time_ns);
    assert_int_equal(q->dev, dev);
    assert_int_equal(q->write, write);
    assert_int_equal(q->offset, offset);
    assert_int_equal(q->length, length);
}

/* The message starts with PATH then rest, and is one line. */
static void assert_message(const char *msg, const char *path, const char *rest)
{
    char want[1024];

    snprintf(want, sizeof(want), "%s%s", path, rest);
    if (strncmp(msg, want, strlen(want)) != 0)
        print_message("message \"%s\"\nexpected to start with \"%s\"\n", msg,
                      want);
    assert_true(strncmp(msg, want, strlen(want)) == 0);
    assert_null(strchr(msg, '\n'));
}

/* Reading path as format fails with -ZC_EFORMAT after nreq requests, with
 * a message starting with path + rest. */
static void assert_read_fails(const char *path, const char *format, size_t nreq,
                              const char *rest)
{
    struct result r;

    read_one(path, format, &r);
    assert_int_equal(r.rc, -ZC_EFORMAT);
    assert_int_equal(r.n, nreq);
    assert_message(r.msg, path, rest);
}

/* Opening fails with rc and a message starting with path + rest. */
static void assert_open_fails(const char *const *paths, size_t npaths,
                              const char *format, int rc, const char *path,
                              const char *rest)
{
    zc_trace_options opt = {.format = format};
    char err[512] = "x";
    zc_trace *t = (zc_trace *)1;

    assert_int_equal(zc_trace_open(paths, npaths, &opt, &t, err, sizeof(err)),
                     rc);
    assert_null(t);
    assert_message(err, path, rest);
}

/* ------------------------------------------- real traces (../shared, opt.) */

/* (dev, page) set: open addressing, linear probing. */
struct page_set {
    uint64_t *keys; /* pairs: dev + 1 (0 = empty), page */
    size_t cap, n;
};

static void set_add(struct page_set *s, uint64_t dev, uint64_t page);

static void set_grow(struct page_set *s)
{
    struct page_set old = *s;

    s->cap = old.cap ? old.cap * 2 : 1024;
    s->keys = calloc(s->cap * 2, sizeof(uint64_t));
    assert_non_null(s->keys);
    s->n = 0;
    for (size_t i = 0; i < old.cap; i++)
        if (old.keys[2 * i])
            set_add(s, old.keys[2 * i] - 1, old.keys[2 * i + 1]);
    free(old.keys);
}

static void set_add(struct page_set *s, uint64_t dev, uint64_t page)
{
    if (2 * (s->n + 1) > s->cap)
        set_grow(s);
    size_t i = zt_mix64(page ^ zt_mix64(dev)) & (s->cap - 1);
    for (;; i = (i + 1) & (s->cap - 1)) {
        if (!s->keys[2 * i]) {
            s->keys[2 * i] = dev + 1;
            s->keys[2 * i + 1] = page;
            s->n++;
            return;
        }
        if (s->keys[2 * i] == dev + 1 && s->keys[2 * i + 1] == page)
            return;
    }
}

struct counts {
    uint64_t requests, reads, writes;
    uint64_t accesses, page_reads, page_writes, distinct;
    uint64_t t_min, t_max;
    uint32_t dev_min, dev_max;
    bool time_sorted;
    char format[32];
};

/* Read a whole trace (format NULL: sniffed) and count as SOURCES.md does. */
static void count_trace(const char *const *paths, size_t npaths,
                        const char *format, struct counts *c)
{
    zc_trace_options opt = {.format = format, .page_size = PAGE};
    struct page_set set = {0};
    char err[512] = "";
    zc_trace *t = NULL;
    zc_request q;
    uint64_t last = 0;
    int rc = zc_trace_open(paths, npaths, &opt, &t, err, sizeof(err));

    if (rc)
        print_message("%s: %s\n", paths[0], err);
    assert_int_equal(rc, 0);
    memset(c, 0, sizeof(*c));
    c->t_min = UINT64_MAX;
    c->dev_min = UINT32_MAX;
    c->time_sorted = true;
    snprintf(c->format, sizeof(c->format), "%s", zc_trace_format(t));
    while ((rc = zc_trace_next(t, &q)) == 1) {
        uint64_t first = q.offset / PAGE;
        uint64_t pages = (q.offset + q.length - 1) / PAGE - first + 1;

        c->requests++;
        *(q.write ? &c->writes : &c->reads) += 1;
        c->accesses += pages;
        *(q.write ? &c->page_writes : &c->page_reads) += pages;
        for (uint64_t p = first; p < first + pages; p++)
            set_add(&set, q.dev, p);
        c->time_sorted &= q.time_ns >= last;
        last = q.time_ns;
        c->t_min = q.time_ns < c->t_min ? q.time_ns : c->t_min;
        c->t_max = q.time_ns > c->t_max ? q.time_ns : c->t_max;
        c->dev_min = q.dev < c->dev_min ? q.dev : c->dev_min;
        c->dev_max = q.dev > c->dev_max ? q.dev : c->dev_max;
    }
    if (rc)
        print_message("%s: %s\n", paths[0], zc_trace_error(t));
    assert_int_equal(rc, 0);
    c->distinct = set.n;
    free(set.keys);
    zc_trace_close(t);
}

/* The path of an external trace, or false (after saying why) if the
 * shared folder is not here. */
static bool ext_trace(const char *name, char *path, size_t len)
{
    struct stat st;

    snprintf(path, len, "%s/%s", EXT_DIR, name);
    if (stat(path, &st) == 0)
        return true;
    /* test_readers --shared runs only when EXT_DIR is there (main()) */
    fail_msg("%s is missing from ../shared/traces/ext", path);
    return false;
}

/* The reference numbers of SOURCES.md for one trace. */
struct reference {
    const char *file, *format;
    uint64_t requests, reads, writes;
    uint64_t accesses, page_reads, page_writes, distinct;
};

static void check_reference(const struct reference *ref, struct counts *c)
{
    char path[1024];
    const char *p = path;

    if (!ext_trace(ref->file, path, sizeof(path))) {
        skip();
        return;
    }
    count_trace(&p, 1, NULL, c);
    print_message("%s: %s, %llu requests, %llu page accesses, D = %llu\n",
                  ref->file, c->format, (unsigned long long)c->requests,
                  (unsigned long long)c->accesses,
                  (unsigned long long)c->distinct);
    assert_string_equal(c->format, ref->format);
    assert_int_equal(c->requests, ref->requests);
    assert_int_equal(c->reads, ref->reads);
    assert_int_equal(c->writes, ref->writes);
    assert_int_equal(c->accesses, ref->accesses);
    assert_int_equal(c->page_reads, ref->page_reads);
    assert_int_equal(c->page_writes, ref->page_writes);
    assert_int_equal(c->distinct, ref->distinct);
}

static void test_cloudphysics_vscsi_matches_reference_counts(void **state)
{
    static const struct reference ref = {"cloudphysics_vscsi_sample.csv",
                                         "vscsi",
                                         113872,
                                         46974,
                                         66898,
                                         1141869,
                                         485700,
                                         656169,
                                         269210};
    struct counts c;

    (void)state;
    check_reference(&ref, &c);
    assert_int_equal(c.dev_min, 0);
    assert_int_equal(c.dev_max, 0);
    /* time in seconds: the sample spans 7,200 s */
    assert_int_equal(c.t_max - c.t_min, 7200ull * 1000000000ull);
}

static void test_hadoop_blkparse_matches_reference_counts(void **state)
{
    static const struct reference ref = {"hadoop_blkparse.txt",
                                         "blkparse",
                                         15524,
                                         80,
                                         15444,
                                         33404,
                                         2516,
                                         30888,
                                         17901};
    struct counts c;

    (void)state;
    check_reference(&ref, &c);
    assert_int_equal(c.dev_min, 8u << 20 | 16); /* 8,16 only */
    assert_int_equal(c.dev_max, 8u << 20 | 16);
    assert_true(c.t_max - c.t_min > 9370000000ull &&
                c.t_max - c.t_min < 9390000000ull); /* 9.38 s */
}

static void test_hadoop_blktrace_cpu0_matches_reference_counts(void **state)
{
    static const struct reference ref = {"hadoop_eternity8_sdb.blktrace.0",
                                         "blktrace",
                                         2790,
                                         2357,
                                         433,
                                         163216,
                                         161331,
                                         1885,
                                         163178};
    struct counts c;

    (void)state;
    check_reference(&ref, &c);
    assert_int_equal(c.dev_min, 8u << 20 | 16); /* sdb */
    assert_int_equal(c.dev_max, 8u << 20 | 16);
    assert_true(c.time_sorted);
}

static void test_hadoop_blktrace_base_name_opens_the_cpu_files(void **state)
{
    char path[1024];
    const char *p = path;
    struct counts c;

    (void)state;
    if (!ext_trace("hadoop_eternity8_sdb.blktrace.0", path, sizeof(path))) {
        skip();
        return;
    }
    path[strlen(path) - 2] = '\0'; /* NAME.blktrace */
    count_trace(&p, 1, NULL, &c);
    assert_string_equal(c.format, "blktrace");
    assert_int_equal(c.requests, 2790);
    assert_int_equal(c.accesses, 163216);
}

static void test_mqsim_disksim_matches_reference_counts(void **state)
{
    static const struct reference ref = {"mqsim_tpcc-small.trace",
                                         "disksim",
                                         6999,
                                         4381,
                                         2618,
                                         20669,
                                         12674,
                                         7995,
                                         20470};
    struct counts c;

    (void)state;
    check_reference(&ref, &c);
    assert_int_equal(c.dev_min, 0); /* 16 devices, 0-15 */
    assert_int_equal(c.dev_max, 15);
    /* integer times are MQSim's nanoseconds: a span of 0.136 s */
    assert_true(c.t_max - c.t_min > 130000000 && c.t_max - c.t_min < 140000000);
}

/* ------------------------------------------------------------- blkparse */

static const char blkparse_sample[] =
    "  8,16   5        1     0.000000000 18615  A   R 1444645666 + 256 <- "
    "(8,17) 1444645632\n"
    "  8,16   5        2     0.000001850 18615  Q   R 1444645666 + 256 "
    "[java]\n"
    "  8,16   5        3     0.000006438 18615  G   R 1444645666 + 256 "
    "[java]\n"
    "  8,16   5        0     0.000012990     0  m   N cfq18615S / "
    "insert_request\n"
    "\n"
    "  8,16   2        4     1.500000000 16766  Q  WS 3428327338 + 8 "
    "[flush-8:16]\n"
    "  8,16   2        5     1.600000000 16766  Q FWS [kworker/2:1]\n"
    "  8,16   2        6     1.700000000 16766  Q   D 100 + 8 [fstrim]\n"
    "  8,16   2        7     1.800000000 16766  Q   R 200 + 0 [x]\n"
    "  8,16   2        8     1.850000000 16766  Q   N 0 (12 00 00) [sg]\n"
    "  8,16   2        9     1.900000000 16766  UT   N [swapper] 1\n"
    "259,3    0       10     2.000000000   100  Q  RA 16 + 8 [cat proc]\r\n"
    "CPU0 (8,16):\n"
    " Reads Queued:           1,      128KiB\t Writes Queued:           1,"
    "        4KiB\n"
    "Total (8,16):\n"
    " Reads Queued:           2,      132KiB\n"
    "\n"
    "Throughput (R/W): 0KiB/s / 0KiB/s\n"
    "Events (8,16): 10 entries\n"
    "Skips: 0 forward (0 -   0.0%)\n";

static void test_blkparse_takes_queue_events_only(void **state)
{
    struct result r;

    (void)state;
    read_one(write_text("bp.txt", blkparse_sample), "blkparse", &r);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.n, 3);
    assert_request(&r.req[0], 1850, 8u << 20 | 16, false, 1444645666ull * 512,
                   256 * 512);
    assert_request(&r.req[1], 1500000000ull, 8u << 20 | 16, true,
                   3428327338ull * 512, 8 * 512);
    assert_request(&r.req[2], 2000000000ull, 259u << 20 | 3, false, 16 * 512,
                   8 * 512);
}

static void test_blkparse_malformed_queue_lines_name_file_and_line(void **state)
{
    static const struct {
        const char *line, *msg;
    } bad[] = {
        {"  8,16 5 2 0.000001850 18615  Q   R 1444645666 256 [java]\n",
         ":2: Q event: expected \"+ COUNT\""},
        {"  8,16 5 2 0.000001850 18615  Q   R abc + 8 [java]\n",
         ":2: Q event: expected \"SECTOR + COUNT\""},
        {"  8,16 5 2 0.000001850 18615  Q\n", ":2: Q event without RWBS"},
        {"  8,16 5 2 0.000001850 18615  Q   R 8 + 8x [java]\n",
         ":2: Q event: bad sector count"},
        {"  8,16 5 2 0.000001850 18615  Q   R 8 + [java]\n",
         ":2: Q event: bad sector count"},
        {"  8,16 5 2 0.00000x 18615  Q   R 8 + 8 [java]\n",
         ":2: malformed event line"},
        {"  8,16   5\n", ":2: malformed event line"},
        {"  8,16 5 2 0.1 18615 Q W 36028797018963968 + 8 [dd]\n",
         ":2: sector 36028797018963968 + 8 sectors is past the largest byte "
         "offset"},
        {"  8,16 5 2 0.1 18615 Q W 99999999999999999999 + 8 [dd]\n",
         ":2: Q event: expected \"SECTOR + COUNT\""},
        {"  8,16 5 2 99999999999999999999.1 18615 Q W 8 + 8 [dd]\n",
         ":2: malformed event line"},
        {"5000,1 5 2 0.1 18615 Q W 8 + 8 [dd]\n",
         ":2: device 5000,1 out of range"},
    };
    char text[512], name[32];

    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        snprintf(text, sizeof(text), "%s%s", "  8,16 5 1 0.0 1 Q R 8 + 8 [a]\n",
                 bad[i].line);
        snprintf(name, sizeof(name), "bp_bad%zu.txt", i);
        assert_read_fails(write_text(name, text), "blkparse", 1, bad[i].msg);
    }
}

/* ------------------------------------------------------------- blktrace */

enum {
    TC_READ = 1 << 0,
    TC_WRITE = 1 << 1,
    TC_QUEUE = 1 << 4,
    TC_ISSUE = 1 << 6,
    TC_NOTIFY = 1 << 10,
    TC_DISCARD = 1 << 13,
    TA_QUEUE = 1,
    TA_ISSUE = 7,
    TA_CGROUP = 1 << 8,
    TN_PROCESS = 0,
    TN_TIMESTAMP = 1,
};

#define ACT(ta, tc) ((uint32_t)(ta) | (uint32_t)(tc) << 16)
#define DEV_SDB (8u << 20 | 16)

struct rec {
    uint64_t time, sector;
    uint32_t bytes, action;
    uint16_t pdu_len;
    uint32_t magic; /* 0: the right one */
};

static void put(unsigned char *p, uint64_t v, int n, bool be)
{
    for (int i = 0; i < n; i++)
        p[be ? n - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

/* Append a record (header and pdu_len payload bytes) to buf at *len. */
static void add_rec(unsigned char *buf, size_t *len, const struct rec *r,
                    bool be)
{
    unsigned char *p = buf + *len;

    put(p, r->magic ? r->magic : 0x65617407u, 4, be);
    put(p + 4, *len, 4, be); /* sequence */
    put(p + 8, r->time, 8, be);
    put(p + 16, r->sector, 8, be);
    put(p + 24, r->bytes, 4, be);
    put(p + 28, r->action, 4, be);
    put(p + 32, 4242, 4, be); /* pid */
    put(p + 36, DEV_SDB, 4, be);
    put(p + 40, 3, 4, be); /* cpu */
    put(p + 44, 0, 2, be); /* error */
    put(p + 46, r->pdu_len, 2, be);
    memset(p + 48, 'p', r->pdu_len);
    *len += 48 + r->pdu_len;
}

static const struct rec blktrace_sample[] = {
    {100, 8, 4096, ACT(TA_QUEUE, TC_QUEUE | TC_READ), 0, 0},
    {101, 0, 0, ACT(TN_PROCESS, TC_NOTIFY), 16, 0},
    {102, 0, 0, ACT(TN_TIMESTAMP, TC_NOTIFY), 8, 0},
    {103, 9, 4096, ACT(TN_TIMESTAMP, TC_NOTIFY), 8, 0},
    {110, 8, 4096, ACT(TA_ISSUE, TC_ISSUE | TC_READ), 0, 0},
    {200, 1000, 8192, ACT(TA_QUEUE, TC_QUEUE | TC_WRITE), 5, 0},
    {300, 64, 4096, ACT(TA_QUEUE, TC_QUEUE | TC_WRITE | TC_DISCARD), 0, 0},
    {400, 0, 0, ACT(TA_QUEUE, TC_QUEUE | TC_WRITE), 0, 0},
    {500, 77, 512, ACT(TA_QUEUE | TA_CGROUP, TC_QUEUE | TC_READ), 8, 0},
};

static const char *write_blktrace(const char *name, const struct rec *recs,
                                  size_t n, bool be)
{
    unsigned char *buf = calloc(n, 48 + 65535);
    size_t len = 0;
    const char *path;

    assert_non_null(buf);
    for (size_t i = 0; i < n; i++)
        add_rec(buf, &len, &recs[i], be);
    path = zt_write_tmp(name, buf, len);
    free(buf);
    return path;
}

static void check_blktrace_sample(const struct result *r)
{
    assert_int_equal(r->rc, 0);
    assert_int_equal(r->n, 3);
    assert_request(&r->req[0], 100, DEV_SDB, false, 8 * 512, 4096);
    assert_request(&r->req[1], 200, DEV_SDB, true, 1000 * 512, 8192);
    assert_request(&r->req[2], 500, DEV_SDB, false, 77 * 512, 512);
}

static void
test_blktrace_takes_queue_records_not_notify_or_discard(void **state)
{
    struct result r;

    (void)state;
    read_one(write_blktrace("le.blktrace.0", blktrace_sample,
                            ARRAY_LEN(blktrace_sample), false),
             "blktrace", &r);
    check_blktrace_sample(&r);
}

static void test_blktrace_big_endian_reads_the_same(void **state)
{
    struct result r;

    (void)state;
    read_one(write_blktrace("be.blktrace.0", blktrace_sample,
                            ARRAY_LEN(blktrace_sample), true),
             NULL, &r);
    assert_string_equal(r.format, "blktrace");
    check_blktrace_sample(&r);
}

/* Queue record of a read at time t, sector s. */
static struct rec qrec(uint64_t t, uint64_t s)
{
    return (struct rec){t, s, 512, ACT(TA_QUEUE, TC_QUEUE | TC_READ), 0, 0};
}

static void check_merged(const struct result *r)
{
    /* (time, sector): equal times in file order */
    static const uint64_t want[][2] = {{10, 1}, {20, 2}, {30, 1},
                                       {30, 2}, {40, 2}, {50, 1}};

    assert_int_equal(r->rc, 0);
    assert_int_equal(r->n, ARRAY_LEN(want));
    for (size_t i = 0; i < ARRAY_LEN(want); i++) {
        assert_int_equal(r->req[i].time_ns, want[i][0]);
        assert_int_equal(r->req[i].offset, want[i][1] * 512);
    }
}

static void test_blktrace_per_cpu_files_merge_by_time(void **state)
{
    const struct rec cpu0[] = {qrec(10, 1), qrec(30, 1), qrec(50, 1)};
    const struct rec cpu1[] = {
        qrec(20, 2),
        {25, 0, 0, ACT(TN_PROCESS, TC_NOTIFY), 16, 0},
        qrec(30, 2),
        qrec(40, 2),
    };
    const char *paths[3];
    struct result r;

    (void)state;
    paths[0] = write_blktrace("cap.blktrace.0", cpu0, ARRAY_LEN(cpu0), false);
    paths[1] = write_blktrace("cap.blktrace.1", cpu1, ARRAY_LEN(cpu1), true);
    paths[2] = zt_write_tmp("cap.blktrace.2", "", 0); /* an idle CPU */
    read_paths(paths, 3, "blktrace", 0, &r);
    check_merged(&r);

    /* the base name finds .0 .. .2; auto sniffs it */
    const char *base = zt_tmp_path("cap.blktrace");
    read_paths(&base, 1, NULL, 0, &r);
    assert_string_equal(r.format, "blktrace");
    check_merged(&r);
}

static void test_blktrace_merge_of_many_large_files_stays_in_order(void **state)
{
    enum { FILES = 3, RECS = 12000 };
    static const char *const names[FILES] = {"big.blktrace.0", "big.blktrace.1",
                                             "big.blktrace.2"};
    const char *paths[FILES];
    zt_rng rng;
    zc_trace *t;
    zc_request q;
    uint64_t last = 0, n = 0, sectors = 0, want_sectors = 0;
    int rc;

    (void)state;
    zt_rng_seed(&rng, 7);
    for (int f = 0; f < FILES; f++) {
        unsigned char *buf = malloc((size_t)RECS * (48 + 300));
        size_t len = 0;
        uint64_t time = 0;
        assert_non_null(buf);
        for (int i = 0; i < RECS; i++) {
            struct rec r = qrec(time += zt_rng_below(&rng, 100), i);
            r.pdu_len = (uint16_t)zt_rng_below(&rng, 300);
            if (i % 5 == 4)
                r.action = ACT(TN_PROCESS, TC_NOTIFY);
            else
                want_sectors += (uint64_t)i;
            add_rec(buf, &len, &r, f == 1);
        }
        paths[f] = zt_write_tmp(names[f], buf, len);
        free(buf);
    }
    assert_int_equal(zc_trace_open(paths, FILES, NULL, &t, NULL, 0), 0);
    while ((rc = zc_trace_next(t, &q)) == 1) {
        assert_true(q.time_ns >= last);
        last = q.time_ns;
        sectors += q.offset / 512;
        n++;
    }
    assert_int_equal(rc, 0);
    assert_int_equal(n, FILES * RECS * 4 / 5);
    assert_int_equal(sectors, want_sectors);
    zc_trace_close(t);
}

static void test_blktrace_bad_records_name_the_byte_offset(void **state)
{
    unsigned char buf[4 * (48 + 200)];
    size_t len;
    struct rec r = qrec(1, 8);
    const char *p;

    (void)state;
    /* a record, then a header cut short */
    len = 0;
    add_rec(buf, &len, &r, false);
    add_rec(buf, &len, &r, false);
    p = zt_write_tmp("trunc.bin", buf, len - 28);
    assert_read_fails(p, "blktrace", 1,
                      ": offset 48: truncated record: 20 of 48 header bytes");

    /* a bad magic in the second record */
    len = 0;
    add_rec(buf, &len, &r, false);
    r.magic = 0x12345678;
    add_rec(buf, &len, &r, false);
    r.magic = 0;
    p = zt_write_tmp("magic.bin", buf, len);
    assert_read_fails(p, "blktrace", 1, ": offset 48: bad magic 0x12345678");

    /* a version blktrace never wrote */
    len = 0;
    r.magic = 0x65617406;
    add_rec(buf, &len, &r, true);
    r.magic = 0;
    p = zt_write_tmp("version.bin", buf, len);
    assert_read_fails(p, "blktrace", 0, ": offset 0: blktrace version 6");

    /* a payload running past the end */
    len = 0;
    add_rec(buf, &len, &r, false);
    r.pdu_len = 100;
    add_rec(buf, &len, &r, false);
    r.pdu_len = 0;
    p = zt_write_tmp("pdu.bin", buf, len - 90);
    assert_read_fails(p, "blktrace", 1,
                      ": offset 48: payload of 100 bytes runs past the end");

    /* a sector whose byte offset passes 2^64 */
    len = 0;
    r.sector = 1ull << 56;
    add_rec(buf, &len, &r, false);
    r.sector = 8;
    p = zt_write_tmp("sector.bin", buf, len);
    assert_read_fails(p, "blktrace", 0,
                      ": offset 0: sector 72057594037927936 + 512 bytes is "
                      "past the largest byte offset");
}

static void test_blktrace_error_in_one_cpu_file_stops_the_merge(void **state)
{
    const struct rec good[] = {qrec(10, 1), qrec(30, 1)};
    unsigned char buf[2 * 48];
    size_t len = 0;
    struct rec r = qrec(20, 2);
    const char *paths[2];
    struct result res;

    (void)state;
    paths[0] = write_blktrace("stop.blktrace.0", good, 2, false);
    add_rec(buf, &len, &r, false);
    add_rec(buf, &len, &r, false);
    paths[1] = zt_write_tmp("stop.blktrace.1", buf, len - 1);
    read_paths(paths, 2, NULL, 0, &res);
    assert_int_equal(res.rc, -ZC_EFORMAT);
    assert_int_equal(res.n, 2); /* times 10 and 20, then the cut record */
    assert_message(res.msg, paths[1], ": offset 48: truncated record");
}

/* -------------------------------------------------------------- disksim */

static void test_disksim_reads_times_devices_and_types(void **state)
{
    struct result r;

    (void)state;
    read_one(write_text("ds.trace", "# DiskSim trace\n"
                                    "0.000000 0 100 8 1\n"
                                    "1.5 3 200 16 0\n"
                                    "\n"
                                    "938513000 4 264719034 16 0\n"
                                    "12 2 0 8 3\n"
                                    "13 2 8 0 1\n"
                                    "  14\t1\t16\t8\t2 \r\n"
                                    "0.0000015 4294967295 1 1 1"),
             NULL, &r);
    assert_string_equal(r.format, "disksim");
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.n, 6);
    assert_request(&r.req[0], 0, 0, false, 100 * 512, 8 * 512);
    assert_request(&r.req[1], 1500000, 3, true, 200 * 512, 16 * 512);
    assert_request(&r.req[2], 938513000, 4, true, 264719034ull * 512, 16 * 512);
    assert_request(&r.req[3], 12, 2, false, 0, 8 * 512); /* type bit 0 */
    assert_request(&r.req[4], 14, 1, true, 16 * 512, 8 * 512);
    assert_request(&r.req[5], 1, UINT32_MAX, false, 512, 512);
}

static void test_disksim_malformed_lines_name_file_and_line(void **state)
{
    static const struct {
        const char *line, *msg;
    } bad[] = {
        {"0.0 0 100 8\n", ":2: expected 5 fields"},
        {"0.0 0 100 8 1 7\n", ":2: expected 5 fields"},
        {"a 0 1 1 1\n", ":2: bad arrival time"},
        {"1x 0 1 1 1\n", ":2: bad arrival time"},
        {"-1 0 1 1 1\n", ":2: bad arrival time"},
        {"1 0 x 8 1\n", ":2: bad lba"},
        {"1 0 1 8 r\n", ":2: bad type"},
        {"1 0 1 8 1r\n", ":2: bad type"},
        {"1 0 99999999999999999999 8 1\n", ":2: bad lba"},
        {"1 4294967296 1 8 1\n", ":2: device 4294967296 out of range"},
        {"1 0 18446744073709551615 8 1\n",
         ":2: lba 18446744073709551615 + 8 sectors is past the largest"},
        {"1 0 0 36028797018963968 1\n", ":2: lba 0 + 36028797018963968"},
    };
    char text[256], name[32];

    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        snprintf(text, sizeof(text), "0.5 0 8 8 1\n%s", bad[i].line);
        snprintf(name, sizeof(name), "ds_bad%zu.trace", i);
        assert_read_fails(write_text(name, text), "disksim", 1, bad[i].msg);
    }
}

static void test_disksim_lines_across_buffer_refills(void **state)
{
    enum { LINES = 120000 }; /* several MiB: many refills of the buffer */
    FILE *f;
    const char *path = zt_tmp_path("ds_big.trace");
    zc_trace *t;
    zc_request q;
    uint64_t n = 0, sum = 0, want = 0;
    int rc;

    (void)state;
    f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < LINES; i++) {
        /* lines of varying length, so they straddle the refills */
        fprintf(f, "%d.%03d %d %d %d %d%*s\n", i, i % 1000, i % 7, i * 3,
                1 + i % 64, i & 1, i % 37, "");
        want += (uint64_t)(i * 3) * 512;
    }
    assert_int_equal(fclose(f), 0);
    assert_int_equal(zc_trace_open(&path, 1, NULL, &t, NULL, 0), 0);
    while ((rc = zc_trace_next(t, &q)) == 1) {
        assert_int_equal(q.length, (uint64_t)(1 + n % 64) * 512);
        assert_int_equal(q.dev, n % 7);
        sum += q.offset;
        n++;
    }
    assert_int_equal(rc, 0);
    assert_int_equal(n, LINES);
    assert_int_equal(sum, want);
    zc_trace_close(t);
}

/* ---------------------------------------------------------------- vscsi */

static void test_vscsi_reads_opcodes_sizes_and_sectors(void **state)
{
    struct result r;

    (void)state;
    read_one(write_text("vs.csv", "Version,time,op,size,lbn\n"
                                  "1,5633898,2a,512,42932745\n"
                                  "2,5633898.25,0x28,4096,8\n"
                                  "1, 10 , 88 , 8192 , 16 \n"
                                  "\n"
                                  "1,11,8A,1024,0\r\n"
                                  "1,12,35,0,0\n"
                                  "1,13,28,0,5\n"
                                  "1,14,0X2A,1,1"),
             NULL, &r);
    assert_string_equal(r.format, "vscsi");
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.n, 5);
    assert_request(&r.req[0], 5633898ull * 1000000000, 0, true,
                   42932745ull * 512, 512);
    assert_request(&r.req[1], 5633898250000000ull, 0, false, 8 * 512, 4096);
    assert_request(&r.req[2], 10ull * 1000000000, 0, false, 16 * 512, 8192);
    assert_request(&r.req[3], 11ull * 1000000000, 0, true, 0, 1024);
    assert_request(&r.req[4], 14ull * 1000000000, 0, true, 512, 1);
}

static void test_vscsi_malformed_lines_name_file_and_line(void **state)
{
    static const struct {
        const char *line, *msg;
    } bad[] = {
        {"1,2,zz,512,1\n", ":2: bad op field"},
        {"1,2,28,512\n", ":2: bad lbn field"},
        {"1,2,28,512,1,9\n", ":2: expected 5 fields"},
        {"version,time,op,size,lbn\n", ":2: bad version field"},
        {"1,x,28,512,1\n", ":2: bad time field"},
        {"1,2,28,-5,1\n", ":2: bad size field"},
        {"1,2,28,512,18446744073709551615\n",
         ":2: lbn 18446744073709551615 + 512 bytes is past the largest"},
        {"1,2,28,512,1 2\n", ":2: expected 5 fields"},
    };
    char text[256], name[32];

    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        snprintf(text, sizeof(text), "1,1,28,512,1\n%s", bad[i].line);
        snprintf(name, sizeof(name), "vs_bad%zu.csv", i);
        assert_read_fails(write_text(name, text), "vscsi", 1, bad[i].msg);
    }
}

/* ----------------------------------------------------------- block lists */

static void test_blocklist_text_reads_one_page_per_line(void **state)
{
    const char *p = write_text("bl.txt", "0\n5\n\n# comment\n 7 \r\n");
    struct result r;

    (void)state;
    read_one(p, NULL, &r);
    assert_string_equal(r.format, "blocklist-text");
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.n, 3);
    assert_request(&r.req[0], 0, 0, false, 0, 4096);
    assert_request(&r.req[1], 0, 0, false, 5 * 4096, 4096);
    assert_request(&r.req[2], 0, 0, false, 7 * 4096, 4096);

    read_paths(&p, 1, "blocklist-text", 8192, &r);
    assert_int_equal(r.n, 3);
    assert_request(&r.req[2], 0, 0, false, 7 * 8192, 8192);

    assert_read_fails(write_text("bl_bad1.txt", "1\n5 6\n"), "blocklist-text",
                      1, ":2: expected one page number");
    assert_read_fails(write_text("bl_bad2.txt", "1\n-5\n"), "blocklist-text", 1,
                      ":2: expected one page number");
    assert_read_fails(write_text("bl_bad3.txt", "1\n4503599627370496\n"),
                      "blocklist-text", 1,
                      ":2: page 4503599627370496 is past the largest byte "
                      "offset");
}

static void test_blocklist_binary_little_endian_pages(void **state)
{
    static const unsigned char u32[] = {5,    0,    0, 0, 0xff, 0xff,
                                        0xff, 0xff, 1, 2, 3,    4};
    static const unsigned char u64[] = {9, 0, 0, 0, 0, 0, 0, 0,
                                        0, 0, 0, 0, 0, 0, 0, 0x80};
    struct result r;
    const char *p;

    (void)state;
    read_one(zt_write_tmp("bl.u32", u32, sizeof(u32)), "blocklist-u32", &r);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.n, 3);
    assert_request(&r.req[0], 0, 0, false, 5 * 4096, 4096);
    assert_request(&r.req[1], 0, 0, false, 0xffffffffull * 4096, 4096);
    assert_request(&r.req[2], 0, 0, false, 0x04030201ull * 4096, 4096);

    p = zt_write_tmp("bl.u64", u64, sizeof(u64));
    assert_read_fails(p, "blocklist-u64", 1,
                      ": offset 8: page 9223372036854775808 is past the "
                      "largest byte offset");

    p = zt_write_tmp("bl7.u32", u32, 7);
    assert_open_fails(&p, 1, "blocklist-u32", -ZC_EFORMAT, p,
                      ": size 7 bytes is not a multiple of the 4-byte "
                      "blocklist-u32 entry");
    p = zt_write_tmp("bl12.u64", u32, 12);
    assert_open_fails(&p, 1, "blocklist-u64", -ZC_EFORMAT, p,
                      ": size 12 bytes is not a multiple of the 8-byte "
                      "blocklist-u64 entry");
}

/* -------------------------------------------------- files, sniffing, names */

static void
test_empty_file_is_an_empty_trace_when_a_headerless_format_is_forced(
    void **state)
{
    const char *p = zt_write_tmp("empty", "", 0);
    struct result r;

    (void)state;
    for (size_t i = 0; zc_trace_format_name(i); i++) {
        const char *name = zc_trace_format_name(i);
        if (!strncmp(name, "access", 6)) {
            /* a format whose every file has a header: it was lost */
            assert_open_fails(&p, 1, name, -ZC_EFORMAT, p,
                              ": offset 0: empty: an access stream begins "
                              "with");
            continue;
        }
        read_one(p, name, &r);
        assert_int_equal(r.rc, 0);
        assert_int_equal(r.n, 0);
        assert_string_equal(r.format, name);
    }
    /* blank and comment lines only: no requests either */
    p = write_text("blank.txt", "\n\n# nothing\n");
    read_one(p, "disksim", &r);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.n, 0);
}

static void test_empty_file_cannot_be_sniffed(void **state)
{
    const char *p = zt_write_tmp("empty2", "", 0);

    (void)state;
    assert_open_fails(&p, 1, NULL, -ZC_EFORMAT, p,
                      ": empty file, its format cannot be told (formats: ");
}

static void test_directory_or_missing_file_is_an_io_error(void **state)
{
    const char *dir = zt_tmpdir(), *missing = zt_tmp_path("no-such-file");
    const char *two[2];

    (void)state;
    assert_open_fails(&dir, 1, NULL, -ZC_EIO, dir,
                      ": is a directory, not a trace file");
    assert_open_fails(&dir, 1, "vscsi", -ZC_EIO, dir, ": is a directory");
    assert_open_fails(&missing, 1, "disksim", -ZC_EIO, missing,
                      ": cannot open: ");
    /* every file is checked at open, not only the first */
    two[0] = write_text("ok.trace", "1 0 1 1 1\n");
    two[1] = dir;
    assert_open_fails(two, 2, NULL, -ZC_EIO, dir, ": is a directory");
    two[1] = missing;
    assert_open_fails(two, 2, "blktrace", -ZC_EIO, missing, ": cannot open");
}

static void test_text_files_are_read_one_after_the_other(void **state)
{
    const char *paths[3];
    struct result r;

    (void)state;
    paths[0] = write_text("a.trace", "5 0 1 1 1\n1 0 2 1 1\n");
    paths[1] = zt_write_tmp("b.trace", "", 0);
    paths[2] = write_text("c.trace", "3 0 3 1 0\n");
    read_paths(paths, 3, NULL, 0, &r);
    assert_string_equal(r.format, "disksim");
    assert_int_equal(r.n, 3); /* not merged by time: file order */
    assert_int_equal(r.req[0].offset, 512);
    assert_int_equal(r.req[1].offset, 1024);
    assert_int_equal(r.req[2].offset, 1536);

    /* an error in a later file names that file and its own line */
    paths[1] = write_text("bad.trace", "1 0 2 1 1\nbad\n");
    read_paths(paths, 2, NULL, 0, &r);
    assert_int_equal(r.rc, -ZC_EFORMAT);
    assert_int_equal(r.n, 3);
    assert_message(r.msg, paths[1], ":2: ");
}

static void test_every_file_of_a_sniffed_trace_is_one_format(void **state)
{
    static const char blk[] =
        "  8,16   5  1  0.000000000 18615  Q   R 1 + 8 [x]\n";
    const char *paths[3];
    struct result r;
    size_t zlen;
    unsigned char *z;

    (void)state;
    paths[0] = write_text("one.blkparse", blk);
    paths[1] = write_text("two.trace", "3 0 3 1 0\n");
    assert_open_fails(paths, 2, NULL, -ZC_EFORMAT, paths[1],
                      ": offset 0: a disksim trace, but ");
    assert_open_fails(paths, 2, "auto", -ZC_EFORMAT, paths[1],
                      ": offset 0: a disksim");
    {
        char err[512];
        zc_trace *t;
        assert_int_equal(zc_trace_open(paths, 2, NULL, &t, err, sizeof(err)),
                         -ZC_EFORMAT);
        assert_non_null(strstr(err, "one.blkparse is a blkparse trace: one "
                                    "trace, one format"));
    }
    /* unrecognised bytes after a block trace */
    paths[1] = zt_write_tmp("bin",
                            "\x7f"
                            "ELF\x02\x01\x01\0\0\0",
                            10);
    assert_open_fails(paths, 2, NULL, -ZC_EFORMAT, paths[1],
                      ": offset 0: not a trace format this library "
                      "recognises, but ");
    /* a forced format reads what it is told, and refuses bytes that are
     * not its text (it read 0 requests of an ELF file, and said so not) */
    read_paths(paths, 2, "blkparse", 0, &r);
    assert_int_equal(r.rc, -ZC_EFORMAT);
    assert_int_equal(r.n, 1);
    assert_non_null(strstr(r.msg, "a NUL byte: not blkparse's text"));
    /* text without an event line is a trace of none (a prefix cut before
     * the first event reads as the events it holds) */
    read_one(write_text("prose", "Hello.\nNot a trace.\n"), "blkparse", &r);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.n, 0);

    /* the same format, compressed or empty, is one trace */
    z = zt_zstd(blk, strlen(blk), &zlen);
    paths[1] = zt_write_tmp("two.blkparse.zst", z, zlen);
    free(z);
    paths[2] = zt_write_tmp("three.blkparse", "", 0);
    read_paths(paths, 3, NULL, 0, &r);
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.format, "blkparse");
    assert_int_equal(r.n, 2);

    /* a merge: per-CPU parts sniff alike, anything else is refused */
    paths[0] = write_blktrace("m.blktrace.0", blktrace_sample, 1, false);
    paths[1] = write_blktrace("m.blktrace.1", blktrace_sample, 1, true);
    read_paths(paths, 2, NULL, 0, &r);
    assert_int_equal(r.rc, 0);
    assert_string_equal(r.format, "blktrace");
    paths[1] = write_text("m.blkparse", blk);
    assert_open_fails(paths, 2, NULL, -ZC_EFORMAT, paths[1],
                      ": offset 0: a blkparse trace, but ");
}

static void test_sniffing_recognises_each_text_and_binary_format(void **state)
{
    static const struct {
        const char *name, *text, *format;
    } cases[] = {
        {"s1", "  8,16   5  1  0.000000000 18615  A   R 1 + 8 <- (8,17) 1\n",
         "blkparse"},
        {"s2", "version,time,op,size,lbn\n1,2,28,512,1\n", "vscsi"},
        {"s3", "1,2,2a,512,1\n", "vscsi"},
        {"s4", "# header\n\n0.5 1 2 3 0\n", "disksim"},
        {"s5", "938513000 4 264719034 16 0", "disksim"},
        {"s6", "42\n43\n", "blocklist-text"},
    };
    const char *p;
    struct result r;

    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        read_one(write_text(cases[i].name, cases[i].text), "auto", &r);
        assert_string_equal(r.format, cases[i].format);
        assert_int_equal(r.rc, 0);
    }
    /* blktrace: either byte order (tested with the samples above) */
    p = write_blktrace("s7", blktrace_sample, 1, false);
    read_one(p, NULL, &r);
    assert_string_equal(r.format, "blktrace");
}

static void test_unrecognised_content_lists_the_formats(void **state)
{
    static const unsigned char u32[] = {1, 0, 0, 0, 2, 0, 0, 0};
    const char *p = write_text("junk.txt", "hello world\n");
    char err[512];
    zc_trace *t;

    (void)state;
    assert_open_fails(&p, 1, NULL, -ZC_EFORMAT, p,
                      ": not a trace format this library recognises "
                      "(formats: ");
    zc_trace_open(&p, 1, NULL, &t, err, sizeof(err));
    for (size_t i = 0; zc_trace_format_name(i); i++)
        assert_non_null(strstr(err, zc_trace_format_name(i)));
    assert_non_null(strstr(err, "--format forces one"));

    /* binary block lists are never sniffed */
    p = zt_write_tmp("list.u32", u32, sizeof(u32));
    assert_open_fails(&p, 1, NULL, -ZC_EFORMAT, p, ": not a trace format");
}

static void test_format_names_are_listed_with_docs(void **state)
{
    static const char *const want[] = {
        "blkparse",      "blktrace",       "disksim",
        "vscsi",         "blocklist-text", "blocklist-u32",
        "blocklist-u64", "access",         "access-text"};
    size_t n = 0;

    (void)state;
    while (zc_trace_format_name(n)) {
        const char *doc = zc_trace_format_doc(n);
        assert_non_null(doc);
        assert_true(strlen(doc) > 10);
        n++;
    }
    assert_null(zc_trace_format_doc(n));
    assert_int_equal(n, ARRAY_LEN(want));
    for (size_t i = 0; i < ARRAY_LEN(want); i++) {
        bool found = false;
        for (size_t j = 0; j < n; j++)
            found |= strcmp(zc_trace_format_name(j), want[i]) == 0;
        assert_true(found);
    }
}

static void test_bad_arguments_are_einval(void **state)
{
    const char *p = write_text("args.trace", "1 0 1 1 1\n");
    const char *nul[1] = {NULL};
    zc_trace_options opt = {.format = "nope"};
    char err[512];
    zc_trace *t = NULL;
    zc_request q;

    (void)state;
    assert_int_equal(zc_trace_open(NULL, 1, NULL, &t, NULL, 0), -ZC_EINVAL);
    assert_int_equal(zc_trace_open(&p, 0, NULL, &t, NULL, 0), -ZC_EINVAL);
    assert_int_equal(zc_trace_open(&p, 1, NULL, NULL, NULL, 0), -ZC_EINVAL);
    assert_int_equal(zc_trace_open(nul, 1, NULL, &t, NULL, 0), -ZC_EINVAL);
    assert_int_equal(zc_trace_open(&p, 1, &opt, &t, err, sizeof(err)),
                     -ZC_EINVAL);
    assert_null(t);
    assert_non_null(strstr(err, "unknown trace format \"nope\""));
    assert_non_null(strstr(err, "blocklist-text"));
    assert_int_equal(zc_trace_next(NULL, &q), -ZC_EINVAL);
    assert_string_equal(zc_trace_error(NULL), "");
    assert_null(zc_trace_format(NULL));
    zc_trace_close(NULL);

    assert_int_equal(zc_trace_open(&p, 1, NULL, &t, NULL, 0), 0);
    assert_int_equal(zc_trace_next(t, NULL), -ZC_EINVAL);
    zc_trace_close(t);
}

static void test_errors_are_sticky_and_end_is_repeated(void **state)
{
    const char *p = write_text("sticky.trace", "1 0 1 1 1\nbad\n2 0 1 1 1\n");
    const char *ok = write_text("end.trace", "1 0 1 1 1\n");
    zc_trace *t;
    zc_request q;

    (void)state;
    assert_int_equal(zc_trace_open(&p, 1, NULL, &t, NULL, 0), 0);
    assert_int_equal(zc_trace_next(t, &q), 1);
    assert_int_equal(zc_trace_next(t, &q), -ZC_EFORMAT);
    assert_int_equal(zc_trace_next(t, &q), -ZC_EFORMAT);
    assert_message(zc_trace_error(t), p, ":2: ");
    zc_trace_close(t);

    assert_int_equal(zc_trace_open(&ok, 1, NULL, &t, NULL, 0), 0);
    assert_int_equal(zc_trace_next(t, &q), 1);
    assert_int_equal(zc_trace_next(t, &q), 0);
    assert_int_equal(zc_trace_next(t, &q), 0);
    assert_string_equal(zc_trace_error(t), "");
    zc_trace_close(t);
}

static void test_line_longer_than_the_buffer_is_an_error(void **state)
{
    size_t len = (1u << 20) + 100;
    char *text = malloc(len + 1);
    const char *p;

    (void)state;
    assert_non_null(text);
    memcpy(text, "7\n", 2);
    memset(text + 2, ' ', len - 2);
    text[len - 1] = '\n';
    text[len] = '\0';
    p = zt_write_tmp("long.txt", text, len);
    free(text);
    assert_read_fails(p, "blocklist-text", 1, ":2: line longer than");
}

/* One request may span at most 1 GiB by default (no device request comes
 * near it, and a longer one is walked page by page for hours): a longer
 * one is refused naming its line, or its record's offset, in every
 * format, merged or not; exactly 1 GiB passes. */
static void test_a_request_past_the_limit_names_its_place(void **state)
{
    static const struct {
        const char *name, *format, *text, *msg;
    } cases[] = {
        {"big.disksim", "disksim",
         "0.0 0 0 2097152 1\n0.0 0 0 1099511627776 1\n",
         ":2: request of 562949953421312 bytes, more than the limit of "
         "1073741824"},
        {"big.blkparse", "blkparse",
         "  8,16 5 1 0.000001850 18615  Q   R 0 + 2097152 [java]\n"
         "  8,16 5 2 0.000001850 18615  Q   R 0 + 2097153 [java]\n",
         ":2: request of 1073742336 bytes, more than the limit"},
        {"big.vscsi", "vscsi",
         "1,1,28,1073741824,0\n1,2,28,1125899906842624,0\n",
         ":2: request of 1125899906842624 bytes, more than the limit"},
        {"big.zca", "access-text",
         "zca-text 1\nmeta page_size 4096\n"
         "0.000000001 r 7:0 5 0 262144\n0.000000002 r 7:0 5 0 262145\nend\n",
         ":4: request of 1073745920 bytes, more than the limit"},
    };
    const struct rec big = {
        30, 2, 0x80000000u, ACT(TA_QUEUE, TC_QUEUE | TC_READ), 0, 0};
    const struct rec skipped = {20, 0, 0, ACT(TN_PROCESS, TC_NOTIFY), 16, 0};
    struct result r;
    (void)state;

    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        const char *p = write_text(cases[i].name, cases[i].text);
        assert_read_fails(p, cases[i].format, 1, cases[i].msg);
        read_one(p, NULL, &r); /* sniffed: the same */
        assert_int_equal(r.rc, -ZC_EFORMAT);
        assert_message(r.msg, p, cases[i].msg);
    }
    /* binary: the offset of the record, not of a record skipped before */
    {
        const struct rec recs[] = {qrec(10, 1), skipped, big};
        const char *p = write_blktrace("big.blktrace.0", recs, 3, false);
        assert_read_fails(p, "blktrace", 1,
                          ": offset 112: request of 2147483648 bytes, more "
                          "than the limit of 1073741824");
    }
    /* merged by time: handed out after the earlier requests of both files,
     * the error names the file it is in */
    {
        const struct rec cpu0[] = {qrec(10, 1), qrec(50, 1)};
        const struct rec cpu1[] = {qrec(20, 2), big};
        const char *paths[2] = {write_blktrace("m.blktrace.0", cpu0, 2, false),
                                write_blktrace("m.blktrace.1", cpu1, 2, false)};
        read_paths(paths, 2, "blktrace", 0, &r);
        assert_int_equal(r.rc, -ZC_EFORMAT);
        assert_int_equal(r.n, 2);
        assert_message(r.msg, paths[1], ": offset 48: request of 2147483648");
    }
    /* the binary access stream: the offset of the record */
    {
        const char *p = zt_tmp_path("big.b.zca");
        zc_access_writer *w;
        zc_request q = {.time_ns = 1, .ino = 5, .length = 4096};
        assert_int_equal(zc_access_writer_open(p, NULL, &w, NULL, 0), 0);
        assert_int_equal(zc_access_write(w, &q), 0);
        q.length = 2ull << 30;
        assert_int_equal(zc_access_write(w, &q), 0);
        assert_int_equal(zc_access_writer_close(w, NULL, 0), 0);
        read_one(p, NULL, &r);
        assert_int_equal(r.rc, -ZC_EFORMAT);
        assert_int_equal(r.n, 1);
        assert_message(r.msg, p, ": offset ");
        assert_non_null(strstr(r.msg, ": request of 2147483648 bytes"));
    }
}

/* Every prefix, and copies with random bytes changed, of every sample:
 * read to the end, the result is requests then 0 or one -ZC_EFORMAT. */
static void test_truncated_and_mutated_input_never_crashes(void **state)
{
    unsigned char bin[16 * (48 + 16)];
    size_t binlen = 0;
    struct {
        const char *format;
        const unsigned char *data;
        size_t len;
    } samples[] = {
        {"blkparse", (const unsigned char *)blkparse_sample,
         sizeof(blkparse_sample) - 1},
        {"disksim", (const unsigned char *)"0.5 0 100 8 1\n12 2 0 8 3\n", 25},
        {"vscsi", (const unsigned char *)"v,t,o,s,l\n1,5,2a,512,42\n", 24},
        {"blocklist-text", (const unsigned char *)"0\n5\n 7 \n", 8},
        {"blktrace", bin, 0},
        {"blocklist-u64", bin, 0},
    };
    zt_rng rng;
    unsigned char *copy;

    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(blktrace_sample); i++)
        add_rec(bin, &binlen, &blktrace_sample[i], i & 1);
    samples[4].len = samples[5].len = binlen;
    zt_rng_seed(&rng, 11);
    for (size_t s = 0; s < ARRAY_LEN(samples); s++) {
        size_t len = samples[s].len;
        copy = malloc(len + 1);
        assert_non_null(copy);
        for (size_t cut = 0; cut <= len; cut += 1 + (len > 200) * 3) {
            for (int round = 0; round < 4; round++) {
                memcpy(copy, samples[s].data, cut);
                for (int k = 0; round && k < round * 2 && cut; k++)
                    copy[zt_rng_below(&rng, cut)] =
                        (unsigned char)zt_rng_next(&rng);
                const char *p = zt_write_tmp("fuzz", copy, cut);
                zc_trace_options opt = {.format = samples[s].format};
                zc_trace *t;
                zc_request q;
                int rc = zc_trace_open(&p, 1, &opt, &t, NULL, 0);
                if (rc) {
                    assert_int_equal(rc, -ZC_EFORMAT); /* entry size */
                    continue;
                }
                while ((rc = zc_trace_next(t, &q)) == 1)
                    assert_true(q.length > 0 &&
                                q.offset + q.length - 1 >= q.offset);
                assert_true(rc == 0 || rc == -ZC_EFORMAT);
                assert_true(rc == 0 || zc_trace_error(t)[0] != '\0');
                zc_trace_close(t);
            }
        }
        free(copy);
    }
}

/* Tests on the reference traces in ../shared/traces/ext (not part of the
 * project) run apart, as `test_readers --shared`: without them that run
 * says so and exits 77 (ctest: skipped), and nothing else is ever a skip. */
int main(int argc, char **argv)
{
    const struct CMUnitTest shared[] = {
        cmocka_unit_test(test_cloudphysics_vscsi_matches_reference_counts),
        cmocka_unit_test(test_hadoop_blkparse_matches_reference_counts),
        cmocka_unit_test(test_hadoop_blktrace_cpu0_matches_reference_counts),
        cmocka_unit_test(test_hadoop_blktrace_base_name_opens_the_cpu_files),
        cmocka_unit_test(test_mqsim_disksim_matches_reference_counts),
    };
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blkparse_takes_queue_events_only),
        cmocka_unit_test(
            test_blkparse_malformed_queue_lines_name_file_and_line),
        cmocka_unit_test(
            test_blktrace_takes_queue_records_not_notify_or_discard),
        cmocka_unit_test(test_blktrace_big_endian_reads_the_same),
        cmocka_unit_test(test_blktrace_per_cpu_files_merge_by_time),
        cmocka_unit_test(
            test_blktrace_merge_of_many_large_files_stays_in_order),
        cmocka_unit_test(test_blktrace_bad_records_name_the_byte_offset),
        cmocka_unit_test(test_blktrace_error_in_one_cpu_file_stops_the_merge),
        cmocka_unit_test(test_disksim_reads_times_devices_and_types),
        cmocka_unit_test(test_disksim_malformed_lines_name_file_and_line),
        cmocka_unit_test(test_disksim_lines_across_buffer_refills),
        cmocka_unit_test(test_vscsi_reads_opcodes_sizes_and_sectors),
        cmocka_unit_test(test_vscsi_malformed_lines_name_file_and_line),
        cmocka_unit_test(test_blocklist_text_reads_one_page_per_line),
        cmocka_unit_test(test_blocklist_binary_little_endian_pages),
        cmocka_unit_test(
            test_empty_file_is_an_empty_trace_when_a_headerless_format_is_forced),
        cmocka_unit_test(test_empty_file_cannot_be_sniffed),
        cmocka_unit_test(test_directory_or_missing_file_is_an_io_error),
        cmocka_unit_test(test_text_files_are_read_one_after_the_other),
        cmocka_unit_test(test_every_file_of_a_sniffed_trace_is_one_format),
        cmocka_unit_test(test_sniffing_recognises_each_text_and_binary_format),
        cmocka_unit_test(test_unrecognised_content_lists_the_formats),
        cmocka_unit_test(test_format_names_are_listed_with_docs),
        cmocka_unit_test(test_bad_arguments_are_einval),
        cmocka_unit_test(test_errors_are_sticky_and_end_is_repeated),
        cmocka_unit_test(test_line_longer_than_the_buffer_is_an_error),
        cmocka_unit_test(test_a_request_past_the_limit_names_its_place),
        cmocka_unit_test(test_truncated_and_mutated_input_never_crashes),
    };

    struct stat st;

    if (argc > 1 && !strcmp(argv[1], "--shared")) {
        if (stat(EXT_DIR, &st) || !S_ISDIR(st.st_mode)) {
            printf("SKIP: %s is missing (the reference traces are not part "
                   "of the project)\n",
                   EXT_DIR);
            return 77;
        }
        return cmocka_run_group_tests_name("shared", shared, zt_tmpdir_setup,
                                           zt_tmpdir_teardown);
    }
    return cmocka_run_group_tests(tests, zt_tmpdir_setup, zt_tmpdir_teardown);
}
