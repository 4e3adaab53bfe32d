/*
 * test_config.c - configuration, the key=value parser, the back-end
 * registries, error strings and the version.
 *
 * Expected values come from include/zcache.h's doc comments only.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <limits.h>
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

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static int parse(zc_config *cfg, const char *spec)
{
    return zc_config_parse(cfg, spec);
}

/* Parse spec into a default config, asserting success. */
static zc_config parsed(const char *spec)
{
    zc_config cfg = zc_config_default();
    char err[256] = "";
    int rc = zc_config_parse_error(&cfg, spec, err, sizeof(err));
    if (rc != 0)
        print_message("spec \"%s\" rejected: %s\n", spec, err);
    assert_int_equal(rc, 0);
    return cfg;
}

static void assert_parse_fails(const char *spec)
{
    zc_config cfg = zc_config_default();
    int rc = parse(&cfg, spec);
    if (rc != -ZC_EINVAL)
        print_message("spec \"%s\" gave %d, expected -ZC_EINVAL\n", spec, rc);
    assert_int_equal(rc, -ZC_EINVAL);
}

static void assert_same_config(const zc_config *a, const zc_config *b)
{
    assert_int_equal(a->capacity_bytes, b->capacity_bytes);
    assert_int_equal(a->page_size, b->page_size);
    assert_string_equal(a->compressor, b->compressor);
    assert_string_equal(a->allocator, b->allocator);
    assert_string_equal(a->policy, b->policy);
    assert_int_equal(a->accept_percent, b->accept_percent);
    assert_int_equal(a->same_filled, b->same_filled);
    assert_int_equal(a->exclusive_gets, b->exclusive_gets);
    assert_ptr_equal(a->mem.alloc, b->mem.alloc);
    assert_ptr_equal(a->mem.free, b->mem.free);
    assert_ptr_equal(a->mem.opaque, b->mem.opaque);
}

/* The index of a registered name, or -1. */
static long backend_index(zc_backend_kind kind, const char *name)
{
    for (size_t i = 0; i < 64; i++) {
        const char *n = zc_backend_name(kind, i);
        if (!n)
            return -1;
        if (strcmp(n, name) == 0)
            return (long)i;
    }
    return -1;
}

/* ------------------------------------------------------------ defaults */

static void test_default_config_has_documented_values(void **state)
{
    (void)state;
    zc_config cfg = zc_config_default();
    assert_int_equal(cfg.capacity_bytes, (size_t)64 << 20);
    assert_int_equal(cfg.page_size, 4096);
    assert_non_null(cfg.compressor);
    assert_non_null(cfg.allocator);
    assert_non_null(cfg.policy);
    assert_string_equal(cfg.compressor, "lzo");
    assert_string_equal(cfg.allocator, "zsmalloc");
    assert_string_equal(cfg.policy, "lru");
    assert_int_equal(cfg.accept_percent, 50);
    assert_true(cfg.same_filled);
    assert_true(cfg.exclusive_gets);
    assert_null(cfg.mem.alloc);
    assert_null(cfg.mem.free);
    assert_null(cfg.mem.opaque);
}

static void test_default_config_creates_a_cache(void **state)
{
    (void)state;
    zc_config cfg = zc_config_default();
    zc_cache *c = NULL;
    assert_int_equal(zc_cache_create(&cfg, &c), 0);
    assert_non_null(c);
    zc_stats s;
    assert_int_equal(zc_stats_get(c, &s), 0);
    /* "the cache holds no arena memory until pages are stored" */
    assert_int_equal(s.arena_bytes, 0);
    assert_int_equal(s.mem_used_total, 0);
    assert_int_equal(s.stored_pages, 0);
    assert_int_equal(s.pools, 0);
    assert_int_equal(zc_cache_check(c), 0);
    zc_cache_destroy(c);
}

/* -------------------------------------------------------------- parser */

static void test_parse_sets_every_key(void **state)
{
    (void)state;
    zc_config cfg = parsed("capacity=12345,page_size=8192,compressor=none,"
                           "allocator=zbud,policy=lru,accept_percent=70,"
                           "same_filled=false,exclusive_gets=false");
    assert_int_equal(cfg.capacity_bytes, 12345);
    assert_int_equal(cfg.page_size, 8192);
    assert_string_equal(cfg.compressor, "none");
    assert_string_equal(cfg.allocator, "zbud");
    assert_string_equal(cfg.policy, "lru");
    assert_int_equal(cfg.accept_percent, 70);
    assert_false(cfg.same_filled);
    assert_false(cfg.exclusive_gets);

    /* And back to the other values, from a config that has them changed. */
    zc_config c2 = cfg;
    assert_int_equal(parse(&c2, "compressor=lzo,allocator=zsmalloc,"
                                "same_filled=true,exclusive_gets=true,"
                                "accept_percent=0,page_size=512"),
                     0);
    assert_string_equal(c2.compressor, "lzo");
    assert_string_equal(c2.allocator, "zsmalloc");
    assert_true(c2.same_filled);
    assert_true(c2.exclusive_gets);
    assert_int_equal(c2.accept_percent, 0);
    assert_int_equal(c2.page_size, 512);
    assert_int_equal(c2.capacity_bytes, 12345); /* untouched */
}

static void test_parse_capacity_bytes_is_an_alias_of_capacity(void **state)
{
    (void)state;
    zc_config cfg = parsed("capacity_bytes=777");
    assert_int_equal(cfg.capacity_bytes, 777);
    cfg = parsed("capacity_bytes=3M");
    assert_int_equal(cfg.capacity_bytes, (size_t)3 << 20);
}

