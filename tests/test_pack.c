/*
 * test_pack.c - content packs (.zcp): round trips with duplicates, the key
 * map, random access across blocks, damaged and truncated files, a failed
 * writer, and the content source "pack:FILE" with zc_content_file_page().
 *
 * Expected values come from the test's own pages, never from the library:
 * each distinct content must come back byte for byte under the id it was
 * first given, and every key under the content last mapped to it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "zcache_sim.h"
#include "zt_util.h"

#define PS 4096

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Page `v` of a small universe of contents: zero, same-filled, real file
 * pages and random ones, so that duplicates are many and of every kind. */
static void universe_page(uint64_t v, unsigned char *pg)
{
    switch (v % 4) {
    case 0: zt_fill_word(pg, PS, v % 8 ? zt_mix64(v) : 0); break;
    case 1: memcpy(pg, zt_corpus_page(PS, v % zt_corpus_pages(PS)), PS); break;
    default: zt_fill_random(pg, PS, v); break;
    }
}

/* The universe value behind each distinct id, in order of first use. */
struct expect {
    uint64_t *value_of_id;
    uint64_t nids;
};

/* Add n pages drawn from a universe of u values; check ids are equal for
 * equal contents and new ids come in order. */
static void add_pages(zc_pack_writer *w, zt_rng *g, size_t n, uint64_t u,
                      struct expect *e, int64_t *id_of_value)
{
    unsigned char pg[PS];

    for (size_t i = 0; i < n; i++) {
        uint64_t v = zt_rng_below(g, u), id;
        universe_page(v, pg);
        assert_int_equal(zc_pack_add(w, pg, &id), 0);
        if (id_of_value[v] < 0) {
            /* Distinct universe values can share a content (same fill
             * words): then the id is an older one. */
            if (id == e->nids) {
                e->value_of_id[e->nids++] = v;
            } else {
                unsigned char old[PS];
                assert_true(id < e->nids);
                universe_page(e->value_of_id[id], old);
                assert_memory_equal(old, pg, PS);
            }
            id_of_value[v] = (int64_t)id;
        } else {
            assert_int_equal(id, (uint64_t)id_of_value[v]);
        }
    }
}

static void test_duplicates_are_stored_once_and_read_back(void **state)
{
    const char *p = zt_tmp_path("dup.zcp");
    enum { U = 600, N = 5000 };
    int64_t id_of_value[U];
    struct expect e = {calloc(U, sizeof(uint64_t)), 0};
    zc_pack_writer *w;
    zc_pack *pk;
    unsigned char pg[PS], want[PS];
    zt_rng g;
    size_t size;
    char err[256];
    (void)state;

    for (int i = 0; i < U; i++)
        id_of_value[i] = -1;
    zt_rng_seed(&g, 7);
    assert_int_equal(zc_pack_writer_open(p, PS, 3, &w, err, sizeof(err)), 0);
    assert_string_equal(zc_pack_writer_path(w), p);
    add_pages(w, &g, N, U, &e, id_of_value);
    assert_int_equal(zc_pack_writer_close(w, err, sizeof(err)), 0);

    assert_int_equal(zc_pack_open(p, &pk, err, sizeof(err)), 0);
    assert_int_equal(zc_pack_page_size(pk), PS);
    assert_int_equal(zc_pack_contents(pk), e.nids);
    assert_int_equal(zc_pack_keys(pk), 0);
    /* Every distinct content once: far less than N pages, and even less
     * than the distinct random pages alone, stored raw, would take. */
    free(zt_read_file(p, &size));
    assert_true(size < (e.nids / 2 + 100) * PS);
    assert_true(e.nids > 300 && e.nids <= U);
    /* In order, then in random order across blocks. */
    for (uint64_t id = 0; id < e.nids; id++) {
        assert_int_equal(zc_pack_page(pk, id, pg), 0);
        universe_page(e.value_of_id[id], want);
        assert_memory_equal(pg, want, PS);
    }
    for (int i = 0; i < 3000; i++) {
        uint64_t id = zt_rng_below(&g, e.nids);
        assert_int_equal(zc_pack_page(pk, id, pg), 0);
        universe_page(e.value_of_id[id], want);
        assert_memory_equal(pg, want, PS);
    }
    assert_int_equal(zc_pack_page(pk, e.nids, pg), -ZC_EINVAL);
    assert_int_equal(zc_pack_page(pk, UINT64_MAX, pg), -ZC_EINVAL);
    zc_pack_close(pk);
    free(e.value_of_id);
}

