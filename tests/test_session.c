/*
 * test_session.c - a recording opened, checked and replayed in one object
 * (zc_session_*, zcache_sim.h).
 *
 * The session must give exactly what the pipeline written by hand gives
 * (the trace, the pack its header names, the model with the header's
 * readahead, the replay), refuse what would make a wrong answer (another
 * recording's pack, a pipe, a source without file pages), say where, and
 * never return a stale page (verification on).
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

#include <cmocka.h>

#include "zcache_sim.h"
#include "zt_util.h"

#define TRACES ZC_SOURCE_DIR "/traces/"
#define BUILD_C TRACES "build-c.zca"

static zc_cache *cache(const char *spec)
{
    return zt_cache_new(spec, NULL);
}

/* The pipeline by hand: what a session must equal. */
static void replay_by_hand(const char *trace, const char *pack,
                           uint64_t pc_pages, const char *model, zc_cache *zc,
                           zc_replay_stats *out)
{
    zc_trace_options to = {0};
    zc_trace *t;
    zc_content *src;
    zc_replay *r;
    zc_request q;
    uint64_t kb;
    int rc;

    assert_int_equal(zc_trace_open(&trace, 1, &to, &t, NULL, 0), 0);
    assert_int_equal(zc_content_open(pack, 4096, &src, NULL, 0), 0);
    assert_int_equal(zc_replay_create(pc_pages, 4096, zc, src, &r), 0);
    assert_int_equal(zc_replay_set_model(r, model), 0);
    kb = strtoull(zc_trace_meta(t, "read_ahead_kb"), NULL, 10);
    assert_int_equal(zc_replay_set_read_ahead(r, kb), 0);
    while ((rc = zc_trace_next(t, &q)) == 1)
        assert_int_equal(zc_replay_request(r, &q), 0);
    assert_int_equal(rc, 0);
    assert_int_equal(zc_replay_stats_get(r, out), 0);
    zc_replay_destroy(r);
    zc_content_close(src);
    zc_trace_close(t);
}

static zc_session *open_ok(const char *path, const zc_session_options *o)
{
    zc_session *s = NULL;
    char err[512];
    int rc = zc_session_open(&path, 1, o, &s, err, sizeof(err));

    if (rc)
        fail_msg("%s: %s", path, err);
    return s;
}

static void test_session_equals_the_pipeline_by_hand(void **state)
{
    (void)state;
    static const char *const models[] = {"lru", "linux"};
    for (size_t m = 0; m < 2; m++) {
        zc_session_options so = {.model = models[m]};
        zc_session_run_options ro = {.page_cache_pages = 600};
        zc_cache *a = cache("capacity=1M"), *b = cache("capacity=1M");
        zc_replay_stats got, want;
        zc_stats za, zb;
        zc_session *s = open_ok(BUILD_C, &so);
        /* the pack its header names, beside it */
        assert_string_equal(zc_session_content(s),
                            "pack:" TRACES "build-c.zcp");
        assert_string_equal(zc_session_format(s), "access");
        assert_false(zc_session_is_ops(s));
        ro.zcache = a;
        assert_int_equal(zc_session_run(s, &ro), 0);
        assert_int_equal(zc_session_stats(s, &got), 0);
        replay_by_hand(BUILD_C, "pack:" TRACES "build-c.zcp", 600, models[m], b,
                       &want);
        assert_memory_equal(&got, &want, sizeof(got));
        assert_true(got.accesses > 0 && got.zc_gets > 0);
        zc_stats_get(a, &za);
        zc_stats_get(b, &zb);
        assert_int_equal(za.stored_pages, zb.stored_pages);
        assert_int_equal(za.compr_data_size, zb.compr_data_size);
        assert_int_equal(zc_session_requests(s), got.requests);
        zc_session_close(s);
        zc_cache_destroy(a);
        zc_cache_destroy(b);
    }
}

static void test_session_takes_read_ahead_from_header_unless_given(void **state)
{
    (void)state;
    zc_session_options so = {0};
    const char *from = NULL;
    uint64_t kb = 0;
    zc_session *s = open_ok(BUILD_C, &so);

    assert_int_equal(zc_session_read_ahead(s, &kb, &from), 1);
    assert_string_equal(from, "header");
    assert_int_equal(kb,
                     strtoull(zc_session_meta(s, "read_ahead_kb"), NULL, 10));
    zc_session_close(s);
    so.read_ahead_set = true;
    so.read_ahead_kb = 0;
    s = open_ok(BUILD_C, &so);
    assert_int_equal(zc_session_read_ahead(s, &kb, &from), 1);
    assert_string_equal(from, "option");
    assert_int_equal(kb, 0);
    zc_session_close(s);
    /* a block trace has no header: the model keeps its default */
    s = open_ok(TRACES "build-c.blkparse.zst", NULL);
    assert_int_equal(zc_session_read_ahead(s, &kb, &from), 0);
    zc_session_close(s);
}

static void test_session_refuses_a_pipe(void **state)
{
    (void)state;
    const char *fifo = zt_tmp_path("fifo");
    zc_session *s = NULL;
    char err[512];

    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(zc_session_open(&fifo, 1, NULL, &s, err, sizeof(err)),
                     -ZC_EIO);
    assert_null(s);
    assert_non_null(strstr(err, "fifo: not a regular file"));
}

