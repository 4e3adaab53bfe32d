/*
 * sim/zct/zct.c - reading op streams (.zct), binary and text.
 *
 * An op stream is the cleancache op sequence a page-cache model made from
 * a trace (or a kernel recorded), with the pages' contents, so that one
 * stream can be played against many zcache configurations.  The binary
 * layout is in zct.h; the text form is in zct_text.c.
 *
 * Reading is streaming: one block of at most 1 MiB at a time, plus the
 * last `window` contents (the header says how many; the ring grows only
 * as contents arrive).  A stream written with a content pack names it in
 * its header; the reader opens it with the stream and copies a pack
 * content into the ring as it would a raw one.  Every byte is checked: the
 * header and each block carry an Adler-32, varints may not overflow, lengths
 * and references must be in range, pools must be initialised before use,
 * and the pc_hits counts plus the other ops may not pass 2^64 - 1 (a
 * player's counters would wrap).  A stream that ends without its end
 * record, or has bytes after it, is an error: a truncated stream never
 * passes for a short one.  Messages say "FILE: offset N: what", N the
 * offset of the header field or the block, with the record's byte within
 * the block's data when the fault is in one.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <inttypes.h>
#include <lzo/lzo1x.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/bytes.h"
#include "zct.h"

int zc__ops_fail(struct zc_ops_reader *r, int rc, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    zc__vfail(r->err, sizeof(r->err), r->path, fmt, ap);
    va_end(ap);
    r->rc = rc;
    return rc;
}

bool zc__key_is_ino(const zc_filekey *k, uint64_t *ino)
{
    if (k->fh[2] | k->fh[3] | k->fh[4] | k->fh[5])
        return false;
    memcpy(ino, k->fh, sizeof(*ino));
    return true;
}

int zc__ops_meta_add(struct zc_ops_reader *r, const char *key,
                     const char *value)
{
    size_t add = strlen(key) + strlen(value) + 2;
    char *m = realloc(r->meta, r->meta_len + add);

    if (!m)
        return -ZC_ENOMEM;
    snprintf(m + r->meta_len, add, "%s=%s", key, value);
    r->meta = m;
    r->meta_len += add;
    return 0;
}

#define TOO_MANY                                                               \
    "the stream's page-cache hits and ops add up to more than 2^64 - 1 "       \
    "accesses"

int zc__ops_took(struct zc_ops_reader *r, const zc_op *op, const char *where)
{
    uint64_t n = op->kind == ZC_OP_PC_HITS ? op->count : 1;

    /* Each op adds at most 1 to a counter, pc_hits n to four of them. */
    if (n > UINT64_MAX - r->weight) {
        if (op->kind == ZC_OP_PC_HITS)
            return zc__ops_fail(r, -ZC_EFORMAT,
                                "%spc_hits %" PRIu64 ": " TOO_MANY, where, n);
        return zc__ops_fail(r, -ZC_EFORMAT, "%s" TOO_MANY, where);
    }
    r->weight += n;
    r->nops++;
    return 0;
}

int zc__ops_pool_check(struct zc_ops_reader *r, const zc_op *op,
                       const char *where)
{
    bool init = op->kind == ZC_OP_INIT_FS || op->kind == ZC_OP_INIT_SHARED_FS;

    if (op->kind == ZC_OP_PC_HITS)
        return 0;
    if (op->pool >= ZCT_POOL_MAX)
        return zc__ops_fail(r, -ZC_EFORMAT, "%spool %" PRIu32 " out of range",
                            where, op->pool);
    if (!r->inited) {
        r->inited = calloc(ZCT_POOL_MAX, 1);
        if (!r->inited)
            return zc__ops_fail(r, -ZC_ENOMEM, "out of memory");
    }
    if (init) {
        if (r->inited[op->pool])
            return zc__ops_fail(r, -ZC_EFORMAT,
                                "%spool %" PRIu32 " initialised twice", where,
                                op->pool);
        if (op->page_size != r->page_size)
            return zc__ops_fail(r, -ZC_EFORMAT,
                                "%spool page size %zu is not the stream's %zu",
                                where, op->page_size, r->page_size);
        r->inited[op->pool] = 1;
        return 0;
    }
    if (!r->inited[op->pool])
        return zc__ops_fail(r, -ZC_EFORMAT,
                            "%spool %" PRIu32 " used before its init_fs", where,
                            op->pool);
    if (op->kind == ZC_OP_INVALIDATE_FS)
        r->inited[op->pool] = 0;
    return 0;
}

