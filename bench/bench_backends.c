/*
 * bench_backends.c - every registered compressor and allocator, side by
 * side, on the same real file pages, in one run.
 *
 * The registry lets a cache swap its compressor and its allocator by name;
 * this program shows what each swap buys and costs.  It iterates the
 * registry (zc_backend_name()), so back-ends added later appear without a
 * change here, and prints two tables.
 *
 * 1. Compressors.  Every registered compressor at a few levels (lzo 1 and
 *    9, lz4 1 and 9, zstd -1, 1, 3, 9 and 19, none; a compressor this file
 *    does not know runs at level 0, its default).  Whether a level exists
 *    is asked of zc_config_parse(), never assumed.  For each:
 *      ratio      orig / stored bytes over the pages that are not
 *                 same-filled, from a cache that keeps every page
 *                 (accept_percent=100, store_raw, room for all, the
 *                 default allocator): stored bytes = zc_stats
 *                 compr_data_size, in which a page whose compressed form
 *                 does not fit an object counts one whole page, as it is
 *                 then held raw.  The best ratio of the table is named and
 *                 every ratio is also shown against it.
 *      <=half     the share of those pages that a zcache keeps (compressed
 *                 size at most half a page): (stored_puts -
 *                 same_filled_pages) / (puts - same_filled_pages) of a
 *                 second, untimed cache at accept_percent=50.
 *      put, get   MB/s (10^6 bytes of pages per second) of zc_put_page on
 *                 every page into a fresh keep-everything cache, and of
 *                 zc_get_page (non-exclusive) on every page; the median of
 *                 --runs; each also as a ratio to the library's own
 *                 compressor=lzo (LZO1X-1, zcache's choice), which is 1.00.
 *    One more row calls liblzo2 directly (lzo1x_1_compress on every page,
 *    lzo1x_decompress_safe on every page's LZO form): set against the
 *    library's lzo row it shows what the cache adds around the compressor.
 *    Its sizes must also equal the library's: a mismatch is reported.
 *
 * 2. Allocators.  Every registered allocator under compressor=lzo and
 *    accept_percent=50 (zcache's configuration), first with room for every
 *    page (nothing evicted):
 *      density    compr_data_size / mem_used_total: how full the frames in
 *                 use are with compressed bytes;
 *      frag       frag_bytes / mem_used_total: what no object occupies;
 *      meta/page  (meta_bytes - work_bytes) / stored_pages: all heap bytes
 *                 outside the arena (index, policy and allocator
 *                 bookkeeping, the cache's fixed buffers) except the
 *                 per-thread compression work space, over the pages held,
 *                 same-filled ones included; the same figure of the empty
 *                 cache (one pool, no page) is printed beside it;
 *      ideal      the objects' bytes (compressed data plus the cache's
 *                 6-byte header per object) packed with no gap, in whole
 *                 frames; ideal density = compr_data_size / those frames,
 *                 and density / ideal density is the allocator's score.
 *    Then with a capacity of a quarter of that ideal (objects and headers
 *    of all the pages a roomy cache keeps), so that the cache fills and
 *    evicts: after the first eviction zc_stats is sampled every 64 puts and
 *    the means of the pages held, of the density and of density / ideal
 *    (the ideal of what is held at that moment) are reported, with the
 *    evictions.  An allocator that frees only whole frames (zbud) must
 *    evict a victim's frame mates with it, which shows as more evictions
 *    and fewer pages held.
 *
 * Pages: chosen by pages.c (shared with zc-bench-core): a systematic
 * sample of 4 KiB pages of the files under /usr/include,
 * /usr/lib/x86_64-linux-gnu, /usr/bin and /usr/share/doc, or --dir.
 * Nothing is random.
 *
 * Timing: clock_gettime(CLOCK_MONOTONIC) around each whole loop.  In each
 * run r the direct LZO loops come first, then every compressor's put and
 * get loops in table order, so a slow spell of the machine touches every
 * row of that run alike; ratios are taken between the medians.  Each put
 * run uses a fresh cache; freed memory is kept by malloc for the next run
 * (mallopt), so runs after the first do not pay a page fault per frame.
 * After the last run the data of every page is read back and compared, and
 * zc_cache_check() is run; wrong data or a failed check makes the exit
 * status 1.  No figure is ever a pass or fail.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lzo/lzo1x.h>

#include "pages.h"
#include "zcache.h"

#define BENCH_NAME "zc-bench-backends"
#define BENCH_DEFAULT_PAGES 16384u
#define BENCH_DEFAULT_RUNS 3u
#define BENCH_MAX_RUNS 1000u
#define BENCH_OBJ_HDR 6u       /* the cache's header in front of an object */
#define BENCH_SAMPLE_EVERY 64u /* puts between samples of the steady state */
#define BENCH_MAX_LEVELS 8
#define BENCH_TIGHT_DIV 4u /* tight capacity = ideal / this */

/* The levels worth a row, by compressor; others run at their default. */
static const struct {
    const char *name;
    int nlevels;
    int levels[BENCH_MAX_LEVELS];
} level_table[] = {
    {"lzo", 2, {1, 9}},
    {"lz4", 2, {1, 9}},
    {"zstd", 5, {-1, 1, 3, 9, 19}},
    {"none", 1, {0}},
};

/* Keeps the baseline loops' results alive so nothing is optimised away. */
static volatile uint64_t bench_sink;

/* ------------------------------------------------------------------------
 * Small helpers
 * ------------------------------------------------------------------------ */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* One timed loop over its runs: the median is reported, min and max show
 * how noisy the machine was. */
typedef struct timing {
    uint64_t median, min, max;
} timing;

