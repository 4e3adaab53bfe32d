/*
 * test_adapt.c - the adaptive split (zc_replay_adapt()): the controller's
 * model against static replays, coherence while the boundary moves, where
 * it settles on workloads whose answer is known, adaptive admission, and
 * the option parser.
 *
 * It links the library's objects to read the model's counts
 * (zc__adapt_model()).
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

#include "model/adapt.h"
#include "zcache.h"
#include "zcache_sim.h"
#include "zt_util.h"

/* xorshift64*, seeded */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

static uint64_t below(uint64_t *s, uint64_t n)
{
    return rng_next(s) % n;
}

static zc_cache *zcache(const char *spec)
{
    zc_config cfg = zc_config_default();
    zc_cache *c = NULL;

    assert_int_equal(zc_config_parse(&cfg, spec), 0);
    assert_int_equal(zc_cache_create(&cfg, &c), 0);
    return c;
}

/* Requests with reuse at every distance: a hot set, a warm loop, a cold
 * tail; a quarter writes. */
static void make_request(uint64_t *g, zc_request *q, uint64_t i)
{
    uint64_t r = below(g, 10), page;

    if (r < 4)
        page = below(g, 150);
    else if (r < 8)
        page = 150 + i % 700;
    else
        page = 1000 + below(g, 4000);
    q->dev = (uint32_t)below(g, 2);
    q->write = below(g, 4) == 0;
    q->offset = page * 4096;
    q->length = 4096 * (1 + below(g, 2));
    q->time_ns = 0;
    q->ino = 0;
    q->flags = 0;
}

/* Raw frames (compressor none, accept 100%), exclusive gets, LRU: every
 * page costs one frame, so the model's counts for every candidate split
 * must equal a static replay of that split. */
static void test_model_counts_equal_static_replays_of_every_split(void **st)
{
    const char *raw = "compressor=none,accept_percent=100,same_filled=false";
    const uint64_t memory = 400 * 4096;
    zc_adapt_options o = {0};
    zc_content *content;
    zc_replay *r;
    zc_cache *zc;
    uint64_t g = 42;
    (void)st;

    assert_int_equal(zc_content_open("random:5", 4096, &content, NULL, 0), 0);
    zc = zcache(raw);
    assert_int_equal(zc_replay_create(0, 4096, zc, content, &r), 0);
    o.memory_bytes = memory;
    o.steps = 10;
    o.start_percent = 100; /* every page is put, so every size is known */
    o.epoch = UINT64_MAX;  /* and the split never moves */
    assert_int_equal(zc_replay_adapt(r, &o), 0);
    for (uint64_t i = 0; i < 20000; i++) {
        zc_request q;
        make_request(&g, &q, i);
        assert_int_equal(zc_replay_request(r, &q), 0);
    }
    for (unsigned k = 0; k <= 10; k++) {
        uint64_t pc, zb, h = 42;
        double disk, hits;
        zc_replay *s;
        zc_cache *szc;
        zc_replay_stats ss;
        char spec[160];

        assert_int_equal(
            zc__adapt_model(zc__replay_adapt(r), k, &pc, &zb, &disk, &hits), 0);
        assert_int_equal(pc * 4096 + zb, memory);
        snprintf(spec, sizeof(spec), "%s,capacity=%llu", raw,
                 (unsigned long long)zb);
        szc = zcache(spec);
        assert_int_equal(zc_replay_create(pc, 4096, szc, content, &s), 0);
        for (uint64_t i = 0; i < 20000; i++) {
            zc_request q;
            make_request(&h, &q, i);
            assert_int_equal(zc_replay_request(s, &q), 0);
        }
        assert_int_equal(zc_replay_stats_get(s, &ss), 0);
        assert_true(ss.zc_hits > 0 || zb == 0);
        assert_int_equal((uint64_t)hits, ss.zc_hits);
        assert_int_equal((uint64_t)disk, ss.disk_reads);
        zc_replay_destroy(s);
        zc_cache_destroy(szc);
    }
    zc_replay_destroy(r);
    zc_cache_destroy(zc);
    zc_content_close(content);
}

