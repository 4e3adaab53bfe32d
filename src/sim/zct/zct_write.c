/*
 * sim/zct/zct_write.c - writing op streams (.zct), binary and text.
 *
 * Records are appended to a block of at most 1 MiB, which is compressed
 * (LZO1X-1, or LZO1X-999 for files that ship) and written when the next
 * record would not fit; so the writer holds one block, plus the contents
 * of the window.  Contents are deduplicated exactly: a 128-bit hash finds
 * a candidate among the contents in the window, and the bytes are
 * compared before a put refers to it.  The hash table holds only contents
 * in the window (a content leaving it is deleted), so it stays below twice
 * the window.  Page-cache hits arriving one by one are merged into one
 * pc_hits record.  With a content pack (zc_ops_writer_options.pack), a
 * content entering the window is added to the pack and defined by its
 * pack id (a 12 record) instead of its bytes; same-filled pages stay 11
 * records, which are smaller, and are not added.  The header then names
 * the pack by its base name (the reader looks beside the stream) and its
 * id (pack_id: the reader refuses a pack with another).  The
 * text form carries its pages and takes no pack.  The layout is in zct.h;
 * the text form in zct_text.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <inttypes.h>
#include <lzo/lzo1x.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/ctab.h"
#include "base/hash.h"
#include "common/meta.h"
#include "common/output.h"
#include "zct.h"

struct zc_ops_writer {
    FILE *f;      /* zc_output_stream(o) */
    zc_output *o; /* written whole or not at all */
    char *path;
    bool text;
    int level;
    size_t page_size;
    uint32_t window;
    int rc;
    char err[ZCT_ERR];
    uint8_t *inited;
    uint64_t nops, hits;
    zc_pack_writer *pack; /* not owned */

    /* binary */
    uint8_t *blk, *zbuf;
    size_t blk_len;
    void *wrk;

    /* contents in the window, and the table of their hashes */
    uint8_t *ring;
    uint64_t (*ring_hash)[2];
    size_t ring_slots;
    uint64_t ncontents;
    struct zc__ctab tab;
};

