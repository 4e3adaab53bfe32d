/*
 * test_sweep.c - many configurations of many traces through the library's
 * sweep (zc_sweep_*, zcache_sim.h), and its plans.
 *
 * A row must be exactly what a session of its configuration alone gives;
 * a plan's rows read back must be the bytes they were; what did not run
 * to its end is never saved as done; misuse is refused, never a crash.
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

#include <cmocka.h>

#include "zcache_sim.h"
#include "zt_util.h"

#define TRACES ZC_SOURCE_DIR "/traces/"

static zc_sweep *make(const zc_sweep_options *o, const char *trace)
{
    zc_sweep *sw;
    char err[1024];

    if (zc_sweep_create(o, &sw, err, sizeof(err)))
        fail_msg("create: %s", err);
    assert_int_equal(zc_sweep_add_trace(sw, &trace, 1, NULL, NULL, NULL), 0);
    if (zc_sweep_prepare(sw))
        fail_msg("prepare: %s", zc_sweep_error(sw));
    return sw;
}

/* Each row equals a session of its configuration alone. */
static void test_sweep_rows_equal_sessions_alone(void **state)
{
    (void)state;
    static const char *const sets[] = {"policy=lru,fifo"};
    zc_sweep_options o = {.page_cache = "700",
                          .capacity = "0,1M",
                          .sets = sets,
                          .nsets = 1,
                          .threads = 2,
                          .memo_bytes = 64 << 20};
    zc_sweep *sw = make(&o, TRACES "build-c.zca");
    const zc_sweep_row *r;
    size_t n;

    assert_int_equal(zc_sweep_run(sw, NULL, 0, NULL, NULL), 0);
    r = zc_sweep_rows(sw, &n);
    assert_int_equal(n, 3); /* off, then 1M with each policy */
    for (size_t i = 0; i < n; i++) {
        const char *path = TRACES "build-c.zca";
        zc_session_run_options ro = {.page_cache_pages = 700};
        zc_replay_stats st;
        zc_session *s;
        zc_cache *zc = NULL;
        assert_int_equal(r[i].rc, 0);
        if (r[i].spec[0])
            assert_int_equal(
                zc_cache_open(r[i].spec, 4096, 0, NULL, NULL, &zc, NULL, 0), 0);
        ro.zcache = zc;
        assert_int_equal(zc_session_open(&path, 1, NULL, &s, NULL, 0), 0);
        assert_int_equal(zc_session_run(s, &ro), 0);
        zc_session_stats(s, &st);
        assert_int_equal(r[i].st.requests, st.requests);
        assert_int_equal(r[i].st.pc_hits, st.pc_hits);
        assert_int_equal(r[i].st.zc_gets, st.zc_gets);
        assert_int_equal(r[i].st.zc_hits, st.zc_hits);
        assert_int_equal(r[i].st.zc_stored, st.zc_stored);
        assert_int_equal(r[i].st.disk_reads, st.disk_reads);
        assert_int_equal(r[i].mrc_hits, st.pc_hits); /* the LRU curve */
        zc_session_close(s);
        zc_cache_destroy(zc);
    }
    zc_sweep_destroy(sw);
}

static void test_sweep_refuses_a_job_given_twice(void **state)
{
    (void)state;
    zc_sweep_options o = {.capacity = "1M,2M,4M", .threads = 4};
    zc_sweep *sw = make(&o, TRACES "build-c.kernel.zct");
    size_t jobs[] = {0, 0}, big[] = {7};

    assert_int_equal(zc_sweep_run(sw, jobs, 2, NULL, NULL), -ZC_EINVAL);
    assert_non_null(strstr(zc_sweep_error(sw), "given twice"));
    assert_int_equal(zc_sweep_run(sw, big, 1, NULL, NULL), -ZC_EINVAL);
    assert_int_equal(zc_sweep_run(sw, NULL, 1, NULL, NULL), -ZC_EINVAL);
    zc_sweep_destroy(sw);
}

static int stop_now(void *ctx, size_t job, uint64_t requests, size_t done)
{
    (void)ctx;
    (void)job;
    (void)done;
    return requests > 0;
}

/* A plan whose job was stopped keeps nothing of it; a job run to its end
 * reads back as the bytes it was, into a sweep made again. */