bool zc_ops_sniff(const void *head, size_t len)
{
    size_t t = strlen(ZCT_TEXT_MAGIC);

    if (!head)
        return false;
    if (len >= 8 && !memcmp(head, ZCT_MAGIC, 8))
        return true;
    return len >= t && !memcmp(head, ZCT_TEXT_MAGIC, t) &&
           (len == t || ((const char *)head)[t] == '\n' ||
            ((const char *)head)[t] == '\r');
}

/* ---- binary: the header ------------------------------------------------- */

/* Read exactly n bytes at the current offset; 1, 0 at a clean end of
 * file (nothing read), or an error for a short read. */
static int read_exact(struct zc_ops_reader *r, void *buf, size_t n,
                      const char *what)
{
    size_t got = fread(buf, 1, n, r->f);

    r->file_off += got;
    if (got == n)
        return 1;
    if (ferror(r->f))
        return zc__ops_fail(r, -ZC_EIO, "offset %" PRIu64 ": read error: %s",
                            r->file_off, strerror(errno));
    if (got == 0)
        return 0;
    return zc__ops_fail(r, -ZC_EFORMAT,
                        "offset %" PRIu64 ": truncated %s (%zu of %zu bytes)",
                        r->file_off - got, what, got, n);
}

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;

    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    *v = strtoull(s, &end, 10);
    return errno || *end ? -1 : 0;
}

/* The header's pack: NAME in the stream's directory. */
static int open_pack(struct zc_ops_reader *r)
{
    const char *name = zc_ops_meta(r, "pack"), *slash, *id;
    char perr[ZCT_ERR], *path;
    size_t dir;
    int rc;

    if (!name)
        return 0;
    if (!*name || strchr(name, '/') || strstr(name, ".."))
        return zc__ops_fail(r, -ZC_EFORMAT,
                            "offset 16: header field pack=%.64s: not a file "
                            "name beside the stream (no '/', no \"..\")",
                            name);
    slash = strrchr(r->path, '/');
    dir = slash ? (size_t)(slash - r->path) + 1 : 0;
    path = malloc(dir + strlen(name) + 1);
    if (!path)
        return zc__ops_fail(r, -ZC_ENOMEM, "out of memory");
    memcpy(path, r->path, dir);
    strcpy(path + dir, name);
    rc = zc_pack_open(path, &r->pack, perr, sizeof(perr));
    if (!rc && zc_pack_page_size(r->pack) != r->page_size) {
        rc = zc__ops_fail(r, -ZC_EFORMAT,
                          "pack %s: pages of %zu bytes, the stream's are %zu",
                          path, zc_pack_page_size(r->pack), r->page_size);
    } else if (!rc && (id = zc_ops_meta(r, "pack_id")) &&
               !zc__pack_id_matches(id, zc_pack_id(r->pack))) {
        rc = zc__ops_fail(r, -ZC_EFORMAT,
                          "pack %s is another recording's pack (its id is "
                          "%016" PRIx64 ", the stream's pack_id=%.32s)",
                          path, zc_pack_id(r->pack), id);
    } else if (rc)
        rc = zc__ops_fail(r, rc, "pack %s", perr);
    free(path);
    return rc;
}

