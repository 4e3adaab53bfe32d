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
#include <fcntl.h>
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

/* A trace of n accesses as an access stream's text (synthetic contents):
 * page i * stride % 997 of inode 5, every 7th a write. */
static const char *small_trace(const char *name, int n, int stride)
{
    char *text = malloc((size_t)n * 48 + 64), *p = text;
    const char *path;

    assert_non_null(text);
    p += sprintf(p, "zca-text 1\nmeta page_size 4096\n");
    for (int i = 0; i < n; i++)
        p += sprintf(p, "0.%09d %c 7:0 5 %d 1\n", i + 1, i % 7 ? 'r' : 'w',
                     i * stride % 997);
    p += sprintf(p, "end\n");
    path = zt_write_tmp(name, text, (size_t)(p - text));
    free(text);
    return path;
}

static zc_sweep *make_of(const zc_sweep_options *o, const char *const *traces,
                         size_t n, long job)
{
    zc_sweep *sw;
    char err[1024];

    if (zc_sweep_create(o, &sw, err, sizeof(err)))
        fail_msg("create: %s", err);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(
            zc_sweep_add_trace(sw, &traces[i], 1, NULL, NULL, NULL), 0);
    if (job >= 0)
        assert_int_equal(zc_sweep_select_job(sw, (size_t)job), 0);
    if (zc_sweep_prepare(sw))
        fail_msg("prepare: %s", zc_sweep_error(sw));
    return sw;
}

/* A sweep made for one job makes that job's rows and no other (counted:
 * the rows it holds), opens that job's trace alone, and its rows are the
 * whole sweep's rows of that job; saved into the whole sweep's plan, they
 * read back into the whole sweep as its own. */