static void test_parse_only_changes_the_keys_given(void **state)
{
    (void)state;
    zc_config def = zc_config_default();
    zc_config cfg = parsed("accept_percent=42");
    def.accept_percent = 42;
    assert_same_config(&cfg, &def);
}

static void test_parse_later_key_wins(void **state)
{
    (void)state;
    zc_config cfg = parsed("capacity=1K,capacity=2K");
    assert_int_equal(cfg.capacity_bytes, 2048);
}

static void test_parse_size_suffixes_are_powers_of_1024(void **state)
{
    (void)state;
    static const struct {
        const char *spec;
        size_t want;
    } cases[] = {
        {"capacity=0", 0},
        {"capacity=1", 1},
        {"capacity=4096", 4096},
        {"capacity=1K", (size_t)1 << 10},
        {"capacity=1KB", (size_t)1 << 10},
        {"capacity=1KiB", (size_t)1 << 10},
        {"capacity=3K", (size_t)3 << 10},
        {"capacity=2M", (size_t)2 << 20},
        {"capacity=2MB", (size_t)2 << 20},
        {"capacity=2MiB", (size_t)2 << 20},
        {"capacity=64M", (size_t)64 << 20},
        {"capacity=1G", (size_t)1 << 30},
        {"capacity=1GB", (size_t)1 << 30},
        {"capacity=1GiB", (size_t)1 << 30},
        {"capacity=16G", (size_t)16 << 30},
        {"capacity=0T", 0},
        {"capacity=0TiB", 0},
        {"page_size=8K", 8192},
        {"page_size=64KiB", 65536},
        {"page_size=512", 512},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        zc_config cfg = parsed(cases[i].spec);
        size_t got = strncmp(cases[i].spec, "page_size", 9) == 0
                         ? cfg.page_size
                         : cfg.capacity_bytes;
        if (got != cases[i].want)
            print_message("spec \"%s\": got %zu want %zu\n", cases[i].spec, got,
                          cases[i].want);
        assert_int_equal(got, cases[i].want);
    }
}

static void test_parse_terabyte_suffix_is_2_pow_40(void **state)
{
    (void)state;
    /* 1T is above ZC_CAPACITY_MAX: the parser may take it (create rejects
     * it) or reject it as a bad value, but it must not misread it. */
    static const char *specs[] = {"capacity=1T", "capacity=1TB",
                                  "capacity=1TiB"};
    for (size_t i = 0; i < ARRAY_LEN(specs); i++) {
        zc_config cfg = zc_config_default();
        int rc = parse(&cfg, specs[i]);
        if (rc == 0)
            assert_int_equal(cfg.capacity_bytes, (size_t)1 << 40);
        else
            assert_int_equal(rc, -ZC_EINVAL);
    }
    /* Either way create refuses it. */
    zc_config cfg = zc_config_default();
    cfg.capacity_bytes = (size_t)1 << 40;
    zc_cache *c = NULL;
    assert_int_equal(zc_cache_create(&cfg, &c), -ZC_EINVAL);
}

static void test_parse_booleans_accept_every_spelling(void **state)
{
    (void)state;
    static const char *yes[] = {"true", "yes", "on", "1"};
    static const char *no[] = {"false", "no", "off", "0"};
    static const char *keys[] = {"same_filled", "exclusive_gets"};
    char spec[64];
    for (size_t k = 0; k < ARRAY_LEN(keys); k++) {
        for (size_t i = 0; i < ARRAY_LEN(yes); i++) {
            zc_config cfg = zc_config_default();
            cfg.same_filled = cfg.exclusive_gets = false;
            snprintf(spec, sizeof(spec), "%s=%s", keys[k], yes[i]);
            assert_int_equal(parse(&cfg, spec), 0);
            assert_true(k == 0 ? cfg.same_filled : cfg.exclusive_gets);
            assert_false(k == 0 ? cfg.exclusive_gets : cfg.same_filled);

            cfg = zc_config_default();
            snprintf(spec, sizeof(spec), "%s=%s", keys[k], no[i]);
            assert_int_equal(parse(&cfg, spec), 0);
            assert_false(k == 0 ? cfg.same_filled : cfg.exclusive_gets);
            assert_true(k == 0 ? cfg.exclusive_gets : cfg.same_filled);
        }
    }
}

static void test_parse_rejects_bad_booleans(void **state)
{
    (void)state;
    static const char *bad[] = {
        "same_filled=",      "same_filled=2",      "same_filled=maybe",
        "same_filled=truex", "exclusive_gets=-1",  "exclusive_gets=10",
        "exclusive_gets=y",  "exclusive_gets=onn", "same_filled",
    };
    for (size_t i = 0; i < ARRAY_LEN(bad); i++)
        assert_parse_fails(bad[i]);
}

static void test_parse_ignores_whitespace_around_keys_and_values(void **state)
{
    (void)state;
    zc_config cfg = parsed("  capacity = 2M ,\tpage_size=\t1024 , compressor "
                           "= none,allocator= zbud ,  policy =lru, "
                           "accept_percent = 30 , same_filled = off ,"
                           "exclusive_gets\t=\tno\t");
    assert_int_equal(cfg.capacity_bytes, (size_t)2 << 20);
    assert_int_equal(cfg.page_size, 1024);
    assert_string_equal(cfg.compressor, "none");
    assert_string_equal(cfg.allocator, "zbud");
    assert_string_equal(cfg.policy, "lru");
    assert_int_equal(cfg.accept_percent, 30);
    assert_false(cfg.same_filled);
    assert_false(cfg.exclusive_gets);
}