static void test_session_refuses_another_recordings_pack(void **state)
{
    (void)state;
    const char *path = BUILD_C;
    zc_session_options so = {.content = "pack:" TRACES "grep-src.zcp"};
    zc_session *s = NULL;
    char err[512];

    assert_int_equal(zc_session_open(&path, 1, &so, &s, err, sizeof(err)),
                     -ZC_EINVAL);
    assert_null(s);
    assert_non_null(strstr(err, "build-c.zca"));
    assert_non_null(strstr(err, "another recording's pack"));
}

static void test_session_refuses_unknown_model_and_missing_file(void **state)
{
    (void)state;
    const char *path = BUILD_C, *none = TRACES "no-such.zca";
    zc_session_options so = {.model = "clock-pro"};
    zc_session *s = NULL;
    char err[512];

    assert_int_equal(zc_session_open(&path, 1, &so, &s, err, sizeof(err)),
                     -ZC_EINVAL);
    assert_non_null(strstr(err, "no page-cache model 'clock-pro'"));
    assert_int_equal(zc_session_open(&none, 1, NULL, &s, err, sizeof(err)),
                     -ZC_EIO);
    assert_non_null(strstr(err, "no-such.zca"));
}

/* An image has block pages only: an access stream's file pages are
 * refused at the first file request, with what to use instead. */
static void test_session_source_without_file_pages_is_named(void **state)
{
    (void)state;
    const char *img = zt_write_tmp("img", "x", 1);
    char spec[600];
    zc_session_options so = {.content = spec};
    zc_session_run_options ro = {.page_cache_pages = 100};
    zc_session *s;

    snprintf(spec, sizeof(spec), "image:%s", img);
    s = open_ok(BUILD_C, &so);
    ro.zcache = cache("capacity=1M");
    assert_int_equal(zc_session_run(s, &ro), -ZC_EINVAL);
    assert_non_null(strstr(zc_session_error(s), "cannot give file pages"));
    zc_cache_destroy(ro.zcache);
    zc_session_close(s);
}

static int stop_at_second_call(void *ctx, const zc_session *s)
{
    int *calls = ctx;
    (void)s;
    return ++*calls == 2;
}

static void test_session_progress_stops_the_run(void **state)
{
    (void)state;
    zc_session_run_options ro = {.page_cache_pages = 100};
    zc_replay_stats st;
    int calls = 0;
    zc_session *s = open_ok(BUILD_C, NULL);

    ro.progress = stop_at_second_call;
    ro.progress_ctx = &calls;
    assert_int_equal(zc_session_run(s, &ro), -ZC_ECANCELED);
    assert_int_equal(calls, 2);
    assert_non_null(strstr(zc_session_error(s), "stopped at request"));
    /* counters stay readable: the requests before the stop */
    assert_int_equal(zc_session_stats(s, &st), 0);
    assert_int_equal(st.requests, 8192);
    /* a session runs once */
    assert_int_equal(zc_session_run(s, &ro), -ZC_EINVAL);
    zc_session_close(s);
}

/* The op stream a run saves, played again through a session into the same
 * zcache, gives the same zcache counters (it does not depend on the
 * zcache, DESIGN.md); with verification, no hit is ever stale. */
static void test_session_saved_op_stream_plays_the_same(void **state)
{
    (void)state;
    const char *zct = zt_tmp_path("run.zct");
    zc_session_run_options ro = {.page_cache_pages = 400, .verify = true};
    zc_replay_stats first, again;
    zc_ops_writer *w;
    zc_session *s = open_ok(BUILD_C, NULL);

    ro.zcache = cache("capacity=2M");
    assert_int_equal(zc_session_ops_writer(s, zct, 1, 400, &w), 0);
    ro.save_ops = w;
    assert_int_equal(zc_session_run(s, &ro), 0);
    assert_int_equal(zc_ops_writer_close(w, NULL, 0), 0);
    zc_session_stats(s, &first);
    zc_session_close(s);
    zc_cache_destroy(ro.zcache);
    assert_int_equal(first.zc_wrong, 0);

    s = open_ok(zct, NULL);
    assert_true(zc_session_is_ops(s));
    assert_string_equal(zc_session_format(s), "zct");
    assert_string_equal(zc_session_meta(s, "page_cache"), "400");
    assert_string_equal(zc_session_meta(s, "format"), "access");
    assert_string_equal(zc_session_content(s), "pack:" TRACES "build-c.zcp");
    memset(&ro, 0, sizeof(ro));
    ro.zcache = cache("capacity=2M");
    ro.verify = true;
    assert_int_equal(zc_session_run(s, &ro), 0);
    zc_session_stats(s, &again);
    assert_int_equal(again.zc_gets, first.zc_gets);
    assert_int_equal(again.zc_hits, first.zc_hits);
    assert_int_equal(again.zc_puts, first.zc_puts);
    assert_int_equal(again.zc_stored, first.zc_stored);
    assert_int_equal(again.zc_wrong, 0);
    zc_session_close(s);
    zc_cache_destroy(ro.zcache);
}

