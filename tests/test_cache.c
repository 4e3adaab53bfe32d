/*
 * test_cache.c - the conformance suite of the cache API.
 *
 * Every check runs once per registered allocator (the group "allocator=X"),
 * then once per other policy and compressor, and with each admission
 * option and dedup: every back-end through the same semantic checks.
 * Expectations come from include/zcache.h and first principles: admission
 * decisions are predicted with liblzo2's own lzo1x_1_compress(), same-filled
 * pages are recognised by the test itself, and LRU order follows from the
 * puts and gets the test makes.  A check that relies on one of these (LZO
 * sizes, rejection, LRU order, eviction, a copy per page) says so with
 * REQUIRE() and is skipped in the groups that change it; coherence (no
 * stale or wrong data) is checked in every group.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "zcache.h"
#include "zt_util.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* The back-end the current group runs with: a spec put in front of every
 * cache's own ("allocator=zbud", "policy=clock", "compressor=zstd"...). */
static const char *g_alloc = "allocator=zsmalloc";
static char g_group[128];

/* What a test relies on that some groups do not give; a test states its
 * needs with REQUIRE() and is skipped in groups that lack them.  Every
 * group runs every test that does not depend on these. */
enum {
    NEED_LZO = 1,     /* admission predicted by liblzo2's lzo1x_1 sizes */
    NEED_REJECT = 2,  /* pages above accept_percent are rejected */
    NEED_LRU = 4,     /* eviction in least recently used page order */
    NEED_EVICT = 8,   /* a put that does not fit evicts and is stored */
    NEED_COPIES = 16, /* every stored page has a copy of its own (no dedup) */
};
static unsigned g_lacks;
/* The outcome of a put that found no room: with hysteresis, the cache
 * shrinks and rejects it as FULL instead. */
#define NOSPACE                                                                \
    ((g_lacks & NEED_EVICT) ? ZC_PUT_REJECT_FULL : ZC_PUT_REJECT_NOSPACE)
/* Sizes predicted by liblzo2 hold only for LZO1X-1. */
#define ASSERT_LZO_SIZE(got, want)                                             \
    do {                                                                       \
        if (!(g_lacks & NEED_LZO))                                             \
            assert_int_equal((got), (want));                                   \
    } while (0)
#define REQUIRE(what)                                                          \
    do {                                                                       \
        if (g_lacks & (what))                                                  \
            skip();                                                            \
    } while (0)

/* The compressors that tests looping over compressors use: both of the
 * defaults, or the one a compressor group is about. */
static const char *g_compressors[2] = {"lzo", "none"};
static size_t g_ncompressors = 2;

/* A cache with "allocator=<current>," + spec. */
static zc_cache *new_cache(const char *spec, zc_config *cfg)
{
    char full[512];
    snprintf(full, sizeof(full), "%s%s%s%s", g_alloc, spec && *spec ? "," : "",
             spec ? spec : "",
             /* a group's level is not for a test's own compressor=none */
             spec && strstr(spec, "compressor=none") ? ",level=0" : "");
    return zt_cache_new(full, cfg);
}

static zc_filekey ino(uint64_t n)
{
    return zc_filekey_from_ino(n);
}

static void *page_alloc(size_t ps)
{
    void *p = malloc(ps);
    assert_non_null(p);
    return p;
}

static zc_stats stats_of(const zc_cache *c)
{
    zc_stats s;
    assert_int_equal(zc_stats_get(c, &s), 0);
    return s;
}

/*
 * A real file page, unique by tag (its first 8 bytes), whose LZO1X-1 size
 * is at most max_lzo and which is not same-filled.  Returns that size.
 */
static size_t make_real_page(void *buf, size_t ps, uint64_t tag, size_t max_lzo)
{
    size_t n = zt_corpus_pages(ps);
    /* Other compressors than LZO1X-1: a page LZO takes to well under the
     * bound is under it for them too (lz4 comes within 20% of LZO). */
    if (g_lacks & NEED_LZO)
        max_lzo = max_lzo * 5 / 8;
    size_t start = (size_t)(zt_mix64(tag) % n);
    for (size_t i = 0; i < n; i++) {
        memcpy(buf, zt_corpus_page(ps, start + i), ps);
        memcpy(buf, &tag, 8);
        if (zt_is_same_filled(buf, ps))
            continue;
        size_t sz = zt_lzo_size(buf, ps);
        if (sz <= max_lzo)
            return sz;
    }
    fail_msg("no corpus page of %zu bytes compresses to <= %zu", ps, max_lzo);
    return 0;
}

/* An incompressible page (LZO expands it). */
static void make_random_page(void *buf, size_t ps, uint64_t tag)
{
    zt_fill_random(buf, ps, tag);
    assert_false(zt_is_same_filled(buf, ps));
}

/* ------------------------------------------------------------- round trip */

enum page_kind { K_REAL, K_ZERO, K_WORD, K_RANDOM, K_MIXED, K_KINDS };

static void make_page(void *buf, size_t ps, enum page_kind kind, uint64_t tag)
{
    switch (kind) {
    case K_REAL:
        memcpy(buf, zt_corpus_page(ps, (size_t)tag * 7), ps);
        memcpy(buf, &tag, 8);
        break;
    case K_ZERO: memset(buf, 0, ps); break;
    case K_WORD: zt_fill_word(buf, ps, zt_mix64(tag) | 1); break;
    case K_RANDOM: make_random_page(buf, ps, tag); break;
    case K_MIXED: {
        /* A real page whose tail is random: sizes around the threshold. */
        memcpy(buf, zt_corpus_page(ps, (size_t)tag * 13), ps);
        size_t k = (size_t)(zt_mix64(tag ^ 0x55) % ps);
        zt_fill_random((unsigned char *)buf + ps - k, k, tag);
        memcpy(buf, &tag, 8);
        break;
    }
    default: fail();
    }
}

/* The result zc_put_page must give on a cache with room to spare. */
static int expected_put(const void *page, size_t ps, const char *comp,
                        unsigned accept, bool same_filled)
{
    if (same_filled && zt_is_same_filled(page, ps))
        return 0;
    size_t sz = strcmp(comp, "none") == 0 ? ps : zt_lzo_size(page, ps);
    return sz <= zt_threshold(ps, accept) ? 0 : ZC_PUT_REJECT_POOR;
}

static void round_trip(const char *comp, size_t ps, unsigned accept)
{
    enum { NPAGES = 40 };
    char spec[256];
    size_t cap = (size_t)NPAGES * ps * 2;
    snprintf(spec, sizeof(spec),
             "compressor=%s,page_size=%zu,accept_percent=%u,capacity=%zu", comp,
             ps, accept, cap);
    zc_config cfg;
    zc_cache *c = new_cache(spec, &cfg);
    int pool = zc_init_fs(c, ps);
    assert_true(pool >= 0);
    unsigned char *pg = page_alloc(ps), *out = page_alloc(ps);
    int want[NPAGES];
    uint64_t stored = 0;
    for (int i = 0; i < NPAGES; i++) {
        zc_filekey k = ino(1 + (uint64_t)i % 3);
        make_page(pg, ps, (enum page_kind)(i % K_KINDS), (uint64_t)i + 100);
        want[i] = expected_put(pg, ps, comp, accept, true);
        int rc = zc_put_page(c, pool, &k, (uint64_t)i, pg);
        /* Without a prediction, the gets below follow what the put did. */
        if ((g_lacks & NEED_LZO) && (rc == 0 || rc == ZC_PUT_REJECT_POOR))
            want[i] = rc;
        if ((g_lacks & NEED_REJECT) && want[i] == ZC_PUT_REJECT_POOR && rc == 0)
            want[i] = 0; /* store_raw */
        if (rc != want[i])
            print_message("%s ps=%zu accept=%u page %d kind %d: put %d "
                          "want %d\n",
                          comp, ps, accept, i, i % K_KINDS, rc, want[i]);
        assert_int_equal(rc, want[i]);
        stored += rc == 0;
    }
    zt_assert_cache_sane(c, ps, cap);
    zc_stats s = stats_of(c);
    assert_int_equal(s.stored_pages, stored);
    assert_int_equal(s.evictions, 0);
    for (int i = 0; i < NPAGES; i++) {
        zc_filekey k = ino(1 + (uint64_t)i % 3);
        make_page(pg, ps, (enum page_kind)(i % K_KINDS), (uint64_t)i + 100);
        memset(out, 0xa5, ps);
        int rc = zc_get_page(c, pool, &k, (uint64_t)i, out);
        if (want[i] == 0) {
            assert_int_equal(rc, 0);
            assert_memory_equal(out, pg, ps);
        } else {
            assert_int_equal(rc, -ZC_ENOENT);
        }
    }
    s = stats_of(c);
    assert_int_equal(s.succ_gets, stored);
    assert_int_equal(s.failed_gets, NPAGES - stored);
    zt_assert_cache_sane(c, ps, cap);
    free(pg);
    free(out);
    zc_cache_destroy(c);
}

static void test_put_get_round_trip_is_byte_exact(void **state)
{
    (void)state;
    static const size_t sizes[] = {512, 4096, 65536};
    for (size_t ci = 0; ci < g_ncompressors; ci++)
        for (size_t si = 0; si < ARRAY_LEN(sizes); si++) {
            round_trip(g_compressors[ci], sizes[si], 100);
            round_trip(g_compressors[ci], sizes[si], 50);
        }
}

static void test_page_sizes_512_to_65536_all_work(void **state)
{
    (void)state;
    for (size_t ps = 512; ps <= 65536; ps *= 2)
        round_trip("lzo", ps, 75);
}

static void test_init_fs_requires_the_cache_page_size(void **state)
{
    (void)state;
    static const size_t sizes[] = {512, 4096, 65536};
    const uint8_t uuid[16] = {1, 2, 3};
    for (size_t si = 0; si < ARRAY_LEN(sizes); si++) {
        char spec[64];
        snprintf(spec, sizeof(spec), "page_size=%zu", sizes[si]);
        zc_cache *c = new_cache(spec, NULL);
        assert_true(zc_init_fs(c, sizes[si]) >= 0);
        assert_true(zc_init_shared_fs(c, uuid, sizes[si]) >= 0);
        static const size_t others[] = {0,    1,    511,   512,   1024,
                                        4096, 8192, 65536, 131072};
        for (size_t o = 0; o < ARRAY_LEN(others); o++) {
            if (others[o] == sizes[si])
                continue;
            assert_int_equal(zc_init_fs(c, others[o]), -ZC_EINVAL);
            assert_int_equal(zc_init_shared_fs(c, uuid, others[o]), -ZC_EINVAL);
        }
        assert_int_equal(stats_of(c).pools, 2);
        zt_assert_cache_sane(c, sizes[si], 64 << 20);
        zc_cache_destroy(c);
    }
}

/* ------------------------------------------------------------------ misses */

static void test_get_miss_returns_enoent_and_leaves_page_untouched(void **state)
{
    (void)state;
    zc_cache *c = new_cache("", NULL);
    int p = zc_init_fs(c, 4096), q = zc_init_fs(c, 4096);
    assert_true(p >= 0 && q >= 0 && p != q);
    unsigned char pg[4096], out[4096], sentinel[4096];
    make_real_page(pg, 4096, 1, 2048);
    memset(sentinel, 0x5a, sizeof(sentinel));
    zc_filekey k1 = ino(1), k2 = ino(2);

    /* Empty cache. */
    memcpy(out, sentinel, sizeof(out));
    assert_int_equal(zc_get_page(c, p, &k1, 0, out), -ZC_ENOENT);
    assert_memory_equal(out, sentinel, sizeof(out));

    assert_int_equal(zc_put_page(c, p, &k1, 7, pg), 0);
    /* Same pool and file, other index; other file; other pool. */
    assert_int_equal(zc_get_page(c, p, &k1, 8, out), -ZC_ENOENT);
    assert_int_equal(zc_get_page(c, p, &k1, 6, out), -ZC_ENOENT);
    assert_int_equal(zc_get_page(c, p, &k1, 7 + ((uint64_t)1 << 32), out),
                     -ZC_ENOENT);
    assert_int_equal(zc_get_page(c, p, &k2, 7, out), -ZC_ENOENT);
    assert_int_equal(zc_get_page(c, q, &k1, 7, out), -ZC_ENOENT);
    assert_memory_equal(out, sentinel, sizeof(out));
    zc_stats s = stats_of(c);
    assert_int_equal(s.failed_gets, 6);
    assert_int_equal(s.succ_gets, 0);
    assert_int_equal(s.stored_pages, 1);
    /* And the page is still there. */
    assert_int_equal(zc_get_page(c, p, &k1, 7, out), 0);
    assert_memory_equal(out, pg, sizeof(pg));
    zt_assert_cache_sane(c, 4096, 64 << 20);
    zc_cache_destroy(c);
}

