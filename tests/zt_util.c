/*
 * zt_util.c - helpers shared by the libzcache test programs (see zt_util.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _GNU_SOURCE /* program_invocation_short_name, for temp dir names */
#include "zt_util.h"

#include <errno.h>
#include <ftw.h>
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <lzo/lzo1x.h>
#include <zstd.h>

#ifndef ZC_SOURCE_DIR
#define ZC_SOURCE_DIR "."
#endif
/* The system sources of real pages (overridable to test the fallbacks). */
#ifndef ZT_INCLUDE_DIR
#define ZT_INCLUDE_DIR "/usr/include"
#endif
#ifndef ZT_LIB_GLOB
#define ZT_LIB_GLOB "/usr/lib/x86_64-linux-gnu/*.so*"
#endif

/* ------------------------------------------------------------------ PRNG */

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

void zt_rng_seed(zt_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) {
        seed = zt_mix64(seed);
        r->s[i] = seed;
    }
    if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3]))
        r->s[0] = 1;
}

uint64_t zt_rng_next(zt_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t zt_rng_below(zt_rng *r, uint64_t n)
{
    /* Lemire's multiply-shift; the tiny bias is irrelevant here. */
    return (uint64_t)(((unsigned __int128)zt_rng_next(r) * n) >> 64);
}

void zt_rng_fill(zt_rng *r, void *buf, size_t len)
{
    unsigned char *p = buf;
    while (len >= 8) {
        uint64_t v = zt_rng_next(r);
        memcpy(p, &v, 8);
        p += 8;
        len -= 8;
    }
    if (len) {
        uint64_t v = zt_rng_next(r);
        memcpy(p, &v, len);
    }
}

/* --------------------------------------------------------- page contents */

void zt_fill_word(void *page, size_t page_size, uint64_t word)
{
    unsigned char *p = page;
    for (size_t off = 0; off < page_size; off += 8)
        memcpy(p + off, &word, 8);
}

void zt_fill_random(void *page, size_t page_size, uint64_t seed)
{
    zt_rng r;
    zt_rng_seed(&r, seed);
    zt_rng_fill(&r, page, page_size);
}

bool zt_is_same_filled(const void *page, size_t page_size)
{
    const unsigned char *p = page;
    uint64_t w0, w;
    memcpy(&w0, p, 8);
    for (size_t off = 8; off < page_size; off += 8) {
        memcpy(&w, p + off, 8);
        if (w != w0)
            return false;
    }
    return true;
}

/* ---------------------------------------------------------------- corpus */

#define ZT_CORPUS_MAX_PAGES 4096
#define ZT_PAGES_PER_FILE 8

static zt_corpus g_corpus;
static bool g_corpus_loaded;

typedef struct path_list {
    char **v;
    size_t n, cap;
} path_list;

static path_list *g_walk_list;

static void path_list_add(path_list *l, const char *p)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 256;
        l->v = realloc(l->v, l->cap * sizeof(*l->v));
        if (!l->v)
            abort();
    }
    l->v[l->n] = strdup(p);
    if (!l->v[l->n])
        abort();
    l->n++;
}

static void path_list_free(path_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof(*l));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int walk_cb(const char *path, const struct stat *st, int flag,
                   struct FTW *ftw)
{
    (void)ftw;
    if (flag == FTW_F && S_ISREG(st->st_mode) && st->st_size > 0 &&
        !strstr(path, "/.git/"))
        path_list_add(g_walk_list, path);
    return 0;
}

static void walk_tree(const char *root, path_list *out)
{
    g_walk_list = out;
    nftw(root, walk_cb, 32, FTW_PHYS);
    g_walk_list = NULL;
    if (out->n)
        qsort(out->v, out->n, sizeof(*out->v), cmp_str);
}

/* Append up to ZT_PAGES_PER_FILE pages of each file, until the corpus holds
 * limit pages. */
static void corpus_add_files(const path_list *l, size_t limit)
{
    for (size_t i = 0; i < l->n && g_corpus.len / 4096 < limit; i++) {
        FILE *f = fopen(l->v[i], "rb");
        if (!f)
            continue;
        size_t room = (limit - g_corpus.len / 4096);
        if (room > ZT_PAGES_PER_FILE)
            room = ZT_PAGES_PER_FILE;
        unsigned char *dst = g_corpus.bytes + g_corpus.len;
        size_t got = fread(dst, 1, room * 4096, f);
        fclose(f);
        if (got == 0)
            continue;
        size_t pages = (got + 4095) / 4096;
        memset(dst + got, 0, pages * 4096 - got); /* page-cache zero fill */
        g_corpus.len += pages * 4096;
        g_corpus.files++;
    }
}