static void test_sweep_plan_keeps_only_whole_jobs(void **state)
{
    (void)state;
    zc_sweep_options o = {
        .page_cache = "500,2000", .capacity = "0,1M", .threads = 1};
    const char *dir = zt_tmp_path("plan"), *args[] = {"made", "by", "a test"};
    char **back, err[512];
    const char *cwd;
    size_t job0[] = {0}, job1[] = {1}, nargs, njobs, n;
    uint64_t id, id2;
    zc_sweep *sw = make(&o, TRACES "build-c.zca"), *again;
    const zc_sweep_row *r, *r2;

    assert_int_equal(zc_sweep_plan_write(sw, dir, args, 3, "/", &id), 0);
    assert_int_equal(zc_sweep_plan_write(sw, dir, args, 3, "/", &id),
                     -ZC_EINVAL); /* a plan is there */
    assert_int_equal(zc_sweep_run(sw, job0, 1, stop_now, NULL), -ZC_ECANCELED);
    r = zc_sweep_rows(sw, &n);
    assert_int_equal(r[0].rc, -ZC_ECANCELED);
    assert_int_equal(zc_sweep_plan_save_job(sw, dir, 0), -ZC_EINVAL);
    assert_int_equal(zc_sweep_plan_load_job(sw, dir, 0), 1); /* none */
    assert_int_equal(r[2].rc, -ZC_ECANCELED); /* job 1: never run */
    assert_non_null(strstr(r[2].err, "not run"));
    assert_int_equal(zc_sweep_plan_save_job(sw, dir, 1), -ZC_EINVAL);
    assert_int_equal(zc_sweep_run(sw, job1, 1, NULL, NULL), 0);
    assert_int_equal(zc_sweep_plan_save_job(sw, dir, 1), 0);

    assert_int_equal(zc_sweep_plan_read(dir, &back, &nargs, &cwd, &njobs, &id2,
                                        err, sizeof(err)),
                     0);
    assert_int_equal(nargs, 3);
    assert_string_equal(back[2], "a test");
    assert_null(back[3]);
    assert_string_equal(cwd, "/");
    assert_int_equal(njobs, 2);
    assert_true(id2 == id);
    free(back);
    again = make(&o, TRACES "build-c.zca");
    assert_int_equal(zc_sweep_plan_check(again, dir, id + 1), -ZC_EFORMAT);
    assert_int_equal(zc_sweep_plan_check(again, dir, id), 0);
    assert_int_equal(zc_sweep_plan_load_job(again, dir, 0), 1);
    assert_int_equal(zc_sweep_plan_load_job(again, dir, 1), 0);
    r2 = zc_sweep_rows(again, NULL);
    for (size_t i = 2; i < 4; i++) {
        assert_int_equal(r2[i].rc, 0);
        assert_memory_equal(&r2[i].st, &r[i].st, sizeof(r[i].st));
        assert_memory_equal(&r2[i].zs, &r[i].zs, sizeof(r[i].zs));
        assert_string_equal(r2[i].config, r[i].config);
    }
    zc_sweep_destroy(again);
    zc_sweep_destroy(sw);
}

static void test_sweep_refuses_misuse(void **state)
{
    (void)state;
    static const char *const bad_set[] = {"policy"};
    zc_sweep_options o = {.sets = bad_set, .nsets = 1};
    zc_sweep_options nul = {.nsets = 2};
    zc_sweep_options big = {.page_cache = "1024,99999999999"};
    zc_sweep_options ps = {.page_size = 8192, .capacity = "1M"};
    const char *trace = TRACES "build-c.zca",
               *zct = TRACES "build-c.kernel.zct";
    zc_sweep *sw;
    char err[512];
    char **args;
    const char *cwd;
    size_t nargs, njobs;
    uint64_t id;

    assert_int_equal(zc_sweep_create(&o, &sw, err, sizeof(err)), -ZC_EINVAL);
    assert_non_null(strstr(err, "want KEY=V1,V2"));
    assert_int_equal(zc_sweep_create(&nul, &sw, err, sizeof(err)), -ZC_EINVAL);
    assert_int_equal(zc_sweep_create(NULL, &sw, err, sizeof(err)), -ZC_EINVAL);
    /* a sweep runs once prepared, and says so */
    assert_int_equal(zc_sweep_create(&ps, &sw, err, sizeof(err)), 0);
    assert_int_equal(zc_sweep_run(sw, NULL, 0, NULL, NULL), -ZC_EINVAL);
    assert_non_null(strstr(zc_sweep_error(sw), "zc_sweep_prepare"));
    zc_sweep_destroy(sw);
    /* a preparation that failed is not tried again on half-made rows */
    assert_int_equal(zc_sweep_create(&big, &sw, err, sizeof(err)), 0);
    assert_int_equal(zc_sweep_add_trace(sw, &trace, 1, NULL, NULL, NULL), 0);
    assert_int_equal(zc_sweep_prepare(sw), -ZC_EINVAL);
    assert_non_null(strstr(zc_sweep_error(sw), "99999999999"));
    assert_int_equal(zc_sweep_prepare(sw), -ZC_EINVAL);
    assert_int_equal(zc_sweep_run(sw, NULL, 0, NULL, NULL), -ZC_EINVAL);
    assert_int_equal(zc_sweep_plan_check(sw, NULL, 0), -ZC_EINVAL);
    assert_int_equal(zc_sweep_plan_check(NULL, "x", 0), -ZC_EINVAL);
    zc_sweep_destroy(sw);
    /* an op stream's page size is its own: a page size given must be it */
    assert_int_equal(zc_sweep_create(&ps, &sw, err, sizeof(err)), 0);
    assert_int_equal(zc_sweep_add_trace(sw, &zct, 1, NULL, NULL, NULL), 0);
    assert_int_equal(zc_sweep_prepare(sw), -ZC_EINVAL);
    assert_non_null(strstr(zc_sweep_error(sw), "--page-size 8192"));
    zc_sweep_destroy(sw);
    assert_int_equal(zc_sweep_plan_read(NULL, &args, &nargs, &cwd, &njobs, &id,
                                        err, sizeof(err)),
                     -ZC_EINVAL);
    assert_int_equal(zc_sweep_plan_read("/nonexistent", NULL, &nargs, &cwd,
                                        &njobs, &id, err, sizeof(err)),
                     -ZC_EINVAL);
    assert_int_equal(
        zc_sweep_plan_save_failure(NULL, 0, 0, "x", err, sizeof(err)),
        -ZC_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_rows_equal_sessions_alone),
        cmocka_unit_test(test_sweep_refuses_a_job_given_twice),
        cmocka_unit_test(test_sweep_plan_keeps_only_whole_jobs),
        cmocka_unit_test(test_sweep_refuses_misuse),
    };
    return cmocka_run_group_tests(tests, zt_tmpdir_setup, zt_tmpdir_teardown);
}