static void test_parse_empty_spec_changes_nothing(void **state)
{
    (void)state;
    zc_config def = zc_config_default();
    zc_config cfg = zc_config_default();
    assert_int_equal(parse(&cfg, ""), 0);
    assert_same_config(&cfg, &def);

    /* Also from a non-default config. */
    zc_config c2 = parsed("capacity=5K,compressor=none,same_filled=no");
    zc_config before = c2;
    assert_int_equal(parse(&c2, ""), 0);
    assert_same_config(&c2, &before);
}

static void test_parse_unknown_key_is_einval(void **state)
{
    (void)state;
    static const char *bad[] = {
        "capacityx=1",    "capacit=1",          "foo=bar",          "=5",
        "page-size=4096", "capacity=1,bogus=2", "compressor_x=lzo",
    };
    for (size_t i = 0; i < ARRAY_LEN(bad); i++)
        assert_parse_fails(bad[i]);
}

static void test_parse_bad_numbers_are_einval(void **state)
{
    (void)state;
    static const char *bad[] = {
        "capacity=",         "capacity=abc",
        "capacity=12abc",    "capacity=-1",
        "capacity=1X",       "capacity=1Ki",
        "capacity=1KiBB",    "capacity=1KK",
        "capacity=1.5M",     "capacity=M",
        "capacity",          "capacity==1",
        "capacity=1 2",      "page_size=4096x",
        "page_size=",        "page_size=-4096",
        "accept_percent=5o", "accept_percent=",
        "accept_percent=-1", "accept_percent=50%",
        "accept_percent=1K", "capacity=1M,page_size=abc",
    };
    for (size_t i = 0; i < ARRAY_LEN(bad); i++)
        assert_parse_fails(bad[i]);
}

static void test_parse_overflow_is_einval(void **state)
{
    (void)state;
    static const char *bad[] = {
        "capacity=18446744073709551616", /* 2^64 */
        "capacity=99999999999999999999999",
        "capacity=18446744073709551615K", /* (2^64-1) * 1024 */
        "capacity=16777216T",             /* 2^24 * 2^40 = 2^64 */
        "capacity=17179869184G",          /* 2^34 * 2^30 = 2^64 */
        "capacity=9007199254740992K",     /* 2^53 * 2^10 = 2^63: fits... */
    };
    /* The last one fits in 64 bits (2^63): not an overflow, but above
     * ZC_CAPACITY_MAX; accept rc 0 with the exact value or -ZC_EINVAL. */
    for (size_t i = 0; i + 1 < ARRAY_LEN(bad); i++)
        assert_parse_fails(bad[i]);
    zc_config cfg = zc_config_default();
    int rc = parse(&cfg, bad[ARRAY_LEN(bad) - 1]);
    if (rc == 0)
        assert_int_equal(cfg.capacity_bytes, (size_t)1 << 63);
    else
        assert_int_equal(rc, -ZC_EINVAL);

    /* accept_percent is an unsigned: 2^32 + 50 must not wrap to 50. */
    assert_parse_fails("accept_percent=4294967346");
    assert_parse_fails("accept_percent=18446744073709551666");
    /* page_size 2^64 + 4096 must not wrap to 4096. */
    assert_parse_fails("page_size=18446744073709555712");
}

static void test_parse_unknown_backend_names_are_einval(void **state)
{
    (void)state;
    static const char *bad[] = {
        "compressor=brotli",
        "compressor=lz",
        "compressor=lzo1",
        "compressor=",
        "allocator=slab",
        "allocator=zsmallo",
        "allocator=",
        "policy=mru",
        "policy=lruu",
        "policy=",
        "compressor=none,allocator=slab",
    };
    for (size_t i = 0; i < ARRAY_LEN(bad); i++)
        assert_parse_fails(bad[i]);
}

static void test_parse_accept_percent_above_100_is_einval(void **state)
{
    (void)state;
    assert_parse_fails("accept_percent=101");
    assert_parse_fails("accept_percent=1000");
    zc_config cfg = parsed("accept_percent=100");
    assert_int_equal(cfg.accept_percent, 100);
    cfg = parsed("accept_percent=0");
    assert_int_equal(cfg.accept_percent, 0);
}

static void test_parse_null_arguments_are_einval(void **state)
{
    (void)state;
    zc_config cfg = zc_config_default();
    assert_int_equal(zc_config_parse(NULL, "capacity=1"), -ZC_EINVAL);
    assert_int_equal(zc_config_parse(&cfg, NULL), -ZC_EINVAL);
    char err[64];
    assert_int_equal(zc_config_parse_error(NULL, "x", err, sizeof(err)),
                     -ZC_EINVAL);
    assert_int_equal(zc_config_parse_error(&cfg, NULL, err, sizeof(err)),
                     -ZC_EINVAL);
}

static void test_parse_names_point_at_registry_copies(void **state)
{
    (void)state;
    zc_config cfg = zc_config_default();
    const char *spec = "compressor=none,allocator=zbud,policy=lru";
    char *buf = strdup(spec);
    assert_non_null(buf);
    assert_int_equal(parse(&cfg, buf), 0);
    /* The spec may be freed (and scribbled on) after the call. */
    memset(buf, 'x', strlen(buf));
    free(buf);
    assert_string_equal(cfg.compressor, "none");
    assert_string_equal(cfg.allocator, "zbud");
    assert_string_equal(cfg.policy, "lru");
    /* "cfg then points at the registry's copy of the name" */
    long ci = backend_index(ZC_BACKEND_COMPRESSOR, "none");
    long ai = backend_index(ZC_BACKEND_ALLOCATOR, "zbud");
    long pi = backend_index(ZC_BACKEND_POLICY, "lru");
    assert_true(ci >= 0 && ai >= 0 && pi >= 0);
    assert_ptr_equal(cfg.compressor,
                     zc_backend_name(ZC_BACKEND_COMPRESSOR, (size_t)ci));
    assert_ptr_equal(cfg.allocator,
                     zc_backend_name(ZC_BACKEND_ALLOCATOR, (size_t)ai));
    assert_ptr_equal(cfg.policy,
                     zc_backend_name(ZC_BACKEND_POLICY, (size_t)pi));

    /* The parsed config creates a cache after the spec is gone. */
    zc_cache *c = NULL;
    assert_int_equal(zc_cache_create(&cfg, &c), 0);
    zc_cache_destroy(c);
}

