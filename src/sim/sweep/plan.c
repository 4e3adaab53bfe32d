/*
 * sim/sweep/plan.c - a sweep as a plan of jobs in a directory, each run
 * anywhere, then merged (zcache_sim.h: zc_sweep_plan_*).
 *
 * A plan keeps the caller's arguments, not the rows: every process makes
 * the sweep again from them, and so the same rows and jobs in the same
 * order.  That the inputs are still what they were is checked, not
 * assumed: the fingerprint (the traces, their sizes and modification
 * times, the content sources' files, every job's rows) is kept, and a job
 * or a merge refuses a plan whose fingerprint differs now: a merge all of
 * it, a job (a sweep made for it alone, zc_sweep_select_job()) the parts
 * that are its own, the head, its trace and its rows, so that it reads
 * no other trace and makes no other row.  Every file is
 * written to a temporary name, flushed and renamed (a file of its name is
 * whole), ends with a checksum of every byte before it, and carries the
 * plan's id (the fingerprint's hash with the time it was made), so that
 * rows of an earlier plan in a reused directory are never read.
 *
 * The plan also records the adaptive rows' CPU prices, fixed when it is
 * made (prices.c), with where they came from: its jobs weigh those, not
 * what their own node would measure, and the merge reports them.
 *
 * Rows are written by the library's field lists (the X-macros), doubles as
 * hex floats, strings with their lengths: read back, a row is the bytes it
 * was.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sweep.h"

#define PLAN_MAGIC "zcache-sweep plan 4"
#define ROWS_MAGIC "zcache-sweep rows 2"
#define FAILED_MAGIC "zcache-sweep failed job 1"
#define ARG_MAX_LEN 65536 /* bytes of an argument a plan keeps, with NUL */

/* DIR/name, or NULL (out of memory). */
static char *plan_path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);

    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* Job n of the whole sweep, if this sweep has it (a sweep of one job has
 * that one), else NULL. */
static const zc_sweep_job *job_of(const zc_sweep *sw, size_t n)
{
    return n >= sw->sel_job && n - sw->sel_job < sw->njobs
               ? &sw->jobs[n - sw->sel_job]
               : NULL;
}

static char *job_path(const char *dir, size_t job, const char *ext)
{
    char name[64];

    snprintf(name, sizeof(name), "results/job-%zu.%s", job, ext);
    return plan_path(dir, name);
}

/* ---- the fingerprint ---------------------------------------------------- */

static void file_line(struct zc__text *t, const char *path,
                      const struct stat *sb)
{
    zc__text_add(t, "  file %s size %lld mtime %lld.%09ld\n", path,
                 (long long)sb->st_size, (long long)sb->st_mtim.tv_sec,
                 (long)sb->st_mtim.tv_nsec);
}

/* A trace's files: a blktrace base name stands for its per-CPU files, .0,
 * .1, ... up to the first missing one (as the reader takes them): each is
 * fingerprinted, and so is where the list ends. */
static void trace_files(struct zc__text *t, const char *path)
{
    size_t len = strlen(path) + 24;
    char *p = malloc(len);
    struct stat sb;

    if (!p) {
        t->oom = true;
        return;
    }
    snprintf(p, len, "%s", path);
    if (!stat(p, &sb)) {
        file_line(t, p, &sb);
        free(p);
        return;
    }
    for (unsigned cpu = 0;; cpu++) {
        snprintf(p, len, "%s.%u", path, cpu);
        if (stat(p, &sb)) {
            zc__text_add(t, "  no file %s\n", p);
            break;
        }
        file_line(t, p, &sb);
    }
    free(p);
}

/* The fingerprint's three parts: what the whole sweep is, each trace
 * (its files' sizes and modification times, its content source's file),
 * each job (its rows).  Numbers are the whole sweep's (a sweep of one job
 * writes its own parts as the whole sweep writes them), and a trace's or
 * a job's part is its line and the lines after it that start with two
 * spaces. */
static void fingerprint_head(const zc_sweep *sw, struct zc__text *t)
{
    zc__text_add(t,
                 "libzcache %s\npage_size %zu\ntraces %zu rows %zu jobs "
                 "%zu\n",
                 zc_version(), sw->o.page_size, sw->all_traces, sw->all_rows,
                 sw->all_jobs);
}

static void fingerprint_trace(const zc_sweep *sw, struct zc__text *t, size_t i)
{
    const zc_sweep_trace *u = &sw->tpub[i];
    const char *cf = u->is_ops ? NULL : zc_content_file(u->content);
    struct stat sb;

    zc__text_add(t, "trace %zu %s (%s) content %s\n", i + sw->sel_trace,
                 u->name, u->read_as, u->is_ops ? "-" : u->content);
    for (size_t k = 0; k < u->npaths; k++)
        trace_files(t, u->paths[k]);
    if (cf && !stat(cf, &sb)) {
        zc__text_add(t, "  content");
        file_line(t, cf, &sb);
    }
}

static void fingerprint_job(const zc_sweep *sw, struct zc__text *t, size_t w)
{
    const zc_sweep_job *j = &sw->jobs[w];

    zc__text_add(t, "job %zu trace %zu kind %d rows %zu+%zu\n", w + sw->sel_job,
                 j->trace + sw->sel_trace, (int)j->kind,
                 j->first_row + sw->sel_row, j->nrows);
    for (size_t i = j->first_row; i < j->first_row + j->nrows; i++)
        zc__text_add(t, "  row %zu pc %" PRIu64 " spec %s\n", i + sw->sel_row,
                     sw->rpub[i].page_cache_pages,
                     sw->rows[i].spec[0] ? sw->rows[i].spec : "off");
}

