/*
 * test_admission.c - what the admission options and compressor levels do,
 * through the public API.
 *
 *   store_raw            pages above accept_percent are kept whole;
 *   hysteresis_percent   a full arena shrinks to the watermark and rejects
 *                        the put that found it full; 100 never evicts;
 *   active_only          only puts flagged ZC_PUT_ACTIVE are admitted, and
 *                        the others cost no compression;
 *   level                higher levels store no larger, and a memo never
 *                        mixes the levels of one compressor.
 *
 * The conformance suite and the model test also run with these options;
 * here each is held to its own promise.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
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

#define PS 4096

static zc_stats stats_of(const zc_cache *c)
{
    zc_stats s;
    assert_int_equal(zc_stats_get(c, &s), 0);
    return s;
}

/* A real page that LZO1X-1 takes to half a page or less, not same-filled:
 * the first such page of the corpus from index n on.  (The corpus is the
 * machine's own files, so fixed indexes would not do.) */
static const unsigned char *good_page(size_t n)
{
    size_t total = zt_corpus_pages(PS);

    for (size_t i = 0; i < total; i++) {
        const unsigned char *pg = zt_corpus_page(PS, (n + i) % total);
        if (!zt_is_same_filled(pg, PS) && zt_lzo_size(pg, PS) <= PS / 2)
            return pg;
    }
    fail_msg("no compressible page in the corpus");
    return NULL;
}

static bool registered(const char *compressor)
{
    for (size_t i = 0; zc_backend_name(ZC_BACKEND_COMPRESSOR, i); i++)
        if (strcmp(zc_backend_name(ZC_BACKEND_COMPRESSOR, i), compressor) == 0)
            return true;
    return false;
}

static void test_store_raw_keeps_incompressible_pages_whole(void **state)
{
    unsigned char pg[PS], out[PS];
    zc_filekey k = zc_filekey_from_ino(1);

    (void)state;
    zt_fill_random(pg, PS, 1);
    zc_cache *c = zt_cache_new("store_raw=false", NULL);
    int p = zc_init_fs(c, PS);
    assert_int_equal(zc_put_page(c, p, &k, 0, pg), ZC_PUT_REJECT_POOR);
    zc_cache_destroy(c);

    c = zt_cache_new("store_raw=true,exclusive_gets=false", NULL);
    p = zc_init_fs(c, PS);
    assert_int_equal(zc_put_page(c, p, &k, 0, pg), 0);
    memset(out, 0, PS);
    assert_int_equal(zc_get_page(c, p, &k, 0, out), 0);
    assert_memory_equal(out, pg, PS);
    zc_stats s = stats_of(c);
    assert_int_equal(s.raw_stored, 1);
    assert_int_equal(s.raw_pages, 1);
    assert_int_equal(s.compr_data_size, PS);
    assert_int_equal(s.mem_used_total, PS);
    assert_int_equal(s.reject_compress_poor, 0);
    assert_true(s.compress_ns > 0 && s.compress_ns_rejected == 0);
    /* A compressible page is still stored compressed. */
    assert_int_equal(zc_put_page(c, p, &k, 1, good_page(3)), 0);
    s = stats_of(c);
    assert_int_equal(s.raw_stored, 1);
    assert_int_equal(s.raw_pages, 1);
    assert_int_equal(zc_cache_check(c), 0);
    zc_cache_destroy(c);
}

/* Sixteen one-frame pages fill a 16-frame arena; the seventeenth finds it
 * full. */
static zc_cache *full_cache(const char *hysteresis, int *pool)
{
    char spec[128];
    unsigned char pg[PS];
    zc_filekey k = zc_filekey_from_ino(1);

    snprintf(spec, sizeof(spec),
             "compressor=none,accept_percent=100,capacity=64K,%s", hysteresis);
    zc_cache *c = zt_cache_new(spec, NULL);
    *pool = zc_init_fs(c, PS);
    for (uint64_t i = 0; i < 16; i++) {
        zt_fill_random(pg, PS, i);
        assert_int_equal(zc_put_page(c, *pool, &k, i, pg), 0);
    }
    return c;
}

