/*
 * test_golden.c - the shipped traces (traces/) replayed at a few sizes,
 * against numbers recorded here.  Any change in the semantics of the
 * readers, the page-cache model, the op streams, the content packs or the
 * cache shows up as a difference; if the change is intended, run the
 * program with ZC_GOLDEN_PRINT=1 to print the new table, and say why in
 * the commit.
 *
 * Each recording is replayed four ways, each through a session
 * (zc_session_*), as every tool replays a recording:
 *   NAME.blkparse.zst  the block trace through the page-cache model, no
 *                      zcache, at two page-cache sizes
 *   NAME.zca           the access stream through the model, no zcache, at
 *                      three page-cache sizes
 *   NAME.zca           the same at one size with a 1 MiB zcache behind it,
 *                      contents from the recording's pack (NAME.zcp), every
 *                      zcache hit verified against the page's last put
 *   NAME.kernel.zct    the kernel's own page-cache stream (contents in the
 *                      pack) played into two zcaches
 *
 * The quick tier (zt_quick(), tests/zt_util.h) keeps every row without a
 * zcache (they take a fraction of a second) and the rows with one, which
 * compress every page put, of two recordings: build-c and sqlite-oltp.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "zcache_sim.h"
#include "zt_util.h"

static const char *const traces[] = {"grep-src", "build-c", "sqlite-oltp",
                                     "python-imports", "file-server"};
static const uint64_t block_sizes[] = {1024, 4096};
static const uint64_t access_sizes[] = {256, 1024, 4096};
static const uint64_t access_zc_size = 1024;
static const char *const access_zc_spec = "capacity=1M";
static const char *const specs[] = {"capacity=1M",
                                    "capacity=512K,allocator=zbud"};

/* The quick tier's recordings with a zcache (the header says why). */
static bool with_zcache(const char *name)
{
    return !zt_quick() || !strcmp(name, "build-c") ||
           !strcmp(name, "sqlite-oltp");
}

/* What is compared. */
struct row {
    const char *what;
    uint64_t v[10];
};

#include "golden_table.h"

static bool print_mode;

static void check(const struct row *got)
{
    size_t i;

    if (print_mode) {
        printf("    {\"%s\", {", got->what);
        for (i = 0; i < 10; i++)
            printf("%s%" PRIu64, i ? ", " : "", got->v[i]);
        printf("}},\n");
        return;
    }
    for (i = 0; i < sizeof(golden) / sizeof(*golden); i++)
        if (!strcmp(golden[i].what, got->what))
            break;
    if (i == sizeof(golden) / sizeof(*golden))
        fail_msg("%s: no recorded numbers", got->what);
    for (size_t k = 0; k < 10; k++)
        if (golden[i].v[k] != got->v[k])
            fail_msg("%s: value %zu is %" PRIu64 ", recorded %" PRIu64,
                     got->what, k, got->v[k], golden[i].v[k]);
}

static void path_of(char *buf, size_t len, const char *name, const char *ext)
{
    snprintf(buf, len, "%s/traces/%s%s", ZC_SOURCE_DIR, name, ext);
}

/* One trace through the page-cache model of pc pages, behind it the zcache
 * of spec (NULL: none) with contents from the pack beside the trace: a
 * session, as every tool replays a recording. */
static void model(const char *name, const char *ext, const char *format,
                  uint64_t pc, const char *spec)
{
    char path[512], err[512], what[160];
    const char *paths[] = {path};
    zc_session_options so = {.format = format, .no_content = !spec};
    zc_session_run_options ro = {.page_cache_pages = pc, .verify = true};
    zc_session *s;
    zc_replay_stats st;
    struct row row = {0};

    path_of(path, sizeof(path), name, ext);
    if (zc_session_open(paths, 1, &so, &s, err, sizeof(err)))
        fail_msg("%s", err);
    if (spec &&
        zc_cache_open(spec, 4096, 0, NULL, NULL, &ro.zcache, err, sizeof(err)))
        fail_msg("%s", err);
    if (zc_session_run(s, &ro))
        fail_msg("%s", zc_session_error(s));
    assert_int_equal(zc_session_stats(s, &st), 0);
    assert_int_equal(st.zc_wrong, 0);
    snprintf(what, sizeof(what), "%s%s P=%" PRIu64 "%s%s", name, ext, pc,
             spec ? " " : "", spec ? spec : "");
    row.what = what;
    row.v[0] = st.requests;
    row.v[1] = st.accesses;
    row.v[2] = st.reads;
    row.v[3] = st.writes;
    row.v[4] = st.pc_hits;
    row.v[5] = st.disk_reads;
    row.v[6] = st.pc_evictions;
    row.v[7] = st.zc_gets;
    row.v[8] = st.zc_hits;
    row.v[9] = st.zc_stored;
    check(&row);
    if (ro.zcache)
        assert_int_equal(zc_cache_check(ro.zcache), 0);
    zc_session_close(s);
    zc_cache_destroy(ro.zcache);
}