/* Duplicates of contents in blocks already written are found too (the
 * writer reads them back): a second pass adds nothing. */
static void test_duplicates_of_written_blocks_get_their_old_ids(void **state)
{
    const char *p = zt_tmp_path("old.zcp");
    zc_pack_writer *w;
    zc_pack *pk;
    unsigned char pg[PS];
    uint64_t id;
    (void)state;

    assert_int_equal(zc_pack_writer_open(p, PS, 1, &w, NULL, 0), 0);
    for (int pass = 0; pass < 2; pass++)
        for (uint64_t v = 0; v < 500; v++) {
            zt_fill_random(pg, PS, v);
            assert_int_equal(zc_pack_add(w, pg, &id), 0);
            assert_int_equal(id, v);
        }
    assert_int_equal(zc_pack_writer_close(w, NULL, 0), 0);
    assert_int_equal(zc_pack_open(p, &pk, NULL, 0), 0);
    assert_int_equal(zc_pack_contents(pk), 500);
    zc_pack_close(pk);
}

static void test_key_map_lookups_and_remapping(void **state)
{
    const char *p = zt_tmp_path("map.zcp");
    zc_pack_writer *w;
    zc_pack *pk;
    unsigned char pg[PS], want[PS];
    uint64_t id, id2;
    (void)state;

    assert_int_equal(zc_pack_writer_open(p, PS, 0, &w, NULL, 0), 0);
    /* block device 8:16 pages 0..299, file pages of inodes 12 and 13 */
    for (uint64_t i = 0; i < 300; i++) {
        zt_fill_random(pg, PS, 1000 + i);
        assert_int_equal(zc_pack_map(w, 8 << 20 | 16, 0, i, pg, NULL), 0);
        universe_page(i, pg);
        assert_int_equal(zc_pack_map(w, 42, 12 + i % 2, i / 2, pg, &id), 0);
    }
    /* remapping: key (42, 12, 0) takes a new content, then an old one */
    zt_fill_word(pg, PS, 0x1234);
    assert_int_equal(zc_pack_map(w, 42, 12, 0, pg, &id), 0);
    zt_fill_random(pg, PS, 1005);
    assert_int_equal(zc_pack_map(w, 42, 13, 0, pg, &id2), 0);
    assert_int_equal(zc_pack_writer_close(w, NULL, 0), 0);

    assert_int_equal(zc_pack_open(p, &pk, NULL, 0), 0);
    assert_int_equal(zc_pack_keys(pk), 600);
    for (uint64_t i = 0; i < 300; i++) {
        assert_int_equal(zc_pack_lookup(pk, 8 << 20 | 16, 0, i, &id), 0);
        assert_int_equal(zc_pack_page(pk, id, pg), 0);
        zt_fill_random(want, PS, 1000 + i);
        assert_memory_equal(pg, want, PS);
    }
    assert_int_equal(zc_pack_lookup(pk, 42, 12, 0, &id), 0);
    assert_int_equal(zc_pack_page(pk, id, pg), 0);
    zt_fill_word(want, PS, 0x1234);
    assert_memory_equal(pg, want, PS);
    assert_int_equal(zc_pack_lookup(pk, 42, 13, 0, &id), 0);
    assert_int_equal(id, id2);
    assert_int_equal(zc_pack_lookup(pk, 8 << 20 | 16, 0, 5, &id2), 0);
    assert_int_equal(id, id2); /* the same bytes as block page 5 */
    assert_int_equal(zc_pack_lookup(pk, 42, 12, 2, &id), 0);
    assert_int_equal(zc_pack_page(pk, id, pg), 0);
    universe_page(4, want);
    assert_memory_equal(pg, want, PS);
    /* missing keys */
    assert_int_equal(zc_pack_lookup(pk, 8 << 20 | 16, 0, 300, &id), -ZC_ENOENT);
    assert_int_equal(zc_pack_lookup(pk, 8 << 20 | 17, 0, 0, &id), -ZC_ENOENT);
    assert_int_equal(zc_pack_lookup(pk, 42, 14, 0, &id), -ZC_ENOENT);
    assert_int_equal(zc_pack_lookup(pk, 0, 0, 0, &id), -ZC_ENOENT);
    assert_int_equal(
        zc_pack_lookup(pk, UINT32_MAX, UINT64_MAX, UINT64_MAX, &id),
        -ZC_ENOENT);
    zc_pack_close(pk);
}

