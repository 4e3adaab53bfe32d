/*
 * bench_zram.c - density of libzcache's allocators against the kernel's
 * own zsmalloc, on the same pages, in one run.
 *
 * The kernel's zsmalloc is reachable from user space through zram: a zram
 * block device compresses every page written to it and stores it with
 * zsmalloc, and /sys/block/zramN/mm_stat reports compr_data_size and
 * mem_used_total, the same two quantities zc_stats reports.  This program
 * collects real file pages, keeps those that zcache would keep (LZO1X-1
 * size at most half a page, not same-filled), writes the first N of them
 * to a free zram device set to "lzo", reads mm_stat, resets the device, and
 * puts the same N pages into a libzcache cache with each registered
 * allocator (zsmalloc is the like-for-like comparison; the others show what
 * the kernel's removed zbud and z3fold, and the 2010 zcache's xvmalloc,
 * would have packed).
 *
 * It needs root and an unused zram device (disksize 0).  It restores the
 * device's compression algorithm and leaves it reset.  Without one it says
 * so and exits 0 (the comparison is then skipped, not passed).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <lzo/lzo1x.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zcache.h"

#define PS 4096

static const char *default_dirs[] = {
    "/usr/include", "/usr/lib/x86_64-linux-gnu", "/usr/bin", "/usr/share/doc"};

struct paths {
    char **v;
    size_t n, cap;
};

static void add_path(struct paths *p, const char *s)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 1024;
        p->v = realloc(p->v, p->cap * sizeof(*p->v));
        if (!p->v) {
            perror("realloc");
            exit(1);
        }
    }
    p->v[p->n++] = strdup(s);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void walk(const char *dir, struct paths *out, int depth)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4096];
    struct stat st;

    if (!d || depth > 16) {
        if (d)
            closedir(d);
        return;
    }
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (lstat(path, &st))
            continue;
        if (S_ISDIR(st.st_mode))
            walk(path, out, depth + 1);
        else if (S_ISREG(st.st_mode) && st.st_size > 0)
            add_path(out, path);
    }
    closedir(d);
}

static int same_filled(const unsigned char *p)
{
    uint64_t a, b;

    memcpy(&a, p, 8);
    for (size_t i = 8; i < PS; i += 8) {
        memcpy(&b, p + i, 8);
        if (a != b)
            return 0;
    }
    return 1;
}

static int read_text(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    size_t n;

    if (!f)
        return -1;
    n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
    return 0;
}

static int write_text(const char *path, const char *s)
{
    FILE *f = fopen(path, "w");
    int rc;

    if (!f)
        return -1;
    rc = fputs(s, f) < 0 ? -1 : 0;
    if (fclose(f))
        rc = -1;
    return rc;
}

/* A zram device that nobody uses: disksize 0.  Its name, or NULL. */
static const char *free_zram(char *name, size_t len)
{
    for (int i = 0; i < 16; i++) {
        char path[128], buf[64];
        snprintf(path, sizeof(path), "/sys/block/zram%d/disksize", i);
        if (read_text(path, buf, sizeof(buf)))
            continue;
        if (strtoull(buf, NULL, 10) == 0) {
            snprintf(name, len, "zram%d", i);
            return name;
        }
    }
    return NULL;
}

struct zram_result {
    uint64_t compr, used;
};

static int zram_measure(const char *dev, const unsigned char *pages, size_t n,
                        struct zram_result *r)
{
    char path[256], buf[512], old_alg[64] = "";
    char *lb, *rb;
    void *aligned;
    int fd, rc = -1;
    unsigned long long v[3];