static void test_file_handle_keys_compare_all_six_words(void **state)
{
    (void)state;
    zc_cache *c = new_cache("exclusive_gets=false", NULL);
    int p = zc_init_fs(c, 4096);
    assert_true(p >= 0);
    unsigned char pg[4096], out[4096];
    make_real_page(pg, 4096, 2, 2048);
    zc_filekey k = {{0x11111111, 0x22222222, 0x33333333, 0x44444444, 0x55555555,
                     0x66666666}};
    assert_int_equal(zc_put_page(c, p, &k, 3, pg), 0);
    for (int w = 0; w < 6; w++) {
        zc_filekey o = k;
        o.fh[w] ^= 0x80000000u;
        assert_int_equal(zc_get_page(c, p, &o, 3, out), -ZC_ENOENT);
        o = k;
        o.fh[w] = 0;
        assert_int_equal(zc_get_page(c, p, &o, 3, out), -ZC_ENOENT);
    }
    zc_filekey same = k; /* a copy is the same key */
    assert_int_equal(zc_get_page(c, p, &same, 3, out), 0);
    assert_memory_equal(out, pg, sizeof(pg));
    /* invalidate_inode of a key differing in the last word keeps it. */
    zc_filekey o = k;
    o.fh[5]++;
    assert_int_equal(zc_invalidate_inode(c, p, &o), 0);
    assert_int_equal(zc_get_page(c, p, &k, 3, out), 0);
    zt_assert_cache_sane(c, 4096, 64 << 20);
    zc_cache_destroy(c);
}

static void test_filekey_from_ino_is_the_number_then_zeros(void **state)
{
    (void)state;
    static const uint64_t inos[] = {0, 1, 0x0123456789abcdefULL, UINT64_MAX};
    for (size_t i = 0; i < ARRAY_LEN(inos); i++) {
        zc_filekey k = zc_filekey_from_ino(inos[i]);
        uint64_t v;
        memcpy(&v, k.fh, 8);
        assert_int_equal(v, inos[i]);
        for (int w = 2; w < 6; w++)
            assert_int_equal(k.fh[w], 0);
    }
}

/* --------------------------------------------------------- exclusive gets */

static void test_exclusive_get_on_private_pool_removes_the_copy(void **state)
{
    (void)state;
    for (size_t ci = 0; ci < g_ncompressors; ci++) {
        char spec[128];
        snprintf(spec, sizeof(spec), "compressor=%s,accept_percent=100",
                 g_compressors[ci]);
        zc_cache *c = new_cache(spec, NULL);
        int p = zc_init_fs(c, 4096);
        unsigned char pg[4096], zero[4096] = {0}, out[4096];
        make_real_page(pg, 4096, 3, 2048);
        zc_filekey k = ino(9);
        assert_int_equal(zc_put_page(c, p, &k, 0, pg), 0);
        assert_int_equal(zc_put_page(c, p, &k, 1, zero), 0);
        assert_int_equal(zc_get_page(c, p, &k, 0, out), 0);
        assert_memory_equal(out, pg, sizeof(pg));
        memset(out, 0x77, sizeof(out));
        assert_int_equal(zc_get_page(c, p, &k, 0, out), -ZC_ENOENT);
        assert_int_equal(out[0], 0x77);
        /* Same-filled pages too. */
        assert_int_equal(zc_get_page(c, p, &k, 1, out), 0);
        assert_memory_equal(out, zero, sizeof(zero));
        assert_int_equal(zc_get_page(c, p, &k, 1, out), -ZC_ENOENT);
        zc_stats s = stats_of(c);
        assert_int_equal(s.exclusive_drops, 2);
        assert_int_equal(s.stored_pages, 0);
        assert_int_equal(s.same_filled_pages, 0);
        assert_int_equal(s.succ_gets, 2);
        assert_int_equal(s.failed_gets, 2);
        assert_int_equal(s.objects, 0);
        assert_int_equal(s.compr_data_size, 0);
        assert_int_equal(s.mem_used_total, 0);
        zt_assert_cache_sane(c, 4096, 64 << 20);
        zc_cache_destroy(c);
    }
}

static void test_nonexclusive_get_keeps_the_copy(void **state)
{
    (void)state;
    zc_cache *c = new_cache("exclusive_gets=false", NULL);
    int p = zc_init_fs(c, 4096);
    unsigned char pg[4096], out[4096];
    make_real_page(pg, 4096, 4, 2048);
    zc_filekey k = ino(9);
    assert_int_equal(zc_put_page(c, p, &k, 0, pg), 0);
    for (int i = 0; i < 3; i++) {
        memset(out, 0, sizeof(out));
        assert_int_equal(zc_get_page(c, p, &k, 0, out), 0);
        assert_memory_equal(out, pg, sizeof(pg));
    }
    zc_stats s = stats_of(c);
    assert_int_equal(s.exclusive_drops, 0);
    assert_int_equal(s.stored_pages, 1);
    assert_int_equal(s.succ_gets, 3);
    zt_assert_cache_sane(c, 4096, 64 << 20);
    zc_cache_destroy(c);
}

/* ------------------------------------------------------------ shared pools */

static void test_shared_pools_are_found_by_uuid(void **state)
{
    (void)state;
    zc_cache *c = new_cache("", NULL);
    uint8_t u1[16], u2[16];
    for (int i = 0; i < 16; i++) {
        u1[i] = (uint8_t)(i + 1);
        u2[i] = (uint8_t)(i + 1);
    }
    u2[15] ^= 1; /* differs in the last byte only */
    int priv = zc_init_fs(c, 4096);
    int s1 = zc_init_shared_fs(c, u1, 4096);
    int s1b = zc_init_shared_fs(c, u1, 4096);
    int s2 = zc_init_shared_fs(c, u2, 4096);
    assert_true(priv >= 0 && s1 >= 0 && s2 >= 0);
    assert_int_equal(s1, s1b);
    assert_int_not_equal(s1, s2);
    assert_int_not_equal(s1, priv);
    assert_int_not_equal(s2, priv);
    /* A uuid copy in another buffer finds the same pool. */
    uint8_t u1c[16];
    memcpy(u1c, u1, 16);
    assert_int_equal(zc_init_shared_fs(c, u1c, 4096), s1);
    assert_int_equal(stats_of(c).pools, 3);
    zt_assert_cache_sane(c, 4096, 64 << 20);
    zc_cache_destroy(c);
}

static void test_shared_pool_gets_keep_the_copy(void **state)
{
    (void)state;
    for (size_t ci = 0; ci < g_ncompressors; ci++) {
        char spec[128];
        snprintf(spec, sizeof(spec),
                 "exclusive_gets=true,compressor=%s,accept_percent=100",
                 g_compressors[ci]);
        zc_cache *c = new_cache(spec, NULL);
        const uint8_t uuid[16] = {0xde, 0xad, 0xbe, 0xef};
        int s = zc_init_shared_fs(c, uuid, 4096);
        assert_true(s >= 0);
        unsigned char pg[4096], word[4096], out[4096];
        make_real_page(pg, 4096, 5, 2048);
        zt_fill_word(word, 4096, 0x0101010101010101ULL);
        zc_filekey k = ino(3);
        assert_int_equal(zc_put_page(c, s, &k, 0, pg), 0);
        assert_int_equal(zc_put_page(c, s, &k, 1, word), 0);
        for (int i = 0; i < 3; i++) {
            assert_int_equal(zc_get_page(c, s, &k, 0, out), 0);
            assert_memory_equal(out, pg, sizeof(pg));
            assert_int_equal(zc_get_page(c, s, &k, 1, out), 0);
            assert_memory_equal(out, word, sizeof(word));
        }
        /* Joining again sees the same pages. */
        int s2 = zc_init_shared_fs(c, uuid, 4096);
        assert_int_equal(s2, s);
        assert_int_equal(zc_get_page(c, s2, &k, 0, out), 0);
        assert_memory_equal(out, pg, sizeof(pg));
        zc_stats st = stats_of(c);
        assert_int_equal(st.exclusive_drops, 0);
        assert_int_equal(st.stored_pages, 2);
        assert_int_equal(st.succ_gets, 7);
        zt_assert_cache_sane(c, 4096, 64 << 20);
        zc_cache_destroy(c);
    }
}

/* ------------------------------------------------------------ invalidation */

/* Fills pools p and q with real pages at inodes 1..3, indexes 0..3. */
static void fill_two_pools(zc_cache *c, int p, int q, unsigned char *pg)
{
    for (int pool = 0; pool < 2; pool++)
        for (uint64_t f = 1; f <= 3; f++)
            for (uint64_t i = 0; i < 4; i++) {
                zc_filekey k = ino(f);
                make_real_page(pg, 4096, (uint64_t)pool * 100 + f * 10 + i,
                               2048);
                assert_int_equal(zc_put_page(c, pool ? q : p, &k, i, pg), 0);
            }
}

/* Whether pool (pool index pi as in fill_two_pools) holds (f, i); a hit
 * must return exactly the page fill_two_pools put there. */
static bool holds_pi(zc_cache *c, int pool, int pi, uint64_t f, uint64_t i,
                     unsigned char *pg, unsigned char *out)
{
    zc_filekey k = ino(f);
    int rc = zc_get_page(c, pool, &k, i, out);
    if (rc == -ZC_ENOENT)
        return false;
    assert_int_equal(rc, 0);
    make_real_page(pg, 4096, (uint64_t)pi * 100 + f * 10 + i, 2048);
    assert_memory_equal(out, pg, 4096);
    return true;
}

#define holds(c, pool, f, i, pg, out)                                          \
    holds_pi(c, pool, (pool) == p ? 0 : 1, f, i, pg, out)

static void test_get_after_invalidate_page_misses(void **state)
{
    (void)state;
    zc_cache *c = new_cache("exclusive_gets=false", NULL);
    int p = zc_init_fs(c, 4096), q = zc_init_fs(c, 4096);
    unsigned char pg[4096], out[4096];
    fill_two_pools(c, p, q, pg);
    zc_filekey k = ino(2);
    assert_int_equal(zc_invalidate_page(c, p, &k, 1), 0);
    assert_false(holds(c, p, 2, 1, pg, out));
    /* Neighbours stay. */
    assert_true(holds(c, p, 2, 0, pg, out));
    assert_true(holds(c, p, 2, 2, pg, out));
    assert_true(holds(c, p, 1, 1, pg, out));
    assert_true(holds(c, q, 2, 1, pg, out));
    /* Invalidating an absent page is fine and counts nothing. */
    assert_int_equal(zc_invalidate_page(c, p, &k, 1), 0);
    assert_int_equal(zc_invalidate_page(c, p, &k, 99), 0);
    zc_filekey k9 = ino(99);
    assert_int_equal(zc_invalidate_page(c, p, &k9, 0), 0);
    zc_stats s = stats_of(c);
    assert_int_equal(s.invalidates, 1);
    assert_int_equal(s.stored_pages, 23);
    /* A put after the invalidate is visible again. */
    make_real_page(pg, 4096, 777, 2048);
    assert_int_equal(zc_put_page(c, p, &k, 1, pg), 0);
    assert_int_equal(zc_get_page(c, p, &k, 1, out), 0);
    assert_memory_equal(out, pg, sizeof(pg));
    zt_assert_cache_sane(c, 4096, 64 << 20);
    zc_cache_destroy(c);
}

