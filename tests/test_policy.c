/*
 * test_policy.c - what each eviction policy evicts, through the public API.
 *
 * The conformance suite (test_cache) and the model test run every policy
 * through the same semantic checks; here each policy is held to its own
 * order.  Pages are made so that their stored sizes are known: with
 * compressor=none and accept_percent=100 every page takes one frame, so a
 * capacity of N frames holds exactly N pages; for the size-aware policy,
 * pages of r random bytes followed by zeros compress to about r bytes.
 * Presence is read with zc_probe_page(), which changes nothing.
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

#include "zcache.h"
#include "zt_util.h"

#define PS 4096

static int present(zc_cache *c, int pool, uint64_t ino, uint64_t idx)
{
    zc_filekey k = zc_filekey_from_ino(ino);
    int rc = zc_probe_page(c, pool, &k, idx);
    assert_true(rc == 0 || rc == 1);
    return rc;
}

/* A page whose first r bytes are random (seeded by tag) and the rest zero. */
static void sized_page(unsigned char *pg, size_t r, uint64_t tag)
{
    memset(pg, 0, PS);
    zt_fill_random(pg, r, tag);
    memcpy(pg, &tag, 8);
}

static void put(zc_cache *c, int pool, uint64_t ino, uint64_t idx,
                const unsigned char *pg)
{
    zc_filekey k = zc_filekey_from_ino(ino);
    assert_int_equal(zc_put_page(c, pool, &k, idx, pg), 0);
}

static void hit(zc_cache *c, int pool, uint64_t ino, uint64_t idx)
{
    unsigned char out[PS];
    zc_filekey k = zc_filekey_from_ino(ino);
    assert_int_equal(zc_get_page(c, pool, &k, idx, out), 0);
}

/* Four one-frame pages 1..4 in a cache of four frames, then a hit on page
 * 1 that keeps its copy; returns the cache and its pool. */
static zc_cache *four_pages_then_hit_1(const char *policy, int *pool)
{
    char spec[160];
    unsigned char pg[PS];

    snprintf(spec, sizeof(spec),
             "policy=%s,compressor=none,accept_percent=100,capacity=16K,"
             "exclusive_gets=false",
             policy);
    zc_cache *c = zt_cache_new(spec, NULL);
    *pool = zc_init_fs(c, PS);
    assert_true(*pool >= 0);
    for (uint64_t i = 1; i <= 4; i++) {
        zt_fill_random(pg, PS, i);
        put(c, *pool, 1, i, pg);
    }
    hit(c, *pool, 1, 1);
    return c;
}

static void test_lru_evicts_the_least_recently_used_page(void **state)
{
    int p;
    unsigned char pg[PS];

    (void)state;
    zc_cache *c = four_pages_then_hit_1("lru", &p);
    zt_fill_random(pg, PS, 5);
    put(c, p, 1, 5, pg);
    assert_int_equal(present(c, p, 1, 1), 1); /* refreshed by the hit */
    assert_int_equal(present(c, p, 1, 2), 0);
    assert_int_equal(zc_cache_check(c), 0);
    zc_cache_destroy(c);
}

static void test_fifo_evicts_in_store_order_whatever_the_hits(void **state)
{
    int p;
    unsigned char pg[PS];

    (void)state;
    zc_cache *c = four_pages_then_hit_1("fifo", &p);
    zt_fill_random(pg, PS, 5);
    put(c, p, 1, 5, pg);
    assert_int_equal(present(c, p, 1, 1), 0); /* first in, first out */
    assert_int_equal(present(c, p, 1, 2), 1);
    zt_fill_random(pg, PS, 6);
    put(c, p, 1, 6, pg);
    assert_int_equal(present(c, p, 1, 2), 0);
    assert_int_equal(present(c, p, 1, 3), 1);
    assert_int_equal(zc_cache_check(c), 0);
    zc_cache_destroy(c);
}

/* CLOCK: every page is stored referenced, so the first eviction clears
 * every bit and takes the oldest; after that a referenced page is passed
 * over once. */
static void test_clock_passes_over_a_referenced_page_once(void **state)
{
    int p;
    unsigned char pg[PS];

    (void)state;
    zc_cache *c = four_pages_then_hit_1("clock", &p);
    zt_fill_random(pg, PS, 5);
    put(c, p, 1, 5, pg);
    assert_int_equal(present(c, p, 1, 1), 0); /* not lru: 1 was hit */
    /* Now 2, 3, 4 are unreferenced, 5 referenced; a hit references 2. */
    hit(c, p, 1, 2);
    zt_fill_random(pg, PS, 6);
    put(c, p, 1, 6, pg);
    assert_int_equal(present(c, p, 1, 2), 1); /* not fifo: 2 was hit */
    assert_int_equal(present(c, p, 1, 3), 0);
    /* 2 lost its bit going round: next time it is the victim. */
    zt_fill_random(pg, PS, 7);
    put(c, p, 1, 7, pg);
    assert_int_equal(present(c, p, 1, 4), 0);
    zt_fill_random(pg, PS, 8);
    put(c, p, 1, 8, pg);
    assert_int_equal(present(c, p, 1, 2), 0);
    assert_int_equal(present(c, p, 1, 5), 1);
    assert_int_equal(zc_cache_check(c), 0);
    zc_cache_destroy(c);
}

/* zbud frames of two pages each: A B | C D.  A hit on A refreshes its
 * frame; the next frame needed takes the least recently used frame, C D,
 * whole.  Plain lru takes B, the least recently used page, and with it
 * its buddy A. */
