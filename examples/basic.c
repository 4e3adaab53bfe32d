/*
 * basic.c - the README's example: a cache of 1 MiB, one pool, a page put,
 * got back and invalidated, and the statistics.  Build against an
 * installed libzcache:
 *     cc -std=c11 basic.c $(pkg-config --cflags --libs zcache)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <string.h>

#include <zcache.h>

int main(void)
{
    zc_config cfg = zc_config_default();
    zc_cache *cache;
    zc_stats st;
    char page[4096], back[4096];
    char err[128];
    int rc, pool;

    /* The same spelling tools use: capacity, back-ends, admission rule. */
    rc = zc_config_parse_error(&cfg, "capacity=1M,allocator=zsmalloc,"
                                     "accept_percent=50", err, sizeof(err));
    if (rc) {
        fprintf(stderr, "config: %s\n", err);
        return 1;
    }
    rc = zc_cache_create(&cfg, &cache);
    if (rc) {
        fprintf(stderr, "create: %s\n", zc_strerror(rc));
        return 1;
    }
    pool = zc_init_fs(cache, cfg.page_size); /* one per mounted fs */
    if (pool < 0) {
        fprintf(stderr, "init_fs: %s\n", zc_strerror(pool));
        zc_cache_destroy(cache);
        return 1;
    }

    zc_filekey file = zc_filekey_from_ino(1234);
    for (size_t i = 0; i < sizeof(page); i++)
        page[i] = "clean page-cache page "[i % 22];

    rc = zc_put_page(cache, pool, &file, 7, page); /* page evicted */
    printf("put: %s\n", zc_strerror(rc));
    rc = zc_get_page(cache, pool, &file, 7, back); /* page-cache miss */
    printf("get: %s, %s\n", zc_strerror(rc),
           rc == 0 && memcmp(page, back, sizeof(page)) == 0 ? "same bytes"
                                                            : "no data");
    rc = zc_get_page(cache, pool, &file, 7, back); /* exclusive: gone */
    printf("get again: %s\n", zc_strerror(rc));
    zc_invalidate_inode(cache, pool, &file); /* file truncated */

    zc_stats_get(cache, &st);
    printf("puts %llu stored %llu hits %llu misses %llu\n",
           (unsigned long long)st.puts, (unsigned long long)st.stored_puts,
           (unsigned long long)st.succ_gets,
           (unsigned long long)st.failed_gets);
    zc_cache_destroy(cache);
    return st.succ_gets == 1 ? 0 : 1;
}