static void test_get_after_invalidate_inode_misses(void **state)
{
    (void)state;
    zc_cache *c = new_cache("exclusive_gets=false", NULL);
    int p = zc_init_fs(c, 4096), q = zc_init_fs(c, 4096);
    unsigned char pg[4096], out[4096];
    fill_two_pools(c, p, q, pg);
    /* Add same-filled pages to the inode as well. */
    zc_filekey k = ino(2);
    memset(pg, 0, sizeof(pg));
    assert_int_equal(zc_put_page(c, p, &k, 10, pg), 0);
    zt_fill_word(pg, 4096, 0x0101010101010101ULL);
    assert_int_equal(zc_put_page(c, p, &k, 11, pg), 0);
    assert_int_equal(stats_of(c).objects, 6);
    assert_int_equal(zc_invalidate_inode(c, p, &k), 0);
    for (uint64_t i = 0; i < 12; i++)
        assert_false(holds(c, p, 2, i, pg, out));
    for (uint64_t i = 0; i < 4; i++) {
        assert_true(holds(c, p, 1, i, pg, out));
        assert_true(holds(c, p, 3, i, pg, out));
        assert_true(holds(c, q, 2, i, pg, out));
    }
    zc_stats s = stats_of(c);
    assert_int_equal(s.invalidates, 6);
    assert_int_equal(s.stored_pages, 20); /* 24 + 2 - 6 */
    assert_int_equal(s.same_filled_pages, 0);
    assert_int_equal(s.objects, 5);
    /* Again, and on an unknown inode: 0, nothing counted. */
    assert_int_equal(zc_invalidate_inode(c, p, &k), 0);
    zc_filekey k9 = ino(99);
    assert_int_equal(zc_invalidate_inode(c, p, &k9), 0);
    assert_int_equal(stats_of(c).invalidates, 6);
    zt_assert_cache_sane(c, 4096, 64 << 20);
    zc_cache_destroy(c);
}

static void test_page_indexes_use_all_64_bits(void **state)
{
    (void)state;
    zc_cache *c = new_cache("exclusive_gets=false", NULL);
    int p = zc_init_fs(c, 4096);
    unsigned char pg[4096], out[4096];
    /* An entry keeps the low 32 bits of the index; the rest names one of
     * several objects of the file.  Boundaries of smaller splits too. */
    static const uint64_t idx[] = {0,
                                   1,
                                   2047,
                                   2048,
                                   65535,
                                   65536,
                                   65537,
                                   131071,
                                   ((uint64_t)1 << 48) - 1,
                                   (uint64_t)1 << 48,
                                   UINT32_MAX,
                                   (uint64_t)1 << 32,
                                   ((uint64_t)1 << 32) + 1,
                                   (uint64_t)7 << 40,
                                   UINT64_MAX - 1,
                                   UINT64_MAX};
    enum { N = sizeof(idx) / sizeof(idx[0]) };
    zc_filekey k = ino(5), other = ino(6);
    for (size_t i = 0; i < N; i++) {
        make_real_page(pg, 4096, 900 + i, 2048);
        assert_int_equal(zc_put_page(c, p, &k, idx[i], pg), 0);
    }
    make_real_page(pg, 4096, 999, 2048);
    assert_int_equal(zc_put_page(c, p, &other, (uint64_t)1 << 32, pg), 0);
    /* A same-filled page keeps all 64 bits of its word beside the index. */
    zt_fill_word(pg, 4096, 0xFEDCBA9876543210ull);
    assert_int_equal(zc_put_page(c, p, &other, 65536 + 2047, pg), 0);
    assert_int_equal(zc_get_page(c, p, &other, 65536 + 2047, out), 0);
    assert_memory_equal(out, pg, sizeof(pg));
    assert_int_equal(zc_invalidate_page(c, p, &other, 65536 + 2047), 0);
    zc_stats s = stats_of(c);
    assert_int_equal(s.stored_pages, N + 1);
    /* "objects: files (pool, file key) with pages held now" */
    assert_int_equal(s.objects, 2);
    for (size_t i = 0; i < N; i++) {
        make_real_page(pg, 4096, 900 + i, 2048);
        assert_int_equal(zc_get_page(c, p, &k, idx[i], out), 0);
        assert_memory_equal(out, pg, sizeof(pg));
    }
    /* invalidate_inode drops every page of the file, whatever the index. */
    assert_int_equal(zc_invalidate_inode(c, p, &k), 0);
    for (size_t i = 0; i < N; i++)
        assert_int_equal(zc_get_page(c, p, &k, idx[i], out), -ZC_ENOENT);
    s = stats_of(c);
    assert_int_equal(s.invalidates, N + 1);
    assert_int_equal(s.stored_pages, 1);
    assert_int_equal(s.objects, 1);
    assert_int_equal(zc_get_page(c, p, &other, (uint64_t)1 << 32, out), 0);
    zt_assert_cache_sane(c, 4096, 64 << 20);
    zc_cache_destroy(c);
}

static void test_get_after_invalidate_fs_misses(void **state)
{
    (void)state;
    zc_cache *c = new_cache("exclusive_gets=false", NULL);
    int p = zc_init_fs(c, 4096), q = zc_init_fs(c, 4096);
    unsigned char pg[4096], out[4096];
    fill_two_pools(c, p, q, pg);
    assert_int_equal(zc_invalidate_fs(c, p), 0);
    for (uint64_t f = 1; f <= 3; f++)
        for (uint64_t i = 0; i < 4; i++)
            assert_true(holds(c, q, f, i, pg, out));
    zc_stats s = stats_of(c);
    assert_int_equal(s.invalidates, 12);
    assert_int_equal(s.stored_pages, 12);
    assert_int_equal(s.pools, 1);
    assert_int_equal(s.objects, 3);
    zt_assert_cache_sane(c, 4096, 64 << 20);
    zc_cache_destroy(c);
}

static void test_invalidate_fs_frees_the_pool_id(void **state)
{
    (void)state;
    zc_cache *c = new_cache("exclusive_gets=false", NULL);
    unsigned char pg[4096], out[4096];
    make_real_page(pg, 4096, 11, 2048);
    zc_filekey k = ino(1);
    int keep = zc_init_fs(c, 4096);
    int p = zc_init_fs(c, 4096);
    assert_int_equal(zc_put_page(c, p, &k, 0, pg), 0);
    assert_int_equal(zc_put_page(c, keep, &k, 0, pg), 0);
    assert_int_equal(zc_invalidate_fs(c, p), 0);

    /* Every operation on the freed id is now an error. */
    memset(out, 0x3c, sizeof(out));
    assert_int_equal(zc_get_page(c, p, &k, 0, out), -ZC_EINVAL);
    assert_int_equal(out[0], 0x3c);
    assert_int_equal(zc_put_page(c, p, &k, 0, pg), -ZC_EINVAL);
    assert_int_equal(zc_invalidate_page(c, p, &k, 0), -ZC_EINVAL);
    assert_int_equal(zc_invalidate_inode(c, p, &k), -ZC_EINVAL);
    assert_int_equal(zc_invalidate_fs(c, p), -ZC_EINVAL);
    zc_stats s = stats_of(c);
    assert_int_equal(s.pools, 1);
    assert_int_equal(s.puts, 2); /* the error put is not counted */
    assert_int_equal(s.failed_gets, 0);

    /* New pools may reuse the id, never with the old data. */
    int ids[8];
    bool reused = false;
    for (int i = 0; i < 8; i++) {
        ids[i] = zc_init_fs(c, 4096);
        assert_true(ids[i] >= 0);
        assert_int_not_equal(ids[i], keep);
        reused |= ids[i] == p;
        assert_int_equal(zc_get_page(c, ids[i], &k, 0, out), -ZC_ENOENT);
    }
    /* Reuse is allowed, not required; either way no old data showed. */
    print_message("freed pool id %d %s\n", p,
                  reused ? "was reused" : "was not reused");
    /* The surviving pool is untouched. */
    assert_int_equal(zc_get_page(c, keep, &k, 0, out), 0);
    assert_memory_equal(out, pg, sizeof(pg));

    /* Shared pools too: the uuid's pool is gone and a new one is empty. */
    const uint8_t uuid[16] = {9, 9, 9};
    int s1 = zc_init_shared_fs(c, uuid, 4096);
    assert_int_equal(zc_put_page(c, s1, &k, 5, pg), 0);
    assert_int_equal(zc_invalidate_fs(c, s1), 0);
    assert_int_equal(zc_get_page(c, s1, &k, 5, out), -ZC_EINVAL);
    int s2 = zc_init_shared_fs(c, uuid, 4096);
    assert_true(s2 >= 0);
    assert_int_equal(zc_get_page(c, s2, &k, 5, out), -ZC_ENOENT);
    zt_assert_cache_sane(c, 4096, 64 << 20);
    zc_cache_destroy(c);
}

static void test_init_fs_fails_past_65535_live_pools(void **state)
{
    (void)state;
    zc_cache *c = new_cache("", NULL);
    int last = -1;
    for (int i = 0; i < 65535; i++) {
        int p = zc_init_fs(c, 4096);
        if (p < 0)
            print_message("init_fs #%d gave %d\n", i + 1, p);
        assert_true(p >= 0);
        last = p;
    }
    assert_int_equal(stats_of(c).pools, 65535);
    assert_int_equal(zc_init_fs(c, 4096), -ZC_ENOSPC);
    const uint8_t uuid[16] = {1};
    assert_int_equal(zc_init_shared_fs(c, uuid, 4096), -ZC_ENOSPC);
    /* Freeing one makes room for one. */
    assert_int_equal(zc_invalidate_fs(c, last), 0);
    int p = zc_init_fs(c, 4096);
    assert_true(p >= 0);
    assert_int_equal(zc_init_fs(c, 4096), -ZC_ENOSPC);
    /* The pools work. */
    unsigned char pg[4096], out[4096];
    make_real_page(pg, 4096, 12, 2048);
    zc_filekey k = ino(1);
    assert_int_equal(zc_put_page(c, p, &k, 0, pg), 0);
    assert_int_equal(zc_get_page(c, p, &k, 0, out), 0);
    assert_memory_equal(out, pg, sizeof(pg));
    assert_int_equal(zc_cache_check(c), 0);
    zc_cache_destroy(c);
}

/* ------------------------------------------------------------ replacement */

static void test_put_rejected_replacement_drops_the_old_copy(void **state)
{
    REQUIRE(NEED_REJECT);
    (void)state;
    for (int excl = 0; excl < 2; excl++) {
        zc_cache *c = new_cache(
            excl ? "exclusive_gets=true" : "exclusive_gets=false", NULL);
        int p = zc_init_fs(c, 4096);
        unsigned char pg[4096], rnd[4096], out[4096];
        make_real_page(pg, 4096, 13, 2048);
        make_random_page(rnd, 4096, 14);
        assert_true(zt_lzo_size(rnd, 4096) > 2048);
        zc_filekey k = ino(1);

        /* compressed page replaced by an incompressible one */
        assert_int_equal(zc_put_page(c, p, &k, 0, pg), 0);
        assert_int_equal(zc_put_page(c, p, &k, 0, rnd), ZC_PUT_REJECT_POOR);
        memset(out, 0x11, sizeof(out));
        assert_int_equal(zc_get_page(c, p, &k, 0, out), -ZC_ENOENT);
        assert_int_equal(out[100], 0x11);

        /* same-filled page replaced by an incompressible one */
        zt_fill_word(pg, 4096, 0x0101010101010101ULL);
        assert_int_equal(zc_put_page(c, p, &k, 1, pg), 0);
        assert_int_equal(zc_put_page(c, p, &k, 1, rnd), ZC_PUT_REJECT_POOR);
        assert_int_equal(zc_get_page(c, p, &k, 1, out), -ZC_ENOENT);

        zc_stats s = stats_of(c);
        assert_int_equal(s.replaced, 2);
        assert_int_equal(s.stored_pages, 0);
        assert_int_equal(s.reject_compress_poor, 2);
        assert_int_equal(s.objects, 0);
        assert_int_equal(s.compr_data_size, 0);
        assert_int_equal(s.mem_used_total, 0);
        zt_assert_cache_sane(c, 4096, 64 << 20);
        zc_cache_destroy(c);
    }
}

