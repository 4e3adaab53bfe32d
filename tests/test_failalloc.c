/*
 * test_failalloc.c - the failing-allocation sweep.
 *
 * A zc_mem hook counts allocations, keeps each block's size in a header
 * (so it knows the live bytes at any moment) and fails the N-th allocation
 * (once: later allocations succeed again).  For N = 1, 2, 3, ... a fixed
 * scenario runs (create, private and shared pools, puts of real, zero,
 * same-filled and random pages over enough files to need many arena frames
 * and index growth, gets, invalidations, a pool reset, destroy) until a run
 * in which no failure was injected.  In every run:
 *   - each call returns its normal result or -ZC_ENOMEM (create may fail
 *     with -ZC_ENOMEM, and then holds nothing);
 *   - after an -ZC_ENOMEM the cache is coherent: zc_cache_check() is 0,
 *     stats counters did not move for a failed put, and later gets return
 *     a miss or exactly the right data;
 *   - meta_bytes + arena_bytes equals the live bytes the hook sees (all heap
 *     memory goes through the hook), after every phase;
 *   - after destroy the hook sees zero live bytes and allocs == frees.
 * Two scenarios run: one with room to spare (the shadow is then exact:
 * a page put and not taken must hit) and one with a tight capacity (pages
 * are evicted, so a miss is always allowed).
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
#define ACCEPT 50

/* ------------------------------------------------------------------ hook */

#define HDR 16
#define MAGIC_LIVE 0x6c6976656c697665ULL
#define MAGIC_DEAD 0x6465616464656164ULL

typedef struct hook {
    uint64_t attempts; /* alloc calls */
    uint64_t fail_at;  /* the attempt that fails; 0: none */
    bool injected;
    uint64_t allocs, frees; /* successful allocs, frees */
    size_t live;            /* bytes the library holds */
    uint64_t bad_frees;     /* frees of pointers we did not hand out */
} hook;

static void *hook_alloc(void *opaque, size_t size)
{
    hook *h = opaque;
    h->attempts++;
    if (h->attempts == h->fail_at) {
        h->injected = true;
        return NULL;
    }
    if (size > SIZE_MAX - HDR)
        return NULL;
    unsigned char *p = malloc(size + HDR);
    if (!p)
        return NULL;
    uint64_t magic = MAGIC_LIVE;
    memcpy(p, &size, sizeof(size));
    memcpy(p + 8, &magic, 8);
    h->allocs++;
    h->live += size;
    return p + HDR;
}

static void hook_free(void *opaque, void *ptr)
{
    hook *h = opaque;
    unsigned char *p = (unsigned char *)ptr - HDR;
    uint64_t magic;
    size_t size;
    memcpy(&magic, p + 8, 8);
    memcpy(&size, p, sizeof(size));
    if (magic != MAGIC_LIVE || size > h->live) {
        h->bad_frees++; /* reported after the call returns */
        return;
    }
    magic = MAGIC_DEAD;
    memcpy(p + 8, &magic, 8);
    h->frees++;
    h->live -= size;
    free(p);
}

/* -------------------------------------------------------------- contents */

#define NREAL 48
#define C_ZERO NREAL
#define C_WORD (NREAL + 1)
#define C_RANDOM (NREAL + 2)
#define NRANDOM 6
#define NCONTENT (NREAL + 2 + NRANDOM)

static unsigned char g_pages[NCONTENT][PS];
static int g_want[NCONTENT]; /* the normal put result */

static void make_contents(void)
{
    for (int i = 0; i < NREAL; i++) {
        /* Spread over the corpus: some pages compress, some do not. */
        memcpy(g_pages[i], zt_corpus_page(PS, (size_t)i * 37 + 5), PS);
        uint64_t tag = 0xfa11000000000000ULL + (uint64_t)i;
        memcpy(g_pages[i], &tag, 8);
    }
    memset(g_pages[C_ZERO], 0, PS);
    zt_fill_word(g_pages[C_WORD], PS, 0x0101010101010101ULL);
    for (int i = 0; i < NRANDOM; i++)
        zt_fill_random(g_pages[C_RANDOM + i], PS, 0xfa11 + (uint64_t)i);
    int stored = 0;
    for (int i = 0; i < NCONTENT; i++) {
        if (zt_is_same_filled(g_pages[i], PS))
            g_want[i] = 0;
        else
            g_want[i] = zt_lzo_size(g_pages[i], PS) <= zt_threshold(PS, ACCEPT)
                            ? 0
                            : ZC_PUT_REJECT_POOR;
        stored += g_want[i] == 0;
    }
    /* The scenario needs both outcomes. */
    assert_true(stored > NCONTENT / 3);
    assert_true(stored < NCONTENT);
}

