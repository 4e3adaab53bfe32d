/*
 * test_fidelity.c - the fidelity run (zc_fidelity_*, zcache_sim.h): a
 * page-cache model set beside the kernel's own page cache.
 *
 * The eviction matcher and the median of the resident samples on small
 * hand-made inputs whose answers are worked out here: a shift by
 * evictions only one side makes costs only them (the 30 pages
 * before a window of 26), local disorder within the window is forgiven,
 * a loop is not matched a turn off; the median weighs each count by the
 * requests that saw it (50, not the 26 of the samples' middle).  The
 * invariant of the run: a kernel stream that is the lru model's own op
 * stream (made through a session and zc_session_ops_writer(), as
 * zcache-replay --save-ops makes it) beside an access stream whose
 * samples are all the same gives the lru model equal gets, puts and
 * curves and an overlap of 1, in both size modes; with every 7th put
 * dropped the puts and curves differ (the overlap stays 1: the kernel's
 * evictions are all the model's); with 150 evictions of other pages first
 * only those are missed.  A long stream (a loop, 512K requests in the
 * quick tier) runs in a heap that does not grow with it.  On the shipped
 * recording traces/build-c, each row equals a session replay of that
 * model at that size (what tests/fidelity.sh checks of the tool's JSON
 * against zcache-replay), the median is the one worked out from the
 * stream apart, and the totals equal build-c.info's.
 * Failures are return codes with messages naming the file: missing
 * streams, another recording's pack, a stream that is not an access
 * stream, streams of two recordings, no samples, bad options, a damaged
 * stream, a progress callback that stops the run.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <malloc.h>
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
#define TRACES ZC_SOURCE_DIR "/traces/"

/* ---- the matcher and the median ----------------------------------------- */

static uint64_t match(const zc_fidelity_page *k, size_t nk,
                      const zc_fidelity_page *m, size_t nm, uint64_t w)
{
    uint64_t matched = UINT64_MAX;

    assert_int_equal(zc_fidelity_match(k, nk, m, nm, w, &matched), 0);
    return matched;
}

/* n pages of inode ino, indexes from first, into p. */
static zc_fidelity_page *pages_of(zc_fidelity_page *p, uint64_t ino,
                                  uint64_t first, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (zc_fidelity_page){ino, first + i};
    return p + n;
}

static void test_matcher_pairs_pages_near_their_aligned_point(void **state)
{
    const zc_fidelity_page a = {1, 0}, b = {1, 1}, c = {2, 0};
    const zc_fidelity_page k[] = {a, b, c}, m[] = {b, a, c};

    (void)state;
    /* Window 1: aligned by b then c (kernel 1 with model 0, kernel 2 with
     * model 2: the longest chain, no jump beyond 1), so a's aligned point
     * is 0 (none before it: A), b's 0, c's 2; a at 1 is within 1 of 0:
     * all three. */
    assert_int_equal(match(k, 3, m, 3, 1), 3);
    /* Window 0: every eviction skipped is a jump.  b then c (2 pairs, a
     * jump over a: 2 - 1) ties with b alone (1 - 0): the shorter is kept,
     * so c's point stays 0 and only b, at its point, matches. */
    assert_int_equal(match(k, 3, m, 3, 0), 1);
    /* the same inode and index: (1, 2) is not (2, 1) */
    assert_int_equal(
        match(&(zc_fidelity_page){1, 2}, 1, &(zc_fidelity_page){2, 1}, 1, 9),
        0);
    /* nothing on either side */
    assert_int_equal(match(NULL, 0, m, 3, 5), 0);
    assert_int_equal(match(k, 3, NULL, 0, 5), 0);
}

static void test_matcher_takes_each_model_eviction_once(void **state)
{
    const zc_fidelity_page a = {7, 3}, x = {8, 0}, y = {9, 0};
    /* Kernel a three times, the model once: one match. */
    const zc_fidelity_page k2[] = {a, a, a}, m2[] = {a};
    /* Kernel a at 1 and 2, the model a at 0 and 2: aligned (window 1) by
     * a, a at model 0 then 2, the first takes model 0, the second model 2
     * (the earliest free one within 1 of its point). */
    const zc_fidelity_page k[] = {x, a, a}, m[] = {a, y, a};
    /* Window edges: model a at 3 is 3 from A = 0.  With a window of 2 the
     * chain of that one pair jumps 1 and is worth 1 - 1 = 0: not kept, the
     * point stays 0 and a is not within 2 of it; with 3 it is kept. */
    const zc_fidelity_page k3[] = {a}, m3[] = {x, x, x, a};

    (void)state;
    assert_int_equal(match(k2, 3, m2, 1, 100), 1);
    assert_int_equal(match(k, 3, m, 3, 1), 2);
    assert_int_equal(match(k3, 1, m3, 4, 2), 0);
    assert_int_equal(match(k3, 1, m3, 4, 3), 1);
    assert_int_equal(match(k3, 1, m3, 4, UINT64_MAX), 1);
}

/* The case: kernel and model evict the same 950 pages in the same
 * order, the kernel's shifted by 30 pages it alone evicts first (cached
 * before the recording); with a window of 26 (less than the shift), the
 * match by position found none of them.  Aligned, the shift costs only
 * the 30. */
static void test_matcher_aligns_a_shift_by_one_sides_evictions(void **state)
{
    zc_fidelity_page k[1000], m[1000], *e;

    (void)state;
    e = pages_of(k, 99, 0, 30); /* cached before the recording */
    pages_of(e, 5, 0, 950);
    pages_of(m, 5, 0, 950);
    assert_int_equal(match(k, 980, m, 950, 26), 950);
    assert_int_equal(match(k, 980, m, 950, 0), 950);
    /* the other way round: 30 the model alone evicts first */
    assert_int_equal(match(m, 950, k, 980, 26), 950);
    /* and 30 more that only the kernel evicts, in the middle */
    e = pages_of(k, 5, 0, 400);
    e = pages_of(e, 98, 0, 30);
    pages_of(e, 5, 400, 550);
    assert_int_equal(match(k, 980, m, 950, 26), 950);
    /* a shift of several windows costs nothing more */
    {
        static zc_fidelity_page k2[20000], m2[20000];
        e = pages_of(k2, 99, 0, 5000);
        pages_of(e, 5, 0, 15000);
        pages_of(m2, 5, 0, 15000);
        assert_int_equal(match(k2, 20000, m2, 15000, 100), 15000);
    }
}

