/*
 * sim/sweep/collect.c - the traces of a sweep's collection: files given
 * one by one, the traces of a directory (by name; per-CPU blktrace files
 * as one trace; what no reader takes skipped and counted), the lines of a
 * manifest ("PATH [format=NAME] [content=SPEC]", relative to it), all of
 * them joined as one stream; and each settled before rows are made, as a
 * session opens it (a regular file, its format, its content source: the
 * pack it names, never another recording's).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sweep.h"

#define MAX_TRACES 100000

void zc__sweep_trace_free(struct zc__sweep_trace *u, size_t npaths)
{
    for (size_t p = 0; u->paths && p < npaths; p++)
        free(u->paths[p]);
    free(u->paths);
    free(u->name);
    free(u->format);
    free(u->content);
    free(u->origin);
    free(u->read_as);
    free(u->used);
    free(u->curve_hits);
}

int zc_sweep_add_trace(zc_sweep *sw, const char *const *paths, size_t n,
                       const char *format, const char *content,
                       const char *origin)
{
    struct zc__sweep_trace *u;
    size_t len = 1;
    bool oom = false;

    if (!sw || !paths || !n || sw->prepared)
        return -ZC_EINVAL;
    if (sw->ntraces == MAX_TRACES)
        return zc__sweep_fail(sw, -ZC_EINVAL, "more than %d traces",
                              MAX_TRACES);
    if (sw->ntraces == sw->maxtraces) {
        size_t cap = sw->maxtraces ? 2 * sw->maxtraces : 16;
        zc_sweep_trace *p;
        if (!(u = realloc(sw->traces, cap * sizeof(*u))))
            return -ZC_ENOMEM;
        sw->traces = u;
        if (!(p = realloc(sw->tpub, cap * sizeof(*p))))
            return -ZC_ENOMEM;
        sw->tpub = p;
        sw->maxtraces = cap;
    }
    u = &sw->traces[sw->ntraces];
    memset(u, 0, sizeof(*u));
    memset(&sw->tpub[sw->ntraces], 0, sizeof(*sw->tpub));
    if (!(u->paths = calloc(n, sizeof(*u->paths))))
        return -ZC_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        u->paths[i] = zc__sweep_dup(paths[i] ? paths[i] : "", &oom);
        len += strlen(paths[i] ? paths[i] : "") + 1;
    }
    sw->tpub[sw->ntraces].npaths = n;
    u->format = zc__sweep_dup(format, &oom);
    u->content = zc__sweep_dup(content, &oom);
    u->origin = zc__sweep_dup(origin, &oom);
    if (!oom && (u->name = malloc(len))) {
        u->name[0] = '\0';
        for (size_t i = 0; i < n; i++)
            sprintf(u->name + strlen(u->name), "%s%s", i ? " " : "",
                    u->paths[i]);
    }
    sw->ntraces++; /* (freed with the sweep, whole or not) */
    return oom || !u->name ? -ZC_ENOMEM : 0;
}

/* Whether path is an op stream (its first bytes say so). */
static bool sniff_ops(const char *path)
{
    unsigned char head[16];
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(head, 1, sizeof(head), f) : 0;

    if (f)
        fclose(f);
    return zc_ops_sniff(head, got);
}

/* Whether path is a trace a reader takes (an op stream, or a trace format
 * sniffed from its content). */
static bool is_trace(const zc_sweep *sw, const char *path)
{
    zc_trace_options to = {.format = sw->format, .page_size = sw->o.page_size};
    zc_trace *t;

    if (sniff_ops(path))
        return true;
    if (zc_trace_open(&path, 1, &to, &t, NULL, 0))
        return false;
    zc_trace_close(t);
    return true;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir, sorted (dot files left out): 0, or a -ZC_E* code. */
static int list_dir(zc_sweep *sw, const char *dir, char ***out, size_t *n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t cap = 0;

    *n = 0;
    if (!d)
        return zc__sweep_fail(sw, -ZC_EIO, "%s: cannot read the directory: %s",
                              dir, strerror(errno));
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (*n == cap) {
            char **t = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof(*t));
            if (!t)
                goto oom;
            names = t;
        }
        if (!(names[*n] = strdup(e->d_name)))
            goto oom;
        (*n)++;
    }
    closedir(d);
    qsort(names, *n, sizeof(*names), by_name);
    *out = names;
    return 0;
oom:
    closedir(d);
    while (*n)
        free(names[--*n]);
    free(names);
    return -ZC_ENOMEM;
}