static void test_sweep_job_alone_makes_only_its_rows(void **state)
{
    (void)state;
    static const char *const sets[] = {"compressor=lzo,lz4"};
    static const unsigned ctl[] = {ZC_ADAPT_MODEL, ZC_ADAPT_FIXED};
    zc_sweep_options o = {
        .memory = "2M",
        .share = "0,30",
        .adaptive = true,
        .controllers = ctl,
        .ncontrollers = 2,
        .sets = sets,
        .nsets = 1,
        .adapt = {.put_ns = 3000, .get_ns = 700, .epoch = 256},
        .threads = 1,
        .memo_bytes = 64 << 20};
    const char *traces[] = {small_trace("a.zca", 3000, 1),
                            small_trace("b.zca", 20000, 3),
                            small_trace("c.zca", 50, 1)},
               *dir = zt_tmp_path("jplan"), *args[] = {"a", "b"};
    /* per trace: share 0 (one row, no zcache), share 30 (lzo, lz4), then
     * the adaptive rows (model lzo, lz4, fixed lzo, lz4): 7 rows, 6 jobs
     * (0; 1-2; 3; 4; 5; 6).  Job 7 is the second trace's share 30, rows
     * 8 and 9; job 10 its fixed controller with lzo, row 12. */
    size_t want[] = {7, 10}, rows_of[] = {8, 12}, nrows_of[] = {2, 1}, n;
    zc_sweep *all, *one, *again;
    const zc_sweep_row *r, *ra;
    const zc_sweep_job *j;
    struct timespec times[2];
    struct stat sb;
    uint64_t id;

    all = make_of(&o, traces, 3, -1);
    zc_sweep_rows(all, &n);
    assert_int_equal(n, 21);
    zc_sweep_jobs(all, &n);
    assert_int_equal(n, 18);
    assert_int_equal(zc_sweep_plan_write(all, dir, args, 2, "/", &id), 0);
    assert_int_equal(zc_sweep_run(all, want, 2, NULL, NULL), 0);
    ra = zc_sweep_rows(all, NULL);
    /* the third trace is no trace any more: a job of another never sees */
    assert_int_equal(stat(traces[2], &sb), 0);
    zt_write_file(traces[2], "not a trace at all\n", 19);
    for (int k = 0; k < 2; k++) {
        one = make_of(&o, traces, 3, (long)want[k]);
        r = zc_sweep_rows(one, &n);
        assert_int_equal(n, nrows_of[k]); /* its rows alone, of 21 */
        j = zc_sweep_jobs(one, &n);
        assert_int_equal(n, 1);
        assert_int_equal(j->first_row, 0);
        assert_int_equal(j->nrows, nrows_of[k]);
        assert_int_equal(j->kind, k ? ZC_SWEEP_ADAPTIVE : ZC_SWEEP_GROUP);
        assert_false(j->curve); /* (the trace's first job takes it) */
        assert_int_equal(j->memory_bytes,
                         zc_sweep_jobs(all, NULL)[want[k]].memory_bytes);
        zc_sweep_traces(one, &n);
        assert_int_equal(n, 1);
        assert_string_equal(zc_sweep_traces(one, NULL)->name, traces[1]);
        assert_int_equal(zc_sweep_plan_check(one, dir, id), 0);
        assert_int_equal(zc_sweep_run(one, NULL, 0, NULL, NULL), 0);
        for (size_t i = 0; i < nrows_of[k]; i++) {
            const zc_sweep_row *x = &ra[rows_of[k] + i];
            assert_int_equal(r[i].rc, 0);
            assert_int_equal(x->rc, 0);
            assert_true(x->st.zc_hits > 0); /* (every row has a zcache) */
            assert_string_equal(r[i].spec, x->spec);
            assert_string_equal(r[i].label, x->label);
            assert_int_equal(r[i].adaptive, x->adaptive);
            assert_int_equal(r[i].controller, x->controller);
            assert_memory_equal(&r[i].st, &x->st, sizeof(x->st));
            assert_int_equal(r[i].zs.compr_data_size, x->zs.compr_data_size);
            assert_int_equal(r[i].zs.arena_bytes, x->zs.arena_bytes);
        }
        /* saved by the plan's numbers: the other job is not this one's */
        assert_int_equal(zc_sweep_plan_save_job(one, dir, want[!k]),
                         -ZC_EINVAL);
        assert_int_equal(zc_sweep_plan_save_job(one, dir, want[k]), 0);
        assert_int_equal(
            zc_sweep_plan_write(one, zt_tmp_path("no"), args, 2, "/", NULL),
            -ZC_EINVAL);
        zc_sweep_destroy(one);
    }
    /* read back into the whole sweep (the third trace as it was) */
    small_trace("c.zca", 50, 1);
    times[0] = sb.st_atim;
    times[1] = sb.st_mtim;
    assert_int_equal(utimensat(AT_FDCWD, traces[2], times, 0), 0);
    again = make_of(&o, traces, 3, -1);
    assert_int_equal(zc_sweep_plan_check(again, dir, id), 0);
    r = zc_sweep_rows(again, NULL);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(zc_sweep_plan_load_job(again, dir, want[k]), 0);
        for (size_t i = rows_of[k]; i < rows_of[k] + nrows_of[k]; i++)
            assert_memory_equal(&r[i].st, &ra[i].st, sizeof(ra[i].st));
    }
    zc_sweep_destroy(again);
    /* no job 18; no selection once prepared */
    assert_int_equal(zc_sweep_create(&o, &one, NULL, 0), 0);
    assert_int_equal(zc_sweep_add_trace(one, traces, 1, NULL, NULL, NULL), 0);
    assert_int_equal(zc_sweep_select_job(one, 6), 0);
    assert_int_equal(zc_sweep_prepare(one), -ZC_EINVAL);
    assert_non_null(strstr(zc_sweep_error(one), "job 6: the sweep has jobs 0 "
                                                "to 5"));
    zc_sweep_destroy(one);
    assert_int_equal(zc_sweep_select_job(all, 0), -ZC_EINVAL);
    assert_int_equal(zc_sweep_select_job(NULL, 0), -ZC_EINVAL);
    zc_sweep_destroy(all);
}

/* The adaptive rows' CPU prices are fixed before any row runs, once per
 * trace and zcache spec: measured when not given, kept by later runs,
 * recorded in a plan and taken back by a sweep of one of its jobs, which
 * then runs as the whole sweep's row does; every epoch weighs them. */