/* A small pack: 140 contents in three blocks, 20 keys. */
static void small_pack(const char *p)
{
    zc_pack_writer *w;
    unsigned char pg[PS];

    assert_int_equal(zc_pack_writer_open(p, PS, 1, &w, NULL, 0), 0);
    for (uint64_t i = 0; i < 140; i++) {
        zt_fill_word(pg, PS, i * 0x0101010101010101ull);
        pg[i] = 7;
        if (i % 7 == 0)
            assert_int_equal(zc_pack_map(w, 1, i % 3, i, pg, NULL), 0);
        else
            assert_int_equal(zc_pack_add(w, pg, NULL), 0);
    }
    assert_int_equal(zc_pack_writer_close(w, NULL, 0), 0);
}

/* Open and read every page: 0, or the first error (with a message naming
 * the file and an offset). */
static int open_and_read_all(const char *path, char *msg, size_t len)
{
    zc_pack *pk;
    unsigned char pg[PS];
    int rc = zc_pack_open(path, &pk, msg, len);

    if (rc)
        return rc;
    for (uint64_t id = 0; !rc && id < zc_pack_contents(pk); id++)
        if ((rc = zc_pack_page(pk, id, pg)))
            snprintf(msg, len, "%s", zc_pack_error(pk));
    zc_pack_close(pk);
    return rc;
}

static void test_every_truncation_fails_cleanly(void **state)
{
    const char *full = zt_tmp_path("full.zcp"), *cut = zt_tmp_path("cut.zcp");
    unsigned char *b;
    size_t n;
    char msg[512];
    (void)state;

    small_pack(full);
    b = zt_read_file(full, &n);
    assert_int_equal(open_and_read_all(full, msg, sizeof(msg)), 0);
    for (size_t len = 0; len < n; len++) {
        zt_write_file(cut, b, len);
        assert_int_equal(open_and_read_all(cut, msg, sizeof(msg)), -ZC_EFORMAT);
        assert_non_null(strstr(msg, cut));
        assert_non_null(strstr(msg, "offset"));
        assert_null(strchr(msg, '\n'));
    }
    free(b);
}

/* A flipped bit is found, or changes nothing: a zstd frame may hold bits
 * its decoder never uses (padding, an unused Huffman weight); then every
 * page and key must read back as before. */
static void test_bit_flips_are_detected(void **state)
{
    const char *full = zt_tmp_path("flip.zcp"), *bad = zt_tmp_path("bad.zcp");
    unsigned char *b, *good, pg[PS];
    size_t n, harmless = 0;
    uint64_t nc, id, id2;
    char msg[512];
    zc_pack *pk, *gp;
    (void)state;

    small_pack(full);
    b = zt_read_file(full, &n);
    assert_int_equal(zc_pack_open(full, &gp, NULL, 0), 0);
    nc = zc_pack_contents(gp);
    good = malloc(nc * PS);
    for (id = 0; id < nc; id++)
        assert_int_equal(zc_pack_page(gp, id, good + id * PS), 0);
    for (size_t i = 0; i < n; i++)
        for (int bit = 0; bit < 8; bit += 3) {
            b[i] ^= (unsigned char)(1 << bit);
            zt_write_file(bad, b, n);
            b[i] ^= (unsigned char)(1 << bit);
            if (open_and_read_all(bad, msg, sizeof(msg)) == -ZC_EFORMAT) {
                assert_non_null(strstr(msg, bad));
                continue;
            }
            harmless++;
            assert_int_equal(zc_pack_open(bad, &pk, NULL, 0), 0);
            assert_int_equal(zc_pack_contents(pk), nc);
            for (id = 0; id < nc; id++) {
                assert_int_equal(zc_pack_page(pk, id, pg), 0);
                assert_memory_equal(pg, good + id * PS, PS);
            }
            for (uint64_t k = 0; k < 140; k += 7) {
                assert_int_equal(zc_pack_lookup(pk, 1, k % 3, k, &id), 0);
                assert_int_equal(zc_pack_lookup(gp, 1, k % 3, k, &id2), 0);
                assert_int_equal(id, id2);
            }
            zc_pack_close(pk);
        }
    assert_true(harmless < n / 50);
    zc_pack_close(gp);
    free(good);
    free(b);
}

