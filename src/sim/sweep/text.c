/*
 * sim/sweep/text.c - the texts of a plan's files: a growing text to write
 * one, a cursor to read one back, and whole-file reads and atomic writes.
 *
 * The files are lines of a keyword and values: numbers in decimal, ids
 * and checksums in hex, doubles as C99 hex floats (read back to the same
 * bits), strings as LENGTH:BYTES (any bytes, newlines included).  A
 * cursor names the file and line of the first thing it could not read.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sweep.h"

void zc__text_add(struct zc__text *t, const char *fmt, ...)
{
    va_list ap, aq;
    int n;

    va_start(ap, fmt);
    va_copy(aq, ap);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || t->oom) {
        t->oom = true;
        va_end(aq);
        return;
    }
    if (t->len + (size_t)n + 1 > t->cap) {
        size_t cap = (t->len + (size_t)n + 1) * 2;
        char *s = realloc(t->s, cap);
        if (!s) {
            t->oom = true;
            va_end(aq);
            return;
        }
        t->s = s;
        t->cap = cap;
    }
    vsnprintf(t->s + t->len, (size_t)n + 1, fmt, aq);
    va_end(aq);
    t->len += (size_t)n;
}

void zc__text_str(struct zc__text *t, const char *key, const char *s)
{
    zc__text_add(t, "%s %zu:", key, strlen(s));
    zc__text_add(t, "%s\n", s);
}

void zc__text_json(struct zc__text *t, const char *s)
{
    size_t n = zc_json_quote(s, NULL, 0);

    if (t->oom || t->len + n + 1 > t->cap) {
        zc__text_add(t, "%*s", (int)n, ""); /* room, or oom */
        if (t->oom)
            return;
        t->len -= n;
    }
    zc_json_quote(s, t->s + t->len, n + 1);
    t->len += n;
}

