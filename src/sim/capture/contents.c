/*
 * sim/capture/contents.c - what the traced file system holds: its inodes
 * (their sizes before the run, whether they exist after it), their
 * extents on the device, and the bytes of every page the streams name,
 * read from the device image after the run.
 *
 * A key (dev, ino, index) names page index of inode ino of the file
 * system on device dev, or with ino 0 page index of the device itself
 * (the block trace's pages, and ext4's metadata in the block device's
 * page cache).  Its content:
 *
 *   a device page      the image's bytes at its own offset (past the end
 *                      of the image: zeros, as a device reads)
 *   a file page        through the extent that covers it ("INO LBLK PBLK
 *                      LEN [u]": an unwritten extent reads as zeros)
 *   no extent covers   a hole, or a page never written back: zeros, if
 *   it                 the file exists at the end of the run (in the live
 *                      list; without one, if it owns an extent; ext4's
 *                      reserved inodes, below 11, always exist)
 *   else               the file was deleted during the run and its pages
 *                      cannot be read: synthetic contents ("synth:1"),
 *                      counted
 *
 * So the contents are exact for pages the workload did not change after
 * reading them.
 *
 * Data layout: the inodes numbered by the files interner (common/files.h,
 * inode ino as the pair (0, ino)), their size and flags in an array by
 * number; the extents sorted by (ino, lblk) for a binary search; the keys
 * the pack must map appended to an array that is sorted and made unique
 * whenever it fills (its flags or'ed), and mapped in key order at the end,
 * which also reads the image in order.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"

#define EXT4_FIRST_INO 11

/* ---- inodes -----------------------------------------------------------------
 */

int zc__cap_inode(struct zc__cap *c, uint64_t ino, uint32_t *file,
                  struct zc__cap_inode **e)
{
    size_t cap = c->inode_cap;
    uint32_t id;
    int rc;

    if (!ino)
        return zc__cap_bad(c, "inode 0");
    if ((rc = zc__files_id(&c->inodes, 0, ino, &id)))
        return rc == -ZC_ENOMEM ? zc__cap_nomem(c)
                                : zc__cap_fail(c, rc, "too many inodes");
    if (id >= cap) {
        if ((rc = zc__cap_reserve(c, &c->inode, &cap, id, sizeof(*c->inode),
                                  1024)))
            return rc;
        memset(c->inode + c->inode_cap, 0,
               (cap - c->inode_cap) * sizeof(*c->inode));
        c->inode_cap = cap;
    }
    *file = id;
    *e = &c->inode[id];
    return 0;
}

static int sizes_line(struct zc__cap *c, char *line, const char *path,
                      uint64_t ln, bool live)
{
    const char *p = line + strspn(line, " \t");
    uint64_t ino, size;
    struct zc__cap_inode *e = NULL;
    uint32_t file;
    int rc;

    if (*p == '#' || *p == '\0')
        return 0;
    if (!zc__cap_take_u64(&p, 10, "", &ino) || !ino ||
        !(p += strspn(p, " \t"), zc__cap_take_u64(&p, 10, "", &size)) || *p)
        return zc__cap_refuse(c, -ZC_EFORMAT, "%s:%" PRIu64 ": want 'INO SIZE'",
                              path, ln);
    if ((rc = zc__cap_inode(c, ino, &file, &e)))
        return rc;
    if (live)
        e->live = true;
    else if (size > e->size)
        e->size = size; /* hard links list an inode twice */
    return 0;
}

static int size_line(struct zc__cap *c, char *line, const char *path,
                     uint64_t ln)
{
    return sizes_line(c, line, path, ln, false);
}

static int live_line(struct zc__cap *c, char *line, const char *path,
                     uint64_t ln)
{
    return sizes_line(c, line, path, ln, true);
}

int zc__cap_load_sizes(struct zc__cap *c, const char *path, bool live)
{
    return zc__cap_read_file(c, path, live ? live_line : size_line);
}

/* ---- extents
 * ------------------------------------------------------------------ */

static int ext_cmp(const void *a, const void *b)
{
    const struct zc__cap_extent *x = a, *y = b;

    if (x->ino != y->ino)
        return x->ino < y->ino ? -1 : 1;
    return x->lblk < y->lblk ? -1 : x->lblk > y->lblk;
}

