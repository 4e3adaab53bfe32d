/*
 * test_zct.c - the op stream: .zct and text round trips, damaged and
 * malformed streams, the player's counting and verification, and the
 * promise that a saved stream replays to the very numbers of the block
 * trace that made it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "zcache_sim.h"
#include "zt_util.h"

#define PS 4096

/* ---- a random op sequence, kept for comparison -------------------------- */

struct rec {
    zc_op op;
    unsigned char *page; /* a put's bytes */
};

struct seq {
    struct rec *r;
    size_t n;
};

/* Pages drawn from a small set (so contents repeat and dedup is used),
 * same-filled ones included. */
static void make_page(zt_rng *g, unsigned char *pg)
{
    uint64_t kind = zt_rng_below(g, 10), v = zt_rng_below(g, 40);

    if (kind < 2)
        zt_fill_word(pg, PS, kind ? zt_mix64(v) : 0);
    else if (kind < 5)
        memcpy(pg, zt_corpus_page(PS, v % zt_corpus_pages(PS)), PS);
    else
        zt_fill_random(pg, PS, v);
}

static struct seq make_seq(uint64_t seed, size_t n)
{
    struct seq s = {calloc(n, sizeof(struct rec)), 0};
    bool live[4] = {0};
    zt_rng g;

    zt_rng_seed(&g, seed);
    while (s.n < n) {
        struct rec *r = &s.r[s.n];
        zc_op *op = &r->op;
        uint32_t pool = (uint32_t)zt_rng_below(&g, 4);
        uint64_t k = zt_rng_below(&g, 100);

        memset(op, 0, sizeof(*op));
        op->pool = pool;
        op->key = zt_rng_below(&g, 4)
                      ? zc_filekey_from_ino(zt_rng_below(&g, 9))
                      : (zc_filekey){{1, 2, 3, 4, 5, (uint32_t)k}};
        op->index =
            zt_rng_below(&g, 3) ? zt_rng_below(&g, 50) : zt_rng_next(&g);
        if (!live[pool]) {
            op->kind = pool == 3 ? ZC_OP_INIT_SHARED_FS : ZC_OP_INIT_FS;
            op->page_size = PS;
            zt_rng_fill(&g, op->uuid, 16);
            live[pool] = true;
        } else if (k < 40) {
            op->kind = ZC_OP_PUT;
            op->flags = zt_rng_below(&g, 2) ? ZC_OP_PUT_ACTIVE : 0;
            r->page = malloc(PS);
            make_page(&g, r->page);
            op->page = r->page;
        } else if (k < 60) {
            op->kind = ZC_OP_GET;
            op->flags = zt_rng_below(&g, 3) ? 0 : ZC_OP_GET_AHEAD;
        } else if (k < 75) {
            op->kind = ZC_OP_INVALIDATE_PAGE;
            op->flags = (uint32_t)zt_rng_below(&g, 3);
        } else if (k < 78) {
            op->kind = ZC_OP_INVALIDATE_INODE;
        } else if (k < 79) {
            op->kind = ZC_OP_INVALIDATE_FS;
            live[pool] = false;
        } else {
            op->kind = ZC_OP_PC_HITS;
            op->count = 1 + zt_rng_below(&g, 3);
        }
        s.n++;
    }
    return s;
}

static void free_seq(struct seq *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->r[i].page);
    free(s->r);
}

static void write_seq(const char *path, const struct seq *s,
                      const zc_ops_writer_options *o)
{
    zc_ops_writer *w;
    char err[256];

    assert_int_equal(zc_ops_writer_open(path, o, &w, err, sizeof(err)), 0);
    for (size_t i = 0; i < s->n; i++)
        assert_int_equal(zc_ops_write(w, &s->r[i].op), 0);
    assert_int_equal(zc_ops_writer_close(w, err, sizeof(err)), 0);
}

/* Read path back and compare with s: equal ops, equal bytes; runs of
 * pc_hits arrive merged. */
static void check_seq(const char *path, const struct seq *s)
{
    zc_ops_reader *r;
    zc_op op;
    char err[256];
    size_t i = 0;
    int rc;

    assert_int_equal(zc_ops_open(path, &r, err, sizeof(err)), 0);
    assert_int_equal(zc_ops_page_size(r), PS);
    while ((rc = zc_ops_next(r, &op)) == 1) {
        const zc_op *e;
        assert_true(i < s->n);
        e = &s->r[i].op;
        assert_int_equal(op.kind, e->kind);
        if (e->kind == ZC_OP_PC_HITS) {
            uint64_t sum = 0;
            while (i < s->n && s->r[i].op.kind == ZC_OP_PC_HITS)
                sum += s->r[i++].op.count;
            assert_int_equal(op.count, sum);
            continue;
        }
        assert_int_equal(op.pool, e->pool);
        if (e->kind == ZC_OP_INIT_FS || e->kind == ZC_OP_INIT_SHARED_FS)
            assert_int_equal(op.page_size, PS);
        if (e->kind == ZC_OP_INIT_SHARED_FS)
            assert_memory_equal(op.uuid, e->uuid, 16);
        if (e->kind != ZC_OP_INIT_FS && e->kind != ZC_OP_INIT_SHARED_FS &&
            e->kind != ZC_OP_INVALIDATE_FS)
            assert_memory_equal(&op.key, &e->key, sizeof(op.key));
        if (e->kind == ZC_OP_PUT || e->kind == ZC_OP_GET ||
            e->kind == ZC_OP_INVALIDATE_PAGE)
            assert_int_equal(op.index, e->index);
        if (e->kind == ZC_OP_INVALIDATE_PAGE || e->kind == ZC_OP_PUT ||
            e->kind == ZC_OP_GET)
            assert_int_equal(op.flags, e->flags);
        if (e->kind == ZC_OP_PUT)
            assert_memory_equal(op.page, e->page, PS);
        i++;
    }
    assert_int_equal(rc, 0);
    assert_int_equal(i, s->n);
    assert_int_equal(zc_ops_next(r, &op), 0); /* the end stays the end */
    zc_ops_close(r);
}

