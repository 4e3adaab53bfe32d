/*
 * sim/run/session.c - a recording opened, checked and replayed (the
 * session of zcache_sim.h).
 *
 * Opening does, in this order, what a correct replay needs before its
 * first request: every trace must be a regular file (it is read more than
 * once); the traces open as one stream (or an op stream alone); the
 * content source is the caller's or the pack the first trace's header
 * names, beside it, else "synth" (a header's pack that fails to open is
 * named as the header's, with the way out: another content source); each
 * trace is opened again alone and checked against that source (a run's
 * later traces are opened only when their turn comes, so checking the run
 * as one would see the first one's header only); the model is known and
 * the header's read_ahead_kb is KiB.
 *
 * Running makes the replay (model, readahead, content), hands it the
 * caller's zcache, writer, sink and adaptive split, and takes the
 * requests: the page cache follows the kernel's samples when asked, the
 * first file-keyed request is checked against the source (a source
 * without file pages fails there with what to use instead, not as a
 * missing page later), and a failed request is explained by the page the
 * source refused.  An op stream is played into a player instead.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "session.h"

#define ERR_LEN 4096
#define SPEC_LEN 4096

struct zc_session {
    char **paths;
    size_t npaths;
    zc_trace_options topt;
    size_t page_size;
    const char *model; /* a registry string */
    bool ra_set;       /* ra_kb applies (the caller's or the header's) */
    bool ra_given;     /* the caller's */
    uint64_t ra_kb;
    zc_trace *t;         /* a trace, or ... */
    zc_ops_reader *ops;  /* ... an op stream */
    zc_content *src;     /* NULL with no_content or an op stream */
    char spec[SPEC_LEN]; /* the content source's spec */
    bool checked;        /* the first file-keyed request was checked */
    bool ran;
    uint64_t requests; /* requests (ops) taken */
    zc_replay *r;      /* the run's (a trace) */
    zc_player *p;      /* the run's (an op stream) */
    char err[ERR_LEN];
};

int zc__session_set_error(zc_session *s, int rc, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(s->err, sizeof(s->err), fmt, ap);
    va_end(ap);
    return rc;
}

/* ---- opening ------------------------------------------------------------ */

static bool model_known(const char *name)
{
    for (size_t i = 0; zc_page_cache_model_name(i); i++)
        if (!strcmp(zc_page_cache_model_name(i), name))
            return true;
    return false;
}

/* KiB from 0 to 2^22, all digits: 0; else -1. */
static int parse_kb(const char *v, uint64_t *kb)
{
    char *end;

    if (!v || *v < '0' || *v > '9')
        return -1;
    errno = 0;
    *kb = strtoull(v, &end, 10);
    return *end || errno || *kb > ZC_READ_AHEAD_KB_MAX ? -1 : 0;
}

/* Whether the first trace is an op stream (by the format, or its bytes). */
static bool is_op_stream(const char *format, const char *path)
{
    unsigned char head[16];
    size_t got;
    FILE *f;

    if (format && strcmp(format, "auto") != 0)
        return strcmp(format, "zct") == 0;
    if (!(f = fopen(path, "rb")))
        return false; /* zc_trace_open() says why */
    got = fread(head, 1, sizeof(head), f);
    fclose(f);
    return zc_ops_sniff(head, got);
}

static int check_regular(zc_session *s)
{
    struct stat st;

    for (size_t i = 0; i < s->npaths; i++)
        if (stat(s->paths[i], &st) == 0 && !S_ISREG(st.st_mode))
            return zc__session_set_error(
                s, -ZC_EIO,
                "%s: not a regular file: give a file (the trace is read "
                "more than once)",
                s->paths[i]);
    return 0;
}

/* "pack:" + the pack the header names, beside the first trace; else synth
 * (a header field that is not a plain name is refused by the check). */
