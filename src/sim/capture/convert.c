/*
 * sim/capture/convert.c - zc_tracefs_convert(): a tracefs capture into the
 * streams of a recording, in stages (capture.h says which file does what).
 *
 * The stages, in the order their failures are told:
 *
 *   1. the options: an op stream or a pack needs the image and the device;
 *      no output over an input or another output (same name, same device
 *      and inode, or same canonical name); the side inputs are regular
 *      files
 *   2. the inputs, each read and checked before any output exists: the
 *      capture opened; without --dev, the capture read once through, its
 *      lines checked, to find its device (events.c); the extents, the
 *      sizes, the live list, the image
 *   3. the outputs made (blkparse, pack, op stream, access stream)
 *   4. the capture, line by line (1 MiB at most, no NUL byte, no CR but
 *      one right before the newline, the last one ended by its newline)
 *   5. a capture with no event of the device is refused
 *   6. the outputs finished: the streams' end records, then the pack, whose
 *      keys are read from the image last (in key order), then the inodes
 *
 * A failure after stage 3 abandons the outputs and removes the ones the
 * conversion opened (outputs.c says which).  The message of the first
 * failure is the one reported, formatted at full length (messages name
 * files, whose paths may be long) and copied into the caller's err.
 *
 * Data layout: one heap state (capture.h), 130 KiB of it the per-CPU
 * clocks and sequence numbers, the line buffer (1 MiB) apart.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _XOPEN_SOURCE 700 /* realpath() */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"

/* ---- errors ------------------------------------------------------------ */

int zc__cap_error(struct zc__cap *c, int rc, bool bad_input, const char *fmt,
                  ...)
{
    va_list ap, aq;
    int len;

    if (c->rc) /* the first failure is the one told */
        return rc;
    c->rc = rc;
    c->n.bad_input = bad_input;
    va_start(ap, fmt);
    va_copy(aq, ap);
    len = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (len >= 0 && (c->msg = malloc((size_t)len + 1)) != NULL)
        vsnprintf(c->msg, (size_t)len + 1, fmt, ap);
    va_end(ap);
    return rc;
}

int zc__cap_bad(struct zc__cap *c, const char *what)
{
    return zc__cap_refuse(c, -ZC_EFORMAT, "%s:%" PRIu64 ": %s", c->o.input,
                          c->lineno, what);
}

int zc__cap_nomem(struct zc__cap *c)
{
    return zc__cap_fail(c, -ZC_ENOMEM, "out of memory");
}

int zc__cap_reserve(struct zc__cap *c, void *p, size_t *cap, size_t n,
                    size_t size, size_t first)
{
    size_t want = *cap ? *cap * 2 : first;
    void *old, *grown;

    if (n < *cap)
        return 0;
    if (want < *cap || want > SIZE_MAX / size)
        return zc__cap_nomem(c);
    memcpy(&old, p, sizeof(old));
    if (!(grown = realloc(old, want * size)))
        return zc__cap_nomem(c);
    memcpy(p, &grown, sizeof(grown));
    *cap = want;
    return 0;
}

int zc__cap_u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* ---- the capture, line by line ------------------------------------------ */

/* Open an input, refusing a directory (fopen takes one, reads fail). */
static int open_input(struct zc__cap *c, const char *path, FILE **out)
{
    FILE *f = fopen(path, "r");
    struct stat st;

    if (!f)
        return zc__cap_refuse(c, -ZC_EIO, "%s: %s", path, strerror(errno));
    if (!fstat(fileno(f), &st) && S_ISDIR(st.st_mode)) {
        fclose(f);
        return zc__cap_refuse(c, -ZC_EIO, "%s: is a directory", path);
    }
    *out = f;
    return 0;
}

/* The next line of f (line ln of path) into buf[ZC__CAP_LINE_MAX + 1],
 * without its newline: 1, or 0 at the end of input.  A line longer than
 * 1 MiB or holding a NUL byte is bad input, and so is a last line without
 * its newline: a file cut there (a capture stopped mid-write) may have
 * lost the line's end, and "ofs=40960" cut to "ofs=40" reads as another
 * value.  A CR is taken only right before the newline (a CRLF file) and
 * dropped; anywhere else it is bad input, not an end of line: the rest of
 * "ofs=4096\r0" is a part of the value, not to be lost.  A read error is
 * not taken for the end. */
