/*
 * sim/capture/outputs.c - the files a conversion writes, and the one rule
 * for removing them when it fails.
 *
 *   blkparse     text written here: comment lines saying it was made from
 *                tracefs events (not by blktrace), then one line per Q
 *                event in blkparse's default format, sequence numbers per
 *                CPU; zstd-compressed (level 19, with its checksum) when
 *                the path ends in .zst
 *   pack         zc_pack_writer; its keys are mapped when the streams are
 *                finished (contents.c), the image read in key order
 *   kernel ops   zc_ops_writer (text when the path ends in .txt), the
 *                pack's contents referred to by id; each pool initialised
 *                before its first op
 *   access       zc_access_writer (text when .txt); its header names the
 *                pack and the pack's identity, memory_limit, read_ahead_kb
 *   inodes       "ex <INO>" lines, ascending
 *
 * Whole or nothing: every output is written under a temporary name
 * (zc_output_open()), and all are opened before the first event is read,
 * so that an output that cannot be made stops the conversion before its
 * work.  At the end each is finished in turn with its renames deferred
 * (zc__output_defer()); only when the last one is finished are they all
 * renamed into place, one after another.  A failure or a kill before
 * that leaves every file of those names as it was (the streams still
 * open are abandoned: their temporary files go, and a stream written to
 * a FIFO or standard output gets no end record, so that its reader sees
 * it incomplete).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "capture.h"
#include "common/output.h"
#include "pack/pack.h"
#include "trace/access.h"
#include "zct/zct.h"

/* ---- what a failure may remove ---------------------------------------------
 */

/* ---- blkparse text, plain or zstd ------------------------------------------
 */

struct zc__cap_text {
    FILE *f;      /* zc_output_stream(o) */
    zc_output *o; /* written whole or not at all */
    ZSTD_CCtx *z;
    const char *path;
    char buf[1 << 16];
};

static bool ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);

    return a >= b && !strcmp(s + a - b, tail);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Write what zstd made of the input so far (mode: continue or end). */
static int text_zstd(struct zc__cap *c, struct zc__cap_text *w,
                     ZSTD_inBuffer *in, ZSTD_EndDirective mode)
{
    size_t left;

    do {
        ZSTD_outBuffer ob = {w->buf, sizeof(w->buf), 0};
        left = ZSTD_compressStream2(w->z, &ob, in, mode);
        if (ZSTD_isError(left))
            return zc__cap_fail(c, -ZC_EIO, "%s: zstd: %s", w->path,
                                ZSTD_getErrorName(left));
        if (fwrite(w->buf, 1, ob.pos, w->f) != ob.pos)
            return zc__cap_fail(c, -ZC_EIO, "%s: write error", w->path);
    } while (mode == ZSTD_e_end ? left != 0 : in->pos < in->size);
    return 0;
}

static int text_write(struct zc__cap *c, struct zc__cap_text *w, const void *p,
                      size_t len)
{
    ZSTD_inBuffer in = {p, len, 0};

    if (w->z)
        return len ? text_zstd(c, w, &in, ZSTD_e_continue) : 0;
    if (fwrite(p, 1, len, w->f) != len)
        return zc__cap_fail(c, -ZC_EIO, "%s: write error", w->path);
    return 0;
}