static void test_parse_error_message_names_the_bad_key(void **state)
{
    (void)state;
    char err[256];
    zc_config cfg = zc_config_default();

    memset(err, 0, sizeof(err));
    assert_int_equal(zc_config_parse_error(&cfg, "capacity=1M,bogus_key=3", err,
                                           sizeof(err)),
                     -ZC_EINVAL);
    assert_true(strlen(err) > 0);
    if (!strstr(err, "bogus_key"))
        print_message("message: \"%s\"\n", err);
    assert_non_null(strstr(err, "bogus_key"));
    assert_null(strchr(err, '\n')); /* one line */

    /* A bad value: the message names the key or the value. */
    static const struct {
        const char *spec, *key, *value;
    } cases[] = {
        {"accept_percent=150", "accept_percent", "150"},
        {"capacity=12abc", "capacity", "12abc"},
        {"compressor=brotli", "compressor", "brotli"},
        {"allocator=slab", "allocator", "slab"},
        {"policy=mru", "policy", "mru"},
        {"level=fast", "level", "fast"},
        {"hysteresis_percent=101", "hysteresis_percent", "101"},
        {"dedup=perhaps", "dedup", "perhaps"},
        {"compressor=lzo,level=10", "level", "10"},
        {"same_filled=maybe", "same_filled", "maybe"},
        {"page_size=lots", "page_size", "lots"},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        cfg = zc_config_default();
        memset(err, 0, sizeof(err));
        assert_int_equal(
            zc_config_parse_error(&cfg, cases[i].spec, err, sizeof(err)),
            -ZC_EINVAL);
        if (!strstr(err, cases[i].key) && !strstr(err, cases[i].value))
            print_message("spec \"%s\": message \"%s\"\n", cases[i].spec, err);
        assert_true(strstr(err, cases[i].key) || strstr(err, cases[i].value));
    }
}

static void test_parse_error_message_is_truncated_and_terminated(void **state)
{
    (void)state;
    char err[32];
    zc_config cfg = zc_config_default();
    memset(err, 'Z', sizeof(err));
    assert_int_equal(
        zc_config_parse_error(&cfg, "a_rather_long_unknown_key=1", err, 8),
        -ZC_EINVAL);
    assert_true(memchr(err, '\0', 8) != NULL); /* NUL within errlen */
    for (size_t i = 8; i < sizeof(err); i++)
        assert_int_equal(err[i], 'Z'); /* nothing past errlen */

    /* errlen 0: nothing is written. */
    memset(err, 'Z', sizeof(err));
    assert_int_equal(zc_config_parse_error(&cfg, "bogus=1", err, 0),
                     -ZC_EINVAL);
    for (size_t i = 0; i < sizeof(err); i++)
        assert_int_equal(err[i], 'Z');

    /* errlen 1: just the NUL. */
    memset(err, 'Z', sizeof(err));
    assert_int_equal(zc_config_parse_error(&cfg, "bogus=1", err, 1),
                     -ZC_EINVAL);
    assert_int_equal(err[0], '\0');
    assert_int_equal(err[1], 'Z');

    /* Success leaves a valid (if any) string and returns 0. */
    memset(err, 'Z', sizeof(err));
    assert_int_equal(
        zc_config_parse_error(&cfg, "capacity=1K", err, sizeof(err)), 0);
    assert_int_equal(cfg.capacity_bytes, 1024);
}

static void test_parse_keeps_keys_before_the_bad_one(void **state)
{
    (void)state;
    /* "*cfg may hold the keys before the bad one": the keys before are
     * either applied or not, but nothing after the bad one is. */
    zc_config cfg = zc_config_default();
    assert_int_equal(parse(&cfg, "capacity=1K,bogus=1,page_size=512"),
                     -ZC_EINVAL);
    assert_true(cfg.capacity_bytes == 1024 ||
                cfg.capacity_bytes == ((size_t)64 << 20));
    assert_int_equal(cfg.page_size, 4096);
}

/* ------------------------------------------------------------- format */

static void check_round_trip(const zc_config *src)
{
    char buf[512];
    int n = zc_config_format(src, buf, sizeof(buf));
    assert_true(n > 0);
    assert_true((size_t)n < sizeof(buf));
    assert_int_equal(strlen(buf), (size_t)n);

    /* "a spec string that zc_config_parse() reads back": parsed into a
     * default config it gives cfg again. */
    zc_config dst = zc_config_default();
    char err[256] = "";
    int rc = zc_config_parse_error(&dst, buf, err, sizeof(err));
    if (rc != 0)
        print_message("formatted \"%s\" does not parse: %s\n", buf, err);
    assert_int_equal(rc, 0);
    dst.mem = src->mem; /* the hook is not part of the spec */
    assert_same_config(&dst, src);

    /* snprintf-like: NULL/0 gives the length, short buffers truncate. */
    assert_int_equal(zc_config_format(src, NULL, 0), n);
    char small[16];
    memset(small, 'Z', sizeof(small));
    assert_int_equal(zc_config_format(src, small, 10), n);
    assert_int_equal(small[9], '\0');
    assert_memory_equal(small, buf, 9);
    assert_int_equal(small[10], 'Z');
}

