/*
 * test_formats_hard.c - the binary formats and their neighbours under
 * attack (issue 33, items 3, 5 and 17): what must be refused, and what
 * must not be lost.
 *
 *   - An access stream's records and a pack's blocks are guarded by zstd's
 *     content checksum alone, so a frame without one (zstd --no-check) is
 *     refused, naming the file and the frame's offset.  Every single-bit
 *     flip of a small stream, with the checksum and recompressed without
 *     it, is refused or reads as the same requests: none changes the
 *     numbers and reads to its end (before: 739 of 5,216 flips of a
 *     652-byte stream without the checksum did; and with it, one flip of
 *     the magic's first byte read as an empty vscsi trace, whose header
 *     line is now printable text only).
 *   - A file size near 2^64 in the converter's sizes list keeps its reads
 *     (its page count wrapped to 0 and every read was dropped as past the
 *     end).
 *   - A pack that the trace's header names and that cannot be opened is
 *     named as the header's (pack=), with the way out: another content
 *     source.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <lzo/lzo1x.h>
#include <zstd.h>

#include "zcache_sim.h"
#include "zt_util.h"

#define PS 4096

/* ---- helpers -------------------------------------------------------------
 */

/* A read drained to its end, the format sniffed as the tools do: the
 * open's or the last next()'s result, the requests and a hash of every
 * field of them and of the resident sample after each; the message (after
 * a complete read: the format). */
struct drained {
    int rc; /* 0: read to its end; else the error */
    uint64_t n, hash;
    char msg[1024];
};

static uint64_t mix(uint64_t h, uint64_t v)
{
    return zt_mix64(h ^ zt_mix64(v + 0x9e3779b97f4a7c15ull));
}

static void drain(const char *path, struct drained *d)
{
    zc_trace *t;
    zc_request q;
    int rc;

    memset(d, 0, sizeof(*d));
    rc = zc_trace_open(&path, 1, NULL, &t, d->msg, sizeof(d->msg));
    if (rc) {
        d->rc = rc;
        return;
    }
    while ((rc = zc_trace_next(t, &q)) == 1) {
        uint64_t res = 0;
        int have = zc_trace_resident(t, q.dev, &res);
        uint64_t v[] = {q.dev,          q.ino,   q.offset,    q.length,
                        q.write,        q.flags, q.file_size, q.time_ns,
                        (uint64_t)have, res};
        for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
            d->hash = mix(d->hash, v[i]);
        d->n++;
    }
    d->rc = rc;
    if (rc)
        snprintf(d->msg, sizeof(d->msg), "%s", zc_trace_error(t));
    else
        snprintf(d->msg, sizeof(d->msg), "read as %s", zc_trace_format(t));
    zc_trace_close(t);
}

/* A small binary access stream at path, as the writer makes it (zstd
 * level 1, with the checksum), header fields meta (or none). */
static void small_stream(const char *path, const char *meta)
{
    zc_access_writer_options o = {.page_size = PS, .level = 1, .meta = meta};
    zc_access_writer *w;
    char err[512];
    zt_rng r;

    zt_rng_seed(&r, 33);
    assert_int_equal(zc_access_writer_open(path, &o, &w, err, sizeof(err)), 0);
    for (uint64_t i = 0; i < 48; i++) {
        zc_request q = {.dev = 7u << 20 | 1,
                        .ino = 11 + zt_rng_below(&r, 5),
                        .offset = zt_rng_below(&r, 64) * PS,
                        .length = (1 + zt_rng_below(&r, 4)) * PS,
                        .write = zt_rng_below(&r, 5) == 0,
                        .time_ns = i * 1000 + zt_rng_below(&r, 1000)};
        if (i % 3 == 0) {
            q.flags = ZC_REQ_SIZE;
            q.file_size = 70 * PS + zt_rng_below(&r, PS);
        }
        if (i % 8 == 0)
            assert_int_equal(
                zc_access_write_resident(w, q.time_ns, q.dev, 100 + i), 0);
        assert_int_equal(zc_access_write(w, &q), 0);
    }
    assert_int_equal(zc_access_writer_close(w, err, sizeof(err)), 0);
}