static timing summarize(const uint64_t *v, size_t n)
{
    uint64_t *copy = bench_xmalloc(n * sizeof *copy);
    timing t;
    memcpy(copy, v, n * sizeof *copy);
    qsort(copy, n, sizeof *copy, cmp_u64);
    t.median = n % 2 ? copy[n / 2]
                     : copy[n / 2 - 1] + (copy[n / 2] - copy[n / 2 - 1]) / 2;
    t.min = copy[0];
    t.max = copy[n - 1];
    free(copy);
    return t;
}

/* (max - min) / median, in percent. */
static double spread_pct(timing t)
{
    return t.median ? 100.0 * (double)(t.max - t.min) / (double)t.median : 0.0;
}

/* Megabytes (10^6 bytes) per second. */
static double mb_per_s(uint64_t bytes, uint64_t ns)
{
    return ns ? (double)bytes * 1e3 / (double)ns : 0.0;
}

static double safe_div(double a, double b)
{
    return b != 0 ? a / b : 0.0;
}

/* ------------------------------------------------------------------------
 * Options
 * ------------------------------------------------------------------------ */

typedef struct bench_opts {
    const char **dirs;
    size_t ndirs;
    size_t pages;
    unsigned runs;
    bool csv;
} bench_opts;

static void list_backends(FILE *out, zc_backend_kind kind)
{
    for (size_t i = 0;; i++) {
        const char *name = zc_backend_name(kind, i);
        const char *doc = zc_backend_doc(kind, i);
        if (!name)
            break;
        fprintf(out, "  %-16s %s\n", name, doc ? doc : "");
    }
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: " BENCH_NAME " [options]\n"
            "\n"
            "Compares every registered compressor (ratio, share kept by the\n"
            "half-size rule, put and get MB/s against compressor=lzo and\n"
            "against liblzo2 called directly) and every registered allocator\n"
            "(density, fragmentation and metadata against ideal packing,\n"
            "with room for all pages and with a quarter of it) on real file\n"
            "pages, in one run.\n"
            "\n"
            "options:\n"
            "  --dir DIR    take file pages from DIR (repeatable; replaces\n"
            "               the defaults, shared equally):\n");
    for (size_t i = 0; i < BENCH_NDEFAULT_DIRS; i++)
        fprintf(out, "                 %s\n", bench_default_dirs[i]);
    fprintf(out,
            "  --pages N    pages to use in total (default %u)\n"
            "  --runs R     repetitions of each timed loop; the median is\n"
            "               reported (default %u)\n"
            "  --csv        print the two tables as CSV (first column: the\n"
            "               table) instead of the report\n"
            "  --help       print this help\n"
            "\ncompressors:\n",
            BENCH_DEFAULT_PAGES, BENCH_DEFAULT_RUNS);
    list_backends(out, ZC_BACKEND_COMPRESSOR);
    fprintf(out, "\nallocators:\n");
    list_backends(out, ZC_BACKEND_ALLOCATOR);
    fprintf(out, "\nexit status: 0 ok; 1 no pages, a library error, wrong "
                 "data or a failed\nzc_cache_check(); 2 bad arguments\n");
}

static void parse_args(int argc, char **argv, bench_opts *o, size_t page_size)
{
    memset(o, 0, sizeof *o);
    o->pages = BENCH_DEFAULT_PAGES;
    o->runs = BENCH_DEFAULT_RUNS;

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *val = NULL, *eq = strchr(arg, '=');
        char opt[32];
        size_t n = eq ? (size_t)(eq - arg) : strlen(arg);

        if (strncmp(arg, "--", 2) != 0)
            bench_bad_arg("unexpected argument '%s'", arg);
        if (n >= sizeof opt)
            bench_bad_arg("unknown option '%s'", arg);
        memcpy(opt, arg, n);
        opt[n] = '\0';
        if (eq)
            val = eq + 1;

        if (strcmp(opt, "--help") == 0 || strcmp(opt, "--csv") == 0) {
            if (val)
                bench_bad_arg("option %s takes no value", opt);
            if (strcmp(opt, "--help") == 0) {
                usage(stdout);
                exit(0);
            }
            o->csv = true;
            continue;
        }
        if (strcmp(opt, "--dir") != 0 && strcmp(opt, "--pages") != 0 &&
            strcmp(opt, "--runs") != 0)
            bench_bad_arg("unknown option '%s'", arg);
        if (!val) {
            if (i + 1 >= argc)
                bench_bad_arg("option %s needs a value", opt);
            val = argv[++i];
        }
        if (strcmp(opt, "--dir") == 0) {
            if (!*val)
                bench_bad_arg("option %s needs a directory", opt);
            o->dirs = bench_xrealloc(o->dirs, (o->ndirs + 1) * sizeof *o->dirs);
            o->dirs[o->ndirs++] = val;
        } else if (strcmp(opt, "--pages") == 0) {
            /* Half the capacity limit: the compressor caches get twice the
             * pages' bytes of room. */
            o->pages = (size_t)bench_parse_count(
                opt, val, 1, ZC_CAPACITY_MAX / 2 / page_size);
        } else {
            o->runs = (unsigned)bench_parse_count(opt, val, 1, BENCH_MAX_RUNS);
        }
    }
    if (o->ndirs == 0) {
        o->dirs = bench_xmalloc(sizeof bench_default_dirs);
        memcpy(o->dirs, bench_default_dirs, sizeof bench_default_dirs);
        o->ndirs = BENCH_NDEFAULT_DIRS;
    }
}

/* ------------------------------------------------------------------------
 * Caches: one pass of puts, one pass of gets, verification
 * ------------------------------------------------------------------------ */

/* A cache with one private pool; a failure is remembered in err. */
typedef struct bench_cache {
    zc_cache *c;
    int pool;
} bench_cache;