/* The kernel reclaims in batches from lists that are not an exact LRU:
 * within the window the order does not matter, past it, it does (as long
 * as enough evictions keep their order to align by: here one in four). */
static void test_matcher_forgives_local_order_within_the_window(void **state)
{
    static zc_fidelity_page k[4096], m[4096];

    (void)state;
    pages_of(m, 3, 0, 4096);
    /* each batch of 4 taken in reverse: a kernel eviction's aligned point
     * (the last in-order pair's) is at most 7 before its model eviction */
    for (size_t i = 0; i < 4096; i++)
        k[i] = (zc_fidelity_page){3, (i / 4) * 4 + 3 - i % 4};
    assert_int_equal(match(k, 4096, m, 4096, 8), 4096);
    assert_true(match(k, 4096, m, 4096, 2) < 4096);
    /* equal orders that loop over a few more pages than the window (each
     * page evicted every 1100 evictions): every one matches, not the
     * page's eviction a turn before or after */
    for (size_t i = 0; i < 4096; i++)
        k[i] = m[i] = (zc_fidelity_page){4, i % 1100};
    assert_int_equal(match(k, 4096, m, 4096, 1000), 4096);
}

static void test_matcher_refuses_bad_arguments(void **state)
{
    const zc_fidelity_page a = {1, 1};
    uint64_t n;

    (void)state;
    assert_int_equal(zc_fidelity_match(NULL, 1, &a, 1, 1, &n), -ZC_EINVAL);
    assert_int_equal(zc_fidelity_match(&a, 1, NULL, 1, 1, &n), -ZC_EINVAL);
    assert_int_equal(zc_fidelity_match(&a, 1, &a, 1, 1, NULL), -ZC_EINVAL);
}

static void test_resident_median_weighs_counts_by_requests(void **state)
{
    zc_resident_sample odd[] = {{50, 1}, {10, 1}, {30, 1}};
    zc_resident_sample even[] = {{40, 1}, {10, 1}, {30, 1}, {20, 1}};
    zc_resident_sample one[] = {{7, 3}};
    zc_resident_sample none[] = {{7, 0}, {9, 0}};
    /* The cache: 1 to 49 pages while it fills (a request each),
     * then 50 and 51 for 950 requests each: over the samples the middle
     * one is 26, over the requests 50. */
    zc_resident_sample fill[51];
    /* the same count twice adds up: 5 for 3 + 2 requests outweighs 9 */
    zc_resident_sample twice[] = {{5, 3}, {9, 4}, {5, 2}};

    (void)state;
    assert_int_equal(zc_resident_median(odd, 3), 30);
    /* sorted in place: the least and the greatest at the ends */
    assert_int_equal(odd[0].pages, 10);
    assert_int_equal(odd[2].pages, 50);
    /* of 10 20 30 40, the upper: rank R / 2 */
    assert_int_equal(zc_resident_median(even, 4), 30);
    assert_int_equal(zc_resident_median(one, 1), 7);
    assert_int_equal(zc_resident_median(none, 2), 0);
    assert_int_equal(zc_resident_median(NULL, 0), 0);
    for (uint64_t i = 0; i < 49; i++)
        fill[i] = (zc_resident_sample){i + 1, 1};
    fill[49] = (zc_resident_sample){50, 950};
    fill[50] = (zc_resident_sample){51, 950};
    assert_int_equal(zc_resident_median(fill, 51), 50);
    assert_int_equal(zc_resident_median(twice, 3), 5);
    assert_string_equal(zc_fidelity_size_name(ZC_FIDELITY_SIZE_KERNEL),
                        "kernel");
    assert_string_equal(zc_fidelity_size_name(ZC_FIDELITY_SIZE_MEDIAN),
                        "median");
    assert_null(zc_fidelity_size_name(ZC_FIDELITY_SIZES));
}

/* ---- a kernel stream that is the model's own ---------------------------- */

/* tests/fidelity.sh's stream: 4000 requests over 7 inodes (a hot set and
 * a cold tail, a tenth of them writes), resident samples constant at 100
 * pages (none with !samples). */
static void write_stream(const char *path, bool samples)
{
    FILE *f = fopen(path, "w");
    uint64_t s = 12345;
    double t = 0;

    assert_non_null(f);
    fprintf(f, "zca-text 1\nmeta page_size 4096\nmeta read_ahead_kb 128\n");
    for (int i = 0; i < 4000; i++) {
        unsigned r, ino, idx;
        s = (s * 1103515245 + 12345) % 2147483648u;
        t += 0.001;
        if (samples && i % 50 == 0)
            fprintf(f, "%.6f resident 7:0 100\n", t);
        r = (unsigned)(s / 65536 % 100);
        ino = 2 + (unsigned)(s / 256 % 7);
        idx = r < 60 ? (unsigned)(s / 4096 % 40) : (unsigned)(s / 8192 % 300);
        fprintf(f, "%.6f %s 7:0 %u %u %u\n", t, r % 10 == 3 ? "w" : "r", ino,
                idx, 1 + (unsigned)(s / 1024 % 4));
    }
    fprintf(f, "end\n");
    assert_int_equal(fclose(f), 0);
}

/* The lru model's op stream of zca at 100 pages, saved at path (the text
 * form when it ends in ".txt"), as zcache-replay --page-cache 100 --save-ops
 * saves it. */