static void test_binary_and_text_streams_round_trip_every_op(void **state)
{
    static const zc_ops_writer_options opts[] = {
        {.level = 1},
        {.level = -1},
        {.level = 9},
        {.level = 1, .window = 3}, /* contents defined again and again */
        {.level = 1, .window = 1},
        {.text = true},
    };
    /* (the quick tier: a fifth as many ops) */
    struct seq s = make_seq(11, zt_scale(20000, 4000));
    (void)state;

    for (size_t i = 0; i < sizeof(opts) / sizeof(*opts); i++) {
        const char *p = zt_tmp_path(opts[i].text ? "rt.txt" : "rt.zct");
        write_seq(p, &s, &opts[i]);
        check_seq(p, &s);
    }
    free_seq(&s);
}

static void test_identical_contents_are_stored_once(void **state)
{
    zc_ops_writer_options o = {.level = -1};
    zc_ops_writer *w;
    zc_op op = {.kind = ZC_OP_INIT_FS, .page_size = PS};
    unsigned char pg[PS];
    size_t one, many;
    unsigned char *b;
    (void)state;

    zt_fill_random(pg, PS, 5);
    for (int round = 0; round < 2; round++) {
        int puts = round ? 1000 : 1;
        assert_int_equal(
            zc_ops_writer_open(zt_tmp_path("d.zct"), &o, &w, NULL, 0), 0);
        op.kind = ZC_OP_INIT_FS;
        assert_int_equal(zc_ops_write(w, &op), 0);
        for (int i = 0; i < puts; i++) {
            zc_op put = {.kind = ZC_OP_PUT,
                         .key = zc_filekey_from_ino(1),
                         .index = (uint64_t)i,
                         .page = pg};
            assert_int_equal(zc_ops_write(w, &put), 0);
        }
        assert_int_equal(zc_ops_writer_close(w, NULL, 0), 0);
        b = zt_read_file(zt_tmp_path("d.zct"), round ? &many : &one);
        free(b);
    }
    /* 999 more puts of the same page cost their records, not pages. */
    assert_true(many - one < 999 * 16);
    assert_true(one > PS);
}

/* ---- damaged and malformed streams ------------------------------------- */

static int open_and_drain(const char *path, char *msg, size_t len)
{
    zc_ops_reader *r;
    zc_op op;
    int rc = zc_ops_open(path, &r, msg, len);

    if (rc)
        return rc;
    while ((rc = zc_ops_next(r, &op)) == 1)
        ;
    if (rc < 0) {
        snprintf(msg, len, "%s", zc_ops_error(r));
        /* sticky */
        assert_int_equal(zc_ops_next(r, &op), rc);
    }
    zc_ops_close(r);
    return rc;
}

static void expect_error(const char *path, const char *what)
{
    char msg[512] = "";
    int rc = open_and_drain(path, msg, sizeof(msg));

    if (rc >= 0)
        fail_msg("%s: no error, expected '%s'", path, what);
    if (!strstr(msg, path) || !strstr(msg, what))
        fail_msg("message '%s' lacks '%s' or the path", msg, what);
    assert_null(strchr(msg, '\n'));
}

static void test_every_truncation_of_a_stream_is_an_error(void **state)
{
    struct seq s = make_seq(3, 300);
    const char *full = zt_tmp_path("full.zct"), *cut = zt_tmp_path("cut.zct");
    zc_ops_writer_options o = {.level = 1};
    /* The quick tier: a tenth of the cuts, spread over the whole stream. */
    const size_t cuts = zt_scale(3000, 300), every_line = zt_scale(1, 10);
    unsigned char *b;
    size_t n;
    (void)state;

    for (int text = 0; text < 2; text++) {
        size_t line = 0;
        o.text = text;
        write_seq(full, &s, &o);
        b = zt_read_file(full, &n);
        /* Binary: every cut; text: every cut at a line end (a cut inside a
         * line may still be a well-formed shorter line). */
        for (size_t k = 0; k < n; k += text ? 1 : 1 + n / cuts) {
            char msg[512] = "";
            if (text && (b[k] != '\n' || line++ % every_line))
                continue;
            zt_write_file(cut, b, text ? k + 1 : k);
            if (text && k + 1 == n)
                continue;
            if (open_and_drain(cut, msg, sizeof(msg)) >= 0)
                fail_msg("a stream cut at %zu of %zu read as complete", k, n);
            assert_non_null(strstr(msg, cut));
        }
        free(b);
    }
    free_seq(&s);
}

static void test_damaged_bytes_are_found_by_the_checksums(void **state)
{
    int unnoticed = 0;
    struct seq s = make_seq(4, 2000);
    const char *full = zt_tmp_path("f.zct"), *bad = zt_tmp_path("bad.zct");
    zc_ops_writer_options o = {.level = 1};
    unsigned char *b;
    size_t n;
    zt_rng g;
    (void)state;

    write_seq(full, &s, &o);
    b = zt_read_file(full, &n);
    zt_rng_seed(&g, 9);
    for (int i = 0; i < 300; i++) {
        size_t at = i < 100 ? (size_t)i : zt_rng_below(&g, n);
        unsigned char flip = (unsigned char)(1u << zt_rng_below(&g, 8));
        char msg[512] = "";
        b[at] ^= flip;
        zt_write_file(bad, b, n);
        b[at] ^= flip;
        if (open_and_drain(bad, msg, sizeof(msg)) >= 0) {
            /* Unnoticed is fine only if nothing changed: a flip in an LZO
             * match offset may point at identical bytes. */
            check_seq(bad, &s);
            unnoticed++;
            continue;
        }
        assert_non_null(strstr(msg, "offset"));
    }
    assert_true(unnoticed <= 3);
    free(b);
    free_seq(&s);
}

static uint32_t adler32(const unsigned char *p, size_t n)
{
    uint32_t a = 1, b = 0;
    for (size_t i = 0; i < n; i++) {
        a = (a + p[i]) % 65521;
        b = (b + a) % 65521;
    }
    return b << 16 | a;
}

/* A binary stream made by hand: a header with the given fields and
 * version, one stored block of the given records. */