static void test_format_round_trips_through_parse(void **state)
{
    (void)state;
    zc_config cfg = zc_config_default();
    check_round_trip(&cfg);

    cfg = parsed("capacity=12345,page_size=65536,compressor=none,"
                 "allocator=zbud,accept_percent=0,same_filled=off,"
                 "exclusive_gets=off");
    check_round_trip(&cfg);

    cfg = zc_config_default();
    cfg.capacity_bytes = ZC_CAPACITY_MAX;
    cfg.page_size = 512;
    cfg.accept_percent = 100;
    check_round_trip(&cfg);

    cfg = zc_config_default();
    cfg.capacity_bytes = 0;
    cfg.accept_percent = 1;
    check_round_trip(&cfg);

    /* Every registered back-end name round-trips. */
    static const zc_backend_kind kinds[] = {
        ZC_BACKEND_COMPRESSOR, ZC_BACKEND_ALLOCATOR, ZC_BACKEND_POLICY};
    for (size_t k = 0; k < ARRAY_LEN(kinds); k++) {
        for (size_t i = 0; zc_backend_name(kinds[k], i); i++) {
            cfg = zc_config_default();
            const char *name = zc_backend_name(kinds[k], i);
            if (kinds[k] == ZC_BACKEND_COMPRESSOR)
                cfg.compressor = name;
            else if (kinds[k] == ZC_BACKEND_ALLOCATOR)
                cfg.allocator = name;
            else
                cfg.policy = name;
            check_round_trip(&cfg);
        }
    }
}

static void test_format_leaves_out_the_mem_hook(void **state)
{
    (void)state;
    zc_config cfg = zc_config_default();
    char a[512], b[512];
    int na = zc_config_format(&cfg, a, sizeof(a));
    cfg.mem.opaque = &cfg;
    int nb = zc_config_format(&cfg, b, sizeof(b));
    assert_int_equal(na, nb);
    assert_string_equal(a, b);
}

/* The key list that help texts print is the parser's: every listed key
 * parses (with the value zc_config_format() writes for it), the format
 * writes exactly the listed keys in order, and the unknown-key message
 * names each. */
static void test_key_list_is_what_parse_and_format_take(void **state)
{
    (void)state;
    zc_config cfg = zc_config_default();
    char buf[512], spec[128], err[512];
    char *item, *save = NULL;
    size_t i = 0;

    assert_true(zc_config_format(&cfg, buf, sizeof(buf)) > 0);
    for (item = strtok_r(buf, ",", &save); item;
         item = strtok_r(NULL, ",", &save), i++) {
        const char *name = zc_config_key_name(i);
        assert_non_null(name);
        assert_non_null(zc_config_key_doc(i));
        assert_true(strlen(zc_config_key_doc(i)) > 10);
        assert_int_equal(strncmp(item, name, strlen(name)), 0);
        assert_int_equal(item[strlen(name)], '=');
        snprintf(spec, sizeof(spec), "%s", item);
        assert_int_equal(zc_config_parse_error(&cfg, spec, err, sizeof(err)),
                         0);
    }
    assert_null(zc_config_key_name(i));
    assert_null(zc_config_key_doc(i));
    assert_int_equal(zc_config_parse_error(&cfg, "nosuchkey=1", err,
                                           sizeof(err)),
                     -ZC_EINVAL);
    for (i = 0; zc_config_key_name(i); i++)
        assert_non_null(strstr(err, zc_config_key_name(i)));
}

static void test_format_null_config_is_einval(void **state)
{
    (void)state;
    char buf[64];
    assert_int_equal(zc_config_format(NULL, buf, sizeof(buf)), -ZC_EINVAL);
}

/* ------------------------------------------------------------- create */

static void *dummy_alloc(void *opaque, size_t size)
{
    (void)opaque;
    return malloc(size);
}

static void dummy_free(void *opaque, void *ptr)
{
    (void)opaque;
    free(ptr);
}

static void assert_create_fails(const zc_config *cfg, const char *what)
{
    zc_cache *c = NULL;
    int rc = zc_cache_create(cfg, &c);
    if (rc != -ZC_EINVAL)
        print_message("create with %s gave %d, expected -ZC_EINVAL\n", what,
                      rc);
    assert_int_equal(rc, -ZC_EINVAL);
    if (rc == 0)
        zc_cache_destroy(c);
}

static void assert_create_works(const zc_config *cfg, const char *what)
{
    zc_cache *c = NULL;
    int rc = zc_cache_create(cfg, &c);
    if (rc != 0)
        print_message("create with %s gave %d, expected 0\n", what, rc);
    assert_int_equal(rc, 0);
    assert_non_null(c);
    assert_int_equal(zc_cache_check(c), 0);
    zc_cache_destroy(c);
}

static void test_create_rejects_invalid_page_sizes(void **state)
{
    (void)state;
    static const size_t bad[] = {
        0,       1,    3000, 128,    256,   511,   513,
        4095,    4097, 6144, 131072, 65535, 65537, (size_t)1 << 32,
        SIZE_MAX};
    char what[64];
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        zc_config cfg = zc_config_default();
        cfg.page_size = bad[i];
        snprintf(what, sizeof(what), "page_size %zu", bad[i]);
        assert_create_fails(&cfg, what);
    }
    for (size_t ps = 512; ps <= 65536; ps *= 2) {
        zc_config cfg = zc_config_default();
        cfg.page_size = ps;
        snprintf(what, sizeof(what), "page_size %zu", ps);
        assert_create_works(&cfg, what);
    }
}