int zc_sweep_add_dir(zc_sweep *sw, const char *dir, size_t *skipped, char *note,
                     size_t notelen)
{
    char **names = NULL, *last = NULL;
    size_t nn, nskip = 0, added = 0, at = 0;
    int rc;

    if (!sw || !dir || sw->prepared)
        return -ZC_EINVAL;
    if (note && notelen)
        note[0] = '\0';
    if ((rc = list_dir(sw, dir, &names, &nn)))
        return rc;
    for (size_t i = 0; i < nn && !rc; i++) {
        size_t len = strlen(dir) + strlen(names[i]) + 2;
        char *path = malloc(len), *cpu;
        struct stat sb;
        if (!path) {
            rc = -ZC_ENOMEM;
            break;
        }
        snprintf(path, len, "%s%s%s", dir,
                 dir[strlen(dir) - 1] == '/' ? "" : "/", names[i]);
        if (stat(path, &sb) || !S_ISREG(sb.st_mode)) {
            free(path);
            continue;
        }
        /* NAME.blktrace.N: the capture NAME.blktrace, once */
        cpu = strstr(names[i], ".blktrace.");
        if (cpu && cpu[10] >= '0' && cpu[10] <= '9' &&
            strspn(cpu + 10, "0123456789") == strlen(cpu + 10)) {
            path[strlen(path) - strlen(cpu + 9)] = '\0';
            if (last && !strcmp(last, path)) {
                free(path);
                continue;
            }
        } else if (!is_trace(sw, path)) {
            if (nskip++ < 4 && note && at < notelen)
                at += (size_t)snprintf(note + at, notelen - at, "%s%s",
                                       nskip > 1 ? ", " : "", names[i]);
            free(path);
            continue;
        }
        rc = zc_sweep_add_trace(sw, (const char *const *)&path, 1, NULL, NULL,
                                NULL);
        added += !rc;
        free(last);
        last = path;
    }
    free(last);
    for (size_t i = 0; i < nn; i++)
        free(names[i]);
    free(names);
    if (skipped)
        *skipped = nskip;
    if (!rc && !added)
        return zc__sweep_fail(sw, -ZC_EIO, "%s: no trace in the directory",
                              dir);
    return rc;
}

/* A file named in the manifest at dir: a relative one is taken from
 * there; a content spec's file likewise. */
static char *from_dir(const char *dir, const char *prefix, const char *file)
{
    size_t len = strlen(prefix) + strlen(dir) + strlen(file) + 3;
    char *s = malloc(len);

    if (!s)
        return NULL;
    if (file[0] == '/' || !strcmp(dir, "."))
        snprintf(s, len, "%s%s", prefix, file);
    else
        snprintf(s, len, "%s%s/%s", prefix, dir, file);
    return s;
}

static bool format_known(const char *name)
{
    if (!strcmp(name, "auto") || !strcmp(name, "zct"))
        return true;
    for (size_t i = 0; zc_trace_format_name(i); i++)
        if (!strcmp(zc_trace_format_name(i), name))
            return true;
    return false;
}

/* One manifest line's trace: 0, 1 for none (blank, comment), or -ZC_E*. */
static int manifest_line(zc_sweep *sw, char *line, const char *file,
                         size_t lineno, const char *dir)
{
    char *save = NULL, *tok = strtok_r(line, " \t\r\n", &save), *path, *cpu0;
    char *format = NULL, *content = NULL, origin[1100];
    struct stat sb;
    int rc = 0;

    if (!tok || tok[0] == '#')
        return 1;
    if (!(path = from_dir(dir, "", tok)))
        return -ZC_ENOMEM;
    while (!rc && (tok = strtok_r(NULL, " \t\r\n", &save)) && tok[0] != '#') {
        if (!strncmp(tok, "format=", 7) && !format && tok[7]) {
            if (!format_known(tok + 7))
                rc = zc__sweep_fail(sw, -ZC_EFORMAT,
                                    "%s:%zu: format=%s: no such format "
                                    "(zcache-replay --help lists them)",
                                    file, lineno, tok + 7);
            format = tok + 7;
        } else if (!strncmp(tok, "content=", 8) && !content && tok[8]) {
            const char *f = zc_content_file(tok + 8);
            if (!f)
                content = strdup(tok + 8);
            else {
                char prefix[16];
                snprintf(prefix, sizeof(prefix), "%.*s", (int)(f - tok - 8),
                         tok + 8);
                content = from_dir(dir, prefix, f);
            }
            if (!content)
                rc = -ZC_ENOMEM;
        } else
            rc = zc__sweep_fail(sw, -ZC_EFORMAT,
                                "%s:%zu: '%s': want PATH [format=NAME] "
                                "[content=SPEC] (each once; no spaces in "
                                "them)",
                                file, lineno, tok);
    }
    /* named by its line here, not by its path alone later (a blktrace
     * base name stands for NAME.0, NAME.1, ...) */
    if (!rc && !(cpu0 = from_dir("", path, ".0")))
        rc = -ZC_ENOMEM;
    else if (!rc) {
        if (stat(path, &sb) && stat(cpu0, &sb))
            rc = zc__sweep_fail(sw, -ZC_EIO, "%s:%zu: %.300s%s: %s", file,
                                lineno, path, strlen(path) > 300 ? "..." : "",
                                strerror(errno));
        free(cpu0);
    }
    if (!rc && sw->o.join && (format || content))
        rc = zc__sweep_fail(sw, -ZC_EFORMAT,
                            "%s:%zu: --join plays one stream: no format= or "
                            "content= of a trace of its own",
                            file, lineno);
    snprintf(origin, sizeof(origin), "%.1000s:%zu", file, lineno);
    if (!rc)
        rc = zc_sweep_add_trace(sw, (const char *const *)&path, 1, format,
                                content, content ? origin : NULL);
    free(path);
    free(content);
    return rc;
}

