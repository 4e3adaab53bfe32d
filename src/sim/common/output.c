/*
 * sim/common/output.c - output files written whole or not at all
 * (zc_output_*(), zcache_sim.h): every file the library and the tools
 * write goes through here.
 *
 * A regular file (or a new one) is written under a temporary name in its
 * own directory, ".NAME.zc-PID-N", created with O_EXCL, and renamed over
 * NAME by zc_output_commit() once everything is written, flushed and
 * closed without an error.  rename() within a directory is atomic: a
 * reader sees the old file or the new one, never a part.  A process
 * killed before the commit leaves NAME as it was; the temporary file goes
 * with zc_output_abandon(), or with zc_output_remove_partial() from a
 * signal handler (every temporary file still open is listed in a table
 * that a handler may walk: atomic pointers, unlink(), nothing else).  A
 * SIGKILL leaves the hidden temporary file, never a short NAME.
 *
 * The temporary file takes the mode of the file it replaces (a new one:
 * 0666 less the umask, as fopen would).  A symlink to a regular file is
 * followed: the file it points to is replaced and the link stays.
 *
 * What cannot be renamed over is written in place, as fopen "w" would:
 * "-" (standard output), a FIFO, a device (/dev/null, /dev/stdout), a
 * dangling symlink, and a link whose target's name is not the file
 * (/proc/self/fd/N of a memfd or of a deleted file) (zc_output_atomic()
 * says false).  A regular file in a
 * directory where no new file may be made is refused: written in place,
 * a kill would leave a part of it that reads as whole.
 *
 * Deferred commits: while a thread has a group set
 * (zc__output_defer()), zc_output_commit() finishes an output (flushed,
 * closed, every error told) but leaves the rename to the group's
 * commit, so that outputs made together (a conversion's) appear
 * together, after the last one is finished, or not at all.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _XOPEN_SOURCE 700 /* realpath() */

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"

struct zc_output {
    FILE *f;
    char *path;  /* as given */
    char *final; /* what the commit renames over (path, or a link's target) */
    char *tmp;   /* NULL: written in place */
    int slot;    /* in pending[], or -1 */
};

/* The temporary files open now, for zc_output_remove_partial(). */
#define PENDING 256
static char *_Atomic pending[PENDING];
static atomic_uint serial;

static void list_pending(struct zc_output *o)
{
    o->slot = -1;
    for (int i = 0; i < PENDING; i++) {
        char *none = NULL;
        if (atomic_compare_exchange_strong(&pending[i], &none, o->tmp)) {
            o->slot = i;
            return;
        }
    }
}

static void unlist_pending(struct zc_output *o)
{
    if (o->slot >= 0)
        atomic_store(&pending[o->slot], NULL);
    o->slot = -1;
}

void zc_output_remove_partial(void)
{
    for (int i = 0; i < PENDING; i++) {
        char *p = atomic_load(&pending[i]);
        if (p)
            unlink(p);
    }
}

static void release(struct zc_output *o)
{
    unlist_pending(o);
    free(o->path);
    free(o->final);
    free(o->tmp);
    free(o);
}

static int fail(char *err, size_t errlen, int rc, const char *path,
                const char *what, int e)
{
    if (err && errlen)
        snprintf(err, errlen, "%s: %s: %s", path, what, strerror(e));
    errno = e; /* for a caller that tells it its own way */
    return rc;
}

/* Create o->tmp beside o->final: 0 and the descriptor in *fd, or errno. */
static int make_tmp(struct zc_output *o, const struct stat *old, int *fd)
{
    const char *slash = strrchr(o->final, '/');
    size_t dirlen = slash ? (size_t)(slash - o->final) + 1 : 0;
    const char *base = o->final + dirlen;
    size_t baselen = strlen(base);
    int e = 0;

    if (baselen > 200) /* the suffix must fit in NAME_MAX (255) */
        baselen = 200;
    o->tmp = malloc(dirlen + baselen + 48);
    if (!o->tmp)
        return ENOMEM;
    for (int tries = 0; tries < 100; tries++) {
        snprintf(o->tmp, dirlen + baselen + 48, "%.*s.%.*s.zc-%ld-%u",
                 (int)dirlen, o->final, (int)baselen, base, (long)getpid(),
                 atomic_fetch_add(&serial, 1));
        *fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY,
                   0666);
        if (*fd >= 0) {
            if (old && fchmod(*fd, old->st_mode & 07777) != 0) {
                e = errno;
                close(*fd);
                unlink(o->tmp);
                break;
            }
            return 0;
        }
        e = errno;
        if (e != EEXIST)
            break;
    }
    free(o->tmp);
    o->tmp = NULL;
    return e ? e : EEXIST;
}

