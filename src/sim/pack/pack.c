/*
 * sim/pack/pack.c - content packs (.zcp): every distinct page content of a
 * recording stored once, read back by id; and a map from page keys to ids.
 *
 * A recording's streams (block trace, access stream, kernel op stream)
 * need the bytes of the pages they name.  Most of those bytes repeat: a
 * page evicted ten times with the same content, zero pages, a file read by
 * two programs.  The pack stores each distinct content once, numbered 0,
 * 1, ... in order of first appearance, and maps keys (dev, ino, index) to
 * ids; streams then refer to ids.
 *
 * Layout (all integers little-endian):
 *
 *   header   8 bytes magic 89 'Z' 'C' 'P' 0D 0A 1A 0A, u16 major = 1,
 *            u16 minor = 1, u32 page size (a power of two, 512..65536).
 *   blocks   one after the other from offset 16: each one zstd frame (with
 *            zstd's content checksum) of `pages` whole contents, ids
 *            first .. first + pages - 1.  A block holds at most
 *            PACK_BLOCK_PAGES contents and PACK_BLOCK_BYTES bytes.
 *   index    per block 24 bytes: u64 file offset, u64 first content id,
 *            u32 stored (compressed) length, u32 page count.
 *   key map  per key 28 bytes, sorted by (dev, ino, index), each key once:
 *            u32 dev, u64 ino, u64 index, u64 content id.  ino 0: page
 *            `index` of block device dev.
 *   trailer  56 bytes: u64 offset of the index, u64 blocks, u64 contents,
 *            u64 keys, u64 the pack's id, u32 Adler-32 of the header, the
 *            index, the key map and the trailer's first 40 bytes, u32 zero,
 *            8 bytes end magic "ZCP-END\n".  (Version 1.0 had no id: a
 *            48-byte trailer without it; it is still read, with id 0.)
 *
 * The id is drawn when the writer opens (time, pid, address and a counter,
 * mixed; never 0).  Streams that refer to the pack by content id or by key
 * carry it in their header (pack_id), and their readers refuse a pack with
 * another id: a stream played with another recording's pack would give
 * wrong numbers and no error.
 *
 * Invariants a reader checks before it trusts anything (a damaged or
 * hostile file gives -ZC_EFORMAT and "FILE: offset N: what", never a crash
 * or an allocation larger than the file warrants): both magics; the sizes
 * add up exactly (index offset + 24 x blocks + 28 x keys + 48 = file size,
 * checked by division before any allocation); the checksum; blocks are
 * contiguous from offset 16 to the index, non-empty, with ids running on
 * from 0 to `contents`; keys strictly increasing with ids below
 * `contents`.  A block is checked when it is read: exactly one zstd frame
 * of exactly its length, with zstd's content checksum (the trailer's
 * Adler-32 does not cover the blocks: without it a flipped bit would be
 * another page), decompressing (checksum included) to exactly its pages.
 * A truncated file loses its trailer, so it never passes for a shorter
 * pack.
 *
 * Block size.  Measured with libzstd 1.5.4 at level 19 (content checksum
 * on) on 8192 distinct 4 KiB pages of /usr/include files (32 MiB) and on
 * 4096 distinct pages of /usr/lib/x86_64-linux-gnu shared objects, in
 * blocks of 1/16/64/256 pages:
 *
 *     pages per block      1      16      64     256
 *     headers ratio     3.90    6.15    7.05    7.75
 *     .so ratio         4.43    5.18    5.43    5.65
 *
 * 64 pages (256 KiB at 4 KiB pages) keeps 91% (text) and 96% (.so) of
 * the 256-page ratio, while a random read decompresses a quarter as much:
 * about 0.23 ms instead of 1.3 ms (zstd -b19 -B262144 and -B1048576 on 8
 * MiB of the header pages: 1139 and 787 MB/s).  Long-distance matching
 * gained 0.01% at 64 pages and is off.  (Measured with a throwaway program
 * over libzstd: the pages, deduplicated, cut into blocks, each compressed
 * with ZSTD_compress2(); not shipped.)
 *
 * Reading: the index and key map are held in memory (32 bytes per key);
 * blocks are decompressed on demand into a cache of PACK_CACHE blocks,
 * least recently used out.  128 blocks (32 MiB) hold every content of a
 * recording of up to 8192 distinct pages, so a replay decompresses each
 * block once: with 8 blocks, replaying traces/file-server.zca took 10.9 s,
 * nearly all of it decompressing the same blocks again; with 128, 1.1 s.
 *
 * Writing: contents are collected into the open block, which is
 * compressed and written when full; the index and map are written by
 * close.  Deduplication is exact: a 128-bit hash (base/hash.h) in an
 * open-addressing table of every stored content (24 bytes each) finds a
 * candidate, whose bytes are compared before its id is reused, from the
 * open block or read back from the file through the same block cache as
 * the reader's.  The key map is a second table, keyed by (dev, ino,
 * index), sorted at close.  So the writer holds O(distinct contents +
 * keys) in its tables, one block and the cache.  A writer that fails
 * removes its file on close.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <lzo/lzo1x.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "common/bytes.h"
#include "common/ctab.h"
#include "common/output.h"
#include "base/hash.h"
#include "pack.h"
#include "zcache_sim.h"

#define PACK_MAGIC "\x89ZCP\r\n\x1a\n"
#define PACK_END "ZCP-END\n"
#define PACK_MAJOR 1
#define PACK_MINOR 1

enum {
    PACK_HEADER = 16,
    PACK_INDEX_ENTRY = 24,
    PACK_KEY_ENTRY = 28,
    PACK_TRAILER = 56, /* 48 in version 1.0 */
    PACK_TRAILER_10 = 48,
    PACK_BLOCK_PAGES = 64,      /* the writer's block (see above) */
    PACK_BLOCK_BYTES = 4 << 20, /* a block's raw bytes, at most */
    PACK_CACHE = 128,           /* decompressed blocks kept (32 MiB at most
                                   with 4 KiB pages; allocated as used) */
    PACK_ERR = 512,
};