static int next_line(struct zc__cap *c, FILE *f, const char *path, uint64_t ln,
                     char *buf)
{
    size_t len = 0;
    bool cr = false; /* the previous byte was a CR */
    int ch;

    while ((ch = getc_unlocked(f)) != EOF && ch != '\n') {
        if (cr)
            return zc__cap_refuse(c, -ZC_EFORMAT,
                                  "%s:%" PRIu64 ": a CR inside the line (one "
                                  "is taken only right before the newline)",
                                  path, ln);
        if (len == ZC__CAP_LINE_MAX)
            return zc__cap_refuse(c, -ZC_EFORMAT,
                                  "%s:%" PRIu64 ": line longer than 1 MiB",
                                  path, ln);
        if (!ch)
            return zc__cap_refuse(c, -ZC_EFORMAT,
                                  "%s:%" PRIu64 ": a NUL byte in the line",
                                  path, ln);
        cr = ch == '\r';
        buf[len++] = (char)ch;
    }
    if (ch == EOF && ferror(f))
        return zc__cap_fail(c, -ZC_EIO, "%s:%" PRIu64 ": read error: %s", path,
                            ln, strerror(errno));
    if (ch == EOF && len)
        return zc__cap_refuse(c, -ZC_EFORMAT,
                              "%s:%" PRIu64 ": the last line has no newline: "
                              "the file was cut (remove the line, or end it)",
                              path, ln);
    buf[len - cr] = '\0';
    return ch != EOF;
}

int zc__cap_read_lines(struct zc__cap *c, const char *path, FILE *f,
                       uint64_t *ln, zc__cap_line_fn *fn)
{
    int rc;

    while ((rc = next_line(c, f, path, *ln + 1, c->line)) > 0) {
        ++*ln;
        if ((rc = fn(c, c->line, path, *ln)))
            return rc;
    }
    return rc;
}

int zc__cap_read_file(struct zc__cap *c, const char *path, zc__cap_line_fn *fn)
{
    FILE *f = NULL;
    uint64_t ln = 0;
    int rc = open_input(c, path, &f);

    if (!rc) {
        rc = zc__cap_read_lines(c, path, f, &ln, fn);
        fclose(f);
    }
    return rc;
}

/* ---- the stages -----------------------------------------------------------
 */

zc_tracefs_options zc_tracefs_options_default(void)
{
    return (zc_tracefs_options){.bdevfs = 3, .level = 9};
}

static int check_options(struct zc__cap *c)
{
    const zc_tracefs_options *o = &c->o;

    if (!o->input)
        return zc__cap_refuse(c, -ZC_EINVAL, "no trace given");
    if ((o->kernel_ops || o->pack) && (!o->image || !o->dev_set))
        return zc__cap_refuse(c, -ZC_EINVAL,
                              "--kernel-ops and --pack need --image (the "
                              "page contents) and --dev");
    if (o->pack && !strcmp(o->pack, "-"))
        return zc__cap_refuse(c, -ZC_EINVAL,
                              "--pack: a file, not standard output");
    if (o->level != 0 && o->level != 1 && o->level != 9)
        return zc__cap_refuse(c, -ZC_EINVAL, "--level %d: want 0, 1 or 9",
                              o->level);
    /* the header field must read back: the readers' limit */
    if (o->read_ahead_set && o->read_ahead_kb > ZC_READ_AHEAD_KB_MAX)
        return zc__cap_refuse(
            c, -ZC_EINVAL, "--read-ahead-kb %" PRIu64 ": want KiB from 0 to %u",
            o->read_ahead_kb, ZC_READ_AHEAD_KB_MAX);
    return 0;
}

/* The links followed to name one file, as the kernel's MAXSYMLINKS. */
#define LINKS_MAX 40

