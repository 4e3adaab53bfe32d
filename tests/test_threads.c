/*
 * test_threads.c - several threads hammer one cache.
 *
 * Four threads put, get and invalidate pages of one cache at once, over
 * keys that overlap between threads (files 0..15 of a private pool P, a
 * shared pool S, and a pool V that thread 0 keeps invalidating and
 * re-creating), plus keys that each thread owns (its own files in P and S).
 *
 * Every page is self-describing: a header with (pool, file, index, version)
 * and an FNV-1a checksum of the whole page in its last 8 bytes; a
 * same-filled page's word encodes the key and the version.  So:
 *   - any hit must return a self-consistent page for the key asked (never
 *     another key's data, never a torn page);
 *   - on a thread's own keys, a hit must return exactly the last version
 *     that thread stored, and nothing after an invalidate or an exclusive
 *     get (ordinary single-thread coherency, under contention);
 *   - put returns ZC_PUT_REJECT_POOR iff liblzo2 says the page compresses
 *     to more than half a page (on V also -ZC_EINVAL or ZC_PUT_REJECT_RACE
 *     when thread 0 just invalidated it);
 *   - every snapshot from zc_stats_get taken while the threads run obeys
 *     the stats identity and the capacity bound;
 *   - after joining, the counters equal the sums of what the threads saw,
 *     and zc_cache_check() is 0.
 * No timing is asserted.  Threads record failures; the main thread asserts.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "zcache.h"
#include "zt_util.h"

#define PS 4096
#define CAPACITY ((size_t)1 << 20)
#define NTHREADS 4
#define SHARED_FILES 16
#define OWN_FILES 16
#define NIDX 16
#define RESET_EVERY 3000

enum { SLOT_P, SLOT_S, SLOT_V, NSLOTS };

#define MAGIC 0x7a63746872656164ULL /* "zcthread" */
#define WORD_TAG 0xa5cULL

typedef struct hdr {
    uint64_t magic;
    uint64_t key; /* slot << 32 | file << 16 | index */
    uint64_t version;
    uint64_t thread;
} hdr;

static uint64_t key_id(int slot, int file, int idx)
{
    return (uint64_t)slot << 32 | (uint64_t)file << 16 | (uint64_t)idx;
}

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* Same-filled word: tag (12 bits) | key (small) | version (32 bits). */
static uint64_t word_for(int slot, int file, int idx, uint64_t version)
{
    uint64_t k = (uint64_t)slot << 14 | (uint64_t)file << 4 | (uint64_t)idx;
    return WORD_TAG << 52 | (k & 0xfffff) << 32 | (version & 0xffffffffULL);
}

static void make_page(unsigned char *pg, int slot, int file, int idx,
                      uint64_t version, int tid, bool same)
{
    if (same) {
        zt_fill_word(pg, PS, word_for(slot, file, idx, version));
        return;
    }
    uint64_t h = zt_mix64(version ^ ((uint64_t)tid << 56));
    memcpy(pg, zt_corpus_page(PS, (size_t)(h % zt_corpus_pages(PS))), PS);
    /* A random tail of varying length: some pages fail the half-size rule. */
    size_t tail = (size_t)(zt_mix64(h) % 4) == 0 ? (size_t)(h >> 40) % PS : 0;
    zt_fill_random(pg + PS - tail, tail, h);
    hdr hd = {MAGIC, key_id(slot, file, idx), version, (uint64_t)tid};
    memcpy(pg, &hd, sizeof(hd));
    uint64_t sum = fnv1a(pg, PS - 8);
    memcpy(pg + PS - 8, &sum, 8);
}

/* Checks a page returned for (slot, file, idx); returns its version, or 0
 * and a message if it is not a consistent page of that key. */
static uint64_t verify_page(const unsigned char *pg, int slot, int file,
                            int idx, char *err, size_t errlen)
{
    if (zt_is_same_filled(pg, PS)) {
        uint64_t w;
        memcpy(&w, pg, 8);
        uint64_t want = word_for(slot, file, idx, 0);
        if ((w & ~0xffffffffULL) != want) {
            snprintf(err, errlen,
                     "same-filled page %016llx is not of key %d/%d/%d",
                     (unsigned long long)w, slot, file, idx);
            return 0;
        }
        return w & 0xffffffffULL;
    }
    hdr hd;
    memcpy(&hd, pg, sizeof(hd));
    uint64_t sum;
    memcpy(&sum, pg + PS - 8, 8);
    if (hd.magic != MAGIC || sum != fnv1a(pg, PS - 8)) {
        snprintf(err, errlen, "torn or foreign page for key %d/%d/%d", slot,
                 file, idx);
        return 0;
    }
    if (hd.key != key_id(slot, file, idx)) {
        snprintf(err, errlen, "page of key %llx returned for key %d/%d/%d",
                 (unsigned long long)hd.key, slot, file, idx);
        return 0;
    }
    return hd.version;
}

