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
 * number; the extents sorted by (ino, lblk) for a binary search.  The
 * keys the streams name are kept to the end of the run, after their
 * pages left the page cache: the access stream's, for its count of
 * distinct pages, and with a pack the others too, since the pack maps
 * every key, at the end, once and in key order (so the image is read in
 * order; the two sets are merged as they are mapped).  They are kept as
 * runs of consecutive pages of a file (24 bytes a run, the files
 * numbered by a second interner), appended, extended when a run continues
 * the last one, and sorted and merged whenever the array fills: a stream
 * that reads its files in order keeps a run a file, not a key a page (a
 * 4M-page stream took 96 MiB for its keys as pages).  Keys in no order at
 * all still cost no more than a key a page did (24 bytes).
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

/* ---- the keys the streams name ---------------------------------------------
 */

/* Keys (file, first) .. (file, last) of the key file `file`, a number of
 * keys->files. */
struct key_run {
    uint64_t first, last;
    uint32_t file;
};

/* A set of keys as runs, appended and, when the array fills, sorted and
 * merged (runs that overlap or touch become one). */
struct key_runs {
    struct key_run *v;
    size_t n, cap;
};

struct zc__cap_keys {
    struct zc__files files; /* the keys' (dev, ino), numbered */
    struct key_runs access; /* the keys the access stream names */
    struct key_runs other;  /* the other keys (kept with a pack only) */
};

#define KEY_RUNS_FIRST 4096 /* runs of the first array (96 KiB) */

/* Whether keys first..last and a..b of one file overlap or touch. */
static bool runs_touch(uint64_t first, uint64_t last, uint64_t a, uint64_t b)
{
    return (first <= b || first - b == 1) && (a <= last || a - last == 1);
}

/* Runs by file, then first key. */
static int run_cmp(const void *x_, const void *y_)
{
    const struct key_run *x = x_, *y = y_;

    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    return (x->first > y->first) - (x->first < y->first);
}

/* Sort the runs and merge those that overlap or touch. */
static void runs_merge(struct key_runs *r)
{
    size_t w = 0;

    if (!r->n)
        return;
    qsort(r->v, r->n, sizeof(*r->v), run_cmp);
    for (size_t i = 0; i < r->n; i++) {
        struct key_run *p = w ? &r->v[w - 1] : NULL;
        if (p && p->file == r->v[i].file &&
            runs_touch(r->v[i].first, r->v[i].last, p->first, p->last)) {
            if (r->v[i].last > p->last)
                p->last = r->v[i].last;
        } else {
            r->v[w++] = r->v[i];
        }
    }
    r->n = w;
}

/* What the keys take now, into the tests' counters (zc__cap_cost). */
static void keys_cost(const struct zc__cap_keys *k)
{
    uint64_t slots = k->access.cap + k->other.cap;
    uint64_t bytes = slots * sizeof(struct key_run) +
                     (uint64_t)k->files.cap * sizeof(*k->files.v) +
                     (k->files.table ? (k->files.mask + 1) * 4 : 0);

    if (slots > zc__cap_cost.key_slots)
        zc__cap_cost.key_slots = slots;
    if (bytes > zc__cap_cost.key_bytes)
        zc__cap_cost.key_bytes = bytes;
}

/* Add keys first..last of key file `file` to r.  A run that continues the
 * last one (a sequential read, a folio after its neighbour) extends it;
 * the array grows only when merging freed less than half of it, so a
 * run costs O(log runs) amortised and the array holds at most four times
 * the runs of the set (or KEY_RUNS_FIRST). */
static int runs_add(struct zc__cap *c, struct key_runs *r, uint32_t file,
                    uint64_t first, uint64_t last)
{
    struct key_run *p = r->n ? &r->v[r->n - 1] : NULL;
    int rc;

    if (p && p->file == file && runs_touch(first, last, p->first, p->last)) {
        if (first < p->first)
            p->first = first;
        if (last > p->last)
            p->last = last;
        return 0;
    }
    if (r->n == r->cap) {
        runs_merge(r);
        if ((!r->cap || r->n * 2 > r->cap) &&
            (rc = zc__cap_reserve(c, &r->v, &r->cap, r->cap, sizeof(*r->v),
                                  KEY_RUNS_FIRST)))
            return rc;
        keys_cost(c->keys);
    }
    r->v[r->n++] = (struct key_run){.first = first, .last = last, .file = file};
    return 0;
}

