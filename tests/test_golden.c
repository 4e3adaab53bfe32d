/*
 * test_golden.c - the shipped traces (traces/) replayed at a few sizes,
 * against numbers recorded here.  Any change in the semantics of the
 * readers, the page-cache model, the op streams or the cache shows up as
 * a difference; if the change is intended, run the program with
 * ZC_GOLDEN_PRINT=1 to print the new table, and say why in the commit.
 *
 * Each trace is replayed three ways:
 *   NAME.blkparse      through the page-cache model, no zcache, at three
 *                      page-cache sizes
 *   NAME.zct           the op stream the recorder saved (the model of the
 *                      recording's page cache), played into two zcaches
 *   NAME.kernel.zct    the kernel's own page-cache stream, likewise
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

#include "zcache_trace.h"

static const char *const traces[] = {"grep-headers", "build-libzcache",
                                     "sqlite-queries"};
static const uint64_t pc_sizes[] = {256, 1024, 4096};
static const char *const specs[] = {"capacity=512K",
                                    "capacity=256K,allocator=zbud"};

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

static void test_block_traces_through_the_page_cache_model(void **state)
{
    (void)state;
    for (size_t t = 0; t < sizeof(traces) / sizeof(*traces); t++)
        for (size_t s = 0; s < sizeof(pc_sizes) / sizeof(*pc_sizes); s++) {
            char path[512], err[512];
            const char *paths[] = {path};
            zc_trace_options o = {.format = "blkparse"};
            zc_trace *tr;
            zc_replay *r;
            zc_replay_stats st;
            zc_request q = {0};
            struct row row = {0};
            char what[128];
            int rc;

            path_of(path, sizeof(path), traces[t], ".blkparse");
            assert_int_equal(zc_trace_open(paths, 1, &o, &tr, err, sizeof(err)),
                             0);
            assert_int_equal(
                zc_replay_create(pc_sizes[s], 4096, NULL, NULL, &r), 0);
            while ((rc = zc_trace_next(tr, &q)) == 1)
                assert_int_equal(zc_replay_request(r, &q), 0);
            assert_int_equal(rc, 0);
            assert_int_equal(zc_replay_stats_get(r, &st), 0);
            snprintf(what, sizeof(what), "%s.blkparse P=%" PRIu64, traces[t],
                     pc_sizes[s]);
            row.what = what;
            row.v[0] = st.requests;
            row.v[1] = st.accesses;
            row.v[2] = st.reads;
            row.v[3] = st.writes;
            row.v[4] = st.pc_hits;
            row.v[5] = st.disk_reads;
            row.v[6] = st.pc_evictions;
            check(&row);
            zc_replay_destroy(r);
            zc_trace_close(tr);
        }
}

static void play(const char *name, const char *ext, const char *spec)
{
    char path[512], err[512], what[128];
    zc_config cfg = zc_config_default();
    zc_ops_reader *in;
    zc_cache *zc;
    zc_player *p;
    zc_replay_stats st;
    zc_stats zs;
    zc_op op;
    struct row row = {0};
    int rc;

    path_of(path, sizeof(path), name, ext);
    assert_int_equal(zc_ops_open(path, &in, err, sizeof(err)), 0);
    assert_int_equal(zc_config_parse(&cfg, spec), 0);
    assert_int_equal(zc_cache_create(&cfg, &zc), 0);
    assert_int_equal(zc_player_create(zc, &p), 0);
    zc_player_verify(p, true);
    while ((rc = zc_ops_next(in, &op)) == 1)
        assert_int_equal(zc_player_op(p, &op), 0);
    if (rc)
        fail_msg("%s", zc_ops_error(in));
    assert_int_equal(zc_player_stats_get(p, &st), 0);
    assert_int_equal(zc_stats_get(zc, &zs), 0);
    assert_int_equal(st.zc_wrong, 0);
    assert_int_equal(zc_cache_check(zc), 0);
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
    zc_player_destroy(p);
    zc_cache_destroy(zc);
    zc_ops_close(in);
}

static void test_op_streams_into_the_zcache(void **state)
{
    (void)state;
    for (size_t t = 0; t < sizeof(traces) / sizeof(*traces); t++)
        for (size_t s = 0; s < sizeof(specs) / sizeof(*specs); s++) {
            play(traces[t], ".zct", specs[s]);
            play(traces[t], ".kernel.zct", specs[s]);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_traces_through_the_page_cache_model),
        cmocka_unit_test(test_op_streams_into_the_zcache),
    };
    const char *e = getenv("ZC_GOLDEN_PRINT");

    print_mode = e && *e && strcmp(e, "0");
    return cmocka_run_group_tests(tests, NULL, NULL);
}