typedef struct counts {
    uint64_t puts, stored, poor, nospace, race, einval_v;
    uint64_t hits, misses, exclusive_hits;
    uint64_t snapshots, checks, resets, own_hits;
} counts;

typedef struct shared_state {
    zc_cache *c;
    int pool_p, pool_s;
    _Atomic int pool_v;
    uint8_t uuid[16];
    uint64_t ops;
    uint64_t seed;
} shared_state;

typedef struct worker {
    shared_state *sh;
    int tid;
    pthread_t th;
    counts n;
    /* Last version stored on this thread's own keys (0: none). */
    uint64_t own[2][OWN_FILES][NIDX];
    char err[256];
    bool failed;
    uint64_t version;
} worker;

#define FAILF(w, ...)                                                          \
    do {                                                                       \
        if (!(w)->failed) {                                                    \
            snprintf((w)->err, sizeof((w)->err), __VA_ARGS__);                 \
            (w)->failed = true;                                                \
        }                                                                      \
    } while (0)

static const char *stats_problem(const zc_stats *s)
{
    if (s->stored_pages + s->invalidates + s->evictions + s->replaced +
            s->exclusive_drops !=
        s->stored_puts)
        return "stats identity broken in a snapshot";
    if (s->orig_data_size != s->stored_pages * PS)
        return "orig_data_size != stored_pages * page_size in a snapshot";
    if (s->arena_bytes > CAPACITY)
        return "arena_bytes above capacity in a snapshot";
    if (s->mem_used_total > s->arena_bytes)
        return "mem_used_total above arena_bytes in a snapshot";
    if (s->same_filled_pages > s->stored_pages)
        return "same_filled_pages above stored_pages in a snapshot";
    if (s->stored_puts + s->reject_compress_poor + s->reject_nospace +
            s->reject_race !=
        s->puts)
        return "puts != stored + rejected in a snapshot";
    return NULL;
}