int zc__cap_key_run(struct zc__cap *c, uint32_t dev, uint64_t ino,
                    uint64_t first, uint64_t pages, uint32_t flags)
{
    struct zc__cap_keys *k = c->keys;
    uint32_t file;
    int rc;

    if (!pages || (!c->pw && !(flags & ZC__CAP_KEY_ACCESS)))
        return 0;
    if (!k && !(k = c->keys = calloc(1, sizeof(*k))))
        return zc__cap_nomem(c);
    if ((rc = zc__files_id(&k->files, dev, ino, &file)))
        return rc == -ZC_ENOMEM ? zc__cap_nomem(c)
                                : zc__cap_fail(c, rc, "too many files");
    if (file + 1 == k->files.n) /* a new one */
        keys_cost(k);
    return runs_add(c, flags & ZC__CAP_KEY_ACCESS ? &k->access : &k->other,
                    file, first, first + (pages - 1));
}

int zc__cap_key(struct zc__cap *c, uint32_t dev, uint64_t ino, uint64_t index,
                uint32_t flags)
{
    return zc__cap_key_run(c, dev, ino, index, 1, flags);
}

/* A key file's (dev, ino) and its number, to put the files in key order. */
struct file_rank {
    uint64_t ino;
    uint32_t dev, file;
};

static int file_rank_cmp(const void *x_, const void *y_)
{
    const struct file_rank *x = x_, *y = y_;

    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    return (x->ino > y->ino) - (x->ino < y->ino);
}

/* Map the keys (dev, ino, first..last) into the pack. */
static int map_run(struct zc__cap *c, const struct file_rank *f,
                   const struct key_run *run)
{
    for (uint64_t index = run->first;; index++) {
        bool synthetic;
        int rc = zc__cap_content(c, f->dev, f->ino, index, &synthetic);
        if (rc)
            return rc;
        c->n.synthetic_keys += synthetic;
        if ((rc = zc_pack_map(c->pw, f->dev, f->ino, index, c->page, NULL)))
            return zc__cap_fail(c, rc, "%s", zc_pack_writer_error(c->pw));
        c->n.pack_keys++;
        if (index == run->last)
            return 0;
    }
}

/* Map every key of a and b (the access stream's and the others, merged)
 * into the pack once, in key order. */
static int map_union(struct zc__cap *c, const struct zc__files *files,
                     struct key_runs *a, struct key_runs *b)
{
    size_t nf = files->n ? files->n : 1, i = 0, j = 0;
    struct file_rank *order = malloc(nf * sizeof(*order));
    uint32_t *rank = malloc(nf * sizeof(*rank));
    struct key_run cur = {0};
    bool have = false;
    int rc = 0;

    if (!order || !rank) {
        rc = zc__cap_nomem(c);
        goto out;
    }
    for (uint32_t f = 0; f < files->n; f++)
        order[f] = (struct file_rank){.ino = zc__files_get(files, f)->ino,
                                      .dev = zc__files_get(files, f)->dev,
                                      .file = f};
    qsort(order, files->n, sizeof(*order), file_rank_cmp);
    for (uint32_t f = 0; f < files->n; f++)
        rank[order[f].file] = f;
    /* files by rank: runs in key order */
    for (size_t k = 0; k < a->n; k++)
        a->v[k].file = rank[a->v[k].file];
    for (size_t k = 0; k < b->n; k++)
        b->v[k].file = rank[b->v[k].file];
    runs_merge(a);
    runs_merge(b);
    while (!rc && (i < a->n || j < b->n)) {
        const struct key_run *r =
            j == b->n || (i < a->n && run_cmp(&a->v[i], &b->v[j]) < 0)
                ? &a->v[i++]
                : &b->v[j++];
        if (have && cur.file == r->file &&
            runs_touch(r->first, r->last, cur.first, cur.last)) {
            if (r->last > cur.last)
                cur.last = r->last;
            continue;
        }
        if (have)
            rc = map_run(c, &order[cur.file], &cur);
        cur = *r;
        have = true;
    }
    if (!rc && have)
        rc = map_run(c, &order[cur.file], &cur);
out:
    free(order);
    free(rank);
    return rc;
}

int zc__cap_map_keys(struct zc__cap *c)
{
    struct zc__cap_keys *k = c->keys;

    if (!k)
        return 0;
    runs_merge(&k->access);
    for (size_t i = 0; i < k->access.n; i++)
        c->n.distinct += k->access.v[i].last - k->access.v[i].first + 1;
    return c->pw ? map_union(c, &k->files, &k->access, &k->other) : 0;
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
    if (c->keys) {
        zc__files_free(&c->keys->files);
        free(c->keys->access.v);
        free(c->keys->other.v);
        free(c->keys);
    }
    zc_content_close(c->synth);
    if (c->image_fd >= 0)
        close(c->image_fd);
}