static void save_model_ops(const char *zca, const char *path)
{
    zc_session_run_options ro = {.page_cache_pages = 100};
    zc_session *s;
    zc_ops_writer *w;
    char err[512];

    assert_int_equal(zc_session_open(&zca, 1, NULL, &s, err, sizeof(err)), 0);
    assert_int_equal(zc_session_ops_writer(s, path, -1, 100, &w), 0);
    ro.save_ops = w;
    assert_int_equal(zc_session_run(s, &ro), 0);
    assert_int_equal(zc_ops_writer_close(w, err, sizeof(err)), 0);
    zc_session_close(s);
}

/* The text op stream at from, every 7th put left out when drop, at to. */
static uint64_t copy_ops(const char *from, const char *to, bool drop)
{
    FILE *in = fopen(from, "r"), *out = fopen(to, "w");
    uint64_t puts = 0;
    char line[65536];

    assert_non_null(in);
    assert_non_null(out);
    while (fgets(line, sizeof(line), in))
        if (strncmp(line, "put", 3) || !drop || ++puts % 7)
            fputs(line, out);
    fclose(in);
    assert_int_equal(fclose(out), 0);
    return puts / 7;
}

static const uint64_t mirror_caps[] = {1u << 20, 64u << 10, 256u << 10};
static const char *const lru[] = {"lru"};

static zc_fidelity *run_mirror(const char *name)
{
    zc_fidelity_options o = {.models = lru,
                             .nmodels = 1,
                             .capacities = mirror_caps,
                             .ncapacities = ARRAY_LEN(mirror_caps)};
    zc_fidelity *f;
    char err[1024];
    int rc = zc_fidelity_run(zt_tmp_path(name), &o, &f, err, sizeof(err));

    if (rc)
        fail_msg("%s: %s", name, err);
    return f;
}

static void test_the_models_own_stream_matches_exactly(void **state)
{
    const zc_fidelity_result *r;
    zc_fidelity *f;

    (void)state;
    write_stream(zt_tmp_path("m.zca"), true);
    save_model_ops(zt_tmp_path("m.zca"), zt_tmp_path("m.kernel.zct"));
    f = run_mirror("m");
    r = zc_fidelity_get(f);
    assert_int_equal(r->nrows, 2);
    assert_int_equal(r->samples, 1);
    assert_int_equal(r->median_sample, 100);
    assert_int_equal(r->window, 100);
    assert_int_equal(r->requests, 4000);
    assert_true(r->kernel_gets > 1000 && r->kernel_puts > 1000);
    assert_int_equal(r->kernel_meta_gets + r->kernel_meta_puts, 0);
    assert_string_equal(r->content, "synth");
    assert_true(r->read_ahead_known);
    assert_int_equal(r->read_ahead_kb, 128);
    assert_string_equal(r->read_ahead_from, "header");
    /* sorted, each once */
    assert_int_equal(r->ncapacities, 3);
    assert_int_equal(r->capacities[0], 64u << 10);
    assert_int_equal(r->capacities[2], 1u << 20);
    for (size_t i = 0; i < r->nrows; i++) {
        const zc_fidelity_row *row = &r->rows[i];
        assert_string_equal(row->model, "lru");
        assert_int_equal(row->size,
                         i ? ZC_FIDELITY_SIZE_MEDIAN : ZC_FIDELITY_SIZE_KERNEL);
        assert_int_equal(row->capacity_pages, 100);
        assert_int_equal(row->gets, r->kernel_gets);
        assert_int_equal(row->puts, r->kernel_puts);
        assert_int_equal(row->matched, r->kernel_puts);
        assert_true(row->overlap == 1.0);
        assert_false(row->drift);
        assert_int_equal(row->synthetic, 0);
        for (size_t c = 0; c < r->ncapacities; c++) {
            const zc_fidelity_point *p = &row->curve[c];
            assert_int_equal(p->capacity_bytes, r->capacities[c]);
            assert_int_equal(p->model_zc_hits, p->kernel_zc_hits);
            assert_int_equal(p->model_zc_gets, p->kernel_zc_gets);
        }
        /* a curve that rises */
        assert_true(row->curve[0].kernel_zc_hits <
                    row->curve[2].kernel_zc_hits);
    }
    zc_fidelity_free(f);
}

/* Every 7th put of the model's own stream dropped: the kernel evicts
 * fewer pages than the model, and each of those the model evicts too, in
 * the same order: the overlap stays 1 (the alignment skips the model's
 * extra evictions); the puts and the curve show the difference. */
static void test_dropped_kernel_puts_show(void **state)
{
    const zc_fidelity_result *r, *m;
    zc_fidelity *f, *mf;
    uint64_t dropped;

    (void)state;
    write_stream(zt_tmp_path("p.zca"), true);
    save_model_ops(zt_tmp_path("p.zca"), zt_tmp_path("p.txt"));
    copy_ops(zt_tmp_path("p.txt"), zt_tmp_path("q.kernel.zct"), false);
    write_stream(zt_tmp_path("q.zca"), true);
    dropped = copy_ops(zt_tmp_path("p.txt"), zt_tmp_path("p.kernel.zct"), true);
    assert_true(dropped > 100);
    mf = run_mirror("q"); /* the text form reads as the binary one */
    f = run_mirror("p");
    m = zc_fidelity_get(mf);
    r = zc_fidelity_get(f);
    assert_true(m->rows[0].overlap == 1.0);
    assert_int_equal(r->kernel_puts, m->kernel_puts - dropped);
    for (size_t i = 0; i < r->nrows; i++) {
        const zc_fidelity_row *row = &r->rows[i];
        bool differs = false;
        assert_int_equal(row->gets, r->kernel_gets);
        assert_int_equal(row->puts, r->kernel_puts + dropped);
        assert_int_equal(row->matched, r->kernel_puts);
        for (size_t c = 0; c < r->ncapacities; c++)
            differs |=
                row->curve[c].model_zc_hits != row->curve[c].kernel_zc_hits;
        assert_true(differs);
    }
    zc_fidelity_free(mf);
    zc_fidelity_free(f);
}