/* --------------------------------------------------------------- shadow */

#define NPOOLS 3 /* private, shared, private */
#define NFILES 13
#define NIDX 16

enum { ABSENT = 0, PRESENT, MAYBE };

typedef struct entry {
    uint8_t state;
    uint8_t content;
} entry;

typedef struct run {
    hook h;
    const char *allocator;
    bool tight; /* small capacity: evictions make any miss legal */
    size_t capacity;
    zc_cache *c;
    int pool[NPOOLS];
    entry e[NPOOLS][NFILES][NIDX];
    unsigned char out[PS];
    /* where the injected failure surfaced */
    const char *enomem_in;
    int enomem_count;
    /* puts that failed with -ZC_ENOMEM but had evicted pages first */
    int changed_on_enomem;
} run;

static unsigned g_changed_reports;

static const uint8_t g_uuid[16] = {0xfa, 0x11, 0xa1, 0x10, 0xc0};

static bool is_private(int pi)
{
    return pi != 1;
}

static void note_enomem(run *r, const char *where)
{
    if (!r->enomem_in)
        r->enomem_in = where;
    r->enomem_count++;
}

/* zc_stats_get and zc_cache_check may themselves meet the failure: retry
 * once (only one allocation fails per run). */
static zc_stats get_stats(run *r)
{
    zc_stats s;
    int rc = zc_stats_get(r->c, &s);
    if (rc == -ZC_ENOMEM) {
        note_enomem(r, "zc_stats_get");
        rc = zc_stats_get(r->c, &s);
    }
    assert_int_equal(rc, 0);
    return s;
}

static void assert_coherent(run *r)
{
    int rc = zc_cache_check(r->c);
    if (rc == -ZC_ENOMEM) {
        note_enomem(r, "zc_cache_check");
        rc = zc_cache_check(r->c);
    }
    if (rc != 0)
        print_message("fail_at=%llu: zc_cache_check gave %d\n",
                      (unsigned long long)r->h.fail_at, rc);
    assert_int_equal(rc, 0);
    zc_stats s = get_stats(r);
    zt_assert_stats_sane(&s, PS, r->capacity);
    assert_int_equal(r->h.bad_frees, 0);
    /* Every heap byte the cache holds is accounted for. */
    if (s.meta_bytes + s.arena_bytes != r->h.live)
        print_message(
            "fail_at=%llu: meta_bytes %llu + arena_bytes %llu = "
            "%llu, the hook sees %zu live bytes\n",
            (unsigned long long)r->h.fail_at, (unsigned long long)s.meta_bytes,
            (unsigned long long)s.arena_bytes,
            (unsigned long long)(s.meta_bytes + s.arena_bytes), r->h.live);
    assert_int_equal(s.meta_bytes + s.arena_bytes, r->h.live);
}

static int init_pool(run *r, int pi)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        int id = pi == 1 ? zc_init_shared_fs(r->c, g_uuid, PS)
                         : zc_init_fs(r->c, PS);
        if (id >= 0)
            return id;
        if (id != -ZC_ENOMEM)
            print_message("fail_at=%llu: init pool %d gave %d\n",
                          (unsigned long long)r->h.fail_at, pi, id);
        assert_int_equal(id, -ZC_ENOMEM);
        note_enomem(r, pi == 1 ? "zc_init_shared_fs" : "zc_init_fs");
        assert_coherent(r);
    }
    fail_msg("init failed twice with one injected failure");
    return -1;
}