static int default_content(zc_session *s)
{
    const char *pack = zc_trace_meta(s->t, "pack");
    const char *path = s->paths[0], *slash = strrchr(path, '/');
    int n;

    if (!pack || !*pack || strchr(pack, '/') || strstr(pack, "..")) {
        snprintf(s->spec, sizeof(s->spec), "synth");
        return 0;
    }
    if (!slash)
        n = snprintf(s->spec, sizeof(s->spec), "pack:%s", pack);
    else
        n = snprintf(s->spec, sizeof(s->spec), "pack:%.*s/%s",
                     (int)(slash - path), path, pack);
    if (n < 0 || (size_t)n >= sizeof(s->spec))
        return zc__session_set_error(s, -ZC_EINVAL,
                                     "%s: the pack's path is too long", path);
    return 0;
}

/* Open the content source s->spec.  named: it is the pack the first
 * trace's header names, not the caller's, and a failure says so, and what
 * else can be done: the caller may give a content source of its own
 * (zc_session_options.content, the tools' --content), which the message
 * says in words true for both. */
static int open_content(zc_session *s, bool named)
{
    char why[ERR_LEN - 512];
    int rc = zc_content_open(s->spec, s->page_size, &s->src, why, sizeof(why));

    if (!rc)
        return 0;
    if (!named || rc == -ZC_ENOMEM)
        return zc__session_set_error(s, rc, "%s", why);
    return zc__session_set_error(s, rc,
                                 "%s: its header's pack=%.256s: %s (give "
                                 "another content source to replay it "
                                 "without this pack)",
                                 s->paths[0], zc_trace_meta(s->t, "pack"), why);
}

/* zc_content_check_trace() for each trace alone. */
static int check_each(zc_session *s)
{
    char why[512];

    for (size_t i = 0; i < s->npaths; i++) {
        zc_trace *t;
        int rc = zc_trace_open((const char *const *)&s->paths[i], 1, &s->topt,
                               &t, why, sizeof(why));
        if (rc)
            return zc__session_set_error(s, rc, "%s", why);
        rc = zc_content_check_trace(s->src, t, why, sizeof(why));
        zc_trace_close(t);
        if (rc)
            return zc__session_set_error(s, rc, "%s: %s", s->paths[i], why);
    }
    return 0;
}

static int open_ops(zc_session *s, size_t page_size)
{
    const char *v;
    int rc;

    if (s->npaths != 1)
        return zc__session_set_error(s, -ZC_EINVAL,
                                     "an op stream is replayed alone (%zu "
                                     "traces given)",
                                     s->npaths);
    rc = zc_ops_open(s->paths[0], &s->ops, s->err, sizeof(s->err));
    if (rc)
        return rc;
    s->page_size = zc_ops_page_size(s->ops);
    if (page_size && page_size != s->page_size)
        return zc__session_set_error(s, -ZC_EINVAL,
                                     "%s: the stream's page size is %zu, not "
                                     "%zu",
                                     s->paths[0], s->page_size, page_size);
    v = zc_ops_meta(s->ops, "content");
    snprintf(s->spec, sizeof(s->spec), "%s", v ? v : "(in the stream)");
    return 0;
}

static int open_trace(zc_session *s, const zc_session_options *opt)
{
    const char *v;
    int rc;

    rc = zc_trace_open((const char *const *)s->paths, s->npaths, &s->topt,
                       &s->t, s->err, sizeof(s->err));
    if (rc)
        return rc;
    /* pages of the header's size, unless the caller says (the reader
     * checked the field: a power of two in 512..65536) */
    if (!opt->page_size && (v = zc_trace_meta(s->t, "page_size")))
        s->page_size = (size_t)strtoull(v, NULL, 10);
    if (opt->content)
        snprintf(s->spec, sizeof(s->spec), "%s", opt->content);
    else if ((rc = default_content(s)))
        return rc;
    if (!opt->no_content &&
        (rc = open_content(s, !opt->content && !strncmp(s->spec, "pack:", 5))))
        return rc;
    if ((rc = check_each(s)))
        return rc;
    v = zc_trace_meta(s->t, "read_ahead_kb");
    if (!s->ra_given && v) {
        if (parse_kb(v, &s->ra_kb))
            return zc__session_set_error(
                s, -ZC_EINVAL,
                "%s: header field read_ahead_kb '%.40s' is not KiB from 0 "
                "to 4194304",
                s->paths[0], v);
        s->ra_set = true;
    }
    return 0;
}

