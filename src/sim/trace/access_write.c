/*
 * sim/trace/access_write.c - writing access streams (.zca), binary and text.
 *
 * The binary form (access.h) goes through one zstd stream: records are
 * appended to an input buffer of ZSTD_CStreamInSize() bytes, which is
 * compressed (ZSTD_e_continue) and written when the next record would not
 * fit; close appends the end record and ends the frame (ZSTD_e_end).  The
 * frame carries zstd's content checksum, which with the header's Adler-32
 * covers every byte.  The text form is written line by line with stdio.
 *
 * Requests are checked before anything is written (ino != 0, whole pages,
 * at most ZCA_COUNT_MAX of them, a known flag, mapped only for reads,
 * fault-around only mapped, the time never going back), and a bad one is
 * a sticky -ZC_EINVAL: a stream whose writer failed must be treated as
 * incomplete, and close returns the first error.
 *
 * File sizes: the writer keeps the last size it wrote of each file (a
 * zc__file_sizes, files.h, as the reader does).  A request that carries
 * ZC_REQ_SIZE gets a size record before it, at its time, when its
 * file_size is not the size last written for its file, so a request read
 * from a stream and written again reads back the same; one without the
 * flag writes no size (the file's last size still applies to it when it
 * is read back).  zc_access_write_size() writes a size record always.
 *
 * On size: a synthetic stream of 1M accesses (64 files, 70% sequential
 * one-page reads, 20% random multi-page reads, 10% writes, a resident
 * sample every 10000) takes 12.2 bytes per access before zstd and 4.2
 * after it at level 19.  A denser opcode (e.g. "same dev and ino as the
 * previous record") has not been tried; it would have to be measured
 * against these numbers before it earns a place in the format.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <inttypes.h>
#include <lzo/lzo1x.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "access.h"
#include "common/bytes.h"
#include "common/files.h"
#include "common/meta.h"
#include "common/output.h"

enum { WERR = 512 };

struct zc_access_writer {
    FILE *f;         /* zc_output_stream(o) */
    zc_output *o;    /* written whole or not at all */
    char *path;
    bool text;
    size_t page_size;
    int rc; /* sticky: 0, or the first error */
    char err[WERR];
    uint64_t clock;              /* time of the last record */
    uint64_t records;            /* records written */
    struct zc__file_sizes sizes; /* the size last written of each file */

    /* binary */
    ZSTD_CCtx *cctx;
    unsigned char *in, *out;
    size_t in_len, in_cap, out_cap;
};