/* The canonical name of path, malloc'd, for a file that may not exist yet
 * (an output): an existing file's realpath(); a dangling symlink's, that
 * of its target (relative to the link's directory), which is the file
 * output.c makes; any other name's, the realpath() of its directory and
 * its base name.  NULL when the directory does not resolve, the links go
 * deeper than LINKS_MAX, or memory runs out. */
static char *canonical(const char *path, int links)
{
    struct stat st;
    char *copy, *slash, *dir, *out = NULL;
    const char *base;
    char target[PATH_MAX];
    ssize_t n;

    if (!stat(path, &st))
        return realpath(path, NULL);
    if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
        if (links == LINKS_MAX ||
            (n = readlink(path, target, sizeof(target) - 1)) < 0)
            return NULL;
        target[n] = '\0';
        slash = strrchr(path, '/');
        if (target[0] == '/' || !slash)
            return canonical(target, links + 1);
        if (!(copy = malloc((size_t)(slash - path) + 2 + (size_t)n)))
            return NULL;
        sprintf(copy, "%.*s/%s", (int)(slash - path), path, target);
        out = canonical(copy, links + 1);
        free(copy);
        return out;
    }
    if (!(copy = strdup(path)))
        return NULL;
    for (size_t len = strlen(copy); len > 1 && copy[len - 1] == '/';)
        copy[--len] = '\0'; /* "a.zca/" names a.zca */
    slash = strrchr(copy, '/');
    base = slash ? slash + 1 : copy;
    if (slash)
        *slash = '\0';
    dir = realpath(!slash ? "." : slash == copy ? "/" : copy, NULL);
    if (dir && (out = malloc(strlen(dir) + strlen(base) + 2)))
        sprintf(out, "%s/%s", dir[1] ? dir : "", base);
    free(dir);
    free(copy);
    return out;
}

/* Whether paths a and b name one file: the same name, the same device and
 * inode (a hard link, another spelling), or the same canonical name (one
 * of a file not made yet: "./a.zca" and "a.zca", a symlink and the
 * target it would make).  "-", standard input or output, is only itself. */
static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    char *ca, *cb;
    bool same;

    if (!strcmp(a, b))
        return true;
    if (!strcmp(a, "-") || !strcmp(b, "-"))
        return false;
    if (!stat(a, &sa) && !stat(b, &sb))
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    ca = canonical(a, 0);
    cb = canonical(b, 0);
    same = ca && cb && !strcmp(ca, cb);
    free(ca);
    free(cb);
    return same;
}

/* No output over an input or over another output, before any is made;
 * the side inputs regular files (the image is read at its offsets, and a
 * FIFO of them would wait). */
static int check_files(struct zc__cap *c)
{
    const zc_tracefs_options *o = &c->o;
    const struct {
        const char *opt, *path;
    } in[] = {{"the trace", o->input},
              {"--image", o->image},
              {"--extents", o->extents},
              {"--sizes", o->sizes},
              {"--live", o->live}},
      out[] = {{"--blkparse", o->blkparse},
               {"--access", o->access},
               {"--kernel-ops", o->kernel_ops},
               {"--pack", o->pack},
               {"--inodes", o->inodes}};
    const size_t nin = sizeof(in) / sizeof(*in),
                 nout = sizeof(out) / sizeof(*out);
    struct stat st;

    for (size_t i = 1; i < nin; i++)
        if (in[i].path && !stat(in[i].path, &st) && !S_ISREG(st.st_mode))
            return zc__cap_refuse(c, -ZC_EINVAL, "%s %s: not a regular file",
                                  in[i].opt, in[i].path);
    /* each output against every input, then every later output */
    for (size_t k = 0; k < nout; k++)
        for (size_t i = 0; out[k].path && i < nin + nout; i++) {
            const char *opt = i < nin ? in[i].opt : out[i - nin].opt;
            const char *path = i < nin ? in[i].path : out[i - nin].path;
            if ((i >= nin && i - nin <= k) || !path ||
                !same_file(out[k].path, path))
                continue;
            return zc__cap_refuse(c, -ZC_EINVAL, "%s %s: %s %s %s%s",
                                  out[k].opt, out[k].path,
                                  i < nin ? "that is" : "and", opt, path,
                                  i < nin ? ", an input of this conversion"
                                          : ": one file for two outputs");
        }
    return 0;
}