/* What the sweep made, as text: the whole of it, or for a sweep of one
 * job its parts (the head, its trace, its job). */
static void fingerprint(const zc_sweep *sw, struct zc__text *t)
{
    zc_sweep_traces(sw, NULL); /* (the views' strings) */
    fingerprint_head(sw, t);
    for (size_t i = 0; i < sw->ntraces; i++)
        fingerprint_trace(sw, t, i);
    for (size_t w = 0; w < sw->njobs; w++)
        fingerprint_job(sw, t, w);
}

/* ---- writing a plan ----------------------------------------------------- */

static const char *const kind_name[] = {"page-cache size", "adaptive row",
                                        "op stream"};

static void manifest(const zc_sweep *sw, struct zc__text *m, uint64_t id,
                     const char *cwd, const char *const *args, size_t nargs)
{
    uint64_t mem_max = 0;

    zc__text_add(m, "{\n  \"tool\": \"zcache-sweep\",\n  \"libzcache\": ");
    zc__text_json(m, zc_version());
    zc__text_add(m, ",\n  \"plan\": \"%016" PRIx64 "\",\n  \"made_in\": ", id);
    zc__text_json(m, cwd);
    zc__text_add(m, ",\n  \"arguments\": [");
    for (size_t i = 0; i < nargs; i++) {
        zc__text_add(m, "%s", i ? ", " : "");
        zc__text_json(m, args[i]);
    }
    zc__text_add(m, "],\n  \"traces\": %zu,\n  \"rows\": %zu,\n", sw->ntraces,
                 sw->nrows);
    for (size_t w = 0; w < sw->njobs; w++)
        if (sw->jobs[w].memory_bytes > mem_max)
            mem_max = sw->jobs[w].memory_bytes;
    zc__text_add(m, "  \"jobs\": %zu,\n  \"memory_mb\": %" PRIu64 ",\n",
                 sw->njobs, (mem_max + (1u << 20) - 1) >> 20);
    /* the adaptive rows' CPU prices, fixed now, and where they came from */
    zc__text_add(m, "  \"prices_from\": ");
    zc__text_json(m, sw->prices_from);
    zc__text_add(m, ",\n  \"prices\": [");
    for (size_t i = 0, k = 0; i < sw->nrows; i++)
        if (sw->rpub[i].adaptive)
            zc__text_add(m,
                         "%s\n    {\"row\": %zu, \"put_ns\": %" PRIu64
                         ", \"get_ns\": %" PRIu64 ", \"measured\": %s}",
                         k++ ? "," : "", i, sw->rpub[i].put_ns,
                         sw->rpub[i].get_ns,
                         sw->rpub[i].prices_measured ? "true" : "false");
    zc__text_add(m, "\n  ],\n");
    zc__text_add(m, "  \"job_list\": [");
    for (size_t w = 0; w < sw->njobs; w++) {
        const zc_sweep_job *j = &sw->jobs[w];
        zc__text_add(m, "%s\n    {\"job\": %zu, \"trace\": ", w ? "," : "", w);
        zc__text_json(m, sw->tpub[j->trace].name);
        zc__text_add(m,
                     ", \"kind\": \"%s\", \"page_cache_pages\": %" PRIu64
                     ", \"rows\": %zu, \"memory_bytes\": %" PRIu64 "}",
                     kind_name[j->kind],
                     j->kind == ZC_SWEEP_OPS
                         ? 0
                         : sw->rpub[j->first_row].page_cache_pages,
                     j->nrows, j->memory_bytes);
    }
    zc__text_add(m, "\n  ]\n}\n");
}

/* The adaptive rows' CPU prices, as plan.args records them: how many,
 * where they came from, then "price ROW PUT_NS GET_NS MEASURED" each. */
static void write_prices(const zc_sweep *sw, struct zc__text *t)
{
    size_t n = 0;

    for (size_t i = 0; i < sw->nrows; i++)
        n += sw->rpub[i].adaptive;
    zc__text_add(t, "prices %zu\n", n);
    zc__text_str(t, "from", n ? sw->prices_from : "");
    for (size_t i = 0; i < sw->nrows; i++)
        if (sw->rpub[i].adaptive)
            zc__text_add(t, "price %zu %" PRIu64 " %" PRIu64 " %d\n", i,
                         sw->rpub[i].put_ns, sw->rpub[i].get_ns,
                         sw->rpub[i].prices_measured);
}

/* 0, or -ZC_EINVAL when dir holds a plan. */
static int plan_there(zc_sweep *sw, const char *dir)
{
    struct stat sb;
    char *p = plan_path(dir, "plan.args");
    int there;

    if (!p)
        return -ZC_ENOMEM;
    there = !stat(p, &sb);
    free(p);
    return there ? zc__sweep_fail(sw, -ZC_EINVAL,
                                  "--plan %s: holds a plan already (--merge "
                                  "it, or remove the directory for a new one)",
                                  dir)
                 : 0;
}