static void test_hysteresis_shrinks_to_the_watermark_and_rejects(void **state)
{
    unsigned char pg[PS];
    zc_filekey k = zc_filekey_from_ino(1);
    int p;

    (void)state;
    zc_cache *c = full_cache("hysteresis_percent=50", &p);
    zt_fill_random(pg, PS, 100);
    assert_int_equal(zc_put_page(c, p, &k, 100, pg), ZC_PUT_REJECT_FULL);
    zc_stats s = stats_of(c);
    assert_int_equal(s.reject_full, 1);
    assert_int_equal(s.evictions, 8); /* down to 8 of 16 frames */
    assert_int_equal(s.mem_used_total, 8 * PS);
    /* The oldest went (lru); the newest stay. */
    assert_int_equal(zc_probe_page(c, p, &k, 0), 0);
    assert_int_equal(zc_probe_page(c, p, &k, 15), 1);
    assert_int_equal(zc_probe_page(c, p, &k, 100), 0);
    /* Below the watermark, puts are accepted again without evicting. */
    for (uint64_t i = 200; i < 208; i++) {
        zt_fill_random(pg, PS, i);
        assert_int_equal(zc_put_page(c, p, &k, i, pg), 0);
    }
    s = stats_of(c);
    assert_int_equal(s.evictions, 8);
    assert_int_equal(zc_cache_check(c), 0);
    zc_cache_destroy(c);
}

static void test_hysteresis_100_never_evicts(void **state)
{
    unsigned char pg[PS];
    zc_filekey k = zc_filekey_from_ino(1);
    int p;

    (void)state;
    zc_cache *c = full_cache("hysteresis_percent=100", &p);
    for (uint64_t i = 100; i < 110; i++) {
        zt_fill_random(pg, PS, i);
        assert_int_equal(zc_put_page(c, p, &k, i, pg), ZC_PUT_REJECT_FULL);
    }
    zc_stats s = stats_of(c);
    assert_int_equal(s.evictions, 0);
    assert_int_equal(s.reject_full, 10);
    assert_int_equal(s.stored_pages, 16);
    /* An invalidation makes room, and the next put takes it. */
    assert_int_equal(zc_invalidate_page(c, p, &k, 3), 0);
    assert_int_equal(zc_put_page(c, p, &k, 200, pg), 0);
    assert_int_equal(zc_cache_check(c), 0);
    zc_cache_destroy(c);
}

static void test_active_only_admits_flagged_puts_at_no_cost(void **state)
{
    zc_filekey k = zc_filekey_from_ino(1);
    const unsigned char *pg = good_page(5);
    unsigned char zero[PS] = {0};

    (void)state;
    zc_cache *c = zt_cache_new("active_only=true", NULL);
    int p = zc_init_fs(c, PS);
    assert_int_equal(zc_put_page_flags(c, p, &k, 0, pg, ZC_PUT_ACTIVE), 0);
    assert_int_equal(zc_probe_page(c, p, &k, 0), 1);
    /* An unflagged put of the same key is refused and drops the copy. */
    assert_int_equal(zc_put_page(c, p, &k, 0, pg), ZC_PUT_REJECT_INACTIVE);
    assert_int_equal(zc_probe_page(c, p, &k, 0), 0);
    assert_int_equal(zc_put_page_flags(c, p, &k, 1, zero, 0),
                     ZC_PUT_REJECT_INACTIVE);
    zc_stats s = stats_of(c);
    assert_int_equal(s.puts, 3);
    assert_int_equal(s.stored_puts, 1);
    assert_int_equal(s.reject_inactive, 2);
    assert_int_equal(s.compress_ns_rejected, 0); /* nothing compressed */
    assert_int_equal(
        s.compr_size_hist[0] + s.compr_size_hist[1] + s.compr_size_hist[2] +
            s.compr_size_hist[3] + s.compr_size_hist[4] + s.compr_size_hist[5] +
            s.compr_size_hist[6] + s.compr_size_hist[7] + s.compr_size_hist[8] +
            s.compr_size_hist[9] + s.compr_size_hist[10] +
            s.compr_size_hist[11] + s.compr_size_hist[12] +
            s.compr_size_hist[13] + s.compr_size_hist[14] +
            s.compr_size_hist[15] + s.compr_size_hist[16],
        1);
    assert_int_equal(zc_put_page_flags(c, p, &k, 0, pg, 2), -ZC_EINVAL);
    zc_cache_destroy(c);

    /* Without active_only the flag changes nothing. */
    c = zt_cache_new("", NULL);
    p = zc_init_fs(c, PS);
    assert_int_equal(zc_put_page_flags(c, p, &k, 0, pg, 0), 0);
    assert_int_equal(zc_put_page_flags(c, p, &k, 1, pg, ZC_PUT_ACTIVE), 0);
    zc_cache_destroy(c);
}