static void test_block_traces_through_the_page_cache_model(void **state)
{
    (void)state;
    for (size_t t = 0; t < sizeof(traces) / sizeof(*traces); t++)
        for (size_t s = 0; s < sizeof(block_sizes) / sizeof(*block_sizes); s++)
            model(traces[t], ".blkparse.zst", "blkparse", block_sizes[s], NULL);
}

static void test_access_streams_through_the_page_cache_model(void **state)
{
    (void)state;
    for (size_t t = 0; t < sizeof(traces) / sizeof(*traces); t++) {
        for (size_t s = 0; s < sizeof(access_sizes) / sizeof(*access_sizes);
             s++)
            model(traces[t], ".zca", "auto", access_sizes[s], NULL);
        if (with_zcache(traces[t]))
            model(traces[t], ".zca", "auto", access_zc_size, access_zc_spec);
    }
}

/* What the recorder wrote into the access stream's header, and the
 * kernel's resident count it sampled. */
static void test_access_streams_carry_the_recording_s_limits(void **state)
{
    (void)state;
    for (size_t t = 0; t < sizeof(traces) / sizeof(*traces); t++) {
        char path[512], err[512];
        const char *paths[] = {path};
        zc_trace *tr;
        zc_request q = {0};
        uint64_t pages = 0, seen = 0;
        int rc;

        path_of(path, sizeof(path), traces[t], ".zca");
        if (zc_trace_open(paths, 1, NULL, &tr, err, sizeof(err)))
            fail_msg("%s", err);
        assert_string_equal(zc_trace_format(tr), "access");
        assert_non_null(zc_trace_meta(tr, "memory_limit"));
        assert_non_null(zc_trace_meta(tr, "read_ahead_kb"));
        assert_non_null(zc_trace_meta(tr, "pack"));
        while ((rc = zc_trace_next(tr, &q)) == 1) {
            assert_int_not_equal(q.ino, 0);
            if (zc_trace_resident(tr, q.dev, &pages) == 1 && pages > 0)
                seen++;
        }
        assert_int_equal(rc, 0);
        if (!seen)
            fail_msg("%s: no resident samples", traces[t]);
        zc_trace_close(tr);
    }
}

static void play(const char *name, const char *ext, const char *spec)
{
    char path[512], err[512], what[128];
    const char *paths[] = {path};
    zc_session_run_options ro = {.verify = true};
    zc_session *s;
    zc_replay_stats st;
    zc_stats zs;
    struct row row = {0};

    path_of(path, sizeof(path), name, ext);
    if (zc_session_open(paths, 1, NULL, &s, err, sizeof(err)))
        fail_msg("%s", err);
    assert_true(zc_session_is_ops(s));
    assert_int_equal(
        zc_cache_open(spec, 4096, 0, NULL, NULL, &ro.zcache, err, sizeof(err)),
        0);
    if (zc_session_run(s, &ro))
        fail_msg("%s", zc_session_error(s));
    assert_int_equal(zc_session_stats(s, &st), 0);
    assert_int_equal(zc_stats_get(ro.zcache, &zs), 0);
    assert_int_equal(st.zc_wrong, 0);
    assert_int_equal(zc_cache_check(ro.zcache), 0);
    snprintf(what, sizeof(what), "%s%s %s", name, ext, spec);
    row.what = what;
    row.v[0] = st.accesses;
    row.v[1] = st.zc_gets;
    row.v[2] = st.zc_hits;
    row.v[3] = st.zc_puts;
    row.v[4] = st.zc_stored;
    row.v[5] = st.resident_hits;
    row.v[6] = zs.stored_pages;
    row.v[7] = zs.evictions;
    row.v[8] = zs.compr_data_size;
    row.v[9] = zs.mem_used_total;
    check(&row);
    zc_session_close(s);
    zc_cache_destroy(ro.zcache);
}

static void test_op_streams_into_the_zcache(void **state)
{
    (void)state;
    for (size_t t = 0; t < sizeof(traces) / sizeof(*traces); t++)
        for (size_t s = 0; s < sizeof(specs) / sizeof(*specs); s++) {
            if (with_zcache(traces[t]))
                play(traces[t], ".kernel.zct", specs[s]);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_traces_through_the_page_cache_model),
        cmocka_unit_test(test_access_streams_through_the_page_cache_model),
        cmocka_unit_test(test_access_streams_carry_the_recording_s_limits),
        cmocka_unit_test(test_op_streams_into_the_zcache),
    };
    const char *e = getenv("ZC_GOLDEN_PRINT");

    print_mode = e && *e && strcmp(e, "0");
    return cmocka_run_group_tests(tests, NULL, NULL);
}