/* DIR, DIR/results and DIR/logs, made where missing. */
static int make_dirs(zc_sweep *sw, const char *dir)
{
    const char *sub[] = {"results", "logs"};
    struct stat sb;
    int rc;

    if ((rc = plan_there(sw, dir)))
        return rc;
    if (mkdir(dir, 0755) && errno != EEXIST)
        return zc__sweep_fail(sw, -ZC_EIO,
                              "--plan %s: cannot make the directory: %s", dir,
                              strerror(errno));
    if (stat(dir, &sb) || !S_ISDIR(sb.st_mode))
        return zc__sweep_fail(sw, -ZC_EIO, "--plan %s: not a directory", dir);
    for (int i = 0; i < 2; i++) {
        char *s = plan_path(dir, sub[i]);
        if (!s)
            return -ZC_ENOMEM;
        if (mkdir(s, 0755) && errno != EEXIST)
            rc = zc__sweep_fail(sw, -ZC_EIO, "--plan %s: cannot make %s: %s",
                                dir, s, strerror(errno));
        else if (stat(s, &sb) || !S_ISDIR(sb.st_mode))
            rc = zc__sweep_fail(sw, -ZC_EIO,
                                "--plan %s: %s is there and is no directory",
                                dir, s);
        free(s);
        if (rc)
            return rc;
    }
    return 0;
}