static int text_printf(struct zc__cap *c, struct zc__cap_text *w,
                       const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int text_printf(struct zc__cap *c, struct zc__cap_text *w,
                       const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    int len;

    va_start(ap, fmt);
    len = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (len < 0 || (size_t)len >= sizeof(line))
        return zc__cap_fail(c, -ZC_ENOSPC, "%s: a line too long to write",
                            w->path);
    return text_write(c, w, line, (size_t)len);
}

static int text_open(struct zc__cap *c, const char *path)
{
    struct zc__cap_text *w = calloc(1, sizeof(*w));
    char err[512];
    int rc;

    if (!w)
        return zc__cap_nomem(c);
    c->bp = w;
    w->path = path;
    if ((rc = zc_output_open(path, &w->o, err, sizeof(err))))
        return zc__cap_fail(c, rc, "%s", err);
    w->f = zc_output_stream(w->o);
    if (ends_with(path, ".zst") &&
        (!(w->z = ZSTD_createCCtx()) ||
         ZSTD_isError(
             ZSTD_CCtx_setParameter(w->z, ZSTD_c_compressionLevel, 19)) ||
         ZSTD_isError(ZSTD_CCtx_setParameter(w->z, ZSTD_c_checksumFlag, 1))))
        return zc__cap_fail(c, -ZC_ENOMEM, "%s: zstd cannot start", path);
    return 0;
}

/* Free the blkparse writer: finished (its zstd frame ended, the file
 * closed, every error told), or abandoned as it is. */
static int text_close(struct zc__cap *c, bool finish)
{
    struct zc__cap_text *w = c->bp;
    int rc = 0;

    c->bp = NULL;
    if (w->f && finish && w->z) {
        ZSTD_inBuffer in = {NULL, 0, 0};
        rc = text_zstd(c, w, &in, ZSTD_e_end);
    }
    ZSTD_freeCCtx(w->z);
    if (finish && !rc && w->o) {
        char err[512];
        if ((rc = zc_output_commit(w->o, err, sizeof(err))))
            rc = zc__cap_fail(c, rc, "%s", err);
    } else {
        zc_output_abandon(w->o);
    }
    free(w);
    return rc;
}

int zc__cap_blkparse(struct zc__cap *c, uint32_t dev, unsigned cpu,
                     uint32_t pid, uint64_t rel, const char *rwbs,
                     uint64_t sector, uint64_t count, const char *comm)
{
    if (!c->bp)
        return 0;
    return text_printf(c, c->bp,
                       "%3u,%-3u %2u %8" PRIu64 " %5" PRIu64 ".%09" PRIu64
                       " %5u  Q %3s %" PRIu64 " + %" PRIu64 " %s\n",
                       dev >> 20, dev & 0xfffff, cpu, ++c->seq[cpu],
                       rel / 1000000000, rel % 1000000000, pid, rwbs, sector,
                       count, comm ? comm : "[?]");
}

/* ---- the streams
 * --------------------------------------------------------------- */

static int open_ops(struct zc__cap *c)
{
    zc_ops_writer_options wo = {.page_size = ZC__CAP_PAGE,
                                .level = c->o.level ? c->o.level : -1,
                                .window = 65536,
                                .pack = c->pw};
    char err[512], meta[1024];
    int rc;

    snprintf(meta, sizeof(meta),
             "format=tracefs-filemap\nsource=%s\nimage=%s\n"
             "pools=0 the file system (key inode), 1 the block device's "
             "metadata pages\n",
             base_name(c->o.input), base_name(c->o.image));
    wo.text = ends_with(c->o.kernel_ops, ".txt");
    wo.meta = meta;
    if ((rc = zc_ops_writer_open(c->o.kernel_ops, &wo, &c->ops, err,
                                 sizeof(err))))
        return zc__cap_fail(c, rc, "%s", err);
    return 0;
}

static int open_access(struct zc__cap *c)
{
    zc_access_writer_options ao = {.page_size = ZC__CAP_PAGE,
                                   .text = ends_with(c->o.access, ".txt")};
    char err[512], meta[1024];
    int len, rc;

    len = snprintf(meta, sizeof(meta), "format=tracefs-access\nsource=%s\n",
                   base_name(c->o.input));
    if (c->pw) /* the pack's name and identity */
        len += snprintf(meta + len, sizeof(meta) - (size_t)len,
                        "pack=%s\npack_id=%016" PRIx64 "\n",
                        base_name(c->o.pack), zc_pack_writer_id(c->pw));
    if (c->o.memory_limit_set)
        len += snprintf(meta + len, sizeof(meta) - (size_t)len,
                        "memory_limit=%" PRIu64 "\n", c->o.memory_limit);
    if (c->o.read_ahead_set)
        len += snprintf(meta + len, sizeof(meta) - (size_t)len,
                        "read_ahead_kb=%" PRIu64 "\n", c->o.read_ahead_kb);
    if (len < 0 || (size_t)len >= sizeof(meta))
        return zc__cap_refuse(c, -ZC_EINVAL,
                              "the access stream's header is too long");
    ao.meta = meta;
    if ((rc =
             zc_access_writer_open(c->o.access, &ao, &c->aw, err, sizeof(err))))
        return zc__cap_fail(c, rc, "%s", err);
    return 0;
}

int zc__cap_open_outputs(struct zc__cap *c)
{
    char err[512];
    int rc;

    if (c->o.blkparse &&
        ((rc = text_open(c, c->o.blkparse)) ||
         (rc = text_printf(c, c->bp,
                           "# blkparse default text format, made by "
                           "zcache-tracefs from tracefs events\n"
                           "# (block:block_bio_queue, the Q event) of %s; "
                           "not blktrace output.\n"
                           "# Times are relative to the trace's first event; "
                           "sequence numbers count per CPU.\n",
                           base_name(c->o.input)))))
        return rc;
    if (c->o.pack && (rc = zc_pack_writer_open(c->o.pack, ZC__CAP_PAGE, 0,
                                               &c->pw, err, sizeof(err))))
        return zc__cap_error(c, rc, rc == -ZC_EINVAL, "%s", err); /* EINVAL:
                                                 a FIFO, a device: refused */
    if ((c->o.kernel_ops && (rc = open_ops(c))) ||
        (c->o.access && (rc = open_access(c))))
        return rc;
    if (c->o.inodes &&
        (rc = zc_output_open(c->o.inodes, &c->inodes_out, err, sizeof(err))))
        return zc__cap_fail(c, rc, "%s", err);
    return 0;
}

int zc__cap_emit(struct zc__cap *c, const zc_op *op)
{
    int rc;

    if (!c->ops)
        return 0;
    if (!c->pool_init[op->pool]) {
        zc_op init = {
            .kind = ZC_OP_INIT_FS, .pool = op->pool, .page_size = ZC__CAP_PAGE};
        if ((rc = zc_ops_write(c->ops, &init)))
            return zc__cap_fail(c, rc, "%s", zc_ops_writer_error(c->ops));
        c->pool_init[op->pool] = true;
    }
    if ((rc = zc_ops_write(c->ops, op)))
        return zc__cap_fail(c, rc, "%s", zc_ops_writer_error(c->ops));
    return 0;
}

int zc__cap_write_resident(struct zc__cap *c, uint64_t rel, uint64_t pages)
{
    int rc;

    if (c->aw && (rc = zc_access_write_resident(c->aw, rel, c->o.dev, pages)))
        return zc__cap_fail(c, rc, "%s", zc_access_writer_error(c->aw));
    return 0;
}

int zc__cap_write_access(struct zc__cap *c, const zc_request *req)
{
    int rc;

    if (c->aw && (rc = zc_access_write(c->aw, req)))
        return zc__cap_fail(c, rc, "%s", zc_access_writer_error(c->aw));
    return 0;
}

/* ---- the end
 * ------------------------------------------------------------------- */

static int write_inodes(struct zc__cap *c)
{
    zc_output *o = c->inodes_out;
    uint64_t *list = NULL;
    size_t len = 0;
    char err[512];
    int rc;

    c->inodes_out = NULL;
    if (zc__cap_named_inodes(c, &list, &len)) {
        zc_output_abandon(o);
        return zc__cap_fail(c, -ZC_ENOMEM, "%s: out of memory", c->o.inodes);
    }
    for (size_t i = 0; i < len; i++)
        fprintf(zc_output_stream(o), "ex <%" PRIu64 ">\n", list[i]);
    free(list);
    if ((rc = zc_output_commit(o, err, sizeof(err))))
        return zc__cap_fail(c, rc, "%s", err);
    return 0;
}

/* Finish every output, in order (their renames deferred). */
static int finish_outputs(struct zc__cap *c)
{
    char err[512];
    int rc;

    if (c->bp && (rc = text_close(c, true)))
        return rc;
    rc = zc_ops_writer_close(c->ops, err, sizeof(err));
    c->ops = NULL;
    if (rc)
        return zc__cap_fail(c, rc, "%s", err);
    rc = zc_access_writer_close(c->aw, err, sizeof(err));
    c->aw = NULL;
    if (rc)
        return zc__cap_fail(c, rc, "%s", err);
    if ((rc = zc__cap_map_keys(c))) /* after the ops writer: it adds the
                                       puts' contents */
        return rc;
    rc = zc_pack_writer_close(c->pw, err, sizeof(err));
    c->pw = NULL;
    if (rc)
        return zc__cap_fail(c, rc, "%s", err);
    return c->inodes_out ? write_inodes(c) : 0;
}

int zc__cap_close_outputs(struct zc__cap *c)
{
    char err[512];
    int rc;

    zc__output_defer(&c->finished);
    rc = finish_outputs(c);
    zc__output_defer(NULL);
    if (rc)
        return rc; /* the caller abandons the rest, and the finished */
    if ((rc = zc__output_group_commit(&c->finished, err, sizeof(err))))
        return zc__cap_fail(c, rc, "%s", err);
    return 0;
}

void zc__cap_abandon_outputs(struct zc__cap *c)
{
    zc__output_defer(NULL);
    if (c->bp)
        text_close(c, false);
    zc_ops_writer_abandon(c->ops);
    zc_access_writer_abandon(c->aw);
    zc_pack_writer_abandon(c->pw);
    zc_output_abandon(c->inodes_out);
    c->ops = NULL;
    c->aw = NULL;
    c->pw = NULL;
    c->inodes_out = NULL;
    zc__output_group_abandon(&c->finished);
}