static int wfail(struct zc_access_writer *w, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int wfail(struct zc_access_writer *w, int rc, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    zc__vfail(w->err, sizeof(w->err), w->path, fmt, ap);
    va_end(ap);
    if (!w->rc)
        w->rc = rc;
    return rc;
}

static int io_fail(struct zc_access_writer *w)
{
    return wfail(w, -ZC_EIO, "write error: %s", strerror(errno));
}

/* ---- the binary form: bytes through zstd ------------------------------- */

/* Compress the input buffer with mode (continue or end) and write out. */
static int compress(struct zc_access_writer *w, ZSTD_EndDirective mode)
{
    ZSTD_inBuffer in = {w->in, w->in_len, 0};

    for (;;) {
        ZSTD_outBuffer out = {w->out, w->out_cap, 0};
        size_t left = ZSTD_compressStream2(w->cctx, &out, &in, mode);
        if (ZSTD_isError(left))
            return wfail(w, -ZC_EIO, "zstd: %s", ZSTD_getErrorName(left));
        if (out.pos && fwrite(w->out, 1, out.pos, w->f) != out.pos)
            return io_fail(w);
        if (mode == ZSTD_e_end ? left == 0 : in.pos == in.size)
            break;
    }
    w->in_len = 0;
    return 0;
}

static int put(struct zc_access_writer *w, const void *p, size_t n)
{
    const unsigned char *s = p;

    while (n) {
        size_t k = w->in_cap - w->in_len;
        if (k == 0) {
            int rc = compress(w, ZSTD_e_continue);
            if (rc)
                return rc;
            continue;
        }
        if (k > n)
            k = n;
        memcpy(w->in + w->in_len, s, k);
        w->in_len += k;
        s += k;
        n -= k;
    }
    return 0;
}

/* A record: op and n varints. */
static int binary_record(struct zc_access_writer *w, unsigned op,
                         const uint64_t *v, int n)
{
    uint8_t rec[ZCA_REC_MAX];
    size_t len = 0;

    rec[len++] = (unsigned char)op;
    for (int i = 0; i < n; i++)
        len += zc__varint_put(rec + len, v[i]);
    return put(w, rec, len);
}

/* ---- header ------------------------------------------------------------ */

/* Extra fields: the rule of meta.h, with the writer's own keys. */
static int check_meta(struct zc_access_writer *w, const char *meta)
{
    static const char *const own[] = {"page_size", "created_by", NULL};
    char why[WERR];

    if (zc__meta_check(meta, own, why, sizeof(why)))
        return wfail(w, -ZC_EINVAL, "%s", why);
    return 0;
}

static int text_header(struct zc_access_writer *w, const char *meta)
{
    int bad = fprintf(w->f,
                      ZCA_TEXT_MAGIC "\nmeta page_size %zu\n"
                                     "meta created_by libzcache %s\n",
                      w->page_size, zc_version()) < 0;

    bad |= zc__meta_text(w->f, meta) < 0;
    return bad ? io_fail(w) : 0;
}

static int binary_header(struct zc_access_writer *w, const char *meta)
{
    char base[128];
    size_t bl, ml = 0, n;
    uint8_t fixed[ZCA_FIXED], sum[4];
    uint32_t adler;
    char *fields;
    int rc;

    bl = (size_t)snprintf(base, sizeof(base),
                          "page_size=%zu\ncreated_by=libzcache %s\n",
                          w->page_size, zc_version());
    if (meta)
        ml = strlen(meta);
    fields = malloc(bl + ml + 1);
    if (!fields)
        return wfail(w, -ZC_ENOMEM, "out of memory");
    memcpy(fields, base, bl);
    n = bl;
    for (const char *p = meta; p && *p;) { /* blank lines left out */
        size_t len = strcspn(p, "\n");
        if (len) {
            memcpy(fields + n, p, len);
            n += len;
            fields[n++] = '\n';
        }
        p += len + (p[len] == '\n');
    }
    if (n > ZCA_HEADER_MAX) {
        free(fields);
        return wfail(w, -ZC_EINVAL, "header fields longer than %d bytes",
                     ZCA_HEADER_MAX);
    }
    memcpy(fixed, ZCA_MAGIC, 8);
    fixed[8] = ZCA_MAJOR;
    fixed[9] = 0;
    fixed[10] = ZCA_MINOR;
    fixed[11] = 0;
    zc__put_le32(fixed + 12, (uint32_t)n);
    adler = lzo_adler32(1, fixed, ZCA_FIXED);
    adler = lzo_adler32(adler, (const unsigned char *)fields, n);
    zc__put_le32(sum, adler);
    rc = put(w, fixed, ZCA_FIXED);
    if (!rc)
        rc = put(w, fields, n);
    if (!rc)
        rc = put(w, sum, 4);
    free(fields);
    return rc;
}

/* ---- public ------------------------------------------------------------ */

int zc_access_writer_open(const char *path, const zc_access_writer_options *opt,
                          zc_access_writer **wp, char *err, size_t errlen)
{
    zc_access_writer_options o = {0};
    struct zc_access_writer *w;
    int rc, level;

    if (err && errlen)
        err[0] = '\0';
    if (wp)
        *wp = NULL;
    if (!path || !wp)
        return -ZC_EINVAL;
    if (opt)
        o = *opt;
    if (!o.page_size)
        o.page_size = 4096;
    level = o.level ? o.level : ZCA_LEVEL_DEFAULT;
    if (!zc__page_size_ok(o.page_size) || level < ZSTD_minCLevel() ||
        level > ZSTD_maxCLevel()) {
        if (err && errlen)
            snprintf(err, errlen,
                     "%s: bad writer options (page size a power of two in "
                     "512..65536, level %d..%d)",
                     path, ZSTD_minCLevel(), ZSTD_maxCLevel());
        return -ZC_EINVAL;
    }
    w = calloc(1, sizeof(*w));
    if (!w || !(w->path = strdup(path))) {
        free(w);
        if (err && errlen)
            snprintf(err, errlen, "out of memory");
        return -ZC_ENOMEM;
    }
    w->text = o.text;
    w->page_size = o.page_size;
    if (!w->text) {
        w->cctx = ZSTD_createCCtx();
        w->in_cap = ZSTD_CStreamInSize();
        w->out_cap = ZSTD_CStreamOutSize();
        w->in = malloc(w->in_cap);
        w->out = malloc(w->out_cap);
        if (!w->cctx || !w->in || !w->out) {
            rc = wfail(w, -ZC_ENOMEM, "out of memory");
            goto fail;
        }
        if (ZSTD_isError(ZSTD_CCtx_setParameter(
                w->cctx, ZSTD_c_compressionLevel, level)) ||
            ZSTD_isError(
                ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1))) {
            rc = wfail(w, -ZC_EINVAL, "zstd refused level %d", level);
            goto fail;
        }
    }
    if (o.meta && (rc = check_meta(w, o.meta)))
        goto fail;
    if ((rc = zc_output_open(path, &w->o, w->err, sizeof(w->err))))
        goto fail;
    w->f = zc_output_stream(w->o);
    rc = w->text ? text_header(w, o.meta) : binary_header(w, o.meta);
    if (rc)
        goto fail;
    *wp = w;
    return 0;
fail:
    if (err && errlen)
        snprintf(err, errlen, "%s", w->err);
    if (!w->rc)
        w->rc = rc;
    zc_access_writer_close(w, NULL, 0); /* w->rc is set: writes nothing */
    return rc;
}

