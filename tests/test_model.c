/*
 * test_model.c - the model-based test: random operations against a shadow.
 *
 * For each registered allocator, at least 1,000,000 seeded random operations
 * (ZC_MODEL_OPS overrides the count, ZC_MODEL_SEED the seed) drive one cache
 * of small capacity, so that evictions are frequent, over four private and
 * two shared pools, 300 inodes each and 32 page indexes per inode.
 *
 * Every page put gets a unique version, and its content is a pure function
 * of (kind, version): a real file page stamped with the version, a real page
 * with a random tail (sizes around the admission threshold), a zero page, a
 * page of one repeated word derived from the version, the same but for one
 * byte (not same-filled), or random bytes.  The
 * shadow map keeps, per key, the descriptor of the last content that the
 * cache accepted, or 0 when the key must not be found (never put, rejected,
 * invalidated, taken by an exclusive get, or seen missing).  Then:
 *   - a hit must be on a key the shadow holds, with exactly its content
 *     (all page_size bytes compared);
 *   - a miss is always allowed (the cache is ephemeral), and leaves the
 *     caller's buffer untouched;
 *   - put returns ZC_PUT_REJECT_POOR iff liblzo2's lzo1x_1_compress() gives
 *     more than page_size*accept_percent/100 bytes (same-filled pages are
 *     always stored), else 0;
 *   - puts, stored_puts, succ_gets, failed_gets, reject_compress_poor and
 *     exclusive_drops counted by the shadow equal zc_stats, every 10,000
 *     operations and at the end, with the stats identity, the capacity
 *     bound and upper bounds on held pages and files;
 *   - zc_cache_check() passes every 50,000 operations.
 * The quick tier (tests/zt_util.h) runs a twentieth of the operations, and
 * on past them until the cache has evicted (or refused a put for room) 100
 * times, since how soon it fills depends on the corpus this machine gives.
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

/* The page size of the work: half the usual 4096, so that a million
 * operations per allocator, every page compressed twice (library and
 * shadow), stay well under a minute in a Debug+ASan build; the capacity
 * (2 MiB = 1024 frames) keeps the cache full and evicting. */
#define PS 2048
#define CAPACITY ((size_t)2 << 20)
#define ACCEPT 50
#define NPRIV 4
#define NSHARED 2
#define NSLOTS (NPRIV + NSHARED)
#define NINODES 300
#define NIDX 32
#define RING 256

#define STATS_EVERY 10000
#define CHECK_EVERY 50000

enum kind { K_REAL, K_MIXED, K_ZERO, K_WORD, K_RANDOM, K_NEARSAME };

/* A content descriptor: version << 4 | kind; 0 means "absent". */
static inline uint64_t desc_make(uint64_t version, enum kind k)
{
    return version << 4 | (uint64_t)k;
}
static inline enum kind desc_kind(uint64_t d)
{
    return (enum kind)(d & 15);
}
static inline uint64_t desc_version(uint64_t d)
{
    return d >> 4;
}

/* With dedup on, every other version shares its bytes with the others of
 * its class of 97, so identical pages are put under many keys, while the
 * rest are distinct and keep the cache full on any machine's corpus. */
static bool g_dup;

static void gen_content(uint64_t d, unsigned char *buf)
{
    uint64_t v = desc_version(d), nv, h;

    if (g_dup && (v & 1))
        v = 1 + v % 97 * 2; /* odd versions: 97 shared contents */
    nv = ~v;
    h = zt_mix64(v);
    switch (desc_kind(d)) {
    case K_REAL:
        memcpy(buf, zt_corpus_page(PS, (size_t)(h % zt_corpus_pages(PS))), PS);
        memcpy(buf, &v, 8);
        memcpy(buf + 8, &nv, 8);
        break;
    case K_MIXED: {
        memcpy(buf, zt_corpus_page(PS, (size_t)(h % zt_corpus_pages(PS))), PS);
        size_t k = (size_t)(zt_mix64(h) % PS);
        zt_fill_random(buf + PS - k, k, v);
        memcpy(buf, &v, 8);
        memcpy(buf + 8, &nv, 8);
        break;
    }
    case K_ZERO: memset(buf, 0, PS); break;
    case K_WORD: zt_fill_word(buf, PS, h); break;
    case K_RANDOM: zt_fill_random(buf, PS, v); break;
    case K_NEARSAME: /* one repeated word but for one byte: not same-filled */
        zt_fill_word(buf, PS, h);
        buf[zt_mix64(h) % PS] ^= (unsigned char)(1 + v % 255);
        break;
    }
}