const zt_corpus *zt_corpus_get(void)
{
    if (g_corpus_loaded)
        return &g_corpus;
    g_corpus.bytes = malloc((size_t)ZT_CORPUS_MAX_PAGES * 4096);
    if (!g_corpus.bytes)
        abort();

    path_list l = {0};
    walk_tree(ZT_INCLUDE_DIR, &l);
    corpus_add_files(&l, ZT_CORPUS_MAX_PAGES / 2);
    path_list_free(&l);

    glob_t g;
    if (glob(ZT_LIB_GLOB, 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++) {
            struct stat st;
            /* Regular files only: skip the symlinks to the same objects. */
            if (lstat(g.gl_pathv[i], &st) == 0 && S_ISREG(st.st_mode))
                path_list_add(&l, g.gl_pathv[i]);
        }
        globfree(&g);
    }
    corpus_add_files(&l, ZT_CORPUS_MAX_PAGES);
    path_list_free(&l);

    if (g_corpus.len / 4096 < ZT_CORPUS_MAX_PAGES) {
        walk_tree(ZC_SOURCE_DIR, &l);
        corpus_add_files(&l, ZT_CORPUS_MAX_PAGES);
        path_list_free(&l);
    }
    if (g_corpus.len < 16 * 65536) {
        /* Not even a source tree: synthesize text-like pages so the tests
         * still run (they never depend on a system directory existing). */
        zt_rng r;
        zt_rng_seed(&r, 42);
        static const char *words[] = {
            "static", "int", "return", "struct", "zc_cache", "page",  "(",
            ");\n",   "{",   "}\n",    "const",  "void *",   "size_t"};
        while (g_corpus.len < 16 * 65536) {
            const char *w = words[zt_rng_below(&r, 13)];
            size_t wl = strlen(w);
            for (size_t k = 0; k < wl && g_corpus.len < 16 * 65536; k++)
                g_corpus.bytes[g_corpus.len++] = (unsigned char)w[k];
            if (g_corpus.len < 16 * 65536)
                g_corpus.bytes[g_corpus.len++] = ' ';
        }
    }
    g_corpus_loaded = true;
    return &g_corpus;
}

size_t zt_corpus_pages(size_t page_size)
{
    return zt_corpus_get()->len / page_size;
}

const unsigned char *zt_corpus_page(size_t page_size, size_t i)
{
    const zt_corpus *c = zt_corpus_get();
    size_t n = c->len / page_size;
    return c->bytes + (i % n) * page_size;
}

/* ------------------------------------------------------------------- LZO */

size_t zt_lzo_size(const void *page, size_t len)
{
    static _Thread_local lzo_align_t
        wrk[(LZO1X_1_MEM_COMPRESS + sizeof(lzo_align_t) - 1) /
            sizeof(lzo_align_t)];
    static _Thread_local unsigned char out[65536 + 65536 / 16 + 64 + 3];
    static _Thread_local bool inited;
    if (!inited) {
        if (lzo_init() != LZO_E_OK)
            abort();
        inited = true;
    }
    if (len > 65536)
        abort();
    lzo_uint out_len = sizeof(out);
    if (lzo1x_1_compress(page, len, out, &out_len, wrk) != LZO_E_OK)
        abort();
    return out_len;
}

/* ---------------------------------------------------------------- checks */

void zt_assert_stats_sane(const zc_stats *s, size_t page_size, size_t capacity)
{
    uint64_t gone =
        s->invalidates + s->evictions + s->replaced + s->exclusive_drops;
    /* stored_pages == stored_puts - invalidates - evictions - replaced -
     * exclusive_drops (written without unsigned wrap-around). */
    assert_int_equal(s->stored_pages + gone, s->stored_puts);
    assert_int_equal(s->orig_data_size, s->stored_pages * page_size);
    assert_true(s->arena_bytes <= capacity);
    assert_true(s->mem_used_total <= s->arena_bytes);
    assert_true(s->same_filled_pages <= s->stored_pages);
    assert_true(s->raw_pages <= s->stored_pages);
    assert_true(s->raw_pages * page_size <= s->compr_data_size);
    assert_true(s->stored_puts <= s->puts);
    assert_true(s->stored_puts + s->reject_compress_poor + s->reject_nospace +
                    s->reject_race + s->reject_full + s->reject_inactive ==
                s->puts);
    assert_true(s->objects <= s->stored_pages);
    assert_true(s->raw_stored <= s->stored_puts);
    assert_true(s->frag_bytes <= s->mem_used_total);
    assert_true(s->shared_pages <= s->stored_pages);
    /* meta_bytes is split three ways, work space among the fixed bytes. */
    assert_int_equal(s->meta_page_bytes + s->meta_file_bytes +
                         s->meta_fixed_bytes,
                     s->meta_bytes);
    assert_true(s->work_bytes <= s->meta_fixed_bytes);
}