int zc_sweep_add_manifest(zc_sweep *sw, const char *file)
{
    FILE *f;
    char *line = NULL, *dir, *slash;
    size_t cap = 0, lineno = 0, before;
    struct stat st;
    ssize_t len;
    int rc = 0;

    if (!sw || !file || sw->prepared)
        return -ZC_EINVAL;
    before = sw->ntraces;
    if (!stat(file, &st) && S_ISDIR(st.st_mode))
        return zc__sweep_fail(sw, -ZC_EIO, "--manifest %s: a directory", file);
    if (!(f = fopen(file, "r")))
        return zc__sweep_fail(sw, -ZC_EIO, "--manifest %s: %s", file,
                              strerror(errno));
    if (!(dir = malloc(strlen(file) + 2))) {
        fclose(f);
        return -ZC_ENOMEM;
    }
    strcpy(dir, file);
    if ((slash = strrchr(dir, '/')))
        slash[slash == dir ? 1 : 0] = '\0';
    else
        strcpy(dir, ".");
    while (rc <= 0 && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (strlen(line) != (size_t)len)
            rc = zc__sweep_fail(sw, -ZC_EFORMAT,
                                "%s:%zu: a NUL byte: not a manifest", file,
                                lineno);
        else
            rc = manifest_line(sw, line, file, lineno, dir);
        if (rc > 0)
            rc = 0;
        else if (rc < 0)
            break;
    }
    if (!rc && ferror(f))
        rc = zc__sweep_fail(sw, -ZC_EIO, "--manifest %s: %s", file,
                            strerror(errno));
    fclose(f);
    free(line);
    free(dir);
    if (!rc && sw->ntraces == before)
        rc = zc__sweep_fail(sw, -ZC_EFORMAT, "--manifest %s: no trace listed",
                            file);
    return rc;
}

/* --join: every trace so far as one, in order. */
int zc__sweep_join(zc_sweep *sw)
{
    size_t n = 0, k = 0;
    const char **all;
    int rc;

    for (size_t i = 0; i < sw->ntraces; i++)
        n += sw->tpub[i].npaths;
    if (!(all = calloc(n ? n : 1, sizeof(*all))))
        return -ZC_ENOMEM;
    for (size_t i = 0; i < sw->ntraces; i++)
        for (size_t p = 0; p < sw->tpub[i].npaths; p++)
            all[k++] = sw->traces[i].paths[p];
    rc = zc_sweep_add_trace(sw, all, n, NULL, NULL, NULL);
    free(all);
    if (rc)
        return rc;
    /* the joined one first, the parts freed */
    struct zc__sweep_trace joined = sw->traces[sw->ntraces - 1];
    zc_sweep_trace joined_pub = sw->tpub[sw->ntraces - 1];
    sw->ntraces--;
    for (size_t i = 0; i < sw->ntraces; i++)
        zc__sweep_trace_free(&sw->traces[i], sw->tpub[i].npaths);
    sw->traces[0] = joined;
    sw->tpub[0] = joined_pub;
    sw->ntraces = 1;
    return 0;
}

/* ---- settling each trace ------------------------------------------------ */