/* The text op stream at from with n puts of pages of inode 99 (cached
 * before the recording, reclaimed first) before its first put, at to. */
static void prepend_puts(const char *from, const char *to, unsigned n)
{
    FILE *in = fopen(from, "r"), *out = fopen(to, "w");
    bool done = false;
    char line[65536];

    assert_non_null(in);
    assert_non_null(out);
    while (fgets(line, sizeof(line), in)) {
        if (!done && !strncmp(line, "put", 3)) {
            for (unsigned i = 0; i < n; i++)
                fprintf(out, "put 0 99 %u fill:0x0000000000000000\n", i);
            done = true;
        }
        fputs(line, out);
    }
    fclose(in);
    assert_int_equal(fclose(out), 0);
}

/* The case on a whole run: the kernel evicts 150 pages cached
 * before the recording first, then exactly what the model evicts.  The
 * window (the median, 100 pages) is less than the shift: matched by
 * position, hardly any eviction matched (a few pages the stream evicts
 * again a shift apart); aligned, every one of the model's, and the
 * overlap misses only the 150. */
static void test_a_shift_costs_only_the_shifted_evictions(void **state)
{
    const zc_fidelity_result *r;
    zc_fidelity *f;

    (void)state;
    write_stream(zt_tmp_path("s.zca"), true);
    save_model_ops(zt_tmp_path("s.zca"), zt_tmp_path("s.txt"));
    prepend_puts(zt_tmp_path("s.txt"), zt_tmp_path("s.kernel.zct"), 150);
    f = run_mirror("s");
    r = zc_fidelity_get(f);
    assert_int_equal(r->window, 100);
    for (size_t i = 0; i < r->nrows; i++) {
        const zc_fidelity_row *row = &r->rows[i];
        assert_int_equal(row->puts, r->kernel_puts - 150);
        assert_int_equal(row->matched, row->puts);
        assert_true(row->overlap == (double)row->puts / (double)r->kernel_puts);
    }
    zc_fidelity_free(f);
}

/* An access stream whose resident count climbs from 1 to 49 pages, one
 * request at each, then stays at 50 for 950 requests and at 51 for 950:
 * the median is 50 (the count for 95% of the run), not 26 (the middle of
 * the 51 samples).  The kernel stream is the lru model's own at 50. */
static void test_the_median_weighs_samples_by_requests(void **state)
{
    const char *zca = zt_tmp_path("w.zca");
    zc_session_run_options ro = {.page_cache_pages = 50};
    const zc_fidelity_result *r;
    zc_access_writer *w;
    zc_ops_writer *ow;
    zc_session *s;
    zc_fidelity *f;
    char err[512];
    uint64_t t = 0;

    (void)state;
    assert_int_equal(zc_access_writer_open(zca, NULL, &w, err, sizeof(err)), 0);
    for (uint64_t i = 0; i < 1949; i++) {
        uint64_t pages = i < 49 ? i + 1 : i < 999 ? 50 : 51;
        zc_request req = {.dev = 7u << 20,
                          .ino = 2 + i % 3,
                          .offset = (i * 7 % 120) * 4096,
                          .length = 4096,
                          .time_ns = ++t};
        if (i < 50 || i == 999)
            assert_int_equal(zc_access_write_resident(w, t, 7u << 20, pages),
                             0);
        assert_int_equal(zc_access_write(w, &req), 0);
    }
    assert_int_equal(zc_access_writer_close(w, err, sizeof(err)), 0);
    assert_int_equal(zc_session_open(&zca, 1, NULL, &s, err, sizeof(err)), 0);
    assert_int_equal(
        zc_session_ops_writer(s, zt_tmp_path("w.kernel.zct"), -1, 50, &ow), 0);
    ro.save_ops = ow;
    assert_int_equal(zc_session_run(s, &ro), 0);
    assert_int_equal(zc_ops_writer_close(ow, err, sizeof(err)), 0);
    zc_session_close(s);
    f = run_mirror("w");
    r = zc_fidelity_get(f);
    assert_int_equal(r->samples, 51);
    assert_int_equal(r->first_sample, 1);
    assert_int_equal(r->median_sample, 50);
    assert_int_equal(r->window, 50);
    assert_int_equal(r->rows[1].size, ZC_FIDELITY_SIZE_MEDIAN);
    assert_int_equal(r->rows[1].capacity_pages, 50);
    /* at 50 pages the model is the kernel stream's */
    assert_int_equal(r->rows[1].puts, r->kernel_puts);
    assert_true(r->rows[1].overlap == 1.0);
    zc_fidelity_free(f);
}

/* ---- memory that does not grow with the recording ----------------------- */

/* The heap in use (glibc's count: bytes handed out of the arenas and in
 * mapped blocks): not the resident set, and no clock. */
static size_t heap_in_use(void)
{
    struct mallinfo2 mi = mallinfo2();

    return mi.uordblks + mi.hblkhd;
}

/* The most heap in use seen at the run's progress reports (every 65536
 * requests or ops of each pass). */
static int watch_heap(void *ctx, const zc_fidelity_step *st)
{
    size_t *peak = ctx, now = heap_in_use();

    (void)st;
    if (now > *peak)
        *peak = now;
    return 0;
}

/* A recording of n one-page reads looping over 300 pages of one file, the
 * resident count 256 throughout, and its kernel stream: the lru model's
 * at 256 pages (every read a miss: a get, then from the 257th a put of the
 * page read 256 reads before), zero-filled pages.  Written fast: the
 * access stream is tiny, the kernel stream a few bytes an op. */