static void test_not_a_pack(void **state)
{
    char msg[512];
    zc_pack *pk;
    (void)state;

    zt_write_file(zt_tmp_path("e.zcp"), "", 0);
    assert_int_equal(zc_pack_open(zt_tmp_path("e.zcp"), &pk, msg, sizeof(msg)),
                     -ZC_EFORMAT);
    zt_write_file(zt_tmp_path("t.zcp"),
                  "hello, world, this is not a pack at all\n", 40);
    assert_int_equal(zc_pack_open(zt_tmp_path("t.zcp"), &pk, msg, sizeof(msg)),
                     -ZC_EFORMAT);
    assert_non_null(strstr(msg, "not a content pack"));
    assert_int_equal(
        zc_pack_open(zt_tmp_path("missing.zcp"), &pk, msg, sizeof(msg)),
        -ZC_EIO);
    assert_non_null(strstr(msg, "missing.zcp"));
    assert_int_equal(zc_pack_open(zt_tmpdir(), &pk, msg, sizeof(msg)), -ZC_EIO);
}

static void test_a_failed_writer_leaves_no_file(void **state)
{
    const char *p = zt_tmp_path("fail.zcp");
    zc_pack_writer *w;
    unsigned char pg[PS];
    char err[256];
    (void)state;

    /* bad arguments */
    assert_int_equal(zc_pack_writer_open("-", PS, 0, &w, err, sizeof(err)),
                     -ZC_EINVAL);
    assert_int_equal(zc_pack_writer_open(p, 1000, 0, &w, err, sizeof(err)),
                     -ZC_EINVAL);
    assert_int_equal(zc_pack_writer_open(p, PS, 99, &w, err, sizeof(err)),
                     -ZC_EINVAL);
    assert_false(exists(p));
    assert_int_equal(zc_pack_writer_open(zt_tmp_path("no/such/dir.zcp"), PS, 0,
                                         &w, err, sizeof(err)),
                     -ZC_EIO);
    assert_non_null(strstr(err, "no/such/dir.zcp"));

    /* A file size limit fails the writes (EFBIG, SIGXFSZ ignored): the
     * close reports it and removes what was written. */
    {
        struct rlimit old, lim;
        void (*oldsig)(int) = signal(SIGXFSZ, SIG_IGN);
        int rc = 0;
        assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
        assert_int_equal(zc_pack_writer_open(p, PS, 1, &w, NULL, 0), 0);
        lim = old;
        lim.rlim_cur = 64 << 10;
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
        for (uint64_t i = 0; i < 2000 && rc == 0; i++) {
            zt_fill_random(pg, PS, i);
            rc = zc_pack_add(w, pg, NULL);
        }
        assert_int_equal(rc, -ZC_EIO);
        assert_int_equal(zc_pack_add(w, pg, NULL), -ZC_EIO); /* sticky */
        assert_int_equal(zc_pack_writer_close(w, err, sizeof(err)), -ZC_EIO);
        assert_non_null(strstr(err, p));
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
        signal(SIGXFSZ, oldsig);
        assert_false(exists(p));
    }
}