/* The bytes of every zstd frame of z[zlen] (one or more), decompressed. */
static unsigned char *unzstd(const unsigned char *z, size_t zlen, size_t *len)
{
    ZSTD_DCtx *d = ZSTD_createDCtx();
    size_t cap = 1 << 20;
    unsigned char *out = malloc(cap);
    ZSTD_inBuffer in = {z, zlen, 0};
    ZSTD_outBuffer o = {out, cap, 0};

    assert_non_null(d);
    assert_non_null(out);
    while (in.pos < in.size)
        assert_false(ZSTD_isError(ZSTD_decompressStream(d, &o, &in)));
    assert_true(o.pos < cap);
    ZSTD_freeDCtx(d);
    *len = o.pos;
    return out;
}


/* The file at path recompressed as `zstd -d | zstd --no-check` does, into
 * name; its path. */
static const char *without_checksum(const char *path, const char *name)
{
    size_t zlen, len, nlen;
    unsigned char *z = zt_read_file(path, &zlen);
    unsigned char *raw = unzstd(z, zlen, &len);
    unsigned char *n = zt_zstd_frame(raw, len, 0, &nlen);
    const char *out = zt_write_tmp(name, n, nlen);

    assert_int_equal(n[4] & 4, 0); /* the frame says: no checksum */
    free(z);
    free(raw);
    free(n);
    return out;
}

static void assert_says(const char *msg, const char *want)
{
    if (!strstr(msg, want))
        fail_msg("message \"%s\" lacks \"%s\"", msg, want);
}

/* ---- item 3: frames without zstd's content checksum ----------------------
 */

static void test_access_stream_without_zstd_checksum_is_refused(void **state)
{
    const char *ok = zt_tmp_path("small.zca"), *bad;
    struct drained whole, d;
    size_t zlen, len, n1, n2;
    unsigned char *z, *raw, *f1, *f2, *two;
    char where[64];

    (void)state;
    small_stream(ok, NULL);
    drain(ok, &whole);
    assert_int_equal(whole.rc, 0);
    assert_int_equal(whole.n, 48);

    /* zstd -d | zstd --no-check: the frame at offset 0 */
    bad = without_checksum(ok, "nocheck.zca");
    drain(bad, &d);
    assert_int_equal(d.rc, -ZC_EFORMAT);
    assert_says(d.msg, bad);
    assert_says(d.msg, ": offset 0: ");
    assert_says(d.msg, "without a content checksum");
    assert_null(strchr(d.msg, '\n'));

    /* two frames, the second without it: refused at the second's offset
     * in the compressed file, before any request of its bytes */
    z = zt_read_file(ok, &zlen);
    raw = unzstd(z, zlen, &len);
    f1 = zt_zstd_frame(raw, len / 2, 1, &n1);
    f2 = zt_zstd_frame(raw + len / 2, len - len / 2, 0, &n2);
    two = malloc(n1 + n2);
    assert_non_null(two);
    memcpy(two, f1, n1);
    memcpy(two + n1, f2, n2);
    bad = zt_write_tmp("second.zca", two, n1 + n2);
    drain(bad, &d);
    assert_int_equal(d.rc, -ZC_EFORMAT);
    snprintf(where, sizeof(where), ": offset %zu: ", n1);
    assert_says(d.msg, where);
    assert_says(d.msg, "without a content checksum");
    /* the same two frames, both with it, read as the one stream */
    free(f2);
    f2 = zt_zstd_frame(raw + len / 2, len - len / 2, 1, &n2);
    two = realloc(two, n1 + n2); /* the checksum makes the frame longer */
    assert_non_null(two);
    memcpy(two + n1, f2, n2);
    drain(zt_write_tmp("both.zca", two, n1 + n2), &d);
    assert_int_equal(d.rc, 0);
    assert_int_equal(d.n, whole.n);
    assert_true(d.hash == whole.hash);
    free(z);
    free(raw);
    free(f1);
    free(f2);
    free(two);
}