int zc_session_open(const char *const *paths, size_t npaths,
                    const zc_session_options *opt, zc_session **out, char *err,
                    size_t errlen)
{
    static const zc_session_options none;
    zc_session *s;
    int rc;

    if (err && errlen)
        err[0] = '\0';
    if (!out || !paths || !npaths)
        return -ZC_EINVAL;
    *out = NULL;
    if (!opt)
        opt = &none;
    if (!(s = calloc(1, sizeof(*s))) ||
        !(s->paths = calloc(npaths, sizeof(*s->paths)))) {
        free(s);
        return -ZC_ENOMEM;
    }
    for (size_t i = 0; i < npaths; i++, s->npaths++)
        if (!paths[i] || !(s->paths[i] = strdup(paths[i]))) {
            rc = paths[i] ? -ZC_ENOMEM : -ZC_EINVAL;
            goto fail;
        }
    s->page_size = opt->page_size ? opt->page_size : 4096;
    s->topt.format = opt->format;
    s->topt.page_size = s->page_size;
    s->topt.max_request = opt->max_request;
    s->model = "lru";
    for (size_t i = 0; opt->model && zc_page_cache_model_name(i); i++)
        if (!strcmp(zc_page_cache_model_name(i), opt->model))
            s->model = zc_page_cache_model_name(i);
    if (opt->model && !model_known(opt->model)) {
        rc = zc__session_set_error(s, -ZC_EINVAL, "no page-cache model '%.64s'",
                                   opt->model);
        goto fail;
    }
    if (opt->read_ahead_set && opt->read_ahead_kb > ZC_READ_AHEAD_KB_MAX) {
        rc = zc__session_set_error(s, -ZC_EINVAL,
                                   "readahead of %" PRIu64
                                   " KiB: want KiB from 0 to 4194304",
                                   opt->read_ahead_kb);
        goto fail;
    }
    s->ra_set = s->ra_given = opt->read_ahead_set;
    s->ra_kb = opt->read_ahead_kb;
    if ((rc = check_regular(s)))
        goto fail;
    if (is_op_stream(opt->format, s->paths[0]))
        rc = open_ops(s, opt->page_size);
    else
        rc = open_trace(s, opt);
    if (rc)
        goto fail;
    *out = s;
    return 0;
fail:
    if (err && errlen)
        snprintf(err, errlen, "%s", s->err[0] ? s->err : zc_strerror(rc));
    zc_session_close(s);
    return rc;
}

/* ---- what the session holds --------------------------------------------- */

bool zc_session_is_ops(const zc_session *s)
{
    return s && s->ops;
}

const char *zc_session_format(const zc_session *s)
{
    if (!s)
        return "";
    return s->ops ? "zct" : zc_trace_format(s->t);
}

const char *zc_session_content(const zc_session *s)
{
    return s ? s->spec : "";
}

size_t zc_session_page_size(const zc_session *s)
{
    return s ? s->page_size : 0;
}

const char *zc_session_meta(const zc_session *s, const char *key)
{
    if (!s || !key)
        return NULL;
    return s->ops ? zc_ops_meta(s->ops, key) : zc_trace_meta(s->t, key);
}

int zc_session_read_ahead(const zc_session *s, uint64_t *kb, const char **from)
{
    if (!s || s->ops || !s->ra_set)
        return 0;
    if (kb)
        *kb = s->ra_kb;
    if (from)
        *from = s->ra_given ? "option" : "header";
    return 1;
}

uint64_t zc_session_requests(const zc_session *s)
{
    return s ? s->requests : 0;
}

int zc_session_stats(const zc_session *s, zc_replay_stats *out)
{
    if (!s || !out)
        return -ZC_EINVAL;
    if (s->r)
        return zc_replay_stats_get(s->r, out);
    if (s->p)
        return zc_player_stats_get(s->p, out);
    memset(out, 0, sizeof(*out));
    return 0;
}