static int binary_header(struct zc_ops_reader *r, const uint8_t *magic)
{
    uint8_t fixed[16], sum[4];
    char *text, *line, *save = NULL;
    uint32_t n, adler;
    uint64_t ps = 0, win = 0;
    int rc;

    memcpy(fixed, magic, 8);
    rc = read_exact(r, fixed + 8, 8, "header");
    if (rc <= 0)
        return rc ? rc
                  : zc__ops_fail(r, -ZC_EFORMAT, "offset 8: truncated header");
    if ((fixed[8] | fixed[9] << 8) != ZCT_MAJOR)
        return zc__ops_fail(r, -ZC_EFORMAT,
                            "offset 8: format version %u.%u; this library "
                            "reads version %d",
                            fixed[8] | fixed[9] << 8,
                            fixed[10] | fixed[11] << 8, ZCT_MAJOR);
    n = zc__get_le32(fixed + 12);
    if (n == 0 || n > ZCT_HEADER_MAX)
        return zc__ops_fail(r, -ZC_EFORMAT,
                            "offset 12: header length %" PRIu32
                            " out of range (1..%d)",
                            n, ZCT_HEADER_MAX);
    text = malloc(n + 1);
    if (!text)
        return zc__ops_fail(r, -ZC_ENOMEM, "out of memory");
    rc = read_exact(r, text, n, "header");
    if (rc > 0)
        rc = read_exact(r, sum, 4, "header checksum");
    if (rc <= 0) {
        free(text);
        return rc ? rc
                  : zc__ops_fail(r, -ZC_EFORMAT,
                                 "offset %" PRIu64 ": truncated header",
                                 r->file_off);
    }
    adler = lzo_adler32(1, fixed, 16);
    adler = lzo_adler32(adler, (const uint8_t *)text, n);
    if (ZC__CHECKSUMS && adler != zc__get_le32(sum)) {
        free(text);
        return zc__ops_fail(r, -ZC_EFORMAT,
                            "offset %" PRIu64 ": header checksum mismatch",
                            r->file_off - 4);
    }
    text[n] = '\0';
    if (memchr(text, '\0', n) || text[n - 1] != '\n') {
        free(text);
        return zc__ops_fail(r, -ZC_EFORMAT,
                            "offset 16: header fields are not lines of text");
    }
    rc = 0;
    for (line = strtok_r(text, "\n", &save); line && !rc;
         line = strtok_r(NULL, "\n", &save)) {
        char *eq = strchr(line, '=');
        if (!eq || eq == line) {
            rc = zc__ops_fail(r, -ZC_EFORMAT,
                              "offset 16: header field without key=value");
            break;
        }
        *eq = '\0';
        if ((!strcmp(line, "page_size") && (ps || parse_u64(eq + 1, &ps))) ||
            (!strcmp(line, "window") && (win || parse_u64(eq + 1, &win))))
            rc = zc__ops_fail(r, -ZC_EFORMAT,
                              "offset 16: header field %.64s: not a number, "
                              "or given twice",
                              line);
        else if (zc__ops_meta_add(r, line, eq + 1))
            rc = zc__ops_fail(r, -ZC_ENOMEM, "out of memory");
    }
    free(text);
    if (rc)
        return rc;
    if (!zc__page_size_ok(ps))
        return zc__ops_fail(r, -ZC_EFORMAT,
                            "offset 16: page_size %" PRIu64
                            " missing or not a power of two in 512..65536",
                            ps);
    if (win < 1 || win > ZCT_WINDOW_MAX)
        return zc__ops_fail(r, -ZC_EFORMAT,
                            "offset 16: window %" PRIu64
                            " missing or out of range (1..%d)",
                            win, ZCT_WINDOW_MAX);
    if (win * ps > (1ull << 30))
        return zc__ops_fail(r, -ZC_EFORMAT,
                            "offset 16: a window of %" PRIu64
                            " pages of %" PRIu64
                            " bytes is more than the 1 GiB a reader keeps",
                            win, ps);
    r->page_size = (size_t)ps;
    r->window = (uint32_t)win;
    if ((rc = open_pack(r)))
        return rc;
    r->blk = malloc(ZCT_BLOCK_MAX);
    r->zbuf = malloc(ZCT_BLOCK_MAX + ZCT_BLOCK_MAX / 16 + 64 + 3);
    if (!r->blk || !r->zbuf)
        return zc__ops_fail(r, -ZC_ENOMEM, "out of memory");
    return 0;
}