static void put(run *r, int pi, int f, int i, int content)
{
    zc_filekey k = zc_filekey_from_ino((uint64_t)f + 100);
    zc_stats before = get_stats(r);
    int rc = zc_put_page(r->c, r->pool[pi], &k, (uint64_t)i, g_pages[content]);
    entry *e = &r->e[pi][f][i];
    if (rc == -ZC_ENOMEM) {
        note_enomem(r, "zc_put_page");
        /* "the page is not stored and the old copy is gone; pages that were
         * evicted to make room before the allocation failed stay evicted
         * (counted in evictions); nothing else changes." */
        zc_stats after = get_stats(r);
        uint64_t evicted = after.evictions - before.evictions;
        uint64_t replaced = after.replaced - before.replaced;
        assert_int_equal(after.puts, before.puts);
        assert_int_equal(after.stored_puts, before.stored_puts);
        assert_int_equal(after.invalidates, before.invalidates);
        assert_int_equal(after.exclusive_drops, before.exclusive_drops);
        assert_true(replaced <= 1);
        assert_int_equal(after.stored_pages,
                         before.stored_pages - evicted - replaced);
        if (evicted) {
            r->changed_on_enomem++;
            if (g_changed_reports++ < 3)
                print_message("fail_at=%llu: put returned -ZC_ENOMEM after "
                              "evicting %llu page(s) (allowed, counted)\n",
                              (unsigned long long)r->h.fail_at,
                              (unsigned long long)evicted);
        }
        if (e->state == PRESENT && !r->tight)
            assert_int_equal(replaced, 1);
        if (!r->tight && e->state == ABSENT)
            assert_int_equal(replaced, 0);
        e->state = ABSENT;
        assert_coherent(r);
        return;
    }
    if (rc != g_want[content])
        print_message("fail_at=%llu: put content %d gave %d, expected %d\n",
                      (unsigned long long)r->h.fail_at, content, rc,
                      g_want[content]);
    assert_int_equal(rc, g_want[content]);
    e->state = rc == 0 ? PRESENT : ABSENT;
    e->content = (uint8_t)content;
}

static void get(run *r, int pi, int f, int i)
{
    zc_filekey k = zc_filekey_from_ino((uint64_t)f + 100);
    entry *e = &r->e[pi][f][i];
    memset(r->out, 0xee, PS);
    int rc = zc_get_page(r->c, r->pool[pi], &k, (uint64_t)i, r->out);
    if (rc == -ZC_ENOMEM) {
        note_enomem(r, "zc_get_page");
        if (e->state == PRESENT)
            e->state = MAYBE;
        assert_coherent(r);
        return;
    }
    if (rc == 0) {
        if (e->state == ABSENT)
            print_message("fail_at=%llu: hit on a page that is not there "
                          "(pool %d file %d index %d)\n",
                          (unsigned long long)r->h.fail_at, pi, f, i);
        assert_int_not_equal(e->state, ABSENT);
        assert_memory_equal(r->out, g_pages[e->content], PS);
        if (is_private(pi))
            e->state = ABSENT; /* exclusive get */
        return;
    }
    if (rc != -ZC_ENOENT)
        print_message("fail_at=%llu: get gave %d\n",
                      (unsigned long long)r->h.fail_at, rc);
    assert_int_equal(rc, -ZC_ENOENT);
    if (e->state == PRESENT && !r->tight)
        print_message("fail_at=%llu: miss on a page put with room to spare "
                      "(pool %d file %d index %d)\n",
                      (unsigned long long)r->h.fail_at, pi, f, i);
    assert_true(e->state != PRESENT || r->tight);
    e->state = ABSENT;
}

static void get_all(run *r)
{
    for (int pi = 0; pi < NPOOLS; pi++)
        for (int f = 0; f < NFILES; f++)
            for (int i = 0; i < NIDX; i++)
                if (r->e[pi][f][i].state != ABSENT || (f + i) % 5 == 0)
                    get(r, pi, f, i);
}

static void invalidate_page(run *r, int pi, int f, int i)
{
    zc_filekey k = zc_filekey_from_ino((uint64_t)f + 100);
    int rc = zc_invalidate_page(r->c, r->pool[pi], &k, (uint64_t)i);
    if (rc == -ZC_ENOMEM) {
        note_enomem(r, "zc_invalidate_page");
        if (r->e[pi][f][i].state == PRESENT)
            r->e[pi][f][i].state = MAYBE;
        assert_coherent(r);
        return;
    }
    assert_int_equal(rc, 0);
    r->e[pi][f][i].state = ABSENT;
}

