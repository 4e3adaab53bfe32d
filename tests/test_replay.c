/*
 * test_replay.c - the page-cache model and the replay pipeline.
 *
 * Expectations come from first principles: a naive LRU written here (a
 * linear list, obviously right and slow) on generated streams, and the
 * reference LRU hit counts of real traces written by others, computed with
 * an independent script and libCacheSim (../shared/traces/ext/SOURCES.md).
 * Tests that need ../shared skip (and say so) when it is missing.
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

#include "zcache_trace.h"
#include "zt_util.h"

/* ---- a naive LRU: an array, most recent first ------------------------- */

struct naive {
    uint64_t *keys;
    size_t n, cap;
    uint64_t hits;
};

static void naive_access(struct naive *l, uint64_t key)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        if (l->keys[i] == key)
            break;
    if (i < l->n) {
        l->hits++;
    } else if (l->n < l->cap) {
        i = l->n++;
    } else {
        i = l->n - 1;
    }
    if (l->cap == 0)
        return;
    memmove(l->keys + 1, l->keys, i * sizeof(*l->keys));
    l->keys[0] = key;
}

static zc_cache *raw_zcache(uint64_t frames)
{
    zc_config cfg = zc_config_default();
    zc_cache *c = NULL;
    char spec[128];

    snprintf(spec, sizeof(spec),
             "capacity=%llu,compressor=none,accept_percent=100,"
             "same_filled=false",
             (unsigned long long)(frames * 4096));
    assert_int_equal(zc_config_parse(&cfg, spec), 0);
    assert_int_equal(zc_cache_create(&cfg, &c), 0);
    return c;
}

/* A random request stream with reuse: a few devices, hot and cold pages,
 * requests of 1 to 3 pages, some unaligned, a third writes. */
static void make_request(zt_rng *g, zc_request *q)
{
    uint64_t page =
        zt_rng_below(g, 8) ? zt_rng_below(g, 300) : zt_rng_below(g, 3000);
    q->dev = (uint32_t)zt_rng_below(g, 3);
    q->write = zt_rng_below(g, 3) == 0;
    q->offset = page * 4096 + (zt_rng_below(g, 4) ? 0 : 512);
    q->length = 512 * (1 + zt_rng_below(g, 16));
    q->time_ns = 0;
    q->ino = 0;
    q->flags = 0;
}

static uint64_t key_of(uint32_t dev, uint64_t page)
{
    return (uint64_t)dev << 48 | page;
}

static void test_page_cache_hits_equal_a_naive_lru(void **state)
{
    static const uint64_t caps[] = {0, 1, 7, 100, 1000};
    (void)state;
    for (size_t c = 0; c < sizeof(caps) / sizeof(*caps); c++) {
        struct naive l = {calloc(caps[c] + 1, 8), 0, caps[c], 0};
        zc_replay *r;
        zc_replay_stats st;
        zt_rng g;
        uint64_t accesses = 0;

        zt_rng_seed(&g, 77 + c);
        assert_int_equal(zc_replay_create(caps[c], 4096, NULL, NULL, &r), 0);
        for (int i = 0; i < 20000; i++) {
            zc_request q;
            make_request(&g, &q);
            assert_int_equal(zc_replay_request(r, &q), 0);
            for (uint64_t p = q.offset / 4096;
                 p <= (q.offset + q.length - 1) / 4096; p++) {
                naive_access(&l, key_of(q.dev, p));
                accesses++;
            }
        }
        assert_int_equal(zc_replay_stats_get(r, &st), 0);
        assert_int_equal(st.accesses, accesses);
        assert_int_equal(st.pc_hits, l.hits);
        assert_int_equal(st.resident_hits, l.hits);
        assert_int_equal(st.reads + st.writes, st.accesses);
        zc_replay_destroy(r);
        free(l.keys);
    }
}

/* DESIGN.md's exact cross-check: raw frames, exclusive gets, LRU in both
 * tiers: P pages in front of V frames hit like one LRU of P + V pages. */