static int open_cache(const zc_config *cfg, const page_set *ps, bench_cache *bc,
                      char *err, size_t errlen)
{
    int rc = zc_cache_create(cfg, &bc->c);
    if (rc < 0) {
        snprintf(err, errlen, "zc_cache_create: %s", zc_strerror(rc));
        bc->c = NULL;
        return rc;
    }
    bc->pool = zc_init_fs(bc->c, ps->page_size);
    if (bc->pool < 0) {
        snprintf(err, errlen, "zc_init_fs: %s", zc_strerror(bc->pool));
        zc_cache_destroy(bc->c);
        bc->c = NULL;
        return bc->pool;
    }
    return 0;
}

/* Put every page (timed as a whole); 0, or the first error. */
static int put_all(bench_cache *bc, const page_set *ps, uint64_t *ns, char *err,
                   size_t errlen)
{
    int first = 0;
    uint64_t t0 = now_ns();
    for (size_t i = 0; i < ps->n; i++) {
        int rc = zc_put_page(bc->c, bc->pool, &ps->keys[i], ps->index[i],
                             page_at(ps, i));
        if (rc < 0 && !first)
            first = rc;
    }
    *ns = now_ns() - t0;
    if (first)
        snprintf(err, errlen, "zc_put_page: %s", zc_strerror(first));
    return first;
}

/* Get every page, non-exclusive (timed as a whole); returns the misses. */
static size_t get_all(bench_cache *bc, const page_set *ps, uint8_t *scratch,
                      uint64_t *ns)
{
    size_t misses = 0;
    uint64_t t0 = now_ns();
    for (size_t i = 0; i < ps->n; i++)
        misses += zc_get_page(bc->c, bc->pool, &ps->keys[i], ps->index[i],
                              scratch) != 0;
    *ns = now_ns() - t0;
    return misses;
}

/* Untimed: every page that is held comes back intact; `all` says every
 * page should be held.  Returns the pages that were wrong (or missing). */
static size_t verify_all(bench_cache *bc, const page_set *ps, uint8_t *scratch,
                         bool all)
{
    size_t wrong = 0;
    for (size_t i = 0; i < ps->n; i++) {
        int rc =
            zc_get_page(bc->c, bc->pool, &ps->keys[i], ps->index[i], scratch);
        if (rc == 0)
            wrong += memcmp(scratch, page_at(ps, i), ps->page_size) != 0;
        else
            wrong += all || rc != -ZC_ENOENT;
    }
    return wrong;
}

/* ------------------------------------------------------------------------
 * Table 1: compressors
 * ------------------------------------------------------------------------ */

typedef struct comp_row {
    const char *name; /* the registry's copy */
    int level;
    bool valid;      /* zc_config_parse accepted the level */
    bool failed;     /* a library call failed */
    char error[200]; /* why not valid, or what failed */
    zc_config keep;  /* accept_percent=100, store_raw: every page kept */
    zc_config half;  /* accept_percent=50: zcache's rule */
    uint64_t *t_put, *t_get;
    timing put, get;
    zc_stats st;      /* the keep-everything cache of the last run */
    zc_stats st_half; /* the half-size cache */
    size_t misses, wrong;
    int check_rc;
    double ratio, half_share;
} comp_row;

/* The rows: every registered compressor at its levels of interest. */
static comp_row *comp_rows(size_t *nrows)
{
    comp_row *rows = NULL;
    size_t n = 0;
    for (size_t i = 0;; i++) {
        const char *name = zc_backend_name(ZC_BACKEND_COMPRESSOR, i);
        int nlevels = 1;
        const int *levels = NULL;
        static const int default_level = 0;
        if (!name)
            break;
        for (size_t t = 0; t < sizeof level_table / sizeof *level_table; t++)
            if (strcmp(level_table[t].name, name) == 0) {
                nlevels = level_table[t].nlevels;
                levels = level_table[t].levels;
            }
        if (!levels)
            levels = &default_level;
        for (int l = 0; l < nlevels; l++) {
            comp_row *r;
            char spec[96];
            rows = bench_xrealloc(rows, (n + 1) * sizeof *rows);
            r = &rows[n++];
            memset(r, 0, sizeof *r);
            r->name = name;
            r->level = levels[l];
            r->keep = zc_config_default();
            snprintf(spec, sizeof spec, "compressor=%s,level=%d", name,
                     levels[l]);
            r->valid = zc_config_parse_error(&r->keep, spec, r->error,
                                             sizeof r->error) == 0;
        }
    }
    *nrows = n;
    return rows;
}

/* The direct liblzo2 loops, the baseline of the wrapper overhead. */
typedef struct lzo_direct {
    uint8_t *dst;
    void *wrkmem;
    uint8_t *packed; /* every page's LZO form, one after another */
    size_t *off;
    uint64_t stored_bytes; /* sum of the sizes as zsmalloc would hold them */
    uint64_t nonsame, nonsame_le_half;
    uint64_t *t_comp, *t_dec;
    timing comp, dec;
} lzo_direct;