void zt_assert_cache_sane(const zc_cache *c, size_t page_size, size_t capacity)
{
    zc_stats s;
    assert_int_equal(zc_stats_get(c, &s), 0);
    zt_assert_stats_sane(&s, page_size, capacity);
    assert_int_equal(zc_cache_check(c), 0);
}

zc_cache *zt_cache_new(const char *spec, zc_config *cfg_out)
{
    zc_config cfg = zc_config_default();
    char err[256] = "";
    int rc = zc_config_parse_error(&cfg, spec, err, sizeof(err));
    if (rc != 0)
        print_message("zt_cache_new: spec \"%s\": %s\n", spec, err);
    assert_int_equal(rc, 0);
    zc_cache *c = NULL;
    assert_int_equal(zc_cache_create(&cfg, &c), 0);
    assert_non_null(c);
    if (cfg_out)
        *cfg_out = cfg;
    return c;
}

uint64_t zt_env_u64(const char *name, uint64_t def)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return def;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 0);
    if (errno || *end)
        return def;
    return x;
}

/* ---- temporary files ---------------------------------------------------- */

static char g_tmpdir[256];
static char **g_tmp_paths; /* every path zt_tmp_path() gave */
static size_t g_tmp_n, g_tmp_cap;

int zt_tmpdir_setup(void **state)
{
    const char *base = getenv("TMPDIR"), *name = program_invocation_short_name;

    (void)state;
    snprintf(g_tmpdir, sizeof(g_tmpdir), "%s/%s_XXXXXX",
             base && *base ? base : "/tmp", name);
    if (mkdtemp(g_tmpdir))
        return 0;
    /* cmocka only says the group setup failed: say why */
    fprintf(stderr,
            "%s: cannot make a scratch directory %s: %s (set TMPDIR "
            "to a writable directory)\n",
            name, g_tmpdir, strerror(errno));
    return -1;
}

const char *zt_tmpdir(void)
{
    return g_tmpdir;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int zt_tmpdir_teardown(void **state)
{
    (void)state;
    for (size_t i = 0; i < g_tmp_n; i++)
        free(g_tmp_paths[i]);
    free(g_tmp_paths);
    g_tmp_paths = NULL;
    g_tmp_n = g_tmp_cap = 0;
    /* Files the library made there too (a writer's pack, say). */
    return nftw(g_tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const char *zt_tmp_path(const char *name)
{
    size_t len = strlen(g_tmpdir) + strlen(name) + 2;
    char *p = malloc(len);

    assert_non_null(p);
    snprintf(p, len, "%s/%s", g_tmpdir, name);
    for (size_t i = 0; i < g_tmp_n; i++)
        if (strcmp(g_tmp_paths[i], p) == 0) {
            free(p);
            return g_tmp_paths[i];
        }
    if (g_tmp_n == g_tmp_cap) {
        size_t cap = g_tmp_cap ? 2 * g_tmp_cap : 64;
        char **t = realloc(g_tmp_paths, cap * sizeof(*t));
        assert_non_null(t);
        g_tmp_paths = t;
        g_tmp_cap = cap;
    }
    g_tmp_paths[g_tmp_n++] = p;
    return p;
}

void zt_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");

    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

const char *zt_write_tmp(const char *name, const void *data, size_t len)
{
    const char *path = zt_tmp_path(name);

    zt_write_file(path, data, len);
    return path;
}

unsigned char *zt_zstd_frame(const void *data, size_t len, int checksum,
                             size_t *zlen)
{
    size_t cap = ZSTD_compressBound(len);
    unsigned char *z = malloc(cap);
    ZSTD_CCtx *cc = ZSTD_createCCtx();

    assert_non_null(z);
    assert_non_null(cc);
    assert_false(ZSTD_isError(
        ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, checksum)));
    *zlen = ZSTD_compress2(cc, z, cap, data, len);
    assert_false(ZSTD_isError(*zlen));
    ZSTD_freeCCtx(cc);
    return z;
}

unsigned char *zt_zstd(const void *data, size_t len, size_t *zlen)
{
    /* with the content checksum, as zstd(1) and the writers make frames
     * (an access stream's reader refuses a frame without one) */
    return zt_zstd_frame(data, len, 1, zlen);
}

unsigned char *zt_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf;
    long n;

    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    assert_true(n >= 0);
    rewind(f);
    buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}