/* Total compressed bytes of 200 real pages at a level; each page is also
 * read back. */
static uint64_t stored_bytes(const char *compressor, int level)
{
    char spec[160];
    unsigned char out[PS];
    zc_filekey k = zc_filekey_from_ino(1);

    snprintf(spec, sizeof(spec),
             "compressor=%s,level=%d,accept_percent=100,store_raw=true,"
             "capacity=16M,"
             "same_filled=false,exclusive_gets=false",
             compressor, level);
    zc_cache *c = zt_cache_new(spec, NULL);
    int p = zc_init_fs(c, PS);
    size_t n = zt_corpus_pages(PS);
    for (uint64_t i = 0; i < 200; i++) {
        const unsigned char *pg = zt_corpus_page(PS, (size_t)(i * 37 % n));
        assert_int_equal(zc_put_page(c, p, &k, i, pg), 0);
        assert_int_equal(zc_get_page(c, p, &k, i, out), 0);
        assert_memory_equal(out, pg, PS);
    }
    zc_stats s = stats_of(c);
    assert_int_equal(zc_cache_check(c), 0);
    zc_cache_destroy(c);
    print_message("%s level %d: %llu bytes\n", compressor, level,
                  (unsigned long long)s.compr_data_size);
    return s.compr_data_size;
}

static void test_higher_levels_store_no_more_bytes(void **state)
{
    (void)state;
    assert_true(stored_bytes("lzo", 9) < stored_bytes("lzo", 1));
    if (registered("lz4"))
        assert_true(stored_bytes("lz4", 9) < stored_bytes("lz4", 1));
    if (registered("zstd")) {
        uint64_t z1 = stored_bytes("zstd", 1), z19 = stored_bytes("zstd", 19);
        assert_true(z19 < z1);
        assert_true(stored_bytes("zstd", -5) > z1);
        assert_true(z1 < stored_bytes("lzo", 1)); /* zstd packs tighter */
    }
}

/* Two caches share a memo at different levels: each stores what it would
 * alone. */