static void lzo_direct_init(lzo_direct *d, const page_set *ps, unsigned runs,
                            size_t accept_bytes)
{
    size_t bytes = 0;
    memset(d, 0, sizeof *d);
    d->dst = bench_xmalloc(ps->page_size + ps->page_size / 16 + 64 + 3);
    d->wrkmem = bench_xmalloc(LZO1X_1_MEM_COMPRESS);
    d->off = bench_xmalloc((ps->n + 1) * sizeof *d->off);
    for (size_t i = 0; i < ps->n; i++) {
        d->off[i] = bytes;
        bytes += ps->lzo_len[i];
    }
    d->off[ps->n] = bytes;
    d->packed = bench_xmalloc(bytes);
    for (size_t i = 0; i < ps->n; i++) {
        lzo_uint len = 0;
        if (lzo1x_1_compress(page_at(ps, i), ps->page_size, d->dst, &len,
                             d->wrkmem) != LZO_E_OK ||
            len != ps->lzo_len[i])
            bench_die("lzo1x_1_compress is not deterministic");
        memcpy(d->packed + d->off[i], d->dst, len);
        if (ps->same[i])
            continue;
        d->nonsame++;
        d->nonsame_le_half += len <= accept_bytes;
        /* The keep-everything cache holds a form that does not fit one
         * frame with its header raw, as a whole page. */
        d->stored_bytes +=
            len + BENCH_OBJ_HDR <= ps->page_size ? len : ps->page_size;
    }
    d->t_comp = bench_xcalloc(runs, sizeof *d->t_comp);
    d->t_dec = bench_xcalloc(runs, sizeof *d->t_dec);
}

static void lzo_direct_run(lzo_direct *d, const page_set *ps, unsigned r,
                           uint8_t *scratch)
{
    uint64_t sum = 0, t0 = now_ns();
    for (size_t i = 0; i < ps->n; i++) {
        lzo_uint len = 0;
        lzo1x_1_compress(page_at(ps, i), ps->page_size, d->dst, &len,
                         d->wrkmem);
        sum += len;
    }
    d->t_comp[r] = now_ns() - t0;
    t0 = now_ns();
    for (size_t i = 0; i < ps->n; i++) {
        lzo_uint len = ps->page_size;
        lzo1x_decompress_safe(d->packed + d->off[i], d->off[i + 1] - d->off[i],
                              scratch, &len, NULL);
        sum += len + scratch[i % ps->page_size];
    }
    d->t_dec[r] = now_ns() - t0;
    bench_sink += sum;
}

static void lzo_direct_free(lzo_direct *d)
{
    free(d->dst);
    free(d->wrkmem);
    free(d->packed);
    free(d->off);
    free(d->t_comp);
    free(d->t_dec);
}

/* Run r of one row: put every page into a fresh cache, get every page;
 * in the last run keep the statistics and verify. */
static void comp_run(comp_row *row, const page_set *ps, unsigned r, bool last,
                     uint8_t *scratch)
{
    bench_cache bc;
    size_t misses;
    if (open_cache(&row->keep, ps, &bc, row->error, sizeof row->error)) {
        row->failed = true;
        return;
    }
    if (put_all(&bc, ps, &row->t_put[r], row->error, sizeof row->error)) {
        row->failed = true;
        zc_cache_destroy(bc.c);
        return;
    }
    if (last)
        zc_stats_get(bc.c, &row->st);
    misses = get_all(&bc, ps, scratch, &row->t_get[r]);
    if (misses > row->misses)
        row->misses = misses;
    if (last) {
        row->wrong = verify_all(&bc, ps, scratch, true);
        row->check_rc = zc_cache_check(bc.c);
    }
    zc_cache_destroy(bc.c);
}

/* Untimed: the share the half-size rule keeps. */
static void comp_half(comp_row *row, const page_set *ps, uint8_t *scratch)
{
    bench_cache bc;
    uint64_t ns;
    const zc_stats *s = &row->st_half;
    if (open_cache(&row->half, ps, &bc, row->error, sizeof row->error)) {
        row->failed = true;
        return;
    }
    if (put_all(&bc, ps, &ns, row->error, sizeof row->error)) {
        row->failed = true;
    } else {
        zc_stats_get(bc.c, &row->st_half);
        row->wrong += verify_all(&bc, ps, scratch, false);
        if (!row->check_rc)
            row->check_rc = zc_cache_check(bc.c);
        row->half_share =
            safe_div((double)(s->stored_puts - s->same_filled_pages),
                     (double)(s->puts - s->same_filled_pages));
    }
    zc_cache_destroy(bc.c);
}

/* ------------------------------------------------------------------------
 * Table 2: allocators
 * ------------------------------------------------------------------------ */

typedef struct alloc_row {
    const char *name;
    bool failed;
    char error[200];
    /* roomy: nothing evicted */
    zc_stats st;
    uint64_t meta_empty; /* meta_bytes - work_bytes of the empty cache */
    uint64_t ideal_frames;
    size_t wrong;
    int check_rc;
    /* tight: a quarter of the room */
    zc_stats st_tight;
    size_t samples;
    double held_mean, density_mean, vs_ideal_mean;
} alloc_row;

static uint64_t frames_for(uint64_t bytes, size_t page_size)
{
    return (bytes + page_size - 1) / page_size;
}

/* The fewest frames that could hold what a cache holds, from its stats:
 * the objects (compressed data and a header each) packed with no gap, and
 * a frame per raw page. */
static uint64_t ideal_frames(const zc_stats *s, size_t page_size)
{
    uint64_t objs =
        s->stored_pages - s->same_filled_pages - s->raw_pages - s->shared_pages;
    uint64_t raw_bytes = s->raw_pages * page_size;
    return frames_for(s->compr_data_size - raw_bytes + objs * BENCH_OBJ_HDR,
                      page_size) +
           s->raw_pages;
}

static void alloc_roomy(alloc_row *row, const zc_config *cfg,
                        const page_set *ps, uint8_t *scratch)
{
    bench_cache bc;
    zc_stats empty;
    uint64_t ns;
    if (open_cache(cfg, ps, &bc, row->error, sizeof row->error)) {
        row->failed = true;
        return;
    }
    zc_stats_get(bc.c, &empty);
    row->meta_empty = empty.meta_bytes - empty.work_bytes;
    if (put_all(&bc, ps, &ns, row->error, sizeof row->error)) {
        row->failed = true;
    } else {
        zc_stats_get(bc.c, &row->st);
        row->ideal_frames = ideal_frames(&row->st, ps->page_size);
        row->wrong = verify_all(&bc, ps, scratch, false);
        row->check_rc = zc_cache_check(bc.c);
    }
    zc_cache_destroy(bc.c);
}