/* ---- binary: blocks and records ----------------------------------------- */

static int next_block(struct zc_ops_reader *r)
{
    uint8_t h[ZCT_BLOCK_HDR];
    uint32_t raw, stored;
    lzo_uint n;
    int rc;

    r->blk_off = r->file_off;
    rc = read_exact(r, h, sizeof(h), "block header");
    if (rc == 0)
        return zc__ops_fail(r, -ZC_EFORMAT,
                            "offset %" PRIu64
                            ": stream ends without its end record "
                            "(truncated?)",
                            r->file_off);
    if (rc < 0)
        return rc;
    raw = zc__get_le32(h);
    stored = zc__get_le32(h + 4);
    if (raw == 0 || raw > ZCT_BLOCK_MAX)
        return zc__ops_fail(r, -ZC_EFORMAT,
                            "offset %" PRIu64 ": block length %" PRIu32
                            " out of range (1..%d)",
                            r->blk_off, raw, ZCT_BLOCK_MAX);
    if (h[9] | h[10] | h[11])
        return zc__ops_fail(r, -ZC_EFORMAT,
                            "offset %" PRIu64 ": block reserved bytes not zero",
                            r->blk_off);
    if (h[8] == 0) {
        if (stored != raw)
            return zc__ops_fail(r, -ZC_EFORMAT,
                                "offset %" PRIu64 ": stored block of %" PRIu32
                                " bytes says %" PRIu32 " stored",
                                r->blk_off, raw, stored);
        rc = read_exact(r, r->blk, raw, "block");
    } else if (h[8] == 1) {
        if (stored == 0 || stored > ZCT_BLOCK_MAX + ZCT_BLOCK_MAX / 16 + 64 + 3)
            return zc__ops_fail(r, -ZC_EFORMAT,
                                "offset %" PRIu64 ": compressed length %" PRIu32
                                " out of range",
                                r->blk_off, stored);
        rc = read_exact(r, r->zbuf, stored, "block");
        if (rc > 0) {
            n = raw;
            if (lzo1x_decompress_safe(r->zbuf, stored, r->blk, &n, NULL) !=
                    LZO_E_OK ||
                n != raw)
                return zc__ops_fail(r, -ZC_EFORMAT,
                                    "offset %" PRIu64
                                    ": block does not decompress to its "
                                    "%" PRIu32 " bytes",
                                    r->blk_off, raw);
        }
    } else {
        return zc__ops_fail(r, -ZC_EFORMAT,
                            "offset %" PRIu64 ": unknown block codec %u",
                            r->blk_off, h[8]);
    }
    if (rc == 0)
        return zc__ops_fail(r, -ZC_EFORMAT,
                            "offset %" PRIu64 ": truncated block", r->file_off);
    if (rc < 0)
        return rc;
    if (ZC__CHECKSUMS && lzo_adler32(1, r->blk, raw) != zc__get_le32(h + 12))
        return zc__ops_fail(r, -ZC_EFORMAT,
                            "offset %" PRIu64 ": block checksum mismatch",
                            r->blk_off);
    r->blk_len = raw;
    r->blk_pos = 0;
    return 0;
}

/* Where a record fault is: the block's file offset and the byte in it. */
#define AT "offset %" PRIu64 ", byte %zu of its block: "
#define AT_ARGS r->blk_off, r->blk_pos

static int rec_fail(struct zc_ops_reader *r, const char *what)
{
    return zc__ops_fail(r, -ZC_EFORMAT, AT "%s", AT_ARGS, what);
}