static int setup_ops(zc_sweep *sw, size_t idx)
{
    struct zc__sweep_trace *u = &sw->traces[idx];
    zc_session_options so = {.format = "zct"};
    zc_session *s;
    char err[1024];
    int rc;

    if (sw->memory || sw->pc_list || sw->tpub[idx].npaths != 1 || sw->mrc_list)
        return zc__sweep_fail(sw, -ZC_EINVAL,
                              "%s: an op stream has its page cache: only "
                              "--capacity and --set vary (no --page-cache, "
                              "--memory, --mrc or --join)",
                              u->paths[0]);
    if ((rc = zc_session_open((const char *const *)u->paths, 1, &so, &s, err,
                              sizeof(err))))
        return zc__sweep_fail(sw, rc, "%s", err);
    if ((idx || sw->page_size_given) &&
        zc_session_page_size(s) != sw->o.page_size)
        rc = zc__sweep_fail(sw, -ZC_EINVAL,
                            "%s: pages of %zu bytes, and %s%s %zu: one "
                            "sweep, one page size",
                            u->paths[0], zc_session_page_size(s),
                            idx ? sw->traces[0].paths[0] : "--page-size",
                            idx ? "'s of" : "", sw->o.page_size);
    sw->o.page_size = zc_session_page_size(s);
    zc_session_close(s);
    if (!rc && !(u->read_as = strdup("zct")))
        rc = -ZC_ENOMEM;
    if (!rc && !(u->used = strdup("(in the stream)")))
        rc = -ZC_ENOMEM;
    return rc;
}

/* A trace: opened and checked as a session opens it (regular files, the
 * format, the content: its pack, never another recording's). */
static int setup_trace(zc_sweep *sw, size_t idx)
{
    struct zc__sweep_trace *u = &sw->traces[idx];
    zc_session_options so = {0};
    zc_session *s;
    char err[1024];
    int rc;

    so.format = u->format ? u->format : sw->format;
    so.page_size = sw->o.page_size;
    so.content = u->content ? u->content : sw->content;
    so.model = sw->model;
    so.read_ahead_set = sw->o.read_ahead_set;
    so.read_ahead_kb = sw->o.read_ahead_kb;
    if ((rc = zc_session_open((const char *const *)u->paths,
                              sw->tpub[idx].npaths, &so, &s, err,
                              sizeof(err)))) {
        if (u->origin) /* the manifest's content= */
            return zc__sweep_fail(sw, rc, "%s: content=%s: %s", u->origin,
                                  u->content, err);
        return zc__sweep_fail(sw, rc, "%s", err);
    }
    if (!(u->used = strdup(zc_session_content(s))) ||
        !(u->read_as = strdup(zc_session_format(s))))
        rc = -ZC_ENOMEM;
    zc_session_close(s);
    return rc;
}

/* Trace u's files, each a regular file or not there (the reader says
 * so): 0, or -ZC_EIO.  (Before a read: a FIFO read would wait, and lose
 * what it read.) */
static int regular_files(zc_sweep *sw, size_t u)
{
    struct stat st;

    for (size_t k = 0; k < sw->tpub[u].npaths; k++)
        if (!stat(sw->traces[u].paths[k], &st) && !S_ISREG(st.st_mode))
            return zc__sweep_fail(sw, -ZC_EIO,
                                  "%s: not a regular file: give a file "
                                  "(the trace is read more than once)",
                                  sw->traces[u].paths[k]);
    return 0;
}

int zc__sweep_kind(zc_sweep *sw, size_t u)
{
    const char *format =
        sw->traces[u].format ? sw->traces[u].format : sw->format;
    int rc = regular_files(sw, u);

    if (!rc)
        sw->tpub[u].is_ops = format && strcmp(format, "auto")
                                 ? !strcmp(format, "zct")
                                 : sniff_ops(sw->traces[u].paths[0]);
    return rc;
}

int zc__sweep_mixed(zc_sweep *sw, size_t a, size_t b)
{
    return zc__sweep_fail(sw, -ZC_EINVAL,
                          "%s and %s: op streams (.zct) and traces in one "
                          "sweep: their page caches differ (sweep them "
                          "apart)",
                          sw->traces[a].paths[0], sw->traces[b].paths[0]);
}

void zc__sweep_keep_trace(zc_sweep *sw, size_t u)
{
    for (size_t i = 0; i < sw->ntraces; i++)
        if (i != u)
            zc__sweep_trace_free(&sw->traces[i], sw->tpub[i].npaths);
    sw->traces[0] = sw->traces[u];
    sw->tpub[0] = sw->tpub[u];
    sw->ntraces = 1;
}

int zc__sweep_setup_traces(zc_sweep *sw)
{
    int rc;

    for (size_t i = 0; i < sw->ntraces; i++) {
        if ((rc = zc__sweep_kind(sw, i)))
            return rc;
        if (i && sw->tpub[i].is_ops != sw->tpub[0].is_ops)
            return zc__sweep_mixed(sw, 0, i);
        if ((rc = sw->tpub[i].is_ops ? setup_ops(sw, i) : setup_trace(sw, i)))
            return rc;
    }
    return 0;
}