static void write_loop(const char *name, uint64_t n)
{
    char zca[4096], zct[4096], err[512];
    static unsigned char zero[4096];
    zc_access_writer_options ao = {.level = 1};
    zc_access_writer *w;
    zc_ops_writer *ow;
    zc_op init = {.kind = ZC_OP_INIT_FS, .page_size = 4096};

    snprintf(zca, sizeof(zca), "%s.zca", zt_tmp_path(name));
    snprintf(zct, sizeof(zct), "%s.kernel.zct", zt_tmp_path(name));
    assert_int_equal(zc_access_writer_open(zca, &ao, &w, err, sizeof(err)), 0);
    assert_int_equal(zc_ops_writer_open(zct, NULL, &ow, err, sizeof(err)), 0);
    assert_int_equal(zc_access_write_resident(w, 0, 7u << 20, 256), 0);
    assert_int_equal(zc_ops_write(ow, &init), 0);
    for (uint64_t i = 0; i < n; i++) {
        zc_request req = {.dev = 7u << 20,
                          .ino = 5,
                          .offset = i % 300 * 4096,
                          .length = 4096,
                          .time_ns = i};
        zc_op get = {.kind = ZC_OP_GET,
                     .key = zc_filekey_from_ino(5),
                     .index = i % 300,
                     .page_size = 4096};
        zc_op put = {.kind = ZC_OP_PUT,
                     .key = zc_filekey_from_ino(5),
                     .index = (i + 300 - 256) % 300,
                     .page_size = 4096,
                     .page = zero};
        assert_int_equal(zc_access_write(w, &req), 0);
        assert_int_equal(zc_ops_write(ow, &get), 0);
        if (i >= 256)
            assert_int_equal(zc_ops_write(ow, &put), 0);
    }
    assert_int_equal(zc_access_writer_close(w, err, sizeof(err)), 0);
    assert_int_equal(zc_ops_writer_close(ow, err, sizeof(err)), 0);
}

/* zcache-fidelity held the whole access stream in memory (64 bytes a
 * request) and every eviction of both sides (16 bytes each): 100M
 * requests ran out of 3 GB.  It reads the streams again instead, so the
 * heap it uses for half a million requests or four times as many is the
 * models', the matcher's window and the readers' buffers: a few MiB.
 * (Quick tier: 512K requests, where holding them took 32 MiB.) */
static void test_a_long_stream_is_read_again_not_held(void **state)
{
    const char *const models[] = {"lru"};
    uint64_t n = zt_scale(2u << 20, 1u << 19);
    size_t base, peak;
    zc_fidelity_options o = {.models = models,
                             .nmodels = 1,
                             .sizes = 1u << ZC_FIDELITY_SIZE_MEDIAN,
                             .no_curve = true,
                             .progress = watch_heap,
                             .progress_ctx = &peak};
    const zc_fidelity_result *r;
    zc_fidelity *f;
    char err[1024];

    (void)state;
    write_loop("long", n);
    peak = base = heap_in_use();
    if (zc_fidelity_run(zt_tmp_path("long"), &o, &f, err, sizeof(err)))
        fail_msg("%s", err);
    r = zc_fidelity_get(f);
    assert_int_equal(r->requests, n);
    assert_int_equal(r->median_sample, 256);
    assert_int_equal(r->kernel_puts, n - 256);
    assert_int_equal(r->rows[0].puts, n - 256);
    assert_true(r->rows[0].overlap == 1.0);
    zc_fidelity_free(f);
    print_message("%" PRIu64 " requests: %zu bytes of heap in use at the "
                  "peak\n",
                  n, peak - base);
    if (peak - base > (16u << 20))
        fail_msg("%" PRIu64 " requests: %zu bytes of heap in use at the "
                 "peak, at most 16 MiB wanted",
                 n, peak - base);
}

/* ---- the shipped recording ---------------------------------------------- */

/* build-c.info's figures: the count of the samples, the kernel stream's
 * gets and puts of every pool.  (Its median was the middle sample, by the
 * converter of the time: the run's is weighed by requests.) */
static void read_info(uint64_t *samples, uint64_t *gets, uint64_t *puts)
{
    size_t len;
    char *t = (char *)zt_read_file(TRACES "build-c.info", &len), *p;

    t[len] = '\0';
    assert_non_null(p = strstr(t, "resident pages: min "));
    assert_int_equal(sscanf(p,
                            "resident pages: min %*u, median %*u, max %*u "
                            "(%" SCNu64 " samples)",
                            samples),
                     1);
    assert_non_null(p = strstr(t, "kernel stream: "));
    assert_int_equal(
        sscanf(p, "kernel stream: %" SCNu64 " gets, %" SCNu64, gets, puts), 2);
    free(t);
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

/* The median resident count by its definition, worked out apart: every
 * request's count (the last sample of its file system) in an array,
 * sorted, the one at n / 2. */
static uint64_t requests_median(const char *path)
{
    zc_trace *t;
    zc_request req;
    uint64_t *v = NULL, median;
    size_t n = 0, cap = 0;
    int rc;

    assert_int_equal(zc_trace_open(&path, 1, NULL, &t, NULL, 0), 0);
    while ((rc = zc_trace_next(t, &req)) == 1) {
        uint64_t pages;
        if (zc_trace_resident(t, req.dev, &pages) != 1)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 4096;
            assert_non_null(v = realloc(v, cap * sizeof(*v)));
        }
        v[n++] = pages;
    }
    assert_int_equal(rc, 0);
    zc_trace_close(t);
    assert_true(n > 0);
    qsort(v, n, sizeof(*v), u64_cmp);
    median = v[n / 2];
    free(v);
    return median;
}

/* What zcache-replay --page-cache-model MODEL --page-cache SIZE --zcache
 * capacity=1M gives: the row's gets, puts and 1M point must be it. */