static void test_put_replacing_a_copy_returns_the_new_data(void **state)
{
    (void)state;
    zc_cache *c = new_cache("exclusive_gets=false", NULL);
    int p = zc_init_fs(c, 4096);
    unsigned char a[4096], b[4096], z[4096] = {0}, out[4096];
    size_t la = make_real_page(a, 4096, 15, 2048);
    size_t lb = make_real_page(b, 4096, 16, 2048);
    zc_filekey k = ino(1);
    assert_int_equal(zc_put_page(c, p, &k, 0, a), 0);
    ASSERT_LZO_SIZE(stats_of(c).compr_data_size, la);
    assert_int_equal(zc_put_page(c, p, &k, 0, b), 0);
    assert_int_equal(zc_get_page(c, p, &k, 0, out), 0);
    assert_memory_equal(out, b, sizeof(b));
    zc_stats s = stats_of(c);
    ASSERT_LZO_SIZE(s.compr_data_size, lb);
    assert_int_equal(s.stored_pages, 1);
    assert_int_equal(s.replaced, 1);
    /* compressed -> same-filled -> compressed */
    assert_int_equal(zc_put_page(c, p, &k, 0, z), 0);
    assert_int_equal(zc_get_page(c, p, &k, 0, out), 0);
    assert_memory_equal(out, z, sizeof(z));
    s = stats_of(c);
    assert_int_equal(s.compr_data_size, 0);
    assert_int_equal(s.mem_used_total, 0);
    assert_int_equal(s.same_filled_pages, 1);
    assert_int_equal(zc_put_page(c, p, &k, 0, a), 0);
    assert_int_equal(zc_get_page(c, p, &k, 0, out), 0);
    assert_memory_equal(out, a, sizeof(a));
    s = stats_of(c);
    assert_int_equal(s.same_filled_pages, 0);
    assert_int_equal(s.replaced, 3);
    assert_int_equal(s.stored_pages, 1);
    zt_assert_cache_sane(c, 4096, 64 << 20);
    zc_cache_destroy(c);
}

/* ---------------------------------------------------------- bad arguments */

static void test_bad_arguments_are_einval_never_a_crash(void **state)
{
    (void)state;
    zc_cache *c = new_cache("exclusive_gets=true", NULL);
    int p = zc_init_fs(c, 4096);
    assert_true(p >= 0);
    unsigned char pg[4096], out[4096];
    make_real_page(pg, 4096, 17, 2048);
    zc_filekey k = ino(1);
    const uint8_t uuid[16] = {1};
    zc_stats s;

    /* NULL cache */
    assert_int_equal(zc_init_fs(NULL, 4096), -ZC_EINVAL);
    assert_int_equal(zc_init_shared_fs(NULL, uuid, 4096), -ZC_EINVAL);
    assert_int_equal(zc_put_page(NULL, p, &k, 0, pg), -ZC_EINVAL);
    assert_int_equal(zc_get_page(NULL, p, &k, 0, out), -ZC_EINVAL);
    assert_int_equal(zc_invalidate_page(NULL, p, &k, 0), -ZC_EINVAL);
    assert_int_equal(zc_invalidate_inode(NULL, p, &k), -ZC_EINVAL);
    assert_int_equal(zc_invalidate_fs(NULL, p), -ZC_EINVAL);
    assert_int_equal(zc_stats_get(NULL, &s), -ZC_EINVAL);
    int rc = zc_cache_check(NULL);
    assert_true(rc == -ZC_EINVAL || rc == -ZC_ECORRUPT);
    /* NULL out, key, page, uuid */
    assert_int_equal(zc_stats_get(c, NULL), -ZC_EINVAL);
    assert_int_equal(zc_init_shared_fs(c, NULL, 4096), -ZC_EINVAL);
    assert_int_equal(zc_put_page(c, p, NULL, 0, pg), -ZC_EINVAL);
    assert_int_equal(zc_put_page(c, p, &k, 0, NULL), -ZC_EINVAL);
    assert_int_equal(zc_get_page(c, p, NULL, 0, out), -ZC_EINVAL);
    assert_int_equal(zc_get_page(c, p, &k, 0, NULL), -ZC_EINVAL);
    assert_int_equal(zc_invalidate_page(c, p, NULL, 0), -ZC_EINVAL);
    assert_int_equal(zc_invalidate_inode(c, p, NULL), -ZC_EINVAL);
    /* Unknown pools */
    static const int bad_pools[] = {-1,    -2,      9999,   65535,
                                    65536, INT_MAX, INT_MIN};
    for (size_t i = 0; i < ARRAY_LEN(bad_pools); i++) {
        int b = bad_pools[i];
        assert_int_equal(zc_put_page(c, b, &k, 0, pg), -ZC_EINVAL);
        assert_int_equal(zc_get_page(c, b, &k, 0, out), -ZC_EINVAL);
        assert_int_equal(zc_invalidate_page(c, b, &k, 0), -ZC_EINVAL);
        assert_int_equal(zc_invalidate_inode(c, b, &k), -ZC_EINVAL);
        assert_int_equal(zc_invalidate_fs(c, b), -ZC_EINVAL);
    }
    /* A valid id that was never handed out. */
    assert_int_equal(zc_put_page(c, p + 1, &k, 0, pg), -ZC_EINVAL);
    /* Wrong page sizes */
    assert_int_equal(zc_init_fs(c, 2048), -ZC_EINVAL);
    assert_int_equal(zc_init_fs(c, 0), -ZC_EINVAL);
    assert_int_equal(zc_init_shared_fs(c, uuid, 8192), -ZC_EINVAL);

    /* None of it counted or changed anything. */
    assert_int_equal(zc_stats_get(c, &s), 0);
    assert_int_equal(s.puts, 0);
    assert_int_equal(s.failed_gets, 0);
    assert_int_equal(s.succ_gets, 0);
    assert_int_equal(s.pools, 1);
    assert_int_equal(s.stored_pages, 0);

    /* A get with a NULL buffer on a present page fails without dropping
     * the exclusive copy. */
    assert_int_equal(zc_put_page(c, p, &k, 0, pg), 0);
    assert_int_equal(zc_get_page(c, p, &k, 0, NULL), -ZC_EINVAL);
    assert_int_equal(zc_get_page(c, p, &k, 0, out), 0);
    assert_memory_equal(out, pg, sizeof(pg));
    zt_assert_cache_sane(c, 4096, 64 << 20);
    zc_cache_destroy(c);
}

static void test_destroy_null_is_a_no_op(void **state)
{
    (void)state;
    zc_cache_destroy(NULL);
}

static void test_destroy_releases_a_full_cache(void **state)
{
    (void)state;
    /* Under ASan/LSan a leak here fails the run. */
    zc_cache *c = new_cache("capacity=256K", NULL);
    int p = zc_init_fs(c, 4096);
    const uint8_t uuid[16] = {7};
    int s = zc_init_shared_fs(c, uuid, 4096);
    unsigned char pg[4096];
    for (uint64_t i = 0; i < 300; i++) {
        zc_filekey k = ino(i % 17);
        make_page(pg, 4096, (enum page_kind)(i % K_KINDS), i);
        int rc = zc_put_page(c, (i & 1) ? p : s, &k, i, pg);
        assert_true(rc >= 0);
    }
    zt_assert_cache_sane(c, 4096, 256 << 10);
    zc_cache_destroy(c);
}

/* ---------------------------------------------------- same-filled pages */

static void test_same_filled_pages_take_no_arena_space(void **state)
{
    (void)state;
    for (size_t ci = 0; ci < g_ncompressors; ci++) {
        char spec[128];
        snprintf(spec, sizeof(spec),
                 "compressor=%s,accept_percent=100,exclusive_gets=false",
                 g_compressors[ci]);
        zc_cache *c = new_cache(spec, NULL);
        int p = zc_init_fs(c, 4096);
        unsigned char pg[4096], out[4096];
        zc_filekey k = ino(1);
        /* Some compressed pages first, so "unchanged" is not just 0. */
        for (uint64_t i = 0; i < 5; i++) {
            make_real_page(pg, 4096, 200 + i, 2048);
            assert_int_equal(zc_put_page(c, p, &k, i, pg), 0);
        }
        zc_stats before = stats_of(c);
        assert_true(before.mem_used_total > 0);
        static const uint64_t words[] = {0,
                                         0x0101010101010101ULL,
                                         0xffffffffffffffffULL,
                                         0xdeadbeefcafebabeULL,
                                         0x0123456789abcdefULL,
                                         1};
        for (size_t w = 0; w < ARRAY_LEN(words); w++) {
            zt_fill_word(pg, 4096, words[w]);
            assert_true(zt_is_same_filled(pg, 4096));
            assert_int_equal(zc_put_page(c, p, &k, 100 + w, pg), 0);
        }
        zc_stats after = stats_of(c);
        assert_int_equal(after.mem_used_total, before.mem_used_total);
        assert_int_equal(after.compr_data_size, before.compr_data_size);
        assert_int_equal(after.arena_bytes, before.arena_bytes);
        assert_int_equal(after.same_filled_pages, ARRAY_LEN(words));
        assert_int_equal(after.stored_pages, 5 + ARRAY_LEN(words));
        assert_int_equal(after.orig_data_size, (5 + ARRAY_LEN(words)) * 4096);
        /* Not compressions: the histogram does not move. */
        for (int b = 0; b < ZC_HIST_BUCKETS; b++)
            assert_int_equal(after.compr_size_hist[b],
                             before.compr_size_hist[b]);
        for (size_t w = 0; w < ARRAY_LEN(words); w++) {
            zt_fill_word(pg, 4096, words[w]);
            memset(out, 0x42, sizeof(out));
            assert_int_equal(zc_get_page(c, p, &k, 100 + w, out), 0);
            assert_memory_equal(out, pg, sizeof(pg));
        }
        zt_assert_cache_sane(c, 4096, 64 << 20);
        zc_cache_destroy(c);
    }
}

static void test_same_filled_pages_need_no_capacity(void **state)
{
    (void)state;
    zc_cache *c = new_cache("capacity=0", NULL);
    int p = zc_init_fs(c, 4096);
    unsigned char pg[4096], out[4096];
    zc_filekey k = ino(1);
    zt_fill_word(pg, 4096, 0x0101010101010101ULL);
    assert_int_equal(zc_put_page(c, p, &k, 0, pg), 0);
    memset(out, 0, sizeof(out));
    assert_int_equal(zc_get_page(c, p, &k, 0, out), 0);
    assert_memory_equal(out, pg, sizeof(pg));
    /* A compressible page has no room: REJECT_NOSPACE. */
    make_real_page(pg, 4096, 18, 2048);
    assert_int_equal(zc_put_page(c, p, &k, 1, pg), NOSPACE);
    assert_int_equal(zc_get_page(c, p, &k, 1, out), -ZC_ENOENT);
    /* An incompressible one fails one way or the other. */
    make_random_page(pg, 4096, 19);
    int rc = zc_put_page(c, p, &k, 2, pg);
    assert_true(rc == ZC_PUT_REJECT_POOR || rc == NOSPACE);
    zc_stats s = stats_of(c);
    assert_int_equal(s.arena_bytes, 0);
    assert_int_equal(s.reject_nospace + s.reject_compress_poor + s.reject_full,
                     2);
    zt_assert_cache_sane(c, 4096, 0);
    zc_cache_destroy(c);
}