static void alloc_tight(alloc_row *row, const zc_config *cfg,
                        const page_set *ps)
{
    bench_cache bc;
    double held = 0, dens = 0, vs = 0;
    if (open_cache(cfg, ps, &bc, row->error, sizeof row->error)) {
        row->failed = true;
        return;
    }
    for (size_t i = 0; i < ps->n; i++) {
        int rc = zc_put_page(bc.c, bc.pool, &ps->keys[i], ps->index[i],
                             page_at(ps, i));
        zc_stats s;
        if (rc < 0) {
            snprintf(row->error, sizeof row->error, "zc_put_page: %s",
                     zc_strerror(rc));
            row->failed = true;
            break;
        }
        if ((i + 1) % BENCH_SAMPLE_EVERY != 0 && i + 1 != ps->n)
            continue;
        zc_stats_get(bc.c, &s);
        if (s.evictions == 0 || s.mem_used_total == 0)
            continue;
        held += (double)s.stored_pages;
        dens += (double)s.compr_data_size / (double)s.mem_used_total;
        vs +=
            safe_div((double)(ideal_frames(&s, ps->page_size) * ps->page_size),
                     (double)s.mem_used_total);
        row->samples++;
    }
    zc_stats_get(bc.c, &row->st_tight);
    if (row->samples) {
        row->held_mean = held / (double)row->samples;
        row->density_mean = dens / (double)row->samples;
        row->vs_ideal_mean = vs / (double)row->samples;
    }
    if (!row->check_rc)
        row->check_rc = zc_cache_check(bc.c);
    zc_cache_destroy(bc.c);
}

/* ------------------------------------------------------------------------
 * Reports
 * ------------------------------------------------------------------------ */

typedef struct summary {
    size_t lzo_row; /* the speed baseline, or (size_t)-1 */
    size_t best_row;
    uint64_t nonsame, same;
    uint64_t tight_capacity;
    uint64_t ideal_all; /* object bytes of the pages a zcache keeps */
    uint64_t lzo_kept_bytes, lzo_kept_pages;
} summary;

static void level_text(char *buf, size_t len, const comp_row *r)
{
    if (r->level == 0)
        snprintf(buf, len, "default");
    else
        snprintf(buf, len, "%d", r->level);
}