static void test_content_source_pack(void **state)
{
    const char *p = zt_tmp_path("src.zcp");
    char spec[256], err[256];
    zc_pack_writer *w;
    zc_content *c, *s;
    unsigned char pg[PS], want[PS];
    (void)state;

    assert_int_equal(zc_pack_writer_open(p, PS, 1, &w, NULL, 0), 0);
    for (uint64_t i = 0; i < 100; i++) {
        universe_page(i, pg);
        assert_int_equal(zc_pack_map(w, 7, 0, i, pg, NULL), 0);
        universe_page(i + 1000, pg);
        assert_int_equal(zc_pack_map(w, 9, 55, i, pg, NULL), 0);
    }
    assert_int_equal(zc_pack_writer_close(w, NULL, 0), 0);

    snprintf(spec, sizeof(spec), "pack:%s", p);
    assert_int_equal(zc_content_open(spec, 8192, &c, err, sizeof(err)),
                     -ZC_EINVAL);
    assert_int_equal(zc_content_open(spec, PS, &c, err, sizeof(err)), 0);
    for (uint64_t i = 0; i < 100; i++) {
        universe_page(i, want);
        assert_int_equal(zc_content_page(c, 7, i, 3, pg), 0);
        assert_memory_equal(pg, want, PS);
        assert_int_equal(zc_content_file_page(c, 7, 0, i, 0, pg), 0);
        assert_memory_equal(pg, want, PS);
        universe_page(i + 1000, want);
        assert_int_equal(zc_content_file_page(c, 9, 55, i, 1, pg), 0);
        assert_memory_equal(pg, want, PS);
    }
    assert_int_equal(zc_content_page(c, 7, 100, 0, pg), -ZC_ENOENT);
    assert_string_equal(zc_content_error(c),
                        "page 100 of device 7 is not in it");
    assert_int_equal(zc_content_file_page(c, 9, 56, 0, 0, pg), -ZC_ENOENT);
    /* the source says which page it refused, and why */
    assert_string_equal(zc_content_error(c),
                        "page (dev 9, inode 56, index 0) is not in it");
    zc_content_close(c);
    assert_int_equal(
        zc_content_open("pack:/no/such.zcp", PS, &c, err, sizeof(err)),
        -ZC_EIO);
    assert_non_null(strstr(err, "/no/such.zcp"));

    /* The other sources: ino 0 is zc_content_page(); other inodes give
     * other bytes, the same every time. */
    {
        static const char *const specs[] = {"synth:3", "random:5", "zero"};
        for (size_t k = 0; k < sizeof(specs) / sizeof(*specs); k++) {
            assert_int_equal(zc_content_open(specs[k], PS, &s, NULL, 0), 0);
            for (uint64_t i = 0; i < 50; i++) {
                assert_int_equal(zc_content_page(s, 3, i, i % 3, want), 0);
                assert_int_equal(zc_content_file_page(s, 3, 0, i, i % 3, pg),
                                 0);
                assert_memory_equal(pg, want, PS);
                assert_int_equal(zc_content_file_page(s, 3, 77, i, i % 3, pg),
                                 0);
                if (k == 1)
                    assert_memory_not_equal(pg, want, PS);
                assert_int_equal(zc_content_file_page(s, 3, 77, i, i % 3, want),
                                 0);
                assert_memory_equal(pg, want, PS);
            }
            zc_content_close(s);
        }
    }
    snprintf(spec, sizeof(spec), "image:%s", p);
    assert_int_equal(zc_content_open(spec, PS, &s, NULL, 0), 0);
    assert_int_equal(zc_content_file_page(s, 3, 0, 0, 0, pg), 0);
    assert_int_equal(zc_content_file_page(s, 3, 1, 0, 0, pg), -ZC_EINVAL);
    zc_content_close(s);
}

/* Every pack has its own id; a stream names it, and a stream played with
 * another recording's pack is refused, never replayed with wrong bytes. */