/* A verified replay of contents from source into zc, its boundary moved
 * by the controller within 300 pages (o: the options it was given;
 * put put_ns, get a fifth of that, starting at half). */
static zc_replay *adaptive_replay(zc_cache *zc, const char *source,
                                  uint64_t put_ns, zc_content **content,
                                  zc_adapt_options *o)
{
    zc_replay *r;

    assert_int_equal(zc_content_open(source, 4096, content, NULL, 0), 0);
    assert_int_equal(zc_replay_create(0, 4096, zc, *content, &r), 0);
    zc_replay_verify(r, true);
    o->memory_bytes = 300 * 4096;
    o->put_ns = put_ns;
    o->get_ns = put_ns / 5;
    o->start_percent = 50;
    assert_int_equal(zc_replay_adapt(r, o), 0);
    return r;
}

/* Whatever the controller does with the boundary, a zcache hit returns the
 * page's latest bytes: verification on, short epochs so that it moves
 * often, writes invalidating. */
static void test_moving_boundary_never_returns_stale_data(void **st)
{
    static const char *const specs[] = {
        "", "allocator=zbud,policy=gdsf", "allocator=z3fold,dedup=true",
        "allocator=xvmalloc,exclusive_gets=false", "store_raw=true"};
    (void)st;
    for (size_t c = 0; c < sizeof(specs) / sizeof(*specs); c++) {
        zc_adapt_options o = {0};
        zc_content *content;
        zc_replay *r;
        zc_cache *zc = zcache(specs[c]);
        zc_replay_stats rs;
        const zc_adapt_epoch *e;
        size_t n, moves = 0;
        bool was_off = false, back_on = false;
        uint64_t g = 7 + c;
        zc_request q = {0};

        /* (a put costs a tenth of a disk read: in the random phase a
         * zcache that holds every page the page cache misses still costs
         * a put and a get per miss, enough to pay for turning it off; at
         * a twentieth it would not, with zsmalloc's density, and the
         * zcache would rightly stay) */
        r = adaptive_replay(zc, "synth:9", 10000, &content, &o);
        for (uint64_t i = 0; i < 40000; i++) {
            /* phases: a loop over 1.5x the memory (a zcache helps), then
             * random pages within it (the page cache is best) */
            q.dev = 0;
            q.write = below(&g, 4) == 0;
            q.offset = 4096 * ((i / 10000) % 2 ? below(&g, 296) : i % 450);
            q.length = 4096;
            q.time_ns = 0;
            assert_int_equal(zc_replay_request(r, &q), 0);
        }
        assert_int_equal(zc_replay_stats_get(r, &rs), 0);
        assert_int_equal(rs.zc_wrong, 0);
        n = zc_replay_adapt_log(r, &e);
        assert_true(rs.zc_hits > 0);
        assert_true(n >= 100);
        for (size_t i = 0; i < n; i++) {
            /* the zcache turned off, then on again (recovery) */
            if (!e[i].zc_bytes)
                was_off = true;
            else if (was_off)
                back_on = true;
            moves += e[i].next_zc_bytes != e[i].zc_bytes;
            assert_int_equal(e[i].pc_pages * 4096 + e[i].zc_bytes,
                             o.memory_bytes);
        }
        /* (with store_raw a full zcache holds the random phase too, and
         * moving would save too little to be worth it) */
        print_message("%s: %zu moves, off %d on %d\n", specs[c], moves,
                      was_off, back_on);
        if (!strstr(specs[c], "store_raw")) {
            assert_true(moves >= 2);
            /* with the defaults, the zcache is turned off in a random
             * phase and back on, with nothing cached, in the next loop:
             * the probes and ghosts show it would pay again */
            if (!specs[c][0])
                assert_true(was_off && back_on);
        }
        assert_int_equal(zc_cache_check(zc), 0);
        zc_replay_destroy(r);
        zc_cache_destroy(zc);
        zc_content_close(content);
    }
}