static void check_row_is_a_session_replay(const zc_fidelity_result *r,
                                          const zc_fidelity_row *row)
{
    const char *zca = r->access_path;
    zc_session_options so = {.model = row->model};
    zc_session_run_options ro = {0};
    zc_replay_stats st;
    zc_session *s;
    zc_cache *zc = zt_cache_new("capacity=1M", NULL);
    char err[512];

    assert_int_equal(zc_session_open(&zca, 1, &so, &s, err, sizeof(err)), 0);
    ro.page_cache_kernel = row->size == ZC_FIDELITY_SIZE_KERNEL;
    ro.page_cache_pages = row->capacity_pages;
    ro.zcache = zc;
    assert_int_equal(zc_session_run(s, &ro), 0);
    assert_int_equal(zc_session_stats(s, &st), 0);
    assert_int_equal(row->gets, st.accesses - st.pc_hits + st.readahead);
    assert_int_equal(row->puts, st.pc_evictions);
    assert_int_equal(row->readahead, st.readahead);
    assert_int_equal(row->curve[0].model_zc_hits, st.zc_hits);
    assert_int_equal(row->curve[0].model_zc_gets, st.zc_gets);
    assert_int_equal(st.requests, r->requests);
    zc_session_close(s);
    zc_cache_destroy(zc);
}

static void test_build_c_rows_are_session_replays(void **state)
{
    const uint64_t cap = 1u << 20;
    zc_fidelity_options o = {.capacities = &cap, .ncapacities = 1};
    const zc_fidelity_result *r;
    uint64_t median, samples, gets, puts;
    zc_fidelity *f;
    char err[1024];
    size_t nmodels = 0;

    (void)state;
    while (zc_page_cache_model_name(nmodels))
        nmodels++;
    read_info(&samples, &gets, &puts);
    median = requests_median(TRACES "build-c.zca");
    assert_int_equal(
        zc_fidelity_run(TRACES "build-c", &o, &f, err, sizeof(err)), 0);
    r = zc_fidelity_get(f);
    assert_string_equal(r->recording, TRACES "build-c");
    assert_string_equal(r->access_path, TRACES "build-c.zca");
    assert_string_equal(r->kernel_path, TRACES "build-c.kernel.zct");
    assert_string_equal(r->content, "pack:" TRACES "build-c.zcp");
    assert_string_equal(r->zcache_spec, "");
    assert_int_equal(r->page_size, 4096);
    assert_int_equal(r->read_ahead_kb, 2560);
    assert_int_equal(r->median_sample, median);
    assert_int_equal(r->window, median);
    assert_int_equal(r->samples, samples);
    assert_int_equal(r->kernel_gets + r->kernel_meta_gets, gets);
    assert_int_equal(r->kernel_puts + r->kernel_meta_puts, puts);
    assert_true(r->kernel_meta_gets > 0);
    /* every registered model, each at the kernel's size, then the median */
    assert_int_equal(r->nrows, 2 * nmodels);
    for (size_t i = 0; i < r->nrows; i++) {
        const zc_fidelity_row *row = &r->rows[i];
        assert_string_equal(row->model, zc_page_cache_model_name(i / 2));
        assert_int_equal(row->size, i % 2);
        assert_int_equal(row->capacity_pages, i % 2 ? median : r->first_sample);
        assert_true(row->matched <= r->kernel_puts);
        assert_true(row->overlap ==
                    (double)row->matched / (double)r->kernel_puts);
        assert_false(row->drift);
        /* the kernel's curve is pool 0's: its gets are pool 0's */
        assert_int_equal(row->curve[0].kernel_zc_gets, r->kernel_gets);
        assert_int_equal(row->curve[0].kernel_zc_hits,
                         r->rows[0].curve[0].kernel_zc_hits);
        check_row_is_a_session_replay(r, row);
    }
    zc_fidelity_free(f);
}

/* The access stream read, the kernel stream played, every replay: the
 * stages in order; a callback that says stop stops the run. */
struct steps {
    int seen[3];
    int stop_at; /* the stage to stop at, or -1 */
};

static int count_step(void *ctx, const zc_fidelity_step *st)
{
    struct steps *s = ctx;

    if (st->done == 0)
        s->seen[st->stage]++;
    if (st->stage == ZC_FIDELITY_STAGE_REPLAY) {
        assert_string_equal(st->model, "lru");
        assert_int_equal(st->replays, 2);
        assert_true(st->done <= st->total);
    }
    return (int)st->stage == s->stop_at;
}

static void test_progress_is_told_and_may_stop_the_run(void **state)
{
    const uint64_t caps[] = {1u << 20, 2u << 20};
    struct steps st = {.stop_at = -1};
    zc_fidelity_options o = {.models = lru,
                             .nmodels = 1,
                             .sizes = 1u << ZC_FIDELITY_SIZE_MEDIAN,
                             .capacities = caps,
                             .ncapacities = 2,
                             .progress = count_step,
                             .progress_ctx = &st};
    zc_fidelity *f;
    char err[1024];

    (void)state;
    assert_int_equal(
        zc_fidelity_run(TRACES "build-c.zca", &o, &f, err, sizeof(err)), 0);
    assert_int_equal(zc_fidelity_get(f)->nrows, 1);
    assert_int_equal(st.seen[ZC_FIDELITY_STAGE_LOAD], 1);
    assert_int_equal(st.seen[ZC_FIDELITY_STAGE_KERNEL], 1);
    assert_int_equal(st.seen[ZC_FIDELITY_STAGE_REPLAY], 2);
    zc_fidelity_free(f);
    for (int stop = 0; stop < 3; stop++) {
        st.stop_at = stop;
        assert_int_equal(zc_fidelity_open(TRACES "build-c.kernel.zct", &o, &f,
                                          err, sizeof(err)),
                         0);
        assert_int_equal(zc_fidelity_compare(f), -ZC_ECANCELED);
        assert_non_null(strstr(zc_fidelity_error(f), "stopped by the caller"));
        /* once per object */
        assert_int_equal(zc_fidelity_compare(f), -ZC_EINVAL);
        zc_fidelity_free(f);
    }
}

/* ---- failures ----------------------------------------------------------- */

/* zc_fidelity_run() on recording fails with rc, its message holding want
 * (and, with want2, that too); *out stays NULL. */
static void expect_failure(const char *recording, const zc_fidelity_options *o,
                           int rc, const char *want, const char *want2)
{
    zc_fidelity *f = (zc_fidelity *)1;
    char err[2048];

    int got = zc_fidelity_run(recording, o, &f, err, sizeof(err));

    if (got != rc)
        fail_msg("%s: %d (%s), not %d", recording, got, err, rc);
    assert_null(f);
    if (!strstr(err, want) || (want2 && !strstr(err, want2)))
        fail_msg("%s: '%s' lacks '%s'", recording, err, want);
}