static int extent_line(struct zc__cap *c, char *line, const char *path,
                       uint64_t ln)
{
    struct zc__cap_extent e = {0};
    const char *p = line;
    uint64_t *v[] = {&e.ino, &e.lblk, &e.pblk, &e.len};
    bool ok = true;
    int rc;

    if (line[0] == '#' || line[0] == '\0')
        return 0;
    for (size_t k = 0; k < 4 && ok; k++) {
        p += strspn(p, " \t");
        ok = zc__cap_take_u64(&p, 10, "", v[k]);
    }
    p += strspn(p, " \t");
    if (ok && *p == 'u') {
        e.unwritten = true;
        p++;
    }
    if (!ok || *p || !e.len || e.lblk + e.len < e.lblk ||
        e.pblk > UINT64_MAX / ZC__CAP_PAGE - e.len)
        return zc__cap_refuse(c, -ZC_EFORMAT,
                              "%s:%" PRIu64 ": want 'INO LBLK PBLK LEN [u]'",
                              path, ln);
    if ((rc = zc__cap_reserve(c, &c->ext, &c->ext_cap, c->next, sizeof(*c->ext),
                              1024)))
        return rc;
    c->ext[c->next++] = e;
    return 0;
}

int zc__cap_load_extents(struct zc__cap *c)
{
    int rc = zc__cap_read_file(c, c->o.extents, extent_line);

    if (!rc && c->next)
        qsort(c->ext, c->next, sizeof(*c->ext), ext_cmp);
    return rc;
}

/* The extent holding (ino, lblk), or NULL. */
static const struct zc__cap_extent *find_extent(const struct zc__cap *c,
                                                uint64_t ino, uint64_t lblk)
{
    size_t lo = 0, hi = c->next;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct zc__cap_extent *e = &c->ext[mid];
        if (e->ino < ino || (e->ino == ino && e->lblk + e->len <= lblk))
            lo = mid + 1;
        else if (e->ino > ino || e->lblk > lblk)
            hi = mid;
        else
            return e;
    }
    return NULL;
}

/* Whether ino exists after the run (above). */
static int alive(struct zc__cap *c, uint64_t ino, bool *yes)
{
    size_t lo = 0, hi = c->next;

    if (ino < EXT4_FIRST_INO) {
        *yes = true;
    } else if (c->o.live) {
        struct zc__cap_inode *e = NULL;
        uint32_t file;
        int rc = zc__cap_inode(c, ino, &file, &e);
        if (rc)
            return rc;
        *yes = e->live;
    } else {
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (c->ext[mid].ino < ino)
                lo = mid + 1;
            else
                hi = mid;
        }
        *yes = lo < c->next && c->ext[lo].ino == ino;
    }
    return 0;
}

/* ---- contents
 * ------------------------------------------------------------------ */

int zc__cap_open_image(struct zc__cap *c)
{
    if ((c->image_fd = open(c->o.image, O_RDONLY | O_CLOEXEC)) < 0)
        return zc__cap_refuse(c, -ZC_EIO, "%s: %s", c->o.image,
                              strerror(errno));
    return 0;
}

static int read_image(struct zc__cap *c, uint64_t off)
{
    ssize_t got = pread(c->image_fd, c->page, ZC__CAP_PAGE, (off_t)off);

    if (got < 0)
        return zc__cap_fail(c, -ZC_EIO, "%s: %s", c->o.image, strerror(errno));
    if (got < (ssize_t)ZC__CAP_PAGE) /* past the end: zeros */
        memset(c->page + got, 0, ZC__CAP_PAGE - (size_t)got);
    return 0;
}

static int synthetic_page(struct zc__cap *c, uint32_t dev, uint64_t ino,
                          uint64_t index)
{
    char err[256];
    int rc;

    if (!c->synth && (rc = zc_content_open("synth:1", ZC__CAP_PAGE, &c->synth,
                                           err, sizeof(err))))
        return zc__cap_fail(c, rc, "synth:1: %s", err);
    if ((rc = zc_content_file_page(c->synth, dev, ino, index, 0, c->page)))
        return zc__cap_fail(c, rc, "synth:1: %s", zc_strerror(rc));
    return 0;
}

