/*
 * bench_replay.c - replay speed: the page-cache model alone, and with a
 * zcache behind it, on one generated trace, in one run.
 *
 * The trace is generated in memory (so that parsing is not measured): a
 * seeded mix of reads and writes over a few devices, with a hot set and a
 * long cold tail so that the page cache misses and evicts often.  Three
 * measurements, each the median of --runs:
 *   off     the page-cache model alone (zcache off): page accesses per
 *           second, to compare with other cache simulators' LRU
 *   lzo     the same with a zcache (lzo, zsmalloc) and synthetic content:
 *           where the time goes (compression, decompression, content
 *           generation, the rest)
 *   content content generation alone for the pages the zcache run put, so
 *           that its share can be told apart
 *   zct     the op stream of the same run, saved once as .zct (in $TMPDIR),
 *           played into a fresh zcache of the same configuration: what an
 *           experiment that sweeps configurations pays per configuration
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "zcache.h"
#include "zcache_sim.h"

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_u64);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    size_t nreq = 400000, pc_pages = 16384;
    int runs = 5;
    const char *zspec = "capacity=32M";
    zc_request *reqs;
    uint64_t seed = 42, accesses = 0;
    uint64_t t_off[32], t_on[32], t_zct[32], zct_bytes = 0;
    zc_replay_stats zst;
    zc_stats zzs;
    char zct[512];
    zc_replay_stats st;
    zc_stats zs;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--requests") && i + 1 < argc)
            nreq = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--page-cache") && i + 1 < argc)
            pc_pages = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--zcache") && i + 1 < argc)
            zspec = argv[++i];
        else {
            fprintf(stderr, "usage: zc-bench-replay [--requests N] [--runs R] "
                            "[--page-cache PAGES] [--zcache SPEC]\n");
            return strcmp(argv[i], "--help") ? 2 : 0;
        }
    }
    if (runs < 1 || runs > 31 || nreq == 0 || pc_pages == 0) {
        fprintf(stderr, "zc-bench-replay: bad arguments\n");
        return 2;
    }
    reqs = calloc(nreq, sizeof(*reqs)); /* ino 0, flags 0: block requests */
    if (!reqs)
        return 1;
    for (size_t i = 0; i < nreq; i++) {
        uint64_t x = rng(&seed);
        uint64_t page = (x & 3) ? rng(&seed) % (pc_pages * 2)
                                : rng(&seed) % (pc_pages * 40);
        reqs[i].time_ns = i;
        reqs[i].dev = (uint32_t)((x >> 8) % 4);
        reqs[i].write = ((x >> 16) % 4) == 0;
        reqs[i].offset = page * 4096;
        reqs[i].length = 4096 * (1 + (x >> 24) % 4);
        accesses += 1 + (x >> 24) % 4;
    }

    {
        /* The op stream, saved once. */
        const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        zc_ops_writer *w;
        zc_content *content;
        zc_replay *r;
        FILE *f;

        snprintf(zct, sizeof(zct), "%s/zc-bench-replay.%d.zct", tmp,
                 (int)getpid());
        if (zc_content_open("synth:1", 4096, &content, NULL, 0) ||
            zc_ops_writer_open(zct, NULL, &w, NULL, 0) ||
            zc_replay_create(pc_pages, 4096, NULL, content, &r) ||
            zc_replay_save_ops(r, w)) {
            fprintf(stderr, "zc-bench-replay: cannot write %s\n", zct);
            return 1;
        }
        for (size_t i = 0; i < nreq; i++)
            zc_replay_request(r, &reqs[i]);
        if (zc_ops_writer_close(w, NULL, 0)) {
            fprintf(stderr, "zc-bench-replay: cannot write %s\n", zct);
            return 1;
        }
        zc_replay_destroy(r);
        zc_content_close(content);
        f = fopen(zct, "rb");
        if (f) {
            fseek(f, 0, SEEK_END);
            zct_bytes = (uint64_t)ftell(f);
            fclose(f);
        }
    }

    for (int k = 0; k < runs; k++) {
        zc_replay *r;
        zc_cache *zc;
        zc_content *content;
        zc_config cfg = zc_config_default();
        uint64_t t0;

        if (zc_replay_create(pc_pages, 4096, NULL, NULL, &r))
            return 1;
        t0 = now_ns();
        for (size_t i = 0; i < nreq; i++)
            zc_replay_request(r, &reqs[i]);
        t_off[k] = now_ns() - t0;
        zc_replay_destroy(r);

        if (zc_config_parse(&cfg, zspec) || zc_cache_create(&cfg, &zc) ||
            zc_content_open("synth:1", 4096, &content, NULL, 0) ||
            zc_replay_create(pc_pages, 4096, zc, content, &r)) {
            fprintf(stderr, "zc-bench-replay: cannot set up '%s'\n", zspec);
            return 1;
        }
        t0 = now_ns();
        for (size_t i = 0; i < nreq; i++)
            zc_replay_request(r, &reqs[i]);
        t_on[k] = now_ns() - t0;
        zc_replay_stats_get(r, &st);
        zc_stats_get(zc, &zs);
        zc_replay_destroy(r);
        zc_content_close(content);
        zc_cache_destroy(zc);

        {
            zc_ops_reader *in;
            zc_player *pl;
            zc_op op;
            int rc;

            cfg = zc_config_default();
            if (zc_config_parse(&cfg, zspec) || zc_cache_create(&cfg, &zc) ||
                zc_ops_open(zct, &in, NULL, 0) || zc_player_create(zc, &pl)) {
                fprintf(stderr, "zc-bench-replay: cannot play %s\n", zct);
                return 1;
            }
            t0 = now_ns();
            while ((rc = zc_ops_next(in, &op)) == 1)
                zc_player_op(pl, &op);
            t_zct[k] = now_ns() - t0;
            zc_player_stats_get(pl, &zst);
            zc_stats_get(zc, &zzs);
            zc_player_destroy(pl);
            zc_ops_close(in);
            zc_cache_destroy(zc);
            if (rc || zst.zc_hits != st.zc_hits) {
                fprintf(stderr, "zc-bench-replay: %s played differently\n",
                        zct);
                return 1;
            }
        }
    }
    remove(zct);
    {
        uint64_t off = median(t_off, runs), on = median(t_on, runs);
        uint64_t lzo =
            zs.compress_ns + zs.compress_ns_rejected + zs.decompress_ns;
        zc_content *content;
        uint8_t page[4096];
        uint64_t t0, gen;

        /* Content generation alone, for as many pages as were put. */
        zc_content_open("synth:1", 4096, &content, NULL, 0);
        t0 = now_ns();
        for (uint64_t i = 0; i < st.zc_puts; i++)
            zc_content_page(content, (uint32_t)(i & 3), i, 0, page);
        gen = now_ns() - t0;
        zc_content_close(content);

        printf("zc-bench-replay: libzcache %s, %zu requests, %" PRIu64
               " page accesses, page cache %zu pages, median of %d runs\n\n",
               zc_version(), nreq, accesses, pc_pages, runs);
        printf("zcache off: %8.2f ms  %6.2f M accesses/s  (page-cache hit "
               "ratio %.3f)\n",
               (double)off / 1e6, (double)accesses / ((double)off / 1e9) / 1e6,
               (double)st.pc_hits / (double)st.accesses);
        printf("zcache on:  %8.2f ms  %6.2f M accesses/s  (%s; %" PRIu64
               " puts, %" PRIu64 " gets, %" PRIu64 " hits)\n",
               (double)on / 1e6, (double)accesses / ((double)on / 1e9) / 1e6,
               zspec, st.zc_puts, st.zc_gets, st.zc_hits);
        printf("  of which  LZO (library clocks, last run) %5.1f%%  "
               "(compress %.1f%%, wasted on rejects %.1f%%, decompress "
               "%.1f%%)\n",
               100.0 * (double)lzo / (double)on,
               100.0 * (double)zs.compress_ns / (double)on,
               100.0 * (double)zs.compress_ns_rejected / (double)on,
               100.0 * (double)zs.decompress_ns / (double)on);
        printf("            content generation            %5.1f%%\n",
               100.0 * (double)gen / (double)on);
        printf("            page-cache model              %5.1f%%\n",
               100.0 * (double)off / (double)on);
        printf("            the rest (cache bookkeeping)  %5.1f%%\n",
               100.0 - 100.0 * (double)(lzo + gen + off) / (double)on);
        {
            uint64_t z = median(t_zct, runs);
            uint64_t zlzo =
                zzs.compress_ns + zzs.compress_ns_rejected + zzs.decompress_ns;
            printf("op stream:  %8.2f ms  %6.2f M accesses/s  (the same run "
                   "played from a %.1f MB .zct; %.2fx zcache on)\n",
                   (double)z / 1e6, (double)accesses / ((double)z / 1e9) / 1e6,
                   (double)zct_bytes / 1e6, (double)z / (double)on);
            printf("  of which  LZO (library clocks, last run) %5.1f%%\n",
                   100.0 * (double)zlzo / (double)z);
        }
    }
    free(reqs);
    return 0;
}