static void test_raw_two_tiers_hit_like_one_lru_of_both(void **state)
{
    static const uint64_t pv[][2] = {
        {1, 1}, {10, 5}, {100, 400}, {500, 100}, {0, 50}};
    (void)state;
    for (size_t k = 0; k < sizeof(pv) / sizeof(*pv); k++) {
        uint64_t p = pv[k][0], v = pv[k][1];
        struct naive l = {calloc(p + v + 1, 8), 0, p + v, 0};
        zc_cache *zc = raw_zcache(v);
        zc_content *content;
        zc_replay *r;
        zc_replay_stats st;
        zc_stats zs;
        zt_rng g;

        assert_int_equal(zc_content_open("random:3", 4096, &content, NULL, 0),
                         0);
        zt_rng_seed(&g, 1000 + k);
        assert_int_equal(zc_replay_create(p, 4096, zc, content, &r), 0);
        for (int i = 0; i < 20000; i++) {
            zc_request q;
            make_request(&g, &q);
            assert_int_equal(zc_replay_request(r, &q), 0);
            for (uint64_t pg = q.offset / 4096;
                 pg <= (q.offset + q.length - 1) / 4096; pg++)
                naive_access(&l, key_of(q.dev, pg));
        }
        assert_int_equal(zc_replay_stats_get(r, &st), 0);
        assert_int_equal(st.resident_hits, l.hits);
        assert_int_equal(st.zc_hits + st.disk_reads, st.zc_gets);
        assert_int_equal(zc_stats_get(zc, &zs), 0);
        assert_true(zs.arena_bytes <= v * 4096);
        assert_int_equal(zs.raw_pages, zs.stored_pages);
        assert_int_equal(zc_cache_check(zc), 0);
        zc_replay_destroy(r);
        zc_content_close(content);
        zc_cache_destroy(zc);
        free(l.keys);
    }
}

/* A get after the page was rewritten must see the new bytes: run the
 * pipeline with a content source and check every zcache hit against the
 * content of the page's current version, through a shadow of versions. */
static void test_gets_return_the_latest_version(void **state)
{
    zc_config cfg = zc_config_default();
    zc_cache *zc;
    zc_content *content;
    zc_replay *r;
    zc_replay_stats st;
    zt_rng g;

    (void)state;
    cfg.capacity_bytes = 256 << 10;
    assert_int_equal(zc_cache_create(&cfg, &zc), 0);
    assert_int_equal(zc_content_open("synth:5", 4096, &content, NULL, 0), 0);
    assert_int_equal(zc_replay_create(50, 4096, zc, content, &r), 0);
    zc_replay_verify(r, true);
    zt_rng_seed(&g, 9);
    for (int i = 0; i < 30000; i++) {
        zc_request q;
        make_request(&g, &q);
        assert_int_equal(zc_replay_request(r, &q), 0);
    }
    assert_int_equal(zc_replay_stats_get(r, &st), 0);
    assert_true(st.zc_hits > 1000);
    assert_true(st.zc_stored > 0);
    assert_int_equal(st.zc_wrong, 0);
    assert_int_equal(zc_cache_check(zc), 0);
    zc_replay_destroy(r);
    zc_content_close(content);
    zc_cache_destroy(zc);
}

/* Puts carry ZC_OP_PUT_ACTIVE exactly for pages hit while in the page
 * cache. */
struct put_log {
    uint64_t index[16];
    uint32_t flags[16];
    int n;
};

static int log_puts(void *ctx, const zc_op *op)
{
    struct put_log *l = ctx;

    if (op->kind == ZC_OP_PUT && l->n < 16) {
        l->index[l->n] = op->index;
        l->flags[l->n++] = op->flags;
    }
    return 0;
}

static void test_puts_of_pages_hit_in_the_page_cache_are_active(void **state)
{
    zc_content *content;
    zc_replay *r;
    struct put_log log = {0};
    /* Page cache of 2: read 0, 1, 0 (a hit), 2 (evicts 1), 3 (evicts 0),
     * 3 again (a hit), 4 (evicts 2), 5 (evicts 3). */
    static const uint64_t pages[] = {0, 1, 0, 2, 3, 3, 4, 5};
    static const uint64_t want_index[] = {1, 0, 2, 3};
    static const uint32_t want_flags[] = {0, ZC_OP_PUT_ACTIVE, 0,
                                          ZC_OP_PUT_ACTIVE};

    (void)state;
    assert_int_equal(zc_content_open("synth:1", 4096, &content, NULL, 0), 0);
    assert_int_equal(zc_replay_create(2, 4096, NULL, content, &r), 0);
    assert_int_equal(zc_replay_sink(r, log_puts, &log), 0);
    for (size_t i = 0; i < sizeof(pages) / sizeof(*pages); i++) {
        zc_request q = {.dev = 1, .offset = pages[i] * 4096, .length = 4096};
        assert_int_equal(zc_replay_request(r, &q), 0);
    }
    assert_int_equal(log.n, 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(log.index[i], want_index[i]);
        assert_int_equal(log.flags[i], want_flags[i]);
    }
    zc_replay_destroy(r);
    zc_content_close(content);
}