    snprintf(path, sizeof(path), "/sys/block/%s/comp_algorithm", dev);
    if (read_text(path, buf, sizeof(buf)))
        return -1;
    lb = strchr(buf, '[');
    rb = lb ? strchr(lb, ']') : NULL;
    if (lb && rb && (size_t)(rb - lb - 1) < sizeof(old_alg)) {
        memcpy(old_alg, lb + 1, (size_t)(rb - lb - 1));
        old_alg[rb - lb - 1] = '\0';
    }
    if (write_text(path, "lzo")) {
        fprintf(stderr, "zc-bench-zram: %s: cannot select lzo\n", path);
        return -1;
    }
    snprintf(path, sizeof(path), "/sys/block/%s/disksize", dev);
    snprintf(buf, sizeof(buf), "%zu", (n + 256) * (size_t)PS);
    if (write_text(path, buf)) {
        fprintf(stderr, "zc-bench-zram: %s: cannot set disksize\n", path);
        goto restore;
    }
    snprintf(path, sizeof(path), "/dev/%s", dev);
    fd = open(path, O_WRONLY | O_DIRECT);
    if (fd < 0) {
        fprintf(stderr, "zc-bench-zram: %s: %s\n", path, strerror(errno));
        goto reset;
    }
    if (posix_memalign(&aligned, PS, PS)) {
        close(fd);
        goto reset;
    }
    for (size_t i = 0; i < n; i++) {
        memcpy(aligned, pages + i * PS, PS);
        if (write(fd, aligned, PS) != PS) {
            fprintf(stderr, "zc-bench-zram: write %s: %s\n", path,
                    strerror(errno));
            free(aligned);
            close(fd);
            goto reset;
        }
    }
    free(aligned);
    fsync(fd);
    close(fd);
    snprintf(path, sizeof(path), "/sys/block/%s/mm_stat", dev);
    if (read_text(path, buf, sizeof(buf)) ||
        sscanf(buf, "%llu %llu %llu", &v[0], &v[1], &v[2]) != 3) {
        fprintf(stderr, "zc-bench-zram: cannot read %s\n", path);
        goto reset;
    }
    r->compr = v[1];
    r->used = v[2];
    rc = 0;
reset:
    snprintf(path, sizeof(path), "/sys/block/%s/reset", dev);
    write_text(path, "1");
restore:
    if (old_alg[0]) {
        snprintf(path, sizeof(path), "/sys/block/%s/comp_algorithm", dev);
        write_text(path, old_alg);
    }
    return rc;
}

static int ours_measure(const unsigned char *pages, size_t n,
                        const char *allocator, zc_stats *st)
{
    zc_config cfg = zc_config_default();
    zc_cache *c;
    int pool, rc;
    zc_filekey k = zc_filekey_from_ino(1);

    cfg.capacity_bytes = (n + 256) * (size_t)PS;
    cfg.allocator = allocator;
    cfg.exclusive_gets = false;
    rc = zc_cache_create(&cfg, &c);
    if (rc)
        return rc;
    pool = zc_init_fs(c, PS);
    for (size_t i = 0; i < n && pool >= 0; i++) {
        rc = zc_put_page(c, pool, &k, i, pages + i * PS);
        if (rc) {
            fprintf(stderr, "zc-bench-zram: put %zu: %s\n", i, zc_strerror(rc));
            break;
        }
    }
    zc_stats_get(c, st);
    zc_cache_destroy(c);
    return rc;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: zc-bench-zram [--dir DIR]... [--counts N,N,...]\n"
            "Density of libzcache's allocators against the kernel's zsmalloc "
            "(through zram)\non the same real file pages accepted by the "
            "half-size rule.  Needs root and\na free zram device; skips "
            "(exit 0) otherwise.\n"
            "  --dir DIR       take files under DIR (repeatable; default "
            "/usr/include,\n"
            "                  /usr/lib/x86_64-linux-gnu, /usr/bin, "
            "/usr/share/doc)\n"
            "  --counts LIST   numbers of pages to store (default "
            "2000,5000,17000,40000)\n");
}