static int varint(struct zc_ops_reader *r, uint64_t *v)
{
    const uint8_t *p = r->blk + r->blk_pos;
    int got = zc__varint_get(&p, r->blk + r->blk_len, v);

    r->blk_pos = (size_t)(p - r->blk);
    if (got == 0)
        return rec_fail(r, "record cut by the end of its block");
    if (got < 0)
        return rec_fail(r, "number out of range");
    return 0;
}

static int varint32(struct zc_ops_reader *r, uint32_t *v, uint64_t max,
                    const char *what)
{
    uint64_t x = 0;
    int rc = varint(r, &x);

    if (rc)
        return rc;
    if (x > max)
        return zc__ops_fail(r, -ZC_EFORMAT, AT "%s %" PRIu64 " out of range",
                            AT_ARGS, what, x);
    *v = (uint32_t)x;
    return 0;
}

static int bytes(struct zc_ops_reader *r, void *dst, size_t n)
{
    if (r->blk_len - r->blk_pos < n)
        return rec_fail(r, "record cut by the end of its block");
    memcpy(dst, r->blk + r->blk_pos, n);
    r->blk_pos += n;
    return 0;
}

static int key(struct zc_ops_reader *r, zc_filekey *k)
{
    uint8_t tag = 0, raw[24];
    uint64_t ino;
    int rc = bytes(r, &tag, 1);

    if (rc)
        return rc;
    if (tag == 0) {
        rc = varint(r, &ino);
        if (!rc)
            *k = zc_filekey_from_ino(ino);
        return rc;
    }
    if (tag != 1)
        return rec_fail(r, "bad file key tag");
    rc = bytes(r, raw, sizeof(raw));
    for (int i = 0; !rc && i < 6; i++)
        k->fh[i] = zc__get_le32(raw + 4 * i);
    return rc;
}

static uint8_t *ring_slot(struct zc_ops_reader *r, uint64_t id)
{
    return r->ring + (size_t)(id % r->window) * r->page_size;
}

static int content(struct zc_ops_reader *r, uint8_t code)
{
    uint8_t *slot;
    int rc;

    if (r->ncontents < r->window && r->ncontents == r->ring_slots) {
        size_t n = r->ring_slots ? r->ring_slots * 2 : 64;
        uint8_t *t;
        if (n > r->window)
            n = r->window;
        t = realloc(r->ring, n * r->page_size);
        if (!t)
            return zc__ops_fail(r, -ZC_ENOMEM, "out of memory");
        r->ring = t;
        r->ring_slots = n;
    }
    slot = ring_slot(r, r->ncontents);
    if (code == ZCT_CONTENT_RAW) {
        rc = bytes(r, slot, r->page_size);
    } else if (code == ZCT_CONTENT_PACK) {
        uint64_t id;
        size_t at = r->blk_pos - 1;
        if (!r->pack)
            return zc__ops_fail(r, -ZC_EFORMAT,
                                AT "pack content record in a stream "
                                   "without a pack",
                                r->blk_off, at);
        if ((rc = varint(r, &id)))
            return rc;
        if (id >= zc_pack_contents(r->pack))
            return zc__ops_fail(r, -ZC_EFORMAT,
                                AT "pack content %" PRIu64
                                   " beyond the %" PRIu64 " of pack %s",
                                r->blk_off, at, id, zc_pack_contents(r->pack),
                                zc_ops_meta(r, "pack"));
        rc = zc_pack_page(r->pack, id, slot);
        if (rc)
            return zc__ops_fail(r, rc, AT "pack content %" PRIu64 ": %s",
                                r->blk_off, at, id, zc_pack_error(r->pack));
    } else {
        uint8_t w[8] = {0};
        rc = bytes(r, w, 8);
        for (size_t i = 0; !rc && i < r->page_size; i += 8)
            memcpy(slot + i, w, 8);
    }
    if (!rc)
        r->ncontents++;
    return rc;
}