/* dir/name as a link to the shipped file traces/from. */
static void link_trace(const char *dir, const char *from, const char *name)
{
    char src[4096], path[4096];

    snprintf(path, sizeof(path), "%s/%s", zt_tmp_path(dir), name);
    snprintf(src, sizeof(src), TRACES "%s", from);
    assert_int_equal(symlink(src, path), 0);
}

static const char *tmp_name(const char *dir, const char *name)
{
    static char path[4096];

    snprintf(path, sizeof(path), "%s/%s", zt_tmp_path(dir), name);
    return path;
}

/* A recording NAME in dir made of links {traces' file, its name here},
 * refused with rc and a message holding want and want2. */
struct refusal {
    const char *dir, *name, *links[4][2];
    int rc;
    const char *want, *want2;
};

static const struct refusal refusals[] = {
    /* a stream missing: the file named */
    {"e",
     "build-c",
     {{"build-c.zca", "build-c.zca"}, {"build-c.zcp", "build-c.zcp"}},
     -ZC_EIO,
     "build-c.kernel.zct",
     "No such file"},
    {"e", "nothing", {{NULL}}, -ZC_EIO, "nothing.zca", NULL},
    /* another recording's pack beside the access stream */
    {"o",
     "build-c",
     {{"build-c.zca", "build-c.zca"},
      {"build-c.kernel.zct", "build-c.kernel.zct"},
      {"grep-src.zcp", "build-c.zcp"}},
     -ZC_EINVAL,
     "another recording's pack",
     NULL},
    /* two streams of different recordings, each with its own pack */
    {"x",
     "build-c",
     {{"build-c.zca", "build-c.zca"},
      {"build-c.zcp", "build-c.zcp"},
      {"grep-src.kernel.zct", "build-c.kernel.zct"},
      {"grep-src.zcp", "grep-src.zcp"}},
     -ZC_EINVAL,
     "different recordings",
     NULL},
    /* a block trace, then an op stream, where the access stream should be */
    {"b",
     "build-c",
     {{"build-c.blkparse.zst", "build-c.zca"},
      {"build-c.kernel.zct", "build-c.kernel.zct"}},
     -ZC_EFORMAT,
     "not an access stream",
     "build-c.zca"},
    {"z",
     "build-c",
     {{"build-c.kernel.zct", "build-c.zca"},
      {"build-c.kernel.zct", "build-c.kernel.zct"},
      {"build-c.zcp", "build-c.zcp"}},
     -ZC_EFORMAT,
     "not an access stream",
     NULL},
};

static void test_missing_and_foreign_inputs_are_refused(void **state)
{
    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(refusals); i++) {
        const struct refusal *r = &refusals[i];
        char rec[4096];
        mkdir(zt_tmp_path(r->dir), 0700); /* (made by an earlier case) */
        for (size_t k = 0; k < 4 && r->links[k][0]; k++)
            link_trace(r->dir, r->links[k][0], r->links[k][1]);
        snprintf(rec, sizeof(rec), "%s", tmp_name(r->dir, r->name));
        expect_failure(rec, NULL, r->rc, r->want, r->want2);
    }
}

/* A stream a session saved (no pack of its own) names its recording:
 * grep-src's replay given as build-c's kernel stream is refused. */
static void test_a_saved_stream_of_another_recording_is_refused(void **state)
{
    (void)state;
    const char *src = TRACES "grep-src.zca";
    zc_session_run_options ro = {.page_cache_pages = 2000};
    zc_session *s;
    zc_ops_writer *w;

    mkdir(zt_tmp_path("saved"), 0700);
    link_trace("saved", "build-c.zca", "build-c.zca");
    link_trace("saved", "build-c.zcp", "build-c.zcp");
    assert_int_equal(zc_session_open(&src, 1, NULL, &s, NULL, 0), 0);
    assert_int_equal(
        zc_session_ops_writer(s, tmp_name("saved", "build-c.kernel.zct"), 1,
                              2000, &w),
        0);
    ro.save_ops = w;
    assert_int_equal(zc_session_run(s, &ro), 0);
    assert_int_equal(zc_ops_writer_close(w, NULL, 0), 0);
    zc_session_close(s);
    expect_failure(tmp_name("saved", "build-c"), NULL, -ZC_EINVAL,
                   "different recordings", "recording_pack_id");
}

static void test_damaged_or_unsampled_streams_fail_in_the_work(void **state)
{
    size_t len;
    unsigned char *zca = zt_read_file(TRACES "build-c.zca", &len);
    unsigned char *zct = zt_read_file(TRACES "build-c.kernel.zct", &len);
    char pfx[4096];

    (void)state;
    /* a cut access stream */
    assert_int_equal(mkdir(zt_tmp_path("c"), 0700), 0);
    zt_write_file(tmp_name("c", "build-c.zca"), zca, 2000);
    link_trace("c", "build-c.kernel.zct", "build-c.kernel.zct");
    link_trace("c", "build-c.zcp", "build-c.zcp");
    snprintf(pfx, sizeof(pfx), "%s", tmp_name("c", "build-c"));
    expect_failure(pfx, NULL, -ZC_EFORMAT, "build-c.zca", NULL);
    /* a cut kernel stream */
    assert_int_equal(mkdir(zt_tmp_path("k"), 0700), 0);
    zt_write_file(tmp_name("k", "build-c.kernel.zct"), zct, 5000);
    link_trace("k", "build-c.zca", "build-c.zca");
    link_trace("k", "build-c.zcp", "build-c.zcp");
    snprintf(pfx, sizeof(pfx), "%s", tmp_name("k", "build-c"));
    expect_failure(pfx, &(zc_fidelity_options){.no_curve = true}, -ZC_EFORMAT,
                   "build-c.kernel.zct", NULL);
    /* no resident samples */
    write_stream(zt_tmp_path("n.zca"), false);
    save_model_ops(zt_tmp_path("n.zca"), zt_tmp_path("n.kernel.zct"));
    expect_failure(zt_tmp_path("n"), NULL, -ZC_EFORMAT, "no resident samples",
                   "n.zca");
    free(zca);
    free(zct);
}