static void forge(const char *path, unsigned major, const char *fields,
                  const unsigned char *recs, size_t nrecs)
{
    unsigned char buf[8192];
    size_t n = 0, fl = strlen(fields);

    memcpy(buf, "\x89ZCT\r\n\x1a\n", 8);
    buf[8] = (unsigned char)major;
    buf[9] = 0;
    buf[10] = buf[11] = 0;
    zt_put_le32(buf + 12, (uint32_t)fl);
    memcpy(buf + 16, fields, fl);
    n = 16 + fl;
    zt_put_le32(buf + n, adler32(buf, n));
    n += 4;
    if (nrecs) {
        zt_put_le32(buf + n, (uint32_t)nrecs);
        zt_put_le32(buf + n + 4, (uint32_t)nrecs);
        memset(buf + n + 8, 0, 4);
        zt_put_le32(buf + n + 12, adler32(recs, nrecs));
        memcpy(buf + n + 16, recs, nrecs);
        n += 16 + nrecs;
    }
    zt_write_file(path, buf, n);
}

static void test_malformed_binary_streams_get_precise_errors(void **state)
{
    const char *p = zt_tmp_path("m.zct");
    const char *ok = "page_size=4096\nwindow=2\n";
    (void)state;

    /* init_fs 0 4096 ; get 0 ino 7 idx 1 ; end 2 */
    static const unsigned char good[] = {1, 0, 0x80, 0x20, 4, 0,
                                         0, 7, 1,    0x7E, 2};
    forge(p, 1, ok, good, sizeof(good));
    {
        char msg[256];
        assert_int_equal(open_and_drain(p, msg, sizeof(msg)), 0);
    }
    forge(p, 2, ok, good, sizeof(good));
    expect_error(p, "version 2");
    forge(p, 1, "page_size=4096\n", good, sizeof(good));
    expect_error(p, "window");
    forge(p, 1, "page_size=1000\nwindow=2\n", good, sizeof(good));
    expect_error(p, "page_size 1000");
    forge(p, 1, ok, good, sizeof(good) - 2);
    expect_error(p, "without its end record");
    {
        static const unsigned char r[] = {1, 0, 0x80, 0x20, 0x7E, 5};
        forge(p, 1, ok, r, sizeof(r));
        expect_error(p, "end record counts 5 ops");
    }
    {
        static const unsigned char r[] = {4, 0, 0, 7, 1, 0x7E, 1};
        forge(p, 1, ok, r, sizeof(r));
        expect_error(p, "pool 0 used before its init_fs");
    }
    {
        /* two contents, then a put three back: outside a window of 2 */
        unsigned char r[64];
        size_t n = 0;
        r[n++] = 1, r[n++] = 0, r[n++] = 0x80, r[n++] = 0x20;
        for (int i = 0; i < 3; i++) {
            r[n++] = 0x11;
            memset(r + n, i, 8);
            n += 8;
        }
        r[n++] = 3, r[n++] = 0, r[n++] = 0, r[n++] = 7, r[n++] = 1;
        r[n++] = 2; /* ref 2: the first of three, window 2 */
        r[n++] = 0x7E, r[n++] = 2;
        forge(p, 1, ok, r, n);
        expect_error(p, "outside the window");
        r[n - 3] = 1; /* ref 1: inside */
        forge(p, 1, ok, r, n);
        {
            char msg[256];
            assert_int_equal(open_and_drain(p, msg, sizeof(msg)), 0);
        }
    }
    {
        static const unsigned char r[] = {1, 0, 0x80, 0x20, 0x42};
        forge(p, 1, ok, r, sizeof(r));
        expect_error(p, "unknown record type 0x42");
    }
    {
        /* init_fs 0 4096 ; get_ahead 0 ino 7 idx 1 ; get 0 ino 7 idx 2 ;
         * end 3 (0A counts as an op) */
        static const unsigned char r[] = {
            1, 0, 0x80, 0x20, 0x0A, 0, 0, 7, 1, 0x04, 0, 0, 7, 2, 0x7E, 3};
        zc_ops_reader *rd;
        zc_op op;
        forge(p, 1, ok, r, sizeof(r));
        assert_int_equal(zc_ops_open(p, &rd, NULL, 0), 0);
        assert_int_equal(zc_ops_next(rd, &op), 1);
        assert_int_equal(zc_ops_next(rd, &op), 1);
        assert_int_equal(op.kind, ZC_OP_GET);
        assert_int_equal(op.flags, ZC_OP_GET_AHEAD);
        assert_int_equal(op.index, 1);
        assert_int_equal(zc_ops_next(rd, &op), 1);
        assert_int_equal(op.kind, ZC_OP_GET);
        assert_int_equal(op.flags, 0);
        assert_int_equal(zc_ops_next(rd, &op), 0);
        zc_ops_close(rd);
    }
    {
        /* a get_ahead cut short, and one before its pool's init */
        static const unsigned char cut[] = {1, 0, 0x80, 0x20, 0x0A, 0, 0};
        static const unsigned char early[] = {0x0A, 0, 0, 7, 1, 0x7E, 1};
        forge(p, 1, ok, cut, sizeof(cut));
        expect_error(p, "record cut by the end of its block");
        forge(p, 1, ok, early, sizeof(early));
        expect_error(p, "pool 0 used before its init_fs");
    }
    {
        static const unsigned char r[] = {
            1,    0,    0x80, 0x20, 4,    0,    0,    0xff, 0xff, 0xff,
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 1,    0x7E, 2};
        forge(p, 1, ok, r, sizeof(r));
        expect_error(p, "number out of range");
    }
    {
        static const unsigned char r[] = {1, 0, 0x80, 0x20, 0x7E, 1, 0};
        forge(p, 1, ok, r, sizeof(r));
        expect_error(p, "data after the end record");
    }
    {
        /* pc_hits 2^64-1 twice: the accesses they count overflow; the
         * second record (byte 11) is refused */
        static const unsigned char r[] = {8,    0xff, 0xff, 0xff, 0xff, 0xff,
                                          0xff, 0xff, 0xff, 0xff, 1,    8,
                                          0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                          0xff, 0xff, 0xff, 1,    0x7E, 2};
        forge(p, 1, ok, r, sizeof(r));
        expect_error(p, "byte 11 of its block: pc_hits");
        expect_error(p, "2^64 - 1");
    }
    zt_write_file(p, "", 0);
    expect_error(p, "empty file");
    zt_write_file(p, "hello, world\n", 13);
    expect_error(p, "not an op stream");
    expect_error(zt_tmpdir(), "is a directory");
    expect_error(zt_tmp_path("missing.zct"), "cannot open");
}