static void report_text(const bench_opts *o, const page_set *ps,
                        const src_dir *dirs, const comp_row *rows, size_t nrows,
                        const lzo_direct *ld, const alloc_row *arows,
                        size_t narows, const summary *sm, size_t accept_bytes)
{
    uint64_t bytes = (uint64_t)ps->n * ps->page_size;
    const comp_row *base =
        sm->lzo_row != (size_t)-1 ? &rows[sm->lzo_row] : NULL;
    double base_put = base ? mb_per_s(bytes, base->put.median) : 0;
    double base_get = base ? mb_per_s(bytes, base->get.median) : 0;
    bool noisy = false;
    char lv[16];

    printf("%s: libzcache %s, liblzo2 %s, page size %zu, %zu pages "
           "(%.1f MiB) from %zu files, median of %u run%s\n",
           BENCH_NAME, zc_version(), lzo_version_string(), ps->page_size, ps->n,
           (double)bytes / (1 << 20), ps->nfiles, o->runs,
           o->runs == 1 ? "" : "s");
    printf("pages by directory:");
    for (size_t d = 0; d < o->ndirs; d++)
        if (dirs[d].usable)
            printf(" %s %zu;", dirs[d].path, dirs[d].nsel);
    printf(" same-filled %" PRIu64 ", others %" PRIu64 "\n", sm->same,
           sm->nonsame);
    if (ps->read_errors)
        printf("WARNING: %zu pages could not be read and were zero-filled\n",
               ps->read_errors);

    printf("\n1. compressors (allocator %s; ratio and put/get: a cache that "
           "keeps every page,\n   accept_percent=100 + store_raw; <=half: "
           "a cache at accept_percent=50)\n\n",
           zc_config_default().allocator);
    printf("  %-22s %7s %7s %6s %7s %9s %6s %9s %6s\n", "compressor level",
           "ratio", "/best", "raw", "<=half", "put MB/s", "x lzo", "get MB/s",
           "x lzo");
    for (size_t k = 0; k < nrows; k++) {
        const comp_row *r = &rows[k];
        char label[64];
        level_text(lv, sizeof lv, r);
        snprintf(label, sizeof label, "%s %s", r->name, lv);
        if (!r->valid || r->failed) {
            printf("  %-22s (%s: %s)\n", label,
                   r->valid ? "failed" : "level refused", r->error);
            continue;
        }
        double put = mb_per_s(bytes, r->put.median);
        double get = mb_per_s(bytes, r->get.median);
        noisy = noisy || spread_pct(r->put) > 10 || spread_pct(r->get) > 10;
        printf("  %-22s %7.3f %7.3f %6" PRIu64 " %6.1f%% %9.1f %6.2f %9.1f "
               "%6.2f\n",
               label, r->ratio, safe_div(r->ratio, rows[sm->best_row].ratio),
               r->st.raw_pages, 100.0 * r->half_share, put,
               safe_div(put, base_put), get, safe_div(get, base_get));
    }
    {
        double put = mb_per_s(bytes, ld->comp.median);
        double get = mb_per_s(bytes, ld->dec.median);
        double ratio = safe_div((double)(sm->nonsame * ps->page_size),
                                (double)ld->stored_bytes);
        noisy = noisy || spread_pct(ld->comp) > 10 || spread_pct(ld->dec) > 10;
        printf("  %-22s %7.3f %7.3f %6s %6.1f%% %9.1f %6.2f %9.1f %6.2f\n",
               "liblzo2 lzo1x_1 direct", ratio,
               safe_div(ratio, rows[sm->best_row].ratio), "-",
               100.0 *
                   safe_div((double)ld->nonsame_le_half, (double)ld->nonsame),
               put, safe_div(put, base_put), get, safe_div(get, base_get));
    }
    level_text(lv, sizeof lv, &rows[sm->best_row]);
    printf("\n  ratio = orig / stored bytes of the %" PRIu64
           " pages that are not same-filled (a page\n  held raw counts a "
           "whole page); /best: against %s %s, the best ratio here.\n",
           sm->nonsame, rows[sm->best_row].name, lv);
    printf("  raw: pages held uncompressed; <=half: share of those pages "
           "compressing to\n  <= %zu bytes.  put/get: all %zu pages, "
           "MB/s of pages; x lzo: against compressor=lzo\n  level 1 "
           "(LZO1X-1) of the library.  The direct row times "
           "lzo1x_1_compress and\n  lzo1x_decompress_safe on every page "
           "(a get fills same-filled pages and\n  copies raw ones "
           "instead).\n",
           accept_bytes, ps->n);
    if (base) {
        printf("  wrapper overhead: put(lzo) takes %.2fx the time of "
               "lzo1x_1_compress, get(lzo)\n  %.2fx that of "
               "lzo1x_decompress_safe (ratio of medians).\n",
               safe_div((double)base->put.median, (double)ld->comp.median),
               safe_div((double)base->get.median, (double)ld->dec.median));
        if (base->st.compr_data_size != ld->stored_bytes)
            printf("  NOTE: compressor=lzo stored %" PRIu64
                   " bytes, liblzo2 direct sizes say %" PRIu64 ".\n",
                   base->st.compr_data_size, ld->stored_bytes);
    }
    for (size_t k = 0; k < nrows; k++) {
        const comp_row *r = &rows[k];
        if (r->valid && !r->failed &&
            (r->misses || r->wrong || r->check_rc || r->st.evictions ||
             r->st.reject_nospace)) {
            level_text(lv, sizeof lv, r);
            printf("  PROBLEM %s %s: %zu timed gets missed, %zu pages wrong, "
                   "check %s, %" PRIu64 " evictions, %" PRIu64
                   " rejected for space\n",
                   r->name, lv, r->misses, r->wrong, zc_strerror(r->check_rc),
                   r->st.evictions, r->st.reject_nospace);
        }
    }
    if (noisy)
        printf("  NOTE: some timings spread by more than 10%% between runs "
               "(a busy machine?); use\n  more --runs (--csv gives the "
               "spreads).\n");

    printf("\n2. allocators (compressor lzo, accept_percent 50; room for "
           "every page, nothing evicted)\n\n");
    printf("  %-10s %7s %7s %7s %8s %8s %8s %6s %8s %7s\n", "allocator",
           "stored", "frames", "ideal", "density", "ideal d", "d/ideal", "frag",
           "meta/pg", "empty");
    for (size_t a = 0; a < narows; a++) {
        const alloc_row *r = &arows[a];
        const zc_stats *s = &r->st;
        double dens, ideal_d;
        if (r->failed) {
            printf("  %-10s (failed: %s)\n", r->name, r->error);
            continue;
        }
        dens = safe_div((double)s->compr_data_size, (double)s->mem_used_total);
        ideal_d = safe_div((double)s->compr_data_size,
                           (double)(r->ideal_frames * ps->page_size));
        printf("  %-10s %7" PRIu64 " %7" PRIu64 " %7" PRIu64
               " %8.3f %8.3f %8.3f %5.1f%% %8.1f %7" PRIu64 "\n",
               r->name, s->stored_pages, s->mem_used_total / ps->page_size,
               r->ideal_frames, dens, ideal_d, safe_div(dens, ideal_d),
               100.0 *
                   safe_div((double)s->frag_bytes, (double)s->mem_used_total),
               safe_div((double)(s->meta_bytes - s->work_bytes),
                        (double)s->stored_pages),
               r->meta_empty);
    }
    printf("\n  stored: pages held (same-filled included); frames: "
           "mem_used_total / page;\n  ideal: frames for compr_data_size + "
           "%u bytes per object, packed with no gap;\n  density = "
           "compr_data_size / mem_used_total; ideal d: the same over the "
           "ideal\n  frames; frag = frag_bytes / mem_used_total; meta/pg = "
           "(meta_bytes - work_bytes)\n  / stored; empty: meta_bytes - "
           "work_bytes of the cache before any put.\n",
           BENCH_OBJ_HDR);

    printf("\n   with capacity %" PRIu64 " bytes (%" PRIu64
           " frames, 1/%u of the ideal of all kept pages):\n"
           "   means over samples every %u puts after the first eviction\n\n",
           sm->tight_capacity, sm->tight_capacity / ps->page_size,
           BENCH_TIGHT_DIV, BENCH_SAMPLE_EVERY);
    printf("  %-10s %8s %9s %9s %8s %10s %9s\n", "allocator", "samples", "held",
           "density", "d/ideal", "evictions", "rejected");
    for (size_t a = 0; a < narows; a++) {
        const alloc_row *r = &arows[a];
        if (r->failed)
            continue;
        printf("  %-10s %8zu %9.1f %9.3f %8.3f %10" PRIu64 " %9" PRIu64 "\n",
               r->name, r->samples, r->held_mean, r->density_mean,
               r->vs_ideal_mean, r->st_tight.evictions,
               r->st_tight.reject_nospace + r->st_tight.reject_compress_poor);
    }
    printf("\n  held: pages held; d/ideal: ideal frames of what is held / "
           "frames in use;\n  rejected: puts not stored (half-size rule or "
           "no room), the same for all\n  allocators unless one runs out of "
           "room.\n");
    for (size_t a = 0; a < narows; a++) {
        const alloc_row *r = &arows[a];
        if (!r->failed && (r->wrong || r->check_rc || r->st.evictions ||
                           r->st.compr_data_size != sm->lzo_kept_bytes ||
                           r->st.stored_pages - r->st.same_filled_pages !=
                               sm->lzo_kept_pages))
            printf("  PROBLEM %s: %zu pages wrong, check %s, %" PRIu64
                   " evictions with room for all, %" PRIu64
                   " compressed bytes held (liblzo2 sizes: %" PRIu64 ")\n",
                   r->name, r->wrong, zc_strerror(r->check_rc), r->st.evictions,
                   r->st.compr_data_size, sm->lzo_kept_bytes);
    }
}