static void test_streams_refuse_another_recording_s_pack(void **state)
{
    const char *a = zt_tmp_path("a.zcp"), *b = zt_tmp_path("b.zcp");
    const char *zct = zt_tmp_path("k.zct"), *zca = zt_tmp_path("k.zca");
    char err[512], spec[300];
    zc_pack_writer *w, *w2;
    zc_pack *pk;
    zc_ops_writer *ow;
    zc_ops_writer_options oo = {.level = 1};
    zc_access_writer *aw;
    zc_access_writer_options ao = {0};
    zc_ops_reader *r;
    zc_trace *t;
    zc_content *c;
    zc_op op = {0};
    zc_request q = {.dev = 7, .ino = 12, .length = PS, .time_ns = 1};
    unsigned char pg[PS], got[PS];
    char meta[128];
    const char *tp[] = {zca};
    uint64_t ida, idb;
    (void)state;

    assert_int_equal(zc_pack_writer_open(a, PS, 1, &w, NULL, 0), 0);
    assert_int_equal(zc_pack_writer_open(b, PS, 1, &w2, NULL, 0), 0);
    ida = zc_pack_writer_id(w);
    idb = zc_pack_writer_id(w2);
    assert_int_not_equal(ida, 0);
    assert_int_not_equal(ida, idb);
    /* an op stream with its contents in pack a */
    oo.pack = w;
    assert_int_equal(zc_ops_writer_open(zct, &oo, &ow, err, sizeof(err)), 0);
    op.kind = ZC_OP_INIT_FS;
    op.page_size = PS;
    assert_int_equal(zc_ops_write(ow, &op), 0);
    universe_page(5, pg);
    op.kind = ZC_OP_PUT;
    op.key = zc_filekey_from_ino(12);
    op.page = pg;
    op.page_size = PS;
    assert_int_equal(zc_ops_write(ow, &op), 0);
    assert_int_equal(zc_ops_writer_close(ow, err, sizeof(err)), 0);
    assert_int_equal(zc_pack_map(w, 7, 12, 0, pg, NULL), 0);
    assert_int_equal(zc_pack_map(w2, 7, 12, 0, pg, NULL), 0);
    assert_int_equal(zc_pack_writer_close(w, NULL, 0), 0);
    assert_int_equal(zc_pack_writer_close(w2, NULL, 0), 0);
    assert_int_equal(zc_pack_open(a, &pk, err, sizeof(err)), 0);
    assert_true(zc_pack_id(pk) == ida);
    zc_pack_close(pk);

    /* the right pack reads; b in a's place is refused, by name */
    assert_int_equal(zc_ops_open(zct, &r, err, sizeof(err)), 0);
    assert_int_equal(zc_ops_next(r, &op), 1);
    assert_int_equal(zc_ops_next(r, &op), 1);
    assert_memory_equal(op.page, pg, PS);
    zc_ops_close(r);
    rename(a, zt_tmp_path("a.keep"));
    rename(b, a);
    assert_int_not_equal(zc_ops_open(zct, &r, err, sizeof(err)), 0);
    assert_non_null(strstr(err, "another recording's pack"));

    /* an access stream naming pack a (now b's bytes) */
    snprintf(meta, sizeof(meta), "pack=a.zcp\npack_id=%016llx\n",
             (unsigned long long)ida);
    ao.meta = meta;
    assert_int_equal(zc_access_writer_open(zca, &ao, &aw, err, sizeof(err)), 0);
    assert_int_equal(zc_access_write(aw, &q), 0);
    assert_int_equal(zc_access_writer_close(aw, err, sizeof(err)), 0);
    assert_int_equal(zc_trace_open(tp, 1, NULL, &t, err, sizeof(err)), 0);
    snprintf(spec, sizeof(spec), "pack:%s", a);
    assert_int_equal(zc_content_open(spec, PS, &c, err, sizeof(err)), 0);
    assert_int_equal(zc_content_check_trace(c, t, err, sizeof(err)),
                     -ZC_EINVAL);
    assert_non_null(strstr(err, "another recording's pack"));
    zc_content_close(c);
    rename(a, b);
    rename(zt_tmp_path("a.keep"), a);
    assert_int_equal(zc_content_open(spec, PS, &c, err, sizeof(err)), 0);
    assert_int_equal(zc_content_check_trace(c, t, err, sizeof(err)), 0);
    assert_int_equal(zc_content_file_page(c, 7, 12, 0, 0, got), 0);
    assert_memory_equal(got, pg, PS);
    zc_content_close(c);
    /* synthetic contents are a choice the check allows */
    assert_int_equal(zc_content_open("synth", PS, &c, err, sizeof(err)), 0);
    assert_int_equal(zc_content_check_trace(c, t, err, sizeof(err)), 0);
    zc_content_close(c);
    zc_trace_close(t);

    /* a pack field that leaves the trace's directory is refused */
    ao.meta = "pack=../a.zcp\n";
    assert_int_equal(zc_access_writer_open(zca, &ao, &aw, err, sizeof(err)), 0);
    assert_int_equal(zc_access_write(aw, &q), 0);
    assert_int_equal(zc_access_writer_close(aw, err, sizeof(err)), 0);
    assert_int_equal(zc_trace_open(tp, 1, NULL, &t, err, sizeof(err)), 0);
    assert_int_equal(zc_content_check_trace(NULL, t, err, sizeof(err)),
                     -ZC_EINVAL);
    assert_non_null(strstr(err, "not a file name beside the trace"));
    zc_trace_close(t);
}

