/*
 * test_capture.c - the tracefs conversion as a library call
 * (zc_tracefs_convert()): the committed capture (tests/data/tracefs) and
 * small hand-made ones converted, their summaries checked and their
 * outputs read back by the library's own readers; bad input and failed
 * writes returned as codes with a message naming the file (and the line),
 * nothing left behind, and the process never made to exit.
 *
 * Expected figures for the committed capture are zcache-tracefs's output
 * for it before the conversion moved into the library (and
 * tests/tracefs_capture.sh checks the tool's streams byte for byte); those
 * of the hand-made captures are counted by hand from their lines.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "zcache_sim.h"
#include "zt_util.h"

#define DATA ZC_SOURCE_DIR "/tests/data/tracefs/"
#define PS 4096

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* The committed capture's conversion options: device 7:0, its sizes
 * before and its files after the run. */
static zc_tracefs_options capture_options(const char *input)
{
    zc_tracefs_options o = zc_tracefs_options_default();

    o.input = input;
    o.dev = 7u << 20;
    o.dev_set = true;
    o.sizes = DATA "capture.sizes";
    o.live = DATA "capture.live";
    return o;
}

/* A file's text without its lines that start with skip or skip2. */
static char *text_without(const char *path, const char *skip, const char *skip2)
{
    size_t len;
    char *s = (char *)zt_read_file(path, &len), *w = s;

    s[len] = '\0';
    for (char *r = s; *r;) {
        size_t n = strcspn(r, "\n") + (r[strcspn(r, "\n")] == '\n');
        if (strncmp(r, skip, strlen(skip)) &&
            strncmp(r, skip2, strlen(skip2))) {
            memmove(w, r, n);
            w += n;
        }
        r += n;
    }
    *w = '\0';
    return s;
}

/* Requests and pages of a trace read back whole; asserts it reads. */
static uint64_t read_back(const char *path, const char *format, uint64_t *pages)
{
    zc_trace_options to = {.format = format};
    zc_trace *t;
    zc_request req;
    char err[512];
    uint64_t n = 0;
    int rc;

    *pages = 0;
    assert_int_equal(zc_trace_open(&path, 1, &to, &t, err, sizeof(err)), 0);
    while ((rc = zc_trace_next(t, &req)) == 1) {
        n++;
        *pages += req.length / PS;
    }
    if (rc)
        fail_msg("%s: %s", path, zc_trace_error(t));
    zc_trace_close(t);
    return n;
}

/* ---- the committed capture ------------------------------------------------
 */

/* A figure of a summary: its field, by offset, and the value expected. */
struct figure {
    const char *name;
    size_t off;
    uint64_t want;
};
#define FIGURE(f, v)                                                           \
    {                                                                          \
#f, offsetof(zc_tracefs_summary, f), v                                 \
    }

/* The committed capture's figures, as zcache-tracefs printed them. */
static const struct figure capture_figures[] = {
    FIGURE(bios, 27),
    FIGURE(adds, 61),
    FIGURE(deletes, 9),
    FIGURE(evictions, 9),
    FIGURE(invalidations, 0),
    FIGURE(gets, 301),
    FIGURE(puts, 9),
    FIGURE(synthetic_puts, 0),
    FIGURE(reads, 348),
    FIGURE(writes, 256),
    FIGURE(mapped, 13),
    FIGURE(read_events, 40),
    FIGURE(write_events, 16),
    FIGURE(mapped_events, 8),
    FIGURE(distinct, 355),
    FIGURE(past_eof, 1),
    FIGURE(clipped_pages, 924),
    FIGURE(resident_min, 2),
    FIGURE(resident_median, 24), /* over the 58 requests (56: the middle
                                    of the 30 samples, the old median) */
    FIGURE(resident_max, 280),
    FIGURE(samples, 30),
    FIGURE(kernel_hits, 270),
    FIGURE(kernel_misses, 347),
    FIGURE(unmapped_fault_around, 100),
    FIGURE(reordered, 0),
};

static void check_figures(const zc_tracefs_summary *s)
{
    const size_t n = sizeof(capture_figures) / sizeof(capture_figures[0]);

    for (size_t i = 0; i < n; i++) {
        const struct figure *f = &capture_figures[i];
        uint64_t got;
        memcpy(&got, (const char *)s + f->off, sizeof(got));
        if (got != f->want)
            fail_msg("%s: %llu, not %llu", f->name, (unsigned long long)got,
                     (unsigned long long)f->want);
    }
    assert_int_equal(s->dev, 7u << 20);
    assert_false(s->bad_input);
}