typedef struct shadow_counts {
    uint64_t puts, stored_puts, succ_gets, failed_gets, reject_poor;
    uint64_t reject_full;
    uint64_t exclusive_drops;
} shadow_counts;

typedef struct model {
    zc_cache *c;
    zt_rng rng;
    int pool[NSLOTS];
    uint8_t uuid[NSHARED][16];
    uint64_t desc[NSLOTS][NINODES][NIDX];
    uint32_t present_in_file[NSLOTS][NINODES];
    uint64_t present, present_same, files_present;
    uint64_t version;
    shadow_counts n;
    bool exact; /* put outcomes predicted by liblzo2 */
    struct {
        int slot, inode, idx;
    } ring[RING];
    unsigned ring_len, ring_pos;
    uint64_t op;
    unsigned char *page, *expect;
    uint64_t hits_private, hits_shared, fs_resets;
} model;

static bool is_private(int slot)
{
    return slot < NPRIV;
}

static void shadow_set(model *m, int s, int f, int i, uint64_t d)
{
    uint64_t old = m->desc[s][f][i];
    if (old) {
        m->present--;
        if (desc_kind(old) == K_ZERO || desc_kind(old) == K_WORD)
            m->present_same--;
        if (--m->present_in_file[s][f] == 0)
            m->files_present--;
    }
    if (d) {
        m->present++;
        if (desc_kind(d) == K_ZERO || desc_kind(d) == K_WORD)
            m->present_same++;
        if (m->present_in_file[s][f]++ == 0)
            m->files_present++;
    }
    m->desc[s][f][i] = d;
}

static void shadow_clear_file(model *m, int s, int f)
{
    for (int i = 0; i < NIDX; i++)
        shadow_set(m, s, f, i, 0);
}

static void shadow_clear_pool(model *m, int s)
{
    for (int f = 0; f < NINODES; f++)
        shadow_clear_file(m, s, f);
}

static int init_slot(model *m, int s)
{
    if (is_private(s))
        return zc_init_fs(m->c, PS);
    return zc_init_shared_fs(m->c, m->uuid[s - NPRIV], PS);
}

static void compare_stats(model *m)
{
    zc_stats s;
    assert_int_equal(zc_stats_get(m->c, &s), 0);
    zt_assert_stats_sane(&s, PS, CAPACITY);
    if (s.puts != m->n.puts || s.stored_puts != m->n.stored_puts ||
        s.succ_gets != m->n.succ_gets || s.failed_gets != m->n.failed_gets ||
        s.reject_compress_poor != m->n.reject_poor ||
        s.exclusive_drops != m->n.exclusive_drops)
        print_message(
            "op %llu: library puts %llu stored %llu hits %llu misses %llu "
            "poor %llu xdrops %llu; shadow %llu %llu %llu %llu %llu %llu\n",
            (unsigned long long)m->op, (unsigned long long)s.puts,
            (unsigned long long)s.stored_puts, (unsigned long long)s.succ_gets,
            (unsigned long long)s.failed_gets,
            (unsigned long long)s.reject_compress_poor,
            (unsigned long long)s.exclusive_drops,
            (unsigned long long)m->n.puts, (unsigned long long)m->n.stored_puts,
            (unsigned long long)m->n.succ_gets,
            (unsigned long long)m->n.failed_gets,
            (unsigned long long)m->n.reject_poor,
            (unsigned long long)m->n.exclusive_drops);
    assert_int_equal(s.puts, m->n.puts);
    assert_int_equal(s.stored_puts, m->n.stored_puts);
    assert_int_equal(s.succ_gets, m->n.succ_gets);
    assert_int_equal(s.failed_gets, m->n.failed_gets);
    assert_int_equal(s.reject_compress_poor, m->n.reject_poor);
    assert_int_equal(s.reject_full, m->n.reject_full);
    assert_int_equal(s.exclusive_drops, m->n.exclusive_drops);
    assert_int_equal(s.reject_nospace, 0);
    assert_int_equal(s.reject_race, 0);
    assert_int_equal(s.pools, NSLOTS);
    /* The cache holds no page the shadow considers gone. */
    assert_true(s.stored_pages <= m->present);
    assert_true(s.same_filled_pages <= m->present_same);
    assert_true(s.objects <= m->files_present);
}