/* The same behind a skippable frame that ends two bytes before the reader's
 * first read of 1 MiB does: the frame's header is read across two reads. */
static void test_frame_header_across_reads_is_checked(void **state)
{
    const size_t at = (1u << 20) - 2;
    const char *ok = zt_tmp_path("pad.zca");
    struct drained whole, d;
    size_t zlen, len, flen;
    unsigned char *z, *raw, *frame, *b;
    char where[64];

    (void)state;
    small_stream(ok, NULL);
    drain(ok, &whole);
    z = zt_read_file(ok, &zlen);
    raw = unzstd(z, zlen, &len);
    for (int checksum = 1; checksum >= 0; checksum--) {
        frame = zt_zstd_frame(raw, len, checksum, &flen);
        b = calloc(1, at + flen);
        assert_non_null(b);
        memcpy(b, "\x50\x2a\x4d\x18", 4); /* skippable, at - 8 bytes */
        zt_put_le32(b + 4, (uint32_t)(at - 8));
        memcpy(b + at, frame, flen);
        drain(zt_write_tmp("padded.zca", b, at + flen), &d);
        if (checksum) {
            if (d.rc)
                fail_msg("%s", d.msg);
            assert_int_equal(d.n, whole.n);
            assert_true(d.hash == whole.hash);
        } else {
            assert_int_equal(d.rc, -ZC_EFORMAT);
            snprintf(where, sizeof(where), ": offset %zu: ", at);
            assert_says(d.msg, where);
            assert_says(d.msg, "without a content checksum");
        }
        free(frame);
        free(b);
    }
    free(z);
    free(raw);
}

/* Every single-bit flip of the file at path: refused, or read to its end
 * as the same requests; the number that read to the end otherwise.  The
 * flipped copy is changed in place, one byte at a time. */
static uint64_t flips_that_change(const char *path, const struct drained *ref,
                                  uint64_t *flips)
{
    size_t len;
    unsigned char *b = zt_read_file(path, &len);
    const char *flipped = zt_write_tmp("flipped.zca", b, len);
    int fd = open(flipped, O_WRONLY);
    uint64_t changed = 0;
    struct drained d;

    assert_true(fd >= 0);
    *flips = 0;
    for (size_t i = 0; i < len; i++) {
        for (int bit = 0; bit < 8; bit++) {
            unsigned char c = (unsigned char)(b[i] ^ (1u << bit));
            assert_int_equal(pwrite(fd, &c, 1, (off_t)i), 1);
            drain(flipped, &d);
            (*flips)++;
            if (d.rc == 0 && (d.n != ref->n || d.hash != ref->hash) &&
                changed++ < 5)
                print_message("bit %d of byte %zu flipped: %llu requests, "
                              "%s\n",
                              bit, i, (unsigned long long)d.n, d.msg);
        }
        assert_int_equal(pwrite(fd, &b[i], 1, (off_t)i), 1);
    }
    close(fd);
    free(b);
    return changed;
}

static void test_no_bit_flip_of_a_small_stream_changes_the_numbers(void **state)
{
    const char *ok = zt_tmp_path("flip.zca"), *bad;
    struct drained ref;
    uint64_t flips, bad_flips, changed, bad_changed;

    (void)state;
    small_stream(ok, NULL);
    drain(ok, &ref);
    assert_int_equal(ref.rc, 0);
    /* the writer's stream, with the checksum, and the same records
     * recompressed without it */
    changed = flips_that_change(ok, &ref, &flips);
    bad = without_checksum(ok, "flip-nocheck.zca");
    bad_changed = flips_that_change(bad, &ref, &bad_flips);
    if (changed || bad_changed)
        fail_msg("bit flips read as other requests: %llu of %llu with zstd's "
                 "checksum, %llu of %llu without it",
                 (unsigned long long)changed, (unsigned long long)flips,
                 (unsigned long long)bad_changed,
                 (unsigned long long)bad_flips);
}