static void test_create_rejects_capacity_above_max(void **state)
{
    (void)state;
    zc_config cfg = zc_config_default();
    cfg.capacity_bytes = ZC_CAPACITY_MAX + 1;
    assert_create_fails(&cfg, "capacity ZC_CAPACITY_MAX+1");
    cfg.capacity_bytes = SIZE_MAX;
    assert_create_fails(&cfg, "capacity SIZE_MAX");
    cfg.capacity_bytes = ZC_CAPACITY_MAX;
    assert_create_works(&cfg, "capacity ZC_CAPACITY_MAX");
    cfg.capacity_bytes = 0;
    assert_create_works(&cfg, "capacity 0");
    cfg.capacity_bytes = 1;
    assert_create_works(&cfg, "capacity 1");
}

static void test_create_rejects_half_a_mem_hook(void **state)
{
    (void)state;
    zc_config cfg = zc_config_default();
    cfg.mem.alloc = dummy_alloc;
    assert_create_fails(&cfg, "only mem.alloc");
    cfg = zc_config_default();
    cfg.mem.free = dummy_free;
    assert_create_fails(&cfg, "only mem.free");
    cfg.mem.alloc = dummy_alloc;
    assert_create_works(&cfg, "both mem hooks");
    cfg = zc_config_default();
    cfg.mem.opaque = &cfg; /* opaque alone is not a hook */
    assert_create_works(&cfg, "mem.opaque only");
}

static void test_create_rejects_unknown_backend_names(void **state)
{
    (void)state;
    zc_config cfg = zc_config_default();
    cfg.compressor = "brotli";
    assert_create_fails(&cfg, "compressor brotli");
    cfg = zc_config_default();
    cfg.allocator = "slab";
    assert_create_fails(&cfg, "allocator slab");
    cfg = zc_config_default();
    cfg.policy = "mru";
    assert_create_fails(&cfg, "policy mru");
    cfg = zc_config_default();
    cfg.compressor = "";
    assert_create_fails(&cfg, "compressor \"\"");
    cfg = zc_config_default();
    cfg.compressor = NULL;
    assert_create_fails(&cfg, "compressor NULL");
    cfg = zc_config_default();
    cfg.allocator = NULL;
    assert_create_fails(&cfg, "allocator NULL");
    cfg = zc_config_default();
    cfg.policy = NULL;
    assert_create_fails(&cfg, "policy NULL");
}

static void test_create_accepts_names_equal_to_registered_ones(void **state)
{
    (void)state;
    /* Names are compared as strings: a program writes cfg.compressor =
     * "none" with its own copy of the literal. */
    char comp[16], alloc[16], pol[16];
    for (size_t i = 0; zc_backend_name(ZC_BACKEND_ALLOCATOR, i); i++) {
        zc_config cfg = zc_config_default();
        snprintf(comp, sizeof(comp), "%s", "none");
        snprintf(alloc, sizeof(alloc), "%s",
                 zc_backend_name(ZC_BACKEND_ALLOCATOR, i));
        snprintf(pol, sizeof(pol), "%s", "lru");
        cfg.compressor = comp;
        cfg.allocator = alloc;
        cfg.policy = pol;
        assert_create_works(&cfg, alloc);
    }
}

static void test_create_rejects_accept_percent_above_100(void **state)
{
    (void)state;
    zc_config cfg = zc_config_default();
    cfg.accept_percent = 101;
    assert_create_fails(&cfg, "accept_percent 101");
    cfg.accept_percent = UINT_MAX;
    assert_create_fails(&cfg, "accept_percent UINT_MAX");
    cfg.accept_percent = 100;
    assert_create_works(&cfg, "accept_percent 100");
    cfg.accept_percent = 0;
    assert_create_works(&cfg, "accept_percent 0");
}

static void test_create_null_arguments_are_einval(void **state)
{
    (void)state;
    zc_config cfg = zc_config_default();
    zc_cache *c = NULL;
    assert_int_equal(zc_cache_create(NULL, &c), -ZC_EINVAL);
    assert_int_equal(zc_cache_create(&cfg, NULL), -ZC_EINVAL);
}

static void test_create_copies_the_config(void **state)
{
    (void)state;
    /* The cache validates and copies cfg: changing it afterwards has no
     * effect (here: page size stays 4096 for init_fs). */
    zc_config cfg = zc_config_default();
    zc_cache *c = NULL;
    assert_int_equal(zc_cache_create(&cfg, &c), 0);
    cfg.page_size = 8192;
    cfg.compressor = "garbage";
    assert_true(zc_init_fs(c, 4096) >= 0);
    assert_int_equal(zc_init_fs(c, 8192), -ZC_EINVAL);
    zc_cache_destroy(c);
}

/* ----------------------------------------------------------- registry */

/* Every name in want is registered, and exactly nwant names are, or at
 * least nwant when optional back-ends may add to them. */
static void check_registry_opt(zc_backend_kind kind, const char *const *want,
                               size_t nwant, bool more_ok)
{
    size_t n = 0;
    while (zc_backend_name(kind, n)) {
        const char *name = zc_backend_name(kind, n);
        const char *doc = zc_backend_doc(kind, n);
        assert_non_null(doc);
        assert_true(strlen(name) > 0);
        assert_true(strlen(doc) > 0);
        assert_null(strchr(doc, '\n')); /* one line */
        /* Stable: the same pointer on every call. */
        assert_ptr_equal(name, zc_backend_name(kind, n));
        /* No duplicates. */
        for (size_t j = 0; j < n; j++)
            assert_string_not_equal(name, zc_backend_name(kind, j));
        n++;
        assert_true(n < 64);
    }
    if (more_ok)
        assert_true(n >= nwant);
    else
        assert_int_equal(n, nwant);
    for (size_t i = 0; i < nwant; i++)
        assert_true(backend_index(kind, want[i]) >= 0);
    assert_null(zc_backend_name(kind, n));
    assert_null(zc_backend_doc(kind, n));
    assert_null(zc_backend_name(kind, n + 1));
    assert_null(zc_backend_doc(kind, n + 1000));
    assert_null(zc_backend_name(kind, SIZE_MAX));
    assert_null(zc_backend_doc(kind, SIZE_MAX));
}