int zc__cap_content(struct zc__cap *c, uint32_t dev, uint64_t ino,
                    uint64_t index, bool *synthetic)
{
    const struct zc__cap_extent *e;
    bool exists;
    int rc;

    *synthetic = false;
    if (!ino) {
        if (index > UINT64_MAX / ZC__CAP_PAGE)
            return zc__cap_bad(c, "a device page past 2^64 bytes");
        return read_image(c, index * ZC__CAP_PAGE);
    }
    if ((e = find_extent(c, ino, index)) != NULL) {
        if (!e->unwritten)
            return read_image(c, (e->pblk + index - e->lblk) * ZC__CAP_PAGE);
        memset(c->page, 0, ZC__CAP_PAGE);
        return 0;
    }
    if ((rc = alive(c, ino, &exists)))
        return rc;
    if (exists) { /* a hole, or past the end */
        memset(c->page, 0, ZC__CAP_PAGE);
        return 0;
    }
    *synthetic = true;
    return synthetic_page(c, dev, ino, index);
}

/* ---- the keys of the pack
 * ------------------------------------------------------- */

/* Keys in (dev, ino, index) order. */
static int key_cmp(const void *a, const void *b)
{
    const struct zc__cap_key *x = a, *y = b;
    int by_dev = (x->dev > y->dev) - (x->dev < y->dev);
    int by_ino = (x->ino > y->ino) - (x->ino < y->ino);

    return by_dev   ? by_dev
           : by_ino ? by_ino
                    : (x->index > y->index) - (x->index < y->index);
}

/* Sort and merge equal keys (their flags or'ed). */
static void keys_unique(struct zc__cap *c)
{
    size_t w = 0;

    if (!c->nkeys)
        return;
    qsort(c->keys, c->nkeys, sizeof(*c->keys), key_cmp);
    for (size_t r = 0; r < c->nkeys; r++) {
        if (w && !key_cmp(&c->keys[w - 1], &c->keys[r]))
            c->keys[w - 1].flags |= c->keys[r].flags;
        else
            c->keys[w++] = c->keys[r];
    }
    c->nkeys = w;
}

int zc__cap_key(struct zc__cap *c, uint32_t dev, uint64_t ino, uint64_t index,
                uint32_t flags)
{
    int rc;

    if (!c->pw && !(flags & ZC__CAP_KEY_ACCESS))
        return 0;
    if (c->nkeys == c->keys_cap) {
        if (c->keys_cap)
            keys_unique(c);
        /* grow only when merging freed less than half */
        if ((!c->keys_cap || c->nkeys * 2 > c->keys_cap) &&
            (rc = zc__cap_reserve(c, &c->keys, &c->keys_cap, c->keys_cap,
                                  sizeof(*c->keys), 1 << 16)))
            return rc;
    }
    c->keys[c->nkeys++] = (struct zc__cap_key){
        .dev = dev, .ino = ino, .index = index, .flags = flags};
    return 0;
}

int zc__cap_map_keys(struct zc__cap *c)
{
    int rc;

    keys_unique(c);
    for (size_t i = 0; i < c->nkeys; i++) {
        const struct zc__cap_key *k = &c->keys[i];
        bool synthetic;
        c->n.distinct += (k->flags & ZC__CAP_KEY_ACCESS) != 0;
        if (!c->pw)
            continue;
        if ((rc = zc__cap_content(c, k->dev, k->ino, k->index, &synthetic)))
            return rc;
        c->n.synthetic_keys += synthetic;
        if ((rc = zc_pack_map(c->pw, k->dev, k->ino, k->index, c->page, NULL)))
            return zc__cap_fail(c, rc, "%s", zc_pack_writer_error(c->pw));
        c->n.pack_keys++;
    }
    return 0;
}

int zc__cap_named_inodes(struct zc__cap *c, uint64_t **list, size_t *len)
{
    uint64_t *l = malloc((c->inodes.n ? c->inodes.n : 1) * sizeof(*l));
    size_t n = 0;

    if (!l)
        return -ZC_ENOMEM; /* the caller tells it */
    for (uint32_t f = 0; f < c->inodes.n; f++)
        if (c->inode[f].named)
            l[n++] = zc__files_get(&c->inodes, f)->ino;
    qsort(l, n, sizeof(*l), zc__cap_u64_cmp);
    *list = l;
    *len = n;
    return 0;
}

void zc__cap_contents_free(struct zc__cap *c)
{
    zc__files_free(&c->inodes);
    free(c->inode);
    free(c->ext);
    free(c->keys);
    zc_content_close(c->synth);
    if (c->image_fd >= 0)
        close(c->image_fd);
}