/* A replay whose model evicts pages it read ahead that the pack does not
 * hold (a model may read ahead further than the recording did) puts them
 * with the synth source's bytes and counts them; a page the trace itself
 * names must be in the pack. */
static void test_replay_puts_pages_the_pack_lacks_with_synthetic_bytes(
    void **state)
{
    const char *p = zt_tmp_path("part.zcp");
    char spec[256];
    zc_pack_writer *w;
    zc_content *c;
    zc_cache *zc;
    zc_config cfg = zc_config_default();
    zc_replay *r;
    zc_replay_stats st;
    zc_request q = {.dev = 7,
                    .ino = 55,
                    .offset = 0,
                    .length = PS,
                    .flags = ZC_REQ_SIZE,
                    .file_size = 8 * PS};
    unsigned char pg[PS];
    (void)state;

    assert_int_equal(zc_pack_writer_open(p, PS, 1, &w, NULL, 0), 0);
    for (uint64_t i = 0; i < 2; i++) { /* pages 0 and 1 of 8 */
        universe_page(i, pg);
        assert_int_equal(zc_pack_map(w, 7, 55, i, pg, NULL), 0);
    }
    assert_int_equal(zc_pack_writer_close(w, NULL, 0), 0);
    snprintf(spec, sizeof(spec), "pack:%s", p);
    assert_int_equal(zc_content_open(spec, PS, &c, NULL, 0), 0);
    assert_int_equal(zc_config_parse(&cfg, "capacity=1M"), 0);
    assert_int_equal(zc_cache_create(&cfg, &zc), 0);
    assert_int_equal(zc_replay_create(8, PS, zc, c, &r), 0);
    assert_int_equal(zc_replay_set_model(r, "linux"), 0);
    assert_int_equal(zc_replay_set_read_ahead(r, 128), 0);
    zc_replay_verify(r, true);
    /* Page 0 read: its window reads pages 0..3 (get_init_ra_size(1) = 4);
     * all evicted, pages 2 and 3 with synthetic bytes. */
    assert_int_equal(zc_replay_request(r, &q), 0);
    assert_int_equal(zc_replay_set_page_cache(r, 0), 0);
    assert_int_equal(zc_replay_stats_get(r, &st), 0);
    assert_int_equal(st.readahead, 3);
    assert_int_equal(st.zc_puts, 4);
    assert_int_equal(st.synthetic, 2);
    /* Read back through a page cache again: the zcache serves every page
     * it stored (the synthetic ones too), each with its put's bytes */
    assert_int_equal(zc_replay_set_page_cache(r, 8), 0);
    q.length = 4 * PS;
    assert_int_equal(zc_replay_request(r, &q), 0);
    assert_int_equal(zc_replay_stats_get(r, &st), 0);
    assert_true(st.zc_stored > 0);
    assert_int_equal(st.zc_hits, st.zc_stored);
    assert_int_equal(st.zc_wrong, 0);
    /* Pages 2 and 3 are requested now: evicted again, the pack must have
     * them, and it does not */
    assert_int_equal(zc_replay_set_page_cache(r, 0), -ZC_ENOENT);
    zc_replay_destroy(r);
    zc_cache_destroy(zc);
    zc_content_close(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_duplicates_are_stored_once_and_read_back),
        cmocka_unit_test(test_duplicates_of_written_blocks_get_their_old_ids),
        cmocka_unit_test(test_key_map_lookups_and_remapping),
        cmocka_unit_test(test_every_truncation_fails_cleanly),
        cmocka_unit_test(test_bit_flips_are_detected),
        cmocka_unit_test(test_not_a_pack),
        cmocka_unit_test(test_a_failed_writer_leaves_no_file),
        cmocka_unit_test(test_content_source_pack),
        cmocka_unit_test(
            test_replay_puts_pages_the_pack_lacks_with_synthetic_bytes),
        cmocka_unit_test(test_streams_refuse_another_recording_s_pack),
    };
    return cmocka_run_group_tests(tests, zt_tmpdir_setup, zt_tmpdir_teardown);
}