static int event_line(struct zc__cap *c, char *line, const char *path,
                      uint64_t ln)
{
    (void)path;
    (void)ln; /* c->lineno: the capture's line, for zc__cap_bad() */
    return zc__cap_line(c, line);
}

/* Without --dev: the capture read once through to find its device, then
 * rewound.  A FIFO cannot be read twice. */
static int find_dev(struct zc__cap *c, FILE *in)
{
    struct stat st;
    int rc;

    if (fstat(fileno(in), &st) || !S_ISREG(st.st_mode))
        return zc__cap_refuse(c, -ZC_EINVAL,
                              "%s: not a regular file: give --dev (without "
                              "it the capture is read twice, to find its "
                              "device first)",
                              c->o.input);
    c->scanning = true;
    rc = zc__cap_read_lines(c, c->o.input, in, &c->lineno, event_line);
    c->scanning = false;
    if (rc || (rc = zc__cap_settle_dev(c)))
        return rc;
    c->lineno = 0;
    if (fseek(in, 0, SEEK_SET))
        return zc__cap_fail(c, -ZC_EIO, "%s: %s", c->o.input, strerror(errno));
    return 0;
}

/* Stages 2 to 6. */
static int convert(struct zc__cap *c)
{
    FILE *in = NULL;
    int rc;

    if (!(c->line = malloc(ZC__CAP_LINE_MAX + 1)))
        return zc__cap_nomem(c);
    if ((rc = open_input(c, c->o.input, &in)) ||
        (!c->o.dev_set && (rc = find_dev(c, in))) ||
        (c->o.extents && (rc = zc__cap_load_extents(c))) ||
        (c->o.sizes && (rc = zc__cap_load_sizes(c, c->o.sizes, false))) ||
        (c->o.live && (rc = zc__cap_load_sizes(c, c->o.live, true))) ||
        (c->o.image && (rc = zc__cap_open_image(c))))
        goto out;
    if ((rc = zc__cap_open_outputs(c)) ||
        (rc = zc__cap_read_lines(c, c->o.input, in, &c->lineno, event_line)))
        goto out;
    if (!c->n.ours) { /* (a device found has events) */
        rc = zc__cap_refuse(c, -ZC_EFORMAT,
                            "%s: no event of device %" PRIu32 ":%" PRIu32,
                            c->o.input, c->o.dev >> 20, c->o.dev & 0xfffff);
        goto out;
    }
    rc = zc__cap_close_outputs(c);
out:
    if (in)
        fclose(in);
    return rc;
}

int zc_tracefs_convert(const zc_tracefs_options *opt, zc_tracefs_summary *sum,
                       char *err, size_t errlen)
{
    struct zc__cap *c;
    int rc;

    if (err && errlen)
        err[0] = '\0';
    if (sum)
        memset(sum, 0, sizeof(*sum));
    if (!opt) {
        if (err && errlen)
            snprintf(err, errlen, "no options");
        if (sum)
            sum->bad_input = true;
        return -ZC_EINVAL;
    }
    if (!(c = calloc(1, sizeof(*c)))) {
        if (err && errlen)
            snprintf(err, errlen, "out of memory");
        return -ZC_ENOMEM;
    }
    c->o = *opt;
    c->image_fd = -1;
    rc = check_options(c);
    if (!rc)
        rc = check_files(c);
    if (!rc)
        rc = convert(c);
    if (rc)
        zc__cap_abandon_outputs(c);
    zc__cap_resident_summary(c);
    c->n.dev = c->o.dev;
    if (sum)
        *sum = c->n;
    if (rc && err && errlen)
        snprintf(err, errlen, "%s", c->msg ? c->msg : "out of memory");
    zc__cap_events_free(c);
    zc__cap_pagecache_free(c);
    zc__cap_contents_free(c);
    free(c->samples);
    free(c->line);
    free(c->msg);
    free(c);
    return rc;
}