static void test_almost_same_filled_page_is_not_same_filled(void **state)
{
    (void)state;
    zc_cache *c = new_cache("exclusive_gets=false", NULL);
    int p = zc_init_fs(c, 4096);
    unsigned char pg[4096], out[4096];
    zc_filekey k = ino(1);
    static const size_t where[] = {0, 7, 8, 2048, 4095};
    for (size_t i = 0; i < ARRAY_LEN(where); i++) {
        zt_fill_word(pg, 4096, 0x0101010101010101ULL);
        pg[where[i]] = 0x02;
        assert_false(zt_is_same_filled(pg, 4096));
        assert_int_equal(zc_put_page(c, p, &k, i, pg), 0);
    }
    /* A 128-bit pattern repeated is not one repeated 64-bit word. */
    for (size_t off = 0; off < 4096; off += 16) {
        uint64_t a = 1, b = 2;
        memcpy(pg + off, &a, 8);
        memcpy(pg + off + 8, &b, 8);
    }
    assert_int_equal(zc_put_page(c, p, &k, 10, pg), 0);
    zc_stats s = stats_of(c);
    assert_int_equal(s.same_filled_pages, 0);
    assert_true(s.compr_data_size > 0);
    assert_true(s.mem_used_total > 0);
    for (size_t i = 0; i < ARRAY_LEN(where); i++) {
        zt_fill_word(pg, 4096, 0x0101010101010101ULL);
        pg[where[i]] = 0x02;
        assert_int_equal(zc_get_page(c, p, &k, i, out), 0);
        assert_memory_equal(out, pg, sizeof(pg));
    }
    zt_assert_cache_sane(c, 4096, 64 << 20);
    zc_cache_destroy(c);
}

static void test_same_filled_off_compresses_zero_pages(void **state)
{
    (void)state;
    zc_cache *c = new_cache("same_filled=false,exclusive_gets=false", NULL);
    int p = zc_init_fs(c, 4096);
    unsigned char zero[4096] = {0}, word[4096], out[4096];
    zt_fill_word(word, 4096, 0x0101010101010101ULL);
    size_t lz = zt_lzo_size(zero, 4096), lw = zt_lzo_size(word, 4096);
    zc_filekey k = ino(1);
    assert_int_equal(zc_put_page(c, p, &k, 0, zero), 0);
    assert_int_equal(zc_put_page(c, p, &k, 1, word), 0);
    zc_stats s = stats_of(c);
    assert_int_equal(s.same_filled_pages, 0);
    ASSERT_LZO_SIZE(s.compr_data_size, lz + lw);
    assert_true(s.mem_used_total > 0);
    memset(out, 0x99, sizeof(out));
    assert_int_equal(zc_get_page(c, p, &k, 0, out), 0);
    assert_memory_equal(out, zero, sizeof(zero));
    assert_int_equal(zc_get_page(c, p, &k, 1, out), 0);
    assert_memory_equal(out, word, sizeof(word));
    zt_assert_cache_sane(c, 4096, 64 << 20);
    zc_cache_destroy(c);

    /* And at capacity 0 they then have no room. */
    c = new_cache("same_filled=false,capacity=0", NULL);
    p = zc_init_fs(c, 4096);
    assert_int_equal(zc_put_page(c, p, &k, 0, zero), NOSPACE);
    assert_int_equal(zc_get_page(c, p, &k, 0, out), -ZC_ENOENT);
    zt_assert_cache_sane(c, 4096, 0);
    zc_cache_destroy(c);
}

/* -------------------------------------------------- the half-size rule */

/* A page made of real content whose last k bytes are random: its LZO size
 * grows with k, giving every size between "compresses well" and
 * "expands". */
static void make_boundary_page(unsigned char *buf, size_t ps, size_t base,
                               size_t k, uint64_t seed)
{
    memcpy(buf, zt_corpus_page(ps, base), ps);
    zt_fill_random(buf + ps - k, k, seed);
    uint64_t tag = 0xb0b0000000000000ULL ^ seed;
    memcpy(buf, &tag, 8);
}

typedef struct boundary {
    bool have_at, have_above;
    size_t at_base, at_k, at_size;          /* largest size <= T */
    size_t above_base, above_k, above_size; /* smallest size > T */
    uint64_t at_seed, above_seed;
} boundary;

static void consider(boundary *b, size_t t, size_t base, size_t k,
                     uint64_t seed, size_t sz)
{
    if (sz <= t && (!b->have_at || sz > b->at_size)) {
        b->have_at = true;
        b->at_base = base, b->at_k = k, b->at_size = sz, b->at_seed = seed;
    }
    if (sz > t && (!b->have_above || sz < b->above_size)) {
        b->have_above = true;
        b->above_base = base, b->above_k = k, b->above_size = sz;
        b->above_seed = seed;
    }
}

/* Finds pages whose LZO size is as close to the threshold t as possible,
 * on both sides (exactly t and t+1 when they exist). */
static boundary find_boundary(size_t ps, size_t t)
{
    boundary b = {0};
    unsigned char *buf = page_alloc(ps);
    for (size_t base = 0; base < 12; base++) {
        uint64_t seed = 1000 + base;
        /* Coarse scan for the crossing, then every k around it. */
        size_t step = ps / 128, lo = 0, hi = ps;
        for (size_t k = 0; k <= ps; k += step) {
            make_boundary_page(buf, ps, base * 3, k, seed);
            size_t sz = zt_lzo_size(buf, ps);
            consider(&b, t, base * 3, k, seed, sz);
            if (sz <= t)
                lo = k;
            else if (hi == ps && k > lo) {
                hi = k;
                break;
            }
        }
        for (size_t k = lo; k <= hi; k++) {
            make_boundary_page(buf, ps, base * 3, k, seed);
            consider(&b, t, base * 3, k, seed, zt_lzo_size(buf, ps));
        }
        if (b.have_at && b.at_size == t && b.have_above &&
            b.above_size == t + 1)
            break;
    }
    free(buf);
    return b;
}

static void half_size_rule(size_t ps, unsigned accept)
{
    char spec[128];
    snprintf(spec, sizeof(spec), "page_size=%zu,accept_percent=%u", ps, accept);
    zc_cache *c = new_cache(spec, NULL);
    int p = zc_init_fs(c, ps);
    size_t t = zt_threshold(ps, accept);
    unsigned char *buf = page_alloc(ps), *out = page_alloc(ps);
    zc_filekey k = ino(1);
    uint64_t idx = 0, want_poor = 0, want_stored = 0;

    boundary b = find_boundary(ps, t);
    print_message("ps=%zu accept=%u threshold=%zu: at %s%zu, above %s%zu\n", ps,
                  accept, t, b.have_at ? "" : "(none) ", b.at_size,
                  b.have_above ? "" : "(none) ", b.above_size);
    if (b.have_at) {
        make_boundary_page(buf, ps, b.at_base, b.at_k, b.at_seed);
        assert_int_equal(zt_lzo_size(buf, ps), b.at_size);
        int rc = zc_put_page(c, p, &k, idx, buf);
        if (rc != 0)
            print_message("page of LZO size %zu <= %zu: put gave %d\n",
                          b.at_size, t, rc);
        assert_int_equal(rc, 0);
        assert_int_equal(zc_get_page(c, p, &k, idx++, out), 0);
        assert_memory_equal(out, buf, ps);
        want_stored++;
    }
    if (b.have_above) {
        make_boundary_page(buf, ps, b.above_base, b.above_k, b.above_seed);
        int rc = zc_put_page(c, p, &k, idx, buf);
        if (rc != ZC_PUT_REJECT_POOR)
            print_message("page of LZO size %zu > %zu: put gave %d\n",
                          b.above_size, t, rc);
        assert_int_equal(rc, ZC_PUT_REJECT_POOR);
        assert_int_equal(zc_get_page(c, p, &k, idx++, out), -ZC_ENOENT);
        want_poor++;
    }
    /* And a spread of pages across the whole range of sizes. */
    for (size_t kk = 0; kk <= ps; kk += ps / 64) {
        make_boundary_page(buf, ps, 5, kk, 77);
        size_t sz = zt_lzo_size(buf, ps);
        int want = sz <= t ? 0 : ZC_PUT_REJECT_POOR;
        int rc = zc_put_page(c, p, &k, idx++, buf);
        if (rc != want)
            print_message("page of LZO size %zu, threshold %zu: put %d\n", sz,
                          t, rc);
        assert_int_equal(rc, want);
        want_poor += rc != 0;
        want_stored += rc == 0;
    }
    /* Real pages as they are. */
    for (size_t i = 0; i < 64; i++) {
        const unsigned char *src = zt_corpus_page(ps, i * 31);
        int want = expected_put(src, ps, "lzo", accept, true);
        int rc = zc_put_page(c, p, &k, idx++, src);
        assert_int_equal(rc, want);
        want_poor += rc != 0;
        want_stored += rc == 0;
    }
    zc_stats s = stats_of(c);
    assert_int_equal(s.reject_compress_poor, want_poor);
    assert_int_equal(s.stored_puts, want_stored);
    zt_assert_cache_sane(c, ps, 64 << 20);
    free(buf);
    free(out);
    zc_cache_destroy(c);
}

static void test_half_size_rule_uses_the_lzo1x_1_size(void **state)
{
    REQUIRE(NEED_LZO | NEED_REJECT);
    (void)state;
    half_size_rule(4096, 50);
    half_size_rule(4096, 30); /* threshold 1228.8: 1228 in, 1229 out */
    half_size_rule(4096, 100);
    half_size_rule(4096, 1);
    half_size_rule(512, 50);
    half_size_rule(512, 33);   /* 168.96 */
    half_size_rule(65536, 30); /* 19660.8 */
}

static void test_accept_percent_0_keeps_only_same_filled(void **state)
{
    REQUIRE(NEED_REJECT);
    (void)state;
    zc_cache *c = new_cache("accept_percent=0", NULL);
    int p = zc_init_fs(c, 4096);
    unsigned char pg[4096];
    zc_filekey k = ino(1);
    make_real_page(pg, 4096, 20, 1024);
    assert_int_equal(zc_put_page(c, p, &k, 0, pg), ZC_PUT_REJECT_POOR);
    memset(pg, 0, sizeof(pg));
    assert_int_equal(zc_put_page(c, p, &k, 1, pg), 0);
    zt_fill_word(pg, 4096, 0x0101010101010101ULL);
    assert_int_equal(zc_put_page(c, p, &k, 2, pg), 0);
    zc_stats s = stats_of(c);
    assert_int_equal(s.stored_pages, 2);
    assert_int_equal(s.reject_compress_poor, 1);
    zt_assert_cache_sane(c, 4096, 64 << 20);
    zc_cache_destroy(c);
}

static void test_compressed_sizes_and_histogram_match_lzo(void **state)
{
    REQUIRE(NEED_LZO | NEED_REJECT | NEED_COPIES);
    (void)state;
    enum { N = 200 };
    zc_cache *c = new_cache("accept_percent=100,exclusive_gets=false,"
                            "same_filled=false",
                            NULL);
    int p = zc_init_fs(c, 4096);
    unsigned char *pg = page_alloc(4096);
    zc_filekey k = ino(1);
    uint64_t hist[ZC_HIST_BUCKETS] = {0}, compr = 0, stored = 0;
    for (uint64_t i = 0; i < N; i++) {
        make_page(pg, 4096, (enum page_kind)(i % K_KINDS), i + 3000);
        size_t sz = zt_lzo_size(pg, 4096);
        size_t bucket = sz >= 4096 ? 16 : sz * 16 / 4096;
        hist[bucket]++;
        int rc = zc_put_page(c, p, &k, i, pg);
        assert_int_equal(rc, sz <= 4096 ? 0 : ZC_PUT_REJECT_POOR);
        if (rc == 0) {
            stored++;
            compr += sz;
        }
    }
    zc_stats s = stats_of(c);
    assert_int_equal(s.stored_pages, stored);
    /* Raw pages (an allocator may store a near-page output raw) count a
     * whole page; all others count their LZO size. */
    if (s.raw_pages == 0)
        assert_int_equal(s.compr_data_size, compr);
    else
        assert_true(s.compr_data_size >= compr &&
                    s.compr_data_size <= compr + s.raw_pages * 4096);
    for (int b = 0; b < ZC_HIST_BUCKETS; b++) {
        if (s.compr_size_hist[b] != hist[b])
            print_message("bucket %d: library %llu, lzo says %llu\n", b,
                          (unsigned long long)s.compr_size_hist[b],
                          (unsigned long long)hist[b]);
        assert_int_equal(s.compr_size_hist[b], hist[b]);
    }
    zt_assert_cache_sane(c, 4096, 64 << 20);
    free(pg);
    zc_cache_destroy(c);
}