/* Own files of thread t: SHARED_FILES + t * OWN_FILES + j. */
static void *worker_main(void *arg)
{
    worker *w = arg;
    shared_state *sh = w->sh;
    zt_rng r;
    zt_rng_seed(&r, sh->seed * 31 + (uint64_t)w->tid);
    unsigned char *pg = malloc(PS), *out = malloc(PS);
    if (!pg || !out) {
        FAILF(w, "out of memory");
        return NULL;
    }
    char err[160];
    for (uint64_t op = 0; op < sh->ops && !w->failed; op++) {
        if (w->tid == 0 && op % RESET_EVERY == RESET_EVERY - 1) {
            int old = atomic_load(&sh->pool_v);
            int rc = zc_invalidate_fs(sh->c, old);
            if (rc != 0)
                FAILF(w, "invalidate_fs(V) gave %d", rc);
            int nv = zc_init_fs(sh->c, PS);
            if (nv < 0)
                FAILF(w, "init_fs(V) gave %d", nv);
            atomic_store(&sh->pool_v, nv);
            w->n.resets++;
            continue;
        }
        if (op % 997 == 0) {
            zc_stats s;
            if (zc_stats_get(sh->c, &s) != 0)
                FAILF(w, "zc_stats_get failed");
            const char *p = stats_problem(&s);
            if (p)
                FAILF(w, "%s", p);
            w->n.snapshots++;
        }
        if (w->tid == 1 && op % 20011 == 20010) {
            int rc = zc_cache_check(sh->c);
            if (rc != 0)
                FAILF(w, "zc_cache_check during the run gave %d", rc);
            w->n.checks++;
        }

        /* Pick a key: half the time one of this thread's own. */
        bool own = zt_rng_below(&r, 2) == 0;
        int slot, file, idx = (int)zt_rng_below(&r, NIDX);
        if (own) {
            slot = zt_rng_below(&r, 2) ? SLOT_S : SLOT_P;
            file = SHARED_FILES + w->tid * OWN_FILES +
                   (int)zt_rng_below(&r, OWN_FILES);
        } else {
            slot = (int)zt_rng_below(&r, NSLOTS);
            file = (int)zt_rng_below(&r, SHARED_FILES);
        }
        int pool = slot == SLOT_P   ? sh->pool_p
                   : slot == SLOT_S ? sh->pool_s
                                    : atomic_load(&sh->pool_v);
        zc_filekey key = zc_filekey_from_ino((uint64_t)file);
        uint64_t *mine = own ? &w->own[slot == SLOT_S][file - SHARED_FILES -
                                                       w->tid * OWN_FILES][idx]
                             : NULL;
        unsigned what = (unsigned)zt_rng_below(&r, 100);

        if (what < 45) {
            uint64_t v = ++w->version;
            bool same = zt_rng_below(&r, 8) == 0;
            make_page(pg, slot, file, idx, v, w->tid, same);
            int want = 0;
            if (!same && zt_lzo_size(pg, PS) > PS / 2)
                want = ZC_PUT_REJECT_POOR;
            int rc = zc_put_page(sh->c, pool, &key, (uint64_t)idx, pg);
            if (slot == SLOT_V && rc == -ZC_EINVAL) {
                w->n.einval_v++; /* V was just invalidated */
                continue;
            }
            if (rc < 0) {
                FAILF(w, "put gave %d", rc);
                break;
            }
            w->n.puts++;
            if (rc == ZC_PUT_REJECT_RACE && slot == SLOT_V) {
                w->n.race++;
            } else if (rc != want) {
                FAILF(w, "put on slot %d gave %d, liblzo2 predicts %d", slot,
                      rc, want);
            }
            if (rc == 0)
                w->n.stored++;
            else if (rc == ZC_PUT_REJECT_POOR)
                w->n.poor++;
            else if (rc == ZC_PUT_REJECT_NOSPACE)
                w->n.nospace++;
            if (mine)
                *mine = rc == 0 ? v : 0;
        } else if (what < 80) {
            memset(out, 0xcd, PS);
            int rc = zc_get_page(sh->c, pool, &key, (uint64_t)idx, out);
            if (slot == SLOT_V && rc == -ZC_EINVAL) {
                w->n.einval_v++;
                continue;
            }
            if (rc == 0) {
                w->n.hits++;
                if (slot != SLOT_S)
                    w->n.exclusive_hits++;
                uint64_t v =
                    verify_page(out, slot, file, idx, err, sizeof(err));
                if (!v) {
                    FAILF(w, "%s", err);
                    break;
                }
                if (mine) {
                    w->n.own_hits++;
                    uint64_t want =
                        *mine &
                        (zt_is_same_filled(out, PS) ? 0xffffffffULL : ~0ULL);
                    if (*mine == 0 || v != want)
                        FAILF(w,
                              "own key %d/%d/%d: hit version %llu, last "
                              "stored %llu",
                              slot, file, idx, (unsigned long long)v,
                              (unsigned long long)*mine);
                    if (slot == SLOT_P)
                        *mine = 0; /* exclusive */
                }
            } else if (rc == -ZC_ENOENT) {
                w->n.misses++;
                if (out[0] != 0xcd || out[PS - 1] != 0xcd)
                    FAILF(w, "a miss wrote the caller's buffer");
                if (mine)
                    *mine = 0;
            } else {
                FAILF(w, "get gave %d", rc);
            }
        } else if (what < 97) {
            int rc = zc_invalidate_page(sh->c, pool, &key, (uint64_t)idx);
            if (rc != 0 && !(slot == SLOT_V && rc == -ZC_EINVAL))
                FAILF(w, "invalidate_page gave %d", rc);
            if (mine)
                *mine = 0;
        } else {
            int rc = zc_invalidate_inode(sh->c, pool, &key);
            if (rc != 0 && !(slot == SLOT_V && rc == -ZC_EINVAL))
                FAILF(w, "invalidate_inode gave %d", rc);
            if (mine)
                for (int i = 0; i < NIDX; i++)
                    mine[i - idx] = 0;
        }
    }
    free(pg);
    free(out);
    return NULL;
}

static const char *g_alloc;