static void test_bad_options_are_refused_before_the_work(void **state)
{
    const char *const nosuch[] = {"lru", "nosuch"};
    const uint64_t zero = 0, huge = (uint64_t)ZC_CAPACITY_MAX + 1;
    const char *rec = TRACES "build-c";

    (void)state;
    expect_failure(rec, &(zc_fidelity_options){.models = nosuch, .nmodels = 2},
                   -ZC_EINVAL, "no page-cache model 'nosuch'", NULL);
    expect_failure(
        rec, &(zc_fidelity_options){.capacities = &zero, .ncapacities = 1},
        -ZC_EINVAL, "capacity 0", NULL);
    expect_failure(
        rec, &(zc_fidelity_options){.capacities = &huge, .ncapacities = 1},
        -ZC_EINVAL, "at most 15 GiB", NULL);
    expect_failure(rec, &(zc_fidelity_options){.sizes = 4}, -ZC_EINVAL,
                   "size modes", NULL);
    expect_failure(rec, &(zc_fidelity_options){.zcache = "compressor=nosuch"},
                   -ZC_EINVAL, "compressor=nosuch", NULL);
    expect_failure(rec, &(zc_fidelity_options){.zcache = "page_size=8192"},
                   -ZC_EINVAL, "page_size=8192", NULL);
    /* the curve's capacities are its own: a spec naming one would be
     * dropped without a word */
    expect_failure(
        rec, &(zc_fidelity_options){.zcache = "capacity=4M,allocator=zbud"},
        -ZC_EINVAL, "names a capacity", NULL);
    expect_failure(
        rec,
        &(zc_fidelity_options){.content = "image:" ZC_SOURCE_DIR "/LICENSE"},
        -ZC_EINVAL, "cannot give file pages", NULL);
    expect_failure(rec,
                   &(zc_fidelity_options){.read_ahead_set = true,
                                          .read_ahead_kb = 1u << 23},
                   -ZC_EINVAL, "readahead", NULL);
    assert_int_equal(zc_fidelity_run(NULL, NULL, NULL, NULL, 0), -ZC_EINVAL);
    assert_int_equal(zc_fidelity_compare(NULL), -ZC_EINVAL);
    assert_null(zc_fidelity_get(NULL));
    assert_string_equal(zc_fidelity_error(NULL), "");
    zc_fidelity_free(NULL);
}

/* Opening reads headers only: the paths and the content are known, the
 * rows are there, no count yet. */
static void test_open_tells_the_inputs_before_the_work(void **state)
{
    const char *const models[] = {"linux", "lru", "linux"};
    zc_fidelity_options o = {.models = models,
                             .nmodels = 3,
                             .no_curve = true,
                             .read_ahead_set = true,
                             .read_ahead_kb = 0};
    const zc_fidelity_result *r;
    zc_fidelity *f;
    char err[1024];

    (void)state;
    assert_int_equal(
        zc_fidelity_open(TRACES "build-c", &o, &f, err, sizeof(err)), 0);
    r = zc_fidelity_get(f);
    assert_string_equal(r->kernel_path, TRACES "build-c.kernel.zct");
    assert_string_equal(r->content, "pack:" TRACES "build-c.zcp");
    assert_string_equal(r->read_ahead_from, "option");
    assert_int_equal(r->read_ahead_kb, 0);
    assert_int_equal(r->ncapacities, 0);
    /* a model named twice is one row each size, in the order named */
    assert_int_equal(r->nrows, 4);
    assert_string_equal(r->rows[0].model, "linux");
    assert_string_equal(r->rows[2].model, "lru");
    assert_int_equal(r->requests + r->kernel_gets + r->samples, 0);
    assert_int_equal(zc_fidelity_compare(f), 0);
    assert_true(r->requests > 0 && r->kernel_gets > 0);
    for (size_t i = 0; i < r->nrows; i++) {
        /* no readahead, no zcache: the gets are misses and write misses */
        assert_int_equal(r->rows[i].readahead, 0);
        assert_true(r->rows[i].gets > 0);
    }
    zc_fidelity_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matcher_pairs_pages_near_their_aligned_point),
        cmocka_unit_test(test_matcher_takes_each_model_eviction_once),
        cmocka_unit_test(test_matcher_aligns_a_shift_by_one_sides_evictions),
        cmocka_unit_test(test_matcher_forgives_local_order_within_the_window),
        cmocka_unit_test(test_matcher_refuses_bad_arguments),
        cmocka_unit_test(test_resident_median_weighs_counts_by_requests),
        cmocka_unit_test(test_the_models_own_stream_matches_exactly),
        cmocka_unit_test(test_dropped_kernel_puts_show),
        cmocka_unit_test(test_a_shift_costs_only_the_shifted_evictions),
        cmocka_unit_test(test_the_median_weighs_samples_by_requests),
        cmocka_unit_test(test_a_long_stream_is_read_again_not_held),
        cmocka_unit_test(test_build_c_rows_are_session_replays),
        cmocka_unit_test(test_progress_is_told_and_may_stop_the_run),
        cmocka_unit_test(test_missing_and_foreign_inputs_are_refused),
        cmocka_unit_test(test_a_saved_stream_of_another_recording_is_refused),
        cmocka_unit_test(test_damaged_or_unsampled_streams_fail_in_the_work),
        cmocka_unit_test(test_bad_options_are_refused_before_the_work),
        cmocka_unit_test(test_open_tells_the_inputs_before_the_work),
    };

    return cmocka_run_group_tests(tests, zt_tmpdir_setup, zt_tmpdir_teardown);
}