/* A page cache resized mid-run behaves as a naive LRU list resized the
 * same way: equal hits, and the same pages put, in the same order. */
struct resized_lru {
    uint64_t page[512];
    int n, cap;
};

static bool rlru_access(struct resized_lru *l, uint64_t page, uint64_t *evicted,
                        int *nevicted)
{
    int i;

    for (i = 0; i < l->n && l->page[i] != page; i++)
        ;
    if (i < l->n) {
        memmove(l->page + 1, l->page, (size_t)i * sizeof(*l->page));
        l->page[0] = page;
        return true;
    }
    if (l->cap == 0) {
        evicted[(*nevicted)++] = page;
        return false;
    }
    if (l->n == l->cap)
        evicted[(*nevicted)++] = l->page[--l->n];
    memmove(l->page + 1, l->page, (size_t)l->n * sizeof(*l->page));
    l->page[0] = page;
    l->n++;
    return false;
}

struct put_list {
    uint64_t *index;
    int n;
};

static int list_puts(void *ctx, const zc_op *op)
{
    struct put_list *l = ctx;

    if (op->kind == ZC_OP_PUT)
        l->index[l->n++] = op->index;
    return 0;
}

static void test_resized_page_cache_is_a_resized_lru(void **state)
{
    static const int sizes[] = {100, 40, 0, 300, 512, 7, 250};
    enum { N = 30000 };
    struct resized_lru l = {.cap = 100};
    uint64_t *want = malloc(N * sizeof(*want));
    struct put_list got = {malloc(N * sizeof(uint64_t)), 0};
    zc_content *content;
    zc_replay *r;
    zc_replay_stats st;
    uint64_t hits = 0;
    int nwant = 0;
    zt_rng g;

    (void)state;
    assert_non_null(want);
    assert_non_null(got.index);
    assert_int_equal(zc_content_open("synth:1", 4096, &content, NULL, 0), 0);
    assert_int_equal(zc_replay_create(100, 4096, NULL, content, &r), 0);
    assert_int_equal(zc_replay_sink(r, list_puts, &got), 0);
    zt_rng_seed(&g, 77);
    for (int i = 0; i < N; i++) {
        if (i % 2500 == 2499) {
            int size = sizes[(i / 2500) % 7];
            assert_int_equal(zc_replay_set_page_cache(r, (uint64_t)size), 0);
            while (l.n > size)
                want[nwant++] = l.page[--l.n];
            l.cap = size;
            assert_int_equal(got.n, nwant); /* the shrink's puts, at once */
        }
        /* Pages 0..599, skewed towards low numbers. */
        uint64_t page = zt_rng_below(&g, 600) * zt_rng_below(&g, 600) / 600;
        zc_request q = {.dev = 1, .offset = page * 4096, .length = 4096};
        hits += rlru_access(&l, page, want, &nwant);
        assert_int_equal(zc_replay_request(r, &q), 0);
    }
    assert_int_equal(zc_replay_stats_get(r, &st), 0);
    assert_int_equal(st.pc_hits, hits);
    assert_int_equal(got.n, nwant);
    for (int i = 0; i < nwant; i++)
        if (got.index[i] != want[i])
            fail_msg("put %d: page %llu, want %llu", i,
                     (unsigned long long)got.index[i],
                     (unsigned long long)want[i]);
    assert_int_equal(zc_replay_set_page_cache(NULL, 5), -ZC_EINVAL);
    assert_int_equal(zc_replay_set_page_cache(r, UINT64_MAX), -ZC_EINVAL);
    print_message("resized page cache: %llu hits, %d puts\n",
                  (unsigned long long)hits, nwant);
    zc_replay_destroy(r);
    zc_content_close(content);
    free(want);
    free(got.index);
}