static void test_trace_pipe_converts_to_the_committed_stream(void **state)
{
    zc_tracefs_options o = capture_options(DATA "capture.trace");
    zc_tracefs_summary s;
    char err[512], *got, *want;
    uint64_t pages;

    (void)state;
    o.access = zt_tmp_path("pipe.zca.txt");
    o.blkparse = zt_tmp_path("pipe.blkparse");
    assert_int_equal(zc_tracefs_convert(&o, &s, err, sizeof(err)), 0);
    assert_string_equal(err, "");
    check_figures(&s);
    /* The committed stream was made from a copy named "capture"; the
     * library's version is not the converter's business. */
    got = text_without(o.access, "meta created_by ", "meta source ");
    want = text_without(DATA "capture.zca.txt", "meta created_by ",
                        "meta source ");
    assert_string_equal(got, want);
    free(got);
    free(want);
    /* Both outputs read back as traces: the accesses, the Q events. */
    assert_true(read_back(o.access, "auto", &pages) > 0);
    assert_int_equal(pages, s.reads + s.writes + s.mapped);
    assert_int_equal(read_back(o.blkparse, "blkparse", &pages), s.bios);
}

static void test_trace_cmd_report_converts_like_trace_pipe(void **state)
{
    zc_tracefs_options o = capture_options(DATA "capture.report");
    zc_tracefs_summary s;
    char err[512], *a, *b;

    (void)state;
    o.access = zt_tmp_path("report.zca.txt");
    assert_int_equal(zc_tracefs_convert(&o, &s, err, sizeof(err)), 0);
    check_figures(&s);
    /* The same stream as the trace_pipe text's, but the source named in
     * its header. */
    a = text_without(o.access, "meta source ", "meta created_by ");
    b = text_without(zt_tmp_path("pipe.zca.txt"), "meta source ",
                     "meta created_by ");
    assert_string_equal(a, b);
    free(a);
    free(b);
}

/* An image of 256 pages, page n filled with the byte n + 1. */
static const char *make_image(void)
{
    unsigned char *img = malloc(256 * PS);

    assert_non_null(img);
    for (size_t n = 0; n < 256; n++)
        memset(img + n * PS, (int)(n + 1), PS);
    zt_write_tmp("image", img, 256 * PS);
    free(img);
    return zt_tmp_path("image");
}

static void test_kernel_ops_and_pack_read_back(void **state)
{
    zc_tracefs_options o = capture_options(DATA "capture.trace");
    zc_tracefs_summary s;
    zc_ops_reader *r;
    zc_pack *p;
    zc_trace *t;
    zc_content *src;
    zc_op op;
    char err[512], spec[1024];
    uint64_t gets = 0, puts = 0, pages;
    int rc;

    (void)state;
    o.image = make_image();
    o.kernel_ops = zt_tmp_path("k.kernel.zct");
    o.pack = zt_tmp_path("k.zcp");
    o.access = zt_tmp_path("k.zca");
    o.blkparse = zt_tmp_path("k.blkparse.zst");
    o.inodes = zt_tmp_path("k.inodes");
    o.read_ahead_kb = 2560;
    o.read_ahead_set = true;
    assert_int_equal(zc_tracefs_convert(&o, &s, err, sizeof(err)), 0);
    assert_int_equal(s.pack_keys, 1025);
    assert_int_equal(s.synthetic_keys, 0);

    /* The op stream: an init per pool, a get per page added, a put per
     * page evicted, contents from the pack. */
    assert_int_equal(zc_ops_open(o.kernel_ops, &r, err, sizeof(err)), 0);
    while ((rc = zc_ops_next(r, &op)) == 1) {
        gets += op.kind == ZC_OP_GET;
        puts += op.kind == ZC_OP_PUT;
        if (op.kind == ZC_OP_PUT)
            assert_non_null(op.page);
    }
    assert_int_equal(rc, 0);
    assert_string_equal(zc_ops_meta(r, "format"), "tracefs-filemap");
    zc_ops_close(r);
    assert_int_equal(gets, s.gets);
    assert_int_equal(puts, s.puts);

    /* The pack maps every key; the access stream names it by identity. */
    assert_int_equal(zc_pack_open(o.pack, &p, err, sizeof(err)), 0);
    assert_int_equal(zc_pack_keys(p), s.pack_keys);
    assert_int_equal(zc_trace_open(&o.access, 1, NULL, &t, err, sizeof(err)),
                     0);
    snprintf(spec, sizeof(spec), "%016llx", (unsigned long long)zc_pack_id(p));
    assert_string_equal(zc_trace_meta(t, "pack_id"), spec);
    assert_string_equal(zc_trace_meta(t, "read_ahead_kb"), "2560");
    snprintf(spec, sizeof(spec), "pack:%s", o.pack);
    assert_int_equal(zc_content_open(spec, PS, &src, err, sizeof(err)), 0);
    assert_int_equal(zc_content_check_trace(src, t, err, sizeof(err)), 0);
    zc_content_close(src);
    zc_trace_close(t);
    zc_pack_close(p);
    assert_true(read_back(o.access, "auto", &pages) > 0);
    assert_int_equal(pages, s.reads + s.writes + s.mapped);
    assert_true(read_back(o.blkparse, "blkparse", &pages) > 0);
    assert_true(exists(o.inodes));
}

/* ---- the rules, on hand-made captures -------------------------------------
 */

/* A hand-made capture in file name: lines "COMM-PID EVENT: DETAILS",
 * the i-th at i ms past second 100 on CPU 0, as trace_pipe prints them. */