static void test_concurrent_ops_return_only_consistent_pages(void **state)
{
    (void)state;
    (void)zt_corpus_get(); /* load before the threads start */
    shared_state sh = {0};
    char spec[160];
    snprintf(spec, sizeof(spec),
             "allocator=%s,capacity=%zu,page_size=%d,accept_percent=50,"
             "exclusive_gets=on",
             g_alloc, CAPACITY, PS);
    sh.c = zt_cache_new(spec, NULL);
    sh.ops = zt_env_u64("ZC_THREAD_OPS", zt_scale(100000, 20000));
    sh.seed = zt_env_u64("ZC_THREAD_SEED", 7);
    for (int i = 0; i < 16; i++)
        sh.uuid[i] = (uint8_t)(0x70 + i);
    sh.pool_p = zc_init_fs(sh.c, PS);
    sh.pool_s = zc_init_shared_fs(sh.c, sh.uuid, PS);
    atomic_store(&sh.pool_v, zc_init_fs(sh.c, PS));
    assert_true(sh.pool_p >= 0 && sh.pool_s >= 0 &&
                atomic_load(&sh.pool_v) >= 0);
    print_message("threads: allocator=%s %d threads x %llu ops, seed %llu\n",
                  g_alloc, NTHREADS, (unsigned long long)sh.ops,
                  (unsigned long long)sh.seed);

    worker *w = calloc(NTHREADS, sizeof(*w));
    assert_non_null(w);
    for (int t = 0; t < NTHREADS; t++) {
        w[t].sh = &sh;
        w[t].tid = t;
        assert_int_equal(pthread_create(&w[t].th, NULL, worker_main, &w[t]), 0);
    }
    for (int t = 0; t < NTHREADS; t++)
        assert_int_equal(pthread_join(w[t].th, NULL), 0);

    counts sum = {0};
    bool failed = false;
    for (int t = 0; t < NTHREADS; t++) {
        if (w[t].failed) {
            print_message("thread %d: %s\n", t, w[t].err);
            failed = true;
        }
        sum.puts += w[t].n.puts;
        sum.stored += w[t].n.stored;
        sum.poor += w[t].n.poor;
        sum.nospace += w[t].n.nospace;
        sum.race += w[t].n.race;
        sum.hits += w[t].n.hits;
        sum.misses += w[t].n.misses;
        sum.exclusive_hits += w[t].n.exclusive_hits;
        sum.own_hits += w[t].n.own_hits;
        sum.einval_v += w[t].n.einval_v;
        sum.snapshots += w[t].n.snapshots;
        sum.resets += w[t].n.resets;
    }
    assert_false(failed);

    assert_int_equal(zc_cache_check(sh.c), 0);
    zc_stats s;
    assert_int_equal(zc_stats_get(sh.c, &s), 0);
    zt_assert_stats_sane(&s, PS, CAPACITY);
    print_message(
        "threads: %llu puts (%llu stored, %llu poor, %llu race), "
        "%llu hits (%llu on own keys), %llu misses, %llu evictions, "
        "%llu V resets, %llu stale-V errors, %llu snapshots\n",
        (unsigned long long)s.puts, (unsigned long long)s.stored_puts,
        (unsigned long long)s.reject_compress_poor,
        (unsigned long long)s.reject_race, (unsigned long long)s.succ_gets,
        (unsigned long long)sum.own_hits, (unsigned long long)s.failed_gets,
        (unsigned long long)s.evictions, (unsigned long long)sum.resets,
        (unsigned long long)sum.einval_v, (unsigned long long)sum.snapshots);
    assert_int_equal(s.puts, sum.puts);
    assert_int_equal(s.stored_puts, sum.stored);
    assert_int_equal(s.reject_compress_poor, sum.poor);
    assert_int_equal(s.reject_nospace, sum.nospace);
    assert_int_equal(s.reject_race, sum.race);
    assert_int_equal(s.succ_gets, sum.hits);
    assert_int_equal(s.failed_gets, sum.misses);
    assert_int_equal(s.exclusive_drops, sum.exclusive_hits);
    assert_int_equal(s.pools, 3);
    assert_true(sum.hits > 0 && sum.own_hits > 0);
    zc_cache_destroy(sh.c);
    free(w);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* progress lines in ctest logs */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concurrent_ops_return_only_consistent_pages),
    };
    int failed = 0;
    size_t n = 0;
    char group[96];
    for (; zc_backend_name(ZC_BACKEND_ALLOCATOR, n); n++) {
        g_alloc = zc_backend_name(ZC_BACKEND_ALLOCATOR, n);
        snprintf(group, sizeof(group), "threads/allocator=%s", g_alloc);
        failed += cmocka_run_group_tests_name(group, tests, NULL, NULL);
    }
    return failed || n == 0 ? 1 : 0;
}