static void invalidate_inode(run *r, int pi, int f)
{
    zc_filekey k = zc_filekey_from_ino((uint64_t)f + 100);
    int rc = zc_invalidate_inode(r->c, r->pool[pi], &k);
    if (rc == -ZC_ENOMEM) {
        note_enomem(r, "zc_invalidate_inode");
        for (int i = 0; i < NIDX; i++)
            if (r->e[pi][f][i].state == PRESENT)
                r->e[pi][f][i].state = MAYBE;
        assert_coherent(r);
        return;
    }
    assert_int_equal(rc, 0);
    for (int i = 0; i < NIDX; i++)
        r->e[pi][f][i].state = ABSENT;
}

static void reset_pool(run *r, int pi)
{
    int rc = zc_invalidate_fs(r->c, r->pool[pi]);
    if (rc == -ZC_ENOMEM) {
        note_enomem(r, "zc_invalidate_fs");
        assert_coherent(r);
        rc = zc_invalidate_fs(r->c, r->pool[pi]);
    }
    assert_int_equal(rc, 0);
    memset(r->e[pi], 0, sizeof(r->e[pi]));
    r->pool[pi] = init_pool(r, pi);
}

/* The fixed scenario.  Returns with r->h.injected telling whether the
 * failure point was reached. */
static void scenario(run *r)
{
    zc_config cfg = zc_config_default();
    cfg.capacity_bytes = r->capacity;
    cfg.exclusive_gets = true;
    cfg.accept_percent = ACCEPT;
    cfg.mem.alloc = hook_alloc;
    cfg.mem.free = hook_free;
    cfg.mem.opaque = &r->h;
    cfg.allocator = r->allocator;

    int rc = zc_cache_create(&cfg, &r->c);
    if (rc == -ZC_ENOMEM) {
        note_enomem(r, "zc_cache_create");
        assert_int_equal(r->h.live, 0);
        assert_int_equal(r->h.allocs, r->h.frees);
        return;
    }
    assert_int_equal(rc, 0);
    assert_coherent(r);

    for (int pi = 0; pi < NPOOLS; pi++)
        r->pool[pi] = init_pool(r, pi);
    assert_coherent(r);

    /* Phase 1: 200 puts over 3 pools x 13 files, mostly real pages. */
    for (int j = 0; j < 200; j++) {
        int pi = j % NPOOLS, f = (j / 3) % NFILES, i = (j / 39) % NIDX;
        int content;
        if (j % 10 == 3)
            content = C_ZERO;
        else if (j % 10 == 7)
            content = C_WORD;
        else if (j % 17 == 5)
            content = C_RANDOM + j % NRANDOM;
        else
            content = j % NREAL;
        put(r, pi, f, i, content);
    }
    assert_coherent(r);

    /* Phase 2: replace some pages (stored by rejected and vice versa). */
    for (int j = 0; j < 40; j++)
        put(r, j % NPOOLS, (j * 7) % NFILES, j % 6,
            j % 4 == 0 ? C_RANDOM + j % NRANDOM : (j * 5) % NREAL);
    assert_coherent(r);

    /* Phase 3: read everything (exclusive on private pools). */
    get_all(r);
    assert_coherent(r);

    /* Phase 4: refill, then invalidate pages, files and the shared pool. */
    for (int j = 0; j < 120; j++)
        put(r, j % NPOOLS, (j * 3) % NFILES, (j / 13) % NIDX,
            j % 9 == 0 ? C_ZERO : (j * 11) % NREAL);
    assert_coherent(r);
    for (int j = 0; j < 30; j++)
        invalidate_page(r, j % NPOOLS, (j * 3) % NFILES, (j / 13) % NIDX);
    for (int f = 0; f < NFILES; f += 4)
        invalidate_inode(r, f % NPOOLS, f);
    assert_coherent(r);
    reset_pool(r, 1);
    assert_coherent(r);
    for (int j = 0; j < 40; j++)
        put(r, 1, j % NFILES, j % 3, (j * 13) % NREAL);
    get_all(r);
    assert_coherent(r);

    zc_cache_destroy(r->c);
    r->c = NULL;
    assert_int_equal(r->h.bad_frees, 0);
    if (r->h.live != 0 || r->h.allocs != r->h.frees)
        print_message("fail_at=%llu: after destroy %zu bytes live, %llu "
                      "allocs, %llu frees\n",
                      (unsigned long long)r->h.fail_at, r->h.live,
                      (unsigned long long)r->h.allocs,
                      (unsigned long long)r->h.frees);
    assert_int_equal(r->h.live, 0);
    assert_int_equal(r->h.allocs, r->h.frees);
}