static void check_registry(zc_backend_kind kind, const char *const *want,
                           size_t nwant)
{
    check_registry_opt(kind, want, nwant, false);
}

static void test_registry_lists_compressors_lzo_and_none(void **state)
{
    (void)state;
    static const char *const want[] = {"lzo", "none"};
    check_registry_opt(ZC_BACKEND_COMPRESSOR, want, 2, true);
}

/* lz4 and zstd are optional: a build has each, or says why not. */
static void test_optional_compressors_exist_or_say_why_not(void **state)
{
    static const char *const opt[] = {"lz4", "zstd"};
    char err[256];

    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(opt); i++) {
        zc_config cfg = zc_config_default();
        char spec[64];
        int rc;

        snprintf(spec, sizeof(spec), "compressor=%s", opt[i]);
        rc = zc_config_parse_error(&cfg, spec, err, sizeof(err));
        if (backend_index(ZC_BACKEND_COMPRESSOR, opt[i]) >= 0) {
            assert_int_equal(rc, 0);
            assert_string_equal(cfg.compressor, opt[i]);
        } else {
            assert_int_equal(rc, -ZC_EINVAL);
            assert_non_null(strstr(err, "built without"));
        }
    }
}

/* Levels: 0 is the default; each compressor takes its own range. */
static void test_level_range_is_the_compressors(void **state)
{
    zc_config cfg;
    zc_cache *c = NULL;

    (void)state;
    cfg = zc_config_default();
    assert_int_equal(zc_config_parse(&cfg, "compressor=lzo,level=9"), 0);
    assert_int_equal(cfg.level, 9);
    assert_int_equal(zc_cache_create(&cfg, &c), 0);
    zc_cache_destroy(c);
    cfg = zc_config_default();
    assert_int_equal(zc_config_parse(&cfg, "level=0"), 0);
    assert_int_equal(zc_cache_create(&cfg, &c), 0);
    zc_cache_destroy(c);
    cfg = zc_config_default();
    assert_int_equal(zc_config_parse(&cfg, "compressor=lzo,level=10"),
                     -ZC_EINVAL);
    cfg = zc_config_default();
    assert_int_equal(zc_config_parse(&cfg, "compressor=none,level=1"),
                     -ZC_EINVAL);
    /* A spec naming a compressor and no level means its default level. */
    cfg = zc_config_default();
    assert_int_equal(zc_config_parse(&cfg, "compressor=lzo,level=9"), 0);
    assert_int_equal(zc_config_parse(&cfg, "capacity=1M"), 0);
    assert_int_equal(cfg.level, 9);
    assert_int_equal(zc_config_parse(&cfg, "compressor=none"), 0);
    assert_int_equal(cfg.level, 0);
    cfg = zc_config_default();
    cfg.level = -1; /* lzo has no negative levels */
    assert_int_equal(zc_cache_create(&cfg, &c), -ZC_EINVAL);
    if (backend_index(ZC_BACKEND_COMPRESSOR, "zstd") >= 0) {
        cfg = zc_config_default();
        assert_int_equal(zc_config_parse(&cfg, "compressor=zstd,level=-7"), 0);
        assert_int_equal(zc_cache_create(&cfg, &c), 0);
        zc_cache_destroy(c);
        assert_int_equal(zc_config_parse(&cfg, "level=23"), -ZC_EINVAL);
    }
}

static void
test_registry_lists_allocators_zsmalloc_zbud_z3fold_xvmalloc(void **state)
{
    (void)state;
    static const char *const want[] = {"zsmalloc", "zbud", "z3fold",
                                       "xvmalloc"};
    check_registry(ZC_BACKEND_ALLOCATOR, want, 4);
}

static void test_registry_lists_policies(void **state)
{
    (void)state;
    static const char *const want[] = {"lru", "fifo", "clock", "frame_lru",
                                       "gdsf"};
    check_registry(ZC_BACKEND_POLICY, want, 5);
}

static void test_registry_unknown_kind_returns_null(void **state)
{
    (void)state;
    assert_null(zc_backend_name((zc_backend_kind)3, 0));
    assert_null(zc_backend_doc((zc_backend_kind)3, 0));
    assert_null(zc_backend_name((zc_backend_kind)-1, 0));
    assert_null(zc_backend_doc((zc_backend_kind)1000, 0));
}

/* ------------------------------------------------------------ strerror */