const zc_replay *zc_session_replay(const zc_session *s)
{
    return s ? s->r : NULL;
}

const char *zc_session_error(const zc_session *s)
{
    return s ? s->err : "";
}

const char *zc__session_path(const zc_session *s)
{
    return s->paths[0];
}

zc_content *zc__session_source(const zc_session *s)
{
    return s->src;
}

int zc__session_resident(const zc_session *s, uint32_t dev, uint64_t *pages)
{
    return s->t ? zc_trace_resident(s->t, dev, pages) : 0;
}

/* ---- requests ----------------------------------------------------------- */

/* Whether the source gives the pages of file-keyed request req: 0, or -1
 * with the message when it has no file pages at all ("image:"). */
static int check_file_pages(zc_session *s, const zc_request *req)
{
    void *page;
    int rc;

    if (!s->src || !req->ino)
        return 0;
    if (!(page = malloc(s->page_size)))
        return 0; /* the replay will say it is out of memory */
    rc = zc_content_file_page(s->src, req->dev, req->ino,
                              req->offset / s->page_size, 0, page);
    free(page);
    if (rc != -ZC_EINVAL)
        return 0;
    return zc__session_set_error(
        s, -ZC_EINVAL,
        "content source %.1024s cannot give file pages; "
        "use pack:FILE or synth",
        s->spec);
}

int zc__session_next(zc_session *s, zc_request *req)
{
    int rc = zc_trace_next(s->t, req);

    if (rc < 0)
        return zc__session_set_error(s, rc, "%s", zc_trace_error(s->t));
    if (rc == 0)
        return 0;
    s->requests++;
    if (req->ino && !s->checked) {
        s->checked = true;
        if ((rc = check_file_pages(s, req)))
            return rc;
    }
    return 1;
}

/* What the source says of the page of req it refused (it may be an
 * evicted page of an earlier request), or the first page of req it
 * refuses now, into buf. */
static void explain(zc_session *s, const zc_request *req, int rc, char *buf,
                    size_t len)
{
    uint64_t first = req->offset / s->page_size;
    uint64_t last = (req->offset + req->length - 1) / s->page_size;
    const char *spec = s->src ? s->spec : "(none)";
    void *page;
    int prc = 0;

    if (s->src && *zc_content_error(s->src) &&
        (rc == -ZC_ENOENT || rc == -ZC_EFORMAT || rc == -ZC_EIO)) {
        snprintf(buf, len, "content source %.1024s: %s", spec,
                 zc_content_error(s->src));
        return;
    }
    page = s->src ? malloc(s->page_size) : NULL;
    /* a request is at most a few thousand pages: the first that fails is
     * named */
    if (req->offset + req->length - 1 < req->offset)
        last = UINT64_MAX / s->page_size;
    for (uint64_t i = first; page && i <= last && i - first < 4096; i++) {
        prc = req->ino
                  ? zc_content_file_page(s->src, req->dev, req->ino, i, 0, page)
                  : zc_content_page(s->src, req->dev, i, 0, page);
        if (prc) {
            first = i;
            break;
        }
    }
    free(page);
    if (!prc) { /* no page refused: not the source's doing */
        snprintf(buf, len, "%s", zc_strerror(rc));
        return;
    }
    snprintf(buf, len,
             "content source %.1024s: page (dev %" PRIu32 ", inode %" PRIu64
             ", index %" PRIu64 ") %s",
             spec, req->dev, req->ino, first,
             prc == -ZC_ENOENT ? "is not in it"
             : prc == -ZC_EFORMAT || prc == -ZC_EIO
                 ? "cannot be read: the source is damaged or unreadable"
                 : zc_strerror(prc));
}