/* The time of a new record: not before the last one. */
static int check_time(struct zc_access_writer *w, uint64_t t)
{
    if (t < w->clock)
        return wfail(w, -ZC_EINVAL,
                     "time %" PRIu64 " ns is before the previous record's "
                     "%" PRIu64,
                     t, w->clock);
    return 0;
}

/* The time as text: seconds and 9 decimals. */
#define TIME_FMT "%" PRIu64 ".%09" PRIu64
#define TIME_ARG(t) (t) / 1000000000u, (t) % 1000000000u

/* A size record, its time checked. */
static int size_record(struct zc_access_writer *w, uint64_t time_ns,
                       uint32_t dev, uint64_t ino, uint64_t bytes)
{
    uint64_t v[4];
    int rc = zc__file_size_set(&w->sizes, dev, ino, bytes);

    if (rc == -ZC_ENOMEM)
        return wfail(w, rc, "out of memory");
    if (rc)
        return wfail(w, rc, "sizes of more than 2^32 - 2 files");
    if (w->text) {
        if (fprintf(w->f, TIME_FMT " size %u:%u %" PRIu64 " %" PRIu64 "\n",
                    TIME_ARG(time_ns), (unsigned)(dev >> 20),
                    (unsigned)(dev & 0xfffff), ino, bytes) < 0)
            return io_fail(w);
    } else {
        v[0] = time_ns - w->clock;
        v[1] = dev;
        v[2] = ino;
        v[3] = bytes;
        if ((rc = binary_record(w, ZCA_SIZE, v, 4)))
            return rc;
    }
    w->clock = time_ns;
    w->records++;
    return 0;
}

/* 0 if req can be written (its time is checked apart), else -ZC_EINVAL
 * with the message. */
static int check_request(struct zc_access_writer *w, const zc_request *req)
{
    uint64_t ps = w->page_size;

    if (req->ino == 0)
        return wfail(w, -ZC_EINVAL,
                     "request with inode 0 (an access stream holds files' "
                     "pages)");
    /* the last byte at most 2^64 - 1, as the readers take it */
    if (req->length == 0 || req->offset % ps || req->length % ps ||
        req->length - 1 > UINT64_MAX - req->offset)
        return wfail(w, -ZC_EINVAL,
                     "request at %" PRIu64 " of %" PRIu64
                     " bytes is not whole pages of %" PRIu64 " below 2^64",
                     req->offset, req->length, ps);
    if (req->length / ps > ZCA_COUNT_MAX)
        return wfail(w, -ZC_EINVAL,
                     "request of %" PRIu64 " pages, past the cap of 2^20 "
                     "pages per record",
                     req->length / ps);
    if (req->flags & ~(ZC_REQ_MAPPED | ZC_REQ_AROUND | ZC_REQ_SIZE))
        return wfail(w, -ZC_EINVAL, "unknown request flags 0x%" PRIx32,
                     req->flags);
    if ((req->flags & ZC_REQ_AROUND) && !(req->flags & ZC_REQ_MAPPED))
        return wfail(w, -ZC_EINVAL,
                     "fault-around (ZC_REQ_AROUND) without ZC_REQ_MAPPED");
    if ((req->flags & ZC_REQ_MAPPED) && req->write)
        return wfail(w, -ZC_EINVAL,
                     "a mapped write (mapped accesses are reads)");
    return 0;
}