static void test_strerror_explains_every_code(void **state)
{
    (void)state;
    /* every code the header's lists name, each with the text they give */
#define NEG(name, value, text) -(name),
#define POS(name, value, text) name,
    static const int codes[] = {0, ZC_ERRORS(NEG) ZC_PUT_OUTCOMES(POS)};
#undef NEG
#undef POS
#define TXT(name, value, text) text,
    static const char *const texts[] = {"success", ZC_ERRORS(TXT)
                                            ZC_PUT_OUTCOMES(TXT)};
#undef TXT
    assert_int_equal(ARRAY_LEN(codes), 14);
    for (size_t i = 0; i < ARRAY_LEN(codes); i++)
        assert_string_equal(zc_strerror(codes[i]), texts[i]);
    const char *unknown = zc_strerror(-12345);
    assert_non_null(unknown);
    const char *msgs[ARRAY_LEN(codes)];
    for (size_t i = 0; i < ARRAY_LEN(codes); i++) {
        msgs[i] = zc_strerror(codes[i]);
        assert_non_null(msgs[i]);
        assert_true(strlen(msgs[i]) > 0);
        /* Each known code has its own text, not the unknown-code one. */
        if (strcmp(msgs[i], unknown) == 0)
            print_message("code %d explained as unknown: \"%s\"\n", codes[i],
                          msgs[i]);
        assert_string_not_equal(msgs[i], unknown);
        for (size_t j = 0; j < i; j++) {
            if (strcmp(msgs[i], msgs[j]) == 0)
                print_message("codes %d and %d share \"%s\"\n", codes[i],
                              codes[j], msgs[i]);
            assert_string_not_equal(msgs[i], msgs[j]);
        }
    }
}

static void test_strerror_unknown_codes_are_not_null(void **state)
{
    (void)state;
    static const int codes[] = {-8,
                                -100,
                                6,
                                100,
                                INT_MIN,
                                INT_MAX,
                                -ZC_ECORRUPT - 1,
                                ZC_PUT_REJECT_INACTIVE + 1};
    for (size_t i = 0; i < ARRAY_LEN(codes); i++) {
        const char *m = zc_strerror(codes[i]);
        assert_non_null(m);
        assert_true(strlen(m) > 0);
    }
}

/* ------------------------------------------------------------- version */

static void test_version_equals_header_version_string(void **state)
{
    (void)state;
    assert_non_null(zc_version());
    assert_string_equal(zc_version(), ZC_VERSION_STRING);
    char want[32];
    snprintf(want, sizeof(want), "%d.%d.%d", ZC_VERSION_MAJOR, ZC_VERSION_MINOR,
             ZC_VERSION_PATCH);
    assert_string_equal(ZC_VERSION_STRING, want);
    assert_int_equal(zc_version_number(), ZC_VERSION_NUMBER);
    assert_int_equal(ZC_VERSION_NUMBER, ZC_VERSION_MAJOR * 10000 +
                                            ZC_VERSION_MINOR * 100 +
                                            ZC_VERSION_PATCH);
#if ZC_VERSION_NUMBER < 100
#error "ZC_VERSION_NUMBER is usable in #if and at least 0.1.0"
#endif
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* progress lines in ctest logs */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_config_has_documented_values),
        cmocka_unit_test(test_default_config_creates_a_cache),
        cmocka_unit_test(test_parse_sets_every_key),
        cmocka_unit_test(test_parse_capacity_bytes_is_an_alias_of_capacity),
        cmocka_unit_test(test_parse_only_changes_the_keys_given),
        cmocka_unit_test(test_parse_later_key_wins),
        cmocka_unit_test(test_parse_size_suffixes_are_powers_of_1024),
        cmocka_unit_test(test_parse_terabyte_suffix_is_2_pow_40),
        cmocka_unit_test(test_parse_booleans_accept_every_spelling),
        cmocka_unit_test(test_parse_rejects_bad_booleans),
        cmocka_unit_test(test_parse_ignores_whitespace_around_keys_and_values),
        cmocka_unit_test(test_parse_empty_spec_changes_nothing),
        cmocka_unit_test(test_parse_unknown_key_is_einval),
        cmocka_unit_test(test_parse_bad_numbers_are_einval),
        cmocka_unit_test(test_parse_overflow_is_einval),
        cmocka_unit_test(test_parse_unknown_backend_names_are_einval),
        cmocka_unit_test(test_parse_accept_percent_above_100_is_einval),
        cmocka_unit_test(test_parse_null_arguments_are_einval),
        cmocka_unit_test(test_parse_names_point_at_registry_copies),
        cmocka_unit_test(test_parse_error_message_names_the_bad_key),
        cmocka_unit_test(test_parse_error_message_is_truncated_and_terminated),
        cmocka_unit_test(test_parse_keeps_keys_before_the_bad_one),
        cmocka_unit_test(test_format_round_trips_through_parse),
        cmocka_unit_test(test_format_leaves_out_the_mem_hook),
        cmocka_unit_test(test_key_list_is_what_parse_and_format_take),
        cmocka_unit_test(test_format_null_config_is_einval),
        cmocka_unit_test(test_create_rejects_invalid_page_sizes),
        cmocka_unit_test(test_create_rejects_capacity_above_max),
        cmocka_unit_test(test_create_rejects_half_a_mem_hook),
        cmocka_unit_test(test_create_rejects_unknown_backend_names),
        cmocka_unit_test(test_create_accepts_names_equal_to_registered_ones),
        cmocka_unit_test(test_create_rejects_accept_percent_above_100),
        cmocka_unit_test(test_create_null_arguments_are_einval),
        cmocka_unit_test(test_create_copies_the_config),
        cmocka_unit_test(test_registry_lists_compressors_lzo_and_none),
        cmocka_unit_test(test_optional_compressors_exist_or_say_why_not),
        cmocka_unit_test(test_level_range_is_the_compressors),
        cmocka_unit_test(
            test_registry_lists_allocators_zsmalloc_zbud_z3fold_xvmalloc),
        cmocka_unit_test(test_registry_lists_policies),
        cmocka_unit_test(test_registry_unknown_kind_returns_null),
        cmocka_unit_test(test_strerror_explains_every_code),
        cmocka_unit_test(test_strerror_unknown_codes_are_not_null),
        cmocka_unit_test(test_version_equals_header_version_string),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