/* -------------------------------------------- raw pages, LRU, capacity */

static void lru_order(size_t ps)
{
    enum { N = 16 };
    char spec[160];
    size_t cap = (size_t)N * ps;
    snprintf(spec, sizeof(spec),
             "compressor=none,level=0,accept_percent=100,exclusive_gets=false,"
             "page_size=%zu,capacity=%zu",
             ps, cap);
    zc_cache *c = new_cache(spec, NULL);
    int p = zc_init_fs(c, ps);
    unsigned char *pg = page_alloc(ps), *out = page_alloc(ps);
    zc_filekey k = ino(1);
#define PAGE_FOR(i) make_random_page(pg, ps, 5000 + (i))

    for (uint64_t i = 0; i < N; i++) {
        PAGE_FOR(i);
        assert_int_equal(zc_put_page(c, p, &k, i, pg), 0);
        zt_assert_cache_sane(c, ps, cap);
    }
    zc_stats s = stats_of(c);
    assert_int_equal(s.stored_pages, N);
    assert_int_equal(s.evictions, 0);
    assert_int_equal(s.compr_data_size, (uint64_t)N * ps);
    /* N whole pages in a budget of N pages: all of it, and no more. */
    assert_int_equal(s.mem_used_total, (uint64_t)N * ps);
    for (uint64_t i = 0; i < N; i++) {
        PAGE_FOR(i);
        assert_int_equal(zc_get_page(c, p, &k, i, out), 0);
        assert_memory_equal(out, pg, ps);
    }
    /* LRU order is now 0, 1, ..., N-1.  Touch 0: 1 becomes the oldest. */
    assert_int_equal(zc_get_page(c, p, &k, 0, out), 0);
    PAGE_FOR(N);
    assert_int_equal(zc_put_page(c, p, &k, N, pg), 0);
    s = stats_of(c);
    assert_int_equal(s.evictions, 1);
    assert_int_equal(s.stored_pages, N);
    assert_int_equal(zc_get_page(c, p, &k, 1, out), -ZC_ENOENT);
    /* Gets in order 0, 2, 3, ..., N: 0 becomes the oldest. */
    for (uint64_t i = 0; i <= N; i++) {
        if (i == 1)
            continue;
        PAGE_FOR(i);
        int rc = zc_get_page(c, p, &k, i, out);
        if (rc != 0)
            print_message("ps=%zu: page %llu missing after 1 eviction\n", ps,
                          (unsigned long long)i);
        assert_int_equal(rc, 0);
        assert_memory_equal(out, pg, ps);
    }
    PAGE_FOR(N + 1);
    assert_int_equal(zc_put_page(c, p, &k, N + 1, pg), 0);
    assert_int_equal(stats_of(c).evictions, 2);
    assert_int_equal(zc_get_page(c, p, &k, 0, out), -ZC_ENOENT);
    for (uint64_t i = 2; i <= N + 1; i++)
        assert_int_equal(zc_get_page(c, p, &k, i, out), 0);
    /* LRU is now 2 .. N+1.  A same-filled page needs no room: no eviction. */
    memset(pg, 0, ps);
    assert_int_equal(zc_put_page(c, p, &k, 1000, pg), 0);
    assert_int_equal(stats_of(c).evictions, 2);
    /* Replacing a page frees its frame first: no eviction either. */
    PAGE_FOR(77);
    assert_int_equal(zc_put_page(c, p, &k, 5, pg), 0);
    s = stats_of(c);
    assert_int_equal(s.evictions, 2);
    assert_int_equal(s.replaced, 1);
    /* An invalidated page frees a frame: the next put evicts nothing. */
    assert_int_equal(zc_invalidate_page(c, p, &k, 7), 0);
    PAGE_FOR(78);
    assert_int_equal(zc_put_page(c, p, &k, 2000, pg), 0);
    assert_int_equal(stats_of(c).evictions, 2);
    /* The next one evicts the oldest: 2 (3, 4, 6 .. follow; 5 was
     * rewritten, so it is recent). */
    PAGE_FOR(79);
    assert_int_equal(zc_put_page(c, p, &k, 2001, pg), 0);
    assert_int_equal(stats_of(c).evictions, 3);
    assert_int_equal(zc_get_page(c, p, &k, 2, out), -ZC_ENOENT);
    assert_int_equal(zc_get_page(c, p, &k, 3, out), 0);
    assert_int_equal(zc_get_page(c, p, &k, 5, out), 0);
    PAGE_FOR(77);
    assert_memory_equal(out, pg, ps);
    zt_assert_cache_sane(c, ps, cap);
#undef PAGE_FOR
    free(pg);
    free(out);
    zc_cache_destroy(c);
}

static void test_compressor_none_fills_capacity_then_evicts_lru(void **state)
{
    REQUIRE(NEED_LRU | NEED_EVICT);
    (void)state;
    lru_order(4096);
    lru_order(512);
    lru_order(65536);
}

/* A long random mix; after every operation the capacity bound and the
 * stats identity hold, and every hit returns the last data put. */
static void capacity_loop(const char *comp, size_t ps, size_t cap,
                          unsigned accept, int ops, uint64_t seed)
{
    const int want_poor = ZC_PUT_REJECT_POOR;
    char spec[200];
    if (strcmp(comp, "none") == 0)
        accept = 100; /* nothing else is ever stored */
    snprintf(spec, sizeof(spec),
             "compressor=%s,page_size=%zu,capacity=%zu,accept_percent=%u,"
             "exclusive_gets=false",
             comp, ps, cap, accept);
    zc_cache *c = new_cache(spec, NULL);
    const uint8_t uuid[16] = {0x51};
    int pools[2] = {zc_init_fs(c, ps), zc_init_shared_fs(c, uuid, ps)};
    enum { FILES = 8, IDX = 64 };
    uint64_t shadow[2][FILES][IDX]; /* 0 = absent, else content tag */
    memset(shadow, 0, sizeof(shadow));
    unsigned char *pg = page_alloc(ps), *out = page_alloc(ps);
    zt_rng r;
    zt_rng_seed(&r, seed);
    uint64_t tag = 1, hits = 0;
    /* The quick tier: a quarter of ops, and on, up to ops, until the loop
     * has done what is asserted below (how soon depends on the corpus). */
    const int least = (int)zt_scale((uint64_t)ops, (uint64_t)ops / 4);
    for (int op = 0; op < ops; op++) {
        int pi = (int)zt_rng_below(&r, 2);
        uint64_t f = zt_rng_below(&r, FILES), i = zt_rng_below(&r, IDX);
        zc_filekey k = ino(f);
        unsigned what = (unsigned)zt_rng_below(&r, 100);
        if (what < 50) {
            uint64_t t = tag++;
            make_page(pg, ps, (enum page_kind)(t % K_KINDS), t);
            int want = expected_put(pg, ps, comp, accept, true);
            int rc = zc_put_page(c, pools[pi], &k, i, pg);
            bool no_room =
                rc == ZC_PUT_REJECT_NOSPACE || rc == ZC_PUT_REJECT_FULL;
            if (want == 0)
                assert_true(rc == 0 || no_room ||
                            ((g_lacks & NEED_LZO) && rc == want_poor));
            else if (g_lacks & (NEED_LZO | NEED_REJECT))
                assert_true(rc == 0 || rc == want || no_room);
            else
                assert_int_equal(rc, want);
            shadow[pi][f][i] = rc == 0 ? t : 0;
        } else if (what < 85) {
            int rc = zc_get_page(c, pools[pi], &k, i, out);
            if (rc == 0) {
                uint64_t t = shadow[pi][f][i];
                assert_int_not_equal(t, 0); /* never put, or dropped */
                make_page(pg, ps, (enum page_kind)(t % K_KINDS), t);
                assert_memory_equal(out, pg, ps);
                hits++;
            } else {
                assert_int_equal(rc, -ZC_ENOENT);
                shadow[pi][f][i] = 0; /* gone for good */
            }
        } else if (what < 97) {
            assert_int_equal(zc_invalidate_page(c, pools[pi], &k, i), 0);
            shadow[pi][f][i] = 0;
        } else {
            assert_int_equal(zc_invalidate_inode(c, pools[pi], &k), 0);
            memset(shadow[pi][f], 0, sizeof(shadow[pi][f]));
        }
        zc_stats s = stats_of(c);
        zt_assert_stats_sane(&s, ps, cap);
        if (op % 1000 == 999)
            assert_int_equal(zc_cache_check(c), 0);
        if (op + 1 >= least && hits > 0 &&
            (s.evictions > 0 ||
             (s.reject_full > 0 && (g_lacks & NEED_EVICT)))) {
            ops = op + 1;
            break;
        }
    }
    zc_stats s = stats_of(c);
    print_message("%s ps=%zu cap=%zu: %d ops, %llu hits, %llu evictions, "
                  "arena %llu\n",
                  comp, ps, cap, ops, (unsigned long long)hits,
                  (unsigned long long)s.evictions,
                  (unsigned long long)s.arena_bytes);
    assert_true(hits > 0);
    /* The loop did fill the cache. */
    assert_true(s.evictions > 0 ||
                (s.reject_full > 0 && (g_lacks & NEED_EVICT)));
    zt_assert_cache_sane(c, ps, cap);
    free(pg);
    free(out);
    zc_cache_destroy(c);
}

static void test_capacity_is_never_exceeded(void **state)
{
    (void)state;
    const char *comp = g_compressors[0]; /* lzo, or the group's */
    capacity_loop(comp, 4096, 64 << 10, 50, 20000, 1);
    capacity_loop(comp, 4096, 50000, 75, 10000, 2); /* not frame-aligned */
    capacity_loop("none", 4096, 16 * 4096, 100, 10000, 3);
    capacity_loop("none", 4096, 16 * 4096 + 4095, 100, 5000, 4);
    capacity_loop(comp, 512, 8 << 10, 60, 10000, 5);
    capacity_loop(comp, 65536, 4 * 65536 + 1000, 50, 1500, 6);
}

static void test_capacity_below_one_page_stores_no_compressed_page(void **state)
{
    (void)state;
    zc_cache *c = new_cache("capacity=4095", NULL);
    int p = zc_init_fs(c, 4096);
    unsigned char pg[4096], out[4096];
    zc_filekey k = ino(1);
    for (uint64_t i = 0; i < 50; i++) {
        make_real_page(pg, 4096, 300 + i, 2048);
        int rc = zc_put_page(c, p, &k, i, pg);
        assert_true(rc == 0 || rc == ZC_PUT_REJECT_NOSPACE ||
                    rc == ZC_PUT_REJECT_FULL);
        if (rc == 0) {
            assert_int_equal(zc_get_page(c, p, &k, i, out), 0);
            assert_memory_equal(out, pg, sizeof(pg));
        }
        zt_assert_cache_sane(c, 4096, 4095);
    }
    zc_cache_destroy(c);
}

/* ------------------------------------------------------ zc_set_capacity */

/* Shrinking evicts by the policy until the frames in use fit; growing
 * takes effect at once; every page left reads back exactly. */
