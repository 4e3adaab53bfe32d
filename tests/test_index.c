/*
 * test_index.c - the index (pool -> file -> page) through the public API:
 * page indexes across the whole 64-bit range, files that differ in any
 * word of their key, thousands of files, and invalidation of a file or a
 * pool dropping exactly its own pages.
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

#include "zt_util.h"

#define PS 4096

/* A compressible page that names its key: text with the numbers in it. */
static void named_page(uint8_t *page, int pool, uint32_t file, uint64_t index)
{
    memset(page, ' ', PS);
    for (size_t i = 0; i < PS; i += 64)
        snprintf((char *)page + i, 64, "pool %d file %u index %llu line %zu ",
                 pool, file, (unsigned long long)index, i / 64);
}

static zc_cache *new_cache(bool exclusive)
{
    zc_config cfg = zc_config_default();
    zc_cache *c = NULL;

    cfg.capacity_bytes = (size_t)64 << 20;
    cfg.exclusive_gets = exclusive;
    assert_int_equal(zc_cache_create(&cfg, &c), 0);
    return c;
}

static void expect_page(zc_cache *c, int pool, const zc_filekey *k,
                        uint32_t file, uint64_t index)
{
    uint8_t want[PS], got[PS];

    named_page(want, pool, file, index);
    assert_int_equal(zc_get_page(c, pool, k, index, got), 0);
    assert_memory_equal(got, want, PS);
}

static void test_indexes_differing_only_above_bit_32_are_distinct(void **state)
{
    static const uint64_t idx[] = {
        0,
        1,
        0x100000000ULL,
        0x100000001ULL,
        0xFFFFFFFFULL,
        0xFFFFFFFF00000000ULL,
        UINT64_MAX,
        0x8000000000000000ULL,
    };
    zc_cache *c = new_cache(false);
    int pool = zc_init_fs(c, PS);
    zc_filekey k = zc_filekey_from_ino(42);
    uint8_t page[PS];
    zc_stats st;

    (void)state;
    for (size_t i = 0; i < sizeof(idx) / sizeof(idx[0]); i++) {
        named_page(page, pool, 42, idx[i]);
        assert_int_equal(zc_put_page(c, pool, &k, idx[i], page), 0);
    }
    for (size_t i = 0; i < sizeof(idx) / sizeof(idx[0]); i++)
        expect_page(c, pool, &k, 42, idx[i]);
    assert_int_equal(zc_cache_check(c), 0);
    /* Dropping one page leaves its namesakes in other 2^32 ranges. */
    assert_int_equal(zc_invalidate_page(c, pool, &k, 0x100000000ULL), 0);
    assert_int_equal(zc_get_page(c, pool, &k, 0x100000000ULL, page),
                     -ZC_ENOENT);
    expect_page(c, pool, &k, 42, 0);
    /* The inode goes with all its ranges. */
    assert_int_equal(zc_invalidate_inode(c, pool, &k), 0);
    for (size_t i = 0; i < sizeof(idx) / sizeof(idx[0]); i++)
        assert_int_equal(zc_get_page(c, pool, &k, idx[i], page), -ZC_ENOENT);
    assert_int_equal(zc_stats_get(c, &st), 0);
    assert_int_equal(st.stored_pages, 0);
    assert_int_equal(st.objects, 0);
    assert_int_equal(zc_cache_check(c), 0);
    zc_cache_destroy(c);
}

static void test_keys_differing_in_any_word_are_distinct_files(void **state)
{
    zc_cache *c = new_cache(false);
    int pool = zc_init_fs(c, PS);
    zc_filekey k[7];
    uint8_t page[PS];

    (void)state;
    memset(k, 0, sizeof(k));
    for (int w = 0; w < 6; w++)
        k[w + 1].fh[w] = 1;
    for (uint32_t f = 0; f < 7; f++) {
        named_page(page, pool, f, 5);
        assert_int_equal(zc_put_page(c, pool, &k[f], 5, page), 0);
    }
    for (uint32_t f = 0; f < 7; f++)
        expect_page(c, pool, &k[f], f, 5);
    assert_int_equal(zc_invalidate_inode(c, pool, &k[3]), 0);
    assert_int_equal(zc_get_page(c, pool, &k[3], 5, page), -ZC_ENOENT);
    for (uint32_t f = 0; f < 7; f++)
        if (f != 3)
            expect_page(c, pool, &k[f], f, 5);
    zc_cache_destroy(c);
}

static void test_thousands_of_files_in_two_pools(void **state)
{
    zc_cache *c = new_cache(false);
    int p0 = zc_init_fs(c, PS), p1 = zc_init_fs(c, PS);
    uint8_t page[PS];
    zc_stats st;

    (void)state;
    for (uint32_t f = 0; f < 5000; f++)
        for (uint64_t i = 0; i < 3; i++) {
            zc_filekey k = zc_filekey_from_ino(f);
            int pool = f % 2 ? p1 : p0;
            named_page(page, pool, f, i * 1000);
            assert_int_equal(zc_put_page(c, pool, &k, i * 1000, page), 0);
        }
    assert_int_equal(zc_stats_get(c, &st), 0);
    assert_int_equal(st.objects, 5000);
    assert_int_equal(st.stored_pages, 15000);
    assert_int_equal(zc_cache_check(c), 0);
    /* Dropping pool 0 leaves every page of pool 1. */
    assert_int_equal(zc_invalidate_fs(c, p0), 0);
    assert_int_equal(zc_stats_get(c, &st), 0);
    assert_int_equal(st.objects, 2500);
    assert_int_equal(st.stored_pages, 7500);
    assert_int_equal(st.invalidates, 7500);
    for (uint32_t f = 1; f < 5000; f += 2) {
        zc_filekey k = zc_filekey_from_ino(f);
        expect_page(c, p1, &k, f, 2000);
    }
    assert_int_equal(zc_cache_check(c), 0);
    zc_cache_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_indexes_differing_only_above_bit_32_are_distinct),
        cmocka_unit_test(test_keys_differing_in_any_word_are_distinct_files),
        cmocka_unit_test(test_thousands_of_files_in_two_pools),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