int zc__session_fail(zc_session *s, const zc_request *req, uint64_t n, int rc,
                     const char *doing)
{
    char why[ERR_LEN], at[40] = "";

    if (n)
        snprintf(at, sizeof(at), "request %" PRIu64 ": ", n);
    if (rc == -ZC_ENOMEM)
        return zc__session_set_error(s, rc, "out of memory");
    if (doing)
        return zc__session_set_error(s, rc, "%s: %s%s: %s", s->paths[0], at,
                                     doing, zc_strerror(rc));
    explain(s, req, rc, why, sizeof(why));
    return zc__session_set_error(s, rc, "%s: %s%s", s->paths[0], at, why);
}

/* ---- saving the run's op stream ----------------------------------------- */

/* v at the end of buf[n..len), a newline in it made harmless (a field
 * is one line): the new n. */
static size_t add_value(char *buf, size_t n, size_t len, const char *v)
{
    for (; v && *v && n + 2 < len; v++)
        buf[n++] = *v == '\n' ? '?' : *v;
    return n;
}

/* "\nKEY=" at the end of buf[n..len): the new n. */
static size_t add_key(char *buf, size_t n, size_t len, const char *key)
{
    int k = snprintf(buf + n, n < len ? len - n : 0, "\n%s=", key);

    return n + (k > 0 ? (size_t)k : 0);
}

int zc_session_ops_writer(zc_session *s, const char *path, int level,
                          uint64_t page_cache_pages, zc_ops_writer **out)
{
    zc_ops_writer_options wo = {0};
    const char *format, *source = NULL, *v;
    char meta[4096], err[512];
    size_t len, n;
    int rc;

    if (!s || !path || !out)
        return -ZC_EINVAL;
    format = zc_session_format(s);
    if (s->ops) {
        v = zc_ops_meta(s->ops, "page_cache");
        page_cache_pages = v ? strtoull(v, NULL, 10) : 0;
        if (zc_ops_meta(s->ops, "format"))
            format = zc_ops_meta(s->ops, "format");
        source = zc_ops_meta(s->ops, "source");
        if (!source)
            source = s->paths[0];
    }
    n = (size_t)snprintf(meta, sizeof(meta),
                         "format=%s\npage_cache=%" PRIu64
                         "\npage_cache_model=%s",
                         format, page_cache_pages, s->model);
    n = add_value(meta, add_key(meta, n, sizeof(meta), "content"), sizeof(meta),
                  s->spec);
    /* the recording's identity (its pack's, as its header says), so that a
     * stream saved from one recording is never taken for another's */
    if ((v = zc_session_meta(s, s->ops ? "recording_pack_id" : "pack_id")))
        n = add_value(meta, add_key(meta, n, sizeof(meta), "recording_pack_id"),
                      sizeof(meta), v);
    n = add_value(meta, add_key(meta, n, sizeof(meta), "source"), sizeof(meta),
                  source);
    for (size_t i = 0; !source && i < s->npaths; i++) {
        if (i)
            n = add_value(meta, n, sizeof(meta), " ");
        n = add_value(meta, n, sizeof(meta), s->paths[i]);
    }
    meta[n < sizeof(meta) ? n : sizeof(meta) - 1] = '\0';
    len = strlen(path);
    wo.page_size = s->page_size;
    wo.text = len > 4 && strcmp(path + len - 4, ".txt") == 0;
    wo.level = level;
    wo.window =
        (uint32_t)(page_cache_pages < 6144     ? 16384
                   : page_cache_pages < 129024 ? 2 * page_cache_pages + 4096
                                               : 262144);
    if ((uint64_t)wo.window * s->page_size > (1ull << 30))
        wo.window = (uint32_t)((1ull << 30) / s->page_size); /* 1 GiB */
    wo.meta = meta;
    if ((rc = zc_ops_writer_open(path, &wo, out, err, sizeof(err))))
        return zc__session_set_error(s, rc, "%s", err);
    return 0;
}

/* ---- running ------------------------------------------------------------ */