/* A pack of three distinct pages in one block, rewritten with the block as
 * a zstd frame with or without the content checksum, the index and the
 * trailer (its Adler-32) made to agree; its path. */
static const char *pack_rewritten(const char *name, int checksum)
{
    const char *path = zt_tmp_path("orig.zcp");
    zc_pack_writer *w;
    unsigned char page[PS], *b, *raw, *frame, *out, *p;
    size_t len, flen, n;
    uint64_t id, index_off, blocks, keys;
    uint32_t adler;
    char err[512];
    const char *made;

    assert_int_equal(zc_pack_writer_open(path, PS, 1, &w, err, sizeof(err)), 0);
    for (int i = 0; i < 3; i++) {
        zt_fill_random(page, PS, 100 + (uint64_t)i);
        assert_int_equal(zc_pack_add(w, page, &id), 0);
        assert_int_equal(id, (uint64_t)i);
    }
    assert_int_equal(zc_pack_writer_close(w, err, sizeof(err)), 0);
    b = zt_read_file(path, &len);
    /* header 16 bytes, the block, index (24 a block), keys (28 each),
     * trailer 56 bytes: index offset, blocks, contents, keys, id, Adler-32,
     * zero, end magic */
    p = b + len - 56;
    index_off = p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
                (uint64_t)p[3] << 24;
    blocks = p[8];
    keys = p[24];
    assert_int_equal(blocks, 1);
    assert_int_equal(keys, 0);
    assert_int_equal(memcmp(b + len - 8, "ZCP-END\n", 8), 0);
    raw = malloc(3 * PS);
    assert_non_null(raw);
    assert_int_equal(ZSTD_decompress(raw, 3 * PS, b + 16, index_off - 16),
                     3 * PS);
    frame = zt_zstd_frame(raw, 3 * PS, checksum, &flen);
    n = 16 + flen + 24 + 56;
    out = malloc(n);
    assert_non_null(out);
    memcpy(out, b, 16);
    memcpy(out + 16, frame, flen);
    memcpy(out + 16 + flen, b + index_off, 24);
    zt_put_le32(out + 16 + flen + 16, (uint32_t)flen); /* stored length */
    memcpy(out + n - 56, b + len - 56, 56);
    memset(out + n - 56, 0, 8);
    zt_put_le32(out + n - 56, (uint32_t)(16 + flen)); /* index offset */
    adler = lzo_adler32(1, out, 16);
    adler = lzo_adler32(adler, out + 16 + flen, 24);
    adler = lzo_adler32(adler, out + n - 56, 40);
    zt_put_le32(out + n - 16, adler);
    made = zt_write_tmp(name, out, n);
    free(b);
    free(raw);
    free(frame);
    free(out);
    return made;
}

static void test_pack_block_without_zstd_checksum_is_refused(void **state)
{
    unsigned char page[PS], want[PS];
    zc_pack *p;
    char err[512];
    const char *path;

    (void)state;
    /* the rewriting is right: with the checksum, the pages read */
    path = pack_rewritten("check.zcp", 1);
    assert_int_equal(zc_pack_open(path, &p, err, sizeof(err)), 0);
    assert_int_equal(zc_pack_page(p, 2, page), 0);
    zt_fill_random(want, PS, 102);
    assert_memory_equal(page, want, PS);
    zc_pack_close(p);
    /* without it, the block is refused where it is */
    path = pack_rewritten("nocheck.zcp", 0);
    assert_int_equal(zc_pack_open(path, &p, err, sizeof(err)), 0);
    assert_int_equal(zc_pack_page(p, 2, page), -ZC_EFORMAT);
    assert_says(zc_pack_error(p), path);
    assert_says(zc_pack_error(p), "offset 16: block 0");
    assert_says(zc_pack_error(p), "without a content checksum");
    zc_pack_close(p);
}

/* ---- item 5: sizes near 2^64 ---------------------------------------------
 */