static zc_tracefs_options handmade(const char *name, const char *const *lines,
                                   size_t n)
{
    zc_tracefs_options o = zc_tracefs_options_default();
    FILE *f = fopen(zt_tmp_path(name), "w");

    assert_non_null(f);
    for (size_t i = 0; i < n; i++) {
        int task = (int)strcspn(lines[i], " ");
        fprintf(f, "%16.*s [000] ..... 100.%06zu: %s\n", task, lines[i],
                i * 1000, lines[i] + task + 1);
    }
    assert_int_equal(fclose(f), 0);
    o.input = zt_tmp_path(name);
    return o;
}

static void test_eviction_is_a_delete_in_reclaim_or_by_kswapd(void **state)
{
    static const char *const lines[] = {
        "cat-10 mm_filemap_add_to_page_cache: dev 7:0 ino 20 ofs=0 order=2",
        "kswapd0-5 mm_filemap_delete_from_page_cache: dev 7:0 ino 20 ofs=0",
        "rm-11 mm_filemap_delete_from_page_cache: dev 7:0 ino 20 ofs=4096",
        "cc-12 mm_vmscan_memcg_reclaim_begin: order=0",
        "cc-12 mm_filemap_delete_from_page_cache: dev 7:0 ino 20 ofs=8192",
        "cc-12 mm_vmscan_memcg_reclaim_end: nr_reclaimed=1",
        "cc-12 mm_filemap_delete_from_page_cache: dev 7:0 ino 20 ofs=12288",
    };
    /* An order-2 folio is four gets; then kswapd's delete, rm's, one in
     * cc's reclaim window and one after it. */
    static const zc_op_kind want[] = {
        ZC_OP_INIT_FS,
        ZC_OP_GET,
        ZC_OP_GET,
        ZC_OP_GET,
        ZC_OP_GET,
        ZC_OP_PUT,
        ZC_OP_INVALIDATE_PAGE,
        ZC_OP_PUT,
        ZC_OP_INVALIDATE_PAGE,
    };
    zc_tracefs_options o = handmade("evict.trace", lines, 7);
    zc_tracefs_summary s;
    zc_ops_reader *r;
    zc_op op;
    char err[512];
    size_t n = 0;

    (void)state;
    o.dev = 7u << 20;
    o.dev_set = true;
    o.image = make_image();
    o.kernel_ops = zt_tmp_path("evict.zct.txt");
    assert_int_equal(zc_tracefs_convert(&o, &s, err, sizeof(err)), 0);
    assert_int_equal(s.adds, 1);
    assert_int_equal(s.gets, 4);
    assert_int_equal(s.deletes, 4);
    assert_int_equal(s.evictions, 2);
    assert_int_equal(s.invalidations, 2);
    assert_int_equal(s.puts, 2);
    /* Deleted files' pages are synthetic: inode 0x20 has no extent. */
    assert_int_equal(s.synthetic_puts, 2);

    assert_int_equal(zc_ops_open(o.kernel_ops, &r, err, sizeof(err)), 0);
    for (; zc_ops_next(r, &op) == 1; n++)
        if (n >= sizeof(want) / sizeof(want[0]) || op.kind != want[n])
            fail_msg("op %zu: kind %d", n, (int)op.kind);
    zc_ops_close(r);
    assert_int_equal(n, sizeof(want) / sizeof(want[0]));
}

static void test_fault_around_maps_only_cached_pages(void **state)
{
    /* Pages 0, 1 and 3 cached; fault-around of pages 0 to 4. */
    static const char *const lines[] = {
        "py-7 mm_filemap_add_to_page_cache: dev 7:0 ino 1f ofs=0 order=1",
        "py-7 mm_filemap_add_to_page_cache: dev 7:0 ino 1f ofs=12288",
        "py-7 mm_filemap_map_pages: dev=7:0 ino=1f ofs=0-20479",
    };
    zc_tracefs_options o = handmade("around.trace", lines, 3);
    zc_tracefs_summary s;
    zc_trace *t;
    zc_request req;
    char err[512];

    (void)state;
    o.access = zt_tmp_path("around.zca.txt");
    assert_int_equal(zc_tracefs_convert(&o, &s, err, sizeof(err)), 0);
    assert_int_equal(s.dev, 7u << 20); /* the one device its events name */
    assert_true(s.dev_found);
    assert_int_equal(s.other_devices, 0);
    assert_int_equal(s.mapped, 3);
    assert_int_equal(s.mapped_events, 1);
    assert_int_equal(s.unmapped_fault_around, 2); /* pages 2 and 4 */
    assert_int_equal(s.kernel_hits, 3);
    assert_int_equal(s.adds, 2);
    assert_int_equal(s.gets, 3);

    assert_int_equal(zc_trace_open(&o.access, 1, NULL, &t, err, sizeof(err)),
                     0);
    assert_int_equal(zc_trace_next(t, &req), 1);
    assert_int_equal(req.ino, 0x1f);
    assert_int_equal(req.offset, 0);
    assert_int_equal(req.length, 2 * PS);
    assert_int_equal(req.flags, ZC_REQ_MAPPED | ZC_REQ_AROUND);
    assert_int_equal(zc_trace_next(t, &req), 1);
    assert_int_equal(req.offset, 3 * PS);
    assert_int_equal(req.length, PS);
    assert_int_equal(zc_trace_next(t, &req), 0);
    zc_trace_close(t);
}