/* ---- what the reader and the writer share: blocks and their cache ----- */

struct block {
    uint64_t off, first;
    uint32_t len, pages;
};

struct slot {
    uint64_t block; /* valid when data */
    uint64_t used;  /* tick of the last use */
    uint8_t *data;
    size_t cap;
};

struct store {
    int fd;
    char *path;
    size_t page_size;
    struct block *blk;
    uint64_t nblk, blk_cap;
    struct slot slot[PACK_CACHE];
    uint64_t tick;
    ZSTD_DCtx *dctx;
    uint8_t *z;
    size_t zcap;
    char err[PACK_ERR];
};

static int sfail(struct store *s, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int sfail(struct store *s, int rc, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    zc__vfail(s->err, sizeof(s->err), s->path, fmt, ap);
    va_end(ap);
    return rc;
}

static void store_free(struct store *s)
{
    if (s->fd >= 0)
        close(s->fd);
    for (int i = 0; i < PACK_CACHE; i++)
        free(s->slot[i].data);
    ZSTD_freeDCtx(s->dctx);
    free(s->blk);
    free(s->z);
    free(s->path);
}

static int read_at(struct store *s, void *buf, size_t n, uint64_t off)
{
    size_t got = 0;

    while (got < n) {
        ssize_t r =
            pread(s->fd, (uint8_t *)buf + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return sfail(s, -ZC_EIO, "offset %" PRIu64 ": read error: %s",
                         off + got, strerror(errno));
        if (r == 0)
            return sfail(s, -ZC_EFORMAT,
                         "offset %" PRIu64 ": file ends %zu bytes early",
                         off + got, n - got);
        got += (size_t)r;
    }
    return 0;
}

/* The block holding content id (ids < the sum of the blocks' pages). */
static uint64_t block_of(const struct store *s, uint64_t id)
{
    uint64_t lo = 0, hi = s->nblk;

    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (s->blk[mid].first <= id)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Block b decompressed, from the cache or the file. */
static int block_data(struct store *s, uint64_t b, const uint8_t **out)
{
    const struct block *bk = &s->blk[b];
    size_t raw = (size_t)bk->pages * s->page_size, got;
    struct slot *victim = &s->slot[0];
    int rc;

    s->tick++;
    for (int i = 0; i < PACK_CACHE; i++) {
        struct slot *sl = &s->slot[i];
        if (sl->data && sl->block == b) {
            sl->used = s->tick;
            *out = sl->data;
            return 0;
        }
        if (!sl->data || (victim->data && sl->used < victim->used))
            victim = sl;
    }
    if (!s->dctx && !(s->dctx = ZSTD_createDCtx()))
        return sfail(s, -ZC_ENOMEM, "out of memory");
    if (s->zcap < bk->len) {
        uint8_t *z = realloc(s->z, bk->len);
        if (!z)
            return sfail(s, -ZC_ENOMEM, "out of memory");
        s->z = z;
        s->zcap = bk->len;
    }
    if (victim->cap < raw) {
        uint8_t *d = realloc(victim->data, raw);
        if (!d)
            return sfail(s, -ZC_ENOMEM, "out of memory");
        victim->data = d;
        victim->cap = raw;
    }
    victim->used = 0; /* invalid until filled */
    victim->block = UINT64_MAX;
    if ((rc = read_at(s, s->z, bk->len, bk->off)))
        return rc;
    if (ZSTD_findFrameCompressedSize(s->z, bk->len) != bk->len)
        return sfail(s, -ZC_EFORMAT,
                     "offset %" PRIu64 ": block %" PRIu64
                     " is not one zstd frame of %" PRIu32 " bytes",
                     bk->off, b, bk->len);
    if (ZC__CHECKSUMS && zc__zstd_frame_checksummed(s->z, bk->len) == 0)
        return sfail(s, -ZC_EFORMAT,
                     "offset %" PRIu64 ": block %" PRIu64
                     " is a zstd frame without a content checksum, which "
                     "alone guards a block's pages",
                     bk->off, b);
    got = ZSTD_decompressDCtx(s->dctx, victim->data, raw, s->z, bk->len);
    if (ZSTD_isError(got) &&
        ZSTD_getErrorCode(got) == ZSTD_error_memory_allocation)
        return sfail(s, -ZC_ENOMEM, "out of memory (decompressing)");
    if (ZSTD_isError(got) || got != raw)
        return sfail(s, -ZC_EFORMAT,
                     "offset %" PRIu64 ": block %" PRIu64
                     " does not decompress to its %" PRIu32 " pages: %s",
                     bk->off, b, bk->pages,
                     ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short");
    victim->block = b;
    victim->used = s->tick;
    *out = victim->data;
    return 0;
}

/* Pages per block for a page size. */
static uint32_t block_pages(size_t page_size)
{
    size_t n = PACK_BLOCK_BYTES / page_size;
    return n < PACK_BLOCK_PAGES ? (uint32_t)n : PACK_BLOCK_PAGES;
}

/* ---- keys --------------------------------------------------------------- */

struct key {
    uint32_t dev;
    uint64_t ino, index, id;
};

static int key_cmp(const struct key *a, const struct key *b)
{
    if (a->dev != b->dev)
        return a->dev < b->dev ? -1 : 1;
    if (a->ino != b->ino)
        return a->ino < b->ino ? -1 : 1;
    if (a->index != b->index)
        return a->index < b->index ? -1 : 1;
    return 0;
}

static int key_qcmp(const void *a, const void *b)
{
    return key_cmp(a, b);
}

static uint64_t key_hash(uint32_t dev, uint64_t ino, uint64_t index)
{
    return zc__fmix64(zc__fmix64(zc__fmix64(dev) ^ ino) ^ index);
}

/* ======================================================================== */
/* Writing                                                                  */
/* ======================================================================== */

struct keyslot {
    struct key k;
    bool used;
};

struct zc_pack_writer {
    struct store s; /* blocks written so far, and the cache */
    FILE *f;      /* zc_output_stream(o) */
    zc_output *o; /* written whole or not at all */
    int level;
    int rc;
    uint64_t off;       /* file offset of the next block */
    uint64_t ncontents; /* stored, incl. the open block */
    uint64_t id;
    uint8_t header[PACK_HEADER];
    uint8_t *open; /* the open block: contents first .. ncontents-1 */
    uint32_t open_pages, max_pages;
    uint8_t *zbuf;
    size_t zbuf_cap;
    ZSTD_CCtx *cctx;
    struct zc__ctab tab; /* every content: hash -> id */
    struct keyslot *keys;
    uint64_t kmask, kused;
};

static int wfail(struct zc_pack_writer *w, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int wfail(struct zc_pack_writer *w, int rc, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    zc__vfail(w->s.err, sizeof(w->s.err), w->s.path, fmt, ap);
    va_end(ap);
    w->rc = rc;
    return rc;
}

static int wout(struct zc_pack_writer *w, const void *p, size_t n)
{
    if (fwrite(p, 1, n, w->f) != n)
        return wfail(w, -ZC_EIO, "write error: %s", strerror(errno));
    w->off += n;
    return 0;
}

static int flush_block(struct zc_pack_writer *w)
{
    size_t raw = (size_t)w->open_pages * w->s.page_size, n;
    struct block *bk;

    if (!w->open_pages)
        return 0;
    if (w->s.nblk == w->s.blk_cap) {
        uint64_t cap = w->s.blk_cap ? w->s.blk_cap * 2 : 64;
        struct block *t = realloc(w->s.blk, cap * sizeof(*t));
        if (!t)
            return wfail(w, -ZC_ENOMEM, "out of memory");
        w->s.blk = t;
        w->s.blk_cap = cap;
    }
    n = ZSTD_compress2(w->cctx, w->zbuf, w->zbuf_cap, w->open, raw);
    if (ZSTD_isError(n))
        return wfail(w, -ZC_EIO, "zstd: %s", ZSTD_getErrorName(n));
    bk = &w->s.blk[w->s.nblk];
    bk->off = w->off;
    bk->first = w->ncontents - w->open_pages;
    bk->len = (uint32_t)n;
    bk->pages = w->open_pages;
    if (wout(w, w->zbuf, n))
        return w->rc;
    w->s.nblk++;
    w->open_pages = 0;
    return 0;
}

/* Content id's bytes, from the open block or read back from the file. */
static int stored_page(struct zc_pack_writer *w, uint64_t id,
                       const uint8_t **pg)
{
    uint64_t first = w->ncontents - w->open_pages, b;
    const uint8_t *data;
    int rc;

    if (id >= first) {
        *pg = w->open + (size_t)(id - first) * w->s.page_size;
        return 0;
    }
    if (fflush(w->f))
        return wfail(w, -ZC_EIO, "write error: %s", strerror(errno));
    b = block_of(&w->s, id);
    if ((rc = block_data(&w->s, b, &data))) {
        w->rc = rc; /* the message is in w->s.err */
        return rc;
    }
    *pg = data + (size_t)(id - w->s.blk[b].first) * w->s.page_size;
    return 0;
}

static int add(struct zc_pack_writer *w, const uint8_t *pg, uint64_t *id)
{
    uint64_t h[2], cur, old_id;
    int rc;

    zc__hash128(pg, w->s.page_size, h);
    for (cur = 0; zc__ctab_next(&w->tab, h, &cur, &old_id);) {
        const uint8_t *old = NULL;
        if ((rc = stored_page(w, old_id, &old)))
            return rc;
        if (!memcmp(old, pg, w->s.page_size)) {
            *id = old_id;
            return 0;
        }
    }
    if (w->open_pages == w->max_pages && flush_block(w))
        return w->rc;
    if (zc__ctab_insert(&w->tab, h, w->ncontents))
        return wfail(w, -ZC_ENOMEM, "out of memory");
    memcpy(w->open + (size_t)w->open_pages * w->s.page_size, pg,
           w->s.page_size);
    w->open_pages++;
    *id = w->ncontents++;
    return 0;
}

static int keys_grow(struct zc_pack_writer *w)
{
    uint64_t n = w->keys ? (w->kmask + 1) * 2 : 1024;
    struct keyslot *t = calloc(n, sizeof(*t));

    if (!t)
        return wfail(w, -ZC_ENOMEM, "out of memory");
    for (uint64_t j = 0; w->keys && j <= w->kmask; j++) {
        const struct key *k = &w->keys[j].k;
        uint64_t i;
        if (!w->keys[j].used)
            continue;
        for (i = key_hash(k->dev, k->ino, k->index) & (n - 1); t[i].used;
             i = (i + 1) & (n - 1))
            ;
        t[i] = w->keys[j];
    }
    free(w->keys);
    w->keys = t;
    w->kmask = n - 1;
    return 0;
}

static int map_key(struct zc_pack_writer *w, const struct key *k)
{
    uint64_t i;

    if ((!w->keys || (w->kused + 1) * 2 > w->kmask + 1) && keys_grow(w))
        return w->rc;
    for (i = key_hash(k->dev, k->ino, k->index) & w->kmask; w->keys[i].used;
         i = (i + 1) & w->kmask)
        if (!key_cmp(&w->keys[i].k, k)) {
            w->keys[i].k.id = k->id;
            return 0;
        }
    w->keys[i].k = *k;
    w->keys[i].used = true;
    w->kused++;
    return 0;
}

/* The index, the key map (sorted) and the trailer. */
static int write_index(struct zc_pack_writer *w)
{
    uint8_t e[PACK_TRAILER];
    uint64_t index_off = w->off, n = 0;
    uint32_t adler = lzo_adler32(1, w->header, PACK_HEADER);
    struct key *sorted;

    for (uint64_t b = 0; b < w->s.nblk; b++) {
        const struct block *bk = &w->s.blk[b];
        zc__put_le64(e, bk->off);
        zc__put_le64(e + 8, bk->first);
        zc__put_le32(e + 16, bk->len);
        zc__put_le32(e + 20, bk->pages);
        adler = lzo_adler32(adler, e, PACK_INDEX_ENTRY);
        if (wout(w, e, PACK_INDEX_ENTRY))
            return w->rc;
    }
    sorted = malloc((w->kused ? w->kused : 1) * sizeof(*sorted));
    if (!sorted)
        return wfail(w, -ZC_ENOMEM, "out of memory");
    for (uint64_t j = 0; w->keys && j <= w->kmask; j++)
        if (w->keys[j].used)
            sorted[n++] = w->keys[j].k;
    qsort(sorted, n, sizeof(*sorted), key_qcmp);
    for (uint64_t j = 0; j < n; j++) {
        zc__put_le32(e, sorted[j].dev);
        zc__put_le64(e + 4, sorted[j].ino);
        zc__put_le64(e + 12, sorted[j].index);
        zc__put_le64(e + 20, sorted[j].id);
        adler = lzo_adler32(adler, e, PACK_KEY_ENTRY);
        if (wout(w, e, PACK_KEY_ENTRY)) {
            free(sorted);
            return w->rc;
        }
    }
    free(sorted);
    zc__put_le64(e, index_off);
    zc__put_le64(e + 8, w->s.nblk);
    zc__put_le64(e + 16, w->ncontents);
    zc__put_le64(e + 24, n);
    zc__put_le64(e + 32, w->id);
    adler = lzo_adler32(adler, e, 40);
    zc__put_le32(e + 40, adler);
    zc__put_le32(e + 44, 0);
    memcpy(e + 48, PACK_END, 8);
    return wout(w, e, PACK_TRAILER);
}

/* A pack's id: unlike any other pack's, as far as 64 bits go. */
static uint64_t new_id(const struct zc_pack_writer *w)
{
    static uint64_t counter;
    struct timespec ts;
    uint64_t h[2], in[4];

    clock_gettime(CLOCK_REALTIME, &ts);
    in[0] = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    in[1] = (uint64_t)getpid();
    in[2] = (uint64_t)(uintptr_t)w;
    in[3] = ++counter;
    zc__hash128(in, sizeof(in), h);
    return h[0] ? h[0] : 1;
}

uint64_t zc_pack_writer_id(const zc_pack_writer *w)
{
    return w ? w->id : 0;
}

int zc_pack_writer_open(const char *path, size_t page_size, int level,
                        zc_pack_writer **out, char *err, size_t errlen)
{
    struct zc_pack_writer *w;
    uint8_t h[PACK_HEADER];
    size_t raw;
    int rc;

    if (err && errlen)
        err[0] = '\0';
    if (out)
        *out = NULL;
    if (!path || !out || !strcmp(path, "-") || !zc__page_size_ok(page_size) ||
        level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()) {
        if (err && errlen)
            snprintf(err, errlen,
                     "%s: bad pack writer arguments (a file path, not "
                     "\"-\"; page size a power of two in 512..65536; zstd "
                     "level %d..%d)",
                     path ? path : "(null)", ZSTD_minCLevel(),
                     ZSTD_maxCLevel());
        return -ZC_EINVAL;
    }
    w = calloc(1, sizeof(*w));
    if (!w || !(w->s.path = strdup(path))) {
        free(w);
        return -ZC_ENOMEM;
    }
    w->s.fd = -1;
    w->s.page_size = page_size;
    w->level = level ? level : 19;
    w->max_pages = block_pages(page_size);
    raw = (size_t)w->max_pages * page_size;
    w->zbuf_cap = ZSTD_compressBound(raw);
    w->open = malloc(raw);
    w->zbuf = malloc(w->zbuf_cap);
    w->cctx = ZSTD_createCCtx();
    if (!w->open || !w->zbuf || !w->cctx) {
        rc = wfail(w, -ZC_ENOMEM, "out of memory");
        goto fail;
    }
    if (ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel,
                                            w->level)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1))) {
        rc = wfail(w, -ZC_EINVAL, "zstd refuses level %d", w->level);
        goto fail;
    }
    if ((rc = zc_output_open(path, &w->o, w->s.err, sizeof(w->s.err)))) {
        w->rc = rc;
        goto fail;
    }
    if (!zc_output_atomic(w->o)) { /* a FIFO, a device */
        rc = wfail(w, -ZC_EINVAL,
                   "not a regular file: a pack's blocks are read back as "
                   "it is written");
        goto fail;
    }
    w->f = zc_output_stream(w->o);
    /* Duplicates are checked against blocks read back from the file. */
    if ((w->s.fd = open(zc_output_file(w->o), O_RDONLY | O_CLOEXEC)) < 0) {
        rc = wfail(w, -ZC_EIO, "cannot open to read back: %s", strerror(errno));
        goto fail;
    }
    w->id = new_id(w);
    memcpy(h, PACK_MAGIC, 8);
    zc__put_le16(h + 8, PACK_MAJOR);
    zc__put_le16(h + 10, PACK_MINOR);
    zc__put_le32(h + 12, (uint32_t)page_size);
    memcpy(w->header, h, sizeof(h));
    if ((rc = wout(w, h, sizeof(h))))
        goto fail;
    *out = w;
    return 0;
fail:
    if (err && errlen)
        snprintf(err, errlen, "%s", w->s.err);
    if (!w->rc)
        w->rc = rc; /* close writes nothing, abandons the file */
    zc_pack_writer_close(w, NULL, 0);
    return rc;
}

int zc_pack_add(zc_pack_writer *w, const void *page, uint64_t *id)
{
    uint64_t tmp;

    if (!w || !page)
        return -ZC_EINVAL;
    if (w->rc)
        return w->rc;
    return add(w, page, id ? id : &tmp);
}

int zc_pack_map(zc_pack_writer *w, uint32_t dev, uint64_t ino, uint64_t index,
                const void *page, uint64_t *id)
{
    struct key k = {.dev = dev, .ino = ino, .index = index};

    if (!w || !page)
        return -ZC_EINVAL;
    if (w->rc)
        return w->rc;
    if (add(w, page, &k.id) || map_key(w, &k))
        return w->rc;
    if (id)
        *id = k.id;
    return 0;
}

const char *zc_pack_writer_path(const zc_pack_writer *w)
{
    return w ? w->s.path : NULL;
}

const char *zc_pack_writer_error(const zc_pack_writer *w)
{
    return w && w->rc ? w->s.err : "";
}

void zc_pack_writer_abandon(zc_pack_writer *w)
{
    if (!w)
        return;
    if (!w->rc)
        w->rc = -ZC_ECANCELED; /* close writes no index, abandons the file */
    zc_pack_writer_close(w, NULL, 0);
}

int zc_pack_writer_close(zc_pack_writer *w, char *err, size_t errlen)
{
    int rc;

    if (err && errlen)
        err[0] = '\0';
    if (!w)
        return 0;
    if (w->f && !w->rc && !flush_block(w))
        write_index(w);
    w->rc = zc__output_end(&w->o, w->rc, w->s.err, sizeof(w->s.err));
    w->f = NULL;
    rc = w->rc;
    if (rc && err && errlen)
        snprintf(err, errlen, "%s", w->s.err);
    store_free(&w->s);
    ZSTD_freeCCtx(w->cctx);
    free(w->open);
    free(w->zbuf);
    zc__ctab_free(&w->tab);
    free(w->keys);
    free(w);
    return rc;
}

/* ======================================================================== */
/* Reading                                                                  */
/* ======================================================================== */

struct zc_pack {
    struct store s;
    uint64_t ncontents, nkeys, id;
    struct key *keys;
};

/* The blocks of the index, checked. */
static int parse_index(struct zc_pack *p, const uint8_t *e, uint64_t index_off)
{
    struct store *s = &p->s;
    uint64_t next_off = PACK_HEADER, next_id = 0;
    uint32_t max_pages = block_pages(s->page_size);

    for (uint64_t b = 0; b < s->nblk; b++, e += PACK_INDEX_ENTRY) {
        struct block *bk = &s->blk[b];
        uint64_t at = index_off + b * PACK_INDEX_ENTRY;
        bk->off = zc__get_le64(e);
        bk->first = zc__get_le64(e + 8);
        bk->len = zc__get_le32(e + 16);
        bk->pages = zc__get_le32(e + 20);
        if (bk->off != next_off)
            return sfail(s, -ZC_EFORMAT,
                         "offset %" PRIu64 ": block %" PRIu64 " at %" PRIu64
                         ", not at %" PRIu64 " where the one before ends",
                         at, b, bk->off, next_off);
        if (bk->first != next_id)
            return sfail(s, -ZC_EFORMAT,
                         "offset %" PRIu64 ": block %" PRIu64
                         " starts at content %" PRIu64 ", not %" PRIu64,
                         at, b, bk->first, next_id);
        if (bk->pages == 0 || bk->pages > max_pages || bk->len == 0 ||
            bk->len > index_off - bk->off)
            return sfail(s, -ZC_EFORMAT,
                         "offset %" PRIu64 ": block %" PRIu64 " of %" PRIu32
                         " pages in %" PRIu32
                         " bytes: out of range (1..%" PRIu32
                         " pages, within the blocks)",
                         at, b, bk->pages, bk->len, max_pages);
        next_off = bk->off + bk->len;
        next_id += bk->pages;
    }
    if (next_off != index_off || next_id != p->ncontents)
        return sfail(s, -ZC_EFORMAT,
                     "offset %" PRIu64 ": the blocks end at %" PRIu64
                     " with %" PRIu64
                     " contents; the trailer says the index is at %" PRIu64
                     " after %" PRIu64 " contents",
                     index_off, next_off, next_id, index_off, p->ncontents);
    return 0;
}

static int parse_keys(struct zc_pack *p, const uint8_t *e, uint64_t keys_off)
{
    for (uint64_t i = 0; i < p->nkeys; i++, e += PACK_KEY_ENTRY) {
        struct key *k = &p->keys[i];
        uint64_t at = keys_off + i * PACK_KEY_ENTRY;
        k->dev = zc__get_le32(e);
        k->ino = zc__get_le64(e + 4);
        k->index = zc__get_le64(e + 12);
        k->id = zc__get_le64(e + 20);
        if (k->id >= p->ncontents)
            return sfail(&p->s, -ZC_EFORMAT,
                         "offset %" PRIu64 ": key maps to content %" PRIu64
                         " of %" PRIu64,
                         at, k->id, p->ncontents);
        if (i && key_cmp(k - 1, k) >= 0)
            return sfail(&p->s, -ZC_EFORMAT,
                         "offset %" PRIu64 ": key map not sorted", at);
    }
    return 0;
}

/* Header, trailer, index and map. */
static int pack_load(struct zc_pack *p)
{
    struct store *s = &p->s;
    uint8_t h[PACK_HEADER], t[PACK_TRAILER], *tab = NULL;
    uint64_t size, index_off, avail, nblk;
    size_t tlen; /* the trailer's length: by the minor version */
    struct stat st;
    off_t end;
    int rc;

    if (fstat(s->fd, &st) || !S_ISREG(st.st_mode))
        return sfail(s, -ZC_EIO, "not a regular file");
    end = lseek(s->fd, 0, SEEK_END);
    if (end < 0)
        return sfail(s, -ZC_EIO, "cannot find its size: %s", strerror(errno));
    size = (uint64_t)end;
    if (size < PACK_HEADER)
        return sfail(s, -ZC_EFORMAT,
                     "offset 0: %" PRIu64 " bytes: too short for a pack", size);
    if ((rc = read_at(s, h, sizeof(h), 0)))
        return rc;
    if (memcmp(h, PACK_MAGIC, 8))
        return sfail(s, -ZC_EFORMAT, "offset 0: not a content pack (no magic)");
    if ((h[8] | h[9] << 8) != PACK_MAJOR)
        return sfail(s, -ZC_EFORMAT,
                     "offset 8: pack version %u.%u; this library reads "
                     "version %d",
                     h[8] | h[9] << 8, h[10] | h[11] << 8, PACK_MAJOR);
    if ((h[10] | h[11] << 8) > PACK_MINOR)
        return sfail(s, -ZC_EFORMAT,
                     "offset 10: pack version %d.%u, written by a newer "
                     "libzcache (this one reads up to %d.%d)",
                     PACK_MAJOR, h[10] | h[11] << 8, PACK_MAJOR, PACK_MINOR);
    if (!zc__page_size_ok(zc__get_le32(h + 12)))
        return sfail(s, -ZC_EFORMAT,
                     "offset 12: page size %" PRIu32
                     " not a power of two in 512..65536",
                     zc__get_le32(h + 12));
    s->page_size = zc__get_le32(h + 12);
    tlen = (h[10] | h[11] << 8) == 0 ? PACK_TRAILER_10 : PACK_TRAILER;
    if (size < PACK_HEADER + tlen)
        return sfail(s, -ZC_EFORMAT,
                     "offset %" PRIu64 ": no trailer (truncated?)", size);
    if ((rc = read_at(s, t, tlen, size - tlen)))
        return rc;
    if (memcmp(t + tlen - 8, PACK_END, 8))
        return sfail(s, -ZC_EFORMAT,
                     "offset %" PRIu64 ": no trailer (truncated?)",
                     size - tlen);
    index_off = zc__get_le64(t);
    nblk = zc__get_le64(t + 8);
    p->ncontents = zc__get_le64(t + 16);
    p->nkeys = zc__get_le64(t + 24);
    p->id = tlen == PACK_TRAILER ? zc__get_le64(t + 32) : 0;
    /* Every count against the bytes there are, before any allocation. */
    avail = size - tlen - PACK_HEADER;
    if (index_off < PACK_HEADER || index_off - PACK_HEADER > avail ||
        nblk > (avail -= index_off - PACK_HEADER) / PACK_INDEX_ENTRY ||
        p->nkeys > (avail - nblk * PACK_INDEX_ENTRY) / PACK_KEY_ENTRY ||
        avail != nblk * PACK_INDEX_ENTRY + p->nkeys * PACK_KEY_ENTRY ||
        p->ncontents > nblk * (uint64_t)block_pages(s->page_size))
        return sfail(s, -ZC_EFORMAT,
                     "offset %" PRIu64 ": trailer (index at %" PRIu64
                     ", %" PRIu64 " blocks, %" PRIu64 " contents, %" PRIu64
                     " keys) does not fit the file's %" PRIu64 " bytes",
                     size - tlen, index_off, nblk, p->ncontents, p->nkeys,
                     size);
    tab = malloc(avail ? avail : 1);
    s->blk = malloc((nblk ? nblk : 1) * sizeof(*s->blk));
    p->keys = malloc((p->nkeys ? p->nkeys : 1) * sizeof(*p->keys));
    if (!tab || !s->blk || !p->keys) {
        rc = sfail(s, -ZC_ENOMEM, "out of memory");
        goto out;
    }
    s->nblk = s->blk_cap = nblk;
    if ((rc = read_at(s, tab, avail, index_off)))
        goto out;
    if (zc__get_le32(t + tlen - 12) ||
        (ZC__CHECKSUMS &&
         lzo_adler32(lzo_adler32(lzo_adler32(1, h, PACK_HEADER), tab, avail), t,
                     tlen - 16) != zc__get_le32(t + tlen - 16))) {
        rc = sfail(s, -ZC_EFORMAT,
                   "offset %" PRIu64 ": index checksum mismatch", size - 16);
        goto out;
    }
    rc = parse_index(p, tab, index_off);
    if (!rc)
        rc = parse_keys(p, tab + nblk * PACK_INDEX_ENTRY,
                        index_off + nblk * PACK_INDEX_ENTRY);
out:
    free(tab);
    return rc;
}

int zc_pack_open(const char *path, zc_pack **out, char *err, size_t errlen)
{
    struct zc_pack *p;
    int rc;

    if (err && errlen)
        err[0] = '\0';
    if (!path || !out)
        return -ZC_EINVAL;
    *out = NULL;
    p = calloc(1, sizeof(*p));
    if (!p || !(p->s.path = strdup(path))) {
        free(p);
        return -ZC_ENOMEM;
    }
    /* O_NONBLOCK: a FIFO named as a pack must not hang the open. */
    p->s.fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    rc = p->s.fd < 0 ? sfail(&p->s, -ZC_EIO, "cannot open: %s", strerror(errno))
                     : pack_load(p);
    if (rc) {
        if (err && errlen)
            snprintf(err, errlen, "%s", p->s.err);
        zc_pack_close(p);
        return rc;
    }
    p->s.err[0] = '\0';
    *out = p;
    return 0;
}

size_t zc_pack_page_size(const zc_pack *p)
{
    return p ? p->s.page_size : 0;
}

uint64_t zc_pack_id(const zc_pack *p)
{
    return p ? p->id : 0;
}

uint64_t zc_pack_contents(const zc_pack *p)
{
    return p ? p->ncontents : 0;
}

uint64_t zc_pack_keys(const zc_pack *p)
{
    return p ? p->nkeys : 0;
}

int zc_pack_page(zc_pack *p, uint64_t id, void *page)
{
    const uint8_t *data;
    uint64_t b;
    int rc;

    if (!p || !page || id >= p->ncontents)
        return -ZC_EINVAL;
    b = block_of(&p->s, id);
    if ((rc = block_data(&p->s, b, &data)))
        return rc;
    memcpy(page, data + (size_t)(id - p->s.blk[b].first) * p->s.page_size,
           p->s.page_size);
    return 0;
}

int zc_pack_lookup(const zc_pack *p, uint32_t dev, uint64_t ino, uint64_t index,
                   uint64_t *id)
{
    struct key k = {.dev = dev, .ino = ino, .index = index};
    const struct key *f;

    if (!p)
        return -ZC_EINVAL;
    f = p->nkeys ? bsearch(&k, p->keys, p->nkeys, sizeof(k), key_qcmp) : NULL;
    if (!f)
        return -ZC_ENOENT;
    if (id)
        *id = f->id;
    return 0;
}

const char *zc_pack_error(const zc_pack *p)
{
    return p ? p->s.err : "";
}

void zc_pack_close(zc_pack *p)
{
    if (!p)
        return;
    store_free(&p->s);
    free(p->keys);
    free(p);
}