/* A hot set, a loop larger than M, a cold tail; a quarter writes. */
static void fixed_request(uint64_t *g, zc_request *q, uint64_t i)
{
    uint64_t r = below(g, 10);

    q->offset = 4096 * (r < 4   ? below(g, 300)
                        : r < 8 ? 300 + i % 5000
                                : 6000 + below(g, 20000));
    q->length = 4096;
    q->write = below(g, 4) == 0;
}

/* The split held by the fixed controller plays exactly as a static replay
 * of that split: the zcache, made for all of M and then given its share,
 * packs its pages as one made for that share (zsmalloc's spans follow the
 * budget in force), and the replay's counts agree.  16 MiB and 20%: spans
 * of up to 8 frames for M, 3 for the share. */
static void test_a_fixed_split_plays_as_the_static_split(void **st)
{
    const uint64_t memory = 4096 * 4096;
    zc_adapt_options o = {0};
    zc_content *content;
    zc_replay *r, *s;
    zc_cache *zc = zcache(""), *szc;
    zc_replay_stats rs, ss;
    zc_stats zs, sz;
    uint64_t pc, zb, g = 5, h = 5;
    char spec[64];
    (void)st;

    assert_int_equal(zc_content_open("synth:4", 4096, &content, NULL, 0), 0);
    assert_int_equal(zc_replay_create(0, 4096, zc, content, &r), 0);
    o.memory_bytes = memory;
    o.controller = ZC_ADAPT_FIXED;
    o.start_percent = 20;
    assert_int_equal(zc_replay_adapt(r, &o), 0);
    zc__adapt_split(zc__replay_adapt(r), &pc, &zb);
    assert_int_equal(zb, 819 * 4096);
    snprintf(spec, sizeof(spec), "capacity=%llu", (unsigned long long)zb);
    szc = zcache(spec);
    assert_int_equal(zc_replay_create(pc, 4096, szc, content, &s), 0);
    for (uint64_t i = 0; i < 60000; i++) {
        zc_request q = {0}, v = {0};
        fixed_request(&g, &q, i);
        fixed_request(&h, &v, i);
        assert_int_equal(zc_replay_request(r, &q), 0);
        assert_int_equal(zc_replay_request(s, &v), 0);
    }
    assert_int_equal(zc_replay_stats_get(r, &rs), 0);
    assert_int_equal(zc_replay_stats_get(s, &ss), 0);
    assert_int_equal(zc_stats_get(zc, &zs), 0);
    assert_int_equal(zc_stats_get(szc, &sz), 0);
    print_message("fixed 20%%: %llu zcache hits, %llu disk reads, density "
                  "%.3f; static: %llu, %llu, %.3f\n",
                  (unsigned long long)rs.zc_hits,
                  (unsigned long long)rs.disk_reads,
                  (double)zs.compr_data_size / (double)zs.arena_bytes,
                  (unsigned long long)ss.zc_hits,
                  (unsigned long long)ss.disk_reads,
                  (double)sz.compr_data_size / (double)sz.arena_bytes);
    assert_true(ss.zc_hits > 1000);
    assert_int_equal(rs.zc_hits, ss.zc_hits);
    assert_int_equal(rs.disk_reads, ss.disk_reads);
    assert_int_equal(rs.pc_hits, ss.pc_hits);
    assert_int_equal(zs.stored_pages, sz.stored_pages);
    assert_int_equal(zs.arena_bytes, sz.arena_bytes);
    assert_int_equal(zs.evictions, sz.evictions);
    assert_int_equal(zc_cache_check(zc), 0);
    zc_replay_destroy(r);
    zc_replay_destroy(s);
    zc_cache_destroy(zc);
    zc_cache_destroy(szc);
    zc_content_close(content);
}