static void report_csv(const page_set *ps, const comp_row *rows, size_t nrows,
                       const lzo_direct *ld, const alloc_row *arows,
                       size_t narows, const summary *sm)
{
    uint64_t bytes = (uint64_t)ps->n * ps->page_size;
    const comp_row *base =
        sm->lzo_row != (size_t)-1 ? &rows[sm->lzo_row] : NULL;
    double base_put = base ? mb_per_s(bytes, base->put.median) : 0;
    double base_get = base ? mb_per_s(bytes, base->get.median) : 0;
    double best = rows[sm->best_row].ratio;

    printf("table,compressor,level,pages,nonsame_pages,orig_bytes,"
           "stored_bytes,ratio,ratio_vs_best,raw_pages,half_share,put_mb_s,"
           "put_vs_lzo,put_spread_pct,get_mb_s,get_vs_lzo,get_spread_pct,"
           "status\n");
    for (size_t k = 0; k < nrows; k++) {
        const comp_row *r = &rows[k];
        double put, get;
        if (!r->valid || r->failed) {
            printf("compressor,%s,%d,%zu,,,,,,,,,,,,,,%s\n", r->name, r->level,
                   ps->n, r->valid ? "failed" : "level_refused");
            continue;
        }
        put = mb_per_s(bytes, r->put.median);
        get = mb_per_s(bytes, r->get.median);
        printf("compressor,%s,%d,%zu,%" PRIu64 ",%" PRIu64 ",%" PRIu64
               ",%.4f,%.4f,%" PRIu64 ",%.4f,%.1f,%.4f,%.1f,%.1f,%.4f,%.1f,%s\n",
               r->name, r->level, ps->n, sm->nonsame,
               sm->nonsame * ps->page_size, r->st.compr_data_size, r->ratio,
               safe_div(r->ratio, best), r->st.raw_pages, r->half_share, put,
               safe_div(put, base_put), spread_pct(r->put), get,
               safe_div(get, base_get), spread_pct(r->get),
               r->misses || r->wrong || r->check_rc ? "wrong" : "ok");
    }
    {
        double put = mb_per_s(bytes, ld->comp.median);
        double get = mb_per_s(bytes, ld->dec.median);
        double ratio = safe_div((double)(sm->nonsame * ps->page_size),
                                (double)ld->stored_bytes);
        printf("compressor,lzo1x_1_direct,1,%zu,%" PRIu64 ",%" PRIu64
               ",%" PRIu64 ",%.4f,%.4f,,%.4f,%.1f,%.4f,%.1f,%.1f,%.4f,%.1f,"
               "ok\n",
               ps->n, sm->nonsame, sm->nonsame * ps->page_size,
               ld->stored_bytes, ratio, safe_div(ratio, best),
               safe_div((double)ld->nonsame_le_half, (double)ld->nonsame), put,
               safe_div(put, base_put), spread_pct(ld->comp), get,
               safe_div(get, base_get), spread_pct(ld->dec));
    }
    printf("\ntable,allocator,stored_pages,compr_data_size,mem_used_total,"
           "frames,ideal_frames,density,ideal_density,density_vs_ideal,"
           "frag,meta_per_page,meta_empty,tight_capacity,tight_samples,"
           "tight_held_mean,tight_density_mean,tight_density_vs_ideal_mean,"
           "tight_evictions,tight_rejected,status\n");
    for (size_t a = 0; a < narows; a++) {
        const alloc_row *r = &arows[a];
        const zc_stats *s = &r->st;
        double dens, ideal_d;
        if (r->failed) {
            printf("allocator,%s,,,,,,,,,,,,,,,,,,,failed\n", r->name);
            continue;
        }
        dens = safe_div((double)s->compr_data_size, (double)s->mem_used_total);
        ideal_d = safe_div((double)s->compr_data_size,
                           (double)(r->ideal_frames * ps->page_size));
        printf("allocator,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
               ",%" PRIu64 ",%.4f,%.4f,%.4f,%.4f,%.2f,%" PRIu64 ",%" PRIu64
               ",%zu,%.1f,%.4f,%.4f,%" PRIu64 ",%" PRIu64 ",%s\n",
               r->name, s->stored_pages, s->compr_data_size, s->mem_used_total,
               s->mem_used_total / ps->page_size, r->ideal_frames, dens,
               ideal_d, safe_div(dens, ideal_d),
               safe_div((double)s->frag_bytes, (double)s->mem_used_total),
               safe_div((double)(s->meta_bytes - s->work_bytes),
                        (double)s->stored_pages),
               r->meta_empty, sm->tight_capacity, r->samples, r->held_mean,
               r->density_mean, r->vs_ideal_mean, r->st_tight.evictions,
               r->st_tight.reject_nospace + r->st_tight.reject_compress_poor,
               r->wrong || r->check_rc ? "wrong" : "ok");
    }
}