static void test_malformed_text_streams_name_the_line(void **state)
{
    static const struct {
        const char *text, *what;
    } cases[] = {
        {"zct-text 1\ninit_fs 0\nget 0 1 2\n", "line 3: stream ends without"},
        {"zct-text 2\nend\n", "line 1: first line"},
        {"zct-text 1\ninit_fs 0\nfrobnicate 0\nend\n", "line 3: unknown op"},
        {"zct-text 1\nget 0 1 2\nend\n", "line 2: pool 0 used before"},
        {"zct-text 1\ninit_fs 0\ninit_fs 0\nend\n",
         "line 3: pool 0 initialised twice"},
        {"zct-text 1\ninit_fs 0\nput 0 1 2 lots\nend\n", "line 3: content is"},
        {"zct-text 1\ninit_fs 0\nget 0 1 99999999999999999999\nend\n",
         "line 3: number out of range"},
        {"zct-text 1\ninit_fs 0\nget 0 1\nend\n", "line 3: wrong number"},
        {"zct-text 1\ninit_fs 0\nend\nget 0 1 2\n", "line 4: data after end"},
        {"zct-text 1\nmeta page_size 1000\nend\n", "line 2: page_size is"},
        {"zct-text 1\ninit_fs 0\nput 0 fh:12 1 zero\nend\n",
         "line 3: a file handle is"},
        {"zct-text 1\ninit_fs 0\nput 0 1 1 hex:abc\nend\n", "line 3: hex:"},
        {"zct-text 1\ninit_fs 0\ninvalidate_page 0 1 2 write_often\nend\n",
         "line 3: flag is"},
        {"zct-text 1\ninit_fs 0\npc_hits 0\nend\n", "line 3: pc_hits of 0"},
        {"zct-text 1\ninit_fs 0\nput 0 1 2 busy zero\nend\n",
         "line 3: put flag is active"},
        {"zct-text 1\ninit_fs 0\nget 0 1 2 behind\nend\n",
         "line 3: get flag is ahead, not 'behind'"},
        {"zct-text 1\ninit_fs 0\nget 0 1 2 ahead now\nend\n",
         "line 3: wrong number of fields for 'get'"},
        {"zct-text 1\ninit_fs 0\nget 0 1 ahead\nend\n",
         "line 3: not a number: 'ahead'"},
        {"zct-text 1\ninit_fs 0\nget 0 1 2\nmeta a b\nend\n",
         "line 4: meta after"},
        {"zct-text 1\npc_hits 18446744073709551615\n"
         "pc_hits 18446744073709551615\nend\n",
         "line 3: pc_hits 18446744073709551615: the stream's"},
        {"zct-text 1\ninit_fs 0\npc_hits 18446744073709551614\n"
         "get 0 1 2\nend\n",
         "line 4: the stream's page-cache hits and ops add up"},
    };
    const char *p = zt_tmp_path("m.txt");
    (void)state;

    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        zt_write_file(p, cases[i].text, strlen(cases[i].text));
        expect_error(p, cases[i].what);
    }
}

/* ---- the player --------------------------------------------------------- */

static zc_replay_stats play_text(const char *text, zc_cache *zc, bool verify)
{
    const char *p = zt_tmp_path("play.txt");
    zc_ops_reader *r;
    zc_player *pl;
    zc_replay_stats st;
    zc_op op;
    int rc;

    zt_write_file(p, text, strlen(text));
    assert_int_equal(zc_ops_open(p, &r, NULL, 0), 0);
    assert_int_equal(zc_player_create(zc, &pl), 0);
    zc_player_verify(pl, verify);
    while ((rc = zc_ops_next(r, &op)) == 1)
        assert_int_equal(zc_player_op(pl, &op), 0);
    assert_int_equal(rc, 0);
    assert_int_equal(zc_player_stats_get(pl, &st), 0);
    zc_player_destroy(pl);
    zc_ops_close(r);
    return st;
}

static zc_cache *cache_of(const char *spec)
{
    zc_config cfg = zc_config_default();
    zc_cache *zc;
    assert_int_equal(zc_config_parse(&cfg, spec), 0);
    assert_int_equal(zc_cache_create(&cfg, &zc), 0);
    return zc;
}

static void test_player_counts_a_hand_written_stream(void **state)
{
    static const char text[] =
        "zct-text 1\n"
        "# a page cache's story, written by hand\n"
        "meta page_size 4096\n"
        "init_fs 0\n"
        "init_shared_fs 1 000102030405060708090a0b0c0d0e0f\n"
        "pc_hits 3\n"
        "put 0 5 1 text:hello\n" /* stored */
        "put 0 5 2 random:1\n"   /* rejected: incompressible */
        "put 0 5 3 zero\n"       /* same-filled */
        "put 1 fh:000000000000000000000000000000000000000000000001 4 "
        "hex:0102\n"
        "get 0 5 1\n"                        /* hit, removed (exclusive) */
        "get 0 5 1\n"                        /* miss */
        "get 0 5 2\n"                        /* miss: never stored */
        "invalidate_page 0 5 3 write_miss\n" /* a copy: resident */
        "get 0 5 3\n"                        /* miss: invalidated */
        "invalidate_page 0 5 9 write_hit\n"
        "get 1 fh:000000000000000000000000000000000000000000000001 4\n"
        "get 1 fh:000000000000000000000000000000000000000000000001 4\n"
        "invalidate_inode 1 "
        "fh:000000000000000000000000000000000000000000000001\n"
        "get 1 fh:000000000000000000000000000000000000000000000001 4\n"
        "invalidate_fs 1\n"
        "end\n";
    zc_cache *zc = cache_of("capacity=1M");
    zc_replay_stats st = play_text(text, zc, true);
    zc_stats zs;
    (void)state;

    assert_int_equal(st.accesses, 3 + 7 + 2);
    assert_int_equal(st.reads, 3 + 7);
    assert_int_equal(st.writes, 2);
    assert_int_equal(st.pc_hits, 3 + 1);
    assert_int_equal(st.zc_gets, 7);
    assert_int_equal(st.zc_hits, 3); /* 0/5/1 once, the shared page twice */
    assert_int_equal(st.disk_reads, 4);
    assert_int_equal(st.zc_puts, 4);
    assert_int_equal(st.zc_stored, 3);
    assert_int_equal(st.pc_evictions, 4);
    assert_int_equal(st.resident_hits, 4 + 3 + 1);
    assert_int_equal(st.zc_wrong, 0);
    assert_int_equal(zc_stats_get(zc, &zs), 0);
    assert_int_equal(zs.stored_pages, 0);
    assert_int_equal(zc_cache_check(zc), 0);
    zc_cache_destroy(zc);

    /* Without a cache every get is a disk read. */
    st = play_text(text, NULL, false);
    assert_int_equal(st.zc_gets, 0);
    assert_int_equal(st.disk_reads, 7);
    assert_int_equal(st.resident_hits, 4);
}