/* Run n accesses of one page stream (pages from fn) through an adaptive
 * replay of memory pages at prices p (NULL: put 2 us, get 500 ns, the
 * default disk); the log and stats out. */
static void run_pages(const char *content_spec, uint64_t memory_pages,
                      uint64_t n, uint64_t (*fn)(uint64_t i, uint64_t *g),
                      const zc_prices *p, zc_replay_stats *rs, zc_stats *zs,
                      uint64_t *last_zc)
{
    zc_adapt_options o = {0};
    zc_content *content;
    zc_replay *r;
    zc_cache *zc = zcache("");
    const zc_adapt_epoch *e;
    size_t ne;
    uint64_t g = 99;

    assert_int_equal(zc_content_open(content_spec, 4096, &content, NULL, 0), 0);
    assert_int_equal(zc_replay_create(0, 4096, zc, content, &r), 0);
    o.memory_bytes = memory_pages * 4096;
    /* fixed costs: the outcome does not depend on timing */
    o.disk_ns = p ? p->disk_ns : 0;
    o.put_ns = p ? p->put_ns : 2000;
    o.get_ns = p ? p->get_ns : 500;
    assert_int_equal(zc_replay_adapt(r, &o), 0);
    for (uint64_t i = 0; i < n; i++) {
        zc_request q = {.offset = fn(i, &g) * 4096, .length = 4096};
        assert_int_equal(zc_replay_request(r, &q), 0);
    }
    assert_int_equal(zc_replay_stats_get(r, rs), 0);
    assert_int_equal(zc_stats_get(zc, zs), 0);
    ne = zc_replay_adapt_log(r, &e);
    assert_true(ne > 0);
    *last_zc = e[ne - 1].next_zc_bytes;
    zc_replay_destroy(r);
    zc_cache_destroy(zc);
    zc_content_close(content);
}

/* A loop over 1.5x the pages of M: no page cache of M can hit it; a
 * zcache of compressible pages can.  */
static uint64_t loop_1500(uint64_t i, uint64_t *g)
{
    (void)g;
    return i % 1500;
}

static void test_a_loop_larger_than_memory_gets_a_zcache(void **st)
{
    zc_replay_stats rs;
    zc_stats zs;
    uint64_t zb;
    (void)st;
    /* "zero" content: every page same-filled, so a zcache of any size holds
     * them all at no arena cost. */
    run_pages("zero", 1000, 60000, loop_1500, NULL, &rs, &zs, &zb);
    assert_true(zb > 0);
    assert_true(rs.zc_hits > 50000);
}

/* Random pages that do not compress: a zcache would cost compressions and
 * never hit, so it stays off and puts are not compressed (but probed). */
static uint64_t hot_and_cold(uint64_t i, uint64_t *g)
{
    (void)i;
    return below(g, 4) ? below(g, 800) : 800 + below(g, 100000);
}

static void test_incompressible_pages_keep_the_zcache_off(void **st)
{
    zc_replay_stats rs;
    zc_stats zs;
    uint64_t zb;
    (void)st;
    run_pages("random:1", 1000, 60000, hot_and_cold, NULL, &rs, &zs, &zb);
    assert_int_equal(zb, 0);
    assert_int_equal(rs.zc_hits, 0);
    assert_true(rs.zc_skipped > rs.pc_evictions / 2);
    assert_true(rs.zc_probes > 0);
    /* every compression was a probe or a put */
    assert_true(zs.estimates == rs.zc_probes);
    assert_true(zs.puts < rs.pc_evictions / 4);
}

/* A stream whose best split changes: random pages among 900 (the page
 * cache of all of M holds them: best 0%), then a hot set of 30 pages
 * beside a loop over 4,600 (a zcache of about 80% of M holds the loop and
 * leaves the hot set its page cache), then the first phase again. */