static void test_session_follows_the_kernel_only_with_samples(void **state)
{
    (void)state;
    zc_session_run_options ro = {.page_cache_kernel = true};
    zc_replay_stats st;
    zc_session *s = open_ok(BUILD_C, NULL);

    assert_int_equal(zc_session_run(s, &ro), 0);
    zc_session_stats(s, &st);
    assert_true(st.pc_hits > 0);
    zc_session_close(s);
    /* a block trace records no resident count */
    s = open_ok(TRACES "build-c.blkparse.zst", NULL);
    assert_int_equal(zc_session_run(s, &ro), -ZC_EFORMAT);
    assert_non_null(strstr(zc_session_error(s), "records none"));
    zc_session_close(s);
}

static void test_session_refuses_zcache_of_another_page_size(void **state)
{
    (void)state;
    zc_session_run_options ro = {.page_cache_pages = 100};
    zc_session *s = open_ok(BUILD_C, NULL);

    ro.zcache = cache("capacity=1M,page_size=8192");
    assert_int_equal(zc_session_run(s, &ro), -ZC_EINVAL);
    assert_non_null(strstr(zc_session_error(s), "8192"));
    zc_cache_destroy(ro.zcache);
    zc_session_close(s);
}

static void test_session_without_content_takes_no_zcache(void **state)
{
    (void)state;
    zc_session_options so = {.no_content = true};
    zc_session_run_options ro = {.page_cache_pages = 100};
    zc_replay_stats st;
    zc_session *s = open_ok(BUILD_C, &so);

    ro.zcache = cache("capacity=1M");
    assert_int_equal(zc_session_run(s, &ro), -ZC_EINVAL);
    assert_non_null(strstr(zc_session_error(s), "no_content"));
    zc_cache_destroy(ro.zcache);
    zc_session_close(s);
    /* and without a zcache it runs: every read miss is a disk read */
    s = open_ok(BUILD_C, &so);
    ro.zcache = NULL;
    assert_int_equal(zc_session_run(s, &ro), 0);
    zc_session_stats(s, &st);
    assert_int_equal(st.zc_hits, 0);
    assert_true(st.disk_reads > 0 && st.disk_reads <= st.reads + st.readahead);
    zc_session_close(s);
}

/* An access stream of 8 KiB pages replays in 8 KiB pages unless the
 * caller says otherwise: its header says so. */
static void test_session_takes_page_size_from_header(void **state)
{
    (void)state;
    const char *path = zt_tmp_path("8k.zca");
    zc_access_writer_options wo = {.page_size = 8192};
    zc_request q = {.dev = 7, .ino = 12, .length = 8192};
    zc_session_run_options ro = {.page_cache_pages = 2};
    zc_session_options so = {.page_size = 4096};
    zc_access_writer *w;
    zc_replay_stats st;
    zc_session *s;

    assert_int_equal(zc_access_writer_open(path, &wo, &w, NULL, 0), 0);
    for (uint64_t i = 0; i < 8; i++) {
        q.offset = i % 4 * 8192;
        q.time_ns = i;
        assert_int_equal(zc_access_write(w, &q), 0);
    }
    assert_int_equal(zc_access_writer_close(w, NULL, 0), 0);
    s = open_ok(path, NULL);
    assert_int_equal(zc_session_page_size(s), 8192);
    ro.zcache = cache("capacity=1M,page_size=8192");
    assert_int_equal(zc_session_run(s, &ro), 0);
    zc_session_stats(s, &st);
    assert_int_equal(st.accesses, 8); /* one page a request */
    zc_cache_destroy(ro.zcache);
    zc_session_close(s);
    /* said otherwise: 4 KiB pages, two a request */
    s = open_ok(path, &so);
    assert_int_equal(zc_session_page_size(s), 4096);
    memset(&ro, 0, sizeof(ro));
    ro.page_cache_pages = 4;
    assert_int_equal(zc_session_run(s, &ro), 0);
    zc_session_stats(s, &st);
    assert_int_equal(st.accesses, 16);
    zc_session_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_session_equals_the_pipeline_by_hand),
        cmocka_unit_test(
            test_session_takes_read_ahead_from_header_unless_given),
        cmocka_unit_test(test_session_refuses_a_pipe),
        cmocka_unit_test(test_session_refuses_another_recordings_pack),
        cmocka_unit_test(test_session_refuses_unknown_model_and_missing_file),
        cmocka_unit_test(test_session_source_without_file_pages_is_named),
        cmocka_unit_test(test_session_progress_stops_the_run),
        cmocka_unit_test(test_session_saved_op_stream_plays_the_same),
        cmocka_unit_test(test_session_follows_the_kernel_only_with_samples),
        cmocka_unit_test(test_session_refuses_zcache_of_another_page_size),
        cmocka_unit_test(test_session_without_content_takes_no_zcache),
        cmocka_unit_test(test_session_takes_page_size_from_header),
    };
    return cmocka_run_group_tests(tests, zt_tmpdir_setup, zt_tmpdir_teardown);
}