int main(int argc, char **argv)
{
    struct paths dirs = {0}, files = {0};
    size_t counts[16], ncounts = 0, max_count = 0, have = 0, scanned = 0;
    unsigned char *pages, page[PS], cbuf[PS + PS / 16 + 64 + 3];
    static unsigned char wrk[LZO1X_1_MEM_COMPRESS];
    char zname[32];
    const char *dev;
    const char *count_spec = "2000,5000,17000,40000";

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--dir") && i + 1 < argc) {
            add_path(&dirs, argv[++i]);
        } else if (!strcmp(argv[i], "--counts") && i + 1 < argc) {
            count_spec = argv[++i];
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "zc-bench-zram: bad argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    for (const char *s = count_spec; *s;) {
        char *end;
        unsigned long long v = strtoull(s, &end, 10);
        if (end == s || v == 0 || v > 1000000 || ncounts == 16 ||
            (*end && *end != ',')) {
            fprintf(stderr,
                    "zc-bench-zram: --counts '%s': want numbers "
                    "1..1000000 separated by commas\n",
                    count_spec);
            return 2;
        }
        counts[ncounts++] = (size_t)v;
        if (v > max_count)
            max_count = (size_t)v;
        s = *end ? end + 1 : end;
    }
    dev = free_zram(zname, sizeof(zname));
    if (!dev || geteuid() != 0) {
        printf("zc-bench-zram: skipped: %s\n",
               geteuid() ? "needs root" : "no free zram device");
        return 0;
    }
    if (!dirs.n)
        for (size_t i = 0; i < sizeof(default_dirs) / sizeof(*default_dirs);
             i++)
            add_path(&dirs, default_dirs[i]);
    for (size_t i = 0; i < dirs.n; i++)
        walk(dirs.v[i], &files, 0);
    qsort(files.v, files.n, sizeof(*files.v), cmp_str);
    pages = malloc(max_count * (size_t)PS);
    if (!pages || lzo_init() != LZO_E_OK) {
        fprintf(stderr, "zc-bench-zram: out of memory\n");
        return 1;
    }
    /* Files in a fixed pseudo-random order, so that the first N pages mix
     * all directories; every page of a file in order. */
    for (size_t i = files.n; i > 1; i--) {
        size_t j = (size_t)((i * 2654435761u) % i);
        char *t = files.v[i - 1];
        files.v[i - 1] = files.v[j];
        files.v[j] = t;
    }
    for (size_t f = 0; f < files.n && have < max_count; f++) {
        FILE *in = fopen(files.v[f], "rb");
        size_t r;
        if (!in)
            continue;
        while (have < max_count && (r = fread(page, 1, PS, in)) > 0) {
            lzo_uint clen;
            if (r < PS)
                memset(page + r, 0, PS - r);
            scanned++;
            if (same_filled(page))
                continue;
            lzo1x_1_compress(page, PS, cbuf, &clen, wrk);
            if (clen > PS / 2)
                continue;
            memcpy(pages + have * PS, page, PS);
            have++;
        }
        fclose(in);
    }
    if (have < max_count) {
        fprintf(stderr, "zc-bench-zram: only %zu accepted pages found\n", have);
        return 1;
    }
    printf("zc-bench-zram: libzcache %s allocators vs kernel zsmalloc (via "
           "%s, lzo), same pages\n"
           "%zu accepted pages from %zu scanned in %zu files\n\n",
           zc_version(), dev, have, scanned, files.n);
    printf("%8s  %12s %12s %8s  %12s %12s", "pages", "kernel compr",
           "kernel used", "density", "ours compr", "ours used");
    for (size_t a = 0; zc_backend_name(ZC_BACKEND_ALLOCATOR, a); a++)
        printf(" %9s", zc_backend_name(ZC_BACKEND_ALLOCATOR, a));
    printf("\n");
    for (size_t i = 0; i < ncounts; i++) {
        struct zram_result kr;
        zc_stats st;
        if (zram_measure(dev, pages, counts[i], &kr)) {
            printf("zc-bench-zram: skipped: zram measurement failed\n");
            return 0;
        }
        if (ours_measure(pages, counts[i], "zsmalloc", &st))
            return 1;
        printf("%8zu  %12llu %12llu %8.4f  %12llu %12llu", counts[i],
               (unsigned long long)kr.compr, (unsigned long long)kr.used,
               (double)kr.compr / (double)kr.used,
               (unsigned long long)st.compr_data_size,
               (unsigned long long)st.mem_used_total);
        for (size_t a = 0; zc_backend_name(ZC_BACKEND_ALLOCATOR, a); a++) {
            if (ours_measure(pages, counts[i],
                             zc_backend_name(ZC_BACKEND_ALLOCATOR, a), &st))
                return 1;
            printf(" %9.4f",
                   (double)st.compr_data_size / (double)st.mem_used_total);
        }
        printf("\n");
    }
    printf("\n(density = compressed bytes / bytes of frames in use; \"ours\" "
           "is zsmalloc; the\n kernel's LZO output differs from liblzo2's by "
           "a few bytes per page, hence\n compr differs slightly)\n");
    return 0;
}