static int finish(struct zc_ops_reader *r)
{
    uint64_t n;
    int rc = varint(r, &n);

    if (rc)
        return rc;
    if (n != r->nops)
        return zc__ops_fail(r, -ZC_EFORMAT,
                            AT "end record counts %" PRIu64
                               " ops, the stream has %" PRIu64,
                            AT_ARGS, n, r->nops);
    if (r->blk_pos != r->blk_len || fgetc(r->f) != EOF)
        return zc__ops_fail(r, -ZC_EFORMAT, AT "data after the end record",
                            AT_ARGS);
    r->end = true;
    return 0;
}

static int binary_next(struct zc_ops_reader *r, zc_op *op)
{
    for (;;) {
        size_t at;
        uint8_t code;
        uint64_t ref = 0;
        int rc;

        if (r->blk_pos == r->blk_len && (rc = next_block(r)))
            return rc;
        at = r->blk_pos;
        code = r->blk[r->blk_pos++];
        memset(op, 0, sizeof(*op));
        rc = 0;
        switch (code) {
        case ZCT_CONTENT_RAW:
        case ZCT_CONTENT_FILL:
        case ZCT_CONTENT_PACK:
            rc = content(r, code);
            if (rc)
                return rc;
            continue;
        case ZCT_END: rc = finish(r); return rc ? rc : 0;
        case ZCT_INIT_FS:
        case ZCT_INIT_SHARED_FS:
            op->kind =
                code == ZCT_INIT_FS ? ZC_OP_INIT_FS : ZC_OP_INIT_SHARED_FS;
            rc = varint32(r, &op->pool, UINT32_MAX, "pool");
            if (!rc)
                rc = varint(r, &ref);
            op->page_size = (size_t)ref;
            if (!rc && code == ZCT_INIT_SHARED_FS)
                rc = bytes(r, op->uuid, 16);
            break;
        case ZCT_PUT_ACTIVE: /* a put or a get, and its flag */
        case ZCT_GET_AHEAD:
            op->flags =
                code == ZCT_PUT_ACTIVE ? ZC_OP_PUT_ACTIVE : ZC_OP_GET_AHEAD;
            code = code == ZCT_PUT_ACTIVE ? ZCT_PUT : ZCT_GET;
            /* fall through */
        case ZCT_PUT:
        case ZCT_GET:
        case ZCT_INVALIDATE_PAGE:
            op->kind = code == ZCT_PUT   ? ZC_OP_PUT
                       : code == ZCT_GET ? ZC_OP_GET
                                         : ZC_OP_INVALIDATE_PAGE;
            rc = varint32(r, &op->pool, UINT32_MAX, "pool");
            if (!rc)
                rc = key(r, &op->key);
            if (!rc)
                rc = varint(r, &op->index);
            if (!rc && code == ZCT_INVALIDATE_PAGE)
                rc = varint32(r, &op->flags, ZC_OP_WRITE_HIT, "flags");
            if (!rc && code == ZCT_PUT) {
                rc = varint(r, &ref);
                if (!rc && (ref >= r->ncontents || ref >= r->window))
                    return zc__ops_fail(
                        r, -ZC_EFORMAT,
                        AT "put refers to content %" PRIu64 " back, %s",
                        r->blk_off, at, ref,
                        ref >= r->ncontents ? "before the first"
                                            : "outside the window");
                op->content = r->ncontents - ref;
                op->page = ring_slot(r, op->content - 1);
            }
            break;
        case ZCT_INVALIDATE_INODE:
            op->kind = ZC_OP_INVALIDATE_INODE;
            rc = varint32(r, &op->pool, UINT32_MAX, "pool");
            if (!rc)
                rc = key(r, &op->key);
            break;
        case ZCT_INVALIDATE_FS:
            op->kind = ZC_OP_INVALIDATE_FS;
            rc = varint32(r, &op->pool, UINT32_MAX, "pool");
            break;
        case ZCT_PC_HITS:
            op->kind = ZC_OP_PC_HITS;
            rc = varint(r, &op->count);
            if (!rc && op->count == 0)
                rc = rec_fail(r, "pc_hits of 0");
            break;
        default:
            return zc__ops_fail(r, -ZC_EFORMAT, AT "unknown record type 0x%02x",
                                r->blk_off, at, code);
        }
        if (rc)
            return rc;
        {
            char where[64];
            snprintf(where, sizeof(where),
                     "offset %" PRIu64 ", byte %zu of its block: ", r->blk_off,
                     at);
            rc = zc__ops_pool_check(r, op, where);
            if (!rc)
                rc = zc__ops_took(r, op, where);
            if (rc)
                return rc;
        }
        return 1;
    }
}