static void test_sweep_adaptive_prices_fixed_before_rows_run(void **state)
{
    (void)state;
    static const unsigned ctl[] = {ZC_ADAPT_MODEL, ZC_ADAPT_ARC};
    zc_sweep_options o = {.memory = "2M",
                          .share = "0",
                          .adaptive = true,
                          .controllers = ctl,
                          .ncontrollers = 2,
                          .adapt = {.epoch = 256},
                          .threads = 2,
                          .memo_bytes = 64 << 20};
    const char *trace = small_trace("p.zca", 20000, 3), *args[] = {"x"},
               *dir = zt_tmp_path("pplan");
    size_t job2[] = {2}, n;
    zc_sweep *all, *one;
    const zc_sweep_row *r, *r1;
    uint64_t id, put, get;

    all = make_of(&o, &trace, 1, -1);
    r = zc_sweep_rows(all, &n);
    assert_int_equal(n, 3);           /* share 0, then model and arc */
    assert_int_equal(r[1].put_ns, 0); /* not yet */
    assert_int_equal(zc_sweep_plan_write(all, dir, args, 1, "/", &id), 0);
    put = r[1].put_ns;
    get = r[1].get_ns;
    assert_true(put > 0 && get > 0 && r[1].prices_measured);
    assert_true(r[2].put_ns == put && r[2].get_ns == get); /* one spec */
    assert_int_equal(r[0].put_ns, 0); /* (a static row weighs none) */
    /* a run keeps them, and every epoch of every row weighs them */
    assert_int_equal(zc_sweep_run(all, NULL, 0, NULL, NULL), 0);
    for (size_t i = 1; i < 3; i++) {
        assert_true(r[i].put_ns == put && r[i].get_ns == get);
        assert_true(r[i].nepochs > 10);
        for (size_t e = 0; e < r[i].nepochs; e++) {
            assert_true(r[i].epochs[e].put_ns == (double)put);
            assert_true(r[i].epochs[e].get_ns == (double)get);
        }
    }
    /* a job takes the plan's prices, and runs as the whole sweep's row */
    one = make_of(&o, &trace, 1, 2);
    r1 = zc_sweep_rows(one, NULL);
    assert_int_equal(r1[0].put_ns, 0);
    assert_int_equal(zc_sweep_plan_check(one, dir, id), 0);
    assert_true(r1[0].put_ns == put && r1[0].get_ns == get);
    assert_true(r1[0].prices_measured);
    assert_int_equal(zc_sweep_run(one, NULL, 0, NULL, NULL), 0);
    assert_memory_equal(&r1[0].st, &r[2].st, sizeof(r[2].st));
    assert_int_equal(r1[0].nepochs, r[2].nepochs);
    zc_sweep_destroy(one);
    /* a job run without its plan measures its own, once */
    one = make_of(&o, &trace, 1, 2);
    r1 = zc_sweep_rows(one, NULL);
    assert_int_equal(zc_sweep_run(one, NULL, 0, NULL, NULL), 0);
    assert_true(r1[0].put_ns > 0 && r1[0].prices_measured);
    zc_sweep_destroy(one);
    zc_sweep_destroy(all);
    /* prices given: every adaptive row's, not measured */
    o.adapt.put_ns = 3000;
    o.adapt.get_ns = 700;
    all = make_of(&o, &trace, 1, -1);
    assert_int_equal(zc_sweep_run(all, job2, 1, NULL, NULL), 0);
    r = zc_sweep_rows(all, NULL);
    assert_true(r[2].put_ns == 3000 && r[2].get_ns == 700);
    assert_false(r[2].prices_measured);
    assert_int_equal(r[1].put_ns, 0); /* (not run: not fixed) */
    zc_sweep_destroy(all);
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
        cmocka_unit_test(test_sweep_job_alone_makes_only_its_rows),
        cmocka_unit_test(test_sweep_adaptive_prices_fixed_before_rows_run),
        cmocka_unit_test(test_sweep_refuses_misuse),
    };
    return cmocka_run_group_tests(tests, zt_tmpdir_setup, zt_tmpdir_teardown);
}