/* ------------------------------------------------------------------------
 * main
 * ------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    zc_config defaults = zc_config_default();
    size_t page_size = defaults.page_size;
    size_t accept_bytes = page_size * defaults.accept_percent / 100;
    bench_opts o;
    page_set ps;
    src_dir *dirs;
    comp_row *rows;
    alloc_row *arows;
    size_t nrows, narows = 0;
    lzo_direct ld;
    summary sm;
    uint8_t *scratch;
    int status = 0;

    /* Keep memory freed by one run's caches for the next (see above). */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    bench_prog = BENCH_NAME;
    parse_args(argc, argv, &o, page_size);

    dirs = pages_collect(o.dirs, o.ndirs, o.pages, page_size, &ps);
    if (ps.n == 0)
        bench_die("no pages collected");
    if (ps.n < o.pages)
        fprintf(stderr, BENCH_NAME ": only %zu pages found, using them all\n",
                ps.n);
    pages_survey(&ps, dirs, accept_bytes);
    scratch = bench_xmalloc(page_size);

    memset(&sm, 0, sizeof sm);
    sm.lzo_row = (size_t)-1;
    for (size_t i = 0; i < ps.n; i++) {
        bool kept = !ps.same[i] && ps.lzo_len[i] <= accept_bytes;
        sm.same += ps.same[i] != 0;
        sm.nonsame += ps.same[i] == 0;
        sm.lzo_kept_bytes += kept ? ps.lzo_len[i] : 0;
        sm.lzo_kept_pages += kept;
    }
    sm.ideal_all = sm.lzo_kept_bytes + sm.lzo_kept_pages * BENCH_OBJ_HDR;

    /* Table 1: the rows, their configurations, the interleaved runs. */
    rows = comp_rows(&nrows);
    if (nrows == 0)
        bench_die("the library registers no compressor");
    for (size_t k = 0; k < nrows; k++) {
        comp_row *r = &rows[k];
        r->keep.capacity_bytes = 2 * ps.n * page_size;
        r->keep.accept_percent = 100;
        r->keep.store_raw = true;
        r->keep.exclusive_gets = false;
        r->half = r->keep;
        r->half.accept_percent = defaults.accept_percent;
        r->half.store_raw = false;
        r->t_put = bench_xcalloc(o.runs, sizeof *r->t_put);
        r->t_get = bench_xcalloc(o.runs, sizeof *r->t_get);
        if (r->valid && strcmp(r->name, "lzo") == 0 && r->level == 1)
            sm.lzo_row = k;
    }
    lzo_direct_init(&ld, &ps, o.runs, accept_bytes);
    for (unsigned run = 0; run < o.runs; run++) {
        lzo_direct_run(&ld, &ps, run, scratch);
        for (size_t k = 0; k < nrows; k++)
            if (rows[k].valid && !rows[k].failed)
                comp_run(&rows[k], &ps, run, run + 1 == o.runs, scratch);
    }
    ld.comp = summarize(ld.t_comp, o.runs);
    ld.dec = summarize(ld.t_dec, o.runs);
    for (size_t k = 0; k < nrows; k++) {
        comp_row *r = &rows[k];
        if (!r->valid || r->failed)
            continue;
        r->put = summarize(r->t_put, o.runs);
        r->get = summarize(r->t_get, o.runs);
        comp_half(r, &ps, scratch);
        r->ratio = safe_div((double)(sm.nonsame * page_size),
                            (double)r->st.compr_data_size);
        if (!rows[sm.best_row].valid || rows[sm.best_row].failed ||
            r->ratio > rows[sm.best_row].ratio)
            sm.best_row = k;
        if (r->failed || r->misses || r->wrong || r->check_rc)
            status = 1;
    }
    if (!rows[sm.best_row].valid || rows[sm.best_row].failed)
        bench_die("no compressor could be measured");

    /* Table 2. */
    while (zc_backend_name(ZC_BACKEND_ALLOCATOR, narows))
        narows++;
    if (narows == 0)
        bench_die("the library registers no allocator");
    arows = bench_xcalloc(narows, sizeof *arows);
    sm.tight_capacity =
        frames_for(sm.ideal_all / BENCH_TIGHT_DIV, page_size) * page_size;
    for (size_t a = 0; a < narows; a++) {
        alloc_row *r = &arows[a];
        zc_config cfg = zc_config_default();
        char spec[160];
        r->name = zc_backend_name(ZC_BACKEND_ALLOCATOR, a);
        snprintf(spec, sizeof spec, "compressor=lzo,allocator=%s", r->name);
        if (zc_config_parse_error(&cfg, spec, r->error, sizeof r->error)) {
            r->failed = true;
            status = 1;
            continue;
        }
        cfg.capacity_bytes = ps.n * page_size;
        cfg.exclusive_gets = false;
        alloc_roomy(r, &cfg, &ps, scratch);
        cfg.capacity_bytes = sm.tight_capacity;
        if (!r->failed)
            alloc_tight(r, &cfg, &ps);
        if (r->failed || r->wrong || r->check_rc)
            status = 1;
    }

    if (o.csv)
        report_csv(&ps, rows, nrows, &ld, arows, narows, &sm);
    else
        report_text(&o, &ps, dirs, rows, nrows, &ld, arows, narows, &sm,
                    accept_bytes);

    for (size_t k = 0; k < nrows; k++) {
        free(rows[k].t_put);
        free(rows[k].t_get);
    }
    free(rows);
    free(arows);
    lzo_direct_free(&ld);
    free(scratch);
    pages_free(&ps, dirs, o.ndirs);
    free(o.dirs);
    return status;
}