static void do_put(model *m, int s, int f, int i)
{
    static const enum kind kinds[100] = {
#define R5 K_REAL, K_REAL, K_REAL, K_REAL, K_REAL
#define R10 R5, R5
        R10,        R10,        R10,        R10,        R10, /* 50 real */
        K_MIXED,    K_MIXED,    K_MIXED,    K_MIXED,    K_MIXED,
        K_MIXED,    K_MIXED,    K_MIXED,    K_MIXED,    K_MIXED,
        K_MIXED,    K_MIXED,    K_MIXED,    K_MIXED,    K_MIXED, /* 15 mixed */
        K_ZERO,     K_ZERO,     K_ZERO,     K_ZERO,     K_ZERO,
        K_ZERO,     K_ZERO,     K_ZERO, /* 8 zero */
        K_WORD,     K_WORD,     K_WORD,     K_WORD,     K_WORD,
        K_WORD,     K_WORD,     K_WORD,     K_WORD,     K_WORD, /* 10 word */
        K_RANDOM,   K_RANDOM,   K_RANDOM,   K_RANDOM,   K_RANDOM,
        K_RANDOM,   K_RANDOM,   K_RANDOM,   K_RANDOM,   K_RANDOM,
        K_RANDOM,   K_RANDOM,   K_RANDOM,               /* 13 */
        K_NEARSAME, K_NEARSAME, K_NEARSAME, K_NEARSAME, /* 4 near-same */
#undef R5
#undef R10
    };
    enum kind k = kinds[zt_rng_below(&m->rng, 100)];
    uint64_t d = desc_make(++m->version, k);
    gen_content(d, m->page);
    int want;
    size_t sz = 0;
    if (zt_is_same_filled(m->page, PS)) {
        want = 0;
    } else {
        sz = zt_lzo_size(m->page, PS);
        want = sz <= zt_threshold(PS, ACCEPT) ? 0 : ZC_PUT_REJECT_POOR;
    }
    zc_filekey key = zc_filekey_from_ino((uint64_t)f + 1);
    int rc = zc_put_page(m->c, m->pool[s], &key, (uint64_t)i, m->page);
    if (!m->exact) {
        /* Another compressor, store_raw or hysteresis: the outcome is not
         * predicted, but it must be one of these, and same-filled pages
         * are always stored. */
        if (!(rc == 0 || rc == ZC_PUT_REJECT_POOR || rc == ZC_PUT_REJECT_FULL))
            want = -1000;
        else if (want == 0 && sz == 0)
            want = 0;
        else
            want = rc;
    }
    if (rc != want)
        print_message("op %llu: put slot %d inode %d idx %d kind %d lzo %zu "
                      "returned %d, expected %d\n",
                      (unsigned long long)m->op, s, f, i, (int)k, sz, rc, want);
    assert_int_equal(rc, want);
    m->n.puts++;
    if (rc == 0) {
        m->n.stored_puts++;
        shadow_set(m, s, f, i, d);
        m->ring[m->ring_pos].slot = s;
        m->ring[m->ring_pos].inode = f;
        m->ring[m->ring_pos].idx = i;
        m->ring_pos = (m->ring_pos + 1) % RING;
        if (m->ring_len < RING)
            m->ring_len++;
    } else {
        if (rc == ZC_PUT_REJECT_FULL)
            m->n.reject_full++;
        else
            m->n.reject_poor++;
        shadow_set(m, s, f, i, 0); /* the old copy is dropped too */
    }
}