/* ---- failures
 * ----------------------------------------------------------------- */

/* Convert o expecting code rc with a message holding want and bad_input as
 * given; the outputs named must not exist after it. */
static void refused(zc_tracefs_options *o, int rc, bool bad_input,
                    const char *want)
{
    zc_tracefs_summary s;
    char err[4096];
    const char *outs[] = {o->access, o->blkparse, o->kernel_ops, o->pack,
                          o->inodes};

    assert_int_equal(zc_tracefs_convert(o, &s, err, sizeof(err)), rc);
    if (!strstr(err, want))
        fail_msg("message '%s' lacks '%s'", err, want);
    assert_null(strchr(err, '\n'));
    assert_int_equal(s.bad_input, bad_input);
    for (size_t i = 0; i < sizeof(outs) / sizeof(outs[0]); i++)
        if (outs[i] && strcmp(outs[i], "-") && exists(outs[i]))
            fail_msg("%s left behind", outs[i]);
}

/* The committed capture with line appended, as a new file. */
static const char *capture_plus(const char *name, const char *line_)
{
    size_t len;
    unsigned char *text = zt_read_file(DATA "capture.trace", &len);
    size_t add = strlen(line_);
    const char *path;

    text = realloc(text, len + add + 1);
    assert_non_null(text);
    memcpy(text + len, line_, add);
    text[len + add] = '\n';
    path = zt_write_tmp(name, text, len + add + 1);
    free(text);
    return path;
}