int zc__session_replay_create(zc_session *s, uint64_t pc_pages, zc_cache *zc,
                              zc_replay **out)
{
    int rc = zc_replay_create(pc_pages, s->page_size, zc, s->src, out);

    if (rc == -ZC_ENOMEM && !*out)
        return zc__session_set_error(
            s, rc,
            "a page cache of %" PRIu64 " pages of %zu bytes (%.1f GiB) "
            "does not fit in memory",
            pc_pages, s->page_size,
            (double)pc_pages * (double)s->page_size / (1u << 30));
    if (rc == -ZC_EINVAL && pc_pages > ZC_REPLAY_PAGES_MAX)
        return zc__session_set_error(s, rc,
                                     "a page cache of %" PRIu64
                                     " pages: more than the %u a replay "
                                     "models",
                                     pc_pages, ZC_REPLAY_PAGES_MAX);
    if (rc == -ZC_EINVAL && zc && !s->src)
        return zc__session_set_error(s, rc,
                                     "a zcache needs page contents: the "
                                     "session was opened with no_content");
    if (rc)
        return zc__session_set_error(s, rc, "cannot make the replay: %s",
                                     zc_strerror(rc));
    if ((rc = zc_replay_set_model(*out, s->model)) ||
        (s->ra_set && (rc = zc_replay_set_read_ahead(*out, s->ra_kb)))) {
        zc_replay_destroy(*out);
        *out = NULL;
        return zc__session_set_error(s, rc, "cannot set up model %s: %s",
                                     s->model, zc_strerror(rc));
    }
    return 0;
}

/* The page cache follows the kernel: req's file system's last sample. */
static int follow_kernel(zc_session *s, const zc_request *req)
{
    uint64_t pages;
    char at[1200];
    int rc = zc_trace_resident(s->t, req->dev, &pages);

    zc_trace_where(s->t, at, sizeof(at)); /* the request's file and line */
    if (rc < 0)
        return zc__session_set_error(s, rc, "%s: %s", at, zc_strerror(rc));
    if (rc == 0) {
        if (s->requests > 1)
            return 0; /* another file system's request, or none yet */
        return zc__session_set_error(
            s, -ZC_EFORMAT,
            "%s: the page cache follows the kernel's resident count, but "
            "the trace records none before its first request",
            at);
    }
    if (pages > ZC_REPLAY_PAGES_MAX)
        return zc__session_set_error(s, -ZC_EFORMAT,
                                     "%s: a resident count of %" PRIu64
                                     " pages (the last sample before this "
                                     "request) is more than a replay models",
                                     at, pages);
    if ((rc = zc_replay_set_page_cache(s->r, pages)))
        return zc__session_fail(s, req, 0, rc, "resizing the page cache");
    return 0;
}

static int progress(zc_session *s, const zc_session_run_options *ro)
{
    if (ro->progress && ro->progress(ro->progress_ctx, s))
        return zc__session_set_error(s, -ZC_ECANCELED,
                                     "%s: stopped at %s %" PRIu64, s->paths[0],
                                     s->ops ? "op" : "request", s->requests);
    return 0;
}

static int setup_replay(zc_session *s, const zc_session_run_options *ro)
{
    uint64_t pc = ro->page_cache_kernel ? 0 : ro->page_cache_pages;
    int rc;

    if ((rc = zc__session_replay_create(s, pc, ro->zcache, &s->r)))
        return rc;
    if ((rc = zc_replay_save_ops(s->r, ro->save_ops)) ||
        (ro->sink && (rc = zc_replay_sink(s->r, ro->sink, ro->sink_ctx))))
        return zc__session_set_error(s, rc,
                                     "cannot save or hand on the "
                                     "ops: %s",
                                     zc_strerror(rc));
    if (ro->adapt && (!ro->zcache || ro->save_ops || ro->sink))
        return zc__session_set_error(
            s, -ZC_EINVAL, "%s",
            !ro->zcache ? "an adaptive split needs a zcache"
                        : "an adaptive run's op stream depends on its zcache: "
                          "no op writer or sink with it");
    if (ro->adapt && !ro->adapt->memory_bytes)
        return zc__session_set_error(s, -ZC_EINVAL, "%s",
                                     "an adaptive split of 0 bytes of memory");
    if (ro->adapt && (rc = zc_replay_adapt(s->r, ro->adapt)))
        return zc__session_set_error(s, rc, "the adaptive split: %s",
                                     rc == -ZC_EINVAL ? "options out of range"
                                                      : zc_strerror(rc));
    zc_replay_verify(s->r, ro->verify);
    return 0;
}