uint64_t zc__fnv1a(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;

    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* ---- the cursor --------------------------------------------------------- */

bool zc__cur_fail(struct zc__cursor *c, const char *what)
{
    if (!c->err[0])
        snprintf(c->err, sizeof(c->err), "%.300s:%zu: %s", c->path, c->line,
                 what);
    return false;
}

bool zc__cur_key(struct zc__cursor *c, const char *key)
{
    size_t n = strlen(key);

    if ((size_t)(c->end - c->p) <= n || memcmp(c->p, key, n) ||
        (c->p[n] != ' ' && c->p[n] != '\n')) {
        char msg[128];
        snprintf(msg, sizeof(msg), "want '%.64s'", key);
        return zc__cur_fail(c, msg);
    }
    c->p += n;
    if (*c->p == ' ')
        c->p++;
    return true;
}

bool zc__cur_u64(struct zc__cursor *c, uint64_t *v)
{
    char *e;

    if (c->p >= c->end || *c->p < '0' || *c->p > '9')
        return zc__cur_fail(c, "want a number");
    errno = 0;
    *v = strtoull(c->p, &e, 10);
    if (errno || (*e != ' ' && *e != '\n'))
        return zc__cur_fail(c, "want a number");
    c->p = e + (*e == ' ');
    return true;
}

bool zc__cur_double(struct zc__cursor *c, double *v)
{
    char *e;

    if (c->p >= c->end)
        return zc__cur_fail(c, "want a number");
    errno = 0;
    *v = strtod(c->p, &e);
    if (e == c->p || errno || (*e != ' ' && *e != '\n'))
        return zc__cur_fail(c, "want a number");
    c->p = e + (*e == ' ');
    return true;
}

bool zc__cur_hex(struct zc__cursor *c, uint64_t *v)
{
    size_t n = 0;

    *v = 0;
    while (n < 16 && c->p + n < c->end && isxdigit((unsigned char)c->p[n])) {
        char ch = (char)tolower((unsigned char)c->p[n++]);
        *v = *v << 4 | (uint64_t)(ch <= '9' ? ch - '0' : ch - 'a' + 10);
    }
    if (!n || c->p + n >= c->end || (c->p[n] != ' ' && c->p[n] != '\n'))
        return zc__cur_fail(c, "want a hexadecimal number");
    c->p += n + (c->p[n] == ' ');
    return true;
}

bool zc__cur_magic(struct zc__cursor *c, const char *magic)
{
    size_t n = strlen(magic);

    if ((size_t)(c->end - c->p) <= n || memcmp(c->p, magic, n) ||
        c->p[n] != '\n')
        return false;
    c->p += n + 1;
    c->line++;
    return true;
}

bool zc__cur_eol(struct zc__cursor *c)
{
    if (c->p >= c->end || *c->p != '\n')
        return zc__cur_fail(c, "want the end of the line");
    c->p++;
    c->line++;
    return true;
}

bool zc__cur_str(struct zc__cursor *c, const char *key, char *out, size_t n)
{
    uint64_t len;
    char *e;

    if (!zc__cur_key(c, key))
        return false;
    errno = 0;
    len = strtoull(c->p, &e, 10);
    if (c->p >= c->end || *c->p < '0' || *c->p > '9' || errno || *e != ':' ||
        len >= n || len > (uint64_t)(c->end - e - 1))
        return zc__cur_fail(c, "want LENGTH:TEXT");
    memcpy(out, e + 1, (size_t)len);
    out[len] = '\0';
    for (uint64_t i = 0; i < len; i++)
        c->line += out[i] == '\n';
    c->p = e + 1 + len;
    return zc__cur_eol(c);
}

/* ---- files -------------------------------------------------------------- */

#define READ_MAX (256u << 20)

int zc__read_all(const char *path, char **out, size_t *len, const char **why)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    struct stat sb;
    char *s = NULL;
    size_t cap = 0, n = 0;

    *out = NULL;
    if (fd < 0) {
        *why = strerror(errno);
        return -ZC_EIO;
    }
    /* a FIFO or a device in a plan directory is refused, not waited on or
     * read forever */
    if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_size > READ_MAX) {
        *why = !S_ISREG(sb.st_mode) ? "not a regular file"
                                    : "larger than any a plan writes";
        close(fd);
        errno = EINVAL;
        return -ZC_EIO;
    }
    for (;;) {
        ssize_t got;
        if (n + 65536 + 1 > cap) {
            char *t = realloc(s, cap = 2 * cap + 65536 + 1);
            if (!t) {
                free(s);
                close(fd);
                *why = "out of memory";
                errno = ENOMEM;
                return -ZC_ENOMEM;
            }
            s = t;
        }
        got = read(fd, s + n, 65536);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0 || n + (size_t)got > READ_MAX) {
            int e = got < 0 ? errno : EINVAL;
            *why = got < 0 ? strerror(e) : "larger than any a plan writes";
            free(s);
            close(fd);
            errno = e;
            return -ZC_EIO;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    s[n] = '\0';
    *out = s;
    *len = n;
    return 0;
}

int zc__write_atomic(const char *path, const struct zc__text *t)
{
    zc_output *o;
    FILE *f;
    int e = 0;

    if (t->oom) {
        errno = ENOMEM;
        return -1;
    }
    /* A temporary file beside path, made with O_EXCL (nodes that share
     * the file system never write the same one), renamed over it. */
    if (zc_output_open(path, &o, NULL, 0)) {
        errno = errno ? errno : EIO;
        return -1;
    }
    f = zc_output_stream(o);
    if (fwrite(t->s, 1, t->len, f) != t->len || fflush(f) ||
        (zc_output_atomic(o) && fsync(fileno(f))))
        e = errno ? errno : EIO;
    if (e) {
        zc_output_abandon(o);
        errno = e;
        return -1;
    }
    errno = 0;
    if (zc_output_commit(o, NULL, 0)) {
        errno = errno ? errno : EIO;
        return -1;
    }
    return 0;
}