/* ---- public ------------------------------------------------------------- */

int zc_ops_open(const char *path, zc_ops_reader **out, char *err, size_t errlen)
{
    struct zc_ops_reader *r;
    struct stat st;
    uint8_t head[8];
    size_t got;
    int rc;

    if (err && errlen)
        err[0] = '\0';
    if (!path || !out)
        return -ZC_EINVAL;
    *out = NULL;
    r = calloc(1, sizeof(*r));
    if (!r || !(r->path = strdup(path))) {
        free(r);
        return -ZC_ENOMEM;
    }
    if (!strcmp(path, "-")) {
        r->f = stdin;
    } else if (!(r->f = fopen(path, "rb"))) {
        rc = zc__ops_fail(r, -ZC_EIO, "cannot open: %s", strerror(errno));
        goto fail;
    } else if (fstat(fileno(r->f), &st) == 0 && S_ISDIR(st.st_mode)) {
        rc = zc__ops_fail(r, -ZC_EIO, "is a directory");
        goto fail;
    }
    got = fread(head, 1, sizeof(head), r->f);
    r->file_off = got;
    if (ferror(r->f)) {
        rc = zc__ops_fail(r, -ZC_EIO, "read error: %s", strerror(errno));
        goto fail;
    }
    if (got == 8 && !memcmp(head, ZCT_MAGIC, 8)) {
        rc = binary_header(r, head);
    } else if (got == 8 && !memcmp(head, ZCT_TEXT_MAGIC, 8)) {
        r->text = true;
        rc = zc__ops_text_open(r);
    } else {
        rc = zc__ops_fail(r, -ZC_EFORMAT,
                          got ? "offset 0: not an op stream (no .zct magic, "
                                "no \"" ZCT_TEXT_MAGIC "\" line)"
                              : "empty file: not an op stream");
    }
    if (rc)
        goto fail;
    *out = r;
    return 0;
fail:
    if (err && errlen)
        snprintf(err, errlen, "%s", r->err);
    r->rc = 0;
    zc_ops_close(r);
    return rc;
}

int zc_ops_next(zc_ops_reader *r, zc_op *op)
{
    if (!r || !op)
        return -ZC_EINVAL;
    if (r->rc)
        return r->rc;
    if (r->end)
        return 0;
    return r->text ? zc__ops_text_next(r, op) : binary_next(r, op);
}

const char *zc_ops_error(const zc_ops_reader *r)
{
    return r && r->rc ? r->err : "";
}

const char *zc_ops_meta(const zc_ops_reader *r, const char *key)
{
    size_t n;

    if (!r || !key)
        return NULL;
    n = strlen(key);
    /* Fields are "key=value\0" one after the other; the last one wins. */
    const char *found = NULL;
    for (size_t at = 0; at < r->meta_len; at += strlen(r->meta + at) + 1)
        if (!strncmp(r->meta + at, key, n) && r->meta[at + n] == '=')
            found = r->meta + at + n + 1;
    return found;
}

size_t zc_ops_page_size(const zc_ops_reader *r)
{
    return r ? r->page_size : 0;
}

void zc_ops_close(zc_ops_reader *r)
{
    if (!r)
        return;
    if (r->f && r->f != stdin)
        fclose(r->f);
    free(r->path);
    free(r->meta);
    free(r->inited);
    free(r->blk);
    free(r->zbuf);
    free(r->ring);
    zc_pack_close(r->pack);
    free(r->line);
    free(r->page);
    free(r);
}