#define PHASE_MEMORY 1000
#define PHASE_LEN 40000
static uint64_t phase_page(unsigned phase, uint64_t i, uint64_t *g)
{
    if (phase % 2 == 0)
        return below(g, 900);
    return below(g, 2) ? below(g, 30) : 1000 + i % 4600;
}

/* The cost (ms) of one phase alone at a static split of share % of M. */
static double phase_cost(zc_content *content, unsigned phase, unsigned share,
                         const zc_prices *p)
{
    uint64_t zb = (uint64_t)PHASE_MEMORY * share / 100 * 4096, g = 11;
    zc_cache *zc = NULL;
    zc_replay *r;
    zc_replay_stats rs;
    zc_stats zs = {0};
    char spec[64];

    if (zb) {
        snprintf(spec, sizeof(spec), "capacity=%llu", (unsigned long long)zb);
        zc = zcache(spec);
    }
    assert_int_equal(zc_replay_create(PHASE_MEMORY - zb / 4096, 4096, zc,
                                      zc ? content : NULL, &r),
                     0);
    for (uint64_t i = 0; i < PHASE_LEN; i++) {
        zc_request q = {.offset = phase_page(phase, i, &g) * 4096,
                        .length = 4096};
        assert_int_equal(zc_replay_request(r, &q), 0);
    }
    assert_int_equal(zc_replay_stats_get(r, &rs), 0);
    if (zc)
        assert_int_equal(zc_stats_get(zc, &zs), 0);
    zc_replay_destroy(r);
    zc_cache_destroy(zc);
    return (double)rs.disk_reads * (double)p->disk_ns / 1e6 +
           zc_cost_of(&zs, 0, p).cpu_ms;
}

/* The best static split of each phase is measured here (shares 0, 10, ...,
 * 100, static replays of the phase alone; the quick tier: 0, 20, ..., 100,
 * which hold both phases' best); the controller, at the same prices, must
 * end each phase within 10 points of it. */
static void test_the_split_follows_phases(void **st)
{
    const zc_prices p = {.disk_ns = 100000, .put_ns = 2000, .get_ns = 500};
    zc_adapt_options o = {0};
    zc_content *content;
    zc_replay *r;
    zc_cache *zc = zcache("");
    unsigned best[2];
    const unsigned step = (unsigned)zt_scale(10, 20);
    uint64_t g = 11;
    (void)st;

    assert_int_equal(zc_content_open("synth:3", 4096, &content, NULL, 0), 0);
    for (unsigned ph = 0; ph < 2; ph++) {
        double least = 0;
        for (unsigned s = 0; s <= 100; s += step) {
            double c = phase_cost(content, ph, s, &p);
            if (s == 0 || c < least) {
                least = c;
                best[ph] = s;
            }
        }
    }
    /* the premise: the best split goes from (about) 0% to 80% */
    assert_true(best[0] <= 10);
    assert_true(best[1] >= 70);

    assert_int_equal(zc_replay_create(0, 4096, zc, content, &r), 0);
    o.memory_bytes = PHASE_MEMORY * 4096;
    o.disk_ns = p.disk_ns;
    o.put_ns = p.put_ns;
    o.get_ns = p.get_ns;
    assert_int_equal(zc_replay_adapt(r, &o), 0);
    for (unsigned ph = 0; ph < 3; ph++) {
        const zc_adapt_epoch *e;
        size_t n;
        double share;

        for (uint64_t i = 0; i < PHASE_LEN; i++) {
            zc_request q = {.offset = phase_page(ph, i, &g) * 4096,
                            .length = 4096};
            assert_int_equal(zc_replay_request(r, &q), 0);
        }
        n = zc_replay_adapt_log(r, &e);
        assert_true(n > 0);
        share = 100.0 * (double)e[n - 1].next_zc_bytes /
                (PHASE_MEMORY * 4096.0);
        print_message("phase %u: best static %u%%, controller %.1f%%\n", ph,
                      best[ph % 2], share);
        assert_true(share >= best[ph % 2] - 10.0 &&
                    share <= best[ph % 2] + 10.0);
        /* and it stays there: the last quarter of the phase's epochs */
        for (size_t k = n - n / (4 * (ph + 1)); k < n; k++) {
            double s = 100.0 * (double)e[k].next_zc_bytes /
                       (PHASE_MEMORY * 4096.0);
            assert_true(s >= best[ph % 2] - 10.0 && s <= best[ph % 2] + 10.0);
        }
    }
    zc_replay_destroy(r);
    zc_cache_destroy(zc);
    zc_content_close(content);
}