static int wfail(struct zc_ops_writer *w, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int wfail(struct zc_ops_writer *w, int rc, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    zc__vfail(w->err, sizeof(w->err), w->path, fmt, ap);
    va_end(ap);
    w->rc = rc;
    return rc;
}

static int out(struct zc_ops_writer *w, const void *p, size_t n)
{
    if (fwrite(p, 1, n, w->f) != n)
        return wfail(w, -ZC_EIO, "write error: %s", strerror(errno));
    return 0;
}

/* ---- binary blocks ------------------------------------------------------ */

static int flush_block(struct zc_ops_writer *w)
{
    uint8_t h[ZCT_BLOCK_HDR];
    lzo_uint n = 0;
    int ok = LZO_E_ERROR;

    if (!w->blk_len)
        return 0;
    memset(h, 0, sizeof(h));
    zc__put_le32(h, (uint32_t)w->blk_len);
    zc__put_le32(h + 12, lzo_adler32(1, w->blk, w->blk_len));
    if (w->level >= 9)
        ok = lzo1x_999_compress(w->blk, w->blk_len, w->zbuf, &n, w->wrk);
    else if (w->level > 0)
        ok = lzo1x_1_compress(w->blk, w->blk_len, w->zbuf, &n, w->wrk);
    if (ok == LZO_E_OK && n < w->blk_len) {
        h[8] = 1;
        zc__put_le32(h + 4, (uint32_t)n);
    } else {
        n = w->blk_len;
        zc__put_le32(h + 4, (uint32_t)n);
    }
    if (out(w, h, sizeof(h)) || out(w, h[8] ? w->zbuf : w->blk, n))
        return w->rc;
    w->blk_len = 0;
    return 0;
}

/* Make room for a record of n bytes in the block. */
static int room(struct zc_ops_writer *w, size_t n)
{
    return w->blk_len + n > ZCT_BLOCK_MAX ? flush_block(w) : 0;
}

static size_t key_bytes(uint8_t *p, const zc_filekey *k)
{
    uint64_t ino;

    if (zc__key_is_ino(k, &ino)) {
        p[0] = 0;
        return 1 + zc__varint_put(p + 1, ino);
    }
    p[0] = 1;
    for (int i = 0; i < 6; i++)
        zc__put_le32(p + 1 + 4 * i, k->fh[i]);
    return 25;
}

static int record(struct zc_ops_writer *w, const uint8_t *rec, size_t n)
{
    if (room(w, n))
        return w->rc;
    memcpy(w->blk + w->blk_len, rec, n);
    w->blk_len += n;
    return 0;
}

/* ---- contents ----------------------------------------------------------- */

static bool same_filled(const uint8_t *pg, size_t ps)
{
    for (size_t i = 8; i < ps; i += 8)
        if (memcmp(pg, pg + i, 8))
            return false;
    return true;
}

/* The content number of page: an equal content in the window, or a new
 * content record. */
static int content_of(struct zc_ops_writer *w, const uint8_t *pg, uint64_t *id)
{
    uint64_t h[2], cur, c;
    size_t slot, n;
    uint8_t *rec;

    zc__hash128(pg, w->page_size, h);
    for (cur = 0; zc__ctab_next(&w->tab, h, &cur, &c);)
        if (!memcmp(w->ring + (c % w->window) * w->page_size, pg,
                    w->page_size)) {
            *id = c;
            return 0;
        }

    /* A new content: it takes the ring slot of the one leaving the
     * window, whose table entry goes. */
    if (w->ncontents < w->window && w->ncontents == w->ring_slots) {
        size_t cap = w->ring_slots ? w->ring_slots * 2 : 64;
        void *t;
        if (cap > w->window)
            cap = w->window;
        t = realloc(w->ring, cap * w->page_size);
        if (!t)
            return wfail(w, -ZC_ENOMEM, "out of memory");
        w->ring = t;
        t = realloc(w->ring_hash, cap * sizeof(*w->ring_hash));
        if (!t)
            return wfail(w, -ZC_ENOMEM, "out of memory");
        w->ring_hash = t;
        w->ring_slots = cap;
    }
    slot = (size_t)(w->ncontents % w->window);
    if (w->ncontents >= w->window)
        zc__ctab_remove(&w->tab, w->ring_hash[slot], w->ncontents - w->window);
    if (zc__ctab_insert(&w->tab, h, w->ncontents))
        return wfail(w, -ZC_ENOMEM, "out of memory");
    memcpy(w->ring + slot * w->page_size, pg, w->page_size);
    memcpy(w->ring_hash[slot], h, sizeof(h));
    *id = w->ncontents++;

    if (w->pack && !same_filled(pg, w->page_size)) {
        uint8_t r[1 + ZC__VARINT_MAX];
        uint64_t pid;
        int rc = zc_pack_add(w->pack, pg, &pid);
        if (rc)
            return wfail(w, rc, "%s", zc_pack_writer_error(w->pack));
        r[0] = ZCT_CONTENT_PACK;
        return record(w, r, 1 + zc__varint_put(r + 1, pid));
    }
    n = same_filled(pg, w->page_size) ? 9 : 1 + w->page_size;
    if (room(w, n))
        return w->rc;
    rec = w->blk + w->blk_len;
    rec[0] = n == 9 ? ZCT_CONTENT_FILL : ZCT_CONTENT_RAW;
    memcpy(rec + 1, pg, n - 1);
    w->blk_len += n;
    return 0;
}

/* ---- records ------------------------------------------------------------ */

static int binary_op(struct zc_ops_writer *w, const zc_op *op)
{
    static const uint8_t code[] = {
        [ZC_OP_INIT_FS] = ZCT_INIT_FS,
        [ZC_OP_INIT_SHARED_FS] = ZCT_INIT_SHARED_FS,
        [ZC_OP_PUT] = ZCT_PUT,
        [ZC_OP_GET] = ZCT_GET,
        [ZC_OP_INVALIDATE_PAGE] = ZCT_INVALIDATE_PAGE,
        [ZC_OP_INVALIDATE_INODE] = ZCT_INVALIDATE_INODE,
        [ZC_OP_INVALIDATE_FS] = ZCT_INVALIDATE_FS,
        [ZC_OP_PC_HITS] = ZCT_PC_HITS,
    };
    uint8_t rec[96];
    size_t n = 1;
    uint64_t id = 0;

    if (op->kind == ZC_OP_PUT && content_of(w, op->page, &id))
        return w->rc;
    rec[0] = code[op->kind];
    if (op->kind == ZC_OP_PUT && (op->flags & ZC_OP_PUT_ACTIVE))
        rec[0] = ZCT_PUT_ACTIVE;
    if (op->kind == ZC_OP_GET && (op->flags & ZC_OP_GET_AHEAD))
        rec[0] = ZCT_GET_AHEAD;
    if (op->kind == ZC_OP_PC_HITS) {
        n += zc__varint_put(rec + n, op->count);
        return record(w, rec, n);
    }
    n += zc__varint_put(rec + n, op->pool);
    switch (op->kind) {
    case ZC_OP_INIT_SHARED_FS:
    case ZC_OP_INIT_FS:
        n += zc__varint_put(rec + n, op->page_size);
        if (op->kind == ZC_OP_INIT_SHARED_FS) {
            memcpy(rec + n, op->uuid, 16);
            n += 16;
        }
        break;
    case ZC_OP_PUT:
    case ZC_OP_GET:
    case ZC_OP_INVALIDATE_PAGE:
        n += key_bytes(rec + n, &op->key);
        n += zc__varint_put(rec + n, op->index);
        if (op->kind == ZC_OP_INVALIDATE_PAGE)
            n += zc__varint_put(rec + n, op->flags);
        if (op->kind == ZC_OP_PUT)
            n += zc__varint_put(rec + n, w->ncontents - 1 - id);
        break;
    case ZC_OP_INVALIDATE_INODE: n += key_bytes(rec + n, &op->key); break;
    default: break;
    }
    return record(w, rec, n);
}

static int text_key(struct zc_ops_writer *w, const zc_filekey *k)
{
    uint64_t ino;

    if (zc__key_is_ino(k, &ino))
        return fprintf(w->f, " %" PRIu64, ino) < 0;
    if (fputs(" fh:", w->f) < 0)
        return 1;
    for (int i = 0; i < 6; i++)
        for (int b = 0; b < 4; b++)
            if (fprintf(w->f, "%02x", (unsigned)(k->fh[i] >> (8 * b)) & 0xff) <
                0)
                return 1;
    return 0;
}

static int text_op(struct zc_ops_writer *w, const zc_op *op)
{
    static const char *const name[] = {
        [ZC_OP_INIT_FS] = "init_fs",
        [ZC_OP_INIT_SHARED_FS] = "init_shared_fs",
        [ZC_OP_PUT] = "put",
        [ZC_OP_GET] = "get",
        [ZC_OP_INVALIDATE_PAGE] = "invalidate_page",
        [ZC_OP_INVALIDATE_INODE] = "invalidate_inode",
        [ZC_OP_INVALIDATE_FS] = "invalidate_fs",
        [ZC_OP_PC_HITS] = "pc_hits",
    };
    int bad;

    if (op->kind == ZC_OP_PC_HITS)
        bad = fprintf(w->f, "pc_hits %" PRIu64 "\n", op->count) < 0;
    else
        bad = fprintf(w->f, "%s %" PRIu32, name[op->kind], op->pool) < 0;
    if (op->kind == ZC_OP_INIT_SHARED_FS) {
        bad |= fputc(' ', w->f) == EOF;
        for (int i = 0; i < 16; i++)
            bad |= fprintf(w->f, "%02x", op->uuid[i]) < 0;
    }
    if (op->kind == ZC_OP_PUT || op->kind == ZC_OP_GET ||
        op->kind == ZC_OP_INVALIDATE_PAGE || op->kind == ZC_OP_INVALIDATE_INODE)
        bad |= text_key(w, &op->key);
    if (op->kind == ZC_OP_PUT || op->kind == ZC_OP_GET ||
        op->kind == ZC_OP_INVALIDATE_PAGE)
        bad |= fprintf(w->f, " %" PRIu64, op->index) < 0;
    if (op->kind == ZC_OP_GET && (op->flags & ZC_OP_GET_AHEAD))
        bad |= fputs(" ahead", w->f) < 0;
    if (op->kind == ZC_OP_INVALIDATE_PAGE && op->flags)
        bad |=
            fputs(op->flags & ZC_OP_WRITE_MISS ? " write_miss" : " write_hit",
                  w->f) < 0;
    if (op->kind == ZC_OP_PUT) {
        const uint8_t *pg = op->page;
        if (op->flags & ZC_OP_PUT_ACTIVE)
            bad |= fputs(" active", w->f) < 0;
        if (same_filled(pg, w->page_size)) {
            uint64_t v;
            memcpy(&v, pg, 8);
            bad |= fprintf(w->f, " fill:0x%016" PRIx64, v) < 0;
        } else {
            size_t end = w->page_size;
            while (end && !pg[end - 1])
                end--;
            bad |= fputs(" hex:", w->f) < 0;
            for (size_t i = 0; i < end; i++)
                bad |= fprintf(w->f, "%02x", pg[i]) < 0;
        }
    }
    if (op->kind != ZC_OP_PC_HITS)
        bad |= fputc('\n', w->f) == EOF;
    return bad ? wfail(w, -ZC_EIO, "write error: %s", strerror(errno)) : 0;
}

static int emit(struct zc_ops_writer *w, const zc_op *op)
{
    w->nops++;
    return w->text ? text_op(w, op) : binary_op(w, op);
}

static int flush_hits(struct zc_ops_writer *w)
{
    zc_op op;

    if (!w->hits)
        return 0;
    memset(&op, 0, sizeof(op));
    op.kind = ZC_OP_PC_HITS;
    op.count = w->hits;
    w->hits = 0;
    return emit(w, &op);
}

/* ---- header ------------------------------------------------------------- */

/* Extra fields: the rule of meta.h, with the writer's own keys. */
static int check_meta(struct zc_ops_writer *w, const char *meta)
{
    static const char *const own[] = {"page_size",   "window", "created_by",
                                      "block_codec", "pack",   "pack_id",
                                      NULL};
    char why[ZCT_ERR];

    if (zc__meta_check(meta, own, why, sizeof(why)))
        return wfail(w, -ZC_EINVAL, "%s", why);
    return 0;
}

static int header(struct zc_ops_writer *w, const char *meta)
{
    char base[4608]; /* the fixed fields and a pack's name */
    size_t bl, ml = meta ? strlen(meta) : 0;
    uint8_t fixed[16], sum[4];
    uint32_t adler;

    bl = (size_t)snprintf(base, sizeof(base),
                          "page_size=%zu\nwindow=%" PRIu32
                          "\ncreated_by=libzcache %s\nblock_codec=%s\n",
                          w->page_size, w->window, zc_version(),
                          w->level >= 9   ? "lzo1x-999"
                          : w->level >= 1 ? "lzo1x-1"
                                          : "stored");
    if (w->text) {
        int bad = fputs(ZCT_TEXT_MAGIC "\n", w->f) < 0;
        bad |= fprintf(w->f, "meta page_size %zu\n", w->page_size) < 0;
        bad |=
            fprintf(w->f, "meta created_by libzcache %s\n", zc_version()) < 0;
        bad |= zc__meta_text(w->f, meta) < 0;
        return bad ? wfail(w, -ZC_EIO, "write error: %s", strerror(errno)) : 0;
    }
    if (w->pack) {
        const char *pp = zc_pack_writer_path(w->pack), *sl = strrchr(pp, '/');
        int pn = snprintf(base + bl, sizeof(base) - bl,
                          "pack=%s\npack_id=%016" PRIx64 "\n", sl ? sl + 1 : pp,
                          zc_pack_writer_id(w->pack));
        if (pn < 0 || (size_t)pn >= sizeof(base) - bl)
            return wfail(w, -ZC_EINVAL, "pack name too long");
        bl += (size_t)pn;
    }
    if (bl + ml + 1 > ZCT_HEADER_MAX)
        return wfail(w, -ZC_EINVAL, "header fields too long");
    memcpy(fixed, ZCT_MAGIC, 8);
    fixed[8] = ZCT_MAJOR;
    fixed[9] = 0;
    fixed[10] = ZCT_MINOR;
    fixed[11] = 0;
    zc__put_le32(fixed + 12,
                 (uint32_t)(bl + ml + (ml && meta[ml - 1] != '\n' ? 1 : 0)));
    adler = lzo_adler32(1, fixed, 16);
    adler = lzo_adler32(adler, (const uint8_t *)base, bl);
    if (ml)
        adler = lzo_adler32(adler, (const uint8_t *)meta, ml);
    if (ml && meta[ml - 1] != '\n')
        adler = lzo_adler32(adler, (const uint8_t *)"\n", 1);
    zc__put_le32(sum, adler);
    if (out(w, fixed, 16) || out(w, base, bl) || (ml && out(w, meta, ml)) ||
        (ml && meta[ml - 1] != '\n' && out(w, "\n", 1)) || out(w, sum, 4))
        return w->rc;
    return 0;
}

/* ---- public ------------------------------------------------------------- */

int zc_ops_writer_open(const char *path, const zc_ops_writer_options *opt,
                       zc_ops_writer **wp, char *err, size_t errlen)
{
    zc_ops_writer_options o = {0};
    struct zc_ops_writer *w;
    int rc;

    if (err && errlen)
        err[0] = '\0';
    if (!path || !wp)
        return -ZC_EINVAL;
    *wp = NULL;
    if (opt)
        o = *opt;
    if (!o.page_size)
        o.page_size = 4096;
    if (!o.window)
        o.window = ZCT_WINDOW_DEFAULT;
    if (!zc__page_size_ok(o.page_size) || o.window > ZCT_WINDOW_MAX ||
        (uint64_t)o.window * o.page_size > (1ull << 30) ||
        (o.level != -1 && o.level != 0 && o.level != 1 && o.level != 9)) {
        if (err && errlen)
            snprintf(err, errlen,
                     "%s: bad writer options (page size a power of two in "
                     "512..65536, window at most %d, level -1, 0, 1 or 9)",
                     path, ZCT_WINDOW_MAX);
        return -ZC_EINVAL;
    }
    if (o.pack && o.text) {
        if (err && errlen)
            snprintf(err, errlen,
                     "%s: the text form carries its pages: no content pack",
                     path);
        return -ZC_EINVAL;
    }
    w = calloc(1, sizeof(*w));
    if (!w || !(w->path = strdup(path))) {
        free(w);
        return -ZC_ENOMEM;
    }
    w->text = o.text;
    w->pack = o.pack;
    w->level = o.level ? o.level : 1;
    w->page_size = o.page_size;
    w->window = o.window;
    w->inited = calloc(ZCT_POOL_MAX, 1);
    if (!w->text) {
        size_t wrk =
            o.level >= 9 ? LZO1X_999_MEM_COMPRESS : LZO1X_1_MEM_COMPRESS;
        w->blk = malloc(ZCT_BLOCK_MAX);
        w->zbuf = malloc(ZCT_BLOCK_MAX + ZCT_BLOCK_MAX / 16 + 64 + 3);
        w->wrk = malloc(wrk);
    }
    if (!w->inited || (!w->text && (!w->blk || !w->zbuf || !w->wrk))) {
        rc = -ZC_ENOMEM;
        goto fail;
    }
    if (o.meta && (rc = check_meta(w, o.meta)))
        goto fail;
    if ((rc = zc_output_open(path, &w->o, w->err, sizeof(w->err)))) {
        w->rc = rc;
        goto fail;
    }
    w->f = zc_output_stream(w->o);
    if ((rc = header(w, o.meta)))
        goto fail;
    *wp = w;
    return 0;
fail:
    if (err && errlen)
        snprintf(err, errlen, "%s", w->rc ? w->err : zc_strerror(rc));
    w->rc = rc; /* close writes nothing more, and abandons the output */
    zc_ops_writer_close(w, NULL, 0);
    return rc;
}

int zc_ops_write(zc_ops_writer *w, const zc_op *op)
{
    bool init;

    if (!w || !op)
        return -ZC_EINVAL;
    if (w->rc)
        return w->rc;
    if (op->kind == ZC_OP_PC_HITS) {
        if (op->count > UINT64_MAX - w->hits)
            return wfail(w, -ZC_EINVAL,
                         "pc_hits: merged with the ones before, more than "
                         "2^64 - 1");
        w->hits += op->count;
        return 0;
    }
    if (op->kind < ZC_OP_INIT_FS || op->kind > ZC_OP_PC_HITS)
        return wfail(w, -ZC_EINVAL, "unknown op kind %d", (int)op->kind);
    if (op->pool >= ZCT_POOL_MAX)
        return wfail(w, -ZC_EINVAL, "pool %" PRIu32 " out of range", op->pool);
    init = op->kind == ZC_OP_INIT_FS || op->kind == ZC_OP_INIT_SHARED_FS;
    if (init && (w->inited[op->pool] || op->page_size != w->page_size))
        return wfail(w, -ZC_EINVAL,
                     "init of pool %" PRIu32
                     " twice or with a page size other than %zu",
                     op->pool, w->page_size);
    if (!init && !w->inited[op->pool])
        return wfail(w, -ZC_EINVAL, "pool %" PRIu32 " used before its init",
                     op->pool);
    if (op->kind == ZC_OP_PUT && !op->page)
        return wfail(w, -ZC_EINVAL, "put without a page");
    if (op->kind == ZC_OP_PUT && (op->flags & ~ZC_OP_PUT_ACTIVE))
        return wfail(w, -ZC_EINVAL, "put flags %" PRIu32 " unknown", op->flags);
    if (op->kind == ZC_OP_GET && (op->flags & ~ZC_OP_GET_AHEAD))
        return wfail(w, -ZC_EINVAL, "get flags %" PRIu32 " unknown", op->flags);
    if (op->kind == ZC_OP_INVALIDATE_PAGE &&
        op->flags & ~(ZC_OP_WRITE_MISS | ZC_OP_WRITE_HIT))
        return wfail(w, -ZC_EINVAL, "invalidate_page flags %" PRIu32 " unknown",
                     op->flags);
    if (op->kind == ZC_OP_INVALIDATE_PAGE &&
        op->flags == (ZC_OP_WRITE_MISS | ZC_OP_WRITE_HIT))
        return wfail(w, -ZC_EINVAL,
                     "invalidate_page cannot be a write hit and a miss");
    if (flush_hits(w) || emit(w, op))
        return w->rc;
    if (init)
        w->inited[op->pool] = 1;
    else if (op->kind == ZC_OP_INVALIDATE_FS)
        w->inited[op->pool] = 0;
    return 0;
}

const char *zc_ops_writer_error(const zc_ops_writer *w)
{
    return w && w->rc ? w->err : "";
}

void zc_ops_writer_abandon(zc_ops_writer *w)
{
    if (w && !w->rc)
        w->rc = -ZC_ECANCELED; /* a failed writer writes no end record */
    zc_ops_writer_close(w, NULL, 0);
}

int zc_ops_writer_close(zc_ops_writer *w, char *err, size_t errlen)
{
    int rc;

    if (err && errlen)
        err[0] = '\0';
    if (!w)
        return 0;
    if (w->f && !w->rc && !flush_hits(w)) {
        if (w->text) {
            if (fputs("end\n", w->f) < 0)
                wfail(w, -ZC_EIO, "write error: %s", strerror(errno));
        } else {
            uint8_t rec[1 + ZC__VARINT_MAX];
            rec[0] = ZCT_END;
            if (!record(w, rec, 1 + zc__varint_put(rec + 1, w->nops)))
                flush_block(w);
        }
    }
    w->rc = zc__output_end(&w->o, w->rc, w->err, sizeof(w->err));
    w->f = NULL;
    rc = w->rc;
    if (rc && err && errlen)
        snprintf(err, errlen, "%s", w->err);
    free(w->path);
    free(w->inited);
    free(w->blk);
    free(w->zbuf);
    free(w->wrk);
    free(w->ring);
    free(w->ring_hash);
    zc__ctab_free(&w->tab);
    free(w);
    return rc;
}