static void frame_pair_scenario(const char *policy, int want_ab, int want_cd)
{
    char spec[160];
    unsigned char pg[PS];
    int p;

    snprintf(spec, sizeof(spec),
             "policy=%s,allocator=zbud,accept_percent=100,capacity=8K,"
             "exclusive_gets=false",
             policy);
    zc_cache *c = zt_cache_new(spec, NULL);
    p = zc_init_fs(c, PS);
    for (uint64_t i = 0; i < 4; i++) { /* ~1.6 KiB each: two per frame */
        sized_page(pg, 1600, 10 + i);
        put(c, p, 1, i, pg);
    }
    zc_stats s;
    assert_int_equal(zc_stats_get(c, &s), 0);
    assert_int_equal(s.mem_used_total, 2 * PS);
    hit(c, p, 1, 0);
    sized_page(pg, 1600, 20);
    put(c, p, 1, 4, pg);
    assert_int_equal(present(c, p, 1, 0), want_ab);
    assert_int_equal(present(c, p, 1, 1), want_ab);
    assert_int_equal(present(c, p, 1, 2), want_cd);
    assert_int_equal(present(c, p, 1, 3), want_cd);
    assert_int_equal(present(c, p, 1, 4), 1);
    assert_int_equal(zc_stats_get(c, &s), 0);
    assert_int_equal(s.evictions, 2);
    assert_int_equal(zc_cache_check(c), 0);
    zc_cache_destroy(c);
}

static void test_frame_lru_evicts_the_least_recently_used_frame(void **state)
{
    (void)state;
    frame_pair_scenario("frame_lru", 1, 0);
}

static void test_lru_on_zbud_evicts_the_victims_buddy(void **state)
{
    (void)state;
    frame_pair_scenario("lru", 0, 1);
}

/* Ten small pages stored first, then large ones until the cache evicts:
 * lru takes the oldest, the small ones; gdsf takes large ones, which free
 * the most memory per page of expected reuse given up. */
static unsigned small_pages_left(const char *policy)
{
    char spec[160];
    unsigned char pg[PS];
    unsigned left = 0;
    int p;

    snprintf(spec, sizeof(spec),
             "policy=%s,accept_percent=100,capacity=64K,exclusive_gets=false",
             policy);
    zc_cache *c = zt_cache_new(spec, NULL);
    p = zc_init_fs(c, PS);
    for (uint64_t i = 0; i < 10; i++) {
        sized_page(pg, 300, 100 + i);
        put(c, p, 1, i, pg);
    }
    for (uint64_t i = 0; i < 24; i++) {
        sized_page(pg, 3500, 200 + i);
        put(c, p, 2, i, pg);
    }
    zc_stats s;
    assert_int_equal(zc_stats_get(c, &s), 0);
    assert_true(s.evictions > 0);
    for (uint64_t i = 0; i < 10; i++)
        left += (unsigned)present(c, p, 1, i);
    assert_int_equal(zc_cache_check(c), 0);
    zc_cache_destroy(c);
    return left;
}

static void test_gdsf_keeps_small_pages_over_large_ones(void **state)
{
    (void)state;
    assert_int_equal(small_pages_left("gdsf"), 10);
    assert_true(small_pages_left("lru") < 10);
}

/* Small is not forever: each eviction raises the floor, so a small page
 * that is never used again goes in the end. */
static void test_gdsf_ages_out_an_unused_small_page(void **state)
{
    unsigned char pg[PS];
    int p;

    (void)state;
    zc_cache *c =
        zt_cache_new("policy=gdsf,accept_percent=100,capacity=64K", NULL);
    p = zc_init_fs(c, PS);
    sized_page(pg, 300, 1);
    put(c, p, 1, 0, pg);
    for (uint64_t i = 0; i < 400; i++) {
        sized_page(pg, 3500, 1000 + i);
        put(c, p, 2, i, pg);
    }
    assert_int_equal(present(c, p, 1, 0), 0);
    assert_int_equal(zc_cache_check(c), 0);
    zc_cache_destroy(c);
}

/* A hit raises a page's value: of two equal large pages, gdsf keeps the
 * one that was read (shared pools keep copies, so hits are repeatable). */
static void test_gdsf_keeps_the_page_that_was_hit(void **state)
{
    const uint8_t uuid[16] = {7};
    unsigned char pg[PS];
    int p;

    (void)state;
    zc_cache *c =
        zt_cache_new("policy=gdsf,accept_percent=100,capacity=32K", NULL);
    p = zc_init_shared_fs(c, uuid, PS);
    for (uint64_t i = 0; i < 8; i++) {
        sized_page(pg, 3500, 50 + i);
        put(c, p, 1, i, pg);
    }
    hit(c, p, 1, 0);
    hit(c, p, 1, 0);
    for (uint64_t i = 8; i < 14; i++) {
        sized_page(pg, 3500, 50 + i);
        put(c, p, 1, i, pg);
    }
    assert_int_equal(present(c, p, 1, 0), 1);
    assert_int_equal(present(c, p, 1, 1), 0);
    assert_int_equal(zc_cache_check(c), 0);
    zc_cache_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lru_evicts_the_least_recently_used_page),
        cmocka_unit_test(test_fifo_evicts_in_store_order_whatever_the_hits),
        cmocka_unit_test(test_clock_passes_over_a_referenced_page_once),
        cmocka_unit_test(test_frame_lru_evicts_the_least_recently_used_frame),
        cmocka_unit_test(test_lru_on_zbud_evicts_the_victims_buddy),
        cmocka_unit_test(test_gdsf_keeps_small_pages_over_large_ones),
        cmocka_unit_test(test_gdsf_ages_out_an_unused_small_page),
        cmocka_unit_test(test_gdsf_keeps_the_page_that_was_hit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