static void test_set_capacity_shrinks_by_policy_and_grows_at_once(void **state)
{
    (void)state;
    zc_cache *c = new_cache("capacity=256K,exclusive_gets=false", NULL);
    int p = zc_init_fs(c, 4096);
    unsigned char pg[4096], out[4096];
    zc_filekey k = ino(1);
    int stored[200];
    zc_stats s0, s;

    for (int i = 0; i < 200; i++) {
        make_real_page(pg, 4096, 500 + (uint64_t)i, 2048);
        int rc = zc_put_page(c, p, &k, (uint64_t)i, pg);
        stored[i] = rc == 0;
    }
    s0 = stats_of(c);
    assert_true(s0.mem_used_total > 64 << 10);
    assert_int_equal(s0.capacity_bytes, 256 << 10);

    assert_int_equal(zc_set_capacity(c, 64 << 10), 0);
    s = stats_of(c);
    assert_true(s.mem_used_total <= 64 << 10);
    assert_true(s.resize_evictions > 0);
    assert_int_equal(s.evictions - s0.evictions, s.resize_evictions);
    assert_int_equal(s.capacity_bytes, 64 << 10);
    assert_int_equal(s.resizes, 1);
    assert_int_equal(zc_cache_check(c), 0);
    for (int i = 0; i < 200; i++) {
        int rc = zc_get_page(c, p, &k, (uint64_t)i, out);
        if (rc == 0) {
            assert_true(stored[i]);
            make_real_page(pg, 4096, 500 + (uint64_t)i, 2048);
            assert_memory_equal(out, pg, 4096);
        } else {
            assert_int_equal(rc, -ZC_ENOENT);
        }
    }
    /* New puts stay within the smaller budget. */
    for (int i = 200; i < 300; i++) {
        make_real_page(pg, 4096, 500 + (uint64_t)i, 2048);
        zc_put_page(c, p, &k, (uint64_t)i, pg);
        assert_true(stats_of(c).mem_used_total <= 64 << 10);
    }
    assert_int_equal(zc_cache_check(c), 0);

    /* Growing: room at once, no eviction needed for what fits.  Pages
     * are put until the arena takes a new frame (the first ones may fit
     * the free room the shrink left in its frames; how many depends on
     * the corpus this machine's files give): at most 80 of at most 2 KiB,
     * which with the 64 KiB held fit the 256 KiB without an eviction. */
    assert_int_equal(zc_set_capacity(c, 256 << 10), 0);
    s0 = stats_of(c);
    for (int i = 300; i < 380; i++) {
        make_real_page(pg, 4096, 500 + (uint64_t)i, 2048);
        assert_int_equal(zc_put_page(c, p, &k, (uint64_t)i, pg), 0);
        if (stats_of(c).mem_used_total > s0.mem_used_total)
            break;
    }
    s = stats_of(c);
    assert_int_equal(s.evictions, s0.evictions);
    assert_int_equal(s.resizes, 2);
    assert_true(s.mem_used_total > s0.mem_used_total);
    zt_assert_cache_sane(c, 4096, 256 << 10);

    /* Zero keeps only same-filled pages; the same size is no resize. */
    zt_fill_word(pg, 4096, 0);
    assert_int_equal(zc_put_page(c, p, &k, 1000, pg), 0);
    assert_int_equal(zc_set_capacity(c, 0), 0);
    assert_int_equal(zc_set_capacity(c, 0), 0);
    s = stats_of(c);
    assert_int_equal(s.mem_used_total, 0);
    assert_int_equal(s.resizes, 3);
    assert_int_equal(s.stored_pages, s.same_filled_pages);
    assert_int_equal(zc_get_page(c, p, &k, 1000, out), 0);
    assert_memory_equal(out, pg, 4096);
    assert_int_equal(zc_cache_check(c), 0);

    assert_int_equal(zc_set_capacity(NULL, 4096), -ZC_EINVAL);
    assert_int_equal(zc_set_capacity(c, ZC_CAPACITY_MAX + 1), -ZC_EINVAL);
    zc_cache_destroy(c);
}

/* Put pages [from, to) of real-like content into c, keys of file 1. */
static void put_range(zc_cache *c, int p, uint64_t from, uint64_t to)
{
    unsigned char pg[4096];
    zc_filekey k = ino(1);

    for (uint64_t i = from; i < to; i++) {
        make_real_page(pg, 4096, 500 + i, 2048);
        int rc = zc_put_page(c, p, &k, i, pg);
        assert_true(rc >= 0); /* stored, or a ZC_PUT_* reason */
    }
}

/* Every page of [from, to) that c still holds reads back exactly. */
static void check_range(zc_cache *c, int p, uint64_t from, uint64_t to)
{
    unsigned char pg[4096], out[4096];
    zc_filekey k = ino(1);

    for (uint64_t i = from; i < to; i++) {
        int rc = zc_get_page(c, p, &k, i, out);
        if (rc == 0) {
            make_real_page(pg, 4096, 500 + i, 2048);
            assert_memory_equal(out, pg, 4096);
        } else {
            assert_int_equal(rc, -ZC_ENOENT);
        }
    }
}

/* zsmalloc's spans follow the budget in force: a cache made at 8 MiB
 * (spans of up to 8 frames) and shrunk to 1 MiB packs new pages exactly
 * as one made at 1 MiB (1 frame), once the old spans are gone; spans of
 * different budgets live side by side through a shrink and a growth, and
 * every page reads back. */
static void test_zsmalloc_spans_follow_the_budget(void **state)
{
    (void)state;
    zc_cache *c = new_cache("allocator=zsmalloc,capacity=8M,"
                            "exclusive_gets=false",
                            NULL);
    zc_cache *d = new_cache("allocator=zsmalloc,capacity=1M,"
                            "exclusive_gets=false",
                            NULL);
    int p = zc_init_fs(c, 4096), q = zc_init_fs(d, 4096);
    zc_filekey k = ino(1);
    zc_stats s0, sc, sd;

    put_range(c, p, 0, 1500);
    assert_int_equal(zc_set_capacity(c, 1 << 20), 0);
    assert_int_equal(zc_cache_check(c), 0);
    check_range(c, p, 0, 1500);
    put_range(c, p, 1500, 1700); /* new spans beside the old */
    assert_int_equal(zc_cache_check(c), 0);
    check_range(c, p, 0, 1700);
    for (uint64_t i = 0; i < 1700; i++)
        zc_invalidate_page(c, p, &k, i);
    assert_int_equal(stats_of(c).arena_bytes, 0);

    s0 = stats_of(c);
    put_range(c, p, 2000, 3000);
    put_range(d, q, 2000, 3000);
    sc = stats_of(c);
    sd = stats_of(d);
    assert_true(sd.evictions > 0); /* it filled */
    assert_int_equal(sc.stored_pages, sd.stored_pages);
    assert_int_equal(sc.arena_bytes, sd.arena_bytes);
    assert_int_equal(sc.evictions - s0.evictions, sd.evictions);
    assert_int_equal(sc.compr_data_size, sd.compr_data_size);

    assert_int_equal(zc_set_capacity(c, 4 << 20), 0);
    put_range(c, p, 3000, 4000);
    assert_int_equal(zc_cache_check(c), 0);
    check_range(c, p, 2000, 4000);
    zt_assert_cache_sane(c, 4096, 4 << 20);
    zc_cache_destroy(c);
    zc_cache_destroy(d);
}

/* ---------------------------------------------------- exact counters */

/* meta_bytes' three parts grow with what they name: more pages of one
 * file grow only the per-page part, more files (one page each) the
 * per-file part by at least an object each, and neither the fixed part.
 * Entries and objects come in slab chunks, hence the slack of a chunk. */
static void test_meta_split_grows_with_pages_files_and_nothing(void **state)
{
    (void)state;
    const size_t ps = 4096;
    zc_cache *c = zt_cache_new("capacity=64M", NULL);
    unsigned char *pg = page_alloc(ps);
    int pool = zc_init_fs(c, ps);
    zc_stats s0, s1, s2;
    const uint64_t pages = 3000, files = 1000;
    zc_filekey k = ino(1);

    assert_true(pool >= 0);
    make_real_page(pg, ps, 0, ps / 4);
    assert_int_equal(zc_put_page(c, pool, &k, 0, pg), 0);
    s0 = stats_of(c);
    zt_assert_stats_sane(&s0, ps, 64u << 20);
    for (uint64_t i = 1; i < pages; i++) {
        make_real_page(pg, ps, i, ps / 4);
        assert_int_equal(zc_put_page(c, pool, &k, i, pg), 0);
    }
    s1 = stats_of(c);
    zt_assert_stats_sane(&s1, ps, 64u << 20);
    assert_int_equal(s1.stored_pages, pages);
    assert_int_equal(s1.meta_file_bytes, s0.meta_file_bytes);
    /* an entry is at least 16 bytes; 256 of them come at a time */
    assert_true(s1.meta_page_bytes - s0.meta_page_bytes >= (pages - 256) * 16);
    assert_int_equal(s1.meta_fixed_bytes,
                     s0.meta_fixed_bytes + (s1.work_bytes - s0.work_bytes));
    for (uint64_t f = 0; f < files; f++) {
        make_real_page(pg, ps, pages + f, ps / 4);
        k = ino(2 + f);
        assert_int_equal(zc_put_page(c, pool, &k, 0, pg), 0);
    }
    s2 = stats_of(c);
    zt_assert_stats_sane(&s2, ps, 64u << 20);
    assert_int_equal(s2.objects, 1 + files);
    /* an object is at least 32 bytes; 64 of them come at a time */
    assert_true(s2.meta_file_bytes - s1.meta_file_bytes >= (files - 64) * 32);
    /* a page of a file of its own costs the per-page part one entry
     * (and a chunk's slack), not an object */
    assert_true(s2.meta_page_bytes - s1.meta_page_bytes <= (files + 256) * 32);
    assert_int_equal(s2.meta_fixed_bytes,
                     s1.meta_fixed_bytes + (s2.work_bytes - s1.work_bytes));
    free(pg);
    zc_cache_destroy(c);
}