static int run_trace(zc_session *s, const zc_session_run_options *ro)
{
    zc_request req = {0};
    int rc;

    if ((rc = setup_replay(s, ro)))
        return rc;
    while ((rc = zc__session_next(s, &req)) == 1) {
        if (ro->page_cache_kernel && (rc = follow_kernel(s, &req)))
            return rc;
        if ((rc = zc_replay_request(s->r, &req))) {
            if (ro->save_ops && *zc_ops_writer_error(ro->save_ops))
                return zc__session_set_error(s, rc, "%s: the op stream: %s",
                                             s->paths[0],
                                             zc_ops_writer_error(ro->save_ops));
            return zc__session_fail(s, &req, 0, rc, NULL);
        }
        if (ro->mrc && (rc = zc_mrc_request(ro->mrc, &req, s->page_size)))
            return zc__session_set_error(s, rc, "out of memory");
        if (!(s->requests & 0xfff) && (rc = progress(s, ro)))
            return rc;
    }
    return rc < 0 ? rc : progress(s, ro);
}

static int run_ops(zc_session *s, const zc_session_run_options *ro)
{
    zc_op op;
    int rc;

    if (ro->adapt || ro->mrc || ro->sink || ro->page_cache_kernel)
        return zc__session_set_error(s, -ZC_EINVAL,
                                     "%s: an op stream is played as it is: "
                                     "no adaptive split, curve, sink or "
                                     "page-cache size",
                                     s->paths[0]);
    if ((rc = zc_player_create(ro->zcache, &s->p)))
        return zc__session_set_error(s, rc, "%s", zc_strerror(rc));
    zc_player_verify(s->p, ro->verify);
    while ((rc = zc_ops_next(s->ops, &op)) == 1) {
        s->requests++;
        if (ro->save_ops && (rc = zc_ops_write(ro->save_ops, &op)))
            return zc__session_set_error(s, rc, "%s",
                                         zc_ops_writer_error(ro->save_ops));
        if ((rc = zc_player_op(s->p, &op)))
            return zc__session_set_error(s, rc, "%s: op %" PRIu64 ": %s",
                                         s->paths[0], s->requests,
                                         zc_strerror(rc));
        if (!(s->requests & 0xfff) && (rc = progress(s, ro)))
            return rc;
    }
    if (rc < 0)
        return zc__session_set_error(s, rc, "%s", zc_ops_error(s->ops));
    return progress(s, ro);
}

int zc_session_run(zc_session *s, const zc_session_run_options *ro)
{
    static const zc_session_run_options none;

    if (!s)
        return -ZC_EINVAL;
    if (s->ran)
        return zc__session_set_error(s, -ZC_EINVAL,
                                     "a session runs its recording once");
    s->ran = true;
    s->err[0] = '\0';
    if (!ro)
        ro = &none;
    if (ro->zcache && zc_cache_page_size(ro->zcache) != s->page_size)
        return zc__session_set_error(s, -ZC_EINVAL,
                                     "the zcache's pages are of %zu bytes, "
                                     "the recording's of %zu",
                                     zc_cache_page_size(ro->zcache),
                                     s->page_size);
    return s->ops ? run_ops(s, ro) : run_trace(s, ro);
}

void zc_session_close(zc_session *s)
{
    if (!s)
        return;
    zc_replay_destroy(s->r);
    zc_player_destroy(s->p);
    zc_trace_close(s->t);
    zc_ops_close(s->ops);
    zc_content_close(s->src);
    for (size_t i = 0; i < s->npaths; i++)
        free(s->paths[i]);
    free(s->paths);
    free(s);
}