static void test_sizes_near_2_64_keep_the_reads(void **state)
{
    /* reads of two pages of inodes 0x1f and 0x20, whose sizes are 2^64 - 1
     * and 2^64 - 4095: ceil(size / 4096) is 2^52, not 0 */
    static const char sizes[] = "31 18446744073709551615\n"
                                "32 18446744073709547521\n";
    zc_tracefs_options o = zc_tracefs_options_default();
    zc_tracefs_summary s;
    FILE *f = fopen(zt_tmp_path("big.trace"), "w");
    zc_trace *t;
    zc_request q;
    char err[512];

    (void)state;
    assert_non_null(f);
    fprintf(f,
            "%16s [000] ..... 100.000000: mm_filemap_get_pages: dev=7:0 "
            "ino=1f ofs=0-8191\n",
            "cat-7");
    fprintf(f,
            "%16s [000] ..... 100.001000: mm_filemap_get_pages: dev=7:0 "
            "ino=20 ofs=0-8191\n",
            "cat-7");
    assert_int_equal(fclose(f), 0);
    o.input = zt_tmp_path("big.trace");
    o.dev = 7u << 20;
    o.dev_set = true;
    o.sizes = zt_write_tmp("big.sizes", sizes, strlen(sizes));
    o.access = zt_tmp_path("big.zca");
    if (zc_tracefs_convert(&o, &s, err, sizeof(err)))
        fail_msg("%s", err);
    assert_int_equal(s.reads, 4);
    assert_int_equal(s.past_eof, 0);
    assert_int_equal(s.clipped_pages, 0);
    assert_int_equal(zc_trace_open(&o.access, 1, NULL, &t, err, sizeof(err)),
                     0);
    assert_int_equal(zc_trace_next(t, &q), 1);
    assert_int_equal(q.ino, 0x1f);
    assert_int_equal(q.length, 2 * PS);
    assert_true(q.flags & ZC_REQ_SIZE);
    assert_true(q.file_size == UINT64_MAX);
    assert_int_equal(zc_trace_next(t, &q), 1);
    assert_int_equal(q.ino, 0x20);
    assert_true(q.file_size == UINT64_MAX - 4094);
    assert_int_equal(zc_trace_next(t, &q), 0);
    zc_trace_close(t);
}

/* ---- item 17: the header's pack, missing ---------------------------------
 */

static void test_missing_header_pack_is_named_as_the_headers(void **state)
{
    const char *path = zt_tmp_path("named.zca");
    zc_session_options so = {0};
    zc_session *s = NULL;
    char err[4096];

    (void)state;
    small_stream(path, "pack=absent.zcp\n");
    assert_int_not_equal(zc_session_open(&path, 1, NULL, &s, err, sizeof(err)),
                         0);
    assert_null(s);
    assert_null(strchr(err, '\n'));
    /* the trace, the field, the file and why, and the way out */
    assert_int_equal(strncmp(err, path, strlen(path)), 0);
    assert_says(err, "its header's pack=absent.zcp");
    assert_says(err, "absent.zcp: cannot open");
    assert_says(err, "another content source");
    /* which works */
    so.content = "synth";
    assert_int_equal(zc_session_open(&path, 1, &so, &s, err, sizeof(err)), 0);
    zc_session_close(s);
    /* a caller's source that fails is the caller's, not the header's */
    so.content = "pack:elsewhere.zcp";
    assert_int_not_equal(zc_session_open(&path, 1, &so, &s, err, sizeof(err)),
                         0);
    assert_says(err, "elsewhere.zcp: cannot open");
    assert_null(strstr(err, "header"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_access_stream_without_zstd_checksum_is_refused),
        cmocka_unit_test(test_frame_header_across_reads_is_checked),
        cmocka_unit_test(
            test_no_bit_flip_of_a_small_stream_changes_the_numbers),
        cmocka_unit_test(test_pack_block_without_zstd_checksum_is_refused),
        cmocka_unit_test(test_sizes_near_2_64_keep_the_reads),
        cmocka_unit_test(test_missing_header_pack_is_named_as_the_headers),
    };

    return cmocka_run_group_tests(tests, zt_tmpdir_setup, zt_tmpdir_teardown);
}