static void
test_shared_pools_of_one_uuid_share_pages_and_their_end(void **state)
{
    static const char text[] =
        "zct-text 1\n"
        "init_shared_fs 0 00112233445566778899aabbccddeeff\n"
        "init_shared_fs 1 00112233445566778899aabbccddeeff\n"
        "put 0 5 1 text:shared\n"
        "get 1 5 1\n"       /* the same pool: a hit */
        "invalidate_fs 0\n" /* destroys the pool under stream pool 1 too */
        "get 1 5 1\n"       /* no pool: a miss, not an error */
        "put 1 5 2 text:dropped\n"
        "get 1 5 2\n"
        "invalidate_fs 1\n"
        "init_fs 1\n" /* a new life */
        "put 1 5 3 text:again\n"
        "get 1 5 3\n"
        "end\n";
    zc_cache *zc = cache_of("capacity=1M");
    zc_replay_stats st = play_text(text, zc, true);
    (void)state;

    assert_int_equal(st.zc_gets, 4);
    assert_int_equal(st.zc_hits, 2);
    assert_int_equal(st.zc_puts, 3);
    assert_int_equal(st.zc_stored, 2);
    assert_int_equal(st.zc_wrong, 0);
    assert_int_equal(zc_cache_check(zc), 0);
    zc_cache_destroy(zc);
}

/* A page read ahead is a get, a hit or a disk read, and readahead; never
 * an access, a read or a resident hit. */
static void test_player_counts_pages_read_ahead(void **state)
{
    static const char text[] =
        "zct-text 1\n"
        "init_fs 0\n"
        "init_shared_fs 1 00112233445566778899aabbccddeeff\n"
        "put 0 1 0 text:alpha\n"
        "put 0 1 1 text:beta\n"
        "get 0 1 0 ahead\n" /* hit */
        "get 0 1 2 ahead\n" /* disk */
        "get 0 1 1\n"       /* hit: an access */
        "invalidate_fs 0\n"
        "init_shared_fs 2 00112233445566778899aabbccddeeff\n"
        "invalidate_fs 1\n" /* pool 2's is gone too */
        "get 2 1 5 ahead\n" /* gone: a disk read */
        "end\n";
    zc_cache *zc = cache_of("capacity=1M");
    zc_replay_stats st = play_text(text, zc, true);

    (void)state;
    assert_int_equal(st.readahead, 3);
    assert_int_equal(st.zc_gets, 4);
    assert_int_equal(st.zc_hits, 2);
    assert_int_equal(st.disk_reads, 2);
    assert_int_equal(st.accesses, 1);
    assert_int_equal(st.reads, 1);
    assert_int_equal(st.resident_hits, 1);
    assert_int_equal(st.zc_wrong, 0);
    assert_int_equal(zc_cache_check(zc), 0);
    zc_cache_destroy(zc);

    /* Without a cache a page read ahead is a disk read, as a miss is. */
    st = play_text(text, NULL, false);
    assert_int_equal(st.readahead, 3);
    assert_int_equal(st.zc_gets, 0);
    assert_int_equal(st.disk_reads, 4);
    assert_int_equal(st.accesses, 1);
    assert_int_equal(st.reads, 1);
    assert_int_equal(st.resident_hits, 0);
}

/* The active flag of a put reaches the cache: with active_only, only
 * the flagged puts are stored. */
static void test_player_passes_the_active_flag(void **state)
{
    static const char text[] = "zct-text 1\n"
                               "init_fs 0\n"
                               "put 0 1 0 active text:alpha\n"
                               "put 0 1 1 text:beta\n"
                               "get 0 1 0\n"
                               "get 0 1 1\n"
                               "end\n";
    zc_cache *zc = cache_of("active_only=true");
    zc_replay_stats st = play_text(text, zc, true);
    zc_stats s;

    (void)state;
    assert_int_equal(st.zc_puts, 2);
    assert_int_equal(st.zc_stored, 1);
    assert_int_equal(st.zc_hits, 1);
    assert_int_equal(st.zc_wrong, 0);
    assert_int_equal(zc_stats_get(zc, &s), 0);
    assert_int_equal(s.reject_inactive, 1);
    zc_cache_destroy(zc);
}