int zc_sweep_plan_write(zc_sweep *sw, const char *dir, const char *const *args,
                        size_t nargs, const char *cwd, uint64_t *plan_id)
{
    struct zc__text a = {0}, fp = {0}, man = {0};
    const char *names[] = {"fingerprint", "manifest.json", "plan.args"};
    const struct zc__text *texts[] = {&fp, &man, &a};
    struct timespec ts;
    uint64_t id;
    int rc;

    if (!sw || !sw->prepared || !dir || !cwd || (nargs && !args))
        return -ZC_EINVAL;
    if (sw->select)
        return zc__sweep_fail(sw, -ZC_EINVAL, "%s",
                              "a plan is made of the whole sweep, not of "
                              "one of its jobs (zc_sweep_select_job())");
    for (size_t i = 0; i < nargs; i++)
        if (!args[i])
            return zc__sweep_fail(sw, -ZC_EINVAL, "argument %zu: NULL", i);
        else if (strlen(args[i]) >= ARG_MAX_LEN)
            return zc__sweep_fail(sw, -ZC_EINVAL,
                                  "--plan: an argument of %zu bytes (a plan "
                                  "keeps at most %d)",
                                  strlen(args[i]), ARG_MAX_LEN - 1);
    /* (refused before the prices are measured, which may take a while) */
    if ((rc = plan_there(sw, dir)) ||
        (rc = zc__sweep_fix_prices(sw, NULL, 0)) || (rc = make_dirs(sw, dir)))
        return rc;
    fingerprint(sw, &fp);
    /* the fingerprint's hash with the time it was made */
    clock_gettime(CLOCK_REALTIME, &ts);
    id = zc__fnv1a(fp.s ? fp.s : "", fp.len) ^
         (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^
         (uint64_t)getpid() << 32;
    zc__text_add(&a, PLAN_MAGIC "\n");
    zc__text_str(&a, "libzcache", zc_version());
    zc__text_add(&a, "plan %016" PRIx64 "\n", id);
    zc__text_str(&a, "cwd", cwd);
    zc__text_add(&a, "argc %zu\n", nargs);
    for (size_t i = 0; i < nargs; i++)
        zc__text_str(&a, "arg", args[i]);
    write_prices(sw, &a);
    /* the job count (checked before a job starts), and a checksum of
     * every byte before it: an edited plan is refused */
    zc__text_add(&a, "jobs %zu\n", sw->njobs);
    zc__text_add(&a, "sum %016" PRIx64 "\n", zc__fnv1a(a.s ? a.s : "", a.len));
    manifest(sw, &man, id, cwd, args, nargs);
    for (int i = 0; i < 3 && !rc; i++) { /* plan.args last: it makes DIR a
                                            plan */
        char *p = plan_path(dir, names[i]);
        if (!p || texts[i]->oom)
            rc = -ZC_ENOMEM;
        else if (zc__write_atomic(p, texts[i]))
            rc = zc__sweep_fail(sw, -ZC_EIO, "cannot write %s: %s", p,
                                strerror(errno));
        free(p);
    }
    free(a.s);
    free(fp.s);
    free(man.s);
    if (!rc)
        sw->plan_id = id;
    if (!rc && plan_id)
        *plan_id = id;
    return rc;
}

/* ---- reading a plan back ------------------------------------------------ */

/* The arguments into one allocation: the pointers, then the strings. */
static int read_args(struct zc__cursor *c, uint64_t nargs, const char *cwd,
                     char ***out, const char **cwd_out)
{
    char *buf = malloc(ARG_MAX_LEN), **v, *at;
    size_t total = strlen(cwd) + 1;
    const char *start = c->p;
    size_t line = c->line;

    if (!buf)
        return -ZC_ENOMEM;
    /* one pass to size, one to copy */
    for (uint64_t i = 0; i < nargs; i++) {
        if (!zc__cur_str(c, "arg", buf, ARG_MAX_LEN)) {
            free(buf);
            return -ZC_EFORMAT;
        }
        total += strlen(buf) + 1;
    }
    v = malloc((nargs + 1) * sizeof(*v) + total);
    if (!v) {
        free(buf);
        return -ZC_ENOMEM;
    }
    at = (char *)(v + nargs + 1);
    c->p = start;
    c->line = line;
    for (uint64_t i = 0; i < nargs; i++) {
        zc__cur_str(c, "arg", buf, ARG_MAX_LEN);
        v[i] = strcpy(at, buf);
        at += strlen(buf) + 1;
    }
    v[nargs] = NULL;
    *cwd_out = strcpy(at, cwd);
    free(buf);
    *out = v;
    return 0;
}

/* The prices a plan recorded (write_prices()). */
struct recorded {
    size_t n;
    struct price {
        uint64_t row, put_ns, get_ns, measured;
    } * v;
    char from[512];
};

/* plan.args' prices into rec (NULL: read past). */
static bool read_prices(struct zc__cursor *c, struct recorded *rec)
{
    struct price x;
    char from[512];
    uint64_t n;

    if (!zc__cur_key(c, "prices") || !zc__cur_u64(c, &n) || !zc__cur_eol(c) ||
        !zc__cur_str(c, "from", from, sizeof(from)))
        return false;
    if (n > ZC_SWEEP_ROWS_MAX)
        return zc__cur_fail(c, "more prices than a sweep has rows");
    if (rec) {
        snprintf(rec->from, sizeof(rec->from), "%s", from);
        if (!(rec->v = calloc(n ? (size_t)n : 1, sizeof(*rec->v))))
            return zc__cur_fail(c, "out of memory");
    }
    for (uint64_t i = 0; i < n; i++) {
        if (!zc__cur_key(c, "price") || !zc__cur_u64(c, &x.row) ||
            !zc__cur_u64(c, &x.put_ns) || !zc__cur_u64(c, &x.get_ns) ||
            !zc__cur_u64(c, &x.measured) || !zc__cur_eol(c))
            return false;
        if (rec)
            rec->v[rec->n++] = x;
    }
    return true;
}

/* zc_sweep_plan_read(), and the prices it recorded into rec (NULL: none;
 * rec->v freed by the caller). */
static int read_plan(const char *dir, char ***args, size_t *nargs,
                     const char **cwd, size_t *njobs, uint64_t *plan_id,
                     struct recorded *rec, char *err, size_t errlen)
{
    char cwd_buf[4096], *p, *text = NULL, ver[64];
    struct zc__cursor c;
    uint64_t n, jobs, id, sum;
    const char *why, *sum_at;
    size_t len;
    int rc;

    if (err && errlen)
        err[0] = '\0';
    if (!dir || !args || !nargs || !cwd || !njobs || !plan_id)
        return -ZC_EINVAL;
    *args = NULL;
    if (!(p = plan_path(dir, "plan.args")))
        return -ZC_ENOMEM;
    if ((rc = zc__read_all(p, &text, &len, &why))) {
        snprintf(err, errlen, "%s: no plan there (%s: %s)", dir, p, why);
        free(p);
        return rc;
    }
    c = (struct zc__cursor){.p = text, .end = text + len, .path = p, .line = 1};
    rc = -ZC_EFORMAT;
    if (!zc__cur_magic(&c, PLAN_MAGIC)) {
        snprintf(err, errlen, "%s: not a plan of this program", p);
        goto out;
    }
    if (!zc__cur_str(&c, "libzcache", ver, sizeof(ver)))
        goto bad;
    if (strcmp(ver, zc_version())) {
        snprintf(err, errlen,
                 "%s: the plan was made by libzcache %s, this is %s: run the "
                 "build that made it, or make the plan again",
                 dir, ver, zc_version());
        goto out;
    }
    if (!zc__cur_key(&c, "plan") || !zc__cur_hex(&c, &id) || !zc__cur_eol(&c) ||
        !zc__cur_str(&c, "cwd", cwd_buf, sizeof(cwd_buf)) ||
        !zc__cur_key(&c, "argc") || !zc__cur_u64(&c, &n) || !zc__cur_eol(&c))
        goto bad;
    if (n > 100000) {
        snprintf(err, errlen, "%s:%zu: %" PRIu64 " arguments: not a plan's", p,
                 c.line - 1, n);
        goto out;
    }
    if ((rc = read_args(&c, n, cwd_buf, args, cwd)) == -ZC_ENOMEM)
        goto out;
    rc = -ZC_EFORMAT;
    if (!*args || !read_prices(&c, rec) || !zc__cur_key(&c, "jobs") ||
        !zc__cur_u64(&c, &jobs) || !zc__cur_eol(&c))
        goto bad;
    sum_at = c.p;
    if (!zc__cur_key(&c, "sum") || !zc__cur_hex(&c, &sum))
        goto bad;
    if (!zc__cur_eol(&c) || c.p != c.end) {
        snprintf(err, errlen, "%s:%zu: want the end of the plan", p, c.line);
        goto out;
    }
    if (sum != zc__fnv1a(text, (size_t)(sum_at - text))) {
        snprintf(err, errlen,
                 "%s: changed since the plan was made (its checksum "
                 "differs): make the plan again",
                 p);
        goto out;
    }
    *nargs = (size_t)n;
    *njobs = (size_t)jobs;
    *plan_id = id;
    rc = 0;
    goto out;
bad:
    snprintf(err, errlen, "%s", c.err);
out:
    if (rc) {
        free(*args);
        *args = NULL;
    }
    free(text);
    free(p);
    return rc;
}

int zc_sweep_plan_read(const char *dir, char ***args, size_t *nargs,
                       const char **cwd, size_t *njobs, uint64_t *plan_id,
                       char *err, size_t errlen)
{
    return read_plan(dir, args, nargs, cwd, njobs, plan_id, NULL, err, errlen);
}

/* The prices the plan recorded, into the sweep's adaptive rows (a sweep
 * of one job: its own): each must have one. */
static int take_prices(zc_sweep *sw, const char *dir,
                       const struct recorded *rec)
{
    for (size_t k = 0; k < rec->n; k++) {
        const struct price *x = &rec->v[k];
        size_t i = (size_t)x->row - sw->sel_row;
        if (x->row < sw->sel_row || x->row - sw->sel_row >= sw->nrows)
            continue; /* (another job's) */
        if (!sw->rpub[i].adaptive || !x->put_ns || !x->get_ns)
            return zc__sweep_fail(sw, -ZC_EFORMAT,
                                  "%s/plan.args: a price for row %" PRIu64
                                  ", not an adaptive row's",
                                  dir, x->row);
        sw->rpub[i].put_ns = x->put_ns;
        sw->rpub[i].get_ns = x->get_ns;
        sw->rpub[i].prices_measured = x->measured != 0;
    }
    for (size_t i = 0; i < sw->nrows; i++)
        if (sw->rpub[i].adaptive && !sw->rpub[i].put_ns)
            return zc__sweep_fail(sw, -ZC_EFORMAT,
                                  "%s/plan.args: no price for row %zu", dir,
                                  i + sw->sel_row);
    snprintf(sw->prices_from, sizeof(sw->prices_from), "%s", rec->from);
    return 0;
}

/* Whether a[0..alen), a part of the saved fingerprint then (at path), is
 * b[0..blen), what the sweep makes now: 0, or -ZC_EFORMAT naming the
 * first line that differs. */
static int same_part(zc_sweep *sw, const char *dir, const char *path,
                     const char *then, const char *a, size_t alen,
                     const char *b, size_t blen)
{
    size_t at = 0, line = 1;

    for (const char *p = then; p < a; p++)
        line += *p == '\n';
    while (at < alen && at < blen && a[at] == b[at])
        line += a[at++] == '\n';
    if (at == alen && alen == blen)
        return 0;
    while (at && a[at - 1] != '\n')
        at--;
    return zc__sweep_fail(sw, -ZC_EFORMAT,
                          "%s: the sweep is no longer the one planned (its "
                          "traces or their contents changed since, or the "
                          "plan's files): %s line %zu was '%.*s', now '%.*s'",
                          dir, path, line, (int)strcspn(a + at, "\n"),
                          at < alen ? a + at : "", (int)strcspn(b + at, "\n"),
                          b + at);
}

/* The part of the saved fingerprint then[0..len) (NUL-terminated) that a
 * part of a sweep of one job, now, stands for: the head (the first three
 * lines), or the part whose first two words are now's ("trace 5 ", "job
 * 7 ").  Where there is none, the empty part at the end (it differs). */
static const char *part_of(const char *then, size_t len, const char *now,
                           bool head, size_t *plen)
{
    const char *end = then + len, *p = then, *q;
    char key[64];
    size_t k;

    if (head) {
        for (int n = 0; n < 3 && (q = memchr(p, '\n', (size_t)(end - p))); n++)
            p = q + 1;
        *plen = (size_t)(p - then);
        return then;
    }
    k = strcspn(now, " ");
    k += 1 + strcspn(now + k + 1, " ");
    snprintf(key, sizeof(key), "\n%.*s ", (int)k, now);
    if (!(p = strstr(then, key))) {
        *plen = 0;
        return end;
    }
    /* its line, and those after it that start with two spaces */
    for (q = ++p; (q = memchr(q, '\n', (size_t)(end - q))) && end - q > 2 &&
                  q[1] == ' ' && q[2] == ' ';
         q++)
        ;
    *plen = (size_t)((q ? q + 1 : end) - p);
    return p;
}

int zc_sweep_plan_check(zc_sweep *sw, const char *dir, uint64_t plan_id)
{
    struct zc__text now[3] = {{0}};
    char *p, *then = NULL;
    const char *why;
    size_t len;
    int rc;

    char **args, msg[2048];
    const char *cwd;
    size_t nargs, njobs;
    struct recorded rec = {0};
    uint64_t id;

    if (!sw || !dir || !sw->prepared)
        return -ZC_EINVAL;
    if (!(p = plan_path(dir, "fingerprint")))
        return -ZC_ENOMEM;
    /* the plan that is there, and no other (its jobs' files carry its id) */
    if ((rc = read_plan(dir, &args, &nargs, &cwd, &njobs, &id, &rec, msg,
                        sizeof(msg)))) {
        free(p);
        free(rec.v);
        return zc__sweep_fail(sw, rc, "%s", msg);
    }
    free(args);
    if (id != plan_id || njobs != sw->all_jobs) {
        free(p);
        free(rec.v);
        return zc__sweep_fail(sw, -ZC_EFORMAT,
                              "%s: the plan there is %016" PRIx64
                              " of %zu jobs, not %016" PRIx64
                              " of %zu: make the sweep from its own "
                              "arguments",
                              dir, id, njobs, plan_id, sw->all_jobs);
    }
    sw->plan_id = plan_id;
    if ((rc = zc__read_all(p, &then, &len, &why))) {
        rc = zc__sweep_fail(sw, rc == -ZC_ENOMEM ? rc : -ZC_EFORMAT, "%s: %s",
                            p, why);
        free(p);
        free(rec.v);
        return rc;
    }
    /* the whole of it; a sweep of one job, its parts (the others are
     * the other jobs': the merge checks them) */
    zc_sweep_traces(sw, NULL);
    if (!sw->select) {
        fingerprint(sw, &now[0]);
    } else {
        fingerprint_head(sw, &now[0]);
        fingerprint_trace(sw, &now[1], 0);
        fingerprint_job(sw, &now[2], 0);
    }
    for (int k = 0; k < 3 && !rc; k++) {
        const char *a = then;
        size_t alen = len;
        if (now[k].oom)
            rc = -ZC_ENOMEM;
        else if (sw->select)
            a = part_of(then, len, now[k].s, k == 0, &alen);
        if (!rc && (k == 0 || sw->select))
            rc = same_part(sw, dir, p, then, a, alen, now[k].s ? now[k].s : "",
                           now[k].len);
    }
    /* the sweep is the one planned: its adaptive rows weigh its prices */
    if (!rc)
        rc = take_prices(sw, dir, &rec);
    for (int k = 0; k < 3; k++)
        free(now[k].s);
    free(rec.v);
    free(then);
    free(p);
    return rc;
}

/* ---- a job's rows ------------------------------------------------------- */

static void write_row(const zc_sweep *sw, struct zc__text *t, size_t i)
{
    const zc_sweep_row *r = &sw->rpub[i];
    const struct zc__sweep_row *x = &sw->rows[i];

    zc__text_add(t,
                 "row %zu\nrc %d\ncap_bytes %" PRIu64 "\nhave_zs %d\n"
                 "mrc_hits %" PRIu64 "\n",
                 i + sw->sel_row, -r->rc, r->capacity_bytes, r->have_zs,
                 r->mrc_hits);
    zc__text_str(t, "config", x->config);
    zc__text_str(t, "compressor", x->compressor);
    zc__text_str(t, "err", x->err);
    zc__text_add(t, "st");
#define X(f) zc__text_add(t, " %" PRIu64, r->st.f);
    ZC_REPLAY_STATS_FIELDS(X)
#undef X
    zc__text_add(t, "\nzs");
#define X(f) zc__text_add(t, " %" PRIu64, r->zs.f);
    ZC_STATS_FIELDS(X)
#undef X
    for (int b = 0; b < ZC_HIST_BUCKETS; b++)
        zc__text_add(t, " %" PRIu64, r->zs.compr_size_hist[b]);
    zc__text_add(t, "\nepochs %zu\n", r->nepochs);
    for (size_t e = 0; e < r->nepochs; e++) {
        const zc_adapt_epoch *y = &r->epochs[e];
        zc__text_add(
            t,
            "e %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
            " %a %a %a %a %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
            y->accesses, y->pc_pages, y->zc_bytes, y->next_pc_pages,
            y->next_zc_bytes, y->est_disk_reads, y->est_cost_ns, y->put_ns,
            y->get_ns, y->disk_reads, y->zc_hits, y->pc_hits);
    }
}

static bool read_epochs(zc_sweep *sw, struct zc__cursor *c, size_t i)
{
    zc_sweep_row *r = &sw->rpub[i];
    struct zc__sweep_row *x = &sw->rows[i];
    uint64_t ne;

    if (!zc__cur_eol(c) || !zc__cur_key(c, "epochs") || !zc__cur_u64(c, &ne) ||
        !zc__cur_eol(c))
        return false;
    if (ne > (uint64_t)(c->end - c->p) / 24)
        return zc__cur_fail(c, "more epochs than the file holds");
    free(x->epochs);
    r->nepochs = 0;
    r->epochs = x->epochs = calloc(ne ? (size_t)ne : 1, sizeof(*x->epochs));
    if (!x->epochs)
        return zc__cur_fail(c, "out of memory");
    r->nepochs = (size_t)ne;
    for (size_t e = 0; e < r->nepochs; e++) {
        zc_adapt_epoch *y = &x->epochs[e];
        if (!zc__cur_key(c, "e") || !zc__cur_u64(c, &y->accesses) ||
            !zc__cur_u64(c, &y->pc_pages) || !zc__cur_u64(c, &y->zc_bytes) ||
            !zc__cur_u64(c, &y->next_pc_pages) ||
            !zc__cur_u64(c, &y->next_zc_bytes) ||
            !zc__cur_double(c, &y->est_disk_reads) ||
            !zc__cur_double(c, &y->est_cost_ns) ||
            !zc__cur_double(c, &y->put_ns) || !zc__cur_double(c, &y->get_ns) ||
            !zc__cur_u64(c, &y->disk_reads) || !zc__cur_u64(c, &y->zc_hits) ||
            !zc__cur_u64(c, &y->pc_hits) || !zc__cur_eol(c))
            return false;
    }
    return true;
}

static bool read_row(zc_sweep *sw, struct zc__cursor *c, size_t i)
{
    zc_sweep_row *r = &sw->rpub[i];
    struct zc__sweep_row *x = &sw->rows[i];
    uint64_t v, rc, have;

    if (!zc__cur_key(c, "row") || !zc__cur_u64(c, &v) || !zc__cur_eol(c))
        return false;
    if (v != i + sw->sel_row)
        return zc__cur_fail(c, "not the row this job makes");
    if (!zc__cur_key(c, "rc") || !zc__cur_u64(c, &rc) || !zc__cur_eol(c) ||
        !zc__cur_key(c, "cap_bytes") || !zc__cur_u64(c, &r->capacity_bytes) ||
        !zc__cur_eol(c) || !zc__cur_key(c, "have_zs") ||
        !zc__cur_u64(c, &have) || !zc__cur_eol(c) ||
        !zc__cur_key(c, "mrc_hits") || !zc__cur_u64(c, &r->mrc_hits) ||
        !zc__cur_eol(c) ||
        !zc__cur_str(c, "config", x->config, sizeof(x->config)) ||
        !zc__cur_str(c, "compressor", x->compressor, sizeof(x->compressor)) ||
        !zc__cur_str(c, "err", x->err, sizeof(x->err)) || !zc__cur_key(c, "st"))
        return false;
    if (rc > 64)
        return zc__cur_fail(c, "want an error code");
    r->rc = -(int)rc;
    r->have_zs = have != 0;
#define X(f)                                                                   \
    if (!zc__cur_u64(c, &r->st.f))                                             \
        return false;
    ZC_REPLAY_STATS_FIELDS(X)
#undef X
    if (!zc__cur_eol(c) || !zc__cur_key(c, "zs"))
        return false;
#define X(f)                                                                   \
    if (!zc__cur_u64(c, &r->zs.f))                                             \
        return false;
    ZC_STATS_FIELDS(X)
#undef X
    for (int b = 0; b < ZC_HIST_BUCKETS; b++)
        if (!zc__cur_u64(c, &r->zs.compr_size_hist[b]))
            return false;
    return read_epochs(sw, c, i);
}

/* Replace job n's result by t under name ext ("rows" or "failed"), the
 * other name removed first: never both. */
static int put_result(const char *dir, size_t n, const char *ext,
                      const struct zc__text *t, char *err, size_t errlen)
{
    char *keep = job_path(dir, n, ext),
         *drop = job_path(dir, n, strcmp(ext, "rows") ? "rows" : "failed");
    int rc = 0;

    if (!keep || !drop)
        rc = -ZC_ENOMEM;
    else if (unlink(drop) && errno != ENOENT) {
        snprintf(err, errlen, "cannot remove %s: %s", drop, strerror(errno));
        rc = -ZC_EIO;
    } else if (zc__write_atomic(keep, t)) {
        snprintf(err, errlen, "cannot write %s: %s", keep, strerror(errno));
        rc = -ZC_EIO;
    }
    free(keep);
    free(drop);
    return rc;
}

int zc_sweep_plan_save_failure(const char *dir, uint64_t plan_id, size_t n,
                               const char *why, char *err, size_t errlen)
{
    struct zc__text t = {0};
    int rc;

    if (!dir)
        return -ZC_EINVAL;
    zc__text_add(&t, FAILED_MAGIC "\nplan %016" PRIx64 "\njob %zu\n", plan_id,
                 n);
    zc__text_str(&t, "error", why ? why : "");
    rc = put_result(dir, n, "failed", &t, err, errlen);
    free(t.s);
    return rc;
}

int zc_sweep_plan_save_job(zc_sweep *sw, const char *dir, size_t n)
{
    const zc_sweep_job *j;
    const zc_sweep_trace *u;
    struct zc__text t = {0};
    char msg[1400] = "";
    int rc = 0, failed = 0;

    if (!sw || !dir || !(j = job_of(sw, n)))
        return -ZC_EINVAL;
    u = &sw->tpub[j->trace];
    for (size_t i = j->first_row; i < j->first_row + j->nrows; i++)
        if (sw->rpub[i].rc == -ZC_ECANCELED)
            return zc__sweep_fail(sw, -ZC_EINVAL,
                                  "job %zu: row %zu did not run to its end "
                                  "(%s): nothing saved",
                                  n, i + sw->sel_row, sw->rows[i].err);
    for (size_t i = j->first_row; i < j->first_row + j->nrows; i++)
        if (sw->rpub[i].rc && !failed) {
            failed = 1;
            snprintf(msg, sizeof(msg), "row %s: %s",
                     sw->rows[i].label[0] ? sw->rows[i].label : "-",
                     sw->rows[i].err);
        }
    if (failed) {
        rc = zc_sweep_plan_save_failure(dir, sw->plan_id, n, msg, sw->err,
                                        sizeof(sw->err));
        return rc;
    }
    zc__text_add(&t,
                 ROWS_MAGIC "\nplan %016" PRIx64 "\njob %zu\nrows %zu %zu\n",
                 sw->plan_id, n, j->first_row + sw->sel_row, j->nrows);
    for (size_t i = j->first_row; i < j->first_row + j->nrows; i++)
        write_row(sw, &t, i);
    if (j->curve) {
        zc__text_add(&t, "curve %" PRIu64 " %" PRIu64 " %zu", u->curve_accesses,
                     u->curve_distinct, sw->nmrc);
        for (size_t i = 0; i < sw->nmrc; i++)
            zc__text_add(&t, " %" PRIu64, sw->traces[j->trace].curve_hits[i]);
        zc__text_add(&t, "\n");
    }
    /* the last line checks every byte before it */
    zc__text_add(&t, "end %zu %016" PRIx64 "\n", n,
                 zc__fnv1a(t.s ? t.s : "", t.len));
    rc = t.oom ? -ZC_ENOMEM
               : put_result(dir, n, "rows", &t, sw->err, sizeof(sw->err));
    free(t.s);
    return rc;
}

/* ---- merging ------------------------------------------------------------ */

/* Job n without rows: 1 when nothing says it ran; -ZC_EFORMAT when it
 * failed, what failed in sw->err. */
static int load_failure(zc_sweep *sw, const char *dir, size_t n)
{
    char *p = job_path(dir, n, "failed"), *text, msg[1024] = "";
    struct zc__cursor c;
    uint64_t id = 0, job = 0;
    const char *why;
    size_t len;
    int rc;

    if (!p)
        return -ZC_ENOMEM;
    if ((rc = zc__read_all(p, &text, &len, &why))) {
        int e = errno;
        if (e != ENOENT)
            zc__sweep_fail(sw, -ZC_EFORMAT,
                           "failed: cannot read its record %s: %s", p, why);
        free(p);
        return e == ENOENT ? 1 : -ZC_EFORMAT;
    }
    c = (struct zc__cursor){.p = text, .end = text + len, .path = p, .line = 1};
    if (zc__cur_magic(&c, FAILED_MAGIC) && zc__cur_key(&c, "plan") &&
        zc__cur_hex(&c, &id) && zc__cur_eol(&c) && zc__cur_key(&c, "job") &&
        zc__cur_u64(&c, &job) && zc__cur_eol(&c))
        zc__cur_str(&c, "error", msg, sizeof(msg));
    if (id != sw->plan_id || job != n)
        zc__sweep_fail(sw, -ZC_EFORMAT,
                       "failed, by %s (not this plan's record)", p);
    else
        zc__sweep_fail(sw, -ZC_EFORMAT, "failed: %s",
                       msg[0] ? msg : "(no message)");
    free(text);
    free(p);
    return -ZC_EFORMAT;
}

static bool read_curve(zc_sweep *sw, struct zc__cursor *c,
                       const zc_sweep_job *j)
{
    zc_sweep_trace *u = &sw->tpub[j->trace];
    uint64_t acc, dist, nm;

    if (!zc__cur_key(c, "curve") || !zc__cur_u64(c, &acc) ||
        !zc__cur_u64(c, &dist) || !zc__cur_u64(c, &nm))
        return false;
    if (nm != sw->nmrc)
        return zc__cur_fail(c, "a curve of other --mrc sizes");
    for (size_t i = 0; i < sw->nmrc; i++)
        if (!zc__cur_u64(c, &sw->traces[j->trace].curve_hits[i]))
            return false;
    if (!zc__cur_eol(c))
        return false;
    u->have_curve = true;
    u->curve_accesses = acc;
    u->curve_distinct = dist;
    return true;
}

/* The rows of job j from the text of its file. */
static bool read_job(zc_sweep *sw, struct zc__cursor *c, size_t n,
                     const char *text)
{
    const zc_sweep_job *j = job_of(sw, n);
    uint64_t id, job, first, cnt, sum;
    const char *end_at;

    if (!zc__cur_magic(c, ROWS_MAGIC))
        return zc__cur_fail(c, "not a job's rows");
    if (!zc__cur_key(c, "plan") || !zc__cur_hex(c, &id))
        return false;
    if (id != sw->plan_id)
        return zc__cur_fail(c, "rows of another plan, not this one");
    if (!zc__cur_eol(c) || !zc__cur_key(c, "job") || !zc__cur_u64(c, &job) ||
        !zc__cur_eol(c) || !zc__cur_key(c, "rows") || !zc__cur_u64(c, &first) ||
        !zc__cur_u64(c, &cnt) || !zc__cur_eol(c))
        return false;
    if (job != n || first != j->first_row + sw->sel_row || cnt != j->nrows)
        return zc__cur_fail(c, "not the rows of this job");
    for (size_t i = j->first_row; i < j->first_row + j->nrows; i++)
        if (!read_row(sw, c, i))
            return false;
    if (j->curve && !read_curve(sw, c, j))
        return false;
    end_at = c->p;
    if (!zc__cur_key(c, "end") || !zc__cur_u64(c, &job) || job != n ||
        !zc__cur_hex(c, &sum) || !zc__cur_eol(c) || c->p != c->end)
        return zc__cur_fail(c, "not whole (no 'end' where it should be)");
    if (sum != zc__fnv1a(text, (size_t)(end_at - text)))
        return zc__cur_fail(c, "changed since it was written (its checksum "
                               "differs)");
    return true;
}

int zc_sweep_plan_load_job(zc_sweep *sw, const char *dir, size_t n)
{
    char *p, *text;
    struct zc__cursor c;
    const char *why;
    size_t len;
    int rc;

    if (!sw || !dir || !job_of(sw, n))
        return -ZC_EINVAL;
    if (!(p = job_path(dir, n, "rows")))
        return -ZC_ENOMEM;
    if ((rc = zc__read_all(p, &text, &len, &why))) {
        rc = errno == ENOENT
                 ? load_failure(sw, dir, n)
                 : zc__sweep_fail(sw, -ZC_EFORMAT, "%s: %s", p, why);
        free(p);
        return rc;
    }
    c = (struct zc__cursor){.p = text, .end = text + len, .path = p, .line = 1};
    rc = read_job(sw, &c, n, text)
             ? 0
             : zc__sweep_fail(sw, -ZC_EFORMAT, "%s",
                              c.err[0] ? c.err : "unreadable");
    free(text);
    free(p);
    return rc;
}
