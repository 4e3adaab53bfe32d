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

/* the former name, kept for existing programs: it includes zcache_sim.h */
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

static uint64_t file_key_of(uint32_t dev, uint64_t ino, uint64_t page)
{
    assert_true(dev < 1u << 8 && ino < 1u << 16 && page < 1ull << 32);
    return (uint64_t)dev << 48 | ino << 32 | page;
}

/* For each capacity in caps (index c): 20000 requests of make (seeded
 * seed + c) through a replay with no zcache, whose page-cache hits (and,
 * if resident, resident hits) must be those of the naive LRU of that
 * capacity over the requests' pages, keyed (dev, ino, index). */
static void check_hits_equal_a_naive_lru(const uint64_t *caps, size_t ncaps,
                                         uint64_t seed,
                                         void (*make)(zt_rng *, zc_request *),
                                         bool resident)
{
    for (size_t c = 0; c < ncaps; c++) {
        struct naive l = {calloc(caps[c] + 1, 8), 0, caps[c], 0};
        zc_replay *r;
        zc_replay_stats st;
        zt_rng g;
        uint64_t accesses = 0;

        zt_rng_seed(&g, seed + c);
        assert_int_equal(zc_replay_create(caps[c], 4096, NULL, NULL, &r), 0);
        for (int i = 0; i < 20000; i++) {
            zc_request q;
            make(&g, &q);
            assert_int_equal(zc_replay_request(r, &q), 0);
            for (uint64_t p = q.offset / 4096;
                 p <= (q.offset + q.length - 1) / 4096; p++) {
                naive_access(&l, file_key_of(q.dev, q.ino, p));
                accesses++;
            }
        }
        assert_int_equal(zc_replay_stats_get(r, &st), 0);
        assert_int_equal(st.accesses, accesses);
        assert_int_equal(st.pc_hits, l.hits);
        if (resident)
            assert_int_equal(st.resident_hits, l.hits);
        assert_int_equal(st.reads + st.writes, st.accesses);
        zc_replay_destroy(r);
        free(l.keys);
    }
}