static void test_player_verification_catches_foreign_data(void **state)
{
    zc_cache *zc = cache_of("capacity=1M,exclusive_gets=false");
    zc_player *pl;
    zc_replay_stats st;
    unsigned char a[PS], b[PS];
    zc_filekey k = zc_filekey_from_ino(3);
    zc_op init = {.kind = ZC_OP_INIT_FS, .page_size = PS};
    zc_op put = {.kind = ZC_OP_PUT, .key = k, .index = 1, .page = a};
    zc_op get = {.kind = ZC_OP_GET, .key = k, .index = 1};
    zc_op inv = {.kind = ZC_OP_INVALIDATE_PAGE, .key = k, .index = 1};
    (void)state;

    memset(a, 'a', PS);
    memset(b, 'b', PS);
    a[7] = b[7] = 0; /* not same-filled */
    assert_int_equal(zc_player_create(zc, &pl), 0);
    zc_player_verify(pl, true);
    assert_int_equal(zc_player_op(pl, &init), 0);
    assert_int_equal(zc_player_op(pl, &put), 0);
    assert_int_equal(zc_player_op(pl, &get), 0);
    assert_int_equal(zc_player_stats_get(pl, &st), 0);
    assert_int_equal(st.zc_hits, 1);
    assert_int_equal(st.zc_wrong, 0);
    /* Behind the player's back the page changes: a hit on it is wrong. */
    assert_int_equal(zc_put_page(zc, 0, &k, 1, b), 0);
    assert_int_equal(zc_player_op(pl, &get), 0);
    assert_int_equal(zc_player_stats_get(pl, &st), 0);
    assert_int_equal(st.zc_wrong, 1);
    /* After an invalidate the player expects nothing: a hit is wrong. */
    assert_int_equal(zc_player_op(pl, &inv), 0);
    assert_int_equal(zc_put_page(zc, 0, &k, 1, a), 0);
    assert_int_equal(zc_player_op(pl, &get), 0);
    assert_int_equal(zc_player_stats_get(pl, &st), 0);
    assert_int_equal(st.zc_wrong, 2);
    zc_player_destroy(pl);
    zc_cache_destroy(zc);
}

/* ---- block trace replay = saved stream replay --------------------------- */

static void test_a_saved_stream_replays_to_the_same_numbers(void **state)
{
    static const char *const specs[] = {
        "capacity=2M", "capacity=1M,allocator=zbud",
        "capacity=256K,compressor=none,accept_percent=100,same_filled=false"};
    (void)state;

    for (int text = 0; text < 2; text++)
        for (size_t k = 0; k < sizeof(specs) / sizeof(*specs); k++) {
            const char *p = zt_tmp_path(text ? "s.txt" : "s.zct");
            const uint64_t requests = zt_scale(6000, 1500); /* quick tier */
            zc_ops_writer_options o = {.text = text, .window = 500};
            zc_content *content;
            zc_ops_writer *w;
            zc_cache *zc1 = cache_of(specs[k]), *zc2 = cache_of(specs[k]);
            zc_replay *r;
            zc_replay_stats a, b;
            zc_stats za, zb;
            zc_ops_reader *in;
            zc_player *pl;
            zc_op op;
            zt_rng g;
            int rc;

            assert_int_equal(zc_content_open("synth:7", PS, &content, NULL, 0),
                             0);
            assert_int_equal(zc_ops_writer_open(p, &o, &w, NULL, 0), 0);
            assert_int_equal(zc_replay_create(300, PS, zc1, content, &r), 0);
            assert_int_equal(zc_replay_save_ops(r, w), 0);
            zc_replay_verify(r, true);
            zt_rng_seed(&g, 5 + k);
            for (uint64_t i = 0; i < requests; i++) {
                zc_request q = {0};
                q.dev = (uint32_t)zt_rng_below(&g, 2) + 8;
                q.offset =
                    zt_rng_below(&g, zt_rng_below(&g, 4) ? 600 : 3000) * PS;
                q.length = (1 + zt_rng_below(&g, 4)) * PS;
                q.write = zt_rng_below(&g, 4) == 0;
                assert_int_equal(zc_replay_request(r, &q), 0);
            }
            assert_int_equal(zc_ops_writer_close(w, NULL, 0), 0);
            assert_int_equal(zc_replay_stats_get(r, &a), 0);
            assert_int_equal(zc_stats_get(zc1, &za), 0);

            assert_int_equal(zc_ops_open(p, &in, NULL, 0), 0);
            assert_int_equal(zc_player_create(zc2, &pl), 0);
            zc_player_verify(pl, true);
            while ((rc = zc_ops_next(in, &op)) == 1)
                assert_int_equal(zc_player_op(pl, &op), 0);
            assert_int_equal(rc, 0);
            assert_int_equal(zc_player_stats_get(pl, &b), 0);
            assert_int_equal(zc_stats_get(zc2, &zb), 0);

            assert_true(a.zc_hits > 0);
            assert_int_equal(a.zc_wrong, 0);
            b.requests = a.requests;
            assert_memory_equal(&a, &b, sizeof(a));
            assert_int_equal(za.stored_puts, zb.stored_puts);
            assert_int_equal(za.succ_gets, zb.succ_gets);
            assert_int_equal(za.evictions, zb.evictions);
            assert_int_equal(za.stored_pages, zb.stored_pages);
            assert_int_equal(za.compr_data_size, zb.compr_data_size);
            assert_int_equal(za.mem_used_total, zb.mem_used_total);
            zc_player_destroy(pl);
            zc_ops_close(in);
            zc_replay_destroy(r);
            zc_content_close(content);
            zc_cache_destroy(zc1);
            zc_cache_destroy(zc2);
        }
}