static void test_bad_line_names_file_and_line_and_leaves_nothing(void **state)
{
    /* A line appended to the committed capture, and what is said. */
    static const char *const bad[][2] = {
        {"hello world", ":180: not a tracefs event line"},
        {"CPU:1 [LOST 12 EVENTS]", ":180: the recording lost events"},
        {"  cat-1 [000] ..... 9999.000000: mm_filemap_get_pages: dev=7:0 "
         "ino=d ofs=0-4000",
         ":180: a filemap access event that does not parse"},
        {"  cat-1 [001] ..... 7684.080050: mm_filemap_get_pages: dev=7:0 "
         "ino=d ofs=0-4095",
         ":180: time goes backwards"},
        {"  cat-1 [8192] ..... 9999.0: block_bio_queue: 7,0 WS 8 + 8 [cat]",
         ":180: a CPU number beyond 8191"},
        {"  cat-1 [001] ..... 9999.0: mm_filemap_add_to_page_cache: dev 7:0 "
         "ino 0 pfn=0x1 ofs=0 order=0",
         ":180: inode 0"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        zc_tracefs_options o;
        const char *path = capture_plus("bad.trace", bad[i][0]);
        char want[1024];
        o = capture_options(path);
        o.access = zt_tmp_path("bad.zca");
        o.blkparse = zt_tmp_path("bad.blkparse.zst");
        o.kernel_ops = zt_tmp_path("bad.zct");
        o.pack = zt_tmp_path("bad.zcp");
        o.inodes = zt_tmp_path("bad.inodes");
        o.image = make_image();
        snprintf(want, sizeof(want), "%s%s", path, bad[i][1]);
        refused(&o, -ZC_EFORMAT, true, want);
    }
}

static void test_long_and_nul_lines_are_bad_input(void **state)
{
    zc_tracefs_options o;
    char *longl = malloc((1u << 20) + 2);
    char want[1024];
    const char *path;

    (void)state;
    assert_non_null(longl);
    memset(longl, 'a', (1u << 20) + 1);
    longl[(1u << 20) + 1] = '\0';
    path = capture_plus("long.trace", longl);
    free(longl);
    o = capture_options(path);
    o.access = zt_tmp_path("long.zca");
    snprintf(want, sizeof(want), "%s:180: line longer than 1 MiB", path);
    refused(&o, -ZC_EFORMAT, true, want);

    path = zt_write_tmp("nul.trace", "# x\nab\0c\n", 9);
    o = capture_options(path);
    o.access = zt_tmp_path("nul.zca");
    snprintf(want, sizeof(want), "%s:2: a NUL byte in the line", path);
    refused(&o, -ZC_EFORMAT, true, want);
}

static void test_inputs_that_cannot_be_read_are_refused(void **state)
{
    zc_tracefs_options o = capture_options(zt_tmp_path("absent.trace"));
    char want[1024];

    (void)state;
    o.access = zt_tmp_path("in.zca");
    snprintf(want, sizeof(want), "%s: No such file or directory", o.input);
    refused(&o, -ZC_EIO, true, want);
    o.input = zt_tmpdir();
    snprintf(want, sizeof(want), "%s: is a directory", o.input);
    refused(&o, -ZC_EIO, true, want);
    o = capture_options(DATA "capture.trace");
    o.access = zt_tmp_path("in.zca");
    o.extents = zt_write_tmp("bad.extents", "# x\n12 0 5\n", 11);
    snprintf(want, sizeof(want), "%s:2: want 'INO LBLK PBLK LEN [u]'",
             o.extents);
    refused(&o, -ZC_EFORMAT, true, want);
    o.extents = NULL;
    o.image = zt_tmp_path("absent.img");
    refused(&o, -ZC_EIO, true, "absent.img: No such file or directory");
}

static void test_capture_without_the_device_is_refused(void **state)
{
    zc_tracefs_options o = capture_options(DATA "capture.trace");
    char want[1024];

    (void)state;
    o.dev = 7u << 20 | 1;
    o.access = zt_tmp_path("nodev.zca.txt");
    o.blkparse = zt_tmp_path("nodev.blkparse");
    snprintf(want, sizeof(want), "%s: no event of device 7:1", o.input);
    refused(&o, -ZC_EFORMAT, true, want);
    o = zc_tracefs_options_default();
    o.input = zt_write_tmp("empty.trace", "", 0);
    o.access = zt_tmp_path("nodev.zca.txt");
    refused(&o, -ZC_EFORMAT, true, "empty.trace: no event of any device");
}

static void test_options_are_checked(void **state)
{
    zc_tracefs_options o = capture_options(DATA "capture.trace");
    zc_tracefs_summary s;
    char err[256];

    (void)state;
    o.kernel_ops = zt_tmp_path("opt.zct");
    refused(&o, -ZC_EINVAL, true, "need --image");
    o.kernel_ops = NULL;
    o.image = make_image();
    o.pack = "-";
    refused(&o, -ZC_EINVAL, true, "a file, not standard output");
    o.pack = NULL;
    o.level = 3;
    refused(&o, -ZC_EINVAL, true, "want 0, 1 or 9");
    o = zc_tracefs_options_default();
    refused(&o, -ZC_EINVAL, true, "no trace given");
    assert_int_equal(zc_tracefs_convert(NULL, &s, err, sizeof(err)),
                     -ZC_EINVAL);
    assert_int_equal(zc_tracefs_convert(NULL, NULL, NULL, 0), -ZC_EINVAL);
}

/* A write error leaves no output: the streams were written under
 * temporary names, which go; a symlink given as an output and its target
 * stay as they were (the target's old bytes whole). */
static void test_failure_removes_only_its_own_files(void **state)
{
    zc_tracefs_options o = capture_options(DATA "capture.trace");
    const char *target = zt_write_tmp("target", "keep\n", 5);
    const char *link = zt_tmp_path("link.zca.txt");
    zc_tracefs_summary s;
    struct stat st;
    unsigned char *got;
    size_t len;
    char err[512];

    (void)state;
    if (access("/dev/full", W_OK))
        skip();
    assert_int_equal(symlink(target, link), 0);
    o.access = link;
    o.kernel_ops = zt_tmp_path("own.zct");
    o.image = make_image();
    o.blkparse = "/dev/full";
    assert_int_equal(zc_tracefs_convert(&o, &s, err, sizeof(err)), -ZC_EIO);
    assert_non_null(strstr(err, "/dev/full: write error"));
    assert_false(s.bad_input);
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    got = zt_read_file(target, &len);
    assert_memory_equal(got, "keep\n", 5);
    assert_int_equal(len, 5);
    free(got);
    assert_false(exists(o.kernel_ops));
}

/* An output over an input (by name or through a link) or over another
 * output is refused before anything is written: the inputs stay whole. */
static void test_outputs_never_overwrite_inputs_or_each_other(void **state)
{
    (void)state;
    size_t len, before, after;
    unsigned char *orig = zt_read_file(DATA "capture.trace", &len);
    const char *cap = zt_write_tmp("cap.trace", orig, len);
    const char *img = make_image(), *link = zt_tmp_path("img.link");
    zc_tracefs_options o = capture_options(cap);
    zc_tracefs_summary s;
    char err[4096];
    unsigned char *now;

    before = len;
    o.access = cap; /* the trace itself */
    assert_int_equal(zc_tracefs_convert(&o, &s, err, sizeof(err)), -ZC_EINVAL);
    assert_non_null(strstr(err, "--access"));
    assert_non_null(strstr(err, "an input of this conversion"));
    assert_true(s.bad_input);
    now = zt_read_file(cap, &after);
    assert_int_equal(after, before);
    assert_memory_equal(now, orig, len);
    free(now);
    o = capture_options(cap); /* the image, through a symbolic link */
    assert_int_equal(symlink(img, link), 0);
    o.image = img;
    o.kernel_ops = zt_tmp_path("k.zct");
    o.pack = link;
    assert_int_equal(zc_tracefs_convert(&o, &s, err, sizeof(err)), -ZC_EINVAL);
    assert_non_null(strstr(err, "--image"));
    now = zt_read_file(img, &after);
    assert_int_equal(after, 256 * PS);
    free(now);
    assert_false(exists(o.kernel_ops));
    o = capture_options(cap); /* a side input (committed: it must stay) */
    o.inodes = DATA "capture.sizes";
    now = zt_read_file(o.inodes, &before);
    assert_int_equal(zc_tracefs_convert(&o, &s, err, sizeof(err)), -ZC_EINVAL);
    assert_non_null(strstr(err, "--sizes"));
    free(zt_read_file(o.inodes, &after));
    assert_int_equal(after, before);
    free(now);
    o = capture_options(cap); /* two outputs in one file */
    o.access = zt_tmp_path("o.zca");
    o.blkparse = o.access;
    refused(&o, -ZC_EINVAL, true, "one file for two outputs");
    free(orig);
}

/* Side inputs must be regular files: a FIFO would wait (the image is also
 * read at its offsets). */
static void test_side_inputs_must_be_regular_files(void **state)
{
    (void)state;
    const char *fifo = zt_tmp_path("side.fifo");
    zc_tracefs_options o = capture_options(DATA "capture.trace");

    assert_int_equal(mkfifo(fifo, 0600), 0);
    o.sizes = fifo;
    o.access = zt_tmp_path("f.zca");
    refused(&o, -ZC_EINVAL, true, "--sizes");
    o = capture_options(DATA "capture.trace");
    o.image = fifo;
    o.kernel_ops = zt_tmp_path("f.zct");
    refused(&o, -ZC_EINVAL, true, "not a regular file");
}

/* ---- hardening (issue 33): the device, cut lines, bounds, clocks,
 * options -------------------------------------------------------------- */

/* A capture of trace_pipe lines "CPU TIME COMM-PID EVENT: DETAILS", each
 * ended by a newline unless cut_last (the last one is then left without
 * it). */
static const char *capture_of(const char *name, const char *const *lines,
                              size_t n, bool cut_last)
{
    char text[8192];
    size_t len = 0;

    for (size_t i = 0; i < n; i++) {
        int cpu = (int)strcspn(lines[i], " ");
        const char *time = lines[i] + cpu + 1;
        int tlen = (int)strcspn(time, " ");
        const char *task = time + tlen + 1;
        int k = (int)strcspn(task, " ");
        len += (size_t)snprintf(text + len, sizeof(text) - len,
                                "%16.*s [%.*s] ..... %.*s: %s%s", k, task, cpu,
                                lines[i], tlen, time, task + k + 1,
                                cut_last && i + 1 == n ? "" : "\n");
        assert_true(len < sizeof(text));
    }
    return zt_write_tmp(name, text, len);
}

/* Item 2: without a device the capture's one device is taken (found by a
 * first pass, so an event of another device anywhere counts, the first
 * line included), several are refused naming each with its events, and
 * with --dev the other devices' events are ignored and counted. */
static void test_without_dev_several_devices_are_refused(void **state)
{
    static const char *const lines[] = {
        "000 100.000000 jbd2/vda1-8-5 block_bio_queue: 259,0 WS 8 + 8 [jbd2]",
        "000 100.001000 cat-10 mm_filemap_get_pages: dev=7:0 ino=1f "
        "ofs=0-4095",
        "000 100.002000 cat-10 mm_filemap_get_pages: dev=7:0 ino=1f "
        "ofs=4096-8191",
    };
    zc_tracefs_options o = zc_tracefs_options_default();
    zc_tracefs_summary s;
    char err[512];

    (void)state;
    o.input = capture_of("devs.trace", lines, 3, false);
    o.access = zt_tmp_path("devs.zca.txt");
    refused(&o, -ZC_EFORMAT, true,
            "devs.trace: events of 2 devices: 7:0 (2 events), 259:0 (1 "
            "event); give --dev");
    o.dev = 7u << 20;
    o.dev_set = true;
    assert_int_equal(zc_tracefs_convert(&o, &s, err, sizeof(err)), 0);
    assert_int_equal(s.dev, 7u << 20);
    assert_false(s.dev_found);
    assert_int_equal(s.other_devices, 1);
    assert_int_equal(s.reads, 2);
    /* One device, whatever line comes first (a bdevfs page of the device
     * names it too): found. */
    o = zc_tracefs_options_default();
    o.input = capture_of("one.trace", lines + 1, 2, false);
    assert_int_equal(zc_tracefs_convert(&o, &s, err, sizeof(err)), 0);
    assert_int_equal(s.dev, 7u << 20);
    assert_true(s.dev_found);
    assert_int_equal(s.other_devices, 0);
    assert_int_equal(s.reads, 2);
}

/* Without a device a capture that cannot be read twice is refused. */
static void test_without_dev_a_fifo_is_refused(void **state)
{
    const char *fifo = zt_tmp_path("cap.fifo");
    zc_tracefs_options o = zc_tracefs_options_default();
    zc_tracefs_summary s;
    char err[512];
    FILE *w;

    (void)state;
    assert_int_equal(mkfifo(fifo, 0600), 0);
    /* a writer that has written everything, so the open does not wait */
    assert_non_null(w = fopen(fifo, "r+"));
    fputs("x\n", w);
    fflush(w);
    o.input = fifo;
    assert_int_equal(zc_tracefs_convert(&o, &s, err, sizeof(err)), -ZC_EINVAL);
    assert_non_null(strstr(err, "cap.fifo: not a regular file: give --dev"));
    assert_true(s.bad_input);
    fclose(w);
}

/* Item 6: a last line without its newline is refused (a cut "ofs=40960"
 * would read "ofs=40"...), in the capture and in a side input. */
static void test_cut_last_line_is_refused(void **state)
{
    static const char *const lines[] = {
        "000 100.000000 cat-10 mm_filemap_get_pages: dev=7:0 ino=1f "
        "ofs=0-4095",
        "000 100.001000 cat-10 mm_filemap_add_to_page_cache: dev 7:0 ino 1f "
        "pfn=0x1 ofs=0 order=1",
    };
    zc_tracefs_options o = zc_tracefs_options_default();
    char want[1024];

    (void)state;
    o.input = capture_of("cut.trace", lines, 2, true);
    o.access = zt_tmp_path("cut.zca.txt");
    o.dev = 7u << 20;
    o.dev_set = true;
    snprintf(want, sizeof(want), "%s:2: the last line has no newline", o.input);
    refused(&o, -ZC_EFORMAT, true, want);
    o.dev_set = false; /* the first pass sees it too */
    refused(&o, -ZC_EFORMAT, true, want);
    o = capture_options(DATA "capture.trace");
    o.access = zt_tmp_path("cut.zca.txt");
    o.sizes = zt_write_tmp("cut.sizes", "13 4000\n804 40", 14);
    snprintf(want, sizeof(want), "%s:2: the last line has no newline", o.sizes);
    refused(&o, -ZC_EFORMAT, true, want);
}

/* Item 8: an access of more pages than one record holds, or a bio of
 * more than 4 GiB, is refused at its line before any page is walked
 * (2^63 bytes would walk for days), whatever its device. */
static void test_huge_ranges_are_refused_at_their_line(void **state)
{
    static const char *const bad[][2] = {
        /* 2^20 + 1 pages: the first case main gets wrong (blaming the
         * output); the next ones it would walk for days */
        {"  cat-1 [001] ..... 9999.000000: mm_filemap_get_pages: dev=7:0 "
         "ino=d ofs=0-4294971391",
         ":180: an access of 1048577 pages: more than the 1048576 pages"},
        {"  cat-1 [001] ..... 9999.000000: mm_filemap_get_pages: dev=7:0 "
         "ino=d ofs=0-9223372036854775807",
         ":180: an access of 2251799813685248 pages"},
        {"  cat-1 [001] ..... 9999.000000: mm_filemap_map_pages: dev=8:0 "
         "ino=d ofs=0-9223372036854775807",
         ":180: an access of 2251799813685248 pages"},
        {"  cat-1 [001] ..... 9999.000000: block_bio_queue: 7,0 R 0 + "
         "4294967295 [cat]",
         ":180: a bio of 4294967295 sectors: more than 4 GiB"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *path = capture_plus("huge.trace", bad[i][0]);
        zc_tracefs_options o = capture_options(path);
        char want[1024];
        o.access = zt_tmp_path("huge.zca");
        o.blkparse = zt_tmp_path("huge.blkparse");
        snprintf(want, sizeof(want), "%s%s", path, bad[i][1]);
        refused(&o, -ZC_EFORMAT, true, want);
    }
}

/* Item 9: a folio order above x86-64's MAX_PAGE_ORDER (10) is refused as
 * too large, also one whose digits pass 2^64; order 10 is taken. */
static void test_folio_orders_above_10_are_too_large(void **state)
{
    static const char *const bad[][2] = {
        {"order=11", ":1: order 11 too large: a folio is at most order 10"},
        {"order=99999999999999999999999",
         ":1: order 99999999999999999999999 too large"},
    };
    zc_tracefs_options o = zc_tracefs_options_default();
    zc_tracefs_summary s;
    char line[256], want[1024], err[512];
    const char *lines[] = {line};

    (void)state;
    o.dev = 7u << 20;
    o.dev_set = true;
    o.access = zt_tmp_path("order.zca.txt");
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        snprintf(line, sizeof(line),
                 "000 100.0 cat-10 mm_filemap_add_to_page_cache: dev 7:0 ino "
                 "1f pfn=0x1 ofs=0 %s",
                 bad[i][0]);
        o.input = capture_of("order.trace", lines, 1, false);
        snprintf(want, sizeof(want), "%s%s", o.input, bad[i][1]);
        refused(&o, -ZC_EFORMAT, true, want);
    }
    snprintf(line, sizeof(line),
             "000 100.0 cat-10 mm_filemap_add_to_page_cache: dev 7:0 ino 1f "
             "pfn=0x1 ofs=0 order=10");
    o.input = capture_of("order.trace", lines, 1, false);
    assert_int_equal(zc_tracefs_convert(&o, &s, err, sizeof(err)), 0);
    assert_int_equal(s.gets, 1024);
}

/* Item 15: one rule for reorderings across CPUs, the first event as any
 * other: up to 1 ms older than the newest event is taken at the newest
 * time (the stream never goes back) and counted; more is refused naming
 * the newest event's line. */
static void test_cross_cpu_reorderings_have_one_rule(void **state)
{
    static const char *const first[] = {
        "001 100.000010 cat-10 mm_filemap_get_pages: dev=7:0 ino=1f "
        "ofs=0-4095",
        "000 100.000000 cat-11 mm_filemap_get_pages: dev=7:0 ino=1f "
        "ofs=4096-8191",
        "000 100.000005 cat-11 mm_filemap_get_pages: dev=7:0 ino=1f "
        "ofs=8192-12287",
        "000 100.000020 cat-11 mm_filemap_get_pages: dev=7:0 ino=1f "
        "ofs=12288-16383",
    };
    static const char *const later[] = {
        "001 100.000000 cat-10 mm_filemap_get_pages: dev=7:0 ino=1f "
        "ofs=0-4095",
        "001 100.500000 cat-10 mm_filemap_get_pages: dev=7:0 ino=1f "
        "ofs=0-4095",
        "000 100.001000 cat-11 mm_filemap_get_pages: dev=7:0 ino=1f "
        "ofs=0-4095",
    };
    static const uint64_t want_ns[] = {0, 0, 0, 10000};
    zc_tracefs_options o = zc_tracefs_options_default();
    zc_tracefs_summary s;
    zc_trace *t;
    zc_request req;
    char err[512], want[1024];
    size_t n = 0;

    (void)state;
    o.dev = 7u << 20;
    o.dev_set = true;
    o.input = capture_of("first.trace", first, 4, false);
    o.access = zt_tmp_path("first.zca.txt");
    assert_int_equal(zc_tracefs_convert(&o, &s, err, sizeof(err)), 0);
    assert_int_equal(s.reordered, 2);
    assert_int_equal(zc_trace_open(&o.access, 1, NULL, &t, err, sizeof(err)),
                     0);
    for (; zc_trace_next(t, &req) == 1; n++) {
        assert_true(n < 4);
        assert_int_equal(req.time_ns, want_ns[n]);
    }
    zc_trace_close(t);
    assert_int_equal(n, 4);

    o.input = capture_of("later.trace", later, 3, false);
    o.access = zt_tmp_path("later.zca.txt");
    snprintf(want, sizeof(want),
             "%s:3: an event 0.499000000 s older than line 2's, of another "
             "CPU",
             o.input);
    refused(&o, -ZC_EFORMAT, true, want);
}

/* Item 16: an access stream's read_ahead_kb within the readers' limit
 * (ZC_READ_AHEAD_KB_MAX), or refused as an option. */
static void test_read_ahead_is_checked_with_the_readers_limit(void **state)
{
    zc_tracefs_options o = capture_options(DATA "capture.trace");
    zc_tracefs_summary s;
    zc_session *ses;
    const char *path;
    char err[512];

    (void)state;
    o.access = zt_tmp_path("ra.zca");
    o.read_ahead_set = true;
    o.read_ahead_kb = 99999999999u;
    refused(&o, -ZC_EINVAL, true, "--read-ahead-kb 99999999999: want KiB");
    o.read_ahead_kb = ZC_READ_AHEAD_KB_MAX + 1u;
    refused(&o, -ZC_EINVAL, true, "--read-ahead-kb 4194305");
    o.read_ahead_kb = ZC_READ_AHEAD_KB_MAX;
    assert_int_equal(zc_tracefs_convert(&o, &s, err, sizeof(err)), 0);
    path = o.access; /* the session reads the header field */
    assert_int_equal(zc_session_open(&path, 1,
                                     &(zc_session_options){.no_content = true},
                                     &ses, err, sizeof(err)),
                     0);
    zc_session_close(ses);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trace_pipe_converts_to_the_committed_stream),
        cmocka_unit_test(test_trace_cmd_report_converts_like_trace_pipe),
        cmocka_unit_test(test_kernel_ops_and_pack_read_back),
        cmocka_unit_test(test_eviction_is_a_delete_in_reclaim_or_by_kswapd),
        cmocka_unit_test(test_fault_around_maps_only_cached_pages),
        cmocka_unit_test(test_bad_line_names_file_and_line_and_leaves_nothing),
        cmocka_unit_test(test_long_and_nul_lines_are_bad_input),
        cmocka_unit_test(test_inputs_that_cannot_be_read_are_refused),
        cmocka_unit_test(test_capture_without_the_device_is_refused),
        cmocka_unit_test(test_options_are_checked),
        cmocka_unit_test(test_failure_removes_only_its_own_files),
        cmocka_unit_test(test_outputs_never_overwrite_inputs_or_each_other),
        cmocka_unit_test(test_side_inputs_must_be_regular_files),
        cmocka_unit_test(test_without_dev_several_devices_are_refused),
        cmocka_unit_test(test_without_dev_a_fifo_is_refused),
        cmocka_unit_test(test_cut_last_line_is_refused),
        cmocka_unit_test(test_huge_ranges_are_refused_at_their_line),
        cmocka_unit_test(test_folio_orders_above_10_are_too_large),
        cmocka_unit_test(test_cross_cpu_reorderings_have_one_rule),
        cmocka_unit_test(test_read_ahead_is_checked_with_the_readers_limit),
    };
    return cmocka_run_group_tests(tests, zt_tmpdir_setup, zt_tmpdir_teardown);
}