static void report_mismatch(model *m, int s, int f, int i, uint64_t d)
{
    size_t off = 0;
    while (off < PS && m->page[off] == m->expect[off])
        off++;
    uint64_t stamp;
    memcpy(&stamp, m->page, 8);
    print_message("op %llu: get slot %d inode %d idx %d returned wrong data: "
                  "expected kind %d version %llu, first difference at byte "
                  "%zu, returned page starts with %016llx%s\n",
                  (unsigned long long)m->op, s, f, i, (int)desc_kind(d),
                  (unsigned long long)desc_version(d), off,
                  (unsigned long long)stamp,
                  stamp < m->version ? " (an older version stamp?)" : "");
}

static void do_get(model *m, int s, int f, int i)
{
    zc_filekey key = zc_filekey_from_ino((uint64_t)f + 1);
    memset(m->page, 0xa5, PS);
    int rc = zc_get_page(m->c, m->pool[s], &key, (uint64_t)i, m->page);
    uint64_t d = m->desc[s][f][i];
    if (rc == 0) {
        if (d == 0)
            print_message("op %llu: get slot %d inode %d idx %d hit, but the "
                          "key was never put, rejected, invalidated or "
                          "already taken\n",
                          (unsigned long long)m->op, s, f, i);
        assert_int_not_equal(d, 0);
        gen_content(d, m->expect);
        if (memcmp(m->page, m->expect, PS) != 0) {
            report_mismatch(m, s, f, i, d);
            fail();
        }
        m->n.succ_gets++;
        if (is_private(s)) {
            m->n.exclusive_drops++;
            m->hits_private++;
            shadow_set(m, s, f, i, 0);
        } else {
            m->hits_shared++;
        }
    } else {
        if (rc != -ZC_ENOENT)
            print_message("op %llu: get returned %d\n",
                          (unsigned long long)m->op, rc);
        assert_int_equal(rc, -ZC_ENOENT);
        for (size_t b = 0; b < PS; b++)
            if (m->page[b] != 0xa5) {
                print_message("op %llu: a miss wrote the buffer (byte %zu)\n",
                              (unsigned long long)m->op, b);
                fail();
            }
        m->n.failed_gets++;
        shadow_set(m, s, f, i, 0); /* evicted: it cannot come back */
    }
}

static void do_reset_pool(model *m, int s)
{
    int old = m->pool[s];
    assert_int_equal(zc_invalidate_fs(m->c, old), 0);
    shadow_clear_pool(m, s);
    zc_filekey key = zc_filekey_from_ino(1);
    assert_int_equal(zc_get_page(m->c, old, &key, 0, m->page), -ZC_EINVAL);
    m->pool[s] = init_slot(m, s);
    assert_true(m->pool[s] >= 0);
    for (int o = 0; o < NSLOTS; o++)
        if (o != s)
            assert_int_not_equal(m->pool[o], m->pool[s]);
    m->fs_resets++;
}

static void pick_key(model *m, bool recent, int *s, int *f, int *i)
{
    if (recent && m->ring_len) {
        unsigned r = (unsigned)zt_rng_below(&m->rng, m->ring_len);
        *s = m->ring[r].slot;
        *f = m->ring[r].inode;
        *i = m->ring[r].idx;
        return;
    }
    *s = (int)zt_rng_below(&m->rng, NSLOTS);
    *f = (int)zt_rng_below(&m->rng, NINODES);
    *i = (int)zt_rng_below(&m->rng, NIDX);
}

/* ops operations, and then, up to max_ops, on until the cache has evicted
 * or refused a put for room 100 times. */