/* With the zcache off, the probes cost at most ZC__ADAPT_PROBE_BUDGET of
 * the disk reads' cost, and one: at nvme prices (20 us a read, 5 us a
 * compression) one probe per 100 disk reads. */
static void test_probes_cost_at_most_their_budget(void **st)
{
    const zc_prices p = {.disk_ns = 20000, .put_ns = 5000, .get_ns = 1000};
    zc_replay_stats rs;
    zc_stats zs;
    uint64_t zb, first = 1; /* the one before any disk read */
    (void)st;

    run_pages("random:1", 1000, 60000, hot_and_cold, &p, &rs, &zs, &zb);
    assert_int_equal(zb, 0);
    print_message("%llu disk reads, %llu probes\n",
                  (unsigned long long)rs.disk_reads,
                  (unsigned long long)rs.zc_probes);
    assert_true(rs.zc_probes > 0);
    assert_true(((double)rs.zc_probes - (double)first) * 5000 <=
                ZC__ADAPT_PROBE_BUDGET * (double)rs.disk_reads * 20000);
}

/* With the zcache on, a page known to be rejected (compressed since its
 * last write) is not compressed again, and nothing else changes. */
static void test_known_rejected_pages_are_not_compressed_again(void **st)
{
    zc_adapt_options o = {0};
    zc_content *content;
    zc_replay *r;
    zc_cache *zc = zcache("");
    zc_replay_stats rs;
    zc_stats zs;
    uint64_t g = 5;
    (void)st;

    assert_int_equal(zc_content_open("random:2", 4096, &content, NULL, 0), 0);
    assert_int_equal(zc_replay_create(0, 4096, zc, content, &r), 0);
    o.memory_bytes = 200 * 4096;
    o.start_percent = 50;
    o.epoch = UINT64_MAX; /* stay at 50% */
    assert_int_equal(zc_replay_adapt(r, &o), 0);
    for (uint64_t i = 0; i < 5000; i++) {
        zc_request q = {.offset = below(&g, 300) * 4096, .length = 4096};
        assert_int_equal(zc_replay_request(r, &q), 0);
    }
    assert_int_equal(zc_replay_stats_get(r, &rs), 0);
    assert_int_equal(zc_stats_get(zc, &zs), 0);
    /* 300 distinct pages, each compressed once, then known */
    assert_int_equal(zs.puts, 300);
    assert_int_equal(zs.reject_compress_poor, 300);
    assert_int_equal(rs.zc_skipped + zs.puts, rs.pc_evictions);
    assert_int_equal(rs.zc_hits, 0);
    zc_replay_destroy(r);
    zc_cache_destroy(zc);
    zc_content_close(content);
}