static void test_writer_rejects_bad_ops(void **state)
{
    zc_ops_writer *w;
    unsigned char pg[PS] = {0};
    zc_op init = {.kind = ZC_OP_INIT_FS, .page_size = PS};
    zc_op get = {.kind = ZC_OP_GET, .pool = 1};
    zc_op put = {.kind = ZC_OP_PUT};
    zc_ops_writer_options bad = {.page_size = 1000};
    char err[256];
    (void)state;

    assert_int_equal(
        zc_ops_writer_open(zt_tmp_path("w.zct"), &bad, &w, err, sizeof(err)),
        -ZC_EINVAL);
    assert_int_equal(zc_ops_writer_open(zt_tmp_path("no/such/dir.zct"), NULL,
                                        &w, err, sizeof(err)),
                     -ZC_EIO);
    assert_non_null(strstr(err, "no/such/dir.zct"));
    assert_int_equal(
        zc_ops_writer_open(zt_tmp_path("w.zct"), NULL, &w, NULL, 0), 0);
    assert_int_equal(zc_ops_write(w, &init), 0);
    assert_int_equal(zc_ops_write(w, &put), -ZC_EINVAL); /* no page */
    assert_non_null(strstr(zc_ops_writer_error(w), "put without a page"));
    /* errors are sticky, and close reports them */
    put.page = pg;
    assert_int_equal(zc_ops_write(w, &put), -ZC_EINVAL);
    assert_int_equal(zc_ops_writer_close(w, err, sizeof(err)), -ZC_EINVAL);
    assert_int_equal(
        zc_ops_writer_open(zt_tmp_path("w.zct"), NULL, &w, NULL, 0), 0);
    assert_int_equal(zc_ops_write(w, &get), -ZC_EINVAL); /* pool 1 unknown */
    assert_int_equal(zc_ops_writer_close(w, NULL, 0), -ZC_EINVAL);

    /* Flags a reader would refuse, or read back as something else. */
    for (uint32_t flags = 3; flags <= 4; flags++) {
        zc_op inv = {.kind = ZC_OP_INVALIDATE_PAGE, .flags = flags};
        assert_int_equal(
            zc_ops_writer_open(zt_tmp_path("w.zct"), NULL, &w, NULL, 0), 0);
        assert_int_equal(zc_ops_write(w, &init), 0);
        assert_int_equal(zc_ops_write(w, &inv), -ZC_EINVAL);
        assert_int_equal(zc_ops_writer_close(w, NULL, 0), -ZC_EINVAL);
    }
    for (int text = 0; text < 2; text++) {
        zc_ops_writer_options o = {.text = text};
        zc_op g = {.kind = ZC_OP_GET, .flags = 2};
        assert_int_equal(
            zc_ops_writer_open(zt_tmp_path("w.zct"), &o, &w, NULL, 0), 0);
        assert_int_equal(zc_ops_write(w, &init), 0);
        g.flags = ZC_OP_GET_AHEAD;
        assert_int_equal(zc_ops_write(w, &g), 0);
        g.flags = 2;
        assert_int_equal(zc_ops_write(w, &g), -ZC_EINVAL);
        assert_non_null(strstr(zc_ops_writer_error(w), "get flags 2 unknown"));
        assert_int_equal(zc_ops_writer_close(w, NULL, 0), -ZC_EINVAL);
    }
    /* The writer's own header fields cannot be given again. */
    {
        zc_ops_writer_options o = {.meta = "source=x\nwindow=1\n"};
        assert_int_equal(
            zc_ops_writer_open(zt_tmp_path("w.zct"), &o, &w, err, sizeof(err)),
            -ZC_EINVAL);
        assert_non_null(strstr(err, "window"));
    }
}

/* Counters are 64 bits: an op that would carry one past 2^64 - 1 is
 * refused (the readers name the line or offset: see the malformed-stream
 * tests), never wrapped into a small wrong number. */
static void test_counts_past_64_bits_are_refused_not_wrapped(void **state)
{
    zc_op init = {.kind = ZC_OP_INIT_FS, .page_size = PS};
    zc_op hits = {.kind = ZC_OP_PC_HITS, .count = UINT64_MAX};
    zc_op one = {.kind = ZC_OP_PC_HITS, .count = 1};
    zc_op get = {.kind = ZC_OP_GET, .key = zc_filekey_from_ino(1)};
    zc_replay_stats st;
    zc_ops_writer *w;
    zc_player *pl;
    (void)state;

    assert_int_equal(zc_player_create(NULL, &pl), 0);
    assert_int_equal(zc_player_op(pl, &init), 0);
    hits.count = UINT64_MAX - 1;
    assert_int_equal(zc_player_op(pl, &hits), 0);
    assert_int_equal(zc_player_op(pl, &get), 0); /* UINT64_MAX accesses */
    assert_int_equal(zc_player_op(pl, &one), -ZC_EINVAL);
    assert_int_equal(zc_player_op(pl, &get), -ZC_EINVAL);
    assert_int_equal(zc_player_stats_get(pl, &st), 0);
    assert_true(st.accesses == UINT64_MAX);
    assert_true(st.pc_hits == UINT64_MAX - 1);
    assert_int_equal(st.disk_reads, 1);
    zc_player_destroy(pl);

    /* The writer merges pc_hits: a sum past 2^64 - 1 is refused. */
    hits.count = UINT64_MAX;
    for (int text = 0; text < 2; text++) {
        zc_ops_writer_options o = {.text = text};
        assert_int_equal(
            zc_ops_writer_open(zt_tmp_path("w.zct"), &o, &w, NULL, 0), 0);
        assert_int_equal(zc_ops_write(w, &hits), 0);
        assert_int_equal(zc_ops_write(w, &one), -ZC_EINVAL);
        assert_non_null(strstr(zc_ops_writer_error(w), "2^64 - 1"));
        assert_int_equal(zc_ops_writer_close(w, NULL, 0), -ZC_EINVAL);
    }
}

static void test_header_fields_survive_both_forms(void **state)
{
    static const char meta[] = "source=/a path/with  blanks\nempty=\nn=3\n";
    (void)state;

    for (int text = 0; text < 2; text++) {
        zc_ops_writer_options o = {.text = text, .meta = meta};
        const char *p = zt_tmp_path(text ? "m.txt" : "m.zct");
        zc_ops_writer *w;
        zc_ops_reader *r;
        zc_op op;

        assert_int_equal(zc_ops_writer_open(p, &o, &w, NULL, 0), 0);
        assert_int_equal(zc_ops_writer_close(w, NULL, 0), 0);
        assert_int_equal(zc_ops_open(p, &r, NULL, 0), 0);
        assert_string_equal(zc_ops_meta(r, "source"), "/a path/with  blanks");
        assert_string_equal(zc_ops_meta(r, "empty"), "");
        assert_string_equal(zc_ops_meta(r, "n"), "3");
        assert_string_equal(zc_ops_meta(r, "page_size"), "4096");
        assert_null(zc_ops_meta(r, "absent"));
        assert_int_equal(zc_ops_next(r, &op), 0);
        zc_ops_close(r);
    }
}

/* ---- streams with a content pack ---------------------------------------- */