int zc_access_write(zc_access_writer *w, const zc_request *req)
{
    uint64_t ps, v[5], size;
    unsigned op;
    int rc;

    if (!w || !req)
        return -ZC_EINVAL;
    if (w->rc)
        return w->rc;
    if ((rc = check_request(w, req)) || (rc = check_time(w, req->time_ns)))
        return rc;
    if ((req->flags & ZC_REQ_SIZE) &&
        !(zc__file_size_get(&w->sizes, req->dev, req->ino, &size) &&
          size == req->file_size) &&
        (rc = size_record(w, req->time_ns, req->dev, req->ino, req->file_size)))
        return rc;
    ps = w->page_size;
    op = req->write                   ? ZCA_WRITE
         : req->flags & ZC_REQ_AROUND ? ZCA_AROUND
         : req->flags & ZC_REQ_MAPPED ? ZCA_MAPPED_READ
                                      : ZCA_READ;
    if (w->text) {
        if (fprintf(w->f,
                    TIME_FMT " %s %u:%u %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
                    TIME_ARG(req->time_ns), zc__access_word(op),
                    (unsigned)(req->dev >> 20), (unsigned)(req->dev & 0xfffff),
                    req->ino, req->offset / ps, req->length / ps) < 0)
            return io_fail(w);
    } else {
        v[0] = req->time_ns - w->clock;
        v[1] = req->dev;
        v[2] = req->ino;
        v[3] = req->offset / ps;
        v[4] = req->length / ps;
        if ((rc = binary_record(w, op, v, 5)))
            return rc;
    }
    w->clock = req->time_ns;
    w->records++;
    return 0;
}

int zc_access_write_resident(zc_access_writer *w, uint64_t time_ns,
                             uint32_t dev, uint64_t pages)
{
    uint64_t v[3];
    int rc;

    if (!w)
        return -ZC_EINVAL;
    if (w->rc)
        return w->rc;
    if ((rc = check_time(w, time_ns)))
        return rc;
    if (w->text) {
        if (fprintf(w->f, TIME_FMT " resident %u:%u %" PRIu64 "\n",
                    TIME_ARG(time_ns), (unsigned)(dev >> 20),
                    (unsigned)(dev & 0xfffff), pages) < 0)
            return io_fail(w);
    } else {
        v[0] = time_ns - w->clock;
        v[1] = dev;
        v[2] = pages;
        if ((rc = binary_record(w, ZCA_RESIDENT, v, 3)))
            return rc;
    }
    w->clock = time_ns;
    w->records++;
    return 0;
}

int zc_access_write_size(zc_access_writer *w, uint64_t time_ns, uint32_t dev,
                         uint64_t ino, uint64_t bytes)
{
    int rc;

    if (!w)
        return -ZC_EINVAL;
    if (w->rc)
        return w->rc;
    if (ino == 0)
        return wfail(w, -ZC_EINVAL, "a size of inode 0 (sizes are files')");
    if ((rc = check_time(w, time_ns)))
        return rc;
    return size_record(w, time_ns, dev, ino, bytes);
}

const char *zc_access_writer_error(const zc_access_writer *w)
{
    return w && w->rc ? w->err : "";
}

/* The end record, and the end of the frame. */
static void finish(struct zc_access_writer *w)
{
    if (w->text) {
        if (fputs("end\n", w->f) < 0)
            io_fail(w);
    } else if (!binary_record(w, ZCA_END, &w->records, 1)) {
        compress(w, ZSTD_e_end);
    }
}

void zc_access_writer_abandon(zc_access_writer *w)
{
    if (w && !w->rc)
        w->rc = -ZC_ECANCELED; /* a failed writer writes no end record */
    zc_access_writer_close(w, NULL, 0);
}

int zc_access_writer_close(zc_access_writer *w, char *err, size_t errlen)
{
    int rc;

    if (err && errlen)
        err[0] = '\0';
    if (!w)
        return 0;
    if (w->f && !w->rc)
        finish(w);
    w->rc = zc__output_end(&w->o, w->rc, w->err, sizeof(w->err));
    w->f = NULL;
    rc = w->rc;
    if (rc && err && errlen)
        snprintf(err, errlen, "%s", w->err);
    ZSTD_freeCCtx(w->cctx);
    zc__file_sizes_free(&w->sizes);
    free(w->in);
    free(w->out);
    free(w->path);
    free(w);
    return rc;
}