static void run_model(const char *backend, bool exact, uint64_t seed,
                      uint64_t ops, uint64_t max_ops)
{
    uint64_t room = 0; /* evictions + refusals for room, once past ops */
    model *m = calloc(1, sizeof(*m));
    assert_non_null(m);
    m->page = malloc(PS);
    m->expect = malloc(PS);
    assert_non_null(m->page);
    assert_non_null(m->expect);
    zt_rng_seed(&m->rng, seed);
    m->exact = exact;

    char spec[256];
    snprintf(spec, sizeof(spec),
             "compressor=lzo,page_size=%d,capacity=%zu,"
             "accept_percent=%d,same_filled=on,exclusive_gets=on,%s",
             PS, CAPACITY, ACCEPT, backend);
    m->c = zt_cache_new(spec, NULL);
    for (int u = 0; u < NSHARED; u++)
        for (int b = 0; b < 16; b++)
            m->uuid[u][b] = (uint8_t)(0x5a + u * 16 + b);
    for (int s = 0; s < NSLOTS; s++) {
        m->pool[s] = init_slot(m, s);
        assert_true(m->pool[s] >= 0);
    }
    const zt_corpus *corpus = zt_corpus_get();
    print_message("corpus: %zu real 4 KiB pages from %zu files, used as %zu "
                  "pages of %d bytes\n",
                  corpus->len / 4096, corpus->files, zt_corpus_pages(PS), PS);

    for (m->op = 0; m->op < ops || (room < 100 && m->op < max_ops); m->op++) {
        int s, f, i;
        unsigned what = (unsigned)zt_rng_below(&m->rng, 10000);
        if (what < 6000) { /* put */
            pick_key(m, false, &s, &f, &i);
            do_put(m, s, f, i);
        } else if (what < 8500) { /* get: half of them on recent puts */
            pick_key(m, zt_rng_below(&m->rng, 2), &s, &f, &i);
            do_get(m, s, f, i);
        } else if (what < 9946) { /* invalidate_page */
            pick_key(m, zt_rng_below(&m->rng, 4) == 0, &s, &f, &i);
            zc_filekey key = zc_filekey_from_ino((uint64_t)f + 1);
            assert_int_equal(
                zc_invalidate_page(m->c, m->pool[s], &key, (uint64_t)i), 0);
            shadow_set(m, s, f, i, 0);
        } else if (what < 9996) { /* invalidate_inode (0.5%) */
            pick_key(m, false, &s, &f, &i);
            zc_filekey key = zc_filekey_from_ino((uint64_t)f + 1);
            assert_int_equal(zc_invalidate_inode(m->c, m->pool[s], &key), 0);
            shadow_clear_file(m, s, f);
        } else if (what < 9998) { /* rare: invalidate_fs + re-init */
            if (zt_rng_below(&m->rng, 100) < 10)
                do_reset_pool(m, (int)zt_rng_below(&m->rng, NSLOTS));
        } else { /* join a shared pool again: the same id */
            int u = (int)zt_rng_below(&m->rng, NSHARED);
            assert_int_equal(zc_init_shared_fs(m->c, m->uuid[u], PS),
                             m->pool[NPRIV + u]);
        }
        if (m->op % STATS_EVERY == STATS_EVERY - 1)
            compare_stats(m);
        if (m->op % CHECK_EVERY == CHECK_EVERY - 1)
            assert_int_equal(zc_cache_check(m->c), 0);
        if (m->op + 1 >= ops && m->op % 1000 == 999) {
            zc_stats now;
            assert_int_equal(zc_stats_get(m->c, &now), 0);
            room = now.evictions + now.reject_full;
        }
    }
    ops = m->op;
    compare_stats(m);
    assert_int_equal(zc_cache_check(m->c), 0);

    zc_stats st;
    assert_int_equal(zc_stats_get(m->c, &st), 0);
    print_message(
        "%s: %llu ops, %llu puts (%llu stored, %llu "
        "poor), %llu hits (%llu private, %llu shared), %llu misses, "
        "%llu evictions, %llu replaced, %llu invalidates, %llu pool "
        "resets, %llu pages held, arena %llu of %zu bytes\n",
        backend, (unsigned long long)ops, (unsigned long long)st.puts,
        (unsigned long long)st.stored_puts,
        (unsigned long long)st.reject_compress_poor,
        (unsigned long long)st.succ_gets, (unsigned long long)m->hits_private,
        (unsigned long long)m->hits_shared, (unsigned long long)st.failed_gets,
        (unsigned long long)st.evictions, (unsigned long long)st.replaced,
        (unsigned long long)st.invalidates, (unsigned long long)m->fs_resets,
        (unsigned long long)st.stored_pages, (unsigned long long)st.arena_bytes,
        CAPACITY);
    /* The run did what it is meant to exercise. */
    assert_true(st.evictions > 0 || st.reject_full > 0);
    assert_true(m->hits_private > 0 && m->hits_shared > 0);
    assert_true(st.reject_compress_poor > 0 || st.raw_stored > 0);
    assert_true(st.same_filled_pages > 0 || ops < 10000);
    if (g_dup) {
        print_message("dedup: %llu puts shared a copy, %llu pages share now\n",
                      (unsigned long long)st.dedup_hits,
                      (unsigned long long)st.shared_pages);
        assert_true(st.dedup_hits > 0);
    }

    zc_cache_destroy(m->c);
    free(m->page);
    free(m->expect);
    free(m);
}