/* ---- real traces with reference numbers -----------------------------------
 */

struct ref {
    const char *file;
    uint64_t accesses, distinct;
    uint64_t cap[5], hits[5];
};

/* From ../shared/traces/ext/SOURCES.md (independent script, cross-checked
 * with libCacheSim). */
static const struct ref refs[] = {
    {"cloudphysics_vscsi_sample.csv",
     1141869,
     269210,
     {2692, 13460, 26921, 67302, 134605},
     {117762, 128915, 143764, 294924, 601467}},
    {"hadoop_blkparse.txt",
     33404,
     17901,
     {179, 895, 1790, 4475, 8950},
     {15493, 15493, 15498, 15498, 15502}},
    {"hadoop_eternity8_sdb.blktrace.0",
     163216,
     163178,
     {1631, 8158, 16317, 40794, 81589},
     {9, 11, 16, 22, 29}},
    {"mqsim_tpcc-small.trace",
     20669,
     20470,
     {204, 1023, 2047, 5117, 10235},
     {91, 126, 127, 143, 199}},
};

static int shared_path(const char *file, char *out, size_t len)
{
    snprintf(out, len, "%s/traces/ext/%s", ZC_SHARED_DIR, file);
    return access(out, R_OK);
}

static zc_replay_stats replay_file(const char *path, uint64_t pc_pages,
                                   zc_cache *zc, zc_content *content)
{
    const char *paths[1] = {path};
    zc_trace_options opt = {NULL, 4096};
    zc_trace *t;
    zc_replay *r;
    zc_replay_stats st;
    zc_request q = {0};
    char err[256];
    int rc;

    rc = zc_trace_open(paths, 1, &opt, &t, err, sizeof(err));
    if (rc)
        fail_msg("%s", err);
    assert_int_equal(zc_replay_create(pc_pages, 4096, zc, content, &r), 0);
    while ((rc = zc_trace_next(t, &q)) == 1)
        assert_int_equal(zc_replay_request(r, &q), 0);
    if (rc < 0)
        fail_msg("%s", zc_trace_error(t));
    zc_replay_stats_get(r, &st);
    zc_replay_destroy(r);
    zc_trace_close(t);
    return st;
}

static void test_real_traces_reproduce_reference_lru_hits(void **state)
{
    char path[1024];

    (void)state;
    if (shared_path(refs[0].file, path, sizeof(path))) {
        print_message("SKIPPED: %s not found (the reference traces live in "
                      "../shared/traces/ext)\n",
                      path);
        skip();
    }
    for (size_t i = 0; i < sizeof(refs) / sizeof(*refs); i++) {
        assert_int_equal(shared_path(refs[i].file, path, sizeof(path)), 0);
        for (int k = 0; k < 5; k++) {
            zc_replay_stats st = replay_file(path, refs[i].cap[k], NULL, NULL);
            assert_int_equal(st.accesses, refs[i].accesses);
            if (st.pc_hits != refs[i].hits[k])
                fail_msg("%s at %llu pages: %llu hits, reference %llu",
                         refs[i].file, (unsigned long long)refs[i].cap[k],
                         (unsigned long long)st.pc_hits,
                         (unsigned long long)refs[i].hits[k]);
        }
    }
}

/* The one-pass curve against the naive LRU, at capacities around the
 * working set, over enough accesses to renumber its window many times. */
static void test_mrc_equals_a_naive_lru_at_every_size(void **state)
{
    static const uint64_t caps[] = {1, 2, 3, 7, 64, 100, 333, 1000, 4000};
    struct naive l[sizeof(caps) / sizeof(*caps)];
    zc_mrc *m;
    zt_rng g;
    (void)state;

    for (size_t c = 0; c < sizeof(caps) / sizeof(*caps); c++) {
        l[c].keys = calloc(caps[c] + 1, 8);
        l[c].n = 0;
        l[c].cap = caps[c];
        l[c].hits = 0;
    }
    assert_int_equal(zc_mrc_create(&m), 0);
    zt_rng_seed(&g, 4242);
    for (int i = 0; i < 20000; i++) {
        zc_request q;
        make_request(&g, &q);
        assert_int_equal(zc_mrc_request(m, &q, 4096), 0);
        for (uint64_t p = q.offset / 4096;
             p <= (q.offset + q.length - 1) / 4096; p++)
            for (size_t c = 0; c < sizeof(caps) / sizeof(*caps); c++)
                naive_access(&l[c], key_of(q.dev, p));
    }
    for (size_t c = 0; c < sizeof(caps) / sizeof(*caps); c++) {
        assert_int_equal(zc_mrc_hits(m, caps[c]), l[c].hits);
        free(l[c].keys);
    }
    assert_int_equal(zc_mrc_hits(m, 0), 0);
    assert_true(zc_mrc_hits(m, UINT64_MAX) ==
                zc_mrc_accesses(m) - zc_mrc_distinct(m));
    zc_mrc_destroy(m);
}