static void test_adapt_refuses_bad_setups(void **st)
{
    zc_adapt_options o = {0};
    zc_replay *r;
    zc_cache *zc = zcache("");
    zc_content *content;
    zc_request q = {.length = 4096};
    (void)st;

    assert_int_equal(zc_content_open("zero", 4096, &content, NULL, 0), 0);
    assert_int_equal(zc_replay_create(10, 4096, NULL, NULL, &r), 0);
    o.memory_bytes = 1 << 20;
    assert_int_equal(zc_replay_adapt(r, &o), -ZC_EINVAL); /* no zcache */
    zc_replay_destroy(r);
    assert_int_equal(zc_replay_create(10, 4096, zc, content, &r), 0);
    o.memory_bytes = 0;
    assert_int_equal(zc_replay_adapt(r, &o), -ZC_EINVAL);
    o.memory_bytes = 1 << 20;
    o.steps = 101;
    assert_int_equal(zc_replay_adapt(r, &o), -ZC_EINVAL);
    o.steps = 0;
    assert_int_equal(zc_replay_request(r, &q), 0);
    assert_int_equal(zc_replay_adapt(r, &o), -ZC_EINVAL); /* too late */
    zc_replay_destroy(r);
    assert_int_equal(zc_replay_create(10, 4096, zc, content, &r), 0);
    assert_int_equal(zc_replay_adapt(r, &o), 0);
    assert_int_equal(zc_replay_adapt(r, &o), -ZC_EINVAL); /* twice */
    assert_int_equal(zc_replay_sink(r, NULL, NULL), 0);
    zc_replay_destroy(r);
    zc_cache_destroy(zc);
    zc_content_close(content);
}

static void test_options_parse_and_name_what_is_wrong(void **st)
{
    zc_adapt_options o = {0};
    char err[256];
    (void)st;

    assert_int_equal(zc_adapt_options_parse(&o,
                                            "memory=64M,disk=8ms,put=5us,"
                                            "get=800ns,steps=10,epoch=500,"
                                            "decay=75,probe=8,start=30,"
                                            "ghosts=4",
                                            err, sizeof(err)),
                     0);
    assert_int_equal(o.memory_bytes, 64u << 20);
    assert_int_equal(o.disk_ns, 8000000);
    assert_int_equal(o.put_ns, 5000);
    assert_int_equal(o.get_ns, 800);
    assert_int_equal(o.steps, 10);
    assert_int_equal(o.epoch, 500);
    assert_int_equal(o.decay_percent, 75);
    assert_int_equal(o.probe_every, 8);
    assert_int_equal(o.start_percent, 30);
    assert_int_equal(o.ghost_factor, 4);
    assert_int_equal(zc_adapt_options_parse(&o, "disk=hdd", err, sizeof(err)),
                     0);
    assert_int_equal(o.disk_ns, 8000000);
    assert_int_equal(o.steps, 10); /* kept */
    assert_int_equal(zc_adapt_options_parse(&o, "steps=0", err, sizeof(err)),
                     -ZC_EINVAL);
    assert_non_null(strstr(err, "steps=0"));
    assert_int_equal(zc_adapt_options_parse(&o, "disk=fast", err, sizeof(err)),
                     -ZC_EINVAL);
    assert_non_null(strstr(err, "disk=fast"));
    assert_int_equal(zc_adapt_options_parse(&o, "color=red", err, sizeof(err)),
                     -ZC_EINVAL);
    assert_non_null(strstr(err, "color"));
    assert_int_equal(zc_adapt_options_parse(&o, "start", err, sizeof(err)),
                     -ZC_EINVAL);
    assert_int_equal(zc_adapt_options_parse(&o, "start=101", err, sizeof(err)),
                     -ZC_EINVAL);
    /* a start between two candidates (10% apart here) is refused, not
     * rounded; with steps=100 every percent is one */
    {
        zc_adapt_options p = {0};
        assert_int_equal(
            zc_adapt_options_parse(&p, "steps=10,start=33", err, sizeof(err)),
            -ZC_EINVAL);
        assert_non_null(strstr(err, "start=33: not a candidate split"));
        assert_non_null(strstr(err, "30% or 40%"));
        assert_int_equal(
            zc_adapt_options_parse(&p, "start=33,steps=100", err, sizeof(err)),
            0);
        assert_int_equal(p.start_percent, 33);
    }
    /* a disk read at 0 would be the default's 100us, not a free one */
    assert_int_equal(zc_adapt_options_parse(&o, "disk=0us", err, sizeof(err)),
                     -ZC_EINVAL);
    /* The key list that help texts print is the parser's: every listed
     * key takes a value, and the unknown-key message names each. */
    assert_int_equal(zc_adapt_options_parse(&o, "color=red", err, sizeof(err)),
                     -ZC_EINVAL);
    size_t n = 0;
    for (; zc_adapt_key_name(n); n++) {
        char spec[64], e2[256];
        const char *k = zc_adapt_key_name(n);
        assert_non_null(strstr(err, k));
        assert_true(strlen(zc_adapt_key_doc(n)) > 10);
        /* (start=1 would be refused as between two candidate splits) */
        snprintf(spec, sizeof(spec), "%s=%s", k,
                 strcmp(k, "start") ? "1" : "0");
        if (zc_adapt_options_parse(&o, spec, e2, sizeof(e2))) {
            snprintf(spec, sizeof(spec), "%s=%s", k,
                     strcmp(k, "controller") ? "1us" : "arc");
            assert_int_equal(zc_adapt_options_parse(&o, spec, e2, sizeof(e2)),
                             0);
        }
    }
    assert_int_equal(n, 11);
    assert_int_equal(o.controller, ZC_ADAPT_ARC);
    assert_int_equal(
        zc_adapt_options_parse(&o, "controller=lru", err, sizeof(err)),
        -ZC_EINVAL);
    assert_non_null(strstr(err, "model, fixed or arc"));
    assert_null(zc_adapt_key_doc(n));
}