int zc_output_open(const char *path, zc_output **out, char *err, size_t errlen)
{
    struct zc_output *o;
    struct stat st, lst;
    bool exists, in_place = false;
    int fd = -1, e;

    if (err && errlen)
        err[0] = '\0';
    if (!out || !path || !*path) {
        if (out)
            *out = NULL;
        if (err && errlen)
            snprintf(err, errlen, "an output needs a path");
        return -ZC_EINVAL;
    }
    *out = NULL;
    if (!(o = calloc(1, sizeof(*o))) || !(o->path = strdup(path))) {
        free(o);
        return fail(err, errlen, -ZC_ENOMEM, path, "cannot open",
                    ENOMEM);
    }
    o->slot = -1;
    if (!strcmp(path, "-")) {
        o->f = stdout;
        *out = o;
        return 0;
    }
    exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        release(o);
        return fail(err, errlen, -ZC_EIO, path, "cannot create",
                    EISDIR);
    }
    if (exists && !S_ISREG(st.st_mode))
        in_place = true; /* a FIFO, a device */
    else if (!exists && lstat(path, &lst) == 0)
        in_place = true; /* a dangling symlink: make its target */
    else if (exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
        struct stat fst;
        o->final = realpath(path, NULL);
        /* A link whose target's name is not the file (/proc/self/fd/N of
         * a memfd or a deleted file: "/memfd:x (deleted)"): in place. */
        if (!o->final || stat(o->final, &fst) != 0 ||
            fst.st_dev != st.st_dev || fst.st_ino != st.st_ino)
            in_place = true;
    } else {
        o->final = strdup(path);
    }
    if (!in_place && !o->final) {
        release(o);
        return fail(err, errlen, -ZC_ENOMEM, path, "cannot open", ENOMEM);
    }
    if (!in_place && (e = make_tmp(o, exists ? &st : NULL, &fd)) != 0) {
        release(o);
        return fail(err, errlen, e == ENOMEM ? -ZC_ENOMEM : -ZC_EIO, path,
                    e == ENOMEM ? "cannot create"
                                : "cannot create a file beside it (an "
                                  "output is written under a temporary "
                                  "name, then renamed)",
                    e);
    }
    if (in_place) {
        free(o->final);
        o->final = NULL;
        if (!(o->f = fopen(path, "w"))) {
            e = errno;
            release(o);
            return fail(err, errlen, -ZC_EIO, path, "cannot create", e);
        }
    } else if (!(o->f = fdopen(fd, "w"))) {
        e = errno;
        close(fd);
        unlink(o->tmp);
        release(o);
        return fail(err, errlen, -ZC_EIO, path, "cannot create", e);
    } else {
        list_pending(o);
    }
    *out = o;
    return 0;
}

FILE *zc_output_stream(const zc_output *o)
{
    return o ? o->f : NULL;
}

const char *zc_output_path(const zc_output *o)
{
    return o ? o->path : NULL;
}

bool zc_output_atomic(const zc_output *o)
{
    return o && o->tmp;
}

const char *zc_output_file(const zc_output *o)
{
    return !o ? NULL : o->tmp ? o->tmp : o->path;
}

static _Thread_local struct zc__output_group *deferring;

void zc__output_defer(struct zc__output_group *g)
{
    deferring = g;
}

/* Rename o into place and free it: 0, or errno (o's file removed). */
static int put_in_place(struct zc_output *o, char *err, size_t errlen)
{
    int e = 0;

    if (o->tmp && rename(o->tmp, o->final) != 0) {
        e = errno;
        unlink(o->tmp);
        fail(err, errlen, 0, o->path,
             "cannot move the finished file into place", e);
    }
    release(o);
    return e;
}

int zc__output_group_commit(struct zc__output_group *g, char *err,
                            size_t errlen)
{
    int e = 0;

    for (size_t i = 0; i < g->n; i++) {
        if (!e)
            e = put_in_place(g->items[i], err, errlen);
        else
            zc_output_abandon(g->items[i]);
    }
    free(g->items);
    g->items = NULL;
    g->n = g->cap = 0;
    errno = e;
    return e ? -ZC_EIO : 0;
}

void zc__output_group_abandon(struct zc__output_group *g)
{
    for (size_t i = 0; i < g->n; i++)
        zc_output_abandon(g->items[i]);
    free(g->items);
    g->items = NULL;
    g->n = g->cap = 0;
}

int zc_output_commit(zc_output *o, char *err, size_t errlen)
{
    int e = 0;
    const char *what = "write error";

    if (err && errlen)
        err[0] = '\0';
    if (!o)
        return 0;
    errno = 0;
    if (fflush(o->f) != 0 || ferror(o->f))
        e = errno ? errno : EIO;
    if (o->f != stdout && fclose(o->f) != 0 && !e)
        e = errno ? errno : EIO;
    o->f = NULL;
    if (!e && deferring) { /* finished: the group renames it */
        struct zc__output_group *g = deferring;
        if (g->n == g->cap) {
            size_t cap = g->cap ? 2 * g->cap : 8;
            zc_output **items = realloc(g->items, cap * sizeof(*items));
            if (!items) {
                if (err && errlen)
                    snprintf(err, errlen, "%s: out of memory", o->path);
                zc_output_abandon(o);
                return -ZC_ENOMEM;
            }
            g->items = items;
            g->cap = cap;
        }
        g->items[g->n++] = o;
        return 0;
    }
    if (e) {
        if (o->tmp)
            unlink(o->tmp);
        fail(err, errlen, 0, o->path, what, e);
        release(o);
        errno = e;
        return -ZC_EIO;
    }
    e = put_in_place(o, err, errlen);
    errno = e;
    return e ? -ZC_EIO : 0;
}

void zc_output_abandon(zc_output *o)
{
    if (!o)
        return;
    if (o->f && o->f != stdout)
        fclose(o->f);
    else if (o->f)
        fflush(o->f);
    if (o->tmp)
        unlink(o->tmp);
    release(o);
}

int zc__output_end(zc_output **o, int rc, char *err, size_t errlen)
{
    zc_output *out = *o;

    *o = NULL;
    if (!out)
        return rc;
    if (rc) {
        zc_output_abandon(out); /* the old file stays */
        return rc;
    }
    return zc_output_commit(out, err, errlen);
}