static void test_a_stream_with_a_pack_reads_back_as_one_without(void **state)
{
    static const zc_ops_writer_options opts[] = {
        {.level = 1},
        {.level = 1, .window = 3}, /* contents defined again and again */
        {.level = -1, .window = 1},
    };
    struct seq s = make_seq(11, 20000);
    const char *plain = zt_tmp_path("plain.zct"),
               *packed = zt_tmp_path("packed.zct");
    const char *pk = zt_tmp_path("packed.zcp");
    (void)state;

    write_seq(plain, &s, &opts[0]);
    check_seq(plain, &s);
    for (size_t i = 0; i < sizeof(opts) / sizeof(*opts); i++) {
        zc_ops_writer_options o = opts[i];
        zc_pack_writer *pw;
        zc_ops_reader *r;
        size_t n1, n2;
        unsigned char *b1, *b2;

        assert_int_equal(zc_pack_writer_open(pk, PS, 1, &pw, NULL, 0), 0);
        o.pack = pw;
        write_seq(packed, &s, &o);
        assert_int_equal(zc_pack_writer_close(pw, NULL, 0), 0);
        check_seq(packed, &s);
        assert_int_equal(zc_ops_open(packed, &r, NULL, 0), 0);
        assert_string_equal(zc_ops_meta(r, "pack"), "packed.zcp");
        zc_ops_close(r);
        if (i == 0) { /* the same ops, the bytes moved to the pack */
            b1 = zt_read_file(plain, &n1);
            b2 = zt_read_file(packed, &n2);
            assert_true(n2 < n1);
            free(b1);
            free(b2);
        }
    }
    free_seq(&s);
}

static void test_a_stream_needs_its_pack(void **state)
{
    const char *p = zt_tmp_path("needs.zct"), *pk = zt_tmp_path("needs.zcp");
    struct seq s = make_seq(5, 300);
    zc_ops_writer_options o = {.level = 1};
    zc_pack_writer *pw;
    char msg[512];
    (void)state;

    /* init_fs 0 4096 ; content 12 id 0 ; end 1 */
    static const unsigned char r[] = {1, 0, 0x80, 0x20, 0x12, 0, 0x7E, 1};
    forge(p, 1, "page_size=4096\nwindow=2\n", r, sizeof(r));
    expect_error(p, "without a pack");
    forge(p, 1, "page_size=4096\nwindow=2\npack=../x.zcp\n", r, sizeof(r));
    expect_error(p, "pack=../x.zcp");
    forge(p, 1, "page_size=4096\nwindow=2\npack=sub/x.zcp\n", r, sizeof(r));
    expect_error(p, "pack=sub/x.zcp");

    /* A pack of two contents: ids 0 and 1 read, 2 is past its end. */
    assert_int_equal(zc_pack_writer_open(pk, PS, 1, &pw, NULL, 0), 0);
    {
        unsigned char pg[PS];
        zt_fill_random(pg, PS, 1);
        assert_int_equal(zc_pack_add(pw, pg, NULL), 0);
        zt_fill_random(pg, PS, 2);
        assert_int_equal(zc_pack_add(pw, pg, NULL), 0);
    }
    assert_int_equal(zc_pack_writer_close(pw, NULL, 0), 0);
    forge(p, 1, "page_size=4096\nwindow=2\npack=needs.zcp\n", r, sizeof(r));
    assert_int_equal(open_and_drain(p, msg, sizeof(msg)), 0);
    {
        static const unsigned char r2[] = {1, 0, 0x80, 0x20, 0x12, 2, 0x7E, 1};
        forge(p, 1, "page_size=4096\nwindow=2\npack=needs.zcp\n", r2,
              sizeof(r2));
        expect_error(p, "pack content 2 beyond the 2 of pack");
    }
    forge(p, 1, "page_size=8192\nwindow=2\npack=needs.zcp\n", r, 0);
    expect_error(p, "pages of 4096 bytes");

    /* A missing pack: the open fails naming it. */
    assert_int_equal(zc_pack_writer_open(pk, PS, 1, &pw, NULL, 0), 0);
    o.pack = pw;
    write_seq(p, &s, &o);
    assert_int_equal(zc_pack_writer_close(pw, NULL, 0), 0);
    check_seq(p, &s);
    assert_int_equal(unlink(pk), 0);
    assert_int_equal(open_and_drain(p, msg, sizeof(msg)), -ZC_EIO);
    assert_non_null(strstr(msg, pk));
    assert_non_null(strstr(msg, "cannot open"));

    /* The text form carries its pages. */
    assert_int_equal(zc_pack_writer_open(pk, PS, 1, &pw, NULL, 0), 0);
    o.text = true;
    {
        zc_ops_writer *w;
        assert_int_equal(
            zc_ops_writer_open(zt_tmp_path("t.txt"), &o, &w, msg, sizeof(msg)),
            -ZC_EINVAL);
    }
    assert_int_equal(zc_pack_writer_close(pw, NULL, 0), 0);
    free_seq(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_binary_and_text_streams_round_trip_every_op),
        cmocka_unit_test(test_identical_contents_are_stored_once),
        cmocka_unit_test(test_every_truncation_of_a_stream_is_an_error),
        cmocka_unit_test(test_damaged_bytes_are_found_by_the_checksums),
        cmocka_unit_test(test_malformed_binary_streams_get_precise_errors),
        cmocka_unit_test(test_malformed_text_streams_name_the_line),
        cmocka_unit_test(test_player_counts_a_hand_written_stream),
        cmocka_unit_test(
            test_shared_pools_of_one_uuid_share_pages_and_their_end),
        cmocka_unit_test(test_player_passes_the_active_flag),
        cmocka_unit_test(test_player_counts_pages_read_ahead),
        cmocka_unit_test(test_player_verification_catches_foreign_data),
        cmocka_unit_test(test_a_saved_stream_replays_to_the_same_numbers),
        cmocka_unit_test(test_writer_rejects_bad_ops),
        cmocka_unit_test(test_counts_past_64_bits_are_refused_not_wrapped),
        cmocka_unit_test(test_header_fields_survive_both_forms),
        cmocka_unit_test(test_a_stream_with_a_pack_reads_back_as_one_without),
        cmocka_unit_test(test_a_stream_needs_its_pack),
    };
    return cmocka_run_group_tests(tests, zt_tmpdir_setup, zt_tmpdir_teardown);
}