static void sweep(const char *allocator, bool tight)
{
    make_contents();
    run *r = malloc(sizeof(*r));
    assert_non_null(r);

    /* The run without failures first: it must complete and tells how many
     * allocations the scenario makes. */
    memset(r, 0, sizeof(*r));
    r->allocator = allocator;
    r->tight = tight;
    r->capacity = tight ? 32 << 10 : 16 << 20;
    scenario(r);
    assert_false(r->h.injected);
    uint64_t total = r->h.attempts;
    assert_true(total > 3);

    /* Where the failures surfaced, by function (for the log). */
    const char *names[16] = {0};
    uint64_t counts[16] = {0}, absorbed = 0, changed = 0;
    uint64_t n;
    g_changed_reports = 0;
    for (n = 1;; n++) {
        memset(r, 0, sizeof(*r));
        r->allocator = allocator;
        r->tight = tight;
        r->capacity = tight ? 32 << 10 : 16 << 20;
        r->h.fail_at = n;
        scenario(r);
        if (!r->h.injected)
            break;
        assert_true(r->enomem_count <= 1);
        changed += r->changed_on_enomem > 0;
        assert_true(n < 1000000);
        if (!r->enomem_in) {
            absorbed++; /* the library recovered: normal results only */
            continue;
        }
        for (int j = 0; j < 16; j++)
            if (!names[j] || strcmp(names[j], r->enomem_in) == 0) {
                names[j] = r->enomem_in;
                counts[j]++;
                break;
            }
    }
    char line[512];
    int len = snprintf(line, sizeof(line),
                       "%s capacity: %llu allocations; failing each in turn "
                       "gave -ZC_ENOMEM from",
                       tight ? "tight" : "ample", (unsigned long long)total);
    for (int j = 0; j < 16 && names[j] && len < (int)sizeof(line); j++)
        len += snprintf(line + len, sizeof(line) - (size_t)len, " %s x%llu",
                        names[j], (unsigned long long)counts[j]);
    print_message("%s; absorbed (normal results) x%llu\n", line,
                  (unsigned long long)absorbed);
    /* Evictions before a failed put are allowed (and checked exactly in
     * put()); report how often it happened. */
    if (changed)
        print_message("%llu of %llu failure points: a put evicted pages and "
                      "then returned -ZC_ENOMEM\n",
                      (unsigned long long)changed, (unsigned long long)total);
    /* The sweep ends at the first N past the run's allocations. */
    assert_int_equal(n, r->h.attempts + 1);
    assert_int_equal(n, total + 1);
    free(r);
}

/* The allocator under test. */
static const char *g_alloc;

static void
test_each_failed_allocation_is_enomem_and_leaves_cache_coherent(void **state)
{
    (void)state;
    sweep(g_alloc, false);
}

static void test_each_failed_allocation_under_eviction_pressure(void **state)
{
    (void)state;
    sweep(g_alloc, true);
}

static void test_stats_account_for_every_heap_byte(void **state)
{
    (void)state;
    make_contents();
    run *r = calloc(1, sizeof(*r));
    assert_non_null(r);
    r->allocator = g_alloc;
    r->capacity = 1 << 20;
    scenario(r); /* asserts meta + arena == live after every phase */
    assert_false(r->h.injected);
    free(r);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* progress lines in ctest logs */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_account_for_every_heap_byte),
        cmocka_unit_test(
            test_each_failed_allocation_is_enomem_and_leaves_cache_coherent),
        cmocka_unit_test(test_each_failed_allocation_under_eviction_pressure),
    };
    int failed = 0;
    char group[96];
    size_t n = 0;
    for (; zc_backend_name(ZC_BACKEND_ALLOCATOR, n); n++) {
        g_alloc = zc_backend_name(ZC_BACKEND_ALLOCATOR, n);
        snprintf(group, sizeof(group), "failalloc/allocator=%s", g_alloc);
        failed += cmocka_run_group_tests_name(group, tests, NULL, NULL);
    }
    return failed || n == 0 ? 1 : 0;
}