/* File-keyed requests (several inodes of two file systems on the same
 * indexes, and block pages) through an adaptive replay: verified, and
 * its counters add up. */
static void test_adaptive_replay_of_file_keys(void **st)
{
    zc_adapt_options o = {0};
    zc_content *content;
    zc_replay *r;
    zc_cache *zc = zcache("");
    zc_replay_stats rs;
    uint64_t g = 3;
    (void)st;

    r = adaptive_replay(zc, "synth:3", 1000, &content, &o);
    for (uint64_t i = 0; i < 30000; i++) {
        zc_request q = {0};
        make_request(&g, &q, i);
        q.dev += 8;
        q.ino = below(&g, 4) ? 1 + below(&g, 3) : 0;
        q.flags = below(&g, 3) ? 0 : ZC_REQ_MAPPED;
        assert_int_equal(zc_replay_request(r, &q), 0);
    }
    assert_int_equal(zc_replay_stats_get(r, &rs), 0);
    assert_int_equal(rs.zc_wrong, 0);
    assert_true(rs.zc_hits > 0);
    assert_true(zc_replay_adapt_log(r, &(const zc_adapt_epoch *){0}) > 0);
    assert_int_equal(rs.reads + rs.writes, rs.accesses);
    assert_int_equal(rs.zc_gets, rs.zc_hits + rs.disk_reads);
    assert_true(rs.zc_gets <= rs.reads);
    assert_true(rs.zc_puts + rs.zc_skipped == rs.pc_evictions);
    assert_int_equal(zc_cache_check(zc), 0);
    zc_replay_destroy(r);
    zc_cache_destroy(zc);
    zc_content_close(content);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_counts_equal_static_replays_of_every_split),
        cmocka_unit_test(test_moving_boundary_never_returns_stale_data),
        cmocka_unit_test(test_a_fixed_split_plays_as_the_static_split),
        cmocka_unit_test(test_a_loop_larger_than_memory_gets_a_zcache),
        cmocka_unit_test(test_incompressible_pages_keep_the_zcache_off),
        cmocka_unit_test(test_known_rejected_pages_are_not_compressed_again),
        cmocka_unit_test(test_the_split_follows_phases),
        cmocka_unit_test(test_probes_cost_at_most_their_budget),
        cmocka_unit_test(test_adapt_refuses_bad_setups),
        cmocka_unit_test(test_options_parse_and_name_what_is_wrong),
        cmocka_unit_test(test_adaptive_replay_of_file_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