static void test_page_cache_hits_equal_a_naive_lru(void **state)
{
    static const uint64_t caps[] = {0, 1, 7, 100, 1000};
    (void)state;
    check_hits_equal_a_naive_lru(caps, sizeof(caps) / sizeof(*caps), 77,
                                 make_request, true);
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
    zc_trace_options opt = {.page_size = 4096};
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
        fail_msg("%s not found (the reference traces live in "
                 "../shared/traces/ext)",
                 path);
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
        fail_msg("%s not found", path);
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
        fail_msg("%s not found", path);
    }
    for (size_t i = 0; i < sizeof(refs) / sizeof(*refs); i++) {
        assert_int_equal(shared_path(refs[i].file, path, sizeof(path)), 0);
        for (int k = 0; k < 5; k++) {
            /* the quick tier: one of the five sizes a trace, another for
             * each trace */
            if (zt_quick() && (size_t)k != i % 5)
                continue;
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

/* ---- file-keyed requests (ino != 0) ----------------------------------- */

/* A stream mixing block requests and the pages of a few inodes of two
 * file systems, all on the same small page indexes, some mapped.  Inode
 * numbers are never equal to a dev here, nor are they elsewhere: they only
 * need to differ from each other. */
static void make_file_request(zt_rng *g, zc_request *q)
{
    make_request(g, q);
    q->dev = 5 + (uint32_t)zt_rng_below(g, 2);
    q->ino = zt_rng_below(g, 4) ? 100 + zt_rng_below(g, 4) : 0;
    q->flags = zt_rng_below(g, 5) ? 0 : ZC_REQ_MAPPED;
}

static void test_file_keyed_hits_equal_a_naive_lru(void **state)
{
    static const uint64_t caps[] = {0, 1, 7, 100, 1000, 5000};
    (void)state;
    check_hits_equal_a_naive_lru(caps, sizeof(caps) / sizeof(*caps), 177,
                                 make_file_request, false);
}

/* What the sink saw: every put's bytes must be the content of its own
 * (dev, ino, index) at its own version (counted here from the writes). */
struct put_check {
    zc_content *content;
    uint32_t pool_dev[16];   /* stream pool -> dev, from the test's view */
    uint64_t versions[4096]; /* by a small hash of the key: exact here */
    uint64_t puts, gets;
    unsigned char page[4096];
};

static unsigned key_slot(uint32_t dev, uint64_t ino, uint64_t page)
{
    /* devs 5..6, inos 0 or 100..103, pages < 3100: no collisions */
    unsigned i = ino ? (unsigned)(ino - 99) : 0;
    assert_true(page < 400); /* the tests below stay under it */
    return ((dev - 5) * 5 + i) * 400 + (unsigned)page % 400;
}

static uint64_t op_ino(const zc_op *op)
{
    uint64_t ino;
    memcpy(&ino, op->key.fh, sizeof(ino));
    return ino;
}

static int check_put(void *ctx, const zc_op *op)
{
    struct put_check *pc = ctx;
    uint64_t ino;
    uint32_t dev;

    if (op->kind != ZC_OP_PUT)
        return 0;
    /* the pool's dev comes from the ino key of block pages; file pages
     * name their inode: find the dev by trying both file systems */
    ino = op_ino(op);
    pc->puts++;
    for (dev = 5; dev <= 6; dev++) {
        uint64_t file_ino = ino == dev ? 0 : ino;
        uint64_t v;
        if (ino < 100 && ino != dev)
            continue;
        v = pc->versions[key_slot(dev, file_ino, op->index)];
        assert_int_equal(zc_content_file_page(pc->content, dev, file_ino,
                                              op->index, v, pc->page),
                         0);
        if (!memcmp(pc->page, op->page, 4096))
            return 0;
    }
    fail_msg("a put of key %llu index %llu carries another page's bytes",
             (unsigned long long)ino, (unsigned long long)op->index);
    return -1;
}

/* The same index in two inodes (and in the block device) are three
 * pages: a write of one never invalidates another, a get of one never
 * returns another's bytes, every put carries its own page's content. */
static void test_file_pages_never_alias(void **state)
{
    zc_content *content;
    zc_cache *zc = raw_zcache(600);
    static struct put_check pc;
    zc_replay *r;
    zc_replay_stats st;
    zt_rng g;
    (void)state;

    assert_int_equal(zc_content_open("synth:5", 4096, &content, NULL, 0), 0);
    memset(&pc, 0, sizeof(pc));
    pc.content = content;

    /* By hand: inode 100's page 0 goes to the zcache; inode 101's page 0
     * is written; inode 100's page 0 still hits there. */
    assert_int_equal(zc_replay_create(1, 4096, zc, content, &r), 0);
    zc_replay_verify(r, true);
    {
        zc_request a = {.dev = 5, .ino = 100, .length = 4096};
        zc_request b = {.dev = 5, .ino = 101, .length = 4096, .write = true};
        zc_request blk = {.dev = 5, .length = 4096, .write = true};
        assert_int_equal(zc_replay_request(r, &a), 0);
        assert_int_equal(zc_replay_request(r, &b), 0);   /* evicts a */
        assert_int_equal(zc_replay_request(r, &blk), 0); /* evicts b */
        assert_int_equal(zc_replay_request(r, &a), 0);
    }
    assert_int_equal(zc_replay_stats_get(r, &st), 0);
    assert_int_equal(st.zc_hits, 1);
    assert_int_equal(st.zc_wrong, 0);
    zc_replay_destroy(r);

    /* Random: contents checked at every put, gets verified. */
    assert_int_equal(zc_replay_create(200, 4096, zc, content, &r), 0);
    zc_replay_verify(r, true);
    assert_int_equal(zc_replay_sink(r, check_put, &pc), 0);
    zt_rng_seed(&g, 31);
    for (int i = 0; i < 30000; i++) {
        zc_request q;
        make_file_request(&g, &q);
        q.offset %= 390 * 4096;
        assert_int_equal(zc_replay_request(r, &q), 0);
        for (uint64_t p = q.offset / 4096;
             q.write && p <= (q.offset + q.length - 1) / 4096; p++)
            pc.versions[key_slot(q.dev, q.ino, p)]++;
    }
    assert_int_equal(zc_replay_stats_get(r, &st), 0);
    assert_true(st.zc_hits > 1000);
    assert_true(pc.puts > 1000);
    assert_int_equal(st.zc_wrong, 0);
    assert_int_equal(zc_cache_check(zc), 0);
    zc_replay_destroy(r);
    zc_content_close(content);
    zc_cache_destroy(zc);
}

/* The op stream keys a file page pool = its file system, key = its inode,
 * index = its page in the file; a block page key = the device, in a pool
 * of its own. */
static void test_op_stream_of_file_keys_carries_the_inode(void **state)
{
    char path[256];
    zc_ops_writer_options wo = {.text = true};
    zc_ops_writer *w;
    zc_ops_reader *in;
    zc_content *content;
    zc_replay *r;
    zc_op op;
    int rc, inits = 0;
    uint64_t ops[3] = {0};
    const zc_request reqs[] = {
        {.dev = 5, .ino = 100, .offset = 3 * 4096, .length = 4096},
        {.dev = 5, .offset = 3 * 4096, .length = 4096},
        {.dev = 6,
         .ino = 100,
         .offset = 3 * 4096,
         .length = 4096,
         .flags = ZC_REQ_MAPPED},
        /* inode 5 of file system 5: not block page 3 of device 5 */
        {.dev = 5, .ino = 5, .offset = 3 * 4096, .length = 4096},
    };
    /* what each request's get must be: pool (in order of first sight),
     * key */
    const uint64_t want[][2] = {{0, 100}, {1, 5}, {2, 100}, {0, 5}};
    (void)state;

    snprintf(path, sizeof(path), "/tmp/test_replay_ops_%d.txt", (int)getpid());
    assert_int_equal(zc_content_open("synth", 4096, &content, NULL, 0), 0);
    assert_int_equal(zc_ops_writer_open(path, &wo, &w, NULL, 0), 0);
    assert_int_equal(zc_replay_create(0, 4096, NULL, content, &r), 0);
    assert_int_equal(zc_replay_save_ops(r, w), 0);
    for (size_t i = 0; i < sizeof(reqs) / sizeof(*reqs); i++)
        assert_int_equal(zc_replay_request(r, &reqs[i]), 0);
    zc_replay_destroy(r);
    assert_int_equal(zc_ops_writer_close(w, NULL, 0), 0);

    assert_int_equal(zc_ops_open(path, &in, NULL, 0), 0);
    for (size_t i = 0; (rc = zc_ops_next(in, &op)) == 1;) {
        if (op.kind == ZC_OP_INIT_FS) {
            inits++;
            continue;
        }
        assert_true(i < 4);
        assert_int_equal(op.index, 3);
        assert_int_equal(op.pool, want[i][0]);
        assert_int_equal(op_ino(&op), want[i][1]);
        ops[op.kind == ZC_OP_GET ? 0 : op.kind == ZC_OP_PUT ? 1 : 2]++;
        if (op.kind == ZC_OP_PUT) /* no page cache: each get's put */
            i++;
    }
    assert_int_equal(rc, 0);
    assert_int_equal(inits, 3); /* dev 5's files, dev 5, dev 6's files */
    assert_int_equal(ops[0], 4);
    assert_int_equal(ops[1], 4);
    assert_int_equal(ops[2], 0);
    zc_ops_close(in);
    zc_content_close(content);
    unlink(path);
}

/* The curve of a file-keyed stream equals the replay's hits at every
 * size, whether fed by requests or page by page. */
static void test_mrc_of_file_keys_equals_the_replay(void **state)
{
    static const uint64_t caps[] = {0, 1, 3, 50, 333, 1000, 4000, 20000};
    zc_mrc *m, *m2;
    zt_rng g;
    (void)state;

    assert_int_equal(zc_mrc_create(&m), 0);
    assert_int_equal(zc_mrc_create(&m2), 0);
    zt_rng_seed(&g, 99);
    for (int i = 0; i < 20000; i++) {
        zc_request q;
        make_file_request(&g, &q);
        assert_int_equal(zc_mrc_request(m, &q, 4096), 0);
        for (uint64_t p = q.offset / 4096;
             p <= (q.offset + q.length - 1) / 4096; p++)
            assert_int_equal(zc_mrc_file_access(m2, q.dev, q.ino, p), 0);
    }
    assert_int_equal(zc_mrc_accesses(m), zc_mrc_accesses(m2));
    assert_int_equal(zc_mrc_distinct(m), zc_mrc_distinct(m2));
    for (size_t c = 0; c < sizeof(caps) / sizeof(*caps); c++) {
        zc_replay *r;
        zc_replay_stats st;

        zt_rng_seed(&g, 99);
        assert_int_equal(zc_replay_create(caps[c], 4096, NULL, NULL, &r), 0);
        for (int i = 0; i < 20000; i++) {
            zc_request q;
            make_file_request(&g, &q);
            assert_int_equal(zc_replay_request(r, &q), 0);
        }
        assert_int_equal(zc_replay_stats_get(r, &st), 0);
        assert_int_equal(zc_mrc_hits(m, caps[c]), st.pc_hits);
        assert_int_equal(zc_mrc_hits(m2, caps[c]), st.pc_hits);
        zc_replay_destroy(r);
    }
    /* ino 0 is the block page: the same key as zc_mrc_access() */
    assert_int_equal(zc_mrc_access(m2, 5, 7), 0);
    {
        uint64_t d = zc_mrc_distinct(m2);
        assert_int_equal(zc_mrc_file_access(m2, 5, 0, 7), 0);
        assert_int_equal(zc_mrc_distinct(m2), d);
        assert_int_equal(zc_mrc_file_access(m2, 5, 1, 7), 0);
        assert_int_equal(zc_mrc_distinct(m2), d + 1);
    }
    zc_mrc_destroy(m);
    zc_mrc_destroy(m2);
}

/* A page cache resized mid-run under a file-keyed stream is still the
 * naive LRU of the new size (shrinking evicts file pages too). */
static void test_resized_page_cache_with_file_keys(void **state)
{
    static const uint64_t sizes[] = {300, 20, 0, 1000, 5};
    struct naive l = {calloc(1001, 8), 0, 0, 0};
    zc_replay *r;
    zc_replay_stats st;
    zt_rng g;
    (void)state;

    assert_int_equal(zc_replay_create(1, 4096, NULL, NULL, &r), 0);
    zt_rng_seed(&g, 4);
    for (size_t k = 0; k < sizeof(sizes) / sizeof(*sizes); k++) {
        assert_int_equal(zc_replay_set_page_cache(r, sizes[k]), 0);
        if (l.n > sizes[k])
            l.n = sizes[k];
        l.cap = sizes[k];
        for (int i = 0; i < 4000; i++) {
            zc_request q;
            make_file_request(&g, &q);
            assert_int_equal(zc_replay_request(r, &q), 0);
            for (uint64_t p = q.offset / 4096;
                 p <= (q.offset + q.length - 1) / 4096; p++)
                naive_access(&l, file_key_of(q.dev, q.ino, p));
        }
        assert_int_equal(zc_replay_stats_get(r, &st), 0);
        assert_int_equal(st.pc_hits, l.hits);
    }
    zc_replay_destroy(r);
    free(l.keys);
}

static int count_puts(void *ctx, const zc_op *op)
{
    uint64_t *n = ctx;

    if (op->kind == ZC_OP_PUT) {
        assert_null(op->page); /* no content source: no bytes made */
        (*n)++;
    }
    return 0;
}

/* A sink that only counts needs no contents (zcache-sweep's rows without
 * a zcache): its puts come without bytes, and none are made. */
static void test_a_sink_without_contents_gets_puts_without_bytes(void **state)
{
    zc_replay *r;
    zc_replay_stats st;
    zc_request q = {.dev = 1, .length = 4096};
    uint64_t puts = 0;

    (void)state;
    assert_int_equal(zc_replay_create(4, 4096, NULL, NULL, &r), 0);
    assert_int_equal(zc_replay_sink(r, count_puts, &puts), 0);
    for (uint64_t i = 0; i < 100; i++) {
        q.offset = i % 10 * 4096;
        assert_int_equal(zc_replay_request(r, &q), 0);
    }
    assert_int_equal(zc_replay_stats_get(r, &st), 0);
    assert_int_equal(st.pc_evictions, 96);
    assert_int_equal(puts, 96);
    zc_replay_destroy(r);
}

/* A fan-out plays each cache exactly as a replay of that cache alone
 * would: every counter of the replay and every deterministic counter of
 * the cache, with and without the memo, on one thread and on three; with
 * caches that compress alike (the memo prepares once for them) and not.
 * 30000 requests (the quick tier: 1500, still thousands of evictions). */
static void check_fanout(int threads, bool with_memo)
{
    static const char *const specs[] = {
        "capacity=64K",
        "capacity=256K",
        "capacity=256K,policy=fifo",
        "capacity=1M,compressor=none,accept_percent=100",
        "capacity=128K,compressor=lzo,level=9",
        "capacity=512K,allocator=zbud",
        NULL, /* a player without a zcache */
    };
    enum { N = sizeof(specs) / sizeof(specs[0]), PC = 64 };
    zc_cache *zc[N], *alone;
    zc_player *pl[N];
    zc_content *content;
    zc_memo *memo = NULL;
    zc_fanout *f;
    zc_replay *r;
    char err[256];
    const uint64_t requests = zt_scale(30000, 1500);

    assert_int_equal(zc_content_open("synth", 4096, &content, err, sizeof(err)),
                     0);
    if (with_memo)
        assert_int_equal(zc_memo_create(64 << 20, &memo), 0);
    assert_int_equal(zc_fanout_create(4096, threads, memo, &f), 0);
    for (size_t i = 0; i < N; i++) {
        zc[i] = NULL;
        if (specs[i]) {
            zc_config cfg = zc_config_default();
            assert_int_equal(zc_config_parse(&cfg, specs[i]), 0);
            cfg.memo = memo;
            assert_int_equal(zc_cache_create(&cfg, &zc[i]), 0);
        }
        assert_int_equal(zc_player_create(zc[i], &pl[i]), 0);
        assert_int_equal(zc_fanout_add(f, pl[i], zc[i]), 0);
    }
    assert_int_equal(zc_replay_create(PC, 4096, NULL, content, &r), 0);
    assert_int_equal(zc_replay_sink(r, zc_fanout_sink, f), 0);
    zt_rng g;
    zt_rng_seed(&g, 77);
    for (uint64_t i = 0; i < requests; i++) {
        zc_request q;
        make_request(&g, &q);
        assert_int_equal(zc_replay_request(r, &q), 0);
    }
    assert_int_equal(zc_fanout_flush(f), 0);
    /* a player cannot be added once ops have been played */
    assert_int_equal(zc_fanout_add(f, pl[0], zc[0]), -ZC_EINVAL);
    for (size_t i = 0; i < N; i++) {
        zc_replay *one;
        zc_replay_stats a, b;
        zc_stats za, zb;

        assert_int_equal(zc_fanout_status(f, i), 0);
        alone = specs[i] ? zt_cache_new(specs[i], NULL) : NULL;
        assert_int_equal(zc_replay_create(PC, 4096, alone, content, &one), 0);
        zt_rng_seed(&g, 77);
        for (uint64_t k = 0; k < requests; k++) {
            zc_request q;
            make_request(&g, &q);
            assert_int_equal(zc_replay_request(one, &q), 0);
        }
        assert_int_equal(zc_replay_stats_get(one, &a), 0);
        assert_int_equal(zc_player_stats_get(pl[i], &b), 0);
        b.requests = a.requests; /* the model's, not the player's */
        assert_memory_equal(&a, &b, sizeof(a));
        assert_true(a.pc_evictions > 1000);
        if (alone) {
            assert_int_equal(zc_stats_get(alone, &za), 0);
            assert_int_equal(zc_stats_get(zc[i], &zb), 0);
            assert_true(za.stored_puts > 0);
            /* every counter but the times (the memo's work memory is
             * its own, so a cache's memory is the same on any thread) */
#define SAME(f)                                                                \
    if (!strstr(#f, "_ns"))                                                    \
        assert_int_equal(za.f, zb.f);
            ZC_STATS_FIELDS(SAME)
#undef SAME
        }
        zc_replay_destroy(one);
        zc_cache_destroy(alone);
    }
    assert_int_equal(zc_fanout_status(f, N), -ZC_EINVAL);
    zc_fanout_destroy(f);
    zc_replay_destroy(r);
    for (size_t i = 0; i < N; i++) {
        zc_player_destroy(pl[i]);
        zc_cache_destroy(zc[i]);
    }
    zc_memo_destroy(memo);
    zc_content_close(content);
}

static void test_fanout_plays_each_cache_as_alone(void **state)
{
    (void)state;
    check_fanout(1, false);
    check_fanout(3, true);
    check_fanout(64, true);
}

/* Refused: bad arguments, and an init op of another page size (its puts'
 * pages would be copied short). */
static void test_fanout_refuses_what_it_cannot_play(void **state)
{
    zc_fanout *f;
    zc_player *p;
    zc_op init = {.kind = ZC_OP_INIT_FS, .pool = 0, .page_size = 8192};

    (void)state;
    assert_int_equal(zc_fanout_create(4096, 0, NULL, &f), -ZC_EINVAL);
    assert_int_equal(zc_fanout_create(4096, 65, NULL, &f), -ZC_EINVAL);
    assert_int_equal(zc_fanout_create(100, 1, NULL, &f), -ZC_EINVAL);
    assert_int_equal(zc_fanout_create(4096, 2, NULL, NULL), -ZC_EINVAL);
    assert_int_equal(zc_fanout_create(4000, 1, NULL, &f), -ZC_EINVAL);
    assert_int_equal(zc_fanout_create(4096, 2, NULL, &f), 0);
    assert_int_equal(zc_player_create(NULL, &p), 0);
    assert_int_equal(zc_fanout_add(f, NULL, NULL), -ZC_EINVAL);
    {
        /* a cache of another page size: its pages would be read past the
         * fan-out's copies */
        zc_cache *big = zt_cache_new("capacity=1M,page_size=8192", NULL);
        zc_player *pb;
        assert_int_equal(zc_player_create(big, &pb), 0);
        assert_int_equal(zc_fanout_add(f, pb, big), -ZC_EINVAL);
        zc_player_destroy(pb);
        zc_cache_destroy(big);
    }
    assert_int_equal(zc_fanout_add(f, p, NULL), 0);
    /* the same player twice: two threads would drive it at once */
    assert_int_equal(zc_fanout_add(f, p, NULL), -ZC_EINVAL);
    assert_int_equal(zc_fanout_sink(f, &init), -ZC_EINVAL);
    init.page_size = 4096;
    assert_int_equal(zc_fanout_sink(f, &init), 0);
    assert_int_equal(zc_fanout_sink(f, &init), 0); /* a second init of 0 */
    assert_int_equal(zc_fanout_flush(f), 0);
    /* the player refused the second init: its error, kept */
    assert_int_equal(zc_fanout_status(f, 0), -ZC_EINVAL);
    zc_fanout_destroy(f);
    zc_player_destroy(p);
    zc_fanout_destroy(NULL);
}

/* Tests on the reference traces in ../shared/traces/ext (not part of the
 * project) run apart, as `test_replay --shared`: without them that run
 * says so and exits 77 (ctest: skipped), and nothing else is ever a skip. */
int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_page_cache_hits_equal_a_naive_lru),
        cmocka_unit_test(test_raw_two_tiers_hit_like_one_lru_of_both),
        cmocka_unit_test(test_gets_return_the_latest_version),
        cmocka_unit_test(test_puts_of_pages_hit_in_the_page_cache_are_active),
        cmocka_unit_test(test_resized_page_cache_is_a_resized_lru),
        cmocka_unit_test(test_mrc_equals_a_naive_lru_at_every_size),
        cmocka_unit_test(test_file_keyed_hits_equal_a_naive_lru),
        cmocka_unit_test(test_file_pages_never_alias),
        cmocka_unit_test(test_op_stream_of_file_keys_carries_the_inode),
        cmocka_unit_test(test_mrc_of_file_keys_equals_the_replay),
        cmocka_unit_test(test_resized_page_cache_with_file_keys),
        cmocka_unit_test(test_a_sink_without_contents_gets_puts_without_bytes),
        cmocka_unit_test(test_fanout_plays_each_cache_as_alone),
        cmocka_unit_test(test_fanout_refuses_what_it_cannot_play),
    };
    const struct CMUnitTest shared[] = {
        cmocka_unit_test(test_real_traces_reproduce_reference_lru_hits),
        cmocka_unit_test(test_real_traces_raw_cross_check),
        cmocka_unit_test(test_mrc_reproduces_reference_lru_hits),
    };

    if (argc > 1 && !strcmp(argv[1], "--shared")) {
        if (access(ZC_SHARED_DIR "/traces/ext", R_OK | X_OK)) {
            printf("SKIP: %s/traces/ext is missing (the reference traces "
                   "are not part of the project)\n",
                   ZC_SHARED_DIR);
            return 77;
        }
        return cmocka_run_group_tests_name("shared", shared, NULL, NULL);
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