static void test_stats_count_a_scripted_sequence_exactly(void **state)
{
    REQUIRE(NEED_LZO | NEED_REJECT | NEED_EVICT);
    (void)state;
    zc_cache *c = new_cache("exclusive_gets=true", NULL);
    int a = zc_init_fs(c, 4096);
    const uint8_t uuid[16] = {0xab};
    int sh = zc_init_shared_fs(c, uuid, 4096);
    unsigned char pg[4096], out[4096];
    size_t sizes[10] = {0}, shared_sizes[4] = {0};
    uint64_t compr = 0;
    zc_filekey k1 = ino(1), k2 = ino(2), k3 = ino(3);

    for (uint64_t i = 0; i < 10; i++) {
        sizes[i] = make_real_page(pg, 4096, 400 + i, 2048);
        compr += sizes[i];
        assert_int_equal(zc_put_page(c, a, &k1, i, pg), 0);
    }
    for (uint64_t i = 0; i < 3; i++) {
        make_random_page(pg, 4096, 500 + i);
        assert_int_equal(zc_put_page(c, a, &k2, i, pg), ZC_PUT_REJECT_POOR);
    }
    memset(pg, 0, sizeof(pg));
    for (uint64_t i = 0; i < 2; i++)
        assert_int_equal(zc_put_page(c, a, &k3, i, pg), 0);
    for (uint64_t i = 0; i < 4; i++) {
        shared_sizes[i] = make_real_page(pg, 4096, 600 + i, 2048);
        compr += shared_sizes[i];
        assert_int_equal(zc_put_page(c, sh, &k1, i, pg), 0);
    }
    zc_stats s = stats_of(c);
    assert_int_equal(s.puts, 19);
    assert_int_equal(s.stored_puts, 16);
    assert_int_equal(s.reject_compress_poor, 3);
    assert_int_equal(s.reject_nospace, 0);
    assert_int_equal(s.reject_race, 0);
    assert_int_equal(s.stored_pages, 16);
    assert_int_equal(s.same_filled_pages, 2);
    assert_int_equal(s.raw_pages, 0);
    assert_int_equal(s.objects, 3);
    assert_int_equal(s.pools, 2);
    assert_int_equal(s.compr_data_size, compr);
    assert_true(s.mem_used_total >= compr);
    uint64_t hist_total = 0;
    for (int b = 0; b < ZC_HIST_BUCKETS; b++)
        hist_total += s.compr_size_hist[b];
    assert_int_equal(hist_total, 17); /* the 2 zero pages not compressed */
    zt_assert_stats_sane(&s, 4096, 64 << 20);

    for (uint64_t i = 0; i < 5; i++) {
        assert_int_equal(zc_get_page(c, a, &k1, i, out), 0);
        compr -= sizes[i];
    }
    assert_int_equal(zc_get_page(c, a, &k2, 0, out), -ZC_ENOENT);
    assert_int_equal(zc_get_page(c, sh, &k1, 0, out), 0);
    assert_int_equal(zc_get_page(c, sh, &k1, 0, out), 0);
    s = stats_of(c);
    assert_int_equal(s.succ_gets, 7);
    assert_int_equal(s.failed_gets, 1);
    assert_int_equal(s.exclusive_drops, 5);
    assert_int_equal(s.stored_pages, 11);
    assert_int_equal(s.compr_data_size, compr);

    size_t nsz = make_real_page(pg, 4096, 700, 2048);
    assert_int_equal(zc_put_page(c, a, &k1, 5, pg), 0);
    compr = compr - sizes[5] + nsz;
    sizes[5] = nsz;
    assert_int_equal(zc_invalidate_page(c, a, &k1, 6), 0);
    compr -= sizes[6];
    assert_int_equal(zc_invalidate_page(c, a, &k1, 0), 0); /* gone */
    s = stats_of(c);
    assert_int_equal(s.replaced, 1);
    assert_int_equal(s.invalidates, 1);
    assert_int_equal(s.stored_pages, 10);
    assert_int_equal(s.compr_data_size, compr);

    assert_int_equal(zc_invalidate_inode(c, a, &k3), 0);
    s = stats_of(c);
    assert_int_equal(s.invalidates, 3);
    assert_int_equal(s.same_filled_pages, 0);
    assert_int_equal(s.objects, 2);

    assert_int_equal(zc_invalidate_fs(c, sh), 0);
    for (int i = 0; i < 4; i++)
        compr -= shared_sizes[i];
    s = stats_of(c);
    assert_int_equal(s.invalidates, 7);
    assert_int_equal(s.pools, 1);
    assert_int_equal(s.objects, 1);
    assert_int_equal(s.stored_pages, 4); /* a/k1: 5, 7, 8, 9 */
    assert_int_equal(s.compr_data_size, compr);
    assert_int_equal(s.puts, 20);
    assert_int_equal(s.stored_puts, 17);
    zt_assert_stats_sane(&s, 4096, 64 << 20);

    assert_int_equal(zc_invalidate_inode(c, a, &k1), 0);
    s = stats_of(c);
    assert_int_equal(s.stored_pages, 0);
    assert_int_equal(s.objects, 0);
    assert_int_equal(s.compr_data_size, 0);
    assert_int_equal(s.mem_used_total, 0);
    assert_int_equal(s.orig_data_size, 0);
    zt_assert_cache_sane(c, 4096, 64 << 20);
    zc_cache_destroy(c);
}

/* ---------------------------------------------------------------- main */

/* A cache with a compression memo stores and returns exactly what one
 * without it does, also when another cache (another compressor) fills the
 * memo first and when the memo is full: 20000 operations (the quick tier:
 * 4000, past the small memo's limit still). */
static void test_memo_changes_nothing(void **state)
{
    static const size_t limits[] = {64 << 20, 200 << 10};
    const uint64_t ops = zt_scale(20000, 4000);
    (void)state;

    for (size_t l = 0; l < sizeof(limits) / sizeof(*limits); l++) {
        zc_memo *memo;
        zc_cache *c[3];
        zc_filekey k = ino(1);
        unsigned char *pg = page_alloc(4096), *a = page_alloc(4096),
                      *b = page_alloc(4096);
        zc_stats sa, sb;
        zt_rng g;
        int pa, pb, pz;

        assert_int_equal(zc_memo_create(limits[l], &memo), 0);
        for (int i = 0; i < 3; i++) {
            char spec[128];
            zc_config cfg = zc_config_default();
            snprintf(spec, sizeof(spec), "%s,capacity=1M%s", g_alloc,
                     i == 2 ? ",compressor=none,level=0,accept_percent=100"
                            : "");
            assert_int_equal(zc_config_parse(&cfg, spec), 0);
            cfg.memo = i ? memo : NULL;
            assert_int_equal(zc_cache_create(&cfg, &c[i]), 0);
        }
        pa = zc_init_fs(c[0], 4096);
        pb = zc_init_fs(c[1], 4096);
        pz = zc_init_fs(c[2], 4096);
        zt_rng_seed(&g, 99);
        for (uint64_t i = 0; i < ops; i++) {
            uint64_t idx = zt_rng_below(&g, 800), v = zt_rng_below(&g, 600);
            if (zt_rng_below(&g, 3)) {
                if (v < 300)
                    memcpy(pg, zt_corpus_page(4096, v % zt_corpus_pages(4096)),
                           4096);
                else
                    zt_fill_random(pg, 4096, v);
                /* the other compressor's cache puts the page first */
                zc_put_page(c[2], pz, &k, idx, pg);
                assert_int_equal(zc_put_page(c[0], pa, &k, idx, pg),
                                 zc_put_page(c[1], pb, &k, idx, pg));
            } else {
                int ra = zc_get_page(c[0], pa, &k, idx, a);
                int rb = zc_get_page(c[1], pb, &k, idx, b);
                assert_int_equal(ra, rb);
                if (ra == 0)
                    assert_memory_equal(a, b, 4096);
            }
        }
        assert_int_equal(zc_stats_get(c[0], &sa), 0);
        assert_int_equal(zc_stats_get(c[1], &sb), 0);
        assert_int_equal(sa.stored_pages, sb.stored_pages);
        assert_int_equal(sa.compr_data_size, sb.compr_data_size);
        assert_int_equal(sa.mem_used_total, sb.mem_used_total);
        assert_int_equal(sa.evictions, sb.evictions);
        assert_int_equal(sa.reject_compress_poor, sb.reject_compress_poor);
        assert_true(zc_memo_bytes(memo) <= limits[l] + 8192 + 64);
        assert_true(zc_memo_bytes(memo) > 0);
        for (int i = 0; i < 3; i++) {
            assert_int_equal(zc_cache_check(c[i]), 0);
            zc_cache_destroy(c[i]);
        }
        zc_memo_destroy(memo);
        free(pg);
        free(a);
        free(b);
    }
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* progress lines in ctest logs */
    const struct CMUnitTest once[] = {
        cmocka_unit_test(test_zsmalloc_spans_follow_the_budget),
        cmocka_unit_test(test_destroy_null_is_a_no_op),
        cmocka_unit_test(test_filekey_from_ino_is_the_number_then_zeros),
        cmocka_unit_test(test_init_fs_fails_past_65535_live_pools),
    };
    const struct CMUnitTest per_allocator[] = {
        cmocka_unit_test(test_put_get_round_trip_is_byte_exact),
        cmocka_unit_test(test_memo_changes_nothing),
        cmocka_unit_test(test_page_sizes_512_to_65536_all_work),
        cmocka_unit_test(test_init_fs_requires_the_cache_page_size),
        cmocka_unit_test(
            test_get_miss_returns_enoent_and_leaves_page_untouched),
        cmocka_unit_test(test_file_handle_keys_compare_all_six_words),
        cmocka_unit_test(test_exclusive_get_on_private_pool_removes_the_copy),
        cmocka_unit_test(test_nonexclusive_get_keeps_the_copy),
        cmocka_unit_test(test_shared_pools_are_found_by_uuid),
        cmocka_unit_test(test_shared_pool_gets_keep_the_copy),
        cmocka_unit_test(test_get_after_invalidate_page_misses),
        cmocka_unit_test(test_get_after_invalidate_inode_misses),
        cmocka_unit_test(test_get_after_invalidate_fs_misses),
        cmocka_unit_test(test_page_indexes_use_all_64_bits),
        cmocka_unit_test(test_invalidate_fs_frees_the_pool_id),
        cmocka_unit_test(test_put_rejected_replacement_drops_the_old_copy),
        cmocka_unit_test(test_put_replacing_a_copy_returns_the_new_data),
        cmocka_unit_test(test_bad_arguments_are_einval_never_a_crash),
        cmocka_unit_test(test_destroy_releases_a_full_cache),
        cmocka_unit_test(test_same_filled_pages_take_no_arena_space),
        cmocka_unit_test(test_same_filled_pages_need_no_capacity),
        cmocka_unit_test(test_almost_same_filled_page_is_not_same_filled),
        cmocka_unit_test(test_same_filled_off_compresses_zero_pages),
        cmocka_unit_test(test_half_size_rule_uses_the_lzo1x_1_size),
        cmocka_unit_test(test_accept_percent_0_keeps_only_same_filled),
        cmocka_unit_test(test_compressed_sizes_and_histogram_match_lzo),
        cmocka_unit_test(test_compressor_none_fills_capacity_then_evicts_lru),
        cmocka_unit_test(test_capacity_is_never_exceeded),
        cmocka_unit_test(
            test_capacity_below_one_page_stores_no_compressed_page),
        cmocka_unit_test(test_stats_count_a_scripted_sequence_exactly),
        cmocka_unit_test(test_meta_split_grows_with_pages_files_and_nothing),
        cmocka_unit_test(test_set_capacity_shrinks_by_policy_and_grows_at_once),
    };
    int failed = cmocka_run_group_tests_name("api", once, NULL, NULL);
    /* Every registered back-end of every kind, the others at their
     * defaults, then the admission options. */
    static const struct {
        zc_backend_kind kind;
        const char *key;
    } kinds[] = {{ZC_BACKEND_ALLOCATOR, "allocator"},
                 {ZC_BACKEND_POLICY, "policy"},
                 {ZC_BACKEND_COMPRESSOR, "compressor"}};
    static const struct {
        const char *spec;
        unsigned lacks;
    } options[] = {
        {"compressor=lzo,level=9", NEED_LZO},
        {"store_raw=true", NEED_REJECT},
        {"hysteresis_percent=90", NEED_EVICT},
        {"hysteresis_percent=100", NEED_EVICT},
        {"dedup=true", NEED_COPIES},
        {"dedup=true,allocator=zbud,policy=frame_lru", NEED_LRU | NEED_COPIES},
        {"dedup=true,compressor=none,accept_percent=100",
         NEED_LZO | NEED_REJECT | NEED_COPIES},
    };
    size_t n = 0;
    for (int k = 0; k < 3; k++) {
        const char *name;
        for (size_t i = 0; (name = zc_backend_name(kinds[k].kind, i)); i++) {
            if (k > 0 && i == 0)
                continue; /* the default, run with every allocator */
            n++;
            snprintf(g_group, sizeof(g_group), "%s=%s", kinds[k].key, name);
            g_lacks = kinds[k].kind == ZC_BACKEND_POLICY       ? NEED_LRU
                      : kinds[k].kind == ZC_BACKEND_COMPRESSOR ? NEED_LZO
                                                               : 0;
            g_compressors[0] =
                kinds[k].kind == ZC_BACKEND_COMPRESSOR ? name : "lzo";
            g_ncompressors = kinds[k].kind == ZC_BACKEND_COMPRESSOR ? 1 : 2;
            if (strcmp(g_group, "compressor=none") == 0) {
                /* Nothing compresses: keep whole pages. */
                strcat(g_group, ",accept_percent=100");
                g_lacks = NEED_LZO | NEED_REJECT;
            }
            g_alloc = g_group;
            failed +=
                cmocka_run_group_tests_name(g_group, per_allocator, NULL, NULL);
        }
    }
    for (size_t i = 0; i < ARRAY_LEN(options); i++) {
        g_alloc = options[i].spec;
        g_lacks = options[i].lacks;
        g_compressors[0] = "lzo";
        g_ncompressors = 2;
        if (strncmp(g_alloc, "compressor=", 11) == 0) {
            g_compressors[0] = g_alloc + 11;
            g_ncompressors = 1;
        }
        failed += cmocka_run_group_tests_name(options[i].spec, per_allocator,
                                              NULL, NULL);
    }
    if (n == 0) {
        print_message("no allocator registered\n");
        failed++;
    }
    return failed ? 1 : 0;
}