static void test_mrc_reproduces_reference_lru_hits(void **state)
{
    char path[1024];

    (void)state;
    if (shared_path(refs[0].file, path, sizeof(path))) {
        print_message("SKIPPED: %s not found\n", path);
        skip();
    }
    for (size_t i = 0; i < sizeof(refs) / sizeof(*refs); i++) {
        const char *paths[1] = {path};
        zc_trace *t;
        zc_mrc *m;
        zc_request q = {0};
        int rc;

        assert_int_equal(shared_path(refs[i].file, path, sizeof(path)), 0);
        assert_int_equal(zc_trace_open(paths, 1, NULL, &t, NULL, 0), 0);
        assert_int_equal(zc_mrc_create(&m), 0);
        while ((rc = zc_trace_next(t, &q)) == 1)
            assert_int_equal(zc_mrc_request(m, &q, 4096), 0);
        assert_int_equal(rc, 0);
        assert_int_equal(zc_mrc_accesses(m), refs[i].accesses);
        assert_int_equal(zc_mrc_distinct(m), refs[i].distinct);
        for (int k = 0; k < 5; k++)
            if (zc_mrc_hits(m, refs[i].cap[k]) != refs[i].hits[k])
                fail_msg("%s at %llu pages: curve %llu hits, reference %llu",
                         refs[i].file, (unsigned long long)refs[i].cap[k],
                         (unsigned long long)zc_mrc_hits(m, refs[i].cap[k]),
                         (unsigned long long)refs[i].hits[k]);
        zc_mrc_destroy(m);
        zc_trace_close(t);
    }
}

static void test_real_traces_raw_cross_check(void **state)
{
    char path[1024];

    (void)state;
    if (shared_path(refs[0].file, path, sizeof(path))) {
        print_message("SKIPPED: %s not found\n", path);
        skip();
    }
    for (size_t i = 0; i < sizeof(refs) / sizeof(*refs); i++) {
        assert_int_equal(shared_path(refs[i].file, path, sizeof(path)), 0);
        for (int k = 0; k < 5; k++) {
            /* Split the reference capacity between the two tiers. */
            uint64_t total = refs[i].cap[k];
            uint64_t p = total / 3, v = total - p;
            zc_cache *zc = raw_zcache(v);
            zc_content *content;
            zc_replay_stats st;

            assert_int_equal(zc_content_open("zero", 4096, &content, NULL, 0),
                             0);
            st = replay_file(path, p, zc, content);
            if (st.resident_hits != refs[i].hits[k])
                fail_msg("%s P=%llu V=%llu: %llu resident hits, reference "
                         "LRU(%llu) %llu",
                         refs[i].file, (unsigned long long)p,
                         (unsigned long long)v,
                         (unsigned long long)st.resident_hits,
                         (unsigned long long)total,
                         (unsigned long long)refs[i].hits[k]);
            zc_content_close(content);
            zc_cache_destroy(zc);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_page_cache_hits_equal_a_naive_lru),
        cmocka_unit_test(test_raw_two_tiers_hit_like_one_lru_of_both),
        cmocka_unit_test(test_gets_return_the_latest_version),
        cmocka_unit_test(test_puts_of_pages_hit_in_the_page_cache_are_active),
        cmocka_unit_test(test_resized_page_cache_is_a_resized_lru),
        cmocka_unit_test(test_real_traces_reproduce_reference_lru_hits),
        cmocka_unit_test(test_real_traces_raw_cross_check),
        cmocka_unit_test(test_mrc_equals_a_naive_lru_at_every_size),
        cmocka_unit_test(test_mrc_reproduces_reference_lru_hits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
