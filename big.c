#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "zcache.h"
int main(void) {
    zc_config cfg = zc_config_default();
    cfg.capacity_bytes = 0; cfg.page_size = 512;
    zc_cache *c; int rc = zc_cache_create(&cfg, &c); if (rc) return 1;
    int pool = zc_init_fs(c, 512);
    uint64_t pg[64];
    zc_filekey k = zc_filekey_from_ino(7);
    uint64_t n = 0;
    for (;; n++) {
        uint64_t w = n * 0x9E3779B97F4A7C15ull;
        for (int i = 0; i < 64; i++) pg[i] = w;
        rc = zc_put_page(c, pool, &k, n, pg);
        if (rc) break;
    }
    printf("stopped at n=%llu (ZC_PAGES_MAX %u) rc=%d %s\n", (unsigned long long)n, ZC_PAGES_MAX, rc, zc_strerror(rc));
    zc_stats st; zc_stats_get(c, &st);
    printf("stored %llu objects %llu meta %llu page %llu file %llu fixed %llu\n", (unsigned long long)st.stored_pages,(unsigned long long)st.objects,
        (unsigned long long)st.meta_bytes,(unsigned long long)st.meta_page_bytes,(unsigned long long)st.meta_file_bytes,(unsigned long long)st.meta_fixed_bytes);
    printf("check %d\n", zc_cache_check(c));
    /* replace an existing page at the limit */
    for (int i = 0; i < 64; i++) pg[i] = 0xFFFFFFFFC0000000ull;
    rc = zc_put_page(c, pool, &k, 5, pg); printf("replace rc %d\n", rc);
    rc = zc_put_page(c, pool, &k, 1ull<<40, pg); printf("new obj rc %d\n", rc);
    zc_invalidate_page(c, pool, &k, 6);
    rc = zc_put_page(c, pool, &k, 1ull<<40, pg); printf("new obj after inval rc %d\n", rc);
    printf("check %d\n", zc_cache_check(c));
    /* verify a sample */
    uint64_t bad = 0;
    for (uint64_t i = 0; i < n; i += 9973) {
        if (i == 5 || i == 6) continue;
        uint64_t w = i * 0x9E3779B97F4A7C15ull; uint64_t out[64];
        rc = zc_get_page(c, pool, &k, i, out);
        if (rc || out[0] != w || out[63] != w) bad++;
    }
    uint64_t out[64];
    rc = zc_get_page(c, pool, &k, 5, out); if (rc || out[7] != 0xFFFFFFFFC0000000ull) bad++;
    rc = zc_get_page(c, pool, &k, 1ull<<40, out); if (rc || out[7] != 0xFFFFFFFFC0000000ull) bad++;
    printf("bad %llu check %d\n", (unsigned long long)bad, zc_cache_check(c));
    zc_invalidate_inode(c, pool, &k);
    zc_stats_get(c, &st);
    printf("after inval: stored %llu objects %llu meta page %llu file %llu\n", (unsigned long long)st.stored_pages,(unsigned long long)st.objects,(unsigned long long)st.meta_page_bytes,(unsigned long long)st.meta_file_bytes);
    zc_cache_destroy(c);
    return 0;
}