static void test_memo_keeps_levels_apart(void **state)
{
    zc_memo *m;
    zc_filekey k = zc_filekey_from_ino(1);
    zc_cache *c[4];
    const char *specs[2] = {"compressor=lzo,level=1,accept_percent=100",
                            "compressor=lzo,level=9,accept_percent=100"};

    (void)state;
    assert_int_equal(zc_memo_create(64 << 20, &m), 0);
    for (int i = 0; i < 4; i++) {
        zc_config cfg = zc_config_default();
        assert_int_equal(zc_config_parse(&cfg, specs[i % 2]), 0);
        cfg.memo = i >= 2 ? m : NULL;
        assert_int_equal(zc_cache_create(&cfg, &c[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        int p = zc_init_fs(c[i], PS);
        for (uint64_t j = 0; j < 50; j++)
            assert_int_equal(zc_put_page(c[i], p, &k, j, good_page(j * 11)), 0);
    }
    assert_int_equal(stats_of(c[0]).compr_data_size,
                     stats_of(c[2]).compr_data_size);
    assert_int_equal(stats_of(c[1]).compr_data_size,
                     stats_of(c[3]).compr_data_size);
    assert_true(stats_of(c[1]).compr_data_size <
                stats_of(c[0]).compr_data_size);
    for (int i = 0; i < 4; i++)
        zc_cache_destroy(c[i]);
    zc_memo_destroy(m);
}

/* Ten keys with one content: one copy, ten pages; the copy stays until
 * its last page goes, and a key put again with other bytes never returns
 * the shared ones. */
static void dedup_one_copy(const char *spec, const unsigned char *pg)
{
    unsigned char other[PS], out[PS];
    zc_cache *c = zt_cache_new(spec, NULL);
    int p = zc_init_fs(c, PS);
    zc_stats one, s;

    for (uint64_t i = 0; i < 10; i++) {
        zc_filekey k = zc_filekey_from_ino(1 + i % 3);
        assert_int_equal(zc_put_page(c, p, &k, i, pg), 0);
        if (i == 0)
            one = stats_of(c);
    }
    s = stats_of(c);
    assert_int_equal(s.dedup_hits, 9);
    assert_int_equal(s.shared_pages, 9);
    assert_int_equal(s.stored_pages, 10);
    assert_int_equal(s.compr_data_size, one.compr_data_size);
    assert_int_equal(s.mem_used_total, one.mem_used_total);
    assert_int_equal(zc_cache_check(c), 0);
    /* Key 0 gets other bytes: the others keep the shared copy. */
    memcpy(other, pg, PS);
    other[100] ^= 0x5a;
    zc_filekey k0 = zc_filekey_from_ino(1);
    assert_int_equal(zc_put_page(c, p, &k0, 0, other), 0);
    for (uint64_t i = 0; i < 10; i++) {
        zc_filekey k = zc_filekey_from_ino(1 + i % 3);
        assert_int_equal(zc_get_page(c, p, &k, i, out), 0);
        assert_memory_equal(out, i ? pg : other, PS);
        assert_int_equal(zc_cache_check(c), 0);
    }
    s = stats_of(c);
    assert_int_equal(s.stored_pages, 10);
    assert_int_equal(s.shared_pages, 8);
    /* Invalidate all but one sharer, then that one: the arena empties. */
    for (uint64_t i = 1; i < 9; i++) {
        zc_filekey k = zc_filekey_from_ino(1 + i % 3);
        assert_int_equal(zc_invalidate_page(c, p, &k, i), 0);
    }
    assert_int_equal(zc_probe_page(c, p, &(zc_filekey){{3}}, 8), 0);
    assert_int_equal(stats_of(c).shared_pages, 0);
    assert_int_equal(zc_cache_check(c), 0);
    assert_int_equal(zc_invalidate_fs(c, p), 0);
    s = stats_of(c);
    assert_int_equal(s.stored_pages, 0);
    assert_int_equal(s.mem_used_total, 0);
    assert_int_equal(s.compr_data_size, 0);
    assert_int_equal(zc_cache_check(c), 0);
    zc_cache_destroy(c);
}

static void test_dedup_stores_identical_pages_once(void **state)
{
    unsigned char rnd[PS];

    (void)state;
    dedup_one_copy("dedup=true,exclusive_gets=false", good_page(7));
    dedup_one_copy("dedup=true,exclusive_gets=false,allocator=zbud",
                   good_page(9));
    zt_fill_random(rnd, PS, 3); /* a raw copy */
    dedup_one_copy("dedup=true,exclusive_gets=false,store_raw=true", rnd);
    dedup_one_copy("dedup=true,exclusive_gets=false,compressor=none,"
                   "accept_percent=100",
                   good_page(11));
}

/* Without dedup the same ten puts take ten copies. */
static void test_dedup_off_stores_every_copy(void **state)
{
    const unsigned char *pg = good_page(7);
    zc_cache *c = zt_cache_new("dedup=false", NULL);
    int p = zc_init_fs(c, PS);
    zc_filekey k = zc_filekey_from_ino(1);

    (void)state;
    for (uint64_t i = 0; i < 10; i++)
        assert_int_equal(zc_put_page(c, p, &k, i, pg), 0);
    zc_stats s = stats_of(c);
    assert_int_equal(s.dedup_hits, 0);
    assert_int_equal(s.compr_data_size, 10 * zt_lzo_size(pg, PS));
    zc_cache_destroy(c);
}

/* A shared copy evicted from a full cache: its sharers go one by one, and
 * the memory comes back only with the last. */
static void test_dedup_eviction_keeps_shared_copies_coherent(void **state)
{
    unsigned char pg[PS], out[PS];
    zc_cache *c = zt_cache_new("dedup=true,compressor=none,accept_percent=100,"
                               "capacity=32K,exclusive_gets=false",
                               NULL);
    int p = zc_init_fs(c, PS);
    zc_filekey k = zc_filekey_from_ino(1);

    (void)state;
    for (uint64_t i = 0; i < 200; i++) {
        zt_fill_random(pg, PS, i % 13); /* 13 contents, 8 frames */
        assert_int_equal(zc_put_page(c, p, &k, i, pg), 0);
        assert_int_equal(zc_cache_check(c), 0);
    }
    for (uint64_t i = 0; i < 200; i++) {
        int rc = zc_get_page(c, p, &k, i, out);
        if (rc == 0) {
            zt_fill_random(pg, PS, i % 13);
            assert_memory_equal(out, pg, PS);
        } else {
            assert_int_equal(rc, -ZC_ENOENT);
        }
    }
    zc_stats s = stats_of(c);
    assert_true(s.evictions > 0);
    assert_true(s.mem_used_total <= 8 * PS);
    zc_cache_destroy(c);
}

/* Evicting one page of a shared copy frees nothing: the policy is asked
 * again, and an unshared page goes instead.  Two one-frame pages, X shared
 * by A and B, Z held by C; D needs a frame: A is the least recently used,
 * but C goes. */
static void test_dedup_evicts_an_unshared_page_before_a_sharer(void **state)
{
    unsigned char x[PS], z[PS], w[PS];
    zc_cache *c = zt_cache_new("dedup=true,compressor=none,accept_percent=100,"
                               "capacity=8K,exclusive_gets=false",
                               NULL);
    int p = zc_init_fs(c, PS);
    zc_filekey k = zc_filekey_from_ino(1);

    (void)state;
    zt_fill_random(x, PS, 1);
    zt_fill_random(z, PS, 2);
    zt_fill_random(w, PS, 3);
    assert_int_equal(zc_put_page(c, p, &k, 0, x), 0); /* A */
    assert_int_equal(zc_put_page(c, p, &k, 2, z), 0); /* C */
    assert_int_equal(zc_put_page(c, p, &k, 1, x), 0); /* B shares A's copy */
    assert_int_equal(zc_put_page(c, p, &k, 3, w), 0); /* D */
    assert_int_equal(zc_probe_page(c, p, &k, 0), 1);
    assert_int_equal(zc_probe_page(c, p, &k, 1), 1);
    assert_int_equal(zc_probe_page(c, p, &k, 2), 0);
    assert_int_equal(zc_probe_page(c, p, &k, 3), 1);
    assert_int_equal(stats_of(c).evictions, 1);
    assert_int_equal(zc_cache_check(c), 0);
    /* When every candidate is a sharer, the copy goes whole. */
    assert_int_equal(zc_put_page(c, p, &k, 4, w), 0); /* shares D's copy */
    assert_int_equal(zc_put_page(c, p, &k, 5, z), 0);
    zc_stats s = stats_of(c);
    assert_true(s.mem_used_total <= 2 * PS);
    assert_int_equal(s.stored_pages + s.evictions, 6);
    assert_int_equal(zc_cache_check(c), 0);
    zc_cache_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_raw_keeps_incompressible_pages_whole),
        cmocka_unit_test(test_hysteresis_shrinks_to_the_watermark_and_rejects),
        cmocka_unit_test(test_hysteresis_100_never_evicts),
        cmocka_unit_test(test_active_only_admits_flagged_puts_at_no_cost),
        cmocka_unit_test(test_higher_levels_store_no_more_bytes),
        cmocka_unit_test(test_memo_keeps_levels_apart),
        cmocka_unit_test(test_dedup_stores_identical_pages_once),
        cmocka_unit_test(test_dedup_off_stores_every_copy),
        cmocka_unit_test(test_dedup_eviction_keeps_shared_copies_coherent),
        cmocka_unit_test(test_dedup_evicts_an_unshared_page_before_a_sharer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