static const char *g_backend;
static bool g_exact;
static uint64_t g_ops_default;
static size_t g_index;

static void test_random_ops_never_return_stale_or_wrong_data(void **state)
{
    (void)state;
    uint64_t ops =
        zt_env_u64("ZC_MODEL_OPS", zt_scale(g_ops_default, g_ops_default / 20));
    uint64_t max_ops = zt_env_u64("ZC_MODEL_OPS", g_ops_default);
    uint64_t base = zt_env_u64("ZC_MODEL_SEED", 20260101);
    /* A distinct stream per group: seed = base + group number. */
    uint64_t seed = base + g_index;
    print_message("model: %s seed=%llu ops=%llu page_size=%d "
                  "capacity=%zu (rerun: ZC_MODEL_SEED=%llu ZC_MODEL_OPS=%llu)"
                  "\n",
                  g_backend, (unsigned long long)seed, (unsigned long long)ops,
                  PS, CAPACITY, (unsigned long long)base,
                  (unsigned long long)ops);
    run_model(g_backend, g_exact, seed, ops, max_ops);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* progress lines in ctest logs */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_ops_never_return_stale_or_wrong_data),
    };
    static const struct {
        zc_backend_kind kind;
        const char *key;
    } kinds[] = {{ZC_BACKEND_ALLOCATOR, "allocator"},
                 {ZC_BACKEND_POLICY, "policy"},
                 {ZC_BACKEND_COMPRESSOR, "compressor"}};
    /* Options that change admission, on the default back-ends. */
    static const struct {
        const char *spec;
        bool exact; /* put outcomes still predicted by liblzo2 */
    } options[] = {
        {"store_raw=true", false},
        {"hysteresis_percent=80", false},
        {"hysteresis_percent=100", false},
        {"compressor=lzo,level=9", false},
        {"policy=frame_lru,allocator=zbud", true},
        {"policy=frame_lru,allocator=z3fold", true},
        {"dedup=true", true},
        {"dedup=true,allocator=zbud,policy=frame_lru", true},
        {"dedup=true,policy=gdsf,store_raw=true", false},
    };
    int failed = 0;
    size_t n = 0;
    char group[128], spec[96];
    const char *name;
    /* Every allocator gets the full million operations; the other
     * back-ends and the options, which share the allocators' code paths,
     * a third of that each. */
    for (int k = 0; k < 3; k++) {
        for (size_t i = 0; (name = zc_backend_name(kinds[k].kind, i)); i++) {
            if (k > 0 && i == 0)
                continue; /* the default, run with every allocator */
            snprintf(spec, sizeof(spec), "%s=%s", kinds[k].key, name);
            if (strcmp(name, "none") == 0)
                continue; /* stores nothing at accept_percent=50 */
            g_backend = spec;
            g_exact = k < 2;
            g_ops_default = k == 0 ? 1000000 : 300000;
            g_index = n++;
            snprintf(group, sizeof(group), "model/%s", spec);
            failed += cmocka_run_group_tests_name(group, tests, NULL, NULL);
        }
    }
    for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
        zc_config probe = zc_config_default();
        if (zc_config_parse(&probe, options[i].spec))
            continue; /* a back-end this build lacks */
        g_backend = options[i].spec;
        g_exact = options[i].exact;
        g_dup = strstr(options[i].spec, "dedup") != NULL;
        g_ops_default = 300000;
        g_index = n++;
        snprintf(group, sizeof(group), "model/%s", options[i].spec);
        failed += cmocka_run_group_tests_name(group, tests, NULL, NULL);
    }
    if (n == 0) {
        print_message("no back-end registered\n");
        failed++;
    }
    return failed ? 1 : 0;
}
